"""Bounds on every number and every shape, at every door.

Each number Brigadier reads has a stated range (:mod:`rules.limits`), checked where it comes in:
a scenario file, a club's rule table, a save, an action typed as JSON, an umpire's override and
the command line's arguments. These tests give each door the values found to break it (a turn of
2^63, 2^70 stands, a 1e308" table, an id that is a list, NaN, numbers of 300 and 4,300 digits,
lists nested 1,000 deep, a battle of 100,000 units) and then 1,000 generated inputs: each is
refused with a typed error (or accepted, if harmless), never with a traceback, and a refused
input changes no file.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli import main as cli
from rules import limits
from rules.actions import ACTION_TYPES, Action, MoveUnit, NextPhase, resolve
from rules.dice import SeededDice
from rules.errors import RulesError, TableError
from rules.tables import load_tables
from storage.errors import SaveFileError, ScenarioError
from storage.game import Game
from storage.scenario import bundled_text, load_demo, load_scenario
from storage.scenario_parsing import parse_scenario

DOOR = settings(
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
DEMO = bundled_text("demo")
_names = itertools.count()


def _cli(*argv: str) -> tuple[int, str, str]:
    """Run the command line in this process; a traceback fails the test (it is raised here)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:  # argparse: a usage error, exit status 2, no traceback
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def _demo_with(**battle: str) -> str:
    """The demo scenario with [battle] settings replaced (values as TOML text)."""
    text = DEMO
    for key, value in battle.items():
        text, n = re.subn(rf"(?m)^{key} = .*$", f"{key} = {value}", text, count=1)
        assert n == 1, key
    return text


def _deep(n: int) -> str:
    return "[" * n + "]" * n


@pytest.fixture
def save(tmp_path) -> Path:
    p = tmp_path / "g.sqlite"
    with Game.create(p, load_demo(), seed=7) as g:
        g.do(NextPhase())
    return p


# --------------------------------------------------------------------------------------------
# The values found to break each door
# --------------------------------------------------------------------------------------------


def test_a_scenario_turn_of_2_to_the_63_is_refused_at_its_line():
    with pytest.raises(ScenarioError, match=r"turn must be 1 to 1,000") as exc:
        parse_scenario(_demo_with(turn=str(2**63)), "big.toml")
    assert exc.value.line == 18


@pytest.mark.parametrize("key", ["table_width_in", "table_height_in"])
@pytest.mark.parametrize("value", ["1e308", "2001", "0.5"])
def test_a_table_out_of_range_is_refused(key, value):
    with pytest.raises(ScenarioError, match=r'1" to 2,000"'):
        parse_scenario(_demo_with(**{key: value}), "t.toml")


@pytest.mark.parametrize("stands", [2**70, 101, 10**300])
def test_a_scenario_with_too_many_stands_is_refused(stands):
    text = DEMO.replace("stands = 3                  # sections", f"stands = {stands}", 1)
    with pytest.raises(ScenarioError, match=r"stands must be 0 to 100|starting stands must be 1 to 100"):
        parse_scenario(text, "s.toml")


def test_a_linear_feature_1e308_wide_is_refused():
    text = DEMO.replace(
        "points = [[54.0, 30.0], [66.0, 30.0]]", "points = [[54.0, 30.0], [66.0, 30.0]]\nwidth_in = 1e308", 1
    )
    with pytest.raises(ScenarioError, match="width"):
        parse_scenario(text, "w.toml")


def test_a_battle_of_100000_units_is_refused_with_its_size(tmp_path):
    units = "".join(
        f'[[units]]\nid = "u{i}"\nbrigade = "iron"\nkind = "infantry"\nstands = 4\nx = 1.0\ny = 1.0\n'
        for i in range(100_000)
    )
    p = tmp_path / "huge.toml"
    p.write_text(DEMO + "\n" + units, encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"more than Brigadier handles \(at most 1,000\)"):
        load_scenario(p)


@pytest.mark.parametrize("depth", [30, 1000, 100_000])
def test_a_scenario_nested_deep_is_refused(depth):
    with pytest.raises(ScenarioError, match="nest"):
        parse_scenario(
            DEMO + f'\n[[terrain]]\nid = "x"\ntype = "open"\npoints = {_deep(depth)}\n', "deep.toml"
        )


@pytest.mark.parametrize("depth", [30, 1000, 100_000])
def test_a_club_table_nested_deep_is_refused(tmp_path, depth):
    p = tmp_path / "melee.toml"
    p.write_text(f'[modifier]\nflank = {{ value = {_deep(depth)}, rule = "RULE-06-3.1" }}\n')
    with pytest.raises(TableError):
        load_tables(p)


def test_a_club_table_of_a_nan_or_an_overflowing_terrain_number_is_refused(tmp_path):
    p = tmp_path / "terrain.toml"
    p.write_text(
        "[priority]\nenfilade_effective_range_in = { value = nan, club_default = true, reason = 'x' }\n"
    )
    with pytest.raises(TableError):
        load_tables(p)


def test_the_turn_override_of_ten_million_is_refused(save):
    code, _, err = _cli("override", save, "game", "-", "turn=10000000", "--reason", "x")
    assert code == 1 and "1 to 1,000" in err
    code, _, err = _cli("log", save, "--turn", "1")
    assert code == 0


@pytest.mark.parametrize(
    "value", [str(2**70), "1e308", "nan", "NaN", "-1", "101", "9" * 300, "9" * 4300, "[5]", "{}"]
)
def test_an_override_of_stands_out_of_range_is_refused_with_a_message(save, value):
    before = save.read_bytes()
    code, out, err = _cli("override", save, "unit", "va4", f"stands={value}", "--reason", "x")
    assert code == 1 and err.startswith("brigadier: ") and "Traceback" not in err
    assert len(err) < 400
    assert save.read_bytes() == before


def _action_fields(cls) -> list[str]:
    import dataclasses

    return [f.name for f in dataclasses.fields(cls)]


HOSTILE = [["va4"], {"a": 1}, float("nan"), 10**300, 10**4300, None, True, "x" * 5000, -(10**30)]


@pytest.mark.parametrize("kind", sorted(ACTION_TYPES))
def test_every_action_type_refuses_hostile_values_in_every_field(kind):
    """An id given as a list (unhashable), NaN, a number of 300 or 4,300 digits, a whole table:
    each is refused by Action.from_dict or by the rules, with RulesError, in every action type."""
    cls = ACTION_TYPES[kind]
    battle = load_demo()
    good = {"unit_id": "va4", "brigade_id": "garnett", "target_id": "va4", "feature_id": "x", "reason": "r"}
    for field in _action_fields(cls):
        for bad in HOSTILE:
            data = {"type": kind, **{f: good.get(f, "va4") for f in _action_fields(cls)}, field: bad}
            try:
                action = Action.from_dict(data)
                resolve(battle, action, SeededDice(1), load_tables())
            except RulesError:
                pass


@pytest.mark.parametrize(
    "value",
    [
        '{"type": "move_unit", "unit_id": ["va4"], "x": 1, "y": 1}',
        '{"type": "override", "target": "unit", "target_id": "va4", "values": {"stands": NaN}, "reason": "r"}',
        '{"type": "override", "target": "unit", "target_id": "va4", "values": {"markers": 5}, "reason": "r"}',
        '{"type": "override", "target": "unit", "target_id": "va4", "values": {"stands": '
        + "9" * 300
        + '}, "reason": "r"}',
        '{"type": "override", "target": "unit", "target_id": "va4", "values": {"stands": '
        + "9" * 4300
        + '}, "reason": "r"}',
        '{"type": "override", "target": "unit", "target_id": "va4", "values": {"x": 1e308}, "reason": "r"}',
        '{"type": "move_unit", "unit_id": "va4", "x": ' + _deep(1000) + ', "y": 1}',
        '{"type": "add_terrain", "feature": {"id": "t", "type": "open", "points": [[1,1],[2,1],[2,2]], "props": {"a": '
        + _deep(1000)
        + "}}}",
        '{"type": "next_phase"' + " " * 100 + "}",
    ],
)
def test_the_do_command_refuses_hostile_json_in_one_line(save, value):
    before = save.read_bytes()
    code, _, err = _cli("do", save, value)
    if code == 0:  # harmless: the save still opens and replays
        assert _cli("verify", save)[0] == 0
        return
    assert code == 1 and err.startswith("brigadier: ") and err.count("\n") == 1, err
    assert save.read_bytes() == before


def test_the_do_command_refuses_a_json_text_over_the_size_limit(save):
    before = save.read_bytes()
    code, _, err = _cli(
        "do", save, '{"type": "next_phase", "x": "' + "a" * (limits.MAX_FILE_BYTES + 1) + '"}'
    )
    assert code == 1 and "too long" in err
    assert save.read_bytes() == before


def _tamper(path: Path, sql: str, *params) -> None:
    conn = sqlite3.connect(path)
    conn.execute(sql, params)
    conn.commit()
    conn.close()


@pytest.mark.parametrize(
    "sql, value",
    [
        ("UPDATE journal SET action = ? WHERE seq = 1", '{"type": "next_phase", "x": ' + _deep(1000) + "}"),
        ("UPDATE journal SET changes = ? WHERE seq = 1", _deep(100_000)),
        ("UPDATE journal SET rolls = ? WHERE seq = 1", _deep(1000)),
        ("UPDATE journal SET steps = ? WHERE seq = 1", '[{"text": "x", "dice": [' + "9" * 300 + "]}]"),
        ("UPDATE scenario SET battle = json_set(battle, '$.turn', ?)", 2**62),
        ("UPDATE scenario SET battle = json_set(battle, '$.table_width_in', ?)", 1e308),
        ("UPDATE scenario SET battle = json_set(battle, '$.units[0].stands', ?)", 10**15),
        ("UPDATE scenario SET battle = json_set(battle, '$.units[0].stands_start', ?)", 10**15),
        ("UPDATE scenario SET battle = json_set(battle, '$.units[0].x', ?)", 1e300),
        ("UPDATE scenario SET battle = json_set(battle, '$.extra', json(?))", '{"a": ' + _deep(1000) + "}"),
        ("UPDATE scenario SET battle = json_set(battle, '$.sides[0].colour', ?)", "red; background: url(x)"),
        ("UPDATE journal SET dice_after = ? WHERE seq = 1", 2**62),
        (
            "UPDATE rule_tables SET value = ? WHERE key = 'terrain.priority.enfilade_effective_range_in'",
            "1e999",
        ),
    ],
)
def test_a_save_with_numbers_out_of_range_or_deep_nesting_is_refused(tmp_path, save, sql, value):
    _tamper(save, sql, value)
    before = save.read_bytes()
    with pytest.raises(SaveFileError):
        Game.open(save).close()
    assert save.read_bytes() == before
    code, _, err = _cli("info", save)
    assert code == 1 and err.count("\n") == 1


def test_a_move_with_an_enormous_facing_is_refused_before_anything_is_worked_out():
    battle = load_demo()
    with pytest.raises(RulesError, match="facing"):
        resolve(battle, MoveUnit("va4", 30, 20, 1e300), SeededDice(1), load_tables())


def test_no_roll_asks_for_more_dice_than_the_limit():
    from rules.errors import DiceError

    with pytest.raises(DiceError):
        SeededDice(1).roll(2**70, "volley")


# --------------------------------------------------------------------------------------------
# 1,000 generated inputs at each door
# --------------------------------------------------------------------------------------------

# numbers at and past the edges of every range, and the shapes that broke the doors
edge_numbers = st.one_of(
    st.sampled_from([0, 1, -1, 99, 100, 101, 999, 1000, 1001, 2000, 2001, 2**31, 2**63, 2**70, 10**300]),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e308, -1e308, 5e-324, 0.5, 72.0, 48.0]),
)


def _toml_number(v) -> str:
    if isinstance(v, float):
        if v != v:
            return "nan"
        if v in (float("inf"), float("-inf")):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    return str(v)


toml_values = st.one_of(
    edge_numbers.map(_toml_number),
    st.integers(1, 60).map(_deep),
    st.integers(900, 3000).map(_deep),
    st.sampled_from(['"x"', "true", "[1, 2]", "{ a = 1 }", '"' + "y" * 2000 + '"']),
)
NUMERIC_KEYS = [
    m.start()
    for m in re.finditer(
        r"(?m)^(turn|table_width_in|table_height_in|seed|staff_pips|staff_pips_reserved|stands|stands_start|micro_hits|x|y|facing_deg|level|width_in|structural_hits) = ",
        DEMO,
    )
]


@st.composite
def scenario_texts(draw) -> str:
    """The demo with up to three numeric settings given edge values, or deep lists."""
    text = DEMO
    for at in sorted(
        draw(st.lists(st.sampled_from(NUMERIC_KEYS), min_size=1, max_size=3, unique=True)), reverse=True
    ):
        end = text.index("\n", at)
        key = text[at:end].split(" = ", 1)[0]
        text = text[:at] + f"{key} = {draw(toml_values)}" + text[end:]
    return text


@DOOR
@given(text=scenario_texts())
def test_door_scenario_numbers_and_nesting(tmp_path, text):
    p = tmp_path / f"s{next(_names)}.toml"
    p.write_text(text, encoding="utf-8")
    try:
        battle = load_scenario(p)
    except ScenarioError as exc:
        assert exc.problem
        return
    finally:
        assert p.read_text(encoding="utf-8") == text
        p.unlink()
    assert limits.TURN.lo <= battle.turn <= limits.TURN.hi
    assert all(0 <= u.stands <= 100 for u in battle.units.values())
    assert 1 <= battle.table_width_in <= 2000 and 1 <= battle.table_height_in <= 2000


CLUB_KEYS = {
    "melee.toml": ["[modifier]\nflank", "[outcome]\nbreakthrough_margin"],
    "terrain.toml": ["[priority]\nenfilade_effective_range_in", "[arc]\nforward_deg"],
    "shooting.toml": ["[dice]\nper_stand"],
}


@DOOR
@given(
    file=st.sampled_from(sorted(CLUB_KEYS)),
    data=st.data(),
    value=toml_values,
)
def test_door_club_table_numbers_and_nesting(tmp_path, file, data, value):
    key = data.draw(st.sampled_from(CLUB_KEYS[file]))
    folder = tmp_path / f"club{next(_names)}"
    folder.mkdir()
    p = folder / file
    text = f'{key} = {{ value = {value}, club_default = true, reason = "ours" }}\n'
    p.write_text(text)
    try:
        tables = load_tables(p)
    except TableError as exc:
        assert str(exc)
        return
    finally:
        assert p.read_text() == text
        shutil.rmtree(folder)
    assert tables is not None


json_values = st.recursive(
    st.one_of(
        edge_numbers,
        st.none(),
        st.booleans(),
        st.text(max_size=8),
        st.sampled_from(["va4", "garnett", "union"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
hostile_json = st.one_of(
    json_values, st.integers(20, 2000).map(lambda n: json.loads(_deep(n)) if n < 900 else _deep(n))
)


@st.composite
def action_dicts(draw) -> dict:
    kind = draw(st.sampled_from(sorted(ACTION_TYPES)))
    fields = _action_fields(ACTION_TYPES[kind])
    d = {"type": kind}
    for f in fields:
        if draw(st.booleans()):
            d[f] = draw(st.one_of(hostile_json, st.sampled_from(["va4", "wis2", "garnett", "x", 3.0, 40.0])))
    return d


@pytest.fixture(scope="module")
def door_save(tmp_path_factory) -> bytes:
    p = tmp_path_factory.mktemp("door") / "g.sqlite"
    with Game.create(p, load_demo(), seed=7) as g:
        g.do(NextPhase())
    return p.read_bytes()


def _json_text(d) -> str:
    try:
        return json.dumps(d)
    except (ValueError, RecursionError):
        return "{}"


@DOOR
@given(action=action_dicts())
def test_door_action_json(tmp_path, door_save, action):
    """``Action.from_dict`` and the rules on any generated action: a RulesError or an action."""
    battle = load_demo()
    try:
        a = Action.from_dict(json.loads(_json_text(action)))
        resolve(battle, a, SeededDice(1), load_tables())
    except RulesError as exc:
        assert str(exc)


override_values = st.one_of(
    edge_numbers.map(_toml_number),
    st.integers(1, 3000).map(_deep),
    st.sampled_from(["disorder", "disorder,smoke", "", "none", "[5]", '{"a": 1}', '"x"', "9" * 4300]),
    st.text(max_size=10),
)
override_keys = st.sampled_from(
    [
        "stands",
        "stands_start",
        "micro_hits",
        "x",
        "y",
        "facing_deg",
        "markers",
        "traits",
        "name",
        "id",
        "turn",
        "staff_pips",
        "state",
        "phase",
    ]
)


@DOOR
@given(
    target=st.sampled_from([("unit", "va4"), ("brigade", "garnett"), ("game", "-")]),
    values=st.lists(st.tuples(override_keys, override_values), min_size=1, max_size=3),
)
def test_door_override_on_the_command_line(tmp_path, door_save, target, values):
    p = tmp_path / f"o{next(_names)}.sqlite"
    p.write_bytes(door_save)
    try:
        code, _, err = _cli("override", p, *target, *(f"{k}={v}" for k, v in values), "--reason", "r")
        if code == 0:
            with Game.open(p) as g:
                b = g.battle
                assert all(0 <= u.stands <= 100 for u in b.units.values())
                assert 1 <= b.turn <= 1000
        else:
            assert code == 1 and err.startswith("brigadier: ")
            assert p.read_bytes() == door_save
    finally:
        for s in ("", "-wal", "-shm"):
            Path(f"{p}{s}").unlink(missing_ok=True)


save_columns = st.sampled_from(
    [
        ("journal", "action"),
        ("journal", "rolls"),
        ("journal", "steps"),
        ("journal", "changes"),
        ("journal", "turn"),
        ("journal", "dice_after"),
        ("scenario", "battle"),
        ("meta", "value"),
        ("rule_tables", "value"),
    ]
)
paths_in_battle = st.sampled_from(
    [
        "$.turn",
        "$.table_width_in",
        "$.seed",
        "$.units[0].stands",
        "$.units[0].x",
        "$.units[2].facing_deg",
        "$.brigades[0].staff_pips",
        "$.terrain[0].points[0][0]",
        "$.terrain[0].width_in",
        "$.extra",
        "$.units[0].id",
        "$.sides[1].colour",
        "$.terrain[1].structural_hits",
    ]
)


@DOOR
@given(column=save_columns, path=paths_in_battle, value=hostile_json)
def test_door_save_numbers_and_nesting(tmp_path, door_save, column, path, value):
    p = tmp_path / f"v{next(_names)}.sqlite"
    p.write_bytes(door_save)
    try:
        table, col = column
        text = value if isinstance(value, str) else _json_text(value)
        if table == "scenario":
            _tamper(p, f"UPDATE scenario SET battle = json_set(battle, '{path}', json(?))", text)
        elif col in ("turn", "dice_after"):
            _tamper(
                p,
                f"UPDATE {table} SET {col} = ?",
                value if isinstance(value, int) and abs(value) < 2**63 else text,
            )
        else:
            _tamper(p, f"UPDATE {table} SET {col} = ? WHERE rowid = (SELECT max(rowid) FROM {table})", text)
        before = p.read_bytes()
        try:
            g = Game.open(p)
        except SaveFileError as exc:
            assert exc.problem
            assert p.read_bytes() == before
            return
        with g:
            b = g.battle
            assert all(0 <= u.stands <= 100 for u in b.units.values())
            assert 1 <= b.turn <= 1000 and 1 <= b.table_width_in <= 2000
    except sqlite3.Error:
        pass  # SQLite refused the tampering itself (malformed JSON for json())
    finally:
        for s in ("", "-wal", "-shm"):
            Path(f"{p}{s}").unlink(missing_ok=True)


number_words = st.one_of(
    edge_numbers.map(_toml_number),
    st.sampled_from(["1e308", "-1e308", "nan", "inf", "-0", "9" * 300, "9" * 4301, "0x10", "", "3,5"]),
)


@st.composite
def command_lines(draw, save: str, out: str) -> list[str]:
    """A command with its arguments, each number an edge value or not a number at all."""
    n = lambda: draw(number_words)  # noqa: E731
    unit = draw(st.sampled_from(["va4", "wis2", "batb4us", "nobody", "", "va4 "]))
    kind = draw(
        st.sampled_from(["move", "override", "do", "log", "export", "formation", "pip", "new", "charge"])
    )
    if kind == "move":
        return [
            "move",
            save,
            unit,
            n(),
            n(),
            *draw(st.sampled_from([[], ["--facing", n()], ["--place", "--reason", "r"]])),
        ]
    if kind == "override":
        key = draw(override_keys)
        target = draw(st.sampled_from([["unit", unit], ["brigade", "garnett"], ["game", "-"]]))
        return ["override", save, *target, f"{key}={draw(override_values)}", "--reason", "r"]
    if kind == "do":
        return ["do", save, _json_text(draw(action_dicts()))]
    if kind == "log":
        return ["log", save, "--turn", n()]
    if kind == "export":
        return ["export-scenario", save, out, "--force", "--seq", n()]
    if kind == "formation":
        return ["formation", save, unit, draw(st.sampled_from(["line", "skirmish", "", "x" * 2000]))]
    if kind == "pip":
        return [
            draw(st.sampled_from(["spend-pip", "reserve-pip"])),
            save,
            draw(st.sampled_from(["garnett", "iron", "[x]"])),
        ]
    if kind == "charge":
        return ["charge", save, unit, "wis2", "--no-reactions", "--dice", n()]
    return ["new", "demo", out + ".sqlite", "--seed", n()]


@DOOR
@given(data=st.data())
def test_door_command_line_arguments(tmp_path, door_save, data):
    p = tmp_path / f"c{next(_names)}.sqlite"
    p.write_bytes(door_save)
    out_file = tmp_path / f"c{next(_names)}.toml"
    argv = data.draw(command_lines(str(p), str(out_file)))
    try:
        code, _, err = _cli(*argv)
        assert code in (0, 1, 2), (argv, code)
        if code != 0:
            assert err.startswith(("brigadier: ", "usage: ")), err
            assert err.count("Traceback") == 0 and len(err) < 2000, err
            assert p.read_bytes() == door_save
            assert not Path(str(out_file) + ".sqlite").exists()
        else:
            with Game.open(p) as g:
                assert 1 <= g.battle.turn <= 1000
            if argv[0] == "new":
                with Game.open(str(out_file) + ".sqlite") as g:
                    assert g.seed in limits.SEED
    finally:
        for s in ("", "-wal", "-shm"):
            Path(f"{p}{s}").unlink(missing_ok=True)
            Path(f"{out_file}.sqlite{s}").unlink(missing_ok=True)
        out_file.unlink(missing_ok=True)
