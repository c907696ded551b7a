"""One procedure of play for every interface: the same answers give the same journal whether they
are given in the window (a drag and its dialogs, the charge dialog), on the command line, or to the
procedure in the rules directly; and each step is one change notice to the views.

A drag decides nothing in the window: every drag, of one unit or a group, a march or a placement,
is the rules' procedure (:func:`rules.procedure.move_units`, one unit exactly the command line's
``move``), and the window only answers its questions (a window's dialog, a placement's reason).
"""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from PySide6.QtWidgets import QDialog

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
from tests.gui.test_play_group_march import brigade
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


def test_a_five_unit_group_march_is_one_step_and_one_change_notice(qtbot, play_game):  # noqa: F811
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
    events = play.move_units(c, None, [(u.id, u.x + 4.0, u.y, 90.0) for u in units])
    assert len(events) == 5 and {c.game.step_of(e.seq) for e in events} == {(1, 5)}
    assert len(notices) == 1 and len(journal_notices) == 1
    assert notices[0].units == frozenset(u.id for u in units)
    # and one undo, one notice
    notices.clear()
    journal_notices.clear()
    c.undo()
    assert c.events() == [] and len(notices) == 1 and len(journal_notices) == 1


# -- every drag is the rules' procedure ------------------------------------------------------------

REASON = "set down by hand"


def drag(qtbot, c, moves, place=False) -> None:
    """The units dragged on the map, as the canvas asks for them (``place``: Shift held)."""
    canvas = CanvasWidget(c)
    qtbot.addWidget(canvas)
    canvas.scene.placing = place
    try:
        canvas.scene.moveRequested.emit(moves)
    finally:
        canvas.scene.placing = False


def decline_every_window(answer) -> None:
    """Each window's dialog left at "No reaction"; the reason for a placement is ``REASON``."""

    def fn(dlg):
        assert isinstance(dlg, ReactionDialog), f"an unexpected dialog opened: {dlg.windowTitle()}"
        return QDialog.DialogCode.Accepted

    answer.dialog(fn)
    answer.reason(REASON)


EAST = [("ga8", 40.0, 24.0, 90.0), ("ga9", 32.0, 24.0, 90.0)]
DRAGS = {
    # name: (battle, moves, Shift held, whether the procedure asks for the reason)
    "a march": (example_c_march, [("ga8", 40.0, 24.0, 90.0)], False, False),
    "a unit placed with Shift": (example_c_march, [("ga8", 40.0, 24.0, 90.0)], True, True),
    "a unit out of its Phase 2": (
        lambda: replace(example_c_march(), phase=Phase.RANGED),
        [("ga8", 40.0, 24.0, 90.0)],
        False,
        False,
    ),
    "a unit of the other side": (example_c_march, [("wis2", 30.0, 40.0, 0.0)], False, False),
    "a group march": (brigade, EAST, False, False),
    "a group placed with Shift": (brigade, EAST, True, True),
    "a group out of its Phase 2": (lambda: replace(brigade(), phase=Phase.RANGED), EAST, False, False),
    "a group with a unit of the other side": (
        lambda: brigade(ga8_x=0.0, ga9_at=(0.0, 14.0)),
        [("wis2", 60.0, 40.0, 0.0), ("ga8", 10.0, 24.0, 90.0)],
        False,
        False,
    ),
}


@pytest.mark.parametrize("name", list(DRAGS))
def test_every_drag_is_the_rules_procedure_and_the_window_commits_its_step(
    name,
    qtbot,
    play_game,  # noqa: F811
    answer,
    monkeypatch,
):
    """The window hands the rules the moves as dragged (and whether Shift was held), nothing it
    decided itself; it answers only the questions the procedure asks (the reason only when the
    procedure asks for it), and commits the procedure's step, whole, as one journal step."""
    make, moves, place, reason_asked = DRAGS[name]
    made: list[tuple] = []
    real_move_units = procedure.move_units

    def spy(*args, **kwargs):
        proc = real_move_units(*args, **kwargs)
        made.append((args[3], kwargs, proc))
        return proc

    monkeypatch.setattr(procedure, "move_units", spy)
    questions: list[tuple[str, object]] = []
    real_answer = procedure.Procedure.answer

    def answered(self, given):
        questions.append((type(self.pending).__name__, given))
        return real_answer(self, given)

    monkeypatch.setattr(procedure.Procedure, "answer", answered)
    decline_every_window(answer)
    c = play_game(make())
    drag(qtbot, c, moves, place)

    assert len(made) == 1, "the drag did not go (once) through the rules' procedure, move_units"
    ((asked, kwargs, proc),) = made
    assert [tuple(m) for m in asked] == moves and kwargs == {"place": place}
    assert proc.done
    events = c.events()
    committed = [p.action.to_dict() for p in proc.result.actions]
    assert events and [e.action.to_dict() for e in events] == committed
    assert {c.game.step_of(e.seq) for e in events} == {(1, len(events))}
    reasons = [given for kind, given in questions if kind == "ReasonAsked"]
    assert reasons == ([REASON] if reason_asked else [])
    assert len(answer.reasons) == len(reasons)  # the window asked for a reason only when asked to
    placed = [e.action.reason for e in events if e.action.type == "move_unit" and e.action.mode == "place"]
    assert all(r == (REASON if reason_asked else "") for r in placed)


def test_a_drag_gives_the_journal_of_the_command_lines_move_with_the_same_answers(
    tmp_path,
    qtbot,
    play_game,  # noqa: F811
    answer,
    monkeypatch,
):
    cases = [
        # the march, each window declined: move --no-reactions
        (example_c_march, ("ga8", 40.0, 24.0, 90.0), False, ["--no-reactions"]),
        # Shift held: move --place with the reason
        (example_c_march, ("ga8", 40.0, 24.0, 90.0), True, ["--place", "--reason", REASON]),
        # out of the unit's Phase 2: move, a placement
        (lambda: replace(example_c_march(), phase=Phase.RANGED), ("ga8", 40.0, 24.0, 90.0), False, []),
    ]
    for i, (make, (uid, x, y, facing), place, flags) in enumerate(cases):
        decline_every_window(answer)
        c = play_game(make())
        drag(qtbot, c, [(uid, x, y, facing)], place)
        (tmp_path / str(i)).mkdir()
        argv = ["move", uid, str(x), str(y), "--facing", str(facing), *flags]
        on_the_command_line = through_the_command_line(tmp_path / str(i), make(), argv, monkeypatch)
        assert journal(c.game) == on_the_command_line, flags


def test_a_group_drag_gives_the_journal_of_the_rules_group_march_with_the_same_answers(
    tmp_path,
    qtbot,
    play_game,  # noqa: F811
    answer,
):
    decline_every_window(answer)
    c = play_game(brigade())
    drag(qtbot, c, EAST)
    direct = through_the_rules(
        tmp_path,
        brigade(),
        lambda g: procedure.group_march(g.battle, g.tables, g.dice, EAST),
        [Answer.declined] * 4,
    )
    assert [e[0]["unit_id"] for e in direct if e[0]["type"] == "move_unit"][0] == "ga8"  # front-most first
    assert journal(c.game) == direct


def test_the_window_follows_the_rules_whether_a_drag_is_a_march_and_asks_the_reason_they_ask(
    qtbot,
    play_game,  # noqa: F811
    answer,
    monkeypatch,
):
    """Whether a unit marches is the rules' one question (:func:`rules.legality.march_refusal`).
    Told (against the chapter) that the 2nd Wisconsin, not of the side to act, would march, the
    window has no view of its own: a Shift-drag of it asks the reason the procedure asks for, and a
    drag of it is a march, which the march's own rule then refuses (RULE-04-1.2)."""
    import importlib

    from rules import legality

    procedure_march = importlib.import_module("rules.procedure.march")  # the module, not its march()

    real = legality.march_refusal

    def wis2_marches(battle, unit_id, tables, to=None):
        return None if unit_id == "wis2" else real(battle, unit_id, tables, to)

    # as the rules are: a Shift-drag of the Wisconsin is a placement that needs no reason
    Script(answer)
    c = play_game(example_c_march())
    drag(qtbot, c, [("wis2", 30.0, 40.0, 0.0)], place=True)
    assert [(e.action.mode, e.action.reason) for e in c.events()] == [("place", "")]
    # told that it would march: the reason is asked, because the procedure asks for it
    monkeypatch.setattr(procedure_march, "march_refusal", wis2_marches)
    answer.reason(REASON)
    c = play_game(example_c_march())
    drag(qtbot, c, [("wis2", 30.0, 40.0, 0.0)], place=True)
    assert answer.reasons == ["placing 2nd Wisconsin outside the movement rules"]
    assert [(e.action.mode, e.action.reason) for e in c.events()] == [("place", REASON)]
    # and a drag of it is a march: no placement of the window's own
    failures: list[str] = []
    c = play_game(example_c_march())
    c.actionFailed.connect(failures.append)
    drag(qtbot, c, [("wis2", 30.0, 40.0, 0.0)])
    assert c.events() == [] and "marches only in its own side's Phase 2" in failures[-1]
