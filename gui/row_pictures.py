"""Rows of a list or tree drawn once and copied after.

The log and the checklist are repainted after every action (a new row, a row ticked off, the
scroll), and laying a row's words out again is most of the cost of a repaint, and of the list's
layout when its rows wrap. :class:`RowPictures` keeps each row's picture, and each row's size,
for what it shows (its words, tick, colour, font, size and state: selected, hovered, focused)
until many others have been drawn.
"""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QPainter, QPixmap
from PySide6.QtWidgets import QAbstractItemView, QStyledItemDelegate, QStyleOptionViewItem, QTreeView

_SHOWN = Qt.ItemDataRole.DisplayRole
_FG = Qt.ItemDataRole.ForegroundRole
_FONT = Qt.ItemDataRole.FontRole
_TICK = Qt.ItemDataRole.CheckStateRole
_WRAP = QStyleOptionViewItem.ViewItemFeature.WrapText
_TALL = 1 << 16
_RESTYLED = (QEvent.Type.PaletteChange, QEvent.Type.FontChange, QEvent.Type.StyleChange)


class RowPictures(QStyledItemDelegate):
    """An item delegate that draws a row once, as a picture, and copies it after; and that works
    out a row's size once for its words, tick, font and width."""

    KEEP = 600

    def __init__(self, view: QAbstractItemView):
        super().__init__(view)
        self.pictures: OrderedDict[tuple, QPixmap] = OrderedDict()
        self.sizes: OrderedDict[tuple, QSize] = OrderedDict()
        # what each row shows, by its item (read from the model once, not at every paint); a
        # row changed or removed is forgotten, as is every row when the model is reset
        self.looks: dict[int, tuple] = {}
        model = view.model()
        model.dataChanged.connect(self._changed)
        model.rowsAboutToBeRemoved.connect(self._forget_looks)
        model.modelAboutToBeReset.connect(self._forget_looks)
        model.layoutAboutToBeChanged.connect(self._forget_looks)

    def restyled(self, event: QEvent) -> None:
        """Forget every picture and size when ``event`` (of the view's owner) is a new palette,
        font or style: the rows are then drawn afresh in it."""
        if event.type() in _RESTYLED:
            self.clear()

    def clear(self) -> None:
        """Forget every picture and size (the font, style or palette changed)."""
        self.pictures.clear()
        self.sizes.clear()
        self.looks.clear()

    def _forget_looks(self, *_args) -> None:
        # (an item removed may leave its place in memory to a new one)
        self.looks.clear()

    def _changed(self, top_left, bottom_right, *_roles) -> None:
        for row in range(top_left.row(), bottom_right.row() + 1):
            self.looks.pop(top_left.sibling(row, 0).internalId(), None)

    def _looks(self, index) -> tuple:
        item = index.internalId()
        looks = self.looks.get(item)
        if looks is None:
            fg = index.data(_FG)
            font = index.data(_FONT)
            tick = index.data(_TICK)
            looks = (
                index.data(_SHOWN),
                fg.color().rgba() if fg is not None else None,
                font.key() if font is not None else None,
                tick.value if hasattr(tick, "value") else tick,
            )
            self.looks[item] = looks
        return looks

    def sizeHint(self, option: QStyleOptionViewItem, index) -> QSize:  # noqa: N802
        width = option.rect.width()
        view = self.parent()
        if width < 0 and option.features & _WRAP and isinstance(view, QTreeView):
            # a tree asks a row's height without its width: a row that wraps is as tall as its
            # words wrapped to its column
            width = view.columnWidth(index.column())
            option = QStyleOptionViewItem(option)
            option.rect = QRect(0, 0, width, _TALL)  # (a rect with no height wraps nothing)
        key = (self._looks(index), width, option.features.value)
        size = self.sizes.get(key)
        if size is None:
            size = super().sizeHint(option, index)
            self.sizes[key] = size
            if len(self.sizes) > self.KEEP:
                self.sizes.popitem(last=False)
        return QSize(size)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:
        r = option.rect
        if r.width() <= 0 or r.height() <= 0:
            return
        dpr = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
        key = (self._looks(index), r.width(), r.height(), option.state.value, option.features.value, dpr)
        pic = self.pictures.get(key)
        if pic is None:
            pic = QPixmap(round(r.width() * dpr), round(r.height() * dpr))
            pic.setDevicePixelRatio(dpr)
            pic.fill(Qt.GlobalColor.transparent)
            p = QPainter(pic)
            opt = QStyleOptionViewItem(option)
            opt.rect = QRect(QPoint(0, 0), r.size())
            super().paint(p, opt, index)
            p.end()
            self.pictures[key] = pic
            if len(self.pictures) > self.KEEP:
                self.pictures.popitem(last=False)
        else:
            self.pictures.move_to_end(key)
        painter.drawPixmap(r.topLeft(), pic)
