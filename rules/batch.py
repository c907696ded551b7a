"""Vectorised batches of work run with Python's cycle collector paused.

Sight among many units is worked out in a few numpy and shapely calls over every line at once,
which hold arrays of shapely geometries (object arrays, which the cycle collector traverses). The
collector runs after every 700 or so container objects made, and each run walks the young
objects, such arrays among them, element by element: the more lines a batch measures, the more
runs and the longer each, a cost that grew faster than the lines (at 1,000 units in contact,
about a sixth of sight from scratch). These batches make no reference cycles, so nothing is lost
by pausing the collector while they run: it runs as usual afterwards.

>>> import gc
>>> @paused_collector
... def f():
...     return gc.isenabled()
>>> f(), gc.isenabled()
(False, True)
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def paused_collector(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` run with the cycle collector paused (restored as it was, also on an exception)."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()

    return run
