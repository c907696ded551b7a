"""Names on the map, the items: a name drawn at a fixed size on a pale halo (:class:`NameLabel`), a
unit's name in full or by its short form (:class:`UnitName`, :func:`short_name`), and the leader
line from a name that had to move aside to its unit (:class:`LeaderLine`).

The level of detail follows the zoom: zoomed out, a unit goes by its short name ("26 NC",
"B/4 US", "Maurin"), zoomed in by its full name. Where each name goes is worked out by
:mod:`gui.canvas.label_places`, on the grids of :mod:`gui.canvas.label_grids`.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath
from PySide6.QtWidgets import QGraphicsItem, QGraphicsLineItem, QGraphicsSimpleTextItem

from gui.canvas.style import _label_font, cosmetic_pen

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
# "Parker's Virginia Battery": the captain's; "Cobb's Georgia Legion": "Cobb Legion"
_CAPTAINS_OWN = re.compile(rf"^([A-Z][\w.-]+)'s (?:(?:{_STATE}) )?Battery$")
_LEGION = re.compile(rf"^([A-Z][\w.-]+?)(?:'s|')? (?:(?:{_STATE}) )?Legion$")
SHORT_MAX = 12  # characters: a longer short name is cut with an ellipsis


def short_name(name: str) -> str:
    """The name a unit goes by on a crowded map: the number and state of a regiment, the letter
    and regiment of a battery, or a battery's captain or own name.

    >>> [short_name(n) for n in ("26th North Carolina", "2nd North Carolina Battalion",
    ...  "8th Illinois Cavalry", "Battery B, 4th US Artillery (Stewart)", "2nd Maine Battery (Hall)",
    ...  "Donaldsonville Artillery (Maurin)", "Crenshaw Battery", "14th Brooklyn (84th New York)")]
    ['26 NC', '2 NC Bn', '8 IL Cav', 'B/4 US', '2 ME Bty', 'Maurin', 'Crenshaw', '14 Brooklyn']
    >>> [short_name(n) for n in ("Pennsylvania Batteries C and F (Thompson)", "Parker's Virginia Battery",
    ...  "Cobb's Georgia Legion", "Phillips Georgia Legion")]
    ['Thompson', 'Parker', 'Cobb Legion', 'Phillips Legion']
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
    if m and ("Artillery" in text or "Batter" in text):
        return m.group(1)
    m = _CAPTAINS_OWN.match(text)
    if m:
        return m.group(1)
    m = _LEGION.match(text)
    if m:
        return f"{m.group(1)} Legion"
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
