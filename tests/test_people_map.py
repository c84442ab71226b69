"""The people map: its projection, its groups and the words that name them."""

from dataclasses import replace

import numpy as np
import pytest
from rankers_helpers import random_model
from scipy.special import log_softmax
from sklearn.decomposition import PCA

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.text import NUMBER_TOKEN, PAD_ID
from expert_gui.core.explore.people_map import (
    MOST,
    PERSON_WORDS,
    group_count,
    group_labels,
    group_people,
    map_people,
    naming,
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


def direct_scores(model):
    """P(c|w), P(w) and every person's KL word scores, written out over the whole vocabulary."""
    logits = model.word_embeddings.astype(np.float64) @ model.candidate_weights.T.astype(
        np.float64) + model.candidate_bias
    p_cw = np.exp(log_softmax(logits, axis=1))
    counts = model.vocab.counts.astype(float).copy()
    counts[PAD_ID] = 0
    p_w = counts / counts.sum()
    hidden = [PAD_ID, model.vocab.index[NUMBER_TOKEN]]
    p_wc = p_cw * p_w[:, None] / (p_cw * p_w[:, None]).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = p_wc * np.log(p_wc / p_w[:, None])
    kl[hidden] = -np.inf
    return p_cw, p_w, kl, hidden


def test_groups_are_named_by_the_words_most_members_share(model):
    profiler = Profiler(model)
    groups = np.array([0, 1, 0, 1, 1])
    x = person_directions(model.candidate_weights)
    labels = group_labels(profiler, groups, x, n=3)
    p_cw, p_w, kl, hidden = direct_scores(model)
    own = [set(np.argsort(-kl[:, c], kind="stable")[:PERSON_WORDS]) for c in range(5)]
    for g in (0, 1):
        members = np.flatnonzero(groups == g)
        share = np.array([sum(w in own[c] for c in members) / len(members)
                          for w in range(len(p_w))])
        p_kw = p_cw[:, members].sum(axis=1)
        p_wk = p_kw * p_w / (p_kw * p_w).sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            group_kl = p_wk * np.log(p_wk / p_w)
        others = np.flatnonzero(groups != g)
        outside = np.array([sum(w in own[c] for c in others) / len(others)
                            for w in range(len(p_w))])
        candidates = [w for w in range(len(p_w))
                      if share[w] >= MOST and share[w] >= 2 * outside[w] and w not in hidden]
        expected = sorted(candidates, key=lambda w: (-share[w], -group_kl[w]))[:3]
        assert labels[g].words == tuple(model.vocab.words[w] for w in expected)
        assert labels[g].shares == pytest.approx([share[w] for w in expected])
        assert labels[g].size == len(members) and len(labels[g].members) == min(3, len(members))


def test_one_member_with_peaked_words_no_longer_names_the_group(model):
    """Four of a group's five people write "ring" and "queues" (which the other group writes
    too, less); the fifth alone writes "crypto" and "cipher", with a far more peaked P(c|w).
    The group's own KL term named the group by the fifth's words; most members share the first
    two."""
    vocab = model.vocab.index
    rng = np.random.default_rng(0)
    wp = rng.normal(0, 0.05, (len(model.vocab), 6))
    wc = rng.normal(0, 0.05, (10, 6))
    shared, own = [vocab["ring"], vocab["queues"]], [vocab["crypto"], vocab["cipher"]]
    wp[shared, 0] = 3.0
    wc[:4, 0], wc[5:, 0] = 2.0, 1.5
    wp[own, 1] = 9.0
    wc[4, 1] = 9.0
    peaked = replace(model, word_embeddings=wp.astype(np.float32),
                     candidate_weights=wc.astype(np.float32),
                     candidate_bias=np.zeros(10, dtype=np.float32),
                     person_ids=[f"p{i}" for i in range(10)],
                     person_names=[f"Person {i}" for i in range(10)])
    groups = np.array([0] * 5 + [1] * 5)
    p_cw, p_w, _, hidden = direct_scores(peaked)
    p_kw = p_cw[:, :5].sum(axis=1)
    p_wk = p_kw * p_w / (p_kw * p_w).sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        group_kl = p_wk * np.log(p_wk / p_w)
    group_kl[hidden] = -np.inf
    old = [peaked.vocab.words[w] for w in np.argsort(-group_kl, kind="stable")[:1]]
    assert old[0] == "crypto"  # the group's own term: led by one member's word
    label = group_labels(Profiler(peaked), groups, person_directions(wc), person_words=3)[0]
    assert set(label.words[:2]) == {"ring", "queues"}
    assert "crypto" not in label.words and "cipher" not in label.words
    assert label.shares[:2] == (0.8, 0.8)
    assert label.text().startswith(("ring 80%", "queues 80%"))


def test_a_group_sharing_no_word_is_named_by_its_members():
    from expert_gui.core.explore.people_map import GroupLabel

    label = GroupLabel((), (), ("Ann", "Bob", "Cai"), 7)
    assert label.text() == "people like Ann, Bob, Cai"
    assert GroupLabel(("ring",), (0.75,), ("Ann",), 4).text() == "ring 75%"


def test_person_directions_are_centred_unit_rows():
    w = np.random.default_rng(3).normal(size=(7, 4)) + 5.0  # a large common part
    x = person_directions(w)
    centred = w - w.mean(axis=0)
    assert np.allclose(x, centred / np.linalg.norm(centred, axis=1, keepdims=True))


def test_map_people(model):
    people_map = map_people(Profiler(model), "PCA")
    assert np.allclose(people_map.xy, project(person_directions(model.candidate_weights)))
    assert set(people_map.groups) <= set(range(len(people_map.labels)))
    assert map_people(Profiler(model), should_stop=lambda: True) is None



def test_a_word_most_people_have_names_no_group():
    """Issue 31: groups of a collection of abstracts were named "s", "c", "und": words most
    people have among their own, which say nothing about one group."""
    sizes = np.array([10, 10, 5])
    holders = np.array([[10, 9, 4],  # "und": nearly everybody's
                        [8, 1, 0],  # the first group's
                        [6, 3, 0],  # most of the first group's, but half as many others'
                        [6, 4, 1]])  # most of the first group's, and many others'
    assert naming(holders, sizes, 0).tolist() == [False, True, True, False]
    assert not naming(holders, sizes, 1).any() and not naming(holders, sizes, 2).any()
