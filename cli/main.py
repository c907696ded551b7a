"""The ``brigadier`` command.

::

    brigadier                                   open the application (last game, or a new demo game)
    brigadier new SCENARIO.toml GAME.sqlite [--seed N] [--force]   start a game ("demo" for the demo)
    brigadier open GAME.sqlite                  open a game in the application
    brigadier info GAME.sqlite                  turn, phase, stands by side and brigade, with the ids
    brigadier log GAME.sqlite [--turn N]        the battle journal, with dice and rule citations
    brigadier move GAME.sqlite UNIT X Y [--facing DEG] [--place] [--reason TEXT] [--react D=R] [--no-reactions]
    brigadier charge GAME.sqlite CHARGER TARGET [--react D=R] [--no-reactions] [--dice "..."]
    brigadier formation GAME.sqlite UNIT FORMATION
    brigadier shoot GAME.sqlite FIRER TARGET [--dice "3 3 5 2 6"]   a Phase 3 volley, measured on the table
    brigadier override GAME.sqlite unit|brigade|game ID KEY=VALUE ... --reason "..."
    brigadier reserve-pip GAME.sqlite BRIGADE
    brigadier arrive GAME.sqlite [UNIT|BRIGADE ...] [--at X Y FACING] [--dice "4"]   reinforcements come on
    brigadier spend-pip GAME.sqlite BRIGADE [--reserved] [--purpose TEXT]
    brigadier next-phase GAME.sqlite            (what the phase leaves undone is logged with it)
    brigadier end-turn GAME.sqlite
    brigadier pending GAME.sqlite [--end-turn]  what is still open in the phase, each with its rule
    brigadier do GAME.sqlite ACTION_JSON [--dice "..."]   any action, as JSON with its "type", as given
    brigadier undo GAME.sqlite / redo GAME.sqlite
    brigadier verify GAME.sqlite                 replay the journal and check it against the game
    brigadier sight GAME.sqlite --side SIDE      what a side sees now, and why not the rest
    brigadier export-scenario GAME.sqlite OUT.toml [--seq N] [--force]   the battle as a scenario
    brigadier report GAME.sqlite --turn N --pdf OUT.pdf [--html OUT.html] [--side SIDE] [--paper a4|letter] [--force]
    brigadier export-map GAME.sqlite --png OUT.png [--seq N] [--side SIDE] [--force]
    brigadier import-oob FILE.csv|FILE.xlsx OUT.toml [--men-per-stand N] [--force]   an order of battle as a scenario
    brigadier export-replay GAME.sqlite OUT.gif|OUT.webp [--side SIDE] [--every phase|turn] [--force]
    brigadier aar GAME.sqlite [--html OUT.html] [--pdf OUT.pdf] [--side SIDE] [--paper a4|letter] [--force]
    brigadier roster GAME.sqlite|SCENARIO.toml --pdf OUT.pdf [--side SIDE] [--paper letter|a4] [--force]

No command writes over an existing file unless it is given ``--force``. With no command or
``open``, Qt's own options (``-style Fusion``, ``-platform xcb``, ``-reverse`` ...: :data:`QT_OPTIONS`)
are given to Qt (:func:`qt_options`).

``report``, ``aar`` and ``export-map`` open the save and call, when they are installed,
``gui.report.write_turn_pdf(game, turn, pdf_path)`` (``write_turn_html`` for ``--html``; with
``--side``, ``gui.side_report.write_side_pdf(game, turn, side, pdf_path)`` and ``write_side_html``),
``gui.aar.write_aar_html(game, html_path, side)`` and ``write_aar_pdf``, and
``gui.export.export_map_png(game, png_path, seq=N)`` (with ``--side``,
``gui.side_report.export_side_map_png(game, png_path, side=SIDE, seq=N)``)
(``game`` is an open :class:`storage.game.Game`; the paths are strings).

Only the ``open`` command (and no command at all) imports Qt; everything else works without a
display. Errors go to stderr, in words, with a non-zero exit status: 1 for a refused action or a
bad file, 2 for a part of Brigadier that is not installed.

Here: the argument parser and :func:`main`. The commands are in modules beside it, by what they
do: starting a game or the application (:mod:`cli.games`), playing (:mod:`cli.playing`), reading
a game (:mod:`cli.reading`) and writing it to other files (:mod:`cli.outputs`); what they share
is in :mod:`cli.common`.
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import sys
from collections.abc import Callable, Sequence
from typing import Any

from cli.common import DONE, EXIT_ERROR, EXIT_OK, CommandError
from cli.games import cmd_new, cmd_open, cmd_start
from cli.outputs import (
    cmd_aar,
    cmd_export_map,
    cmd_export_replay,
    cmd_export_scenario,
    cmd_import_oob,
    cmd_report,
    cmd_roster,
)
from cli.playing import (
    cmd_arrive,
    cmd_charge,
    cmd_do,
    cmd_move,
    cmd_override,
    cmd_phase_change,
    cmd_redo,
    cmd_shoot,
    cmd_undo,
    do_action,
)
from cli.reading import cmd_info, cmd_log, cmd_pending, cmd_sight, cmd_verify
from cli.serving import cmd_serve
from rules.errors import RulesError
from storage.errors import SaveFileError, ScenarioError, StorageError

# --------------------------------------------------------------------------------------------
# The parser
# --------------------------------------------------------------------------------------------

DESCRIPTION = """\
Battle manager for umpire-run Civil War miniatures games.

Run with no command, brigadier opens the application on the last game played, or, the first time
(or if that game is gone), on a new game of the demo battle saved as oak-ridge-DATE.sqlite in the
folder $BRIGADIER_SAVES_DIR, or ~/Brigadier when that is not set. Every other command works on a
saved game (a .sqlite file) without opening a window."""

EPILOG = """\
a game from the command line:
  brigadier new demo oak.sqlite          start a game of the demo battle
  brigadier info oak.sqlite              turn, phase, units with their ids
  brigadier next-phase oak.sqlite        on to Phase 2 (Active Maneuver)
  brigadier move oak.sqlite va4 34 20    the 4th Virginia marches towards (34, 20)
  brigadier log oak.sqlite --turn 1      the journal of turn 1
  brigadier undo oak.sqlite              take it back

No command writes over an existing file unless it is given --force.
"brigadier COMMAND --help" says more about each command. With no command or open, Qt's own
options are given to Qt: brigadier -style Fusion, brigadier open oak.sqlite -platform xcb."""

MOVE_HELP = """\
move a unit. In its own side's Phase 2 (Active Maneuver) a unit marches under the movement rules:
it goes straight for the point as far as its allowance and the ground let it, and the log says
where it halted and why. At any other time (another phase, or a unit of the side whose turn it is
not), or with --place, the umpire places the unit anywhere on the table, and the log says it was a
placement. The command says which it was.

A march stops where its path opens a Trigger Window A (RULE-04-1.2), and the defending side
answers, as in the application: on a terminal it is asked (a numbered list of each defender's
reactions, with the reasons for those it may not take); the answers can be given up front with
--react DEFENDER=REACTION (taken at the first window where that reaction is open to it; the
defender answers "No reaction" at the windows before), and --no-reactions declines every window
not so answered. A declined window is logged. With no terminal and no answer for a window that
opens, nothing is saved and the windows that would open are listed. The march, its reactions and
their dice are one step: one Undo takes them back."""

CHARGE_HELP = """declare a charge in the charger's Phase 2 (RULE-06-1.1): the charger pivots and charges to the 4.0"
line, where the defender answers at Trigger Window B (RULE-06-2.1), asked as for a move (--react,
--no-reactions, or a terminal), then the pre-contact check, and a stall, a halt or contact. On
contact the melee is left pending for Phase 4. A charge the rules refuse is refused with the rule.
--dice gives the dice of the whole charge (the closing volley, its saves, the discipline check)."""

SHOOT_HELP = """\
fire a Phase 3 volley, measured on the table as the application measures it: the range from the
firer's colour stand, its forward arc, the line of sight, the stands with a clear view, enfilade
and the target's cover. A target the rules do not allow is refused with the reason and the rule.
Without --dice the game's own dice roll."""

DO_HELP = """\
do any action, given as JSON with its "type". The action is taken exactly as given: nothing is
measured on the table (a "shoot" action's distance, cover and enfilade are trusted as typed;
use the shoot command to have them measured)."""

DICE_HELP = (
    'the dice rolled at the table, in the order they are used, like "3 3 5 2 6"; '
    "they must be exactly the dice the action rolls"
)


def _action(name: str, *args: Any) -> Any:
    """The action ``name`` of :mod:`rules.actions`, made of ``args``: the rules of play are imported
    when a command makes an action, not to start the window."""
    import rules.actions

    return getattr(rules.actions, name)(*args)


def _whole_arg(rng=None) -> Callable[[str], int]:
    """An argparse type: a whole number (of at most 40 digits) in ``rng`` (:mod:`rules.limits`),
    said in words if not."""
    from rules import limits

    def parse(text: str) -> int:
        if len(text) > 40 or not re.fullmatch(r"\s*[+-]?[0-9]+\s*", text):
            raise argparse.ArgumentTypeError(f"{limits._show(text)} is not a whole number")
        if rng is None:  # any whole number: the command says which it takes, in its own words
            return int(text)
        try:
            return limits.whole(int(text), rng)
        except RulesError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = "whole number"
    return parse


def _number_arg(rng) -> Callable[[str], float]:
    """An argparse type: a finite number in ``rng`` (:mod:`rules.limits`), said in words if not."""
    from rules import limits

    def parse(text: str) -> float:
        try:
            if len(text) > 40:
                raise ValueError
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{limits._show(text)} is not a number") from None
        try:
            return limits.number(value, rng)
        except RulesError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = "number"
    return parse


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse exits 2 with usage; keep that, no traceback
        self.print_usage(sys.stderr)
        self.exit(2, f"brigadier: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    from rules import limits

    p = _Parser(
        prog="brigadier",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=cmd_start)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def game_cmd(
        name: str, func: Callable[[argparse.Namespace], int], help: str, description: str | None = None
    ) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help, description=description or help)
        sp.add_argument("game", metavar="GAME.sqlite", help="the saved game")
        sp.set_defaults(func=func)
        return sp

    def reactions(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--react",
            action="append",
            default=[],
            metavar="DEFENDER=REACTION",
            help="a defender's answer at the windows, e.g. wis2=opportunity_fire, ga8=evade:withdraw_in=5, "
            "wis2=none (may be given for each defender)",
        )
        sp.add_argument(
            "--no-reactions", action="store_true", help="every window not answered by --react is declined"
        )
        sp.add_argument(
            "--ask", action="store_true", help="ask at each window, reading the answers from stdin"
        )
        sp.add_argument("--dice", default=None, metavar='"3 3 5 2 6"', help=DICE_HELP)

    def force(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--force", action="store_true", help="write over a file of that name")

    def paper(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--paper", choices=("a4", "letter"), default=None, help="the PDF's paper (default: the locale's)"
        )

    sp = sub.add_parser(
        "new", help="start a game from a scenario file", description="start a game from a scenario"
    )
    sp.add_argument(
        "scenario",
        metavar="SCENARIO.toml",
        help='a scenario file, or a bundled one by name: "demo" (Oak Ridge), "dunker_church" or "gettysburg" (150 units)',
    )
    sp.add_argument("game", metavar="GAME.sqlite", help="the new save (an existing file only with --force)")
    sp.add_argument(
        "--seed",
        type=_whole_arg(limits.SEED),
        default=None,
        help="the dice seed (default: the scenario's, or random)",
    )
    force(sp)
    sp.set_defaults(func=cmd_new)

    game_cmd("open", cmd_open, "open a saved game in the application")
    game_cmd("info", cmd_info, "show the battle's turn, phase and stands, with the unit and brigade ids")
    sp = game_cmd("log", cmd_log, "print the battle journal")
    sp.add_argument("--turn", type=_whole_arg(), default=None, help="only this game turn")

    sp = game_cmd("move", cmd_move, "move a unit: a march in its Phase 2, otherwise a placement", MOVE_HELP)
    sp.add_argument("unit", help="the unit's id (brigadier info shows them)")
    sp.add_argument("x", type=_number_arg(limits.POSITION_IN), help="inches from the left edge")
    sp.add_argument("y", type=_number_arg(limits.POSITION_IN), help="inches from the top edge")
    sp.add_argument(
        "--facing",
        type=_number_arg(limits.FACING_DEG),
        default=None,
        help="compass bearing, 0 = the top edge",
    )
    sp.add_argument("--place", action="store_true", help="the umpire places the unit, even in its Phase 2")
    sp.add_argument("--reason", default="", help="why the umpire places it (it goes in the log)")
    reactions(sp)

    sp = game_cmd("charge", cmd_charge, "declare a charge in Phase 2, through Trigger Window B", CHARGE_HELP)
    sp.add_argument("charger", help="the charging unit's id")
    sp.add_argument("target", help="the target unit's id")
    reactions(sp)

    sp = game_cmd(
        "formation",
        lambda a: do_action(a.game, _action("ChangeFormation", a.unit, a.formation)),
        "change a unit's formation",
    )
    sp.add_argument("unit", help="the unit's id")
    sp.add_argument("formation", help="line, assault_column, road_column, skirmish, mounted ...")

    sp = game_cmd("shoot", cmd_shoot, "fire a Phase 3 volley, measured on the table", SHOOT_HELP)
    sp.add_argument("firer", help="the firing unit's id")
    sp.add_argument("target", help="the target unit's id")
    sp.add_argument("--dice", default=None, metavar='"3 3 5 2 6"', help=DICE_HELP)

    sp = game_cmd("override", cmd_override, "the umpire sets values, with a reason for the log")
    sp.add_argument("target", choices=("unit", "brigade", "game"))
    sp.add_argument("id", help='the unit or brigade id ("-" for the game)')
    sp.add_argument(
        "values",
        nargs="+",
        metavar="KEY=VALUE",
        help="e.g. stands=4, markers=disorder or markers=disorder,smoke (markers= for none), "
        "traits=rebel_yell, state=hesitant, turn=2",
    )
    sp.add_argument("--reason", required=True, help="why (it goes in the log)")

    sp = game_cmd(
        "reserve-pip", lambda a: do_action(a.game, _action("ReservePip", a.brigade)), "reserve a Staff Pip"
    )
    sp.add_argument("brigade", help="the brigade's id")
    sp = game_cmd(
        "arrive",
        cmd_arrive,
        "bring units due to arrive onto the table at their entry points (in their side's Phase 2)",
    )
    sp.add_argument(
        "units",
        nargs="*",
        metavar="UNIT|BRIGADE",
        help="the units (or brigades) that arrive; none: the first group due",
    )
    sp.add_argument(
        "--at",
        nargs=3,
        type=float,
        default=None,
        metavar=("X", "Y", "FACING"),
        help="where one unit comes on (within the club default of its entry point)",
    )
    sp.add_argument("--dice", default=None, metavar='"4"', help=DICE_HELP)
    sp = game_cmd(
        "spend-pip",
        lambda a: do_action(a.game, _action("SpendPip", a.brigade, a.purpose, a.reserved)),
        "spend a Staff Pip",
    )
    sp.add_argument("brigade", help="the brigade's id")
    sp.add_argument("--purpose", default="")
    sp.add_argument("--reserved", action="store_true", help="spend a reserved pip")

    game_cmd(
        "next-phase",
        lambda a: cmd_phase_change(a, False),
        "go on to the next phase (what is left of this one is logged as left undone)",
    )
    game_cmd(
        "end-turn",
        lambda a: cmd_phase_change(a, True),
        "end the active side's turn (what is left of it is logged as left undone)",
    )
    sp = game_cmd(
        "pending",
        cmd_pending,
        "what is still open in this phase: units to move or fire, melees, pips, rulings",
    )
    sp.add_argument(
        "--end-turn", action="store_true", help="everything the rest of the side's turn leaves open"
    )
    sp = game_cmd("do", cmd_do, "do any action, given as JSON, trusting what it is given", DO_HELP)
    sp.add_argument("action", metavar="ACTION_JSON", help='e.g. {"type": "next_phase"}')
    sp.add_argument("--dice", default=None, metavar='"3 3 5 2 6"', help=DICE_HELP)
    game_cmd("undo", cmd_undo, "take back the last step (an action, or a march with its reactions)")
    game_cmd("redo", cmd_redo, "put back the last step taken back")
    game_cmd("verify", cmd_verify, "replay the journal and check it against the saved game")

    sp = game_cmd(
        "sight",
        cmd_sight,
        "what a side sees of the enemy now, with the reason and rule for each unit it does not see",
    )
    sp.add_argument("--side", required=True, metavar="SIDE", help="the side's id or name")

    sp = game_cmd(
        "serve",
        cmd_serve,
        "serve each side's page for the players' phones and tablets, following the game as it is played",
    )
    sp.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to serve on (default: this machine only; 0.0.0.0: the local network)",
    )
    sp.add_argument("--port", type=int, default=8765, help="the port (default 8765; 0: any free one)")
    sp.add_argument("--json", action="store_true", help="print the links as one line of JSON")

    sp = game_cmd(
        "export-scenario", cmd_export_scenario, "write the battle as it stands as a new scenario file"
    )
    sp.add_argument("out", metavar="OUT.toml")
    sp.add_argument(
        "--seq", type=_whole_arg(), default=None, help="as it stood after this journal entry (0: the start)"
    )
    force(sp)

    sp = game_cmd("report", cmd_report, "print a turn summary to PDF or HTML")
    sp.add_argument(
        "--turn", type=_whole_arg(), default=None, help="the game turn (default: the current one)"
    )
    sp.add_argument("--pdf", default=None, metavar="OUT.pdf", help="write the summary as a PDF")
    sp.add_argument("--html", default=None, metavar="OUT.html", help="write the summary as one HTML file")
    sp.add_argument(
        "--side",
        default=None,
        metavar="SIDE",
        help="the turn as this side (its id or name) knew it: its own units in full, the enemy only as "
        "far as it was seen",
    )
    paper(sp)
    force(sp)
    sp = sub.add_parser(
        "roster",
        help="print the sides' roster sheets to PDF: a game's as it stands, or a scenario's blank",
        description="print roster sheets for the table: one side's or every side's order of battle by "
        "brigade, each brigade with its Brigadier, Staff Pips track and state, each unit with its "
        "stands as boxes to strike (those lost struck), its micro-hit and marker boxes. A game's "
        "sheets show it as it stands; a scenario's (a .toml file, or a bundled one by name: demo, "
        "dunker_church) are blank, for a game kept on paper.",
    )
    sp.add_argument("source", metavar="GAME.sqlite|SCENARIO.toml", help="a saved game, or a scenario")
    sp.add_argument("--pdf", required=True, metavar="OUT.pdf", help="the PDF to write")
    sp.add_argument("--side", default=None, help="one side only, by id or name (default: every side)")
    sp.add_argument(
        "--paper", choices=("letter", "a4"), default=None, help="the paper (default: the locale's)"
    )
    sp.add_argument("--blank", action="store_true", help="a game's blank sheets, as its scenario began")
    force(sp)
    sp.set_defaults(func=cmd_roster)
    sp = game_cmd(
        "aar",
        cmd_aar,
        "the after-action report: the battle's story turn by turn, with maps, to HTML and/or PDF",
    )
    sp.add_argument("--html", default=None, metavar="OUT.html", help="one HTML file, pictures inside")
    sp.add_argument("--pdf", default=None, metavar="OUT.pdf", help="a PDF, printed as the turn summary is")
    sp.add_argument(
        "--side",
        default=None,
        metavar="SIDE",
        help="the battle as this side (its id or name) knew it: no enemy unit it did not see",
    )
    paper(sp)
    force(sp)

    sp = sub.add_parser(
        "import-oob",
        help="an order of battle from a spreadsheet (CSV or XLSX) as a scenario file",
        description="an order of battle from a spreadsheet (CSV or XLSX), one row per unit, as a scenario file",
    )
    sp.add_argument("source", metavar="FILE.csv|FILE.xlsx")
    sp.add_argument("out", metavar="OUT.toml")
    sp.add_argument(
        "--men-per-stand",
        type=_whole_arg(),
        default=60,
        help="men to a stand (default 60, a club default); a battery has a section for every 2 guns",
    )
    force(sp)
    sp.set_defaults(func=cmd_import_oob)

    sp = game_cmd(
        "export-replay", cmd_export_replay, "the battle's end-of-phase maps as an animated GIF or WebP"
    )
    sp.add_argument("out", metavar="OUT.gif|OUT.webp")
    sp.add_argument(
        "--side", default=None, metavar="SIDE", help="as this side (its id or name) saw it, turn by turn"
    )
    sp.add_argument(
        "--every",
        choices=("phase", "turn"),
        default="phase",
        help="a frame at the end of every phase in which something was done (default), or of every turn",
    )
    force(sp)

    sp = game_cmd("export-map", cmd_export_map, "save the battlefield map as a PNG picture")
    sp.add_argument("--png", required=True, metavar="OUT.png")
    sp.add_argument(
        "--seq", type=_whole_arg(), default=None, help="as it stood after this journal entry (0: the start)"
    )
    sp.add_argument(
        "--side",
        default=None,
        metavar="SIDE",
        help="as this side (its id or name) saw it: its own units, the enemy it saw, ghosts of the rest",
    )
    force(sp)
    return p


_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with every control character but the newline and the tab shown as ``\\xNN``:
    a name or a log line read from a save or a scenario never sends escape sequences (colours,
    a cleared screen, a changed window title) to the umpire's terminal."""
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class _Printable:
    """A text stream that writes only :func:`printable` text to the stream it wraps."""

    def __init__(self, stream: Any):
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(printable(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


#: Qt's own command-line options (QApplication's and QGuiApplication's, and the X11 platform's):
#: those that take a value ("-style Fusion" or "-style=Fusion"), and those that take none.
QT_OPTIONS = (
    "style",
    "stylesheet",
    "platform",
    "platformpluginpath",
    "platformtheme",
    "plugin",
    "qwindowgeometry",
    "qwindowicon",
    "qwindowtitle",
    "session",
    "display",
    "geometry",
    "name",
    "title",
    "visual",
    "dialogs",
    "fontengine",
    "qmljsdebugger",
)
QT_FLAGS = ("reverse", "widgetcount", "nograb", "dograb", "sync", "testability")


def qt_options(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """``argv`` parted into Qt's own options (:data:`QT_OPTIONS` with their values, and
    :data:`QT_FLAGS`; with one dash or two, as Qt takes them) and the rest, Brigadier's.

    >>> qt_options(["-style", "Fusion", "open", "g.sqlite", "--platform=xcb", "-reverse"])
    (['-style', 'Fusion', '--platform=xcb', '-reverse'], ['open', 'g.sqlite'])
    """
    qt: list[str] = []
    rest: list[str] = []
    args = list(argv)
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":  # what follows is Brigadier's, whatever it looks like
            rest += args[i:]
            break
        dashes = len(a) - len(a.lstrip("-"))
        name, has_value = (a[dashes:].split("=", 1)[0], "=" in a) if 1 <= dashes <= 2 else ("", False)
        if name in QT_OPTIONS:
            took = 1 if has_value or i + 1 >= len(args) else 2
            qt += args[i : i + took]
            i += took
            continue
        (qt if name in QT_FLAGS and not has_value else rest).append(a)
        i += 1
    return qt, rest


def main(argv: Sequence[str] | None = None) -> int:
    qt, rest = qt_options(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(rest)
    if qt and args.func not in (cmd_start, cmd_open):  # a command with no window: no Qt to give them to
        parser.error(f"unrecognized arguments: {' '.join(qt)} (Qt's options go with no command or open)")
    args.qt_args = qt
    DONE.clear()
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Printable(out), _Printable(err)
    try:
        return _main(args)
    finally:
        sys.stdout, sys.stderr = out, err


def _main(args: argparse.Namespace) -> int:
    try:
        code = args.func(args)
        sys.stdout.flush()
        return code
    except OSError as exc:
        if not DONE:
            return _failed(exc)
        # done and saved, but its result could not be shown: say so where it can be read, and
        # exit 0, so that the umpire does not do it again
        _quiet_stdout()
        why = exc.strerror or str(exc)
        try:
            print(
                f"brigadier: done and saved: {'; '.join(DONE)}; but its result could not be shown ({why})",
                file=sys.stderr,
            )
        except OSError:
            pass
        return EXIT_OK
    except CommandError as exc:
        print(f"brigadier: {exc}", file=sys.stderr)
        return exc.code
    except (SaveFileError, ScenarioError, StorageError, RulesError) as exc:
        print(f"brigadier: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except sqlite3.Error as exc:  # a save that failed under Brigadier's own checks: still one line
        from storage.journal import sqlite_words

        print(
            f"brigadier: {args.game if hasattr(args, 'game') else ''}: {sqlite_words(exc)}", file=sys.stderr
        )
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130


def _quiet_stdout() -> None:
    """Send what is left of standard output nowhere, so that Python's last flush on the way out
    does not fail again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (a test's buffer)
        pass


def _failed(exc: OSError) -> int:
    if isinstance(exc, BrokenPipeError):  # the output was piped into a command that stopped reading (head)
        _quiet_stdout()
        return EXIT_OK
    where = f"{exc.filename}: " if exc.filename else ""
    try:
        print(f"brigadier: {where}{exc.strerror or exc}", file=sys.stderr)
    except OSError:
        pass
    _quiet_stdout()
    return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
