"""Two copies of one game: a copy that another has changed behind its back never writes.

Two :class:`Game` objects on one save stand for two copies of Brigadier (two windows, a window
and the command line). Whatever one of them writes (an action, an undo, a redo, even an undo
followed by a new action that leaves the journal as long as it was), the other notices before it
writes anything, refuses with "changed by another copy", and leaves the save as it is. Reading a
save sees one moment of it, whatever another process writes meanwhile.
"""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rules.actions import EndTurn, MoveUnit, NextPhase, Override
from storage.errors import ChangedElsewhereError, SaveFileError
from storage.game import Game
from storage.replay import verify
from storage.scenario import load_demo


@pytest.fixture
def save(tmp_path) -> Path:
    p = tmp_path / "s.sqlite"
    with Game.create(p, load_demo(), seed=3) as g:
        g.do(NextPhase())
        g.do(Override("unit", "va4", {"stands": 4}, "a"))
    return p


def _journal(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT seq, action, changes FROM journal ORDER BY seq").fetchall()
    finally:
        conn.close()


def test_an_undo_and_a_new_action_elsewhere_is_noticed_though_the_journal_is_as_long(save):
    """The issue's reproduction: a window is open; the command line undoes the last action and
    makes another (the journal's last number is the same again); the window's next action is
    refused, and the command line's action stands."""
    window = Game.open(save)
    try:
        with Game.open(save) as cli:
            cli.undo()
            cli.do(Override("unit", "va4", {"stands": 1}, "x"))
        before = _journal(save)
        with pytest.raises(ChangedElsewhereError, match="changed by another copy"):
            window.do(MoveUnit("wis2", 30, 30, mode="place", reason="r"))
        assert _journal(save) == before
        assert window.last_seq == 2 and window.battle.unit("va4").stands == 4  # as it was read
    finally:
        window.close()
    with Game.open(save) as g:
        assert g.battle.unit("va4").stands == 1
        assert verify(g) == 2


WRITES = {
    "do": lambda g: g.do(NextPhase()),
    "do_step": lambda g: g.do_step([NextPhase(), EndTurn()]),
    "undo": lambda g: g.undo(),
    "undo_step": lambda g: g.undo_step(),
    "undo_to": lambda g: g.undo_to(0),
    "redo": lambda g: g.redo(),
    "redo_step": lambda g: g.redo_step(),
    "redo_to": lambda g: g.redo_to(g.last_seq + 1),
    "forget_redo": lambda g: g.forget_redo(),
    "mark_step": lambda g: g.mark_step([1, 2]),
}
ELSEWHERE = {
    "an action": lambda g: g.do(EndTurn()),
    "an undo": lambda g: g.undo(),
    "an undo and a redo": lambda g: (g.undo(), g.redo()),
    "an undo and a new action": lambda g: (g.undo(), g.do(Override("unit", "va4", {"stands": 2}, "y"))),
}


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("elsewhere", sorted(ELSEWHERE))
def test_every_write_of_a_copy_changed_elsewhere_is_refused(save, write, elsewhere):
    copy = Game.open(save)
    try:
        if write.startswith(("redo", "forget")):
            copy.undo()  # something to redo in this copy
        with Game.open(save) as other:
            ELSEWHERE[elsewhere](other)
        before = save.read_bytes(), _journal(save)
        with pytest.raises(ChangedElsewhereError, match="changed by another copy"):
            WRITES[write](copy)
        assert (save.read_bytes(), _journal(save)) == before
    finally:
        copy.close()


def test_a_copy_that_reads_again_plays_on(save):
    copy = Game.open(save)
    with Game.open(save) as other:
        other.do(EndTurn())
    with pytest.raises(ChangedElsewhereError):
        copy.do(NextPhase())
    copy.close()
    with Game.open(save) as again:
        again.do(NextPhase())
        assert again.last_seq == 4


def test_redo_after_another_copy_emptied_the_undone_list_says_so(save):
    copy = Game.open(save)
    try:
        copy.undo()
        with Game.open(save) as other:
            other.do(EndTurn())  # a new action: nothing is left to redo
        with pytest.raises(ChangedElsewhereError, match="changed by another copy"):
            copy.redo()
        with pytest.raises(ChangedElsewhereError):
            copy.redo_step()
    finally:
        copy.close()


def test_redo_with_nothing_left_to_redo_in_the_file_is_a_save_file_error(save):
    """Even a copy that believes it is up to date gets words, never a TypeError, when the undone
    entries it expects are not in the file."""
    g = Game.open(save)
    try:
        g.undo()
        conn = sqlite3.connect(save)
        conn.execute("DELETE FROM redo")
        conn.commit()
        conn.close()
        with pytest.raises(SaveFileError):
            g.redo()
    finally:
        g.close()


def test_a_copys_own_writes_in_a_row_are_never_taken_for_another_copys(save):
    with Game.open(save) as g:
        for i in range(3):
            g.do(EndTurn()) if i % 2 else g.do_step([NextPhase(), NextPhase()])
            g.undo_step()
            g.redo_step()
        g.undo_to(0)
        g.redo_to(2)
        g.forget_redo()
        assert verify(g) == g.last_seq


# --------------------------------------------------------------------------------------------
# Reads see one moment
# --------------------------------------------------------------------------------------------


def _churn(path: str, seconds: float, ready) -> None:
    """Undo and redo as fast as possible, with a new action now and then, for ``seconds``."""
    g = Game.open(path)
    ready.set()
    end = time.monotonic() + seconds
    n = 0
    try:
        while time.monotonic() < end:
            n += 1
            if n % 7 == 0:
                g.do(EndTurn() if n % 2 else NextPhase())
            elif g.can_undo and n % 2:
                g.undo()
            elif g.can_redo:
                g.redo()
            else:
                g.do(NextPhase())
    finally:
        g.close()
        os._exit(0)


def test_a_game_read_while_another_process_writes_is_always_one_moment_of_it(save):
    """A reader opens the save again and again while another process undoes and redoes: every
    opening gives a sound game (it was refused as "the undone events do not follow on from the
    journal" when the journal and the undone list were read at two moments)."""
    with Game.open(save) as g:
        for _ in range(10):
            g.do(EndTurn())
        g.undo_to(5)
    ctx = multiprocessing.get_context("fork")
    ready = ctx.Event()
    writer = ctx.Process(target=_churn, args=(str(save), 4.0, ready))
    writer.start()
    try:
        assert ready.wait(10)
        refused = []
        opened = 0
        end = time.monotonic() + 3.0
        while time.monotonic() < end:
            try:
                with Game.open(save) as g:
                    assert g.last_seq >= 0
                opened += 1
            except SaveFileError as exc:
                refused.append(str(exc))
        assert opened > 20
        assert refused == []
    finally:
        writer.join(20)


# --------------------------------------------------------------------------------------------
# Opening a save a second time in one process keeps the first copy's hold on it
# --------------------------------------------------------------------------------------------


def _elsewhere(code: str, path: Path) -> str:
    """Run ``code`` in a new Python process (not forked: this one has the save open) and return
    what it printed."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    r = subprocess.run(
        [sys.executable, "-c", code, str(path)], env=env, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_opening_a_save_again_here_keeps_this_processs_hold_on_it(save):
    """The window reads the game again (a second Game.open of the save while the first is still
    open); another process then opens and closes the save. Checking the file's first bytes used to
    close a descriptor of it, which dropped every lock this process held on it: the other process
    then took the save for its own alone and removed the -wal file this one was writing to, so
    this process's next actions went into a file no one else could see."""
    first = Game.open(save)
    again = None
    try:
        first.do(EndTurn())
        again = Game.open(save)  # as the window's reload opens it before closing the first
        first.close()
        # another copy opens the save and closes it: were it the only one holding the save, SQLite
        # would fold the -wal file in and remove it on closing
        _elsewhere("import sys; from storage.game import Game; Game.open(sys.argv[1]).close()", save)
        again.do(NextPhase())
        seen = _elsewhere(
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
            "print(c.execute('SELECT count(*) FROM journal').fetchone()[0])",
            save,
        )
        assert int(seen) == again.last_seq == 4
    finally:
        first.close()
        if again is not None:
            again.close()


def test_redo_of_a_step_whose_steps_another_copy_forgot_mid_read_is_refused_not_a_crash(save):
    """Another copy forgets the undone entries (and their Undo steps) just as this copy reads which
    entries make the step to redo: the read sees one moment of the save, and the redo is refused as
    changed elsewhere (it used to read the step's first entry, then find no last one, and crash)."""
    copy = Game.open(save)
    try:
        copy.do_step([NextPhase(), NextPhase()])  # a step of two entries
        copy.undo_step()
        real = copy._conn

        class OtherCopyBetweenReads:
            """The save's connection, with the other copy's new action made right after the first
            read of the steps."""

            done = False

            def execute(self, sql, *args):
                cur = real.execute(sql, *args)
                if "FROM steps" in sql and not self.done:
                    self.done = True
                    row = cur.fetchone()
                    with Game.open(save) as other:
                        other.do(Override("unit", "va5", {"micro_hits": 1}, "a new action elsewhere"))
                    return _Fetched(row)
                return cur

            def __getattr__(self, name):
                return getattr(real, name)

        copy._conn = OtherCopyBetweenReads()
        try:
            with pytest.raises(ChangedElsewhereError, match="changed by another copy"):
                copy.redo_step()
        finally:
            copy._conn = real
    finally:
        copy.close()


class _Fetched:
    """A cursor's row, already read."""

    def __init__(self, row):
        self.row = row

    def fetchone(self):
        return self.row
