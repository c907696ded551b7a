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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import PySide6  # noqa: F401  (imported before anything that might import pyqtgraph)
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter, QPen
from PySide6.QtWidgets import QApplication

from gui import qt_environment
from rules.battle.battle import Battle
from rules.tables import RuleTables
from storage.errors import ReportError

#: Pixels per inch of table in an exported map: a 72" x 48" table makes a 1440 x 960 picture.
MAP_PX_PER_IN = 20.0

_app: QApplication | None = None  # the application made here, kept alive while Brigadier runs


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
    qt_environment.prepare()  # before the first paint
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
    img = QImage(
        QSize(round(w * pixel_ratio), round(h * pixel_ratio)), QImage.Format.Format_ARGB32_Premultiplied
    )
    img.setDevicePixelRatio(pixel_ratio)
    img.fill(QColor("white"))
    # the names keep their size in pixels: place them for this picture's scale, then back again
    relayout = hasattr(scene, "layout_labels")
    before = scene.label_scale() if relayout else None
    if relayout:
        scene.layout_labels(px_per_in)
    p = QPainter(img)
    try:
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        scene.render(p, QRectF(0, 0, w, h), rect)
    finally:
        p.end()
        if relayout and scene.views():
            scene.layout_labels(before)
    return img


def framed_map(
    map_img: QImage, battle: Battle, px_per_in: float = MAP_PX_PER_IN, title: str | None = None
) -> QImage:
    """The map with its title above and, below it, a legend of the terrain on the table, the
    sides' colours and a scale bar in inches."""
    ensure_application()
    from gui.canvas import LEGEND_TYPES, legend_label, terrain_swatch

    ratio = map_img.devicePixelRatio() or 1.0
    w = round(map_img.width() / ratio)
    mh = round(map_img.height() / ratio)
    present = {f.type for f in battle.terrain}
    types = [t for t in LEGEND_TYPES if t in present]
    font = QFont()
    font.setPixelSize(13)
    fm = QFontMetrics(font)
    sw, sh, gap = 48, 20, 18
    entries: list[tuple[QImage | None, str, str | None]] = [
        (terrain_swatch(t, sw, sh), legend_label(t), None) for t in types
    ]
    entries += [(None, s.name, s.colour) for s in battle.oob.sides]
    # lay the legend out in rows across the width, leaving room for the scale bar and its words
    # (wider than the bar on a map drawn small)
    scale_text = "Scale (inches)"
    scale_block = max(12 * px_per_in, fm.horizontalAdvance(scale_text) + 4.0)
    scale_w = round(scale_block) + 40
    x_limit = w - scale_w - 24
    rows: list[list[tuple[int, tuple]]] = [[]]
    x = 12
    for e in entries:
        ew = sw + 6 + fm.horizontalAdvance(e[1]) + gap
        if x + ew > x_limit and rows[-1]:
            rows.append([])
            x = 12
        rows[-1].append((x, e))
        x += ew
    row_h = sh + 8
    title_h = 46 if title is not None else 0
    legend_h = 16 + row_h * len(rows) + 22
    out = QImage(
        QSize(round(w * ratio), round((title_h + mh + legend_h) * ratio)), QImage.Format.Format_ARGB32
    )
    out.setDevicePixelRatio(ratio)
    out.fill(QColor("white"))
    p = QPainter(out)
    try:
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        if title is not None:
            _draw_title(p, w, title_h, title)
        p.drawImage(QRectF(0, title_h, w, mh), map_img)
        p.setFont(font)
        y0 = title_h + mh + 12
        p.setPen(QColor("#333333"))
        p.drawText(QPointF(12, y0 + 2), "Legend")
        for r, row in enumerate(rows):
            y = y0 + 10 + r * row_h
            for x, (swatch, label, colour) in row:
                box = QRectF(x, y, sw, sh)
                if swatch is not None:
                    p.drawImage(box, swatch)
                else:
                    p.setPen(QPen(QColor("#101010"), 1))
                    p.setBrush(QColor(colour))
                    p.drawRect(QRectF(x + 4, y + 5, sw - 8, sh - 10))
                p.setPen(QPen(QColor("#888888"), 1))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(box)
                p.setPen(QColor("#1b1b1b"))
                p.drawText(QRectF(x + sw + 6, y, w, sh), int(Qt.AlignmentFlag.AlignVCenter), label)
        # the scale bar: 12 inches in 6-inch blocks
        six = 6 * px_per_in
        bx = w - scale_w + 8 + (scale_block - 2 * six) / 2  # the bar under the middle of its words
        by = y0 + 14
        for i in range(2):
            p.setPen(QPen(QColor("#1b1b1b"), 1))
            p.setBrush(QColor("#1b1b1b") if i == 0 else QColor("white"))
            p.drawRect(QRectF(bx + i * six, by, six, 8))
        p.setPen(QColor("#1b1b1b"))
        for i, label in enumerate(('0"', '6"', '12"')):
            p.drawText(QRectF(bx + i * six - 20, by + 10, 40, 18), int(Qt.AlignmentFlag.AlignHCenter), label)
        p.drawText(
            QRectF(bx + six - scale_block / 2, by - 20, scale_block, 18),
            int(Qt.AlignmentFlag.AlignHCenter),
            scale_text,
        )
    finally:
        p.end()
    return out


def _draw_title(p: QPainter, w: float, height: float, title: str) -> None:
    """A picture's title across its top, ``height`` pixels high."""
    tf = QFont()
    tf.setPixelSize(20)
    tf.setBold(True)
    p.setFont(tf)
    p.setPen(QColor("#1b1b1b"))
    p.drawText(QRectF(12, 0, w - 24, height), int(Qt.AlignmentFlag.AlignVCenter), title)


def map_title(battle: Battle) -> str:
    """A map's title: the battle, the turn, the side to act and the phase."""
    try:
        side = battle.oob.side(battle.active_side).name
    except Exception:
        side = str(battle.active_side)
    return f"{battle.name} — turn {battle.turn}, {side} to act, {battle.phase.title}"


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
        scene.set_item_caches(False)  # drawn once: straight, without the items' pictures
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


def save_image(
    img: QImage, path: str | Path, what: str = "picture", protect: Sequence[str | Path] = ()
) -> None:
    """Write ``img`` as a PNG file, all or nothing and never over a saved game
    (:func:`storage.outputs.atomic_write`), or raise :class:`ReportError` with the reason."""
    from PySide6.QtCore import QBuffer, QIODevice

    from storage.outputs import atomic_write

    p = Path(path)
    buf = QBuffer()  # encoded in memory, then written all or nothing: a full disk is then an error
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if img.isNull() or not img.save(buf, "PNG"):
        raise ReportError(f"{p}: the {what} could not be made")
    buf.close()
    atomic_write(p, bytes(buf.data()), what=f"the {what}", protect=protect)


def export_map_png(
    game: Any,
    png_path: str | Path,
    px_per_in: float = MAP_PX_PER_IN,
    seq: int | None = None,
) -> Path:
    """Save the battlefield of an open :class:`storage.game.Game` as a PNG, with its title, a
    legend and a scale bar: as it stands now, or just after journal entry ``seq``
    (:func:`gui.side_report.export_side_map_png` draws it as a side saw it). Nothing is written
    to the save."""
    at = moment_of(game, seq)
    battle = game.state_at(at)
    img = framed_map(
        battle_image(battle, game.tables, px_per_in), battle, px_per_in, moment_title(game, battle, seq)
    )
    path = getattr(game, "path", None)
    save_image(img, png_path, "map", protect=[str(path)] if path else ())
    return Path(png_path)


def moment_of(game: Any, seq: int | None) -> int:
    """The journal entry a map is drawn after: ``seq`` checked against the journal, or the last."""
    if seq is None:
        return game.last_seq
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= game.last_seq:
        raise ReportError(
            f"there is no entry {seq!r}: the journal has entries 1 to {game.last_seq} (0: the start)"
        )
    return seq


def moment_title(game: Any, battle: Battle, seq: int | None) -> str:
    """A map's title for the moment after entry ``seq`` (None: now)."""
    title = map_title(battle)
    if seq is not None and seq < game.last_seq:
        title += f" (after entry {seq})" if seq else " (as the game began)"
    return title


def titled(img: QImage, title: str) -> QImage:
    """``img`` with ``title`` written above it."""
    ratio = img.devicePixelRatio() or 1.0
    w, h = round(img.width() / ratio), round(img.height() / ratio)
    title_h = 46
    out = QImage(QSize(round(w * ratio), round((h + title_h) * ratio)), QImage.Format.Format_ARGB32)
    out.setDevicePixelRatio(ratio)
    out.fill(QColor("white"))
    p = QPainter(out)
    try:
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        _draw_title(p, w, title_h, title)
        p.drawImage(QRectF(0, title_h, w, h), img)
    finally:
        p.end()
    return out


__all__ = [
    "MAP_PX_PER_IN",
    "ReportError",
    "battle_image",
    "ensure_application",
    "export_map_png",
    "moment_of",
    "moment_title",
    "titled",
    "framed_map",
    "map_title",
    "render_scene",
    "save_image",
]
