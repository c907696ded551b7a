"""Undo and redo act on the journal's steps and give exactly the same battles, in this session and after."""

from __future__ import annotations

from gui.controller import GameController
from rules.actions import EndTurn, MoveUnit, NextPhase, Override, ReservePip, SpendPip
from rules.battle.battle import Battle


def _snapshot(c: GameController) -> tuple[dict, int, list[int]]:
    """The battle whole, the dice drawn and the journal's numbers: what undo and redo must restore."""
    return c.battle.to_dict(), c.game.dice.drawn, [e.seq for e in c.events()]


def _play(c: GameController) -> list[tuple[dict, int, list[int]]]:
    """A turn and a half of steps of every kind, with the state after each step of the stack."""
    states = [_snapshot(c)]

    def step(fn):
        fn()
        states.append(_snapshot(c))

    step(lambda: c.run(MoveUnit(unit_id="wis2", x=21.0, y=35.0, facing_deg=45.0)))
    step(lambda: c.run(Override("unit", "ind19", {"stands": 3, "markers": ["disorder"]}, "volley")))
    step(lambda: c.run(ReservePip("iron")))
    # a group move: one step of the stack for two events
    step(
        lambda: c.run_step(
            [MoveUnit(unit_id="wis2", x=22.0, y=34.0), MoveUnit(unit_id="ind19", x=31.0, y=35.0)]
        )
    )
    # a step of two actions, as a procedure of play makes them
    step(
        lambda: c.run_step(
            [
                Override("brigade", "iron", {"staff_pips": 1}, "couriers lost"),
                SpendPip("iron", "a courier", False),
            ]
        )
    )
    step(lambda: c.run(NextPhase()))
    step(lambda: c.run(EndTurn()))
    step(lambda: c.run(MoveUnit(unit_id="tx1", x=51.0, y=13.0)))
    step(lambda: c.run(EndTurn()))
    step(lambda: c.run(Override("unit", "va27", {"stands": 1}, "canister")))
    return states


def test_undo_and_redo_through_the_stack_give_exactly_the_same_battles(controller):
    states = _play(controller)
    assert len({controller.game.step_of(e.seq) for e in controller.events()}) == len(states) - 1
    assert controller.battle.turn == 2
    for want in reversed(states[:-1]):
        controller.undo()
        assert _snapshot(controller) == want
    assert not controller.can_undo
    assert Battle.from_dict(states[0][0]) == controller.battle
    for want in states[1:]:
        controller.redo()
        assert _snapshot(controller) == want
    assert not controller.can_redo
    # and once more down and up part of the way: a redone step undoes as well as the first time
    for want in reversed(states[4:-1]):
        controller.undo()
        assert _snapshot(controller) == want
    for want in states[5:]:
        controller.redo()
        assert _snapshot(controller) == want


def test_undo_to_an_event_inside_a_group_step_stops_after_that_step(controller):
    states = _play(controller)
    # entries 4 and 5 are the group move (the stack's 4th step): undoing to 5 keeps it whole
    controller.undo_to(5)
    assert _snapshot(controller) == states[4]
    controller.redo()
    assert _snapshot(controller) == states[5]


def test_undo_and_redo_are_the_journals_steps_after_the_game_is_opened_again(controller, tmp_path):
    states = _play(controller)
    path = controller.game.path
    reopened = GameController()
    from storage.game import Game

    reopened.set_game(Game.open(path), str(path))
    controller.close()
    # the sequence of two entries (6 and 7) is one step in the save too: one Undo takes both back
    for want in reversed(states[:-1]):
        reopened.undo()
        assert _snapshot(reopened) == want
    assert not reopened.can_undo and reopened.undo_text() == ""
    for want in states[1:]:
        reopened.redo()
        assert _snapshot(reopened) == want
    assert not reopened.can_redo
    reopened.close()


def test_undo_text_names_the_step_and_how_many_entries_it_holds(controller):
    _play(controller)
    controller.undo_to(5)  # back to just after the group move
    assert controller.undo_text().endswith("(and 1 more)")
    assert controller.redo_text() == controller.game.redo_events()[0].summary


def test_one_notice_per_undo_and_redo_of_a_step(controller):
    _play(controller)
    notices = []
    controller.changed.connect(notices.append)
    controller.eventsChanged.connect(lambda: notices.append("events"))
    controller.undo_to(5)  # five steps back, one notice
    assert len([n for n in notices if n != "events"]) == 1 and notices.count("events") == 1
    notices.clear()
    controller.redo()
    assert len([n for n in notices if n != "events"]) == 1 and notices.count("events") == 1


def test_a_step_of_no_actions_writes_nothing(controller):
    assert controller.run_step([]) == [] and controller.events() == []
