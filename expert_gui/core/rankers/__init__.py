"""Stage 5, ranking people: the `Ranking` every ranker answers with (`ranking.py`), the
log-linear ranker, the baselines (Model 1 and 2, TF-IDF, LSI), the ensembles, the calibrated
fusion `auto`, and `methods.make_ranker`, which builds any of them by name."""
