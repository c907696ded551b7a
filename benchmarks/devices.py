"""The players' devices (``run.py --only devices``): a step reaching every connected device, and
the umpire's action with devices connected.

* **devices follow a step**: on a copy of the club game (turn 31), ``brigadier serve`` runs in a
  process of its own, as the window starts it, with four devices connected (two a side, each
  reading its side's live updates as a phone's browser does); the wall time from a step
  returning (committed) until all four have received the update. The steps change both sides'
  pages: the next phase, and its Undo, in turn (a step that changes nothing a side sees sends
  nothing to its devices: that a step was taken is not theirs to know). Reference:
  bringing each side's player view up to date after the same action in the window's own process
  (a :class:`gui.player_view.PlayerWindow` of each side: its feed refreshed, its map redrawn
  where it changed), on another copy. Target: at most 10x (the devices' update is read from the
  save in another process, made into each side's page and sent over the network).
* **the umpire's step with four devices**: the same steps with the server running and four
  devices connected, against with the server stopped (SIGSTOP: it does no work, its connections
  are kept), taken in turn, each after the devices have had the step before. Target: at most
  1.1x.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from benchmarks.measure import Figure, Saves, child_env

FOLLOW_TARGET = 10.0
SLOWED_TARGET = 1.1


class Device:
    """A device following a side's page: counts the updates it has received."""

    def __init__(self, url: str):
        self.count = 0
        self.cond = threading.Condition()
        self.resp = urllib.request.urlopen(url, timeout=60)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for line in self.resp:
                if line.startswith(b"event: update"):
                    with self.cond:
                        self.count += 1
                        self.cond.notify_all()
        except OSError:
            pass

    def wait_past(self, n: int, timeout: float = 10.0) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: self.count > n, timeout)


def _serve(path: Path, env: dict) -> tuple[subprocess.Popen, dict]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "serve", str(path), "--port", "0", "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    info = json.loads(proc.stdout.readline())
    return proc, info


def _step(game, k: int) -> None:
    """The ``k``-th step: the next phase, then its Undo."""
    from rules.actions import NextPhase

    if k % 2:
        game.undo_step()
    else:
        game.do(NextPhase())


def figure_devices(repeat: int, saves: Saves) -> list[Figure]:
    from gui.app import application
    from gui.controller import GameController
    from gui.player_view import PlayerWindow
    from storage.game import Game

    env = child_env(saves.folder, "devices")
    served = saves.copy(saves.club(), "devices-served")
    alone = saves.copy(saves.club(), "devices-window")
    proc, info = _serve(served, env)
    try:
        devices = [Device(info["links"][side] + "/events") for side in ("union", "csa", "union", "csa")]
        for d in devices:
            d.wait_past(0)  # the page as it stands
        game = Game.open(served)
        app = application()
        controller = GameController()
        controller.set_game(Game.open(alone), str(alone))
        views = [PlayerWindow(controller, side) for side in ("union", "csa")]
        for v in views:
            v.show()
        app.processEvents()
        follow, reference = [], []
        for k in range(repeat * 2 + 1):
            seen = [d.count for d in devices]
            t0 = time.perf_counter()
            _step(game, k)
            t1 = time.perf_counter()
            for d, n in zip(devices, seen, strict=True):
                d.wait_past(n)
            t2 = time.perf_counter()
            _step(controller.game, k)
            t3 = time.perf_counter()
            for v in views:
                v.feed.refresh()
            t4 = time.perf_counter()
            app.processEvents()
            if k:
                follow.append(t2 - t1)
                reference.append(t4 - t3)
            time.sleep(0.05)
        # the umpire's step with the server stopped (SIGSTOP: no work, its connections kept) and
        # with it running, in turn, each after the devices have had the step before
        without = []
        with_devices = []
        base = repeat * 2 + 1
        for k in range(base, base + repeat * 8 + 4):
            stopped = (k // 2) % 2 == 0  # each kind of step taken both ways
            if stopped:
                os.kill(proc.pid, signal.SIGSTOP)
            seen = [d.count for d in devices]
            time.sleep(0.05)
            t0 = time.perf_counter()
            _step(game, k)
            t1 = time.perf_counter()
            if stopped:
                os.kill(proc.pid, signal.SIGCONT)
            for d, n in zip(devices, seen, strict=True):
                d.wait_past(n)
            if k > base + 1:
                (without if stopped else with_devices).append(t1 - t0)
        proc.terminate()
        proc.wait(5)
        for v in views:
            v.close()
        controller.close()
        game.close()
    finally:
        if proc.poll() is None:
            proc.terminate()
    a, r = statistics.median(follow), statistics.median(reference)
    b, c = statistics.median(with_devices), statistics.median(without)
    return [
        Figure(
            "devices follow a step: 4 devices of two sides updated after an action (club game, turn 31)",
            a,
            r,
            f"<= {FOLLOW_TARGET:g}x both player views updated in the window",
            a <= FOLLOW_TARGET * r,
        ),
        Figure(
            "the umpire's step with 4 devices connected (the next phase and its Undo, club game)",
            b,
            c,
            f"<= {SLOWED_TARGET:g}x with no server",
            b <= SLOWED_TARGET * c,
        ),
    ]
