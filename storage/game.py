"""A game in progress, saved in one SQLite file as it is played.

:class:`Game` holds the current battle, the rule tables in force and the game's own dice, and keeps
a journal of every action. :meth:`Game.do` resolves an action, writes the event to the file in one
transaction and only then returns it, so what the umpire has seen happen is on disk.

Undo takes the last event off the journal and restores the state before it; the undone event is
kept, and :meth:`Game.redo` puts it back exactly as it happened, without rolling again. A new
action forgets the undone events. Any past state is a replay of the recorded changes from the
nearest snapshot (:meth:`Game.state_at`).

The game is made of parts kept in modules of their own: opening and creating a save, with its
checks (:mod:`storage.opening`), Undo and Redo (:mod:`storage.undo_redo`) and reading the journal
and past states (:mod:`storage.journal_reading`). Here: the game's state, playing an action, and
the write transaction every change goes through.

>>> import tempfile, os
>>> from storage.scenario import load_demo
>>> from rules.actions import NextPhase
>>> path = os.path.join(tempfile.mkdtemp(), "demo.sqlite")
>>> g = Game.create(path, load_demo())
>>> e = g.do(NextPhase())
>>> (e.seq, g.battle.phase.value)
(1, 'maneuver')
>>> g.close()
>>> Game.open(path).battle.phase.value
'maneuver'
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rules.battle.battle import Battle
from rules.battle.events import apply, diff
from rules.dice import DiceSource, SeededDice
from rules.errors import RulesError
from rules.tables import RuleTables, in_force
from storage import schema
from storage.errors import ChangedElsewhereError, SaveFileError
from storage.journal import (  # noqa: F401 (Event, app_version and read_only are imported from here too)
    _INSERT_JOURNAL,
    _INSERT_TOTALS,
    Event,
    _dumps,
    _Loaded,
    _now,
    _planned,
    _worked_out,
    app_version,
    read_only,
    sqlite_words,
)
from storage.opening import new_save, open_save, write_new_save
from storage.totals import TurnTotals
from storage.undo_redo import UndoRedo

if TYPE_CHECKING:
    from sqlite_utils import Database

    from rules.actions import Action
    from storage.sight_ledger import SightLedger

# The game
# --------------------------------------------------------------------------------------------


class Game(UndoRedo):
    """A saved game: the battle now, the rule tables in force, the game's dice and the journal.

    Create one with :meth:`create` or :meth:`open`; :meth:`close` it when done (or use ``with``).
    Undo and Redo are :class:`~storage.undo_redo.UndoRedo`'s, reading the journal
    :class:`~storage.journal_reading.JournalReading`'s.
    """

    #: ``PRAGMA synchronous`` for the save: FULL, so a committed event survives a power cut.
    synchronous = "FULL"

    def __init__(self, path: Path, conn: sqlite3.Connection | None, loaded: _Loaded):
        self.path = path
        self._conn = conn  # None: a new game whose file is not written yet, or a closed one
        self._db: Database | None = None  # sqlite-utils over the same connection, made when first written
        self._unwritten = conn is None
        self._closed = False
        self._scenario = loaded.scenario
        self._tables = loaded.tables
        self._battle = loaded.battle
        self._seed = loaded.seed
        self._dice = SeededDice(loaded.seed, loaded.drawn)
        self._last = loaded.last_seq
        self._last_snapshot = loaded.last_snapshot
        self._redo_count = loaded.redo_count
        # the save's change counter as this copy last read or wrote it (storage.schema.CHANGE_COUNT)
        self._change = loaded.change_count
        self._head = loaded.head  # the hash the next journal entry chains from
        self._writing_now = False
        # the chain's end (storage.schema.CHAIN_END) the transaction under way writes with the
        # change counter, or None: it does not move the chain's end
        self._chain_end_now: str | None = None
        #: Why the save can only be read here (a read-only folder or medium), or None.
        self.read_only_reason: str | None = loaded.read_only_reason
        self._cache: dict[int, Event] = {}  # parsed journal entries; entries never change once written
        # battles replayed by state_at, the last few asked: the battle after an entry changes only
        # when that entry is undone (battles are immutable, so one can be handed out many times)
        self._states: dict[int, Battle] = {}
        self._sight: SightLedger | None = None  # made when first asked (storage.sight_ledger)
        from storage.outputs import register_open_save

        register_open_save(self)  # no output of this process is ever written over it

    # -- opening and creating -----------------------------------------------------------
    @classmethod
    def create(
        cls,
        path: str | Path,
        battle: Battle,
        tables: RuleTables | None = None,
        seed: int | str | None = None,
    ) -> Game:
        """Start a new save at ``path`` from ``battle`` and write it. An existing file is never
        overwritten."""
        game = cls.new(path, battle, tables, seed)
        game.write()
        return game

    @classmethod
    def new(
        cls,
        path: str | Path,
        battle: Battle,
        tables: RuleTables | None = None,
        seed: int | str | None = None,
    ) -> Game:
        """A new game to be saved at ``path``, checked as :meth:`create` checks it, whose file is
        written by its first action (or by :meth:`write`). Until then nothing is on disk, and
        closing it leaves nothing behind: there is nothing to lose before the first action."""
        path = Path(path)
        return cls(path, None, new_save(path, battle, tables, seed))

    @property
    def written(self) -> bool:
        """Whether the game's file is on disk (a game from :meth:`new` is written by its first action)."""
        return not self._unwritten

    def write(self) -> None:
        """Write a new game's file: the schema, then the meta, the scenario and the rule tables in
        one transaction (a file stopped between the two is refused when opened, as not a
        Brigadier save). Nothing to do once it is written; a file made at ``path`` meanwhile is
        never overwritten, and a failed write leaves no file and the game still to be written."""
        if self._closed:
            raise SaveFileError("the game has been closed", self.path)
        if not self._unwritten:
            return
        from storage.sight_ledger import start_row

        self._conn, self._db, self._head = write_new_save(
            self.path,
            self._scenario,
            self._tables,
            self._new_meta(),
            self.synchronous,
            lambda chain_start: start_row(self._scenario, self._tables, chain_start),
        )
        self._unwritten = False

    @classmethod
    def open(cls, path: str | Path) -> Game:
        """Open a save. A file that is not a sound Brigadier save raises :class:`SaveFileError`
        and is left exactly as it was, with no ``-wal`` or ``-shm`` file left beside it.

        A sound save that cannot be written (its file or folder is read-only, it is on read-only
        media or a full disk) opens for reading: :attr:`read_only_reason` says why, and every
        write is refused with :class:`SaveFileError`."""
        return open_save(path, cls, cls.synchronous)

    @property
    def writable(self) -> bool:
        """Whether the game can be played on here (False: it can only be read, see
        :attr:`read_only_reason`)."""
        return self.read_only_reason is None

    def close(self) -> None:
        """Close the game's file (a new game never written leaves no file)."""
        self._closed = True
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self._db = None

    def __enter__(self) -> Game:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def conn(self) -> sqlite3.Connection:
        """The save's SQLite connection (writing a new game's file first)."""
        if self._closed:
            raise SaveFileError("the game has been closed", self.path)
        if self._unwritten:
            self.write()
        assert self._conn is not None
        return self._conn

    @property
    def db(self) -> Database:
        """The save through sqlite-utils (made when first needed, over :attr:`conn`)."""
        conn = self.conn
        if self._db is None:
            from sqlite_utils import Database

            self._db = Database(conn, execute_plugins=False)
        return self._db

    # -- state ---------------------------------------------------------------------------
    @property
    def sight(self) -> SightLedger:
        """What each side saw after each entry, kept with the journal (:mod:`storage.sight_ledger`)."""
        if self._sight is None:
            from storage.sight_ledger import SightLedger

            self._sight = SightLedger(self)
        return self._sight

    @property
    def battle(self) -> Battle:
        """The battle as it stands after the last event."""
        return self._battle

    @property
    def scenario(self) -> Battle:
        """The battle as it stood before the first event."""
        return self._scenario

    @property
    def tables(self) -> RuleTables:
        """The rule tables in force now: those the game began with, and any value the umpire
        changed during it (a ``change_tables`` action)."""
        return in_force(self._tables, self._battle.table_values)

    @property
    def base_tables(self) -> RuleTables:
        """The rule tables the game began with (as its save keeps them)."""
        return self._tables

    @property
    def dice(self) -> SeededDice:
        """The game's own dice; their state is kept in the save with each event."""
        return self._dice

    @property
    def seed(self) -> int | str:
        return self._seed

    @property
    def last_seq(self) -> int:
        return self._last

    @property
    def can_undo(self) -> bool:
        return self._last > 0

    @property
    def can_redo(self) -> bool:
        return self._redo_count > 0

    @property
    def meta(self) -> dict[str, str]:
        if self._unwritten:  # what the file will hold (its creation time is set when it is written)
            return {**self._new_meta(), "schema_version": str(schema.SCHEMA_VERSION)}
        return dict(self.conn.execute("SELECT key, value FROM meta").fetchall())

    def _new_meta(self) -> dict[str, str]:
        """The meta a new game's file is written with (besides its creation time and format)."""
        return {
            "app": schema.APP_ID,
            "app_version": app_version(),
            "name": self._scenario.name,
            "dice_seed": _dumps(self._seed),
        }

    # -- playing ---------------------------------------------------------------------------
    def do(self, action: Action, dice: DiceSource | None = None) -> Event:
        """Resolve ``action``, write it to the journal and return the event.

        ``dice`` are the umpire's dice (:class:`rules.dice.TableDice`); without them the game's
        own seeded dice roll. A :class:`~rules.errors.RulesError` leaves game and file unchanged.
        """
        return self.do_step([(action, dice)])[0]

    def do_step(self, actions: Sequence[Any], label: str | None = None) -> list[Event]:
        """Resolve the actions of one step in order and write them in one transaction, as one step
        of Undo (:meth:`undo_step`); returns the events.

        ``actions`` holds actions, ``(action, dice)`` pairs, or the planned actions of a procedure
        of play (:class:`rules.procedure.Planned`, with the dice typed for each, or none: the game's
        own dice roll). Either all of them are saved or none is: a refusal of the rules, or a save
        that cannot be written, leaves game and file unchanged.
        """
        from rules.actions import Action, resolve

        items = [_planned(a) for a in actions]
        worked = [_worked_out(a) for a in actions]
        if not items:
            raise RulesError("a step needs at least one action")
        for action, _ in items:
            if not isinstance(action, Action):
                raise RulesError(f"{action!r} is not an action")
        drawn, nrolls = self._dice.drawn, len(self._dice.rolls)
        battle, last, events, rows = self._battle, self._last, [], []
        totals: list[TurnTotals] = []
        # the battle the next action was worked out from by the procedure of play that planned
        # the step, while the game stands where the procedure had it
        worked_from: Battle | None = self._battle
        try:
            for (action, dice), (outcome, from_) in zip(items, worked, strict=True):
                before = battle
                source = dice if dice is not None else self._dice
                mark = self._dice.drawn
                if outcome is not None and from_ is worked_from and self._same_dice(outcome, dice):
                    res = outcome  # each action is resolved once: as the procedure worked it out
                else:
                    res = resolve(before, action, source, in_force(self._tables, before.table_values))
                worked_from = res.battle_after if res is outcome else None
                changes = diff(before, res.battle_after)
                battle = apply(before, changes)
                last += 1
                ev = Event(
                    seq=last,
                    turn=before.turn,
                    side=before.active_side,
                    phase=before.phase.value,
                    action=action,
                    rolls=res.rolls,
                    steps=tuple(res.steps),
                    changes=changes,
                    summary=res.summary,
                    created_at=_now(),
                    dice_before=mark,
                    dice_after=self._dice.drawn,
                )
                row = ev.to_row()
                Event.check_readable(row)  # what is saved can always be opened again
                events.append(ev)
                rows.append((ev, battle, row))
                if "turn" in changes.game:  # the entry ends its turn: the turn's totals go with it
                    of_turn = [e for e in events if e.turn == ev.turn]
                    totals.append(self._totals(ev, battle, of_turn))
        except BaseException:
            self._rewind_dice(drawn, nrolls)
            raise
        snap_at = self._last_snapshot
        if self._unwritten:
            self.write()  # the new game's file, and the hash its journal chains from
        head = self._head
        sight = []
        try:
            with self._writing("the action"):
                # the undone entries are forgotten, and how they were grouped; with none (the
                # change counter just checked says the redo table is as this copy knows it) there
                # is nothing to delete. A WHERE clause: SQLite truncates a table it is told to
                # empty entirely, writing its root page
                if self._redo_count:
                    self.db.execute("DELETE FROM redo WHERE pos IS NOT NULL")
                    self.db.execute("DELETE FROM steps WHERE seq > ?", (self._last,))
                    self._forget_undone_sight()
                for ev, after, row in rows:
                    head = schema.entry_hash(head, row) if head is not None else None
                    self.db.execute(_INSERT_JOURNAL, (*(row[c] for c in schema.EVENT_COLUMNS), head))
                    snap = self._snapshot_row(ev, after, snap_at)
                    if snap is not None:
                        self.db["snapshots"].insert(snap)
                        snap_at = ev.seq
                    sight.append((ev, after, head, snap is not None))
                # what each side sees after each entry, measured once, kept with it
                self.db.conn.executemany(schema.INSERT_SIGHT, self.sight.rows_for(sight))
                for t in totals:
                    self.db.execute(_INSERT_TOTALS, (t.seq, t.turn, t.to_json()))
                if len(events) > 1:
                    first = events[0].seq
                    self.db["steps"].upsert_all([{"seq": ev.seq, "first": first} for ev in events], pk="seq")
                if head is not None:  # the undone entries are gone: the chain ends at this step
                    self._chain_end_now = schema.chain_end_text(last, head)
        except BaseException:
            self._rewind_dice(drawn, nrolls)
            self._sight_forget_after(self._last)
            raise
        before = self._battle
        for ev, after, _ in rows:
            self._keep_phase_start(ev.seq, before, after)
            before = after
        self._battle = battle
        self._last = last
        self._redo_count = 0
        self._last_snapshot = snap_at
        self._head = head
        for ev in events:
            self._cache[ev.seq] = ev
        return events

    @contextmanager
    def _writing(self, what: str = "the change") -> Iterator[None]:
        """One write transaction on the save, taken with ``BEGIN IMMEDIATE`` so that no other copy
        writes between this copy's check and its write. It refuses, with
        :class:`ChangedElsewhereError` and nothing written, if the save's change counter is not
        the one this copy last read or wrote: another copy (a window, the command line) changed
        the game meanwhile, whatever it did (an undo followed by a new action leaves the journal
        as long as it was, but not the counter). The counter goes up by one in the same
        transaction. An SQLite error (a full disk, a read-only file, a save locked too long)
        becomes a :class:`SaveFileError` saying ``what`` was not saved. Nested uses are one
        transaction."""
        if self._closed:
            raise SaveFileError("the game has been closed", self.path)
        if self.read_only_reason is not None:
            raise SaveFileError(
                f"this save can only be read here ({self.read_only_reason}), so {what} was not made; "
                "save a copy elsewhere to play on",
                self.path,
            )
        if self._writing_now:
            yield
            return
        try:
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise SaveFileError(
                f"{what} could not be saved, so it was not made: {sqlite_words(exc)}", self.path
            ) from None
        self._writing_now = True
        try:
            count = _change_count(conn, str(self.path))
            if count != self._change:
                raise ChangedElsewhereError(CHANGED_ELSEWHERE, self.path)
            yield
            end, self._chain_end_now = self._chain_end_now, None
            if end is None:
                conn.execute(_UPDATE_META, (schema.CHANGE_COUNT, str(count + 1)))
            else:  # the chain's end with the counter, in one statement
                conn.execute(_UPDATE_META_2, (schema.CHANGE_COUNT, str(count + 1), schema.CHAIN_END, end))
            conn.commit()
        except BaseException as exc:
            self._chain_end_now = None
            try:
                if conn.in_transaction:
                    conn.rollback()
            except sqlite3.Error:
                pass
            if isinstance(exc, sqlite3.Error):
                raise SaveFileError(
                    f"{what} could not be saved, so it was not made: {sqlite_words(exc)}", self.path
                ) from None
            raise
        finally:
            self._writing_now = False
        self._change = count + 1

    @property
    def change_count(self) -> int:
        """The save's change counter as this copy last read or wrote it: one more for every
        transaction that changed the game (storage.schema.CHANGE_COUNT)."""
        return self._change

    def changed_elsewhere(self) -> bool:
        """Whether another copy has changed the save since this one read or wrote it (a cheap
        look at the save's change counter; False for a game not yet written)."""
        conn = self._read_conn()
        if conn is None:
            return False
        try:
            return _change_count(conn, str(self.path)) != self._change
        except (sqlite3.Error, SaveFileError):
            return False

    def follow(self) -> bool:
        """Catch up with what another copy of Brigadier (a window, the command line) did to the
        save since this copy read or wrote it: the entries it added (only those are read), or
        the entries it undid (the battle goes back to the one before them, as kept or replayed
        from the nearest snapshot). Returns False, with nothing changed here, when the save
        changed otherwise (an entry this copy holds replaced): open it again to see it. True
        when this copy is now as the save stands."""
        conn = self._read_conn()
        if conn is None or self._head is None:
            return False
        try:
            conn.execute("BEGIN")  # one moment of the save for every read below
            try:
                count = _change_count(conn, str(self.path))
                if count == self._change:
                    return True
                row = conn.execute("SELECT hash FROM journal WHERE seq = ?", (self._last,)).fetchone()
                start = conn.execute("SELECT value FROM meta WHERE key = ?", (schema.CHAIN_START,)).fetchone()
                if self._last and row is None:
                    # entries this copy holds were undone: its last one waits in the redo table
                    undone = conn.execute(
                        "SELECT hash FROM redo WHERE seq = ? ORDER BY pos DESC LIMIT 1", (self._last,)
                    ).fetchone()
                    if undone is None or undone[0] != self._head:
                        return False
                    back = conn.execute("SELECT coalesce(max(seq), 0) FROM journal").fetchone()[0]
                    head = conn.execute("SELECT hash FROM journal WHERE seq = ?", (back,)).fetchone()
                    head = head[0] if back else (start[0] if start else None)
                    redo = conn.execute("SELECT count(*) FROM redo").fetchone()[0]
                    snap = conn.execute("SELECT coalesce(max(seq), 0) FROM snapshots").fetchone()[0]
                    return self._went_back(back, head, redo, snap, count)
                ours = row[0] if self._last else (start[0] if start else None)
                if ours != self._head:
                    return False  # the entries this copy holds are not all the save's any more
                redo = conn.execute("SELECT count(*) FROM redo").fetchone()[0]
                fresh = self._read_events("WHERE seq > ?", (self._last,))
                heads = conn.execute(
                    "SELECT hash FROM journal WHERE seq > ? ORDER BY seq DESC LIMIT 1", (self._last,)
                ).fetchone()
                snap = conn.execute("SELECT coalesce(max(seq), 0) FROM snapshots").fetchone()[0]
            finally:
                conn.rollback()
        except sqlite3.Error:
            return False
        battle = self._battle
        for ev in fresh:
            after = apply(battle, ev.changes)
            self._keep_phase_start(ev.seq, battle, after)
            battle = after
        if fresh:
            if fresh[-1].seq != self._last + len(fresh):
                return False
            self._battle, self._last = battle, fresh[-1].seq
            self._dice = SeededDice(self._seed, fresh[-1].dice_after)
            self._head = heads[0] if heads else self._head
        self._redo_count, self._last_snapshot, self._change = redo, snap, count
        return True

    def _went_back(self, back: int, head: str | None, redo: int, snap: int, count: int) -> bool:
        """This copy after another undid its entries after ``back`` (inside :meth:`follow`'s read)."""
        if not 0 <= back < self._last or head is None:
            return False
        battle = self.state_at(back)
        dice = self._event(back).dice_after if back else 0
        for q in [q for q in self._cache if q > back]:
            del self._cache[q]
        for q in [q for q in self._states if q > back]:
            del self._states[q]
        self._sight_forget_after(back)
        self._battle, self._last, self._head = battle, back, head
        self._dice = SeededDice(self._seed, dice)
        self._redo_count, self._last_snapshot, self._change = redo, snap, count
        return True

    def _same_dice(self, outcome: Any, dice: DiceSource | None) -> bool:
        """Whether the dice an action was worked out with are those it rolls here: the faces
        typed at the table for it, or the game's own dice from where they stand (rolled here, and
        kept rolled when they give the same faces; taken back when they do not)."""
        if dice is not None:
            return True  # the faces typed for it
        drawn, nrolls = self._dice.drawn, len(self._dice.rolls)
        try:
            same = all(tuple(self._dice.roll(len(r.dice), r.purpose)) == tuple(r.dice) for r in outcome.rolls)
        except RulesError:
            same = False
        if not same:
            self._rewind_dice(drawn, nrolls)
        return same

    def _rewind_dice(self, drawn: int, nrolls: int) -> None:
        self._dice.drawn = drawn
        del self._dice.rolls[nrolls:]

    def _snapshot_row(
        self, ev: Event, after: Battle, last_snapshot: int | None = None
    ) -> dict[str, Any] | None:
        since = self._last_snapshot if last_snapshot is None else last_snapshot
        if "turn" in ev.changes.game or ev.seq - since >= schema.SNAPSHOT_EVERY:
            return {
                "seq": ev.seq,
                "turn": after.turn,
                "battle": _dumps(after.to_dict()),
                "dice_drawn": ev.dice_after,
            }
        return None

    def _totals(self, ev: Event, after: Battle, also: Sequence[Event] = ()) -> TurnTotals:
        """The totals of the turn that entry ``ev`` ends (``after``: the battle after it): its
        entries are those of the journal filed in the turn before ``ev``, and ``also`` (``ev`` and
        the entries of its step before it, not yet written)."""
        done = [self._parsed(r) for r in self._rows("WHERE turn = ? AND seq < ?", (ev.turn, ev.seq))]
        kept = {e.seq for e in done}
        return TurnTotals.of(ev.turn, ev.seq, after, [*done, *(e for e in also if e.seq not in kept)])

    def checkpoint(self) -> None:
        """Copy what the last actions wrote to the ``-wal`` file into the save itself (SQLite does
        it by itself only every thousand pages), so that the ``.sqlite`` file alone holds the whole
        game: a copy of it taken while the game is open is the game. Nothing to do for a new game
        not yet written."""
        conn = self._read_conn()
        if conn is None or self.read_only_reason is not None:
            return
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except sqlite3.Error as exc:
            raise SaveFileError(f"the save could not be brought up to date: {exc}", self.path) from None


_UPDATE_META = (
    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)
_UPDATE_META_2 = (
    "INSERT INTO meta (key, value) VALUES (?, ?), (?, ?) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)


CHANGED_ELSEWHERE = (
    "this game was changed by another copy of Brigadier (another window or the command line) "
    "since this one read it, so nothing was done; open it again to see the game as it now stands"
)


def _change_count(conn: sqlite3.Connection, path: str) -> int:
    """The save's change counter (0 for a save written before it was kept)."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (schema.CHANGE_COUNT,)).fetchone()
    if row is None:
        return 0
    try:
        n = int(row[0])
    except (TypeError, ValueError):
        raise SaveFileError("the save's change counter is damaged", path) from None
    return n


def same_state(a: Battle, b: Battle) -> bool:
    """Whether two battles are the same state (terrain compared by id, whatever its order)."""
    return diff(a, b).empty
