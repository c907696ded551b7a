"""Shooting (RULE-04-2.3, RULE-04-3.3, RULE-03-5.1, RULE-03-5.2, RULE-03-5.3, RULE-03-5.4, RULE-03-5.5, RULE-03-5.6, RULE-03-5.7, RULE-03-2.1, RULE-03-2.2, RULE-03-2.3, RULE-03-2.4, RULE-03-2.5): pools, bands, modifiers, saves, odds."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.battle.battle import Battle
from rules.battle.order_of_battle import Brigade, Brigadier, OrderOfBattle, Side
from rules.battle.unit import Unit
from rules.battle.words import Formation, GunType, Marker, Quality, UnitKind, Weapon
from rules.dice import TableDice
from rules.errors import DiceError, IllegalAction, InvariantError, RulesError
from rules.shooting.volley_odds import volley_odds, volley_odds_from
from rules.shooting.volleys import (
    Cover,
    FireKind,
    RangeBand,
    Volley,
    dice_pool,
    plan_volley,
    range_band,
    resolve_volley,
    shoot,
)
from rules.tables import load_tables

T = load_tables()


# -- builders shared by the chapter 04 tests ---------------------------------------------------


def unit(uid: str, side: str, **kw) -> Unit:
    """A unit with sensible defaults: 5 stands of regular infantry with rifled muskets, in line."""
    d = dict(
        id=uid,
        name=kw.pop("name", uid),
        side=side,
        brigade=kw.pop("brigade", "ub" if side == "union" else "cb"),
        kind=kw.pop("kind", UnitKind.INFANTRY),
        stands=kw.pop("stands", 5),
        stands_start=kw.pop("stands_start", 5),
    )
    d.update(kw)
    return Unit(**d)


def battle_of(
    *units: Unit, union_reserved: int = 0, csa_reserved: int = 0, terrain=(), active: str = "union"
) -> Battle:
    """Two sides, one brigade each, holding ``units``; ``active`` is the side whose turn it is."""
    sides = (Side("union", "Union"), Side("csa", "Confederacy"))
    brigades = {
        "ub": Brigade(
            "ub",
            "Union brigade",
            "union",
            Brigadier("Meredith"),
            staff_pips=2,
            staff_pips_reserved=union_reserved,
        ),
        "cb": Brigade(
            "cb",
            "Confederate brigade",
            "csa",
            Brigadier("Garnett"),
            staff_pips=2,
            staff_pips_reserved=csa_reserved,
        ),
    }
    oob = OrderOfBattle(sides, brigades, {u.id: u for u in units})
    return Battle(name="test", oob=oob, terrain=tuple(terrain), active_side=active)


def duel(firer_kw=None, target_kw=None) -> Battle:
    """A Union firer ``f`` facing a Confederate target ``t`` 5" to its front."""
    f = unit("f", "union", name="2nd Wisconsin", x=10, y=20, **(firer_kw or {}))
    t = unit("t", "csa", name="8th Georgia", x=10, y=15, facing_deg=180, **(target_kw or {}))
    return battle_of(f, t)


def fire(b: Battle, dice, **kw):
    kw.setdefault("distance_in", 5.0)
    return resolve_volley(b, Volley("f", "t", **kw), TableDice(dice), T)


# -- dice pool ---------------------------------------------------------------------------------


def test_rule_04_2_3_one_die_per_stand_two_per_artillery_section():
    assert dice_pool(unit("a", "union", stands=5), T) == 5
    bty = unit(
        "b",
        "union",
        kind=UnitKind.ARTILLERY,
        stands=3,
        stands_start=3,
        gun=GunType.NAPOLEON_12PDR,
        weapon=Weapon.NONE,
        formation=Formation.UNLIMBERED,
    )
    assert dice_pool(bty, T) == 6


def test_rule_03_5_3_pool_reduced_to_stands_with_a_clear_view():
    out = fire(duel(), [4, 4, 4], clear_stands=3)
    assert out.plan.dice_pool == 3 and out.hit_dice == (4, 4, 4)
    with pytest.raises(InvariantError, match="cannot have a clear view"):
        fire(duel(), [4] * 6, clear_stands=6)
    with pytest.raises(InvariantError):
        fire(duel(), [4], clear_stands=-1)


def test_too_few_dice_typed_in_is_a_dice_error_naming_the_roll():
    with pytest.raises(DiceError, match="volley"):
        fire(duel(), [4, 4])


# -- range bands -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "distance, band",
    [
        (0.0, RangeBand.SHORT),
        (6.0, RangeBand.SHORT),
        (6.01, RangeBand.MEDIUM),
        (8.0, RangeBand.MEDIUM),
        (8.01, RangeBand.LONG),
    ],
)
def test_rule_04_2_3_and_04_3_3_range_bands_short_to_6in_medium_to_8in(distance, band):
    assert range_band(distance, T) == band


def test_to_hit_number_comes_from_weapon_and_band():
    b = duel()
    assert plan_volley(b, Volley("f", "t", 6.0), T).to_hit == 4  # rifled musket, short (RULE-04-2.3)
    assert plan_volley(b, Volley("f", "t", 7.0), T).to_hit == T.value("shooting.to_hit.medium.rifled_musket")
    assert plan_volley(b, Volley("f", "t", 12.0), T).to_hit == T.value("shooting.to_hit.long.rifled_musket")
    sb = duel(firer_kw={"weapon": Weapon.SMOOTHBORE_MUSKET})
    assert plan_volley(sb, Volley("f", "t", 6.0), T).to_hit == 3


def test_long_range_stops_at_the_weapons_maximum_range():
    top = T.value("shooting.max_range.rifled_musket")
    plan_volley(duel(), Volley("f", "t", top), T)
    with pytest.raises(IllegalAction, match="maximum range"):
        plan_volley(duel(), Volley("f", "t", top + 0.01), T)


def test_bad_distances_are_typed_errors():
    for bad in (-1.0, float("nan"), float("inf"), "6", True):
        with pytest.raises(InvariantError):
            plan_volley(duel(), Volley("f", "t", bad), T)


# -- to-hit modifiers --------------------------------------------------------------------------


def test_rule_03_5_7_enfilade_gives_plus_one_to_hit():
    plain = fire(duel(), [3, 3, 3, 4, 1])
    raking = fire(duel(), [3, 3, 3, 4, 1], enfilade=True)
    assert plain.hits == 1 and raking.hits == 4
    assert [m.rule for m in raking.plan.to_hit_modifiers] == ["RULE-03-5.7"]


def test_rule_03_5_4_firing_through_own_skirmish_screen_is_minus_one():
    plain = fire(duel(), [4, 4, 5, 5, 1])
    screened = fire(duel(), [4, 4, 5, 5, 1], through_own_screen=True)
    assert plain.hits == 4 and screened.hits == 2
    assert [m.rule for m in screened.plan.to_hit_modifiers] == ["RULE-03-5.4"]


def test_rule_04_5_4_refused_flank_denies_the_enfilade_bonus():
    b = duel(target_kw={"markers": frozenset({Marker.REFUSED_FLANK})})
    out = fire(b, [3, 3, 3, 3, 3], enfilade=True)
    assert out.hits == 0 and out.plan.to_hit_modifiers == ()
    assert any(s.rule == "RULE-04-5.4" for s in out.steps)


# -- cover saves -------------------------------------------------------------------------------


def test_rule_03_2_1_light_cover_saves_on_5_plus():
    out = fire(duel(), [6, 6, 6, 1, 1, 5, 4, 6], cover=Cover.LIGHT)
    assert out.hits == 3 and out.save_dice == (5, 4, 6) and out.unsaved_hits == 1


def test_rule_03_2_2_heavy_cover_saves_on_4_plus():
    out = fire(duel(), [6, 6, 6, 1, 1, 4, 3, 6], cover=Cover.HEAVY)
    assert out.save_dice == (4, 3, 6) and out.unsaved_hits == 1


def test_no_cover_rolls_no_saves():
    out = fire(duel(), [4, 4, 4, 1, 1])
    assert out.save_dice == () and out.unsaved_hits == 3


def test_rule_03_5_7_enfilade_denies_fence_light_cover():
    out = fire(duel(), [5, 5, 1, 1, 1], enfilade=True, cover=Cover.LIGHT, fence_cover=True)
    assert out.save_dice == () and out.unsaved_hits == 2
    assert any(s.rule == "RULE-03-5.7" and "fence" in s.text for s in out.steps)


def test_enfilade_does_not_deny_heavy_cover_or_light_cover_of_woods():
    heavy = fire(duel(), [5, 5, 1, 1, 1, 4, 4], enfilade=True, cover=Cover.HEAVY, fence_cover=True)
    assert heavy.save_dice == (4, 4) and heavy.unsaved_hits == 0
    woods = fire(duel(), [5, 5, 1, 1, 1, 5, 5], enfilade=True, cover=Cover.LIGHT)
    assert woods.save_dice == (5, 5) and woods.unsaved_hits == 0


def test_refused_flank_keeps_fence_cover_against_enfilade():
    b = duel(target_kw={"markers": frozenset({Marker.REFUSED_FLANK})})
    out = fire(b, [5, 5, 1, 1, 1, 5, 4], enfilade=True, cover=Cover.LIGHT, fence_cover=True)
    assert out.save_dice == (5, 4) and out.unsaved_hits == 1


def test_rule_04_3_3_road_column_saves_at_minus_2_against_opportunity_fire():
    b = duel(target_kw={"formation": Formation.ROAD_COLUMN})
    opp = fire(b, [4, 4, 1, 1, 1, 5, 6], kind=FireKind.OPPORTUNITY_FIRE, cover=Cover.HEAVY)
    assert opp.plan.save == 6 and opp.save_dice == (5, 6) and opp.unsaved_hits == 1
    assert [m.rule for m in opp.plan.save_modifiers] == ["RULE-04-3.3"]
    phase3 = fire(b, [4, 4, 1, 1, 1, 5, 4], cover=Cover.HEAVY)
    assert phase3.plan.save == 4 and phase3.unsaved_hits == 0


def test_rule_04_3_3_road_column_in_light_cover_cannot_save_opportunity_fire():
    b = duel(target_kw={"formation": Formation.ROAD_COLUMN})
    out = fire(b, [4, 4, 1, 1, 1], kind=FireKind.OPPORTUNITY_FIRE, cover=Cover.LIGHT)
    assert out.save_dice == () and out.unsaved_hits == 2
    assert any("cannot save" in s.text for s in out.steps)


def test_assault_column_save_penalty_is_a_club_default_switched_off():
    e = T.entry("shooting.save_modifier.assault_column_vs_canister")
    assert e.club_default and e.value == 0
    b = duel(target_kw={"formation": Formation.ASSAULT_COLUMN})
    assert plan_volley(b, Volley("f", "t", 5.0, cover=Cover.LIGHT), T).save == 5
    t2 = T.with_values({"shooting.save_modifier.assault_column_vs_canister": -1})
    assert plan_volley(b, Volley("f", "t", 5.0, cover=Cover.LIGHT), t2).save == 6
    assert plan_volley(b, Volley("f", "t", 7.0, cover=Cover.LIGHT), t2).save == 5  # not close fire


# -- casualties and disorder -------------------------------------------------------------------


def test_rule_04_2_3_two_unsaved_hits_make_a_stand_and_an_odd_hit_is_carried():
    out = fire(duel(), [4, 4, 4, 1, 1])
    assert out.stands_lost == 1 and out.micro_hits_after == 1
    t = out.battle.unit("t")
    assert (t.stands, t.micro_hits) == (4, 1)


def test_carried_micro_hit_and_one_more_hit_make_a_stand():
    out = fire(duel(target_kw={"micro_hits": 1}), [4, 1, 1, 1, 1])
    assert out.stands_lost == 1 and out.battle.unit("t").micro_hits == 0


def test_rule_04_2_3_natural_6_disorders_the_target():
    assert fire(duel(), [6, 1, 1, 1, 1]).battle.unit("t").disordered
    out = fire(duel(), [5, 5, 5, 5, 5])
    assert not out.disorder_inflicted and not out.battle.unit("t").disordered


def test_natural_6_disorders_even_when_it_cannot_hit():
    # smoothbore at long range hits on 6+; through its own screen it needs 7: the 6 misses but disorders
    b = duel(firer_kw={"weapon": Weapon.SMOOTHBORE_MUSKET})
    out = fire(b, [6, 6, 1, 1, 1], distance_in=10.0, through_own_screen=True)
    assert out.hits == 0 and out.disorder_inflicted


def test_destroyed_target_carries_no_disorder():
    out = fire(duel(target_kw={"stands": 1}), [6, 6, 1, 1, 1])
    assert out.target_destroyed and out.battle.unit("t").markers == frozenset()


def napoleon(formation: Formation = Formation.UNLIMBERED) -> Battle:
    return duel(
        firer_kw=dict(
            kind=UnitKind.ARTILLERY,
            stands=2,
            stands_start=2,
            gun=GunType.NAPOLEON_12PDR,
            weapon=Weapon.NONE,
            formation=formation,
        )
    )


def test_rule_04_2_3_napoleon_canister_hits_on_2_and_disorders_automatically():
    out = fire(napoleon(), [2, 1, 1, 1])
    assert out.hits == 1 and out.disorder_inflicted and out.natural_sixes == 0
    assert any("canister" in s.text and s.rule == "RULE-04-2.3" for s in out.steps)


def test_napoleon_canister_that_misses_does_not_disorder():
    out = fire(napoleon(), [1, 1, 1, 1])
    assert out.hits == 0 and not out.disorder_inflicted


def test_napoleon_beyond_canister_range_does_not_disorder_automatically():
    out = fire(napoleon(), [4, 4, 1, 1], distance_in=7.0)
    assert out.hits == 2 and not out.disorder_inflicted


def test_napoleon_automatic_disorder_follows_the_table_entry():
    t0 = T.with_values({"shooting.canister.napoleon_automatic_disorder": 0})
    out = resolve_volley(napoleon(), Volley("f", "t", 5.0), TableDice([2, 2, 1, 1]), t0)
    assert out.hits == 2 and not out.disorder_inflicted


# -- markers on the firer ----------------------------------------------------------------------


def test_phase_3_fire_marks_the_firer_with_smoke_and_fired():
    b, steps = shoot(duel(), Volley("f", "t", 5.0), TableDice([1] * 5), T)
    assert {Marker.SMOKE, Marker.FIRED} <= b.unit("f").markers
    assert steps and all(s.text for s in steps)


def test_rule_04_2_6_closing_volley_marks_only_smoke():
    out = fire(duel(), [1] * 5, kind=FireKind.CLOSING_VOLLEY)
    assert out.battle.unit("f").markers == frozenset({Marker.SMOKE})


def test_rule_04_2_3_closing_volley_uses_short_range_numbers_whatever_the_distance():
    out = fire(duel(), [4] * 5, kind=FireKind.CLOSING_VOLLEY, distance_in=7.0)
    assert out.plan.band == RangeBand.SHORT and out.hits == 5


def test_rule_04_3_4_a_unit_that_has_fired_cannot_fire_in_phase_3():
    b = duel(firer_kw={"markers": frozenset({Marker.FIRED})})
    with pytest.raises(IllegalAction, match="RULE-04-3.4"):
        fire(b, [1] * 5)


def test_rule_04_3_3_opportunity_fire_only_at_short_or_medium_range():
    fire(duel(), [1] * 5, kind=FireKind.OPPORTUNITY_FIRE, distance_in=8.0)
    with pytest.raises(IllegalAction, match="RULE-04-3.3"):
        fire(duel(), [1] * 5, kind=FireKind.OPPORTUNITY_FIRE, distance_in=8.01)


def test_who_may_not_fire():
    with pytest.raises(IllegalAction, match="same side"):
        resolve_volley(
            battle_of(unit("f", "union"), unit("t", "union")), Volley("f", "t", 5), TableDice([1] * 5), T
        )
    with pytest.raises(IllegalAction, match="destroyed"):
        fire(duel(target_kw={"stands": 0}), [1] * 5)
    with pytest.raises(IllegalAction, match="limbered"):
        fire(napoleon(formation=Formation.LIMBERED), [1] * 4)
    with pytest.raises(IllegalAction, match="RULE-03-2.5"):
        fire(duel(firer_kw={"markers": frozenset({Marker.CLIMBING})}), [1] * 5)
    with pytest.raises(InvariantError, match="no unit"):
        resolve_volley(duel(), Volley("f", "nobody", 5), TableDice([1] * 5), T)
    with pytest.raises(InvariantError):
        fire(duel(), [1] * 5, cover="sandbags")


# -- exact odds --------------------------------------------------------------------------------


def brute_force(pool: int, to_hit: int, save: int | None, micro: int = 0) -> dict[int, Fraction]:
    """Every face of every die, counted."""
    out: dict[int, Fraction] = {}
    for hit_dice in itertools.product(range(1, 7), repeat=pool):
        hits = sum(d >= to_hit for d in hit_dice)
        saves = [()] if save is None or hits == 0 else list(itertools.product(range(1, 7), repeat=hits))
        for sd in saves:
            unsaved = hits - sum(d >= save for d in sd) if save is not None else hits
            lost = (micro + unsaved) // 2
            out[lost] = out.get(lost, Fraction(0)) + Fraction(1, 6**pool) / len(saves)
    return dict(sorted(out.items()))


@pytest.mark.parametrize(
    "pool,to_hit,save,micro", [(3, 4, None, 0), (3, 3, 5, 1), (2, 2, 4, 0), (4, 5, None, 1)]
)
def test_stand_loss_odds_are_exact(pool, to_hit, save, micro):
    odds = volley_odds_from(dice_pool=pool, to_hit=to_hit, save=save, micro_hits=micro, tables=T)
    assert odds.stand_losses == brute_force(pool, to_hit, save, micro)
    assert sum(odds.stand_losses.values()) == 1


def test_disorder_odds_are_the_chance_of_any_natural_6():
    odds = volley_odds_from(dice_pool=5, to_hit=4, tables=T)
    assert odds.disorder == 1 - Fraction(5, 6) ** 5
    canister = volley_odds_from(dice_pool=4, to_hit=2, tables=T, canister_disorder=True)
    assert canister.disorder == 1 - Fraction(1, 6) ** 4


def test_volley_odds_for_example_a_pool_and_capped_at_the_targets_stands():
    b = duel(firer_kw={"weapon": Weapon.SMOOTHBORE_MUSKET}, target_kw={"stands": 1})
    odds = volley_odds(b, Volley("f", "t", 4.0, kind=FireKind.CLOSING_VOLLEY), T)
    assert set(odds.stand_losses) == {0, 1}
    p, q = Fraction(4, 6), Fraction(2, 6)  # 5D6 hitting on 3+: the stand goes unless 0 or 1 hit
    assert odds.at_least(1) == 1 - q**5 - 5 * p * q**4
    assert odds.expected_stands_lost == odds.at_least(1)


# -- purity ------------------------------------------------------------------------------------

faces = st.integers(min_value=1, max_value=6)


@settings(max_examples=40, deadline=None)
@given(
    dice=st.lists(faces, min_size=10, max_size=10),
    stands=st.integers(min_value=1, max_value=5),
    micro=st.integers(min_value=0, max_value=1),
    distance=st.floats(min_value=0, max_value=8),
    kind=st.sampled_from(list(FireKind)),
    cover=st.sampled_from(list(Cover)),
    enfilade=st.booleans(),
    formation=st.sampled_from([Formation.LINE, Formation.ROAD_COLUMN, Formation.ASSAULT_COLUMN]),
)
def test_a_volley_is_a_pure_function_of_state_inputs_and_dice(
    dice, stands, micro, distance, kind, cover, enfilade, formation
):
    b = duel(
        target_kw={"stands": stands, "micro_hits": micro, "formation": formation, "quality": Quality.GREEN}
    )
    before = b.to_dict()
    v = Volley("f", "t", distance, kind=kind, cover=cover, enfilade=enfilade, fence_cover=True)
    try:
        one = resolve_volley(b, v, TableDice(dice), T)
    except RulesError:
        return
    two = resolve_volley(b, v, TableDice(dice), T)
    assert b.to_dict() == before
    assert one == two
    t = one.battle.unit("t")
    assert t.stands * 2 - t.micro_hits == max(0, stands * 2 - micro - one.unsaved_hits)


# -- the Phase 3 action ------------------------------------------------------------------------


def test_shoot_action_round_trips_and_resolves_in_phase_3_only():
    from dataclasses import replace as _replace

    from rules.actions import Action, resolve
    from rules.battle.words import Phase
    from rules.shooting.shoot import Shoot

    a = Shoot("f", "t", 5.0, cover="light", enfilade=True)
    assert Action.from_dict(a.to_dict()) == a
    b = duel()
    with pytest.raises(IllegalAction, match="Phase 3"):
        resolve(b, a, TableDice([1] * 5), T)
    b3 = _replace(b, phase=Phase.RANGED)
    out = resolve(b3, a, TableDice([3, 3, 1, 1, 1, 5, 1]), T)
    assert [r.purpose for r in out.rolls] == ["volley", "cover saves"]
    assert out.battle.unit("t").micro_hits == 1 and "2 hits" in out.summary
    with pytest.raises(IllegalAction, match="own side"):
        resolve(_replace(b3, active_side="csa"), a, TableDice([1] * 5), T)


# -- measuring a volley on the table -----------------------------------------------------------


def test_measure_volley_in_the_open():
    from rules.shooting.shoot import measure_volley

    v = measure_volley(duel(), "f", "t", T)
    assert v.distance_in == pytest.approx(5.0) and v.clear_stands == 5
    assert (v.enfilade, v.through_own_screen, v.cover, v.fence_cover) == (False, False, Cover.NONE, False)


def test_measure_volley_finds_the_targets_wall_and_fence():
    from rules.battle.terrain import TerrainFeature, TerrainType
    from rules.shooting.shoot import measure_volley

    for ttype, cover, fence in (
        (TerrainType.STONE_WALL, Cover.HEAVY, False),
        (TerrainType.SPLIT_RAIL_FENCE, Cover.LIGHT, True),
    ):
        wall = TerrainFeature("w", ttype, ((0, 15.1), (20, 15.1)))
        b = duel().with_feature(wall)
        v = measure_volley(b, "f", "t", T)
        assert (v.cover, v.fence_cover) == (cover, fence)


def test_measure_volley_refuses_a_target_outside_the_arc_or_not_the_closest():
    from rules.shooting.shoot import measure_volley

    b = duel().with_unit(unit("far", "csa", x=40, y=20, facing_deg=270))
    with pytest.raises(IllegalAction, match="RULE-03-5.1"):
        measure_volley(b, "f", "far", T)
    near = duel().with_unit(unit("t2", "csa", x=10, y=8, facing_deg=180))
    with pytest.raises(IllegalAction, match="RULE-03-5.6"):
        measure_volley(near, "f", "t2", T)
    assert measure_volley(near, "f", "t2", T, kind=FireKind.CLOSING_VOLLEY).target == "t2"
    assert measure_volley(near, "f", "t2", T, charging=("t2",)).target == "t2"


def test_shoot_on_table_builds_the_action_from_the_measured_volley():
    from rules.shooting.shoot import Shoot

    a = Shoot.on_table(duel(), "f", "t", T)
    assert a.distance_in == pytest.approx(5.0) and a.clear_stands == 5 and a.cover == "none"


def test_fire_inputs_for_a_reaction_volley_give_cover_and_clear_view():
    from rules.battle.terrain import TerrainFeature, TerrainType
    from rules.shooting.shoot import fire_inputs

    fence = TerrainFeature("w", TerrainType.SPLIT_RAIL_FENCE, ((0, 15.1), (20, 15.1)))
    got = fire_inputs(duel().with_feature(fence), "f", "t", T)
    assert got == {"cover": Cover.LIGHT, "fence_cover": True, "clear_stands": 5}
    assert fire_inputs(duel(), "f", "t", T) == {"cover": Cover.NONE, "fence_cover": False, "clear_stands": 5}


def test_fire_inputs_refuse_a_target_out_of_sight():
    from rules.battle.terrain import TerrainFeature, TerrainType
    from rules.shooting.shoot import fire_inputs

    town = TerrainFeature("town", TerrainType.TOWN_MASONRY, ((5, 16), (15, 16), (15, 19), (5, 19)))
    with pytest.raises(IllegalAction, match="cannot see"):
        fire_inputs(duel().with_feature(town), "f", "t", T)


# -- buildings: garrisoning and artillery fire at them (RULE-03-3.1, RULE-03-3.2) ---------------------------


def _farm_battle(hits=0, garrison_stands=2, phase=None, gun_at=(12.0, 25.0), **gun_kw):
    from dataclasses import replace as _r

    from rules.battle.words import Phase
    from tests.rules.conftest import battle_of, foot, guns, rect

    house = rect("farm", "building", 10, 10, 14, 13, name="Roulette Farm", structural_hits=hits)
    g = foot(
        "g",
        12,
        11,
        side="csa",
        stands=garrison_stands,
        markers=frozenset({Marker.GARRISONED}),
        name="8th Georgia",
    )
    bat = guns("bat", *gun_at, facing=0, name="Battery B", **gun_kw)
    b = battle_of(g, bat, terrain=[house])
    return _r(b, phase=phase or Phase.RANGED)


def _bombard(battle, faces, feature="farm", battery="bat"):
    from rules.actions import resolve
    from rules.shooting.buildings import BombardBuilding

    return resolve(battle, BombardBuilding(battery, feature), TableDice(faces), T)


def test_rule_03_3_2_artillery_hits_a_garrisoned_building_on_4_plus_and_the_building_saves_4_plus():
    assert T.entry("shooting.to_hit.building.artillery").value == 4
    # 3 sections: 6D6 to hit; 4, 6 and 5 hit, 3, 1 and 2 miss; saves 4 (saved), 1, 3: 2 unsaved
    r = _bombard(_farm_battle(), [4, 3, 6, 1, 5, 2, 4, 1, 3])
    assert r.steps[0].dice == (4, 3, 6, 1, 5, 2) and r.steps[0].rule == "RULE-03-3.2"
    assert "3 hits" in r.steps[0].text
    assert r.steps[1].dice == (4, 1, 3) and "saves 1 of 3 on 4+" in r.steps[1].text
    assert r.steps[1].rule == "RULE-03-3.1"
    farm = r.battle.feature("farm")
    assert farm.structural_hits == 1 and farm.props["loose_hits"] == 0
    assert r.battle.unit("g").stands == 2  # the hits are scored against the building itself
    bat = r.battle.unit("bat")
    assert bat.has(Marker.FIRED) and bat.has(Marker.SMOKE)
    assert "1 of 4 structural hits" in r.summary


def test_rule_03_3_2_a_3_misses_and_a_4_hits_the_building():
    miss = _bombard(_farm_battle(), [3, 3, 3, 3, 3, 3])
    assert "0 hits" in miss.steps[0].text and miss.battle.feature("farm").structural_hits == 0
    one = _bombard(_farm_battle(), [4, 3, 3, 3, 3, 3, 3])  # one hit, its save fails on a 3
    assert "1 hit" in one.steps[0].text
    assert one.battle.feature("farm").props["loose_hits"] == 1  # an odd unsaved hit is carried


def test_rule_03_3_2_four_structural_hits_collapse_the_building_onto_its_garrison():
    from rules.battle.terrain import TerrainType
    from rules.battlefield.field import Battlefield

    r = _bombard(_farm_battle(hits=3), [6, 6, 1, 1, 1, 1, 1, 1])  # 2 hits, both unsaved
    assert r.battle.feature("farm").type == TerrainType.RUBBLE
    g = r.battle.unit("g")
    assert g.stands == 1 and g.has(Marker.DISORDER) and not g.has(Marker.GARRISONED)
    bf = Battlefield(r.battle, T)
    assert not bf.footprint("g").polygon.intersects(bf.feature_geometry("farm"))
    assert any("collapses into rubble" in s.text and s.rule == "RULE-03-3.2" for s in r.steps)
    # rubble is light cover (5+) to a unit standing in it
    inside = r.battle.with_unit(g.moved_to(12, 11.5))
    c = Battlefield(inside, T).cover_for("g", "bat")
    assert (c.kind, c.save, c.rule) == ("light", 5, "RULE-03-3.2")


def test_rule_03_3_2_three_structural_hits_stand():
    r = _bombard(_farm_battle(hits=2), [6, 6, 1, 1, 1, 1, 1, 1])
    assert r.battle.feature("farm").structural_hits == 3
    assert r.battle.unit("g").has(Marker.GARRISONED) and r.battle.unit("g").stands == 2


def test_rule_03_3_2_bombardment_is_refused_where_the_rules_do_not_allow_it():
    from dataclasses import replace as _r

    from rules.battle.words import Phase
    from tests.rules.conftest import foot

    with pytest.raises(IllegalAction, match="only in its own side's Phase 3"):
        _bombard(_farm_battle(phase=Phase.MANEUVER), [1] * 6)
    with pytest.raises(IllegalAction, match="limbered"):
        _bombard(_farm_battle(formation=Formation.LIMBERED), [1] * 6)
    with pytest.raises(IllegalAction, match="beyond Battery B's 48\" maximum range"):
        _bombard(_farm_battle(gun_at=(12.0, 62.0)), [1] * 6)
    assert _bombard(_farm_battle(gun_at=(12.0, 60.9)), [1] * 6).battle.unit("bat").has(Marker.FIRED)
    empty = _farm_battle()
    empty = empty.with_unit(_r(empty.unit("g"), markers=frozenset()))
    with pytest.raises(IllegalAction, match="no enemy garrison"):
        _bombard(empty, [1] * 6)
    b = _farm_battle().with_unit(foot("inf", 12, 25))
    with pytest.raises(IllegalAction, match="only artillery"):
        _bombard(b, [1] * 6, battery="inf")
    fired = _farm_battle()
    fired = fired.with_unit(fired.unit("bat").with_markers(add=[Marker.FIRED]))
    with pytest.raises(IllegalAction, match="already fired"):
        _bombard(fired, [1] * 6)
    behind = _farm_battle()
    behind = behind.with_unit(behind.unit("bat").moved_to(12, 25, 180))
    with pytest.raises(IllegalAction, match="forward arc"):
        _bombard(behind, [1] * 6)


def test_bombard_and_garrison_actions_round_trip():
    from rules.actions import Action
    from rules.shooting.buildings import BombardBuilding, GarrisonBuilding

    for a in (BombardBuilding("bat", "farm"), GarrisonBuilding("g", "farm")):
        assert Action.from_dict(a.to_dict()) == a


def _garrison(battle, unit_id, feature="farm"):
    from rules.actions import resolve
    from rules.shooting.buildings import GarrisonBuilding

    return resolve(battle, GarrisonBuilding(unit_id, feature), TableDice([]), T)


def _open_farm(*units):
    from dataclasses import replace as _r

    from rules.battle.words import Phase
    from tests.rules.conftest import battle_of, rect

    house = rect("farm", "building", 10, 10, 14, 13, name="Roulette Farm")
    return _r(battle_of(*units, terrain=[house]), phase=Phase.MANEUVER)


def test_rule_03_3_1_two_stands_of_foot_occupy_a_building():
    from rules.battlefield.field import Battlefield
    from tests.rules.conftest import foot

    r = _garrison(_open_farm(foot("wis2", 12, 13.2, stands=2)), "wis2")
    u = r.battle.unit("wis2")
    assert u.has(Marker.GARRISONED) and Battlefield(r.battle, T).building_of(u).id == "farm"
    assert r.steps[0].rule == "RULE-03-3.1"


def test_rule_03_3_1_three_stands_are_more_than_a_building_holds():
    from tests.rules.conftest import foot

    with pytest.raises(IllegalAction, match="at most 2") as err:
        _garrison(_open_farm(foot("wis2", 12, 13.2, stands=3)), "wis2")
    assert err.value.rule == "RULE-03-3.1"


def test_rule_03_3_1_the_limit_counts_the_garrison_already_inside():
    from tests.rules.conftest import foot

    b = _open_farm(
        foot("a", 12, 13.2, stands=1), foot("b", 12.5, 13.2, stands=1), foot("c", 11, 13.2, stands=1)
    )
    b = _garrison(b, "a").battle
    b = _garrison(b, "b").battle  # 1 + 1 = 2: allowed
    with pytest.raises(IllegalAction, match="already holds 2 stands"):
        _garrison(b, "c")


def test_rule_03_3_1_only_foot_next_to_the_building_may_occupy_it():
    from tests.rules.conftest import foot, guns

    with pytest.raises(IllegalAction, match="infantry or dismounted cavalry"):
        _garrison(_open_farm(guns("bat", 12, 13.2, sections=1)), "bat")
    with pytest.raises(IllegalAction, match="move it up to the building"):
        _garrison(_open_farm(foot("wis2", 12, 13.5, stands=2)), "wis2")  # 0.5" away
    _garrison(_open_farm(foot("wis2", 12, 13.25, stands=2)), "wis2")  # 0.25": touching
    from dataclasses import replace as _r

    held = _garrison(
        _open_farm(foot("va", 12, 9.9, side="csa", stands=1), foot("wis2", 12, 13.2, stands=1)), "wis2"
    )
    with pytest.raises(IllegalAction, match="held by the enemy"):
        _garrison(_r(held.battle, active_side="csa"), "va")
