"""Arrivals in a scenario file: read, written back the same, refused with the line when wrong; and
a game with arrivals saved, undone, reopened and verified like any other."""

from __future__ import annotations

import pytest

from cli import main as cli
from rules.actions import Arrive, NextPhase, Override
from storage.errors import ScenarioError
from storage.game import Game
from storage.replay import verify
from storage.scenario import bundled_text, load_bundled
from storage.scenario_parsing import parse_scenario
from storage.scenario_writing import to_toml


def test_a_scenario_with_arrivals_round_trips():
    b = load_bundled("gettysburg")
    text = to_toml(b)
    assert 'arrives = { "turn" = 4, "at" = "the Harrisburg Road", "x" = 121.0, "y" = 8.5' in text
    again = parse_scenario(text, "written.toml")
    assert again.units == b.units
    assert to_toml(again) == text


@pytest.mark.parametrize(
    ("arrives", "why"),
    [
        ('{ at = "the road" }', "needs the turn"),
        ("{ turn = 0 }", "turn"),
        ("{ turn = 3, x = 10 }", "both x and y"),
        ("{ turn = 3, x = 500, y = 10 }", "off the"),
        ("{ turn = 3, roll = 9 }", "roll"),
        ('{ turn = 3, when = "soon" }', "no value"),
    ],
)
def test_a_wrong_arrival_is_refused_with_its_place_in_the_file(arrives, why):
    text = bundled_text("demo").replace('id = "wis2"', f'id = "wis2"\narrives = {arrives}', 1)
    with pytest.raises(ScenarioError, match=why) as exc:
        parse_scenario(text, "mine.toml")
    assert "mine.toml" in str(exc.value) and "2nd Wisconsin" in str(exc.value)


def test_a_game_with_arrivals_is_played_undone_reopened_and_verified(tmp_path, capsys):
    text = bundled_text("demo").replace(
        'id = "wis2"',
        'id = "wis2"\narrives = { turn = 2, at = "the Chambersburg Pike", x = 40.0, y = 8.0, facing_deg = 180 }',
        1,
    )
    scenario = tmp_path / "late.toml"
    scenario.write_text(text)
    path = tmp_path / "late.sqlite"
    assert cli.main(["new", str(scenario), str(path)]) == 0
    with Game.open(path) as g:
        assert g.battle.unit("wis2").arriving
        g.do(Override("game", "game", {"turn": 2, "active_side": "union"}, "to the arrival"))
        g.do(NextPhase())
    capsys.readouterr()
    assert cli.main(["pending", str(path)]) == 0
    assert "due to arrive at the Chambersburg Pike" in capsys.readouterr().out
    assert cli.main(["arrive", str(path)]) == 0
    assert "2nd Wisconsin arrives at the Chambersburg Pike" in capsys.readouterr().out
    with Game.open(path) as g:
        w = g.battle.unit("wis2")
        assert w.in_play and (w.x, w.y, w.facing_deg) == (40.0, 8.0, 180.0)
        assert verify(g) == g.last_seq
        g.undo_step()
        assert g.battle.unit("wis2").arriving
        g.redo_step()
    with Game.open(path) as g:
        assert g.battle.unit("wis2").in_play
        assert isinstance(g.events()[-1].action, Arrive)
    # not due: the command says so and saves nothing
    assert cli.main(["arrive", str(path)]) == 1
    assert "no unit is due" in capsys.readouterr().err
