"""Phase 3's items of the checklist (:mod:`rules.turn.checklist`): each unit of the side to act that
may still fire, with its best target (:func:`best_target`).

A battle of a club's size has dozens of firers, each asking the rules of sight and target priority
about the enemies in front of it. Each firer's answer is kept (:class:`_FireMemo`) by the states
of the units it depends on: the enemies it faces (in its forward arc and range) and whatever could
stand between it and them, so that a step asks again only about the firers whose answer it may
change. The answers are worked out a firer at a time (:func:`ranged_items` pauses after each one
it had to work out), so that a window can paint between them.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from rules.battle.battle import Battle
from rules.battle.order_of_battle import OrderOfBattle
from rules.battle.words import Marker
from rules.errors import RulesError
from rules.tables import RuleTables
from rules.turn.items import Item, ItemKind


def best_target(
    battle: Battle, firer_id: str, tables: RuleTables, legal: Sequence[Any] | None = None
) -> tuple[Any, int] | None:
    """The firer's best legal target now (a :class:`rules.legality.Legal`) and how many it may
    choose from, or None if it has none: the only one, or where it may choose (enfilade, a battery
    passing over skirmishers) the one its volley would cost most stands by the exact odds.
    ``legal``: the targets it may fire on, when they are known already (else they are asked of
    :func:`rules.legality.shoot_targets`)."""
    from rules.legality import allowed, shoot_targets
    from rules.shooting.shoot import measure_volley
    from rules.shooting.volley_odds import volley_odds

    if legal is None:
        legal = allowed(shoot_targets(battle, firer_id, tables))
    if not legal:
        return None
    if len(legal) == 1:
        return legal[0], 1
    best, best_score = legal[0], None
    for o in legal:
        try:
            # (each is one the rules allowed just now: its arc and priority are not asked again)
            volley = measure_volley(battle, firer_id, o.unit_id, tables, chosen=True)
            odds = volley_odds(battle, volley, tables)
        except RulesError:
            continue
        score = (odds.expected_stands_lost, odds.disorder, -(o.distance_in or 0.0))
        if best_score is None or score > best_score:
            best, best_score = o, score
    return best, len(legal)


def _reach(u: Any, tables: RuleTables) -> float:
    """The farthest a unit's volley carries (its weapon's or guns' maximum range), 0 if none."""
    key = u.gun.value if u.gun is not None else u.weapon.value
    full = f"shooting.max_range.{key}"
    return float(tables.value(full)) if full in tables else 0.0


def near_battle(battle: Battle, firer: Any, around: Sequence[Any]) -> Battle:
    """The battle with only the firer and the units ``around`` it (with the parent regiments of
    any screens among them): what its volley's legality depends on, when ``around`` holds every
    unit within its reach. An enemy beyond its range is never a target and never the closest one,
    and whatever stands in the way of a shot stands within its range (RULE-03-4.1, RULE-03-4.2, RULE-03-4.3, RULE-03-4.4, RULE-03-4.5, RULE-03-5.1, RULE-03-5.2, RULE-03-5.3, RULE-03-5.4, RULE-03-5.5, RULE-03-5.6, RULE-03-5.7).
    Each firer of a big battle is thus asked about a few units instead of all of them."""
    keep = {firer.id: firer, **{v.id: v for v in around}}
    for v in list(keep.values()):
        if v.parent and v.parent not in keep and v.parent in battle.units:
            keep[v.parent] = battle.units[v.parent]
    brigades = {
        bid: b
        if b.brigadier.attached_to is None or b.brigadier.attached_to in keep
        else replace(b, brigadier=replace(b.brigadier, attached_to=None))
        for bid, b in battle.brigades.items()
    }
    oob = OrderOfBattle(sides=battle.oob.sides, brigades=brigades, units=keep)
    return replace(battle, oob=oob)


#: The markers that change nothing of a unit standing in the way of another unit of its side's
#: volley: its own fire, smoke, disorder and pins are its own (the ground it covers, a garrison and
#: a refused flank are not left out).
_NOT_IN_THE_WAY = frozenset({Marker.FIRED, Marker.SMOKE, Marker.DISORDER, Marker.PINNED})


class _FireMemo:
    """The best targets found, kept while the terrain and the tables stay the same objects.

    What a volley may do depends only on the firer, the terrain and the units near enough to be
    in its range or to stand in its way: the key is the firer and every unit whose footprint comes
    within its reach. A march or a volley far away leaves the answer where it was.

    Each state of a unit met is given a number (``numbers``), so that a key is made of numbers:
    a unit is compared with the states met once a query, not once for every firer near it."""

    def __init__(self) -> None:
        self.terrain: Any = None
        self.tables: Any = None
        self.found: dict[Any, Any] = {}
        self.numbers: dict[Any, int] = {}
        # the number of each unit object met (a step leaves most units the same objects): a unit
        # is hashed and compared once, when it is first met, not at every query
        self.by_object: dict[int, tuple[Any, int]] = {}
        self.extents: dict[int, float] = {}  # how far each unit's footprint reaches, by its number
        # whether each unit can fire a volley, and how far it reaches (by its state's number)
        self.able: dict[int, tuple[bool, float]] = {}
        # the targets a firer may fire on, for the states of the units around it with their
        # micro-hits left out (which targets are legal, and where they stand, does not depend on
        # micro-hits: a ruling on them asks only which target is best); and each state's number
        # with no micro-hits
        self.legal: dict[Any, Any] = {}
        self.plain: dict[int, int] = {}
        self.shape: dict[int, int] = {}  # each state's number with no micro-hits nor markers
        # whether a firer's state faces an enemy's state (in its arc and range), and the ground
        # between a firer and the enemies it faces (by the states' numbers)
        self.facing: dict[tuple[int, int], bool] = {}
        self.regions: dict[tuple[int, tuple[int, ...]], Any] = {}
        # the items of each whole state asked about (the side to act and every unit's state, in
        # the order of battle), the latest last: an undo and the redo after it ask again of the
        # states they pass through
        self.whole: dict[tuple, tuple] = {}

    def clear(self) -> None:
        """Forget everything kept (the next query is asked afresh)."""
        self.terrain = self.tables = None
        self.found, self.numbers, self.by_object, self.extents, self.able = {}, {}, {}, {}, {}
        self.legal, self.plain, self.whole, self.shape = {}, {}, {}, {}
        self.facing, self.regions = {}, {}

    def get(self, battle: Battle, tables: RuleTables) -> dict[Any, Any]:
        if (
            battle.terrain is not self.terrain
            or tables is not self.tables
            or len(self.found) > 20000
            or len(self.numbers) > 20000
            or len(self.by_object) > 40000
            or len(self.legal) > 20000
            or len(self.facing) > 200000
            or len(self.regions) > 20000
        ):
            self.terrain, self.tables, self.found = battle.terrain, tables, {}
            self.numbers, self.by_object, self.extents, self.able = {}, {}, {}, {}
            self.legal, self.plain, self.whole, self.shape = {}, {}, {}, {}
            self.facing, self.regions = {}, {}
        return self.found

    def plain_number(self, unit: Any, k: int) -> int:
        """The number of the state ``k`` of a unit with its micro-hits left out."""
        p = self.plain.get(k)
        if p is None:
            p = self.plain[k] = self.number(replace(unit, micro_hits=0)) if unit.micro_hits else k
        return p

    def shape_number(self, unit: Any, k: int) -> int:
        """The number of the state ``k`` of a unit with its micro-hits and markers left out: what
        another unit of its side firing past it asks of it (its place, facing, formation and
        stands: the ground it covers, RULE-03-5.3, RULE-03-4.5)."""
        p = self.shape.get(k)
        if p is None:
            bare = replace(unit, micro_hits=0, markers=unit.markers - _NOT_IN_THE_WAY)
            p = self.shape[k] = self.number(bare) if bare != unit else k
        return p

    def number(self, unit: Any) -> int:
        """The number of this state of a unit (the same for an equal unit)."""
        known = self.by_object.get(id(unit))
        if known is not None and known[0] is unit:
            return known[1]
        k = self.numbers.setdefault(unit, len(self.numbers))
        self.by_object[id(unit)] = (unit, k)  # (the unit is kept, so its id is not reused)
        return k


_FIRE_MEMO = _FireMemo()


#: How many whole states' Phase 3 items are kept (:class:`_FireMemo`): a game turn's steps and more.
WHOLE_STATES_KEPT = 256


def ranged_items(battle: Battle, tables: RuleTables) -> Generator[None, None, list[Item]]:
    """Phase 3's items, pausing after each firer whose answer had to be worked out."""
    memo = _FIRE_MEMO.get(battle, tables)
    units = battle.oob.in_play()
    numbers = [_FIRE_MEMO.number(v) for v in units]
    side = battle.active_side
    whole_key = (side, tuple(numbers))
    known = _FIRE_MEMO.whole.pop(whole_key, None)
    if known is not None:  # a state asked about before (an undo, then the redo after it)
        _FIRE_MEMO.whole[whole_key] = known
        return list(known)
    out = yield from _ranged_state_items(battle, tables, memo, units, numbers)
    _FIRE_MEMO.whole[whole_key] = tuple(out)
    while len(_FIRE_MEMO.whole) > WHOLE_STATES_KEPT:
        del _FIRE_MEMO.whole[next(iter(_FIRE_MEMO.whole))]
    return out


def _ranged_state_items(
    battle: Battle, tables: RuleTables, memo: dict[Any, Any], units: list[Any], numbers: list[int]
) -> Generator[None, None, list[Item]]:
    """:func:`_ranged_items` of a state not asked about before (its firers' answers kept),
    pausing after each firer whose answer had to be worked out."""
    import numpy as np
    import shapely

    from rules.battlefield.geometry import footprint
    from rules.legality import allowed, may_fire, shoot_targets

    extents = _FIRE_MEMO.extents
    extent = []
    for u, k in zip(units, numbers, strict=True):  # how far a unit's footprint reaches from where it stands
        e = extents.get(k)
        if e is None:
            poly = footprint(u, tables).polygon
            e = max(((px - u.x) ** 2 + (py - u.y) ** 2) ** 0.5 for px, py in poly.exterior.coords)
            extents[k] = e
        extent.append(e)
    widest = max(extent, default=0.0)
    # the units of the side to act that may fire their volley now (:func:`rules.legality.may_fire`,
    # asked in its side's Phase 3, which this is), each unit's answer kept for its state
    side = battle.active_side
    rows = []  # the index in units of each firer
    reach = []  # how far each firer's volley carries from its place (its range and its extent)
    for i, (u, k) in enumerate(zip(units, numbers, strict=True)):
        if u.side != side:
            continue
        able = _FIRE_MEMO.able.get(k)
        if able is None:
            able = _FIRE_MEMO.able[k] = (
                may_fire(battle, u.id, tables) is None,
                _reach(u, tables) + extent[i],
            )
        if able[0]:
            rows.append(i)
            reach.append(able[1])
    if not rows:
        return []
    yield  # (a pause before the firers' questions: whether each may fire has been asked)
    # every unit's distance from every firer at once; those within a firer's reach in the order of battle
    sides = {s: n for n, s in enumerate(dict.fromkeys(v.side for v in units))}
    xs = np.array([v.x for v in units], dtype=float)
    ys = np.array([v.y for v in units], dtype=float)
    side_of = np.array([sides[v.side] for v in units])
    at = np.array(rows)
    reaches = np.array(reach, dtype=float) + widest + 0.5
    within_all = (xs - xs[at][:, None]) ** 2 + (ys - ys[at][:, None]) ** 2 <= (reaches**2)[:, None]
    within_all[np.arange(len(rows)), at] = False  # (a firer is not around itself)
    # no enemy within its range: no target (the rules would refuse each one)
    enemy_near = (within_all & (side_of != side_of[at][:, None])).any(axis=1)
    # the key of each firer's question: its own state and those of the units around it, in the
    # order of battle (the bytes of their numbers); what is kept is the item it makes (or None)
    nums = np.array(numbers, dtype=np.int64)
    points = shapely.points(xs, ys)
    extent_of = np.array(extent, dtype=float)
    index_of = {v.id: j for j, v in enumerate(units)}
    out = []
    for row in np.flatnonzero(enemy_near).tolist():
        i = rows[row]
        u = units[i]
        near = _facing(u, numbers[i], within_all[row], numbers, points, extent_of, index_of, units, tables)
        key = (numbers[i], nums[near].tobytes())
        item = memo.get(key, memo)
        if item is memo:
            js = np.flatnonzero(near).tolist()
            around = [units[j] for j in js]
            local = near_battle(battle, u, around)
            # the firer's own units around it count by their shape alone (where they stand and
            # what ground they cover: they can only stand in the way); the enemy by all but
            # their micro-hits
            plain = (
                _FIRE_MEMO.plain_number(u, numbers[i]),
                tuple(
                    _FIRE_MEMO.shape_number(units[j], numbers[j])
                    if units[j].side == u.side
                    else _FIRE_MEMO.plain_number(units[j], numbers[j])
                    for j in js
                ),
            )
            legal = _FIRE_MEMO.legal.get(plain)
            if legal is None:
                legal = _FIRE_MEMO.legal[plain] = allowed(shoot_targets(local, u.id, tables))
            item = memo[key] = _fire_item(battle, u, best_target(local, u.id, tables, legal))
            yield
        if item is not None:
            out.append(item)
    return out


def _facing(
    u: Any,
    k: int,
    near: Any,
    numbers: Sequence[int],
    points: Any,
    extent: Any,
    index_of: Mapping[str, int],
    units: Sequence[Any],
    tables: RuleTables,
) -> Any:
    """Of the units ``near`` a firer (a mask over ``units``), those its volley's legality depends
    on: the enemies in its forward arc and in range (RULE-03-5.1, RULE-03-5.2), the only ones it
    may fire at or must pass over, and every unit that could stand between it and one of them
    (within the convex hull of its footprint and theirs: what its lines of sight cross,
    RULE-03-5.3, RULE-03-4.5). A garrison fires all round (RULE-03-3.1): every unit near it
    counts. The parent regiment of a screen that counts counts too (the battle asked about holds
    it). What is worked out is kept by the states' numbers."""
    import numpy as np
    import shapely

    from rules.battlefield.geometry import distance_in, footprint, in_forward_arc

    if Marker.GARRISONED in u.markers:
        return near
    memo = _FIRE_MEMO
    fp = footprint(u, tables)
    reach = _reach(u, tables) + 0.01
    js = np.flatnonzero(near).tolist()
    targets = []
    for j in js:
        v = units[j]
        if v.side == u.side:
            continue
        pair = (k, numbers[j])
        facing = memo.facing.get(pair)
        if facing is None:
            other = footprint(v, tables)
            facing = memo.facing[pair] = distance_in(fp, other, tables) <= reach and in_forward_arc(
                fp, other, tables
            )
        if facing:
            targets.append(j)
    out = np.zeros_like(near)
    if not targets:
        return out  # no enemy it could fire at: nothing else matters
    key = (k, tuple(numbers[j] for j in targets))
    region = memo.regions.get(key)
    if region is None:
        ground = [fp.polygon, *(footprint(units[j], tables).polygon for j in targets)]
        region = memo.regions[key] = shapely.convex_hull(shapely.union_all(ground))
        shapely.prepare(region)
    out[js] = shapely.dwithin(region, points[js], extent[js] + 0.01)
    out[targets] = True
    for j in np.flatnonzero(out).tolist():
        parent = units[j].parent
        if parent and parent in index_of:
            out[index_of[parent]] = True
    return out


def _fire_item(battle: Battle, u: Any, found: tuple[Any, int] | None) -> Item | None:
    """The item of a firer that may still fire at its best target (None: it has none)."""
    if found is None:
        return None
    target, n = found
    t = battle.unit(target.unit_id)
    dist = f' at {target.distance_in:.1f}"' if target.distance_in is not None else ""
    more = f" (of {n} it may fire on)" if n > 1 else ""
    return Item(
        ItemKind.FIRE.value,
        battle.phase.value,
        f"{u.name} may still fire: best target {t.name}{dist}{more}",
        target.rule or "RULE-03-5.6",
        u.id,
        u.brigade,
        other_id=t.id,
    )


__all__ = ["WHOLE_STATES_KEPT", "best_target", "near_battle", "ranged_items"]
