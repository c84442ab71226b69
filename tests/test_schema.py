"""The limits every JSON document is read with (issue 32): nesting and integers' digits.
`check_depth`'s byte-level count is tested against the depth of the parsed value."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expert_gui.core import schema
from expert_gui.core.schema import MAX_DEPTH, SchemaError, check_depth, decode, parse

# Strings full of what the fast count must pass over: brackets, quotes and backslashes.
_TRICKY = st.text(alphabet='[]{}"\\ab\n', max_size=8)
VALUES = st.recursive(st.none() | st.integers() | _TRICKY,
                      lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(_TRICKY, inner, max_size=3), max_leaves=40)


def depth(value) -> int:
    """The straightforward depth: containers counted along the deepest path."""
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    return 0


@settings(max_examples=300)
@given(value=VALUES, limit=st.integers(0, 6))
def test_the_fast_count_agrees_with_the_parsed_value(value, limit):
    text = json.dumps(value, ensure_ascii=False)
    if depth(value) > limit:
        with pytest.raises(SchemaError, match=f"nested more than {limit} deep"):
            check_depth(text, limit)
    else:
        check_depth(text, limit)


def test_a_deep_document_is_refused_before_it_is_parsed(monkeypatch):
    # issue 32 item 5: a document nested 100,000 deep ended in a RecursionError
    def never(*args):
        raise AssertionError("parsed")

    monkeypatch.setattr(schema, "_DECODER", type("D", (), {"decode": never})())
    with pytest.raises(SchemaError, match=f"nested more than {MAX_DEPTH} deep"):
        parse("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SchemaError, match="nested more than"):
        parse("[" * 100_000)  # cut short: unclosed brackets count too


def test_integers_longer_than_any_count_are_refused():
    # issue 32 item 7: Python refuses more than 4,300 digits with a ValueError no reader caught
    assert parse('{"n": -18446744073709551615}') == {"n": -18446744073709551615}
    with pytest.raises(SchemaError, match="an integer of 21 digits"):
        parse('{"n": ' + "1" * 21 + "}")
    with pytest.raises(SchemaError, match="an integer of 5,000 digits"):
        parse('{"n": ' + "9" * 5000 + "}")


def test_decode_takes_one_value_at_a_time_with_the_same_limits():
    text = '[{"a": 1}, ' + "[" * 70 + "]" * 70 + ', {"b": [2]}]'
    first, end = decode(text, 1)
    assert first == {"a": 1} and text[end] == ","
    with pytest.raises(SchemaError, match="nested more than 64 deep"):
        decode(text, end + 2)
    with pytest.raises(SchemaError, match="nested more than 64 deep"):
        decode("[" * 100_000 + "]" * 100_000)  # past Python's recursion limit
    assert decode(text, text.rindex("{"))[0] == {"b": [2]}
