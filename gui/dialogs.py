"""Dialogs: the one seam through which every modal window is opened, and the reason for an override.

Every modal window in Brigadier is opened through the functions at the top of this module
(:func:`exec_dialog`, :func:`ask_text`, :func:`show_message`, :func:`ask_yes_no`,
:func:`ask_open_path`, :func:`ask_save_path`, :func:`ask_existing_folder`, :func:`ask_reason`).
Callers use them as ``dialogs.ask_text(...)`` so that the tests can answer them by replacing these
functions, and no modal window ever waits for a click that will not come.

The dialogs that check what is typed as it is typed are :class:`~gui.validated_dialog.ValidatedDialog`
(:mod:`gui.validated_dialog`); the order of battle's editing dialogs are in
:mod:`gui.order_of_battle_dialogs`, the terrain dialog in :mod:`gui.terrain_dialog` (also named
here, where the map opens it).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QInputDialog,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from gui import screens
from gui.terrain_dialog import TerrainDialog as TerrainDialog  # the map opens it as dialogs.TerrainDialog
from gui.validated_dialog import ValidatedDialog

# -- the seam ---------------------------------------------------------------------------


def exec_dialog(dialog: QDialog) -> int:
    """Run ``dialog`` modally and return its result (``QDialog.DialogCode``); it is kept within
    the screen first (:func:`gui.screens.fit_dialog`), and its rule citations are links to the
    rules reference (:func:`gui.rule_links.connect_links`)."""
    screens.fit_dialog(dialog)
    from gui import rule_links

    rule_links.connect_links(dialog)  # every rule it cites opens the rules reference
    return int(dialog.exec())


def ask_text(parent: QWidget | None, title: str, label: str, text: str = "") -> str | None:
    """Ask for a line of text; None if the umpire cancels."""
    dlg = QInputDialog(parent)
    dlg.setWindowTitle(title)
    dlg.setLabelText(label)
    dlg.setTextValue(text)
    if exec_dialog(dlg) != QDialog.DialogCode.Accepted:
        return None
    return dlg.textValue()


def show_message(parent: QWidget | None, title: str, text: str, kind: str = "information") -> None:
    """Tell the umpire something: ``kind`` is "information", "warning" or "error"."""
    icon = {
        "information": QMessageBox.Icon.Information,
        "warning": QMessageBox.Icon.Warning,
        "error": QMessageBox.Icon.Critical,
    }.get(kind, QMessageBox.Icon.Information)
    box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    exec_dialog(box)


def ask_yes_no(parent: QWidget | None, title: str, text: str) -> bool:
    """A yes/no question; True for yes."""
    box = QMessageBox(
        QMessageBox.Icon.Question,
        title,
        text,
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        parent,
    )
    box.setDefaultButton(QMessageBox.StandardButton.No)
    exec_dialog(box)
    return box.clickedButton() is box.button(QMessageBox.StandardButton.Yes)


def ask_open_path(parent: QWidget | None, caption: str, directory: str = "", filter: str = "") -> str | None:
    """A file to open; None if cancelled."""
    dlg = QFileDialog(parent, caption, directory, filter)
    dlg.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
    dlg.setFileMode(QFileDialog.FileMode.ExistingFile)
    if exec_dialog(dlg) != QDialog.DialogCode.Accepted or not dlg.selectedFiles():
        return None
    return dlg.selectedFiles()[0]


def ask_save_path(
    parent: QWidget | None, caption: str, directory: str = "", filter: str = "", suffix: str = ""
) -> str | None:
    """A file to write; None if cancelled."""
    dlg = QFileDialog(parent, caption, directory, filter)
    dlg.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    if suffix:
        dlg.setDefaultSuffix(suffix)
    if exec_dialog(dlg) != QDialog.DialogCode.Accepted or not dlg.selectedFiles():
        return None
    return dlg.selectedFiles()[0]


def ask_export_path(
    window: Any, what: str, stem: str, side: str | None, verb: str, filter: str, suffix: str
) -> str | None:
    """Where to write an export of ``what`` (the umpire's, or with ``side`` as that side
    ``verb`` it: "knew", "saw"), proposed in the saves folder as ``stem`` (``stem-side``); None if
    cancelled."""
    from gui.paths import saves_dir

    b = window.controller.battle
    whose = "" if side is None or b is None else f" as the {b.oob.side_name(side)} side {verb} it"
    name = stem if side is None else f"{stem}-{side}"
    return ask_save_path(
        window, f"Export the {what}{whose}", str(saves_dir() / f"{name}.{suffix}"), filter, suffix
    )


def ask_existing_folder(parent: QWidget | None, caption: str, directory: str = "") -> str | None:
    """A folder; None if cancelled."""
    dlg = QFileDialog(parent, caption, directory)
    dlg.setFileMode(QFileDialog.FileMode.Directory)
    dlg.setOption(QFileDialog.Option.ShowDirsOnly, True)
    if exec_dialog(dlg) != QDialog.DialogCode.Accepted or not dlg.selectedFiles():
        return None
    return dlg.selectedFiles()[0]


# -- an override's reason -------------------------------------------------------------------


class ReasonDialog(ValidatedDialog):
    """Ask why the umpire overrides a value: an override is logged with its reason."""

    def __init__(self, what: str, parent: QWidget | None = None):
        super().__init__("Umpire's override", parent)
        self.setMinimumWidth(440)
        lay = QVBoxLayout(self.form_host)
        head = QLabel(what, self)
        head.setWordWrap(True)
        f = QFont(head.font())
        f.setBold(True)
        head.setFont(f)
        lay.addWidget(head)
        lay.addWidget(QLabel("Reason (it goes in the battle log):", self))
        self.reason = QPlainTextEdit(self)
        self.reason.setPlaceholderText("e.g. the players agreed the 19th was in the woods")
        self.reason.setFixedHeight(70)
        lay.addWidget(self.reason)
        self.reason.textChanged.connect(self.revalidate)
        self.revalidate()

    def text(self) -> str:
        return self.reason.toPlainText().strip()

    def problem(self) -> str | None:
        if not hasattr(self, "reason"):
            return None
        return None if self.text() else "an override needs a reason for the log"


def ask_reason(parent: QWidget | None, what: str) -> str | None:
    """The reason for an override, or None if the umpire cancels."""
    dlg = ReasonDialog(what, parent)
    if exec_dialog(dlg) != QDialog.DialogCode.Accepted:
        return None
    return dlg.text() or None
