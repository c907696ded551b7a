"""What each side saw, kept with the journal (storage.sight_ledger): always what a full replay of
the journal with the rules of sight gives, through play, Undo, Redo, a new action after an Undo,
reopening, a hidden unit revealed and a damaged row; read from the nearest point, with no line of
sight measured again."""

from __future__ import annotations

import sqlite3

import pytest

from rules.actions import EndTurn, MoveUnit, NextPhase, Override
from rules.battle.events import apply
from rules.sight import spotting
from rules.sight.knowledge import SideKnowledge, event_as_seen
from rules.sight.spotting import SightTracker, sight_changed
from rules.tables import in_force
from storage import schema
from storage.game import Game
from storage.sightings import Sightings
from tests.sight_game import sight_game


def full_replay(game: Game) -> dict[int, dict]:
    """Each side's knowledge after every entry, and each entry as each side saw it, worked out
    from the start by measuring every entry's sight lines (no row of the save read)."""
    battle = game.scenario
    tracker = SightTracker(battle, in_force(game.base_tables, battle.table_values))
    sides = [s.id for s in battle.oob.sides]
    know = {s: SideKnowledge.start(s, tracker.seen(s)) for s in sides}
    out = {0: {"knowledge": dict(know)}}
    for ev in game.events():
        before = battle
        after = apply(before, ev.changes)
        if after.table_values != before.table_values:
            tracker.tables = in_force(game.base_tables, after.table_values)
            tracker.update(after, (), True)
        else:
            tracker.update(after, sight_changed(ev.changes.units), bool(ev.changes.terrain))
        seen_before = {s: know[s].seen for s in sides}
        know = {s: know[s].after(before, after, tracker.seen(s), ev.seq) for s in sides}
        as_seen = {
            s: event_as_seen(
                s,
                seq=ev.seq,
                turn=ev.turn,
                active_side=ev.side,
                phase=ev.phase,
                action=ev.action,
                summary=ev.summary,
                steps=ev.steps,
                changes=ev.changes,
                before=before,
                after=after,
                seen_before=seen_before[s],
                seen_after=know[s].seen,
            )
            for s in sides
        }
        out[ev.seq] = {"knowledge": dict(know), "as_seen": as_seen}
        battle = after
    return out


def assert_same_as_a_full_replay(game: Game) -> None:
    ref = full_replay(game)
    s = Sightings(game)
    s.update()
    for q, want in ref.items():
        for side, k in want["knowledge"].items():
            assert s.knowledge(side, q) == k, (q, side)
    for side in ("union", "csa"):
        assert s.events_as_seen(side) == [
            w["as_seen"][side] for q, w in ref.items() if q and w["as_seen"][side]
        ]


def sight_rows(game: Game) -> dict[int, tuple]:
    return {r[0]: r[1:] for r in game.conn.execute("SELECT seq, hash, seers, point FROM sight")}


def play_second_turn(g: Game) -> None:
    g.do(EndTurn())  # turn 2, the Confederates
    g.do(NextPhase())
    g.do(MoveUnit("nc28", 14.0, 19.0, mode="march"))
    g.do(Override("unit", "bkn14", {"x": 36.0, "y": 9.0}, "moved behind the ridge"))
    # the 28th North Carolina at the woods' edge: the Minnesota is revealed by the next action
    g.do(Override("unit", "nc28", {"y": 17.0}, "the regiment went on into the woods' edge"))
    g.do(NextPhase())


def test_a_whole_game_reads_the_same_as_a_full_replay_through_undo_redo_and_reopening(tmp_path):
    g = sight_game(tmp_path)
    play_second_turn(g)
    assert not g.battle.unit("mn1").hidden  # revealed
    assert "mn1" in Sightings.of(g).seen("csa")
    assert_same_as_a_full_replay(g)
    # every entry, and the start, has its row, each chained to its entry
    rows = sight_rows(g)
    assert sorted(rows) == list(range(g.last_seq + 1))
    hashes = dict(g.conn.execute("SELECT seq, hash FROM journal"))
    assert all(rows[q][0] == hashes[q] for q in hashes)
    g.undo_step()
    g.undo_step()
    assert_same_as_a_full_replay(g)
    g.redo_step()
    assert_same_as_a_full_replay(g)
    # a new action in place of the undone one: its row is its own, the undone one's is gone
    g.do(MoveUnit("va4", 36.0, 26.0, mode="march"))
    assert max(sight_rows(g)) == g.last_seq
    assert_same_as_a_full_replay(g)
    g.close()
    again = Game.open(tmp_path / "sight.sqlite")
    assert_same_as_a_full_replay(again)
    again.do(MoveUnit("va4", 34.0, 24.0, mode="march"))  # from the state read back, not measured
    assert_same_as_a_full_replay(again)


def _no_sight_line_measured(monkeypatch):
    def refuse(*_a, **_k):
        raise AssertionError("a sight line was measured")

    monkeypatch.setattr(spotting._Lines, "__init__", refuse)


def test_a_reopened_game_reads_what_each_side_saw_without_measuring_a_sight_line(tmp_path, monkeypatch):
    g = sight_game(tmp_path)
    play_second_turn(g)
    ref = full_replay(g)
    g.close()
    again = Game.open(tmp_path / "sight.sqlite")
    _no_sight_line_measured(monkeypatch)
    s = Sightings.of(again)
    s.update()
    for q in ref:
        assert s.knowledge("csa", q) == ref[q]["knowledge"]["csa"]
    assert s.events_as_seen("union")
    # Undo and Redo read it back too
    again.undo_step()
    assert s.knowledge("csa") == ref[again.last_seq]["knowledge"]["csa"]
    again.redo_step()
    assert s.knowledge("union") == ref[again.last_seq]["knowledge"]["union"]


def test_looking_back_reads_on_from_the_nearest_point_not_from_the_start(tmp_path, monkeypatch):
    monkeypatch.setattr(schema, "SNAPSHOT_EVERY", 3)
    g = sight_game(tmp_path)
    play_second_turn(g)
    points = [q for q, r in sight_rows(g).items() if r[2] is not None]
    assert 0 in points and 9 in points
    ref = full_replay(g)
    g.close()
    again = Game.open(tmp_path / "sight.sqlite")
    read: list[tuple[int, int]] = []
    entries = type(again.sight)._entries

    def counted(self, after, upto):
        read.append((after, upto))
        return entries(self, after, upto)

    monkeypatch.setattr(type(again.sight), "_entries", counted)
    q = max(q for q in ref if q not in points and q - 1 in points)
    assert q > 3
    assert again.sight.at(q).knowledge == ref[q]["knowledge"]
    assert read == [(q - 1, q)]  # from the point of the entry before: one entry read


def test_a_damaged_or_foreign_row_is_not_used_and_the_entry_is_measured_again(tmp_path):
    g = sight_game(tmp_path)
    play_second_turn(g)
    ref = full_replay(g)
    g.close()
    conn = sqlite3.connect(tmp_path / "sight.sqlite")
    with conn:
        conn.execute("UPDATE sight SET seers = 'not json' WHERE seq = 2")
        # a row that says the Wisconsin is seen, whose hash is not its entry's
        conn.execute("""UPDATE sight SET seers = '{"wis2":["va4"]}', hash = 'x' WHERE seq = 5""")
        conn.execute("UPDATE sight SET point = '{\"seers\": 3}' WHERE seq = 0")
    conn.close()
    again = Game.open(tmp_path / "sight.sqlite")
    for q in ref:
        assert again.sight.at(q).knowledge == ref[q]["knowledge"], q
    assert "wis2" not in Sightings.of(again).seen("csa")


def test_a_game_begun_before_the_rows_works_out_its_sight_from_the_journal(tmp_path):
    from tests.storage.conftest import as_old_format

    sight_game(tmp_path).close()
    as_old_format(tmp_path / "sight.sqlite", 5)
    old = Game.open(tmp_path / "sight.sqlite")
    assert old.meta["schema_version"] == "6"
    assert not old.sight.kept
    play_second_turn(old)
    assert sight_rows(old) == {}  # none written for a game that has none from its start
    assert_same_as_a_full_replay(old)


def test_a_refused_action_leaves_the_sight_as_it_was(tmp_path):
    g = sight_game(tmp_path)
    s = Sightings.of(g)
    before = s.knowledge("csa")
    rows = sight_rows(g)
    with pytest.raises(Exception):  # noqa: B017 (the rules refuse a unit that is not there)
        g.do(MoveUnit("nobody", 1.0, 1.0))
    assert sight_rows(g) == rows and s.knowledge("csa") == before


def test_a_new_game_looked_at_before_its_first_action_keeps_its_sight_from_then(tmp_path):
    """A player view opened on a new game (its file not written until its first action) does
    not leave the game without its rows."""
    from storage.scenario import load_demo

    g = Game.new(tmp_path / "new.sqlite", load_demo())
    assert not g.written
    Sightings.of(g).knowledge("csa")  # a view of it, before anything is on disk
    assert not g.sight.kept  # asked before the file is written: not yet, and not for good
    g.do(NextPhase())
    g.do(MoveUnit("va4", 34.0, 24.0, mode="march"))
    assert g.sight.kept
    assert sorted(sight_rows(g)) == [0, 1, 2]
    assert_same_as_a_full_replay(g)
