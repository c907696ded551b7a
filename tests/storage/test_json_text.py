"""A save's JSON texts are written by encoders made once (``storage.save_format``): the text is
the same, character for character, as ``json.dumps`` with the same settings writes, so saves and
their hash chains are unchanged; NaN, Infinity and values JSON cannot hold are refused as before."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storage.journal import _dumps
from storage.save_format import dumps_compact, dumps_for_hash

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()  # any text: accents, quotes, control characters, lone surrogates
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_the_texts_are_those_json_dumps_writes(value):
    assert dumps_compact(value) == json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    assert dumps_for_hash(value) == json.dumps(value, ensure_ascii=False)
    assert _dumps(value) == dumps_compact(value)


def test_a_journal_row_hashes_as_before():
    row = [
        7,
        2,
        "union",
        "ranged",
        "fire",
        '{"a":1.5}',
        "[]",
        '[{"text":"Volley — 3 hits"}]',
        "{}",
        "S",
        "t",
        0,
        4,
    ]
    assert dumps_for_hash(row) == json.dumps(row, ensure_ascii=False)
    assert ", " in dumps_for_hash(row) and "—" in dumps_for_hash(row)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, [1.0, {"x": math.nan}]])
def test_a_save_refuses_nan_and_infinity(bad):
    with pytest.raises(ValueError):
        dumps_compact(bad)
    with pytest.raises(ValueError):
        json.dumps(bad, allow_nan=False)
    assert dumps_for_hash(bad) == json.dumps(bad, ensure_ascii=False)  # the hash's text, as before


@pytest.mark.parametrize("bad", [object(), {1.5j: 1}, [b"bytes"], {(1, 2): "tuple key"}])
def test_what_json_cannot_hold_is_refused(bad):
    with pytest.raises(TypeError):
        dumps_compact(bad)
    with pytest.raises(TypeError):
        dumps_for_hash(bad)
