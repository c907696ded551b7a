"""The grids the names on the map are placed on: rectangles of the table (in inches) kept so that
what a candidate place would cover is found quickly, and taken out again when what they stand for
moves.

* :class:`_RectIndex`: rectangles under keys, looked up one place at a time (a grid of buckets) or
  many at once (a numpy array); the tools place their labels with it.
* :class:`_Bits`: rectangles marked on a fine grid whose rows are integers' bits, each mark with its
  owner (a unit, a name); :mod:`gui.canvas.label_places` keeps three (the units, the obstacles,
  the names placed) from one placing to the next.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from PySide6.QtCore import QRectF

_floor, _ceil = math.floor, math.ceil


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


class _Bits:
    """Rectangles (in inches) marked on a fine grid of the table, each row of cells one integer's
    bits: whether a rectangle touches any of them, or how many cells of it they cover, takes a
    few integer ANDs a row. A cell partly covered counts as covered, so a rectangle found clear is
    clear. Grids made with the same area and cell share their spans (:meth:`span`).

    Each rectangle is marked for an owner (a unit, a name), and an owner's marks can be taken off
    again (:meth:`remove`): a move re-marks only what moved. A grid made ``owned=False`` (the
    obstacles, which a move never changes) keeps only the marks."""

    def __init__(self, area: QRectF, cell: float, owned: bool = True):
        self.x0, self.y0, self.cell = area.left(), area.top(), cell
        self.nx = int(math.ceil(area.width() / cell)) + 1
        n = int(math.ceil(area.height() / cell)) + 1
        self.rows = [0] * n  # every owner's marks of a row, or-ed
        self.owned = owned
        # each owner's marks as they were added (mask, first row, last row); the owners of each
        # row are worked out from them when first needed (a change), not while the table is marked
        self._spans: dict[object, list[tuple[int, int, int]]] = {}
        self._by_row: list[dict[object, int]] | None = None

    def span(self, x0: float, y0: float, x1: float, y1: float) -> tuple[int, int, int] | None:
        """The cells a rectangle touches: a row mask and its first and last rows (None: none)."""
        c = self.cell
        i0 = max(0, math.floor((x0 - self.x0) / c))
        i1 = min(self.nx - 1, math.ceil((x1 - self.x0) / c) - 1)
        j0 = max(0, math.floor((y0 - self.y0) / c))
        j1 = min(len(self.rows) - 1, math.ceil((y1 - self.y0) / c) - 1)
        if i1 < i0 or j1 < j0:
            return None
        return ((1 << (i1 - i0 + 1)) - 1) << i0, j0, j1

    def add(self, r: QRectF, owner: object = None) -> None:
        self.add_box(r.x(), r.y(), r.width(), r.height(), owner)

    def add_box(self, x: float, y: float, w: float, h: float, owner: object = None) -> None:
        """:meth:`add` of the rectangle (x, y, width, height), as a ``QRectF`` of them is added."""
        c, x0, y0 = self.cell, self.x0, self.y0
        rows = self.rows
        # (the cells as span() works them out, without a call to min() or max() for each)
        i0 = _floor((x - x0) / c)
        if i0 < 0:
            i0 = 0
        i1 = _ceil((x + w - x0) / c) - 1
        if i1 >= self.nx:
            i1 = self.nx - 1
        j0 = _floor((y - y0) / c)
        if j0 < 0:
            j0 = 0
        j1 = _ceil((y + h - y0) / c) - 1
        if j1 >= len(rows):
            j1 = len(rows) - 1
        if i1 < i0 or j1 < j0:
            return
        mask = ((1 << (i1 - i0 + 1)) - 1) << i0
        for j in range(j0, j1 + 1):
            rows[j] |= mask
        if not self.owned:
            return
        spans = self._spans.get(owner)
        if spans is None:
            spans = self._spans[owner] = []
        spans.append((mask, j0, j1))
        if self._by_row is not None:
            by_row = self._by_row
            for j in range(j0, j1 + 1):
                d = by_row[j]
                d[owner] = d.get(owner, 0) | mask

    def add_boxes(self, boxes: Iterable[tuple[float, float, float, float]], owner: object = None) -> None:
        """:meth:`add_box` of each of ``boxes`` (x, y, width, height) for ``owner``, in one call:
        the same cells."""
        c, x0, y0 = self.cell, self.x0, self.y0
        rows = self.rows
        last_i, last_j = self.nx - 1, len(rows) - 1
        floor, ceil = _floor, _ceil
        spans = []
        for x, y, w, h in boxes:
            i0 = floor((x - x0) / c)
            if i0 < 0:
                i0 = 0
            i1 = ceil((x + w - x0) / c) - 1
            if i1 > last_i:
                i1 = last_i
            j0 = floor((y - y0) / c)
            if j0 < 0:
                j0 = 0
            j1 = ceil((y + h - y0) / c) - 1
            if j1 > last_j:
                j1 = last_j
            if i1 < i0 or j1 < j0:
                continue
            mask = ((1 << (i1 - i0 + 1)) - 1) << i0
            for j in range(j0, j1 + 1):
                rows[j] |= mask
            spans.append((mask, j0, j1))
        if not self.owned or not spans:
            return
        mine = self._spans.get(owner)
        if mine is None:
            mine = self._spans[owner] = []
        mine += spans
        if self._by_row is not None:
            by_row = self._by_row
            for mask, j0, j1 in spans:
                for j in range(j0, j1 + 1):
                    d = by_row[j]
                    d[owner] = d.get(owner, 0) | mask

    def _owners_by_row(self) -> list[dict[object, int]]:
        if self._by_row is None:
            by_row: list[dict[object, int]] = [{} for _ in self.rows]
            for owner, spans in self._spans.items():
                for mask, j0, j1 in spans:
                    for j in range(j0, j1 + 1):
                        d = by_row[j]
                        d[owner] = d.get(owner, 0) | mask
            self._by_row = by_row
        return self._by_row

    def marks(self) -> dict[object, dict[int, int]]:
        """Each owner's cells, row by row."""
        out: dict[object, dict[int, int]] = {}
        for owner, spans in self._spans.items():
            mine = out.setdefault(owner, {})
            for mask, j0, j1 in spans:
                for j in range(j0, j1 + 1):
                    mine[j] = mine.get(j, 0) | mask
        return out

    def remove(self, owner: object) -> None:
        """Take off every mark of ``owner``."""
        spans = self._spans.pop(owner, None)
        if not spans:
            return
        rows, by_row = self.rows, self._owners_by_row()
        for j in {j for _m, j0, j1 in spans for j in range(j0, j1 + 1)}:
            d = by_row[j]
            d.pop(owner, None)
            m = 0
            for v in d.values():
                m |= v
            rows[j] = m

    def owners_meeting(self, other: _Bits, owners: Iterable[object]) -> set[object]:
        """The owners of marks here that share a cell with the marks of ``owners`` in ``other`` (a
        grid of the same area and cell)."""
        return self.owners_meeting_spans([s for o in owners for s in other._spans.get(o, ())])

    def owners_meeting_spans(self, spans: Iterable[tuple[int, int, int] | None]) -> set[object]:
        """The owners of marks here that share a cell with any of ``spans`` (:meth:`span`)."""
        out: set[object] = set()
        by_row = self._owners_by_row()
        for span in spans:
            if span is None:
                continue
            m, j0, j1 = span
            for j in range(j0, j1 + 1):
                for mine, mask in by_row[j].items():
                    if mask & m:
                        out.add(mine)
        return out

    def hits(self, span: tuple[int, int, int] | None) -> bool:
        if span is None:
            return False
        mask, j0, j1 = span
        rows = self.rows
        for j in range(j0, j1 + 1):
            if rows[j] & mask:
                return True
        return False

    def count(self, span: tuple[int, int, int] | None) -> int:
        if span is None:
            return 0
        mask, j0, j1 = span
        rows = self.rows
        return sum((rows[j] & mask).bit_count() for j in range(j0, j1 + 1))
