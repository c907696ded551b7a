"""What the commands of ``brigadier`` share: the exit statuses, :class:`CommandError` (a refusal
said in words), the record of what a command has done so far (:data:`DONE`), opening a save,
checking where an output goes, printing an event, and checking a game turn asked for.
"""

from __future__ import annotations

from pathlib import Path

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_MISSING = 2


#: What the command has saved or written so far (an event, a file): if showing its result then
#: fails (standard output full or closed), the command still says, on standard error, that it was
#: done, and exits 0, so that the umpire does not do it twice.
DONE: list[str] = []


def done(what: str) -> None:
    DONE.append(what)


class CommandError(Exception):
    def __init__(self, message: str, code: int = EXIT_ERROR):
        super().__init__(message)
        self.code = code


# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------


def open_game(path: str):
    from storage.game import Game

    return Game.open(path)


def check_out(path: str, force: bool, example: str, game: str | None = None, save: bool = False) -> Path:
    """Where a command is about to write (:func:`storage.outputs.check_output`): a file name, not
    a folder, a FIFO or a device; never the save ``game`` (nor, for a report, a map or a
    scenario, any saved game); an existing file only with --force."""
    from storage.outputs import check_output

    return check_output(path, force=force, example=example, protect=[game] if game else (), save=save)


# --------------------------------------------------------------------------------------------
# Printing events
# --------------------------------------------------------------------------------------------


def print_event(ev, head: str, indent: str) -> None:
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


def check_turn(game, turn: int) -> None:
    first, last = game.scenario.turn, game.battle.turn
    if not first <= turn <= last:
        raise CommandError(f"the game has turns {first} to {last}, not {turn}")
    skipped = skipped_turns(game).get(turn)
    if skipped:
        raise CommandError(f"turn {turn} was never played: {skipped}")
