"""Terrain on the map: one item per feature, its paths built when the feature changes, and the
legend's small pictures of each type of terrain.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QImage, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QGraphicsScene

from gui.canvas.labels import NameLabel
from gui.canvas.style import (
    AREA_STYLE,
    CREST_COLOUR,
    HILL_EDGE,
    HILL_FILL,
    LINEAR_STYLE,
    TABLE_COLOUR,
    TERRAIN_NAME_COLOUR,
    Z_AREA,
    Z_HILL,
    Z_LINEAR,
    Z_UNIT,
    _along,
    cosmetic_pen,
    dots_along,
    polygon_path,
    ticks_path,
    zigzag_path,
)
from rules.battle.terrain import AREA_TYPES, LINEAR_TYPES, TerrainFeature, TerrainType

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


def _dots_path(centres: list[QPointF], r: float) -> QPainterPath:
    path = QPainterPath()
    for c in centres:
        path.addEllipse(c, r, r)
    return path


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
        self.name_label = NameLabel(self, px=11, bold=False, italic=True, placed=True)
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
            self._dots: tuple[QColor, QPainterPath] | None = None  # a wall's stones, a hedge's bushes
            pts = list(f.points)
            if t == TerrainType.SPLIT_RAIL_FENCE:
                # a worm fence zig-zags; the plain line is not drawn
                zz = QPen(QColor(colour), 0.1)
                zz.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
                self._decor.append((zz, zigzag_path(pts)))
                self.setPen(QPen(Qt.PenStyle.NoPen))
            elif t == TerrainType.STONE_WALL:
                self._dots = (QColor("#d8d8d0"), _dots_path(dots_along(pts, 0.4), 0.11))
            elif t == TerrainType.HEDGE:
                self._dots = (QColor("#5f9e48"), _dots_path(dots_along(pts, 0.45), 0.13))
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
            if dots is not None:  # every dot in one path, filled in one call
                colour, path = dots
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(colour)
                painter.drawPath(path)
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
