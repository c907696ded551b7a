"""Arrivals in the window: the order of battle lists a unit still to arrive as arriving, the map
does not show it, the inspector says when it comes, the plots do not count it, and Game > Bring on
arrivals brings the groups due on, the program's dice or the dice typed in rolling for those that
need a die, each group one step."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gui.arrivals import ArrivalsDialog, bring_on_arrivals
from gui.plot_series import BattleCourse
from gui.roster_model import COL_HEALTH
from rules.actions import NextPhase, Override
from rules.battle.unit import Arrival
from storage.game import Game
from storage.scenario import load_demo


@pytest.fixture
def late(tmp_path, window_on):
    """The demo with the 2nd Wisconsin and the 19th Indiana arriving on turn 2, the Indiana on a 4."""
    b = load_demo()
    b = b.with_units(
        replace(b.unit("wis2"), arrives=Arrival(2, "the Pike", 40.0, 8.0, 180.0)),
        replace(b.unit("ind19"), arrives=Arrival(2, "the Pike", 46.0, 8.0, 180.0, roll=4)),
    )
    g = Game.create(tmp_path / "late.sqlite", b, seed=1863)
    return window_on(g, (1366, 768)), g


def test_a_unit_still_to_arrive_is_listed_as_arriving_and_not_on_the_map(late):
    win, g = late
    model = win.roster.model
    row = model._unit_rows["wis2"]
    assert row[COL_HEALTH].text() == "Arrives T2" and "the Pike" in row[COL_HEALTH].toolTip()
    assert not win.canvas.scene.units["wis2"].isVisible()
    win.controller.select(["wis2"])
    assert (
        "Not on the table yet" in win.inspector.facts.text()
        and "turn 2 at the Pike" in win.inspector.facts.text()
    )
    # the plots count the stands on the field: not the arriving units'
    data = BattleCourse().rebuild(g)
    union = next(s for s in data.sides if s.label.startswith("Union"))
    on_field = sum(u.stands for u in g.battle.units.values() if u.side == "union" and u.in_play)
    assert union.values[0] == on_field < sum(u.stands for u in g.battle.units.values() if u.side == "union")


def test_bring_on_arrivals_with_the_dice_typed_in(late, answer):
    win, g = late
    c = win.controller
    c.run(Override("game", "game", {"turn": 2, "active_side": "union"}, "to the arrival"))
    c.run(NextPhase())
    seen = {}

    def fill(dlg: ArrivalsDialog):
        seen["groups"] = [grp.unit_ids for grp in dlg.groups]
        assert not dlg.dice.isHidden()  # the Indiana comes on a 4 or more
        dlg.dice.type_dice("")
        dlg.revalidate()
        assert not dlg.ok_button.isEnabled()  # the Indiana's die is owed
        dlg.dice.type_dice("5")
        dlg.revalidate()
        assert dlg.ok_button.isEnabled()
        return dlg.DialogCode.Accepted

    answer.dialog(fill)
    before = g.last_seq
    assert bring_on_arrivals(win) == 2
    assert seen["groups"] == [("wis2",), ("ind19",)]
    assert g.last_seq == before + 2  # each group one step
    assert g.battle.unit("wis2").in_play and g.battle.unit("ind19").in_play
    assert g.events()[-1].steps[0].dice == (5,)
    assert win.canvas.scene.units["wis2"].isVisible()
    assert win.roster.model._unit_rows["wis2"][COL_HEALTH].text() != "Arrives T2"
    c.undo()
    assert g.battle.unit("ind19").arriving and g.battle.unit("wis2").in_play


def test_the_dialog_offers_nothing_before_the_turn(late, answer):
    win, g = late
    answer.record_messages()

    def look(dlg: ArrivalsDialog):
        assert dlg.groups == [] and not dlg.ok_button.isEnabled()
        return dlg.DialogCode.Rejected

    answer.dialog(look)
    assert bring_on_arrivals(win) == 0
    assert all(g.battle.unit(u).arriving for u in ("wis2", "ind19"))


def test_the_roster_sheet_says_when_an_arriving_unit_comes(late):
    from reports.roster_sheets import roster_sheets

    _win, g = late
    sheets = roster_sheets(g.battle, g.tables)
    lines = {u.id: u for sh in sheets for u in sh.units}
    assert lines["wis2"].formation == "Arrives turn 2" and lines["bkn14"].formation != "Arrives turn 2"
