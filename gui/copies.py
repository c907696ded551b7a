"""The window's part in keeping a save whole: a game another copy changed, a save it can only read.

* When another copy of Brigadier (a second window, the command line) has changed the save since
  this window read it, the window's next action, undo or redo is refused and nothing is written
  (:class:`storage.errors.ChangedElsewhereError`, told by ``GameController.changedElsewhere``).
  The window says so and offers to read the game again, through :func:`gui.dialogs.ask_yes_no`;
  declined, it keeps refusing, and never writes over the other copy's work.
* A save the window can only read (its file or folder is read-only, it is on read-only media or a
  full disk) opens all the same: a banner above the map says why and how to play on (File > Save
  As to a folder that can be written), and every action is refused with that reason.

:func:`install` adds both to a main window.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QToolBar

RELOAD_TITLE = "Changed by another copy"


class ReadOnlyBanner(QToolBar):
    """A strip above the map, shown only while the game in hand can only be read."""

    def __init__(self, parent: Any = None):
        super().__init__("Read-only game", parent)
        self.setObjectName("read_only_banner")
        self.setMovable(False)
        self.setFloatable(False)
        self.label = QLabel(self)
        self.label.setObjectName("read_only_text")
        self.label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setStyleSheet(
            "QLabel#read_only_text { background: #fff3c4; color: #5a4300; padding: 6px 10px;"
            " border: 1px solid #e0c860; font-weight: bold; }"
        )
        self.addWidget(self.label)
        self.toggleViewAction().setVisible(False)  # not a toolbar the umpire hides from a menu
        self.hide()

    def text(self) -> str:
        return self.label.text()

    def show_for(self, game: Any) -> None:
        reason = getattr(game, "read_only_reason", None) if game is not None else None
        if reason is None:
            self.label.setText("")
            self.hide()
            return
        self.label.setText(
            f"Read only: {reason}. You can look at this game, print and export it, but not play it; "
            "File > Save As makes a copy to play on."
        )
        self.label.setToolTip(
            f"This game can only be read here: {reason}. Brigadier refuses every action, undo and "
            "redo rather than fail to save it. To play on, save a copy with File > Save As in a "
            "folder you can write to."
        )
        window = self.parentWidget()
        if window is not None and hasattr(window, "toolBarBreak") and not window.toolBarBreak(self):
            window.insertToolBarBreak(self)  # a restored layout may have put it beside the turn bar
        self.show()


def offer_reload(window: Any, message: str) -> bool:
    """Tell the umpire that another copy changed the game (nothing was done) and offer to read it
    again; True if it was read again."""
    from gui import dialogs

    window.statusBar().showMessage(f"Not done: {message}", 20000)
    if not dialogs.ask_yes_no(
        window, RELOAD_TITLE, f"{message[:1].upper()}{message[1:]}.\n\nRead the game again now?"
    ):
        return False
    if window.controller.reload():
        window.statusBar().showMessage("The game was read again, as the other copy left it", 15000)
        return True
    return False


def install(window: Any) -> ReadOnlyBanner:
    """Give a main window its read-only banner and its answer to a game changed elsewhere."""
    banner = ReadOnlyBanner(window)
    window.addToolBar(Qt.ToolBarArea.TopToolBarArea, banner)
    window.insertToolBarBreak(banner)  # a row of its own, under the turn bar
    controller = window.controller
    controller.gameReplaced.connect(lambda: banner.show_for(controller.game))
    controller.changedElsewhere.connect(lambda message: offer_reload(window, message))
    banner.show_for(controller.game)
    return banner


__all__ = ["RELOAD_TITLE", "ReadOnlyBanner", "install", "offer_reload"]
