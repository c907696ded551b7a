"""The controller: one object between the views and the saved game.

Every view talks to the game through :class:`GameController`. It runs an action on the game
(which resolves it and journals it to disk), pushes one :class:`GameCommand` on its
``QUndoStack`` for it, and broadcasts a :class:`ChangeSummary` naming the units, brigades and
terrain that changed, so each view redraws only those (the operations model of Anki).

Undo and redo go through the ``QUndoStack`` too: undoing a command calls ``Game.undo`` and redoing
it calls ``Game.redo``, which re-applies the recorded outcome and never rolls again.

The controller also holds the selection (the unit ids selected), shared by the roster, the
canvas, the inspector and the log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from rules.battle import Battle
from rules.errors import RulesError
from rules.events import Changes, diff
from storage.errors import StorageError

# What the game can refuse or fail with: the rules' refusal, or a save that cannot be written.
# Both carry a message for the umpire; neither changes the game.
GameError = (RulesError, StorageError)

#: How long after the last action the save's ``-wal`` file is folded into the save itself.
CHECKPOINT_AFTER_MS = 1500


@dataclass(frozen=True)
class ChangeSummary:
    """What an action, undo or redo changed: ids of units, brigades and terrain, and the game clock.

    ``reset`` means "everything may have changed" (a game was opened): views rebuild.
    """

    units: frozenset[str] = frozenset()
    brigades: frozenset[str] = frozenset()
    terrain: frozenset[str] = frozenset()
    game: bool = False
    reset: bool = False

    @classmethod
    def from_changes(cls, changes: Changes) -> ChangeSummary:
        return cls(
            units=frozenset(changes.units),
            brigades=frozenset(changes.brigades),
            terrain=frozenset(changes.terrain),
            game=bool(changes.game),
        )

    @classmethod
    def everything(cls) -> ChangeSummary:
        return cls(game=True, reset=True)

    @property
    def empty(self) -> bool:
        return not (self.units or self.brigades or self.terrain or self.game or self.reset)

    def __or__(self, other: ChangeSummary) -> ChangeSummary:
        return ChangeSummary(
            units=self.units | other.units,
            brigades=self.brigades | other.brigades,
            terrain=self.terrain | other.terrain,
            game=self.game or other.game,
            reset=self.reset or other.reset,
        )


class GameCommand(QUndoCommand):
    """One step of the undo stack: one game action, or several done together (a group move).

    It keeps only what undo and redo need: how many journal entries it stands for and their
    numbers. The events themselves stay in the game's journal: undo calls ``Game.undo`` once per
    event and redo calls ``Game.redo`` as often, which re-applies the recorded outcomes without
    rolling again, so a long game's undo stack costs a few numbers an action.
    """

    def __init__(self, controller: GameController, events: Sequence[Any], text: str | None = None):
        if not events:
            raise ValueError("an undo step needs at least one event")
        super().__init__(text or _summary_of(events[-1]))
        self.controller = controller
        self.seqs: tuple[int | None, ...] = tuple(getattr(e, "seq", None) for e in events)
        self.seq = self.seqs[-1]
        self._first = True  # the actions have been done already when the command is pushed

    @property
    def count(self) -> int:
        """How many journal entries this step undoes and redoes."""
        return len(self.seqs)

    def redo(self) -> None:
        if self._first:
            self._first = False
            return
        n = self.count
        self.controller._step(lambda: [self.controller.game.redo() for _ in range(n)])

    def undo(self) -> None:
        n = self.count
        self.controller._step(lambda: [self.controller.game.undo() for _ in range(n)])


def _summary_of(event: Any) -> str:
    s = getattr(event, "summary", None)
    return str(s) if s else type(getattr(event, "action", event)).__name__


class GameController(QObject):
    """Runs actions on a game, keeps the undo stack and the selection, and broadcasts changes."""

    changed = Signal(object)  # ChangeSummary
    gameReplaced = Signal()  # another game was opened (or the first one)
    selectionChanged = Signal(object)  # tuple of unit ids
    eventsChanged = Signal()  # the journal changed (an action, undo or redo)
    actionFailed = Signal(str)  # a message the umpire understands
    highlightRequested = Signal(object)  # tuple of unit ids to flash on the map

    def __init__(self, game: Any = None, parent: QObject | None = None):
        super().__init__(parent)
        self.game = game
        self.path: str | None = None
        self.undo_stack = QUndoStack(self)
        self._selection: tuple[str, ...] = ()
        self._undone_outside_stack = 0  # events from before this session, undone with Game.undo
        # a moment after the last action, the save's -wal file is folded into the save itself
        self._checkpoint = QTimer(self)
        self._checkpoint.setSingleShot(True)
        self._checkpoint.setInterval(CHECKPOINT_AFTER_MS)
        self._checkpoint.timeout.connect(self.checkpoint)

    # -- the game -------------------------------------------------------------------------
    @property
    def has_game(self) -> bool:
        return self.game is not None

    @property
    def battle(self) -> Battle | None:
        return self.game.battle if self.game is not None else None

    @property
    def tables(self):
        return getattr(self.game, "tables", None) if self.game is not None else None

    def set_game(self, game: Any, path: str | None = None) -> None:
        """Make ``game`` the game in hand (closing the one before), and tell every view."""
        old = self.game
        self.undo_stack.clear()
        self._undone_outside_stack = 0
        self.game = game
        self.path = path
        if old is not None and old is not game:
            close = getattr(old, "close", None)
            if close is not None:
                close()
        self._selection = tuple(u for u in self._selection if game is not None and u in game.battle.units)
        self.gameReplaced.emit()
        self.changed.emit(ChangeSummary.everything())
        self.eventsChanged.emit()
        self.selectionChanged.emit(self._selection)

    def close(self) -> None:
        self._checkpoint.stop()
        if self.game is not None:
            self.undo_stack.clear()
            close = getattr(self.game, "close", None)
            if close is not None:
                close()
            self.game = None

    # -- actions --------------------------------------------------------------------------
    def run(self, action: Any, dice: Any = None) -> Any:
        """Do ``action`` on the game and push it on the undo stack.

        Returns the event, or None if the rules refused it (``actionFailed`` carries the reason).
        """
        done = self._do(action, dice)
        if done is None:
            return None
        event, summary = done
        self._undone_outside_stack = 0  # a new action forgets every undone event
        self.undo_stack.push(GameCommand(self, [event]))
        self._broadcast(summary)
        return event

    def _do(self, action: Any, dice: Any = None) -> tuple[Any, ChangeSummary] | None:
        if self.game is None:
            self.actionFailed.emit("There is no game open.")
            return None
        before = self.game.battle
        try:
            event = self.game.do(action, dice) if dice is not None else self.game.do(action)
        except GameError as exc:
            self.actionFailed.emit(str(exc))
            return None
        changes = getattr(event, "changes", None)
        summary = ChangeSummary.from_changes(changes) if changes is not None else None
        if summary is None or summary.empty:
            summary = ChangeSummary.from_changes(diff(before, self.game.battle))
        return event, summary

    def _step(self, fn) -> None:
        """Run undo or redo on the game and broadcast what changed."""
        before = self.game.battle
        try:
            result = fn()
        except GameError as exc:
            self.actionFailed.emit(str(exc))
            return
        events = result if isinstance(result, list) else [result]
        if all(getattr(e, "changes", None) is not None for e in events):
            summary = ChangeSummary()
            for e in events:
                summary = summary | ChangeSummary.from_changes(e.changes)
        else:
            summary = ChangeSummary.from_changes(diff(before, self.game.battle))
        self._broadcast(summary)

    def run_many(self, actions: list[Any], text: str) -> list[Any]:
        """Run several actions as one step of the undo stack (one undo takes them all back).

        Actions the rules refuse are left out (``actionFailed`` says why); the rest stand.
        """
        if len(actions) == 1:
            ev = self.run(actions[0])
            return [ev] if ev is not None else []
        events, summary = [], ChangeSummary()
        for a in actions:
            done = self._do(a)
            if done is not None:
                events.append(done[0])
                summary = summary | done[1]
        if events:
            self._undone_outside_stack = 0
            self.undo_stack.push(GameCommand(self, events, text))
            self.mark_step(events)
            self._broadcast(summary)
        return events

    def checkpoint(self) -> None:
        """Bring the game's ``.sqlite`` file up to date with its ``-wal`` file (``Game.checkpoint``),
        so that the file alone, copied while the game is open, holds the whole game."""
        fn = getattr(self.game, "checkpoint", None)
        if fn is None:
            return
        try:
            fn()
        except GameError:
            # nothing is lost: the actions stay safe in the -wal file, and SQLite folds it in when
            # it next can (at the latest when the game is closed)
            return

    def _broadcast(self, summary: ChangeSummary) -> None:
        self._checkpoint.start()
        sel = tuple(u for u in self._selection if u in self.game.battle.units)
        if not summary.empty:
            self.changed.emit(summary)
        self.eventsChanged.emit()
        if sel != self._selection:
            self._selection = sel
            self.selectionChanged.emit(sel)

    def mark_step(self, events: Iterable[Any]) -> None:
        """Record in the save that ``events`` are one step of Undo (``Game.mark_step``), so that
        they are undone and redone together after the game is opened again too."""
        fn = getattr(self.game, "mark_step", None)
        seqs = [s for s in (getattr(e, "seq", None) for e in events) if isinstance(s, int)]
        if fn is None or len(seqs) < 2:
            return
        try:
            fn(seqs)
        except GameError:
            return  # the events themselves are saved; only their grouping for Undo is not

    def _game_step(self, seq: int) -> tuple[int, int]:
        step_of = getattr(self.game, "step_of", None)
        return step_of(seq) if step_of is not None else (seq, seq)

    def _undo_saved_step(self) -> None:
        """Undo the game's last step saved before this session: all its entries (a march through
        its windows, a group move), as the undo stack did when they were made."""
        game = self.game
        first, _ = self._game_step(game.last_seq)
        if first < game.last_seq:
            self._step(lambda: game.undo_to(first - 1))
        else:
            self._step(game.undo)

    def _redo_saved_step(self) -> None:
        game = self.game
        nxt = game.last_seq + 1
        _, last = self._game_step(nxt)
        self._step(lambda: [game.redo() for _ in range(max(1, last - nxt + 1))])

    def undo(self) -> None:
        """Undo the last step: this session's, or else a step saved before it."""
        if self.undo_stack.canUndo():
            self.undo_stack.undo()
        elif self.game is not None and getattr(self.game, "can_undo", False):
            self._undo_saved_step()
            self._undone_outside_stack += 1

    def redo(self) -> None:
        """Redo the last step undone (steps from before the session come back first: they were
        undone last)."""
        if self._undone_outside_stack and self.game is not None and getattr(self.game, "can_redo", False):
            self._redo_saved_step()
            self._undone_outside_stack -= 1
        elif self.undo_stack.canRedo():
            self.undo_stack.redo()
        elif self.game is not None and getattr(self.game, "can_redo", False):
            self._redo_saved_step()

    def forget_redo(self) -> None:
        """Leave nothing to redo, in the undo stack or in the game: what the umpire cancelled (a
        march taken back at a dialog) is not offered back by Redo."""
        if self.game is None:
            return
        gone = QUndoCommand()
        gone.setObsolete(True)  # pushing it drops the steps that could be redone, and not itself
        self.undo_stack.push(gone)
        self._undone_outside_stack = 0
        try:
            self.game.forget_redo()
        except GameError as exc:
            self.actionFailed.emit(str(exc))
        self.eventsChanged.emit()

    def undo_to(self, seq: int) -> None:
        """Undo every event after event ``seq``, so the battle is as it was just after it."""
        if self.game is None:
            return
        for i in range(self.undo_stack.count()):
            cmd = self.undo_stack.command(i)
            seqs = (
                [cmd.seq]
                if isinstance(cmd, GameCommand)
                else [c.seq for j in range(cmd.childCount()) if isinstance(c := cmd.child(j), GameCommand)]
            )
            if seq in seqs and seq == max(seqs):
                self.undo_stack.setIndex(i + 1)
                return
        # the event is older than this session's undo stack: let the game undo to it
        self.undo_stack.clear()
        self._undone_outside_stack = 0
        self._step(lambda: self.game.undo_to(seq))

    def events(self, turn: int | None = None) -> list[Any]:
        if self.game is None:
            return []
        return list(self.game.events(turn) if turn is not None else self.game.events())

    # -- selection --------------------------------------------------------------------------
    @property
    def selection(self) -> tuple[str, ...]:
        return self._selection

    def select(self, unit_ids: Iterable[str]) -> None:
        sel = tuple(dict.fromkeys(unit_ids))
        if sel == self._selection:
            return
        self._selection = sel
        self.selectionChanged.emit(sel)

    def highlight(self, unit_ids: Iterable[str]) -> None:
        self.highlightRequested.emit(tuple(unit_ids))
