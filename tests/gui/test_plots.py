"""The Plots dock: the course of the battle from the journal, hover values and PNG export."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage

from gui import dialogs
from gui.controller import GameController
from gui.plot_series import BattleCourse
from gui.plots import PlotsWidget
from rules.actions import EndTurn, NextPhase, Override


@pytest.fixture
def plots(qtbot, controller):
    from tests.gui.test_plots_incremental import fresh

    return fresh(qtbot, controller)


def _losses(plots):
    return {s.key: s.values for s in plots.data.losses}


def test_stands_by_side_and_brigade_start_with_the_order_of_battle(plots, game):
    b = game.battle
    d = plots.data
    assert d.turns == (0, 1)  # the start, and turn 1 so far
    sides = {s.key: s.values for s in d.sides}
    assert sides == {"union": (12.0, 12.0), "csa": (13.0, 13.0)}  # 5+4+3 and 5+2+6
    brigades = {s.key: s.values for s in d.brigades}
    assert brigades["texas"] == (6.0, 6.0)
    assert sum(v[0] for v in brigades.values()) == b.oob.stands()
    assert _losses(plots) == {"union": (0.0, 0.0), "csa": (0.0, 0.0)}


def test_a_known_sequence_of_events_gives_the_stands_and_losses_of_each_turn(plots, controller):
    controller.run(Override("unit", "wis2", {"stands": 3}, "volley"))  # Union -2 in turn 1
    controller.run(Override("unit", "va4", {"stands": 4}, "volley"))  # Confederate -1 in turn 1
    controller.run(NextPhase())
    controller.run(EndTurn())  # the Union's turn ends: Confederate turn 1
    controller.run(EndTurn())  # the Confederate turn ends: turn 2 begins
    controller.run(Override("unit", "tx1", {"stands": 3}, "canister"))  # Confederate -3 in turn 2
    controller.run(Override("unit", "tx1", {"stands": 4}, "stragglers"))  # given back: not a loss
    d = plots.data
    assert d.turns == (0, 1, 2)
    assert {s.key: s.values for s in d.sides} == {"union": (12.0, 10.0, 10.0), "csa": (13.0, 12.0, 10.0)}
    assert _losses(plots) == {"union": (0.0, 2.0, 0.0), "csa": (0.0, 1.0, 3.0)}
    assert d.units["tx1"].values == (6.0, 6.0, 4.0)
    # undo takes the turn's figures back with it
    controller.undo()
    controller.undo()
    assert _losses(plots)["csa"] == (0.0, 1.0, 0.0)
    assert {s.key: s.values for s in plots.data.sides}["csa"] == (13.0, 12.0, 12.0)


def test_a_move_recomputes_only_the_current_turn(plots, controller):
    controller.run(NextPhase())  # a new phase: every turn is read again
    reads = plots.course.reads
    controller.run(Override("unit", "wis2", {"stands": 4}, "volley"))
    assert plots.course.reads == reads + 1
    controller.run(Override("unit", "wis2", {"x": 22.0}, "nudged"))
    assert plots.course.reads == reads + 2


def test_the_course_matches_a_fresh_reading_of_the_journal(plots, controller, game):
    controller.run(Override("unit", "wis2", {"stands": 4}, "volley"))
    controller.run(NextPhase())
    controller.run(EndTurn())
    controller.run(Override("unit", "va27", {"stands": 1, "markers": ["disorder"]}, "canister"))
    assert plots.data == BattleCourse().rebuild(game)


def test_hover_shows_the_values_of_the_turn_under_the_pointer(plots, controller, qtbot):
    controller.run(Override("unit", "wis2", {"stands": 3}, "volley"))
    p = plots.plots["sides"]
    pos = p.vb.mapViewToScene(p.vb.viewRect().center())
    turn = round(p.vb.mapSceneToView(pos).x())
    assert turn in (0, 1)
    with qtbot.waitSignal(plots.hovered, timeout=2000) as sig:
        plots.graphics.scene().sigMouseMoved.emit(pos)
    expected = (
        "Stands at the end of turn 1: Union 10, Confederate 13"
        if turn
        else ("Stands at the start: Union 12, Confederate 13")
    )
    assert sig.args[0] == expected and plots.hover_label.text() == expected
    pos2 = plots.plots["losses"].vb.mapViewToScene(plots.plots["losses"].vb.viewRect().center())
    plots.graphics.scene().sigMouseMoved.emit(pos2)
    assert plots.hover_label.text().startswith(("Stands lost in turn 1: Union 2", "No stands are lost"))


def test_hover_text_for_each_chart(plots, controller):
    controller.run(Override("unit", "wis2", {"stands": 3, "markers": ["disorder"]}, "volley"))
    assert plots.hover_text("losses", 1) == "Stands lost in turn 1: Union 2, Confederate 0"
    assert plots.hover_text("losses", 0) == "No stands are lost before the first turn."
    assert plots.hover_text("brigades", 0).startswith("Stands at the start: Iron Brigade 12,")
    assert plots.hover_text("unit", 1) == "Select a unit to follow its strength."
    controller.select(["wis2"])
    assert plots.hover_text("unit", 0) == "2nd Wisconsin at the start: 5 stands; no markers"
    assert plots.hover_text("unit", 1) == "2nd Wisconsin at the end of turn 1: 3 stands; markers: Disorder"
    assert plots.hover_text("sides", 5) == ""  # no such turn yet


def test_the_selected_unit_is_followed(plots, controller):
    controller.select(["va27"])
    assert plots.unit_id == "va27"
    assert "27th Virginia" in plots.plots["unit"].titleLabel.text
    controller.select([])
    assert "select a unit" in plots.plots["unit"].titleLabel.text


def test_export_png_writes_the_charts(plots, tmp_path, monkeypatch):
    out = plots.export_png(tmp_path / "plots.png", width=1200)
    img = QImage(str(out))
    assert img.width() == 1200 and img.height() > 200
    saved = tmp_path / "dialog.png"
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(saved))
    plots.export_button.click()
    assert QImage(str(saved)).width() > 0


def test_export_png_to_a_missing_folder_is_a_clear_error(plots, tmp_path, answer, monkeypatch):
    from gui.export import ReportError

    with pytest.raises(ReportError, match="there is no folder"):
        plots.export_png(tmp_path / "no" / "p.png")
    answer.record_messages()
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(tmp_path / "no" / "p.png"))
    plots.export_button.click()
    assert answer.messages and "there is no folder" in answer.messages[0][1]


def test_a_hidden_dock_draws_when_shown(qtbot, controller):
    w = PlotsWidget(controller)
    qtbot.addWidget(w)
    controller.run(Override("unit", "wis2", {"stands": 4}, "volley"))
    assert w._stale and w._items["sides"] == []
    w.show()
    qtbot.waitExposed(w)
    assert not w._stale and len(w._items["sides"]) == 2


def test_without_a_game_the_charts_are_empty(qtbot):
    c = GameController()
    w = PlotsWidget(c)
    qtbot.addWidget(w)
    assert w.data.turns == () and w.hover_text("sides", 0) == ""


def test_the_charts_agree_with_the_turn_summaries(plots, controller, game):
    from gui.report import build_turn_summary

    controller.run(Override("unit", "va27", {"stands": 1}, "volley"))
    controller.run(NextPhase())
    controller.run(EndTurn())
    controller.run(EndTurn())
    controller.run(Override("unit", "ind19", {"stands": 2, "micro_hits": 0}, "canister"))
    d = plots.data
    for turn in (1, 2):
        s = build_turn_summary(game, turn)
        for side in s.side_losses:
            i = d.turns.index(turn)
            assert next(x for x in d.losses if x.key == side.id).values[i] == side.lost
            assert next(x for x in d.sides if x.key == side.id).values[i] == side.stands_after


def test_charts_count_whole_stands_from_zero_with_the_legend_above_the_data(plots):
    from gui.plots import integer_step

    assert [integer_step(t) for t in (5, 6, 6.5, 13, 30, 61, 250)] == [1, 1, 2, 5, 5, 20, 50]
    for key in ("sides", "brigades", "losses"):
        p = plots.plots[key]
        low, high = p.viewRange()[1]
        assert low == 0
        ticks = p.getAxis("left").tickValues(low, high, 200)
        assert all(float(v).is_integer() for _spacing, values in ticks for v in values), key
        legend = p.legend
        assert legend.opts["labelTextColor"] is not None
        assert legend.opts["brush"].color().alpha() > 200
        top = max((v or 0 for s in getattr(plots.data, key) for v in s.values), default=0)
        assert high > top  # room above the data for the legend
