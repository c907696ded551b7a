"""Rules of the three chapters that no other test asserts by name, each asserted from its own words.

Every rule id of chapters 03, 04 and 06 is cited by a test that asserts it: ``tests/test_citations.py``
reads the chapters and checks so.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.assault.charge import Charge, ChargeEnd, approach, melee_situation
from rules.assault.charge import Reaction as ChargeReaction
from rules.assault.charge_path import plan_charge
from rules.battle.words import GunType, Weapon
from rules.battlefield import geometry
from rules.battlefield.field import Battlefield
from rules.dice import TableDice
from rules.melee.melee import Contact, shock_sides
from rules.reactions.declare import REACTIONS_OF_WINDOW, Reaction, Window, opportunity_fire
from rules.reactions.triggers import find_windows
from rules.shooting.volleys import FireKind, RangeBand, Volley, plan_volley
from rules.tables import load_tables
from tests.rules.assault.test_assault import _flank_position
from tests.rules.battlefield.test_line_of_sight import oak_ridge
from tests.rules.melee.test_examples_ch06 import example_1
from tests.rules.reactions.test_examples_ch04 import example_a, example_c
from tests.rules.reactions.test_triggers import charge_battle
from tests.rules.shooting.test_shooting import battle_of, unit

T = load_tables()


def test_rule_03_1_1_the_table_is_measured_in_inches():
    """ "At the tactical scale of 1 inch = 25-30 yards": every distance is inches on the table, so a
    regiment 8" from another is within the 8.0" of Opportunity Fire and one 8.5" off is not."""
    b = example_c()
    wis = b.unit("wis2")  # its colour stand's centre-front at (20, 30), facing north
    near = unit("nc", "csa", x=20, y=22, facing_deg=180)  # front edge 8 inches up the table
    assert geometry.distance_in(wis, near, T) == pytest.approx(8.0), "RULE-03-1.1: inches on the table"
    reach = T.entry("movement.trigger.opportunity_fire_in")
    assert reach.value == 8.0 and reach.rule == "RULE-04-3.1"
    far = unit("nc", "csa", x=20, y=21.5, facing_deg=180)
    assert round(geometry.distance_in(wis, far, T), 6) == 8.5 > reach.value, (
        "RULE-03-1.1: 8.5 inches is beyond the 8.0 inches of RULE-04-3.1"
    )


def test_rule_03_4_1_elevation_is_levels_0_1_and_2():
    bf = Battlefield(oak_ridge(), T)
    assert (bf.level_of("btyB"), bf.level_of("va4")) == (1, 0), "RULE-03-4.1: Level 1 ridge, Level 0 valley"


def test_rule_03_5_2_ranges_are_measured_from_the_colour_stands_centre_front():
    """ "All range measurements ... originate from the center-front edge of the Color Stand": the
    unit's (x, y), wherever its other stands are."""
    f = unit("f", "union", x=10, y=20)
    t = unit("t", "csa", x=13, y=15, facing_deg=180)  # its front edge runs from 9.25 to 16.75 at y=15
    fp = geometry.footprint(f, T)
    assert fp.centre_front == (10, 20), "RULE-03-5.2: the colour stand's centre-front"
    assert geometry.distance_in(f, t, T) == pytest.approx(5.0), (
        "RULE-03-5.2: to the nearest point of the front edge"
    )
    assert fp.left_front != fp.centre_front


def test_rule_04_1_1_five_tactical_reactions():
    """ "granting the defending player five specific, situational Tactical Reactions"."""
    assert [r.title for r in Reaction] == [
        "Closing Defensive Volley",
        "Opportunity Fire",
        "Skirmish / Screen Evade",
        "Refuse the Flank",
        "Counter-Charge",
    ], "RULE-04-1.1: the five reactions, in the chapter's order"
    assert [r.number for r in Reaction] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    "dice, contact",
    [
        ((3, 3, 5, 2, 6, 2), False),  # Example A: the discipline check fails on a 2
        ((3, 3, 5, 2, 6, 4), True),  # the same volley, the check passed on a 4
    ],
)
def test_rule_04_2_5_outcome_of_the_volley_pass_closes_fail_stalls_2_inches_away(dice, contact):
    """ "Pass: ... closes the remaining 4.0" into physical base-to-base contact. Fail: The charge
    stalls ... halts 2.0 inches away from the defender, receives a Disorder Marker ... and cannot
    move or attack further this turn." (RULE-04-2.5, and in the same words RULE-06-2.5)."""
    from rules.actions import has_stalled
    from rules.battle.words import Phase

    b = example_a()
    b = replace(b.with_unit(b.unit("bkn14").moved_to(30, 18)), phase=Phase.MANEUVER)
    ap = approach(b, Charge("bkn14", "va5", reaction=ChargeReaction.CLOSING_VOLLEY), TableDice(dice), T)
    bkn, va = ap.battle.unit("bkn14"), ap.battle.unit("va5")
    if contact:
        assert ap.end == ChargeEnd.CONTACT, "RULE-04-2.5: a pass closes into contact"
        assert geometry.distance_in(bkn, va, T) == pytest.approx(0.0, abs=1e-6)
        assert any(s.rule == "RULE-06-2.5" and "closes the remaining distance" in s.text for s in ap.steps)
    else:
        assert ap.end == ChargeEnd.STALLED, "RULE-04-2.5: a failure stalls the charge"
        assert geometry.distance_in(bkn, va, T) == pytest.approx(2.0), "RULE-04-2.5: 2.0 inches away"
        assert bkn.disordered and has_stalled(ap.battle, "bkn14"), "RULE-04-2.5: Disordered, no further move"


def test_rule_04_3_5_the_mover_resumes_from_the_point_of_interruption():
    """ "the active unit resumes and completes any remaining movement allowance from the point of
    interruption. If the unit received a Disorder marker from a natural 6, its remaining movement
    distance is halved." """
    b = example_c()
    out = opportunity_fire(b, _c_threat(b), TableDice([1, 1, 1, 1, 1]), T)
    assert out.remaining_move_factor == 1.0
    assert [s.rule for s in out.steps if "resumes its move" in s.text] == ["RULE-04-3.5"]
    six = opportunity_fire(b, _c_threat(b), TableDice([1, 4, 4, 6, 2]), T)
    assert six.remaining_move_factor == T.value("movement.trigger.remaining_move_after_disorder") == 0.5
    assert T.entry("movement.trigger.remaining_move_after_disorder").rule == "RULE-04-3.5"


def _c_threat(b):
    from rules.reactions.declare import Threat

    return Threat(Window.A, "ga8", "wis2", geometry.distance_in(b.unit("wis2"), b.unit("ga8"), T))


def test_rule_06_2_2_window_b_offers_the_three_defensive_reactions():
    """ "The defending player ... declares one of three reactive choices": Closing Defensive Volley,
    Refuse the Flank and Counter-Charge (and a screen's Evade, RULE-04-4.1)."""
    b = charge_battle()
    (w,) = find_windows(b, "bkn14", [(30, 18), (30, 10.5)], T, charge_target="va5")
    offered = [o.reaction for o in w.defenders[0].options]
    assert offered == [Reaction.CLOSING_VOLLEY, Reaction.REFUSE_FLANK, Reaction.COUNTER_CHARGE], "RULE-06-2.2"
    assert set(REACTIONS_OF_WINDOW[Window.B]) == {*offered, Reaction.EVADE}


@pytest.mark.parametrize(
    "weapon, gun, hits_on",
    [
        (Weapon.SMOOTHBORE_MUSKET, None, 3),
        (Weapon.RIFLED_MUSKET, None, 4),
        (Weapon.NONE, GunType.NAPOLEON_12PDR, 2),
        (Weapon.NONE, GunType.ORDNANCE_RIFLE_3IN, 3),
        (Weapon.NONE, GunType.PARROTT_10PDR, 3),
    ],
)
def test_rule_06_2_3_the_closing_volley_uses_the_short_range_numbers(weapon, gun, hits_on):
    """ "roll 1D6 per defending stand (or 2D6 per artillery section) using Short Range (0–6") target
    numbers": whatever the distance, the Closing Volley's band is short."""
    from rules.battle.words import Formation, UnitKind

    kw = dict(weapon=weapon)
    if gun is not None:
        kw.update(kind=UnitKind.ARTILLERY, gun=gun, formation=Formation.UNLIMBERED, stands=2, stands_start=2)
    d = unit("d", "csa", x=10, y=10, facing_deg=180, **kw)
    a = unit("a", "union", x=10, y=14)
    b = battle_of(d, a)
    plan = plan_volley(b, Volley("d", "a", 4.0, kind=FireKind.CLOSING_VOLLEY), T)
    assert plan.band == RangeBand.SHORT and plan.to_hit == hits_on, "RULE-06-2.3: short range numbers"
    assert plan.dice_pool == (4 if gun is not None else 5), "RULE-06-2.3: 1D6 a stand, 2D6 a section"
    # a 12-pdr Napoleon's canister disorders (RULE-04-2.3) where chapter 06 has a Shock Save no
    # chapter defines: the table says which passage is followed
    if gun == GunType.NAPOLEON_12PDR:
        assert plan.canister_disorder
        assert T.entry("shooting.canister.napoleon_automatic_disorder").rule == "RULE-04-2.3", (
            "RULE-06-2.3's Shock Save is not defined here: RULE-04-2.3 is followed"
        )


def test_rule_06_3_1_a_flank_charge_meets_the_side_stands_at_90_degrees():
    b = _flank_position()
    p = plan_charge(b, "va4", "wis2", T)
    assert p.contact == Contact.FLANK and p.flank_side == "left", "RULE-06-3.1: flank alignment"
    wis = b.unit("wis2")
    assert (p.contact_facing_deg - wis.facing_deg) % 360 == pytest.approx(90.0), "RULE-06-3.1: at 90 degrees"


def test_rule_06_3_4_engaged_stands_are_counted_with_their_rule():
    b = example_1()
    s = melee_situation(b, plan_charge(b, "va4", "wis2", T), T)
    sa, sd, _ = shock_sides(b, s, T)
    assert (sa.engaged, sd.engaged) == (5, 5)
    assert "(RULE-06-3.4)" in sa.engaged_text and "(RULE-06-3.4)" in sd.engaged_text
