"""A full turn of the demo battle (Oak Ridge) played in the main window, through its menus, the canvas
and the dialogs: Phase 1, a march that opens Trigger Window A, a charge refused with its rule, a
volley in Phase 3, Phase 4 with no locked melee, and the end of the Confederate turn."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialog

from gui.app import make_main_window
from gui.checklist import PhaseEndDialog
from gui.combat_dialogs import ChargeDialog, MeleeDialog, ShootDialog
from gui.reaction_dialog import ReactionDialog
from rules.battle.words import Marker, Phase
from rules.reactions.declare import Reaction
from storage.game import Game
from storage.scenario import load_demo
from tests.gui.test_play_examples import REJECT, Script


@pytest.fixture
def demo_window(tmp_path, qtbot):
    g = Game.create(tmp_path / "oak-ridge.sqlite", load_demo())
    path = str(g.path)
    g.close()
    win = make_main_window(path)
    qtbot.addWidget(win)
    yield win
    win.controller.close()


def test_a_full_turn_of_the_demo_battle_through_the_window_and_its_dialogs(demo_window, answer):
    win, c = demo_window, demo_window.controller
    answer.record_messages()
    assert c.battle.active_side == "csa" and c.battle.phase == Phase.COMMAND

    # Phase 1 -> Phase 2
    win.next_phase_action.trigger()
    assert c.battle.phase == Phase.MANEUVER

    # Phase 2: the 4th Virginia advances on Oak Ridge; the battery's arc opens Window A at 8.0"
    stopped: list[tuple[float, float]] = []

    def battery_fires(dlg: ReactionDialog):
        it = win.canvas.scene.units["va4"]
        stopped.append((it.unit.x, it.unit.y))
        assert '8" from Battery B' in dlg.heading.text()
        assert dlg.boxes["batb4us"].radios[Reaction.OPPORTUNITY_FIRE].isEnabled()
        dlg.choose("batb4us", "opportunity_fire")  # the program rolls
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    script = Script(answer, (ReactionDialog, battery_fires))
    win.canvas.scene.moveRequested.emit([("va4", 34.0, 21.0, 0.0)])
    assert not script.steps
    # the Virginians stopped on the canvas where the window opened: 8.0" from the guns (RULE-04-3.1)
    assert stopped == [(34.0, 22.0)]
    fire = c.events()[-1]
    assert fire.action.type == "declare_reaction" and fire.rolls[0].purpose == "opportunity fire"
    sixes = 6 in fire.rolls[0].dice
    va4 = c.battle.unit("va4")
    # the march from y=28 spends the whole 6" of a line (RULE-03-2.5) to reach the window: it
    # halts there, short of the point it was dragged to, with nothing left to resume (RULE-04-3.5)
    assert c.events()[-2].action.mode == "march"
    assert va4.y == pytest.approx(22.0) and va4.disordered == sixes
    assert c.battle.unit("batb4us").has(Marker.SMOKE) and c.battle.unit("batb4us").has(Marker.FIRED)

    # a charge on the battery: refused while the Virginians are Disordered (RULE-06-1.3)
    def charge(dlg: ChargeDialog):
        dlg.set_units("va4", "batb4us")
        if c.battle.unit("va4").disordered:
            assert not dlg.ok_button.isEnabled() and "Disordered (RULE-06-1.3)" in dlg.problems.text()
        return REJECT

    Script(answer, (ChargeDialog, charge))
    win.charge_action.trigger()

    # Phase 3: the 5th Virginia fires at the closest enemy in its arc. The units that did not
    # move are listed before Phase 2 ends; the umpire goes on, and they are logged as left undone
    def left_undone(dlg: PhaseEndDialog):
        assert any("has not moved" in line for line in dlg.lines())

    Script(answer, (PhaseEndDialog, left_undone))
    win.next_phase_action.trigger()
    assert c.battle.phase == Phase.RANGED
    picked: list[str] = []

    def volley(dlg: ShootDialog):
        dlg.firer.setCurrentIndex(dlg.firer.findData("va4"))
        assert dlg.target_id() is not None, dlg.volley_label.text()
        picked.append(dlg.target_id())
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    Script(answer, (ShootDialog, volley))
    before = c.battle.unit("batb4us")
    win.shoot_action.trigger()
    shot = c.events()[-1]
    assert shot.action.type == "shoot" and shot.action.target_id == picked[0]
    target_after = c.battle.unit(picked[0])
    band = "medium" if shot.action.distance_in > c.tables.value("shooting.range_band.short") else "short"
    needed = c.tables.to_hit("rifled_musket", band).value
    hits = sum(1 for d in shot.rolls[0].dice if d >= needed)
    assert f"{hits} hit" in shot.summary
    assert c.battle.unit("va4").has(Marker.FIRED)
    if picked[0] == "batb4us" and len(shot.rolls) == 1:  # no cover save: every hit counts
        per = c.tables.value("shooting.dice.hits_per_stand")
        left = before.stands * per - before.micro_hits
        assert left - (target_after.stands * per - target_after.micro_hits) == hits

    # Phase 4: no melee is locked; the umpire opens the dialog and closes it. The units that may
    # still fire are listed first: the 4th Virginia has fired, and is not among them
    def may_still_fire(dlg: PhaseEndDialog):
        assert any("may still fire" in line for line in dlg.lines())
        assert not any("4th Virginia" in line for line in dlg.lines())

    Script(answer, (PhaseEndDialog, may_still_fire))
    win.next_phase_action.trigger()
    assert c.battle.phase == Phase.MELEE

    def no_melee(dlg: MeleeDialog):
        assert "No melee is locked" in dlg.situation_label.text()
        return REJECT

    Script(answer, (MeleeDialog, no_melee))
    n = len(c.events())
    win.melee_action.trigger()
    assert len(c.events()) == n

    # the end of the Confederate turn: the Union's Phase 1, and the Virginians' Fired marker cleared
    win.end_turn_action.trigger()
    assert c.battle.active_side == "union" and c.battle.phase == Phase.COMMAND and c.battle.turn == 1
    assert not c.battle.unit("va4").has(Marker.FIRED)
    types = [e.action.type for e in c.events()]
    assert types == [
        "next_phase",
        "move_unit",
        "declare_reaction",
        "left_undone",
        "next_phase",
        "shoot",
        "left_undone",
        "next_phase",
        "end_turn",
    ]
    assert answer.messages == []  # nothing was refused along the way
    # the log view shows the turn's events, the reaction with its dice among them
    from PySide6.QtWidgets import QTreeWidgetItemIterator

    texts = []
    it = QTreeWidgetItemIterator(win.log.tree)
    while it.value():
        texts.append(it.value().text(0))
        it += 1
    assert any("Opportunity Fire" in t for t in texts), texts


def test_the_game_menu_opens_the_trigger_windows_by_hand(demo_window):
    g = demo_window.menus["game"]
    texts = [a.text() for a in g.actions()]
    assert "Open Trigger Window &A…" in texts and "Open Trigger Window &B…" in texts
    assert demo_window.window_a_action.isEnabled() and demo_window.window_b_action.isEnabled()


def test_game_menu_window_b_by_hand_in_phase_1_says_why_not(demo_window, answer):
    answer.record_messages()
    demo_window.window_b_action.trigger()
    assert answer.messages and "RULE-04-1.2" in answer.messages[0][1]


def test_declare_charge_from_the_menu_opens_the_charge_dialog(demo_window, answer):
    seen = []

    def charge(dlg: ChargeDialog):
        seen.append(dlg.windowTitle())
        return QDialog.DialogCode.Rejected

    Script(answer, (ChargeDialog, charge))
    demo_window.charge_action.trigger()
    assert seen == ["Declare charge — Phase 2"]


def test_every_kind_of_action_can_be_tried_in_the_demos_first_turn():
    """A new user tries everything in the demo's first turn: a march that opens Trigger Window A,
    a charge the rules allow (Window B and, on contact, a melee), and volleys in Phase 3."""
    from dataclasses import replace

    from rules.battle.words import Phase
    from rules.legality import allowed, charge_targets, shoot_targets
    from rules.reactions.triggers import find_windows
    from rules.tables import load_tables

    t = load_tables()
    demo = load_demo()
    assert demo.turn == 1
    two = replace(demo, phase=Phase.MANEUVER)
    side = two.active_side
    marches = [
        u.id
        for u in two.oob.in_play(side)
        if any(w.any_eligible for w in find_windows(two, u.id, [(u.x, u.y), (u.x, u.y - 4.0)], t))
    ]
    assert marches  # a march straight ahead opens a window the enemy may react at
    charges = [u.id for u in two.oob.in_play(side) if allowed(charge_targets(two, u.id, t))]
    assert charges
    three = replace(demo, phase=Phase.RANGED)
    firers = [u.id for u in three.oob.in_play(side) if allowed(shoot_targets(three, u.id, t))]
    assert len(firers) >= 3
