"""The timeline's figures (``python benchmarks/run.py --only timeline``), on the club game
(Gettysburg played 30 turns, 3,000 journal entries) in the painted window
(:class:`benchmarks.harness.PaintedWindow`):

* **seek**: the timeline's bar sent to a moment of the game (the window shows the battle after
  that entry, read only: the map, the order of battle, the inspector, the plots' cursor, the
  battle log's entry), until the window is painted; moments drawn at random over the whole
  journal, each asked once (cold: the battle of that moment is read from the nearest snapshot).
  Against ``Game.state_at`` of the same moments on a freshly opened game (each cold too): the
  least work that gives the battle of a past moment. Target: at most 3x.
* **drag**: the bar dragged along 120 entries of one turn, a slider position a frame, as a hand
  drags it; its figure is the median time from a position to the window painted with that
  moment, against the frame of a 60 Hz screen (16.7 ms), shown for information with the longest.
"""

from __future__ import annotations

import random
import statistics
import time

from benchmarks.measure import Figure, Memory, Saves, ratio_figure

SEEK_TARGET_RATIO = 3.0
SEEKS = 24
DRAG_ENTRIES = 120
FRAME_S = 1 / 60


def figure_timeline(repeat: int, saves: Saves) -> list[Figure]:
    from benchmarks.harness import PaintedWindow
    from storage.game import Game

    club = saves.club()
    Memory.reset()
    window = PaintedWindow(saves.copy(club, "timeline-window.sqlite"))
    last = window.controller.game.last_seq
    rng = random.Random(1863)
    seqs = rng.sample(range(1, last - 1), max(SEEKS, 2 * repeat))
    bar = window.window.timeline.bar
    prog = [window.time(lambda q=q: bar.seek(q)) for q in seqs]
    if window.controller.looking_back != seqs[-1]:
        raise RuntimeError("the timeline should be looking back at the last moment asked for")
    # a drag along one turn: a slider position, then whatever the window does until it is painted
    start = rng.randrange(1, last - DRAG_ENTRIES - 1)
    bar.now()
    window.settle()
    frames = []
    bar.slider.setSliderDown(True)
    for q in range(start, start + DRAG_ENTRIES):
        t0 = time.perf_counter()
        bar.slider.setValue(q)
        window.app.processEvents()  # the pending moment shown, and painted
        frames.append(time.perf_counter() - t0)
    bar.slider.setSliderDown(False)
    shown = window.controller.looking_back
    window.close()
    if shown != start + DRAG_ENTRIES - 1:
        raise RuntimeError(f"a drag should end on the last moment asked for, not {shown}")
    game = Game.open(saves.copy(club, "timeline-core.sqlite"))
    ref = []
    for q in seqs:
        t0 = time.perf_counter()
        game.state_at(q)
        ref.append(time.perf_counter() - t0)
    game.close()
    peak = Memory.peak_mb()
    drag = statistics.median(frames)
    return [
        ratio_figure(
            f"timeline: seek to a moment of the club game, painted ({len(seqs)} moments at random)",
            statistics.median(prog),
            statistics.median(ref),
            SEEK_TARGET_RATIO,
            "Game.state_at of the moment, cold",
            peak,
        ),
        Figure(
            f"  ... dragged along {DRAG_ENTRIES} entries, a moment a frame (median {drag * 1000:.0f} ms, "
            f"longest {max(frames) * 1000:.0f} ms; a 60 Hz frame is {FRAME_S * 1000:.1f} ms)",
            drag,
            FRAME_S,
            "(shown for information)",
            True,
            peak,
        ),
    ]
