"""Saved games: the journal, undo and redo, snapshots, reopening and replay."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rules.actions import (
    ChangeFormation,
    EndTurn,
    MoveUnit,
    NextPhase,
    Override,
    ReservePip,
    SpendPip,
    resolve,
)
from rules.battle.words import Marker, Phase
from rules.dice import RecordedDice, SeededDice, TableDice
from rules.errors import IllegalAction, RulesError
from storage import schema
from storage.errors import SaveFileError
from storage.game import Game, same_state
from storage.replay import verify
from tests.storage.conftest import DisciplineCheck, as_format, fingerprint


def journal_rows(path) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT count(*) FROM journal").fetchone()[0]
    finally:
        conn.close()


# -- creating ----------------------------------------------------------------------------------


def test_create_refuses_to_overwrite_an_existing_file(tmp_path, small_battle):
    p = tmp_path / "taken.sqlite"
    p.write_bytes(b"the umpire's notes")
    before = fingerprint(p)
    with pytest.raises(SaveFileError, match="already exists"):
        Game.create(p, small_battle)
    assert fingerprint(p) == before


def test_create_in_a_missing_folder_is_refused(tmp_path, small_battle):
    with pytest.raises(SaveFileError, match="there is no folder"):
        Game.create(tmp_path / "nowhere" / "g.sqlite", small_battle)


def test_create_keeps_the_meta_scenario_and_rule_tables(tmp_path, small_battle):
    with Game.create(tmp_path / "g.sqlite", small_battle, seed=7) as g:
        meta = g.meta
        assert meta["app"] == "brigadier" and meta["schema_version"] == str(schema.SCHEMA_VERSION)
        assert meta["name"] == "Small battle" and meta["created"]
        assert g.seed == 7 and g.dice.drawn == 0
        assert g.db["rule_tables"].count == len(g.tables)
        assert same_state(g.scenario, small_battle)
        pragmas = {
            n: g.db.execute(f"PRAGMA {n}").fetchone()[0]
            for n in ("journal_mode", "foreign_keys", "synchronous")
        }
        assert pragmas == {"journal_mode": "wal", "foreign_keys": 1, "synchronous": 2}


def test_seed_defaults_to_the_battles_seed(tmp_path, demo_battle):
    with Game.create(tmp_path / "g.sqlite", demo_battle) as g:
        assert g.seed == demo_battle.seed == 1862


def test_club_rule_tables_in_force_are_kept_in_the_save(tmp_path, small_battle):
    from rules.tables import load_tables

    club = load_tables().with_values({"command.staff_pips.per_brigade_per_turn": 5})
    p = tmp_path / "g.sqlite"
    Game.create(p, small_battle, tables=club).close()
    with Game.open(p) as g:
        assert g.tables.value("command.staff_pips.per_brigade_per_turn") == 5
        g.do(EndTurn())
        assert g.battle.brigades["stonewall"].staff_pips == 5


# -- doing, journalling and reopening ----------------------------------------------------------


def test_every_action_is_on_disk_when_do_returns(game):
    ev = game.do(MoveUnit("wis2", 20, 30))
    assert ev.seq == 1 and journal_rows(game.path) == 1
    assert ev.summary == '2nd Wisconsin moves 6.0" to (20, 30): placed by the umpire'
    assert set(ev.changes.units) == {"wis2"}
    assert (ev.turn, ev.side, ev.phase) == (1, "union", "command")


def test_a_refused_action_leaves_game_dice_and_file_unchanged(game):
    game.do(DisciplineCheck("wis2"))
    drawn, battle = game.dice.drawn, game.battle
    with pytest.raises(IllegalAction, match="off the"):
        game.do(MoveUnit("wis2", 100, 30))
    with pytest.raises(IllegalAction, match="needs a reason"):
        game.do(Override("unit", "wis2", {"stands": 1}, ""))
    assert game.battle is battle and game.dice.drawn == drawn and journal_rows(game.path) == 1


def test_an_action_that_fails_after_rolling_gives_the_dice_back(game):
    drawn = game.dice.drawn
    with pytest.raises(RulesError):
        game.do(DisciplineCheck("nobody"))
    assert game.dice.drawn == drawn and game.last_seq == 0


def test_do_refuses_what_is_not_an_action(game):
    with pytest.raises(RulesError, match="is not an action"):
        game.do({"type": "next_phase"})


def test_override_is_journalled_with_its_reason(game):
    ev = game.do(Override("unit", "wis2", {"stands": 4}, "the umpire saw the volley"))
    logged = game.events()[-1]
    assert logged.action == ev.action and logged.action.reason == "the umpire saw the volley"
    assert "Reason: the umpire saw the volley" in [s.text for s in logged.steps]


def test_reopened_game_rolls_on_with_the_same_dice(tmp_path, small_battle):
    p = tmp_path / "g.sqlite"
    with Game.create(p, small_battle, seed=99) as g:
        g.do(DisciplineCheck("wis2"))
        g.do(DisciplineCheck("va4"))
        drawn = g.dice.drawn
    expected = SeededDice(99, drawn).roll(1, "discipline check")
    with Game.open(p) as g:
        assert g.dice.drawn == drawn == 2
        ev = g.do(DisciplineCheck("tx1"))
    assert ev.rolls[0].dice == expected


def test_umpires_table_dice_do_not_use_the_games_dice(game):
    ev = game.do(DisciplineCheck("wis2"), TableDice([1]))
    assert ev.rolls[0].dice == (1,) and game.dice.drawn == 0
    assert Marker.DISORDER in game.battle.unit("wis2").markers


def test_events_of_one_turn(game):
    game.do(MoveUnit("wis2", 20, 30))
    for _ in range(10):
        game.do(NextPhase())
    game.do(MoveUnit("wis2", 20, 28))
    assert [e.seq for e in game.events(turn=1)] == list(range(1, 12))
    assert [e.seq for e in game.events(turn=2)] == [12]
    assert game.events(turn=3) == []


# -- undo and redo -----------------------------------------------------------------------------


def test_undo_restores_the_state_before_and_redo_puts_the_event_back_without_rolling(game):
    start = game.battle
    game.do(DisciplineCheck("wis2"))
    after_first = game.battle
    ev = game.do(DisciplineCheck("ind19"))
    after = game.battle
    undone = game.undo()
    assert undone.seq == ev.seq and same_state(game.battle, after_first)
    assert game.can_undo and game.can_redo and game.dice.drawn == ev.dice_before
    redone = game.redo()
    assert redone.rolls == ev.rolls and redone.seq == ev.seq
    assert same_state(game.battle, after) and game.dice.drawn == ev.dice_after
    assert not game.can_redo
    game.undo_to(0)
    assert same_state(game.battle, start) and not game.can_undo and game.dice.drawn == 0


def test_undo_and_redo_on_an_empty_journal_do_nothing(game):
    assert game.undo() is None and game.redo() is None
    assert not game.can_undo and not game.can_redo


def test_a_new_action_forgets_the_undone_events(game):
    game.do(MoveUnit("wis2", 20, 30))
    game.do(MoveUnit("wis2", 20, 28))
    game.undo()
    assert game.can_redo
    game.do(ChangeFormation("wis2", "assault_column"))
    assert not game.can_redo and game.redo() is None
    assert [e.summary.split()[1] for e in game.events()] == ["Wisconsin", "Wisconsin"]
    assert game.battle.unit("wis2").y == 30


def test_undo_and_redo_survive_closing_the_game(tmp_path, small_battle):
    p = tmp_path / "g.sqlite"
    with Game.create(p, small_battle) as g:
        g.do(MoveUnit("wis2", 20, 30))
        g.do(MoveUnit("wis2", 20, 28))
        g.undo()
    with Game.open(p) as g:
        assert g.can_redo and g.battle.unit("wis2").y == 30
        g.redo()
        assert g.battle.unit("wis2").y == 28
    with Game.open(p) as g:
        assert g.battle.unit("wis2").y == 28 and not g.can_redo


def test_undo_to_takes_back_everything_after(game):
    for y in (34, 32, 30, 28):
        game.do(MoveUnit("wis2", 20, y))
    out = game.undo_to(2)
    assert [e.seq for e in out] == [4, 3] and game.battle.unit("wis2").y == 32
    with pytest.raises(RulesError, match="no event 5"):
        game.undo_to(5)
    with pytest.raises(RulesError, match="no event -1"):
        game.undo_to(-1)


def test_state_at_replays_from_the_nearest_snapshot(game, monkeypatch):
    monkeypatch.setattr(schema, "SNAPSHOT_EVERY", 3)
    states = [game.battle]
    for i in range(8):
        game.do(MoveUnit("wis2", 20, 35 - i))
        states.append(game.battle)
    assert [r["seq"] for r in game.db["snapshots"].rows] == [3, 6]
    for seq, expected in enumerate(states):
        assert same_state(game.state_at(seq), expected), seq
    game.undo_to(4)  # the snapshot of event 6 goes with it
    assert [r["seq"] for r in game.db["snapshots"].rows] == [3]
    with pytest.raises(RulesError):
        game.state_at(5)


def test_state_at_keeps_the_battles_it_replayed_until_their_entries_are_undone(game, monkeypatch):
    """The checklist asks for the battle as the phase began after every action: it is replayed
    once, and again only once the entries it was replayed from are taken back."""
    for y in (34, 32, 30):
        game.do(MoveUnit("wis2", 20, y))
    replayed = []
    real = game._replayed
    monkeypatch.setattr(game, "_replayed", lambda seq: replayed.append(seq) or real(seq))
    first = game.state_at(2)
    assert game.state_at(2) is first and replayed == [2]
    game.do(MoveUnit("wis2", 20, 28))
    assert game.state_at(2) is first and replayed == [2]
    game.undo_to(1)  # entry 2 is undone: the battle after it is another once a new entry 2 is made
    game.do(MoveUnit("wis2", 20, 20))
    game.do(MoveUnit("wis2", 20, 18))
    assert game.state_at(2).unit("wis2").y == 20 and replayed == [2, 2]


def test_a_new_turn_takes_a_snapshot(game):
    game.do(EndTurn())
    assert game.db["snapshots"].count == 0
    game.do(EndTurn())
    snaps = list(game.db["snapshots"].rows)
    assert [(s["seq"], s["turn"]) for s in snaps] == [(2, 2)]


# -- a whole short game ------------------------------------------------------------------------


def play_short_demo(g: Game) -> list:
    """Moves, an override, Staff Pips, dice and phases over two game turns of the Oak Ridge demo."""
    states = [g.battle]
    actions = [
        NextPhase(),  # Confederate Phase 2
        MoveUnit("va4", 34.0, 24.0),
        MoveUnit("nc28", 18.0, 20.0, 60.0),
        DisciplineCheck("ga8"),
        NextPhase(),  # Phase 3
        Override("unit", "wis2", {"stands": 4, "micro_hits": 1}, "casualties from the battery duel"),
        NextPhase(),  # Phase 4
        EndTurn(),  # to the Union Phase 1
        ReservePip("iron"),
        SpendPip("cutler", "an assault by the 14th Brooklyn"),
        NextPhase(),
        MoveUnit("wis2", 42.0, 14.0),  # up onto the crest (chapter 03, "Springing the Trap")
        ChangeFormation("bkn14", "line"),
        EndTurn(),  # turn 2, Confederate Phase 1
        DisciplineCheck("va5"),
        Override("brigade", "garnett", {"state": "hesitant"}, "Garnett's brigade wavers"),
        EndTurn(),
    ]
    for a in actions:
        g.do(a)
        states.append(g.battle)
    return states


def test_a_short_demo_game_is_saved_reopened_and_replayed_identically(tmp_path, demo_battle):
    p = tmp_path / "oak_ridge.sqlite"
    with Game.create(p, demo_battle) as g:
        live = play_short_demo(g)
        live_events = g.events()
    assert (live[-1].turn, live[-1].active_side, live[-1].phase) == (2, "union", Phase.COMMAND)
    with Game.open(p) as g:
        assert same_state(g.battle, live[-1]) and g.battle == live[-1]
        assert g.events() == live_events
        for seq, state in enumerate(live):
            assert same_state(g.state_at(seq), state), seq
        assert verify(g) == len(live) - 1
        # re-resolving every action with its recorded dice gives the same states
        battle = g.scenario
        for ev, expected in zip(g.events(), live[1:], strict=True):
            dice = RecordedDice(ev.rolls)
            battle = resolve(battle, ev.action, dice, g.tables).battle_after
            assert dice.exhausted and same_state(battle, expected), ev.summary


def test_verify_finds_a_journal_that_no_longer_matches_its_actions(tmp_path, demo_battle):
    p = tmp_path / "g.sqlite"
    with Game.create(p, demo_battle) as g:
        g.do(MoveUnit("va4", 34.0, 24.0))
    conn = sqlite3.connect(p)
    conn.execute("UPDATE journal SET action = json_set(action, '$.y', 25.0) WHERE seq = 1")
    conn.commit()
    conn.close()
    with Game.open(p) as g, pytest.raises(SaveFileError, match="event 1 .* resolves differently now: va4"):
        verify(g)


# -- speed -------------------------------------------------------------------------------------


def test_a_40_turn_game_of_10000_events_opens_from_its_last_snapshot(tmp_path, demo_battle, monkeypatch):
    """Opening reads the last turn's snapshot and the entries after it, not the whole journal (how
    long it takes is the benchmarks' "open 40 turns" line)."""
    monkeypatch.setattr(Game, "synchronous", "OFF")  # building the file quickly; opening is what is timed
    p = tmp_path / "long.sqlite"
    with Game.create(p, demo_battle) as g:
        n = 0
        for turn in range(40):
            for i in range(248):
                g.do(MoveUnit("va4", 10.0 + (i % 50), 30.0 - turn * 0.25))
                n += 1
            g.do(EndTurn())
            g.do(EndTurn())
            n += 2
        expected = g.battle
    assert n == 10_000
    from storage import journal

    parsed = []
    original = journal.Event.from_row.__func__
    monkeypatch.setattr(
        journal.Event, "from_row", classmethod(lambda cls, row: parsed.append(1) or original(cls, row))
    )
    g = Game.open(p)
    try:
        assert g.last_seq == 10_000 and g.battle.turn == 41
        assert same_state(g.battle, expected)
    finally:
        g.close()
    assert len(parsed) <= 2, f"{len(parsed)} journal entries were read to open the game"


def test_combat_actions_are_journalled_and_replayed_with_their_recorded_dice(tmp_path, demo_battle):
    from rules.shooting.shoot import Shoot

    p = tmp_path / "g.sqlite"
    with Game.create(p, demo_battle) as g:
        g.do(NextPhase())
        g.do(MoveUnit("va4", 34.0, 19.0))
        g.do(NextPhase())  # Confederate Phase 3
        ev = g.do(Shoot("va4", "batb4us", 5.0), TableDice([6, 2, 4, 6, 3]))
        assert [r.dice for r in ev.rolls] == [(6, 2, 4, 6, 3)]
        bty = g.battle.unit("batb4us")
        assert (bty.stands, bty.micro_hits, Marker.DISORDER in bty.markers) == (2, 1, True)
        assert {Marker.FIRED, Marker.SMOKE} <= g.battle.unit("va4").markers
        seeded = g.do(Shoot("va5", "bkn14", 9.0))  # the game's own dice
        assert seeded.dice_after > seeded.dice_before
        end = g.do(EndTurn())
        assert not {Marker.FIRED, Marker.SMOKE} & g.battle.unit("va4").markers
        assert "4th Virginia: Fired marker removed at the end of its turn (club default)" in [
            s.text for s in end.steps
        ]
        final = g.battle
    with Game.open(p) as g:
        assert g.battle == final
        assert verify(g) == 6
        g.undo_to(3)
        assert g.battle.unit("batb4us").stands == 3
        g.redo()
        assert g.battle.unit("batb4us").stands == 2


def test_an_action_survives_the_program_being_killed_right_after_it(tmp_path):
    import subprocess
    import sys

    p = tmp_path / "g.sqlite"
    code = (
        "import os, sys\n"
        "from rules.actions import MoveUnit\n"
        "from storage.game import Game\n"
        "from storage.scenario import load_demo\n"
        "g = Game.create(sys.argv[1], load_demo())\n"
        "g.do(MoveUnit('va4', 30.0, 30.0))\n"
        "os._exit(0)  # no close, no checkpoint: as if the power went\n"
    )
    r = subprocess.run([sys.executable, "-c", code, str(p)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    with Game.open(p) as g:
        assert g.last_seq == 1 and g.battle.unit("va4").x == 30.0


def test_a_save_changed_by_another_copy_is_not_overwritten(tmp_path, small_battle):
    p = tmp_path / "g.sqlite"
    Game.create(p, small_battle).close()
    first, second = Game.open(p), Game.open(p)
    try:
        first.do(MoveUnit("wis2", 20, 30))
        drawn = second.dice.drawn
        with pytest.raises(SaveFileError, match="changed by another copy of Brigadier"):
            second.do(DisciplineCheck("wis2"))
        assert second.dice.drawn == drawn and second.last_seq == 0
        with pytest.raises(SaveFileError, match="changed by another copy"):
            second.do(NextPhase())
    finally:
        first.close()
        second.close()
    with Game.open(p) as g:
        assert g.last_seq == 1 and g.battle.unit("wis2").y == 30


def test_undo_to_takes_back_all_or_nothing(tmp_path, small_battle):
    p = tmp_path / "g.sqlite"
    with Game.create(p, small_battle) as g:
        for y in (34, 32, 30, 28):
            g.do(MoveUnit("wis2", 20, y))
    with Game.open(p) as g:
        battle = g.battle
        conn = sqlite3.connect(p)  # entry 3 is damaged behind the game's back
        conn.execute("UPDATE journal SET changes = '{broken' WHERE seq = 3")
        conn.commit()
        conn.close()
        with pytest.raises(SaveFileError, match="journal entry 3 is damaged"):
            g.undo_to(1)
        assert g.last_seq == 4 and g.battle is battle and not g.can_redo
        assert journal_rows(p) == 4


def test_events_are_read_once_and_kept(game):
    for y in (34, 32):
        game.do(MoveUnit("wis2", 20, y))
    first = game.events()
    assert game.events()[0] is first[0]
    game.undo()
    assert [e.seq for e in game.events()] == [1]


def test_a_battle_without_a_first_side_reopens_as_it_was_created(tmp_path, small_battle):
    from dataclasses import replace

    p = tmp_path / "g.sqlite"
    with Game.create(p, replace(small_battle, first_side="")) as g:
        created = g.battle
        g.do(EndTurn())
    with Game.open(p) as g:
        assert g.scenario == created and g.scenario.first_side == ""  # the first side listed moves first
        g.undo()
        assert g.battle == created


def test_a_battle_with_values_that_cannot_be_saved_is_refused(tmp_path, small_battle):
    from dataclasses import replace

    with pytest.raises(SaveFileError, match="the battle cannot be saved"):
        Game.create(tmp_path / "g.sqlite", replace(small_battle, extra={"odd": float("nan")}))
    assert not (tmp_path / "g.sqlite").exists()


def test_a_refused_damaged_save_is_left_as_it_was_without_wal_and_shm_files(tmp_path, small_battle):
    good = tmp_path / "good.sqlite"
    with Game.create(good, small_battle) as g:
        g.do(NextPhase())
    data = bytearray(good.read_bytes())
    data[4096 * 2 : 4096 * 3] = b"\xff" * 4096  # a page of a WAL-mode save overwritten
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(bytes(data))
    before = fingerprint(bad)
    with pytest.raises(SaveFileError, match="damaged"):
        Game.open(bad)
    assert fingerprint(bad) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.sqlite", "good.sqlite"]


def test_forget_redo_leaves_nothing_to_redo_in_the_game_or_the_file(tmp_path, small_battle):
    p = tmp_path / "g.sqlite"
    with Game.create(p, small_battle) as g:
        g.do(NextPhase())
        g.do(NextPhase())
        g.undo()
        assert g.can_redo and len(g.redo_events()) == 1
        g.forget_redo()
        assert not g.can_redo and g.redo_events() == [] and g.redo() is None
        assert g.last_seq == 1 and g.battle.phase == Phase.MANEUVER
        g.forget_redo()  # nothing to forget: nothing happens
    with Game.open(p) as again:
        assert not again.can_redo and again.last_seq == 1


def test_after_a_checkpoint_the_sqlite_file_alone_holds_the_whole_game(tmp_path, small_battle):
    import shutil

    p = tmp_path / "g.sqlite"
    alone = tmp_path / "copy"
    alone.mkdir()
    with Game.create(p, small_battle) as g:
        g.do(NextPhase())
        g.do(NextPhase())
        shutil.copy(p, alone / "before.sqlite")  # the file without its -wal
        g.checkpoint()
        shutil.copy(p, alone / "after.sqlite")
        assert Path(str(p) + "-wal").stat().st_size == 0
        g.do(NextPhase())  # and play goes on
    with pytest.raises(SaveFileError):
        Game.open(alone / "before.sqlite")
    with Game.open(alone / "after.sqlite") as copy:
        assert copy.last_seq == 2 and copy.battle.phase == Phase.RANGED
    with Game.open(p) as again:
        assert again.last_seq == 3
    Game.new(tmp_path / "unwritten.sqlite", small_battle).checkpoint()  # nothing to do
    assert not (tmp_path / "unwritten.sqlite").exists()


# -- steps of Undo kept in the save ------------------------------------------------------------


def test_a_step_of_several_entries_is_kept_in_the_save(tmp_path, small_battle):
    p = tmp_path / "g.sqlite"
    with Game.create(p, small_battle) as g:
        g.do(NextPhase())
        for _ in range(3):
            g.do(MoveUnit(unit_id="wis2", x=g.battle.unit("wis2").x, y=g.battle.unit("wis2").y - 0.5))
        g.mark_step([2, 3, 4])
        with pytest.raises(RulesError, match="not consecutive"):
            g.mark_step([1, 3])
        with pytest.raises(RulesError, match="not consecutive"):
            g.mark_step([4, 5])
    with Game.open(p) as g:
        assert [g.step_of(q) for q in (1, 2, 3, 4)] == [(1, 1), (2, 4), (2, 4), (2, 4)]
        g.undo_to(1)
        assert g.step_of(3) == (2, 4)  # kept while the entries wait to be redone
        g.do(NextPhase())  # a new action forgets them, and how they were grouped
        assert [g.step_of(q) for q in (2, 3, 4)] == [(2, 2), (3, 3), (4, 4)]


def test_a_save_of_format_1_is_brought_up_to_date_when_opened(tmp_path, small_battle):
    p = tmp_path / "old.sqlite"
    with Game.create(p, small_battle) as g:
        g.do(NextPhase())
    conn = sqlite3.connect(p)
    with conn:
        as_format(conn, 1)
    conn.close()
    with Game.open(p) as g:
        assert g.meta["schema_version"] == str(schema.SCHEMA_VERSION) == "6"
        assert verify(g) == 1
        assert g.last_seq == 1 and g.step_of(1) == (1, 1)
        g.do(NextPhase())
        g.do(NextPhase())
        g.mark_step([2, 3])
        assert g.step_of(2) == (2, 3)


def test_a_save_of_format_2_without_its_steps_table_is_refused(tmp_path, small_battle):
    p = tmp_path / "g.sqlite"
    Game.create(p, small_battle).close()
    conn = sqlite3.connect(p)
    with conn:
        conn.execute("DROP TABLE steps")
    conn.close()
    before = fingerprint(p)
    with pytest.raises(SaveFileError, match="table\\(s\\) steps missing"):
        Game.open(p)
    assert fingerprint(p) == before
