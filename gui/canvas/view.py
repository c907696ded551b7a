"""The view of the table: zoom about the pointer, pan, and fit the table to the window; the inch
scale in its corner, whatever the zoom or scroll; the banner of a mode that changes what a drag
does (terrain editing).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QPen, QTransform
from PySide6.QtWidgets import QGraphicsView, QLabel, QWidget

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
        # the inch scale and a mode's banner are widgets over the view, not items of the scene: they
        # stay put in the view's corner whatever the zoom or the scroll
        self.scale_bar = ScaleBar(self)
        self.banner = Banner(self)
        self._place_overlays()
        self.viewport().installEventFilter(self)  # the scroll bars come and go: the corner moves

    @property
    def zoom(self) -> float:
        return self.transform().m11()

    def set_zoom(self, scale: float) -> None:
        self._set_auto_fit(False)
        scale = max(self.MIN_SCALE, min(self.MAX_SCALE, scale))
        t = self.transform()
        self.setTransform(QTransform.fromScale(scale, scale) * QTransform.fromTranslate(t.dx(), t.dy()))
        self.scale_bar.set_scale(self.zoom)

    def zoom_by(self, factor: float) -> None:
        self._set_auto_fit(False)
        new = max(self.MIN_SCALE, min(self.MAX_SCALE, self.zoom * factor))
        f = new / self.zoom
        if abs(f - 1) > 1e-9:
            self.scale(f, f)
            self.scale_bar.set_scale(self.zoom)

    def fit_table(self) -> None:
        """Show the whole table as large as the view allows (with room for the inch marks), and
        keep it so when the window is resized, until the umpire zooms or pans."""
        self._set_auto_fit(True)
        sc = self.scene()
        if isinstance(sc, BattlefieldScene):
            room = sc.table_rect.adjusted(-2.2, -1.4, 1.4, 0.6)
            self.fitInView(room, Qt.AspectRatioMode.KeepAspectRatio)
            # a whole number of pixels an inch, where that costs little of the room: the grid lines
            # fall on whole pixels and stay crisp (a big table in a small window keeps its room)
            whole = math.floor(self.zoom)
            if whole >= 4 and whole >= 0.9 * self.zoom:
                self.setTransform(QTransform.fromScale(whole, whole))
                self.centerOn(room.center())
            self.scale_bar.set_scale(self.zoom)

    def _set_auto_fit(self, on: bool) -> None:
        self.auto_fit = on
        policy = Qt.ScrollBarPolicy.ScrollBarAlwaysOff if on else Qt.ScrollBarPolicy.ScrollBarAsNeeded
        self.setHorizontalScrollBarPolicy(policy)
        self.setVerticalScrollBarPolicy(policy)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.auto_fit:
            self.fit_table()
        self._place_overlays()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802
        if watched is self.viewport() and event.type() == QEvent.Type.Resize:
            self._place_overlays()
        return super().eventFilter(watched, event)

    def _place_overlays(self) -> None:
        vp = self.viewport().geometry()  # in the view's own coordinates
        bar = self.scale_bar
        bar.resize(bar.sizeHint())
        bar.move(vp.left() + 8, vp.bottom() - bar.height() - 6)
        if not self.banner.isHidden():  # (a hidden banner is placed when it is shown: Banner.say)
            self.banner.place(vp)

    def drawForeground(self, painter: QPainter, rect) -> None:  # noqa: N802
        super().drawForeground(painter, rect)
        if abs(self.scale_bar.px_per_in - self.zoom) > 1e-9:
            self.scale_bar.set_scale(self.zoom)

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


class ScaleBar(QWidget):
    """The inch scale, in the view's bottom-left corner: a bar of a round number of inches
    (1, 2, 3, 6, 12, 24 ...) about a hundred pixels long at the zoom in use, so the umpire can
    judge a distance at a glance at any zoom."""

    STEPS = (0.5, 1, 2, 3, 6, 12, 18, 24, 36, 48)
    WANT_PX = 100

    def __init__(self, view: QGraphicsView):
        super().__init__(view)
        self.setObjectName("scale_bar")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.px_per_in = 0.0
        self.inches = 6.0
        self.set_scale(view.transform().m11())

    def set_scale(self, px_per_in: float) -> None:
        self.px_per_in = px_per_in
        if px_per_in > 0:
            self.inches = min(self.STEPS, key=lambda n: abs(n * px_per_in - self.WANT_PX))
        self.setToolTip(f'The scale: the bar is {self.inches:g}" on the table')
        self.update()

    def bar_px(self) -> float:
        return self.inches * self.px_per_in

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(240, 30)

    def paintEvent(self, event) -> None:  # noqa: N802
        if self.px_per_in <= 0:
            return
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        length = min(self.bar_px(), self.width() - 16)
        text = f'{self.inches:g}"'
        f = QFont()
        f.setPixelSize(11)
        f.setBold(True)
        p.setFont(f)
        tw = p.fontMetrics().horizontalAdvance(text)
        back = QRectF(0, 0, length + tw + 22, 22)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(255, 255, 250, 215))
        p.drawRoundedRect(back, 4, 4)
        x0, y = 6.0, 14.0
        half = length / 2
        p.fillRect(QRectF(x0, y - 3, half, 5), QColor("#202020"))
        p.fillRect(QRectF(x0 + half, y - 3, length - half, 5), QColor("#ffffff"))
        p.setPen(QPen(QColor("#202020"), 1))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(QRectF(x0, y - 3, length, 5))
        p.setPen(QColor("#202020"))
        p.drawText(QRectF(x0 + length + 6, 2, tw + 4, 18), Qt.AlignmentFlag.AlignVCenter, text)
        p.end()


class Banner(QLabel):
    """A strip across the top of the view saying which mode the map is in, where a drag does
    something other than move units (terrain editing), and how to leave it."""

    def __init__(self, view: QGraphicsView):
        super().__init__(view)
        self.setObjectName("mode_banner")
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setAutoFillBackground(True)
        pal = self.palette()
        # a strong colour of the palette's own (its highlight), so it reads on a dark desktop too
        pal.setColor(QPalette.ColorRole.Window, pal.color(QPalette.ColorRole.Highlight))
        pal.setColor(QPalette.ColorRole.WindowText, pal.color(QPalette.ColorRole.HighlightedText))
        self.setPalette(pal)
        self.setContentsMargins(8, 4, 8, 4)
        self.hide()

    def say(self, html_text: str) -> None:
        """Show the banner with ``html_text`` (empty: hide it)."""
        self.setText(html_text)
        self.setVisible(bool(html_text))
        view = self.parentWidget()
        if isinstance(view, QGraphicsView):
            self.place(view.viewport().geometry())
        self.raise_()

    def place(self, vp) -> None:
        self.setFixedWidth(max(vp.width() - 24, 100))
        self.adjustSize()
        self.move(vp.left() + 12, vp.top() + 8)
