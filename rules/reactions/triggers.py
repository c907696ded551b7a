"""Reaction Trigger Windows A and B (RULE-04-1.2): where a planned move is interrupted, and who may react.

Given a unit's planned move (a path of points for its colour stand's centre-front, RULE-03-5.2)
:func:`find_windows` walks it and returns, in path order, every point where a defender may react:

* **Window A** (standard movement, RULE-04-1.2):

  - the mover's footprint enters a formed regiment's or battery's 45 degree forward arc within
    8.0" (RULE-04-3.1): Opportunity Fire. The defender calls it "where the target enters optimal
    range and arc" (RULE-04-3.3), so a second window opens where the mover comes on into short
    range (6.0") inside the arc; the defender fires at one of them (RULE-04-1.4);
  - the mover's footprint closes within 6.0" of a skirmish stand or light cavalry screen
    (RULE-04-4.1): Evade;
  - the mover's footprint enters the 45-90 degree flank zone of a regiment in Line of Battle
    (RULE-04-5.1 (Refuse the Flank, 5.0)) within ``movement.trigger.refuse_flank_in``: Refuse the
    Flank.

* **Window B** (a declared charge, RULE-04-1.2, RULE-06-2.1): the charger's colour stand comes
  within 4.0" of the target's front edge (of its footprint, for a charge that starts on the
  target's flank or rear): Closing Volley, Refuse the Flank if the charge comes in on a flank,
  Counter-Charge, or Evade for a screen. A charge is not standard movement, so it opens no
  Window A.

Each window lists each defender with every reaction of that window open to its kind (Evade for a
screen, the others for a regiment or battery): its cost if the defender may take it, or the
reasons (with rule ids) it may not. The rules' conditions are checked by
:mod:`rules.reactions.declare`; this module measures the table, with the mover where the window
opens: a volley is closed, with the reason and its rule, at an attacker the defender does not see
there (:func:`sight_refusal`, the volley's own question).

The mover keeps its facing along the path (the umpire turns it separately). The ground the mover
sweeps is found exactly: a footprint at point ``p`` meets a convex region ``R`` when ``p`` lies in
``R`` grown by the footprint turned about its reference point (a Minkowski sum), so the first
point of the path inside that grown region is where the footprint first touches ``R``. Defenders
too far from the path to matter are dropped first with one vectorised distance test, so a drag
across a table of a hundred enemy units costs a few milliseconds a step.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import shapely
from shapely.geometry import LineString, MultiPoint, Point, Polygon

from rules.battle.battle import Battle
from rules.battle.terrain import TerrainFeature, TerrainType, parse_points
from rules.battle.unit import Unit
from rules.battle.words import Formation, StrEnum, UnitKind
from rules.battlefield import geometry
from rules.errors import IllegalAction, InvariantError
from rules.reactions.options import REACTIONS_OF_WINDOW, Option, Reaction, Reason, Threat, Window, option
from rules.reactions.screen_evade import evade_refusal
from rules.shooting.shoot import fire_inputs
from rules.tables import RuleTables

XY = tuple[float, float]

OPEN_GROUND_TYPES = frozenset(
    {TerrainType.OPEN, TerrainType.ROAD, TerrainType.FORD, TerrainType.BRIDGE, TerrainType.HILL}
)
"""The terrain that is open ground, for a Counter-Charge (RULE-04-5.1 (Counter-Charge, 6.0)) and for
Charging Momentum (RULE-06-3.3): open fields and hills (a slope is not broken ground), and roads,
fords and bridges; any other area terrain or linear obstacle is not open. The one list of it:
:func:`open_ground` and :func:`rules.assault.charge_path.plan_charge` read it."""


class Trigger(StrEnum):
    """What opened a window for a defender."""

    FORWARD_ARC = "forward_arc"  # Opportunity Fire, RULE-04-3.1: into the arc within 8.0"
    FORWARD_ARC_SHORT = "forward_arc_short"  # ... and on into short range, RULE-04-3.3
    SCREEN = "screen"  # Evade, RULE-04-4.1
    FLANK_ZONE = "flank_zone"  # Refuse the Flank, RULE-04-5.1 (Refuse the Flank, 5.0)
    CHARGE = "charge"  # Window B, RULE-06-2.1


ARC, ARC_SHORT, SCREEN, FLANK, CHARGE = (
    Trigger.FORWARD_ARC,
    Trigger.FORWARD_ARC_SHORT,
    Trigger.SCREEN,
    Trigger.FLANK_ZONE,
    Trigger.CHARGE,
)


@dataclass(frozen=True)
class DefenderChoice:
    """One defender at a window: the threat it faces and every reaction of the window."""

    defender: str
    trigger: Trigger
    threat: Threat
    options: tuple[Option, ...]
    # the defender's other triggers met at the same point of the move (its arc and a flank zone,
    # say), each with its threat: one answer for all of them (RULE-04-1.4: one reaction a move)
    also: tuple[tuple[Trigger, Threat], ...] = ()
    # the threat each reaction answers, where it is another trigger's (Refuse the Flank answers
    # the flank zone's, Opportunity Fire the arc's)
    threats: tuple[tuple[str, Threat], ...] = ()

    @property
    def eligible(self) -> tuple[Option, ...]:
        return tuple(o for o in self.options if o.eligible)

    @property
    def opened_by(self) -> tuple[Trigger, str | None]:
        """What opened the window for this defender: its trigger and, for a flank zone, which of the
        two ("left" or "right"). Each opens its own window once per march."""
        return _opened(self.trigger, self.threat)

    @property
    def opened_all(self) -> tuple[tuple[Trigger, str | None], ...]:
        """Every trigger that opened the window for this defender at this point."""
        return (self.opened_by, *(_opened(t, th) for t, th in self.also))

    @property
    def whys(self) -> tuple[tuple[Trigger, Threat], ...]:
        """Each trigger that opened the window for it, with its threat (what says why it is asked)."""
        return ((self.trigger, self.threat), *self.also)

    def threat_for(self, reaction: Reaction | str) -> Threat:
        """The threat ``reaction`` answers."""
        return dict(self.threats).get(Reaction.parse(reaction).value, self.threat)

    def merged_with(self, other: DefenderChoice) -> DefenderChoice:
        """This defender asked once for both its triggers met at one point: each reaction as the
        trigger that allows it offers it (else as this one closes it), answering that trigger's
        threat."""
        threats = dict(self.threats)
        theirs = {o.reaction: o for o in other.options}
        opts = []
        for o in self.options:
            p = theirs.pop(o.reaction, None)
            if p is not None and p.eligible and not o.eligible:
                opts.append(p)
                threats[o.reaction.value] = other.threat_for(o.reaction)
            else:
                opts.append(o)
        for p in theirs.values():
            opts.append(p)
            threats[p.reaction.value] = other.threat_for(p.reaction)
        return replace(
            self,
            options=tuple(opts),
            also=(*self.also, *other.whys),
            threats=tuple(threats.items()),
        )

    def option(self, reaction: Reaction | str) -> Option:
        r = Reaction.parse(reaction)
        for o in self.options:
            if o.reaction == r:
                return o
        raise InvariantError(f"{r.title} is not a reaction of {self.threat.window.label}")


def _opened(trigger: Trigger, threat: Threat) -> tuple[Trigger, str | None]:
    return (trigger, threat.flank if trigger == Trigger.FLANK_ZONE else None)


@dataclass(frozen=True)
class TriggerWindow:
    """A point on the path where the move is interrupted and the defenders who may react there."""

    window: Window
    point: XY
    along_in: float  # distance along the path from its start
    mover: str
    defenders: tuple[DefenderChoice, ...]

    @property
    def any_eligible(self) -> bool:
        return any(d.eligible for d in self.defenders)


# -- regions ---------------------------------------------------------------------------------------


def _grown(region: Polygon, shape: np.ndarray) -> Polygon:
    """``region`` grown by ``-shape`` (the mover's footprint relative to its reference point).

    Both are convex, so the Minkowski sum is the convex hull of the pairwise differences.
    """
    if region.is_empty:
        return region
    pts = np.asarray(region.exterior.coords)[:-1]
    sums = (pts[:, None, :] - shape[None, :, :]).reshape(-1, 2)
    return MultiPoint(sums).convex_hull


@lru_cache(maxsize=4096)
def _regions(defender: Unit, tables: RuleTables) -> tuple[tuple[Trigger, str | None, Polygon], ...]:
    """The defender's Window A regions: (trigger, flank side, region), for the triggers its kind has."""
    out: list[tuple[Trigger, str | None, Polygon]] = []
    if defender.is_screen:
        reach = float(tables.value("movement.trigger.screen_evade_in"))
        fp = geometry.footprint(defender, tables)
        out.append((SCREEN, None, fp.polygon.buffer(reach, quad_segs=16)))
        return tuple(out)
    if _fires(defender):
        reach = float(tables.value("movement.trigger.opportunity_fire_in"))
        out.append((ARC, None, geometry.forward_arc(defender, tables, reach_in=reach)))
        short = float(tables.value("shooting.range_band.short"))
        if short < reach:
            out.append((ARC_SHORT, None, geometry.forward_arc(defender, tables, reach_in=short)))
    if defender.kind in (UnitKind.INFANTRY, UnitKind.CAVALRY) and defender.formation == Formation.LINE:
        reach = float(tables.value("movement.trigger.refuse_flank_in"))
        for side in ("left", "right"):
            out.append((FLANK, side, geometry.flank_zone(defender, side, tables, reach_in=reach)))
    return tuple(out)


def _fires(u: Unit) -> bool:
    if u.kind == UnitKind.ARTILLERY:
        return u.formation == Formation.UNLIMBERED
    return u.kind in (UnitKind.INFANTRY, UnitKind.CAVALRY) and u.is_formed


def _shape(mover: Unit, tables: RuleTables) -> np.ndarray:
    fp = geometry.footprint(mover, tables)
    return np.asarray(fp.polygon.exterior.coords)[:-1] - np.array([mover.x, mover.y])


def _first_entry(path: LineString, region: Polygon) -> float | None:
    """Distance along ``path`` of its first point inside ``region``, or None."""
    if region.is_empty:
        return None
    start = Point(path.coords[0])
    if region.intersects(start):
        return 0.0
    hit = path.intersection(region)
    if hit.is_empty:
        return None
    return min(path.project(Point(c)) for c in _coords(hit))


def _coords(geom) -> list[XY]:
    if hasattr(geom, "geoms"):
        return [c for g in geom.geoms for c in _coords(g)]
    if geom.geom_type == "Polygon":
        return list(geom.exterior.coords)
    return list(geom.coords)


def _check_path(path: Sequence[XY]) -> LineString:
    pts = list(parse_points(path, "a path"))
    if not pts:
        raise InvariantError("a path needs at least one point")
    if len(pts) == 1:
        pts.append(pts[0])
    return LineString(pts)


def _near_path(origins: np.ndarray, path: LineString, limit: np.ndarray) -> np.ndarray:
    """Which origins lie within ``limit`` (per origin) of the path: one vectorised distance test."""
    if len(origins) == 0:
        return np.zeros(0, dtype=bool)
    return shapely.distance(shapely.points(origins), path) <= limit


# -- threats at a point ------------------------------------------------------------------------------


def open_ground(battle: Battle, a: XY, b: XY) -> bool:
    """True when no terrain but open fields, roads, fords, bridges and hills lies between a and b."""
    line = LineString([a, b]) if a != b else Point(a)
    tree = _not_open_tree(battle.terrain)
    return tree is None or not len(tree.query(line, predicate="intersects"))


_NOT_OPEN_CACHE: list[tuple[tuple[TerrainFeature, ...], shapely.STRtree | None]] = []


def _not_open_tree(terrain: tuple[TerrainFeature, ...]) -> shapely.STRtree | None:
    """An STRtree of the terrain that is not open ground, shared by battle states with equal terrain."""
    for t, tree in _NOT_OPEN_CACHE:
        if t is terrain or t == terrain:
            return tree
    geoms = [
        Polygon(f.points) if f.is_area else LineString(f.points)
        for f in terrain
        if f.type not in OPEN_GROUND_TYPES
    ]
    tree = shapely.STRtree(geoms) if geoms else None
    _NOT_OPEN_CACHE.insert(0, (terrain, tree))
    del _NOT_OPEN_CACHE[8:]
    return tree


def _window_a_threat(
    battle: Battle, mover: Unit, defender: Unit, trigger: Trigger, side: str | None, tables: RuleTables
) -> Threat:
    fp_m = geometry.footprint(mover, tables)
    fp_d = geometry.footprint(defender, tables)
    dist = float(shapely.distance(fp_d.origin, fp_m.polygon))
    in_arc = trigger in (ARC, ARC_SHORT) or geometry.in_forward_arc(defender, mover, tables)
    flank = side if trigger == FLANK else geometry.in_flank_zone(defender, (mover.x, mover.y), tables)
    if trigger == ARC:
        dist = min(dist, float(tables.value("movement.trigger.opportunity_fire_in")))
    if trigger == ARC_SHORT:
        dist = min(dist, float(tables.value("shooting.range_band.short")))
    if trigger == SCREEN:
        dist = min(
            float(shapely.distance(fp_d.polygon, fp_m.polygon)),
            float(tables.value("movement.trigger.screen_evade_in")),
        )
    raked = geometry.enfilade_position(defender, mover, tables)
    return Threat(
        Window.A,
        mover.id,
        defender.id,
        dist,
        in_forward_arc=in_arc,
        charge=False,
        flank=flank,
        open_ground=open_ground(battle, (mover.x, mover.y), fp_d.centre_front),
        enfilade=raked is not None,
        enfilade_side=raked,
    )


def _charge_line(target: Unit, start: XY, tables: RuleTables, zone: str | None = None):
    """What the 4.0" line is measured from: the target's front edge for a charge that starts in its
    front (RULE-06-2.1), its whole footprint for one that comes in on a flank or the rear."""
    fp = geometry.footprint(target, tables)
    if (zone or geometry.zone_of(target, start, tables)) == "front":
        return fp.front_edge
    return fp.polygon.exterior


def window_b_along(
    target: Unit, path: Sequence[XY], tables: RuleTables, zone: str | None = None
) -> float | None:
    """How far along ``path`` a charger at ``target`` first comes within 4.0" of its front edge (or of
    its footprint, for a charge on a flank or the rear, ``zone`` as :func:`rules.battlefield.geometry.zone_of`
    names it): where Window B opens (RULE-06-2.1); None if it never does."""
    line = _check_path(path)
    line_in = float(tables.value("melee.charge.window_b_in"))
    return _first_entry(
        line, _charge_line(target, line.coords[0], tables, zone).buffer(line_in, quad_segs=32)
    )


def charge_threat(
    battle: Battle,
    charger: Unit,
    target: Unit,
    tables: RuleTables,
    *,
    start: XY | None = None,
    contact: str | None = None,
) -> Threat:
    """The Window B threat of ``charger`` (where it stands now) against ``target``: the one measure
    of it, for the windows found along a path and for a declared charge (:mod:`rules.assault.charge`).

    ``start`` is where the charge began (by default where the charger stands): it says whether the
    charge comes in on the front, a flank (Refuse the Flank may answer it) or the rear; ``contact``
    ("front", "flank" or "rear") is the umpire's ruling of it where it overrides the table. The
    distance is the charger's from the target's front edge (or its footprint, for a charge on a
    flank or the rear); the charge is across open ground when :func:`open_ground` finds the ground
    open from where it began to the target.
    """
    fp_t = geometry.footprint(target, tables)
    begin = (charger.x, charger.y) if start is None else start
    zone = geometry.zone_of(target, begin, tables)
    if contact is not None and contact != "flank":
        zone = "front" if contact == "front" else "rear"
    elif contact == "flank" and zone not in ("left_flank", "right_flank"):
        fp = geometry.footprint(target, tables)
        left = fp.left_front
        right = fp.right_front
        zone = "left_flank" if math.dist(begin, left) <= math.dist(begin, right) else "right_flank"
    dist = float(shapely.distance(Point(charger.x, charger.y), _charge_line(target, begin, tables, zone)))
    flank = {"left_flank": "left", "right_flank": "right"}.get(zone)
    raked = geometry.enfilade_position(target, charger, tables)
    return Threat(
        Window.B,
        charger.id,
        target.id,
        dist,
        in_forward_arc=geometry.in_forward_arc(target, charger, tables),
        charge=True,
        flank=flank,
        open_ground=open_ground(battle, begin, fp_t.centre_front),  # the ground the charge crosses
        enfilade=raked is not None,
        enfilade_side=raked,
    )


def defender_choice(battle: Battle, threat: Threat, trigger: Trigger, tables: RuleTables) -> DefenderChoice:
    """The defender's reactions at this window: a screen's Evade, or a formed unit's others (each with
    its cost or the reasons it is closed)."""
    screen = battle.unit(threat.defender).is_screen
    opts = tuple(
        option(battle, r, threat, tables)
        for r in REACTIONS_OF_WINDOW[threat.window]
        if (r == Reaction.EVADE) == screen
    )
    opts = tuple(_in_sight(battle, threat, _with_room(battle, o, tables), tables) for o in opts)
    return DefenderChoice(threat.defender, trigger, threat, opts)


VOLLEYS = (Reaction.CLOSING_VOLLEY, Reaction.OPPORTUNITY_FIRE)


def sight_refusal(battle: Battle, firer_id: str, target_id: str, tables: RuleTables) -> Reason | None:
    """Why ``firer_id`` may not fire a reaction's volley at ``target_id`` for want of a line of sight, as
    the table stands in ``battle``; None if it sees it. The question is the volley's own
    (:func:`rules.shooting.shoot.fire_inputs`, which measures the volley when it is fired and refuses
    a target out of sight), asked of it here, so the window and the volley cannot disagree; the reason
    cites the rule the line of sight names (a town sector's or a wood's sight depth, RULE-03-5.5;
    dead ground, RULE-03-4.3; an intervening hill, RULE-03-4.4; friendly units, RULE-03-5.3)."""
    try:
        fire_inputs(battle, firer_id, target_id, tables)
    except IllegalAction as exc:
        return Reason(str(exc).removesuffix(f" ({exc.rule})") if exc.rule else str(exc), exc.rule)
    return None


def _in_sight(battle: Battle, threat: Threat, opt: Option, tables: RuleTables) -> Option:
    """A volley (the Closing Volley, Opportunity Fire) is offered only at an attacker the defender sees
    where the window opens: Opportunity Fire at the mover at the point of interruption (RULE-04-3.3),
    the Closing Volley at the charger on the 4.0" line (RULE-04-2.1). ``battle`` has the attacker
    there; a volley the line of sight refuses is closed with that reason beside any others."""
    if opt.reaction not in VOLLEYS:
        return opt
    d, a = battle.unit(threat.defender), battle.unit(threat.attacker)
    if not (d.in_play and a.in_play) or d.side == a.side:
        return opt
    why = sight_refusal(battle, d.id, a.id, tables)
    if why is None:
        return opt
    return Option(opt.reaction, opt.defender, None, (*opt.reasons, why))


def _with_room(battle: Battle, opt: Option, tables: RuleTables) -> Option:
    """An Evade open by the rules of RULE-04-4.1, RULE-04-4.2 is still closed to a screen without the room
    for the shortest withdrawal behind it (RULE-04-4.3): the table's edge, terrain it may not
    enter or an enemy unit in the way."""
    if opt.reaction != Reaction.EVADE or not opt.eligible:
        return opt
    why = evade_refusal(battle, battle.unit(opt.defender), tables)
    if why is None:
        return opt
    return Option(opt.reaction, opt.defender, None, (Reason(why, "RULE-04-4.3"),))


# -- the search ----------------------------------------------------------------------------------


def find_windows(
    battle: Battle,
    mover_id: str,
    path: Sequence[XY],
    tables: RuleTables,
    *,
    charge_target: str | None = None,
    reacted: Collection[str] = (),
) -> tuple[TriggerWindow, ...]:
    """Every Trigger Window along ``path`` for the unit ``mover_id``, in path order.

    ``path`` runs from the mover's colour stand where the move starts; the mover keeps its facing.
    Only a unit of the active side opens windows (RULE-04-1.2); the others' moves open none.
    With ``charge_target`` the move is a declared charge: Window B opens where the charger comes
    within 4.0" of the target's front edge (RULE-06-2.1), and no Window A opens (RULE-04-1.2).
    Each trigger of each defender (its forward arc, each of its two flank zones, a screen's 6.0")
    opens a window once per move, where it is first met: a march that crosses from one flank zone
    of a defender into the other meets two windows, one at each zone, in order along the path
    (RULE-04-5.1 (Refuse the Flank, 5.0)). Windows met at the same point are one window.
    A defender that has already reacted to this move or charge may not react again (RULE-04-1.4):
    the battle state records it (:func:`rules.reactions.declare.reacted_to`) and its options say so;
    ``reacted`` names further defenders to hold the same way.
    """
    mover = battle.unit(mover_id)
    if not mover.in_play:
        raise IllegalAction(f"{mover.name} has been destroyed and cannot move")
    line = _check_path(path)
    if mover.side != battle.active_side:
        return ()  # only an active enemy unit's move or charge opens a window (RULE-04-1.2)
    if charge_target is not None:
        windows = _window_b(battle, mover, line, charge_target, tables)
    else:
        windows = _window_a(battle, mover, line, tables)
    done = frozenset(reacted)
    if not done:
        return windows
    return tuple(
        replace(w, defenders=tuple(_already(d, battle) if d.defender in done else d for d in w.defenders))
        for w in windows
    )


def _already(choice: DefenderChoice, battle: Battle) -> DefenderChoice:
    """The choice of a defender that has reacted to this move already: nothing more (RULE-04-1.4)."""
    name = battle.unit(choice.defender).name
    why = Reason(f"{name} has already reacted to this move", "RULE-04-1.4")
    opts = tuple(Option(o.reaction, o.defender, None, (*o.reasons, why)) for o in choice.options)
    return replace(choice, options=opts)


def _window_a(battle: Battle, mover: Unit, line: LineString, tables: RuleTables) -> tuple[TriggerWindow, ...]:
    enemies = battle.oob.in_play(battle.oob.enemy_of(mover.side))
    if not enemies:
        return ()
    shape = _shape(mover, tables)
    shape_key = tuple(np.round(shape, 9).ravel().tolist())
    mover_reach = float(np.max(np.hypot(shape[:, 0], shape[:, 1])))
    reach = max(
        float(tables.value("movement.trigger.opportunity_fire_in")),
        float(tables.value("movement.trigger.refuse_flank_in")),
        float(tables.value("movement.trigger.screen_evade_in")),
    )
    origins = np.array([[u.x, u.y] for u in enemies], dtype=float)
    sizes = np.array([_size(u, tables) for u in enemies])
    near = _near_path(origins, line, reach + mover_reach + sizes)
    regions: list[tuple[Unit, Trigger, str | None]] = []
    polys: list[Polygon] = []
    for u, keep in zip(enemies, near):
        if keep:
            for trigger, side, grown in _grown_regions(u, shape_key, tables):
                regions.append((u, trigger, side))
                polys.append(grown)
    if not polys:
        return ()
    entries = _first_entries(line, np.array(polys, dtype=object))
    # each region of each defender (its arc, its short range, each of its two flank zones, a
    # screen's 6.0") opens its own window where the path first enters it (RULE-04-5.1, RULE-04-1.4)
    first: dict[tuple[str, Trigger, str | None], tuple[float, Unit]] = {}
    for (u, trigger, side), s in zip(regions, entries):
        if s is None:
            continue
        key = (u.id, trigger, side)
        if key not in first or s < first[key][0]:
            first[key] = (s, u)
    events = sorted(
        ((s, trigger, u, side) for (_, trigger, side), (s, u) in first.items()),
        key=lambda e: (e[0], e[2].id, e[1].value, e[3] or ""),
    )
    windows: list[TriggerWindow] = []
    for s, trigger, defender, side in events:
        p = line.interpolate(s)
        moved = mover.moved_to(p.x, p.y)
        # the defender answers the table as it stands at the point of interruption: a volley is
        # offered only at a mover it sees there (RULE-04-3.3, RULE-03-5.5)
        at = battle.with_unit(moved)
        threat = _window_a_threat(at, moved, defender, trigger, side, tables)
        choice = defender_choice(at, threat, trigger, tables)
        # the defenders a point opens are asked together; a defender whose second region (its
        # arc and its flank zone, say) opens there too is asked again in a window of its own
        # there, once it has answered the first (each window asks a defender once)
        if (
            windows
            and windows[-1].along_in == s
            and all(d.defender != defender.id for d in windows[-1].defenders)
        ):
            last = windows[-1]
            windows[-1] = TriggerWindow(last.window, last.point, s, mover.id, (*last.defenders, choice))
        else:
            windows.append(TriggerWindow(Window.A, (p.x, p.y), s, mover.id, (choice,)))
    return tuple(windows)


@lru_cache(maxsize=8192)
def _grown_regions(
    defender: Unit, shape_key: tuple[float, ...], tables: RuleTables
) -> tuple[tuple[Trigger, str | None, Polygon], ...]:
    """The defender's regions grown by the mover's footprint (cached: a drag keeps both the same)."""
    shape = np.asarray(shape_key, dtype=float).reshape(-1, 2)
    return tuple((t, side, _grown(region, shape)) for t, side, region in _regions(defender, tables))


def _first_entries(path: LineString, regions: np.ndarray) -> list[float | None]:
    """For each region, the distance along the path of its first point inside it (or None)."""
    start = Point(path.coords[0])
    inside = shapely.intersects(regions, start)
    crossed = shapely.intersects(regions, path)
    out: list[float | None] = [None] * len(regions)
    todo = np.flatnonzero(crossed & ~inside)
    for i in np.flatnonzero(inside):
        out[i] = 0.0
    if len(todo):
        pieces = shapely.intersection(path, regions[todo])
        for i, piece in zip(todo, pieces):
            coords = shapely.get_coordinates(piece)
            if len(coords):
                out[i] = float(np.min(shapely.line_locate_point(path, shapely.points(coords))))
    return out


@lru_cache(maxsize=4096)
def _size(unit: Unit, tables: RuleTables) -> float:
    """How far the unit's footprint reaches from its colour stand."""
    fp = geometry.footprint(unit, tables)
    pts = np.asarray(fp.polygon.exterior.coords) - np.array([unit.x, unit.y])
    return float(np.max(np.hypot(pts[:, 0], pts[:, 1])))


def _window_b(
    battle: Battle, charger: Unit, line: LineString, target_id: str, tables: RuleTables
) -> tuple[TriggerWindow, ...]:
    target = battle.unit(target_id)
    if target.side == charger.side:
        raise IllegalAction(f"{charger.name} cannot charge {target.name}, a friendly unit")
    if not target.in_play:
        raise IllegalAction(f"{target.name} has been destroyed")
    line_in = float(tables.value("melee.charge.window_b_in"))
    s = window_b_along(target, list(line.coords), tables)
    if s is None:
        return ()
    p = line.interpolate(s)
    at = battle.with_unit(charger.moved_to(p.x, p.y))
    threat = charge_threat(at, at.unit(charger.id), target, tables, start=line.coords[0])
    # found on the 4.0" line: anything beyond it is floating-point dust
    threat = replace(threat, distance_in=min(threat.distance_in, line_in))
    choice = defender_choice(at, threat, CHARGE, tables)
    return (TriggerWindow(Window.B, (p.x, p.y), s, charger.id, (choice,)),)

    return None
