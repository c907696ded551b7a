"""Replaying a game: re-resolve every action of the journal with its recorded dice.

The journal keeps each action's changes, which is what undo, redo and opening a game apply. This
module checks the other way round: resolving every action again, from the starting battle, with
:class:`rules.dice.RecordedDice` handing back the dice that were rolled, must give the very same
states. :func:`verify` is what ``brigadier verify`` runs.
"""

from __future__ import annotations

from collections.abc import Iterator

from rules.actions import resolve
from rules.battle.battle import Battle
from rules.battle.events import apply, diff
from rules.dice import RecordedDice
from rules.errors import RulesError
from rules.tables import in_force
from storage.errors import SaveFileError
from storage.game import Event, Game
from storage.totals import TurnTotals


def _kept_totals(game: Game) -> dict[int, TurnTotals]:
    """The totals the save keeps, by entry; a row that cannot be read is a damaged save."""
    rows = game.conn.execute("SELECT seq, turn, totals FROM turn_totals").fetchall()
    kept = game.turn_totals()
    bad = sorted(r[0] for r in rows if r[0] not in kept)
    if bad:
        raise SaveFileError(f"the totals kept with event(s) {bad} cannot be read", game.path)
    return kept


def replay(game: Game) -> Iterator[tuple[Event, Battle, Battle]]:
    """For each event: the event, the state its action gives resolved again from the state the
    journal had recorded before it, and the state its recorded changes give.

    Each action is resolved from the recorded state, so that the two states share every unit the
    event did not touch and comparing them costs what the event changed, not the whole battle (a
    caller that finds them different stops there, as :func:`verify` does)."""
    recorded = game.scenario
    for ev in game.events():
        dice = RecordedDice(ev.rolls)
        before = recorded
        try:
            out = resolve(before, ev.action, dice, in_force(game.base_tables, before.table_values))
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
    """Check the whole save; raise :class:`SaveFileError` at the first thing that is wrong.

    * Every action resolved again with its recorded dice gives the very same state.
    * The dice: each entry starts where the one before it left off, and the dice the game's own
      seeded dice rolled are the faces that seed gives.
    * The snapshots: each holds the battle and the dice count of its moment.
    * The journal's hash chain (:func:`storage.save_format.entry_hash`): every entry, and every
      undone one, is as it was written, and the dice seed, the starting battle and the rule tables
      are those the game was created with.
    * The totals kept of each turn ended (:mod:`storage.totals`) are those of the replayed journal.
    * The chain ends where the save says it was last written (format 5 on): entries cut off the
      end of the journal, or the whole journal deleted, are found.
    * SQLite's full integrity check passes (every page, every index against its table).

    Returns the number of events checked.
    """
    from rules.dice import SeededDice

    check_integrity(game)
    drawn = 0
    n = 0
    last = game.scenario
    states: dict[int, Battle] = {}
    snaps = _snapshots(game)
    kept = _kept_totals(game)
    of_turn: dict[int, list[Event]] = {}
    for ev, resolved, recorded in replay(game):
        where = f"event {ev.seq} ({ev.summary})"
        if ev.dice_before != drawn:
            raise SaveFileError(
                f"{where} does not start where the dice of the event before it left off", game.path
            )
        rolled = [f for r in ev.rolls for f in r.dice]
        if ev.dice_after != ev.dice_before:
            own = SeededDice(game.seed, ev.dice_before)
            if ev.dice_after - ev.dice_before != len(rolled) or own.roll(len(rolled), "check") != tuple(
                rolled
            ):
                raise SaveFileError(f"{where}: its dice are not the game's own dice for its seed", game.path)
        drawn = ev.dice_after
        d = diff(recorded, resolved)
        if not d.empty:
            what = sorted({*d.units, *d.brigades, *d.terrain, *d.game})
            raise SaveFileError(f"{where} resolves differently now: {', '.join(what)} differ", game.path)
        if ev.seq in snaps:
            states[ev.seq] = recorded
        of_turn.setdefault(ev.turn, []).append(ev)
        if ev.seq in kept:
            want = TurnTotals.of(ev.turn, ev.seq, recorded, of_turn[ev.turn])
            if kept.pop(ev.seq) != want:
                raise SaveFileError(
                    f"the totals kept of turn {ev.turn} (with event {ev.seq}) are not those of the journal",
                    game.path,
                )
        last = recorded
        n += 1
    if kept:
        raise SaveFileError(
            f"totals are kept with event(s) {sorted(kept)}, which no turn ends with", game.path
        )
    for seq, (battle, dice_drawn, after) in snaps.items():
        if seq not in states or not diff(states[seq], battle).empty or dice_drawn != after:
            raise SaveFileError(
                f"the snapshot after event {seq} does not hold the game as it then stood", game.path
            )
    if game.dice.drawn != drawn:
        raise SaveFileError("the game's dice count is not where its journal leaves it", game.path)
    if not diff(last, game.battle).empty:
        raise SaveFileError("the replayed journal does not end in the saved game's state", game.path)
    _check_chain(game)
    return n


def _snapshots(game: Game) -> dict[int, tuple[Battle, int, int | None]]:
    """The snapshots of the save: the battle, the dice drawn and the dice count of its event."""
    from storage.journal import loads

    out = {}
    rows = game.conn.execute(
        "SELECT s.seq, s.battle, s.dice_drawn, j.dice_after FROM snapshots s LEFT JOIN journal j ON j.seq = s.seq"
    ).fetchall()
    for seq, text, dice_drawn, after in rows:
        try:
            battle = Battle.from_dict(loads(text, f"the snapshot after event {seq}"))
        except (SaveFileError, RulesError) as exc:
            raise SaveFileError(f"the snapshot after event {seq} is damaged: {exc}", game.path) from None
        out[int(seq)] = (battle, dice_drawn, after)
    return out


def has_chain(game: Game) -> bool:
    """Whether the save keeps a hash chain (format 3 on)."""
    return game._head is not None


def _check_chain(game: Game) -> None:
    """Work the journal's hash chain out again from the seed, the starting battle and the tables."""
    from storage import schema

    if not has_chain(game):
        return
    conn = game.conn
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    battle = conn.execute("SELECT battle FROM scenario WHERE id = 1").fetchone()
    tables = [tuple(r) for r in conn.execute("SELECT key, value FROM rule_tables")]
    head = schema.chain_start(str(meta.get("dice_seed", "")), battle[0] if battle else "", tables)
    if head != meta.get(schema.CHAIN_START):
        raise SaveFileError(
            "the dice seed, the starting battle or the rule tables have been changed since the game was created",
            game.path,
        )
    n = 0
    for table, order in (("journal", "seq"), ("redo", "pos DESC")):
        cur = conn.execute(f"SELECT * FROM {table} ORDER BY {order}")
        cols = [c[0] for c in cur.description]
        for r in cur.fetchall():
            row = dict(zip(cols, r, strict=True))
            head = schema.entry_hash(head, row)
            n += 1
            if row.get("hash") != head:
                what = "journal entry" if table == "journal" else "undone entry"
                raise SaveFileError(
                    f"{what} {row.get('seq')} has been changed since it was written (its action, dice, "
                    "log lines, summary or the entries before it no longer match the hash chain)",
                    game.path,
                )
    if int(meta.get("schema_version", "0")) < 5:
        return  # a save of an older format, read here without being brought up to date
    end = schema.parse_chain_end(meta.get(schema.CHAIN_END))
    if end is None:
        raise SaveFileError("the save does not keep the end of its journal's hash chain", game.path)
    count, last = end
    if n < count:
        raise SaveFileError(
            f"the journal{' with its undone entries' if game.can_redo else ''} ends at entry {n} "
            f"but was written up to entry {count}: "
            f"{count - n:,} entr{'y has' if count - n == 1 else 'ies have'} been cut off its end",
            game.path,
        )
    if n != count or head != last:
        raise SaveFileError(
            "the journal does not end where it was written (entries have been cut off, added or "
            "replaced at its end)",
            game.path,
        )


def check_integrity(game: Game) -> None:
    """SQLite's full integrity check of the save (``PRAGMA integrity_check``: every page, every
    index against its table), which opening it does not run (it runs the quick check)."""
    import sqlite3

    try:
        rows = game.conn.execute("PRAGMA integrity_check").fetchall()
    except sqlite3.DatabaseError as exc:
        raise SaveFileError(f"the file is damaged ({exc})", game.path) from None
    problems = [str(r[0]) for r in rows]
    if problems != ["ok"]:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3:,} more" if len(problems) > 3 else "")
        raise SaveFileError(f"the file is damaged (SQLite's integrity check: {shown})", game.path)
