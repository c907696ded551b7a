"""Replaying a game: re-resolve every action of the journal with its recorded dice.

The journal keeps each action's changes, which is what undo, redo and opening a game apply. This
module checks the other way round: resolving every action again, from the starting battle, with
:class:`rules.dice.RecordedDice` handing back the dice that were rolled, must give the very same
states. :func:`verify` is what ``brigadier verify`` runs.
"""

from __future__ import annotations

from collections.abc import Iterator

from rules.actions import resolve
from rules.battle import Battle
from rules.dice import RecordedDice
from rules.errors import RulesError
from rules.events import apply, diff
from storage.errors import SaveFileError
from storage.game import Event, Game


def replay(game: Game) -> Iterator[tuple[Event, Battle, Battle]]:
    """For each event: the event, the state resolved again, and the state its recorded changes give."""
    resolved = game.scenario
    recorded = game.scenario
    for ev in game.events():
        dice = RecordedDice(ev.rolls)
        try:
            out = resolve(resolved, ev.action, dice, game.tables)
        except RulesError as exc:
            raise SaveFileError(
                f"event {ev.seq} ({ev.summary}) cannot be resolved again: {exc}", game.path
            ) from None
        if not dice.exhausted:
            raise SaveFileError(
                f"event {ev.seq} ({ev.summary}) used fewer dice on replay than were recorded", game.path
            )
        resolved = out.battle_after
        recorded = apply(recorded, ev.changes)
        yield ev, resolved, recorded


def verify(game: Game) -> int:
    """Replay the whole journal; raise :class:`SaveFileError` at the first difference.

    Returns the number of events checked.
    """
    n = 0
    last = game.scenario
    for ev, resolved, recorded in replay(game):
        d = diff(recorded, resolved)
        if not d.empty:
            what = sorted({*d.units, *d.brigades, *d.terrain, *d.game})
            raise SaveFileError(
                f"event {ev.seq} ({ev.summary}) resolves differently now: {', '.join(what)} differ",
                game.path,
            )
        last = recorded
        n += 1
    if not diff(last, game.battle).empty:
        raise SaveFileError("the replayed journal does not end in the saved game's state", game.path)
    return n
