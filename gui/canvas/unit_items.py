"""Units on the map: each drawn as its stands in formation, with its facing and markers, dragged
to move and wheeled by its handle; a move is one request to the scene, on release.
"""

from __future__ import annotations

import math
from typing import Protocol, runtime_checkable

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPainterPath, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsRectItem,
    QGraphicsSceneHoverEvent,
    QGraphicsSceneMouseEvent,
)

from gui import icons
from gui.canvas.labels import LeaderLine, UnitName
from gui.canvas.style import Z_UNIT, _label_font, _shift, cosmetic_pen, polygon_path, px_per_inch
from rules.battle.unit import Unit
from rules.battle.words import REFUSED_MARKER, Health, Marker
from rules.battlefield import geometry
from rules.tables import RuleTables

# -- unit items ----------------------------------------------------------------------------------


@runtime_checkable
class DragHost(Protocol):
    """What a unit item asks of its scene (:class:`~gui.canvas.scene.BattlefieldScene`) while it
    is dragged or wheeled: the tool in use, the drag's distance shown, the move requested."""

    tool: str

    def show_drag_distance(self, item: UnitItem, place: bool = False) -> None: ...

    def hide_drag_distance(self) -> None: ...

    def commit_drag(self, place: bool = False) -> None: ...

    def request_move(self, unit_id: str, x: float, y: float, facing: float) -> None: ...


#: The wheel handle's size on screen, pixels, whatever the zoom: easy to grab.
HANDLE_PX = 20.0
#: A wheel turns in steps of this many degrees; with Ctrl held, a degree at a time.
WHEEL_STEP_DEG, FINE_STEP_DEG = 15.0, 1.0


def _fine(event) -> bool:
    """Ctrl held: a fine turn, a degree at a time."""
    return bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)


class RotateHandle(QGraphicsEllipseItem):
    """The handle ahead of a selected unit: drag it to wheel the unit about its colour stand. It is
    the same size on screen at any zoom, and the turn snaps to 15 degree steps (a small flick does
    not turn the unit at all); Ctrl held turns it a degree at a time."""

    def __init__(self, unit_item: UnitItem):
        r = HANDLE_PX / 2
        super().__init__(-r, -r, 2 * r, 2 * r, unit_item)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        self.unit_item = unit_item
        self.setBrush(QBrush(QColor("#ffd54f")))
        self.setPen(cosmetic_pen("#5d4037", 2))
        self.setCursor(Qt.CursorShape.CrossCursor)
        self.setToolTip(
            f"Drag to wheel the unit about its colour stand: {WHEEL_STEP_DEG:g} degree steps, "
            "a degree at a time with Ctrl held"
        )
        self.setZValue(5)
        self._dragging = False

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton:
            self._dragging = True
            event.accept()
        else:
            super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        if self._dragging:
            self.unit_item.preview_facing(event.scenePos(), fine=_fine(event))
            event.accept()

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        if self._dragging:
            self._dragging = False
            self.unit_item.commit_facing(event.scenePos(), fine=_fine(event))
            event.accept()


# the pens and fonts of a unit's picture, made once
_STAND_EDGE = cosmetic_pen("#101010", 1.0)
_DISORDERED_EDGE = cosmetic_pen("#d62728", 1.6, Qt.PenStyle.DashLine)
_FRONT_PEN = cosmetic_pen("#000000", 2.2)
_ARROW_PEN = cosmetic_pen("#000000", 1.4)
_BADGE_EDGE = cosmetic_pen("#202020", 1)
_SELECTED_PEN = cosmetic_pen("#ffb300", 3)
_HIGHLIGHT_PEN = cosmetic_pen("#00c853", 3)
_WHITE = QColor("#ffffff")
_BADGE_FONT = _label_font(11, bold=True)
_GLYPH_FONT = _label_font(9, bold=True)
_GLYPH_METRICS: list[QFontMetricsF] = []  # made when the first glyph is measured (a QApplication exists)
_GLYPH_EDGE = cosmetic_pen("#1a1a1a", 1)
#: The health glyph's height on screen, pixels, and its padding either side of its text.
GLYPH_H_PX, GLYPH_PAD_PX = 12.0, 3.0


#: Pixels an inch from which the health glyph says the stands at the start too ("4/5 +1"); below
#: it, zoomed out, only the stands left ("4", a micro-hit as a white dot in its corner).
GLYPH_FULL_PX = 9.0
#: Below this many pixels an inch (the whole big table in view) a unit is drawn without its
#: colour stand's flag and its facing arrow: a few pixels each, they only blur the stands.
DETAIL_PX = 8.0


def glyph_text(unit: Unit, full: bool = True) -> str:
    """What a unit's health glyph says: the stands left, of those it started with, and a micro-hit
    carried ("4/5 +1"); zoomed out (``full`` false), the stands left only ("4").

    >>> from rules.battle.unit import Unit
    >>> from rules.battle.words import UnitKind
    >>> u = Unit(id="wis2", name="2nd Wisconsin", side="union", brigade="iron", kind=UnitKind.INFANTRY,
    ...          stands=4, stands_start=5, micro_hits=1)
    >>> glyph_text(u), glyph_text(u, full=False)
    ('4/5 +1', '4')
    """
    if not full:
        return str(unit.stands)
    text = f"{unit.stands}/{unit.stands_start}"
    return text + (f" +{unit.micro_hits}" if unit.micro_hits else "")


_GLYPHS: dict[tuple, QPixmap] = {}


def _glyph_picture(text: str, fill: str, ink: str, dot: bool, width_px: float, ratio: float) -> QPixmap:
    """A health glyph drawn once and kept: every unit with the same stands and health shares it."""
    key = (text, fill, ink, dot, round(width_px, 2), round(ratio, 2))
    pm = _GLYPHS.get(key)
    if pm is not None:
        return pm
    w, h = width_px, GLYPH_H_PX
    pm = QPixmap(max(1, math.ceil(w * ratio)), max(1, math.ceil(h * ratio)))
    pm.setDevicePixelRatio(ratio)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
    box = QRectF(0.5, 0.5, w - 1, h - 1)
    p.setPen(_GLYPH_EDGE)
    p.setBrush(QColor(fill))
    p.drawRoundedRect(box, 3, 3)
    p.setPen(QColor(ink))
    p.setFont(_GLYPH_FONT)
    p.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
    if dot:
        p.setPen(_GLYPH_EDGE)
        p.setBrush(_WHITE)
        p.drawEllipse(QPointF(box.right() - 2.0, box.top() + 2.0), 2.2, 2.2)
    p.end()
    if len(_GLYPHS) > 512:
        _GLYPHS.clear()
    _GLYPHS[key] = pm
    return pm


_GLYPH_WIDTHS: dict[str, float] = {}  # each glyph's words measured once ("4/5 +1": a few dozen kinds)


def _glyph_width_px(text: str) -> float:
    w = _GLYPH_WIDTHS.get(text)
    if w is None:
        if not _GLYPH_METRICS:
            _GLYPH_METRICS.append(QFontMetricsF(_GLYPH_FONT))
        if len(_GLYPH_WIDTHS) > 512:
            _GLYPH_WIDTHS.clear()
        w = _GLYPH_WIDTHS[text] = _GLYPH_METRICS[0].horizontalAdvance(text) + 2 * GLYPH_PAD_PX
    return w


#: A marker's badge is 0.55" on the model, and never less than this many pixels on screen or on
#: paper (a letter must be read at the zoom that shows the whole table), up to BADGE_MAX_IN.
BADGE_IN = 0.55
BADGE_MIN_PX = 12.0
BADGE_MAX_IN = 1.5


def refused_stands(unit: Unit, fp: geometry.Footprint, tables: RuleTables) -> tuple:
    """The unit's stands as they stand on the table: a refused flank's outer stands wheeled back on
    the refused side (RULE-04-5.3), each flank refused on its own; a refusal saved without its side
    (both flanks, :attr:`Marker.REFUSED_FLANK`) is drawn straight, its badge saying so."""
    from rules.reactions.refused_flank import stands_wheeled

    corners = fp.stand_corners
    sides = [side for side, m in REFUSED_MARKER.items() if m in unit.markers]
    if not sides:
        return corners
    deg = float(tables.value("movement.trigger.refuse_flank_max_deg"))
    n = stands_wheeled(unit, tables)
    for side in sides:
        wheeled = geometry.wheeled_stand_corners(fp, side, n, deg)
        corners = tuple(w if w != o else c for w, o, c in zip(wheeled, fp.stand_corners, corners))
    return corners


def _moved_by(old: geometry.Footprint, new: geometry.Footprint) -> tuple[float, float] | None:
    """How far ``new`` is ``old`` moved, where it is only moved: the same facing and every corner
    of the unit and of each stand the same distance off (to a millionth of an inch, far below a
    pixel); None where anything else changed."""
    if old.facing_deg != new.facing_deg or old.colour_index != new.colour_index:
        return None
    if len(old.stand_corners) != len(new.stand_corners):
        return None
    (ox, oy), (nx, ny) = old.centre, new.centre
    dx, dy = nx - ox, ny - oy
    for a, b in zip((old.corners, *old.stand_corners), (new.corners, *new.stand_corners), strict=True):
        for (ax, ay), (bx, by) in zip(a, b, strict=True):
            if abs(bx - ax - dx) > 1e-6 or abs(by - ay - dy) > 1e-6:
                return None
    return dx, dy


class UnitItem(QGraphicsRectItem):
    """A unit drawn as its stands. Paths are rebuilt only when the unit changes.

    Its bounds are a rectangle kept by Qt (the item is a rectangle item whose rectangle is never
    drawn): every repaint of the map asks each unit near it for its bounds, and an answer from
    Qt itself costs far less than one from Python."""

    def __init__(self, unit: Unit, colour: str, tables: RuleTables):
        super().__init__()
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.tables = tables
        self.unit = unit
        self.colour = QColor(colour)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsMovable, True)
        self.setAcceptHoverEvents(True)
        self.setZValue(Z_UNIT)
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        # A unit changes once an action, but the map is repainted far more often (panning,
        # hover, the tools): the item keeps a picture of itself at the zoom in use and redraws
        # it only when the unit, its selection or the zoom changes. Moving it keeps the picture.
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        # the wheel handle is made when the unit is first selected alone: an item drawn at one
        # size on screen is looked at in every repaint of the map, wherever the repaint is
        self._handle: RotateHandle | None = None
        self._handle_pos = QPointF()
        self.footprint: geometry.Footprint | None = None  # the footprint the stands are drawn for
        self._refused: tuple = ()  # and the flanks refused
        self.label = UnitName(self)
        self.label.setBrush(QBrush(QColor("#1b1b1b")))
        self.label.setVisible(False)
        self.label.setZValue(10)
        self.leader = LeaderLine(self)
        # where its name last went when it moved aside, from the unit's centre (x, y), the name's
        # size and the unit's facing then; None until it has moved aside
        self.aside: tuple | None = None
        self.leader.setZValue(9)
        self._always_named = False
        self._name_placed = False
        # what the placing of the name depends on of the unit, as it last changed (set_unit), and
        # whether it changed since the scene last placed the name (the scene clears it)
        self._place_key: tuple | None = None
        self._placed_glyph_text: str | None = None
        self.place_changed = True
        self._glyph_scale = 12.0  # pixels an inch the health glyph's size in inches is kept for
        self._highlight = False
        self._rotation_preview: float | None = None
        self.set_unit(unit, colour)

    @property
    def unit_id(self) -> str:
        return self.unit.id

    @property
    def handle(self) -> RotateHandle:
        """The wheel handle ahead of the unit (hidden until the unit is selected alone)."""
        if self._handle is None:
            self._handle = RotateHandle(self)
            self._handle.setVisible(False)
            self._handle.setPos(self._handle_pos)
        return self._handle

    def show_handle(self, shown: bool) -> None:
        """Show or hide the wheel handle (made only when first shown)."""
        if shown or self._handle is not None:
            self.handle.setVisible(shown)

    def set_unit(self, unit: Unit, colour: str | None = None) -> None:
        self.prepareGeometryChange()
        self.unit = unit
        if colour is not None:
            self.colour = QColor(colour)
        self.setPos(0, 0)
        self.setRotation(0)
        self.label.setRotation(0)
        self._rotation_preview = None
        fp = geometry.footprint(unit, self.tables)
        refused = tuple(side for side, m in REFUSED_MARKER.items() if m in unit.markers)
        if fp is not self.footprint or refused != self._refused:
            # the stands' place or shape changed: their paths drawn again (a ruling that leaves the
            # unit where and as it stood, on its micro-hits say, keeps them)
            self._shape_stands(unit, fp, refused)
        fx, fy = fp.forward
        ox, oy = fp.centre_front
        rx, ry = fp.right
        # markers on the model: a row of badges behind the rear rank
        self._marker_list = [m for m in Marker if m in unit.markers]
        cx, cy = fp.centre
        self._marker_centre = QPointF(cx, cy)
        self._marker_back = QPointF(-fx, -fy)
        self._marker_anchor = self._badge_anchor(BADGE_IN)
        self._marker_dir = QPointF(rx, ry)
        self._handle_pos = QPointF(ox + fx * 2.2, oy + fy * 2.2)
        if self._handle is not None:
            self._handle.setPos(self._handle_pos)
        self.label.set_name(unit.name, hidden=unit.hidden)
        self._set_glyph_text()
        self._glyph_colour = QColor(icons.HEALTH_COLOUR[unit.health])
        # white on the dark greens and reds, black on the amber of a worn unit
        self._glyph_ink = QColor("#111111") if unit.health == Health.WORN else _WHITE
        # what a name must keep clear of: each stand, and the markers' badges
        self.stand_rects = list(self._stand_boxes_only)
        if self._marker_list:
            n = len(self._marker_list)
            half = (n * 0.65) / 2
            a = self._marker_anchor
            self.stand_rects.append(
                QRectF(
                    a - QPointF(abs(rx) * half + 0.3, abs(ry) * half + 0.3),
                    a + QPointF(abs(rx) * half + 0.3, abs(ry) * half + 0.3),
                )
            )
        self._stand_boxes = [(r.x(), r.y(), r.width(), r.height()) for r in self.stand_rects]
        place_key = self._name_place_key()
        if place_key != self._place_key or self._glyph_text != self._placed_glyph_text:
            self._place_key = place_key
            self._placed_glyph_text = self._glyph_text
            self.place_changed = True
        if self.place_changed or not self._name_placed:
            # until the scene places it (a name placed stays where it is while nothing it depends
            # on changed): behind the unit
            self.label.setPos(
                QPointF(cx - fx * (fp.depth / 2 + 0.9) - 1.0, cy - fy * (fp.depth / 2 + 0.9) - 0.4)
            )
        hp = f"{unit.stands}/{unit.stands_start} stands"
        if unit.micro_hits:
            hp += f", {unit.micro_hits} micro-hit"
        marks = ", ".join(m.label for m in self._marker_list)
        self._set_tip(
            f"<b>{unit.name}</b><br>{unit.kind.label}, {unit.formation.label.lower()}, {unit.quality.label.lower()}"
            f"<br>{hp} — {unit.health.label}"
            + (f"<br>Markers: {marks}" if marks else "")
            + ("<br><i>Hidden: the enemy is not shown it until it is spotted</i>" if unit.hidden else "")
        )
        self.setVisible(unit.in_play)
        self._measure_bounds()
        self.update()

    def _shape_stands(self, unit: Unit, fp: geometry.Footprint, refused: tuple) -> None:
        """The paths of the unit's stands, its outline, front and arrow, and each stand's box, for
        its footprint ``fp`` with the flanks ``refused``. A unit that only moved (its stands as
        they stood, each the same distance off) has its paths moved, not drawn again."""
        old = self.footprint
        if not refused and not self._refused and old is not None:
            d = _moved_by(old, fp)
            if d is not None:
                self._move_stands(fp, *d)
                return
        self.footprint = fp
        self._refused = refused
        corners = refused_stands(unit, fp, self.tables)  # a refused flank's stands wheeled back
        self._stand_corners = corners
        self._colour_index = fp.colour_index if corners else -1
        self._outline = polygon_path(list(fp.corners))
        # the stands as two paths, the colour stand and the rest, each filled in one call; and
        # each stand's box (what a name must keep clear of)
        self._colour_stand = QPainterPath()
        self._other_stands = QPainterPath()
        boxes = []
        for i, c in enumerate(corners):
            pts = [QPointF(x, y) for x, y in c]
            path = self._colour_stand if i == self._colour_index else self._other_stands
            path.addPolygon(QPolygonF([*pts, pts[0]]))
            path.closeSubpath()
            xs, ys = [x for x, _ in c], [y for _, y in c]
            boxes.append(QRectF(QPointF(min(xs), min(ys)), QPointF(max(xs), max(ys))))
        if corners:
            self._shape = QPainterPath(self._other_stands)
            self._shape.addPath(self._colour_stand)
        else:
            self._shape = self._outline
        fx, fy = fp.forward
        ox, oy = fp.centre_front
        self._origin = QPointF(ox, oy)
        self._front = QLineF(QPointF(*fp.left_front), QPointF(*fp.right_front))
        self._arrow = QPainterPath()
        tip = QPointF(ox + fx * 0.9, oy + fy * 0.9)
        rx, ry = fp.right
        self._arrow.moveTo(QPointF(ox + rx * 0.3, oy + ry * 0.3))
        self._arrow.lineTo(tip)
        self._arrow.lineTo(QPointF(ox - rx * 0.3, oy - ry * 0.3))
        self._stand_boxes_only = boxes or [self._outline.boundingRect()]
        self.setTransformOriginPoint(self._origin)

    def _move_stands(self, fp: geometry.Footprint, dx: float, dy: float) -> None:
        """:meth:`_shape_stands` for the footprint ``fp``, the one drawn moved by ``dx``, ``dy``
        (no flank refused)."""
        self.footprint = fp
        self._stand_corners = fp.stand_corners
        self._colour_index = fp.colour_index if fp.stand_corners else -1
        self._outline = self._outline.translated(dx, dy)
        self._colour_stand = self._colour_stand.translated(dx, dy)
        self._other_stands = self._other_stands.translated(dx, dy)
        self._shape = self._shape.translated(dx, dy)
        self._arrow = self._arrow.translated(dx, dy)
        self._front = self._front.translated(dx, dy)
        self._origin = QPointF(*fp.centre_front)
        self._stand_boxes_only = [r.translated(dx, dy) for r in self._stand_boxes_only]
        self.setTransformOriginPoint(self._origin)

    def _name_place_key(self) -> tuple:
        """What the placing of the unit's name depends on (with its health glyph's words): its
        stands, place and facing, its markers, its names and whether it is in play."""
        fp = self.footprint
        return (
            self._stand_corners,
            fp.corners,
            fp.centre,
            fp.forward,
            fp.depth,
            fp.frontage_in,
            tuple(self._marker_list),
            self.label.full,
            self.label.short,
            self.unit.in_play,
        )

    def _measure_bounds(self, unit_changed: bool = True) -> None:
        """The item's bounds: the stands and the badges (measured again when the unit changed),
        and the health glyph at the zoom in use."""
        if unit_changed:
            bounds = self._shape.boundingRect().united(self._outline.boundingRect())
            if self._marker_list:  # the badges at their largest, whichever way the unit faces
                far = self._badge_anchor(BADGE_MAX_IN)
                half = len(self._marker_list) * (BADGE_MAX_IN + 0.2) / 2 + BADGE_MAX_IN
                bounds = bounds.united(QRectF(far, far).adjusted(-half, -half, half, half))
            self._unit_bounds = bounds
        self._bounds = self._unit_bounds.united(self.glyph_rect()).adjusted(-1.0, -1.0, 1.0, 1.0)
        self.setRect(self._bounds)  # (the bounds Qt gives for the item)

    # -- the health glyph: stands left, micro-hits, in the colour of the unit's health ------
    def glyph_rect(self, scale: float | None = None) -> QRectF:
        """Where the health glyph is drawn (item inches) at ``scale`` pixels an inch (the scale
        the names were last placed for): a box of fixed size on screen at the unit's centre."""
        k = 1.0 / (scale or self._glyph_scale)
        w, h = self._glyph_width_px * k, GLYPH_H_PX * k
        c = self._marker_centre
        return QRectF(c.x() - w / 2, c.y() - h / 2, w, h)

    def _set_glyph_text(self) -> None:
        self._glyph_text = glyph_text(self.unit, full=self._glyph_scale >= GLYPH_FULL_PX)
        self._glyph_width_px = max(_glyph_width_px(self._glyph_text), GLYPH_H_PX)

    def set_glyph_scale(self, scale: float) -> None:
        """Keep the glyph's box (and so the item's bounds) for ``scale`` pixels an inch, and what
        it says at that zoom."""
        if scale > 0 and abs(scale - self._glyph_scale) > 1e-9:
            self.prepareGeometryChange()
            self._glyph_scale = scale
            self._set_glyph_text()
            self._placed_glyph_text = self._glyph_text  # (the scene places the names at this zoom)
            self._measure_bounds(unit_changed=False)
            self.update()

    def solid_rects(self) -> list[QRectF]:
        """What a name must never cover of this unit (scene inches): its stands, its markers'
        badges and its health glyph."""
        off = self.pos()
        return [r.translated(off) for r in (*self.stand_rects, self.glyph_rect())]

    def solid_boxes(self) -> list[tuple[float, float, float, float]]:
        """:meth:`solid_rects` as (x, y, width, height), the very same numbers, without making a
        rectangle of each: the names' placing marks every unit's at every zoom."""
        off = self.pos()
        ox, oy = off.x(), off.y()
        k = 1.0 / self._glyph_scale
        w, h = self._glyph_width_px * k, GLYPH_H_PX * k
        c = self._marker_centre
        glyph = (c.x() - w / 2, c.y() - h / 2, w, h)
        return [(x + ox, y + oy, bw, bh) for x, y, bw, bh in (*self._stand_boxes, glyph)]

    def _paint_glyph(self, painter: QPainter, px_per_in: float) -> None:
        if px_per_in <= 0:
            return
        w, h = self._glyph_width_px, GLYPH_H_PX
        dot = bool(self.unit.micro_hits and "+" not in self._glyph_text)  # zoomed out: a dot for it
        device = painter.device()
        ratio = device.devicePixelRatioF() if device is not None else 1.0
        pm = _glyph_picture(
            self._glyph_text, self._glyph_colour.name(), self._glyph_ink.name(), dot, w, ratio
        )
        painter.save()
        painter.translate(self._marker_centre)
        painter.scale(1.0 / px_per_in, 1.0 / px_per_in)
        painter.drawPixmap(QRectF(-w / 2, -h / 2, w, h), pm, QRectF(pm.rect()))
        painter.restore()

    def _set_tip(self, tip: str) -> None:
        if tip != getattr(self, "_tip", None):
            self._tip = tip
            self.setToolTip(tip)

    def _badge_anchor(self, size: float) -> QPointF:
        """The middle of the row of marker badges of ``size`` inches: just behind the rear rank."""
        back = self.footprint.depth / 2 + 0.15 + size / 2
        return self._marker_centre + self._marker_back * back

    @staticmethod
    def badge_size(painter: QPainter) -> float:
        """The badges' size in inches where ``painter`` draws: 0.55", or more where that would be
        fewer than BADGE_MIN_PX pixels, up to BADGE_MAX_IN."""
        return UnitItem._badge_size(px_per_inch(painter.worldTransform()))

    @staticmethod
    def _badge_size(px_per_in: float) -> float:
        if px_per_in <= 0:
            return BADGE_IN
        return min(max(BADGE_IN, BADGE_MIN_PX / px_per_in), BADGE_MAX_IN)

    def shape(self) -> QPainterPath:
        return self._shape

    def set_highlight(self, on: bool) -> None:
        if self._highlight != on:
            self._highlight = on
            self.update()

    def paint(self, painter: QPainter, option, widget=None) -> None:
        px_per_in = px_per_inch(painter.worldTransform())
        near = px_per_in >= DETAIL_PX  # the whole table in view: no flag, no arrow (the front says it)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        base = self.colour
        painter.setPen(_DISORDERED_EDGE if self.unit.disordered else _STAND_EDGE)
        if not self._other_stands.isEmpty():
            painter.setBrush(base.lighter(150))
            painter.drawPath(self._other_stands)
        if self._colour_index >= 0:
            painter.setBrush(base)
            painter.drawPath(self._colour_stand)
            if near:  # the colour stand's flag
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(_WHITE)
                painter.drawEllipse(self._origin, 0.16, 0.16)
        painter.setPen(_FRONT_PEN)
        painter.drawLine(self._front)
        if near:
            painter.setPen(_ARROW_PEN)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self._arrow)
        if self._marker_list:
            size = self._badge_size(px_per_in)
            gap = size * 0.18
            n = len(self._marker_list)
            start = self._badge_anchor(size) - self._marker_dir * ((n - 1) * (size + gap) / 2)
            for i, m in enumerate(self._marker_list):
                c = start + self._marker_dir * (i * (size + gap))
                r = QRectF(c.x() - size / 2, c.y() - size / 2, size, size)
                painter.setPen(_BADGE_EDGE)
                painter.setBrush(icons.marker_colour(m))
                painter.drawRect(r)
                painter.save()
                painter.translate(c)
                painter.scale(size / 14.0, size / 14.0)
                painter.setPen(_WHITE)
                painter.setFont(_BADGE_FONT)
                painter.drawText(QRectF(-7, -7, 14, 14), Qt.AlignmentFlag.AlignCenter, icons.marker_letter(m))
                painter.restore()
        if self.isSelected() or self._highlight:
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(_SELECTED_PEN if self.isSelected() else _HIGHLIGHT_PEN)
            painter.drawPath(self._outline)
        self._paint_glyph(painter, px_per_in)

    # -- the name: placed by the scene, shown on hover ----------------------------------------
    @property
    def named(self) -> bool:
        """Whether the unit's name is shown on the map (names are on), to be placed by the scene."""
        return self._always_named

    @property
    def name_placed(self) -> bool:
        """Whether the scene placed the name and shows it (False: left off, or names are off)."""
        return self._name_placed

    def show_name(self, on: bool, leader: bool = False) -> None:
        """Show the name where the scene placed it (with its leader line), or leave it off."""
        self._name_placed = on
        self.label.setVisible(on)
        self.leader.setVisible(on and leader)

    def hoverEnterEvent(self, event: QGraphicsSceneHoverEvent) -> None:  # noqa: N802
        self.label.setVisible(True)
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event: QGraphicsSceneHoverEvent) -> None:  # noqa: N802
        self.label.setVisible(self._always_named and self._name_placed)
        super().hoverLeaveEvent(event)

    def set_always_named(self, on: bool) -> None:
        self._always_named = on
        self._name_placed = on
        self.label.setVisible(on)
        if not on:
            self.leader.setVisible(False)

    # -- moving and wheeling: one action on release ---------------------------------------
    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        sc = self.scene()
        if isinstance(sc, DragHost) and sc.tool != "select":
            event.ignore()
            return
        self.setCursor(Qt.CursorShape.ClosedHandCursor)
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        super().mouseMoveEvent(event)
        sc = self.scene()
        if isinstance(sc, DragHost):
            sc.show_drag_distance(self, place=_shift(event))

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        super().mouseReleaseEvent(event)
        sc = self.scene()
        if isinstance(sc, DragHost):
            sc.hide_drag_distance()
            sc.commit_drag(place=_shift(event))

    def preview_facing(self, scene_pos: QPointF, fine: bool = False) -> None:
        new = self.facing_towards(scene_pos, fine)
        self._rotation_preview = new
        self.setRotation(new - self.unit.facing_deg)
        self.label.setRotation(self.unit.facing_deg - new)  # the name stays upright
        sc = self.scene()
        said = getattr(sc, "measured", None)
        if said is not None:
            turn = ((new - self.unit.facing_deg) + 180) % 360 - 180
            step = "a degree at a time" if fine else f"{WHEEL_STEP_DEG:g} degree steps; Ctrl for a fine turn"
            said.emit(f"{self.unit.name}: wheels {abs(turn):.0f}° to face {new:.0f}° ({step})")

    def facing_towards(self, scene_pos: QPointF, fine: bool = False) -> float:
        """The facing the handle points to from the colour stand: the unit's own facing turned by a
        whole number of 15 degree steps (of degrees, ``fine``), the nearest to the pointer."""
        o = self._origin + self.pos()
        dx, dy = scene_pos.x() - o.x(), scene_pos.y() - o.y()
        if abs(dx) < 1e-9 and abs(dy) < 1e-9:
            return self.unit.facing_deg
        pointed = math.degrees(math.atan2(dx, -dy)) % 360
        turn = ((pointed - self.unit.facing_deg) + 180) % 360 - 180
        step = FINE_STEP_DEG if fine else WHEEL_STEP_DEG
        return round((self.unit.facing_deg + round(turn / step) * step) % 360, 1) % 360

    def commit_facing(self, scene_pos: QPointF, fine: bool = False) -> None:
        new = self.facing_towards(scene_pos, fine)
        self.setRotation(0)
        self.label.setRotation(0)
        self._rotation_preview = None
        sc = self.scene()
        if isinstance(sc, DragHost) and abs(((new - self.unit.facing_deg) + 180) % 360 - 180) >= 0.5:
            sc.request_move(self.unit.id, self.unit.x, self.unit.y, new)
