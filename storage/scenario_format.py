"""A scenario file's format as it is read: its sections and the keys of each, where each value is
in the text (so that a mistake names its line), and the checks of one value (text, a whole
number, a number of inches, a choice of words) that the reader of each section uses
(:mod:`storage.scenario_parsing`); the keys are those :mod:`storage.scenario_writing` writes.

A mistake raises :class:`~storage.errors.ScenarioError` naming the file, the line and the problem.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules import limits
from rules.battle.unit import UNIT_KEYS as UNIT_KEYS  # a unit's keys: its fields
from rules.errors import InvariantError
from storage.errors import ScenarioError

SECTIONS = ("battle", "sides", "brigades", "units", "zones", "terrain")
BATTLE_KEYS = (
    "name",
    "notes",
    "table_width_in",
    "table_height_in",
    "turn",
    "phase",
    "active_side",
    "first_side",
    "seed",
    "records",
)
SIDE_KEYS = ("id", "name", "colour")
BRIGADE_KEYS = (
    "id",
    "name",
    "side",
    "brigadier",
    "attached_to",
    "brigadier_status",
    "staff_pips",
    "staff_pips_reserved",
    "state",
)
TERRAIN_KEYS = ("id", "type", "name", "points", "level", "crest", "structural_hits", "width_in", "props")


# --------------------------------------------------------------------------------------------
# Finding the line of a value
# --------------------------------------------------------------------------------------------


@dataclass
class _Lines:
    """Where each section, each entry of an array of tables and each key is in the text."""

    headers: dict[tuple[str, int], int] = field(default_factory=dict)
    keys: dict[tuple[str, int, str], int] = field(default_factory=dict)
    top: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, text: str) -> _Lines:
        out = cls()
        counts: dict[str, int] = {}
        current: tuple[str, int] | None = None
        for n, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            m = re.match(r"^\[\[\s*([A-Za-z0-9_.-]+)\s*\]\]", line)
            if m:
                name = m.group(1)
                i = counts.get(name, 0)
                counts[name] = i + 1
                current = (name, i)
                out.headers[current] = n
                continue
            m = re.match(r"^\[\s*([A-Za-z0-9_.-]+)\s*\]", line)
            if m:
                current = (m.group(1), 0)
                out.headers.setdefault(current, n)
                continue
            m = re.match(r"^([A-Za-z0-9_\"'-]+)\s*=", line)
            if m:
                key = m.group(1).strip("\"'")
                if current is None:
                    out.top.setdefault(key, n)
                else:
                    out.keys.setdefault((*current, key), n)
        return out

    def at(self, section: str, index: int = 0, key: str | None = None) -> int | None:
        if key is not None and (section, index, key) in self.keys:
            return self.keys[(section, index, key)]
        if (section, index) in self.headers:
            return self.headers[(section, index)]
        if key is not None and key in self.top:
            return self.top[key]
        return self.top.get(section)


class _Reader:
    def __init__(self, text: str, source: str):
        self.text = text
        self.source = source
        self.lines = _Lines.of(text)

    def fail(self, message: str, section: str, index: int = 0, key: str | None = None) -> ScenarioError:
        return ScenarioError(message, self.source, self.lines.at(section, index, key))


def _what(section: str, index: int, entry: Mapping[str, Any]) -> str:
    singular = {"sides": "side", "brigades": "brigade", "units": "unit", "terrain": "terrain feature"}
    label = entry.get("name") or entry.get("id")
    return (
        f"{singular.get(section, section)} {label!r}"
        if label
        else f"{singular.get(section, section)} {index + 1}"
    )


def _choices(enum: Any) -> str:
    return ", ".join(m.value for m in enum)


# --------------------------------------------------------------------------------------------
# Checking a value
# --------------------------------------------------------------------------------------------


def _list(r: _Reader, data: Mapping[str, Any], section: str) -> list[Mapping[str, Any]]:
    items = data.get(section, [])
    if not isinstance(items, list) or not all(isinstance(x, Mapping) for x in items):
        raise r.fail(f"'{section}' must be written as [[{section}]] entries", section)
    return items


def _no_unknown(
    r: _Reader, section: str, i: int, entry: Mapping[str, Any], allowed: tuple[str, ...], what: str
) -> None:
    for k in entry:
        if k not in allowed:
            raise r.fail(
                f"{what} has no setting '{k}' (a misspelling?); use {', '.join(allowed)}", section, i, k
            )


def _required(r: _Reader, section: str, i: int, entry: Mapping[str, Any], key: str) -> str:
    v = entry.get(key)
    if v is None:
        raise r.fail(f"{_what(section, i, entry)} needs '{key}'", section, i)
    if not isinstance(v, str) or not v.strip():
        raise r.fail(
            f"{_what(section, i, entry)}: '{key}' must be text, not {limits._show(v)}", section, i, key
        )
    if len(v) > limits.MAX_TEXT:
        raise r.fail(
            f"{_what(section, i, entry)}: '{key}' is longer than {limits.MAX_TEXT:,} characters",
            section,
            i,
            key,
        )
    return v.strip()


def _whole(
    r: _Reader,
    section: str,
    i: int,
    entry: Mapping[str, Any],
    key: str,
    default: int,
    minimum: int = 0,
    rng: limits.Range = limits.COUNT,
) -> int:
    v = entry.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int):
        raise r.fail(
            f"{_what(section, i, entry)}: {key} must be a whole number, not {limits._show(v)}",
            section,
            i,
            key,
        )
    if v < minimum:
        what = "negative" if minimum == 0 else f"less than {minimum}"
        raise r.fail(
            f"{_what(section, i, entry)}: {key} cannot be {what} ({limits._show(v)})", section, i, key
        )
    if v > rng.hi:
        raise r.fail(
            f"{_what(section, i, entry)}: {rng.what} must be {rng.text()}, not {limits._show(v)}",
            section,
            i,
            key,
        )
    return v


def _num(
    r: _Reader,
    section: str,
    i: int,
    entry: Mapping[str, Any],
    key: str,
    default: float,
    rng: limits.Range = limits.POSITION_IN,
) -> float:
    v = entry.get(key, default)
    try:
        return limits.number(v, rng, key)
    except InvariantError as exc:
        raise r.fail(f"{_what(section, i, entry)}: {exc}", section, i, key) from None


def _positive(r: _Reader, settings: Mapping[str, Any], key: str, default: float) -> float:
    v = settings.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v not in limits.TABLE_IN:
        raise r.fail(
            f"{key} must be a number of inches, {limits.TABLE_IN.text()}, not {limits._show(v)}",
            "battle",
            0,
            key,
        )
    return float(v)


def _enum(
    r: _Reader, section: str, i: int, entry: Mapping[str, Any], key: str, enum: Any, default: Any, what: str
) -> Any:
    v = entry.get(key, default)
    try:
        return enum.parse(v)
    except InvariantError:
        raise r.fail(
            f"{_what(section, i, entry)}: unknown {what} {v!r}; use one of {_choices(enum)}", section, i, key
        ) from None
