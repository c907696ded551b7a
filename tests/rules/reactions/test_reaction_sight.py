"""A reaction volley is offered only at an attacker the defender sees where the window opens: Opportunity
Fire at the mover at the point of interruption (RULE-04-3.3), the Closing Volley at the charger on
the 4.0" line (RULE-04-2.1). The line of sight is the one the volley asks when it is fired
(:func:`rules.shooting.shoot.fire_inputs`), and a volley it refuses is listed with its reason and
rule: here a column deeper in a wooden town sector than a unit sees out of it (RULE-03-5.5).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules import procedure
from rules.battle.words import Formation, Marker, Phase
from rules.dice import SeededDice
from rules.errors import IllegalAction
from rules.procedure import Answer, Choice
from rules.reactions.declare import Reaction, closing_volley, opportunity_fire
from rules.reactions.triggers import Trigger, find_windows
from rules.shooting.shoot import fire_inputs
from rules.shooting.volleys import CoverClass
from rules.tables import load_tables
from tests.rules.conftest import rect
from tests.rules.shooting.test_shooting import battle_of, unit

T = load_tables()
SIGHT_DEPTH = T.value("terrain.sight.structure_edge_in")  # how far a unit in a town sees out (1.0")
DEEP, EDGE = 2.0, 0.5  # the column's depth inside the sector's south edge, beyond and within it
ACROSS = [(0, 24), (40, 24)]


def wisconsin():
    return unit("wis2", "union", name="2nd Wisconsin", x=20, y=30, facing_deg=0)


def georgia(x, y, facing):
    return unit(
        "ga8", "csa", name="8th Georgia", formation=Formation.ASSAULT_COLUMN, x=x, y=y, facing_deg=facing
    )


def through_the_town(depth, *, start=(0.0, 24.0), north=18.0, extra=()):
    """The 2nd Wisconsin faces north at (20, 30); the 8th Georgia, in assault column, marches east
    along y = 24 through the wooden sector of Dunker Church, ``depth`` inches inside its south edge."""
    town = rect("t", "town_wooden", 0, north, 40, 24 + depth, name="Dunker Church")
    b = battle_of(wisconsin(), georgia(*start, 90), *extra, active="csa", terrain=[town])
    return replace(b, phase=Phase.MANEUVER)


def there(b, w):
    """The battle with the mover where the window opens."""
    return b.with_unit(b.unit(w.mover).moved_to(*w.point))


def at_trigger(b, trigger):
    (found,) = [
        (w, d) for w in find_windows(b, "ga8", ACROSS, T) for d in w.defenders if d.trigger == trigger
    ]
    return found


def sight_reason(opt):
    (why,) = opt.reasons
    return why


# -- Window A: Opportunity Fire ------------------------------------------------------------------


@pytest.mark.parametrize("trigger", [Trigger.FORWARD_ARC, Trigger.FORWARD_ARC_SHORT])
def test_rule_04_3_3_no_opportunity_fire_at_a_column_deeper_in_a_town_than_the_sight_depth(trigger):
    assert DEEP > SIGHT_DEPTH
    b = through_the_town(DEEP)
    w, d = at_trigger(b, trigger)
    opt = d.option(Reaction.OPPORTUNITY_FIRE)
    assert not opt.eligible and not w.any_eligible
    why = sight_reason(opt)  # in the arc and in reach: the sight is the one reason
    assert why.rule == "RULE-03-5.5"
    assert why.text.startswith("2nd Wisconsin cannot see 8th Georgia: the sight line runs ")
    assert "through Dunker Church, where 8th Georgia stands" in why.text
    assert 'no more than 1" of it (club default)' in why.text
    # the very refusal the volley itself would give there: the rule is asked in one place
    with pytest.raises(IllegalAction) as err:
        fire_inputs(there(b, w), "wis2", "ga8", T)
    assert err.value.rule == "RULE-03-5.5" and str(err.value) == str(why)


def test_rule_04_3_3_opportunity_fire_at_a_column_on_the_edge_of_the_town_is_offered_and_fired():
    assert EDGE < SIGHT_DEPTH
    b = through_the_town(EDGE)
    w, d = at_trigger(b, Trigger.FORWARD_ARC)
    assert d.option(Reaction.OPPORTUNITY_FIRE).eligible
    at = there(b, w)
    inputs = fire_inputs(at, "wis2", "ga8", T)
    assert inputs["cover"] == CoverClass.LIGHT  # a wooden sector's light cover (RULE-03-3.3)
    out = opportunity_fire(at, d.threat, SeededDice(7), T, **inputs)
    assert out.volley.plan.dice_pool == 5
    assert out.battle.unit("wis2").has(Marker.SMOKE)


def test_the_sight_is_measured_with_the_mover_at_the_point_of_interruption():
    """Where the march starts, the line from the Wisconsin runs through more than 1" of the town:
    the window is asked where the column is, on the edge, not where it set out from."""
    b = through_the_town(EDGE)
    with pytest.raises(IllegalAction, match="RULE-03-5.5"):
        fire_inputs(b, "wis2", "ga8", T)
    w, d = at_trigger(b, Trigger.FORWARD_ARC)
    assert w.point[0] > 10 and d.option(Reaction.OPPORTUNITY_FIRE).eligible


# -- Window B: the Closing Defensive Volley ------------------------------------------------------


def charging_out_of_the_town(depth):
    """The 8th Georgia charges south at the 2nd Wisconsin out of the town; on the 4.0" line its
    colour stand is ``depth`` inches inside the sector's south edge."""
    town = rect("t", "town_wooden", 10, 12, 30, 26 + depth, name="Dunker Church")
    b = battle_of(wisconsin(), georgia(20, 18, 180), active="csa", terrain=[town])
    (w,) = find_windows(
        replace(b, phase=Phase.MANEUVER), "ga8", [(20, 18), (20, 30)], T, charge_target="wis2"
    )
    (d,) = w.defenders
    return there(b, w), d


def test_rule_04_2_1_no_closing_volley_at_a_charger_the_defender_cannot_see_on_the_4in_line():
    at, d = charging_out_of_the_town(DEEP)
    why = sight_reason(d.option(Reaction.CLOSING_VOLLEY))
    assert why.rule == "RULE-03-5.5" and why.text.startswith("2nd Wisconsin cannot see 8th Georgia")
    with pytest.raises(IllegalAction) as err:
        fire_inputs(at, "wis2", "ga8", T)
    assert str(err.value) == str(why)


def test_rule_04_2_1_a_closing_volley_at_a_charger_on_the_edge_of_the_town_is_offered_and_fired():
    at, d = charging_out_of_the_town(EDGE)
    assert d.option(Reaction.CLOSING_VOLLEY).eligible
    out = closing_volley(at, d.threat, SeededDice(7), T, **fire_inputs(at, "wis2", "ga8", T))
    assert out.volley.plan.dice_pool == 5 and out.battle.unit("wis2").has(Marker.SMOKE)


# -- through the procedure of play ---------------------------------------------------------------


def test_the_window_of_a_march_lists_why_opportunity_fire_is_not_open():
    """The column sets out inside both the Wisconsin's forward arc and the 19th Indiana's flank zone:
    one window asks both; the Indiana may refuse its flank, and the Wisconsin's Opportunity Fire is
    listed as closed, with the sight and its rule, and refused if chosen."""
    indiana = unit("ind19", "union", name="19th Indiana", x=12, y=14, facing_deg=90)
    b = through_the_town(DEEP, start=(14.5, 24), north=20, extra=[indiana])
    p = procedure.march(b, T, SeededDice(7), "ga8", 40.0, 24.0)
    w = p.pending
    assert [(d.defender, d.trigger) for d in w.defenders] == [
        ("ind19", Trigger.FLANK_ZONE),
        ("wis2", Trigger.FORWARD_ARC),
    ]
    assert w.offered("ind19").option(Reaction.REFUSE_FLANK).eligible
    why = sight_reason(w.offered("wis2").option(Reaction.OPPORTUNITY_FIRE))
    assert why.rule == "RULE-03-5.5" and "2nd Wisconsin cannot see 8th Georgia" in why.text
    with pytest.raises(IllegalAction, match=r"RULE-03-5\.5"):
        p.answer(Answer((Choice("ind19", None), Choice("wis2", Reaction.OPPORTUNITY_FIRE))))
    assert p.pending is w
    assert p.answer(Answer.declined(w)) is None  # short range, as hidden, asks nothing more
    assert "declare_reaction" not in [a.action.type for a in p.result.actions]


@pytest.mark.parametrize("depth, fired", [(DEEP, False), (EDGE, True)])
def test_a_march_through_the_town_is_offered_opportunity_fire_only_where_the_column_is_seen(depth, fired):
    """The column from 8" west of the Wisconsin's centre, 6" a turn: into the arc within 8" at 14",
    deep in the town it is not seen there (and its march is not stopped for it), on the edge it is."""
    p = procedure.march(through_the_town(depth, start=(8.0, 24.0)), T, SeededDice(7), "ga8", 40.0, 24.0)
    w = p.pending  # the Wisconsin's left flank zone: Refuse the Flank is open, Opportunity Fire is not
    (d,) = w.defenders
    assert d.trigger == Trigger.FLANK_ZONE and d.option(Reaction.REFUSE_FLANK).eligible
    assert "RULE-04-3.1" in [r.rule for r in d.option(Reaction.OPPORTUNITY_FIRE).reasons]  # beyond 8"
    p.answer(Answer.declined(w))
    if fired:
        w = p.pending
        assert w.defenders[0].trigger == Trigger.FORWARD_ARC
        assert w.defenders[0].option(Reaction.OPPORTUNITY_FIRE).eligible
        p.answer(Answer((Choice("wis2", Reaction.OPPORTUNITY_FIRE),)))
    assert p.pending is None
    types = [a.action.type for a in p.result.actions]
    assert ("declare_reaction" in types) is fired
    assert p.result.battle.unit("wis2").has(Marker.SMOKE) is fired
