"""The terrain of a battle as geometry, indexed once per terrain tuple: the features' shapes, their
STRtree, and the terrain matrix's sight kind of each, for :class:`rules.battlefield.field.Battlefield`
and its parts (sight, movement). Kept apart so that each part reads the same cached index.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
import shapely.affinity
from shapely import STRtree
from shapely.geometry import LineString, Polygon
from shapely.geometry.polygon import orient

from rules.battle.terrain import TerrainFeature, TerrainType
from rules.errors import TableError
from rules.tables import RuleTables

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
        # other simple outlines (a wood's ragged edge) as the convex triangles they are made of
        # (shapely's constrained Delaunay triangulation): the length of a line inside the outline is
        # the sum of its lengths inside them, the same arithmetic; an outline with holes is
        # measured by shapely
        self.piece_start = np.zeros(n, dtype=int)
        self.piece_count = np.zeros(n, dtype=int)
        pieces_n: list[np.ndarray] = []
        pieces_c: list[np.ndarray] = []
        for i, f in enumerate(terrain):
            g = self.geoms[i]
            if self.convex[i] or f.is_linear or not isinstance(g, Polygon) or g.interiors or g.area <= 0:
                continue
            tris = [t for t in shapely.get_parts(shapely.constrained_delaunay_triangles(g)) if t.area > 0]
            if not tris or abs(sum(t.area for t in tris) - g.area) > 1e-9 * max(g.area, 1.0):
                continue
            self.piece_start[i], self.piece_count[i] = len(pieces_n), len(tris)
            for t in tris:
                pts = np.asarray(orient(t, 1.0).exterior.coords)[:4]
                a, b = pts[:-1], pts[1:]
                e = b - a
                normal = np.column_stack((e[:, 1], -e[:, 0]))
                pieces_n.append(normal)
                pieces_c.append(np.einsum("ij,ij->i", normal, a))
        self.split = self.piece_count > 0
        self.piece_n = np.array(pieces_n).reshape(-1, 3, 2)
        self.piece_c = np.array(pieces_c).reshape(-1, 3)
        # the widest a feature is (its bounding box diagonal): an upper bound on a line inside it
        if n:
            b = shapely.bounds(self.geoms)
            self.span = np.hypot(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
        else:
            self.span = np.zeros(0)
        # the features that can limit or block sight, in a tree of their own (clear ground never
        # changes a sight line, so it is not looked for)
        self.sight_ids = np.flatnonzero(self.sight != _CLEAR)
        self.sight_tree = STRtree(self.geoms[self.sight_ids]) if len(self.sight_ids) else None
        # a circle round each feature (the middle of its box, out to its farthest point): a line
        # that passes outside it cannot meet the feature
        self.centre = np.zeros((n, 2))
        self.radius = np.zeros(n)
        for i, g in enumerate(self.geoms):
            pts = shapely.get_coordinates(g)
            if len(pts):
                mid = (pts.min(axis=0) + pts.max(axis=0)) / 2
                self.centre[i] = mid
                self.radius[i] = np.sqrt(((pts - mid) ** 2).sum(axis=1)).max()
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
            out[cx] = self._convex_length(p0[cx], p1[cx], fj[cx])
        sp = np.flatnonzero(self.split[fj])
        rest = ~cx
        if len(sp):
            length, odd = self._pieces_length(p0[sp], p1[sp], fj[sp])
            out[sp] = length
            rest[sp[~odd]] = False  # a line along a triangle's side is measured by shapely
        if rest.any():
            out[rest] = shapely.length(shapely.intersection(segs[rest], self.areas[fj[rest]]))
        return out

    def _convex_length(self, a: np.ndarray, b: np.ndarray, f: np.ndarray) -> np.ndarray:
        """The length of each segment ``a[i] -> b[i]`` inside the convex feature ``f[i]``, clipped
        against the half-planes of its edges (Cyrus-Beck)."""
        return _clipped(a, b, self.edge_n[f], self.edge_c[f])[0]

    def _pieces_length(self, a: np.ndarray, b: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The length of each segment ``a[i] -> b[i]`` inside feature ``f[i]`` (one with
        :attr:`split`), summed over its triangles; and whether the segment runs along a side of
        one of them (its length could be counted in both triangles of a side: shapely's to say)."""
        counts = self.piece_count[f]
        rep = np.repeat(np.arange(len(f)), counts)
        first = np.repeat(np.cumsum(counts) - counts, counts)
        idx = np.repeat(self.piece_start[f], counts) + (np.arange(len(rep)) - first)
        length, along = _clipped(a[rep], b[rep], self.piece_n[idx], self.piece_c[idx])
        total = np.bincount(rep, weights=length, minlength=len(f))
        odd = np.bincount(rep, weights=along, minlength=len(f)) > 0
        return total, odd

    def _meets(self, a: np.ndarray, b: np.ndarray, f: np.ndarray, segs: np.ndarray) -> np.ndarray:
        """Whether each segment has some length inside feature ``f[i]`` (one with :attr:`split`)."""
        length, odd = self._pieces_length(a, b, f)
        out = length > _EPS
        if odd.any():
            out[odd] = shapely.intersects(segs[odd], self.geoms[f[odd]])
        return out

    def sight_pairs(self, segs: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The sight lines (indexes into ``segs``, whose end points are ``ends[i]``) and the
        features that can limit or block sight (indexes into :attr:`features`) that each one
        runs into: every pair where the line has some length inside the feature, or, for a
        feature that is not a convex outline, meets it at all.

        The features whose boxes the line's box meets are found in :attr:`sight_tree`; those
        whose circle the line passes outside are left out; for a convex outline the length
        inside is then plain arithmetic on arrays, for the others shapely says whether they
        meet. A line that only touches a convex outline is left out: every rule of sight that
        such a feature takes part in asks for some of the line inside it (a length through
        woods or a town, a line between the crests of a hill)."""
        if self.sight_tree is None or len(segs) == 0:
            return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
        si, k = self.sight_tree.query(segs)
        fj = self.sight_ids[k]
        # the lines that pass outside a feature's circle miss it
        a, b = ends[si, 0], ends[si, 1]
        d = b - a
        rel = self.centre[fj] - a
        dd = (d * d).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.clip(np.where(dd > 0, (rel * d).sum(axis=1) / dd, 0.0), 0.0, 1.0)
        gap = rel - d * t[:, None]
        near = (gap * gap).sum(axis=1) <= (self.radius[fj] + _EPS) ** 2
        si, fj = si[near], fj[near]
        cx = self.convex[fj]
        keep = np.zeros(len(si), dtype=bool)
        if cx.any():
            keep[cx] = self._convex_length(ends[si[cx], 0], ends[si[cx], 1], fj[cx]) > _EPS
        sp = np.flatnonzero(self.split[fj])
        if len(sp):
            keep[sp] = self._meets(ends[si[sp], 0], ends[si[sp], 1], fj[sp], segs[si[sp]])
        other = np.flatnonzero(~cx & ~self.split[fj])
        if len(other):
            keep[other] = shapely.intersects(segs[si[other]], self.geoms[fj[other]])
        order = np.argsort(si[keep], kind="stable")
        return si[keep][order], fj[keep][order]

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


def _clipped(a: np.ndarray, b: np.ndarray, n: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The length of each segment ``a[i] -> b[i]`` inside the convex outline whose edges have
    the outward normals ``n[i]`` and offsets ``c[i]`` (Cyrus-Beck clipping against their
    half-planes); and whether it runs along one of the edges (parallel to it and on its line)."""
    d = b - a
    nx, ny = n[:, :, 0], n[:, :, 1]
    num = c - (nx * a[:, 0, None] + ny * a[:, 1, None])
    den = nx * d[:, 0, None] + ny * d[:, 1, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = num / den
    lo = np.max(np.where(den < 0, t, 0.0), axis=1, initial=0.0)
    hi = np.min(np.where(den > 0, t, 1.0), axis=1, initial=1.0)
    outside = np.any((den == 0) & (num < 0), axis=1)
    frac = np.where(outside, 0.0, np.clip(hi - lo, 0.0, 1.0))
    dlen = np.hypot(d[:, 0], d[:, 1])
    nlen = np.hypot(nx, ny)
    along = np.any(
        (np.abs(den) <= 1e-9 * nlen * dlen[:, None])
        & (np.abs(num) <= 1e-9 * nlen * (1.0 + np.abs(a).max(axis=1))[:, None])
        & (nlen > 0),
        axis=1,
    )
    return frac * dlen, along
