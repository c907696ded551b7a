"""What both the schema and its migrations know of a save: the application it belongs to, the
version of its layout, and the columns of a journal entry.

The layout itself is described in :mod:`storage.schema`; the migrations that build it are in
:mod:`storage.migrations`. Both import from here, and neither imports the other at load time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

APP_ID = "brigadier"
#: The first bytes of every SQLite database, and so of every save.
SQLITE_HEADER = b"SQLite format 3\x00"
SCHEMA_VERSION = 6
#: The migrations (:mod:`storage.migrations`) that make each format, in order: format N is the
#: save once the first N are applied.
MIGRATION_NAMES = (
    "0001_initial",
    "0002_undo_steps",
    "0003_hash_chain",
    "0004_turn_totals",
    "0005_chain_end",
    "0006_sight",
)

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


def _encoder(item_separator: str, key_separator: str, allow_nan: bool) -> Callable[[Any], str]:
    """``json.dumps`` with ``ensure_ascii=False`` and these separators, its encoder made once.

    ``json.dumps`` makes a new encoder at every call, a few microseconds each, and an action saved
    writes five JSON texts. The text written is the same, character for character; only a value
    that holds itself is not looked for (it fails with ``RecursionError`` rather than
    ``ValueError``): what is written here is made fresh from the rules' frozen records."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # a Python without json's C accelerator
        return json.JSONEncoder(
            ensure_ascii=False, separators=(item_separator, key_separator), allow_nan=allow_nan
        ).encode
    encode = make(
        None,  # no check for a value that holds itself
        json.JSONEncoder().default,  # what cannot be written raises TypeError, as json.dumps does
        json.encoder.encode_basestring,  # text as it is (ensure_ascii=False)
        None,  # no indent
        key_separator,
        item_separator,
        False,  # keys in their order
        False,  # keys JSON cannot hold refused, not skipped
        allow_nan,
    )

    def dumps(value: Any) -> str:
        return "".join(encode(value, 0))

    return dumps


#: A save's JSON columns: compact, NaN and Infinity refused
#: (``json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)``).
dumps_compact = _encoder(",", ":", False)
#: The text a journal entry's hash is taken of (``json.dumps(value, ensure_ascii=False)``).
dumps_for_hash = _encoder(", ", ": ", True)


#: The ``meta`` key of the hash the journal's chain starts from (from format 3).
CHAIN_START = "chain_start"
#: The ``meta`` key of the chain's end (from format 5): ``"N:HASH"``, the number of entries the
#: chain holds (the journal's and the undone ones') and the hash of the last of them (the hash
#: it starts from when it holds none). Entries cut off the end of the journal, or the whole
#: journal deleted, no longer reach it (``brigadier verify``).
CHAIN_END = "chain_end"


def chain_end_text(count: int, last_hash: str) -> str:
    """The ``meta`` value of :data:`CHAIN_END` for a chain of ``count`` entries ending in ``last_hash``."""
    return f"{count}:{last_hash}"


def parse_chain_end(text: object) -> tuple[int, str] | None:
    """``(count, hash)`` of a :data:`CHAIN_END` value, or None if it is not one."""
    if not isinstance(text, str):
        return None
    count, sep, last = text.partition(":")
    if not sep or not count.isdigit() or len(count) > 18 or len(last) != 64:
        return None
    if any(c not in "0123456789abcdef" for c in last):
        return None
    return int(count), last


def chain_start(dice_seed: str, battle: str, tables: Iterable[tuple[str, str]]) -> str:
    """The hash a game's journal chains from: of its dice seed, its starting battle and its rule
    tables, as the save keeps them (JSON text). Changing any of them breaks the chain."""
    h = hashlib.sha256(b"brigadier journal\n")
    h.update(dumps_for_hash([dice_seed, battle, sorted(tables)]).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def entry_hash(previous: str, row: Mapping[str, Any]) -> str:
    """The hash of a journal entry: of the entry before it and of every column of this one (its
    action, dice, log lines, changes, summary, time and dice counts), so that a change to any of
    them, or to any entry before it, no longer matches (``brigadier verify``)."""
    values = [row[c] for c in EVENT_COLUMNS]
    h = hashlib.sha256(previous.encode("ascii"))
    h.update(dumps_for_hash(values).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


#: The files SQLite keeps beside a save ``g.sqlite``: ``g.sqlite-wal``, ``g.sqlite-shm`` and
#: ``g.sqlite-journal``. A write to ``g.sqlite`` removes or replaces them.
COMPANION_SUFFIXES = ("-wal", "-shm", "-journal")


def companion_problem(name: str) -> str | None:
    """Why a save cannot be given the file name ``name`` (it is named as SQLite names a file it
    keeps beside a save, and removes), or None."""
    for suffix in COMPANION_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            kept = {"-wal": "unwritten changes", "-shm": "shared memory", "-journal": "rollback journal"}[
                suffix
            ]
            return (
                f"a save cannot be named {name}: SQLite keeps the {kept} of the save "
                f"{name[: -len(suffix)]} in a file of that name, and removes it; choose a name that "
                f"does not end in {suffix}"
            )
    return None
