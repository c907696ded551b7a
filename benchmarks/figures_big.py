"""The big table's map: the bundled Gettysburg battle (150 regiments and batteries) as a club
sees it, through the window a laptop shows.

* ``fit_render``: the map of the Gettysburg battle drawn cold at fit-to-view in the map's part of
  the main window on a 1366 x 768 screen (a new zoom each time: the items' pictures made again),
  against a bare ``QGraphicsScene`` of the same items drawn cold
  (:func:`benchmarks.figures_map.bare_scene`: with a plain box and text for each unit's health
  glyph and a line for each name's leader). Target: at most 3 times the bare scene. Beside it,
  for information, the placing of the names for that zoom.

One action in the painted window on the big table is the ``action`` figure: the club game is
played on Gettysburg (:func:`benchmarks.games.club_battle`).
``benchmarks/run.py`` runs it with the others (``--only fit_render``).
"""

from __future__ import annotations

import time

from benchmarks.figures_map import RENDER_COLD_TARGET_RATIO, _render, bare_scene
from benchmarks.measure import Figure, Memory, interleaved_timers, median_time, ratio_figure

#: The bundled scenario of the big table.
BIG_SCENARIO = "gettysburg"
#: The map's part of the main window at fit-to-view on a 1366 x 768 screen (pixels).
FIT_SIZE = (880, 620)


def fit_render_times(repeat: int) -> dict[str, float]:
    """The Gettysburg map at fit-to-view: its names placed for that zoom, and drawn cold (a new
    zoom each time), against the bare scene of the same items drawn cold."""
    from gui.app import application
    from gui.canvas import BattlefieldScene
    from gui.controller import GameController
    from gui.export import _Drawn
    from rules.tables import load_tables
    from storage.scenario import load_bundled

    app = application()
    Memory.reset()
    battle = load_bundled(BIG_SCENARIO)
    controller = GameController(_Drawn(battle, load_tables()))
    scene = BattlefieldScene(controller)
    scene.set_battle(battle)
    rect = scene.sceneRect()
    w, h = FIT_SIZE
    scale = min(w / rect.width(), h / rect.height())
    step = {"k": 0}

    def place() -> None:
        step["k"] = (step["k"] + 1) % 40
        scene.layout_labels(scale * (1 - 0.001 * step["k"]))  # a zoom a hair different each time

    placing = median_time(place, max(3, repeat))
    scene.layout_labels(scale)
    bare = bare_scene(scene)

    def size() -> tuple[int, int]:
        return w - step["k"] - 1, h - step["k"] - 1

    def cold_app() -> float:
        # a new zoom each time: the picture a pixel or two smaller
        step["k"] = (step["k"] + 1) % 40
        s = size()
        t = time.perf_counter()
        _render(scene, rect, s)
        return time.perf_counter() - t

    def cold_bare() -> float:
        s = size()
        t = time.perf_counter()
        _render(bare, rect, s)
        return time.perf_counter() - t

    cold, cold_b = interleaved_timers([cold_app, cold_bare], repeat)
    peak = Memory.peak_mb()
    shown = sum(1 for it in scene.items() if it.isVisible())
    controller.close()
    scene.deleteLater()
    bare.deleteLater()
    app.processEvents()
    return {"cold": cold, "cold_bare": cold_b, "place": placing, "peak": peak or 0.0, "shown": shown}


def figure_fit_render(repeat: int) -> list[Figure]:
    r = fit_render_times(repeat)
    w, h = FIT_SIZE
    return [
        ratio_figure(
            f"draw the Gettysburg map cold at fit-to-view ({r['shown']} items shown, {w}x{h})",
            r["cold"],
            r["cold_bare"],
            RENDER_COLD_TARGET_RATIO,
            "bare scene, cold",
            r["peak"],
        ),
        Figure(
            "  ... its 150 units' names placed for that zoom",
            r["place"],
            None,
            "(shown for information)",
            True,
            r["peak"],
        ),
    ]
