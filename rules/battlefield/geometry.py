"""Where units stand on the table: footprints, arcs, zones, distances and enfilade (chapter 03).

Conventions (the same everywhere in Brigadier): inches and degrees; ``x`` grows to the right and
``y`` grows *down* the table; ``facing_deg`` is a compass bearing (0 faces the top edge, 90 faces
``+x``); a unit's ``(x, y)`` is the centre of the front edge of its colour stand (RULE-03-5.2).

Every unit has a *local frame*: ``u`` runs along its front to its right, ``v`` runs straight ahead.
The colour stand's centre-front is ``(u, v) = (0, 0)``; the stands lie at ``v <= 0``.

Stand layouts (base sizes from ``units.base_width`` / ``units.base_depth`` in the rule tables):

* line of battle, dismounted, mounted, unlimbered: all stands side by side, centred on the colour
  stand (with an even number of stands the extra stand is on the colour stand's left);
* assault column: 2 stands wide, ``ceil(n / 2)`` deep, the colour stand front right;
* road column and limbered battery: 1 stand wide, ``n`` deep, the colour stand leading;
* skirmish order: side by side with an interval of one stand width between stands.

Artillery stands are sections. A destroyed unit (0 stands) keeps the footprint of one stand so
that it can still be drawn and measured where it fell.

>>> from rules.battle.unit import Unit
>>> from rules.battle.words import UnitKind
>>> from rules.tables import load_tables
>>> u = Unit(id="wis2", name="2nd Wisconsin", side="union", brigade="iron",
...          kind=UnitKind.INFANTRY, stands=5, stands_start=5, x=10, y=20)
>>> fp = footprint(u, load_tables())
>>> fp.left_front, fp.right_front, len(fp.stands), fp.colour_index
((6.25, 20.0), (13.75, 20.0), 5, 2)
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Literal

from rules.battle.unit import Unit
from rules.battle.words import Formation
from rules.errors import InvariantError
from rules.lazy import lazy_module
from rules.tables import RuleTables, load_tables

if TYPE_CHECKING:
    import numpy as np
    import shapely
    from shapely.geometry import LineString, Point, Polygon
else:  # imported at the first geometric question, not to draw the first window
    np = lazy_module("numpy", globals(), "np")
    shapely = lazy_module("shapely", globals())

Zone = Literal["front", "left_flank", "right_flank", "rear"]
XY = tuple[float, float]

#: How far an "unbounded" arc is drawn when no reach is given, in inches. Larger than any table.
FAR_IN = 10_000.0


@dataclass(frozen=True, eq=False)
class Footprint:
    """The ground a unit covers, in table coordinates.

    ``corners`` are the corners of the rectangle its stands span (including the intervals of
    skirmish order and the empty place at the back of an odd column): left front, right front,
    right rear, left rear. ``stand_corners`` are the stand rectangles the same way round, front rank
    first, left to right; ``stand_corners[colour_index]`` is the colour stand. These are plain
    numbers, enough to draw the unit; the shapely shapes (``polygon``, ``stands``, ``front_edge``)
    are made from them when first asked for.
    """

    unit_id: str
    corners: tuple[XY, XY, XY, XY]
    stand_corners: tuple[tuple[XY, XY, XY, XY], ...]
    colour_index: int
    left_front: XY
    right_front: XY
    centre_front: XY
    centre: XY
    facing_deg: float
    forward: XY  # unit vector straight ahead
    right: XY  # unit vector along the front, to the unit's right
    u_min: float  # local u of the left front corner
    u_max: float  # local u of the right front corner
    depth: float  # from the front edge to the rear of the last rank
    stand_centre_points: tuple[XY, ...]  # centres of the stands, table coordinates

    @cached_property
    def polygon(self) -> Polygon:
        """The rectangle the unit's stands span."""
        return shapely.Polygon(self.corners)

    @cached_property
    def stands(self) -> tuple[Polygon, ...]:
        """The stand rectangles, front rank first, left to right."""
        rings = np.array([[*c, c[0]] for c in self.stand_corners], dtype=float)
        return tuple(shapely.polygons(rings))

    @cached_property
    def front_edge(self) -> LineString:
        return shapely.LineString([self.corners[0], self.corners[1]])

    @cached_property
    def stand_centres(self) -> np.ndarray:
        """``(n, 2)`` centres of the stands, table coordinates."""
        return np.array(self.stand_centre_points, dtype=float).reshape(-1, 2)

    @property
    def origin(self) -> Point:
        """The colour stand's centre-front, where ranges are measured from (RULE-03-5.2)."""
        return shapely.Point(self.centre_front)

    @property
    def frontage_in(self) -> float:
        return self.u_max - self.u_min

    def to_local(self, points: np.ndarray | Sequence[XY]) -> np.ndarray:
        """Points (``(k, 2)``) in this unit's frame: column 0 is ``u`` (right), column 1 is ``v`` (ahead)."""
        p = np.asarray(points, dtype=float).reshape(-1, 2) - np.asarray(self.centre_front)
        rx, ry = self.right
        fx, fy = self.forward
        return np.column_stack((p[:, 0] * rx + p[:, 1] * ry, p[:, 0] * fx + p[:, 1] * fy))

    def to_table(self, local: np.ndarray | Sequence[XY]) -> np.ndarray:
        """Local ``(u, v)`` points back to table coordinates."""
        q = np.asarray(local, dtype=float).reshape(-1, 2)
        rx, ry = self.right
        fx, fy = self.forward
        ox, oy = self.centre_front
        return np.column_stack((ox + q[:, 0] * rx + q[:, 1] * fx, oy + q[:, 0] * ry + q[:, 1] * fy))


# -- frames and layouts ------------------------------------------------------------------------


def frame(facing_deg: float) -> tuple[XY, XY]:
    """The (forward, right) unit vectors of a compass bearing, with y growing down the table.

    >>> f, r = frame(90)
    >>> [round(c, 9) + 0.0 for c in f], [round(c, 9) + 0.0 for c in r]
    ([1.0, 0.0], [0.0, 1.0])
    """
    a = math.radians(facing_deg)
    s, c = math.sin(a), math.cos(a)
    return (s, -c), (c, s)


def _grid(formation: Formation, n: int) -> tuple[int, float, int]:
    """(stands per rank, pitch along the front in stand widths, colour stand's place in the front rank)."""
    if formation == Formation.ASSAULT_COLUMN:
        cols = min(2, n)
        return cols, 1.0, cols - 1
    if formation in (Formation.ROAD_COLUMN, Formation.LIMBERED):
        return 1, 1.0, 0
    if formation == Formation.SKIRMISH:
        return n, 2.0, n // 2
    return n, 1.0, n // 2  # line, dismounted, mounted, unlimbered


def base_size(unit: Unit, tables: RuleTables) -> tuple[float, float]:
    """(width, depth) of one of the unit's stands, inches."""
    kind = unit.kind.value
    return float(tables.value(f"units.base_width.{kind}")), float(tables.value(f"units.base_depth.{kind}"))


@lru_cache(maxsize=8192)
def _footprint(
    unit_id: str, formation: Formation, n: int, x: float, y: float, facing: float, w: float, d: float
) -> Footprint:
    n = max(n, 1)
    cols, pitch, colour_col = _grid(formation, n)
    (fx, fy), (rx, ry) = frame(facing)

    def at(u: float, v: float) -> XY:
        return (x + u * rx + v * fx, y + u * ry + v * fy)

    stands: list[tuple[XY, XY, XY, XY]] = []
    centres: list[XY] = []
    last_rear = 0.0
    for i in range(n):
        cu = (i % cols - colour_col) * pitch * w  # centre of the stand along the front
        top = -(i // cols) * d  # v of the stand's front edge
        left, right, rear = cu - w / 2, cu + w / 2, top - d
        stands.append((at(left, top), at(right, top), at(right, rear), at(left, rear)))
        centres.append(at(cu, top - d / 2))
        last_rear = min(last_rear, rear)
    cus = [(c - colour_col) * pitch * w for c in range(min(cols, n))]
    u_min, u_max = min(cus) - w / 2, max(cus) + w / 2
    depth = -last_rear
    corners = (at(u_min, 0.0), at(u_max, 0.0), at(u_max, -depth), at(u_min, -depth))
    return Footprint(
        unit_id=unit_id,
        corners=corners,
        stand_corners=tuple(stands),
        colour_index=int(colour_col),
        left_front=_r(corners[0]),
        right_front=_r(corners[1]),
        centre_front=(x, y),
        centre=_r(at((u_min + u_max) / 2, -depth / 2)),
        facing_deg=facing,
        forward=(fx, fy),
        right=(rx, ry),
        u_min=u_min,
        u_max=u_max,
        depth=depth,
        stand_centre_points=tuple(centres),
    )


def _r(p: XY) -> XY:
    """Round away floating-point dust (1e-15) so that corners print as the umpire measures them."""
    return (round(p[0], 9) + 0.0, round(p[1], 9) + 0.0)


def footprint(unit: Unit, tables: RuleTables | None = None) -> Footprint:
    """The footprint of ``unit`` (cached: calling it again for the same unit and place is free)."""
    if not isinstance(unit, Unit):
        raise InvariantError(f"a footprint needs a unit, not {type(unit).__name__}")
    t = tables if tables is not None else load_tables()
    w, d = base_size(unit, t)
    return _footprint(unit.id, unit.formation, unit.stands, unit.x, unit.y, unit.facing_deg % 360, w, d)


def footprints(units: Iterable[Unit], tables: RuleTables | None = None) -> list[Footprint]:
    t = tables if tables is not None else load_tables()
    return [footprint(u, t) for u in units]


def _fp(unit_or_fp: Unit | Footprint, tables: RuleTables | None) -> Footprint:
    return unit_or_fp if isinstance(unit_or_fp, Footprint) else footprint(unit_or_fp, tables)


def _xy(point: XY | Point | Sequence[float]) -> XY:
    shapely_module = sys.modules.get("shapely")  # a shapely point can exist only once it is imported
    if shapely_module is not None and isinstance(point, shapely_module.Point):
        return (point.x, point.y)
    try:
        x, y = point
        fx, fy = float(x), float(y)
    except (TypeError, ValueError):
        raise InvariantError(
            f"a point on the table is a pair of numbers (x, y) in inches, not {point!r}"
        ) from None
    if not (math.isfinite(fx) and math.isfinite(fy)):
        raise InvariantError(f"a point on the table must be finite, not {point!r}")
    return (fx, fy)


def wheeled_stand_corners(fp: Footprint, side: str, n: int, deg: float) -> tuple[tuple[XY, XY, XY, XY], ...]:
    """The stand rectangles of a line with its outer ``n`` stands of the ``side`` flank wheeled back
    ``deg`` degrees, as Refuse the Flank draws them (RULE-04-5.3: "an angled 'L-shaped' defensive
    shoulder"): they turn about the front corner where they meet the rest of the line, which stays
    anchored. Only the front rank wheels; a unit of one stand, or asked for none, is as it was.

    >>> from rules.battle.unit import Unit
    >>> from rules.battle.words import UnitKind
    >>> u = Unit(id="u", name="u", side="s", brigade="b", kind=UnitKind.INFANTRY, stands=5,
    ...          stands_start=5, x=30, y=30)
    >>> fp = footprint(u)
    >>> outer = wheeled_stand_corners(fp, "right", 2, 90.0)[-1]
    >>> [tuple(round(c, 2) for c in p) for p in outer[:2]]  # the outer stand now runs to the rear
    [(30.75, 31.5), (30.75, 33.0)]
    """
    stands = list(fp.stand_corners)
    front = [i for i, c in enumerate(stands) if abs(fp.to_local([c[0]])[0, 1]) < 1e-9]
    n = max(0, min(n, len(front) - 1))
    if n == 0 or side not in ("left", "right"):
        return tuple(stands)
    wheel = front[-n:] if side == "right" else front[:n]
    hinge = stands[wheel[0]][0] if side == "right" else stands[wheel[-1]][1]
    (rx, ry), (fx, fy) = fp.right, fp.forward
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    sign = 1.0 if side == "right" else -1.0

    def turn(p: XY) -> XY:
        dx, dy = p[0] - hinge[0], p[1] - hinge[1]
        a, b = dx * rx + dy * ry, dx * fx + dy * fy  # along the line, and ahead
        # the outer end swings back: right of the hinge turns clockwise, left of it anticlockwise
        a2, b2 = a * c + sign * b * s, -sign * a * s + b * c
        return _r((hinge[0] + a2 * rx + b2 * fx, hinge[1] + a2 * ry + b2 * fy))

    for i in wheel:
        stands[i] = tuple(turn(p) for p in stands[i])  # type: ignore[assignment]
    return tuple(stands)


# -- arcs and zones ------------------------------------------------------------------------------


def arc_deg(tables: RuleTables | None = None) -> float:
    """The half-angle of the forward arc at each front corner (45 degrees, RULE-03-5.1)."""
    t = tables if tables is not None else load_tables()
    return float(t.value("terrain.arc.forward_deg"))


def forward_arc(
    unit: Unit | Footprint, tables: RuleTables | None = None, reach_in: float | None = None
) -> Polygon:
    """The 45 degree forward arc of fire (RULE-03-5.1) as a polygon.

    The arc is the ground ahead of the front edge bounded by two rays drawn from the far-left and
    far-right front corners, each turned 45 degrees outward from straight ahead. With ``reach_in``
    it is cut to the points within that distance of the colour stand's centre-front, where ranges
    are measured from (RULE-03-5.2); without it, it runs off the table.
    """
    t = tables if tables is not None else load_tables()
    fp = _fp(unit, t)
    if reach_in is not None and not (isinstance(reach_in, (int, float)) and reach_in >= 0):
        raise InvariantError(f"the reach of an arc is a distance in inches, not {reach_in!r}")
    far = FAR_IN if reach_in is None else float(reach_in) + fp.frontage_in
    spread = math.tan(math.radians(arc_deg(t)))
    local = [
        (fp.u_min, 0.0),
        (fp.u_max, 0.0),
        (fp.u_max + far * spread, far),
        (fp.u_min - far * spread, far),
    ]
    wedge = shapely.Polygon(fp.to_table(local))
    if reach_in is None:
        return wedge
    clipped = wedge.intersection(fp.origin.buffer(float(reach_in), quad_segs=32))
    return clipped if isinstance(clipped, shapely.Polygon) else shapely.Polygon()


def flank_zone(
    unit: Unit | Footprint,
    side: Literal["left", "right"],
    tables: RuleTables | None = None,
    reach_in: float | None = None,
) -> Polygon:
    """The flank zone of one side: from the edge of the forward arc (45 degrees) round to the line
    of the front edge (90 degrees), from that front corner (RULE-04-5.1 (Refuse the Flank, 5.0))."""
    t = tables if tables is not None else load_tables()
    fp = _fp(unit, t)
    if side not in ("left", "right"):
        raise InvariantError(f"a flank is 'left' or 'right', not {side!r}")
    far = FAR_IN if reach_in is None else float(reach_in) + fp.frontage_in
    spread = math.tan(math.radians(arc_deg(t)))
    if side == "right":
        local = [(fp.u_max, 0.0), (fp.u_max + far, 0.0), (fp.u_max + far * spread, far)]
    else:
        local = [(fp.u_min, 0.0), (fp.u_min - far * spread, far), (fp.u_min - far, 0.0)]
    zone = shapely.Polygon(fp.to_table(local))
    if reach_in is None:
        return zone
    clipped = zone.intersection(fp.origin.buffer(float(reach_in), quad_segs=32))
    return clipped if isinstance(clipped, shapely.Polygon) else shapely.Polygon()


def _zones_local(fp: Footprint, uv: np.ndarray, spread: float) -> np.ndarray:
    """Zone codes for local points: 0 front, 1 left flank, 2 right flank, 3 rear."""
    u, v = uv[:, 0], uv[:, 1]
    front = (v >= 0) & (u <= fp.u_max + v * spread + 1e-9) & (u >= fp.u_min - v * spread - 1e-9)
    right = ~front & (u > fp.u_max)
    left = ~front & (u < fp.u_min)
    out = np.full(len(uv), 3)
    out[front] = 0
    out[left] = 1
    out[right] = 2
    return out


_ZONES: tuple[Zone, ...] = ("front", "left_flank", "right_flank", "rear")


def zone_of(defender: Unit | Footprint, point: XY | Point, tables: RuleTables | None = None) -> Zone:
    """Which of the defender's zones a point is in.

    * ``front``: inside the 45 degree forward arc (RULE-03-5.1), its edges included;
    * ``left_flank`` / ``right_flank``: outside the arc and beyond that side of the frontage: the
      45-90 degree flank zone of RULE-04-5.1 and, behind the line of the front edge, the ground
      level with and behind that flank;
    * ``rear``: behind the front edge and within the width of the frontage.

    Use :func:`in_flank_zone` for the strict 45-90 degree zone that triggers Refuse the Flank and
    :func:`behind_flank_line` for "behind the 90 degree flank line" (RULE-03-5.7, RULE-06-3.3).
    """
    t = tables if tables is not None else load_tables()
    fp = _fp(defender, t)
    uv = fp.to_local([_xy(point)])
    return _ZONES[int(_zones_local(fp, uv, math.tan(math.radians(arc_deg(t))))[0])]


def in_flank_zone(
    defender: Unit | Footprint, point: XY | Point, tables: RuleTables | None = None
) -> str | None:
    """'left' or 'right' when the point is in that 45-90 degree Flank Zone (RULE-04-5.1 (Refuse the
    Flank, 5.0)): ahead of the front-edge line but outside the forward arc. Otherwise None."""
    t = tables if tables is not None else load_tables()
    fp = _fp(defender, t)
    ((u, v),) = fp.to_local([_xy(point)])
    z = _zones_local(fp, np.array([[u, v]]), math.tan(math.radians(arc_deg(t))))[0]
    if v < 0 or z == 0:
        return None
    return "left" if z == 1 else "right"


def behind_flank_line(
    defender: Unit | Footprint, point: XY | Point, tables: RuleTables | None = None
) -> bool:
    """True when the point is behind the line projected at 90 degrees from the defender's front
    corners, that is behind the line of its front edge (RULE-03-5.7; "Contacted behind target's 90
    degree flank line", RULE-06-3.3). A point on the line is not behind it."""
    fp = _fp(defender, tables)
    return bool(fp.to_local([_xy(point)])[0, 1] < 0)


def _touches_inside(region: Polygon, geom) -> bool:
    """True when ``geom`` shares more than a boundary with ``region``."""
    return bool(shapely.intersects(region, geom) and not shapely.touches(region, geom))


def in_forward_arc(
    firer: Unit | Footprint, target: Unit | Footprint, tables: RuleTables | None = None
) -> bool:
    """True when any part of the target's footprint lies inside the firer's 45 degree forward arc
    (RULE-03-5.1). Merely touching the edge of the arc does not count."""
    t = tables if tables is not None else load_tables()
    return _touches_inside(forward_arc(firer, t), _fp(target, t).polygon)


# -- distances -------------------------------------------------------------------------------------


def distance_in(a: Unit | Footprint, b: Unit | Footprint, tables: RuleTables | None = None) -> float:
    """The range from ``a`` to ``b``: from a's colour stand centre-front (RULE-03-5.2) to the
    nearest point of b's front edge."""
    t = tables if tables is not None else load_tables()
    fa, fb = _fp(a, t), _fp(b, t)
    return float(shapely.distance(fa.origin, fb.front_edge))


# -- enfilade ------------------------------------------------------------------------------------


def enfilade_position(
    firer: Unit | Footprint, target: Unit | Footprint, tables: RuleTables | None = None
) -> str | None:
    """Where the firer stands in enfilade of the target: ``"left"``, ``"right"`` or ``"rear"``, or None.

    How Brigadier reads RULE-03-5.7 ("more than 50% of the firing unit's stands (or its physical
    center) is positioned behind the line projected outward at 90 degrees from the target's front
    corner"): the lines projected at 90 degrees from the two front corners run along the line of
    the target's front edge, left and right. A firing stand is *behind* them when its centre is
    strictly behind that line (on the target's own side of it, the side its rear faces). The
    firer is in enfilade when more than half of its stands are (exactly half is not), or when the
    centre of its footprint is. The flank named is the side of the target the firer's centre is
    on; a firer directly behind the target's frontage is in its ``"rear"``, which RULE-06-3.3
    counts with the flank.
    """
    t = tables if tables is not None else load_tables()
    ff, ft = _fp(firer, t), _fp(target, t)
    share = float(t.value("terrain.enfilade.more_than_share"))
    uv = ft.to_local(ff.stand_centres)
    behind = uv[:, 1] < 0
    ((cu, cv),) = ft.to_local([ff.centre])
    if not (behind.sum() > share * len(uv) or cv < 0):
        return None
    if cu > ft.u_max:
        return "right"
    if cu < ft.u_min:
        return "left"
    return "rear"


def is_enfilade(firer: Unit | Footprint, target: Unit | Footprint, tables: RuleTables | None = None) -> bool:
    """True when the firer is in an enfilade / flank position on the target (RULE-03-5.7).

    See :func:`enfilade_position` for how the rule is read. Terrain that stops a unit being
    enfiladed (a garrisoned building, RULE-03-3.1) is applied by :mod:`rules.battlefield.field`.
    """
    return enfilade_position(firer, target, tables) is not None


def point_along(start: XY | Point, bearing: float, dist_in: float) -> XY:
    """The point ``dist_in`` inches from ``start`` along the compass bearing ``bearing`` (0 = towards
    the top edge, -y; 90 = towards +x); a negative distance goes the other way."""
    x, y = _xy(start)
    r = math.radians(bearing)
    return (x + dist_in * math.sin(r), y - dist_in * math.cos(r))


def bearing_deg(a: XY | Point, b: XY | Point) -> float:
    """The compass bearing from a to b (0 = towards the top edge, 90 = towards +x)."""
    ax, ay = _xy(a)
    bx, by = _xy(b)
    return math.degrees(math.atan2(bx - ax, -(by - ay))) % 360
