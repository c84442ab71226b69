"""Windows, padding, targets and weights of the training instances, on hand-made documents."""

import numpy as np
import pytest

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.text import TextSettings
from expert_gui.core.train.instances import make_instances

SETTINGS = TextSettings(stopwords="none")


@pytest.fixture
def collection():
    docs = [
        ("d1", "a b c d e"),  # 5 tokens
        ("d2", "a b"),  # 2 tokens
        ("d3", "c c c c c c"),  # 6 tokens, nobody: no instances
        ("d4", "e"),
    ]
    assocs = [("d1", "alice"), ("d1", "bob"), ("d2", "bob"), ("d4", "carol")]
    return Collection.from_records(docs, assocs, settings=SETTINGS)


def ids(c, text):
    return [c.vocab.index[w] for w in text.split()]


def test_non_overlapping_windows_are_padded(collection):
    inst = make_instances(collection, window=2)
    expected = [
        ids(collection, "a b"), ids(collection, "c d"), ids(collection, "e") + [0],
        ids(collection, "a b"),
        ids(collection, "e") + [0],
    ]
    assert inst.windows.tolist() == expected
    assert inst.docs.tolist() == [0, 0, 0, 1, 3]


def test_overlapping_windows_have_stride_one(collection):
    inst = make_instances(collection, window=3, overlapping=True)
    expected = [
        ids(collection, "a b c"), ids(collection, "b c d"), ids(collection, "c d e"),
        ids(collection, "a b") + [0],
        ids(collection, "e") + [0, 0],
    ]
    assert inst.windows.tolist() == expected


def test_weights_are_longest_over_own_length(collection):
    inst = make_instances(collection, window=2)
    # |d_max| = 6 (d3, even though it has nobody); |d1| = 5, |d2| = 2, |d4| = 1.
    np.testing.assert_allclose(inst.weights, [6 / 5, 6 / 5, 6 / 5, 6 / 2, 6 / 1])


def test_targets_are_uniform_over_the_documents_people(collection):
    inst = make_instances(collection, window=2)
    alice, bob, carol = (collection.person_index[p] for p in ("alice", "bob", "carol"))
    dense = inst.target_matrix(np.array([0, 3, 4]), collection.n_people)
    expected = np.zeros((3, 3))
    expected[0, [alice, bob]] = 0.5
    expected[1, bob] = 1.0
    expected[2, carol] = 1.0
    np.testing.assert_allclose(dense, expected)
    rows, people, probs = inst.targets(np.array([4, 0]))
    assert sorted(zip(rows.tolist(), people.tolist(), probs.tolist(), strict=True)) == sorted(
        [(0, carol, 1.0), (1, alice, 0.5), (1, bob, 0.5)])


def test_every_token_of_every_trained_document_is_in_exactly_one_window(collection):
    for window in (1, 2, 3, 7):
        inst = make_instances(collection, window=window)
        counts = np.bincount(inst.windows[inst.windows > 0], minlength=len(collection.vocab))
        trained = np.concatenate([collection.doc_tokens(i) for i in (0, 1, 3)])
        assert counts.tolist() == np.bincount(trained, minlength=len(collection.vocab)).tolist()
