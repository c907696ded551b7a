"""Where Brigadier keeps the umpire's files unless told otherwise."""

from __future__ import annotations

import os
from pathlib import Path


def saves_dir() -> Path:
    """Where new games are saved unless the umpire chooses: $BRIGADIER_SAVES_DIR, or ~/Brigadier."""
    d = os.environ.get("BRIGADIER_SAVES_DIR")
    p = Path(d) if d else Path.home() / "Brigadier"
    p.mkdir(parents=True, exist_ok=True)
    return p
