"""A 2-D map of all people from their rows of W_c, coloured by groups of people who know alike.

Rows: each person's W_c row minus the average row, scaled to unit length (`person_directions`).
The raw rows share a large common part that mostly says how active a person is: on DPDK the
cosine of a row with the mean direction has a correlation of -0.97 with log(documents), and
k-means on raw directions put the 94 most prolific authors (median 125 commits: Thomas Monjalon,
the mlx5 maintainers, Bruce Richardson, ...) in one group whatever their field. Centred, the
mlx5 maintainers fall in a "flow, action, hws, verbs" group and the Marvell ones in "cnxk,
crypto, event, ipsec, qat".

Projection: PCA (the two leading principal axes, by SVD) of those rows, or t-SNE with cosine
distances on request.

Groups: k-means on the same rows (on unit vectors the distance it minimises is a monotone
function of the cosine), in the full e dimensions rather than on the map, so a colour can show a
grouping the projection hides. k-means because it is cheap (|C| x k x e per iteration),
deterministic given its seed, and gives each group a centre. The rows have no sharp clusters:
the cosine silhouette stays near 0.04 for k = 3..20 on DPDK, a continuum. So k is not
"discovered" but fixed by the rule of thumb k = sqrt(|C| / 2), at most 12 (the colours that stay
distinguishable); the silhouette is shown with the map. A group is named by the words most of
its members share: those at least half of them have among their own 30 profile words, and
at least twice the share of the others (`group_labels`), each with its share; a group whose members share none is named by its most
typical members. (Naming it by its own KL term, P(K|w) = sum_{c in K} P(c|w) as "someone of K",
let the members with the most peaked P(c|w) speak for all: an NLP researcher sat under "speech,
asr, email, simstudent, diarization".)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from expert_gui.core.explore.profile import Profiler
from expert_gui.core.model.marginals import logits, word_blocks

PROJECTIONS = ("PCA", "t-SNE")
MAX_GROUPS = 12  # colours that stay distinguishable
GROUP_WORDS = 5  # words in a group's label
PERSON_WORDS = 30  # each member's own words, among which a group's are counted
MOST = 0.5  # a word names a group when at least this share of its members has it
DISTINCT = 2.0  # ... and at least this many times the share of the other people
GROUP_MEMBERS = 3  # members that name a group sharing no word
# People the silhouette is measured on (it costs the square of their number).
SILHOUETTE_SAMPLE = 3000


@dataclass(frozen=True)
class PeopleMap:
    method: str
    xy: np.ndarray  # |C| x 2
    groups: np.ndarray  # |C| group of each person, 0..k-1
    labels: tuple[GroupLabel, ...]  # what names each group
    silhouette: float


def unit_rows(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms > 0, norms, 1.0)


def person_directions(weights: np.ndarray) -> np.ndarray:
    """Each row of W_c minus the average row, at unit length: what sets a person apart."""
    x = np.asarray(weights, dtype=np.float64)
    return unit_rows(x - x.mean(axis=0))


def project(x: np.ndarray, method: str = "PCA", seed: int = 0) -> np.ndarray:
    """Rows of x in 2-D: PCA, or t-SNE with cosine distances."""
    if method == "PCA":
        centred = x - x.mean(axis=0)
        _, _, vt = np.linalg.svd(centred, full_matrices=False)
        xy = centred @ vt[:2].T
        return np.pad(xy, ((0, 0), (0, 2 - xy.shape[1])))
    if method == "t-SNE":
        from sklearn.manifold import TSNE
        from threadpoolctl import threadpool_limits

        perplexity = float(min(30, max(2, (len(x) - 1) // 3)))
        # One thread: spinning OpenMP pools on a busy machine made t-SNE far slower.
        with threadpool_limits(limits=1):
            xy = TSNE(n_components=2, perplexity=perplexity, metric="cosine", init="pca",
                      random_state=seed).fit_transform(x)
        return xy.astype(np.float64)
    raise ValueError(f"projection must be one of {PROJECTIONS}, not {method!r}")


def group_count(n_people: int) -> int:
    """k = sqrt(|C| / 2), between 1 and `MAX_GROUPS`."""
    return int(min(MAX_GROUPS, max(1, round(np.sqrt(n_people / 2)))))


def group_people(x: np.ndarray, seed: int = 0) -> tuple[np.ndarray, float]:
    """k-means groups of the rows x (`person_directions`), and their cosine silhouette (0 for
    one group)."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score

    k = min(group_count(len(x)), len(x))
    if k < 2:
        return np.zeros(len(x), dtype=np.int64), 0.0
    groups = KMeans(n_clusters=k, n_init=4, random_state=seed).fit_predict(x).astype(np.int64)
    if len(np.unique(groups)) < 2:
        return groups, 0.0
    score = silhouette_score(x, groups, metric="cosine",
                             sample_size=min(len(x), SILHOUETTE_SAMPLE), random_state=seed)
    return groups, float(score)


@dataclass(frozen=True)
class GroupLabel:
    """What names a group: the words most of its members share (each with the share of members
    who have it among their own words), and its most typical members."""

    words: tuple[str, ...]
    shares: tuple[float, ...]
    members: tuple[str, ...]
    size: int

    def text(self) -> str:
        """'flow 90%, action 75%' (shares of its members), or, when no word is shared by most of
        them, 'people like Ann, Bob, Cai'."""
        if self.words:
            return ", ".join(f"{w} {s:.0%}" for w, s in zip(self.words, self.shares,
                                                            strict=True))
        return "people like " + ", ".join(self.members)


def group_labels(profiler: Profiler, groups: np.ndarray, directions: np.ndarray,
                 n: int = GROUP_WORDS, should_stop: Callable[[], bool] | None = None,
                 person_words: int = PERSON_WORDS) -> tuple[GroupLabel, ...]:
    """Each group's label: the words that at least `MOST` of its members have among their
    `person_words` words (their profile's, by P(w|c) log(P(w|c)/P(w))), and twice the share of
    the other people at least (`naming`: a word most people have, such as "s", "c" or "und" in
    a collection of abstracts, names no group), the most shared first (ties: by the group's own
    such term, with P(K|w) = sum_{c in K} P(c|w)); and its `GROUP_MEMBERS` members nearest its
    centre, which name it when no word is shared by most.

    The group's own KL term alone named a group by the words of whoever in it had the most
    peaked P(c|w): an NLP researcher sat under "speech, asr, email, simstudent, diarization"."""
    profiler.prepare()
    model = profiler.model
    k = int(groups.max()) + 1 if len(groups) else 0
    member = np.zeros((model.n_people, k))
    member[np.arange(model.n_people), groups] = 1.0
    n_words = len(model.word_embeddings)
    top = min(person_words, n_words)
    best = np.full((top, model.n_people), -np.inf)  # each person's best word scores so far
    best_ids = np.zeros((top, model.n_people), dtype=np.int64)
    log_pkw = np.empty((n_words, k))
    for rows in word_blocks(model):
        if should_stop is not None and should_stop():
            return ()
        log_pcw = logits(model, rows) - profiler.log_z[rows, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            log_pkw[rows] = np.log(np.exp(log_pcw) @ member)
            log_pwc = log_pcw + profiler.log_p_word[rows, None] - profiler.log_prior[None, :]
            score = np.exp(log_pwc) * (log_pwc - profiler.log_p_word[rows, None])
        score[~profiler.listed[rows]] = -np.inf
        values = np.vstack([best, score])
        ids = np.vstack([best_ids, np.broadcast_to(np.arange(rows.start, rows.stop)[:, None],
                                                   score.shape)])
        keep = np.argpartition(-values, top - 1, axis=0)[:top]
        best = np.take_along_axis(values, keep, axis=0)
        best_ids = np.take_along_axis(ids, keep, axis=0)
    holders = np.zeros((n_words, k))  # members having each word among their own
    np.add.at(holders, (best_ids[np.isfinite(best)],
                        np.broadcast_to(groups, best.shape)[np.isfinite(best)]), 1.0)
    sizes = np.bincount(groups, minlength=k)
    log_pk = logsumexp(profiler.log_prior[:, None], b=member, axis=0)
    words = model.vocab.words
    labels = []
    for g in range(k):
        with np.errstate(invalid="ignore"):
            log_pwk = log_pkw[:, g] + profiler.log_p_word - log_pk[g]
            kl = np.where(profiler.listed, np.exp(log_pwk) * (log_pwk - profiler.log_p_word),
                          -np.inf)
        share = holders[:, g] / max(int(sizes[g]), 1)
        shared = np.flatnonzero(naming(holders, sizes, g) & profiler.listed)
        order = shared[np.lexsort((-np.nan_to_num(kl[shared], neginf=-1e300),
                                   -share[shared]))][:n]
        labels.append(GroupLabel(tuple(words[w] for w in order),
                                 tuple(float(share[w]) for w in order),
                                 _typical_members(model, groups, directions, g),
                                 int(sizes[g])))
    return tuple(labels)


def naming(holders: np.ndarray, sizes: np.ndarray, g: int) -> np.ndarray:
    """Which words may name group `g`, given how many members of each group have each word
    among their own (`holders`, words x groups) and the groups' sizes: those at least `MOST` of
    its members have, and at least `DISTINCT` times the share of the other people who have it."""
    share = holders[:, g] / max(int(sizes[g]), 1)
    others = max(int(sizes.sum()) - int(sizes[g]), 1)
    outside = (holders.sum(axis=1) - holders[:, g]) / others
    return (share >= MOST) & (share >= DISTINCT * outside)


def _typical_members(model, groups: np.ndarray, directions: np.ndarray,
                     g: int) -> tuple[str, ...]:
    """The names of the group's members nearest its mean direction."""
    members = np.flatnonzero(groups == g)
    centre = directions[members].mean(axis=0)
    nearest = members[np.argsort(-(directions[members] @ centre), kind="stable")]
    return tuple(model.person_names[int(c)] for c in nearest[:GROUP_MEMBERS])


def map_people(profiler: Profiler, method: str = "PCA", seed: int = 0,
               should_stop: Callable[[], bool] | None = None) -> PeopleMap | None:
    """Positions, groups and group words of every person of the profiler's model; None if
    stopped."""
    x = person_directions(profiler.model.candidate_weights)
    xy = project(x, method, seed)
    if should_stop is not None and should_stop():
        return None
    groups, silhouette = group_people(x, seed)
    if not profiler.prepare(should_stop):
        return None
    labels = group_labels(profiler, groups, x, should_stop=should_stop)
    if should_stop is not None and should_stop():
        return None
    return PeopleMap(method, xy, groups, labels, silhouette)
