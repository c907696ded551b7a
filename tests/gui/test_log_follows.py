"""The battle log shows the latest event when a long game opens, and keeps to its foot while the
window is laid out or the dock resized, unless the umpire has scrolled back to read."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from rules.actions import EndTurn, Override
from storage.game import Game
from storage.scenario import load_demo


@pytest.fixture
def long_game(tmp_path):
    game = Game.create(tmp_path / "long.sqlite", load_demo())
    for turn in range(14):
        game.do(Override("unit", "wis2", {"x": 24.0 + turn / 10}, "nudged"))
        game.do(EndTurn())
        game.do(EndTurn())
    for k in range(20):  # the turn in play: more rows than the dock holds
        game.do(Override("unit", "wis2", {"y": 30.0 + k / 10}, "nudged"))
    yield game
    game.close()


def shows(log, seq: int) -> bool:
    """Whether the row of event ``seq`` is wholly inside the log's view."""
    item = log._items.get(seq)
    if item is None:
        return False
    r = log.tree.visualItemRect(item)
    return not r.isEmpty() and log.tree.viewport().rect().contains(r)


def test_a_long_game_opens_with_its_log_at_the_latest_event(qtbot, long_game, window_on):
    win = window_on(long_game, (1366, 740))
    log = win.log
    assert log.isVisible()
    assert log.tree.verticalScrollBar().maximum() > 0  # more rows than the dock holds
    qtbot.waitUntil(lambda: shows(log, long_game.last_seq), timeout=2000)
    # the dock made shorter, taller and shorter again: still at the foot
    for height in (160, 300, 120):
        win.resizeDocks([win.docks["log"]], [height], Qt.Orientation.Vertical)
        qtbot.wait(20)
        assert shows(log, long_game.last_seq), f"log {height} px tall"


def test_a_log_scrolled_back_stays_where_the_umpire_left_it(qtbot, long_game, window_on):
    win = window_on(long_game, (1366, 740))
    log = win.log
    bar = log.tree.verticalScrollBar()
    qtbot.waitUntil(lambda: shows(log, long_game.last_seq), timeout=2000)
    bar.setValue(0)  # back to the first turns, to read them
    win.resizeDocks([win.docks["log"]], [300], Qt.Orientation.Vertical)
    qtbot.wait(20)
    assert bar.value() == 0
