"""The small doors: a file saved with a BOM, units that are their own parents, a key given twice,
and a save named as SQLite names the files beside a save.

- A scenario or a club's rule table saved with a UTF-8 byte order mark (as Windows editors save
  them) reads as the same file without it.
- A unit that is its own parent regiment, or units whose parents run in a circle, are refused
  with the unit and the field, from a scenario, an override or an edit; nothing is written.
- ``brigadier do`` refuses JSON that gives a key twice, at any depth, instead of taking the last.
- No command that writes a save names it ``g.sqlite-wal``, ``-shm`` or ``-journal``, nor makes a
  new save where one of those lies: SQLite would remove it, or take it as the save's own.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli import main as cli
from rules.actions import NextPhase, Override
from rules.errors import RulesError
from rules.tables import load_tables
from storage.errors import SaveFileError, ScenarioError
from storage.game import Game
from storage.outputs import OutputError, atomic_write
from storage.scenario import bundled_text, load_demo, load_scenario
from storage.scenario_parsing import parse_scenario
from tests.storage.conftest import fingerprint

DEMO = bundled_text("demo")
BOM = "\ufeff"
_names = itertools.count()
DOOR = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def save(tmp_path) -> Path:
    p = tmp_path / "g.sqlite"
    with Game.create(p, load_demo(), seed=7) as g:
        g.do(NextPhase())
    return p


# -- a BOM ---------------------------------------------------------------------------------------


def test_a_scenario_saved_with_a_bom_reads_as_the_same_battle(tmp_path):
    p = tmp_path / "oak.toml"
    p.write_bytes((BOM + DEMO).encode("utf-8"))
    assert load_scenario(p) == parse_scenario(DEMO)
    code, out, err = _cli("new", p, tmp_path / "g.sqlite")
    assert code == 0, err


def test_a_club_table_saved_with_a_bom_is_read(tmp_path):
    p = tmp_path / "movement.toml"
    text = '[rate]\nroad_column = { value = 11.0, club_default = true, reason = "our roads" }\n'
    p.write_bytes((BOM + text).encode("utf-8"))
    assert load_tables(p).value("movement.rate.road_column") == 11.0


def test_a_scenario_with_a_bom_and_a_mistake_names_the_line_as_without(tmp_path):
    bad = DEMO.replace('id = "va4"', 'id = "va4"\nstands = "five"', 1)
    with pytest.raises(ScenarioError) as without:
        parse_scenario(bad, "oak.toml")
    with pytest.raises(ScenarioError) as with_bom:
        parse_scenario(BOM + bad, "oak.toml")
    assert str(with_bom.value) == str(without.value)


# -- parents in a circle -------------------------------------------------------------------------


def _with_parents(parents: dict[str, str]) -> str:
    text = DEMO
    for uid, parent in parents.items():
        text, n = re.subn(rf'(?m)^id = "{uid}"$', f'id = "{uid}"\nparent = "{parent}"', text, count=1)
        assert n == 1
    return text


@pytest.mark.parametrize(
    "parents, said",
    [
        ({"va4": "va4"}, "4th Virginia: its parent is 'va4', the unit itself"),
        ({"va4": "va5", "va5": "va4"}, "parent regiments run in a circle (va4 → va5 → va4)"),
        (
            {"nc7": "nc28", "nc28": "ga8", "ga8": "nc7"},
            "parent regiments run in a circle (nc7 → nc28 → ga8 → nc7)",
        ),
    ],
    ids=["own parent", "each other's", "three"],
)
def test_units_whose_parents_run_in_a_circle_are_refused(tmp_path, parents, said):
    with pytest.raises(ScenarioError, match=re.escape(said)):
        parse_scenario(_with_parents(parents), "oak.toml")
    p = tmp_path / "oak.toml"
    p.write_text(_with_parents(parents), encoding="utf-8")
    code, _, err = _cli("new", p, tmp_path / "g.sqlite")
    assert code == 1 and said in err and not (tmp_path / "g.sqlite").exists()


def test_an_override_that_makes_a_unit_its_own_parent_is_refused_and_writes_nothing(save):
    before = fingerprint(save)
    code, _, err = _cli("override", save, "unit", "va4", "parent=va4", "--reason", "a test")
    assert code == 1 and "the unit itself" in err
    assert fingerprint(save) == before
    with Game.open(save) as g:
        g.do(Override("unit", "va5", {"parent": "va4"}, "a screen of the 4th"))
        with pytest.raises(RulesError, match="circle"):
            g.do(Override("unit", "va4", {"parent": "va5"}, "and back"))
        assert g.last_seq == 2


@DOOR
@given(
    parents=st.dictionaries(
        st.sampled_from(["va4", "va5", "nc7", "nc28", "ga8"]),
        st.sampled_from(["va4", "va5", "nc7", "nc28", "ga8"]),
        max_size=5,
    )
)
def test_door_parents(parents):
    """Any parents among a side's units: accepted when they lead to a unit without one, refused
    with the circle otherwise, and never a hang."""

    def circles() -> bool:
        for start in parents:
            seen, p = {start}, parents.get(start)
            while p is not None:
                if p in seen:
                    return True
                seen.add(p)
                p = parents.get(p)
        return False

    try:
        battle = parse_scenario(_with_parents(parents), "oak.toml")
    except ScenarioError as exc:
        assert circles(), exc
        assert "parent" in str(exc)
        return
    assert not circles()
    assert {u: battle.unit(u).parent for u in parents} == parents


# -- a key given twice ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"type": "spend_pip", "brigade_id": "garnett", "brigade_id": "branch", "purpose": "x"}',
        '{"type": "override", "target": "unit", "target_id": "va4", '
        '"values": {"stands": 4, "stands": 1}, "reason": "x"}',
        '{"type": "next_phase", "type": "next_phase"}',
    ],
)
def test_the_do_command_refuses_a_key_given_twice(save, text):
    before = fingerprint(save)
    code, _, err = _cli("do", save, text)
    assert code == 1 and "is given twice" in err
    assert fingerprint(save) == before


@DOOR
@given(key=st.sampled_from(["type", "brigade_id", "purpose", "x"]), depth=st.integers(0, 3))
def test_door_json_with_a_key_twice(tmp_path_factory, key, depth):
    folder = tmp_path_factory.mktemp("dup")
    p = folder / "g.sqlite"
    Game.create(p, load_demo(), seed=7).close()
    inner = f'{{"{key}": 1, "{key}": 2}}'
    for _ in range(depth):
        inner = f'{{"a": {inner}}}'
    text = '{"type": "spend_pip", "brigade_id": "garnett", "purpose": "x", "extra": ' + inner + "}"
    before = fingerprint(p)
    code, _, err = _cli("do", p, text)
    assert code == 1 and "given twice" in err
    assert fingerprint(p) == before


# -- a save named as SQLite's companions ---------------------------------------------------------


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_new_refuses_a_save_named_as_a_companion(tmp_path, suffix):
    code, _, _ = _cli("new", "demo", tmp_path / "g.sqlite")
    assert code == 0
    before = fingerprint(tmp_path / "g.sqlite")
    name = tmp_path / f"g.sqlite{suffix}"
    code, _, err = _cli("new", "demo", name)
    assert code == 1 and f"a save cannot be named g.sqlite{suffix}" in err
    code, _, err = _cli("new", "demo", name, "--force")
    assert code == 1 and f"a save cannot be named g.sqlite{suffix}" in err
    assert not name.exists()
    # the first game still plays, and its companions are its own
    assert _cli("next-phase", tmp_path / "g.sqlite")[0] == 0
    assert fingerprint(tmp_path / "g.sqlite") != before
    assert _cli("verify", tmp_path / "g.sqlite")[0] == 0


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_new_save_is_not_made_where_a_companion_lies(tmp_path, suffix):
    beside = tmp_path / f"g.sqlite{suffix}"
    beside.write_bytes(b"another game's unwritten changes")
    with pytest.raises(SaveFileError, match=f"a file g.sqlite{suffix} lies beside it"):
        Game.new(tmp_path / "g.sqlite", load_demo())
    assert beside.read_bytes() == b"another game's unwritten changes"


def test_a_copy_of_a_save_is_not_written_under_a_companion_name(tmp_path, save):
    with pytest.raises(OutputError, match="a save cannot be named"):
        atomic_write(
            tmp_path / "copy.sqlite-wal", lambda p: Path(p).write_bytes(save.read_bytes()), save=True
        )
    assert not (tmp_path / "copy.sqlite-wal").exists()


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_open_refuses_a_file_named_as_a_companion(tmp_path, save, suffix):
    other = tmp_path / f"other.sqlite{suffix}"
    other.write_bytes(save.read_bytes())
    with pytest.raises(SaveFileError, match="a save cannot be named"):
        Game.open(other)
