"""The benchmarks of what each side sees (``python benchmarks/run.py --only spotting``).

* Spotting for both sides of a 150-unit battle after one action: :meth:`SightTracker.update
  <rules.sight.spotting.SightTracker.update>` after a unit's move, which measures again the sight lines
  between the mover and each enemy unit near enough for one of them to make the other out (once
  for both sides: sight is mutual). Its reference is the bare line-of-sight work those lines need,
  done with shapely alone (:func:`benchmarks.figures_core.los_reference_shapely` for the mover against those enemy
  units), timed in turn with it.
  Targets: median under 20 ms, and at most 1.5x the reference.
* A player view follows an action: after ``Game.do`` of a move, the player view's update (the
  game's sightings read the new entry, the side's view is made and its map redrawn where it
  changed). Target: median under 50 ms.
"""

from __future__ import annotations

import math
import statistics
import time
from pathlib import Path

from benchmarks.generate import big_battle
from rules.tables import load_tables

SPOTTING_UNITS_PER_SIDE = 75
SPOTTING_TARGET_S = 0.020
SPOTTING_TARGET_RATIO = 1.5
PLAYER_VIEW_TARGET_S = 0.050
MOVER = "union-37"  # mid-table in the Union's second line


def _moves(battle, mover_id: str):
    """The mover at its place and 0.5" forward: the two states a timed run goes between."""
    u = battle.unit(mover_id)
    return battle, battle.with_unit(u.moved_to(u.x, u.y - 0.5))


def figure_spotting(repeat: int):
    from benchmarks.figures_core import los_reference_shapely as los_reference
    from benchmarks.measure import Figure, interleaved
    from rules.sight.spotting import SightTracker, spotting_limit_in

    battle = big_battle(SPOTTING_UNITS_PER_SIDE)
    tables = load_tables()
    here, there = _moves(battle, MOVER)
    tracker = SightTracker(here, tables)
    state = {"k": 0}

    def program():
        state["k"] += 1
        tracker.update(there if state["k"] % 2 else here, {MOVER})
        return tracker.seen("union"), tracker.seen("csa")

    # the lines it needs: from the mover to each enemy unit near enough for one of the two to make
    # the other out (terrain.spotting.open_in, 48"); a longer line can show neither
    mover = battle.unit(MOVER)
    reach = spotting_limit_in(mover, tables)
    enemies = [
        e
        for e in battle.oob.in_play("csa")
        if math.hypot(e.x - mover.x, e.y - mover.y) <= max(reach, spotting_limit_in(e, tables))
    ]
    prog, ref = interleaved([program, los_reference(battle, tables, [mover], enemies)], repeat * 4)
    return [
        Figure(
            f"spotting, both sides, after one action ({len(battle.units)} units, {len(enemies)} sight lines)",
            prog,
            ref,
            f"< {SPOTTING_TARGET_S * 1000:g} ms and < {SPOTTING_TARGET_RATIO:g}x bare sight lines",
            prog < SPOTTING_TARGET_S and prog < SPOTTING_TARGET_RATIO * ref,
        )
    ]


def figure_player_view(repeat: int, folder: Path):
    from benchmarks.measure import Figure
    from gui.app import application
    from gui.controller import GameController
    from gui.player_view import PlayerWindow
    from rules.actions import MoveUnit
    from storage.game import Game

    app = application()
    battle = big_battle(SPOTTING_UNITS_PER_SIDE)
    game = Game.create(folder / "player-view.sqlite", battle)
    controller = GameController()
    controller.set_game(game, str(game.path))
    window = PlayerWindow(controller, "csa")
    window.show()
    app.processEvents()
    times = []
    for k in range(repeat * 2 + 1):
        u = game.battle.unit(MOVER)
        game.do(MoveUnit(u.id, u.x, round(u.y + (0.5 if k % 2 else -0.5), 3)))
        t0 = time.perf_counter()
        window.feed.refresh()  # what the controller's change notice runs
        t1 = time.perf_counter()
        app.processEvents()  # Qt paints: not timed
        if k:
            times.append(t1 - t0)
    window.close()
    controller.close()
    app.processEvents()
    med = statistics.median(times)
    return [
        Figure(
            f"a player view follows an action ({len(battle.units)} units)",
            med,
            None,
            f"< {PLAYER_VIEW_TARGET_S * 1000:g} ms",
            med < PLAYER_VIEW_TARGET_S,
        )
    ]


def sight_figures(repeat: int, folder: Path):
    """The figures of this module, for :func:`benchmarks.run.run`."""
    return [*figure_spotting(repeat), *figure_player_view(repeat, folder)]
