"""Footprints, arcs, zones, ranges and enfilade (RULE-03-5.1, RULE-03-5.2, RULE-03-5.7, RULE-04-5.1)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.battle.unit import Unit
from rules.battle.words import Formation, GunType, UnitKind, Weapon
from rules.battlefield.geometry import (
    behind_flank_line,
    distance_in,
    enfilade_position,
    flank_zone,
    footprint,
    forward_arc,
    in_flank_zone,
    in_forward_arc,
    is_enfilade,
    zone_of,
)
from rules.errors import InvariantError
from rules.tables import load_tables

T = load_tables()
W = T.value("units.base_width.infantry")  # 1.5
D = T.value("units.base_depth.infantry")  # 0.75


def inf(uid="u", x=0.0, y=0.0, facing=0.0, stands=5, formation=Formation.LINE, side="union", **kw) -> Unit:
    return Unit(
        id=uid,
        name=uid,
        side=side,
        brigade="b",
        kind=UnitKind.INFANTRY,
        stands=stands,
        stands_start=max(stands, 1),
        formation=formation,
        x=x,
        y=y,
        facing_deg=facing,
        **kw,
    )


def battery(uid="bty", x=0.0, y=0.0, facing=0.0, sections=3, formation=Formation.UNLIMBERED) -> Unit:
    return Unit(
        id=uid,
        name=uid,
        side="union",
        brigade="b",
        kind=UnitKind.ARTILLERY,
        stands=sections,
        stands_start=sections,
        gun=GunType.ORDNANCE_RIFLE_3IN,
        weapon=Weapon.NONE,
        formation=formation,
        x=x,
        y=y,
        facing_deg=facing,
    )


def approx_pt(p, q, tol=1e-9):
    return abs(p[0] - q[0]) < tol and abs(p[1] - q[1]) < tol


# -- footprints ----------------------------------------------------------------------------------


def test_rule_03_5_2_line_centred_on_colour_stand_centre_front():
    fp = footprint(inf(x=10, y=20, stands=5), T)
    assert fp.centre_front == (10, 20)
    assert approx_pt(fp.left_front, (10 - 2.5 * W, 20)) and approx_pt(fp.right_front, (10 + 2.5 * W, 20))
    assert len(fp.stands) == 5 and fp.colour_index == 2
    colour = fp.stands[fp.colour_index]
    assert colour.bounds == pytest.approx((10 - W / 2, 20, 10 + W / 2, 20 + D))
    assert fp.polygon.area == pytest.approx(5 * W * D)
    assert fp.front_edge.length == pytest.approx(5 * W)
    # facing north, the stands lie south (down the table, +y) of the front edge
    assert fp.centre == pytest.approx((10, 20 + D / 2))


def test_line_with_even_stands_has_extra_stand_on_the_left():
    fp = footprint(inf(stands=4), T)
    assert fp.u_min == pytest.approx(-2.5 * W) and fp.u_max == pytest.approx(1.5 * W)
    assert fp.stands[fp.colour_index].centroid.x == pytest.approx(0)


def test_assault_column_two_wide_ceil_half_deep():
    fp = footprint(inf(stands=5, formation=Formation.ASSAULT_COLUMN), T)
    assert fp.frontage_in == pytest.approx(2 * W)
    assert fp.depth == pytest.approx(3 * D)
    assert fp.stands[fp.colour_index].centroid.y == pytest.approx(D / 2)
    assert fp.stands[fp.colour_index].centroid.x == pytest.approx(0)


def test_road_column_one_wide_n_deep():
    fp = footprint(inf(stands=4, formation=Formation.ROAD_COLUMN), T)
    assert fp.frontage_in == pytest.approx(W)
    assert fp.depth == pytest.approx(4 * D)


def test_skirmish_order_leaves_one_stand_width_between_stands():
    fp = footprint(inf(stands=3, formation=Formation.SKIRMISH), T)
    xs = sorted(s.centroid.x for s in fp.stands)
    assert xs == pytest.approx([-2 * W, 0, 2 * W])
    assert fp.frontage_in == pytest.approx(5 * W)
    gaps = [fp.stands[i].distance(fp.stands[i + 1]) for i in range(2)]
    assert gaps == pytest.approx([W, W])


def test_artillery_sections_unlimbered_side_by_side_limbered_in_column():
    aw, ad = T.value("units.base_width.artillery"), T.value("units.base_depth.artillery")
    un = footprint(battery(sections=3), T)
    assert un.frontage_in == pytest.approx(3 * aw) and un.depth == pytest.approx(ad)
    lim = footprint(battery(sections=3, formation=Formation.LIMBERED), T)
    assert lim.frontage_in == pytest.approx(aw) and lim.depth == pytest.approx(3 * ad)


def test_footprint_rotates_with_facing_east():
    fp = footprint(inf(x=10, y=10, facing=90, stands=3), T)
    # facing +x: the left front corner is to the north (smaller y)
    assert approx_pt(fp.left_front, (10, 10 - 1.5 * W))
    assert approx_pt(fp.right_front, (10, 10 + 1.5 * W))
    assert fp.centre[0] < 10  # the stands are behind (west of) the front edge


def test_footprint_refuses_what_is_not_a_unit():
    with pytest.raises(InvariantError):
        footprint("2nd Wisconsin", T)


def test_footprint_uses_club_base_sizes():
    club = T.with_values({"units.base_width.infantry": 2.0})
    assert footprint(inf(stands=3), club).frontage_in == pytest.approx(6.0)


# -- the forward arc (RULE-03-5.1) ---------------------------------------------------------------


def test_rule_03_5_1_forward_arc_rays_at_45_degrees_from_the_front_corners():
    u = inf(x=0, y=0, stands=2)
    fp = footprint(u, T)
    # a point 10" ahead of the right corner and 9.9" out is inside, 10.1" out is not
    rx, ry = fp.right_front
    assert zone_of(u, (rx + 9.9, ry - 10), T) == "front"
    assert zone_of(u, (rx + 10.1, ry - 10), T) == "right_flank"
    lx, ly = fp.left_front
    assert zone_of(u, (lx - 9.9, ly - 10), T) == "front"
    assert zone_of(u, (lx - 10.1, ly - 10), T) == "left_flank"


def test_rule_03_5_1_target_in_forward_arc_and_not_when_beside_or_behind():
    firer = inf(x=0, y=0)
    assert in_forward_arc(firer, inf("t", x=0, y=-10, facing=180), T)
    assert not in_forward_arc(firer, inf("t", x=30, y=-5, facing=270), T)
    assert not in_forward_arc(firer, inf("t", x=0, y=12, facing=0), T)


def test_forward_arc_with_reach_is_cut_at_that_range_from_the_colour_stand():
    arc = forward_arc(inf(), T, reach_in=8.0)
    far = [p for p in arc.exterior.coords]
    assert max(math.hypot(x, y) for x, y in far) <= 8.0 + 1e-6
    assert arc.covers(footprint(inf(), T).origin)


def test_rule_04_5_1_flank_zone_is_45_to_90_degrees_from_the_front_corner():
    u = inf()
    fp = footprint(u, T)
    rx, ry = fp.right_front
    assert in_flank_zone(u, (rx + 10, ry - 9.9), T) == "right"
    assert in_flank_zone(u, (rx + 10, ry - 10.1), T) is None  # in the forward arc
    assert in_flank_zone(u, (rx + 10, ry + 0.1), T) is None  # behind the 90 degree line
    lx, ly = fp.left_front
    assert in_flank_zone(u, (lx - 10, ly - 5), T) == "left"
    assert flank_zone(u, "right", T).contains(__import__("shapely").Point(rx + 10, ry - 5))
    with pytest.raises(InvariantError):
        flank_zone(u, "middle", T)


def test_zone_rear_and_flank_behind_the_front_line():
    u = inf(stands=4)
    fp = footprint(u, T)
    assert zone_of(u, (fp.centre_front[0], fp.centre_front[1] + 3), T) == "rear"
    assert zone_of(u, (fp.right_front[0] + 1, fp.right_front[1] + 0.3), T) == "right_flank"
    assert zone_of(u, (fp.left_front[0] - 1, fp.left_front[1] + 5), T) == "left_flank"


def test_zone_of_rejects_bad_points():
    with pytest.raises(InvariantError):
        zone_of(inf(), ("a", 3), T)
    with pytest.raises(InvariantError):
        zone_of(inf(), (float("nan"), 3), T)


@settings(max_examples=40, deadline=None)
@given(
    facing=st.floats(0, 359.9),
    x=st.floats(-30, 30),
    y=st.floats(-30, 30),
    px=st.floats(-40, 40),
    py=st.floats(-40, 40),
    turn=st.floats(0, 359.9),
)
def test_property_arcs_and_zones_rotate_with_facing(facing, x, y, px, py, turn):
    """Turning the unit and the point together about the unit's origin keeps the zone."""
    u = inf(x=x, y=y, facing=facing)
    a = math.radians(turn)
    dx, dy = px, py
    rx, ry = dx * math.cos(a) - dy * math.sin(a), dx * math.sin(a) + dy * math.cos(a)
    v = inf(x=x, y=y, facing=(facing + turn) % 360)
    z1 = zone_of(u, (x + dx, y + dy), T)
    z2 = zone_of(v, (x + rx, y + ry), T)
    if z1 != z2:  # only a point within rounding of a zone's edge may differ
        fp = footprint(u, T)
        ((lu, lv),) = fp.to_local([(x + dx, y + dy)])
        edge = min(
            abs(lv), abs(lu - fp.u_max), abs(lu - fp.u_min), abs(lu - fp.u_max - lv), abs(fp.u_min - lv - lu)
        )
        assert edge < 1e-6


# -- ranges (RULE-03-5.2) ---------------------------------------------------------------------------


def test_rule_03_5_2_range_from_colour_stand_centre_front_to_nearest_front_edge_point():
    firer = inf("f", x=0, y=0, stands=5)  # frontage 7.5
    target = inf("t", x=10, y=-8, facing=180, stands=3, side="csa")  # front edge from 7.75 to 12.25 at y=-8
    assert distance_in(firer, target, T) == pytest.approx(math.hypot(10 - 2.25, 8))
    assert distance_in(target, firer, T) == pytest.approx(math.hypot(10 - 3.75, 8))


def test_rule_03_5_1_each_firer_sees_only_the_target_ahead_of_it():
    firers = [inf("f1", x=0, y=0), inf("f2", x=20, y=0, facing=90)]
    targets = [inf("t1", x=0, y=-12, facing=180, side="csa"), inf("t2", x=35, y=2, facing=270, side="csa")]
    assert [[in_forward_arc(f, t, T) for t in targets] for f in firers] == [[True, False], [False, True]]


# -- enfilade (RULE-03-5.7) ------------------------------------------------------------------------


def target_line():
    # a 4-stand target facing north, front edge y=0 from x=-3.75 to 2.25
    return inf("t", x=0, y=0, stands=4, side="csa")


def firer_across(stands_behind: int, stands: int = 4) -> Unit:
    """A line facing west, off the target's right flank, with ``stands_behind`` of its stands
    south of (behind) the target's front-edge line y=0 and the rest north of it."""
    # facing 270 (west): u (right) points north (-y); stands run along y.
    # stand centres at y = y0 + (i - n//2) * W * (-1) ... place so exactly k are at y>0
    fp = footprint(inf("f", x=0, y=0, facing=270, stands=stands), T)
    ys = sorted(fp.stand_centres[:, 1])
    # shift so that the boundary falls between the k-th and (k+1)-th stands from the south
    k = stands_behind
    if k == 0:
        shift = -ys[-1] - W / 2
    elif k == stands:
        shift = -ys[0] + W / 2
    else:
        shift = -(ys[stands - k - 1] + ys[stands - k]) / 2
    return inf("f", x=10, y=shift, facing=270, stands=stands)


def test_rule_03_5_7_more_than_half_the_stands_behind_the_flank_line_is_enfilade():
    t = target_line()
    three = firer_across(3)
    assert (footprint(three, T).stand_centres[:, 1] > 0).sum() == 3
    assert is_enfilade(three, t, T)
    assert enfilade_position(three, t, T) == "right"


def test_rule_03_5_7_exactly_half_the_stands_behind_is_not_enfilade():
    t = target_line()
    two = firer_across(2)
    assert (footprint(two, T).stand_centres[:, 1] > 0).sum() == 2
    # with 2 of 4 stands behind, the firer's centre is on the line, not behind it
    assert not is_enfilade(two, t, T)


def test_rule_03_5_7_centre_behind_the_line_is_enfilade_even_with_half_the_stands():
    t = target_line()
    # a road column with 2 of its 4 stands behind the line (not more than half), whose centre
    # (the middle of its footprint) is nonetheless 0.2" behind the line
    col = inf("f", x=10, y=-1.3, facing=0, stands=4, formation=Formation.ROAD_COLUMN)
    fp = footprint(col, T)
    assert (fp.stand_centres[:, 1] > 0).sum() == 2 and fp.centre[1] > 0
    assert is_enfilade(col, t, T)


def test_rule_03_5_7_firer_ahead_of_the_front_line_is_not_enfilade():
    t = target_line()
    assert not is_enfilade(firer_across(0), t, T)
    assert not is_enfilade(inf("f", x=0, y=-10, facing=180), t, T)


def test_firer_directly_behind_is_in_the_rear():
    t = target_line()
    assert enfilade_position(inf("f", x=0, y=10, facing=0), t, T) == "rear"
    left = inf("f", x=-15, y=3, facing=90)
    assert enfilade_position(left, t, T) == "left"
    assert behind_flank_line(t, (-15, 0.01), T) and not behind_flank_line(t, (-15, 0.0), T)


# -- a footprint's plain corners and its shapely shapes ----------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    st.floats(-50, 50),
    st.floats(-50, 50),
    st.floats(0, 359.9),
    st.integers(0, 12),
    st.sampled_from([Formation.LINE, Formation.ASSAULT_COLUMN, Formation.ROAD_COLUMN, Formation.SKIRMISH]),
)
def test_footprint_corners_are_the_corners_of_its_shapes(x, y, facing, stands, formation):
    fp = footprint(inf(x=x, y=y, facing=facing, stands=stands, formation=formation), T)
    assert list(fp.polygon.exterior.coords)[:-1] == list(fp.corners)
    assert [list(s.exterior.coords)[:-1] for s in fp.stands] == [list(c) for c in fp.stand_corners]
    assert list(fp.front_edge.coords) == [fp.corners[0], fp.corners[1]]
    assert fp.stand_centres.tolist() == [list(c) for c in fp.stand_centre_points]
    assert len(fp.stand_corners) == max(stands, 1)
    assert fp.polygon.area == pytest.approx(fp.frontage_in * fp.depth)
    # every stand lies inside the unit's rectangle, and its centre is the centre of its corners
    for corners, centre in zip(fp.stand_corners, fp.stand_centre_points, strict=True):
        assert fp.polygon.buffer(1e-9).contains(fp.stands[fp.stand_corners.index(corners)])
        assert centre == pytest.approx((sum(c[0] for c in corners) / 4, sum(c[1] for c in corners) / 4))


def test_a_line_of_five_facing_east_has_its_colour_stand_in_the_middle():
    fp = footprint(inf(x=10, y=20, facing=90, stands=5), T)
    # facing +x: the front edge runs down the table (y grows to the unit's right)
    assert fp.corners[0] == pytest.approx((10, 20 - 2.5 * W))
    assert fp.corners[1] == pytest.approx((10, 20 + 2.5 * W))
    assert fp.corners[2] == pytest.approx((10 - D, 20 + 2.5 * W))
    colour = fp.stand_corners[fp.colour_index]
    assert colour[0] == pytest.approx((10, 20 - W / 2)) and colour[1] == pytest.approx((10, 20 + W / 2))


_CHILD = """
import sys
from rules.battlefield.geometry import footprint
from rules.battle.unit import Unit
from rules.battle.words import UnitKind
u = Unit(id="u", name="u", side="union", brigade="b", kind=UnitKind.INFANTRY, stands=4, stands_start=4)
fp = footprint(u)
print(len(fp.stand_corners), "numpy" in sys.modules, "shapely" in sys.modules)
fp.polygon
print("numpy" in sys.modules, "shapely" in sys.modules)
"""


def test_a_footprint_is_drawn_without_shapely_which_loads_for_the_first_shape():
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run(
        [sys.executable, "-c", _CHILD], env=env, cwd=root, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["4", "False", "False", "True", "True"]
