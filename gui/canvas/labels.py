"""Names on the map: a name drawn at a fixed size on a pale halo, and their placement clear of
one another, of the stands and of linear obstacles.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath
from PySide6.QtWidgets import QGraphicsItem, QGraphicsSimpleTextItem

from gui.canvas.style import _label_font, feature_anchor

# -- names on the map --------------------------------------------------------------------------


class NameLabel(QGraphicsSimpleTextItem):
    """A name drawn at a fixed size on screen, on a pale halo so that it reads over anything.

    The scene places it (:meth:`BattlefieldScene.layout_labels`): behind its unit, or beside it
    where that is taken, clear of the other names, stands and obstacles.

    A name the scene places (``placed``: a unit's or a terrain feature's) is kept at its size on
    screen by the scale the scene gives it for the zoom it places the names for (1 / pixels an
    inch), so that it is an item like the others in the scene's index of items. (An item that
    ignores the view's transformation is looked at by every repaint of any part of the map, with
    the item it belongs to.) A name of the tools, shown a moment, ignores the transformation."""

    PAD_X, PAD_Y = 3.0, 1.0

    def __init__(
        self,
        parent: QGraphicsItem,
        px: int = 11,
        bold: bool = True,
        italic: bool = False,
        placed: bool = False,
    ):
        super().__init__(parent)
        self._box = QRectF()
        self.placed = placed
        if placed:
            self.setScale(1.0 / 12.0)  # until the scene places it, at the zoom it starts at
        else:
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
    """Rectangles (in inches), each under a key: to find quickly what a candidate place overlaps,
    and to take a key's rectangles out again when it moves.

    Two ways of looking, each made when first needed and kept up after: buckets of a grid, for a
    look-up at a time in plain Python (the first names placed, before numpy is loaded), and a
    numpy array of every rectangle, for many places measured at once (a row taken out is set to
    NaN, which meets nothing; the array is made again when it is mostly holes)."""

    CELL = 4.0

    def __init__(self):
        # each entry: [left, top, right, bottom, key, the look-up that last saw it]
        self._of: dict[object, list[list]] = {}
        self._cells: dict[tuple[int, int], list[list]] | None = None
        self._stamp = 0
        self._array = None
        self._keys_of_rows: list[object] = []
        self._used = 0
        self._rows: dict[object, list[int]] = {}
        self._dead = 0

    def _keys(self, left: float, top: float, right: float, bottom: float) -> list[tuple[int, int]]:
        c = self.CELL
        i0, i1 = math.floor(left / c), math.floor(right / c)
        j0, j1 = math.floor(top / c), math.floor(bottom / c)
        return [(i, j) for i in range(i0, i1 + 1) for j in range(j0, j1 + 1)]

    def _bucket(self, entry: list) -> None:
        assert self._cells is not None
        for k in self._keys(entry[0], entry[1], entry[2], entry[3]):
            self._cells.setdefault(k, []).append(entry)

    def cells(self) -> dict[tuple[int, int], list[list]]:
        """The buckets of the grid (made the first time they are asked for)."""
        if self._cells is None:
            self._cells = {}
            for v in self._of.values():
                for entry in v:
                    self._bucket(entry)
        return self._cells

    def add(self, r: QRectF, key: object = None) -> None:
        entry = [r.left(), r.top(), r.right(), r.bottom(), key, 0]
        self._of.setdefault(key, []).append(entry)
        if self._cells is not None:
            self._bucket(entry)
        if self._array is not None:
            if self._used == len(self._array):
                self._array = self._grown(self._array)
            self._array[self._used] = entry[:4]
            self._rows.setdefault(key, []).append(self._used)
            self._keys_of_rows.append(key)
            self._used += 1

    def remove(self, key: object) -> None:
        """Take out every rectangle added under ``key``."""
        rows = self._rows.pop(key, ())
        if self._array is not None and rows:
            self._array[rows] = float("nan")
            self._dead += len(rows)
            if self._dead > 256 and self._dead * 2 > self._used:
                self._array = None  # mostly holes: made again when next asked for
        gone = self._of.pop(key, ())
        if self._cells is not None:
            for entry in gone:
                for k in self._keys(entry[0], entry[1], entry[2], entry[3]):
                    bucket = self._cells.get(k)
                    if bucket:
                        bucket[:] = [e for e in bucket if e is not entry]

    def __contains__(self, key: object) -> bool:
        return key in self._of

    def rects(self, key: object) -> list[tuple[float, float, float, float]]:
        """The rectangles under ``key``, as (left, top, right, bottom)."""
        return [tuple(e[:4]) for e in self._of.get(key, ())]

    def overlap(self, r: QRectF, limit: float = math.inf) -> float:
        """The area of ``r`` that the rectangles here cover (counted once per rectangle); the
        count stops once it passes ``limit``."""
        left, top, right, bottom = r.left(), r.top(), r.right(), r.bottom()
        self._stamp += 1
        stamp = self._stamp
        total = 0.0
        cells = self.cells()
        for k in self._keys(left, top, right, bottom):
            for e in cells.get(k, ()):
                if e[5] == stamp:
                    continue
                e[5] = stamp
                w = min(right, e[2]) - max(left, e[0])
                if w <= 0:
                    continue
                h = min(bottom, e[3]) - max(top, e[1])
                if h <= 0:
                    continue
                total += w * h
                if total > limit:
                    return total
        return total

    def as_array(self):
        """Every rectangle, as rows (left, top, right, bottom) of a numpy array; rows of NaN
        where rectangles were taken out."""
        import numpy as np

        if self._array is None:
            rows: list[list[float]] = []
            self._rows, self._keys_of_rows = {}, []
            for key, v in self._of.items():
                self._rows[key] = list(range(len(rows), len(rows) + len(v)))
                self._keys_of_rows += [key] * len(v)
                rows += [e[:4] for e in v]
            self._used, self._dead = len(rows), 0
            self._array = np.full((max(16, 2 * len(rows)), 4), np.nan)
            if rows:
                self._array[: len(rows)] = rows
        return self._array[: self._used]

    @staticmethod
    def _grown(a):
        import numpy as np

        out = np.full((2 * len(a), 4), np.nan)
        out[: len(a)] = a
        return out

    def keys_over_any(self, rs: list[QRectF]) -> set[object]:
        """The keys of the rectangles that overlap any of ``rs`` (over some area)."""
        if self._array is None or not rs:
            out: set[object] = set()
            for r in rs:
                out |= self.keys_over(r)
            return out
        import numpy as np

        q = np.array([(r.left(), r.top(), r.right(), r.bottom()) for r in rs])
        a = self._array[: self._used]
        hit = (np.minimum(q[:, None, 2], a[None, :, 2]) > np.maximum(q[:, None, 0], a[None, :, 0])) & (
            np.minimum(q[:, None, 3], a[None, :, 3]) > np.maximum(q[:, None, 1], a[None, :, 1])
        )
        return {self._keys_of_rows[i] for i in np.flatnonzero(hit.any(axis=0)).tolist()}

    def keys_over(self, r: QRectF) -> set[object]:
        """The keys of the rectangles that overlap ``r`` (over some area)."""
        left, top, right, bottom = r.left(), r.top(), r.right(), r.bottom()
        if self._array is not None:  # numpy is loaded: all at once
            import numpy as np

            a = self._array[: self._used]
            hit = np.flatnonzero(
                (np.minimum(right, a[:, 2]) > np.maximum(left, a[:, 0]))
                & (np.minimum(bottom, a[:, 3]) > np.maximum(top, a[:, 1]))
            )
            return {self._keys_of_rows[i] for i in hit.tolist()}
        out: set[object] = set()
        cells = self.cells()
        for k in self._keys(left, top, right, bottom):
            for e in cells.get(k, ()):
                if (
                    e[4] not in out
                    and min(right, e[2]) > max(left, e[0])
                    and min(bottom, e[3]) > max(top, e[1])
                ):
                    out.add(e[4])
        return out


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
        the names that their stands now cover: a move does not shift names across the table. The
        indexes of stands, obstacles and names placed are kept between the two, and only the
        units changed are taken out and put back, so a change costs the same on a big table.
        """
        if scale is None:
            views = self.views()
            scale = views[0].transform().m11() if views else self._label_scale
        if not scale or scale <= 0:
            return
        self._label_scale = scale
        k = 1.0 / scale  # inches a pixel
        table = self.table_rect
        indexes = getattr(self, "_label_indexes", None)
        if only is not None and indexes is not None and abs(scale - self._placed_scale) < 1e-9:
            # the same zoom: the indexes kept stand, but for the units changed
            solid, lines, taken = indexes
            changed = set(only)
            moved = {u for u in changed if u in self.units}
            for u in changed:
                solid.remove(u)
                taken.remove(u)
            fresh: list[QRectF] = []
            for u in moved:
                it = self.units[u]
                off = it.pos()
                rects = [r.translated(off) for r in it.stand_rects]
                fresh += rects
                if it.isVisible():
                    for r in rects:
                        solid.add(r, u)
            # the names their stands now cover are placed again too
            covered = set(moved) | {key for key in taken.keys_over_any(fresh) if key in self.units}
            units = [it for uid, it in self.units.items() if uid in covered and it.isVisible()]
            for it in units:
                taken.remove(it.unit_id)
            terrain_labels = []
        else:
            solid = _RectIndex()  # stands and markers, by unit
            for uid, it in self.units.items():
                if it.isVisible():
                    off = it.pos()
                    for r in it.stand_rects:
                        solid.add(r.translated(off), uid)
            lines = self._obstacle_index()  # walls, fences, hedges, streams, roads
            taken = _RectIndex()  # names placed already, by unit id (or ("terrain", id))
            units = [it for it in self.units.values() if it.isVisible()]
            terrain_labels = [t for t in self.terrain.values() if t.name_label.isVisible()]
            self._label_indexes = (solid, lines, taken)
        self._placed_scale = scale

        # so far out that a name covers a good part of the table: no place is free, take the first
        crowded = scale < self.MIN_LABEL_SCALE
        tl, tt, tr, tb = table.left(), table.top(), table.right(), table.bottom()

        def costs(boxes: list[tuple[float, float, float, float]]) -> list[float]:
            """The cost of each place (left, top, right, bottom): the area it covers of the names
            placed (weighed 8), of the stands (4) and of the obstacles (2), and twice its area when
            it is not wholly on the table. A place's count stops once it costs more than the best
            before it, and the first free place ends the search."""
            out: list[float] = []
            best = math.inf
            for left, top, right, bottom in boxes:
                r = QRectF(QPointF(left, top), QPointF(right, bottom))
                on = left >= tl and top >= tt and right <= tr and bottom <= tb
                c = 0.0 if on else (right - left) * (bottom - top) * 2
                for index, weight in ((taken, 8), (solid, 4), (lines, 2)):
                    if c >= best:
                        break
                    c += index.overlap(r, (best - c) / weight) * weight
                out.append(c)
                best = min(best, c)
                if c <= 1e-9:
                    break
            return out

        def costs_at_once(boxes: list[tuple[float, float, float, float]]) -> list[float]:
            """The same costs, every place measured against every rectangle near them at once:
            those there when the names began to be placed (``near_rows``, with their weights), to
            which the names placed since are added."""
            b = np.array(boxes)
            sx0, sy0 = b[:, 0].min(), b[:, 1].min()
            sx1, sy1 = b[:, 2].max(), b[:, 3].max()
            on = (b[:, 0] >= tl) & (b[:, 1] >= tt) & (b[:, 2] <= tr) & (b[:, 3] <= tb)
            out = np.where(on, 0.0, (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]) * 2)
            if placed_now:  # the names placed since: with the rest, once
                fresh = np.array(placed_now)
                placed_now.clear()
                near_rows[0] = np.concatenate([near_rows[0], fresh])
            a = near_rows[0]
            o = a[(a[:, 0] < sx1) & (a[:, 2] > sx0) & (a[:, 1] < sy1) & (a[:, 3] > sy0)]
            if len(o):
                w = np.minimum(b[:, 2:3], o[:, 2]) - np.maximum(b[:, 0:1], o[:, 0])
                h = np.minimum(b[:, 3:4], o[:, 3]) - np.maximum(b[:, 1:2], o[:, 1])
                out += (np.maximum(w, 0.0) * np.maximum(h, 0.0)) @ o[:, 4]
            c = out.tolist()
            free = next((i for i, x in enumerate(c) if x <= 1e-9), None)
            return c if free is None else c[: free + 1]

        # numpy's arithmetic measures every place of a name at once; it is used once it is loaded
        # (a moment after the window is shown) or for many names, but the first names of a small
        # battle are placed without waiting for it
        many = len(units) + len(terrain_labels) > 40 or "numpy" in sys.modules
        placed_now: list[tuple[float, float, float, float, float]] = []  # names placed, weighed 8
        if many:
            import numpy as np

            def weighed(index: _RectIndex, weight: float):
                a = index.as_array()
                return np.column_stack([a, np.full(len(a), weight)])

            # what is there before the names are placed, with its weight: names 8, stands 4,
            # obstacles 2 (the rows of rectangles taken out are NaN: they meet nothing)
            near_rows = [np.concatenate([weighed(taken, 8.0), weighed(solid, 4.0), weighed(lines, 2.0)])]

        def place(
            label: NameLabel, candidates: list[tuple[float, float]], w: float, h: float, key: object
        ) -> None:
            if crowded:
                candidates = candidates[:1]
            boxes = [(x - w / 2, y - h / 2, x + w / 2, y + h / 2) for x, y in candidates]
            c = [0.0] if crowded else costs_at_once(boxes) if many else costs(boxes)
            # the first free place, else the first of those least covered
            i = min(range(len(c)), key=c.__getitem__)
            b = boxes[i]
            best = QRectF(QPointF(b[0], b[1]), QPointF(b[2], b[3]))
            taken.add(best, key)
            placed_now.append((b[0], b[1], b[2], b[3], 8.0))
            parent = label.parentItem()
            off = parent.pos() if parent is not None else QPointF()
            # the label's own rectangle starts at its halo; its position is the text's corner
            lb = label.boundingRect()
            if label.placed:
                label.setScale(k)
            label.setPos(best.topLeft() - off - QPointF(lb.left() * k, lb.top() * k))

        for it in units:
            fp = it.footprint
            pw, ph = it.label.size_px()
            w, h = pw * k, ph * k
            fx, fy = fp.forward
            rx, ry = fp.right
            cx, cy = fp.centre
            off = it.pos()
            cx, cy = cx + off.x(), cy + off.y()
            along_f = (abs(fx) * h + abs(fy) * w) / 2  # half the name's reach along the facing
            along_r = (abs(rx) * w + abs(ry) * h) / 2
            back = fp.depth / 2 + (1.05 if it._marker_list else 0.2) + along_f
            side = fp.frontage_in / 2 + 0.3 + along_r
            front = fp.depth / 2 + 0.35 + along_f

            # ahead of the unit's centre, and to its right, in inches
            offsets = (
                (-back, 0.0),
                (-back, -w / 3),
                (-back, w / 3),
                (-(back + h + 0.1), 0.0),
                (0.0, side),
                (0.0, -side),
                (-back, side),
                (-back, -side),
                (-(back + 2 * h + 0.2), 0.0),
                (front, 0.0),
            )
            cands = [(cx + fx * a + rx * r, cy + fy * a + ry * r) for a, r in offsets]
            place(it.label, cands, w, h, it.unit_id)
        for t in terrain_labels:
            lab = t.name_label
            pw, ph = lab.size_px()
            w, h = pw * k, ph * k
            anchor = feature_anchor(t.feature)
            ax, ay = anchor.x(), anchor.y()
            if t.feature.is_linear:
                cands = [(ax, ay - h), (ax, ay + h), (ax + w / 2, ay - h), (ax - w / 2, ay + h)]
            else:
                cands = [(ax, ay), (ax, ay - 1.5 * h), (ax, ay + 1.5 * h), (ax - w / 2, ay), (ax + w / 2, ay)]
            place(lab, cands, w, h, ("terrain", t.feature_id))

    def _obstacle_index(self) -> _RectIndex:
        """The linear obstacles' boxes, indexed once for the terrain as it is: a new zoom, which
        places every name again, does not index the whole table's fences again."""
        key = tuple((id(t), id(t.obstacle_rects)) for t in self.terrain.values())
        cached = getattr(self, "_obstacles", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        lines = _RectIndex()
        for fid, t in self.terrain.items():
            for r in t.obstacle_rects:
                lines.add(r, fid)
        self._obstacles = (key, lines)
        return lines

    def _labels_need_layout(self) -> None:
        if not self._label_pending:
            self._label_pending = True
            QTimer.singleShot(0, self._deferred_layout)

    def _deferred_layout(self) -> None:
        self._label_pending = False
        self.layout_labels()
