"""A model that learned little is told apart: a random ranking's expected AP and RR against
an enumeration of every ranking, the calibration's "chance" row, the warning's two rules, and
what a run says between its last step and its end."""

import itertools

import numpy as np
import pytest
from fixtures.training import load_training_fixture

from expert_gui.core.evaluation.calibration import TrainingStage, train_and_calibrate
from expert_gui.core.evaluation.heldout import HeldOutSettings, hold_out
from expert_gui.core.evaluation.quality import (
    chance_measures,
    expected_random_ap,
    expected_random_rr,
    held_out_warning,
)
from expert_gui.core.train.settings import TrainSettings


def every_ranking(relevant: int, n: int) -> tuple[float, float]:
    """Mean AP and RR over all n! orders of n people, the first `relevant` of them relevant."""
    aps, rrs = [], []
    for order in itertools.permutations(range(n)):
        ranks = sorted(order.index(p) + 1 for p in range(relevant))
        aps.append(np.mean([(i + 1) / r for i, r in enumerate(ranks)]))
        rrs.append(1 / ranks[0])
    return float(np.mean(aps)), float(np.mean(rrs))


@pytest.mark.parametrize(("relevant", "n"), [(1, 1), (1, 4), (2, 5), (3, 6), (6, 6)])
def test_a_random_rankings_expected_measures_match_every_ranking(relevant, n):
    ap, rr = every_ranking(relevant, n)
    assert expected_random_ap(relevant, n) == pytest.approx(ap, abs=1e-12)
    assert expected_random_rr(relevant, n) == pytest.approx(rr, abs=1e-12)


def test_chance_is_the_mean_over_queries():
    m = chance_measures([1, 2], 5)
    assert m["AP"] == pytest.approx((expected_random_ap(1, 5) + expected_random_ap(2, 5)) / 2)
    assert expected_random_ap(1, 1473) == pytest.approx(sum(1 / k for k in range(1, 1474)) / 1473)


def measures(loglinear, model2=0.5, model1=0.5, chance=0.05):
    return {"loglinear": {"AP": loglinear, "RR": loglinear},
            "model2-jm": {"AP": model2, "RR": model2}, "model1-d": {"AP": model1, "RR": model1},
            "chance": {"AP": chance, "RR": chance}}


def test_the_warning_says_near_chance_or_far_below_the_baselines():
    assert held_out_warning(measures(0.55)) == ""
    assert held_out_warning(measures(0.30, 0.5, 0.55)) == ""  # below, not far below
    near = held_out_warning(measures(0.064, chance=0.04))
    assert "0.064 is near chance (0.040" in near
    assert "0.030 is below chance (0.040" in held_out_warning(measures(0.03, chance=0.04))
    far = held_out_warning(measures(0.2, 0.45, 0.6))
    assert "0.200 is far below Model 1 (d)'s 0.600" in far
    # chance is high among a few people: twice it is out of reach, 0.4 of the way up is not
    assert held_out_warning(measures(0.708, 0.5, 0.55, chance=0.408)) == ""
    assert "near chance" in held_out_warning(measures(0.6, 0.5, 0.55, chance=0.408))
    assert held_out_warning(None) == "" and held_out_warning({}) == ""
    old = measures(0.064)
    del old["chance"]  # a model calibrated before chance was recorded: the baselines still tell
    assert "far below" in held_out_warning(old)


def test_a_run_records_chance_and_says_what_it_does_after_its_last_step(tmp_path):
    split = hold_out(load_training_fixture(), HeldOutSettings(fraction=0.2, minimum=1, seed=2))
    events = []
    settings = TrainSettings(dim=16, batch_size=16, epochs=2, seed=3, checkpoint_every=0)
    model = train_and_calibrate(split, settings, out_dir=tmp_path / "m", progress=events.append)
    n_people = split.training.n_people
    relevant = [len(people) for people in split.qrels().values()]
    assert model.calibration["measures"]["chance"] == pytest.approx(
        chance_measures(relevant, n_people))
    stages = [e for e in events if isinstance(e, TrainingStage)]
    n = len(split.documents)
    texts = [s.text for s in stages]
    assert f"Measuring the held-out MAP on {n:,} documents after epoch 2" in texts
    calibrating = [s for s in stages
                   if s.text.startswith(f"Calibrating auto and P(expert) on {n:,} held-out documents: ")]
    done, total = calibrating[-1].done, calibrating[-1].total
    assert done == total and total % n == 0  # every document, by each method in turn
    assert texts[-1] == f"Saving the model to {tmp_path / 'm'}"
    last_step = max(i for i, e in enumerate(events) if not isinstance(e, TrainingStage))
    assert events.index(calibrating[0]) > last_step  # after the last step, not before
