"""The window and another copy of Brigadier on the same save; bad files at the window's doors.

A window has a save open; the command line (another :class:`Game` on the file) undoes the last
action and makes a new one. The window's next action, undo or redo is refused with "this game was
changed by another copy", nothing is written, and the window offers to read the game again
(through ``dialogs.ask_yes_no``). Read again, it shows the other copy's game and plays on.
"""

from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import QSettings

from gui.app import make_main_window
from gui.copies import RELOAD_TITLE
from rules.actions import NextPhase, Override
from storage.game import Game
from storage.replay import verify
from storage.scenario import bundled_text, load_demo


@pytest.fixture
def save(tmp_path):
    p = tmp_path / "s.sqlite"
    with Game.create(p, load_demo(), seed=3) as g:
        g.do(NextPhase())
        g.do(Override("unit", "va4", {"stands": 4}, "a"))
    return p


def _journal(path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT seq, action FROM journal ORDER BY seq").fetchall()
    finally:
        conn.close()


def _change_elsewhere(path) -> None:
    with Game.open(path) as cli:
        cli.undo()
        cli.do(Override("unit", "va4", {"stands": 1}, "x"))


def _asked(monkeypatch, reply: bool) -> list[tuple[str, str]]:
    from gui import dialogs

    asked: list[tuple[str, str]] = []

    def fake(parent, title, text):
        asked.append((title, text))
        return reply

    monkeypatch.setattr(dialogs, "ask_yes_no", fake)
    return asked


@pytest.mark.parametrize("what", ["action", "undo", "redo", "undo_to"])
def test_the_window_refuses_what_another_copy_changed_and_offers_to_read_it_again(
    qtbot, save, monkeypatch, what
):
    win = make_main_window(str(save))
    qtbot.addWidget(win)
    c = win.controller
    if what == "redo":
        c.undo()
    _change_elsewhere(save)
    before = _journal(save)
    asked = _asked(monkeypatch, False)
    failed = []
    c.actionFailed.connect(failed.append)
    with qtbot.waitSignal(c.changedElsewhere) as sig:
        {
            "action": lambda: c.run(NextPhase()),
            "undo": c.undo,
            "redo": c.redo,
            "undo_to": lambda: c.undo_to(0),
        }[what]()
    assert "this game was changed by another copy" in sig.args[0]
    assert asked and asked[0][0] == RELOAD_TITLE and "Read the game again now?" in asked[0][1]
    assert failed == []  # one message, the offer, not a second one
    assert _journal(save) == before
    # declined: the window keeps refusing, and never writes over the other copy's work
    assert c.run(NextPhase()) is None and len(asked) == 2
    assert _journal(save) == before
    win.controller.close()


def test_read_again_the_window_shows_the_other_copys_game_and_plays_on(qtbot, save, monkeypatch):
    win = make_main_window(str(save))
    qtbot.addWidget(win)
    c = win.controller
    assert c.battle.unit("va4").stands == 4
    _change_elsewhere(save)
    _asked(monkeypatch, True)
    with qtbot.waitSignal(c.gameReplaced):
        assert c.run(NextPhase()) is None
    assert c.battle.unit("va4").stands == 1  # the other copy's action
    ev = c.run(NextPhase())
    assert ev is not None and ev.seq == 3
    c.close()
    with Game.open(save) as g:
        assert verify(g) == 3 and g.battle.unit("va4").stands == 1


def test_a_window_alone_on_its_save_is_never_refused(qtbot, save, monkeypatch):
    win = make_main_window(str(save))
    qtbot.addWidget(win)
    asked = _asked(monkeypatch, False)
    c = win.controller
    for _ in range(3):
        assert c.run(NextPhase()) is not None
        assert c.undo() and c.redo()
    assert asked == []
    c.close()


# --------------------------------------------------------------------------------------------
# Bad files at the window's doors: File > Open, Preferences, New from scenario, the last game
# --------------------------------------------------------------------------------------------


def _deep_save(tmp_path):
    p = tmp_path / "deep.sqlite"
    with Game.create(p, load_demo(), seed=1) as g:
        g.do(NextPhase())
    conn = sqlite3.connect(p)
    conn.execute(
        "UPDATE journal SET action = ?", ('{"type": "next_phase", "x": ' + "[" * 1000 + "]" * 1000 + "}",)
    )
    conn.commit()
    conn.close()
    return p


def test_file_open_of_a_deeply_nested_save_says_why(qtbot, tmp_path, answer, save):
    answer.record_messages()
    win = make_main_window(str(save))
    qtbot.addWidget(win)
    bad = _deep_save(tmp_path)
    assert win.open_path(str(bad)) is False
    assert answer.messages and "could not be opened" in answer.messages[-1][1]
    assert win.controller.path == str(save)
    win.controller.close()


def test_new_from_a_deeply_nested_scenario_says_why(qtbot, tmp_path, answer, save):
    answer.record_messages()
    win = make_main_window(str(save))
    qtbot.addWidget(win)
    scen = tmp_path / "deep.toml"
    scen.write_text(
        bundled_text("demo")
        + "\n[[terrain]]\nid = 'x'\ntype = 'open'\npoints = "
        + "[" * 1000
        + "]" * 1000
        + "\n"
    )
    assert win.start_new_game(str(scen), str(tmp_path / "new.sqlite")) is False
    assert answer.messages and "nest" in answer.messages[-1][1]
    win.controller.close()


def test_preferences_refuse_a_deeply_nested_club_table_with_its_reason(qtbot, tmp_path, answer):
    from gui.preferences import PreferencesDialog
    from rules.tables import load_tables

    answer.record_messages()
    club = tmp_path / "melee.toml"
    club.write_text("[modifier]\nflank = { value = " + "[" * 1000 + "]" * 1000 + ', rule = "RULE-06-3.1" }\n')
    dlg = PreferencesDialog(load_tables(), "", None)
    qtbot.addWidget(dlg)
    assert dlg.load_club(str(club)) is False
    assert "nest" in dlg.error.text()


def test_a_bad_last_game_starts_brigadier_on_the_demo_and_says_why(qtbot, tmp_path):
    bad = _deep_save(tmp_path)
    s = QSettings()
    s.setValue("last_game", str(bad))
    s.sync()
    win = make_main_window(None)
    qtbot.addWidget(win)
    assert win.controller.battle.name == "Oak Ridge"
    assert str(bad) in win.statusBar().currentMessage()
    assert not QSettings().value("last_game", "")
    win.controller.close()
