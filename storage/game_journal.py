"""What a turn summary, a side's report and the window's views read of a game's journal, as a
protocol: :class:`storage.game.Game` is one. Typing only: it imports nothing a start-up pays for."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from rules.battle.battle import Battle
    from storage.game import Event
    from storage.totals import TurnTotals


class GameJournal(Protocol):
    """What a turn summary reads of a game: :class:`storage.game.Game` is one."""

    @property
    def path(self) -> Path: ...

    @property
    def battle(self) -> Battle: ...

    @property
    def scenario(self) -> Battle: ...

    @property
    def last_seq(self) -> int: ...

    def events(self, turn: int | None = None) -> list[Event]: ...

    def state_at(self, seq: int) -> Battle: ...

    def turn_index(self, from_turn: int = 0) -> dict[int, tuple[int, int]]: ...

    def turn_totals(self, from_turn: int = 0) -> dict[int, TurnTotals]: ...
