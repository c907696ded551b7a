"""What both the schema and its migrations know of a save: the application it belongs to, the
version of its layout, and the columns of a journal entry.

The layout itself is described in :mod:`storage.schema`; the migrations that build it are in
:mod:`storage.migrations`. Both import from here, and neither imports the other at load time.
"""

from __future__ import annotations

APP_ID = "brigadier"
SCHEMA_VERSION = 2

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
