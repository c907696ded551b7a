"""Command: a brigade's Staff Pips reserved for a commanded reaction (RULE-04-1.3) and spent (an
assault's pip, RULE-06-1.2, or the umpire's purpose)."""

from __future__ import annotations

from dataclasses import dataclass

from rules.action_base import (
    Action,
    Resolved,
    action_type,
    brigade_named,
    resolver,
)
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.words import Phase
from rules.dice import DiceSource
from rules.errors import IllegalAction
from rules.tables import RuleTables


@action_type("reserve_pip")
@dataclass(frozen=True)
class ReservePip(Action):
    """Put one of a brigade's Staff Pips in reserve for a commanded reaction (RULE-04-1.3).

    Pips are reserved in the brigade's own Phase 1 (the chapter 04 example: "The Union player
    spent 1 Staff Pip during Phase 1 to place in reserve"), for use in the enemy's turn.
    """

    brigade_id: str


@resolver(ReservePip)
def _resolve_reserve(battle: Battle, a: ReservePip, dice: DiceSource, tables: RuleTables) -> Resolved:
    b = brigade_named(battle, a.brigade_id)
    if b.side != battle.active_side or battle.phase != Phase.COMMAND:
        raise IllegalAction(
            f"{b.name} can reserve Staff Pips only in its own side's Phase 1 (Command)", "RULE-04-1.3"
        )
    if b.staff_pips < 1:
        raise IllegalAction(f"{b.brigadier.name or b.name} has no Staff Pip left to reserve", "RULE-04-1.3")
    new = b.reserve_pip()
    text = (
        f"{b.brigadier.name or b.name} reserves a Staff Pip for reactions "
        f"({new.staff_pips} left, {new.staff_pips_reserved} reserved)"
    )
    return Resolved(battle.with_brigade(new), [Step(text, rule="RULE-04-1.3")], text)


@action_type("spend_pip")
@dataclass(frozen=True)
class SpendPip(Action):
    """Spend one Staff Pip of a brigade, from its pool or (``reserved``) from its reserve."""

    brigade_id: str
    purpose: str = ""
    reserved: bool = False


@resolver(SpendPip)
def _resolve_spend(battle: Battle, a: SpendPip, dice: DiceSource, tables: RuleTables) -> Resolved:
    b = brigade_named(battle, a.brigade_id)
    who = b.brigadier.name or b.name
    purpose = f" for {a.purpose.strip()}" if isinstance(a.purpose, str) and a.purpose.strip() else ""
    if a.reserved:
        if b.staff_pips_reserved < 1:
            raise IllegalAction(f"{who} has no reserved Staff Pip", "RULE-04-1.3")
        new = b.spend_reserved_pip()
        text = f"{who} spends a reserved Staff Pip{purpose} ({new.staff_pips_reserved} reserved left)"
        rule = "RULE-04-1.3"
    else:
        if b.staff_pips < 1:
            raise IllegalAction(f"{who} has no Staff Pip left to spend")
        new = b.spend_pip()
        text = f"{who} spends a Staff Pip{purpose} ({new.staff_pips} left)"
        rule = None
    return Resolved(battle.with_brigade(new), [Step(text, rule=rule)], text)
