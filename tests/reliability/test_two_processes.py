"""Two processes play one save at once: 1,000 mixed actions, undos and redos, nothing lost,
nothing duplicated, no stale write.

One copy is a window's controller (:class:`gui.controller.GameController`, Qt offscreen) in this
process; the other is a second process playing through :class:`storage.game.Game`, as the command
line does. Each plays in bursts (actions from the scripted game, some of two actions as one step,
undos and redos) and keeps its save open between them, so that it is often behind the other.
When it is, its write is refused ("changed by another copy"): it reads the game again and plays
on.

Every write that succeeded is logged with the save's change counter before and after it. Then:

* no stale write succeeded: the counters before the successful writes are exactly 0, 1, 2 ...
  with no number twice (two writes from the same state would share one), each write one step;
* nothing is lost or duplicated: replaying the logged writes in that order on a model of the
  journal (entries, and the undone entries to redo) gives exactly the save's journal and undone
  entries, every action once, with its dice;
* the save replays (``verify``: the journal resolves again, and its hash chain is whole).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import time
from pathlib import Path

from rules.actions import Action
from rules.errors import RulesError
from storage.errors import ChangedElsewhereError
from storage.game import Game
from storage.replay import verify
from storage.scenario import load_demo
from tests.reliability.scripted_game import next_action

TOTAL = 1000  # successful actions, undos and redos, of both processes together
EACH = TOTAL // 2


def _action_log(events) -> list[list]:
    return [[ev.seq, ev.action.to_dict(), [r.to_dict() for r in ev.rolls]] for ev in events]


def _choose(rng: random.Random, battle, can_undo: bool, can_redo: bool):
    r = rng.random()
    if r < 0.18 and can_undo:
        return "undo", None
    if r < 0.32 and can_redo:
        return "redo", None
    if r < 0.40:
        return "step", [next_action(battle, rng), next_action(battle, rng)]
    return "action", [next_action(battle, rng)]


def _other_copy(path: str, seed: int, out: str, go) -> None:
    """The second process: plays ``EACH`` successful writes through Game, as the command line does."""
    code = 1
    try:
        rng = random.Random(seed)
        log, refused = [], 0
        game = Game.open(path)
        go.wait(30)
        while len(log) < EACH:
            for _ in range(rng.randint(1, 5)):  # a burst, then a pause
                if len(log) >= EACH:
                    break
                kind, actions = _choose(rng, game.battle, game.can_undo, game.can_redo)
                before = game.change_count
                try:
                    if kind == "undo":
                        events = game.undo_step()
                    elif kind == "redo":
                        events = game.redo_step()
                    else:
                        events = game.do_step(actions)
                except ChangedElsewhereError:
                    refused += 1
                    game.close()
                    game = Game.open(path)
                    continue
                except RulesError:
                    continue
                if events:
                    log.append([before, game.change_count, kind, _action_log(events)])
            time.sleep(rng.uniform(0.0, 0.04))
        game.close()
        Path(out).write_text(json.dumps({"log": log, "refused": refused}))
        code = 0
    finally:
        os._exit(code)


def _model(writes: list[list]) -> tuple[list, list]:
    """Replay the logged writes, in the order of the save's change counter, on a model of the
    journal: the entries, and the undone entries (the next to redo last)."""
    journal: list[list] = []
    undone: list[list] = []
    for _before, _after, kind, events in writes:
        if kind in ("action", "step"):
            assert [e[0] for e in events] == list(range(len(journal) + 1, len(journal) + 1 + len(events)))
            journal.extend(events)
            undone.clear()
        elif kind == "undo":  # the events undone, latest first
            for e in events:
                top = journal.pop()
                assert top[0] == e[0] and top[1] == e[1], (top, e)
                undone.append(top)
        else:  # redo: the events put back, in order
            for e in events:
                nxt = undone.pop()
                assert nxt[0] == e[0] and nxt[1] == e[1], (nxt, e)
                journal.append(nxt)
    return journal, undone


def test_two_processes_play_one_save_and_nothing_is_lost_duplicated_or_written_stale(qtbot, tmp_path):
    from gui.controller import GameController

    path = tmp_path / "shared.sqlite"
    Game.create(path, load_demo(), seed=1861).close()
    out = tmp_path / "other.json"
    ctx = multiprocessing.get_context("fork")
    go = ctx.Event()
    other = ctx.Process(target=_other_copy, args=(str(path), 77, str(out), go))
    other.start()

    c = GameController()
    c.set_game(Game.open(path), str(path))
    stale = []
    c.changedElsewhere.connect(stale.append)
    failed = []
    c.actionFailed.connect(failed.append)
    rng = random.Random(78)
    log: list[list] = []
    refused = 0
    started = time.monotonic()
    go.set()
    try:
        while len(log) < EACH:
            for _ in range(rng.randint(1, 5)):
                if len(log) >= EACH:
                    break
                kind, actions = _choose(rng, c.battle, c.can_undo, c.can_redo)
                before, n_stale = c.game.change_count, len(stale)
                if kind == "undo":
                    events = c.undo()
                elif kind == "redo":
                    events = c.redo()
                else:
                    events = c.run_step(actions)
                if len(stale) > n_stale:  # refused: nothing was written; read the game again
                    assert events == []
                    refused += 1
                    assert c.reload()
                    continue
                if events:
                    log.append([before, c.game.change_count, kind, _action_log(events)])
            time.sleep(rng.uniform(0.0, 0.04))
    finally:
        c.close()
        other.join(120)
    assert other.exitcode == 0
    theirs = json.loads(out.read_text())
    writes = log + theirs["log"]
    elapsed = time.monotonic() - started

    # the two copies really got in each other's way, and each time the later one was refused
    assert refused > 10 and theirs["refused"] > 10, (refused, theirs["refused"])
    assert all("changed by another copy" in s for s in stale)
    assert not any("changed by another copy" in f for f in failed)

    # no stale write succeeded: one successful write from each state of the save, in order
    writes.sort(key=lambda w: w[0])
    assert len(writes) == TOTAL
    assert [w[0] for w in writes] == list(range(TOTAL))
    assert all(w[1] == w[0] + 1 for w in writes)

    # nothing lost, nothing duplicated: the save holds exactly what the writes, in order, make
    journal, undone = _model(writes)
    with Game.open(path) as g:
        assert g.change_count == TOTAL
        saved = [[ev.seq, ev.action.to_dict(), [r.to_dict() for r in ev.rolls]] for ev in g.events()]
        assert saved == journal
        assert [
            [ev.seq, ev.action.to_dict(), [r.to_dict() for r in ev.rolls]] for ev in g.redo_events()
        ] == undone[::-1]
        seen = [json.dumps(e[1], sort_keys=True) + str(e[0]) for e in saved]
        assert len(seen) == len(set(seen))
        assert all(isinstance(Action.from_dict(e[1]), Action) for e in saved)
        assert verify(g) == len(saved)
    assert elapsed < 60
