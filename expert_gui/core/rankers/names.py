"""The names the CLI and the app offer for rankers and their options, importable at no cost
(no numpy, scipy or scikit-learn), apart from the rankers that use them."""

METHODS = ("auto", "loglinear", "model1-jm", "model1-d", "model1-d-doc", "model2-jm", "model2-d",
           "tfidf", "lsi", "ensemble")
AGGREGATIONS = ("sum", "mean", "informative")  # of the log-linear ranker's word scores
FUSIONS = ("product", "rrf")  # of an ensemble's members
