"""The dialogs seam: a modal window a test did not answer fails the test at once."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialog, QMessageBox

from gui import dialogs
from gui.order_of_battle_dialogs import BrigadeDialog, UnitDialog
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
    dlg = BrigadeDialog(small_battle)
    qtbot.addWidget(dlg)
    dlg.name.setText("Another")
    dlg.brigadier.setText("Someone")
    assert dlg.ok_button.isEnabled()
    dlg.id_edit.setText("iron")
    assert not dlg.ok_button.isEnabled()
    assert "taken by Iron Brigade" in dlg.problem_label.text()


# -- the unit dialog: marker badges and positions on the table -----------------------------------


def test_unit_dialog_marker_boxes_carry_the_inspectors_letter_badges(qtbot, small_battle):
    from gui import icons
    from rules.battle.words import Marker

    u = next(iter(small_battle.units.values()))
    dlg = UnitDialog(small_battle, u)
    qtbot.addWidget(dlg)
    for m, cb in dlg.marker_boxes.items():
        assert not cb.icon().isNull(), m
        got = cb.icon().pixmap(16, 16).toImage()
        want = icons.marker_icon(m).pixmap(16, 16).toImage()
        assert got == want, m
    # two markers have two different badges
    a = dlg.marker_boxes[Marker.DISORDER].icon().pixmap(16, 16).toImage()
    b = dlg.marker_boxes[Marker.GARRISONED].icon().pixmap(16, 16).toImage()
    assert a != b


def test_unit_dialog_x_and_y_stop_at_the_table_edges(qtbot, small_battle):
    from dataclasses import replace

    b = replace(small_battle, table_width_in=60.0, table_height_in=44.0)
    dlg = UnitDialog(b)
    qtbot.addWidget(dlg)
    assert (dlg.x.minimum(), dlg.x.maximum()) == (0.0, 60.0)
    assert (dlg.y.minimum(), dlg.y.maximum()) == (0.0, 44.0)
    dlg.x.setValue(60.0)  # the edge itself is on the table
    dlg.y.setValue(44.0)
    assert (dlg.x.value(), dlg.y.value()) == (60.0, 44.0)
    dlg.x.setValue(60.5)  # beyond it cannot be typed
    dlg.y.setValue(-0.5)
    assert (dlg.x.value(), dlg.y.value()) == (60.0, 0.0)
    dlg.name.setText("7th Wisconsin")
    assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
    assert (dlg.unit().x, dlg.unit().y) == (60.0, 0.0)


# -- preferences: the reason of an entry read in full -------------------------------------------------


def test_preferences_show_the_selected_entrys_reason_in_full_and_wrapped(qtbot):
    import html

    from gui.preferences import COL_MEANING, PreferencesDialog
    from gui.rule_links import linkify
    from rules.tables import load_tables

    t = load_tables()
    dlg = PreferencesDialog(t)
    qtbot.addWidget(dlg)
    assert "Select an entry" in dlg.detail.text()
    entries = list(t)
    r, e = max(enumerate(entries), key=lambda p: len(p[1].reason or ""))
    assert len(e.reason) > 80  # a reason longer than the column shows
    dlg.table.selectRow(r)
    text = dlg.detail.text()
    assert e.key in text and linkify(html.escape(e.reason)) in text  # its rule ids are links
    assert dlg.detail.wordWrap()
    tip = dlg.table.item(r, COL_MEANING).toolTip()
    assert tip.startswith("<p>") and html.escape(e.reason) in tip  # rich text: it wraps
    # a ruled entry names its rule
    r2, e2 = next((i, x) for i, x in enumerate(entries) if x.rule)
    dlg.table.selectRow(r2)
    assert e2.rule in dlg.detail.text()


def test_a_new_unit_faces_its_sides_enemy_until_the_umpire_sets_its_facing(qtbot):
    from storage.scenario import load_demo

    demo = load_demo()  # the Union holds the ridge at the top of the table, the Confederates below
    dlg = UnitDialog(demo, brigade="iron")
    qtbot.addWidget(dlg)
    assert dlg.facing.value() == 180.0  # the Union faces down the table, towards the enemy
    dlg.brigade.setCurrentIndex(dlg.brigade.findData("garnett"))
    assert dlg.facing.value() == 0.0  # the Confederates face up it
    dlg.facing.setValue(45.0)
    dlg.facing.editingFinished.emit()
    dlg.brigade.setCurrentIndex(dlg.brigade.findData("iron"))
    assert dlg.facing.value() == 45.0  # set by hand: kept
