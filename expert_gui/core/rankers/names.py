"""The names the CLI and the app offer for rankers and their options, importable at no cost
(no numpy, scipy or scikit-learn), apart from the rankers that use them."""

METHODS = ("auto", "loglinear", "model1-jm", "model1-d", "model1-d-doc", "model2-jm", "model2-d",
           "tfidf", "lsi", "ensemble")
AGGREGATIONS = ("sum", "mean", "informative", "prior-once")  # of the log-linear word scores
FUSIONS = ("product", "rrf")  # of an ensemble's members
ENSEMBLE_MEMBERS = ("model2-jm", "loglinear")  # the ensemble's, by default (the paper's Table 4)

METHOD_LABELS = {
    "lsi": "LSI",
    "tfidf": "TF-IDF",
    "model1-d": "Model 1 (d)",
    "model1-d-doc": "Model 1 (d, doc. length)",
    "model1-jm": "Model 1 (jm)",
    "model2-d": "Model 2 (d)",
    "model2-jm": "Model 2 (jm)",
    "loglinear": "Log-linear",
    "loglinear-prior-once": "Log-linear (prior once)",
    "ensemble": "Ensemble",
    "auto": "Auto (fusion)",
    "chance": "Chance (random ranking)",
}
"""How every screen and table names a method."""

SCORE_NAMES = {
    "loglinear": "log P(c|q)",
    "model1-jm": "log P(q|c)", "model1-d": "log P(q|c)", "model1-d-doc": "log P(q|c)",
    "model2-jm": "log P(q|c)", "model2-d": "log P(q|c)",
    "tfidf": "cosine", "lsi": "cosine",
    "ensemble": "product of reciprocal ranks (Eq. 5)",
    "rrf": "reciprocal rank fusion",
    "auto": "weighted sum of z-scores",
}
"""What each method's `score` is, as exports and tables name it."""
