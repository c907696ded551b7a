"""The battlefield: the table in inches, its terrain and its units, with the umpire's tools.

The scene's coordinates are the table's own: inches, ``x`` to the right and ``y`` down the table,
exactly as :mod:`rules` uses them, so nothing is converted; the view scales inches to pixels.

* Terrain is drawn by type (woods, fields, towns, fences, walls, streams, roads, hills with their
  contour and crestline). Each feature's path is built once, when the feature changes.
* Units are drawn as their stands in formation (:func:`rules.geometry.footprint`), in their side's
  colour, with the colour stand, the facing and their markers on the model; the name shows on hover.
* Dragging a unit moves it and a handle ahead of it wheels it; the move is ONE action, run on
  mouse release. Undo puts it back.
* Tools: select / move, ruler (inches, from the colour stand to the nearest edge of a unit),
  line of sight (the line, and why it is blocked, with the rule), and drawing terrain of any type
  in the rulebook's list; terrain can be moved and deleted while terrain editing is on.
* The selected unit's forward arc (RULE-03-5.1) and flank zones are shaded.

A :class:`~gui.controller.ChangeSummary` updates only the items it names.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QFont,
    QImage,
    QKeyEvent,
    QKeySequence,
    QPaintEngine,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
    QPolygonF,
    QTransform,
)
from PySide6.QtWidgets import (
    QComboBox,
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsSceneHoverEvent,
    QGraphicsSceneMouseEvent,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QLabel,
    QSpinBox,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gui import icons
from gui.controller import ChangeSummary, GameController
from rules import geometry
from rules.battle import Battle
from rules.errors import RulesError
from rules.model import Marker, Unit
from rules.tables import RuleTables, load_tables
from rules.terrain import AREA_TYPES, LINEAR_TYPES, TerrainFeature, TerrainType

# -- how terrain is drawn -------------------------------------------------------------------

# fill colour, outline colour, brush pattern for area terrain
AREA_STYLE: dict[TerrainType, tuple[str, str, Qt.BrushStyle | None]] = {
    TerrainType.OPEN: ("#00000000", "#9a9a7a", None),
    TerrainType.LIGHT_WOODS: ("#a9cf8f", "#5b8a43", Qt.BrushStyle.Dense6Pattern),
    TerrainType.ORCHARD: ("#c3dca4", "#6f9a4e", Qt.BrushStyle.Dense7Pattern),
    TerrainType.DENSE_WOODS: ("#6e9d57", "#3d6a2a", Qt.BrushStyle.Dense5Pattern),
    TerrainType.CORNFIELD: ("#eddc8a", "#b39a3c", Qt.BrushStyle.VerPattern),
    TerrainType.SWAMP: ("#a7c4b8", "#5f8f80", Qt.BrushStyle.HorPattern),
    TerrainType.PLOUGHED_FIELD: ("#d2b48c", "#9c7a4e", Qt.BrushStyle.BDiagPattern),
    TerrainType.TOWN_WOODEN: ("#d7b48f", "#8a6038", Qt.BrushStyle.CrossPattern),
    TerrainType.TOWN_MASONRY: ("#c2b8ae", "#6e625a", Qt.BrushStyle.DiagCrossPattern),
    TerrainType.BUILDING: ("#9b6a48", "#4a2f1c", None),
    TerrainType.RUBBLE: ("#aca297", "#6a6055", Qt.BrushStyle.Dense4Pattern),
}
# colour, width in inches, pen style, casing colour (drawn under, wider) for linear terrain
LINEAR_STYLE: dict[TerrainType, tuple[str, float, Qt.PenStyle, str | None]] = {
    TerrainType.SPLIT_RAIL_FENCE: ("#7a4e22", 0.1, Qt.PenStyle.SolidLine, None),  # drawn zig-zag
    TerrainType.STONE_WALL: ("#9a9a94", 0.35, Qt.PenStyle.SolidLine, "#4a4a4a"),  # with its stones
    TerrainType.HEDGE: ("#2f6b25", 0.45, Qt.PenStyle.SolidLine, "#1f4a18"),  # with its bushes
    TerrainType.ABATIS: ("#6b4f2a", 0.4, Qt.PenStyle.DashDotLine, None),
    TerrainType.BREASTWORKS: ("#8a6a44", 0.5, Qt.PenStyle.SolidLine, "#5a4028"),
    TerrainType.SUNKEN_ROAD: ("#9c7442", 1.2, Qt.PenStyle.SolidLine, "#4e3519"),  # with its banks
    TerrainType.STREAM: ("#5b9bd5", 0.5, Qt.PenStyle.SolidLine, None),
    TerrainType.FORD: ("#9cc6ec", 1.0, Qt.PenStyle.DashLine, "#5b9bd5"),
    TerrainType.BRIDGE: ("#8b7a66", 1.0, Qt.PenStyle.SolidLine, "#4a3f33"),
    TerrainType.ROAD: ("#e4d3a6", 1.0, Qt.PenStyle.SolidLine, "#b9a270"),
}
HILL_FILL = {1: "#e3d3ac", 2: "#cdb485"}
HILL_EDGE = "#8a6d3b"
CREST_COLOUR = "#5a3410"
TERRAIN_NAME_COLOUR = "#3b3b2a"
TABLE_COLOUR = "#eef0dc"

Z_HILL, Z_AREA, Z_LINEAR, Z_OVERLAY, Z_UNIT, Z_TOOL = 0, 10, 20, 30, 40, 50
# the largest picture of the table and grid a scene keeps (4 million pixels, 16 MB): a bigger
# picture (a large print) is drawn straight onto its page
_BACKGROUND_CACHE_PX = 4_000_000


def cosmetic_pen(
    colour: str | QColor, width: float = 1.0, style: Qt.PenStyle = Qt.PenStyle.SolidLine
) -> QPen:
    pen = QPen(QColor(colour), width, style)
    pen.setCosmetic(True)
    return pen


def px_per_inch(transform: QTransform) -> float:
    """How many pixels an inch of the table covers under ``transform`` (turned or not)."""
    return transform.map(QLineF(0, 0, 1, 0)).length()


def polygon_path(points: Iterable[tuple[float, float]], closed: bool = True) -> QPainterPath:
    pts = [QPointF(x, y) for x, y in points]
    path = QPainterPath()
    if not pts:
        return path
    if closed:
        path.addPolygon(QPolygonF([*pts, pts[0]]))
        path.closeSubpath()
    else:
        path.moveTo(pts[0])
        for p in pts[1:]:
            path.lineTo(p)
    return path


def shapely_path(geom) -> QPainterPath:
    """A QPainterPath of a shapely polygon or multipolygon (exterior rings; holes subtracted)."""
    path = QPainterPath()
    polys = getattr(geom, "geoms", [geom])
    for g in polys:
        if g.is_empty or not hasattr(g, "exterior"):
            continue
        path.addPath(polygon_path(list(g.exterior.coords)[:-1]))
        for hole in g.interiors:
            path = path.subtracted(polygon_path(list(hole.coords)[:-1]))
    return path


def _wrap(text: str, width: int) -> list[str]:
    import textwrap

    return textwrap.wrap(text.strip(), width) or [""]


def _shift(event) -> bool:
    """Shift held: a drag is the umpire's placement rather than a march."""
    return bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)


def _label_font(px: int = 12, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(px)
    f.setBold(bold)
    return f


# -- terrain decorations: built once per feature, drawn in paint() -----------------------------


def _along(points, step: float):
    """Points every ``step`` inches along a polyline, with the unit direction there: (x, y, dx, dy)."""
    out = []
    carry = step / 2
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        seg = math.hypot(x1 - x0, y1 - y0)
        if seg <= 1e-9:
            continue
        dx, dy = (x1 - x0) / seg, (y1 - y0) / seg
        t = carry
        while t <= seg:
            out.append((x0 + dx * t, y0 + dy * t, dx, dy))
            t += step
        carry = t - seg
    return out


def zigzag_path(points, amplitude: float = 0.22, step: float = 0.5) -> QPainterPath:
    """A worm (split-rail) fence: the line drawn as a zig-zag."""
    path = QPainterPath()
    if len(points) < 2:
        return path
    path.moveTo(QPointF(*points[0]))
    for i, (x, y, dx, dy) in enumerate(_along(points, step)):
        side = amplitude if i % 2 == 0 else -amplitude
        path.lineTo(QPointF(x - dy * side, y + dx * side))
    path.lineTo(QPointF(*points[-1]))
    return path


def ticks_path(points, length: float, step: float, both: bool = True, offset: float = 0.0) -> QPainterPath:
    """Short strokes square to a line every ``step`` inches (hachures on a crest or a bank);
    ``offset`` starts them that far out from the line."""
    path = QPainterPath()
    for x, y, dx, dy in _along(points, step):
        nx, ny = -dy, dx
        for sgn in (1, -1) if both else (1,):
            a = QPointF(x + nx * sgn * offset, y + ny * sgn * offset)
            b = QPointF(x + nx * sgn * (offset + length), y + ny * sgn * (offset + length))
            path.moveTo(a)
            path.lineTo(b)
    return path


def dots_along(points, step: float) -> list[QPointF]:
    return [QPointF(x, y) for x, y, _dx, _dy in _along(points, step)]


def feature_anchor(f: TerrainFeature) -> QPointF:
    """Where a feature's name goes: the middle of a line, the centre of an area or a hill."""
    pts = list(f.points)
    if not pts:
        return QPointF()
    if f.is_linear:
        along = _along(pts, 0.25)
        if along:
            x, y, _dx, _dy = along[len(along) // 2]
            return QPointF(x, y)
        return QPointF(*pts[0])
    centre = _centroid(pts)
    if centre is not None and _inside(centre, pts):
        return QPointF(*centre)
    try:  # a bent outline whose centroid falls outside it: a point surely inside
        from shapely.geometry import Polygon

        c = Polygon(pts).representative_point()
        return QPointF(c.x, c.y)
    except Exception:  # a degenerate outline: the mean of its points
        return QPointF(sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))


def _centroid(pts: list[tuple[float, float]]) -> tuple[float, float] | None:
    """The centroid of a polygon's area (None when it has none)."""
    a = cx = cy = 0.0
    for (x0, y0), (x1, y1) in zip(pts, [*pts[1:], pts[0]], strict=True):
        cross = x0 * y1 - x1 * y0
        a += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    if abs(a) < 1e-12:
        return None
    return (cx / (3 * a), cy / (3 * a))


def _inside(p: tuple[float, float], pts: list[tuple[float, float]]) -> bool:
    """Whether ``p`` is inside the polygon ``pts`` (even-odd rule)."""
    x, y = p
    inside = False
    for (x0, y0), (x1, y1) in zip(pts, [*pts[1:], pts[0]], strict=True):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


# -- names on the map --------------------------------------------------------------------------


class NameLabel(QGraphicsSimpleTextItem):
    """A name drawn at a fixed size on screen, on a pale halo so that it reads over anything.

    The scene places it (:meth:`BattlefieldScene.layout_labels`): behind its unit, or beside it
    where that is taken, clear of the other names, stands and obstacles."""

    PAD_X, PAD_Y = 3.0, 1.0

    def __init__(self, parent: QGraphicsItem, px: int = 11, bold: bool = True, italic: bool = False):
        super().__init__(parent)
        self._box = QRectF()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        f = _label_font(px, bold=bold)
        f.setItalic(italic)
        self.setFont(f)
        self.halo = QColor(255, 255, 250, 205)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        # a name is drawn at one size on screen and seldom changes: shaping and drawing its
        # text is dear, so the item keeps a picture of itself until its text or place changes
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def setText(self, text: str) -> None:  # noqa: N802
        super().setText(text)
        self._measure()

    def setFont(self, font: QFont) -> None:  # noqa: N802
        super().setFont(font)
        self._measure()

    def _measure(self) -> None:
        # the box with its halo, kept: the scene asks for it many times a frame
        self.prepareGeometryChange()
        self._box = super().boundingRect().adjusted(-self.PAD_X, -self.PAD_Y, self.PAD_X, self.PAD_Y)

    def boundingRect(self) -> QRectF:  # noqa: N802
        return self._box

    def shape(self) -> QPainterPath:
        p = QPainterPath()
        p.addRect(self._box)
        return p

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.halo)
        painter.drawRoundedRect(self.boundingRect(), 3, 3)
        super().paint(painter, option, widget)

    def size_px(self) -> tuple[float, float]:
        r = self.boundingRect()
        return r.width(), r.height()


class _RectIndex:
    """Rectangles (in inches) in buckets of a grid, to find quickly what a candidate place overlaps."""

    CELL = 4.0

    def __init__(self):
        self._cells: dict[tuple[int, int], list[QRectF]] = {}

    def _keys(self, r: QRectF):
        c = self.CELL
        for i in range(math.floor(r.left() / c), math.floor(r.right() / c) + 1):
            for j in range(math.floor(r.top() / c), math.floor(r.bottom() / c) + 1):
                yield i, j

    def add(self, r: QRectF) -> None:
        for k in self._keys(r):
            self._cells.setdefault(k, []).append(r)

    def overlap(self, r: QRectF, limit: float = math.inf) -> float:
        """The area of ``r`` that the rectangles here cover (counted once per rectangle); the
        count stops once it passes ``limit``."""
        seen: set[int] = set()
        total = 0.0
        for k in self._keys(r):
            for o in self._cells.get(k, ()):
                if id(o) in seen:
                    continue
                seen.add(id(o))
                if o.intersects(r):
                    i = o.intersected(r)
                    total += i.width() * i.height()
                    if total > limit:
                        return total
        return total


# -- the legend --------------------------------------------------------------------------------

#: The terrain shown in the legend, in the order it is listed.
LEGEND_TYPES: tuple[TerrainType, ...] = (
    TerrainType.HILL,
    TerrainType.LIGHT_WOODS,
    TerrainType.DENSE_WOODS,
    TerrainType.ORCHARD,
    TerrainType.CORNFIELD,
    TerrainType.PLOUGHED_FIELD,
    TerrainType.SWAMP,
    TerrainType.TOWN_WOODEN,
    TerrainType.TOWN_MASONRY,
    TerrainType.BUILDING,
    TerrainType.RUBBLE,
    TerrainType.SPLIT_RAIL_FENCE,
    TerrainType.STONE_WALL,
    TerrainType.HEDGE,
    TerrainType.ABATIS,
    TerrainType.BREASTWORKS,
    TerrainType.SUNKEN_ROAD,
    TerrainType.ROAD,
    TerrainType.STREAM,
    TerrainType.FORD,
    TerrainType.BRIDGE,
)


def legend_label(t: TerrainType) -> str:
    return "Hill with its crestline" if t == TerrainType.HILL else t.label


def terrain_swatch(t: TerrainType, width_px: int = 56, height_px: int = 24, px_per_in: float = 12.0):
    """A small picture of terrain of type ``t`` drawn as the map draws it, for the legends."""
    from PySide6.QtGui import QImage

    w_in, h_in = width_px / px_per_in, height_px / px_per_in
    if t == TerrainType.HILL:
        pts = [(0.1, h_in - 0.1), (0.6, 0.15), (w_in - 0.6, 0.15), (w_in - 0.1, h_in - 0.1)]
        f = TerrainFeature(
            "swatch", t, tuple(pts), level=1, crest=((0.8, h_in * 0.45), (w_in - 0.8, h_in * 0.45))
        )
    elif t in LINEAR_TYPES:
        f = TerrainFeature("swatch", t, ((0.3, h_in / 2), (w_in - 0.3, h_in / 2)))
    else:
        f = TerrainFeature(
            "swatch", t, ((0.1, 0.1), (w_in - 0.1, 0.1), (w_in - 0.1, h_in - 0.1), (0.1, h_in - 0.1))
        )
    img = QImage(width_px, height_px, QImage.Format.Format_ARGB32)
    img.fill(QColor(TABLE_COLOUR))
    scene = QGraphicsScene()
    item = TerrainItem(f)
    item.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    item.name_label.setVisible(False)
    scene.addItem(item)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    scene.render(p, QRectF(0, 0, width_px, height_px), QRectF(0, 0, w_in, h_in))
    p.end()
    scene.clear()
    return img


# -- terrain items ------------------------------------------------------------------------------


class TerrainItem(QGraphicsPathItem):
    """One terrain feature. Its paths are built when the feature changes, never in paint()."""

    def __init__(self, feature: TerrainFeature):
        super().__init__()
        self._bounds = QRectF()
        # terrain seldom changes: each item keeps a picture of itself for the zoom in use
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.feature = feature
        self._shape = QPainterPath()
        self._crest: QGraphicsPathItem | None = None
        self._hachures: QGraphicsPathItem | None = None
        self.name_label = NameLabel(self, px=11, bold=False, italic=True)
        self.name_label.setBrush(QColor(TERRAIN_NAME_COLOUR))
        self.name_label.halo = QColor(255, 255, 245, 150)
        self.name_label.setZValue(Z_UNIT + 5)
        self.setAcceptHoverEvents(True)
        self.set_feature(feature)

    @property
    def feature_id(self) -> str:
        return self.feature.id

    def set_feature(self, f: TerrainFeature) -> None:
        self.prepareGeometryChange()
        self.obstacle_rects: list[QRectF] = []
        self.feature = f
        self.setPos(0, 0)
        t = f.type
        if f.is_hill:
            self.setZValue(Z_HILL + f.level)
            self.setPath(polygon_path(f.points))
            self.setBrush(QBrush(QColor(HILL_FILL.get(f.level, HILL_FILL[2]))))
            pen = QPen(QColor(HILL_EDGE), 0.12)
            pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
            self.setPen(pen)
            if self._crest is None:
                self._crest = QGraphicsPathItem(self)
            if f.crest:
                # the crestline: a heavy dark-brown line with hachures down both slopes
                crest = polygon_path(f.crest, closed=False)
                self._crest.setPath(crest)
                if self._hachures is None:
                    self._hachures = QGraphicsPathItem(self)
                self._hachures.setPath(ticks_path(list(f.crest), 0.45, 0.6, both=True, offset=0.1))
                hp = QPen(QColor(CREST_COLOUR), 0.06)
                hp.setCapStyle(Qt.PenCapStyle.FlatCap)
                self._hachures.setPen(hp)
                self._hachures.setVisible(True)
                cp = QPen(QColor(CREST_COLOUR), 0.2, Qt.PenStyle.SolidLine)
                cp.setCapStyle(Qt.PenCapStyle.RoundCap)
                cp.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
                self._crest.setPen(cp)
                self._crest.setToolTip(f"Crest of {f.name or 'the hill'} (RULE-03-4.3)")
                self._crest.setVisible(True)
            else:
                self._crest.setVisible(False)
                if self._hachures is not None:
                    self._hachures.setVisible(False)
            self._shape = self.path()
        elif t in AREA_TYPES:
            fill, edge, pattern = AREA_STYLE[t]
            self.setZValue(Z_AREA + (2 if t in (TerrainType.BUILDING,) else 0))
            self.setPath(polygon_path(f.points))
            self.setBrush(QBrush(QColor(fill)))
            pen = QPen(QColor(edge), 0.1)
            self.setPen(pen)
            self._pattern = QBrush(QColor(edge), pattern) if pattern is not None else None
            self._shape = self.path()
        else:
            colour, width, style, casing = LINEAR_STYLE[t]
            w = max(width, f.width_in) if f.width_in else width
            self.setZValue(Z_LINEAR + (1 if t in (TerrainType.STREAM, TerrainType.ROAD) else 2))
            path = polygon_path(f.points, closed=False)
            self.setPath(path)
            self.setBrush(Qt.BrushStyle.NoBrush)
            pen = QPen(QColor(colour), w, style)
            pen.setCapStyle(
                Qt.PenCapStyle.RoundCap if style == Qt.PenStyle.SolidLine else Qt.PenCapStyle.FlatCap
            )
            pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
            self.setPen(pen)
            self._casing = QPen(QColor(casing), w + 0.16) if casing else None
            if self._casing is not None:
                self._casing.setCapStyle(Qt.PenCapStyle.RoundCap)
                self._casing.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
            self._decor: list[tuple[QPen, QPainterPath]] = []
            self._dots: tuple[QColor, float, list[QPointF]] | None = None
            pts = list(f.points)
            if t == TerrainType.SPLIT_RAIL_FENCE:
                # a worm fence zig-zags; the plain line is not drawn
                zz = QPen(QColor(colour), 0.1)
                zz.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
                self._decor.append((zz, zigzag_path(pts)))
                self.setPen(QPen(Qt.PenStyle.NoPen))
            elif t == TerrainType.STONE_WALL:
                self._dots = (QColor("#d8d8d0"), 0.11, dots_along(pts, 0.4))
            elif t == TerrainType.HEDGE:
                self._dots = (QColor("#5f9e48"), 0.13, dots_along(pts, 0.45))
            elif t == TerrainType.SUNKEN_ROAD:
                # the banks: dark edges with short strokes down into the lane
                bank = QPen(QColor(casing), 0.07)
                self._decor.append((bank, ticks_path(pts, 0.25, 0.6, both=True, offset=w / 2 - 0.05)))
            stroker = QPainterPathStroker()
            stroker.setWidth(max(w, 0.6))
            self._shape = stroker.createStroke(path)
            # what a name must keep clear of: small boxes along the line
            half = max(w / 2, 0.5)
            self.obstacle_rects = [
                QRectF(x - half, y - half, 2 * half, 2 * half) for x, y, _dx, _dy in _along(pts, 1.0)
            ]
        self._bounds = super().boundingRect().adjusted(-0.4, -0.4, 0.4, 0.4)
        name = f.name or f.type.label
        extra = f", level {f.level}" if f.is_hill else ""
        self.setToolTip(f"{name} ({f.type.label}{extra})")
        self.name_label.setText(f.name)
        self.name_label.setVisible(bool(f.name))
        self.name_label.setToolTip(f"{name} ({f.type.label}{extra})")
        self.update()

    def shape(self) -> QPainterPath:
        return self._shape

    def boundingRect(self) -> QRectF:  # noqa: N802
        return self._bounds

    def paint(self, painter: QPainter, option, widget=None) -> None:
        f = self.feature
        if f.is_linear:
            if self._casing is not None:
                painter.setPen(self._casing)
                painter.drawPath(self.path())
            painter.setPen(self.pen())
            painter.drawPath(self.path())
            if f.type == TerrainType.STREAM:
                painter.setPen(QPen(QColor("#2f6fad"), 0.08))
                painter.drawPath(self.path())
            for pen, path in getattr(self, "_decor", ()):
                painter.setPen(pen)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawPath(path)
            dots = getattr(self, "_dots", None)
            if dots is not None:
                colour, r, centres = dots
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(colour)
                for c in centres:
                    painter.drawEllipse(c, r, r)
        else:
            painter.setPen(self.pen())
            painter.setBrush(self.brush())
            painter.drawPath(self.path())
            if not f.is_hill and getattr(self, "_pattern", None) is not None:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(self._pattern)
                painter.drawPath(self.path())
        if self.isSelected():
            painter.setPen(cosmetic_pen("#ff8c00", 2, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self._shape)


# -- unit items ----------------------------------------------------------------------------------


class RotateHandle(QGraphicsEllipseItem):
    """The handle ahead of a selected unit: drag it to wheel the unit about its colour stand."""

    RADIUS = 0.45

    def __init__(self, unit_item: UnitItem):
        super().__init__(-self.RADIUS, -self.RADIUS, 2 * self.RADIUS, 2 * self.RADIUS, unit_item)
        self.unit_item = unit_item
        self.setBrush(QBrush(QColor("#ffd54f")))
        self.setPen(cosmetic_pen("#5d4037", 1.5))
        self.setCursor(Qt.CursorShape.CrossCursor)
        self.setToolTip("Drag to wheel the unit about its colour stand")
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
            self.unit_item.preview_facing(event.scenePos())
            event.accept()

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        if self._dragging:
            self._dragging = False
            self.unit_item.commit_facing(event.scenePos())
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

#: A marker's badge is 0.55" on the model, and never less than this many pixels on screen or on
#: paper (a letter must be read at the zoom that shows the whole table), up to BADGE_MAX_IN.
BADGE_IN = 0.55
BADGE_MIN_PX = 12.0
BADGE_MAX_IN = 1.5


class UnitItem(QGraphicsItem):
    """A unit drawn as its stands. Paths are rebuilt only when the unit changes."""

    def __init__(self, unit: Unit, colour: str, tables: RuleTables):
        super().__init__()
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
        self.handle = RotateHandle(self)
        self.handle.setVisible(False)
        self.label = NameLabel(self, px=11, bold=True)
        self.label.setBrush(QBrush(QColor("#1b1b1b")))
        self.label.setVisible(False)
        self.label.setZValue(10)
        self._always_named = False
        self._highlight = False
        self._rotation_preview: float | None = None
        self.set_unit(unit, colour)

    @property
    def unit_id(self) -> str:
        return self.unit.id

    def set_unit(self, unit: Unit, colour: str | None = None) -> None:
        self.prepareGeometryChange()
        self.unit = unit
        if colour is not None:
            self.colour = QColor(colour)
        self.setPos(0, 0)
        self.setRotation(0)
        self._rotation_preview = None
        fp = geometry.footprint(unit, self.tables)
        self.footprint = fp
        self._stands = [polygon_path(list(c)) for c in fp.stand_corners]
        self._colour_index = fp.colour_index if fp.stand_corners else -1
        self._outline = polygon_path(list(fp.corners))
        # the stands as two paths, the colour stand and the rest, each filled in one call
        self._colour_stand = QPainterPath()
        self._other_stands = QPainterPath()
        for i, p in enumerate(self._stands):
            (self._colour_stand if i == self._colour_index else self._other_stands).addPath(p)
        self._shape = QPainterPath()
        for p in self._stands:
            self._shape.addPath(p)
        if not self._stands:
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
        # markers on the model: a row of badges behind the rear rank
        self._marker_list = [m for m in Marker if m in unit.markers]
        cx, cy = fp.centre
        self._marker_centre = QPointF(cx, cy)
        self._marker_back = QPointF(-fx, -fy)
        self._marker_anchor = self._badge_anchor(BADGE_IN)
        self._marker_dir = QPointF(rx, ry)
        self.setTransformOriginPoint(self._origin)
        self.handle.setPos(ox + fx * 2.2, oy + fy * 2.2)
        self.label.setText(unit.name)
        # what a name must keep clear of: each stand, and the markers' badges
        self.stand_rects = [p.boundingRect() for p in self._stands] or [self._outline.boundingRect()]
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
        # until the scene places it: behind the unit
        self.label.setPos(QPointF(cx - fx * (fp.depth / 2 + 0.9) - 1.0, cy - fy * (fp.depth / 2 + 0.9) - 0.4))
        hp = f"{unit.stands}/{unit.stands_start} stands"
        if unit.micro_hits:
            hp += f", {unit.micro_hits} micro-hit"
        marks = ", ".join(m.label for m in self._marker_list)
        self.setToolTip(
            f"<b>{unit.name}</b><br>{unit.kind.label}, {unit.formation.label.lower()}, {unit.quality.label.lower()}"
            f"<br>{hp} — {unit.health.label}" + (f"<br>Markers: {marks}" if marks else "")
        )
        self.setVisible(unit.in_play)
        self._bounds = self._shape.boundingRect().united(self._outline.boundingRect())
        if self._marker_list:  # the badges at their largest, whichever way the unit faces
            far = self._badge_anchor(BADGE_MAX_IN)
            half = len(self._marker_list) * (BADGE_MAX_IN + 0.2) / 2 + BADGE_MAX_IN
            self._bounds = self._bounds.united(QRectF(far, far).adjusted(-half, -half, half, half))
        self._bounds = self._bounds.adjusted(-1.0, -1.0, 1.0, 1.0)
        self.update()

    def _badge_anchor(self, size: float) -> QPointF:
        """The middle of the row of marker badges of ``size`` inches: just behind the rear rank."""
        back = self.footprint.depth / 2 + 0.15 + size / 2
        return self._marker_centre + self._marker_back * back

    @staticmethod
    def badge_size(painter: QPainter) -> float:
        """The badges' size in inches where ``painter`` draws: 0.55", or more where that would be
        fewer than BADGE_MIN_PX pixels, up to BADGE_MAX_IN."""
        px_per_in = px_per_inch(painter.worldTransform())
        if px_per_in <= 0:
            return BADGE_IN
        return min(max(BADGE_IN, BADGE_MIN_PX / px_per_in), BADGE_MAX_IN)

    def boundingRect(self) -> QRectF:  # noqa: N802
        return self._bounds

    def shape(self) -> QPainterPath:
        return self._shape

    def set_highlight(self, on: bool) -> None:
        if self._highlight != on:
            self._highlight = on
            self.update()

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        base = self.colour
        painter.setPen(_DISORDERED_EDGE if self.unit.disordered else _STAND_EDGE)
        if not self._other_stands.isEmpty():
            painter.setBrush(base.lighter(150))
            painter.drawPath(self._other_stands)
        if self._colour_index >= 0:
            painter.setBrush(base)
            painter.drawPath(self._colour_stand)
            # the colour stand's flag
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(_WHITE)
            painter.drawEllipse(self._origin, 0.16, 0.16)
        painter.setPen(_FRONT_PEN)
        painter.drawLine(self._front)
        painter.setPen(_ARROW_PEN)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(self._arrow)
        if self._marker_list:
            size = self.badge_size(painter)
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

    # -- hover: the name ------------------------------------------------------------------
    def hoverEnterEvent(self, event: QGraphicsSceneHoverEvent) -> None:  # noqa: N802
        self.label.setVisible(True)
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event: QGraphicsSceneHoverEvent) -> None:  # noqa: N802
        self.label.setVisible(self._always_named)
        super().hoverLeaveEvent(event)

    def set_always_named(self, on: bool) -> None:
        self._always_named = on
        self.label.setVisible(on)

    # -- moving and wheeling: one action on release ---------------------------------------
    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        sc = self.scene()
        if isinstance(sc, BattlefieldScene) and sc.tool != "select":
            event.ignore()
            return
        self.setCursor(Qt.CursorShape.ClosedHandCursor)
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        super().mouseMoveEvent(event)
        sc = self.scene()
        if isinstance(sc, BattlefieldScene):
            sc.show_drag_distance(self, place=_shift(event))

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        super().mouseReleaseEvent(event)
        sc = self.scene()
        if isinstance(sc, BattlefieldScene):
            sc.hide_drag_distance()
            sc.commit_drag(place=_shift(event))

    def preview_facing(self, scene_pos: QPointF) -> None:
        new = self.facing_towards(scene_pos)
        self._rotation_preview = new
        self.setRotation(new - self.unit.facing_deg)

    def facing_towards(self, scene_pos: QPointF) -> float:
        o = self._origin + self.pos()
        dx, dy = scene_pos.x() - o.x(), scene_pos.y() - o.y()
        if abs(dx) < 1e-9 and abs(dy) < 1e-9:
            return self.unit.facing_deg
        return round(math.degrees(math.atan2(dx, -dy)) % 360, 0) % 360

    def commit_facing(self, scene_pos: QPointF) -> None:
        new = self.facing_towards(scene_pos)
        self.setRotation(0)
        self._rotation_preview = None
        sc = self.scene()
        if isinstance(sc, BattlefieldScene) and abs(((new - self.unit.facing_deg) + 180) % 360 - 180) >= 0.5:
            sc.request_move(self.unit.id, self.unit.x, self.unit.y, new)


# -- the scene -------------------------------------------------------------------------------------


class BattlefieldScene(QGraphicsScene):
    """The table: terrain and unit items kept in step with the battle, and the umpire's tools.

    ``tool`` is "select", "ruler", "los" or "draw" (drawing terrain of ``draw_type``).
    """

    moveRequested = Signal(object)  # list of (unit_id, x, y, facing_deg)
    terrainDrawn = Signal(object)  # (TerrainType, points, level)
    terrainMoved = Signal(str, float, float)  # feature id, dx, dy
    measured = Signal(str)  # a description of the last measurement, for the status bar
    formationRequested = Signal(str, str)  # unit id, formation
    terrainEditRequested = Signal(str)  # feature id (double-click while editing terrain)
    toolChanged = Signal(str)

    def __init__(self, controller: GameController, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.units: dict[str, UnitItem] = {}
        self.terrain: dict[str, TerrainItem] = {}
        self.tables: RuleTables = load_tables()
        self.tool = "select"
        self.draw_type: TerrainType = TerrainType.LIGHT_WOODS
        self.draw_level = 1
        self.terrain_editing = False
        self._syncing = False
        self._draw_points: list[QPointF] = []
        self._draw_item: QGraphicsPathItem | None = None
        self._measure_start: QPointF | None = None
        self._measure_from: str | None = None
        self._measure_line: QGraphicsLineItem | None = None
        self._measure_label: QGraphicsSimpleTextItem | None = None
        self._los_items: list[QGraphicsItem] = []
        self._drag_line: QGraphicsLineItem | None = None
        self._drag_label: QGraphicsSimpleTextItem | None = None
        self.placing = False  # the drag being committed is the umpire's placement (Shift held)
        self._arc_items: list[QGraphicsItem] = []
        self._terrain_press: dict[str, QPointF] = {}
        self._highlighted: set[str] = set()
        self.last_los = None
        self.show_names = True
        self._label_scale = 12.0
        self._placed_scale = 0.0
        self._label_pending = False
        self.table_rect = QRectF(0, 0, 72, 48)
        self._background_cache: tuple | None = None  # (key, image, top left) of drawBackground
        self._built: tuple = (None, None)  # the battle and tables the items were built from
        self.selectionChanged.connect(self._scene_selection_changed)
        controller.changed.connect(self.apply)
        controller.selectionChanged.connect(self._on_selection)
        controller.highlightRequested.connect(self.highlight)

    # -- building and updating -------------------------------------------------------------
    def set_battle(self, battle: Battle | None) -> None:
        self._syncing = True
        try:
            self.clear_tools()
            self._clear_arcs()
            for it in list(self.units.values()) + list(self.terrain.values()):
                self.removeItem(it)
            self.units.clear()
            self.terrain.clear()
            self._built = (None, None)
            if battle is None:
                return
            tables = self.controller.tables
            self.tables = tables if tables is not None else load_tables()
            self.table_rect = QRectF(0, 0, battle.table_width_in, battle.table_height_in)
            self.setSceneRect(self.table_rect.adjusted(-4, -4, 4, 4))
            for f in battle.terrain:
                self._add_terrain(f)
            for u in battle.units.values():
                self._add_unit(u, battle)
            self._built = (battle, tables)
        finally:
            self._syncing = False
        self.invalidate(self.sceneRect(), QGraphicsScene.SceneLayer.BackgroundLayer)
        self.layout_labels()
        self._on_selection(self.controller.selection)

    def _colour(self, battle: Battle, side: str) -> str:
        try:
            return battle.oob.side(side).colour
        except Exception:
            return "#555555"

    def _add_unit(self, u: Unit, battle: Battle) -> None:
        it = UnitItem(u, self._colour(battle, u.side), self.tables)
        it.set_always_named(self.show_names)
        it.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsMovable, not self.terrain_editing)
        it.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, not self.terrain_editing)
        self.addItem(it)
        self.units[u.id] = it

    def _add_terrain(self, f: TerrainFeature) -> None:
        it = TerrainItem(f)
        self._terrain_flags(it)
        self.addItem(it)
        self.terrain[f.id] = it

    def _terrain_flags(self, it: TerrainItem) -> None:
        it.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, self.terrain_editing)
        it.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsMovable, self.terrain_editing)

    def apply(self, summary: ChangeSummary) -> None:
        """Update the items the summary names (or everything on a reset)."""
        battle = self.controller.battle
        if battle is None:
            self.set_battle(None)
            return
        if summary.reset:
            # a new game is announced twice (gameReplaced, then a change of everything): the
            # items of this very battle and tables are not built again
            if battle is not self._built[0] or self.controller.tables is not self._built[1]:
                self.set_battle(battle)
            return
        if summary.game and (battle.table_width_in, battle.table_height_in) != (
            self.table_rect.width(),
            self.table_rect.height(),
        ):
            self.table_rect = QRectF(0, 0, battle.table_width_in, battle.table_height_in)
            self.setSceneRect(self.table_rect.adjusted(-4, -4, 4, 4))
            self.invalidate(self.sceneRect(), QGraphicsScene.SceneLayer.BackgroundLayer)
        self._syncing = True
        try:
            for fid in summary.terrain:
                f = next((x for x in battle.terrain if x.id == fid), None)
                it = self.terrain.get(fid)
                if f is None:
                    if it is not None:
                        self.removeItem(it)
                        del self.terrain[fid]
                elif it is None:
                    self._add_terrain(f)
                else:
                    it.set_feature(f)
            for uid in summary.units:
                u = battle.units.get(uid)
                it = self.units.get(uid)
                if u is None:
                    if it is not None:
                        self.removeItem(it)
                        del self.units[uid]
                elif it is None:
                    self._add_unit(u, battle)
                else:
                    it.set_unit(u, self._colour(battle, u.side))
        finally:
            self._syncing = False
        if summary.units or summary.terrain:
            if summary.terrain or len(summary.units) > 12:
                self.layout_labels()
            else:
                self.layout_labels(only=summary.units)
            self._refresh_arcs()

    # -- background: the table and its grid ------------------------------------------------
    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:  # noqa: N802
        # A view keeps its own picture of the background (CacheBackground); a picture drawn
        # without a view (an export, a report's map) keeps the table and its grid as an image
        # for the same transform and area, so drawing the same picture again only copies it.
        t = painter.combinedTransform()  # scene to device pixels, window and viewport included
        engine = painter.paintEngine()
        raster = engine is not None and engine.type() == QPaintEngine.Type.Raster
        raster = raster and painter.device().devicePixelRatio() == 1  # (a finer print: drawn)
        if self.views() or not raster or not t.isAffine() or t.m12() or t.m21():
            self._paint_background(painter, rect)
            return
        device = t.mapRect(rect).toAlignedRect()
        if device.isEmpty() or device.width() * device.height() > _BACKGROUND_CACHE_PX:
            self._paint_background(painter, rect)
            return
        aa = painter.testRenderHint(QPainter.RenderHint.Antialiasing)
        key = (
            (t.m11(), t.m22(), t.dx(), t.dy()),
            (rect.x(), rect.y(), rect.width(), rect.height()),
            (self.table_rect.width(), self.table_rect.height()),
            aa,
        )
        cached = self._background_cache
        if cached is None or cached[0] != key:
            img = QImage(device.size(), QImage.Format.Format_ARGB32_Premultiplied)
            img.fill(0)
            p = QPainter(img)
            p.setRenderHint(QPainter.RenderHint.Antialiasing, aa)
            p.translate(-device.x(), -device.y())
            p.setWorldTransform(t, True)
            self._paint_background(p, rect)
            p.end()
            cached = self._background_cache = (key, img, device.topLeft())
        painter.save()
        painter.resetTransform()
        painter.drawImage(cached[2], cached[1])
        painter.restore()

    def _paint_background(self, painter: QPainter, rect: QRectF) -> None:
        painter.fillRect(rect, QColor("#7d8b6a"))
        table = self.table_rect
        painter.fillRect(table, QColor(TABLE_COLOUR))
        r = rect.intersected(table)
        if r.isEmpty():
            return
        scale = painter.worldTransform().m11()
        step = 1 if scale >= 8 else (6 if scale >= 2 else 12)
        minor = cosmetic_pen("#dde0c4", 1)
        major = cosmetic_pen("#c6caa3", 1)
        lines_minor, lines_major = [], []
        x0 = math.floor(r.left() / step) * step
        x = x0
        while x <= r.right():
            if 0 <= x <= table.right():
                (lines_major if x % 6 == 0 else lines_minor).append(QLineF(x, r.top(), x, r.bottom()))
            x += step
        y = math.floor(r.top() / step) * step
        while y <= r.bottom():
            if 0 <= y <= table.bottom():
                (lines_major if y % 6 == 0 else lines_minor).append(QLineF(r.left(), y, r.right(), y))
            y += step
        aa = painter.testRenderHint(QPainter.RenderHint.Antialiasing)
        if self.views():  # on screen the grid is square to the pixels; a picture keeps it smooth
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        else:
            minor = cosmetic_pen("#e2e4cc", 0.6)
            major = cosmetic_pen("#c9cca8", 0.8)
        painter.setPen(minor)
        painter.drawLines(lines_minor)
        painter.setPen(major)
        painter.drawLines(lines_major)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, aa)
        painter.setPen(cosmetic_pen("#4a4a3a", 2))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(table)

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:  # noqa: N802
        # inch marks along the top and left edges every 6"
        scale = painter.worldTransform().m11()
        if scale <= 0:
            return
        if self.views() and abs(scale - self._label_scale) > 0.02 * scale:
            self._labels_need_layout()  # zoomed: the names' sizes in inches have changed
        painter.save()
        painter.setPen(QColor("#f4f4e8"))
        k = 1.0 / scale
        font = _label_font(10)
        painter.setFont(font)
        t = self.table_rect
        for x in range(0, int(t.width()) + 1, 6):
            painter.save()
            painter.translate(x + 0.15, -0.3)
            painter.scale(k, k)
            painter.drawText(QPointF(0, 0), f'{x}"')
            painter.restore()
        for y in range(6, int(t.height()) + 1, 6):
            painter.save()
            painter.translate(-0.25, y)
            painter.scale(k, k)
            painter.drawText(
                QRectF(-44, -8, 40, 16),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                f'{y}"',
            )
            painter.restore()
        painter.restore()

    # -- selection: both ways with the controller ------------------------------------------
    def _scene_selection_changed(self) -> None:
        if self._syncing:
            return
        ids = [it.unit_id for it in self.selectedItems() if isinstance(it, UnitItem)]
        self._syncing = True
        try:
            if not self.terrain_editing:
                self.controller.select(ids)
        finally:
            self._syncing = False
        self._update_handles()
        self._refresh_arcs()

    def _update_handles(self) -> None:
        """The wheeling handle shows on a unit selected alone."""
        sel = [it for it in self.units.values() if it.isSelected()]
        for it in self.units.values():
            it.handle.setVisible(len(sel) == 1 and it is sel[0])

    def _on_selection(self, unit_ids) -> None:
        if self._syncing:
            return
        self._syncing = True
        try:
            want = set(unit_ids)
            for uid, it in self.units.items():
                sel = uid in want
                if it.isSelected() != sel:
                    it.setSelected(sel)
            self._update_handles()
        finally:
            self._syncing = False
        self._refresh_arcs()

    def highlight(self, unit_ids) -> None:
        want = set(unit_ids)
        for uid in self._highlighted - want:
            if uid in self.units:
                self.units[uid].set_highlight(False)
        for uid in want:
            if uid in self.units:
                self.units[uid].set_highlight(True)
        self._highlighted = want

    # -- the arcs of the selected unit ---------------------------------------------------
    def _clear_arcs(self) -> None:
        for it in self._arc_items:
            self.removeItem(it)
        self._arc_items.clear()

    def _refresh_arcs(self) -> None:
        self._clear_arcs()
        sel = self.controller.selection
        if len(sel) != 1 or sel[0] not in self.units:
            return
        it = self.units[sel[0]]
        if not it.unit.in_play:
            return
        from shapely.geometry import box

        table = box(0, 0, self.table_rect.width(), self.table_rect.height())
        fp = it.footprint
        arc = geometry.forward_arc(fp, self.tables).intersection(table)
        item = QGraphicsPathItem(shapely_path(arc))
        item.setBrush(QColor(255, 200, 0, 55))
        item.setPen(cosmetic_pen("#c79100", 1.2, Qt.PenStyle.DashLine))
        item.setZValue(Z_OVERLAY)
        item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        item.setToolTip("Forward arc of fire (RULE-03-5.1)")
        self.addItem(item)
        self._arc_items.append(item)
        for side in ("left", "right"):
            zone = geometry.flank_zone(fp, side, self.tables, reach_in=12.0).intersection(table)
            z = QGraphicsPathItem(shapely_path(zone))
            z.setBrush(QColor(220, 40, 40, 40))
            z.setPen(cosmetic_pen("#c62828", 1, Qt.PenStyle.DotLine))
            z.setZValue(Z_OVERLAY)
            z.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            z.setToolTip(f"{side.capitalize()} flank zone")
            self.addItem(z)
            self._arc_items.append(z)

    # -- tools ------------------------------------------------------------------------------
    def set_tool(self, tool: str) -> None:
        if tool not in ("select", "ruler", "los", "draw", "crest"):
            raise ValueError(f"unknown tool {tool!r}")
        self._cancel_draw()
        self.tool = tool
        self.toolChanged.emit(tool)

    def set_show_names(self, on: bool) -> None:
        self.show_names = bool(on)
        for it in self.units.values():
            it.set_always_named(self.show_names)

    # -- placing the names ------------------------------------------------------------------
    MIN_LABEL_SCALE = 4.0  # pixels an inch below which names are not kept apart

    def label_scale(self) -> float:
        """Pixels an inch that the names were last placed for."""
        return self._label_scale

    def label_rect(self, label: QGraphicsItem) -> QRectF:
        """The table area (inches) a name drawn at a fixed size covers at the zoom it was placed for."""
        k = 1.0 / self._label_scale
        lb = label.boundingRect()
        p = label.scenePos()
        return QRectF(p.x() + lb.left() * k, p.y() + lb.top() * k, lb.width() * k, lb.height() * k)

    def layout_labels(self, scale: float | None = None, only: Iterable[str] | None = None) -> None:
        """Place every name clear of the others, of the stands and of linear obstacles.

        Names are drawn at a fixed size in pixels, so their size in inches depends on the zoom
        (``scale``: pixels an inch; the first view's zoom when not given). A unit's name is tried
        behind it (relative to its facing), then further behind, beside it, and in front; the
        first free place is taken, else the one least covered. Terrain names go at their
        feature's centre or beside it. The places are kept until the zoom or the units change.

        With ``only`` (unit ids, at the same zoom), just those units' names are placed again, and
        the names that their stands now cover: a move does not shift names across the table.
        """
        if scale is None:
            views = self.views()
            scale = views[0].transform().m11() if views else self._label_scale
        if not scale or scale <= 0:
            return
        self._label_scale = scale
        k = 1.0 / scale  # inches a pixel
        table = self.table_rect
        solid = _RectIndex()  # stands and markers
        for it in self.units.values():
            if it.isVisible():
                off = it.pos()
                for r in it.stand_rects:
                    solid.add(r.translated(off))
        lines = _RectIndex()  # walls, fences, hedges, streams, roads
        for t in self.terrain.values():
            for r in t.obstacle_rects:
                lines.add(r)
        taken = _RectIndex()  # names placed already
        units = [it for it in self.units.values() if it.isVisible()]
        terrain_labels = [t for t in self.terrain.values() if t.name_label.isVisible()]
        if only is not None and abs(scale - self._placed_scale) < 1e-9:
            moved = {u for u in only if u in self.units}
            fresh = _RectIndex()
            for u in moved:
                it = self.units[u]
                for r in it.stand_rects:
                    fresh.add(r.translated(it.pos()))
            again = []
            for it in units:
                if it.unit_id in moved or fresh.overlap(self.label_rect(it.label)) > 0:
                    again.append(it)
                else:
                    taken.add(self.label_rect(it.label))
            for t in terrain_labels:
                taken.add(self.label_rect(t.name_label))
            units, terrain_labels = again, []
        self._placed_scale = scale

        def cost(r: QRectF, limit: float) -> float:
            c = 0.0 if table.contains(r) else r.width() * r.height() * 2
            for index, weight in ((taken, 8), (solid, 4), (lines, 2)):
                if c >= limit:
                    break
                c += index.overlap(r, (limit - c) / weight) * weight
            return c

        # so far out that a name covers a good part of the table: no place is free, take the first
        crowded = scale < self.MIN_LABEL_SCALE

        def place(label: NameLabel, candidates: list[QPointF], w: float, h: float) -> None:
            best, best_cost = None, float("inf")
            for centre in candidates[:1] if crowded else candidates:
                r = QRectF(centre.x() - w / 2, centre.y() - h / 2, w, h)
                c = 0.0 if crowded else cost(r, best_cost)
                if c < best_cost:
                    best, best_cost = r, c
                if c <= 1e-9:
                    break
            assert best is not None
            taken.add(best)
            parent = label.parentItem()
            off = parent.pos() if parent is not None else QPointF()
            # the label's own rectangle starts at its halo; its position is the text's corner
            lb = label.boundingRect()
            label.setPos(best.topLeft() - off - QPointF(lb.left() * k, lb.top() * k))

        for it in units:
            fp = it.footprint
            pw, ph = it.label.size_px()
            w, h = pw * k, ph * k
            fx, fy = fp.forward
            rx, ry = fp.right
            cx, cy = fp.centre
            off = it.pos()
            c = QPointF(cx, cy) + off
            f = QPointF(fx, fy)
            rgt = QPointF(rx, ry)
            along_f = (abs(fx) * h + abs(fy) * w) / 2  # half the name's reach along the facing
            along_r = (abs(rx) * w + abs(ry) * h) / 2
            back = fp.depth / 2 + (1.05 if it._marker_list else 0.2) + along_f
            side = fp.frontage_in / 2 + 0.3 + along_r
            front = fp.depth / 2 + 0.35 + along_f
            cands = [
                c - f * back,
                c - f * back - rgt * (w / 3),
                c - f * back + rgt * (w / 3),
                c - f * (back + h + 0.1),
                c + rgt * side,
                c - rgt * side,
                c - f * back + rgt * side,
                c - f * back - rgt * side,
                c - f * (back + 2 * h + 0.2),
                c + f * front,
            ]
            place(it.label, cands, w, h)
        for t in terrain_labels:
            lab = t.name_label
            pw, ph = lab.size_px()
            w, h = pw * k, ph * k
            a = feature_anchor(t.feature)
            if t.feature.is_linear:
                cands = [
                    a + QPointF(0, -h),
                    a + QPointF(0, h),
                    a + QPointF(w / 2, -h),
                    a + QPointF(-w / 2, h),
                ]
            else:
                cands = [
                    a,
                    a + QPointF(0, -1.5 * h),
                    a + QPointF(0, 1.5 * h),
                    a + QPointF(-w / 2, 0),
                    a + QPointF(w / 2, 0),
                ]
            place(lab, cands, w, h)

    def _labels_need_layout(self) -> None:
        if not self._label_pending:
            self._label_pending = True
            QTimer.singleShot(0, self._deferred_layout)

    def _deferred_layout(self) -> None:
        self._label_pending = False
        self.layout_labels()

    def set_terrain_editing(self, on: bool) -> None:
        self.terrain_editing = bool(on)
        self.clearSelection()
        for it in self.terrain.values():
            self._terrain_flags(it)
        for it in self.units.values():
            it.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsMovable, not on)
            it.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, not on)

    def clear_tools(self) -> None:
        """Take the ruler, the line of sight and any half-drawn terrain off the map."""
        for it in ([self._measure_line, self._measure_label] if self._measure_line else []) + self._los_items:
            if it is not None and it.scene() is self:
                self.removeItem(it)
        self._measure_line = None
        self._measure_label = None
        self._los_items = []
        self._cancel_draw()

    def tool_items(self) -> list[QGraphicsItem]:
        """What the umpire's tools have drawn: arcs, ruler, sight lines, a half-drawn outline."""
        items = [*self._arc_items, *self._los_items]
        for it in (
            self._measure_line,
            self._measure_label,
            self._draw_item,
            self._drag_line,
            self._drag_label,
        ):
            if it is not None and it.scene() is self:
                items.append(it)
        return items

    def unit_at(self, pos: QPointF) -> UnitItem | None:
        for it in self.items(pos):
            if isinstance(it, UnitItem) and it.isVisible():
                return it
            if isinstance(it, RotateHandle):
                return it.unit_item
        return None

    def selected_feature_ids(self) -> list[str]:
        return [it.feature_id for it in self.selectedItems() if isinstance(it, TerrainItem)]

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        pos = event.scenePos()
        if event.button() != Qt.MouseButton.LeftButton or self.tool == "select":
            super().mousePressEvent(event)
            if self.tool == "select" and self.terrain_editing:
                # where the selected features were: a drag that moves them is one edit each, on release
                self._terrain_press = {fid: self.terrain[fid].pos() for fid in self.selected_feature_ids()}
            return
        if self.tool in ("ruler", "los"):
            self.clear_tools()
            start_unit = self.unit_at(pos)
            self._measure_from = start_unit.unit_id if start_unit else None
            self._measure_start = start_unit._origin if start_unit else pos
            self._measure_line = QGraphicsLineItem(QLineF(self._measure_start, pos))
            self._measure_line.setPen(cosmetic_pen("#0d47a1" if self.tool == "ruler" else "#6a1b9a", 2.5))
            self._measure_line.setZValue(Z_TOOL)
            self.addItem(self._measure_line)
            self._measure_label = QGraphicsSimpleTextItem()
            self._measure_label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
            self._measure_label.setFont(_label_font(13, bold=True))
            self._measure_label.setZValue(Z_TOOL + 1)
            self.addItem(self._measure_label)
            event.accept()
            return
        if self.tool in ("draw", "crest"):
            self._draw_points.append(pos)
            self._update_draw_preview(pos)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        pos = event.scenePos()
        if (
            self.tool in ("ruler", "los")
            and self._measure_line is not None
            and self._measure_start is not None
        ):
            self._update_measure(pos, final=False)
            event.accept()
            return
        if self.tool in ("draw", "crest") and self._draw_points:
            self._update_draw_preview(pos)
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        pos = event.scenePos()
        if (
            self.tool in ("ruler", "los")
            and self._measure_line is not None
            and event.button() == Qt.MouseButton.LeftButton
        ):
            self._update_measure(pos, final=True)
            self._measure_start = None
            event.accept()
            return
        super().mouseReleaseEvent(event)
        if self.tool == "select" and self.terrain_editing:
            for fid, before in self._terrain_press.items():
                it = self.terrain.get(fid)
                if it is not None and it.pos() != before:
                    d = it.pos() - before
                    self.terrainMoved.emit(fid, round(d.x(), 2), round(d.y(), 2))
            self._terrain_press = {}

    def contextMenuEvent(self, event) -> None:  # noqa: N802
        """Right-click a unit or a building: the menu of :meth:`context_menu`."""
        menu = None if self.terrain_editing else self.context_menu(event.scenePos())
        if menu is None:
            super().contextMenuEvent(event)
            return
        menu.exec(event.screenPos())
        event.accept()

    def context_menu(self, pos: QPointF):
        """The menu for a right-click at ``pos`` (None: nothing there has one). A unit: change its
        formation, check sight to it from the selected unit, or garrison / bombard a building. A
        building: garrison it (with the unit there or the selected one) or bombard it (with the
        selected battery)."""
        from PySide6.QtWidgets import QMenu

        from gui import play
        from rules.model import FORMATIONS_BY_KIND, UnitKind
        from rules.terrain import TerrainType

        it = self.unit_at(pos)
        battle = self.controller.battle
        building = None
        for t in self.items(pos):
            fid = t.feature_id if isinstance(t, TerrainItem) else None
            if battle is not None and fid is not None and fid in {f.id for f in battle.terrain}:
                if battle.feature(fid).type == TerrainType.BUILDING:
                    building = battle.feature(fid)
                    break
        if it is None and building is None:
            return None
        views = self.views()
        parent = views[0].window() if views else None
        c = self.controller
        sel = c.selection
        menu = QMenu()
        if it is not None:
            u = it.unit
            menu.addSection(u.name)
            forms = menu.addMenu("Change formation")
            for f in FORMATIONS_BY_KIND[u.kind]:
                a = forms.addAction(f.label, lambda f=f: self.formationRequested.emit(u.id, f.value))
                a.setEnabled(f != u.formation)
            if len(sel) == 1 and sel[0] != u.id and sel[0] in self.units:
                viewer = self.units[sel[0]].unit
                menu.addAction(
                    f"Line of sight from {viewer.name}", lambda: self.show_line_of_sight(viewer.id, u.id)
                )
                if viewer.side != u.side:
                    menu.addAction(
                        f"Declare charge by {viewer.name}…", lambda: self.declare_charge(viewer.id, u.id)
                    )
            fid = building.id if building is not None else None
            if u.kind == UnitKind.ARTILLERY:
                menu.addAction(
                    "Bombard a building…",
                    lambda: play.bombard_building(c, parent, battery_id=u.id, feature_id=fid),
                )
            elif building is None:
                menu.addAction(
                    "Garrison a building…", lambda: play.garrison_building(c, parent, unit_id=u.id)
                )
        if building is not None:
            label = building.name or "the building"
            menu.addSection(label)
            chosen = sel[0] if len(sel) == 1 and sel[0] in self.units else None
            garrison_by = it.unit.id if it is not None and it.unit.kind != UnitKind.ARTILLERY else chosen
            menu.addAction(
                f"Garrison {label}…",
                lambda: play.garrison_building(c, parent, unit_id=garrison_by, feature_id=building.id),
            )
            gun = (
                chosen if chosen is not None and self.units[chosen].unit.kind == UnitKind.ARTILLERY else None
            )
            menu.addAction(
                f"Bombard {label}…",
                lambda: play.bombard_building(c, parent, battery_id=gun, feature_id=building.id),
            )
        return menu

    def declare_charge(self, attacker_id: str, target_id: str) -> None:
        """Open the charge dialog for this charger and target (see :func:`gui.play.declare_charge`)."""
        from gui import play

        views = self.views()
        play.declare_charge(self.controller, views[0].window() if views else None, attacker_id, target_id)

    def mouseDoubleClickEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        if self.tool in ("draw", "crest"):
            self.finish_draw()
            event.accept()
            return
        if self.terrain_editing:
            for it in self.items(event.scenePos()):
                if isinstance(it, TerrainItem):
                    self.terrainEditRequested.emit(it.feature_id)
                    event.accept()
                    return
        super().mouseDoubleClickEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if self.tool in ("draw", "crest") and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.finish_draw()
            return
        if event.key() == Qt.Key.Key_Escape:
            self.clear_tools()
            return
        super().keyPressEvent(event)

    # -- moving units: one action on release --------------------------------------------------
    def show_drag_distance(self, item: UnitItem, place: bool = False) -> None:
        """While a unit is dragged: the line from where it stood, and how far that is. In a march
        (a unit of the active side in its Phase 2, Shift not held) the label says how far the
        march goes by the rules (:func:`rules.actions.plan_march`: the allowance left this turn,
        terrain and obstacles) and why it would halt; otherwise that it is the umpire's placement."""
        start = item._origin
        end = item._origin + item.pos()
        d = math.hypot(item.pos().x(), item.pos().y())
        if self._drag_line is None:
            self._drag_line = QGraphicsLineItem()
            self._drag_line.setPen(cosmetic_pen("#37474f", 2, Qt.PenStyle.DashLine))
            self._drag_line.setZValue(Z_TOOL)
            self._drag_label = NameLabel(None, px=13, bold=True)  # on a pale halo: it reads over the map
            self._drag_label.setZValue(Z_TOOL + 1)
            self.addItem(self._drag_line)
            self.addItem(self._drag_label)
        self._drag_line.setLine(QLineF(start, end))
        text, short = self._march_text(item.unit, end.x(), end.y(), d, place)
        self._drag_label.setText(text)
        self._drag_label.setBrush(QColor("#c62828" if short else "#1b5e20"))
        self._place_drag_label(end)
        self.measured.emit(f"{item.unit.name}: {text}")

    def _place_drag_label(self, end: QPointF) -> None:
        """The drag label beside the pointer, on its left where on its right it would run out of
        the view."""
        label = self._drag_label
        pos = end + QPointF(0.6, -1.2)
        for view in self.views():
            px_per_in = px_per_inch(view.transform())
            if px_per_in <= 0:
                continue
            width_in = label.boundingRect().width() / px_per_in
            seen = view.mapToScene(view.viewport().rect()).boundingRect()
            if pos.x() + width_in > seen.right():
                pos.setX(max(end.x() - 0.6 - width_in, seen.left()))
            break
        label.setPos(pos)

    def _march_text(self, unit: Unit, x: float, y: float, d: float, place: bool) -> tuple[str, bool]:
        """The drag label: the distance, and for a march how far the rules let it go."""
        from gui import play
        from rules.actions import allowance_of, march_refusal, plan_march, remaining_move_in

        battle = self.controller.battle
        tables = getattr(self.controller, "tables", None) or self.tables
        if place or battle is None or unit.id not in battle.units or not play.is_march(battle, unit.id):
            return f'{d:.1f}": placed by the umpire', False
        refusal = march_refusal(battle, unit.id, tables)
        if refusal is not None:
            return f'{d:.1f}": cannot march: {refusal}', True
        try:
            allowance = allowance_of(unit, tables)
            left = remaining_move_in(battle, unit.id, tables)
            plan = plan_march(battle, unit.id, x, y, tables)
        except RulesError as exc:
            return f'{d:.1f}": {exc}', True
        text = (
            f'{d:.1f}" dragged; {left:g}" of its {allowance:g}" march left ({unit.formation.label.lower()})'
        )
        if plan.complete:
            return text, False
        why = plan.halt_reason or "its movement allowance is used up"
        halt = "\n".join(_wrap(f'halts after {plan.moved_in:.1f}" ({why})', 60))
        return f"{text}\n{halt}", True

    def hide_drag_distance(self) -> None:
        for it in (self._drag_line, self._drag_label):
            if it is not None and it.scene() is self:
                self.removeItem(it)
        self._drag_line = self._drag_label = None

    def commit_drag(self, place: bool = False) -> None:
        """The dragged units' moves, as one request: marches, or with ``place`` (Shift held) the
        umpire's placement."""
        moves = []
        for it in self.units.values():
            d = it.pos()
            if abs(d.x()) > 1e-6 or abs(d.y()) > 1e-6:
                u = it.unit
                moves.append((u.id, round(u.x + d.x(), 2), round(u.y + d.y(), 2), u.facing_deg))
        if moves:
            self.placing = place
            try:
                self.moveRequested.emit(moves)
            finally:
                self.placing = False
            # if the rules refused, put the items back where the battle has them
            for uid, *_ in moves:
                it = self.units.get(uid)
                if it is not None and it.pos() != QPointF(0, 0):
                    it.set_unit(it.unit)

    def request_move(self, unit_id: str, x: float, y: float, facing: float) -> None:
        self.moveRequested.emit([(unit_id, x, y, facing)])
        it = self.units.get(unit_id)
        if it is not None and (it.rotation() != 0 or it.pos() != QPointF(0, 0)):
            it.set_unit(it.unit)

    # -- measuring ------------------------------------------------------------------------
    def _update_measure(self, pos: QPointF, final: bool) -> None:
        assert self._measure_line is not None and self._measure_label is not None
        start = self._measure_start
        end = pos
        target = self.unit_at(pos)
        text = ""
        if self.tool == "ruler":
            if target is not None and target.unit_id != self._measure_from:
                from shapely.geometry import Point
                from shapely.ops import nearest_points

                poly = target.footprint.polygon
                _, near = nearest_points(Point(start.x(), start.y()), poly.exterior)
                end = QPointF(near.x, near.y)
                d = math.hypot(end.x() - start.x(), end.y() - start.y())
                text = f'{d:.1f}" to {target.unit.name}'
            else:
                d = math.hypot(end.x() - start.x(), end.y() - start.y())
                text = f'{d:.1f}"'
            if self._measure_from and self._measure_from in self.units:
                text = f"{self.units[self._measure_from].unit.name}: " + text
            self._measure_line.setLine(QLineF(start, end))
            self._measure_label.setText(text)
            self._measure_label.setPos(end + QPointF(0.4, 0.4))
            if final:
                self.measured.emit(text)
            return
        # line of sight
        if target is not None and target.unit_id != self._measure_from:
            end = target._origin
        self._measure_line.setLine(QLineF(start, end))
        if not final:
            self._measure_label.setText("line of sight: release on the target")
            self._measure_label.setPos(end + QPointF(0.4, 0.4))
            return
        if self._measure_from is None or target is None or target.unit_id == self._measure_from:
            self._measure_label.setText("line of sight: drag from one unit to another")
            self.measured.emit("Line of sight: drag from the viewing unit to the target unit")
            return
        self.show_line_of_sight(self._measure_from, target.unit_id)

    def show_line_of_sight(self, viewer_id: str, target_id: str):
        """Check and draw the line of sight from one unit to another; returns the result."""
        battle = self.controller.battle
        if battle is None:
            return None
        try:
            from rules.battlefield import Battlefield
        except ImportError:
            self.measured.emit("Line of sight needs rules.battlefield, which this build does not have")
            return None
        self.clear_tools()
        bf = Battlefield(battle, self.tables)
        los = bf.line_of_sight(viewer_id, target_id)
        self.last_los = los
        v, t = self.units[viewer_id], self.units[target_id]
        a, b = v._origin, t._origin
        line = QGraphicsLineItem(QLineF(a, b))
        colour = "#2e7d32" if los.visible else "#c62828"
        line.setPen(cosmetic_pen(colour, 3, Qt.PenStyle.SolidLine if los.visible else Qt.PenStyle.DashLine))
        line.setZValue(Z_TOOL)
        self.addItem(line)
        self._los_items.append(line)
        blocker = getattr(los, "blocked_by", None)
        blockers = [blocker] if isinstance(blocker, str) else list(blocker or ())
        for bid in blockers:
            bid = getattr(bid, "id", bid)
            item = self.terrain.get(bid) or self.units.get(bid)
            if item is None:
                continue
            ring = QGraphicsPathItem(item.shape())
            ring.setPen(cosmetic_pen("#c62828", 3))
            ring.setBrush(QColor(198, 40, 40, 28))
            ring.setZValue(Z_TOOL - 1)
            ring.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            self.addItem(ring)
            self._los_items.append(ring)
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
        self.addItem(back)
        self.addItem(label)
        self._los_items += [back, label]
        self.measured.emit(text)
        return los

    def _callout_place(self, a: QPointF, b: QPointF, box_px: QRectF) -> QPointF:
        """Where a callout of ``box_px`` (pixels) goes beside the line a-b: the candidate place
        that covers the least of the units, their names and the line's ends."""
        k = 1.0 / (self._label_scale or 12.0)
        w, h = box_px.width() * k, box_px.height() * k
        obstacles = _RectIndex()
        for it in self.units.values():
            if it.isVisible():
                for r in it.stand_rects:
                    obstacles.add(r.translated(it.pos()).adjusted(-0.3, -0.3, 0.3, 0.3))
                if it.label.isVisible():
                    obstacles.add(self.label_rect(it.label))
        d = b - a
        n = math.hypot(d.x(), d.y()) or 1.0
        nx, ny = -d.y() / n, d.x() / n
        table = self.table_rect
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

    # -- drawing terrain ------------------------------------------------------------------
    def _update_draw_preview(self, pos: QPointF) -> None:
        pts = [*self._draw_points, pos]
        closed = self.tool == "draw" and self.draw_type not in LINEAR_TYPES
        path = polygon_path([(p.x(), p.y()) for p in pts], closed=closed and len(pts) >= 3)
        if self._draw_item is None:
            self._draw_item = QGraphicsPathItem()
            self._draw_item.setZValue(Z_TOOL)
            self._draw_item.setPen(cosmetic_pen("#e65100", 2, Qt.PenStyle.DashLine))
            self._draw_item.setBrush(QColor(230, 81, 0, 40))
            self.addItem(self._draw_item)
        self._draw_item.setPath(path)

    def _cancel_draw(self) -> None:
        self._draw_points = []
        if self._draw_item is not None:
            if self._draw_item.scene() is self:
                self.removeItem(self._draw_item)
            self._draw_item = None

    def finish_draw(self) -> None:
        """Finish the outline or line being drawn and ask for it to be added (or set as a crest)."""
        pts = []
        for p in self._draw_points:
            q = (round(p.x(), 2), round(p.y(), 2))
            if not pts or pts[-1] != q:
                pts.append(q)
        tool = self.tool
        self._cancel_draw()
        if tool == "crest":
            if len(pts) >= 2:
                self.terrainDrawn.emit(("crest", tuple(pts), 0))
            else:
                self.measured.emit("A crestline needs at least 2 points")
            return
        need = 2 if self.draw_type in LINEAR_TYPES else 3
        if len(pts) < need:
            self.measured.emit(f"A {self.draw_type.label.lower()} needs at least {need} points")
            return
        level = self.draw_level if self.draw_type == TerrainType.HILL else 0
        self.terrainDrawn.emit((self.draw_type, tuple(pts), level))


# -- the view and its tool bar ------------------------------------------------------------------


class BattlefieldView(QGraphicsView):
    """The view of the table: wheel to zoom about the pointer, middle button or Space-drag to pan."""

    MIN_SCALE, MAX_SCALE = 2.0, 120.0
    cursorMoved = Signal(float, float)  # the pointer's place on the table, inches

    def __init__(self, scene: BattlefieldScene, parent: QWidget | None = None):
        super().__init__(scene, parent)
        self.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setMouseTracking(True)
        self._panning = False
        self._pan_from = QPointF()
        self.setTransform(QTransform.fromScale(12, 12))
        self.auto_fit = True  # the table fills the view, on open and on resize, until the umpire zooms

    @property
    def zoom(self) -> float:
        return self.transform().m11()

    def set_zoom(self, scale: float) -> None:
        self._set_auto_fit(False)
        scale = max(self.MIN_SCALE, min(self.MAX_SCALE, scale))
        t = self.transform()
        self.setTransform(QTransform.fromScale(scale, scale) * QTransform.fromTranslate(t.dx(), t.dy()))

    def zoom_by(self, factor: float) -> None:
        self._set_auto_fit(False)
        new = max(self.MIN_SCALE, min(self.MAX_SCALE, self.zoom * factor))
        f = new / self.zoom
        if abs(f - 1) > 1e-9:
            self.scale(f, f)

    def fit_table(self) -> None:
        """Show the whole table as large as the view allows (with room for the inch marks), and
        keep it so when the window is resized, until the umpire zooms or pans."""
        self._set_auto_fit(True)
        sc = self.scene()
        if isinstance(sc, BattlefieldScene):
            room = sc.table_rect.adjusted(-2.2, -1.4, 1.4, 0.6)
            self.fitInView(room, Qt.AspectRatioMode.KeepAspectRatio)
            # a whole number of pixels an inch: the grid lines fall on whole pixels and stay crisp
            whole = math.floor(self.zoom)
            if whole >= 4:
                self.setTransform(QTransform.fromScale(whole, whole))
                self.centerOn(room.center())

    def _set_auto_fit(self, on: bool) -> None:
        self.auto_fit = on
        policy = Qt.ScrollBarPolicy.ScrollBarAlwaysOff if on else Qt.ScrollBarPolicy.ScrollBarAsNeeded
        self.setHorizontalScrollBarPolicy(policy)
        self.setVerticalScrollBarPolicy(policy)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.auto_fit:
            self.fit_table()

    def wheelEvent(self, event) -> None:  # noqa: N802
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom_by(1.15**steps)
        event.accept()

    def mousePressEvent(self, event) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.MiddleButton:
            self._panning = True
            self._pan_from = event.position()
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        p = self.mapToScene(event.position().toPoint())
        self.cursorMoved.emit(p.x(), p.y())
        if self._panning:
            self._set_auto_fit(False)
            d = event.position() - self._pan_from
            self._pan_from = event.position()
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - int(d.x()))
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - int(d.y()))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        if self._panning and event.button() == Qt.MouseButton.MiddleButton:
            self._panning = False
            self.unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def pan_by(self, dx_px: int, dy_px: int) -> None:
        self._set_auto_fit(False)
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() + dx_px)
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() + dy_px)


TOOLS = (
    ("select", "Select", "S", "Select and drag units; drag the yellow handle to wheel (S)"),
    (
        "ruler",
        "Ruler",
        "R",
        "Measure in inches: from a unit's colour stand to the nearest edge of another (R)",
    ),
    ("los", "Sight line", "L", "Drag from the viewing unit to the target to check line of sight (L)"),
    ("draw", "Draw", "D", "Click points, double-click or Enter to finish; Esc cancels (D)"),
    ("crest", "Crest", "C", "Select a hill (terrain editing on), then draw its crestline (C)"),
)


class CanvasWidget(QWidget):
    """The central widget: the tool bar and the battlefield view."""

    def __init__(self, controller: GameController, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("battlefield")
        self.controller = controller
        self.scene = BattlefieldScene(controller, self)
        self.view = BattlefieldView(self.scene, self)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        bar = QToolBar("Battlefield tools", self)
        bar.setObjectName("battlefield_tools")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.toolbar = bar
        self.tool_buttons: dict[str, QToolButton] = {}
        self.tool_actions: dict[str, QAction] = {}
        for key, text, shortcut, tip in TOOLS:
            b = QToolButton(self)
            b.setText(text)
            b.setToolTip(tip)
            b.setCheckable(True)
            b.setAutoExclusive(True)
            b.clicked.connect(lambda _c=False, k=key: self.scene.set_tool(k))
            bar.addWidget(b)
            self.tool_buttons[key] = b
            a = QAction(text, self)
            a.setShortcut(QKeySequence(shortcut))
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            a.triggered.connect(lambda _c=False, k=key: self.scene.set_tool(k))
            self.addAction(a)
            self.tool_actions[key] = a
        self.tool_buttons["select"].setChecked(True)
        self._after_tools = bar.addSeparator()
        self.type_combo = QComboBox(self)
        for t in TerrainType:
            self.type_combo.addItem(t.label, t.value)
        self.type_combo.setCurrentIndex(self.type_combo.findData(TerrainType.LIGHT_WOODS.value))
        self.type_combo.setToolTip("The type of terrain to draw (the rulebook's terrain list)")
        self.type_combo.currentIndexChanged.connect(
            lambda _i: setattr(self.scene, "draw_type", TerrainType.parse(self.type_combo.currentData()))
        )
        self.level_spin = QSpinBox(self)
        self.level_spin.setRange(1, 2)
        self.level_spin.setPrefix("Level ")
        self.level_spin.setToolTip("Hill level (RULE-03-4.1)")
        self.level_spin.valueChanged.connect(lambda v: setattr(self.scene, "draw_level", v))
        # the terrain type and hill level show only while drawing
        self._draw_widgets = [bar.addWidget(self.type_combo), bar.addWidget(self.level_spin)]
        for a in self._draw_widgets:
            a.setVisible(False)
        self.edit_terrain = QToolButton(self)
        self.edit_terrain.setText("Edit terrain")
        self.edit_terrain.setCheckable(True)
        self.edit_terrain.setToolTip(
            "Unlock terrain to select, move and delete it (units are locked meanwhile)"
        )
        self.edit_terrain.toggled.connect(self.scene.set_terrain_editing)
        bar.addWidget(self.edit_terrain)
        self.delete_terrain_button = QToolButton(self)
        self.delete_terrain_button.setText("Delete")
        self.delete_terrain_button.setToolTip("Delete the selected terrain (Delete)")
        delete_action = bar.addWidget(self.delete_terrain_button)
        delete_action.setVisible(False)  # only while terrain editing is on
        self.edit_terrain.toggled.connect(delete_action.setVisible)
        self.names_button = QToolButton(self)
        self.names_button.setText("Names")
        self.names_button.setCheckable(True)
        self.names_button.setChecked(True)
        self.names_button.setToolTip("Show every unit's name on the map (names always show on hover)")
        self.names_button.toggled.connect(self.scene.set_show_names)
        self.fit_button = QToolButton(self)
        self.fit_button.setText("Fit")
        self.fit_button.setToolTip("Fit the whole table in the view (Ctrl+0); it stays fitted until you zoom")
        self.fit_button.clicked.connect(self.view.fit_table)
        # the view's own buttons come straight after the tools, so they are never in the overflow
        bar.insertWidget(self._after_tools, self.names_button)
        bar.insertWidget(self._after_tools, self.fit_button)
        bar.insertSeparator(self._after_tools)
        self.status = QLabel(self)
        self.status.setContentsMargins(6, 2, 6, 2)
        lay.addWidget(bar)
        lay.addWidget(self.status)
        lay.addWidget(self.view, 1)
        self.scene.toolChanged.connect(self._tool_changed)
        self.scene.measured.connect(self.status.setText)
        self.scene.moveRequested.connect(self.run_moves)
        self.scene.terrainDrawn.connect(self.add_drawn_terrain)
        self.scene.terrainMoved.connect(self.move_terrain)
        self.scene.formationRequested.connect(self.change_formation)
        self.scene.terrainEditRequested.connect(self.edit_terrain_feature)
        self.delete_terrain_button.clicked.connect(self.delete_selected_terrain)
        controller.gameReplaced.connect(self._game_replaced)
        controller.selectionChanged.connect(self._bring_into_view)
        controller.highlightRequested.connect(self._bring_into_view)

    def _bring_into_view(self, unit_ids) -> None:
        """Scroll so that units chosen in the roster or the log are on screen (if they are not)."""
        items = [self.scene.units[u] for u in unit_ids if u in self.scene.units]
        if not items or self.scene._syncing:  # chosen on the map itself: it is in view already
            return
        rect = items[0].sceneBoundingRect()
        for it in items[1:]:
            rect = rect.united(it.sceneBoundingRect())
        visible = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        if not visible.contains(rect):
            self.view.ensureVisible(rect, 40, 40)

    def _game_replaced(self) -> None:
        self.scene.set_battle(self.controller.battle)
        self.view.fit_table()

    # -- the canvas's actions --------------------------------------------------------------
    def run_moves(self, moves) -> None:
        """Play the units dragged on the canvas.

        In the active side's Phase 2 a unit of that side marches by the movement rules through
        its Trigger Windows (:func:`gui.play.handle_moves`), and so does each unit of a group
        dragged together, one after another, front-most first, the whole group one undo step
        (:func:`gui.play.march_group`); the status bar says which unit halted short of the point
        it was dragged to, and why. With Shift held it is the umpire's placement, with a reason,
        and no window opens. Out of a march (other phases, the other side) the units are placed by
        the umpire; a group dragged together is one undo step.
        """
        from gui import play
        from rules.actions import PLACE, MoveUnit

        battle = self.controller.battle
        placing = self.scene.placing
        turn = battle.turn if battle is not None else None
        seen = len(self.controller.events(turn=turn))
        if play.handle_moves(self.controller, moves, self.window(), place=placing):
            self._tell_halt(moves, turn, seen)
            return
        if battle is None:
            return
        reason = ""
        if placing and any(play.is_march(battle, m[0]) for m in moves):
            from gui import dialogs

            names = ", ".join(battle.units[m[0]].name for m in moves if m[0] in battle.units)
            reason = dialogs.ask_reason(self.window(), f"placing {names} outside the movement rules") or ""
            if not reason:
                return
        actions = [
            MoveUnit(uid, x, y, f, mode=PLACE, reason=reason) for uid, x, y, f in (m[:4] for m in moves)
        ]
        names = [battle.units[m[0]].name for m in moves if m[0] in battle.units]
        self.controller.run_many(actions, "Move " + ", ".join(names))

    def _tell_halt(self, moves, turn: int | None, seen: int) -> None:
        """Say on the status bar which marched units stopped short of where they were dragged, and
        why: the summary of each one's last march among the events of ``turn`` after the first
        ``seen`` (those of this drag)."""
        battle = self.controller.battle
        if battle is None or turn is None:
            return
        short = [
            m[0]
            for m in moves
            if m[0] in battle.units and (battle.units[m[0]].x, battle.units[m[0]].y) != (m[1], m[2])
        ]
        new = self.controller.events(turn=turn)[seen:]
        if not new:  # cancelled at a dialog, or refused: the drag's words no longer hold
            self.scene.measured.emit("No move made: the units are where they were")
            return
        if not short:  # the drag's words told the allowance before the move: now what was done
            marched = [e for e in new if getattr(e.action, "mode", None) == "march"]
            if marched:
                self.scene.measured.emit(f"Done: {marched[-1].summary}")
            return
        said = []
        for uid in short:
            last = [
                e
                for e in new
                if getattr(e.action, "unit_id", None) == uid and getattr(e.action, "mode", None) == "march"
            ]
            if last:
                said.append(str(last[-1].summary))
        if said:
            self.scene.measured.emit("Halted: " + "; ".join(said))

    def add_drawn_terrain(self, drawn) -> None:
        from rules.actions import AddTerrain, EditTerrain

        kind, points, level = drawn
        battle = self.controller.battle
        if battle is None:
            return
        if kind == "crest":
            hills = [f for f in self.scene.selected_feature_ids() if battle.feature(f).is_hill]
            if len(hills) != 1:
                from gui import dialogs

                dialogs.show_message(
                    self,
                    "Draw crestline",
                    "Select one hill first (turn on Edit terrain and click the hill).",
                    "warning",
                )
                return
            self.controller.run(EditTerrain(feature_id=hills[0], values={"crest": [list(p) for p in points]}))
            return
        taken = {f.id for f in battle.terrain}
        n = len(battle.terrain) + 1
        while f"{kind.value}_{n}" in taken:
            n += 1
        feature = {"id": f"{kind.value}_{n}", "type": kind.value, "points": [list(p) for p in points]}
        if kind == TerrainType.HILL:
            feature["level"] = level or 1
        self.controller.run(AddTerrain(feature=feature))

    def edit_terrain_feature(self, feature_id: str) -> None:
        """Edit a feature's name, type, level and width in a dialog: one EditTerrain action."""
        from gui import dialogs
        from rules.actions import EditTerrain

        battle = self.controller.battle
        if battle is None:
            return
        dlg = dialogs.TerrainDialog(battle.feature(feature_id), self)
        if dialogs.exec_dialog(dlg) != dialogs.QDialog.DialogCode.Accepted:
            return
        values = dlg.values()
        if values:
            self.controller.run(EditTerrain(feature_id=feature_id, values=values))

    def change_formation(self, unit_id: str, formation: str) -> None:
        from rules.actions import ChangeFormation

        self.controller.run(ChangeFormation(unit_id=unit_id, formation=formation))

    def move_terrain(self, feature_id: str, dx: float, dy: float) -> None:
        from rules.actions import EditTerrain

        battle = self.controller.battle
        if battle is None:
            return
        f = battle.feature(feature_id)
        values = {"points": [[round(x + dx, 2), round(y + dy, 2)] for x, y in f.points]}
        if f.crest:
            values["crest"] = [[round(x + dx, 2), round(y + dy, 2)] for x, y in f.crest]
        if self.controller.run(EditTerrain(feature_id=feature_id, values=values)) is None:
            it = self.scene.terrain.get(feature_id)
            if it is not None:
                it.set_feature(f)

    def delete_selected_terrain(self) -> None:
        from rules.actions import RemoveTerrain

        ids = self.scene.selected_feature_ids()
        if not ids:
            self.status.setText("Select terrain to delete: turn on Edit terrain and click it")
            return
        self.controller.run_many(
            [RemoveTerrain(feature_id=f) for f in ids], f"Delete {len(ids)} terrain feature(s)"
        )

    def keyPressEvent(self, event) -> None:  # noqa: N802
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and self.scene.terrain_editing:
            self.delete_selected_terrain()
            return
        super().keyPressEvent(event)

    def _tool_changed(self, tool: str) -> None:
        for a in self._draw_widgets:
            a.setVisible(tool == "draw")
        b = self.tool_buttons.get(tool)
        if b is not None and not b.isChecked():
            b.setChecked(True)
