"""Line of sight on the battlefield (RULE-03-4.1, RULE-03-4.2, RULE-03-4.3, RULE-03-4.4, RULE-03-4.5, RULE-03-5.1, RULE-03-5.2, RULE-03-5.3, RULE-03-5.4, RULE-03-5.5, RULE-03-5.6, RULE-03-5.7): whether a viewer sees a target, what is in
the way if not, and the whole visibility matrix of many viewers and targets at once. These are
methods of :class:`rules.battlefield.field.Battlefield` (through :class:`BattlefieldSight`); how
Brigadier measures and reads chapter 03's sight rules is said in :mod:`rules.battlefield.field`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely
import shapely.affinity
from shapely import STRtree
from shapely.geometry import LineString

from rules.batch import paused_collector
from rules.battle.terrain import TerrainFeature
from rules.battle.unit import Unit
from rules.battle.words import Marker, UnitKind
from rules.battlefield.geometry import distance_in
from rules.battlefield.terrain_index import (
    _BLOCKS,
    _CREST,
    _DEAD_GROUND,
    _EPS,
    _HILL,
    _LIMIT,
    _LIMITED,
    _NO_BLOCK,
    _STRUCTURE,
)
from rules.errors import InvariantError

#: How many sight lines :meth:`Battlefield.terrain_clear_pairs` measures in one batch.
_PAIRS_AT_ONCE = 4096


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


class BattlefieldSight:
    """The line-of-sight methods of :class:`rules.battlefield.field.Battlefield`."""

    # -- line of sight (RULE-03-4.1, RULE-03-4.2, RULE-03-4.3, RULE-03-4.4, RULE-03-4.5, RULE-03-5.1, RULE-03-5.2, RULE-03-5.3, RULE-03-5.4, RULE-03-5.5, RULE-03-5.6, RULE-03-5.7) ---
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

    def terrain_line_of_sight(self, viewer: Unit, target: Unit) -> LineOfSight:
        """Whether the terrain alone leaves a line of sight from ``viewer`` to ``target``, and what
        is in the way if not: the view of :mod:`rules.sight.spotting`, where a side's own units
        block its fire (RULE-03-5.3), not its view."""
        m = self.visibility_matrix([viewer], [target], friendly=False)
        return self._explain(m, 0, 0, [viewer], [target])

    @paused_collector
    def visibility_matrix(
        self, viewers: Sequence[Unit | str], targets: Sequence[Unit | str], friendly: bool = True
    ) -> VisibilityMatrix:
        """Line of sight from every viewer to every target, computed in a few vectorised shapely
        calls (STRtree queries over all sight lines at once).

        With ``friendly`` false only the terrain is measured: the viewers' own units block their
        fire (RULE-03-5.3), not their view, so spotting (:mod:`rules.sight.spotting`) leaves them out;
        every stand of a viewer then has the view where the terrain leaves it."""
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
        ti = self.terrain
        vpts, tpts = shapely.points(vo), shapely.points(to)
        lev_v, lev_t = ti.levels_at(vpts), ti.levels_at(tpts)
        pa, pb = np.repeat(np.arange(n), m), np.tile(np.arange(m), n)
        pc, pf = self._terrain_blocking(vs, ts, vo, to, vpts, tpts, lev_v, lev_t, pa, pb)
        code, feat = pc.reshape(n, m), pf.reshape(n, m)
        terrain_clear = code == _NO_BLOCK
        if not friendly:
            stands = np.array([u.stands for u in vs], dtype=int)
            return VisibilityMatrix(
                tuple(u.id for u in vs),
                tuple(u.id for u in ts),
                terrain_clear,
                np.where(terrain_clear, stands[:, None], 0),
                code,
                feat,
                np.full((n, m), -1),
                np.zeros((n, m), dtype=bool),
            )
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

    @paused_collector
    def terrain_clear_pairs(
        self, viewers: Sequence[Unit], targets: Sequence[Unit], pa: np.ndarray, pb: np.ndarray
    ) -> np.ndarray:
        """Whether the terrain leaves a clear line between ``viewers[pa[k]]`` and ``targets[pb[k]]``,
        for each pair ``k``: the terrain of :meth:`visibility_matrix` (without friendly units),
        measured only for the pairs asked, so that sight among many units costs the lines in
        reach, not every pair of units."""
        vs, ts = list(viewers), list(targets)
        pa, pb = np.asarray(pa, dtype=int), np.asarray(pb, dtype=int)
        if len(pa) == 0:
            return np.zeros(0, dtype=bool)
        vo = np.array([[u.x, u.y] for u in vs], dtype=float)
        to = np.array([[u.x, u.y] for u in ts], dtype=float)
        ti = self.terrain
        vpts, tpts = shapely.points(vo), shapely.points(to)
        lev_v, lev_t = ti.levels_at(vpts), ti.levels_at(tpts)
        out = np.empty(len(pa), dtype=bool)
        # a few thousand lines at a time: the memory a big battle's sight takes stays that of one
        # batch (about as quick as one batch of every line, measured at 1,000 units)
        for k in range(0, len(pa), _PAIRS_AT_ONCE):
            cut = slice(k, k + _PAIRS_AT_ONCE)
            code, _ = self._terrain_blocking(vs, ts, vo, to, vpts, tpts, lev_v, lev_t, pa[cut], pb[cut])
            out[cut] = code == _NO_BLOCK
        return out

    def _terrain_blocking(
        self,
        vs: list[Unit],
        ts: list[Unit],
        vo: np.ndarray,
        to: np.ndarray,
        vpts: np.ndarray,
        tpts: np.ndarray,
        lev_v: np.ndarray,
        lev_t: np.ndarray,
        pa: np.ndarray,
        pb: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """For each pair ``k`` (viewer ``pa[k]``, target ``pb[k]``): why the terrain blocks the
        line between their colour stands (``_NO_BLOCK`` when it does not) and the feature that
        does (-1 when none), in a few vectorised shapely calls over all the lines at once."""
        npairs = len(pa)
        code = np.full(npairs, _NO_BLOCK, dtype=int)
        feat = np.full(npairs, -1, dtype=int)
        coords = np.empty((npairs, 2, 2))
        coords[:, 0, :] = vo[pa]
        coords[:, 1, :] = to[pb]
        same = np.all(np.abs(coords[:, 0, :] - coords[:, 1, :]) < _EPS, axis=1)
        coords[:, 1, 0] += same * 1e-6  # a line needs two distinct points
        segs = shapely.linestrings(coords)
        ti = self.terrain
        if ti.tree is not None:
            cov_v, cov_t = ti.covering(vpts), ti.covering(tpts)
            si, fj = ti.sight_pairs(segs, coords)
            a, b = pa[si], pb[si]
            sg = segs[si]
            kind = ti.sight[fj]
            cv, ct = cov_v[a, fj], cov_t[b, fj]
            why = np.full(len(si), _NO_BLOCK)
            # only towns, buildings and hills care whether a line merely grazes their edge
            p0, p1 = coords[si, 0], coords[si, 1]
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
                ask = over & crop  # only a crop that would block is asked whether it is seen over
                seen_over = np.zeros(len(lim), dtype=bool)
                if ask.any():
                    # only a unit above level 0 can be on a crest; each is asked once
                    crest_v = self._on_crest_of(vs, lev_v, np.unique(a[lim[ask]]))
                    crest_t = self._on_crest_of(ts, lev_t, np.unique(b[lim[ask]]))
                    seen_over = ask & (
                        (crest_v[a[lim]] & (ti.ground_level[fj[lim]] < lev_v[a[lim]]))
                        | (crest_t[b[lim]] & (ti.ground_level[fj[lim]] < lev_t[b[lim]]))
                    )
                why[lim[over & ~seen_over]] = _LIMIT
            # hills (RULE-03-4.3, RULE-03-4.4)
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
                # the one on the hill is in dead ground to the one below when it is more than 1.0"
                # behind the crest the line crosses; only those lines measure the gap
                dead = np.zeros(len(hl), dtype=bool)
                for on_hill, units, at in (
                    (ht & ~hv & (lev_v[a[hl]] < L) & crosses, ts, b[hl]),
                    (hv & ~ht & (lev_t[b[hl]] < L) & crosses, vs, a[hl]),
                ):
                    k = np.flatnonzero(on_hill)
                    if len(k):
                        polys = np.array([self.footprint(units[int(i)]).polygon for i in at[k]], dtype=object)
                        dead[k] |= shapely.distance(polys, crests[k]) > rs + _EPS
                why[hl[dead]] = _DEAD_GROUND
            blocked = why < _NO_BLOCK
            if blocked.any():
                order = np.lexsort((fj[blocked], why[blocked], si[blocked]))
                bs, bw, bf = si[blocked][order], why[blocked][order], fj[blocked][order]
                first = np.r_[True, bs[1:] != bs[:-1]]
                code[bs[first]] = bw[first]
                feat[bs[first]] = bf[first]
        return code, feat

    def _on_crest_of(self, units: list[Unit], levels: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Which of ``units`` are on a crest (RULE-03-4.2), asked only of those at ``idx``."""
        out = np.zeros(len(units), dtype=bool)
        for i in idx:
            out[i] = bool(levels[i]) and self.on_crest(units[int(i)])
        return out

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
        """Per-stand sight lines against other friendly units (RULE-03-5.3, RULE-03-5.4, RULE-03-4.5)."""
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
