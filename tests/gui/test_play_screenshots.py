"""Pictures of the play dialogs, each as the umpire meets it in a worked example.

Each dialog is drawn off screen and checked to be a picture with something in it. With
``BRIGADIER_WRITE_SCREENSHOTS=1`` the pictures are written to ``docs/screenshots/dialog_*.png``.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from gui import play
from gui.combat_dialogs import ChargeDialog, MeleeDialog, ShootDialog
from gui.reaction_dialog import ReactionDialog
from rules.battle.words import Phase
from tests.gui.test_play_combat import duel
from tests.gui.test_play_examples import REJECT, Script, example_a, play_game, to_phase_4  # noqa: F401
from tests.rules.melee.test_examples_ch06 import example_1
from tests.rules.reactions.test_examples_ch04 import example_c

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.fixture
def shots(tmp_path):
    folder = DOCS if os.environ.get("BRIGADIER_WRITE_SCREENSHOTS") == "1" else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    taken: dict[str, Path] = {}

    def take(dlg, name: str) -> None:
        dlg.show()
        for _ in range(3):
            QApplication.processEvents()
        path = folder / f"dialog_{name}.png"
        assert dlg.grab().save(str(path))
        dlg.hide()
        taken[name] = path

    take.taken = taken
    yield take
    for name, path in taken.items():
        img = QImage(str(path))
        assert img.width() >= 600 and img.height() >= 400, name
        colours = {img.pixel(x, y) for x in range(0, img.width(), 7) for y in range(0, img.height(), 7)}
        assert len(colours) > 20, f"{name} is nearly blank"


def test_screenshot_window_b_example_a(play_game, answer, shots):  # noqa: F811
    c = play_game(example_a())

    def window_b(dlg: ReactionDialog):
        dlg.choose("va5", "closing_volley")
        dlg.dice.type_dice("3 3 5 2 6 2")
        shots(dlg, "window_b")
        return REJECT

    Script(answer, (ChargeDialog, lambda d: d.set_units("bkn14", "va5")), (ReactionDialog, window_b))
    play.declare_charge(c, None)


def test_screenshot_window_a_example_c(play_game, answer, shots):  # noqa: F811
    c = play_game(replace(example_c(), phase=Phase.MANEUVER))  # the 8th Georgia 8" from the Wisconsin

    def short_range(dlg: ReactionDialog):
        dlg.choose("wis2", "opportunity_fire")
        dlg.dice.type_dice("1 4 4 6 2")
        shots(dlg, "window_a")
        return REJECT

    # the Georgians start inside the Wisconsin's forward arc and its short range: both open at the
    # start of the march, one window, where the Wisconsin fires (RULE-04-3.3)
    Script(answer, (ReactionDialog, short_range))
    play.move_units(c, None, [("ga8", 40.0, 24.0, None)])


def test_screenshot_shooting(play_game, answer, shots):  # noqa: F811
    c = play_game(duel())

    def shoot(dlg: ShootDialog):
        dlg.dice.type_dice("1 4 4 6 2")
        shots(dlg, "shooting")
        return REJECT

    Script(answer, (ShootDialog, shoot))
    play.shoot(c, None)


def test_screenshot_charge_odds_and_melee_example_1(play_game, answer, shots):  # noqa: F811
    c = play_game(example_1())

    def charge(dlg: ChargeDialog):
        dlg.set_units("va4", "wis2")
        shots(dlg, "charge_odds")

    def window_b(dlg: ReactionDialog):
        dlg.choose("wis2", "closing_volley")
        dlg.dice.type_dice("2 4 1 6 5 5")

    def melee(dlg: MeleeDialog):
        dlg.dice.type_dice("5 3 4")
        shots(dlg, "melee")
        return REJECT

    # Phase 2 ends at contact; the melee dialog is the Phase 4 one (RULE-06-1.1)
    script = Script(answer, (ChargeDialog, charge), (ReactionDialog, window_b))
    play.declare_charge(c, None)
    assert not script.steps
    to_phase_4(c)
    script = Script(answer, (MeleeDialog, melee))
    play.resolve_melee(c, None)
    assert not script.steps and set(shots.taken) == {"charge_odds", "melee"}
