"""Outputs never destroy anything: not the save, not a device, not a FIFO, not the old file.

A report, a map, a scenario or a new game given the save's own name (or another saved game, a
FIFO, a device, a folder) is refused, even with ``--force``, and the file is left as it was. Every
output is written to a temporary file beside it and renamed into place: an error, a full disk or
a kill part way leaves the old file whole and no partial file under the output's name. A FIFO
given as a scenario, a club table or a save is refused at once, never waited on.
"""

from __future__ import annotations

import os
import resource
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cli import main as cli
from rules.actions import NextPhase
from rules.errors import TableError
from rules.tables import load_tables
from storage.errors import SaveFileError, ScenarioError
from storage.game import Game
from storage.outputs import OutputError, atomic_write
from storage.scenario import load_demo, load_scenario

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def save(tmp_path) -> Path:
    p = tmp_path / "g.sqlite"
    with Game.create(p, load_demo(), seed=2) as g:
        g.do(NextPhase())
    return p


def _outputs(save: Path, target: Path) -> list[tuple]:
    return [
        ("report", save, "--turn", "1", "--pdf", target, "--force"),
        ("report", save, "--turn", "1", "--html", target, "--force"),
        ("export-map", save, "--png", target, "--force"),
        ("export-scenario", save, target, "--force"),
        ("roster", save, "--pdf", target, "--force"),
    ]


def test_no_output_replaces_the_save_itself_even_with_force(capsys, save):
    before = save.read_bytes()
    for argv in _outputs(save, save):
        code, _, err = run(capsys, *argv)
        assert code == 1 and "saved game" in err and err.count("\n") == 1, (argv, err)
        assert save.read_bytes() == before
    with Game.open(save) as g:
        assert g.last_seq == 1


def test_no_output_replaces_another_saved_game_or_the_saves_wal(capsys, save, tmp_path):
    other = tmp_path / "other.sqlite"
    Game.create(other, load_demo()).close()
    before = other.read_bytes()
    for argv in _outputs(save, other):
        code, _, err = run(capsys, *argv)
        assert code == 1 and "saved game" in err, (argv, err)
    assert other.read_bytes() == before
    with Game.open(save) as g:  # open here: its -wal file is not an output either
        g.do(NextPhase())
        code, _, err = run(capsys, "export-scenario", save, f"{save}-wal", "--force")
        assert code == 1 and "saved game" in err


def test_an_output_is_never_written_to_a_device_a_fifo_or_a_folder(capsys, save, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    for target, kind in ((Path("/dev/null"), "device"), (fifo, "FIFO"), (folder, "folder")):
        for argv in _outputs(save, target):
            started = time.monotonic()
            code, _, err = run(capsys, *argv)
            assert code == 1 and kind in err, (argv, err)
            assert time.monotonic() - started < 20
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode) and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert folder.is_dir() and list(folder.iterdir()) == []


def test_new_never_replaces_a_device_a_fifo_a_folder_or_a_game_open_here(capsys, tmp_path, save):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for target, kind in ((Path("/dev/null"), "device"), (fifo, "FIFO"), (tmp_path, "folder")):
        code, _, err = run(capsys, "new", "demo", target, "--force")
        assert code == 1 and kind in err, err
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode) and stat.S_ISFIFO(os.stat(fifo).st_mode)
    before = save.read_bytes()
    with Game.open(save):
        code, _, err = run(capsys, "new", "demo", save, "--force")
        assert code == 1 and "saved game" in err
    assert save.read_bytes() == before
    code, out, _ = run(capsys, "new", "demo", save, "--force")  # closed: --force replaces it
    assert code == 0 and "Created" in out


def test_a_fifo_given_as_a_scenario_a_club_table_or_a_save_is_refused_at_once(tmp_path):
    fifo = tmp_path / "battle.toml"
    os.mkfifo(fifo)
    club = tmp_path / "melee.toml"
    os.mkfifo(club)
    save = tmp_path / "g.sqlite"
    os.mkfifo(save)
    done = []

    def attempt():
        for fn, error, word in (
            (load_scenario, ScenarioError, "FIFO"),
            (load_tables, TableError, "FIFO"),
            (Game.open, SaveFileError, "FIFO"),
        ):
            path = {load_scenario: fifo, load_tables: club, Game.open: save}[fn]
            try:
                fn(path)
            except error as exc:
                done.append(word in str(exc))

    t = threading.Thread(target=attempt, daemon=True)
    t.start()
    t.join(10)
    if t.is_alive():  # a reader waits on the FIFO: let it go, then fail
        for p in (fifo, club, save):
            with open(p, "wb", buffering=0) as w:
                w.write(b"x")
        pytest.fail("a FIFO was waited on")
    assert done == [True, True, True]


def test_a_device_given_as_a_save_is_named_as_one():
    with pytest.raises(SaveFileError, match="a device"):
        Game.open("/dev/null")


# --------------------------------------------------------------------------------------------
# All or nothing
# --------------------------------------------------------------------------------------------


def test_an_output_that_fails_part_way_leaves_the_old_file_whole(tmp_path):
    out = tmp_path / "turn.html"
    out.write_text("the old report")

    def half(tmp: Path) -> None:
        tmp.write_text("<html>half a rep")
        raise RuntimeError("the printer stopped")

    with pytest.raises(RuntimeError):
        atomic_write(out, half)
    assert out.read_text() == "the old report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["turn.html"]
    with pytest.raises(OutputError, match="nothing was made"):
        atomic_write(out, lambda tmp: None)
    assert out.read_text() == "the old report"
    atomic_write(out, "the new report")
    assert out.read_text() == "the new report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["turn.html"]


def _limited(limit: int):
    def pre() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return pre


@pytest.mark.parametrize(
    "argv",
    [
        ("export-scenario", "{save}", "{out}.toml", "--force"),
        ("report", "{save}", "--turn", "1", "--html", "{out}.html", "--force"),
        ("report", "{save}", "--turn", "1", "--pdf", "{out}.pdf", "--force"),
        ("export-map", "{save}", "--png", "{out}.png", "--force"),
        ("roster", "{save}", "--pdf", "{out}.pdf", "--force"),
    ],
)
def test_a_full_disk_leaves_the_old_output_whole_and_no_partial_file(save, tmp_path, argv):
    """The old output is bigger than the disk has room for: the command says so in one line, and
    the old file is exactly as it was."""
    out = tmp_path / "out"
    target = Path(argv[-2].format(out=out)) if argv[0] != "export-scenario" else Path(f"{out}.toml")
    old = b"the old output " * 2000
    target.write_bytes(old)
    args = [a.format(save=save, out=out) for a in argv]
    # no bytecode written under the limit: Python would leave a cut-off .pyc for the next import
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    r = subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        env=env,
        capture_output=True,
        text=True,
        preexec_fn=_limited(1024),
        timeout=120,
    )
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert r.stderr.startswith("brigadier: ") and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert target.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("g.sqlite")) == [target.name]


def test_an_output_killed_part_way_leaves_the_old_file_whole(tmp_path):
    """A writer killed with SIGKILL in the middle of an output: the old file is whole, and the
    next write of that output clears away what the killed one left."""
    out = tmp_path / "scenario.toml"
    out.write_text("the old scenario")
    code = (
        "import sys, time\n"
        "from storage.outputs import atomic_write\n"
        "def slow(tmp):\n"
        "    with open(tmp, 'w') as f:\n"
        "        f.write('half a scen'); f.flush(); print('writing', flush=True); time.sleep(60)\n"
        f"atomic_write({str(out)!r}, slow)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    assert out.read_text() == "the old scenario"
    atomic_write(out, "the new scenario")
    assert out.read_text() == "the new scenario"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scenario.toml"]


# --------------------------------------------------------------------------------------------
# The window's outputs
# --------------------------------------------------------------------------------------------


def test_the_windows_exports_never_replace_the_open_game(qtbot, save, monkeypatch):
    from gui import dialogs
    from gui.app import make_main_window

    shown = []
    monkeypatch.setattr(
        dialogs, "show_message", lambda parent, title, text, kind="information": shown.append(text)
    )
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(save))
    win = make_main_window(str(save))
    qtbot.addWidget(win)
    before = save.read_bytes()
    win.export_map()
    win.export_turn_summary()
    assert len(shown) == 2 and all("saved game" in t for t in shown), shown
    win.controller.close()
    assert save.read_bytes() == before
