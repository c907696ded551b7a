"""The inspector's overrides with a reason, and the battle log with "undo to here"."""

from __future__ import annotations

from gui.inspector import InspectorView
from gui.log_text import event_units
from gui.log_view import LogView
from rules.actions import MoveUnit, NextPhase
from rules.battle.words import BrigadeState, Marker


def make_inspector(qtbot, controller):
    v = InspectorView(controller)
    qtbot.addWidget(v)
    return v


def test_inspector_shows_the_selected_unit_whole(qtbot, controller):
    v = make_inspector(qtbot, controller)
    assert v.empty.isVisibleTo(v)
    controller.select(["ind19"])
    assert "19th Indiana" in v.title.text()
    assert (v.stands.value(), v.micro.value()) == (4, 1)
    assert v.stands_start.text() == "of 5 at the start"
    assert v.markers[Marker.DISORDER].isChecked() and not v.markers[Marker.FIRED].isChecked()
    assert v.health.text() == "Fresh"
    assert (v.pips.value(), v.reserved.value()) == (3, 0)
    assert not v.override_button.isEnabled()
    controller.select(["ind19", "wis2"])
    assert "2 units selected" in v.empty.text()


def test_inspector_override_asks_a_reason_and_logs_it(qtbot, controller, answer):
    v = make_inspector(qtbot, controller)
    controller.select(["ind19"])
    v.stands.setValue(3)
    v.markers[Marker.DISORDER].setChecked(False)
    v.pips.setValue(1)
    # RULE-06-3.3: 3 of 5 stands is 60%, not more than 75%: Worn, shown before the ruling is made
    assert v.health.text() == "Worn"
    assert v.override_button.isEnabled()
    assert v.unit_values() == {"stands": 3, "markers": []}
    assert v.brigade_values() == {"staff_pips": 1}
    answer.reason("the 19th lost a stand to the battery the players forgot")
    n = len(controller.events())
    v.override()
    assert answer.reasons and "19th Indiana" in answer.reasons[0]
    u = controller.battle.units["ind19"]
    assert (u.stands, u.markers) == (3, frozenset())
    assert controller.battle.brigades["iron"].staff_pips == 1
    events = controller.events()
    assert len(events) == n + 2
    assert {e.action.type for e in events[-2:]} == {"override"}
    assert events[-1].action.reason == "the 19th lost a stand to the battery the players forgot"
    # one undo takes back the whole ruling
    controller.undo()
    assert controller.battle.units["ind19"].stands == 4
    assert controller.battle.brigades["iron"].staff_pips == 3
    assert v.stands.value() == 4


def test_inspector_override_cancelled_changes_nothing(qtbot, controller, answer):
    v = make_inspector(qtbot, controller)
    controller.select(["va4"])
    v.state.setCurrentIndex(v.state.findData(BrigadeState.HESITANT.value))
    answer.reason(None)
    n = len(controller.events())
    v.override()
    assert len(controller.events()) == n
    assert controller.battle.brigades["stonewall"].state == BrigadeState.STEADY
    assert v.override_button.isEnabled(), "the edit waits for a reason"
    v.revert_button.click()
    assert not v.override_button.isEnabled()


def test_inspector_follows_changes_made_elsewhere(qtbot, controller):
    v = make_inspector(qtbot, controller)
    controller.select(["wis2"])
    controller.run(MoveUnit(unit_id="wis2", x=25.0, y=30.0, facing_deg=45.0))
    assert (v.x.value(), v.y.value(), v.facing.value()) == (25.0, 30.0, 45.0)


def make_log(qtbot, controller):
    v = LogView(controller)
    qtbot.addWidget(v)
    return v


def test_log_groups_events_by_turn_and_phase(qtbot, controller):
    log = make_log(qtbot, controller)
    controller.run(MoveUnit(unit_id="wis2", x=21.0, y=35.0))
    controller.run(NextPhase())
    controller.run(MoveUnit(unit_id="ind19", x=31.0, y=35.0))
    assert log.count.text() == "3 event(s)"
    turn = log.tree.topLevelItem(0)
    assert turn.text(0) == "Turn 1"
    phases = [turn.child(i).text(0) for i in range(turn.childCount())]
    assert phases == ["Union — Phase 1: Command", "Union — Phase 2: Active Maneuver & Assault"]
    assert turn.child(0).child(0).text(0).startswith("#1  2nd Wisconsin moves")
    # an event is filed under the phase it was taken in: "next phase" belongs to Phase 1
    assert turn.child(0).child(1).text(0).startswith("#2  ")
    assert turn.child(1).child(0).text(0).startswith("#3  19th Indiana moves")


def test_log_click_shows_the_detail_and_highlights_the_units(qtbot, controller):
    log = make_log(qtbot, controller)
    highlighted = []
    controller.highlightRequested.connect(highlighted.append)
    controller.run(MoveUnit(unit_id="va4", x=22.0, y=16.0))
    log.select_seq(1)
    assert "4th Virginia moves" in log.detail.toPlainText()
    assert highlighted[-1] == ("va4",)
    assert event_units(controller.events()[0]) == ["va4"]


def test_log_undo_to_here_takes_the_battle_back_to_just_after_the_event(qtbot, controller, answer):
    log = make_log(qtbot, controller)
    start = controller.battle.units["wis2"]
    controller.run(MoveUnit(unit_id="wis2", x=21.0, y=35.0))
    controller.run(MoveUnit(unit_id="wis2", x=22.0, y=34.0))
    controller.run(MoveUnit(unit_id="wis2", x=23.0, y=33.0))
    log.select_seq(3)
    assert not log.undo_here.isEnabled(), "the last event is already 'here'"
    log.select_seq(1)
    assert log.undo_here.isEnabled()
    answer.yes_no(False)
    log.undo_to_selected()
    assert len(controller.events()) == 3
    answer.yes_no(True)
    log.undo_to_selected()
    assert "Undo the last 2 event(s)" in answer.questions[-1]
    assert [e.seq for e in controller.events()] == [1]
    assert (controller.battle.units["wis2"].x, controller.battle.units["wis2"].y) == (21.0, 35.0)
    assert log.count.text() == "1 event(s)"
    # redo puts the undone events back, and the log shows them again
    controller.redo()
    controller.redo()
    assert controller.battle.units["wis2"].x == 23.0
    assert log.count.text() == "3 event(s)"
    assert start.x == 20


def test_undo_to_here_reaches_events_from_before_this_session(qtbot, controller, answer, game):
    # events done on the game directly are not on this session's undo stack
    game.do(MoveUnit(unit_id="tx1", x=51.0, y=12.0))
    game.do(MoveUnit(unit_id="tx1", x=52.0, y=12.0))
    controller.set_game(game, str(game.path))
    log = make_log(qtbot, controller)
    assert log.count.text() == "2 event(s)"
    log.select_seq(1)
    answer.yes_no(True)
    log.undo_to_selected()
    assert controller.battle.units["tx1"].x == 51.0
    assert log.count.text() == "1 event(s)"


def test_an_action_that_cannot_be_saved_is_reported_and_changes_nothing(qtbot, controller, game):
    failures = []
    controller.actionFailed.connect(failures.append)
    before = controller.battle
    game.close()  # the save is no longer writable
    assert controller.run(MoveUnit(unit_id="wis2", x=21.0, y=35.0)) is None
    assert failures and "the game has been closed" in failures[0]
    assert controller.battle is before
    assert not controller.can_undo


def test_undo_and_redo_across_the_start_of_the_session_keep_the_journals_order(qtbot, game):
    from gui.controller import GameController

    game.do(MoveUnit(unit_id="tx1", x=51.0, y=12.0))  # saved before this session
    c = GameController()
    c.set_game(game, str(game.path))
    c.run(MoveUnit(unit_id="wis2", x=21.0, y=35.0))  # this session
    c.undo()
    c.undo()
    assert (c.battle.units["tx1"].x, c.battle.units["wis2"].x) == (50, 20)
    c.redo()  # the older event comes back first
    assert (c.battle.units["tx1"].x, c.battle.units["wis2"].x) == (51.0, 20)
    c.redo()
    assert (c.battle.units["tx1"].x, c.battle.units["wis2"].x) == (51.0, 21.0)
    assert [e.seq for e in c.events()] == [1, 2]


def test_log_search_shows_only_the_matching_events(qtbot, controller):
    log = make_log(qtbot, controller)
    controller.run(MoveUnit(unit_id="wis2", x=21.0, y=35.0))
    controller.run(NextPhase())
    controller.run(MoveUnit(unit_id="ind19", x=31.0, y=35.0))
    log.search.setText("indiana")
    assert log.count.text() == "1 of 3 event(s)"
    turn = log.tree.topLevelItem(0)
    assert turn.child(0).isHidden(), "Phase 1 holds no match"
    assert not turn.child(1).isHidden()
    log.search.setText("no such words")
    assert turn.isHidden()
    log.search.clear()
    assert log.count.text() == "3 event(s)" and not turn.isHidden()
