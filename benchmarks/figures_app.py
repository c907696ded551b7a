"""The figures of the application, painted: opening a long game, starting and restarting, *Undo to
here* and its redo, the undo of a group march, one action, the command line on a long game."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from benchmarks import games
from benchmarks.measure import (
    DEMO_EVENTS,
    Figure,
    Memory,
    Saves,
    child_env,
    ratio_figure,
    run_child,
    timed_children,
)
from rules.battle.battle import Battle

# --------------------------------------------------------------------------------------------
# The application: opening, restarting, undoing, acting, painted
# --------------------------------------------------------------------------------------------

OPEN_APP_TARGETS = {10_000: 1.5, 50_000: 2.5}
RESTART_TARGET_RATIO = 1.5
UNDO_TARGET_RATIO = 5.0
UNDO_EVENTS_BACK = 100
GROUP_TARGET_RATIO = 3.0
ACTION_TARGET_RATIO = 5.0
CLI_TARGET_RATIO = 1.5


def open_app_time(path: Path, saves: Saves, repeat: int) -> tuple[float, float | None]:
    """Seconds to open the save at ``path`` in a new main window, shown with every dock and
    painted, its log and charts filled (each time on a fresh copy: opening writes the -wal file);
    and the peak memory."""
    from benchmarks.harness import open_painted

    def one() -> float:
        copy = saves.copy(path, "opened.sqlite")
        t, w = open_painted(copy)
        w.close()
        return t

    Memory.reset()
    one()
    times = [one() for _ in range(repeat)]
    return statistics.median(times), Memory.peak_mb()


def figure_open_app(repeat: int, saves: Saves, measured: dict) -> list[Figure]:
    sizes = [DEMO_EVENTS, *OPEN_APP_TARGETS]
    paths = {n: saves.demo(n) for n in sizes}
    times: dict[int, list[float]] = {n: [] for n in sizes}
    peaks: dict[int, float] = dict.fromkeys(sizes, 0.0)
    for n in sizes:
        open_app_time(paths[n], saves, 1)  # once each, untimed
    for _ in range(max(3, repeat // 3)):
        for n in sizes:
            t, peak = open_app_time(paths[n], saves, 1)
            times[n].append(t)
            peaks[n] = max(peaks[n], peak or 0.0)
    med = {n: statistics.median(v) for n, v in times.items()}
    for n in sizes:
        measured[("open_app", n)] = (med[n], peaks[n])
    demo = med[DEMO_EVENTS]
    return [
        ratio_figure(
            f"open a {n:,}-event game in the window (log and plots filled)",
            med[n],
            demo,
            limit,
            f"the demo ({DEMO_EVENTS} events)",
            peaks[n],
        )
        for n, limit in OPEN_APP_TARGETS.items()
    ]


_LAST_GAME = """
import sys
from gui.app import application
from PySide6.QtCore import QSettings
application()
s = QSettings()
s.setValue("last_game", sys.argv[1])
s.sync()
"""

_APP_WINDOW = """
import sys
from gui.app import application, make_main_window
app = application()
w = make_main_window()
w.show()
app.processEvents()
assert w.controller.battle is not None and w.controller.battle.units
sys.stdout.write("shown\\n")
sys.stdout.flush()
"""

_BARE_WINDOW = """
import sys
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication(sys.argv[:1])
w = QMainWindow()
w.resize(1280, 800)
w.show()
app.processEvents()
sys.stdout.write("shown\\n")
sys.stdout.flush()
"""

# the same start, then what the window does a moment after it is shown (gui.warm_up.warm_up):
# everything the first drag or action needs is then loaded
_APP_READY = """
import sys
from gui.app import application, make_main_window
from gui.warm_up import warm_up
app = application()
w = make_main_window()
w.show()
app.processEvents()
assert w.controller.battle is not None and w.controller.battle.units
warm_up()
sys.stdout.write("shown\\n")
sys.stdout.flush()
"""

STARTUP_TARGET_RATIO = 3.0


def figure_startup(repeat: int, saves: Saves) -> list[Figure]:
    env = child_env(saves.folder, "startup")  # no last game: the demo battle starts
    (prog, p_peak), (ready, r_peak), (ref, b_peak) = timed_children(
        [
            ([sys.executable, "-c", _APP_WINDOW], env, "shown"),
            ([sys.executable, "-c", _APP_READY], env, "shown"),
            ([sys.executable, "-c", _BARE_WINDOW], env, "shown"),
        ],
        max(3, repeat),
    )
    return [
        ratio_figure(
            "start-up to a shown window (demo battle)", prog, ref, STARTUP_TARGET_RATIO, "bare window", p_peak
        ),
        # for information: the libraries of play are loaded just after the window is shown
        Figure("  ... and ready for the first action", ready, ref, "(shown for information)", True, r_peak),
    ]


def figure_restart(repeat: int, saves: Saves) -> list[Figure]:
    """A fresh process to the window shown on the last game played: a 10,000-event game against
    the demo game."""
    commands = []
    for n in (10_000, DEMO_EVENTS):
        env = child_env(saves.folder, f"restart-{n}")
        path = saves.copy(saves.demo(n), f"restart-{n}.sqlite")
        run_child([sys.executable, "-c", _LAST_GAME, str(path)], env)
        commands.append(([sys.executable, "-c", _APP_WINDOW], env, "shown"))
    (prog, p_peak), (ref, _r_peak) = timed_children(commands, max(3, repeat // 2))
    return [
        ratio_figure(
            "restart on the last game: 10,000 events",
            prog,
            ref,
            RESTART_TARGET_RATIO,
            f"the demo ({DEMO_EVENTS} events)",
            p_peak,
        )
    ]


def _two_copies(saves: Saves, path: Path, name: str):
    """The painted window on one copy of a save, and the game alone on another."""
    from benchmarks.harness import PaintedWindow
    from storage.game import Game

    window = PaintedWindow(saves.copy(path, f"{name}-window.sqlite"))
    bare = Game.open(saves.copy(path, f"{name}-core.sqlite"))
    return window, bare


def figure_undo(repeat: int, saves: Saves) -> list[Figure]:
    """Redo pressed until 100 events *Undo to here* took back in the club game are back, one step
    at a time, every dock shown, against ``Game.redo_step`` of each step, timed right after the
    window's redo of it. The first round is timed on its own (cold); the medians are of the rounds
    after it (warm). (*Undo to here* itself is timed in a fresh window each time, against a
    set-based undo: :func:`benchmarks.club_paths.figure_far_undo`.)"""
    path = saves.club()
    Memory.reset()
    window, bare = _two_copies(saves, path, "undo")
    c = window.controller
    top = c.game.last_seq
    back = c.game.step_of(top - UNDO_EVENTS_BACK)[1]
    times: list[list[float]] = [[], []]
    cold: list[float] = []

    def round_trip(record: bool) -> None:
        c.undo_to(back)
        bare.undo_to(back)
        window.settle()
        # Redo pressed until every step is back, each press painted; the core's redo of the same
        # step timed right after each (a noisy machine then slows both alike)
        t_redo = t_core_redo = 0.0
        while c.can_redo:
            t_redo += window.time(c.redo)
            t0 = time.perf_counter()
            bare.redo_step()
            t_core_redo += time.perf_counter() - t0
        assert c.game.last_seq == bare.last_seq == top and not bare.can_redo
        if record:
            times[0].append(t_redo)
            times[1].append(t_core_redo)
        else:
            cold.extend((t_redo, t_core_redo))

    round_trip(False)
    for _ in range(max(3, repeat // 2)):
        round_trip(True)
    peak = Memory.peak_mb()
    window.close()
    bare.close()
    redo, core_redo = (statistics.median(t) for t in times)
    n = top - back
    return [
        ratio_figure(
            f"Redo until the {n} events Undo to here took back are back, a step at a time "
            "(club game, every dock shown; warm)",
            redo,
            core_redo,
            UNDO_TARGET_RATIO,
            "Game.redo_step",
            peak,
        ),
        ratio_figure(
            "  ... the first round after opening the window (cold)",
            cold[0],
            cold[1],
            UNDO_TARGET_RATIO,
            "Game.redo_step",
            peak,
        ),
    ]


def figure_group(repeat: int, saves: Saves) -> list[Figure]:
    """Undo and redo of the club game's last group march (20 units, one step), every dock shown,
    against ``Game.undo_step`` and ``Game.redo_step`` of the same step."""
    path = saves.club()
    Memory.reset()
    window, bare = _two_copies(saves, path, "group")
    c = window.controller
    last = saves.club_info["last_group_last"]
    first = saves.club_info["last_group_first"]
    c.undo_to(last)
    bare.undo_to(last)
    window.settle()
    assert c.game.step_of(last) == (first, last)
    times: list[list[float]] = [[], [], [], []]
    cold: tuple[float, ...] = ()
    for k in range(max(5, repeat)):
        t_undo = window.time(c.undo)
        t0 = time.perf_counter()
        bare.undo_step()
        t_core_undo = time.perf_counter() - t0
        t_redo = window.time(c.redo)
        t0 = time.perf_counter()
        bare.redo_step()
        t_core_redo = time.perf_counter() - t0
        if k:
            for i, t in enumerate((t_undo, t_core_undo, t_redo, t_core_redo)):
                times[i].append(t)
        else:
            cold = (t_undo, t_core_undo, t_redo, t_core_redo)
    peak = Memory.peak_mb()
    window.close()
    bare.close()
    undo, core_undo, redo, core_redo = (statistics.median(t) for t in times)
    n = last - first + 1
    return [
        ratio_figure(
            f"undo a group march of {games.GROUP} units ({n} journal entries; club game, every dock shown; warm)",
            undo,
            core_undo,
            GROUP_TARGET_RATIO,
            "Game.undo_step",
            peak,
        ),
        ratio_figure(
            "  ... and its redo (warm)", redo, core_redo, GROUP_TARGET_RATIO, "Game.redo_step", peak
        ),
        ratio_figure(
            "  ... the undo, the first after opening the window (cold)",
            cold[0],
            cold[1],
            GROUP_TARGET_RATIO,
            "Game.undo_step",
            peak,
        ),
        ratio_figure(
            "  ... and its redo (cold)", cold[2], cold[3], GROUP_TARGET_RATIO, "Game.redo_step", peak
        ),
    ]


def action_step(battle: Battle, k: int):
    """The ``k``-th action of the action figure: a unit of the side to act placed a tenth of an
    inch to and fro, and the umpire's ruling on its micro-hits, in turn."""
    from rules.actions import MoveUnit, Override

    units = sorted(
        (u for u in battle.oob.in_play(battle.active_side) if u.kind.value == "infantry"), key=lambda u: u.id
    )
    u = units[len(units) // 2]
    if k % 2:
        return Override("unit", u.id, {"micro_hits": (u.micro_hits + 1) % 2}, "ruled so")
    return MoveUnit(u.id, u.x, round(u.y + (0.1 if k % 4 else -0.1), 3))


def painted_action_times(
    path: Path, saves: Saves, repeat: int, name: str = "action"
) -> tuple[float, float, float | None, tuple[float, float]]:
    """One action at a time in the painted window on (a copy of) the save at ``path``, and the
    same actions with ``Game.do`` on another copy: their medians after the first (warm), the peak
    memory, and the first of each (cold: the first action after opening)."""
    Memory.reset()
    window, bare = _two_copies(saves, path, name)
    c = window.controller
    times: list[list[float]] = [[], []]
    cold = (0.0, 0.0)
    for k in range(repeat * 2 + 1):
        t_app = window.time(lambda k=k: c.run(action_step(c.battle, k)))
        t0 = time.perf_counter()
        bare.do(action_step(bare.battle, k))
        t_core = time.perf_counter() - t0
        if k:
            times[0].append(t_app)
            times[1].append(t_core)
        else:
            cold = (t_app, t_core)
    peak = Memory.peak_mb()
    window.close()
    bare.close()
    return statistics.median(times[0]), statistics.median(times[1]), peak, cold


def figure_action(repeat: int, saves: Saves) -> list[Figure]:
    prog, ref, peak, cold = painted_action_times(saves.club_in("ranged"), saves, repeat)
    return [
        ratio_figure(
            "one action in the painted window (club game, Phase 3 of turn 31, every dock shown; warm)",
            prog,
            ref,
            ACTION_TARGET_RATIO,
            "Game.do",
            peak,
        ),
        ratio_figure(
            "  ... the first after opening the window (cold)", *cold, ACTION_TARGET_RATIO, "Game.do", peak
        ),
    ]


def cli_commands(saves: Saves, n: int) -> dict[str, list[str]]:
    path = saves.demo(n)
    out = saves.folder / f"turn1-{n}.pdf"
    cli = [sys.executable, "-m", "cli.main"]
    return {
        "log": [*cli, "log", str(path), "--turn", "1"],
        "report": [*cli, "report", str(path), "--turn", "1", "--pdf", str(out), "--force"],
    }


def figure_cli(repeat: int, saves: Saves, measured: dict) -> list[Figure]:
    env = child_env(saves.folder, "cli")
    big, demo = cli_commands(saves, 10_000), cli_commands(saves, DEMO_EVENTS)
    out = []
    for what in ("log", "report"):
        (prog, p_peak), (ref, _r) = timed_children(
            [(big[what], env, None), (demo[what], env, None)], max(3, repeat // 3)
        )
        measured[("cli_" + what, 10_000)] = (prog, p_peak)
        out.append(
            ratio_figure(
                f"brigadier {what} --turn 1{' --pdf' if what == 'report' else ''}, 10,000 events",
                prog,
                ref,
                CLI_TARGET_RATIO,
                f"on the demo ({DEMO_EVENTS} events)",
                p_peak,
            )
        )
    return out
