"""The order of battle: two sides, their brigades with their Brigadier and Staff Pips, and their
units, with the checks between them (every brigade on a side of the battle, every unit in a brigade
of its own side, a Brigadier attached only to a unit of his brigade, no circle of parent regiments).

The unit itself is in :mod:`rules.battle.unit` (with the conventions of lengths, coordinates and
facings used everywhere), the words of the order of battle in :mod:`rules.battle.words`. All objects
here are frozen: a change makes a new object (``dataclasses.replace``).

    >>> oob = OrderOfBattle((Side("union", "Army of the Potomac"), Side("csa", "Army of Northern Virginia")))
    >>> oob.enemy_of("union")
    'csa'
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rules import limits
from rules.battle.unit import Unit, read_whole, read_word
from rules.battle.words import BrigadeState, BrigadierStatus
from rules.errors import InvariantError


@dataclass(frozen=True)
class Brigadier:
    name: str
    attached_to: str | None = None  # id of the regiment whose colour stand he is attached to
    status: BrigadierStatus = BrigadierStatus.ACTIVE

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "attached_to": self.attached_to, "status": self.status.value}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Brigadier:
        if not isinstance(d, Mapping):
            raise InvariantError(f"a Brigadier must be a table of values, not {limits._show(d)}")
        return cls(
            name=read_word(d.get("name", "") or "", "a Brigadier's name"),
            attached_to=read_word(d["attached_to"], "attached_to") if d.get("attached_to") else None,
            status=BrigadierStatus.parse(read_word(d.get("status", "active"), "a Brigadier's status")),
        )


@dataclass(frozen=True)
class Brigade:
    """A brigade: its Brigadier, its Staff Pip pool and its state."""

    id: str
    name: str
    side: str
    brigadier: Brigadier
    staff_pips: int = 0  # available this turn
    staff_pips_reserved: int = 0  # reserved for reactions this turn (RULE-04-1.3)
    state: BrigadeState = BrigadeState.STEADY

    def __post_init__(self) -> None:
        for what in ("staff_pips", "staff_pips_reserved"):
            v = getattr(self, what)
            if isinstance(v, bool) or not isinstance(v, int):
                raise InvariantError(
                    f"{self.name}: {what.replace('_', ' ')} must be a whole number, not {v!r}"
                )
            if v < 0:
                raise InvariantError(f"{self.name}: {what.replace('_', ' ')} cannot be negative ({v})")
            if v > limits.STAFF_PIPS.hi:
                raise InvariantError(
                    f"{self.name}: {what.replace('_', ' ')} must be {limits.STAFF_PIPS.text()}, "
                    f"not {limits._show(v)}"
                )

    @property
    def can_assault(self) -> bool:
        """Hesitant or Broken brigades cannot declare assaults (RULE-06-1.2)."""
        return self.state == BrigadeState.STEADY

    def spend_pip(self) -> Brigade:
        if self.staff_pips < 1:
            raise InvariantError(f"{self.brigadier.name or self.name} has no Staff Pip to spend")
        return replace(self, staff_pips=self.staff_pips - 1)

    def reserve_pip(self) -> Brigade:
        if self.staff_pips < 1:
            raise InvariantError(f"{self.brigadier.name or self.name} has no Staff Pip to reserve")
        return replace(self, staff_pips=self.staff_pips - 1, staff_pips_reserved=self.staff_pips_reserved + 1)

    def spend_reserved_pip(self) -> Brigade:
        if self.staff_pips_reserved < 1:
            raise InvariantError(f"{self.brigadier.name or self.name} has no reserved Staff Pip")
        return replace(self, staff_pips_reserved=self.staff_pips_reserved - 1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "side": self.side,
            "brigadier": self.brigadier.to_dict(),
            "staff_pips": self.staff_pips,
            "staff_pips_reserved": self.staff_pips_reserved,
            "state": self.state.value,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Brigade:
        if not isinstance(d, Mapping):
            raise InvariantError(f"a brigade must be a table of values, not {limits._show(d)}")
        try:
            return cls(
                id=read_word(d["id"], "a brigade's id"),
                name=read_word(d["name"], "a brigade's name"),
                side=read_word(d["side"], "a brigade's side"),
                brigadier=Brigadier.from_dict(d.get("brigadier") or {}),
                staff_pips=read_whole(d.get("staff_pips", 0), "staff_pips", limits.STAFF_PIPS),
                staff_pips_reserved=read_whole(
                    d.get("staff_pips_reserved", 0), "staff_pips_reserved", limits.STAFF_PIPS
                ),
                state=BrigadeState.parse(read_word(d.get("state", "steady"), "a brigade's state")),
            )
        except KeyError as exc:
            raise InvariantError(
                f"brigade {limits._show(d.get('name', '?'))} is missing '{exc.args[0]}'"
            ) from None


#: A side's colour on the map: ``#`` and six hex digits (checked wherever a side is read, so that
#: nothing but a colour reaches a style sheet or a report).
COLOUR = re.compile(r"#[0-9A-Fa-f]{6}")


@dataclass(frozen=True)
class Side:
    id: str
    name: str
    colour: str = "#1f3a93"  # how the side is drawn on the map

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "colour": self.colour}

    def __post_init__(self) -> None:
        if not isinstance(self.colour, str) or not COLOUR.fullmatch(self.colour):
            raise InvariantError(f'a side\'s colour must be like "#1f3a93", not {limits._show(self.colour)}')

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Side:
        if not isinstance(d, Mapping):
            raise InvariantError(f"a side must be a table of values, not {limits._show(d)}")
        try:
            return cls(
                id=read_word(d["id"], "a side's id"),
                name=read_word(d["name"], "a side's name"),
                colour=read_word(d.get("colour", "#1f3a93"), "a side's colour"),
            )
        except KeyError as exc:
            raise InvariantError(f"a side is missing '{exc.args[0]}'") from None


@dataclass(frozen=True)
class OrderOfBattle:
    """Two sides, their brigades and their units, with the referential checks between them.

    Destroyed units stay in ``units`` (the record of the battle needs them) but are not
    :attr:`Unit.in_play`; :meth:`in_play` lists the ones still on the table.
    """

    sides: tuple[Side, ...]
    brigades: Mapping[str, Brigade] = field(default_factory=dict)
    units: Mapping[str, Unit] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_order_of_battle(self)

    def side(self, side_id: str) -> Side:
        for s in self.sides:
            if s.id == side_id:
                return s
        raise InvariantError(f"there is no side '{side_id}'")

    def enemy_of(self, side_id: str) -> str:
        return next(s.id for s in self.sides if s.id != side_id)

    def side_name(self, side_id: str) -> str:
        """The name of a side, or its id when the battle has no such side (an old log entry)."""
        for s in self.sides:
            if s.id == side_id:
                return s.name
        return str(side_id)

    def unit(self, unit_id: str) -> Unit:
        try:
            return self.units[unit_id]
        except KeyError:
            raise InvariantError(f"there is no unit '{unit_id}'") from None

    def brigade(self, brigade_id: str) -> Brigade:
        try:
            return self.brigades[brigade_id]
        except KeyError:
            raise InvariantError(f"there is no brigade '{brigade_id}'") from None

    def brigade_of(self, unit: Unit | str) -> Brigade:
        u = self.unit(unit) if isinstance(unit, str) else unit
        return self.brigade(u.brigade)

    def in_play(self, side: str | None = None) -> list[Unit]:
        return [u for u in self.units.values() if u.in_play and (side is None or u.side == side)]

    def units_of_brigade(self, brigade_id: str) -> list[Unit]:
        return [u for u in self.units.values() if u.brigade == brigade_id]

    def brigades_of(self, side_id: str) -> list[Brigade]:
        return [b for b in self.brigades.values() if b.side == side_id]

    def has_attached_brigadier(self, unit_id: str) -> bool:
        b = self.brigade_of(unit_id)
        return b.brigadier.attached_to == unit_id and b.brigadier.status == BrigadierStatus.ACTIVE

    def stands(self, side: str | None = None, brigade: str | None = None) -> int:
        """The stands on the table (of ``side``, of ``brigade``): a unit still to arrive has none there."""
        return sum(
            u.stands_on_table
            for u in self.units.values()
            if (side is None or u.side == side) and (brigade is None or u.brigade == brigade)
        )

    def with_unit(self, unit: Unit) -> OrderOfBattle:
        units = dict(self.units)
        old = units.get(unit.id)
        units[unit.id] = unit
        if old is not None and (old.side, old.brigade, old.parent) == (unit.side, unit.brigade, unit.parent):
            # the checks of the order of battle look only at ids, sides, brigades and parents, and
            # none of them changed: the order of battle stays sound without checking it again
            same = copy.copy(self)
            object.__setattr__(same, "units", units)
            return same
        return replace(self, units=units)

    def with_brigade(self, brigade: Brigade) -> OrderOfBattle:
        brigades = dict(self.brigades)
        brigades[brigade.id] = brigade
        return replace(self, brigades=brigades)

    def without_unit(self, unit_id: str) -> OrderOfBattle:
        units = {k: v for k, v in self.units.items() if k != unit_id and v.parent != unit_id}
        brigades = {
            k: (
                replace(b, brigadier=replace(b.brigadier, attached_to=None))
                if b.brigadier.attached_to == unit_id
                else b
            )
            for k, b in self.brigades.items()
        }
        return replace(self, units=units, brigades=brigades)

    def without_brigade(self, brigade_id: str) -> OrderOfBattle:
        units = {k: v for k, v in self.units.items() if v.brigade != brigade_id}
        brigades = {k: v for k, v in self.brigades.items() if k != brigade_id}
        return replace(self, units=units, brigades=brigades)

    def to_dict(self) -> dict[str, Any]:
        return {
            "sides": [s.to_dict() for s in self.sides],
            "brigades": [b.to_dict() for b in self.brigades.values()],
            "units": [u.to_dict() for u in self.units.values()],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> OrderOfBattle:
        lists = {}
        for key, most in (("sides", 100), ("brigades", limits.MAX_BRIGADES), ("units", limits.MAX_UNITS)):
            items = d.get(key, ())
            if not isinstance(items, (list, tuple)):
                raise InvariantError(f"the {key} must be a list, not {limits._show(items)}")
            limits.count(len(items), most, key)
            lists[key] = items
        sides = tuple(Side.from_dict(s) for s in lists["sides"])
        brigades = [Brigade.from_dict(b) for b in lists["brigades"]]
        units = [Unit.from_dict(u) for u in lists["units"]]
        _no_duplicates([b.id for b in brigades], "brigade")
        _no_duplicates([u.id for u in units], "unit")
        return cls(sides=sides, brigades={b.id: b for b in brigades}, units={u.id: u for u in units})


def _no_duplicates(ids: list[str], what: str) -> None:
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise InvariantError(f"two {what}s have the id '{i}'")
        seen.add(i)


def check_order_of_battle(oob: OrderOfBattle) -> None:
    limits.count(len(oob.units), limits.MAX_UNITS, "units")
    limits.count(len(oob.brigades), limits.MAX_BRIGADES, "brigades")
    if len(oob.sides) != 2:
        raise InvariantError(f"a battle has two sides, not {len(oob.sides)}")
    if oob.sides[0].id == oob.sides[1].id:
        raise InvariantError("the two sides need different ids")
    side_ids = {s.id for s in oob.sides}
    for bid, b in oob.brigades.items():
        if bid != b.id:
            raise InvariantError(f"brigade '{b.id}' is filed under '{bid}'")
        if b.side not in side_ids:
            raise InvariantError(f"brigade '{b.name}' belongs to unknown side '{b.side}'")
        if b.brigadier.attached_to is not None:
            att = oob.units.get(b.brigadier.attached_to)
            if att is None:
                raise InvariantError(
                    f"{b.brigadier.name} is attached to unknown unit '{b.brigadier.attached_to}'"
                )
            if att.brigade != b.id:
                raise InvariantError(f"{b.brigadier.name} can only attach to a unit of {b.name}")
    for uid, u in oob.units.items():
        if uid != u.id:
            raise InvariantError(f"unit '{u.id}' is filed under '{uid}'")
        b = oob.brigades.get(u.brigade)
        if b is None:
            raise InvariantError(f"{u.name} belongs to unknown brigade '{u.brigade}'")
        if b.side != u.side:
            raise InvariantError(f"{u.name} is on side '{u.side}' but its brigade {b.name} is on '{b.side}'")
        if u.parent is not None:
            p = oob.units.get(u.parent)
            if p is None:
                raise InvariantError(f"{u.name} has unknown parent regiment '{u.parent}'")
            if p.side != u.side:
                raise InvariantError(f"{u.name}'s parent regiment {p.name} is on the other side")
            _no_circle_of_parents(oob, u)


def _no_circle_of_parents(oob: OrderOfBattle, u: Unit) -> None:
    """Refuse a unit whose parent regiment is itself, or whose parents lead back to it (two units
    each other's parent): a parent is a regiment that stands on its own."""
    seen = [u.id]
    p = u.parent
    while p is not None and p in oob.units:
        if p in seen:
            if p == u.id and len(seen) == 1:
                raise InvariantError(
                    f"{u.name}: its parent is '{p}', the unit itself; a unit cannot be its own parent"
                )
            raise InvariantError(f"{u.name}: its parent regiments run in a circle ({' → '.join([*seen, p])})")
        seen.append(p)
        p = oob.units[p].parent
