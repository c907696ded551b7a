"""The controller: one object between the views and the saved game.

Every view talks to the game through :class:`GameController`. It commits one step of play to the
game (one action, or the actions a procedure of play returned: ``Game.do_step``, one transaction
and one journal step) and then broadcasts one :class:`ChangeSummary` naming the units, brigades and
terrain that changed, so each view redraws only those (the operations model of Anki): one user
action is one step, one Undo and one change notice.

The journal's steps are the undo history: Undo and Redo call ``Game.undo_step`` and
``Game.redo_step``, which re-apply the recorded outcomes and never roll again, whether the step was
made in this session or before the game was last opened. There is no second count to keep.

The controller also holds the selection (the unit ids selected), shared by the roster, the
canvas, the inspector and the log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from rules.battle.battle import Battle
from rules.battle.events import Changes, diff
from rules.errors import RulesError
from storage.errors import ChangedElsewhereError, StorageError

# What the game can refuse or fail with: the rules' refusal, or a save that cannot be written.
# Both carry a message for the umpire; neither changes the game.
GameError = (RulesError, StorageError)

#: How long after the last action the save's ``-wal`` file is folded into the save itself.
CHECKPOINT_AFTER_MS = 1500
#: How long after a change the docks that follow the game at a remove (the checklist, the
#: charts) bring themselves up to date (milliseconds): the step's map, order of battle, inspector
#: and log are painted first, and those docks a frame or two after, sooner than the eye can tell;
#: steps in quick succession (Redo held down) are read by them together.
FOLLOW_AFTER_MS = 40
#: A step of more entries than this is told to the views by the difference of the battle before
#: and after it, not by reading each entry's changes.
SUMMED_AT_MOST = 64


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


class GameController(QObject):
    """Commits steps of play to a game, undoes and redoes them, keeps the selection, and
    broadcasts one change notice per step."""

    changed = Signal(object)  # ChangeSummary
    gameReplaced = Signal()  # another game was opened (or the first one)
    selectionChanged = Signal(object)  # tuple of unit ids
    eventsChanged = Signal()  # the journal changed (an action, undo or redo)
    actionFailed = Signal(str)  # a message the umpire understands
    #: Another copy of Brigadier changed the save since this one read it: the action, undo or redo
    #: was refused and nothing was written (the message says so). The window offers to read the
    #: game again (:meth:`reload`).
    changedElsewhere = Signal(str)
    highlightRequested = Signal(object)  # tuple of unit ids to flash on the map
    #: The views show a moment of the past (the journal entry after which it stands), or the game
    #: now again (None): :meth:`look_back`, :meth:`back_to_now`.
    lookingChanged = Signal(object)

    def __init__(self, game: Any = None, parent: QObject | None = None):
        super().__init__(parent)
        self.game = game
        self.path: str | None = None
        self._selection: tuple[str, ...] = ()
        # looking back: the journal entry the views show the battle after, and that battle
        self._looking: int | None = None
        self._shown: Battle | None = None
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
        """The battle the views show: the game's now, or the moment looked back at."""
        if self.game is None:
            return None
        return self._shown if self._looking is not None else self.game.battle

    # -- looking back ----------------------------------------------------------------------------
    @property
    def looking_back(self) -> int | None:
        """The journal entry after which the battle the views show stands, while looking back
        (0: as the game began); None when they show the game now."""
        return self._looking

    def look_back(self, seq: int) -> bool:
        """Show the battle as it stood just after journal entry ``seq`` (0: as the game began), read
        only: every action, undo and redo is refused until :meth:`back_to_now`. Nothing is written
        to the save. The views are told what differs from what they show (one change notice); an
        entry at or past the last is the game now. False, with ``actionFailed`` saying why, if
        that moment cannot be read."""
        if self.game is None:
            return False
        seq = max(0, int(seq))
        if seq >= self.game.last_seq:
            self.back_to_now()
            return True
        if seq == self._looking:
            return True
        try:
            battle = self.game.state_at(seq)
        except GameError as exc:
            self.actionFailed.emit(f"entry {seq} cannot be looked back at: {exc}")
            return False
        before = self.battle
        self._looking, self._shown = seq, battle
        self._tell_views(before, battle)
        self.lookingChanged.emit(seq)
        return True

    def back_to_now(self) -> None:
        """Show the game now again, after looking back."""
        if self._looking is None:
            return
        before = self._shown
        self._looking, self._shown = None, None
        if self.game is not None and before is not None:
            self._tell_views(before, self.game.battle)
        self.lookingChanged.emit(None)

    def _tell_views(self, before: Battle, after: Battle) -> None:
        summary = ChangeSummary.from_changes(diff(before, after)) | ChangeSummary(game=True)
        sel = tuple(u for u in self._selection if u in after.units)
        self.changed.emit(summary)
        if sel != self._selection:
            self._selection = sel
            self.selectionChanged.emit(sel)

    def _refused_looking_back(self) -> bool:
        """Whether the game is being looked back at (the action, undo or redo is refused, and
        ``actionFailed`` says why)."""
        if self._looking is None:
            return False
        self.actionFailed.emit(
            f"You are looking back at the battle as it stood after entry {self._looking}: nothing "
            "can be changed there. Go back to now (Esc, or the timeline's Now button) to play on."
        )
        return True

    @property
    def tables(self):
        return getattr(self.game, "tables", None) if self.game is not None else None

    def set_game(self, game: Any, path: str | None = None) -> None:
        """Make ``game`` the game in hand (closing the one before), and tell every view."""
        old = self.game
        self.game = game
        self.path = path
        looked, self._looking, self._shown = self._looking, None, None
        if old is not None and old is not game:
            close = getattr(old, "close", None)
            if close is not None:
                close()
        self._selection = tuple(u for u in self._selection if game is not None and u in game.battle.units)
        self.gameReplaced.emit()
        self.changed.emit(ChangeSummary.everything())
        self.eventsChanged.emit()
        self.selectionChanged.emit(self._selection)
        if looked is not None:
            self.lookingChanged.emit(None)

    def reload(self) -> bool:
        """Read the game in hand again from its save, as another copy left it, and tell every
        view (the selection is kept where its units still are). False, with ``actionFailed``
        saying why, if the save cannot be opened now."""
        path = self.path or (str(self.game.path) if self.game is not None else None)
        if not path:
            return False
        from storage.game import Game

        try:
            game = Game.open(path)
        except (StorageError, RulesError, OSError) as exc:
            self.actionFailed.emit(f"{path} could not be read again: {exc}")
            return False
        self.set_game(game, path)
        return True

    def close(self) -> None:
        self._checkpoint.stop()
        if self.game is not None:
            close = getattr(self.game, "close", None)
            if close is not None:
                close()
            self.game = None

    # -- actions --------------------------------------------------------------------------
    def run(self, action: Any, dice: Any = None) -> Any:
        """Do ``action`` on the game as one step.

        Returns the event, or None if the rules refused it (``actionFailed`` carries the reason).
        """
        events = self.run_step([(action, dice)])
        return events[0] if events else None

    def run_step(self, actions: Sequence[Any]) -> list[Any]:
        """Commit the actions of one step (actions, ``(action, dice)`` pairs or the planned actions
        of a procedure of play) in one transaction: one journal step, one Undo, one change notice.

        Returns the events; empty if the rules refused the step or the save could not be written
        (``actionFailed`` says why, and nothing was saved).
        """
        if self.game is None:
            self.actionFailed.emit("There is no game open.")
            return []
        if not actions or self._refused_looking_back():
            return []
        before = self.game.battle
        try:
            events = self.game.do_step(list(actions))
        except ChangedElsewhereError as exc:
            self.changedElsewhere.emit(exc.problem)
            return []
        except GameError as exc:
            self.actionFailed.emit(str(exc))
            return []
        self._broadcast(self._summary(events, before))
        return events

    def commit(self, step: Any) -> list[Any]:
        """Commit the step a procedure of play returned (:class:`rules.procedure.PlayStep`); the
        units it left out, and why, are told through ``actionFailed``."""
        events = self.run_step(step.actions) if step.actions else []
        if step.refused:
            self.actionFailed.emit("\n".join(step.refused))
        return events

    @staticmethod
    def _summary(
        events: Sequence[Any], before: Battle | None = None, after: Battle | None = None
    ) -> ChangeSummary:
        summary = ChangeSummary()
        if len(events) > SUMMED_AT_MOST and before is not None and after is not None:
            # many entries (Undo to here far back): what changed is the two states' difference,
            # without reading every entry taken back
            return ChangeSummary.from_changes(diff(before, after))
        for e in events:
            changes = getattr(e, "changes", None)
            if changes is not None:
                summary = summary | ChangeSummary.from_changes(changes)
        if summary.empty and before is not None and after is not None:
            summary = ChangeSummary.from_changes(diff(before, after))
        return summary

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

    # -- undo: the journal's steps ----------------------------------------------------------
    @property
    def can_undo(self) -> bool:
        return bool(self.game is not None and self._looking is None and self.game.can_undo)

    @property
    def can_redo(self) -> bool:
        return bool(self.game is not None and self._looking is None and self.game.can_redo)

    def undo_text(self) -> str:
        """What Undo takes back: the first entry of the last step (and how many more it holds)."""
        if not self.can_undo:
            return ""
        try:
            first, last = self.game.step_of(self.game.last_seq)
            text = self.game.event(first).summary
        except GameError:
            return ""
        return text + (f" (and {last - first} more)" if last > first else "")

    def redo_text(self) -> str:
        """What Redo gives back: the first entry of the next step undone."""
        if not self.can_redo:
            return ""
        try:
            return self.game.next_redo_summary() or ""
        except GameError:
            return ""

    def _undo_redo(self, fn) -> list[Any]:
        if self.game is None or self._refused_looking_back():
            return []
        before = self.game.battle
        try:
            events = fn()
        except ChangedElsewhereError as exc:
            self.changedElsewhere.emit(exc.problem)
            return []
        except GameError as exc:
            self.actionFailed.emit(str(exc))
            return []
        if events:
            self._broadcast(self._summary(events, before, self.game.battle))
        return events

    def undo(self) -> list[Any]:
        """Undo the last step: every entry of it, however long ago it was made."""
        return self._undo_redo(lambda: self.game.undo_step())

    def redo(self) -> list[Any]:
        """Redo the last step undone."""
        return self._undo_redo(lambda: self.game.redo_step())

    def undo_to(self, seq: int) -> list[Any]:
        """Undo every step after the one that holds event ``seq``, so the battle is as it was just
        after that step (a step is never taken back by half)."""
        if self.game is None:
            return []
        game = self.game

        def back() -> list[Any]:
            last = seq if seq <= 0 else game.step_of(seq)[1]
            return game.undo_to(last)

        return self._undo_redo(back)

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
