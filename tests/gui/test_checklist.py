"""The phase checklist in the window: the Checklist dock ticks items off as they are done and selects
an item's unit when clicked; Next phase and End turn show what is left and ask to go on (the items
skipped logged in the same step) or to go back; a melee due in Phase 4 blocks, as the rules say."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialog

from gui.app import make_main_window
from gui.checklist import ChecklistView, PhaseEndDialog
from rules.actions import MoveUnit, NextPhase, Override
from rules.battle.words import Phase
from storage.game import Game
from storage.scenario import load_demo

ACCEPT, REJECT = QDialog.DialogCode.Accepted, QDialog.DialogCode.Rejected


@pytest.fixture
def demo_window(tmp_path, qtbot):
    g = Game.create(tmp_path / "oak-ridge.sqlite", load_demo())
    path = str(g.path)
    g.close()
    win = make_main_window(path)
    qtbot.addWidget(win)
    win.show()
    win.docks["checklist"].raise_()
    yield win
    win.controller.close()


def _row(view: ChecklistView, unit_id: str, kind: str = "move") -> tuple[str, bool]:
    for i, row in enumerate(view.rows()):
        item = view.item_at(i)
        if item.unit_id == unit_id and item.kind == kind:
            return row
    raise AssertionError(f"no {kind} row for {unit_id}: {view.rows()}")


def test_the_dock_ticks_a_unit_off_when_it_marches_and_back_on_undo(demo_window):
    win, c = demo_window, demo_window.controller
    view = win.checklist
    assert "Nothing is left" in view.heading_text()  # the demo's Phase 1
    c.run(NextPhase())
    assert _row(view, "va5") == ('Move: 5th Virginia has not moved: 6" of march in line (RULE-03-2.5)', False)
    assert "6 left" in view.heading_text()
    c.run(MoveUnit("va5", 50.0, 26.0, mode="march"))
    text, ticked = _row(view, "va5")
    assert ticked and "5th Virginia" in text
    assert "5 left, 1 done" in view.heading_text()
    c.undo()
    assert _row(view, "va5")[1] is False
    # behind the inspector's tab the list is not asked for; brought to the front it is up to date
    win.docks["inspector"].raise_()
    c.run(MoveUnit("va4", 34.0, 26.0, mode="march"))
    assert _row(view, "va4")[1] is False  # not asked yet
    win.docks["checklist"].raise_()
    assert _row(view, "va4")[1] is True
    # a new phase starts a new list
    c.run(NextPhase())
    assert all(item_kind == "fire" for item_kind in (view.item_at(i).kind for i in range(len(view.rows()))))


def test_clicking_an_item_selects_its_unit_and_its_target(demo_window):
    win, c = demo_window, demo_window.controller
    c.run(NextPhase())
    c.run(NextPhase())
    view = win.checklist
    row = next(i for i in range(len(view.rows())) if view.item_at(i).unit_id == "va4")
    item = view.item_at(row)
    assert item.kind == "fire" and item.other_id
    view.list.itemClicked.emit(view.list.item(row), 0)
    assert c.selection == ("va4", item.other_id)


def test_next_phase_shows_what_is_left_and_going_back_changes_nothing(demo_window, answer):
    win, c = demo_window, demo_window.controller
    c.run(NextPhase())
    seen: list[list[str]] = []

    def back(dlg: PhaseEndDialog):
        seen.append(dlg.lines())
        assert dlg.go_back_button.isDefault()
        return REJECT

    answer.dialog(back)
    n = c.game.last_seq
    win.next_phase_action.trigger()
    assert c.battle.phase == Phase.MANEUVER and c.game.last_seq == n
    lines = seen[0]
    assert lines[0] == "Phase 2: Active Maneuver & Assault"
    assert '  Move: 4th Virginia has not moved: 6" of march in line' in lines
    assert any("Meredith" in line for line in lines)


def test_going_on_logs_the_items_skipped_in_the_same_step_as_the_phase_change(demo_window, answer):
    win, c = demo_window, demo_window.controller
    c.run(NextPhase())
    c.run(MoveUnit("va5", 50.0, 26.0, mode="march"))
    answer.dialog(lambda dlg: ACCEPT)
    win.next_phase_action.trigger()
    assert c.battle.phase == Phase.RANGED
    left, change = c.events()[-2:]
    assert (left.type, change.type) == ("left_undone", "next_phase")
    assert left.phase == "maneuver"
    skipped = [s.text for s in left.steps]
    assert not any("5th Virginia" in t for t in skipped)  # it marched
    assert any("4th Virginia has not moved" in t for t in skipped)
    # one Undo takes back the phase change and the note together
    assert c.game.step_of(change.seq) == (left.seq, change.seq)
    win.undo_action.trigger()
    assert c.battle.phase == Phase.MANEUVER and c.events()[-1].type == "move_unit"


def test_end_turn_shows_every_phase_left_in_the_turn(demo_window, answer):
    win, c = demo_window, demo_window.controller
    c.run(NextPhase())
    titles: list[str] = []

    def go_on(dlg: PhaseEndDialog):
        titles.extend(dlg.tree.topLevelItem(i).text(0) for i in range(dlg.tree.topLevelItemCount()))
        assert "turn is not over" in dlg.heading.text()
        return ACCEPT

    answer.dialog(go_on)
    win.end_turn_action.trigger()
    assert titles == ["Phase 2: Active Maneuver & Assault", "Phase 3: Ranged Combat"]
    assert c.battle.active_side == "union" and c.battle.phase == Phase.COMMAND
    rec = [e for e in c.events() if e.type == "left_undone"][-1]
    assert {s.text.split(")")[0] for s in rec.steps} == {
        "Left undone (Phase 2: Active Maneuver & Assault",
        "Left undone (Phase 3: Ranged Combat",
    }


def test_with_nothing_left_the_phase_ends_without_a_question(demo_window):
    win, c = demo_window, demo_window.controller
    win.next_phase_action.trigger()  # Phase 1 of the demo: nothing open; no dialog may open
    assert c.battle.phase == Phase.MANEUVER and c.events()[-1].type == "next_phase"


def test_a_melee_due_blocks_the_end_of_phase_4_with_the_rules_reason(tmp_path, qtbot, answer):
    from rules.assault.actions import ChargeApproach
    from rules.dice import TableDice
    from tests.rules.melee.test_examples_ch06 import example_1

    g = Game.create(tmp_path / "ex1.sqlite", example_1(), seed=1)
    g.do(ChargeApproach("va4", "wis2"), TableDice([2, 4, 1, 6, 5, 5]))
    g.do(NextPhase())
    g.do(NextPhase())
    path = str(g.path)
    g.close()
    win = make_main_window(path)
    qtbot.addWidget(win)
    answer.record_messages()
    n = win.controller.game.last_seq
    win.next_phase_action.trigger()  # no checklist dialog: the rules refuse
    assert win.controller.battle.phase == Phase.MELEE and win.controller.game.last_seq == n
    assert answer.messages and "RULE-06-1.1" in answer.messages[0][1]
    win.controller.close()


def test_the_printed_turn_summary_says_what_was_left_undone_once_per_phase(tmp_path):
    from gui.report import build_turn_summary
    from gui.report_html import summary_html
    from rules.actions import Override
    from storage.checklist import left_open_items, phase_change_step

    with Game.create(tmp_path / "oak.sqlite", load_demo()) as g:
        g.do(Override("unit", "va4", {"name": "<b>4th</b> & Co"}, "a name to escape"))
        g.do(NextPhase())
        g.do_step(phase_change_step(NextPhase(), left_open_items(g)))
        page = summary_html(build_turn_summary(g, 1), None, None)
    assert "<h2 style='margin-top:16pt; margin-bottom:4pt'>Left undone</h2>" in page
    assert (
        "<b>Confederate — Phase 2: Active Maneuver &amp; Assault:</b> not moved: &lt;b&gt;4th&lt;/b&gt; &amp; Co"
        in page
    )
    # the record is told once: its event line carries only its summary, not every item again
    assert page.count("has not moved") == 0


def test_a_march_changes_its_own_row_and_leaves_the_others_alone(demo_window):
    """The dock updates the rows a step changes, in place: the others stay the same rows, not
    laid out and painted again; and the list reads as one filled afresh."""
    win, c = demo_window, demo_window.controller
    view = win.checklist
    c.run(NextPhase())
    view.finish()  # (the dock works its items out a moment after the step: here, now)
    other = ChecklistView(c)  # a second dock, its list emptied and filled afresh after each step
    other.set_shown(True)
    other.finish()

    def afresh() -> list[tuple[str, bool]]:
        other.list.clear()
        other._rows = []
        other.refresh()
        return other.rows()

    before = [view.list.item(i) for i in range(view.list.count())]
    changed: list[int] = []
    view.list.model().dataChanged.connect(lambda a, b, *_: changed.extend(range(a.row(), b.row() + 1)))
    c.run(MoveUnit("va5", 50.0, 26.0, mode="march"))
    view.finish()
    marched = next(i for i in range(view.list.count()) if view.item_at(i).unit_id == "va5")
    assert set(changed) == {marched}
    assert [view.list.item(i) for i in range(view.list.count())] == before
    assert view.rows()[marched][1] is True
    assert view.rows() == afresh()
    # a ruling that changes nothing in the list changes no row
    changed.clear()
    c.run(Override("unit", "va5", {"micro_hits": 1}, "ruled so"))
    view.finish()
    assert changed == []
    c.undo()
    c.undo()
    assert not view.rows()[marched][1]
    assert view.rows() == afresh()


def test_a_long_item_wraps_to_the_docks_width_and_again_when_it_is_widened(qtbot, demo_window):
    from PySide6.QtWidgets import QApplication

    c = demo_window.controller
    view = ChecklistView(c)
    qtbot.addWidget(view)
    view.resize(220, 400)
    view.show()
    view.set_shown(True)
    c.run(NextPhase())
    view.finish()
    QApplication.processEvents()
    line = view.list.fontMetrics().height()
    first = view.list.item(0)
    narrow = view.list.visualItemRect(first).height()
    assert narrow >= 2 * line  # "Move: 5th Virginia has not moved: ..." on two lines or more
    view.resize(900, 400)
    QApplication.processEvents()
    QApplication.processEvents()
    wide = view.list.visualItemRect(first).height()
    assert line <= wide < narrow


def test_phase_3s_items_are_worked_out_between_paints_and_end_as_the_rules_give_them(
    demo_window, qtbot, monkeypatch
):
    """A question that takes long (Phase 3's firers, none of them asked before) does not hold the
    window: the dock works on it a slice at a time, saying so, and ends with the rules' items; a
    change while it works starts it again on the new battle."""
    import rules.turn.fire_items as fire_items
    from storage.checklist import open_items

    win, c = demo_window, demo_window.controller
    view = win.checklist
    monkeypatch.setattr(ChecklistView, "WORK_SLICE_S", 0.0)  # a question at a time
    c.run(NextPhase())
    qtbot.waitUntil(lambda: view.up_to_date)
    fire_items._FIRE_MEMO.clear()
    c.run(NextPhase())  # Phase 3: every firer to ask about
    assert not view.up_to_date  # the window is painted before the checklist starts
    qtbot.waitUntil(lambda: "Working out what is left" in view.count.text())
    assert not view.up_to_date and view.list.count() == 0  # nothing of Phase 2 shown as Phase 3's
    c.run(Override("unit", "batb4us", {"stands": 0}, "the guns are silenced"))  # while it works
    qtbot.waitUntil(lambda: view.up_to_date)
    assert "Working out" not in view.count.text()
    want = open_items(c.game)
    assert [view.item_at(i) for i in range(len(view.rows()))] == list(want)
    assert not any(i.other_id == "batb4us" for i in want)


def test_another_game_opened_while_the_checklist_works_behind_a_tab_shows_only_its_own_items(
    demo_window, qtbot, monkeypatch, tmp_path
):
    """The checklist works on Phase 3 in slices; the dock goes behind the inspector's tab and
    another game, at the same turn, side and phase, is opened: brought to the front, the dock lists
    that game's items only, none of the first game's left over as done."""
    from dataclasses import replace

    import rules.turn.fire_items as fire_items
    from storage.checklist import open_items

    win, c = demo_window, demo_window.controller
    view = win.checklist
    monkeypatch.setattr(ChecklistView, "WORK_SLICE_S", 0.0)
    c.run(NextPhase())
    c.run(NextPhase())  # Phase 3
    view.finish()
    fire_items._FIRE_MEMO.clear()
    c.run(Override("unit", "batb4us", {"stands": 0}, "the guns are silenced"))
    qtbot.waitUntil(lambda: "Working out" in view.count.text())
    win.docks["inspector"].raise_()  # behind a tab, mid-way
    demo = load_demo()
    other = replace(demo, phase=Phase.RANGED).with_unit(demo.unit("va5").moved_to(20.0, 44.0))
    g = Game.create(tmp_path / "other.sqlite", other)
    c.set_game(g, str(g.path))
    qtbot.wait(100)
    win.docks["checklist"].raise_()
    want = open_items(c.game)
    assert [view.item_at(i) for i in range(len(view.rows()))] == list(want)
    assert not any(ticked for _text, ticked in view.rows())
