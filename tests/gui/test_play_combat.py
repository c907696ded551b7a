"""Shooting (Phase 3), melee by hand (Phase 4) and the dice entry, through the dialogs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gui import play
from gui.combat_dialogs import MeleeDialog, ShootDialog
from gui.dice_entry import DiceEntry
from rules.battle.words import Marker, Phase
from tests.gui.fair_dice import assert_no_faces, outcome_committed
from tests.gui.test_play_examples import REJECT, Script, play_game  # noqa: F401
from tests.rules.shooting.test_shooting import battle_of, unit


def duel(phase=Phase.RANGED, **target_kw):
    """The 2nd Wisconsin 5" from the 8th Georgia, face to face; a second Georgian regiment 7" off."""
    f = unit("f", "union", name="2nd Wisconsin", x=10, y=20)
    t = unit("t", "csa", name="8th Georgia", x=10, y=15, facing_deg=180, **target_kw)
    t2 = unit("t2", "csa", name="28th North Carolina", x=12, y=13, facing_deg=180)
    return replace(battle_of(f, t, t2), phase=phase)


def test_rule_03_5_6_the_shoot_dialog_offers_the_closest_enemy_and_greys_the_farther(play_game, answer):  # noqa: F811
    c = play_game(duel())

    def shoot(dlg: ShootDialog):
        assert dlg.firer_id() == "f" and dlg.target_id() == "t"
        rows = {
            dlg.targets.item(r, 0).text(): dlg.targets.item(r, 6).text()
            for r in range(dlg.targets.rowCount())
        }
        assert rows["8th Georgia"].startswith("yes: the closest unengaged enemy in arc")
        assert rows["28th North Carolina"].startswith("no: a closer unengaged enemy must be fired at first")
        assert "(RULE-03-5.6)" in rows["28th North Carolina"]
        with pytest.raises(Exception, match="may not be fired on"):
            dlg.choose_target("t2")
        text = dlg.volley_label.text()
        assert "5D6" in text and "4+" in text and "short range" in text
        # before a die is typed, the entry says how many to roll and what for
        dlg.dice.type_dice("")
        assert dlg.dice.hint.text().startswith("Roll 5 dice: 5 for the volley.")
        # rifled muskets at short range, 4+: the printed dice of chapter 04's Example C
        dlg.dice.type_dice("1 4 4 6")
        assert dlg.dice.hint.text().startswith("Roll 5 dice: 5 for the volley.")
        assert (
            not dlg.ok_button.isEnabled()
            and "the volley needs 5 dice; 4 are left" in dlg.problem_label.text()
        )
        dlg.dice.type_dice("1 4 4 6 2 3")
        assert not dlg.ok_button.isEnabled() and "6 dice typed, but 5 are needed" in dlg.problem_label.text()
        dlg.dice.type_dice("1 4 4 6 7")
        assert not dlg.ok_button.isEnabled() and "7 is not a face" in dlg.problem_label.text()
        dlg.dice.type_dice("1 4 4 6 2")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        assert dlg.dice.hint.text() == "The typed dice are used in the order they are asked for."

    Script(answer, (ShootDialog, shoot))
    ev = play.shoot(c, None)
    g = c.battle.unit("t")
    assert (g.stands, g.micro_hits, g.disordered) == (4, 1, True)
    assert c.battle.unit("f").has(Marker.FIRED) and c.battle.unit("f").has(Marker.SMOKE)
    assert [(r.purpose, r.dice) for r in ev.rolls] == [("volley", (1, 4, 4, 6, 2))]


def test_shooting_outside_phase_3_is_refused_with_the_reason(play_game, answer):  # noqa: F811
    c = play_game(duel(phase=Phase.MANEUVER))

    def shoot(dlg: ShootDialog):
        assert not dlg.ok_button.isEnabled()
        assert "Phase 3: Ranged Combat" in dlg.problem_label.text()
        return REJECT

    Script(answer, (ShootDialog, shoot))
    assert play.shoot(c, None) is None and c.events() == []


def test_the_shoot_dialog_shows_the_volleys_chances_and_the_program_rolls_one_of_them(play_game, answer):  # noqa: F811
    """With "The program rolls" the dialog shows what the volley may do, each outcome with its
    exact chance, and no face; the game's dice roll on Fire, and come out as one of those."""
    c = play_game(duel())
    shown, chances = [], []

    def shoot(dlg: ShootDialog):
        assert dlg.ok_button.isEnabled()
        shown.append(dlg.result.toPlainText())
        chances.append(dlg.chances())

    Script(answer, (ShootDialog, shoot))
    assert c.game.dice.drawn == 0
    ev = play.shoot(c, None)
    assert_no_faces(shown[0])
    assert "What may happen" in shown[0] and "%" in shown[0]
    assert chances[0].total == 1
    outcome_committed(chances[0], ev.steps)
    assert c.game.dice.drawn == sum(len(r.dice) for r in ev.rolls)


def locked_melee():
    """Two regiments locked in melee after a tie (RULE-06-4.2), to be re-rolled in Phase 4."""
    a = unit(
        "a", "union", name="2nd Wisconsin", x=10, y=20, markers=frozenset({Marker.ENGAGED, Marker.DISORDER})
    )
    d = unit(
        "d",
        "csa",
        name="8th Georgia",
        x=10,
        y=20,
        facing_deg=180,
        markers=frozenset({Marker.ENGAGED, Marker.DISORDER}),
    )
    return replace(battle_of(a, d), phase=Phase.MELEE)


def test_rule_06_4_2_a_locked_melee_is_rerolled_in_phase_4_with_the_scores_line_by_line(play_game, answer):  # noqa: F811
    c = play_game(locked_melee())

    def melee(dlg: MeleeDialog):
        assert dlg.attacker.currentData() == "a" and dlg.defender.currentData() == "d"
        dlg.dice.type_dice("")  # dice rolled at the table, none typed yet
        att = dlg.side_labels[0].text()
        assert "Engaged stands" in att and "Disordered" in att and "RULE-06-3.3" in att
        assert "1D6</td><td align='right'><b>?</b>" in att  # no die yet
        dlg.dice.type_dice("5")
        assert "defender shock roll needs 1 die" in dlg.problem_label.text()
        dlg.dice.type_dice("5 2")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        assert "2nd Wisconsin wins" in dlg.outcome.text()

    Script(answer, (MeleeDialog, melee))
    ev = play.resolve_melee(c, None)
    assert ev.action.type == "melee" and [r.dice for r in ev.rolls] == [(5,), (2,)]
    g = c.battle.unit("d")
    assert g.stands == 4 and not g.has(Marker.ENGAGED)
    assert any("wins" in s.text and s.rule == "RULE-06-4.1" for s in ev.steps)


def test_dice_entry_checks_faces_one_to_six_on_both_sides_of_each_bound(qtbot):
    w = DiceEntry()
    qtbot.addWidget(w)
    assert w.problem() is None and w.table_dice() is None  # the program rolls
    for text, ok in (("1 6", True), ("0 6", False), ("1 7", False), ("6,6;1", True), ("a", False)):
        w.type_dice(text)
        assert (w.problem() is None) == ok, text
    w.set_check(lambda faces: None if len(faces) == 2 else f"2 dice are needed, {len(faces)} typed")
    w.type_dice("3")
    assert w.problem() == "Dice: 2 dice are needed, 1 typed"
    w.type_dice("3 4")
    assert w.problem() is None and w.table_dice().remaining == (3, 4)
    w.use_program()
    assert w.problem() is None and not w.edit.isEnabled()


def test_bad_input_is_told_to_the_umpire_not_raised(play_game, qtbot):  # noqa: F811
    c = play_game(duel(phase=Phase.MANEUVER))
    told: list[str] = []
    c.actionFailed.connect(told.append)
    assert play.move_units(c, None, [("no-such-unit", 1.0, 1.0, None)]) is None
    assert play.play_charge(c, None, "f", "no-such-unit") is None
    assert len(told) == 2 and all("no-such-unit" in t for t in told)
    assert c.events() == []


def test_rule_06_4_2_a_tie_in_phase_4_stays_pending_into_the_next_game_turns_melee_phase(play_game, answer):  # noqa: F811
    from rules.actions import NextPhase
    from rules.melee.melee import pending_melees
    from tests.gui.test_play_examples import charge_to_contact, to_phase_4
    from tests.rules.melee.test_examples_ch06 import example_1

    c = play_game(example_1())
    charge_to_contact(c, answer, "va4", "wis2", "2 4 1 6 5 5")
    to_phase_4(c)

    def tie(dlg: MeleeDialog):
        # 4 + 6 = 10 against 4 + 6 = 10; the tie's hit costs the Virginians a stand: Garnett's roll
        dlg.dice.type_dice("4 4")
        assert "leader loss roll needs 1 die" in dlg.problem_label.text()
        dlg.dice.type_dice("4 4 4")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        assert "Tie 10 to 10" in dlg.outcome.text()

    Script(answer, (MeleeDialog, tie))
    ev = play.resolve_melee(c, None)
    assert "tie" in ev.summary
    (locked,) = pending_melees(c.battle)
    assert locked.locked and locked.due_turn == 2
    # the tie does not hold up the turn; in the Union's Phase 4 of turn 1 the melee waits
    while not (c.battle.active_side == "usa" and c.battle.phase == Phase.MELEE):
        assert c.run(NextPhase()) is not None
    assert c.battle.turn == 1

    def waits(dlg: MeleeDialog):
        assert dlg.pending_melee() is None  # nothing is due: the dialog opens on a melee by hand
        dlg.choose_pending(locked.id)
        dlg.dice.type_dice("6 1")
        assert not dlg.ok_button.isEnabled()
        assert "next game turn's Melee Phase" in dlg.problem_label.text()
        return REJECT

    Script(answer, (MeleeDialog, waits))
    assert play.resolve_melee(c, None) is None
    # turn 2, the Confederates' Phase 4: it is the melee to resolve, and must be resolved to go on
    while not (c.battle.turn == 2 and c.battle.phase == Phase.MELEE):
        assert c.run(NextPhase()) is not None
    assert c.run(NextPhase()) is None

    def reroll(dlg: MeleeDialog):
        assert dlg.pending_melee() == locked
        assert "locked by a tie" in dlg.situation_label.text()
        assert "Charging momentum" not in dlg.side_labels[0].text()
        dlg.cons_default.setChecked(False)
        dlg.cons_advance.setValue(1.0)
        dlg.cons_pivot.setValue(20.0)
        dlg.dice.type_dice("6 1")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    Script(answer, (MeleeDialog, reroll))
    ev = play.resolve_melee(c, None)
    assert (ev.action.consolidate_in, ev.action.consolidate_pivot_deg) == (1.0, 20.0)
    assert pending_melees(c.battle) == () and c.battle.unit("va4").facing_deg == pytest.approx(20.0)
    assert c.run(NextPhase()) is not None
