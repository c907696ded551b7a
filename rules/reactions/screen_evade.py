"""Reaction 3 of chapter 04: Skirmish / Screen Evade, a screen's withdrawal straight to its rear
(how far it has room for, and why it stops short), and the Overrun of a screen that did not evade.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.unit import Unit
from rules.battle.words import Formation, UnitKind
from rules.dice import DiceSource
from rules.errors import IllegalAction
from rules.reactions.options import Reaction, Threat, _inches, require
from rules.reactions.outcomes import ReactionOutcome, ahead, check_inches, records_reaction
from rules.tables import RuleTables


@dataclass(frozen=True)
class EvadeOutcome(ReactionOutcome):
    withdrawn_in: float = 0.0
    behind_parent: bool = False


@dataclass(frozen=True)
class OverrunOutcome(ReactionOutcome):
    charger_slowed: bool = False  # an overrun never slows the charger (RULE-04-4.4)


# -- 3 Skirmish / Screen Evade and the Overrun ---------------------------------------------------


@dataclass(frozen=True)
class EvadeRoom:
    """How far a screen can withdraw straight to its rear (RULE-04-4.3), up to the distance asked,
    and what stops it short (``reason`` with its ``rule``; empty when nothing does)."""

    reach_in: float
    reason: str = ""
    rule: str | None = None


def evade_room(battle: Battle, screen: Unit, tables: RuleTables, wanted_in: float | None = None) -> EvadeRoom:
    """How far ``screen`` can withdraw "directly to the rear" (RULE-04-4.3), up to ``wanted_in``
    (the full 6.0" if not given): the table's edge, terrain it may not enter (impassable, or closed
    to its formation, RULE-03-3.3) and an enemy unit in the way stop it. Friendly formed lines do
    not: it "moves directly through" them (the Passage Exemption)."""
    from shapely.geometry import LineString, Point, Polygon

    from rules.battlefield.field import Battlefield
    from rules.battlefield.geometry import footprint

    want = float(tables.value("movement.trigger.evade_max_in")) if wanted_in is None else float(wanted_in)
    start = (screen.x, screen.y)
    end = ahead(screen, -want)
    reach, reason, rule = want, "", None
    # the table's edge
    w, h = battle.table_width_in, battle.table_height_in
    edge = Polygon([(0, 0), (w, 0), (w, h), (0, h)])
    path = LineString([start, end])
    if not edge.covers(path):
        inside = path.intersection(edge)
        left = float(inside.length) if not inside.is_empty else 0.0
        if left < reach:
            reach, rule = left, None
            reason = f'the edge of the table is {_inches(left)}" behind it'
    # terrain, as a move would meet it
    plan = Battlefield(battle, tables).plan_move(screen, [end], allowance_in=want * 10)
    if plan.halted_by and plan.moved_in < reach:
        reach, rule = plan.moved_in, plan.halt_rule
        reason = f'{plan.halt_reason.split(": ", 1)[-1]}, {_inches(reach)}" behind it'
    # an enemy unit in the way
    for u in battle.oob.in_play(battle.oob.enemy_of(screen.side)):
        hit = path.intersection(footprint(u, tables).polygon)
        if hit.is_empty:
            continue
        d = min(path.project(Point(c)) for c in _coords_of(hit))
        if d < reach:
            reach, rule = d, None
            reason = f'{u.name} is in the way, {_inches(d)}" behind it'
    return EvadeRoom(max(reach, 0.0), reason, rule)


def _coords_of(geom) -> list[tuple[float, float]]:
    if hasattr(geom, "geoms"):
        return [c for g in geom.geoms for c in _coords_of(g)]
    return list(geom.coords)


def evade_refusal(battle: Battle, screen: Unit, tables: RuleTables) -> str | None:
    """Why the screen cannot evade at all (RULE-04-4.3): it has not the room for the shortest
    withdrawal, 4.0"; None if it has."""
    least = float(tables.value("movement.trigger.evade_min_in"))
    room = evade_room(battle, screen, tables)
    if room.reach_in + 1e-6 >= least:
        return None
    return f"{screen.name} has not the {least:g}\" of an evade's withdrawal to its rear: {room.reason}"


@records_reaction
def evade(
    battle: Battle,
    threat: Threat,
    dice: DiceSource,
    tables: RuleTables,
    *,
    withdraw_in: float | None = None,
    along_path: bool = True,
) -> EvadeOutcome:
    """Reaction 3 (RULE-04-4.3): the screen "executes a 4.0"–6.0" withdrawal move directly to the
    rear": ``withdraw_in`` (the full 6.0" if not given), straight back along its retreat path,
    through friendly formed lines without a Passage of Lines test. Its withdrawal takes it through
    its parent regiment where the parent stands behind it: it is then reintegrated into the rear
    rank or behind the colour stand, and faces as the parent does. The log says how far it went.

    The edge of the table, terrain it may not enter or an enemy unit in its way stop it: short of
    the distance chosen but at 4.0" or more, it stops there and the log says why; with less than
    4.0" of room the evade is refused (:func:`evade_refusal`).

    ``along_path=False`` is how an evade saved before reads again: the screen was placed behind its
    parent's colour stand, whatever the distance.
    """
    require(battle, Reaction.EVADE, threat, tables)
    d, a = battle.unit(threat.defender), battle.unit(threat.attacker)
    dist = (
        float(tables.value("movement.trigger.evade_max_in"))
        if withdraw_in is None
        else check_inches(
            withdraw_in,
            "movement.trigger.evade_min_in",
            "movement.trigger.evade_max_in",
            tables,
            "evade withdrawal",
        )
    )
    parent = battle.units.get(d.parent) if d.parent else None
    declared = Step(
        f"{d.name} declares Skirmish / Screen Evade against {a.name} (free)",
        rule="RULE-04-4.2",
        units=(d.id, a.id),
    )
    goes_on = Step(
        f"{a.name} does not stop: it continues its move or charge", rule="RULE-04-4.4", units=(a.id,)
    )
    if not along_path:
        if parent is not None and parent.in_play:
            depth = _depth(parent, tables)
            x, y = ahead(parent, -depth)
            moved = d.moved_to(x, y, parent.facing_deg)
            text = (
                f'{d.name} evades {dist:g}" to the rear through {parent.name} without a Passage of Lines '
                f"test and is placed behind its colour stand"
            )
            behind = True
        else:
            x, y = ahead(d, -dist)
            moved = d.moved_to(x, y)
            text = f'{d.name} evades {dist:g}" straight to the rear'
            behind = False
        return EvadeOutcome(
            reaction=Reaction.EVADE,
            defender=d.id,
            attacker=a.id,
            battle=battle.with_unit(moved),
            steps=(declared, Step(text, rule="RULE-04-4.3", units=(d.id,)), goes_on),
            withdrawn_in=dist,
            behind_parent=behind,
        )
    least = float(tables.value("movement.trigger.evade_min_in"))
    room = evade_room(battle, d, tables, dist)
    if room.reach_in + 1e-6 < least:
        raise IllegalAction(
            f'{d.name} cannot evade: it has not the {least:g}" of the withdrawal to its rear: {room.reason}',
            "RULE-04-4.3",
        )
    went = round(min(dist, room.reach_in), 2)
    x, y = ahead(d, -went)
    moved = d.moved_to(round(x, 4), round(y, 4))
    behind = False
    through = ""
    if parent is not None and parent.in_play:
        from rules.battlefield.geometry import footprint

        fp = footprint(parent, tables)
        ((u, v),) = fp.to_local([(moved.x, moved.y)])
        if v <= 1e-9 and fp.u_min - 1e-9 <= u <= fp.u_max + 1e-9:
            behind = True
            moved = moved.moved_to(moved.x, moved.y, parent.facing_deg)
            where = (
                "is reintegrated into its rear rank"
                if -v <= fp.depth + 1e-9
                else "is placed behind its colour stand"
            )
            through = f", through {parent.name} without a Passage of Lines test, and {where}"
    steps = [
        declared,
        Step(
            f'{d.name} evades {_inches(went)}" directly to the rear{through}',
            rule="RULE-04-4.3",
            units=(d.id,),
        ),
    ]
    if went < dist - 1e-6:
        steps.append(
            Step(
                f'{d.name} stops after {_inches(went)}" of the {dist:g}" chosen: {room.reason}',
                rule=room.rule or "RULE-04-4.3",
                units=(d.id,),
            )
        )
    steps.append(goes_on)
    return EvadeOutcome(
        reaction=Reaction.EVADE,
        defender=d.id,
        attacker=a.id,
        battle=battle.with_unit(moved),
        steps=tuple(steps),
        withdrawn_in=went,
        behind_parent=behind,
    )


def _depth(unit: Unit, tables: RuleTables) -> float:
    """How deep the unit's formation is, front edge to rear (from :mod:`rules.battlefield.geometry`)."""
    from rules.battlefield.geometry import footprint

    return footprint(unit, tables).depth


def overrun(battle: Battle, screen_id: str, charger_id: str, tables: RuleTables) -> OverrunOutcome:
    """The Overrun (RULE-04-4.4): a screen that did not evade and is contacted by a charging formed
    unit (infantry line or column, or cavalry) is destroyed without a melee roll; the charger is not
    slowed and continues into the target behind."""
    s, c = battle.unit(screen_id), battle.unit(charger_id)
    if not s.is_screen:
        raise IllegalAction(f"{s.name} is not a skirmish stand or cavalry screen", "RULE-04-4.4")
    if not s.in_play:
        raise IllegalAction(f"{s.name} has already been removed")
    formed = c.kind in (UnitKind.INFANTRY, UnitKind.CAVALRY) and c.formation in (
        Formation.LINE,
        Formation.ASSAULT_COLUMN,
        Formation.ROAD_COLUMN,
        Formation.MOUNTED,
    )
    if not formed:
        raise IllegalAction(
            f"{c.name} is not a formed infantry line or column or cavalry and cannot overrun {s.name}",
            "RULE-04-4.4",
        )
    if c.side == s.side:
        raise IllegalAction(f"{c.name} and {s.name} are on the same side")
    gone, _ = s.lose_stands(s.stands)
    steps = (
        Step(
            f"{s.name} did not evade and is overrun by {c.name}: destroyed without a melee roll",
            rule="RULE-04-4.4",
            units=(s.id, c.id),
        ),
        Step(
            f"{c.name}'s momentum is not slowed: it continues its charge", rule="RULE-04-4.4", units=(c.id,)
        ),
    )
    return OverrunOutcome(
        reaction=Reaction.EVADE,
        defender=s.id,
        attacker=c.id,
        battle=battle.with_unit(gone),
        steps=steps,
    )
