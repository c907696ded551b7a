"""What the combat dialogs offer is what the rules allow (rules.legality): the firers and targets of
the shoot dialog, the charge dialog's targets and Window B answers, the garrison dialog's units."""

from __future__ import annotations

from dataclasses import replace

from gui.combat_dialogs import ChargeDialog, GarrisonDialog, ShootDialog
from rules.battle.words import Marker, Phase
from rules.tables import load_tables
from storage.scenario import load_demo
from tests.gui.test_play_examples import example_a
from tests.rules.melee.test_examples_ch06 import example_1
from tests.rules.test_legality import farm

T = load_tables()


def combo_ids(combo) -> list[str]:
    return [combo.itemData(i) for i in range(combo.count())]


def shoot_dialog(qtbot, battle, firer_id=None) -> ShootDialog:
    dlg = ShootDialog(battle, T, firer_id=firer_id)
    qtbot.addWidget(dlg)
    return dlg


def test_rule_04_3_4_the_shoot_dialog_does_not_offer_a_unit_that_has_fired(qtbot):
    b = replace(load_demo(), phase=Phase.RANGED)
    # the 8th Georgia has no enemy within its 18" reach: it cannot fire, and is not offered
    assert combo_ids(shoot_dialog(qtbot, b).firer) == ["va4", "va5", "nc7", "nc28"]
    asked = shoot_dialog(qtbot, b, firer_id="ga8")
    assert "8th Georgia may not fire" in asked.firer_refused.text()
    assert (
        "no enemy in its 45 degree forward arc, within its range and in sight" in asked.firer_refused.text()
    )
    b = b.with_unit(b.unit("va5").with_markers(add=[Marker.FIRED, Marker.SMOKE]))
    dlg = shoot_dialog(qtbot, b, firer_id="va5")
    assert combo_ids(dlg.firer) == ["va4", "nc7", "nc28"]
    # asked to fire with the 5th Virginia, the dialog says why it may not
    assert not dlg.firer_refused.isHidden()
    text = dlg.firer_refused.text()
    assert "5th Virginia may not fire" in text and "already fired" in text and "RULE-04-3.4" in text


def test_outside_phase_3_the_shoot_dialog_offers_no_firer(qtbot):
    dlg = shoot_dialog(qtbot, replace(load_demo(), phase=Phase.MANEUVER))
    assert dlg.firer.count() == 0 and not dlg.ok_button.isEnabled()
    assert "Phase 3" in dlg.problem_label.text()


def test_the_shoot_dialog_lists_the_4th_virginias_targets_with_the_rules_reasons(qtbot):
    dlg = shoot_dialog(qtbot, replace(load_demo(), phase=Phase.RANGED), firer_id="va4")
    last = len(dlg.COLUMNS) - 1
    rows = [(dlg.targets.item(r, 0).text(), dlg.targets.item(r, last).text()) for r in range(4)]
    assert [name for name, _ in rows] == [
        "Battery B, 4th US Artillery",
        "19th Indiana",
        "2nd Wisconsin",
        "14th Brooklyn",
    ]
    assert rows[0][1] == "yes: the closest unengaged enemy in arc (RULE-03-5.6)"
    assert rows[1][1] == "no: a closer unengaged enemy must be fired at first (RULE-03-5.6)"
    assert rows[2][1].startswith("no: not in sight") and rows[2][1].endswith("(RULE-03-4.3)")
    assert rows[3][1] == "no: outside the 45 degree forward arc (RULE-03-5.1)"
    assert dlg.target_id() == "batb4us"


def test_the_charge_dialogs_first_target_is_the_nearest_it_may_charge(qtbot):
    b = example_1()
    b = b.with_units(
        replace(b.unit("wis2"), id="behind", name="6th Wisconsin", x=30.0, y=31.0, facing_deg=0.0),
        replace(b.unit("wis2"), id="far", name="7th Wisconsin", x=31.0, y=19.0),
    )
    dlg = ChargeDialog(b, T, "va4")
    qtbot.addWidget(dlg)
    # all the enemies, nearest first; the nearest is behind the Virginians, out of their arc
    assert combo_ids(dlg.target) == ["behind", "wis2", "far"]
    assert dlg.target_id() == "wis2" and dlg.ok_button.isEnabled(), dlg.problems.text()
    dlg.set_units("va4", "behind")
    assert not dlg.ok_button.isEnabled()
    assert "forward 45 degree arc (RULE-06-1.3)" in dlg.problems.text()


def test_the_charge_dialog_assumes_only_the_answers_open_to_the_defender_at_window_b(qtbot):
    dlg = ChargeDialog(example_a(), T, "bkn14")
    qtbot.addWidget(dlg)
    assert dlg.target_id() == "va5"
    # Example A: the 5th Virginia may fire a Closing Volley; it has no pip reserved to counter-charge
    assert combo_ids(dlg.assumed) == ["closing_volley", "none"]


def test_rule_03_3_1_the_garrison_dialog_offers_only_units_that_may_garrison(qtbot):
    dlg = GarrisonDialog(farm(), T)
    qtbot.addWidget(dlg)
    assert combo_ids(dlg.unit_combo) == ["wis2", "wis6"]
    # a unit asked for is shown, with the rules' refusal
    asked = GarrisonDialog(farm(), T, "ind19", "farm")
    qtbot.addWidget(asked)
    assert combo_ids(asked.unit_combo)[0] == "ind19" and not asked.ok_button.isEnabled()
    assert "RULE-03-3.1" in asked.problem_label.text()
    # no building on the table: no unit is offered, and the dialog says why
    bare = GarrisonDialog(farm().without_feature("farm"), T)
    qtbot.addWidget(bare)
    assert bare.unit_combo.count() == 0 and "there is no building on the table" in bare.problem_label.text()


def test_the_charge_dialog_opens_with_one_look_at_the_targets_and_one_at_the_odds(qtbot, monkeypatch):
    """Opening the Charge dialog asks the rules once for the charger's targets and once for the
    odds of the charge chosen; and every dialog after the first shows the same kept chart, not a
    new one (pyqtgraph's chart takes about 150 ms to build)."""
    import pyqtgraph

    from gui.combat_dialogs import charge as charge_dialog
    from rules import odds

    calls = {"targets": 0, "odds": 0, "charts": 0}
    real_targets, real_odds, real_chart = (
        charge_dialog.charge_targets,
        odds.charge_odds,
        pyqtgraph.PlotWidget.__init__,
    )

    def targets(*a, **k):
        calls["targets"] += 1
        return real_targets(*a, **k)

    def charge_odds(*a, **k):
        calls["odds"] += 1
        return real_odds(*a, **k)

    def chart(self, *a, **k):
        calls["charts"] += 1
        real_chart(self, *a, **k)

    monkeypatch.setattr(charge_dialog, "charge_targets", targets)
    monkeypatch.setattr(odds, "charge_odds", charge_odds)
    monkeypatch.setattr(pyqtgraph.PlotWidget, "__init__", chart)
    charge_dialog._KEPT_CHARTS.clear()
    first = ChargeDialog(example_a(), T, "bkn14")
    assert (calls["targets"], calls["odds"]) == (1, 1)
    assert first.odds is not None and first.chart.bars
    kept = first.chart
    first.reject()  # done with: its chart is kept for the next dialog
    first.deleteLater()
    second = ChargeDialog(example_a(), T, "bkn14")
    qtbot.addWidget(second)
    assert (calls["targets"], calls["odds"]) == (2, 2)
    assert second.chart is kept and calls["charts"] <= 1
    assert second.chart.bars == kept.bars and second.chart.isVisibleTo(second)
    # the umpire's choices still work out what follows from them
    second.assumed.setCurrentIndex(second.assumed.count() - 1)
    assert calls["odds"] == 3


def test_a_windows_charge_dialog_is_made_once_and_filled_afresh_for_each_charge(qtbot, monkeypatch):
    """Game > Declare charge opens the window's own Charge dialog, made the first time and filled
    again for each charge after: what it shows is what a new dialog shows for the same charge,
    with nothing left of the charge before, and its rules asked once each."""
    from PySide6.QtWidgets import QWidget

    from gui.combat_dialogs import charge as charge_module
    from rules.assault.declaration import CHARGING_KINDS

    window = QWidget()
    qtbot.addWidget(window)
    a = replace(load_demo(), phase=Phase.MANEUVER)
    chargers = [u.id for u in a.oob.in_play(a.active_side) if u.kind in CHARGING_KINDS]
    assert len(chargers) >= 2

    def shown(dlg) -> tuple:
        return (
            combo_ids(dlg.attacker),
            dlg.attacker_id(),
            [dlg.target.itemText(i) for i in range(dlg.target.count())],
            dlg.target_id(),
            [dlg.assumed.itemText(i) for i in range(dlg.assumed.count())],
            dlg.plan_label.text(),
            dlg.problems.text(),
            dlg.expected.text(),
            None if dlg.odds is None else dlg.odds.as_percentages(),
            # the chart as drawn: its bars and the words over them
            dlg.chart.bars,
            [float(h) for h in dlg.chart._bar.opts["height"]] if dlg.chart._bar is not None else [],
            [t.textItem.toPlainText() for t in dlg.chart._texts if t.isVisibleTo(dlg.chart.getPlotItem())],
        )

    first = charge_module.charge_dialog(a, T, chargers[0], None, window)
    first.reject()
    asked: list[str] = []
    real = charge_module.charge_targets
    monkeypatch.setattr(
        charge_module, "charge_targets", lambda b, uid, t: asked.append(uid) or real(b, uid, t)
    )
    second = charge_module.charge_dialog(a, T, chargers[1], None, window)
    assert second is first and asked == [chargers[1]]  # the same dialog, asked once for its targets
    fresh = ChargeDialog(a, T, chargers[1])
    qtbot.addWidget(fresh)
    assert shown(second) == shown(fresh)
    # another battle (a charge made since): its chargers and targets, none of the one before
    before = a.unit(chargers[0])
    moved = a.with_unit(replace(before, y=before.y + (3.0 if before.y < a.table_height_in / 2 else -3.0)))
    third = charge_module.charge_dialog(moved, T, chargers[0], None, window)
    other = ChargeDialog(moved, T, chargers[0])
    qtbot.addWidget(other)
    assert third is first and shown(third) == shown(other)
    assert shown(third) != shown(ChargeDialog(a, T, chargers[0]))  # (the move shows)
