"""The phase checklist: what is still open in the current phase, each item with its rule.

Over thirty turns an umpire forgets who has not yet moved or fired; the rules know. This module
asks the legality questions of :mod:`rules.legality` (who may still march, who may still fire and
at what, the melees pending in :mod:`rules.melee.melee`) and lists what is left of the phase:

* **Phase 1 (Command).** Brigades whose Brigadier has been lost: their Staff Pips are the umpire's
  to set (the Leader Loss table is chapter 07's, not here); units Disordered or Pinned, whose
  rallying is the umpire's ruling.
* **Phase 2 (Active Maneuver & Assault).** Each unit of the side to act that may still march
  (:func:`rules.legality.march_refusal`) and has not moved this turn; the enemy's reserved Staff Pips
  not spent, which serve only the reactions of this phase (RULE-04-1.3) and lapse at the end of the
  turn.
* **Phase 3 (Ranged Combat).** Each unit that may still fire (:func:`rules.legality.shoot_firers`)
  and has a legal target, with its best one (:func:`rules.legality.shoot_targets`; where it may
  choose, the target it would hurt most by the exact odds of :func:`rules.shooting.volley_odds.volley_odds`).
* **Phase 4 (Assault & Melee Resolution).** The melees due (:func:`rules.melee.melee.due_melees`), which
  block the end of the phase (RULE-06-1.1); the Leader Loss rolls owed after them (a stand lost in
  the approach with the Brigadier attached, chapter 06 Example 1); a Tactical Breakthrough whose
  Sweeping Advance (RULE-06-4.5) is still open.

Every Discipline Check of chapters 03, 04 and 06 (a column crossing a stone wall, RULE-03-2.2; the
pre-contact check, RULE-06-2.4; a commanded reaction without a reserved pip, RULE-04-1.3) is taken
by the procedure of play inside the step that calls for it, so none can be left owing at the end
of a phase: the checks the program leaves owing are the Leader Loss rolls of pending melees.

The query is pure: :func:`checklist` of a battle (and, for Phase 2, the battle as the phase began,
which tells a unit that charged, changed formation or was placed from one that did nothing), and
:func:`left_open` for what Next phase or End turn would leave undone, phase by phase through the
rest of the side's turn. :class:`LeftUndone` is the action that records the items the umpire chose
to leave, committed in the same step as the phase change.

>>> from rules.battle.battle import Battle
>>> from rules.battle.order_of_battle import Brigade, Brigadier, OrderOfBattle, Side
>>> from rules.battle.unit import Unit
>>> from rules.battle.words import Phase, UnitKind
>>> from rules.tables import load_tables
>>> def regiment(uid, name, side, y, facing):
...     return Unit(id=uid, name=name, side=side, brigade=side[0] + "b", kind=UnitKind.INFANTRY,
...                 stands=5, stands_start=5, x=30.0, y=y, facing_deg=facing)
>>> oob = OrderOfBattle(
...     sides=(Side("union", "Union"), Side("csa", "Confederacy")),
...     brigades={"ub": Brigade("ub", "Iron Brigade", "union", Brigadier("Meredith")),
...               "cb": Brigade("cb", "Stonewall Brigade", "csa", Brigadier("Garnett"))},
...     units={u.id: u for u in (regiment("wis2", "2nd Wisconsin", "union", 20.0, 0.0),
...                              regiment("va4", "4th Virginia", "csa", 12.0, 180.0))})
>>> battle = Battle("duel", oob, active_side="union", phase=Phase.MANEUVER)
>>> for item in checklist(battle, load_tables()):
...     print(item.unit_id, item)
wis2 2nd Wisconsin has not moved: 6" of march in line (RULE-03-2.5)
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rules.action_base import Action, Resolved, action_type, resolver
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.order_of_battle import OrderOfBattle
from rules.battle.words import BrigadierStatus, Marker, Phase, StrEnum, plural
from rules.battlefield.marches import movement_record
from rules.dice import DiceSource
from rules.errors import IllegalAction, RulesError
from rules.tables import RuleTables


class ItemKind(StrEnum):
    """What an item of the checklist asks of the umpire."""

    MOVE = "move"  # Phase 2: a unit of the side to act that has not moved
    FIRE = "fire"  # Phase 3: a unit that could still fire, with its best target
    MELEE = "melee"  # Phase 4: a melee due (it blocks the end of the phase)
    CHECK = "check"  # a roll owed: the Leader Loss roll after a melee
    RESERVED_PIPS = "reserved_pips"  # reserved Staff Pips not spent
    UMPIRE = "umpire"  # a unit or brigade needing the umpire's ruling


@dataclass(frozen=True)
class Item:
    """One thing still open in a phase: what it is (``kind``), the phase it belongs to, the words
    and the rule, the unit it concerns (``unit_id``; a brigade's item names a unit of it, and the
    brigade in ``brigade_id``), the other unit where there is one (the best target, the melee's
    defender), and whether it stops the phase from ending (``blocks``: a melee due in Phase 4)."""

    kind: str
    phase: str
    text: str
    rule: str | None = None
    unit_id: str | None = None
    brigade_id: str | None = None
    other_id: str | None = None
    melee_id: str | None = None
    blocks: bool = False

    def __str__(self) -> str:
        return self.text + (f" ({self.rule})" if self.rule else "")

    @property
    def key(self) -> str:
        """What identifies the item while it stays open (for a view that ticks items off)."""
        return ":".join((self.phase, self.kind, self.melee_id or self.unit_id or self.brigade_id or ""))

    @property
    def units(self) -> tuple[str, ...]:
        """The units to select for this item: its unit and the other one."""
        return tuple(u for u in (self.unit_id, self.other_id) if u)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "phase": self.phase, "text": self.text}
        for name in ("rule", "unit_id", "brigade_id", "other_id", "melee_id"):
            if getattr(self, name):
                d[name] = getattr(self, name)
        if self.blocks:
            d["blocks"] = True
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Item:
        if not isinstance(d, Mapping):
            raise IllegalAction("an item left undone must be a table of values")
        for need in ("kind", "phase", "text"):
            if not isinstance(d.get(need), str) or not d.get(need):
                raise IllegalAction(f"an item left undone needs its {need}")
        unknown = set(d) - {
            "kind",
            "phase",
            "text",
            "rule",
            "unit_id",
            "brigade_id",
            "other_id",
            "melee_id",
            "blocks",
        }
        if unknown:
            raise IllegalAction(f"an item left undone has no value {', '.join(sorted(map(str, unknown)))}")
        opt = {}
        for name in ("rule", "unit_id", "brigade_id", "other_id", "melee_id"):
            v = d.get(name)
            if v is not None and not isinstance(v, str):
                raise IllegalAction(f"an item left undone's {name.replace('_', ' ')} must be text, not {v!r}")
            opt[name] = v
        return cls(d["kind"], d["phase"], d["text"], blocks=bool(d.get("blocks", False)), **opt)


# -- the query ---------------------------------------------------------------------------------------


def checklist(battle: Battle, tables: RuleTables, since: Battle | None = None) -> tuple[Item, ...]:
    """What is still open in the battle's current phase, in the order of battle.

    ``since`` is the battle as the phase began (the journal knows it): a unit whose place, facing
    or formation changed since then has acted in Phase 2 even without a march (a charge, a change
    of formation, the umpire's placement). Without it only the march record counts.
    """
    work = ChecklistWork(battle, tables, since)
    work.work(None)
    return work.items or ()


def _checklist_steps(
    battle: Battle, tables: RuleTables, since: Battle | None
) -> Generator[None, None, tuple[Item, ...]]:
    """:func:`checklist`, pausing after each question that had to be worked out (a firer's targets
    in Phase 3); its items are the generator's return value."""
    phase = battle.phase
    if phase == Phase.COMMAND:
        return tuple(_command_items(battle, tables))
    if phase == Phase.MANEUVER:
        return tuple(_maneuver_items(battle, tables, since))
    if phase == Phase.RANGED:
        return tuple((yield from _ranged_items(battle, tables)))
    if phase == Phase.MELEE:
        return tuple(_melee_items(battle, tables))
    return ()


class ChecklistWork:
    """The checklist of a battle worked out a piece at a time, for a window that must not wait on
    it: :meth:`work` for a while, then again, until :attr:`items` is known. What each piece found
    is kept (the firers' answers of Phase 3), so a new battle's work started after an unfinished
    one does not do those pieces again. The items are those :func:`checklist` gives."""

    def __init__(self, battle: Battle, tables: RuleTables, since: Battle | None = None):
        self._steps = _checklist_steps(battle, tables, since)
        self.items: tuple[Item, ...] | None = None

    @property
    def done(self) -> bool:
        return self.items is not None

    def work(self, seconds: float | None) -> bool:
        """Work for about ``seconds`` (None: to the end); True once the items are known."""
        import time

        if self.items is not None:
            return True
        end = None if seconds is None else time.perf_counter() + seconds
        try:
            while True:
                next(self._steps)
                if end is not None and time.perf_counter() >= end:
                    return False
        except StopIteration as stop:
            self.items = stop.value
            return True


def left_open(
    battle: Battle, tables: RuleTables, *, end_turn: bool = False, since: Battle | None = None
) -> tuple[Item, ...]:
    """What going on leaves undone: the items of the current phase (Next phase) or, for End turn,
    of every phase left in the side's turn, each as it will stand when it is reached
    (:func:`rules.turn.sequence.next_phase`). A phase the turn cannot leave (a melee due in Phase 4) ends
    the list: its blocking items are in it."""
    from rules.turn.sequence import next_phase

    items = list(checklist(battle, tables, since))
    if not end_turn:
        return tuple(items)
    side, b = battle.active_side, battle
    while b.phase != Phase.END and not any(i.blocks for i in items):
        try:
            b, _ = next_phase(b, tables)
        except RulesError:
            break
        if b.active_side != side:
            break
        items += checklist(b, tables)
    return tuple(items)


def blocking(items: Sequence[Item]) -> list[Item]:
    """The items that stop the phase from ending (RULE-06-1.1: a melee due in Phase 4)."""
    return [i for i in items if i.blocks]


# -- Phase 1 -------------------------------------------------------------------------------------


def _brigade_unit(battle: Battle, brigade_id: str) -> str | None:
    """The unit a brigade's item names: the Brigadier's regiment, or its first unit in play."""
    b = battle.brigades[brigade_id]
    att = b.brigadier.attached_to
    if att and att in battle.units and battle.units[att].in_play:
        return att
    for u in battle.oob.units_of_brigade(brigade_id):
        if u.in_play:
            return u.id
    return None


def _umpire_units(battle: Battle) -> list[Item]:
    out = []
    phase = battle.phase.value
    for u in battle.oob.in_play(battle.active_side):
        if u.has(Marker.DISORDER):
            out.append(
                Item(
                    ItemKind.UMPIRE.value,
                    phase,
                    f"{u.name} is Disordered: it cannot declare a charge; rallying it is the umpire's "
                    "ruling (chapter 07, not here)",
                    "RULE-06-1.3",
                    u.id,
                    u.brigade,
                )
            )
        if u.has(Marker.PINNED):
            out.append(
                Item(
                    ItemKind.UMPIRE.value,
                    phase,
                    f"{u.name} is Pinned: it cannot evade; lifting it is the umpire's ruling",
                    "RULE-04-4.2",
                    u.id,
                    u.brigade,
                )
            )
    return out


def _command_items(battle: Battle, tables: RuleTables) -> list[Item]:
    out = []
    e = tables.entry("command.staff_pips.per_brigade_per_turn")
    for b in battle.oob.brigades_of(battle.active_side):
        status = b.brigadier.status
        if status == BrigadierStatus.ACTIVE or not battle.oob.stands(brigade=b.id):
            continue
        out.append(
            Item(
                ItemKind.UMPIRE.value,
                battle.phase.value,
                f"{b.name} has lost its Brigadier ({b.brigadier.name or 'unnamed'}, {status.value}): "
                f"its Staff Pips ({b.staff_pips} now) are the umpire's to set by an override, the "
                "Leader Loss table being chapter 07's",
                e.citation,
                _brigade_unit(battle, b.id),
                b.id,
            )
        )
    return out + _umpire_units(battle)


# -- Phase 2 -------------------------------------------------------------------------------------


def has_moved(battle: Battle, unit_id: str, since: Battle | None = None) -> bool:
    """Whether the unit has moved this turn: it has marched (or turned) under the movement rules, or
    (given the battle as the phase began) its place, facing or formation has changed since."""
    if movement_record(battle, unit_id):
        return True
    if since is None:
        return False
    before, now = since.units.get(unit_id), battle.units.get(unit_id)
    if before is None or now is None:
        return False
    return (before.x, before.y, before.facing_deg, before.formation) != (
        now.x,
        now.y,
        now.facing_deg,
        now.formation,
    )


def _maneuver_items(battle: Battle, tables: RuleTables, since: Battle | None) -> list[Item]:
    from rules.battlefield.marches import remaining_move_in
    from rules.legality import march_refusal

    out = []
    phase = battle.phase.value
    for u in battle.oob.in_play(battle.active_side):
        if u.has(Marker.ENGAGED):
            continue  # locked in melee: its item is the melee, in Phase 4
        if march_refusal(battle, u.id, tables) is not None or has_moved(battle, u.id, since):
            continue
        rate = tables.entry(f"movement.rate.{u.formation.value}")
        left = remaining_move_in(battle, u.id, tables)
        out.append(
            Item(
                ItemKind.MOVE.value,
                phase,
                f'{u.name} has not moved: {left:g}" of march in {u.formation.label.lower()}',
                rate.citation,
                u.id,
                u.brigade,
            )
        )
    enemy = battle.oob.enemy_of(battle.active_side)
    for b in battle.oob.brigades_of(enemy):
        if b.staff_pips_reserved < 1:
            continue
        side = battle.oob.side(battle.active_side).name
        out.append(
            Item(
                ItemKind.RESERVED_PIPS.value,
                phase,
                f"{b.brigadier.name or b.name} ({b.name}): "
                f"{plural(b.staff_pips_reserved, 'reserved Staff Pip')} unspent; "
                f"{'they lapse' if b.staff_pips_reserved != 1 else 'it lapses'} at the end of the {side} turn",
                "RULE-04-1.3",
                _brigade_unit(battle, b.id),
                b.id,
            )
        )
    return out


# -- Phase 3 -------------------------------------------------------------------------------------


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


def _ranged_items(battle: Battle, tables: RuleTables) -> Generator[None, None, list[Item]]:
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
            facing = memo.facing[pair] = distance_in(fp, other, tables) <= reach and in_forward_arc(fp, other, tables)
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


# -- Phase 4 -------------------------------------------------------------------------------------


def _melee_items(battle: Battle, tables: RuleTables) -> list[Item]:
    from rules.melee.melee import breakthrough_unit, describe_melee, due_melees

    out = []
    phase = battle.phase.value
    for m in due_melees(battle):
        a = battle.units.get(m.attacker)
        out.append(
            Item(
                ItemKind.MELEE.value,
                phase,
                f"Melee to resolve: {describe_melee(battle, m)}",
                "RULE-06-1.1",
                m.attacker,
                a.brigade if a is not None else None,
                other_id=m.defender,
                melee_id=m.id,
                blocks=True,
            )
        )
        for uid in (m.attacker, m.defender):
            lost = m.stands_lost.get(uid, 0)
            u = battle.units.get(uid)
            if not lost or u is None or not u.in_play or not battle.oob.has_attached_brigadier(uid):
                continue
            who = battle.brigade_of(uid).brigadier.name or "the Brigadier"
            e = tables.entry("melee.leader_loss.wounded")
            out.append(
                Item(
                    ItemKind.CHECK.value,
                    phase,
                    f"{who}'s Leader Loss roll is owed: {u.name} lost {plural(lost, 'stand')} in the "
                    "approach with him attached; it is rolled after the melee",
                    e.citation,
                    uid,
                    u.brigade,
                    melee_id=m.id,
                )
            )
    victor = breakthrough_unit(battle)
    if victor is not None and victor in battle.units and battle.units[victor].in_play:
        u = battle.units[victor]
        b = battle.brigade_of(u)
        cost = int(tables.value("command.staff_pips.cost_of_sweeping_advance"))
        if b.staff_pips >= cost:
            dist = float(tables.value("melee.outcome.sweeping_advance_in"))
            out.append(
                Item(
                    ItemKind.UMPIRE.value,
                    phase,
                    f"{u.name} broke through: a Sweeping Advance ({plural(cost, 'Staff Pip')}, "
                    f'{dist:g}" straight forward) is still open to it',
                    "RULE-06-4.5",
                    u.id,
                    u.brigade,
                )
            )
    return out


# -- the record of what was left undone ----------------------------------------------------------


@action_type("left_undone")
@dataclass(frozen=True)
class LeftUndone(Action):
    """The items of the checklist the umpire chose to leave when the phase ended (Next phase or
    End turn), committed with the phase change as one step: the log and the turn summary say what
    was skipped. It changes nothing in the battle. ``items`` are :meth:`Item.to_dict` tables."""

    items: tuple[Mapping[str, Any], ...] = ()

    def left(self) -> list[Item]:
        if not isinstance(self.items, (tuple, list)):
            raise IllegalAction("the items left undone must be a list")
        return [Item.from_dict(d) for d in self.items]

    @classmethod
    def of(cls, items: Sequence[Item]) -> LeftUndone:
        return cls(tuple(i.to_dict() for i in items))


@resolver(LeftUndone)
def _resolve_left_undone(battle: Battle, a: LeftUndone, dice: DiceSource, tables: RuleTables) -> Resolved:
    items = a.left()
    if not items:
        raise IllegalAction("nothing was left undone to record")
    steps = []
    for i in items:
        title = Phase.title_of(i.phase)
        steps.append(
            Step(
                f"Left undone ({title}): {i.text}",
                rule=i.rule,
                units=tuple(u for u in i.units if u in battle.units),
            )
        )
    phases = list(dict.fromkeys(Phase.title_of(i.phase) for i in items))
    summary = f"Left undone: {plural(len(items), 'item')} of {', '.join(phases)}"
    return Resolved(battle, steps, summary)


__all__ = [
    "Item",
    "ItemKind",
    "LeftUndone",
    "best_target",
    "blocking",
    "checklist",
    "has_moved",
    "left_open",
]
