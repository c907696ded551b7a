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
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rules.dice import SeededDice
from rules.errors import RulesError
from storage import schema
from storage.errors import SaveFileError
from storage.journal import _INSERT_TOTALS, Event, _apply_checked
from storage.journal_reading import JournalReading

if TYPE_CHECKING:
    from storage.sight_ledger import SightLedger


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
        kept = self._kept()
        try:
            with self._writing("the undo"):
                return self._undo_one()
        except BaseException:
            self._restore(kept)
            raise

    def _undo_one(self) -> Event:
        """Undo the last event inside a write transaction (the caller restores this copy's state if
        the transaction fails)."""
        ev = self._event(self._last)
        before = _apply_checked(self._battle, ev, str(self.path), reverse=True)
        row = ev.to_row()
        pos = self.db.execute("SELECT coalesce(max(pos), 0) + 1 FROM redo").fetchone()[0]
        if self._head is not None:  # the undone entry keeps its hash, and the chain's end goes back one
            row["hash"] = self._hash_of(ev.seq)
            self._head = self._hash_of(ev.seq - 1)
        self.db.execute("DELETE FROM journal WHERE seq = ?", (ev.seq,))
        self.db["redo"].insert({"pos": pos, **row})
        self._battle = before
        self._last -= 1
        self._redo_count += 1
        self._cache.pop(ev.seq, None)
        self._states.pop(ev.seq, None)
        self._sight_forget_after(self._last)
        if self._last_snapshot > self._last:
            r = self.db.execute("SELECT coalesce(max(seq), 0) FROM snapshots").fetchone()
            self._last_snapshot = r[0]
        self._dice = SeededDice(self._seed, ev.dice_before)
        return ev

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

    def undo_step(self) -> list[Event]:
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

    def undo_to(self, seq: int) -> list[Event]:
        """Undo events until ``seq`` is the last one (0: back to the start). Returns them, latest first."""
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= self._last:
            raise RulesError(f"there is no event {seq!r} to go back to (the journal has 1 to {self._last})")
        out: list[Event] = []
        if seq == self._last:
            return out
        kept = self._kept()
        try:
            with self._writing("the undo"):  # one transaction: all of them are taken back, or none
                while self._last > seq:
                    out.append(self._undo_one())
        except BaseException:
            self._restore(kept)
            raise
        return out
