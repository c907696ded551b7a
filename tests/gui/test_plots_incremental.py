"""The Plots dock keeps up with the game by reading only what changed, and shows what a full
reading of the journal shows: the same series, drawn the same, after actions, undo and redo."""

from __future__ import annotations

import pytest

from gui.plot_series import BattleCourse, CourseData, Series
from gui.plots import PlotsWidget
from gui.report import turn_end_states, unit_losses_in
from rules.actions import EndTurn, MoveUnit, NextPhase, Override, ReservePip


def reference(game) -> CourseData:
    """The course of the battle computed the plain way: every turn's end state from the journal,
    the stands counted from each state's order of battle, the losses from each event."""
    events = game.events()
    top = max([game.battle.turn, *(e.turn for e in events)])
    states = turn_end_states(game, top, events)
    lost = [{} for _ in states]
    for e in events:
        for uid, (n, _restored) in unit_losses_in(e.changes).items():
            before, after = e.changes.units[uid]
            side = (after or before)["side"]
            lost[e.turn][side] = lost[e.turn].get(side, 0) + n
    end = states[-1]
    colours = {s.id: s.colour for s in end.oob.sides}
    sides = tuple(
        Series(s.id, s.name, s.colour, tuple(float(b.oob.stands(side=s.id)) for b in states))
        for s in end.oob.sides
    )
    brigades = tuple(
        Series(
            br.id,
            br.name,
            colours[br.side],
            tuple(float(b.oob.stands(brigade=br.id)) if br.id in b.brigades else None for b in states),
        )
        for br in end.brigades.values()
    )
    losses = tuple(
        Series(s.id, s.name, s.colour, tuple(float(x.get(s.id, 0)) for x in lost)) for s in end.oob.sides
    )
    names = {}
    for b in states:
        for u in b.units.values():
            names[u.id] = (u.name, colours[u.side])
    units = {
        uid: Series(uid, n, c, tuple(float(b.units[uid].stands) if uid in b.units else None for b in states))
        for uid, (n, c) in names.items()
    }
    markers = {
        uid: tuple(
            tuple(m.label for m in sorted(b.units[uid].markers)) if uid in b.units else () for b in states
        )
        for uid in names
    }
    return CourseData(tuple(range(len(states))), sides, brigades, losses, units, markers)


def drawn(w: PlotsWidget) -> dict[str, list[tuple]]:
    """What each chart shows: each item's name and points (lines) or bars (once the charts have
    followed the last step)."""
    w.catch_up()
    out: dict[str, list[tuple]] = {}
    for key in ("sides", "brigades", "unit"):
        out[key] = []
        for it in w._items[key]:
            if hasattr(it, "getData"):
                xs, ys = it.getData()
                xs = [] if xs is None else [float(x) for x in xs]
                ys = [] if ys is None else [float(y) for y in ys]
                out[key].append((it.name(), xs, ys, it.opts["pen"].color().name()))
            else:  # a marker's label
                out[key].append((it.textItem.toPlainText(), float(it.pos().x()), float(it.pos().y())))
    out["losses"] = [
        (b.opts["name"], [float(x) for x in b.opts["x"]], [float(h) for h in b.opts["height"]])
        for b in w._items["losses"]
    ]
    for key, p in w.plots.items():
        out[key + " range"] = [tuple(round(v, 6) for v in r) for r in p.viewRange()]
    out["unit title"] = [w.plots["unit"].titleLabel.text]
    return out


def fresh(qtbot, controller) -> PlotsWidget:
    """A Plots widget shown on the controller's game, as the dock shows it."""
    w = PlotsWidget(controller)
    qtbot.addWidget(w)
    w.resize(1400, 380)
    w.show()
    qtbot.waitExposed(w)
    return w


@pytest.fixture
def plots(qtbot, controller):
    return fresh(qtbot, controller)


def steps(c):
    """Actions, undo and redo over three turns, with losses, markers, a unit brought back, an
    undo across the end of a turn, an undo to an event two turns back and an umpire's ruling
    that sets the turn back."""
    yield lambda: c.run(Override("unit", "wis2", {"stands": 3, "markers": ["disorder"]}, "volley"))
    yield lambda: c.run(MoveUnit(unit_id="ind19", x=31.0, y=35.0))
    yield lambda: c.run(NextPhase())
    yield lambda: c.run(EndTurn())
    yield lambda: c.run(Override("unit", "va4", {"stands": 2}, "volley"))
    yield lambda: c.run(EndTurn())  # turn 2
    yield c.undo  # back across the end of turn 1
    yield c.redo
    yield lambda: c.run(ReservePip("iron"))
    yield lambda: c.run(Override("unit", "tx1", {"stands": 3}, "canister"))
    yield lambda: c.run(Override("unit", "tx1", {"stands": 5}, "stragglers"))  # not a loss
    yield lambda: c.run_step(
        [
            Override("unit", "wis2", {"stands": 2}, "volley"),
            Override("unit", "va27", {"stands": 1}, "volley"),
        ]
    )
    yield lambda: c.run(EndTurn())
    yield lambda: c.run(EndTurn())  # turn 3
    yield lambda: c.run(Override("unit", "ind19", {"stands": 1}, "canister"))
    yield c.undo
    yield c.undo  # back into turn 2
    yield c.redo
    yield lambda: c.undo_to(2)  # two turns back: turn 1, the Union's Phase 1
    yield c.redo
    yield c.redo
    yield lambda: c.run(Override("unit", "va27", {"markers": ["disorder", "fired"]}, "ruled"))
    yield lambda: c.run(Override("game", "game", {"turn": 4}, "the clock was behind"))
    yield lambda: c.run(Override("unit", "wis2", {"stands": 4}, "volley"))
    yield lambda: c.run(Override("game", "game", {"turn": 2}, "back again"))  # filed in turn 4
    yield lambda: c.run(Override("unit", "tx1", {"stands": 2}, "volley"))
    yield lambda: c.run(NextPhase())
    yield c.undo
    yield c.undo
    yield c.undo  # the ruling that set the turn back: turn 4 again
    yield c.undo
    yield c.undo  # the ruling that set the turn to 4: the charts end at turn 1 again


def test_after_every_step_the_series_are_those_of_a_full_reading(plots, controller, game):
    controller.select(["wis2"])
    n = 0
    for step in steps(controller):
        step()
        n += 1
        want = reference(game)
        assert plots.data == want, f"after step {n}"
        assert plots.data == BattleCourse().rebuild(game), f"after step {n}"
    assert n == 32
    assert plots.data.turns == (0, 1)  # the rulings undone, the game is in turn 1 again


def test_after_every_step_the_charts_show_what_a_fresh_dock_draws(plots, controller, qtbot):
    controller.select(["wis2"])
    for n, step in enumerate(steps(controller), 1):
        step()
        if n % 4 and n < 24:
            continue  # a fresh dock every few steps: each is a full reading
        other = fresh(qtbot, controller)
        assert drawn(plots) == drawn(other), f"after step {n}"
        other.close()


def test_a_long_games_lines_take_each_change_as_a_fresh_dock_draws_them(plots, controller, qtbot):
    """Past the turns whose lines have a dot at each turn, a line that changes takes its new values
    in place: what it shows is what a fresh dock draws, after a loss, its undo and its redo."""
    from gui.plots import DOTTED_TURNS

    controller.select(["wis2"])
    for _turn in range(DOTTED_TURNS + 1):
        controller.run(EndTurn())
        controller.run(EndTurn())
    assert len(plots.data.turns) > DOTTED_TURNS

    def same_as_fresh(after: str) -> None:
        other = fresh(qtbot, controller)
        assert drawn(plots) == drawn(other), after
        other.close()

    same_as_fresh("the long game")
    lines = list(plots._items["sides"])
    controller.run(Override("unit", "wis2", {"stands": 3}, "volley"))
    assert plots._items["sides"] == lines  # the same lines, with new values
    same_as_fresh("a loss")
    controller.undo()
    same_as_fresh("its undo")
    controller.redo()
    same_as_fresh("its redo")
    controller.run(Override("unit", "va4", {"stands": 2}, "volley"))
    same_as_fresh("another side's loss")


def test_an_action_late_in_a_long_game_reads_its_turn_only(plots, controller):
    for _turn in range(12):
        controller.run(Override("unit", "wis2", {"x": 21.0}, "nudged"))
        plots.catch_up()
        controller.run(EndTurn())
        plots.catch_up()
        controller.run(EndTurn())
        plots.catch_up()
    assert plots.data.turns == tuple(range(14))
    reads = plots.course.reads
    controller.run(Override("unit", "va4", {"stands": 3}, "volley"))
    plots.catch_up()
    assert plots.course.reads == reads + 1
    controller.run(NextPhase())  # a new phase changes no turn: the current turn is read
    plots.catch_up()
    assert plots.course.reads == reads + 2
    controller.run(EndTurn())  # the Union's half: still turn 13
    plots.catch_up()
    controller.run(EndTurn())  # turn 14 begins: turn 13 is read, and the new turn (no entries yet)
    plots.catch_up()
    assert plots.course.reads == reads + 5
    controller.undo()  # back across the end of turn 13: only turn 13 is read
    plots.catch_up()
    assert plots.course.reads == reads + 6
    assert plots.data == reference(controller.game)
    # a ruling that sets the turn back is filed in turn 13: turns 5 to 13 are read again, and
    # the charts still run to turn 13, where entries stand
    controller.run(Override("game", "game", {"turn": 5}, "the clock was wrong"))
    plots.catch_up()
    assert plots.course.reads == reads + 6 + 9
    assert plots.data.turns == tuple(range(14))
    assert plots.data == reference(controller.game)
    # an action in turn 5 now comes after the entries of turns 6 to 13: they are read with it
    controller.run(Override("unit", "va4", {"stands": 2}, "volley"))
    plots.catch_up()
    assert plots.course.reads == reads + 6 + 9 + 9
    assert plots.data == reference(controller.game)


def test_entries_filed_after_the_turns_kept_are_read_with_them(plots, controller, game):
    controller.run(Override("unit", "wis2", {"stands": 4}, "volley"))
    plots.catch_up()
    # changes made on the game behind the dock's back: an entry filed in turn 9, past the turns
    # the dock keeps (the turn is 3 again after it)
    game.do(Override("game", "game", {"turn": 9}, "ruled"))
    game.do(Override("game", "game", {"turn": 3}, "ruled again"))
    reads = plots.course.reads
    assert plots.course.update(game) == reference(game)
    assert plots.course.reads == reads + 9  # turns 1 to 9; the start is kept
    assert plots.course.update(game).turns == tuple(range(10))


def test_a_journal_that_does_not_add_up_to_what_is_kept_is_read_whole(plots, controller, game):
    controller.run(Override("unit", "wis2", {"stands": 4}, "volley"))
    plots.catch_up()
    controller.run(EndTurn())
    plots.catch_up()
    controller.run(EndTurn())  # turn 2: turn 1 is kept
    plots.catch_up()
    # behind the dock's back, an entry filed in turn 1 again, kept as it was
    game.do(Override("game", "game", {"turn": 1}, "ruled"))
    game.do(Override("unit", "va4", {"stands": 2}, "volley"))
    game.do(Override("game", "game", {"turn": 2}, "ruled again"))
    reads = plots.course.reads
    assert plots.course.update(game) == reference(game)
    assert plots.course.reads == reads + 3  # every turn, 0 to 2


def test_a_change_redraws_only_the_series_that_changed(plots, controller, monkeypatch):
    controller.run(NextPhase())
    plots.catch_up()
    before = {k: list(v) for k, v in plots._items.items() if k != "unit"}
    set_data = []

    def spy(item):
        real = item.setData

        def set_data_of(*args, **kwargs):
            set_data.append(item.name())
            return real(*args, **kwargs)

        return set_data_of

    for key in ("sides", "brigades"):
        for it in plots._items[key]:
            monkeypatch.setattr(it, "setData", spy(it), raising=False)
    controller.run(Override("unit", "wis2", {"stands": 4}, "volley"))  # the Union and the Iron Brigade
    plots.catch_up()
    assert sorted(set_data) == ["Iron Brigade", "Union"]
    assert {k: list(v) for k, v in plots._items.items() if k != "unit"} == before  # no item made anew
    set_data.clear()
    controller.run(Override("unit", "wis2", {"x": 21.0}, "nudged"))  # no stands change: nothing redrawn
    plots.catch_up()
    assert set_data == []


def test_a_hidden_dock_keeps_up_and_draws_everything_when_shown(qtbot, controller, game):
    w = PlotsWidget(controller)
    qtbot.addWidget(w)
    w.resize(1400, 380)
    controller.run(Override("unit", "wis2", {"stands": 4}, "volley"))
    controller.run(EndTurn())
    controller.run(EndTurn())
    assert w._stale and w.data == reference(game)
    w.show()
    qtbot.waitExposed(w)
    assert not w._stale
    assert drawn(w) == drawn(fresh(qtbot, controller))


def test_a_turn_ended_or_its_end_undone_keeps_the_turns_before_it_put_together(
    plots, controller, monkeypatch
):
    """The turns before the current one are put together once: a turn ended adds one to them, the
    undo of an End turn takes one off, and neither puts every turn together again."""
    import gui.plot_series as ps

    for _turn in range(8):
        controller.run(Override("unit", "wis2", {"x": 21.0 if _turn % 2 else 20.5}, "nudged"))
        controller.run(EndTurn())
        controller.run(EndTurn())
    whole: list[int] = []
    real = ps._Prefix._whole.__func__

    def counted(cls, cols, losses):
        whole.append(len(cols))  # every turn put together
        return real(cls, cols, losses)

    monkeypatch.setattr(ps._Prefix, "_whole", classmethod(counted))
    controller.run(Override("unit", "va4", {"stands": 3}, "volley"))
    controller.run(EndTurn())
    controller.run(EndTurn())  # a turn ended: one more turn before the current one
    assert plots.data == reference(controller.game)
    controller.undo()  # its end undone: one fewer
    assert plots.data == reference(controller.game)
    controller.redo()
    assert plots.data == reference(controller.game)
    assert whole == []


def test_a_short_games_lines_have_a_dot_at_each_turn_and_crossing_the_limit_makes_no_line_again(
    plots, controller
):
    """Up to DOTTED_TURNS turns every line has a dot at each turn, in its colour; past them none;
    an undo back under them brings the dots back. The lines themselves are the same items all
    along (a game growing past the limit, or undone back under it, draws none of them again)."""
    from gui.plots import DOTTED_TURNS

    def expected(key: str) -> list[tuple[float, float, str]]:
        series = plots.data.sides if key == "sides" else plots.data.brigades
        return sorted(
            (float(t), float(v), s.colour.lower() if key == "sides" else None)
            for s in series
            for t, v in zip(plots.data.turns, s.values)
            if v is not None
        )

    def shown(key: str) -> list[tuple]:
        return sorted((x, y, c.lower() if key == "sides" else None) for x, y, c in plots.dots(key))

    controller.run(Override("unit", "wis2", {"stands": 3}, "volley"))
    assert shown("sides") == expected("sides") and shown("brigades") == expected("brigades")
    assert len(shown("sides")) == 2 * len(plots.data.turns)
    lines = {k: list(plots._items[k]) for k in ("sides", "brigades")}
    for _turn in range(DOTTED_TURNS):
        controller.run(EndTurn())
        controller.run(EndTurn())
    assert len(plots.data.turns) > DOTTED_TURNS
    assert plots.dots("sides") == [] and plots.dots("brigades") == []
    while len(plots.data.turns) > DOTTED_TURNS:  # back under the limit
        controller.undo()
    assert shown("sides") == expected("sides") and shown("brigades") == expected("brigades")
    assert {k: list(plots._items[k]) for k in ("sides", "brigades")} == lines


def test_the_charts_follow_a_moment_after_the_step_and_read_quick_steps_together(plots, controller, qtbot):
    """The charts are brought up to date a moment after a step (the step's map and order of
    battle are painted first), by themselves; steps in quick succession (Redo held down) are read
    together, in one reading, with the same series as read step by step."""
    from gui.controller import FOLLOW_AFTER_MS

    plots.catch_up()
    reads = plots._course.reads
    controller.run(Override("unit", "wis2", {"stands": 3}, "volley"))
    controller.run(Override("unit", "va4", {"stands": 2}, "volley"))
    controller.undo()
    assert plots._course.reads == reads  # not yet: the window answers first
    qtbot.wait(FOLLOW_AFTER_MS * 3)
    assert not plots._pending and plots._course.reads == reads + 1  # by itself, once for the three
    assert plots._data == reference(controller.game)
    assert drawn(plots) == drawn(fresh(qtbot, controller))
