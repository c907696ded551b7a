"""The figures of the map: drawing it cold (a new view or zoom, an export) and warm, against a bare
``QGraphicsScene`` of the same items, and its growth with the battle."""

from __future__ import annotations

import math
import time

from benchmarks.generate import big_battle, scaled_battle
from benchmarks.measure import UNIT_SIZES, Figure, Memory, interleaved, interleaved_timers, ratio_figure
from rules.battle.battle import Battle
from rules.tables import load_tables

# --------------------------------------------------------------------------------------------
# The map: drawing it cold and warm
# --------------------------------------------------------------------------------------------

RENDER_SIZE = (1440, 960)
RENDER_WARM_TARGET_RATIO = 2.0
RENDER_COLD_TARGET_RATIO = 3.0
RENDER_GROWTH_LIMIT = 4.5  # the warm time's ratio per 4x the units


def _render(scene, rect, size: tuple[int, int] = RENDER_SIZE) -> None:
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter

    img = QImage(*size, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(0)
    painter = QPainter(img)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    scene.render(painter, QRectF(0, 0, *size), rect)
    painter.end()


def bare_scene(scene):
    """A bare ``QGraphicsScene`` of the same items as the map ``scene``, as they would be written
    plainly with Qt's own items, drawing the same things: the table and its grid lines (a
    rectangle and one path); each terrain feature's outline (or line) filled and stroked as the
    map fills and strokes it, its pattern, and its decorations (a fence's zig-zag, a wall's
    stones, a crest and its hachures) as paths of their own; each unit's stands (the colour stand
    and the others), its flag, its front and its facing arrow; each name as a
    ``QGraphicsSimpleTextItem`` of the same font at a fixed size on screen, on a plain box; each
    unit's health glyph (a box and its words, at a fixed size on screen) and the leader line of a
    name that moved aside. Items keep no pictures of themselves."""
    from PySide6.QtCore import QLineF, QPointF
    from PySide6.QtGui import QBrush, QColor, QPainterPath
    from PySide6.QtWidgets import (
        QGraphicsEllipseItem,
        QGraphicsItem,
        QGraphicsLineItem,
        QGraphicsPathItem,
        QGraphicsRectItem,
        QGraphicsScene,
        QGraphicsSimpleTextItem,
    )

    from gui.canvas import TABLE_COLOUR, cosmetic_pen
    from gui.canvas.unit_items import _ARROW_PEN, _FRONT_PEN, _GLYPH_FONT, _STAND_EDGE, GLYPH_H_PX

    bare = QGraphicsScene()
    bare.setSceneRect(scene.sceneRect())
    bare.setBackgroundBrush(QColor("#7d8b6a"))
    table = QGraphicsRectItem(scene.table_rect)
    table.setBrush(QColor(TABLE_COLOUR))
    table.setPen(cosmetic_pen("#4a4a3a", 2))
    table.setZValue(-1000)
    bare.addItem(table)
    grid = QPainterPath()
    t = scene.table_rect
    for x in range(1, int(t.width())):
        grid.moveTo(QPointF(x, 0))
        grid.lineTo(QPointF(x, t.height()))
    for y in range(1, int(t.height())):
        grid.moveTo(QPointF(0, y))
        grid.lineTo(QPointF(t.width(), y))
    g = QGraphicsPathItem(grid)
    g.setPen(cosmetic_pen("#e2e4cc", 0.6))
    g.setZValue(-999)
    bare.addItem(g)
    for x in range(0, int(t.width()) + 1, 6):  # the inch marks along the edges
        mark = QGraphicsSimpleTextItem(f'{x}"')
        mark.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        mark.setPos(x + 0.15, -1.2)
        bare.addItem(mark)
    for y in range(6, int(t.height()) + 1, 6):
        mark = QGraphicsSimpleTextItem(f'{y}"')
        mark.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        mark.setPos(-2.5, y - 0.5)
        bare.addItem(mark)

    def path(p, pen, brush=None, z=0.0):
        it = QGraphicsPathItem(p)
        it.setPen(pen)
        if brush is not None:
            it.setBrush(brush)
        it.setZValue(z)
        bare.addItem(it)
        return it

    def name(label):
        if not label.isVisible() or not label.text():
            return
        box = QGraphicsRectItem(label.boundingRect())
        box.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        box.setBrush(QBrush(label.halo))
        box.setPen(QColor(0, 0, 0, 0))
        box.setPos(label.scenePos())
        box.setZValue(100)
        text = QGraphicsSimpleTextItem(label.text(), box)
        text.setFont(label.font())
        text.setBrush(label.brush())
        bare.addItem(box)

    none = QColor(0, 0, 0, 0)
    for ti in scene.terrain.values():
        z = ti.zValue()
        casing = getattr(ti, "_casing", None)
        if ti.feature.is_linear and casing is not None:
            path(ti.path(), casing, None, z)
        path(ti.path(), ti.pen(), ti.brush(), z)
        pattern = getattr(ti, "_pattern", None)
        if pattern is not None and not ti.feature.is_linear and not ti.feature.is_hill:
            path(ti.path(), none, pattern, z)
        for pen, p in getattr(ti, "_decor", ()):
            path(p, pen, None, z)
        dots = getattr(ti, "_dots", None)
        if dots is not None:
            path(dots[1], none, QBrush(dots[0]), z)
        for child in (ti._crest, ti._hachures):
            if child is not None and child.isVisible():
                path(child.path(), child.pen(), None, z)
        name(ti.name_label)
    for u in scene.units.values():
        if not u.isVisible():
            continue
        z = u.zValue()
        path(u._other_stands, _STAND_EDGE, QBrush(u.colour.lighter(150)), z)
        path(u._colour_stand, _STAND_EDGE, QBrush(u.colour), z)
        flag = QGraphicsEllipseItem(u._origin.x() - 0.16, u._origin.y() - 0.16, 0.32, 0.32)
        flag.setBrush(QColor("#ffffff"))
        flag.setPen(none)
        flag.setZValue(z)
        bare.addItem(flag)
        front = QPainterPath()
        front.moveTo(QLineF(u._front).p1())
        front.lineTo(QLineF(u._front).p2())
        path(front, _FRONT_PEN, None, z)
        path(u._arrow, _ARROW_PEN, None, z)
        name(u.label)
        # its health glyph: a box and its words, at a fixed size on screen
        w, h = u._glyph_width_px, GLYPH_H_PX
        box = QGraphicsRectItem(-w / 2, -h / 2, w, h)
        box.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        box.setBrush(QBrush(u._glyph_colour))
        box.setPos(u.mapToScene(u._marker_centre))
        box.setZValue(z + 0.5)
        text = QGraphicsSimpleTextItem(u._glyph_text, box)
        text.setFont(_GLYPH_FONT)
        text.setBrush(QBrush(u._glyph_ink))
        text.setPos(-text.boundingRect().width() / 2, -text.boundingRect().height() / 2)
        bare.addItem(box)
        if u.leader.isVisible():  # the line to a name that moved aside
            line = QGraphicsLineItem(
                QLineF(u.mapToScene(u.leader.line().p1()), u.mapToScene(u.leader.line().p2()))
            )
            line.setPen(u.leader.pen())
            line.setZValue(99)
            bare.addItem(line)
    return bare


def map_scene(battle: Battle, caches: bool = True):
    """The map of ``battle`` as the window builds it (its names placed for the render's zoom);
    without ``caches``, as a picture drawn once builds it (its items keep no pictures)."""
    from gui.canvas import BattlefieldScene
    from gui.controller import GameController
    from gui.export import _Drawn

    controller = GameController(_Drawn(battle, load_tables()))
    scene = BattlefieldScene(controller)
    scene.set_item_caches(caches)
    scene.set_battle(battle)
    scale = min(RENDER_SIZE[0] / scene.sceneRect().width(), RENDER_SIZE[1] / scene.sceneRect().height())
    scene.layout_labels(scale)
    return controller, scene


def render_times(battle: Battle, repeat: int) -> dict[str, float]:
    """The times of drawing the map of ``battle`` whole into a 1440 x 960 picture: ``build`` (the
    map made), ``warm`` (again at the same zoom: the items' pictures kept), ``cold`` (at a new zoom,
    the pictures made again), ``export`` (a picture drawn once, without the items' pictures), and
    those of the bare scene of the same items, cold and warm; and the peak memory."""
    from gui.app import application

    application()
    Memory.reset()
    t0 = time.perf_counter()
    controller, scene = map_scene(battle)
    build = time.perf_counter() - t0
    rect = scene.sceneRect()
    bare = bare_scene(scene)
    step = {"k": 0}

    def new_size() -> tuple[int, int]:
        # a new zoom each time: the picture a pixel or two smaller
        step["k"] = (step["k"] + 1) % 40
        return RENDER_SIZE[0] - step["k"] - 1, RENDER_SIZE[1] - step["k"] - 1

    def cold_app() -> float:
        size = new_size()
        t = time.perf_counter()
        _render(scene, rect, size)
        return time.perf_counter() - t

    def cold_bare() -> float:
        size = (RENDER_SIZE[0] - step["k"] - 1, RENDER_SIZE[1] - step["k"] - 1)
        t = time.perf_counter()
        _render(bare, rect, size)
        return time.perf_counter() - t

    def timed(fn):
        def run() -> float:
            t = time.perf_counter()
            fn()
            return time.perf_counter() - t

        return run

    warm, warm_bare = interleaved([lambda: _render(scene, rect), lambda: _render(bare, rect)], repeat)
    cold, cold_b = interleaved_timers([cold_app, cold_bare], repeat)
    # an export: a map of its own, drawn once without the items' pictures (gui.export.battle_image:
    # the map made, as the bare scene was, before the clock starts; its names placed for the
    # picture's zoom, and drawn)
    from gui.export import render_scene

    once_ctl, once = map_scene(battle, caches=False)
    px = RENDER_SIZE[0] / battle.table_width_in

    def export() -> float:
        step["k"] = (step["k"] + 1) % 40
        t = time.perf_counter()
        render_scene(once, px * (1 - 0.002 * (step["k"] + 1)))
        return time.perf_counter() - t

    # each export timed beside a cold render of the bare scene (the same minutes of the machine)
    export_t, export_bare = interleaved_timers([export, cold_bare], max(3, repeat))
    once_ctl.close()
    once.deleteLater()
    peak = Memory.peak_mb()
    controller.close()
    scene.deleteLater()
    bare.deleteLater()
    application().processEvents()
    return {
        "build": build,
        "warm": warm,
        "warm_bare": warm_bare,
        "cold": cold,
        "cold_bare": cold_b,
        "export": export_t,
        "export_bare": export_bare,
        "peak": peak or 0.0,
        "items": len(scene.units) + len(scene.terrain),
    }


def figure_render(repeat: int, measured: dict) -> list[Figure]:
    r = render_times(big_battle(), repeat)
    measured[("render", 200)] = r
    n = r["items"]
    return [
        ratio_figure(
            f"draw the map warm ({n} items, 1440x960)",
            r["warm"],
            r["warm_bare"],
            RENDER_WARM_TARGET_RATIO,
            "bare scene",
            r["peak"],
        ),
        ratio_figure(
            "draw the map cold: a new view or zoom",
            r["cold"],
            r["cold_bare"],
            RENDER_COLD_TARGET_RATIO,
            "bare scene, cold",
            r["peak"],
        ),
        ratio_figure(
            "draw the map cold: an export (names placed, drawn once)",
            r["export"],
            r["export_bare"],
            RENDER_COLD_TARGET_RATIO,
            "bare scene, cold",
            r["peak"],
        ),
    ]


def per_4x(t_small: float, t_large: float, n_small: float, n_large: float) -> float:
    """The growth of a time for 4 times the size, from its growth between two sizes."""
    if t_small <= 0 or n_large <= n_small:
        return math.inf
    return (t_large / t_small) ** (math.log(4) / math.log(n_large / n_small))


def warm_cpu(battles: list[Battle], repeat: int) -> tuple[list[float], float | None]:
    """The processor's seconds to draw the map of each of ``battles`` again at the same zoom (the
    items' pictures kept), drawn in turn, the least of ``repeat`` draws of each; and the peak
    memory. Processor time, as a cost that grows with the battle (the clock would count the
    other work of a shared machine); the least, as ``timeit`` takes it (what else the machine
    does only adds to a draw); in turn in one process, so that both sizes are drawn alike."""
    from PySide6.QtGui import QPixmapCache

    from gui.app import application

    app = application()
    Memory.reset()
    maps = [map_scene(b) for b in battles]
    for _c, scene in maps:
        _render(scene, scene.sceneRect())  # the pictures made
        _render(scene, scene.sceneRect())
    times: list[list[float]] = [[] for _ in maps]
    for _ in range(repeat):
        for i, (_c, scene) in enumerate(maps):
            t = time.process_time()
            _render(scene, scene.sceneRect())
            times[i].append(time.process_time() - t)
    peak = Memory.peak_mb()
    for controller, scene in maps:
        controller.close()
        scene.clear()
        scene.deleteLater()
    app.processEvents()
    QPixmapCache.clear()
    return [min(t) for t in times], peak


def figure_render_growth(repeat: int, measured: dict) -> list[Figure]:
    """The warm map from 50 to 2,000 units grows no faster than the item count: the processor
    time of a warm draw, per 4 times the units."""
    out = []
    for a, b in zip(UNIT_SIZES, UNIT_SIZES[1:], strict=False):
        (ta, tb), peak = warm_cpu(
            [big_battle() if n == 200 else scaled_battle(n) for n in (a, b)], max(9, repeat)
        )
        g = per_4x(ta, tb, a, b)
        out.append(
            Figure(
                f"draw the map warm, {a:,} to {b:,} units (processor time, growth per 4x units)",
                g,
                None,
                f"<= {RENDER_GROWTH_LIMIT:g}x per 4x",
                g <= RENDER_GROWTH_LIMIT,
                peak,
                shown_as="ratio",
            )
        )
    return out
