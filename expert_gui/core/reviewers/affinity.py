"""How well each person of a pool fits each paper: the number an assignment adds up.

A method's own score does not compare across papers (log P(q|c) tracks the paper's length;
P(c|q) shares one unit among the people), and an assignment compares a person's fit to
different papers. So the affinity is the method's per-paper z-score over every person it
ranks ((s - mean) / sd, fusion.zscores): how far above the collection's people this person
stands for this paper. `auto` for papers from outside is already a weighted sum of its members'
z-scores, and is taken as it is. On the reviewer gold standard's own measure (for one
researcher, does the score order the papers they rated by the expertise they gave?) that
z-scored fusion errs on 0.21 of the pairs against 0.44-0.49 for the members' raw scores
(docs/results/outside-papers.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from expert_gui.core.rankers.batch import block_size, blocks
from expert_gui.core.rankers.fusion import zscores


@dataclass(frozen=True)
class Affinities:
    """papers x pool affinities (`values`), and per paper the words no method knows and
    whether any was known at all (a paper with none has affinity 0 for everybody)."""

    values: np.ndarray
    pool: np.ndarray  # the ranker's person indices of the columns
    known: list[tuple[str, ...]]
    unknown: list[tuple[str, ...]]

    @property
    def blind(self) -> np.ndarray:
        """Papers none of whose words any method knows."""
        return np.array([not k for k in self.known], dtype=bool)


def affinities(ranker, texts: Sequence[str], pool: np.ndarray, *, z_scored: bool,
               progress: Callable[[tuple[int, int]], None] | None = None,
               should_stop: Callable[[], bool] | None = None) -> Affinities | None:
    """Each paper's affinity with each person of `pool` (indices into `ranker.person_ids`):
    the ranker's score, z-scored per paper unless it is one already (`z_scored`). None if
    `should_stop` said stop."""
    values = np.zeros((len(texts), len(pool)))
    known: list[tuple[str, ...]] = []
    unknown: list[tuple[str, ...]] = []
    done = 0
    for part in blocks(list(texts), block_size(ranker)):
        if should_stop is not None and should_stop():
            return None
        scores = ranker.score_batch(part)
        rows = scores.values if z_scored else zscores(scores.values)
        for i in range(len(part)):
            if scores.knows(i):
                values[done + i] = rows[i, pool]
        known += scores.known
        unknown += scores.unknown
        done += len(part)
        if progress is not None:
            progress((done, len(texts)))
    return Affinities(values, np.asarray(pool), known, unknown)
