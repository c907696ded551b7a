"""A group of units dragged together in Phase 2 marches through the Trigger Windows of each unit.

Chapter 04: Window A opens "during standard enemy movement when an active unit moves across a
defender's forward arc" (RULE-04-1.2), and a defender reacts once "per triggering enemy action"
(RULE-04-1.4). A group dragged on the canvas is played unit by unit, front-most first along the
way it is dragged, each unit through its own windows, and the whole group is one undo step.

The battle is chapter 04's Example C (the 2nd Wisconsin in line at (20, 30) facing north; the
8th Georgia in assault column, 6" a turn, marching east along y = 24) with the 9th Georgia, a
second assault column, following it. Along y = 24 the Wisconsin's flank zone begins at x = 9.2,
its forward arc within 8" at x = 13.97 and short range at x = 17.1.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QPointF

from gui import play
from gui.canvas import CanvasWidget
from gui.reaction_dialog import ReactionDialog
from rules import procedure
from rules.actions import mark_stalled
from rules.battle.words import Formation, Marker, Phase
from rules.reactions.declare import Reaction
from rules.reactions.triggers import find_windows
from tests.gui.test_canvas import drag, inside
from tests.gui.test_play_examples import REJECT, Script, play_game  # noqa: F401
from tests.rules.reactions.test_examples_ch04 import example_c
from tests.rules.shooting.test_shooting import battle_of, unit

EAST = (28.0, 0.0)  # the group dragged 28" east: far beyond a column's 6"


def brigade(ga8_x: float = 12.0, ga9_at: tuple[float, float] = (4.0, 24.0)):
    """Example C in the Confederates' Phase 2, with the 9th Georgia (also an assault column) behind
    the 8th Georgia."""
    b = example_c()
    ga8 = b.unit("ga8").moved_to(ga8_x, 24.0)
    ga9 = unit(
        "ga9",
        "csa",
        name="9th Georgia",
        formation=Formation.ASSAULT_COLUMN,
        x=ga9_at[0],
        y=ga9_at[1],
        facing_deg=90,
    )
    return replace(battle_of(b.unit("wis2"), ga8, ga9, active="csa"), phase=Phase.MANEUVER)


@pytest.fixture
def canvas_of(qtbot, play_game):  # noqa: F811
    def make(battle):
        c = play_game(battle)
        w = CanvasWidget(c)
        qtbot.addWidget(w)
        w.resize(900, 650)
        w.show()
        qtbot.waitExposed(w)
        w._game_replaced()
        return c, w

    return make


def moved(c, uids, by):
    """The moves of the units ``uids`` dragged together by ``by``, as the canvas asks for them."""
    b = c.battle
    return [(u, b.unit(u).x + by[0], b.unit(u).y + by[1], b.unit(u).facing_deg) for u in uids]


def xy(c, uid):
    u = c.battle.unit(uid)
    return (u.x, u.y)


def test_a_group_dragged_into_a_defenders_zones_opens_each_units_windows_front_most_first(
    qtbot, canvas_of, answer
):
    c, canvas = canvas_of(brigade())
    seen = []
    said: list[str] = []
    canvas.scene.measured.connect(said.append)

    def window(mover, trigger, reaction=None, dice=None):
        def fn(dlg: ReactionDialog):
            assert dlg.window.mover == mover
            # under the dialog, the status bar says which unit of the group is marching
            progress = [t for t in said if t.startswith("Group march")][-1]
            assert progress == (
                "Group march, 1 of 2: 8th Georgia marches; then 9th Georgia"
                if mover == "ga8"
                else "Group march, 2 of 2: 9th Georgia marches"
            )
            assert [d.trigger.value for d in dlg.window.defenders] == [trigger]
            # the mover is shown on the canvas where the window stopped it, the rest of the group
            # where the battle has them (not where the mouse left them)
            items = canvas.scene.units
            assert all(items[u].pos() == QPointF(0, 0) for u in ("ga8", "ga9"))
            seen.append((mover, trigger, items["ga8"].unit.x, items["ga9"].unit.x))
            dlg.choose("wis2", reaction)
            if dice:
                dlg.dice.type_dice(dice)
            assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

        return (ReactionDialog, fn)

    def ga9_flank(dlg: ReactionDialog):
        # the Wisconsin fired at the 8th Georgia; the 9th Georgia's march is another triggering
        # action (RULE-04-1.4), so it may still refuse its flank (4+ Discipline Check, no pip)
        box = dlg.boxes["wis2"]
        assert box.radios[Reaction.REFUSE_FLANK].isEnabled()
        assert "already reacted" not in box.labels[Reaction.REFUSE_FLANK].text()
        return window("ga9", "flank_zone")[1](dlg)

    Script(
        answer,
        window("ga8", "flank_zone"),
        window("ga8", "forward_arc"),
        window("ga8", "forward_arc_short", "opportunity_fire", "1 4 4 6 2"),
        (ReactionDialog, ga9_flank),
    )
    c.select(["ga8", "ga9"])
    a = inside(c, "ga8")
    drag(qtbot, canvas, a, (a[0] + EAST[0], a[1] + EAST[1]), steps=10)
    assert "Group march done: 8th Georgia, 9th Georgia" in said
    # the 8th Georgia (in front) marches first, through its three windows; then the 9th Georgia
    assert [s[:2] for s in seen] == [
        ("ga8", "flank_zone"),
        ("ga8", "forward_arc"),
        ("ga8", "forward_arc_short"),
        ("ga9", "flank_zone"),
    ]
    assert [s[2] for s in seen] == [
        12.0,
        pytest.approx(13.97, abs=0.01),
        pytest.approx(17.1, abs=0.01),
        17.55,
    ]
    assert [s[3] for s in seen[:3]] == [4.0] * 3 and seen[3][3] == pytest.approx(9.21, abs=0.01)
    # Example C's dice: the natural 6 halves what the 8th Georgia has left (RULE-04-3.5); it
    # halts there, while the 9th Georgia marches its whole 6"
    g8, g9 = c.battle.unit("ga8"), c.battle.unit("ga9")
    assert (g8.x, g8.stands, g8.disordered) == (pytest.approx(17.55, abs=0.02), 4, True)
    assert (g9.x, g9.y, g9.stands, g9.disordered) == (10.0, 24.0, 5, False)
    assert c.battle.unit("wis2").has(Marker.SMOKE)
    evs = c.events()
    # each "No reaction" is logged where it was given (RULE-04-1.2): the 8th Georgia starts in the
    # Wisconsin's flank zone, so the first window opens before it has moved
    assert [
        (e.action.type, getattr(e.action, "unit_id", None) or getattr(e.action, "defender_id", None))
        for e in evs
    ] == [
        ("decline_reaction", "wis2"),
        ("move_unit", "ga8"),
        ("decline_reaction", "wis2"),
        ("move_unit", "ga8"),
        ("declare_reaction", "wis2"),
        ("move_unit", "ga8"),
        ("move_unit", "ga9"),
        ("decline_reaction", "wis2"),
        ("move_unit", "ga9"),
    ]
    assert {e.action.mode for e in evs if e.action.type == "move_unit"} == {"march"}
    assert canvas.scene.units["ga8"].pos() == QPointF(0, 0) and canvas.scene.units["ga9"].pos() == QPointF(
        0, 0
    )
    # one undo takes the whole group back, reaction and all; redo puts it back without rolling
    assert c.game.step_of(c.game.last_seq) == (1, c.game.last_seq)
    c.undo()
    assert (xy(c, "ga8"), xy(c, "ga9")) == ((12.0, 24.0), (4.0, 24.0)) and c.events() == []
    assert c.battle.unit("ga8").stands == 5 and not c.battle.unit("wis2").has(Marker.SMOKE)
    c.redo()
    assert c.battle.unit("ga8") == g8 and c.battle.unit("ga9") == g9


@pytest.mark.parametrize("order", [("ga8", "ga9"), ("ga9", "ga8")])
def test_the_front_most_unit_marches_first_whichever_way_the_group_goes(canvas_of, answer, order):
    # east, the 8th Georgia leads: its flank-zone window opens before the 9th Georgia has moved;
    # west, the 9th Georgia leads: it has marched (no window on its way) when the 8th's opens
    c, canvas = canvas_of(brigade(ga9_at=(6.0, 24.0)))
    where = []

    def flank(dlg: ReactionDialog):
        assert dlg.window.mover == "ga8" and dlg.window.along_in == 0.0
        g9 = dlg.battle.unit("ga9")  # the battle as the procedure has it at the window
        where.append((g9.x, g9.y))
        dlg.choose("wis2", None)

    skip = (ReactionDialog, lambda d: d.choose("wis2", None))
    script = Script(answer, (ReactionDialog, flank), skip, skip)  # then its forward arc, the 9th's flank
    canvas.scene.moveRequested.emit(moved(c, order, (4.0, 0.0)))
    assert not script.steps
    assert where == [(6.0, 24.0)]  # east: the 9th Georgia has not marched yet
    assert xy(c, "ga8") == (16.0, 24.0) and xy(c, "ga9") == (10.0, 24.0)
    c.undo()

    Script(answer, (ReactionDialog, flank))
    canvas.scene.moveRequested.emit(moved(c, order, (-4.0, 0.0)))
    assert where[1] == (2.0, 24.0)  # west: the 9th Georgia, in front, marched first
    assert xy(c, "ga8") == (8.0, 24.0)
    assert [e.action.unit_id for e in c.events() if e.action.type == "move_unit"] == ["ga9", "ga8"]


def test_front_first_orders_by_the_way_the_group_is_dragged():
    b = brigade(ga9_at=(6.0, 20.0))  # the 9th Georgia 6" behind and 4" north of the 8th
    east = [("ga9", 16.0, 20.0, 90.0), ("ga8", 22.0, 24.0, 90.0)]
    assert [m[0] for m in procedure.front_first(b, east)] == ["ga8", "ga9"]
    west = [("ga8", 2.0, 24.0, 90.0), ("ga9", -4.0, 20.0, 90.0)]
    assert [m[0] for m in procedure.front_first(b, west)] == ["ga9", "ga8"]
    north = [("ga8", 12.0, 20.0, 90.0), ("ga9", 6.0, 16.0, 90.0)]
    assert [m[0] for m in procedure.front_first(b, north)] == ["ga9", "ga8"]
    south = [("ga9", 6.0, 24.0, 90.0), ("ga8", 12.0, 28.0, 90.0)]
    assert [m[0] for m in procedure.front_first(b, south)] == ["ga8", "ga9"]
    # units abreast, or a group only turned, keep the order they are given in
    abreast = brigade(ga9_at=(12.0, 18.0))
    east = [("ga9", 14.0, 18.0, 90.0), ("ga8", 14.0, 24.0, 90.0)]
    assert [m[0] for m in procedure.front_first(abreast, east)] == ["ga9", "ga8"]
    turned = [("ga9", 6.0, 20.0, 0.0), ("ga8", 12.0, 24.0, 0.0)]
    assert procedure.front_first(b, turned) == turned


def _flank_zone_x(battle, tables) -> float:
    """Where along y = 24 the 8th Georgia's march east first enters the Wisconsin's flank zone."""
    u = battle.unit("ga8")
    (w, *_) = find_windows(battle, "ga8", [(u.x, u.y), (u.x + 6, u.y)], tables)
    assert [d.trigger.value for d in w.defenders] == ["flank_zone"]
    return w.point[0]


@pytest.mark.parametrize("beyond", [-0.05, 0.05])
def test_a_group_opens_a_window_only_once_a_unit_reaches_the_trigger_zone(canvas_of, answer, beyond):
    # the 8th Georgia 5" short of the flank zone's edge (9.2"), the 9th Georgia 6" north of it, in
    # the Wisconsin's forward arc but beyond its 8" (RULE-04-3.1)
    c, canvas = canvas_of(brigade(ga8_x=4.0, ga9_at=(4.0, 18.0)))
    edge = _flank_zone_x(c.battle, c.tables)
    assert edge == pytest.approx(9.21, abs=0.01)
    by = (round(edge + beyond - 4.0, 2), 0.0)
    opened = []

    def flank(dlg: ReactionDialog):
        opened.append(dlg.window.mover)
        dlg.choose("wis2", None)

    Script(answer, *([(ReactionDialog, flank)] if beyond > 0 else []))
    canvas.scene.moveRequested.emit(moved(c, ("ga8", "ga9"), by))
    assert opened == (["ga8"] if beyond > 0 else [])
    assert xy(c, "ga8") == (4.0 + by[0], 24.0) and xy(c, "ga9") == (4.0 + by[0], 18.0)
    # a window splits the 8th Georgia's march at the trigger point: two marches instead of one,
    # with the Wisconsin's "No reaction" logged between them (RULE-04-1.2)
    kinds = [getattr(e.action, "mode", e.action.type) for e in c.events()]
    assert kinds == (["march", "decline_reaction", "march", "march"] if beyond > 0 else ["march"] * 2)
    c.undo()
    assert (xy(c, "ga8"), xy(c, "ga9")) == ((4.0, 24.0), (4.0, 18.0)) and c.events() == []


def test_a_group_that_opens_no_window_marches_as_one_undo_step(canvas_of, answer):
    c, canvas = canvas_of(brigade(ga8_x=0.0, ga9_at=(0.0, 14.0)))
    Script(answer)  # any dialog fails the test
    canvas.scene.moveRequested.emit(moved(c, ("ga8", "ga9"), (10.0, 0.0)))
    # each marches its 6" (the allowance of an assault column) and halts there
    assert xy(c, "ga8") == (6.0, 24.0) and xy(c, "ga9") == (6.0, 14.0)
    assert [(e.action.unit_id, e.action.mode) for e in c.events()] == [("ga8", "march"), ("ga9", "march")]
    assert c.game.step_of(c.game.last_seq) == (1, c.game.last_seq)
    c.undo()
    assert (xy(c, "ga8"), xy(c, "ga9")) == ((0.0, 24.0), (0.0, 14.0)) and c.events() == []


def test_the_status_bar_names_each_unit_of_the_group_that_halted(canvas_of, answer):
    c, canvas = canvas_of(brigade(ga8_x=0.0, ga9_at=(0.0, 14.0)))
    said = []
    canvas.scene.measured.connect(said.append)
    Script(answer)
    canvas.scene.moveRequested.emit([("ga8", 10.0, 24.0, 90.0), ("ga9", 4.0, 14.0, 90.0)])
    # the 8th Georgia halts after its 6"; the 9th Georgia reaches the point it was dragged to
    assert said[-1].startswith("Halted: 8th Georgia marches 6.0")
    assert "9th Georgia" not in said[-1]


def test_cancelling_a_window_of_a_later_unit_takes_the_whole_group_back(canvas_of, answer):
    c, canvas = canvas_of(brigade())
    skip = (ReactionDialog, lambda d: d.choose("wis2", None))
    Script(answer, skip, skip, skip, (ReactionDialog, lambda d: REJECT))  # the 9th Georgia's window
    canvas.scene.moveRequested.emit(moved(c, ("ga8", "ga9"), EAST))
    assert (xy(c, "ga8"), xy(c, "ga9")) == ((12.0, 24.0), (4.0, 24.0)) and c.events() == []
    assert not c.can_undo
    # the cancelled group is not offered back by Redo
    assert not c.can_redo and not c.game.can_redo
    c.redo()
    assert (xy(c, "ga8"), xy(c, "ga9")) == ((12.0, 24.0), (4.0, 24.0)) and c.events() == []
    assert all(it.pos() == QPointF(0, 0) for it in canvas.scene.units.values())
    assert canvas.scene.units["ga8"].unit == c.battle.unit("ga8")


def test_a_unit_of_the_group_the_rules_refuse_is_left_out_and_the_umpire_told_why(canvas_of, answer):
    c, canvas = canvas_of(mark_stalled(brigade(ga8_x=0.0, ga9_at=(0.0, 14.0)), "ga9"))
    failures: list[str] = []
    c.actionFailed.connect(failures.append)
    Script(answer)
    before = c.battle.unit("ga9")
    canvas.scene.moveRequested.emit(moved(c, ("ga8", "ga9"), (5.0, 0.0)))
    assert xy(c, "ga8") == (5.0, 24.0) and c.battle.unit("ga9") == before
    assert [e.action.unit_id for e in c.events()] == ["ga8"]
    assert len(failures) == 1 and "9th Georgia" in failures[0] and "RULE-06-2.5" in failures[0]
    assert canvas.scene.units["ga9"].pos() == QPointF(0, 0)


def test_a_group_the_rules_refuse_entirely_leaves_nothing_behind(canvas_of, answer):
    b = brigade(ga8_x=0.0, ga9_at=(0.0, 14.0))
    c, canvas = canvas_of(mark_stalled(mark_stalled(b, "ga9"), "ga8"))
    failures: list[str] = []
    c.actionFailed.connect(failures.append)
    Script(answer)
    before = c.battle
    canvas.scene.moveRequested.emit(moved(c, ("ga8", "ga9"), (5.0, 0.0)))
    assert c.battle.units == before.units and c.events() == [] and not c.can_undo
    assert len(failures) == 1 and "8th Georgia" in failures[0] and "9th Georgia" in failures[0]
    assert all(it.pos() == QPointF(0, 0) for it in canvas.scene.units.values())


def test_a_unit_dragged_off_the_table_opens_no_window_and_the_rest_march(canvas_of, answer):
    # the 8th Georgia would open the Wisconsin's windows on its way, but its point is off the
    # 72" table: it is refused before it starts, and no reaction is left behind for it
    c, canvas = canvas_of(brigade(ga9_at=(0.5, 14.0)))
    failures: list[str] = []
    c.actionFailed.connect(failures.append)
    Script(answer)
    canvas.scene.moveRequested.emit([("ga8", 80.0, 24.0, 90.0), ("ga9", 5.5, 14.0, 90.0)])
    assert xy(c, "ga8") == (12.0, 24.0) and xy(c, "ga9") == (5.5, 14.0)
    assert [e.action.unit_id for e in c.events()] == ["ga9"]
    assert len(failures) == 1 and "8th Georgia" in failures[0] and "off the" in failures[0]


def test_shift_dragging_a_group_places_it_and_opens_no_window(qtbot, canvas_of, answer):
    c, canvas = canvas_of(brigade())
    answer.reason("the brigade was set down in the wrong place")
    Script(answer)  # the group crosses the Wisconsin's zones: no dialog may open
    canvas.scene.placing = True
    try:
        canvas.run_moves(moved(c, ("ga8", "ga9"), EAST))
    finally:
        canvas.scene.placing = False
    assert xy(c, "ga8") == (40.0, 24.0) and xy(c, "ga9") == (32.0, 24.0)  # beyond a march's 6"
    evs = c.events()
    assert [(e.action.mode, e.action.reason) for e in evs] == [
        ("place", "the brigade was set down in the wrong place")
    ] * 2
    assert answer.reasons and "8th Georgia, 9th Georgia" in answer.reasons[0]
    c.undo()
    assert (xy(c, "ga8"), xy(c, "ga9")) == ((12.0, 24.0), (4.0, 24.0))


def test_a_group_with_a_unit_of_the_other_side_places_that_unit_and_marches_the_rest(canvas_of, answer):
    # the umpire moves the Wisconsin (not the active side: placed, no reason) with the Georgians;
    # it is placed first, so the Georgians march where it then stands: out of its zones
    c, canvas = canvas_of(brigade(ga8_x=0.0, ga9_at=(0.0, 14.0)))
    Script(answer)
    canvas.scene.moveRequested.emit([("wis2", 60.0, 40.0, 0.0), ("ga8", 10.0, 24.0, 90.0)])
    assert xy(c, "wis2") == (60.0, 40.0) and xy(c, "ga8") == (6.0, 24.0)
    assert [(e.action.unit_id, e.action.mode) for e in c.events()] == [("wis2", "place"), ("ga8", "march")]
    assert c.game.step_of(c.game.last_seq) == (1, c.game.last_seq)


def test_a_group_outside_phase_2_is_placed_and_opens_no_window(canvas_of, answer):
    c, canvas = canvas_of(replace(brigade(), phase=Phase.RANGED))
    Script(answer)
    canvas.scene.moveRequested.emit(moved(c, ("ga8", "ga9"), EAST))
    assert xy(c, "ga8") == (40.0, 24.0) and xy(c, "ga9") == (32.0, 24.0)
    assert [e.action.mode for e in c.events()] == ["place", "place"] and c.game.step_of(c.game.last_seq) == (
        1,
        c.game.last_seq,
    )


def test_a_group_move_that_is_not_a_point_or_names_no_unit_is_refused_and_the_rest_march(canvas_of, answer):
    c, canvas = canvas_of(brigade(ga8_x=0.0, ga9_at=(0.0, 14.0)))
    failures: list[str] = []
    c.actionFailed.connect(failures.append)
    Script(answer)
    moves = [("ga8", 5.0, 24.0, 90.0), ("ga9", "east", 14.0, 90.0), ("ga99", 1.0, 1.0, 0.0)]
    assert play.move_units(c, None, moves)
    assert xy(c, "ga8") == (5.0, 24.0) and xy(c, "ga9") == (0.0, 14.0)
    assert [e.action.unit_id for e in c.events()] == ["ga8"]
    (said,) = failures
    assert "there is no unit 'ga99'" in said and "9th Georgia cannot march to ('east', 14.0)" in said
    # one unit dragged to a point that is not one: refused the same way, nothing done
    assert play.move_units(c, None, [("ga9", float("nan"), 14.0, None)]) is None
    assert "not a point on the table" in failures[-1] and len(c.events()) == 1
