"""The rulebook's worked examples played through the application, with the printed dice typed in.

Chapter 04, Example A: the 14th Brooklyn charges the 5th Virginia across 8.0" of open pasture;
the closing volley (3 3 5 2 6) and the failed discipline check (2) stall it 2.0" away.

Chapter 06, Example 1: the 4th Virginia charges the 2nd Wisconsin in Phase 2: the closing volley
(2 4 1 6 5) and the discipline check (5) bring it into contact; in Phase 4 the shock dice (5 and 3:
11 to 9) and Garnett's Leader Loss roll (4, Unhurt). Example 2: the 14th Brooklyn's column reaches
the stone wall through the volley (1 3 5 2) in Phase 2 and is repulsed in Phase 4 (4 and 4:
10 to 11). Assaults are initiated in Phase 2 and resolved in Phase 4 (RULE-06-1.1).

The dialogs are answered through the seam in :mod:`gui.dialogs`: the test's fake ``exec`` sets the
widgets as the umpire would and accepts.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtWidgets import QDialog

from gui import play
from gui.combat_dialogs import ChargeDialog, MeleeDialog
from gui.controller import GameController
from gui.reaction_dialog import ReactionDialog
from rules.actions import NextPhase
from rules.battle.order_of_battle import Brigadier
from rules.battle.words import BrigadierStatus, Marker, Phase, Quality, Weapon
from rules.battlefield.geometry import distance_in
from rules.melee.melee import pending_melees
from rules.reactions.declare import Reaction
from storage.game import Game
from tests.gui.fair_dice import assert_no_faces, outcome_committed
from tests.rules.melee.test_examples_ch06 import example_1, example_2
from tests.rules.shooting.test_shooting import battle_of, unit

ACCEPT = QDialog.DialogCode.Accepted
REJECT = QDialog.DialogCode.Rejected


def example_a():
    """Chapter 04, Example A, with the Brooklyn 8.0" from the Virginians ("8.0" separation")."""
    va5 = unit("va5", "csa", name="5th Virginia", weapon=Weapon.SMOOTHBORE_MUSKET, x=30, y=10, facing_deg=180)
    bkn14 = unit("bkn14", "union", name="14th Brooklyn", quality=Quality.REGULAR, x=30, y=18, facing_deg=0)
    return replace(battle_of(va5, bkn14, active="union"), phase=Phase.MANEUVER)


@pytest.fixture
def play_game(tmp_path, qtbot):
    made = []

    def make(battle):
        g = Game.create(tmp_path / f"g{len(made)}.sqlite", battle, seed=7)
        c = GameController()
        c.set_game(g, str(g.path))
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()


class Script:
    """Answers the dialogs in turn: each answer is ``(dialog class, fn)``; fn sets the widgets."""

    def __init__(self, answer, *steps):
        self.steps = list(steps)
        self.seen: list[QDialog] = []
        answer.dialog(self)

    def __call__(self, dlg):
        assert self.steps, f"an unexpected dialog opened: {dlg.windowTitle()}"
        cls, fn = self.steps.pop(0)
        assert isinstance(dlg, cls), f"expected a {cls.__name__}, got {type(dlg).__name__}"
        self.seen.append(dlg)
        result = fn(dlg)
        return ACCEPT if result is None else result


def test_example_a_closing_volley_repulses_an_assault_through_the_application(play_game, answer):
    c = play_game(example_a())

    def charge(dlg: ChargeDialog):
        dlg.set_units("bkn14", "va5")
        assert dlg.ok_button.isEnabled(), dlg.problems.text()
        # the odds are there before the umpire confirms: the stall is the likeliest end
        assert dlg.odds is not None and float(dlg.odds.total) == pytest.approx(1.0)
        assert max(dlg.odds.outcomes, key=dlg.odds.outcomes.get) == "stalled"

    def window_b(dlg: ReactionDialog):
        assert dlg.window.window.value == "b"
        assert 'halts at the 4" line, 4" from 5th Virginia' in dlg.heading.text()
        box = dlg.boxes["va5"]
        assert box.radios[Reaction.CLOSING_VOLLEY].isEnabled()
        assert not box.radios[Reaction.COUNTER_CHARGE].isEnabled()  # no reserved pip, no Rebel Yell
        dlg.choose("va5", "closing_volley")
        dlg.dice.type_dice("3 3 5 2 6")  # the volley only: the check's die is missing
        assert not dlg.ok_button.isEnabled()
        assert "discipline check needs 1 die" in dlg.problem_label.text()
        dlg.dice.type_dice("3 3 5 2 6 2")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        shown = " ".join(s.text for s in dlg.shown_steps())
        assert "rolls 2, failed" in shown and "The charge stalls" in shown

    script = Script(answer, (ChargeDialog, charge), (ReactionDialog, window_b))
    ev = play.declare_charge(c, None)
    assert not script.steps and ev is not None
    b = c.battle
    bkn, va5 = b.unit("bkn14"), b.unit("va5")
    # "halts 2.0" away from the Virginia line, reduced to 3 stands, Disordered"
    assert bkn.stands == 3 and bkn.micro_hits == 0 and bkn.disordered
    assert distance_in(bkn, va5, c.tables) == pytest.approx(2.0)
    # "The 5th Virginia receives a Smoke Marker."
    assert va5.has(Marker.SMOKE)
    # the log: the dice as typed, with their purposes, and the printed results
    (last,) = c.events()[-1:]
    assert [(r.purpose, r.dice) for r in last.rolls] == [
        ("closing volley", (3, 3, 5, 2, 6)),
        ("discipline check", (2,)),
    ]
    text = [s.text for s in last.steps]
    assert any("4 hits" in t for t in text)
    assert any("2 stands lost" in t for t in text)
    assert any("rolls 2, failed" in t for t in text)
    assert "stalled" in last.summary


def test_example_a_window_b_shows_the_chances_and_the_program_rolls_one_of_them(play_game, answer):
    """Trigger Window B with "The program rolls": the closing volley's chances, never its dice, and
    on Resolve the game rolls one of the ways shown."""
    c = play_game(example_a())
    shown: list[str] = []
    chances = []

    def window_b(dlg: ReactionDialog):
        dlg.choose("va5", "closing_volley")
        assert not dlg.dice.uses_table() and dlg.ok_button.isEnabled()
        shown.append(dlg.result.toPlainText())
        chances.append(dlg.chances())

    Script(answer, (ChargeDialog, lambda d: d.set_units("bkn14", "va5")), (ReactionDialog, window_b))
    ev = play.declare_charge(c, None)
    assert_no_faces(shown[0])
    assert "The charge stalls" in shown[0] and "%" in shown[0]
    assert any(s.rule == "RULE-04-2.3" and "hits on 3+" in s.text for s in chances[0].rolls)
    outcome_committed(chances[0], ev.steps)
    assert c.game.dice.drawn == sum(len(r.dice) for r in ev.rolls) > 0


def to_phase_4(c) -> None:
    """From Phase 2 through Phase 3 to Phase 4, as the umpire presses Next phase."""
    for _ in range(2):
        assert c.run(NextPhase()) is not None
    assert c.battle.phase == Phase.MELEE


def charge_to_contact(c, answer, attacker: str, target: str, dice: str):
    """Phase 2: declare the charge and answer Window B with a closing volley and ``dice``."""

    def window_b(dlg: ReactionDialog):
        dlg.choose(target, "closing_volley")
        dlg.dice.type_dice(dice)
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    script = Script(
        answer, (ChargeDialog, lambda d: d.set_units(attacker, target)), (ReactionDialog, window_b)
    )
    ev = play.declare_charge(c, None)
    assert not script.steps and ev is not None
    return ev


def test_example_1_open_field_clash_through_the_application(play_game, answer):
    c = play_game(example_1())

    def charge(dlg: ChargeDialog):
        dlg.set_units("va4", "wis2")
        assert dlg.ok_button.isEnabled(), dlg.problems.text()

    def window_b(dlg: ReactionDialog):
        dlg.choose("wis2", "closing_volley")
        dlg.dice.type_dice("2 4 1 6 5 5")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        shown = " ".join(s.text for s in dlg.shown_steps())
        assert "resolved in Phase 4" in shown and "shock score" not in shown

    # Phase 2: the charge ends at contact; no melee dialog opens
    script = Script(answer, (ChargeDialog, charge), (ReactionDialog, window_b))
    ev = play.declare_charge(c, None)
    assert not script.steps and ev is not None and ev.action.type == "charge_approach"
    assert [(r.purpose, r.dice) for r in ev.rolls] == [
        ("closing volley", (2, 4, 1, 6, 5)),
        ("discipline check", (5,)),
    ]
    assert "the melee is resolved in Phase 4" in ev.summary
    assert any("(1 melee pending)" in s.text and s.rule == "RULE-06-1.1" for s in ev.steps)
    b = c.battle
    assert b.unit("va4").has(Marker.ENGAGED) and b.unit("wis2").has(Marker.ENGAGED)
    assert (b.unit("va4").stands, b.unit("wis2").stands) == (4, 5)
    assert b.brigade_of("va4").staff_pips == 1  # Garnett spent 1 Staff Pip
    (pm,) = pending_melees(b)
    to_phase_4(c)
    assert any("1 melee pending" in s.text for s in c.events()[-1].steps)

    def melee(dlg: MeleeDialog):
        assert dlg.pending_melee() == pm and dlg.setup.isHidden()
        assert dlg.pending_combo.currentText() == "4th Virginia against 2nd Wisconsin's front"
        att = dlg.side_labels[0].text()
        for line in ("Fresh", "Charging momentum", "Rebel Yell", "Brigadier Garnett attached", "Disordered"):
            assert line in att
        dlg.dice.type_dice("5 3")  # the Leader Loss die is missing: Garnett's unit lost a stand
        assert not dlg.ok_button.isEnabled()
        assert "leader loss roll needs 1 die" in dlg.problem_label.text()
        dlg.dice.type_dice("5 3 4 6")
        assert not dlg.ok_button.isEnabled() and "4 dice typed, but 3 are needed" in dlg.problem_label.text()
        dlg.dice.type_dice("5 3 4")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        assert "4th Virginia wins 11 to 9" in dlg.outcome.text()
        assert ">11<" in dlg.side_labels[0].text() and ">9<" in dlg.side_labels[1].text()

    # Phase 4: Game > Resolve melee lists the pending melee and resolves it
    script = Script(answer, (MeleeDialog, melee))
    ev = play.resolve_melee(c, None)
    assert not script.steps and ev is not None and ev.action.type == "resolve_pending_melee"
    b = c.battle
    wi, va = b.unit("wis2"), b.unit("va4")
    # "2nd Wisconsin loses 1 stand (reduced to 4 stands), receives a Disorder Marker, and retreats 6.0 inches"
    assert wi.stands == 4 and wi.disordered and wi.y == pytest.approx(20.0 - 6.0)
    # "reduced to 4 stands, 1 micro-hit carried over"; "consolidate 2.0" forward"
    assert (va.stands, va.micro_hits) == (4, 1) and va.y == pytest.approx(20.0 - 2.0)
    # "Garnett rolls on the Leader Loss table: rolls a 4—Unhurt!"
    g = b.brigade_of("va4").brigadier
    assert g.status == BrigadierStatus.ACTIVE and g.attached_to == "va4"
    assert [(r.purpose, r.dice) for r in ev.rolls] == [
        ("attacker shock roll", (5,)),
        ("defender shock roll", (3,)),
        ("leader loss roll", (4,)),
    ]
    assert ev.summary.endswith("(11 to 9)")
    assert ev.steps[-1].text.endswith("Unhurt") and ev.steps[-1].dice == (4,)
    assert pending_melees(b) == () and not va.has(Marker.ENGAGED)
    # undo takes the melee back: it is pending again, the units Engaged where they met
    c.undo()
    assert pending_melees(c.battle) == (pm,)
    assert c.battle.unit("wis2").y == pytest.approx(20.0) and c.battle.unit("va4").has(Marker.ENGAGED)
    # and back to Phase 2: the undo of the approach takes the contact and the pending melee away
    c.undo()
    c.undo()
    c.undo()
    assert c.battle.phase == Phase.MANEUVER and pending_melees(c.battle) == ()
    assert c.battle.unit("va4").stands == 5 and c.battle.brigade_of("va4").staff_pips == 2


def test_example_2_storming_a_fortified_stone_wall_through_the_application(play_game, answer):
    c = play_game(example_2())
    ev = charge_to_contact(c, answer, "ny14", "nc7", "1 3 5 2")
    assert [(r.purpose, r.dice) for r in ev.rolls] == [
        ("closing volley", (1, 3, 5, 2))
    ]  # no discipline check
    assert c.battle.unit("ny14").has(Marker.ENGAGED) and c.battle.unit("ny14").micro_hits == 1
    to_phase_4(c)

    def melee(dlg: MeleeDialog):
        assert "behind stone wall" in dlg.situation_label.text()
        dlg.dice.type_dice("4 4")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        assert "7th North Carolina wins 11 to 10" in dlg.outcome.text()

    Script(answer, (MeleeDialog, melee))
    ev = play.resolve_melee(c, None)
    ny, nc = c.battle.unit("ny14"), c.battle.unit("nc7")
    # "It loses 1 physical stand (reduced to 5 stands), receives a Disorder Marker, and retreats 6.0 inches"
    assert (ny.stands, ny.disordered) == (5, True) and ny.y == pytest.approx(20.0 + 6.0)
    assert (nc.stands, nc.y, nc.disordered) == (4, 20.0, False)
    assert ev.summary.endswith("(10 to 11)") and any(s.rule == "RULE-06-5.2" for s in ev.steps)
    assert c.run(NextPhase()) is not None and c.battle.phase == Phase.END


def test_rule_06_1_1_leaving_phase_4_with_a_pending_melee_is_refused(play_game, answer, qtbot):
    c = play_game(example_1())
    charge_to_contact(c, answer, "va4", "wis2", "2 4 1 6 5 5")
    to_phase_4(c)
    told: list[str] = []
    c.actionFailed.connect(told.append)
    assert c.run(NextPhase()) is None
    assert c.battle.phase == Phase.MELEE
    assert len(told) == 1 and "4th Virginia against 2nd Wisconsin" in told[0] and "RULE-06-1.1" in told[0]


def test_rule_06_1_1_the_umpire_may_put_a_pending_melee_off_by_a_ruling(play_game, answer):
    c = play_game(example_1())
    charge_to_contact(c, answer, "va4", "wis2", "2 4 1 6 5 5")
    to_phase_4(c)

    def melee(dlg: MeleeDialog):
        assert dlg.put_off_button.isVisibleTo(dlg)
        dlg.put_off_button.click()

    Script(answer, (MeleeDialog, melee))
    answer.reason("the light is failing")
    ev = play.resolve_melee(c, None)
    assert ev.action.type == "melee_ruling" and "the light is failing" in ev.summary
    assert answer.reasons and pending_melees(c.battle)[0].due_turn == 2
    assert c.run(NextPhase()) is not None and c.battle.phase == Phase.END


def test_rule_06_1_1_a_save_reopened_between_phase_2_and_phase_4_keeps_the_pending_melee(play_game, answer):
    c = play_game(example_1())
    charge_to_contact(c, answer, "va4", "wis2", "2 4 1 6 5 5")
    path = c.game.path
    (pm,) = pending_melees(c.battle)
    c.close()
    g = Game.open(path)
    try:
        assert pending_melees(g.battle) == (pm,) and g.battle.unit("va4").has(Marker.ENGAGED)
        for _ in range(2):
            g.do(NextPhase())
        from rules.dice import TableDice
        from rules.melee.melee import ResolvePendingMelee

        ev = g.do(ResolvePendingMelee(pm.id), TableDice([5, 3, 4]))
        assert ev.summary.endswith("(11 to 9)") and pending_melees(g.battle) == ()
        g.undo()
        assert pending_melees(g.battle) == (pm,)
    finally:
        g.close()


def test_example_1_window_b_typed_and_the_melee_rolled_by_the_program(play_game, answer):
    c = play_game(example_1())
    charge_to_contact(c, answer, "va4", "wis2", "2 4 1 6 5 5")
    to_phase_4(c)
    shown: list[str] = []

    chances = []

    def melee(dlg: MeleeDialog):
        assert not dlg.dice.uses_table()
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        shown.append(dlg.outcome.text() + dlg.result.toPlainText() + dlg.side_labels[0].text())
        chances.append(dlg.chances())

    Script(answer, (MeleeDialog, melee))
    drawn = c.game.dice.drawn
    ev = play.resolve_melee(c, None)
    a, d = ev.rolls[0].dice[0], ev.rolls[1].dice[0]
    # the program's shock dice are the game's own, counted in the save, and rolled on commit only
    assert c.game.dice.drawn == drawn + sum(len(r.dice) for r in ev.rolls)
    score = ev.summary.rsplit("(", 1)[1].rstrip(")")
    # both sides' scores are the die + 6, as in the example (11 = 5 + 6, 9 = 3 + 6)
    assert score.split(" to ") == [str(a + 6), str(d + 6)]
    # before it, the dialog showed the chances of the roll (equal scores before the die: 5/12 each
    # way, 1/6 a tie) and no die
    assert "4th Virginia wins 41.7%, 2nd Wisconsin wins 41.7%, tie 16.7%" in shown[0]
    assert_no_faces(shown[0])
    outcome_committed(chances[0], ev.steps)


def test_cancelling_window_b_declares_nothing(play_game, answer):
    c = play_game(example_a())
    Script(answer, (ChargeDialog, lambda d: d.set_units("bkn14", "va5")), (ReactionDialog, lambda d: REJECT))
    assert play.declare_charge(c, None) is None
    assert c.events() == [] and c.battle.brigade_of("bkn14").staff_pips == 2


def test_rule_06_1_3_a_charge_beyond_9in_cannot_be_declared_and_says_why(play_game, answer):
    b = example_a()
    b = b.with_unit(b.unit("bkn14").moved_to(30, 19.5))  # 9.5" from the Virginians

    def charge(dlg: ChargeDialog):
        dlg.set_units("bkn14", "va5")
        assert not dlg.ok_button.isEnabled()
        assert "Double-Quick Charge Range" in dlg.problems.text() and "RULE-06-1.3" in dlg.problems.text()
        return REJECT

    c = play_game(b)
    Script(answer, (ChargeDialog, charge))
    assert play.declare_charge(c, None) is None and c.events() == []


def test_rule_06_1_3_a_charge_at_exactly_9in_may_be_declared(play_game, answer):
    b = example_a()
    b = b.with_unit(b.unit("bkn14").moved_to(30, 19.0))

    def charge(dlg: ChargeDialog):
        dlg.set_units("bkn14", "va5")
        assert dlg.ok_button.isEnabled(), dlg.problems.text()
        return REJECT

    c = play_game(b)
    Script(answer, (ChargeDialog, charge))
    play.declare_charge(c, None)


def test_the_odds_are_worked_out_without_freezing_the_window(play_game, answer):
    """The exact odds take milliseconds: the dialog works them out as the umpire picks the units."""
    c = play_game(example_1())

    def charge(dlg: ChargeDialog):
        dlg.set_units("va4", "wis2")
        assert dlg.odds is not None and dlg.odds_ms < 1000
        # the chart's bars are the odds, in percent, and add up to the whole
        assert sum(p for _, p in dlg.chart.bars) == pytest.approx(100.0)
        assert dict(dlg.chart.bars)["Charger wins"] == pytest.approx(float(dlg.odds.p("attacker_wins")) * 100)
        dlg.assumed.setCurrentIndex(dlg.assumed.findData("none"))
        assert dlg.odds.p("stalled") == 0  # no volley, no check: the charge cannot stall
        return REJECT

    Script(answer, (ChargeDialog, charge))
    play.declare_charge(c, None)


def _breakthrough_battle():
    """Example 1's Virginians against a 1-stand remnant: a win by 4 or more destroys it."""
    b = example_1()
    return b.with_unit(replace(b.unit("wis2"), stands=1))


def _no_reaction_to_contact(c, answer):
    """Phase 2: the charge, the defender does not react, contact; then on to Phase 4."""

    def window_b(dlg: ReactionDialog):
        dlg.choose("wis2", None)
        dlg.dice.type_dice("")

    Script(answer, (ChargeDialog, lambda d: d.set_units("va4", "wis2")), (ReactionDialog, window_b))
    ev = play.declare_charge(c, None)
    assert ev.action.type == "charge_approach" and ev.rolls == ()
    to_phase_4(c)


@pytest.mark.parametrize("reply", [True, False])
def test_rule_06_4_5_a_tactical_breakthrough_offers_the_sweeping_advance(play_game, answer, reply):
    c = play_game(_breakthrough_battle())
    _no_reaction_to_contact(c, answer)

    def melee(dlg: MeleeDialog):
        dlg.dice.type_dice("6 1")  # 6 + 5 stands + 4 = 15 against 1 + 1 stand = 2: destroyed
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    Script(answer, (MeleeDialog, melee))
    answer.yes_no(reply)
    ev = play.resolve_melee(c, None)
    assert any(s.rule == "RULE-06-4.5" for s in ev.steps) and not c.battle.unit("wis2").in_play
    assert answer.questions and "sweeping" in answer.questions[0]
    va = c.battle.unit("va4")
    pips = c.battle.brigade_of("va4").staff_pips
    if reply:
        assert pips == 0 and va.y == pytest.approx(ev.changes.units["va4"][1]["y"] - 4.0)
        assert c.events()[-1].action.type == "sweeping_advance"
    else:
        assert pips == 1 and c.events()[-1].action.type == "resolve_pending_melee"


@pytest.mark.parametrize("margin", [3, 4])
def test_rule_06_4_5_a_breakthrough_needs_a_win_by_4(play_game, answer, margin):
    from rules.melee.melee import shock_sides

    b = _breakthrough_battle()
    va4 = replace(b.unit("va4"), traits=frozenset())  # no Rebel Yell, and Garnett stays behind
    b = b.with_unit(va4).with_brigade(replace(b.brigade_of("va4"), brigadier=Brigadier("Garnett")))
    c = play_game(b)
    _no_reaction_to_contact(c, answer)

    def melee(dlg: MeleeDialog):
        sa, sd, _ = shock_sides(dlg.battle, dlg.situation(), c.tables)
        da, dd = next(
            (x, y) for x in range(1, 7) for y in range(1, 7) if (x + sa.base) - (y + sd.base) == margin
        )
        dlg.dice.type_dice(f"{da} {dd}")

    Script(answer, (MeleeDialog, melee))
    answer.yes_no(False)
    ev = play.resolve_melee(c, None)
    assert not c.battle.unit("wis2").in_play
    assert ev.summary.endswith(")")
    assert bool(answer.questions) == (margin >= 4)


def test_rule_04_5_4_counter_charge_at_window_b_with_its_surge_typed_in(play_game, answer):
    """The 2nd Wisconsin (Veteran, Fresh) counter-charges with Meredith's reserved pip, surging 2.5"."""
    b = example_1()
    c = play_game(b.with_brigade(replace(b.brigade_of("wis2"), staff_pips_reserved=1)))

    def window_b(dlg: ReactionDialog):
        box = dlg.boxes["wis2"]
        assert box.radios[Reaction.COUNTER_CHARGE].isEnabled()
        assert "1 reserved Staff Pip" in box.labels[Reaction.COUNTER_CHARGE].text()
        assert "withdraw_in" not in box.spins and box.pip_box is None  # the charge takes only the surge
        dlg.choose("wis2", "counter_charge", surge_in=2.5)
        dlg.dice.type_dice("")  # a reserved pip: no check, no dice before the melee
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    Script(answer, (ChargeDialog, lambda d: d.set_units("va4", "wis2")), (ReactionDialog, window_b))
    ev = play.declare_charge(c, None)
    assert ev.action.reaction == "counter_charge" and ev.action.counter_charge_in == 2.5
    assert c.battle.brigade_of("wis2").staff_pips_reserved == 0
    assert any('surges 2.5" forward' in s.text for s in ev.steps)
    assert pending_melees(c.battle)[0].situation.counter_charge
    to_phase_4(c)

    def melee(dlg: MeleeDialog):
        assert "after a counter-charge" in dlg.situation_label.text()
        assert "Charging momentum" not in dlg.side_labels[0].text()  # lost to the counter-charge
        dlg.dice.type_dice("3 3")

    Script(answer, (MeleeDialog, melee))
    ev = play.resolve_melee(c, None)
    # 3 + 5 stands + Fresh, Rebel Yell, Garnett = 11 ; 3 + 5 stands + Fresh = 9
    assert ev.summary.endswith("(11 to 9)") and pending_melees(c.battle) == ()


# -- a charge at a skirmish screen: the unit behind it has its own Window B (RULE-04-4.4) ----------


def _screen_game(play_game, **parent_kw):
    from tests.rules.assault.test_assault import _screen_battle

    b = _screen_battle()
    b = replace(b.with_unit(replace(b.unit("wis2"), **parent_kw)), phase=Phase.MANEUVER)
    return play_game(b)


def test_rule_04_4_4_a_parent_with_smoke_gets_its_own_window_b_and_the_charge_is_played(play_game, answer):
    """The screen is overrun; the 2nd Wisconsin behind it has Smoke, so it may not fire its closing
    volley (RULE-04-2.2): its own dialog greys the volley and the charge goes on into contact."""
    c = _screen_game(play_game, markers=frozenset({Marker.SMOKE}))

    def screen(dlg: ReactionDialog):
        assert list(dlg.boxes) == ["sk"]
        dlg.choose("sk", None)  # no evade: overrun
        dlg.dice.type_dice("")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    def parent(dlg: ReactionDialog):
        assert list(dlg.boxes) == ["wis2"] and dlg.window.window.value == "b"
        assert not dlg.boxes["wis2"].radios[Reaction.CLOSING_VOLLEY].isEnabled()
        dlg.choose("wis2", None)
        dlg.dice.type_dice("")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    script = Script(
        answer,
        (ChargeDialog, lambda d: d.set_units("va4", "sk")),
        (ReactionDialog, screen),
        (ReactionDialog, parent),
    )
    ev = play.declare_charge(c, None)
    assert not script.steps and ev is not None and ev.action.type == "charge_approach"
    assert ev.action.then_reaction == "none" and ev.rolls == ()
    assert not c.battle.unit("sk").in_play
    (pm,) = pending_melees(c.battle)
    assert (pm.attacker, pm.defender) == ("va4", "wis2")


def test_rule_04_4_4_a_parent_that_may_fire_chooses_its_closing_volley_in_its_own_dialog(play_game, answer):
    c = _screen_game(play_game)

    def screen(dlg: ReactionDialog):
        dlg.choose("sk", "evade")
        dlg.dice.type_dice("")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    def parent(dlg: ReactionDialog):
        assert dlg.boxes["wis2"].radios[Reaction.CLOSING_VOLLEY].isEnabled()
        dlg.choose("wis2", "closing_volley")
        dlg.dice.type_dice("1 1 1 1 1")  # no hits: no check, contact
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    Script(
        answer,
        (ChargeDialog, lambda d: d.set_units("va4", "sk")),
        (ReactionDialog, screen),
        (ReactionDialog, parent),
    )
    ev = play.declare_charge(c, None)
    assert ev.action.reaction == "evade" and ev.action.then_reaction == "closing_volley"
    assert [(r.purpose, r.dice) for r in ev.rolls] == [("closing volley", (1, 1, 1, 1, 1))]
    assert c.battle.unit("sk").in_play and c.battle.unit("wis2").has(Marker.SMOKE)


def test_rule_06_4_5_the_sweep_reaches_a_second_unit_and_its_melee_counts_it_disordered(play_game, answer):
    """The Virginians break through and sweep into the 6th Wisconsin 4" behind: the melee dialog opens
    for the second melee, fought at once with the defender counting as Disordered."""
    b = _breakthrough_battle()
    wis6 = replace(b.unit("wis2"), id="wis6", name="6th Wisconsin", stands=5, y=15.0)
    c = play_game(b.with_unit(wis6))
    _no_reaction_to_contact(c, answer)

    def melee(dlg: MeleeDialog):
        dlg.dice.type_dice("6 1")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    def second(dlg: MeleeDialog):
        assert dlg.sweep_victor == "va4" and dlg.defender.currentData() == "wis6"
        assert "counts as Disordered" in dlg.side_labels[1].text()
        dlg.dice.type_dice("3 3")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    Script(answer, (MeleeDialog, melee), (MeleeDialog, second))
    answer.yes_no(True)
    ev = play.resolve_melee(c, None)
    assert any(s.rule == "RULE-06-4.5" for s in ev.steps)
    assert "6th Wisconsin" in answer.questions[0]
    last = c.events()[-1]
    assert last.action.type == "sweeping_advance" and last.action.defender_id == "wis6"
    assert [r.dice for r in last.rolls][:2] == [(3,), (3,)]
    assert c.battle.brigade_of("va4").staff_pips == 0
