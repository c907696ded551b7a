"""The journal of a saved game: an event as the save holds it, and reading a save through a
read-only connection, checked, without changing it (:class:`storage.game.Game` opens and plays
saves through it)."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rules import limits
from rules.batch import collector_paused
from rules.battle.battle import Battle
from rules.battle.events import Changes, Step, apply
from rules.dice import DiceSource, Roll
from rules.errors import RulesError
from rules.tables import RuleTables, load_tables
from storage import schema
from storage.errors import SaveFileError
from storage.save_format import SQLITE_HEADER, dumps_compact

if TYPE_CHECKING:
    from rules.actions import Action


def app_version() -> str:
    """Brigadier's installed version, as its ``brigadier-<version>.dist-info`` folder names it.

    (Read from the folder's name rather than through ``importlib.metadata``, whose import alone
    costs a start-up 60 ms or more.)"""
    global _VERSION
    if _VERSION is None:
        _VERSION = _DEFAULT_VERSION
        for entry in sys.path:
            try:
                names = os.listdir(entry or ".")
            except OSError:
                continue
            found = [n for n in names if n.startswith("brigadier-") and n.endswith(".dist-info")]
            if found:
                _VERSION = found[0][len("brigadier-") : -len(".dist-info")]
                break
    return _VERSION


_DEFAULT_VERSION = "0.1.0"  # not installed: running from a source tree
_VERSION: str | None = None


def _action_from(data: Any) -> Action:
    """An action read back from the journal (the rules of play load when a journal is first read)."""
    from rules.actions import Action

    return Action.from_dict(data)


def _planned(item: Any) -> tuple[Any, DiceSource | None]:
    """An action of a step and its dice: an action alone, an ``(action, dice)`` pair, or a planned
    action of a procedure of play (with the faces typed for it)."""
    if isinstance(item, tuple) and len(item) == 2:
        return item[0], item[1]
    source = getattr(item, "source", None)
    if callable(source) and hasattr(item, "action"):
        return item.action, source()
    return item, None


def _worked_out(item: Any) -> tuple[Any, Battle | None]:
    """What a procedure of play worked out of a planned action, and the battle it worked it out
    from: (:class:`~rules.action_base.Resolved`, battle), or (None, None) for anything else."""
    return getattr(item, "outcome", None), getattr(item, "before", None)


def _now() -> str:
    """The time of an entry, to the second, in UTC: ``2026-12-02T05:20:00+00:00`` (as
    ``datetime.now(UTC).isoformat(timespec="seconds")`` writes it, in a third of the time)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())


#: A save's JSON text of a value (compact; NaN and Infinity refused).
_dumps = dumps_compact


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number Brigadier keeps")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"the key {limits._show(k)} is given twice; give each key once")
        out[k] = v
    return out


def loads(text: Any, what: str, unique_keys: bool = False) -> Any:
    """A JSON value of a save (or typed by the umpire), read within the limits of
    :mod:`rules.limits`: at most :data:`~rules.limits.MAX_JSON_BYTES` long, no NaN or Infinity,
    lists and tables nested at most as deep as the limit allows (and with ``unique_keys``, no key
    given twice in one table). Anything else raises
    :class:`SaveFileError` naming ``what`` (without the file: the caller adds it)."""
    if isinstance(text, bytes):
        raise SaveFileError(f"{what} is not text")
    if not isinstance(text, str):
        raise SaveFileError(f"{what} is not JSON text ({type(text).__name__})")
    if len(text) > limits.MAX_JSON_BYTES:
        raise SaveFileError(
            f"{what} is too long ({len(text):,} characters; at most {limits.MAX_JSON_BYTES:,})"
        )
    try:
        if unique_keys:  # typed by the umpire: a key given twice is refused, not the last one taken
            return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise SaveFileError(f"{what} nests lists or tables more than {limits.MAX_DEPTH} deep") from None
    except ValueError as exc:  # not JSON, NaN, or an integer of more digits than Python reads
        raise SaveFileError(f"{what} is not valid JSON ({limits._show(str(exc))})") from None


# --------------------------------------------------------------------------------------------
# Events
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of the journal: the action, its dice, its log lines and the changes it made.

    ``turn``, ``side`` and ``phase`` are those the action was taken in.
    """

    seq: int
    turn: int
    side: str
    phase: str
    action: Action
    rolls: tuple[Roll, ...]
    steps: tuple[Step, ...]
    changes: Changes
    summary: str
    created_at: str
    dice_before: int = 0
    dice_after: int = 0

    @property
    def type(self) -> str:
        return self.action.type

    def to_row(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "turn": self.turn,
            "side": self.side,
            "phase": self.phase,
            "type": self.action.type,
            "action": _dumps(self.action.to_dict()),
            "rolls": _dumps([r.to_dict() for r in self.rolls]),
            "steps": _dumps([s.to_dict() for s in self.steps]),
            "changes": _dumps(self.changes.to_dict()),
            "summary": self.summary,
            "created_at": self.created_at,
            "dice_before": self.dice_before,
            "dice_after": self.dice_after,
        }

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Event:
        """Read a journal row; anything malformed raises :class:`SaveFileError`."""
        with _reading_entry(row.get("seq")):
            return cls._read_row(row)

    @staticmethod
    def check_readable(row: Mapping[str, Any]) -> None:
        """Refuse to save this entry, written as ``row``, unless the save's reader takes it back
        exactly as :meth:`from_row` will when the game is opened again: the same bounds on every
        text (the action's own, and the log lines, summary and dice purposes made from them), the
        same checks, in one place. Raises :class:`~rules.errors.RulesError` naming what is out
        of bounds; nothing has been written then."""
        try:
            Event._read_row(row)
        except SaveFileError as exc:
            raise RulesError(f"this action cannot be saved: {exc.problem}; nothing was changed") from None
        except (RulesError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RulesError(f"this action cannot be saved ({exc}); nothing was changed") from None

    @classmethod
    def _read_row(cls, row: Mapping[str, Any]) -> Event:
        seq = row.get("seq")
        ev = cls(
            seq=_whole(row["seq"], "seq"),
            turn=_whole(row["turn"], "turn"),
            side=str(row["side"]),
            phase=str(row["phase"]),
            action=_action_from(loads(row["action"], f"journal entry {seq}'s action")),
            rolls=tuple(Roll.from_dict(r) for r in _list(loads(row["rolls"], f"journal entry {seq}'s dice"))),
            steps=tuple(Step.from_dict(s) for s in _list(loads(row["steps"], f"journal entry {seq}'s log"))),
            changes=Changes.from_dict(loads(row["changes"], f"journal entry {seq}'s changes")),
            summary=limits.text(row["summary"], "a summary", limits.MAX_LOG_TEXT),
            created_at=limits.text(row["created_at"], "a time"),
            dice_before=_whole(row["dice_before"], "dice_before"),
            dice_after=_whole(row["dice_after"], "dice_after"),
        )
        if ev.dice_after < ev.dice_before or ev.dice_before < 0:
            raise SaveFileError("it has an impossible dice count")
        return ev


# one prepared statement for the journal: saving an action is on the umpire's every click
_INSERT_JOURNAL = (
    f"INSERT INTO journal ({', '.join(schema.EVENT_COLUMNS)}, hash) "
    f"VALUES ({', '.join('?' for _ in schema.EVENT_COLUMNS)}, ?)"
)


_INSERT_TOTALS = "INSERT INTO turn_totals (seq, turn, totals) VALUES (?, ?, ?)"


#: Read many journal entries with Python's cycle collector paused. Parsing an entry makes dozens
#: of small objects that all live on (dictionaries, tuples, dataclasses, none of them in a
#: reference cycle); the collector, which runs every few hundred objects made, would walk all of
#: those read so far again and again, so that reading a long journal cost more an entry the longer
#: it was. Paused, each entry costs the same (:func:`rules.batch.collector_paused`).
bulk_read = collector_paused


def _whole(v: Any, what: str) -> int:
    """A count of a save (an entry's number, its turn, the dice drawn) in :data:`rules.limits.COUNT`."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise SaveFileError(f"{what} must be a whole number, not {limits._show(v)}")
    if v not in limits.COUNT:
        raise SaveFileError(f"{what} must be {limits.COUNT.text()}, not {limits._show(v)}")
    return v


def _list(v: Any) -> list[Any]:
    if not isinstance(v, list):
        raise SaveFileError(f"a list was expected, not {limits._show(v)}")
    return v


# --------------------------------------------------------------------------------------------
# Reading a save without changing it
# --------------------------------------------------------------------------------------------


@dataclass
class _Loaded:
    scenario: Battle
    tables: RuleTables
    battle: Battle
    seed: int | str
    drawn: int
    last_seq: int
    last_snapshot: int
    redo_count: int
    schema_version: int
    change_count: int = 0
    read_only_reason: str | None = None
    #: The hash the next journal entry chains from (None: a save of a format before the chain)
    head: str | None = None


def _tables_from(values: Mapping[str, Any]) -> RuleTables:
    base = load_tables()
    changed = {k: v for k, v in values.items() if k in base and base.value(k) != v}
    return base.with_values(changed) if changed else base


def _read(conn: sqlite3.Connection, path: str) -> _Loaded:
    """Check and load a save through a read-only connection, in one read transaction, so that
    what is read is one moment of the save whatever another copy writes meanwhile. Raises
    :class:`SaveFileError`."""
    conn.row_factory = sqlite3.Row
    conn.execute("BEGIN")  # deferred: the snapshot is taken by the first read, and kept to the end
    try:
        return _read_in_transaction(conn, path)
    finally:
        if conn.in_transaction:
            conn.rollback()


def _read_in_transaction(conn: sqlite3.Connection, path: str) -> _Loaded:
    try:
        check = conn.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as exc:
        raise SaveFileError(f"the file is damaged or is not a Brigadier save ({exc})", path) from None
    if [tuple(r) for r in check] != [("ok",)]:
        raise SaveFileError("the file is damaged (the database integrity check failed)", path)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "meta" not in names:
        raise SaveFileError("this is an SQLite database, but not a Brigadier save", path)
    meta = {r["key"]: r["value"] for r in conn.execute("SELECT key, value FROM meta")}
    if meta.get("app") != schema.APP_ID:
        raise SaveFileError("this is an SQLite database, but not a Brigadier save", path)
    try:
        version = int(meta.get("schema_version", ""))
    except ValueError:
        raise SaveFileError("the save does not say which version of the format it uses", path) from None
    if version > schema.SCHEMA_VERSION:
        raise SaveFileError(
            f"this save was written by a newer Brigadier (save format {version}; this Brigadier "
            f"reads up to {schema.SCHEMA_VERSION}). Update Brigadier to open it.",
            path,
        )
    missing = [t for t in schema.TABLES if t not in names]
    missing += [t for t, since in schema.TABLES_SINCE.items() if version >= since and t not in names]
    if missing:
        raise SaveFileError(f"the save is incomplete: table(s) {', '.join(missing)} missing", path)
    _check_format(conn, path, meta, version, names)
    try:
        return _load_state(conn, path, meta, version)
    except SaveFileError as exc:
        if exc.path is None:  # a damaged entry: say which file it is in
            raise SaveFileError(exc.problem, path) from None
        raise
    except sqlite3.DatabaseError as exc:
        raise SaveFileError(f"the file is damaged ({exc})", path) from None
    except (
        RulesError,
        LookupError,
        TypeError,
        ValueError,
        AttributeError,
    ) as exc:  # LookupError: a column missing
        raise SaveFileError(f"the save holds values Brigadier cannot accept: {exc}", path) from None


#: The kinds of schema objects Brigadier makes in a save (tables and their indexes); a trigger or a
#: view in a save was put there by something else, and would run or be read as Brigadier writes.
_OWN_KINDS = ("table", "index")


def _check_format(conn: sqlite3.Connection, path: str, meta: Mapping[str, str], version: int, names) -> None:
    """Refuse a save whose format number is not one of the formats that exist, or is lower than
    what the save holds (a format number lowered would skip the checks of the formats after it:
    a save can only claim a format whose checks it passes), and a save that holds SQL triggers
    or views Brigadier did not make (foreign: they would run, or be read, as Brigadier writes)."""
    if version < 1:
        raise SaveFileError(
            f"the save says it is of format {version}, which no Brigadier wrote (formats 1 to "
            f"{schema.SCHEMA_VERSION}): the file is damaged or was changed outside Brigadier",
            path,
        )
    foreign = conn.execute(
        f"SELECT type, name FROM sqlite_master WHERE type NOT IN ({', '.join('?' * len(_OWN_KINDS))})",
        _OWN_KINDS,
    ).fetchall()
    if foreign:
        what = ", ".join(f"{t} {limits._show(n)}" for t, n in foreign[:5])
        raise SaveFileError(
            f"the save holds SQL that Brigadier did not make ({what}): it is not opened, so that "
            "nothing of it runs",
            path,
        )
    # what the file holds of each format, and the format it shows
    shown, held = 0, ""
    for since, what, present in _format_marks(conn, meta, names):
        if present and since > shown:
            shown, held = since, what
    if shown > version:
        raise SaveFileError(
            f"the save says it is of format {version}, but it holds {held} (format {shown}): its "
            "format number has been changed, and the checks of its format would be skipped",
            path,
        )


def _format_marks(
    conn: sqlite3.Connection, meta: Mapping[str, str], names
) -> Iterator[tuple[int, str, bool]]:
    """What a save of each format holds, in order of format: ``(format, what, whether it does)``."""

    def columns(table: str) -> set[str]:
        return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")} if table in names else set()

    applied: set[str] = set()
    if "_sqlite_migrations" in names:
        try:
            applied = {r[0] for r in conn.execute("SELECT name FROM _sqlite_migrations")}
        except sqlite3.DatabaseError:
            applied = set()
    for since, name in enumerate(schema.MIGRATION_NAMES, start=1):
        yield since, f"the record of the migration {name}", name in applied
    for table, since in schema.TABLES_SINCE.items():
        yield since, f"the table {table}", table in names
    for (table, column), since in schema.COLUMNS_SINCE.items():
        yield since, f"the column {table}.{column}", column in columns(table)
    yield 3, f"the {schema.CHAIN_START} of the hash chain", schema.CHAIN_START in meta
    yield 5, f"the {schema.CHAIN_END} of the hash chain", schema.CHAIN_END in meta


def _load_state(conn: sqlite3.Connection, path: str, meta: Mapping[str, str], version: int) -> _Loaded:
    if "dice_seed" not in meta:
        raise SaveFileError("the save does not hold its dice seed", path)
    seed = loads(meta["dice_seed"], "the dice seed")
    if isinstance(seed, bool) or not isinstance(seed, (int, str)):
        raise SaveFileError(f"the dice seed {limits._show(seed)} is not a number or a word", path)
    if isinstance(seed, int) and seed not in limits.SEED:
        raise SaveFileError(f"the dice seed must be {limits.SEED.text()}, not {limits._show(seed)}", path)
    if isinstance(seed, str) and len(seed) > limits.MAX_TEXT:
        raise SaveFileError("the dice seed is too long", path)
    row = conn.execute("SELECT battle FROM scenario WHERE id = 1").fetchone()
    if row is None:
        raise SaveFileError("the save has no starting battle", path)
    scenario = Battle.from_dict(loads(row["battle"], "the starting battle"))
    tables = _tables_from(
        {
            r["key"]: loads(r["value"], f"the rule table entry {r['key']}")
            for r in conn.execute("SELECT * FROM rule_tables")
        }
    )
    count, last = conn.execute("SELECT count(*), coalesce(max(seq), 0) FROM journal").fetchone()
    if count != last:
        raise SaveFileError(f"the journal has gaps: {count} entries numbered up to {last}", path)
    snap = conn.execute("SELECT * FROM snapshots ORDER BY seq DESC LIMIT 1").fetchone()
    if snap is None:
        battle, snap_seq, drawn = scenario, 0, 0
    else:
        battle = Battle.from_dict(loads(snap["battle"], f"the snapshot after entry {snap['seq']}"))
        snap_seq, drawn = _whole(snap["seq"], "snapshot seq"), _whole(snap["dice_drawn"], "dice drawn")
        at = conn.execute("SELECT dice_after FROM journal WHERE seq = ?", (snap_seq,)).fetchone()
        if at is None or at[0] != drawn:
            raise SaveFileError(
                f"the snapshot after journal entry {snap_seq} does not hold the dice drawn by then", path
            )
    with bulk_read():
        for r in conn.execute("SELECT * FROM journal WHERE seq > ? ORDER BY seq", (snap_seq,)):
            ev = Event.from_row(dict(r))
            if ev.dice_before != drawn:
                raise SaveFileError(
                    f"journal entry {ev.seq} does not follow on from the dice before it", path
                )
            battle = _apply_checked(battle, ev, path)
            drawn = ev.dice_after
        redo_count = 0
        expect = last + 1
        for r in conn.execute("SELECT * FROM redo ORDER BY pos DESC"):
            ev = Event.from_row(dict(r))
            if ev.seq != expect:
                raise SaveFileError("the undone events do not follow on from the journal", path)
            expect += 1
            redo_count += 1
    head = None
    if version >= 3:
        top = conn.execute("SELECT hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
        head = top[0] if top is not None else meta.get(schema.CHAIN_START)
        if not isinstance(head, str) or len(head) != 64:
            raise SaveFileError("the journal's hash chain is damaged", path)
    if version >= 5 and schema.parse_chain_end(meta.get(schema.CHAIN_END)) is None:
        raise SaveFileError("the save does not keep the end of its journal's hash chain", path)
    change = meta.get(schema.CHANGE_COUNT, "0")
    if not isinstance(change, str) or not change.isdigit() or len(change) > 18:
        raise SaveFileError("the save's change counter is damaged", path)
    return _Loaded(
        scenario, tables, battle, seed, drawn, last, snap_seq, redo_count, version, int(change), head=head
    )


@contextmanager
def _reading_entry(seq: Any) -> Iterator[None]:
    """Anything malformed read of journal entry ``seq`` is a :class:`SaveFileError` naming it."""
    try:
        yield
    except SaveFileError as exc:
        raise SaveFileError(f"journal entry {limits._show(seq)} is damaged: {exc.problem}") from None
    except (RulesError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SaveFileError(f"journal entry {limits._show(seq)} is damaged ({exc})") from None


def changes_of_row(seq: Any, text: Any) -> Changes:
    """The changes of journal entry ``seq`` from their column alone, checked as
    :meth:`Event.from_row` checks them (what replaying the journal to a state needs)."""
    with _reading_entry(seq):
        return Changes.from_dict(loads(text, f"journal entry {limits._show(seq)}'s changes"))


def apply_entry(
    battle: Battle, changes: Changes, seq: int, summary: str, path: str | None, reverse: bool = False
) -> Battle:
    """The battle after journal entry ``seq``'s ``changes`` (before them, with ``reverse``); changes
    that do not fit the battle are a :class:`SaveFileError` naming the entry."""
    try:
        return apply(battle, changes, reverse=reverse)
    except (RulesError, KeyError, TypeError, ValueError) as exc:
        raise SaveFileError(f"journal entry {seq} ({summary}) cannot be applied: {exc}", path) from None


def _apply_checked(battle: Battle, ev: Event, path: str | None, reverse: bool = False) -> Battle:
    return apply_entry(battle, ev.changes, ev.seq, ev.summary, path, reverse)


def _check_is_sqlite(path: Path) -> None:
    """Refuse anything but an ordinary file that starts as an SQLite database: a folder, a FIFO
    or a device is named as what it is (and a FIFO is never waited on).

    The file's first bytes are read only when no game of this process has it open: closing any
    descriptor of a file drops every POSIX lock the process holds on it, SQLite's included, and
    another copy of Brigadier could then take the save for its own alone (and remove the -wal
    file this process is still writing to)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise SaveFileError("there is no such file", path) from None
    except OSError as exc:
        raise SaveFileError(f"cannot be read: {exc.strerror}", path) from None
    kind = limits.kind_of_file(st.st_mode)
    if kind == "a folder":
        raise SaveFileError("this is a folder, not a saved game", path)
    if kind != "a file":
        raise SaveFileError(f"this is {kind}, not a saved game", path)
    if _open_here(st):
        return  # open in this process already: SQLite has read it
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise SaveFileError(f"cannot be read: {exc.strerror}", path) from None
    try:
        if limits.kind_of_file(os.fstat(fd).st_mode) != "a file":
            raise SaveFileError("this is not an ordinary file, not a saved game", path)
        head = os.read(fd, 100)
    except OSError as exc:
        raise SaveFileError(f"cannot be read: {exc.strerror}", path) from None
    finally:
        os.close(fd)
    if len(head) < 100 or not head.startswith(SQLITE_HEADER):
        raise SaveFileError("this is not a Brigadier save (not an SQLite database)", path)


def _open_here(st: os.stat_result) -> bool:
    """Whether a game of this process has the file of ``st`` open."""
    from storage.outputs import open_saves

    for p in open_saves():
        try:
            other = os.stat(p)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            return True
    return False


def read_only(path: str | Path, immutable: bool = False) -> sqlite3.Connection:
    """A read-only connection to a save; it cannot change the file. ``immutable``: SQLite is told
    the file cannot change, so it needs no ``-shm`` file beside it (for a save in a read-only
    folder, on read-only media or a full disk, with nothing waiting in a ``-wal`` file)."""
    uri = Path(path).resolve().as_uri() + ("?mode=ro&immutable=1" if immutable else "?mode=ro")
    return sqlite3.connect(uri, uri=True)


def pending_wal(path: str | Path) -> bool:
    """Whether a ``-wal`` file beside the save holds anything (actions not yet folded in)."""
    try:
        return os.path.getsize(f"{path}-wal") > 0
    except OSError:
        return False


def cannot_write(path: str | Path) -> str | None:
    """Why Brigadier cannot write to the save at ``path`` (its file or folder is read-only, or
    on read-only media), or None. Nothing is changed to find out."""
    p = Path(path)
    if not os.access(p, os.W_OK):
        return "the file is read-only"
    folder = p.parent if str(p.parent) else Path(".")
    companions = [Path(f"{p}{s}") for s in ("-wal", "-shm")]
    if not os.access(folder, os.W_OK | os.X_OK) and not all(
        c.exists() and os.access(c, os.W_OK) for c in companions
    ):
        return "its folder is read-only"
    return None


def sqlite_words(exc: BaseException) -> str:
    """An SQLite error as the umpire reads it: a full disk, a read-only file, a save locked by
    another copy, with SQLite's own words after it."""
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    if name.startswith("SQLITE_FULL"):
        return f"the disk is full ({exc})"
    if name.startswith("SQLITE_READONLY"):
        return f"the file or its folder is read-only ({exc})"
    if name.startswith("SQLITE_IOERR"):
        return f"the disk could not be written or read; is it full? ({exc})"
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return f"another copy of Brigadier kept the save busy; try again ({exc})"
    if name.startswith("SQLITE_CANTOPEN"):
        return f"the file or its folder cannot be opened for writing ({exc})"
    return str(exc)


# --------------------------------------------------------------------------------------------
