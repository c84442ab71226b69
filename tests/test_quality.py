"""A model that learned little is told apart: a random ranking's expected AP and RR against
an enumeration of every ranking, the calibration's "chance" row, the warning's two rules, and
what a run says between its last step and its end."""

import itertools
import types

import numpy as np
import pytest
from fixtures.one_paper_authors import collection as one_paper_authors
from fixtures.training import load_training_fixture

from expert_gui.core.evaluation.calibration import TrainingStage, train_and_calibrate
from expert_gui.core.evaluation.heldout import HeldOutSettings, hold_out
from expert_gui.core.evaluation.quality import (
    chance_measures,
    expected_random_ap,
    expected_random_rr,
    held_out_note,
    held_out_shortfall,
    held_out_warning,
    training_advice,
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


def measures(loglinear, model2=0.5, model1=0.5, chance=0.05, auto=None):
    out = {"loglinear": {"AP": loglinear, "RR": loglinear},
           "model2-jm": {"AP": model2, "RR": model2}, "model1-d": {"AP": model1, "RR": model1},
           "chance": {"AP": chance, "RR": chance}}
    if auto is not None:
        out["auto"] = {"AP": auto, "RR": auto}
    return out


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


def test_no_warning_cries_wolf_where_auto_holds_up():
    # WOS_653.bib at the paper's settings: the log-linear model 0.036, auto 0.488, Model 1 (d)
    # 0.393; auto answers first, so the answers hold up: a note, not a warning
    wos = measures(0.036, 0.349, 0.393, chance=0.002, auto=0.488)
    assert held_out_warning(wos) == ""
    note = held_out_note(wos, documents=50, advice="train it again with smaller batches")
    assert note == ("auto holds up (held-out MAP 0.488, Model 1 (d) 0.393), but the log-linear "
                    "model alone learned little (held-out MAP 0.036 is far below Model 1 (d)'s "
                    "0.393), and its nearest terms, profiles and P(c|q) with it; train it again "
                    "with smaller batches")
    # within 0.01 of the best baseline still holds up; further below does not
    assert held_out_warning(measures(0.036, 0.349, 0.393, chance=0.002, auto=0.384)) == ""
    weak = held_out_warning(measures(0.036, 0.349, 0.393, chance=0.002, auto=0.38),
                            advice="what to change")
    assert weak == ("held-out MAP 0.036 is far below Model 1 (d)'s 0.393, and auto's 0.380 is "
                    "below Model 1 (d)'s too: the model learned little; Model 1 (d) answers "
                    "better meanwhile (choose it as the method); what to change")
    assert held_out_note(measures(0.036, 0.349, 0.393, chance=0.002, auto=0.38)) == ""
    assert held_out_note(measures(0.55, auto=0.6)) == ""  # a model that learned: nothing to say
    # without advice, which settings to look at
    assert "smaller batches and more epochs" in held_out_warning(measures(0.03, chance=0.04))


def test_a_few_held_out_documents_tell_nothing():
    # bibtex-scopus: 2 held-out documents, the log-linear model 0.021 against chance 0.024
    two = measures(0.021, 0.903, 0.903, chance=0.024, auto=0.5)
    assert held_out_warning(two, documents=2) == "" and held_out_note(two, documents=2) == ""
    assert "below chance" in held_out_warning(two, documents=10)


def test_a_collection_too_small_for_held_out_documents_says_so():
    pubmed = one_paper_authors(200)  # 200 papers, 600 people, one paper each
    assert len(hold_out(pubmed).documents) == 0
    text = held_out_shortfall(pubmed)
    assert text.startswith("no document can be held out to measure the model: a held-out "
                           "document's people must each keep another document, and 600 of the "
                           "600 people have only one (0 have several); nothing measures the "
                           "model, and auto is the log-linear model and Model 2 (jm) with "
                           "equal weights, not calibrated.")
    assert text.endswith("add more of each person's documents (a larger export)")
    few = one_paper_authors(200, shared=6)  # six people with two documents: one held out each
    assert len(hold_out(few).documents) == 6
    assert held_out_shortfall(few).startswith("only 6 documents can be held out")
    assert "too few to calibrate auto (at least 10)" in held_out_shortfall(few)
    assert held_out_shortfall(one_paper_authors(200, shared=60)) == ""  # 40 can be held out
    assert held_out_shortfall(pubmed, settings=HeldOutSettings(fraction=0)) == ""  # none asked


def trained(settings: dict, steps: int, held_out=()):
    """A model as `training_advice` reads it: its settings, the steps its run took, and the
    documents its calibration held out."""
    calibration = {"held_out": {"documents": list(held_out)}} if held_out else None
    return types.SimpleNamespace(settings={**settings, "steps": steps}, calibration=calibration)


def test_the_advice_names_the_settings_to_change_or_what_to_rank_with():
    """The steps it states are the ones the runs take: the model's own, and the suggested
    run's on the windows left after the held-out documents and the validation share (it had
    said 65 steps for runs of 60, from every window)."""
    c = one_paper_authors(200, shared=60)
    paper = TrainSettings().to_dict()
    # 200 windows, 2 kept for validation: 198, 7 batches of 32 an epoch, 9 epochs
    assert training_advice(trained(paper, 5), c) == (
        "it was trained with batch size 1,024, epochs 5 (5 steps); train it again with the "
        "settings suggested for this collection: batch size 32, epochs 9 (63 steps)")
    # 40 documents held out: 160 windows, 2 for validation, 158: 5 batches an epoch
    held = c.doc_ids[:40]
    assert training_advice(trained(paper, 5, held), c).endswith("epochs 9 (45 steps)")
    odd = {**paper, "eps": 1e-14, "batch_size": 32, "epochs": 9}
    assert training_advice(trained(odd, 63), c) == (
        "it was trained with eps 1e-14; train it again with the settings suggested for this "
        "collection: eps 1e-06")
    suggested = {**paper, "batch_size": 32, "epochs": 9}
    assert training_advice(trained(suggested, 54), c) == (
        "its people have too little text each (median 5 words a document, 80% with one "
        "document) for the log-linear model to learn them in the 54 steps it took, and more "
        "epochs would only memorise who wrote what; rank with auto or a baseline (the method "
        "list), which match exact words")
