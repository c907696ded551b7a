"""Movement on the battlefield (RULE-03-1.3, RULE-03-1.4, RULE-03-1.5, RULE-03-2.1, RULE-03-2.2, RULE-03-2.3, RULE-03-2.4, RULE-03-2.5, RULE-03-3.3): where a move along a path ends,
what the ground costs and does to the unit on the way. These are methods of
:class:`rules.battlefield.field.Battlefield` (through :class:`BattlefieldMovement`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
import shapely.affinity
from shapely.geometry import LineString, Point, Polygon

from rules.battle.events import Step
from rules.battle.terrain import TerrainType
from rules.battle.unit import Unit
from rules.battle.words import Formation, Marker
from rules.battlefield.geometry import XY, Footprint
from rules.battlefield.terrain_index import _EPS
from rules.errors import InvariantError


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


class BattlefieldMovement:
    """The movement methods of :class:`rules.battlefield.field.Battlefield`."""

    # -- movement (RULE-03-1.3, RULE-03-1.4, RULE-03-1.5, RULE-03-2.1, RULE-03-2.2, RULE-03-2.3, RULE-03-2.4, RULE-03-2.5, RULE-03-3.3) ---
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
          obstacle (RULE-03-2.1, RULE-03-2.2, RULE-03-2.3, RULE-03-2.4); without enough left, the unit halts against it.
        * Impassable terrain and town sectors closed to the unit's formation (RULE-03-3.3) stop it
          where it would touch them.
        * A formed unit in command may always move 2.0" unless impassable terrain stops it
          (RULE-03-1.4).
        * A line of battle that moves through dense woods, swamp or abatis is Disordered at the end
          of its move (RULE-03-1.5); a column crossing a stone wall takes a Discipline Check
          (RULE-03-2.2: the result says so, the caller rolls).
        * Climbing out of a sunken road (the unit's centre-front in the road, and any part of it
          leaving it, however near the bank it stood) takes the whole move and the unit fires no
          muskets; it ends wholly out of the road, its rear on the bank (RULE-03-2.5).
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
        # the sunken roads the unit stands in (its centre-front in the road, as for its cover):
        # entering a sunken road is free, climbing out of it is not (RULE-03-2.5)
        roads = [
            int(j)
            for j in np.flatnonzero(start_cov)
            if self.terrain.features[int(j)].type == TerrainType.SUNKEN_ROAD
        ]
        for (x0, y0), (x1, y1) in zip(pts[:-1], pts[1:]):
            L = math.hypot(x1 - x0, y1 - y0)
            d = ((x1 - x0) / L, (y1 - y0) / L)
            p0 = shapely.affinity.translate(fp.polygon, x0 - fp.centre_front[0], y0 - fp.centre_front[1])
            p1 = shapely.affinity.translate(p0, x1 - x0, y1 - y0)
            swept = shapely.convex_hull(shapely.union(p0, p1))
            seg = LineString([(x0, y0), (x1, y1)])
            for j in list(roads):
                climb = _climb_out(p0, self.terrain.areas[j], d, L)
                if climb is None:
                    continue
                leave, clear = climb
                end = (x0 + d[0] * clear, y0 + d[1] * clear)
                events.append(
                    {
                        "feature": j,
                        "type": TerrainType.SUNKEN_ROAD,
                        "kind": "climb",
                        "start": offset + leave,
                        "end": offset + clear,
                        "end_xy": end,
                    }
                )
                roads.remove(j)
            for j in self.terrain.tree.query(swept, predicate="intersects"):
                j = int(j)
                feat = self.terrain.features[j]
                if feat.type == TerrainType.SUNKEN_ROAD:
                    continue  # entering a sunken road is free; climbing out is found above
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
                if climb is None or ev["start"] < climb["start"]:
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
        if climb is not None and hard_stop and climb["end"] > stop + _EPS:
            # the ground beyond the bank stops the unit before it is out of the road: it does not
            # climb out, and halts where it would have begun to
            stop = min(stop, climb["start"])
            climb = None
        if climb is not None:
            # RULE-03-2.5: the climb takes the whole move, and the unit ends out of the road (its
            # rear on the bank), straight on from where it began to climb, however near the bank
            # it stood and wherever it was asked to go
            feat = self.terrain.features[climb["feature"]]
            reach = float(climb["end"])
            cost = max(allowance, float(self.tables.value("movement.crossing.sunken_road_exit")))
            items.append(
                CostItem(
                    f"climbing out of {feat.name or 'the sunken road'} takes the whole move and ends "
                    "out of the road; no muskets this turn",
                    cost,
                    "RULE-03-2.5",
                    feat.id,
                )
            )
            return MovePlan(
                unit.id,
                total,
                reach,
                climb["end_xy"],
                allowance,
                allowance,
                tuple(items),
                no_musketry=True,
                disorder=self._disorders(unit, events, reach),
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


def _climb_out(poly: Polygon, area, d: XY, L: float) -> tuple[float, float] | None:
    """A footprint ``poly`` moving along unit vector ``d`` from inside a sunken road (``area``):
    how far it moves before any part of it begins to leave the road (within ``L``), and how far
    before it is wholly out of it; None if it does not begin to leave within ``L``.

    The road and the footprint are polygons, so what lies outside the road changes only where a
    corner of one crosses an edge of the other: those distances are the candidates, tried in order.
    """
    area = shapely.make_valid(area)
    fx0, fy0, fx1, fy1 = poly.bounds
    ax0, ay0, ax1, ay1 = area.bounds
    far = L + math.hypot(fx1 - fx0, fy1 - fy0) + math.hypot(ax1 - ax0, ay1 - ay0) + 1.0
    dv = np.array(d, dtype=float)
    cands = {0.0}
    for pts, target, sign in (
        (np.asarray(poly.exterior.coords)[:-1], area.boundary, 1.0),
        (shapely.get_coordinates(area.boundary), poly.exterior, -1.0),
    ):
        if not len(pts):
            continue
        rays = shapely.linestrings(np.stack([pts, pts + sign * dv * far], axis=1))
        hits = shapely.intersection(rays, target)
        for p, h in zip(pts, hits):
            for q in shapely.get_coordinates(h):
                t = float(np.hypot(*(q - p)))
                if t <= far:
                    cands.add(t)
    order = sorted(cands)

    def moved(t: float):
        return shapely.affinity.translate(poly, dv[0] * t, dv[1] * t)

    out0 = float(shapely.difference(poly, area).area)
    nudge = 1e-3
    leave = next(
        (t for t in order if t <= L and shapely.difference(moved(t + nudge), area).area > out0 + 1e-9),
        None,
    )
    if leave is None:
        return None
    clear = next((t for t in order if t >= leave and shapely.intersection(moved(t), area).area <= 1e-9), None)
    if clear is None:
        return None
    return leave, clear
