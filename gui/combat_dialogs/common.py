"""What the combat dialogs share: their colours, a bold heading, and picking an entry of a list by its data."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QComboBox, QLabel, QWidget

from gui.theme import GOOD, PROBLEM

RED = PROBLEM  # inks of the palette in use (gui.theme): they read on a dark desktop too
GREEN = GOOD


def bold_title(text: str, parent: QWidget) -> QLabel:
    """A dialog's heading, in large bold type."""
    lab = QLabel(f"<span style='font-size:15pt; font-weight:bold'>{html.escape(text)}</span>", parent)
    return lab


def select(combo: QComboBox, data) -> None:
    """Make the entry of ``combo`` whose data is ``data`` the current one, if there is one."""
    i = combo.findData(data)
    if i >= 0:
        combo.setCurrentIndex(i)
