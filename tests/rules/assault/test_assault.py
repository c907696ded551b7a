"""Assaults: declaration, the charge path, the 4.0" line and Window B, and contact (chapter 06)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.assault.actions import resolve_charge
from rules.assault.charge import Charge, ChargeEnd, Reaction, melee_situation
from rules.assault.charge_path import defender_obstacle, flank_anchored_on_works, plan_charge
from rules.assault.declaration import check_declaration, declaration_problems, declare_charge
from rules.battle.battle import Battle
from rules.battle.terrain import TerrainFeature, TerrainType
from rules.battle.unit import Unit
from rules.battle.words import BrigadeState, Formation, Marker, Phase, Quality, UnitKind
from rules.dice import SeededDice, TableDice
from rules.errors import IllegalAction
from rules.melee.melee import Contact
from tests.rules.melee.test_examples_ch06 import T, example_1


def base(va_y: float = 27.0, **va) -> Battle:
    """Example 1's position with the 4th Virginia ``va_y - 20`` inches from the Wisconsin."""
    b = example_1()
    return b.with_unit(replace(b.unit("va4"), y=va_y, **va))


def rules_of(problems) -> list[str]:
    return [p.rule for p in problems]


def with_brigade(b: Battle, unit_id: str, **kw) -> Battle:
    return b.with_brigade(replace(b.brigade_of(unit_id), **kw))


# -- declaration ---------------------------------------------------------------------------------


def test_rule_06_1_3_example_position_may_declare():
    assert declaration_problems(base(), "va4", "wis2", T) == []


def test_rule_06_1_2_no_staff_pip_no_assault():
    b = with_brigade(base(), "va4", staff_pips=0)
    assert "RULE-06-1.2" in rules_of(declaration_problems(b, "va4", "wis2", T))


@pytest.mark.parametrize("state", [BrigadeState.HESITANT, BrigadeState.BROKEN])
def test_rule_06_1_2_hesitant_or_broken_brigades_cannot_assault(state):
    b = with_brigade(base(), "va4", state=state)
    probs = declaration_problems(b, "va4", "wis2", T)
    assert any(p.rule == "RULE-06-1.2" and state.value in p.message for p in probs)


@pytest.mark.parametrize("formation", [Formation.ROAD_COLUMN, Formation.SKIRMISH])
def test_rule_06_1_3_line_of_battle_or_assault_column_only(formation):
    probs = declaration_problems(base(formation=formation), "va4", "wis2", T)
    assert any(p.rule == "RULE-06-1.3" and "Line of Battle" in p.message for p in probs)
    assert declaration_problems(base(formation=Formation.ASSAULT_COLUMN), "va4", "wis2", T) == []


def test_rule_06_1_3_not_disordered():
    b = base(markers=frozenset({Marker.DISORDER}))
    assert any("Disordered" in p.message for p in declaration_problems(b, "va4", "wis2", T))


def test_rule_06_1_3_spent_only_with_an_attached_brigadier():
    spent = base(stands=1, stands_start=5)  # 20%: Spent
    assert declaration_problems(spent, "va4", "wis2", T) == []  # Garnett is attached
    alone = spent.with_brigade(
        replace(
            spent.brigade_of("va4"), brigadier=replace(spent.brigade_of("va4").brigadier, attached_to=None)
        )
    )
    probs = declaration_problems(alone, "va4", "wis2", T)
    assert any("Spent" in p.message and p.rule == "RULE-06-1.3" for p in probs)
    worn = alone.with_unit(replace(alone.unit("va4"), stands=2, stands_start=5))  # 40%: Worn
    assert declaration_problems(worn, "va4", "wis2", T) == []


def test_rule_06_1_3_infantry_range_is_9in():
    assert declaration_problems(base(va_y=29.0), "va4", "wis2", T) == []
    probs = declaration_problems(base(va_y=29.1), "va4", "wis2", T)
    assert any("9" in p.message and p.rule == "RULE-06-1.3" for p in probs)


def test_rule_06_1_3_mounted_cavalry_range_is_12in():
    cav = dict(kind=UnitKind.CAVALRY, formation=Formation.MOUNTED)
    assert declaration_problems(base(va_y=32.0, **cav), "va4", "wis2", T) == []
    assert "RULE-06-1.3" in rules_of(declaration_problems(base(va_y=32.1, **cav), "va4", "wis2", T))


def test_rule_06_1_3_target_must_be_in_the_forward_arc():
    probs = declaration_problems(base(facing_deg=180.0), "va4", "wis2", T)
    assert any("forward 45 degree arc" in p.message for p in probs)


def test_rule_06_1_1_declared_in_phase_2_by_the_active_side():
    b = replace(base(), phase=Phase.RANGED)
    assert "RULE-06-1.1" in rules_of(declaration_problems(b, "va4", "wis2", T))
    b = replace(base(), active_side="usa")
    assert any("active side" in p.message for p in declaration_problems(b, "va4", "wis2", T))


def test_declaration_lists_every_failed_condition_and_spends_the_pip():
    b = with_brigade(base(va_y=30.0, markers=frozenset({Marker.DISORDER})), "va4", staff_pips=0)
    probs = declaration_problems(b, "va4", "wis2", T)
    assert len(probs) == 3
    with pytest.raises(IllegalAction) as err:
        check_declaration(b, "va4", "wis2", T)
    assert (
        "Staff Pip" in str(err.value) and "Disordered" in str(err.value) and "Charge Range" in str(err.value)
    )
    nb, steps = declare_charge(base(), "va4", "wis2", T)
    assert nb.brigade_of("va4").staff_pips == 1 and steps[0].rule == "RULE-06-1.2"


def test_rule_06_1_2_artillery_cannot_declare_an_assault():
    b = base()
    gun = Unit(
        id="bty",
        name="Battery",
        side="csa",
        brigade="stonewall",
        kind=UnitKind.ARTILLERY,
        stands=2,
        stands_start=2,
        gun="12pdr_napoleon",
        formation=Formation.UNLIMBERED,
        x=30.0,
        y=26.0,
    )
    b = b.with_unit(gun)
    assert "RULE-06-1.2" in rules_of(declaration_problems(b, "bty", "wis2", T))


# -- the path ---------------------------------------------------------------------------------------


def test_rule_06_1_4_one_pivot_of_up_to_30_degrees():
    b = base()
    # the Wisconsin's front-edge centre is at (30, 20); 7" away, 30 degrees off needs x = 30 - 7 sin 30
    import math

    def at_angle(deg):
        return b.with_unit(
            replace(
                b.unit("va4"),
                x=30.0 - 7 * math.sin(math.radians(deg)),
                y=20.0 + 7 * math.cos(math.radians(deg)),
            )
        )

    p = plan_charge(at_angle(29.9), "va4", "wis2", T)
    assert p.pivot_deg == pytest.approx(29.9)
    with pytest.raises(IllegalAction, match="RULE-06-1.4"):
        plan_charge(at_angle(30.5), "va4", "wis2", T)


def test_rule_06_1_5_stream_halts_the_charge_in_the_waterbed_disordered():
    b = base().with_feature(
        TerrainFeature(id="run", type=TerrainType.STREAM, points=((0, 25.0), (60, 25.0)), name="Heron's Run")
    )
    r = resolve_charge(b, Charge("va4", "wis2"), TableDice([]), T)
    va = r.battle.unit("va4")
    assert r.end == ChargeEnd.HALTED and va.disordered and va.y == pytest.approx(25.0)
    assert r.melee is None


def test_rule_06_1_5_stream_beyond_the_4in_line_halts_after_the_volley():
    b = base().with_feature(TerrainFeature(id="run", type=TerrainType.STREAM, points=((0, 22.0), (60, 22.0))))
    r = resolve_charge(b, Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([]), T)
    assert r.end == ChargeEnd.HALTED and r.battle.unit("va4").y == pytest.approx(22.0)


def test_rule_06_1_5_a_ford_lets_the_charge_cross():
    b = base().with_feature(TerrainFeature(id="run", type=TerrainType.STREAM, points=((0, 25.0), (60, 25.0))))
    b = b.with_feature(TerrainFeature(id="ford", type=TerrainType.FORD, points=((28, 25.0), (32, 25.0))))
    r = resolve_charge(b, Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([3, 3]), T)
    assert r.end == ChargeEnd.CONTACT


def _woods(y0: float, y1: float) -> TerrainFeature:
    return TerrainFeature(
        id="woods", type=TerrainType.DENSE_WOODS, points=((20, y0), (40, y0), (40, y1), (20, y1))
    )


def test_rule_06_1_5_dense_woods_cap_the_charge_at_4in_and_disorder_on_contact():
    far = base(va_y=24.1).with_feature(_woods(19.0, 26.0))
    r = resolve_charge(far, Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([]), T)
    assert r.end == ChargeEnd.FELL_SHORT and r.battle.unit("va4").y == pytest.approx(20.1)
    near = base(va_y=24.0).with_feature(_woods(19.0, 26.0))
    r = resolve_charge(near, Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([3, 3]), T)
    assert r.end == ChargeEnd.CONTACT
    assert any(s.rule == "RULE-06-1.5" and "Disordered" in s.text for s in r.steps)
    att = next(s for s in r.steps if "(attacker) shock score" in s.text)
    assert any(m.label == "Disordered" for m in att.modifiers)


def test_rule_06_1_5_ploughed_fields_take_2in_off_the_charge():
    field = TerrainFeature(
        id="plough", type=TerrainType.PLOUGHED_FIELD, points=((20, 21.0), (40, 21.0), (40, 30.0), (20, 30.0))
    )
    r = resolve_charge(
        base(va_y=27.0).with_feature(field),
        Charge("va4", "wis2", reaction=Reaction.NONE),
        TableDice([3, 3]),
        T,
    )
    assert r.end == ChargeEnd.CONTACT  # 7" within 9 - 2
    r = resolve_charge(
        base(va_y=27.1).with_feature(field), Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([]), T
    )
    assert r.end == ChargeEnd.FELL_SHORT and r.approach.path.allowance_in == pytest.approx(7.0)


def test_rule_06_3_3_momentum_needs_3in_across_open_ground():
    p = plan_charge(base(va_y=23.0), "va4", "wis2", T)
    assert melee_situation(base(va_y=23.0), p, T).momentum_in == pytest.approx(3.0)
    r = resolve_charge(base(va_y=23.0), Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([3, 3]), T)
    assert any(m.label.startswith("Charging momentum") for m in r.melee.steps[0].modifiers)
    r = resolve_charge(base(va_y=22.9), Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([3, 3]), T)
    assert not any(m.label.startswith("Charging momentum") for m in r.melee.steps[0].modifiers)


def test_rule_06_3_3_momentum_counts_only_open_ground():
    light = TerrainFeature(
        id="lw", type=TerrainType.LIGHT_WOODS, points=((20, 22.0), (40, 22.0), (40, 26.5), (20, 26.5))
    )
    p = plan_charge(base().with_feature(light), "va4", "wis2", T)
    assert p.open_ground_in == pytest.approx(2.5)


def test_rule_03_2_4_charging_through_abatis_costs_3in_momentum_and_2_in_melee():
    abatis = TerrainFeature(id="ab", type=TerrainType.ABATIS, points=((20, 23.0), (40, 23.0)))
    b = base(va_y=26.0).with_feature(abatis)
    p = plan_charge(b, "va4", "wis2", T)
    assert p.through_abatis and p.allowance_in == pytest.approx(6.0)
    r = resolve_charge(b, Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([3, 3]), T)
    labels = [m.label for m in r.melee.steps[0].modifiers]
    assert "Charging through abatis" in labels and not any(x.startswith("Charging momentum") for x in labels)


# -- the 4.0" line and Window B --------------------------------------------------------------------


def test_rule_06_2_1_the_charger_halts_at_the_4in_line_for_window_b():
    dice = TableDice([1, 1, 1, 1, 1, 3, 3])
    r = resolve_charge(base(), Charge("va4", "wis2"), dice, T)
    line = next(s for s in r.steps if s.rule == "RULE-06-2.1")
    assert '4" line' in line.text
    assert r.approach.volley.plan.band.value == "short"


@pytest.mark.parametrize(("roll", "stalls"), [(2, True), (3, False)])
def test_rule_06_2_4_veteran_discipline_check_3_plus(roll, stalls):
    r = resolve_charge(base(), Charge("va4", "wis2"), TableDice([2, 4, 1, 6, 5, roll, 3, 3, 4]), T)
    assert (r.end == ChargeEnd.STALLED) is stalls


def test_rule_06_2_5_failed_check_stalls_2in_away_disordered():
    r = resolve_charge(base(), Charge("va4", "wis2"), TableDice([2, 4, 1, 6, 5, 1, 4]), T)
    va = r.battle.unit("va4")
    assert r.end == ChargeEnd.STALLED and r.melee is None
    assert va.disordered and va.stands == 4 and va.y == pytest.approx(22.0)
    assert r.battle.unit("wis2").has(Marker.SMOKE)


@pytest.mark.parametrize(("quality", "need"), [(Quality.REGULAR, 4), (Quality.GREEN, 5)])
def test_rule_06_2_4_regular_4_plus_green_5_plus(quality, need):
    b = base(quality=quality)
    assert (
        resolve_charge(b, Charge("va4", "wis2"), TableDice([6, 1, 1, 1, 1, need - 1]), T).end
        == ChargeEnd.STALLED
    )
    r = resolve_charge(b, Charge("va4", "wis2"), TableDice([6, 1, 1, 1, 1, need, 3, 3, 4]), T)
    assert r.end == ChargeEnd.CONTACT


def test_rule_06_2_4_no_loss_no_disorder_no_check():
    r = resolve_charge(base(), Charge("va4", "wis2"), TableDice([1, 2, 3, 1, 2, 3, 3]), T)
    assert r.approach.discipline_roll is None and r.end == ChargeEnd.CONTACT


def test_rule_04_2_2_no_closing_volley_with_smoke():
    b = base()
    b = b.with_unit(b.unit("wis2").with_markers(add=[Marker.SMOKE]))
    with pytest.raises(IllegalAction, match="RULE-04-2.2"):
        resolve_charge(b, Charge("va4", "wis2"), TableDice([]), T)
    r = resolve_charge(b, Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([3, 3]), T)
    assert r.end == ChargeEnd.CONTACT


def test_rule_03_5_3_the_closing_volley_counts_only_stands_with_a_clear_view():
    """Friendly troops in front of part of the line block its fire (RULE-03-5.3): the closing
    volley of a charge is measured on the table like any other (shooting.fire_inputs)."""
    from rules.shooting.shoot import fire_inputs

    b = base()
    blk = replace(
        b.unit("wis2"), id="blk", name="Iron Brigade reserve", stands=2, stands_start=2, x=27.0, y=22.5
    )
    b = b.with_unit(blk)
    r = resolve_charge(b, Charge("va4", "wis2"), TableDice([1, 1, 1, 3, 3]), T)
    assert r.approach.volley.plan.dice_pool == 3 and r.end == ChargeEnd.CONTACT
    at = r.approach.battle
    assert fire_inputs(base(), "wis2", "va4", T)["clear_stands"] == 5
    assert r.melee is not None and at.unit("blk").in_play


def test_rule_04_5_x_counter_charge_meets_the_charger_and_negates_momentum():
    b = with_brigade(base(), "wis2", staff_pips_reserved=1)
    r = resolve_charge(b, Charge("va4", "wis2", reaction=Reaction.COUNTER_CHARGE), TableDice([3, 3]), T)
    wi, va = r.battle.unit("wis2"), r.battle.unit("va4")
    assert r.end == ChargeEnd.CONTACT and r.approach.counter_charge
    assert r.battle.brigade_of("wis2").staff_pips_reserved == 0
    att = r.melee.steps[0]
    assert not any(m.label.startswith("Charging momentum") for m in att.modifiers)
    assert any("counter-charge" in s.text for s in r.melee.steps)
    # Wisconsin surged 3" south to y = 23, then the attacker won and it retreated 6"
    assert wi.y == pytest.approx(23.0 - 6.0)  # surged 3" to y = 23, lost, retreated 6" from the victor
    assert va.facing_deg == pytest.approx(0.0)


def test_rule_04_5_x_counter_charge_needs_a_reserved_pip():
    with pytest.raises(IllegalAction, match="reserved Staff Pip"):
        resolve_charge(base(), Charge("va4", "wis2", reaction=Reaction.COUNTER_CHARGE), TableDice([]), T)


def _flank_position() -> Battle:
    b = example_1()
    # the Wisconsin faces south (180) with its front edge from x=26.25 to 33.75 at y=20; its left flank
    # (its own left, facing south) is the east end. The Virginians come from the east, facing west.
    return b.with_unit(replace(b.unit("va4"), x=40.0, y=20.375, facing_deg=270.0))


def test_rule_06_3_1_flank_contact_at_90_degrees_with_the_flank_bonus():
    b = _flank_position()
    p = plan_charge(b, "va4", "wis2", T)
    assert p.contact == Contact.FLANK
    r = resolve_charge(b, Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([3, 3]), T)
    att, dfn = r.melee.steps[0], r.melee.steps[1]
    assert any(m.label == "Flank attack" and m.value == 2 for m in att.modifiers)
    assert "+ 1 stands" in dfn.text  # only the contacted stand (RULE-06-3.4)


def test_rule_03_2_4_a_flank_the_breastworks_run_round_is_anchored_no_flank_bonus():
    """Lined breastworks are "immune to flank shock penalties if the flank is anchored to the works"
    (RULE-03-2.4): works that run round the Wisconsin's left flank anchor it, and the charge into it
    meets the works (RULE-06-5.2): no flank +2, no momentum, +2 for the works, a frontal count."""
    b = _flank_position()
    works = TerrainFeature(
        id="bw", type=TerrainType.BREASTWORKS, points=((20, 20.1), (34.1, 20.1), (34.1, 18.5))
    )
    anchored = b.with_feature(works)
    s = melee_situation(anchored, plan_charge(anchored, "va4", "wis2", T), T)
    assert s.flank_side == "left" and s.flank_anchored_on_works, "RULE-03-2.4"
    r = resolve_charge(anchored, Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([3, 3, 6]), T)
    att, dfn = r.melee.steps[0], r.melee.steps[1]
    assert not any("flank" in m.label.lower() for m in att.modifiers), "RULE-03-2.4"
    assert not any("momentum" in m.label.lower() for m in att.modifiers), "RULE-06-5.2"
    assert [m.value for m in dfn.modifiers if m.label == "Defending breastworks"] == [2], "RULE-03-2.4"
    assert "+ 5 stands" in dfn.text
    assert any("anchored on the works" in st.text and "RULE-03-2.4" in st.text for st in r.melee.steps)
    # a tie at the works repulses the charger with a stand lost (RULE-06-5.2)
    assert r.melee.outcome.value == "defender_wins" and r.battle.unit("va4").stands == 4, "RULE-06-5.2"


def test_rule_03_2_4_works_only_running_past_the_flank_do_not_anchor_it():
    b = _flank_position()
    straight = TerrainFeature(id="bw", type=TerrainType.BREASTWORKS, points=((20, 20.1), (45, 20.1)))
    past = b.with_feature(straight)
    assert not flank_anchored_on_works(past, "wis2", "left", T), "RULE-03-2.4"
    r = resolve_charge(past, Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([3, 3, 6]), T)
    att, dfn = r.melee.steps[0], r.melee.steps[1]
    assert any(m.label == "Flank attack" and m.value == 2 for m in att.modifiers)
    assert not any(m.label == "Defending breastworks" for m in dfn.modifiers)
    # the other flank, the works round it, or no works lined at all
    works = TerrainFeature(
        id="bw", type=TerrainType.BREASTWORKS, points=((20, 20.1), (34.1, 20.1), (34.1, 18.5))
    )
    anchored = b.with_feature(works)
    assert flank_anchored_on_works(anchored, "wis2", "left", T)
    assert not flank_anchored_on_works(anchored, "wis2", "right", T)
    far = b.with_feature(replace(works, points=((20, 21.0), (34.1, 21.0), (34.1, 18.5))))
    assert not flank_anchored_on_works(far, "wis2", "left", T), "RULE-03-2.4: the works must be lined"


def test_rule_04_5_4_refused_flank_makes_the_contact_frontal():
    b = with_brigade(_flank_position(), "wis2", staff_pips_reserved=1)
    r = resolve_charge(b, Charge("va4", "wis2", reaction=Reaction.REFUSE_FLANK), TableDice([3, 3]), T)
    att = r.melee.steps[0]
    assert not any(m.label == "Flank attack" for m in att.modifiers)
    assert any("refused its left flank" in s.text and "RULE-04-5.4" in s.text for s in r.melee.steps)


def test_rule_04_5_4_a_flank_charge_cannot_be_met_by_a_counter_charge():
    """The counter-charger surges forward to meet the charger head-on (RULE-04-5.4, RULE-04-5.5 (6.0)): a
    charge on its flank gets no counter-charge, so it can never be scored as a flank attack after one."""
    b = with_brigade(_flank_position(), "wis2", staff_pips_reserved=1)
    with pytest.raises(IllegalAction, match="RULE-04-5.4") as err:
        resolve_charge(b, Charge("va4", "wis2", reaction=Reaction.COUNTER_CHARGE), TableDice([3, 3]), T)
    assert "flank" in str(err.value)
    # the same defender may counter-charge the same charger coming at its front
    front = with_brigade(base(), "wis2", staff_pips_reserved=1)
    r = resolve_charge(front, Charge("va4", "wis2", reaction=Reaction.COUNTER_CHARGE), TableDice([3, 3]), T)
    assert r.approach.counter_charge
    assert not any(m.label == "Flank attack" for m in r.melee.steps[0].modifiers)


def test_rule_04_5_5_a_counter_charge_melee_is_frontal_whatever_the_path_said():
    b = with_brigade(_flank_position(), "wis2", staff_pips_reserved=1)
    path = plan_charge(b, "va4", "wis2", T)
    assert path.contact == Contact.FLANK
    assert melee_situation(b, path, T, counter_charge=True).contact == Contact.FRONT
    assert melee_situation(b, path, T).contact == Contact.FLANK


def test_rule_06_3_1_frontal_contact_front_edge_to_front_edge():
    r = resolve_charge(base(), Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([1, 6, 4]), T)
    # the Virginians lost and retreated 6" straight back from the point of contact (30, 20)
    va = r.battle.unit("va4")
    assert (va.x, va.y, va.facing_deg) == pytest.approx((30.0, 26.0, 0.0))
    contact = next(s for s in r.steps if s.rule == "RULE-06-3.1")
    assert "front edge to front edge" in contact.text


def _screen_battle() -> Battle:
    b = example_1()
    skirm = Unit(
        id="sk",
        name="Wisconsin skirmishers",
        side="usa",
        brigade="iron",
        kind=UnitKind.SKIRMISHERS,
        stands=1,
        stands_start=1,
        formation=Formation.SKIRMISH,
        parent="wis2",
        x=30.0,
        y=23.0,
        facing_deg=180.0,
    )
    return b.with_unit(skirm)


def test_rule_04_4_4_a_screen_that_does_not_evade_is_overrun_and_the_charge_goes_on():
    charge = Charge("va4", "sk", reaction=Reaction.NONE, then_reaction=Reaction.NONE)
    r = resolve_charge(_screen_battle(), charge, TableDice([3, 3]), T)
    assert r.battle.unit("sk").destroyed
    assert any(s.rule == "RULE-04-4.4" and "overrun" in s.text for s in r.steps)
    assert r.end == ChargeEnd.CONTACT and r.melee is not None and r.melee.defender == "wis2"
    # not slowed: the momentum of the whole charge (7" in the open) counts
    assert any(m.label.startswith("Charging momentum") for m in r.melee.steps[0].modifiers)


def test_rule_04_4_4_the_parent_behind_the_overrun_screen_may_fire_its_closing_volley():
    r = resolve_charge(
        _screen_battle(), Charge("va4", "sk", reaction=Reaction.NONE), TableDice([1, 1, 1, 1, 1, 3, 3]), T
    )
    assert r.approach.volley is not None and r.approach.volley.plan.firer.id == "wis2"


def test_rule_04_4_3_a_screen_evades_behind_its_parent_and_the_charge_goes_on():
    charge = Charge("va4", "sk", reaction=Reaction.EVADE, then_reaction=Reaction.NONE)
    r = resolve_charge(_screen_battle(), charge, TableDice([3, 3]), T)
    sk = r.battle.unit("sk")
    assert sk.in_play and sk.y < 20.0
    assert r.melee is not None and r.melee.defender == "wis2"


@pytest.mark.parametrize(
    "why",
    [
        {"markers": frozenset({Marker.SMOKE})},
        {"markers": frozenset({Marker.DISORDER})},
        {"facing_deg": 0.0},  # faces away: the charger is out of its forward arc
    ],
)
def test_rule_04_4_4_a_parent_that_cannot_fire_is_not_made_to_fire_and_the_charge_goes_on(why):
    """The parent behind the screen "may now execute Reaction 1": with Smoke, Disordered or the
    charger out of its arc it may not, and the charge goes on into it without a volley."""
    from rules.actions import resolve
    from rules.assault.actions import ChargeApproach
    from rules.assault.charge import behind_the_screen, default_reaction

    b = _screen_battle()
    b = b.with_unit(replace(b.unit("wis2"), **why))
    for reaction in (Reaction.NONE, Reaction.EVADE):
        at = behind_the_screen(b, Charge("va4", "sk", reaction=reaction), T)
        assert at is not None and at.path.target == "wis2" and at.early is None
        assert default_reaction(at, T) == Reaction.NONE
        r = resolve_charge(b, Charge("va4", "sk", reaction=reaction), TableDice([3, 3]), T)
        assert r.approach.volley is None and r.melee is not None and r.melee.defender == "wis2"
    out = resolve(b, ChargeApproach("va4", "sk", reaction="none"), TableDice([]), T)
    assert out.battle.unit("sk").destroyed and out.battle.unit("wis2").has(Marker.ENGAGED)
    # a volley chosen for it all the same is refused with the reason, not played
    with pytest.raises(IllegalAction, match="cannot take Closing Defensive Volley"):
        resolve(
            b, ChargeApproach("va4", "sk", reaction="none", then_reaction="closing_volley"), TableDice([]), T
        )


def test_rule_04_4_4_the_parent_that_can_fire_fires_by_default_and_may_choose_otherwise():
    from rules.assault.charge import behind_the_screen, default_reaction

    b = _screen_battle()
    at = behind_the_screen(b, Charge("va4", "sk", reaction=Reaction.NONE), T)
    assert default_reaction(at, T) == Reaction.CLOSING_VOLLEY
    r = resolve_charge(
        b, Charge("va4", "sk", reaction=Reaction.NONE, then_reaction=Reaction.NONE), TableDice([3, 3]), T
    )
    assert r.approach.volley is None and r.melee.defender == "wis2"


def test_behind_the_screen_is_none_for_a_formed_target():
    from rules.assault.charge import behind_the_screen

    assert behind_the_screen(base(), Charge("va4", "wis2"), T) is None


def test_a_screen_whose_parent_is_gone_is_overrun_and_the_charge_ends():
    b = _screen_battle()
    b = b.with_unit(replace(b.unit("wis2"), stands=0))
    r = resolve_charge(b, Charge("va4", "sk", reaction=Reaction.NONE), TableDice([]), T)
    assert r.end == ChargeEnd.OVERRUN and r.battle.unit("sk").destroyed and r.melee is None


def test_defender_obstacle_touching_the_front_edge():
    b = example_1()
    wall = TerrainFeature(id="w", type=TerrainType.STONE_WALL, points=((20, 19.8), (40, 19.8)))
    assert defender_obstacle(b.with_feature(wall), "wis2", T) == TerrainType.STONE_WALL
    far = replace(wall, points=((20, 19.0), (40, 19.0)))
    assert defender_obstacle(b.with_feature(far), "wis2", T) is None
    hedge = TerrainFeature(id="h", type=TerrainType.HEDGE, points=((20, 20.0), (40, 20.0)))
    assert defender_obstacle(b.with_feature(hedge), "wis2", T) == TerrainType.HEDGE
    both = b.with_feature(hedge).with_feature(replace(wall, points=((20, 20.1), (40, 20.1))))
    assert defender_obstacle(both, "wis2", T) == TerrainType.STONE_WALL


def test_an_obstacle_the_charger_crosses_costs_its_crossing():
    fence = TerrainFeature(id="f", type=TerrainType.SPLIT_RAIL_FENCE, points=((20, 24.0), (40, 24.0)))
    p = plan_charge(base().with_feature(fence), "va4", "wis2", T)
    assert p.allowance_in == pytest.approx(7.0)


def test_rule_03_4_2_crestline_defender_and_uphill_charger():
    b = example_1()
    hill = TerrainFeature(
        id="ridge",
        type=TerrainType.HILL,
        level=1,
        points=((10, 10.0), (50, 10.0), (50, 21.0), (10, 21.0)),
        crest=((10, 20.0), (50, 20.0)),
    )
    b = b.with_feature(hill)
    r = resolve_charge(b, Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([3, 3]), T)
    att, dfn = r.melee.steps[0], r.melee.steps[1]
    assert any(m.label == "Charging uphill against a crestline" for m in att.modifiers)
    assert any(m.label == "On the crestline" for m in dfn.modifiers)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    y=st.floats(24.5, 29.0),
    reaction=st.sampled_from([Reaction.CLOSING_VOLLEY, Reaction.NONE]),
)
def test_a_charge_is_a_pure_function_of_state_inputs_and_dice(seed, y, reaction):
    b = base(va_y=y)
    before = b.to_dict()
    r1 = resolve_charge(b, Charge("va4", "wis2", reaction=reaction), SeededDice(seed), T)
    r2 = resolve_charge(b, Charge("va4", "wis2", reaction=reaction), SeededDice(seed), T)
    assert b.to_dict() == before
    assert r1.battle.to_dict() == r2.battle.to_dict() and r1.steps == r2.steps


def test_charge_action_round_trips_and_resolves_example_1():
    from rules.actions import Action, resolve
    from rules.assault.actions import ChargeAction

    a = ChargeAction(attacker_id="va4", target_id="wis2")
    assert Action.from_dict(a.to_dict()) == a
    out = resolve(base(), a, TableDice([2, 4, 1, 6, 5, 5, 5, 3, 4]), T)
    assert "attacker wins (11 to 9)" in out.summary
    assert out.battle.unit("wis2").stands == 4
    assert [r.purpose for r in out.rolls][-1] == "leader loss roll"


def test_one_window_b_threat_for_a_declared_charge_and_for_the_windows_of_its_path():
    """assault.window_b_threat and triggers.find_windows measure the same threat (distance, arc,
    flank, open ground), with or without a fence across the ground between them."""
    from rules.assault.charge import to_the_line, window_b_threat
    from rules.reactions.triggers import find_windows

    fence = TerrainFeature(id="f", type=TerrainType.SPLIT_RAIL_FENCE, points=((20, 24.5), (40, 24.5)))
    for b in (base(), base().with_feature(fence), _flank_position()):
        at = to_the_line(b, Charge("va4", "wis2"), T)
        mine = window_b_threat(at, T)
        declared, _ = declare_charge(b, "va4", "wis2", T)
        va = declared.unit("va4")  # pivoted onto its charge line, as the charge moves it
        declared = declared.with_unit(va.moved_to(va.x, va.y, at.path.bearing_deg))
        (w,) = find_windows(declared, "va4", [at.path.start, at.path.aim], T, charge_target="wis2")
        theirs = w.defenders[0].threat
        assert mine.distance_in == pytest.approx(theirs.distance_in, abs=1e-6)
        assert (mine.flank, mine.open_ground, mine.in_forward_arc, mine.enfilade) == (
            theirs.flank,
            theirs.open_ground,
            theirs.in_forward_arc,
            theirs.enfilade,
        )
    at = to_the_line(base().with_feature(fence), Charge("va4", "wis2"), T)
    assert not window_b_threat(at, T).open_ground


def test_rule_06_3_3_a_grassy_slope_is_open_ground_for_momentum_and_for_a_counter_charge():
    from rules.assault.charge import to_the_line, window_b_threat

    hill = TerrainFeature(
        id="slope", type=TerrainType.HILL, level=1, points=((10, 10.0), (50, 10.0), (50, 35.0), (10, 35.0))
    )
    b = with_brigade(base().with_feature(hill), "wis2", staff_pips_reserved=1)
    p = plan_charge(b, "va4", "wis2", T)
    assert p.open_ground_in == pytest.approx(p.distance_in)  # 7" across the slope: momentum
    at = to_the_line(b, Charge("va4", "wis2"), T)
    assert window_b_threat(at, T).open_ground
    r = resolve_charge(b, Charge("va4", "wis2", reaction=Reaction.COUNTER_CHARGE), TableDice([3, 3]), T)
    assert r.approach.counter_charge


def test_rule_03_3_4_assaulting_a_garrisoned_building():
    b = example_1()
    house = TerrainFeature(
        id="farm", type=TerrainType.BUILDING, points=((28, 17.0), (32, 17.0), (32, 20.5), (28, 20.5))
    )
    wi = replace(b.unit("wis2"), stands=2, stands_start=2)
    b = b.with_feature(house).with_unit(wi)
    assert defender_obstacle(b, "wis2", T) is None  # not garrisoned: the house does not fight for it
    b = b.with_unit(wi.with_markers(add=[Marker.GARRISONED]))
    assert defender_obstacle(b, "wis2", T) == TerrainType.BUILDING
    r = resolve_charge(b, Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([2, 6, 4]), T)
    dfn = r.melee.steps[1]
    assert any(m.label == "Defending building" and m.value == 2 for m in dfn.modifiers)
    assert r.melee.outcome.value == "defender_wins"
    assert any(s.rule == "RULE-03-3.4" for s in r.steps)


def test_rule_06_3_3_a_defender_standing_in_rubble_gets_the_matrix_plus_1():
    b = example_1()
    rubble = TerrainFeature(
        id="ruin", type=TerrainType.RUBBLE, points=((26, 17.0), (34, 17.0), (34, 20.5), (26, 20.5))
    )
    assert defender_obstacle(b, "wis2", T) is None
    b = b.with_feature(rubble)
    assert defender_obstacle(b, "wis2", T) == TerrainType.RUBBLE
    r = resolve_charge(b, Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([3, 3]), T)
    dfn = r.melee.steps[1]
    assert [m.value for m in dfn.modifiers if m.label == "Defending rubble"] == [1]


# -- Phase 2 only: the charge to contact, the melee left for Phase 4 (RULE-06-1.1) ----------------


def test_rule_06_1_1_charge_approach_round_trips_and_ends_at_contact():
    from rules.actions import Action, resolve
    from rules.assault.actions import ChargeApproach
    from rules.melee.melee import pending_melees

    a = ChargeApproach(attacker_id="va4", target_id="wis2", reaction="none")
    assert Action.from_dict(a.to_dict()) == a
    out = resolve(base(), a, TableDice([]), T)  # no reaction: no dice at all in Phase 2
    assert out.rolls == ()
    (pm,) = pending_melees(out.battle)
    assert (pm.attacker, pm.defender, pm.situation.momentum_in) == ("va4", "wis2", 7.0)
    va, wi = out.battle.unit("va4"), out.battle.unit("wis2")
    assert va.has(Marker.ENGAGED) and wi.has(Marker.ENGAGED) and va.y == pytest.approx(20.0)
    assert out.battle.phase == Phase.MANEUVER and wi.stands == 5


def test_rule_06_2_5_a_stalled_charge_leaves_no_melee_and_rolls_leader_loss_in_phase_2():
    from rules.actions import resolve
    from rules.assault.actions import ChargeApproach
    from rules.melee.melee import pending_melees

    # the volley takes a stand and disorders; the check fails (2 < 3): the charge stalls 2.0" away
    out = resolve(base(), ChargeApproach("va4", "wis2"), TableDice([2, 4, 1, 6, 5, 2, 4]), T)
    assert "stalled" in out.summary and pending_melees(out.battle) == ()
    assert not out.battle.unit("va4").has(Marker.ENGAGED)
    assert [r.purpose for r in out.rolls] == ["closing volley", "discipline check", "leader loss roll"]


def test_rule_06_1_1_the_approach_records_the_counter_charge_for_the_melee():
    from rules.actions import resolve
    from rules.assault.actions import ChargeApproach
    from rules.melee.melee import pending_melees

    b = with_brigade(base(), "wis2", staff_pips_reserved=1)
    out = resolve(
        b, ChargeApproach("va4", "wis2", reaction="counter_charge", counter_charge_in=2.5), TableDice([]), T
    )
    (pm,) = pending_melees(out.battle)
    assert pm.situation.counter_charge


def test_rule_06_1_1_charge_approach_is_declared_in_phase_2_only():
    from rules.actions import resolve
    from rules.assault.actions import ChargeApproach

    with pytest.raises(IllegalAction, match="Phase 2") as exc:
        resolve(replace(base(), phase=Phase.MELEE), ChargeApproach("va4", "wis2"), TableDice([]), T)
    assert exc.value.rule == "RULE-06-1.1"
    with pytest.raises(IllegalAction):
        resolve(base(), ChargeApproach("va4", 7), TableDice([]), T)


def test_rule_06_4_2_the_one_step_charge_action_leaves_a_tie_pending_for_the_next_turn():
    from rules.actions import resolve
    from rules.assault.actions import ChargeAction
    from rules.melee.melee import pending_melees

    # no reaction; 7.0" charge: 3 + 5 + 1 fresh + 1 momentum + 1 yell + 1 brigadier = 12 ; 6 + 5 + 1 = 12
    out = resolve(base(), ChargeAction("va4", "wis2", reaction="none"), TableDice([3, 6]), T)
    assert "tie" in out.summary
    (pm,) = pending_melees(out.battle)
    assert pm.locked and pm.due_turn == 2


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    y=st.floats(24.5, 29.0),
    reaction=st.sampled_from([Reaction.CLOSING_VOLLEY, Reaction.NONE]),
)
def test_rule_06_1_1_phase_2_then_phase_4_ends_as_the_whole_charge_at_once(seed, y, reaction):
    """The charge in two phases, with the same dice, leaves the units as the one-step charge does."""
    from rules.actions import resolve
    from rules.assault.actions import ChargeApproach
    from rules.melee.melee import ResolvePendingMelee, pending_melees

    b = base(va_y=y)
    one = SeededDice(seed)
    whole = resolve_charge(b, Charge("va4", "wis2", reaction=reaction), one, T)
    dice = SeededDice(seed)
    p2 = resolve(b, ChargeApproach("va4", "wis2", reaction=reaction.value), dice, T)
    after = p2.battle
    if whole.end == ChargeEnd.CONTACT:
        (pm,) = pending_melees(after)
        after = resolve(replace(after, phase=Phase.MELEE), ResolvePendingMelee(pm.id), dice, T).battle
    else:
        assert pending_melees(after) == ()
    # the same dice for the same purposes, in the same order
    assert [(r.purpose, r.dice) for r in dice.rolls] == [(r.purpose, r.dice) for r in one.rolls]
    for uid in ("va4", "wis2"):
        assert after.unit(uid).to_dict() == whole.battle.unit(uid).to_dict()
    assert after.brigades == whole.battle.brigades
    tied = whole.melee is not None and whole.melee.outcome.value == "tie"
    assert bool(pending_melees(after)) == tied
