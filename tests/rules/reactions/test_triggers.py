"""Reaction Trigger Windows A and B (RULE-04-1.2) found along a planned move."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from rules.battle.terrain import TerrainFeature, TerrainType
from rules.battle.words import Formation, Marker, Quality, UnitKind
from rules.battlefield import geometry
from rules.errors import IllegalAction, InvariantError
from rules.reactions.declare import CostKind, Reaction, Window
from rules.reactions.triggers import Trigger, find_windows, open_ground
from rules.tables import load_tables
from tests.rules.shooting.test_shooting import battle_of, unit

T = load_tables()


def crossing(defender_kw=None, mover_kw=None, **battle_kw):
    """The 2nd Wisconsin facing north at (20, 30); the 8th Georgia in assault column heading east."""
    wis = unit("wis2", "union", name="2nd Wisconsin", x=20, y=30, facing_deg=0, **(defender_kw or {}))
    kw = dict(name="8th Georgia", formation=Formation.ASSAULT_COLUMN, x=0, y=24, facing_deg=90)
    kw.update(mover_kw or {})
    ga = unit("ga8", "csa", **kw)
    return battle_of(wis, ga, active="csa", **battle_kw)


ACROSS = [(0, 24), (40, 24)]  # 6" in front of the Wisconsin's line


def by_trigger(windows):
    return {d.trigger: (w, d) for w in windows for d in w.defenders}


# -- Window A: Opportunity Fire ----------------------------------------------------------------


def test_rule_04_3_1_window_a_opens_where_the_mover_enters_the_arc_within_8in():
    ws = find_windows(crossing(), "ga8", ACROSS, T)
    assert [w.window for w in ws] == [Window.A] * len(ws)
    assert [w.along_in for w in ws] == sorted(w.along_in for w in ws)
    w, d = by_trigger(ws)[Trigger.FORWARD_ARC]
    assert 7.9 < d.threat.distance_in <= 8.0 and d.threat.in_forward_arc
    opf = d.option(Reaction.OPPORTUNITY_FIRE)
    assert opf.eligible and opf.cost.kind == CostKind.FREE
    # the footprint at the window's point touches the 8" arc, and a little earlier it does not
    fp_before = geometry.footprint(crossing().unit("ga8").moved_to(w.point[0] - 0.05, 24), T)
    arc8 = geometry.forward_arc(crossing().unit("wis2"), T, reach_in=8.0)
    assert not arc8.intersects(fp_before.polygon)


def test_rule_04_3_3_a_second_window_where_the_mover_comes_into_short_range():
    ws = find_windows(crossing(), "ga8", ACROSS, T)
    w8, _ = by_trigger(ws)[Trigger.FORWARD_ARC]
    w6, d6 = by_trigger(ws)[Trigger.FORWARD_ARC_SHORT]
    assert w6.along_in > w8.along_in and 5.9 < d6.threat.distance_in <= 6.0
    assert d6.option(Reaction.OPPORTUNITY_FIRE).eligible


def test_a_trigger_checks_the_rules_not_only_the_geometry():
    ws = find_windows(crossing({"markers": frozenset({Marker.SMOKE, Marker.DISORDER})}), "ga8", ACROSS, T)
    _, d = by_trigger(ws)[Trigger.FORWARD_ARC]
    opf = d.option(Reaction.OPPORTUNITY_FIRE)
    assert not opf.eligible and [r.rule for r in opf.reasons] == ["RULE-04-3.2", "RULE-04-3.2"]
    engaged = find_windows(crossing({"markers": frozenset({Marker.ENGAGED})}), "ga8", ACROSS, T)
    assert "engaged" in str(by_trigger(engaged)[Trigger.FORWARD_ARC][1].option(Reaction.OPPORTUNITY_FIRE))


def test_no_window_for_a_move_outside_the_arc_or_beyond_reach():
    assert find_windows(crossing(), "ga8", [(0, 5), (40, 5)], T) == ()  # 25" away
    assert find_windows(crossing(), "ga8", [(0, 40), (40, 40)], T) == ()  # behind the line


def test_each_trigger_opens_once_per_move():
    """There and back and there again: each trigger of each defender (each of the two flank zones
    on its own) opens one window, where the move first meets it."""
    there_and_back = [(0, 24), (40, 24), (0, 24), (40, 24)]
    ws = find_windows(crossing(), "ga8", there_and_back, T)
    opened = [(d.defender, *d.opened_by) for w in ws for d in w.defenders]
    assert len(opened) == len(set(opened))
    assert {z for (_, t, z) in opened if t == Trigger.FLANK_ZONE} == {"left", "right"}


def test_rule_04_1_4_a_defender_that_has_reacted_may_not_react_again_to_the_same_move():
    ws = find_windows(crossing(), "ga8", ACROSS, T, reacted={"wis2"})
    assert ws and all(not d.eligible for w in ws for d in w.defenders)
    _, d = by_trigger(ws)[Trigger.FORWARD_ARC_SHORT]
    assert "RULE-04-1.4" in [r.rule for r in d.option(Reaction.OPPORTUNITY_FIRE).reasons]


def test_a_move_that_starts_inside_the_arc_opens_at_once():
    ws = find_windows(crossing(mover_kw={"x": 20}), "ga8", [(20, 24), (30, 24)], T)
    assert ws[0].along_in == 0.0


def test_rule_04_1_2_only_the_active_sides_moves_open_windows():
    b = replace(crossing(), active_side="union")
    assert find_windows(b, "ga8", ACROSS, T) == ()


def test_friendly_units_open_no_window():
    b = battle_of(unit("wis2", "union", x=20, y=30), unit("wis6", "union", x=0, y=24, facing_deg=90))
    assert find_windows(b, "wis6", ACROSS, T) == ()


def test_the_first_window_where_somebody_may_react_is_the_flank_zone_when_the_defender_is_in_smoke():
    b = crossing({"markers": frozenset({Marker.SMOKE})})
    w = next(w for w in find_windows(b, "ga8", ACROSS, T) if w.any_eligible)
    assert {d.trigger for d in w.defenders} == {Trigger.FLANK_ZONE}


# -- Window A: Evade ---------------------------------------------------------------------------


def screen_battle(**screen_kw):
    p = unit("p", "union", name="2nd Wisconsin", x=20, y=34, facing_deg=0)
    kw = dict(
        name="Wisconsin skirmishers",
        kind=UnitKind.SKIRMISHERS,
        stands=1,
        stands_start=1,
        formation=Formation.SKIRMISH,
        parent="p",
        x=20,
        y=30,
        facing_deg=0,
    )
    kw.update(screen_kw)
    s = unit("s", "union", **kw)
    m = unit("m", "csa", name="4th Virginia", x=20, y=14, facing_deg=180)
    return battle_of(p, s, m, active="csa")


def test_rule_04_4_1_evade_window_where_a_formed_enemy_closes_within_6in():
    ws = find_windows(screen_battle(), "m", [(20, 14), (20, 24)], T)
    w, d = by_trigger(ws)[Trigger.SCREEN]
    assert d.defender == "s" and [o.reaction for o in d.options] == [Reaction.EVADE]
    assert d.option(Reaction.EVADE).eligible and 5.9 < d.threat.distance_in <= 6.0
    assert w.point[1] == pytest.approx(30 - 6.0, abs=0.05)


def test_rule_04_4_2_a_pinned_screen_may_not_evade():
    ws = find_windows(screen_battle(markers=frozenset({Marker.PINNED})), "m", [(20, 14), (20, 24)], T)
    _, d = by_trigger(ws)[Trigger.SCREEN]
    assert [r.rule for r in d.option(Reaction.EVADE).reasons] == ["RULE-04-4.2"]


# -- Window A: Refuse the Flank ----------------------------------------------------------------


def flank_march(union_reserved=1):
    ind = unit("ind19", "union", name="19th Indiana", x=30, y=30, facing_deg=0)
    nc = unit("nc28", "csa", name="28th North Carolina", x=50, y=27, facing_deg=270)
    return battle_of(ind, nc, union_reserved=union_reserved, active="csa")


def test_rule_04_5_1_window_where_the_mover_enters_the_flank_zone():
    ws = find_windows(flank_march(), "nc28", [(50, 27), (40, 27)], T)
    w, d = by_trigger(ws)[Trigger.FLANK_ZONE]
    assert d.threat.flank == "right"
    opt = d.option(Reaction.REFUSE_FLANK)
    assert opt.eligible and opt.cost.kind == CostKind.RESERVED_PIP
    nopip = by_trigger(find_windows(flank_march(0), "nc28", [(50, 27), (40, 27)], T))[Trigger.FLANK_ZONE][1]
    assert nopip.option(Reaction.REFUSE_FLANK).cost.kind == CostKind.DISCIPLINE_CHECK


def test_refuse_the_flank_only_for_a_line_of_battle():
    b = flank_march()
    b = b.with_unit(replace(b.unit("ind19"), formation=Formation.ASSAULT_COLUMN))
    assert Trigger.FLANK_ZONE not in by_trigger(find_windows(b, "nc28", [(50, 27), (40, 27)], T))


# -- Window B ----------------------------------------------------------------------------------


def charge_battle(defender_kw=None, **battle_kw):
    va = unit("va5", "csa", name="5th Virginia", x=30, y=10, facing_deg=180, **(defender_kw or {}))
    bkn = unit("bkn14", "union", name="14th Brooklyn", x=30, y=18, facing_deg=0)
    return battle_of(va, bkn, active="union", **battle_kw)


def test_rule_06_2_1_window_b_at_4in_from_the_targets_front_edge():
    ws = find_windows(charge_battle(), "bkn14", [(30, 18), (30, 10)], T, charge_target="va5")
    assert len(ws) == 1
    w = ws[0]
    assert w.window == Window.B and w.point == pytest.approx((30, 14)) and w.along_in == pytest.approx(4.0)
    (d,) = w.defenders
    assert d.threat.charge and d.threat.distance_in == pytest.approx(4.0)
    assert [o.reaction for o in d.options] == [
        Reaction.CLOSING_VOLLEY,
        Reaction.REFUSE_FLANK,
        Reaction.COUNTER_CHARGE,
    ]
    assert d.option(Reaction.CLOSING_VOLLEY).eligible


def test_rule_04_1_2_a_charge_opens_no_window_a():
    b = charge_battle().with_unit(unit("va7", "csa", name="7th Virginia", x=40, y=12, facing_deg=180))
    ws = find_windows(b, "bkn14", [(30, 18), (30, 10)], T, charge_target="va5")
    assert [w.window for w in ws] == [Window.B]


def test_window_b_reasons_for_the_closed_reactions():
    b = charge_battle({"markers": frozenset({Marker.DISORDER})})
    (d,) = find_windows(b, "bkn14", [(30, 18), (30, 10)], T, charge_target="va5")[0].defenders
    assert [r.rule for r in d.option(Reaction.CLOSING_VOLLEY).reasons] == ["RULE-04-2.2"]
    cc = d.option(Reaction.COUNTER_CHARGE)
    assert {r.rule for r in cc.reasons} == {
        "RULE-04-5.2 (Counter-Charge, 6.0)",
        "RULE-04-5.3 (Counter-Charge, 6.0)",
    }


def test_window_b_counter_charge_for_a_veteran_with_a_reserved_pip():
    b = charge_battle({"quality": Quality.VETERAN}, csa_reserved=1)
    (d,) = find_windows(b, "bkn14", [(30, 18), (30, 10)], T, charge_target="va5")[0].defenders
    assert d.option(Reaction.COUNTER_CHARGE).eligible and d.threat.open_ground


def test_window_b_counter_charge_not_across_a_fence():
    fence = TerrainFeature("f", TerrainType.SPLIT_RAIL_FENCE, ((20, 12), (40, 12)))
    b = charge_battle({"quality": Quality.VETERAN}, csa_reserved=1, terrain=(fence,))
    (d,) = find_windows(b, "bkn14", [(30, 18), (30, 10)], T, charge_target="va5")[0].defenders
    assert not d.threat.open_ground
    assert [r.rule for r in d.option(Reaction.COUNTER_CHARGE).reasons] == [
        "RULE-04-5.1 (Counter-Charge, 6.0)"
    ]


def test_window_b_flank_charge_offers_refuse_the_flank_not_a_volley():
    b = charge_battle(csa_reserved=1).with_unit(unit("bkn14", "union", x=45, y=8, facing_deg=270))
    ws = find_windows(b, "bkn14", [(45, 8), (34, 8)], T, charge_target="va5")
    (d,) = ws[0].defenders
    assert d.threat.flank == "left"  # the Virginians face south: their left is +x
    assert d.option(Reaction.REFUSE_FLANK).eligible
    assert [r.rule for r in d.option(Reaction.CLOSING_VOLLEY).reasons] == ["RULE-04-2.2"]


def test_a_charge_that_stops_short_of_4in_opens_no_window():
    assert find_windows(charge_battle(), "bkn14", [(30, 18), (30, 15)], T, charge_target="va5") == ()


def test_bad_moves_are_typed_errors():
    b = charge_battle()
    with pytest.raises(IllegalAction):
        find_windows(b.with_unit(unit("x", "union", x=1, y=1)), "bkn14", [(30, 18)], T, charge_target="x")
    with pytest.raises(InvariantError):
        find_windows(b, "bkn14", [], T)
    with pytest.raises(InvariantError):
        find_windows(b, "bkn14", [(30, "y")], T)
    with pytest.raises(InvariantError):
        find_windows(b, "bkn14", [(30, float("nan"))], T)
    with pytest.raises(InvariantError):
        find_windows(b, "nobody", [(30, 18)], T)


def test_open_ground_between_two_points():
    wood = TerrainFeature("w", TerrainType.LIGHT_WOODS, ((0, 0), (4, 0), (4, 4), (0, 4)))
    road = TerrainFeature("r", TerrainType.ROAD, ((10, 0), (10, 20)))
    b = battle_of(unit("a", "union"), unit("b", "csa"), terrain=(wood, road))
    assert open_ground(b, (6, 2), (20, 2))
    assert not open_ground(b, (2, 10), (2, -2))


# -- speed -------------------------------------------------------------------------------------


def test_fast_enough_for_every_step_of_a_drag_among_100_enemy_units():
    rng = random.Random(7)
    units = [unit("m", "union", x=36, y=46, facing_deg=0), unit("p", "csa", x=2, y=2)]
    for i in range(100):
        if i % 10 == 0:
            units.append(
                unit(
                    f"s{i}",
                    "csa",
                    kind=UnitKind.SKIRMISHERS,
                    stands=1,
                    stands_start=1,
                    formation=Formation.SKIRMISH,
                    parent="p",
                    x=rng.uniform(0, 72),
                    y=rng.uniform(0, 40),
                    facing_deg=rng.uniform(0, 360),
                )
            )
        else:
            units.append(
                unit(
                    f"e{i}", "csa", x=rng.uniform(0, 72), y=rng.uniform(0, 40), facing_deg=rng.uniform(0, 360)
                )
            )
    b = battle_of(*units, active="union")
    steps = [[(36, 46), (36 + k * 0.1, 46 - k * 0.2)] for k in range(40)]
    find_windows(b, "m", steps[0], T)  # the first step builds the defenders' regions
    found = [find_windows(b, "m", p, T) for p in steps]
    assert any(found)  # how long a step takes is the benchmarks' "drag step" line


def across_both_flank_zones():
    """The 28th North Carolina in road column marches west past the front corners of the 19th
    Indiana (facing north at (30, 30), in Smoke so it cannot fire): from its right flank zone,
    across its front, into its left flank zone. The club's road column allowance is made long
    enough for the whole march."""
    from rules.battle.words import Phase

    b = replace(flank_march(), phase=Phase.MANEUVER)
    b = b.with_unit(b.unit("ind19").with_markers(add=[Marker.SMOKE]))
    b = b.with_unit(replace(b.unit("nc28").moved_to(44, 26), formation=Formation.ROAD_COLUMN))
    return b, T.with_values({"movement.rate.road_column": 30.0})


def test_rule_04_5_1_each_flank_zone_a_march_enters_opens_its_own_window_in_path_order():
    """ "An active enemy unit moves ... that positions it within the Flank Zone (45°–90°) of a
    defending regiment": each of the two zones the march enters is such a position."""
    b, t = across_both_flank_zones()
    ws = find_windows(b, "nc28", [(44, 26), (16, 26)], t)
    flanks = [
        (w.along_in, d.threat.flank) for w in ws for d in w.defenders if d.trigger == Trigger.FLANK_ZONE
    ]
    assert [f for _, f in flanks] == ["right", "left"]
    assert flanks[0][0] < flanks[1][0]
    for w in ws:
        for d in w.defenders:
            if d.trigger == Trigger.FLANK_ZONE:
                assert d.opened_by == (Trigger.FLANK_ZONE, d.threat.flank)
                assert d.option(Reaction.REFUSE_FLANK).eligible


def test_rule_04_4_3_a_screen_with_no_room_to_withdraw_is_offered_no_evade_with_the_reason():
    """A screen 3" from the table's edge behind it has not the 4.0" of its withdrawal: the window
    still opens, its Evade closed with the rule."""
    from rules.battle.words import Formation as F

    sk = unit(
        "sk",
        "union",
        name="2nd Wisconsin skirmishers",
        kind=UnitKind.SKIRMISHERS,
        stands=1,
        stands_start=1,
        formation=F.SKIRMISH,
        parent="wis2",
        x=20,
        y=45,
        facing_deg=0,
    )
    wis = unit("wis2", "union", name="2nd Wisconsin", x=20, y=40, facing_deg=0)
    ga = unit("ga8", "csa", name="8th Georgia", x=0, y=38, facing_deg=90)
    b = battle_of(wis, sk, ga, active="csa")
    assert b.table_height_in == 48
    ws = find_windows(b, "ga8", [(0, 38), (20, 38)], T)
    (d,) = [d for w in ws for d in w.defenders if d.defender == "sk"]
    ev = d.option(Reaction.EVADE)
    assert not ev.eligible
    assert [r.rule for r in ev.reasons] == [
        "RULE-04-4.3"
    ] and 'the edge of the table is 3" behind it' in ev.reasons[0].text


def test_rule_04_1_4_a_defender_two_of_whose_regions_open_at_one_point_is_asked_in_two_windows():
    # the 8th Georgia starts 5" in front of the Wisconsin's left, inside both its forward arc and
    # its flank zone: both open where the march starts, each its own window, the arc after the flank
    b = crossing(mover_kw=dict(x=14, y=25))
    ws = find_windows(b, "ga8", [(14, 25), (40, 25)], T)
    at_start = [w for w in ws if w.along_in == 0.0]
    assert len(at_start) == 2
    assert {d.trigger for w in at_start for d in w.defenders} == {Trigger.FLANK_ZONE, Trigger.FORWARD_ARC}
    for w in ws:  # a window asks each defender once: its answer is keyed by the defender
        ids = [d.defender for d in w.defenders]
        assert len(ids) == len(set(ids))
