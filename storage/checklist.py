"""The phase checklist of a saved game: the rules' query (:mod:`rules.turn.checklist`) asked of the
battle now, with the battle as the phase began read from the journal.

:func:`open_items` is what the Checklist dock and ``brigadier pending`` show; :func:`left_open_items`
what Next phase or End turn would leave undone; :func:`phase_change_step` the actions of that step:
the items left (a :class:`rules.turn.checklist.LeftUndone`, so the log and the turn summary keep them)
and the phase change, committed together as one step and one Undo.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from rules.actions import Action
from rules.battle.battle import Battle
from rules.battle.words import Phase
from rules.tables import RuleTables
from rules.turn.checklist import ChecklistWork, Item, LeftUndone, checklist, left_open


class Journal(Protocol):
    """What the checklist reads of a game: :class:`storage.game.Game` is one."""

    @property
    def battle(self) -> Battle: ...

    @property
    def scenario(self) -> Battle: ...

    @property
    def tables(self) -> RuleTables: ...

    def events(self, turn: int | None = None) -> list[Any]: ...

    def last_entry_of_turn(self, turn: int, unless: tuple[str, str] | None = None) -> int: ...

    def state_at(self, seq: int) -> Battle: ...


def phase_began_after(game: Journal) -> int:
    """The journal entry after which the current phase began (0: it began with the game): the last
    entry made in another phase, side's turn or game turn (the Next phase, End turn or umpire's
    override that brought the game here)."""
    b = game.battle
    if b.turn < 1:
        return 0
    # in this game turn, the last entry of another side's turn or phase; else the last of the
    # game turn before (asked of the journal's index of turns, not read entry by entry)
    seq = game.last_entry_of_turn(b.turn, (b.active_side, b.phase.value))
    if not seq and b.turn > 1:
        seq = game.last_entry_of_turn(b.turn - 1)
    return seq


def phase_began(game: Journal) -> Battle:
    """The battle as the current phase began."""
    seq = phase_began_after(game)
    return game.state_at(seq) if seq else game.scenario


def _since(game: Journal) -> Battle | None:
    """The battle as the phase began, where the rules ask for it (Phase 2's items: who has acted),
    read from the journal; None in the other phases, which do not ask."""
    return phase_began(game) if game.battle.phase == Phase.MANEUVER else None


def open_items(game: Journal) -> tuple[Item, ...]:
    """What is still open in the game's current phase."""
    return checklist(game.battle, game.tables, _since(game))


def open_items_work(game: Journal) -> ChecklistWork:
    """:func:`open_items` to be worked out a piece at a time (:class:`rules.turn.checklist.ChecklistWork`)."""
    return ChecklistWork(game.battle, game.tables, _since(game))


def left_open_items(game: Journal, end_turn: bool = False) -> tuple[Item, ...]:
    """What Next phase (or, ``end_turn``, End turn) would leave undone now."""
    return left_open(game.battle, game.tables, end_turn=end_turn, since=_since(game))


def phase_change_step(change: Action, items: Sequence[Item]) -> list[Action]:
    """The actions of one step that ends the phase (``change``: NextPhase or EndTurn) leaving
    ``items`` undone: the record of the items first, under the phase they were left in."""
    return [LeftUndone.of(items), change] if items else [change]


__all__ = [
    "left_open_items",
    "open_items",
    "open_items_work",
    "phase_began",
    "phase_began_after",
    "phase_change_step",
]
