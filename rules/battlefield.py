"""The battlefield of one battle state: terrain effects, movement, cover, elevation, sight and targets.

A :class:`Battlefield` is built once per :class:`~rules.battle.Battle` state. The terrain's
geometry and its STRtree are cached on the battle's terrain, so a battlefield for the state after
a unit moved (``battle.with_unit(...)`` keeps the same terrain) costs only the new footprints.

What each terrain type does is read from the Master Terrain Matrix (RULE-03-1.2) in
``resources/rules/terrain.toml`` (keys ``terrain.matrix.<type>.<effect>``).

How Brigadier measures and reads chapter 03 (each is said again where it is used):

* Sight lines run from the viewer's colour stand centre-front to the target's (RULE-03-5.2), so
  terrain blocks sight both ways alike. The pool of stands with a clear view (RULE-03-5.3) is
  counted with one line from the centre-front of each of the firer's stands.
* A unit's elevation is the level of the ground under its colour stand's centre-front.
* A unit is "behind the crest" by the gap between the crestline and its footprint; more than
  1.0" is the reverse slope, in dead ground to enemies on lower ground on the other side of the
  crest (RULE-03-4.3). Exactly 1.0" is not.
* A garrison is a unit with the ``garrisoned`` marker whose colour stand stands in the building.
  Its building never blocks its sight nor sight to it: it fires across every face (RULE-03-3.1)
  and is fired on (RULE-03-3.2).
* A town sector or building blocks any sight line that runs through its footprint (RULE-03-5.5).
  Chapter 03 does not say how far a unit standing in one sees out: Brigadier lets a unit see out,
  and be seen, through the first ``terrain.sight.structure_edge_in`` (club default 1.0") of the
  footprint it stands in, measured along the sight line from its colour stand. A unit on the edge
  of a town sector sees out of that edge; one deeper in is hidden by the houses between, and
  sees nothing out of the far side of its own sector.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import shapely
import shapely.affinity
from shapely import STRtree
from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.polygon import orient
from shapely.ops import nearest_points

from rules.battle import Battle
from rules.errors import IllegalAction, InvariantError, TableError
from rules.events import Step
from rules.geometry import (
    XY,
    Footprint,
    distance_in,
    enfilade_position,
    footprint,
    forward_arc,
)
from rules.geometry import zone_of as geometry_zone_of
from rules.model import Formation, Marker, Unit, UnitKind, plural
from rules.tables import RuleTables, load_tables
from rules.terrain import TerrainFeature, TerrainType

_EPS = 1e-9

# sight kinds in the matrix
_CLEAR, _LIMITED, _BLOCKS, _CREST = 0, 1, 2, 3
_SIGHT = {"clear": _CLEAR, "limited": _LIMITED, "blocks": _BLOCKS, "crest": _CREST}

# why a sight line is blocked, in the order they are reported
_DEAD_GROUND, _HILL, _STRUCTURE, _LIMIT = 1, 2, 3, 4
_NO_BLOCK = 99


# -- the terrain index (cached per terrain tuple) -------------------------------------------------


class _TerrainIndex:
    """Shapely geometry, an STRtree and the matrix effects of every terrain feature."""

    def __init__(self, terrain: tuple[TerrainFeature, ...], tables: RuleTables):
        self.features = terrain
        self.ids = {f.id: i for i, f in enumerate(terrain)}
        geoms, areas, crests = [], [], []
        tol = float(tables.value("terrain.cover.touching_in"))
        for f in terrain:
            if f.is_linear:
                line = LineString(f.points)
                geoms.append(line)
                areas.append(line.buffer(max(f.width_in / 2, tol), cap_style="flat"))
            else:
                poly = Polygon(f.points)
                if not poly.is_valid:
                    poly = shapely.make_valid(poly).buffer(0)
                geoms.append(poly)
                areas.append(poly)
            crests.append(
                LineString(f.crest)
                if f.is_hill and len(f.crest) >= 2
                else shapely.from_wkt("LINESTRING EMPTY")
            )
        self.geoms = np.array(geoms, dtype=object)
        self.areas = np.array(areas, dtype=object)
        self.crests = np.array(crests, dtype=object)
        self.tree = STRtree(self.geoms) if len(terrain) else None
        # areas: outlines, and linear features as strips of their width (for "in the sunken road")
        self.area_tree = STRtree(self.areas) if len(terrain) else None
        n = len(terrain)
        self.sight = np.zeros(n, dtype=int)
        self.limit = np.full(n, np.inf)
        self.level = np.array([f.level for f in terrain], dtype=int)
        self.is_crop = np.array([f.type == TerrainType.CORNFIELD for f in terrain], dtype=bool)
        self.is_hill = np.array([f.is_hill for f in terrain], dtype=bool)
        self.is_building = np.array([f.type == TerrainType.BUILDING for f in terrain], dtype=bool)
        edge = tables.value("terrain.sight.structure_edge_in")
        if (
            isinstance(edge, bool)
            or not isinstance(edge, (int, float))
            or not math.isfinite(edge)
            or edge < 0
        ):
            raise TableError(f"terrain.sight.structure_edge_in must be inches of 0 or more, not {edge!r}")
        # how much of the town sector or building a unit stands in it sees out through
        self.structure_edge = float(edge)
        for i, f in enumerate(terrain):
            self.sight[i] = _SIGHT[str(tables.value(f"terrain.matrix.{f.type.value}.sight"))]
            key = f"terrain.matrix.{f.type.value}.sight_limit_in"
            if self.sight[i] == _LIMITED:
                self.limit[i] = float(tables.value(key))
        # convex outlines as half-planes, so the length of a sight line inside them is plain
        # arithmetic on arrays (Cyrus-Beck clipping); other outlines are measured by shapely
        self.convex = np.zeros(n, dtype=bool)
        k = max((len(f.points) for f in terrain if not f.is_linear), default=3)
        self.edge_n = np.zeros((n, k, 2))
        self.edge_c = np.ones((n, k))
        for i, f in enumerate(terrain):
            g = self.geoms[i]
            if f.is_linear or not isinstance(g, Polygon) or g.interiors:
                continue
            if abs(g.convex_hull.area - g.area) > 1e-9 * max(g.area, 1.0) or g.area <= 0:
                continue
            pts = np.asarray(orient(g, 1.0).exterior.coords)
            if len(pts) - 1 > k:
                continue
            a, b = pts[:-1], pts[1:]
            e = b - a
            normal = np.column_stack((e[:, 1], -e[:, 0]))  # outward for a counter-clockwise ring
            self.edge_n[i, : len(e)] = normal
            self.edge_c[i, : len(e)] = np.einsum("ij,ij->i", normal, a)
            self.convex[i] = True
        # the widest a feature is (its bounding box diagonal): an upper bound on a line inside it
        if n:
            b = shapely.bounds(self.geoms)
            self.span = np.hypot(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
        else:
            self.span = np.zeros(0)
        # the ground level of each feature's own ground (for crops seen from a crest)
        self.ground_level = np.zeros(n, dtype=int)
        if n:
            reps = shapely.point_on_surface(self.areas)
            self.ground_level = self.levels_at(reps)

    def inside_length(self, p0: np.ndarray, p1: np.ndarray, fj: np.ndarray, segs: np.ndarray) -> np.ndarray:
        """The length of each segment ``p0[i] -> p1[i]`` inside the area of feature ``fj[i]``."""
        out = np.zeros(len(fj))
        cx = self.convex[fj]
        if cx.any():
            a, b, f = p0[cx], p1[cx], fj[cx]
            d = b - a
            n, c = self.edge_n[f], self.edge_c[f]
            num = c - np.einsum("pkj,pj->pk", n, a)
            den = np.einsum("pkj,pj->pk", n, d)
            with np.errstate(divide="ignore", invalid="ignore"):
                t = num / den
            lo = np.max(np.where(den < 0, t, 0.0), axis=1, initial=0.0)
            hi = np.min(np.where(den > 0, t, 1.0), axis=1, initial=1.0)
            outside = np.any((den == 0) & (num < 0), axis=1)
            frac = np.where(outside, 0.0, np.clip(hi - lo, 0.0, 1.0))
            out[cx] = frac * np.hypot(d[:, 0], d[:, 1])
        if (~cx).any():
            out[~cx] = shapely.length(shapely.intersection(segs[~cx], self.areas[fj[~cx]]))
        return out

    def levels_at(self, points: np.ndarray) -> np.ndarray:
        """The level of the ground at each point (vectorised)."""
        out = np.zeros(len(points), dtype=int)
        if self.tree is None or len(points) == 0:
            return out
        pi, fi = self.tree.query(points, predicate="intersects")
        hill = self.is_hill[fi]
        np.maximum.at(out, pi[hill], self.level[fi[hill]])
        return out

    def covering(self, points: np.ndarray) -> np.ndarray:
        """``m[i, j]``: point ``i`` is in (or on the edge of) the area of feature ``j``."""
        m = np.zeros((len(points), len(self.features)), dtype=bool)
        if self.tree is None or len(points) == 0:
            return m
        pi, fi = self.area_tree.query(points, predicate="intersects")
        m[pi, fi] = True
        return m


_INDEX_CACHE: list[tuple[tuple[TerrainFeature, ...], RuleTables, _TerrainIndex]] = []


def _terrain_index(terrain: tuple[TerrainFeature, ...], tables: RuleTables) -> _TerrainIndex:
    """The index of a terrain tuple, shared by every battle state that keeps the same terrain."""
    for t, tab, idx in _INDEX_CACHE:
        if tab is tables and (t is terrain or t == terrain):
            return idx
    idx = _TerrainIndex(terrain, tables)
    _INDEX_CACHE.insert(0, (terrain, tables, idx))
    del _INDEX_CACHE[8:]
    return idx


# -- results ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cover:
    """The cover a target has against one firer."""

    kind: str  # "none", "light" or "heavy"
    save: int | None  # the save on 1D6 (5 for light, 4 for heavy), None without cover
    feature_id: str | None = None
    rule: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class LineOfSight:
    """Whether ``viewer`` sees ``target``, and if not, what is in the way."""

    visible: bool
    blocked_by: str | None  # a terrain feature id or a unit id
    rule: str | None
    reason: str
    clear_stands: int  # the viewer's stands with an unobstructed view (RULE-03-5.3)
    stands: int = 0  # the viewer's stands
    through_own_screen: bool = False  # RULE-03-5.4: -1 to hit
    to_hit_modifier: int = 0
    overhead_over: tuple[str, ...] = ()  # friendly units the battery fires over (RULE-03-4.5)


@dataclass(frozen=True)
class CostItem:
    """One charge against a unit's movement."""

    text: str
    inches: float
    rule: str | None = None
    feature_id: str | None = None


@dataclass(frozen=True)
class MovePlan:
    """How far a unit gets along a path, and what the ground did to it."""

    unit_id: str
    path_in: float  # the length of the path asked for
    moved_in: float  # how far along it the unit gets
    end: XY
    allowance_in: float
    spent_in: float
    items: tuple[CostItem, ...]
    halted_by: str | None = None  # a feature id
    halt_rule: str | None = None
    halt_reason: str = ""
    disorder: bool = False  # RULE-03-1.5
    discipline_check: str | None = None  # the rule needing a check (RULE-03-2.2); the caller rolls
    no_musketry: bool = False  # RULE-03-2.5
    minimum_move: bool = False  # RULE-03-1.4 was applied

    @property
    def complete(self) -> bool:
        return self.moved_in >= self.path_in - 1e-6

    def steps(self) -> list[Step]:
        out = [Step(i.text, rule=i.rule, units=(self.unit_id,)) for i in self.items]
        if self.halted_by:
            out.append(Step(self.halt_reason, rule=self.halt_rule, units=(self.unit_id,)))
        return out


@dataclass(frozen=True)
class TargetOption:
    """One enemy unit as a possible target of ranged fire (RULE-03-5.6)."""

    unit_id: str
    distance_in: float
    in_arc: bool
    in_range: bool
    sight: LineOfSight
    enfilade: str | None
    allowed: bool
    mandatory: bool
    why: str
    rule: str | None = None


@dataclass(frozen=True)
class BuildingDamage:
    battle: Battle
    steps: tuple[Step, ...]
    structural_hits: int
    collapsed: bool


@dataclass(frozen=True)
class VisibilityMatrix:
    """Line of sight from every viewer to every target (see :meth:`Battlefield.visibility_matrix`)."""

    viewer_ids: tuple[str, ...]
    target_ids: tuple[str, ...]
    visible: np.ndarray  # (n, m) bool
    clear_stands: np.ndarray  # (n, m) int
    code: np.ndarray = field(repr=False)  # (n, m) int: why terrain blocks, _NO_BLOCK when it does not
    feature: np.ndarray = field(repr=False)  # (n, m) int: the blocking feature, -1
    friend: np.ndarray = field(repr=False)  # (n, m) int: index of the first friendly blocker, -1
    screen: np.ndarray = field(repr=False)  # (n, m) bool: through the viewer's own skirmish screen
    overhead: Mapping[tuple[int, int], tuple[str, ...]] = field(default_factory=dict, repr=False)


# -- the battlefield --------------------------------------------------------------------------------


class Battlefield:
    """Terrain, elevation and sight for one battle state.

    Build one per state (``Battlefield(battle, tables)``); :meth:`with_unit` gives the battlefield
    after a unit moved, sharing the terrain's geometry and STRtree.
    """

    def __init__(self, battle: Battle, tables: RuleTables | None = None):
        if not isinstance(battle, Battle):
            raise InvariantError(f"a battlefield is built from a battle, not {type(battle).__name__}")
        self.battle = battle
        self.tables = tables if tables is not None else load_tables()
        self.terrain = _terrain_index(battle.terrain, self.tables)
        self._fp: dict[str, Footprint] = {}
        self._units_in_play = [u for u in battle.units.values() if u.in_play]
        self._others: list[Unit] = []

    def with_unit(self, unit: Unit) -> Battlefield:
        """The battlefield after one unit changed (cheap: the terrain index is shared)."""
        return Battlefield(self.battle.with_unit(unit), self.tables)

    # -- small helpers ------------------------------------------------------------------------
    def _unit(self, u: Unit | str) -> Unit:
        if isinstance(u, Unit):
            return u
        return self.battle.unit(u)

    def footprint(self, u: Unit | str) -> Footprint:
        unit = self._unit(u)
        fp = self._fp.get(unit.id)
        if fp is None or fp.centre_front != (unit.x, unit.y) or fp.facing_deg != unit.facing_deg % 360:
            fp = footprint(unit, self.tables)
            self._fp[unit.id] = fp
        return fp

    def matrix(self, ttype: TerrainType | str, effect: str) -> Any:
        """One effect of a terrain type from the Master Terrain Matrix (RULE-03-1.2)."""
        t = TerrainType.parse(ttype)
        return self.tables.value(f"terrain.matrix.{t.value}.{effect}")

    def matrix_entry(self, ttype: TerrainType | str, effect: str):
        t = TerrainType.parse(ttype)
        return self.tables.entry(f"terrain.matrix.{t.value}.{effect}")

    def feature_geometry(self, feature_id: str):
        i = self.terrain.ids.get(feature_id)
        if i is None:
            raise InvariantError(f"there is no terrain feature '{feature_id}'")
        return self.terrain.geoms[i]

    def features_at(self, point: XY | Point) -> list[TerrainFeature]:
        p = point if isinstance(point, Point) else Point(point)
        m = self.terrain.covering(np.array([p], dtype=object))
        return [self.terrain.features[j] for j in np.flatnonzero(m[0])]

    # -- elevation (RULE-03-4.1 .. 4.4) --------------------------------------------------------
    def level_at(self, point: XY | Point) -> int:
        """The elevation level of the ground at a point: 0 unless on a hill (RULE-03-4.1)."""
        p = point if isinstance(point, Point) else Point(point)
        return int(self.terrain.levels_at(np.array([p], dtype=object))[0])

    def level_of(self, u: Unit | str) -> int:
        unit = self._unit(u)
        return self.level_at((unit.x, unit.y))

    def _hill_of(self, unit: Unit) -> int | None:
        """The highest hill with a crestline under the unit's colour stand."""
        m = self.terrain.covering(np.array([Point(unit.x, unit.y)], dtype=object))[0]
        best = None
        for j in np.flatnonzero(m & self.terrain.is_hill):
            if self.terrain.crests[j].is_empty:
                continue
            if best is None or self.terrain.level[j] > self.terrain.level[best]:
                best = j
        return best

    def behind_crest_in(self, u: Unit | str) -> float | None:
        """How far the unit stands behind its hill's crestline: the gap between the crestline and
        its footprint (0 on the crest). None when it is not on a hill with a crestline."""
        unit = self._unit(u)
        j = self._hill_of(unit)
        if j is None:
            return None
        return float(shapely.distance(self.footprint(unit).polygon, self.terrain.crests[j]))

    def on_crest(self, u: Unit | str) -> bool:
        """The front edge of the unit's bases lies along the ridge line (RULE-03-4.2): both front
        corners and the colour stand's centre-front within the club's tolerance of the crestline."""
        unit = self._unit(u)
        j = self._hill_of(unit)
        if j is None:
            return False
        tol = float(self.tables.value("terrain.elevation.crest_tolerance_in"))
        fp = self.footprint(unit)
        pts = shapely.points([fp.left_front, fp.right_front, fp.centre_front])
        return bool(np.all(shapely.distance(pts, self.terrain.crests[j]) <= tol + _EPS))

    def reverse_slope(self, u: Unit | str) -> bool:
        """More than 1.0" behind the crestline (RULE-03-4.3); exactly 1.0" is not. Behind means
        the crest lies ahead of the unit's front; for a given enemy use :meth:`line_of_sight`."""
        unit = self._unit(u)
        gap = self.behind_crest_in(unit)
        if gap is None:
            return False
        limit = float(self.tables.value("terrain.elevation.reverse_slope_more_than_in"))
        if gap <= limit + _EPS:
            return False
        j = self._hill_of(unit)
        fp = self.footprint(unit)
        crest = self.terrain.crests[j]
        near = nearest_points(fp.origin, crest)[1]
        return bool(fp.to_local([(near.x, near.y)])[0, 1] > 0)

    # -- cover (RULE-03-2.x, 3.x, 5.7) -------------------------------------------------------------
    def cover_for(self, target: Unit | str, firer: Unit | str | None = None) -> Cover:
        """The best cover the target has against the firer's fire.

        * In a building: heavy (RULE-03-3.1). In a town sector: light if wooden, heavy if masonry
          (RULE-03-3.3). In a sunken road: heavy (RULE-03-2.5). In rubble: light (RULE-03-3.2).
          In woods: the matrix's club default.
        * Fences, hedges, stone walls and breastworks count only for a unit whose front edge
          touches them, and only against fire from its front 180 degrees (fire from ahead of the
          line of its front edge). Enfilade fire (RULE-03-5.7) denies fence and hedge cover.
        """
        t = self._unit(target)
        f = self._unit(firer) if firer is not None else None
        fp = self.footprint(t)
        best = Cover("none", None, reason="in the open")
        rank = {"none": 0, "light": 1, "heavy": 2}
        covering = self.terrain.covering(np.array([fp.origin], dtype=object))[0]
        tol = float(self.tables.value("terrain.cover.touching_in"))
        frontal = True
        enfiladed = False
        if f is not None:
            ff = self.footprint(f)
            frontal = bool(fp.to_local([ff.centre_front])[0, 1] > 0)
            enfiladed = self.enfilade(f, t) is not None
        cands = []
        if self.terrain.tree is not None:
            cands = self.terrain.tree.query(fp.front_edge.buffer(tol), predicate="intersects")
        for j in sorted(set(np.flatnonzero(covering)) | set(int(c) for c in cands)):
            feat = self.terrain.features[j]
            kind = str(self.matrix(feat.type, "cover"))
            if kind == "none":
                continue
            entry = self.matrix_entry(feat.type, "cover")
            rule = entry.rule
            if feat.is_linear and feat.type != TerrainType.SUNKEN_ROAD:
                if shapely.distance(fp.front_edge, self.terrain.geoms[j]) > tol + _EPS:
                    continue
                if bool(self.matrix(feat.type, "cover_frontal_only")) and not frontal:
                    continue
                if enfiladed and kind == "light":
                    continue  # RULE-03-5.7: no light cover from fences against enfilade
                why = f"front edge on the {feat.type.label.lower()}"
            else:
                if not covering[j]:
                    continue
                if feat.type == TerrainType.BUILDING and not t.has(Marker.GARRISONED):
                    continue
                why = f"in {feat.name or feat.type.label.lower()}"
            if rank[kind] > rank[best.kind]:
                save = int(self.tables.value(f"shooting.save.{kind}_cover"))
                best = Cover(kind, save, feat.id, rule or "club default", why)
        return best

    # -- enfilade and arcs with terrain ------------------------------------------------------------
    def building_of(self, u: Unit | str) -> TerrainFeature | None:
        """The building the unit garrisons (RULE-03-3.1), or None."""
        unit = self._unit(u)
        if not unit.has(Marker.GARRISONED):
            return None
        for feat in self.features_at((unit.x, unit.y)):
            if feat.type == TerrainType.BUILDING:
                return feat
        return None

    def enfilade(self, firer: Unit | str, target: Unit | str) -> str | None:
        """:func:`rules.geometry.enfilade_position`, except that a garrison cannot be flanked or
        enfiladed (RULE-03-3.1)."""
        t = self._unit(target)
        if self.building_of(t) is not None:
            return None
        return enfilade_position(self.footprint(self._unit(firer)), self.footprint(t), self.tables)

    def zone_of(self, defender: Unit | str, point: XY | Point) -> str:
        """:func:`rules.geometry.zone_of`, except that a garrison cannot be flanked (RULE-03-3.1):
        every approach to a garrisoned building meets its front."""
        d = self._unit(defender)
        if self.building_of(d) is not None:
            return "front"
        return geometry_zone_of(self.footprint(d), point, self.tables)

    def in_arc(self, firer: Unit | str, target: Unit | str) -> bool:
        """In the 45 degree forward arc (RULE-03-5.1); a garrison fires all round (RULE-03-3.1)."""
        f, t = self._unit(firer), self._unit(target)
        if self.building_of(f) is not None:
            return True
        arc = forward_arc(self.footprint(f), self.tables)
        poly = self.footprint(t).polygon
        return bool(shapely.intersects(arc, poly) and not shapely.touches(arc, poly))

    # -- buildings (RULE-03-3.1, 3.2) -----------------------------------------------------------------
    def check_garrison(self, u: Unit | str, building_id: str) -> None:
        """Raise :class:`IllegalAction` unless the unit may garrison the building (RULE-03-3.1)."""
        unit = self._unit(u)
        feat = self.battle.feature(building_id)
        if feat.type != TerrainType.BUILDING:
            raise IllegalAction(f"{feat.name or feat.id} is not a building", "RULE-03-3.1")
        cap = int(self.tables.value("shooting.buildings.garrison_stands"))
        on_foot = unit.kind == UnitKind.INFANTRY or (
            unit.kind == UnitKind.CAVALRY and unit.formation == Formation.DISMOUNTED
        )
        if not on_foot:
            raise IllegalAction(
                f"{unit.name}: only infantry or dismounted cavalry can garrison a building", "RULE-03-3.1"
            )
        if unit.stands > cap:
            raise IllegalAction(
                f"{unit.name} has {unit.stands} stands; a building holds at most {cap}", "RULE-03-3.1"
            )

    # -- line of sight (RULE-03-4.x, 5.x) ---------------------------------------------------------------
    def line_of_sight(self, viewer: Unit | str, target: Unit | str) -> LineOfSight:
        """Whether the viewer sees the target, and what is in the way if not.

        Terrain: dead ground behind a crest (RULE-03-4.3), intervening hills (RULE-03-4.4), town
        sectors and buildings (the footprint a unit stands in blocks beyond the first 1.0" from its
        colour stand, and never for a building's own garrison: :meth:`_structure_blocks`), and the limits of woods, crops and orchards measured as the length of
        the sight line inside the feature (RULE-03-5.5; crops are seen over from a crest, RULE-03-4.2).
        Friendly units: each of the viewer's stands whose line is crossed by another friendly unit
        loses its view (RULE-03-5.3; Brigadier reads the rule's title and the example in 5.0,
        "firing ... through friendly units, is prohibited", as covering every friendly unit), except
        the viewer's own skirmish screen, fired through at -1 to hit (RULE-03-5.4), and friendly
        units on level 0 that a battery on a hill fires over with the clearances of RULE-03-4.5.
        """
        v, t = self._unit(viewer), self._unit(target)
        if v.id == t.id:
            raise InvariantError(f"{v.name} cannot look at itself")
        for x in (v, t):
            if not x.in_play:
                raise InvariantError(f"{x.name} has been destroyed and is no longer on the table")
        m = self.visibility_matrix([v], [t])
        return self._explain(m, 0, 0, [v], [t])

    def visibility_matrix(
        self, viewers: Sequence[Unit | str], targets: Sequence[Unit | str]
    ) -> VisibilityMatrix:
        """Line of sight from every viewer to every target, computed in a few vectorised shapely
        calls (STRtree queries over all sight lines at once)."""
        vs = [self._unit(u) for u in viewers]
        ts = [self._unit(u) for u in targets]
        n, m = len(vs), len(ts)
        code = np.full((n, m), _NO_BLOCK, dtype=int)
        feat = np.full((n, m), -1, dtype=int)
        if n == 0 or m == 0:
            empty = np.zeros((n, m), dtype=bool)
            return VisibilityMatrix(
                tuple(u.id for u in vs),
                tuple(u.id for u in ts),
                empty,
                np.zeros((n, m), dtype=int),
                code,
                feat,
                np.full((n, m), -1),
                empty.copy(),
            )
        vo = np.array([[u.x, u.y] for u in vs], dtype=float)
        to = np.array([[u.x, u.y] for u in ts], dtype=float)
        coords = np.empty((n, m, 2, 2))
        coords[:, :, 0, :] = vo[:, None, :]
        coords[:, :, 1, :] = to[None, :, :]
        same = np.all(np.abs(coords[:, :, 0, :] - coords[:, :, 1, :]) < _EPS, axis=2)
        coords[:, :, 1, 0] += same * 1e-6  # a line needs two distinct points
        segs = shapely.linestrings(coords.reshape(n * m, 2, 2))
        ti = self.terrain
        vpts, tpts = shapely.points(vo), shapely.points(to)
        lev_v, lev_t = ti.levels_at(vpts), ti.levels_at(tpts)
        if ti.tree is not None:
            cov_v, cov_t = ti.covering(vpts), ti.covering(tpts)
            # only a unit above level 0 can be on a crest
            crest_v = np.array([bool(lev_v[i]) and self.on_crest(u) for i, u in enumerate(vs)], dtype=bool)
            crest_t = np.array([bool(lev_t[i]) and self.on_crest(u) for i, u in enumerate(ts)], dtype=bool)
            si, fj = ti.tree.query(segs, predicate="intersects")
            a, b = si // m, si % m
            sg = segs[si]
            kind = ti.sight[fj]
            cv, ct = cov_v[a, fj], cov_t[b, fj]
            why = np.full(len(si), _NO_BLOCK)
            # only towns, buildings and hills care whether a line merely grazes their edge
            p0, p1 = coords.reshape(n * m, 2, 2)[si, 0], coords.reshape(n * m, 2, 2)[si, 1]
            inner = np.zeros(len(si), dtype=bool)
            solid = np.flatnonzero(kind == _CREST)
            inner[solid] = ti.inside_length(p0[solid], p1[solid], fj[solid], sg[solid]) > 1e-9
            # towns and buildings block sight through them (RULE-03-5.5), except the edge of the one
            # a unit stands in, and a building for its own garrison (RULE-03-3.1)
            blk = np.flatnonzero(kind == _BLOCKS)
            if len(blk):
                gar_v = np.array([u.has(Marker.GARRISONED) for u in vs], dtype=bool)
                gar_t = np.array([u.has(Marker.GARRISONED) for u in ts], dtype=bool)
                why[
                    blk[
                        self._structure_blocks(
                            p0[blk], p1[blk], fj[blk], cv[blk], ct[blk], gar_v[a[blk]], gar_t[b[blk]]
                        )
                    ]
                ] = _STRUCTURE
            # woods, crops, orchards: the length of the sight line inside (RULE-03-5.5); a feature
            # no wider than its limit across can never block, so it is not measured
            lim = np.flatnonzero((kind == _LIMITED) & (ti.span[fj] > ti.limit[fj] + _EPS))
            if len(lim):
                length = ti.inside_length(p0[lim], p1[lim], fj[lim], sg[lim])
                over = length > ti.limit[fj[lim]] + _EPS
                crop = ti.is_crop[fj[lim]]
                seen_over = crop & (
                    (crest_v[a[lim]] & (ti.ground_level[fj[lim]] < lev_v[a[lim]]))
                    | (crest_t[b[lim]] & (ti.ground_level[fj[lim]] < lev_t[b[lim]]))
                )
                why[lim[over & ~seen_over]] = _LIMIT
            # hills (RULE-03-4.3, 4.4)
            hl = np.flatnonzero(kind == _CREST)
            if len(hl):
                L = ti.level[fj[hl]]
                hv, ht = cv[hl], ct[hl]
                both_high = (lev_v[a[hl]] >= L) & (lev_t[b[hl]] >= L)
                between = ~hv & ~ht & inner[hl] & ~both_high
                why[hl[between]] = _HILL
                crests = ti.crests[fj[hl]]
                crosses = shapely.intersects(sg[hl], crests)
                rs = float(self.tables.value("terrain.elevation.reverse_slope_more_than_in"))
                t_polys = np.array([self.footprint(u).polygon for u in ts], dtype=object)
                v_polys = np.array([self.footprint(u).polygon for u in vs], dtype=object)
                dt = shapely.distance(t_polys[b[hl]], crests)
                dv = shapely.distance(v_polys[a[hl]], crests)
                dead = (ht & ~hv & (lev_v[a[hl]] < L) & crosses & (dt > rs + _EPS)) | (
                    hv & ~ht & (lev_t[b[hl]] < L) & crosses & (dv > rs + _EPS)
                )
                why[hl[dead]] = _DEAD_GROUND
            blocked = why < _NO_BLOCK
            if blocked.any():
                order = np.lexsort((fj[blocked], why[blocked], si[blocked]))
                bs, bw, bf = si[blocked][order], why[blocked][order], fj[blocked][order]
                first = np.r_[True, bs[1:] != bs[:-1]]
                code.reshape(-1)[bs[first]] = bw[first]
                feat.reshape(-1)[bs[first]] = bf[first]
        terrain_clear = code == _NO_BLOCK
        clear, friend, screen, overhead = self._friendly_blocking(vs, ts, lev_v, terrain_clear)
        visible = terrain_clear & (clear > 0)
        return VisibilityMatrix(
            tuple(u.id for u in vs),
            tuple(u.id for u in ts),
            visible,
            clear,
            code,
            feat,
            friend,
            screen,
            overhead,
        )

    def _structure_blocks(
        self,
        p0: np.ndarray,
        p1: np.ndarray,
        fj: np.ndarray,
        in_v: np.ndarray,
        in_t: np.ndarray,
        garrison_v: np.ndarray,
        garrison_t: np.ndarray,
    ) -> np.ndarray:
        """Which sight lines ``p0[i] -> p1[i]`` the town sector or building ``fj[i]`` blocks
        (RULE-03-5.5); ``in_v`` / ``in_t``: the viewer's / target's colour stand is in it,
        ``garrison_*``: that unit has the garrisoned marker.

        * A building never blocks the sight of its own garrison, nor sight to it: the garrison
          fires across every face (RULE-03-3.1) and is fired on (RULE-03-3.2).
        * Otherwise the line is blocked when any of it runs through the footprint, except the first
          ``terrain.sight.structure_edge_in`` (club default 1.0") from the colour stand of a unit
          standing in it: a unit on the edge of a town sector sees out and is seen; one deeper in
          is hidden by the houses between.
        """
        ti = self.terrain
        own_building = ti.is_building[fj] & ((in_v & garrison_v) | (in_t & garrison_t))
        d = p1 - p0
        length = np.hypot(d[:, 0], d[:, 1])
        edge = ti.structure_edge
        free = edge * (in_v.astype(float) + in_t.astype(float))
        left = length - free > 1e-9
        todo = np.flatnonzero(~own_building & left)
        out = np.zeros(len(fj), dtype=bool)
        if len(todo):
            unit = d[todo] / length[todo, None]
            q0 = p0[todo] + unit * np.where(in_v[todo], edge, 0.0)[:, None]
            q1 = p1[todo] - unit * np.where(in_t[todo], edge, 0.0)[:, None]
            segs = shapely.linestrings(np.stack([q0, q1], axis=1))
            out[todo] = ti.inside_length(q0, q1, fj[todo], segs) > 1e-9
        return out

    def _friendly_blocking(
        self, vs: list[Unit], ts: list[Unit], lev_v: np.ndarray, todo: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
        """Per-stand sight lines against other friendly units (RULE-03-5.3, 5.4, 4.5)."""
        n, m = len(vs), len(ts)
        stands = np.array([len(self.footprint(u).stands) if u.in_play else 0 for u in vs], dtype=int)
        clear = np.where(todo, stands[:, None], 0)
        friend = np.full((n, m), -1, dtype=int)
        screen = np.zeros((n, m), dtype=bool)
        overhead: dict[tuple[int, int], tuple[str, ...]] = {}
        sides = {u.side for u in vs}
        others = [u for u in self._units_in_play if u.side in sides]
        self._others = others
        if not others or not todo.any():
            return clear, friend, screen, overhead
        o_polys = np.array([self.footprint(u).polygon for u in others], dtype=object)
        o_side = np.array([u.side for u in others])
        o_id = np.array([u.id for u in others])
        o_parent = np.array([u.parent or "" for u in others])
        o_screen = np.array([u.is_screen for u in others])
        tree = STRtree(o_polys)
        v_side = np.array([u.side for u in vs])
        v_id = np.array([u.id for u in vs])
        t_id = np.array([u.id for u in ts])
        to = np.array([[u.x, u.y] for u in ts], dtype=float)
        # first a cheap pass: the corridor from the viewer's footprint to the target's origin
        pairs = np.flatnonzero(todo.reshape(-1))
        pv, pt = pairs // m, pairs % m
        corners = np.array([np.asarray(self.footprint(u).polygon.exterior.coords)[:4] for u in vs])
        hull_pts = np.concatenate([corners[pv], to[pt][:, None, :]], axis=1)
        hulls = shapely.convex_hull(shapely.multipoints(hull_pts))
        qi, qo = tree.query(hulls, predicate="intersects")
        friendly = (o_side[qo] == v_side[pv[qi]]) & (o_id[qo] != v_id[pv[qi]]) & (o_id[qo] != t_id[pt[qi]])
        cand = np.unique(qi[friendly])
        if len(cand) == 0:
            return clear, friend, screen, overhead
        cv_, ct_ = pv[cand], pt[cand]
        # then one sight line from the centre-front of each of the viewer's stands
        starts, offset, counts = [], [], []
        total = 0
        for u in vs:
            fp = self.footprint(u)
            starts.append(fp.stand_centres + np.asarray(fp.forward) * (self._stand_depth(u) / 2))
            offset.append(total)
            counts.append(len(fp.stand_centres))
            total += len(fp.stand_centres)
        starts_a = np.concatenate(starts)
        owner_a = np.concatenate([np.full(c, i) for i, c in enumerate(counts)])
        offset_a, counts_a = np.array(offset), np.array(counts)
        cnt = counts_a[cv_]
        rep = np.repeat(np.arange(len(cand)), cnt)
        within = np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        stand_idx = offset_a[cv_][rep] + within
        coords = np.stack([starts_a[stand_idx], to[ct_[rep]]], axis=1)
        segs = shapely.linestrings(coords)
        si, oj = tree.query(segs, predicate="intersects")
        st, tj, vi = stand_idx[si], ct_[rep[si]], cv_[rep[si]]
        keep = (o_side[oj] == v_side[vi]) & (o_id[oj] != v_id[vi]) & (o_id[oj] != t_id[tj])
        si, oj, st, tj, vi = si[keep], oj[keep], st[keep], tj[keep], vi[keep]
        inner = ~shapely.touches(segs[si], o_polys[oj])
        si, oj, st, tj, vi = si[inner], oj[inner], st[inner], tj[inner], vi[inner]
        own = o_screen[oj] & (o_parent[oj] == v_id[vi])
        screen[vi[own], tj[own]] = True
        si, oj, st, tj, vi = si[~own], oj[~own], st[~own], tj[~own], vi[~own]
        if len(si):
            # artillery on a hill firing over friendly units on level 0 (RULE-03-4.5)
            over_ok = np.zeros(len(si), dtype=bool)
            min_level = int(self.tables.value("terrain.overhead.min_firer_level"))
            guns = np.array([vs[i].kind == UnitKind.ARTILLERY for i in range(n)])
            cand = np.flatnonzero(guns[vi] & (lev_v[vi] >= min_level))
            if len(cand):
                muzzle = float(self.tables.value("shooting.overhead_fire.min_from_muzzle"))
                gap = float(self.tables.value("shooting.overhead_fire.min_from_target"))
                canister = float(self.tables.value("shooting.canister.max_range"))
                for c in cand:
                    i, j, o = int(vi[c]), int(tj[c]), int(oj[c])
                    ok, _ = self._overhead_ok(vs[i], ts[j], others[o], muzzle, gap, canister)
                    over_ok[c] = ok
                for c in cand[over_ok[cand]]:
                    key = (int(vi[c]), int(tj[c]))
                    ids = set(overhead.get(key, ()))
                    ids.add(str(o_id[oj[c]]))
                    overhead[key] = tuple(sorted(ids))
            blk = ~over_ok
            bst, btj, bvi, boj = st[blk], tj[blk], vi[blk], oj[blk]
            if len(bst):
                pair_stand = np.unique(bst * m + btj)
                ps, pt = pair_stand // m, pair_stand % m
                np.subtract.at(clear, (owner_a[ps], pt), 1)
                order = np.lexsort((boj, bvi * m + btj))
                keys = (bvi * m + btj)[order]
                firsts = np.r_[True, keys[1:] != keys[:-1]]
                friend.reshape(-1)[keys[firsts]] = boj[order][firsts]
        return clear, friend, screen, overhead

    def _stand_depth(self, u: Unit) -> float:
        return float(self.tables.value(f"units.base_depth.{u.kind.value}"))

    def _overhead_ok(
        self, gun: Unit, target: Unit, friend: Unit, muzzle: float, gap: float, canister: float
    ) -> tuple[bool, str]:
        """RULE-03-4.5: may the battery fire over ``friend``? (ok, why not)."""
        if self.level_of(friend) != 0:
            return False, f"{friend.name} is not on lower ground (level 0)"
        rng = distance_in(self.footprint(gun), self.footprint(target), self.tables)
        if rng <= canister + _EPS:
            return False, f'canister ({rng:.1f}") can never be fired overhead'
        d_muzzle = float(shapely.distance(self.footprint(gun).origin, self.footprint(friend).polygon))
        if d_muzzle < muzzle - _EPS:
            return (
                False,
                f'{friend.name} is {d_muzzle:.1f}" from the muzzle; at least {muzzle:.1f}" is needed',
            )
        d_target = float(shapely.distance(self.footprint(friend).polygon, self.footprint(target).polygon))
        if d_target < gap - _EPS:
            return False, f'{friend.name} is {d_target:.1f}" from the target; at least {gap:.1f}" is needed'
        return True, ""

    def _structure_reason(self, v: Unit, t: Unit, f: TerrainFeature) -> str:
        """Why a town sector or building blocks the sight line from ``v`` to ``t`` (RULE-03-5.5)."""
        label = f.name or f.type.label.lower()
        inside = [u.name for u in (v, t) if any(g.id == f.id for g in self.features_at((u.x, u.y)))]
        if not inside:
            return f"the sight line passes through {label}"
        sight = LineString([(v.x, v.y), (t.x, t.y)])
        run = float(shapely.length(shapely.intersection(sight, self.terrain.areas[self.terrain.ids[f.id]])))
        edge = self.tables.entry("terrain.sight.structure_edge_in")
        return (
            f'the sight line runs {run:.1f}" through {label}, where {" and ".join(inside)} '
            f"{'stands' if len(inside) == 1 else 'stand'}: a unit inside sees out, and is seen, through no "
            f'more than {edge.value:g}" of it ({edge.citation})'
        )

    def _explain(self, mx: VisibilityMatrix, i: int, j: int, vs: list[Unit], ts: list[Unit]) -> LineOfSight:
        v, t = vs[i], ts[j]
        n_stands = len(self.footprint(v).stands)
        c = int(mx.code[i, j])
        if c != _NO_BLOCK:
            f = self.terrain.features[int(mx.feature[i, j])]
            label = f.name or f.type.label.lower()
            if c == _DEAD_GROUND:
                lo, hi = (v, t) if self.level_of(v) < self.level_of(t) else (t, v)
                gap = self.behind_crest_in(hi) or 0.0
                return LineOfSight(
                    False,
                    f.id,
                    "RULE-03-4.3",
                    f'{hi.name} is {gap:.1f}" behind the crest of {label}: dead ground to {lo.name} on lower ground',
                    0,
                    n_stands,
                )
            if c == _HILL:
                return LineOfSight(
                    False, f.id, "RULE-03-4.4", f"{label} (level {f.level}) stands between them", 0, n_stands
                )
            if c == _STRUCTURE:
                return LineOfSight(False, f.id, "RULE-03-5.5", self._structure_reason(v, t, f), 0, n_stands)
            inside = float(
                shapely.length(
                    shapely.intersection(
                        LineString([(v.x, v.y), (t.x, t.y)]), self.terrain.geoms[mx.feature[i, j]]
                    )
                )
            )
            limit = float(self.terrain.limit[mx.feature[i, j]])
            return LineOfSight(
                False,
                f.id,
                "RULE-03-5.5",
                f'{inside:.1f}" of {label} is in the way; sight is blocked beyond {limit:.1f}"',
                0,
                n_stands,
            )
        clear = int(mx.clear_stands[i, j])
        screen = bool(mx.screen[i, j])
        mod = int(self.tables.value("shooting.to_hit_modifier.through_own_skirmish_screen")) if screen else 0
        over = tuple(mx.overhead.get((i, j), ()))
        if clear <= 0 or clear < n_stands:
            fr = self._others[int(mx.friend[i, j])]
            rule, why = "RULE-03-5.3", f"{fr.name} (friendly) is in the way"
            if v.kind == UnitKind.ARTILLERY and self.level_of(v) >= int(
                self.tables.value("terrain.overhead.min_firer_level")
            ):
                _ok, whynot = self._overhead_ok(
                    v,
                    t,
                    fr,
                    float(self.tables.value("shooting.overhead_fire.min_from_muzzle")),
                    float(self.tables.value("shooting.overhead_fire.min_from_target")),
                    float(self.tables.value("shooting.canister.max_range")),
                )
                rule, why = "RULE-03-4.5", f"no overhead fire over {fr.name}: {whynot}"
            if clear <= 0:
                return LineOfSight(
                    False,
                    fr.id,
                    rule,
                    why,
                    0,
                    n_stands,
                    screen,
                    mod,
                    over,
                )
            return LineOfSight(
                True,
                fr.id,
                rule,
                f"{why}: {clear} of {n_stands} stands have a clear view",
                clear,
                n_stands,
                screen,
                mod,
                over,
            )
        parts = ["clear line of sight"]
        rule = None
        if screen:
            parts.append(f"firing through its own skirmish screen ({mod:+d} to hit)")
            rule = "RULE-03-5.4"
        if over:
            names = ", ".join(self.battle.unit(x).name for x in over)
            parts.append(f"overhead fire over {names}")
            rule = rule or "RULE-03-4.5"
        return LineOfSight(True, None, rule, "; ".join(parts), clear, n_stands, screen, mod, over)

    # -- target priority (RULE-03-5.6) ------------------------------------------------------------------
    def max_range_in(self, u: Unit) -> float:
        key = u.gun.value if u.kind == UnitKind.ARTILLERY and u.gun else u.weapon.value
        if f"shooting.max_range.{key}" not in self.tables:
            return 0.0
        return float(self.tables.value(f"shooting.max_range.{key}"))

    def legal_targets(self, firer: Unit | str, charging: Iterable[str] = ()) -> list[TargetOption]:
        """Every enemy unit as a target of ranged fire, closest first, saying which may be fired on.

        A formed unit must fire at the closest unengaged enemy in its 45 degree forward arc, in
        range and in sight (RULE-03-5.6), except that:

        * an enemy declaring an assault on or charging the firer (``charging``: their ids) is the
          mandatory target;
        * an enemy whose open flank the firer enfilades within effective range may be chosen
          instead (RULE-03-5.6, RULE-03-5.7);
        * artillery may pass over closer skirmishers to fire at formed units or batteries within
          medium range.

        A unit climbing out of a sunken road fires no muskets this turn (RULE-03-2.5).
        """
        f = self._unit(firer)
        charging = set(charging)
        enemies = [u for u in self._units_in_play if u.side != f.side]
        if not enemies:
            return []
        mx = self.visibility_matrix([f], enemies)
        rng = self.max_range_in(f)
        eff = float(self.tables.value("terrain.priority.enfilade_effective_range_in"))
        medium = float(self.tables.value("shooting.range_band.medium"))
        rows = []
        for j, e in enumerate(enemies):
            sight = self._explain(mx, 0, j, [f], enemies)
            d = distance_in(self.footprint(f), self.footprint(e), self.tables)
            rows.append((e, d, self.in_arc(f, e), d <= rng + _EPS, sight, self.enfilade(f, e)))
        rows.sort(key=lambda r: (r[1], r[0].id))
        eligible = [r for r in rows if r[2] and r[3] and r[4].visible]
        out: list[TargetOption] = []
        climbing = f.has(Marker.CLIMBING)
        chargers = [r for r in eligible if r[0].id in charging]
        unengaged = [r for r in eligible if not r[0].has(Marker.ENGAGED)]
        closest = unengaged[0][0].id if unengaged else None
        formed_closest = None
        if f.kind == UnitKind.ARTILLERY:
            for r in unengaged:
                if not r[0].is_screen and r[0].formation != Formation.SKIRMISH:
                    formed_closest = r[0].id
                    break
        for e, d, arc, inr, sight, enf in rows:
            ok, mandatory, rule = False, False, "RULE-03-5.6"
            if climbing:
                why = f"{f.name} is climbing out of a sunken road and cannot fire muskets this turn"
                rule = "RULE-03-2.5"
            elif not arc:
                why, rule = "outside the 45 degree forward arc", "RULE-03-5.1"
            elif not inr:
                why = f'out of range ({d:.1f}" > {rng:.1f}")'
                rule = None
            elif not sight.visible:
                why, rule = f"not in sight: {sight.reason}", sight.rule
            elif chargers:
                ok = mandatory = e.id in charging
                why = (
                    "charging the firer: the mandatory target"
                    if ok
                    else "another enemy is charging the firer"
                )
            elif e.has(Marker.ENGAGED):
                why = "engaged in melee"
            elif e.id == closest:
                ok, why = True, "the closest unengaged enemy in arc"
            elif enf and d <= eff + _EPS:
                ok, why = True, f"enfilade on its {enf} flank: may pass over a closer target"
                rule = "RULE-03-5.7"
            elif f.kind == UnitKind.ARTILLERY and e.id == formed_closest and d <= medium + _EPS:
                ok, why = True, "artillery may pass over closer skirmishers to fire at formed troops"
            else:
                why = "a closer unengaged enemy must be fired at first"
            out.append(TargetOption(e.id, d, arc, inr, sight, enf, ok, mandatory, why, rule))
        return out

    # -- movement (RULE-03-1.3 .. 1.5, 2.x, 3.3) --------------------------------------------------------
    def plan_move(
        self,
        u: Unit | str,
        path: Sequence[XY],
        allowance_in: float | None = None,
        *,
        in_command: bool = True,
    ) -> MovePlan:
        """How far the unit gets along ``path`` (the route of its colour stand's centre-front,
        keeping its facing), and what the ground charges it.

        * Area terrain costs its ``move_per_in`` from the moment the unit's leading edge touches it
          until the unit is clear of it (RULE-03-1.3); a unit without the movement to clear it
          halts inside.
        * Fences, walls and hedges cost 2", abatis 3", charged when the leading edge reaches the
          obstacle (RULE-03-2.1 .. 2.4); without enough left, the unit halts against it.
        * Impassable terrain and town sectors closed to the unit's formation (RULE-03-3.3) stop it
          where it would touch them.
        * A formed unit in command may always move 2.0" unless impassable terrain stops it
          (RULE-03-1.4).
        * A line of battle that moves through dense woods, swamp or abatis is Disordered at the end
          of its move (RULE-03-1.5); a column crossing a stone wall takes a Discipline Check
          (RULE-03-2.2: the result says so, the caller rolls).
        * Climbing out of a sunken road takes the whole move and the unit fires no muskets
          (RULE-03-2.5).
        """
        unit = self._unit(u)
        pts = [(float(unit.x), float(unit.y))]
        for p in path:
            try:
                x, y = p
                fx, fy = float(x), float(y)
            except (TypeError, ValueError):
                raise InvariantError(f"a path is a list of points (x, y) in inches, not {p!r}") from None
            if not (math.isfinite(fx) and math.isfinite(fy)):
                raise InvariantError(f"a path point must be finite, not {p!r}")
            if math.hypot(fx - pts[-1][0], fy - pts[-1][1]) > _EPS:
                pts.append((fx, fy))
        allowance = (
            float(self.tables.value(f"movement.rate.{unit.formation.value}"))
            if allowance_in is None
            else allowance_in
        )
        if not (isinstance(allowance, (int, float)) and math.isfinite(allowance) and allowance >= 0):
            raise InvariantError(f"a movement allowance is a distance in inches, not {allowance_in!r}")
        route = LineString(pts) if len(pts) > 1 else None
        total = float(route.length) if route is not None else 0.0
        if route is None:
            return MovePlan(unit.id, 0.0, 0.0, pts[0], allowance, 0.0, ())
        fp = self.footprint(unit)
        events = self._move_events(unit, fp, pts)
        return self._walk(unit, fp, route, total, allowance, events, in_command)

    def _move_events(self, unit: Unit, fp: Footprint, pts: list[XY]) -> list[dict]:
        """Contacts of the moving footprint with terrain, in inches along the path."""
        events: list[dict] = []
        if self.terrain.tree is None:
            return events
        offset = 0.0
        seen_cross: set[int] = set()
        start_cov = self.terrain.covering(np.array([Point(pts[0])], dtype=object))[0]
        for (x0, y0), (x1, y1) in zip(pts[:-1], pts[1:]):
            L = math.hypot(x1 - x0, y1 - y0)
            d = ((x1 - x0) / L, (y1 - y0) / L)
            p0 = shapely.affinity.translate(fp.polygon, x0 - fp.centre_front[0], y0 - fp.centre_front[1])
            p1 = shapely.affinity.translate(p0, x1 - x0, y1 - y0)
            swept = shapely.convex_hull(shapely.union(p0, p1))
            seg = LineString([(x0, y0), (x1, y1)])
            for j in self.terrain.tree.query(swept, predicate="intersects"):
                j = int(j)
                feat = self.terrain.features[j]
                g = self.terrain.geoms[j] if feat.is_linear else self.terrain.areas[j]
                first = _first_contact(p0, g, d, L)
                if first is None:
                    continue
                last = L - (_first_contact(p1, g, (-d[0], -d[1]), L) or 0.0)
                ev = {
                    "feature": j,
                    "type": feat.type,
                    "start": offset + first,
                    "end": offset + max(last, first),
                }
                if feat.is_linear and feat.type != TerrainType.SUNKEN_ROAD:
                    if j in seen_cross or not seg.intersects(self.terrain.geoms[j]):
                        continue
                    seen_cross.add(j)
                    ev["kind"] = "cross"
                elif feat.type == TerrainType.SUNKEN_ROAD:
                    if not start_cov[j]:
                        continue  # entering a sunken road is free
                    leave = _exit_along(seg, self.terrain.areas[j])
                    if leave is None:
                        continue
                    ev.update(kind="climb", start=offset + leave)
                    start_cov = start_cov.copy()
                    start_cov[j] = False
                else:
                    ev["kind"] = "area"
                events.append(ev)
            offset += L
        return events

    def _walk(
        self,
        unit: Unit,
        fp: Footprint,
        route: LineString,
        total: float,
        allowance: float,
        events: list[dict],
        in_command: bool,
    ) -> MovePlan:
        items: list[CostItem] = []
        stop = total
        halted_by = halt_rule = None
        halt_reason = ""
        hard_stop = False
        climb = None
        for ev in events:
            feat = self.terrain.features[ev["feature"]]
            if ev["kind"] == "climb":
                climb = ev
                continue
            barred = unit.formation.value in list(self.matrix(feat.type, "formations_barred"))
            impass = bool(self.matrix(feat.type, "impassable")) or bool(feat.props.get("impassable", False))
            if (impass or barred) and ev["start"] < stop:
                stop = ev["start"]
                hard_stop = True
                halted_by = feat.id
                label = feat.name or feat.type.label.lower()
                if impass:
                    halt_rule = self.matrix_entry(feat.type, "impassable").citation
                    halt_reason = f"{unit.name} halts: {label} is impassable"
                else:
                    halt_rule = "RULE-03-3.3"
                    halt_reason = (
                        f"{unit.name} halts: a {unit.formation.label.lower()} cannot enter {label}; "
                        "enter in assault column, road column or skirmish order"
                    )
        if climb is not None:
            feat = self.terrain.features[climb["feature"]]
            reach = min(climb["start"] + _EPS, stop)
            cost = max(allowance, float(self.tables.value("movement.crossing.sunken_road_exit")))
            items.append(
                CostItem(
                    f"climbing out of {feat.name or 'the sunken road'} takes the whole move; no muskets this turn",
                    cost,
                    "RULE-03-2.5",
                    feat.id,
                )
            )
            end = route.interpolate(min(reach, total))
            return MovePlan(
                unit.id,
                total,
                float(min(reach, total)),
                (end.x, end.y),
                allowance,
                allowance,
                tuple(items),
                halted_by=halted_by,
                halt_rule=halt_rule,
                halt_reason=halt_reason,
                no_musketry=True,
                disorder=self._disorders(unit, events, min(reach, total)),
            )
        # piecewise cost: rate by the worst area feature the unit is in, plus crossing charges
        marks = {0.0, stop}
        for ev in events:
            if ev["kind"] == "area":
                marks.update({min(ev["start"], stop), min(ev["end"], stop)})
            if ev["kind"] == "cross" and ev["start"] <= stop:
                marks.add(ev["start"])
        marks = sorted(m for m in marks if 0 <= m <= stop)
        crossings = sorted(
            (ev for ev in events if ev["kind"] == "cross" and ev["start"] <= stop + _EPS),
            key=lambda e: e["start"],
        )
        spent = 0.0

        reached = stop
        ci = 0
        area_cost: dict[int, float] = {}
        stopped = False
        for a, b in zip(marks[:-1], marks[1:]):
            while ci < len(crossings) and crossings[ci]["start"] <= a + _EPS:
                ev = crossings[ci]
                ci += 1
                feat = self.terrain.features[ev["feature"]]
                key = f"movement.crossing.{feat.type.value}"
                cost = float(self.tables.value(key)) if key in self.tables else 0.0
                if cost <= 0:
                    continue
                if spent + cost > allowance + _EPS:
                    reached, stopped = a, True
                    halted_by = feat.id
                    halt_rule = self.tables.entry(key).citation
                    halt_reason = f'{unit.name} has {allowance - spent:.1f}" left, not the {cost:.1f}" to cross {feat.name or feat.type.label.lower()}'
                    break
                spent += cost
                items.append(
                    CostItem(
                        f"crossing {feat.name or feat.type.label.lower()}",
                        cost,
                        self.tables.entry(key).citation,
                        feat.id,
                    )
                )
            if stopped:
                break
            mid = (a + b) / 2
            rate, worst = 1.0, None
            for ev in events:
                if ev["kind"] == "area" and ev["start"] - _EPS <= mid <= ev["end"] + _EPS:
                    r = float(self.matrix(ev["type"], "move_per_in"))
                    if r > rate:
                        rate, worst = r, ev["feature"]
            need = (b - a) * rate
            if spent + need > allowance + _EPS:
                reached = a + (allowance - spent) / rate
                spent = allowance
                if worst is not None:
                    area_cost[worst] = area_cost.get(worst, 0.0) + (reached - a) * (rate - 1)
                    feat = self.terrain.features[worst]
                    halted_by = feat.id
                    halt_rule = "RULE-03-1.3"
                    halt_reason = f"{unit.name} lacks the movement to clear {feat.name or feat.type.label.lower()} and halts in it"
                stopped = True
                break
            spent += need
            if worst is not None:
                area_cost[worst] = area_cost.get(worst, 0.0) + (b - a) * (rate - 1)
        if not stopped:
            reached = stop
        for j, extra in area_cost.items():
            feat = self.terrain.features[j]
            e = self.matrix_entry(feat.type, "move_per_in")
            items.insert(
                0,
                CostItem(
                    f'{feat.name or feat.type.label.lower()}: {extra:.1f}" extra',
                    extra,
                    e.rule or "RULE-03-1.3",
                    feat.id,
                ),
            )
        minimum = False
        floor = float(self.tables.value("movement.minimum.move_in"))
        if in_command and unit.is_formed and reached < min(floor, stop) - _EPS:
            reached = min(floor, stop)
            minimum = True
            items.append(
                CostItem(f'a formed unit in command may always move {floor:.1f}"', 0.0, "RULE-03-1.4")
            )
            if reached >= stop - _EPS and not hard_stop:
                halted_by = None
                halt_rule = None
                halt_reason = ""
        if hard_stop and reached >= stop - _EPS:
            pass
        elif not hard_stop and reached >= total - _EPS:
            halted_by, halt_rule, halt_reason = None, None, ""
        end = route.interpolate(reached)
        check = None
        if unit.formation in (Formation.ASSAULT_COLUMN, Formation.ROAD_COLUMN):
            for ev in crossings:
                if ev["type"] == TerrainType.STONE_WALL and ev["start"] < reached - _EPS:
                    check = "RULE-03-2.2"
        return MovePlan(
            unit.id,
            total,
            float(reached),
            (end.x, end.y),
            allowance,
            float(min(spent, allowance)),
            tuple(items),
            halted_by=halted_by,
            halt_rule=halt_rule,
            halt_reason=halt_reason,
            disorder=self._disorders(unit, events, reached),
            discipline_check=check,
            minimum_move=minimum,
        )

    def _disorders(self, unit: Unit, events: list[dict], reached: float) -> bool:
        """RULE-03-1.5: a line of battle that touched dense woods, swamp or abatis."""
        if unit.formation != Formation.LINE:
            return False
        for ev in events:
            if ev["start"] <= reached + _EPS and ev["kind"] in ("area", "cross"):
                if bool(self.matrix(ev["type"], "disorders_line")):
                    return True
        return False

    def move(
        self, u: Unit | str, path: Sequence[XY], allowance_in: float | None = None, *, in_command: bool = True
    ) -> tuple[Unit, MovePlan]:
        """Plan the move and return the unit where it ends, with Disorder (RULE-03-1.5) and the
        climbing marker (RULE-03-2.5) applied."""
        unit = self._unit(u)
        plan = self.plan_move(unit, path, allowance_in, in_command=in_command)
        moved = unit.moved_to(*plan.end)
        add = []
        if plan.disorder:
            add.append(Marker.DISORDER)
        if plan.no_musketry:
            add.append(Marker.CLIMBING)
        return moved.with_markers(add=add), plan


def _first_contact(poly: Polygon, geom, d: XY, L: float) -> float | None:
    """How far ``poly`` moves along unit vector ``d`` before it first touches ``geom`` (within L)."""
    if shapely.intersects(poly, geom):
        return 0.0
    far = L + 1e-6
    best = math.inf
    pv = np.asarray(poly.exterior.coords)[:-1]
    rays = shapely.linestrings(np.stack([pv, pv + np.array(d) * far], axis=1))
    hits = shapely.intersection(rays, geom)
    dist = shapely.distance(shapely.points(pv), hits)
    dist = dist[np.isfinite(dist)]
    if len(dist):
        best = min(best, float(dist.min()))
    gv = shapely.get_coordinates(geom)
    if len(gv):
        back = shapely.linestrings(np.stack([gv, gv - np.array(d) * far], axis=1))
        hits = shapely.intersection(back, poly)
        dist = shapely.distance(shapely.points(gv), hits)
        dist = dist[np.isfinite(dist)]
        if len(dist):
            best = min(best, float(dist.min()))
    return best if best <= L + _EPS else None


def _exit_along(seg: LineString, area) -> float | None:
    """How far along ``seg`` (which starts inside ``area``) it first leaves it."""
    inside = shapely.intersection(seg, area)
    if inside.is_empty:
        return None
    parts = list(getattr(inside, "geoms", [inside]))
    start = Point(seg.coords[0])
    for p in parts:
        if p.distance(start) < 1e-6 and p.geom_type == "LineString":
            return float(p.length) if p.length < seg.length - _EPS else None
    return None


# -- buildings: structural damage (RULE-03-3.2) -----------------------------------------------------------


def damage_building(
    battle: Battle, feature_id: str, unsaved_hits: int, tables: RuleTables | None = None
) -> BuildingDamage:
    """Apply unsaved hits scored against a building itself (RULE-03-3.2).

    Every 2 unsaved hits make 1 structural hit (an odd hit is carried in the feature's
    ``props["loose_hits"]``). At 4 structural hits the building collapses into rubble (light cover):
    its garrison loses 1 stand and the survivors are placed outside in open ground, behind the
    building as they face, Disordered.
    """
    t = tables if tables is not None else load_tables()
    if isinstance(unsaved_hits, bool) or not isinstance(unsaved_hits, int) or unsaved_hits < 0:
        raise InvariantError(f"unsaved hits are a whole number of 0 or more, not {unsaved_hits!r}")
    feat = battle.feature(feature_id)
    if feat.type != TerrainType.BUILDING:
        raise IllegalAction(f"{feat.name or feat.id} is not a building", "RULE-03-3.2")
    bf = Battlefield(battle, t)
    garrison = [
        u
        for u in battle.units.values()
        if u.in_play and bf.building_of(u) is not None and bf.building_of(u).id == feat.id
    ]
    per = int(t.value("shooting.buildings.hits_per_structural_hit"))
    collapse_at = int(t.value("shooting.buildings.structural_hits_to_collapse"))
    loose = int(feat.props.get("loose_hits", 0)) + unsaved_hits
    added = loose // per
    loose %= per
    hits = feat.structural_hits + added
    label = feat.name or "the building"
    steps = [
        Step(
            f"{plural(unsaved_hits, 'unsaved hit')} on {label}: {plural(added, 'structural hit')}, {hits} of {collapse_at}",
            rule="RULE-03-3.2",
        )
    ]
    if hits < collapse_at:
        props = dict(feat.props)
        props["loose_hits"] = loose
        new = replace(feat, structural_hits=hits, props=props)
        return BuildingDamage(battle.with_feature(new), tuple(steps), hits, False)
    props = {k: v for k, v in feat.props.items() if k != "loose_hits"}
    rubble = TerrainFeature(feat.id, TerrainType.RUBBLE, feat.points, name=feat.name, props=props)
    after = battle.with_feature(rubble)
    steps.append(Step(f"{label} collapses into rubble (light cover)", rule="RULE-03-3.2"))
    loss = int(t.value("shooting.buildings.collapse_stand_loss"))
    for g in garrison:
        hurt, _cas = g.lose_stands(loss)
        if hurt.in_play:
            fp = footprint(hurt, t)
            back = (-fp.forward[0], -fp.forward[1])
            # out of the rubble: step back until the footprint is clear of it
            proj = [((px - hurt.x) * back[0] + (py - hurt.y) * back[1]) for px, py in feat.points]
            step = max(proj) + 0.01
            hurt = hurt.moved_to(hurt.x + back[0] * step, hurt.y + back[1] * step)
            hurt = hurt.with_markers(add=[Marker.DISORDER], remove=[Marker.GARRISONED])
        after = after.with_unit(hurt)
        steps.append(
            Step(
                f"{g.name} loses {loss} stand and is placed outside, Disordered"
                if hurt.in_play
                else f"{g.name} is destroyed in the collapse",
                rule="RULE-03-3.2",
                units=(g.id,),
            )
        )
    return BuildingDamage(after, tuple(steps), hits, True)
