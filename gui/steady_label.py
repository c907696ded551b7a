"""A line of text that changes often, laid out without disturbing the window around it."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel, QWidget


class SteadyLabel(QLabel):
    """A line of text that changes at every step (the count of events), kept at the size its text
    needs, and never narrower than it has been: a new text no wider than the widest yet repaints
    the label alone. (A label's new text otherwise has every layout up to the main window's done
    again: the docks, the map, their tab bars.)"""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._fitted_advance = -1  # the widest text the label has been fitted to (pixels)
        # it fills its own background, so that the widgets under it are not painted again with it
        self.setAutoFillBackground(True)

    def setText(self, text: str) -> None:  # noqa: N802
        if text == self.text():
            return
        super().setText(text)
        # a one-line text no wider than the widest the label was fitted to fits as it is
        # (measured by the font alone: the label's own size hint lays the text out)
        advance = self.fontMetrics().horizontalAdvance(text)
        if advance > self._fitted_advance or "\n" in text:
            self._fit()
            self._fitted_advance = max(advance, self._fitted_advance)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fitted_advance = self.fontMetrics().horizontalAdvance(self.text())
            self._fit(anew=True)

    def _fit(self, anew: bool = False) -> None:
        hint = self.sizeHint()
        if not anew:  # (another font or style: as wide as its text, and no wider)
            hint.setWidth(max(hint.width(), self.minimumWidth()))
        if hint != self.minimumSize() or hint != self.maximumSize():
            self.setFixedSize(hint)
