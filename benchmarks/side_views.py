"""What a side sees, at turn 31 of the club game against its first turn (``run.py --only sides``).

Each figure times a path a player or the umpire takes to a side's view, on the club game
(Gettysburg played 30 turns, 3,000 journal entries: :func:`benchmarks.games.build_club_game`) and
on the same battle fresh, played through its first game turn only (100 entries, as the club
game's first: a game with no entry at all has no log or turn to show, and would time nothing),
side by side in one run, in processor time (the least of the runs, as ``timeit`` takes it: what
else the machine does only adds to it), each run cold: the save opened afresh, nothing of the game
kept from the run before.

* **player view**: the save opened, the game put in a controller, and a Confederate player view
  (:class:`gui.player_view.PlayerWindow`) made, shown and painted.
* **log by side**: on the save just opened, the battle log (:class:`gui.log_view.LogView`) read as
  the Confederate side saw it (chosen in its list of sides; the log made before is not timed):
  the turn in play filled with what the side saw of it.
* **sight --side** and **report --side**: ``brigadier sight --side csa`` and ``brigadier report
  --side csa --turn N --pdf`` (the last turn), each a fresh process (the children's processor time).
* **knowledge after one action**: after ``Game.do`` of an action (a unit of the side to act moved a
  tenth of an inch, or the umpire's ruling on it, in turn), the side's knowledge brought up to date
  and its map made (:class:`storage.sightings.Sightings`, as a player view does after every step),
  with the share of the action it is, printed.

Target: each at most 1.5x the game after its first turn.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.measure import Figure, Memory, Saves, child_env

SIDE = "csa"
TARGET = 1.5


def _least_cpu(fns: list[Callable[[], float]], repeat: int) -> list[float]:
    """The least of ``repeat`` runs of each (each returns its own processor time), in turn."""
    for fn in fns:
        fn()  # a first run of each: imports, the bytecode
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            best[i] = min(best[i], fn())
    return best


def _cpu(fn: Callable[[], object]) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def _figure(name: str, club: float, fresh: float, peak: float | None = None) -> Figure:
    ratio = club / fresh
    return Figure(
        f"{name} (processor time: club game at turn 31, {club * 1000:.0f} ms; after turn 1, {fresh * 1000:.0f} ms)",
        club,
        fresh,
        f"<= {TARGET:g}x after turn 1",
        ratio <= TARGET,
        peak_mb=peak,
    )


def fresh_club(saves: Saves) -> Path:
    """The club game's battle played through its first game turn only."""

    def build(path: Path) -> dict:
        from benchmarks import games

        return games.build_club_game(path, turns=1, battle=games.club_battle(saves.club_scenario))

    return saves._make("club-turn-1", build)


def _opened(path: Path):
    """The Qt application and a controller holding the save at ``path`` opened afresh."""
    from gui.app import application
    from gui.controller import GameController
    from storage.game import Game

    app = application()
    controller = GameController()
    controller.set_game(Game.open(path), str(path))
    return app, controller


def _closed(app, controller, widget) -> None:
    widget.close()
    controller.close()
    app.processEvents()


def _player_view(path: Path) -> float:
    from gui.player_view import PlayerWindow

    t0 = time.process_time()
    app, controller = _opened(path)
    window = PlayerWindow(controller, SIDE)
    window.show()
    app.processEvents()
    window.repaint()
    took = time.process_time() - t0
    _closed(app, controller, window)
    return took


def _log_by_side(path: Path) -> float:
    from gui.log_view import LogView

    app, controller = _opened(path)
    log = LogView(controller)
    log.resize(500, 700)
    log.show()
    app.processEvents()
    t0 = time.process_time()
    log.show_side(SIDE)
    app.processEvents()
    took = time.process_time() - t0
    _closed(app, controller, log)
    return took


def _child_cpu(args: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _last_turn(path: Path) -> int:
    from storage.game import Game

    with Game.open(path) as g:
        return g.battle.turn


def figure_sides(repeat: int, saves: Saves) -> list[Figure]:
    from benchmarks.figures_app import action_step
    from storage.game import Game
    from storage.sightings import Sightings

    club, fresh = saves.club(), fresh_club(saves)
    runs = max(5, repeat // 2)
    out = []
    Memory.reset()
    a, b = _least_cpu([lambda: _player_view(club), lambda: _player_view(fresh)], runs)
    out.append(_figure("player view: opened on the game and painted", a, b, Memory.peak_mb()))
    a, b = _least_cpu([lambda: _log_by_side(club), lambda: _log_by_side(fresh)], runs)
    out.append(_figure("log by side: the battle log opened as a side saw it", a, b, Memory.peak_mb()))

    env = child_env(saves.folder, "sides")
    cli = [sys.executable, "-m", "cli.main"]
    sight = [[*cli, "sight", str(p), "--side", SIDE] for p in (club, fresh)]
    pdf = saves.folder / "side-report.pdf"
    report = [
        [*cli, "report", str(p), "--side", SIDE, "--turn", str(_last_turn(p)), "--pdf", str(pdf), "--force"]
        for p in (club, fresh)
    ]
    child_runs = max(3, repeat // 5)
    a, b = _least_cpu([lambda c=c: _child_cpu(c, env) for c in sight], child_runs)
    out.append(_figure("sight --side: a side's spotting, with the reasons, and its ghosts", a, b))
    a, b = _least_cpu([lambda c=c: _child_cpu(c, env) for c in report], child_runs)
    out.append(_figure("report --side: the last turn as a side knew it, to PDF", a, b))

    # the knowledge after one action: both games played on in turn, on copies of their saves
    copies = [Game.open(saves.copy(p, f"sides-{k}")) for k, p in enumerate((club, fresh))]
    sightings = [Sightings.of(g) for g in copies]
    for s in sightings:
        s.view(SIDE)
    sight_time = [[], []]
    do_time = [[], []]
    ledger_rows = type(copies[0].sight).rows_for
    spent = {"t": 0.0}

    def timed_rows(self, entries):
        t0 = time.process_time()
        try:
            return ledger_rows(self, entries)
        finally:
            spent["t"] += time.process_time() - t0

    type(copies[0].sight).rows_for = timed_rows
    try:
        for k in range(repeat * 2 + 1):
            for i, g in enumerate(copies):
                spent["t"] = 0.0
                t0 = time.process_time()
                g.do(action_step(g.battle, k))
                t1 = time.process_time()
                sightings[i].update()
                sightings[i].view(SIDE)
                t2 = time.process_time()
                if k:
                    sight_time[i].append(spent["t"] + (t2 - t1))
                    do_time[i].append(t1 - t0)
    finally:
        type(copies[0].sight).rows_for = ledger_rows
        for g in copies:
            g.close()
    import statistics

    a, b = (statistics.median(t) for t in sight_time)
    share = a / statistics.median(do_time[0])
    out.append(
        _figure(
            f"knowledge after one action: the side's sight and map brought up to date ({share:.0%} of the action's Game.do)",
            a,
            b,
        )
    )
    return out
