"""A turn's summary reads only that turn's entries, and finds the ends of the turns before it in
the journal's index of turns and in the totals kept with it: it is the summary that a reading of
the whole journal gives, with totals or without (a save of an earlier format), whatever turns
were skipped or played again."""

from __future__ import annotations

import sqlite3

import pytest

from reports.summary import build_turn_summary, turn_end_states
from rules.actions import EndTurn, NextPhase, Override
from rules.battle.events import diff
from storage.game import Game
from storage.journal import Event


def play(g: Game) -> None:
    g.do(Override("unit", "wis2", {"stands": 3, "markers": ["disorder"]}, "volley"))
    g.do(EndTurn())
    g.do(Override("unit", "va4", {"stands": 4}, "volley"))
    g.do(EndTurn())  # turn 2
    g.do(Override("unit", "ind19", {"stands": 4}, "volley"))
    g.do(Override("game", "game", {"turn": 5}, "the clock was behind"))  # turns 3 and 4 skipped
    g.do(Override("unit", "nc7", {"stands": 2}, "canister"))
    g.do(EndTurn())
    g.do(Override("game", "game", {"turn": 2}, "back again"))  # filed in turn 5
    g.do(Override("unit", "ga8", {"stands": 3}, "volley"))  # turn 2 again
    g.do(NextPhase())
    g.do(Override("unit", "wis2", {"stands": 2}, "canister"))
    g.undo()
    g.redo()


def reference(game: Game, turn: int) -> dict:
    """What the summary of ``turn`` says, from a reading of the whole journal."""
    events = game.events()
    states = turn_end_states(game, None, events)
    sides = [s.id for s in states[turn].oob.sides]
    return {
        "events": [e.seq for e in events if e.turn == turn],
        "strength": {s: tuple(b.oob.stands(side=s) for b in states[: turn + 1]) for s in sides},
        "start": states[turn - 1],
        "end": states[turn],
    }


def check(game: Game, turn: int) -> None:
    s = build_turn_summary(game, turn)
    want = reference(game, turn)
    assert [e.seq for e in s.events] == want["events"]
    assert dict(s.strength) == want["strength"]
    assert diff(s.battle_end, want["end"]).empty
    for loss in s.unit_losses:
        assert loss.stands_before == want["start"].units[loss.id].stands


@pytest.fixture
def game(tmp_path, demo_battle):
    g = Game.create(tmp_path / "g.sqlite", demo_battle, seed=3)
    play(g)
    yield g
    g.close()


def test_every_turn_is_summed_up_as_a_whole_reading_sums_it_up(game):
    top = max(game.battle.turn, *game.turn_index())
    assert top == 5
    for turn in range(1, top + 1):
        check(game, turn)


def test_without_totals_kept_the_summary_is_the_same(game):
    before = {t: build_turn_summary(game, t) for t in range(1, 6)}
    game.close()
    conn = sqlite3.connect(game.path)
    with conn:
        conn.execute("DELETE FROM turn_totals")
    conn.close()
    with Game.open(game.path) as g:
        for t in range(1, 6):
            assert build_turn_summary(g, t) == before[t]


def test_the_summary_of_turn_1_reads_only_its_entries(game, monkeypatch):
    for k in range(6):
        x = game.battle.unit("bkn14").x
        game.do(Override("unit", "bkn14", {"x": x + (0.5 if k % 2 else -0.5)}, "nudged"))
        game.do(EndTurn())
    game.close()
    read: list[int] = []
    real = Event.from_row.__func__

    def counting(cls, row):
        read.append(row["seq"])
        return real(cls, row)

    monkeypatch.setattr(Event, "from_row", classmethod(counting))
    with Game.open(game.path) as g:
        read.clear()  # opening applies the entries after the last snapshot
        build_turn_summary(g, 1)
        assert sorted(read) == [e.seq for e in g.events(turn=1)]
        skipped = g.skipped_turns()
        assert sorted(read) == [e.seq for e in g.events(turn=1)]  # the skipped turns found in SQL
        assert skipped == {}  # turns 3 and 4, skipped by the ruling, were played since


def test_the_turns_skipped_are_found_in_sql(game):
    assert game.skipped_turns() == {
        3: "event 6 (Umpire's override of the game: turn 2 → 5 (the clock was behind)) moved the game "
        "from turn 2 to turn 5",
        4: "event 6 (Umpire's override of the game: turn 2 → 5 (the clock was behind)) moved the game "
        "from turn 2 to turn 5",
    }
