"""Buildings in the application: Game > Garrison a building (Phase 2, RULE-03-3.1) and Game >
Bombard a building (Phase 3, RULE-03-3.2), through the dialogs seam, with the dice typed at the
table, journalled and undone like any action.

With ``BRIGADIER_WRITE_SCREENSHOTS=1`` the two dialogs are drawn to
``docs/screenshots/dialog_garrison.png`` and ``dialog_bombard.png``.
"""

# ruff: noqa: F811 (the play_game fixture is imported and taken as an argument)
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from gui import play
from gui.combat_dialogs import BombardDialog, GarrisonDialog
from rules.battle.terrain import TerrainType
from rules.battle.words import Marker, Phase
from rules.battlefield.field import Battlefield
from rules.tables import load_tables
from tests.gui.fair_dice import assert_no_faces, outcome_committed
from tests.gui.test_play_examples import REJECT, Script, play_game  # noqa: F401
from tests.rules.conftest import battle_of, foot, guns, rect

T = load_tables()
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def farm_to_occupy():
    """Roulette Farm (10..14 x 10..13); the 2nd Wisconsin (2 stands) and the 6th Wisconsin (1 stand)
    with their colour stands touching its south wall, in the Union's Phase 2."""
    house = rect("farm", "building", 10, 10, 14, 13, name="Roulette Farm")
    wis2 = foot("wis2", 12, 13.2, stands=2, name="2nd Wisconsin")
    wis6 = foot("wis6", 11, 13.2, stands=1, name="6th Wisconsin")
    return replace(battle_of(wis2, wis6, terrain=[house]), phase=Phase.MANEUVER)


def farm_under_fire(hits=0):
    """The 8th Georgia (2 stands) holds Roulette Farm; two Union batteries of 3 sections face it."""
    house = rect("farm", "building", 10, 10, 14, 13, name="Roulette Farm", structural_hits=hits)
    ga8 = foot(
        "ga8", 12, 11, side="csa", stands=2, name="8th Georgia", markers=frozenset({Marker.GARRISONED})
    )
    bat_b = guns("batb", 12, 25, name="Battery B")
    bat_d = guns("batd", 18, 25, name="Battery D")
    return replace(battle_of(ga8, bat_b, bat_d, terrain=[house]), phase=Phase.RANGED)


# -- garrison (RULE-03-3.1) ------------------------------------------------------------------------


def test_rule_03_3_1_a_2_stand_unit_garrisons_the_building_through_the_dialog(play_game, answer):  # noqa: F811
    c = play_game(farm_to_occupy())
    answer.record_messages()

    def garrison(dlg: GarrisonDialog):
        dlg.set_choice("wis2", "farm")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        info = dlg.info.text()
        assert "Roulette Farm" in info and "empty" in info and "at most 2 stands (RULE-03-3.1)" in info
        assert "2nd Wisconsin occupies Roulette Farm (2 of at most 2 stands)" in dlg.result.toPlainText()

    Script(answer, (GarrisonDialog, garrison))
    ev = play.garrison_building(c, None)
    assert ev is not None and ev.action.type == "garrison_building" and answer.messages == []
    u = c.battle.unit("wis2")
    assert u.has(Marker.GARRISONED) and Battlefield(c.battle, T).building_of(u).id == "farm"
    assert ev.steps[0].rule == "RULE-03-3.1"


def test_rule_03_3_1_a_third_stand_is_refused_with_the_rule(play_game, answer):  # noqa: F811
    c = play_game(farm_to_occupy())
    answer.record_messages()
    Script(answer, (GarrisonDialog, lambda d: d.set_choice("wis2", "farm")))
    assert play.garrison_building(c, None) is not None

    def third(dlg: GarrisonDialog):
        dlg.set_choice("wis6", "farm")
        assert not dlg.ok_button.isEnabled()
        text = dlg.problem_label.text()
        assert "Roulette Farm already holds 2 stands" in text and "(RULE-03-3.1)" in text
        assert "held by 2nd Wisconsin (2 stands, Union)" in dlg.info.text()
        # the umpire presses OK anyway (or the dialog is answered with OK): the refusal is told

    Script(answer, (GarrisonDialog, third))
    assert play.garrison_building(c, None) is None
    ((title, text, kind),) = answer.messages
    assert title == "Garrison a building" and kind == "warning"
    assert "already holds 2 stands" in text and "RULE-03-3.1" in text
    assert not c.battle.unit("wis6").has(Marker.GARRISONED) and len(c.events()) == 1


def test_rule_03_3_1_a_unit_0_5in_away_is_told_to_move_up_and_one_touching_may_occupy(play_game, answer):  # noqa: F811
    b = farm_to_occupy()
    far = b.with_unit(b.unit("wis2").moved_to(12, 13.5))  # 0.5" from the wall: not touching
    c = play_game(far)

    def refused(dlg: GarrisonDialog):
        dlg.set_choice("wis2", "farm")
        assert not dlg.ok_button.isEnabled() and "move it up to the building" in dlg.problem_label.text()
        assert '0.5" from the building' in dlg.info.text()
        return REJECT

    Script(answer, (GarrisonDialog, refused))
    assert play.garrison_building(c, None) is None and c.events() == []
    near = b.with_unit(b.unit("wis2").moved_to(12, 13.25))  # 0.25": touching
    c2 = play_game(near)

    def allowed(dlg: GarrisonDialog):
        dlg.set_choice("wis2", "farm")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    Script(answer, (GarrisonDialog, allowed))
    assert play.garrison_building(c2, None) is not None


def test_garrison_is_undone_in_one_step(play_game, answer):  # noqa: F811
    c = play_game(farm_to_occupy())
    before = c.battle.unit("wis2")
    Script(answer, (GarrisonDialog, lambda d: d.set_choice("wis2", "farm")))
    play.garrison_building(c, None)
    assert c.battle.unit("wis2") != before
    c.undo()
    assert c.battle.unit("wis2") == before and c.events() == []


# -- bombardment (RULE-03-3.2) ---------------------------------------------------------------------


def test_rule_03_3_2_two_batteries_with_typed_dice_bring_the_farm_down_and_undo_puts_it_back(
    play_game, answer
):  # noqa: F811
    c = play_game(farm_under_fire())
    answer.record_messages()
    start = c.battle

    def battery_b(dlg: BombardDialog):
        dlg.set_choice("batb", "farm")
        assert "Hits on <b>4+</b> (RULE-03-3.2)" in dlg.info.text()
        dlg.dice.type_dice("6 6 6 6 6")
        assert not dlg.ok_button.isEnabled() and "needs 6 dice" in dlg.problem_label.text()
        # 6 sections' dice all hit; the 6 saves all fail: 6 unsaved hits are 3 structural hits
        dlg.dice.type_dice("6 6 6 6 6 6 1 1 1 1 1 1")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        assert "3 of 4 structural hits" in dlg.result.toPlainText()

    Script(answer, (BombardDialog, battery_b))
    ev = play.bombard_building(c, None)
    assert ev is not None and ev.action.type == "bombard_building"
    assert [(r.purpose, r.dice) for r in ev.rolls][0] == ("bombardment", (6, 6, 6, 6, 6, 6))
    farm = c.battle.feature("farm")
    assert farm.type == TerrainType.BUILDING and farm.structural_hits == 3
    assert c.battle.unit("batb").has(Marker.FIRED)

    def battery_d(dlg: BombardDialog):
        dlg.set_choice("batd", "farm")
        assert "3 of 4 structural hits" in dlg.info.text()
        dlg.dice.type_dice("6 6 1 1 1 1 2 3")  # 2 hits, both saves fail: the 4th structural hit
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        assert "collapses into rubble" in dlg.result.toPlainText()

    Script(answer, (BombardDialog, battery_d))
    ev2 = play.bombard_building(c, None)
    assert ev2 is not None and answer.messages == []
    assert c.battle.feature("farm").type == TerrainType.RUBBLE
    ga = c.battle.unit("ga8")
    assert ga.stands == 1 and ga.has(Marker.DISORDER) and not ga.has(Marker.GARRISONED)
    assert any("collapses into rubble" in s.text and s.rule == "RULE-03-3.2" for s in ev2.steps)
    # one undo a bombardment: the farm stands again with 3 hits, then with none
    c.undo()
    assert c.battle.feature("farm").type == TerrainType.BUILDING
    assert c.battle.feature("farm").structural_hits == 3 and c.battle.unit("ga8") == start.unit("ga8")
    c.undo()
    assert c.battle.feature("farm") == start.feature("farm") and c.events() == []


def test_rule_03_3_2_three_structural_hits_leave_the_building_standing(play_game, answer):  # noqa: F811
    c = play_game(farm_under_fire(hits=2))
    Script(
        answer,
        (BombardDialog, lambda d: (d.set_choice("batb", "farm"), d.dice.type_dice("6 6 1 1 1 1 2 3"))[-1]),
    )
    play.bombard_building(c, None)
    farm = c.battle.feature("farm")
    assert farm.type == TerrainType.BUILDING and farm.structural_hits == 3
    assert c.battle.unit("ga8").has(Marker.GARRISONED)


def test_rule_03_3_2_bombarding_outside_phase_3_is_refused_through_the_dialog_seam(play_game, answer):  # noqa: F811
    c = play_game(replace(farm_under_fire(), phase=Phase.MANEUVER))
    answer.record_messages()

    def refused(dlg: BombardDialog):
        dlg.set_choice("batb", "farm")
        assert not dlg.ok_button.isEnabled() and "Phase 3" in dlg.problem_label.text()

    Script(answer, (BombardDialog, refused))
    assert play.bombard_building(c, None) is None and c.events() == []
    ((title, text, kind),) = answer.messages
    assert title == "Bombard a building" and "only in its own side's Phase 3" in text


def test_the_bombard_dialog_shows_chances_and_the_program_rolls_one_of_them(play_game, answer):  # noqa: F811
    c = play_game(farm_under_fire())
    shown, chances = [], []

    def bombard(dlg: BombardDialog):
        dlg.set_choice("batb", "farm")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        shown.append(dlg.result.toPlainText())
        chances.append(dlg.chances())

    Script(answer, (BombardDialog, bombard))
    ev = play.bombard_building(c, None)
    assert_no_faces(shown[0])
    assert "%" in shown[0] and chances[0].total == 1
    outcome_committed(chances[0], ev.steps)


# -- the dialogs' pictures ---------------------------------------------------------------------------


@pytest.fixture
def shots(tmp_path):
    folder = DOCS if os.environ.get("BRIGADIER_WRITE_SCREENSHOTS") == "1" else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    taken: list[Path] = []

    def take(dlg, name: str) -> None:
        dlg.show()
        for _ in range(3):
            QApplication.processEvents()
        path = folder / f"dialog_{name}.png"
        assert dlg.grab().save(str(path))
        dlg.hide()
        taken.append(path)

    yield take
    for path in taken:
        img = QImage(str(path))
        assert img.width() >= 600 and img.height() >= 400, path.name


def test_screenshots_of_the_garrison_and_bombard_dialogs(qtbot, shots):
    g = GarrisonDialog(farm_to_occupy(), T, "wis2", "farm")
    qtbot.addWidget(g)
    shots(g, "garrison")

    b = BombardDialog(farm_under_fire(hits=1), T, battery_id="batb")
    qtbot.addWidget(b)
    b.dice.type_dice("6 4 3 5 1 2 4 1 5")
    assert b.ok_button.isEnabled(), b.problem_label.text()
    shots(b, "bombard")


# -- the Game menu -----------------------------------------------------------------------------------


def test_the_game_menu_garrisons_and_bombards_a_building(tmp_path, qtbot, answer):
    from gui.app import make_main_window
    from storage.game import Game

    g = Game.create(tmp_path / "farm.sqlite", farm_to_occupy(), seed=7)
    path = str(g.path)
    g.close()
    win = make_main_window(path)
    qtbot.addWidget(win)
    try:
        texts = [a.text() for a in win.menus["game"].actions()]
        assert "&Garrison a building…" in texts and "Bombar&d a building…" in texts
        Script(answer, (GarrisonDialog, lambda d: d.set_choice("wis2", "farm")))
        win.garrison_action.trigger()
        assert win.controller.battle.unit("wis2").has(Marker.GARRISONED)
        answer.record_messages()
        Script(answer, (BombardDialog, lambda d: REJECT))
        win.bombard_action.trigger()  # no battery on the table: the dialog opens, the umpire cancels
        assert len(win.controller.events()) == 1
    finally:
        win.controller.close()


# -- the canvas's context menu ---------------------------------------------------------------------


def _canvas(qtbot, controller):
    from gui.canvas import CanvasWidget

    w = CanvasWidget(controller)
    qtbot.addWidget(w)
    w.resize(900, 650)
    w.show()
    qtbot.waitExposed(w)
    w._game_replaced()
    return w


def _menu_texts(menu) -> list[str]:
    return [a.text() for a in menu.actions() if a.text()]


def test_right_click_on_a_building_offers_to_garrison_it_with_the_selected_unit(play_game, answer, qtbot):
    c = play_game(farm_to_occupy())
    w = _canvas(qtbot, c)
    c.select(["wis2"])
    menu = w.scene.context_menu(QPointF(13.5, 10.5))  # in the farm, clear of the units
    texts = _menu_texts(menu)
    assert "Garrison Roulette Farm…" in texts and "Bombard Roulette Farm…" in texts

    def garrison(dlg: GarrisonDialog):
        assert (dlg.unit_id(), dlg.feature_id()) == ("wis2", "farm")

    Script(answer, (GarrisonDialog, garrison))
    next(a for a in menu.actions() if a.text() == "Garrison Roulette Farm…").trigger()
    assert c.battle.unit("wis2").has(Marker.GARRISONED)
    # open ground has no menu
    assert w.scene.context_menu(QPointF(40.0, 30.0)) is None


def test_right_click_on_a_battery_offers_to_bombard_a_building(play_game, answer, qtbot):

    c = play_game(farm_under_fire())
    w = _canvas(qtbot, c)
    item = w.scene.units["batb"]
    at = item.mapToScene(item.boundingRect().center())
    menu = w.scene.context_menu(at)
    assert "Bombard a building…" in _menu_texts(menu) and "Garrison a building…" not in _menu_texts(menu)
    assert "Change formation" in _menu_texts(menu)  # the unit's own items are still there
    in_farm = w.scene.context_menu(QPointF(12.0, 11.4))  # the 8th Georgia's colour stand, in the farm
    assert "8th Georgia" in [a.text() for a in in_farm.actions()]
    assert "Garrison Roulette Farm…" in _menu_texts(in_farm)

    def bombard(dlg: BombardDialog):
        assert (dlg.unit_id(), dlg.feature_id()) == ("batb", "farm")
        dlg.dice.type_dice("4 4 1 1 1 1 1 1")

    Script(answer, (BombardDialog, bombard))
    next(a for a in menu.actions() if a.text() == "Bombard a building…").trigger()
    assert c.battle.feature("farm").structural_hits == 1
