"""The scenario editor: a new scenario from its settings, its order of battle made with the window's
own forms (a unit arriving later among them), its ground drawn, its settings changed as one edit,
then saved as a scenario file that `brigadier new` starts from and that reads back into the same
file (save, load, save: the same text)."""

from __future__ import annotations

from cli import main as cli
from gui import dialogs
from gui import scenario_editor as se
from gui.order_of_battle_dialogs import BrigadeDialog, UnitDialog
from gui.scenario_editor import ScenarioSettingsDialog
from rules.actions import AddBrigade, AddTerrain, AddUnit
from storage.scenario import load_scenario
from storage.scenario_parsing import parse_scenario
from storage.scenario_writing import to_toml


def test_a_new_scenario_made_in_the_window_round_trips(tmp_path, window_on, game, monkeypatch, answer):
    win = window_on(game)
    c = win.controller

    def settings(dlg: ScenarioSettingsDialog):
        dlg.name.setText("The Wheatfield")
        dlg.notes.setPlainText("Sources: Busey and Martin; the Official Records.")
        dlg.width.setValue(96)
        dlg.depth.setValue(60)
        dlg.side_names[1].setText("Confederate")
        dlg.first.setCurrentIndex(1)
        dlg.revalidate()
        assert dlg.ok_button.isEnabled()
        return dlg.DialogCode.Accepted

    answer.dialog(settings)
    assert se.new_scenario(win)
    b = c.battle
    assert b.name == "The Wheatfield" and b.table_width_in == 96 and not b.units and b.first_side == "csa"

    # a brigade and two units, with the window's own forms; one of them arrives on turn 3
    bd = BrigadeDialog(b, None, win, side="csa")
    bd.name.setText("Kershaw's Brigade")
    bd.brigadier.setText("Brig. Gen. Joseph B. Kershaw")
    assert c.run(AddBrigade(brigade=bd.brigade().to_dict())) is not None
    ud = UnitDialog(c.battle, None, win, brigade=bd.brigade().id)
    ud.name.setText("2nd South Carolina")
    ud.x.setValue(40)
    ud.y.setValue(10)
    assert c.run(AddUnit(unit=ud.unit().to_dict())) is not None
    ud = UnitDialog(c.battle, None, win, brigade=bd.brigade().id)
    ud.name.setText("3rd South Carolina")
    ud.x.setValue(50)
    ud.y.setValue(4)
    ud.arrival_box.setChecked(True)
    ud.arrive_turn.setValue(3)
    ud.arrive_at.setText("the Emmitsburg Road")
    ud.arrive_roll.setValue(4)
    assert ud.problem() is None
    assert c.run(AddUnit(unit=ud.unit().to_dict())) is not None
    assert (
        c.run(
            AddTerrain(
                feature={
                    "id": "wheatfield",
                    "name": "The Wheatfield",
                    "type": "cornfield",
                    "points": [[30, 30], [50, 30], [50, 45], [30, 45]],
                }
            )
        )
        is not None
    )
    arriving = next(u for u in c.battle.units.values() if u.name == "3rd South Carolina")
    assert arriving.arriving and arriving.arrives.at == "the Emmitsburg Road" and arriving.arrives.roll == 4
    assert (arriving.arrives.x, arriving.arrives.y) == (50.0, 4.0)

    # the settings changed as one edit, undone as one
    def rename(dlg: ScenarioSettingsDialog):
        assert dlg.name.text() == "The Wheatfield" and dlg.first.currentData() == "csa"
        dlg.notes.setPlainText("Sources: Busey and Martin; the Official Records; the brigade tablets.")
        dlg.side_colours[1].setText("#777777")
        return dlg.DialogCode.Accepted

    answer.dialog(rename)
    before = c.game.last_seq
    assert se.scenario_settings(win)
    assert c.game.last_seq == before + 1 and "tablets" in c.battle.notes
    sc2 = next(u.id for u in c.battle.units.values() if u.name == "2nd South Carolina")
    assert win.canvas.scene.units[sc2].colour.name() == "#777777"  # the map follows the sides' colours
    # kept in the save: the game read again has them, and one Undo takes the settings back
    assert c.reload() and c.battle.oob.sides[1].colour == "#777777" and "tablets" in c.battle.notes
    c.undo()
    assert c.battle.oob.sides[1].colour == "#8b1a1a" and "tablets" not in c.battle.notes
    c.redo()

    out = tmp_path / "wheatfield.toml"
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(out))
    assert se.save_as_scenario(win) == out
    text = out.read_text()
    again = load_scenario(out)
    assert (
        again.units == c.battle.units and again.notes == c.battle.notes and again.terrain == c.battle.terrain
    )
    assert to_toml(parse_scenario(text, str(out))) == text  # save, load, save: the same file
    # and a game starts from it
    assert cli.main(["new", str(out), str(tmp_path / "w.sqlite")]) == 0


def test_settings_that_would_leave_a_unit_off_the_table_are_refused(tmp_path, window_on, game, answer):
    win = window_on(game)
    answer.record_messages()

    def shrink(dlg: ScenarioSettingsDialog):
        dlg.width.setValue(12)
        return dlg.DialogCode.Accepted

    answer.dialog(shrink)
    w = win.controller.battle.table_width_in
    assert not se.scenario_settings(win)
    assert win.controller.battle.table_width_in == w
    assert "must hold every unit" in answer.messages[0][1]


def test_a_scenario_needs_a_name_and_two_sides(window_on, game):
    win = window_on(game)
    dlg = ScenarioSettingsDialog(None, win)
    dlg.name.setText("")
    dlg.revalidate()
    assert not dlg.ok_button.isEnabled() and "needs a name" in dlg.problem_label.text()
    dlg.name.setText("X")
    dlg.side_names[1].setText("Union")
    dlg.revalidate()
    assert "different names" in dlg.problem_label.text()
    dlg.side_names[1].setText("Confederate")
    dlg.side_colours[0].setText("blue")
    dlg.revalidate()
    assert "#1f3a93" in dlg.problem_label.text()


def test_edit_scenario_opens_a_scenario_file_to_edit(window_on, game, monkeypatch):
    from importlib import resources

    win = window_on(game)
    path = str(resources.files("resources").joinpath("scenarios", "gettysburg.toml"))
    monkeypatch.setattr(dialogs, "ask_open_path", lambda *a, **k: path)
    assert se.edit_scenario(win)
    b = win.controller.battle
    assert b.name == "Gettysburg, 1 July 1863" and len(b.units) == 171
    assert "-scenario-" in win.controller.path  # edited in a save of its own, not the bundled file


def test_deployment_zones_set_in_the_settings_show_on_the_map_in_the_first_turn(window_on, game, answer):
    from rules.actions import EndTurn

    win = window_on(game)

    def zone(dlg: ScenarioSettingsDialog):
        dlg.zone_boxes[0].setChecked(True)
        for spin, v in zip(dlg.zone_edges[0], (0, 0, 30, 10), strict=True):
            spin.setValue(v)
        dlg.revalidate()
        assert dlg.ok_button.isEnabled()
        return dlg.DialogCode.Accepted

    answer.dialog(zone)
    assert se.scenario_settings(win)
    items = win.canvas.scene.zone_items
    assert len(items) == 1 and items[0].rect().width() == 30 and "deployment zone" in items[0].toolTip()
    c = win.controller
    c.run(EndTurn())
    c.run(EndTurn())
    assert c.battle.turn == 2 and win.canvas.scene.zone_items == []
    c.undo()
    c.undo()
    assert len(win.canvas.scene.zone_items) == 1
