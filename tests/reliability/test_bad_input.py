"""Bad input: generated scenario files, save files and dice entries each get a clear typed error.

Hypothesis feeds 1,000 generated cases to each loader. A scenario file may load (a harmless
change) or raise :class:`ScenarioError`; a save file may open or raise :class:`SaveFileError`;
the dice entry returns faces 1 to 6 or raises :class:`DiceError`. Nothing else may escape, and a
file that is refused is left byte for byte as it was.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from rules.actions import EndTurn, MoveUnit, NextPhase, Override
from rules.battle.battle import Battle
from rules.dice import TableDice, parse_dice
from rules.errors import DiceError
from storage import schema
from storage.errors import SaveFileError, ScenarioError
from storage.game import Game
from storage.scenario import bundled_text, load_scenario

EXAMPLES = settings(
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

DEMO = bundled_text("demo")
DEMO_LINES = DEMO.splitlines()
# the lines of the demo scenario that set a value: "key = value  # comment"
SETTINGS = [i for i, line in enumerate(DEMO_LINES) if re.match(r"^\s*[A-Za-z_]+\s*=", line)]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("bad-input")


_names = itertools.count()


class Prepared(bytes):
    """The bytes of a prepared file, shown by their size in a failing example."""

    def __repr__(self) -> str:
        return f"<{len(self)} bytes>"


def _file(folder: Path, data: bytes, suffix: str) -> Path:
    p = folder / f"case-{next(_names)}{suffix}"
    p.write_bytes(data)
    return p


def _cleanup(p: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(p) + suffix).unlink(missing_ok=True)


# --------------------------------------------------------------------------------------------
# Scenario files
# --------------------------------------------------------------------------------------------

ids = st.sampled_from(["iron", "csa", "union", "va4", "wis2", "nobody", "", "Iron Brigade", "t1"])
toml_scalars = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.integers(-12, -1).map(str),  # negative counts
    st.floats(allow_nan=True, allow_infinity=True).map(
        lambda f: (
            "nan" if f != f else ("inf" if f == float("inf") else "-inf" if f == -float("inf") else repr(f))
        )
    ),
    st.booleans().map(lambda b: "true" if b else "false"),
    ids.map(lambda s: f'"{s}"'),
    st.text(max_size=12).map(lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'),
    st.just("[]"),
    st.just("[1, 2, 3]"),
    st.just("{ x = 1 }"),
    st.just("1979-05-27T07:32:00Z"),
)


@st.composite
def scenario_texts(draw) -> str:
    """The demo scenario with a few changes: values of the wrong type or range, deleted or
    repeated settings, unknown references, stray text, truncation or raw noise."""
    lines = list(DEMO_LINES)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["value", "delete", "repeat", "insert", "truncate", "noise", "section"]))
        i = draw(st.sampled_from(SETTINGS))
        if i >= len(lines) or not re.match(r"^\s*[A-Za-z_]+\s*=", lines[i]):
            continue
        key = lines[i].split("=", 1)[0]
        if kind == "value":
            lines[i] = f"{key}= {draw(toml_scalars)}"
        elif kind == "delete":
            del lines[i]
        elif kind == "repeat":
            lines.insert(i, lines[i])
        elif kind == "insert":
            lines.insert(
                i, f"{draw(st.sampled_from(['surprise', 'stands', 'id', 'brigade']))} = {draw(toml_scalars)}"
            )
        elif kind == "truncate":
            lines = lines[:i] + [lines[i][: draw(st.integers(0, len(lines[i])))]]
        elif kind == "section":
            lines.insert(
                i, draw(st.sampled_from(["[[units]]", "[[brigades]]", "[battle]", "[[sides]]", "[mystery]"]))
            )
        else:
            lines.insert(i, draw(st.text(max_size=30)))
    return "\n".join(lines) + "\n"


def _load_scenario_case(folder: Path, data: bytes) -> Battle | None:
    p = _file(folder, data, ".toml")
    try:
        try:
            battle = load_scenario(p)
        except ScenarioError as exc:
            assert str(exc).strip() and exc.problem
            assert p.read_bytes() == data
            return None
        assert isinstance(battle, Battle)
        assert p.read_bytes() == data
        return battle
    finally:
        p.unlink()


@EXAMPLES
@given(text=scenario_texts())
def test_scenario_loader_gives_a_scenario_error_for_any_mangled_file(folder, text):
    _load_scenario_case(folder, text.encode("utf-8"))


@EXAMPLES
@given(
    data=st.one_of(
        st.binary(max_size=400), st.text(max_size=400).map(lambda s: s.encode("utf-8", "surrogatepass"))
    )
)
def test_scenario_loader_gives_a_scenario_error_for_arbitrary_bytes(folder, data):
    _load_scenario_case(folder, data)


UNIT_STANDS = [i for i in SETTINGS if re.match(r"^stands\s*=", DEMO_LINES[i])]
UNIT_BRIGADES = [i for i in SETTINGS if re.match(r"^brigade\s*=", DEMO_LINES[i])]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=st.sampled_from(UNIT_STANDS), stands=st.integers(-(10**9), -1))
def test_scenario_with_a_negative_stand_count_is_refused_at_its_unit(folder, line, stands):
    lines = list(DEMO_LINES)
    lines[line] = f"stands = {stands}"
    p = _file(folder, ("\n".join(lines) + "\n").encode(), ".toml")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(p)
    # the line of the count, or of the unit it belongs to (when stands_start follows from it)
    assert exc.value.line is not None and line - 12 < exc.value.line <= line + 1
    assert "stand" in str(exc.value)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=st.sampled_from(UNIT_BRIGADES), name=st.from_regex(r"[a-z]{1,10}", fullmatch=True))
def test_scenario_unit_in_an_unknown_brigade_is_refused_at_its_line(folder, line, name):
    assume(name not in {"iron", "cutler", "stonewall", "ransom", "wofford", "garnett", "tarheels"})
    assume(f'id = "{name}"' not in DEMO)
    lines = list(DEMO_LINES)
    lines[line] = f'brigade = "{name}"'
    p = _file(folder, ("\n".join(lines) + "\n").encode(), ".toml")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(p)
    assert exc.value.line == line + 1 and name in str(exc.value)


# --------------------------------------------------------------------------------------------
# Save files
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def good_save(tmp_path_factory) -> bytes:
    """The bytes of a closed save with events, a snapshot and an undone event to redo."""
    from tests.conftest import make_small_battle

    p = tmp_path_factory.mktemp("good") / "good.sqlite"
    with Game.create(p, make_small_battle(), seed=5) as g:
        g.do(MoveUnit("wis2", 20, 30))
        g.do(Override("unit", "va4", {"micro_hits": 1}, "ruled so"))
        g.do(EndTurn())
        g.do(EndTurn())  # a new game turn: a snapshot
        g.do(NextPhase())
        g.do(MoveUnit("va4", 22, 18))
        g.undo()
    assert not os.path.exists(str(p) + "-wal")
    return Prepared(p.read_bytes())


@pytest.fixture(scope="module")
def other_database(tmp_path_factory) -> bytes:
    p = tmp_path_factory.mktemp("other") / "club.sqlite"
    conn = sqlite3.connect(p)
    conn.execute("CREATE TABLE members (name TEXT, dues REAL)")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.executemany("INSERT INTO members VALUES (?, ?)", [("Sgt. Jones", 12.5), ("Cpl. Hay", 3)])
    conn.commit()
    conn.close()
    return Prepared(p.read_bytes())


TAMPER_COLUMNS = {
    "journal": [
        "seq",
        "turn",
        "side",
        "phase",
        "type",
        "action",
        "rolls",
        "steps",
        "changes",
        "summary",
        "dice_before",
        "dice_after",
    ],
    "redo": ["pos", "seq", "action", "changes", "dice_before"],
    "snapshots": ["seq", "turn", "battle", "dice_drawn"],
    "scenario": ["battle", "name"],
    "rule_tables": ["value"],
    "meta": ["value"],
}
json_like = st.one_of(
    st.none(),
    st.integers(-5, 10**6),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.sampled_from(
        [
            "{}",
            "[]",
            "null",
            '{"type": "move_unit"}',
            '{"units": {"wis2": [null, {}]}}',
            '[{"purpose": "x", "dice": [7]}]',
            '{"type": "nothing"}',
            "not json",
            '"text"',
            "-1",
        ]
    ),
    st.binary(max_size=8),
)


@st.composite
def tampered(draw):
    """SQL that spoils a save: a changed value, a deleted row, a dropped table or a newer version."""
    kind = draw(st.sampled_from(["update", "update", "update", "delete", "drop", "version"]))
    if kind == "version":
        v = draw(st.one_of(st.integers(schema.SCHEMA_VERSION + 1, 10**6).map(str), st.text(max_size=5)))
        return ("UPDATE meta SET value = ? WHERE key = 'schema_version'", (v,))
    table = draw(st.sampled_from(sorted(TAMPER_COLUMNS)))
    if kind == "drop":
        return (f"DROP TABLE {table}", ())
    if kind == "delete":
        return (f"DELETE FROM {table} WHERE rowid = (SELECT min(rowid) FROM {table})", ())
    col = draw(st.sampled_from(TAMPER_COLUMNS[table]))
    where = draw(
        st.sampled_from(["rowid = (SELECT max(rowid) FROM {t})", "rowid = (SELECT min(rowid) FROM {t})", "1"])
    )
    return (f"UPDATE {table} SET {col} = ? WHERE " + where.format(t=table), (draw(json_like),))


def _open_case(p: Path) -> None:
    before = p.read_bytes()
    try:
        game = Game.open(p)
    except SaveFileError as exc:
        assert exc.problem and str(p) in str(exc)
        assert p.read_bytes() == before
        # SQLite's read-only look may leave an empty write-ahead log beside it: nothing pending
        wal = Path(str(p) + "-wal")
        assert not wal.exists() or wal.stat().st_size == 0
        assert not os.path.exists(str(p) + "-journal")
        return
    try:
        assert isinstance(game.battle, Battle)
    finally:
        game.close()


@EXAMPLES
@given(keep=st.floats(0, 1, exclude_max=True), noise=st.binary(max_size=64))
def test_save_loader_refuses_truncated_files(folder, good_save, keep, noise):
    p = _file(folder, good_save[: int(len(good_save) * keep)] + noise, ".sqlite")
    try:
        _open_case(p)
    finally:
        _cleanup(p)


@EXAMPLES
@given(
    data=st.one_of(
        st.binary(max_size=2048),
        st.binary(min_size=84, max_size=2048).map(lambda b: b"SQLite format 3\x00" + b),
    )
)
def test_save_loader_refuses_random_bytes(folder, data):
    p = _file(folder, data, ".sqlite")
    try:
        with pytest.raises(SaveFileError):
            Game.open(p)
        assert p.read_bytes() == data
    finally:
        _cleanup(p)


@EXAMPLES
@given(flips=st.lists(st.tuples(st.integers(0, 10**9), st.integers(1, 255)), min_size=1, max_size=8))
def test_save_loader_refuses_or_reads_a_save_with_damaged_bytes(folder, good_save, flips):
    data = bytearray(good_save)
    for at, xor in flips:
        data[at % len(data)] ^= xor
    p = _file(folder, bytes(data), ".sqlite")
    try:
        _open_case(p)
    finally:
        _cleanup(p)


@EXAMPLES
@given(change=tampered())
def test_save_loader_refuses_tampered_rows_and_newer_versions(folder, good_save, change):
    p = _file(folder, good_save, ".sqlite")
    try:
        conn = sqlite3.connect(p)
        try:
            conn.execute(change[0], change[1])
            conn.commit()
        except sqlite3.IntegrityError:  # the schema's own constraints refuse this change
            conn.rollback()
        conn.close()
        _open_case(p)
    finally:
        _cleanup(p)


@EXAMPLES
@given(change=tampered(), extra=st.booleans())
def test_save_loader_refuses_another_sqlite_database(folder, other_database, change, extra):
    p = _file(folder, other_database, ".sqlite")
    try:
        if extra:  # the other database has a meta table that looks a little like a save's
            conn = sqlite3.connect(p)
            conn.execute("INSERT INTO meta VALUES ('app', 'brigadier')")
            conn.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(schema.SCHEMA_VERSION),))
            conn.commit()
            conn.close()
        before = p.read_bytes()
        with pytest.raises(SaveFileError):
            Game.open(p)
        assert p.read_bytes() == before
    finally:
        _cleanup(p)


def test_a_newer_schema_version_names_the_update(folder, good_save):
    p = _file(folder, good_save, ".sqlite")
    conn = sqlite3.connect(p)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(schema.SCHEMA_VERSION + 1),))
    conn.commit()
    conn.close()
    before = p.read_bytes()
    with pytest.raises(SaveFileError, match="newer Brigadier"):
        Game.open(p)
    assert p.read_bytes() == before
    shutil.copy(p, folder / "kept.sqlite")  # still a file a newer Brigadier can open
    _cleanup(p)


# --------------------------------------------------------------------------------------------
# Dice entry
# --------------------------------------------------------------------------------------------

dice_text = st.one_of(
    st.text(max_size=40),
    st.text(alphabet="0123456789 ,;[]()\t\n-+.", max_size=40),
    st.lists(st.integers(-3, 12), max_size=12).map(lambda xs: " ".join(map(str, xs))),
    st.from_regex(r"[1-6]{0,12}", fullmatch=True),
    st.integers(5000, 6000).map(lambda n: "3 " + "9" * n),
)
not_text = st.one_of(
    st.none(), st.integers(), st.floats(), st.binary(max_size=5), st.lists(st.integers(1, 6))
)


@EXAMPLES
@given(text=st.one_of(dice_text, not_text), expected=st.one_of(st.none(), st.integers(0, 12)))
@example(text="01\r1", expected=None)  # "01" is no die face, not the face 1
def test_parse_dice_returns_faces_or_a_dice_error(text, expected):
    try:
        faces = parse_dice(text, expected, "closing volley")
    except DiceError as exc:
        assert str(exc)
        return
    assert isinstance(text, str)
    assert all(isinstance(f, int) and 1 <= f <= 6 for f in faces)
    assert expected is None or expected == 0 or len(faces) == expected
    assert faces == tuple(int(c) for c in re.findall(r"[0-9]", text))


faces_typed = st.one_of(
    st.lists(
        st.one_of(st.integers(-2, 9), st.booleans(), st.floats(), st.text(max_size=2), st.none()), max_size=10
    ),
    st.lists(st.integers(1, 6), max_size=10),
    st.none(),
    st.integers(),
    st.text(max_size=5),
)
counts = st.lists(
    st.one_of(st.integers(-2, 8), st.floats(0, 3), st.none(), st.booleans(), st.text(max_size=1)), max_size=5
)


@EXAMPLES
@given(faces=faces_typed, asks=counts)
def test_table_dice_hand_out_the_typed_faces_in_order_or_a_dice_error(faces, asks):
    try:
        dice = TableDice(faces)
    except DiceError as exc:
        assert str(exc)
        return
    typed = list(faces)
    assert all(type(f) is int and 1 <= f <= 6 for f in typed)
    used = 0
    for n in asks:
        try:
            got = dice.roll(n, "discipline check")
        except DiceError as exc:
            assert str(exc)
            assert dice.remaining == tuple(typed[used:])  # a refused roll takes no dice
            continue
        assert got == tuple(typed[used : used + n])
        used += n
    assert dice.remaining == tuple(typed[used:])
