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
    brigadier export-map GAME.sqlite --png OUT.png [--force]
    brigadier roster GAME.sqlite|SCENARIO.toml --pdf OUT.pdf [--side SIDE] [--paper letter|a4] [--force]

No command writes over an existing file unless it is given ``--force``.

``report`` and ``export-map`` open the save and call, when they are installed,
``gui.report.write_turn_pdf(game, turn, pdf_path)`` (``write_turn_html`` for ``--html``; with
``--side``, ``gui.side_report.write_side_pdf(game, turn, side, pdf_path)`` and ``write_side_html``) and
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
import os
import re
import sqlite3
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rules.actions import (
    Action,
    ChangeFormation,
    EndTurn,
    NextPhase,
    Override,
    ReservePip,
    SpendPip,
    load_action_modules,
    march_refusal,
    resolve,
)
from rules.battle.order_of_battle import Phase, plural
from rules.dice import TableDice, parse_dice
from rules.errors import DiceError, RulesError
from storage.errors import SaveFileError, ScenarioError, StorageError

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_MISSING = 2


#: What the command has saved or written so far (an event, a file): if showing its result then
#: fails (standard output full or closed), the command still says, on standard error, that it was
#: done, and exits 0, so that the umpire does not do it twice.
_DONE: list[str] = []


def _done(what: str) -> None:
    _DONE.append(what)


class CommandError(Exception):
    def __init__(self, message: str, code: int = EXIT_ERROR):
        super().__init__(message)
        self.code = code


# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------


def _open_game(path: str):
    from storage.game import Game

    return Game.open(path)


def _check_out(path: str, force: bool, example: str, game: str | None = None, save: bool = False) -> Path:
    """Where a command is about to write (:func:`storage.outputs.check_output`): a file name, not
    a folder, a FIFO or a device; never the save ``game`` (nor, for a report, a map or a
    scenario, any saved game); an existing file only with --force."""
    from storage.outputs import check_output

    return check_output(path, force=force, example=example, protect=[game] if game else (), save=save)


# --------------------------------------------------------------------------------------------
# Printing events
# --------------------------------------------------------------------------------------------


def _print_event(ev, head: str, indent: str) -> None:
    """The event's summary, then its steps; a step that says no more than the summary is not
    repeated (its dice and rule go on the summary's line)."""
    steps = list(ev.steps)
    line = ev.summary
    for i, s in enumerate(steps):
        if s.text == ev.summary:
            line = str(s)
            del steps[i]
            break
    print(f"{head}{line}")
    for s in steps:
        print(f"{indent}{s}")


# --------------------------------------------------------------------------------------------
# The game's turns
# --------------------------------------------------------------------------------------------


def skipped_turns(game) -> dict[int, str]:
    """The game turns the umpire's override of the turn number jumped over and that were never
    played, each with the event that skipped it (for ``log --turn`` and ``report --turn``; found in
    the journal's SQL, :meth:`storage.game.Game.skipped_turns`)."""
    return game.skipped_turns()


def _check_turn(game, turn: int) -> None:
    first, last = game.scenario.turn, game.battle.turn
    if not first <= turn <= last:
        raise CommandError(f"the game has turns {first} to {last}, not {turn}")
    skipped = skipped_turns(game).get(turn)
    if skipped:
        raise CommandError(f"turn {turn} was never played: {skipped}")


# --------------------------------------------------------------------------------------------
# Dice typed at the table
# --------------------------------------------------------------------------------------------


def _table_dice(game, action: Action, text: str | None) -> TableDice | None:
    """The umpire's dice for ``action``, checked against what it rolls before anything is written.

    ``None`` (no ``--dice``): the game's own dice roll. The action is first resolved on a copy with
    the typed dice, so too few, too many or impossible faces are refused and nothing is saved.
    """
    if text is None:
        return None
    try:
        faces = parse_dice(text)
    except DiceError as exc:
        raise CommandError(f"--dice: {exc}; nothing was saved") from None
    if not faces:
        raise CommandError('--dice needs the dice rolled at the table, like --dice "3 3 5 2 6"')
    trial = TableDice(faces)
    try:
        resolve(game.battle, action, trial, game.tables)
    except DiceError as exc:
        raise CommandError(f"too few dice were typed: {exc}; nothing was saved") from None
    used = sum(len(r.dice) for r in trial.rolls)
    if trial.remaining:
        if not used:
            raise CommandError(
                f"this action rolls no dice, but {plural(len(faces), 'die was', 'dice were')} typed; nothing was saved"
            )
        rolled = ", ".join(f"{plural(len(r.dice), 'die', 'dice')} for the {r.purpose}" for r in trial.rolls)
        raise CommandError(
            f"{plural(len(faces), 'die was', 'dice were')} typed but this action rolls {used} ({rolled}); "
            "nothing was saved"
        )
    return TableDice(faces)


# --------------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------------


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

    target = _check_out(args.game, args.force, "oak_ridge.sqlite", save=True)
    src = args.scenario
    if not Path(src).exists() and src in bundled_scenarios():
        battle = load_bundled(src)
    else:
        battle = load_scenario(src)
    if not target.exists():
        game = Game.create(target, battle, seed=args.seed)
        _done(f"the new game {args.game}")
    else:  # --force: made beside the old file, which it replaces only once it is complete
        tmp = target.with_name(f".{target.name}.new")
        for suffix in ("", "-wal", "-shm"):
            Path(str(tmp) + suffix).unlink(missing_ok=True)
        Game.create(tmp, battle, seed=args.seed).close()
        _check_out(args.game, True, "oak_ridge.sqlite", save=True)  # still an ordinary file
        for suffix in ("-wal", "-shm"):
            Path(str(target) + suffix).unlink(missing_ok=True)
        os.replace(tmp, target)
        _done(f"the new game {args.game}")
        game = Game.open(target)
    with game:
        print(f"Created {args.game}: {battle.name}, dice seed {game.seed}")
        _print_info(game)
    return EXIT_OK


def _print_info(game) -> None:
    from rules.turn.sequence import phase_title

    b = game.battle
    print(f"Battle: {b.name}")
    print(f"{phase_title(b)}")
    print(
        f"Journal: {game.last_seq} events" + (f", {len(game.redo_events())} undone" if game.can_redo else "")
    )
    print("(ids in brackets: the unit, brigade and side ids that move, shoot and override take)")
    for side in b.oob.sides:
        print(f"{side.name} [{side.id}]: {b.oob.stands(side=side.id)} stands")
        for br in b.oob.brigades_of(side.id):
            reserved = f", {br.staff_pips_reserved} reserved" if br.staff_pips_reserved else ""
            print(
                f"  {br.name} [{br.id}] ({br.brigadier.name or 'no Brigadier'}, {br.state.value}): "
                f"{plural(b.oob.stands(brigade=br.id), 'stand')}, {plural(br.staff_pips, 'Staff Pip')}{reserved}"
            )
            for u in b.oob.units_of_brigade(br.id):
                marks = f" ({', '.join(sorted(m.value for m in u.markers))})" if u.markers else ""
                print(
                    f"    {u.name} [{u.id}]: {u.stands}/{u.stands_start} stands, {u.health.value}, "
                    f"{u.formation.label.lower()}{marks}"
                )


def cmd_info(args: argparse.Namespace) -> int:
    with _open_game(args.game) as game:
        _print_info(game)
    return EXIT_OK


def cmd_log(args: argparse.Namespace) -> int:
    with _open_game(args.game) as game:
        if args.turn is not None:
            _check_turn(game, args.turn)
        events = game.events(turn=args.turn)
        if not events:
            print(
                "Nothing has been done yet." if args.turn is None else f"Turn {args.turn} has no events yet."
            )
        for ev in events:
            _print_event(ev, f"{ev.seq:>5}  turn {ev.turn} {ev.side} {ev.phase}: ", "         ")
    return EXIT_OK


def _do(path: str, action: Action, dice_text: str | None = None, note: str = "") -> int:
    with _open_game(path) as game:
        dice = _table_dice(game, action, dice_text)
        ev = game.do(action, dice)
        _done(f"event {ev.seq} ({ev.summary})")
        _print_event(ev, f"{ev.seq}: ", "    ")
        if note:
            print(note)
    return EXIT_OK


def _play(game, proc, args: argparse.Namespace, note: str = "") -> int:
    """Answer every window of a procedure of play as the arguments say, then commit its step
    (one transaction, one Undo) and print its events (:mod:`cli.terminal_play`)."""
    from cli.terminal_play import Answers, play

    try:
        answers = Answers.from_args(args.react, args.no_reactions, args.ask, args.dice, sys.stdin)
    except DiceError as exc:
        raise CommandError(f"--dice: {exc}; nothing was saved") from None
    step = play(proc, answers)
    if step.empty:
        raise CommandError("; ".join(step.refused) or "nothing to do; nothing was saved")
    events = game.do_step(step.actions)
    _done(", ".join(f"event {ev.seq} ({ev.summary})" for ev in events))
    for ev in events:
        _print_event(ev, f"{ev.seq}: ", "    ")
    for why in step.refused:
        print(f"Left out: {why}")
    if step.stopped:
        print(f"Stopped: {step.stopped}")
    if note:
        print(note)
    return EXIT_OK


def cmd_move(args: argparse.Namespace) -> int:
    from rules import procedure

    with _open_game(args.game) as game:
        b = game.battle
        u = b.units.get(args.unit)
        march = procedure.is_march(b, args.unit) and not args.place
        if march:
            refusal = march_refusal(b, args.unit, game.tables)
            if refusal is not None:
                raise CommandError(f'{refusal}; to place it anyway, add --place --reason "..."')
            note = f"A march under the movement rules (its side's {Phase.MANEUVER.title})."
        elif u is None:
            note = ""
        elif args.place:
            note = "A placement by the umpire (--place), not a march."
        else:
            why = march_refusal(b, args.unit, game.tables)
            note = f"A placement by the umpire, not a march: {why}."
        proc = procedure.move(
            b,
            game.tables,
            game.dice,
            args.unit,
            args.x,
            args.y,
            args.facing,
            place=not march,
            reason=args.reason,
        )
        return _play(game, proc, args, note)


def cmd_charge(args: argparse.Namespace) -> int:
    from rules import procedure

    with _open_game(args.game) as game:
        proc = procedure.charge(game.battle, game.tables, game.dice, args.charger, args.target)
        return _play(game, proc, args)


def cmd_phase_change(args: argparse.Namespace, end_turn: bool) -> int:
    """Next phase or End turn: what it leaves undone (the phase checklist) is logged with it, in the
    same step, as the window logs it when the umpire goes on. A melee due in Phase 4 blocks: the
    rules refuse with their reason."""
    from rules.turn.checklist import blocking
    from storage.checklist import left_open_items, phase_change_step

    change = EndTurn() if end_turn else NextPhase()
    with _open_game(args.game) as game:
        items = left_open_items(game, end_turn)
        step = [change] if blocking(items) else phase_change_step(change, items)
        events = game.do_step(step)
        _done(", ".join(f"event {ev.seq} ({ev.summary})" for ev in events))
        for ev in events:
            _print_event(ev, f"{ev.seq}: ", "    ")
    return EXIT_OK


def cmd_pending(args: argparse.Namespace) -> int:
    """What is still open in the phase (or, with --end-turn, in the rest of the side's turn), as the
    Checklist dock lists it: each item with its rule and the ids of the units it concerns."""
    from rules.battle.order_of_battle import Phase as _Phase
    from rules.turn.sequence import phase_title
    from storage.checklist import left_open_items, open_items

    with _open_game(args.game) as game:
        items = left_open_items(game, True) if args.end_turn else open_items(game)
        print(phase_title(game.battle))
        if not items:
            where = "the side's turn" if args.end_turn else "this phase"
            print(f"Nothing is left to do in {where}.")
        for phase in dict.fromkeys(i.phase for i in items):
            if args.end_turn:
                print(_Phase.title_of(phase))
            for i in (x for x in items if x.phase == phase):
                ids = " ".join(i.units) or i.brigade_id or ""
                block = "  (blocks the end of the phase)" if i.blocks else ""
                print(f"  {i.kind:<13} {ids:<16} {i}{block}")
        if items:
            print(f"{plural(len(items), 'item')} left; next-phase and end-turn log them as left undone.")
    return EXIT_OK


def _json(text: str, what: str) -> Any:
    """JSON typed on the command line, read within the limits of every door (:mod:`rules.limits`:
    its length, its nesting, no NaN); a problem is a :class:`CommandError` in words."""
    from storage.journal import loads

    if len(text) > MAX_ARGUMENT:
        raise CommandError(f"{what} is too long ({len(text):,} characters; at most {MAX_ARGUMENT:,})")
    try:
        return loads(text, what, unique_keys=True)
    except SaveFileError as exc:
        raise CommandError(exc.problem) from None


#: The longest JSON text an argument may hold.
MAX_ARGUMENT = 1 << 20


def _value(text: str) -> Any:
    """A KEY=VALUE value: JSON if it reads as JSON (numbers, true, [..]), otherwise text."""
    from rules import limits

    if len(text) > MAX_ARGUMENT:
        raise CommandError(f"a value is too long ({len(text):,} characters; at most {MAX_ARGUMENT:,})")
    try:
        return json.loads(text)
    except RecursionError:
        raise CommandError(f"a value nests lists or tables more than {limits.MAX_DEPTH} deep") from None
    except json.JSONDecodeError:
        return text
    except ValueError as exc:  # a whole number of more digits than Python reads
        raise CommandError(f"a value is not a number Brigadier takes ({exc})") from None


def cmd_override(args: argparse.Namespace) -> int:
    values: dict[str, Any] = {}
    for item in args.values:
        if "=" not in item:
            raise CommandError(f"'{item}' should be KEY=VALUE, for example stands=4")
        k, v = item.split("=", 1)
        values[k.strip()] = _value(v.strip())
    target_id = args.id if args.target != "game" else ""
    return _do(args.game, Override(args.target, target_id, values, args.reason))


def cmd_shoot(args: argparse.Namespace) -> int:
    from rules.shooting.volleys import Shoot

    with _open_game(args.game) as game:
        action = Shoot.on_table(game.battle, args.firer, args.target, game.tables)
    cover = "" if action.cover == "none" else f", {action.cover} cover"
    how = (
        f'Measured on the table: {action.distance_in:.1f}", '
        + (
            "all stands see"
            if action.clear_stands is None
            else plural(action.clear_stands, "stand sees", "stands see")
        )
        + (", enfilade" if action.enfilade else "")
        + (", through its own skirmish screen" if action.through_own_screen else "")
        + cover
        + "."
    )
    return _do(args.game, action, args.dice, note=how)


def cmd_do(args: argparse.Namespace) -> int:
    load_action_modules()
    data = _json(args.action, "the action")
    return _do(args.game, Action.from_dict(data), args.dice)


def cmd_undo(args: argparse.Namespace) -> int:
    """Take back the last step: every entry of it (a march through its windows, a charge with its
    declined reactions), as Edit > Undo does."""
    with _open_game(args.game) as game:
        events = game.undo_step()
        if events:
            _done("the undo of " + ", ".join(f"event {ev.seq}" for ev in events))
        if not events:
            print("There is nothing to undo.")
        for ev in events:
            print(f"Undone {ev.seq}: {ev.summary}")
    return EXIT_OK


def cmd_redo(args: argparse.Namespace) -> int:
    """Put back the last step taken back, every entry of it, as Edit > Redo does."""
    with _open_game(args.game) as game:
        events = game.redo_step()
        if events:
            _done("the redo of " + ", ".join(f"event {ev.seq}" for ev in events))
        if not events:
            print("There is nothing to redo.")
        for ev in events:
            print(f"Redone {ev.seq}: {ev.summary}")
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    from storage.replay import has_chain, verify

    with _open_game(args.game) as game:
        n = verify(game)
        chained = has_chain(game)
    print(
        f"{args.game}: all {n} events replay to the saved game"
        + (
            ", and the journal is as it was written."
            if chained
            else " (a save of a format before the journal's hash chain: it is read here, not brought up to date)."
        )
    )
    return EXIT_OK


def cmd_sight(args: argparse.Namespace) -> int:
    """What a side sees of the enemy now, and why it does not see the rest (for the umpire)."""
    from rules.sight.spotting import check_side, spot
    from storage.sightings import Sightings

    with _open_game(args.game) as game:
        b = game.battle
        side = check_side(b, args.side)
        s = spot(b, side, game.tables)
        name, enemy = b.oob.side_name(side), b.oob.side_name(b.oob.enemy_of(side))
        total = len(s.seen_by) + len(s.unseen)
        print(
            f"The {name} side sees {len(s.seen_by)} of the {enemy} side's {plural(total, 'unit')} on the table."
        )
        for uid, by in sorted(s.seen_by.items(), key=lambda kv: b.unit(kv[0]).name):
            print(f"  seen: {b.unit(uid).name} [{uid}], by {', '.join(b.unit(v).name for v in by)}")
        for uid, why in sorted(s.unseen.items(), key=lambda kv: b.unit(kv[0]).name):
            rule = f" [{why.rule}]" if why.rule else ""
            print(f"  not seen: {b.unit(uid).name} [{uid}]: {why.reason}{rule}")
        sightings = Sightings.of(game)
        sightings.update()
        for uid, last in sorted(sightings.knowledge(side).ghosts().items(), key=lambda kv: kv[1].unit.name):
            u = last.unit
            print(f"  last seen turn {last.turn}: {u.name} [{uid}] at ({u.x:g}, {u.y:g})")
    return EXIT_OK


def cmd_export_scenario(args: argparse.Namespace) -> int:
    from storage.outputs import atomic_write
    from storage.scenario_writing import to_toml

    out = _check_out(args.out, args.force, "scenario.toml", game=args.game)
    with _open_game(args.game) as game:
        battle = game.battle if args.seq is None else game.state_at(args.seq)
        text = to_toml(battle)
    atomic_write(out, text, what="the scenario", protect=[args.game])
    _done(f"the scenario {out}")
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
    for out in (args.pdf, args.html):
        if out:
            _check_out(out, args.force, "turn" + Path(out).suffix, game=args.game)
    if args.pdf and args.html and os.path.abspath(args.pdf) == os.path.abspath(args.html):
        raise CommandError("--pdf and --html name the same file; give each its own")
    if args.side is not None:  # the turn as one side knew it (gui.side_report)
        module, pdf_name, html_name = "gui.side_report", "write_side_pdf", "write_side_html"
    else:
        module, pdf_name, html_name = "gui.report", "write_turn_pdf", "write_turn_html"
    write_pdf = _gui_function(module, pdf_name) if args.pdf else None
    write_html = _gui_function(module, html_name) if args.html else None
    with _open_game(args.game) as game:
        turn = args.turn if args.turn is not None else game.battle.turn
        _check_turn(game, turn)
        side = () if args.side is None else (args.side,)
        if write_pdf is not None:
            paper = {"paper": args.paper} if args.paper else {}  # else the locale's
            write_pdf(game, turn, *side, args.pdf, **paper)
            _done(f"the report {args.pdf}")
            print(f"Wrote {args.pdf}")
        if write_html is not None:
            write_html(game, turn, *side, args.html)
            _done(f"the report {args.html}")
            print(f"Wrote {args.html}")
    return EXIT_OK


def cmd_roster(args: argparse.Namespace) -> int:
    """Roster sheets to PDF: a game's as it stands (or, with --blank, as its scenario began), or a
    scenario's blank sheets (a file, or a bundled one by name), for one side or all."""
    from reports.roster_sheets import roster_sheets
    from rules.tables import load_tables
    from storage.scenario import bundled_scenarios, load_bundled, load_scenario

    _check_out(args.pdf, args.force, "roster.pdf", game=args.source)
    write = _gui_function("gui.roster_print", "write_roster_pdf")
    src = Path(args.source)
    if src.suffix.lower() == ".toml" or (not src.exists() and args.source in bundled_scenarios()):
        battle = (
            load_scenario(src) if src.exists() or src.suffix.lower() == ".toml" else load_bundled(args.source)
        )
        tables, blank = load_tables(), True
    else:
        with _open_game(args.source) as game:
            battle = game.scenario if args.blank else game.battle
            tables, blank = game.tables, args.blank
    try:
        sheets = roster_sheets(battle, tables, blank=blank, side=args.side)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    write(sheets, args.pdf, args.paper)
    _done(f"the roster sheets {args.pdf}")
    units = sum(len(sh.units) for sh in sheets)
    which = ", ".join(sh.side for sh in sheets)
    kind = "blank roster sheets" if blank else "roster sheets"
    print(f"Wrote {args.pdf}: {kind} of {battle.name} for {which} ({plural(units, 'unit')})")
    return EXIT_OK


def cmd_export_map(args: argparse.Namespace) -> int:
    _check_out(args.png, args.force, "map.png", game=args.game)
    fn = _gui_function("gui.export", "export_map_png")
    with _open_game(args.game) as game:
        fn(game, args.png)
    _done(f"the map {args.png}")
    print(f"Wrote {args.png}")
    return EXIT_OK


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
"brigadier COMMAND --help" says more about each command."""

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
        "formation", lambda a: _do(a.game, ChangeFormation(a.unit, a.formation)), "change a unit's formation"
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

    sp = game_cmd("reserve-pip", lambda a: _do(a.game, ReservePip(a.brigade)), "reserve a Staff Pip")
    sp.add_argument("brigade", help="the brigade's id")
    sp = game_cmd(
        "spend-pip", lambda a: _do(a.game, SpendPip(a.brigade, a.purpose, a.reserved)), "spend a Staff Pip"
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
    sp.add_argument(
        "--paper", choices=("a4", "letter"), default=None, help="the PDF's paper (default: the locale's)"
    )
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
    sp = game_cmd("export-map", cmd_export_map, "save the battlefield map as a PNG picture")
    sp.add_argument("--png", required=True, metavar="OUT.png")
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


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _DONE.clear()
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
        if not _DONE:
            return _failed(exc)
        # done and saved, but its result could not be shown: say so where it can be read, and
        # exit 0, so that the umpire does not do it again
        _quiet_stdout()
        why = exc.strerror or str(exc)
        try:
            print(
                f"brigadier: done and saved: {'; '.join(_DONE)}; but its result could not be shown ({why})",
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
