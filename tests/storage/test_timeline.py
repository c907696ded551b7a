"""The timeline: the moment after each journal entry, told from the journal's index alone, and
the marks where a side's phase and a game turn began."""

from __future__ import annotations

from rules.actions import EndTurn, MoveUnit, NextPhase, Override
from storage.game import Game
from storage.timeline import Timeline


def _played(game: Game) -> None:
    """Two game turns: moves in Phase 2, an override in Phase 3, phases stepped and turns ended."""
    for _turn in range(2):
        for _ in range(2):  # each side's half
            game.do(NextPhase())  # Phase 2
            side = game.battle.active_side
            mover = next(u for u in game.battle.units.values() if u.side == side)
            game.do(MoveUnit(mover.id, mover.x + 0.5, mover.y))
            game.do(NextPhase())  # Phase 3
            hits = game.battle.unit(mover.id).micro_hits
            game.do(Override("unit", mover.id, {"micro_hits": (hits + 1) % 2}, "ruled so"))
            game.do(EndTurn())


def _moment(battle) -> tuple[int, str, str]:
    return battle.turn, str(battle.active_side), str(battle.phase.value)


def test_every_moment_is_the_battle_a_replay_gives_after_that_entry(game):
    _played(game)
    tl = Timeline.of(game)
    assert tl.last == game.last_seq > 10
    for seq in range(tl.last + 1):
        m = tl.moment(seq)
        assert (m.turn, m.side, m.phase) == _moment(game.state_at(seq)), seq


def test_the_marks_are_where_a_phase_or_a_turn_began_and_nowhere_else(game):
    _played(game)
    tl = Timeline.of(game)
    expected = [0]
    for seq in range(1, tl.last + 1):
        if _moment(game.state_at(seq)) != _moment(game.state_at(seq - 1)):
            expected.append(seq)
    assert [m.seq for m in tl.marks] == expected
    starts = [m for m in tl.marks if m.turn_start]
    assert [m.turn for m in starts] == [
        game.scenario.turn,
        *range(game.scenario.turn + 1, game.battle.turn + 1),
    ]
    for m in tl.marks:
        assert (m.turn, m.side, m.phase) == _moment(game.state_at(m.seq))
    # stepping from mark to mark
    second = tl.marks[2].seq
    assert tl.mark_before(second) == tl.marks[1].seq
    assert tl.mark_after(tl.marks[1].seq) == second
    assert tl.mark_after(tl.last) == tl.last and tl.mark_before(0) == 0


def test_end_of_turn_and_the_label(game):
    _played(game)
    tl = Timeline.of(game)
    first = game.scenario.turn
    end = tl.end_of_turn(first)
    assert game.state_at(end).turn == first + 1 and game.state_at(end - 1).turn == first
    assert tl.end_of_turn(game.battle.turn) == tl.last
    assert tl.end_of_turn(99) is None
    names = {s.id: s.name for s in game.battle.oob.sides}
    mover_phase = tl.moment(3)
    assert tl.label(3, names.get) == (
        f"Turn {mover_phase.turn}, {names[mover_phase.side]} Phase 3, after entry 3"
    )
    assert tl.label(0, names.get).endswith("as the game began")


def test_a_new_game_has_one_moment(game):
    tl = Timeline.of(game)
    assert tl.last == 0 and [m.seq for m in tl.marks] == [0]
    assert tl.moment(5).seq == 0


def test_a_sides_stops_are_the_ends_of_the_phases_told_without_entries(game):
    from storage.timeline import PhaseStops

    _played(game)
    tl = Timeline.of(game)
    stops = PhaseStops(tl)
    assert stops.seqs[0] == 0 and stops.seqs[-1] == tl.last and stops.last == len(stops.seqs) - 1
    for q in stops.seqs[1:-1]:  # the last entry of a phase: the next entry was taken in another
        here, then = tl.moment(q), tl.moment(q + 1)
        assert (here.turn, here.side, here.phase) != (then.turn, then.side, then.phase)
    names = {s.id: s.name for s in game.battle.oob.sides}
    for k in range(stops.last + 1):
        m = tl.moment(stops.seq_of(k))
        assert (stops.moment(k).turn, stops.moment(k).phase) == (m.turn, m.phase)
        assert stops.position_of(stops.seq_of(k)) == k
        assert "entry" not in stops.label(k, names.get)
    assert stops.label(0, names.get).endswith("as the game began")
    assert "the end of the" in stops.label(1, names.get)
    # an entry inside a phase is at the stop of the phase's end before it
    for q in range(stops.seqs[1], stops.seqs[2]):
        assert stops.position_of(q) == 1


def test_a_moment_next_to_one_kept_is_read_from_it(game, monkeypatch):
    """The timeline dragged an entry at a time: each moment is the one before it and one entry's
    changes, not the nearest snapshot replayed again; and always the battle a replay gives."""
    from storage import journal_reading
    from storage.game import same_state

    _played(game)
    states = [game.state_at(q) for q in range(game.last_seq + 1)]  # each read once, from a snapshot
    game._states.clear()
    applied: list[int] = []
    real = journal_reading.apply_entry
    monkeypatch.setattr(
        journal_reading, "apply_entry", lambda b, ch, n, *a: applied.append(n) or real(b, ch, n, *a)
    )
    first = 3
    game.state_at(first)
    applied.clear()
    for q in range(first + 1, game.last_seq):
        assert same_state(game.state_at(q), states[q])
    snaps = {r[0] for r in game.conn.execute("SELECT seq FROM snapshots")}
    # one entry each (a moment with a snapshot of its own is that snapshot)
    assert applied == [q for q in range(first + 1, game.last_seq) if q not in snaps]


def test_a_timeline_follows_steps_undo_and_redo_reading_only_what_they_added(game):
    _played(game)
    tl = Timeline.of(game)
    for step in ("undo", "undo", "redo", "do", "undo", "do"):
        if step == "undo":
            game.undo_step()
        elif step == "redo":
            game.redo_step()
        else:
            game.do(NextPhase())
        tl = tl.following(game)
        whole = Timeline.of(game)
        assert tl.last == whole.last and tl.marks == whole.marks
        assert [tl.moment(q) for q in range(tl.last + 1)] == [whole.moment(q) for q in range(whole.last + 1)]


def test_steps_read_together_keep_only_what_stayed(game):
    """An Undo and new steps between two reads (the bar follows a moment after): the entries after
    the fewest the journal had are read again, the others kept."""
    _played(game)
    tl = Timeline.of(game)
    game.undo_step()
    game.undo_step()
    fewest = game.last_seq
    game.do(NextPhase())
    game.do(EndTurn())
    game.do(NextPhase())
    after = tl.following(game, fewest)
    whole = Timeline.of(game)
    assert after.marks == whole.marks
    assert [after.moment(q) for q in range(after.last + 1)] == [
        whole.moment(q) for q in range(whole.last + 1)
    ]
