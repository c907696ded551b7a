"""Dice nobody can see before they are rolled.

"Fair play: nothing on screen reveals the program's dice before the umpire commits." Every dialog
that rolls is opened with "The program rolls", changed, and cancelled: what it shows is the same
whatever the game's seed (so it cannot depend on the faces the game will roll), the game's dice are
not used up, and the next committed roll is the very one a game that never previewed rolls.
Dice typed at the table keep their validation preview: they were rolled in the open.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtWidgets import QLabel, QTextBrowser

from gui import play
from gui.combat_dialogs import BombardDialog, ChargeDialog, MeleeDialog, ShootDialog
from gui.controller import GameController
from gui.reaction_dialog import ReactionDialog
from rules.reactions.declare import Reaction
from storage.game import Game
from tests.gui.fair_dice import assert_no_faces
from tests.gui.test_buildings import farm_under_fire
from tests.gui.test_play_combat import duel, locked_melee
from tests.gui.test_play_examples import REJECT, Script, example_a
from tests.rules.test_procedure import c_march

SEEDS = (7, 1862)


@pytest.fixture
def game_of(tmp_path, qtbot):
    made: list[GameController] = []

    def make(battle, seed: int) -> GameController:
        g = Game.create(tmp_path / f"g{len(made)}.sqlite", battle, seed=seed)
        c = GameController()
        c.set_game(g, str(g.path))
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()


def on_screen(dlg) -> list[str]:
    """Everything the dialog shows in words: its labels and its result panes."""
    texts = [w.text() for w in dlg.findChildren(QLabel) if w.isVisibleTo(dlg)]
    texts += [w.toPlainText() for w in dlg.findChildren(QTextBrowser)]
    return texts


def _window_a(dlg: ReactionDialog, seen: list[str]) -> None:
    # the Georgians start in the Wisconsin's flank zone: Refuse the Flank, a 4+ check (no pip)
    for choice in ("refuse_flank", None, "refuse_flank"):
        dlg.choose("wis2", choice)
        seen += on_screen(dlg)


def _window_b(dlg: ReactionDialog, seen: list[str]) -> None:
    for choice in ("closing_volley", None, "closing_volley"):
        dlg.choose("va5", choice)
        seen += on_screen(dlg)


def _shoot(dlg: ShootDialog, seen: list[str]) -> None:
    for target in ("t", "t"):
        dlg.choose_target(target)
        seen += on_screen(dlg)


def _melee(dlg: MeleeDialog, seen: list[str]) -> None:
    seen += on_screen(dlg)
    dlg.contact.setCurrentIndex(dlg.contact.findData("flank:left"))
    seen += on_screen(dlg)
    dlg.contact.setCurrentIndex(dlg.contact.findData("front"))
    seen += on_screen(dlg)


def _bombard(dlg: BombardDialog, seen: list[str]) -> None:
    for battery in ("batd", "batb"):
        dlg.set_choice(battery, "farm")
        seen += on_screen(dlg)


CASES: dict[str, tuple[Callable, Callable, tuple, Callable]] = {
    # name: (battle, open it, dialogs before the one previewed, change it)
    "Trigger Window A": (
        c_march,
        lambda c: play.move_units(c, None, [("ga8", 40.0, 24.0, None)]),
        (),
        _window_a,
    ),
    "Trigger Window B": (
        example_a,
        lambda c: play.declare_charge(c, None),
        ((ChargeDialog, lambda d: d.set_units("bkn14", "va5")),),
        _window_b,
    ),
    "Shoot": (duel, lambda c: play.shoot(c, None), (), _shoot),
    "Melee": (locked_melee, lambda c: play.resolve_melee(c, None, "a", "d"), (), _melee),
    "Bombard": (farm_under_fire, lambda c: play.bombard_building(c, None), (), _bombard),
}
DIALOG = {
    "Trigger Window A": ReactionDialog,
    "Trigger Window B": ReactionDialog,
    "Shoot": ShootDialog,
    "Melee": MeleeDialog,
    "Bombard": BombardDialog,
}


def _previewed_and_cancelled(game_of, answer, name: str, seed: int) -> tuple[GameController, list[str]]:
    battle, open_it, before, change = CASES[name]
    c = game_of(battle(), seed)
    seen: list[str] = []

    def preview(dlg):
        assert not dlg.dice.uses_table()  # "The program rolls"
        change(dlg, seen)
        return REJECT

    Script(answer, *before, (DIALOG[name], preview))
    open_it(c)
    return c, seen


@pytest.mark.parametrize("name", list(CASES))
def test_opening_changing_and_cancelling_a_dialog_neither_reveals_nor_uses_up_the_programs_dice(
    game_of, answer, name
):
    shown = {}
    for seed in SEEDS:
        c, seen = _previewed_and_cancelled(game_of, answer, name, seed)
        # nothing was rolled, nothing was written
        assert c.game.dice.drawn == 0 and c.game.events() == []
        shown[seed] = seen
        for text in seen:
            assert_no_faces(text)
    # what was on screen is the same whatever dice the game holds: it shows none of them
    assert shown[SEEDS[0]] == shown[SEEDS[1]]
    assert any("%" in t for t in shown[SEEDS[0]])  # the chances were shown instead


COMMIT: dict[str, tuple[tuple, Callable]] = {
    "Trigger Window A": ((), lambda d: d.choose("wis2", "refuse_flank")),
    "Trigger Window B": (
        ((ChargeDialog, lambda d: d.set_units("bkn14", "va5")),),
        lambda d: d.choose("va5", "closing_volley"),
    ),
    "Shoot": ((), lambda d: d.choose_target("t")),
    "Melee": ((), lambda d: None),
    "Bombard": ((), lambda d: d.set_choice("batb", "farm")),
}


def _commit(c, answer, name: str) -> list:
    battle, open_it, _, _ = CASES[name]
    before, choose = COMMIT[name]
    dialogs = [*before, (DIALOG[name], choose)]
    # (Window A: having reacted to the march, the Wisconsin is not asked again, RULE-04-1.4)
    Script(answer, *dialogs)
    open_it(c)
    return [(r.purpose, r.dice) for ev in c.game.events() for r in ev.rolls]


@pytest.mark.parametrize("name", list(CASES))
def test_the_next_committed_roll_is_the_same_whatever_was_previewed(game_of, answer, name):
    previewed, _ = _previewed_and_cancelled(game_of, answer, name, 7)
    rolled_after_previews = _commit(previewed, answer, name)
    fresh = game_of(CASES[name][0](), 7)
    assert rolled_after_previews and rolled_after_previews == _commit(fresh, answer, name)


def test_dice_typed_at_the_table_keep_their_validation_preview(game_of, answer):
    """Dice rolled in the open are checked as they are typed and their result shown before OK."""
    c = game_of(duel(), 7)
    shown = []

    def shoot(dlg: ShootDialog):
        dlg.dice.type_dice("6 5 4 3 2")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        shown.append(dlg.result.toPlainText())

    Script(answer, (ShootDialog, shoot))
    ev = play.shoot(c, None)
    assert "dice 6 5 4 3 2" in shown[0]
    assert ev.rolls[0].dice == (6, 5, 4, 3, 2)


def test_the_window_dialog_shows_the_chances_of_a_4_plus_check_not_its_die(game_of, answer):
    """RULE-04-5.2: "Emergency Check (No Pip Reserved) ... 4+ on 1D6": a pass and a failure, each
    with its chance (one in two), the rule and what it does."""
    c = game_of(c_march(), 7)
    seen = []

    def window(dlg: ReactionDialog):
        dlg.choose("wis2", Reaction.REFUSE_FLANK)
        ch = dlg.chances()
        seen.append(dlg.result.toPlainText())
        assert [str(o.chance) for o in ch.outcomes] == ["1/2", "1/2"]
        texts = [" ".join(s.text for s in o.lines) for o in ch.outcomes]
        assert any("freezes in place" in t for t in texts)
        assert any("wheels its outer" in t for t in texts)
        assert any("needing 4+" in s.text and s.rule == "RULE-04-5.2" for s in ch.rolls)
        return REJECT

    Script(answer, (ReactionDialog, window))
    play.move_units(c, None, [("ga8", 40.0, 24.0, None)])
    assert "50%" in seen[0] and c.game.dice.drawn == 0


def test_a_march_stopped_after_the_program_rolled_for_a_window_keeps_what_the_dice_decided(game_of, answer):
    """An answer at a window is the umpire's commit for it. Once the program's dice have rolled (here
    the Wisconsin's 4+ check against the 8th Georgia), cancelling a later window cannot take them
    back: the dialog's Cancel says "Stop here", and what was rolled is saved, one step, one Undo."""
    from PySide6.QtWidgets import QDialogButtonBox

    from tests.rules.test_procedure import brigade

    c = game_of(brigade(), 7)
    answer.record_messages()
    buttons = []

    def first(dlg: ReactionDialog):
        cancel = dlg.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        buttons.append(cancel.text())
        dlg.choose("wis2", "refuse_flank")

    def second(dlg: ReactionDialog):
        assert dlg.window.mover == "ga9"
        buttons.append(dlg.buttons.button(QDialogButtonBox.StandardButton.Cancel).text())
        return REJECT

    Script(answer, (ReactionDialog, first), (ReactionDialog, second))
    play.move_units(c, None, [("ga9", 10.0, 24.0, 90.0), ("ga8", 18.0, 24.0, 90.0)])
    assert buttons == ["Cancel", "Stop here"]
    assert [e.action.type for e in c.game.events()] == ["declare_reaction"]
    assert c.game.dice.drawn == 1
    (title, text, _kind) = answer.messages[-1]
    assert title == "Trigger Window A" and "the program's dice had rolled" in text
    c.undo()  # one step: one Undo takes it back
    assert c.game.events() == []
