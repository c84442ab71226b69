"""Every training setting has a range, with its reason, and TrainSettings refuses whatever is
outside it, so the CLI (and a train_settings.json) cannot train with an eps of 0 either."""

import dataclasses
import math

import numpy as np
import pytest

from expert_gui.core.train.settings import RANGES, Range, TrainSettings, field_problem


def numeric_fields() -> set[str]:
    return {f.name for f in dataclasses.fields(TrainSettings)
            if isinstance(f.default, int | float) and not isinstance(f.default, bool)}


def test_every_numeric_setting_has_a_range_and_a_reason():
    assert set(RANGES) == numeric_fields()
    assert all(r.why for r in RANGES.values())
    defaults = TrainSettings()
    assert all(getattr(defaults, name) in r for name, r in RANGES.items())


def outside(r: Range) -> list[float]:
    """Values just outside a range: an open bound itself, a closed bound's neighbour."""
    values = []
    if r.low is not None:
        values.append(r.low if r.low_open else r.low - 1)
    if r.high is not None:
        values.append(r.high if r.high_open else r.high + 1)
    return values


@pytest.mark.parametrize("name", sorted(RANGES))
def test_a_value_outside_its_range_is_refused_with_the_reason(name):
    r = RANGES[name]
    whole = isinstance(getattr(TrainSettings(), name), int)
    for value in outside(r):
        value = int(value) if whole else float(value)
        with pytest.raises(ValueError) as caught:
            TrainSettings(**{name: value})
        message = str(caught.value)
        assert message.startswith(name.replace("_", " ")) and r.text() in message
        below = r.low is not None and value <= r.low
        assert (r.why_low if below and r.why_low else r.why) in message  # the side's reason


def test_eps_of_zero_is_refused_as_the_form_once_let_it_through():
    with pytest.raises(ValueError, match=r"eps must be in \(0, 1\), not 0: .*never moves"):
        TrainSettings(eps=0.0)
    assert TrainSettings(eps=1e-8).eps == 1e-8


def test_fractions_are_fractions():
    for value in (-0.1, 1.0, 2.0):
        with pytest.raises(ValueError, match="validation fraction"):
            TrainSettings(validation_fraction=value)
    for value in (0.0, 1.0):
        with pytest.raises(ValueError, match="rho"):
            TrainSettings(rho=value)


def test_types_and_non_finite_numbers_are_refused():
    assert "whole number" in field_problem("window", "8")
    assert "whole number" in field_problem("dim", 3.5)
    assert "true or false" in field_problem("overlapping", 1)
    assert "finite" in field_problem("l2", math.inf)
    assert field_problem("eps", math.nan)
    assert field_problem("window", np.int64(4)) == ""  # numpy integers are whole numbers
    assert field_problem("l2", 1) == ""  # an integer is a number


def test_a_json_of_settings_is_checked_as_it_is_read():
    with pytest.raises(ValueError, match="batch size"):
        TrainSettings.from_dict({"batch_size": 0, "unknown": 1})


def test_range_text():
    assert Range(0, 1, True, True).text() == "in (0, 1)"
    assert Range(0, 1, high_open=True).text() == "in [0, 1)"
    assert Range(1).text() == "at least 1"
    assert Range(0, low_open=True).text() == "above 0"
    assert 0.5 in Range(0, 1, True, True) and 0 not in Range(0, 1, True, True)


@pytest.mark.parametrize("name, value", [("dim", 1_000_000_000), ("window", 100_000_000),
                                         ("batch_size", 1 << 40), ("epochs", 10**12),
                                         ("seed", 2**40), ("threads", 10**6)])
def test_settings_past_what_a_machine_can_hold_are_refused_before_anything_is_allocated(
        name, value):
    # issue 32 item 5: `train --dim 1000000000` and `--window 100000000` ended in tracebacks of
    # failed allocations
    with pytest.raises(ValueError, match=f"{name.replace('_', ' ')} must be in "):
        TrainSettings(**{name: value})
