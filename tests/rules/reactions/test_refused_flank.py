"""Refuse the Flank is one flank (chapter 04, 5.0).

"The defending regiment wheels its outer 1 or 2 flank stands backward up to 45° ... The center
Color Stand and opposite flank stands remain anchored in their original alignment" (RULE-04-5.3),
and it is "Firing against the refused flank" and "An incoming enemy charge targeting the refused
flank" that lose the enfilade and the +2 (RULE-04-5.4). Each flank is refused by its own reaction;
how many stands wheel and how long the refusal stands are club readings, stated in the tables.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.action_base import Action
from rules.actions import ChangeFormation, MoveUnit, NextPhase, resolve
from rules.assault.actions import ChargeApproach, resolve_charge
from rules.assault.charge import Charge, Reaction
from rules.battle.melee_situation import MeleeSituation
from rules.battle.unit import refused_flanks
from rules.battle.words import Formation, Marker, Phase
from rules.battlefield.geometry import footprint, wheeled_stand_corners
from rules.dice import TableDice
from rules.melee.melee import Contact
from rules.melee.score import shock_sides
from rules.reactions.declare import DeclareReaction, Threat, Window, option, refuse_the_flank
from rules.reactions.declare import Reaction as R
from rules.reactions.refused_flank import how_long, stands_wheeled
from rules.shooting.shoot import measure_volley
from rules.shooting.volleys import plan_volley
from tests.rules.assault.test_assault import _flank_position, with_brigade
from tests.rules.reactions.test_examples_ch04 import T, example_b

RF = " (Refuse the Flank, 5.0)"


def refused(b, side: str, attacker="nc28", defender="ind19"):
    """``defender`` refuses its ``side`` flank against ``attacker`` with its reserved pip."""
    t = Threat(Window.A, attacker, defender, 5.0, in_forward_arc=False, flank=side)
    return refuse_the_flank(b, t, TableDice([]), T).battle


def firing_from(b, x, y, facing):
    return b.with_unit(b.unit("nc28").moved_to(x, y, facing))


# -- fire ----------------------------------------------------------------------------------------


def test_rule_04_5_4_a_refused_right_flank_is_still_enfiladed_on_its_left():
    """Example B's 19th Indiana refuses its right flank. Fire raking its right is frontal (no +1);
    fire raking its left, whose "opposite flank stands remain anchored" (RULE-04-5.3), still gets
    the +1 enfilade of RULE-03-5.7."""
    b = refused(example_b(), "right")
    assert refused_flanks(b.unit("ind19")) == {"right"}
    right = firing_from(b, 38, 31, 270)
    left = firing_from(b, 22, 31, 90)
    v_right = measure_volley(right, "nc28", "ind19", T)
    v_left = measure_volley(left, "nc28", "ind19", T)
    assert (v_right.enfilade_side, v_left.enfilade_side) == ("right", "left")
    p_right, p_left = plan_volley(right, v_right, T), plan_volley(left, v_left, T)
    assert p_right.to_hit_modifiers == () and p_right.to_hit == 4
    assert any("refused its right flank" in n.text and n.rule == "RULE-04-5.4" for n in p_right.notes)
    assert [(m.label, m.value, m.rule) for m in p_left.to_hit_modifiers] == [("enfilade", 1, "RULE-03-5.7")]
    assert p_left.to_hit == 3 and p_left.notes == ()


def test_a_volley_saved_without_its_side_is_denied_by_any_refused_flank_as_it_was():
    b = firing_from(refused(example_b(), "right"), 22, 31, 90)
    old = Action.from_dict(
        {"type": "shoot", "firer_id": "nc28", "target_id": "ind19", "distance_in": 8.0, "enfilade": True}
    )
    assert old.enfilade_side is None
    assert plan_volley(b, old.volley(), T).to_hit_modifiers == ()


# -- charges -------------------------------------------------------------------------------------


def _wis_refused(side: str):
    """Example 1's 2nd Wisconsin (facing south) with its ``side`` flank refused."""
    b = _flank_position()
    return b.with_unit(
        b.unit("wis2").with_markers(add=[{"left": Marker.REFUSED_LEFT, "right": Marker.REFUSED_RIGHT}[side]])
    )


def test_rule_04_5_4_a_charge_into_the_flank_not_refused_keeps_its_plus_2_and_counts_as_flank():
    """The Virginians come in from the east, on the Wisconsin's left; its right is the one refused."""
    b = _wis_refused("right")
    r = resolve_charge(b, Charge("va4", "wis2", reaction=Reaction.NONE), TableDice([3, 3]), T)
    assert r.approach.path.contact == Contact.FLANK and r.approach.path.flank_side == "left"
    att, dfn = r.melee.steps[0], r.melee.steps[1]
    assert any(m.label == "Flank attack" and m.value == 2 and m.rule == "RULE-06-3.3" for m in att.modifiers)
    assert "1 stand contacted in the flank" in dfn.text  # a flank attack counts the contacted stands


def test_rule_04_5_4_a_charge_into_the_refused_flank_meets_the_angled_stands_frontally():
    """The same charge against a Wisconsin that refused its left flank at Window B (RULE-06-2.2):
    no +2, and the defender counts "the outer 1 or 2 flank stands" it wheeled (RULE-04-5.3) with
    the overlap of a frontal clash (RULE-06-3.4), not its whole front."""
    b = with_brigade(_flank_position(), "wis2", staff_pips_reserved=1)
    r = resolve_charge(b, Charge("va4", "wis2", reaction=Reaction.REFUSE_FLANK), TableDice([3, 3]), T)
    assert refused_flanks(r.approach.battle.unit("wis2")) == {"left"}
    situation = MeleeSituation("va4", "wis2", contact=Contact.FLANK, refused_flank=True, flank_side="left")
    sa, sd, notes = shock_sides(r.approach.battle, situation, T)
    assert not any(m.label == "Flank attack" for m in sa.modifiers)
    assert any("refused its left flank" in n and "RULE-04-5.4" in n for n in notes)
    wis = r.approach.battle.unit("wis2")
    assert stands_wheeled(wis, T) == 2 and wis.stands == 5
    # 2 angled stands in contact, the stand of the anchored line they hinge on overlapping: 3 of 5
    assert (
        sd.engaged == 3
        and "2 angled stands of the refused flank in contact + 1 overlapping" in sd.engaged_text
    )
    # the attacker meets a front of 2 stands: 2 in contact and 1 overlapping on each wing
    assert sa.engaged == 4
    # the melee as fought in the charge counts the same
    dfn = r.melee.steps[1]
    assert "2 angled stands" in dfn.text


def test_a_melee_recorded_without_its_flank_side_counts_any_refusal_and_the_whole_front_as_it_did():
    b = _wis_refused("right")
    old = MeleeSituation("va4", "wis2", contact=Contact.FLANK)  # no side: saved before it was recorded
    sa, sd, _ = shock_sides(b, old, T)
    assert not any(m.label == "Flank attack" for m in sa.modifiers)
    assert sd.engaged == 5


# -- both flanks, each by its own reaction ----------------------------------------------------------


def test_rule_04_5_3_each_flank_is_refused_by_its_own_reaction_with_its_own_pip_or_check():
    b = example_b()  # the Union has 1 reserved pip
    right = Threat(Window.A, "nc28", "ind19", 5.0, in_forward_arc=False, flank="right")
    out = refuse_the_flank(b, right, TableDice([]), T)
    assert out.pip_spent and out.battle.brigade_of("ind19").staff_pips_reserved == 0
    # a second threat, by another regiment, on the same flank: refused with the rule (it is refused)
    b2 = out.battle.with_unit(replace(out.battle.unit("nc28"), id="nc26", name="26th North Carolina"))
    again = option(b2, R.REFUSE_FLANK, replace(right, attacker="nc26"), T)
    assert [(r.rule, r.text) for r in again.reasons] == [
        ("RULE-04-5.3" + RF, "19th Indiana has already refused its right flank")
    ]
    # a second threat, on the other flank, by another regiment: its own reaction, here its 4+ check
    left = Threat(Window.A, "nc26", "ind19", 5.0, in_forward_arc=False, flank="left")
    opt = option(b2, R.REFUSE_FLANK, left, T)
    assert opt.eligible and opt.cost.kind == "discipline_check" and opt.cost.check == 4
    both = refuse_the_flank(b2, left, TableDice([4]), T)
    assert both.success and both.check_roll == 4
    ind = both.battle.unit("ind19")
    assert ind.has(Marker.REFUSED_LEFT) and ind.has(Marker.REFUSED_RIGHT)
    assert refused_flanks(ind) == {"left", "right"}


def test_a_refusal_saved_before_its_side_was_recorded_reads_as_both_flanks_as_it_was_played():
    b = example_b()
    t = Threat(Window.A, "nc28", "ind19", 5.0, in_forward_arc=False, flank="right")
    new = DeclareReaction.of(R.REFUSE_FLANK, t)
    old = Action.from_dict(
        {k: v for k, v in new.to_dict().items() if k not in ("sided_flanks", "evade_path")}
    )
    assert new.sided_flanks and not old.sided_flanks
    from rules.battle.words import Phase as P

    bb = replace(b, phase=P.MANEUVER)
    assert resolve(bb, new, TableDice([]), T).battle_after.unit("ind19").markers == {Marker.REFUSED_RIGHT}
    assert resolve(bb, old, TableDice([]), T).battle_after.unit("ind19").markers == {Marker.REFUSED_FLANK}
    assert refused_flanks(resolve(bb, old, TableDice([]), T).battle_after.unit("ind19")) == {"left", "right"}
    # a charge saved so reads the same way
    charge = ChargeApproach("va4", "wis2", reaction="refuse_flank")
    old_charge = Action.from_dict(
        {k: v for k, v in charge.to_dict().items() if k not in ("sided_flanks", "evade_path")}
    )
    assert charge.charge().sided_flanks and not old_charge.charge().sided_flanks


# -- how long it lasts: a club default --------------------------------------------------------------


def test_how_long_a_refusal_lasts_is_a_club_default_stated_in_the_tables():
    e = T.entry("movement.refused_flank.lasts")
    assert (e.value, e.club_default, e.rule) == ("moves", True, None)
    assert "does not say how long" in e.reason
    assert how_long(T) == "until the regiment next moves or changes formation (club default)"
    w = T.entry("movement.refused_flank.stands_wheeled")
    assert (w.value, w.club_default) == (2, True) and "1 or 2" in w.reason


def _refused_in_its_own_turn():
    """The 19th Indiana refused its right flank in the Confederate turn; now it is the Union's Phase 2."""
    b = refused(example_b(), "right")
    return replace(b, active_side="union", phase=Phase.MANEUVER)


def test_with_the_club_default_a_refusal_ends_when_the_regiment_moves():
    b = _refused_in_its_own_turn()
    res = resolve(b, MoveUnit("ind19", 30, 28, mode="march"), TableDice([]), T)
    assert refused_flanks(res.battle_after.unit("ind19")) == frozenset()
    (step,) = [s for s in res.steps if "refused right flank is at an end" in s.text]
    assert "club default" in step.text and step.rule == "club default"
    # a regiment that does not move keeps it
    stay = resolve(b, MoveUnit("nc28", 40, 20, mode="place", reason="test"), TableDice([]), T)
    assert refused_flanks(stay.battle_after.unit("ind19")) == {"right"}


def test_with_the_club_default_a_refusal_ends_when_the_regiment_changes_formation():
    b = _refused_in_its_own_turn()
    res = resolve(b, ChangeFormation("ind19", Formation.ASSAULT_COLUMN.value), TableDice([]), T)
    assert not refused_flanks(res.battle_after.unit("ind19"))


@pytest.mark.parametrize("lasts, kept_after_turn", [("turn", False), ("hand", True), ("moves", True)])
def test_a_club_may_make_a_refusal_lapse_at_the_end_of_the_turn_or_keep_it_until_removed(
    lasts, kept_after_turn
):
    t = T.with_values({"movement.refused_flank.lasts": lasts})
    b = replace(refused(example_b(), "right"), phase=Phase.MELEE)  # the Confederate turn it was refused in
    after = resolve(b, NextPhase(), TableDice([]), t)
    assert bool(refused_flanks(after.battle_after.unit("ind19"))) == kept_after_turn
    assert any("lapses at the end of the turn" in s.text for s in after.steps) == (not kept_after_turn)
    if lasts == "hand":  # and a move does not end it either
        moved = resolve(_refused_in_its_own_turn(), MoveUnit("ind19", 30, 28, mode="march"), TableDice([]), t)
        assert refused_flanks(moved.battle_after.unit("ind19")) == {"right"}


def test_the_umpires_edit_of_a_unit_does_not_end_its_refusal():
    from rules.actions import Override

    b = _refused_in_its_own_turn()
    res = resolve(b, Override("unit", "ind19", {"x": 31.0}, "measured again"), TableDice([]), T)
    assert refused_flanks(res.battle_after.unit("ind19")) == {"right"}


# -- on the map -----------------------------------------------------------------------------------


def test_rule_04_5_3_the_refused_stands_are_drawn_wheeled_back_on_the_refused_side():
    ind = example_b().unit("ind19")  # facing north, its right is +x
    fp = footprint(ind, T)
    right = wheeled_stand_corners(fp, "right", 2, 45.0)
    left = wheeled_stand_corners(fp, "left", 2, 45.0)
    # the outer two stands of the right wheel back (to the rear, +y); the others stay as they were
    assert right[:3] == fp.stand_corners[:3] and right[3:] != fp.stand_corners[3:]
    assert all(p[1] > 30.0 for c in right[3:] for p in c[1:3])
    # the hinge, where the shoulder meets the anchored line, does not move
    assert right[3][0] == fp.stand_corners[3][0]
    # the outermost stand's front edge now faces 45 degrees out to the right
    (x0, y0), (x1, y1) = right[4][0], right[4][1]
    assert x1 - x0 == pytest.approx(y1 - y0)
    assert left[2:] == fp.stand_corners[2:] and all(p[1] > 30.0 for c in left[:2] for p in c[0:1])
