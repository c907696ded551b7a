"""The order-of-battle roster: what it shows, its filters, its selection and its editing dialogs."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog

from gui.canvas import CanvasWidget
from gui.order_of_battle_dialogs import BrigadeDialog, UnitDialog
from gui.roster import RosterView, visible_unit_ids
from gui.roster_model import (
    COL_FORMATION,
    COL_HEALTH,
    COL_MARKERS,
    COL_MICRO,
    COL_PIPS,
    COL_STANDS,
    COL_STATE,
)
from rules.battle.words import Formation, Health, UnitKind


def make_roster(qtbot, controller):
    view = RosterView(controller)
    qtbot.addWidget(view)
    return view


def test_roster_shows_stands_now_and_start_micro_hits_health_and_markers(qtbot, controller):
    view = make_roster(qtbot, controller)
    m = view.model
    # stands now / at the start, with a micro-hit carried: "4/5 +1" (RULE-06-3.3)
    assert m.unit_text("ind19", COL_STANDS) == "4/5 +1"
    assert "1 micro-hit carried" in m.unit_index("ind19", COL_STANDS).data(Qt.ItemDataRole.ToolTipRole)
    assert m.unit_text("wis2", COL_STANDS) == "5/5"
    assert COL_MICRO == COL_STANDS
    # RULE-06-3.3: 4 of 5 stands is 80%, more than 75%: Fresh; 2 of 6 is 33%, under 35%: Spent
    assert m.unit_text("ind19", COL_HEALTH) == Health.FRESH.label
    assert m.unit_text("va27", COL_HEALTH) == Health.SPENT.label
    assert m.unit_text("va4", COL_HEALTH) == Health.FRESH.label  # 5 of 6 = 83%
    assert m.unit_markers("ind19") == "disorder"
    assert m.unit_markers("va27") == "smoke fired"
    assert m.unit_markers("wis2") == ""
    assert m.unit_index("va27", COL_MARKERS).data(Qt.ItemDataRole.ToolTipRole) == "Smoke, Fired"
    assert m.brigade_text("iron", COL_PIPS) == "●●●"
    assert m.brigade_text("iron", COL_STATE) == "Steady"
    assert m.brigade_text("texas", COL_PIPS) == "●◐"
    assert "Meredith, with 2nd Wisconsin" in m.brigade_text("iron", 0)
    # side > brigade > unit
    idx = m.unit_index("wis2")
    assert idx.parent() == m.brigade_index("iron")
    assert idx.parent().parent() == m.side_index("union")


def test_roster_filter_by_side_and_only_units_with_markers(qtbot, controller):
    view = make_roster(qtbot, controller)
    assert sorted(visible_unit_ids(view)) == sorted(controller.battle.units)
    view.side_filter.setCurrentIndex(view.side_filter.findData("csa"))
    assert sorted(visible_unit_ids(view)) == ["tx1", "va27", "va4"]
    view.marked_only.setChecked(True)
    assert visible_unit_ids(view) == ["va27"]
    view.side_filter.setCurrentIndex(view.side_filter.findData(None))
    assert sorted(visible_unit_ids(view)) == ["ind19", "va27"]
    view.marked_only.setChecked(False)
    assert len(visible_unit_ids(view)) == 6


def test_roster_and_canvas_selection_follow_each_other(qtbot, controller):
    roster = make_roster(qtbot, controller)
    canvas = CanvasWidget(controller)
    qtbot.addWidget(canvas)
    canvas._game_replaced()
    # roster -> controller -> canvas
    idx = roster.proxy.mapFromSource(roster.model.unit_index("va4"))
    roster.tree.selectionModel().select(
        idx,
        roster.tree.selectionModel().SelectionFlag.ClearAndSelect
        | roster.tree.selectionModel().SelectionFlag.Rows,
    )
    assert controller.selection == ("va4",)
    assert canvas.scene.units["va4"].isSelected()
    assert not canvas.scene.units["wis2"].isSelected()
    # canvas -> controller -> roster
    canvas.scene.clearSelection()
    canvas.scene.units["wis2"].setSelected(True)
    assert controller.selection == ("wis2",)
    assert roster.selected_ids() == ["wis2"]
    # a filter that hides the unit keeps the controller's selection
    roster.side_filter.setCurrentIndex(roster.side_filter.findData("csa"))
    assert controller.selection == ("wis2",)


def _fill_unit(name, stands, start, kind=UnitKind.INFANTRY, brigade="stonewall"):
    def fill(dlg: UnitDialog):
        dlg.brigade.setCurrentIndex(dlg.brigade.findData(brigade))
        dlg.kind.setCurrentIndex(dlg.kind.findData(kind))
        dlg.name.setText(name)
        dlg.stands_start.setValue(start)
        dlg.stands.setValue(stands)
        fill.ok_enabled = dlg.ok_button.isEnabled()
        fill.problem = dlg.problem_label.text()
        return QDialog.DialogCode.Accepted if fill.ok_enabled else QDialog.DialogCode.Rejected

    return fill


def test_add_unit_dialog_refuses_more_stands_than_at_start_and_says_why(qtbot, controller, answer):
    view = make_roster(qtbot, controller)
    fill = _fill_unit("33rd Virginia", 7, 6)
    answer.dialog(fill)
    view.add_unit()
    assert not fill.ok_enabled
    assert "7 stands is more than the 6 it started with" in fill.problem
    assert "33rd_virginia" not in controller.battle.units


def test_add_unit_dialog_at_exactly_the_starting_stands_adds_the_unit(qtbot, controller, answer):
    view = make_roster(qtbot, controller)
    fill = _fill_unit("33rd Virginia", 6, 6)
    answer.dialog(fill)
    view.add_unit()
    assert fill.ok_enabled and fill.problem == ""
    u = controller.battle.units["33rd_virginia"]
    assert (u.stands, u.stands_start, u.side, u.brigade) == (6, 6, "csa", "stonewall")
    assert view.model.unit_text("33rd_virginia", COL_STANDS) == "6/6"
    assert controller.selection == ("33rd_virginia",)
    controller.undo()
    assert "33rd_virginia" not in controller.battle.units
    assert not view.model.unit_index("33rd_virginia").isValid()


def test_unit_dialog_validates_as_the_umpire_types(qtbot, small_battle):
    dlg = UnitDialog(small_battle, None)
    qtbot.addWidget(dlg)
    assert not dlg.ok_button.isEnabled()
    assert "needs a name" in dlg.problem_label.text()
    dlg.name.setText("20th Maine")
    assert dlg.ok_button.isEnabled()
    dlg.kind.setCurrentIndex(dlg.kind.findData(UnitKind.SKIRMISHERS))
    assert not dlg.ok_button.isEnabled()
    assert "needs its parent regiment" in dlg.problem_label.text()
    dlg.parent_unit.setCurrentIndex(dlg.parent_unit.findData("wis2"))
    assert dlg.ok_button.isEnabled()
    dlg.id_edit.setText("wis2")
    assert not dlg.ok_button.isEnabled()
    assert "taken by 2nd Wisconsin" in dlg.problem_label.text()


def test_edit_unit_changes_formation_through_an_edit_action(qtbot, controller, answer):
    view = make_roster(qtbot, controller)
    controller.select(["wis2"])

    def fill(dlg):
        dlg.formation.setCurrentIndex(dlg.formation.findData(Formation.ASSAULT_COLUMN))
        dlg.micro_hits.setValue(1)
        return QDialog.DialogCode.Accepted

    answer.dialog(fill)
    view.edit_current()
    u = controller.battle.units["wis2"]
    assert (u.formation, u.micro_hits) == (Formation.ASSAULT_COLUMN, 1)
    assert view.model.unit_text("wis2", COL_FORMATION) == "Column"  # the assault column, said short
    assert view.model.unit_index("wis2", COL_FORMATION).data(Qt.ItemDataRole.ToolTipRole) == "Assault column"
    assert view.model.unit_text("wis2", COL_STANDS) == "5/5 +1"
    assert controller.events()[-1].action.type == "edit_unit"


def test_remove_unit_asks_first_and_undo_puts_it_back(qtbot, controller, answer):
    view = make_roster(qtbot, controller)
    controller.select(["va4"])
    answer.yes_no(False)
    view.remove_current()
    assert "va4" in controller.battle.units
    answer.yes_no(True)
    view.remove_current()
    assert "va4" not in controller.battle.units
    assert not view.model.unit_index("va4").isValid()
    assert view.model.brigade_text("stonewall", COL_STANDS) == "2/6"
    controller.undo()
    assert view.model.unit_text("va4", COL_STANDS) == "5/6"
    assert view.model.brigade_text("stonewall", COL_STANDS) == "7/12"


def test_add_brigade_needs_its_brigadier_and_edit_sets_pips(qtbot, controller, answer):
    view = make_roster(qtbot, controller)

    def fill(dlg: BrigadeDialog):
        dlg.side.setCurrentIndex(dlg.side.findData("union"))
        dlg.name.setText("Irish Brigade")
        fill.without_brigadier = (dlg.ok_button.isEnabled(), dlg.problem_label.text())
        dlg.brigadier.setText("Meagher")
        dlg.pips.setValue(2)
        return QDialog.DialogCode.Accepted if dlg.ok_button.isEnabled() else QDialog.DialogCode.Rejected

    answer.dialog(fill)
    view.add_brigade()
    assert fill.without_brigadier == (False, "the brigade needs its Brigadier's name")
    b = controller.battle.brigades["irish_brigade"]
    assert (b.side, b.brigadier.name, b.staff_pips) == ("union", "Meagher", 2)
    assert view.model.brigade_index("irish_brigade").parent() == view.model.side_index("union")

    # edit: select the brigade row and raise the reserved pips
    idx = view.proxy.mapFromSource(view.model.brigade_index("iron"))
    view.tree.selectionModel().select(
        idx,
        view.tree.selectionModel().SelectionFlag.ClearAndSelect
        | view.tree.selectionModel().SelectionFlag.Rows,
    )

    def edit(dlg):
        dlg.reserved.setValue(1)
        return QDialog.DialogCode.Accepted

    answer.dialog(edit)
    view.edit_current()
    assert controller.battle.brigades["iron"].staff_pips_reserved == 1
    assert view.model.brigade_text("iron", COL_PIPS) == "●●●◐"


def test_right_click_offers_what_fits_the_row(qtbot, controller):
    view = make_roster(qtbot, controller)

    def offered(index):
        view.tree.setCurrentIndex(index)
        view.tree.selectionModel().select(
            index,
            view.tree.selectionModel().SelectionFlag.ClearAndSelect
            | view.tree.selectionModel().SelectionFlag.Rows,
        )
        return [t for t, _slot in view.context_actions()]

    m = view.model
    assert offered(view.proxy.mapFromSource(m.unit_index("wis2"))) == [
        "Edit unit…",
        "Remove unit…",
        "Add a unit to this brigade…",
    ]
    assert offered(view.proxy.mapFromSource(m.brigade_index("iron")))[0] == "Edit brigade and Brigadier…"
    assert offered(view.proxy.mapFromSource(m.side_index("csa"))) == ["Add a brigade…"]


def test_a_change_widens_the_columns_to_what_a_full_fit_gives(qtbot, controller):
    from rules.actions import Override

    view = make_roster(qtbot, controller)
    view.resize(520, 700)
    view.show()
    header = view.tree.header()
    before = [header.sectionSize(c) for c in range(5)]
    long_name = "2nd Wisconsin Volunteer Infantry Regiment of the Iron Brigade"
    marks = ["disorder", "smoke", "fired", "pinned", "engaged"]
    controller.run(
        Override("unit", "wis2", {"name": long_name, "micro_hits": 1, "markers": marks}, "renamed")
    )
    mine = [header.sectionSize(c) for c in range(5)]
    assert mine[COL_MARKERS] > before[COL_MARKERS]  # five markers' badges
    assert mine[COL_STANDS] == before[COL_STANDS]  # room for "4/5 +1" was kept
    # the renamed unit's name is whole: the list scrolls sideways rather than cut it
    fm = view.tree.fontMetrics()
    room = view.tree.visualRect(view.proxy.mapFromSource(view.model.unit_index("wis2"))).width()
    assert fm.horizontalAdvance(long_name) + 8 <= room
    assert mine[0] + sum(mine[1:]) > view.tree.viewport().width()
    view.fit_columns()
    assert [header.sectionSize(c) for c in range(5)] == mine  # as wide as measuring every row


def test_an_unchanged_icon_is_not_set_again_and_a_row_is_one_notice(qtbot, controller, monkeypatch):
    from gui import icons
    from rules.actions import Override

    view = make_roster(qtbot, controller)
    made: list[str] = []
    real_health, real_marks = icons.health_icon, icons.markers_pixmap
    monkeypatch.setattr(icons, "health_icon", lambda h: made.append("health") or real_health(h))
    monkeypatch.setattr(icons, "markers_pixmap", lambda m, n: made.append("markers") or real_marks(m, n))
    notices: list[int] = []
    view.model.dataChanged.connect(lambda a, _b, _r=(): notices.append(a.row()))
    controller.run(Override("unit", "ind19", {"x": 31.0}, "nudged"))  # health and markers as they were
    assert made == []
    assert notices == []  # its place is in its tooltip alone: nothing drawn changed
    assert "31.0" in view.model._unit_rows["ind19"][0].toolTip()
    controller.run(Override("unit", "ind19", {"stands": 3}, "volley"))
    # the unit's row, its brigade's and its side's stands: a notice each
    assert len(notices) == 3 and made == ["health"]
    controller.run(Override("unit", "ind19", {"markers": ["disorder", "smoke"]}, "smoke"))
    assert made == ["health", "markers"]
    assert view.model.unit_markers("ind19") == "disorder smoke"
    assert view.model.unit_text("ind19", COL_STANDS) == "3/5 +1"  # its micro-hit with its stands
