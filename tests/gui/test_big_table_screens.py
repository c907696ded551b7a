"""Every screen fits: the main window and each dialog on a 1366 x 768 laptop and on a 1920 x 1080
desktop at 150% scaling (1280 x 720 in Qt's logical pixels, less a task bar), with the big battle
in them; a dialog longer than that scrolls. A Trigger Window's dialog sits beside the units it is
about, not over them. On a dark desktop the window's text reads.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QDialog, QScrollArea

from gui import dialogs, play, screens
from rules.actions import NextPhase, SpendPip
from storage.game import Game
from storage.scenario import load_bundled

#: What the smallest screen leaves a dialog, logical pixels (its frame and title bar aside).
ROOM = QSize(
    screens.SMALLEST_SCREEN.width() - screens.FRAME_PX.width(),
    screens.SMALLEST_SCREEN.height() - screens.FRAME_PX.height(),
)


@pytest.fixture
def small_screen(monkeypatch):
    monkeypatch.setattr(screens, "available", lambda widget=None: QRect(0, 0, 1280, 690))


@pytest.fixture
def big_window(tmp_path, small_screen, window_on):
    return window_on(Game.create(tmp_path / "gettysburg.sqlite", load_bundled("gettysburg")))


class Opened:
    """Every dialog opened through the seam: its size hints, and its size once fitted."""

    def __init__(self):
        self.seen: list[tuple[str, QSize, QSize, QSize, QDialog]] = []

    def __call__(self, dlg: QDialog) -> int:
        dlg.ensurePolished()
        hint, least = dlg.sizeHint(), dlg.minimumSizeHint()
        screens.fit_dialog(dlg)
        self.seen.append((type(dlg).__name__, hint, least, dlg.size(), dlg))
        return QDialog.DialogCode.Rejected


def test_the_main_window_fits_the_smallest_screen(big_window):
    frame = big_window.frameGeometry()
    assert frame.width() <= 1280 and frame.height() <= 690
    least = big_window.minimumSizeHint()
    assert least.width() <= ROOM.width() and least.height() <= ROOM.height()


def test_every_dialog_fits_the_smallest_screen_and_a_long_one_scrolls(big_window, answer, monkeypatch):
    win, c = big_window, big_window.controller
    opened = Opened()
    answer.dialog(opened)
    # Phase 1 and 2: the editing dialogs, a charge and a Trigger Window A
    win.preferences()
    c.select(["nc26"])
    win.roster.edit_current()
    win.roster.tree.setCurrentIndex(
        win.roster.proxy.mapFromSource(win.roster.model.brigade_index("pettigrew"))
    )
    win.roster.tree.selectionModel().clearSelection()
    win.roster.edit_current()
    win.canvas.edit_terrain_feature("herbst_woods")
    dialogs.ask_reason(win, "a test")  # the reason dialog, through its seam
    c.run(SpendPip("brockenbrough"))
    c.run(SpendPip("pettigrew"))
    c.run(NextPhase())
    play.declare_charge(c, win, "nc11", "wi7")
    play.move_units(c, win, [("nc11", 28.0, 64.0, None)])  # opens the Iron Brigade's Window A
    win.window_a_action.trigger()
    # Phase 3 and 4
    c.run(NextPhase())
    play.shoot(c, win, "crenshaw")
    play.bombard_building(c, win, "crenshaw")
    c.run(NextPhase())
    play.resolve_melee(c, win, "nc11", "wi7")
    names = {n for n, *_ in opened.seen}
    assert {
        "PreferencesDialog",
        "UnitDialog",
        "BrigadeDialog",
        "TerrainDialog",
        "ReasonDialog",
        "ChargeDialog",
        "ReactionDialog",
        "ManualWindowDialog",
        "ShootDialog",
        "BombardDialog",
        "MeleeDialog",
    } <= names
    for name, hint, least, fitted, dlg in opened.seen:
        assert least.width() <= ROOM.width() and least.height() <= ROOM.height(), (name, least)
        assert hint.width() <= ROOM.width() and hint.height() <= ROOM.height(), (name, hint)
        assert fitted.width() <= ROOM.width() and fitted.height() <= ROOM.height(), (name, fitted)
        if isinstance(dlg, dialogs.ValidatedDialog):  # their forms scroll where they are long
            assert isinstance(dlg.form_area, QScrollArea) and dlg.form_area.widget() is dlg.form_host


def test_a_trigger_window_dialog_does_not_cover_the_units_it_is_about(big_window, answer):
    win, c = big_window, big_window.controller
    c.run(NextPhase())
    seen = []

    def look(dlg):
        ids = [dlg.window.mover, *(d.defender for d in dlg.window.defenders)]
        where = win.canvas.show_units(ids)
        seen.append((dlg.frameGeometry(), where, ids))
        return QDialog.DialogCode.Rejected

    answer.dialog(look)
    play.move_units(c, win, [("nc11", 28.0, 64.0, None)])
    assert seen, "the march opens a Trigger Window A"
    frame, units, ids = seen[0]
    assert units is not None and not frame.intersects(units), (frame, units, ids)
    vp = win.canvas.view.viewport()
    seen_rect = QRect(vp.mapToGlobal(vp.rect().topLeft()), vp.size())
    assert seen_rect.contains(units.center())  # the units are in view


# -- a dark desktop ----------------------------------------------------------------------------------


def _dark_palette():
    from PySide6.QtGui import QColor, QPalette

    p = QPalette()
    R, G = QPalette.ColorRole, QPalette.ColorGroup
    for role, colour in (
        (R.Window, "#2b2b2b"),
        (R.WindowText, "#e6e6e6"),
        (R.Base, "#1f1f1f"),
        (R.AlternateBase, "#2a2a2a"),
        (R.Text, "#e6e6e6"),
        (R.Button, "#353535"),
        (R.ButtonText, "#e6e6e6"),
        (R.ToolTipBase, "#3a3a3a"),
        (R.ToolTipText, "#e6e6e6"),
        (R.Highlight, "#2f65ca"),
        (R.HighlightedText, "#ffffff"),
        (R.PlaceholderText, "#9a9a9a"),
        (R.Link, "#8ab4f8"),
        (R.Mid, "#505050"),
        (R.Dark, "#1a1a1a"),
        (R.Light, "#4a4a4a"),
    ):
        p.setColor(role, QColor(colour))
    for role in (R.WindowText, R.Text, R.ButtonText):
        p.setColor(G.Disabled, role, QColor("#8c8c8c"))
    return p


@pytest.fixture
def dark_desktop(qapp):
    before = qapp.palette()
    qapp.setPalette(_dark_palette())
    yield qapp.palette()
    qapp.setPalette(before)


def ink_contrast(img, rect=None) -> float:
    """The contrast of the words in a picture against their ground: the ground is its commonest
    colour, the ink the pixel farthest from it in lightness."""
    from collections import Counter

    from PySide6.QtGui import QColor

    from gui.theme import contrast

    r = rect or img.rect()
    pixels = [img.pixel(x, y) for x in range(r.left(), r.right() + 1) for y in range(r.top(), r.bottom() + 1)]
    ground = QColor(Counter(pixels).most_common(1)[0][0])
    best = max((QColor(p) for p in set(pixels)), key=lambda c: contrast(c, ground))
    return contrast(best, ground)


def test_on_a_dark_desktop_the_window_and_its_words_read(qtbot, tmp_path, dark_desktop, small_screen):
    from PySide6.QtWidgets import QAbstractButton, QLabel

    from gui.main_window import MainWindow
    from gui.theme import is_dark

    assert is_dark()
    game = Game.create(tmp_path / "g.sqlite", load_bundled("gettysburg"))
    win = MainWindow()
    qtbot.addWidget(win)
    win.controller.set_game(game, str(game.path))
    c = win.controller
    c.run(SpendPip("pettigrew"))
    c.run(NextPhase())
    from rules.actions import EditUnit

    c.run(EditUnit(unit_id="nc26", values={"stands": 2}))  # a spent unit, its health in red words
    c.select(["nc26"])
    win.show()
    qtbot.waitExposed(win)
    qtbot.wait(30)
    # the window's own colours are the palette's: a dark window, light words
    assert win.palette().color(win.backgroundRole()).lightness() < 80
    checked = 0
    for w in [*win.findChildren(QLabel), *win.findChildren(QAbstractButton)]:
        text = w.text() if hasattr(w, "text") else ""
        if not w.isVisible() or not text.strip() or w.width() < 8 or w.height() < 8:
            continue
        if w.window() is not win or win.canvas.view.isAncestorOf(w):
            continue  # the map's own overlays are drawn on the map
        img = w.grab().toImage()
        assert ink_contrast(img) >= 4.5, (type(w).__name__, w.objectName(), text[:60])
        checked += 1
    assert checked >= 15
    # the rows of the roster and of the log
    for tree in (win.roster.tree, win.log.tree):
        img = tree.viewport().grab().toImage()
        model = tree.model()
        rows = 0
        idx = model.index(0, 0)
        while idx.isValid() and rows < 25:
            r = tree.visualRect(idx)
            if r.isValid() and r.height() > 4 and r.width() > 20:
                assert ink_contrast(img, r.intersected(img.rect())) >= 4.5, idx.data()
                rows += 1
            idx = tree.indexBelow(idx)
        assert rows >= 3
    win.controller.close()


def test_what_a_trigger_window_may_bring_shows_without_scrolling_on_the_smallest_screen(big_window, answer):
    """On a laptop's screen the Trigger Window's dialog shows the defenders' choices and, under
    them, what may happen, without scrolling: the dialog takes the room the screen has."""
    from PySide6.QtWidgets import QApplication

    win, c = big_window, big_window.controller
    c.run(NextPhase())
    seen = []

    def look(dlg):
        dlg.show()
        QApplication.processEvents()
        vp = dlg.form_area.viewport()
        shown = QRect(vp.mapToGlobal(vp.rect().topLeft()), vp.size())
        heading = dlg.result_heading
        top = heading.mapToGlobal(heading.rect().topLeft())
        lines = QRect(top, QSize(heading.width(), heading.height() + 60))  # its first lines
        seen.append((shown, lines, dlg.frameGeometry()))
        dlg.hide()
        return QDialog.DialogCode.Rejected

    answer.dialog(look)
    play.move_units(c, win, [("nc11", 28.0, 64.0, None)])
    assert seen, "the march opens a Trigger Window A"
    shown, lines, frame = seen[0]
    assert shown.contains(lines), (shown, lines)
    assert frame.height() > 2 * ROOM.height() // 3  # (not stopped at two thirds of the screen)
