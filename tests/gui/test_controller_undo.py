"""The undo stack keeps only what undo and redo need, and they still give exactly the same battles."""

from __future__ import annotations

import gc

import pytest

from gui.controller import GameCommand, GameController
from gui.play import _Sequence
from rules.actions import EndTurn, MoveUnit, NextPhase, Override, ReservePip, SpendPip
from rules.battle import Battle
from storage.game import Event


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
        lambda: c.run_many(
            [MoveUnit(unit_id="wis2", x=22.0, y=34.0), MoveUnit(unit_id="ind19", x=31.0, y=35.0)],
            "Move 2 units",
        )
    )
    # a sequence of actions as one macro of the stack, as the play dialogs make them

    def sequence():
        seq = _Sequence(c, "Ruling and pip")
        seq.run(Override("brigade", "iron", {"staff_pips": 1}, "couriers lost"))
        seq.run(SpendPip("iron", "a courier", False))
        seq.close()

    step(sequence)
    step(lambda: c.run(NextPhase()))
    step(lambda: c.run(EndTurn()))
    step(lambda: c.run(MoveUnit(unit_id="tx1", x=51.0, y=13.0)))
    step(lambda: c.run(EndTurn()))
    step(lambda: c.run(Override("unit", "va27", {"stands": 1}, "canister")))
    return states


def test_undo_and_redo_through_the_stack_give_exactly_the_same_battles(controller):
    states = _play(controller)
    assert controller.undo_stack.count() == len(states) - 1
    assert controller.battle.turn == 2
    for want in reversed(states[:-1]):
        controller.undo()
        assert _snapshot(controller) == want
    assert not controller.undo_stack.canUndo()
    assert Battle.from_dict(states[0][0]) == controller.battle
    for want in states[1:]:
        controller.redo()
        assert _snapshot(controller) == want
    assert not controller.undo_stack.canRedo()
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


def _events_in(obj, seen: set[int], depth: int = 0) -> list[Event]:
    """The events reachable from ``obj`` through containers and instance attributes."""
    if id(obj) in seen or depth > 4:
        return []
    seen.add(id(obj))
    if isinstance(obj, Event):
        return [obj]
    if isinstance(obj, (str, bytes, int, float, type(None))):
        return []
    if isinstance(obj, dict):
        items = list(obj.values())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        items = list(obj)
    elif hasattr(obj, "__dict__"):
        items = [v for k, v in vars(obj).items() if k != "controller"]
    else:
        items = []
    return [e for it in items for e in _events_in(it, seen, depth + 1)]


def _commands(c: GameController) -> list[GameCommand]:
    out = []
    for i in range(c.undo_stack.count()):
        cmd = c.undo_stack.command(i)
        if isinstance(cmd, GameCommand):
            out.append(cmd)
        else:  # a macro: its children are the game commands
            out += [cmd.child(j) for j in range(cmd.childCount()) if isinstance(cmd.child(j), GameCommand)]
    return out


def test_the_undo_stack_keeps_the_journal_numbers_and_no_events(controller):
    _play(controller)
    controller.undo()
    controller.undo()
    controller.redo()  # undone and redone events are read back from the save: none is kept twice
    commands = _commands(controller)
    assert [cmd.seqs for cmd in commands] == [
        (1,),
        (2,),
        (3,),
        (4, 5),
        (6,),
        (7,),
        (8,),
        (9,),
        (10,),
        (11,),
        (12,),
    ]
    assert [cmd.count for cmd in commands] == [len(cmd.seqs) for cmd in commands]
    for cmd in commands:
        assert _events_in(cmd, set()) == [], cmd.text()
    # what the stack refers to, apart from the controller, is numbers and its text
    cmd = commands[3]
    assert cmd.text() == "Move 2 units"
    gc.collect()
    assert not [r for r in gc.get_referents(cmd) if isinstance(r, Event)]


def test_a_step_of_no_events_is_refused(controller):
    with pytest.raises(ValueError, match="at least one event"):
        GameCommand(controller, [])
