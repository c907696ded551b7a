"""What each side sees of the other: spotting, from chapter 03's sight rules and the club defaults.

A unit sees an enemy unit when

* the terrain leaves a clear line between their colour stands (RULE-03-5.2): no dead ground
  behind a crest (RULE-03-4.3), no hill between them (RULE-03-4.4), no more woods, crops or
  orchard in the way than RULE-03-5.5 allows, no town sector or building across it (RULE-03-5.5).
  These are the rules of :meth:`rules.battlefield.field.Battlefield.visibility_matrix` without the
  viewer's own units: a side's troops block its fire (RULE-03-5.3), not its view;
* and the enemy unit is near enough to be made out, measured between the colour stands: within
  ``terrain.spotting.open_in`` (a club default, 48"); within ``terrain.spotting.hidden_in`` (6")
  for a unit in hidden deployment (:attr:`rules.battle.unit.Unit.hidden`); at any distance for a unit
  under its Smoke or Fired marker (``terrain.spotting.fired_seen_at_any_distance``).

A side sees an enemy unit when at least one of its units does. :func:`spot` says which, and for
each enemy unit it does not see, why, with the rule. Sight is mutual: chapter 03's terrain blocks a
sight line both ways alike, so one line serves both sides, and :class:`SightTracker` keeps both
sides' spotting up to date action by action, measuring again only the lines of the units that
changed.

>>> from rules.battle.battle import Battle
>>> from rules.battle.order_of_battle import Brigade, Brigadier, OrderOfBattle, Side
>>> from rules.battle.unit import Unit
>>> from rules.battle.words import UnitKind
>>> from rules.tables import load_tables
>>> def regiment(uid, side, y):
...     return Unit(id=uid, name=uid, side=side, brigade=side[0], kind=UnitKind.INFANTRY,
...                 stands=4, stands_start=4, x=20.0, y=y, facing_deg=0.0 if side == "csa" else 180.0)
>>> oob = OrderOfBattle(
...     sides=(Side("union", "Union"), Side("csa", "Confederacy")),
...     brigades={b: Brigade(b, b, s, Brigadier("")) for b, s in (("u", "union"), ("c", "csa"))},
...     units={u.id: u for u in (regiment("wis2", "union", 10.0), regiment("va4", "csa", 30.0))})
>>> battle = Battle("Open ground", oob, active_side="union")
>>> sorted(spot(battle, "union", load_tables()).seen)
['va4']

Hidden deployment: after every action of play (the umpire's rulings and placements excepted) a
hidden unit that is spotted, fires or moves in sight is revealed (:func:`reveal_hidden`). It is a
follow-up of every resolution (:func:`rules.action_base.follow_up`), so the reveal is part of the
action: in its log lines and its changes, taken back by its Undo and given back by its replay.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from rules.action_base import Action, Resolved, follow_up
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.unit import Unit
from rules.battle.words import Marker
from rules.battlefield.field import Battlefield
from rules.errors import InvariantError
from rules.tables import RuleTables

OPEN_IN = "terrain.spotting.open_in"
HIDDEN_IN = "terrain.spotting.hidden_in"
FIRED_SEEN = "terrain.spotting.fired_seen_at_any_distance"
FIRING_REVEALS = "terrain.spotting.firing_reveals"
MOVING_REVEALS = "terrain.spotting.moving_in_sight_reveals"

#: How far a side's units are looked through for the nearest with a clear line to an enemy unit it
#: does not see, in multiples of ``terrain.spotting.open_in``: past that, the reason given is what
#: blocks the nearest unit's view.
REASON_SEARCH_FACTOR = 2.0

#: The markers of a unit that has fired: its smoke gives it away.
GIVES_AWAY = frozenset({Marker.SMOKE, Marker.FIRED})

#: The values of a unit that can change what it sees or who sees it.
SIGHT_KEYS = ("side", "kind", "stands", "formation", "x", "y", "facing_deg", "markers", "hidden")

_EPS = 1e-9


def cited(tables: RuleTables, key: str) -> str:
    """How a table entry is cited: its rule, or "club default (key)" so it can be found and edited."""
    e = tables.entry(key)
    return e.rule if e.rule else f"{e.citation} ({key})"


def spotting_limit_in(unit: Unit, tables: RuleTables) -> float:
    """How close an enemy with a clear line of sight must be to make ``unit`` out."""
    if unit.hidden:
        return float(tables.value(HIDDEN_IN))
    if tables.value(FIRED_SEEN) and unit.markers & GIVES_AWAY:
        return math.inf
    return float(tables.value(OPEN_IN))


def _limits(units: Sequence[Unit], tables: RuleTables) -> np.ndarray:
    """:func:`spotting_limit_in` of each of ``units``, the tables read once."""
    hidden, fired, open_in = (
        float(tables.value(HIDDEN_IN)),
        bool(tables.value(FIRED_SEEN)),
        float(tables.value(OPEN_IN)),
    )
    return np.array(
        [hidden if u.hidden else math.inf if fired and u.markers & GIVES_AWAY else open_in for u in units],
        dtype=float,
    )


def sight_changed(units: Mapping[str, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]]) -> set[str]:
    """The units of a journal entry's changes (``Changes.units``) whose change can alter spotting:
    where they stand and face, their formation and stands, markers, side and concealment."""
    out = set()
    for uid, (before, after) in units.items():
        if before is None or after is None or any(before.get(k) != after.get(k) for k in SIGHT_KEYS):
            out.add(uid)
    return out


# -- the sight lines between units of the two sides ------------------------------------------------


class _Lines:
    """The sight lines from ``rows`` to ``cols`` (units of opposite sides): clear of terrain or not,
    and their length between the colour stands.

    Only the lines short enough for one of the two to make the other out are measured (a line
    longer than both units' spotting distances can show neither; it counts as not clear): with
    the armies in contact, the lines of each unit to the enemies in its reach, so that the cost
    grows with the units in reach, not with every pair of units on the table
    (:meth:`rules.battlefield.field.Battlefield.terrain_clear_pairs`)."""

    def __init__(self, bf: Battlefield, rows: Sequence[Unit], cols: Sequence[Unit], tables: RuleTables):
        self.bf = bf
        self.rows, self.cols = list(rows), list(cols)
        ro = np.array([[u.x, u.y] for u in self.rows], dtype=float).reshape(-1, 2)
        co = np.array([[u.x, u.y] for u in self.cols], dtype=float).reshape(-1, 2)
        self.dist = np.hypot(ro[:, None, 0] - co[None, :, 0], ro[:, None, 1] - co[None, :, 1])
        self.lim_rows, self.lim_cols = _limits(self.rows, tables), _limits(self.cols, tables)
        reach = np.maximum(self.lim_rows[:, None], self.lim_cols[None, :])
        pa, pb = np.nonzero(self.dist <= reach + _EPS)
        self.clear = np.zeros(self.dist.shape, dtype=bool)
        if len(pa):
            self.clear[pa, pb] = bf.terrain_clear_pairs(self.rows, self.cols, pa, pb)

    def nearest_clear(self, cols: Sequence[int], within_in: float) -> dict[int, int | None]:
        """For each column ``j`` of ``cols``: the row nearest to it, no further than ``within_in``,
        whose line to it is clear of terrain (None when every such line is blocked). The lines
        are measured from the nearest outwards, a few at a time, until one is clear."""
        out: dict[int, int | None] = {}
        order = {}
        for j in cols:
            near = np.flatnonzero(self.dist[:, j] <= within_in + _EPS)  # in row order, then by distance
            order[j] = near[np.argsort(self.dist[near, j], kind="stable")]
        todo, start, batch = list(cols), 0, 4
        while todo:
            pa: list[int] = []
            pb: list[int] = []
            for j in todo:
                rows = order[j][start : start + batch]
                if not len(rows):
                    continue
                pa.extend(int(i) for i in rows)
                pb.extend([j] * len(rows))
            clear = self.bf.terrain_clear_pairs(
                self.rows, self.cols, np.array(pa, dtype=int), np.array(pb, dtype=int)
            )
            found: dict[int, int] = {}
            for i, j, c in zip(pa, pb, clear):
                if c and j not in found:
                    found[j] = i
            left = []
            for j in todo:
                if j in found:
                    out[j] = found[j]
                elif start + batch >= len(order[j]):
                    out[j] = None
                else:
                    left.append(j)
            todo, start, batch = left, start + batch, batch * 4
        return out

    def rows_see_cols(self, tables: RuleTables) -> np.ndarray:
        return self.clear & (self.dist <= self.lim_cols[None, :] + _EPS)

    def cols_see_rows(self, tables: RuleTables) -> np.ndarray:
        """(rows x cols): whether the unit of the column sees the unit of the row."""
        return self.clear & (self.dist <= self.lim_rows[:, None] + _EPS)


# -- a side's spotting, with the reasons ----------------------------------------------------------


@dataclass(frozen=True)
class Unseen:
    """An enemy unit a side does not see, and why: the view of its unit nearest to seeing it."""

    unit_id: str
    reason: str
    rule: str | None
    nearest: str | None = None  # the side's unit whose view is given


@dataclass(frozen=True)
class Spotting:
    """The enemy units a side sees now (with the units of the side that see each) and, for each
    enemy unit on the table it does not see, the reason with its rule."""

    side: str
    seen_by: Mapping[str, tuple[str, ...]]
    unseen: Mapping[str, Unseen]

    @property
    def seen(self) -> frozenset[str]:
        return frozenset(self.seen_by)

    def sees(self, unit_id: str) -> bool:
        return unit_id in self.seen_by


def check_side(battle: Battle, side: str) -> str:
    """The id of ``side`` (given by id or by name, in any case); a clear refusal otherwise."""
    for s in battle.oob.sides:
        if side == s.id:
            return s.id
    for s in battle.oob.sides:
        if str(side).strip().casefold() in (s.id.casefold(), s.name.casefold()):
            return s.id
    names = ", ".join(f"{s.id} ({s.name})" for s in battle.oob.sides)
    raise InvariantError(
        f"there is no side '{side}' in {battle.name or 'this battle'}; the sides are {names}"
    )


def spot(battle: Battle, side: str, tables: RuleTables, battlefield: Battlefield | None = None) -> Spotting:
    """Which enemy units ``side`` sees now, and why it does not see each of the others."""
    side = check_side(battle, side)
    enemy = battle.oob.enemy_of(side)
    viewers = battle.oob.in_play(side)
    targets = battle.oob.in_play(enemy)
    side_name = battle.oob.side_name(side)
    if not targets:
        return Spotting(side, {}, {})
    if not viewers:
        why = f"the {side_name} have no unit on the table"
        return Spotting(side, {}, {t.id: Unseen(t.id, why, None) for t in targets})
    bf = battlefield if battlefield is not None else Battlefield(battle, tables)
    lines = _Lines(bf, viewers, targets, tables)
    sees = lines.rows_see_cols(tables)
    seen_by: dict[str, tuple[str, ...]] = {}
    unseen: dict[str, Unseen] = {}
    blind = [j for j in range(len(targets)) if not sees[:, j].any()]
    # for each enemy not seen: the nearest unit with a clear line, looked for within twice the
    # distance a unit is made out at (further off, the nearest unit's view says why)
    search_in = REASON_SEARCH_FACTOR * float(tables.value(OPEN_IN))
    nearest = lines.nearest_clear(blind, search_in)
    for j, t in enumerate(targets):
        who = np.flatnonzero(sees[:, j])
        if len(who):
            seen_by[t.id] = tuple(viewers[i].id for i in who)
            continue
        near = nearest[j]
        if near is not None:
            i = near
            v, d = viewers[i], float(lines.dist[i, j])
            if t.hidden:
                key = HIDDEN_IN
                reason = (
                    f"{t.name} is hidden: {v.name}, the nearest {side_name} unit with a clear line of "
                    f'sight, is {d:.1f}" away, and a hidden unit is spotted within '
                    f'{float(tables.value(key)):g}"'
                )
            else:
                key = OPEN_IN
                reason = (
                    f"{v.name}, the nearest {side_name} unit with a clear line of sight, is "
                    f'{d:.1f}" away: a unit is made out within {float(tables.value(key)):g}"'
                )
            unseen[t.id] = Unseen(t.id, reason, cited(tables, key), v.id)
            continue
        i = int(np.argmin(lines.dist[:, j]))
        v, d = viewers[i], float(lines.dist[i, j])
        if d > search_in + _EPS:  # no unit of the side near enough to be asked what is in the way
            key = HIDDEN_IN if t.hidden else OPEN_IN
            reason = f'{v.name}, the nearest {side_name} unit, is {d:.1f}" away: ' + (
                f'a hidden unit is spotted within {float(tables.value(key)):g}"'
                if t.hidden
                else f'a unit is made out within {float(tables.value(key)):g}"'
            )
            unseen[t.id] = Unseen(t.id, reason, cited(tables, key), v.id)
            continue
        los = bf.terrain_line_of_sight(v, t)  # the terrain: a side's own units do not block its view
        unseen[t.id] = Unseen(t.id, f"from {v.name}, the nearest: {los.reason}", los.rule, v.id)
    return Spotting(side, seen_by, unseen)


# -- both sides, kept up to date -------------------------------------------------------------------


class SightTracker:
    """Both sides' spotting of one battle, kept up to date as it changes.

    :meth:`update` is given the battle after a change and the units that changed
    (:func:`sight_changed`): only their sight lines are measured again, each once for both sides
    (sight is mutual), so following an action costs the lines of the units it moved, not the
    whole table's. It returns what changed (:data:`Seers`), which :meth:`carry` applies to another
    tracker of the same battle without measuring anything: so what each side saw after every
    journal entry is kept with the save and read back (``storage.sight_ledger``).
    """

    def __init__(self, battle: Battle, tables: RuleTables):
        self.tables = tables
        self.battle = battle
        self._seers: dict[str, set[str]] = {}  # unit id -> the enemy units that see it
        self._seen: dict[str, frozenset[str]] = {}  # by side, until the next update
        self._full()

    @classmethod
    def of_seers(cls, battle: Battle, tables: RuleTables, seers: Mapping[str, Iterable[str]]) -> SightTracker:
        """A tracker of ``battle`` whose spotting is ``seers`` (each unit's enemy units that see it,
        as :meth:`seers_map` gives them), measured before: nothing is measured again."""
        other = object.__new__(cls)
        other.tables = tables
        other.battle = battle
        other._seers = {uid: set(ids) for uid, ids in seers.items() if ids}
        other._seen = {}
        return other

    def copy(self) -> SightTracker:
        other = object.__new__(SightTracker)
        other.tables = self.tables
        other.battle = self.battle
        other._seers = {k: set(v) for k, v in self._seers.items()}
        other._seen = dict(self._seen)
        return other

    def seers_map(self) -> dict[str, frozenset[str]]:
        """Every unit seen by an enemy unit, with the enemy units that see it."""
        return {uid: frozenset(s) for uid, s in self._seers.items() if s}

    def _full(self) -> None:
        self._seen = {}
        b = self.battle
        self._seers = {u.id: set() for u in b.oob.in_play()}
        a_id, b_id = (s.id for s in b.oob.sides)
        a, c = b.oob.in_play(a_id), b.oob.in_play(b_id)
        if a and c:
            self._measure(Battlefield(b, self.tables), a, c)

    def _measure(self, bf: Battlefield, rows: list[Unit], cols: list[Unit], was: dict | None = None) -> None:
        """Measure the lines between ``rows`` and ``cols`` (enemies) and set who sees whom (the
        sets changed are first kept in ``was`` as they were, when given)."""
        lines = _Lines(bf, rows, cols, self.tables)
        sees = lines.rows_see_cols(self.tables)
        seen = lines.cols_see_rows(self.tables)
        col_ids = [u.id for u in cols]
        for i, u in enumerate(rows):
            if was is not None and u.id not in was:
                was[u.id] = frozenset(self._seers.get(u.id, ()))
            self._seers[u.id] = {col_ids[j] for j in np.flatnonzero(seen[i])}
            for j in np.flatnonzero(sees[i]):
                cid = col_ids[j]
                s = self._seers.setdefault(cid, set())
                if was is not None and cid not in was:
                    was[cid] = frozenset(s)
                s.add(u.id)

    def update(
        self, battle: Battle, changed: Iterable[str] = (), terrain_changed: bool = False
    ) -> dict[str, frozenset[str]]:
        """Bring spotting up to ``battle``, in which the units ``changed`` (and the terrain, if
        ``terrain_changed``) are all that changed since the last battle it was given. Returns the
        units whose seers changed, with their seers now (empty: seen by none)."""
        old = self.battle
        self.battle = battle
        if (
            terrain_changed
            or (battle.terrain is not old.terrain and battle.terrain != old.terrain)
            or [s.id for s in battle.oob.sides] != [s.id for s in old.oob.sides]
        ):
            before = self.seers_map()
            self._full()
            after = self.seers_map()
            return {
                uid: after.get(uid, frozenset())
                for uid in before.keys() | after.keys()
                if before.get(uid, frozenset()) != after.get(uid, frozenset())
            }
        moved = set(changed)
        if not moved:
            return {}
        self._seen = {}
        was: dict[str, frozenset[str]] = {}
        for uid in moved:
            s = self._seers.pop(uid, None)
            was[uid] = frozenset(s or ())
        for uid, seers in self._seers.items():
            if seers & moved:
                if uid not in was:
                    was[uid] = frozenset(seers)
                seers -= moved
        by_side: dict[str, list[Unit]] = {}
        for uid in sorted(moved):
            u = battle.units.get(uid)
            if u is not None and u.in_play:
                by_side.setdefault(u.side, []).append(u)
                self._seers[uid] = set()
        if by_side:
            bf = Battlefield(battle, self.tables)
            for side, rows in by_side.items():
                cols = battle.oob.in_play(battle.oob.enemy_of(side))
                if cols:
                    self._measure(bf, rows, cols, was)
        return {uid: now for uid, w in was.items() if (now := frozenset(self._seers.get(uid, ()))) != w}

    def carry(self, battle: Battle, change: Mapping[str, Iterable[str]]) -> None:
        """Bring spotting up to ``battle`` with the change :meth:`update` gave for it (measured
        before, by this tracker or another of the same battle): nothing is measured."""
        self.battle = battle
        if not change:
            return
        self._seen = {}
        for uid, ids in change.items():
            if ids:
                self._seers[uid] = set(ids)
            else:
                self._seers.pop(uid, None)

    def seers(self, unit_id: str) -> frozenset[str]:
        """The enemy units that see ``unit_id`` now."""
        return frozenset(self._seers.get(unit_id, ()))

    def seen(self, side: str) -> frozenset[str]:
        """The enemy units ``side`` sees now."""
        out = self._seen.get(side)
        if out is None:
            units = self.battle.units
            out = self._seen[side] = frozenset(
                uid for uid, s in self._seers.items() if s and uid in units and units[uid].side != side
            )
        return out


# -- hidden deployment: revealing --------------------------------------------------------------------


def _nearest_in_sight(
    battle: Battle, unit: Unit, limit_in: float, tables: RuleTables
) -> tuple[Unit, float] | None:
    """The nearest enemy unit with a clear line of sight to ``unit`` within ``limit_in``."""
    enemies = battle.oob.in_play(battle.oob.enemy_of(unit.side))
    if not enemies:
        return None
    dist = np.hypot(
        np.array([e.x for e in enemies], dtype=float) - unit.x,
        np.array([e.y for e in enemies], dtype=float) - unit.y,
    )
    near = np.flatnonzero(dist <= limit_in + _EPS)  # only the lines within the limit are measured
    if not len(near):
        return None
    clear = Battlefield(battle, tables).terrain_clear_pairs(
        [unit], enemies, np.zeros(len(near), dtype=int), near
    )
    ok = near[clear]
    if not len(ok):
        return None
    j = int(ok[np.argmin(dist[ok])])
    return enemies[j], float(dist[j])


@follow_up
def reveal_hidden(before: Battle, action: Action, out: Resolved, tables: RuleTables) -> Resolved:
    """After an action of play, each hidden unit that fired, moved in sight of an enemy unit or is
    spotted is revealed (its ``hidden`` is cleared), with a line in the log saying why:

    * it fired: it gained the Smoke or Fired marker (``terrain.spotting.firing_reveals``);
    * it moved (a march, a charge, a reaction, a retreat) where an enemy unit had a clear line of
      sight to it within ``terrain.spotting.open_in``, where it set out or where it stopped
      (``terrain.spotting.moving_in_sight_reveals``);
    * an enemy unit with a clear line of sight is within ``terrain.spotting.hidden_in``.
    """
    after = out.battle_after
    hidden = [u for u in after.units.values() if u.hidden and u.in_play]
    if not hidden:
        return out
    found: dict[str, Step] = {}
    if tables.value(FIRING_REVEALS):
        rule = cited(tables, FIRING_REVEALS)
        for u in hidden:
            was = before.units.get(u.id)
            gained = (u.markers & GIVES_AWAY) - (was.markers if was is not None else frozenset())
            if gained:
                marks = " and ".join(m.label for m in sorted(gained))
                found[u.id] = Step(f"{u.name} is revealed: it fired ({marks})", rule=rule, units=(u.id,))
    if tables.value(MOVING_REVEALS):
        rule = cited(tables, MOVING_REVEALS)
        open_in = float(tables.value(OPEN_IN))
        for u in hidden:
            was = before.units.get(u.id)
            if u.id in found or was is None or (was.x, was.y, was.facing_deg) == (u.x, u.y, u.facing_deg):
                continue
            near = _nearest_in_sight(after, u, open_in, tables)
            if near is None and was.in_play:
                near = _nearest_in_sight(before, was, open_in, tables)
            if near is not None:
                v, d = near
                found[u.id] = Step(
                    f'{u.name} is revealed: it moved in sight of {v.name} ({d:.1f}" away)',
                    rule=rule,
                    units=(u.id, v.id),
                )
    hidden_in = float(tables.value(HIDDEN_IN))
    rule = cited(tables, HIDDEN_IN)
    for u in hidden:
        if u.id in found:
            continue
        near = _nearest_in_sight(after, u, hidden_in, tables)
        if near is not None:
            v, d = near
            found[u.id] = Step(
                f'{u.name} is revealed: spotted by {v.name}, {d:.1f}" away with a clear line of sight '
                f'(a hidden unit is spotted within {hidden_in:g}")',
                rule=rule,
                units=(u.id, v.id),
            )
    if not found:
        return out
    battle = after.with_units(*(replace(after.units[uid], hidden=False) for uid in found))
    names = "; ".join(f"{after.units[uid].name} is revealed" for uid in found)
    summary = f"{out.summary}; {names}" if out.summary else names
    return replace(out, battle_after=battle, steps=[*out.steps, *found.values()], summary=summary)
