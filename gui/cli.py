"""The ``brigadier`` command.

::

    brigadier                                   open the application (last game, or the demo battle)
    brigadier new SCENARIO.toml GAME.sqlite     start a game from a scenario ("demo" for the demo)
    brigadier open GAME.sqlite                  open a game in the application
    brigadier info GAME.sqlite                  name, turn, side, phase, stands by side and brigade
    brigadier log GAME.sqlite [--turn N]        the battle journal, with dice and rule citations
    brigadier move GAME.sqlite UNIT X Y [--facing DEG]
    brigadier formation GAME.sqlite UNIT FORMATION
    brigadier override GAME.sqlite unit|brigade|game ID KEY=VALUE ... --reason "..."
    brigadier reserve-pip GAME.sqlite BRIGADE
    brigadier spend-pip GAME.sqlite BRIGADE [--reserved] [--purpose TEXT]
    brigadier next-phase GAME.sqlite
    brigadier end-turn GAME.sqlite
    brigadier do GAME.sqlite ACTION_JSON         any action, as JSON with its "type"
    brigadier undo GAME.sqlite / redo GAME.sqlite
    brigadier verify GAME.sqlite                 replay the journal and check it against the game
    brigadier export-scenario GAME.sqlite OUT.toml [--seq N]   the battle now (or after event N) as a scenario
    brigadier report GAME.sqlite --turn N --pdf OUT.pdf [--html OUT.html]
    brigadier export-map GAME.sqlite --png OUT.png

``report`` and ``export-map`` open the save and call, when they are installed,
``gui.report.write_turn_pdf(game, turn, pdf_path)`` (``write_turn_html`` for ``--html``) and
``gui.export.export_map_png(game, png_path)``
(``game`` is an open :class:`storage.game.Game`; the paths are strings).

Only the ``open`` command (and no command at all) imports Qt; everything else works without a
display. Errors go to stderr, in words, with a non-zero exit status: 1 for a refused action or a
bad file, 2 for a part of Brigadier that is not installed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rules.actions import (
    Action,
    ChangeFormation,
    EndTurn,
    MoveUnit,
    NextPhase,
    Override,
    ReservePip,
    SpendPip,
    load_action_modules,
)
from rules.errors import RulesError
from storage.errors import SaveFileError, ScenarioError, StorageError

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_MISSING = 2


class CommandError(Exception):
    def __init__(self, message: str, code: int = EXIT_ERROR):
        super().__init__(message)
        self.code = code


# --------------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------------


def _open_game(path: str):
    from storage.game import Game

    return Game.open(path)


def _run_gui(path: str | None) -> int:
    try:
        app = importlib.import_module("gui.app")
    except ModuleNotFoundError as exc:
        raise CommandError(
            f"the Brigadier application is not available here ({exc.name} is missing)", EXIT_MISSING
        ) from None
    run = getattr(app, "run", None)
    if run is None:
        raise CommandError(
            "the Brigadier application is not available here (gui.app has no run)", EXIT_MISSING
        )
    return int(run(path) or 0)


def cmd_start(args: argparse.Namespace) -> int:
    return _run_gui(None)


def cmd_open(args: argparse.Namespace) -> int:
    game = _open_game(args.game)  # a bad file is refused here, before any window opens
    game.close()
    return _run_gui(str(Path(args.game)))


def cmd_new(args: argparse.Namespace) -> int:
    from storage.game import Game
    from storage.scenario import bundled_scenarios, load_bundled, load_scenario

    src = args.scenario
    if not Path(src).exists() and src in bundled_scenarios():
        battle = load_bundled(src)
    else:
        battle = load_scenario(src)
    seed = args.seed
    with Game.create(args.game, battle, seed=seed) as game:
        print(f"Created {args.game}: {battle.name}, dice seed {game.seed}")
        _print_info(game)
    return EXIT_OK


def _print_info(game) -> None:
    from rules.turn import phase_title

    b = game.battle
    print(f"Battle: {b.name}")
    print(f"{phase_title(b)}")
    print(
        f"Journal: {game.last_seq} events" + (f", {len(game.redo_events())} undone" if game.can_redo else "")
    )
    for side in b.oob.sides:
        print(f"{side.name}: {b.oob.stands(side=side.id)} stands")
        for br in b.oob.brigades_of(side.id):
            reserved = f", {br.staff_pips_reserved} reserved" if br.staff_pips_reserved else ""
            print(
                f"  {br.name} ({br.brigadier.name or 'no Brigadier'}, {br.state.value}): "
                f"{b.oob.stands(brigade=br.id)} stands, {br.staff_pips} Staff Pips{reserved}"
            )
            for u in b.oob.units_of_brigade(br.id):
                marks = f" [{', '.join(sorted(m.value for m in u.markers))}]" if u.markers else ""
                print(
                    f"    {u.name}: {u.stands}/{u.stands_start} stands, {u.health.value}, "
                    f"{u.formation.label.lower()}{marks}"
                )


def cmd_info(args: argparse.Namespace) -> int:
    with _open_game(args.game) as game:
        _print_info(game)
    return EXIT_OK


def cmd_log(args: argparse.Namespace) -> int:
    with _open_game(args.game) as game:
        for ev in game.events(turn=args.turn):
            print(f"{ev.seq:>5}  turn {ev.turn} {ev.side} {ev.phase}: {ev.summary}")
            for s in ev.steps:
                print(f"         {s}")
    return EXIT_OK


def _do(path: str, action: Action) -> int:
    with _open_game(path) as game:
        ev = game.do(action)
        print(f"{ev.seq}: {ev.summary}")
        for s in ev.steps:
            print(f"    {s}")
    return EXIT_OK


def _value(text: str) -> Any:
    """A KEY=VALUE value: JSON if it reads as JSON (numbers, true, [..]), otherwise text."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def cmd_override(args: argparse.Namespace) -> int:
    values: dict[str, Any] = {}
    for item in args.values:
        if "=" not in item:
            raise CommandError(f"'{item}' should be KEY=VALUE, for example stands=4")
        k, v = item.split("=", 1)
        values[k.strip()] = _value(v.strip())
    target_id = args.id if args.target != "game" else ""
    return _do(args.game, Override(args.target, target_id, values, args.reason))


def cmd_do(args: argparse.Namespace) -> int:
    load_action_modules()
    try:
        data = json.loads(args.action)
    except json.JSONDecodeError as exc:
        raise CommandError(f"the action is not valid JSON: {exc.msg}") from None
    return _do(args.game, Action.from_dict(data))


def cmd_undo(args: argparse.Namespace) -> int:
    with _open_game(args.game) as game:
        ev = game.undo()
        print(f"Undone {ev.seq}: {ev.summary}" if ev else "There is nothing to undo.")
    return EXIT_OK


def cmd_redo(args: argparse.Namespace) -> int:
    with _open_game(args.game) as game:
        ev = game.redo()
        print(f"Redone {ev.seq}: {ev.summary}" if ev else "There is nothing to redo.")
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    from storage.replay import verify

    with _open_game(args.game) as game:
        n = verify(game)
    print(f"{args.game}: all {n} events replay to the saved game.")
    return EXIT_OK


def cmd_export_scenario(args: argparse.Namespace) -> int:
    from storage.scenario import to_toml

    out = Path(args.out)
    if out.exists():
        raise CommandError(f"{out}: a file of that name already exists; choose another name")
    with _open_game(args.game) as game:
        battle = game.battle if args.seq is None else game.state_at(args.seq)
        text = to_toml(battle)
    out.write_text(text, encoding="utf-8")
    print(f"Wrote {out}: {battle.name}, turn {battle.turn}")
    return EXIT_OK


def _gui_function(module: str, name: str) -> Callable[..., Any]:
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and (exc.name == module or module.startswith(exc.name + ".")):
            raise CommandError(
                f"{module} is not part of this Brigadier installation yet", EXIT_MISSING
            ) from None
        raise CommandError(f"{module} cannot be loaded: {exc.name} is missing", EXIT_MISSING) from None
    fn = getattr(mod, name, None)
    if fn is None:
        raise CommandError(f"{module} has no {name}() in this Brigadier installation", EXIT_MISSING)
    return fn


def cmd_report(args: argparse.Namespace) -> int:
    if not args.pdf and not args.html:
        raise CommandError("say where to write the report: --pdf OUT.pdf and/or --html OUT.html")
    write_pdf = _gui_function("gui.report", "write_turn_pdf") if args.pdf else None
    write_html = _gui_function("gui.report", "write_turn_html") if args.html else None
    with _open_game(args.game) as game:
        turn = args.turn if args.turn is not None else game.battle.turn
        if turn < 1 or turn > game.battle.turn:
            raise CommandError(f"the game has turns 1 to {game.battle.turn}, not {turn}")
        if write_pdf is not None:
            write_pdf(game, turn, args.pdf)
            print(f"Wrote {args.pdf}")
        if write_html is not None:
            write_html(game, turn, args.html)
            print(f"Wrote {args.html}")
    return EXIT_OK


def cmd_export_map(args: argparse.Namespace) -> int:
    fn = _gui_function("gui.export", "export_map_png")
    with _open_game(args.game) as game:
        fn(game, args.png)
    print(f"Wrote {args.png}")
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# The parser
# --------------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse exits 2 with usage; keep that, no traceback
        self.print_usage(sys.stderr)
        self.exit(2, f"brigadier: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="brigadier", description="Battle manager for umpire-run Civil War miniatures games.")
    p.set_defaults(func=cmd_start)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def game_cmd(name: str, func: Callable[[argparse.Namespace], int], help: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help, description=help)
        sp.add_argument("game", metavar="GAME.sqlite", help="the saved game")
        sp.set_defaults(func=func)
        return sp

    sp = sub.add_parser(
        "new", help="start a game from a scenario file", description="start a game from a scenario"
    )
    sp.add_argument(
        "scenario", metavar="SCENARIO.toml", help='a scenario file, or "demo" for the demo battle'
    )
    sp.add_argument(
        "game", metavar="GAME.sqlite", help="the new save (an existing file is never overwritten)"
    )
    sp.add_argument(
        "--seed", type=int, default=None, help="the dice seed (default: the scenario's, or random)"
    )
    sp.set_defaults(func=cmd_new)

    game_cmd("open", cmd_open, "open a saved game in the application")
    game_cmd("info", cmd_info, "show the battle's turn, phase and stands")
    sp = game_cmd("log", cmd_log, "print the battle journal")
    sp.add_argument("--turn", type=int, default=None, help="only this game turn")

    sp = game_cmd("move", lambda a: _do(a.game, MoveUnit(a.unit, a.x, a.y, a.facing)), "move a unit")
    sp.add_argument("unit", help="the unit's id")
    sp.add_argument("x", type=float, help="inches from the left edge")
    sp.add_argument("y", type=float, help="inches from the top edge")
    sp.add_argument("--facing", type=float, default=None, help="compass bearing, 0 = the top edge")

    sp = game_cmd(
        "formation", lambda a: _do(a.game, ChangeFormation(a.unit, a.formation)), "change a unit's formation"
    )
    sp.add_argument("unit")
    sp.add_argument("formation", help="line, assault_column, road_column, skirmish, mounted ...")

    sp = game_cmd("override", cmd_override, "the umpire sets values, with a reason for the log")
    sp.add_argument("target", choices=("unit", "brigade", "game"))
    sp.add_argument("id", help='the unit or brigade id ("-" for the game)')
    sp.add_argument("values", nargs="+", metavar="KEY=VALUE", help='e.g. stands=4 markers=["disorder"]')
    sp.add_argument("--reason", required=True, help="why (it goes in the log)")

    sp = game_cmd("reserve-pip", lambda a: _do(a.game, ReservePip(a.brigade)), "reserve a Staff Pip")
    sp.add_argument("brigade")
    sp = game_cmd(
        "spend-pip", lambda a: _do(a.game, SpendPip(a.brigade, a.purpose, a.reserved)), "spend a Staff Pip"
    )
    sp.add_argument("brigade")
    sp.add_argument("--purpose", default="")
    sp.add_argument("--reserved", action="store_true", help="spend a reserved pip")

    game_cmd("next-phase", lambda a: _do(a.game, NextPhase()), "go on to the next phase")
    game_cmd("end-turn", lambda a: _do(a.game, EndTurn()), "end the active side's turn")
    sp = game_cmd("do", cmd_do, "do any action, given as JSON")
    sp.add_argument("action", metavar="ACTION_JSON", help='e.g. {"type": "next_phase"}')
    game_cmd("undo", cmd_undo, "take back the last action")
    game_cmd("redo", cmd_redo, "put back the last action taken back")
    game_cmd("verify", cmd_verify, "replay the journal and check it against the saved game")

    sp = game_cmd(
        "export-scenario", cmd_export_scenario, "write the battle as it stands as a new scenario file"
    )
    sp.add_argument("out", metavar="OUT.toml")
    sp.add_argument(
        "--seq", type=int, default=None, help="as it stood after this journal entry (0: the start)"
    )

    sp = game_cmd("report", cmd_report, "print a turn summary to PDF")
    sp.add_argument("--turn", type=int, default=None, help="the game turn (default: the current one)")
    sp.add_argument("--pdf", default=None, metavar="OUT.pdf", help="write the summary as a PDF")
    sp.add_argument("--html", default=None, metavar="OUT.html", help="write the summary as one HTML file")
    sp = game_cmd("export-map", cmd_export_map, "save the battlefield map as a PNG picture")
    sp.add_argument("--png", required=True, metavar="OUT.png")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except CommandError as exc:
        print(f"brigadier: {exc}", file=sys.stderr)
        return exc.code
    except (SaveFileError, ScenarioError, StorageError, RulesError) as exc:
        print(f"brigadier: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as exc:
        print(f"brigadier: {exc.filename or ''}: {exc.strerror}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the output was piped into a command that stopped reading (head)
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
