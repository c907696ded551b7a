"""The umpire's tools on the table, one mode each, as in Qt's diagramscene example.

The scene (:class:`~gui.canvas.scene.BattlefieldScene`) keeps the tool in use (``scene.tool``)
and hands each mouse event to that tool's mode. A mode's handler returns True when it has dealt
with the event; otherwise the scene's items have it (a unit is dragged by its own item).

* :class:`SelectMode` ("select"): units are selected and dragged by their items; while terrain
  editing is on, the selected features are moved, one edit each on release.
* :class:`RulerMode` ("ruler"): inches from a unit's colour stand to the nearest edge of another.
* :class:`SightLineMode` ("los"): the line of sight from one unit to another, and why it is blocked.
* :class:`DrawTerrainMode` ("draw"): an outline or a line of terrain of the chosen type, point by
  point; a double-click or Enter finishes it.
* :class:`CrestMode` ("crest"): the crestline of the selected hill, drawn the same way.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QKeyEvent, QPainterPath
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QGraphicsSceneMouseEvent,
    QGraphicsSimpleTextItem,
)

from gui.canvas.label_grids import _RectIndex
from gui.canvas.style import Z_TOOL, _label_font, _wrap, cosmetic_pen, polygon_path
from gui.canvas.terrain_items import TerrainItem
from gui.canvas.unit_items import UnitItem
from rules.battle.terrain import LINEAR_TYPES, TerrainType

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

    from gui.interfaces import ControllerLike
    from rules.tables import RuleTables


class ToolScene(Protocol):
    """What the modes use of their scene (:class:`~gui.canvas.scene.BattlefieldScene`)."""

    controller: ControllerLike
    tables: RuleTables
    units: dict[str, UnitItem]
    terrain: dict[str, TerrainItem]
    table_rect: QRectF
    terrain_editing: bool
    draw_type: TerrainType
    draw_level: int
    last_los: Any
    measured: SignalInstance
    terrainDrawn: SignalInstance
    terrainMoved: SignalInstance
    # what the tools have drawn, which the scene lists and takes off (clear_tools), and where a
    # measurement started
    _measure_start: QPointF | None
    _measure_from: str | None
    _measure_line: QGraphicsLineItem | None
    _measure_label: QGraphicsSimpleTextItem | None
    _los_items: list[QGraphicsItem]
    _los_pair: tuple[str, str] | None
    _ruler_pair: tuple[str, str | None] | None
    _draw_points: list[QPointF]
    _draw_item: QGraphicsPathItem | None
    _label_scale: float  # pixels an inch the names were placed for

    def addItem(self, item: QGraphicsItem) -> None: ...

    def clear_tools(self) -> None: ...

    def unit_at(self, pos: QPointF) -> UnitItem | None: ...

    def selected_feature_ids(self) -> list[str]: ...

    def label_rect(self, label: QGraphicsItem) -> QRectF: ...

    def _cancel_draw(self) -> None: ...


class ToolMode:
    """What the mouse and the keys do on the table while one tool is in use.

    ``press`` (a left-button press), ``move``, ``release``, ``double_click`` and ``key_press``
    return True when the mode has dealt with the event, and the scene does nothing more with it;
    ``pressed`` and ``released`` run after the scene's items had a press or a release."""

    name = ""

    def __init__(self, scene: ToolScene):
        self.scene = scene

    def press(self, event: QGraphicsSceneMouseEvent) -> bool:
        return False

    def pressed(self, event: QGraphicsSceneMouseEvent) -> None:
        pass

    def move(self, event: QGraphicsSceneMouseEvent) -> bool:
        return False

    def release(self, event: QGraphicsSceneMouseEvent) -> bool:
        return False

    def released(self, event: QGraphicsSceneMouseEvent) -> None:
        pass

    def double_click(self, event: QGraphicsSceneMouseEvent) -> bool:
        return False

    def key_press(self, event: QKeyEvent) -> bool:
        return False


class SelectMode(ToolMode):
    """Select and drag units (their items do it); with terrain editing on, move terrain."""

    name = "select"

    def __init__(self, scene: ToolScene):
        super().__init__(scene)
        self._terrain_press: dict[str, QPointF] = {}

    def pressed(self, event: QGraphicsSceneMouseEvent) -> None:
        sc = self.scene
        if sc.terrain_editing:
            # where the selected features were: a drag that moves them is one edit each, on release
            self._terrain_press = {fid: sc.terrain[fid].pos() for fid in sc.selected_feature_ids()}

    def released(self, event: QGraphicsSceneMouseEvent) -> None:
        sc = self.scene
        if sc.terrain_editing:
            for fid, before in self._terrain_press.items():
                it = sc.terrain.get(fid)
                if it is not None and it.pos() != before:
                    d = it.pos() - before
                    sc.terrainMoved.emit(fid, round(d.x(), 2), round(d.y(), 2))
            self._terrain_press = {}


class MeasureMode(ToolMode):
    """A line dragged from a unit (or any point) to another: the ruler and the sight line."""

    colour: str  # the line's

    def press(self, event: QGraphicsSceneMouseEvent) -> bool:
        sc = self.scene
        pos = event.scenePos()
        sc.clear_tools()
        start_unit = sc.unit_at(pos)
        sc._measure_from = start_unit.unit_id if start_unit else None
        sc._measure_start = start_unit._origin if start_unit else pos
        sc._measure_line = QGraphicsLineItem(QLineF(sc._measure_start, pos))
        sc._measure_line.setPen(cosmetic_pen(self.colour, 2.5))
        sc._measure_line.setZValue(Z_TOOL)
        sc.addItem(sc._measure_line)
        sc._measure_label = QGraphicsSimpleTextItem()
        sc._measure_label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        sc._measure_label.setFont(_label_font(13, bold=True))
        sc._measure_label.setZValue(Z_TOOL + 1)
        sc.addItem(sc._measure_label)
        event.accept()
        return True

    def move(self, event: QGraphicsSceneMouseEvent) -> bool:
        sc = self.scene
        if sc._measure_line is not None and sc._measure_start is not None:
            self.measure(event.scenePos(), final=False)
            event.accept()
            return True
        return False

    def release(self, event: QGraphicsSceneMouseEvent) -> bool:
        sc = self.scene
        if sc._measure_line is not None and event.button() == Qt.MouseButton.LeftButton:
            self.measure(event.scenePos(), final=True)
            sc._measure_start = None
            event.accept()
            return True
        return False

    def measure(self, pos: QPointF, final: bool) -> None:
        """Draw the line from the start to ``pos`` (or to where the mode ends it on the unit under
        the pointer), then say what it measures (:meth:`described`)."""
        sc = self.scene
        assert sc._measure_line is not None and sc._measure_label is not None
        start = sc._measure_start
        target = sc.unit_at(pos)
        if target is not None and target.unit_id == sc._measure_from:
            target = None
        end = self.end_on(start, pos, target)
        sc._measure_line.setLine(QLineF(start, end))
        self.described(start, end, target, final)

    def end_on(self, start: QPointF, pos: QPointF, target: UnitItem | None) -> QPointF:
        """Where the line ends: at the pointer."""
        return pos

    def described(self, start: QPointF, end: QPointF, target: UnitItem | None, final: bool) -> None:
        """The line's length in inches, from the unit it starts on if any (on the status bar when
        ``final``)."""
        sc = self.scene
        d = math.hypot(end.x() - start.x(), end.y() - start.y())
        text = f'{d:.1f}"' + (f" to {target.unit.name}" if target is not None else "")
        if sc._measure_from and sc._measure_from in sc.units:
            text = f"{sc.units[sc._measure_from].unit.name}: " + text
        sc._measure_label.setText(text)
        sc._measure_label.setPos(end + QPointF(0.4, 0.4))
        if final:
            sc.measured.emit(text)


class RulerMode(MeasureMode):
    """Inches, from a unit's colour stand to the nearest edge of the unit under the pointer."""

    name = "ruler"
    colour = "#0d47a1"

    def end_on(self, start: QPointF, pos: QPointF, target: UnitItem | None) -> QPointF:
        if target is None:
            return pos
        from shapely.geometry import Point
        from shapely.ops import nearest_points

        _, near = nearest_points(Point(start.x(), start.y()), target.footprint.polygon.exterior)
        return QPointF(near.x, near.y)

    def described(self, start: QPointF, end: QPointF, target: UnitItem | None, final: bool) -> None:
        if final:  # the pair measured, to measure again when the game changes under the ruler
            sc = self.scene
            sc._ruler_pair = (
                (sc._measure_from, target.unit_id if target is not None else None)
                if sc._measure_from or target is not None
                else None
            )
        super().described(start, end, target, final)

    def remeasure(self, start_id: str, target_id: str) -> None:
        """Measure again between two units, where they stand now (the game changed under the ruler)."""
        sc = self.scene
        start, target = sc.units[start_id], sc.units[target_id]
        sc._measure_from = start_id
        sc._measure_start = start._origin + start.pos()
        self.measure(QPointF(*target.footprint.centre) + target.pos(), final=True)
        sc._measure_start = None


class SightLineMode(MeasureMode):
    """The line of sight from the unit the drag starts on to the unit it is released on."""

    name = "los"
    colour = "#6a1b9a"

    def end_on(self, start: QPointF, pos: QPointF, target: UnitItem | None) -> QPointF:
        return pos if target is None else target._origin  # sight runs colour stand to colour stand

    def described(self, start: QPointF, end: QPointF, target: UnitItem | None, final: bool) -> None:
        sc = self.scene
        if not final:
            sc._measure_label.setText("line of sight: release on the target")
            sc._measure_label.setPos(end + QPointF(0.4, 0.4))
            return
        if sc._measure_from is None or target is None:
            sc._measure_label.setText("line of sight: drag from one unit to another")
            sc.measured.emit("Line of sight: drag from the viewing unit to the target unit")
            return
        self.show(sc._measure_from, target.unit_id)

    def show(self, viewer_id: str, target_id: str):
        """Check and draw the line of sight from one unit to another; returns the result."""
        sc = self.scene
        battle = sc.controller.battle
        if battle is None:
            return None
        try:
            from rules.battlefield.field import Battlefield
        except ImportError:
            sc.measured.emit("Line of sight needs rules.battlefield.field, which this build does not have")
            return None
        sc.clear_tools()
        bf = Battlefield(battle, sc.tables)
        los = bf.line_of_sight(viewer_id, target_id)
        sc.last_los = los
        sc._los_pair = (viewer_id, target_id)
        v, t = sc.units[viewer_id], sc.units[target_id]
        a, b = v._origin, t._origin
        line = QGraphicsLineItem(QLineF(a, b))
        colour = "#2e7d32" if los.visible else "#c62828"
        line.setPen(cosmetic_pen(colour, 3, Qt.PenStyle.SolidLine if los.visible else Qt.PenStyle.DashLine))
        line.setZValue(Z_TOOL)
        sc.addItem(line)
        sc._los_items.append(line)
        blocker = getattr(los, "blocked_by", None)
        blockers = [blocker] if isinstance(blocker, str) else list(blocker or ())
        for bid in blockers:
            bid = getattr(bid, "id", bid)
            item = sc.terrain.get(bid) or sc.units.get(bid)
            if item is None:
                continue
            ring = QGraphicsPathItem(item.shape())
            ring.setPen(cosmetic_pen("#c62828", 3))
            ring.setBrush(QColor(198, 40, 40, 28))
            ring.setZValue(Z_TOOL - 1)
            ring.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            sc.addItem(ring)
            sc._los_items.append(ring)
        verdict = "Clear line of sight" if los.visible else "Blocked"
        reason = getattr(los, "reason", "") or ""
        if los.visible and reason.lower() == "clear line of sight":
            reason = ""
        rule = getattr(los, "rule", None)
        text = f"{v.unit.name} → {t.unit.name}: {verdict}"
        if reason:
            text += f" — {reason}"
        if rule:
            text += f" ({rule})"
        # a compact callout beside the line, where it covers the fewest units and names; the
        # whole sentence is in the status bar and the callout's tooltip
        shown = f"{verdict}" + (f" ({rule})" if rule else "")
        if reason:
            lines = _wrap(reason, 38)
            if len(lines) > 4:
                lines = [*lines[:3], lines[3].rstrip(".,;: ") + " …"]
            shown += "\n" + "\n".join(lines)
        label = QGraphicsSimpleTextItem(shown)
        label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        label.setFont(_label_font(11, bold=True))
        label.setBrush(QColor(colour))
        label.setZValue(Z_TOOL + 1)
        label.setToolTip(text)
        back = QGraphicsPathItem()
        back.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        r = label.boundingRect().adjusted(-4, -2, 4, 2)
        p = QPainterPath()
        p.addRoundedRect(r, 4, 4)
        back.setPath(p)
        back.setBrush(QColor(255, 255, 255, 230))
        back.setPen(cosmetic_pen(colour, 1))
        back.setZValue(Z_TOOL + 0.5)
        back.setToolTip(text)
        label.setPos(self._callout_place(a, b, r))
        back.setPos(label.pos())
        sc.addItem(back)
        sc.addItem(label)
        sc._los_items += [back, label]
        sc.measured.emit(text)
        return los

    def _callout_place(self, a: QPointF, b: QPointF, box_px: QRectF) -> QPointF:
        """Where a callout of ``box_px`` (pixels) goes beside the line a-b: the candidate place
        that covers the least of the units, their names and the line's ends."""
        sc = self.scene
        k = 1.0 / (sc._label_scale or 12.0)
        w, h = box_px.width() * k, box_px.height() * k
        obstacles = _RectIndex()
        for it in sc.units.values():
            if it.isVisible():
                for r in it.stand_rects:
                    obstacles.add(r.translated(it.pos()).adjusted(-0.3, -0.3, 0.3, 0.3))
                if it.label.isVisible():
                    obstacles.add(sc.label_rect(it.label))
        d = b - a
        n = math.hypot(d.x(), d.y()) or 1.0
        nx, ny = -d.y() / n, d.x() / n
        table = sc.table_rect
        best, best_cost = None, float("inf")
        for t in (0.5, 0.35, 0.65, 0.2, 0.8):
            m = a + d * t
            for sgn in (1, -1):
                for gap in (0.8, 3.0, 6.0):
                    c = m + QPointF(nx, ny) * sgn * (gap + (abs(nx) * w + abs(ny) * h) / 2)
                    r = QRectF(c.x() - w / 2, c.y() - h / 2, w, h)
                    cost = obstacles.overlap(r)
                    if not table.contains(r):
                        cost += w * h
                    if cost < best_cost:
                        best, best_cost = r, cost
        assert best is not None
        return best.topLeft() - QPointF(box_px.left() * k, box_px.top() * k)


class DrawTerrainMode(ToolMode):
    """Terrain of ``scene.draw_type`` drawn point by point: click each point, then double-click
    or press Enter to finish; Escape cancels."""

    name = "draw"

    def press(self, event: QGraphicsSceneMouseEvent) -> bool:
        pos = event.scenePos()
        self.scene._draw_points.append(pos)
        self.preview(pos)
        event.accept()
        return True

    def move(self, event: QGraphicsSceneMouseEvent) -> bool:
        if self.scene._draw_points:
            self.preview(event.scenePos())
        return False

    def double_click(self, event: QGraphicsSceneMouseEvent) -> bool:
        self.finish()
        event.accept()
        return True

    def key_press(self, event: QKeyEvent) -> bool:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.finish()
            return True
        return False

    def closed(self) -> bool:
        """Whether the points drawn make an outline (area terrain, a hill) rather than a line."""
        return self.scene.draw_type not in LINEAR_TYPES

    def preview(self, pos: QPointF) -> None:
        """The outline or line drawn so far, on to the pointer at ``pos``."""
        sc = self.scene
        pts = [*sc._draw_points, pos]
        closed = self.closed()
        path = polygon_path([(p.x(), p.y()) for p in pts], closed=closed and len(pts) >= 3)
        if sc._draw_item is None:
            sc._draw_item = QGraphicsPathItem()
            sc._draw_item.setZValue(Z_TOOL)
            sc._draw_item.setPen(cosmetic_pen("#e65100", 2, Qt.PenStyle.DashLine))
            sc._draw_item.setBrush(QColor(230, 81, 0, 40))
            sc.addItem(sc._draw_item)
        sc._draw_item.setPath(path)

    def points(self) -> list[tuple[float, float]]:
        """The points clicked, in inches to the hundredth, without repeats."""
        pts: list[tuple[float, float]] = []
        for p in self.scene._draw_points:
            q = (round(p.x(), 2), round(p.y(), 2))
            if not pts or pts[-1] != q:
                pts.append(q)
        return pts

    def finish(self) -> None:
        """Finish the outline or line being drawn and ask for it to be added."""
        sc = self.scene
        pts = self.points()
        sc._cancel_draw()
        need = 2 if sc.draw_type in LINEAR_TYPES else 3
        if len(pts) < need:
            sc.measured.emit(f"A {sc.draw_type.label.lower()} needs at least {need} points")
            return
        level = sc.draw_level if sc.draw_type == TerrainType.HILL else 0
        sc.terrainDrawn.emit((sc.draw_type, tuple(pts), level))


class CrestMode(DrawTerrainMode):
    """The crestline of the selected hill, drawn as a line point by point."""

    name = "crest"

    def closed(self) -> bool:
        return False

    def finish(self) -> None:
        """Finish the line being drawn and ask for it to be set as the selected hill's crest."""
        sc = self.scene
        pts = self.points()
        sc._cancel_draw()
        if len(pts) >= 2:
            sc.terrainDrawn.emit(("crest", tuple(pts), 0))
        else:
            sc.measured.emit("A crestline needs at least 2 points")
