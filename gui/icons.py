"""Small icons drawn in code: markers, health states, side colours and brigade states.

They are drawn once and cached, so the roster and the canvas can ask for them as often as they
like. Each marker has a letter and a colour that the roster, the inspector and the map share.
"""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QIcon, QPainter, QPen, QPixmap

from rules.battle.words import BrigadeState, Health, Marker

# letter and colour of each marker, as drawn on the roster and on the model
MARKER_STYLE: dict[Marker, tuple[str, str]] = {
    Marker.DISORDER: ("D", "#d62728"),
    Marker.SMOKE: ("S", "#7f7f7f"),
    Marker.FIRED: ("F", "#ff7f0e"),
    Marker.PINNED: ("P", "#9467bd"),
    Marker.ENGAGED: ("E", "#8c564b"),
    Marker.GARRISONED: ("G", "#2ca02c"),
    Marker.REFUSED_LEFT: ("L", "#17becf"),  # refused its left flank
    Marker.REFUSED_RIGHT: ("R", "#17becf"),  # refused its right flank
    Marker.REFUSED_FLANK: ("B", "#17becf"),  # a refusal saved without its side: both flanks
    Marker.CLIMBING: ("C", "#bcbd22"),
}

HEALTH_COLOUR: dict[Health, str] = {
    Health.FRESH: "#2e7d32",
    Health.WORN: "#f9a825",
    Health.SPENT: "#c62828",
    Health.DESTROYED: "#424242",
}

BRIGADE_STATE_COLOUR: dict[BrigadeState, str] = {
    BrigadeState.STEADY: "#2e7d32",
    BrigadeState.HESITANT: "#f9a825",
    BrigadeState.BROKEN: "#c62828",
}


def marker_letter(m: Marker) -> str:
    return MARKER_STYLE[m][0]


def marker_colour(m: Marker) -> QColor:
    return QColor(MARKER_STYLE[m][1])


@lru_cache(maxsize=64)
def _marker_pixmap(value: str, size: int) -> QPixmap:
    m = Marker(value)
    letter, colour = MARKER_STYLE[m]
    pm = QPixmap(size, size)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setBrush(QBrush(QColor(colour)))
    p.setPen(QPen(QColor("#202020"), 1))
    p.drawRoundedRect(QRectF(0.5, 0.5, size - 1, size - 1), 3, 3)
    f = QFont()
    f.setBold(True)
    f.setPixelSize(int(size * 0.7))
    p.setFont(f)
    p.setPen(QColor("white"))
    p.drawText(QRectF(0, 0, size, size), Qt.AlignmentFlag.AlignCenter, letter)
    p.end()
    return pm


def marker_icon(m: Marker, size: int = 16) -> QIcon:
    return QIcon(_marker_pixmap(m.value, size))


def markers_pixmap(markers, size: int = 16) -> QPixmap | None:
    """All of a unit's markers side by side (in the order of :class:`Marker`), or None."""
    ms = [m for m in Marker if m in markers]
    if not ms:
        return None
    pm = QPixmap(len(ms) * (size + 2), size)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    for i, m in enumerate(ms):
        p.drawPixmap(i * (size + 2), 0, _marker_pixmap(m.value, size))
    p.end()
    return pm


@lru_cache(maxsize=64)
def _dot(colour: str, size: int) -> QPixmap:
    pm = QPixmap(size, size)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setBrush(QColor(colour))
    p.setPen(QPen(QColor("#202020"), 1))
    p.drawEllipse(QRectF(1, 1, size - 2, size - 2))
    p.end()
    return pm


def dot_icon(colour: str, size: int = 12) -> QIcon:
    return QIcon(_dot(colour, size))


def health_icon(h: Health) -> QIcon:
    return dot_icon(HEALTH_COLOUR[h])


def brigade_state_icon(s: BrigadeState) -> QIcon:
    return dot_icon(BRIGADE_STATE_COLOUR[s])


@lru_cache(maxsize=16)
def _side_pixmap(colour: str, size: int) -> QPixmap:
    pm = QPixmap(size, size)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setBrush(QColor(colour))
    p.setPen(QPen(QColor("#202020"), 1))
    p.drawRect(QRectF(1.5, size * 0.25, size - 3, size * 0.5))
    p.end()
    return pm


def side_icon(colour: str, size: int = 16) -> QIcon:
    return QIcon(_side_pixmap(colour, size))


def pips_text(available: int, reserved: int) -> str:
    """Staff Pips as the umpire reads them: ● available, ◐ reserved."""
    return "●" * available + "◐" * reserved if available + reserved <= 8 else f"{available} + {reserved}R"


GUN_WORDS = {
    "12pdr_napoleon": "12-pounder Napoleons",
    "3in_ordnance_rifle": "3-inch ordnance rifles",
    "10pdr_parrott": "10-pounder Parrott rifles",
    "12pdr_howitzer": "12-pounder howitzers",
}


def gun_words(gun) -> str:
    """A battery's guns as the umpire says them: "3-inch ordnance rifles"."""
    value = getattr(gun, "value", str(gun))
    return GUN_WORDS.get(value, getattr(gun, "label", value))
