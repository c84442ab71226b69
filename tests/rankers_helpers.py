"""A tiny collection and a random log-linear model over it, for the ranker tests."""

import csv
from pathlib import Path

import numpy as np

from expert_gui.core.data.collection import Collection
from expert_gui.core.model.loglinear import LogLinearModel

TINY = Path(__file__).parent / "fixtures" / "rankers" / "tiny"


def _rows(name: str) -> list[tuple[str, str]]:
    with open(TINY / name, encoding="utf-8", newline="") as f:
        return [tuple(row) for row in list(csv.reader(f, delimiter="\t"))[1:]]


def tiny_collection() -> Collection:
    """9 documents, 4 people; d6 has two people, d7 has no words left, d9 has nobody."""
    return Collection.from_records(_rows("documents.tsv"), _rows("associations.tsv"))


def random_model(collection: Collection, dim: int = 5, seed: int = 0,
                 scale: float = 1.0) -> LogLinearModel:
    rng = np.random.default_rng(seed)
    return LogLinearModel(
        word_embeddings=rng.normal(0, scale, (len(collection.vocab), dim)).astype(np.float32),
        candidate_weights=rng.normal(0, scale, (collection.n_people, dim)).astype(np.float32),
        candidate_bias=rng.normal(0, 0.1, collection.n_people).astype(np.float32),
        vocab=collection.vocab,
        text_settings=collection.settings,
        person_ids=list(collection.person_ids),
        person_names=list(collection.person_names),
    )


def doc_words(collection: Collection, d: int) -> list[str]:
    return [collection.vocab.words[t] for t in collection.doc_tokens(d)]
