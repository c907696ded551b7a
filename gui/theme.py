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

The umpire may choose the window's theme (View > Theme): :data:`THEMES`, follow the desktop, light
or dark, kept in QSettings (:func:`chosen`) and applied at once (:func:`choose`, and
:func:`apply` at the start): the palette changes, and the words already written in one theme's
inks take the other's (:func:`retint`).
"""

from __future__ import annotations

import re

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QPalette

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


# -- the theme the umpire chooses -------------------------------------------------------------------

#: View > Theme: each choice and its words; "desktop" takes the desktop's palette, as it changes.
THEMES = (("desktop", "Follow the desktop"), ("light", "Light"), ("dark", "Dark"))
#: Where the choice is kept in QSettings.
THEME_KEY = "view/theme"
_applied: list[str] = []  # the choice applied last (none yet: the desktop's palette, untouched)


def chosen() -> str:
    """The theme chosen (kept in QSettings): "desktop", "light" or "dark"."""
    value = str(QSettings().value(THEME_KEY, "desktop") or "desktop")
    return value if value in dict(THEMES) else "desktop"


def dark_palette() -> QPalette:
    """The window's colours in the dark theme."""
    p = QPalette()
    roles, groups = QPalette.ColorRole, QPalette.ColorGroup
    for role, colour in (
        (roles.Window, "#2b2b2b"),
        (roles.WindowText, "#e6e6e6"),
        (roles.Base, "#1f1f1f"),
        (roles.AlternateBase, "#2a2a2a"),
        (roles.Text, "#e6e6e6"),
        (roles.Button, "#353535"),
        (roles.ButtonText, "#e6e6e6"),
        (roles.BrightText, "#ff8a80"),
        (roles.ToolTipBase, "#3a3a3a"),
        (roles.ToolTipText, "#e6e6e6"),
        (roles.Highlight, "#2f65ca"),
        (roles.HighlightedText, "#ffffff"),
        (roles.PlaceholderText, "#9a9a9a"),
        (roles.Link, "#8ab4f8"),
        (roles.LinkVisited, "#c58af9"),
        (roles.Light, "#4a4a4a"),
        (roles.Midlight, "#3e3e3e"),
        (roles.Mid, "#505050"),
        (roles.Dark, "#1a1a1a"),
        (roles.Shadow, "#0d0d0d"),
    ):
        p.setColor(role, QColor(colour))
    for role in (roles.WindowText, roles.Text, roles.ButtonText):
        p.setColor(groups.Disabled, role, QColor("#8c8c8c"))
    return p


def light_palette() -> QPalette:
    """The window's colours in the light theme: those of Qt's own Fusion style."""
    from PySide6.QtWidgets import QStyleFactory

    fusion = QStyleFactory.create("Fusion")
    return QPalette(fusion.standardPalette()) if fusion is not None else QPalette()


def apply(choice: str | None = None) -> None:
    """Give the application the palette of ``choice`` (the one kept in QSettings when not given),
    and write the words already in the window in its inks. Following the desktop, the palette is
    left to the desktop (and follows its changes); before any other choice it is not touched."""
    app = QGuiApplication.instance()
    if not isinstance(app, QGuiApplication):
        return
    choice = choice or chosen()
    if choice == "desktop" and not _applied:
        return
    was_dark = is_dark()
    palette = {"light": light_palette, "dark": dark_palette}.get(choice)
    app.setPalette(palette() if palette is not None else QPalette())  # an empty one: the desktop's
    _applied[:] = [choice]
    if is_dark() != was_dark:
        retint(is_dark())


def choose(choice: str) -> None:
    """The umpire's choice of theme: kept in QSettings and applied at once."""
    QSettings().setValue(THEME_KEY, choice)
    apply(choice)


def _swaps(to_dark: bool) -> dict[str, str]:
    """Each ink and tint of the theme left, by the one of the theme taken (lower case)."""
    out: dict[str, str] = {}
    for light, dark in (*_INKS.values(), *_TINTS.values()):
        old, new = (light, dark) if to_dark else (dark, light)
        out.setdefault(old.lower(), new)
    return out


def swap_inks(text: str, to_dark: bool) -> str:
    """``text`` (a style sheet, a label's HTML) with each ink of one theme written in the other's."""
    swaps = _swaps(to_dark)
    return re.sub(
        "|".join(re.escape(k) for k in swaps), lambda m: swaps[m.group(0).lower()], text, flags=re.I
    )


def retint(to_dark: bool) -> None:
    """Write the words the window's widgets already show in the inks of the theme now in use: their
    style sheets, a label's text, a text view's page, the rows of a tree (what is written from now
    on asks :func:`ink` and gets the right one)."""
    from PySide6.QtWidgets import QApplication, QLabel, QTextEdit, QTreeWidget, QTreeWidgetItemIterator

    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    swaps = _swaps(to_dark)
    for w in app.allWidgets():
        sheet = w.styleSheet()
        if sheet and (new := swap_inks(sheet, to_dark)) != sheet:
            w.setStyleSheet(new)
        if isinstance(w, QLabel) and "<" in (text := w.text()):  # (rich text)
            w.setText("")  # (set again even when no ink changes: its links take the new palette's)
            w.setText(swap_inks(text, to_dark))
        elif isinstance(w, QTextEdit) and (page := w.toHtml()) and (new := swap_inks(page, to_dark)) != page:
            at = w.verticalScrollBar().value()
            w.setHtml(new)
            w.verticalScrollBar().setValue(at)
        elif isinstance(w, QTreeWidget):
            it = QTreeWidgetItemIterator(w)
            while it.value() is not None:
                item = it.value()
                for col in range(item.columnCount()):
                    name = item.foreground(col).color().name()
                    if item.foreground(col).style() != Qt.BrushStyle.NoBrush and name in swaps:
                        item.setForeground(col, QBrush(QColor(swaps[name])))
                it += 1
