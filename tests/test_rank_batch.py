"""`rank_batch` gives the rankings `rank` gives, query by query, for every method, wrapper and
option, on real collections: a sample of DPDK's commits (tests/fixtures/dpdk_sample), and all of
DPDK where /work/shared is present. The torch path runs on the CPU here (device "cpu"), as it
would on the training GPU, and on the GPU where EXPERT_GUI_TEST_TORCH_DEVICE=cuda."""

from pathlib import Path

import numpy as np
import pytest
from rankers_helpers import TORCH_DEVICE, assert_same_rankings, p_expert_fit, random_model

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.recency import Recency
from expert_gui.core.data.topics import read_topics
from expert_gui.core.errors import QueryError
from expert_gui.core.evaluation.heldout import HeldOutSettings, hold_out
from expert_gui.core.rankers.batch import block_size
from expert_gui.core.rankers.candidates import Restricted
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.names import METHODS

SAMPLE = Path(__file__).parent / "fixtures" / "dpdk_sample"
DPDK = Path("/work/shared/data/dpdk-maintainers")


def calibrated_model(split, dim: int = 16):
    """A random model over the training documents with a calibration to make every wrapper:
    auto's weights and a fit of P(expert) for every method."""
    model = random_model(split.training, dim=dim, seed=4)
    model.calibration = {
        "held_out": {**split.settings.to_dict(), "documents": split.doc_ids},
        "fusion": {"members": ["loglinear", "model2-jm", "model1-d"],
                   "weights": [0.5, 0.3, 0.2], "decision": "calibrated", "label": "test"},
        "probability": {m: p_expert_fit(1.0 + i / 10, queries=9)
                        for i, m in enumerate(METHODS)},
    }
    return model


def queries_of(split, topics_path: Path, n: int | None = None) -> list:
    """Held-out documents (long queries), topics (short ones), a query of no known word, an
    empty one, and two as token ids."""
    texts = list(split.queries().values())[:n]
    texts += [t.query for t in read_topics(topics_path)]
    vocab = split.training.vocab
    return texts + ["zzzz qqqq", "", [vocab.index["fix"], vocab.index["fix"], 5], []]


@pytest.fixture(scope="module")
def sample():
    split = hold_out(load_collection(SAMPLE, use_cache=False),
                     HeldOutSettings(fraction=0.1, minimum=20, seed=1))
    return split, calibrated_model(split), queries_of(split, SAMPLE / "topics.tsv")


def _check(ranker, queries, depth=None):
    reference = [ranker.rank(q if isinstance(q, str) else _text(ranker, q), depth=depth)
                 for q in queries]
    assert_same_rankings(reference, ranker.rank_batch(queries, depth=depth))


def _text(ranker, ids) -> str:
    """The query text an id list stands for: its words."""
    return " ".join(ranker.collection_vocab.words[i] for i in ids)


VARIANTS = [(m, {}) for m in METHODS] + [
    ("loglinear", {"aggregation": "mean"}), ("loglinear", {"aggregation": "informative"}),
    ("loglinear", {"aggregation": "prior-once"}),
    ("ensemble", {"fusion": "rrf"}), ("model1-jm", {"expand": 3}),
    ("model2-jm", {"lam": 0.9}), ("model2-d", {"beta": 10.0}),
]


# On a torch device Model 2 sums a person's documents in another order than `rank`, so people
# whose scores tie to the last bit may swap; a fusion of ranks (Eq. 5) then moves them a rank.
# Its batch is checked against its members' batch rankings there instead.
RANK_FUSIONS = ("ensemble",)


@pytest.mark.parametrize("device", [None, TORCH_DEVICE])
@pytest.mark.parametrize(("method", "options"), VARIANTS)
def test_batch_ranks_as_one_query_at_a_time(sample, method, options, device):
    if device and method in RANK_FUSIONS:
        pytest.skip("rank fusion on a device: test_rank_fusion_on_a_device")
    split, model, queries = sample
    ranker = make_ranker(method, model=model, collection=split.training, device=device,
                         **options)
    ranker.collection_vocab = split.training.vocab
    _check(ranker, queries)
    _check(ranker, queries, depth=7)


@pytest.mark.parametrize("device", [None, TORCH_DEVICE])
@pytest.mark.parametrize("method", [m for m in METHODS if m not in RANK_FUSIONS])
def test_batch_ranks_papers_from_outside_under_recency(sample, method, device):
    """`--outside` and `--since`/`--half-life` rank a batch as one query at a time, and the
    people with no document from the year on are left out of both."""
    split, model, queries = sample
    ranker = make_ranker(method, model=model, collection=split.training, device=device,
                         outside=True, recency=Recency(since=2024, half_life=2.0))
    ranker.collection_vocab = split.training.vocab
    assert 0 < len(ranker.candidates) < split.training.n_people
    assert ranker.rank_batch(queries[:1])[0].p_expert is None  # fitted without either
    _check(ranker, queries, depth=9)


@pytest.mark.parametrize("device", [None, TORCH_DEVICE])
def test_batch_within_candidates_with_p_expert(sample, device):
    split, model, queries = sample
    people = split.training.person_ids[::3]
    for method in METHODS:
        if device and method in RANK_FUSIONS:
            continue
        ranker = Restricted(make_ranker(method, model=model, collection=split.training,
                                        device=device), people)
        ranker.collection_vocab = split.training.vocab
        assert ranker.rank_batch(queries[:1])[0].p_expert is not None
        _check(ranker, queries, depth=5)


def fractional_ranks(ranking):
    """scipy's fractional ranks of every person by the ranking's scores (tied people share the
    mean of their ranks), as Eq. 5 takes them."""
    from scipy.stats import rankdata

    values = np.empty(len(ranking.person_ids))
    values[ranking.people] = ranking.scores
    return rankdata(-values)


@pytest.mark.parametrize("fusion", ["product", "rrf"])
def test_rank_fusion_on_a_device(sample, fusion):
    split, model, queries = sample
    ensemble = make_ranker("ensemble", model=model, collection=split.training, device=TORCH_DEVICE,
                           p_expert=False, fusion=fusion)
    members = [r.rank_batch(queries) for r in ensemble.rankers]
    for i, ranking in enumerate(ensemble.rank_batch(queries)):
        ranks = [fractional_ranks(m[i]) for m in members if not m[i].no_known_words]
        if not ranks:
            assert ranking.no_known_words
            continue
        r = np.vstack(ranks).astype(float)
        expected = (1 / r).prod(axis=0) if fusion == "product" else (1 / (60 + r)).sum(axis=0)
        np.testing.assert_allclose(ranking.scores, np.sort(expected)[::-1], rtol=1e-12)


def test_blocks_keep_memory_bounded(sample, monkeypatch):
    """Many small blocks rank as one large one: the block size is only a memory bound."""
    from expert_gui.core.rankers import batch

    split, model, queries = sample
    ranker = make_ranker("auto", model=model, collection=split.training)
    whole = ranker.rank_batch(queries)
    assert block_size(ranker) >= len(queries)
    monkeypatch.setattr(batch, "BLOCK_BYTES", 8 * ranker.batch_width * 3)
    assert block_size(ranker) == 3
    # to the last bits: BLAS may sum a row of a matrix product in another order when the
    # matrix has other rows (seen here: 5e-14 of the log-linear model's logits)
    assert_same_rankings(whole, ranker.rank_batch(queries), tol=1e-12)


def test_token_ids_out_of_the_vocabulary_are_refused(sample):
    split, model, _ = sample
    ranker = make_ranker("model1-d", collection=split.training)
    with pytest.raises(QueryError, match="token ids"):
        ranker.rank_batch([[len(split.training.vocab)]])
    with pytest.raises(QueryError, match="token ids"):
        ranker.rank_batch([[0]])


def model2_over_every_document(ranker, query: str) -> np.ndarray:
    """Model 2's score of every person straight from its formula: log p(q|theta_d) of every
    document from its smoothed term probabilities, then log sum_d p(d|c) p(q|theta_d) as a
    log-sum-exp; None for a query of no known word."""
    from scipy.special import logsumexp

    ids, _ = ranker.collection.vocab.encode(ranker.tokenizer.words(query))
    if not len(ids):
        return None
    terms, n_tq = np.unique(ids, return_counts=True)
    lengths = ranker.doc_lengths[:, None]
    lam = ranker.smoothing_weight(ranker.doc_lengths)[:, None]
    p_td = ranker.counts[:, terms].toarray() / np.maximum(lengths, 1)
    log_pq = np.log((1 - lam) * p_td + lam * ranker.p_background[terms]) @ n_tq
    p = ranker.p_doc_given_person
    return np.array([logsumexp(log_pq[p[c].indices], b=p[c].data) for c in range(p.shape[0])])


@pytest.mark.parametrize("options", [{}, {"lam": 0.9}, {"smoothing": "dirichlet"},
                                     {"smoothing": "dirichlet", "beta": 10.0}])
def test_model2_sums_over_every_document(sample, options):
    """Model 2 touches only the documents that hold a query word (language_models.py): the
    scores are those of the formula summed over every document, long queries included."""
    from expert_gui.core.rankers.language_models import Model2

    split, _, queries = sample
    ranker = Model2(split.training, **options)
    texts = [q for q in queries if isinstance(q, str)]
    for query, ranking in zip(texts, ranker.rank_batch(texts), strict=True):
        expected = model2_over_every_document(ranker, query)
        if expected is None:
            assert ranking.no_known_words
            continue
        np.testing.assert_allclose(ranking.scores, expected[ranking.people], rtol=1e-12)
        assert (np.diff(ranking.scores) <= 0).all()


@pytest.mark.skipif(not DPDK.is_dir(), reason="needs /work/shared/data/dpdk-maintainers")
def test_batch_ranks_as_one_query_at_a_time_on_all_of_dpdk():
    split = hold_out(load_collection(DPDK), HeldOutSettings(seed=3))
    model = calibrated_model(split, dim=64)
    queries = queries_of(split, DPDK / "topics.dev.tsv", n=60)
    for method in METHODS:
        ranker = make_ranker(method, model=model, collection=split.training)
        ranker.collection_vocab = split.training.vocab
        reference = [ranker.rank(q if isinstance(q, str) else _text(ranker, q), depth=1000)
                     for q in queries]
        batch = ranker.rank_batch(queries, depth=1000)
        assert_same_rankings(reference, batch)
        assert any(len(r) == 1000 for r in batch) or len(split.training.person_ids) < 1000
    assert np.isfinite([r.scores[0] for r in batch if len(r)]).all()
