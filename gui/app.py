"""Starting the application: ``run(path)`` shows the main window on a game and runs Qt's loop.

:func:`make_main_window` builds the window without running the loop, for tests and screenshots.
Qt's own command-line options (``-style Fusion``, ``-platform xcb`` ...), as the command line
found them (:func:`cli.main.qt_options`), are given to Qt when the application is made; the theme
the umpire chose (View > Theme, :mod:`gui.theme`) is applied then too.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import PySide6  # noqa: F401  (PySide6 is imported before pyqtgraph, which picks its Qt binding from it)
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

from gui import qt_environment, theme
from gui.main_window import MainWindow

ORGANISATION = "Brigadier"
#: The name the settings file is kept under (``~/.config/Brigadier/brigadier.conf`` on Linux): the
#: name the installed ``brigadier`` command has always given it.
APPLICATION = "brigadier"


def application(qt_args: Sequence[str] = ()) -> QApplication:
    """The QApplication (made once, given Qt's own options ``qt_args``), with the names QSettings
    files are kept under, in the theme the umpire chose."""
    app = QApplication.instance()
    made = app is None
    if app is None:
        qt_environment.prepare()  # before the first paint
        app = QApplication([*sys.argv[:1], *qt_args])
    if not QCoreApplication.organizationName():
        QCoreApplication.setOrganizationName(ORGANISATION)
    # one name however Brigadier is started (``brigadier``, ``python -m cli``), so that the last
    # game, the recent games and the club tables are the same; a settings name of its own given
    # before (the tests' "Brigadier-1234") is kept
    if not QCoreApplication.applicationName().startswith("Brigadier-"):
        QCoreApplication.setApplicationName(APPLICATION)
    app.setApplicationDisplayName("Brigadier")
    if made:
        theme.apply()  # (read from the settings the names above point to)
    return app


def make_main_window(path: str | None = None, *, open_game: bool = True) -> MainWindow:
    """The main window on ``path`` (or the last game, or a new demo game); not yet shown."""
    application()
    win = MainWindow()
    if open_game:
        win.open_at_start(path)
    return win


def run(path: str | None, qt_args: Sequence[str] = ()) -> int:
    """Run Brigadier on ``path`` (a saved game) or, without one, on the last game or the demo; Qt
    is given its own options ``qt_args``."""
    app = application(qt_args)
    win = make_main_window(path)
    win.show()
    return int(app.exec())
