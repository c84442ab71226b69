"""Held-out documents as queries: the answer key every collection carries.

No user has relevance judgments, but each document knows its people. Before training, a seeded
sample of documents is set aside; the model is trained and the baselines index the rest. Each
held-out document's text is then a query whose relevant answers are its own people: exactly the
"paste an abstract, find who works on it" use, measured without a single label, as unsupervised
as the paper. It tells which method works best on this collection, calibrates the fusion `auto`,
and can stop training when the model stops getting better at it.

A document is only held out when each of its people keeps another document, so the candidates
are the same with and without the held-out documents (a person known only from held-out text
could never be found, and would not be a candidate of the trained model).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass

import numpy as np

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.derived import derived
from expert_gui.core.data.text import Vocabulary
from expert_gui.core.evaluation.qrels import Qrels


@dataclass(frozen=True)
class HeldOutSettings:
    """How many documents to hold out: `fraction` of those with people, at least `minimum` and at
    most `maximum` (never more than a fifth of them, so a small collection keeps most of its
    text for training), drawn with `seed`. fraction 0: none."""

    fraction: float = 0.02
    minimum: int = 50
    maximum: int = 1000
    seed: int = 0

    def __post_init__(self):
        if not 0 <= self.fraction < 1:
            raise ValueError("the held-out fraction must be in [0, 1)")
        if not 0 <= self.minimum <= self.maximum:
            raise ValueError("held-out documents: need 0 <= minimum <= maximum")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> HeldOutSettings:
        return cls(**{k: d[k] for k in ("fraction", "minimum", "maximum", "seed")})


@dataclass(frozen=True)
class HeldOut:
    """A collection split into the documents trained on (`training`) and the held-out ones."""

    collection: Collection
    training: Collection
    documents: np.ndarray  # indices into `collection`, ascending
    settings: HeldOutSettings

    @property
    def doc_ids(self) -> list[str]:
        return [self.collection.doc_ids[d] for d in self.documents]

    def queries(self) -> dict[str, str]:
        """Held-out document id -> its raw text, the query."""
        return {self.collection.doc_ids[d]: self.collection.text(int(d)) for d in self.documents}

    def qrels(self) -> Qrels:
        """Held-out document id -> its people, each relevant (grade 1)."""
        c = self.collection
        return {c.doc_ids[d]: {c.person_ids[p]: 1 for p in c.people_of(int(d))}
                for d in self.documents}


def hold_out(collection: Collection, settings: HeldOutSettings = HeldOutSettings()) -> HeldOut:
    """Draw the held-out documents and build the collection without them."""
    documents = sample_documents(collection, settings)
    return HeldOut(collection, without_documents(collection, documents), documents, settings)


def held_out_again(collection: Collection, calibration: dict) -> HeldOut:
    """The split a model was trained with, from the document ids its calibration records."""
    index = collection.doc_index
    documents = np.array(sorted(index[d] for d in calibration["held_out"]["documents"]
                                if d in index), dtype=np.int64)
    settings = HeldOutSettings.from_dict(calibration["held_out"])
    return HeldOut(collection, without_documents(collection, documents), documents, settings)


def sample_documents(collection: Collection, settings: HeldOutSettings) -> np.ndarray:
    """Seeded sample of documents that have words and people, each of whose people keeps another
    document; ascending indices."""
    n_links = np.diff(collection.assoc_indptr)
    eligible = np.flatnonzero((n_links > 0) & (collection.doc_lengths > 0))
    if settings.fraction == 0 or len(eligible) < 2:
        return np.zeros(0, dtype=np.int64)
    wanted = int(round(settings.fraction * len(eligible)))
    wanted = min(max(wanted, settings.minimum), settings.maximum, len(eligible) // 5)
    left = np.bincount(collection.assoc_people, minlength=collection.n_people)
    chosen = []
    for d in np.random.default_rng([settings.seed, 3]).permutation(eligible):
        if len(chosen) == wanted:
            break
        people = collection.people_of(int(d))
        if (left[people] > 1).all():
            left[people] -= 1
            chosen.append(int(d))
    return np.sort(np.asarray(chosen, dtype=np.int64))


def without_documents(collection: Collection, documents: np.ndarray) -> Collection:
    """The collection with `documents` (indices) removed, as if they had never been read.

    Token ids are re-mapped to a vocabulary cut from the remaining documents (a word only the
    removed ones held is unknown), people left without a document are no longer candidates, the
    remaining documents keep their dates, and the fingerprint is the original one combined with
    the removed ids.

    The same documents removed again give the same collection while it is held (the app's
    panels each ask for a model's index; `derived`): the rankers over it share its matrices.
    """
    if len(documents) == 0:
        return collection
    return derived(collection, ("without", np.asarray(documents, dtype=np.int64).tobytes()),
                   lambda: _without(collection, documents), weak=True)


def _without(collection: Collection, documents: np.ndarray) -> Collection:
    keep = np.ones(collection.n_documents, dtype=bool)
    keep[documents] = False
    token_keep = np.repeat(keep, collection.doc_lengths)
    tokens = np.asarray(collection.tokens)[token_keep].astype(np.int64)
    counts = np.bincount(tokens, minlength=len(collection.vocab))
    counts[0] = 0
    vocab, remap = Vocabulary.from_counts(collection.vocab.words[1:], counts[1:],
                                          collection.settings)
    remap = np.concatenate([[0], remap])
    tokens = remap[tokens]
    lengths = np.bincount(np.repeat(np.arange(collection.n_documents), collection.doc_lengths)
                          [token_keep][tokens >= 0], minlength=collection.n_documents)[keep]
    tokens = tokens[tokens >= 0].astype(vocab.dtype)

    text_lengths = np.diff(collection.text_offsets)
    text_bytes = np.asarray(collection.text_bytes)[np.repeat(keep, text_lengths)]

    dates = units = None  # the dates of the documents kept (None when none of them has one)
    if collection.doc_dates is not None and not np.isnat(collection.doc_dates[keep]).all():
        dates = np.asarray(collection.doc_dates)[keep]
        units = None if collection.doc_date_units is None else \
            np.asarray(collection.doc_date_units)[keep]

    link_keep = np.repeat(keep, np.diff(collection.assoc_indptr))
    people = np.asarray(collection.assoc_people)[link_keep]
    still = np.flatnonzero(np.bincount(people, minlength=collection.n_people) > 0)
    new_index = np.full(collection.n_people, -1, dtype=np.int64)
    new_index[still] = np.arange(len(still))

    return Collection(
        name=collection.name,
        doc_ids=[d for d, k in zip(collection.doc_ids, keep, strict=True) if k],
        person_ids=[collection.person_ids[p] for p in still],
        person_names=[collection.person_names[p] for p in still],
        person_affiliations=None if collection.person_affiliations is None else
        [collection.person_affiliations[p] for p in still],
        assoc_indptr=_offsets(np.diff(collection.assoc_indptr)[keep]),
        assoc_people=new_index[people].astype(np.int32),
        tokens=tokens,
        doc_offsets=_offsets(lengths),
        vocab=vocab,
        settings=collection.settings,
        text_bytes=text_bytes,
        text_offsets=_offsets(text_lengths[keep]),
        report=collection.report,
        fingerprint=fingerprint_without(collection.fingerprint,
                                        [collection.doc_ids[d] for d in np.sort(documents)]),
        source=collection.source,
        doc_dates=dates,
        doc_date_units=units,
    )


def fingerprint_without(fingerprint: str, doc_ids: list[str]) -> str:
    """The fingerprint of a collection without the documents `doc_ids` (in collection order):
    the path's key stays, the content's key combines the original one with the removed ids."""
    removed = "\n".join(doc_ids)
    digest = hashlib.sha256((fingerprint + "\n" + removed).encode()).hexdigest()
    return fingerprint[:8] + digest[:16]


def _offsets(lengths: np.ndarray) -> np.ndarray:
    out = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=out[1:])
    return out
