"""One procedure of play for every interface: the same answers give the same journal whether they
are given in the window (a drag and its dialogs, the charge dialog), on the command line, or to the
procedure in the rules directly; and each step is one change notice to the views.
"""

from __future__ import annotations

import io
from dataclasses import replace

from cli import main as cli
from gui import play
from gui.canvas import CanvasWidget
from gui.combat_dialogs import ChargeDialog
from gui.controller import ChangeSummary
from gui.reaction_dialog import ReactionDialog
from rules import procedure
from rules.battle.words import Formation, Phase
from rules.procedure import Answer, Choice
from rules.reactions.declare import Reaction
from storage.game import Game
from tests.gui.test_play_examples import Script, play_game  # noqa: F401
from tests.rules.reactions.test_examples_ch04 import example_c
from tests.rules.shooting.test_shooting import battle_of, unit
from tests.rules.test_procedure import example_a

SEED = 7


def example_c_march():
    b = replace(example_c(), phase=Phase.MANEUVER)
    return b.with_unit(b.unit("ga8").moved_to(12, 24))


def journal(game: Game) -> list[tuple]:
    """What the journal holds, without the clock: each action, its dice, its lines and its step."""
    return [
        (
            e.action.to_dict(),
            [r.to_dict() for r in e.rolls],
            [s.to_dict() for s in e.steps],
            e.dice_before,
            e.dice_after,
            game.step_of(e.seq),
        )
        for e in game.events()
    ]


def through_the_rules(tmp_path, battle, make, answers) -> list[tuple]:
    game = Game.create(tmp_path / "rules.sqlite", battle, seed=SEED)
    proc = make(game)
    for a in answers:
        proc.answer(a(proc.pending))
    assert proc.done
    game.do_step(proc.result.actions)
    out = journal(game)
    game.close()
    return out


def through_the_command_line(tmp_path, battle, argv, monkeypatch, stdin: str = "") -> list[tuple]:
    path = tmp_path / "cli.sqlite"
    Game.create(path, battle, seed=SEED).close()
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    assert cli.main([argv[0], str(path), *argv[1:]]) == 0
    with Game.open(path) as game:
        return journal(game)


def test_example_c_gives_one_journal_through_the_drag_the_command_line_and_the_rules(
    tmp_path,
    qtbot,
    play_game,  # noqa: F811
    answer,
    monkeypatch,
):
    # in the window: the drag, and the defender's three dialogs
    c = play_game(example_c_march())
    canvas = CanvasWidget(c)
    qtbot.addWidget(canvas)

    def decline(dlg: ReactionDialog):
        dlg.choose("wis2", None)

    def fire(dlg: ReactionDialog):
        dlg.choose("wis2", "opportunity_fire")
        dlg.dice.type_dice("1 4 4 6 2")

    Script(answer, (ReactionDialog, decline), (ReactionDialog, decline), (ReactionDialog, fire))
    canvas.scene.moveRequested.emit([("ga8", 40.0, 24.0, 90.0)])
    in_the_window = journal(c.game)

    # on the command line: answered up front, and answered at the prompt
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    march = ["move", "ga8", "40", "24", "--facing", "90"]
    react = ["--react", "wis2=opportunity_fire@forward_arc_short", "--dice", "1 4 4 6 2"]
    up_front = through_the_command_line(tmp_path / "a", example_c_march(), march + react, monkeypatch)
    at_the_prompt = through_the_command_line(
        tmp_path / "b", example_c_march(), [*march, "--ask"], monkeypatch, stdin="0\n0\n1\n1 4 4 6 2\n"
    )

    # to the procedure itself
    fire_answer = Answer((Choice("wis2", Reaction.OPPORTUNITY_FIRE),), (1, 4, 4, 6, 2))
    direct = through_the_rules(
        tmp_path,
        example_c_march(),
        lambda g: procedure.march(g.battle, g.tables, g.dice, "ga8", 40.0, 24.0, 90.0),
        [Answer.declined, Answer.declined, lambda _w: fire_answer],
    )

    assert len(in_the_window) == 6
    assert [e[0]["type"] for e in in_the_window] == [
        "decline_reaction",
        "move_unit",
        "decline_reaction",
        "move_unit",
        "declare_reaction",
        "move_unit",
    ]
    assert {e[5] for e in in_the_window} == {(1, 6)}  # one step
    assert in_the_window == up_front == at_the_prompt == direct


def test_example_a_gives_one_journal_through_the_charge_dialog_the_command_line_and_the_rules(
    tmp_path,
    play_game,  # noqa: F811
    answer,
    monkeypatch,
):
    c = play_game(example_a())

    def window_b(dlg: ReactionDialog):
        dlg.choose("va5", "closing_volley")
        dlg.dice.type_dice("3 3 5 2 6 2")

    Script(answer, (ChargeDialog, lambda d: d.set_units("bkn14", "va5")), (ReactionDialog, window_b))
    assert play.declare_charge(c, None) is not None
    in_the_window = journal(c.game)
    (tmp_path / "a").mkdir()
    on_the_command_line = through_the_command_line(
        tmp_path / "a",
        example_a(),
        ["charge", "bkn14", "va5", "--react", "va5=closing_volley", "--dice", "3 3 5 2 6 2"],
        monkeypatch,
    )
    volley = Answer((Choice("va5", Reaction.CLOSING_VOLLEY),), (3, 3, 5, 2, 6, 2))
    direct = through_the_rules(
        tmp_path,
        example_a(),
        lambda g: procedure.charge(g.battle, g.tables, g.dice, "bkn14", "va5"),
        [lambda _w: volley],
    )
    assert [e[0]["type"] for e in in_the_window] == ["charge_approach"]
    assert in_the_window == on_the_command_line == direct


def test_a_five_unit_group_march_is_one_step_and_one_change_notice(qtbot, play_game):  # noqa: F811  # noqa: F811
    units = [
        unit(
            f"ga{i}",
            "csa",
            name=f"{i}th Georgia",
            formation=Formation.ASSAULT_COLUMN,
            x=6.0,
            y=6.0 + 6 * i,
            facing_deg=90,
        )
        for i in range(5)
    ]
    far = unit("wis2", "union", name="2nd Wisconsin", x=70, y=46, facing_deg=0)  # out of every window
    c = play_game(replace(battle_of(far, *units, active="csa"), phase=Phase.MANEUVER))
    notices: list[ChangeSummary] = []
    journal_notices: list[int] = []
    c.changed.connect(notices.append)
    c.eventsChanged.connect(lambda: journal_notices.append(1))
    events = play.march_group(c, None, [(u.id, u.x + 4.0, u.y, 90.0) for u in units])
    assert len(events) == 5 and {c.game.step_of(e.seq) for e in events} == {(1, 5)}
    assert len(notices) == 1 and len(journal_notices) == 1
    assert notices[0].units == frozenset(u.id for u in units)
    # and one undo, one notice
    notices.clear()
    journal_notices.clear()
    c.undo()
    assert c.events() == [] and len(notices) == 1 and len(journal_notices) == 1
