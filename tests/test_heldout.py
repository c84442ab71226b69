"""Held-out documents: the seeded sample, the collection without them, their queries and qrels."""

import numpy as np
import pytest
from fixtures.training import load_training_fixture
from rankers_helpers import doc_words, tiny_collection

from expert_gui.core.data.collection import Collection
from expert_gui.core.evaluation.heldout import (
    HeldOutSettings,
    held_out_again,
    hold_out,
    sample_documents,
    without_documents,
)


@pytest.fixture(scope="module")
def collection():
    return load_training_fixture()


def test_sample_is_seeded_and_keeps_every_candidate(collection):
    settings = HeldOutSettings(fraction=0.2, minimum=1, maximum=100, seed=7)
    docs = sample_documents(collection, settings)
    assert docs.tolist() == sample_documents(collection, settings).tolist()
    assert docs.tolist() != sample_documents(collection, HeldOutSettings(0.2, 1, 100, 8)).tolist()
    assert len(docs) == round(0.2 * collection.n_documents) and (np.diff(docs) > 0).all()
    left = np.bincount(collection.assoc_people, minlength=collection.n_people)
    for d in docs:
        left[collection.people_of(int(d))] -= 1
    assert (left >= 1).all()


def test_sample_takes_only_documents_with_people_and_words():
    c = tiny_collection()  # d7 has no words left, d9 has nobody
    docs = sample_documents(c, HeldOutSettings(fraction=0.5, minimum=0, maximum=100))
    chosen = {c.doc_ids[d] for d in docs}
    assert chosen and not chosen & {"d7", "d9"}


@pytest.mark.parametrize("fraction, minimum, maximum, expected", [
    (0.02, 50, 1000, 13),   # at least 50, but never more than a fifth of the 65 eligible
    (0.1, 2, 1000, 6),      # 10% of 65, rounded to even
    (0.5, 1, 3, 3),         # at most 3
    (0.0, 50, 1000, 0),     # none
])
def test_sample_size(collection, fraction, minimum, maximum, expected):
    eligible = (np.diff(collection.assoc_indptr) > 0) & (collection.doc_lengths > 0)
    assert eligible.sum() == 65
    docs = sample_documents(collection, HeldOutSettings(fraction, minimum, maximum))
    assert len(docs) == expected


def test_settings_are_checked():
    with pytest.raises(ValueError):
        HeldOutSettings(fraction=1.0)
    with pytest.raises(ValueError):
        HeldOutSettings(minimum=10, maximum=5)


def test_without_documents_is_the_collection_never_given_them(collection):
    removed = np.array([0, 5, 6, 40])
    sub = without_documents(collection, removed)
    docs = [(collection.doc_ids[d], collection.text(d)) for d in range(collection.n_documents)
            if d not in removed]
    kept = {d for d, _ in docs}
    links = [(collection.doc_ids[d], collection.person_ids[p])
             for d in range(collection.n_documents) for p in collection.people_of(d)
             if collection.doc_ids[d] in kept]
    fresh = Collection.from_records(docs, links, settings=collection.settings)
    assert sub.doc_ids == fresh.doc_ids and sub.person_ids == fresh.person_ids
    assert sub.vocab.words == fresh.vocab.words
    assert sub.vocab.counts.tolist() == fresh.vocab.counts.tolist()
    for d in range(sub.n_documents):
        assert doc_words(sub, d) == doc_words(fresh, d)
        assert sub.text(d) == fresh.text(d)
        assert sub.people_of(d).tolist() == fresh.people_of(d).tolist()
    assert sub.fingerprint != collection.fingerprint
    assert sub.fingerprint == without_documents(collection, removed).fingerprint


def test_the_documents_kept_keep_their_dates():
    c = Collection.from_records([("a", "ring queue", "2021-03"), ("b", "crypto", "2019"),
                                 ("c", "ring", "")], [("a", "ann"), ("b", "bob"), ("c", "ann")])
    sub = without_documents(c, np.array([1]))
    assert [sub.date_text(d) for d in range(sub.n_documents)] == ["2021-03", ""]
    undated = without_documents(c, np.array([0, 1]))
    assert not undated.has_dates  # none of the documents left has a date


def test_words_only_removed_documents_held_become_unknown_and_lonely_people_go():
    c = Collection.from_records([("a", "ring queue"), ("b", "crypto zebra"), ("c", "ring")],
                                [("a", "ann"), ("b", "bob"), ("c", "ann")])
    sub = without_documents(c, np.array([1]))
    assert "zebra" not in sub.vocab.index and "crypto" not in sub.vocab.index
    assert sub.person_ids == ["ann"] and sub.people_of(1).tolist() == [0]


def test_queries_and_qrels_and_the_same_split_again(collection):
    split = hold_out(collection, HeldOutSettings(fraction=0.1, minimum=1))
    assert split.training.n_documents == collection.n_documents - len(split.documents)
    assert split.training.person_ids == collection.person_ids
    queries, qrels = split.queries(), split.qrels()
    assert list(queries) == split.doc_ids == list(qrels)
    for d in split.documents:
        doc_id = collection.doc_ids[d]
        assert queries[doc_id] == collection.text(int(d))
        assert set(qrels[doc_id]) == {collection.person_ids[p] for p in collection.people_of(d)}
    again = held_out_again(collection, {"held_out": {**split.settings.to_dict(),
                                                     "documents": split.doc_ids}})
    assert again.documents.tolist() == split.documents.tolist()
    assert again.training.fingerprint == split.training.fingerprint
