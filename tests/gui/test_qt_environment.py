"""Brigadier keeps Qt's raster fills on the thread that paints (``gui.qt_environment``): the small
repaints of play cost less without Qt's hand-off to a pool of fill threads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gui import qt_environment

ROOT = Path(__file__).resolve().parents[2]

# a process that starts Brigadier's application (the window's, or the one the command line's
# pictures make), paints what Qt fills in parallel (tall blended spans: a leader line, a scroll
# bar's groove) and says how many threads it then has
_PAINT_AND_COUNT = """
import os
from PySide6.QtCore import QLineF
from PySide6.QtGui import QColor, QImage, QPainter, QPen
{start}
img = QImage(400, 400, QImage.Format.Format_ARGB32_Premultiplied)
p = QPainter(img)
p.setRenderHint(QPainter.RenderHint.Antialiasing)
p.setPen(QPen(QColor(30, 30, 30, 200), 1.0))
for i in range(20):
    p.drawLine(QLineF(i, 0, i + 50, 390))
    p.fillRect(0, 0, 30 + i, 400, QColor(10 * i, 20, 30, 128))
p.end()
print(len(os.listdir("/proc/self/task")))
"""


WINDOW = "from gui.app import application; app = application()"
PICTURES = "from gui.export import ensure_application; app = ensure_application()"


def threads_after_painting(start: str = WINDOW, **extra: str) -> int:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in (qt_environment.SERIAL_FILLS, qt_environment.KEEP_FILL_THREADS)
    }
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT), **extra)
    out = subprocess.run(
        [sys.executable, "-c", _PAINT_AND_COUNT.format(start=start)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return int(out.stdout.split()[-1])


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts the threads of a Linux process")
@pytest.mark.parametrize("start", [WINDOW, PICTURES], ids=["window", "pictures"])
def test_the_application_paints_without_qts_pool_of_fill_threads(start):
    # asked to keep Qt's pool, the same painting starts Qt's fill threads: the count sees them
    assert threads_after_painting(start, **{qt_environment.KEEP_FILL_THREADS: "1"}) > 1
    # as Brigadier starts, the fills stay on the one thread that paints
    assert threads_after_painting(start) == 1


def test_the_switch_is_set_unless_the_umpire_set_it_or_asked_for_qts_pool():
    env: dict[str, str] = {}
    qt_environment.prepare(env)
    assert env == {qt_environment.SERIAL_FILLS: "1"}
    env = {qt_environment.SERIAL_FILLS: "yes"}
    qt_environment.prepare(env)
    assert env == {qt_environment.SERIAL_FILLS: "yes"}
    env = {qt_environment.KEEP_FILL_THREADS: "1"}
    qt_environment.prepare(env)
    assert qt_environment.SERIAL_FILLS not in env
