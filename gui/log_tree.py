"""The battle log's tree (:mod:`gui.log_view`): a tree of rows that, when an action only adds rows
at its foot, repaints only those rows and their headings, and that stays at its foot when it is
made shorter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QWidget


class LogTree(QTreeWidget):
    """The log's tree. After an action the tree lays its rows out again, and Qt then repaints
    every row in view; when the action only added rows at the foot (:meth:`append`), the rows
    above stay as they were drawn (they are only scrolled up), and only the new rows and the
    rows they changed are repainted."""

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self._appending = False

    def append(self, items: Iterable[QTreeWidgetItem], scroll: Callable[[], None]) -> None:
        """Lay out the rows now, knowing that ``items`` were only added at the foot (under headings
        that were open), ``scroll`` the view, and repaint those rows (everything below the first
        of them: they are the foot of the log, their steps under them) and their headings."""
        items = list(items)
        self._appending = True
        try:
            self.executeDelayedItemsLayout()
        finally:
            self._appending = False
        scroll()
        vp = self.viewport()
        tops = [r.top() for r in map(self.visualItemRect, items) if not r.isEmpty()]
        if tops:
            top = max(0, min(tops))
            vp.update(QRect(0, top, vp.width(), vp.height() - top))
        headings: dict[int, QTreeWidgetItem] = {}
        for item in items:
            parent = item.parent()
            while parent is not None:
                headings[id(parent)] = parent
                parent = parent.parent()
        for heading in headings.values():
            r = self.visualItemRect(heading)
            if not r.isEmpty():
                vp.update(QRect(0, r.top(), vp.width(), r.height()))  # (its branch mark at the left too)

    def resizeEvent(self, event) -> None:  # noqa: N802
        """A log shown at its foot stays there when it is made shorter (the window laid out as a
        game opens, the dock resized); one scrolled back to read stays where it was."""
        bar = self.verticalScrollBar()
        at_foot = bar.value() >= bar.maximum()
        super().resizeEvent(event)
        if at_foot and bar.value() < bar.maximum():
            bar.setValue(bar.maximum())

    def doItemsLayout(self) -> None:  # noqa: N802
        if not self._appending:
            super().doItemsLayout()
            return
        vp = self.viewport()
        vp.setAttribute(Qt.WidgetAttribute.WA_UpdatesDisabled, True)
        try:
            super().doItemsLayout()
        finally:
            vp.setAttribute(Qt.WidgetAttribute.WA_UpdatesDisabled, False)
