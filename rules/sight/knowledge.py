"""What a side knows of the battle: the enemy units it sees now, where it last saw the others, and
the journal's entries as it saw them.

A side's knowledge is built entry by entry from the journal (``storage.sightings`` does it): after
each entry, :class:`SideKnowledge` takes the enemy units the side sees now
(:class:`rules.sight.spotting.SightTracker`); an enemy unit that drops out of sight is remembered as it
was last seen, with the turn (a ghost on the side's map, "last seen turn N"), or as seen destroyed.

What the side's views are given is built from that knowledge, never from the umpire's battle
filtered after the fact:

* :func:`side_view`: the map of a player view and of a side's report: the side's own units in
  full, the enemy units it sees as the table shows them (:func:`as_seen`: no quality, traits,
  micro-hits or concealment, which no one can see across the table), and the ghosts.
* :func:`event_as_seen`: a journal entry as the side saw it, or None when it saw nothing of it.
  The umpire's rulings are never shown; an entry is shown when it concerns a unit of the side or an
  enemy unit the side sees (before or after it), and each line that names a unit the side does not
  see is left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache

from rules.action_base import Action
from rules.battle.battle import Battle
from rules.battle.events import Changes, Step
from rules.battle.order_of_battle import Brigade, Side
from rules.battle.terrain import TerrainFeature
from rules.battle.unit import Unit
from rules.battle.words import Phase, Quality

#: The entries of the turn sequence: everyone at the table knows the phase has changed.
TURN_SEQUENCE = frozenset({"next_phase", "end_turn"})


def as_seen(unit: Unit) -> Unit:
    """An enemy unit as the table shows it: where it stands, its formation, stands and markers.
    What no one sees across the table (quality, traits, micro-hits, concealment) reads as plain."""
    return replace(unit, micro_hits=0, quality=Quality.REGULAR, traits=frozenset(), hidden=False)


@dataclass(frozen=True)
class Sighting:
    """An enemy unit as a side last saw it."""

    unit: Unit  # as seen then (:func:`as_seen`)
    turn: int  # the game turn it was last seen in
    seq: int  # the journal entry after which it was last seen (0: the start of the game)
    destroyed: bool = False  # seen destroyed


@dataclass(frozen=True)
class SideKnowledge:
    """What ``side`` knows of the enemy after a journal entry.

    ``seen``: the enemy units it sees now; ``last``: those it saw before and does not see now, as
    last seen (or seen destroyed); ``ever``: every enemy unit it has seen, whose name it knows.
    """

    side: str
    seen: frozenset[str] = frozenset()
    last: Mapping[str, Sighting] = field(default_factory=dict)
    ever: frozenset[str] = frozenset()

    @classmethod
    def start(cls, side: str, seen: Iterable[str]) -> SideKnowledge:
        s = frozenset(seen)
        return cls(side, s, {}, s)

    def after(self, before: Battle, after: Battle, seen: frozenset[str], seq: int) -> SideKnowledge:
        """The knowledge after journal entry ``seq``, which took ``before`` to ``after``, when the
        side sees ``seen`` of the enemy."""
        lost, gained = self.seen - seen, seen - self.seen
        if not lost and not gained:
            return self
        last = dict(self.last)
        for uid in gained:
            last.pop(uid, None)
        for uid in lost:
            now, was = after.units.get(uid), before.units.get(uid)
            if now is None or was is None:  # taken off the battle by the umpire
                last.pop(uid, None)
            elif not now.in_play:
                last[uid] = Sighting(as_seen(was), before.turn, seq, destroyed=True)
            else:
                last[uid] = Sighting(as_seen(was), before.turn, seq - 1)
        return SideKnowledge(self.side, seen, last, self.ever | gained)

    def ghosts(self) -> dict[str, Sighting]:
        """The enemy units seen before, not now and not seen destroyed: where they were last seen."""
        return {uid: s for uid, s in self.last.items() if not s.destroyed}


# -- the side's map ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SideView:
    """What a side's map shows: its own units in full, the enemy units it sees now as the table
    shows them, and the ghosts of those it saw before, with the table, its terrain and the turn."""

    side: str
    battle_name: str
    sides: tuple[Side, ...]
    turn: int
    phase: Phase
    active_side: str
    table_width_in: float
    table_height_in: float
    terrain: tuple[TerrainFeature, ...]
    units: Mapping[str, Unit]
    ghosts: Mapping[str, Sighting]
    brigades: Mapping[str, Brigade]  # the side's own

    def colour(self, side: str) -> str:
        return next((s.colour for s in self.sides if s.id == side), "#555555")

    def side_name(self, side: str) -> str:
        return next((s.name for s in self.sides if s.id == side), str(side))

    def is_own(self, unit_id: str) -> bool:
        u = self.units.get(unit_id)
        return u is not None and u.side == self.side

    def names(self) -> set[str]:
        """Every unit name the view holds (own, seen and ghosts)."""
        return {u.name for u in self.units.values()} | {g.unit.name for g in self.ghosts.values()}


def side_view(battle: Battle, knowledge: SideKnowledge) -> SideView:
    """The map of ``knowledge.side`` in ``battle`` (the battle of the same moment as the knowledge)."""
    side = knowledge.side
    units: dict[str, Unit] = {}
    for u in battle.units.values():
        if u.side == side:
            if u.in_play:
                units[u.id] = u
        elif u.id in knowledge.seen and u.in_play:
            units[u.id] = as_seen(u)
    return SideView(
        side=side,
        battle_name=battle.name,
        sides=tuple(battle.oob.sides),
        turn=battle.turn,
        phase=battle.phase,
        active_side=battle.active_side,
        table_width_in=battle.table_width_in,
        table_height_in=battle.table_height_in,
        terrain=battle.terrain,
        units=units,
        ghosts=knowledge.ghosts(),
        brigades={b.id: b for b in battle.oob.brigades_of(side)},
    )


# -- the journal as a side saw it ---------------------------------------------------------------------


@dataclass(frozen=True)
class SeenEvent:
    """A journal entry as a side saw it: the lines it may be told, and whether that is all of it."""

    seq: int
    turn: int
    side: str  # the side to act when it was made
    phase: str
    kind: str  # the action's type
    summary: str
    steps: tuple[Step, ...]
    whole: bool  # the side saw all of it


@lru_cache(maxsize=4096)
def _word(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(name.casefold()) + r"(?!\w)")


def mentions(text: str, hidden: Iterable[str], known: Iterable[str] = ()) -> bool:
    """Whether ``text`` names any of ``hidden`` (whole words, any case), once the ``known`` names
    it may hold are set aside (so "2nd Wisconsin" known does not give away "Wisconsin")."""
    t = text.casefold()
    suspects = [name for name in hidden if name and name.casefold() in t]
    if not suspects:  # the usual case: no hidden name in it at all
        return False
    for name in sorted({n for n in known if n and n.casefold() in t}, key=len, reverse=True):
        t = _word(name).sub(" ", t)
    return any(_word(name).search(t) for name in suspects)


def _concerned(steps: Iterable[Step], changes: Changes) -> set[str]:
    out = set(changes.units)
    for s in steps:
        out.update(s.units)
    return out


def event_as_seen(
    side: str,
    *,
    seq: int,
    turn: int,
    active_side: str,
    phase: str,
    action: Action,
    summary: str,
    steps: Iterable[Step],
    changes: Changes,
    before: Battle,
    after: Battle,
    seen_before: frozenset[str],
    seen_after: frozenset[str],
) -> SeenEvent | None:
    """Journal entry ``seq`` as ``side`` saw it, or None when it saw nothing of it.

    * The umpire's rulings (overrides, edits, placements) are the umpire's: never shown.
    * The turn sequence (next phase, end of turn) is known to all.
    * Otherwise the entry is shown when it concerns a unit of the side, one of its brigades, or an
      enemy unit the side sees before or after it.
    * A line is left out when it concerns, or names, an enemy unit the side does not see (or an
      enemy brigade or Brigadier); a summary that names one is replaced by the first line left.
    """
    steps = tuple(steps)
    if action.is_ruling():
        return None

    def unit(uid: str) -> Unit | None:
        return after.units.get(uid) or before.units.get(uid)

    around = seen_before | seen_after

    def known(uid: str) -> bool:
        u = unit(uid)
        return u is not None and (u.side == side or uid in around)

    concerned = _concerned(steps, changes)
    brigade_sides = {(after.brigades.get(b) or before.brigades.get(b)).side for b in changes.brigades}
    if not (
        action.type in TURN_SEQUENCE
        or any(known(u) for u in concerned)
        or any(u is not None and u.side == side for u in map(unit, concerned))
        or side in brigade_sides
    ):
        return None
    every = {**before.units, **after.units}
    known_names = {u.name for uid, u in every.items() if known(uid)}
    hidden_names = {u.name for uid, u in every.items() if not known(uid)} - known_names
    enemy = before.oob.enemy_of(side)
    for b in (*before.brigades.values(), *after.brigades.values()):
        if b.side == enemy:
            hidden_names |= {b.name, b.brigadier.name}
    hidden_names -= known_names | {""}
    shown = tuple(
        s for s in steps if all(known(u) for u in s.units) and not mentions(s.text, hidden_names, known_names)
    )
    whole = len(shown) == len(steps) and all(known(u) for u in concerned)
    text = summary
    if mentions(summary, hidden_names, known_names):
        whole = False
        text = shown[0].text if shown else ""
    if not text and not shown:
        return None
    return SeenEvent(seq, turn, active_side, phase, action.type, text, shown, whole)
