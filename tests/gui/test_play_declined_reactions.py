""" "No reaction" at a Trigger Window through the application: the decline is logged.

The umpire answers a window's dialog with "No reaction" for a defender: the log, the save and the
turn summary show that the window opened for it (RULE-04-1.2) and that it declined, and undo takes
the decline back with the move or the charge it belongs to. Declining does not use up the
defender's one reaction (RULE-04-1.4): a later window of the same march is still offered.
"""

from __future__ import annotations

from dataclasses import replace

from gui import play, report, report_html
from gui.combat_dialogs import ChargeDialog
from gui.log_view import LogView
from gui.reaction_dialog import ManualWindowDialog, ReactionDialog
from rules.battle.words import Marker, Phase
from rules.melee.melee import pending_melees
from storage.game import Game
from tests.gui.test_play_examples import Script, play_game  # noqa: F401
from tests.gui.test_play_window_a import _example_c, canvas_of  # noqa: F401
from tests.rules.melee.test_examples_ch06 import example_1
from tests.rules.reactions.test_examples_ch04 import example_c


def _log_lines(log: LogView) -> list[str]:
    """Every line of the log's tree, events and their steps, in order."""
    out: list[str] = []

    def walk(item):
        for i in range(item.childCount()):
            out.append(item.child(i).text(0))
            walk(item.child(i))

    for i in range(log.tree.topLevelItemCount()):
        walk(log.tree.topLevelItem(i))
    return out


def test_window_a_declined_three_times_is_logged_shown_summarised_saved_and_undone(canvas_of, answer, qtbot):  # noqa: F811
    c, canvas = canvas_of(_example_c())
    log = LogView(c)
    qtbot.addWidget(log)
    wis, ga = c.battle.unit("wis2").name, c.battle.unit("ga8").name
    shown: list[str] = []

    def decline(dlg: ReactionDialog):
        dlg.choose("wis2", None)
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        shown.append(" ".join(s.text for s in dlg.shown_steps()))

    # the flank zone, the forward arc, short range: three windows, each declined, each still offered
    # after the decline before it (RULE-04-1.4 counts reactions, not declines)
    script = Script(answer, (ReactionDialog, decline), (ReactionDialog, decline), (ReactionDialog, decline))
    canvas.scene.moveRequested.emit([("ga8", 40.0, 24.0, 90.0)])
    assert not script.steps
    # the dialog showed the line the log then holds
    assert all("no reaction" in s and s.endswith("the move goes on") for s in shown)
    assert "passes up Refuse the Flank" in shown[0] and "passes up Opportunity Fire" in shown[2]
    g = c.battle.unit("ga8")
    assert (g.x, g.y, g.stands) == (18.0, 24.0, 5)  # the whole 6" of an assault column, unharmed
    evs = c.events()
    assert [e.action.type for e in evs] == ["decline_reaction", "move_unit"] * 3
    declines = [e for e in evs if e.action.type == "decline_reaction"]
    summary = f"{wis}: no reaction at Trigger Window A against {ga}"
    assert [e.summary for e in declines] == [summary] * 3
    assert [e.action.open_to for e in declines] == [
        ("refuse_flank",),
        ("opportunity_fire",),
        ("opportunity_fire",),
    ]
    assert all(e.changes.units == {} and e.rolls == () for e in declines)

    # the battle log: the event, and its step with the rule
    lines = _log_lines(log)
    for e in declines:
        at = lines.index(f"#{e.seq}  {summary}")
        assert lines[at + 1].startswith(f"Trigger Window A opened for {wis} against {ga}'s move")
        assert lines[at + 1].endswith("[RULE-04-1.2]")

    # the turn summary
    s = report.build_turn_summary(c.game, 1)
    lines = [ev for ev in s.events if ev.kind == "decline_reaction"]
    assert [(ev.seq, ev.summary) for ev in lines] == [(e.seq, summary) for e in declines]
    assert all(ev.steps[0].rule == "RULE-04-1.2" for ev in lines)
    page = report_html.summary_html(s, None, None)
    assert page.count(f"<b>{summary}</b>") == 3 and "passes up Refuse the Flank" in page

    # the whole march, declines and all, is one undo step; redo brings it back
    c.undo()
    assert c.events() == [] and c.battle.unit("ga8").x == 12.0
    assert not any("no reaction" in line for line in _log_lines(log))
    c.redo()
    assert [e.action.type for e in c.events()] == ["decline_reaction", "move_unit"] * 3

    # saved with the game
    path, kept = c.game.path, [e.action for e in c.events()]
    c.close()
    with Game.open(path) as g:
        assert [e.action for e in g.events()] == kept
        assert [e.summary for e in g.events() if e.action.type == "decline_reaction"] == [summary] * 3


def test_a_decline_then_a_reaction_at_a_later_window_of_the_same_march(canvas_of, answer):  # noqa: F811
    """RULE-04-1.4: the Wisconsin that declined at the flank zone may still fire at short range."""
    c, canvas = canvas_of(_example_c())

    def fire(dlg: ReactionDialog):
        dlg.choose("wis2", "opportunity_fire")
        dlg.dice.type_dice("1 1 1 1 1")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

    def decline(dlg: ReactionDialog):
        dlg.choose("wis2", None)

    Script(answer, (ReactionDialog, decline), (ReactionDialog, fire))
    canvas.scene.moveRequested.emit([("ga8", 40.0, 24.0, 90.0)])
    types = [e.action.type for e in c.events()]
    assert types == ["decline_reaction", "move_unit", "declare_reaction", "move_unit"]
    assert c.battle.unit("wis2").has(Marker.SMOKE)


def test_window_a_opened_by_hand_and_declined_is_one_logged_event(play_game, answer):  # noqa: F811
    c = play_game(replace(example_c(), phase=Phase.MANEUVER))

    def decline(dlg: ReactionDialog):
        dlg.choose("wis2", None)
        assert "no reaction" in " ".join(s.text for s in dlg.shown_steps())

    Script(answer, (ManualWindowDialog, lambda d: d.set_units("ga8", "wis2")), (ReactionDialog, decline))
    assert play.open_window_a(c, None) == []  # no reaction taken
    (ev,) = c.events()
    assert (
        ev.action.type == "decline_reaction" and ev.action.window == "a" and ev.action.defender_id == "wis2"
    )
    c.undo()
    assert c.events() == []


def test_window_b_declined_is_logged_before_the_charge_and_undone_with_it(play_game, answer):  # noqa: F811
    c = play_game(example_1())
    wis, va = c.battle.unit("wis2").name, c.battle.unit("va4").name

    def window_b(dlg: ReactionDialog):
        dlg.choose("wis2", None)
        dlg.dice.type_dice("")
        assert dlg.ok_button.isEnabled(), dlg.problem_label.text()
        steps = dlg.shown_steps()
        assert steps[0].rule == "RULE-04-1.2" and "passes up Closing Defensive Volley" in steps[0].text
        assert steps[0].text.endswith("the charge goes on")
        assert any("contact" in s.text for s in steps[1:])

    Script(answer, (ChargeDialog, lambda d: d.set_units("va4", "wis2")), (ReactionDialog, window_b))
    ev = play.declare_charge(c, None)
    assert ev.action.type == "charge_approach" and ev.action.reaction == "none"
    decline, charge = c.events()
    assert (decline.action.type, charge.seq) == ("decline_reaction", ev.seq)
    assert decline.summary == f"{wis}: no reaction at Trigger Window B against {va}"
    assert decline.action.window == "b" and "closing_volley" in decline.action.open_to
    assert len(pending_melees(c.battle)) == 1
    # one undo takes back the charge and the decline together
    c.undo()
    assert c.events() == [] and pending_melees(c.battle) == ()
    s = report.build_turn_summary(c.game, 1)
    assert [e.kind for e in s.events] == []


def test_a_screen_and_the_unit_behind_it_each_log_their_decline(play_game, answer):  # noqa: F811
    from tests.rules.assault.test_assault import _screen_battle

    b = _screen_battle()
    b = replace(b.with_unit(b.unit("wis2").with_markers(add=[Marker.SMOKE])), phase=Phase.MANEUVER)
    c = play_game(b)

    def decline(uid):
        def answer_it(dlg: ReactionDialog):
            dlg.choose(uid, None)
            dlg.dice.type_dice("")
            assert dlg.ok_button.isEnabled(), dlg.problem_label.text()

        return answer_it

    Script(
        answer,
        (ChargeDialog, lambda d: d.set_units("va4", "sk")),
        (ReactionDialog, decline("sk")),
        (ReactionDialog, decline("wis2")),
    )
    ev = play.declare_charge(c, None)
    assert ev is not None and not c.battle.unit("sk").in_play  # overrun
    evs = c.events()
    assert [e.action.type for e in evs] == ["decline_reaction", "decline_reaction", "charge_approach"]
    screen, parent = evs[0].action, evs[1].action
    assert (screen.defender_id, screen.open_to) == ("sk", ("evade",))
    assert parent.defender_id == "wis2" and "closing_volley" not in parent.open_to  # Smoke (RULE-04-2.2)
