"""A game in progress, saved in one SQLite file as it is played.

:class:`Game` holds the current battle, the rule tables in force and the game's own dice, and keeps
a journal of every action. :meth:`Game.do` resolves an action, writes the event to the file in one
transaction and only then returns it, so what the umpire has seen happen is on disk.

Undo takes the last event off the journal and restores the state before it; the undone event is
kept, and :meth:`Game.redo` puts it back exactly as it happened, without rolling again. A new
action forgets the undone events. Any past state is a replay of the recorded changes from the
nearest snapshot (:meth:`Game.state_at`).

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

import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rules.battle.battle import Battle
from rules.battle.events import apply, diff
from rules.dice import DiceSource, SeededDice
from rules.errors import RulesError
from rules.tables import RuleTables, in_force, load_tables
from storage import schema
from storage.errors import ChangedElsewhereError, SaveFileError
from storage.save_format import COMPANION_SUFFIXES, companion_problem
from storage.totals import TurnTotals, totals_of_rows

if TYPE_CHECKING:
    from sqlite_utils import Database

    from rules.actions import Action

from storage.journal import (  # noqa: F401 (Event, app_version and read_only are imported from here too)
    _INSERT_JOURNAL,
    _INSERT_TOTALS,
    SQLITE_HEADER,
    Event,
    _apply_checked,
    _check_is_sqlite,
    _dumps,
    _Loaded,
    _now,
    _planned,
    _read,
    _tables_from,
    _whole,
    app_version,
    bulk_read,
    cannot_write,
    loads,
    pending_wal,
    read_only,
    sqlite_words,
)

# The game
# --------------------------------------------------------------------------------------------

#: How many of the battles :meth:`Game.state_at` gives are kept, the most recently asked (the
#: battle as each phase began among them): the phases of three game turns, so that an Undo back
#: over a turn or two and the Redo after it find every phase's start without replaying the journal
#: (a battle kept shares its units with the others: a few kilobytes each).
STATES_KEPT = 32


class Game:
    """A saved game: the battle now, the rule tables in force, the game's dice and the journal.

    Create one with :meth:`create` or :meth:`open`; :meth:`close` it when done (or use ``with``).
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
        companion_name_refused(path)
        if path.exists():
            raise SaveFileError("a file of that name already exists; choose another name", path)
        for suffix in COMPANION_SUFFIXES:
            beside = Path(f"{path}{suffix}")
            if beside.exists() or beside.is_symlink():
                raise SaveFileError(
                    f"a file {beside.name} lies beside it, where SQLite keeps a save's unwritten "
                    "changes: a new save there would take them as its own; choose another name",
                    path,
                )
        if not path.parent.is_dir():
            raise SaveFileError(f"there is no folder {path.parent}", path)
        if not isinstance(battle, Battle):
            raise SaveFileError("a game starts from a battle")
        try:  # the battle exactly as the save will give it back
            battle = Battle.from_dict(json.loads(_dumps(battle.to_dict())))
        except (RulesError, TypeError, ValueError) as exc:
            raise SaveFileError(f"the battle cannot be saved: {exc}", path) from None
        tables = tables or load_tables()
        if seed is None:
            seed = battle.seed if battle.seed else int.from_bytes(os.urandom(4), "big")
        if isinstance(seed, bool) or not isinstance(seed, (int, str)):
            raise SaveFileError(f"the dice seed must be a whole number or a word, not {seed!r}")
        loaded = _Loaded(battle, tables, battle, seed, 0, 0, 0, 0, schema.SCHEMA_VERSION, 0)
        return cls(path, None, loaded)

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
        path = self.path
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            os.close(fd)
        except FileExistsError:
            raise SaveFileError("a file of that name already exists; choose another name", path) from None
        except OSError as exc:
            raise SaveFileError(f"cannot be created: {exc.strerror}", path) from None
        conn = db = None
        battle, tables = self._scenario, self._tables
        try:
            conn = sqlite3.connect(path)
            schema.configure(conn, self.synchronous)
            schema.migrate(conn)
            from sqlite_utils import Database

            db = Database(conn, execute_plugins=False)
            with db.atomic():
                battle_text = _dumps(battle.to_dict())
                table_rows = [(k, _dumps(v)) for k, v in tables.to_dict().items()]
                start = schema.chain_start(self._new_meta()["dice_seed"], battle_text, table_rows)
                rows = {
                    **self._new_meta(),
                    "created": _now(),
                    schema.CHANGE_COUNT: "0",
                    schema.CHAIN_START: start,
                    schema.CHAIN_END: schema.chain_end_text(0, start),
                }
                db["meta"].upsert_all([{"key": k, "value": v} for k, v in rows.items()], pk="key")
                db["scenario"].insert({"id": 1, "name": battle.name, "battle": battle_text})
                db["rule_tables"].insert_all([{"key": k, "value": v} for k, v in table_rows])
        except (sqlite3.Error, OSError, ValueError) as exc:
            if conn is not None:
                conn.close()
            for suffix in ("", "-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)
            raise SaveFileError(f"the game could not be saved: {exc}", path) from None
        self._conn, self._db = conn, db
        self._head = start
        self._unwritten = False

    @classmethod
    def open(cls, path: str | Path) -> Game:
        """Open a save. A file that is not a sound Brigadier save raises :class:`SaveFileError`
        and is left exactly as it was, with no ``-wal`` or ``-shm`` file left beside it.

        A sound save that cannot be written (its file or folder is read-only, it is on read-only
        media or a full disk) opens for reading: :attr:`read_only_reason` says why, and every
        write is refused with :class:`SaveFileError`."""
        from rules.actions import load_action_modules

        path = Path(path)
        companion_name_refused(path)
        load_action_modules()
        _check_is_sqlite(path)
        companions = [Path(str(path) + suffix) for suffix in ("-wal", "-shm")]
        had = {c for c in companions if c.exists()}
        for attempt in (1, 2):
            try:
                return cls._open_checked(path)
            except SaveFileError as exc:
                _remove_empty_companions(companions, had)
                if "damaged" not in exc.problem:
                    raise
                # damaged, or the disk failed to read it? read every byte of it again to tell
                why = unreadable(path)
                if why is not None:
                    raise SaveFileError(
                        f"the disk could not read the file ({why}); the save itself may be intact: "
                        "check the disk or its cable, or copy the save elsewhere and open the copy",
                        path,
                    ) from None
                if attempt == 2:
                    raise
                # every byte read this time: a read that failed once is tried once more
            except BaseException:
                # SQLite makes a WAL save's -wal and -shm files even to read it: a refused file is
                # left as it was found, without empty companions beside it
                _remove_empty_companions(companions, had)
                raise
        raise AssertionError("unreachable")

    @classmethod
    def _open_checked(cls, path: Path) -> Game:
        companions = [Path(str(path) + suffix) for suffix in ("-wal", "-shm")]
        had = {c for c in companions if c.exists()}
        cannot = cannot_write(path)
        conn = cls._reader(path, cannot)
        try:
            loaded = _read(conn, str(path))
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise SaveFileError(f"the file is damaged or is not a Brigadier save ({exc})", path) from None
        except UnicodeDecodeError:  # damaged bytes where SQLite keeps text
            conn.close()
            raise SaveFileError("the file is damaged (it holds text that cannot be read)", path) from None
        except BaseException:
            conn.close()
            raise
        if cannot is None:
            rw = None
            try:
                rw = sqlite3.connect(path)
                schema.configure(rw, cls.synchronous)
                if loaded.schema_version < schema.SCHEMA_VERSION:
                    schema.migrate(rw)
            except UnicodeDecodeError:
                if rw is not None:
                    rw.close()
                conn.close()
                raise SaveFileError(
                    "cannot be opened for writing: it holds text that cannot be read", path
                ) from None
            except sqlite3.Error as exc:
                if rw is not None:
                    rw.close()
                if not _is_io_error(exc):
                    conn.close()
                    raise SaveFileError(f"cannot be opened for writing: {exc}", path) from None
                cannot = sqlite_words(exc)
                _remove_empty_companions(companions, had)
            else:
                conn.close()
                return cls(path, rw, loaded)
        # the save can be read, not written: it opens for reading, through the read-only connection
        loaded.read_only_reason = cannot
        return cls(path, conn, loaded)

    @staticmethod
    def _reader(path: Path, cannot: str | None) -> sqlite3.Connection:
        """The read-only connection a save is read through. Where SQLite could not make the
        ``-shm`` file a WAL save needs (a read-only folder, read-only media, a full disk) and no
        actions wait in a ``-wal`` file, the save is read as immutable, needing none."""
        companions = [Path(str(path) + suffix) for suffix in ("-wal", "-shm")]
        had = {c for c in companions if c.exists()}
        if cannot is not None and not pending_wal(path):
            try:
                return read_only(path, immutable=True)
            except sqlite3.Error as exc:
                raise SaveFileError(f"cannot be opened: {exc}", path) from None
        conn = None
        try:
            conn = read_only(path)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchall()  # opens the -wal and -shm
            return conn
        except UnicodeDecodeError:
            if conn is not None:
                conn.close()
            _remove_empty_companions(companions, had)
            raise SaveFileError("the file is damaged (it holds text that cannot be read)", path) from None
        except sqlite3.DatabaseError as exc:
            if conn is not None:
                conn.close()
            _remove_empty_companions(companions, had)
            if not _is_io_error(exc):
                raise SaveFileError(f"the file is damaged or is not a Brigadier save ({exc})", path) from None
            if pending_wal(path):
                raise SaveFileError(
                    "the save has actions waiting in its -wal file, which SQLite cannot read here "
                    f"({sqlite_words(exc)}); copy the save and its -wal file to a folder you can write to",
                    path,
                ) from None
            try:
                return read_only(path, immutable=True)
            except sqlite3.Error as exc2:
                raise SaveFileError(f"cannot be opened: {exc2}", path) from None

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

    def _read_conn(self) -> sqlite3.Connection | None:
        """The connection to read the journal through; None for a new game not yet written."""
        if self._closed:
            raise SaveFileError("the game has been closed", self.path)
        return self._conn

    # -- state ---------------------------------------------------------------------------
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
        if not items:
            raise RulesError("a step needs at least one action")
        for action, _ in items:
            if not isinstance(action, Action):
                raise RulesError(f"{action!r} is not an action")
        drawn, nrolls = self._dice.drawn, len(self._dice.rolls)
        battle, last, events, rows = self._battle, self._last, [], []
        totals: list[TurnTotals] = []
        try:
            for action, dice in items:
                before = battle
                source = dice if dice is not None else self._dice
                mark = self._dice.drawn
                res = resolve(before, action, source, in_force(self._tables, before.table_values))
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
        try:
            with self._writing("the action"):
                # the undone entries are forgotten, and how they were grouped; with none (the
                # change counter just checked says the redo table is as this copy knows it) there
                # is nothing to delete. A WHERE clause: SQLite truncates a table it is told to
                # empty entirely, writing its root page
                if self._redo_count:
                    self.db.execute("DELETE FROM redo WHERE pos IS NOT NULL")
                    self.db.execute("DELETE FROM steps WHERE seq > ?", (self._last,))
                for ev, after, row in rows:
                    head = schema.entry_hash(head, row) if head is not None else None
                    self.db.execute(_INSERT_JOURNAL, (*(row[c] for c in schema.EVENT_COLUMNS), head))
                    snap = self._snapshot_row(ev, after, snap_at)
                    if snap is not None:
                        self.db["snapshots"].insert(snap)
                        snap_at = ev.seq
                for t in totals:
                    self.db.execute(_INSERT_TOTALS, (t.seq, t.turn, t.to_json()))
                if len(events) > 1:
                    first = events[0].seq
                    self.db["steps"].upsert_all([{"seq": ev.seq, "first": first} for ev in events], pk="seq")
                if head is not None:  # the undone entries are gone: the chain ends at this step
                    self._chain_end_now = schema.chain_end_text(last, head)
        except BaseException:
            self._rewind_dice(drawn, nrolls)
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

    def forget_redo(self) -> None:
        """Forget the undone events, as a new action does: nothing is left to redo (what the
        umpire cancelled is not offered back)."""
        if not self._redo_count:
            return
        with self._writing("forgetting the undone actions"):
            self.db.execute("DELETE FROM redo WHERE pos IS NOT NULL")
            self.db.execute("DELETE FROM steps WHERE seq > ?", (self._last,))
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
            row = conn.execute("SELECT first FROM steps WHERE seq = ?", (seq,)).fetchone()
        except sqlite3.OperationalError:  # a format 1 save opened for reading: no steps are kept
            return (seq, seq)
        if row is None:
            return (seq, seq)
        last = conn.execute("SELECT max(seq) FROM steps WHERE first = ?", (row[0],)).fetchone()[0]
        return (int(row[0]), int(last))

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

    # -- the journal -----------------------------------------------------------------------
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
        runs: list[list[int]] = []
        for q in seqs:
            if runs and q == runs[-1][1] + 1:
                runs[-1][1] = q
            else:
                runs.append([q, q])
        for a, b in runs:
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

    def _replayed(self, seq: int) -> Battle:
        """The battle after event ``seq``, replayed from the nearest snapshot before it."""
        snap = self.conn.execute(
            "SELECT seq, battle FROM snapshots WHERE seq <= ? ORDER BY seq DESC LIMIT 1", (seq,)
        ).fetchone()
        if snap is None:
            battle, start = self._scenario, 0
        else:
            battle, start = Battle.from_dict(loads(snap[1], f"the snapshot after entry {snap[0]}")), snap[0]
        for r in self._rows("WHERE seq > ? AND seq <= ?", (start, seq)):
            battle = _apply_checked(battle, Event.from_row(r), str(self.path))
        return battle

    def turns(self) -> list[int]:
        conn = self._read_conn()
        if conn is None:
            return []
        return [r[0] for r in conn.execute("SELECT DISTINCT turn FROM journal ORDER BY turn")]


_UPDATE_META = (
    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)
_UPDATE_META_2 = (
    "INSERT INTO meta (key, value) VALUES (?, ?), (?, ?) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)


def companion_name_refused(path: Path) -> None:
    """Refuse a save named as SQLite names the files it keeps beside a save (``g.sqlite-wal``):
    a game saved there would be removed by the next write to ``g.sqlite``.

    >>> companion_name_refused(Path("g.sqlite-wal"))
    Traceback (most recent call last):
    storage.errors.SaveFileError: g.sqlite-wal: a save cannot be named g.sqlite-wal: SQLite keeps the unwritten changes of the save g.sqlite in a file of that name, and removes it; choose a name that does not end in -wal
    """
    problem = companion_problem(path.name)
    if problem is not None:
        raise SaveFileError(problem, path)


def unreadable(path: Path) -> str | None:
    """Why the disk cannot read every byte of the file at ``path`` (its error, such as
    "Input/output error"), or None if it can. Not done for a file a game of this process has open
    (closing a descriptor of it would drop SQLite's locks on it)."""
    from storage.journal import _open_here

    try:
        st = os.stat(path)
        if _open_here(st):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    try:
        while os.read(fd, 1 << 20):
            pass
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    finally:
        os.close(fd)
    return None


def _is_io_error(exc: BaseException) -> bool:
    """Whether an SQLite error is about the disk or permissions, not the save's contents."""
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    return name.startswith(
        ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_IOERR", "SQLITE_FULL", "SQLITE_PERM")
    )


def _remove_empty_companions(companions: Sequence[Path], had: set[Path]) -> None:
    """Remove the ``-wal`` and ``-shm`` files SQLite made beside a save it was only asked to
    read, when nothing was written to the ``-wal`` (a refused save is left as it was found)."""
    wal = companions[0]
    try:
        if wal in had or (wal.exists() and wal.stat().st_size > 0):
            return
        for c in companions:
            if c not in had:
                c.unlink(missing_ok=True)
    except OSError:
        pass


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
