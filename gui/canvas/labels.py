"""Names on the map: a name drawn at a fixed size on a pale halo, and their placement clear of
one another, of the units (their stands, markers and health glyphs) and of linear obstacles.

The level of detail follows the zoom: zoomed out, a unit goes by its short name ("26 NC",
"B/4 US", "Maurin"), zoomed in by its full name. A name sits by its unit; where every place beside
it is taken, a full name tries its short form, and then the name moves aside, as near as it can,
with a leader line to its unit. No two names overlap and no name covers a unit: those are hard
limits of the placing, not preferences.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from functools import lru_cache

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath
from PySide6.QtWidgets import QGraphicsItem, QGraphicsLineItem, QGraphicsSimpleTextItem

from gui.canvas.style import _label_font, cosmetic_pen, feature_anchor

# -- short names ---------------------------------------------------------------------------------

#: The postal abbreviations of a regiment's state in its short name ("26th North Carolina" is
#: "26 NC"); "US" for the regulars.
STATES = {
    "Alabama": "AL", "Arkansas": "AR", "California": "CA", "Connecticut": "CT", "Delaware": "DE",
    "Florida": "FL", "Georgia": "GA", "Illinois": "IL", "Indiana": "IN", "Iowa": "IA", "Kansas": "KS",
    "Kentucky": "KY", "Louisiana": "LA", "Maine": "ME", "Maryland": "MD", "Massachusetts": "MA",
    "Michigan": "MI", "Minnesota": "MN", "Mississippi": "MS", "Missouri": "MO",
    "New Hampshire": "NH", "New Jersey": "NJ", "New York": "NY", "North Carolina": "NC", "Ohio": "OH",
    "Pennsylvania": "PA", "Rhode Island": "RI", "South Carolina": "SC", "Tennessee": "TN",
    "Texas": "TX", "Vermont": "VT", "Virginia": "VA", "West Virginia": "WV", "Wisconsin": "WI",
    "US": "US", "U.S.": "US", "United States": "US",
}  # fmt: skip
_KIND_WORDS = {"Cavalry": "Cav", "Battalion": "Bn", "Battery": "Bty", "Artillery": "Art", "Infantry": ""}
_ORDINAL = r"(\d+)(?:st|nd|rd|th)"
_STATE = "|".join(sorted((re.escape(k) for k in STATES), key=len, reverse=True))
_REGIMENT = re.compile(
    rf"^{_ORDINAL} ({_STATE})\b(?: Volunteer)?(?: (Cavalry|Battalion|Battery|Artillery|Infantry))?"
)
_LETTERED = re.compile(rf"^Battery (\w+),? {_ORDINAL} ({_STATE})\b")
_CAPTAIN = re.compile(r"\(([A-Z][\w'.-]+)\)\s*$")
_NAMED = re.compile(r"^([\w.-]+(?: [\w.-]+)??)(?:'s)? (?:Light )?(?:Battery|Artillery)\b")
_floor, _ceil = math.floor, math.ceil
SHORT_MAX = 12  # characters: a longer short name is cut with an ellipsis


def short_name(name: str) -> str:
    """The name a unit goes by on a crowded map: the number and state of a regiment, the letter
    and regiment of a battery, or a battery's captain or own name.

    >>> [short_name(n) for n in ("26th North Carolina", "2nd North Carolina Battalion",
    ...  "8th Illinois Cavalry", "Battery B, 4th US Artillery (Stewart)", "2nd Maine Battery (Hall)",
    ...  "Donaldsonville Artillery (Maurin)", "Crenshaw Battery", "14th Brooklyn (84th New York)")]
    ['26 NC', '2 NC Bn', '8 IL Cav', 'B/4 US', '2 ME Bty', 'Maurin', 'Crenshaw', '14 Brooklyn']
    """
    text = " ".join(name.split())
    m = _LETTERED.match(text)
    if m:
        return f"{m.group(1)}/{m.group(2)} {STATES[m.group(3)]}"
    m = _REGIMENT.match(text)
    if m:
        kind = _KIND_WORDS.get(m.group(3) or "", "")
        return " ".join(x for x in (m.group(1), STATES[m.group(2)], kind) if x)
    m = _CAPTAIN.search(text)
    if m and ("Artillery" in text or "Battery" in text):
        return m.group(1)
    m = _NAMED.match(text)
    if m:
        return m.group(1)
    m = re.match(rf"^{_ORDINAL} (\S+)", text)  # "14th Brooklyn (84th New York)": "14 Brooklyn"
    if m:
        text = f"{m.group(1)} {m.group(2)}"
    return text if len(text) <= SHORT_MAX else text[: SHORT_MAX - 1].rstrip() + "…"


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


class UnitName(NameLabel):
    """A unit's name on the map: its full name, or its short one (:func:`short_name`) where the
    map is zoomed out or the full name finds no room beside the unit."""

    FULL_PX, SHORT_PX = 11, 9

    def __init__(self, parent: QGraphicsItem):
        super().__init__(parent, px=self.FULL_PX, bold=True, placed=True)
        self.full = ""
        self.short = ""
        self.detail = "full"
        # the size of each text shown in the names' own fonts, measured when shown: a placing
        # weighs the full and the short name without showing each in turn
        self._sizes: dict[tuple[str, int], tuple[float, float]] = {}
        self._own_font = True  # the font is the one _show gives (not a ghost's italic)
        self._in_show = False

    def setFont(self, font: QFont) -> None:  # noqa: N802
        if not getattr(self, "_in_show", True):  # another font than the names' own
            self._own_font = False
            self._sizes.clear()
        super().setFont(font)

    def size_px_as(self, detail: str) -> tuple[float, float]:
        """The name's size in pixels shown with ``detail`` ("full" or "short"); shown so to be
        measured the first time only."""
        text = self.full if detail == "full" else self.short
        px = self.FULL_PX if detail == "full" else self.SHORT_PX
        if self._own_font or self.font().pixelSize() != px:
            size = self._sizes.get((text, px))
            if size is not None:
                return size
        if detail != self.detail:
            self.set_detail(detail)
        return self.size_px()

    def set_name(self, name: str, hidden: bool = False, short: str | None = None) -> None:
        """The unit's name; a unit deployed hidden says so in both its names. With ``short``, that
        is its name zoomed out (a ghost's "last seen" keeps its whole name at every zoom)."""
        full = f"{name} (hidden)" if hidden else name
        short = short if short is not None else short_name(name)
        short = f"{short} (hidden)" if hidden else short
        if (full, short) == (self.full, self.short):  # measuring the name again is not free
            return
        self.full, self.short = full, short
        self._show()

    def set_detail(self, detail: str) -> bool:
        """Show the "full" or the "short" name; True if what is shown changed."""
        if detail == self.detail:
            return False
        self.detail = detail
        return self._show()

    def _show(self) -> bool:
        text = self.full if self.detail == "full" else self.short
        px = self.FULL_PX if self.detail == "full" else self.SHORT_PX
        if text == self.text() and self.font().pixelSize() == px:
            return False
        if self.font().pixelSize() != px:
            self._in_show = True
            try:
                self.setFont(_label_font(px, bold=True))
            finally:
                self._in_show = False
            self._own_font = True
        self.setText(text)
        if self._own_font:
            if len(self._sizes) > 8:
                self._sizes.clear()
            self._sizes[(text, px)] = self.size_px()
        return True


class LeaderLine(QGraphicsLineItem):
    """The thin line from a name that had to move aside to its unit."""

    def __init__(self, parent: QGraphicsItem):
        super().__init__(parent)
        self.setPen(cosmetic_pen(QColor(30, 30, 30, 200), 1.0))
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setVisible(False)


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


class LabelLayout:
    """The placing of the names, for :class:`~gui.canvas.scene.BattlefieldScene` (its ``units``,
    ``terrain`` and ``table_rect``, the zoom of its first view)."""

    #: Pixels an inch from which units are named in full; below it, by their short names.
    FULL_NAMES_PX = 9.0
    #: Below this the whole table is a few hundred pixels across: the names are not placed at all.
    MIN_LABEL_SCALE = 2.5
    #: How many rings round its unit a name that had to move aside may try, and how far it may go.
    MAX_RINGS, MAX_LEADER_IN = 24, 40.0
    #: The rings a name left off for want of room is tried on again after a move near it.
    NEAR_RINGS = 4

    def label_scale(self) -> float:
        """Pixels an inch that the names were last placed for."""
        return self._label_scale

    def label_rect(self, label: QGraphicsItem) -> QRectF:
        """The table area (inches) a name drawn at a fixed size covers at the zoom it was placed for."""
        k = 1.0 / self._label_scale
        lb = label.boundingRect()
        p = label.scenePos()
        return QRectF(p.x() + lb.left() * k, p.y() + lb.top() * k, lb.width() * k, lb.height() * k)

    def name_detail(self, scale: float) -> str:
        """The level of detail of the names at ``scale`` pixels an inch: "full" or "short"."""
        return "full" if scale >= self.FULL_NAMES_PX else "short"

    def layout_labels(self, scale: float | None = None, only: Iterable[str] | None = None) -> None:
        """Place every name by its unit, clear of the other names, of every unit and of walls and
        streams.

        Names are drawn at a fixed size in pixels, so their size in inches depends on the zoom
        (``scale``: pixels an inch; the first view's zoom when not given), and so does their level
        of detail (:meth:`name_detail`). A unit's name is tried behind it (relative to its facing),
        then beside it and in front; where all of those are taken, a full name tries its short
        form there; then the name moves aside, ring by ring, to the nearest free place, and a
        leader line joins it to its unit. A place is free when it is on the table and covers no
        other name, no stand, marker or health glyph of any unit; among the free places of a ring,
        the one that covers least of the walls, fences, roads and streams is taken. A name with no
        free place within reach is left off (it shows on hover) rather than laid over another.
        Terrain names go at their feature's centre or beside it where that is free, and are left
        off where it is not.

        With ``only`` (unit ids, at the same zoom), just those units' names are placed again, and
        the names that their units now cover: a move does not shift names across the table. A
        name with no room beside its unit that has moved aside before, its unit facing as it did
        then, goes back where it last was by its unit while that place is free, before the rings
        are searched.
        """
        for u in self._place_names(scale, only):
            it = self.units.get(u)
            if it is not None:
                it.place_changed = False

    def _place_names(self, scale: float | None, only: Iterable[str] | None) -> Iterable[str]:
        """:meth:`layout_labels`; the units whose names it placed (or left off)."""
        if scale is None:
            views = self.views()
            scale = views[0].transform().m11() if views else self._label_scale
        if not scale or scale <= 0:
            return ()
        self._label_scale = scale
        k = 1.0 / scale  # inches a pixel
        table = self.table_rect
        detail = self.name_detail(scale)
        incremental = only is not None and abs(scale - self._placed_scale) < 1e-9
        # a grid a pixel or so fine (a quarter of an inch at most) over the table, kept from one
        # placing to the next at the same zoom: a move re-marks only the units it moved
        area = table.adjusted(-1, -1, 1, 1)
        cell = min(max(1.5 * k, 0.05), 0.25)
        pad = 1.0 * k
        key = (scale, area.getRect(), cell)
        grids = getattr(self, "_label_grids", None)
        if not incremental or grids is None or grids[0] != key:
            incremental = False
            units = [it for it in self.units.values() if it.isVisible()]
            solid = _Bits(area, cell)  # stands, markers and health glyphs: what a name may never cover
            mark = solid.add_boxes
            for it in units:
                it.set_glyph_scale(scale)
                # each box with a pixel of room round it
                mark(
                    [(x - pad, y - pad, w + pad + pad, h + pad + pad) for x, y, w, h in it.solid_boxes()],
                    it.unit_id,
                )
            lines = _Bits(area, cell, owned=False)  # walls, fences, hedges, streams, roads
            for t in self.terrain.values():
                lines.add_boxes(_obstacle_boxes(t))
            taken = _Bits(area, cell)  # names placed already
            self._label_grids = (key, solid, lines, taken)
        else:
            _key, solid, lines, taken = grids
        # what was taken before the change, in the rows a mark was taken off: a cell it frees may
        # make room for a name left off (elsewhere marks were only added)
        before: dict[int, int] = {}
        placed_again: set[object] = set()
        if incremental:
            # a unit whose place, look and name are as they were when its name was placed (an
            # umpire's ruling on its micro-hits) leaves its name where it is
            moved = {u for u in only or () if u not in self.units or self.units[u].place_changed}
            if not moved:
                return ()
            solid_rows, taken_rows = solid.rows, taken.rows

            def keep(grid: _Bits, owner: object) -> None:
                for _m, j0, j1 in grid._spans.get(owner, ()):
                    for j in range(j0, j1 + 1):
                        if j not in before:
                            before[j] = solid_rows[j] | taken_rows[j]

            for u in moved:  # where they stood, and their names there, are free now
                keep(solid, u)
                keep(taken, u)
                solid.remove(u)
                taken.remove(u)
            marks: list[tuple[float, float, float, float, str]] = []
            for u in moved:
                it = self.units.get(u)
                if it is None or not it.isVisible():
                    continue
                it.set_glyph_scale(scale)
                for x, y, w, h in it.solid_boxes():
                    marks.append((x - pad, y - pad, w + pad + pad, h + pad + pad, u))
            # the names whose cells the units' new places cover are placed again (terrain names too)
            covered = taken.owners_meeting_spans([solid.span(x, y, x + w, y + h) for x, y, w, h, _u in marks])
            for key in covered:
                keep(taken, key)
            for x, y, w, h, u in marks:
                solid.add_box(x, y, w, h, u)
            for key in covered:
                taken.remove(key)
            placed_again = moved | covered
            laid = placed_again
            named = [it for u, it in self.units.items() if u in placed_again and it.named and it.isVisible()]
            terrain_labels = [
                t
                for fid, t in self.terrain.items()
                if ("terrain", fid) in covered
                and (t.name_label.isVisible() or getattr(t, "_name_crowded", False))
            ]
        else:
            laid = self.units.keys()
            named = [it for it in units if it.named]
            terrain_labels = [
                t
                for t in self.terrain.values()
                if t.name_label.isVisible() or getattr(t, "_name_crowded", False)
            ]
        # the detail each name is shown with once placed: weighed (its size) before it is shown
        want = {}
        for it in named:
            want[it] = detail
            it.label.setScale(k)  # its size on screen at this zoom (shown on hover where left off)
        self._placed_scale = scale
        if scale < self.MIN_LABEL_SCALE:
            for it in named:
                it.label.set_detail(detail)
                it.show_name(False)
            return laid

        tx0, ty0, tx1, ty1 = table.left(), table.top(), table.right(), table.bottom()

        gx0, gy0, inv = solid.x0, solid.y0, 1.0 / solid.cell
        last_i, last_j = solid.nx - 1, len(solid.rows) - 1
        solid_rows, taken_rows = solid.rows, taken.rows
        floor, ceil = math.floor, math.ceil

        def best(cands: list[tuple[float, float]], w: float, h: float) -> QRectF | None:
            """The free place among ``cands`` (centres) that covers least of the linear
            obstacles, the first of them where several cover none."""
            found, found_cost = None, math.inf
            hw, hh = w / 2, h / 2
            for cx, cy in cands:
                x0, y0, x1, y1 = cx - hw, cy - hh, cx + hw, cy + hh
                if x0 < tx0 or y0 < ty0 or x1 > tx1 or y1 > ty1:
                    continue
                # the cells it touches, worked out here rather than by a call: every candidate
                # place goes through this loop
                i0 = floor((x0 - gx0) * inv)
                i1 = ceil((x1 - gx0) * inv) - 1
                if i1 > last_i:
                    i1 = last_i
                j0 = floor((y0 - gy0) * inv)
                j1 = ceil((y1 - gy0) * inv) - 1
                if j1 > last_j:
                    j1 = last_j
                mask = ((1 << (i1 - i0 + 1)) - 1) << i0
                clear = True
                for j in range(j0, j1 + 1):
                    if (solid_rows[j] | taken_rows[j]) & mask:
                        clear = False
                        break
                if not clear:
                    continue
                c = lines.count((mask, j0, j1))
                if c < found_cost:
                    found, found_cost = QRectF(x0, y0, w, h), c
                    if c == 0:
                        break
            return found

        def settle(it, r: QRectF, leader: bool) -> None:
            taken.add(r, it.unit_id)
            label = it.label
            label.set_detail(want.get(it, label.detail))
            off = it.pos()
            lb = label.boundingRect()
            label.setPos(r.topLeft() - off - QPointF(lb.left() * k, lb.top() * k))
            if leader:
                a, b = _leader_ends(it, r)
                it.leader.setLine(QLineF(a - off, b - off))
            it.show_name(True, leader)
            if leader:  # where it went from its unit's centre (see step 3)
                fp = it.footprint
                c = r.center()
                it.aside = (
                    c.x() - fp.centre[0] - off.x(),
                    c.y() - fp.centre[1] - off.y(),
                    _size_key(r.width(), r.height()),
                    fp.facing_deg,
                )

        def size(it) -> tuple[float, float]:
            label = it.label
            pw, ph = label.size_px_as(want.get(it, label.detail))
            return pw * k, ph * k

        def places(cands: list[tuple[float, float]], w: float, h: float) -> list[tuple]:
            """The places among ``cands`` (centres) on the table, each with the cells it covers:
            (left, top, row mask, first row, last row)."""
            out = []
            hw, hh = w / 2, h / 2
            for cx, cy in cands:
                x0, y0, x1, y1 = cx - hw, cy - hh, cx + hw, cy + hh
                if x0 < tx0 or y0 < ty0 or x1 > tx1 or y1 > ty1:
                    continue
                i0 = floor((x0 - gx0) * inv)
                i1 = ceil((x1 - gx0) * inv) - 1
                if i1 > last_i:
                    i1 = last_i
                j1 = ceil((y1 - gy0) * inv) - 1
                if j1 > last_j:
                    j1 = last_j
                out.append((x0, y0, ((1 << (i1 - i0 + 1)) - 1) << i0, floor((y0 - gy0) * inv), j1))
            return out

        def best_of(spots: list[tuple], w: float, h: float) -> QRectF | None:
            """:func:`best` of places worked out by :func:`places`."""
            found, found_cost = None, math.inf
            for x0, y0, mask, j0, j1 in spots:
                for j in range(j0, j1 + 1):
                    if (solid_rows[j] | taken_rows[j]) & mask:
                        break
                else:
                    c = lines.count((mask, j0, j1))
                    if c < found_cost:
                        found, found_cost = QRectF(x0, y0, w, h), c
                        if c == 0:
                            break
            return found

        beside: dict = {}  # each unit's places beside it, worked out once for steps 1 and its order

        def room(it) -> int:
            """How many of the places beside a unit no unit covers: the fewest are placed first."""
            w, h = size(it)
            spots = beside[it] = places(_beside(it, w, h), w, h)
            n = 0
            for _x0, _y0, mask, j0, j1 in spots:
                for j in range(j0, j1 + 1):
                    if solid_rows[j] & mask:
                        break
                else:
                    n += 1
            return n

        # 1: each name beside its unit, full or short as the zoom has it; the units with the least
        # room beside them first, so that a unit with room to spare does not take another's only place
        left = []
        for it in sorted(named, key=room):
            w, h = size(it)
            r = best_of(beside[it], w, h)
            if r is None:
                left.append(it)
            else:
                settle(it, r, False)
        # 2: a full name with no room beside its unit tries its short name there
        still = []
        for it in left:
            if want[it] == "full":  # (the short name is always another text, or another size)
                want[it] = "short"
                w, h = size(it)
                r = best(_beside(it, w, h), w, h)
                if r is not None:
                    settle(it, r, False)
                    continue
            still.append(it)
        # 3: a name that has moved aside before, its unit moved facing as it did, goes where it
        # last was by its unit while that place is free: a unit nudged, or a ruling that widens
        # its glyph, does not send its name round it again
        if incremental and still:
            rest = []
            for it in still:
                if it.aside is not None:  # (every name here was placed again: its unit changed)
                    w, h = size(it)
                    ox, oy, was, facing = it.aside
                    fp = it.footprint
                    if was == _size_key(w, h) and facing == fp.facing_deg:
                        p = it.pos()
                        r = best([(fp.centre[0] + p.x() + ox, fp.centre[1] + p.y() + oy)], w, h)
                        if r is not None:
                            settle(it, r, True)
                            continue
                rest.append(it)
            still = rest
        # 4: the rest move aside, ring by ring, each to the nearest free place, with a leader line
        for ring in range(1, self.MAX_RINGS + 1):
            if not still:
                break
            later = []
            for it in still:
                w, h = size(it)
                cands = _ring(it, w, h, ring, self.MAX_LEADER_IN)
                r = best(cands, w, h) if cands else None
                if r is None:
                    later.append(it)
                else:
                    settle(it, r, True)
            still = later
        # 5: no free place within reach (a very crowded table at this zoom): the name is left off
        for it in still:
            it.show_name(False)
        for it, d in want.items():  # each name as it was weighed (shown on hover where left off)
            it.label.set_detail(d)
        # 6: after a change, a name left off is tried again near its unit where the change freed
        # cells within its reach (nothing else there has changed: it would find no room)
        freed = {j: b & ~(solid_rows[j] | taken_rows[j]) for j, b in before.items()}
        freed = {j: f for j, f in freed.items() if f}
        if freed:
            retry = [  # the names left off before the change (those of its units were placed again)
                it
                for u, it in self.units.items()
                if not it.name_placed and u not in placed_again and it.named and it.isVisible()
            ]
            freed_any, freed_j0, freed_j1 = 0, min(freed), max(freed)
            for f in freed.values():
                freed_any |= f
            for it in retry:
                w, h = size(it)
                fp = it.footprint
                p = it.pos()
                cx, cy = fp.centre[0] + p.x(), fp.centre[1] + p.y()
                reach = _ring_reach(it, w, h, self.NEAR_RINGS) + max(w, h)
                span = solid.span(cx - reach, cy - reach, cx + reach, cy + reach)
                if span is None:
                    continue
                mask, j0, j1 = span
                if j1 < freed_j0 or j0 > freed_j1 or not freed_any & mask:
                    continue
                if not any(f & mask for j, f in freed.items() if j0 <= j <= j1):
                    continue
                r = best(_beside(it, w, h), w, h)
                if r is not None:
                    settle(it, r, False)
                    continue
                for ring in range(1, self.NEAR_RINGS + 1):
                    r = best(_ring(it, w, h, ring, self.MAX_LEADER_IN), w, h)
                    if r is not None:
                        settle(it, r, True)
                        break
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
            r = best([(c.x(), c.y()) for c in cands], w, h)
            t._name_crowded = r is None
            taken.remove(("terrain", t.feature.id))
            if r is None:
                lab.setVisible(False)
                continue
            taken.add(r, ("terrain", t.feature.id))
            parent = lab.parentItem()
            off = parent.pos() if parent is not None else QPointF()
            lb = lab.boundingRect()
            if lab.placed:
                lab.setScale(k)
            lab.setPos(r.topLeft() - off - QPointF(lb.left() * k, lb.top() * k))
            lab.setVisible(True)
        return laid

    def _labels_need_layout(self) -> None:
        if not self._label_pending:
            self._label_pending = True
            QTimer.singleShot(0, self._deferred_layout)

    def _deferred_layout(self) -> None:
        self._label_pending = False
        self.layout_labels()


def _obstacle_boxes(t) -> list[tuple[float, float, float, float]]:
    """A terrain item's ``obstacle_rects`` as (x, y, width, height), kept while they stand."""
    rects = t.obstacle_rects
    kept = getattr(t, "_obstacle_boxes", None)
    if kept is None or kept[0] is not rects:
        kept = t._obstacle_boxes = (rects, [(r.x(), r.y(), r.width(), r.height()) for r in rects])
    return kept[1]


def _beside(it, w: float, h: float) -> list[tuple[float, float]]:
    """Where a name of ``w`` x ``h`` inches may go right beside its unit (centres, scene inches):
    behind it (relative to its facing), further behind, beside it, and in front."""
    fp = it.footprint
    fx, fy = fp.forward
    rx, ry = fp.right
    p = it.pos()
    cx, cy = fp.centre[0] + p.x(), fp.centre[1] + p.y()
    along_f = (abs(fx) * h + abs(fy) * w) / 2  # half the name's reach along the facing
    along_r = (abs(rx) * w + abs(ry) * h) / 2
    back = fp.depth / 2 + (1.05 if it._marker_list else 0.2) + along_f
    side = fp.frontage_in / 2 + 0.3 + along_r
    front = fp.depth / 2 + 0.35 + along_f
    # (steps back along the facing, steps right): behind, further behind, beside, in front
    places = (
        (back, 0.0),
        (back, -w / 3),
        (back, w / 3),
        (back + h + 0.1, 0.0),
        (0.0, side),
        (0.0, -side),
        (back, side),
        (back, -side),
        (back + 2 * h + 0.2, 0.0),
        (-front, 0.0),
    )
    return [(cx - fx * b + rx * r, cy - fy * b + ry * r) for b, r in places]


# the turns (degrees from straight behind the unit) a name moving aside tries, behind first
_TURNS = (0, 20, -20, 45, -45, 70, -70, 90, -90, 115, -115, 140, -140, 160, -160, 180)


def _ring(it, w: float, h: float, ring: int, reach_in: float) -> list[tuple[float, float]]:
    """The places (centres, scene inches) of the ``ring``-th ring round a unit: the distance from
    the unit's centre grows by about a name's height a ring, and each ring is tried from behind
    the unit round to its front. Empty once the ring is more than ``reach_in`` out."""
    fp = it.footprint
    p = it.pos()
    cx, cy = fp.centre[0] + p.x(), fp.centre[1] + p.y()
    step = max(h * 1.1, 0.5)
    base = math.hypot(fp.frontage_in, fp.depth) / 2 + min(w, h) / 2
    out = ring * step
    if ring > 1 and out > reach_in:
        return []
    reach = base + out
    back = math.atan2(-fp.forward[1], -fp.forward[0])
    # far out, more places round the ring, so that they stay about a name's height apart
    cb, sb = math.cos(back), math.sin(back)
    return [  # each turn's (cos, sin), turned by the unit's "behind"
        (cx + (ca * cb - sa * sb) * reach, cy + (sa * cb + ca * sb) * reach)
        for ca, sa in _turns(int(2 * math.pi * reach / max(h, 0.3)))
    ]


def _ring_reach(it, w: float, h: float, ring: int) -> float:
    """How far from its unit's centre the ``ring``-th ring of a name of ``w`` x ``h`` goes."""
    fp = it.footprint
    return math.hypot(fp.frontage_in, fp.depth) / 2 + min(w, h) / 2 + ring * max(h * 1.1, 0.5)


@lru_cache(maxsize=256)
def _turns(n: int) -> tuple[tuple[float, float], ...]:
    """``n`` turns from straight behind (at least :data:`_TURNS`), nearest behind first, as their
    (cos, sin)."""
    if n <= len(_TURNS):
        angles = [math.radians(t) for t in _TURNS]
    else:
        angles = sorted(
            (2 * math.pi * i / n for i in range(n)), key=lambda a: abs(math.remainder(a, 2 * math.pi))
        )
    return tuple((math.cos(a), math.sin(a)) for a in angles)


def _size_key(w: float, h: float) -> tuple[float, float]:
    """A name box's size, as kept to know the same name at the same zoom again."""
    return round(w, 9), round(h, 9)


def _leader_ends(it, r: QRectF) -> tuple[QPointF, QPointF]:
    """A leader line's ends (scene inches): the unit's anchor nearest the name (its front corners,
    the middle of its front or rear edge), and the point of the name's box nearest to that."""
    fp = it.footprint
    off = it.pos()
    anchors = [QPointF(*p) + off for p in (fp.centre_front, fp.left_front, fp.right_front)]
    cx, cy = fp.centre
    fx, fy = fp.forward
    anchors.append(QPointF(cx - fx * fp.depth / 2, cy - fy * fp.depth / 2) + off)
    centre = r.center()
    unit_end = min(anchors, key=lambda p: (p.x() - centre.x()) ** 2 + (p.y() - centre.y()) ** 2)
    x = min(max(unit_end.x(), r.left()), r.right())
    y = min(max(unit_end.y(), r.top()), r.bottom())
    return unit_end, QPointF(x, y)
