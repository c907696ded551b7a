"""What the window loads a moment after it is first shown, so that the first action waits for nothing.

The window shows without geometry (shapely, numpy), the rules of movement and sight, sqlite-utils
or the play flow: :data:`WARM_UP_MODULES` and the rules' actions are imported
:data:`WARM_UP_AFTER_MS` after it is first shown, one step at a time (:func:`warm_up_steps`),
letting the umpire's clicks and its painting in between (:class:`gui.window_docks.WindowDocks`).
:func:`warm_up` runs every step at once (for the benchmarks).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

#: How long after the window is first shown the libraries of play are loaded (:func:`warm_up`):
#: time enough for the window's first frame to be on screen.
WARM_UP_AFTER_MS = 200

#: What the first action needs that the first window does not: geometry (shapely, numpy), the
#: rules of movement and sight, the saving of a new game (sqlite-utils) and the play flow.
WARM_UP_MODULES = (
    "shapely",
    "numpy.ma",  # numpy's unique() loads it when first called (in a line of sight): 30 ms
    "sqlite_utils",
    "storage.migrations",
    "rules.battlefield.field",
    "rules.reactions.triggers",
    "gui.play",
)


def warm_up_steps() -> list[Callable[[], object]]:
    """The steps of :func:`warm_up`, each a few hundredths of a second at most (making the list
    imports nothing)."""
    import importlib

    steps: list[Callable[[], object]] = [partial(importlib.import_module, m) for m in WARM_UP_MODULES]
    # every action type, listed and registered in one place, as a save's reader needs them
    return [*steps, partial(importlib.import_module, "rules.actions")]


def warm_up() -> None:
    """Import :data:`WARM_UP_MODULES` and the rules' actions, so that the first drag or action,
    a moment after the window is shown, does not wait a third of a second for them. The window
    runs these steps one at a time, letting the umpire's clicks and its painting in between."""
    for step in warm_up_steps():
        step()
