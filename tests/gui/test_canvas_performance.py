"""The canvas and roster on a big battle (200 units and 300 terrain features) do only the work a
change asks for: paths are built once per change, never in paint(); a change summary updates only
its items. How fast they are is measured in ``benchmarks/`` (the render and one-action lines), not
here.
"""

from __future__ import annotations

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


def render(canvas) -> QImage:
    scene = canvas.scene
    img = QImage(1440, 960, QImage.Format.Format_ARGB32)
    img.fill(0)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    scene.render(p, QRectF(0, 0, 1440, 960), scene.table_rect)
    p.end()
    return img


def test_a_paint_of_the_big_battle_builds_no_path(qtbot, big, monkeypatch):
    canvas = CanvasWidget(big)
    qtbot.addWidget(canvas)
    canvas._game_replaced()
    assert len(canvas.scene.units) == 200 and len(canvas.scene.terrain) == 300
    from gui import canvas as canvas_module

    built = []
    original = canvas_module.UnitItem.set_unit
    monkeypatch.setattr(
        canvas_module.UnitItem, "set_unit", lambda self, *a, **k: built.append(1) or original(self, *a, **k)
    )
    first = render(canvas)
    again = render(canvas)
    assert built == []  # painting rebuilds no unit's shapes
    assert first == again and not first.isNull()


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
    big.run(MoveUnit(unit_id=u.id, x=u.x + 1, y=u.y - 1))
    assert rebuilt == ["union-3"]
    assert canvas.scene.units["union-3"] is item and canvas.scene.units["union-4"] is untouched
    assert roster.model.unit_text("union-3", 1) == f"{u.stands}/{u.stands_start}"
