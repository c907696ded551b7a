"""Actions: everything the umpire does, as small frozen values that round-trip to JSON.

The action base class, its registries and :func:`resolve` are in :mod:`rules.action_base` (see
there for how to add an action type); this module gives the same names, and holds the actions of
movement and formation, the umpire's overrides and edits, Staff Pips and the turn sequence.

>>> from rules.battle.battle import Battle
>>> a = MoveUnit(unit_id="wis2", x=31.0, y=20.5, facing_deg=0.0, mode="march")
>>> a.to_dict()
{'type': 'move_unit', 'unit_id': 'wis2', 'x': 31.0, 'y': 20.5, 'facing_deg': 0.0, 'mode': 'march', 'reason': ''}
>>> Action.from_dict(a.to_dict()) == a
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from rules import limits
from rules.action_base import (
    ACTION_MODULES,
    ACTION_TYPES,
    RESOLVERS,
    Action,
    Resolved,
    Resolver,
    _to_json,
    action_type,
    load_action_modules,
    resolve,
    resolver,
)
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.order_of_battle import (
    FORMATIONS_BY_KIND,
    UNIT_KEYS,
    Brigade,
    Formation,
    Phase,
    Unit,
)
from rules.battle.terrain import TerrainFeature
from rules.battle.turn_records import MOVEMENT, STALLED, MoveRecord
from rules.dice import DiceSource
from rules.errors import IllegalAction, InvariantError
from rules.tables import RuleTables

# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def _unit(battle: Battle, unit_id: str) -> Unit:
    u = battle.units.get(unit_id)
    if u is None:
        raise IllegalAction(f"there is no unit '{unit_id}'")
    return u


def _brigade(battle: Battle, brigade_id: str) -> Brigade:
    b = battle.brigades.get(brigade_id)
    if b is None:
        raise IllegalAction(f"there is no brigade '{brigade_id}'")
    return b


def _feature(battle: Battle, feature_id: str) -> TerrainFeature:
    for f in battle.terrain:
        if f.id == feature_id:
            return f
    raise IllegalAction(f"there is no terrain feature '{feature_id}'")


def _number(v: Any, what: str, rng: limits.Range = limits.POSITION_IN) -> float:
    try:
        return limits.number(v, rng, what)
    except InvariantError as exc:
        raise IllegalAction(str(exc)) from None


def _text(v: Any, what: str) -> str:
    if not isinstance(v, str) or not v.strip():
        raise IllegalAction(f"{what} must be given")
    return v


def _mapping(v: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(v, Mapping) or not v:
        raise IllegalAction(f"{what} must be a table of values to set")
    return v


def compass(deg: float) -> str:
    """A facing as the umpire says it: 0 -> "N (0°)", 90 -> "E (90°)"."""
    names = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
    return f"{names[int(((deg % 360) + 22.5) // 45) % 8]} ({deg % 360:g}°)"


def _at(x: float, y: float) -> str:
    """A place on the table to the tenth of an inch, as distances are: (28.9557, 46.0066) -> (29, 46)."""
    return f"({round(x, 1):g}, {round(y, 1):g})"


def _show(v: Any) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_show(x) for x in v) + "]" if v else "none"
    if isinstance(v, float):
        return f"{v:g}"
    if v is None:
        return "none"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_show(x)}" for k, x in v.items()) + "}"
    return str(v)


def _changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    return [f"{k} {_show(before.get(k))} → {_show(after.get(k))}" for k in after if before.get(k) != after[k]]


def _refuse_unknown_fields(
    values: Mapping[str, Any], fields: Sequence[str], whose: str, id_message: str | None = None
) -> None:
    """Refuse an edit naming a value the thing does not have; ``id_message`` if one of them is its id."""
    bad = [k for k in values if k not in fields]
    if not bad:
        return
    if id_message is not None and "id" in bad:
        raise IllegalAction(id_message)
    raise IllegalAction(
        f"{whose} has no value {', '.join(repr(k) for k in bad)}; use one of {', '.join(fields)}"
    )


def _battle_with_oob(battle: Battle, **oob_changes: Any) -> Battle:
    return replace(battle, oob=replace(battle.oob, **oob_changes))


# --------------------------------------------------------------------------------------------
# Movement and formation
# --------------------------------------------------------------------------------------------


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
    u = _unit(battle, unit_id)
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
    u = _unit(battle, unit_id)
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
    x, y = _number(a.x, "x"), _number(a.y, "y")
    facing = (
        u.facing_deg if a.facing_deg is None else _number(a.facing_deg, "the facing", limits.FACING_DEG) % 360
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
    u = _unit(battle, a.unit_id)
    if not u.in_play:
        raise IllegalAction(f"{u.name} has been destroyed and cannot move")
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
    text = f'{u.name} moves {dist:.1f}" to {_at(x, y)}'
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
        return IllegalAction(f"{u.name} has been destroyed and cannot move")
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

    u = _unit(battle, unit_id)
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
    from rules.battle.order_of_battle import Marker
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
        text = f'{u.name} marches {dist:.1f}" to {_at(*end)}'
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
    u = _unit(battle, a.unit_id)
    if not u.in_play:
        raise IllegalAction(f"{u.name} has been destroyed")
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


# --------------------------------------------------------------------------------------------
# Setting values: Override (the umpire's ruling, with a reason) and the editor's Edit actions
# --------------------------------------------------------------------------------------------

# The values of a unit the umpire can set: every field of a unit but its id (rules.battle.order_of_battle.UNIT_KEYS).
UNIT_FIELDS = tuple(k for k in UNIT_KEYS if k != "id")
BRIGADE_FIELDS = (
    "name",
    "side",
    "staff_pips",
    "staff_pips_reserved",
    "state",
    "brigadier",
    "brigadier_name",
    "attached_to",
    "brigadier_status",
)
GAME_FIELDS = ("turn", "phase", "active_side")


# Unit values that are lists of words, and how the umpire gives one.
_LIST_FIELDS = {"markers": "disorder", "traits": "rebel_yell"}


def _word_list(value: Any, key: str) -> list[str]:
    """A list-valued unit field: a list of words, one word, or words separated by commas
    ("disorder,smoke"); "" or "none" for none."""
    if isinstance(value, str):
        if value.strip().lower() in ("", "none"):
            return []
        return [w.strip() for w in value.split(",") if w.strip()]
    if isinstance(value, (list, tuple, set, frozenset)) and all(isinstance(w, str) for w in value):
        return list(value)
    eg = _LIST_FIELDS[key]
    given = repr(value)
    if len(given) > 80:  # a long or deeply nested value is not echoed whole
        given = given[:77] + "..."
    raise IllegalAction(
        f"{key} are given as one word ({key}={eg}) or several separated by commas "
        f"({key}={eg},...), or as a list of words, not {given}"
    )


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


def _set_unit(battle: Battle, unit_id: str, values: Mapping[str, Any]) -> tuple[Battle, list[str], Unit]:
    u = _unit(battle, unit_id)
    values = _mapping(values, "the values")
    _refuse_unknown_fields(
        values, UNIT_FIELDS, "a unit", "a unit's id cannot be changed; remove the unit and add it again"
    )
    before = u.to_dict()
    d = {**before, **values}
    for key in _LIST_FIELDS:
        if key in values:
            d[key] = _word_list(values[key], key)
    new = Unit.from_dict(d)
    if "x" in values or "y" in values:
        check_on_table(battle, new.x, new.y)
    after = new.to_dict()
    changes = _changed(before, after)
    if not changes:
        raise IllegalAction(f"that changes nothing for {u.name}")
    return battle.with_unit(new), changes, new


def _set_brigade(
    battle: Battle, brigade_id: str, values: Mapping[str, Any]
) -> tuple[Battle, list[str], Brigade]:
    b = _brigade(battle, brigade_id)
    values = _mapping(values, "the values")
    _refuse_unknown_fields(
        values,
        BRIGADE_FIELDS,
        "a brigade",
        "a brigade's id cannot be changed; remove the brigade and add it again",
    )
    before = b.to_dict()
    d = dict(before)
    brigadier = dict(before["brigadier"])
    for k, v in values.items():
        if k == "brigadier":
            brigadier.update(_mapping(v, "the Brigadier"))
        elif k == "brigadier_name":
            brigadier["name"] = v
        elif k == "attached_to":
            brigadier["attached_to"] = v
        elif k == "brigadier_status":
            brigadier["status"] = v
        else:
            d[k] = v
    d["brigadier"] = brigadier
    new = Brigade.from_dict(d)
    after = new.to_dict()
    flat_before, flat_after = _flat_brigade(before), _flat_brigade(after)
    changes = _changed(flat_before, flat_after)
    if not changes:
        raise IllegalAction(f"that changes nothing for {b.name}")
    return battle.with_brigade(new), changes, new


def _flat_brigade(d: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "name": d["name"],
        "side": d["side"],
        "staff_pips": d["staff_pips"],
        "staff_pips_reserved": d["staff_pips_reserved"],
        "state": d["state"],
        "brigadier": d["brigadier"]["name"],
        "attached_to": d["brigadier"]["attached_to"],
        "brigadier_status": d["brigadier"]["status"],
    }


def _set_game(battle: Battle, values: Mapping[str, Any]) -> tuple[Battle, list[str]]:
    values = _mapping(values, "the values")
    _refuse_unknown_fields(values, GAME_FIELDS, "the game")
    kw: dict[str, Any] = {}
    if "turn" in values:
        t = values["turn"]
        if isinstance(t, bool) or not isinstance(t, int) or t not in limits.TURN:
            raise IllegalAction(
                f"the turn must be a whole number from {limits.TURN.text()}, not {limits._show(t)}"
            )
        kw["turn"] = t
    if "phase" in values:
        kw["phase"] = Phase.parse(limits.text(values["phase"], "the phase"))
    if "active_side" in values:
        kw["active_side"] = limits.text(values["active_side"], "the active side")
    new = replace(battle, **kw)
    before = {k: str(getattr(battle, k)) for k in GAME_FIELDS}
    after = {k: str(getattr(new, k)) for k in GAME_FIELDS}
    changes = _changed(before, after)
    if not changes:
        raise IllegalAction("that changes nothing")
    return new, changes


@action_type("override")
@dataclass(frozen=True)
class Override(Action):
    """The umpire sets values by ruling. ``target`` is "unit", "brigade" or "game".

    Unit values: the fields of a unit (stands, micro_hits, markers, formation, x, y, facing_deg ...).
    Brigade values: staff_pips, staff_pips_reserved, state, name, attached_to, brigadier_status,
    brigadier_name. Game values: turn, phase, active_side. The result must keep every invariant
    of the order of battle; the reason is mandatory and goes in the log.
    """

    ends_refusals: ClassVar[bool] = False  # the umpire sets the markers himself
    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    target: str
    target_id: str
    values: Mapping[str, Any]
    reason: str


@resolver(Override)
def _resolve_override(battle: Battle, a: Override, dice: DiceSource, tables: RuleTables) -> Resolved:
    if not isinstance(a.reason, str) or not a.reason.strip():
        raise IllegalAction("an umpire's override needs a reason, which goes in the log")
    reason = a.reason.strip()
    units: tuple[str, ...] = ()
    if a.target == "unit":
        after, changes, u = _set_unit(battle, a.target_id, a.values)
        what, units = u.name, (u.id,)
    elif a.target == "brigade":
        after, changes, b = _set_brigade(battle, a.target_id, a.values)
        what = b.name
    elif a.target == "game":
        after, changes = _set_game(battle, a.values)
        what = "the game"
    else:
        raise IllegalAction(f"an override sets a unit, a brigade or the game, not {a.target!r}")
    steps = [Step(f"Umpire's override of {what}: {c}", units=units) for c in changes]
    if a.target == "unit":
        steps.extend(garrison_warnings(after, units[0], tables))
    if a.target == "game" and after.turn != battle.turn:
        steps.append(Step(_turn_jump(battle.turn, after.turn)))
    steps.append(Step(f"Reason: {reason}", units=units))
    return Resolved(after, steps, f"Umpire's override of {what}: {'; '.join(changes)} ({reason})")


def garrison_warnings(battle: Battle, unit_id: str, tables: RuleTables) -> list[Step]:
    """Warnings for the log when a unit marked Garrisoned breaks the garrison rules (RULE-03-3.1):
    a building holds at most ``shooting.buildings.garrison_stands`` stands of infantry or dismounted
    cavalry. An umpire's override stands (it is the umpire's authority), but the log says which
    rule it sets aside."""
    from rules.battle.order_of_battle import Marker
    from rules.battlefield.field import Battlefield
    from rules.shooting.volleys import garrison_of

    u = battle.unit(unit_id)
    if not u.in_play or not u.has(Marker.GARRISONED):
        return []
    bf = Battlefield(battle, tables)
    building = bf.building_of(u)
    if building is None:
        return []
    label = building.name or "the building"
    cap = tables.entry("shooting.buildings.garrison_stands")
    out = []
    try:
        bf.check_garrison(u, building.id)
    except IllegalAction as exc:
        out.append(
            Step(f"Warning: {exc.args[0]}; the override breaks {exc.rule}", rule=exc.rule, units=(u.id,))
        )
    inside = garrison_of(battle, building.id, tables)
    held = sum(g.stands for g in inside)
    if held > cap.value and u.stands <= cap.value:
        names = ", ".join(g.name for g in inside)
        out.append(
            Step(
                f"Warning: {label} now holds {held} stands ({names}), more than the {cap.value} a "
                f"building holds; the override breaks {cap.citation}",
                rule=cap.citation,
                units=tuple(g.id for g in inside),
            )
        )
    return out


def _turn_jump(before: int, after: int) -> str:
    """What an override of the turn number does to the journal, for the log and the reports."""
    if after == before + 1:
        return f"The game goes on to turn {after}; the rest of turn {before} is not played"
    if after > before:
        skipped = f"turn {before + 1} is" if after == before + 2 else f"turns {before + 1} to {after - 1} are"
        return f"The game jumps from turn {before} to turn {after}: {skipped} skipped, with nothing in the journal"
    return (
        f"The game goes back to turn {after}: the journal keeps what was played of turns {after} to "
        f"{before}, and turn {after} is played again"
    )


@action_type("add_unit")
@dataclass(frozen=True)
class AddUnit(Action):
    """Add a unit, given as a unit table (see :meth:`rules.battle.order_of_battle.Unit.to_dict`)."""

    ends_refusals: ClassVar[bool] = False  # the umpire sets the markers himself
    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    unit: Mapping[str, Any]


@resolver(AddUnit)
def _resolve_add_unit(battle: Battle, a: AddUnit, dice: DiceSource, tables: RuleTables) -> Resolved:
    u = Unit.from_dict(_mapping(a.unit, "the unit"))
    check_on_table(battle, u.x, u.y)
    if u.id in battle.units:
        raise IllegalAction(f"there is already a unit with the id '{u.id}' ({battle.units[u.id].name})")
    after = battle.with_unit(u)
    text = f"{u.name} ({u.stands} stands, {u.kind.label.lower()}) joins {after.brigade_of(u).name}"
    return Resolved(after, [Step(text, units=(u.id,))], text)


@action_type("edit_unit")
@dataclass(frozen=True)
class EditUnit(Action):
    ends_refusals: ClassVar[bool] = False  # the umpire sets the markers himself
    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    unit_id: str
    values: Mapping[str, Any]


@resolver(EditUnit)
def _resolve_edit_unit(battle: Battle, a: EditUnit, dice: DiceSource, tables: RuleTables) -> Resolved:
    after, changes, u = _set_unit(battle, a.unit_id, a.values)
    steps = [Step(f"{u.name}: {c}", units=(u.id,)) for c in changes]
    return Resolved(after, steps, f"{u.name} edited: {'; '.join(changes)}")


@action_type("remove_unit")
@dataclass(frozen=True)
class RemoveUnit(Action):
    ends_refusals: ClassVar[bool] = False  # the umpire sets the markers himself
    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    unit_id: str


@resolver(RemoveUnit)
def _resolve_remove_unit(battle: Battle, a: RemoveUnit, dice: DiceSource, tables: RuleTables) -> Resolved:
    u = _unit(battle, a.unit_id)
    oob = battle.oob.without_unit(u.id)
    gone = sorted(set(battle.units) - set(oob.units) - {u.id})
    text = f"{u.name} is removed from the battle"
    steps = [Step(text, units=(u.id,))]
    for g in gone:
        steps.append(Step(f"{battle.units[g].name} is removed with its parent regiment", units=(g,)))
    b = battle.brigade_of(u)
    if b.brigadier.attached_to == u.id:
        steps.append(Step(f"{b.brigadier.name} is no longer attached to a regiment"))
    return Resolved(replace(battle, oob=oob), steps, text)


@action_type("add_brigade")
@dataclass(frozen=True)
class AddBrigade(Action):
    """Add a brigade, given as a brigade table (see :meth:`rules.battle.order_of_battle.Brigade.to_dict`)."""

    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    brigade: Mapping[str, Any]


@resolver(AddBrigade)
def _resolve_add_brigade(battle: Battle, a: AddBrigade, dice: DiceSource, tables: RuleTables) -> Resolved:
    b = Brigade.from_dict(_mapping(a.brigade, "the brigade"))
    if b.id in battle.brigades:
        raise IllegalAction(f"there is already a brigade with the id '{b.id}' ({battle.brigades[b.id].name})")
    if b.brigadier.attached_to is not None:
        raise IllegalAction(f"{b.name} has no regiments yet for {b.brigadier.name} to attach to")
    after = battle.with_brigade(b)
    text = f"{b.name} ({b.brigadier.name or 'no Brigadier'}) joins {after.oob.side(b.side).name}"
    return Resolved(after, [Step(text)], text)


@action_type("edit_brigade")
@dataclass(frozen=True)
class EditBrigade(Action):
    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    brigade_id: str
    values: Mapping[str, Any]


@resolver(EditBrigade)
def _resolve_edit_brigade(battle: Battle, a: EditBrigade, dice: DiceSource, tables: RuleTables) -> Resolved:
    after, changes, b = _set_brigade(battle, a.brigade_id, a.values)
    return Resolved(
        after, [Step(f"{b.name}: {c}") for c in changes], f"{b.name} edited: {'; '.join(changes)}"
    )


@action_type("remove_brigade")
@dataclass(frozen=True)
class RemoveBrigade(Action):
    """Remove a brigade and every unit of it."""

    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    brigade_id: str


@resolver(RemoveBrigade)
def _resolve_remove_brigade(
    battle: Battle, a: RemoveBrigade, dice: DiceSource, tables: RuleTables
) -> Resolved:
    b = _brigade(battle, a.brigade_id)
    units = battle.oob.units_of_brigade(b.id)
    outside = [u for u in battle.units.values() if u.brigade != b.id and u.parent in {x.id for x in units}]
    if outside:
        raise IllegalAction(
            f"{outside[0].name} of another brigade has its parent regiment in {b.name}; remove it first"
        )
    after = replace(battle, oob=battle.oob.without_brigade(b.id))
    text = f"{b.name} is removed from the battle"
    steps = [Step(text)] + [Step(f"{u.name} is removed with its brigade", units=(u.id,)) for u in units]
    return Resolved(after, steps, text + (f" with {len(units)} units" if units else ""))


# --------------------------------------------------------------------------------------------
# Terrain
# --------------------------------------------------------------------------------------------


@action_type("add_terrain")
@dataclass(frozen=True)
class AddTerrain(Action):
    """Add a terrain feature, given as a feature table (see :meth:`TerrainFeature.to_dict`)."""

    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    feature: Mapping[str, Any]


@resolver(AddTerrain)
def _resolve_add_terrain(battle: Battle, a: AddTerrain, dice: DiceSource, tables: RuleTables) -> Resolved:
    f = TerrainFeature.from_dict(_mapping(a.feature, "the terrain feature"))
    if any(x.id == f.id for x in battle.terrain):
        raise IllegalAction(f"there is already a terrain feature with the id '{f.id}'")
    # "Herbst Woods (light woods) is placed"; a feature drawn without a name is its type alone
    text = f"{f.name} ({f.type.label.lower()}) is placed" if f.name else f"{f.type.label} is placed"
    return Resolved(replace(battle, terrain=(*battle.terrain, f)), [Step(text)], text)


@action_type("edit_terrain")
@dataclass(frozen=True)
class EditTerrain(Action):
    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    feature_id: str
    values: Mapping[str, Any]


_TERRAIN_FIELDS = ("type", "points", "name", "level", "crest", "structural_hits", "width_in", "props")


@resolver(EditTerrain)
def _resolve_edit_terrain(battle: Battle, a: EditTerrain, dice: DiceSource, tables: RuleTables) -> Resolved:
    f = _feature(battle, a.feature_id)
    values = _mapping(a.values, "the values")
    _refuse_unknown_fields(values, _TERRAIN_FIELDS, "a terrain feature")
    before = f.to_dict()
    new = TerrainFeature.from_dict({**before, **{k: _to_json(v) for k, v in values.items()}})
    after = new.to_dict()
    keys = sorted(set(before) | set(after))
    redrawn = {"points": "redrawn", "crest": "crestline redrawn", "props": "properties changed"}
    shift = _shift_of(f, new)
    if shift is not None:  # the whole feature moved: say by how much, and its crest went with it
        redrawn = {**redrawn, "points": f"moved {_shift_words(*shift)}", "crest": ""}
    changes = [
        redrawn[k] if k in redrawn else f"{k} {_show(before.get(k))} → {_show(after.get(k))}"
        for k in keys
        if before.get(k) != after.get(k)
    ]
    changes = [c for c in changes if c]
    if not changes:
        raise IllegalAction(f"that changes nothing for {f.name or f.id}")
    terrain = tuple(new if x.id == f.id else x for x in battle.terrain)
    name = new.name or new.id
    return Resolved(
        replace(battle, terrain=terrain),
        [Step(f"{name}: {c}") for c in changes],
        f"{name} edited: {'; '.join(changes)}",
    )


def _shift_of(f: TerrainFeature, new: TerrainFeature) -> tuple[float, float] | None:
    """The one offset (dx, dy) by which every point of ``f`` (and of its crest) was moved to give
    ``new``, or None if it was reshaped rather than moved."""
    if len(f.points) != len(new.points) or len(f.crest or ()) != len(new.crest or ()) or not f.points:
        return None
    dx, dy = new.points[0][0] - f.points[0][0], new.points[0][1] - f.points[0][1]
    if abs(dx) < 1e-9 and abs(dy) < 1e-9:
        return None
    pairs = [*zip(f.points, new.points, strict=True), *zip(f.crest or (), new.crest or (), strict=True)]
    if all(abs(b[0] - a[0] - dx) < 0.01 and abs(b[1] - a[1] - dy) < 0.01 for a, b in pairs):
        return dx, dy
    return None


def _shift_words(dx: float, dy: float) -> str:
    """An offset on the table in words: 6.0" right and 0.5" up the table (its whole length)."""
    parts = []
    if abs(dx) >= 0.05:
        parts.append(f'{abs(dx):.1f}" {"right" if dx > 0 else "left"}')
    if abs(dy) >= 0.05:
        parts.append(f'{abs(dy):.1f}" {"down" if dy > 0 else "up"} the table')
    words = " and ".join(parts) or "a fraction of an inch"
    return f'{words} ({math.hypot(dx, dy):.1f}" in all)' if len(parts) == 2 else words


@action_type("remove_terrain")
@dataclass(frozen=True)
class RemoveTerrain(Action):
    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    feature_id: str


@resolver(RemoveTerrain)
def _resolve_remove_terrain(
    battle: Battle, a: RemoveTerrain, dice: DiceSource, tables: RuleTables
) -> Resolved:
    f = _feature(battle, a.feature_id)
    text = f"{f.name or f.type.label} is removed"
    return Resolved(battle.without_feature(f.id), [Step(text)], text)


# --------------------------------------------------------------------------------------------
# The rule tables, changed during a game
# --------------------------------------------------------------------------------------------


@action_type("change_tables")
@dataclass(frozen=True)
class ChangeTables(Action):
    """The umpire changes values of the rule tables during the game, with the reason, for the rest
    of it: the tables in force are then the game's own with these values laid over them (the
    battle's ``table_values``). Each value is checked as a club's copy is (its kind and range; a
    club default only: a number a chapter gives, or one fixed by a rule, is refused). Undo takes
    the change back like any action."""

    values: Mapping[str, Any]
    reason: str


@resolver(ChangeTables)
def _resolve_change_tables(battle: Battle, a: ChangeTables, dice: DiceSource, tables: RuleTables) -> Resolved:
    from rules.errors import TableError

    values = dict(_mapping(a.values, "the values"))
    if not values:
        raise IllegalAction("a change of the rule tables needs at least one value")
    reason = str(a.reason or "").strip()
    if not reason:
        raise IllegalAction("a change of the rule tables needs its reason, for the log")
    try:
        tables.with_values(values)  # the checks a club's copy passes: kind, range, fixed entries
    except TableError as exc:
        raise IllegalAction(str(exc)) from None
    from rules.tables import club_change_problem

    steps, said = [], []
    for key in sorted(values):
        e = tables.entry(key)
        # and, as a club's copy, only club defaults: a number a chapter gives stays the rule's
        problem = club_change_problem(e, replace(e, value=values[key]))
        if problem:
            raise IllegalAction(problem)
        if e.value == values[key]:
            raise IllegalAction(f"{key} is {_show(e.value)} already")
        # a club default says why it is one (and the rule it stands in for, where it names one)
        why = e.citation if e.rule or not e.reason else f"club default: {e.reason}"
        line = f"{key}: {_show(e.value)} → {_show(values[key])} ({why})"
        steps.append(Step(line, rule=e.rule))
        said.append(f"{key} {_show(e.value)} → {_show(values[key])}")
    steps.append(Step(f"Reason: {reason}"))
    after = replace(battle, table_values={**battle.table_values, **values})
    return Resolved(after, steps, f"Rule tables changed: {'; '.join(said)} ({reason})")


# --------------------------------------------------------------------------------------------
# Staff Pips
# --------------------------------------------------------------------------------------------


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
    b = _brigade(battle, a.brigade_id)
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
    b = _brigade(battle, a.brigade_id)
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


# --------------------------------------------------------------------------------------------
# The turn sequence
# --------------------------------------------------------------------------------------------


@action_type("next_phase")
@dataclass(frozen=True)
class NextPhase(Action):
    """Go on to the next phase of the turn sequence (see :mod:`rules.turn.sequence`)."""


@resolver(NextPhase)
def _resolve_next_phase(battle: Battle, a: NextPhase, dice: DiceSource, tables: RuleTables) -> Resolved:
    from rules.turn.sequence import next_phase, phase_title

    after, steps = next_phase(battle, tables)
    # logged under the phase it ends: the summary (and the line that names the new phase) says it
    # is the step on to the next one
    summary = f"Next phase: {phase_title(after)}"
    steps = [replace(s, text=summary) if s.text == phase_title(after) else s for s in steps]
    return Resolved(after, steps, summary)


@action_type("end_turn")
@dataclass(frozen=True)
class EndTurn(Action):
    """End the active side's turn: go through its remaining phases to the other side's Phase 1."""


@resolver(EndTurn)
def _resolve_end_turn(battle: Battle, a: EndTurn, dice: DiceSource, tables: RuleTables) -> Resolved:
    from rules.turn.sequence import end_side_turn, phase_title

    who = battle.oob.side(battle.active_side).name
    after, steps = end_side_turn(battle, tables)
    return Resolved(after, steps, f"{who} ends its turn; {phase_title(after)}")


__all__ = [
    "ACTION_MODULES",
    "ACTION_TYPES",
    "RESOLVERS",
    "Action",
    "AddBrigade",
    "AddTerrain",
    "AddUnit",
    "ChangeFormation",
    "EditBrigade",
    "EditTerrain",
    "EditUnit",
    "EndTurn",
    "MOVEMENT",
    "MoveUnit",
    "STALLED",
    "allowance_of",
    "has_stalled",
    "march_refusal",
    "mark_stalled",
    "movement_record",
    "plan_march",
    "remaining_move_in",
    "scale_remaining_move",
    "NextPhase",
    "Override",
    "RemoveBrigade",
    "RemoveTerrain",
    "RemoveUnit",
    "ReservePip",
    "Resolved",
    "Resolver",
    "SpendPip",
    "action_type",
    "load_action_modules",
    "resolve",
    "resolver",
]
