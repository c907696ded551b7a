"""The assault's actions: :class:`ChargeApproach`, an assault's Phase 2 carried to a stall, a halt
or contact, leaving the melee for Phase 4 (RULE-06-1.1), and :class:`ChargeAction`, the one-step
assault kept for the saves that hold it (:func:`resolve_charge`: the approach of
:mod:`rules.assault.charge` and the melee straight after).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.action_base import Action, Resolved, action_type, added_field, resolver
from rules.assault.charge import (
    Approach,
    Charge,
    ChargeEnd,
    ChargeReaction,
    approach,
    charge_to_contact,
    fight,
)
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.dice import DiceSource
from rules.errors import IllegalAction, InvariantError
from rules.melee.melee import Consolidation, Contact, MeleeResult, settle_melee
from rules.tables import RuleTables


@dataclass(frozen=True)
class ChargeResult:
    battle: Battle
    steps: tuple[Step, ...]
    approach: Approach
    melee: MeleeResult | None = None

    @property
    def end(self) -> ChargeEnd:
        return self.approach.end


def resolve_charge(battle: Battle, charge: Charge, dice: DiceSource, tables: RuleTables) -> ChargeResult:
    """A whole assault, from declaration to the melee's aftermath and the Leader Loss rolls.

    Dice, in order: the closing volley, cover saves, the discipline check, then the attacker's and
    the defender's shock rolls and any leader loss rolls.
    """
    if not isinstance(charge, Charge):
        raise InvariantError("resolve_charge needs a Charge")
    ap = approach(battle, charge, dice, tables)
    after, steps, melee = fight(ap, dice, tables, charge)
    return ChargeResult(after, ap.steps + tuple(steps), ap, melee)


# -- the one-step assault -------------------------------------------------------------------------


def _declared_charge(
    a: ChargeAction | ChargeApproach,
    *,
    consolidation: Consolidation | None = None,
    then_reaction: str | None = None,
) -> Charge:
    """The :class:`Charge` an assault action declares, from the values both kinds of action hold."""
    return Charge(
        attacker=a.attacker_id,
        target=a.target_id,
        reaction=ChargeReaction.parse(a.reaction),
        contact=Contact.parse(a.contact) if a.contact else None,
        counter_charge_in=a.counter_charge_in,
        consolidation=consolidation,
        defender_on_crest=a.defender_on_crest,
        attacker_downhill_from_crest=a.attacker_downhill_from_crest,
        then_reaction=None if then_reaction is None else ChargeReaction.parse(then_reaction),
        evade_in=a.evade_in,
        sided_flanks=bool(a.sided_flanks),
        evade_path=bool(a.evade_path),
        occupy_guns=bool(getattr(a, "occupy_guns", True)),
    )


@action_type("charge")
@dataclass(frozen=True)
class ChargeAction(Action):
    """An assault, declared in Phase 2 and fought to its end in one step (see :class:`Charge`).

    Saves made before assaults were split across the phases hold it, and it still resolves; the
    application plays :class:`ChargeApproach` in Phase 2 and
    :class:`rules.melee.melee.ResolvePendingMelee` in Phase 4 (RULE-06-1.1). A tie leaves the melee
    pending for the next game turn, as there.

    ``consolidate_in`` / ``consolidate_pivot_deg`` are the victor's free move (RULE-06-4.4); left
    at None, a victorious attacker advances the full 2.0" and a victorious defender holds.
    """

    attacker_id: str
    target_id: str
    reaction: str = ChargeReaction.CLOSING_VOLLEY.value
    contact: str | None = None
    counter_charge_in: float | None = None
    consolidate_in: float | None = None
    consolidate_pivot_deg: float | None = None
    defender_on_crest: bool | None = None
    attacker_downhill_from_crest: bool | None = None
    evade_in: float | None = None
    sided_flanks: bool = added_field(True, saved_before=False)
    evade_path: bool = added_field(True, saved_before=False)
    # infantry that overruns a battery occupies its gun positions (RULE-06-5.1)
    occupy_guns: bool = added_field(True, saved_before=False)

    def charge(self) -> Charge:
        consolidation = None
        if self.consolidate_in is not None or self.consolidate_pivot_deg is not None:
            consolidation = Consolidation(
                advance_in=self.consolidate_in or 0.0, pivot_deg=self.consolidate_pivot_deg or 0.0
            )
        return _declared_charge(self, consolidation=consolidation)


@resolver(ChargeAction)
def _resolve_charge_action(battle: Battle, a: ChargeAction, dice: DiceSource, tables: RuleTables) -> Resolved:
    r = resolve_charge(battle, a.charge(), dice, tables)
    att, dfn = battle.unit(a.attacker_id), battle.unit(a.target_id)
    after, steps = r.battle, list(r.steps)
    if r.melee is not None:
        summary = (
            f"{att.name} assaults {dfn.name}: {r.melee.outcome.label.lower()} "
            f"({r.melee.attacker_score} to {r.melee.defender_score})"
        )
        after, more = settle_melee(r.approach.battle, after, None, r.melee)
        steps += more
    else:
        summary = f"{att.name} assaults {dfn.name}: {r.end.label.lower()}"
    return Resolved(after, steps, summary)


@action_type("charge_approach")
@dataclass(frozen=True)
class ChargeApproach(Action):
    """An assault's Phase 2 (RULE-06-1.1): declared, carried to the 4.0" line and through Window B to
    a stall, a halt or contact. A contact leaves a pending melee for Phase 4
    (:class:`rules.melee.melee.ResolvePendingMelee`). ``then_reaction`` is the reaction of the unit behind
    a screen the charge goes on into (RULE-04-4.4); None: its closing volley if it may fire one,
    else none (:func:`rules.assault.charge.default_reaction`)."""

    attacker_id: str
    target_id: str
    reaction: str = ChargeReaction.CLOSING_VOLLEY.value
    contact: str | None = None
    counter_charge_in: float | None = None
    defender_on_crest: bool | None = None
    attacker_downhill_from_crest: bool | None = None
    then_reaction: str | None = None
    # how far a screen that is charged evades (4.0"-6.0", RULE-04-4.3; None: the full 6.0")
    evade_in: float | None = None
    # fields added since saves first held charges (rules.action_base.added_field): a refused flank
    # and a flank contact have their side (RULE-04-5.3, RULE-04-5.4), and an evade withdraws the distance
    # chosen along its retreat path (RULE-04-4.3); the charges of saves made before read as they
    # were played
    sided_flanks: bool = added_field(True, saved_before=False)
    evade_path: bool = added_field(True, saved_before=False)

    def charge(self) -> Charge:
        for what in ("attacker_id", "target_id", "reaction"):
            if not isinstance(getattr(self, what), str):
                raise IllegalAction(
                    f"a charge's {what.replace('_', ' ')} must be text, not {getattr(self, what)!r}"
                )
        return _declared_charge(self, then_reaction=self.then_reaction)


@resolver(ChargeApproach)
def _resolve_charge_approach(
    battle: Battle, a: ChargeApproach, dice: DiceSource, tables: RuleTables
) -> Resolved:
    r = charge_to_contact(battle, a.charge(), dice, tables)
    att = battle.unit(a.attacker_id)
    dfn = r.battle.unit(r.approach.path.target)
    if r.pending is not None:
        summary = f"{att.name} charges into contact with {dfn.name}: the melee is resolved in Phase 4"
    else:
        summary = f"{att.name} assaults {battle.unit(a.target_id).name}: {r.end.label.lower()}"
    return Resolved(r.battle, list(r.steps), summary)
