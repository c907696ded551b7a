"""A charge's path (RULE-06-1.4, RULE-06-1.5): the single initial pivot (up to 30 degrees), the
straight line to the target's front, flank or rear, what the terrain does to it (a stream halts it
in the waterbed Disordered unless it crosses at a ford or bridge, dense woods cap it at 4.0" and
disorder it on contact, ploughed fields take 2.0" off, abatis cost its momentum), how far it moves
across open ground (Charging Momentum needs 3.0"), and the obstacle the defender fights from.

How Brigadier reads the geometry:

* The charge aims at the middle of the target's front edge, or of the side of its footprint
  (flank) or of its rear edge, whichever zone of the target the charger starts in
  (:func:`rules.battlefield.geometry.zone_of`). The single pivot turns the charger to face that point.
* An obstacle counts as crossed when the path crosses it before the last
  ``terrain.cover.touching_in`` of the charge; one that close to the target's front edge
  is the defender's own obstacle (a wall it lines), which the melee counts for the defender.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from shapely.geometry import LineString, Point, Polygon

from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.terrain import TerrainFeature, TerrainType
from rules.battle.unit import Unit
from rules.battle.words import Marker, UnitKind
from rules.battlefield import geometry
from rules.errors import IllegalAction
from rules.melee.melee import AREA_DEFENCES, Contact
from rules.reactions.triggers import OPEN_GROUND_TYPES
from rules.tables import RuleTables

XY = tuple[float, float]

# Obstacles a defender can line, strongest first: the melee takes the first one found.
DEFENDED_OBSTACLES = (
    TerrainType.STONE_WALL,
    TerrainType.BREASTWORKS,
    TerrainType.SUNKEN_ROAD,
    TerrainType.SPLIT_RAIL_FENCE,
    TerrainType.HEDGE,
)


def charge_range_in(unit: Unit, tables: RuleTables) -> float:
    """Double-Quick Charge Range: 9.0" for infantry, 12.0" for mounted cavalry (RULE-06-1.3)."""
    key = "cavalry_range_in" if unit.kind == UnitKind.CAVALRY and unit.is_mounted else "infantry_range_in"
    return float(tables.value(f"melee.charge.{key}"))


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
    or rubble it stands in, else the strongest linear obstacle its front edge touches (RULE-03-2.1,
    RULE-03-2.2, RULE-03-2.3, RULE-03-2.4, RULE-03-2.5, RULE-03-3.1, RULE-03-3.2, RULE-03-3.3,
    RULE-03-3.4)."""
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


def flank_anchored_on_works(battle: Battle, defender_id: str, side: str, tables: RuleTables) -> bool:
    """Whether the defender's ``side`` flank ("left" or "right") is anchored to breastworks, which
    makes lined works "immune to flank shock penalties" (RULE-03-2.4): the defender lines breastworks
    (:func:`defender_obstacle`) and breastworks run round that flank, beside it within
    ``terrain.cover.flank_anchor_in`` (a club default) and back to its rear corner, within
    ``terrain.cover.touching_in``. Works that run straight on past the flank's front corner do not
    anchor it: a charge into the flank comes from behind their line."""
    if defender_obstacle(battle, defender_id, tables) != TerrainType.BREASTWORKS:
        return False
    fp = geometry.footprint(battle.unit(defender_id), tables)
    reach = float(tables.value("terrain.cover.flank_anchor_in"))
    tol = float(tables.value("terrain.cover.touching_in"))
    (fx, fy), (rx, ry) = fp.forward, fp.right
    front = fp.left_front if side == "left" else fp.right_front
    ox, oy = (-rx, -ry) if side == "left" else (rx, ry)
    rear = (front[0] - fx * fp.depth, front[1] - fy * fp.depth)
    out_rear = (rear[0] + ox * reach, rear[1] + oy * reach)
    beside = Polygon([front, rear, out_rear, (front[0] + ox * reach, front[1] + oy * reach)])
    rear_end = LineString([rear, out_rear])
    return any(
        g.intersects(beside) and g.distance(rear_end) <= tol
        for g in (_feature_geom(f) for f in battle.terrain if f.type == TerrainType.BREASTWORKS)
    )
