"""The after-action report: the battle's story in one document, built from the journal.

:func:`build_aar` makes an :class:`AfterAction` of an open :class:`storage.game.Game`: the scenario
and the forces; for every game turn played, the battle at its end, each unit's movement that turn
(from where it stood when the turn began to where it stood at its end), the turn's notable events
in words with their rules (charges, melees, units spent or destroyed, brigades broken, Brigadiers
lost) and the stands each side lost; at the end each side's stands turn by turn and a table of
each brigade's losses.

With ``side`` it is the battle as that side knew it (:func:`reports.side_summary.build_side_summary`
turn by turn): its own units in full, the enemy only where and when it saw them, the events as it
saw them, and nothing of an enemy unit it never saw.

It knows nothing of Qt: :mod:`gui.aar` draws the maps and writes the HTML and the PDF.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reports.side_summary import build_side_summary
from reports.summary import SideInfo, TurnSummary, build_turn_summary
from rules.battle.battle import Battle
from rules.battle.words import BrigadeState, BrigadierStatus, Health
from storage.errors import ReportError

#: The journal's kinds of entry told as the turn's notable events (with the rules they cite).
NOTABLE_KINDS = {
    "charge": "Charge",
    "charge_approach": "Charge",
    "melee": "Melee",
    "resolve_pending_melee": "Melee",
    "melee_ruling": "Melee",
    "sweeping_advance": "Sweeping Advance",
    "bombard_building": "Bombardment",
    "garrison_building": "Garrison",
}
#: A unit that moved less than this (inches) that turn has no arrow on the map.
MOVED_AT_LEAST_IN = 0.25


@dataclass(frozen=True)
class Move:
    """A unit's movement in one turn: where it stood when the turn began and at its end."""

    unit_id: str
    name: str
    side: str  # the side's id
    start: tuple[float, float]
    end: tuple[float, float]


@dataclass(frozen=True)
class Notable:
    """One of a turn's notable events, in words, with the rules it cites."""

    seq: int  # the journal entry (0: read from the turn's end, not one entry)
    kind: str  # "Charge", "Melee", "Destroyed", "Spent", "Brigade broken", "Brigadier lost" ...
    text: str
    rules: tuple[str, ...] = ()


@dataclass(frozen=True)
class TurnStory:
    """One game turn of the story."""

    turn: int
    end_seq: int  # the journal entry the turn ends with (its map is drawn after it)
    ended: bool  # False: the turn in hand, told as far as it has gone
    battle: Any  # the battle at the turn's end: a Battle, or the side's SideView with ``side``
    moves: tuple[Move, ...]
    notable: tuple[Notable, ...]
    #: stands lost in the turn, by side name (with ``side``: the enemy's seen to be lost)
    losses: Mapping[str, int]
    given_back: Mapping[str, int]  # stands the umpire gave back in the turn, by side name
    entries: int  # the journal entries of the turn (told, with ``side``: as far as the side saw them)


@dataclass(frozen=True)
class BrigadeRow:
    side: str  # the side's name
    name: str
    brigadier: str
    fate: str  # the Brigadier's status at the end
    state: str  # the brigade's state at the end
    stands_start: int
    stands_end: int

    @property
    def lost(self) -> int:
        return max(0, self.stands_start - self.stands_end)


@dataclass(frozen=True)
class Force:
    """A side's forces as the battle began."""

    side: SideInfo
    brigades: int
    units: Mapping[str, int]  # by kind's label
    stands: int


@dataclass(frozen=True)
class AfterAction:
    battle_name: str
    game_file: str
    notes: str
    sides: tuple[SideInfo, ...]
    forces: tuple[Force, ...]  # with ``side``: its own only
    enemy_seen: int  # with ``side``: the enemy units it saw in the battle (else 0)
    turns: tuple[TurnStory, ...]
    strength: Mapping[str, tuple[int, ...]]  # stands by side id at the start and each turn's end
    brigades: tuple[BrigadeRow, ...]
    side: SideInfo | None = None  # the side whose story it is (None: the umpire's, everything)
    table_in: tuple[float, float] = (0.0, 0.0)


def _moves(start: Mapping[str, Any], end: Mapping[str, Any]) -> tuple[Move, ...]:
    out = []
    for uid, u in end.items():
        was = start.get(uid)
        if was is None:
            continue
        if ((u.x - was.x) ** 2 + (u.y - was.y) ** 2) ** 0.5 >= MOVED_AT_LEAST_IN:
            out.append(Move(uid, u.name, u.side, (was.x, was.y), (u.x, u.y)))
    return tuple(sorted(out, key=lambda m: (m.side, m.name)))


def _rules_of(steps: Sequence[Any]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s.rule for s in steps if s.rule))


def _event_notables(events: Sequence[Any]) -> list[Notable]:
    out = []
    for e in events:
        kind = NOTABLE_KINDS.get(e.kind)
        if kind is not None:
            out.append(Notable(e.seq, kind, e.summary, _rules_of(e.steps)))
    return out


def _health_notables(health: Sequence[Any]) -> list[Notable]:
    out = []
    for h in health:
        if h.after == Health.DESTROYED.value:
            out.append(Notable(0, "Destroyed", f"{h.unit} ({h.side}) destroyed", ("RULE-06-3.3",)))
        elif h.after == Health.SPENT.value:
            out.append(Notable(0, "Spent", f"{h.unit} ({h.side}) spent", ("RULE-06-3.3",)))
    return out


def _brigade_notables(start: Battle, end: Battle, sides: set[str] | None) -> list[Notable]:
    out = []
    for bid, b in end.oob.brigades.items():
        side_id = b.side
        if sides is not None and side_id not in sides:
            continue
        was = start.oob.brigades.get(bid)
        if was is None:
            continue
        side = end.oob.side_name(side_id)
        if b.state == BrigadeState.BROKEN and was.state != BrigadeState.BROKEN:
            out.append(Notable(0, "Brigade broken", f"{b.name} ({side}) broken"))
        if b.brigadier.status != was.brigadier.status and b.brigadier.status != BrigadierStatus.ACTIVE:
            out.append(
                Notable(
                    0,
                    "Brigadier lost",
                    f"{b.brigadier.name or 'the Brigadier'} of {b.name} ({side}) {b.brigadier.status.value}",
                    ("RULE-06-3.3",),
                )
            )
    return out


def _turn_bounds(game: Any) -> list[tuple[int, int, int, bool]]:
    """Each game turn played: its number, the entries it starts after and ends with, and whether
    it has ended (read from the journal's index of turns)."""
    index = game.turn_index()
    first = game.scenario.turn
    top = max([game.battle.turn, *index])
    out = []
    start = 0
    for t in range(max(1, first), top + 1):
        last = index[t][1] if t in index else start
        out.append((t, start, last, t < game.battle.turn))
        start = last
    return out


def _forces(battle: Battle, side_ids: Sequence[str]) -> tuple[Force, ...]:
    out = []
    for s in battle.oob.sides:
        if s.id not in side_ids:
            continue
        units = [u for u in battle.units.values() if u.side == s.id]
        kinds: dict[str, int] = {}
        for u in units:
            kinds[u.kind.label] = kinds.get(u.kind.label, 0) + 1
        brigades = sum(1 for b in battle.oob.brigades.values() if b.side == s.id)
        out.append(Force(SideInfo(s.id, s.name, s.colour), brigades, kinds, sum(u.stands for u in units)))
    return tuple(out)


def _brigade_rows(start: Battle, end: Battle, side_ids: Sequence[str]) -> tuple[BrigadeRow, ...]:
    rows = []
    for bid, b in start.oob.brigades.items():
        if b.side not in side_ids:
            continue
        now = end.oob.brigades.get(bid, b)
        at_start = sum(u.stands for u in start.units.values() if u.brigade == bid)
        at_end = sum(u.stands for u in end.units.values() if u.brigade == bid and u.in_play)
        rows.append(
            BrigadeRow(
                start.oob.side_name(b.side),
                b.name,
                b.brigadier.name,
                now.brigadier.status.value,
                now.state.value,
                at_start,
                at_end,
            )
        )
    return tuple(sorted(rows, key=lambda r: (r.side, r.name)))


def build_aar(game: Any, side: str | None = None) -> AfterAction:
    """The after-action report of an open game: the umpire's (everything), or with ``side`` (its
    id or name) the battle as that side knew it. Raises :class:`ReportError` for a side the battle
    does not have, or a game with no turn played."""
    bounds = _turn_bounds(game)
    if not bounds:
        raise ReportError("the game has no turn to tell yet")
    scenario = game.scenario
    sides = tuple(SideInfo(s.id, s.name, s.colour) for s in scenario.oob.sides)
    turns: list[TurnStory] = []
    last_summary: Any = None
    own: SideInfo | None = None
    if side is None:
        for t, start_seq, end_seq, ended in bounds:
            s: TurnSummary = build_turn_summary(game, t)
            start, end = game.state_at(start_seq), s.battle_end
            notable = (
                _event_notables(s.events) + _health_notables(s.health) + _brigade_notables(start, end, None)
            )
            turns.append(
                TurnStory(
                    t,
                    end_seq,
                    ended,
                    end,
                    _moves(start.units, {k: u for k, u in end.units.items() if u.in_play}),
                    tuple(notable),
                    {x.name: x.lost for x in s.side_losses},
                    {x.name: x.restored for x in s.side_losses if x.restored},
                    len(s.events),
                )
            )
            last_summary = s
        end_battle = game.battle
        side_ids = [x.id for x in sides]
        strength = dict(last_summary.strength)
        enemy_seen = 0
    else:
        from storage.sightings import Sightings

        sightings = Sightings.of(game)
        for t, start_seq, end_seq, ended in bounds:
            ss = build_side_summary(game, t, side)
            own = ss.side
            view_start, view_end = sightings.view(own.id, start_seq), ss.view
            start, end = game.state_at(start_seq), game.state_at(end_seq)
            notable = (
                _event_notables(ss.events)
                + _health_notables(ss.health)
                + _brigade_notables(start, end, {own.id})
            )
            # its own units and the enemy units it saw at the turn's end, from where it saw them
            # when the turn began (or last saw them before)
            know_start = sightings.knowledge(own.id, start_seq)
            before = dict(view_start.units)
            for uid, sighting in know_start.last.items():
                if uid not in before and not sighting.destroyed:
                    before[uid] = sighting.unit
            losses = {ss.side.name: ss.side_loss.lost}
            given = {ss.side.name: ss.side_loss.restored} if ss.side_loss.restored else {}
            losses[ss.enemy.name] = sum(r.lost_seen for r in ss.enemy_units)
            turns.append(
                TurnStory(
                    t,
                    end_seq,
                    ended,
                    view_end,
                    _moves(before, view_end.units),
                    tuple(notable),
                    losses,
                    given,
                    len(ss.events),
                )
            )
            last_summary = ss
        end_battle = game.battle
        side_ids = [own.id]
        strength = {own.id: tuple(last_summary.strength)}
        enemy_seen = len(sightings.knowledge(own.id).ever)
    return AfterAction(
        battle_name=scenario.name,
        game_file=Path(str(game.path)).name,
        notes=scenario.notes,
        sides=sides,
        forces=_forces(scenario, side_ids),
        enemy_seen=enemy_seen,
        turns=tuple(turns),
        strength=strength,
        brigades=_brigade_rows(scenario, end_battle, side_ids),
        side=own,
        table_in=(scenario.table_width_in, scenario.table_height_in),
    )
