"""Legality asked of the rules: what a unit may do now, every refusal with its reason and rule.

The demo battle of Oak Ridge (``storage.scenario.load_demo``) and the worked examples of chapters 04
and 06 are the positions; each answer is checked against the rule that gives it, and against the
resolution of the action itself where there is one (what is legal resolves, what is refused does
not).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.actions import MoveUnit, mark_stalled, remaining_move_in, resolve
from rules.battle.battle import Battle
from rules.battle.words import Formation, Marker, Phase, UnitKind, Weapon
from rules.dice import TableDice
from rules.errors import IllegalAction, InvariantError
from rules.legality import (
    Legal,
    Refusal,
    allowed,
    charge_targets,
    engaged_pairs,
    garrison_candidates,
    garrison_refusal,
    march_refusal,
    may_fire,
    off_table,
    reactions_open,
    refused,
    shoot_firers,
    shoot_targets,
)
from rules.shooting.shoot import Shoot
from rules.tables import load_tables
from storage.scenario import load_demo
from tests.rules.conftest import battle_of, foot, guns, rect
from tests.rules.melee.test_examples_ch06 import example_1
from tests.rules.reactions.test_examples_ch04 import example_a, example_b

T = load_tables()


def demo(phase: Phase) -> Battle:
    """Oak Ridge, turn 1, the Confederates to act, in ``phase``."""
    return replace(load_demo(), phase=phase)


def by_id(options) -> dict:
    return {o.unit_id: o for o in options}


# -- marching (RULE-04-1.2, the movement allowance) ----------------------------------------------


def test_rule_04_1_2_a_unit_out_of_its_sides_phase_2_may_not_march_and_is_placed():
    b = demo(Phase.COMMAND)
    va4 = march_refusal(b, "va4", T)
    assert va4.rule == "RULE-04-1.2" and va4.action == "place"  # a move of it is a placement
    assert "marches only in its own side's Phase 2" in va4.reason
    assert "umpire places the unit" in va4.reason
    # in Phase 2 the Confederates march; the Union, not the side to act, is placed
    b2 = demo(Phase.MANEUVER)
    assert march_refusal(b2, "va4", T) is None
    wis2 = march_refusal(b2, "wis2", T)
    assert wis2.action == "place" and wis2.rule == "RULE-04-1.2"


def test_the_march_allowance_is_the_formations_rate_and_what_is_left_of_it_this_turn():
    b = demo(Phase.MANEUVER)
    line = float(T.value("movement.rate.line"))
    column = float(T.value("movement.rate.assault_column"))
    assert remaining_move_in(b, "va4", T) == line
    assert remaining_move_in(b, "ga8", T) == column  # the 8th Georgia is in assault column
    # the 4th Virginia marches 2" straight ahead: that much of its allowance is spent
    va4 = b.unit("va4")
    after = resolve(b, MoveUnit("va4", va4.x, va4.y - 2.0, mode="march"), TableDice([]), T).battle
    assert march_refusal(after, "va4", T) is None
    assert remaining_move_in(after, "va4", T) == pytest.approx(line - 2.0)


def test_a_unit_that_has_used_its_whole_allowance_may_not_march_with_the_rate_cited():
    b = demo(Phase.MANEUVER)
    va4 = b.unit("va4")
    rate = T.entry("movement.rate.line")
    after = resolve(b, MoveUnit("va4", va4.x, va4.y - rate.value, mode="march"), TableDice([]), T).battle
    spent = march_refusal(after, "va4", T)
    assert remaining_move_in(after, "va4", T) == 0.0
    assert "has used its whole movement allowance" in spent.reason
    assert spent.rule == rate.citation
    # it is still a march (a drag of it is refused, not a placement)
    assert spent.action is None
    with pytest.raises(IllegalAction, match="whole movement allowance"):
        resolve(after, MoveUnit("va4", va4.x, va4.y - 7.0, mode="march"), TableDice([]), T)


def test_rule_06_2_5_a_charger_that_stalled_may_not_march_again_this_turn():
    b = mark_stalled(demo(Phase.MANEUVER), "va5")
    stalled = march_refusal(b, "va5", T)
    assert stalled.rule == "RULE-06-2.5" and stalled.action is None
    assert "cannot move or attack further" in stalled.reason


def test_a_destroyed_unit_does_not_march():
    b = demo(Phase.MANEUVER)
    b = b.with_unit(replace(b.unit("va4"), stands=0))
    refusal = march_refusal(b, "va4", T)
    assert "destroyed" in refusal.reason and refusal.action == "place"


def test_a_unit_the_battle_does_not_have_is_refused_as_a_march():
    refusal = march_refusal(demo(Phase.MANEUVER), "va99", T)
    assert str(refusal) == "there is no unit 'va99'" and refusal.action is None


def test_a_march_to_a_point_off_the_table_is_refused_before_it_starts_as_a_move_is():
    b = demo(Phase.MANEUVER)
    assert off_table(b, "va4", 30.0, 20.0) is None
    assert march_refusal(b, "va4", T, (30.0, 20.0)) is None
    r = march_refusal(b, "va4", T, (80.0, 20.0))
    assert r is not None and r.unit_id == "va4" and r.action is None
    assert str(r) == '4th Virginia cannot march to (80, 20): it is off the 72" x 48" table'
    assert str(off_table(b, "va4", 30.0, -1.0)).endswith('is off the 72" x 48" table')
    # and a point that is no point at all
    assert str(march_refusal(b, "va4", T, ("east", 20.0))).endswith("not a point on the table")
    assert str(march_refusal(b, "va4", T, (float("nan"), 20.0))).endswith("not a point on the table")
    # the move itself refuses the same point, by the same check
    with pytest.raises(IllegalAction, match=r'\(80, 20\) is off the 72" x 48" table'):
        resolve(b, MoveUnit("va4", 80.0, 20.0, mode="march"), TableDice([]), T)
    # a unit that may not march at all is refused for that first, wherever it goes
    assert march_refusal(b, "wis2", T, (80.0, 20.0)).rule == "RULE-04-1.2"


# -- shooting (Phase 3) ---------------------------------------------------------------------------


def test_only_units_that_can_fire_are_firers_in_phase_3():
    b = demo(Phase.RANGED)
    firers = shoot_firers(b, T)
    assert [o.unit_id for o in firers] == [u.id for u in b.oob.in_play("csa")]
    assert all(o.allowed for o in firers)
    # a unit that fired Opportunity Fire this turn may not fire in this Phase 3 (RULE-04-3.4)
    b = b.with_unit(b.unit("va5").with_markers(add=[Marker.FIRED, Marker.SMOKE]))
    fired = by_id(shoot_firers(b, T))["va5"]
    assert isinstance(fired, Refusal) and fired.rule == "RULE-04-3.4"
    assert "va5" not in [o.unit_id for o in allowed(shoot_firers(b, T))]
    # ... nor a unit climbing out of a sunken road (RULE-03-2.5)
    b = b.with_unit(b.unit("va4").with_markers(add=[Marker.CLIMBING]))
    assert may_fire(b, "va4", T).rule == "RULE-03-2.5"


def test_no_unit_fires_a_volley_outside_its_sides_phase_3():
    for phase in (Phase.COMMAND, Phase.MANEUVER):
        b = demo(phase)
        assert allowed(shoot_firers(b, T)) == []
        assert "Phase 3" in may_fire(b, "va4", T).reason
    # in Phase 3 the Union is not the side to act: its units do not fire
    assert "own side's" in may_fire(demo(Phase.RANGED), "wis2", T).reason


def test_a_limbered_battery_and_a_unit_without_firearms_cannot_fire():
    b = battle_of(
        guns("bat", 10, 30, formation=Formation.LIMBERED),
        foot("cav", 20, 30, kind=UnitKind.CAVALRY, formation=Formation.MOUNTED, weapon=Weapon.NONE),
        foot("t", 10, 20, side="csa", facing=180),
    )
    b = replace(b, phase=Phase.RANGED)
    assert "limbered" in may_fire(b, "bat", T).reason
    assert "no firearms" in may_fire(b, "cav", T).reason
    assert allowed(shoot_firers(b, T)) == []


def test_rule_03_5_6_the_4th_virginias_targets_with_the_reason_for_each_refusal():
    b = demo(Phase.RANGED)
    targets = shoot_targets(b, "va4", T)
    # closest first
    assert [o.distance_in for o in targets] == sorted(o.distance_in for o in targets)
    t = by_id(targets)
    assert isinstance(t["batb4us"], Legal) and t["batb4us"].why == "the closest unengaged enemy in arc"
    # a farther enemy: target priority (RULE-03-5.6)
    assert isinstance(t["ind19"], Refusal) and t["ind19"].rule == "RULE-03-5.6"
    assert t["ind19"].reason == "a closer unengaged enemy must be fired at first"
    # behind the crest of Oak Ridge: dead ground (RULE-03-4.3)
    assert t["wis2"].rule == "RULE-03-4.3" and "not in sight" in t["wis2"].reason
    # out of the 45 degree forward arc (RULE-03-5.1)
    assert t["bkn14"].rule == "RULE-03-5.1" and "arc" in t["bkn14"].reason
    # what is legal is what the Phase 3 volley accepts, and what is refused it refuses
    Shoot.on_table(b, "va4", "batb4us", T)
    for r in refused(targets):
        with pytest.raises(IllegalAction):
            Shoot.on_table(b, "va4", r.unit_id, T)


def test_a_target_beyond_the_weapons_maximum_range_is_refused_citing_the_club_table():
    b = demo(Phase.RANGED)
    t = by_id(shoot_targets(b, "va5", T))  # smoothbore muskets: 12" at most
    assert isinstance(t["bkn14"], Legal)
    reach = T.entry("shooting.max_range.smoothbore_musket")
    assert t["wis2"].reason.startswith("out of range") and f'{reach.value:g}"' in t["wis2"].reason
    assert t["wis2"].rule == reach.citation


def test_a_firer_that_cannot_fire_may_fire_on_no_target_and_each_says_why():
    b = demo(Phase.RANGED)
    b = b.with_unit(b.unit("va4").with_markers(add=[Marker.FIRED]))
    targets = shoot_targets(b, "va4", T)
    assert len(targets) == 4 and allowed(targets) == []
    assert {(r.rule, "already fired" in r.reason) for r in targets} == {("RULE-04-3.4", True)}
    # the measurements are still there, for the interface to show
    assert by_id(targets)["batb4us"].detail.in_arc


def test_an_enemy_charging_the_firer_is_its_mandatory_target():
    b = demo(Phase.RANGED)
    t = by_id(shoot_targets(b, "va4", T, charging=("ind19",)))
    assert isinstance(t["ind19"], Legal) and t["ind19"].detail.mandatory
    assert isinstance(t["batb4us"], Refusal) and t["batb4us"].reason == "another enemy is charging the firer"


# -- charging (RULE-06-1.2, RULE-06-1.3) --------------------------------------------------------------


def test_rule_06_1_3_a_target_beyond_the_double_quick_charge_range_is_refused():
    b = demo(Phase.MANEUVER)
    b = b.with_unit(b.unit("va5").moved_to(50, 28))  # 3" west of where the demo puts it
    options = charge_targets(b, "va5", T)
    assert allowed(options) == []  # every Union unit is beyond 9" of the 5th Virginia
    first = options[0]
    assert first.unit_id == "bkn14" and first.distance_in == pytest.approx(9.6, abs=0.05)
    assert first.rule == "RULE-06-1.3" and "Double-Quick Charge Range" in first.reason
    # a step closer but off to its left: in range, but facing it would take more than the charge's
    # one pivot of up to 30 degrees (RULE-06-1.4), which the charge itself would refuse
    aside = charge_targets(b.with_unit(b.unit("va5").moved_to(50, 27)), "va5", T)
    assert isinstance(aside[0], Refusal) and aside[0].rule == "RULE-06-1.4" and "pivot" in aside[0].reason
    # closer and more nearly ahead, and the 14th Brooklyn may be charged
    closer = b.with_unit(b.unit("va5").moved_to(53, 27))
    near = charge_targets(closer, "va5", T)
    assert isinstance(near[0], Legal) and near[0].unit_id == "bkn14"
    assert near[0].distance_in <= float(T.value("melee.charge.infantry_range_in"))


def test_charge_targets_are_nearest_first_and_the_first_legal_is_the_nearest_chargeable():
    b = example_1()  # the 4th Virginia 7" from the 2nd Wisconsin, to its front
    # a Union regiment nearer, but behind the Virginians (out of their forward arc), and one farther
    # off to the front, in range
    b = b.with_units(
        replace(b.unit("wis2"), id="behind", name="6th Wisconsin", x=30.0, y=31.0, facing_deg=0.0),
        replace(b.unit("wis2"), id="far", name="7th Wisconsin", x=31.0, y=19.0),
    )
    options = charge_targets(b, "va4", T)
    assert [o.unit_id for o in options] == ["behind", "wis2", "far"]
    assert [o.distance_in for o in options] == sorted(o.distance_in for o in options)
    assert isinstance(options[0], Refusal) and options[0].rule == "RULE-06-1.3"
    assert "forward 45 degree arc" in options[0].reason
    assert [o.unit_id for o in allowed(options)] == ["wis2", "far"]


def test_every_unmet_condition_of_a_declaration_is_given_with_its_rule():
    b = demo(Phase.COMMAND)
    b = b.with_unit(b.unit("va5").moved_to(50, 28).with_markers(add=[Marker.DISORDER]))  # 9.6" off
    first = charge_targets(b, "va5", T)[0]
    reasons = [(r.rule, r.reason) for r in first.reasons]
    assert reasons[0][0] == "RULE-06-1.1" and "Phase 2" in reasons[0][1]
    assert ("RULE-06-1.3", "5th Virginia is Disordered") in reasons
    assert any("Double-Quick Charge Range" in text for _, text in reasons)


# -- reactions (Trigger Windows A and B) ---------------------------------------------------------


def test_example_a_the_5th_virginia_may_fire_a_closing_volley_but_not_counter_charge():
    from rules.reactions.triggers import charge_threat

    b = example_a()  # the 14th Brooklyn at the 4" line of its charge
    threat = charge_threat(b, b.unit("bkn14"), b.unit("va5"), T)
    options = {o.action: o for o in reactions_open(b, "va5", threat, T)}
    assert set(options) == {"closing_volley", "refuse_flank", "counter_charge"}  # a formed regiment
    assert isinstance(options["closing_volley"], Legal) and options["closing_volley"].why == "free"
    assert options["refuse_flank"].rule == "RULE-04-5.1 (Refuse the Flank, 5.0)"
    cc = options["counter_charge"]
    assert isinstance(cc, Refusal)
    assert {r.rule for r in cc.reasons} == {
        "RULE-04-5.2 (Counter-Charge, 6.0)",
        "RULE-04-5.3 (Counter-Charge, 6.0)",
    }
    with pytest.raises(InvariantError):
        reactions_open(b, "bkn14", threat, T)


def test_example_b_refuse_the_flank_at_window_a_and_only_once_a_move():
    from rules.reactions.triggers import find_windows

    b = example_b().with_unit(example_b().unit("nc28").moved_to(50, 28))
    (w,) = find_windows(b, "nc28", [(50, 28), (40, 28)], T)
    options = {o.action: o for o in reactions_open(b, "ind19", w, T)}
    assert (
        isinstance(options["refuse_flank"], Legal) and options["refuse_flank"].why == "1 reserved Staff Pip"
    )
    assert options["opportunity_fire"].rule == "RULE-04-3.1"  # not in the Indiana's forward arc
    # a defender that has reacted to this move already may take nothing more (RULE-04-1.4)
    (again,) = find_windows(b, "nc28", [(50, 28), (40, 28)], T, reacted=["ind19"])
    assert allowed(reactions_open(b, "ind19", again, T)) == []
    assert "RULE-04-1.4" in {r.rule for o in reactions_open(b, "ind19", again, T) for r in o.reasons}


# -- buildings (RULE-03-3.1) ----------------------------------------------------------------------


def farm():
    """Roulette Farm, and four Union units beside it in Phase 2."""
    house = rect("farm", "building", 10, 10, 14, 13, name="Roulette Farm")
    units = (
        foot("wis2", 12, 13.25, stands=2, name="2nd Wisconsin"),  # touching the wall
        foot("wis6", 12, 18, stands=2, name="6th Wisconsin"),  # 5" away
        foot("ind19", 20, 14, stands=5, name="19th Indiana"),
        foot("cav", 22, 14, kind=UnitKind.CAVALRY, formation=Formation.MOUNTED, stands=2, name="1st Maine"),
        guns("bat", 26, 14, sections=2, name="Battery B"),
        foot("ga8", 40, 40, side="csa", stands=2, name="8th Georgia"),
    )
    return replace(battle_of(*units, terrain=[house]), phase=Phase.MANEUVER)


def test_rule_03_3_1_only_infantry_or_dismounted_cavalry_of_at_most_2_stands_may_garrison():
    b = farm()
    options = garrison_candidates(b, T)
    # the side to act's units, by name
    assert [o.unit_id for o in options] == ["ind19", "cav", "wis2", "wis6", "bat"]
    assert [o.unit_id for o in allowed(options)] == ["wis2", "wis6"]
    why = by_id(options)
    assert why["ind19"].rule == "RULE-03-3.1" and "at most 2" in why["ind19"].reason
    assert why["cav"].rule == "RULE-03-3.1" and "dismounted cavalry" in why["cav"].reason
    assert why["bat"].rule == "RULE-03-3.1"
    dismounted = b.with_unit(replace(b.unit("cav"), formation=Formation.DISMOUNTED))
    assert "cav" in [o.unit_id for o in allowed(garrison_candidates(dismounted, T))]
    # with no building on the table, no unit may garrison one
    assert allowed(garrison_candidates(b.without_feature("farm"), T)) == []


def test_rule_03_3_1_a_unit_occupies_a_building_it_touches_in_its_phase_2():
    b = farm()
    assert garrison_refusal(b, "wis2", "farm", T) is None
    far = garrison_refusal(b, "wis6", "farm", T)
    assert far.rule == "RULE-03-3.1" and "move it up to the building" in far.reason
    assert "RULE-03-3.1" == garrison_refusal(b, "ind19", "farm", T).rule
    late = garrison_refusal(replace(b, phase=Phase.RANGED), "wis2", "farm", T)
    assert late is not None and "Phase 2" in late.reason


# -- melee (RULE-06-4.2) --------------------------------------------------------------------------


def test_rule_06_4_2_engaged_pairs_are_the_locked_melees_of_the_side_to_act_nearest_first():
    engaged = frozenset({Marker.ENGAGED})
    b = battle_of(
        foot("a", 10, 20, markers=engaged),
        foot("b", 40, 20, markers=engaged),
        foot("c", 60, 20),  # not locked
        foot("x", 10, 17, side="csa", facing=180, markers=engaged),
        foot("y", 40, 18, side="csa", facing=180, markers=engaged),
    )
    assert engaged_pairs(b) == [("b", "y"), ("a", "x"), ("a", "y"), ("b", "x")]
    assert engaged_pairs(replace(b, active_side="csa"))[0] == ("y", "b")
    assert engaged_pairs(demo(Phase.MELEE)) == []


def test_rule_03_4_3_a_regiment_in_dead_ground_has_no_target_on_the_forward_slope():
    # Oak Ridge: the 2nd Wisconsin 2.0" behind the crest, the 4th Virginia 5" down the forward slope
    from tests.rules.battlefield.test_line_of_sight import oak_ridge

    b = oak_ridge()
    b = replace(b.with_unit(b.unit("va4").moved_to(12, 25.0)), phase=Phase.RANGED)
    t = by_id(shoot_targets(b, "wis2", T))
    assert isinstance(t["va4"], Refusal) and t["va4"].rule == "RULE-03-4.3"
    assert "until it moves up onto the crest" in t["va4"].reason
    with pytest.raises(IllegalAction) as exc:
        Shoot.on_table(b, "wis2", "va4", T)
    assert exc.value.rule == "RULE-03-4.3"
    # on the crest it may fire
    b = b.with_unit(b.unit("wis2").moved_to(12, 20.0))
    assert isinstance(by_id(shoot_targets(b, "wis2", T))["va4"], Legal)
