"""Arrivals: units a scenario brings onto the table during the battle (reinforcements).

A unit with an :class:`~rules.battle.unit.Arrival` is not on the table (not in play): it is not
drawn, seen, counted on the field or able to act until it arrives. No chapter here says how
reinforcements come on, so the club default ``movement.arrivals.entry_within_in`` does: a unit
due arrives in its own side's Phase 2 on the turn its scenario gives or later; where the scenario
gives a die (``roll``), it comes on only on that roll or more, rolled once a turn from its turn
on; it is placed with its colour stand within that distance of its entry point (the scenario's
place for it), or at the place itself; and coming onto the table is its move for the phase.

:class:`Arrive` brings one unit or several (a brigade coming down the road together: one roll for
them all) onto the table as one action; :func:`due` says which units may arrive now, grouped as
they come (by brigade, entry point and turn), for the phase checklist and the window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from rules.action_base import Action, Resolved, action_type, resolver
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.turn_records import MoveRecord
from rules.battle.unit import Unit
from rules.battle.words import Phase
from rules.dice import DiceSource
from rules.errors import IllegalAction
from rules.tables import RuleTables

ENTRY_WITHIN = "movement.arrivals.entry_within_in"


def cited(tables: RuleTables) -> str:
    return f"club default ({ENTRY_WITHIN})"


@dataclass(frozen=True)
class ArrivalGroup:
    """Units that come on together: of one brigade, at one entry point, due the same turn."""

    brigade: str
    at: str
    turn: int
    roll: int | None
    unit_ids: tuple[str, ...]


def _group_key(u: Unit) -> tuple:
    a = u.arrives
    assert a is not None
    return (u.brigade, a.at, a.turn, a.roll)


def arriving(battle: Battle, side: str | None = None) -> list[ArrivalGroup]:
    """Every group of units still to arrive (of ``side``), in the order they are due."""
    groups: dict[tuple, list[str]] = {}
    for u in battle.units.values():
        if u.arrives is not None and u.stands > 0 and (side is None or u.side == side):
            groups.setdefault(_group_key(u), []).append(u.id)
    out = [ArrivalGroup(b, at, t, r, tuple(ids)) for (b, at, t, r), ids in groups.items()]
    return sorted(out, key=lambda g: (g.turn, g.brigade, g.at))


def refusal(battle: Battle, u: Unit) -> str | None:
    """Why ``u`` cannot arrive now (None: it may)."""
    a = u.arrives
    if a is None:
        return f"{u.name} is on the table already"
    if u.stands <= 0:
        return f"{u.name} has been destroyed"
    if u.side != battle.active_side or battle.phase != Phase.MANEUVER:
        side = battle.oob.side_name(u.side)
        return f"{u.name} arrives in the {side} side's Phase 2 (Active Maneuver)"
    if battle.turn < a.turn:
        return f"{u.name} is due on turn {a.turn}, not before"
    if a.roll is not None and a.tried >= battle.turn:
        return f"{u.name}'s arrival roll failed this turn: it may try again next turn"
    return None


def due(battle: Battle) -> list[ArrivalGroup]:
    """The groups of the side to act that may arrive now (in its Phase 2, due this turn or before,
    not already refused by a roll this turn)."""
    out = []
    for g in arriving(battle, battle.active_side):
        if all(refusal(battle, battle.unit(uid)) is None for uid in g.unit_ids):
            out.append(g)
    return out


@action_type("arrive")
@dataclass(frozen=True)
class Arrive(Action):
    """Bring ``unit_ids`` onto the table. ``places``: each unit's x, y and facing, in order; empty:
    each at its scenario's place. Units arriving together with a die roll share one roll."""

    unit_ids: tuple[str, ...]
    places: tuple[tuple[float, float, float], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "unit_ids", tuple(str(u) for u in self.unit_ids))
        object.__setattr__(self, "places", tuple(tuple(float(v) for v in p) for p in self.places))


def _place(battle: Battle, u: Unit, place: tuple[float, float, float] | None, tables: RuleTables) -> Unit:
    a = u.arrives
    assert a is not None
    if place is None:
        if a.x is None or a.y is None:
            raise IllegalAction(f"{u.name} has no place to arrive at in its scenario: say where it comes on")
        x, y, facing = a.x, a.y, a.facing_deg if a.facing_deg is not None else u.facing_deg
    else:
        x, y, facing = place
    if not (0 <= x <= battle.table_width_in and 0 <= y <= battle.table_height_in):
        raise IllegalAction(f'{u.name} must arrive on the table, not at x {x:g}", y {y:g}"')
    within = float(tables.value(ENTRY_WITHIN))
    if a.x is not None and a.y is not None and math.dist((x, y), (a.x, a.y)) > within + 1e-9:
        raise IllegalAction(
            f'{u.name} arrives within {within:g}" of its entry point{" at " + a.at if a.at else ""} '
            f'(x {a.x:g}", y {a.y:g}"), not {math.dist((x, y), (a.x, a.y)):.1f}" from it ({cited(tables)})'
        )
    return replace(u, arrives=None, x=float(x), y=float(y), facing_deg=float(facing) % 360)


@resolver(Arrive)
def _resolve_arrive(battle: Battle, a: Arrive, dice: DiceSource, tables: RuleTables) -> Resolved:
    if not a.unit_ids:
        raise IllegalAction("say which units arrive")
    if a.places and len(a.places) != len(a.unit_ids):
        raise IllegalAction(f"{len(a.unit_ids)} units arrive, but {len(a.places)} places were given")
    units = [battle.unit(uid) for uid in a.unit_ids]
    for u in units:
        why = refusal(battle, u)
        if why is not None:
            raise IllegalAction(f"{why} ({cited(tables)})")
    rolls = {u.arrives.roll for u in units if u.arrives is not None}
    if len(rolls) > 1:
        raise IllegalAction("units that roll for their arrival differently arrive one group at a time")
    need = rolls.pop()
    names = ", ".join(u.name for u in units)
    steps: list[Step] = []
    if need is not None:
        face = dice.roll(1, "arrival roll")[0]
        if face < need:
            tried = [replace(u, arrives=replace(u.arrives, tried=battle.turn)) for u in units]
            text = f"Arrival roll for {names}: {face}, needing {need}: not this turn"
            return Resolved(
                battle.with_units(*tried),
                [Step(text, rule=cited(tables), dice=(face,), units=a.unit_ids)],
                text,
            )
        steps.append(
            Step(
                f"Arrival roll for {names}: {face}, needing {need}: they arrive",
                rule=cited(tables),
                dice=(face,),
                units=a.unit_ids,
            )
        )
    placed = [_place(battle, u, a.places[i] if a.places else None, tables) for i, u in enumerate(units)]
    after = battle.with_units(*placed)
    extra = after.extra
    for u in placed:  # coming on is the unit's move for the phase
        spent = float(tables.value(f"movement.rate.{u.formation.value}"))
        extra = extra.with_movement(
            u.id, MoveRecord(spent_in=spent, moved_in=0.0, start=(u.x, u.y, u.facing_deg))
        )
    after = replace(after, extra=extra)
    where = {u.arrives.at for u in units if u.arrives is not None and u.arrives.at}
    at = f" at {', '.join(sorted(where))}" if where else ""
    text = f"{names} {'arrives' if len(units) == 1 else 'arrive'}{at}"
    steps.append(Step(text, rule=cited(tables), units=a.unit_ids))
    return Resolved(after, steps, text)


__all__ = ["ENTRY_WITHIN", "Arrive", "ArrivalGroup", "arriving", "due", "refusal"]
