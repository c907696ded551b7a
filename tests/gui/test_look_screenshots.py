"""Pictures of the main window, its docks, the exported map, the terrain styles and the turn
report, on the demo battle as an umpire meets it in turn 1.

Each picture is drawn off screen and checked to hold something. With
``BRIGADIER_WRITE_SCREENSHOTS=1`` they are written to ``docs/screenshots/``.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QRectF, QSizeF
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication

from rules.actions import MoveUnit, NextPhase, Override
from rules.battle.terrain import AREA_TYPES, TerrainFeature, TerrainType
from rules.dice import SeededDice

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.fixture
def folder(tmp_path) -> Path:
    f = DOCS if os.environ.get("BRIGADIER_WRITE_SCREENSHOTS") == "1" else tmp_path
    f.mkdir(parents=True, exist_ok=True)
    return f


def _settle(n: int = 6) -> None:
    for _ in range(n):
        QApplication.processEvents()


def _not_blank(img: QImage, name: str) -> None:
    assert img.width() >= 250 and img.height() >= 120, name
    colours = {img.pixel(x, y) for x in range(0, img.width(), 7) for y in range(0, img.height(), 7)}
    assert len(colours) > 20, f"{name} is nearly blank"


def _save(widget_or_image, folder: Path, name: str) -> QImage:
    img = widget_or_image if isinstance(widget_or_image, QImage) else widget_or_image.grab().toImage()
    path = folder / f"{name}.png"
    assert img.save(str(path)), path
    _not_blank(QImage(str(path)), name)
    return img


@pytest.fixture
def demo_path(tmp_path) -> str:
    """The demo battle in turn 1's Ranged Combat: the 4th Virginia stepped up and fired on the
    battery; the umpire ruled the 28th North Carolina disordered crossing the fence."""
    from rules.shooting.shoot import Shoot
    from storage.game import Game
    from storage.scenario import load_demo

    g = Game.create(tmp_path / "oak-ridge.sqlite", load_demo(), seed=1863)
    side = g.battle.active_side
    g.do(NextPhase())
    if side == "csa":
        va4 = g.battle.units["va4"]
        g.do(MoveUnit(unit_id="va4", x=va4.x, y=va4.y - 1.0, facing_deg=va4.facing_deg))
    g.do(
        Override(
            target="unit",
            target_id="nc28",
            values={"markers": ["disorder"]},
            reason="crossed the fence under fire",
        )
    )
    g.do(NextPhase())
    if side == "csa":
        g.do(Shoot.on_table(g.battle, "va4", "batb4us", g.tables), SeededDice(4))
    path = str(g.path)
    g.close()
    return path


@pytest.fixture
def window(qtbot, demo_path):
    from gui.app import make_main_window

    win = make_main_window(demo_path)
    qtbot.addWidget(win)
    yield win
    win.controller.close()


@pytest.mark.parametrize("size", [(1600, 1000), (1280, 720)])
def test_screenshot_main_window(window, folder, size):
    window.resize(*size)
    window.show()
    _settle()
    window.controller.select(["va4"])
    window.canvas.scene.show_line_of_sight("va4", "wis2")
    window.log.select_seq(window.controller.events()[-1].seq)
    _settle()
    name = "main_window" if size[0] == 1600 else "main_window_1280x720"
    _save(window, folder, name)
    if size[0] == 1600:
        _save(window.canvas, folder, "canvas_arcs_los")
        _save(window.docks["roster"], folder, "roster")
        _save(window.docks["log"], folder, "log")
        window.controller.select(["batb4us"])
        _settle()
        _save(window.docks["inspector"], folder, "inspector")
        from gui.plots import PlotsWidget

        plots = PlotsWidget(window.controller)
        plots.resize(1400, 420)
        plots.show()
        window.controller.select(["va4"])
        _settle()
        plots.export_png(folder / "plots.png", width=1400)
        _not_blank(QImage(str(folder / "plots.png")), "plots")
        plots.close()
        plots.deleteLater()


def test_screenshot_exported_map(window, folder, tmp_path):
    assert window.render_map(str(folder / "export_map.png"))
    _not_blank(QImage(str(folder / "export_map.png")), "export_map")


def test_screenshot_terrain_types(qtbot, folder):
    from gui.export import battle_image
    from storage.scenario import load_demo

    demo = load_demo()
    kinds = [t for t in TerrainType if t != TerrainType.OPEN]
    features = []
    for i, t in enumerate(kinds):
        col, row = i % 6, i // 6
        x0, y0 = 2 + col * 12, 2 + row * 12
        if t == TerrainType.HILL:
            pts = ((x0, y0 + 8), (x0 + 1.5, y0), (x0 + 7.5, y0), (x0 + 9, y0 + 8))
            f = TerrainFeature(
                f"t{i}", t, pts, name=t.label, level=1, crest=((x0 + 1.5, y0 + 4), (x0 + 7.5, y0 + 4))
            )
        elif t in AREA_TYPES:
            pts = ((x0, y0), (x0 + 9, y0), (x0 + 9, y0 + 7), (x0, y0 + 7))
            f = TerrainFeature(f"t{i}", t, pts, name=t.label)
        else:
            f = TerrainFeature(f"t{i}", t, ((x0, y0 + 5), (x0 + 4.5, y0 + 2), (x0 + 9, y0 + 5)), name=t.label)
        features.append(f)
    # the demo's units stand off the table, out of the picture
    oob = replace(demo.oob, units={u.id: replace(u, x=-60.0, y=-60.0) for u in demo.oob.units.values()})
    battle = replace(demo, oob=oob, terrain=tuple(features))
    img = battle_image(battle, None, 20.0)
    _save(img, folder, "terrain_types")


def test_screenshot_report_pages(window, folder):
    from PySide6.QtGui import QPageLayout

    from gui import report, report_pages

    game = window.controller.game
    s = report.build_turn_summary(game, 1)
    doc = report.turn_document(s, game.tables)
    layout = report_pages.page_layout_for()
    page = layout.paintRectPixels(96)
    doc.setPageSize(QSizeF(page.width(), page.height()))
    pages = doc.pageCount()
    assert 1 <= pages <= 8
    assert layout.orientation() in (QPageLayout.Orientation.Portrait, QPageLayout.Orientation.Landscape)
    for n in range(pages):
        img = QImage(page.width(), page.height(), QImage.Format.Format_ARGB32)
        img.fill(QColor("white"))
        p = QPainter(img)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.translate(0, -n * page.height())
        doc.drawContents(p, QRectF(0, n * page.height(), page.width(), page.height()))
        p.end()
        _save(img, folder, f"report_page{n + 1}")
