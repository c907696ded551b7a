"""The view of the table: zoom about the pointer, pan, and fit the table to the window."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QPainter, QTransform
from PySide6.QtWidgets import QGraphicsView, QWidget

from gui.canvas.scene import BattlefieldScene


class BattlefieldView(QGraphicsView):
    """The view of the table: wheel to zoom about the pointer, middle button or Space-drag to pan."""

    MIN_SCALE, MAX_SCALE = 2.0, 120.0
    cursorMoved = Signal(float, float)  # the pointer's place on the table, inches

    def __init__(self, scene: BattlefieldScene, parent: QWidget | None = None):
        super().__init__(scene, parent)
        self.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setMouseTracking(True)
        self._panning = False
        self._pan_from = QPointF()
        self.setTransform(QTransform.fromScale(12, 12))
        self.auto_fit = True  # the table fills the view, on open and on resize, until the umpire zooms

    @property
    def zoom(self) -> float:
        return self.transform().m11()

    def set_zoom(self, scale: float) -> None:
        self._set_auto_fit(False)
        scale = max(self.MIN_SCALE, min(self.MAX_SCALE, scale))
        t = self.transform()
        self.setTransform(QTransform.fromScale(scale, scale) * QTransform.fromTranslate(t.dx(), t.dy()))

    def zoom_by(self, factor: float) -> None:
        self._set_auto_fit(False)
        new = max(self.MIN_SCALE, min(self.MAX_SCALE, self.zoom * factor))
        f = new / self.zoom
        if abs(f - 1) > 1e-9:
            self.scale(f, f)

    def fit_table(self) -> None:
        """Show the whole table as large as the view allows (with room for the inch marks), and
        keep it so when the window is resized, until the umpire zooms or pans."""
        self._set_auto_fit(True)
        sc = self.scene()
        if isinstance(sc, BattlefieldScene):
            room = sc.table_rect.adjusted(-2.2, -1.4, 1.4, 0.6)
            self.fitInView(room, Qt.AspectRatioMode.KeepAspectRatio)
            # a whole number of pixels an inch: the grid lines fall on whole pixels and stay crisp
            whole = math.floor(self.zoom)
            if whole >= 4:
                self.setTransform(QTransform.fromScale(whole, whole))
                self.centerOn(room.center())

    def _set_auto_fit(self, on: bool) -> None:
        self.auto_fit = on
        policy = Qt.ScrollBarPolicy.ScrollBarAlwaysOff if on else Qt.ScrollBarPolicy.ScrollBarAsNeeded
        self.setHorizontalScrollBarPolicy(policy)
        self.setVerticalScrollBarPolicy(policy)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.auto_fit:
            self.fit_table()

    def wheelEvent(self, event) -> None:  # noqa: N802
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom_by(1.15**steps)
        event.accept()

    def mousePressEvent(self, event) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.MiddleButton:
            self._panning = True
            self._pan_from = event.position()
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        p = self.mapToScene(event.position().toPoint())
        self.cursorMoved.emit(p.x(), p.y())
        if self._panning:
            self._set_auto_fit(False)
            d = event.position() - self._pan_from
            self._pan_from = event.position()
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - int(d.x()))
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - int(d.y()))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        if self._panning and event.button() == Qt.MouseButton.MiddleButton:
            self._panning = False
            self.unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def pan_by(self, dx_px: int, dy_px: int) -> None:
        self._set_auto_fit(False)
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() + dx_px)
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() + dy_px)
