"""Assaults: declaring a charge, its path, the 4.0" line and Window B, and contact (chapter 06).

A charge goes through these stages, each a line of the log with its rule:

1. Declaration (RULE-06-1.2, RULE-06-1.3): :func:`declaration_problems` lists every condition that is
   not met, with its rule id; :func:`declare_charge` spends the Staff Pip.
2. The path (RULE-06-1.4, RULE-06-1.5): :func:`plan_charge` works out the single initial pivot (up to
   30 degrees), the straight line to the target's front or flank, what the terrain does to it
   (a stream halts it in the waterbed Disordered unless it crosses at a ford or bridge, dense woods
   cap it at 4.0" and disorder it on contact, ploughed fields take 2.0" off, abatis cost its
   momentum) and how far it moves across open ground (Charging Momentum needs 3.0").
3. The 4.0" line (RULE-06-2.1): the charger halts 4.0" from the target and the defender reacts
   (Window B): a Closing Defensive Volley with the pre-contact discipline check (RULE-06-2.3 to
   2.5), Refuse the Flank or a Counter-Charge, all resolved by :mod:`rules.reactions.declare`. A screen
   either evades or is overrun, and the charge goes on into the unit behind it, which has its own
   Window B (RULE-04-4.4, :func:`beyond_the_screen`).
4. Contact (RULE-06-3.1): frontal (front edge to front edge) or flank (the attacker's front edge
   against the target's side at 90 degrees); then the opposed melee roll of :mod:`rules.melee.melee`.

Assaults are initiated in Phase 2 and resolved in Phase 4 (RULE-06-1.1), and the program plays them
so: :class:`ChargeApproach` (:func:`charge_to_contact`) is Phase 2, stages 1 to 3 and the contact,
which places the two units base to base, marks them Engaged and records the melee in the battle
state (``Battle.extra.pending_melees``, :class:`rules.melee.melee.PendingMelee`) with everything the
melee needs; :class:`rules.melee.melee.ResolvePendingMelee` fights it in Phase 4.

:func:`approach` resolves stages 1 to 3, :func:`fight` the melee straight after, and
:func:`resolve_charge` all of it at once: the odds (:mod:`rules.odds`) and :class:`ChargeAction`,
the one-step assault kept for the saves that hold it, use these. Each is a pure function of
(battle, inputs, dice, tables).

How Brigadier reads the geometry:

* The charge aims at the middle of the target's front edge, or of the side of its footprint
  (flank) or of its rear edge, whichever zone of the target the charger starts in
  (:func:`rules.battlefield.geometry.zone_of`). The single pivot turns the charger to face that point.
* The 4.0" line is measured along the charge path from the point of contact.
* An obstacle counts as crossed when the path crosses it before the last
  ``terrain.cover.touching_in`` of the charge; one that close to the target's front edge
  is the defender's own obstacle (a wall it lines), which the melee counts for the defender.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from shapely.geometry import LineString, Point, Polygon

from rules.action_base import Action, Resolved, action_type, added_field, resolver
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.terrain import TerrainFeature, TerrainType
from rules.battle.unit import Unit, refused_flanks
from rules.battle.words import Formation, Health, Marker, Phase, StrEnum, UnitKind
from rules.battlefield import geometry
from rules.battlefield.field import Battlefield
from rules.dice import DiceSource, TableDice
from rules.errors import IllegalAction, InvariantError
from rules.melee.melee import (
    AREA_DEFENCES,
    Consolidation,
    Contact,
    MeleeResult,
    MeleeSituation,
    PendingMelee,
    add_pending_melee,
    leader_loss,
    pending_melees,
    resolve_melee,
    settle_melee,
)
from rules.reactions import declare as reactions
from rules.reactions.triggers import OPEN_GROUND_TYPES, charge_threat, window_b_along
from rules.shooting.shoot import fire_inputs
from rules.shooting.volleys import FireKind, Volley, VolleyOutcome
from rules.tables import RuleTables

XY = tuple[float, float]

CHARGING_KINDS = (UnitKind.INFANTRY, UnitKind.CAVALRY)
CHARGING_FORMATIONS = (Formation.LINE, Formation.ASSAULT_COLUMN, Formation.MOUNTED, Formation.DISMOUNTED)
# Obstacles a defender can line, strongest first: the melee takes the first one found.
DEFENDED_OBSTACLES = (
    TerrainType.STONE_WALL,
    TerrainType.BREASTWORKS,
    TerrainType.SUNKEN_ROAD,
    TerrainType.SPLIT_RAIL_FENCE,
    TerrainType.HEDGE,
)


class ChargeReaction(StrEnum):
    """The defender's choice at Window B (RULE-06-2.2, RULE-04-1.2), or none; the reactions themselves
    are resolved by :mod:`rules.reactions.declare` (whose :class:`rules.reactions.declare.Reaction` names all five)."""

    NONE = "none"
    CLOSING_VOLLEY = "closing_volley"
    REFUSE_FLANK = "refuse_flank"
    COUNTER_CHARGE = "counter_charge"
    EVADE = "evade"


# The name it had before, while the gui and the tests still use it.
Reaction = ChargeReaction


class ChargeEnd(StrEnum):
    """How the approach ended."""

    CONTACT = "contact"
    STALLED = "stalled"  # failed the pre-contact discipline check (RULE-06-2.5)
    HALTED = "halted"  # stopped by terrain: a stream (RULE-06-1.5)
    FELL_SHORT = "fell_short"  # the target is beyond what the terrain leaves of the charge
    DESTROYED = "destroyed"  # the charger was shot away by the closing volley
    OVERRUN = "overrun"  # a screen was overrun and there is no unit behind it to charge (RULE-04-4.4)
    EVADED = "evaded"  # the screen evaded and there is no unit behind it to charge (RULE-04-4.4)


@dataclass(frozen=True)
class Problem:
    """One unmet condition of a declaration, with the rule that sets it."""

    message: str
    rule: str

    def __str__(self) -> str:
        return f"{self.message} ({self.rule})"


# -- declaration (RULE-06-1.2, RULE-06-1.3) -------------------------------------------------------------


def charge_range_in(unit: Unit, tables: RuleTables) -> float:
    """Double-Quick Charge Range: 9.0" for infantry, 12.0" for mounted cavalry (RULE-06-1.3)."""
    key = "cavalry_range_in" if unit.kind == UnitKind.CAVALRY and unit.is_mounted else "infantry_range_in"
    return float(tables.value(f"melee.charge.{key}"))


def declaration_problems(
    battle: Battle, attacker_id: str, target_id: str, tables: RuleTables
) -> list[Problem]:
    """Every reason the attacker may not declare an assault on the target now (empty: it may)."""
    a, t = battle.unit(attacker_id), battle.unit(target_id)
    brigade = battle.brigade_of(a)
    out: list[Problem] = []
    if battle.phase != Phase.MANEUVER:
        out.append(
            Problem(
                f"assaults are declared in {Phase.MANEUVER.title}, not {battle.phase.title}", "RULE-06-1.1"
            )
        )
    if a.side != battle.active_side:
        out.append(Problem(f"{a.name} is not on the active side", "RULE-06-1.1"))
    if not a.in_play:
        out.append(Problem(f"{a.name} has been destroyed", "RULE-06-1.3"))
    if not t.in_play:
        out.append(Problem(f"{t.name} has been destroyed", "RULE-06-1.4"))
    if t.side == a.side:
        out.append(Problem(f"{t.name} is a friendly unit", "RULE-06-1.4"))
    if a.kind not in CHARGING_KINDS:
        out.append(
            Problem(
                f"only infantry or cavalry regiments declare assaults, not {a.kind.label.lower()}",
                "RULE-06-1.2",
            )
        )
    cost = int(tables.value("command.staff_pips.cost_to_declare_assault"))
    leader = brigade.brigadier.name or brigade.name
    if brigade.staff_pips < cost:
        out.append(Problem(f"{leader} has no Staff Pip to spend on the assault", "RULE-06-1.2"))
    if not brigade.can_assault:
        out.append(
            Problem(f"{brigade.name} is {brigade.state.value}: it cannot declare assaults", "RULE-06-1.2")
        )
    if a.formation not in CHARGING_FORMATIONS:
        out.append(
            Problem(
                f"{a.name} is in {a.formation.label.lower()}; it must be in Line of Battle or Assault Column",
                "RULE-06-1.3",
            )
        )
    if a.disordered:
        out.append(Problem(f"{a.name} is Disordered", "RULE-06-1.3"))
    if a.has(Marker.ENGAGED):
        out.append(Problem(f"{a.name} is locked in melee", "RULE-06-4.2"))
    if a.health == Health.SPENT and not battle.oob.has_attached_brigadier(a.id):
        out.append(Problem(f"{a.name} is Spent and has no Brigadier attached to lead it", "RULE-06-1.3"))
    if a.in_play and t.in_play and a.id != t.id:
        if not geometry.in_forward_arc(a, t, tables):
            out.append(Problem(f"{t.name} is not in {a.name}'s forward 45 degree arc", "RULE-06-1.3"))
        reach = charge_range_in(a, tables)
        dist = geometry.distance_in(a, t, tables)
        if dist > reach:
            out.append(
                Problem(
                    f'{t.name} is {dist:.1f}" away, beyond the {reach:g}" Double-Quick Charge Range',
                    "RULE-06-1.3",
                )
            )
        elif not out:
            # in arc and in reach: the charge must also need no more than its one pivot (RULE-06-1.4),
            # so that what is offered as chargeable is what the charge itself accepts
            try:
                plan_charge(battle, attacker_id, target_id, tables)
            except IllegalAction as exc:
                out.append(Problem(str(exc).removesuffix(f" ({exc.rule})"), exc.rule or "RULE-06-1.4"))
    return out


def check_declaration(battle: Battle, attacker_id: str, target_id: str, tables: RuleTables) -> None:
    """Raise :class:`IllegalAction` listing every unmet condition of the declaration."""
    problems = declaration_problems(battle, attacker_id, target_id, tables)
    if problems:
        a = battle.unit(attacker_id)
        raise IllegalAction(
            f"{a.name} cannot assault: " + "; ".join(str(p) for p in problems), problems[0].rule
        )


def declare_charge(
    battle: Battle, attacker_id: str, target_id: str, tables: RuleTables
) -> tuple[Battle, list[Step]]:
    """Declare the assault: check every condition and spend the Staff Pip (RULE-06-1.2)."""
    check_declaration(battle, attacker_id, target_id, tables)
    a, t = battle.unit(attacker_id), battle.unit(target_id)
    brigade = battle.brigade_of(a)
    cost = int(tables.value("command.staff_pips.cost_to_declare_assault"))
    battle = battle.with_brigade(replace(brigade, staff_pips=brigade.staff_pips - cost))
    leader = brigade.brigadier.name or brigade.name
    step = Step(
        f"{leader} spends {cost} Staff Pip: {a.name} assaults {t.name}",
        rule=tables.entry("command.staff_pips.cost_to_declare_assault").citation,
        units=(a.id, t.id),
    )
    return battle, [step]


# -- the charge path (RULE-06-1.4, RULE-06-1.5) --------------------------------------------------------


def _feature_geom(f: TerrainFeature):
    if f.is_linear:
        line = LineString(f.points)
        return line.buffer(f.width_in / 2) if f.width_in else line
    return Polygon(f.points)


def _turn(from_deg: float, to_deg: float) -> float:
    """The signed turn from one bearing to another, -180 to 180 (positive = clockwise)."""
    return (to_deg - from_deg + 180.0) % 360.0 - 180.0


@dataclass(frozen=True)
class ChargePath:
    """Where a charge goes and what the ground does to it. Distances are along the path, in inches."""

    attacker: str
    target: str
    contact: Contact
    start: XY
    aim: XY  # the point of contact on the target
    bearing_deg: float  # the charge's direction after the pivot
    pivot_deg: float  # signed; positive turns clockwise
    contact_facing_deg: float  # the attacker's facing when flush against the target (RULE-06-3.1)
    distance_in: float  # from the start to contact
    allowance_in: float  # the charge distance the ground leaves
    stop_in: float  # where the charge ends if nothing else stops it (contact, or short)
    halt_in: float | None = None  # where a stream halts it
    disorder_on_contact: bool = False  # dense woods (RULE-06-1.5)
    through_abatis: bool = False
    open_ground_in: float = 0.0
    notes: tuple[Step, ...] = ()
    flank_side: str | None = None  # the target's flank a flank charge hits: "left" or "right"

    @property
    def reaches(self) -> bool:
        """The charge can reach contact (if nothing at the 4.0" line stops it)."""
        return self.halt_in is None and self.stop_in >= self.distance_in

    def point(self, along_in: float) -> XY:
        return geometry.point_along(self.start, self.bearing_deg, along_in)


def _flank_side(target: Unit, start: XY, tables: RuleTables) -> str:
    """The target's flank a flank charge from ``start`` hits: the side of its footprint nearer to
    where the charge begins (RULE-06-3.1)."""
    fp = geometry.footprint(target, tables)
    fx, fy = fp.forward
    half = fp.depth / 2
    (lx, ly), (rx, ry) = fp.left_front, fp.right_front
    left = (lx - fx * half, ly - fy * half)
    right = (rx - fx * half, ry - fy * half)
    return "left" if math.dist(start, left) <= math.dist(start, right) else "right"


def _aim(target: Unit, contact: Contact, start: XY, tables: RuleTables) -> tuple[XY, float]:
    fp = geometry.footprint(target, tables)
    (lx, ly), (rx, ry) = fp.left_front, fp.right_front
    fx, fy = fp.forward
    mid = ((lx + rx) / 2, (ly + ry) / 2)
    half = fp.depth / 2
    if contact == Contact.FRONT:
        return mid, (target.facing_deg + 180) % 360
    if contact == Contact.REAR:
        return (mid[0] - fx * fp.depth, mid[1] - fy * fp.depth), target.facing_deg % 360
    left = (lx - fx * half, ly - fy * half)
    right = (rx - fx * half, ry - fy * half)
    if _flank_side(target, start, tables) == "left":
        return left, (target.facing_deg + 90) % 360
    return right, (target.facing_deg - 90) % 360


def contact_of(battle: Battle, attacker_id: str, target_id: str, tables: RuleTables) -> Contact:
    """Front, flank or rear: the zone of the target the charger starts in (RULE-06-3.1)."""
    a, t = battle.unit(attacker_id), battle.unit(target_id)
    zone = geometry.zone_of(t, (a.x, a.y), tables)
    if zone == "front":
        return Contact.FRONT
    if zone == "rear":
        return Contact.REAR
    return Contact.FLANK


def plan_charge(
    battle: Battle,
    attacker_id: str,
    target_id: str,
    tables: RuleTables,
    *,
    contact: Contact | None = None,
    spent_in: float = 0.0,
    continuing: bool = False,
) -> ChargePath:
    """The charge's path and what the terrain does to it. Raises if the pivot is over 30 degrees.

    ``continuing``: the charge goes on from where it is into the unit behind an evading or overrun
    screen (RULE-04-4.4), straight at it, with ``spent_in`` of its distance already used."""
    a, t = battle.unit(attacker_id), battle.unit(target_id)
    contact = (
        contact_of(battle, attacker_id, target_id, tables) if contact is None else Contact.parse(contact)
    )
    start = (a.x, a.y)
    aim, flush = _aim(t, contact, start, tables)
    total = math.dist(start, aim)
    bearing = geometry.bearing_deg(start, aim) if total > 0 else a.facing_deg
    pivot = _turn(a.facing_deg, bearing)
    max_pivot = float(tables.value("melee.charge.max_pivot_deg"))
    if abs(pivot) > max_pivot and not continuing:
        raise IllegalAction(
            f"{a.name} would have to pivot {abs(pivot):.0f} degrees to face {t.name}; "
            f"a charge allows one pivot of up to {max_pivot:g} degrees",
            "RULE-06-1.4",
        )
    allowance = charge_range_in(a, tables) - spent_in
    notes: list[Step] = []
    halt: float | None = None
    woods = through_abatis = False
    tol = float(tables.value("terrain.cover.touching_in"))
    path = LineString([start, aim]) if total > 0 else None
    not_open = 0.0
    if path is not None:
        fords = [_feature_geom(f) for f in battle.terrain if f.type in (TerrainType.FORD, TerrainType.BRIDGE)]
        for f in battle.terrain:
            g = _feature_geom(f)
            if not path.intersects(g):
                continue
            if f.type == TerrainType.STREAM:
                crossing = path.intersection(g)
                s = min(path.project(Point(c)) for c in _points_of(crossing))
                if s >= total - tol:
                    continue
                at = path.interpolate(s)
                if any(fd.buffer(tol).contains(at) for fd in fords):
                    notes.append(
                        Step(f"crosses {f.name or 'the stream'} at a ford or bridge", rule="RULE-06-1.5")
                    )
                    continue
                if halt is None or s < halt:
                    halt = s
            elif f.type == TerrainType.DENSE_WOODS:
                woods = True
            elif f.type == TerrainType.PLOUGHED_FIELD:
                cut = float(tables.value("melee.charge.ploughed_penalty_in"))
                allowance -= cut
                notes.append(Step(f'ploughed ground: -{cut:g}" off the charge', rule="RULE-06-1.5"))
            elif f.is_linear and f"movement.crossing.{f.type.value}" in tables:
                s = min(path.project(Point(c)) for c in _points_of(path.intersection(g)))
                if s < total - tol:
                    cost = tables.entry(f"movement.crossing.{f.type.value}")
                    allowance -= float(cost.value)
                    notes.append(
                        Step(
                            f'crosses the {f.type.label.lower()}: -{cost.value:g}" off the charge',
                            rule=cost.citation,
                        )
                    )
                    if f.type == TerrainType.ABATIS:
                        through_abatis = True
                        notes.append(
                            Step("charges through abatis: no momentum, -2 in melee", rule="RULE-03-2.4")
                        )
            if f.is_area and f.type not in OPEN_GROUND_TYPES:
                not_open += path.intersection(g).length
    if woods:
        cap = float(tables.value("melee.charge.dense_woods_max_in"))
        allowance = min(allowance, cap)
        notes.append(
            Step(f'dense woods: the charge is cut to {cap:g}" and Disordered on contact', rule="RULE-06-1.5")
        )
    allowance = max(allowance, 0.0)
    stop = min(total, allowance)
    moved = stop if halt is None else min(stop, halt)
    return ChargePath(
        attacker=a.id,
        target=t.id,
        contact=contact,
        start=start,
        aim=aim,
        bearing_deg=bearing,
        pivot_deg=pivot,
        contact_facing_deg=flush,
        distance_in=total,
        allowance_in=allowance,
        stop_in=stop,
        halt_in=halt,
        disorder_on_contact=woods,
        through_abatis=through_abatis,
        open_ground_in=max(moved - not_open, 0.0),
        notes=tuple(notes),
        flank_side=_flank_side(t, start, tables) if contact == Contact.FLANK else None,
    )


def _points_of(geom) -> list[tuple[float, float]]:
    if geom.is_empty:
        return []
    if hasattr(geom, "geoms"):
        return [p for g in geom.geoms for p in _points_of(g)]
    return (
        list(geom.coords)
        if geom.geom_type in ("Point", "LineString", "LinearRing")
        else list(geom.exterior.coords)
    )


def defender_obstacle(battle: Battle, defender_id: str, tables: RuleTables) -> TerrainType | None:
    """The obstacle or structure the defender fights from: a building it garrisons, or a town sector
    or rubble it stands in, else the strongest linear obstacle its front edge touches (RULE-03-2.1, RULE-03-2.2, RULE-03-2.3, RULE-03-2.4, RULE-03-2.5, RULE-03-3.1, RULE-03-3.2, RULE-03-3.3, RULE-03-3.4)."""
    d = battle.unit(defender_id)
    fp = geometry.footprint(d, tables)
    tol = float(tables.value("terrain.cover.touching_in"))
    here = Point(d.x, d.y)
    for f in battle.terrain:
        if f.type == TerrainType.BUILDING and not d.has(Marker.GARRISONED):
            continue  # a building fights only for its garrison (RULE-03-3.1)
        if f.type in AREA_DEFENCES and Polygon(f.points).buffer(tol).contains(here):
            return f.type
    found = {
        f.type
        for f in battle.terrain
        if f.type in DEFENDED_OBSTACLES and _feature_geom(f).distance(fp.front_edge) <= tol
    }
    return next((k for k in DEFENDED_OBSTACLES if k in found), None)


def melee_situation(
    battle: Battle,
    path: ChargePath,
    tables: RuleTables,
    *,
    moved_in: float | None = None,
    sided_flanks: bool = True,
    **overrides,
) -> MeleeSituation:
    """The melee situation of a charge that made contact along ``path`` (overrides win).

    A flank contact records which flank it hits, and whether the defender had refused that flank
    (RULE-04-5.4). ``sided_flanks=False`` is how a charge saved before Brigadier recorded the side
    is read again: no side, and any refused flank counted."""
    d, a = battle.unit(path.target), battle.unit(path.attacker)
    side = path.flank_side if sided_flanks and path.contact == Contact.FLANK else None
    refused = (side is not None and side in refused_flanks(d)) or d.has(Marker.REFUSED_FLANK)
    bf = Battlefield(battle, tables)
    start = a.moved_to(path.start[0], path.start[1], a.facing_deg)
    defender_on_crest = bf.on_crest(d)
    kw = dict(
        defender_on_crest=defender_on_crest,
        attacker_uphill=defender_on_crest and bf.level_of(start) < bf.level_of(d),
        attacker_downhill_from_crest=bf.on_crest(start) and bf.level_of(d) < bf.level_of(start),
        contact=path.contact,
        momentum_in=path.open_ground_in if moved_in is None else moved_in,
        defender_obstacle=defender_obstacle(battle, d.id, tables),
        through_abatis=path.through_abatis,
        refused_flank=refused,
        flank_side=side,
    )
    kw.update({k: v for k, v in overrides.items() if v is not None})
    if kw.get("counter_charge"):
        # the counter-charger surged forward and met the charger front to front (close_in): an
        # open-field clash, never a flank attack (RULE-04-5.4, RULE-04-5.5 (Counter-Charge, 6.0))
        kw["contact"] = Contact.FRONT
    return MeleeSituation(path.attacker, path.target, **kw)


# -- the approach: the 4.0" line and Window B (RULE-06-2.1, RULE-06-2.2, RULE-06-2.3, RULE-06-2.4, RULE-06-2.5) ---


@dataclass(frozen=True)
class Charge:
    """What the umpire asks: who charges whom, and what the defender does at Window B.

    ``contact`` overrides the front/flank/rear the table shows; ``defender_on_crest`` and
    ``attacker_downhill_from_crest`` are the umpire's reading of the slope where the table has no
    hill drawn; ``consolidation`` is the victor's free move (RULE-06-4.4).
    """

    attacker: str
    target: str
    reaction: ChargeReaction = ChargeReaction.CLOSING_VOLLEY
    contact: Contact | None = None
    counter_charge_in: float | None = None
    consolidation: Consolidation | None = None
    defender_on_crest: bool | None = None
    attacker_downhill_from_crest: bool | None = None
    # the reaction of the unit behind a screen (RULE-04-4.4); None: its Closing Defensive Volley if it
    # may fire one, else none
    then_reaction: ChargeReaction | None = None
    # how far a screen evades (4.0"-6.0", RULE-04-4.3; None: the full 6.0")
    evade_in: float | None = None
    # the readings of a charge made now; False only for charges saved before them (see ChargeApproach)
    sided_flanks: bool = True
    evade_path: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "reaction", ChargeReaction.parse(self.reaction))
        if self.then_reaction is not None:
            object.__setattr__(self, "then_reaction", ChargeReaction.parse(self.then_reaction))
        if self.contact is not None:
            object.__setattr__(self, "contact", Contact.parse(self.contact))


@dataclass(frozen=True)
class Approach:
    """The charge up to contact (Phase 2). ``end`` says how it ended."""

    battle: Battle
    steps: tuple[Step, ...]
    path: ChargePath
    end: ChargeEnd
    volley: VolleyOutcome | None = None
    discipline_roll: int | None = None
    counter_charge: bool = False
    stands_lost: dict[str, int] = field(default_factory=dict)


def _move(u: Unit, p: XY, facing: float) -> Unit:
    return u.moved_to(p[0], p[1], facing)


@dataclass(frozen=True)
class AtTheLine:
    """A declared charge moved up to the 4.0" line, or to where it stopped short of it."""

    battle: Battle
    steps: tuple[Step, ...]
    path: ChargePath
    early: ChargeEnd | None = None  # HALTED or FELL_SHORT before the line: no Window B


def to_the_line(battle: Battle, charge: Charge, tables: RuleTables) -> AtTheLine:
    """Declare the charge (spending the pip), pivot, and move to the 4.0" line (RULE-06-2.1)."""
    battle, steps = declare_charge(battle, charge.attacker, charge.target, tables)
    path = plan_charge(battle, charge.attacker, charge.target, tables, contact=charge.contact)
    a, t = battle.unit(charge.attacker), battle.unit(charge.target)
    steps.append(
        Step(
            f"{a.name} pivots {abs(path.pivot_deg):.0f} degrees and charges {t.name}'s {path.contact.value} "
            f'at the Double-Quick ({path.distance_in:.1f}" to contact, {path.allowance_in:g}" allowed)',
            rule="RULE-06-1.4",
            units=(a.id, t.id),
        )
    )
    return advance_to_line(battle, path, steps, tables)


def advance_to_line(battle: Battle, path: ChargePath, steps: list[Step], tables: RuleTables) -> AtTheLine:
    """Move the charger along its path to the 4.0" line, or to where the ground stops it first."""
    a, t = battle.unit(path.attacker), battle.unit(path.target)
    steps = [*steps, *path.notes]
    window = float(tables.value("melee.charge.window_b_in"))
    zone = {Contact.FRONT: "front", Contact.REAR: "rear"}.get(path.contact)
    if zone is None:
        zone = "left_flank" if geometry.zone_of(t, path.start, tables) == "left_flank" else "right_flank"
    line_at = window_b_along(t, [path.start, path.aim], tables, zone)
    if line_at is None:
        line_at = max(path.distance_in - window, 0.0)
    early = path.halt_in if path.halt_in is not None and path.halt_in < line_at else None
    if early is None and path.stop_in < line_at:
        early = path.stop_in
    if early is not None:
        a = _move(a, path.point(early), path.bearing_deg)
        if early == path.halt_in:
            a = a.with_markers(add=[Marker.DISORDER])
            steps.append(Step(f"{a.name} halts in the stream, Disordered", rule="RULE-06-1.5", units=(a.id,)))
            return AtTheLine(battle.with_unit(a), tuple(steps), path, ChargeEnd.HALTED)
        steps.append(
            Step(f"{a.name}'s charge falls short after {early:.1f}\"", rule="RULE-06-1.5", units=(a.id,))
        )
        return AtTheLine(battle.with_unit(a), tuple(steps), path, ChargeEnd.FELL_SHORT)
    a = _move(a, path.point(line_at), path.bearing_deg)
    steps.append(
        Step(
            f'{a.name} halts at the {window:g}" line: Reaction Trigger Window B',
            rule="RULE-06-2.1",
            units=(a.id, t.id),
        )
    )
    return AtTheLine(battle.with_unit(a), tuple(steps), path)


def beyond_the_screen(
    battle: Battle, path: ChargePath, end: ChargeEnd, charge: Charge, tables: RuleTables
) -> tuple[AtTheLine, Charge] | None:
    """After a screen evades or is overrun, the charge goes on into the formed unit behind it, whose
    own reaction is ``charge.then_reaction`` (RULE-04-4.4); None when there is none to charge."""
    screen = battle.unit(path.target)
    if end not in (ChargeEnd.EVADED, ChargeEnd.OVERRUN) or not screen.parent:
        return None
    parent = battle.units.get(screen.parent)
    if parent is None or not parent.in_play:
        return None
    a = battle.unit(path.attacker)
    moved = math.dist(path.start, (a.x, a.y))
    nxt = plan_charge(battle, a.id, parent.id, tables, spent_in=moved, continuing=True)
    nxt = replace(
        nxt,
        open_ground_in=nxt.open_ground_in
        + path.open_ground_in * (moved / path.distance_in if path.distance_in else 0),
    )
    step = Step(
        f"{a.name} does not stop: it charges on into {parent.name}",
        rule="RULE-04-4.4",
        units=(a.id, parent.id),
    )
    at = advance_to_line(battle, nxt, [step], tables)
    reaction = charge.then_reaction
    if reaction is None:
        reaction = default_reaction(at, tables)
    return at, replace(charge, target=parent.id, reaction=reaction, contact=None, then_reaction=None)


def default_reaction(at: AtTheLine, tables: RuleTables) -> ChargeReaction:
    """What a defender does at Window B when nobody chose for it: its Closing Defensive Volley if it
    may fire one (RULE-04-2.2), else nothing. The unit behind a screen "may now execute Reaction 1"
    (RULE-04-4.4): it is not made to when it has Smoke, is Disordered or has the charger out of arc."""
    if at.early is not None or at.battle.unit(at.path.target).is_screen:
        return ChargeReaction.NONE
    threat = window_b_threat(at, tables)
    if reactions.option(at.battle, reactions.Reaction.CLOSING_VOLLEY, threat, tables).eligible:
        return ChargeReaction.CLOSING_VOLLEY
    return ChargeReaction.NONE


def behind_the_screen(battle: Battle, charge: Charge, tables: RuleTables) -> AtTheLine | None:
    """For a charge at a screen: the charge halted at the 4.0" line of the unit behind the screen,
    after the screen's own reaction (``charge.reaction``: evade, or none and it is overrun), where
    that unit's own Window B opens (RULE-04-4.4); None when the target is no screen, the charge stops
    before the screen, or there is no unit behind it to charge on into."""
    at = to_the_line(battle, charge, tables)
    if at.early is not None or not at.battle.unit(charge.target).is_screen:
        return None
    if charge.reaction not in (ChargeReaction.EVADE, ChargeReaction.NONE):
        return None
    r = react(at, charge, TableDice([]), tables)  # an evade or an overrun rolls no dice
    after, end = r.battle, r.end
    if end is None:
        after, _, end = close_in(after, at.path, tables)
    nxt = beyond_the_screen(after, at.path, end, charge, tables)
    return None if nxt is None else nxt[0]


def window_b_threat(at: AtTheLine, tables: RuleTables) -> reactions.Threat:
    """The threat the defender answers at Window B: the charger on the 4.0" line (RULE-06-2.1), as
    :func:`rules.reactions.triggers.charge_threat` measures it, coming in on the front, flank or rear the
    charge path says."""
    a, t = at.battle.unit(at.path.attacker), at.battle.unit(at.path.target)
    window = float(tables.value("melee.charge.window_b_in"))
    threat = charge_threat(at.battle, a, t, tables, start=at.path.start, contact=at.path.contact.value)
    # halted on the 4.0" line: anything beyond it is floating-point dust
    return replace(threat, distance_in=min(threat.distance_in, window))


def closing_volley_of(at: AtTheLine, tables: RuleTables) -> tuple[reactions.Threat, dict, Volley]:
    """The Closing Defensive Volley the defender would fire at the charger on the 4.0" line: the
    threat, the table's inputs to the volley (the charger's cover there and the firer's stands with
    a clear view, :func:`rules.shooting.shoot.fire_inputs`, the same as a window opened by hand) and the
    volley (RULE-06-2.3, RULE-03-5.3, RULE-03-5.5). A charger out of sight cannot be fired on."""
    threat = window_b_threat(at, tables)
    reactions.require(at.battle, reactions.Reaction.CLOSING_VOLLEY, threat, tables)
    inputs = fire_inputs(at.battle, threat.defender, threat.attacker, tables)
    volley = Volley(
        threat.defender,
        threat.attacker,
        threat.distance_in,
        kind=FireKind.CLOSING_VOLLEY,
        enfilade=threat.enfilade,
        enfilade_side=threat.enfilade_side,
        **inputs,
    )
    return threat, inputs, volley


def close_in(
    battle: Battle, path: ChargePath, tables: RuleTables, counter: bool = False
) -> tuple[Battle, list[Step], ChargeEnd]:
    """From the 4.0" line on, once the reaction is over: a stream beyond the line, a short charge,
    an overrun screen, or contact (RULE-06-1.5, RULE-04-4.4, RULE-06-3.1)."""
    a, t = battle.unit(path.attacker), battle.unit(path.target)
    if path.halt_in is not None:
        a = _move(a, path.point(path.halt_in), path.bearing_deg).with_markers(add=[Marker.DISORDER])
        step = Step(f"{a.name} halts in the stream, Disordered", rule="RULE-06-1.5", units=(a.id,))
        return battle.with_unit(a), [step], ChargeEnd.HALTED
    if path.stop_in < path.distance_in:
        a = _move(a, path.point(path.stop_in), path.bearing_deg)
        step = Step(f"{a.name}'s charge falls short", rule="RULE-06-1.5", units=(a.id,))
        return battle.with_unit(a), [step], ChargeEnd.FELL_SHORT
    if t.is_screen:
        out = reactions.overrun(battle, t.id, a.id, tables)
        a = _move(a, path.aim, path.bearing_deg)
        return out.battle.with_unit(a), list(out.steps), ChargeEnd.OVERRUN
    if not counter:
        a = _move(a, path.aim, path.contact_facing_deg)
    else:
        # the counter-charger has surged out: meet it front to front where it now stands
        fp = geometry.footprint(t, tables)
        (lx, ly), (rx, ry) = fp.left_front, fp.right_front
        a = _move(a, ((lx + rx) / 2, (ly + ry) / 2), (t.facing_deg + 180) % 360)
    how = {
        Contact.FRONT: "front edge to front edge",
        Contact.FLANK: "its front edge against the flank at 90 degrees",
        Contact.REAR: "against the rear",
    }[Contact.FRONT if counter else path.contact]
    steps = [Step(f"{a.name} makes contact with {t.name}: {how}", rule="RULE-06-3.1", units=(a.id, t.id))]
    if path.disorder_on_contact and not a.disordered:
        a = a.with_markers(add=[Marker.DISORDER])
        steps.append(Step(f"{a.name} is Disordered by the dense woods", rule="RULE-06-1.5", units=(a.id,)))
    return battle.with_unit(a), steps, ChargeEnd.CONTACT


@dataclass(frozen=True)
class Reacted:
    """The defender's reaction at Window B and what it did to the charge."""

    battle: Battle
    steps: tuple[Step, ...]
    end: ChargeEnd | None = None  # None: the charge goes on (close_in)
    volley: VolleyOutcome | None = None
    discipline_roll: int | None = None
    counter_charge: bool = False


def react(at: AtTheLine, charge: Charge, dice: DiceSource, tables: RuleTables) -> Reacted:
    """The defender's reaction at Window B, resolved by :mod:`rules.reactions.declare` (RULE-06-2.2)."""
    battle = at.battle
    t = battle.unit(at.path.target)
    kind = charge.reaction
    if kind == ChargeReaction.NONE:
        return Reacted(battle, ())
    if kind == ChargeReaction.CLOSING_VOLLEY:
        threat, inputs, _ = closing_volley_of(at, tables)
        out = reactions.closing_volley(battle, threat, dice, tables, **inputs)
        end = None
        if out.volley is not None and out.volley.target_destroyed:
            end = ChargeEnd.DESTROYED
        elif out.stalled:
            end = ChargeEnd.STALLED
        return Reacted(out.battle, out.steps, end, out.volley, out.check_roll)
    threat = window_b_threat(at, tables)
    if kind == ChargeReaction.EVADE:
        out = reactions.evade(
            battle, threat, dice, tables, withdraw_in=charge.evade_in, along_path=charge.evade_path
        )
        return Reacted(out.battle, out.steps, ChargeEnd.EVADED)
    if kind == ChargeReaction.REFUSE_FLANK:
        out = reactions.refuse_the_flank(battle, threat, dice, tables, one_flank=charge.sided_flanks)
        return Reacted(out.battle, out.steps)
    if t.is_screen:
        raise IllegalAction(f"{t.name} is a screen: it evades or is overrun", "RULE-04-4.4")
    out = reactions.counter_charge(battle, threat, dice, tables, surge_in=charge.counter_charge_in)
    return Reacted(out.battle, out.steps, counter_charge=out.success)


def approach(battle: Battle, charge: Charge, dice: DiceSource, tables: RuleTables) -> Approach:
    """Declare the charge and carry it to contact or to wherever it stops (Phase 2)."""
    return _from_the_line(to_the_line(battle, charge, tables), charge, dice, tables, (), {})


def _from_the_line(
    at: AtTheLine, charge: Charge, dice: DiceSource, tables: RuleTables, before: tuple[Step, ...], lost0: dict
) -> Approach:
    if at.early is not None:
        return Approach(at.battle, before + at.steps, at.path, at.early, stands_lost=lost0)
    a0 = at.battle.unit(at.path.attacker)
    r = react(at, charge, dice, tables)
    lost = dict(lost0)
    if a0.stands != r.battle.unit(a0.id).stands:
        lost[a0.id] = lost.get(a0.id, 0) + a0.stands - r.battle.unit(a0.id).stands
    steps = before + at.steps + r.steps
    battle, end = r.battle, r.end
    if end is None:
        battle, more, end = close_in(r.battle, at.path, tables, r.counter_charge)
        steps += tuple(more)
    nxt = beyond_the_screen(battle, at.path, end, charge, tables)
    if nxt is not None:
        return _from_the_line(nxt[0], nxt[1], dice, tables, steps, lost)
    return Approach(battle, steps, at.path, end, r.volley, r.discipline_roll, r.counter_charge, lost)


@dataclass(frozen=True)
class ChargeResult:
    battle: Battle
    steps: tuple[Step, ...]
    approach: Approach
    melee: MeleeResult | None = None

    @property
    def end(self) -> ChargeEnd:
        return self.approach.end


def contact_situation(approached: Approach, charge: Charge, tables: RuleTables) -> MeleeSituation:
    """The melee situation of a charge that made contact: the table as the approach left it, a
    counter-charge, and the umpire's reading of the slope (``charge``)."""
    return melee_situation(
        approached.battle,
        approached.path,
        tables,
        sided_flanks=charge.sided_flanks,
        counter_charge=approached.counter_charge or None,
        defender_on_crest=charge.defender_on_crest,
        attacker_downhill_from_crest=charge.attacker_downhill_from_crest,
    )


def fight(
    approached: Approach, dice: DiceSource, tables: RuleTables, charge: Charge
) -> tuple[Battle, list[Step], MeleeResult | None]:
    """The opposed melee roll of a charge that made contact, and the Leader Loss rolls (Phase 4)."""
    battle = approached.battle
    steps: list[Step] = []
    melee = None
    lost = dict(approached.stands_lost)
    if approached.end == ChargeEnd.CONTACT:
        situation = contact_situation(approached, charge, tables)
        melee = resolve_melee(
            battle, situation, dice, tables, consolidation=charge.consolidation, leader_check=False
        )
        battle = melee.battle
        steps.extend(melee.steps)
        for k, v in melee.stands_lost.items():
            lost[k] = lost.get(k, 0) + v
    for uid in (approached.path.attacker, approached.path.target):
        if lost.get(uid) and approached.battle.oob.has_attached_brigadier(uid) and battle.unit(uid).in_play:
            battle, step, _ = leader_loss(
                battle,
                uid,
                dice,
                tables,
                approach_lost=approached.stands_lost.get(uid, 0),
                melee_lost=melee.stands_lost.get(uid, 0) if melee is not None else 0,
            )
            steps.append(step)
    return battle, steps, melee


def resolve_charge(battle: Battle, charge: Charge, dice: DiceSource, tables: RuleTables) -> ChargeResult:
    """A whole assault, from declaration to the melee's aftermath and the Leader Loss rolls.

    Dice, in order: the closing volley, cover saves, the discipline check, then the attacker's and
    the defender's shock rolls and any leader loss rolls.
    """
    if not isinstance(charge, Charge):
        raise InvariantError("resolve_charge needs a Charge")
    ap = approach(battle, charge, dice, tables)
    after, steps, melee = fight(ap, dice, tables, charge)
    return ChargeResult(after, ap.steps + tuple(steps), ap, melee)


# -- the action ------------------------------------------------------------------------------------


def _declared_charge(
    a: ChargeAction | ChargeApproach,
    *,
    consolidation: Consolidation | None = None,
    then_reaction: str | None = None,
) -> Charge:
    """The :class:`Charge` an assault action declares, from the values both kinds of action hold."""
    return Charge(
        attacker=a.attacker_id,
        target=a.target_id,
        reaction=ChargeReaction.parse(a.reaction),
        contact=Contact.parse(a.contact) if a.contact else None,
        counter_charge_in=a.counter_charge_in,
        consolidation=consolidation,
        defender_on_crest=a.defender_on_crest,
        attacker_downhill_from_crest=a.attacker_downhill_from_crest,
        then_reaction=None if then_reaction is None else ChargeReaction.parse(then_reaction),
        evade_in=a.evade_in,
        sided_flanks=bool(a.sided_flanks),
        evade_path=bool(a.evade_path),
    )


@action_type("charge")
@dataclass(frozen=True)
class ChargeAction(Action):
    """An assault, declared in Phase 2 and fought to its end in one step (see :class:`Charge`).

    Saves made before assaults were split across the phases hold it, and it still resolves; the
    application plays :class:`ChargeApproach` in Phase 2 and
    :class:`rules.melee.melee.ResolvePendingMelee` in Phase 4 (RULE-06-1.1). A tie leaves the melee
    pending for the next game turn, as there.

    ``consolidate_in`` / ``consolidate_pivot_deg`` are the victor's free move (RULE-06-4.4); left
    at None, a victorious attacker advances the full 2.0" and a victorious defender holds.
    """

    attacker_id: str
    target_id: str
    reaction: str = ChargeReaction.CLOSING_VOLLEY.value
    contact: str | None = None
    counter_charge_in: float | None = None
    consolidate_in: float | None = None
    consolidate_pivot_deg: float | None = None
    defender_on_crest: bool | None = None
    attacker_downhill_from_crest: bool | None = None
    evade_in: float | None = None
    sided_flanks: bool = added_field(True, saved_before=False)
    evade_path: bool = added_field(True, saved_before=False)

    def charge(self) -> Charge:
        consolidation = None
        if self.consolidate_in is not None or self.consolidate_pivot_deg is not None:
            consolidation = Consolidation(
                advance_in=self.consolidate_in or 0.0, pivot_deg=self.consolidate_pivot_deg or 0.0
            )
        return _declared_charge(self, consolidation=consolidation)


@resolver(ChargeAction)
def _resolve_charge_action(battle: Battle, a: ChargeAction, dice: DiceSource, tables: RuleTables) -> Resolved:
    r = resolve_charge(battle, a.charge(), dice, tables)
    att, dfn = battle.unit(a.attacker_id), battle.unit(a.target_id)
    after, steps = r.battle, list(r.steps)
    if r.melee is not None:
        summary = f"{att.name} assaults {dfn.name}: {r.melee.outcome.label.lower()} ({r.melee.attacker_score} to {r.melee.defender_score})"
        after, more = settle_melee(r.approach.battle, after, None, r.melee)
        steps += more
    else:
        summary = f"{att.name} assaults {dfn.name}: {r.end.label.lower()}"
    return Resolved(after, steps, summary)


# -- Phase 2 only: the approach, leaving the melee for Phase 4 (RULE-06-1.1) -----------------------


@dataclass(frozen=True)
class ApproachResult:
    """A charge carried through Phase 2: the approach and, if it made contact, the melee it left
    pending for Phase 4 (:class:`rules.melee.melee.PendingMelee`)."""

    battle: Battle
    steps: tuple[Step, ...]
    approach: Approach
    pending: PendingMelee | None = None

    @property
    def end(self) -> ChargeEnd:
        return self.approach.end


def charge_to_contact(battle: Battle, charge: Charge, dice: DiceSource, tables: RuleTables) -> ApproachResult:
    """Phase 2 of an assault (RULE-06-1.1): declaration, the pivot and path, the 4.0" line and
    Window B, the pre-contact check, and then a stall, a halt, an evaded or overrun screen, or
    contact. On contact the two units are placed base to base, marked Engaged, and the melee is
    recorded with everything Phase 4 needs (:func:`rules.melee.melee.add_pending_melee`); the Leader Loss
    roll for stands lost on the way in waits for the melee. A charge that ends without contact
    rolls it now.

    Dice, in order: the closing volley, cover saves, the discipline check, and a Leader Loss roll
    where a charge without contact cost a stand of a unit with its Brigadier attached.
    """
    if not isinstance(charge, Charge):
        raise InvariantError("charge_to_contact needs a Charge")
    ap = approach(battle, charge, dice, tables)
    if ap.end != ChargeEnd.CONTACT:
        after, steps, _ = fight(ap, dice, tables, charge)
        return ApproachResult(after, ap.steps + tuple(steps), ap)
    after, pm = add_pending_melee(ap.battle, contact_situation(ap, charge, tables), ap.stands_lost)
    a, d = after.unit(pm.attacker), after.unit(pm.defender)
    n = len(pending_melees(after))
    step = Step(
        f"{a.name} and {d.name} are Engaged: the melee is resolved in {Phase.MELEE.title} "
        f"({n} melee{'s' if n != 1 else ''} pending)",
        rule="RULE-06-1.1",
        units=(a.id, d.id),
    )
    return ApproachResult(after, (*ap.steps, step), ap, pm)


@action_type("charge_approach")
@dataclass(frozen=True)
class ChargeApproach(Action):
    """An assault's Phase 2 (RULE-06-1.1): declared, carried to the 4.0" line and through Window B to
    a stall, a halt or contact. A contact leaves a pending melee for Phase 4
    (:class:`rules.melee.melee.ResolvePendingMelee`). ``then_reaction`` is the reaction of the unit behind
    a screen the charge goes on into (RULE-04-4.4); None: its closing volley if it may fire one,
    else none (:func:`default_reaction`)."""

    attacker_id: str
    target_id: str
    reaction: str = ChargeReaction.CLOSING_VOLLEY.value
    contact: str | None = None
    counter_charge_in: float | None = None
    defender_on_crest: bool | None = None
    attacker_downhill_from_crest: bool | None = None
    then_reaction: str | None = None
    # how far a screen that is charged evades (4.0"-6.0", RULE-04-4.3; None: the full 6.0")
    evade_in: float | None = None
    # fields added since saves first held charges (rules.action_base.added_field): a refused flank
    # and a flank contact have their side (RULE-04-5.3, RULE-04-5.4), and an evade withdraws the distance
    # chosen along its retreat path (RULE-04-4.3); the charges of saves made before read as they
    # were played
    sided_flanks: bool = added_field(True, saved_before=False)
    evade_path: bool = added_field(True, saved_before=False)

    def charge(self) -> Charge:
        for what in ("attacker_id", "target_id", "reaction"):
            if not isinstance(getattr(self, what), str):
                raise IllegalAction(
                    f"a charge's {what.replace('_', ' ')} must be text, not {getattr(self, what)!r}"
                )
        return _declared_charge(self, then_reaction=self.then_reaction)


@resolver(ChargeApproach)
def _resolve_charge_approach(
    battle: Battle, a: ChargeApproach, dice: DiceSource, tables: RuleTables
) -> Resolved:
    r = charge_to_contact(battle, a.charge(), dice, tables)
    att = battle.unit(a.attacker_id)
    dfn = r.battle.unit(r.approach.path.target)
    if r.pending is not None:
        summary = f"{att.name} charges into contact with {dfn.name}: the melee is resolved in Phase 4"
    else:
        summary = f"{att.name} assaults {battle.unit(a.target_id).name}: {r.end.label.lower()}"
    return Resolved(r.battle, list(r.steps), summary)
