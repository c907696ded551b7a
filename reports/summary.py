"""The turn summary's content: what happened in one game turn, built from the journal.

:func:`build_turn_summary` makes a :class:`TurnSummary` from an open :class:`storage.game.Game`
(or anything with its :class:`GameJournal`) and a turn number. It is plain data: the turn's
events in order with their dice, modifiers and rules; the stands lost by each unit, brigade and
side (read from the recorded changes); markers gained and lost; Staff Pips spent, reserved and
lapsed; the melee results; the units whose health state changed or that were destroyed; every
unit's state at the end of the turn; and the stands of each side at the end of every turn so far.

It knows nothing of Qt: :mod:`gui.report` lays it out as a page, prints it and writes it to PDF.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rules.battle.battle import Battle
from rules.battle.words import Health, Phase
from storage.errors import ReportError
from storage.game_journal import GameJournal  # noqa: F401 (read from here too)
from storage.totals import TurnTotals, unit_losses_in  # noqa: F401 (read from here too)

if TYPE_CHECKING:
    from storage.game import Event


@dataclass(frozen=True)
class StepLine:
    """One line of an event in the log: what happened, the dice, the modifiers, the rule."""

    text: str
    dice: tuple[int, ...] = ()
    modifiers: tuple[str, ...] = ()
    rule: str | None = None


@dataclass(frozen=True)
class EventLine:
    """One journal entry of the turn."""

    seq: int
    side: str  # the side's name
    phase: str  # the phase's title
    kind: str  # the action type, e.g. "melee", "override"
    summary: str
    steps: tuple[StepLine, ...] = ()


@dataclass(frozen=True)
class Losses:
    """Stands lost (and given back, by the umpire's override) by a unit, brigade or side in the turn."""

    id: str
    name: str
    side: str  # side name
    brigade: str = ""  # brigade name (units only)
    lost: int = 0
    restored: int = 0
    stands_before: int = 0  # at the start of the turn
    stands_after: int = 0  # at the end of the turn


@dataclass(frozen=True)
class MarkerChange:
    seq: int
    unit_id: str
    unit: str
    gained: tuple[str, ...] = ()
    lost: tuple[str, ...] = ()


@dataclass(frozen=True)
class PipUse:
    """A brigade's Staff Pips in the turn: allotted, spent, reserved, spent from reserve, lapsed.

    ``allotted`` counts the allowance given when a side's Phase 1 begins (the pool is set to it);
    ``lapsed`` counts the pips that went unused: reserved pips at the end of the enemy's turn
    and the pool's unspent pips when a new allowance replaces them.
    """

    brigade_id: str
    brigade: str
    brigadier: str
    side: str
    allotted: int = 0
    spent: int = 0
    reserved: int = 0
    reserved_spent: int = 0
    lapsed: int = 0
    pips_after: int = 0
    reserved_after: int = 0
    pips_before: int = 0  # at the start of the turn
    reserved_before: int = 0

    @property
    def any(self) -> bool:
        return bool(self.allotted or self.spent or self.reserved or self.reserved_spent or self.lapsed)


@dataclass(frozen=True)
class HealthChange:
    unit_id: str
    unit: str
    side: str
    before: str  # Health value, e.g. "fresh"
    after: str

    @property
    def destroyed(self) -> bool:
        return self.after == Health.DESTROYED.value


@dataclass(frozen=True)
class UnitRow:
    """A unit at the end of the turn."""

    id: str
    name: str
    side: str
    brigade: str
    kind: str
    formation: str
    stands: int
    stands_start: int
    micro_hits: int
    health: str
    markers: tuple[str, ...]
    x: float
    y: float
    facing_deg: float


@dataclass(frozen=True)
class SideInfo:
    id: str
    name: str
    colour: str


@dataclass(frozen=True)
class LeftUndoneLine:
    """What the umpire left undone in one phase of a side's turn (the phase checklist's items he
    went on past, :class:`rules.turn.checklist.LeftUndone`): a short line, and each item in full."""

    side: str  # the side's name
    phase: str  # the phase's title
    text: str  # "not moved: 4th Virginia, 8th Georgia; reserved pips not spent: Meredith"
    items: tuple[str, ...] = ()


@dataclass(frozen=True)
class TurnSummary:
    """Everything printed for one game turn. Built by :func:`build_turn_summary`."""

    battle_name: str
    turn: int
    game_file: str
    sides: tuple[SideInfo, ...]
    events: tuple[EventLine, ...]
    unit_losses: tuple[Losses, ...]
    brigade_losses: tuple[Losses, ...]
    side_losses: tuple[Losses, ...]
    markers: tuple[MarkerChange, ...]
    pips: tuple[PipUse, ...]
    melee: tuple[EventLine, ...]
    health: tuple[HealthChange, ...]
    units: tuple[UnitRow, ...]
    #: stands on the table by side id, at the start (index 0) and at the end of turns 1..turn
    strength: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    battle_end: Battle | None = None
    phase_at_end: str = ""
    left_undone: tuple[LeftUndoneLine, ...] = ()

    def losses_of(self, unit_id: str) -> Losses | None:
        return next((u for u in self.unit_losses if u.id == unit_id), None)


MELEE_TYPES = frozenset({"melee", "charge"})
LEFT_UNDONE = "left_undone"

#: How the short line names each kind of item left undone (rules.turn.checklist.ItemKind).
LEFT_UNDONE_WORDS = {
    "move": "not moved",
    "arrive": "arrivals not brought on",
    "fire": "could still fire",
    "melee": "melees not resolved",
    "check": "rolls owed",
    "reserved_pips": "reserved pips not spent",
    "umpire": "for the umpire",
}


def left_undone_lines(events: Sequence[Event], battles: Sequence[Battle]) -> tuple[LeftUndoneLine, ...]:
    """One short line per phase of each side's turn in which items of the checklist were left
    undone, in the order they were left; the names are read from ``battles`` (the first that
    knows the unit or brigade)."""
    from rules.errors import RulesError

    def unit_name(uid: str | None) -> str:
        for b in battles:
            if uid and uid in b.units:
                return b.units[uid].name
        return uid or ""

    def brigade_name(bid: str | None) -> str:
        for b in battles:
            if bid and bid in b.brigades:
                br = b.brigades[bid]
                return br.brigadier.name or br.name
        return bid or ""

    groups: dict[tuple[str, str], list[Any]] = {}
    for e in events:
        if e.type != LEFT_UNDONE:
            continue
        try:
            items = e.action.left()
        except RulesError:
            continue
        for i in items:
            groups.setdefault((e.side, i.phase), []).append(i)
    out = []
    for (side, phase), items in groups.items():
        by_kind: dict[str, list[str]] = {}
        for i in items:
            by_brigade = i.kind in ("reserved_pips", "arrive")
            name = brigade_name(i.brigade_id) if by_brigade else unit_name(i.unit_id)
            names = by_kind.setdefault(i.kind, [])
            if name and name not in names:
                names.append(name)
        text = "; ".join(f"{LEFT_UNDONE_WORDS.get(k, k)}: {', '.join(v)}" for k, v in by_kind.items())
        side_name = next((b.oob.side_name(side) for b in battles), side)
        out.append(LeftUndoneLine(side_name, Phase.title_of(phase), text, tuple(str(i) for i in items)))
    return tuple(out)


_TURN_CHANGING = frozenset({"next_phase", "end_turn"})


def last_seq_by_turn(events: Iterable[Event]) -> dict[int, int]:
    """The last journal entry of each game turn that has one."""
    out: dict[int, int] = {}
    for e in events:
        out[e.turn] = max(out.get(e.turn, 0), e.seq)
    return out


def turn_end_states(
    game: GameJournal, last_turn: int | None = None, events: Sequence[Event] | None = None
) -> list[Battle]:
    """The battle at the start (index 0) and at the end of each turn 1..``last_turn``.

    The end of a turn is the state after its last journal entry (:meth:`Game.state_at`, which
    replays from the nearest snapshot); a turn without entries leaves the battle as it was.
    """
    events = game.events() if events is None else events
    last = last_seq_by_turn(events)
    top = last_turn if last_turn is not None else max([game.battle.turn, *last])
    states = [game.scenario]
    for t in range(1, top + 1):
        seq = last.get(t)
        states.append(game.state_at(seq) if seq else states[-1])
    return states


def turn_end_state(game: GameJournal, turn: int, index: Mapping[int, tuple[int, int]]) -> Battle:
    """The battle at the end of ``turn`` (0: the start), as :func:`turn_end_states` gives it, with
    ``index`` the game's :meth:`~storage.game.Game.turn_index`: only that battle is rebuilt."""
    at = max((t for t in index if t <= turn), default=None)
    if at is None:
        return game.scenario
    seq = index[at][1]
    return game.battle if seq == game.last_seq else game.state_at(seq)


def side_strength(
    game: GameJournal, upto: int, index: Mapping[int, tuple[int, int]], sides: Iterable[str]
) -> dict[str, tuple[int, ...]]:
    """The stands of each of ``sides`` at the start and at the end of turns 1..``upto``: from the
    totals kept of each turn ended (:meth:`~storage.game.Game.turn_totals`), the other turns'
    battles rebuilt (as :func:`turn_end_states` gives them)."""
    totals = game.turn_totals()
    sides = list(sides)
    rows = [{s: game.scenario.oob.stands(side=s) for s in sides}]
    for t in range(1, upto + 1):
        if t not in index:  # no entries: as it was
            rows.append(rows[-1])
            continue
        seq = index[t][1]
        kept = totals.get(seq)
        if kept is not None and kept.turn == t:
            have = kept.side_stands()
            rows.append({s: have.get(s, 0) for s in sides})
        else:
            b = game.battle if seq == game.last_seq else game.state_at(seq)
            rows.append({s: b.oob.stands(side=s) for s in sides})
    return {s: tuple(r[s] for r in rows) for s in sides}


def _markers_of(d: Mapping[str, Any] | None) -> set[str]:
    return set(d.get("markers", ())) if d else set()


def value_label(value: str) -> str:
    """A health state or a marker in words.

    >>> value_label("refused_flank")
    'Refused flank'
    """
    return value.replace("_", " ").capitalize()


def _pip_uses(events: Sequence[Event], start: Battle, end: Battle) -> tuple[PipUse, ...]:
    tally: dict[str, dict[str, int]] = {}
    for e in events:
        for bid, (before, after) in e.changes.brigades.items():
            if before is None or after is None:
                continue
            t = tally.setdefault(
                bid, dict.fromkeys(("allotted", "spent", "reserved", "reserved_spent", "lapsed"), 0)
            )
            d_pool = int(after.get("staff_pips", 0)) - int(before.get("staff_pips", 0))
            d_res = int(after.get("staff_pips_reserved", 0)) - int(before.get("staff_pips_reserved", 0))
            if d_res > 0:
                t["reserved"] += d_res
                d_pool += d_res  # the reserved pips came out of the pool
            elif d_res < 0:
                t["lapsed" if e.type in _TURN_CHANGING else "reserved_spent"] += -d_res
            if e.type in _TURN_CHANGING and d_pool:
                # a new Phase 1 sets the pool to the allowance: unspent pips do not carry over
                t["allotted"] += int(after.get("staff_pips", 0))
                t["lapsed"] += int(before.get("staff_pips", 0))
            elif d_pool < 0:
                t["spent"] += -d_pool
            elif d_pool > 0:
                t["allotted"] += d_pool
    out = []
    for bid, b in end.brigades.items():
        t = tally.get(bid, {})
        first = start.brigades.get(bid)
        out.append(
            PipUse(
                brigade_id=bid,
                brigade=b.name,
                brigadier=b.brigadier.name,
                side=end.oob.side_name(b.side),
                pips_after=b.staff_pips,
                reserved_after=b.staff_pips_reserved,
                pips_before=first.staff_pips if first is not None else 0,
                reserved_before=first.staff_pips_reserved if first is not None else 0,
                **t,
            )
        )
    return tuple(out)


def build_turn_summary(game: GameJournal, turn: int) -> TurnSummary:
    """The summary of game turn ``turn`` of an open :class:`storage.game.Game`.

    Raises :class:`ReportError` for a turn the game has not reached.
    """
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise ReportError(f"a turn is a whole number, not {turn!r}")
    # only the turn asked for is read: the turns before it are found in the journal's index of
    # turns, their totals in those kept with the journal
    index = game.turn_index()
    top = max([game.battle.turn, *index])
    if not 1 <= turn <= top:
        raise ReportError(f"the game has turns 1 to {top}, not {turn}")
    start, end = turn_end_state(game, turn - 1, index), turn_end_state(game, turn, index)
    events = game.events(turn=turn)

    lines = tuple(
        EventLine(
            seq=e.seq,
            side=end.oob.side_name(e.side),
            phase=Phase.title_of(e.phase),
            kind=e.type,
            summary=e.summary,
            steps=tuple(
                StepLine(s.text, tuple(s.dice), tuple(str(m) for m in s.modifiers), s.rule) for s in e.steps
            ),
        )
        for e in events
    )

    # casualties, from the recorded changes
    per_unit: dict[str, list[int]] = {}
    unit_info: dict[str, Mapping[str, Any]] = {}
    markers: list[MarkerChange] = []
    for e in events:
        for uid, (lost, restored) in unit_losses_in(e.changes).items():
            acc = per_unit.setdefault(uid, [0, 0])
            acc[0] += lost
            acc[1] += restored
        for uid, (before, after) in e.changes.units.items():
            unit_info[uid] = after or before or {}
            if before is None or after is None:
                continue
            b, a = _markers_of(before), _markers_of(after)
            if a != b:
                markers.append(
                    MarkerChange(
                        e.seq,
                        uid,
                        str((after or before).get("name", uid)),
                        tuple(value_label(m) for m in sorted(a - b)),
                        tuple(value_label(m) for m in sorted(b - a)),
                    )
                )

    def unit_of(battle: Battle, uid: str):
        return battle.units.get(uid)

    unit_losses = []
    for uid, (lost, restored) in per_unit.items():
        u = unit_of(end, uid) or unit_of(start, uid)
        info = unit_info.get(uid, {})
        name = u.name if u else str(info.get("name", uid))
        side = end.oob.side_name(u.side if u else str(info.get("side", "")))
        brigade_id = u.brigade if u else str(info.get("brigade", ""))
        br = end.brigades.get(brigade_id) or start.brigades.get(brigade_id)
        unit_losses.append(
            Losses(
                uid,
                name,
                side,
                br.name if br else brigade_id,
                lost,
                restored,
                _stands_of(start, uid),
                _stands_of(end, uid),
            )
        )
    unit_losses.sort(key=lambda x: (x.side, x.brigade, -x.lost, x.name))

    brigade_losses = []
    for bid, br in end.brigades.items():
        ids = {u.id for u in end.oob.units_of_brigade(bid)} | {u.id for u in start.oob.units_of_brigade(bid)}
        lost = sum(per_unit.get(i, [0, 0])[0] for i in ids)
        restored = sum(per_unit.get(i, [0, 0])[1] for i in ids)
        brigade_losses.append(
            Losses(
                bid,
                br.name,
                end.oob.side_name(br.side),
                br.name,
                lost,
                restored,
                start.oob.stands(brigade=bid),
                end.oob.stands(brigade=bid),
            )
        )
    side_losses = []
    for s in end.oob.sides:
        ids = {u.id for u in end.units.values() if u.side == s.id} | {
            u.id for u in start.units.values() if u.side == s.id
        }
        side_losses.append(
            Losses(
                s.id,
                s.name,
                s.name,
                "",
                sum(per_unit.get(i, [0, 0])[0] for i in ids),
                sum(per_unit.get(i, [0, 0])[1] for i in ids),
                start.oob.stands(side=s.id),
                end.oob.stands(side=s.id),
            )
        )

    health = []
    for uid, u in end.units.items():
        before = start.units.get(uid)
        if before is None:
            continue
        if before.health != u.health:
            health.append(
                HealthChange(uid, u.name, end.oob.side_name(u.side), before.health.value, u.health.value)
            )

    units = []
    for s in end.oob.sides:
        for br in end.oob.brigades_of(s.id):
            for u in end.oob.units_of_brigade(br.id):
                units.append(
                    UnitRow(
                        u.id,
                        u.name,
                        s.name,
                        br.name,
                        u.kind.label,
                        u.formation.label,
                        u.stands,
                        u.stands_start,
                        u.micro_hits,
                        u.health.value,
                        tuple(m.label for m in sorted(u.markers)),
                        u.x,
                        u.y,
                        u.facing_deg,
                    )
                )

    strength = side_strength(game, turn, index, [s.id for s in end.oob.sides])
    return TurnSummary(
        battle_name=end.name,
        turn=turn,
        game_file=Path(str(game.path)).name,
        sides=tuple(SideInfo(s.id, s.name, s.colour) for s in end.oob.sides),
        events=lines,
        unit_losses=tuple(unit_losses),
        brigade_losses=tuple(brigade_losses),
        side_losses=tuple(side_losses),
        markers=tuple(markers),
        pips=_pip_uses(events, start, end),
        melee=tuple(line for line in lines if line.kind in MELEE_TYPES),
        health=tuple(health),
        units=tuple(units),
        strength=strength,
        battle_end=end,
        phase_at_end=f"Turn {end.turn}, {end.oob.side_name(end.active_side)}: {end.phase.title}",
        left_undone=left_undone_lines(events, (end, start)),
    )


def _stands_of(battle: Battle, uid: str) -> int:
    u = battle.units.get(uid)
    return u.stands if u else 0
