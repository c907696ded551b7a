"""What each side has seen of the other, read from a game's journal.

A side's knowledge (:class:`rules.sight.knowledge.SideKnowledge`: the enemy units it sees now, where it
last saw the others) is not kept in the save: it is worked out from the journal, entry by entry,
from the battle at the start. So it is always the journal's: it survives closing and reopening
the game, and Undo and Redo take it back and give it back with the entries, with nothing to keep
in step. (A hidden unit's revealing is different: it is part of the entry that revealed it, in the
battle's state; see :mod:`rules.sight.spotting`.)

:class:`Sightings` reads the journal once and then follows it: after an action only the new entry
is read, and only the sight lines of the units it changed are measured again
(:class:`rules.sight.spotting.SightTracker`). After an Undo it goes back to the nearest point it kept
(one every :attr:`Sightings.CHECKPOINT_EVERY` entries) and reads on from there.

It also keeps each entry as each side saw it (:func:`rules.sight.knowledge.event_as_seen`), for the battle
log read out by side and for a side's report.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rules.battle.battle import Battle
from rules.battle.events import apply
from rules.sight.knowledge import SeenEvent, SideKnowledge, SideView, event_as_seen, side_view
from rules.sight.spotting import SightTracker, check_side, sight_changed
from rules.tables import load_tables

if TYPE_CHECKING:
    from storage.game import Event


@dataclass
class _Point:
    """The sightings after journal entry ``seq``."""

    seq: int
    battle: Battle
    tracker: SightTracker
    knowledge: dict[str, SideKnowledge]

    def copy(self) -> _Point:
        return _Point(self.seq, self.battle, self.tracker.copy(), dict(self.knowledge))


_OF: weakref.WeakKeyDictionary[Any, Sightings] = weakref.WeakKeyDictionary()


class Sightings:
    """Each side's knowledge of the other in one game, entry by entry of its journal.

    ``game`` is a :class:`storage.game.Game` (or anything with its ``scenario``, ``tables``,
    ``last_seq``, ``event(seq)`` and ``events()``). :meth:`of` gives the one kept for a game, shared
    by every view of it.
    """

    CHECKPOINT_EVERY = 50

    @classmethod
    def of(cls, game: Any) -> Sightings:
        """The sightings of ``game``, made on first use and kept while the game is."""
        s = _OF.get(game)
        if s is None:
            s = _OF[game] = cls(game)
        return s

    def __init__(self, game: Any):
        self._game = weakref.ref(game)
        self.tables = getattr(game, "tables", None) or load_tables()
        start = game.scenario
        self.sides = tuple(s.id for s in start.oob.sides)
        tracker = SightTracker(start, self.tables)
        know = {s: SideKnowledge.start(s, tracker.seen(s)) for s in self.sides}
        self._now = _Point(0, start, tracker, know)
        self._checkpoints: dict[int, _Point] = {0: self._now.copy()}
        self._events: list[Event] = []  # the entries read, in order (entry seq is at seq - 1)
        self._seen: dict[str, list[SeenEvent | None]] = {s: [] for s in self.sides}

    @property
    def game(self) -> Any:
        g = self._game()
        if g is None:
            raise ReferenceError("the game of these sightings is closed and gone")
        return g

    # -- following the journal -------------------------------------------------------------------
    def update(self) -> bool:
        """Catch up with the journal (after an action, an Undo or a Redo). Returns whether anything
        changed."""
        game = self.game
        last = game.last_seq
        keep = min(len(self._events), last)
        while keep > 0 and not self._same(keep, game.event(keep)):
            keep -= 1
        changed = keep < len(self._events)
        if changed:
            self._rewind(keep)
        if last > keep:
            fresh = (
                game.events()[keep:]
                if last - keep > self.CHECKPOINT_EVERY
                else [game.event(q) for q in range(keep + 1, last + 1)]
            )
            for ev in fresh:
                self._read(ev)
            changed = True
        return changed

    def _same(self, seq: int, ev: Event) -> bool:
        mine = self._events[seq - 1]
        return mine is ev or mine == ev

    def _rewind(self, seq: int) -> None:
        """Go back to just after entry ``seq``: from the nearest point kept, read on to it."""
        for q in [q for q in self._checkpoints if q > seq]:
            del self._checkpoints[q]
        base = max(self._checkpoints)
        kept = self._events[base:seq]
        del self._events[base:]
        for s in self.sides:
            del self._seen[s][base:]
        self._now = self._checkpoints[base].copy()
        for ev in kept:
            self._read(ev)

    def _step(self, p: _Point, ev: Event) -> tuple[_Point, dict[str, frozenset[str]]]:
        """The point after entry ``ev`` (``p`` is changed in place), and what each side saw before it."""
        before = p.battle
        after = apply(before, ev.changes)
        seen_before = {s: p.knowledge[s].seen for s in self.sides}
        p.tracker.update(after, sight_changed(ev.changes.units), bool(ev.changes.terrain))
        for s in self.sides:
            p.knowledge[s] = p.knowledge[s].after(before, after, p.tracker.seen(s), ev.seq)
        p.battle, p.seq = after, ev.seq
        return p, seen_before

    def _read(self, ev: Event) -> None:
        p = self._now
        before = p.battle
        _, seen_before = self._step(p, ev)
        for s in self.sides:
            self._seen[s].append(
                event_as_seen(
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
                    after=p.battle,
                    seen_before=seen_before[s],
                    seen_after=p.knowledge[s].seen,
                )
            )
        self._events.append(ev)
        if ev.seq % self.CHECKPOINT_EVERY == 0:
            self._checkpoints[ev.seq] = p.copy()

    # -- what a side knows ------------------------------------------------------------------------
    @property
    def seq(self) -> int:
        """The last journal entry read."""
        return self._now.seq

    @property
    def battle(self) -> Battle:
        """The battle after the last entry read."""
        return self._now.battle

    def side(self, side: str) -> str:
        """The id of a side given by id or name; a clear refusal for one the battle does not have."""
        return check_side(self._now.battle, side)

    def knowledge(self, side: str, seq: int | None = None) -> SideKnowledge:
        """What ``side`` knows now (after the last entry read), or just after entry ``seq``."""
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

    def _at(self, seq: int | None) -> _Point:
        if seq is None or seq == self._now.seq:
            return self._now
        if not 0 <= seq <= self._now.seq:
            raise ValueError(f"there is no journal entry {seq} read (they run to {self._now.seq})")
        base = max(q for q in self._checkpoints if q <= seq)
        p = self._checkpoints[base].copy()
        for ev in self._events[base:seq]:
            self._step(p, ev)
        return p

    def event_as_seen(self, side: str, seq: int) -> SeenEvent | None:
        """Journal entry ``seq`` as ``side`` saw it, or None when it saw nothing of it."""
        side = self.side(side)
        if not 1 <= seq <= len(self._events):
            raise ValueError(f"there is no journal entry {seq} read (they run to {len(self._events)})")
        return self._seen[side][seq - 1]

    def events_as_seen(self, side: str, seqs: Iterable[int] | None = None) -> list[SeenEvent]:
        """The entries ``side`` saw (of ``seqs``, or all), in order."""
        side = self.side(side)
        todo = range(1, len(self._events) + 1) if seqs is None else seqs
        return [e for e in (self._seen[side][q - 1] for q in todo) if e is not None]
