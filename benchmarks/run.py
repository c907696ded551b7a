"""Brigadier's performance suite: each figure against a reference measured in the same run.

Run ``python benchmarks/run.py`` to print the table, or ``python benchmarks/run.py --check`` to
exit with status 1 when a figure misses its target. ``--only NAME`` runs one figure (``drag``,
``los``, ``render``, ``save``, ``open``, ``odds``, ``checklist``, ``startup``, ``long_game``, ``spotting``); ``--repeat N`` sets how many
timed runs each median is taken over.

Machines are noisy, so most targets are ratios: the program's time over the time of the bare
library work it cannot avoid (shapely's STRtree queries, a plain QGraphicsScene, a raw SQLite
insert or read, a bare PySide6 window), both measured here, now, as medians of repeated runs.
The absolute times are printed beside them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import shapely  # noqa: E402

from benchmarks.generate import big_battle  # noqa: E402
from rules.battle import Battle  # noqa: E402
from rules.tables import load_tables  # noqa: E402


@dataclass(frozen=True)
class Figure:
    """One line of the table: what was measured, its median, the reference and the target."""

    name: str
    median_s: float
    reference_s: float | None
    target: str
    passed: bool

    @property
    def ratio(self) -> float | None:
        if self.reference_s is None or self.reference_s <= 0:
            return None
        return self.median_s / self.reference_s


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


def interleaved(fns: list[Callable[[], object]], repeat: int, warmup: int = 1) -> list[float]:
    """Medians of several functions timed in turn, so a burst of noise hits them all alike."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            times[i].append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


# --------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------

DRAG_TARGET_S = 0.008
LOS_TARGET_RATIO = 1.5
RENDER_TARGET_RATIO = 2.0
SAVE_TARGET_RATIO = 2.0
OPEN_TARGET_S = 1.0
OPEN_TARGET_RATIO = 5.0
ODDS_TARGET_S = 0.5
CHECKLIST_FIRST_TARGET_S = 2.0
CHECKLIST_AFTER_TARGET_S = 0.5
STARTUP_TARGET_RATIO = 3.0

DRAG_STEP_IN = 0.5


def drag_steps(battle: Battle, mover_id: str, to_y: float, step_in: float = DRAG_STEP_IN):
    """The segments of a straight drag of ``mover_id`` towards ``to_y``, ``step_in`` at a time."""
    u = battle.unit(mover_id)
    n = max(1, int(abs(u.y - to_y) / step_in))
    sign = -1.0 if to_y < u.y else 1.0
    return [((u.x, u.y + sign * k * step_in), (u.x, u.y + sign * (k + 1) * step_in)) for k in range(n)]


def drag_step(battle: Battle, mover_id: str, seg, tables) -> tuple[int, int]:
    """One drag step: the trigger windows along the segment, and the line of sight each window
    needs: whether each defender at a window sees the mover where the window opens (Opportunity
    Fire needs a clear view, RULE-04-3.1).

    Returns the number of windows and of (defender, window) pairs with a clear view.
    """
    from rules.battlefield import Battlefield
    from rules.triggers import find_windows

    u = battle.unit(mover_id)
    at = battle.with_unit(u.moved_to(*seg[0]))
    windows = find_windows(at, mover_id, list(seg), tables)
    seen = 0
    for w in windows:
        there = at.with_unit(u.moved_to(*w.point))
        defenders = [there.unit(d.defender) for d in w.defenders]
        seen += int(
            Battlefield(there, tables).visibility_matrix(defenders, [there.unit(mover_id)]).visible.sum()
        )
    return len(windows), seen


def figure_drag(repeat: int) -> Figure:
    battle = big_battle()
    tables = load_tables()
    mover_id = "union-12"  # front rank, mid-table, dragged up the table into the enemy's arcs
    steps = drag_steps(battle, mover_id, to_y=40.0)
    windows = sum(drag_step(battle, mover_id, seg, tables)[0] for seg in steps)  # warms the caches
    times = []
    for _ in range(max(1, repeat // 5)):
        for seg in steps:
            t0 = time.perf_counter()
            drag_step(battle, mover_id, seg, tables)
            times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    worst = max(times)
    return Figure(
        f'drag step ({len(steps)} steps of {DRAG_STEP_IN:g}", {windows} windows; slowest {worst * 1e3:.1f} ms)',
        med,
        None,
        f"< {DRAG_TARGET_S * 1000:g} ms",
        med < DRAG_TARGET_S,
    )


def los_reference(battle: Battle, tables, viewers, targets):
    """The bare shapely work of 100 x 100 sight lines: segments, one STRtree query with the
    intersects predicate, and the length of each sight line inside each feature it meets that
    can limit or block sight (woods, crops, orchards, towns, buildings, hills; not fences,
    roads or streams, which never block it)."""
    from rules.battlefield import _CLEAR, _terrain_index

    ti = _terrain_index(battle.terrain, tables)
    tree, areas, sight = ti.tree, ti.areas, ti.sight

    def run():
        vo = np.array([[u.x, u.y] for u in viewers], dtype=float)
        to = np.array([[u.x, u.y] for u in targets], dtype=float)
        n, m = len(vo), len(to)
        coords = np.empty((n, m, 2, 2))
        coords[:, :, 0, :] = vo[:, None, :]
        coords[:, :, 1, :] = to[None, :, :]
        segs = shapely.linestrings(coords.reshape(n * m, 2, 2))
        si, fj = tree.query(segs, predicate="intersects")
        need = sight[fj] != _CLEAR
        return shapely.length(shapely.intersection(segs[si[need]], areas[fj[need]]))

    return run


def figure_los(repeat: int) -> Figure:
    from rules.battlefield import Battlefield

    battle = big_battle()
    tables = load_tables()
    viewers = battle.oob.in_play("union")
    targets = battle.oob.in_play("csa")

    def program():
        return Battlefield(battle, tables).visibility_matrix(viewers, targets)

    prog, ref = interleaved([program, los_reference(battle, tables, viewers, targets)], repeat)
    return Figure(
        f"line of sight {len(viewers)} x {len(targets)}",
        prog,
        ref,
        f"< {LOS_TARGET_RATIO:g}x STRtree",
        prog < LOS_TARGET_RATIO * ref,
    )


RENDER_SIZE = (1440, 960)


def _render(scene, rect) -> None:
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter

    img = QImage(*RENDER_SIZE, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(0)
    painter = QPainter(img)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    scene.render(painter, QRectF(0, 0, *RENDER_SIZE), rect)
    painter.end()


def figure_render(repeat: int) -> Figure:
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QBrush, QColor, QPen
    from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsScene

    from gui.app import application
    from gui.canvas import BattlefieldScene, polygon_path
    from gui.controller import GameController
    from rules.geometry import footprint
    from storage.game import Game

    application()
    battle = big_battle()
    tables = load_tables()
    with tempfile.TemporaryDirectory() as tmp:
        game = Game.create(Path(tmp) / "render.sqlite", battle)
        controller = GameController()
        controller.set_game(game, str(game.path))
        scene = BattlefieldScene(controller)
        scene.set_battle(battle)
        rect = scene.sceneRect()
        bare = QGraphicsScene()
        bare.setSceneRect(rect)
        pen = QPen(QColor("#333333"))
        pen.setCosmetic(True)
        shapes = [f.points for f in battle.terrain]
        shapes += [tuple(footprint(u, tables).polygon.exterior.coords) for u in battle.units.values()]
        for pts in shapes:
            item = QGraphicsPathItem(polygon_path(pts, closed=len(pts) > 2))
            item.setPen(pen)
            item.setBrush(QBrush(QColor("#7d8b6a")))
            bare.addItem(item)
        n_app = len(scene.units) + len(scene.terrain)
        prog, ref = interleaved([lambda: _render(scene, rect), lambda: _render(bare, QRectF(rect))], repeat)
        controller.close()
        scene.deleteLater()
    return Figure(
        f"render canvas ({n_app} items, {RENDER_SIZE[0]}x{RENDER_SIZE[1]})",
        prog,
        ref,
        f"< {RENDER_TARGET_RATIO:g}x bare scene",
        prog < RENDER_TARGET_RATIO * ref,
    )


def _raw_journal(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    from storage.schema import _EVENT_COLUMNS

    # the same table as a save's journal, with its index
    conn.execute(f"CREATE TABLE journal (seq INTEGER PRIMARY KEY CHECK (seq >= 1), {_EVENT_COLUMNS})")
    conn.execute("CREATE INDEX journal_turn ON journal (turn)")
    return conn


def figure_save(repeat: int, folder: Path) -> Figure:
    from rules.actions import MoveUnit
    from storage.game import Game

    battle = big_battle()
    game = Game.create(folder / "save.sqlite", battle)
    raw = _raw_journal(folder / "raw.sqlite")
    unit = battle.unit("union-12")
    state = {"k": 0}

    def program():
        state["k"] += 1
        return game.do(MoveUnit(unit.id, unit.x, unit.y - 0.1 * (state["k"] % 50 + 1)))

    first = program().to_row()  # the reference writes the same row

    def reference():
        row = dict(first)
        row["seq"] = None
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        raw.execute("BEGIN")
        raw.execute(f"INSERT INTO journal ({cols}) VALUES ({marks})", tuple(row.values()))
        raw.execute("COMMIT")

    prog, ref = interleaved([program, reference], repeat * 8)
    game.close()
    raw.close()
    return Figure(
        "save one action (Game.do MoveUnit)",
        prog,
        ref,
        f"< {SAVE_TARGET_RATIO:g}x raw insert",
        prog < SAVE_TARGET_RATIO * ref,
    )


OPEN_TURNS = 40
OPEN_EVENTS = 10_000


def build_long_game(path: Path, turns: int = OPEN_TURNS, events: int = OPEN_EVENTS) -> int:
    """A game of ``turns`` game turns and ``events`` events on the big battle, played through
    :meth:`Game.do` (moves, overrides, phases, pips, end of turn). The file is written without
    waiting for the disk (``Game.synchronous = "OFF"``) to build it quickly; it is the same file."""
    from rules.actions import EndTurn, MoveUnit, Override, ReservePip
    from storage.game import Game

    battle = big_battle()
    old = Game.synchronous
    Game.synchronous = "OFF"
    try:
        game = Game.create(path, battle)
        try:
            ends = 2 * turns  # each side ends its turn once per game turn
            per_side = (events - ends) // ends
            extra = (events - ends) - per_side * ends
            for half in range(ends):
                side = game.battle.active_side
                units = [u for u in game.battle.oob.in_play(side) if u.kind.value == "infantry"]
                brigade = units[0].brigade
                game.do(ReservePip(brigade))
                n = per_side - 1 + (1 if half < extra else 0)
                for k in range(n):
                    u = game.battle.unit(units[k % len(units)].id)
                    if k % 5 == 4:
                        game.do(Override("unit", u.id, {"micro_hits": (u.micro_hits + 1) % 2}, "ruled so"))
                    else:
                        dy = 0.1 if (k // len(units)) % 2 else -0.1
                        game.do(MoveUnit(u.id, u.x, round(u.y + dy, 3)))
                game.do(EndTurn())
            assert game.last_seq == events, game.last_seq
            return game.battle.turn
        finally:
            game.close()
    finally:
        Game.synchronous = old


def figure_open(repeat: int, folder: Path) -> list[Figure]:
    from storage.game import Game

    path = folder / "long.sqlite"
    build_long_game(path)

    def program():
        g = Game.open(path)
        b = g.battle
        g.close()
        return b

    def reference():
        conn = sqlite3.connect(path)
        rows = conn.execute("SELECT * FROM journal ORDER BY seq").fetchall()
        conn.close()
        return rows

    prog, ref = interleaved([program, reference], repeat)
    return [
        Figure(
            f"open a {OPEN_TURNS}-turn game of {OPEN_EVENTS:,} events",
            prog,
            None,
            f"< {OPEN_TARGET_S:g} s",
            prog < OPEN_TARGET_S,
        ),
        Figure(
            "open, against a raw read of the journal",
            prog,
            ref,
            f"< {OPEN_TARGET_RATIO:g}x raw read",
            prog < OPEN_TARGET_RATIO * ref,
        ),
    ]


LONG_GAME_TURNS = 100
LONG_GAME_EVENTS = 6_000
LONG_GAME_TARGET_RATIO = 5.0


def _shown_views(game):
    """A controller on ``game``, with the Plots dock and the battle log on screen."""
    from gui.app import application
    from gui.controller import GameController
    from gui.log_view import LogView
    from gui.plots import PlotsWidget

    app = application()
    controller = GameController()
    controller.set_game(game, str(game.path))
    plots = PlotsWidget(controller)
    plots.resize(1400, 380)
    plots.show()
    log = LogView(controller)
    log.resize(500, 700)
    log.show()
    app.processEvents()
    return app, controller, (plots, log)


def figure_long_game(repeat: int, folder: Path) -> Figure:
    """One action late in a long game through the controller, with the Plots dock and the battle
    log on screen, against saving the same action on a copy of the same game (``Game.do``, which
    it cannot avoid). The views read and draw only what the action changed, so the ratio stays
    the same however long the game; Qt paints the views afterwards, outside the times."""
    from rules.actions import MoveUnit
    from storage.game import Game

    path, copy = folder / "long-game.sqlite", folder / "long-game-copy.sqlite"
    build_long_game(path, LONG_GAME_TURNS, LONG_GAME_EVENTS)
    shutil.copy(path, copy)
    app, controller, views = _shown_views(Game.open(path))
    bare = Game.open(copy)

    def move(battle, k: int) -> MoveUnit:
        u = battle.unit("union-12")
        return MoveUnit(u.id, u.x, round(u.y + (0.1 if k % 2 else -0.1), 3))

    times: list[list[float]] = [[], []]
    for k in range(repeat * 2 + 1):
        t0 = time.perf_counter()
        controller.run(move(controller.battle, k))
        t1 = time.perf_counter()
        app.processEvents()  # Qt paints the views: not timed
        t2 = time.perf_counter()
        bare.do(move(bare.battle, k))
        t3 = time.perf_counter()
        if k:  # the first of each is a warm-up
            times[0].append(t1 - t0)
            times[1].append(t3 - t2)
    for v in views:
        v.close()
        v.deleteLater()
    controller.close()
    bare.close()
    app.processEvents()
    prog, ref = statistics.median(times[0]), statistics.median(times[1])
    return Figure(
        f"one action in a {LONG_GAME_TURNS}-turn game of {LONG_GAME_EVENTS:,} events, plots and log shown",
        prog,
        ref,
        f"< {LONG_GAME_TARGET_RATIO:g}x Game.do",
        prog < LONG_GAME_TARGET_RATIO * ref,
    )


def charge_12_a_side():
    """The big battle with a 12-stand regiment charging a 12-stand regiment across open ground."""
    from dataclasses import replace

    from rules.assault import Charge
    from rules.battlefield import Battlefield
    from rules.model import Formation, Phase, Quality, Weapon

    battle = big_battle()
    tables = load_tables()
    bf = Battlefield(battle, tables)
    for dfn in battle.oob.in_play("csa"):
        if dfn.kind.value != "infantry":
            continue
        x, y = dfn.x, dfn.y + 7.0
        if not 0 < y < battle.table_height_in or bf.features_at((x, y)):
            continue
        att = replace(
            battle.unit("union-12"),
            x=x,
            y=y,
            facing_deg=0.0,
            stands=12,
            stands_start=12,
            quality=Quality.VETERAN,
            formation=Formation.ASSAULT_COLUMN,
        )
        d = replace(dfn, stands=12, stands_start=12, weapon=Weapon.RIFLED_MUSKET, formation=Formation.LINE)
        b = replace(battle.with_units(att, d), phase=Phase.MANEUVER)
        yield b, Charge(att.id, d.id), tables


def figure_odds(repeat: int) -> Figure:
    from rules.errors import RulesError
    from rules.odds import charge_odds

    found = None
    for b, charge, tables in charge_12_a_side():
        try:
            odds = charge_odds(b, charge, tables)
        except RulesError:
            continue
        if len(odds.outcomes) > 2:
            found = (b, charge, tables)
            break
    if found is None:
        raise SystemExit("no legal 12-stand charge found in the generated battle")
    b, charge, tables = found
    med = median_time(lambda: charge_odds(b, charge, tables), repeat)
    return Figure(
        "exact odds, 12 stands a side",
        med,
        None,
        f"< {ODDS_TARGET_S:g} s",
        med < ODDS_TARGET_S,
    )


def figure_checklist(repeat: int) -> list[Figure]:
    """The phase checklist of the big battle in Phase 3 (every unit that may still fire, with its
    best target): asked afresh, and asked again after one volley, as the Checklist dock asks it."""
    from dataclasses import replace

    import rules.checklist as cl
    from rules.model import Marker, Phase

    tables = load_tables()
    before = replace(big_battle(), phase=Phase.RANGED)
    items = cl.checklist(before, tables)
    fire = next(i for i in items if i.kind == "fire")
    firer, target = before.unit(fire.unit_id), before.unit(fire.other_id)
    after = before.with_units(
        firer.with_markers(add=[Marker.FIRED, Marker.SMOKE]),
        replace(target, stands=max(1, target.stands - 1), markers=target.markers | {Marker.DISORDER}),
    )
    first, again = [], []
    for _ in range(max(3, repeat // 3)):
        cl._FIRE_MEMO.found.clear()
        t0 = time.perf_counter()
        cl.checklist(before, tables)
        first.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        cl.checklist(after, tables)
        again.append(time.perf_counter() - t0)
    a, b = statistics.median(first), statistics.median(again)
    return [
        Figure(
            "checklist, Phase 3, asked afresh",
            a,
            None,
            f"< {CHECKLIST_FIRST_TARGET_S:g} s",
            a < CHECKLIST_FIRST_TARGET_S,
        ),
        Figure(
            "checklist, Phase 3, after a volley",
            b,
            None,
            f"< {CHECKLIST_AFTER_TARGET_S:g} s",
            b < CHECKLIST_AFTER_TARGET_S,
        ),
    ]


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


# the same start, then what the window does a moment after it is shown (gui.main_window.warm_up):
# everything the first drag or action needs is then loaded
_APP_READY = """
import sys
from gui.app import application, make_main_window
from gui.main_window import warm_up
app = application()
w = make_main_window()
w.show()
app.processEvents()
assert w.controller.battle is not None and w.controller.battle.units
warm_up()
sys.stdout.write("shown\\n")
sys.stdout.flush()
"""


def _child(code: str, env: dict[str, str]) -> float:
    """Seconds from starting a fresh Python child to its window being shown (it prints "shown")."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline() if proc.stdout else ""
    elapsed = time.perf_counter() - t0
    _, err = proc.communicate()
    if proc.returncode != 0 or "shown" not in line:
        raise SystemExit(f"the start-up child failed:\n{err}")
    return elapsed


def figure_startup(repeat: int, folder: Path) -> list[Figure]:
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["XDG_CONFIG_HOME"] = str(folder / "config")  # no last game: the demo battle starts
    env["BRIGADIER_SAVES_DIR"] = str(folder / "saves")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    # as an installed application does, the children keep compiled bytecode (here in the
    # benchmark's own folder, written by the untimed first run of each), whatever this shell says
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    prog, ready, ref = interleaved(
        [
            lambda: _child(_APP_WINDOW, env),
            lambda: _child(_APP_READY, env),
            lambda: _child(_BARE_WINDOW, env),
        ],
        max(3, repeat),
    )
    shutil.rmtree(folder / "saves", ignore_errors=True)
    return [
        Figure(
            "start-up to a shown window (demo battle)",
            prog,
            ref,
            f"< {STARTUP_TARGET_RATIO:g}x bare window",
            prog < STARTUP_TARGET_RATIO * ref,
        ),
        # for information: the libraries of play are loaded just after the window is shown
        Figure("  ... and ready for the first action", ready, ref, "(shown for information)", True),
    ]


# --------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------

FIGURES = ("drag", "los", "render", "save", "open", "odds", "checklist", "startup", "long_game", "spotting")


def _fmt(s: float | None) -> str:
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.0f} us"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def table(figures: list[Figure]) -> str:
    head = ("figure", "median", "reference", "ratio", "target", "result")
    rows = [
        (
            f.name,
            _fmt(f.median_s),
            _fmt(f.reference_s),
            "-" if f.ratio is None else f"{f.ratio:.2f}x",
            f.target,
            "pass" if f.passed else "FAIL",
        )
        for f in figures
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [line.format(*head), line.format(*("-" * w for w in widths))]
    out += [line.format(*r) for r in rows]
    return "\n".join(out)


def run(names: tuple[str, ...], repeat: int) -> list[Figure]:
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="brigadier-bench-") as tmp:
        folder = Path(tmp)
        for name in names:
            t0 = time.perf_counter()
            if name == "drag":
                figures.append(figure_drag(repeat))
            elif name == "los":
                figures.append(figure_los(repeat))
            elif name == "render":
                figures.append(figure_render(repeat))
            elif name == "save":
                figures.append(figure_save(repeat, folder))
            elif name == "open":
                figures.extend(figure_open(repeat, folder))
            elif name == "odds":
                figures.append(figure_odds(repeat))
            elif name == "checklist":
                figures.extend(figure_checklist(repeat))
            elif name == "long_game":
                figures.append(figure_long_game(repeat, folder))
            elif name == "startup":
                figures.extend(figure_startup(repeat, folder))
            elif name == "spotting":  # benchmarks/sight.py: spotting, and a player view following play
                from benchmarks.sight import sight_figures

                figures.extend(sight_figures(repeat, folder))
            print(f"  measured {name} in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Brigadier's benchmarks, with their targets.")
    parser.add_argument("--check", action="store_true", help="exit with status 1 if a target is missed")
    parser.add_argument("--only", action="append", choices=FIGURES, help="run only this figure (repeatable)")
    parser.add_argument("--repeat", type=int, default=15, help="timed runs per median (default 15)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    names = tuple(args.only) if args.only else FIGURES
    figures = run(names, args.repeat)
    print(table(figures))
    missed = [f.name for f in figures if not f.passed]
    if missed:
        print(f"\n{len(missed)} target(s) missed: {', '.join(missed)}")
    return 1 if (args.check and missed) else 0


if __name__ == "__main__":
    raise SystemExit(main())
