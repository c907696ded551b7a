"""The totals of each turn kept with the entry that ended it: written with it, taken away by its
undo, put back by its redo, read again from the journal for a save of an earlier format, and
checked by ``verify``."""

from __future__ import annotations

import sqlite3

import pytest

from rules.actions import EndTurn, NextPhase, Override
from storage.errors import SaveFileError
from storage.game import Game
from storage.replay import verify
from storage.totals import TurnTotals, losses_by_side
from tests.storage.conftest import as_format


def expected(game: Game) -> dict[int, TurnTotals]:
    """The totals of every turn ended, worked out from the journal: for each entry that changed
    the turn, the battle after it and the entries filed in its turn up to it."""
    out = {}
    for ev in game.events():
        if "turn" in ev.changes.game:
            of_turn = [e for e in game.events(turn=ev.turn) if e.seq <= ev.seq]
            out[ev.seq] = TurnTotals.of(ev.turn, ev.seq, game.state_at(ev.seq), of_turn)
    return out


def play_two_turns(g: Game) -> None:
    g.do(Override("unit", "wis2", {"stands": 3, "markers": ["disorder"]}, "volley"))
    g.do(Override("unit", "va4", {"stands": 4}, "volley"))
    g.do(Override("unit", "va4", {"stands": 5}, "stragglers"))  # given back: not a loss undone
    g.do(EndTurn())
    g.do(Override("unit", "nc7", {"stands": 2}, "canister"))
    g.do(EndTurn())  # turn 2
    g.do(Override("unit", "ind19", {"stands": 3}, "volley"))
    g.do(EndTurn())
    g.do(EndTurn())  # turn 3


@pytest.fixture
def game(tmp_path, demo_battle):
    g = Game.create(tmp_path / "g.sqlite", demo_battle, seed=7)
    play_two_turns(g)
    yield g
    g.close()


def test_each_turn_ended_keeps_its_totals(game):
    kept = game.turn_totals()
    assert kept == expected(game)
    assert sorted(t.turn for t in kept.values()) == [1, 2]
    one, two = sorted(kept.values(), key=lambda t: t.turn)
    start = game.scenario
    assert one.units["wis2"].stands == 3 and one.units["wis2"].markers == ("disorder",)
    lost_wis2 = start.unit("wis2").stands - 3
    lost_va4 = start.unit("va4").stands - 4
    lost_nc7 = start.unit("nc7").stands - 2
    assert one.lost == {"union": lost_wis2, "csa": lost_va4 + lost_nc7}
    assert two.lost == {"union": start.unit("ind19").stands - 3}
    assert one.side_stands()["union"] == start.oob.stands(side="union") - lost_wis2
    assert one.brigades == tuple(start.brigades)


def test_undo_takes_the_totals_away_and_redo_puts_them_back(game):
    kept = game.turn_totals()
    game.undo()  # the end of turn 2
    assert sorted(t.turn for t in game.turn_totals().values()) == [1]
    game.redo()
    assert game.turn_totals() == kept
    game.undo_to(2)  # into turn 1: no turn has ended
    assert game.turn_totals() == {}
    game.redo_to(game.last_seq + game._redo_count)
    assert game.turn_totals() == kept == expected(game)


def test_a_step_that_ends_the_turn_counts_its_own_entries(game):
    game.do_step(
        [
            Override("unit", "bkn14", {"stands": 2}, "volley"),
            NextPhase(),
            Override("game", "game", {"turn": 5}, "the clock was behind"),
        ]
    )
    (t,) = [t for t in game.turn_totals().values() if t.turn == 3]
    assert t.lost == {"union": game.scenario.unit("bkn14").stands - 2}
    assert game.turn_totals() == expected(game)
    assert game.skipped_turns() == {
        4: f"event {game.last_seq} (Umpire's override of the game: turn 3 → 5 (the clock was behind)) "
        "moved the game from turn 3 to turn 5"
    }


def test_the_totals_are_read_when_the_game_is_opened_again(game):
    kept = game.turn_totals()
    game.close()
    with Game.open(game.path) as again:
        assert again.turn_totals() == kept
        assert verify(again) == again.last_seq


def test_a_save_of_format_3_gains_the_table_and_keeps_no_totals_of_its_turns(game):
    game.close()
    conn = sqlite3.connect(game.path)
    with conn:
        as_format(conn, 3)
    conn.close()
    with Game.open(game.path) as old:
        assert old.meta["schema_version"] == "6"
        assert old.turn_totals() == {}
        old.do(EndTurn())
        old.do(EndTurn())  # turn 4: its totals are kept from now on
        assert [t.turn for t in old.turn_totals().values()] == [3]
        assert old.turn_totals() == {s: t for s, t in expected(old).items() if t.turn == 3}


def test_verify_finds_totals_that_are_not_those_of_the_journal(game):
    path = game.path
    game.close()
    conn = sqlite3.connect(path)
    with conn:
        seq, text = conn.execute("SELECT seq, totals FROM turn_totals ORDER BY seq LIMIT 1").fetchone()
        conn.execute(
            "UPDATE turn_totals SET totals = ? WHERE seq = ?",
            (text.replace('"lost":{', '"lost":{"x":1,'), seq),
        )
    conn.close()
    with Game.open(path) as g, pytest.raises(SaveFileError, match="totals kept of turn 1"):
        verify(g)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE turn_totals SET totals = 'not json' WHERE seq = ?", (seq,))
    conn.close()
    with Game.open(path) as g:
        assert seq not in g.turn_totals()  # left out: the turn is read from the journal
        with pytest.raises(SaveFileError, match="cannot be read"):
            verify(g)


def test_losses_by_side_count_stands_lost_not_given_back(game):
    (one,) = [e for e in game.events(turn=1) if e.type == "override" and "va4" in e.changes.units][:1]
    assert losses_by_side([one]) == {"csa": game.scenario.unit("va4").stands - 4}
    assert losses_by_side(game.events(turn=1)) == next(
        t.lost for t in game.turn_totals().values() if t.turn == 1
    )
