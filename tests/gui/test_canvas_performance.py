"""The canvas and roster stay quick on a big battle: 200 units and 300 terrain features.

Paths are built once per change, never in paint(); a change summary updates only its items.
The limits are generous (the machine is shared), but far below what a per-paint rebuild costs.
"""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from benchmarks.generate import big_battle
from gui.canvas import CanvasWidget
from gui.controller import GameController
from gui.roster import RosterView
from rules.actions import MoveUnit


@pytest.fixture
def big(qtbot, tmp_path):
    from storage.game import Game

    game = Game.create(tmp_path / "big.sqlite", big_battle(), seed=1)
    c = GameController()
    c.set_game(game, str(game.path))
    yield c
    c.close()


def render(canvas) -> float:
    scene = canvas.scene
    img = QImage(1440, 960, QImage.Format.Format_ARGB32)
    t = time.perf_counter()
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    scene.render(p, QRectF(0, 0, 1440, 960), scene.table_rect)
    p.end()
    return time.perf_counter() - t


def test_big_battle_builds_and_paints_quickly(qtbot, big):
    t = time.perf_counter()
    canvas = CanvasWidget(big)
    qtbot.addWidget(canvas)
    canvas._game_replaced()
    build = time.perf_counter() - t
    assert len(canvas.scene.units) == 200 and len(canvas.scene.terrain) == 300
    render(canvas)  # warm caches
    paint = min(render(canvas) for _ in range(3))
    assert build < 5.0, f"building the map took {build:.2f}s"
    assert paint < 1.0, f"painting the whole table took {paint:.3f}s"


def test_a_move_on_the_big_battle_rebuilds_only_that_unit(qtbot, big, monkeypatch):
    canvas = CanvasWidget(big)
    qtbot.addWidget(canvas)
    canvas._game_replaced()
    roster = RosterView(big)
    qtbot.addWidget(roster)
    rebuilt = []
    from gui import canvas as canvas_module

    original = canvas_module.UnitItem.set_unit

    def counting(self, unit, colour=None):
        rebuilt.append(unit.id)
        return original(self, unit, colour)

    monkeypatch.setattr(canvas_module.UnitItem, "set_unit", counting)
    u = big.battle.units["union-3"]
    item = canvas.scene.units["union-3"]
    untouched = canvas.scene.units["union-4"]
    t = time.perf_counter()
    big.run(MoveUnit(unit_id=u.id, x=u.x + 1, y=u.y - 1))
    elapsed = time.perf_counter() - t
    assert rebuilt == ["union-3"]
    assert canvas.scene.units["union-3"] is item and canvas.scene.units["union-4"] is untouched
    assert roster.model.unit_text("union-3", 1) == f"{u.stands}/{u.stands_start}"
    assert elapsed < 1.0, f"one move on the big battle took {elapsed:.3f}s"
