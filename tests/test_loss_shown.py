"""The one loss every place shows (train.net.weighted_mean_loss), against a hand computation in
numpy: sum_i w_i H(p_i, q_i) / sum_i w_i in nats, w_i = |d_max| / |d| of instance i's document,
without the L2 term, for training and validation alike. Eq. 3's own value had the Lens run at
213.86 / 8.19 in its manifest and 4.608 / 0.176 in the app."""

import math

import numpy as np
import pytest
from fixtures.training import load_training_fixture

from expert_gui.core.store.manifest import LOSS
from expert_gui.core.train.instances import make_instances
from expert_gui.core.train.net import initial_parameters
from expert_gui.core.train.settings import TrainSettings
from expert_gui.core.train.trainer import TrainProgress, split_validation, train

WINDOW = 3
# Steps far too small to move the parameters, so that the epoch's training loss is the loss of
# the initial parameters, which numpy can compute.
STILL = TrainSettings(window=WINDOW, dim=4, batch_size=8, epochs=1, validation_fraction=0.25,
                      seed=5, device="cpu", optimizer="adam", learning_rate=1e-12,
                      checkpoint_every=0)


def hand_loss(collection, idx, wp, wc, b) -> float:
    """The weighted mean cross-entropy of instances `idx`, by the equations, in numpy."""
    inst = make_instances(collection, WINDOW)
    lengths = np.asarray(collection.doc_lengths, dtype=np.float64)
    total = weights = 0.0
    for i in idx:
        scores = wc @ wp[inst.windows[i]].sum(axis=0) + WINDOW * b  # Eq. 2, |C| scores
        log_q = scores - np.log(np.exp(scores - scores.max()).sum()) - scores.max()
        doc = inst.docs[i]
        people = collection.assoc_people[collection.assoc_indptr[doc]:
                                         collection.assoc_indptr[doc + 1]]
        h = -np.mean(log_q[people])  # the target is uniform over the document's people
        w = lengths.max() / lengths[doc]
        total, weights = total + w * h, weights + w
    return total / weights


@pytest.fixture(scope="module")
def run():
    collection = load_training_fixture()
    events = []
    model = train(collection, STILL, progress=events.append)
    return collection, model, events


def test_training_and_validation_losses_are_the_hand_computed_weighted_mean(run):
    collection, model, events = run
    wp, wc, b = (p.numpy() for p in initial_parameters(len(collection.vocab),
                                                        collection.n_people, STILL))
    train_idx, val_idx = split_validation(len(make_instances(collection, WINDOW)),
                                          STILL.validation_fraction, STILL.seed)
    entry = model.history[0]
    assert entry["train_loss"] == pytest.approx(hand_loss(collection, train_idx, wp, wc, b),
                                                rel=1e-6)
    assert entry["val_loss"] == pytest.approx(hand_loss(collection, val_idx, wp, wc, b),
                                              rel=1e-6)
    # both on the scale of log |C|: a near-uniform start scores about it
    assert abs(entry["val_loss"] - math.log(collection.n_people)) < 0.5
    assert model.settings["loss"] == LOSS


def test_every_step_shows_the_same_loss_over_its_own_instances(run):
    collection, _, events = run
    wp, wc, b = (p.numpy() for p in initial_parameters(len(collection.vocab),
                                                        collection.n_people, STILL))
    train_idx, _ = split_validation(len(make_instances(collection, WINDOW)),
                                    STILL.validation_fraction, STILL.seed)
    from expert_gui.core.train.trainer import epoch_order

    first = epoch_order(train_idx, STILL.seed, 0)[:STILL.batch_size]
    step = next(e for e in events if isinstance(e, TrainProgress))
    assert step.step == 1
    assert step.train_loss == pytest.approx(hand_loss(collection, first, wp, wc, b), rel=1e-6)
