"""The brigadier command: a short demo game played from the command line, and its errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli import main as cli
from rules.battle.words import Phase
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
    # 12: each end-turn from a Phase 2 logs what it left undone (the units not moved, those that
    # might have fired) in the same step
    assert "Journal: 12 events" in out
    assert "2nd Wisconsin [wis2]: 4/5 stands, fresh, line (disorder)" in out
    assert "Garnett's Brigade [garnett] (Garnett, hesitant)" in out
    code, out, _ = run(capsys, "log", g, "--turn", "1")
    assert "Reason: battery duel" in out and "Meredith reserves a Staff Pip" in out
    code, out, _ = run(capsys, "undo", g)
    assert out.startswith("Undone 12:") and "Undone 11: Left undone: 7 items" in out
    code, out, _ = run(capsys, "redo", g)
    assert out.startswith("Redone 11:") and "Redone 12:" in out
    code, out, _ = run(capsys, "verify", g)
    assert code == 0 and "all 12 events replay" in out
    with Game.open(g) as game:
        b = game.battle
        assert (b.turn, b.active_side, b.phase) == (2, "csa", Phase.COMMAND)
        assert b.unit("va4").y == 24 and b.unit("bkn14").formation.value == "line"
        assert verify(game) == 12


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


def test_qts_own_options_go_to_qt_with_no_command_or_open(tmp_path, capsys, monkeypatch):
    """``brigadier -style Fusion`` (and Qt's other standard options) is not refused: the window is
    started and Qt given the options; a command that opens no window refuses them."""
    import types

    opened = []
    fake = types.ModuleType("gui.app")
    fake.run = lambda path, qt_args=(): opened.append((path, list(qt_args))) or 0
    monkeypatch.setitem(sys.modules, "gui.app", fake)
    g = tmp_path / "g.sqlite"
    run(capsys, "new", "demo", g)
    assert run(capsys, "-style", "Fusion")[0] == 0 and opened[-1] == (None, ["-style", "Fusion"])
    assert run(capsys, "-style=Fusion", "--platform", "xcb", "-reverse")[0] == 0
    assert opened[-1] == (None, ["-style=Fusion", "--platform", "xcb", "-reverse"])
    assert run(capsys, "open", g, "-platform", "offscreen")[0] == 0
    assert opened[-1] == (str(g), ["-platform", "offscreen"])
    assert run(capsys, "-stylesheet", "s.qss", "open", g)[0] == 0
    assert opened[-1] == (str(g), ["-stylesheet", "s.qss"])
    with pytest.raises(SystemExit) as exc:
        cli.main(["info", str(g), "-style", "Fusion"])
    assert exc.value.code == 2 and "Qt's options go with no command or open" in capsys.readouterr().err


def test_the_application_gives_qt_its_options(tmp_path):
    """Qt takes the options given to it: the style and the platform asked for."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"))
    code = (
        "from gui.app import application\n"
        "app = application(['-style', 'Fusion', '-platform', 'minimal'])\n"
        "print(app.platformName(), app.style().name())\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["minimal", "fusion"]


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
            "import sys; from cli.main import main; main(['new', 'demo', sys.argv[1]]);"
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
        [sys.executable, "-m", "cli", "info", str(tmp_path / "none.sqlite")],
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


# --------------------------------------------------------------------------------------------
# What a new user's trial of the command line found
# --------------------------------------------------------------------------------------------


def new_demo(tmp_path, capsys, name: str = "g.sqlite") -> Path:
    g = tmp_path / name
    code, _, err = run(capsys, "new", "demo", g)
    assert code == 0, err
    return g


def journal_length(g: Path) -> int:
    with Game.open(g) as game:
        return game.last_seq


@pytest.mark.parametrize(
    ("value", "on_table"),
    [
        ("x=72", True),  # the right edge of the 72" x 48" demo table
        ("x=72.1", False),
        ("x=200", False),
        ("x=0", True),
        ("x=-0.1", False),
        ("y=48", True),  # the bottom edge
        ("y=48.1", False),
        ("y=0", True),
        ("y=-5", False),
    ],
)
def test_an_override_cannot_put_a_unit_off_the_table(tmp_path, capsys, value, on_table):
    g = new_demo(tmp_path, capsys)
    code, _, err = run(capsys, "override", g, "unit", "va4", value, "--reason", "x")
    if on_table:
        assert code == 0, err
        assert journal_length(g) == 1
    else:
        with Game.open(g) as game:
            u = game.battle.unit("va4")
        key, v = value.split("=")
        x, y = (float(v), u.y) if key == "x" else (u.x, float(v))
        # the same words as a move off the table
        assert code == 1 and err == f'brigadier: ({x:g}, {y:g}) is off the 72" x 48" table\n'
        assert run(capsys, "move", g, "va4", str(x), str(y))[2] == err
        assert journal_length(g) == 0


def test_a_unit_added_or_edited_off_the_table_is_refused(tmp_path, capsys):
    g = new_demo(tmp_path, capsys)
    with Game.open(g) as game:
        unit = game.battle.unit("va4").to_dict()
    add = {"type": "add_unit", "unit": {**unit, "id": "va4b", "name": "4th Virginia (b)", "x": 80}}
    code, _, err = run(capsys, "do", g, json.dumps(add))
    assert code == 1 and 'is off the 72" x 48" table' in err
    code, _, err = run(
        capsys, "do", g, json.dumps({"type": "edit_unit", "unit_id": "va4", "values": {"y": 49}})
    )
    assert code == 1 and '(34, 49) is off the 72" x 48" table' in err
    assert journal_length(g) == 0
    add["unit"]["x"] = 70
    assert run(capsys, "do", g, json.dumps(add))[0] == 0
    # an edit that does not move the unit is not checked against the table
    assert (
        run(capsys, "do", g, json.dumps({"type": "edit_unit", "unit_id": "va4", "values": {"stands": 4}}))[0]
        == 0
    )


def test_an_override_of_markers_and_traits_takes_one_word_or_a_comma_list(tmp_path, capsys):
    g = new_demo(tmp_path, capsys)

    def unit():
        with Game.open(g) as game:
            return game.battle.unit("wis2")

    assert run(capsys, "override", g, "unit", "wis2", "markers=disorder", "--reason", "x")[0] == 0
    assert {m.value for m in unit().markers} == {"disorder"}
    assert run(capsys, "override", g, "unit", "wis2", "markers=disorder,smoke", "--reason", "x")[0] == 0
    assert {m.value for m in unit().markers} == {"disorder", "smoke"}
    assert run(capsys, "override", g, "unit", "wis2", 'markers=["fired"]', "--reason", "x")[0] == 0
    assert {m.value for m in unit().markers} == {"fired"}
    assert run(capsys, "override", g, "unit", "wis2", "markers=", "--reason", "x")[0] == 0
    assert unit().markers == frozenset()
    assert run(capsys, "override", g, "unit", "wis2", "traits=rebel_yell", "--reason", "x")[0] == 0
    assert unit().traits == frozenset({"rebel_yell"})
    assert run(capsys, "override", g, "unit", "wis2", "traits=rebel_yell, stubborn", "--reason", "x")[0] == 0
    assert unit().traits == frozenset({"rebel_yell", "stubborn"})
    code, _, err = run(capsys, "override", g, "unit", "wis2", "markers=glory", "--reason", "x")
    assert code == 1 and "'glory' is not a marker; use one of: disorder, smoke" in err
    code, _, err = run(capsys, "override", g, "unit", "wis2", "markers=3", "--reason", "x")
    assert (
        code == 1 and "markers are given as one word (markers=disorder) or several separated by commas" in err
    )
    assert journal_length(g) == 6


def test_help_says_what_no_command_does_and_what_each_command_trusts(capsys):
    def help_of(*argv):
        with pytest.raises(SystemExit) as exc:
            cli.main([*argv, "--help"])
        assert exc.value.code == 0
        return " ".join(capsys.readouterr().out.split())

    top = help_of()
    assert "Run with no command, brigadier opens the application on the last game played" in top
    assert "a new game of the demo battle" in top and "~/Brigadier" in top and "BRIGADIER_SAVES_DIR" in top
    assert "brigadier new demo oak.sqlite" in top and "--force" in top
    move = help_of("move")
    assert "Phase 2 (Active Maneuver) a unit marches under the movement rules" in move
    assert "the umpire places the unit" in move and "--place" in move
    assert "nothing is measured on the table" in help_of("do") and "--dice" in help_of("do")
    assert "line of sight" in help_of("shoot") and "--dice" in help_of("shoot")
    assert "markers=disorder,smoke" in help_of("override")


def test_info_shows_the_ids_that_the_commands_take(tmp_path, capsys):
    g = new_demo(tmp_path, capsys)
    code, out, _ = run(capsys, "info", g)
    assert code == 0
    assert "Confederate [csa]: 24 stands" in out
    assert "Garnett's Brigade [garnett] (Garnett, steady): 10 stands, 3 Staff Pips" in out
    assert "4th Virginia [va4]: 5/5 stands, fresh, line" in out
    assert "Battery B, 4th US Artillery [batb4us]: 3/3 stands" in out
    with Game.open(g) as game:
        for u in game.battle.units.values():
            assert f"{u.name} [{u.id}]:" in out


def moves(g: Path) -> list[str]:
    with Game.open(g) as game:
        return [ev.action.mode for ev in game.events() if ev.type == "move_unit"]


def test_move_says_whether_it_was_a_march_or_the_umpires_placement(tmp_path, capsys):
    g = new_demo(tmp_path, capsys)
    # Phase 1 of the Confederate turn: a placement, and why it is not a march
    code, out, _ = run(capsys, "move", g, "va4", "34", "22")
    assert code == 0 and "A placement by the umpire, not a march: 4th Virginia marches only in" in out
    assert "(RULE-04-1.2)" in out
    run(capsys, "next-phase", g)
    # Phase 2, a Confederate unit: a march (Battery B's window declined)
    code, out, _ = run(capsys, "move", g, "va4", "34", "21", "--no-reactions")
    assert code == 0 and "A march under the movement rules (its side's Phase 2" in out
    # Phase 2, a Union unit in the Confederate turn: a placement
    code, out, _ = run(capsys, "move", g, "wis2", "31", "20")
    assert code == 0 and "A placement by the umpire, not a march: 2nd Wisconsin marches only" in out
    # --place: the umpire's placement even in the unit's own Phase 2
    code, out, _ = run(capsys, "move", g, "va5", "40", "21", "--place", "--reason", "set up again")
    assert (
        code == 0
        and "A placement by the umpire (--place), not a march." in out
        and "Reason: set up again" in out
    )
    # the march halts where Battery B's window opens, and goes on after its "No reaction"
    assert moves(g) == ["place", "march", "march", "place", "place"]


def test_a_march_the_rules_refuse_points_to_place(tmp_path, capsys):
    g = new_demo(tmp_path, capsys)
    run(capsys, "next-phase", g)
    with Game.open(g) as game:
        allowance = game.tables.value("movement.rate.line")
        u = game.battle.unit("nc28")
    far = u.y - allowance - 2  # further than a line may march in a turn: it halts at its allowance
    assert run(capsys, "move", g, "nc28", str(u.x), str(far))[0] == 0
    code, _, err = run(capsys, "move", g, "nc28", str(u.x), str(far))
    assert code == 1 and "has used its whole movement allowance" in err and '--place --reason "..."' in err
    assert moves(g) == ["march"]


def shoot_game(tmp_path, capsys) -> Path:
    g = new_demo(tmp_path, capsys)
    run(capsys, "next-phase", g)
    run(capsys, "next-phase", g)
    with Game.open(g) as game:
        assert game.battle.phase == Phase.RANGED
    return g


@pytest.mark.parametrize(
    ("firer", "target", "why"),
    [
        ("va4", "wis2", '4th Virginia cannot see 2nd Wisconsin: 2nd Wisconsin is 2.0" behind the crest'),
        ("va4", "bkn14", "14th Brooklyn is not in 4th Virginia's 45 degree forward arc (RULE-03-5.1)"),
        ("va4", "ind19", "a closer unengaged enemy must be fired at first (RULE-03-5.6)"),
        ("va5", "batb4us", "out of range"),
        ("va4", "nobody", "there is no unit 'nobody'"),
    ],
)
def test_shoot_measures_on_the_table_and_refuses_an_illegal_target(tmp_path, capsys, firer, target, why):
    g = shoot_game(tmp_path, capsys)
    code, out, err = run(capsys, "shoot", g, firer, target, "--dice", "3 3 5 2 6")
    assert code == 1 and why in err and out == ""
    assert journal_length(g) == 3  # two phase changes, and what Phase 2 left undone


def test_shoot_with_the_dice_rolled_at_the_table(tmp_path, capsys):
    from rules.actions import resolve
    from rules.dice import TableDice
    from rules.shooting.shoot import Shoot, measure_volley

    g = shoot_game(tmp_path, capsys)
    with Game.open(g) as game:
        before, tables = game.battle, game.tables
    code, out, err = run(capsys, "shoot", g, "va4", "batb4us", "--dice", "3 3 5 2 6")
    assert code == 0, err
    v = measure_volley(before, "va4", "batb4us", tables)
    assert f'Measured on the table: {v.distance_in:.1f}", 5 stands see.' in out
    expected = resolve(
        before, Shoot.on_table(before, "va4", "batb4us", tables), TableDice([3, 3, 5, 2, 6]), tables
    )
    with Game.open(g) as game:
        ev = game.events()[-1]
        assert ev.type == "shoot" and ev.action.distance_in == v.distance_in
        assert [r.dice for r in ev.rolls] == [(3, 3, 5, 2, 6)]
        assert game.battle == expected.battle_after
        assert ev.summary == expected.summary and ev.summary in out


@pytest.mark.parametrize(
    ("dice", "why"),
    [
        ("3 3 5 2", "too few dice were typed: the volley needs 5 dice; 4 are left of those typed in"),
        ("3 3 5 2 6 1", "6 dice were typed but this action rolls 5 (5 dice for the volley)"),
        ("3 3 7 2 6", "--dice: 7 is not a face"),
        ("3 3 0 2 6", "--dice: 0 is not a face"),
        ("3 x 5 2 6", "--dice: 'x' is not a die face"),
        ("", "--dice needs the dice rolled at the table"),
    ],
)
def test_impossible_table_dice_are_refused_and_nothing_is_written(tmp_path, capsys, dice, why):
    g = shoot_game(tmp_path, capsys)
    code, out, err = run(capsys, "shoot", g, "va4", "batb4us", "--dice", dice)
    assert code == 1 and why in err and "Traceback" not in err
    assert journal_length(g) == 3
    with Game.open(g) as game:
        assert game.battle.unit("batb4us").stands == 3 and game.dice.drawn == 0


def test_do_takes_table_dice_and_trusts_the_distance_it_is_given(tmp_path, capsys):
    g = shoot_game(tmp_path, capsys)
    raw = {"type": "shoot", "firer_id": "va4", "target_id": "batb4us", "distance_in": 3.0}
    code, _, err = run(capsys, "do", g, json.dumps(raw), "--dice", "4 4 4 4")
    assert code == 1 and "the volley needs 5 dice; 4 are left" in err  # 5 stands: 5 dice
    code, out, err = run(capsys, "do", g, json.dumps(raw), "--dice", "4 4 4 4 1")
    assert code == 0, err
    assert "short range" in out  # the distance typed, not the 14" on the table
    code, _, err = run(capsys, "do", g, json.dumps({"type": "next_phase"}), "--dice", "6")
    assert code == 1 and "this action rolls no dice, but 1 die was typed" in err


def test_no_command_overwrites_a_file_without_force(tmp_path, capsys, monkeypatch):
    import types

    g = new_demo(tmp_path, capsys)
    fake_report = types.ModuleType("gui.report")
    fake_report.write_turn_pdf = lambda game, turn, out: Path(out).write_text(f"turn {turn}")
    fake_report.write_turn_html = lambda game, turn, out: Path(out).write_text(f"<p>turn {turn}</p>")
    fake_export = types.ModuleType("gui.export")
    fake_export.export_map_png = lambda game, out: Path(out).write_text("png")
    monkeypatch.setitem(sys.modules, "gui.report", fake_report)
    monkeypatch.setitem(sys.modules, "gui.export", fake_export)
    old = {n: tmp_path / n for n in ("t.pdf", "t.html", "m.png", "s.toml", "other.sqlite")}
    for p in old.values():
        p.write_text("keep me")
    commands = [
        ("report", g, "--pdf", old["t.pdf"]),
        ("report", g, "--html", old["t.html"]),
        ("export-map", g, "--png", old["m.png"]),
        ("export-scenario", g, old["s.toml"]),
        ("new", "demo", old["other.sqlite"]),
    ]
    for argv in commands:
        code, _, err = run(capsys, *argv)
        assert code == 1 and "already exists; choose another name, or add --force" in err, argv
    assert all(p.read_text() == "keep me" for p in old.values())
    for argv in commands:
        code, _, err = run(capsys, *argv, "--force")
        assert code == 0, (argv, err)
    assert old["t.pdf"].read_text() == "turn 1" and old["m.png"].read_text() == "png"
    assert 'name = "Oak Ridge"' in old["s.toml"].read_text()
    with Game.open(old["other.sqlite"]) as game:
        assert game.battle.name == "Oak Ridge" and game.last_seq == 0
    assert not (tmp_path / ".other.sqlite.new").exists()


def test_new_over_a_save_with_force_replaces_it_whole(tmp_path, capsys):
    g = new_demo(tmp_path, capsys)
    run(capsys, "next-phase", g)
    assert journal_length(g) == 1
    code, out, err = run(capsys, "new", "demo", g, "--force", "--seed", "7")
    assert code == 0 and "dice seed 7" in out, err
    with Game.open(g) as game:
        assert game.last_seq == 0 and game.seed == 7
    # a scenario with a mistake leaves the old save as it was
    bad = tmp_path / "bad.toml"
    bad.write_text('[battle]\nname = "x"\n')
    run(capsys, "next-phase", g)
    code, _, err = run(capsys, "new", bad, g, "--force")
    assert code == 1 and journal_length(g) == 1


@pytest.mark.parametrize("command", ["new", "export-scenario", "report", "export-map"])
def test_a_folder_is_not_a_file_name(tmp_path, capsys, command):
    g = new_demo(tmp_path, capsys)
    folder = tmp_path / "somefolder"
    folder.mkdir()
    argv = {
        "new": ("new", "demo", f"{folder}/"),
        "export-scenario": ("export-scenario", g, folder),
        "report": ("report", g, "--pdf", folder),
        "export-map": ("export-map", g, "--png", folder),
    }[command]
    code, _, err = run(capsys, *argv, "--force")
    assert code == 1 and "names a folder, not a file; give a file name, like" in err
    assert list(folder.iterdir()) == []


def test_log_of_a_turn_the_game_has_not_reached_is_refused(tmp_path, capsys):
    g = new_demo(tmp_path, capsys)
    code, out, err = run(capsys, "log", g, "--turn", "2")
    assert code == 1 and err == "brigadier: the game has turns 1 to 1, not 2\n"
    code, out, _ = run(capsys, "log", g, "--turn", "1")
    assert code == 0 and out == "Turn 1 has no events yet.\n"
    run(capsys, "end-turn", g)
    run(capsys, "end-turn", g)
    assert run(capsys, "log", g, "--turn", "2")[0] == 0
    code, _, err = run(capsys, "log", g, "--turn", "9")
    assert code == 1 and "the game has turns 1 to 2, not 9" in err
    code, _, err = run(capsys, "log", g, "--turn", "0")
    assert code == 1 and "the game has turns 1 to 2, not 0" in err


def test_a_turn_skipped_by_the_umpire_is_logged_and_has_no_report(tmp_path, capsys, monkeypatch):
    import types

    calls = []
    fake = types.ModuleType("gui.report")
    fake.write_turn_pdf = lambda game, turn, out: calls.append(turn)
    monkeypatch.setitem(sys.modules, "gui.report", fake)
    g = new_demo(tmp_path, capsys)
    code, out, _ = run(capsys, "override", g, "game", "-", "turn=5", "--reason", "the scenario starts later")
    assert code == 0
    assert (
        "The game jumps from turn 1 to turn 5: turns 2 to 4 are skipped, with nothing in the journal" in out
    )
    for turn in (2, 3, 4):
        code, _, err = run(capsys, "report", g, "--turn", str(turn), "--pdf", tmp_path / f"t{turn}.pdf")
        assert code == 1 and f"turn {turn} was never played: event 1 (" in err
        assert "moved the game from turn 1 to turn 5" in err
        assert run(capsys, "log", g, "--turn", str(turn))[0] == 1
    for turn in (1, 5):
        assert run(capsys, "report", g, "--turn", str(turn), "--pdf", tmp_path / f"t{turn}.pdf")[0] == 0
    assert calls == [1, 5]
    # the next turn by ruling skips nothing; going back says what the journal keeps
    code, out, _ = run(capsys, "override", g, "game", "-", "turn=6", "--reason", "x")
    assert "The game goes on to turn 6; the rest of turn 5 is not played" in out
    code, out, _ = run(capsys, "override", g, "game", "-", "turn=3", "--reason", "x")
    assert "The game goes back to turn 3: the journal keeps what was played of turns 3 to 6" in out
    # turn 3 is being played now: it is no longer a skipped turn
    assert run(capsys, "log", g, "--turn", "3")[0] == 0


def test_messages_read_as_english(tmp_path, capsys):
    g = new_demo(tmp_path, capsys)
    code, _, err = run(capsys, "override", g, "unit", "va4", "formation=mounted", "--reason", "x")
    assert code == 1
    assert (
        "4th Virginia: an infantry unit cannot be in mounted formation; "
        "use line, assault_column, road_column or skirmish" in err
    )
    code, _, err = run(capsys, "override", g, "brigade", "garnett", "state=wavering", "--reason", "x")
    assert code == 1 and "'wavering' is not a brigade state; use one of: steady, hesitant, broken" in err
    code, _, err = run(capsys, "do", g, json.dumps({"type": "shoot", "firer": "va4", "target_id": "wis2"}))
    assert code == 1
    assert "a shoot action has no field 'firer'; its fields are firer_id, target_id, distance_in" in err
    code, _, err = run(capsys, "do", g, json.dumps({"type": "end_turn", "x": 1, "y": 2}))
    assert code == 1 and "an end_turn action has no fields 'x', 'y'; it takes no fields" in err
    code, _, err = run(capsys, "do", g, json.dumps({"type": "fire"}))
    assert code == 1 and "'fire' is not a known kind of action; use one of:" in err and "shoot" in err


def test_log_does_not_repeat_a_line_that_says_the_same_as_the_summary(tmp_path, capsys):
    g = new_demo(tmp_path, capsys)
    code, out, _ = run(capsys, "spend-pip", g, "garnett", "--purpose", "an assault")
    assert out == "1: Garnett spends a Staff Pip for an assault (2 left)\n"
    run(capsys, "end-turn", g)
    code, out, _ = run(capsys, "reserve-pip", g, "iron")
    line = "Meredith reserves a Staff Pip for reactions"
    assert out.count(line) == 1 and "[RULE-04-1.3]" in out  # the rule goes on the summary's line
    code, out, _ = run(capsys, "log", g)
    assert out.count("Garnett spends a Staff Pip for an assault") == 1
    assert out.count(line) == 1
    # lines that say more than the summary stay
    run(capsys, "override", g, "unit", "wis2", "stands=4", "--reason", "battery duel")
    code, out, _ = run(capsys, "log", g)
    assert "Reason: battery duel" in out and "Umpire's override of 2nd Wisconsin: stands 5 → 4\n" in out


def test_a_log_piped_into_a_command_that_stops_reading_ends_quietly(tmp_path, capsys):
    from rules.actions import EndTurn

    g = new_demo(tmp_path, capsys)
    with Game.open(g) as game:  # more log than a pipe holds, so the writer meets the closed pipe
        for _ in range(150):
            game.do(EndTurn())
    r = subprocess.run(
        f'"{sys.executable}" -m cli log "{g}" | head -1',
        shell=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert r.stdout.startswith("    1  turn 1 csa command: Confederate ends its turn")
    assert "Broken pipe" not in r.stderr and "Traceback" not in r.stderr
