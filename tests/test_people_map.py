"""The people map: its projection, its groups and the words that name them."""

import numpy as np
import pytest
from rankers_helpers import random_model
from scipy.special import log_softmax
from sklearn.decomposition import PCA

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.text import NUMBER_TOKEN, PAD_ID
from expert_gui.core.explore.people_map import (
    group_count,
    group_people,
    group_words,
    map_people,
    person_directions,
    project,
    unit_rows,
)
from expert_gui.core.explore.profile import Profiler


@pytest.fixture
def model(fixtures):
    return random_model(load_collection(fixtures / "profiles", use_cache=False), seed=5)


def test_group_count_rule():
    assert [group_count(n) for n in (1, 5, 50, 200, 1473, 100_000)] == [1, 2, 5, 10, 12, 12]


def test_pca_matches_scikit_learn_up_to_sign():
    x = unit_rows(np.random.default_rng(0).normal(size=(40, 6)))
    ours, theirs = project(x, "PCA"), PCA(2).fit_transform(x)
    assert np.allclose(np.abs(ours), np.abs(theirs), atol=1e-8)
    with pytest.raises(ValueError):
        project(x, "UMAP")


def test_tsne_gives_one_point_per_person():
    x = unit_rows(np.random.default_rng(0).normal(size=(12, 4)))
    assert project(x, "t-SNE").shape == (12, 2)


def test_groups_and_silhouette():
    rng = np.random.default_rng(1)
    centres = np.eye(4)[:2] * 5
    x = unit_rows(np.concatenate([c + rng.normal(0, 0.1, (10, 4)) for c in centres]))
    groups, silhouette = group_people(x)  # 20 people: sqrt(10) -> 3 groups
    assert len(np.unique(groups)) == 3 and -1 <= silhouette <= 1
    assert len(set(groups[:10]) & set(groups[10:])) == 0  # the two blobs never share a group
    few, silhouette = group_people(x[:3])  # sqrt(1.5) -> one group
    assert not few.any() and silhouette == 0.0


def test_group_words_are_the_kl_terms_of_someone_of_the_group(model):
    profiler = Profiler(model)
    groups = np.array([0, 1, 0, 1, 1])
    logits = model.word_embeddings.astype(np.float64) @ model.candidate_weights.T.astype(
        np.float64) + model.candidate_bias
    p_cw = np.exp(log_softmax(logits, axis=1))
    counts = model.vocab.counts.astype(float).copy()
    counts[PAD_ID] = 0
    p_w = counts / counts.sum()
    words = group_words(profiler, groups, n=3)
    for g in (0, 1):
        p_kw = p_cw[:, groups == g].sum(axis=1)
        p_wk = p_kw * p_w / (p_kw * p_w).sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            kl = p_wk * np.log(p_wk / p_w)
        kl[[PAD_ID, model.vocab.index[NUMBER_TOKEN]]] = -np.inf
        expected = np.argsort(-kl, kind="stable")[:3]
        assert words[g] == tuple(model.vocab.words[i] for i in expected)


def test_person_directions_are_centred_unit_rows():
    w = np.random.default_rng(3).normal(size=(7, 4)) + 5.0  # a large common part
    x = person_directions(w)
    centred = w - w.mean(axis=0)
    assert np.allclose(x, centred / np.linalg.norm(centred, axis=1, keepdims=True))


def test_map_people(model):
    people_map = map_people(Profiler(model), "PCA")
    assert np.allclose(people_map.xy, project(person_directions(model.candidate_weights)))
    assert set(people_map.groups) <= set(range(len(people_map.group_words)))
    assert map_people(Profiler(model), should_stop=lambda: True) is None
