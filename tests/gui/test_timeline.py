"""The timeline under the map: any moment of the game seen again, read only, without writing to
the save; the way back to now; and the timeline following undo, redo and another copy's change."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from rules.actions import MoveUnit
from storage.game import Game, same_state
from tests.sight_game import sight_game


def _changes(game) -> int:
    """The rows the game's connection has written since it was opened."""
    return game.conn.total_changes


@pytest.fixture
def played(tmp_path, window_on, answer):
    answer.record_messages()
    g = sight_game(tmp_path)
    win = window_on(g, (1366, 768))
    return win, g, answer


def _unit_pos(win, uid: str) -> tuple[float, float]:
    it = win.canvas.scene.units[uid]
    return round(it.unit.x, 3), round(it.unit.y, 3)


def test_looking_back_shows_that_moment_everywhere_and_writes_nothing(played, qtbot):
    win, g, _ = played
    last = g.last_seq
    written = _changes(g)
    bar = win.timeline.bar
    assert bar.timeline.last == last and bar.slider.maximum() == last
    bar.seek(1)  # before the Virginians advanced
    then = g.state_at(1)
    assert win.controller.looking_back == 1
    assert same_state(win.controller.battle, then)
    assert (
        _unit_pos(win, "va4")
        == (then.unit("va4").x, then.unit("va4").y)
        != (g.battle.unit("va4").x, g.battle.unit("va4").y)
    )
    # the inspector reads the same moment, and offers nothing to change
    win.controller.select(["va4"])
    assert win.inspector.unit_id == "va4" and win.inspector.y.value() == pytest.approx(then.unit("va4").y)
    assert not win.inspector.stands.isEnabled() and not win.inspector.override_button.isVisible()
    assert "looking back" in win.timeline.banner.text() and win.timeline.banner.isVisible()
    assert "after entry 1" in win.timeline.banner.text() and "Turn 1" in win.timeline.banner.text()
    assert win.windowTitle().startswith("Looking back: ")
    assert "Phase 2" in win.turn_bar.phase.text()
    assert _changes(g) == written and g.last_seq == last
    # the battle log chooses the moment's entry once the timeline rests on it
    qtbot.waitUntil(lambda: win.log.selected_seq() == 1, timeout=2000)
    # back to now: Esc
    assert win.timeline.back_action.isEnabled()
    win.timeline.back_action.trigger()
    assert win.controller.looking_back is None and not win.timeline.banner.isVisible()
    assert same_state(win.controller.battle, g.battle)
    assert _unit_pos(win, "va4") == (g.battle.unit("va4").x, g.battle.unit("va4").y)
    assert (
        win.inspector.y.value() == pytest.approx(g.battle.unit("va4").y) and win.inspector.stands.isEnabled()
    )
    assert _changes(g) == written


def test_every_edit_is_refused_while_looking_back(played, qtbot):
    win, g, answer = played
    last = g.last_seq
    win.timeline.bar.seek(3)
    c = win.controller
    u = c.battle.unit("ind19")
    assert c.run(MoveUnit("ind19", u.x, u.y - 1)) is None
    assert c.undo() == [] and c.redo() == [] and c.undo_to(1) == []
    assert answer.messages and all("looking back" in m[1] for m in answer.messages)
    assert g.last_seq == last and not win.undo_action.isEnabled()
    for a in win._play_actions():
        assert not a.isEnabled()
    assert not win.canvas.edit_terrain.isEnabled()
    item = win.canvas.scene.units["ind19"]
    from PySide6.QtWidgets import QGraphicsItem

    assert not item.flags() & QGraphicsItem.GraphicsItemFlag.ItemIsMovable
    win.timeline.bar.now()
    assert win.undo_action.isEnabled() and win.next_phase_action.isEnabled()
    assert item.flags() & QGraphicsItem.GraphicsItemFlag.ItemIsMovable


def test_steps_and_phase_marks_move_through_the_journal(played, qtbot):
    win, g, _ = played
    bar = win.timeline.bar
    bar.seek(0)
    assert win.controller.looking_back == 0 and bar.label.text().endswith("as the game began")
    bar.step(1)
    assert win.controller.looking_back == 1
    bar.phase_after()
    tl = bar.timeline
    assert win.controller.looking_back == tl.mark_after(1)
    m = tl.moment(win.controller.looking_back)
    b = win.controller.battle
    assert (b.turn, b.active_side, b.phase.value) == (m.turn, m.side, m.phase)
    bar.seek(g.last_seq)  # the last entry is now
    assert win.controller.looking_back is None


def test_a_drag_shows_the_last_moment_asked_for(played, qtbot, monkeypatch):
    win, g, _ = played
    bar = win.timeline.bar
    seen = []
    real = win.controller.look_back
    monkeypatch.setattr(win.controller, "look_back", lambda seq: seen.append(seq) or real(seq))
    bar.slider.setSliderDown(True)
    for v in (1, 2, 3, 4, 5, 2):
        bar.slider.setValue(v)
    QApplication.processEvents()
    bar.slider.setSliderDown(False)
    # asked many times between two paints, the window shows the last one asked for
    assert seen == [2]
    assert win.controller.looking_back == 2 and same_state(win.controller.battle, g.state_at(2))


def test_play_runs_to_now(played, qtbot, monkeypatch):
    win, g, _ = played
    bar = win.timeline.bar
    bar.seek(g.last_seq - 2)
    monkeypatch.setattr(bar._play_timer, "interval", lambda: 1)
    bar._play_timer.setInterval(5)
    bar.play()
    assert bar.playing
    qtbot.waitUntil(lambda: not bar.playing, timeout=3000)
    assert win.controller.looking_back is None


def test_the_plots_cursor_stands_at_the_moment(played, qtbot):
    win, g, _ = played
    plots = win.plots
    win.timeline.bar.seek(2)
    tl = win.timeline.bar.timeline
    turn = tl.moment(2).turn
    assert plots.cursor_x is not None and turn - 1 <= plots.cursor_x <= turn
    assert set(plots._cursors) == set(plots.plots)
    assert all(line.value() == plots.cursor_x for line in plots._cursors.values())
    on_screen = [line for k, line in plots._cursors.items() if plots.plots[k].scene() is not None]
    assert on_screen and all(line.isVisible() for line in on_screen)
    win.timeline.bar.now()
    assert plots.cursor_x is None and not any(line.isVisible() for line in plots._cursors.values())


def test_the_timeline_follows_undo_redo_and_another_copys_change(played, qtbot, tmp_path):
    win, g, _ = played
    bar = win.timeline.bar
    last = g.last_seq
    win.controller.undo()
    # the bar follows a moment after the step is painted
    qtbot.waitUntil(lambda: bar.timeline.last == g.last_seq < last, timeout=2000)
    assert bar.slider.maximum() == g.last_seq
    win.controller.redo()
    win.timeline.catch_up()
    assert bar.timeline.last == last
    bar.seek(2)
    # another copy plays on: the window reads the game again, and the timeline with it
    other = Game.open(g.path)
    u = other.battle.unit("ind19")
    other.do(MoveUnit("ind19", u.x, u.y - 0.5, mode="place"))
    other.close()
    assert win.controller.reload()
    assert win.controller.looking_back is None and not win.timeline.banner.isVisible()
    assert win.timeline.bar.timeline.last == last + 1
    win.timeline.bar.seek(last)
    assert same_state(win.controller.battle, win.controller.game.state_at(last))


def test_the_checklist_stays_the_games_now_while_looking_back(played, qtbot):
    win, g, _ = played
    win.docks["checklist"].raise_()
    qtbot.waitUntil(lambda: win.checklist.up_to_date, timeout=3000)
    win.checklist.finish()
    rows, heading = win.checklist.rows(), win.checklist.heading.text()
    assert rows and "Union" in heading
    win.timeline.bar.seek(1)  # the Confederate Phase 2: other items than the Union's Phase 3
    QApplication.processEvents()
    qtbot.wait(300)
    assert win.checklist.rows() == rows and win.checklist.heading.text() == heading
    win.timeline.bar.now()
    qtbot.waitUntil(lambda: win.checklist.up_to_date, timeout=3000)
    assert win.checklist.rows() == rows


def test_the_battle_logs_menu_looks_back_to_an_entry(played, qtbot, monkeypatch):
    from PySide6.QtWidgets import QMenu

    win, g, _ = played
    log = win.log
    log.select_seq(2)
    item = log.tree.currentItem()
    log.tree.scrollToItem(item)
    menus = []
    monkeypatch.setattr(QMenu, "popup", lambda self, *a: menus.append(self))
    log._context_menu(log.tree.visualItemRect(item).center())
    look = next(a for a in menus[0].actions() if a.text() == "Look back to here")
    look.trigger()
    assert win.controller.looking_back == 2 and same_state(win.controller.battle, g.state_at(2))
