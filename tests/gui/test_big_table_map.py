"""The map at club scale: the Gettysburg battle of 150 units reads at a glance.

Every name stays with its unit (beside it, or joined to it by a leader line), short when zoomed
out and full when zoomed in; at fit-to-view in a 1366 x 768 window no two names overlap and no
name covers a unit. Each unit's own glyph shows its health, stands and micro-hits. The inch scale
stays in the view's corner; a sight line or a ruler is redrawn or taken off when the game changes
under it; terrain editing is a mode that shows, terrain is fixed outside it, and an edit is logged
and undone like any action.
"""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import QPointF, QRect, Qt
from PySide6.QtGui import QColor

from gui import icons
from gui.canvas.labels import short_name
from gui.canvas.unit_items import GLYPH_H_PX, glyph_text
from rules.actions import EditUnit, MoveUnit, NextPhase, RemoveUnit
from rules.battle.words import Health
from storage.game import Game
from storage.scenario import load_bundled

LAPTOP = QRect(0, 0, 1366, 768)


@pytest.fixture
def laptop(monkeypatch):
    """A 1366 x 768 screen, for the window's size and the arrangement of its docks."""
    from gui import screens

    monkeypatch.setattr(screens, "available", lambda widget=None: QRect(LAPTOP))
    return LAPTOP


def _fitted(qtbot, window_on, path, scenario):
    """The main window on a new game of a bundled battle, its docks as they come and the whole
    table in view, the names placed for that zoom."""
    win = window_on(Game.create(path, load_bundled(scenario)))
    qtbot.wait(20)
    win.apply_default_dock_sizes()
    qtbot.wait(20)
    win.canvas.view.fit_table()
    win.canvas.scene.layout_labels(win.canvas.view.zoom)
    return win


@pytest.fixture
def big_window(qtbot, tmp_path, laptop, window_on):
    return _fitted(qtbot, window_on, tmp_path / "gettysburg.sqlite", "gettysburg")


def unit_shapes(scene):
    """Each unit's stands and health glyph as a path in scene inches."""
    out = {}
    for uid, it in scene.units.items():
        if it.isVisible():
            path = it.shape().translated(it.pos())
            path.addRect(it.glyph_rect().translated(it.pos()))
            out[uid] = path
    return out


def test_short_names_are_a_regiments_number_and_state_or_a_batterys_letter_or_captain():
    assert short_name("26th North Carolina") == "26 NC"
    assert short_name("2nd North Carolina Battalion") == "2 NC Bn"
    assert short_name("8th Illinois Cavalry") == "8 IL Cav"
    assert short_name("Battery B, 4th US Artillery (Stewart)") == "B/4 US"
    assert short_name("Battery B, 4th US Artillery") == "B/4 US"
    assert short_name("2nd Maine Battery (Hall)") == "2 ME Bty"
    assert short_name("Donaldsonville Artillery (Maurin)") == "Maurin"
    assert short_name("Brooke's Battery") == "Brooke"
    assert short_name("14th Brooklyn (84th New York)") == "14 Brooklyn"
    assert short_name("Iron Brigade skirmishers") == "Iron Brigad…"
    # the second day's batteries and legions: a captain's own, two batteries under one captain
    assert short_name("Parker's Virginia Battery") == "Parker"
    assert short_name("Pennsylvania Batteries C and F (Thompson)") == "Thompson"
    assert short_name("Cobb's Georgia Legion") == "Cobb Legion"
    assert short_name("Phillips Georgia Legion") == "Phillips Legion"
    assert short_name("Hart's South Carolina Battery") == "Hart"
    assert short_name("Jeff Davis Legion") == "Jeff Davis…"  # not a state: the name is kept, cut


def test_the_window_fits_the_laptop_screen(big_window, laptop):
    frame = big_window.frameGeometry()
    assert frame.width() <= laptop.width() and frame.height() <= laptop.height()
    # a small screen: the map has the full height; the roster, inspector and log are on the left
    left = Qt.DockWidgetArea.LeftDockWidgetArea
    for key in ("roster", "inspector", "log"):
        assert big_window.dockWidgetArea(big_window.docks[key]) == left, key
    vp = big_window.canvas.view.viewport()
    assert vp.height() >= 0.75 * laptop.height() and vp.width() >= 0.6 * laptop.width()


def test_at_fit_to_view_no_two_names_overlap_and_no_name_covers_a_unit(big_window):
    on_table = [it for it in big_window.canvas.scene.units.values() if it.unit.in_play]
    assert len(on_table) >= 146
    _names_read_at_fit_to_view(big_window)


@pytest.fixture(params=["gettysburg_day2", "cemetery_ridge"])
def library_window(request, qtbot, tmp_path, laptop, window_on):
    return _fitted(qtbot, window_on, tmp_path / f"{request.param}.sqlite", request.param)


def test_each_battle_of_the_library_reads_at_fit_to_view_on_the_laptop(library_window):
    """The second day's battles as Gettysburg's first: at fit-to-view in a 1366 x 768 window nearly
    every unit on the table is named, by its unit, and no name overlaps another or covers a unit."""
    on_table = [it for it in library_window.canvas.scene.units.values() if it.unit.in_play]
    assert len(on_table) >= 95
    _names_read_at_fit_to_view(library_window)


def _names_read_at_fit_to_view(win):
    scene = win.canvas.scene
    on_table = [it for it in scene.units.values() if it.unit.in_play]
    assert not any(it.isVisible() for it in scene.units.values() if not it.unit.in_play)
    shown = [it for it in on_table if it.label.isVisible()]
    # nearly every unit is named at the zoom that shows the whole table, each by its unit: a name
    # with no room within a foot of its unit is left off (it shows on hover, and zoomed in)
    assert len(shown) >= 0.9 * len(on_table)
    rects = {it.unit_id: scene.label_rect(it.label) for it in shown}
    for it in shown:
        fp, p, r = it.footprint, it.pos(), rects[it.unit_id]
        far = math.dist((fp.centre[0] + p.x(), fp.centre[1] + p.y()), (r.center().x(), r.center().y()))
        reach = math.hypot(fp.frontage_in, fp.depth) / 2 + max(r.width(), r.height()) / 2
        assert far <= reach + 12.0, (it.unit_id, far - reach)  # never more than 12" from its unit
    terrain = [scene.label_rect(t.name_label) for t in scene.terrain.values() if t.name_label.isVisible()]
    boxes = [*rects.values(), *terrain]
    overlaps = sum(1 for i, a in enumerate(boxes) for b in boxes[i + 1 :] if a.intersects(b))
    assert overlaps == 0
    shapes = unit_shapes(scene)
    covering = [(uid, other) for uid, r in rects.items() for other, p in shapes.items() if p.intersects(r)]
    covering += [("terrain", other) for r in terrain for other, p in shapes.items() if p.intersects(r)]
    assert covering == []
    assert all(scene.table_rect.contains(r) for r in boxes)


def test_a_name_moved_aside_has_a_leader_line_to_its_unit_and_zoomed_out_names_are_short(big_window):
    scene = big_window.canvas.scene
    assert big_window.canvas.view.zoom < scene.FULL_NAMES_PX
    aside = [it for it in scene.units.values() if it.leader.isVisible()]
    assert aside, "at fit-to-view some names have to move aside"
    for it in aside:
        line = it.leader.line().translated(it.pos())
        rect = scene.label_rect(it.label).adjusted(-0.05, -0.05, 0.05, 0.05)
        assert rect.contains(line.p2()), it.unit.name  # one end on the name's box
        fp = it.footprint
        rear = (fp.centre[0] - fp.forward[0] * fp.depth / 2, fp.centre[1] - fp.forward[1] * fp.depth / 2)
        ends = [QPointF(*p) + it.pos() for p in (fp.centre_front, fp.left_front, fp.right_front, rear)]
        near = min(math.dist((e.x(), e.y()), (line.p1().x(), line.p1().y())) for e in ends)
        assert near < 0.01, it.unit.name  # the other on the unit's edge
    for it in scene.units.values():
        if it.unit.in_play:  # (those still to arrive are not on the map)
            assert it.label.text() == short_name(it.unit.name)


def test_zoomed_in_a_unit_has_its_full_name_beside_it(big_window):
    view, scene = big_window.canvas.view, big_window.canvas.scene
    view.set_zoom(24.0)
    it = scene.units["wi2"]
    view.centerOn(it.sceneBoundingRect().center())
    scene.layout_labels(view.zoom)
    assert it.label.text() == "2nd Wisconsin" and not it.leader.isVisible()
    # zoomed in, the names still keep clear of each other and of every unit
    rects = [scene.label_rect(u.label) for u in scene.units.values() if u.label.isVisible()]
    assert sum(1 for i, a in enumerate(rects) for b in rects[i + 1 :] if a.intersects(b)) == 0


def test_the_health_glyph_shows_health_stands_and_micro_hits_readable_at_fit(big_window):
    scene, c = big_window.canvas.scene, big_window.controller
    wi2 = scene.units["wi2"]  # 3 of 5 stands after the morning: worn
    assert wi2.unit.health == Health.WORN
    assert wi2._glyph_colour == QColor(icons.HEALTH_COLOUR[Health.WORN])
    assert wi2._glyph_text == "3"  # zoomed out: the stands left
    rect = wi2.glyph_rect()
    px = rect.height() * big_window.canvas.view.zoom
    assert px == pytest.approx(GLYPH_H_PX)  # the same size on screen at any zoom: readable at fit
    assert scene.units["nc26"]._glyph_colour == QColor(icons.HEALTH_COLOUR[Health.FRESH])
    c.run(EditUnit(unit_id="nc26", values={"stands": 3, "micro_hits": 1}))
    nc26 = scene.units["nc26"]
    assert nc26.unit.health == Health.SPENT
    assert nc26._glyph_colour == QColor(icons.HEALTH_COLOUR[Health.SPENT])
    assert glyph_text(nc26.unit) == "3/12 +1" and glyph_text(nc26.unit, full=False) == "3"
    big_window.canvas.view.set_zoom(20.0)
    scene.layout_labels(20.0)
    assert nc26._glyph_text == "3/12 +1"  # zoomed in: of the starting stands, and the micro-hit
    # the glyph is drawn on the map: the unit's picture has the health colour at its centre
    from PySide6.QtGui import QImage, QPainter

    img = QImage(200, 200, QImage.Format.Format_ARGB32)
    img.fill(0)
    p = QPainter(img)
    r = nc26.sceneBoundingRect()
    scene.render(p, img.rect().toRectF(), r.adjusted(-1, -1, 1, 1))
    p.end()
    reds = sum(
        1
        for x in range(0, 200, 2)
        for y in range(0, 200, 2)
        if QColor(img.pixel(x, y)).name() == icons.HEALTH_COLOUR[Health.SPENT]
    )
    assert reds > 20


def test_the_inch_scale_stays_in_the_views_corner_whatever_the_zoom_or_scroll(qtbot, big_window):
    view = big_window.canvas.view
    bar = view.scale_bar

    def corner():
        """Where the bar is from the viewport's bottom-left corner (the scroll bars come and go)."""
        vp = view.viewport().geometry()
        g = bar.geometry()
        return g.left() - vp.left(), vp.bottom() - g.bottom()

    first = corner()
    assert bar.isVisible() and view.viewport().geometry().contains(bar.geometry())
    for z in (8.0, 31.0):
        view.set_zoom(z)
        view.pan_by(120, 80)
        qtbot.wait(10)
        assert corner() == first
        assert view.viewport().geometry().contains(bar.geometry())
        assert bar.px_per_in == pytest.approx(view.zoom)
        assert 50 <= bar.bar_px() <= 200  # a round number of inches about a hundred pixels long
    assert bar.inches in bar.STEPS


def test_a_sight_line_is_redrawn_and_a_ruler_measured_again_when_the_game_changes_under_them(big_window):
    scene, c = big_window.canvas.scene, big_window.controller
    los = scene.show_line_of_sight("va40", "pa149")
    assert los is not None and scene._los_pair == ("va40", "pa149")
    before = [it.line() for it in scene._los_items if hasattr(it, "line")][0]
    c.run(MoveUnit(unit_id="va40", x=27.0, y=44.0, facing_deg=90.0))  # the umpire's placement
    after = [it.line() for it in scene._los_items if hasattr(it, "line")][0]
    assert after.p1() != before.p1()  # drawn again from where the viewer stands now
    assert (after.p1().x(), after.p1().y()) == pytest.approx((27.0, 44.0), abs=0.01)
    # a unit it joined is gone: the line is taken off rather than left standing
    c.run(RemoveUnit(unit_id="pa149"))
    assert scene._los_items == [] and scene._los_pair is None
    # the ruler between two units is measured again after one moves; undo too
    scene.set_tool("ruler")
    ruler = scene._modes["ruler"]
    scene._measure_from = "va40"
    scene._measure_start = scene.units["va40"]._origin
    from PySide6.QtWidgets import QGraphicsLineItem, QGraphicsSimpleTextItem

    scene._measure_line = QGraphicsLineItem()
    scene._measure_label = QGraphicsSimpleTextItem()
    scene.addItem(scene._measure_line)
    scene.addItem(scene._measure_label)
    target = scene.units["pa143"]
    ruler.measure(QPointF(*target.footprint.centre), final=True)
    first = scene._measure_label.text()
    assert "to 143rd Pennsylvania" in first and scene._ruler_pair == ("va40", "pa143")
    c.run(MoveUnit(unit_id="va40", x=29.0, y=46.0, facing_deg=90.0))
    assert scene._measure_label.text() != first and "to 143rd Pennsylvania" in scene._measure_label.text()
    c.undo()
    assert scene._measure_label.text() == first


def test_terrain_edit_mode_shows_and_esc_leaves_it(qtbot, big_window):
    canvas = big_window.canvas
    view = canvas.view
    assert not view.banner.isVisible()
    canvas.edit_terrain.click()
    assert canvas.scene.terrain_editing
    assert view.banner.isVisible() and "Editing terrain" in view.banner.text() and "Esc" in view.banner.text()
    assert view.viewport().cursor().shape() == Qt.CursorShape.SizeAllCursor
    assert canvas.scene.terrain["oak_hill"].cursor().shape() == Qt.CursorShape.SizeAllCursor
    qtbot.keyClick(view.viewport(), Qt.Key.Key_Escape)
    assert not canvas.scene.terrain_editing
    assert not canvas.edit_terrain.isChecked() and not view.banner.isVisible()
    assert view.viewport().cursor().shape() != Qt.CursorShape.SizeAllCursor


def _drag(qtbot, view, a, b, steps=6):
    vp = view.viewport()
    pa, pb = view.mapFromScene(QPointF(*a)), view.mapFromScene(QPointF(*b))
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=pa)
    for i in range(1, steps + 1):
        qtbot.mouseMove(vp, pa + (pb - pa) * (i / steps))
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=pb)


def test_terrain_is_fixed_in_play_and_an_edit_in_the_mode_is_logged_and_undone(qtbot, tmp_path):
    """On the demo table: a drag on Oak Ridge outside the mode moves nothing; inside it, it is one
    edit, said in the log, and Undo puts the ridge back."""
    from gui.canvas import CanvasWidget
    from gui.controller import GameController
    from storage.scenario import load_demo

    game = Game.create(tmp_path / "demo.sqlite", load_demo(), seed=3)
    c = GameController()
    w = CanvasWidget(c)
    qtbot.addWidget(w)
    c.set_game(game, str(game.path))
    w.resize(1000, 700)
    w.show()
    qtbot.waitExposed(w)
    w.view.fit_table()
    c.run(NextPhase())  # the game is under way
    ridge = c.battle.feature("oak_ridge")
    n = len(c.events())
    _drag(qtbot, w.view, (20.0, 8.0), (26.0, 8.0))  # an empty part of the ridge
    assert c.battle.feature("oak_ridge") == ridge and len(c.events()) == n
    assert w.scene.terrain["oak_ridge"].pos() == QPointF(0, 0)
    w.edit_terrain.click()
    _drag(qtbot, w.view, (20.0, 8.0), (26.0, 8.0))
    moved = c.battle.feature("oak_ridge")
    assert moved.points[0][0] == pytest.approx(ridge.points[0][0] + 6, abs=0.2)
    assert moved.crest[0][0] == pytest.approx(ridge.crest[0][0] + 6, abs=0.2)  # its crest goes with it
    events = c.events()
    assert len(events) == n + 1 and events[-1].action.type == "edit_terrain"
    assert 'Oak Ridge edited: moved 6.0" right' in events[-1].summary
    c.undo()
    assert c.battle.feature("oak_ridge") == ridge
    game.close()
