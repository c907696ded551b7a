"""The five reactions of chapter 04: eligibility with reasons, cost and resolution."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.actions import resolve
from rules.battle.unit import refused_flanks
from rules.battle.words import Formation, GunType, Marker, Phase, Quality, UnitKind, Weapon
from rules.battlefield.geometry import footprint
from rules.dice import TableDice
from rules.errors import IllegalAction, InvariantError, RulesError
from rules.reactions.declare import (
    REACTIONS_OF_WINDOW,
    CostKind,
    DeclareReaction,
    Reaction,
    Threat,
    Window,
    closing_volley,
    counter_charge,
    enfilade_denied,
    evade,
    flank_bonus_denied,
    opportunity_fire,
    option,
    options,
    overrun,
    refuse_the_flank,
    resolve_reaction,
)
from rules.shooting.volleys import Cover
from rules.tables import load_tables
from tests.rules.shooting.test_shooting import battle_of, unit

T = load_tables()
CC = " (Counter-Charge, 6.0)"
RF = " (Refuse the Flank, 5.0)"


def pair(defender_kw=None, attacker_kw=None, phase=None, **battle_kw):
    """A Confederate defender ``d`` facing south and a Union attacker ``a`` 4" in front of it."""
    d = unit("d", "csa", name="5th Virginia", x=30, y=10, facing_deg=180, **(defender_kw or {}))
    a = unit("a", "union", name="14th Brooklyn", x=30, y=14, facing_deg=0, **(attacker_kw or {}))
    b = battle_of(d, a, **battle_kw)
    return b if phase is None else replace(b, phase=phase)


def charge(distance=4.0, **kw) -> Threat:
    return Threat(Window.B, "a", "d", distance, charge=True, **kw)


def move(distance=6.0, **kw) -> Threat:
    return Threat(Window.A, "a", "d", distance, **kw)


def reasons(b, reaction, threat):
    return [(r.rule, r.text) for r in option(b, reaction, threat, T).reasons]


def rules_of(b, reaction, threat):
    return [r.rule for r in option(b, reaction, threat, T).reasons]


# -- threats and the windows -------------------------------------------------------------------


def test_threat_rejects_bad_input():
    with pytest.raises(InvariantError):
        Threat(Window.A, "a", "d", -1.0)
    with pytest.raises(InvariantError):
        Threat(Window.A, "a", "d", float("nan"))
    with pytest.raises(InvariantError):
        Threat(Window.A, "a", "d", 3.0, flank="top")
    with pytest.raises(InvariantError):
        Threat(Window.A, "a", "a", 3.0)
    with pytest.raises(InvariantError):
        Threat("c", "a", "d", 3.0)


def test_rule_04_1_2_each_window_offers_its_reactions():
    assert REACTIONS_OF_WINDOW[Window.A] == (Reaction.OPPORTUNITY_FIRE, Reaction.EVADE, Reaction.REFUSE_FLANK)
    assert REACTIONS_OF_WINDOW[Window.B] == (
        Reaction.CLOSING_VOLLEY,
        Reaction.EVADE,
        Reaction.REFUSE_FLANK,
        Reaction.COUNTER_CHARGE,
    )
    assert [o.reaction for o in options(pair(), charge(), T)] == list(REACTIONS_OF_WINDOW[Window.B])
    assert "RULE-04-1.2" in rules_of(pair(), Reaction.CLOSING_VOLLEY, move(4.0, charge=True))
    assert "RULE-04-1.2" in rules_of(pair(), Reaction.OPPORTUNITY_FIRE, charge())


def test_friendly_units_do_not_react_to_each_other():
    b = battle_of(unit("d", "csa"), unit("a", "csa"))
    assert not option(b, Reaction.CLOSING_VOLLEY, charge(), T).eligible


def test_rule_04_1_4_one_reaction_per_defender_per_triggering_charge_is_kept_in_the_state():
    from rules.actions import resolve
    from rules.reactions.declare import DeclareReaction, reacted_to

    b = pair({"quality": Quality.VETERAN}, csa_reserved=1, phase=Phase.MANEUVER)
    assert option(b, Reaction.COUNTER_CHARGE, charge(), T).eligible
    fired = resolve(b, DeclareReaction.of(Reaction.CLOSING_VOLLEY, charge()), TableDice([1] * 5), T)
    after = fired.battle_after
    assert reacted_to(after, Window.B, "a") == {"d"} and reacted_to(b, Window.B, "a") == frozenset()
    # the same defender, the same charge: nothing more, whatever the reaction
    for r in (Reaction.COUNTER_CHARGE, Reaction.CLOSING_VOLLEY):
        assert "RULE-04-1.4" in rules_of(after, r, charge())
    with pytest.raises(IllegalAction, match="RULE-04-1.4"):
        resolve(after, DeclareReaction.of(Reaction.COUNTER_CHARGE, charge()), TableDice([]), T)
    # the same unit's move is another triggering action (Window A)
    assert "RULE-04-1.4" not in rules_of(after, Reaction.OPPORTUNITY_FIRE, move())


def test_rule_04_1_4_another_defender_or_another_turn_may_react():
    from rules.reactions.declare import reacted_to, record_reaction

    b = pair(phase=Phase.MANEUVER)
    done = record_reaction(b, move())
    assert "RULE-04-1.4" in rules_of(done, Reaction.OPPORTUNITY_FIRE, move())
    # another defender is not held by it
    assert reacted_to(done, Window.A, "a") == {"d"}
    e = unit("e", "csa", name="4th Virginia", x=40, y=10, facing_deg=180)
    with_e = done.with_unit(e)
    assert "RULE-04-1.4" not in rules_of(with_e, Reaction.OPPORTUNITY_FIRE, Threat(Window.A, "a", "e", 6.0))
    # the record is of this side's turn: the next turn (or the other side's) starts clean
    assert reacted_to(replace(done, turn=done.turn + 1), Window.A, "a") == frozenset()
    assert reacted_to(replace(done, active_side="csa"), Window.A, "a") == frozenset()


def test_rule_04_1_4_the_windows_read_who_has_reacted_from_the_state():
    from rules.reactions.declare import record_reaction
    from rules.reactions.triggers import find_windows

    b = pair(phase=Phase.MANEUVER)
    b = b.with_unit(b.unit("a").moved_to(30, 20))
    (w,) = find_windows(b, "a", [(30, 20), (30, 12.0)], T, charge_target="d")
    assert w.any_eligible
    (w,) = find_windows(record_reaction(b, charge()), "a", [(30, 20), (30, 12.0)], T, charge_target="d")
    assert not w.any_eligible
    assert all("RULE-04-1.4" in [r.rule for r in o.reasons] for o in w.defenders[0].options)


# -- 1 Closing Defensive Volley ----------------------------------------------------------------


def test_rule_04_2_2_closing_volley_is_free_for_a_steady_defender():
    opt = option(pair(), Reaction.CLOSING_VOLLEY, charge(), T)
    assert opt.eligible and opt.cost.kind == CostKind.FREE and str(opt.cost) == "free"


def test_rule_04_2_1_closing_volley_at_4in_not_beyond():
    assert option(pair(), Reaction.CLOSING_VOLLEY, charge(4.0), T).eligible
    assert rules_of(pair(), Reaction.CLOSING_VOLLEY, charge(4.01)) == ["RULE-04-2.1"]


def test_rule_04_2_1_closing_volley_only_against_a_declared_charge():
    t = Threat(Window.B, "a", "d", 4.0, charge=False)
    assert rules_of(pair(), Reaction.CLOSING_VOLLEY, t) == ["RULE-04-2.1"]


@pytest.mark.parametrize(
    "defender_kw, threat_kw, text",
    [
        ({"markers": frozenset({Marker.DISORDER})}, {}, "Disordered"),
        ({"markers": frozenset({Marker.SMOKE})}, {}, "Smoke"),
        ({}, {"in_forward_arc": False}, "forward arc"),
    ],
)
def test_rule_04_2_2_closing_volley_eligibility(defender_kw, threat_kw, text):
    why = reasons(pair(defender_kw), Reaction.CLOSING_VOLLEY, charge(**threat_kw))
    assert len(why) == 1 and why[0][0] == "RULE-04-2.2" and text in why[0][1]


def test_rule_04_2_1_closing_volley_by_a_formed_regiment_or_battery_only():
    screen = battle_of(
        unit("p", "csa", x=30, y=5, facing_deg=180),
        unit(
            "d",
            "csa",
            kind=UnitKind.SKIRMISHERS,
            stands=1,
            stands_start=1,
            formation=Formation.SKIRMISH,
            parent="p",
            x=30,
            y=10,
            facing_deg=180,
        ),
        unit("a", "union", x=30, y=14),
    )
    assert rules_of(screen, Reaction.CLOSING_VOLLEY, charge()) == ["RULE-04-2.1"]
    limbered = pair(
        {
            "kind": UnitKind.ARTILLERY,
            "gun": GunType.NAPOLEON_12PDR,
            "weapon": Weapon.NONE,
            "formation": Formation.LIMBERED,
            "stands": 2,
            "stands_start": 2,
        }
    )
    assert rules_of(limbered, Reaction.CLOSING_VOLLEY, charge()) == ["RULE-04-2.1"]
    battery = pair(
        {
            "kind": UnitKind.ARTILLERY,
            "gun": GunType.NAPOLEON_12PDR,
            "weapon": Weapon.NONE,
            "formation": Formation.UNLIMBERED,
            "stands": 2,
            "stands_start": 2,
        }
    )
    assert option(battery, Reaction.CLOSING_VOLLEY, charge(), T).eligible


def test_closing_volley_refused_when_not_eligible():
    with pytest.raises(IllegalAction, match="RULE-04-2.2"):
        closing_volley(pair({"markers": frozenset({Marker.SMOKE})}), charge(), TableDice([1] * 5), T)


@pytest.mark.parametrize(
    "quality, roll, passed",
    [
        (Quality.VETERAN, 3, True),
        (Quality.VETERAN, 2, False),
        (Quality.REGULAR, 4, True),
        (Quality.REGULAR, 3, False),
        (Quality.GREEN, 5, True),
        (Quality.GREEN, 4, False),
    ],
)
def test_rule_04_2_4_charge_discipline_check_by_quality(quality, roll, passed):
    out = closing_volley(
        pair(attacker_kw={"quality": quality}), charge(), TableDice([4, 4, 1, 1, 1, roll]), T
    )
    assert out.check_taken and out.check_roll == roll
    assert out.contact is passed and out.stalled is not passed


def test_rule_04_2_4_a_disorder_alone_forces_the_check():
    out = closing_volley(pair(), charge(), TableDice([6, 1, 1, 1, 1, 4]), T)
    assert out.volley.stands_lost == 0 and out.volley.disorder_inflicted and out.check_taken


def test_rule_04_2_4_a_stand_loss_alone_forces_the_check():
    out = closing_volley(pair(), charge(), TableDice([4, 5, 1, 1, 1, 4]), T)
    assert out.volley.stands_lost == 1 and not out.volley.disorder_inflicted and out.check_taken


def test_rule_06_2_5_stall_of_an_already_disordered_charger_keeps_one_disorder():
    b = pair(attacker_kw={"markers": frozenset({Marker.DISORDER})})
    out = closing_volley(b, charge(), TableDice([4, 5, 1, 1, 1, 1]), T)
    a = out.battle.unit("a")
    assert out.stalled and a.disordered and (a.x, a.y) == (30, 12)


def test_a_charger_destroyed_by_the_volley_takes_no_check():
    out = closing_volley(pair(attacker_kw={"stands": 1}), charge(), TableDice([4, 5, 1, 1, 1]), T)
    assert out.volley.target_destroyed and not out.check_taken and not out.contact


def test_closing_volley_with_cover_for_the_charger():
    out = closing_volley(pair(), charge(), TableDice([4, 4, 1, 1, 1, 5, 1]), T, cover=Cover.LIGHT)
    assert out.volley.save_dice == (5, 1) and out.volley.unsaved_hits == 1 and not out.check_taken


# -- 2 Opportunity Fire ------------------------------------------------------------------------


def test_rule_04_3_2_opportunity_fire_is_free():
    opt = option(pair(), Reaction.OPPORTUNITY_FIRE, move(), T)
    assert opt.eligible and opt.cost.kind == CostKind.FREE


@pytest.mark.parametrize(
    "defender_kw, text",
    [
        ({"markers": frozenset({Marker.ENGAGED})}, "engaged"),
        ({"markers": frozenset({Marker.DISORDER})}, "Disordered"),
        ({"markers": frozenset({Marker.SMOKE})}, "Smoke"),
    ],
)
def test_rule_04_3_2_opportunity_fire_eligibility(defender_kw, text):
    why = reasons(pair(defender_kw), Reaction.OPPORTUNITY_FIRE, move())
    assert len(why) == 1 and why[0][0] == "RULE-04-3.2" and text in why[0][1]


def test_rule_04_3_1_opportunity_fire_within_8in_in_the_arc():
    assert option(pair(), Reaction.OPPORTUNITY_FIRE, move(8.0), T).eligible
    assert rules_of(pair(), Reaction.OPPORTUNITY_FIRE, move(8.01)) == ["RULE-04-3.1"]
    assert rules_of(pair(), Reaction.OPPORTUNITY_FIRE, move(5.0, in_forward_arc=False)) == ["RULE-04-3.1"]


def test_rule_04_3_5_no_natural_6_leaves_the_move_whole():
    out = opportunity_fire(pair(), move(7.0), TableDice([5, 5, 5, 1, 1]), T)
    assert out.volley.plan.band == "medium" and out.remaining_move_factor == 1.0
    assert not out.battle.unit("a").disordered
    assert {Marker.SMOKE, Marker.FIRED} <= out.battle.unit("d").markers


def test_rule_04_3_3_road_column_saves_at_minus_2_when_fired_on():
    b = pair(attacker_kw={"formation": Formation.ROAD_COLUMN})
    out = opportunity_fire(b, move(5.0), TableDice([4, 4, 1, 1, 1, 5, 6]), T, cover=Cover.HEAVY)
    assert out.volley.plan.save == 6 and out.volley.unsaved_hits == 1


def test_opportunity_fire_refused_when_engaged():
    with pytest.raises(IllegalAction, match="RULE-04-3.2"):
        opportunity_fire(pair({"markers": frozenset({Marker.ENGAGED})}), move(), TableDice([1] * 5), T)


# -- 3 Skirmish / Screen Evade and the Overrun -------------------------------------------------


def screened(screen_kw=None, attacker_kw=None, parent_kw=None):
    """A Confederate regiment ``p`` with its skirmish stand ``d`` 3" in front; Union attacker ``a``."""
    p = unit("p", "csa", name="5th Virginia", x=30, y=6, facing_deg=180, **(parent_kw or {}))
    kw = dict(
        kind=UnitKind.SKIRMISHERS,
        stands=1,
        stands_start=1,
        formation=Formation.SKIRMISH,
        parent="p",
        x=30,
        y=9,
        facing_deg=180,
        name="5th Virginia skirmishers",
    )
    kw.update(screen_kw or {})
    d = unit("d", "csa", **kw)
    a = unit("a", "union", x=30, y=15, facing_deg=0, **(attacker_kw or {}))
    return battle_of(p, d, a)


def test_rule_04_4_2_evade_is_free_for_a_screen_in_good_order():
    opt = option(screened(), Reaction.EVADE, move(6.0), T)
    assert opt.eligible and opt.cost.kind == CostKind.FREE


def test_rule_04_4_1_evade_within_6in_or_against_a_charge():
    assert rules_of(screened(), Reaction.EVADE, move(6.01)) == ["RULE-04-4.1"]
    assert option(screened(), Reaction.EVADE, Threat(Window.B, "a", "d", 7.0, charge=True), T).eligible


@pytest.mark.parametrize(
    "screen_kw, text",
    [
        ({"markers": frozenset({Marker.PINNED})}, "pinned"),
        ({"markers": frozenset({Marker.DISORDER})}, "Disordered"),
        ({"kind": UnitKind.CAVALRY_SCREEN, "formation": Formation.DISMOUNTED}, "dismounted"),
    ],
)
def test_rule_04_4_2_evade_eligibility(screen_kw, text):
    why = reasons(screened(screen_kw), Reaction.EVADE, move(5.0))
    assert len(why) == 1 and why[0][0] == "RULE-04-4.2" and text in why[0][1]


def test_mounted_cavalry_screen_may_evade_but_a_regiment_may_not():
    mounted = screened({"kind": UnitKind.CAVALRY_SCREEN, "formation": Formation.MOUNTED})
    assert option(mounted, Reaction.EVADE, move(5.0), T).eligible
    assert rules_of(pair(), Reaction.EVADE, move(5.0)) == ["RULE-04-4.2"]


def test_rule_04_4_1_only_a_formed_line_or_column_makes_a_screen_evade():
    b = screened(attacker_kw={"formation": Formation.SKIRMISH})
    assert rules_of(b, Reaction.EVADE, move(5.0)) == ["RULE-04-4.1"]


def _went(out) -> float:
    (step,) = [s for s in out.steps if s.rule == "RULE-04-4.3" and "evades" in s.text]
    return float(step.text.split("evades ")[1].split('"')[0])


@pytest.mark.parametrize("ahead_of_parent", [1.0, 3.0, 8.0])
@pytest.mark.parametrize("chosen", [4.0, 6.0])
def test_rule_04_4_3_the_screen_withdraws_the_distance_chosen_directly_to_the_rear(ahead_of_parent, chosen):
    """ "The skirmish stand immediately executes a 4.0"–6.0" withdrawal move directly to the rear",
    whatever its distance from its parent: 1" or 8" in front of it, a 4" evade moves 4" and a 6"
    evade 6", and the log says so."""
    b = screened(screen_kw={"y": 6 + ahead_of_parent})  # the parent's front edge is at y = 6, facing south
    s0 = b.unit("d")
    out = evade(b, move(5.0), TableDice([]), T, withdraw_in=chosen)
    s1 = out.battle.unit("d")
    assert math.dist((s0.x, s0.y), (s1.x, s1.y)) == pytest.approx(chosen)
    assert (s1.x, s1.y) == pytest.approx((30, 6 + ahead_of_parent - chosen))  # directly to the rear: north
    assert out.withdrawn_in == chosen and _went(out) == chosen
    # it passes through its parent (the Passage Exemption) when its withdrawal takes it there
    assert out.behind_parent == (chosen >= ahead_of_parent)
    if out.behind_parent:
        assert any("without a Passage of Lines test" in s.text for s in out.steps)
        assert s1.facing_deg == b.unit("p").facing_deg
    assert any(s.rule == "RULE-04-4.4" for s in out.steps)


def test_rule_04_4_3_an_evade_short_of_room_stops_with_the_reason_or_is_refused():
    """The table's edge 5" behind the screen: a 6" evade stops after 5", and the log says why; with
    3" of room there is no 4.0" withdrawal, and the evade is refused with the rule."""
    from rules.reactions.declare import evade_refusal

    b = screened(screen_kw={"y": 5.0}, parent_kw={"stands": 0})
    out = evade(b, move(5.0), TableDice([]), T, withdraw_in=6.0)
    assert out.battle.unit("d").y == pytest.approx(0.0) and out.withdrawn_in == 5.0
    assert any(
        'stops after 5" of the 6" chosen: the edge of the table is 5" behind it' in s.text for s in out.steps
    )
    tight = screened(screen_kw={"y": 3.0}, parent_kw={"stands": 0})
    with pytest.raises(IllegalAction, match="RULE-04-4.3") as err:
        evade(tight, move(5.0), TableDice([]), T, withdraw_in=4.0)
    assert 'the edge of the table is 3" behind it' in str(err.value)
    assert "the edge of the table" in evade_refusal(tight, tight.unit("d"), T)
    assert evade_refusal(b, b.unit("d"), T) is None


def test_rule_04_4_3_an_enemy_unit_in_the_way_stops_the_evade():
    b = screened(parent_kw={"stands": 0})
    # its rear edge 4.5" behind the screen (facing north, its ranks run back to y = 4.5)
    b = b.with_unit(unit("e", "union", name="1st Minnesota", x=30, y=3.75, facing_deg=0))
    out = evade(b, move(5.0), TableDice([]), T, withdraw_in=6.0)
    assert out.withdrawn_in == pytest.approx(4.5)
    assert any('1st Minnesota is in the way, 4.5" behind it' in s.text for s in out.steps)


def test_an_evade_saved_before_its_distance_was_measured_reads_as_it_was():
    """Saves made before: the screen was placed behind its parent's colour stand, whatever the
    distance; such an action (without ``evade_path``) resolves so again."""
    from rules.action_base import Action

    b = replace(screened(), phase=Phase.MANEUVER)
    new = DeclareReaction.of(Reaction.EVADE, move(5.0), withdraw_in=4.0)
    old = Action.from_dict(
        {k: v for k, v in new.to_dict().items() if k not in ("evade_path", "sided_flanks")}
    )
    depth = footprint(b.unit("p"), T).depth
    old_d = resolve(b, old, TableDice([]), T).battle_after.unit("d")
    assert (old_d.x, old_d.y) == pytest.approx((30, 6 - depth))
    new_d = resolve(b, new, TableDice([]), T).battle_after.unit("d")
    assert (new_d.x, new_d.y) == pytest.approx((30, 5))


def test_rule_04_4_3_evade_withdraws_4_to_6_inches():
    b = screened()
    evade(b, move(5.0), TableDice([]), T, withdraw_in=6.0)
    for bad in (3.99, 6.01):
        with pytest.raises(IllegalAction, match="RULE-04-4.3"):
            evade(b, move(5.0), TableDice([]), T, withdraw_in=bad)
    with pytest.raises(InvariantError):
        evade(b, move(5.0), TableDice([]), T, withdraw_in="far")


def test_evade_straight_back_when_the_parent_is_gone():
    b = screened(parent_kw={"stands": 0})
    out = evade(b, move(5.0), TableDice([]), T, withdraw_in=5.0)
    d = out.battle.unit("d")
    assert not out.behind_parent and (d.x, d.y) == pytest.approx((30, 4))  # facing south: the rear is -y


def test_rule_04_4_4_overrun_destroys_a_screen_and_does_not_slow_the_charger():
    out = overrun(screened(), "d", "a", T)
    assert out.battle.unit("d").stands == 0 and out.charger_slowed is False
    assert all(s.rule == "RULE-04-4.4" for s in out.steps)


def test_rule_04_4_4_only_a_formed_charger_overruns_and_only_screens_are_overrun():
    with pytest.raises(IllegalAction, match="RULE-04-4.4"):
        overrun(screened(attacker_kw={"formation": Formation.SKIRMISH}), "d", "a", T)
    with pytest.raises(IllegalAction, match="RULE-04-4.4"):
        overrun(screened(), "p", "a", T)
    cav = screened(attacker_kw={"kind": UnitKind.CAVALRY, "formation": Formation.MOUNTED})
    assert overrun(cav, "d", "a", T).battle.unit("d").destroyed


# -- 4 Refuse the Flank ------------------------------------------------------------------------


def flank(**kw) -> Threat:
    return Threat(Window.A, "a", "d", 5.0, in_forward_arc=False, flank="right", **kw)


def test_rule_04_5_2_refuse_flank_costs_a_reserved_pip_or_a_4_plus_check():
    with_pip = option(pair(csa_reserved=1), Reaction.REFUSE_FLANK, flank(), T)
    assert with_pip.cost.kind == CostKind.RESERVED_PIP and with_pip.cost.pips == 1
    without = option(pair(), Reaction.REFUSE_FLANK, flank(), T)
    assert without.cost.kind == CostKind.DISCIPLINE_CHECK and without.cost.check == 4
    assert str(without.cost) == "Discipline Check 4+"


def test_rule_04_5_1_refuse_flank_needs_line_of_battle_and_an_enemy_in_the_flank_zone():
    assert rules_of(pair({"formation": Formation.ASSAULT_COLUMN}), Reaction.REFUSE_FLANK, flank()) == [
        "RULE-04-5.1" + RF
    ]
    assert rules_of(pair(), Reaction.REFUSE_FLANK, move(5.0)) == ["RULE-04-5.1" + RF]
    assert rules_of(pair({"markers": frozenset({Marker.REFUSED_FLANK})}), Reaction.REFUSE_FLANK, flank()) == [
        "RULE-04-5.3" + RF
    ]


def test_rule_04_5_2_emergency_check_passes_on_4():
    out = refuse_the_flank(pair(), flank(), TableDice([4]), T)
    d = out.battle.unit("d")
    assert out.success and not out.pip_spent and d.has(Marker.REFUSED_RIGHT) and not d.disordered


def test_rule_04_5_2_emergency_check_failure_freezes_with_disorder():
    out = refuse_the_flank(pair(), flank(), TableDice([3]), T)
    d = out.battle.unit("d")
    assert out.frozen and not out.success and d.disordered and not refused_flanks(d)
    assert (d.x, d.y, d.facing_deg) == (30, 10, 180)


def test_umpire_may_keep_the_reserved_pip_and_take_the_check():
    out = refuse_the_flank(pair(csa_reserved=1), flank(), TableDice([5]), T, use_reserved_pip=False)
    assert out.success and not out.pip_spent and out.battle.brigade_of("d").staff_pips_reserved == 1


def test_rule_04_5_4_refused_flank_helpers_for_fire_and_melee():
    out = refuse_the_flank(pair(csa_reserved=1), flank(), TableDice([]), T)
    assert enfilade_denied(out.battle, "d", "right") and flank_bonus_denied(out.battle, "d", "right")
    # the refused right flank protects the right only (RULE-04-5.3: "opposite flank stands remain
    # anchored in their original alignment")
    assert not enfilade_denied(out.battle, "d", "left") and not flank_bonus_denied(out.battle, "d", "left")
    assert not enfilade_denied(out.battle, "d", "rear")
    assert not enfilade_denied(pair(), "d") and not flank_bonus_denied(pair(), "d")


def test_refuse_the_flank_in_window_b_when_the_charge_targets_the_flank():
    t = Threat(Window.B, "a", "d", 4.0, charge=True, in_forward_arc=False, flank="left")
    assert option(pair(csa_reserved=1), Reaction.REFUSE_FLANK, t, T).eligible


# -- 5 Counter-Charge --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "defender_kw, ok",
    [
        ({"traits": frozenset({"rebel_yell"}), "stands": 3}, True),  # Rebel Yell, even when Worn
        ({"quality": Quality.VETERAN}, True),  # Veteran and Fresh
        ({"quality": Quality.VETERAN, "stands": 3}, False),  # Veteran but Worn
        ({"quality": Quality.REGULAR}, False),  # Regular and Fresh
        ({"kind": UnitKind.CAVALRY, "formation": Formation.MOUNTED}, True),
        (
            {
                "kind": UnitKind.CAVALRY,
                "formation": Formation.MOUNTED,
                "markers": frozenset({Marker.DISORDER}),
            },
            False,
        ),
        ({"kind": UnitKind.CAVALRY, "formation": Formation.DISMOUNTED}, False),
    ],
)
def test_rule_04_5_2_counter_charge_traits(defender_kw, ok):
    opt = option(pair(defender_kw, csa_reserved=1), Reaction.COUNTER_CHARGE, charge(), T)
    assert opt.eligible is ok
    if not ok:
        assert [r.rule for r in opt.reasons] == ["RULE-04-5.2" + CC]


def test_rule_04_5_3_counter_charge_needs_a_reserved_pip_no_check():
    b = pair({"quality": Quality.VETERAN})
    assert rules_of(b, Reaction.COUNTER_CHARGE, charge()) == ["RULE-04-5.3" + CC]
    opt = option(pair({"quality": Quality.VETERAN}, csa_reserved=1), Reaction.COUNTER_CHARGE, charge(), T)
    assert opt.cost.kind == CostKind.RESERVED_PIP and opt.cost.rule == "RULE-04-5.3" + CC


def test_counter_charge_follows_rule_04_1_3_if_the_club_table_says_so():
    t = T.with_values({"command.staff_pips.counter_charge_needs_reserved_pip": 0})
    b = pair({"quality": Quality.VETERAN})
    opt = option(b, Reaction.COUNTER_CHARGE, charge(), t)
    assert opt.eligible and opt.cost.kind == CostKind.DISCIPLINE_CHECK
    failed = counter_charge(b, charge(), TableDice([3]), t)
    assert not failed.success and failed.battle.unit("d").y == 10 and not failed.attacker_loses_momentum
    passed = counter_charge(b, charge(), TableDice([4]), t, surge_in=2.0)
    assert passed.success and passed.battle.unit("d").y == 12


def test_rule_04_5_1_counter_charge_conditions_on_the_charge():
    b = pair({"quality": Quality.VETERAN}, csa_reserved=1)
    assert option(b, Reaction.COUNTER_CHARGE, charge(9.0), T).eligible
    assert rules_of(b, Reaction.COUNTER_CHARGE, charge(9.01)) == ["RULE-04-5.1" + CC]
    assert rules_of(b, Reaction.COUNTER_CHARGE, charge(open_ground=False)) == ["RULE-04-5.1" + CC]
    assert rules_of(b, Reaction.COUNTER_CHARGE, Threat(Window.B, "a", "d", 4.0)) == ["RULE-04-5.1" + CC]


def test_rule_04_5_4_and_5_5_counter_charge_surge_and_flags():
    b = pair({"traits": frozenset({"rebel_yell"})}, csa_reserved=1)
    out = counter_charge(b, charge(), TableDice([]), T, surge_in=2.5)
    d = out.battle.unit("d")
    assert (d.x, d.y) == pytest.approx((30, 12.5))  # facing south: forward is +y
    assert out.battle.brigade_of("d").staff_pips_reserved == 0
    assert out.attacker_loses_momentum and out.attacker_loses_downhill
    assert [(m.label, m.value, m.rule) for m in out.bonuses] == [
        ("Rebel Yell (counter-charge)", 1, "RULE-06-3.3, RULE-04-5.5" + CC)
    ]


def test_counter_charge_cavalry_shock_bonus_and_no_bonus_for_union_veterans():
    cav = pair({"kind": UnitKind.CAVALRY, "formation": Formation.MOUNTED}, csa_reserved=1)
    assert [m.label for m in counter_charge(cav, charge(), TableDice([]), T).bonuses] == [
        "Cavalry shock (counter-charge)"
    ]
    vet = pair({"quality": Quality.VETERAN}, csa_reserved=1)
    assert counter_charge(vet, charge(), TableDice([]), T).bonuses == ()


def test_rule_06_3_3_counter_charging_cavalry_logs_shock_only_against_infantry_as_the_melee_scores_it():
    """ "Mounted Cavalry Shock (Charging infantry in open)": the log and the score agree."""
    from rules.melee.melee import MeleeSituation, shock_sides

    cav = {"kind": UnitKind.CAVALRY, "formation": Formation.MOUNTED}
    for attacker_kw, shock in (({}, True), (cav, False)):
        b = pair(cav, attacker_kw, csa_reserved=1)
        out = counter_charge(b, charge(), TableDice([]), T)
        logged = [m for m in out.bonuses if "shock" in m.label.lower()]
        _, d, _ = shock_sides(b, MeleeSituation("a", "d", counter_charge=True), T)
        scored = [m for m in d.modifiers if "shock" in m.label.lower()]
        assert logged == scored and bool(logged) is shock


def test_rule_04_5_4_counter_charge_needs_the_charger_in_the_forward_arc():
    b = pair({"quality": Quality.VETERAN}, csa_reserved=1)
    assert option(b, Reaction.COUNTER_CHARGE, charge(in_forward_arc=True), T).eligible
    for threat in (
        charge(in_forward_arc=False),
        charge(flank="left"),
        charge(in_forward_arc=False, flank="right"),
    ):
        assert rules_of(b, Reaction.COUNTER_CHARGE, threat) == ["RULE-04-5.4" + CC]


def test_rule_04_5_4_counter_charge_surge_is_2_to_3_inches():
    b = pair({"quality": Quality.VETERAN}, csa_reserved=1)
    assert counter_charge(b, charge(), TableDice([]), T).surged_in == 3.0
    counter_charge(b, charge(), TableDice([]), T, surge_in=2.0)
    for bad in (1.99, 3.01):
        with pytest.raises(IllegalAction, match="Counter-Charge"):
            counter_charge(b, charge(), TableDice([]), T, surge_in=bad)


# -- purity ------------------------------------------------------------------------------------

faces = st.integers(min_value=1, max_value=6)


@settings(max_examples=40, deadline=None)
@given(
    dice=st.lists(faces, min_size=12, max_size=12),
    reaction=st.sampled_from(list(Reaction)),
    quality=st.sampled_from(list(Quality)),
    reserved=st.integers(min_value=0, max_value=1),
    stands=st.integers(min_value=1, max_value=5),
    distance=st.floats(min_value=0, max_value=9),
    markers=st.sets(st.sampled_from([Marker.DISORDER, Marker.SMOKE, Marker.ENGAGED])),
)
def test_a_reaction_is_a_pure_function_of_state_inputs_and_dice(
    dice, reaction, quality, reserved, stands, distance, markers
):
    b = pair({"quality": quality, "markers": frozenset(markers)}, {"stands": stands}, csa_reserved=reserved)
    window = Window.A if Window.A in reaction.windows and reaction != Reaction.REFUSE_FLANK else Window.B
    threat = Threat(window, "a", "d", distance, charge=window == Window.B, flank="right")
    before = b.to_dict()
    try:
        one = resolve_reaction(b, reaction, threat, TableDice(dice), T)
    except RulesError:
        assert not option(b, reaction, threat, T).eligible
        return
    two = resolve_reaction(b, reaction, threat, TableDice(dice), T)
    assert b.to_dict() == before and one == two
    assert one.battle.to_dict() == two.battle.to_dict()


# -- the action --------------------------------------------------------------------------------


def test_declare_reaction_action_round_trips_and_resolves():
    from rules.actions import Action, resolve
    from rules.reactions.declare import DeclareReaction

    a = DeclareReaction.of(Reaction.CLOSING_VOLLEY, charge(), cover="light")
    assert Action.from_dict(a.to_dict()) == a and a.threat == charge()
    with pytest.raises(IllegalAction, match="Phase 2"):
        resolve(pair(), a, TableDice([4, 4, 1, 1, 1, 5, 6]), T)
    with pytest.raises(IllegalAction, match="side whose turn"):
        resolve(pair(phase=Phase.MANEUVER, active="csa"), a, TableDice([4, 4, 1, 1, 1, 5, 6]), T)
    out = resolve(pair(phase=Phase.MANEUVER), a, TableDice([4, 4, 1, 1, 1, 5, 6]), T)
    assert [r.purpose for r in out.rolls] == ["closing volley", "cover saves"]
    assert out.battle.unit("a").stands == 5 and "Closing Defensive Volley" in out.summary
    rf = DeclareReaction.of("refuse_flank", flank(), use_reserved_pip=False)
    kept = resolve(pair(csa_reserved=1, phase=Phase.MANEUVER), rf, TableDice([4]), T)
    assert kept.battle.brigade_of("d").staff_pips_reserved == 1
    with pytest.raises(IllegalAction, match="RULE-04-2.2"):
        resolve(pair({"markers": frozenset({Marker.SMOKE})}, phase=Phase.MANEUVER), a, TableDice([1] * 7), T)


def test_napoleon_canister_closing_volley_disorders_and_forces_the_check():
    bty = {
        "kind": UnitKind.ARTILLERY,
        "gun": GunType.NAPOLEON_12PDR,
        "weapon": Weapon.NONE,
        "formation": Formation.UNLIMBERED,
        "stands": 2,
        "stands_start": 2,
    }
    out = closing_volley(pair(bty), charge(), TableDice([2, 1, 1, 1, 4]), T)
    assert out.volley.plan.dice_pool == 4 and out.volley.hits == 1 and out.volley.natural_sixes == 0
    assert out.volley.disorder_inflicted and out.check_taken and out.contact


def test_one_point_along_a_bearing_for_every_move_of_the_reactions_charges_and_melees():
    """Table coordinates: y grows down; bearing 0 faces the top edge, 90 faces +x."""
    from rules.battlefield.geometry import point_along

    assert point_along((10, 10), 0, 3) == pytest.approx((10, 7))
    assert point_along((10, 10), 90, 2) == pytest.approx((12, 10))
    assert point_along((10, 10), 180, -2) == pytest.approx((10, 8))
    b = pair({"quality": Quality.VETERAN}, csa_reserved=1)
    out = counter_charge(b, charge(), TableDice([]), T, surge_in=2.0)
    d0, d1 = b.unit("d"), out.battle.unit("d")
    assert (d1.x, d1.y) == pytest.approx(point_along((d0.x, d0.y), d0.facing_deg, 2.0))


# -- "No reaction": the declined window is an action of its own ------------------------------------------


def test_a_declined_window_b_is_logged_with_its_window_and_rule_and_changes_nothing():
    from rules.actions import Action, resolve
    from rules.reactions.declare import DeclineReaction

    a = DeclineReaction.of(charge(), open_to=(Reaction.CLOSING_VOLLEY,))
    assert a.type == "decline_reaction" and Action.from_dict(a.to_dict()) == a
    assert a.to_dict()["open_to"] == ["closing_volley"] and a.threat == Threat(Window.B, "a", "d", 4.0)
    b = pair(phase=Phase.MANEUVER)
    out = resolve(b, a, TableDice([]), T)
    assert out.battle_after.to_dict() == b.to_dict() and out.rolls == ()
    assert out.summary == "5th Virginia: no reaction at Trigger Window B against 14th Brooklyn"
    (step,) = out.steps
    assert step.rule == "RULE-04-1.2" and step.units == ("d", "a") and step.dice == ()
    assert step.text == (
        "Trigger Window B opened for 5th Virginia against 14th Brooklyn's charge (4\" away): "
        "no reaction, it passes up Closing Defensive Volley; the charge goes on"
    )


def test_a_declined_window_a_says_when_no_reaction_was_open():
    from rules.actions import resolve
    from rules.reactions.declare import DeclineReaction

    out = resolve(pair(phase=Phase.MANEUVER), DeclineReaction.of(move(7.5)), TableDice([]), T)
    assert out.summary == "5th Virginia: no reaction at Trigger Window A against 14th Brooklyn"
    assert out.steps[0].text.endswith(
        "14th Brooklyn's move (7.5\" away): no reaction, none of the window's reactions was open to it; "
        "the move goes on"
    )
    two = DeclineReaction.of(move(), open_to=("opportunity_fire", "refuse_flank"))
    text = resolve(pair(phase=Phase.MANEUVER), two, TableDice([]), T).steps[0].text
    assert "it passes up Opportunity Fire, Refuse the Flank;" in text


def test_rule_04_1_4_declining_is_not_the_defenders_one_reaction():
    from rules.actions import resolve
    from rules.reactions.declare import DeclareReaction, DeclineReaction, reacted_to

    b = pair(phase=Phase.MANEUVER)
    declined = resolve(b, DeclineReaction.of(charge(), (Reaction.CLOSING_VOLLEY,)), TableDice([]), T).battle
    assert reacted_to(declined, Window.B, "a") == frozenset()
    assert option(declined, Reaction.CLOSING_VOLLEY, charge(), T).eligible
    fired = resolve(declined, DeclareReaction.of(Reaction.CLOSING_VOLLEY, charge()), TableDice([1] * 5), T)
    assert reacted_to(fired.battle, Window.B, "a") == {"d"}


def test_a_decline_is_refused_outside_phase_2_and_for_the_wrong_side_with_the_rule():
    from rules.actions import resolve
    from rules.reactions.declare import DeclineReaction

    a = DeclineReaction.of(charge())
    with pytest.raises(IllegalAction, match="Phase 2.*RULE-04-1.2"):
        resolve(pair(), a, TableDice([]), T)
    with pytest.raises(IllegalAction, match="14th Brooklyn is not a unit of the side whose turn it is"):
        resolve(pair(phase=Phase.MANEUVER, active="csa"), a, TableDice([]), T)
    friends = replace(
        battle_of(unit("d", "union", name="2nd Wisconsin"), unit("a", "union")), phase=Phase.MANEUVER
    )
    with pytest.raises(IllegalAction, match="2nd Wisconsin is of the side whose turn it is"):
        resolve(friends, a, TableDice([]), T)


@pytest.mark.parametrize(
    "fields,match",
    [
        ({"window": "c"}, "'c' is not a window"),
        ({"distance_in": -1.0}, "inches of 0 or more"),
        ({"defender_id": "a"}, "cannot react to itself"),
        (
            {"open_to": ("closing_volley",), "window": "a"},
            "Closing Defensive Volley is not a reaction of Trigger Window A",
        ),
        ({"open_to": ("volley",)}, "'volley' is not a reaction"),
        ({"open_to": "closing_volley"}, "are a list"),
        ({"attacker_id": "nobody"}, "nobody"),
    ],
)
def test_a_malformed_decline_gets_a_clear_error(fields, match):
    from rules.actions import Action, resolve

    d = {
        "type": "decline_reaction",
        "window": "b",
        "attacker_id": "a",
        "defender_id": "d",
        "distance_in": 4.0,
    }
    d.update(fields)
    with pytest.raises(RulesError, match=match):
        resolve(pair(phase=Phase.MANEUVER), Action.from_dict(d), TableDice([]), T)


def test_rule_04_4_3_an_evade_without_a_distance_chosen_withdraws_the_full_6_inches():
    """RULE-04-4.3: "a 4.0"–6.0" withdrawal move directly to the rear"; with no distance chosen
    the screen goes the whole 6.0" (movement.trigger.evade_max_in), not the least it may."""
    b = screened(parent_kw={"stands": 0})  # 9" of table behind the screen: room for all of it
    out = evade(b, move(5.0), TableDice([]), T)
    assert out.withdrawn_in == pytest.approx(6.0)
    assert out.battle.unit("d").y == pytest.approx(3.0)
    assert out.withdrawn_in == T.value("movement.trigger.evade_max_in")
