"""Pictures of the battlefield, drawn off screen: for ``brigadier export-map``, File > Export map
and the turn summary's map.

The picture is the canvas's own scene (:class:`gui.canvas.BattlefieldScene`) rendered into an
image, so the printed map looks exactly like the table on screen: terrain, units in their side's
colours with their markers, and each unit's name.

These functions need a :class:`~PySide6.QtWidgets.QApplication`; :func:`ensure_application`
makes one on Qt's off-screen platform when none is running, so the commands work on a machine
without a display.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import PySide6  # noqa: F401  (imported before anything that might import pyqtgraph)
from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication

from rules.battle import Battle
from rules.tables import RuleTables
from storage.errors import StorageError

#: Pixels per inch of table in an exported map: a 72" x 48" table makes a 1440 x 960 picture.
MAP_PX_PER_IN = 20.0

_app: QApplication | None = None  # the application made here, kept alive while Brigadier runs


class ReportError(StorageError):
    """A report or picture that cannot be made or written; the message says why, in words."""


def ensure_application() -> QApplication:
    """The running QApplication, or a new one on the off-screen platform (no display needed).

    A platform the umpire chose (``QT_QPA_PLATFORM``) is kept; without one the command-line
    tools draw off screen, so they also work over ssh or in a scheduled job.
    """
    global _app
    app = QApplication.instance()
    if app is not None:
        if not isinstance(app, QApplication):
            raise ReportError("pictures need a full Qt application, and another kind is running")
        return app
    args = [sys.argv[0] if sys.argv and sys.argv[0] else "brigadier"]
    if not _display_platform_usable():
        args += ["-platform", "offscreen"]
    _app = QApplication(args)
    return _app


def _display_platform_usable() -> bool:
    """Whether the platform the umpire chose (``QT_QPA_PLATFORM``) can run here.

    Unset, or a desktop platform (xcb, wayland) with no display to talk to: draw off screen.
    """
    chosen = os.environ.get("QT_QPA_PLATFORM", "").strip().lower()
    if not chosen:
        return False
    if chosen.startswith(("xcb", "wayland")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def render_scene(scene: Any, px_per_in: float = MAP_PX_PER_IN, pixel_ratio: float = 1.0) -> QImage:
    """The table of a :class:`~gui.canvas.BattlefieldScene` as an image, ``px_per_in`` pixels an inch.

    With ``pixel_ratio`` above 1 the picture has that many times the pixels, drawn finer, while
    the names (drawn at a fixed size on screen) keep their size relative to the table: a printed
    map stays sharp and its names stay readable.
    """
    if not pixel_ratio >= 1:
        raise ReportError(f"a map's pixel ratio is 1 or more, not {pixel_ratio}")
    if not px_per_in > 0:
        raise ReportError(f"a map needs a positive scale, not {px_per_in} pixels an inch")
    rect: QRectF = scene.table_rect
    w, h = round(rect.width() * px_per_in), round(rect.height() * px_per_in)
    if w < 1 or h < 1 or w * h > 400_000_000:
        raise ReportError(f"a map of {w} x {h} pixels cannot be drawn; choose another scale")
    img = QImage(QSize(round(w * pixel_ratio), round(h * pixel_ratio)), QImage.Format.Format_ARGB32)
    img.setDevicePixelRatio(pixel_ratio)
    img.fill(QColor("white"))
    p = QPainter(img)
    try:
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        scene.render(p, QRectF(0, 0, w, h), rect)
    finally:
        p.end()
    return img


def battle_image(
    battle: Battle,
    tables: RuleTables | None = None,
    px_per_in: float = MAP_PX_PER_IN,
    names: bool = True,
    pixel_ratio: float = 1.0,
) -> QImage:
    """A picture of ``battle`` drawn by the canvas off screen, with every unit named (``names``)."""
    ensure_application()
    from gui.canvas import BattlefieldScene
    from gui.controller import GameController

    controller = GameController(_Drawn(battle, tables))
    scene = BattlefieldScene(controller)
    try:
        if hasattr(scene, "set_show_names"):
            scene.set_show_names(names)
        scene.set_battle(battle)
        return render_scene(scene, px_per_in, pixel_ratio)
    finally:
        scene.clear()
        scene.deleteLater()
        controller.deleteLater()


class _Drawn:
    """What the canvas asks of a game when it only draws: the battle and the rule tables."""

    def __init__(self, battle: Battle, tables: RuleTables | None):
        self.battle = battle
        self.tables = tables


def save_image(img: QImage, path: str | Path, what: str = "picture") -> None:
    """Write ``img`` as a PNG file, or raise :class:`ReportError` with the reason."""
    p = Path(path)
    if not p.parent.is_dir():
        raise ReportError(f"{p}: there is no folder {p.parent} to write the {what} in")
    if p.is_dir():
        raise ReportError(f"{p}: this is a folder; give a file name for the {what}")
    if not img.save(str(p), "PNG"):
        raise ReportError(f"{p}: the {what} could not be written there")


def export_map_png(game: Any, png_path: str | Path, px_per_in: float = MAP_PX_PER_IN) -> Path:
    """Save the battlefield of an open :class:`storage.game.Game`, as it stands now, as a PNG."""
    img = battle_image(game.battle, game.tables, px_per_in)
    save_image(img, png_path, "map")
    return Path(png_path)


__all__ = [
    "MAP_PX_PER_IN",
    "ReportError",
    "battle_image",
    "ensure_application",
    "export_map_png",
    "render_scene",
    "save_image",
]
