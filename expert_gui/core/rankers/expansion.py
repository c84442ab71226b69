"""Model 1 with query expansion by the k nearest terms in W_p: the paper's Figure 4 experiment,
which shows how much of the log-linear model's gain comes from semantic matching.

Each distinct query word the log-linear model knows adds its k nearest words (Euclidean distance
in W_p, as in the paper) to the query once each, before Model 1 scores it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from expert_gui.core.model.loglinear import LogLinearModel
from expert_gui.core.model.neighbours import nearest_words
from expert_gui.core.rankers.batch import BatchRanker, EncodedQueries, Query, Scores
from expert_gui.core.rankers.common import no_known_words, ranked
from expert_gui.core.rankers.language_models import Model1
from expert_gui.core.rankers.ranking import Ranking


class ExpandedModel1(BatchRanker):
    """Model 1 scoring the query plus the k W_p-neighbours of each of its words."""

    def __init__(self, model1: Model1, model: LogLinearModel, k: int = 5,
                 metric: str = "euclidean"):
        self.model1 = model1
        self.model = model
        self.k = k
        self.metric = metric
        self.name = f"{model1.name}+qe{k}"
        self.person_ids = model1.person_ids
        self.batch_width = model1.batch_width

    def expansion(self, query: str) -> list[str]:
        """The added words, in order: each known query word's k neighbours."""
        ids, _, _ = self.model.encode(query)
        added: list[str] = []
        for w in dict.fromkeys(ids.tolist()):
            added += [n.word for n in nearest_words(self.model, [w], self.k, self.metric)]
        return added

    def rank(self, query: str, depth: int | None = None) -> Ranking:
        words = self.model1.tokenizer.words(query)
        added = self.expansion(query)
        vocab = self.model1.collection.vocab
        ids, unknown = vocab.encode(words + added)
        terms, counts = np.unique(ids, return_counts=True)
        known = [w for w in words if w in vocab.index]
        unknown = [w for w in unknown if w in words]
        if len(terms) == 0 or not known:
            return no_known_words(query, self.name, self.person_ids, unknown)
        return ranked(query, self.name, self.person_ids,
                      self.model1.scores(terms, counts.astype(np.float64)), known, unknown,
                      depth, extra={"expansion": added})

    def score_batch(self, queries: Sequence[Query]) -> Scores:
        vocab = self.model1.collection.vocab
        texts = [q if isinstance(q, str) else " ".join(vocab.words[i] for i in q)
                 for q in queries]
        ids, known, unknown, extra = [], [], [], []
        for query in texts:
            words = self.model1.tokenizer.words(query)
            added = self.expansion(query)
            found, missing = vocab.encode(words + added)
            ids.append(found)
            known.append(tuple(w for w in words if w in vocab.index) if len(found) else ())
            unknown.append(tuple(w for w in missing if w in words))
            extra.append({"expansion": added})
        encoded = EncodedQueries(texts, ids, known, unknown, len(vocab))
        return Scores(self.name, self.person_ids, texts, self.model1.batch_scores(encoded),
                      known, unknown, extra=extra)
