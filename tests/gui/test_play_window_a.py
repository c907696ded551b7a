"""Trigger Window A through the application: a march on the canvas stops at each trigger point.

Chapter 04, Example C (Opportunity Fire punishes a flank march, dice 1 4 4 6 2) and Example B
(Refusing the Flank with the reserved pip) are played by dragging the unit on the canvas: in the
active side's Phase 2 it marches by the movement rules (its allowance, RULE-03-x), so only the
windows on the stretch it can march open. The windows are also opened by hand from the Game menu's
functions.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gui import play
from gui.canvas import CanvasWidget
from gui.reaction_dialog import ManualWindowDialog, ReactionDialog
from rules.battle.words import Marker, Phase
from rules.battlefield.geometry import distance_in
from rules.reactions.declare import Reaction
from tests.gui.test_play_examples import REJECT, Script, example_a, play_game  # noqa: F401
from tests.rules.reactions.test_examples_ch04 import example_b, example_c


def _example_c(x: float = 12.0):
    """The Georgians (assault column, 6" a turn) march east across the Wisconsin's front from x."""
    b = replace(example_c(), phase=Phase.MANEUVER)
    return b.with_unit(b.unit("ga8").moved_to(x, 24))


@pytest.fixture
def canvas_of(qtbot, play_game):  # noqa: F811
    def make(battle):
        c = play_game(battle)
        w = CanvasWidget(c)
        qtbot.addWidget(w)
        w.resize(800, 600)
        w._game_replaced()
        return c, w

    return make


def test_example_c_a_flank_march_stops_at_each_window_and_the_natural_6_halves_what_is_left(
    canvas_of, answer
):
    c, canvas = canvas_of(_example_c())
    at: list[float] = []

    def flank_zone(dlg: ReactionDialog):
        # the Georgians start in the Wisconsin's flank zone, 12" off: Opportunity Fire is greyed
        # with its reason and rule
        box = dlg.boxes["wis2"]
        assert not box.radios[Reaction.OPPORTUNITY_FIRE].isEnabled()
        assert box.radios[Reaction.REFUSE_FLANK].isEnabled()
        assert 'beyond 8" (RULE-04-3.1)' in box.labels[Reaction.OPPORTUNITY_FIRE].text()
        assert "4+ Discipline Check" in box.labels[Reaction.REFUSE_FLANK].text()  # no reserved pip
        assert "flank zone" in box.why.text()
        at.append(canvas.scene.units["ga8"].unit.x)
        dlg.choose("wis2", None)

    def forward_arc(dlg: ReactionDialog):
        box = dlg.boxes["wis2"]
        assert 'enters its 45 degree forward arc within 8"' in box.why.text()
        assert not box.radios[Reaction.REFUSE_FLANK].isEnabled()
        assert "RULE-04-5.1 (Refuse the Flank, 5.0)" in box.labels[Reaction.REFUSE_FLANK].text()
        at.append(canvas.scene.units["ga8"].unit.x)  # the unit stopped at the trigger point
        dlg.choose("wis2", None)  # the Wisconsin waits for short range (RULE-04-3.3)

    def short_range(dlg: ReactionDialog):
        at.append(canvas.scene.units["ga8"].unit.x)
        # the window says how far along the whole march it opened: 5.1" from the start
        assert dlg.window.along_in == pytest.approx(5.1, abs=0.01)
        assert '5.1" along its path' in dlg.heading.text()
        dlg.choose("wis2", "opportunity_fire")
        dlg.dice.type_dice("1 4 4 6 2")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        shown = " ".join(s.text for s in dlg.shown_steps())
        assert "3 hits" in shown and "multiplied by 0.5" in shown
        # "Rifled muskets hit on 4+ at Short Range" (3+ would give the same 3 hits on these dice)
        assert "hits on 4+" in shown and "hits on 3+" not in shown

    script = Script(
        answer, (ReactionDialog, flank_zone), (ReactionDialog, forward_arc), (ReactionDialog, short_range)
    )
    canvas.scene.moveRequested.emit([("ga8", 40.0, 24.0, 90.0)])
    assert not script.steps
    assert (
        at[0] == 12.0 and at[1] == pytest.approx(13.97, abs=0.01) and at[2] == pytest.approx(17.1, abs=0.01)
    )
    g, w = c.battle.unit("ga8"), c.battle.unit("wis2")
    # "3 hits = 1 stand removed, 1 hit tracked on micro-dice. The natural 6 inflicts a Disorder Marker."
    assert (g.stands, g.micro_hits) == (4, 1) and g.disordered
    # "its remaining movement speed for the turn is cut in half": of the 6" allowance 5.1" was
    # used, so 0.9" was left and 0.45" of it is marched (RULE-04-3.5), not half the 22.9" dragged
    assert g.x == pytest.approx(17.1 + 0.9 / 2, abs=0.02) and g.y == pytest.approx(24.0)
    assert w.has(Marker.SMOKE) and w.has(Marker.FIRED)
    evs = c.events()
    # each "No reaction" is logged: the window was offered, and declined
    assert [e.action.type for e in evs] == [
        "decline_reaction",
        "move_unit",
        "decline_reaction",
        "move_unit",
        "declare_reaction",
        "move_unit",
    ]
    assert [e.action.mode for e in evs if e.action.type == "move_unit"] == ["march"] * 3
    declined = [e for e in evs if e.action.type == "decline_reaction"]
    assert [(e.action.window, e.action.defender_id, e.action.attacker_id) for e in declined] == [
        ("a", "wis2", "ga8"),
        ("a", "wis2", "ga8"),
    ]
    assert [e.action.open_to for e in declined] == [("refuse_flank",), ("opportunity_fire",)]
    assert [e.steps[0].rule for e in declined] == ["RULE-04-1.2"] * 2
    assert "passes up Refuse the Flank" in declined[0].steps[0].text
    assert "passes up Opportunity Fire" in declined[1].steps[0].text
    react = evs[4]
    assert [(r.purpose, r.dice) for r in react.rolls] == [("opportunity fire", (1, 4, 4, 6, 2))]
    # the whole march, reaction and all, is one undo step
    c.undo()
    g = c.battle.unit("ga8")
    assert (g.x, g.y, g.stands) == (12.0, 24.0, 5)


def test_a_march_opens_only_the_windows_on_the_stretch_its_allowance_reaches(canvas_of, answer):
    c, canvas = canvas_of(_example_c(0.0))
    Script(answer)  # the flank zone opens 9.2" along: beyond the 6" of an assault column
    canvas.scene.moveRequested.emit([("ga8", 40.0, 24.0, 90.0)])
    g = c.battle.unit("ga8")
    assert (g.x, g.y) == (6.0, 24.0)
    assert [e.action.type for e in c.events()] == ["move_unit"]


def test_example_b_refuse_the_flank_with_the_reserved_pip_and_the_move_goes_on(canvas_of, answer):
    b = replace(example_b(), phase=Phase.MANEUVER)
    b = b.with_unit(b.unit("nc28").moved_to(46, 28))  # 6" of march from the example's (40, 28)
    c, canvas = canvas_of(b)

    def flank(dlg: ReactionDialog):
        box = dlg.boxes["ind19"]
        assert dlg.window.window.value == "a"
        assert box.pip_box is not None and box.pip_box.isChecked()
        dlg.choose("ind19", "refuse_flank")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()  # a reserved pip: no dice

    Script(answer, (ReactionDialog, flank))
    canvas.scene.moveRequested.emit([("nc28", 40.0, 28.0, 270.0)])
    assert c.battle.unit("ind19").has(Marker.REFUSED_RIGHT)
    assert c.battle.brigade_of("ind19").staff_pips_reserved == 0
    nc = c.battle.unit("nc28")
    assert (nc.x, nc.y) == (40.0, 28.0)
    assert [e.action.type for e in c.events()] == ["move_unit", "declare_reaction", "move_unit"]


def test_rule_04_1_2_a_move_outside_phase_2_opens_no_window_and_is_the_umpires_placement(canvas_of, answer):
    c, canvas = canvas_of(replace(_example_c(), phase=Phase.RANGED))
    Script(answer)  # any dialog fails the test
    canvas.scene.moveRequested.emit([("ga8", 40.0, 24.0, 90.0)])
    assert c.battle.unit("ga8").x == 40.0 and [e.action.type for e in c.events()] == ["move_unit"]
    ev = c.events()[0]
    assert ev.action.mode == "place" and "placed by the umpire" in ev.summary


def test_rule_04_1_2_a_move_of_the_side_not_active_opens_no_window(canvas_of, answer):
    b = replace(_example_c(), active_side="union")
    c, canvas = canvas_of(b)
    Script(answer)
    canvas.scene.moveRequested.emit([("ga8", 40.0, 24.0, 90.0)])
    assert c.battle.unit("ga8").x == 40.0


def test_a_move_that_stays_out_of_every_window_is_a_plain_move(canvas_of, answer):
    c, canvas = canvas_of(_example_c(0.0))
    Script(answer)
    canvas.scene.moveRequested.emit([("ga8", 5.0, 24.0, 90.0)])  # stops short of the flank zone
    assert c.battle.unit("ga8").x == 5.0 and len(c.events()) == 1
    assert c.events()[0].action.mode == "march"


def test_cancelling_a_window_takes_the_whole_move_back(canvas_of, answer):
    c, canvas = canvas_of(_example_c())
    Script(answer, (ReactionDialog, lambda d: None), (ReactionDialog, lambda d: REJECT))
    said: list[str] = []
    canvas.scene.measured.connect(said.append)
    canvas.scene.moveRequested.emit([("ga8", 40.0, 24.0, 90.0)])
    g = c.battle.unit("ga8")
    assert (g.x, g.y) == (12.0, 24.0) and c.events() == []
    assert said[-1] == "No move made: the units are where they were"  # not the drag's last words
    # and Redo does not bring the cancelled march back
    assert not c.can_redo and not c.game.can_redo and c.game.redo_events() == []
    c.redo()
    assert (c.battle.unit("ga8").x, c.events()) == (12.0, [])


def test_window_b_opened_by_hand_example_a_closing_volley(play_game, answer):  # noqa: F811
    b = example_a()
    b = b.with_unit(b.unit("bkn14").moved_to(30, 14))  # the Brooklyn on the 4.0" line
    c = play_game(b)

    def setup(dlg: ManualWindowDialog):
        dlg.set_units("bkn14", "va5")
        assert dlg.distance.value() == pytest.approx(4.0) and dlg.in_arc.isChecked()

    def window_b(dlg: ReactionDialog):
        dlg.choose("va5", "closing_volley")
        dlg.dice.type_dice("3 3 5 2 6 2")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    Script(answer, (ManualWindowDialog, setup), (ReactionDialog, window_b))
    (ev,) = play.open_window_b(c, None)
    bkn, va5 = c.battle.unit("bkn14"), c.battle.unit("va5")
    assert bkn.stands == 3 and bkn.disordered and va5.has(Marker.SMOKE)
    assert distance_in(bkn, va5, c.tables) == pytest.approx(2.0)
    assert ev.action.type == "declare_reaction" and ev.rolls[-1].dice == (2,)


def test_window_a_opened_by_hand_example_c_opportunity_fire(play_game, answer):  # noqa: F811
    c = play_game(replace(example_c(), phase=Phase.MANEUVER))

    def setup(dlg: ManualWindowDialog):
        dlg.set_units("ga8", "wis2")
        assert dlg.in_arc.isChecked() and dlg.distance.value() <= 6.0

    def window_a(dlg: ReactionDialog):
        dlg.choose("wis2", "opportunity_fire")
        dlg.dice.type_dice("1 4 4 6 2")

    Script(answer, (ManualWindowDialog, setup), (ReactionDialog, window_a))
    play.open_window_a(c, None)
    g = c.battle.unit("ga8")
    assert (g.stands, g.micro_hits, g.disordered) == (4, 1, True)


def test_rule_04_1_2_a_window_is_not_opened_by_hand_outside_phase_2(play_game, answer):  # noqa: F811
    c = play_game(example_c())  # Phase 1
    answer.record_messages()
    assert play.open_window_a(c, None) is None
    assert "RULE-04-1.2" in answer.messages[0][1]


def test_rule_04_3_5_without_a_natural_6_the_move_resumes_in_full(canvas_of, answer):
    c, canvas = canvas_of(_example_c())

    def short_range(dlg: ReactionDialog):
        dlg.choose("wis2", "opportunity_fire")
        dlg.dice.type_dice("1 4 4 5 2")  # the printed dice with the 6 read as a 5: 3 hits, no Disorder

    skip = (ReactionDialog, lambda d: d.choose("wis2", None))
    Script(answer, skip, skip, (ReactionDialog, short_range))
    canvas.scene.moveRequested.emit([("ga8", 40.0, 24.0, 90.0)])
    g = c.battle.unit("ga8")
    assert (g.stands, g.micro_hits, g.disordered) == (4, 1, False)
    assert (g.x, g.y) == (18.0, 24.0)  # the whole 6" allowance


def test_rule_04_1_4_two_defenders_at_one_window_each_react_once_with_their_own_dice(play_game, answer):  # noqa: F811
    from rules.reactions.declare import REACTIONS_OF_WINDOW, Threat, Window, option
    from rules.reactions.triggers import DefenderChoice, Trigger, TriggerWindow
    from tests.rules.shooting.test_shooting import battle_of, unit

    ga8 = unit("ga8", "csa", name="8th Georgia", x=20, y=24, facing_deg=90)
    wis2 = unit("wis2", "union", name="2nd Wisconsin", x=20, y=30)
    ind19 = unit("ind19", "union", name="19th Indiana", x=20, y=18, facing_deg=180)
    b = replace(battle_of(wis2, ind19, ga8, active="csa"), phase=Phase.MANEUVER)
    c = play_game(b)
    choices = []
    for d in ("wis2", "ind19"):
        t = Threat(Window.A, "ga8", d, distance_in(b.unit(d), b.unit("ga8"), c.tables), in_forward_arc=True)
        opts = tuple(option(b, r, t, c.tables) for r in REACTIONS_OF_WINDOW[Window.A] if r != Reaction.EVADE)
        choices.append(DefenderChoice(d, Trigger.FORWARD_ARC_SHORT, t, opts))
    window = TriggerWindow(Window.A, (20.0, 24.0), 0.0, "ga8", tuple(choices))

    def both_fire(dlg: ReactionDialog):
        dlg.choose("wis2", "opportunity_fire")
        dlg.choose("ind19", "opportunity_fire")
        dlg.dice.type_dice("1 4 4 6 2")
        assert "the opportunity fire needs 5 dice; 0 are left" in dlg.problem_label.text()
        dlg.dice.type_dice("1 4 4 6 2 1 1 2 2 3")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    Script(answer, (ReactionDialog, both_fire))
    evs = play.offer_window(c, None, window)
    assert [e.action.defender_id for e in evs] == ["wis2", "ind19"]
    assert [e.rolls[0].dice for e in evs] == [(1, 4, 4, 6, 2), (1, 1, 2, 2, 3)]
    g = c.battle.unit("ga8")
    assert (g.stands, g.micro_hits, g.disordered) == (4, 1, True)  # 3 hits, then none


def test_declare_charge_from_the_canvas_context_menu_comes_with_the_units_chosen(canvas_of, answer):
    c, canvas = canvas_of(example_a())
    seen = []

    def charge(dlg):
        seen.append((dlg.attacker_id(), dlg.target_id(), dlg.ok_button.isEnabled()))
        return REJECT

    from gui.combat_dialogs import ChargeDialog

    Script(answer, (ChargeDialog, charge))
    canvas.scene.declare_charge("bkn14", "va5")
    assert seen == [("bkn14", "va5", True)]


def test_a_declared_charge_stops_on_the_canvas_at_the_4in_line_while_window_b_is_open(canvas_of, answer):
    from gui.combat_dialogs import ChargeDialog

    c, canvas = canvas_of(example_a())
    at = []

    def window_b(dlg: ReactionDialog):
        u = canvas.scene.units["bkn14"].unit
        at.append((u.x, u.y))
        return REJECT

    Script(answer, (ChargeDialog, lambda d: None), (ReactionDialog, window_b))
    canvas.scene.declare_charge("bkn14", "va5")
    assert at == [(30.0, pytest.approx(14.0))]  # 4.0" from the Virginians' front edge (RULE-06-2.1)
    assert canvas.scene.units["bkn14"].unit.y == 18.0  # cancelled: back where the battle has it
    assert c.events() == []


def test_rule_06_2_5_a_charger_that_stalled_cannot_be_dragged_on_this_turn(canvas_of, answer):
    from rules.actions import mark_stalled

    c, canvas = canvas_of(mark_stalled(example_a(), "bkn14"))  # as a failed pre-contact check leaves it
    failures: list[str] = []
    c.actionFailed.connect(failures.append)
    Script(answer)  # no window opens
    canvas.scene.moveRequested.emit([("bkn14", 36.0, 18.0, 0.0)])
    assert c.battle.unit("bkn14").x == 30.0 and c.events() == []
    assert failures and "cannot move or attack further this turn (RULE-06-2.5)" in failures[0]


def test_rule_04_3_4_a_firer_dragged_clear_of_its_smoke_may_fire_in_phase_3(canvas_of, answer):
    b = example_a()
    va5 = b.unit("va5").with_markers(add=[Marker.SMOKE, Marker.FIRED])
    far = b.unit("bkn14").moved_to(60, 40)  # the Brooklyn out of the way: no window opens
    b = replace(b.with_units(va5, far), active_side="csa")
    c, canvas = canvas_of(b)
    Script(answer)
    # 2" back: its stands leave the ground it fired from and the smoke in front of it
    canvas.scene.moveRequested.emit([("va5", 30.0, 8.0, 180.0)])
    u = c.battle.unit("va5")
    assert u.y == 8.0 and not u.has(Marker.SMOKE) and not u.has(Marker.FIRED)
    assert "RULE-04-3.4" in [s.rule for s in c.events()[-1].steps]


def test_after_the_game_is_opened_again_one_undo_still_takes_back_the_whole_march(canvas_of, answer):
    from gui.controller import GameController
    from storage.game import Game

    c, canvas = canvas_of(_example_c())
    start = c.battle.unit("ga8")
    Script(
        answer,
        (ReactionDialog, lambda d: d.choose("wis2", None)),
        (ReactionDialog, lambda d: d.choose("wis2", None)),
    )
    canvas.scene.moveRequested.emit([("ga8", 17.0, 24.0, 90.0)])
    marched = [e.seq for e in c.events()]
    assert len(marched) >= 3 and c.battle.unit("ga8").x == 17.0  # marches and declines, one step
    path = c.game.path
    c.close()
    again = GameController()
    again.set_game(Game.open(path), str(path))
    try:
        again.undo()
        u = again.battle.unit("ga8")
        assert (u.x, u.y) == (start.x, start.y) and again.events() == []
        again.redo()
        assert again.battle.unit("ga8").x == 17.0 and [e.seq for e in again.events()] == marched
    finally:
        again.close()
