"""The battle log filters only the rows an action adds or an undo drops, and shows the same rows,
under every search, as a log that reads and filters the whole journal."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QTreeWidgetItem

from gui.log_view import LogView
from rules.actions import EndTurn, MoveUnit, NextPhase, Override, ReservePip, SpendPip

SEARCHES = ("", "wisconsin", "override", "rule-", "reason: volley", "  Texas ", "no such words")


def rows(log: LogView) -> list[tuple]:
    """Every row the tree shows, its depth, words, whether it is hidden and open (the rows under
    a closed or hidden heading are not shown: a turn is read when it is opened), and the count
    shown."""
    out: list[tuple] = []

    def walk(item: QTreeWidgetItem, depth: int) -> None:
        if item.isHidden():  # nothing under it is shown
            out.append((depth, item.text(0), True))
            return
        out.append((depth, item.text(0), False, item.isExpanded()))
        if item.isExpanded():
            for i in range(item.childCount()):
                walk(item.child(i), depth + 1)

    for i in range(log.tree.topLevelItemCount()):
        walk(log.tree.topLevelItem(i), 0)
    out.append(("count", log.count.text()))
    return out


def make_log(qtbot, controller, search: str = "") -> LogView:
    log = LogView(controller)
    qtbot.addWidget(log)
    log.search.setText(search)
    return log


def steps(c):
    """Actions of every kind over two turns, with undo, redo and an undo back into turn 1."""
    yield lambda: c.run(MoveUnit(unit_id="wis2", x=21.0, y=35.0))
    yield lambda: c.run(Override("unit", "wis2", {"stands": 4}, "volley"))
    yield lambda: c.run(ReservePip("iron"))
    yield c.undo
    yield c.redo
    yield lambda: c.run(NextPhase())
    yield lambda: c.run(MoveUnit(unit_id="ind19", x=31.0, y=35.0))
    yield lambda: c.run(EndTurn())  # the Confederate half of turn 1
    yield lambda: c.run(MoveUnit(unit_id="tx1", x=51.0, y=13.0))
    yield lambda: c.run(Override("unit", "tx1", {"stands": 5}, "volley"))
    yield lambda: c.run(SpendPip("texas", "a courier", False))
    yield lambda: c.run(EndTurn())  # turn 2
    yield lambda: c.run_step(
        [MoveUnit(unit_id="wis2", x=22.0, y=34.0), MoveUnit(unit_id="ind19", x=32.0, y=34.0)]
    )
    yield c.undo  # the two moves together
    yield c.undo  # back across the end of turn 1: the turn 2 heading goes
    yield c.redo
    yield lambda: c.undo_to(3)  # back into the Union's Phase 1 of turn 1
    yield c.redo
    yield lambda: c.run(Override("unit", "va27", {"stands": 1}, "volley at the wall"))


def test_after_every_step_each_search_shows_the_rows_a_fresh_log_shows(qtbot, controller):
    logs = {text: make_log(qtbot, controller, text) for text in SEARCHES}
    n = 0
    for step in steps(controller):
        step()
        n += 1
        for text, log in logs.items():
            other = make_log(qtbot, controller, text)
            assert rows(log) == rows(other), f"searching {text!r} after step {n}"
            other.close()
    assert n == 19
    assert logs[""].count.text() == "5 event(s)"
    assert logs["no such words"].count.text() == "0 of 5 event(s)"
    assert logs["no such words"].tree.topLevelItem(0).isHidden()


def test_the_rows_hidden_are_those_whose_words_lack_the_search(qtbot, controller):
    log = make_log(qtbot, controller, "volley")
    for step in steps(controller):
        step()
    events = {e.seq: e for e in controller.events()}
    shown = 0
    for seq, item in log._items.items():
        e = events[seq]
        words = " ".join(
            [e.summary, *(str(s) for s in e.steps), getattr(e.action, "reason", "") or ""]
        ).lower()
        assert item.isHidden() == ("volley" not in words), e.summary
        shown += "volley" in words
    assert shown == 2  # the two overrides ruled for a volley
    assert log.count.text() == f"2 of {len(events)} event(s)"
    # a turn heading is hidden when all its phases are, a phase when all its events are
    for i in range(log.tree.topLevelItemCount()):
        turn = log.tree.topLevelItem(i)
        phases = [turn.child(j) for j in range(turn.childCount())]
        for ph in phases:
            assert ph.isHidden() == all(ph.child(k).isHidden() for k in range(ph.childCount()))
        assert turn.isHidden() == all(ph.isHidden() for ph in phases)


@pytest.mark.parametrize("search", ["", "moves"])
def test_an_action_filters_only_its_own_rows(qtbot, controller, search):
    log = make_log(qtbot, controller, search)
    for k in range(30):
        controller.run(MoveUnit(unit_id="wis2", x=20.0 + (k % 2), y=35.0))
    checked = []
    real = log._matches

    def matches(seq, text):
        checked.append(seq)
        return real(seq, text)

    log._matches = matches
    controller.run(MoveUnit(unit_id="ind19", x=31.0, y=35.0))
    assert checked == ([31] if search else [])  # without a search, nothing is filtered
    checked.clear()
    controller.undo()
    assert checked == []  # the dropped row is not filtered again; the count follows it
    assert log.count.text() == ("30 event(s)" if not search else "30 of 30 event(s)")
    checked.clear()
    log.search.setText("indiana")  # a new search filters every row
    assert sorted(checked) == list(range(1, 31))
    assert log.count.text() == "0 of 30 event(s)"


def play_turns(c, turns: int) -> None:
    """``turns`` game turns of a few moves and rulings each."""
    for k in range(turns):
        c.run(MoveUnit(unit_id="wis2", x=20.0 + (k % 2), y=35.0))
        c.run(Override("unit", "tx1", {"stands": 5 - k % 2}, f"volley {k}"))
        c.run(EndTurn())
        c.run(EndTurn())


def read_entries(monkeypatch) -> list[int]:
    """The journal entries parsed from now on."""
    from storage.journal import Event

    read: list[int] = []
    real = Event.from_row.__func__

    def counting(cls, row):
        read.append(row["seq"])
        return real(cls, row)

    monkeypatch.setattr(Event, "from_row", classmethod(counting))
    return read


def test_a_long_game_is_shown_a_turn_at_a_time(qtbot, controller, game, monkeypatch):
    play_turns(controller, 6)
    controller.run(MoveUnit(unit_id="ind19", x=31.0, y=35.0))  # turn 7, in play
    path = game.path
    controller.close()
    from storage.game import Game

    controller.set_game(Game.open(path), str(path))
    read = read_entries(monkeypatch)
    log = make_log(qtbot, controller)
    assert read == [25]  # the events of the turn in play, not the journal
    assert log.count.text() == "25 event(s)"
    headings = [log.tree.topLevelItem(i) for i in range(log.tree.topLevelItemCount())]
    assert [h.text(0) for h in headings] == [f"Turn {t}" for t in range(1, 8)]
    assert [h.isExpanded() for h in headings] == [False] * 6 + [True]
    assert headings[2].toolTip(0) == "Turn 3: 4 events"
    assert headings[2].child(0).text(0) == "…" and sorted(log._items) == [25]
    # opening a turn reads its events
    headings[2].setExpanded(True)
    assert sorted(read) == [9, 10, 11, 12, 25]
    assert sorted(log._items) == [9, 10, 11, 12, 25] and headings[2].child(0).text(0) != "…"
    # an action reads itself only
    read.clear()
    controller.run(MoveUnit(unit_id="ind19", x=32.0, y=35.0))
    assert read == [] and log._items[26] is not None  # the game keeps what it wrote
    # a search looks through every event and opens the turns that hold a match
    log.search.setText("volley 4")
    assert log.count.text() == "1 of 26 event(s)"
    assert [h.isHidden() for h in headings] == [True] * 4 + [False, True, True]
    assert headings[4].isExpanded() and not log._items[18].isHidden()
    assert sorted(log._items) == [9, 10, 11, 12, *range(17, 21), 25, 26]
    log.search.clear()
    assert log.count.text() == "26 event(s)"
    assert [h.isHidden() for h in headings] == [False] * 7
    assert [h.isExpanded() for h in headings] == [False] * 6 + [True]
    # selecting an event of a turn not read reads it
    log.select_seq(2)
    assert log.selected_seq() == 2 and headings[0].isExpanded()


def test_undo_back_across_turns_not_read_drops_their_headings(qtbot, controller, answer):
    play_turns(controller, 4)
    log = make_log(qtbot, controller)
    assert log.tree.topLevelItemCount() == 4 and log.count.text() == "16 event(s)"  # turn 5: none yet
    controller.undo_to(6)  # into turn 2, never opened
    assert log.count.text() == "6 event(s)"
    headings = [log.tree.topLevelItem(i) for i in range(log.tree.topLevelItemCount())]
    assert [h.text(0) for h in headings] == ["Turn 1", "Turn 2"]
    assert headings[1].isExpanded() and sorted(log._items) == [5, 6]
    assert headings[1].toolTip(0) == "Turn 2: 2 events"
    controller.redo()
    assert log.count.text() == "7 event(s)" and sorted(log._items) == [5, 6, 7]
    other = make_log(qtbot, controller)
    assert rows(log) == rows(other)


def test_a_count_as_wide_as_the_last_lays_nothing_out_again(qtbot, controller):
    """The count changes at every step: a new count as wide as the last repaints the label only.
    (A label's new text otherwise has every layout up to the main window's done again.)"""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication

    log = make_log(qtbot, controller)
    log.show()
    log.count.setText("10 event(s)")
    for _ in range(3):
        QApplication.processEvents()
    asked: list[QObject] = []

    class Watch(QObject):
        def eventFilter(self, obj, event):  # noqa: N802
            if event.type() == QEvent.Type.LayoutRequest:
                asked.append(obj)
            return False

    watch = Watch()
    log.installEventFilter(watch)
    if log.count.fontMetrics().horizontalAdvance("11") == log.count.fontMetrics().horizontalAdvance("10"):
        log.count.setText("11 event(s)")
        QApplication.processEvents()
        assert asked == [] and log.count.text() == "11 event(s)"
    log.count.setText("1,000 of 1,000 event(s)")  # wider: the bar is laid out again, and it fits
    QApplication.processEvents()
    assert asked and log.count.width() >= log.count.sizeHint().width()
    log.removeEventFilter(watch)


def _on_screen(log: LogView):
    """The log's rows as they are on the screen now (what the window holds, painted bit by bit
    over the steps), and as the log draws them afresh."""
    from PySide6.QtWidgets import QApplication

    vp = log.tree.viewport()
    QApplication.processEvents()
    at = vp.mapTo(log.window(), vp.rect().topLeft())
    screen = log.screen().grabWindow(log.window().winId(), at.x(), at.y(), vp.width(), vp.height())
    return screen.toImage(), vp.grab().toImage()


def test_rows_added_at_the_foot_repaint_only_the_foot_and_the_screen_reads_as_a_fresh_log(
    qtbot, controller, monkeypatch
):
    """An action that only adds rows at the foot has the rows above scrolled, not drawn again;
    after every step of play (appends, undo, redo, new turns) the window shows what a log drawn
    afresh shows."""
    from PySide6.QtWidgets import QApplication

    from gui.row_pictures import RowPictures

    drawn: list[int] = []
    paint = RowPictures.paint

    def counting(self, painter, option, index):
        drawn.append(index.row())
        paint(self, painter, option, index)

    monkeypatch.setattr(RowPictures, "paint", counting)
    log = make_log(qtbot, controller)
    log.resize(420, 260)
    log.show()
    qtbot.waitExposed(log)
    for _ in range(12):  # enough rows to scroll
        controller.run(Override("unit", "wis2", {"micro_hits": 1}, "ruled so"))
        controller.run(Override("unit", "wis2", {"micro_hits": 0}, "ruled so"))
    QApplication.processEvents()
    drawn.clear()
    controller.run(Override("unit", "wis2", {"micro_hits": 1}, "ruled so"))
    QApplication.processEvents()
    shown = log.tree.viewport().height() // log.tree.sizeHintForRow(0)
    assert 0 < len(drawn) <= 3 < shown  # the new row (and its heading), not every row in view
    screen, fresh = _on_screen(log)
    assert screen == fresh
    for step in steps(controller):
        step()
        screen, fresh = _on_screen(log)
        assert screen == fresh


def test_another_palette_draws_the_rows_afresh(qtbot, controller):
    """The rows' pictures are of the colours they were drawn in: a new palette (a dark desktop
    theme chosen while the game is open) forgets them, and the rows are drawn in the new one."""
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication

    log = make_log(qtbot, controller)
    log.resize(420, 260)
    log.show()
    qtbot.waitExposed(log)
    controller.run(Override("unit", "wis2", {"micro_hits": 1}, "ruled so"))
    QApplication.processEvents()
    log.tree.viewport().grab()
    assert log.rows.pictures
    dark = QPalette(log.tree.palette())
    dark.setColor(QPalette.ColorRole.Base, QColor("#202020"))
    dark.setColor(QPalette.ColorRole.Text, QColor("#f0f0f0"))
    log.setPalette(dark)
    assert not log.rows.pictures and not log.rows.sizes
