"""The exact odds of a charge (rules.odds): enumeration, checked against the real resolution."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.assault.actions import resolve_charge
from rules.assault.charge import Charge, ChargeEnd, Reaction
from rules.battle.terrain import TerrainFeature, TerrainType
from rules.battle.words import Formation, Quality, Weapon
from rules.dice import SeededDice
from rules.melee.melee import Outcome
from rules.odds import charge_odds, volley_joint
from rules.shooting.volley_odds import volley_odds
from rules.shooting.volleys import Cover, FireKind, Volley, plan_volley
from tests.rules.melee.test_examples_ch06 import T, example_1, example_2


def _simulate(battle, charge, n: int, seed0: int = 0):
    counts: Counter[str] = Counter()
    att = dfn = 0
    a0, d0 = battle.unit(charge.attacker).stands, battle.unit(charge.target).stands
    for s in range(seed0, seed0 + n):
        r = resolve_charge(battle, charge, SeededDice(f"odds-{s}"), T)
        counts[r.melee.outcome.value if r.melee else r.end.value] += 1
        att += a0 - r.battle.unit(charge.attacker).stands
        dfn += d0 - r.battle.unit(charge.target).stands
    return counts, att / n, dfn / n


def _agrees(odds, counts, att, dfn, n):
    for key in set(odds.outcomes) | set(counts):
        p = float(odds.p(key))
        sigma = math.sqrt(max(p * (1 - p), 1e-4) / n)
        assert abs(counts[key] / n - p) < 4.5 * sigma + 1e-9, (key, counts[key] / n, p)
    assert abs(att - float(odds.expected_attacker_stands_lost)) < 0.06
    assert abs(dfn - float(odds.expected_defender_stands_lost)) < 0.06


def test_odds_of_example_1_sum_to_1_and_agree_with_a_seeded_simulation():
    b, c = example_1(), Charge("va4", "wis2")
    odds = charge_odds(b, c, T)
    assert odds.total == 1
    assert set(odds.outcomes) == {"stalled", "attacker_wins", "defender_wins", "tie"}
    n = 2000
    _agrees(odds, *_simulate(b, c, n), n)


def test_odds_of_example_2_no_tie_at_the_wall_and_agree_with_simulation():
    b, c = example_2(), Charge("ny14", "nc7")
    odds = charge_odds(b, c, T)
    assert odds.total == 1
    assert odds.p(Outcome.TIE) == 0  # a tie at heavy works is a repulse (RULE-06-5.2)
    n = 1500
    _agrees(odds, *_simulate(b, c, n, seed0=10_000), n)


def test_stall_probability_is_exact_for_example_1():
    # Veteran discipline 3+: a stall needs a check (loss or Disorder) and a 1 or 2.
    b = example_1()
    odds = charge_odds(b, Charge("va4", "wis2"), T)
    plan = plan_volley(
        b, Volley(firer="wis2", target="va4", distance_in=4.0, kind=FireKind.CLOSING_VOLLEY), T
    )
    joint = volley_joint(plan)
    p_check = sum(p for (unsaved, dis), p in joint.items() if dis or unsaved >= 2)
    assert odds.p(ChargeEnd.STALLED) == p_check * Fraction(2, 6)


def test_volley_joint_agrees_with_the_shooting_module_odds():
    b = example_1()
    for cover in (Cover.NONE, Cover.LIGHT, Cover.HEAVY):
        v = Volley(firer="wis2", target="va4", distance_in=4.0, kind=FireKind.CLOSING_VOLLEY, cover=cover)
        joint = volley_joint(plan_volley(b, v, T))
        assert sum(joint.values()) == 1
        marg = volley_odds(b, v, T)
        assert sum(p for (_, dis), p in joint.items() if dis) == marg.disorder
        losses: dict[int, Fraction] = {}
        for (unsaved, _), p in joint.items():
            k = min(unsaved // 2, 5)
            losses[k] = losses.get(k, Fraction(0)) + p
        assert {k: v for k, v in losses.items() if v} == dict(marg.stand_losses)


def test_no_reaction_goes_straight_to_the_shock_dice():
    b, c = example_1(), Charge("va4", "wis2", reaction=Reaction.NONE)
    odds = charge_odds(b, c, T)
    # VA: 5 stands vs 5: die + 5 + Fresh + momentum + Rebel Yell + Brigadier = die + 9; WI die + 5 + 1
    # The attacker wins unless its die is more than 3 below the defender's
    wins = sum(1 for x in range(1, 7) for y in range(1, 7) if x + 9 > y + 6)
    ties = sum(1 for x in range(1, 7) for y in range(1, 7) if x + 9 == y + 6)
    assert odds.p(Outcome.ATTACKER_WINS) == Fraction(wins, 36)
    assert odds.p(Outcome.TIE) == Fraction(ties, 36)
    assert odds.total == 1


def test_charge_halted_by_a_stream_before_the_line_is_certain():
    b = example_1()
    stream = TerrainFeature(id="run", type=TerrainType.STREAM, points=((20.0, 26.0), (40.0, 26.0)))
    b = b.with_feature(stream)
    odds = charge_odds(b, Charge("va4", "wis2"), T)
    assert odds.outcomes == {"halted": 1}
    assert odds.expected_attacker_stands_lost == 0


def test_odds_for_12_stands_a_side_are_exact():
    """How long they take is the benchmarks' "exact odds 12 a side" line."""
    b = example_1()
    big_a = replace(b.unit("va4"), stands=12, stands_start=12, y=28.0)
    big_d = replace(b.unit("wis2"), stands=12, stands_start=12, weapon=Weapon.SMOOTHBORE_MUSKET)
    b = b.with_units(big_a, big_d)
    odds = charge_odds(b, Charge("va4", "wis2"), T)
    assert odds.total == 1 and len(odds.outcomes) > 1


@settings(max_examples=25, deadline=None)
@given(
    a_stands=st.integers(1, 12),
    d_stands=st.integers(1, 12),
    a_quality=st.sampled_from(list(Quality)),
    weapon=st.sampled_from([Weapon.RIFLED_MUSKET, Weapon.SMOOTHBORE_MUSKET]),
    column=st.booleans(),
    distance=st.floats(4.5, 8.5),
    reaction=st.sampled_from([Reaction.CLOSING_VOLLEY, Reaction.NONE]),
)
def test_odds_always_sum_to_1(a_stands, d_stands, a_quality, weapon, column, distance, reaction):
    b = example_1()
    a = replace(
        b.unit("va4"),
        stands=a_stands,
        stands_start=12,
        quality=a_quality,
        formation=Formation.ASSAULT_COLUMN if column else Formation.LINE,
        y=20.0 + distance,
    )
    d = replace(b.unit("wis2"), stands=d_stands, stands_start=12, weapon=weapon)
    b = b.with_units(a, d)
    odds = charge_odds(b, Charge("va4", "wis2", reaction=reaction), T)
    assert odds.total == 1
    assert all(p >= 0 for p in odds.outcomes.values())
    assert 0 <= odds.expected_attacker_stands_lost <= a_stands
    assert 0 <= odds.expected_defender_stands_lost <= d_stands


def test_odds_refuse_illegal_charges_like_the_resolution():
    from rules.errors import IllegalAction

    b = example_1()
    far = b.with_unit(replace(b.unit("va4"), y=30.0))  # 10" away: beyond 9"
    with pytest.raises(IllegalAction, match="RULE-06-1.3"):
        charge_odds(far, Charge("va4", "wis2"), T)


def test_odds_follow_the_charge_beyond_an_overrun_screen():
    from tests.rules.assault.test_assault import _screen_battle

    b = _screen_battle()
    odds = charge_odds(b, Charge("va4", "sk", reaction=Reaction.NONE), T)
    assert odds.total == 1
    assert "overrun" not in odds.outcomes  # the charge goes on into the 2nd Wisconsin
    assert odds.expected_defender_stands_lost >= 1  # the screen's stand, and the melee's
    plain = charge_odds(example_1(), Charge("va4", "wis2"), T)
    assert odds.p(ChargeEnd.STALLED) > 0 and plain.p(ChargeEnd.STALLED) > 0
    evade = charge_odds(b, Charge("va4", "sk", reaction=Reaction.EVADE, then_reaction=Reaction.NONE), T)
    assert evade.total == 1 and ChargeEnd.STALLED.value not in evade.outcomes


def test_odds_from_the_charge_at_the_line_a_caller_has_are_the_same(monkeypatch):
    """The Charge dialog works the charge out to the 4" line once and gives it to the odds: the
    same odds as worked out from the start, for every reaction; a charge at the line of another
    charger or target is not taken for it."""
    import rules.assault.charge as assault
    import rules.odds as odds

    battle = example_1()
    t = T
    for reaction in (Reaction.NONE, Reaction.CLOSING_VOLLEY):
        charge = Charge("va4", "wis2", reaction=reaction)
        at = assault.to_the_line(battle, Charge("va4", "wis2"), t)
        worked: list[int] = []
        real = assault.to_the_line
        monkeypatch.setattr(
            odds.assault, "to_the_line", lambda *a, w=worked, r=real, **k: w.append(1) or r(*a, **k)
        )
        assert charge_odds(battle, charge, t, at=at) == charge_odds(battle, charge, t)
        assert worked == [1]  # only the odds asked without it worked the charge out
        monkeypatch.undo()
    other = replace(at, path=replace(at.path, target="someone else"))
    assert charge_odds(battle, Charge("va4", "wis2"), t, at=other) == charge_odds(
        battle, Charge("va4", "wis2"), t
    )
