"""The paths an umpire waits on late in a club game, each timed cold where a user meets it cold.

On the club game (Gettysburg played 30 turns, the side to act then played on into turn 31 where
a figure needs Phase 2 or Phase 3; :func:`benchmarks.games.play_into_turn`), in the painted
window (:mod:`benchmarks.harness`), against the plain work a competent engineer would write for
the same result:

* **Charge dialog** (Phase 2): Game > Declare charge opened on a charger with a target it may
  charge (the window's own dialog, filled for the charge), until the dialog is painted; against
  one ``rules.legality.charge_targets`` and one ``rules.odds.charge_odds`` of the charger and the
  target the dialog chose. The first dialog after opening the window is timed on its own (cold:
  the dialog and its odds chart are made then).
* **first undo**: a freshly opened window (a fresh copy of the save each round) and its first
  Undo (End turn undone: back into Phase 3, the Checklist dock shown), until the window is painted;
  against ``Game.undo_step`` on a freshly opened game (cold too). How long the checklist then
  takes to be worked out whole is printed beside it.
* **volley in Phase 3**: one volley (``Shoot``) of the side to act, the Checklist dock shown,
  until the window is painted; against ``Game.do`` of the same volley on another copy. Every
  firer fires once, in the order of battle; the first volley after opening is the cold one.
* **Undo to here, 1,000 back**: *Undo to here* on the entry 1,000 back in a freshly opened window
  (a fresh copy each round, so each is cold); against a set-based undo written with ``sqlite3``
  alone: the rows moved to the redo table and taken off the journal in two statements in one
  transaction, and the battle read from the nearest snapshot with the entries after it applied.
* **verify**: ``storage.replay.verify`` of the club game's journal (processor time, the least of
  the runs); against a plain replay of the same journal with its hashes checked: every action
  resolved again with its recorded dice, and the hash chain worked out again.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import time
from pathlib import Path

from benchmarks.measure import Figure, Memory, Saves, ratio_figure

CHARGE_TARGET_RATIO = 2.0
FIRST_UNDO_TARGET_RATIO = 5.0
VOLLEY_TARGET_RATIO = 5.0
FAR_UNDO_TARGET_RATIO = 2.0
VERIFY_TARGET_RATIO = 2.0
#: How far back *Undo to here* goes.
FAR_UNDO_BACK = 1_000


def _checklist_settled(window) -> float:
    """Seconds until the Checklist dock has worked its items out (after a step has been painted)."""
    view = window.window.checklist
    t0 = time.perf_counter()
    while not view.up_to_date:
        window.app.processEvents()
    return time.perf_counter() - t0


# -- the Charge dialog -----------------------------------------------------------------------------


def _chargers(battle, tables) -> list[str]:
    from rules.legality import charge_targets

    out = []
    for u in battle.oob.in_play(battle.active_side):
        if u.kind.value == "infantry" and any(o.allowed for o in charge_targets(battle, u.id, tables)):
            out.append(u.id)
    return out


def figure_charge_dialog(repeat: int, saves: Saves) -> list[Figure]:
    from benchmarks.harness import PaintedWindow
    from gui.combat_dialogs.charge import charge_dialog
    from rules.assault.charge import Charge
    from rules.legality import charge_targets
    from rules.odds import charge_odds

    maneuver = saves.club_in("maneuver")
    Memory.reset()
    warm: list[list[float]] = [[], []]
    cold: list[list[float]] = [[], []]
    n = 0
    for _ in range(max(3, repeat // 3)):  # a freshly opened window each round: its first dialog is cold
        window = PaintedWindow(saves.copy(maneuver, "charge-window.sqlite"))
        c = window.controller
        chargers = _chargers(c.battle, c.tables)
        if not chargers:
            raise RuntimeError("no unit of the club game may charge in its Phase 2")
        n = len(chargers)

        def plain(a: str, c=c) -> float:
            t0 = time.perf_counter()
            options = charge_targets(c.battle, a, c.tables)
            target = next(o.unit_id for o in options if o.allowed)  # the dialog's choice
            charge_odds(c.battle, Charge(a, target), c.tables)
            return time.perf_counter() - t0

        for k in range(max(5, n)):
            a = chargers[k % n]
            out = cold if k == 0 else warm
            if k % 2 == 0:  # the reference first in every other dialog (the first, cold, included)
                out[1].append(plain(a))
            t0 = time.perf_counter()
            dlg = charge_dialog(c.battle, c.tables, a, None, window.window)  # as Game > Declare charge
            dlg.show()
            window.app.processEvents()
            out[0].append(time.perf_counter() - t0)
            dlg.reject()
            window.settle()
            if k % 2 == 1:
                out[1].append(plain(a))
        window.close()
    peak = Memory.peak_mb()
    what = "charge_targets and charge_odds"
    return [
        ratio_figure(
            f"Charge dialog opened in Phase 2 ({n} chargers in turn; club game, turn 31)",
            statistics.median(warm[0]),
            statistics.median(warm[1]),
            CHARGE_TARGET_RATIO,
            what,
            peak,
        ),
        ratio_figure(
            "  ... the first after opening the window (cold)",
            statistics.median(cold[0]),
            statistics.median(cold[1]),
            CHARGE_TARGET_RATIO,
            what,
            peak,
        ),
    ]


def warm_and_cold(
    name: str, prog: list[float], ref: list[float], target: float, what: str, peak: float | None
) -> list[Figure]:
    """The figure of the rounds after the first (warm), and the first on a line of its own (cold:
    the first after opening the window)."""
    return [
        ratio_figure(name, statistics.median(prog[1:]), statistics.median(ref[1:]), target, what, peak),
        ratio_figure("  ... the first after opening the window (cold)", prog[0], ref[0], target, what, peak),
    ]


# -- the first undo --------------------------------------------------------------------------------


def figure_first_undo(repeat: int, saves: Saves) -> list[Figure]:
    from benchmarks.harness import PaintedWindow
    from storage.game import Game

    club = saves.club()
    Memory.reset()
    prog: list[float] = []
    ref: list[float] = []
    whole: list[float] = []
    for _ in range(max(3, repeat // 3)):
        window = PaintedWindow(saves.copy(club, "first-undo-window.sqlite"))
        t = window.time(window.controller.undo)
        whole.append(t + _checklist_settled(window))
        if window.controller.battle.phase.value != "ranged":
            raise RuntimeError("the first undo of the club game should go back into Phase 3")
        window.close()
        game = Game.open(saves.copy(club, "first-undo-core.sqlite"))
        t0 = time.perf_counter()
        game.undo_step()
        ref.append(time.perf_counter() - t0)
        game.close()
        prog.append(t)
    peak = Memory.peak_mb()
    p, r, w = (statistics.median(x) for x in (prog, ref, whole))
    return [
        ratio_figure(
            "first undo in a freshly opened window (End turn undone, back into Phase 3; club game)",
            p,
            r,
            FIRST_UNDO_TARGET_RATIO,
            "Game.undo_step, cold",
            peak,
        ),
        Figure(
            f"  ... and the Phase 3 checklist worked out whole ({w * 1000:.0f} ms from the press)",
            w,
            r,
            "(shown for information)",
            True,
            peak,
        ),
    ]


# -- a volley in Phase 3 ---------------------------------------------------------------------------


def _firers(battle, tables, only: list[str] | None = None) -> list[tuple[str, str]]:
    """The units of the side to act that may fire (or those of ``only``), each with its first
    legal target."""
    from rules.legality import shoot_targets

    out = []
    for u in battle.oob.in_play(battle.active_side):
        if only is not None and u.id not in only:
            continue
        target = next((o.unit_id for o in shoot_targets(battle, u.id, tables) if o.allowed), None)
        if target is not None:
            out.append((u.id, target))
    return out


def figure_volley(repeat: int, saves: Saves) -> list[Figure]:
    from benchmarks.harness import PaintedWindow
    from rules.shooting.shoot import Shoot
    from storage.game import Game

    ranged = saves.club_in("ranged")
    Memory.reset()
    window = PaintedWindow(saves.copy(ranged, "volley-window.sqlite"))
    bare = Game.open(saves.copy(ranged, "volley-core.sqlite"))
    c = window.controller
    pairs = _firers(c.battle, c.tables)
    if len(pairs) < 3:
        raise RuntimeError("too few units of the club game may fire in its Phase 3")
    prog: list[float] = []
    ref: list[float] = []
    whole: list[float] = []
    for firer, _ in pairs[: max(3, repeat)]:
        # its target now: the volleys before it may have changed which one it must fire at
        target = next((x for f, x in _firers(c.battle, c.tables, [firer]) if f == firer), None)
        if target is None:
            continue
        t = window.time(lambda f=firer, x=target: c.run(Shoot.on_table(c.battle, f, x, c.tables)))
        whole.append(t + _checklist_settled(window))
        t0 = time.perf_counter()
        bare.do(Shoot.on_table(bare.battle, firer, target, bare.tables))
        ref.append(time.perf_counter() - t0)
        prog.append(t)
    if c.game.last_seq != bare.last_seq:
        raise RuntimeError("the window's volleys and the game's are not the same")
    peak = Memory.peak_mb()
    window.close()
    bare.close()
    return [
        *warm_and_cold(
            f"volley in Phase 3, the checklist shown ({len(prog)} firers in turn; club game, turn 31)",
            prog,
            ref,
            VOLLEY_TARGET_RATIO,
            "Game.do",
            peak,
        ),
        Figure(
            f"  ... and the checklist brought up to date ({statistics.median(whole) * 1000:.0f} ms a volley)",
            statistics.median(whole),
            statistics.median(ref),
            "(shown for information)",
            True,
            peak,
        ),
    ]


# -- Undo to here, far back ------------------------------------------------------------------------


def set_based_undo(path: Path, seq: int):
    """The plain reference of *Undo to here*: the journal's entries after ``seq`` moved to the redo
    table in two statements in one transaction (the save's change counter kept, as every write
    keeps it), and the battle after ``seq`` read from the nearest snapshot with the entries after it
    applied."""
    from rules.battle.battle import Battle
    from rules.battle.events import Changes, apply

    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("BEGIN IMMEDIATE")
        last = conn.execute("SELECT max(seq) FROM journal").fetchone()[0]
        base = conn.execute("SELECT coalesce(max(pos), 0) FROM redo").fetchone()[0]
        cols = ", ".join(f'"{r[1]}"' for r in conn.execute("PRAGMA table_info(journal)"))
        conn.execute(
            f"INSERT INTO redo (pos, {cols}) SELECT ? + ? - seq + 1, {cols} FROM journal WHERE seq > ?",
            (base, last, seq),
        )
        conn.execute("DELETE FROM journal WHERE seq > ?", (seq,))
        conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'change_count'")
        conn.execute("COMMIT")
        at, text = conn.execute(
            "SELECT seq, battle FROM snapshots WHERE seq <= ? ORDER BY seq DESC LIMIT 1", (seq,)
        ).fetchone()
        battle = Battle.from_dict(json.loads(text))
        for (changes,) in conn.execute(
            "SELECT changes FROM journal WHERE seq > ? AND seq <= ? ORDER BY seq", (at, seq)
        ):
            battle = apply(battle, Changes.from_dict(json.loads(changes)))
        return battle
    finally:
        conn.close()


def figure_far_undo(repeat: int, saves: Saves) -> list[Figure]:
    """*Undo to here* 100 and 1,000 entries back, each in a freshly opened window (a fresh copy of
    the club game each round: every one is cold): 100 back against ``Game.undo_to`` of the same
    entries on a freshly opened copy (the figure's target before the set-based undo, 5x), 1,000
    back against the set-based undo written plainly (:func:`set_based_undo`, 2x)."""
    from benchmarks.figures_app import UNDO_TARGET_RATIO
    from benchmarks.harness import PaintedWindow
    from rules.battle.events import diff
    from storage.game import Game

    club = saves.club()
    Memory.reset()
    out = []
    for back_by in (100, FAR_UNDO_BACK):
        prog: list[float] = []
        ref: list[float] = []
        n = 0
        for _ in range(max(3, repeat // 3)):
            window = PaintedWindow(saves.copy(club, "far-undo-window.sqlite"))
            c = window.controller
            back = c.game.step_of(c.game.last_seq - back_by)[1]
            n = c.game.last_seq - back
            prog.append(window.time(lambda b=back, c=c: c.undo_to(b)))
            battle = c.battle
            window.close()
            path = saves.copy(club, "far-undo-core.sqlite")
            if back_by == FAR_UNDO_BACK:
                t0 = time.perf_counter()
                plain = set_based_undo(path, back)
                ref.append(time.perf_counter() - t0)
            else:
                game = Game.open(path)
                t0 = time.perf_counter()
                game.undo_to(back)
                ref.append(time.perf_counter() - t0)
                plain = game.battle
                game.close()
            if not diff(plain, battle).empty:
                raise RuntimeError("the window's Undo to here and the reference differ")
        out.append((n, statistics.median(prog), statistics.median(ref)))
    peak = Memory.peak_mb()
    (n1, p1, r1), (n2, p2, r2) = out
    return [
        ratio_figure(
            f"Undo to here, {n1:,} entries back in a freshly opened window (club game, every dock shown)",
            p1,
            r1,
            UNDO_TARGET_RATIO,
            "Game.undo_to, cold",
            peak,
        ),
        ratio_figure(
            f"Undo to here, {n2:,} entries back in a freshly opened window (club game, every dock shown)",
            p2,
            r2,
            FAR_UNDO_TARGET_RATIO,
            "a set-based undo from the nearest snapshot",
            peak,
        ),
    ]


# -- verify ----------------------------------------------------------------------------------------


def plain_replay(path: Path) -> int:
    """A plain replay of a save's journal with its hashes checked: every action resolved again
    from the state before it with its recorded dice, and the hash chain worked out again."""
    from rules.actions import resolve
    from rules.dice import RecordedDice
    from rules.tables import in_force
    from storage import schema
    from storage.game import Game

    game = Game.open(path)
    try:
        battle = game.scenario
        n = 0
        for ev in game.events(keep=False):
            tables = in_force(game.base_tables, battle.table_values)
            battle = resolve(battle, ev.action, RecordedDice(ev.rolls), tables).battle_after
            n += 1
        conn = game.conn
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        start = conn.execute("SELECT battle FROM scenario WHERE id = 1").fetchone()[0]
        tables = [tuple(r) for r in conn.execute("SELECT key, value FROM rule_tables")]
        head = schema.chain_start(str(meta.get("dice_seed", "")), start, tables)
        cur = conn.execute("SELECT * FROM journal ORDER BY seq")
        cols = [d[0] for d in cur.description]
        for r in cur.fetchall():
            row = dict(zip(cols, r, strict=True))
            head = schema.entry_hash(head, row)
            if row["hash"] != head:
                raise RuntimeError(f"entry {row['seq']} does not match its hash")
        return n
    finally:
        game.close()


def _verified(path: Path) -> int:
    from storage.game import Game
    from storage.replay import verify

    game = Game.open(path)
    try:
        return verify(game)
    finally:
        game.close()


def figure_verify(repeat: int, saves: Saves) -> list[Figure]:
    club = saves.club()
    Memory.reset()
    prog: list[float] = []
    ref: list[float] = []
    n = 0
    for _ in range(max(3, repeat // 3)):
        t0 = time.process_time()
        n = _verified(club)
        prog.append(time.process_time() - t0)
        t0 = time.process_time()
        if plain_replay(club) != n:
            raise RuntimeError("verify and the plain replay read different journals")
        ref.append(time.process_time() - t0)
    peak = Memory.peak_mb()
    return [
        ratio_figure(
            f"verify the club game ({n:,} entries; processor time, the least of the runs)",
            min(prog),
            min(ref),
            VERIFY_TARGET_RATIO,
            "a plain replay with its hashes checked",
            peak,
        )
    ]


# -- the checklist on the club game ----------------------------------------------------------------


def figure_club_checklist(repeat: int, saves: Saves) -> list[Figure]:
    """The phase checklist of the club game at turn 31, as the Checklist dock asks it (the
    game's open items): in Phase 2 asked afresh, in Phase 3 asked afresh and after one volley
    (the first firer's, at its target), everything kept emptied before each round."""
    import rules.turn.fire_items as fire_items
    from benchmarks.figures_core import CHECKLIST_AFTER_TARGET_S, CHECKLIST_FIRST_TARGET_S
    from rules.shooting.shoot import Shoot
    from storage.checklist import open_items
    from storage.game import Game

    Memory.reset()
    maneuver = Game.open(saves.copy(saves.club_in("maneuver"), "checklist-maneuver.sqlite"))
    ranged = Game.open(saves.copy(saves.club_in("ranged"), "checklist-ranged.sqlite"))
    (firer, target), *_ = _firers(ranged.battle, ranged.tables)
    before = ranged.battle
    ranged.do(Shoot.on_table(before, firer, target, ranged.tables))
    times: list[list[float]] = [[], [], []]
    for _ in range(max(3, repeat // 3)):
        fire_items._FIRE_MEMO.clear()
        t0 = time.perf_counter()
        open_items(maneuver)
        times[0].append(time.perf_counter() - t0)
        ranged.undo()
        fire_items._FIRE_MEMO.clear()
        t0 = time.perf_counter()
        open_items(ranged)
        times[1].append(time.perf_counter() - t0)
        ranged.redo()
        t0 = time.perf_counter()
        open_items(ranged)
        times[2].append(time.perf_counter() - t0)
        fire_items._FIRE_MEMO.whole.clear()  # (the state after the volley is asked about afresh again)
    peak = Memory.peak_mb()
    maneuver.close()
    ranged.close()
    two, three, volley = (statistics.median(t) for t in times)
    return [
        Figure(
            "checklist, Phase 2 of the club game (turn 31), asked afresh",
            two,
            None,
            f"< {CHECKLIST_FIRST_TARGET_S:g} s",
            two < CHECKLIST_FIRST_TARGET_S,
            peak,
        ),
        Figure(
            "checklist, Phase 3 of the club game (turn 31), asked afresh",
            three,
            None,
            f"< {CHECKLIST_FIRST_TARGET_S:g} s",
            three < CHECKLIST_FIRST_TARGET_S,
            peak,
        ),
        Figure(
            "  ... after a volley",
            volley,
            None,
            f"< {CHECKLIST_AFTER_TARGET_S:g} s",
            volley < CHECKLIST_AFTER_TARGET_S,
            peak,
        ),
    ]
