"""Reading a saved game's journal: its entries (each parsed once, then kept), the index of its
turns, the totals kept of the turns ended, the undone entries, and the battle after any entry
(:meth:`JournalReading.state_at`), replayed from the nearest snapshot.

:class:`JournalReading` is one of the parts :class:`storage.game.Game` is made of: its methods
read through what a game keeps (its connection, its cache of entries, the battles it replayed).
Nothing here writes to the save.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from rules.battle.battle import Battle
from rules.errors import RulesError
from storage.errors import SaveFileError
from storage.journal import Event, apply_entry, bulk_read, changes_of_row, loads
from storage.totals import TurnTotals, totals_of_rows

#: How many of the battles :meth:`JournalReading.state_at` gives are kept, the most recently asked
#: (the battle as each phase began among them): the phases of three game turns, so that an Undo
#: back over a turn or two and the Redo after it find every phase's start without replaying the
#: journal (a battle kept shares its units with the others: a few kilobytes each).
STATES_KEPT = 32


def runs_of(seqs: Sequence[int]) -> list[tuple[int, int]]:
    """Entry numbers in order as runs of consecutive numbers: ``[1, 2, 3, 7]`` is ``[(1, 3), (7, 7)]``."""
    runs: list[list[int]] = []
    for q in seqs:
        if runs and q == runs[-1][1] + 1:
            runs[-1][1] = q
        else:
            runs.append([q, q])
    return [(a, b) for a, b in runs]


class JournalReading:
    """What a game reads of its journal and its past states: a part of :class:`storage.game.Game`,
    which keeps the attributes below (and gives :attr:`~storage.game.Game.conn`)."""

    path: Path
    _conn: sqlite3.Connection | None  # None: a new game whose file is not written yet, or a closed one
    _closed: bool
    _scenario: Battle
    _battle: Battle
    _last: int
    _redo_count: int
    _cache: dict[int, Event]  # parsed journal entries; entries never change once written
    _states: dict[int, Battle]  # battles replayed by state_at, the last few asked

    def _read_conn(self) -> sqlite3.Connection | None:
        """The connection to read the journal through; None for a new game not yet written."""
        if self._closed:
            raise SaveFileError("the game has been closed", self.path)
        return self._conn

    def _rows(self, where: str = "", params: tuple = ()) -> Iterator[dict[str, Any]]:
        conn = self._read_conn()
        if conn is None:
            return
        cur = conn.execute(f"SELECT * FROM journal {where} ORDER BY seq", params)
        cols = [d[0] for d in cur.description]
        for r in cur:
            yield dict(zip(cols, r, strict=True))

    def _read_events(self, where: str = "", params: tuple = (), keep: bool = True) -> list[Event]:
        """The journal entries ``where`` says, in order: those read before from the cache, the
        others parsed in bulk (:func:`storage.journal.bulk_read`) and kept (unless ``keep`` is
        false: a look through the whole journal need not hold all of it)."""
        conn = self._read_conn()
        if conn is None:
            return []
        cache = self._cache
        # the entries read before are not fetched again: their numbers first, then the others
        seqs = [r[0] for r in conn.execute(f"SELECT seq FROM journal {where} ORDER BY seq", params)]
        missing = [q for q in seqs if q not in cache]
        read: dict[int, Event] = {}
        if missing:
            with bulk_read():
                rows = self._rows(where, params) if len(missing) == len(seqs) else self._rows_of(missing)
                for r in rows:
                    if r["seq"] not in cache:
                        read[r["seq"]] = Event.from_row(r)
            if keep:
                cache.update(read)
        out: list[Event] = []
        for q in seqs:
            ev = cache.get(q) or read.get(q)
            if ev is None:  # written by another copy meanwhile: read on its own
                ev = self._event(q)
            out.append(ev)
        return out

    def _rows_of(self, seqs: Sequence[int]) -> Iterator[dict[str, Any]]:
        """The journal rows of entries ``seqs``, read in runs of consecutive numbers."""
        for a, b in runs_of(seqs):
            yield from self._rows("WHERE seq BETWEEN ? AND ?", (a, b))

    def _parsed(self, row: dict[str, Any]) -> Event:
        ev = self._cache.get(row["seq"])
        if ev is None:
            ev = self._cache[row["seq"]] = Event.from_row(row)
        return ev

    def _event(self, seq: int) -> Event:
        if seq in self._cache:
            return self._cache[seq]
        rows = list(self._rows("WHERE seq = ?", (seq,)))
        if not rows:
            raise SaveFileError(f"journal entry {seq} is missing", self.path)
        return self._parsed(rows[0])

    def event(self, seq: int) -> Event:
        """Journal entry ``seq``."""
        return self._event(seq)

    def next_redo_summary(self) -> str | None:
        """The summary of the first entry of the next step to redo; None if there is nothing to redo."""
        conn = self._read_conn()
        if conn is None or not self._redo_count:
            return None
        row = conn.execute("SELECT summary FROM redo ORDER BY pos DESC LIMIT 1").fetchone()
        return None if row is None else str(row[0])

    def events(self, turn: int | None = None, keep: bool = True) -> list[Event]:
        """The journal in order, or the events of one game turn. The entries read are kept, to be
        given again without reading them, unless ``keep`` is false."""
        if turn is None:
            return self._read_events(keep=keep)
        return self._read_events("WHERE turn = ?", (turn,), keep)

    def entry_turns(self) -> list[int]:
        """The game turn of each journal entry, in order (the turn of entry ``seq`` is at
        ``seq - 1``), read without reading the entries."""
        conn = self._read_conn()
        if conn is None:
            return []
        return [r[0] for r in conn.execute("SELECT turn FROM journal ORDER BY seq")]

    def entry_moments(self, after: int = 0) -> list[tuple[int, str, str]]:
        """The game turn, side and phase each journal entry (after entry ``after``) was taken in,
        in order, read without reading the entries."""
        conn = self._read_conn()
        if conn is None:
            return []
        rows = conn.execute("SELECT turn, side, phase FROM journal WHERE seq > ? ORDER BY seq", (after,))
        return [(int(t), str(s), str(p)) for t, s, p in rows]

    def events_after(self, seq: int) -> list[Event]:
        """The journal entries after entry ``seq``, in order."""
        return self._read_events("WHERE seq > ?", (seq,))

    def last_entry_of_turn(self, turn: int, unless: tuple[str, str] | None = None) -> int:
        """The last journal entry filed in game ``turn`` (0: none), or with ``unless`` (a side and
        a phase) the last filed under another side or phase; read from the journal's index of
        turns, not from the entries."""
        conn = self._read_conn()
        if conn is None:
            return 0
        if unless is None:
            row = conn.execute("SELECT max(seq) FROM journal WHERE turn = ?", (turn,)).fetchone()
        else:
            row = conn.execute(
                "SELECT max(seq) FROM journal WHERE turn = ? AND NOT (side = ? AND phase = ?)",
                (turn, *unless),
            ).fetchone()
        return int(row[0]) if row is not None and row[0] is not None else 0

    def turn_index(self, from_turn: int = 0) -> dict[int, tuple[int, int]]:
        """For each game turn with entries (from ``from_turn`` on): how many entries are filed in
        it, and its last entry (read from the journal's index of turns, not from the entries)."""
        conn = self._read_conn()
        if conn is None:
            return {}
        rows = conn.execute(
            "SELECT turn, count(*), max(seq) FROM journal WHERE turn >= ? GROUP BY turn ORDER BY turn",
            (from_turn,),
        )
        return {int(t): (int(n), int(last)) for t, n, last in rows}

    def turn_totals(self, from_turn: int = 0) -> dict[int, TurnTotals]:
        """The totals kept of the turns ended (from ``from_turn`` on; :class:`storage.totals.TurnTotals`),
        by the journal entry that ended each. A turn ended before the save's format kept them has
        none, and a row that cannot be read is left out: both are read from the journal instead."""
        conn = self._read_conn()
        if conn is None:
            return {}
        rows = conn.execute("SELECT seq, turn, totals FROM turn_totals WHERE turn >= ?", (from_turn,))
        return totals_of_rows(rows)

    def skipped_turns(self) -> dict[int, str]:
        """The game turns that the umpire's rulings on the turn number jumped over and that were
        never played, each with the entry that skipped it (found in the journal's SQL: the entries
        are not read)."""
        conn = self._read_conn()
        if conn is None:
            return {}
        played = {r[0] for r in conn.execute("SELECT DISTINCT turn FROM journal")} | {self._battle.turn}
        rows = conn.execute(
            "SELECT seq, turn, summary, to_turn FROM ("
            " SELECT seq, turn, summary,"
            "  CASE WHEN json_valid(action) AND json_extract(action, '$.target') = 'game'"
            "   AND json_type(action, '$.values.turn') = 'integer'"
            "  THEN json_extract(action, '$.values.turn') END AS to_turn"
            " FROM journal WHERE type = 'override')"
            " WHERE to_turn IS NOT NULL ORDER BY seq"
        )
        out: dict[int, str] = {}
        for seq, turn, summary, to in rows:
            if not isinstance(turn, int) or not isinstance(to, int):
                continue
            for t in range(turn + 1, to):
                if t not in played:
                    out[t] = f"event {seq} ({summary}) moved the game from turn {turn} to turn {to}"
        return out

    def redo_events(self) -> list[Event]:
        """The undone events, the next one to redo first."""
        conn = self._read_conn()
        if conn is None:
            return []
        cur = conn.execute("SELECT * FROM redo ORDER BY pos DESC")
        cols = [d[0] for d in cur.description]
        out = []
        for r in cur:
            row = dict(zip(cols, r, strict=True))
            row.pop("pos")
            out.append(Event.from_row(row))
        return out

    def state_at(self, seq: int) -> Battle:
        """The battle after event ``seq`` (0: the start), replayed from the nearest snapshot."""
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= self._last:
            raise RulesError(f"there is no event {seq!r} (the journal has 1 to {self._last})")
        if seq == self._last:
            return self._battle
        states = self._states
        if seq in states:
            battle = states.pop(seq)
            states[seq] = battle  # the most recently asked last
            return battle
        battle = self._replayed(seq)
        states[seq] = battle
        while len(states) > STATES_KEPT:
            del states[next(iter(states))]
        return battle

    def _keep_phase_start(self, seq: int, before: Battle, after: Battle) -> None:
        """Keep the battle after entry ``seq`` among the states asked for (:meth:`state_at`) when
        the entry began another phase: the checklist asks for the battle as the phase began after
        every step of it, and need not replay the journal to have it."""
        if (before.turn, before.active_side, before.phase) == (after.turn, after.active_side, after.phase):
            return
        states = self._states
        states.pop(seq, None)
        states[seq] = after
        while len(states) > STATES_KEPT:
            del states[next(iter(states))]

    def _replayed(self, seq: int) -> Battle:
        """The battle after event ``seq``, replayed from the nearest battle before it: a snapshot,
        or a battle asked for before and kept (:attr:`_states`, exact for the journal as it
        stands), whichever is nearer; the timeline dragged an entry at a time applies one entry."""
        row = self.conn.execute(
            "SELECT seq FROM snapshots WHERE seq <= ? ORDER BY seq DESC LIMIT 1", (seq,)
        ).fetchone()
        snap_seq = row[0] if row is not None else 0
        kept = max((q for q in self._states if snap_seq <= q <= seq), default=None)
        if kept is not None:
            battle, start = self._states[kept], kept
        elif row is None:
            battle, start = self._scenario, 0
        else:
            text = self.conn.execute("SELECT battle FROM snapshots WHERE seq = ?", (snap_seq,)).fetchone()[0]
            battle, start = Battle.from_dict(loads(text, f"the snapshot after entry {snap_seq}")), snap_seq
        # the entries' changes alone (an entry read before is taken as it was read)
        rows = self.conn.execute(
            "SELECT seq, summary, changes FROM journal WHERE seq > ? AND seq <= ? ORDER BY seq", (start, seq)
        )
        for n, summary, text in rows:
            ev = self._cache.get(n)
            try:
                changes = ev.changes if ev is not None else changes_of_row(n, text)
            except SaveFileError as exc:
                raise SaveFileError(exc.problem, self.path) from None
            battle = apply_entry(battle, changes, n, summary, str(self.path))
        return battle

    def turns(self) -> list[int]:
        conn = self._read_conn()
        if conn is None:
            return []
        return [r[0] for r in conn.execute("SELECT DISTINCT turn FROM journal ORDER BY turn")]
