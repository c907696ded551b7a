"""View > Theme: follow the desktop, light or dark, kept in QSettings and applied at once; the
words the window has already written in one theme's inks take the other's."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QPalette

from gui import theme


@pytest.fixture
def desktop_palette(qapp):
    """The palette the tests' desktop gives, given back after the test (and no choice applied)."""
    before = QPalette(qapp.palette())
    yield before
    theme._applied.clear()
    qapp.setPalette(QPalette())  # the desktop's again, followed as before
    if qapp.palette() != before:
        qapp.setPalette(before)


def window_colour(qapp) -> str:
    return qapp.palette().color(QPalette.ColorRole.Window).name()


def test_view_theme_offers_the_desktop_light_and_dark_kept_and_applied_at_once(
    qtbot, qapp, game, window_on, desktop_palette
):
    win = window_on(game)
    menu = win.theme_menu
    assert [a.text() for a in menu.actions()] == ["Follow the desktop", "Light", "Dark"]
    assert win.theme_actions["desktop"].isChecked() and theme.chosen() == "desktop"
    desktop = window_colour(qapp)
    legend = win.roster.legend
    assert theme.ink("muted") in legend.styleSheet()  # the light desktop's muted ink
    win.theme_actions["dark"].trigger()
    assert theme.is_dark() and window_colour(qapp) == "#2b2b2b"
    assert QSettings().value(theme.THEME_KEY) == "dark"
    assert win.theme_actions["dark"].isChecked() and not win.theme_actions["desktop"].isChecked()
    # the words written before, in the dark theme's inks: they read on it
    assert "#b4b4b4" in legend.styleSheet() and "#555555" not in legend.styleSheet()
    # the order of battle's units in the palette's own text colour (a brush of their own, black,
    # would not read on the dark ground)
    assert all(
        win.roster.model.unit_index(uid, col).data(Qt.ItemDataRole.ForegroundRole) is None
        for uid in game.battle.units
        for col in range(5)
    )
    pal = qapp.palette()
    assert theme.contrast(pal.color(QPalette.ColorRole.WindowText), pal.color(QPalette.ColorRole.Window)) > 7
    win.theme_actions["light"].trigger()
    assert not theme.is_dark() and QSettings().value(theme.THEME_KEY) == "light"
    assert "#555555" in legend.styleSheet()
    win.theme_actions["dark"].trigger()
    win.theme_actions["desktop"].trigger()  # the desktop's own palette again, as it was
    assert window_colour(qapp) == desktop and not theme.is_dark()
    assert QSettings().value(theme.THEME_KEY) == "desktop" and "#555555" in legend.styleSheet()


def test_the_theme_chosen_is_the_one_of_the_next_start(qtbot, qapp, game, window_on, desktop_palette):
    QSettings().setValue(theme.THEME_KEY, "dark")
    theme.apply()  # as the application does when it starts (gui.app.application)
    assert theme.is_dark()
    win = window_on(game)
    assert win.theme_actions["dark"].isChecked()
    QSettings().setValue(theme.THEME_KEY, "no such theme")
    assert theme.chosen() == "desktop"


def test_swapping_inks_keeps_what_is_not_an_ink():
    sheet = "color: #555555; border: 1px dashed #BBBBBB; background: #123456;"
    dark = theme.swap_inks(sheet, to_dark=True)
    assert dark == "color: #b4b4b4; border: 1px dashed #666666; background: #123456;"
    assert (
        theme.swap_inks(dark, to_dark=False)
        == "color: #555555; border: 1px dashed #bbbbbb; background: #123456;"
    )
