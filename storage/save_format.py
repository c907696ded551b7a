"""What both the schema and its migrations know of a save: the application it belongs to, the
version of its layout, and the columns of a journal entry.

The layout itself is described in :mod:`storage.schema`; the migrations that build it are in
:mod:`storage.migrations`. Both import from here, and neither imports the other at load time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

APP_ID = "brigadier"
SCHEMA_VERSION = 4

_EVENT_COLUMNS = """
    turn INTEGER NOT NULL,
    side TEXT NOT NULL,
    phase TEXT NOT NULL,
    type TEXT NOT NULL,
    action TEXT NOT NULL,
    rolls TEXT NOT NULL,
    steps TEXT NOT NULL,
    changes TEXT NOT NULL,
    summary TEXT NOT NULL,
    created_at TEXT NOT NULL,
    dice_before INTEGER NOT NULL,
    dice_after INTEGER NOT NULL
"""

EVENT_COLUMNS = (
    "seq",
    "turn",
    "side",
    "phase",
    "type",
    "action",
    "rolls",
    "steps",
    "changes",
    "summary",
    "created_at",
    "dice_before",
    "dice_after",
)


#: The ``meta`` key of the hash the journal's chain starts from (from format 3).
CHAIN_START = "chain_start"


def chain_start(dice_seed: str, battle: str, tables: Iterable[tuple[str, str]]) -> str:
    """The hash a game's journal chains from: of its dice seed, its starting battle and its rule
    tables, as the save keeps them (JSON text). Changing any of them breaks the chain."""
    h = hashlib.sha256(b"brigadier journal\n")
    h.update(
        json.dumps([dice_seed, battle, sorted(tables)], ensure_ascii=False).encode("utf-8", "surrogatepass")
    )
    return h.hexdigest()


def entry_hash(previous: str, row: Mapping[str, Any]) -> str:
    """The hash of a journal entry: of the entry before it and of every column of this one (its
    action, dice, log lines, changes, summary, time and dice counts), so that a change to any of
    them, or to any entry before it, no longer matches (``brigadier verify``)."""
    values = [row[c] for c in EVENT_COLUMNS]
    h = hashlib.sha256(previous.encode("ascii"))
    h.update(json.dumps(values, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    return h.hexdigest()
