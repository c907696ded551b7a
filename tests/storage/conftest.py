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
