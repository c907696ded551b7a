"""The schema versions of a save, applied with ``sqlite_utils.Migrations``.

Imported only when a save is created or an older one is brought up to date, so that opening a
game and showing it does not wait for sqlite-utils. The layout is described in :mod:`storage.schema`.
"""

from __future__ import annotations

import sqlite3

from sqlite_utils import Database, Migrations

from storage.save_format import _EVENT_COLUMNS, APP_ID, SCHEMA_VERSION

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


assert len(migrations._migrations) == SCHEMA_VERSION, "SCHEMA_VERSION must match the migrations"


def apply(conn: sqlite3.Connection) -> None:
    """Apply the migrations a save on ``conn`` has not had yet."""
    migrations.apply(Database(conn, execute_plugins=False))
