"""What Brigadier asks of Qt before it makes its application.

Qt's raster engine hands every fill of 96 spans or more (a scroll bar's groove, a leader line on
the map, a tall rectangle) to a pool of threads and waits for them to finish. The repaints of
play are small (a row of the log, a unit and its name, a scroll bar), and for them the hand-off
costs more than the fill: on a two-core machine a scroll bar's repaint took twice as long with
the pool as without it. Qt's own switch, ``QT_NO_GUI_THREADPOOL``, keeps the fills on the thread
that paints. It is read once, when Qt first fills in parallel, so it is set before the first
paint. ``BRIGADIER_QT_FILL_THREADS=1`` leaves Qt's pool on.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

#: Qt's switch that keeps its raster fills on the painting thread.
SERIAL_FILLS = "QT_NO_GUI_THREADPOOL"
#: Set to ``1``, Brigadier leaves Qt's pool of fill threads on.
KEEP_FILL_THREADS = "BRIGADIER_QT_FILL_THREADS"


def prepare(env: MutableMapping[str, str] | None = None) -> None:
    """Set what Brigadier asks of Qt in ``env`` (this process's environment, before the
    application is made; or a child's, which then runs with the same Qt)."""
    env = os.environ if env is None else env
    if env.get(KEEP_FILL_THREADS, "").strip() == "1":
        return
    env.setdefault(SERIAL_FILLS, "1")
