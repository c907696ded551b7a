"""The names on the map are placed again after a change from indexes of the stands, obstacles and
names kept between changes: only the units changed are taken out and put back. The indexes kept
hold what indexes built afresh from the map hold, and the names go where they would go with
indexes built afresh at every change."""

from __future__ import annotations

import pytest

from benchmarks.generate import big_battle
from gui.canvas import BattlefieldScene
from gui.canvas.labels import _RectIndex
from gui.controller import GameController
from rules.actions import MoveUnit, Override, RemoveUnit


def fresh_indexes(scene: BattlefieldScene) -> tuple[_RectIndex, _RectIndex, _RectIndex]:
    """The indexes of the map as it is: every shown unit's stands, every obstacle, every name."""
    solid, lines, taken = _RectIndex(), _RectIndex(), _RectIndex()
    for uid, it in scene.units.items():
        if it.isVisible():
            for r in it.stand_rects:
                solid.add(r.translated(it.pos()), uid)
            taken.add(scene.label_rect(it.label), uid)
    for fid, t in scene.terrain.items():
        for r in t.obstacle_rects:
            lines.add(r, fid)
        if t.name_label.isVisible():
            taken.add(scene.label_rect(t.name_label), ("terrain", fid))
    return solid, lines, taken


def contents(index: _RectIndex) -> dict:
    return {key: sorted(tuple(round(x, 9) for x in r) for r in index.rects(key)) for key in index._of}


@pytest.fixture
def two_maps(qtbot, tmp_path):
    """Two maps of one game: one keeps its indexes, the other builds them afresh at every change."""
    from storage.game import Game

    game = Game.create(tmp_path / "big.sqlite", big_battle(), seed=1)
    c = GameController()
    c.set_game(game, str(game.path))
    kept, afresh = BattlefieldScene(c), BattlefieldScene(c)
    for scene in (kept, afresh):
        scene.set_battle(c.battle)
    real = afresh.layout_labels

    def with_fresh_indexes(scale=None, only=None):
        afresh._label_indexes = fresh_indexes(afresh)
        real(scale, only)

    afresh.layout_labels = with_fresh_indexes
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
    yield lambda: c.run_many(
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


def test_the_indexes_kept_are_those_of_the_map_and_the_names_go_where_fresh_indexes_put_them(two_maps):
    c, kept, afresh = two_maps
    for n, change in enumerate(changes(c), 1):
        change()
        assert kept._label_indexes is not None
        want = fresh_indexes(kept)
        for mine, theirs in zip(kept._label_indexes, want, strict=True):
            assert contents(mine) == contents(theirs), f"after change {n}"
        assert {u: it.label.pos() for u, it in kept.units.items()} == {
            u: it.label.pos() for u, it in afresh.units.items()
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
