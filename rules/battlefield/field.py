"""The battlefield of one battle state: terrain effects, movement, cover, elevation, sight and targets.

A :class:`Battlefield` is built once per :class:`~rules.battle.battle.Battle` state. The terrain's
geometry and its STRtree are cached on the battle's terrain, so a battlefield for the state after
a unit moved (``battle.with_unit(...)`` keeps the same terrain) costs only the new footprints.

What each terrain type does is read from the Master Terrain Matrix (RULE-03-1.2) in
``resources/rules/terrain.toml`` (keys ``terrain.matrix.<type>.<effect>``).

The battlefield is kept in four modules, and their names are given here too:
:mod:`rules.battlefield.terrain_index` (the terrain's cached geometry), :mod:`rules.battlefield.line_of_sight` (line of
sight and the visibility matrix), :mod:`rules.battlefield.movement` (move planning), and this module
(elevation, cover, arcs, buildings, targets, and the structural damage of buildings).

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

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import shapely
import shapely.affinity
from shapely.geometry import Point
from shapely.ops import nearest_points

from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.terrain import TerrainFeature, TerrainType
from rules.battle.unit import Unit
from rules.battle.words import Formation, Marker, UnitKind, plural
from rules.battlefield.geometry import (
    XY,
    Footprint,
    distance_in,
    enfilade_position,
    footprint,
    in_forward_arc,
)
from rules.battlefield.geometry import zone_of as geometry_zone_of
from rules.battlefield.line_of_sight import BattlefieldSight, LineOfSight, VisibilityMatrix
from rules.battlefield.movement import BattlefieldMovement, CostItem, MovePlan
from rules.battlefield.terrain_index import _CLEAR as _CLEAR  # the benchmarks read the sight kinds here
from rules.battlefield.terrain_index import _EPS, _terrain_index
from rules.errors import IllegalAction, InvariantError
from rules.tables import RuleTables, load_tables

# -- results ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TargetCover:
    """The cover a target has against one firer: ``kind`` is a :class:`rules.shooting.volleys.CoverClass` value."""

    kind: str  # "none", "light" or "heavy"
    save: int | None  # the save on 1D6 (5 for light, 4 for heavy), None without cover
    feature_id: str | None = None
    rule: str | None = None
    reason: str = ""


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


# -- the battlefield --------------------------------------------------------------------------------


class Battlefield(BattlefieldSight, BattlefieldMovement):
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

    # -- elevation (RULE-03-4.1, RULE-03-4.2, RULE-03-4.3, RULE-03-4.4) --------------------------------------
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

    def dead_ground_prohibits(self, firer: Unit | str, target: Unit | str) -> str | None:
        """Why the firer may not shoot at the target from dead ground (RULE-03-4.3, Firing
        Prohibition), or None: it stands more than 1.0" behind the crestline of the hill the target
        stands on, and the target is on the lower forward slope beyond it (across the crestline from
        the firer, and not itself on the crest). It may shoot once it moves up onto the crest."""
        f, t = self._unit(firer), self._unit(target)
        j = self._hill_of(f)
        if j is None or self._hill_of(t) != j or self.on_crest(t):
            return None
        gap = self.behind_crest_in(f) or 0.0
        if gap <= float(self.tables.value("terrain.elevation.reverse_slope_more_than_in")) + _EPS:
            return None
        line = shapely.LineString([self.footprint(f).centre_front, self.footprint(t).centre_front])
        if not shapely.intersects(line, self.terrain.crests[j]):
            return None
        label = self.terrain.features[j].name or "the hill"
        return (
            f'{f.name} is {gap:.1f}" behind the crest of {label}, in dead ground: it cannot fire at '
            f"{t.name} on the forward slope until it moves up onto the crest"
        )

    # -- cover (RULE-03-2.1, RULE-03-2.2, RULE-03-2.3, RULE-03-2.4, RULE-03-2.5, RULE-03-3.1, RULE-03-3.2, RULE-03-3.3, RULE-03-3.4, RULE-03-5.7) ---
    def cover_for(self, target: Unit | str, firer: Unit | str | None = None) -> TargetCover:
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
        best = TargetCover("none", None, reason="in the open")
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
                best = TargetCover(kind, save, feat.id, rule or "club default", why)
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
        """:func:`rules.battlefield.geometry.enfilade_position`, except that a garrison cannot be flanked or
        enfiladed (RULE-03-3.1)."""
        t = self._unit(target)
        if self.building_of(t) is not None:
            return None
        return enfilade_position(self.footprint(self._unit(firer)), self.footprint(t), self.tables)

    def zone_of(self, defender: Unit | str, point: XY | Point) -> str:
        """:func:`rules.battlefield.geometry.zone_of`, except that a garrison cannot be flanked (RULE-03-3.1):
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
        return in_forward_arc(self.footprint(f), self.footprint(t), self.tables)

    # -- buildings (RULE-03-3.1, RULE-03-3.2) ----------------------------------------------------------------
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

    def face_of(self, building: TerrainFeature, u: Unit | str) -> int:
        """The face of the building the unit is off (RULE-03-3.1): the number of the side of its
        outline nearest the unit's footprint, counted from its first corner."""
        fp = self.footprint(self._unit(u)).polygon
        pts = list(building.points)
        sides = shapely.linestrings([[pts[i], pts[(i + 1) % len(pts)]] for i in range(len(pts))])
        return int(np.argmin(shapely.distance(sides, fp)))

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

        A unit more than 1.0" behind a crest may not fire at an enemy on the forward slope beyond it
        (RULE-03-4.3, Firing Prohibition: :meth:`dead_ground_prohibits`); the closest enemy it may
        fire at is then its target.

        A garrison fires across every face of its building (RULE-03-3.1, All-Around Fire): the
        closest unengaged enemy off each face (:meth:`face_of`) may be fired on.

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
        # targets on the forward slope the firer may not shoot at from dead ground (RULE-03-4.3)
        seen = [r for r in rows if r[2] and r[3] and r[4].visible]
        dead_ground = {r[0].id: self.dead_ground_prohibits(f, r[0]) for r in seen}
        eligible = [r for r in seen if dead_ground[r[0].id] is None]
        out: list[TargetOption] = []
        climbing = f.has(Marker.CLIMBING)
        chargers = [r for r in eligible if r[0].id in charging]
        unengaged = [r for r in eligible if not r[0].has(Marker.ENGAGED)]
        closest = unengaged[0][0].id if unengaged else None
        # a garrison fires across every face of its building (RULE-03-3.1): the closest enemy off
        # each face may be fired on
        house = self.building_of(f)
        face = {r[0].id: self.face_of(house, r[0]) for r in rows} if house is not None else {}
        closest_off: dict[int, str] = {}
        for r in unengaged:
            closest_off.setdefault(face.get(r[0].id, 0), r[0].id)
        formed_closest = None
        if f.kind == UnitKind.ARTILLERY:
            for r in unengaged:
                if not r[0].is_screen and r[0].formation != Formation.SKIRMISH:
                    formed_closest = r[0].id
                    break
        for e, d, arc, inr, sight, enf in rows:
            ok, mandatory, rule = False, False, "RULE-03-5.6"
            dead = dead_ground.get(e.id)
            if climbing:
                why = f"{f.name} is climbing out of a sunken road and cannot fire muskets this turn"
                rule = "RULE-03-2.5"
            elif not arc:
                why, rule = "outside the 45 degree forward arc", "RULE-03-5.1"
            elif not inr:
                # distances are said to the tenth of an inch: one that rounds to the reach itself is
                # said to be a hair beyond it, not "18.0 > 18.0"
                why = (
                    f'out of range ({d:.1f}" > {rng:g}")'
                    if round(d, 1) > rng
                    else f'out of range: a hair beyond its {rng:g}" reach ({d:.1f}")'
                )
                rule = None
            elif not sight.visible:
                why, rule = f"not in sight: {sight.reason}", sight.rule
            elif dead is not None:
                why, rule = dead, "RULE-03-4.3"
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
            elif house is not None and closest_off.get(face[e.id]) == e.id:
                label = house.name or "the building"
                ok, why = True, f"the closest unengaged enemy off another face of {label}"
                rule = "RULE-03-3.1"
            elif enf and d <= eff + _EPS:
                ok, why = True, f"enfilade on its {enf} flank: may pass over a closer target"
                rule = "RULE-03-5.7"
            elif f.kind == UnitKind.ARTILLERY and e.id == formed_closest and d <= medium + _EPS:
                ok, why = True, "artillery may pass over closer skirmishers to fire at formed troops"
            else:
                why = "a closer unengaged enemy must be fired at first"
            out.append(TargetOption(e.id, d, arc, inr, sight, enf, ok, mandatory, why, rule))
        return out


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


__all__ = [
    "Battlefield",
    "BattlefieldMovement",
    "BattlefieldSight",
    "BuildingDamage",
    "CostItem",
    "TargetCover",
    "LineOfSight",
    "MovePlan",
    "TargetOption",
    "VisibilityMatrix",
    "damage_building",
]
