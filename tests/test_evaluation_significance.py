"""The randomization test, Benjamini-Hochberg, the entropy/AP analysis and Tables 2 and 4."""

import csv
import io

import numpy as np
import pytest

from expert_gui.core.evaluation.analysis import ap_difference, entropy_vs_ap
from expert_gui.core.evaluation.measures import MEASURES, PerTopic
from expert_gui.core.evaluation.significance import (
    benjamini_hochberg,
    mark,
    randomization_test,
)
from expert_gui.core.evaluation.tables import build_table, to_csv, to_latex, to_markdown


@pytest.mark.parametrize("topics", [40, 1500])  # 1500 topics: permutations drawn in chunks
def test_identical_systems_have_p_one(topics):
    a = np.random.default_rng(3).random(topics)
    assert randomization_test(a, a.copy()) == 1.0


def test_very_different_systems_have_small_p():
    rng = np.random.default_rng(4)
    a = rng.random(50) * 0.2
    b = a + 0.5 + rng.random(50) * 0.1
    p = randomization_test(a, b, n_permutations=10_000)
    assert p == pytest.approx(1 / 10_001)
    assert randomization_test(b, a) == p  # two-tailed


def test_randomization_matches_exhaustive_enumeration():
    # Five topics: all 32 sign assignments, and |mean| >= observed counted by hand.
    d = np.array([0.3, -0.1, 0.2, 0.05, 0.4])
    signs = np.array(np.meshgrid(*[[-1, 1]] * 5)).reshape(5, -1).T
    exact = np.mean(np.abs(signs @ d) >= abs(d.sum()) - 1e-12)
    p = randomization_test(d, np.zeros(5), n_permutations=200_000, seed=1)
    assert p == pytest.approx(exact, abs=0.005)


def test_randomization_is_seeded():
    rng = np.random.default_rng(5)
    a, b = rng.random(20), rng.random(20)
    assert randomization_test(a, b, seed=7) == randomization_test(a, b, seed=7)


def test_benjamini_hochberg_worked_example():
    # Sorted p: 0.01, 0.02, 0.03, 0.04, 0.20 with m = 5: p * m / rank = 0.05, 0.05, 0.05, 0.05,
    # 0.20, then the running minimum from the largest rank down.
    raw = {"e": 0.20, "a": 0.01, "c": 0.03, "b": 0.02, "d": 0.04}
    adjusted = benjamini_hochberg(raw)
    assert adjusted == pytest.approx({"a": 0.05, "b": 0.05, "c": 0.05, "d": 0.05, "e": 0.20})
    # A step where the minimum from above matters: 0.01, 0.04, 0.045 -> 0.03, 0.045, 0.045.
    assert benjamini_hochberg({"x": 0.01, "y": 0.04, "z": 0.045}) == pytest.approx(
        {"x": 0.03, "y": 0.045, "z": 0.045})


@pytest.mark.parametrize("p, symbol", [(0.009, "***"), (0.01, "**"), (0.049, "**"), (0.05, "*"),
                                       (0.099, "*"), (0.1, ""), (None, "")])
def test_marks(p, symbol):
    assert mark(p) == symbol


def test_entropy_vs_ap_matches_numpy():
    rng = np.random.default_rng(2)
    x = rng.random(25)
    y = 0.8 - 0.6 * x + rng.normal(0, 0.1, 25)
    fit = entropy_vs_ap([str(i) for i in range(25)], list(x) + [], y, n_permutations=2000)
    assert fit.r == pytest.approx(np.corrcoef(x, y)[0, 1])
    slope, intercept = np.polyfit(x, y, 1)
    assert (fit.slope, fit.intercept) == pytest.approx((slope, intercept))
    assert fit.p < 0.01


def test_entropy_vs_ap_skips_topics_without_entropy():
    fit = entropy_vs_ap(["a", "b", "c", "d"], [0.2, None, 0.5, 0.9], [0.9, 0.0, 0.5, 0.1])
    assert fit.topics == ("a", "c", "d")
    too_few = entropy_vs_ap(["a", "b"], [0.2, 0.3], [0.1, 0.4])
    assert np.isnan(too_few.r)


def test_ap_difference_sorted():
    diff = ap_difference(["a", "b", "c", "d"], [0.5, 0.2, 0.9, 0.3], [0.1, 0.4, 0.9, 0.3])
    assert diff.topics == ("b", "c", "d", "a")
    np.testing.assert_allclose(diff.difference, [-0.2, 0.0, 0.0, 0.4])
    assert (diff.wins, diff.ties, diff.losses) == (1, 2, 1)


def _per_topic(values):
    topics = tuple(f"T{i}" for i in range(len(values)))
    return PerTopic(topics, {m: np.asarray(values, dtype=float) for m in MEASURES})


def test_table_marks_and_bold():
    rng = np.random.default_rng(0)
    good = rng.random(30) * 0.3 + 0.6
    per_topic = {"loglinear": _per_topic(good), "model2-jm": _per_topic(good - 0.01),
                 "lsi": _per_topic(good * 0.1)}
    table = build_table("Table 2", per_topic, ("lsi", "model2-jm", "loglinear", "absent"),
                        "loglinear", n_permutations=2000)
    assert table.methods == ("lsi", "model2-jm", "loglinear")
    assert table.mark("lsi", "AP") == "***"
    assert table.mark("model2-jm", "AP") == "***"  # always 0.01 lower: consistent, so significant
    assert table.mark("loglinear", "AP") == ""
    assert table.best("AP") == {"loglinear"}
    md = to_markdown(table)
    sd = good.std(ddof=1)
    assert "| LSI |" in md and r"\*\*\*" in md and f"**{good.mean():.3f} ± {sd:.3f}**" in md
    rows = list(csv.DictReader(io.StringIO(to_csv(table))))
    assert [r["method"] for r in rows] == ["lsi", "model2-jm", "loglinear"]
    assert float(rows[2]["AP"]) == pytest.approx(good.mean(), abs=1e-6)
    assert float(rows[2]["AP sd"]) == pytest.approx(sd, abs=1e-6)
    assert rows[2]["AP p"] == "" and float(rows[0]["AP p"]) < 0.01
    tex = to_latex(table)
    assert tex.startswith(r"\begin{tabular}") and "^{***}" in tex and r"\textbf{" in tex
    assert tex.count(r"\\") == 4 and rf"_{{\pm {sd:.3f}}}" in tex


def test_the_best_first_relevant_rank_is_the_lowest():
    per_topic = {m: PerTopic(("a", "b"), {"FirstRel": np.array(v, dtype=float)})
                 for m, v in (("loglinear", [1, 3]), ("model2-jm", [2, 5]))}
    table = build_table("t", per_topic, ("model2-jm", "loglinear"), "loglinear",
                        measures=("FirstRel",), n_permutations=100)
    assert table.best("FirstRel") == {"loglinear"}
    assert "**2.0 ± 1.4**" in to_markdown(table)
