"""The dialogs seam: a modal window a test did not answer fails the test at once."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialog, QMessageBox

from gui import dialogs
from tests.conftest import UnexpectedDialog


def test_an_unanswered_message_fails_the_test_loudly(qtbot):
    with pytest.raises(UnexpectedDialog, match="QMessageBox.exec"):
        dialogs.show_message(None, "Title", "text")
    with pytest.raises(UnexpectedDialog):
        QMessageBox.warning(None, "Title", "text")
    with pytest.raises(UnexpectedDialog, match="QDialog.exec"):
        dialogs.ask_text(None, "Title", "Name?")


def test_ask_text_and_ask_yes_no_read_the_dialog_they_opened(qtbot, monkeypatch):
    def answer(dlg):
        if isinstance(dlg, QMessageBox):
            dlg.button(QMessageBox.StandardButton.Yes).click()
            return QMessageBox.StandardButton.Yes
        dlg.setTextValue("Brigadier General Gibbon")
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(dialogs, "exec_dialog", answer)
    assert dialogs.ask_text(None, "Brigadier", "Name?") == "Brigadier General Gibbon"
    assert dialogs.ask_yes_no(None, "Remove", "Remove the 2nd Wisconsin?") is True
    monkeypatch.setattr(dialogs, "exec_dialog", lambda dlg: QDialog.DialogCode.Rejected)
    assert dialogs.ask_text(None, "Brigadier", "Name?") is None
    assert dialogs.ask_yes_no(None, "Remove", "Remove the 2nd Wisconsin?") is False


def test_reason_dialog_needs_a_reason_before_ok(qtbot, monkeypatch):
    dlg = dialogs.ReasonDialog("Override 2nd Wisconsin: stands")
    qtbot.addWidget(dlg)
    assert not dlg.ok_button.isEnabled()
    assert dlg.problem_label.text() == "an override needs a reason for the log"
    dlg.reason.setPlainText("   ")
    assert not dlg.ok_button.isEnabled()
    dlg.reason.setPlainText("agreed at the table")
    assert dlg.ok_button.isEnabled() and dlg.text() == "agreed at the table"

    def fill(d):
        d.reason.setPlainText("the dice fell off the table")
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(dialogs, "exec_dialog", fill)
    assert dialogs.ask_reason(None, "Override") == "the dice fell off the table"


def test_brigade_dialog_refuses_a_taken_id(qtbot, small_battle):
    dlg = dialogs.BrigadeDialog(small_battle)
    qtbot.addWidget(dlg)
    dlg.name.setText("Another")
    dlg.brigadier.setText("Someone")
    assert dlg.ok_button.isEnabled()
    dlg.id_edit.setText("iron")
    assert not dlg.ok_button.isEnabled()
    assert "taken by Iron Brigade" in dlg.problem_label.text()
