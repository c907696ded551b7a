"""The table drawn under and over the scene's items: the cloth and its grid (kept as one picture
where no view keeps one, for a map drawn again the same), the inch marks along the top and left
edges, and Qt's pixmap cache sized for the pictures the items keep of themselves.

:class:`TableDrawing` is a part of :class:`~gui.canvas.scene.BattlefieldScene` (its
``table_rect``, ``units`` and ``terrain``, and the zoom its names were placed for).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPaintEngine, QPainter, QPixmapCache
from PySide6.QtWidgets import QGraphicsItem

from gui.canvas.style import TABLE_COLOUR, _label_font, cosmetic_pen

# the largest picture of the table and grid a scene keeps (4 million pixels, 16 MB): a bigger
# picture (a large print) is drawn straight onto its page
_BACKGROUND_CACHE_PX = 4_000_000

#: Qt's pixmap cache, which keeps the items' pictures (DeviceCoordinateCache), is 10 MB unless told
#: otherwise; a big table's pictures need more at the zoom that shows it whole, and when they do
#: not fit, every repaint draws the items afresh. The scene sizes it to its items, up to this.
PIXMAP_CACHE_DEFAULT_KB = 10 * 1024
PIXMAP_CACHE_MAX_KB = 256 * 1024


class TableDrawing:
    """The drawing of the table under and over the items, and the pictures the items keep, for
    :class:`~gui.canvas.scene.BattlefieldScene`."""

    # -- the items' pictures ----------------------------------------------------------------
    def set_item_caches(self, on: bool) -> None:
        """Whether the items keep a picture of themselves (``DeviceCoordinateCache``). A picture
        drawn once (an exported map, the report's map) is drawn straight: keeping the items'
        pictures would cost a picture each, drawn and then copied, and push the pictures of the
        map on screen out of the cache."""
        self._item_caches = bool(on)
        mode = QGraphicsItem.CacheMode.DeviceCoordinateCache if on else QGraphicsItem.CacheMode.NoCache
        for it in self.units.values():
            it.setCacheMode(mode)
            it.label.setCacheMode(mode)
        for t in self.terrain.values():
            t.setCacheMode(mode)
            t.name_label.setCacheMode(mode)

    def pixmap_cache_kb(self, px_per_in: float, device: QRectF | None = None) -> int:
        """The pixmap cache the items' pictures need at ``px_per_in`` device pixels an inch (each
        picture no larger than ``device``, the area drawn on), with room for the rest of the
        application, between Qt's default and :data:`PIXMAP_CACHE_MAX_KB`."""
        cap = device.width() * device.height() if device is not None else math.inf
        px = 0.0
        for it in self.units.values():
            r = it.boundingRect()
            px += min((r.width() * px_per_in + 3) * (r.height() * px_per_in + 3), cap)
        for t in self.terrain.values():
            r = t.boundingRect()
            px += min((r.width() * px_per_in + 3) * (r.height() * px_per_in + 3), cap)
        labels = [it.label for it in self.units.values()] + [t.name_label for t in self.terrain.values()]
        for lab in labels:
            if lab.isVisible():
                r = lab.boundingRect()
                px += (r.width() + 3) * (r.height() + 3)
        need = int(px * 4 * 1.25 / 1024) + PIXMAP_CACHE_DEFAULT_KB
        return max(PIXMAP_CACHE_DEFAULT_KB, min(need, PIXMAP_CACHE_MAX_KB))

    def _fit_pixmap_cache(self, painter: QPainter) -> None:
        """Size Qt's pixmap cache for the items' pictures at the zoom being drawn (when it changes)."""
        if not self._item_caches:
            return
        t = painter.combinedTransform()
        ratio = painter.device().devicePixelRatio() if painter.device() is not None else 1.0
        px_per_in = math.hypot(t.m11(), t.m12()) * ratio
        device = QRectF(painter.viewport()) if painter.viewport().isValid() else None
        key = (
            round(px_per_in, 3),
            None if device is None else (device.width(), device.height()),
            len(self.units),
        )
        if key == self._pixmaps_sized_for:
            return
        self._pixmaps_sized_for = key
        want = self.pixmap_cache_kb(px_per_in, device)
        if want > QPixmapCache.cacheLimit():
            QPixmapCache.setCacheLimit(want)

    # -- background: the table and its grid ------------------------------------------------
    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:  # noqa: N802
        self._fit_pixmap_cache(painter)
        # A view keeps its own picture of the background (CacheBackground); a picture drawn
        # without a view (an export, a report's map) keeps the table and its grid as an image
        # for the same transform and area, so drawing the same picture again only copies it.
        t = painter.combinedTransform()  # scene to device pixels, window and viewport included
        engine = painter.paintEngine()
        raster = engine is not None and engine.type() == QPaintEngine.Type.Raster
        raster = raster and painter.device().devicePixelRatio() == 1  # (a finer print: drawn)
        if self.views() or not raster or not t.isAffine() or t.m12() or t.m21():
            self._paint_background(painter, rect)
            return
        device = t.mapRect(rect).toAlignedRect()
        if device.isEmpty() or device.width() * device.height() > _BACKGROUND_CACHE_PX:
            self._paint_background(painter, rect)
            return
        aa = painter.testRenderHint(QPainter.RenderHint.Antialiasing)
        key = (
            (t.m11(), t.m22(), t.dx(), t.dy()),
            (rect.x(), rect.y(), rect.width(), rect.height()),
            (self.table_rect.width(), self.table_rect.height()),
            aa,
        )
        cached = self._background_cache
        if cached is None or cached[0] != key:
            img = QImage(device.size(), QImage.Format.Format_ARGB32_Premultiplied)
            img.fill(0)
            p = QPainter(img)
            p.setRenderHint(QPainter.RenderHint.Antialiasing, aa)
            p.translate(-device.x(), -device.y())
            p.setWorldTransform(t, True)
            self._paint_background(p, rect)
            p.end()
            cached = self._background_cache = (key, img, device.topLeft())
        painter.save()
        painter.resetTransform()
        painter.drawImage(cached[2], cached[1])
        painter.restore()

    def _paint_background(self, painter: QPainter, rect: QRectF) -> None:
        painter.fillRect(rect, QColor("#7d8b6a"))
        table = self.table_rect
        painter.fillRect(table, QColor(TABLE_COLOUR))
        r = rect.intersected(table)
        if r.isEmpty():
            return
        scale = painter.worldTransform().m11()
        step = 1 if scale >= 8 else (6 if scale >= 2 else 12)
        minor = cosmetic_pen("#dde0c4", 1)
        major = cosmetic_pen("#c6caa3", 1)
        lines_minor, lines_major = [], []
        x0 = math.floor(r.left() / step) * step
        x = x0
        while x <= r.right():
            if 0 <= x <= table.right():
                (lines_major if x % 6 == 0 else lines_minor).append(QLineF(x, r.top(), x, r.bottom()))
            x += step
        y = math.floor(r.top() / step) * step
        while y <= r.bottom():
            if 0 <= y <= table.bottom():
                (lines_major if y % 6 == 0 else lines_minor).append(QLineF(r.left(), y, r.right(), y))
            y += step
        aa = painter.testRenderHint(QPainter.RenderHint.Antialiasing)
        if self.views():  # on screen the grid is square to the pixels; a picture keeps it smooth
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        else:
            minor = cosmetic_pen("#e2e4cc", 0.6)
            major = cosmetic_pen("#c9cca8", 0.8)
        painter.setPen(minor)
        painter.drawLines(lines_minor)
        painter.setPen(major)
        painter.drawLines(lines_major)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, aa)
        painter.setPen(cosmetic_pen("#4a4a3a", 2))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(table)

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:  # noqa: N802
        # inch marks along the top and left edges every 6"
        scale = painter.worldTransform().m11()
        if scale <= 0:
            return
        if self.views() and abs(scale - self._label_scale) > 0.02 * scale:
            self._labels_need_layout()  # zoomed: the names' sizes in inches have changed
        k = 1.0 / scale
        t = self.table_rect
        # only the marks in the area drawn: a repaint in the middle of the table draws none
        top = [x for x in range(0, int(t.width()) + 1, 6) if rect.top() < -0.3 + 6 * k]
        top = [x for x in top if rect.left() < x + 0.15 + 48 * k and rect.right() > x + 0.15]
        left = [y for y in range(6, int(t.height()) + 1, 6) if rect.left() < -0.25]
        left = [y for y in left if rect.top() < y + 10 * k and rect.bottom() > y - 10 * k]
        if not top and not left:
            return
        painter.save()
        painter.setPen(QColor("#f4f4e8"))
        font = _label_font(10)
        painter.setFont(font)
        for x in top:
            painter.save()
            painter.translate(x + 0.15, -0.3)
            painter.scale(k, k)
            painter.drawText(QPointF(0, 0), f'{x}"')
            painter.restore()
        for y in left:
            painter.save()
            painter.translate(-0.25, y)
            painter.scale(k, k)
            painter.drawText(
                QRectF(-44, -8, 40, 16),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                f'{y}"',
            )
            painter.restore()
        painter.restore()
