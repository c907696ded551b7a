"""Legality: what a unit may do now, and for everything it may not, why, with the rule.

The rules are asked here the way python-chess is asked for ``legal_moves``: which units may march,
fire or garrison, at which enemies a unit may fire or which it may charge, which reactions a
defender may take. Nothing here is a rule of its own: each question asks the function that checks
the rule when the action is resolved (:func:`rules.battlefield.marches.march_refusal`,
:meth:`rules.battlefield.field.Battlefield.legal_targets`, :func:`rules.shooting.volleys.firer_refusal`,
:func:`rules.assault.declaration.declaration_problems`, :func:`rules.reactions.triggers.defender_choice`, the
``garrison_building`` action ...), so that what the interface offers and what the rules allow
cannot drift apart.

The answers are small frozen values: a :class:`Legal` for what the unit may do, a
:class:`Refusal` (the reason in the rules' words and the rule id) for what it may not. Where a
question has many answers (the targets of a volley, the enemies a unit might charge) they come as a
tuple of both, in the order the interface lists them; :func:`allowed` keeps the legal ones.

>>> from rules.battle.battle import Battle
>>> from rules.battle.order_of_battle import Brigade, Brigadier, OrderOfBattle, Side
>>> from rules.battle.unit import Unit
>>> from rules.battle.words import Phase, UnitKind
>>> from rules.tables import load_tables
>>> def regiment(uid, name, side, y, facing):
...     return Unit(id=uid, name=name, side=side, brigade=side[0] + "b", kind=UnitKind.INFANTRY,
...                 stands=5, stands_start=5, x=30.0, y=y, facing_deg=facing)
>>> oob = OrderOfBattle(
...     sides=(Side("union", "Union"), Side("csa", "Confederacy")),
...     brigades={"ub": Brigade("ub", "Iron Brigade", "union", Brigadier("Meredith"), staff_pips=1),
...               "cb": Brigade("cb", "Stonewall Brigade", "csa", Brigadier("Garnett"))},
...     units={u.id: u for u in (regiment("wis2", "2nd Wisconsin", "union", 20.0, 0.0),
...                              regiment("va4", "4th Virginia", "csa", 12.0, 180.0),
...                              regiment("va5", "5th Virginia", "csa", 4.0, 180.0))})
>>> battle = Battle("duel", oob, active_side="union", phase=Phase.MANEUVER)
>>> t = load_tables()
>>> march_refusal(battle, "wis2", t) is None
True
>>> refusal = march_refusal(battle, "va4", t)
>>> print(refusal)
4th Virginia marches only in its own side's Phase 2...; out of it the umpire places the unit (RULE-04-1.2)
>>> refusal.action  # a move of it is the umpire's placement
'place'
>>> for option in charge_targets(battle, "wis2", t):
...     print(option.unit_id, option.allowed, option)
va4 True 4th Virginia may be charged
va5 False 5th Virginia is 16.0" away, beyond the 9" Double-Quick Charge Range (RULE-06-1.3)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from rules.battle.battle import Battle
from rules.battle.words import Marker
from rules.battlefield.marches import PLACE, in_own_maneuver, off_table_refusal
from rules.battlefield.marches import march_refusal as _march_check
from rules.errors import IllegalAction, InvariantError, RulesError
from rules.tables import RuleTables

if TYPE_CHECKING:
    from rules.reactions.declare import Threat
    from rules.reactions.triggers import DefenderChoice, TriggerWindow


@dataclass(frozen=True)
class Legal:
    """Something a unit may do now: the unit it may do it to or with (``unit_id``: a target, a
    firer, a defender ...), what makes it legal (``why``, ``rule``) and, where it is measured, the
    distance. ``action`` names what may be done where a question has several (a reaction);
    ``detail`` is the rules' own record of it (a :class:`rules.battlefield.field.TargetOption`, a
    :class:`rules.reactions.declare.Option`), for an interface that shows more."""

    unit_id: str
    why: str = ""
    rule: str | None = None
    distance_in: float | None = None
    action: str | None = None
    detail: Any = field(default=None, compare=False, repr=False)

    allowed: ClassVar[bool] = True

    def __str__(self) -> str:
        return self.why + (f" ({self.rule})" if self.rule else "")


@dataclass(frozen=True)
class Refusal:
    """Something a unit may not do now, the reason in the rules' words and the rule that says so.

    ``more`` holds the further reasons where the rules give several (every unmet condition of a
    charge's declaration). ``action`` names what is refused where a question has several (a
    reaction), or, for a march (:func:`march_refusal`), ``"place"`` when a move of the unit is the
    umpire's placement instead. :meth:`error` is the :class:`~rules.errors.IllegalAction` to raise.

    >>> r = Refusal("va5", 'the 5th Virginia is 16.0" away, beyond the 9" Double-Quick Charge Range',
    ...             "RULE-06-1.3")
    >>> str(r) == str(r.error())
    True
    >>> r.error().rule
    'RULE-06-1.3'
    """

    unit_id: str
    reason: str
    rule: str | None = None
    distance_in: float | None = None
    action: str | None = None
    more: tuple[Refusal, ...] = ()
    detail: Any = field(default=None, compare=False, repr=False)

    allowed: ClassVar[bool] = False

    def __str__(self) -> str:
        return self.reason + (f" ({self.rule})" if self.rule else "")

    @property
    def reasons(self) -> tuple[Refusal, ...]:
        """This refusal and its further reasons, in the order the rules give them."""
        return (self, *self.more)

    def error(self) -> IllegalAction:
        """The refusal as the error the rules raise for it."""
        return IllegalAction(self.reason, self.rule)

    @classmethod
    def of(cls, unit_id: str, error: RulesError, **kw: Any) -> Refusal:
        """The refusal an error of the rules stands for: its message without the rule, and the rule."""
        rule = getattr(error, "rule", None)
        text = str(error)
        if rule and text.endswith(f" ({rule})"):
            text = text[: -len(f" ({rule})")]
        return cls(unit_id, text, rule, **kw)


Option = Legal | Refusal


def allowed(options: Iterable[Option]) -> list[Legal]:
    """The legal ones among ``options``, in their order."""
    return [o for o in options if isinstance(o, Legal)]


def refused(options: Iterable[Option]) -> list[Refusal]:
    """The refused ones among ``options``, in their order."""
    return [o for o in options if isinstance(o, Refusal)]


# -- marching (Phase 2) ---------------------------------------------------------------------------


def march_refusal(
    battle: Battle, unit_id: str, tables: RuleTables, to: tuple[Any, Any] | None = None
) -> Refusal | None:
    """Why the unit may not march now (and, with ``to``, towards that point), or None if it may: the
    one question asked wherever a march is decided, by the procedure of play, the window's drag and
    the command line's ``move``.

    None: a move of the unit is a march under the movement rules, through its Trigger Windows A.
    A :class:`Refusal` says why not, with the rule, and is of one of two kinds:

    * its ``action`` is ``"place"`` (the mode of the :class:`~rules.battlefield.marches.MoveUnit`
      the move becomes): the unit does not march now at all, it not being its side's Phase 2
      (RULE-04-1.2) or the unit having been destroyed. A move of it is the umpire's placement.
    * its ``action`` is None: the unit would march, but the march is refused: the unit has used its
      whole movement allowance this turn, its charge stalled (RULE-06-2.5), the battle has no such
      unit, or ``to`` is off the table or no point at all (:func:`off_table`). The umpire may still
      place it by hand, with a reason for the log.

    The checks are those the march makes when it is resolved
    (:func:`rules.battlefield.marches.march_refusal`).
    """
    refusal = _march_check(battle, unit_id, tables)
    if refusal is not None:
        u = battle.units.get(unit_id)
        placed = u is not None and (not u.in_play or not in_own_maneuver(battle, u))
        return Refusal.of(unit_id, refusal, action=PLACE if placed else None)
    return None if to is None else off_table(battle, unit_id, *to)


def off_table(battle: Battle, unit_id: str, x: Any, y: Any) -> Refusal | None:
    """Why a march of the unit to (x, y) is refused before it starts because the point is off the
    table or is no point at all, or None. The same check :class:`rules.actions.MoveUnit` makes
    (:func:`rules.actions.off_table_refusal`), on the point to 0.01" as the march takes it, worded
    for the march."""
    u = battle.units.get(unit_id)
    name = u.name if u is not None else unit_id
    try:
        px, py = round(float(x), 2), round(float(y), 2)
    except (TypeError, ValueError, OverflowError):
        px = py = math.nan
    if not (math.isfinite(px) and math.isfinite(py)):
        return Refusal(unit_id, f"{name} cannot march to ({x!r}, {y!r}): not a point on the table")
    refusal = off_table_refusal(battle, px, py, name)
    return None if refusal is None else Refusal.of(unit_id, refusal)


# -- shooting (Phase 3) ---------------------------------------------------------------------------


def may_fire(battle: Battle, firer_id: str, tables: RuleTables) -> Refusal | None:
    """Why the unit may not fire a Phase 3 volley now at any target, or None if it may: it has been
    destroyed, it is not its side's Phase 3 (:func:`rules.shooting.volleys.phase_3_refusal`), or it cannot
    fire (:func:`rules.shooting.volleys.firer_refusal`: no firearms, limbered, climbing out of a sunken road,
    RULE-03-2.5, marked Fired by its Phase 3 volley or bombardment or by Opportunity Fire, each named,
    RULE-04-3.4)."""
    from rules.shooting.volleys import FireKind, firer_refusal, phase_3_refusal

    u = battle.units.get(firer_id)
    if u is None:
        return Refusal(firer_id, f"there is no unit '{firer_id}'")
    refusal = (
        firer_refusal(u, FireKind.PHASE_3, battle)
        if not u.in_play
        else phase_3_refusal(battle, u) or firer_refusal(u, FireKind.PHASE_3, battle)
    )
    return None if refusal is None else Refusal.of(firer_id, refusal)


def shoot_firers(battle: Battle, tables: RuleTables) -> tuple[Option, ...]:
    """Every unit in play of the side to act, in the order of battle: a :class:`Legal` for each that
    may fire its Phase 3 volley now, a :class:`Refusal` (:func:`may_fire`) for each that may not."""
    out: list[Option] = []
    for u in battle.oob.in_play(battle.active_side):
        refusal = may_fire(battle, u.id, tables)
        out.append(Legal(u.id, "may fire its volley") if refusal is None else refusal)
    return tuple(out)


def shoot_firers_with_targets(battle: Battle, tables: RuleTables) -> tuple[Option, ...]:
    """:func:`shoot_firers`, where a unit that may fire but has no enemy to fire at (none in its
    45 degree forward arc, within its weapon's range and in sight) is refused too, with that
    reason: it cannot fire now (RULE-03-5.1, RULE-03-5.6). The nearest enemies are looked at first,
    so a unit with a target is found at once."""
    import math

    from rules.battlefield.field import Battlefield
    from rules.battlefield.geometry import distance_in

    options = shoot_firers(battle, tables)
    if not any(isinstance(o, Legal) for o in options):
        return options
    bf = Battlefield(battle, tables)
    enemies = [u for u in battle.oob.in_play() if u.side != battle.active_side]
    reach = {
        e.id: (bf.footprint(e), math.hypot(bf.footprint(e).frontage_in, bf.footprint(e).depth) / 2)
        for e in enemies
    }
    out: list[Option] = []
    for o in options:
        if not isinstance(o, Legal):
            out.append(o)
            continue
        f = battle.unit(o.unit_id)
        ff = bf.footprint(f)
        rng = bf.max_range_in(f)
        rf = math.hypot(ff.frontage_in, ff.depth) / 2
        near = []
        for e in enemies:
            fe, re_ = reach[e.id]
            if math.dist(ff.centre, fe.centre) - rf - re_ <= rng:  # (a quick bound before measuring)
                near.append((distance_in(ff, fe, tables), e.id))
        target = None
        for d, eid in sorted(near):
            if d > rng:
                break
            if bf.in_arc(f, eid) and bf.line_of_sight(f.id, eid).visible:
                target = eid
                break
        if target is None:
            out.append(
                Refusal(
                    f.id,
                    f"{f.name} has no enemy in its 45 degree forward arc, within its range and in sight",
                    "RULE-03-5.6",
                )
            )
        else:
            out.append(o)
    return tuple(out)


def shoot_targets(
    battle: Battle, firer_id: str, tables: RuleTables, charging: Iterable[str] = ()
) -> tuple[Option, ...]:
    """Every enemy unit in play as a target of the firer's Phase 3 volley, closest first: a
    :class:`Legal` for each it may fire on now, a :class:`Refusal` for each it may not, with the
    reason and the rule (target priority RULE-03-5.6, the 45 degree arc RULE-03-5.1, range, line
    of sight by chapter 03, 4.0 and 5.0: :meth:`rules.battlefield.field.Battlefield.legal_targets`).

    A firer that may not fire at all (:func:`may_fire`) may fire on none of them: each is refused
    with the firer's reason. ``charging`` names enemies charging the firer, the mandatory targets.
    Each answer's ``detail`` is the :class:`~rules.battlefield.field.TargetOption` measured on the table
    (arc, range, sight, enfilade, whether it is mandatory).
    """
    from rules.battlefield.field import Battlefield
    from rules.shooting.volleys import weapon_key

    firer = battle.unit(firer_id)
    cannot = may_fire(battle, firer_id, tables)
    reach_rule = None
    try:
        reach_rule = tables.entry(f"shooting.max_range.{weapon_key(firer)}").citation
    except RulesError:
        pass
    out: list[Option] = []
    for o in Battlefield(battle, tables).legal_targets(firer, charging):
        kw = {"distance_in": o.distance_in, "detail": o}
        if cannot is not None:
            out.append(Refusal(o.unit_id, cannot.reason, cannot.rule, **kw))
        elif o.allowed:
            out.append(Legal(o.unit_id, o.why, o.rule, **kw))
        else:
            rule = o.rule
            if rule is None and o.in_arc and not o.in_range:
                rule = reach_rule  # out of range: the weapon's maximum range is a table entry
            out.append(Refusal(o.unit_id, o.why, rule, **kw))
    return tuple(out)


# -- charging (Phase 2) ---------------------------------------------------------------------------


def charge_targets(battle: Battle, attacker_id: str, tables: RuleTables) -> tuple[Option, ...]:
    """Every enemy unit in play as the target of a charge the attacker might declare now, nearest
    first: a :class:`Legal` for each it may charge, a :class:`Refusal` for each it may not, with every
    unmet condition of the declaration (:func:`rules.assault.declaration.declaration_problems`: the phase, the
    Staff Pip and the brigade's state RULE-06-1.2, formation, Disorder, the forward arc and the
    Double-Quick Charge Range RULE-06-1.3 ...), the first as the reason and the others in ``more``.
    """
    from rules.assault.declaration import declaration_problems
    from rules.battlefield.geometry import distance_in

    a = battle.unit(attacker_id)
    enemies = battle.oob.in_play(battle.oob.enemy_of(a.side))
    rows = sorted(((distance_in(a, e, tables), e.id, e) for e in enemies), key=lambda r: r[:2])
    out: list[Option] = []
    for d, eid, e in rows:
        problems = declaration_problems(battle, attacker_id, eid, tables)
        if not problems:
            out.append(Legal(eid, f"{e.name} may be charged", None, d))
            continue
        rest = tuple(Refusal(eid, p.message, p.rule, d) for p in problems[1:])
        out.append(Refusal(eid, problems[0].message, problems[0].rule, d, more=rest))
    return tuple(out)


# -- reactions (Trigger Windows A and B) -----------------------------------------------------------


def reactions_open(
    battle: Battle, defender_id: str, at: Threat | TriggerWindow | DefenderChoice, tables: RuleTables
) -> tuple[Option, ...]:
    """Every reaction of the window to the defender's kind (Evade for a screen, the others for a
    regiment or battery): a :class:`Legal` with its cost (``why``, and the cost's rule) for each it
    may take, a :class:`Refusal` with every reason (and rule) for each it may not. ``action`` is the
    reaction's name (:class:`rules.reactions.declare.Reaction`) and ``detail`` the
    :class:`rules.reactions.declare.Option`.

    ``at`` is the threat the defender faces (:class:`rules.reactions.declare.Threat`, measured now; the
    options of :func:`rules.reactions.triggers.defender_choice`), or a :class:`rules.reactions.triggers.TriggerWindow`
    found along a path (the defender's choice at it, which knows a defender that has already
    reacted to the move, RULE-04-1.4), or that choice itself.
    """
    from rules.reactions.declare import Threat
    from rules.reactions.triggers import Trigger, TriggerWindow, defender_choice

    if isinstance(at, Threat):
        if at.defender != defender_id:
            raise InvariantError(f"the threat is to '{at.defender}', not to '{defender_id}'")
        trigger = Trigger.CHARGE if at.charge else Trigger.FORWARD_ARC
        choice = defender_choice(battle, at, trigger, tables)
    elif isinstance(at, TriggerWindow):
        found = [d for d in at.defenders if d.defender == defender_id]
        if not found:
            raise InvariantError(f"'{defender_id}' is not a defender at this {at.window.label}")
        choice = found[0]
    else:
        choice = at
    out: list[Option] = []
    for o in choice.options:
        name = o.reaction.value
        if o.eligible:
            out.append(
                Legal(defender_id, str(o.cost), o.cost.rule if o.cost else None, action=name, detail=o)
            )
            continue
        first, *rest = o.reasons
        more = tuple(Refusal(defender_id, r.text, r.rule, action=name) for r in rest)
        out.append(Refusal(defender_id, first.text, first.rule, action=name, more=more, detail=o))
    return tuple(out)


# -- buildings (RULE-03-3.1) ------------------------------------------------------------------------


def garrison_candidates(battle: Battle, tables: RuleTables) -> tuple[Option, ...]:
    """Every unit in play of the side to act, by name: a :class:`Legal` for each that may garrison a
    building by what it is (infantry or dismounted cavalry of no more stands than a building holds,
    RULE-03-3.1: :meth:`rules.battlefield.field.Battlefield.check_garrison`), a :class:`Refusal` for the
    others. Whether it may occupy a given building now (the phase, touching it, the garrison already
    inside) is :func:`garrison_refusal`."""
    from rules.battle.terrain import TerrainType
    from rules.battlefield.field import Battlefield

    buildings = [f for f in battle.terrain if f.type == TerrainType.BUILDING]
    bf = Battlefield(battle, tables)
    out: list[Option] = []
    units = sorted(battle.oob.in_play(battle.active_side), key=lambda u: (u.name, u.id))
    for u in units:
        if not buildings:
            out.append(Refusal(u.id, "there is no building on the table"))
            continue
        try:
            bf.check_garrison(u, buildings[0].id)
        except RulesError as exc:
            out.append(Refusal.of(u.id, exc))
        else:
            out.append(Legal(u.id, "may garrison a building", "RULE-03-3.1"))
    return tuple(out)


def garrison_refusal(battle: Battle, unit_id: str, feature_id: str, tables: RuleTables) -> Refusal | None:
    """Why the unit may not occupy the building now, or None if it may: every condition the
    ``garrison_building`` action checks (RULE-03-3.1: its side's Phase 2, infantry or dismounted
    cavalry, at most 2 stands inside with any garrison already there, the colour stand touching the
    building; an enemy-held building is taken by assault, RULE-03-3.4)."""
    from rules.action_base import resolve
    from rules.dice import TableDice
    from rules.shooting.buildings import GarrisonBuilding

    try:
        resolve(battle, GarrisonBuilding(unit_id, feature_id), TableDice([]), tables)
    except RulesError as exc:
        return Refusal.of(unit_id, exc)
    return None


def dismantle_refusal(battle: Battle, unit_id: str, feature_id: str, tables: RuleTables) -> Refusal | None:
    """Why the unit may not dismantle the fence now, or None if it may: every condition the
    ``dismantle_fence`` action checks (RULE-03-2.1, :func:`rules.battlefield.dismantling.dismantle_refusal`)."""
    from rules.battlefield.dismantling import dismantle_refusal as _dismantle_check

    refusal = _dismantle_check(battle, unit_id, feature_id, tables)
    return None if refusal is None else Refusal.of(unit_id, refusal)


# -- melee (Phase 4) --------------------------------------------------------------------------------


def engaged_pairs(battle: Battle) -> list[tuple[str, str]]:
    """Enemy units both locked in melee (Engaged), the side to act's first, nearest first: the
    melees to re-roll (RULE-06-4.2), as (attacker, defender) ids."""
    locked = [u for u in battle.units.values() if u.in_play and u.has(Marker.ENGAGED)]
    pairs = []
    for a in locked:
        if a.side != battle.active_side:
            continue
        for d in locked:
            if d.side != a.side:
                pairs.append((math.dist((a.x, a.y), (d.x, d.y)), a.id, d.id))
    return [(a, d) for _, a, d in sorted(pairs)]


__all__ = [
    "Legal",
    "Option",
    "Refusal",
    "allowed",
    "charge_targets",
    "dismantle_refusal",
    "engaged_pairs",
    "garrison_candidates",
    "garrison_refusal",
    "march_refusal",
    "may_fire",
    "off_table",
    "reactions_open",
    "refused",
    "shoot_firers",
    "shoot_targets",
]
