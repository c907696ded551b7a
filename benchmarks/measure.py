"""Measuring for the benchmarks: figures, timing in turn, peak memory, child processes, and the
saved games the figures open (built once a run)."""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from benchmarks import games  # noqa: E402
from benchmarks.generate import LARGEST_UNITS  # noqa: E402
from gui import qt_environment  # noqa: E402

# --------------------------------------------------------------------------------------------
# Measuring
# --------------------------------------------------------------------------------------------

#: No figure may need more memory than this (the peak resident memory of its process).
MEMORY_LIMIT_MB = 1024


@dataclass(frozen=True)
class Figure:
    """One line of the table: what was measured, its median, the reference and the target."""

    name: str
    median_s: float
    reference_s: float | None
    target: str
    passed: bool
    peak_mb: float | None = None
    shown_as: str = "time"  # "time", or "ratio" for a figure whose median is itself a ratio

    @property
    def ratio(self) -> float | None:
        if self.shown_as == "ratio":
            return self.median_s
        if self.reference_s is None or self.reference_s <= 0:
            return None
        return self.median_s / self.reference_s


def ratio_figure(
    name: str, prog: float, ref: float, limit: float, what: str, peak: float | None = None
) -> Figure:
    """A figure whose target is at most ``limit`` times its reference (``what``)."""
    return Figure(name, prog, ref, f"<= {limit:g}x {what}", prog <= limit * ref, peak)


def median_time(fn: Callable[[], object], repeat: int, warmup: int = 1) -> float:
    """The median wall time of ``fn()`` over ``repeat`` runs, after ``warmup`` untimed ones."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def interleaved(
    fns: list[Callable[[], object]], repeat: int, warmup: int = 1, pause: float = 0.0
) -> list[float]:
    """Medians of several functions timed in turn, so a burst of noise hits them all alike.

    ``pause``: seconds of idle before each timed call, for work that the umpire does one at a time
    with a pause between (an action saved): each call then starts as the umpire's does, after the
    machine and its disk have been idle, and not straight after the call before it."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            if pause:
                time.sleep(pause)
            t0 = time.perf_counter()
            fn()
            times[i].append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


def interleaved_timers(fns: list[Callable[[], float]], repeat: int, warmup: int = 1) -> list[float]:
    """As :func:`interleaved`, for functions that time themselves (they return seconds)."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            times[i].append(fn())
    return [statistics.median(t) for t in times]


class Memory:
    """The peak resident memory of this process since the last :meth:`reset` (Linux: the
    kernel's high-water mark, reset through ``/proc/self/clear_refs``; elsewhere the peak since
    the process started)."""

    @staticmethod
    def reset() -> None:
        try:
            with open("/proc/self/clear_refs", "w") as fh:
                fh.write("5")
        except OSError:
            pass

    @staticmethod
    def peak_mb() -> float | None:
        try:
            with open("/proc/self/status") as fh:
                m = re.search(r"VmHWM:\s+(\d+)\s+kB", fh.read())
            if m:
                return int(m.group(1)) / 1024
        except OSError:
            pass
        try:
            import resource

            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
        except (ImportError, OSError):
            return None


#: GNU time, which gives the peak memory of the command it runs (a child's own peak cannot be read
#: from this process: a child started from it counts this process's memory before it as its own).
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def run_child(
    args: Sequence[str], env: dict[str, str], until: str | None = None
) -> tuple[float, float | None]:
    """Run a child process; return the seconds until it printed a line holding ``until`` (or
    until it ended), and its peak resident memory in MB (None without GNU time). A child that
    fails stops the run."""
    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile("r", suffix=".peak") as peak_file:
        cmd = list(args)
        if GNU_TIME is not None:
            cmd = [GNU_TIME, "-f", "%M", "-o", peak_file.name, *cmd]
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=err)
        assert proc.stdout is not None
        elapsed = None
        if until is not None:
            for raw in proc.stdout:
                if until.encode() in raw:
                    elapsed = time.perf_counter() - t0
                    break
        proc.stdout.read()
        proc.wait()
        if elapsed is None and until is None:
            elapsed = time.perf_counter() - t0
        proc.stdout.close()
        if proc.returncode != 0 or elapsed is None:
            err.seek(0)
            raise SystemExit(
                f"the child {' '.join(args[:4])} ... failed:\n{err.read().decode(errors='replace')}"
            )
        peak = None
        if GNU_TIME is not None:
            text = peak_file.read().strip().splitlines()
            if text and text[-1].strip().isdigit():
                peak = int(text[-1]) / 1024
    return elapsed, peak


def child_env(folder: Path, name: str) -> dict[str, str]:
    """The environment of a child: off screen, settings and saves in a folder of its own, and
    compiled bytecode kept (in the run's folder) as an installed application keeps it."""
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["XDG_CONFIG_HOME"] = str(folder / f"config-{name}")
    env["BRIGADIER_SAVES_DIR"] = str(folder / f"saves-{name}")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    # the Qt Brigadier starts with (its fills on the painting thread), for the bare references too
    qt_environment.prepare(env)
    (folder / f"saves-{name}").mkdir(exist_ok=True)
    return env


def timed_children(
    commands: list[tuple[Sequence[str], dict[str, str], str | None]], repeat: int
) -> list[tuple[float, float]]:
    """The median seconds and the peak memory of several child commands, run in turn ``repeat``
    times each (after one untimed run of each, which also compiles the bytecode)."""
    for args, env, until in commands:
        run_child(args, env, until)
    times: list[list[float]] = [[] for _ in commands]
    peaks: list[float | None] = [None for _ in commands]
    for _ in range(repeat):
        for i, (args, env, until) in enumerate(commands):
            t, peak = run_child(args, env, until)
            times[i].append(t)
            if peak is not None:
                peaks[i] = max(peaks[i] or 0.0, peak)
    return [(statistics.median(t), p) for t, p in zip(times, peaks, strict=True)]


# --------------------------------------------------------------------------------------------
# The games measured (built once a run, in the run's folder)
# --------------------------------------------------------------------------------------------


class Saves:
    """The saved games the figures open, each built the first time it is asked for."""

    def __init__(self, folder: Path, club_scenario: str | None = None):
        self.folder = folder
        self.club_scenario = club_scenario
        self.club_info: dict[str, int] = {}

    def _make(self, name: str, build: Callable[[Path], object]) -> Path:
        """The save ``name``: built by ``build`` the first time (its facts kept beside it, as
        JSON), found in the folder after (a figure's own process opens what the run built)."""
        path = self.folder / f"{name}.sqlite"
        facts = self.folder / f"{name}.json"
        if not path.exists():
            t0 = time.perf_counter()
            out = build(path)
            facts.write_text(json.dumps(out if isinstance(out, dict) else {}))
            print(f"  built {name} in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
        if name == "club":
            self.club_info = json.loads(facts.read_text())
        return path

    def demo(self, events: int) -> Path:
        """The demo battle played for ``events`` events (250 a game turn)."""
        return self._make(f"demo-{events}", lambda p: games.build_demo_game(p, events))

    def club(self) -> Path:
        """The club game: Gettysburg's 150 units (or the scenario given), 30 turns of 100 events."""
        return self._make(
            "club", lambda p: games.build_club_game(p, battle=games.club_battle(self.club_scenario))
        )

    def club_in(self, phase: str) -> Path:
        """The club game with the side to act played on into its turn 31, stopped in ``phase``
        (``"maneuver"``: Phase 2; ``"ranged"``: Phase 3, after its group march; see
        :func:`benchmarks.games.play_into_turn`)."""
        club = self.club()

        def build(path: Path) -> dict:
            shutil.copy(club, path)
            return games.play_into_turn(path, phase)

        return self._make(f"club-{phase}", build)

    def long(self, turns: int, events: int) -> Path:
        """The 200-unit generated battle played for ``events`` events over ``turns`` turns."""
        return self._make(f"long-{turns}-{events}", lambda p: games.build_long_game(p, turns, events))

    def copy(self, path: Path, name: str) -> Path:
        """A copy of a save (a fresh file each time it is asked for)."""
        out = self.folder / name
        for suffix in ("", "-wal", "-shm"):
            Path(str(out) + suffix).unlink(missing_ok=True)
        shutil.copy(path, out)
        return out


#: The demo game every long game is compared with: the demo battle after its first game turn.
DEMO_EVENTS = games.DEMO_EVENTS_PER_TURN
#: The long games of the scaling table.
EVENT_SIZES = (1_000, 10_000, 50_000)
#: The battles of the scaling table.
UNIT_SIZES = (50, 200, 800, LARGEST_UNITS)
