import numpy as np
import pytest
from rankers_helpers import random_model, tiny_collection
from sklearn.neighbors import NearestNeighbors

from expert_gui.core.model.neighbours import nearest_words, neighbours_tsv, write_neighbours_tsv


@pytest.fixture(scope="module")
def model():
    return random_model(tiny_collection(), dim=6, seed=3)


def sklearn_neighbours(model, ids, k, metric):
    emb = model.word_embeddings.astype(float)
    nn = NearestNeighbors(n_neighbors=len(emb), metric=metric, algorithm="brute").fit(emb)
    dist, idx = nn.kneighbors(emb[ids].sum(axis=0)[None, :])
    keep = [(i, d) for i, d in zip(idx[0], dist[0], strict=True) if i != 0 and i not in ids]
    return keep[:k]


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
@pytest.mark.parametrize("words", [["ring"], ["ice", "driver"], ["flow", "rules", "mempool"]])
def test_matches_sklearn_nearest_neighbors(model, metric, words):
    ids = [model.vocab.index[w] for w in words]
    got = nearest_words(model, ids, k=5, metric=metric)
    want = sklearn_neighbours(model, ids, 5, metric)
    assert [n.word_id for n in got] == [i for i, _ in want]
    np.testing.assert_allclose([n.distance for n in got], [d for _, d in want], atol=1e-9)
    assert [n.word for n in got] == [model.vocab.words[i] for i, _ in want]
    assert all(n.word not in words and n.word != "<pad>" for n in got)


def test_k_larger_than_the_vocabulary_and_empty_input(model):
    everything = nearest_words(model, [1], k=1000)
    assert len(everything) == len(model.vocab) - 2
    assert nearest_words(model, [], k=5) == []
    with pytest.raises(ValueError):
        nearest_words(model, [1], metric="manhattan")


def test_tsv_export(model, tmp_path):
    found = nearest_words(model, [model.vocab.index["ring"]], k=3)
    path = tmp_path / "n.tsv"
    write_neighbours_tsv(path, "ring", "euclidean", found)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "query\tmetric\trank\tword\tdistance"
    assert len(lines) == 4
    query, metric, rank, word, dist = lines[1].split("\t")
    assert (query, metric, rank, word) == ("ring", "euclidean", "1", found[0].word)
    assert float(dist) == pytest.approx(found[0].distance, rel=1e-5)
    assert neighbours_tsv("ring", "cosine", []) == "query\tmetric\trank\tword\tdistance\n"
