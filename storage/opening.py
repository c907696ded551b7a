"""Opening and creating a save: the checks a file passes before it is read or written, and what is
done when it cannot be written or read.

A new save is checked before anything is on disk (:func:`new_save`): not named as SQLite names
the files beside a save, no file of its name nor of its companions' names, a battle the save gives
back as it was; its file is then made without ever writing over one made meanwhile
(:func:`write_new_save`). A save is opened through a read-only connection and checked
(:func:`storage.journal._read`) before anything is written to it (:func:`open_save`): a sound save
that cannot be written (a read-only folder or medium, a full disk) opens for reading; a file that
is not a sound Brigadier save is refused and left exactly as it was, with no ``-wal`` or ``-shm``
file left beside it; a disk that cannot read a save is told apart from a damaged save by reading
it again.

:class:`storage.game.Game` opens and creates its saves through these (``Game.new``,
``Game.write``, ``Game.open``).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from rules.battle.battle import Battle
from rules.errors import RulesError
from rules.tables import RuleTables, load_tables
from storage import schema
from storage.errors import SaveFileError
from storage.journal import (
    _check_is_sqlite,
    _dumps,
    _Loaded,
    _now,
    _read,
    cannot_write,
    pending_wal,
    read_only,
    sqlite_words,
)
from storage.save_format import COMPANION_SUFFIXES, companion_problem

if TYPE_CHECKING:
    from sqlite_utils import Database

#: What :func:`open_save` makes of a save opened (a :class:`storage.game.Game`).
G = TypeVar("G")


# --------------------------------------------------------------------------------------------
# A new save
# --------------------------------------------------------------------------------------------


def new_save(path: Path, battle: Battle, tables: RuleTables | None, seed: int | str | None) -> _Loaded:
    """What a new game to be saved at ``path`` starts from, once ``path`` is checked as the place of
    a new save: ``battle`` exactly as the save will give it back, the rule ``tables`` (the bundled
    ones if none) and the dice ``seed`` (if none, the battle's, or a random one). Nothing is
    written."""
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
    return _Loaded(battle, tables, battle, seed, 0, 0, 0, 0, schema.SCHEMA_VERSION, 0)


def write_new_save(
    path: Path,
    battle: Battle,
    tables: RuleTables,
    meta: dict[str, str],
    synchronous: str,
    sight_start: Callable[[str], tuple] | None = None,
) -> tuple[sqlite3.Connection, Database, str]:
    """Write a new game's file at ``path``: the schema, then ``meta`` (with the creation time, the
    change counter and the ends of the hash chain), the scenario ``battle`` and the rule ``tables``
    in one transaction (a file stopped between the two is refused when opened, as not a Brigadier
    save); ``synchronous`` is its ``PRAGMA synchronous``. A file made at ``path`` meanwhile is
    never overwritten, and a failed write leaves no file. ``sight_start``, given the chain's
    start, makes the ``sight`` row of the start (:func:`storage.sight_ledger.start_row`), written
    in the same transaction. Returns the connection, sqlite-utils over it, and the hash the journal
    chains from."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        os.close(fd)
    except FileExistsError:
        raise SaveFileError("a file of that name already exists; choose another name", path) from None
    except OSError as exc:
        raise SaveFileError(f"cannot be created: {exc.strerror}", path) from None
    conn = db = None
    try:
        conn = sqlite3.connect(path)
        schema.configure(conn, synchronous)
        schema.migrate(conn)
        from sqlite_utils import Database

        db = Database(conn, execute_plugins=False)
        with db.atomic():
            battle_text = _dumps(battle.to_dict())
            table_rows = [(k, _dumps(v)) for k, v in tables.to_dict().items()]
            start = schema.chain_start(meta["dice_seed"], battle_text, table_rows)
            rows = {
                **meta,
                "created": _now(),
                schema.CHANGE_COUNT: "0",
                schema.CHAIN_START: start,
                schema.CHAIN_END: schema.chain_end_text(0, start),
            }
            db["meta"].upsert_all([{"key": k, "value": v} for k, v in rows.items()], pk="key")
            db["scenario"].insert({"id": 1, "name": battle.name, "battle": battle_text})
            db["rule_tables"].insert_all([{"key": k, "value": v} for k, v in table_rows])
            if sight_start is not None:
                db.execute(schema.INSERT_SIGHT, sight_start(start))
    except (sqlite3.Error, OSError, ValueError) as exc:
        if conn is not None:
            conn.close()
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        raise SaveFileError(f"the game could not be saved: {exc}", path) from None
    return conn, db, start


# --------------------------------------------------------------------------------------------
# Opening a save
# --------------------------------------------------------------------------------------------


def open_save(
    path: str | Path, make: Callable[[Path, sqlite3.Connection, _Loaded], G], synchronous: str
) -> G:
    """Open the save at ``path``, checked, and ``make`` a game of it (``make(path, conn, loaded)``;
    ``synchronous`` is the save's ``PRAGMA synchronous``). A file that is not a sound Brigadier
    save raises :class:`SaveFileError` and is left exactly as it was, with no ``-wal`` or ``-shm``
    file left beside it.

    A sound save that cannot be written (its file or folder is read-only, it is on read-only
    media or a full disk) opens for reading, through a read-only connection: the
    ``read_only_reason`` of what was read says why."""
    import rules.actions  # noqa: F401 (every action type a journal may hold, registered)

    path = Path(path)
    companion_name_refused(path)
    _check_is_sqlite(path)
    companions = [Path(str(path) + suffix) for suffix in ("-wal", "-shm")]
    had = {c for c in companions if c.exists()}
    for attempt in (1, 2):
        try:
            return _open_checked(path, make, synchronous)
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


def _open_checked(path: Path, make: Callable[[Path, sqlite3.Connection, _Loaded], G], synchronous: str) -> G:
    companions = [Path(str(path) + suffix) for suffix in ("-wal", "-shm")]
    had = {c for c in companions if c.exists()}
    cannot = cannot_write(path)
    conn = _reader(path, cannot)
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
            schema.configure(rw, synchronous)
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
            return make(path, rw, loaded)
    # the save can be read, not written: it opens for reading, through the read-only connection
    loaded.read_only_reason = cannot
    return make(path, conn, loaded)


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
