"""The sight lines and the features they run into are found without asking shapely whether each
line meets each feature whose box it meets: the features that can limit or block sight have a
tree of their own, and a convex outline is measured by arithmetic. The matrix of sight is the
one that shapely's intersects query over every feature gives."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.generate import big_battle, scaled_battle
from rules.battlefield.field import _CLEAR, Battlefield, _terrain_index
from rules.tables import load_tables


def plain_pairs(ti):
    """Every (line, feature) pair that shapely says meet, of the features that are not clear."""

    def pairs(segs, ends):
        si, fj = ti.tree.query(segs, predicate="intersects")
        keep = ti.sight[fj] != _CLEAR
        return si[keep], fj[keep]

    return pairs


FIELDS = ("visible", "clear_stands", "code", "feature", "friend", "screen", "overhead")


@pytest.mark.parametrize("battle", [big_battle(), scaled_battle(800)], ids=["200 units", "800 units"])
def test_the_matrix_is_that_of_an_intersects_query_over_every_feature(battle, monkeypatch):
    tables = load_tables()
    union, csa = battle.oob.in_play("union"), battle.oob.in_play("csa")
    viewers, targets = union[::3], csa[::3]
    ours = Battlefield(battle, tables).visibility_matrix(viewers, targets)
    ti = _terrain_index(battle.terrain, tables)
    monkeypatch.setattr(ti, "sight_pairs", plain_pairs(ti))
    theirs = Battlefield(battle, tables).visibility_matrix(viewers, targets)
    assert ours.viewer_ids == theirs.viewer_ids and ours.target_ids == theirs.target_ids
    for name in FIELDS:
        mine, plain = getattr(ours, name), getattr(theirs, name)
        if name == "overhead":
            assert dict(mine) == dict(plain)
        else:
            assert np.array_equal(mine, plain), name
    # the lines are blocked by terrain often enough to tell
    assert 0 < ours.visible.sum() < ours.visible.size


def test_only_features_that_can_limit_or_block_sight_are_in_the_tree():
    battle = big_battle()
    ti = _terrain_index(battle.terrain, load_tables())
    assert len(ti.sight_ids) == int((ti.sight != _CLEAR).sum()) < len(battle.terrain)


# -- an outline that is not convex, measured by its triangles ----------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from shapely.geometry import LineString, Polygon  # noqa: E402

from rules.battle.terrain import TerrainFeature, TerrainType  # noqa: E402
from rules.battlefield.terrain_index import _TerrainIndex as TerrainIndex  # noqa: E402


def _star(radii: list[float], cx: float = 20.0, cy: float = 20.0) -> tuple[tuple[float, float], ...]:
    """A ragged outline about a centre (one point at each of evenly spread angles)."""
    n = len(radii)
    return tuple(
        (round(cx + r * np.cos(2 * np.pi * k / n), 3), round(cy + r * np.sin(2 * np.pi * k / n), 3))
        for k, r in enumerate(radii)
    )


L_SHAPE = ((10.0, 10.0), (30.0, 10.0), (30.0, 14.0), (14.0, 14.0), (14.0, 30.0), (10.0, 30.0))
coord = st.floats(0.0, 40.0, allow_nan=False).map(lambda v: round(v, 2))


@settings(max_examples=150, deadline=None)
@given(
    radii=st.lists(st.floats(2.0, 12.0), min_size=5, max_size=14),
    lines=st.lists(st.tuples(coord, coord, coord, coord), min_size=1, max_size=12),
    shape=st.booleans(),
)
def test_a_line_inside_a_ragged_outline_is_as_long_as_shapely_measures_it(radii, lines, shape):
    points = L_SHAPE if shape else _star(radii)
    wood = TerrainFeature("w", TerrainType.DENSE_WOODS, points)
    ti = TerrainIndex((wood,), load_tables())
    area = Polygon(points)
    ends = np.array([[[x0, y0], [x1, y1]] for x0, y0, x1, y1 in lines], dtype=float)
    segs = np.array([LineString(e) for e in ends], dtype=object)
    got = ti.inside_length(ends[:, 0], ends[:, 1], np.zeros(len(lines), dtype=int), segs)
    want = [LineString(e).intersection(area).length for e in ends]
    assert np.allclose(got, want, atol=1e-7)
    if not area.equals(area.convex_hull):
        assert ti.split[0]  # measured by its triangles, not by shapely


def test_a_line_along_the_side_of_a_triangle_is_measured_once():
    ti = TerrainIndex((TerrainFeature("w", TerrainType.DENSE_WOODS, L_SHAPE),), load_tables())
    assert ti.split[0]
    # along each side of each triangle the outline was cut into, and beyond
    tris = ti.piece_n.shape[0]
    assert tris >= 4
    a = np.array([[14.0, 14.0], [10.0, 10.0], [12.0, 10.0], [10.0, 20.0]])
    b = np.array([[10.0, 30.0], [30.0, 14.0], [12.0, 30.0], [30.0, 10.0]])
    segs = np.array([LineString([p, q]) for p, q in zip(a, b)], dtype=object)
    got = ti.inside_length(a, b, np.zeros(len(a), dtype=int), segs)
    want = [s.intersection(Polygon(L_SHAPE)).length for s in segs]
    assert np.allclose(got, want, atol=1e-7)
