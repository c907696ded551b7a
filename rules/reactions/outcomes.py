"""What a Tactical Reaction of chapter 04 comes to: the outcome every reaction resolves into (the
battle after it and the steps of the log), paying for one (a reserved Staff Pip or a Discipline
Check), the pre-contact Discipline Check of a charger hit by a closing volley, and the moves the
reactions share. Every resolution is recorded against its triggering action (RULE-04-1.4).

What each of the five does is in a module of its own: the Closing Defensive Volley and Opportunity
Fire in :mod:`rules.reactions.fire_reactions`, Skirmish / Screen Evade and the Overrun in
:mod:`rules.reactions.screen_evade`, Refuse the Flank in :mod:`rules.reactions.refuse_the_flank`,
the Counter-Charge in :mod:`rules.reactions.counter_charge`. Who may take each is in
:mod:`rules.reactions.options`; the table of the five is in :mod:`rules.reactions.declare`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.unit import Unit
from rules.battlefield.geometry import point_along
from rules.dice import DiceSource
from rules.errors import IllegalAction, InvariantError
from rules.reactions.options import Reaction, Threat, record_reaction
from rules.tables import RuleTables


def records_reaction(fn):
    """Each reaction, once resolved, is recorded against its triggering action (RULE-04-1.4)."""

    @functools.wraps(fn)
    def run(battle: Battle, threat: Threat, dice: DiceSource, tables: RuleTables, **inputs):
        out = fn(battle, threat, dice, tables, **inputs)
        return replace(out, battle=record_reaction(out.battle, threat))

    return run


# -- paying for a reaction -----------------------------------------------------------------------


def discipline_check(
    battle: Battle, unit: Unit, needed: int, rule: str, dice: DiceSource, why: str
) -> tuple[bool, int, Step]:
    roll = dice.roll_one("discipline check", compared_with=(needed,))
    passed = roll >= needed
    step = Step(
        f"{unit.name} takes a Discipline Check ({why}), needing {needed}+: rolls {roll}, "
        + ("passed" if passed else "failed"),
        rule=rule,
        dice=(roll,),
        units=(unit.id,),
    )
    return passed, roll, step


def spend_reserved(battle: Battle, unit: Unit, pips: int, rule: str, what: str) -> tuple[Battle, Step]:
    brigade = battle.brigade_of(unit)
    for _ in range(pips):
        brigade = brigade.spend_reserved_pip()
    step = Step(
        f"{brigade.brigadier.name or brigade.name} spends {pips} reserved Staff Pip"
        f"{'s' if pips != 1 else ''} for {unit.name}'s {what}",
        rule=rule,
        units=(unit.id,),
    )
    return battle.with_brigade(brigade), step


def charge_discipline_check(
    battle: Battle, charger_id: str, dice: DiceSource, tables: RuleTables
) -> tuple[bool, int, Step]:
    """The pre-contact Discipline Check of a charger hit by a closing volley (RULE-04-2.4, RULE-06-2.4).

    Veteran / Elite pass on 3+, Regular on 4+, Green / Conscript on 5+. Returns (passed, roll, step).
    """
    charger = battle.unit(charger_id)
    e = tables.discipline(charger.quality.value)
    return discipline_check(
        battle,
        charger,
        e.value,
        "RULE-06-2.4",
        dice,
        f"{charger.quality.label} charger after the closing volley",
    )


# -- outcomes ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReactionOutcome:
    """A resolved reaction: the battle after it and the steps of the log."""

    reaction: Reaction
    defender: str
    attacker: str
    battle: Battle
    steps: tuple[Step, ...]


# -- geometry of the moves -----------------------------------------------------------------------


def ahead(u: Unit, inches: float) -> tuple[float, float]:
    """The point ``inches`` straight ahead of the unit (negative: to the rear)."""
    return point_along((u.x, u.y), u.facing_deg, inches)


def check_inches(value: float, lo_key: str, hi_key: str, tables: RuleTables, what: str) -> float:
    lo, hi = tables.entry(lo_key), tables.entry(hi_key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvariantError(f"the {what} must be a distance in inches, not {value!r}")
    if not lo.value <= value <= hi.value:
        raise IllegalAction(f'the {what} is {lo.value:g}" to {hi.value:g}", not {value:g}"', hi.citation)
    return float(value)
