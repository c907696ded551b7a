"""Undo and Redo of a saved game: an entry taken back off the journal is kept, with its hash, in
the save's ``redo`` table, and put back exactly as it happened, without rolling again; the entries
of one step of the umpire's Undo (a march through its Trigger Windows, a group moved together) go
and come back together (the ``steps`` table, :mod:`storage.schema`).

:class:`UndoRedo` is one of the parts :class:`storage.game.Game` is made of: it writes through the
game's own transaction (``Game._writing``, which refuses when another copy changed the save) and
its snapshots and turn totals, and it reads the journal as :class:`~storage.journal_reading.JournalReading`
does.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from rules.dice import SeededDice
from rules.errors import RulesError
from storage import schema
from storage.errors import SaveFileError
from storage.journal import _INSERT_TOTALS, Event, _apply_checked
from storage.journal_reading import JournalReading

if TYPE_CHECKING:
    from storage.sight_ledger import SightLedger


#: An undo of more entries than this reads the battle from the nearest snapshot instead of taking
#: back each entry's changes (snapshots are at most ``storage.schema.SNAPSHOT_EVERY`` entries apart).
REVERSED_AT_MOST = 32


class UndoneEvents(Sequence[Event]):
    """The entries an undo took back, latest first, each read from its row when first asked for:
    an undo of a thousand entries does not parse a thousand actions that nobody looks at."""

    def __init__(
        self,
        rows: list[dict] | None,
        path: object = None,
        seqs: list[int] | None = None,
        fetch: Callable[[], list[dict]] | None = None,
    ):
        """``rows``: the entries' rows, latest first; or their numbers (``seqs``) and how to
        read their rows when first asked for (``fetch``)."""
        self._rows = rows
        self._seqs = [int(r["seq"]) for r in rows] if rows is not None else list(seqs or ())
        self._fetch = fetch
        self._events: list[Event | None] = [None] * len(self._seqs)
        self._path = path

    def __len__(self) -> int:
        return len(self._seqs)

    def _row(self, i: int) -> dict:
        if self._rows is None:
            rows = self._fetch() if self._fetch is not None else []
            if [int(r["seq"]) for r in rows] != self._seqs:
                raise SaveFileError(
                    "the entries taken back are no longer kept as undone (redone or forgotten since)",
                    self._path,
                )
            self._rows = rows
        return self._rows[i]

    def _at(self, i: int) -> Event:
        ev = self._events[i]
        if ev is None:
            try:
                ev = self._events[i] = Event.from_row(self._row(i))
            except SaveFileError as exc:
                raise SaveFileError(exc.problem, self._path) from None
        return ev

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self._at(k) for k in range(*i.indices(len(self._seqs)))]
        n = len(self._seqs)
        if not -n <= i < n:
            raise IndexError("no such undone entry")
        return self._at(i % n)

    @property
    def seqs(self) -> list[int]:
        """The entries' numbers, latest first, without reading the entries."""
        return list(self._seqs)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, UndoneEvents)):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"UndoneEvents(seqs={self.seqs})"


class UndoRedo(JournalReading):
    """Undo, Redo and the steps of Undo: a part of :class:`storage.game.Game`, which keeps the
    attributes below (and gives ``db``, ``_writing``, ``_snapshot_row`` and ``_totals``)."""

    _last_snapshot: int
    _dice: SeededDice
    _seed: int | str
    _head: str | None  # the hash the next journal entry chains from (None: a save before the chain)
    _chain_end_now: str | None
    _sight: SightLedger | None

    def _sight_forget_after(self, seq: int) -> None:
        """The sight worked out after entry ``seq`` is no longer the game's (its entries were undone)."""
        if self._sight is not None:
            self._sight.forget_after(seq)

    def _forget_undone_sight(self) -> None:
        """Drop the ``sight`` rows of the undone entries, forgotten by a new action (a save
        before format 6 has none)."""
        if self._sight is None or self._sight.kept:
            try:
                self.db.execute("DELETE FROM sight WHERE seq > ?", (self._last,))
            except sqlite3.OperationalError:
                pass

    def undo(self) -> Event | None:
        """Take back the last event and restore the state before it; None if there is none."""
        if not self._last:
            return None
        return self.undo_to(self._last - 1)[0]

    def _take_back_after(self, seq: int) -> UndoneEvents:
        """Take every journal entry after ``seq`` back onto the redo table, inside a write
        transaction (the caller restores this copy's state if the transaction fails): the rows move
        in two statements, as they were written (with their hashes), and the battle after ``seq``
        is read from the nearest snapshot before it (:meth:`state_at`), so that the cost does not
        grow with the entries taken back. Returns the rows taken back, latest first."""
        db = self.db
        n = self._last - seq
        cols = [r[1] for r in db.execute("PRAGMA table_info(journal)")]
        if n <= REVERSED_AT_MOST and seq not in self._states:
            # a step or a few: their recorded changes taken back, each checked against the state
            cur = db.execute("SELECT * FROM journal WHERE seq > ? ORDER BY seq DESC", (seq,))
            rows = [dict(zip(cols, r, strict=True)) for r in cur]
            if [r["seq"] for r in rows] != list(range(self._last, seq, -1)):
                raise SaveFileError(
                    f"the journal's entries after entry {seq} are not all in the save", self.path
                )
            undone = UndoneEvents(rows, self.path)
            before = self._battle
            for ev in undone:
                before = _apply_checked(before, ev, str(self.path), reverse=True)
        else:
            # each entry known by its number, its time and its hash (no more of it is read)
            marks = ", ".join(c for c in ("seq", "created_at", "hash") if c in cols)
            known = db.execute(
                f"SELECT {marks} FROM journal WHERE seq > ? ORDER BY seq DESC", (seq,)
            ).fetchall()
            if [k[0] for k in known] != list(range(self._last, seq, -1)):
                raise SaveFileError(
                    f"the journal's entries after entry {seq} are not all in the save", self.path
                )
            before = self.state_at(seq)
            undone = None
        base = db.execute("SELECT coalesce(max(pos), 0) FROM redo").fetchone()[0]
        if undone is None:  # their rows read from the redo table if they are asked for
            undone = UndoneEvents(
                None,
                self.path,
                list(range(self._last, seq, -1)),
                partial(self._undone_rows, base + 1, base + n, [tuple(k) for k in known]),
            )
        names = ", ".join(f'"{c}"' for c in cols)
        # the latest entry first: Redo takes the highest place, the first entry after seq
        db.execute(
            f"INSERT INTO redo (pos, {names}) SELECT ? + ? - seq + 1, {names} FROM journal WHERE seq > ?",
            (base, self._last, seq),
        )
        db.execute("DELETE FROM journal WHERE seq > ?", (seq,))  # their snapshots and totals with them
        if self._head is not None:  # the chain's end goes back to entry seq
            self._head = self._hash_of(seq)
        self._battle = before
        self._redo_count += n
        self._last = seq
        for q in [q for q in self._cache if q > seq]:
            del self._cache[q]
        for q in [q for q in self._states if q > seq]:
            del self._states[q]
        self._sight_forget_after(seq)
        if self._last_snapshot > seq:
            self._last_snapshot = db.execute("SELECT coalesce(max(seq), 0) FROM snapshots").fetchone()[0]
        first = db.execute("SELECT dice_before FROM redo WHERE pos = ?", (base + n,)).fetchone()
        self._dice = SeededDice(self._seed, int(first[0]))
        return undone

    def _undone_rows(self, first_pos: int, last_pos: int, known: list[tuple]) -> list[dict]:
        """The undone entries' rows at places ``first_pos`` to ``last_pos`` of the redo table (the
        latest entry first), if they are still the entries taken back (``known``: each one's
        number, time and hash); none if they are not (redone, forgotten, or another history's)."""
        conn = self._read_conn()
        if conn is None:
            return []
        cur = conn.execute("SELECT * FROM redo WHERE pos BETWEEN ? AND ? ORDER BY pos", (first_pos, last_pos))
        cols = [d[0] for d in cur.description]
        rows = [{k: v for k, v in zip(cols, r, strict=True) if k != "pos"} for r in cur]
        marks = [c for c in ("seq", "created_at", "hash") if c in cols]
        if [tuple(r[c] for c in marks) for r in rows] != known:
            return []
        return rows

    def redo(self) -> Event | None:
        """Put back the last undone event exactly as it happened (no dice are rolled)."""
        if not self._redo_count:
            return None
        kept = self._kept()
        try:
            with self._writing("the redo"):
                return self._redo_one()
        except BaseException:
            self._restore(kept)
            raise

    def _redo_one(self) -> Event:
        """Redo the next undone event inside a write transaction."""
        cur = self.db.execute("SELECT * FROM redo ORDER BY pos DESC LIMIT 1")
        r = cur.fetchone()
        if r is None:
            raise SaveFileError(
                "there is nothing to redo in the save: its undone entries are gone; "
                "open the game again to see it as it now stands",
                self.path,
            )
        row = dict(zip([d[0] for d in cur.description], r, strict=True))
        pos = row.pop("pos")
        try:
            ev = Event.from_row(row)
        except SaveFileError as exc:
            raise SaveFileError(exc.problem, self.path) from None
        if ev.seq != self._last + 1:
            raise SaveFileError("the undone entries do not follow on from the journal", self.path)
        after = _apply_checked(self._battle, ev, str(self.path))
        self.db.execute("DELETE FROM redo WHERE pos = ?", (pos,))
        self.db["journal"].insert(row)
        if self._head is not None:
            self._head = row.get("hash")
        snap = self._snapshot_row(ev, after)
        if snap is not None:
            self.db["snapshots"].insert(snap)
            self._last_snapshot = ev.seq
        if "turn" in ev.changes.game:  # the entry ends its turn: the turn's totals go with it
            t = self._totals(ev, after, [ev])
            self.db.execute(_INSERT_TOTALS, (t.seq, t.turn, t.to_json()))
        self._keep_phase_start(ev.seq, self._battle, after)
        self._battle = after
        self._last = ev.seq
        self._redo_count -= 1
        self._cache[ev.seq] = ev
        self._dice = SeededDice(self._seed, ev.dice_after)
        return ev

    def _hash_of(self, seq: int) -> str | None:
        """The chain hash of journal entry ``seq`` (0: the hash the chain starts from)."""
        if seq <= 0:
            row = self.db.execute("SELECT value FROM meta WHERE key = ?", (schema.CHAIN_START,)).fetchone()
        else:
            row = self.db.execute("SELECT hash FROM journal WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else row[0]

    def _kept(self) -> tuple:
        return (
            self._battle,
            self._last,
            self._redo_count,
            self._last_snapshot,
            self._dice,
            dict(self._cache),
            self._head,
        )

    def _restore(self, kept: tuple) -> None:
        (
            self._battle,
            self._last,
            self._redo_count,
            self._last_snapshot,
            self._dice,
            self._cache,
            self._head,
        ) = kept
        for seq in [q for q in self._states if q > self._last]:  # kept by what was taken back
            del self._states[seq]

    def forget_redo(self) -> None:
        """Forget the undone events, as a new action does: nothing is left to redo (what the
        umpire cancelled is not offered back)."""
        if not self._redo_count:
            return
        with self._writing("forgetting the undone actions"):
            self.db.execute("DELETE FROM redo WHERE pos IS NOT NULL")
            self.db.execute("DELETE FROM steps WHERE seq > ?", (self._last,))
            self._forget_undone_sight()
            if self._head is not None:  # the chain ends at the journal's last entry now
                self._chain_end_now = schema.chain_end_text(self._last, self._head)
        self._redo_count = 0

    def mark_step(self, seqs: Sequence[int]) -> None:
        """Record that journal entries ``seqs`` (consecutive, all in the journal) are one step of
        the umpire's Undo, so that after the game is opened again Undo and Redo still take and
        give back all of them at once (:meth:`step_of`)."""
        seqs = sorted(seqs)
        if len(seqs) < 2:
            return
        if seqs != list(range(seqs[0], seqs[-1] + 1)) or seqs[0] < 1 or seqs[-1] > self._last:
            raise RulesError(f"entries {seqs} are not consecutive entries of the journal")
        with self._writing("the step"):
            self.db["steps"].upsert_all([{"seq": q, "first": seqs[0]} for q in seqs], pk="seq")

    def step_of(self, seq: int) -> tuple[int, int]:
        """The first and last journal entries of the Undo step that entry ``seq`` belongs to."""
        conn = self._read_conn()
        if conn is None:
            return (seq, seq)
        try:
            # one statement, so one moment of the save: another copy may change the steps between
            # two (it forgets the undone entries, and their steps, when it makes a new action)
            row = conn.execute(
                "SELECT s.first, (SELECT max(t.seq) FROM steps t WHERE t.first = s.first) "
                "FROM steps s WHERE s.seq = ?",
                (seq,),
            ).fetchone()
        except sqlite3.OperationalError:  # a format 1 save opened for reading: no steps are kept
            return (seq, seq)
        if row is None or row[1] is None:
            return (seq, seq)
        return (int(row[0]), int(row[1]))

    def undo_step(self) -> UndoneEvents:
        """Take back the last step of Undo: every entry of it (a march through its windows, a group
        move, a charge with its declined reactions), in one transaction. Returns the events, latest
        first; empty when there is nothing to undo."""
        if not self._last:
            return []
        first, _ = self.step_of(self._last)
        return self.undo_to(first - 1)

    def redo_step(self) -> list[Event]:
        """Put back the next step undone, every entry of it, in one transaction; empty when there
        is nothing to redo."""
        if not self._redo_count:
            return []
        nxt = self._last + 1
        _, last = self.step_of(nxt)
        return self.redo_to(last)

    def redo_to(self, seq: int) -> list[Event]:
        """Redo undone events until ``seq`` is the last one, in one transaction. Returns them in order."""
        top = self._last + self._redo_count
        if isinstance(seq, bool) or not isinstance(seq, int) or not self._last <= seq <= top:
            raise RulesError(f"there is no undone event {seq!r} to redo up to (they run to {top})")
        kept = self._kept()
        out: list[Event] = []
        try:
            with self._writing("the redo"):  # one transaction: all of them are put back, or none
                while self._last < seq:
                    out.append(self._redo_one())
        except BaseException:
            self._restore(kept)
            raise
        return out

    def undo_to(self, seq: int) -> UndoneEvents:
        """Undo events until ``seq`` is the last one (0: back to the start), in one transaction.
        Returns them, latest first (each read from its row when first asked for)."""
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= self._last:
            raise RulesError(f"there is no event {seq!r} to go back to (the journal has 1 to {self._last})")
        if seq == self._last:
            return UndoneEvents([], self.path)
        kept = self._kept()
        try:
            with self._writing("the undo"):  # one transaction: all of them are taken back, or none
                undone = self._take_back_after(seq)
        except BaseException:
            self._restore(kept)
            raise
        return undone
