"""Reaction 4 of chapter 04: Refuse the Flank, paid for with a reserved Staff Pip or a Discipline
Check, and what a refused flank denies: the enfilade bonus of fire and the +2 flank modifier of a
charge against that flank. Which stands wheel and how long the refusal stands are the club's
readings, in :mod:`rules.reactions.refused_flank`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.unit import Unit, refused_flanks
from rules.battle.words import REFUSED_MARKER, Marker, plural
from rules.dice import DiceSource
from rules.reactions.options import RF, CostKind, Reaction, Threat, require
from rules.reactions.outcomes import ReactionOutcome, discipline_check, records_reaction, spend_reserved
from rules.reactions.refused_flank import how_long, stands_wheeled
from rules.shooting.volleys import enfilade_refused
from rules.tables import RuleTables


@dataclass(frozen=True)
class RefuseFlankOutcome(ReactionOutcome):
    success: bool = False
    pip_spent: bool = False
    check_roll: int | None = None
    frozen: bool = False  # failed the emergency check: frozen in place, Disordered
    flank: str | None = None


# -- 4 Refuse the Flank --------------------------------------------------------------------------


@records_reaction
def refuse_the_flank(
    battle: Battle,
    threat: Threat,
    dice: DiceSource,
    tables: RuleTables,
    *,
    use_reserved_pip: bool = True,
    one_flank: bool = True,
) -> RefuseFlankOutcome:
    """Reaction 4 (RULE-04-5.1, RULE-04-5.2, RULE-04-5.3, RULE-04-5.4 (Refuse the Flank, 5.0)).

    With a reserved pip (spent) it succeeds automatically; without one (or if the umpire keeps the
    pip, ``use_reserved_pip=False``) the regiment takes a 4+ Discipline Check: a pass refuses the
    flank, a failure freezes it in place with a Disorder Marker.

    The regiment wheels its outer stands of the threatened flank, the one the threat comes in on
    (``threat.flank``), while "the center Color Stand and opposite flank stands remain anchored"
    (RULE-04-5.3): it is marked :attr:`Marker.REFUSED_LEFT` or :attr:`Marker.REFUSED_RIGHT`, and
    only fire and charges against that flank lose the enfilade bonus and the +2 flank modifier
    (RULE-04-5.4, see :func:`enfilade_denied`, :func:`flank_bonus_denied`). The other flank may be
    refused too, by a reaction of its own. How many stands wheel and how long the refusal stands
    are club readings (:mod:`rules.reactions.refused_flank`). ``one_flank=False`` is how a refusal saved
    before Brigadier recorded its side is read again: :attr:`Marker.REFUSED_FLANK`, both flanks.
    """
    opt = require(battle, Reaction.REFUSE_FLANK, threat, tables)
    d, a = battle.unit(threat.defender), battle.unit(threat.attacker)
    steps: list[Step] = []
    after = battle
    pip_spent, roll, frozen = False, None, False
    if opt.cost is not None and opt.cost.kind == CostKind.RESERVED_PIP and use_reserved_pip:
        after, step = spend_reserved(after, d, opt.cost.pips, "RULE-04-5.2" + RF, "Refuse the Flank")
        steps.append(step)
        pip_spent, success = True, True
    else:
        needed = tables.entry("discipline.check.commanded_reaction_without_pip")
        success, roll, step = discipline_check(
            after, d, needed.value, "RULE-04-5.2", dice, "Refuse the Flank without a reserved pip"
        )
        steps.append(step)
    d = after.unit(d.id)
    if success and one_flank and threat.flank in REFUSED_MARKER:
        n = stands_wheeled(d, tables)
        d = d.with_markers(add=[REFUSED_MARKER[threat.flank]])
        steps.append(
            Step(
                f"{d.name} wheels its outer {plural(n, f'{threat.flank}-flank stand')} back "
                f"{tables.value('movement.trigger.refuse_flank_max_deg'):g} degrees to face {a.name}; "
                "the colour stand and the other flank stay anchored",
                rule="RULE-04-5.3",
                units=(d.id,),
            )
        )
        steps.append(
            Step(
                f"Fire on {d.name}'s {threat.flank} flank is no longer enfilade, and a charge on it "
                f"meets the angled stands frontally; the refusal lasts {how_long(tables)}",
                rule="RULE-04-5.4",
                units=(d.id,),
            )
        )
    elif success:
        flank = f"{threat.flank} " if threat.flank else ""
        d = d.with_markers(add=[Marker.REFUSED_FLANK])
        steps.append(
            Step(
                f"{d.name} wheels its outer {flank}flank stands back up to "
                f"{tables.value('movement.trigger.refuse_flank_max_deg'):g} degrees to face {a.name}: "
                "fire on that flank is no longer enfilade and a charge on it meets the stands frontally",
                rule="RULE-04-5.3",
                units=(d.id,),
            )
        )
    else:
        frozen = True
        d = d.with_markers(add=[Marker.DISORDER])
        steps.append(
            Step(
                f"{d.name} freezes in place, unable to refuse its flank, and is Disordered",
                rule="RULE-04-5.2",
                units=(d.id,),
            )
        )
    return RefuseFlankOutcome(
        reaction=Reaction.REFUSE_FLANK,
        defender=d.id,
        attacker=a.id,
        battle=after.with_unit(d),
        steps=tuple(steps),
        success=success,
        pip_spent=pip_spent,
        check_roll=roll,
        frozen=frozen,
        flank=threat.flank,
    )


def flank_refused(unit: Unit, side: str | None = None) -> bool:
    """The unit has refused its ``side`` flank ("left" or "right"), or any flank when no side is
    given (RULE-04-5.3)."""
    refused = refused_flanks(unit)
    return bool(refused) if side is None else side in refused


def enfilade_denied(battle: Battle, target_id: str, side: str | None = None) -> bool:
    """Fire against this unit's ``side`` flank gets no +1 enfilade bonus: it has refused that flank
    (RULE-04-5.4). Fire at the other flank, or the rear, still rakes it."""
    return enfilade_refused(battle.unit(target_id), side)


def flank_bonus_denied(battle: Battle, defender_id: str, side: str | None = None) -> bool:
    """A charge against this unit's ``side`` flank meets the angled stands frontally: the attacker
    gets no +2 flank melee modifier (RULE-04-5.4). A charge on the other flank still gets it."""
    return flank_refused(battle.unit(defender_id), side)
