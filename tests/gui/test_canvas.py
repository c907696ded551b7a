"""The battlefield canvas: moving units as one action, terrain editing, zoom, arcs and the ruler."""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QContextMenuEvent, QWheelEvent
from PySide6.QtWidgets import QApplication

from gui.canvas import CanvasWidget, TerrainItem, UnitItem
from rules.battle.terrain import TerrainType
from tests.gui.test_play_examples import play_game  # noqa: F401


@pytest.fixture
def canvas(qtbot, controller):
    w = CanvasWidget(controller)
    qtbot.addWidget(w)
    w.resize(900, 650)
    w.show()
    qtbot.waitExposed(w)
    w._game_replaced()
    return w


def vp(canvas, x, y) -> QPoint:
    return canvas.view.mapFromScene(QPointF(x, y))


def inside(controller, uid) -> tuple[float, float]:
    """A point inside the unit's colour stand (the stands lie behind the front edge)."""
    from rules.battlefield.geometry import footprint

    fp = footprint(controller.battle.units[uid], controller.tables)
    c = fp.stands[fp.colour_index].centroid
    return (c.x, c.y)


def drag(qtbot, canvas, a: tuple[float, float], b: tuple[float, float], steps: int = 8):
    viewport = canvas.view.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=vp(canvas, *a))
    for i in range(1, steps + 1):
        t = i / steps
        qtbot.mouseMove(viewport, vp(canvas, a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t))
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=vp(canvas, *b))


def test_canvas_draws_every_unit_and_terrain_feature(canvas, controller):
    battle = controller.battle
    assert set(canvas.scene.units) == set(battle.units)
    assert set(canvas.scene.terrain) == {f.id for f in battle.terrain}
    wis2 = canvas.scene.units["wis2"]
    assert isinstance(wis2, UnitItem) and len(wis2.stand_rects) == 5
    # a unit's stands span its frontage: 5 stands of 1.5" (club default base width) = 7.5"
    r = wis2._shape.boundingRect()
    assert r.width() == pytest.approx(7.5)
    hill = canvas.scene.terrain["hill1"]
    assert isinstance(hill, TerrainItem) and hill._crest is not None and hill._crest.isVisible()


def test_dragging_a_unit_is_one_move_action_on_release_and_undo_puts_it_back(qtbot, canvas, controller):
    before = controller.battle.units["va4"]
    n = len(controller.events())
    drag(qtbot, canvas, (before.x, before.y - 0.3), (before.x + 5, before.y + 2 - 0.3), steps=12)
    events = controller.events()
    assert len(events) == n + 1, "twelve mouse moves make one action"
    assert events[-1].action.type == "move_unit"
    after = controller.battle.units["va4"]
    assert after.x == pytest.approx(before.x + 5, abs=0.15)
    assert after.y == pytest.approx(before.y + 2, abs=0.15)
    item = canvas.scene.units["va4"]
    assert item.pos() == QPointF(0, 0), "the item is redrawn at the unit's new place"
    assert item.footprint.centre_front == pytest.approx((after.x, after.y))
    controller.undo()
    back = controller.battle.units["va4"]
    assert (back.x, back.y) == (before.x, before.y)
    assert canvas.scene.units["va4"].footprint.centre_front == pytest.approx((before.x, before.y))
    assert len(controller.events()) == n


def test_a_click_without_a_drag_makes_no_action(qtbot, canvas, controller):
    u = controller.battle.units["va4"]
    n = len(controller.events())
    qtbot.mouseClick(canvas.view.viewport(), Qt.MouseButton.LeftButton, pos=vp(canvas, u.x, u.y - 0.3))
    assert len(controller.events()) == n
    assert controller.selection == ("va4",)


def test_wheeling_with_the_handle_is_one_move_action_with_the_new_facing(qtbot, canvas, controller):
    u = controller.battle.units["wis2"]
    controller.select(["wis2"])
    handle = canvas.scene.units["wis2"].handle
    assert handle.isVisible()
    start = handle.scenePos()
    n = len(controller.events())
    # from straight ahead (facing 0) to due east of the colour stand: facing 90
    drag(qtbot, canvas, (start.x(), start.y()), (u.x + 3, u.y), steps=6)
    assert len(controller.events()) == n + 1
    after = controller.battle.units["wis2"]
    assert after.facing_deg == pytest.approx(90)
    assert (after.x, after.y) == (u.x, u.y)


def test_a_move_the_rules_refuse_leaves_the_unit_where_it_was(qtbot, canvas, controller):
    u = controller.battle.units["tx1"]
    failures = []
    controller.actionFailed.connect(failures.append)
    # off the top edge of the table
    a = inside(controller, "tx1")
    drag(qtbot, canvas, a, (a[0], -3), steps=4)
    assert failures and "off the" in failures[0]
    assert controller.battle.units["tx1"] == u
    assert canvas.scene.units["tx1"].pos() == QPointF(0, 0)


def test_drawing_terrain_adds_one_feature_and_delete_removes_it(qtbot, canvas, controller):
    canvas.type_combo.setCurrentIndex(canvas.type_combo.findData(TerrainType.STONE_WALL.value))
    assert canvas.scene.draw_type == TerrainType.STONE_WALL
    canvas.tool_buttons["draw"].click()
    viewport = canvas.view.viewport()
    for p in ((40, 6), (46, 6), (50, 8)):
        qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=vp(canvas, *p))
    n_terrain = len(controller.battle.terrain)
    canvas.scene.finish_draw()
    assert len(controller.battle.terrain) == n_terrain + 1
    wall = controller.battle.terrain[-1]
    assert wall.type == TerrainType.STONE_WALL
    for got, want in zip(wall.points, ((40, 6), (46, 6), (50, 8)), strict=True):
        assert got == pytest.approx(want, abs=0.1)
    assert wall.id in canvas.scene.terrain

    # select it with terrain editing on and delete it
    canvas.tool_buttons["select"].click()
    canvas.edit_terrain.setChecked(True)
    canvas.scene.terrain[wall.id].setSelected(True)
    canvas.delete_selected_terrain()
    assert wall.id not in {f.id for f in controller.battle.terrain}
    assert wall.id not in canvas.scene.terrain
    controller.undo()
    assert wall.id in canvas.scene.terrain


def test_an_area_outline_needs_three_points(qtbot, canvas, controller):
    canvas.type_combo.setCurrentIndex(canvas.type_combo.findData(TerrainType.DENSE_WOODS.value))
    canvas.tool_buttons["draw"].click()
    for p in ((40, 6), (46, 6)):
        qtbot.mouseClick(canvas.view.viewport(), Qt.MouseButton.LeftButton, pos=vp(canvas, *p))
    n = len(controller.battle.terrain)
    canvas.scene.finish_draw()
    assert len(controller.battle.terrain) == n
    assert "at least 3 points" in canvas.status.text()


def test_moving_terrain_is_one_edit_action(qtbot, canvas, controller):
    canvas.edit_terrain.setChecked(True)
    woods = controller.battle.feature("wood1")
    n = len(controller.events())
    drag(qtbot, canvas, (10, 8), (13, 10), steps=5)
    assert len(controller.events()) == n + 1
    moved = controller.battle.feature("wood1")
    dx = moved.points[0][0] - woods.points[0][0]
    dy = moved.points[0][1] - woods.points[0][1]
    assert (dx, dy) == pytest.approx((3, 2), abs=0.15)
    # units are locked while terrain is edited
    assert not canvas.scene.units["wis2"].flags() & canvas.scene.units["wis2"].GraphicsItemFlag.ItemIsMovable


def test_wheel_zooms_in_and_out_within_limits(qtbot, canvas):
    view = canvas.view
    z0 = view.zoom

    def wheel(steps):
        pos = QPointF(view.viewport().width() / 2, view.viewport().height() / 2)
        ev = QWheelEvent(
            pos,
            view.viewport().mapToGlobal(pos),
            QPoint(0, 0),
            QPoint(0, 120 * steps),
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        QApplication.sendEvent(view.viewport(), ev)

    wheel(1)
    assert view.zoom == pytest.approx(z0 * 1.15)
    wheel(-2)
    assert view.zoom == pytest.approx(z0 / 1.15)
    for _ in range(60):
        wheel(1)
    assert view.zoom == pytest.approx(view.MAX_SCALE)
    for _ in range(80):
        wheel(-1)
    assert view.zoom == pytest.approx(view.MIN_SCALE)


def test_selected_unit_shows_its_forward_arc_and_both_flank_zones(canvas, controller):
    controller.select(["wis2"])
    assert len(canvas.scene._arc_items) == 3
    arc = canvas.scene._arc_items[0]
    u = controller.battle.units["wis2"]
    # facing north: the arc lies ahead (smaller y) of the front edge, and widens at 45 degrees
    assert arc.path().contains(QPointF(u.x, u.y - 10))
    assert not arc.path().contains(QPointF(u.x, u.y + 2))
    # RULE-03-5.1: 10" ahead the arc reaches 10" beyond each front corner (3.75" from the centre)
    assert arc.path().contains(QPointF(u.x + 3.75 + 9.8, u.y - 10))
    assert not arc.path().contains(QPointF(u.x + 3.75 + 10.3, u.y - 10))
    controller.select(["wis2", "va4"])
    assert canvas.scene._arc_items == []


def test_ruler_measures_from_the_colour_stand_to_the_nearest_edge(qtbot, canvas, controller):
    canvas.tool_buttons["ruler"].click()
    drag(qtbot, canvas, inside(controller, "wis2"), inside(controller, "ind19"), steps=3)
    # wis2's colour stand's centre-front is at x=20. ind19 has 4 stands of 1.5" in line, its colour
    # stand centred on x=30 and the extra stand on its left: its left edge is at 30 - 0.75 - 3 = 26.25
    text = canvas.status.text()
    assert "2nd Wisconsin" in text and "19th Indiana" in text
    measured = float(text.split(": ")[1].split('"')[0])
    assert measured == pytest.approx(6.25, abs=0.06)
    # a plain measurement on open ground is point to point
    drag(qtbot, canvas, (5, 40), (5 + 3, 40 + 4), steps=3)
    assert canvas.status.text().startswith('5.0"')
    assert math.isclose(canvas.scene._measure_line.line().length(), 5.0, abs_tol=0.1)


def test_line_of_sight_tool_shows_the_hill_that_blocks_it_with_the_rule(qtbot, canvas, controller):
    canvas.tool_buttons["los"].click()
    # the 27th Virginia and the 19th Indiana are both on level 0 with the Ridge (level 1) between
    drag(qtbot, canvas, inside(controller, "va27"), inside(controller, "ind19"), steps=4)
    los = canvas.scene.last_los
    assert (los.visible, los.blocked_by, los.rule) == (False, "hill1", "RULE-03-4.4")
    text = canvas.status.text()
    assert text.startswith("27th Virginia → 19th Indiana: Blocked")
    assert "Ridge (level 1) stands between them (RULE-03-4.4)" in text
    # the line, the ring round the hill, and the label with its backing
    assert len(canvas.scene._los_items) == 4


def test_line_of_sight_tool_shows_a_clear_view(qtbot, canvas, controller):
    canvas.tool_buttons["los"].click()
    drag(qtbot, canvas, inside(controller, "va4"), inside(controller, "wis2"), steps=4)
    assert canvas.scene.last_los.visible
    assert canvas.status.text() == "4th Virginia → 2nd Wisconsin: Clear line of sight"
    assert len(canvas.scene._los_items) == 3
    # dragging from open ground explains how to use the tool instead of failing
    drag(qtbot, canvas, (2, 2), (3, 3), steps=2)
    assert "drag from the viewing unit" in canvas.status.text()


def test_tool_keys_switch_the_tool(qtbot, canvas):
    canvas.view.setFocus()
    qtbot.keyClick(canvas.view, Qt.Key.Key_R)
    assert canvas.scene.tool == "ruler" and canvas.tool_buttons["ruler"].isChecked()
    qtbot.keyClick(canvas.view, Qt.Key.Key_L)
    assert canvas.scene.tool == "los"
    qtbot.keyClick(canvas.view, Qt.Key.Key_S)
    assert canvas.scene.tool == "select" and canvas.tool_buttons["select"].isChecked()


def test_drawing_a_crestline_sets_the_selected_hills_crest(qtbot, canvas, controller, answer):
    # a second hill with no crest yet
    from rules.actions import AddTerrain

    controller.run(
        AddTerrain(
            feature={
                "id": "knoll",
                "type": "hill",
                "level": 2,
                "points": [[50, 36], [58, 36], [58, 44], [50, 44]],
            }
        )
    )
    assert not canvas.scene.terrain["knoll"]._crest.isVisible()
    canvas.edit_terrain.setChecked(True)
    canvas.scene.terrain["knoll"].setSelected(True)
    canvas.tool_buttons["crest"].click()
    for p in ((51, 40), (57, 40)):
        qtbot.mouseClick(canvas.view.viewport(), Qt.MouseButton.LeftButton, pos=vp(canvas, *p))
    qtbot.keyClick(canvas.view.viewport(), Qt.Key.Key_Return)
    knoll = controller.battle.feature("knoll")
    assert len(knoll.crest) == 2
    assert knoll.crest[0] == pytest.approx((51, 40), abs=0.1)
    assert canvas.scene.terrain["knoll"]._crest.isVisible()
    assert controller.events()[-1].action.type == "edit_terrain"


def test_a_crestline_needs_a_hill_selected(qtbot, canvas, controller, answer):
    answer.record_messages()
    canvas.tool_buttons["crest"].click()
    for p in ((51, 40), (57, 40)):
        qtbot.mouseClick(canvas.view.viewport(), Qt.MouseButton.LeftButton, pos=vp(canvas, *p))
    n = len(controller.events())
    canvas.scene.finish_draw()
    assert len(controller.events()) == n
    assert answer.messages and "Select one hill first" in answer.messages[0][1]


def test_change_formation_from_the_map_is_one_action(canvas, controller):
    canvas.scene.formationRequested.emit("wis2", "assault_column")
    u = controller.battle.units["wis2"]
    assert u.formation.value == "assault_column"
    assert controller.events()[-1].action.type == "change_formation"
    # the stands are redrawn in column: an assault column is 2 stands of 1.5" wide
    assert canvas.scene.units["wis2"]._shape.boundingRect().width() == pytest.approx(3.0)
    controller.undo()
    assert canvas.scene.units["wis2"]._shape.boundingRect().width() == pytest.approx(7.5)


def test_the_pointer_position_is_reported_in_inches(qtbot, canvas):
    seen = []
    canvas.view.cursorMoved.connect(lambda x, y: seen.append((x, y)))
    qtbot.mouseMove(canvas.view.viewport(), vp(canvas, 12, 30))
    assert seen and seen[-1] == pytest.approx((12, 30), abs=0.15)


def test_a_unit_chosen_elsewhere_is_brought_into_view(qtbot, canvas, controller):
    canvas.view.set_zoom(60)
    canvas.view.centerOn(5, 5)
    item = canvas.scene.units["tx1"]

    def on_screen():
        visible = canvas.view.mapToScene(canvas.view.viewport().rect()).boundingRect()
        return visible.intersects(item.sceneBoundingRect())

    assert not on_screen()
    controller.select(["tx1"])
    assert on_screen()


def _phase_2(controller):
    """The game in the Union's Phase 2 (Active Maneuver), where a Union unit dragged marches."""
    from rules.actions import Override

    controller.run(Override("game", "", {"phase": "maneuver"}, "start of the test"))
    assert controller.battle.active_side == "union"


def test_dragging_in_phase_2_shows_how_far_the_march_goes_by_the_rules(qtbot, canvas, controller, answer):
    # RULE-03-2.5 gives infantry in line 6": 5" is within it, 7" is beyond it
    _phase_2(controller)
    said = []
    canvas.scene.measured.connect(said.append)
    a = inside(controller, "wis2")
    start = controller.battle.units["wis2"]
    viewport = canvas.view.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=vp(canvas, *a))
    qtbot.mouseMove(viewport, vp(canvas, a[0] + 5, a[1]))
    label = canvas.scene._drag_label
    assert label.text().startswith('5.0" dragged; 6" of its 6" march left (line)')
    assert label.brush().color().name() == "#1b5e20"
    qtbot.mouseMove(viewport, vp(canvas, a[0] + 7, a[1]))
    assert label.text().startswith('7.0" dragged; 6" of its 6" march left (line)\nhalts after 6.0"')
    assert label.brush().color().name() == "#c62828"
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=vp(canvas, a[0] + 7, a[1]))
    assert canvas.scene._drag_label is None
    u = controller.battle.units["wis2"]
    assert (u.x, u.y) == (start.x + 6, start.y)  # the march stops where its allowance ends
    ev = controller.events()[-1]
    assert ev.action.mode == "march" and "movement allowance" in " ".join(s.text for s in ev.steps)
    assert said[-1].startswith('Halted: 2nd Wisconsin marches 6.0"')
    # a second drag shares the allowance: none is left, and the label says so
    a = inside(controller, "wis2")
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=vp(canvas, *a))
    qtbot.mouseMove(viewport, vp(canvas, a[0] + 2, a[1]))
    assert "cannot march" in canvas.scene._drag_label.text() and "whole movement allowance" in said[-1]
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=vp(canvas, a[0] + 2, a[1]))
    assert controller.battle.units["wis2"].x == start.x + 6


def test_a_march_into_a_stone_wall_pays_its_crossing_on_the_canvas(qtbot, canvas, controller, answer):
    # the 2nd Wisconsin stands 3" behind the stone wall: 3" to it, 2" to cross (RULE-03-2.2), 1" on
    _phase_2(controller)
    start = controller.battle.units["wis2"]
    canvas.scene.moveRequested.emit([("wis2", start.x, start.y - 10, start.facing_deg)])
    u = controller.battle.units["wis2"]
    assert (u.x, u.y) == (start.x, start.y - 4)
    assert "RULE-03-2.2" in [s.rule for s in controller.events()[-1].steps]


def test_shift_drag_in_phase_2_is_the_umpires_placement_with_a_reason(qtbot, canvas, controller, answer):
    _phase_2(controller)
    answer.reason("the regiment was set down in the wrong place")
    a = inside(controller, "wis2")
    start = controller.battle.units["wis2"]
    viewport = canvas.view.viewport()
    shift = Qt.KeyboardModifier.ShiftModifier
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, shift, pos=vp(canvas, *a))
    qtbot.mouseMove(viewport, vp(canvas, a[0] + 10, a[1]))
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, shift, pos=vp(canvas, a[0] + 10, a[1]))
    u = controller.battle.units["wis2"]
    assert u.x == pytest.approx(start.x + 10, abs=0.15)  # beyond the 6" of a march
    ev = controller.events()[-1]
    assert ev.action.mode == "place" and ev.action.reason == "the regiment was set down in the wrong place"
    assert answer.reasons and "outside the movement rules" in answer.reasons[0]
    assert ev.steps[-1].text == "Reason: the regiment was set down in the wrong place"


def test_shift_drag_without_a_reason_places_nothing(qtbot, canvas, controller, answer):
    _phase_2(controller)
    answer.reason(None)
    start = controller.battle.units["wis2"]
    n = len(controller.events())
    canvas.scene.placing = True
    canvas.run_moves([("wis2", start.x + 10, start.y, start.facing_deg)])
    canvas.scene.placing = False
    assert controller.battle.units["wis2"] == start and len(controller.events()) == n


def test_dragging_outside_phase_2_is_the_umpires_placement(qtbot, canvas, controller):
    # Phase 1: the umpire sets the table up; the label says it is a placement, not a march
    a = inside(controller, "va4")
    viewport = canvas.view.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=vp(canvas, *a))
    qtbot.mouseMove(viewport, vp(canvas, a[0] + 7, a[1]))
    assert canvas.scene._drag_label.text() == '7.0": placed by the umpire'
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=vp(canvas, a[0] + 7, a[1]))
    assert controller.battle.units["va4"].x == pytest.approx(29.0, abs=0.15)
    ev = controller.events()[-1]
    assert ev.action.mode == "place" and "placed by the umpire" in ev.summary


def test_middle_button_drag_pans_the_view(qtbot, canvas):
    view = canvas.view
    view.set_zoom(40)
    view.centerOn(36, 24)
    before = view.mapToScene(view.viewport().rect().center())
    viewport = view.viewport()
    start = viewport.rect().center()
    qtbot.mousePress(viewport, Qt.MouseButton.MiddleButton, pos=start)
    qtbot.mouseMove(viewport, start + QPoint(-200, 0))
    qtbot.mouseRelease(viewport, Qt.MouseButton.MiddleButton, pos=start + QPoint(-200, 0))
    after = view.mapToScene(view.viewport().rect().center())
    # dragging the table 200 px to the left at 40 px an inch shows 5" further right
    assert after.x() - before.x() == pytest.approx(5.0, abs=0.2)
    assert after.y() == pytest.approx(before.y(), abs=0.1)


def test_double_click_terrain_while_editing_opens_its_dialog(qtbot, canvas, controller, answer):
    from gui import dialogs

    canvas.edit_terrain.setChecked(True)

    def fill(dlg: dialogs.TerrainDialog):
        # a level 3 hill is refused (RULE-03-4.1 has levels 0 to 2); level 2 is taken
        dlg.level.setValue(3)
        fill.refused = (dlg.ok_button.isEnabled(), dlg.problem_label.text())
        dlg.level.setValue(2)
        dlg.name.setText("Oak Ridge")
        return dialogs.QDialog.DialogCode.Accepted

    answer.dialog(fill)
    qtbot.mouseDClick(canvas.view.viewport(), Qt.MouseButton.LeftButton, pos=vp(canvas, 35, 21))
    assert fill.refused == (False, "terrain 'Ridge': a hill is level 1 or 2, not 3")
    hill = controller.battle.feature("hill1")
    assert (hill.name, hill.level) == ("Oak Ridge", 2)
    assert controller.events()[-1].action.type == "edit_terrain"


def test_terrain_dialog_keeps_a_line_a_line(qtbot, small_battle):
    from gui.terrain_dialog import TerrainDialog
    from rules.battle.terrain import TerrainType

    dlg = TerrainDialog(small_battle.feature("wall1"))
    qtbot.addWidget(dlg)
    kinds = {TerrainType.parse(dlg.type.itemData(i)) for i in range(dlg.type.count())}
    assert TerrainType.HEDGE in kinds and TerrainType.LIGHT_WOODS not in kinds
    assert not dlg.level.isEnabled() and dlg.width.isEnabled()
    dlg.type.setCurrentIndex(dlg.type.findData(TerrainType.SUNKEN_ROAD.value))
    dlg.width.setValue(1.5)
    assert dlg.values() == {"type": "sunken_road", "width_in": 1.5}


@pytest.mark.parametrize("px_per_in, size", [(40.0, 0.55), (21.8, 0.55), (12.0, 1.0), (6.0, 1.5), (2.0, 1.5)])
def test_marker_badges_are_legible_at_the_zoom_that_shows_the_whole_table(px_per_in, size):
    from PySide6.QtGui import QImage, QPainter

    from gui.canvas import BADGE_IN, BADGE_MAX_IN, BADGE_MIN_PX

    img = QImage(20, 20, QImage.Format.Format_ARGB32)
    p = QPainter(img)
    try:
        p.scale(px_per_in, px_per_in)
        p.rotate(30)  # a turned view measures the same
        got = UnitItem.badge_size(p)
    finally:
        p.end()
    assert got == pytest.approx(size, abs=0.01)
    assert BADGE_IN <= got <= BADGE_MAX_IN
    assert got * px_per_in >= min(BADGE_MIN_PX, BADGE_MAX_IN * px_per_in) - 1e-9


def test_a_units_bounds_hold_its_badges_at_their_largest(canvas, controller):
    from gui.canvas import BADGE_MAX_IN
    from rules.battle.words import Marker

    uid = next(iter(controller.battle.units))
    u = controller.battle.unit(uid)
    item = canvas.scene.units[uid]
    item.set_unit(u.with_markers({Marker.DISORDER, Marker.SMOKE, Marker.FIRED}))
    far = item._badge_anchor(BADGE_MAX_IN)
    n = 3
    for sign in (-1, 1):
        end = far + item._marker_dir * sign * (n * (BADGE_MAX_IN * 1.18) / 2)
        assert item.boundingRect().contains(end)


def test_the_drag_label_stays_in_the_view_near_its_right_edge(qtbot, canvas, controller, answer):
    _phase_2(controller)
    view = canvas.view
    seen = view.mapToScene(view.viewport().rect()).boundingRect()
    a = inside(controller, "wis2")
    viewport = view.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=vp(canvas, *a))
    for x in (a[0] + 1, seen.right() - 1.0):  # near the middle, then near the right edge
        qtbot.mouseMove(viewport, vp(canvas, x, a[1]))
        label = canvas.scene._drag_label
        k = view.transform().m11()
        left = label.pos().x()
        right = left + label.boundingRect().width() / k
        assert label.boundingRect().width() < viewport.width() / 1.5  # a long halt is wrapped
        assert seen.left() - 1e-6 <= left and right <= seen.right() + 1e-6, (left, right, seen)
    assert right < seen.right() - 1.0 + 1e-6  # by the edge it is on the pointer's left
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=vp(canvas, *a))


def test_after_a_march_the_status_bar_says_what_was_done(qtbot, canvas, controller, answer):
    _phase_2(controller)
    said = []
    canvas.scene.measured.connect(said.append)
    a = inside(controller, "wis2")
    viewport = canvas.view.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=vp(canvas, *a))
    qtbot.mouseMove(viewport, vp(canvas, a[0] + 3, a[1]))
    assert said[-1].startswith('2nd Wisconsin: 3.0" dragged; 6" of its 6" march left')
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=vp(canvas, a[0] + 3, a[1]))
    ev = controller.events()[-1]
    assert ev.action.mode == "march"
    assert said[-1] == f"Done: {ev.summary}" and "3.0" in said[-1]  # not the allowance before it


def _stand_boxes(item) -> list:
    """The box of each stand as the item draws it, left to right (its badges come after them)."""
    return list(item.stand_rects[: item.unit.stands])


def test_rule_04_5_3_a_refused_flank_is_drawn_with_its_outer_stands_angled_on_that_side(canvas, controller):
    """The 2nd Wisconsin faces north; it refuses its right flank, then its left: each time its outer
    2 stands of that flank are drawn wheeled back (RULE-04-5.3), the rest of the line as it was."""
    from rules.actions import Override

    item = canvas.scene.units["wis2"]
    straight = _stand_boxes(item)
    controller.run(Override("unit", "wis2", {"markers": ["refused_right"]}, "refused against the NC"))
    right = _stand_boxes(canvas.scene.units["wis2"])
    assert right[:3] == straight[:3] and right[3:] != straight[3:]
    fx, fy = canvas.scene.units["wis2"].footprint.forward
    # the wheeled stands reach back behind the line: deeper along the rear than a straight stand
    assert all(r.height() > straight[0].height() or r.width() > straight[0].width() for r in right[3:])
    controller.run(Override("unit", "wis2", {"markers": ["refused_right", "refused_left"]}, "and the left"))
    both = _stand_boxes(canvas.scene.units["wis2"])
    assert both[2] == straight[2] and both[:2] != straight[:2] and both[3:] == right[3:]
    assert (fx, fy) == pytest.approx((0.0, -1.0))


def test_a_repaint_of_the_map_looks_only_at_the_units_near_what_changed(qtbot, canvas, controller):
    """An item drawn at one size on screen (a wheel handle) is looked at in every repaint of the
    map, wherever it is: only the unit selected alone has one, so that repainting a unit that
    changed does not go through every unit on the table."""
    from PySide6.QtWidgets import QGraphicsItem

    from gui.canvas.unit_items import RotateHandle

    fixed_size = QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations

    def unit_children_of_fixed_size() -> list:
        return [
            it
            for it in canvas.scene.items()
            if it.flags() & fixed_size and isinstance(it.parentItem(), UnitItem)
        ]

    assert unit_children_of_fixed_size() == []
    controller.select(["wis2"])
    handles = [it for it in canvas.scene.items() if isinstance(it, RotateHandle)]
    assert len(handles) == 1 and handles[0].isVisible() and handles[0].parentItem().unit_id == "wis2"
    controller.select(["va4", "wis2"])  # two selected: no handle shows, and no other is made
    assert [h.isVisible() for h in canvas.scene.items() if isinstance(h, RotateHandle)] == [False]
    # the handle made stays with its unit as it moves
    controller.select(["wis2"])
    from rules.actions import MoveUnit

    u = controller.battle.units["wis2"]
    before = handles[0].scenePos()
    controller.run(MoveUnit("wis2", u.x + 2.0, u.y))
    after = handles[0].scenePos()
    assert after.x() == pytest.approx(before.x() + 2.0, abs=0.01) and after.y() == pytest.approx(
        before.y(), abs=0.01
    )


# -- the right-click menu: a charge declared at the enemy clicked --------------------------------------


def _point_in(item) -> QPointF:
    """A point of the scene inside ``item``'s stands."""
    r = item.sceneBoundingRect()
    for i in range(1, 10):
        for j in range(1, 10):
            p = QPointF(r.left() + r.width() * i / 10, r.top() + r.height() * j / 10)
            if item.shape().contains(item.mapFromScene(p)):
                return p
    raise AssertionError(f"no point inside {item.unit_id}")


class _Shown:
    """A menu the map opens, kept rather than shown (its exec would wait for a click)."""

    def __init__(self, menu, opened: list):
        self.menu, self.opened = menu, opened

    def exec(self, *_args) -> None:
        self.opened.append(self.menu)


def _right_click_menu(scene, view, p: QPointF, monkeypatch):
    """Click the right button at ``p`` on the map, as the umpire does: the menu it opens."""
    from PySide6.QtTest import QTest

    opened: list = []
    made = type(scene).context_menu
    monkeypatch.setattr(scene, "context_menu", lambda pos: _Shown(made(scene, pos), opened))
    at, right, none = view.mapFromScene(p), Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier
    QTest.mousePress(view.viewport(), right, none, at)
    # the menu's event, which the desktop sends on the press (the test's press sends none)
    menu_event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, at, view.viewport().mapToGlobal(at))
    QApplication.sendEvent(view.viewport(), menu_event)
    QTest.mouseRelease(view.viewport(), right, none, at)
    assert len(opened) == 1 and opened[0] is not None
    return opened[0]


def test_right_clicking_an_enemy_with_a_charger_selected_offers_the_charge_the_rules_allow(
    qtbot, tmp_path, monkeypatch, window_on
):
    """On the demo at fit-to-view on a laptop, in the Confederate Phase 2: with a Confederate unit
    selected, a right-click on any Union unit near it opens that unit's menu (not the charger's,
    whose wheel handle lies ahead of it, over the enemy), with *Declare charge by …*, greyed with
    the reason where the rules (as the Charge dialog asks them) refuse the charge."""
    from PySide6.QtCore import QRect

    from gui import screens
    from rules.actions import NextPhase
    from rules.battle.words import Phase
    from rules.legality import charge_targets
    from storage.game import Game
    from storage.scenario import load_demo

    monkeypatch.setattr(screens, "available", lambda widget=None: QRect(0, 0, 1366, 768))
    win = window_on(Game.create(tmp_path / "demo.sqlite", load_demo()))
    qtbot.wait(20)
    c, scene, view = win.controller, win.canvas.scene, win.canvas.view
    view.fit_table()
    c.run(NextPhase())
    b = c.battle
    assert b.active_side == "csa" and b.phase == Phase.MANEUVER
    checked = 0
    for uid, u in b.units.items():
        if u.side != "csa":
            continue
        c.select([uid])
        rules_say = {o.unit_id: o for o in charge_targets(b, uid, c.tables)}
        for eid, e in b.units.items():
            if e.side == "csa" or math.dist((u.x, u.y), (e.x, e.y)) > 15:
                continue
            menu = _right_click_menu(scene, view, _point_in(scene.units[eid]), monkeypatch)
            assert list(c.selection) == [uid]  # the right-click keeps the charger selected
            acts = menu.actions()
            assert acts[0].text() == e.name, (uid, eid)  # the enemy's menu
            charge = next(a for a in acts if a.text() == f"Declare charge by {u.name}…")
            option = rules_say[eid]
            assert charge.isEnabled() == option.allowed
            if not option.allowed:
                # the reason's lines below it, greyed, none wider than a laptop's menu holds
                below = []
                for a in acts[acts.index(charge) + 1 :]:
                    if a.isEnabled() or not a.text().startswith("    "):
                        break
                    below.append(a.text())
                said = " ".join(t.strip() for t in below)
                assert said.startswith("Not now:") and option.reason in said and option.rule in said
                assert all(len(t) <= 72 for t in below)
            checked += 1
    assert checked >= 3
    # the wheel handle is 20 pixels across on the screen, not 20 inches on the table: a click 3"
    # beside it is on neither it nor its unit
    c.select(["va4"])
    handle = scene.units["va4"].handle
    assert handle.isVisible()
    beside = [handle.scenePos() + QPointF(dx, dy) for dx, dy in ((3, 0), (-3, 0), (0, 3), (0, -3))]
    clear = [p for p in beside if not any(isinstance(i, UnitItem) for i in scene.items(p))]
    assert clear and all(scene.unit_at(p) is None for p in clear)
    # a Union unit selected in the Confederate turn declares nothing
    c.select(["bkn14"])
    menu = _right_click_menu(scene, view, _point_in(scene.units["va5"]), monkeypatch)
    assert not any(a.text().startswith("Declare charge") for a in menu.actions())


def test_the_charge_the_rules_allow_is_declared_from_the_enemys_menu(qtbot, play_game, answer, monkeypatch):  # noqa: F811
    from gui.combat_dialogs import ChargeDialog
    from tests.gui.test_play_examples import REJECT, Script, example_a

    c = play_game(example_a())  # the Brooklyn 8" from the Virginians, in the Union Phase 2
    w = CanvasWidget(c)
    qtbot.addWidget(w)
    w.resize(900, 650)
    w.show()
    qtbot.waitExposed(w)
    w._game_replaced()
    c.select(["bkn14"])
    menu = _right_click_menu(w.scene, w.view, _point_in(w.scene.units["va5"]), monkeypatch)
    assert menu.actions()[0].text() == "5th Virginia"
    charge = next(a for a in menu.actions() if a.text() == "Declare charge by 14th Brooklyn…")
    assert charge.isEnabled()
    seen = []
    Script(answer, (ChargeDialog, lambda dlg: seen.append((dlg.attacker_id(), dlg.target_id())) or REJECT))
    charge.trigger()
    assert seen == [("bkn14", "va5")]
