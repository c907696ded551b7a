"""Work that makes many objects and no reference cycles, run with Python's cycle collector paused.

The collector runs after every 700 or so container objects made and walks the young objects
element by element. Two kinds of work suffer from it:

* sight among many units, worked out in a few numpy and shapely calls over every line at once,
  holds arrays of shapely lines (object arrays, which the collector walks): the more lines a
  batch measures, the more runs and the longer each, a cost that grew faster than the lines (at
  1,000 units in contact, about a sixth of sight from scratch);
* reading a long journal makes dozens of small objects an entry that all live on: each run walks
  those read so far again, so that an entry costs more the longer the journal
  (:func:`storage.journal.bulk_read`).

Neither makes reference cycles, so nothing is lost by pausing the collector while they run: it
runs as usual afterwards, and a caller that had paused it keeps it paused.

>>> import gc
>>> @paused_collector
... def f():
...     return gc.isenabled()
>>> f(), gc.isenabled()
(False, True)
>>> with collector_paused():
...     with collector_paused():
...         pass
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector paused for the ``with`` block, and left as it was found after it
    (also on an exception)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def paused_collector(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` run with the cycle collector paused, as in :func:`collector_paused`."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        # paused before anything is made (a with-block's own objects could start a run)
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()

    return run
