"""The opposed melee roll, its modifier catalogue and its aftermath (chapter 06, 3.0 to 5.0)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.battle.battle import Battle
from rules.battle.order_of_battle import Brigade, Brigadier, OrderOfBattle, Side
from rules.battle.terrain import TerrainType
from rules.battle.unit import Unit
from rules.battle.words import BrigadierStatus, Formation, GunType, Marker, Phase, Quality, UnitKind, Weapon
from rules.dice import SeededDice, TableDice
from rules.errors import IllegalAction, InvariantError
from rules.melee.melee import (
    Consolidation,
    Contact,
    LeaderFate,
    MeleeAction,
    MeleeSituation,
    Outcome,
    engaged_stands,
    leader_loss,
    resolve_melee,
    shock_sides,
    sweeping_advance,
)
from rules.tables import load_tables

T = load_tables()


def unit(uid: str, side: str, **kw) -> Unit:
    base = dict(
        id=uid,
        name=kw.pop("name", uid),
        side=side,
        brigade=f"{side}_b",
        kind=UnitKind.INFANTRY,
        stands=5,
        stands_start=5,
        quality=Quality.REGULAR,
        weapon=Weapon.RIFLED_MUSKET,
    )
    base.update(kw)
    return Unit(**base)


def battle(
    attacker: Unit, defender: Unit, *others: Unit, pips: int = 3, attached: dict[str, str] | None = None
) -> Battle:
    attached = attached or {}
    brigades = {
        f"{s}_b": Brigade(
            id=f"{s}_b",
            name=f"{s} brigade",
            side=s,
            brigadier=Brigadier(name=f"{s} general", attached_to=attached.get(s)),
            staff_pips=pips,
        )
        for s in ("csa", "usa")
    }
    units = {u.id: u for u in (attacker, defender, *others)}
    oob = OrderOfBattle(
        sides=(Side("csa", "Confederate"), Side("usa", "Union")), brigades=brigades, units=units
    )
    return Battle(name="test", oob=oob, active_side=attacker.side)


def pair(a_kw=None, d_kw=None, **bkw) -> Battle:
    """An attacker 'a' (csa) facing north at (10, 20), a defender 'd' (usa) facing south at (10, 20)."""
    a = unit("a", "csa", x=10.0, y=20.0, facing_deg=0.0, **(a_kw or {}))
    d = unit("d", "usa", x=10.0, y=20.0, facing_deg=180.0, **(d_kw or {}))
    return battle(a, d, **bkw)


def labels(side) -> dict[str, int]:
    return {m.label: m.value for m in side.modifiers}


def mods(b: Battle, **kw):
    s = MeleeSituation("a", "d", **kw)
    a, d, _ = shock_sides(b, s, T)
    return a, d


def has(side, word: str) -> bool:
    return any(word.lower() in m.label.lower() for m in side.modifiers)


def rules_of(side) -> set[str]:
    return {m.rule for m in side.modifiers}


# -- the modifier catalogue -----------------------------------------------------------------------


def test_rule_06_3_3_fresh_is_more_than_75_percent():
    a, d = mods(pair({"stands": 4, "stands_start": 5}, {"stands": 3, "stands_start": 4}))
    assert labels(a)["Fresh"] == 1  # 80%
    assert not has(d, "fresh")  # exactly 75% is Worn


def test_rule_06_3_3_spent_is_less_than_35_percent():
    a, d = mods(pair({"stands": 6, "stands_start": 20}, {"stands": 7, "stands_start": 20}))
    assert labels(a)["Spent"] == -1  # 30%
    assert not has(d, "spent")  # exactly 35% is Worn


def test_rule_06_3_3_charging_momentum_needs_3in_of_open_ground():
    a, _ = mods(pair(), momentum_in=3.0)
    assert has(a, "momentum") and labels(a)['Charging momentum (3" in the open)'] == 1
    a, _ = mods(pair(), momentum_in=2.9)
    assert not has(a, "momentum")
    # a charge measured on the table reads to the tenth of an inch
    a, _ = mods(pair(), momentum_in=7.19693)
    assert labels(a)['Charging momentum (7.2" in the open)'] == 1


def test_rule_06_5_2_momentum_lost_against_heavy_works():
    for works in (TerrainType.STONE_WALL, TerrainType.SUNKEN_ROAD, TerrainType.BREASTWORKS):
        a, d = mods(pair(), momentum_in=7.0, defender_obstacle=works)
        assert not has(a, "momentum")
        assert d.modifiers[-1].value == 2


def test_rule_04_5_5_counter_charge_negates_momentum_and_downhill():
    a, d = mods(pair(), momentum_in=7.0, attacker_downhill_from_crest=True, counter_charge=True)
    assert not has(a, "momentum") and not has(a, "downhill")
    a, _ = mods(pair(), momentum_in=7.0, attacker_downhill_from_crest=True)
    assert has(a, "momentum") and has(a, "downhill")


def test_rule_06_3_3_assault_column_is_attacker_only():
    a, d = mods(pair({"formation": Formation.ASSAULT_COLUMN}, {"formation": Formation.ASSAULT_COLUMN}))
    assert labels(a)["Assault column"] == 1
    assert not has(d, "assault column")


def test_rule_06_3_3_rebel_yell_attacker_or_counter_charger():
    yell = {"traits": frozenset({"rebel_yell"})}
    a, d = mods(pair(yell, yell))
    assert has(a, "rebel yell") and not has(d, "rebel yell")
    b = battle(
        unit("a", "usa", facing_deg=0.0), unit("d", "csa", facing_deg=180.0, traits=frozenset({"rebel_yell"}))
    )
    a, d = mods(b, counter_charge=True)
    assert labels(d)["Rebel Yell (counter-charge)"] == 1 and not has(a, "rebel yell")


def test_rule_06_3_3_cavalry_shock_mounted_against_infantry_in_open():
    cav = {"kind": UnitKind.CAVALRY, "formation": Formation.MOUNTED}
    a, _ = mods(pair(cav))
    assert labels(a)["Cavalry shock against infantry in the open"] == 1
    a, _ = mods(pair(cav), defender_obstacle=TerrainType.STONE_WALL)
    assert not has(a, "cavalry shock")
    a, _ = mods(pair({"kind": UnitKind.CAVALRY, "formation": Formation.DISMOUNTED}))
    assert not has(a, "cavalry shock")
    a, _ = mods(pair(cav, {"kind": UnitKind.CAVALRY, "formation": Formation.MOUNTED}))
    assert not has(a, "cavalry shock")


def test_rule_03_2_2_stone_wall_plus_2_against_frontal_assault_only():
    _, d = mods(pair(), defender_obstacle=TerrainType.STONE_WALL)
    assert labels(d)["Defending stone wall"] == 2
    assert "RULE-03-2.2" in d.modifiers[-1].rule
    _, d = mods(pair(), defender_obstacle=TerrainType.STONE_WALL, contact=Contact.FLANK)
    assert not has(d, "stone wall")


def test_rule_03_3_1_building_plus_2_and_cannot_be_flanked():
    a, d = mods(pair(), defender_obstacle=TerrainType.BUILDING, contact=Contact.FLANK)
    assert labels(d)["Defending building"] == 2
    assert not has(a, "flank")


def test_rule_03_2_1_split_rail_fence_plus_1():
    _, d = mods(pair(), defender_obstacle=TerrainType.SPLIT_RAIL_FENCE)
    assert labels(d)["Defending a split-rail fence"] == 1


def test_rule_03_2_3_hedge_gives_no_melee_bonus():
    s = MeleeSituation("a", "d", defender_obstacle=TerrainType.HEDGE)
    a, d, notes = shock_sides(pair(), s, T)
    assert [m.label for m in d.modifiers] == ["Fresh"]
    assert any("RULE-03-2.3" in n for n in notes)


@pytest.mark.parametrize(
    ("obstacle", "bonus"),
    [
        (TerrainType.TOWN_WOODEN, 1),
        (TerrainType.TOWN_MASONRY, 2),
        (TerrainType.RUBBLE, 1),
        (TerrainType.BUILDING, 2),
        (TerrainType.STONE_WALL, 2),
        (TerrainType.SUNKEN_ROAD, 2),
        (TerrainType.BREASTWORKS, 2),
        (TerrainType.SPLIT_RAIL_FENCE, 1),
        (TerrainType.HEDGE, 0),
    ],
)
def test_rule_06_3_3_defender_bonus_is_the_terrain_matrix_melee_defence(obstacle, bonus):
    _, d = mods(pair(), defender_obstacle=obstacle)
    assert d.base - 5 - 1 == bonus  # 5 stands, Fresh
    assert bonus == T.value(f"terrain.matrix.{obstacle.value}.melee_defence")
    # the matrix is the one source: change it and the melee follows
    t2 = T.with_values({f"terrain.matrix.{obstacle.value}.melee_defence": 3})
    _, d2, _ = shock_sides(pair(), MeleeSituation("a", "d", defender_obstacle=obstacle), t2)
    assert d2.base - 5 - 1 == 3


@pytest.mark.parametrize(
    "obstacle",
    [TerrainType.STONE_WALL, TerrainType.SUNKEN_ROAD, TerrainType.BREASTWORKS, TerrainType.SPLIT_RAIL_FENCE],
)
def test_rule_03_2_linear_obstacle_bonus_counts_against_frontal_assaults_only(obstacle):
    _, front = mods(pair(), defender_obstacle=obstacle, contact=Contact.FRONT)
    _, flank = mods(pair(), defender_obstacle=obstacle, contact=Contact.FLANK)
    _, rear = mods(pair(), defender_obstacle=obstacle, contact=Contact.REAR)
    assert has(front, "defending") and not has(flank, "defending") and not has(rear, "defending")


def test_rule_03_3_3_town_sector_bonus_counts_from_any_side_but_not_after_a_counter_charge():
    _, flank = mods(pair(), defender_obstacle=TerrainType.TOWN_MASONRY, contact=Contact.FLANK)
    assert labels(flank)["Defending a masonry town sector"] == 2
    _, cc = mods(pair(), defender_obstacle=TerrainType.RUBBLE, counter_charge=True)
    assert not has(cc, "defending")


def test_rule_06_3_3_wooden_town_and_crest_count_once():
    _, d = mods(pair(), defender_obstacle=TerrainType.TOWN_WOODEN, defender_on_crest=True)
    assert sum(m.value for m in d.modifiers if m.label != "Fresh") == 1


def test_rule_03_4_2_crestline_defender_plus_1_and_uphill_attacker_minus_1():
    a, d = mods(pair(), defender_on_crest=True)
    assert labels(d)["On the crestline"] == 1
    assert labels(a)["Charging uphill against a crestline"] == -1
    assert "RULE-03-4.2" in rules_of(a)


def test_rule_06_3_3_light_cover_and_crest_count_once():
    _, d = mods(pair(), defender_on_crest=True, defender_obstacle=TerrainType.SPLIT_RAIL_FENCE)
    assert sum(m.value for m in d.modifiers if m.label != "Fresh") == 1


def test_rule_03_4_2_downhill_from_crest_plus_1():
    a, _ = mods(pair(), attacker_downhill_from_crest=True)
    assert labels(a)["Charging downhill from the crest"] == 1


def test_rule_06_3_3_flank_or_rear_plus_2_attacker():
    a, d = mods(pair(), contact=Contact.FLANK)
    assert labels(a)["Flank attack"] == 2
    a, d = mods(pair(), contact=Contact.REAR)
    assert labels(a)["Rear attack"] == 2
    a, _ = mods(pair())
    assert not has(a, "attack")


def test_rule_04_5_4_refused_flank_denies_flank_bonus():
    a, _ = mods(pair(), contact=Contact.FLANK, refused_flank=True)
    assert not has(a, "flank")
    a, _ = mods(pair(d_kw={"markers": frozenset({Marker.REFUSED_FLANK})}), contact=Contact.FLANK)
    assert not has(a, "flank")


def test_rule_03_2_4_anchored_breastworks_deny_flank_bonus():
    a, _ = mods(
        pair(), contact=Contact.FLANK, defender_obstacle=TerrainType.BREASTWORKS, flank_anchored_on_works=True
    )
    assert not has(a, "flank")


def test_rule_03_2_4_a_charge_into_an_anchored_flank_storms_the_works():
    """Immune to flank shock penalties (RULE-03-2.4): the charge meets the works as a frontal assault
    does, losing its momentum to them and facing their +2 (RULE-06-5.2)."""
    s = MeleeSituation(
        "a",
        "d",
        contact=Contact.FLANK,
        defender_obstacle=TerrainType.BREASTWORKS,
        flank_anchored_on_works=True,
        momentum_in=6.0,
        flank_side="left",
    )
    a, d, notes = shock_sides(pair(), s, T)
    assert not has(a, "flank") and not has(a, "momentum"), "RULE-03-2.4, RULE-06-5.2"
    assert labels(d)["Defending breastworks"] == 2, "RULE-03-2.4"
    assert d.engaged == 5, "RULE-03-2.4: no flank count of the defender's stands"
    assert any("anchored on the works" in n for n in notes)
    # not anchored: the flank +2, the momentum, and no works bonus
    a, d, _ = shock_sides(pair(), replace(s, flank_anchored_on_works=False), T)
    assert labels(a)["Flank attack"] == 2 and has(a, "momentum") and not has(d, "breastworks")


def test_rule_06_3_3_disordered_minus_2_either_side():
    dis = {"markers": frozenset({Marker.DISORDER})}
    a, d = mods(pair(dis, dis))
    assert labels(a)["Disordered"] == -2 and labels(d)["Disordered"] == -2
    a, d = mods(pair())
    assert not has(a, "disordered") and not has(d, "disordered")


def test_rule_06_3_3_attached_brigadier_plus_1():
    a, d = mods(pair(attached={"csa": "a"}))
    assert labels(a)["Brigadier csa general attached"] == 1
    assert not has(d, "brigadier")


def test_rule_03_2_4_charging_through_abatis_minus_2_and_no_momentum():
    a, _ = mods(pair(), through_abatis=True, momentum_in=6.0)
    assert labels(a)["Charging through abatis"] == -2
    assert not has(a, "momentum")


def test_every_modifier_cites_a_rule():
    b = pair(
        {"traits": frozenset({"rebel_yell"}), "formation": Formation.ASSAULT_COLUMN}, attached={"csa": "a"}
    )
    a, d = mods(b, momentum_in=5.0, defender_on_crest=True, contact=Contact.FLANK)
    for m in a.modifiers + d.modifiers:
        assert m.rule and m.rule.startswith("RULE-")


# -- engaged stands --------------------------------------------------------------------------------


def test_rule_06_3_4_frontal_clash_counts_contact_plus_one_overlap_each_wing():
    a, d = unit("a", "csa", stands=4), unit("d", "usa")
    assert engaged_stands(a, d, "attacker", Contact.FRONT, T)[0] == 4
    assert engaged_stands(d, a, "defender", Contact.FRONT, T)[0] == 5
    wide = unit("d", "usa", stands=8, stands_start=8)
    assert engaged_stands(wide, a, "defender", Contact.FRONT, T)[0] == 6  # 4 + 1 + 1, not 8


def test_chapter_06_6_0_assault_column_of_3_stands_is_not_formed_2_by_2():
    """ "Formed 2 stands wide x 2+ deep": 3 stands get neither the +1 nor the 2 + 2 engaged stands."""
    col = {"stands": 3, "stands_start": 3, "formation": Formation.ASSAULT_COLUMN}
    a, _, notes = shock_sides(pair(col), MeleeSituation("a", "d"), T)
    assert not has(a, "assault column")
    assert a.engaged == 2  # its front rank of 2 only: the odd stand behind is no supporting rank
    assert any("not formed 2 wide x 2+ deep" in n for n in notes)


def test_chapter_06_6_0_assault_column_of_4_stands_is_formed_2_by_2():
    col = {"stands": 4, "stands_start": 4, "formation": Formation.ASSAULT_COLUMN}
    a, _, _ = shock_sides(pair(col), MeleeSituation("a", "d"), T)
    assert labels(a)["Assault column"] == 1
    assert a.engaged == 4 and "2 front + 2 supporting" in a.engaged_text


def test_rule_06_3_4_assault_column_counts_2_front_and_2_supporting():
    col = unit("a", "usa", stands=6, stands_start=6, formation=Formation.ASSAULT_COLUMN)
    d = unit("d", "csa", stands=4, stands_start=4)
    assert engaged_stands(col, d, "attacker", Contact.FRONT, T)[0] == 4
    assert engaged_stands(d, col, "defender", Contact.FRONT, T)[0] == 4


def test_rule_06_3_4_flank_attack_counts_only_contacted_defending_stands():
    a, d = unit("a", "csa"), unit("d", "usa", stands=6, stands_start=6)
    assert engaged_stands(d, a, "defender", Contact.FLANK, T)[0] == 1
    b = pair()
    s = MeleeSituation("a", "d", contact=Contact.FLANK)
    _, dside, _ = shock_sides(b, s, T)
    assert dside.engaged == 1


def test_rule_06_5_1_artillery_section_fights_as_one_stand():
    gun = unit(
        "d",
        "usa",
        kind=UnitKind.ARTILLERY,
        formation=Formation.UNLIMBERED,
        gun=GunType.NAPOLEON_12PDR,
        stands=3,
        stands_start=3,
        weapon=Weapon.NONE,
    )
    assert engaged_stands(gun, unit("a", "csa"), "defender", Contact.FRONT, T)[0] == 1


def test_rule_06_3_4_umpire_may_set_engaged_stands():
    a, d = mods(pair(), attacker_engaged=3, defender_engaged=2)
    assert (a.engaged, d.engaged) == (3, 2)


# -- the outcome ------------------------------------------------------------------------------------


def test_rule_06_4_1_higher_score_wins_and_loser_loses_a_stand_retreats_6in_disordered():
    b = pair()
    r = resolve_melee(b, MeleeSituation("a", "d"), TableDice([4, 3]), T)
    assert r.outcome == Outcome.ATTACKER_WINS and (r.attacker_score, r.defender_score) == (10, 9)
    d = r.battle.unit("d")
    assert d.stands == 4 and d.disordered
    assert (d.x, d.y) == pytest.approx((10.0, 14.0))  # 6" directly away from the victor (north)
    a = r.battle.unit("a")
    assert (a.x, a.y) == pytest.approx((10.0, 18.0))  # consolidated 2" forward
    assert not a.disordered and a.stands == 5


def test_rule_06_4_3_loser_stand_loss_ignores_micro_hits():
    b = pair(d_kw={"micro_hits": 1})
    r = resolve_melee(b, MeleeSituation("a", "d"), TableDice([6, 1]), T)
    d = r.battle.unit("d")
    assert (d.stands, d.micro_hits) == (4, 1)


def test_rule_06_4_1_defender_wins_attacker_retreats_defender_holds():
    r = resolve_melee(pair(), MeleeSituation("a", "d"), TableDice([1, 6]), T)
    assert r.outcome == Outcome.DEFENDER_WINS
    a, d = r.battle.unit("a"), r.battle.unit("d")
    assert a.stands == 4 and a.disordered and (a.x, a.y) == pytest.approx((10.0, 26.0))
    assert (d.x, d.y, d.facing_deg) == (10.0, 20.0, 180.0)


def test_rule_06_4_3_double_disorder_gives_a_micro_hit_not_a_second_disorder():
    b = pair(d_kw={"markers": frozenset({Marker.DISORDER})})
    r = resolve_melee(b, MeleeSituation("a", "d"), TableDice([6, 1]), T)
    d = r.battle.unit("d")
    assert (d.stands, d.micro_hits, d.disordered) == (4, 1, True)
    b = pair(d_kw={"markers": frozenset({Marker.DISORDER}), "micro_hits": 1})
    r = resolve_melee(b, MeleeSituation("a", "d"), TableDice([6, 1]), T)
    d = r.battle.unit("d")
    assert (d.stands, d.micro_hits) == (3, 0)  # the micro-hit completes a second stand
    assert r.stands_lost == {"d": 2}
    assert any(
        "RULE-07-3.4" in s.text
        for s in resolve_melee(b, MeleeSituation("a", "d"), TableDice([6, 1]), T).steps
    )


def test_rule_06_4_2_tie_one_hit_each_both_disordered_and_locked():
    r = resolve_melee(pair(), MeleeSituation("a", "d"), TableDice([3, 3]), T)
    assert r.outcome == Outcome.TIE
    for uid in ("a", "d"):
        u = r.battle.unit(uid)
        assert (u.stands, u.micro_hits) == (5, 1)
        assert u.disordered and u.has(Marker.ENGAGED)
        assert (u.x, u.y) == (10.0, 20.0)


def test_rule_06_4_2_tie_then_reroll_next_turn_unlocks_the_victor():
    r = resolve_melee(pair(), MeleeSituation("a", "d"), TableDice([3, 3]), T)
    r2 = resolve_melee(r.battle, MeleeSituation("a", "d"), TableDice([6, 1]), T)
    assert not r2.battle.unit("a").has(Marker.ENGAGED)
    assert not r2.battle.unit("d").has(Marker.ENGAGED)
    d = r2.battle.unit("d")
    assert (d.stands, d.micro_hits) == (3, 0)  # 1 stand + the double-disorder micro-hit completing another


def test_rule_06_4_4_consolidation_is_at_most_2in_and_45_degrees():
    r = resolve_melee(
        pair(),
        MeleeSituation("a", "d"),
        TableDice([6, 1]),
        T,
        consolidation=Consolidation(advance_in=1.0, pivot_deg=45.0),
    )
    a = r.battle.unit("a")
    assert a.facing_deg == 45.0
    assert (a.x, a.y) == pytest.approx((10 + math.sqrt(0.5), 20 - math.sqrt(0.5)))
    with pytest.raises(IllegalAction, match="RULE-06-4.4"):
        resolve_melee(
            pair(), MeleeSituation("a", "d"), TableDice([6, 1]), T, consolidation=Consolidation(2.1, 0)
        )
    with pytest.raises(IllegalAction, match="45"):
        resolve_melee(
            pair(), MeleeSituation("a", "d"), TableDice([6, 1]), T, consolidation=Consolidation(0, -46)
        )


def _breakthrough_battle(d_stands: int, a_kw=None) -> Battle:
    return pair(a_kw, {"stands": d_stands, "stands_start": 5})


def test_rule_06_4_5_breakthrough_needs_margin_4_and_defender_destroyed():
    # attacker 5 fresh stands against 1: 1 in contact + 2 overlapping + 1 Fresh = die + 4;
    # defender 1 stand of 5 (Spent): die + 1 - 1
    b = _breakthrough_battle(1)
    r = resolve_melee(b, MeleeSituation("a", "d"), TableDice([6, 6]), T)  # 10 to 6
    assert r.margin == 4 and r.battle.unit("d").destroyed and r.breakthrough
    r = resolve_melee(b, MeleeSituation("a", "d"), TableDice([5, 6]), T)  # 9 to 6
    assert r.margin == 3 and r.battle.unit("d").destroyed and not r.breakthrough


def test_rule_06_4_5_no_breakthrough_if_defender_survives_or_attacker_not_fresh():
    r = resolve_melee(_breakthrough_battle(3), MeleeSituation("a", "d"), TableDice([6, 1]), T)
    assert r.margin >= 4 and not r.battle.unit("d").destroyed and not r.breakthrough
    r = resolve_melee(
        _breakthrough_battle(3), MeleeSituation("a", "d", defender_routed=True), TableDice([6, 1]), T
    )
    assert r.breakthrough
    worn = {"stands": 3, "stands_start": 4}
    r = resolve_melee(_breakthrough_battle(1, worn), MeleeSituation("a", "d"), TableDice([6, 1]), T)
    assert r.margin >= 4 and r.battle.unit("d").destroyed and not r.breakthrough


def test_rule_06_4_5_sweeping_advance_costs_a_pip_and_next_defender_counts_disordered():
    e = unit("e", "usa", x=10.0, y=12.0, facing_deg=180.0)
    b = battle(
        unit("a", "csa", x=10.0, y=20.0), unit("d", "usa", x=10.0, y=20.0, facing_deg=180.0, stands=1), e
    )
    r = resolve_melee(b, MeleeSituation("a", "d"), TableDice([6, 6]), T)
    assert r.breakthrough
    nb, steps, second = sweeping_advance(
        r.battle, r, TableDice([1, 6]), T, next_situation=MeleeSituation("a", "e")
    )
    assert nb.brigade_of("a").staff_pips == 2
    assert second is not None
    assert any(m.label.startswith("counts as Disordered") for m in second.steps[1].modifiers)
    nb, _, none = sweeping_advance(r.battle, r, TableDice([]), T)
    assert none is None and nb.unit("a").y == pytest.approx(14.0)  # 2" consolidation + 4" sweep
    no_pips = r.battle.with_brigade(replace(r.battle.brigade_of("a"), staff_pips=0))
    with pytest.raises(IllegalAction, match="Staff Pip"):
        sweeping_advance(no_pips, r, TableDice([]), T)
    plain = resolve_melee(pair(), MeleeSituation("a", "d"), TableDice([4, 3]), T)
    with pytest.raises(IllegalAction, match="Breakthrough"):
        sweeping_advance(plain.battle, plain, TableDice([]), T)


def _swept_battle():
    """'a' breaks through 'd' at y = 20, consolidates to 18 and may sweep to 14: 'e' stands at 15."""
    e = unit("e", "usa", x=10.0, y=15.0, facing_deg=180.0)
    b = battle(
        unit("a", "csa", x=10.0, y=20.0), unit("d", "usa", x=10.0, y=20.0, facing_deg=180.0, stands=1), e
    )
    return replace(b, phase=Phase.MELEE)


def test_rule_06_4_5_the_sweeping_advance_action_fights_the_second_melee_with_the_defender_disordered():
    from rules.actions import Action, resolve
    from rules.melee.melee import SweepingAdvance, breakthrough_unit, sweep_contacts

    b = _swept_battle()
    won = resolve(b, MeleeAction(attacker_id="a", defender_id="d"), TableDice([6, 6]), T).battle_after
    assert breakthrough_unit(won) == "a"
    assert sweep_contacts(won, "a", T) == ("e",)
    act = SweepingAdvance("a", "e")
    assert Action.from_dict(act.to_dict()) == act
    out = resolve(won, act, TableDice([1, 6]), T)
    after = out.battle_after
    assert after.brigade_of("a").staff_pips == 2 and breakthrough_unit(after) is None
    dfn = next(st for st in out.steps if "(defender) shock score" in st.text)
    assert [m.value for m in dfn.modifiers if "counts as Disordered" in m.label] == [-2]
    assert "RULE-06-4.5" in dfn.modifiers[-1].rule
    # it cannot sweep twice on the one breakthrough, nor without one
    with pytest.raises(IllegalAction, match="RULE-06-4.5"):
        resolve(after, SweepingAdvance("a"), TableDice([]), T)
    plain = resolve(b, MeleeAction(attacker_id="a", defender_id="d"), TableDice([1, 6]), T).battle_after
    assert plain.unit("d").in_play and breakthrough_unit(plain) is None
    with pytest.raises(IllegalAction, match="Tactical Breakthrough"):
        resolve(plain, SweepingAdvance("a"), TableDice([]), T)


def test_rule_06_4_5_a_sweep_that_reaches_nobody_only_advances():
    from rules.actions import resolve
    from rules.melee.melee import SweepingAdvance, sweep_contacts

    b = _swept_battle()
    b = b.with_unit(b.unit("e").moved_to(30.0, 12.0))
    won = resolve(b, MeleeAction(attacker_id="a", defender_id="d"), TableDice([6, 6]), T).battle_after
    assert sweep_contacts(won, "a", T) == ()
    after = resolve(won, SweepingAdvance("a"), TableDice([]), T).battle_after
    assert after.unit("a").y == pytest.approx(14.0)  # 2" consolidation + 4" sweep


def test_rule_06_4_5_a_melee_set_by_hand_may_count_the_defender_disordered():
    a, d = mods(pair(), defender_counts_disordered=True)
    assert labels(d)["counts as Disordered after a sweeping advance"] == -2
    s = MeleeAction(attacker_id="a", defender_id="d", defender_counts_disordered=True).situation()
    assert s.defender_counts_disordered


def test_rule_06_5_1_defeated_battery_is_overrun_and_captured():
    gun = {
        "kind": UnitKind.ARTILLERY,
        "formation": Formation.UNLIMBERED,
        "gun": GunType.NAPOLEON_12PDR,
        "weapon": Weapon.NONE,
        "stands": 2,
        "stands_start": 2,
    }
    r = resolve_melee(pair(d_kw=gun), MeleeSituation("a", "d"), TableDice([3, 3]), T)
    # attacker 3 + 5 + 1 = 9; battery 3 + 1 + 1 (Fresh) = 5
    assert r.defender_score == 5 and r.outcome == Outcome.ATTACKER_WINS
    assert r.battle.unit("d").destroyed
    assert any(s.rule == "RULE-06-5.1" for s in r.steps)


def test_rule_06_5_1_the_victorious_infantry_occupies_the_gun_positions():
    """ "The victorious infantry unit occupies the gun positions" (RULE-06-5.1): it stands where the
    guns stood, not at the contact line 2.0" further on (RULE-06-4.4)."""
    from rules.battlefield import geometry

    gun = {
        "kind": UnitKind.ARTILLERY,
        "formation": Formation.UNLIMBERED,
        "gun": GunType.NAPOLEON_12PDR,
        "weapon": Weapon.NONE,
        "stands": 2,
        "stands_start": 2,
    }
    b = pair(d_kw=gun)
    guns_at = geometry.footprint(b.unit("d"), T).centre
    r = resolve_melee(b, MeleeSituation("a", "d"), TableDice([3, 3]), T)
    a = r.battle.unit("a")
    assert geometry.footprint(a, T).centre == pytest.approx(guns_at), "RULE-06-5.1"
    assert a.facing_deg == 0.0 and Marker.ENGAGED not in a.markers
    assert any(st.rule == "RULE-06-5.1" and "occupies the gun positions" in st.text for st in r.steps)
    # a pivot of the consolidation is still made there (RULE-06-4.4)
    r = resolve_melee(
        b, MeleeSituation("a", "d"), TableDice([3, 3]), T, consolidation=Consolidation(2.0, 30.0)
    )
    a = r.battle.unit("a")
    assert a.facing_deg == pytest.approx(30.0)
    assert geometry.footprint(a, T).centre == pytest.approx(guns_at, abs=1.0)
    # a melee of a save made before consolidates as it was played
    old = MeleeAction(attacker_id="a", defender_id="d", occupy_guns=False)
    from rules.actions import resolve

    assert resolve(b, old, TableDice([3, 3]), T).battle_after.unit("a").y == pytest.approx(18.0)


def test_rule_06_5_2_repulse_from_works_on_a_tie():
    b = pair()
    s = MeleeSituation("a", "d", defender_obstacle=TerrainType.STONE_WALL, momentum_in=7.0)
    r = resolve_melee(b, s, TableDice([3, 1]), T)  # 3 + 5 + 1 = 9 ; 1 + 5 + 1 + 2 = 9
    assert (r.attacker_score, r.defender_score) == (9, 9)
    assert r.outcome == Outcome.DEFENDER_WINS
    a, d = r.battle.unit("a"), r.battle.unit("d")
    assert a.stands == 4 and a.disordered and a.y == pytest.approx(26.0)
    assert (d.stands, d.micro_hits, d.disordered) == (5, 0, False)
    assert any(st.rule == "RULE-06-5.2" for st in r.steps)


def test_rule_03_3_4_built_up_tie_repulses_attacker_and_win_evacuates_defender():
    b = pair()
    s = MeleeSituation("a", "d", defender_obstacle=TerrainType.TOWN_WOODEN)
    r = resolve_melee(b, s, TableDice([3, 2]), T)  # 3 + 5 + 1 = 9 ; 2 + 5 + 1 + 1 (wooden town) = 9
    assert (r.attacker_score, r.defender_score) == (9, 9)
    a, d = r.battle.unit("a"), r.battle.unit("d")
    assert (
        r.outcome == Outcome.DEFENDER_WINS and a.disordered and a.stands == 5 and a.y == pytest.approx(26.0)
    )
    assert d.micro_hits == 0 and not d.disordered
    r = resolve_melee(b, s, TableDice([5, 3]), T)
    d = r.battle.unit("d")
    assert d.stands == 4 and d.disordered and d.y == pytest.approx(14.0)
    assert any(st.rule == "RULE-03-3.4" for st in r.steps)


@pytest.mark.parametrize("place", [TerrainType.BUILDING, TerrainType.TOWN_MASONRY, TerrainType.TOWN_WOODEN])
def test_rule_03_3_4_a_tie_at_a_building_repulses_the_attacker_without_a_stand_lost(place):
    """At a building, "if the defender wins or ties, the attacker is repulsed 6.0" Disordered"
    (RULE-03-3.4). A tie is not a defeat (RULE-06-4.1), so the stand a defeated unit loses (RULE-06-4.3) is not taken: the
    attacker keeps its stands, and neither side takes the tie's hit (RULE-06-4.2)."""
    b = pair()
    s = MeleeSituation("a", "d", defender_obstacle=place)
    bonus = int(T.value(f"terrain.matrix.{place.value}.melee_defence"))
    r = resolve_melee(b, s, TableDice([2 + bonus, 2]), T)
    assert r.attacker_score == r.defender_score
    a, d = r.battle.unit("a"), r.battle.unit("d")
    assert r.outcome == Outcome.DEFENDER_WINS and a.disordered and a.y == pytest.approx(26.0), "RULE-03-3.4"
    assert a.stands == 5 and a.micro_hits == 0 and "a" not in r.stands_lost, "RULE-03-3.4, RULE-06-4.3"
    assert (d.stands, d.micro_hits, d.disordered) == (5, 0, False), "RULE-03-3.4"
    assert not any(st.rule == "RULE-06-4.2" for st in r.steps)
    # the defender winning outright defeats the attacker, which loses its stand (RULE-06-4.3)
    r = resolve_melee(b, s, TableDice([1 + bonus, 2]), T)
    assert r.battle.unit("a").stands == 4 and r.stands_lost == {"a": 1}, "RULE-06-4.3"


@pytest.mark.parametrize(
    ("roll", "fate"),
    [(1, LeaderFate.KILLED), (2, LeaderFate.WOUNDED), (3, LeaderFate.UNHURT), (4, LeaderFate.UNHURT)],
)
def test_leader_loss_club_table(roll, fate):
    b = pair(attached={"csa": "a"})
    nb, step, got = leader_loss(b, "a", TableDice([roll]), T)
    assert got == fate and step.dice == (roll,)
    bg = nb.brigade_of("a").brigadier
    if fate == LeaderFate.UNHURT:
        assert bg.attached_to == "a" and bg.status == BrigadierStatus.ACTIVE
    else:
        assert bg.attached_to is None and bg.status.value == fate.value
    assert step.rule == "club default"


def test_leader_loss_rolled_when_a_unit_with_brigadier_loses_a_stand():
    b = pair(attached={"usa": "d"})
    r = resolve_melee(b, MeleeSituation("a", "d"), TableDice([6, 1, 1]), T)
    assert r.battle.brigade_of("d").brigadier.status == BrigadierStatus.KILLED
    assert r.steps[-1].text.startswith("Leader Loss")
    r = resolve_melee(b, MeleeSituation("a", "d"), TableDice([1, 6]), T)
    assert not any(s.text.startswith("Leader Loss") for s in r.steps)


def test_bad_input_is_a_typed_error():
    b = pair()
    with pytest.raises(InvariantError):
        MeleeSituation("a", "d", momentum_in=-1.0)
    with pytest.raises(InvariantError):
        MeleeSituation("a", "d", contact="sideways")
    with pytest.raises(InvariantError):
        MeleeSituation("a", "a")
    with pytest.raises(InvariantError):
        resolve_melee(b, MeleeSituation("a", "nobody"), TableDice([1, 1]), T)
    same = battle(unit("a", "csa"), unit("d", "csa"))
    with pytest.raises(IllegalAction):
        resolve_melee(same, MeleeSituation("a", "d"), TableDice([1, 1]), T)
    with pytest.raises(IllegalAction):
        leader_loss(b, "a", TableDice([1]), T)


@settings(max_examples=40, deadline=None)
@given(
    a_stands=st.integers(1, 8),
    d_stands=st.integers(1, 8),
    seed=st.integers(0, 10_000),
    contact=st.sampled_from(list(Contact)),
    obstacle=st.sampled_from([None, *TerrainType]),
    momentum=st.floats(0, 9),
    flags=st.lists(st.booleans(), min_size=5, max_size=5),
)
def test_melee_is_a_pure_function_of_state_inputs_and_dice(
    a_stands, d_stands, seed, contact, obstacle, momentum, flags
):
    b = pair(
        {
            "stands": a_stands,
            "stands_start": 8,
            "markers": frozenset({Marker.DISORDER}) if flags[0] else frozenset(),
        },
        {"stands": d_stands, "stands_start": 8},
        attached={"csa": "a"} if flags[1] else None,
    )
    s = MeleeSituation(
        "a",
        "d",
        contact=contact,
        defender_obstacle=obstacle,
        momentum_in=momentum,
        counter_charge=flags[2],
        defender_on_crest=flags[3],
        through_abatis=flags[4],
    )
    before = b.to_dict()
    r1 = resolve_melee(b, s, SeededDice(seed), T)
    r2 = resolve_melee(b, s, SeededDice(seed), T)
    assert b.to_dict() == before  # the input state is untouched
    assert r1.battle.to_dict() == r2.battle.to_dict()
    assert r1.steps == r2.steps and r1.outcome == r2.outcome
    total_before = a_stands + d_stands
    total_after = r1.battle.unit("a").stands + r1.battle.unit("d").stands
    assert total_after <= total_before


def test_melee_action_rerolls_a_locked_melee():
    from rules.actions import Action, resolve
    from rules.melee.melee import MeleeAction

    tied = resolve_melee(pair(), MeleeSituation("a", "d"), TableDice([3, 3]), T).battle
    a = MeleeAction(attacker_id="a", defender_id="d")
    assert Action.from_dict(a.to_dict()) == a
    out = resolve(tied, a, TableDice([6, 1]), T)
    assert "attacker wins" in out.summary
    assert not out.battle.unit("a").has(Marker.ENGAGED)
    with pytest.raises(InvariantError):
        MeleeAction(attacker_id="a", defender_id="d", contact="sideways").situation()


def test_rule_04_5_5_counter_charging_cavalry_gets_its_shock_bonus():
    b = pair(d_kw={"kind": UnitKind.CAVALRY, "formation": Formation.MOUNTED})
    a, d = mods(b, counter_charge=True)
    assert labels(d)["Cavalry shock (counter-charge)"] == 1
    a, d = mods(b)
    assert not has(d, "cavalry shock")


def test_rule_06_5_2_only_walls_roads_and_works_take_momentum_a_building_does_not():
    a, d = mods(pair(), momentum_in=7.0, defender_obstacle=TerrainType.BUILDING)
    assert has(a, "momentum") and labels(d)["Defending building"] == 2


def test_rule_06_4_2_a_tie_at_a_fence_is_an_ordinary_bloody_draw():
    s = MeleeSituation("a", "d", defender_obstacle=TerrainType.SPLIT_RAIL_FENCE)
    r = resolve_melee(pair(), s, TableDice([4, 3]), T)  # 4 + 5 + 1 = 10 ; 3 + 5 + 1 + 1 = 10
    assert r.outcome == Outcome.TIE
    assert r.battle.unit("a").has(Marker.ENGAGED) and r.battle.unit("d").micro_hits == 1


# -- melees pending for Phase 4 (RULE-06-1.1, RULE-06-4.2) ----------------------------------------


def _pending_pair(**situation):
    """'a' and 'd' in contact, their melee pending in Phase 4 of turn 1 (the csa turn)."""
    from rules.battle.words import Phase
    from rules.melee.melee import add_pending_melee

    b = replace(pair(), phase=Phase.MELEE)
    b, pm = add_pending_melee(b, MeleeSituation("a", "d", **situation))
    return b, pm


def test_rule_06_1_1_a_pending_melee_is_kept_in_the_battle_state_as_plain_data():
    import json

    from rules.melee.melee import PENDING_MELEES, PendingMelee, pending_melees

    b, pm = _pending_pair(momentum_in=7.0, defender_obstacle=TerrainType.SPLIT_RAIL_FENCE, contact="flank")
    assert b.unit("a").has(Marker.ENGAGED) and b.unit("d").has(Marker.ENGAGED)
    raw = b.extra[PENDING_MELEES]
    assert json.loads(json.dumps(raw)) == raw  # it saves as it is
    assert Battle.from_dict(json.loads(json.dumps(b.to_dict()))).extra == b.extra
    (back,) = pending_melees(Battle.from_dict(b.to_dict()))
    assert back == pm and PendingMelee.from_dict(pm.to_dict()) == pm
    assert (back.situation.contact, back.situation.momentum_in) == (Contact.FLANK, 7.0)
    assert back.situation.defender_obstacle == TerrainType.SPLIT_RAIL_FENCE
    assert (back.turn, back.due_turn, back.side, back.locked) == (1, 1, "csa", False)


def test_rule_06_1_1_resolving_a_pending_melee_removes_it():
    from rules.actions import Action, resolve
    from rules.melee.melee import ResolvePendingMelee, pending_melees

    b, pm = _pending_pair(momentum_in=7.0)
    act = ResolvePendingMelee(pm.id)
    assert Action.from_dict(act.to_dict()) == act
    out = resolve(b, act, TableDice([6, 1]), T)
    assert "attacker wins" in out.summary and pending_melees(out.battle) == ()
    assert PENDING_MELEES_KEY not in out.battle.extra
    assert not out.battle.unit("a").has(Marker.ENGAGED) and not out.battle.unit("d").has(Marker.ENGAGED)
    att = out.steps[0]
    assert any(m.label.startswith("Charging momentum") for m in att.modifiers)  # the recorded 7.0"


PENDING_MELEES_KEY = "pending_melees"


def test_rule_06_4_2_a_tie_stays_pending_into_the_next_game_turns_phase_4():
    from rules.actions import NextPhase, resolve
    from rules.battle.words import Phase
    from rules.melee.melee import ResolvePendingMelee, due_melees, pending_melees

    b, pm = _pending_pair(momentum_in=7.0)
    tie = resolve(b, ResolvePendingMelee(pm.id), TableDice([3, 4]), T)  # 3+5+1+1=10 ; 4+5+1=10
    assert "tie" in tie.summary
    (locked,) = pending_melees(tie.battle)
    assert locked.locked and locked.due_turn == 2 and locked.situation.momentum_in == 0.0
    assert any("re-rolled in the Melee Phase of turn 2" in s.text for s in tie.steps)
    assert due_melees(tie.battle) == ()
    # the tie does not hold up the turn: on to the Union's turn 1, whose Phase 4 it waits through
    b2 = tie.battle
    while not (b2.active_side == "usa" and b2.phase == Phase.MELEE):
        b2 = resolve(b2, NextPhase(), TableDice([]), T).battle
    assert b2.turn == 1 and due_melees(b2) == ()
    with pytest.raises(IllegalAction, match="next game turn's Melee Phase") as exc:
        resolve(b2, ResolvePendingMelee(pm.id), TableDice([6, 1]), T)
    assert exc.value.rule == "RULE-06-4.2"
    # turn 2, the Confederates' Phase 4: it is due, and the phase cannot be left until it is fought
    while not (b2.turn == 2 and b2.phase == Phase.MELEE):
        b2 = resolve(b2, NextPhase(), TableDice([]), T).battle
    assert [m.id for m in due_melees(b2)] == [pm.id]
    with pytest.raises(IllegalAction, match="locked by a tie") as exc:
        resolve(b2, NextPhase(), TableDice([]), T)
    assert exc.value.rule == "RULE-06-1.1"
    out = resolve(b2, ResolvePendingMelee(pm.id), TableDice([6, 1]), T)
    att = out.steps[0]
    assert not any("momentum" in m.label.lower() for m in att.modifiers)  # locked units have no charge
    assert pending_melees(out.battle) == ()
    assert resolve(out.battle, NextPhase(), TableDice([]), T).battle.phase == Phase.END


def test_rule_06_1_1_undoing_the_phase_4_melee_puts_the_pending_melee_back():
    from rules.actions import resolve
    from rules.battle.events import Changes, apply, diff
    from rules.melee.melee import ResolvePendingMelee, pending_melees

    b, pm = _pending_pair(momentum_in=7.0)
    out = resolve(b, ResolvePendingMelee(pm.id), TableDice([6, 1]), T)
    ch = Changes.from_dict(diff(b, out.battle).to_dict())
    assert "extra" in ch.game
    back = apply(out.battle, ch, reverse=True)
    assert back == b and pending_melees(back) == (pm,)
    assert apply(back, ch) == out.battle  # and redo takes it away again


def test_rule_06_1_1_a_pending_melee_is_resolved_only_in_phase_4():
    from rules.actions import resolve
    from rules.battle.words import Phase
    from rules.melee.melee import ResolvePendingMelee

    b, pm = _pending_pair()
    with pytest.raises(IllegalAction, match="Phase 4: Assault & Melee Resolution") as exc:
        resolve(replace(b, phase=Phase.RANGED), ResolvePendingMelee(pm.id), TableDice([6, 1]), T)
    assert exc.value.rule == "RULE-06-1.1"
    with pytest.raises(IllegalAction, match="no melee 'nope'"):
        resolve(b, ResolvePendingMelee("nope"), TableDice([6, 1]), T)
    with pytest.raises(IllegalAction):
        resolve(b, ResolvePendingMelee(3), TableDice([6, 1]), T)


def test_rule_06_1_1_a_damaged_pending_list_is_a_typed_error():
    from rules.melee.melee import pending_melees

    b, pm = _pending_pair()
    for bad in (
        "not a list",
        [{"id": "x"}],
        [{**pm.to_dict(), "turn": 0}],
        [{**pm.to_dict(), "situation": {"attacker": "a", "defender": "d", "momentum_in": "far"}}],
        [{**pm.to_dict(), "situation": {"attacker": "a", "defender": "d", "speed": 3}}],
        [{**pm.to_dict(), "stands_lost": {"a": -1}}],
    ):
        with pytest.raises(InvariantError):
            pending_melees(replace(b, extra={"pending_melees": bad}))


def test_rule_06_1_1_leader_loss_counts_stands_lost_in_the_approach():
    from rules.actions import resolve
    from rules.battle.words import Phase
    from rules.melee.melee import ResolvePendingMelee, add_pending_melee

    b = replace(pair(attached={"csa": "a"}), phase=Phase.MELEE)
    b, pm = add_pending_melee(b, MeleeSituation("a", "d"), {"a": 1})
    out = resolve(b, ResolvePendingMelee(pm.id), TableDice([6, 1, 4]), T)  # a wins, loses nothing now
    assert [r.purpose for r in out.rolls] == [
        "attacker shock roll",
        "defender shock roll",
        "leader loss roll",
    ]
    b2, pm2 = add_pending_melee(
        replace(pair(attached={"csa": "a"}), phase=Phase.MELEE), MeleeSituation("a", "d")
    )
    out = resolve(b2, ResolvePendingMelee(pm2.id), TableDice([6, 1]), T)  # no stand lost: no roll
    assert [r.purpose for r in out.rolls] == ["attacker shock roll", "defender shock roll"]


def test_rule_06_4_2_a_melee_whose_unit_has_gone_ends_without_a_roll():
    from rules.actions import resolve
    from rules.melee.melee import ResolvePendingMelee, pending_melees

    b, pm = _pending_pair()
    d = b.unit("d")
    b = b.with_unit(replace(d, stands=0))
    out = resolve(b, ResolvePendingMelee(pm.id), TableDice([]), T)
    assert out.rolls == () and pending_melees(out.battle) == ()
    assert not out.battle.unit("a").has(Marker.ENGAGED)


def test_umpire_ruling_puts_off_or_calls_off_a_pending_melee():
    from rules.actions import NextPhase, resolve
    from rules.melee.melee import MeleeRuling, due_melees, pending_melees

    b, pm = _pending_pair()
    with pytest.raises(IllegalAction, match="needs a reason"):
        resolve(b, MeleeRuling(pm.id, "  "), TableDice([]), T)
    later = resolve(b, MeleeRuling(pm.id, "the light is failing"), TableDice([]), T)
    assert "put off to the Melee Phase of turn 2" in later.summary and "the light is failing" in later.summary
    assert due_melees(later.battle) == () and pending_melees(later.battle)[0].due_turn == 2
    assert resolve(later.battle, NextPhase(), TableDice([]), T).battle.phase.value == "end"
    off = resolve(b, MeleeRuling(pm.id, "both withdrew", call_off=True), TableDice([]), T)
    assert pending_melees(off.battle) == () and not off.battle.unit("a").has(Marker.ENGAGED)


def test_rule_06_4_2_a_tie_set_up_by_hand_is_pending_for_the_next_turn_too():
    from rules.actions import resolve
    from rules.melee.melee import MeleeAction, pending_melees

    out = resolve(pair(), MeleeAction("a", "d"), TableDice([3, 3]), T)
    (pm,) = pending_melees(out.battle)
    assert pm.locked and pm.due_turn == 2 and (pm.attacker, pm.defender) == ("a", "d")
    # re-rolled by hand, the pending melee of the two units is settled
    out2 = resolve(out.battle, MeleeAction("a", "d"), TableDice([6, 1]), T)
    assert pending_melees(out2.battle) == ()


def test_rule_06_1_1_a_unit_in_two_pending_melees_stays_engaged_until_both_are_over():
    from rules.actions import resolve
    from rules.battle.words import Phase
    from rules.melee.melee import ResolvePendingMelee, add_pending_melee, pending_melees

    a2 = unit("a2", "csa", x=14.0, y=20.0, facing_deg=0.0)
    b = replace(pair(), phase=Phase.MELEE)
    b = b.with_unit(a2)
    b, first = add_pending_melee(b, MeleeSituation("a", "d"))
    b, second = add_pending_melee(b, MeleeSituation("a2", "d"))
    assert first.id != second.id
    out = resolve(b, ResolvePendingMelee(first.id), TableDice([6, 1]), T)
    assert [m.id for m in pending_melees(out.battle)] == [second.id]
    assert not out.battle.unit("a").has(Marker.ENGAGED)
    assert out.battle.unit("d").has(Marker.ENGAGED) and out.battle.unit("a2").has(Marker.ENGAGED)
    out = resolve(out.battle, ResolvePendingMelee(second.id), TableDice([6, 1]), T)
    assert not out.battle.unit("d").has(Marker.ENGAGED) and pending_melees(out.battle) == ()


# -- the Leader Loss line says when and how the stand was lost -------------------------------------


def test_example_1_leader_loss_says_the_4th_virginia_lost_its_stand_to_the_closing_volley():
    """Example 1: the 4th Virginia loses a stand to the closing volley in Phase 2 and none in the
    melee it wins 11 to 9; Garnett's roll of 4 (Unhurt) is for that stand."""
    from tests.rules.melee.test_examples_ch06 import example_1, two_phases

    _p2, pm, _b4, p4, _d2, _d4 = two_phases(example_1(), "va4", "wis2", [2, 4, 1, 6, 5, 5], [5, 3, 4])
    assert pm.stands_lost == {"va4": 1}
    last = p4.steps[-1]
    assert last.text == (
        "Leader Loss: 4th Virginia lost a stand to the closing volley in Phase 2 with Garnett attached; "
        "Garnett rolls 4: Unhurt"
    )
    assert "in the melee" not in last.text and last.dice == (4,)


def test_leader_loss_says_a_stand_lost_in_the_melee():
    b = pair(attached={"usa": "d"})
    r = resolve_melee(b, MeleeSituation("a", "d"), TableDice([6, 1, 1]), T)
    assert r.stands_lost == {"d": 1}
    assert r.steps[-1].text.startswith("Leader Loss: d lost a stand in the melee with ")
    assert "closing volley" not in r.steps[-1].text


def test_how_stands_were_lost_names_each_cause_and_counts_stands():
    from rules.melee.melee import how_stands_were_lost

    assert how_stands_were_lost(1, 0) == "lost a stand to the closing volley in Phase 2"
    assert how_stands_were_lost(0, 1) == "lost a stand in the melee"
    assert (
        how_stands_were_lost(2, 1)
        == "lost 2 stands to the closing volley in Phase 2 and a stand in the melee"
    )
    assert how_stands_were_lost(0, 2) == "lost 2 stands in the melee"
    assert how_stands_were_lost() == "lost a stand"
    with pytest.raises(InvariantError):
        how_stands_were_lost(-1, 0)


def test_leader_loss_after_a_pending_melee_names_both_the_volley_and_the_melee():
    """A pending melee whose attacker lost a stand on the way in and then another in the melee it
    loses: the line names both."""
    from rules.actions import resolve
    from rules.melee.melee import ResolvePendingMelee, add_pending_melee

    b = replace(pair(attached={"csa": "a"}), phase=Phase.MELEE)
    b, pm = add_pending_melee(b, MeleeSituation("a", "d"), {"a": 1})
    r = resolve(b, ResolvePendingMelee(pm.id), TableDice([1, 6, 6]), T)
    ll = [s for s in r.steps if s.text.startswith("Leader Loss")]
    assert len(ll) == 1
    assert ll[0].text.startswith(
        "Leader Loss: a lost a stand to the closing volley in Phase 2 and a stand in the melee with "
    )
