"""The names on the map are placed again after a change from the grids of the stands, obstacles
and names kept between changes: only the units changed are taken out and put back. The grids kept
hold what grids built afresh from the map hold, and the names go where they would go with grids
built afresh at every change."""

from __future__ import annotations

import math

import pytest

from benchmarks.generate import big_battle
from gui.canvas import BattlefieldScene
from gui.canvas.label_grids import _Bits
from gui.controller import GameController
from rules.actions import MoveUnit, Override, RemoveUnit


def fresh_grids(scene: BattlefieldScene) -> tuple[_Bits, _Bits, _Bits]:
    """The grids of the map as it is: every shown unit's stands and glyph (with the pixel of room
    a name keeps from them), every obstacle, every name shown."""
    key = scene._label_grids[0]
    scale, (x, y, w, h), cell = key
    from PySide6.QtCore import QRectF

    area = QRectF(x, y, w, h)
    pad = 1.0 / scale
    solid, lines, taken = _Bits(area, cell), _Bits(area, cell, owned=False), _Bits(area, cell)
    for uid, it in scene.units.items():
        if it.isVisible():
            for r in it.solid_rects():
                solid.add(r.adjusted(-pad, -pad, pad, pad), uid)
            if it.label.isVisible():
                taken.add(scene.label_rect(it.label), uid)
    for t in scene.terrain.values():
        for r in t.obstacle_rects:
            lines.add(r)
        if t.name_label.isVisible():
            taken.add(scene.label_rect(t.name_label), ("terrain", t.feature.id))
    return solid, lines, taken


def contents(grid: _Bits) -> tuple:
    """What a grid holds: each row's cells, and each owner's."""
    return grid.rows, {owner: marks for owner, marks in grid.marks().items() if any(marks.values())}


@pytest.fixture
def two_maps(qtbot, tmp_path):
    """Two maps of one game: one keeps its grids, the other builds them afresh at every change."""
    from storage.game import Game

    game = Game.create(tmp_path / "big.sqlite", big_battle(), seed=1)
    c = GameController()
    c.set_game(game, str(game.path))
    kept, afresh = BattlefieldScene(c), BattlefieldScene(c)
    for scene in (kept, afresh):
        scene.set_battle(c.battle)
        scene.layout_labels(9.0)  # the zoom the names are placed for
    real = afresh.layout_labels
    afresh._label_grids = (afresh._label_grids[0], *fresh_grids(afresh))

    def with_fresh_grids(scale=None, only=None):
        # the change starts from grids built afresh from the map as it stood before it (what a
        # unit taken off the map frees is there to be freed), and after it they are built afresh
        real(scale, only)
        afresh._label_grids = (afresh._label_grids[0], *fresh_grids(afresh))

    afresh.layout_labels = with_fresh_grids
    yield c, kept, afresh
    c.close()


def changes(c):
    u = c.battle.unit("union-12")
    v = c.battle.unit("union-13")
    yield lambda: c.run(MoveUnit(u.id, u.x, u.y - 1.0))
    # onto the names of its neighbours: theirs are placed again
    yield lambda: c.run(MoveUnit(v.id, u.x + 0.5, u.y - 2.5))
    yield lambda: c.run(Override("unit", "csa-3", {"stands": 0}, "destroyed"))  # off the map
    yield lambda: c.run(RemoveUnit("union-40"))
    yield lambda: c.run_step(
        [
            MoveUnit(f"union-{i}", c.battle.unit(f"union-{i}").x, c.battle.unit(f"union-{i}").y - 2)
            for i in range(20, 34)
        ]
    )
    yield c.undo  # fourteen units back
    yield c.undo
    yield c.redo
    yield c.undo
    yield c.undo


def test_the_grids_kept_are_those_of_the_map_and_the_names_go_where_fresh_grids_put_them(two_maps):
    c, kept, afresh = two_maps
    for n, change in enumerate(changes(c), 1):
        change()
        _key, *mine = kept._label_grids
        want = fresh_grids(kept)
        for a, b in zip(mine, want, strict=True):
            assert contents(a) == contents(b), f"after change {n}"
        assert {u: (it.label.pos(), it.label.isVisible()) for u, it in kept.units.items()} == {
            u: (it.label.pos(), it.label.isVisible()) for u, it in afresh.units.items()
        }, f"after change {n}"


def test_a_move_places_only_the_names_it_touches(two_maps, monkeypatch):
    c, kept, _afresh = two_maps
    placed = []
    for it in kept.units.values():
        real = it.label.setPos
        monkeypatch.setattr(
            it.label, "setPos", lambda p, real=real, u=it.unit_id: placed.append(u) or real(p)
        )
    u = c.battle.unit("union-12")
    c.run(MoveUnit(u.id, u.x, u.y - 1.0))
    assert "union-12" in placed
    assert len(set(placed)) < 5  # the unit's name, and those its stands now cover


def test_a_name_that_a_move_covers_is_placed_again(two_maps):
    c, kept, _afresh = two_maps
    other = kept.units["union-13"]
    spot = kept.label_rect(other.label).center()
    u = c.battle.unit("union-12")
    item = kept.units["union-12"]
    # the front of union-12 moved onto the middle of union-13's name
    front = item.stand_rects[0].center()
    c.run(MoveUnit(u.id, round(u.x + spot.x() - front.x(), 2), round(u.y + spot.y() - front.y(), 2)))
    stands = [r for r in kept.units["union-12"].stand_rects]
    assert any(r.contains(spot) for r in stands)  # it now stands where the name was
    name = kept.label_rect(other.label)
    assert not any(r.intersects(name) for r in stands)  # and the name moved clear of it


def test_a_name_left_off_comes_back_when_a_change_makes_room_near_it_and_only_then(
    qtbot, tmp_path, monkeypatch
):
    """Zoomed out, a crowded table leaves some names off. Moving a unit far from such a name does
    not look for room for it again (nothing near it changed); taking away the units round it does,
    and the name is placed, clear of the others."""
    from gui.canvas import label_places
    from storage.game import Game

    game = Game.create(tmp_path / "big.sqlite", big_battle(), seed=1)
    c = GameController()
    c.set_game(game, str(game.path))
    scene = BattlefieldScene(c)
    scene.set_battle(c.battle)
    scene.layout_labels(6.0)
    off = [u for u, it in scene.units.items() if it.isVisible() and not it.label.isVisible()]
    assert off, "at this zoom some names are left off"
    uid = off[0]
    item = scene.units[uid]
    centre = item.footprint.centre
    tried: list[str] = []
    real_beside = label_places._beside
    monkeypatch.setattr(
        label_places, "_beside", lambda it, w, h: tried.append(it.unit_id) or real_beside(it, w, h)
    )
    far = max(
        (u for u in c.battle.units.values() if u.id != uid),
        key=lambda u: math.dist((u.x, u.y), centre),
    )
    c.run(MoveUnit(far.id, far.x, far.y + 0.5))
    assert uid not in tried and not item.label.isVisible()
    near = [u.id for u in c.battle.units.values() if u.id != uid and math.dist((u.x, u.y), centre) < 8]
    assert near
    c.run_step([RemoveUnit(u) for u in near])
    assert uid in tried and item.label.isVisible()
    name = scene.label_rect(item.label)
    for other, it in scene.units.items():
        if other != uid and it.isVisible():
            assert not any(r.translated(it.pos()).intersects(name) for r in it.stand_rects)
            if it.label.isVisible():
                assert not scene.label_rect(it.label).intersects(name)
    c.close()


def test_a_change_that_leaves_a_unit_where_and_as_it_was_places_no_name(two_maps, monkeypatch):
    """A ruling on a unit's micro-hits, zoomed out (its glyph says the stands only), leaves its
    place, its look and its name as they were: no name is placed again, and its name stays put."""
    from gui.canvas import label_places

    c, kept, _afresh = two_maps
    kept.layout_labels(6.0)  # zoomed out: the glyph shows the stands left, not the micro-hits
    it = kept.units["union-12"]
    where = (it.label.pos(), it.label.isVisible())
    tried: list[str] = []
    real_beside = label_places._beside
    monkeypatch.setattr(
        label_places,
        "_beside",
        lambda it, w, h: (it.scene() is kept and tried.append(it.unit_id)) or real_beside(it, w, h),
    )
    u = c.battle.unit("union-12")
    c.run(Override("unit", u.id, {"micro_hits": (u.micro_hits + 1) % 2}, "ruled so"))
    assert tried == [] and (it.label.pos(), it.label.isVisible()) == where
    c.run(MoveUnit(u.id, u.x, u.y - 1.0))  # a move places it again
    assert "union-12" in tried


def test_a_name_that_moved_aside_keeps_its_place_by_its_unit_when_the_unit_is_nudged(two_maps, monkeypatch):
    """A name with no room beside its unit, moved aside with a leader line, goes back where it was
    by its unit after a move that leaves the unit facing as it did (while that place is free),
    without looking round the unit again; a unit that turned looks again."""
    import gui.canvas.label_places as label_places

    c, kept, _afresh = two_maps
    aside = [u for u, it in kept.units.items() if it.leader.isVisible() and it.label.isVisible()]
    assert aside  # the big battle at this zoom has names that had to move aside
    looked: list[str] = []
    real_ring = label_places._ring
    monkeypatch.setattr(label_places, "_ring", lambda it, *a: looked.append(it.unit_id) or real_ring(it, *a))

    def offset(uid: str) -> tuple[float, float]:
        it = kept.units[uid]
        r = kept.label_rect(it.label)
        return r.center().x() - it.footprint.centre[0], r.center().y() - it.footprint.centre[1]

    kept_places = 0
    for uid in aside[:6]:
        before = offset(uid)
        u = c.battle.unit(uid)
        c.run(MoveUnit(uid, round(u.x + 0.1, 3), u.y))
        assert c.battle.unit(uid).x == pytest.approx(u.x + 0.1)
        it = kept.units[uid]
        if it.leader.isVisible() and offset(uid) == pytest.approx(before, abs=1e-6):
            kept_places += 1
            assert uid not in looked  # not looked for round the unit
        looked.clear()
    assert kept_places >= 3
    # turned, the unit's name is placed afresh: beside it, or aside where the rings find room
    searched = 0
    for uid in aside:
        u = c.battle.unit(uid)
        looked.clear()
        c.run(MoveUnit(uid, u.x, u.y, (u.facing_deg + 180) % 360))
        it = kept.units[uid]
        if it.leader.isVisible():
            assert uid in looked
            searched += 1
    assert searched


def test_a_name_moved_aside_comes_back_by_its_unit_when_the_units_beside_it_go_and_aside_when_they_return(
    two_maps,
):
    """A name that had no room beside its unit (moved aside, with a leader line) comes back beside
    it once the units that took the room there go; their Undo puts them back, and the name moves
    aside again, clear of them. A name is by its unit whenever there is room by it."""
    c, kept, _afresh = two_maps
    aside = [u for u, it in kept.units.items() if it.leader.isVisible() and it.label.isVisible()]
    assert aside
    back = 0
    for uid in aside[:8]:
        it = kept.units[uid]
        centre = it.footprint.centre
        near = [
            u.id
            for u in c.battle.oob.in_play()
            if u.id != uid and math.dist((u.x, u.y), centre) < 5 and u.id in kept.units
        ]
        if not near:
            continue
        c.run_step([RemoveUnit(u) for u in near])
        if it.label.isVisible() and not it.leader.isVisible():
            back += 1  # beside its unit, no leader
            name = kept.label_rect(it.label)
            fp = it.footprint
            by = math.hypot(fp.frontage_in, fp.depth) / 2 + max(name.width(), name.height())
            assert math.dist((name.center().x(), name.center().y()), centre) <= by
        c.undo()
        name = kept.label_rect(it.label)
        for other in near:  # the units back, the name is clear of them
            o = kept.units[other]
            assert not any(r.translated(o.pos()).intersects(name) for r in o.stand_rects)
    assert back >= 3


@pytest.mark.parametrize("facing", [0.0, 90.0, 180.0, 270.0])
def test_a_name_with_room_round_its_unit_sits_right_by_it_whatever_the_facing(qtbot, tmp_path, facing):
    """With nothing else near, a long name sits right behind its unit (a name is drawn level:
    what it reaches along a unit facing north or south is its height, not its width), clear of it."""
    from dataclasses import replace

    from storage.game import Game
    from storage.scenario import load_demo

    demo = load_demo()
    gun = replace(demo.unit("batb4us"), x=64.0, y=43.0, facing_deg=facing)  # the empty corner
    alone = replace(demo.with_unit(gun), terrain=())
    game = Game.create(tmp_path / "alone.sqlite", alone)
    c = GameController()
    c.set_game(game, str(game.path))
    scene = BattlefieldScene(c)
    scene.set_battle(c.battle)
    scene.layout_labels(11.0)  # full names: "Battery B, 4th US Artillery", some 15" long
    it = scene.units[gun.id]
    name = scene.label_rect(it.label)
    assert it.label.isVisible() and not it.leader.isVisible()
    stands = [r.translated(it.pos()) for r in it.stand_rects]
    assert not any(r.intersects(name) for r in stands)
    unit = stands[0]
    for r in stands[1:]:
        unit = unit.united(r)
    gap = max(
        unit.left() - name.right(),
        name.left() - unit.right(),
        unit.top() - name.bottom(),
        name.top() - unit.bottom(),
    )
    assert gap <= 1.2, gap  # right by it (its markers and glyph may stand between)
    c.close()
