"""The trainer: the loss against an independent computation, gradients, and full runs."""

import math

import numpy as np
import pytest
import torch
from fixtures.training import DISTINCTIVE, load_training_fixture, train_killed_at

from expert_gui.core.errors import TrainingError
from expert_gui.core.store.storage import load_checkpoint
from expert_gui.core.train.instances import make_instances
from expert_gui.core.train.net import (
    CandidateLogSumExp,
    LogLinearNet,
    WindowSum,
    initial_parameters,
    window_cross_entropy,
)
from expert_gui.core.train.settings import TrainSettings
from expert_gui.core.train.trainer import epoch_order, split_validation, train

# On the CPU, so that runs are compared bit for bit (a GPU's atomic adds sum in no fixed order:
# test_training_step.py compares GPU runs to a tolerance).
FAST = TrainSettings(dim=16, batch_size=16, epochs=3, validation_fraction=0.1, seed=3,
                     device="cpu")


@pytest.fixture(scope="module")
def collection():
    return load_training_fixture()


def naive_loss(wp, wc, b, windows, targets, weights, l2, m):
    """Eq. 3 written out: per-word log-softmax (Eq. 1), summed over the window and renormalised
    (Eq. 2), soft cross-entropy with dense targets, weighted mean, plus the L2 penalty."""
    per_word = torch.log_softmax(wp[windows] @ wc.T + b, dim=-1)  # m x n x |C|
    window = torch.log_softmax(per_word.sum(dim=1), dim=-1)
    ce = -(targets * window).sum(dim=1)
    return (weights * ce).sum() / m + l2 / (2 * m) * (wp.pow(2).sum() + wc.pow(2).sum())


def batch_of(collection, idx, window=3):
    inst = make_instances(collection, window=window)
    rows, people, probs = inst.targets(idx)
    return inst, dict(
        windows=torch.from_numpy(inst.windows[idx]).long(), rows=torch.from_numpy(rows),
        people=torch.from_numpy(people), probs=torch.from_numpy(probs),
        weights=torch.from_numpy(inst.weights[idx]))


def random_params(collection, dim=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    wp = torch.randn(len(collection.vocab), dim, generator=g, dtype=torch.float64)
    wc = torch.randn(collection.n_people, dim, generator=g, dtype=torch.float64)
    b = torch.randn(collection.n_people, generator=g, dtype=torch.float64)
    return wp, wc, b


@pytest.mark.parametrize("chunk", [1, 3, 100])
def test_loss_and_gradients_match_the_equations_written_out(collection, chunk):
    idx = np.array([0, 1, 5, 9, 40, len(make_instances(collection, 3)) - 1])
    inst, batch = batch_of(collection, idx)
    targets = torch.from_numpy(inst.target_matrix(idx, collection.n_people))
    params = [p.requires_grad_() for p in random_params(collection)]
    wp, wc, b = params
    ours = window_cross_entropy(wp, wc, b, **batch, batch_size=len(idx), chunk=chunk)
    ours = ours + 0.01 / (2 * len(idx)) * (wp.pow(2).sum() + wc.pow(2).sum())
    grads = torch.autograd.grad(ours, params)
    ref = naive_loss(wp, wc, b, batch["windows"], targets, batch["weights"], 0.01, len(idx))
    ref_grads = torch.autograd.grad(ref, params)
    torch.testing.assert_close(ours, ref, rtol=1e-12, atol=1e-12)
    for g, r in zip(grads, ref_grads, strict=True):
        torch.testing.assert_close(g, r, rtol=1e-10, atol=1e-12)
    # The trainer's path: autograd for the cross-entropy, the penalty's gradient added by hand.
    net = LogLinearNet(*(p.detach().clone() for p in params), chunk=chunk)
    ce = net(**batch, batch_size=len(idx))
    ce.backward()
    net.add_penalty(0.01, len(idx))
    penalty = 0.01 / (2 * len(idx)) * float((wp.pow(2).sum() + wc.pow(2).sum()).detach())
    assert float(ce.detach()) + penalty == pytest.approx(float(ref.detach()), rel=1e-12)
    for g, r in zip([p.grad for p in net.parameters()], ref_grads, strict=True):
        torch.testing.assert_close(g, r, rtol=1e-10, atol=1e-12)


def test_chunked_logsumexp_passes_gradcheck():
    g = torch.Generator().manual_seed(1)
    h = torch.randn(4, 3, dtype=torch.float64, generator=g, requires_grad=True)
    wc = torch.randn(7, 3, dtype=torch.float64, generator=g, requires_grad=True)
    b = torch.randn(7, dtype=torch.float64, generator=g, requires_grad=True)
    k = torch.tensor([1.0, 2.0, 3.0, 0.0], dtype=torch.float64)
    for chunk in (2, 7):
        assert torch.autograd.gradcheck(
            lambda h, wc, b, c=chunk: CandidateLogSumExp.apply(h, wc, b, k, c, None), (h, wc, b))
    windows = torch.tensor([[1, 2, 0], [3, 3, 3], [0, 0, 0]])
    wp = torch.randn(4, 3, dtype=torch.float64, generator=g, requires_grad=True)
    assert torch.autograd.gradcheck(lambda wp: WindowSum.apply(wp, windows), (wp,))
    direct = torch.logsumexp(h @ wc.T + k[:, None] * b, dim=1)
    torch.testing.assert_close(CandidateLogSumExp.apply(h, wc, b, k, 3, None), direct)


def test_full_loss_passes_gradcheck(collection):
    idx = np.arange(0, 30, 3)
    _, batch = batch_of(collection, idx)
    params = [p.requires_grad_() for p in random_params(collection, dim=3)]
    assert torch.autograd.gradcheck(
        lambda wp, wc, b: window_cross_entropy(wp, wc, b, **batch, batch_size=10, chunk=2),
        params)


def test_initialisation_is_glorot_uniform_with_zero_bias():
    wp, wc, b = initial_parameters(5000, 300, TrainSettings(dim=40, seed=1))
    for m, bound in ((wp, math.sqrt(6 / 5040)), (wc, math.sqrt(6 / 340))):
        assert m.abs().max() <= bound
        assert m.abs().max() > 0.99 * bound
        assert abs(m.pow(2).mean().item() - bound**2 / 3) < 0.02 * bound**2  # var of U(-a, a)
    assert torch.count_nonzero(wp[0]) == 40  # the padding token is a word like any other
    assert torch.count_nonzero(b) == 0


def test_validation_split_and_shuffles_keep_every_instance():
    train_idx, val_idx = split_validation(1000, 0.01, seed=0)
    assert len(val_idx) == 10
    assert sorted(np.concatenate([train_idx, val_idx]).tolist()) == list(range(1000))
    orders = [epoch_order(train_idx, 0, e) for e in range(3)]
    assert all(sorted(o.tolist()) == train_idx.tolist() for o in orders)
    assert orders[0].tolist() != orders[1].tolist()


def test_trained_model_ranks_each_person_first_for_their_words(collection, tmp_path):
    model = train(collection, TrainSettings(dim=16, batch_size=16, epochs=15, seed=0),
                  out_dir=tmp_path)
    for person, words in DISTINCTIVE.items():
        for word in words.split():
            ids, _, _ = model.encode(word)
            best = int(np.argmax(model.query_log_probs(ids)))
            assert model.person_ids[best] == person, word
    history = model.history
    assert len(history) == 15
    assert history[-1]["val_loss"] < history[0]["val_loss"]
    assert (tmp_path / "model.safetensors").exists()


def test_same_seed_same_model_and_other_seed_another(collection):
    a = train(collection, FAST)
    b = train(collection, FAST)
    c = train(collection, TrainSettings(**{**FAST.to_dict(), "seed": 4}))
    np.testing.assert_array_equal(a.word_embeddings, b.word_embeddings)
    np.testing.assert_array_equal(a.candidate_weights, b.candidate_weights)
    assert not np.array_equal(a.candidate_weights, c.candidate_weights)


def test_progress_events_count_steps(collection):
    events = []
    train(collection, FAST, progress=events.append)
    steps = [e.step for e in events]
    total = events[0].total_steps
    assert steps[-1] == total and sorted(set(steps)) == list(range(1, total + 1))
    assert all(e.train_loss > 0 and e.instances_per_s >= 0 for e in events)
    assert events[-1].val_loss is not None and events[-1].epoch == 3


def test_killed_run_resumes_to_the_same_model(collection, tmp_path):
    settings = TrainSettings(**{**FAST.to_dict(), "checkpoint_every": 5, "optimizer": "adam",
                                "early_stopping": True, "patience": 5})
    whole = train(collection, settings)
    train_killed_at(collection, settings, tmp_path, 13)
    _, meta = load_checkpoint(tmp_path / "checkpoint")
    assert meta["run"]["step"] == 10
    resumed = train(collection, settings, out_dir=tmp_path, resume=True)
    np.testing.assert_array_equal(resumed.word_embeddings, whole.word_embeddings)
    np.testing.assert_array_equal(resumed.candidate_weights, whole.candidate_weights)
    np.testing.assert_array_equal(resumed.candidate_bias, whole.candidate_bias)
    assert resumed.history == whole.history


def test_a_run_shorter_than_checkpoint_every_still_checkpoints_each_epoch(collection, tmp_path):
    """DPDK's 950 steps never reach the default 1000: a kill in epoch 4 must not lose three."""
    settings = TrainSettings(**{**FAST.to_dict(), "checkpoint_every": 10_000})
    whole = train(collection, settings)
    seen = []

    class Killed(Exception):
        pass

    def die_in_epoch_2(event):
        seen.append(event)
        if event.epoch == 2 and event.step > event.total_steps // 3 + 1:
            raise Killed

    with pytest.raises(Killed):
        train(collection, settings, out_dir=tmp_path, progress=die_in_epoch_2)
    per_epoch = seen[0].total_steps // settings.epochs
    _, meta = load_checkpoint(tmp_path / "checkpoint")
    assert (meta["run"]["epoch"], meta["run"]["step"]) == (1, per_epoch)
    resumed = train(collection, settings, out_dir=tmp_path, resume=True)
    np.testing.assert_array_equal(resumed.word_embeddings, whole.word_embeddings)
    np.testing.assert_array_equal(resumed.candidate_weights, whole.candidate_weights)
    assert resumed.history == whole.history


@pytest.mark.parametrize("ratio, epoch_ends", [(0, [1, 2, 3, 4]), (1e9, [1])])
def test_an_epochs_end_checkpoints_unless_it_took_a_fraction_of_a_checkpoints_time(
        collection, tmp_path, monkeypatch, ratio, epoch_ends):
    """The first epoch's end always checkpoints (which times a checkpoint); a later one only
    when the training since the last checkpoint took EPOCH_CHECKPOINT_RATIO times that
    checkpoint's time (on a GPU an epoch of DPDK takes half a checkpoint's). The end of the run
    always saves, and the model is the same either way."""
    from expert_gui.core.train import trainer

    saved = []
    write = trainer._save_checkpoint
    monkeypatch.setattr(trainer, "_save_checkpoint",
                        lambda folder, net, opt, run, *a: saved.append(run.epoch)
                        or write(folder, net, opt, run, *a))
    monkeypatch.setattr(trainer, "EPOCH_CHECKPOINT_RATIO", ratio)
    settings = TrainSettings(**{**FAST.to_dict(), "epochs": 5, "checkpoint_every": 10_000})
    model = train(collection, settings, out_dir=tmp_path)
    assert saved == [*epoch_ends, 5]
    reference = train(collection, settings)
    np.testing.assert_array_equal(model.word_embeddings, reference.word_embeddings)



def test_stop_flag_ends_the_run_with_a_checkpoint_and_pause_waits(collection, tmp_path):
    calls = {"pause": 0}

    def pause():
        calls["pause"] += 1
        return calls["pause"] in (3, 4)  # paused twice at the third step

    stop_after = iter(range(8))
    model = train(collection, FAST, out_dir=tmp_path, should_pause=pause,
                  should_stop=lambda: next(stop_after, 99) >= 7)
    _, meta = load_checkpoint(tmp_path / "checkpoint")
    assert 0 < meta["run"]["step"] < 15
    assert calls["pause"] >= 4
    assert model.candidate_weights.shape == (4, 16)


def test_non_finite_loss_stops_and_keeps_the_last_good_checkpoint(collection, tmp_path):
    settings = TrainSettings(dim=16, batch_size=16, epochs=3, optimizer="adam",
                             learning_rate=1e30, checkpoint_every=1)
    with pytest.raises(TrainingError, match="loss became"):
        train(collection, settings, out_dir=tmp_path)
    tensors, _ = load_checkpoint(tmp_path / "checkpoint")
    assert all(torch.isfinite(v).all() for v in tensors.values())


def test_resume_refuses_other_settings(collection, tmp_path):
    train(collection, FAST, out_dir=tmp_path)
    with pytest.raises(TrainingError, match="window"):
        train(collection, TrainSettings(**{**FAST.to_dict(), "window": 4}), out_dir=tmp_path,
              resume=True)


def test_early_stopping_returns_the_best_epoch(collection):
    settings = TrainSettings(dim=16, batch_size=16, epochs=40, optimizer="adam",
                             learning_rate=0.1, validation_fraction=0.2, early_stopping=True,
                             patience=2, seed=1)
    model = train(collection, settings)
    vals = [h["val_loss"] for h in model.history]
    assert len(vals) < 40  # it stopped
    best = model.settings["best_epoch"]
    assert vals[best - 1] == min(vals)
    assert len(vals) == best + 2


def test_mixed_precision_reaches_the_fp32_validation_loss(collection):
    fp32 = train(collection, TrainSettings(**{**FAST.to_dict(), "epochs": 6}))
    fp16 = train(collection, TrainSettings(**{**FAST.to_dict(), "epochs": 6,
                                              "mixed_precision": True}))
    a, b = fp32.history[-1]["val_loss"], fp16.history[-1]["val_loss"]
    assert a != b  # the products did run in half precision
    assert abs(a - b) <= 0.01 * a


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        TrainSettings(optimizer="sgd")
    with pytest.raises(ValueError):
        TrainSettings(validation_fraction=0, early_stopping=True)
