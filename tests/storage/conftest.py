"""Fixtures for the storage tests: a dice-rolling action and helpers to compare files."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rules.actions import Action, Resolved, action_type, resolver
from rules.battle.events import Step
from rules.battle.words import Marker


@action_type("storage_test_discipline_check")
@dataclass(frozen=True)
class DisciplineCheck(Action):
    """A discipline check that Disorders the unit when it fails: an action that rolls dice."""

    unit_id: str


@resolver(DisciplineCheck)
def _resolve_check(battle, a, dice, tables):
    u = battle.unit(a.unit_id)
    need = tables.discipline(u.quality.value)
    face = dice.roll_one("discipline check")
    passed = face >= need.value
    after = u if passed else u.with_markers(add=[Marker.DISORDER])
    text = f"{u.name} discipline check {'passed' if passed else 'failed'}"
    return Resolved(battle.with_unit(after), [Step(text, rule=need.rule, dice=(face,))], text)


def fingerprint(path: Path) -> tuple[bytes, int]:
    """The bytes and modification time of a file, to prove it was not touched."""
    return Path(path).read_bytes(), os.stat(path).st_mtime_ns


def as_format(conn, n: int) -> None:
    """Make the save on ``conn`` as a Brigadier of save format ``n`` kept it: without what each
    later format brought (format 6 the sight kept, 5 the end of the hash chain, 4 the turn totals, 3 the hash chain,
    2 the steps of Undo), nor the record of the migrations that brought them. A test that edits
    its journal to stand for an older program's entries then has a save that is brought up to
    date when opened (its chain worked out from the journal as it stands)."""
    if n < 6:
        conn.execute("DROP TABLE sight")
    if n < 5:
        conn.execute("DELETE FROM meta WHERE key = 'chain_end'")
    if n < 4:
        conn.execute("DROP TABLE turn_totals")
    if n < 3:
        conn.execute("ALTER TABLE journal DROP COLUMN hash")
        conn.execute("ALTER TABLE redo DROP COLUMN hash")
        conn.execute("DELETE FROM meta WHERE key = 'chain_start'")
    if n < 2:
        conn.execute("DROP TABLE steps")
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(n),))
    from storage.schema import MIGRATION_NAMES

    later = MIGRATION_NAMES[n:]
    conn.execute(f"DELETE FROM _sqlite_migrations WHERE name IN ({', '.join('?' * len(later))})", later)


def as_old_format(path, n: int) -> None:
    """Make the save at ``path`` one a Brigadier of save format ``n`` wrote (:func:`as_format`)."""
    import sqlite3

    conn = sqlite3.connect(path)
    with conn:
        as_format(conn, n)
    conn.close()


def as_format_2(conn) -> None:
    """The save on ``conn`` as format 2 kept it, before the journal's hash chain (:func:`as_format`)."""
    as_format(conn, 2)
