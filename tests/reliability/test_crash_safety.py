"""Crash safety: a game killed with SIGKILL at any moment keeps every action it reported saved.

The scripted game (``scripted_game.py``) plays in a child process and prints each event's number
once :meth:`Game.do` has returned, that is once the event is committed. The test kills the child
at random moments, 200 times, and after each kill checks that the save passes SQLite's
``PRAGMA integrity_check``, opens with :meth:`Game.open`, and holds every action the child had
reported, exactly as reported (it may hold one more: committed, but killed before it was printed).

Most children are forked from the test process, which has already imported ``rules`` and
``storage``, so a child starts in milliseconds and the 200 kills take seconds; a few are started
as real ``python scripted_game.py`` processes to show the script itself behaves the same. One save
takes several kills in a row: a restarted child opens it and plays on, so kills also land while a
save is being opened.
"""

from __future__ import annotations

import io
import json
import os
import random
import select
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from storage.game import Game
from tests.reliability import scripted_game

KILLS = 200
KILLS_PER_SAVE = 20
REAL_PROCESS_EVERY = 50  # every 50th child is a real `python scripted_game.py` process
SCRIPT = Path(scripted_game.__file__)


def _forked_child(path: Path, seed: int) -> tuple[int, int]:
    """Fork a child that plays the scripted game on ``path``; returns (pid, read end of its output)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: play until killed, never return into the test
        code = 1
        try:
            os.close(r)
            with io.TextIOWrapper(io.FileIO(w, "w"), encoding="utf-8", write_through=True) as out:
                scripted_game.play(path, seed, 10**9, out)
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    return pid, r


def _process_child(path: Path, seed: int, env: dict[str, str]) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPT), str(path), str(seed)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    return proc, proc.stdout.fileno()


def _read_until(fd: int, buf: bytearray, deadline: float, want: bytes | None) -> None:
    """Read the child's output into ``buf`` until ``want`` appears, the deadline, or end of file."""
    while time.monotonic() < deadline:
        if want is not None and want in buf:
            return
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return
        chunk = os.read(fd, 65536)
        if not chunk:
            return
        buf.extend(chunk)


def _read_lines(fd: int, buf: bytearray, lines: int, deadline: float) -> None:
    """Read the child's output into ``buf`` until it holds ``lines`` whole lines, or the deadline."""
    while buf.count(b"\n") < lines and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return
        chunk = os.read(fd, 65536)
        if not chunk:
            return
        buf.extend(chunk)


def _reported(buf: bytes) -> tuple[int | None, dict[int, dict]]:
    """The ``ready N`` count and the committed events the child printed (whole lines only)."""
    ready, events = None, {}
    for line in buf.decode("utf-8").split("\n")[:-1]:  # the last piece is not a whole line
        head, _, rest = line.partition(" ")
        if head == "ready":
            ready = int(rest)
        else:
            events[int(head)] = json.loads(rest)
    return ready, events


def _check_save(path: Path, promised: dict[int, dict], lowest: int, highest: int) -> int:
    """Check the save after a kill: sound, and holding ``lowest`` to ``highest`` events, with
    every promised action exactly as reported. Returns the number of events it holds."""
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
    with Game.open(path) as game:
        last = game.last_seq
        assert lowest <= last <= highest, f"the save holds {last} events, expected {lowest} to {highest}"
        saved = {ev.seq: ev.action.to_dict() for ev in game.events()}
        for seq, action in promised.items():
            assert json.loads(json.dumps(saved[seq], sort_keys=True)) == action, seq
        return last


def test_sigkill_at_200_random_moments_loses_no_committed_action(tmp_path):
    rng = random.Random(1863)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "pycache")
    promised: dict[int, dict] = {}
    path = tmp_path / "none"
    kills_mid_open = kills_with_events = held = 0
    for k in range(KILLS):
        fresh = k % KILLS_PER_SAVE == 0
        if fresh:
            path = tmp_path / f"crash-{k // KILLS_PER_SAVE}.sqlite"
            promised, held = {}, 0
        seed = rng.randrange(10**6)
        if k % REAL_PROCESS_EVERY == 1:
            proc, fd = _process_child(path, seed, env)
            pid = proc.pid
        else:
            proc = None
            pid, fd = _forked_child(path, seed)
        buf = bytearray()
        if fresh:  # a kill while the file is being created is not a save yet: let it be made
            _read_until(fd, buf, time.monotonic() + 30, b"\n")
            assert buf.startswith(b"ready 0\n"), bytes(buf)
        delay = rng.uniform(0.0, 0.06)
        if k % 2 == 0:  # every other moment falls in the play, after a few actions, however long a
            lines = 1 + rng.randint(0, 4)  # busy disk takes to open the save and commit them
            _read_lines(fd, buf, lines, time.monotonic() + 30)
            delay = rng.uniform(0.0, 0.01)
        _read_until(fd, buf, time.monotonic() + delay, None)
        os.kill(pid, signal.SIGKILL)
        _read_until(fd, buf, time.monotonic() + 10, None)  # whatever it wrote before it died
        if proc is not None:
            proc.wait()
            proc.stdout.close()
        else:
            os.waitpid(pid, 0)
            os.close(fd)
        ready, events = _reported(bytes(buf))
        promised.update(events)
        if ready is None:  # killed while opening the save, before any action: nothing changed
            kills_mid_open += 1
            lowest = highest = held
        else:
            assert ready == held  # the child opened the save as the last check found it
            lowest = max(events, default=ready)
            highest = lowest + 1  # one more may be committed, the child killed before printing it
        kills_with_events += bool(events)
        held = _check_save(path, promised, lowest, highest)
    # the random moments were spread over the game: many after some actions, the rest while a
    # save was being opened or during a child's first action
    assert kills_with_events > KILLS // 4, (kills_with_events, kills_mid_open)
