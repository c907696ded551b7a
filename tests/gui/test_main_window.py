"""The main window: start-up, menus and shortcuts, layout in QSettings, drag and drop, preferences."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDropEvent, QImage, QKeySequence
from PySide6.QtPrintSupport import QPrintPreviewDialog
from PySide6.QtWidgets import QDialog

from gui import dialogs, preferences
from gui.app import make_main_window
from rules.actions import MoveUnit
from rules.battle.words import Phase


@pytest.fixture
def window(qtbot, game):
    path = str(game.path)
    game.close()
    win = make_main_window(path)
    qtbot.addWidget(win)
    yield win
    win.controller.close()


def test_window_opens_the_game_given_and_shows_it_in_the_title(window):
    b = window.controller.battle
    assert b.name == "Small battle"
    assert (
        window.windowTitle()
        == "Small battle (small.sqlite) — Turn 1, Union to act, Phase 1: Command — Brigadier"
    )
    assert set(window.docks) == {"roster", "inspector", "checklist", "log", "plots", "legend"}
    assert window.centralWidget() is window.canvas
    assert "Turn 1" in window.turn_bar.turn.text()
    assert "Union" in window.turn_bar.side.text()
    assert "Meredith" in window.turn_bar.pips.text() and "Hood" in window.turn_bar.pips.text()
    # the plots dock is a clear, empty place for the reports module, not a fake chart
    assert "reports module" in window.plots_placeholder.text()


def test_window_without_a_game_starts_a_new_demo_game_then_reopens_the_last(qtbot, tmp_path):
    win = make_main_window(None)
    qtbot.addWidget(win)
    assert win.controller.battle.name == "Oak Ridge"
    demo_path = win.controller.path
    assert Path(demo_path).parent == tmp_path / "saves"
    # the demo's file is written by its first action, and only then remembered
    assert not Path(demo_path).exists() and QSettings().value("last_game") is None
    assert "from its first action" in win.statusBar().currentMessage()
    win.next_phase_action.trigger()
    assert Path(demo_path).exists()
    assert win.statusBar().currentMessage() == f"Saved: the game is kept in {demo_path}"
    assert QSettings().value("last_game") == str(Path(demo_path).resolve())
    assert str(Path(demo_path).resolve()) in win.recent_files()
    win.close()
    again = make_main_window(None)
    qtbot.addWidget(again)
    assert Path(again.controller.path).resolve() == Path(demo_path).resolve()
    assert again.controller.battle.phase == Phase.MANEUVER
    again.close()


def test_a_demo_looked_at_and_closed_leaves_no_file_and_the_next_start_is_a_new_demo(qtbot, tmp_path):
    win = make_main_window(None)
    qtbot.addWidget(win)
    first = win.controller.path
    win.controller.select(tuple(win.controller.battle.units)[:1])  # looking is not an action
    win.close()
    assert list((tmp_path / "saves").iterdir()) == []
    assert QSettings().value("last_game") is None
    again = make_main_window(None)
    qtbot.addWidget(again)
    assert again.controller.battle.name == "Oak Ridge" and again.controller.battle.turn == 1
    assert not Path(again.controller.path).exists()
    again.close()
    assert Path(first).exists() is False


def test_standard_shortcuts(window):
    sk = QKeySequence.StandardKey
    assert window.undo_action.shortcut() == QKeySequence(sk.Undo)
    assert window.redo_action.shortcut() == QKeySequence(sk.Redo)
    assert window.open_action.shortcut() == QKeySequence(sk.Open)
    assert window.new_action.shortcut() == QKeySequence(sk.New)
    assert window.quit_action.shortcut() == QKeySequence(sk.Quit)
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles == ["&File", "&Edit", "&View", "&Game", "&Help"]


def test_next_phase_updates_the_bar_and_title_and_undo_action_takes_it_back(window, answer):
    # the 19th Indiana is Disordered: the checklist asks before Phase 1 ends, and the umpire goes on
    answer.dialog(lambda dlg: QDialog.DialogCode.Accepted)
    window.next_phase_action.trigger()
    assert window.controller.battle.phase == Phase.MANEUVER
    assert "Phase 2" in window.turn_bar.phase.text()
    assert "Phase 2" in window.windowTitle()
    assert window.undo_action.isEnabled()
    window.undo_action.trigger()
    assert window.controller.battle.phase == Phase.COMMAND
    assert "Phase 1" in window.windowTitle()
    window.redo_action.trigger()
    assert window.controller.battle.phase == Phase.MANEUVER


def test_combat_menu_items_open_the_combat_dialogs(window, monkeypatch):
    opened = []
    monkeypatch.setattr(
        dialogs, "exec_dialog", lambda d: opened.append(type(d).__name__) or QDialog.DialogCode.Rejected
    )
    n = len(window.controller.events())
    window.charge_action.trigger()
    window.shoot_action.trigger()
    window.melee_action.trigger()
    assert len(opened) == 3, "each opens its dialog through the seam"
    assert len(window.controller.events()) == n, "a dialog cancelled does nothing"


def test_combat_menu_items_say_so_when_the_combat_dialogs_are_missing(window, answer, monkeypatch):
    import sys
    import types

    monkeypatch.setitem(sys.modules, "gui.play", types.ModuleType("gui.play"))
    answer.record_messages()
    window.charge_action.trigger()
    window.shoot_action.trigger()
    window.melee_action.trigger()
    titles = [m[0] for m in answer.messages]
    assert titles == ["Declare charge", "Shoot", "Resolve melee"]
    assert all("comes with the combat dialogs" in m[1] for m in answer.messages)


def test_a_refused_action_is_explained_to_the_umpire(window, answer):
    answer.record_messages()
    window.controller.run(MoveUnit(unit_id="wis2", x=500.0, y=10.0))
    assert answer.messages and "off the" in answer.messages[0][1]
    assert "Not done" in window.statusBar().currentMessage()


def test_opening_a_file_that_is_not_a_save_is_refused_with_the_reason(window, answer, tmp_path):
    answer.record_messages()
    bad = tmp_path / "notes.sqlite"
    bad.write_text("these are my notes, not a game")
    before = window.controller.game
    assert not window.open_path(str(bad))
    assert window.controller.game is before
    assert answer.messages[0][2] == "error" and "notes.sqlite" in answer.messages[0][1]


def test_dropping_a_save_on_the_window_opens_it(qtbot, window, tmp_path, small_battle):
    from dataclasses import replace

    from storage.game import Game

    other = tmp_path / "other.sqlite"
    Game.create(other, replace(small_battle, name="Second battle")).close()
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(other))])
    ev = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(ev)
    assert window.controller.battle.name == "Second battle"
    assert str(other.resolve()) == window.recent_files()[0]


def test_dock_layout_is_kept_in_qsettings(qtbot, window):
    window.docks["roster"].hide()
    path = window.controller.path
    window.close()
    again = make_main_window(path)
    qtbot.addWidget(again)
    assert again.docks["roster"].isHidden()
    assert not again.docks["log"].isHidden()
    again.close()


def test_open_recent_lists_the_games_opened(window):
    window._fill_recent()
    texts = [a.text() for a in window.recent_menu.actions()]
    assert texts == ["&1 small.sqlite"]


def test_export_map_writes_a_picture_of_the_table(window, tmp_path, monkeypatch):
    out = tmp_path / "map.png"
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(out))
    window.export_action.trigger()
    img = QImage(str(out))
    # the table at 20 pixels an inch, with its title above and its legend and scale bar below
    assert img.width() == 72 * 20 and img.height() > 48 * 20 + 60


def test_exported_map_leaves_out_the_umpires_arcs_and_sight_lines(window, tmp_path):
    plain, marked = tmp_path / "plain.png", tmp_path / "marked.png"
    assert window.render_map(str(plain))
    window.controller.select(["va4"])
    window.canvas.scene.show_line_of_sight("va27", "ind19")
    assert window.canvas.scene.tool_items()
    assert window.render_map(str(marked))
    assert QImage(str(plain)) == QImage(str(marked))
    # and the arcs and the sight line are still on the screen afterwards
    assert all(it.isVisible() for it in window.canvas.scene.tool_items())
    assert window.canvas.scene.units["va4"].isSelected()


def test_print_turn_summary_previews_this_turns_events(window, monkeypatch):
    window.controller.run(MoveUnit(unit_id="wis2", x=21.0, y=35.0))
    seen = []
    monkeypatch.setattr(dialogs, "exec_dialog", lambda d: seen.append(d) or QDialog.DialogCode.Rejected)
    window.print_action.trigger()
    assert isinstance(seen[0], QPrintPreviewDialog)
    text = window.turn_summary_html()
    assert "Small battle — turn 1" in text and "2nd Wisconsin moves" in text


def test_help_opens_the_rules_folder(window, monkeypatch, tmp_path):
    from gui import window_commands

    opened = []
    monkeypatch.setenv("BRIGADIER_RULEBOOK", str(tmp_path))
    monkeypatch.setattr(window_commands, "open_folder", opened.append)
    window.rules_action.trigger()
    assert opened == [tmp_path]


# -- preferences ---------------------------------------------------------------------------------

from gui.preferences import COL_KEY, COL_RULE, COL_VALUE  # noqa: E402


def test_preferences_show_club_defaults_highlighted(qtbot):
    from rules.tables import load_tables

    dlg = preferences.PreferencesDialog(load_tables())
    qtbot.addWidget(dlg)
    rows = {dlg.table.item(r, COL_KEY).text(): r for r in range(dlg.table.rowCount())}
    club = rows["command.staff_pips.per_brigade_per_turn"]
    ruled = rows["shooting.to_hit.short.rifled_musket"]
    assert dlg.table.item(club, 0).background().color() == dlg.CLUB_DEFAULT_BG
    assert dlg.table.item(club, COL_RULE).text() == "club default"
    assert dlg.table.item(ruled, 0).background().color() != dlg.CLUB_DEFAULT_BG
    assert dlg.table.item(ruled, COL_RULE).text() == "RULE-04-2.3"
    dlg.club_only.setChecked(True)
    assert dlg.table.isRowHidden(ruled) and not dlg.table.isRowHidden(club)


def test_preferences_loading_a_bad_club_table_shows_the_loaders_message(qtbot, tmp_path, answer):
    from rules.tables import load_tables

    answer.record_messages()
    bad = tmp_path / "melee.toml"
    bad.write_text('[modifier]\nfresh = { value = 9, rule = "RULE-06-3.3" }\n')
    dlg = preferences.PreferencesDialog(load_tables())
    qtbot.addWidget(dlg)
    assert not dlg.load_club(str(bad))
    title, text, kind = answer.messages[0]
    assert kind == "error"
    assert f"{bad}, line 2: melee.modifier.fresh is 9, outside -6 to 6" in text
    assert "line 2" in dlg.error.text()
    assert dlg.club_path == ""


def test_preferences_refuse_a_club_copy_that_changes_a_rule_with_its_file_line_and_rule(
    qtbot, tmp_path, answer
):
    """Preferences says a club copy cannot change a row a chapter gives; loading one that does is
    refused with the file, the line and the rule, and the tables for new games stay as they were."""
    from rules.tables import load_tables

    answer.record_messages()
    bad = tmp_path / "shooting.toml"
    bad.write_text('[range_band]\nshort = { value = 5.0, rule = "RULE-04-2.3" }\n')
    dlg = preferences.PreferencesDialog(load_tables())
    qtbot.addWidget(dlg)
    assert "a club copy that changes one is refused" in dlg.intro.text()
    assert not dlg.load_club(str(bad))
    _, text, kind = answer.messages[0]
    assert kind == "error"
    assert f"{bad}, line 2: shooting.range_band.short is 6.0 by RULE-04-2.3" in text
    assert dlg.club_path == "" and dlg.new_game_tables.value("shooting.range_band.short") == 6.0


def test_preferences_loading_a_good_club_table_marks_what_it_changes(qtbot, tmp_path, window, answer):
    good = tmp_path / "command.toml"
    good.write_text(
        '[staff_pips]\nper_brigade_per_turn = { value = 4, club_default = true, reason = "our club" }\n'
    )

    def accept(dlg):
        assert dlg.load_club(str(good))
        rows = {dlg.table.item(r, COL_KEY).text(): r for r in range(dlg.table.rowCount())}
        r = rows["command.staff_pips.per_brigade_per_turn"]
        assert dlg.table.item(r, 1).text() == "4"
        assert dlg.table.item(r, 0).background().color() == dlg.OVERRIDDEN_BG
        return QDialog.DialogCode.Accepted

    answer.dialog(accept)
    window.prefs_action.trigger()
    assert window.club_tables_path == str(good)
    assert QSettings().value("club_tables") == str(good)
    assert window.club_tables().value("command.staff_pips.per_brigade_per_turn") == 4


def _rows(dlg):
    return {dlg.table.item(r, COL_KEY).text(): r for r in range(dlg.table.rowCount())}


def test_preferences_show_the_rule_tables_of_the_open_game(qtbot, tmp_path, small_battle, answer):
    from rules.tables import load_tables
    from storage.game import Game

    played = load_tables().with_values({"command.staff_pips.per_brigade_per_turn": 3})
    path = tmp_path / "club-game.sqlite"
    Game.create(path, small_battle, seed=1, tables=played).close()
    win = make_main_window(str(path))
    qtbot.addWidget(win)
    try:
        seen = {}

        def look(dlg):
            seen["showing"] = dlg.showing
            r = _rows(dlg)["command.staff_pips.per_brigade_per_turn"]
            seen["value"] = dlg.table.item(r, 1).text()
            seen["source"] = dlg.source.text()
            seen["note"] = dlg.note.text()
            return QDialog.DialogCode.Rejected

        answer.dialog(look)
        win.prefs_action.trigger()
        # the game's own 3, not the bundled 1 that new games would use
        assert seen["showing"] == preferences.PreferencesDialog.GAME
        assert seen["value"] == "3"
        assert "open game's tables, in force now" in seen["source"]
        assert "keeps the tables it was started with" in seen["note"]
    finally:
        win.controller.close()


def test_preferences_loading_a_club_copy_says_it_is_for_new_games_not_the_open_game(
    qtbot, tmp_path, window, answer
):
    good = tmp_path / "command.toml"
    good.write_text(
        '[staff_pips]\nper_brigade_per_turn = { value = 4, club_default = true, reason = "our club" }\n'
    )
    game_value = window.controller.tables.value("command.staff_pips.per_brigade_per_turn")

    def load(dlg):
        assert dlg.load_club(str(good))
        assert dlg.showing == dlg.NEW_GAMES
        assert "used for the games you start from now on" in dlg.note.text()
        assert "do not apply to the open game" in dlg.note.text()
        dlg.view.setCurrentIndex(dlg.view.findData(dlg.GAME))
        r = _rows(dlg)["command.staff_pips.per_brigade_per_turn"]
        assert dlg.table.item(r, 1).text() == str(game_value)
        return QDialog.DialogCode.Accepted

    answer.dialog(load)
    window.prefs_action.trigger()
    assert window.controller.tables.value("command.staff_pips.per_brigade_per_turn") == game_value != 4
    assert window.club_tables().value("command.staff_pips.per_brigade_per_turn") == 4
    assert "open game keeps its own" in window.statusBar().currentMessage()


def test_preferences_without_a_game_show_the_tables_for_new_games(qtbot):
    from rules.tables import load_tables

    dlg = preferences.PreferencesDialog(load_tables())
    qtbot.addWidget(dlg)
    assert dlg.showing == dlg.NEW_GAMES and dlg.view.count() == 1
    assert "No game is open" in dlg.note.text()
    dlg.use_bundled()
    assert "do not apply to the open game" not in dlg.note.text()


def test_preferences_show_the_numbers_the_rules_fix_as_fixed(qtbot):
    from rules.tables import load_tables

    dlg = preferences.PreferencesDialog(load_tables())
    qtbot.addWidget(dlg)
    rows = _rows(dlg)
    for key, rule in (
        ("units.health.fresh_above_percent", "RULE-06-3.3"),
        ("units.health.spent_below_percent", "RULE-06-1.3"),
        ("terrain.arc.flank_zone_deg", "RULE-04-5.1 (Refuse the Flank, 5.0)"),
    ):
        r = rows[key]
        assert dlg.table.item(r, COL_RULE).text() == f"{rule} (fixed)"
        assert dlg.table.item(r, 0).background().color() == dlg.FIXED_BG
        assert not dlg.table.item(r, COL_VALUE).flags() & Qt.ItemFlag.ItemIsEditable  # read-only
    # a number a chapter gives is read-only too (a club copy changes club defaults only), not grey
    given = rows["melee.modifier.fresh"]
    assert dlg.table.item(given, COL_RULE).text() == "RULE-06-3.3"
    assert not dlg.table.item(given, COL_VALUE).flags() & Qt.ItemFlag.ItemIsEditable
    assert dlg.table.item(given, 0).background().color() != dlg.FIXED_BG
    free = rows["movement.rate.assault_column"]  # a club default: editable
    assert dlg.table.item(free, COL_RULE).text() == "club default"
    assert dlg.table.item(free, COL_VALUE).flags() & Qt.ItemFlag.ItemIsEditable
    assert dlg.table.item(free, 0).background().color() != dlg.FIXED_BG


def test_new_from_scenario_starts_a_saved_game_from_the_file_chosen(window, tmp_path, monkeypatch):
    from importlib import resources

    demo = str(resources.files("resources").joinpath("scenarios", "demo.toml"))
    target = tmp_path / "oak.sqlite"
    monkeypatch.setattr(dialogs, "ask_open_path", lambda *a, **k: demo)
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(target))
    window.new_action.trigger()
    assert window.controller.battle.name == "Oak Ridge"
    assert target.exists() and window.controller.path == str(target)
    assert "oak.sqlite" in window.windowTitle()


def test_new_from_a_broken_scenario_says_where_it_is_wrong(window, tmp_path, monkeypatch, answer):
    answer.record_messages()
    bad = tmp_path / "bad.toml"
    bad.write_text('[battle]\nname = "Broken"\n[[sides]]\nid = "a"\n')
    monkeypatch.setattr(dialogs, "ask_open_path", lambda *a, **k: str(bad))
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(tmp_path / "never.sqlite"))
    window.new_action.trigger()
    assert answer.messages and answer.messages[0][2] == "error"
    assert "bad.toml" in answer.messages[0][1]
    assert window.controller.battle.name == "Small battle"
    assert not (tmp_path / "never.sqlite").exists()


def test_save_as_copies_the_game_and_goes_on_in_the_copy(window, tmp_path, monkeypatch):
    window.controller.run(MoveUnit(unit_id="wis2", x=21.0, y=35.0))
    copy = tmp_path / "copy.sqlite"
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(copy))
    window.save_as_action.trigger()
    assert window.controller.path == str(copy)
    assert [e.summary for e in window.controller.events()][0].startswith("2nd Wisconsin moves")
    window.controller.run(MoveUnit(unit_id="wis2", x=22.0, y=35.0))
    from storage.game import Game

    with Game.open(tmp_path / "small.sqlite") as original:
        assert original.battle.units["wis2"].x == 21.0, "the original stays as it was saved"


def test_open_through_the_file_dialog(window, tmp_path, monkeypatch, small_battle):
    from dataclasses import replace

    from storage.game import Game

    other = tmp_path / "third.sqlite"
    Game.create(other, replace(small_battle, name="Third battle")).close()
    monkeypatch.setattr(dialogs, "ask_open_path", lambda *a, **k: str(other))
    window.open_action.trigger()
    assert window.controller.battle.name == "Third battle"
    # cancelling the dialog changes nothing
    monkeypatch.setattr(dialogs, "ask_open_path", lambda *a, **k: None)
    window.open_action.trigger()
    assert window.controller.battle.name == "Third battle"


def test_run_shows_the_window_and_returns_when_it_is_closed(qtbot, game):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from gui.app import run

    path = str(game.path)
    game.close()
    seen = []

    def close_it():
        wins = [
            w for w in QApplication.topLevelWidgets() if w.objectName() == "main_window" and w.isVisible()
        ]
        seen.extend(w.windowTitle() for w in wins)
        for w in wins:
            w.close()
        QApplication.instance().quit()

    QTimer.singleShot(200, close_it)
    assert run(path) == 0
    assert seen and seen[0].startswith("Small battle (small.sqlite)")
    # closing the last window posted a Quit that is still queued: an application loop of its own
    # takes it, or it would stop every event loop of the tests after this one
    QTimer.singleShot(0, QApplication.instance().quit)
    QApplication.instance().exec()


def test_undo_reaches_events_saved_before_the_window_opened(qtbot, game):
    game.do(MoveUnit(unit_id="tx1", x=51.0, y=12.0))
    path = str(game.path)
    game.close()
    win = make_main_window(path)
    qtbot.addWidget(win)
    assert win.undo_action.isEnabled() and not win.redo_action.isEnabled()
    win.undo_action.trigger()
    assert win.controller.battle.units["tx1"].x == 50
    assert not win.undo_action.isEnabled() and win.redo_action.isEnabled()
    win.redo_action.trigger()
    assert win.controller.battle.units["tx1"].x == 51.0
    win.controller.run(MoveUnit(unit_id="tx1", x=52.0, y=12.0))
    assert win.undo_action.text().startswith("&Undo 1st Texas moves")
    win.close()


def test_turn_bar_lists_each_brigade_or_sums_a_big_battle_by_side(qtbot, tmp_path):
    from benchmarks.generate import big_battle
    from gui.controller import GameController
    from gui.turn_bar import TurnBar
    from storage.game import Game

    game = Game.create(tmp_path / "big.sqlite", big_battle(), seed=1)
    c = GameController()
    c.set_game(game, str(game.path))
    bar = TurnBar(c)
    qtbot.addWidget(bar)
    # 40 brigades of 3 pips: more than the bar lists one by one
    assert "Union: 20 brigades, 60 pips, 0 reserved" in bar.pips.text()
    assert bar.pips.toolTip().count("\n") == 40
    c.close()


def test_turn_bar_counts_the_brigades_still_to_arrive_apart(qtbot, tmp_path):
    """The Round Tops: twelve Union brigades come on later; the bar's totals are of the nine on
    the field, with the twelve to arrive said apart (and each named so in the tooltip)."""
    from gui.controller import GameController
    from gui.turn_bar import TurnBar
    from storage.game import Game
    from storage.scenario import load_bundled

    game = Game.create(tmp_path / "round_tops.sqlite", load_bundled("gettysburg_day2"), seed=1)
    c = GameController()
    c.set_game(game, str(game.path))
    bar = TurnBar(c)
    qtbot.addWidget(bar)
    assert "Union: 9 brigades, 18 pips, 9 reserved, 12 to arrive" in bar.pips.text()
    assert "(Col. Strong Vincent) — to arrive" in bar.pips.toolTip()
    assert "Confederate: 11 brigades, 33 pips, 0 reserved<" in bar.pips.text() + "<"
    # the umpire removes Vincent's regiments: a change of units alone, and the bar follows it (his
    # brigade, empty, is counted as the umpire's new brigades are; eleven to arrive)
    from rules.actions import RemoveUnit

    for uid in ("me20", "mi16", "ny44", "pa83"):
        c.run(RemoveUnit(unit_id=uid))
    assert "Union: 10 brigades, 20 pips, 10 reserved, 11 to arrive" in bar.pips.text()
    c.close()


def test_turn_bar_lists_up_to_eight_brigades_one_by_one(qtbot, controller):
    from gui.turn_bar import TurnBar
    from rules.actions import AddBrigade

    bar = TurnBar(controller)
    qtbot.addWidget(bar)
    for i in range(5):  # 3 + 5 = 8 brigades: each is listed
        controller.run(
            AddBrigade(
                brigade={
                    "id": f"b{i}",
                    "name": f"Brigade {i}",
                    "side": "union",
                    "brigadier": {"name": f"General {i}"},
                }
            )
        )
    assert "General 4" in bar.pips.text() and "brigades" not in bar.pips.text()
    controller.run(
        AddBrigade(
            brigade={"id": "b9", "name": "Brigade 9", "side": "csa", "brigadier": {"name": "General 9"}}
        )
    )
    assert "General 4" not in bar.pips.text()
    assert "Union: 6 brigades" in bar.pips.text() and "Confederate: 3 brigades" in bar.pips.text()


def test_reserve_a_staff_pip_for_the_selected_units_brigade(window, answer):
    answer.record_messages()
    window.reserve_pip_action.trigger()  # nothing selected, and the Union has one brigade: Iron
    assert window.controller.battle.brigades["iron"].staff_pips_reserved == 1
    window.controller.select(["ind19"])
    window.reserve_pip_action.trigger()
    b = window.controller.battle.brigades["iron"]
    assert (b.staff_pips, b.staff_pips_reserved) == (1, 2)
    assert "◐◐" in window.turn_bar.pips.text()
    # RULE-04-1.3: pips are reserved in the brigade's own Phase 1; the Confederates are not active
    window.controller.select(["va4"])
    window.reserve_pip_action.trigger()
    assert answer.messages and "RULE-04-1.3" in answer.messages[-1][1]
    assert window.controller.battle.brigades["stonewall"].staff_pips_reserved == 0


def test_a_damaged_last_game_is_skipped_quietly_at_start(qtbot, tmp_path):
    bad = tmp_path / "damaged.sqlite"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    s = QSettings()
    s.setValue("last_game", str(bad))
    s.sync()
    win = make_main_window(None)  # no message box: the autouse fixture would fail the test
    qtbot.addWidget(win)
    assert win.controller.battle.name == "Oak Ridge"
    assert "damaged.sqlite could not be opened" in win.statusBar().currentMessage()
    assert "from its first action" in win.statusBar().currentMessage()
    assert QSettings().value("last_game") is None  # the damaged file is not tried again
    win.next_phase_action.trigger()
    assert QSettings().value("last_game") == str(Path(win.controller.path).resolve())
    assert bad.read_bytes() == b"SQLite format 3\x00" + b"\x00" * 200
    win.close()


def test_turn_bar_shows_the_melees_waiting_for_phase_4(qtbot, tmp_path):
    """RULE-06-1.1: an assault that made contact in Phase 2 is resolved in Phase 4; the bar says so."""
    from gui.controller import GameController
    from gui.turn_bar import TurnBar
    from rules.assault.actions import ChargeApproach
    from rules.dice import TableDice
    from storage.game import Game
    from tests.rules.melee.test_examples_ch06 import example_1

    g = Game.create(tmp_path / "melee.sqlite", example_1(), seed=1)
    c = GameController()
    c.set_game(g, str(g.path))
    bar = TurnBar(c)
    qtbot.addWidget(bar)
    assert "pending" not in bar.phase.text()
    assert c.run(ChargeApproach("va4", "wis2"), TableDice([2, 4, 1, 6, 5, 5])) is not None
    assert "1 melee pending" in bar.phase.text()
    c.undo()
    assert "pending" not in bar.phase.text()
    c.close()


# -- the demo game before its file is written ------------------------------------------------------


@pytest.fixture
def demo_window(qtbot):
    win = make_main_window(None)
    qtbot.addWidget(win)
    assert not win.controller.game.written
    yield win
    win.controller.close()


def test_save_as_writes_a_demo_not_yet_saved_at_the_name_chosen_and_nowhere_else(
    demo_window, tmp_path, monkeypatch
):
    first = Path(demo_window.controller.path)
    chosen = tmp_path / "our-oak-ridge.sqlite"
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(chosen))
    demo_window.save_as_action.trigger()
    assert chosen.exists() and not first.exists()
    assert demo_window.controller.path == str(chosen) and demo_window.controller.game.written
    assert QSettings().value("last_game") == str(chosen.resolve())
    demo_window.next_phase_action.trigger()
    from storage.game import Game

    with Game.open(chosen) as g:
        assert g.battle.phase == Phase.MANEUVER and g.meta["name"] == "Oak Ridge"


def test_save_as_its_own_name_writes_a_demo_not_yet_saved(demo_window, monkeypatch):
    own = demo_window.controller.path
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: own)
    demo_window.save_as_action.trigger()
    assert Path(own).exists() and demo_window.controller.game.written
    assert QSettings().value("last_game") == str(Path(own).resolve())


def test_a_demo_whose_file_name_was_taken_is_rescued_by_save_as(demo_window, tmp_path, monkeypatch, answer):
    answer.record_messages()
    taken = Path(demo_window.controller.path)
    taken.write_bytes(b"another program's file")
    failures = []
    demo_window.controller.actionFailed.connect(failures.append)
    from rules.actions import NextPhase

    demo_window.controller.run(NextPhase())
    assert failures and "already exists" in failures[0]
    assert taken.read_bytes() == b"another program's file"
    rescue = tmp_path / "rescue.sqlite"
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(rescue))
    demo_window.save_as_action.trigger()
    assert demo_window.controller.path == str(rescue)
    demo_window.next_phase_action.trigger()
    assert demo_window.controller.battle.phase == Phase.MANEUVER
    assert taken.read_bytes() == b"another program's file"


def test_save_as_into_a_folder_that_is_not_there_says_so_and_leaves_no_file(
    window, tmp_path, monkeypatch, answer
):
    answer.record_messages()
    nowhere = tmp_path / "no-such-folder" / "copy.sqlite"
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(nowhere))
    window.save_as_action.trigger()
    assert answer.messages and answer.messages[0][0] == "Save as" and answer.messages[0][2] == "error"
    assert not nowhere.exists() and window.controller.path == str(tmp_path / "small.sqlite")


def test_the_meta_of_a_demo_not_yet_saved_is_read_without_writing_it(demo_window):
    meta = demo_window.controller.game.meta
    assert meta["name"] == "Oak Ridge" and meta["app"] == "brigadier"
    assert not Path(demo_window.controller.path).exists()


def test_the_save_file_alone_holds_the_game_a_moment_after_the_last_action(window, qtbot, tmp_path, answer):
    import shutil

    from gui.controller import CHECKPOINT_AFTER_MS
    from storage.game import Game

    answer.dialog(lambda dlg: QDialog.DialogCode.Accepted)  # go on past the Disordered 19th Indiana
    window.next_phase_action.trigger()
    path = Path(window.controller.path)
    wal = Path(str(path) + "-wal")
    assert wal.stat().st_size > 0  # the action is safe in the -wal file at once
    qtbot.waitUntil(lambda: wal.stat().st_size == 0, timeout=CHECKPOINT_AFTER_MS + 5000)
    (tmp_path / "stick").mkdir()
    shutil.copy(path, tmp_path / "stick" / path.name)  # the .sqlite alone, as to a USB stick
    with Game.open(tmp_path / "stick" / path.name) as copy:
        assert copy.battle.phase == Phase.MANEUVER and copy.last_seq == 2  # the note and the phase


@pytest.mark.parametrize("started_as", ["brigadier", "__main__.py", "python", "", "Brigadier"])
def test_the_settings_are_brigadiers_however_it_is_started(started_as):
    from PySide6.QtCore import QCoreApplication

    from gui.app import application

    kept = QCoreApplication.applicationName()
    try:
        QCoreApplication.setApplicationName(started_as)
        application()
        # the name the installed command has always kept its settings under
        assert QCoreApplication.applicationName() == "brigadier"
    finally:
        QCoreApplication.setApplicationName(kept)
    application()
    assert QCoreApplication.applicationName() == kept  # a test's own name is kept


def test_the_plots_dock_grows_to_a_readable_height_when_shown(window, qtbot):
    window.resize(1440, 900)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(50)
    before = window.docks["log"].height()
    assert before < 300
    window.docks["plots"].raise_()
    qtbot.waitUntil(lambda: window.docks["plots"].height() > before + 50, timeout=3000)
    assert window.docks["plots"].height() <= window.height() // 2  # the map keeps half the window


def test_the_warm_up_makes_the_windows_charge_dialog_and_a_battle_it_cannot_ask_leaves_it_for_later(
    qtbot, window, monkeypatch
):
    """A moment after the window is shown its warm-up makes its Charge dialog, unseen, which
    Game > Declare charge then opens; a battle whose charges cannot be asked leaves the dialog to
    be made when a charge is first declared, and the warm-up ends all the same."""
    from gui.combat_dialogs import charge as charge_module

    window.show()
    qtbot.waitUntil(lambda: window.warmed_up, timeout=5000)
    kept = charge_module._KEPT_DIALOGS.get(id(window))
    assert kept is not None and not kept.isVisible()
    assert (
        charge_module.charge_dialog(window.controller.battle, window.controller.tables, None, None, window)
        is kept
    )

    from rules.errors import RulesError

    def refuses(*_a, **_k):
        raise RulesError("no charges here")

    other = make_main_window(None)  # (the demo)
    qtbot.addWidget(other)
    monkeypatch.setattr(charge_module, "charge_dialog", refuses)
    other.show()
    qtbot.waitUntil(lambda: other.warmed_up, timeout=5000)
    assert id(other) not in charge_module._KEPT_DIALOGS
    other.controller.close()
