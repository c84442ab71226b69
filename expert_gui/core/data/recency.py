"""Recent work counts more: each document gets a weight in [0, 1] that every method applies.

`since` (a year): documents dated before it count for nothing, as a reviewer search's "the last
five years" window (OpenReview's minimum publication date, Reviewer Locator). `half_life`
(years): a document's weight halves for every that many years it is older than the
collection's newest document (the newest, not today, so that an export of 2019 is not all
"old"). Both may be given. A document without a date counts fully, and every answer says how
many those were.

A method ranks with the weighted documents (rankers/recency.py says how each uses them): a
person's profile is made of their documents by weight, and their score counts the weighted
share r_c = sum_d w_d a(d,c) / sum_d a(d,c) of their documents, so someone whose work on a
topic is old ranks below someone doing it now. A person with no document that counts
(r_c = 0) is not ranked at all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.dates import format_date
from expert_gui.core.errors import QueryError

DAYS_PER_YEAR = 365.25
# Bounds of the settings: a year a date can hold, and half-lives from a month to a millennium.
YEARS = (1000, 9999)
HALF_LIVES = (1 / 12, 1000.0)


@dataclass(frozen=True)
class Recency:
    """The user's recency settings; `Recency()` is none (every document counts fully)."""

    since: int | None = None
    half_life: float | None = None

    def __post_init__(self):
        if self.since is not None and not YEARS[0] <= self.since <= YEARS[1]:
            raise QueryError(f"--since takes a year from {YEARS[0]} to {YEARS[1]}, not "
                             f"{self.since}")
        if self.half_life is not None and not (
                math.isfinite(self.half_life) and HALF_LIVES[0] <= self.half_life
                <= HALF_LIVES[1]):
            raise QueryError(f"--half-life takes {HALF_LIVES[0]:.2f} to {HALF_LIVES[1]:,.0f} "
                             f"years, not {self.half_life}")

    def __bool__(self) -> bool:
        return self.since is not None or self.half_life is not None

    @property
    def key(self) -> tuple:
        """What caches of weighted indexes are keyed by."""
        return ("recency", self.since, self.half_life)

    def describe(self) -> str:
        """"documents from 2019 on, half-life 5 years" ("" for none)."""
        parts = []
        if self.since is not None:
            parts.append(f"documents from {self.since} on")
        if self.half_life is not None:
            parts.append(f"half-life {self.half_life:g} year{'s' if self.half_life != 1 else ''}")
        return ", ".join(parts)


@dataclass(frozen=True)
class DocumentWeights:
    """Each document's weight under `recency`, and what an answer says of them."""

    recency: Recency
    weights: np.ndarray  # float64, one per document, in [0, 1]
    undated: int  # documents without a date: counted fully
    dropped: int  # documents that count for nothing (before `since`)
    newest: str  # the newest document's date, where ages are counted from ("" if undated)

    @property
    def key(self) -> tuple:
        return self.recency.key

    def shares(self, collection: Collection) -> np.ndarray:
        """r_c per person: the weighted share of their documents (0 without documents)."""
        per_doc = np.diff(collection.assoc_indptr)
        docs = np.repeat(np.arange(collection.n_documents), per_doc)
        total = np.bincount(collection.assoc_people, minlength=collection.n_people)
        weighted = np.bincount(collection.assoc_people, self.weights[docs],
                               minlength=collection.n_people)
        return np.divide(weighted, total, out=np.zeros(collection.n_people), where=total > 0)

    def describe(self) -> str:
        """What the answer says: the settings, the undated documents, those left out."""
        n = len(self.weights)
        text = self.recency.describe()
        if self.undated == n:
            return f"{text}: no document has a date, so every one counts fully"
        if self.recency.half_life is not None and self.newest:
            text += f" (ages from the newest document, {self.newest})"
        if self.dropped:
            text += f"; {self.dropped:,} of {n:,} documents are older and count for nothing"
        if self.undated:
            text += (f"; {self.undated:,} documents without a date count fully"
                     if self.undated != 1 else "; 1 document without a date counts fully")
        return text


def document_weights(collection: Collection, recency: Recency) -> DocumentWeights:
    """The weight of every document of `collection` under `recency`."""
    n = collection.n_documents
    if not collection.has_dates:
        return DocumentWeights(recency, np.ones(n), n, 0, "")
    days = collection.doc_dates.astype("datetime64[D]")
    dated = ~np.isnat(days)
    weights = np.ones(n)
    newest = days[dated].max() if dated.any() else None
    if recency.since is not None:
        start = np.datetime64(f"{recency.since:04d}-01-01", "D")
        weights[dated & (days < start)] = 0.0
    if recency.half_life is not None and newest is not None:
        age = (newest - days[dated]).astype(np.float64) / DAYS_PER_YEAR
        weights[dated] *= 0.5 ** (age / recency.half_life)
    return DocumentWeights(recency, weights, int((~dated).sum()), int((weights == 0).sum()),
                           "" if newest is None else format_date(newest))
