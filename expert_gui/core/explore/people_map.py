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
distinguishable); the silhouette is shown with the map. A group is named by its words: P(K|w) =
sum_{c in K} P(c|w) is Eq. 1 for "someone of K", turned into the same KL term as a person's words
(`profile.WORD_SCORES`). On DPDK the 12 groups read as fields: Broadcom bnxt, Intel ice, vhost/
virtio, cnxk/crypto/event, flow actions (mlx5), pipeline/table/hash libraries, and groups of
one- or two-commit authors named by generic words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from expert_gui.core.explore.profile import Profiler, top_indices

PROJECTIONS = ("PCA", "t-SNE")
MAX_GROUPS = 12  # colours that stay distinguishable
GROUP_WORDS = 5
# People the silhouette is measured on (it costs the square of their number).
SILHOUETTE_SAMPLE = 3000


@dataclass(frozen=True)
class PeopleMap:
    method: str
    xy: np.ndarray  # |C| x 2
    groups: np.ndarray  # |C| group of each person, 0..k-1
    group_words: tuple[tuple[str, ...], ...]  # the words of each group
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


def group_words(profiler: Profiler, groups: np.ndarray, n: int = GROUP_WORDS,
                should_stop: Callable[[], bool] | None = None) -> tuple[tuple[str, ...], ...]:
    """The n words of each group by P(w|K) log(P(w|K)/P(w)), with P(K|w) = sum_{c in K} P(c|w)."""
    profiler.prepare()
    model = profiler.model
    k = int(groups.max()) + 1 if len(groups) else 0
    member = np.zeros((model.n_people, k))
    member[np.arange(model.n_people), groups] = 1.0
    log_pkw = np.empty((len(model.word_embeddings), k))
    for rows in profiler.word_blocks():
        if should_stop is not None and should_stop():
            return ()
        p = np.exp(profiler.logits(rows) - profiler.log_z[rows, None])
        with np.errstate(divide="ignore"):
            log_pkw[rows] = np.log(p @ member)
    log_pk = logsumexp(profiler.log_prior[:, None], b=member, axis=0)
    words = model.vocab.words
    out = []
    for g in range(k):
        with np.errstate(invalid="ignore"):
            log_pwk = log_pkw[:, g] + profiler.log_p_word - log_pk[g]
            score = np.exp(log_pwk) * (log_pwk - profiler.log_p_word)
        score = np.where(profiler.listed, score, -np.inf)
        out.append(tuple(words[w] for w in top_indices(score, n)))
    return tuple(out)


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
    words = group_words(profiler, groups, should_stop=should_stop)
    if should_stop is not None and should_stop():
        return None
    return PeopleMap(method, xy, groups, words, silhouette)
