"""The painted window: Brigadier's main window on a saved game, with every dock on screen, and the
time of a step of play in it, painting included.

Shared by the figures that time what the umpire feels in the window (one action, an undo of a
group march, *Undo to here* and its redo, opening a long game) and by any other benchmark that
asks the same of another battle (the big table of the bundled big scenario: give its save to
:class:`PaintedWindow`).

>>> with PaintedWindow(path) as w:                              # doctest: +SKIP
...     seconds = w.time(lambda: w.controller.run(action))       # the action, its views, the paint
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The window's size: a desktop monitor's, so that every dock has room.
WINDOW_SIZE = (1600, 1000)
#: The screen the window is told it is on (``gui.screens.available``, the window's one seam for
#: the screen): a desktop monitor's, so that the window keeps its desktop arrangement of the docks
#: (the offscreen platform's own screen is a small one, for which the window arranges them in tabs).
SCREEN_SIZE = (1920, 1080)
#: The docks that are on screen and painted after every step.
DOCKS = ("roster", "inspector", "checklist", "log", "plots", "legend")


class PaintedWindow:
    """The main window on the save at ``path``, shown, with every dock on screen and painted:
    the order of battle, the unit inspector and the checklist side by side (not in tabs), the
    legend, and the battle log and the Plots dock side by side. Use it as a context manager; the
    window is closed and its game with it at the end."""

    def __init__(self, path: str | Path, size: tuple[int, int] = WINDOW_SIZE, plots: bool = True):
        from PySide6.QtCore import QRect, Qt
        from PySide6.QtWidgets import QTabBar

        from gui import screens
        from gui.app import application, make_main_window
        from gui.warm_up import warm_up

        self.app = application()
        screens.available = lambda widget=None: QRect(0, 0, *SCREEN_SIZE)
        warm_up()  # what the window loads a moment after it is shown: not part of any step
        self.window = make_main_window(str(path))
        w = self.window
        w.resize(*size)
        docks = w.docks
        w.show()  # laid out as it opens, then its docks arranged
        self.settle()
        # a moment after it is shown, as the umpire looks at it: its warm-up done (the libraries of
        # play loaded, its Charge dialog made), as it is before anyone can click in it
        t0 = time.perf_counter()
        while not w.warmed_up and time.perf_counter() - t0 < 10:
            self.app.processEvents()
            time.sleep(0.005)
        # out of their tabs: the checklist below the inspector, the plots beside the log
        w.removeDockWidget(docks["checklist"])
        w.addDockWidget(w.dockWidgetArea(docks["inspector"]), docks["checklist"])
        w.splitDockWidget(docks["inspector"], docks["checklist"], Qt.Orientation.Vertical)
        if plots:
            w.removeDockWidget(docks["plots"])
            w.addDockWidget(w.dockWidgetArea(docks["log"]), docks["plots"])
            w.splitDockWidget(docks["log"], docks["plots"], Qt.Orientation.Horizontal)
        shown = [k for k in DOCKS if plots or k != "plots"]
        for key in shown:
            docks[key].show()
        self.settle()
        # Qt leaves the tab bars of the tabs undone on screen (offscreen): off, as a desktop's are
        tabbed = {d.windowTitle() for d in docks.values() if w.tabifiedDockWidgets(d)}
        for bar in w.findChildren(QTabBar):
            if not {bar.tabText(i) for i in range(bar.count())} & tabbed:
                bar.hide()
        self.settle()
        hidden = [k for k in shown if docks[k].widget().visibleRegion().isEmpty()]
        if hidden:
            raise RuntimeError(f"these docks are not on screen: {', '.join(hidden)}")

    @property
    def controller(self) -> Any:
        return self.window.controller

    def settle(self) -> None:
        """Let Qt lay out and paint everything that is waiting."""
        for _ in range(3):
            self.app.processEvents()

    def time(self, step: Callable[[], object]) -> float:
        """Seconds to do ``step`` and paint what it changed."""
        t0 = time.perf_counter()
        step()
        self.app.processEvents()
        return time.perf_counter() - t0

    def close(self) -> None:
        """Close the window and its game, and let Qt and Python free them (a run opens many)."""
        import gc

        from PySide6.QtCore import QCoreApplication, QEvent

        w = self.window
        w.controller.close()
        w.close()
        w.deleteLater()
        self.window = None
        self.settle()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        gc.collect()

    def __enter__(self) -> PaintedWindow:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_painted(path: str | Path, plots: bool = True) -> tuple[float, PaintedWindow]:
    """Seconds to open the save at ``path`` in a new main window, shown with every dock and
    painted, its log and charts filled; and the window."""
    from gui.warm_up import warm_up

    warm_up()  # once a process, a moment after the first window is shown: not part of opening
    t0 = time.perf_counter()
    w = PaintedWindow(path, plots=plots)
    return time.perf_counter() - t0, w
