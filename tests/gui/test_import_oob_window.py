"""File > Import order of battle: the spreadsheet made a scenario and, if the umpire wants, a new
game from it; a bad cell said with its row and column, and nothing written."""

from __future__ import annotations

from gui import dialogs
from tests.storage.test_oob_import import GOOD, _csv


def test_import_then_a_new_game_from_it(tmp_path, window_on, game, monkeypatch, answer):
    win = window_on(game)
    src = _csv(tmp_path / "first_day.csv", GOOD)
    paths = iter([str(tmp_path / "first_day.toml"), str(tmp_path / "first_day.sqlite")])
    monkeypatch.setattr(dialogs, "ask_open_path", lambda *a, **k: str(src))
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: next(paths))
    answer.yes_no(True)
    assert win.import_order_of_battle() == str(tmp_path / "first_day.toml")
    assert "6 units" in answer.questions[0] and "60 men" in answer.questions[0]
    assert win.controller.battle.name == "first day"
    assert {u.name for u in win.controller.battle.units.values()} >= {"2nd Wisconsin", "26th North Carolina"}


def test_a_bad_cell_is_said_and_nothing_is_written(tmp_path, window_on, game, monkeypatch, answer):
    win = window_on(game)
    rows = [list(r) for r in GOOD]
    rows[2][5] = "a lot"
    src = _csv(tmp_path / "bad.csv", rows)
    monkeypatch.setattr(dialogs, "ask_open_path", lambda *a, **k: str(src))
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(tmp_path / "bad.toml"))
    answer.record_messages()
    assert win.import_order_of_battle() is None
    title, text, kind = answer.messages[0]
    assert (
        kind == "error"
        and "row 4, strength: 'a lot' is not a number of" in text
        and "Nothing was written" in text
    )
    assert not (tmp_path / "bad.toml").exists()
    assert win.controller.battle.name == "Small battle"
