"""Soak: 50 game turns of scripted play through the GUI controller, off screen.

The main window is built on a demo game, so every view (canvas, roster, inspector, log) follows
each action. Each side's turn the script reserves a Staff Pip, moves several regiments, makes an
umpire's override, undoes and redoes a move, and ends the turn, all through
:class:`gui.controller.GameController` as the views do. No exception may escape and the refused
actions are reported through ``actionFailed``, not raised.

Memory must not grow turn over turn. It is measured after a full garbage collection, after five
turns of warm-up (caches, fonts, the first paint), at turns 0, 25 and 50, in two ways: the number
of Python objects the garbage collector tracks, and the process's resident size (which also sees
Qt's C++ objects). (``tracemalloc`` would see every Python allocation, but it slows this game
several times over, past the minute a test may take.) Every turn makes the same number of actions
and the game keeps a fixed amount per action on purpose (the journal's parsed events, the undo
stack's commands, the log's rows), so the two halves of the game grow by the same amount when
nothing leaks; a leak that grows with the game, such as a view that keeps every earlier item each
time it refreshes, makes the second half several times the first. The tolerances:

* Python objects: the second half may add at most 1.25x as many objects as the first, plus 2,000.
  The same actions make the same objects (about 470 are kept per turn here, 11,800 in each
  half); 2,000, about four turns' worth, covers a turn more or less and whatever the collector
  and Qt's wrappers have not yet freed.
* resident size: at most 1.5x the first half's growth, plus 8 MiB, because the C allocator
  returns memory to the system in whole arenas and pages, not as each object is freed, so the
  resident size moves in steps of up to a few MiB.
"""

from __future__ import annotations

import gc
import random

from rules.actions import EndTurn, MoveUnit, Override, ReservePip
from storage.game import Game
from storage.scenario import load_demo

TURNS = 50
WARMUP_TURNS = 5
MOVES_PER_SIDE = 4
PAGE = 4096


def _rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * PAGE


def _side_turn(controller, rng: random.Random) -> tuple[int, int]:
    """One side's turn through the controller; returns the events it added and the actions tried."""
    game = controller.game
    start = game.last_seq
    battle = controller.battle
    side = battle.active_side
    own = [u for u in battle.units.values() if u.in_play and u.side == side]
    attempted = 0
    with_pips = sorted(b.id for b in battle.brigades.values() if b.side == side and b.staff_pips > 0)
    if with_pips:
        controller.run(ReservePip(rng.choice(with_pips)))
        attempted += 1
    moves = []
    for u in rng.sample(own, min(MOVES_PER_SIDE, len(own))):
        x = min(max(u.x + rng.uniform(-2, 2), 0.5), battle.table_width_in - 0.5)
        y = min(max(u.y + rng.uniform(-2, 2), 0.5), battle.table_height_in - 0.5)
        moves.append(MoveUnit(u.id, round(x, 2), round(y, 2)))
    controller.select([m.unit_id for m in moves])
    controller.run_step(moves)  # a dragged selection placed: one step
    u = controller.battle.unit(moves[0].unit_id)
    controller.run(MoveUnit(u.id, u.x, round(min(u.y + 0.5, battle.table_height_in - 0.5), 2)))
    u = controller.battle.unit(rng.choice(own).id)
    controller.run(Override("unit", u.id, {"micro_hits": (u.micro_hits + 1) % 2}, "ruled at the table"))
    controller.undo()
    controller.redo()
    controller.run(EndTurn())
    return game.last_seq - start, attempted + len(moves) + 3


def _measure() -> tuple[int, int]:
    gc.collect()
    return len(gc.get_objects()), _rss_bytes()


def test_50_turns_through_the_controller_without_errors_or_memory_growth(qtbot, tmp_path):
    from gui.app import make_main_window

    path = tmp_path / "soak.sqlite"
    Game.create(path, load_demo(), seed=1863).close()
    win = make_main_window(str(path))
    qtbot.addWidget(win)
    win.show()
    win.docks["plots"].raise_()  # the charts follow the game action by action, shown throughout
    controller = win.controller
    failures: list[str] = []
    controller.actionFailed.connect(failures.append)
    rng = random.Random(1863)
    app = qtbot  # events are processed after every turn, as the event loop would

    def turn() -> tuple[int, int]:
        a, b = _side_turn(controller, rng), _side_turn(controller, rng)
        app.wait(1)
        return a[0] + b[0], a[1] + b[1]

    for _ in range(WARMUP_TURNS):
        turn()
    marks = [_measure()]
    events = []
    for t in range(TURNS):
        events.append(turn())
        if t + 1 in (TURNS // 2, TURNS):
            marks.append(_measure())

    assert controller.battle.turn == 1 + WARMUP_TURNS + TURNS
    assert all(added == tried for added, tried in events)  # every action of every turn was made
    assert failures == []
    assert controller.game.last_seq == len(controller.events())
    assert win._plots is not None and win._plots.isVisible()
    assert win._plots.data.turns[-1] == controller.battle.turn  # every turn, to the one now, is charted
    py_first, py_last = marks[1][0] - marks[0][0], marks[2][0] - marks[1][0]
    rss_first, rss_last = marks[1][1] - marks[0][1], marks[2][1] - marks[1][1]
    assert py_last <= 1.25 * max(py_first, 0) + 2000, (py_first, py_last)
    assert rss_last <= 1.5 * max(rss_first, 0) + 8 * 1024 * 1024, (rss_first, rss_last)
    win.close()
