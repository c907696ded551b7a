"""The order of battle: health states, casualties and invariants (RULE-06-1.3, RULE-06-3.3)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.battle.order_of_battle import Brigade, Brigadier, OrderOfBattle, Side
from rules.battle.unit import Unit, health_of
from rules.battle.words import BrigadeState, Formation, GunType, Health, Marker, Phase, UnitKind
from rules.errors import InvariantError


def unit(**kw) -> Unit:
    base = dict(
        id="u1",
        name="2nd Wisconsin",
        side="union",
        brigade="iron",
        kind=UnitKind.INFANTRY,
        stands=5,
        stands_start=5,
    )
    base.update(kw)
    return Unit(**base)


def oob(*units: Unit, brigadier_on: str | None = None) -> OrderOfBattle:
    sides = (Side("union", "Union"), Side("csa", "Confederacy"))
    brigades = {
        "iron": Brigade("iron", "Iron Brigade", "union", Brigadier("Meredith"), staff_pips=2),
        "stonewall": Brigade(
            "stonewall", "Stonewall Brigade", "csa", Brigadier("Garnett", attached_to=brigadier_on)
        ),
    }
    return OrderOfBattle(sides=sides, brigades=brigades, units={u.id: u for u in units})


# -- health: Fresh > 75%, Spent < 35%, Worn between -------------------------------------------


def test_rule_06_3_3_fresh_is_more_than_75_percent():
    assert health_of(16, 20) is Health.FRESH  # 80%
    assert health_of(4, 5) is Health.FRESH  # 80%


def test_rule_06_3_3_exactly_75_percent_is_worn_not_fresh():
    assert health_of(15, 20) is Health.WORN
    assert health_of(3, 4) is Health.WORN


def test_rule_06_1_3_spent_is_less_than_35_percent():
    assert health_of(6, 20) is Health.SPENT  # 30%
    assert health_of(1, 4) is Health.SPENT  # 25%


def test_rule_06_1_3_exactly_35_percent_is_worn_not_spent():
    assert health_of(7, 20) is Health.WORN


def test_no_stands_is_destroyed():
    assert health_of(0, 5) is Health.DESTROYED


@given(st.integers(1, 60), st.data())
def test_health_is_ordered_by_stands(start, data):
    a = data.draw(st.integers(0, start))
    b = data.draw(st.integers(a, start))
    order = [Health.DESTROYED, Health.SPENT, Health.WORN, Health.FRESH]
    assert order.index(health_of(a, start)) <= order.index(health_of(b, start))


# -- casualties: 2 unsaved hits = 1 stand, odd hit carried as micro-hit ---------------------------


def test_example_a_four_hits_remove_two_stands():
    u, c = unit(stands=5).take_hits(4)
    assert (u.stands, u.micro_hits, c.stands_lost) == (3, 0, 2)


def test_example_c_three_hits_remove_one_stand_and_carry_a_micro_hit():
    u, c = unit(stands=5).take_hits(3)
    assert (u.stands, u.micro_hits, c.stands_lost) == (4, 1, 1)


def test_example_2_one_hit_is_tracked_on_micro_dice():
    u, c = unit(stands=6, stands_start=6).take_hits(1)
    assert (u.stands, u.micro_hits, c.stands_lost) == (6, 1, 0)


def test_carried_micro_hit_completes_a_stand_with_the_next_hit():
    u, _ = unit(micro_hits=1).take_hits(1)
    assert (u.stands, u.micro_hits) == (4, 0)


def test_rule_06_4_3_mandatory_stand_loss_ignores_micro_hits():
    u, c = unit(micro_hits=1).lose_stands(1)
    assert (u.stands, u.micro_hits, c.stands_lost) == (4, 1, 1)


def test_destroyed_unit_leaves_play_and_keeps_nothing():
    u, c = unit(stands=1, markers=frozenset({Marker.DISORDER})).take_hits(5)
    assert c.destroyed and u.stands == 0 and not u.in_play and u.micro_hits == 0 and not u.markers
    assert u.health is Health.DESTROYED


def test_destroyed_units_are_not_in_play_in_the_order_of_battle():
    dead, _ = unit(id="dead", stands=1).take_hits(2)
    o = oob(unit(id="alive"), dead)
    assert [u.id for u in o.in_play()] == ["alive"]


@given(
    stands_start=st.integers(1, 30),
    data=st.data(),
    volleys=st.lists(st.integers(0, 20), max_size=8),
)
def test_invariants_hold_through_any_casualties(stands_start, data, volleys):
    stands = data.draw(st.integers(1, stands_start))
    u = unit(stands=stands, stands_start=stands_start)
    total_hits = 0
    for hits in volleys:
        u, c = u.take_hits(hits)
        total_hits += hits
        assert 0 <= u.stands <= u.stands_start
        assert u.micro_hits in (0, 1)
        if u.stands == 0:
            assert u.micro_hits == 0 and not u.in_play
    # every 2 hits is exactly one stand until the unit is gone
    if u.stands > 0:
        assert stands - u.stands == total_hits // 2
        assert u.micro_hits == total_hits % 2


# -- invariants rejected with clear messages ------------------------------------------------------


@pytest.mark.parametrize(
    "kw, words",
    [
        (dict(stands=-1), "cannot be negative"),
        (dict(stands=6), "more than the 5"),
        (dict(micro_hits=2), "micro-hits"),
        (dict(stands_start=0, stands=0), "at least 1 stand"),
        (dict(formation=Formation.LIMBERED), "cannot be in limbered"),
        (dict(kind=UnitKind.ARTILLERY, formation=Formation.UNLIMBERED), "needs a gun type"),
        (dict(gun=GunType.NAPOLEON_12PDR), "only artillery"),
        (dict(kind=UnitKind.SKIRMISHERS, formation=Formation.SKIRMISH), "parent regiment"),
        (dict(x=float("nan")), "x must be a finite number"),
        (dict(stands=2.5), "whole number"),
    ],
)
def test_invariants_are_enforced(kw, words):
    with pytest.raises(InvariantError, match=words):
        unit(**kw)


def test_negative_hits_are_refused():
    with pytest.raises(InvariantError):
        unit().take_hits(-1)


def test_pips_never_negative():
    b = Brigade("iron", "Iron Brigade", "union", Brigadier("Meredith"), staff_pips=1)
    b = b.reserve_pip()
    assert (b.staff_pips, b.staff_pips_reserved) == (0, 1)
    with pytest.raises(InvariantError, match="no Staff Pip"):
        b.spend_pip()
    b = b.spend_reserved_pip()
    with pytest.raises(InvariantError, match="no reserved Staff Pip"):
        b.spend_reserved_pip()
    with pytest.raises(InvariantError, match="cannot be negative"):
        replace(b, staff_pips=-1)


def test_rule_06_1_2_hesitant_or_broken_brigades_cannot_assault():
    b = Brigade("iron", "Iron Brigade", "union", Brigadier("Meredith"))
    assert b.can_assault
    assert not replace(b, state=BrigadeState.HESITANT).can_assault
    assert not replace(b, state=BrigadeState.BROKEN).can_assault


def test_order_of_battle_checks_references():
    with pytest.raises(InvariantError, match="unknown brigade"):
        oob(unit(brigade="nowhere"))
    with pytest.raises(InvariantError, match="is on side"):
        oob(unit(side="csa"))
    with pytest.raises(InvariantError, match="attached to unknown unit"):
        oob(unit(), brigadier_on="missing")
    with pytest.raises(InvariantError, match="can only attach to a unit of"):
        oob(unit(), brigadier_on="u1")  # the Iron Brigade's regiment, not Garnett's
    with pytest.raises(InvariantError, match="two sides"):
        OrderOfBattle(sides=(Side("union", "Union"),))


def test_attached_brigadier_is_found():
    va = unit(
        id="4va", name="4th Virginia", side="csa", brigade="stonewall", traits=frozenset({"rebel_yell"})
    )
    o = oob(va, brigadier_on="4va")
    assert o.has_attached_brigadier("4va")
    assert va.has_trait("Rebel Yell")


def test_removing_a_unit_detaches_its_brigadier_and_its_skirmishers():
    va = unit(id="4va", name="4th Virginia", side="csa", brigade="stonewall")
    sk = unit(
        id="4va-sk",
        name="4th Virginia skirmishers",
        side="csa",
        brigade="stonewall",
        kind=UnitKind.SKIRMISHERS,
        formation=Formation.SKIRMISH,
        parent="4va",
        stands=1,
        stands_start=1,
    )
    o = oob(va, sk, brigadier_on="4va").without_unit("4va")
    assert not o.units and o.brigade("stonewall").brigadier.attached_to is None


@given(st.integers(1, 12), st.integers(0, 12), st.sampled_from(list(Marker)), st.floats(-2000, 4000))
def test_unit_round_trips_through_dict(start, stands, marker, x):
    stands = min(stands, start)
    u = unit(
        stands=stands, stands_start=start, markers=frozenset() if stands == 0 else frozenset({marker}), x=x
    )
    assert Unit.from_dict(u.to_dict()) == u


def test_order_of_battle_round_trips_and_rejects_duplicates():
    o = oob(unit())
    assert OrderOfBattle.from_dict(o.to_dict()) == o
    d = o.to_dict()
    d["units"].append(dict(d["units"][0]))
    with pytest.raises(InvariantError, match="two units have the id"):
        OrderOfBattle.from_dict(d)


def test_unknown_words_name_the_allowed_ones():
    d = unit().to_dict()
    d["formation"] = "phalanx"
    with pytest.raises(InvariantError, match="line, assault_column"):
        Unit.from_dict(d)


def test_unit_keys_are_the_fields_of_a_unit_shared_by_overrides_and_scenario_files():
    from dataclasses import fields

    from rules.battle import unit as model
    from rules.umpire import overrides
    from storage import scenario_format

    assert model.UNIT_KEYS == tuple(f.name for f in fields(model.Unit))
    u = model.Unit(
        id="u",
        name="2nd Wisconsin",
        side="union",
        brigade="iron",
        kind=UnitKind.INFANTRY,
        stands=5,
        stands_start=5,
    )
    assert tuple(u.to_dict()) == model.UNIT_KEYS
    assert scenario_format.UNIT_KEYS is model.UNIT_KEYS
    assert overrides.UNIT_FIELDS == tuple(k for k in model.UNIT_KEYS if k != "id")


def test_phase_title_of_a_word_or_of_text_that_names_no_phase():
    assert Phase.title_of("melee") == "Phase 4: Assault & Melee Resolution"
    assert Phase.title_of(Phase.END) == "End of turn"
    assert Phase.title_of("parley") == "parley"


def test_side_name_or_the_id_when_there_is_no_such_side():
    oob = OrderOfBattle((Side("union", "Army of the Potomac"), Side("csa", "Army of Northern Virginia")))
    assert oob.side_name("csa") == "Army of Northern Virginia"
    assert oob.side_name("french") == "french"
