"""How the battlefield is drawn: terrain colours and pens, the stacking of items, and the paths
of terrain decorations (fence zig-zags, hachures, stones) built once per feature.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from PySide6.QtCore import QLineF, QPointF, Qt
from PySide6.QtGui import QColor, QFont, QPainterPath, QPen, QPolygonF, QTransform

from reports.table_colours import (  # noqa: F401 (the canvas gives them to its modules)
    AREA_COLOURS,
    CREST_COLOUR,
    HILL_EDGE,
    HILL_FILL,
    LINEAR_COLOURS,
    TABLE_COLOUR,
    TERRAIN_NAME_COLOUR,
)
from rules.battle.terrain import TerrainFeature, TerrainType

# -- how terrain is drawn -------------------------------------------------------------------

# fill colour, outline colour (reports.table_colours), brush pattern for area terrain
_PATTERN: dict[TerrainType, Qt.BrushStyle | None] = {
    TerrainType.OPEN: None,
    TerrainType.LIGHT_WOODS: Qt.BrushStyle.Dense6Pattern,
    TerrainType.ORCHARD: Qt.BrushStyle.Dense7Pattern,
    TerrainType.DENSE_WOODS: Qt.BrushStyle.Dense5Pattern,
    TerrainType.CORNFIELD: Qt.BrushStyle.VerPattern,
    TerrainType.SWAMP: Qt.BrushStyle.HorPattern,
    TerrainType.PLOUGHED_FIELD: Qt.BrushStyle.BDiagPattern,
    TerrainType.TOWN_WOODEN: Qt.BrushStyle.CrossPattern,
    TerrainType.TOWN_MASONRY: Qt.BrushStyle.DiagCrossPattern,
    TerrainType.BUILDING: None,
    TerrainType.RUBBLE: Qt.BrushStyle.Dense4Pattern,
}
AREA_STYLE: dict[TerrainType, tuple[str, str, Qt.BrushStyle | None]] = {
    t: (fill, edge, _PATTERN[t]) for t, (fill, edge) in AREA_COLOURS.items()
}
# colour, width in inches, pen style, casing colour (drawn under, wider) for linear terrain; a
# split-rail fence is drawn zig-zag, a stone wall with its stones, a hedge with its bushes
_PEN: dict[TerrainType, Qt.PenStyle] = {
    TerrainType.ABATIS: Qt.PenStyle.DashDotLine,
    TerrainType.FORD: Qt.PenStyle.DashLine,
}
LINEAR_STYLE: dict[TerrainType, tuple[str, float, Qt.PenStyle, str | None]] = {
    t: (colour, width, _PEN.get(t, Qt.PenStyle.SolidLine), casing)
    for t, (colour, width, casing) in LINEAR_COLOURS.items()
}

Z_HILL, Z_AREA, Z_LINEAR, Z_OVERLAY, Z_UNIT, Z_TOOL = 0, 10, 20, 30, 40, 50
# the largest picture of the table and grid a scene keeps (4 million pixels, 16 MB): a bigger


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
