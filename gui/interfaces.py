"""The window's pieces as the views see them: what each view may use of the controller and of
the game it holds, as protocols.

The map, the roster, the inspector, the log and the charts take a :class:`ControllerLike`;
:class:`gui.controller.GameController` is the one the window makes. Its game is a
:class:`GameLike`, :class:`storage.game.Game`. (A picture drawn off screen gives the controller
a stand-in with only the battle and the rule tables: the map asks no more of it.)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from storage.game_journal import GameJournal

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

    from rules.battle.battle import Battle
    from rules.tables import RuleTables
    from storage.game import Event


class GameLike(GameJournal, Protocol):
    """What the views read of the game in hand: its battle now and at the start, its journal (up
    to its last entry, and as it stood after any entry), and the rule tables it is played with;
    a :class:`storage.game_journal.GameJournal` (what a turn summary reads) and more."""

    @property
    def tables(self) -> RuleTables: ...

    @property
    def written(self) -> bool: ...

    def events_after(self, seq: int) -> list[Event]: ...


class ControllerLike(Protocol):
    """What the views use of the controller: the game in hand, the selection shared by every
    view, the actions they run, and the signals that tell them what changed."""

    changed: SignalInstance  # a ChangeSummary, after an action, an undo or a redo
    gameReplaced: SignalInstance  # another game is in hand (or the first one)
    selectionChanged: SignalInstance  # the unit ids now selected
    eventsChanged: SignalInstance  # the journal changed
    highlightRequested: SignalInstance  # unit ids to show on the map

    @property
    def game(self) -> GameLike | None: ...

    @property
    def battle(self) -> Battle | None: ...

    @property
    def tables(self) -> RuleTables | None: ...

    @property
    def selection(self) -> tuple[str, ...]: ...

    def select(self, unit_ids: Iterable[str]) -> None: ...

    def highlight(self, unit_ids: Iterable[str]) -> None: ...

    def run(self, action: Any, dice: Any = None) -> Any: ...

    def run_step(self, actions: Any) -> list[Any]: ...

    def events(self, turn: int | None = None) -> list[Event]: ...

    def undo_to(self, seq: int) -> list[Any]: ...
