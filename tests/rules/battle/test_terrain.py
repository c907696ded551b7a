"""The Master Terrain Matrix, movement through terrain, cover and buildings (chapter 03, 1.0-3.0)."""

from __future__ import annotations

import pytest

from rules.battle.terrain import TerrainType
from rules.battle.words import Formation, Marker, UnitKind
from rules.battlefield.field import Battlefield, damage_building
from rules.errors import IllegalAction, InvariantError, TableError
from rules.tables import load_tables
from tests.rules.conftest import battle_of, foot, guns, line, rect

T = load_tables()
EFFECTS = (
    "move_per_in",
    "formations_barred",
    "cover",
    "sight",
    "melee_defence",
    "disorders_line",
    "impassable",
)


# -- RULE-03-1.2 the Master Terrain Matrix -------------------------------------------------------------


@pytest.mark.parametrize("ttype", list(TerrainType))
def test_rule_03_1_2_matrix_covers_every_terrain_type(ttype):
    for effect in EFFECTS:
        e = T.entry(f"terrain.matrix.{ttype.value}.{effect}")
        assert e.rule or (e.club_default and e.reason)
    assert T.value(f"terrain.matrix.{ttype.value}.cover") in ("none", "light", "heavy")
    assert T.value(f"terrain.matrix.{ttype.value}.sight") in ("clear", "limited", "blocks", "crest")


def test_rule_03_1_2_matrix_values_from_the_chapter():
    v = T.value
    assert v("terrain.matrix.dense_woods.sight_limit_in") == 3.0
    assert v("terrain.matrix.cornfield.sight_limit_in") == 4.0
    assert v("terrain.matrix.orchard.sight_limit_in") == 6.0
    assert v("terrain.matrix.light_woods.sight_limit_in") == 6.0
    for t in ("town_wooden", "town_masonry", "building"):
        assert v(f"terrain.matrix.{t}.sight") == "blocks"
    assert "line" in v("terrain.matrix.town_wooden.formations_barred")
    assert "assault_column" not in v("terrain.matrix.town_masonry.formations_barred")
    assert (
        v("terrain.matrix.town_wooden.cover") == "light" and v("terrain.matrix.town_masonry.cover") == "heavy"
    )
    assert v("terrain.matrix.split_rail_fence.melee_defence") == 1
    assert v("terrain.matrix.stone_wall.melee_defence") == 2
    assert v("terrain.matrix.hedge.melee_defence") == 0
    assert {t.value for t in TerrainType if v(f"terrain.matrix.{t.value}.disorders_line")} == {
        "dense_woods",
        "swamp",
        "abatis",
    }
    assert T.entry("terrain.matrix.light_woods.move_per_in").club_default


def test_matrix_club_copy_is_range_checked():
    with pytest.raises(TableError):
        T.with_values({"terrain.matrix.dense_woods.sight_limit_in": -1.0})
    with pytest.raises(TableError):
        T.with_values({"terrain.arc.forward_deg": 95.0})
    assert (
        T.with_values({"terrain.matrix.dense_woods.sight_limit_in": 2.0}).value(
            "terrain.matrix.dense_woods.sight_limit_in"
        )
        == 2.0
    )


# -- movement (RULE-03-1.3, RULE-03-1.4, RULE-03-1.5, RULE-03-2.1, RULE-03-2.2, RULE-03-2.3, RULE-03-2.4, RULE-03-2.5, RULE-03-3.3) ---


def mover(formation=Formation.LINE, stands=4, x=10.0, y=20.0, **kw):
    return foot("m", x, y, facing=0, stands=stands, formation=formation, **kw)


def test_open_ground_move_costs_its_length():
    bf = Battlefield(battle_of(mover()), T)
    plan = bf.plan_move("m", [(10, 16)])
    assert plan.moved_in == pytest.approx(4.0) and plan.spent_in == pytest.approx(4.0) and plan.complete
    assert plan.end == pytest.approx((10, 16)) and plan.items == ()


def test_rule_03_1_3_penalty_starts_when_the_leading_edge_touches():
    # dense woods 2" ahead: 2" of open ground, then every inch costs 2 (club default)
    rate = T.value("terrain.matrix.dense_woods.move_per_in")
    woods = rect("w", "dense_woods", 0, 0, 30, 18)
    bf = Battlefield(battle_of(mover(formation=Formation.ASSAULT_COLUMN), terrain=[woods]), T)
    plan = bf.plan_move("m", [(10, 10)], allowance_in=6.0)
    assert plan.moved_in == pytest.approx(2.0 + 4.0 / rate)
    assert plan.halted_by == "w" and plan.halt_rule == "RULE-03-1.3"
    assert any(i.feature_id == "w" for i in plan.items)


def test_rule_03_1_3_halts_inside_without_movement_to_clear():
    woods = rect("w", "light_woods", 0, 14, 30, 18)
    rate = T.value("terrain.matrix.light_woods.move_per_in")
    bf = Battlefield(battle_of(mover(formation=Formation.ROAD_COLUMN, stands=1), terrain=[woods]), T)
    plan = bf.plan_move("m", [(10, 8)], allowance_in=4.0)
    # 2" open, then 2" of allowance buys 2/rate inches in the woods
    assert plan.moved_in == pytest.approx(2.0 + 2.0 / rate)
    assert bf.level_at(plan.end) == 0 and woods.id in [f.id for f in bf.features_at(plan.end)]


@pytest.mark.parametrize(
    "ttype,cost", [("split_rail_fence", 2.0), ("stone_wall", 2.0), ("hedge", 2.0), ("abatis", 3.0)]
)
def test_rule_03_2_crossing_costs(ttype, cost):
    f = line("o", ttype, (0, 17), (30, 17))
    bf = Battlefield(battle_of(mover(), terrain=[f]), T)
    plan = bf.plan_move("m", [(10, 14)], allowance_in=6.0)
    assert [i.inches for i in plan.items if i.feature_id == "o"] == [cost]
    assert plan.moved_in == pytest.approx(6.0 - cost)
    assert plan.items[0].rule == T.entry(f"movement.crossing.{ttype}").rule


def test_crossing_without_enough_movement_halts_at_the_obstacle():
    f = line("o", "abatis", (0, 15), (30, 15))
    bf = Battlefield(battle_of(mover(formation=Formation.ASSAULT_COLUMN), terrain=[f]), T)
    plan = bf.plan_move("m", [(10, 12)], allowance_in=6.0)  # 5" to reach it, 3" to cross
    assert plan.halted_by == "o" and plan.moved_in == pytest.approx(5.0)


def test_rule_03_1_4_formed_unit_in_command_always_moves_2in():
    woods = rect("w", "swamp", 0, 0, 30, 20.5)
    bf = Battlefield(battle_of(mover(formation=Formation.ASSAULT_COLUMN), terrain=[woods]), T)
    plan = bf.plan_move("m", [(10, 10)], allowance_in=1.0)
    assert plan.minimum_move and plan.moved_in == pytest.approx(2.0)
    assert any(i.rule == "RULE-03-1.4" for i in plan.items)
    out = bf.plan_move("m", [(10, 10)], allowance_in=1.0, in_command=False)
    assert not out.minimum_move and out.moved_in < 2.0
    # above 2.0" of progress the minimum does not apply
    rate = T.value("terrain.matrix.swamp.move_per_in")
    longer = bf.plan_move("m", [(10, 10)], allowance_in=2.1 * rate)
    assert not longer.minimum_move and longer.moved_in == pytest.approx(2.1)
    shorter = bf.plan_move("m", [(10, 10)], allowance_in=1.9 * rate)
    assert shorter.minimum_move and shorter.moved_in == pytest.approx(2.0)


def test_rule_03_1_4_minimum_move_never_enters_impassable_terrain():
    house = rect("h", "building", 5, 17, 15, 19.5)  # 0.5" ahead
    bf = Battlefield(battle_of(mover(), terrain=[house]), T)
    plan = bf.plan_move("m", [(10, 10)])
    assert plan.halted_by == "h" and plan.moved_in == pytest.approx(0.5)
    assert not plan.minimum_move


def test_impassable_by_feature_property():
    cliff = rect("c", "open", 0, 14, 30, 15, props={"impassable": True})
    bf = Battlefield(battle_of(mover(), terrain=[cliff]), T)
    plan = bf.plan_move("m", [(10, 10)])
    assert plan.halted_by == "c" and plan.moved_in == pytest.approx(5.0)


@pytest.mark.parametrize("ttype", ["dense_woods", "swamp"])
def test_rule_03_1_5_line_through_rough_ground_is_disordered(ttype):
    f = rect("r", ttype, 0, 15, 30, 16)
    bf = Battlefield(battle_of(mover(), terrain=[f]), T)
    unit, plan = bf.move("m", [(10, 14)], allowance_in=12.0)
    assert plan.disorder and unit.has(Marker.DISORDER)
    col, plan2 = Battlefield(battle_of(mover(formation=Formation.ASSAULT_COLUMN), terrain=[f]), T).move(
        "m", [(10, 14)], allowance_in=12.0
    )
    assert not plan2.disorder and not col.has(Marker.DISORDER)


def test_rule_03_1_5_line_crossing_abatis_is_disordered_but_not_light_woods():
    ab = line("a", "abatis", (0, 17), (30, 17))
    assert Battlefield(battle_of(mover(), terrain=[ab]), T).plan_move("m", [(10, 14)]).disorder
    lw = rect("l", "light_woods", 0, 15, 30, 16)
    assert (
        not Battlefield(battle_of(mover(), terrain=[lw]), T)
        .plan_move("m", [(10, 14)], allowance_in=12)
        .disorder
    )


def test_rule_03_2_2_column_crossing_a_stone_wall_needs_a_discipline_check():
    wall = line("w", "stone_wall", (0, 17), (30, 17))
    col = Battlefield(battle_of(mover(formation=Formation.ASSAULT_COLUMN), terrain=[wall]), T)
    assert col.plan_move("m", [(10, 14)]).discipline_check == "RULE-03-2.2"
    ln = Battlefield(battle_of(mover(), terrain=[wall]), T)
    assert ln.plan_move("m", [(10, 14)]).discipline_check is None
    fence = line("f", "split_rail_fence", (0, 17), (30, 17))
    assert (
        Battlefield(battle_of(mover(formation=Formation.ASSAULT_COLUMN), terrain=[fence]), T)
        .plan_move("m", [(10, 14)])
        .discipline_check
        is None
    )


def test_rule_03_2_5_climbing_out_of_a_sunken_road_takes_the_whole_move_and_no_muskets():
    lane = line("lane", "sunken_road", (0, 20), (30, 20), width_in=2.0, name="Bloody Lane")
    bf = Battlefield(battle_of(mover(y=20.5), terrain=[lane]), T)
    unit, plan = bf.move("m", [(10, 14)])
    assert plan.no_musketry and unit.has(Marker.CLIMBING)
    assert plan.spent_in == pytest.approx(6.0)
    # it ends out of the lane: its rear (0.75" deep, from y=21.25) on the lane's edge at y=19
    assert plan.moved_in == pytest.approx(2.25, abs=1e-3) and plan.end == pytest.approx((10, 18.25))
    assert plan.items[0].rule == "RULE-03-2.5"
    # moving along inside the lane is no climb
    along = bf.plan_move("m", [(14, 20.5)])
    assert not along.no_musketry and along.moved_in == pytest.approx(4.0)


def test_rule_03_3_3_line_of_battle_cannot_enter_a_town_sector():
    town = rect("t", "town_wooden", 0, 10, 30, 16)
    bf = Battlefield(battle_of(mover(), terrain=[town]), T)
    plan = bf.plan_move("m", [(10, 12)])
    assert plan.halted_by == "t" and plan.halt_rule == "RULE-03-3.3" and plan.moved_in == pytest.approx(4.0)
    for f in (Formation.ASSAULT_COLUMN, Formation.ROAD_COLUMN, Formation.SKIRMISH):
        ok = Battlefield(battle_of(mover(formation=f), terrain=[town]), T).plan_move("m", [(10, 15)])
        assert ok.halted_by is None and ok.complete, f


def test_bad_paths_are_refused():
    bf = Battlefield(battle_of(mover()), T)
    with pytest.raises(InvariantError):
        bf.plan_move("m", [("a", 2)])
    with pytest.raises(InvariantError):
        bf.plan_move("m", [(float("inf"), 2)])
    with pytest.raises(InvariantError):
        bf.plan_move("m", [(10, 12)], allowance_in=-1)
    assert bf.plan_move("m", []).moved_in == 0.0


# -- cover (RULE-03-2.1, RULE-03-2.2, RULE-03-2.3, RULE-03-2.4, RULE-03-2.5, RULE-03-3.1, RULE-03-3.2, RULE-03-3.3, RULE-03-3.4, RULE-03-5.7) ---


def defender_behind(ttype, gap=0.0, **kw):
    """A regiment facing north with its front edge ``gap`` behind a linear feature along y=10."""
    f = line("f", ttype, (0, 10), (40, 10), **kw)
    d = foot("d", 20, 10 + gap, facing=0, side="csa")
    front = foot("front", 20, 0, facing=180)
    flank = foot("flank", 40, 12, facing=270, stands=4)  # off its right, behind the front line
    return Battlefield(battle_of(d, front, flank, terrain=[f]), T)


def test_rule_03_2_1_fence_light_cover_from_the_front_only():
    bf = defender_behind("split_rail_fence")
    c = bf.cover_for("d", "front")
    assert (c.kind, c.save, c.feature_id, c.rule) == ("light", 5, "f", "RULE-03-2.1")
    assert bf.cover_for("d", "flank").kind == "none"


def test_rule_03_2_1_fence_cover_needs_the_front_edge_touching():
    tol = T.value("terrain.cover.touching_in")
    assert defender_behind("split_rail_fence", gap=tol - 0.05).cover_for("d", "front").kind == "light"
    assert defender_behind("split_rail_fence", gap=tol + 0.05).cover_for("d", "front").kind == "none"


def test_rule_03_5_7_enfilade_denies_fence_cover():
    bf = defender_behind("hedge")
    assert bf.enfilade("flank", "d") == "right"
    assert bf.cover_for("d", "flank").kind == "none"
    assert bf.cover_for("d", "front").kind == "light"


def test_rule_03_2_2_stone_wall_heavy_cover_against_frontal_fire():
    bf = defender_behind("stone_wall")
    assert bf.cover_for("d", "front").save == 4
    assert bf.cover_for("d", "flank").kind == "none"


def test_rule_03_2_4_breastworks_heavy_cover():
    assert defender_behind("breastworks").cover_for("d", "front").kind == "heavy"


def test_rule_03_2_5_sunken_road_heavy_cover_all_round():
    lane = line("lane", "sunken_road", (0, 20), (40, 20), width_in=2.0)
    d = foot("d", 20, 20.5, facing=0, side="csa")
    f = foot("f", 40, 30, facing=0)
    c = Battlefield(battle_of(d, f, terrain=[lane]), T).cover_for("d", "f")
    assert (c.kind, c.save, c.rule) == ("heavy", 4, "RULE-03-2.5")


@pytest.mark.parametrize(
    "ttype,kind,rule",
    [
        ("town_wooden", "light", "RULE-03-3.3"),
        ("town_masonry", "heavy", "RULE-03-3.3"),
        ("rubble", "light", "RULE-03-3.2"),
    ],
)
def test_rule_03_3_town_and_rubble_cover(ttype, kind, rule):
    area = rect("a", ttype, 10, 10, 16, 16)
    d = foot("d", 13, 12, facing=0, side="csa", formation=Formation.ASSAULT_COLUMN)
    f = foot("f", 13, 0, facing=180)
    c = Battlefield(battle_of(d, f, terrain=[area]), T).cover_for("d", f)
    assert (c.kind, c.rule) == (kind, rule)


def test_no_cover_in_the_open():
    c = Battlefield(battle_of(foot("d", 0, 0, side="csa"), foot("f", 0, -10, facing=180)), T).cover_for(
        "d", "f"
    )
    assert (c.kind, c.save) == ("none", None)


# -- buildings (RULE-03-3.1, RULE-03-3.2) --------------------------------------------------------------------


def farm(stands=2, hits=0):
    house = rect("farm", "building", 10, 10, 14, 13, name="Roulette Farm", structural_hits=hits)
    g = foot("g", 12, 11, facing=0, side="csa", stands=stands, markers=frozenset({Marker.GARRISONED}))
    return battle_of(g, foot("e", 12, -5, facing=180), foot("side", 30, 11, facing=270), terrain=[house])


def test_rule_03_3_1_garrison_heavy_cover_all_round_and_never_enfiladed():
    bf = Battlefield(farm(), T)
    assert bf.building_of("g").id == "farm"
    assert bf.cover_for("g", "e").kind == "heavy" and bf.cover_for("g", "side").kind == "heavy"
    assert bf.cover_for("g", "e").rule == "RULE-03-3.1"
    assert bf.enfilade("side", "g") is None
    # 360 degree fire: the garrison may fire at the unit on its flank
    assert bf.in_arc("g", "side")
    # nor flanked: every approach meets its front
    assert bf.zone_of("g", (30, 11)) == "front" and bf.zone_of("g", (12, 30)) == "front"
    ungarrisoned = Battlefield(farm().with_unit(farm().unit("g").with_markers(remove=[Marker.GARRISONED])), T)
    assert not ungarrisoned.in_arc("g", "side")
    assert ungarrisoned.zone_of("g", (12, 30)) == "rear"


def test_rule_03_3_1_garrison_is_two_stands_of_foot():
    bf = Battlefield(farm(), T)
    bf.check_garrison("g", "farm")
    big = Battlefield(farm().with_unit(foot("g", 12, 11, side="csa", stands=3)), T)
    with pytest.raises(IllegalAction, match="RULE-03-3.1"):
        big.check_garrison("g", "farm")
    arty = Battlefield(farm().with_unit(guns("g", 12, 11, side="csa", sections=1)), T)
    with pytest.raises(IllegalAction):
        arty.check_garrison("g", "farm")
    cav = foot("g", 12, 11, side="csa", stands=2, kind=UnitKind.CAVALRY, formation=Formation.DISMOUNTED)
    Battlefield(farm().with_unit(cav), T).check_garrison("g", "farm")


def test_rule_03_3_2_two_unsaved_hits_make_one_structural_hit():
    r = damage_building(farm(), "farm", 3, T)
    f = r.battle.feature("farm")
    assert r.structural_hits == 1 and f.structural_hits == 1 and not r.collapsed
    assert f.props["loose_hits"] == 1
    r2 = damage_building(r.battle, "farm", 1, T)
    assert r2.structural_hits == 2
    assert all(s.rule == "RULE-03-3.2" for s in r.steps)


def test_rule_03_3_2_four_structural_hits_collapse_into_rubble():
    three = damage_building(farm(hits=3), "farm", 1, T)
    assert not three.collapsed and three.battle.feature("farm").type == TerrainType.BUILDING
    r = damage_building(farm(hits=3), "farm", 2, T)
    assert r.collapsed
    assert r.battle.feature("farm").type == TerrainType.RUBBLE
    g = r.battle.unit("g")
    assert g.stands == 1 and g.has(Marker.DISORDER) and not g.has(Marker.GARRISONED)
    bf = Battlefield(r.battle, T)
    assert not bf.footprint("g").polygon.intersects(bf.feature_geometry("farm"))
    # rubble remains as light cover
    assert T.value("terrain.matrix.rubble.cover") == "light"


def test_building_damage_refuses_bad_input():
    with pytest.raises(InvariantError):
        damage_building(farm(), "farm", -1, T)
    with pytest.raises(IllegalAction):
        damage_building(battle_of(foot("a", 0, 0), terrain=[rect("w", "dense_woods", 0, 0, 2, 2)]), "w", 2, T)
    with pytest.raises(InvariantError):
        damage_building(farm(), "nowhere", 2, T)
