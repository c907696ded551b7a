"""Fixtures for the storage tests: a dice-rolling action and helpers to compare files."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from rules.actions import Action, Resolved, action_type, resolver
from rules.events import Step
from rules.model import Marker


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


@pytest.fixture
def demo_battle():
    from storage.scenario import load_demo

    return load_demo()


def as_format_2(conn) -> None:
    """Make the save on ``conn`` as a Brigadier of save format 2 kept it, before the journal's hash
    chain: a test that edits its journal to stand for an older program's entries then has a save
    that is brought up to date (its chain worked out from the journal as it stands) when opened."""
    conn.execute("ALTER TABLE journal DROP COLUMN hash")
    conn.execute("ALTER TABLE redo DROP COLUMN hash")
    conn.execute("DELETE FROM meta WHERE key = 'chain_start'")
    conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = '0003_hash_chain'")
