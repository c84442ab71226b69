"""Papers from outside the collection (`--outside`): the log-linear model with its prior counted
once, `auto`'s fixed fusion for them, and what `query` and `rank` say of it; each formula
against a direct numpy evaluation."""

import json

import numpy as np
import pytest
from rankers_helpers import TINY, p_expert_fit, random_model, tiny_collection
from scipy.special import log_softmax, logsumexp

from expert_gui.cli import main
from expert_gui.core.model.marginals import marginals
from expert_gui.core.rankers.fusion import OUTSIDE, OUTSIDE_LABEL, zscores
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.query_type import OUTSIDE_PAPER
from expert_gui.core.store.storage import save_model

QUERY = "ring buffer mempool flow rules for the ice driver link"


@pytest.fixture(scope="module")
def collection():
    return tiny_collection()


@pytest.fixture(scope="module")
def model(collection):
    m = random_model(collection, seed=3, scale=1.5)
    m.collection_source = str(TINY)
    m.calibration = {"probability": {"auto": p_expert_fit(), "model1-d": p_expert_fit()}}
    return m


def posterior(model, word_ids):
    """log P(c|w) of Eq. 1, row per word, straight from the parameters."""
    logits = model.word_embeddings[word_ids].astype(np.float64) @ \
        model.candidate_weights.astype(np.float64).T + model.candidate_bias
    return log_softmax(logits, axis=1)


def test_the_prior_is_the_models_own_marginal(model):
    counts = model.vocab.counts.astype(np.float64)
    counts[0] = 0.0  # the padding token is no word of the collection
    p_word = counts / counts.sum()
    everything = posterior(model, np.arange(len(model.vocab)))
    expected = logsumexp(everything + np.log(np.where(p_word > 0, p_word, 1e-300))[:, None],
                         axis=0, b=(p_word > 0)[:, None])
    np.testing.assert_allclose(marginals(model).log_prior, expected, rtol=1e-6, atol=1e-9)
    assert logsumexp(marginals(model).log_prior) == pytest.approx(0.0, abs=1e-9)


def test_prior_once_is_bayes_rule_for_k_words(model):
    ids, _, _ = model.encode(QUERY)
    k = len(ids)
    expected = log_softmax(posterior(model, ids).sum(axis=0)
                           - (k - 1) * marginals(model).log_prior)
    ranking = make_ranker("loglinear", model=model, aggregation="prior-once").rank(QUERY)
    np.testing.assert_allclose(ranking.scores, np.sort(expected)[::-1], rtol=1e-9)
    assert ranking.method == "loglinear-prior-once"
    # one word: the prior is counted once either way, as in Eq. 1
    one = make_ranker("loglinear", model=model, aggregation="prior-once").rank("ring")
    plain = make_ranker("loglinear", model=model).rank("ring")
    np.testing.assert_allclose(one.scores, plain.scores, rtol=1e-12)


def test_auto_for_a_paper_from_outside_adds_three_members_z_scores(model, collection):
    ranker = make_ranker("auto", model=model, collection=collection, outside=True)
    members = [make_ranker(m, model=model, collection=collection, p_expert=False,
                           **dict(options)) for m, options, _ in OUTSIDE]
    z = np.zeros(collection.n_people)
    for member, (_, _, weight) in zip(members, OUTSIDE, strict=True):
        r = member.rank(QUERY)
        scores = np.empty(collection.n_people)
        scores[r.people] = r.scores
        order = [member.person_ids.index(p) for p in ranker.person_ids]
        z += weight * zscores(scores[order])
    ranking = ranker.rank(QUERY)
    np.testing.assert_allclose(ranking.scores, np.sort(z)[::-1], atol=1e-12)
    assert ranking.extra["query_type"] == OUTSIDE_PAPER
    assert ranking.extra["decision"] == "outside" and ranking.extra["label"] == OUTSIDE_LABEL
    assert ranking.extra["weights"] == pytest.approx([1 / 3] * 3)
    assert ranking.p_expert is None  # the fit for auto answers who wrote a document
    assert make_ranker("auto", model=model, collection=collection).rank(QUERY).p_expert \
        is not None


def test_no_method_carries_p_expert_for_a_paper_from_outside(model, collection):
    ranking = make_ranker("model1-d", model=model, collection=collection,
                          outside=True).rank(QUERY)
    assert ranking.p_expert is None
    same = make_ranker("model1-d", model=model, collection=collection).rank(QUERY)
    assert ranking.people.tolist() == same.people.tolist()  # the method itself is unchanged


@pytest.fixture(scope="module")
def plain(collection):
    """A model as saved without held-out documents (no calibration)."""
    m = random_model(collection, seed=3, scale=1.5)
    m.collection_source = str(TINY)
    return m


@pytest.fixture
def model_dir(plain, tmp_path):
    save_model(plain, tmp_path / "model")
    return tmp_path / "model"


def test_query_outside_says_what_ranked_it_and_why(model_dir, capsys):
    assert main(["query", str(model_dir), QUERY, "--outside", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["query_type"] == OUTSIDE_PAPER and out["auto"]["query_type"] == OUTSIDE_PAPER
    assert out["auto"]["decision"] == "outside" and "who could review it" in out["auto"]["why"]
    assert out["p_expert"] is None
    assert main(["query", str(model_dir), QUERY, "--outside"]) == 0
    printed = capsys.readouterr().out
    assert f"auto: {OUTSIDE_LABEL}" in printed
    assert "for this paper from outside" in printed
    assert "not calibrated for a paper from outside" in printed
    assert main(["query", str(model_dir), QUERY]) == 0  # without --outside: as before
    assert "for this paper from outside" not in capsys.readouterr().out


def test_rank_outside_writes_the_same_run_as_the_ranker(plain, collection, model_dir,
                                                         tmp_path, capsys):
    topics = tmp_path / "papers.tsv"
    topics.write_text(f"topic_id\tquery\nP1\t{QUERY}\nP2\tlockless memory pool cache\n",
                      encoding="utf-8")
    run = tmp_path / "out.run"
    assert main(["rank", str(model_dir), "--topics", str(topics), "--run", str(run),
                 "--outside"]) == 0
    printed = capsys.readouterr().out
    assert "ranked as papers from outside" in printed and OUTSIDE_LABEL in printed
    expected = make_ranker("auto", model=plain, collection=collection, outside=True)
    lines = run.read_text(encoding="utf-8").splitlines()
    first = [line.split()[2] for line in lines if line.startswith("P1 ")]
    assert first == [p for p, _ in expected.rank(QUERY).top()]
    assert main(["rank", str(model_dir), "--topics", str(topics), "--run", str(run),
                 "--outside", "--p-expert"]) == 0  # each person's score, and why not P(expert)
    assert all(len(line.split()) == 6 for line in run.read_text(encoding="utf-8").splitlines())
    assert "not calibrated for a paper from outside" in capsys.readouterr().err
