"""The schema versions of a save, applied with ``sqlite_utils.Migrations``.

Imported only when a save is created or an older one is brought up to date, so that opening a
game and showing it does not wait for sqlite-utils. The layout is described in :mod:`storage.schema`.
"""

from __future__ import annotations

import sqlite3

from sqlite_utils import Database, Migrations

from storage.save_format import (
    _EVENT_COLUMNS,
    APP_ID,
    CHAIN_END,
    CHAIN_START,
    MIGRATION_NAMES,
    SCHEMA_VERSION,
    chain_end_text,
    chain_start,
    entry_hash,
)

migrations = Migrations(APP_ID)


@migrations(name="0001_initial")
def _initial(db: Database) -> None:
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute(
        "CREATE TABLE scenario (id INTEGER PRIMARY KEY CHECK (id = 1), name TEXT NOT NULL, battle TEXT NOT NULL)"
    )
    db.execute("CREATE TABLE rule_tables (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute(f"CREATE TABLE journal (seq INTEGER PRIMARY KEY CHECK (seq >= 1), {_EVENT_COLUMNS})")
    db.execute("CREATE INDEX journal_turn ON journal (turn)")
    db.execute(
        f"CREATE TABLE redo (pos INTEGER PRIMARY KEY, seq INTEGER NOT NULL CHECK (seq >= 1), {_EVENT_COLUMNS})"
    )
    db.execute(
        "CREATE TABLE snapshots ("
        " seq INTEGER PRIMARY KEY REFERENCES journal (seq) ON DELETE CASCADE,"
        " turn INTEGER NOT NULL, battle TEXT NOT NULL, dice_drawn INTEGER NOT NULL)"
    )
    db["meta"].upsert({"key": "schema_version", "value": "1"}, pk="key")


@migrations(name="0002_undo_steps")
def _undo_steps(db: Database) -> None:
    db.execute(
        "CREATE TABLE steps (seq INTEGER PRIMARY KEY CHECK (seq >= 1),"
        " first INTEGER NOT NULL CHECK (first >= 1 AND first <= seq))"
    )
    db["meta"].upsert({"key": "schema_version", "value": "2"}, pk="key")


@migrations(name="0003_hash_chain")
def _hash_chain(db: Database) -> None:
    """Each journal entry (and each undone one) gets the hash of itself and of the entry before
    it, chained from a hash of the dice seed, the starting battle and the rule tables, so that
    ``brigadier verify`` finds any entry changed after it was written."""
    db.execute("ALTER TABLE journal ADD COLUMN hash TEXT")
    db.execute("ALTER TABLE redo ADD COLUMN hash TEXT")
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    row = db.execute("SELECT battle FROM scenario WHERE id = 1").fetchone()
    tables = db.execute("SELECT key, value FROM rule_tables").fetchall()
    head = chain_start(str(meta.get("dice_seed", "")), row[0] if row else "", [tuple(t) for t in tables])
    db["meta"].upsert({"key": CHAIN_START, "value": head}, pk="key")
    for table, order in (("journal", "seq"), ("redo", "pos DESC")):
        cur = db.execute(f"SELECT rowid AS brigadier_rowid, * FROM {table} ORDER BY {order}")
        cols = [d[0] for d in cur.description]
        for r in cur.fetchall():
            entry = dict(zip(cols, r, strict=True))
            head = entry_hash(head, entry)
            db.execute(f"UPDATE {table} SET hash = ? WHERE rowid = ?", (head, entry["brigadier_rowid"]))
    db["meta"].upsert({"key": "schema_version", "value": "3"}, pk="key")


@migrations(name="0004_turn_totals")
def _turn_totals(db: Database) -> None:
    # the totals of the turns ended before this format are not written: they are read from the
    # journal when asked for (storage.totals)
    db.execute(
        "CREATE TABLE turn_totals ("
        " seq INTEGER PRIMARY KEY REFERENCES journal (seq) ON DELETE CASCADE,"
        " turn INTEGER NOT NULL, totals TEXT NOT NULL)"
    )
    db["meta"].upsert({"key": "schema_version", "value": "4"}, pk="key")


@migrations(name="0005_chain_end")
def _chain_end(db: Database) -> None:
    """The chain's end is kept in ``meta``: how many entries it holds and the hash of the last,
    so that ``brigadier verify`` sees entries cut off the end of the journal (or the whole
    journal deleted), which a chain worked out from what is left would not."""
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    n = db.execute("SELECT (SELECT count(*) FROM journal) + (SELECT count(*) FROM redo)").fetchone()[0]
    last = db.execute("SELECT hash FROM redo ORDER BY pos ASC LIMIT 1").fetchone()
    if last is None:
        last = db.execute("SELECT hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
    end = last[0] if last is not None else meta.get(CHAIN_START)
    db["meta"].upsert({"key": CHAIN_END, "value": chain_end_text(n, str(end))}, pk="key")
    db["meta"].upsert({"key": "schema_version", "value": "5"}, pk="key")


@migrations(name="0006_sight")
def _sight(db: Database) -> None:
    # a game begun before this format keeps no sight: what its sides saw is worked out from the
    # journal when asked (storage.sight_ledger), as before
    db.execute(
        "CREATE TABLE sight (seq INTEGER PRIMARY KEY CHECK (seq >= 0), hash TEXT,"
        " seers TEXT NOT NULL, point TEXT)"
    )
    db["meta"].upsert({"key": "schema_version", "value": "6"}, pk="key")


assert len(migrations._migrations) == SCHEMA_VERSION, "SCHEMA_VERSION must match the migrations"
assert tuple(m.name for m in migrations._migrations) == MIGRATION_NAMES, "storage.schema names the migrations"


def apply(conn: sqlite3.Connection) -> None:
    """Apply the migrations a save on ``conn`` has not had yet."""
    db = Database(conn, execute_plugins=False)
    migrations.apply(db)
    # every migration is applied now: the save is of the newest format, whichever were pending
    with db.atomic():
        db["meta"].upsert({"key": "schema_version", "value": str(SCHEMA_VERSION)}, pk="key")
