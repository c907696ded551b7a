"""Dismantling a wooden fence (RULE-03-2.1): "An infantry regiment in contact with a wooden fence
may spend its entire movement phase to permanently dismantle a section equal to its frontage,
removing the fence piece from the board."

:class:`DismantleFence` is the order, in the regiment's own side's Phase 2, by a regiment that
has not marched or turned this turn and whose front edge touches a split-rail fence (within
``terrain.cover.touching_in``, as for the fence's cover). The section taken down is as long as the
regiment's frontage, along the fence where it touches (centred on the middle of its front edge,
ending where the fence ends); the fence is split in two around it, shortened at an end, or gone.
The section no longer costs movement to cross nor gives cover. The regiment's whole movement
allowance is spent (its movement record), so it cannot march again this turn.
:func:`dismantle_refusal` says why a unit may not dismantle a fence now, with its rule.

>>> a = DismantleFence(unit_id="wis2", feature_id="fence1")
>>> a.to_dict()
{'type': 'dismantle_fence', 'unit_id': 'wis2', 'feature_id': 'fence1'}
>>> Action.from_dict(a.to_dict()) == a
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.action_base import Action, Resolved, action_type, feature_named, resolver, unit_named
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.terrain import TerrainFeature, TerrainType
from rules.battle.turn_records import MoveRecord
from rules.battle.unit import Unit
from rules.battle.words import Marker, Phase, UnitKind
from rules.battlefield.marches import allowance_of, has_stalled, in_own_maneuver
from rules.dice import DiceSource
from rules.errors import IllegalAction
from rules.tables import RuleTables

RULE = "RULE-03-2.1"

#: What "a wooden fence" is: split-rail and snake fences. Hedges are treated as fences for
#: crossing and cover only (RULE-03-2.3); stone walls and works are not wooden fences.
WOODEN_FENCES = frozenset({TerrainType.SPLIT_RAIL_FENCE})

# a piece of fence shorter than this is no piece at all (inches)
_CRUMB = 1e-3


@action_type("dismantle_fence")
@dataclass(frozen=True)
class DismantleFence(Action):
    """An infantry regiment spends its whole movement to take down a section of a wooden fence
    as long as its frontage, where its front edge touches the fence (RULE-03-2.1)."""

    unit_id: str
    feature_id: str


def _section(battle: Battle, u: Unit, fence: TerrainFeature, tables: RuleTables) -> tuple[float, float]:
    """Where along the fence (inches from its first point) the section the regiment takes down
    begins and ends; refused if its front edge does not touch the fence."""
    import shapely
    from shapely.geometry import LineString, Point

    from rules.battlefield.geometry import footprint

    fp = footprint(u, tables)
    line = LineString(fence.points)
    tol = float(tables.value("terrain.cover.touching_in"))
    gap = float(shapely.distance(fp.front_edge, line))
    label = fence.name or "the fence"
    if gap > tol + 1e-9:
        raise IllegalAction(
            f"{u.name}'s front edge is {gap:.1f}\" from {label}: a regiment dismantles a fence it is in "
            "contact with; move it up to the fence first",
            RULE,
        )
    (lx, ly), (rx, ry) = fp.left_front, fp.right_front
    mid = float(line.project(Point((lx + rx) / 2, (ly + ry) / 2)))
    half = fp.frontage_in / 2
    return max(mid - half, 0.0), min(mid + half, float(line.length))


def _fresh_id(battle: Battle, base: str) -> str:
    taken = {f.id for f in battle.terrain}
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def _check(battle: Battle, a: DismantleFence, tables: RuleTables) -> tuple[Unit, TerrainFeature]:
    u = unit_named(battle, a.unit_id)
    fence = feature_named(battle, a.feature_id)
    label = fence.name or fence.type.label.lower()
    if not u.in_play:
        raise IllegalAction(f"{u.name} has been destroyed")
    if u.kind != UnitKind.INFANTRY:
        raise IllegalAction(
            f"only an infantry regiment dismantles a fence; {u.name} is {u.kind.label.lower()}", RULE
        )
    if fence.type not in WOODEN_FENCES:
        raise IllegalAction(
            f"{label} is not a wooden fence: only split-rail and snake fences are dismantled", RULE
        )
    if not in_own_maneuver(battle, u):
        raise IllegalAction(
            f"{u.name} dismantles a fence by spending its movement, in its own side's {Phase.MANEUVER.title}",
            RULE,
        )
    if u.has(Marker.ENGAGED):
        raise IllegalAction(f"{u.name} is engaged in melee and cannot dismantle {label}", "RULE-06-1.1")
    if has_stalled(battle, u.id):
        stall = tables.entry("melee.charge.stall_in")
        raise IllegalAction(
            f"{u.name}'s charge stalled this turn: it cannot move or attack further this turn",
            stall.citation or "RULE-06-2.5",
        )
    if battle.extra.movement_of(u.id) is not None:
        raise IllegalAction(
            f"{u.name} has already marched or turned this turn: dismantling a fence takes its entire "
            "movement phase",
            RULE,
        )
    return u, fence


@resolver(DismantleFence)
def _resolve_dismantle(battle: Battle, a: DismantleFence, dice: DiceSource, tables: RuleTables) -> Resolved:
    from shapely.geometry import LineString
    from shapely.ops import substring

    u, fence = _check(battle, a, tables)
    lo, hi = _section(battle, u, fence, tables)
    line = LineString(fence.points)
    length = float(line.length)
    pieces = []
    if lo > _CRUMB:
        pieces.append(substring(line, 0.0, lo))
    if length - hi > _CRUMB:
        pieces.append(substring(line, hi, length))
    after = battle.without_feature(fence.id)
    for i, piece in enumerate(pieces):
        fid = fence.id if i == 0 else _fresh_id(after, fence.id)
        pts = tuple((float(x), float(y)) for x, y in piece.coords)
        after = after.with_feature(replace(fence, id=fid, points=pts))
    label = fence.name or "the fence"
    taken = hi - lo
    if not pieces:
        what = f"{label} is gone"
    elif len(pieces) == 1:
        what = f"{label} is shortened"
    else:
        what = f"{label} is split in two"
    text = f'{u.name} dismantles {taken:.1f}" of {label}, its frontage, and removes it from the table: {what}'
    allowance = allowance_of(u, tables)
    after = replace(
        after,
        extra=after.extra.with_movement(
            u.id, MoveRecord(spent_in=allowance, moved_in=0.0, start=(u.x, u.y, u.facing_deg))
        ),
    )
    steps = [
        Step(text, rule=RULE, units=(u.id,)),
        Step(f"{u.name} has spent its entire movement this turn", rule=RULE, units=(u.id,)),
    ]
    return Resolved(after, steps, text)


def dismantle_refusal(
    battle: Battle, unit_id: str, feature_id: str, tables: RuleTables
) -> IllegalAction | None:
    """Why the unit may not dismantle the fence now, or None if it may (every condition
    :class:`DismantleFence` checks, with its rule)."""
    try:
        u, fence = _check(battle, DismantleFence(unit_id, feature_id), tables)
        _section(battle, u, fence, tables)
    except IllegalAction as exc:
        return exc
    return None


def fences_touching(battle: Battle, unit_id: str, tables: RuleTables) -> list[TerrainFeature]:
    """The wooden fences the unit's front edge touches (RULE-03-2.1), in the terrain's order."""
    u = battle.units.get(unit_id)
    if u is None:
        return []
    out = []
    for f in battle.terrain:
        if f.type not in WOODEN_FENCES:
            continue
        try:
            _section(battle, u, f, tables)
        except IllegalAction:
            continue
        out.append(f)
    return out
