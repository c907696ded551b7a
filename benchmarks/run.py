"""Brigadier's performance suite: each figure against a reference measured in the same run.

Run ``python benchmarks/run.py`` to print the tables, or ``python benchmarks/run.py --check`` to
exit with status 1 when a figure misses its target (or needs more than 1 GB). ``--only NAME``
runs one figure (see ``FIGURES``; ``scaling`` is the scaling table); ``--repeat N`` sets how many
timed runs each median is taken over; ``--club-scenario FILE`` plays the club game on a scenario
of its own (a bundled scenario's name will do; ``generated``: a generated battle of 150 units).

Machines are noisy, so the targets are ratios: the time of Brigadier's code over the time of a
reference doing the same work as a competent engineer would write it plainly (the same STRtree
query and clipping, a bare QGraphicsScene of the same items, a raw SQLite insert or read, the
rules core alone, the same command on the demo), both measured here, now, timed in turn, as
medians of repeated runs. The absolute times are printed beside them, and so is the peak memory:
each figure is measured in a process of its own (the saved games it opens are built before, by
this one), whose peak resident memory is the figure's; a figure that times child processes (the
command line, starting the window) gives theirs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from benchmarks import club_paths, figures_app, figures_big, figures_core, figures_map  # noqa: E402
from benchmarks.generate import allow_largest_battle, big_battle, scaled_battle  # noqa: E402
from benchmarks.measure import (  # noqa: E402
    DEMO_EVENTS,
    EVENT_SIZES,
    MEMORY_LIMIT_MB,
    UNIT_SIZES,
    Figure,
    Memory,
    Saves,
    child_env,
    median_time,
    timed_children,
)

#: The figures, in the order they are measured and printed, with what each runs.
FIGURES = {
    "drag": lambda repeat, saves: figures_core.figure_drag(repeat),
    "los": lambda repeat, saves: figures_core.figure_los(repeat),
    "save": lambda repeat, saves: figures_core.figure_save(repeat, saves),
    "open": lambda repeat, saves: figures_core.figure_open(repeat, saves),
    "parse": lambda repeat, saves: figures_core.figure_parse(repeat, saves, {}),
    "odds": lambda repeat, saves: figures_core.figure_odds(repeat),
    "checklist": lambda repeat, saves: figures_core.figure_checklist(repeat),
    "spotting": lambda repeat, saves: _sight(repeat, saves),
    "sides": lambda repeat, saves: _sides(repeat, saves),
    "devices": lambda repeat, saves: _devices(repeat, saves),
    "render": lambda repeat, saves: figures_map.figure_render(repeat, {}),
    "render_growth": lambda repeat, saves: figures_map.figure_render_growth(repeat, {}),
    "action": lambda repeat, saves: figures_app.figure_action(repeat, saves),
    "group": lambda repeat, saves: figures_app.figure_group(repeat, saves),
    "undo": lambda repeat, saves: figures_app.figure_undo(repeat, saves),
    # the paths an umpire waits on late in the club game (benchmarks/club_paths.py)
    "charge_dialog": lambda repeat, saves: club_paths.figure_charge_dialog(repeat, saves),
    "first_undo": lambda repeat, saves: club_paths.figure_first_undo(repeat, saves),
    "volley": lambda repeat, saves: club_paths.figure_volley(repeat, saves),
    "far_undo": lambda repeat, saves: club_paths.figure_far_undo(repeat, saves),
    "verify": lambda repeat, saves: club_paths.figure_verify(repeat, saves),
    "club_checklist": lambda repeat, saves: club_paths.figure_club_checklist(repeat, saves),
    "timeline": lambda repeat, saves: _timeline(repeat, saves),
    "open_app": lambda repeat, saves: figures_app.figure_open_app(repeat, saves, {}),
    "restart": lambda repeat, saves: figures_app.figure_restart(repeat, saves),
    "cli": lambda repeat, saves: figures_app.figure_cli(repeat, saves, {}),
    "startup": lambda repeat, saves: figures_app.figure_startup(repeat, saves),
    # the big table's map: the bundled Gettysburg battle (benchmarks/figures_big.py)
    "fit_render": lambda repeat, saves: figures_big.figure_fit_render(repeat),
}


def _sight(repeat: int, saves: Saves) -> list[Figure]:
    from benchmarks.sight import sight_figures  # spotting, and a player view following play

    return sight_figures(repeat, saves.folder)


def _sides(repeat: int, saves: Saves) -> list[Figure]:
    from benchmarks.side_views import figure_sides  # a side's views at turn 31 against turn 1

    return figure_sides(repeat, saves)


def _timeline(repeat: int, saves: Saves) -> list[Figure]:
    from benchmarks.timeline import figure_timeline  # the timeline seeking and dragged

    return figure_timeline(repeat, saves)


def _devices(repeat: int, saves: Saves) -> list[Figure]:
    from benchmarks.devices import figure_devices  # the players' pages following the game

    return figure_devices(repeat, saves)


#: The saved games each figure opens: built by the run before the figures' processes start.
NEEDS = {
    "open": lambda s: s.long(figures_core.OPEN_TURNS, figures_core.OPEN_EVENTS),
    "parse": lambda s: [s.demo(EVENT_SIZES[0]), s.demo(EVENT_SIZES[-1])],
    "sides": lambda s: [s.club(), _fresh_club(s)],
    "devices": lambda s: s.club(),
    "group": lambda s: s.club(),
    "undo": lambda s: s.club(),
    "charge_dialog": lambda s: s.club_in("maneuver"),
    "first_undo": lambda s: s.club(),
    "volley": lambda s: s.club_in("ranged"),
    "far_undo": lambda s: s.club(),
    "verify": lambda s: s.club(),
    "club_checklist": lambda s: [s.club_in("maneuver"), s.club_in("ranged")],
    "timeline": lambda s: s.club(),
    "action": lambda s: s.club_in("ranged"),
    "open_app": lambda s: [s.demo(n) for n in (DEMO_EVENTS, *figures_app.OPEN_APP_TARGETS)],
    "restart": lambda s: [s.demo(n) for n in (DEMO_EVENTS, 10_000)],
    "cli": lambda s: [s.demo(n) for n in (DEMO_EVENTS, 10_000)],
    "scaling": lambda s: [s.demo(n) for n in EVENT_SIZES],
}


def _fresh_club(saves: Saves):
    from benchmarks.side_views import fresh_club

    return fresh_club(saves)


# -- the scaling table: one process a size -----------------------------------------------------------

UNIT_MEASURES = (
    ("build", "map made (scene built)"),
    ("warm", "map drawn warm"),
    ("cold", "map drawn cold (new zoom)"),
    ("export", "map exported (names placed, drawn once)"),
    ("sight", "sight, one firer x every enemy"),
    ("spotting", "what both sides see, from scratch"),
)
EVENT_MEASURES = (
    ("open", "Game.open"),
    ("parse", "read the whole journal (an event)"),
    ("open_app", "open in the window (log and plots filled)"),
    ("log", "brigadier log --turn 1"),
)


def scale_units(n: int, repeat: int) -> dict[str, float]:
    """The measures of the scaling table for a generated battle of ``n`` units."""
    battle = big_battle() if n == 200 else scaled_battle(n)
    r = figures_map.render_times(battle, max(3, repeat // 2))
    firer, enemies = figures_core.one_firer(battle)
    sight, _ref, _peak = figures_core._los_pair(battle, firer, enemies, max(3, repeat // 2))
    from rules.sight.spotting import SightTracker
    from rules.tables import load_tables

    tables = load_tables()
    spotting = median_time(lambda: SightTracker(battle, tables), max(3, repeat // 2))
    return {
        "build": r["build"],
        "warm": r["warm"],
        "cold": r["cold"],
        "export": r["export"],
        "sight": sight,
        "spotting": spotting,
    }


def scale_events(n: int, repeat: int, saves: Saves) -> dict[str, float]:
    """The measures of the scaling table for the demo played for ``n`` events."""
    from storage.game import Game

    path = saves.demo(n)

    def opened():
        Game.open(path).close()

    out = {"open": median_time(opened, repeat)}
    out["parse"] = figures_core.parse_per_event(path, max(3, repeat // 3))[0]
    out["open_app"] = figures_app.open_app_time(path, saves, max(3, repeat // 3))[0]
    ((t, _peak),) = timed_children(
        [(figures_app.cli_commands(saves, n)["log"], child_env(saves.folder, "cli"), None)],
        max(3, repeat // 3),
    )
    out["log"] = t
    return out


# -- each figure in a process of its own ---------------------------------------------------------------


def child_main(args: argparse.Namespace) -> int:
    """Measure one figure (or one size of the scaling table) and write it as JSON."""
    allow_largest_battle()  # the 2,000 units of the scaling table and of one firer's sight
    saves = Saves(Path(args.folder), args.club_scenario)
    if args.figure.startswith("units:"):
        out: object = scale_units(int(args.figure[6:]), args.repeat)
    elif args.figure.startswith("events:"):
        out = scale_events(int(args.figure[7:]), args.repeat, saves)
    else:
        figures = FIGURES[args.figure](args.repeat, saves)
        out = [asdict(f) for f in figures]
    Path(args.out).write_text(json.dumps({"result": out, "peak_mb": Memory.peak_mb()}))
    return 0


def in_child(name: str, folder: Path, repeat: int, club_scenario: str | None) -> tuple[object, float | None]:
    """Run ``--figure name`` in a child process of this script; its result and peak memory."""
    out = folder / f"result-{name.replace(':', '-')}.json"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--figure", name, "--folder", str(folder)]
    cmd += ["--out", str(out), "--repeat", str(repeat)]
    if club_scenario:
        cmd += ["--club-scenario", club_scenario]
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = str(folder / "config")  # the umpire's own settings are not touched
    env["BRIGADIER_SAVES_DIR"] = str(folder / "saves")
    env["QT_LOGGING_RULES"] = "qt.qpa.*=false"
    done = subprocess.run(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0 or not out.exists():
        raise SystemExit(f"measuring {name} failed:\n{done.stdout}")
    data = json.loads(out.read_text())
    return data["result"], data["peak_mb"]


def run(names: tuple[str, ...], repeat: int, club_scenario: str | None, with_scaling: bool):
    figures: list[Figure] = []
    scales: dict[str, dict[int, tuple[dict[str, float], float | None]]] = {"units": {}, "events": {}}
    with tempfile.TemporaryDirectory(prefix="brigadier-bench-") as tmp:
        folder = Path(tmp)
        (folder / "saves").mkdir()
        saves = Saves(folder, club_scenario)
        for name in (*names, *(("scaling",) if with_scaling else ())):
            if name in NEEDS:
                NEEDS[name](saves)
        for name in names:
            t0 = time.perf_counter()
            result, peak = in_child(name, folder, repeat, club_scenario)
            for d in result:  # type: ignore[union-attr]
                f = Figure(**d)
                figures.append(f if f.peak_mb is not None else Figure(**{**d, "peak_mb": peak}))
            print(f"  measured {name} in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
        if with_scaling:
            for kind, sizes in (("units", UNIT_SIZES), ("events", EVENT_SIZES)):
                for n in sizes:
                    t0 = time.perf_counter()
                    result, peak = in_child(f"{kind}:{n}", folder, repeat, club_scenario)
                    scales[kind][n] = (result, peak)  # type: ignore[assignment]
                    print(
                        f"  scaled {n:,} {kind} in {time.perf_counter() - t0:.1f} s",
                        file=sys.stderr,
                        flush=True,
                    )
    return figures, (scales if with_scaling else None)


# -- the tables ----------------------------------------------------------------------------------------


def _fmt(s: float | None) -> str:
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.1f} us" if s < 1e-5 else f"{s * 1e6:.0f} us"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def _mb(m: float | None) -> str:
    return "-" if m is None else f"{m:.0f} MB"


def _grid(head: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [line.format(*head), line.format(*("-" * w for w in widths))]
    out += [line.format(*r) for r in rows]
    return "\n".join(out)


def table(figures: list[Figure]) -> str:
    head = ("figure", "median", "reference", "ratio", "target", "peak memory", "result")
    rows = [
        (
            f.name,
            "-" if f.shown_as == "ratio" else _fmt(f.median_s),
            _fmt(f.reference_s),
            "-" if f.ratio is None else f"{f.ratio:.2f}x",
            f.target,
            _mb(f.peak_mb),
            "pass" if f.passed else "FAIL",
        )
        for f in figures
    ]
    return _grid(head, rows)


def scaling_table(measures, results: dict[int, tuple[dict[str, float], float | None]], unit: str) -> str:
    sizes = sorted(results)
    steps = list(zip(sizes, sizes[1:], strict=False))
    head = ("measure", *(f"{n:,} {unit}" for n in sizes), *(f"{a:,} to {b:,}" for a, b in steps))
    rows = []
    for key, label in measures:
        values = {n: results[n][0].get(key) for n in sizes}
        growth = [f"{values[b] / values[a]:.2f}x" if values[a] and values[b] else "-" for a, b in steps]
        rows.append((label, *(_fmt(values[n]) for n in sizes), *growth))
    rows.append(
        ("peak memory (the size's process)", *(_mb(results[n][1]) for n in sizes), *("" for _ in steps))
    )
    return _grid(head, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Brigadier's benchmarks, with their targets.")
    parser.add_argument("--check", action="store_true", help="exit with status 1 if a target is missed")
    parser.add_argument(
        "--only", action="append", choices=(*FIGURES, "scaling"), help="run only this figure (repeatable)"
    )
    parser.add_argument("--repeat", type=int, default=15, help="timed runs per median (default 15)")
    parser.add_argument(
        "--club-scenario",
        default=None,
        help="a scenario file (or a bundled scenario's name) to play the club game on instead of gettysburg; "
        "'generated' for a generated battle of 150 units",
    )
    # how the run measures each figure in a process of its own
    parser.add_argument("--figure", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.figure:
        return child_main(args)
    only = tuple(args.only or ())
    names = tuple(n for n in FIGURES if not only or n in only)
    figures, scales = run(names, args.repeat, args.club_scenario, with_scaling=not only or "scaling" in only)
    if figures:
        print(table(figures))
    heavy = [f.name for f in figures if f.peak_mb is not None and f.peak_mb > MEMORY_LIMIT_MB]
    if scales is not None:
        print("\nScaling with the battle's size (generated battles, the table grown with them)\n")
        print(scaling_table(UNIT_MEASURES, scales["units"], "units"))
        print(f"\nScaling with the journal's length (the demo battle, {DEMO_EVENTS} events a turn)\n")
        print(scaling_table(EVENT_MEASURES, scales["events"], "events"))
        heavy += [
            f"scaling at {n:,} {kind}"
            for kind, rows in scales.items()
            for n, (_r, peak) in rows.items()
            if peak is not None and peak > MEMORY_LIMIT_MB
        ]
    missed = [f.name for f in figures if not f.passed]
    if missed:
        print(f"\n{len(missed)} target(s) missed: {', '.join(missed)}")
    if heavy:
        print(f"\n{len(heavy)} figure(s) needed more than {MEMORY_LIMIT_MB} MB: {', '.join(heavy)}")
    return 1 if (args.check and (missed or heavy)) else 0


if __name__ == "__main__":
    raise SystemExit(main())
