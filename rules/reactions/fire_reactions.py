"""Reactions 1 and 2 of chapter 04: the Closing Defensive Volley at a charger halted at the 4.0"
line, with the charger's pre-contact Discipline Check, and Opportunity Fire at a mover paused in
its move. Both fire one volley (:func:`rules.shooting.volleys.resolve_volley`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.words import Marker
from rules.battlefield.marches import mark_stalled, scale_remaining_move
from rules.dice import DiceSource
from rules.reactions.options import Reaction, Threat, _inches, require
from rules.reactions.outcomes import ReactionOutcome, ahead, charge_discipline_check, records_reaction
from rules.shooting.volleys import CoverClass, FireKind, Volley, VolleyOutcome, resolve_volley
from rules.tables import RuleTables


@dataclass(frozen=True)
class ClosingVolleyOutcome(ReactionOutcome):
    volley: VolleyOutcome | None = None
    check_taken: bool = False
    check_roll: int | None = None
    check_needed: int | None = None
    contact: bool = False  # the charger closes into contact (Phase 4 melee follows)
    stalled: bool = False  # the charger halted 2.0" away, Disordered, no further move this turn


@dataclass(frozen=True)
class OpportunityFireOutcome(ReactionOutcome):
    volley: VolleyOutcome | None = None
    remaining_move_factor: float = 1.0  # what the mover's remaining movement is multiplied by

    def remaining_move_in(self, remaining_in: float) -> float:
        return remaining_in * self.remaining_move_factor


# -- 1 Closing Defensive Volley ------------------------------------------------------------------


def _reaction_volley(
    battle: Battle,
    threat: Threat,
    kind: FireKind,
    dice: DiceSource,
    tables: RuleTables,
    cover: CoverClass,
    fence_cover: bool,
    clear_stands: int | None,
) -> VolleyOutcome:
    """The defender's volley at the threatening unit, as a reaction of the given kind."""
    volley = Volley(
        threat.defender,
        threat.attacker,
        threat.distance_in,
        kind=kind,
        clear_stands=clear_stands,
        enfilade=threat.enfilade,
        enfilade_side=threat.enfilade_side,
        cover=cover,
        fence_cover=fence_cover,
    )
    return resolve_volley(battle, volley, dice, tables)


@records_reaction
def closing_volley(
    battle: Battle,
    threat: Threat,
    dice: DiceSource,
    tables: RuleTables,
    *,
    cover: CoverClass = CoverClass.NONE,
    fence_cover: bool = False,
    clear_stands: int | None = None,
) -> ClosingVolleyOutcome:
    """Reaction 1 (RULE-04-2.1, RULE-04-2.2, RULE-04-2.3, RULE-04-2.4, RULE-04-2.5, RULE-04-2.6,
    RULE-06-2.3, RULE-06-2.4, RULE-06-2.5).

    The defender fires its short-range volley at the charger halted at the 4.0" line. If the volley
    removes a stand or disorders the charger, the charger takes its Discipline Check: a pass closes
    into contact, a failure stalls it 2.0" from the defender, Disordered, unable to move or attack
    further this turn. The charger stalls straight ahead along its charge line (RULE-06-1.4).
    """
    require(battle, Reaction.CLOSING_VOLLEY, threat, tables)
    d, a = battle.unit(threat.defender), battle.unit(threat.attacker)
    steps = [
        Step(
            f'{a.name} halts at the {tables.value("melee.charge.window_b_in"):g}" line: '
            f"{d.name} declares a Closing Defensive Volley (free)",
            rule="RULE-04-2.3",
            units=(d.id, a.id),
        )
    ]
    vol = _reaction_volley(
        battle, threat, FireKind.CLOSING_VOLLEY, dice, tables, cover, fence_cover, clear_stands
    )
    steps += vol.steps
    after = vol.battle
    charger = after.unit(a.id)
    common = dict(reaction=Reaction.CLOSING_VOLLEY, defender=d.id, attacker=a.id, volley=vol)
    if vol.target_destroyed:
        steps.append(Step(f"{a.name} is destroyed; the charge is over", units=(a.id,)))
        return ClosingVolleyOutcome(battle=after, steps=tuple(steps), **common)
    if not (vol.stands_lost or vol.disorder_inflicted):
        steps.append(
            Step(
                f"No stand lost and no Disorder: {a.name} closes into contact without a check",
                rule="RULE-06-2.4",
                units=(a.id,),
            )
        )
        return ClosingVolleyOutcome(battle=after, steps=tuple(steps), contact=True, **common)
    needed = tables.discipline(charger.quality.value).value
    passed, roll, step = charge_discipline_check(after, a.id, dice, tables)
    steps.append(step)
    if passed:
        steps.append(
            Step(
                f"{a.name} steadies and closes the remaining distance into contact; melee in Phase 4",
                rule="RULE-06-2.5",
                units=(a.id, d.id),
            )
        )
        return ClosingVolleyOutcome(
            battle=after,
            steps=tuple(steps),
            check_taken=True,
            check_roll=roll,
            check_needed=needed,
            contact=True,
            **common,
        )
    stall = tables.entry("melee.charge.stall_in")
    advance = max(threat.distance_in - stall.value, 0.0)
    x, y = ahead(charger, advance)
    stalled = charger.moved_to(x, y).with_markers(add=[Marker.DISORDER])
    after = mark_stalled(after.with_unit(stalled), a.id)
    steps.append(
        Step(
            f'The charge stalls: {a.name} halts {stall.value:g}" from {d.name}, Disordered, '
            f"and cannot move or attack further this turn ({stalled.stands} stands)",
            rule=stall.citation,
            units=(a.id,),
        )
    )
    return ClosingVolleyOutcome(
        battle=after,
        steps=tuple(steps),
        check_taken=True,
        check_roll=roll,
        check_needed=needed,
        stalled=True,
        **common,
    )


# -- 2 Opportunity Fire --------------------------------------------------------------------------


@records_reaction
def opportunity_fire(
    battle: Battle,
    threat: Threat,
    dice: DiceSource,
    tables: RuleTables,
    *,
    cover: CoverClass = CoverClass.NONE,
    fence_cover: bool = False,
    clear_stands: int | None = None,
) -> OpportunityFireOutcome:
    """Reaction 2 (RULE-04-3.1, RULE-04-3.2, RULE-04-3.3, RULE-04-3.4, RULE-04-3.5): the mover is
    paused, fired on at short or medium range (a road column saves at -2), and the firer is marked
    with Smoke and Fired. A mover disordered by a natural 6 has its remaining movement halved
    (``remaining_move_factor``)."""
    require(battle, Reaction.OPPORTUNITY_FIRE, threat, tables)
    d, a = battle.unit(threat.defender), battle.unit(threat.attacker)
    steps = [
        Step(
            f'"Opportunity Fire!" {a.name}\'s move is paused {_inches(threat.distance_in)}" '
            f"from {d.name} (free)",
            rule="RULE-04-3.3",
            units=(d.id, a.id),
        )
    ]
    vol = _reaction_volley(
        battle, threat, FireKind.OPPORTUNITY_FIRE, dice, tables, cover, fence_cover, clear_stands
    )
    steps += vol.steps
    factor = 1.0
    if vol.natural_sixes and not vol.target_destroyed:
        e = tables.entry("movement.trigger.remaining_move_after_disorder")
        factor = float(e.value)
        steps.append(
            Step(
                f"{a.name} was disordered by a natural 6: its remaining movement is multiplied by {factor:g}",
                rule=e.citation,
                units=(a.id,),
            )
        )
    elif not vol.target_destroyed:
        steps.append(
            Step(
                f"{a.name} resumes its move from the point of interruption", rule="RULE-04-3.5", units=(a.id,)
            )
        )
    return OpportunityFireOutcome(
        reaction=Reaction.OPPORTUNITY_FIRE,
        defender=d.id,
        attacker=a.id,
        battle=scale_remaining_move(vol.battle, a.id, factor, tables),
        steps=tuple(steps),
        volley=vol,
        remaining_move_factor=factor,
    )
