"""Names on the map: a name drawn at a fixed size on a pale halo, and their placement clear of
one another, of the stands and of linear obstacles.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath
from PySide6.QtWidgets import QGraphicsItem, QGraphicsSimpleTextItem

from gui.canvas.style import _label_font, feature_anchor

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


class LabelLayout:
    """The placing of the names, for :class:`~gui.canvas.scene.BattlefieldScene` (its ``units``,
    ``terrain`` and ``table_rect``, the zoom of its first view)."""

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
        lines = self._obstacle_index()  # walls, fences, hedges, streams, roads
        taken = _RectIndex()  # names placed already
        units = [it for it in self.units.values() if it.isVisible()]
        every = units
        terrain_labels = [t for t in self.terrain.values() if t.name_label.isVisible()]
        reach: list[QRectF] | None = None  # where the names placed again can go (None: anywhere)
        if only is not None and abs(scale - self._placed_scale) < 1e-9:
            moved = {u for u in only if u in self.units}
            fresh = _RectIndex()
            for u in moved:
                it = self.units[u]
                for r in it.stand_rects:
                    fresh.add(r.translated(it.pos()))
            again, kept = [], []
            for it in units:
                lr = self.label_rect(it.label)
                if it.unit_id in moved or fresh.overlap(lr) > 0:
                    again.append(it)
                else:
                    kept.append(lr)
            # the places tried for a name lie within 1.6" + 1.5 (w + h) + 2 h of its unit's stands
            # (w, h: the name's size, see the candidates below): only what lies there can cover
            # one, so only that is indexed
            reach = []
            for it in again:
                pw, ph = it.label.size_px()
                m = 1.6 + 1.5 * (pw + ph) * k + 2 * ph * k
                reach.append(it.sceneBoundingRect().adjusted(-m, -m, m, m))
            for lr in [*kept, *(self.label_rect(t.name_label) for t in terrain_labels)]:
                if any(lr.intersects(a) for a in reach):
                    taken.add(lr)
            units, terrain_labels = again, []
        solid = _RectIndex()  # stands and markers
        for it in every:
            off = it.pos()
            for r in it.stand_rects:
                rr = r.translated(off)
                if reach is None or any(rr.intersects(a) for a in reach):
                    solid.add(rr)
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

    def _obstacle_index(self) -> _RectIndex:
        """The linear obstacles' boxes, indexed once for the terrain as it is: a move of a unit,
        which places a few names again, does not index the whole table's fences again."""
        key = tuple((id(t), id(t.obstacle_rects)) for t in self.terrain.values())
        cached = getattr(self, "_obstacles", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        lines = _RectIndex()
        for t in self.terrain.values():
            for r in t.obstacle_rects:
                lines.add(r)
        self._obstacles = (key, lines)
        return lines

    def _labels_need_layout(self) -> None:
        if not self._label_pending:
            self._label_pending = True
            QTimer.singleShot(0, self._deferred_layout)

    def _deferred_layout(self) -> None:
        self._label_pending = False
        self.layout_labels()
