"""The brigadier command: a short demo game played from the command line, and its errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gui import cli
from rules.model import Phase
from storage.game import Game
from storage.replay import verify
from tests.storage.conftest import fingerprint

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_short_demo_game_from_the_command_line(tmp_path, capsys):
    g = tmp_path / "oak.sqlite"
    code, out, _ = run(capsys, "new", "demo", g)
    assert code == 0 and "Created" in out and "Oak Ridge, dice seed 1862" in out
    steps = [
        ("next-phase", g),
        ("move", g, "va4", "34", "24", "--facing", "0"),
        ("override", g, "unit", "wis2", "stands=4", 'markers=["disorder"]', "--reason", "battery duel"),
        ("end-turn", g),
        ("reserve-pip", g, "iron"),
        ("spend-pip", g, "cutler", "--purpose", "an assault"),
        ("formation", g, "bkn14", "line"),
        ("do", g, json.dumps({"type": "next_phase"})),
        ("override", g, "brigade", "garnett", "state=hesitant", "--reason", "heavy losses"),
        ("end-turn", g),
    ]
    for argv in steps:
        code, out, err = run(capsys, *argv)
        assert code == 0, (argv, err)
    code, out, _ = run(capsys, "info", g)
    assert code == 0
    assert "Turn 2, Confederate: Phase 1: Command" in out
    assert "Journal: 10 events" in out
    assert "2nd Wisconsin: 4/5 stands, fresh, line [disorder]" in out
    assert "Garnett's Brigade (Garnett, hesitant)" in out
    code, out, _ = run(capsys, "log", g, "--turn", "1")
    assert "Reason: battery duel" in out and "Meredith reserves a Staff Pip" in out
    code, out, _ = run(capsys, "undo", g)
    assert out.startswith("Undone 10:")
    code, out, _ = run(capsys, "redo", g)
    assert out.startswith("Redone 10:")
    code, out, _ = run(capsys, "verify", g)
    assert code == 0 and "all 10 events replay" in out
    with Game.open(g) as game:
        b = game.battle
        assert (b.turn, b.active_side, b.phase) == (2, "csa", Phase.COMMAND)
        assert b.unit("va4").y == 24 and b.unit("bkn14").formation.value == "line"
        assert verify(game) == 10


def test_new_from_a_scenario_file_and_with_a_seed(tmp_path, capsys):
    s = tmp_path / "s.toml"
    s.write_text((ROOT / "resources" / "scenarios" / "template.toml").read_text())
    code, out, _ = run(capsys, "new", s, tmp_path / "g.sqlite", "--seed", "42")
    assert code == 0 and "dice seed 42" in out


def test_new_refuses_to_overwrite_a_file(tmp_path, capsys):
    g = tmp_path / "g.sqlite"
    g.write_text("keep me")
    before = fingerprint(g)
    code, out, err = run(capsys, "new", "demo", g)
    assert code == 1 and "already exists" in err and "Traceback" not in err
    assert fingerprint(g) == before


def test_a_scenario_mistake_is_reported_with_its_line(tmp_path, capsys):
    s = tmp_path / "bad.toml"
    s.write_text('[battle]\nname = "x"\n\n[[sides]]\nid = "a"\nname = "A"\n')
    code, _, err = run(capsys, "new", s, tmp_path / "g.sqlite")
    assert code == 1 and f"{s}, line 4: a battle has two sides" in err
    assert not (tmp_path / "g.sqlite").exists()


def test_a_refused_action_exits_1_with_the_reason(tmp_path, capsys):
    g = tmp_path / "g.sqlite"
    run(capsys, "new", "demo", g)
    code, out, err = run(capsys, "move", g, "va4", "100", "24")
    assert code == 1 and err == 'brigadier: (100, 24) is off the 72" x 48" table\n'
    code, out, err = run(capsys, "reserve-pip", g, "iron")
    assert code == 1 and "only in its own side's Phase 1 (Command) (RULE-04-1.3)" in err
    code, out, err = run(capsys, "do", g, "{not json")
    assert code == 1 and "not valid JSON" in err
    code, out, err = run(capsys, "override", g, "unit", "wis2", "stands", "--reason", "x")
    assert code == 1 and "should be KEY=VALUE" in err


def test_a_bad_save_is_refused_and_left_alone(tmp_path, capsys):
    g = tmp_path / "noise.sqlite"
    g.write_bytes(b"\x00\x01" * 3000)
    before = fingerprint(g)
    for command in ("info", "open", "log", "undo", "next-phase"):
        code, out, err = run(capsys, command, g)
        assert code == 1 and "not an SQLite database" in err and "Traceback" not in err
    assert fingerprint(g) == before


@pytest.mark.parametrize(
    ("argv", "module"),
    [
        (["report", "{g}", "--turn", "1", "--pdf", "{tmp}/t.pdf"], "gui.report"),
        (["export-map", "{g}", "--png", "{tmp}/m.png"], "gui.export"),
    ],
)
def test_report_and_map_export_without_their_module_exit_2(tmp_path, capsys, monkeypatch, argv, module):
    g = tmp_path / "g.sqlite"
    run(capsys, "new", "demo", g)
    monkeypatch.setitem(sys.modules, module, None)  # as if the module were not installed
    code, out, err = run(capsys, *[a.format(g=g, tmp=tmp_path) for a in argv])
    assert code == 2 and f"{module} is not part of this Brigadier installation yet" in err


def test_report_calls_the_report_module_with_the_open_game(tmp_path, capsys, monkeypatch):
    import types

    calls = []
    fake = types.ModuleType("gui.report")
    fake.write_turn_pdf = lambda game, turn, out: calls.append((game.battle.name, turn, out))
    monkeypatch.setitem(sys.modules, "gui.report", fake)
    g = tmp_path / "g.sqlite"
    run(capsys, "new", "demo", g)
    code, out, _ = run(capsys, "report", g, "--turn", "1", "--pdf", tmp_path / "t.pdf")
    assert code == 0 and calls == [("Oak Ridge", 1, str(tmp_path / "t.pdf"))]
    code, _, err = run(capsys, "report", g, "--turn", "2", "--pdf", tmp_path / "t.pdf")
    assert code == 1 and "the game has turns 1 to 1, not 2" in err


def test_open_passes_the_save_to_the_application(tmp_path, capsys, monkeypatch):
    import types

    opened = []
    fake = types.ModuleType("gui.app")
    fake.run = lambda path: opened.append(path) or 0
    monkeypatch.setitem(sys.modules, "gui.app", fake)
    g = tmp_path / "g.sqlite"
    run(capsys, "new", "demo", g)
    assert run(capsys, "open", g)[0] == 0 and opened == [str(g)]
    assert run(capsys)[0] == 0 and opened[-1] is None  # no command: the last game or the demo


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["move"])
    assert exc.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_python_m_gui_runs_without_qt_for_info(tmp_path):
    g = tmp_path / "g.sqlite"
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from gui.cli import main; main(['new', 'demo', sys.argv[1]]);"
            "main(['info', sys.argv[1]]); print('qt loaded' if 'PySide6' in sys.modules else 'no qt')",
            str(g),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("no qt")
    r = subprocess.run(
        [sys.executable, "-m", "gui", "info", str(tmp_path / "none.sqlite")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert r.returncode == 1 and "there is no such file" in r.stderr and "Traceback" not in r.stderr


def test_export_scenario_of_a_game_and_start_a_new_game_from_it(tmp_path, capsys):
    g = tmp_path / "g.sqlite"
    run(capsys, "new", "demo", g)
    run(capsys, "move", g, "va4", "34", "22")
    run(capsys, "end-turn", g)
    out = tmp_path / "turn1.toml"
    code, text, _ = run(capsys, "export-scenario", g, out)
    assert code == 0 and "Wrote" in text
    code, _, err = run(capsys, "export-scenario", g, out)
    assert code == 1 and "already exists" in err
    start = tmp_path / "start.toml"
    assert run(capsys, "export-scenario", g, start, "--seq", "0")[0] == 0
    code, text, _ = run(capsys, "new", out, tmp_path / "g2.sqlite")
    assert code == 0
    with Game.open(tmp_path / "g2.sqlite") as g2, Game.open(g) as g1:
        assert g2.battle == g1.battle
        assert g2.battle.unit("va4").y == 22
    from storage.scenario import load_demo, load_scenario

    assert load_scenario(start) == load_demo()


def test_without_the_application_installed_open_exits_2(tmp_path, capsys, monkeypatch):
    g = tmp_path / "g.sqlite"
    run(capsys, "new", "demo", g)
    monkeypatch.setitem(sys.modules, "gui.app", None)
    code, _, err = run(capsys, "open", g)
    assert code == 2 and "the Brigadier application is not available here" in err
    assert run(capsys)[0] == 2
