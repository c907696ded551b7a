"""The procedure of play without Qt: the worked examples step by step, group marches front-most
first, answers the rules refuse, and a request abandoned part way (nothing to commit).

Each test drives :mod:`rules.procedure` as the window and the command line do: it reads the
interruption (the window, the defenders, every reaction with its reasons) and answers it.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules import procedure
from rules.battle.words import Marker, Phase
from rules.battlefield.geometry import distance_in
from rules.dice import SeededDice
from rules.errors import DiceError, IllegalAction, RulesError
from rules.melee.melee import pending_melees
from rules.procedure import Answer, Choice
from rules.reactions.declare import Reaction, Window
from rules.reactions.triggers import Trigger
from rules.tables import load_tables
from tests.rules.melee.test_examples_ch06 import example_1, example_2
from tests.rules.reactions.test_examples_ch04 import example_b, example_c

T = load_tables()


def dice() -> SeededDice:
    return SeededDice(7)


def example_a():
    """Chapter 04, Example A, with the Brooklyn 8.0" from the Virginians ("8.0" separation")."""
    from tests.rules.reactions.test_examples_ch04 import example_a as at_the_line

    b = at_the_line()
    return replace(b.with_unit(b.unit("bkn14").moved_to(30, 18)), phase=Phase.MANEUVER)


def c_march(x: float = 12.0):
    """Example C: the Georgians (assault column, 6" a turn) march east across the Wisconsin's front."""
    b = replace(example_c(), phase=Phase.MANEUVER)
    return b.with_unit(b.unit("ga8").moved_to(x, 24))


def types(step) -> list[str]:
    return [p.action.type for p in step.actions]


# -- Trigger Window A ----------------------------------------------------------------------------


def test_example_c_the_march_stops_at_each_window_and_the_natural_6_halves_what_is_left():
    p = procedure.march(c_march(), T, dice(), "ga8", 40.0, 24.0)
    # the Georgians start in the Wisconsin's flank zone: Refuse the Flank is open (a 4+ check, no
    # pip); Opportunity Fire is not, beyond 8" (RULE-04-3.1)
    w = p.pending
    assert w.kind == Window.A and w.mover == "ga8" and [d.defender for d in w.defenders] == ["wis2"]
    (d,) = w.defenders
    assert d.trigger == Trigger.FLANK_ZONE
    assert d.option(Reaction.REFUSE_FLANK).eligible
    assert not d.option(Reaction.OPPORTUNITY_FIRE).eligible
    assert any(r.rule == "RULE-04-3.1" for r in d.option(Reaction.OPPORTUNITY_FIRE).reasons)
    assert w.battle.unit("ga8").x == 12.0
    p.answer(Answer.declined(w))
    # into the forward arc within 8": the march has stopped at the trigger point
    w = p.pending
    assert w.defenders[0].trigger == Trigger.FORWARD_ARC
    assert w.battle.unit("ga8").x == pytest.approx(13.97, abs=0.01)
    p.answer(Answer.declined(w))  # the Wisconsin waits for short range (RULE-04-3.3)
    w = p.pending
    assert w.defenders[0].trigger == Trigger.FORWARD_ARC_SHORT
    assert w.window.along_in == pytest.approx(5.1, abs=0.01) and w.battle.unit("ga8").x == pytest.approx(
        17.1, abs=0.01
    )
    assert p.answer(Answer((Choice("wis2", Reaction.OPPORTUNITY_FIRE),), (1, 4, 4, 6, 2))) is None
    step = p.result
    assert types(step) == [
        "decline_reaction",
        "move_unit",
        "decline_reaction",
        "move_unit",
        "declare_reaction",
        "move_unit",
    ]
    assert [a.dice for a in step.actions] == [None, None, None, None, (1, 4, 4, 6, 2), None]
    g = step.battle.unit("ga8")
    # "3 hits = 1 stand removed, 1 hit tracked on micro-dice. The natural 6 inflicts a Disorder Marker."
    assert (g.stands, g.micro_hits) == (4, 1) and g.disordered
    # the 0.9" left of its 6" is halved (RULE-04-3.5)
    assert g.x == pytest.approx(17.1 + 0.9 / 2, abs=0.02)
    assert step.battle.unit("wis2").has(Marker.SMOKE)


def test_example_b_refusing_the_flank_with_the_reserved_pip_and_the_march_goes_on():
    b = replace(example_b(), phase=Phase.MANEUVER)
    b = b.with_unit(b.unit("nc28").moved_to(46, 28))
    p = procedure.march(b, T, dice(), "nc28", 40.0, 28.0, 270.0)
    (d,) = p.pending.defenders
    opt = d.option(Reaction.REFUSE_FLANK)
    assert d.defender == "ind19" and opt.eligible and opt.cost.kind == "reserved_pip"
    p.answer(Answer((Choice("ind19", Reaction.REFUSE_FLANK, {"use_reserved_pip": True}),)))
    step = p.result
    assert types(step) == ["move_unit", "declare_reaction", "move_unit"]
    assert step.battle.unit("ind19").has(Marker.REFUSED_RIGHT)
    assert step.battle.brigade_of("ind19").staff_pips_reserved == 0
    assert (step.battle.unit("nc28").x, step.battle.unit("nc28").y) == (40.0, 28.0)


def test_a_march_that_opens_no_window_is_one_action():
    p = procedure.march(c_march(0.0), T, dice(), "ga8", 40.0, 24.0)
    assert p.pending is None and types(p.result) == ["move_unit"]
    assert p.result.battle.unit("ga8").x == 6.0  # the 6" of an assault column; the windows lie beyond


@pytest.mark.parametrize(
    "battle, why",
    [
        (replace(c_march(), phase=Phase.RANGED), "RULE-04-1.2"),
        (replace(c_march(), active_side="union"), "RULE-04-1.2"),
    ],
)
def test_rule_04_1_2_only_the_active_side_marches_in_its_phase_2(battle, why):
    with pytest.raises(IllegalAction) as err:
        procedure.march(battle, T, dice(), "ga8", 40.0, 24.0)
    assert why in str(err.value)
    # asked as a move, it is the umpire's placement and opens no window
    p = procedure.move(battle, T, dice(), "ga8", 40.0, 24.0)
    assert p.pending is None and p.result.actions[0].action.mode == "place"


def test_a_march_off_the_table_is_refused_before_anything_is_done():
    with pytest.raises(IllegalAction, match="off the"):
        procedure.march(c_march(), T, dice(), "ga8", 400.0, 24.0)


# -- answers the rules refuse leave the procedure where it was ------------------------------------


def test_a_reaction_the_defender_may_not_take_is_refused_with_its_rule_and_can_be_answered_again():
    p = procedure.march(c_march(), T, dice(), "ga8", 40.0, 24.0)
    w = p.pending
    with pytest.raises(IllegalAction, match="RULE-04-3.1"):
        p.answer(Answer((Choice("wis2", Reaction.OPPORTUNITY_FIRE),)))
    assert p.pending is w
    with pytest.raises(IllegalAction, match="one choice for each of: 2nd Wisconsin"):
        p.answer(Answer(()))
    p.answer(Answer.declined(w))
    assert p.pending is not w


def test_dice_that_do_not_fit_the_answer_are_refused_and_nothing_moves_on():
    p = procedure.march(c_march(), T, dice(), "ga8", 40.0, 24.0)
    p.answer(Answer.declined(p.pending))
    p.answer(Answer.declined(p.pending))
    w = p.pending
    fire = (Choice("wis2", Reaction.OPPORTUNITY_FIRE),)
    with pytest.raises(DiceError):
        p.answer(Answer(fire, (1, 4)))  # too few
    with pytest.raises(DiceError, match="rolls 5"):
        p.answer(Answer(fire, (1, 4, 4, 6, 2, 3)))  # one too many
    assert p.pending is w
    p.answer(Answer(fire, (1, 4, 4, 6, 2)))
    assert p.done


def test_the_program_dice_the_procedure_rolls_are_those_the_game_rolls_next():
    seeded = SeededDice(7, 40)
    p = procedure.march(c_march(), T, seeded, "ga8", 40.0, 24.0)
    p.answer(Answer.declined(p.pending))
    p.answer(Answer.declined(p.pending))
    p.answer(Answer((Choice("wis2", Reaction.OPPORTUNITY_FIRE),)))
    fired = [a for a in p.result.actions if a.action.type == "declare_reaction"]
    assert fired[0].dice is None  # the program's dice
    assert seeded.drawn == 40  # the game's dice are not used up by the procedure: the commit rolls them
    assert p.dice_rolled == 5  # the volley's five dice, in the procedure's own copy


def test_a_procedure_abandoned_part_way_has_nothing_to_commit():
    b = c_march()
    p = procedure.march(b, T, dice(), "ga8", 40.0, 24.0)
    p.answer(Answer.declined(p.pending))
    assert p.result is None and not p.done
    with pytest.raises(procedure.Cancelled):
        p.run(lambda inter: None)
    assert b.unit("ga8").x == 12.0  # the battle it was given is untouched (it is frozen)


# -- group marches -------------------------------------------------------------------------------


def brigade(ga9_at=(4.0, 24.0)):
    b = c_march()
    ga9 = replace(b.unit("ga8"), id="ga9", name="9th Georgia", x=ga9_at[0], y=ga9_at[1])
    return b.with_unit(ga9)


def test_a_group_marches_front_most_first_each_through_its_own_windows():
    p = procedure.group_march(brigade(), T, dice(), [("ga9", 10.0, 24.0, 90.0), ("ga8", 18.0, 24.0, 90.0)])
    seen = []
    while p.pending is not None:
        w = p.pending
        seen.append((w.mover, w.defenders[0].trigger.value, w.position, w.order))
        p.answer(Answer.declined(w))
    assert [s[:2] for s in seen] == [
        ("ga8", "flank_zone"),
        ("ga8", "forward_arc"),
        ("ga8", "forward_arc_short"),
        ("ga9", "flank_zone"),
    ]
    assert {s[3] for s in seen} == {("8th Georgia", "9th Georgia")}
    assert [s[2] for s in seen] == [1, 1, 1, 2]
    moved = [a.action.unit_id for a in p.result.actions if a.action.type == "move_unit"]
    assert moved[0] == "ga8" and moved[-1] == "ga9"


def test_front_first_orders_by_the_way_the_group_goes():
    b = brigade(ga9_at=(6.0, 20.0))
    east = [("ga9", 16.0, 20.0, 90.0), ("ga8", 22.0, 24.0, 90.0)]
    assert [m[0] for m in procedure.front_first(b, east)] == ["ga8", "ga9"]
    west = [("ga9", -4.0, 20.0, 90.0), ("ga8", 2.0, 24.0, 90.0)]
    assert [m[0] for m in procedure.front_first(b, west)] == ["ga9", "ga8"]


def test_a_unit_of_the_group_the_rules_refuse_is_left_out_with_the_reason_and_the_rest_march():
    b = brigade()
    p = procedure.group_march(
        b, T, dice(), [("ga9", 400.0, 24.0, 90.0), ("ga8", 8.0, 24.0, 90.0), ("nope", 1, 1)]
    )
    while p.pending is not None:
        p.answer(Answer.declined(p.pending))
    assert any("off the" in r for r in p.result.refused)
    assert any("no unit 'nope'" in r for r in p.result.refused)
    assert {a.action.unit_id for a in p.result.actions if a.action.type == "move_unit"} == {"ga8"}


# -- a move: a march or the umpire's placement, as the rules' legality says --------------------------


def test_a_move_in_the_units_phase_2_is_a_march_and_out_of_it_a_placement_with_no_question():
    p = procedure.move(c_march(), T, dice(), "ga8", 40.0, 24.0)
    assert p.marching == ("8th Georgia",) and p.pending.kind == Window.A
    # the Wisconsin, not of the side to act: placed where it was moved, no window, no reason asked
    p = procedure.move(c_march(), T, dice(), "wis2", 40.0, 40.0)
    assert p.marching == () and p.done
    (placed,) = p.result.actions
    assert (placed.action.mode, placed.action.reason, placed.action.x) == ("place", "", 40.0)


def test_a_placement_where_the_unit_would_march_asks_for_the_umpires_reason():
    p = procedure.move(c_march(), T, dice(), "ga8", 40.0, 24.0, place=True)
    asked = p.pending
    assert isinstance(asked, procedure.ReasonAsked) and asked.units == ("ga8",)
    assert asked.what == "placing 8th Georgia outside the movement rules"
    with pytest.raises(IllegalAction, match="needs the umpire's reason"):
        p.answer("  ")  # no reason: refused, and still asked
    with pytest.raises(IllegalAction):
        p.answer(Answer(()))  # a window's answer is no reason
    assert p.pending is asked
    assert p.answer("set down in the wrong place") is None
    (placed,) = p.result.actions
    assert (placed.action.mode, placed.action.reason) == ("place", "set down in the wrong place")
    # cancelled (no answer): nothing to commit
    p = procedure.move(c_march(), T, dice(), "ga8", 40.0, 24.0, place=True)
    with pytest.raises(procedure.Cancelled):
        p.run(lambda asked: None)
    # given up front, as the command line's --reason gives it: no question
    p = procedure.move(c_march(), T, dice(), "ga8", 40.0, 24.0, place=True, reason="ruled")
    assert p.done and p.result.actions[0].action.reason == "ruled"


def test_a_march_the_rules_refuse_is_refused_not_placed():
    b = c_march()
    spent = procedure.march(b, T, dice(), "ga8", 40.0, 24.0).run(Answer.declined).battle
    with pytest.raises(IllegalAction, match="whole movement allowance"):
        procedure.move(spent, T, dice(), "ga8", 30.0, 30.0)
    with pytest.raises(IllegalAction, match="no unit 'ga99'"):
        procedure.move(b, T, dice(), "ga99", 30.0, 30.0)


def test_the_moves_of_a_drag_one_unit_is_the_command_lines_move():
    for place, reason in ((False, None), (True, "ruled")):
        drag = [("ga8", 40.0, 24.0, 90.0)]
        one = procedure.move_units(c_march(), T, dice(), drag, place=place, reason=reason)
        cli = procedure.move(c_march(), T, dice(), "ga8", 40.0, 24.0, 90.0, place=place, reason=reason)
        one_step = one.run(Answer.declined)
        assert one_step.actions == cli.run(Answer.declined).actions and one_step.label == cli.label


def test_a_group_placed_by_hand_asks_one_reason_and_leaves_out_what_cannot_be_placed():
    moves = [("ga9", 40.0, 30.0, 90.0), ("ga8", 400.0, 24.0, 90.0), ("nope", 1, 1, 0)]
    p = procedure.move_units(brigade(), T, dice(), moves, place=True)
    assert p.pending.what == "placing 9th Georgia, 8th Georgia outside the movement rules"
    p.answer("the brigade was set down in the wrong place")
    assert [(a.action.unit_id, a.action.mode) for a in p.result.actions] == [("ga9", "place")]
    assert any("off the" in r for r in p.result.refused)
    assert any("no unit 'nope'" in r for r in p.result.refused)
    # out of the side's Phase 2 a group is placed with no question
    moves = [("ga9", 40.0, 30.0, 90.0), ("ga8", 30.0, 24.0, 90.0)]
    p = procedure.move_units(replace(brigade(), phase=Phase.RANGED), T, dice(), moves)
    assert p.done and p.marching == () and [a.action.mode for a in p.result.actions] == ["place", "place"]


# -- Trigger Window B: charges -------------------------------------------------------------------


def test_example_a_the_charge_halts_at_the_4in_line_and_the_closing_volley_stalls_it():
    b = example_a()
    p = procedure.charge(b, T, dice(), "bkn14", "va5")
    w = p.pending
    assert w.kind == Window.B and w.extras == ("surge_in", "withdraw_in")
    assert distance_in(w.battle.unit("bkn14"), w.battle.unit("va5"), T) == pytest.approx(4.0)
    (d,) = w.defenders
    assert d.option(Reaction.CLOSING_VOLLEY).eligible
    assert not d.option(Reaction.COUNTER_CHARGE).eligible  # no reserved pip, no Rebel Yell
    with pytest.raises(DiceError, match="discipline check needs 1 die"):
        p.answer(Answer((Choice("va5", Reaction.CLOSING_VOLLEY),), (3, 3, 5, 2, 6)))
    p.answer(Answer((Choice("va5", Reaction.CLOSING_VOLLEY),), (3, 3, 5, 2, 6, 2)))
    step = p.result
    assert types(step) == ["charge_approach"] and step.actions[0].dice == (3, 3, 5, 2, 6, 2)
    bkn = step.battle.unit("bkn14")
    # "halts 2.0" away from the Virginia line, reduced to 3 stands, Disordered"
    assert bkn.stands == 3 and bkn.disordered
    assert distance_in(bkn, step.battle.unit("va5"), T) == pytest.approx(2.0)
    assert step.battle.unit("va5").has(Marker.SMOKE)


def test_a_declined_window_b_is_logged_before_the_charge():
    p = procedure.charge(example_a(), T, dice(), "bkn14", "va5")
    p.answer(Answer.declined(p.pending))
    assert types(p.result) == ["decline_reaction", "charge_approach"]


def test_example_1_the_charge_ends_in_contact_and_leaves_the_melee_for_phase_4():
    p = procedure.charge(example_1(), T, dice(), "va4", "wis2")
    p.answer(Answer((Choice("wis2", Reaction.CLOSING_VOLLEY),), (2, 4, 1, 6, 5, 5)))
    b = p.result.battle
    assert b.unit("va4").has(Marker.ENGAGED) and b.unit("wis2").has(Marker.ENGAGED)
    assert (b.unit("va4").stands, b.unit("wis2").stands) == (4, 5)
    (pm,) = pending_melees(b)
    assert (pm.attacker, pm.defender) == ("va4", "wis2")


def test_example_2_the_column_reaches_the_stone_wall_through_the_volley():
    p = procedure.charge(example_2(), T, dice(), "ny14", "nc7")
    p.answer(Answer((Choice("nc7", Reaction.CLOSING_VOLLEY),), (1, 3, 5, 2)))  # no discipline check
    b = p.result.battle
    assert b.unit("ny14").has(Marker.ENGAGED) and b.unit("ny14").micro_hits == 1


def test_rule_06_1_3_a_charge_beyond_its_range_is_refused_before_anything_is_done():
    b = example_a()
    b = b.with_unit(b.unit("bkn14").moved_to(30, 30))  # 20" off
    with pytest.raises(RulesError, match="RULE-06-1"):
        procedure.charge(b, T, dice(), "bkn14", "va5")


def test_a_charge_at_a_screen_asks_the_screen_then_the_unit_behind_it():
    """RULE-04-4.4: the screen evades or is overrun; the charge goes on into the unit behind it,
    whose own Window B opens at its 4.0" line, and each "No reaction" is logged."""
    from tests.rules.assault.test_assault import _screen_battle

    b = _screen_battle()
    b = replace(b.with_unit(b.unit("wis2").with_markers(add=[Marker.SMOKE])), phase=Phase.MANEUVER)
    p = procedure.charge(b, T, dice(), "va4", "sk")
    first = p.pending
    (d,) = first.defenders
    assert d.defender == "sk" and d.option(Reaction.EVADE).eligible
    p.answer(Answer.declined(first))  # the screen takes no reaction: it is overrun
    second = p.pending
    (d2,) = second.defenders
    assert d2.defender == "wis2" and not d2.option(Reaction.CLOSING_VOLLEY).eligible  # Smoke (RULE-04-2.2)
    assert second.battle.unit("va4") != first.battle.unit("va4")  # the charger is at the parent's line
    p.answer(Answer.declined(second))
    assert types(p.result) == ["decline_reaction", "decline_reaction", "charge_approach"]
    assert [a.action.defender_id for a in p.result.actions[:2]] == ["sk", "wis2"]
    assert not p.result.battle.unit("sk").in_play


# -- every flank zone a march enters opens its window (RULE-04-5.1, RULE-04-1.4) ----------------


def test_rule_04_5_1_a_march_across_both_flank_zones_stops_at_two_windows_and_the_second_may_be_refused():
    from tests.rules.reactions.test_triggers import across_both_flank_zones

    b, t = across_both_flank_zones()
    p = procedure.march(b, t, dice(), "nc28", 16, 26)
    first = p.pending
    (d,) = first.defenders
    assert (d.trigger, d.threat.flank) == (Trigger.FLANK_ZONE, "right")
    p.answer(Answer.declined(first))  # "No reaction" does not use up the one reaction (RULE-04-1.4)
    second = p.pending
    (d,) = second.defenders
    assert (d.trigger, d.threat.flank) == (Trigger.FLANK_ZONE, "left")
    assert second.window.along_in > first.window.along_in
    assert second.battle.unit("nc28").x < first.battle.unit("nc28").x  # farther along, to the west
    assert p.answer(Answer((Choice("ind19", Reaction.REFUSE_FLANK),))) is None
    refusal = [a.action for a in p.result.actions if a.action.type == "declare_reaction"]
    assert len(refusal) == 1 and refusal[0].flank == "left"
    assert p.result.battle.unit("nc28").x == 16


def test_rule_04_1_4_a_regiment_that_refused_at_the_first_flank_zone_is_not_asked_at_the_second():
    """ "One reaction per triggering enemy action": the march is one action, so the second zone's
    window does not ask a regiment that has already reacted to it."""
    from tests.rules.reactions.test_triggers import across_both_flank_zones

    b, t = across_both_flank_zones()
    p = procedure.march(b, t, dice(), "nc28", 16, 26)
    assert p.pending.defenders[0].threat.flank == "right"
    assert p.answer(Answer((Choice("ind19", Reaction.REFUSE_FLANK),))) is None
    assert types(p.result) == ["move_unit", "declare_reaction", "move_unit"]


@pytest.mark.parametrize("chosen", [4.0, 6.0])
def test_rule_04_4_3_a_screen_charged_at_window_b_evades_the_distance_chosen(chosen):
    """At Window B too the screen "executes a 4.0"–6.0" withdrawal move directly to the rear", as far
    as the umpire chose, and the charge goes on into the unit behind it (RULE-04-4.4)."""
    import math

    from tests.rules.assault.test_assault import _screen_battle

    b = _screen_battle()
    b = replace(b.with_unit(b.unit("wis2").with_markers(add=[Marker.SMOKE])), phase=Phase.MANEUVER)
    before = b.unit("sk")
    p = procedure.charge(b, T, dice(), "va4", "sk")
    assert "withdraw_in" in p.pending.extras
    p.answer(Answer((Choice("sk", Reaction.EVADE, {"withdraw_in": chosen}),)))
    if p.pending is not None:
        p.answer(Answer.declined(p.pending))
    approach = p.result.actions[-1].action
    assert approach.type == "charge_approach" and approach.evade_in == chosen
    after = p.result.battle.unit("sk")
    assert math.dist((before.x, before.y), (after.x, after.y)) == pytest.approx(chosen)


# -- a request stopped after the program's dice rolled (fair play) -------------------------------


def test_stopped_before_the_program_rolls_anything_nothing_is_kept():
    p = procedure.group_march(brigade(), T, dice(), [("ga9", 10.0, 24.0, 90.0), ("ga8", 18.0, 24.0, 90.0)])
    p.answer(Answer.declined(p.pending))  # "No reaction" rolls nothing
    assert p.dice_rolled == 0 and p.kept() is None
    with pytest.raises(procedure.Cancelled):
        p.run(lambda inter: None)


def test_stopped_after_the_program_rolled_for_a_window_what_it_decided_stands():
    """The Wisconsin refuses its flank against the 8th Georgia with a 4+ check the program rolls; the
    window of the 9th Georgia's march is then cancelled. Trying again would roll the same face (the
    game's dice are seeded), so what was rolled stands: the step up to the answered window is kept,
    and the march stops there."""
    b = brigade()
    p = procedure.group_march(b, T, dice(), [("ga9", 10.0, 24.0, 90.0), ("ga8", 18.0, 24.0, 90.0)])
    first = p.pending
    assert first.mover == "ga8" and first.defenders[0].trigger == Trigger.FLANK_ZONE
    p.answer(Answer((Choice("wis2", Reaction.REFUSE_FLANK),)))
    assert p.dice_rolled == 1
    assert p.pending.mover == "ga9"  # the 9th Georgia's march is a triggering action of its own
    kept = p.run(lambda inter: None)
    assert types(kept) == ["declare_reaction"] and kept.actions[0].dice is None
    assert "stopped at Trigger Window A" in kept.stopped and "the program's dice had rolled" in kept.stopped
    assert kept.battle.unit("ga8").x == first.battle.unit("ga8").x  # where the window stopped it
    assert kept.battle.unit("ga9") == b.unit("ga9")  # the next unit had not yet been decided by any die
    # committed with the game's own dice, the step comes out exactly as it was shown
    from rules.actions import resolve

    game_dice, battle = dice(), b
    for planned in kept.actions:
        battle = resolve(battle, planned.action, game_dice, T).battle_after
    assert battle == kept.battle


def test_windows_at_the_same_point_are_asked_once_each_defender_once_with_every_reaction_its_triggers_open():
    """The Georgians start inside the Wisconsin's forward arc and its short range at once: the two
    triggers open at the same point, and the march asks there once. The Wisconsin is asked once,
    with every reaction either trigger offers, each answering its own trigger's threat; declined,
    it is not asked again at that point (RULE-04-1.4: one reaction to the move)."""
    b = c_march(18.0)
    p = procedure.march(b, T, dice(), "ga8", 40.0, 24.0)
    w = p.pending
    assert [d.defender for d in w.defenders] == ["wis2"] and w.window.along_in == 0.0
    (d,) = w.defenders
    assert {t for t, _ in d.whys} == {Trigger.FORWARD_ARC, Trigger.FORWARD_ARC_SHORT}
    assert d.option(Reaction.OPPORTUNITY_FIRE).eligible
    # no second window where the first was (its flank zone, 11" along, is beyond the 6" march)
    assert p.answer(Answer.declined(w)) is None
    assert types(p.result) == ["decline_reaction", "move_unit"]
