"""The game's timeline: every moment of the journal (after each entry), with the moments a game
turn or a phase began marked, for looking back at the battle without changing it.

:class:`Timeline` is read from a game's journal by its index (the turn, side and phase each entry
was taken in: :meth:`storage.journal_reading.JournalReading.entry_moments`), without reading the
entries. The moment after entry ``seq`` is the turn, side and phase the next entry was taken in,
or the game's own for the last entry. The battle at a moment is the game's
:meth:`~storage.journal_reading.JournalReading.state_at`; a side's view of it is its
:class:`storage.sightings.Sightings` at that entry. Nothing here writes to the save.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rules.battle.words import Phase


@dataclass(frozen=True)
class Moment:
    """Where the game stood just after journal entry ``seq`` (0: as the game began)."""

    seq: int
    turn: int
    side: str  # the side to act (its id)
    phase: str  # the phase's word (:class:`rules.battle.words.Phase`)


@dataclass(frozen=True)
class Mark:
    """A moment a side's phase began: ``turn_start`` when a game turn began with it too."""

    seq: int
    turn: int
    side: str
    phase: str
    turn_start: bool


class Timeline:
    """Every moment of a game's journal, from 0 (the start) to :attr:`last` (now)."""

    def __init__(
        self,
        moments: Sequence[tuple[int, str, str]],
        now: tuple[int, str, str],
    ):
        """``moments``: the turn, side and phase each entry was taken in (entry 1 first); ``now``:
        the game's after its last entry."""
        self._taken = [tuple(m) for m in moments]
        self._now = tuple(now)
        self.last = len(self._taken)
        before = self._after(0)
        marks = [Mark(0, *before, turn_start=True)]
        for seq in range(1, self.last + 1):
            here = self._after(seq)
            if here != before:
                marks.append(Mark(seq, *here, turn_start=here[0] != before[0]))
            before = here
        self.marks: tuple[Mark, ...] = tuple(marks)
        self._mark_seqs = [m.seq for m in marks]

    @classmethod
    def of(cls, game: Any) -> Timeline:
        """The timeline of an open :class:`storage.game.Game`."""
        return cls(game.entry_moments(), _now_of(game))

    def following(self, game: Any, kept: int | None = None) -> Timeline:
        """The timeline of ``game`` after changes made to it since this one was read: entries
        taken back (an Undo) and entries added at its end (an action, a Redo). ``kept``: the
        fewest entries the journal had meanwhile (those up to it are as they were); only the
        entries after it are read. A journal changed otherwise (another copy's work) is read
        again whole by :meth:`of`."""
        keep = min(self.last, game.last_seq if kept is None else kept, game.last_seq)
        taken = [*self._taken[:keep], *game.entry_moments(keep)]
        return Timeline(taken, _now_of(game))

    def _after(self, seq: int) -> tuple[int, str, str]:
        if seq >= self.last:
            return self._now
        return self._taken[max(0, seq)]  # the entry after it was taken in the moment it left

    def moment(self, seq: int) -> Moment:
        """The moment just after entry ``seq`` (clamped to the journal)."""
        seq = max(0, min(self.last, int(seq)))
        return Moment(seq, *self._after(seq))

    def turn_starts(self) -> list[Mark]:
        """The marks at which a game turn began, in order."""
        return [m for m in self.marks if m.turn_start]

    def mark_before(self, seq: int) -> int:
        """The last mark before ``seq`` (0 when none): a step back to the phase's start."""
        i = bisect_left(self._mark_seqs, seq)
        return self._mark_seqs[i - 1] if i > 0 else 0

    def mark_after(self, seq: int) -> int:
        """The first mark after ``seq`` (:attr:`last` when none): a step on to the next phase."""
        i = bisect_right(self._mark_seqs, seq)
        return self._mark_seqs[i] if i < len(self._mark_seqs) else self.last

    def end_of_turn(self, turn: int) -> int | None:
        """The last moment of game ``turn`` (the entry after which the next turn began, or now for
        the turn in hand); None for a turn not reached."""
        starts = self.turn_starts()
        for i, m in enumerate(starts):
            if m.turn == turn:
                return starts[i + 1].seq if i + 1 < len(starts) else self.last
        return None

    def label(self, seq: int, side_name: Any = None) -> str:
        """How the moment after ``seq`` is told: "Turn 4, Union Phase 3, after entry 412".
        ``side_name`` gives a side's name from its id (the id itself without it)."""
        m = self.moment(seq)
        side = side_name(m.side) if side_name is not None else m.side
        words = _phase_words(m.phase, "end of turn")
        where = "as the game began" if m.seq == 0 else f"after entry {m.seq}"
        return f"Turn {m.turn}, {side} {words}, {where}"

    def phase_ends(self, every: str = "phase") -> list[int]:
        """The moments a side's phase (``every="turn"``: a game turn) ended, each the entry after
        which it ended: 0 (as the game began) first, then the last entry of each phase in which
        something was done, and the last entry of the journal (now)."""
        marks = [m for m in self.marks if every == "phase" or m.turn_start]
        seqs = [0]
        for i, m in enumerate(marks):
            nxt = marks[i + 1].seq if i + 1 < len(marks) else self.last + 1
            end = max(m.seq, nxt - 1)
            if end > seqs[-1]:
                seqs.append(end)
        return seqs


class PhaseStops:
    """The moments a side may look back at from its own screen: the ends of the phases played
    (:meth:`Timeline.phase_ends`), numbered 0 (as the game began) to :attr:`last` (now). Told by
    turn and phase only: how many journal entries a phase took says how busy the enemy was, which
    a side does not know. It answers as a :class:`Timeline` does, in positions instead of entries."""

    def __init__(self, timeline: Timeline):
        self.timeline = timeline
        self.seqs = timeline.phase_ends()
        self.last = len(self.seqs) - 1
        marks = []
        turn = None
        for k, q in enumerate(self.seqs):
            m = timeline.moment(q)
            marks.append(Mark(k, m.turn, m.side, m.phase, turn_start=m.turn != turn))
            turn = m.turn
        self.marks: tuple[Mark, ...] = tuple(marks)

    def seq_of(self, k: int) -> int:
        """The journal entry after which position ``k`` stands."""
        return self.seqs[max(0, min(self.last, int(k)))]

    def position_of(self, seq: int) -> int:
        """The last position at or before entry ``seq``."""
        return max(0, bisect_right(self.seqs, seq) - 1)

    def moment(self, k: int) -> Moment:
        m = self.timeline.moment(self.seq_of(k))
        return Moment(max(0, min(self.last, int(k))), m.turn, m.side, m.phase)

    def mark_before(self, k: int) -> int:
        return max(0, int(k) - 1)

    def mark_after(self, k: int) -> int:
        return min(self.last, int(k) + 1)

    def label(self, k: int, side_name: Any = None) -> str:
        """ "Turn 4, the end of the Union Phase 3"; "Turn 1, as the game began"; at the last
        position (now), the phase in hand: "Turn 9, Union Phase 1"."""
        k = max(0, min(self.last, int(k)))
        m = self.moment(k)
        if k == 0:
            return f"Turn {m.turn}, as the game began"
        side = side_name(m.side) if side_name is not None else m.side
        words = _phase_words(m.phase, "turn")
        if k == self.last:
            return f"Turn {m.turn}, {side} {words}"
        return f"Turn {m.turn}, the end of the {side} {words}"


def _phase_words(phase: str, end: str) -> str:
    """ "Phase 3" for a phase's word ("ranged"); ``end`` for the end of the turn."""
    try:
        p = Phase(phase)
    except ValueError:
        return str(phase)
    return f"Phase {p.number}" if p is not Phase.END else end


def _now_of(game: Any) -> tuple[int, str, str]:
    b = game.battle
    return (b.turn, str(b.active_side), str(b.phase.value))
