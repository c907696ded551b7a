"""Fitting the window and the dialogs to the screen: a laptop's 1366 x 768, or a 1920 x 1080
desktop at 150% scaling (1280 x 720 in Qt's logical pixels).

* :func:`fit_window` sizes a top-level window to what it wants, at most the screen's available
  area, and keeps it on the screen (a layout saved on a bigger monitor included).
* :func:`compact` says whether the screen is small; :func:`arrange_compact` then gives the map the
  whole height: the order of battle on the left above the inspector and the log (as tabs), rather
  than the log across the bottom and the inspector on the right.
* :func:`fit_dialog` keeps a dialog within the screen; :func:`scrolling` wraps a dialog's long
  contents in a scroll area, so that a dialog that would be taller than the screen scrolls.
* :func:`place_beside` puts a dialog beside the units it is about (a Trigger Window), not over them.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QFrame, QLayout, QMainWindow, QScrollArea, QVBoxLayout, QWidget

#: The smallest screen Brigadier is made for, in logical pixels: 1920 x 1080 at 150% scaling is
#: 1280 x 720, less a task bar; a 1366 x 768 laptop has more.
SMALLEST_SCREEN = QSize(1280, 690)
#: Below this (logical pixels available), the window is arranged for a small screen.
COMPACT_BELOW = QSize(1500, 900)
#: What a window frame and title bar add round a top-level window, at most.
FRAME_PX = QSize(16, 40)


def available(widget: QWidget | None = None) -> QRect:
    """The screen area a window may use (logical pixels): the screen ``widget`` is on, or the
    primary screen."""
    screen = widget.screen() if widget is not None else None
    if screen is None:
        screen = QGuiApplication.primaryScreen()
    if screen is None:  # no screen at all (a test without a display): the smallest one
        return QRect(QPoint(0, 0), SMALLEST_SCREEN)
    return screen.availableGeometry()


def compact(widget: QWidget | None = None) -> bool:
    """Whether the screen is small enough to arrange the window for it."""
    a = available(widget)
    return a.width() < COMPACT_BELOW.width() or a.height() < COMPACT_BELOW.height()


def fit_window(window: QWidget, want: QSize | None = None) -> None:
    """Size ``window`` to ``want`` (its size now when not given), no larger than the screen's
    available area less the window frame, and move it onto the screen where it hangs off it."""
    a = available(window)
    want = want or window.size()
    room = QSize(a.width() - FRAME_PX.width(), a.height() - FRAME_PX.height())
    size = want.boundedTo(room).expandedTo(window.minimumSizeHint().boundedTo(room))
    if size != window.size():
        window.resize(size)
    g = window.frameGeometry()
    x = min(max(g.x(), a.x()), a.right() - g.width() + 1) if g.width() <= a.width() else a.x()
    y = min(max(g.y(), a.y()), a.bottom() - g.height() + 1) if g.height() <= a.height() else a.y()
    if (x, y) != (g.x(), g.y()):
        window.move(x, y)


def arrange_compact(window: QMainWindow, roster, inspector, log, others=()) -> None:
    """The docks for a small screen: the order of battle on the left, with the inspector and the
    battle log (and ``others``, like the plots) below it as tabs; the map has the full height."""
    left = Qt.DockWidgetArea.LeftDockWidgetArea
    docks = (roster, inspector, log, *others)
    # a dock that asks the rules only while it is in front (the checklist) is not woken by the
    # moves: it is told once, at the end, whether it shows
    blocked = [d.blockSignals(True) for d in docks]
    try:
        for d in docks:
            window.removeDockWidget(d)
        window.addDockWidget(left, roster)
        window.splitDockWidget(roster, inspector, Qt.Orientation.Vertical)
        window.tabifyDockWidget(inspector, log)
        for d in others:
            window.tabifyDockWidget(log, d)
        for d in docks:
            d.show()
        inspector.raise_()
    finally:
        for d, b in zip(docks, blocked, strict=True):
            d.blockSignals(b)
    for d in docks:
        d.visibilityChanged.emit(d in (roster, inspector))


def fit_dialog(dialog: QWidget) -> None:
    """Keep a dialog within the screen: no larger than the available area (less its frame), and
    on it."""
    a = available(dialog.parentWidget() or dialog)
    room = QSize(a.width() - FRAME_PX.width(), a.height() - FRAME_PX.height())
    resized = dialog.isVisible() or dialog.testAttribute(Qt.WidgetAttribute.WA_Resized)
    size = dialog.size() if resized else dialog.sizeHint()
    if size.width() > room.width() or size.height() > room.height():
        dialog.resize(size.boundedTo(room))


def scrolling(dialog: QDialog, body: QWidget, footer: QWidget | QLayout | None = None) -> QScrollArea:
    """Lay ``body`` out in ``dialog`` inside a scroll area (with ``footer``, the buttons, below it,
    always in view): a dialog longer than the screen scrolls rather than running off it. The
    scroll area asks for the body's whole size where the screen has room for it."""
    area = _BodyArea(dialog)
    area.setWidget(body)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    lay = dialog.layout()
    if lay is None:
        lay = QVBoxLayout(dialog)
    lay.addWidget(area, 1)
    if isinstance(footer, QWidget):
        lay.addWidget(footer)
    elif footer is not None:
        lay.addLayout(footer)
    return area


class _BodyArea(QScrollArea):
    """A scroll area that asks for its contents' whole size, up to what the smallest screen has."""

    def sizeHint(self) -> QSize:  # noqa: N802
        w = self.widget()
        if w is None:
            return super().sizeHint()
        want = w.sizeHint() + QSize(self.verticalScrollBar().sizeHint().width() + 4, 4)
        room = QSize(SMALLEST_SCREEN.width() - 80, SMALLEST_SCREEN.height() - 160)
        return want.boundedTo(room)


def place_beside(dialog: QWidget, around: QRect) -> bool:
    """Move ``dialog`` beside ``around`` (global pixels: the units a Trigger Window is about), on
    whichever side has room, so that it does not cover them. False if no side has room (the caller
    then brings the units into view elsewhere)."""
    a = available(dialog.parentWidget() or dialog)
    size = dialog.size() if dialog.isVisible() else dialog.sizeHint()
    size = size.boundedTo(QSize(a.width() - FRAME_PX.width(), a.height() - FRAME_PX.height()))
    gap = 16
    w, h = size.width() + FRAME_PX.width(), size.height() + FRAME_PX.height()
    y = min(max(around.center().y() - h // 2, a.top()), a.bottom() - h + 1)
    x = min(max(around.center().x() - w // 2, a.left()), a.right() - w + 1)
    tries = [
        QPoint(around.right() + gap, y),  # to the right of the units
        QPoint(around.left() - gap - w, y),  # to their left
        QPoint(x, around.bottom() + gap),  # below
        QPoint(x, around.top() - gap - h),  # above
    ]
    for p in tries:
        r = QRect(p, QSize(w, h))
        if a.contains(r) and not r.intersects(around):
            dialog.move(p)
            return True
    return False
