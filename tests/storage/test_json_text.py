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


def test_the_hashes_of_a_save_are_those_written_before():
    """The hash an entry chains and the hash a journal starts from are taken of the same text as
    saves written by earlier versions took them of (``brigadier verify`` of an older save)."""
    import hashlib

    from storage.save_format import EVENT_COLUMNS, chain_start, entry_hash

    values = [7, 2, "union", "ranged", "fire", '{"a":1.5}', "[]", '[{"text":"Volley — 3 hits"}]', "{}", "S"]
    values += ["2026-12-02T06:00:00+00:00", 0, 4]
    row = dict(zip(EVENT_COLUMNS, values, strict=True))
    h = hashlib.sha256(("0" * 64).encode("ascii"))
    h.update(json.dumps(values, ensure_ascii=False).encode("utf-8"))
    assert entry_hash("0" * 64, row) == h.hexdigest()
    assert h.hexdigest() == "3924b16e1ac857bf1b3f6282d297be4bbc57571792703c552425a82b82a894ad"

    tables = [("shooting", '{"x":1}'), ("melee", "{}")]
    battle = '{"name":"Oak Ridge — é"}'
    h = hashlib.sha256(b"brigadier journal\n")
    h.update(json.dumps(["1863", battle, sorted(tables)], ensure_ascii=False).encode("utf-8"))
    assert chain_start("1863", battle, tables) == h.hexdigest()
    assert h.hexdigest() == "89afb8b958dba211d7c48ed313b573a76f1bb958ac54b955d53a766734735ccc"
