"""What each side saw after every journal entry, kept in the save as the game is played.

Who sees whom is measured once, when an entry is written (:meth:`SightLedger.entry_row`, in the
same transaction as the entry): the ``sight`` table (format 6, :mod:`storage.schema`) holds, for
each entry, the units whose spotting it changed with the enemy units that see each of them now
(:meth:`rules.sight.spotting.SightTracker.update`), and with each snapshot, and at the start, a
*point*: every unit's seers and what each side knows (the enemy units it saw before and no longer
sees, as last seen: :class:`rules.sight.knowledge.SideKnowledge`).

So a side's knowledge after any entry is read, not measured: from the nearest point before it,
the changes of the entries after it are carried forward (:meth:`SightLedger.at`), with no line of
sight worked out; opening a game, an Undo, a Redo, or looking back at an earlier entry costs the
entries since the nearest point, never the whole journal.

A row is the entry's only while the entry is: it holds the entry's chain hash, and a row whose
hash is not its entry's (an entry undone and replaced, a foreign edit) is not used. Rows stay while
their entries are undone, so Redo gives them back; a new action after an Undo drops them. An entry
without a usable row (the save was begun before format 6, or the row is damaged) is measured
again, as the rows are written: what the ledger gives is always what a replay of the journal with
the rules of sight gives (tests compare the two on whole games).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rules.battle.battle import Battle
from rules.battle.events import apply
from rules.battle.unit import Unit
from rules.errors import RulesError
from rules.sight.knowledge import SideKnowledge, Sighting
from rules.sight.spotting import SightTracker, sight_changed
from rules.tables import RuleTables, in_force
from storage.journal import Event, _dumps

#: A change of spotting: the units whose seers changed, with their seers now (empty: seen by none).
Change = Mapping[str, frozenset[str]]

#: How far apart the states worked out in memory are kept, when a long stretch of the journal is
#: read without rows (a save begun before format 6): looking back goes on from the nearest.
MARK_EVERY = 50

#: How many of the states asked for are kept (the most recently asked).
STATES_KEPT = 16


@dataclass
class SightState:
    """Both sides' sight after journal entry ``seq``: the battle, who sees whom, and what each side
    knows."""

    seq: int
    battle: Battle
    tracker: SightTracker
    knowledge: dict[str, SideKnowledge]

    def copy(self) -> SightState:
        return SightState(self.seq, self.battle, self.tracker.copy(), dict(self.knowledge))

    def step(
        self, ev: Event, base_tables: RuleTables, change: Change | None = None, after: Battle | None = None
    ) -> Change:
        """Go on past entry ``ev`` (in place): carry ``change`` (kept in the save), or measure it
        when there is none. Returns the change."""
        before = self.battle
        if after is None:
            after = apply(before, ev.changes)
        tracker = self.tracker
        if change is not None:
            tracker.carry(after, change)
        elif after.table_values != before.table_values:  # the spotting distances may have changed
            tracker.tables = in_force(base_tables, after.table_values)
            change = tracker.update(after, (), True)
        else:
            change = tracker.update(after, sight_changed(ev.changes.units), bool(ev.changes.terrain))
        for s, k in self.knowledge.items():
            self.knowledge[s] = k.after(before, after, tracker.seen(s), ev.seq)
        self.battle, self.seq = after, ev.seq
        return change


# -- the rows as text ----------------------------------------------------------------------------------


def change_text(change: Change) -> str:
    return _dumps({uid: sorted(ids) for uid, ids in sorted(change.items())})


def _ids(value: Any) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("a list of unit ids")
    return frozenset(value)


def parse_change(text: Any) -> dict[str, frozenset[str]]:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not a mapping of units")
    return {str(uid): _ids(v) for uid, v in data.items()}


def point_text(state: SightState) -> str:
    """Every unit's seers and each side's knowledge (what it sees now is its units' seers)."""
    return _dumps(
        {
            "seers": {uid: sorted(ids) for uid, ids in sorted(state.tracker.seers_map().items())},
            "knowledge": {
                side: {
                    "ever": sorted(k.ever),
                    "last": {
                        uid: {
                            "unit": s.unit.to_dict(),
                            "turn": s.turn,
                            "seq": s.seq,
                            "destroyed": s.destroyed,
                        }
                        for uid, s in sorted(k.last.items())
                    },
                }
                for side, k in state.knowledge.items()
            },
        }
    )


def parse_point(text: Any, battle: Battle, seq: int, tables: RuleTables) -> SightState:
    """The state a point holds (``battle``: the battle after its entry)."""
    data = json.loads(text)
    seers = {str(uid): _ids(v) for uid, v in data["seers"].items()}
    tracker = SightTracker.of_seers(battle, tables, seers)
    knowledge = {}
    for side in (s.id for s in battle.oob.sides):
        k = data["knowledge"][side]
        last = {
            str(uid): Sighting(Unit.from_dict(v["unit"]), int(v["turn"]), int(v["seq"]), bool(v["destroyed"]))
            for uid, v in k["last"].items()
        }
        knowledge[side] = SideKnowledge(side, tracker.seen(side), last, _ids(k["ever"]))
    return SightState(seq, battle, tracker, knowledge)


def start_state(battle: Battle, tables: RuleTables) -> SightState:
    """The sight of a game's start, measured."""
    tracker = SightTracker(battle, in_force(tables, battle.table_values))
    know = {s.id: SideKnowledge.start(s.id, tracker.seen(s.id)) for s in battle.oob.sides}
    return SightState(0, battle, tracker, know)


def start_row(battle: Battle, tables: RuleTables, chain_start: str) -> tuple:
    """The ``sight`` row of a new game's start (its point), measured."""
    return (0, chain_start, "{}", point_text(start_state(battle, tables)))


# -- the ledger ------------------------------------------------------------------------------------


class SightLedger:
    """The sight of one game (a :class:`storage.game.Game`) after each of its entries: read from the
    save's ``sight`` rows, carried forward from the nearest point, measured where a row is
    missing; and the rows of the entries written, worked out from the state after the last."""

    def __init__(self, game: Any):
        self.game = game
        self._now: SightState | None = None
        self._states: dict[int, SightState] = {}  # the states asked for, the most recent last
        self._marks: dict[int, SightState] = {}  # states worked out without rows, every MARK_EVERY
        self._kept: bool | None = None  # whether the save keeps the rows (from its start)

    # -- what the save holds ---------------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection | None:
        try:
            return self.game._read_conn()
        except Exception:  # noqa: BLE001 (a closed game: nothing to read)
            return None

    @property
    def kept(self) -> bool:
        """Whether the save keeps each entry's sight (a game begun in format 6 or later)."""
        if self._kept is None:
            if self._conn() is None:  # a new game not written yet: its start is written with it
                return False
            self._kept = self._start_point() is not None
        return self._kept

    def _start_point(self) -> str | None:
        conn = self._conn()
        if conn is None:
            return None
        try:
            row = conn.execute(
                "SELECT s.point FROM sight s JOIN meta m ON m.key = 'chain_start' AND m.value = s.hash "
                "WHERE s.seq = 0"
            ).fetchone()
        except sqlite3.Error:  # a save of a format before the table (opened to be read)
            return None
        return None if row is None else row[0]

    def _points(self, seq: int) -> Iterable[tuple[int, str]]:
        """The save's points at or before entry ``seq``, the latest first, each its entry's."""
        conn = self._conn()
        if conn is None or not self.kept:
            return
        try:
            cur = conn.execute(
                "SELECT s.seq, s.point FROM sight s LEFT JOIN journal j ON j.seq = s.seq "
                "WHERE s.point IS NOT NULL AND s.seq <= ? AND s.seq > 0 AND j.hash = s.hash "
                "ORDER BY s.seq DESC",
                (seq,),
            )
            yield from cur
        except sqlite3.Error:
            return
        start = self._start_point()
        if start is not None:
            yield (0, start)

    def _changes(self, after: int, upto: int) -> dict[int, Any]:
        """The rows of the entries after ``after`` up to ``upto`` that are theirs (by hash)."""
        conn = self._conn()
        if conn is None or not self.kept or upto <= after:
            return {}
        try:
            return dict(
                conn.execute(
                    "SELECT s.seq, s.seers FROM sight s JOIN journal j ON j.seq = s.seq AND j.hash = s.hash "
                    "WHERE s.seq > ? AND s.seq <= ?",
                    (after, upto),
                )
            )
        except sqlite3.Error:
            return {}

    # -- states ------------------------------------------------------------------------------------
    def now(self) -> SightState:
        """The sight after the game's last entry (kept up to date by the entries written here)."""
        last = self.game.last_seq
        if self._now is None or self._now.seq != last:
            self._now = self._worked_out(last)
        return self._now

    def at(self, seq: int) -> SightState:
        """The sight after entry ``seq`` (0: the start). Do not change what is given."""
        last = self.game.last_seq
        if not 0 <= seq <= last:
            raise RulesError(f"there is no journal entry {seq} (they run to {last})")
        if seq == last:
            return self.now()
        got = self._states.get(seq)
        if got is None:
            got = self._worked_out(seq)
        self._keep(got)
        return got

    def walk(
        self,
        first: int,
        last: int,
        each: Callable[[Event, SightState, Battle, dict[str, frozenset[str]]], None],
    ) -> None:
        """Go through entries ``first`` to ``last``, calling ``each(entry, state after it, battle
        before it, what each side saw before it)``."""
        state = self.at(first - 1).copy()
        rows = self._changes(first - 1, last)
        for ev in self._entries(first - 1, last):
            before = state.battle
            seen_before = {s: k.seen for s, k in state.knowledge.items()}
            self._step(state, ev, rows)
            each(ev, state, before, seen_before)
        if state.seq == last and last < self.game.last_seq:  # the next walk goes on from here
            self._keep(state)

    def _keep(self, state: SightState) -> None:
        self._states.pop(state.seq, None)
        self._states[state.seq] = state
        while len(self._states) > STATES_KEPT:
            del self._states[next(iter(self._states))]

    def _entries(self, after: int, upto: int) -> list[Event]:
        return self.game._read_events("WHERE seq > ? AND seq <= ?", (after, upto))

    def _step(self, state: SightState, ev: Event, rows: Mapping[int, Any]) -> None:
        text = rows.get(ev.seq)
        change = None
        if text is not None:
            try:
                change = parse_change(text)
            except (ValueError, TypeError, KeyError):
                change = None  # a damaged row: measured again
        state.step(ev, self.game.base_tables, change)

    def _worked_out(self, seq: int) -> SightState:
        """The sight after entry ``seq``: from the nearest state at hand or point of the save,
        the entries after it carried (or measured) up to it."""
        base = self._nearest_at_hand(seq)
        for q, text in self._points(seq):
            if base is not None and q <= base.seq:
                break
            try:
                battle = self.game.scenario if q == 0 else self.game.state_at(q)
                base = parse_point(text, battle, q, in_force(self.game.base_tables, battle.table_values))
                break
            except (ValueError, TypeError, KeyError, AttributeError, RulesError):
                continue  # a damaged point: an earlier one
        if base is None:
            base = start_state(self.game.scenario, self.game.base_tables)
            self._marks[0] = base.copy()
        else:
            base = base.copy()
        if base.seq == seq:
            return base
        rows = self._changes(base.seq, seq)
        for ev in self._entries(base.seq, seq):
            self._step(base, ev, rows)
            if ev.seq not in rows and ev.seq % MARK_EVERY == 0:
                self._marks[ev.seq] = base.copy()
        if seq == self.game.last_seq:
            base.battle = self.game.battle  # the same battle, as the game holds it
            base.tracker.battle = base.battle
        return base

    def _nearest_at_hand(self, seq: int) -> SightState | None:
        best = None
        for pool in (self._states, self._marks):
            for q, st in pool.items():
                if q <= seq and (best is None or q > best.seq):
                    best = st
        if self._now is not None and self._now.seq <= seq and (best is None or self._now.seq > best.seq):
            best = self._now
        return best

    def forget_after(self, seq: int) -> None:
        """Forget the states after entry ``seq`` (the entries after it were undone)."""
        for pool in (self._states, self._marks):
            for q in [q for q in pool if q > seq]:
                del pool[q]
        if self._now is not None and self._now.seq > seq:
            self._now = None

    # -- writing ----------------------------------------------------------------------------------
    def rows_for(self, entries: Iterable[tuple[Event, Battle, str | None, bool]]) -> list[tuple]:
        """The ``sight`` rows of the entries about to be written after the game's last (each with
        the battle after it, its chain hash and whether a point goes with it), worked out from the
        sight now; empty for a save that does not keep them. The ledger stands after them:
        :meth:`forget_after` if they are not written."""
        entries = list(entries)
        if not entries or not self.kept:
            return []
        state = self.now()
        out = []
        for ev, after, head, point in entries:
            change = state.step(ev, self.game.base_tables, after=after)
            out.append((ev.seq, head, change_text(change), point_text(state) if point else None))
        return out
