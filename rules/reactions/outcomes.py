"""What each of the five Tactical Reactions of chapter 04 does: paying for it (a reserved Staff Pip
or a Discipline Check), and resolving it into its outcome, with the new battle and the steps of
the log. Every resolution is recorded against its triggering action (RULE-04-1.4). Who may take
each is in :mod:`rules.reactions.options`; the table of the five is in :mod:`rules.reactions.declare`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

from rules.battle.battle import Battle
from rules.battle.events import Modifier, Step
from rules.battle.unit import Unit, refused_flanks
from rules.battle.words import REFUSED_MARKER, Formation, Marker, UnitKind, plural
from rules.battlefield.geometry import point_along
from rules.battlefield.marches import mark_stalled, scale_remaining_move
from rules.dice import DiceSource
from rules.errors import IllegalAction, InvariantError
from rules.reactions.options import (
    CC,
    RF,
    CostKind,
    Reaction,
    Threat,
    _inches,
    commanded_cost,
    record_reaction,
    require,
)
from rules.reactions.refused_flank import how_long, stands_wheeled
from rules.shooting.volleys import (
    CoverClass,
    FireKind,
    Volley,
    VolleyOutcome,
    enfilade_refused,
    resolve_volley,
)
from rules.tables import RuleTables


def _records(fn):
    """Each reaction, once resolved, is recorded against its triggering action (RULE-04-1.4)."""

    @functools.wraps(fn)
    def run(battle: Battle, threat: Threat, dice: DiceSource, tables: RuleTables, **inputs):
        out = fn(battle, threat, dice, tables, **inputs)
        return replace(out, battle=record_reaction(out.battle, threat))

    return run


# -- paying for a reaction -----------------------------------------------------------------------


def _discipline_check(
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


def _spend_reserved(battle: Battle, unit: Unit, pips: int, rule: str, what: str) -> tuple[Battle, Step]:
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
    return _discipline_check(
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


@dataclass(frozen=True)
class EvadeOutcome(ReactionOutcome):
    withdrawn_in: float = 0.0
    behind_parent: bool = False


@dataclass(frozen=True)
class OverrunOutcome(ReactionOutcome):
    charger_slowed: bool = False  # an overrun never slows the charger (RULE-04-4.4)


@dataclass(frozen=True)
class RefuseFlankOutcome(ReactionOutcome):
    success: bool = False
    pip_spent: bool = False
    check_roll: int | None = None
    frozen: bool = False  # failed the emergency check: frozen in place, Disordered
    flank: str | None = None


@dataclass(frozen=True)
class CounterChargeOutcome(ReactionOutcome):
    surged_in: float = 0.0
    attacker_loses_momentum: bool = True  # RULE-04-5.5 (Counter-Charge, 6.0)
    attacker_loses_downhill: bool = True
    bonuses: tuple[Modifier, ...] = ()  # the counter-charger's +1 Rebel Yell or +1 Cavalry Shock
    success: bool = True
    check_roll: int | None = None


# -- geometry of the moves -----------------------------------------------------------------------


def _ahead(u: Unit, inches: float) -> tuple[float, float]:
    """The point ``inches`` straight ahead of the unit (negative: to the rear)."""
    return point_along((u.x, u.y), u.facing_deg, inches)


def _check_inches(value: float, lo_key: str, hi_key: str, tables: RuleTables, what: str) -> float:
    lo, hi = tables.entry(lo_key), tables.entry(hi_key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvariantError(f"the {what} must be a distance in inches, not {value!r}")
    if not lo.value <= value <= hi.value:
        raise IllegalAction(f'the {what} is {lo.value:g}" to {hi.value:g}", not {value:g}"', hi.citation)
    return float(value)


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


@_records
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
    """Reaction 1 (RULE-04-2.1, RULE-04-2.2, RULE-04-2.3, RULE-04-2.4, RULE-04-2.5, RULE-04-2.6, RULE-06-2.3, RULE-06-2.4, RULE-06-2.5).

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
    x, y = _ahead(charger, advance)
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


@_records
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
    """Reaction 2 (RULE-04-3.1, RULE-04-3.2, RULE-04-3.3, RULE-04-3.4, RULE-04-3.5): the mover is paused, fired on at short or medium range (a road
    column saves at -2), and the firer is marked with Smoke and Fired. A mover disordered by a
    natural 6 has its remaining movement halved (``remaining_move_factor``)."""
    require(battle, Reaction.OPPORTUNITY_FIRE, threat, tables)
    d, a = battle.unit(threat.defender), battle.unit(threat.attacker)
    steps = [
        Step(
            f'"Opportunity Fire!" {a.name}\'s move is paused {_inches(threat.distance_in)}" from {d.name} (free)',
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
    end = _ahead(screen, -want)
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


@_records
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
        else _check_inches(
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
            x, y = _ahead(parent, -depth)
            moved = d.moved_to(x, y, parent.facing_deg)
            text = (
                f'{d.name} evades {dist:g}" to the rear through {parent.name} without a Passage of Lines '
                f"test and is placed behind its colour stand"
            )
            behind = True
        else:
            x, y = _ahead(d, -dist)
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
    x, y = _ahead(d, -went)
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


# -- 4 Refuse the Flank --------------------------------------------------------------------------


@_records
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
        after, step = _spend_reserved(after, d, opt.cost.pips, "RULE-04-5.2" + RF, "Refuse the Flank")
        steps.append(step)
        pip_spent, success = True, True
    else:
        needed = tables.entry("discipline.check.commanded_reaction_without_pip")
        success, roll, step = _discipline_check(
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


# -- 5 Counter-Charge ----------------------------------------------------------------------------


@_records
def counter_charge(
    battle: Battle,
    threat: Threat,
    dice: DiceSource,
    tables: RuleTables,
    *,
    surge_in: float | None = None,
) -> CounterChargeOutcome:
    """Reaction 5 (RULE-04-5.1, RULE-04-5.2, RULE-04-5.3, RULE-04-5.4, RULE-04-5.5 (Counter-Charge, 6.0)).

    The reserved pip is spent and the defender surges 2.0"-3.0" straight ahead (the full 3.0" if
    not given). The attacker loses its charging momentum and any downhill bonus; the
    counter-charger gets its +1 Rebel Yell or +1 Cavalry Shock in the melee (``bonuses``).
    """
    opt = require(battle, Reaction.COUNTER_CHARGE, threat, tables)
    d, a = battle.unit(threat.defender), battle.unit(threat.attacker)
    dist = (
        float(tables.value("melee.charge.counter_charge_max_in"))
        if surge_in is None
        else _check_inches(
            surge_in,
            "melee.charge.counter_charge_min_in",
            "melee.charge.counter_charge_max_in",
            tables,
            "counter-charge surge",
        )
    )
    dist = min(dist, threat.distance_in)
    steps: list[Step] = []
    after = battle
    roll = None
    cost = opt.cost or commanded_cost(battle, d, tables)
    if cost.kind == CostKind.RESERVED_PIP:
        after, step = _spend_reserved(after, d, cost.pips, "RULE-04-5.3" + CC, "Counter-Charge")
        steps.append(step)
    else:
        passed, roll, step = _discipline_check(
            after, d, int(cost.check or 0), cost.rule, dice, "Counter-Charge without a reserved pip"
        )
        steps.append(step)
        if not passed:
            steps.append(Step(f"{d.name} does not counter-charge", rule=cost.rule, units=(d.id,)))
            return CounterChargeOutcome(
                reaction=Reaction.COUNTER_CHARGE,
                defender=d.id,
                attacker=a.id,
                battle=after,
                steps=tuple(steps),
                attacker_loses_momentum=False,
                attacker_loses_downhill=False,
                success=False,
                check_roll=roll,
            )
    d = after.unit(d.id)
    x, y = _ahead(d, dist)
    after = after.with_unit(d.moved_to(x, y))
    steps.append(
        Step(
            f'"Counter-Charge!" {d.name} surges {dist:g}" forward to meet {a.name}',
            rule="RULE-04-5.4" + CC,
            units=(d.id,),
        )
    )
    steps.append(
        Step(
            f"{a.name} loses its charging momentum and any downhill bonus",
            rule="RULE-04-5.5" + CC,
            units=(a.id,),
        )
    )
    from rules.melee.score import counter_charge_bonuses  # the melee owns the bonus it scores

    bonuses = counter_charge_bonuses(d, a, tables)
    if bonuses:
        steps.append(
            Step(
                f"{d.name} will add its shock bonus to the Opposed Melee Roll",
                rule="RULE-04-5.5" + CC,
                modifiers=tuple(bonuses),
                units=(d.id,),
            )
        )
    return CounterChargeOutcome(
        reaction=Reaction.COUNTER_CHARGE,
        defender=d.id,
        attacker=a.id,
        battle=after,
        steps=tuple(steps),
        surged_in=dist,
        bonuses=bonuses,
        check_roll=roll,
    )
