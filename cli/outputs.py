"""The commands that write a game to a file of another kind: ``export-scenario`` (a scenario
file), ``report`` (a turn summary, or a side's, to PDF or HTML), ``roster`` (roster sheets to
PDF) and ``export-map`` (a PNG). The pictures and PDFs are drawn by the application's modules
(:mod:`gui.report`, :mod:`gui.side_report`, :mod:`gui.roster_print`, :mod:`gui.export`), imported
only when asked for: without them the command says so and exits 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli.common import EXIT_MISSING, EXIT_OK, CommandError, check_out, check_turn, done, open_game
from rules.battle.words import plural


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


def cmd_export_scenario(args: argparse.Namespace) -> int:
    from storage.outputs import atomic_write
    from storage.scenario_writing import to_toml

    out = check_out(args.out, args.force, "scenario.toml", game=args.game)
    with open_game(args.game) as game:
        battle = game.battle if args.seq is None else game.state_at(args.seq)
        text = to_toml(battle)
    atomic_write(out, text, what="the scenario", protect=[args.game])
    done(f"the scenario {out}")
    print(f"Wrote {out}: {battle.name}, turn {battle.turn}")
    return EXIT_OK


def _check_pdf_and_html(args: argparse.Namespace, stem: str) -> None:
    """A report's ``--pdf`` and ``--html``: at least one, each a file that may be written, not the
    same file."""
    if not args.pdf and not args.html:
        raise CommandError("say where to write the report: --pdf OUT.pdf and/or --html OUT.html")
    for out in (args.pdf, args.html):
        if out:
            check_out(out, args.force, stem + Path(out).suffix, game=args.game)
    if args.pdf and args.html and os.path.abspath(args.pdf) == os.path.abspath(args.html):
        raise CommandError("--pdf and --html name the same file; give each its own")


def cmd_report(args: argparse.Namespace) -> int:
    _check_pdf_and_html(args, "turn")
    if args.side is not None:  # the turn as one side knew it (gui.side_report)
        module, pdf_name, html_name = "gui.side_report", "write_side_pdf", "write_side_html"
    else:
        module, pdf_name, html_name = "gui.report", "write_turn_pdf", "write_turn_html"
    write_pdf = _gui_function(module, pdf_name) if args.pdf else None
    write_html = _gui_function(module, html_name) if args.html else None
    with open_game(args.game) as game:
        turn = args.turn if args.turn is not None else game.battle.turn
        check_turn(game, turn)
        side = () if args.side is None else (args.side,)
        if write_pdf is not None:
            paper = {"paper": args.paper} if args.paper else {}  # else the locale's
            write_pdf(game, turn, *side, args.pdf, **paper)
            done(f"the report {args.pdf}")
            print(f"Wrote {args.pdf}")
        if write_html is not None:
            write_html(game, turn, *side, args.html)
            done(f"the report {args.html}")
            print(f"Wrote {args.html}")
    return EXIT_OK


def cmd_roster(args: argparse.Namespace) -> int:
    """Roster sheets to PDF: a game's as it stands (or, with --blank, as its scenario began), or a
    scenario's blank sheets (a file, or a bundled one by name), for one side or all."""
    from reports.roster_sheets import roster_sheets
    from rules.tables import load_tables
    from storage.scenario import bundled_scenarios, load_bundled, load_scenario

    check_out(args.pdf, args.force, "roster.pdf", game=args.source)
    write = _gui_function("gui.roster_print", "write_roster_pdf")
    src = Path(args.source)
    if src.suffix.lower() == ".toml" or (not src.exists() and args.source in bundled_scenarios()):
        battle = (
            load_scenario(src) if src.exists() or src.suffix.lower() == ".toml" else load_bundled(args.source)
        )
        tables, blank = load_tables(), True
    else:
        with open_game(args.source) as game:
            battle = game.scenario if args.blank else game.battle
            tables, blank = game.tables, args.blank
    try:
        sheets = roster_sheets(battle, tables, blank=blank, side=args.side)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    write(sheets, args.pdf, args.paper)
    done(f"the roster sheets {args.pdf}")
    units = sum(len(sh.units) for sh in sheets)
    which = ", ".join(sh.side for sh in sheets)
    kind = "blank roster sheets" if blank else "roster sheets"
    print(f"Wrote {args.pdf}: {kind} of {battle.name} for {which} ({plural(units, 'unit')})")
    return EXIT_OK


def cmd_aar(args: argparse.Namespace) -> int:
    """The after-action report: the battle's story, turn by turn, to HTML and/or PDF."""
    _check_pdf_and_html(args, "after-action")
    write_html = _gui_function("gui.aar", "write_aar_html") if args.html else None
    write_pdf = _gui_function("gui.aar", "write_aar_pdf") if args.pdf else None
    with open_game(args.game) as game:
        if write_html is not None:
            write_html(game, args.html, args.side)
            done(f"the report {args.html}")
            print(f"Wrote {args.html}")
        if write_pdf is not None:
            paper = {"paper": args.paper} if args.paper else {}  # else the locale's
            write_pdf(game, args.pdf, args.side, **paper)
            done(f"the report {args.pdf}")
            print(f"Wrote {args.pdf}")
    return EXIT_OK


def cmd_export_replay(args: argparse.Namespace) -> int:
    """The battle's end-of-phase maps as an animated GIF or WebP."""
    check_out(args.out, args.force, "replay" + Path(args.out).suffix, game=args.game)
    write = _gui_function("gui.replay_export", "write_replay")
    with open_game(args.game) as game:
        write(game, args.out, args.side, args.every)
    done(f"the replay {args.out}")
    print(f"Wrote {args.out}")
    return EXIT_OK


def cmd_import_oob(args: argparse.Namespace) -> int:
    """An order of battle from a spreadsheet (CSV or XLSX) to a scenario file."""
    from storage.oob_import import StrengthRule, import_oob

    out = check_out(args.out, args.force, "scenario.toml")
    if not 1 <= args.men_per_stand <= 10_000:
        raise CommandError(f"--men-per-stand is a number of men from 1 to 10000, not {args.men_per_stand}")
    rule = StrengthRule(men_per_stand=args.men_per_stand)
    path, n = import_oob(args.source, out, rule)
    done(f"the scenario {path}")
    print(f"Wrote {path}: {n} units. Strengths: {rule.words()}.")
    print(f"Start a game from it: brigadier new {path} GAME.sqlite")
    return EXIT_OK


def cmd_export_map(args: argparse.Namespace) -> int:
    check_out(args.png, args.force, "map.png", game=args.game)
    extra = {} if args.seq is None else {"seq": args.seq}
    if args.side is not None:  # as the side saw it (gui.side_report)
        fn = _gui_function("gui.side_report", "export_side_map_png")
        extra["side"] = args.side
    else:
        fn = _gui_function("gui.export", "export_map_png")
    with open_game(args.game) as game:
        fn(game, args.png, **extra)
    done(f"the map {args.png}")
    print(f"Wrote {args.png}")
    return EXIT_OK
