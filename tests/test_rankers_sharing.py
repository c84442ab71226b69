"""The rankers over one collection share its matrices, and `auto` and the ensemble rank with the
rankers prepared for their members' own methods (at a million documents each prepared method's
own copies took the app to 9.0 GB): built once, held while used, and ranking exactly as rankers
that share nothing."""

import gc
import threading
import time
import weakref
from pathlib import Path

import numpy as np
import pytest
from rankers_helpers import random_model
from scipy.sparse import csr_matrix
from sklearn.feature_extraction.text import TfidfTransformer

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.topics import read_topics
from expert_gui.core.evaluation.heldout import HeldOutSettings, hold_out, without_documents
from expert_gui.core.rankers import common
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.names import METHODS

SAMPLE = Path(__file__).parent / "fixtures" / "dpdk_sample"
# Every method, and the options that build a ranker of their own over the shared matrices.
VARIANTS = [(m, {}) for m in METHODS] + [
    ("model1-jm", {"expand": 3}), ("model2-jm", {"lam": 0.9}), ("model2-d", {"beta": 10.0}),
    ("ensemble", {"fusion": "rrf"}), ("loglinear", {"aggregation": "informative"}),
]


def _split():
    return hold_out(load_collection(SAMPLE, use_cache=False),
                    HeldOutSettings(fraction=0.1, minimum=20, seed=1))


def _calibrated(split):
    model = random_model(split.training, dim=16, seed=4)
    model.calibration = {"fusion": {"members": ["loglinear", "model2-jm", "model1-d"],
                                    "weights": [0.5, 0.3, 0.2], "decision": "calibrated",
                                    "label": "test"}}
    return model


@pytest.fixture(scope="module")
def queries():
    split = _split()
    return list(split.queries().values()) + [t.query for t in read_topics(SAMPLE / "topics.tsv")]


def _scores(ranker, queries) -> tuple[np.ndarray, list]:
    """Every person's score of each query in a batch, and each query's ranking by `rank`."""
    return (ranker.score_batch(queries).values,
            [(r.people.tolist(), r.scores.tolist()) for r in map(ranker.rank, queries)])


def test_every_method_scores_as_when_it_shares_nothing(queries):
    """Each method built alone over its own copy of the collection (nothing shared) against the
    same method built after every other one over one collection, as the app prepares them:
    the same scores to the last bit."""
    split = _split()
    model = _calibrated(split)
    together = [make_ranker(m, model=model, collection=split.training, **o) for m, o in VARIANTS]
    for (method, options), shared in zip(VARIANTS, together, strict=True):
        alone_split = _split()
        assert alone_split.training is not split.training
        alone = make_ranker(method, model=_calibrated(alone_split),
                            collection=alone_split.training, **options)
        batch, one = _scores(shared, queries)
        batch_alone, one_alone = _scores(alone, queries)
        np.testing.assert_array_equal(batch, batch_alone, err_msg=method)
        assert one == one_alone, method


def test_preparing_two_methods_counts_the_words_once(monkeypatch):
    calls = []
    count_terms = common._count_terms
    monkeypatch.setattr(common, "_count_terms", lambda c: calls.append(c) or count_terms(c))
    collection = _split().training
    model1 = make_ranker("model1-d", collection=collection, p_expert=False)
    model2 = make_ranker("model2-jm", collection=collection, p_expert=False)
    tfidf = make_ranker("tfidf", collection=collection, p_expert=False)
    assert len(calls) == 1
    assert model1.counts is model2.counts
    assert np.shares_memory(tfidf.doc_vectors.indices, model2.counts.indices)  # its structure
    assert make_ranker("model2-d", collection=collection).postings is model2.postings
    assert make_ranker("model1-jm", collection=collection).profiles is model1.profiles
    assert make_ranker("lsi", collection=collection).tfidf is tfidf.tfidf


def test_the_shared_matrices_are_what_each_ranker_built_for_itself():
    """The counts without their full-length buffers, the TF-IDF vectors over the counts' own
    indices: the same values as the straightforward constructions they replace."""
    collection = _split().training
    counts = common.term_document_matrix(collection)
    rows = np.repeat(np.arange(collection.n_documents), collection.doc_lengths)
    straight = csr_matrix((np.ones(len(rows)), (rows, np.asarray(collection.tokens, int))),
                          shape=counts.shape)
    straight.sum_duplicates()
    for a, b in ((counts.indptr, straight.indptr), (counts.indices, straight.indices),
                 (counts.data, straight.data)):
        np.testing.assert_array_equal(a, b)
        assert a.base is None or a.base.nbytes == a.nbytes  # no buffer as long as the tokens
    tfidf = make_ranker("tfidf", collection=collection)
    sklearns = TfidfTransformer(norm=None, smooth_idf=True, sublinear_tf=False).fit_transform(
        straight)
    assert (tfidf.doc_vectors != sklearns).nnz == 0
    with pytest.raises(ValueError, match="read-only"):
        counts.data[0] = 2.0  # nobody changes what the others read


def test_auto_and_the_ensemble_rank_with_the_prepared_members():
    split = _split()
    model = _calibrated(split)
    prepared = {m: make_ranker(m, model=model, collection=split.training, p_expert=False)
                for m in ("loglinear", "model2-jm", "model1-d")}
    auto = make_ranker("auto", model=model, collection=split.training)
    assert [r.name for r in auto.rankers] == ["loglinear", "model2-jm", "model1-d"]
    assert all(r is prepared[r.name] for r in auto.rankers)
    ensemble = make_ranker("ensemble", model=model, collection=split.training, p_expert=False)
    assert ensemble.rankers == [prepared["model2-jm"], prepared["loglinear"]]
    # another option or collection is another ranker
    assert make_ranker("model2-jm", collection=split.training, lam=0.9) is not \
        prepared["model2-jm"]
    assert make_ranker("model2-jm", collection=_split().training) is not prepared["model2-jm"]


def test_auto_follows_a_calibration_changed_since():
    split = _split()
    model = _calibrated(split)
    first = make_ranker("auto", model=model, collection=split.training)
    model.calibration = {"fusion": {**model.calibration["fusion"], "weights": [0.2, 0.0, 0.8]}}
    again = make_ranker("auto", model=model, collection=split.training)
    assert first.weights.tolist() == [0.5, 0.3, 0.2] and again.weights.tolist() == [0.2, 0.0, 0.8]
    assert again.rankers == first.rankers


def test_what_is_shared_goes_with_its_last_user():
    collection = _split().training
    ranker = make_ranker("model2-jm", collection=collection, p_expert=False)
    ranker_ref, counts_ref = weakref.ref(ranker), weakref.ref(ranker.counts)
    del ranker
    gc.collect()
    assert ranker_ref() is None and counts_ref() is not None  # the collection holds its counts
    assert make_ranker("model2-jm", collection=collection).counts is counts_ref()
    del collection
    gc.collect()
    assert counts_ref() is None


def test_two_threads_asking_at_once_build_once(monkeypatch):
    calls = []
    count_terms = common._count_terms

    def slow(c):
        calls.append(c)
        time.sleep(0.2)
        return count_terms(c)

    monkeypatch.setattr(common, "_count_terms", slow)
    collection = _split().training
    built = {}
    threads = [threading.Thread(target=lambda m=m: built.setdefault(
        m, make_ranker(m, collection=collection, p_expert=False))) for m in
        ("model2-jm", "model2-jm", "model1-d")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and built["model2-jm"].counts is built["model1-d"].counts


def test_a_model_index_is_one_collection_while_held():
    """The app's panels each ask for the model's index (the collection without its held-out
    documents): one collection, so their rankers share its matrices."""
    split = _split()
    again = without_documents(split.collection, split.documents)
    assert again is split.training
    other = without_documents(split.collection, split.documents[1:])
    assert other is not split.training and other.n_documents == split.training.n_documents + 1
    ref = weakref.ref(split.training)
    del split, again
    gc.collect()
    assert ref() is None


def test_a_device_gets_its_own_copy_of_what_the_rankers_share():
    pytest.importorskip("torch")
    from expert_gui.core.rankers.arrays import TorchArrays

    shared = np.arange(3.0)
    shared.flags.writeable = False
    tensor = TorchArrays("cpu").put(shared)
    tensor[0] = 5.0  # torch cannot keep a tensor from writing to a read-only array
    assert shared.tolist() == [0.0, 1.0, 2.0] and tensor.tolist() == [5.0, 1.0, 2.0]
