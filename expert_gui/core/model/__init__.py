"""Stage 2, the model: the log-linear model's parameters as numpy arrays, P(c|w) (Eq. 1) and
P(c|q) (Eq. 2), and the nearest words in its embeddings. No torch: a model is read and queried
without the trainer."""
