"""The installed Qt binding must keep Python's reference counts straight.

PySide6-Essentials 6.12.0 releases ``None`` once too often on QGraphicsItem.setSelected and
setVisible; on Python 3.11 the interpreter aborts after a few thousand such calls, in the middle
of a game. pyproject.toml excludes that release; this test says so plainly if it comes back.
"""

from __future__ import annotations

import gc
import sys

from PySide6.QtWidgets import QGraphicsRectItem, QGraphicsScene


def test_graphics_items_do_not_release_none(qapp):
    scene = QGraphicsScene()
    items = [QGraphicsRectItem(0, 0, 1, 1) for _ in range(200)]
    for it in items:
        scene.addItem(it)
    gc.collect()
    before = sys.getrefcount(None)
    for it in items:
        it.setSelected(True)
        it.setVisible(False)
        it.setVisible(True)
    gc.collect()
    lost = before - sys.getrefcount(None)
    assert lost < 100, (
        f"this PySide6 release over-releases None ({lost} references lost); install another release"
    )
