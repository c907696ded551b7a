"""Marching and changing formation: a unit's move in its side's Phase 2 under the movement rules
(:class:`MoveUnit` with ``mode="march"``), the umpire's placement of a unit by hand
(``mode="place"``, with a reason for the log), and :class:`ChangeFormation`.

What a unit has marched this turn is kept in the battle's turn records (:func:`movement_record`),
so that several marches in one Phase 2 share one allowance; a charger that stalled this turn
cannot march (RULE-06-2.5). :func:`march_refusal` says why a unit may not march now, with its rule.

>>> a = MoveUnit(unit_id="wis2", x=31.0, y=20.5, facing_deg=0.0, mode="march")
>>> a.to_dict()
{'type': 'move_unit', 'unit_id': 'wis2', 'x': 31.0, 'y': 20.5, 'facing_deg': 0.0, 'mode': 'march', 'reason': ''}
>>> Action.from_dict(a.to_dict()) == a
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from rules import limits
from rules.action_base import (
    Action,
    Resolved,
    action_type,
    compass,
    number_value,
    place_words,
    resolver,
    unit_named,
)
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.turn_records import MoveRecord
from rules.battle.unit import Unit
from rules.battle.words import FORMATIONS_BY_KIND, Formation, Phase
from rules.dice import DiceSource
from rules.errors import IllegalAction, InvariantError
from rules.tables import RuleTables

# The movement made this turn is in the battle's turn records (rules.battle.turn_records: saved under
# MOVEMENT and STALLED, cleared at the end of the side's turn by rules.turn.sequence, diffed, undone and
# replayed like every other part of the state): what each unit has marched (a MoveRecord: the
# allowance used, the distance marched, where it began its first march of the turn), and the
# chargers that stalled this turn (RULE-06-2.5).

MARCH, PLACE = "march", "place"
MOVE_MODES = (MARCH, PLACE)


def movement_record(battle: Battle, unit_id: str) -> dict[str, Any]:
    """What a unit has marched this turn: ``spent_in``, ``moved_in`` and ``start`` (empty if none),
    as saves keep it (:meth:`rules.battle.turn_records.TurnRecords.movement_of` gives it typed)."""
    rec = battle.extra.movement_of(unit_id)
    return rec.to_dict() if rec is not None else {}


def _with_movement(battle: Battle, unit_id: str, record: MoveRecord) -> Battle:
    return replace(battle, extra=battle.extra.with_movement(unit_id, record))


def allowance_of(unit: Unit, tables: RuleTables) -> float:
    """A unit's movement allowance for a turn, by its formation (``movement.rate.*``)."""
    return float(tables.value(f"movement.rate.{unit.formation.value}"))


def remaining_move_in(battle: Battle, unit_id: str, tables: RuleTables) -> float:
    """How much of its movement allowance a unit has left this turn."""
    u = unit_named(battle, unit_id)
    rec = battle.extra.movement_of(unit_id)
    spent = float(rec.spent_in) if rec is not None else 0.0
    return max(allowance_of(u, tables) - spent, 0.0)


def has_stalled(battle: Battle, unit_id: str) -> bool:
    """True if the unit's charge stalled this turn: it "cannot move or attack further" (RULE-06-2.5)."""
    return battle.extra.has_stalled(unit_id)


def mark_stalled(battle: Battle, unit_id: str) -> Battle:
    """Record that a charger stalled this turn (RULE-06-2.5)."""
    if has_stalled(battle, unit_id):
        return battle
    return replace(battle, extra=battle.extra.with_stalled(unit_id))


def scale_remaining_move(battle: Battle, unit_id: str, factor: float, tables: RuleTables) -> Battle:
    """Multiply what is left of a unit's movement allowance this turn by ``factor`` (RULE-04-3.5:
    halved after a Disorder from Opportunity Fire's natural 6)."""
    if factor == 1.0:
        return battle
    u = unit_named(battle, unit_id)
    rec = battle.extra.movement_of(unit_id) or MoveRecord()
    allowance = allowance_of(u, tables)
    spent = min(float(rec.spent_in), allowance)
    rec = replace(rec, spent_in=round(allowance - (allowance - spent) * factor, 4))
    if rec.start is None:
        rec = replace(rec, start=(u.x, u.y, u.facing_deg))
    return _with_movement(battle, unit_id, rec)


@action_type("move_unit")
@dataclass(frozen=True)
class MoveUnit(Action):
    """A unit's move to a point and facing, as a march or as the umpire's placement:

    * ``"march"``: a move under the movement rules, by a unit of the active side in its Phase 2
      (Active Maneuver). It is resolved by :meth:`rules.battlefield.field.Battlefield.plan_move`: the unit
      goes straight for the point, as far as its allowance (``movement.rate.*``) and the ground let
      it, and halts where the rules halt it (the log says why, with the rule). Several marches in
      one Phase 2 share one allowance (``Battle.extra.movement``). Disorder for a line in dense
      woods, swamp or abatis (RULE-03-1.5), the stone-wall Discipline Check of a column
      (RULE-03-2.2, one die "stone wall crossing check"), the Climbing marker out of a sunken road
      (RULE-03-2.5) and the loss of Smoke and Fired for a unit that moves clear of its own smoke
      (RULE-04-3.4) are applied. A charger that stalled this turn cannot march (RULE-06-2.5).
      Chapter 01 (command) is not here, so every unit is taken to be in command for the 2" a formed
      unit may always move (RULE-03-1.4), once over the turn.
    * ``"place"``: the umpire's placement, anywhere on the table and in any phase, logged as such,
      with ``reason`` in the log. Placing a unit of the active side in its Phase 2, where it would
      march, sets the movement rules aside: like an :class:`Override`, it needs the reason.
    * ``None`` (the default): a move saved before marches existed, or made by code that does not
      say which it is. It is the umpire's placement, as such moves always were, and needs no reason,
      so old journals replay as they were recorded.
    """

    unit_id: str
    x: float
    y: float
    facing_deg: float | None = None
    mode: str | None = None
    reason: str = ""

    def is_ruling(self) -> bool:
        """A placement is the umpire's; a march is an action of play."""
        return self.mode != MARCH


def _target(battle: Battle, u: Unit, a: MoveUnit) -> tuple[float, float, float]:
    x, y = number_value(a.x, "x"), number_value(a.y, "y")
    facing = (
        u.facing_deg
        if a.facing_deg is None
        else number_value(a.facing_deg, "the facing", limits.FACING_DEG) % 360
    )
    check_on_table(battle, x, y)
    if (x, y, facing) == (u.x, u.y, u.facing_deg):
        raise IllegalAction(f"{u.name} is already there")
    return x, y, facing


@resolver(MoveUnit)
def _resolve_move(battle: Battle, a: MoveUnit, dice: DiceSource, tables: RuleTables) -> Resolved:
    if a.mode is not None and a.mode not in MOVE_MODES:
        raise IllegalAction(f"a move is a march or the umpire's placement, not {a.mode!r}")
    if not isinstance(a.reason, str):
        raise IllegalAction(f"the reason for a placement must be text, not {a.reason!r}")
    u = unit_named(battle, a.unit_id)
    if not u.in_play:
        raise IllegalAction(f"{u.name} {u.absent_words} and cannot move")
    x, y, facing = _target(battle, u, a)
    if a.mode == MARCH:
        return _march(battle, u, x, y, facing, dice, tables)
    if a.mode == PLACE and not a.reason.strip() and in_own_maneuver(battle, u):
        raise IllegalAction(
            f"placing {u.name} in its own side's {Phase.MANEUVER.title} sets the movement rules aside: "
            "the umpire's reason is needed, and goes in the log (or let it march)"
        )
    moved = u.moved_to(x, y, facing)
    dist = math.hypot(x - u.x, y - u.y)
    text = f'{u.name} moves {dist:.1f}" to {place_words(x, y)}'
    if facing != u.facing_deg:
        text += f", now facing {compass(facing)}"
    text += ": placed by the umpire"
    steps = [Step(text, units=(u.id,))]
    reason = a.reason.strip()
    if reason:
        steps.append(Step(f"Reason: {reason}", units=(u.id,)))
    return Resolved(battle.with_unit(moved), steps, text + (f" ({reason})" if reason else ""))


def in_own_maneuver(battle: Battle, unit: Unit) -> bool:
    """True when it is the unit's own side's Phase 2 (Active Maneuver): the only time the unit
    marches under the movement rules (RULE-04-1.2); out of it the umpire places it."""
    return battle.phase == Phase.MANEUVER and unit.side == battle.active_side


def march_refusal(battle: Battle, unit_id: str, tables: RuleTables) -> IllegalAction | None:
    """Why the unit cannot march now, or None if it can."""
    u = battle.units.get(unit_id)
    if u is None:
        return IllegalAction(f"there is no unit '{unit_id}'")
    if not u.in_play:
        return IllegalAction(f"{u.name} {u.absent_words} and cannot move")
    if not in_own_maneuver(battle, u):
        return IllegalAction(
            f"{u.name} marches only in its own side's {Phase.MANEUVER.title}; "
            "out of it the umpire places the unit",
            "RULE-04-1.2",
        )
    if has_stalled(battle, u.id):
        stall = tables.entry("melee.charge.stall_in")
        return IllegalAction(
            f"{u.name}'s charge stalled this turn: it cannot move or attack further this turn",
            stall.citation or "RULE-06-2.5",
        )
    if remaining_move_in(battle, u.id, tables) <= 1e-6:
        e = tables.entry(f"movement.rate.{u.formation.value}")
        return IllegalAction(
            f'{u.name} has used its whole movement allowance ({float(e.value):g}") this turn',
            e.citation,
        )
    return None


def _smoke_cloud(u: Unit, start: Any, tables: RuleTables):
    """The unit's own smoke: the ground it fired from and a strip of its frontage in front of it
    (RULE-04-3.4), taken where it stood when it began to march this turn."""
    from shapely.geometry import Polygon

    from rules.battlefield.geometry import footprint

    sx, sy, sf = (float(v) for v in start)
    fp = footprint(u.moved_to(sx, sy, sf), tables)
    depth = float(tables.value("movement.smoke.cloud_depth_in"))
    fx, fy = fp.forward
    lx, ly = fp.left_front
    rx, ry = fp.right_front
    strip = Polygon(
        [(lx, ly), (rx, ry), (rx + fx * depth, ry + fy * depth), (lx + fx * depth, ly + fy * depth)]
    )
    return fp.polygon.union(strip)


def plan_march(
    battle: Battle, unit_id: str, x: float, y: float, tables: RuleTables, *, battlefield: Any = None
) -> Any:
    """Where a march of the unit straight towards (x, y) ends now, and what the ground does to it
    (a :class:`rules.battlefield.field.MovePlan`), with the allowance it has left this turn and the 2"
    a formed unit in command may always move over the turn (RULE-03-1.4). The interface shows it
    while a unit is dragged; :class:`MoveUnit` (mode "march") resolves by it."""
    from rules.battlefield.field import Battlefield

    u = unit_named(battle, unit_id)
    rec = battle.extra.movement_of(u.id) or MoveRecord()
    moved0 = float(rec.moved_in)
    remaining = remaining_move_in(battle, u.id, tables)
    bf = battlefield if battlefield is not None else Battlefield(battle, tables)
    plan = bf.plan_move(u, [(x, y)], remaining, in_command=False)
    floor = float(tables.value("movement.minimum.move_in"))
    if plan.moved_in < plan.path_in - 1e-6 and moved0 + plan.moved_in < floor - 1e-6:
        # RULE-03-1.4: the 2" a formed unit in command may always move, once over the turn
        short = floor - moved0
        d = math.hypot(x - u.x, y - u.y)
        t = min(short / d, 1.0)
        sub = (u.x + (x - u.x) * t, u.y + (y - u.y) * t)
        alt = bf.plan_move(u, [sub], remaining, in_command=True)
        if alt.moved_in > plan.moved_in + 1e-6:
            plan = replace(
                alt,
                path_in=plan.path_in,
                halted_by=alt.halted_by or plan.halted_by,
                halt_rule=alt.halt_rule or plan.halt_rule,
                halt_reason=alt.halt_reason or plan.halt_reason,
            )
    return plan


def _march(
    battle: Battle, u: Unit, x: float, y: float, facing: float, dice: DiceSource, tables: RuleTables
) -> Resolved:
    from rules.battle.words import Marker
    from rules.battlefield.field import Battlefield
    from rules.battlefield.geometry import footprint

    refusal = march_refusal(battle, u.id, tables)
    if refusal is not None:
        raise refusal
    rec = battle.extra.movement_of(u.id) or MoveRecord()
    spent0 = float(rec.spent_in)
    moved0 = float(rec.moved_in)
    start = rec.start or [u.x, u.y, u.facing_deg]
    allowance = allowance_of(u, tables)
    bf = Battlefield(battle, tables)
    steps: list[Step] = []
    if (x, y) == (u.x, u.y):
        moved = u.moved_to(x, y, facing)
        plan = None
        text = f"{u.name} turns to face {compass(facing)}"
        steps.append(Step(text, units=(u.id,)))
        after_unit = moved
        spent = spent0
        dist = 0.0
    else:
        plan = plan_march(battle, u.id, x, y, tables, battlefield=bf)
        if plan.no_musketry and spent0 > 1e-6:
            raise IllegalAction(
                f"climbing out of the sunken road takes {u.name}'s whole turn of movement, and it has "
                f'already moved {moved0:.1f}" this turn',
                "RULE-03-2.5",
            )
        if plan.moved_in <= 1e-6:
            raise IllegalAction(plan.halt_reason or f"{u.name} cannot move that way", plan.halt_rule)
        end = (round(plan.end[0], 4), round(plan.end[1], 4))
        dist = plan.moved_in
        after_unit = u.moved_to(end[0], end[1], facing)
        spent = allowance if plan.no_musketry else spent0 + plan.spent_in
        text = f'{u.name} marches {dist:.1f}" to {place_words(*end)}'
        if facing != u.facing_deg:
            text += f", now facing {compass(facing)}"
        steps.append(Step(text, units=(u.id,)))
        steps += plan.steps()
        if not plan.complete and not plan.halted_by:
            e = tables.entry(f"movement.rate.{u.formation.value}")
            steps.append(
                Step(
                    f'{u.name} halts: its movement allowance ({allowance:g}", {u.formation.label.lower()}) '
                    "is used up this turn",
                    rule=e.citation,
                    units=(u.id,),
                )
            )
        add = []
        if plan.disorder and not u.has(Marker.DISORDER):
            add.append(Marker.DISORDER)
            steps.append(
                Step(
                    f"{u.name} moved in line of battle through rough ground: Disordered",
                    rule="RULE-03-1.5",
                    units=(u.id,),
                )
            )
        if plan.no_musketry:
            add.append(Marker.CLIMBING)
        if plan.discipline_check:
            e = tables.entry("discipline.check.stone_wall_column_crossing")
            roll = dice.roll_one("stone wall crossing check", compared_with=(int(e.value),))
            passed = roll >= int(e.value)
            steps.append(
                Step(
                    f"{u.name} crosses a stone wall in column: Discipline Check needing {int(e.value)}+, "
                    f"rolls {roll}, " + ("passed" if passed else "failed: Disordered"),
                    rule=e.citation,
                    dice=(roll,),
                    units=(u.id,),
                )
            )
            if not passed and not u.has(Marker.DISORDER) and Marker.DISORDER not in add:
                add.append(Marker.DISORDER)
        after_unit = after_unit.with_markers(add=add)
    if after_unit.has(Marker.SMOKE):
        cloud = _smoke_cloud(u, start, tables)
        if not footprint(after_unit, tables).polygon.intersects(cloud):
            after_unit = after_unit.with_markers(remove=[Marker.SMOKE, Marker.FIRED])
            steps.append(
                Step(
                    f"{u.name} has moved clear of its smoke: Smoke and Fired removed, it may fire in "
                    f"{Phase.RANGED.title}",
                    rule="RULE-04-3.4",
                    units=(u.id,),
                )
            )
    after = battle.with_unit(after_unit)
    record = MoveRecord(
        spent_in=round(min(spent, allowance), 4),
        moved_in=round(moved0 + dist, 4),
        start=tuple(float(v) for v in start),
    )
    after = _with_movement(after, u.id, record)
    left = max(allowance - record.spent_in, 0.0)
    summary = steps[0].text + f' ({left:.1f}" of {allowance:g}" left)'
    if plan is not None and plan.halted_by:
        summary += f"; {plan.halt_reason}"
    return Resolved(after, steps, summary)


@action_type("change_formation")
@dataclass(frozen=True)
class ChangeFormation(Action):
    unit_id: str
    formation: str


@resolver(ChangeFormation)
def _resolve_formation(battle: Battle, a: ChangeFormation, dice: DiceSource, tables: RuleTables) -> Resolved:
    u = unit_named(battle, a.unit_id)
    if not u.in_play:
        raise IllegalAction(f"{u.name} {u.absent_words}")
    try:
        f = Formation.parse(a.formation)
    except InvariantError as exc:
        raise IllegalAction(str(exc)) from None
    if f not in FORMATIONS_BY_KIND[u.kind]:
        allowed = ", ".join(x.label.lower() for x in FORMATIONS_BY_KIND[u.kind])
        raise IllegalAction(f"{u.name} ({u.kind.label.lower()}) cannot form {f.label.lower()}; use {allowed}")
    if f == u.formation:
        raise IllegalAction(f"{u.name} is already in {f.label.lower()}")
    text = f"{u.name} changes formation from {u.formation.label.lower()} to {f.label.lower()}"
    return Resolved(battle.with_unit(replace(u, formation=f)), [Step(text, units=(u.id,))], text)


def off_table_refusal(battle: Battle, x: float, y: float, marcher: str | None = None) -> IllegalAction | None:
    """Why (x, y) may not be moved to: it is off the table (or not a point at all); None if it is on it.

    With ``marcher`` (a unit's name) the refusal says that unit cannot march there: the refusal of
    a march before it starts, so that no part of it is left behind.

    >>> from rules.battle.order_of_battle import OrderOfBattle, Side
    >>> b = Battle("b", OrderOfBattle(sides=(Side("union", "Union"), Side("csa", "Confederacy"))),
    ...            active_side="union")
    >>> off_table_refusal(b, 10, 10) is None
    True
    >>> str(off_table_refusal(b, 80, 10))
    '(80, 10) is off the 72" x 48" table'
    >>> str(off_table_refusal(b, 80, 10, "2nd Wisconsin"))
    '2nd Wisconsin cannot march to (80, 10): it is off the 72" x 48" table'
    """
    if 0 <= x <= battle.table_width_in and 0 <= y <= battle.table_height_in:
        return None
    table = f'{battle.table_width_in:g}" x {battle.table_height_in:g}" table'
    if marcher is not None:
        return IllegalAction(f"{marcher} cannot march to ({x:g}, {y:g}): it is off the {table}")
    return IllegalAction(f"({x:g}, {y:g}) is off the {table}")


def check_on_table(battle: Battle, x: float, y: float) -> None:
    """Refuse a position off the table, as a move does."""
    refusal = off_table_refusal(battle, x, y)
    if refusal is not None:
        raise refusal
