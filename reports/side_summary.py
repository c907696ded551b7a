"""A side's report of a game turn: the turn as that side knew it.

:func:`build_side_summary` makes a :class:`SideSummary` from an open game, a turn and a side. It is
built from the side's own units and from its knowledge of the enemy (:mod:`storage.sightings`),
never from the umpire's summary with the enemy taken out:

* its own actions, losses, Staff Pips, health changes and units, in full;
* the journal's entries of the turn as the side saw them (:func:`rules.sight.knowledge.event_as_seen`:
  no umpire's rulings, no line about an enemy unit it did not see);
* the enemy units it knew by the end of the turn: those it sees then, as they stand, and the
  others as it last saw them ("last seen turn N"), with the stands they lost as far as it saw;
* its map at the end of the turn (:class:`rules.sight.knowledge.SideView`).

No enemy unit the side has not seen is in it, by name or otherwise. It knows nothing of Qt:
:mod:`gui.side_report` lays it out, prints it and writes it to PDF and HTML.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reports.summary import (
    MELEE_TYPES,
    EventLine,
    GameJournal,
    HealthChange,
    Losses,
    PipUse,
    SideInfo,
    StepLine,
    UnitRow,
    build_turn_summary,
)
from rules.battle.unit import Unit
from rules.battle.words import Phase
from rules.errors import InvariantError
from rules.sight.knowledge import SeenEvent, SideKnowledge, SideView
from rules.sight.spotting import check_side
from storage.errors import ReportError
from storage.sightings import Sightings


@dataclass(frozen=True)
class EnemyRow:
    """An enemy unit as the side knew it at the end of the turn."""

    id: str
    name: str
    kind: str
    formation: str
    stands: int  # as seen
    markers: tuple[str, ...]
    x: float
    y: float
    facing_deg: float
    seen_now: bool  # seen at the end of the turn
    last_seen_turn: int
    destroyed: bool = False  # seen destroyed
    lost_seen: int = 0  # stands it was seen to lose this turn


@dataclass(frozen=True)
class SideSummary:
    """Everything printed for one side about one game turn. Built by :func:`build_side_summary`."""

    battle_name: str
    turn: int
    game_file: str
    side: SideInfo
    enemy: SideInfo
    events: tuple[EventLine, ...]
    unit_losses: tuple[Losses, ...]  # the side's own units
    brigade_losses: tuple[Losses, ...]
    side_loss: Losses
    pips: tuple[PipUse, ...]
    health: tuple[HealthChange, ...]  # own units, and enemy units as seen
    units: tuple[UnitRow, ...]  # the side's own, at the end of the turn
    enemy_units: tuple[EnemyRow, ...]
    melee: tuple[EventLine, ...]
    strength: tuple[int, ...] = ()  # the side's stands at the start and after each turn
    view: SideView | None = None  # the side's map at the end of the turn
    phase_at_end: str = ""
    entries_hidden: int = 0  # entries of the turn the side saw nothing of
    seen_in_part: int = 0


def _line(e: SeenEvent, side_name: str) -> EventLine:
    return EventLine(
        seq=e.seq,
        side=side_name,
        phase=Phase.title_of(e.phase),
        kind=e.kind,
        summary=e.summary + ("" if e.whole else " (seen in part)"),
        steps=tuple(
            StepLine(s.text, tuple(s.dice), tuple(str(m) for m in s.modifiers), s.rule) for s in e.steps
        ),
    )


def _stands(unit: Unit | None) -> int:
    return unit.stands if unit is not None else 0


def build_side_summary(game: GameJournal, turn: int, side: str) -> SideSummary:
    """The report of game turn ``turn`` as ``side`` (its id or name) knew it.

    Raises :class:`ReportError` for a turn the game has not reached, a side the battle does not
    have, or a side with no units (it has nothing to see or report).
    """
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise ReportError(f"a turn is a whole number, not {turn!r}")
    try:
        side = check_side(game.battle, side)
    except InvariantError as exc:
        raise ReportError(str(exc)) from None
    sightings = Sightings.of(game)
    sightings.update()
    full = build_turn_summary(game, turn)  # checks the turn; its own side's parts are the side's own
    end = full.battle_end
    assert end is not None
    own = end.oob.side(side)
    enemy = end.oob.side(end.oob.enemy_of(side))
    if not any(u.side == side for u in (*game.scenario.units.values(), *end.units.values())):
        raise ReportError(
            f"the {own.name} side has no units in {end.name or 'this game'}: it sees nothing, and has "
            "nothing to report"
        )
    # the journal's index of turns: the turn's own entries are read, not the whole journal's
    by_turn = {t: last for t, (_n, last) in game.turn_index().items()}
    end_seq = max([0, *(q for t, q in by_turn.items() if t <= turn)])
    start_seq = max([0, *(q for t, q in by_turn.items() if t < turn)])
    know_end = sightings.knowledge(side, end_seq)
    know_start = sightings.knowledge(side, start_seq)
    view = sightings.view(side, end_seq)
    seqs = [e.seq for e in game.events(turn=turn)]
    seen = sightings.events_as_seen(side, seqs)
    lines = tuple(_line(e, end.oob.side_name(e.side)) for e in seen)

    # the enemy as the side knew it at the start and at the end of the turn
    view_start = sightings.view(side, start_seq)

    def known_then(v: SideView, k: SideKnowledge, uid: str) -> Unit | None:
        """An enemy unit as the side knew it in ``v``: seen then, or as last seen before."""
        if uid in v.units:
            return v.units[uid]
        s = k.last.get(uid)
        return s.unit if s is not None and not s.destroyed else None

    enemy_rows = []
    health = [h for h in full.health if h.side == own.name]
    for uid in sorted(know_end.ever, key=lambda i: _name_of(view, know_end, i)):
        if uid in view.units:
            u, now, last_turn, destroyed = view.units[uid], True, end.turn, False
        else:
            s = know_end.last.get(uid)
            if s is None:
                continue
            u, now, last_turn, destroyed = s.unit, False, s.turn, s.destroyed
        was = known_then(view_start, know_start, uid)
        lost = max(_stands(was) - (0 if destroyed else u.stands), 0) if was is not None else 0
        enemy_rows.append(
            EnemyRow(
                uid,
                u.name,
                u.kind.label,
                u.formation.label,
                0 if destroyed else u.stands,
                tuple(m.label for m in sorted(u.markers)),
                u.x,
                u.y,
                u.facing_deg,
                now,
                last_turn,
                destroyed,
                lost,
            )
        )
        if was is not None:
            before_h = was.health.value
            after_h = "destroyed" if destroyed else u.health.value
            if before_h != after_h:
                health.append(HealthChange(uid, u.name, enemy.name, before_h, after_h))

    strength = full.strength.get(side, ())
    return SideSummary(
        battle_name=full.battle_name,
        turn=turn,
        game_file=Path(str(game.path)).name,
        side=SideInfo(own.id, own.name, own.colour),
        enemy=SideInfo(enemy.id, enemy.name, enemy.colour),
        events=lines,
        unit_losses=tuple(u for u in full.unit_losses if u.side == own.name),
        brigade_losses=tuple(b for b in full.brigade_losses if b.side == own.name),
        side_loss=next(s for s in full.side_losses if s.id == side),
        pips=tuple(p for p in full.pips if p.side == own.name),
        health=tuple(health),
        units=tuple(u for u in full.units if u.side == own.name),
        enemy_units=tuple(enemy_rows),
        melee=tuple(line for line in lines if line.kind in MELEE_TYPES),
        strength=tuple(strength),
        view=view,
        phase_at_end=f"Turn {end.turn}, {end.oob.side_name(end.active_side)}: {end.phase.title}",
        entries_hidden=len(seqs) - len(seen),
        seen_in_part=sum(1 for e in seen if not e.whole),
    )


def _name_of(view: SideView, know: SideKnowledge, uid: str) -> str:
    if uid in view.units:
        return view.units[uid].name
    s = know.last.get(uid)
    return s.unit.name if s is not None else uid
