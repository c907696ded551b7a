"""How the map keeps its drawing cheap without showing a stale picture.

A unit fills its stands in two paths (the colour stand and the rest) and, like the terrain and
the names, keeps a picture of itself until it changes; a picture of the table drawn without a
view keeps its table and grid for the same transform. Each cache must give the very picture a
fresh drawing gives.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter, QTransform
from PySide6.QtWidgets import QGraphicsItem

from benchmarks.generate import big_battle
from gui.canvas import BattlefieldScene, NameLabel, UnitItem, unit_items
from gui.controller import GameController
from rules.actions import MoveUnit

SIZE = (720, 480)


@pytest.fixture
def big(qtbot, tmp_path):
    from storage.game import Game

    game = Game.create(tmp_path / "big.sqlite", big_battle(), seed=1)
    c = GameController()
    c.set_game(game, str(game.path))
    yield c
    c.close()


def _scene(controller) -> BattlefieldScene:
    scene = BattlefieldScene(controller)
    scene.set_battle(controller.battle)
    return scene


def _picture(scene: BattlefieldScene, target: QRectF | None = None, source: QRectF | None = None) -> QImage:
    img = QImage(*SIZE, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(0)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    scene.render(p, target or QRectF(0, 0, *SIZE), source or scene.table_rect)
    p.end()
    return img


def test_a_unit_fills_all_its_stands_in_two_paths_and_is_one_item(big):
    scene = _scene(big)
    u = next(u for u in big.battle.units.values() if u.stands >= 5)
    item = scene.units[u.id]
    assert isinstance(item, UnitItem)
    # no item per stand: its only children are the name and the name's leader line (and the wheel
    # handle, once the unit is selected alone)
    assert {type(c).__name__ for c in item.childItems()} == {"UnitName", "LeaderLine"}
    # every stand but the colour stand is a closed subpath of one path
    others = item._other_stands.toSubpathPolygons()
    assert len(others) == u.stands - 1
    assert len(item._colour_stand.toSubpathPolygons()) == 1
    assert item.cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache


def test_a_moved_unit_is_drawn_at_its_new_place_not_from_a_stale_picture(big):
    # (names hidden: after one move only the mover's name is placed again, so the names of a
    # fresh map may sit elsewhere; that is the names' layout, not the pictures kept)
    cached = _unnamed(_scene(big))
    before = _picture(cached)  # every item now keeps its picture
    u = big.battle.units["union-12"]
    big.run(MoveUnit(unit_id=u.id, x=u.x + 3, y=u.y - 4))
    after = _picture(cached)
    assert after == _picture(_unnamed(_scene(big)))
    assert after != before  # the move shows


def _unnamed(scene: BattlefieldScene) -> BattlefieldScene:
    scene.set_show_names(False)
    for it in scene.terrain.values():
        it.name_label.setVisible(False)
    return scene


def test_the_kept_table_and_grid_are_the_very_picture_drawn_afresh(big):
    scene = _scene(big)
    for source in (scene.table_rect, QRectF(10.3, 7.7, 40, 26.6)):
        t = QTransform()
        t.scale(SIZE[0] / source.width(), SIZE[1] / source.height())
        t.translate(-source.x(), -source.y())

        def draw(fn, t: QTransform = t, source: QRectF = source) -> QImage:
            img = QImage(*SIZE, QImage.Format.Format_ARGB32_Premultiplied)
            img.fill(0)
            p = QPainter(img)
            p.setRenderHint(QPainter.RenderHint.Antialiasing)
            p.setWorldTransform(t)
            fn(p, source)
            p.end()
            return img

        kept = draw(scene.drawBackground)
        key = scene._background_cache[0]
        again = draw(scene.drawBackground)  # copied from the kept image
        assert scene._background_cache[0] == key
        assert kept == again
        assert kept == draw(scene._paint_background)


def test_the_kept_background_follows_the_zoom_and_the_table_size(big):
    scene = _scene(big)
    _picture(scene)
    first = scene._background_cache
    _picture(scene, source=QRectF(0, 0, 72, 48))  # zoomed in
    assert scene._background_cache[0] != first[0]
    scene.table_rect = QRectF(0, 0, 100, 60)
    _picture(scene, source=QRectF(0, 0, 72, 48))
    assert scene._background_cache[2] is not None and scene._background_cache[0][2] == (100.0, 60.0)


def test_a_name_box_follows_its_text(qtbot, big):
    scene = _scene(big)
    label = next(iter(scene.units.values())).label
    assert isinstance(label, NameLabel)
    label.setText("8th Georgia")
    short = label.boundingRect().width()
    label.setText("8th Georgia Volunteer Infantry Regiment")
    assert label.boundingRect().width() > short + 40
    assert label.shape().boundingRect() == label.boundingRect()


def test_a_picture_larger_than_the_limit_keeps_no_background(big):
    from gui.canvas import _BACKGROUND_CACHE_PX

    scene = _scene(big)
    for it in [*scene.units.values(), *scene.terrain.values()]:
        it.setVisible(False)

    def draw(w: int, h: int) -> None:
        img = QImage(w, h, QImage.Format.Format_ARGB32_Premultiplied)
        p = QPainter(img)
        scene.render(p, QRectF(0, 0, w, h), scene.table_rect)
        p.end()

    big_w = 2520  # 144" x 96" at 17.5 pixels an inch: 2520 x 1680, just over the limit
    assert big_w * 1680 > _BACKGROUND_CACHE_PX
    draw(big_w, 1680)
    assert scene._background_cache is None
    small_w = 2400  # 2400 x 1600: just under it
    assert small_w * 1600 <= _BACKGROUND_CACHE_PX
    draw(small_w, 1600)
    assert scene._background_cache is not None


def test_the_pixmap_cache_is_sized_to_the_pictures_of_the_map_drawn(big):
    from PySide6.QtGui import QPixmapCache

    from gui.canvas.table_drawing import PIXMAP_CACHE_DEFAULT_KB

    old = QPixmapCache.cacheLimit()
    QPixmapCache.setCacheLimit(PIXMAP_CACHE_DEFAULT_KB)
    try:
        scene = _scene(big)
        px = SIZE[0] / scene.table_rect.width()
        need = scene.pixmap_cache_kb(px, QRectF(0, 0, *SIZE))
        assert need > PIXMAP_CACHE_DEFAULT_KB  # 500 pictures do not fit in Qt's 10 MB
        _picture(scene)
        assert QPixmapCache.cacheLimit() >= need
        # a picture drawn from scratch is the picture the kept pictures give
        assert _picture(scene) == _picture(scene)
    finally:
        QPixmapCache.setCacheLimit(max(old, QPixmapCache.cacheLimit()))


def test_a_map_drawn_once_keeps_no_pictures_and_draws_the_same(big):
    once = BattlefieldScene(big)
    once.set_item_caches(False)
    once.set_battle(big.battle)
    items = [*once.units.values(), *once.terrain.values()]
    labels = [it.label for it in once.units.values()] + [t.name_label for t in once.terrain.values()]
    assert all(it.cacheMode() == QGraphicsItem.CacheMode.NoCache for it in items + labels)
    u = big.battle.units["union-12"]
    big.run(MoveUnit(unit_id=u.id, x=u.x + 3, y=u.y - 4))  # a unit made anew keeps none either
    assert once.units["union-12"].cacheMode() == QGraphicsItem.CacheMode.NoCache
    fresh = BattlefieldScene(big)
    fresh.set_item_caches(False)
    fresh.set_battle(big.battle)
    assert _picture(_unnamed(once)) == _picture(_unnamed(fresh))  # the move shows


def test_a_ruling_that_leaves_a_unit_where_it_stood_keeps_its_stands_and_draws_as_afresh(big, monkeypatch):
    """A ruling on a unit's micro-hits or markers leaves its stands where they were: their paths
    are kept, not made again; a move makes them again. Either way the unit reads as a unit
    drawn afresh: the same stands, badges, bounds and boxes a name keeps clear of."""
    from rules.actions import Override
    from rules.battle.words import Marker

    scene = _scene(big)
    u = next(u for u in big.battle.units.values() if u.stands >= 5)
    item = scene.units[u.id]

    def as_afresh() -> None:
        # (a unit moved has its paths moved: the same to a millionth of an inch)
        fresh = UnitItem(big.battle.units[u.id], item.colour.name(), big.tables)
        for path in ("_other_stands", "_colour_stand", "_outline", "_arrow", "_shape"):
            mine = [[(p.x(), p.y()) for p in poly] for poly in getattr(item, path).toSubpathPolygons()]
            theirs = [[(p.x(), p.y()) for p in poly] for poly in getattr(fresh, path).toSubpathPolygons()]
            assert [len(p) for p in mine] == [len(p) for p in theirs], path
            for a, b in zip(mine, theirs, strict=True):
                assert [c for xy in a for c in xy] == pytest.approx([c for xy in b for c in xy], abs=1e-6), (
                    path
                )
        assert item._marker_list == fresh._marker_list
        assert item.boundingRect().getRect() == pytest.approx(fresh.boundingRect().getRect(), abs=1e-6)
        assert [c for box in item._stand_boxes for c in box] == pytest.approx(
            [c for box in fresh._stand_boxes for c in box], abs=1e-6
        )
        assert item._front.p1().toTuple() == pytest.approx(fresh._front.p1().toTuple(), abs=1e-6)
        assert item._origin.toTuple() == pytest.approx(fresh._origin.toTuple(), abs=1e-6)
        assert item.footprint == fresh.footprint and item._stand_corners == fresh._stand_corners

    stands = item._other_stands
    big.run(Override("unit", u.id, {"micro_hits": 1}, "ruled so"))
    assert item._other_stands is stands
    as_afresh()
    markers = sorted(m.value for m in u.markers | {Marker.DISORDER})
    big.run(Override("unit", u.id, {"markers": markers}, "ruled so"))
    assert item._other_stands is stands and Marker.DISORDER in item._marker_list
    as_afresh()
    big.run(MoveUnit(u.id, u.x + 1.0, u.y))
    assert item._other_stands is not stands
    as_afresh()
    # a move that only moves the unit moves its paths (the stands are not laid out again); a
    # turn lays them out again
    laid_out = []
    real = unit_items.refused_stands
    monkeypatch.setattr(unit_items, "refused_stands", lambda *a: laid_out.append(a) or real(*a))
    for dx, dy in ((0.3, -0.7), (0.1, 0.1), (-2.35, 1.05)):
        now = big.battle.units[u.id]
        big.run(MoveUnit(u.id, now.x + dx, now.y + dy))
        assert big.battle.units[u.id].x == pytest.approx(now.x + dx)
        assert not laid_out
        as_afresh()  # (which lays out a unit of its own)
        laid_out.clear()
    now = big.battle.units[u.id]
    big.run(MoveUnit(u.id, now.x, now.y, (now.facing_deg + 30) % 360))
    assert laid_out
    as_afresh()
    big.run(Override("unit", u.id, {"stands": u.stands - 1}, "volley"))
    assert len(item._other_stands.toSubpathPolygons()) == u.stands - 2
    as_afresh()
