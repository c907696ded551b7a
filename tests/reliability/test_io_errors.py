"""I/O errors say what they are: a read-only folder or file, a full disk, an output that cannot
be shown.

Each command runs as the umpire runs it, as its own process. A read-only folder and a read-only
file are made with ``chmod`` (run as root, the command runs without the capability that lets
root write anyway); a full disk is a file-size limit of the command's process (``RLIMIT_FSIZE``,
with ``SIGXFSZ`` ignored, so that a write past it fails as a full disk fails). Every reading
command works on such a save; every writing command says in one line why nothing was done,
exits with status 1, leaves the save byte for byte as it was and no ``-wal`` or ``-shm`` file
beside it.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from rules.actions import MoveUnit, NextPhase
from storage.game import Game
from storage.scenario import load_demo

ROOT = Path(__file__).resolve().parents[2]
ROOT_WITHOUT_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]

READING = [
    ("info",),
    ("log",),
    ("log", "--turn", "1"),
    ("verify",),
]
WRITING = [
    ("next-phase",),
    ("end-turn",),
    ("undo",),
    ("redo",),
    ("do", '{"type": "next_phase"}'),
    ("override", "unit", "va4", "stands=3", "--reason", "ruled"),
    ("move", "va4", "30", "20", "--place", "--reason", "ruled"),
    ("formation", "va4", "assault_column"),
    ("spend-pip", "garnett"),
]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def brigadier(*args, cwd: Path, as_user: bool = False, file_limit: int | None = None, stdout=None):
    """Run ``brigadier ARGS`` as its own process. ``as_user``: without root's power to write to
    read-only files and folders; ``file_limit``: no file may grow past that many bytes."""
    prefix: list[str] = []
    if as_user and os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("run as root, and setpriv is not here to take away root's override")
        prefix = ROOT_WITHOUT_OVERRIDE

    def limit() -> None:
        if file_limit is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    env = _env()
    if file_limit is not None:  # no bytecode written under the limit: a cut-off .pyc would be left
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        [*prefix, sys.executable, "-m", "cli.main", *map(str, args)],
        cwd=cwd,
        env=env,
        stdout=stdout if stdout is not None else subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit,
        timeout=120,
    )


@pytest.fixture
def place():
    """A folder anyone can enter (the save's folder is made read-only inside it)."""
    d = Path(tempfile.mkdtemp(prefix="brigadier-io-"))
    d.chmod(0o755)
    yield d
    for p in d.rglob("*"):
        if p.is_dir():
            p.chmod(0o755)
    shutil.rmtree(d, ignore_errors=True)


def _made_save(folder: Path) -> Path:
    """A closed save with two actions, one of them undone (something to undo and to redo)."""
    folder.mkdir(mode=0o755, exist_ok=True)
    p = folder / "game.sqlite"
    with Game.create(p, load_demo(), seed=4) as g:
        g.do(NextPhase())
        g.do(MoveUnit("va4", 30, 20, mode="place", reason="r"))
        g.undo()
    assert not Path(f"{p}-wal").exists()
    return p


def _companions(p: Path) -> list[str]:
    return [s for s in ("-wal", "-shm", "-journal") if Path(f"{p}{s}").exists()]


def _one_line_refusal(r: subprocess.CompletedProcess, *words: str) -> None:
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith("brigadier: ") and r.stderr.count("\n") == 1, r.stderr
    for w in words:
        assert w in r.stderr, r.stderr


@pytest.mark.parametrize("what", ["folder", "file"])
def test_a_save_that_cannot_be_written_opens_for_reading_and_refuses_every_write(place, what):
    p = _made_save(place / "club")
    elsewhere = place / "out"
    elsewhere.mkdir(mode=0o777)
    elsewhere.chmod(0o777)
    p.chmod(0o444)
    if what == "folder":
        p.parent.chmod(0o555)
    before = p.read_bytes()
    for cmd in READING:
        r = brigadier(cmd[0], p, *cmd[1:], cwd=place, as_user=True)
        assert r.returncode == 0, (cmd, r.stderr)
        assert "damaged" not in r.stderr
    assert "all 1 events replay" in brigadier("verify", p, cwd=place, as_user=True).stdout
    assert "4th Virginia [va4]: 5/5 stands" in brigadier("info", p, cwd=place, as_user=True).stdout
    r = brigadier("report", p, "--turn", "1", "--html", elsewhere / "turn1.html", cwd=place, as_user=True)
    assert r.returncode == 0, r.stderr
    assert "<html" in (elsewhere / "turn1.html").read_text(encoding="utf-8").lower()
    r = brigadier("export-scenario", p, elsewhere / "now.toml", cwd=place, as_user=True)
    assert r.returncode == 0, r.stderr
    for cmd in WRITING:
        r = brigadier(cmd[0], p, *cmd[1:], cwd=place, as_user=True)
        _one_line_refusal(r, "can only be read here", "read-only")
    assert p.read_bytes() == before
    assert _companions(p) == []


def test_a_save_with_actions_waiting_in_its_wal_in_a_read_only_folder_is_read_with_them(place):
    """A copy of Brigadier stopped dead left its last action in the -wal file beside the save;
    the folder is then made read-only: the save is read with that action."""
    p = _made_save(place / "club")
    pid = os.fork()
    if pid == 0:  # a copy that redoes the last action and stops dead, without closing the save
        try:
            g = Game.open(p)
            g.conn.execute("PRAGMA wal_autocheckpoint=0")
            g.redo()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert os.path.getsize(f"{p}-wal") > 0
    for f in (p, Path(f"{p}-wal"), Path(f"{p}-shm")):  # as copied to read-only media
        f.chmod(0o444)
    p.parent.chmod(0o555)
    r = brigadier("info", p, cwd=place, as_user=True)
    assert r.returncode == 0, r.stderr
    assert "Journal: 2 events" in r.stdout
    _one_line_refusal(brigadier("undo", p, cwd=place, as_user=True), "can only be read here")


def test_a_full_disk_lets_the_save_be_read_and_turns_every_write_into_one_line(place):
    """No room for any file to grow: not even the -shm file SQLite keeps beside a save it reads
    can be made. The save is read all the same, and every write is refused in one line."""
    p = _made_save(place / "club")
    before = p.read_bytes()
    for cmd in READING:
        r = brigadier(cmd[0], p, *cmd[1:], cwd=place, file_limit=0)
        assert r.returncode == 0, (cmd, r.stderr)
    for cmd in WRITING:
        r = brigadier(cmd[0], p, *cmd[1:], cwd=place, file_limit=0)
        _one_line_refusal(r)
        assert "disk" in r.stderr, r.stderr
        assert p.read_bytes() == before
    assert _companions(p) == []
    with Game.open(p) as g:
        assert g.last_seq == 1 and g.can_redo


def test_a_disk_that_fills_during_play_turns_every_write_into_one_line(place):
    """Another copy has the save open (its -wal and -shm files are there); the disk has no room
    for the next action: each writing command says so in one line, and the other copy plays on."""
    p = _made_save(place / "club")
    with Game.open(p) as other:
        before = p.read_bytes()
        for cmd in WRITING:
            r = brigadier(cmd[0], p, *cmd[1:], cwd=place, file_limit=4096)
            _one_line_refusal(r)
            assert "disk" in r.stderr, r.stderr
        assert p.read_bytes() == before
        assert other.redo() is not None and other.undo() is not None
    with Game.open(p) as g:
        assert g.last_seq == 1 and g.can_redo


def test_a_new_game_on_a_full_disk_leaves_no_file(place):
    target = place / "new.sqlite"
    r = brigadier("new", "demo", target, cwd=place, file_limit=20_000)
    _one_line_refusal(r)
    assert not target.exists() and _companions(target) == []
    old = _made_save(place / "club")
    before = old.read_bytes()
    r = brigadier("new", "demo", old, "--force", cwd=place, file_limit=20_000)
    _one_line_refusal(r)
    assert old.read_bytes() == before and _companions(old) == []
    assert sorted(x.name for x in old.parent.iterdir()) == ["game.sqlite"]


@pytest.mark.parametrize("cmd", [("next-phase",), ("undo",), ("redo",), ("do", '{"type": "next_phase"}')])
def test_an_action_saved_whose_result_cannot_be_shown_is_reported_as_saved_once(place, cmd):
    """Standard output is full (/dev/full): the action is saved, the command says so on standard
    error and exits 0, so the umpire does not do it a second time."""
    p = _made_save(place / "club")

    def phase_changes(g) -> int:
        return sum(ev.type == "next_phase" for ev in g.events())

    with Game.open(p) as g:
        before = (g.last_seq, g.can_redo, phase_changes(g))
    with open("/dev/full", "w") as full:
        r = brigadier(cmd[0], p, *cmd[1:], cwd=place, stdout=full)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("brigadier: done and saved: ")
    with Game.open(p) as g:
        after = (g.last_seq, g.can_redo, phase_changes(g))
    assert before == (1, True, 1)
    if cmd[0] == "undo":
        assert after == (0, True, 0)
    elif cmd[0] == "redo":
        assert after == (2, False, 1)
    else:  # one phase change, done once (with the checklist's note of what it left undone)
        assert after[1:] == (False, 2) and after[0] >= 2


def test_sqlite_errors_in_the_command_line_are_one_line(tmp_path, capsys, monkeypatch):
    """Whatever SQLite error reaches the command line is said in one line, exit status 1."""
    from cli import main as cli
    from storage import game as game_module

    p = _made_save(tmp_path / "club")

    def locked(*args, **kwargs):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(game_module.Game, "undo_step", locked)
    code = cli.main(["undo", str(p)])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("brigadier: ") and err.count("\n") == 1 and "locked" in err


def test_the_window_opens_a_save_it_cannot_write_for_reading_with_a_banner(qtbot, tmp_path, monkeypatch):
    """The window shows a save it cannot write (here: its folder is read-only) with a banner
    saying so, and refuses every action through ``actionFailed``."""
    from gui import dialogs
    from gui.app import make_main_window
    from storage import opening

    p = _made_save(tmp_path / "club")
    before = p.read_bytes()
    monkeypatch.setattr(opening, "cannot_write", lambda path: "its folder is read-only")
    shown = []
    monkeypatch.setattr(
        dialogs, "show_message", lambda parent, title, text, kind="information": shown.append(text)
    )
    win = make_main_window(str(p))
    qtbot.addWidget(win)
    assert win.controller.game is not None and not win.controller.game.writable
    banner = win.read_only_banner
    assert not banner.isHidden() and "Read only" in banner.text() and "read-only" in banner.text()
    failed = []
    win.controller.actionFailed.connect(failed.append)
    from rules.actions import EndTurn

    assert win.controller.run(EndTurn()) is None
    assert failed and "can only be read here" in failed[0]
    assert p.read_bytes() == before
    win.controller.close()
    assert json.dumps(shown)  # messages were told, not raised
