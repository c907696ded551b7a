"""The figures of the rules core and the saves: a drag step, line of sight, the odds of a charge,
saving an action, opening a long game, reading the journal."""

from __future__ import annotations

import sqlite3
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import shapely

from benchmarks.generate import big_battle, scaled_battle
from benchmarks.measure import (
    EVENT_SIZES,
    Figure,
    Memory,
    Saves,
    interleaved,
    median_time,
    ratio_figure,
)
from rules.battle.battle import Battle
from rules.tables import load_tables

# --------------------------------------------------------------------------------------------
# The rules core: a drag step, line of sight, the odds of a charge
# --------------------------------------------------------------------------------------------

DRAG_TARGET_S = 0.008
LOS_TARGET_RATIO = 1.0
ODDS_TARGET_S = 0.5
CHECKLIST_FIRST_TARGET_S = 2.0
CHECKLIST_AFTER_TARGET_S = 0.5

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
    from rules.battlefield.field import Battlefield
    from rules.reactions.triggers import find_windows

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


def figure_drag(repeat: int) -> list[Figure]:
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
    return [
        Figure(
            f'drag step ({len(steps)} steps of {DRAG_STEP_IN:g}", {windows} windows; slowest {max(times) * 1e3:.1f} ms)',
            med,
            None,
            f"< {DRAG_TARGET_S * 1000:g} ms",
            med < DRAG_TARGET_S,
        )
    ]


def los_reference(battle: Battle, tables, viewers, targets) -> Callable[[], np.ndarray]:
    """Line of sight written plainly, doing the work the rules' own cannot avoid: the sight
    segments, one query of the same STRtree of the terrain with the intersects predicate, and
    the length of each segment inside each feature it meets that can limit or block sight, by
    the same clipping against the half-planes of a convex outline (Cyrus-Beck) and a shapely
    intersection for the others. (What it leaves out, the rules do besides: elevation, crests,
    structures, cover of the ground, and the friendly units in the way of each stand.)"""
    from rules.battlefield.field import _CLEAR, _terrain_index

    ti = _terrain_index(battle.terrain, tables)

    def run() -> np.ndarray:
        vo = np.array([[u.x, u.y] for u in viewers], dtype=float)
        to = np.array([[u.x, u.y] for u in targets], dtype=float)
        n, m = len(vo), len(to)
        coords = np.empty((n, m, 2, 2))
        coords[:, :, 0, :] = vo[:, None, :]
        coords[:, :, 1, :] = to[None, :, :]
        flat = coords.reshape(n * m, 2, 2)
        segs = shapely.linestrings(flat)
        si, fj = ti.tree.query(segs, predicate="intersects")
        keep = ti.sight[fj] != _CLEAR
        si, fj = si[keep], fj[keep]
        a, b = flat[si, 0], flat[si, 1]
        out = np.zeros(len(si))
        cx = ti.convex[fj]
        d = b[cx] - a[cx]
        normals, offsets = ti.edge_n[fj[cx]], ti.edge_c[fj[cx]]
        num = offsets - (normals * a[cx][:, None, :]).sum(axis=2)
        den = (normals * d[:, None, :]).sum(axis=2)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = num / den
        lo = np.where(den < 0, t, 0.0).max(axis=1, initial=0.0)
        hi = np.where(den > 0, t, 1.0).min(axis=1, initial=1.0)
        outside = ((den == 0) & (num < 0)).any(axis=1)
        out[cx] = np.where(outside, 0.0, np.clip(hi - lo, 0.0, 1.0)) * np.hypot(d[:, 0], d[:, 1])
        out[~cx] = shapely.length(shapely.intersection(segs[si[~cx]], ti.areas[fj[~cx]]))
        return out

    return run


def los_reference_shapely(battle: Battle, tables, viewers, targets):
    """Sight lines with shapely alone, the reference of the spotting figure (:mod:`benchmarks.sight`):
    segments, one STRtree query with the intersects predicate, and the length of each sight line
    inside each feature it meets that can limit or block sight, by shapely's intersection."""
    from rules.battlefield.field import _CLEAR, _terrain_index

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


def _los_pair(battle: Battle, viewers, targets, repeat: int) -> tuple[float, float, float | None]:
    from rules.battlefield.field import Battlefield

    tables = load_tables()

    def program():
        return Battlefield(battle, tables).visibility_matrix(viewers, targets)

    Memory.reset()
    prog, ref = interleaved([program, los_reference(battle, tables, viewers, targets)], repeat)
    return prog, ref, Memory.peak_mb()


def one_firer(battle: Battle):
    """The firer in the middle of the Union's front rank, and every Confederate unit."""
    union = battle.oob.in_play("union")
    mid = battle.table_width_in / 2
    firer = min(union, key=lambda u: (abs(u.x - mid), -u.y))
    return [firer], battle.oob.in_play("csa")


def figure_los(repeat: int) -> list[Figure]:
    battle = big_battle()
    viewers, targets = battle.oob.in_play("union"), battle.oob.in_play("csa")
    prog, ref, peak = _los_pair(battle, viewers, targets, repeat)
    out = [
        ratio_figure(
            f"line of sight {len(viewers)} x {len(targets)}", prog, ref, LOS_TARGET_RATIO, "plain", peak
        )
    ]
    big = scaled_battle(2_000)
    firer, enemies = one_firer(big)
    prog, ref, peak = _los_pair(big, firer, enemies, repeat)
    out.append(
        ratio_figure(
            f"line of sight, one firer x {len(enemies)} (2,000 units, {len(big.terrain):,} features)",
            prog,
            ref,
            LOS_TARGET_RATIO,
            "plain",
            peak,
        )
    )
    return out


def charge_12_a_side():
    """The big battle with a 12-stand regiment charging a 12-stand regiment across open ground."""
    from rules.assault.charge import Charge
    from rules.battle.words import Formation, Phase, Quality, Weapon
    from rules.battlefield.field import Battlefield

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


def figure_odds(repeat: int) -> list[Figure]:
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
    return [Figure("exact odds, 12 stands a side", med, None, f"< {ODDS_TARGET_S:g} s", med < ODDS_TARGET_S)]


# --------------------------------------------------------------------------------------------
# Saves: an action, opening a long game, reading the journal
# --------------------------------------------------------------------------------------------

SAVE_TARGET_RATIO = 2.0
#: The idle before each timed save (program and references alike): the umpire's actions come
#: seconds apart, and this machine's disk syncs a commit made straight after another in a fifth
#: of the time of one made after a pause (see ``figure_save``).
SAVE_PAUSE_S = 0.1
OPEN_TARGET_S = 1.0
OPEN_TARGET_RATIO = 5.0
OPEN_TURNS = 40
OPEN_EVENTS = 10_000
PARSE_TARGET_RATIO = 1.2


def _raw_journal(path: Path, chained: bool = False) -> sqlite3.Connection:
    """A bare journal table as a save's, WAL and ``synchronous=FULL``; ``chained``: with the
    save's ``hash`` column and a ``meta`` table holding a change counter."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    from storage.schema import _EVENT_COLUMNS

    # the same table as a save's journal, with its index
    extra = ", hash TEXT" if chained else ""
    conn.execute(f"CREATE TABLE journal (seq INTEGER PRIMARY KEY CHECK (seq >= 1), {_EVENT_COLUMNS}{extra})")
    conn.execute("CREATE INDEX journal_turn ON journal (turn)")
    if chained:
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("INSERT INTO meta VALUES ('change_count', '0')")
    return conn


def figure_save(repeat: int, saves: Saves) -> list[Figure]:
    """``Game.do`` of a move against what a competent hand would write for the same work: in one
    ``BEGIN IMMEDIATE`` transaction, read the change counter, insert the same journal row with its
    sha256 hash chained from the previous row's, measure the sight lines of the unit moved (to each
    enemy unit near enough for one of the two to make the other out, with shapely alone, as the
    spotting figure's reference) and insert the row of what each side sees now, bump the counter,
    commit. The chained insert without the sight lines (the figure's reference before each
    entry kept what each side saw), and a bare insert of the row (before the save chained its
    entries), are printed beside it.

    Each call, of the program and of the references alike, starts after :data:`SAVE_PAUSE_S` of
    idle, as the umpire's actions do. Timed back to back instead, the reference's commit came tens
    of microseconds after the program's and found the disk still awake: on this machine
    ``fdatasync`` of four pages takes about 60 us straight after another and 200 to 450 us after
    10 ms or more of idle, whatever wrote them; and after the idle the processor's work is slower
    too, on both sides alike. The back-to-back figure is printed beside, for information."""
    import hashlib
    import json
    import math

    from rules.actions import MoveUnit
    from rules.sight.spotting import spotting_limit_in
    from storage.game import Game
    from storage.schema import EVENT_COLUMNS

    folder = saves.folder
    battle = big_battle()
    for p in (folder / "save.sqlite", folder / "raw.sqlite", folder / "chained.sqlite"):
        p.unlink(missing_ok=True)
    game = Game.create(folder / "save.sqlite", battle)
    raw = _raw_journal(folder / "raw.sqlite")
    chained = _raw_journal(folder / "chained.sqlite", chained=True)
    unit = battle.unit("union-12")
    state = {"k": 0, "head": hashlib.sha256(b"start").hexdigest(), "count": 0}
    tables = load_tables()
    reach = spotting_limit_in(unit, tables)
    in_reach = [
        e
        for e in battle.oob.in_play("csa")
        if math.hypot(e.x - unit.x, e.y - unit.y) <= max(reach, spotting_limit_in(e, tables))
    ]
    sight_lines = los_reference_shapely(battle, tables, [unit], in_reach)
    chained.execute(
        "CREATE TABLE sight (seq INTEGER PRIMARY KEY, hash TEXT, seers TEXT NOT NULL, point TEXT)"
    )

    def program():
        state["k"] += 1
        return game.do(MoveUnit(unit.id, unit.x, unit.y - 0.1 * (state["k"] % 50 + 1)))

    first = program().to_row()  # the references write the same row
    assert EVENT_COLUMNS[0] == "seq"
    rest = [first[c] for c in EVENT_COLUMNS[1:]]  # each entry gets the next seq
    cols = ", ".join(EVENT_COLUMNS)
    insert_chained = f"INSERT INTO journal ({cols}, hash) VALUES ({', '.join('?' for _ in EVENT_COLUMNS)}, ?)"

    def reference(with_sight: bool = True):
        chained.execute("BEGIN IMMEDIATE")
        count = int(chained.execute("SELECT value FROM meta WHERE key = 'change_count'").fetchone()[0])
        if count != state["count"]:
            raise RuntimeError("changed elsewhere")
        values = [count + 1, *rest]
        h = hashlib.sha256(state["head"].encode("ascii"))
        h.update(json.dumps(values, ensure_ascii=False).encode("utf-8", "surrogatepass"))
        head = h.hexdigest()
        chained.execute(insert_chained, (*values, head))
        if with_sight:
            sight_lines()  # the lengths inside the features met, which say who sees whom
            seers = json.dumps({unit.id: [e.id for e in in_reach]})
            chained.execute("INSERT INTO sight VALUES (?, ?, ?, NULL)", (count + 1, head, seers))
        chained.execute("UPDATE meta SET value = ? WHERE key = 'change_count'", (str(count + 1),))
        chained.execute("COMMIT")
        state["head"], state["count"] = head, count + 1

    def bare():
        row = dict(first)
        row["seq"] = None
        names = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        raw.execute("BEGIN")
        raw.execute(f"INSERT INTO journal ({names}) VALUES ({marks})", tuple(row.values()))
        raw.execute("COMMIT")

    prog, ref, chained_ref, bare_ref = interleaved(
        [program, reference, lambda: reference(False), bare], repeat * 8, pause=SAVE_PAUSE_S
    )
    prog_b2b, ref_b2b = interleaved([program, reference], repeat * 8)
    game.close()
    raw.close()
    chained.close()
    return [
        ratio_figure(
            f"save one action (Game.do MoveUnit, with what each side sees: {len(in_reach)} sight lines)",
            prog,
            ref,
            SAVE_TARGET_RATIO,
            "chained insert and sight lines",
        ),
        Figure(
            "  ... against the chained insert alone",
            prog,
            chained_ref,
            "(shown for information)",
            True,
        ),
        Figure(
            "  ... against a bare insert of the row",
            prog,
            bare_ref,
            "(shown for information)",
            True,
        ),
        Figure(
            "  ... both timed back to back, no pause",
            prog_b2b,
            ref_b2b,
            "(shown for information)",
            True,
        ),
    ]


def figure_open(repeat: int, saves: Saves) -> list[Figure]:
    from storage.game import Game

    path = saves.long(OPEN_TURNS, OPEN_EVENTS)

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
            f"open a {OPEN_TURNS}-turn game of {OPEN_EVENTS:,} events (Game.open)",
            prog,
            None,
            f"< {OPEN_TARGET_S:g} s",
            prog < OPEN_TARGET_S,
        ),
        ratio_figure("  ... against a raw read of the journal", prog, ref, OPEN_TARGET_RATIO, "raw read"),
    ]


def parse_per_event(path: Path, repeat: int, reads: int = 1) -> tuple[float, float | None]:
    """The processor's seconds an event to read a whole journal (``Game.events()`` on a game just
    opened, so that none is read yet), the least of ``repeat`` reads, and the peak memory. With
    ``reads``, each of the ``repeat`` is that many reads of the journal, each on the game opened
    afresh, their times and events summed (a short journal read as many events as a long one, so
    that each measure lasts as long and meets as much of the machine's other work).

    The processor time of this process (not the clock's), as a cost: reading the journal waits
    on nothing else, and on a machine shared with others the clock counts their work too; the
    least, as ``timeit`` takes it, since what else the machine does only adds to a read."""
    from storage.game import Game

    def one() -> float:
        spent, events = 0.0, 0
        for _ in range(reads):
            g = Game.open(path)
            try:
                t0 = time.process_time()
                events += len(g.events())
                spent += time.process_time() - t0
            finally:
                g.close()
        return spent / events

    Memory.reset()
    one()
    per = min(one() for _ in range(repeat))
    return per, Memory.peak_mb()


def figure_parse(repeat: int, saves: Saves, measured: dict) -> list[Figure]:
    small, large = EVENT_SIZES[0], EVENT_SIZES[-1]
    ps, pl = saves.demo(small), saves.demo(large)
    times: dict[int, list[float]] = {small: [], large: []}
    Memory.reset()
    for _ in range(max(5, repeat // 2)):  # in turn, so that noise hits both
        for n, p in ((small, ps), (large, pl)):
            # as many events read of each: the short journal read again and again
            times[n].append(parse_per_event(p, 1, reads=large // n)[0])
    peak = Memory.peak_mb()
    per_s, per_l = min(times[small]), min(times[large])
    measured[("parse", small)] = (per_s, peak)
    measured[("parse", large)] = (per_l, peak)
    return [
        ratio_figure(
            f"read the journal (processor time), an event at {large:,} against at {small:,} events",
            per_l,
            per_s,
            PARSE_TARGET_RATIO,
            f"at {small:,}",
            peak,
        )
    ]


def figure_checklist(repeat: int) -> list[Figure]:
    """The phase checklist of the big battle in Phase 3 (every unit that may still fire, with its
    best target): asked afresh, and asked again after one volley, as the Checklist dock asks it."""
    from dataclasses import replace

    import rules.turn.checklist as cl
    import rules.turn.fire_items as fire_items
    from rules.battle.words import Marker, Phase

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
        fire_items._FIRE_MEMO.clear()
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
