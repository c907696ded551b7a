"""The commands that play the game: ``move``, ``charge``, ``shoot``, ``formation``, ``override``,
``reserve-pip``, ``spend-pip``, ``next-phase``, ``end-turn``, ``do``, ``undo`` and ``redo``; the
dice typed at the table (``--dice``) checked against what the action rolls before anything is
saved, and the Trigger Windows of a march or a charge answered as :mod:`cli.terminal_play` says.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from cli.common import EXIT_OK, CommandError, done, open_game, print_event
from rules.battle.words import Phase, plural
from rules.dice import TableDice, parse_dice
from rules.errors import DiceError
from storage.errors import SaveFileError

if TYPE_CHECKING:  # the actions are imported where a command makes one: starting the window needs none
    from rules.action_base import Action

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
    from rules.actions import resolve

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
# Actions
# --------------------------------------------------------------------------------------------


def do_action(path: str, action: Action, dice_text: str | None = None, note: str = "") -> int:
    with open_game(path) as game:
        dice = _table_dice(game, action, dice_text)
        ev = game.do(action, dice)
        done(f"event {ev.seq} ({ev.summary})")
        print_event(ev, f"{ev.seq}: ", "    ")
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
    done(", ".join(f"event {ev.seq} ({ev.summary})" for ev in events))
    for ev in events:
        print_event(ev, f"{ev.seq}: ", "    ")
    for why in step.refused:
        print(f"Left out: {why}")
    if step.stopped:
        print(f"Stopped: {step.stopped}")
    if note:
        print(note)
    return EXIT_OK


def cmd_move(args: argparse.Namespace) -> int:
    from rules import procedure
    from rules.legality import march_refusal

    with open_game(args.game) as game:
        b = game.battle
        refusal = march_refusal(b, args.unit, game.tables) if args.unit in b.units else None
        if refusal is not None and refusal.action is None and not args.place:  # a march refused
            raise CommandError(f'{refusal}; to place it anyway, add --place --reason "..."')
        proc = procedure.move(
            b,
            game.tables,
            game.dice,
            args.unit,
            args.x,
            args.y,
            args.facing,
            place=args.place,
            reason=args.reason or None,
        )
        if proc.marching:
            note = f"A march under the movement rules (its side's {Phase.MANEUVER.title})."
        elif args.place:
            note = "A placement by the umpire (--place), not a march."
        else:
            note = f"A placement by the umpire, not a march: {refusal}."
        return _play(game, proc, args, note)


def cmd_charge(args: argparse.Namespace) -> int:
    from rules import procedure

    with open_game(args.game) as game:
        proc = procedure.charge(game.battle, game.tables, game.dice, args.charger, args.target)
        return _play(game, proc, args)


def cmd_phase_change(args: argparse.Namespace, end_turn: bool) -> int:
    """Next phase or End turn: what it leaves undone (the phase checklist) is logged with it, in the
    same step, as the window logs it when the umpire goes on. A melee due in Phase 4 blocks: the
    rules refuse with their reason."""
    from rules.actions import EndTurn, NextPhase
    from rules.turn.checklist import blocking
    from storage.checklist import left_open_items, phase_change_step

    change = EndTurn() if end_turn else NextPhase()
    with open_game(args.game) as game:
        items = left_open_items(game, end_turn)
        step = [change] if blocking(items) else phase_change_step(change, items)
        events = game.do_step(step)
        done(", ".join(f"event {ev.seq} ({ev.summary})" for ev in events))
        for ev in events:
            print_event(ev, f"{ev.seq}: ", "    ")
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
    from rules.actions import Override

    return do_action(args.game, Override(args.target, target_id, values, args.reason))


def cmd_shoot(args: argparse.Namespace) -> int:
    from rules.shooting.shoot import Shoot

    with open_game(args.game) as game:
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
    return do_action(args.game, action, args.dice, note=how)


def cmd_do(args: argparse.Namespace) -> int:
    data = _json(args.action, "the action")
    from rules.actions import Action

    return do_action(args.game, Action.from_dict(data), args.dice)


# --------------------------------------------------------------------------------------------
# Undo and Redo
# --------------------------------------------------------------------------------------------


def cmd_undo(args: argparse.Namespace) -> int:
    """Take back the last step: every entry of it (a march through its windows, a charge with its
    declined reactions), as Edit > Undo does."""
    with open_game(args.game) as game:
        events = game.undo_step()
        if events:
            done("the undo of " + ", ".join(f"event {ev.seq}" for ev in events))
        if not events:
            print("There is nothing to undo.")
        for ev in events:
            print(f"Undone {ev.seq}: {ev.summary}")
    return EXIT_OK


def cmd_redo(args: argparse.Namespace) -> int:
    """Put back the last step taken back, every entry of it, as Edit > Redo does."""
    with open_game(args.game) as game:
        events = game.redo_step()
        if events:
            done("the redo of " + ", ".join(f"event {ev.seq}" for ev in events))
        if not events:
            print("There is nothing to redo.")
        for ev in events:
            print(f"Redone {ev.seq}: {ev.summary}")
    return EXIT_OK


def cmd_arrive(args: argparse.Namespace) -> int:
    """Bring units due to arrive onto the table: the ids given, or every unit of a brigade given,
    or (none given) the first group due now; at their entry points, or ``--at X Y FACING`` for one."""
    from rules.umpire.arrivals import Arrive, due

    with open_game(args.game) as game:
        b = game.battle
        ids: list[str] = []
        for name in args.units:
            if name in b.units:
                ids.append(name)
            elif name in b.oob.brigades:
                ids += [u.id for u in b.units.values() if u.brigade == name and u.arriving]
            else:
                raise CommandError(f"there is no unit or brigade '{name}'")
        if not ids:
            groups = due(b)
            if not groups:
                raise CommandError("no unit is due to arrive now (arrivals come on in their side's Phase 2)")
            ids = list(groups[0].unit_ids)
        places = ()
        if args.at is not None:
            if len(ids) != 1:
                raise CommandError("--at places one unit: name it alone")
            places = (tuple(args.at),)
    return do_action(args.game, Arrive(tuple(ids), places), args.dice)
