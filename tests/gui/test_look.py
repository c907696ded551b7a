"""How Brigadier looks to the umpire: no line said twice in the log and the report, map labels
that do not overlap, the table filling the view, plain words in the inspector, roster and dialogs."""

from __future__ import annotations

import html

import pytest

from gui import report, report_html
from gui.log_text import event_html
from gui.log_view import LogView
from rules.actions import MoveUnit, NextPhase


def _texts(item):
    out = [item.text(0)]
    for i in range(item.childCount()):
        out += _texts(item.child(i))
    return out


def test_log_does_not_repeat_a_step_that_says_the_same_as_its_event(qtbot, controller):
    controller.run(NextPhase())
    log = LogView(controller)
    qtbot.addWidget(log)
    e = controller.events()[-1]
    assert [s.text for s in e.steps] == [e.summary]  # the phase change is one line
    item = log._items[e.seq]
    assert item.childCount() == 0
    texts = [t for i in range(log.tree.topLevelItemCount()) for t in _texts(log.tree.topLevelItem(i))]
    assert sum(e.summary in t for t in texts) == 1
    assert event_html(e).count(html.escape(e.summary)) == 1


def test_log_still_lists_the_steps_that_add_to_the_summary(qtbot, controller):
    controller.run(NextPhase())
    u = controller.battle.units["ind19"]
    controller.run(MoveUnit(unit_id="ind19", x=u.x, y=u.y - 1.0, facing_deg=u.facing_deg))
    e = controller.events()[-1]
    log = LogView(controller)
    qtbot.addWidget(log)
    item = log._items[e.seq]
    distinct = [s for s in e.steps if s.text != e.summary]
    assert item.childCount() in (0, len(distinct))
    for s in distinct:
        assert s.text in event_html(e)


def test_report_does_not_print_a_step_that_says_the_same_as_its_event(game):
    game.do(NextPhase())
    s = report.build_turn_summary(game, 1)
    text = report_html.summary_html(s, None, None).split("Events</h2>", 1)[1]
    ev = s.events[-1]
    assert text.count(html.escape(ev.summary)) == 1


def test_inspector_names_a_batterys_guns_in_words_and_leaves_out_its_weapon(qtbot, controller):
    from gui.inspector import InspectorView

    v = InspectorView(controller)
    qtbot.addWidget(v)
    battery = next(u for u in controller.battle.units.values() if u.gun is not None)
    controller.select([battery.id])
    text = v.facts.text()
    assert "12-pounder Napoleons" in text
    assert "none" not in text.lower().split("<br>")[0]
    controller.select(["wis2"])
    assert "rifled musket" in v.facts.text()


def test_inspector_says_the_brigadier_is_in_command_or_what_befell_him(qtbot, controller):
    from dataclasses import replace

    from gui.inspector import InspectorView, brigade_line
    from rules.battle.words import BrigadierStatus

    v = InspectorView(controller)
    qtbot.addWidget(v)
    controller.select(["wis2"])
    assert v.brigade_label.text() == "Iron Brigade — Meredith, in command"
    assert "active" not in v.brigade_label.text()
    br = controller.battle.brigades["iron"]
    wounded = replace(br, brigadier=replace(br.brigadier, status=BrigadierStatus.WOUNDED))
    assert brigade_line(wounded) == "Iron Brigade — Meredith, wounded"


def test_roster_names_are_whole_and_its_symbols_explained(qtbot, controller):
    from PySide6.QtGui import QFontMetrics

    from gui.roster import RosterView
    from gui.roster_model import COL_FORMATION, COL_NAME, COL_STANDS

    v = RosterView(controller)
    qtbot.addWidget(v)
    v.resize(v.wanted_width(), 500)
    v.show()
    qtbot.waitExposed(v)
    fm = QFontMetrics(v.tree.font())
    width = v.tree.columnWidth(COL_NAME)
    indent = 2 * v.tree.indentation() + 24  # the deepest rows, with their icon
    for u in controller.battle.units.values():
        assert fm.horizontalAdvance(u.name) + indent <= width, u.name
    assert not v.tree.horizontalScrollBar().isVisible()
    header = v.model.horizontalHeaderItem
    assert "micro-hit" in header(COL_STANDS).toolTip().lower()
    assert "●" in header(COL_FORMATION).toolTip() and "◐" in header(COL_FORMATION).toolTip()
    assert "◐ reserved" in v.legend.text() and "+1 a micro-hit" in v.legend.text()


@pytest.fixture
def demo_canvas(qtbot, tmp_path):
    from gui.canvas import CanvasWidget
    from gui.controller import GameController
    from storage.game import Game
    from storage.scenario import load_demo

    game = Game.create(tmp_path / "demo.sqlite", load_demo(), seed=1863)
    c = GameController()
    w = CanvasWidget(c)
    qtbot.addWidget(w)
    c.set_game(game, str(game.path))
    w.resize(1000, 720)
    w.show()
    qtbot.waitExposed(w)
    w.view.fit_table()
    w.scene.layout_labels(w.view.zoom)
    yield w
    game.close()


def test_demo_map_names_overlap_neither_each_other_nor_any_stand(demo_canvas):
    scene = demo_canvas.scene
    labels = [it.label for it in scene.units.values()] + [
        t.name_label for t in scene.terrain.values() if t.name_label.isVisible()
    ]
    rects = [scene.label_rect(lab) for lab in labels]
    for i, a in enumerate(rects):
        assert scene.table_rect.contains(a), labels[i].text()
        for j in range(i + 1, len(rects)):
            assert not a.intersects(rects[j]), (labels[i].text(), labels[j].text())
    for it in scene.units.values():
        for other in scene.units.values():
            for stand in other.stand_rects:
                assert not scene.label_rect(it.label).intersects(stand), (it.unit.name, other.unit.name)


def test_a_units_name_goes_behind_it_when_that_place_is_free(demo_canvas):
    scene = demo_canvas.scene
    it = scene.units["nc7"]  # nothing behind the 7th North Carolina on the demo table
    r = scene.label_rect(it.label)
    fx, fy = it.footprint.forward
    cx, cy = it.footprint.centre
    # behind: the name's centre is on the far side of the unit from where it faces
    assert (r.center().x() - cx) * fx + (r.center().y() - cy) * fy < -it.footprint.depth / 2


def test_names_are_placed_again_for_the_zoom(demo_canvas):
    scene = demo_canvas.scene
    before = scene.label_rect(scene.units["va5"].label)
    scene.layout_labels(demo_canvas.view.zoom * 3)
    after = scene.label_rect(scene.units["va5"].label)
    assert after.width() == pytest.approx(before.width() / 3, rel=0.01)


def test_the_table_fills_the_view_on_open_and_on_resize_until_the_umpire_zooms(qtbot, demo_canvas):
    view = demo_canvas.view

    def filled() -> float:
        r = view.mapFromScene(demo_canvas.scene.table_rect).boundingRect()
        vp = view.viewport().rect()
        assert vp.adjusted(-2, -2, 2, 2).contains(r)
        # a whole number of pixels an inch (a crisp grid), the largest that shows the whole table
        # with its inch marks
        assert float(view.zoom).is_integer()
        assert (view.zoom + 1) * 75.6 > vp.width() - 4 or (view.zoom + 1) * 50.0 > vp.height() - 4
        return max(r.width() / vp.width(), r.height() / vp.height())

    assert filled() > 0.8
    demo_canvas.resize(1400, 900)
    qtbot.wait(20)
    assert filled() > 0.8
    view.zoom_by(2.0)
    zoom = view.zoom
    demo_canvas.resize(900, 600)
    qtbot.wait(20)
    assert view.zoom == pytest.approx(zoom)
    demo_canvas.fit_button.click()
    assert filled() > 0.8


def test_the_view_buttons_stay_on_the_toolbar_at_1280_pixels(demo_canvas):
    demo_canvas.resize(700, 600)
    for b in (demo_canvas.fit_button, demo_canvas.names_button, demo_canvas.tool_buttons["los"]):
        assert b.isVisible(), b.text()
    # the terrain type and level are on the bar only while drawing
    assert not any(a.isVisible() for a in demo_canvas._draw_widgets)
    demo_canvas.tool_buttons["draw"].click()
    assert all(a.isVisible() for a in demo_canvas._draw_widgets)


@pytest.mark.parametrize("size", [(1600, 1000), (1280, 720)])
def test_main_window_gives_the_map_the_room_and_fits_the_table(qtbot, game, size):
    from gui.app import make_main_window

    path = str(game.path)
    game.close()
    win = make_main_window(path)
    qtbot.addWidget(win)
    win.resize(*size)
    win.show()
    qtbot.waitExposed(win)
    qtbot.wait(50)
    view = win.canvas.view
    vp = view.viewport().rect()
    assert vp.width() >= 0.5 * size[0] and vp.height() >= 0.42 * size[1]
    table = view.mapFromScene(win.canvas.scene.table_rect).boundingRect()
    assert max(table.width() / vp.width(), table.height() / vp.height()) > 0.8
    assert "Union to act" in win.windowTitle()
    win.controller.close()


def test_exported_map_has_a_title_a_legend_and_a_scale_bar(qtbot, game):
    from PySide6.QtGui import QColor

    from gui import export

    plain = export.battle_image(game.battle, game.tables, 20.0)
    framed = export.framed_map(plain, game.battle, 20.0, export.map_title(game.battle))
    assert framed.width() == plain.width() and framed.height() > plain.height() + 60
    assert export.map_title(game.battle) == "Small battle — turn 1, Union to act, Phase 1: Command"
    # the scale bar's first 6" block is solid dark, 120 pixels long at 20 pixels an inch
    row = framed.height() - 1
    dark = []
    for y in range(plain.height() + 46, framed.height()):
        xs = [x for x in range(framed.width()) if QColor(framed.pixel(x, y)).lightness() < 60]
        if len(xs) > 100:
            dark = xs
            row = y
            break
    assert dark, "no scale bar"
    assert max(dark) - min(dark) == pytest.approx(120, abs=3), row


def _shoot_dialog(qtbot, distance_in: float):
    from dataclasses import replace

    from gui.combat_dialogs import ShootDialog
    from rules.battle.words import Phase
    from rules.tables import load_tables
    from tests.rules.shooting.test_shooting import battle_of, unit

    f = unit("f", "union", name="2nd Wisconsin", x=30, y=40)
    t = unit("t", "csa", name="8th Georgia", x=30, y=40 - distance_in, facing_deg=180)
    # a second enemy in reach, so that the Wisconsin has a target and is offered as a firer
    near = unit("n", "csa", name="4th Virginia", x=24, y=40 - 5.0, facing_deg=180)
    battle = replace(battle_of(f, t, near), phase=Phase.RANGED)
    dlg = ShootDialog(battle, load_tables(), firer_id="f")
    qtbot.addWidget(dlg)
    return dlg


def test_shoot_dialog_band_says_out_of_range_beyond_the_weapons_maximum(qtbot):
    from rules.tables import load_tables

    reach = float(load_tables().value("shooting.max_range.rifled_musket"))

    def band_of(dlg, name):
        rows = {dlg.targets.item(r, 0).text(): r for r in range(dlg.targets.rowCount())}
        return dlg.targets.item(rows[name], dlg.COLUMNS.index("Band")).text()

    assert band_of(_shoot_dialog(qtbot, reach - 0.5), "8th Georgia") == "long"
    assert band_of(_shoot_dialog(qtbot, reach + 6), "8th Georgia") == "out of range"


def test_shoot_dialog_keeps_every_column_in_view_at_its_default_width(qtbot):
    dlg = _shoot_dialog(qtbot, 30.0)
    dlg.show()
    qtbot.waitExposed(dlg)
    table = dlg.targets
    assert not table.horizontalScrollBar().isVisible()
    right = table.horizontalHeader().sectionViewportPosition(len(dlg.COLUMNS) - 1)
    right += table.horizontalHeader().sectionSize(len(dlg.COLUMNS) - 1)
    assert right <= table.viewport().width() + 1


def test_report_puts_the_short_staff_pips_table_before_the_events_and_frames_its_map(game):
    from gui.export import battle_image

    game.do(NextPhase())
    s = report.build_turn_summary(game, 1)
    text = report_html.summary_html(s)
    assert text.index("Staff Pips</h2>") < text.index("Events</h2>") < text.index("Casualties</h2>")
    imgs = report.report_images(s, game.tables)
    plain = battle_image(s.battle_end, game.tables, report.MAP_PX_PER_IN, pixel_ratio=report.MAP_PIXEL_RATIO)
    framed = imgs[report_html.MAP_SRC]
    assert framed.width() == plain.width() and framed.height() > plain.height()


def test_a_name_keeps_clear_of_its_units_marker_badges_at_the_reports_scale(qtbot, controller):
    from gui.canvas import CanvasWidget
    from gui.report import MAP_PX_PER_IN

    w = CanvasWidget(controller)
    qtbot.addWidget(w)
    w._game_replaced()
    scene = w.scene
    scene.layout_labels(MAP_PX_PER_IN)
    it = scene.units["ind19"]  # disordered: a D badge behind its rear rank
    assert it._marker_list
    badges = it.stand_rects[-1]
    assert not scene.label_rect(it.label).intersects(badges)
    for other in scene.units.values():
        if other is not it:
            assert not scene.label_rect(other.label).intersects(badges), other.unit.name


def test_view_menu_legend_dock_names_every_terrain_style(qtbot, game):
    from PySide6.QtWidgets import QLabel

    from gui.app import make_main_window
    from gui.canvas import LEGEND_TYPES, legend_label

    path = str(game.path)
    game.close()
    win = make_main_window(path)
    qtbot.addWidget(win)
    toggle = win.docks["legend"].toggleViewAction()
    assert toggle in win.menus["view"].actions()
    # drawn when first shown (View > Legend), not at start-up
    assert not win.docks["legend"].findChildren(QLabel)
    toggle.trigger()
    assert win.docks["legend"].widget().objectName() == "legend"
    texts = {lab.text() for lab in win.docks["legend"].findChildren(QLabel)}
    assert {legend_label(t) for t in LEGEND_TYPES} <= texts
    pictures = [
        lab for lab in win.docks["legend"].findChildren(QLabel) if lab.pixmap() and not lab.pixmap().isNull()
    ]
    assert len(pictures) == len(LEGEND_TYPES)
    win.controller.close()


def test_terrain_styles_differ_where_the_trial_found_them_alike(qapp):
    from gui.canvas import terrain_swatch
    from rules.battle.terrain import TerrainType

    def pixels(t):
        img = terrain_swatch(t, 48, 20)
        return [img.pixel(x, y) for x in range(48) for y in range(20)]

    # a crestline is not a fence, a fence is not a wall, a sunken lane is not a road
    assert pixels(TerrainType.HILL) != pixels(TerrainType.SPLIT_RAIL_FENCE)
    assert pixels(TerrainType.SPLIT_RAIL_FENCE) != pixels(TerrainType.STONE_WALL)
    assert pixels(TerrainType.SUNKEN_ROAD) != pixels(TerrainType.ROAD)
    assert pixels(TerrainType.HEDGE) != pixels(TerrainType.STONE_WALL)


def test_a_split_rail_fence_is_drawn_zig_zag(qapp):
    from PySide6.QtGui import QColor

    from gui.canvas import TABLE_COLOUR, terrain_swatch
    from rules.battle.terrain import TerrainType

    img = terrain_swatch(TerrainType.SPLIT_RAIL_FENCE, 96, 40, px_per_in=24.0)
    table = QColor(TABLE_COLOUR)
    rows = {
        y
        for x in range(10, 86)
        for y in range(40)
        if abs(QColor(img.pixel(x, y)).lightness() - table.lightness()) > 60
    }
    # 0.22" either side of the line at 24 pixels an inch: about 10 rows, where a straight rail is 2 or 3
    assert max(rows) - min(rows) >= 8


def test_the_log_detail_names_the_turns_records_rather_than_printing_them(controller):
    controller.run(NextPhase())
    u = controller.battle.units["ind19"]
    controller.run(MoveUnit(unit_id="ind19", x=u.x, y=u.y - 1.0, facing_deg=u.facing_deg, mode="march"))
    e = controller.events()[-1]
    assert "extra" in e.changes.game  # the march is kept in the turn's movement record
    text = event_html(e)
    assert "the turn&#x27;s records (movement)" in text or "the turn's records (movement)" in text
    assert "spent_in" not in text and "{" not in text
