"""The layout of a saved game: one SQLite file per game.

Tables
------

``meta``
    ``key``/``value`` pairs: ``app`` (always ``brigadier``), ``schema_version``, ``app_version``,
    ``created`` (UTC, ISO 8601), ``name`` (the battle's name), ``dice_seed`` (JSON) and
    ``change_count`` (:data:`CHANGE_COUNT`): one more for every transaction that changes the game
    (an action, an undo, a redo), so that a copy of Brigadier that has the save open notices any
    change another copy made, and writes nothing over it. A save written before it was kept
    counts from 0.
``scenario``
    One row: the starting :class:`~rules.battle.battle.Battle` as JSON.
``rule_tables``
    The rule tables in force when the game was created: ``key`` and its JSON ``value``.
``journal``
    One row per action, in order: ``seq`` (1, 2, 3 ...), the ``turn``, ``side`` and ``phase`` it was
    taken in, the ``action`` (JSON with its ``type``), the dice ``rolls``, the log ``steps``, the
    ``changes`` it made (JSON of :class:`rules.battle.events.Changes`), the ``summary`` line,
    ``created_at`` and the seeded dice's count of dice drawn before and after it.
``redo``
    Events that were undone and can be redone, with the same columns as the journal and ``pos``,
    their order of undoing. A new action empties it.
``snapshots``
    The full battle after event ``seq`` (and the dice drawn by then), taken when a turn begins and
    every :data:`SNAPSHOT_EVERY` events, so a game opens by loading the latest snapshot and applying
    only the events after it. A snapshot goes with its event (``ON DELETE CASCADE``).

``steps`` (from format 2)
    Which journal entries make one step of the umpire's Undo (a march through its Trigger
    Windows, a group moved together): ``seq`` and ``first``, the first entry of its step. An
    entry without a row is a step of its own. Rows stay while their entries are undone, so that
    Redo puts a whole step back; a new action drops the rows of the entries it replaces.

``hash`` (journal and redo, from format 3)
    Each entry's hash: of the entry before it and of all its own columns, chained from
    ``chain_start`` in ``meta`` (a hash of the dice seed, the starting battle and the rule
    tables). ``brigadier verify`` works the chain out again: an entry changed after it was
    written (its dice, its log lines, its summary), or a changed seed, no longer matches.

``chain_end`` in ``meta`` (from format 5)
    How many entries the chain holds (the journal's and the undone ones) and the hash of the last
    of them, written with every action that adds to the chain or forgets undone entries (undo and
    redo move entries between the journal and ``redo`` and leave it as it is). ``brigadier
    verify`` checks that the chain reaches it: entries cut off the end of the journal, or the
    whole journal deleted, are found.

``turn_totals`` (from format 4)
    The totals of a game turn (each unit's stands, side, brigade, name and markers at its end, the
    brigades then in the battle, the stands each side lost in it; :class:`storage.totals.TurnTotals`
    as JSON), written with the entry that ended the turn (``seq``, the last entry filed in
    ``turn``) and taken away with it (``ON DELETE CASCADE``), so that the course of a long battle
    is read without replaying it. Derived from the journal: a turn without a row (ended before
    format 4) is read from the journal.

``sight`` (from format 6)
    What each side saw after each journal entry (:mod:`storage.sight_ledger`): ``seq`` (0: the
    start), the entry's chain ``hash`` (the chain's start for 0), ``seers`` (JSON: the units whose
    spotting the entry changed, each with the enemy units that see it now) and, at the start and
    with each snapshot, a ``point`` (JSON: every unit's seers and what each side knows of the
    enemy it no longer sees). Written with the entry; a row whose hash is not its entry's is not
    used. Rows stay while their entries are undone (Redo gives them back) and go when a new action
    replaces them. Derived from the journal: a game begun before format 6 has none, and what its
    sides saw is worked out from the journal.

Schema versions are applied with ``sqlite_utils.Migrations`` (in :mod:`storage.migrations`, imported
only when a file is created or brought up to date); each migration also writes the
``schema_version`` it leaves the file at into ``meta``. A file whose version is newer than
:data:`SCHEMA_VERSION` was written by a newer Brigadier and is not opened. The application id, the
schema version and the journal's columns are kept in :mod:`storage.save_format`, which the
migrations import too.
"""

from __future__ import annotations

import sqlite3

from storage.save_format import (
    _EVENT_COLUMNS,
    APP_ID,
    CHAIN_END,
    CHAIN_START,
    EVENT_COLUMNS,
    MIGRATION_NAMES,
    SCHEMA_VERSION,
    chain_end_text,
    chain_start,
    entry_hash,
    parse_chain_end,
)

SNAPSHOT_EVERY = 200

#: A row of the ``sight`` table (format 6).
INSERT_SIGHT = "INSERT OR REPLACE INTO sight (seq, hash, seers, point) VALUES (?, ?, ?, ?)"

#: The ``meta`` key of the save's change counter.
CHANGE_COUNT = "change_count"

TABLES = ("meta", "scenario", "rule_tables", "journal", "redo", "snapshots")
#: Tables of later formats, with the format that brought each.
TABLES_SINCE = {"steps": 2, "turn_totals": 4, "sight": 6}
#: Columns of later formats, with the format that brought each.
COLUMNS_SINCE = {("journal", "hash"): 3, ("redo", "hash"): 3}


__all__ = [
    "APP_ID",
    "CHAIN_END",
    "CHAIN_START",
    "CHANGE_COUNT",
    "INSERT_SIGHT",
    "EVENT_COLUMNS",
    "MIGRATION_NAMES",
    "SCHEMA_VERSION",
    "SNAPSHOT_EVERY",
    "TABLES",
    "TABLES_SINCE",
    "_EVENT_COLUMNS",
    "chain_end_text",
    "chain_start",
    "parse_chain_end",
    "entry_hash",
    "configure",
    "migrate",
]


def configure(conn: sqlite3.Connection, synchronous: str = "FULL") -> None:
    """Connection settings for a save: WAL journal, the given ``PRAGMA synchronous`` (FULL: a
    committed event survives a power cut), foreign keys enforced, and triggers recursive as
    sqlite-utils sets them."""
    if conn.in_transaction:
        conn.commit()
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA recursive_triggers=on")


def migrate(conn: sqlite3.Connection) -> None:
    """Bring a save's schema up to :data:`SCHEMA_VERSION`."""
    from storage.migrations import apply

    apply(conn)
