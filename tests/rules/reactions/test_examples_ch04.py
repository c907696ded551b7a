"""The worked examples of chapter 04 (8.0) and the closing volleys of chapter 06 (7.0), with their dice."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.battle.words import Formation, Marker, Quality, Weapon
from rules.battlefield.geometry import distance_in, enfilade_position, in_flank_zone, in_forward_arc
from rules.dice import TableDice
from rules.errors import IllegalAction
from rules.reactions.declare import (
    Reaction,
    Threat,
    Window,
    closing_volley,
    flank_bonus_denied,
    opportunity_fire,
    option,
    refuse_the_flank,
)
from rules.shooting.volleys import Volley, plan_volley, resolve_volley
from rules.tables import load_tables
from tests.rules.shooting.test_shooting import battle_of, unit

T = load_tables()


# -- Example A: Closing Volley Repulses an Assault ---------------------------------------------


def example_a():
    va5 = unit("va5", "csa", name="5th Virginia", weapon=Weapon.SMOOTHBORE_MUSKET, x=30, y=10, facing_deg=180)
    bkn14 = unit("bkn14", "union", name="14th Brooklyn", quality=Quality.REGULAR, x=30, y=14, facing_deg=0)
    return battle_of(va5, bkn14, active="union")


def test_example_a_closing_volley_repulses_an_assault():
    b = example_a()
    # "At the 4.0" mark, movement halts."
    assert distance_in(b.unit("bkn14"), b.unit("va5"), T) == pytest.approx(4.0)
    assert in_forward_arc(b.unit("va5"), b.unit("bkn14"), T)
    threat = Threat(Window.B, "bkn14", "va5", 4.0, in_forward_arc=True, charge=True)
    assert option(b, Reaction.CLOSING_VOLLEY, threat, T).cost.kind == "free"

    dice = TableDice([3, 3, 5, 2, 6, 2])
    out = closing_volley(b, threat, dice, T)

    # "Dice Pool: 5D6 ... hit on 3+. Result: 4 hits scored (including one natural 6)."
    assert out.volley.hit_dice == (3, 3, 5, 2, 6)
    assert out.volley.plan.to_hit == 3
    assert out.volley.hits == 4
    # "4 hits = 2 physical stands removed"; "The natural 6 inflicts an immediate Disorder Marker."
    assert out.volley.stands_lost == 2 and out.volley.disorder_inflicted
    # "(4+ for Regulars). The Union player rolls a 2 - Failed!"
    assert out.check_taken and out.check_needed == 4 and out.check_roll == 2
    # "halts 2.0" away from the Virginia line, reduced to 3 stands, Disordered ... No melee occurs."
    bkn = out.battle.unit("bkn14")
    assert out.stalled and not out.contact
    assert bkn.stands == 3 and bkn.micro_hits == 0 and bkn.disordered
    assert distance_in(bkn, out.battle.unit("va5"), T) == pytest.approx(2.0)
    # "The 5th Virginia receives a Smoke Marker."
    assert out.battle.unit("va5").has(Marker.SMOKE)
    assert not out.battle.unit("va5").has(Marker.FIRED)
    assert dice.remaining == ()
    rules = {s.rule for s in out.steps}
    assert {"RULE-04-2.3", "RULE-06-2.4", "RULE-04-2.6", "RULE-06-2.5"} <= rules


# -- Example B: Refusing the Flank Protects a Battery ------------------------------------------


def example_b():
    ind19 = unit("ind19", "union", name="19th Indiana", x=30, y=30, facing_deg=0)
    nc28 = unit("nc28", "csa", name="28th North Carolina", x=40, y=28, facing_deg=270)
    return battle_of(ind19, nc28, union_reserved=1, active="csa")


def test_example_b_refusing_the_flank_with_the_reserved_pip():
    b = example_b()
    # "As the North Carolinians enter the flank zone" (the right flank of the 19th Indiana)
    assert in_flank_zone(b.unit("ind19"), (40, 28), T) == "right"
    threat = Threat(
        Window.A,
        "nc28",
        "ind19",
        distance_in(b.unit("nc28"), b.unit("ind19"), T),
        in_forward_arc=False,
        flank="right",
    )
    opt = option(b, Reaction.REFUSE_FLANK, threat, T)
    assert opt.eligible and opt.cost.kind == "reserved_pip" and opt.cost.pips == 1

    dice = TableDice([])
    out = refuse_the_flank(b, threat, dice, T)
    # "The Union player expends the Reserved Pip": no dice, automatic success
    assert out.success and out.pip_spent and dice.rolls == []
    assert out.battle.brigade_of("ind19").staff_pips_reserved == 0
    # "wheels the two right-flank stands of the 19th Indiana backward by 45°": its right flank only
    assert out.battle.unit("ind19").has(Marker.REFUSED_RIGHT)
    assert not out.battle.unit("ind19").has(Marker.REFUSED_LEFT)
    assert any("wheels its outer 2 right-flank stands back 45 degrees" in s.text for s in out.steps)
    assert any(s.rule == "RULE-04-5.2 (Refuse the Flank, 5.0)" for s in out.steps)

    # "When the 28th North Carolina fires in Phase 3 ... It receives no enfilade to-hit bonus"
    later = out.battle.with_unit(out.battle.unit("nc28").moved_to(38, 31))
    nc, ind = later.unit("nc28"), later.unit("ind19")
    assert enfilade_position(nc, ind, T) == "right"
    shot = Volley("nc28", "ind19", distance_in(nc, ind, T), enfilade=True, enfilade_side="right")
    assert plan_volley(later, shot, T).to_hit == 4 and plan_volley(later, shot, T).to_hit_modifiers == ()
    # ... whereas without the refused flank the same fire would rake it at +1
    unrefused = later.with_unit(ind.with_markers(remove=[Marker.REFUSED_RIGHT]))
    assert plan_volley(unrefused, shot, T).to_hit == 3
    # and a charge on that flank gets no +2 flank bonus (RULE-04-5.4)
    assert flank_bonus_denied(later, "ind19", "right") and not flank_bonus_denied(unrefused, "ind19", "right")


# -- Example C: Opportunity Fire Punishes a Flank March ----------------------------------------


def example_c():
    wis2 = unit("wis2", "union", name="2nd Wisconsin", x=20, y=30, facing_deg=0)
    ga8 = unit(
        "ga8", "csa", name="8th Georgia", formation=Formation.ASSAULT_COLUMN, x=20, y=24, facing_deg=90
    )
    return battle_of(wis2, ga8, active="csa")


def test_example_c_opportunity_fire_punishes_a_flank_march():
    b = example_c()
    wis, ga = b.unit("wis2"), b.unit("ga8")
    d = distance_in(wis, ga, T)
    assert d <= 6.0 and in_forward_arc(wis, ga, T)  # "within 6 inches across the front"
    threat = Threat(Window.A, "ga8", "wis2", d, in_forward_arc=True)
    dice = TableDice([1, 4, 4, 6, 2])
    out = opportunity_fire(b, threat, dice, T)
    # "The 2nd Wisconsin rolls 5D6. Rifled muskets hit on 4+ at Short Range."
    assert out.volley.plan.dice_pool == 5 and out.volley.plan.to_hit == 4
    # "Rolls: [1, 4, 4, 6, 2]. Three hits scored (4, 4, 6)."
    assert out.volley.hits == 3
    # "3 hits = 1 stand removed, 1 hit tracked on micro-dice. The natural 6 inflicts a Disorder Marker."
    g = out.battle.unit("ga8")
    assert (g.stands, g.micro_hits) == (4, 1) and g.disordered
    # "its remaining movement speed for the turn is cut in half"
    assert out.remaining_move_factor == 0.5 and out.remaining_move_in(4.0) == 2.0
    # "The 2nd Wisconsin places a Smoke Marker and cannot shoot in its upcoming active phase."
    w = out.battle.unit("wis2")
    assert w.has(Marker.SMOKE) and w.has(Marker.FIRED)
    with pytest.raises(IllegalAction, match="RULE-04-3.4"):
        resolve_volley(out.battle, Volley("wis2", "ga8", d), TableDice([1] * 5), T)


def test_example_c_assault_column_save_penalty_changes_nothing_in_the_open():
    """Example C: "Target is in Assault Column: suffers -1 to saves vs. canister/dense fire."
    No rule states it (the table keeps it as a club default, off); the Georgians are in the open
    and roll no save, so the example's result is the same with it or without it."""
    b = example_c()
    t1 = T.with_values({"shooting.save_modifier.assault_column_vs_canister": -1})
    d = distance_in(b.unit("wis2"), b.unit("ga8"), T)
    for tables in (T, t1):
        out = opportunity_fire(b, Threat(Window.A, "ga8", "wis2", d), TableDice([1, 4, 4, 6, 2]), tables)
        assert out.volley.save_dice == () and out.volley.unsaved_hits == 3


# -- Chapter 06, Examples 1 and 2: the closing volleys -----------------------------------------


def test_example_1_closing_volley_and_veteran_discipline_check():
    va4 = unit(
        "va4",
        "csa",
        name="4th Virginia",
        quality=Quality.VETERAN,
        traits=frozenset({"rebel_yell"}),
        x=20,
        y=16,
        facing_deg=180,
    )
    wis2 = unit("wis2", "union", name="2nd Wisconsin", quality=Quality.VETERAN, x=20, y=20, facing_deg=0)
    b = battle_of(va4, wis2, active="csa")
    threat = Threat(Window.B, "va4", "wis2", 4.0, charge=True)
    out = closing_volley(b, threat, TableDice([2, 4, 1, 6, 5, 5]), T)
    # "Rolls: [2, 4, 1, 6, 5]. Results: 3 hits scored (including one natural 6)."
    assert out.volley.hits == 3
    # "1 stand removed ... (reduced to 4 stands, 1 micro-hit carried over)"; "Disorder Marker"
    v = out.battle.unit("va4")
    assert (v.stands, v.micro_hits) == (4, 1) and v.disordered
    # "Veteran Discipline Check (3+). Roll is a 5 - Passed!" ... "close into physical base contact"
    assert out.check_needed == 3 and out.check_roll == 5
    assert out.contact and not out.stalled
    assert (v.x, v.y) == (20, 16)  # contact is placed by the assault, not by the volley


def test_example_2_closing_volley_one_micro_hit_no_check():
    nc7 = unit("nc7", "csa", name="7th North Carolina", stands=4, stands_start=4, x=20, y=10, facing_deg=180)
    bkn = unit(
        "bkn14",
        "union",
        name="14th Brooklyn",
        stands=6,
        stands_start=6,
        formation=Formation.ASSAULT_COLUMN,
        x=20,
        y=14,
        facing_deg=0,
    )
    b = battle_of(nc7, bkn, active="union")
    dice = TableDice([1, 3, 5, 2])
    out = closing_volley(b, Threat(Window.B, "bkn14", "nc7", 4.0, charge=True), dice, T)
    # "4D6, Rifled Muskets hit on 4+ ... Rolls: [1, 3, 5, 2]. Result: 1 hit scored."
    assert out.volley.plan.dice_pool == 4 and out.volley.hits == 1
    # "The 14th Brooklyn takes 1 hit (tracked on micro-dice; no stand lost, no natural 6).
    #  No discipline check is required"
    k = out.battle.unit("bkn14")
    assert (k.stands, k.micro_hits) == (6, 1) and not k.disordered
    assert not out.check_taken and out.contact
    assert [r.purpose for r in dice.rolls] == ["closing volley"]


# -- the same examples, found by the trigger windows -------------------------------------------


def test_example_a_window_b_opens_at_the_4in_mark_of_an_8in_charge():
    from rules.reactions.triggers import find_windows

    b = example_a().with_unit(example_a().unit("bkn14").moved_to(30, 18))  # "8.0" separation"
    (w,) = find_windows(b, "bkn14", [(30, 18), (30, 10)], T, charge_target="va5")
    assert w.window == Window.B and w.along_in == pytest.approx(4.0)
    (d,) = w.defenders
    assert d.option(Reaction.CLOSING_VOLLEY).eligible
    at = b.with_unit(b.unit("bkn14").moved_to(*w.point))
    out = closing_volley(at, d.threat, TableDice([3, 3, 5, 2, 6, 2]), T)
    bkn = out.battle.unit("bkn14")
    assert out.stalled and bkn.stands == 3 and bkn.disordered
    assert distance_in(bkn, out.battle.unit("va5"), T) == pytest.approx(2.0)


def test_example_b_window_a_opens_as_the_north_carolinians_enter_the_flank_zone():
    from rules.reactions.triggers import Trigger, find_windows

    b = example_b().with_unit(example_b().unit("nc28").moved_to(50, 28))
    ws = find_windows(b, "nc28", [(50, 28), (40, 28)], T)
    (w,) = [w for w in ws if any(d.trigger == Trigger.FLANK_ZONE for d in w.defenders)]
    (d,) = w.defenders
    assert d.threat.flank == "right" and d.option(Reaction.REFUSE_FLANK).cost.kind == "reserved_pip"
    out = refuse_the_flank(b, d.threat, TableDice([]), T)
    assert out.pip_spent and out.battle.unit("ind19").has(Marker.REFUSED_RIGHT)


def test_example_c_window_a_opens_on_the_flank_march_and_the_volley_is_at_short_range():
    from rules.reactions.triggers import Trigger, find_windows

    b = example_c().with_unit(example_c().unit("ga8").moved_to(0, 24))
    ws = find_windows(b, "ga8", [(0, 24), (40, 24)], T)
    (w,) = [w for w in ws if any(d.trigger == Trigger.FORWARD_ARC_SHORT for d in w.defenders)]
    (d,) = w.defenders
    at = b.with_unit(b.unit("ga8").moved_to(*w.point))
    out = opportunity_fire(at, d.threat, TableDice([1, 4, 4, 6, 2]), T)
    # "Rifled muskets hit on 4+ at Short Range": at 3+ the printed dice would also give 3 hits
    assert out.volley.plan.band == "short" and out.volley.plan.to_hit == 4
    assert out.volley.plan.dice_pool == 5 and out.volley.hits == 3
    assert (out.battle.unit("ga8").stands, out.battle.unit("ga8").micro_hits) == (4, 1)
    assert out.remaining_move_factor == 0.5


@pytest.mark.parametrize(("stands", "wheeled"), [(2, 1), (3, 1), (4, 1), (5, 2), (6, 2), (8, 2)])
def test_rule_04_5_3_refuse_the_flank_wheels_the_outer_two_stands_or_one_of_a_small_regiment(stands, wheeled):
    """RULE-04-5.3 wheels "the outer 1 or 2 flank stands" (Example B: two); the club default is two,
    and a regiment of 4 stands or fewer wheels one, keeping its colour stand in the centre with as
    many stands on the anchored side. The log and the stands drawn angled say the same number."""
    from rules.reactions.refused_flank import stands_wheeled

    b = example_b()
    b = b.with_unit(replace(b.unit("ind19"), stands=stands, stands_start=max(stands, 5)))
    threat = Threat(Window.A, "nc28", "ind19", 5.0, in_forward_arc=False, flank="right")
    out = refuse_the_flank(b, threat, TableDice([]), T)
    assert out.success
    said = f"wheels its outer {wheeled} right-flank stand{'s' if wheeled > 1 else ''} back 45 degrees"
    assert any(said in s.text for s in out.steps), [s.text for s in out.steps]
    assert stands_wheeled(out.battle.unit("ind19"), T) == wheeled
    one = T.with_values({"movement.refused_flank.stands_wheeled": 1})
    assert stands_wheeled(out.battle.unit("ind19"), one) == 1
