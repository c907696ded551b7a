"""``brigadier move`` and ``brigadier charge`` honour the Trigger Windows, as the window does.

The answers come up front (``--react``), are all declined (``--no-reactions``), are asked on a
terminal (``--ask`` reads them from standard input), or, with none of these, nothing is saved and
the windows that would open are listed. A march with its reactions is one step: one ``undo``.
"""

from __future__ import annotations

import io
from dataclasses import replace

import pytest

from cli import main as cli
from rules.battle.words import Marker, Phase
from storage.game import Game
from tests.rules.reactions.test_examples_ch04 import example_c
from tests.rules.test_procedure import example_a
from tests.storage.conftest import fingerprint


def run(capsys, *argv: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def c_game(tmp_path):
    """Chapter 04, Example C: the Georgians 8" off the Wisconsin's front, in their Phase 2."""
    b = replace(example_c(), phase=Phase.MANEUVER)
    b = b.with_unit(b.unit("ga8").moved_to(12, 24))
    path = tmp_path / "c.sqlite"
    Game.create(path, b, seed=7).close()
    return path


@pytest.fixture
def demo(tmp_path, capsys):
    g = tmp_path / "oak.sqlite"
    assert run(capsys, "new", "demo", g)[0] == 0
    assert run(capsys, "next-phase", g)[0] == 0
    return g


def types(path) -> list[str]:
    with Game.open(path) as g:
        return [e.action.type for e in g.events()]


def test_the_demo_march_halts_for_battery_bs_window_and_with_no_answer_nothing_is_saved(
    demo, capsys, monkeypatch
):
    """The issue's own case: va4's march to (34, 22) opens Battery B's Opportunity Fire window."""
    before = fingerprint(demo)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # no terminal
    code, out, err = run(capsys, "move", demo, "va4", 34, 22)
    assert code == 1 and out == ""
    assert "1 window opens with no answer; nothing was saved" in err
    assert "Battery B, 4th US Artillery" in err and "1. Opportunity Fire (free)" in err
    assert "Refuse the Flank: not allowed" in err and "RULE-04-5.1" in err
    assert "--react" in err and "--no-reactions" in err
    assert fingerprint(demo) == before


def test_no_reactions_declines_each_window_and_logs_it(demo, capsys):
    code, out, _ = run(capsys, "move", demo, "va4", 34, 22, "--no-reactions")
    assert code == 0
    assert "no reaction at Trigger Window A against 4th Virginia" in out
    assert types(demo)[-2:] == ["move_unit", "decline_reaction"]


def test_react_up_front_fires_with_the_dice_typed(demo, capsys):
    code, out, err = run(
        capsys,
        "move",
        demo,
        "va4",
        34,
        22,
        "--react",
        "batb4us=opportunity_fire",
        "--dice",
        "6 2 4 6 3 3 6 4 3",
    )
    assert code == 0, err
    with Game.open(demo) as g:
        react = g.events()[-1]
        assert react.action.type == "declare_reaction" and react.action.reaction == "opportunity_fire"
        assert [r.dice for r in react.rolls] == [(6, 2, 4, 6, 3, 3), (6, 4, 3)]
        assert g.battle.unit("va4").stands == 4 and g.battle.unit("va4").has(Marker.DISORDER)


def test_dice_that_do_not_fit_save_nothing(demo, capsys):
    before = fingerprint(demo)
    code, _, err = run(
        capsys, "move", demo, "va4", 34, 22, "--react", "batb4us=opportunity_fire", "--dice", "6 2"
    )
    assert code == 1 and "too few dice" in err and fingerprint(demo) == before
    code, _, err = run(
        capsys,
        "move",
        demo,
        "va4",
        34,
        22,
        "--react",
        "batb4us=opportunity_fire",
        "--dice",
        "6 2 4 6 3 3 6 4 3 1",
    )
    assert code == 1 and "typed beyond what the windows roll" in err and fingerprint(demo) == before


def test_a_reaction_the_defender_may_not_take_is_refused_with_its_rule(demo, capsys):
    before = fingerprint(demo)
    code, _, err = run(capsys, "move", demo, "va4", 34, 22, "--react", "batb4us=closing_volley")
    assert code == 1 and fingerprint(demo) == before
    assert "--react batb4us=closing_volley was never open to it" in err
    assert "is no reaction of Trigger Window A" in err
    code, _, err = run(capsys, "move", demo, "va4", 34, 22, "--react", "batb4us=refuse_flank")
    assert code == 1 and "is not a regiment in Line of Battle (RULE-04-5.1" in err
    assert fingerprint(demo) == before
    code, _, err = run(capsys, "move", demo, "va4", 34, 22, "--react", "batb4us")
    assert code == 1 and "DEFENDER=REACTION" in err


def test_the_terminal_asks_with_a_numbered_list_and_the_dice(demo, capsys, monkeypatch):
    code, out, err = run(
        capsys, "move", demo, "va4", 34, 22, "--ask", stdin="1\n6 2 4 6 3 3 6 4 3\n", monkeypatch=monkeypatch
    )
    assert code == 0, err
    assert "Trigger Window A: 4th Virginia" in out
    assert "Choice for Battery B, 4th US Artillery [0-1, Enter: 0]" in out
    assert "Dice rolled at the table" in out
    assert types(demo)[-1] == "declare_reaction"


def test_the_terminal_asks_again_after_dice_that_do_not_fit(demo, capsys, monkeypatch):
    code, out, err = run(
        capsys, "move", demo, "va4", 34, 22, "--ask", stdin="1\n3 4 5\n\n", monkeypatch=monkeypatch
    )
    assert code == 0, err
    assert "the opportunity fire needs 6 dice; 3 are left of those typed in" in out
    assert types(demo)[-1] == "declare_reaction"  # the program's dice, at the second asking


def test_answers_that_run_out_save_nothing(demo, capsys, monkeypatch):
    before = fingerprint(demo)
    code, _, err = run(capsys, "move", demo, "va4", 34, 22, "--ask", stdin="", monkeypatch=monkeypatch)
    assert code == 1 and "nothing was saved" in err and fingerprint(demo) == before


def test_a_march_and_its_reactions_are_one_undo(demo, capsys):
    assert run(capsys, "move", demo, "va4", 34, 22, "--no-reactions")[0] == 0
    code, out, _ = run(capsys, "undo", demo)
    assert code == 0 and out.count("Undone") == 2
    assert types(demo) == ["next_phase"]
    code, out, _ = run(capsys, "redo", demo)
    assert code == 0 and out.count("Redone") == 2
    assert types(demo)[-2:] == ["move_unit", "decline_reaction"]


def test_example_c_a_defender_waits_for_the_window_named_by_its_trigger(c_game, capsys):
    code, out, err = run(
        capsys,
        "move",
        c_game,
        "ga8",
        40,
        24,
        "--react",
        "wis2=opportunity_fire@forward_arc_short",
        "--dice",
        "1 4 4 6 2",
    )
    assert code == 0, err
    assert types(c_game) == [
        "decline_reaction",
        "move_unit",
        "decline_reaction",
        "move_unit",
        "declare_reaction",
        "move_unit",
    ]
    with Game.open(c_game) as g:
        ga = g.battle.unit("ga8")
        assert (ga.stands, ga.micro_hits) == (4, 1) and ga.disordered


def test_a_trigger_that_does_not_exist_is_refused(c_game, capsys):
    code, _, err = run(capsys, "move", c_game, "ga8", 40, 24, "--react", "wis2=opportunity_fire@flank")
    assert code == 1 and "is not a trigger" in err and "forward_arc_short" in err


def test_charge_example_a_through_window_b(tmp_path, capsys):
    path = tmp_path / "a.sqlite"
    Game.create(path, example_a(), seed=7).close()
    code, out, err = run(
        capsys, "charge", path, "bkn14", "va5", "--react", "va5=closing_volley", "--dice", "3 3 5 2 6 2"
    )
    assert code == 0, err
    assert "stalled" in out
    with Game.open(path) as g:
        (ev,) = g.events()
        assert ev.action.type == "charge_approach"
        assert [(r.purpose, r.dice) for r in ev.rolls] == [
            ("closing volley", (3, 3, 5, 2, 6)),
            ("discipline check", (2,)),
        ]
        assert g.battle.unit("bkn14").stands == 3


def test_charge_with_no_answer_saves_nothing_and_names_the_window(tmp_path, capsys, monkeypatch):
    path = tmp_path / "a.sqlite"
    Game.create(path, example_a(), seed=7).close()
    before = fingerprint(path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, _, err = run(capsys, "charge", path, "bkn14", "va5")
    assert code == 1 and "Trigger Window B" in err and "1. Closing Defensive Volley (free)" in err
    assert "--react va5=closing_volley" in err
    assert fingerprint(path) == before


def test_charge_the_rules_refuse_says_why(tmp_path, capsys):
    path = tmp_path / "a.sqlite"
    b = example_a()
    Game.create(path, b.with_unit(b.unit("bkn14").moved_to(30, 30)), seed=7).close()
    code, _, err = run(capsys, "charge", path, "bkn14", "va5", "--no-reactions")
    assert code == 1 and "RULE-06-1" in err


def test_on_a_terminal_answers_that_run_out_after_the_program_rolled_keep_what_it_rolled(
    tmp_path, capsys, monkeypatch
):
    """The Wisconsin fires Opportunity Fire with the program's dice; the answers then run out at the
    1st Minnesota's window. The volley was rolled, so it stands: the move stops there and is saved."""
    from tests.rules.shooting.test_shooting import unit

    b = replace(example_c(), phase=Phase.MANEUVER)
    b = b.with_unit(b.unit("ga8").moved_to(12, 24))
    b = b.with_unit(unit("min1", "union", name="1st Minnesota", x=27, y=28, facing_deg=0))
    path = tmp_path / "c.sqlite"
    Game.create(path, b, seed=7).close()
    # the Wisconsin's flank zone: no reaction; its forward arc: 1 = Opportunity Fire, the program's dice
    code, out, err = run(
        capsys, "move", path, "ga8", 40, 24, "--ask", stdin="\n1\n\n", monkeypatch=monkeypatch
    )
    assert code == 0, err
    assert "Stopped: March 8th Georgia stopped at Trigger Window A" in out
    assert types(path) == ["decline_reaction", "move_unit", "declare_reaction"]
    with Game.open(path) as g:
        assert g.dice.drawn > 0 and g.battle.unit("ga8").x < 40


def test_a_placement_where_the_unit_would_march_needs_the_reason_the_window_asks(demo, capsys, monkeypatch):
    """``move --place`` in the unit's own Phase 2 sets the movement rules aside: the procedure asks
    for the umpire's reason, as the window's Shift-drag does; ``--reason`` gives it up front."""
    before = fingerprint(demo)
    code, _, err = run(capsys, "move", demo, "va4", 40, 21, "--place", stdin="", monkeypatch=monkeypatch)
    assert code == 1 and fingerprint(demo) == before
    assert "Placing 4th Virginia outside the movement rules" in err and '--reason "..."' in err
    argv = ("move", demo, "va4", 40, 21, "--place", "--ask")
    code, out, err = run(capsys, *argv, stdin="set up again\n", monkeypatch=monkeypatch)
    assert code == 0, err
    assert "Reason for placing 4th Virginia outside the movement rules: " in out
    with Game.open(demo) as g:
        last = g.events()[-1].action
    assert (last.mode, last.reason) == ("place", "set up again")
    # out of its side's Phase 2 a placement needs none, and is not asked for one
    code, out, err = run(capsys, "move", demo, "wis2", 20, 40, stdin="", monkeypatch=monkeypatch)
    assert code == 0 and "A placement by the umpire, not a march" in out


def test_react_takes_only_the_inputs_the_reaction_has(demo, capsys):
    before = fingerprint(demo)
    code, _, err = run(capsys, "move", demo, "va4", 34, 22, "--react", "batb4us=opportunity_fire:surge_in=3")
    assert code == 1 and fingerprint(demo) == before
    assert "Opportunity Fire takes no input 'surge_in'" in err
    code, _, err = run(capsys, "move", demo, "va4", 34, 22, "--react", "batb4us=evade:speed=3")
    assert code == 1 and "Skirmish / Screen Evade takes no input 'speed'; it takes withdraw_in" in err
