"""Colours of the window's text that read on the desktop's own theme, light or dark.

The window's words take the palette's colours (Qt does that for every widget); where Brigadier
colours a word itself (a problem in red, a muted note, a rule's citation, the tint of a club
default's row), it asks here, and gets a colour that reads on the palette in use: the dark red of a
light desktop would vanish on a dark one, so a dark desktop gets a light red.

:data:`PROBLEM`, :data:`GOOD`, :data:`MUTED`, :data:`WARN` and :data:`LINK` are inks: written in an
f-string (``f"color:{MUTED}"``) or turned into text (``str(MUTED)``) they give the colour for the
palette at that moment.

The map is a picture of the table, with its own colours on its own pale ground: it is not
themed.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QGuiApplication, QPalette

# (light desktop, dark desktop)
_INKS = {
    "problem": ("#a01010", "#ff8a80"),
    "good": ("#1b5e20", "#81c784"),
    "muted": ("#555555", "#b4b4b4"),
    "warn": ("#8a5a00", "#ffcc80"),
    "link": ("#1a5fb4", "#8ab4f8"),
    "shaken": ("#c62828", "#ff8a80"),
    # a unit's health and a brigade's state, as words
    "fresh": ("#2e7d32", "#81c784"),
    "worn": ("#9a6a00", "#ffd54f"),
    "spent": ("#c62828", "#ff8a80"),
    "destroyed": ("#424242", "#bdbdbd"),
    "steady": ("#2e7d32", "#81c784"),
    "hesitant": ("#9a6a00", "#ffd54f"),
    "broken": ("#c62828", "#ff8a80"),
}
# row and box tints behind text: (light, dark)
_TINTS = {
    "club_default": ("#fff3c4", "#4d4213"),
    "overridden": ("#d9ecff", "#173a5c"),
    "fixed": ("#e6e6e6", "#3c3c3c"),
    "note": ("#f7f7f7", "#333333"),
    "placeholder_border": ("#bbbbbb", "#666666"),
}


def palette() -> QPalette:
    app = QGuiApplication.instance()
    return app.palette() if isinstance(app, QGuiApplication) else QPalette()


def is_dark(pal: QPalette | None = None) -> bool:
    """Whether the desktop's theme is dark: its window colour darker than its text."""
    p = pal or palette()
    return p.color(QPalette.ColorRole.Window).lightness() < p.color(QPalette.ColorRole.WindowText).lightness()


def ink(name: str) -> str:
    """The colour (``#rrggbb``) of an ink for the palette in use."""
    light, dark = _INKS[name]
    return dark if is_dark() else light


def tint(name: str) -> str:
    """The colour of a background tint for the palette in use."""
    light, dark = _TINTS[name]
    return dark if is_dark() else light


def qcolour(name: str) -> QColor:
    return QColor(ink(name) if name in _INKS else tint(name))


class Ink:
    """An ink named once and read each time it is written: ``f"color:{Ink('muted')}"``."""

    def __init__(self, name: str):
        self.name = name

    def __str__(self) -> str:
        return ink(self.name)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"Ink({self.name!r})"


PROBLEM, GOOD, MUTED, WARN, LINK = Ink("problem"), Ink("good"), Ink("muted"), Ink("warn"), Ink("link")


def contrast(a: QColor, b: QColor) -> float:
    """The contrast ratio of two colours (WCAG 2: 1 to 21; 4.5 reads as body text)."""

    def lum(c: QColor) -> float:
        def ch(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * ch(c.redF()) + 0.7152 * ch(c.greenF()) + 0.0722 * ch(c.blueF())

    la, lb = lum(a), lum(b)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)
