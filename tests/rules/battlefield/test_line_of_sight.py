"""Elevation, dead ground, line of sight and target priority (RULE-03-4.1, RULE-03-4.2, RULE-03-4.3, RULE-03-4.4, RULE-03-4.5, RULE-03-5.1, RULE-03-5.2, RULE-03-5.3, RULE-03-5.4, RULE-03-5.5, RULE-03-5.6, RULE-03-5.7)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.battle.terrain import TerrainFeature, TerrainType
from rules.battle.words import Formation, Marker, UnitKind
from rules.battlefield.field import Battlefield
from rules.errors import InvariantError, TableError
from rules.tables import load_tables
from tests.rules.conftest import battle_of, foot, guns, rect

T = load_tables()

# Oak Ridge: a level 1 ridge from y=10 to y=30, its crestline along y=20. North is up (smaller y).
OAK_RIDGE = TerrainFeature(
    "oak",
    TerrainType.HILL,
    ((0, 10), (60, 10), (60, 30), (0, 30)),
    name="Oak Ridge",
    level=1,
    crest=((0, 20), (60, 20)),
)
RIDGE_BASE_Y = 30.0


def oak_ridge(wis_gap=2.0, extra=()):
    """Chapter 03, 6.0: Battery B on the crest, the 2nd Wisconsin ``wis_gap`` behind it on the
    reverse slope, the 4th Virginia in the valley 8.0" from the base of the ridge. The Union faces
    south (down the table), towards the Virginians."""
    battery = guns("btyB", 30, 20, facing=180, sections=1, name="Battery B, 4th US")
    wis = foot("wis2", 12, 20 - wis_gap, facing=180, name="2nd Wisconsin")
    va = foot("va4", 20, RIDGE_BASE_Y + 8.0, facing=0, side="csa", name="4th Virginia")
    return battle_of(battery, wis, va, *extra, terrain=[OAK_RIDGE])


# -- the worked example (chapter 03, 6.0) ---------------------------------------------------------


def test_example_reverse_slope_defence_and_plunging_fire():
    bf = Battlefield(oak_ridge(), T)
    # Initial dispositions
    assert bf.on_crest("btyB") and bf.level_of("btyB") == 1
    assert bf.behind_crest_in("wis2") == pytest.approx(2.0)
    assert bf.reverse_slope("wis2")
    assert bf.level_of("va4") == 0
    assert bf.footprint("va4").polygon.distance(bf.feature_geometry("oak")) == pytest.approx(8.0)
    # "Can the 4th Virginia see or shoot at the 2nd Wisconsin? No ... Dead Ground."
    los = bf.line_of_sight("va4", "wis2")
    assert not los.visible and los.rule == "RULE-03-4.3" and los.blocked_by == "oak"
    assert "dead ground" in los.reason
    # "Can the 4th Virginia see Battery B? Yes."
    assert bf.line_of_sight("va4", "btyB").visible
    # Battery B fires over the valley with zero obstruction, rolling its 2D6 shell dice
    fire = bf.line_of_sight("btyB", "va4")
    assert fire.visible and fire.blocked_by is None and fire.overhead_over == ()
    assert fire.clear_stands * T.value("shooting.dice.per_artillery_section") == 2
    options = {o.unit_id: o for o in bf.legal_targets("btyB")}
    assert options["va4"].allowed
    # the Wisconsin cannot shoot the Virginians from dead ground either (RULE-03-4.3)
    assert not bf.line_of_sight("wis2", "va4").visible
    assert not {o.unit_id: o for o in bf.legal_targets("wis2")}["va4"].allowed
    # Springing the trap: the Virginians advance to the foot of the ridge; on the following Union
    # turn 2.0" of movement puts the Wisconsin on the crest, in sight of them in the valley
    bf = bf.with_unit(bf.battle.unit("va4").moved_to(20, RIDGE_BASE_Y + 1.0))
    assert bf.level_of("va4") == 0
    moved, plan = bf.move("wis2", [(12, 20)])
    assert plan.moved_in == pytest.approx(2.0) and plan.spent_in == pytest.approx(2.0)
    bf2 = bf.with_unit(moved)
    assert bf2.on_crest("wis2")
    assert bf2.line_of_sight("wis2", "va4").visible
    assert {o.unit_id: o for o in bf2.legal_targets("wis2")}["va4"].allowed


# -- RULE-03-4.3 reverse slope thresholds --------------------------------------------------------------


def test_rule_03_4_3_more_than_1in_behind_crest_is_dead_ground():
    bf = Battlefield(oak_ridge(wis_gap=1.1), T)
    assert bf.reverse_slope("wis2")
    assert not bf.line_of_sight("va4", "wis2").visible


def test_rule_03_4_3_exactly_1in_behind_crest_is_not_reverse_slope():
    bf = Battlefield(oak_ridge(wis_gap=1.0), T)
    assert not bf.reverse_slope("wis2")
    assert bf.line_of_sight("va4", "wis2").visible


def test_rule_03_4_3_0_9in_behind_crest_is_seen():
    bf = Battlefield(oak_ridge(wis_gap=0.9), T)
    assert bf.behind_crest_in("wis2") == pytest.approx(0.9)
    assert not bf.reverse_slope("wis2")
    assert bf.line_of_sight("va4", "wis2").visible


def test_rule_03_4_3_forward_slope_is_not_reverse_slope():
    # 2" down the forward slope, facing the valley: the crest is behind it, and it is in plain view
    b = oak_ridge()
    b = b.with_unit(b.unit("wis2").moved_to(12, 22.75))  # its rear rank 2" below the crest
    bf = Battlefield(b, T)
    assert bf.behind_crest_in("wis2") == pytest.approx(2.0)
    assert not bf.reverse_slope("wis2")
    assert bf.line_of_sight("va4", "wis2").visible


def test_rule_03_4_3_dead_ground_only_to_lower_ground():
    # a Confederate battery on another level 1 hill is not on lower ground
    other = TerrainFeature(
        "knob", TerrainType.HILL, ((0, 40), (40, 40), (40, 60), (0, 60)), level=1, crest=((0, 50), (40, 50))
    )
    b = oak_ridge().with_feature(other)
    b = b.with_unit(b.unit("va4").moved_to(20, 50))
    bf = Battlefield(b, T)
    assert bf.level_of("va4") == 1
    # hills block only when a viewer is lower than them; both are at level 1 here
    assert bf.line_of_sight("va4", "wis2").visible


def test_rule_03_4_2_on_crest_needs_the_front_edge_along_the_ridge_line():
    bf = Battlefield(oak_ridge(), T)
    assert bf.on_crest("btyB")
    tol = T.value("terrain.elevation.crest_tolerance_in")
    off = oak_ridge().unit("btyB").moved_to(30, 20 - tol - 0.05)
    assert not Battlefield(oak_ridge().with_unit(off), T).on_crest("btyB")
    turned = oak_ridge().unit("btyB").moved_to(30, 20, facing_deg=90)  # front edge across the ridge
    assert not Battlefield(oak_ridge().with_unit(turned), T).on_crest("btyB")


def test_rule_03_4_1_level_at():
    bf = Battlefield(oak_ridge(), T)
    assert bf.level_at((5, 15)) == 1 and bf.level_at((5, 35)) == 0
    inner = TerrainFeature("top", TerrainType.HILL, ((10, 12), (20, 12), (20, 18), (10, 18)), level=2)
    bf2 = Battlefield(oak_ridge().with_feature(inner), T)
    assert bf2.level_at((15, 15)) == 2


# -- RULE-03-4.4 intervening hills ----------------------------------------------------------------------


def test_rule_03_4_4_hill_blocks_level_0_to_level_0():
    a = foot("a", 30, 5, facing=180)
    b = foot("b", 30, 40, facing=0, side="csa")
    bf = Battlefield(battle_of(a, b, terrain=[OAK_RIDGE]), T)
    los = bf.line_of_sight("a", "b")
    assert not los.visible and los.rule == "RULE-03-4.4"
    assert not bf.line_of_sight("b", "a").visible
    # beside the ridge, the same pair sees each other
    c = foot("c", 70, 5, facing=180)
    d = foot("d", 70, 40, facing=0, side="csa")
    bf2 = Battlefield(battle_of(c, d, terrain=[OAK_RIDGE]), T)
    assert bf2.line_of_sight("c", "d").visible


def test_rule_03_5_5_crest_blocks_sight_to_lower_ground_beyond():
    # a viewer on a level 1 hill cannot see level 0 ground beyond another level 1 ridge
    knob = TerrainFeature("knob", TerrainType.HILL, ((20, -20), (40, -20), (40, 0), (20, 0)), level=1)
    a = foot("a", 30, -10, facing=180)
    b = foot("b", 30, 40, facing=0, side="csa")
    bf = Battlefield(battle_of(a, b, terrain=[OAK_RIDGE, knob]), T)
    assert bf.level_of("a") == 1
    assert not bf.line_of_sight("a", "b").visible


# -- RULE-03-5.5 woods, crops, orchards, towns ---------------------------------------------------------


def across(ttype, width, **kw):
    """Two enemies facing each other 20" apart with ``width`` inches of terrain across the sight line."""
    a = foot("a", 10, 0, facing=180)
    b = foot("b", 10, 20, facing=0, side="csa")
    f = rect("f", ttype, 0, 10 - width / 2, 20, 10 + width / 2, **kw)
    return Battlefield(battle_of(a, b, terrain=[f]), T)


@pytest.mark.parametrize(
    "ttype,limit",
    [("dense_woods", 3.0), ("cornfield", 4.0), ("orchard", 6.0), ("light_woods", 6.0)],
)
def test_rule_03_5_5_sight_limits_inside_terrain(ttype, limit):
    assert T.value(f"terrain.matrix.{ttype}.sight_limit_in") == limit
    assert across(ttype, limit - 0.1).line_of_sight("a", "b").visible
    assert across(ttype, limit).line_of_sight("a", "b").visible  # blocked only *beyond* the limit
    los = across(ttype, limit + 0.1).line_of_sight("a", "b")
    assert not los.visible and los.rule == "RULE-03-5.5" and los.blocked_by == "f"


def test_rule_03_5_5_dense_woods_2_9_and_3_1():
    assert across("dense_woods", 2.9).line_of_sight("a", "b").visible
    assert not across("dense_woods", 3.1).line_of_sight("a", "b").visible


def test_rule_03_5_5_unit_inside_woods_sees_out_within_the_limit():
    woods = rect("w", "dense_woods", 0, 0, 20, 4)
    a = foot("a", 10, 4 - 2.9, facing=180)  # 2.9" of woods between it and the edge
    b = foot("b", 10, 20, facing=0, side="csa")
    bf = Battlefield(battle_of(a, b, terrain=[woods]), T)
    assert bf.line_of_sight("a", "b").visible
    a2 = foot("a", 10, 4 - 3.1, facing=180)
    assert not Battlefield(battle_of(a2, b, terrain=[woods]), T).line_of_sight("a", "b").visible


@pytest.mark.parametrize("ttype", ["town_wooden", "town_masonry", "building"])
def test_rule_03_5_5_towns_and_buildings_block_through_their_footprint(ttype):
    bf = across(ttype, 1.0)
    los = bf.line_of_sight("a", "b")
    assert not los.visible and los.blocked_by == "f" and los.rule == "RULE-03-5.5"


# A town sector 12" wide and 6" deep, its south edge at y=10; the enemy 10" south of that edge.
TOWN_SOUTH_EDGE = 10.0


def in_town(depth, *, ttype="town_masonry", tables=T, target=(10.0, 20.0), garrisoned=False):
    """A regiment in assault column ``depth`` inches inside the town's south edge, facing south (out
    of the town), and an enemy regiment at ``target`` facing north."""
    town = rect("t", ttype, 4, 4, 16, 10, name="Sharpsburg")
    marks = frozenset({Marker.GARRISONED}) if garrisoned else frozenset()
    a = foot("a", 10, TOWN_SOUTH_EDGE - depth, facing=180, formation=Formation.ASSAULT_COLUMN, markers=marks)
    b = foot("b", *target, facing=0, side="csa")
    return Battlefield(battle_of(a, b, terrain=[town]), tables)


def test_the_edge_a_unit_sees_out_of_a_town_through_is_a_club_default_of_1_inch():
    e = T.entry("terrain.sight.structure_edge_in")
    assert e.value == 1.0 and e.club_default and e.rule is None and "RULE-03-5.5" in e.reason


@pytest.mark.parametrize("ttype", ["town_wooden", "town_masonry"])
@pytest.mark.parametrize("depth,sees", [(0.0, True), (0.9, True), (1.0, True), (1.1, False), (4.0, False)])
def test_rule_03_5_5_a_unit_in_a_town_sees_out_only_from_its_edge(ttype, depth, sees):
    """Town sectors block sight through their footprint (RULE-03-5.5); a unit standing in one sees
    out through the first 1.0" of it (club default): on the edge it sees and is seen, deeper in
    the houses between hide it, both ways alike."""
    bf = in_town(depth, ttype=ttype)
    out, back = bf.line_of_sight("a", "b"), bf.line_of_sight("b", "a")
    assert out.visible is sees and back.visible is sees
    if not sees:
        for los in (out, back):
            assert los.blocked_by == "t" and los.rule == "RULE-03-5.5"
            assert f'runs {depth:.1f}" through Sharpsburg, where a stands' in los.reason
            assert 'no more than 1" of it (club default)' in los.reason


@pytest.mark.parametrize("depth,sees", [(0.9, True), (1.1, False)])
def test_rule_03_5_5_a_target_in_a_town_is_seen_only_at_its_edge(depth, sees):
    """The enemy outside looks at a target in the town: the same 1.0" of the target's own sector."""
    bf = in_town(depth)
    assert bf.line_of_sight("b", "a").visible is sees
    assert [o.sight.visible for o in bf.legal_targets("b") if o.unit_id == "a"] == [sees]


@pytest.mark.parametrize("depth,sees", [(0.7, True), (0.8, False)])
def test_rule_03_5_5_the_edge_of_a_town_is_measured_along_the_sight_line(depth, sees):
    """At 45 degrees a unit 0.7" in has 0.99" of town on its sight line; one 0.8" in has 1.13"."""
    bf = in_town(depth, target=(10.0 + 10.0 + depth, 20.0))
    assert bf.line_of_sight("a", "b").visible is sees


def test_rule_03_5_5_a_unit_on_the_edge_of_a_town_does_not_see_out_of_its_far_side():
    """On the south edge it sees south, but not north through the 5.5" of town behind it."""
    bf = in_town(0.5, target=(10.0, -10.0))
    los = bf.line_of_sight("a", "b")
    assert not los.visible and los.blocked_by == "t" and 'runs 5.5" through' in los.reason
    assert not bf.line_of_sight("b", "a").visible


@pytest.mark.parametrize("apart,sees", [(1.8, True), (2.0, True), (2.2, False)])
def test_rule_03_5_5_two_units_in_one_town_see_each_other_through_their_two_edges(apart, sees):
    town = rect("t", "town_wooden", 0, 0, 12, 12)
    a = foot("a", 6 - apart / 2, 6, facing=90, formation=Formation.ASSAULT_COLUMN)
    b = foot("b", 6 + apart / 2, 6, facing=270, side="csa", formation=Formation.ROAD_COLUMN)
    bf = Battlefield(battle_of(a, b, terrain=[town]), T)
    los = bf.line_of_sight("a", "b")
    assert los.visible is sees
    if not sees:
        assert "where a and b stand" in los.reason


def test_the_club_can_widen_or_close_the_edge_of_a_town():
    wide = T.with_values({"terrain.sight.structure_edge_in": 2.0})
    assert in_town(1.9, tables=wide).line_of_sight("a", "b").visible
    assert not in_town(2.1, tables=wide).line_of_sight("a", "b").visible
    shut = T.with_values({"terrain.sight.structure_edge_in": 0.0})
    assert in_town(0.0, tables=shut).line_of_sight("a", "b").visible
    assert not in_town(0.1, tables=shut).line_of_sight("a", "b").visible


def test_a_negative_edge_of_a_town_is_refused_with_its_key():
    # refused as the tables are made, before any sight line is drawn with it
    with pytest.raises(TableError, match=r"terrain.sight.structure_edge_in is -1.0, outside 0 to 12"):
        T.with_values({"terrain.sight.structure_edge_in": -1.0})


def building_with(garrisoned, target):
    """A 4" square building at (8..12, 8..12) with a 2-stand regiment's colour stand in its middle."""
    house = rect("h", "building", 8, 8, 12, 12, name="Dunker Church")
    marks = frozenset({Marker.GARRISONED}) if garrisoned else frozenset()
    a = foot("a", 10, 10, facing=0, stands=2, formation=Formation.ASSAULT_COLUMN, markers=marks)
    b = foot("b", *target, facing=0, side="csa")
    return Battlefield(battle_of(a, b, terrain=[house]), T)


@pytest.mark.parametrize("target", [(10, 25), (10, -5), (25, 10), (-5, 10), (22, 22)])
def test_rule_03_3_1_a_garrison_sees_out_of_every_face_of_its_building_and_is_seen(target):
    """All-around fire (RULE-03-3.1): its own building never blocks a garrison's sight, 2" deep or
    not, nor sight to it (it is fired on, RULE-03-3.2)."""
    bf = building_with(True, target)
    assert bf.building_of("a") is not None
    assert bf.line_of_sight("a", "b").visible and bf.line_of_sight("b", "a").visible
    # the same regiment without the garrison marker is 2" deep in the building: blocked
    bf = building_with(False, target)
    assert not bf.line_of_sight("a", "b").visible and not bf.line_of_sight("b", "a").visible
    assert bf.line_of_sight("a", "b").blocked_by == "h"


def test_rule_03_5_5_a_garrison_does_not_see_through_another_building():
    house = rect("h", "building", 8, 8, 12, 12)
    barn = rect("barn", "building", 8, 16, 12, 18, name="Roulette barn")
    a = foot(
        "a", 10, 10, stands=2, formation=Formation.ASSAULT_COLUMN, markers=frozenset({Marker.GARRISONED})
    )
    b = foot("b", 10, 25, side="csa")
    bf = Battlefield(battle_of(a, b, terrain=[house, barn]), T)
    los = bf.line_of_sight("a", "b")
    assert (
        not los.visible
        and los.blocked_by == "barn"
        and los.reason == "the sight line passes through Roulette barn"
    )


def test_rule_03_4_2_crest_sees_over_crops_on_lower_ground():
    crops = rect("corn", "cornfield", 0, 33, 60, 40)  # 7" of corn across the valley
    b = oak_ridge()
    b = b.with_feature(crops).with_unit(b.unit("va4").moved_to(30, 45))
    bf = Battlefield(b, T)
    assert bf.line_of_sight("btyB", "va4").visible
    # the same corn blocks two units at level 0
    flat = battle_of(foot("a", 30, 31, facing=180), foot("b", 30, 45, side="csa"), terrain=[crops])
    assert not Battlefield(flat, T).line_of_sight("a", "b").visible


@settings(max_examples=25, deadline=None)
@given(
    ax=st.floats(0, 60),
    ay=st.floats(-10, 45),
    bx=st.floats(0, 60),
    by=st.floats(-10, 45),
    fa=st.floats(0, 359),
    fb=st.floats(0, 359),
    width=st.floats(0.5, 8),
    ttype=st.sampled_from(["dense_woods", "cornfield", "orchard", "town_wooden", "light_woods"]),
)
def test_property_terrain_sight_is_symmetric(ax, ay, bx, by, fa, fb, width, ttype):
    """With no units in the way, terrain blocks sight both ways alike (RULE-03-4.3, RULE-03-4.4, RULE-03-4.5, RULE-03-5.1, RULE-03-5.2, RULE-03-5.3, RULE-03-5.4, RULE-03-5.5)."""
    if abs(ax - bx) + abs(ay - by) < 0.5:
        return
    a = foot("a", ax, ay, facing=fa)
    b = foot("b", bx, by, facing=fb, side="csa")
    f = rect("f", ttype, 5, 32, 50, 32 + width)
    bf = Battlefield(battle_of(a, b, terrain=[OAK_RIDGE, f]), T)
    ab, ba = bf.line_of_sight("a", "b"), bf.line_of_sight("b", "a")
    assert ab.visible == ba.visible
    assert ab.blocked_by == ba.blocked_by


# -- RULE-03-5.3 / 5.4 friendly units and skirmish screens -------------------------------------------------


def test_rule_03_5_3_friendly_line_blocks_every_stand():
    a = foot("a", 10, 0, facing=180, stands=3)
    screen = foot("f", 10, 5, facing=180, stands=6)
    b = foot("b", 10, 15, facing=0, side="csa")
    los = Battlefield(battle_of(a, screen, b), T).line_of_sight("a", "b")
    assert not los.visible and los.blocked_by == "f" and los.rule == "RULE-03-5.3" and los.clear_stands == 0


def test_rule_03_5_3_partly_blocked_pool_counts_stands_with_a_clear_view():
    a = foot("a", 10, 0, facing=180, stands=5)  # stands at x = 7, 8.5, 10, 11.5, 13
    f = foot("f", 8.0, 6, facing=180, stands=1)  # one stand in front of a's westmost stand
    b = foot("b", 10, 20, facing=0, side="csa")
    los = Battlefield(battle_of(a, f, b), T).line_of_sight("a", "b")
    assert los.visible and los.clear_stands == 4
    assert los.blocked_by == "f" and los.rule == "RULE-03-5.3"
    # an enemy unit in the way does not shrink the pool
    e = foot("e", 8.0, 6, facing=0, stands=1, side="csa")
    assert Battlefield(battle_of(a, e, b), T).line_of_sight("a", "b").clear_stands == 5


def test_rule_03_5_4_parent_fires_through_its_own_skirmish_screen_at_minus_1():
    a = foot("a", 10, 0, facing=180, stands=4)
    sk = foot(
        "sk", 10, 4, facing=180, stands=2, kind=UnitKind.SKIRMISHERS, formation=Formation.SKIRMISH, parent="a"
    )
    b = foot("b", 10, 15, facing=0, side="csa")
    los = Battlefield(battle_of(a, sk, b), T).line_of_sight("a", "b")
    assert los.visible and los.through_own_screen and los.to_hit_modifier == -1
    assert los.rule == "RULE-03-5.4" and los.clear_stands == 4
    # another regiment's screen is no exception
    other = foot("o", 20, 0, facing=180, stands=2)
    sk2 = foot(
        "sk", 10, 4, facing=180, stands=2, kind=UnitKind.SKIRMISHERS, formation=Formation.SKIRMISH, parent="o"
    )
    los2 = Battlefield(battle_of(a, other, sk2, b), T).line_of_sight("a", "b")
    assert not los2.through_own_screen and los2.clear_stands < 4


# -- RULE-03-4.5 overhead fire --------------------------------------------------------------------------


def overhead(friend_y: float, target_y: float = 60.0, friend_stands=5):
    """Battery B on the crest (y=20, facing south), a friendly line in the valley at ``friend_y``."""
    battery = guns("btyB", 30, 20, facing=180, sections=1)
    friend = foot("fr", 30, friend_y, facing=180, stands=friend_stands)
    va = foot("va4", 30, target_y, facing=0, side="csa")
    return Battlefield(battle_of(battery, friend, va, terrain=[OAK_RIDGE]), T)


def test_rule_03_4_5_overhead_fire_with_6in_from_muzzle_and_4in_from_target():
    # the friend's front edge is at friend_y; its stands lie north of it (towards the battery)
    bf = overhead(friend_y=32.0)  # 12 - 0.75 = 11.25" from the muzzle, 28" from the target
    assert bf.level_of("fr") == 0
    los = bf.line_of_sight("btyB", "va4")
    assert los.visible and los.overhead_over == ("fr",) and los.rule == "RULE-03-4.5"


def test_rule_03_4_5_friend_5_9in_from_the_muzzle_blocks_6_0_does_not():
    # a narrow ridge (its foot 2" below the crest), so that the friend stands on level 0
    ridge_small = TerrainFeature(
        "oak", TerrainType.HILL, ((0, 10), (60, 10), (60, 22), (0, 22)), level=1, crest=((0, 20), (60, 20))
    )
    for gap, ok in ((5.9, False), (6.0, True), (6.1, True)):
        b = battle_of(
            guns("btyB", 30, 20, facing=180, sections=1),
            foot("fr", 30, 20 + gap + 0.75, facing=180),
            foot("va4", 30, 60, facing=0, side="csa"),
            terrain=[ridge_small],
        )
        bf = Battlefield(b, T)
        assert bf.level_of("fr") == 0
        los = bf.line_of_sight("btyB", "va4")
        assert los.visible is ok, gap
        assert los.rule == "RULE-03-4.5"
        assert ("from the muzzle" in los.reason) is (not ok)


def test_rule_03_4_5_friend_3_9in_from_the_target_blocks_4_0_does_not():
    for gap, ok in ((3.9, False), (4.0, True)):
        bf = overhead(friend_y=40.0, target_y=40.0 + gap)
        assert bf.line_of_sight("btyB", "va4").visible is ok, gap


def test_rule_03_4_5_never_canister_overhead():
    ridge_small = TerrainFeature(
        "oak",
        TerrainType.HILL,
        ((0, 10), (60, 10), (60, 20.5), (0, 20.5)),
        level=1,
        crest=((0, 20), (60, 20)),
    )
    canister = T.value("shooting.canister.max_range")
    # a target within canister range of the muzzle cannot be fired at over a friend
    b = battle_of(
        guns("btyB", 30, 20, facing=180, sections=1),
        foot("fr", 30, 21.5, facing=180, stands=1),
        foot("va4", 30, 20 + canister, facing=0, side="csa"),
        terrain=[ridge_small],
    )
    los = Battlefield(b, T).line_of_sight("btyB", "va4")
    assert not los.visible and los.blocked_by == "fr"
    assert los.rule == "RULE-03-4.5" and "canister" in los.reason
    # just beyond canister range, with both clearances met, the battery fires over
    b2 = battle_of(
        guns("btyB", 30, 20, facing=180, sections=1),
        foot("fr", 30, 26.75, facing=180, stands=1),
        foot("va4", 30, 30.75 + 0.1, facing=0, side="csa"),
        terrain=[ridge_small],
    )
    bf2 = Battlefield(b2, T)
    from rules.battlefield.geometry import distance_in

    assert distance_in(b2.unit("btyB"), b2.unit("va4"), T) > canister
    assert bf2.line_of_sight("btyB", "va4").visible


def test_rule_03_4_5_guns_at_level_0_cannot_fire_over_friends():
    b = battle_of(
        guns("g", 30, 0, facing=180, sections=1),
        foot("fr", 30, 10, facing=180),
        foot("e", 30, 30, side="csa"),
    )
    assert not Battlefield(b, T).line_of_sight("g", "e").visible


# -- RULE-03-5.6 target priority ------------------------------------------------------------------------


def test_rule_03_5_6_closest_unengaged_enemy_in_arc_is_the_target():
    f = foot("f", 30, 0, facing=180)
    near = foot("near", 30, 10, side="csa")
    far = foot("far", 40, 14, side="csa")
    bf = Battlefield(battle_of(f, near, far), T)
    opts = {o.unit_id: o for o in bf.legal_targets("f")}
    assert opts["near"].allowed and not opts["far"].allowed
    assert opts["near"].rule == "RULE-03-5.6"


def test_rule_03_5_6_engaged_enemy_is_passed_over():
    f = foot("f", 30, 0, facing=180)
    near = foot("near", 30, 10, side="csa", markers=frozenset({Marker.ENGAGED}))
    far = foot("far", 40, 14, side="csa")
    opts = {o.unit_id: o for o in Battlefield(battle_of(f, near, far), T).legal_targets("f")}
    assert not opts["near"].allowed and opts["far"].allowed


def test_rule_03_5_6_charging_enemy_is_the_mandatory_target():
    f = foot("f", 30, 0, facing=180)
    near = foot("near", 30, 10, side="csa")
    charger = foot("ch", 40, 14, side="csa")
    opts = {
        o.unit_id: o for o in Battlefield(battle_of(f, near, charger), T).legal_targets("f", charging=["ch"])
    }
    assert opts["ch"].allowed and opts["ch"].mandatory
    assert not opts["near"].allowed


def test_rule_03_5_6_enfilade_may_pass_a_closer_frontal_target():
    # the firer faces east; the far enemy faces north with its right flank towards the firer
    f = foot("f", 0, 10, facing=90, stands=4)
    near = foot("near", 3, 10, facing=270, side="csa", stands=2)
    flank = foot("fl", 9.5, 8, facing=0, side="csa", stands=4)  # its front line y=8: the firer is behind it
    bf = Battlefield(battle_of(f, near, flank), T)
    assert bf.enfilade("f", "fl") == "left"
    opts = {o.unit_id: o for o in bf.legal_targets("f")}
    assert opts["near"].distance_in < opts["fl"].distance_in
    assert opts["near"].allowed
    assert opts["fl"].in_arc and opts["fl"].sight.visible
    assert opts["fl"].allowed and opts["fl"].rule == "RULE-03-5.7"


def test_rule_03_5_6_enfilade_beyond_effective_range_is_not_an_exception():
    eff = T.value("terrain.priority.enfilade_effective_range_in")
    f = foot("f", 0, 10, facing=90, stands=4)
    near = foot("near", 3, 10, facing=270, side="csa", stands=2)
    flank = foot("fl", eff + 4.0, 8, facing=0, side="csa", stands=4)
    bf = Battlefield(battle_of(f, near, flank), T)
    opts = {o.unit_id: o for o in bf.legal_targets("f")}
    assert opts["fl"].distance_in > eff and not opts["fl"].allowed


def test_rule_03_5_6_artillery_may_pass_over_closer_skirmishers():
    g = guns("g", 30, 0, facing=180, sections=2)
    sk = foot(
        "sk",
        30,
        4,
        side="csa",
        stands=2,
        kind=UnitKind.SKIRMISHERS,
        formation=Formation.SKIRMISH,
        parent="ln",
    )
    line = foot("ln", 30, 7.5, side="csa")
    opts = {o.unit_id: o for o in Battlefield(battle_of(g, sk, line), T).legal_targets("g")}
    assert opts["sk"].allowed and opts["ln"].allowed
    # infantry may not
    i = foot("i", 30, 0, facing=180)
    opts2 = {o.unit_id: o for o in Battlefield(battle_of(i, sk, line), T).legal_targets("i")}
    assert opts2["sk"].allowed and not opts2["ln"].allowed


def test_rule_03_5_6_out_of_arc_and_out_of_range():
    f = foot("f", 30, 0, facing=180)
    behind = foot("bh", 30, -10, side="csa", facing=180)
    far = foot("far", 30, 40, side="csa")
    opts = {o.unit_id: o for o in Battlefield(battle_of(f, behind, far), T).legal_targets("f")}
    assert not opts["bh"].allowed and opts["bh"].rule == "RULE-03-5.1"
    assert not opts["far"].in_range and not opts["far"].allowed


def test_rule_03_2_5_climbing_unit_fires_no_muskets():
    f = foot("f", 30, 0, facing=180, markers=frozenset({Marker.CLIMBING}))
    e = foot("e", 30, 8, side="csa")
    opts = Battlefield(battle_of(f, e), T).legal_targets("f")
    assert not opts[0].allowed and opts[0].rule == "RULE-03-2.5"


# -- batch -----------------------------------------------------------------------------------------------


def test_visibility_matrix_agrees_with_single_checks():
    b = oak_ridge(extra=[foot("va27", 40, 40, side="csa"), foot("ga8", 5, 2, side="csa", facing=180)])
    bf = Battlefield(b, T)
    union = [b.unit("btyB"), b.unit("wis2")]
    csa = [b.unit("va4"), b.unit("va27"), b.unit("ga8")]
    m = bf.visibility_matrix(union, csa)
    for i, u in enumerate(union):
        for j, e in enumerate(csa):
            los = bf.line_of_sight(u, e)
            assert m.visible[i, j] == los.visible
            assert m.clear_stands[i, j] == los.clear_stands


def test_line_of_sight_rejects_bad_requests():
    bf = Battlefield(oak_ridge(), T)
    with pytest.raises(InvariantError):
        bf.line_of_sight("wis2", "wis2")
    with pytest.raises(InvariantError):
        bf.line_of_sight("wis2", "nobody")
    with pytest.raises(InvariantError):
        Battlefield("a battle", T)


@settings(max_examples=40, deadline=None)
@given(
    x0=st.floats(-5, 25),
    y0=st.floats(-5, 25),
    x1=st.floats(-5, 25),
    y1=st.floats(-5, 25),
    notch=st.booleans(),
)
def test_property_length_inside_matches_shapely(x0, y0, x1, y1, notch):
    """The arithmetic clipping of sight lines agrees with shapely, for convex and notched outlines."""
    import numpy as np
    import shapely

    pts = (
        ((0, 0), (20, 0), (20, 20), (10, 8), (0, 20))
        if notch
        else ((0, 0), (20, 0), (22, 10), (20, 20), (0, 20))
    )
    f = TerrainFeature("w", TerrainType.DENSE_WOODS, pts)
    bf = Battlefield(battle_of(foot("a", 50, 50), terrain=[f]), T)
    seg = shapely.LineString([(x0, y0), (x1, y1 + 1e-3)])
    got = bf.terrain.inside_length(
        np.array([[x0, y0]]), np.array([[x1, y1 + 1e-3]]), np.array([0]), np.array([seg], dtype=object)
    )[0]
    assert bool(bf.terrain.convex[0]) == (not notch)
    # They agree up to the part of the line lying exactly on the outline (a line grazing the edge
    # of the woods), which floating point may count on either side: it is measure zero on a table.
    poly = bf.feature_geometry("w")
    whole = seg.intersection(poly).length
    on_edge = seg.intersection(poly.boundary).length
    assert whole - on_edge - 1e-6 <= got <= whole + 1e-6


def test_rule_03_5_5_notched_woods_measured_along_the_line():
    # a U-shaped wood 6" deep, its notch 4" deep: along the notch only 2" of woods is in the way
    woods = TerrainFeature(
        "w",
        TerrainType.DENSE_WOODS,
        ((0, 8), (20, 8), (20, 14), (12, 14), (12, 10), (8, 10), (8, 14), (0, 14)),
    )
    a = foot("a", 10, 0, facing=180)
    b = foot("b", 10, 20, side="csa")
    bf = Battlefield(battle_of(a, b, terrain=[woods]), T)
    assert not bf.terrain.convex[0]
    assert bf.line_of_sight("a", "b").visible
    b2 = foot("b", 4, 20, side="csa")  # through an arm: 6" of woods
    a2 = foot("a", 4, 0, facing=180)
    assert not Battlefield(battle_of(a2, b2, terrain=[woods]), T).line_of_sight("a", "b").visible
