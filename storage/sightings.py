"""What each side has seen of the other in a game, for the views that show it.

A side's knowledge (:class:`rules.sight.knowledge.SideKnowledge`: the enemy units it sees now, where it
last saw the others) is kept with the journal, entry by entry (:mod:`storage.sight_ledger`): it
survives closing and reopening the game, and Undo and Redo take it back and give it back with the
entries. (A hidden unit's revealing is part of the entry that revealed it, in the battle's state;
see :mod:`rules.sight.spotting`.)

:class:`Sightings` gives the views what they ask of it: a side's knowledge and map now or after any
entry, read from the nearest point the save keeps, and each entry as each side saw it
(:func:`rules.sight.knowledge.event_as_seen`) for the battle log read out by side and a side's
report, worked out for the entries asked for (a turn's, not the whole journal's) and kept.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rules.battle.battle import Battle
from rules.sight.knowledge import SeenEvent, SideKnowledge, SideView, event_as_seen, side_view
from rules.sight.spotting import check_side
from storage.journal_reading import runs_of

if TYPE_CHECKING:
    from storage.game import Event
    from storage.sight_ledger import SightLedger, SightState


_OF: weakref.WeakKeyDictionary[Any, Sightings] = weakref.WeakKeyDictionary()


class Sightings:
    """Each side's knowledge of the other in one game (a :class:`storage.game.Game`), entry by entry
    of its journal. :meth:`of` gives the one kept for a game, shared by every view of it."""

    @classmethod
    def of(cls, game: Any) -> Sightings:
        """The sightings of ``game``, made on first use and kept while the game is."""
        s = _OF.get(game)
        if s is None:
            s = _OF[game] = cls(game)
        return s

    def __init__(self, game: Any):
        self._game = weakref.ref(game)
        self.sides = tuple(s.id for s in game.scenario.oob.sides)
        self._read: tuple[int, int] | None = None  # the game's last entry and change count when last updated
        # each entry as each side saw it, with the entry it was worked out from
        self._as_seen: dict[int, tuple[Event, dict[str, SeenEvent | None]]] = {}

    @property
    def game(self) -> Any:
        g = self._game()
        if g is None:
            raise ReferenceError("the game of these sightings is closed and gone")
        return g

    @property
    def ledger(self) -> SightLedger:
        return self.game.sight

    # -- following the journal -------------------------------------------------------------------
    def update(self) -> bool:
        """Catch up with the journal (after an action, an Undo or a Redo). Returns whether anything
        changed since the last time."""
        game = self.game
        mark = (game.last_seq, game.change_count)
        changed = mark != self._read
        self._read = mark
        for q in [q for q in self._as_seen if q > game.last_seq]:
            del self._as_seen[q]
        self.ledger.now()
        return changed

    # -- what a side knows ------------------------------------------------------------------------
    @property
    def seq(self) -> int:
        """The last journal entry read."""
        return self.game.last_seq

    @property
    def battle(self) -> Battle:
        """The battle after the last entry."""
        return self.game.battle

    def side(self, side: str) -> str:
        """The id of a side given by id or name; a clear refusal for one the battle does not have."""
        return check_side(self.game.battle, side)

    def _at(self, seq: int | None) -> SightState:
        ledger = self.ledger
        if seq is None:
            return ledger.now()
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= self.game.last_seq:
            raise ValueError(f"there is no journal entry {seq} read (they run to {self.game.last_seq})")
        return ledger.at(seq)

    def knowledge(self, side: str, seq: int | None = None) -> SideKnowledge:
        """What ``side`` knows now (after the last entry), or just after entry ``seq``."""
        side = self.side(side)
        return self._at(seq).knowledge[side]

    def view(self, side: str, seq: int | None = None) -> SideView:
        """The side's map now, or just after entry ``seq`` (:func:`rules.sight.knowledge.side_view`)."""
        side = self.side(side)
        p = self._at(seq)
        return side_view(p.battle, p.knowledge[side])

    def seen(self, side: str, seq: int | None = None) -> frozenset[str]:
        """The enemy units ``side`` sees now, or just after entry ``seq``."""
        return self.knowledge(side, seq).seen

    # -- the journal as each side saw it -----------------------------------------------------------
    def event_as_seen(self, side: str, seq: int) -> SeenEvent | None:
        """Journal entry ``seq`` as ``side`` saw it, or None when it saw nothing of it."""
        side = self.side(side)
        last = self.game.last_seq
        if isinstance(seq, bool) or not isinstance(seq, int) or not 1 <= seq <= last:
            raise ValueError(f"there is no journal entry {seq} read (they run to {last})")
        return self._as_seen_of([seq])[seq][side]

    def as_seen_by(self, side: str, seqs: Iterable[int]) -> dict[int, SeenEvent | None]:
        """Entries ``seqs`` as ``side`` saw each (None: it saw nothing of it), worked out together."""
        side = self.side(side)
        todo = sorted(set(seqs))
        last = self.game.last_seq
        if todo and not (1 <= todo[0] and todo[-1] <= last):
            raise ValueError(
                f"there is no journal entry {todo[0] if todo[0] < 1 else todo[-1]} read (they run to {last})"
            )
        return {q: by[side] for q, by in self._as_seen_of(todo).items()}

    def events_as_seen(self, side: str, seqs: Iterable[int] | None = None) -> list[SeenEvent]:
        """The entries ``side`` saw (of ``seqs``, or all), in order."""
        side = self.side(side)
        todo = sorted(set(range(1, self.game.last_seq + 1) if seqs is None else seqs))
        got = self._as_seen_of(todo)
        return [e for e in (got[q][side] for q in todo) if e is not None]

    def _as_seen_of(self, seqs: list[int]) -> dict[int, dict[str, SeenEvent | None]]:
        """Entries ``seqs`` as each side saw them: those worked out before (for the same entries),
        the others worked out in runs of consecutive entries from the sight before each run."""
        game = self.game
        out: dict[int, dict[str, SeenEvent | None]] = {}
        missing: list[int] = []
        for q in seqs:
            kept = self._as_seen.get(q)
            if kept is not None:
                ev = game.event(q)
                if kept[0] is ev or kept[0] == ev:
                    out[q] = kept[1]
                    continue
            missing.append(q)
        for a, b in runs_of(missing):
            self.ledger.walk(a, b, self._keep_seen)
            for q in range(a, b + 1):
                out[q] = self._as_seen[q][1]
        return out

    def _keep_seen(
        self, ev: Event, state: SightState, before: Battle, seen_before: dict[str, frozenset[str]]
    ) -> None:
        by_side: dict[str, SeenEvent | None] = {}
        for s in self.sides:
            by_side[s] = event_as_seen(
                s,
                seq=ev.seq,
                turn=ev.turn,
                active_side=ev.side,
                phase=ev.phase,
                action=ev.action,
                summary=ev.summary,
                steps=ev.steps,
                changes=ev.changes,
                before=before,
                after=state.battle,
                seen_before=seen_before[s],
                seen_after=state.knowledge[s].seen,
            )
        self._as_seen[ev.seq] = (ev, by_side)
