"""A new game whose file is written by its first action (``Game.new``), and what a save needs of
sqlite-utils: reading one needs none of it; writing loads it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rules.actions import NextPhase, SpendPip
from rules.battle.words import Phase
from rules.errors import RulesError
from storage.errors import SaveFileError
from storage.game import Game, same_state
from tests.storage.conftest import fingerprint

ROOT = Path(__file__).resolve().parents[2]


def test_a_new_game_writes_nothing_until_its_first_action(tmp_path, small_battle):
    p = tmp_path / "g.sqlite"
    g = Game.new(p, small_battle, seed=5)
    assert not g.written and list(tmp_path.iterdir()) == []
    # reading it asks nothing of the disk
    assert g.events() == [] and g.turns() == [] and g.redo_events() == []
    assert same_state(g.state_at(0), small_battle) and same_state(g.battle, small_battle)
    assert g.undo() is None and g.redo() is None and g.undo_to(0) == []
    assert not g.written and list(tmp_path.iterdir()) == []
    ev = g.do(NextPhase())
    assert g.written and p.exists() and ev.seq == 1
    g.close()
    with Game.open(p) as again:
        assert again.battle.phase == Phase.MANEUVER and again.seed == 5
        assert [e.seq for e in again.events()] == [1]
        assert again.meta["name"] == small_battle.name


def test_a_new_game_closed_before_any_action_leaves_no_file(tmp_path, small_battle):
    g = Game.new(tmp_path / "g.sqlite", small_battle)
    g.close()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(SaveFileError, match="closed"):
        g.do(NextPhase())
    assert list(tmp_path.iterdir()) == []


def test_write_makes_the_file_at_once_and_only_once(tmp_path, small_battle):
    p = tmp_path / "g.sqlite"
    g = Game.new(p, small_battle)
    g.write()
    assert g.written and p.exists()
    before = fingerprint(p)
    g.write()  # nothing more to do
    assert fingerprint(p) == before
    g.close()


def test_new_checks_what_create_checks(tmp_path, small_battle):
    taken = tmp_path / "taken.sqlite"
    taken.write_bytes(b"the umpire's notes")
    with pytest.raises(SaveFileError, match="already exists"):
        Game.new(taken, small_battle)
    with pytest.raises(SaveFileError, match="there is no folder"):
        Game.new(tmp_path / "nowhere" / "g.sqlite", small_battle)
    with pytest.raises(SaveFileError, match="dice seed"):
        Game.new(tmp_path / "g.sqlite", small_battle, seed=1.5)
    assert taken.read_bytes() == b"the umpire's notes"
    assert sorted(f.name for f in tmp_path.iterdir()) == ["taken.sqlite"]


def test_a_file_made_meanwhile_at_a_new_games_path_is_never_overwritten(tmp_path, small_battle):
    p = tmp_path / "g.sqlite"
    g = Game.new(p, small_battle)
    p.write_bytes(b"another program's file")
    drawn = g.dice.drawn
    with pytest.raises(SaveFileError, match="already exists"):
        g.do(NextPhase())
    assert p.read_bytes() == b"another program's file"
    assert same_state(g.battle, small_battle) and g.last_seq == 0 and g.dice.drawn == drawn
    assert sorted(f.name for f in tmp_path.iterdir()) == ["g.sqlite"]


def test_an_action_the_rules_refuse_writes_no_file(tmp_path, small_battle):
    g = Game.new(tmp_path / "g.sqlite", small_battle)
    with pytest.raises(RulesError):
        g.do(SpendPip(brigade_id="nobody"))
    assert not g.written and list(tmp_path.iterdir()) == []
    g.close()


_CHILD = """
import sys
from storage.game import Game
from rules.actions import NextPhase
g = Game.open(sys.argv[1])
g.events(); g.turns(); g.state_at(0)
print("sqlite_utils" in sys.modules)
g.do(NextPhase())
print("sqlite_utils" in sys.modules)
g.close()
"""


def test_a_save_is_opened_and_read_without_sqlite_utils_which_loads_for_the_first_write(
    tmp_path, small_battle
):
    p = tmp_path / "g.sqlite"
    Game.create(p, small_battle).close()
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(p)], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True"]
    with Game.open(p) as g:
        assert g.battle.phase == Phase.MANEUVER
