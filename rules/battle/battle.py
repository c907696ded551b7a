"""The whole state of a battle at one moment: order of battle, terrain, turn and phase.

A :class:`Battle` is frozen; every change makes a new one. It round-trips through plain
dictionaries (:meth:`Battle.to_dict`, :meth:`Battle.from_dict`), which is what saves keep.
What it records of the turn (movement used, stalled chargers, reactions, pending melees, a
breakthrough) is its ``extra``, a :class:`~rules.battle.turn_records.TurnRecords`. Values of the rule
tables the umpire changed during the game (a ``change_tables`` action, logged with its reason)
are its ``table_values``: the tables in force are the game's own with these laid over them
(:func:`rules.tables.in_force`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rules import limits
from rules.battle.order_of_battle import Brigade, OrderOfBattle
from rules.battle.terrain import TerrainFeature
from rules.battle.turn_records import TurnRecords
from rules.battle.unit import Unit
from rules.battle.words import Phase
from rules.errors import InvariantError

# The terrain tuple last found to have unique ids; a new state that keeps it is not checked again.
_CHECKED_TERRAIN: list[tuple[TerrainFeature, ...] | None] = [None]


@dataclass(frozen=True)
class DeploymentZone:
    """Where a side sets out its units as the battle begins: a rectangle of the table."""

    side: str
    x0: float
    y0: float
    x1: float
    y1: float

    def to_dict(self) -> dict[str, Any]:
        return {"side": self.side, "x0": self.x0, "y0": self.y0, "x1": self.x1, "y1": self.y1}

    @classmethod
    def from_dict(cls, d: Any) -> DeploymentZone:
        if not isinstance(d, Mapping):
            raise InvariantError(
                f"a deployment zone is a table of values (side, x0, y0, x1, y1), not {limits._show(d)}"
            )
        unknown = set(d) - {"side", "x0", "y0", "x1", "y1"}
        if unknown:
            raise InvariantError(f"a deployment zone has no value(s) {', '.join(sorted(map(str, unknown)))}")
        try:
            x0, y0, x1, y1 = (
                limits.number(d[k], limits.POSITION_IN, f"a deployment zone's {k}")
                for k in ("x0", "y0", "x1", "y1")
            )
            side = limits.text(d["side"], "a deployment zone's side")
        except KeyError as exc:
            raise InvariantError(f"a deployment zone needs its {exc.args[0]}") from None
        if x1 <= x0 or y1 <= y0:
            raise InvariantError(
                f"a deployment zone runs from x0, y0 to a greater x1, y1, not ({x0:g}, {y0:g}) to ({x1:g}, {y1:g})"
            )
        return cls(side, float(x0), float(y0), float(x1), float(y1))

    def holds(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1


@dataclass(frozen=True)
class Battle:
    name: str
    oob: OrderOfBattle
    terrain: tuple[TerrainFeature, ...] = ()
    turn: int = 1
    active_side: str = ""
    phase: Phase = Phase.COMMAND
    table_width_in: float = 72.0
    table_height_in: float = 48.0
    seed: int = 0
    notes: str = ""
    first_side: str = ""  # the side that moves first in each turn
    # the records of the turn; a table of plain values (as saves keep it) is read into TurnRecords
    extra: TurnRecords = field(default_factory=TurnRecords)
    # rule-table values changed during the game, by key (empty: the game's tables as they began)
    table_values: Mapping[str, Any] = field(default_factory=dict)
    # where each side sets out its units as the battle begins (a scenario's; none: anywhere)
    zones: tuple[DeploymentZone, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.extra, TurnRecords):
            object.__setattr__(self, "extra", TurnRecords.from_dict(self.extra))
        if isinstance(self.turn, bool) or not isinstance(self.turn, int):
            raise InvariantError(f"the turn must be a whole number, not {limits._show(self.turn)}")
        if self.turn < 1:
            raise InvariantError(f"the turn is counted from 1, not {self.turn}")
        if self.turn > limits.TURN.hi:
            raise InvariantError(f"the turn must be {limits.TURN.text()}, not {limits._show(self.turn)}")
        ids = {s.id for s in self.oob.sides}
        if self.active_side not in ids:
            raise InvariantError(f"the active side '{self.active_side}' is not one of {sorted(ids)}")
        if self.first_side and self.first_side not in ids:
            raise InvariantError(f"the first side '{self.first_side}' is not one of {sorted(ids)}")
        if not (self.table_width_in > 0 and self.table_height_in > 0):
            raise InvariantError("the table needs a positive width and height")
        if self.table_width_in not in limits.TABLE_IN or self.table_height_in not in limits.TABLE_IN:
            raise InvariantError(
                f"the table's width and height must be {limits.TABLE_IN.text()}, not "
                f'{limits._show(self.table_width_in)}" x {limits._show(self.table_height_in)}"'
            )
        if self.terrain is _CHECKED_TERRAIN[0]:
            return  # the same (immutable) terrain as the last battle checked: its ids are unique
        seen: set[str] = set()
        for f in self.terrain:
            if f.id in seen:
                raise InvariantError(f"two terrain features have the id '{f.id}'")
            seen.add(f.id)
        if isinstance(self.terrain, tuple):  # a list could change after the check
            _CHECKED_TERRAIN[0] = self.terrain

    # -- convenience --------------------------------------------------------------
    @property
    def units(self) -> Mapping[str, Unit]:
        return self.oob.units

    @property
    def brigades(self) -> Mapping[str, Brigade]:
        return self.oob.brigades

    def unit(self, unit_id: str) -> Unit:
        return self.oob.unit(unit_id)

    def brigade_of(self, unit: Unit | str) -> Brigade:
        return self.oob.brigade_of(unit)

    @property
    def inactive_side(self) -> str:
        return self.oob.enemy_of(self.active_side)

    def feature(self, feature_id: str) -> TerrainFeature:
        for f in self.terrain:
            if f.id == feature_id:
                return f
        raise InvariantError(f"there is no terrain feature '{feature_id}'")

    def with_unit(self, unit: Unit) -> Battle:
        return replace(self, oob=self.oob.with_unit(unit))

    def with_units(self, *units: Unit) -> Battle:
        oob = self.oob
        for u in units:
            oob = oob.with_unit(u)
        return replace(self, oob=oob)

    def with_brigade(self, brigade: Brigade) -> Battle:
        return replace(self, oob=self.oob.with_brigade(brigade))

    def with_feature(self, feature: TerrainFeature) -> Battle:
        terrain = [f for f in self.terrain if f.id != feature.id]
        terrain.append(feature)
        return replace(self, terrain=tuple(terrain))

    def without_feature(self, feature_id: str) -> Battle:
        return replace(self, terrain=tuple(f for f in self.terrain if f.id != feature_id))

    # -- serialisation ------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "turn": self.turn,
            "active_side": self.active_side,
            "first_side": self.first_side,
            "phase": self.phase.value,
            "table_width_in": self.table_width_in,
            "table_height_in": self.table_height_in,
            "seed": self.seed,
            "notes": self.notes,
            "extra": self.extra.to_dict(),
            **self.oob.to_dict(),
            "terrain": [f.to_dict() for f in self.terrain],
            **({"table_values": dict(self.table_values)} if self.table_values else {}),
            **({"zones": [z.to_dict() for z in self.zones]} if self.zones else {}),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Battle:
        """Read a battle kept as plain values (a save's snapshot, an action's table): every value
        is checked for its type and its range (:mod:`rules.limits`) before it is used."""
        if not isinstance(d, Mapping):
            raise InvariantError("a battle must be a table of values")
        oob = OrderOfBattle.from_dict(d)
        terrain = d.get("terrain", ())
        if not isinstance(terrain, (list, tuple)):
            raise InvariantError(f"the terrain must be a list, not {limits._show(terrain)}")
        limits.count(len(terrain), limits.MAX_TERRAIN, "terrain features")
        extra = d.get("extra", {})
        if not isinstance(extra, Mapping) or not all(isinstance(k, str) for k in extra):
            raise InvariantError(f"the turn records must be a table, not {limits._show(extra)}")
        limits.shallow(extra, "the turn records")
        try:
            return cls(
                name=limits.text(d.get("name", ""), "the battle's name"),
                oob=oob,
                terrain=tuple(TerrainFeature.from_dict(f) for f in terrain),
                turn=limits.whole(d.get("turn", 1), limits.TURN),
                active_side=limits.text(d.get("active_side") or oob.sides[0].id, "the active side"),
                # "" (no side named: the order of battle's first side moves first) reads back as
                # it was written; a table without the key (written before it was kept) as before
                first_side=limits.text(
                    d["first_side"] if "first_side" in d else (d.get("active_side") or oob.sides[0].id),
                    "the first side",
                ),
                phase=Phase.parse(limits.text(d.get("phase", "command"), "the phase")),
                table_width_in=limits.number(
                    d.get("table_width_in", 72.0), limits.TABLE_IN, "the table's width"
                ),
                table_height_in=limits.number(
                    d.get("table_height_in", 48.0), limits.TABLE_IN, "the table's height"
                ),
                seed=limits.whole(d.get("seed", 0), limits.SEED),
                notes=limits.text(d.get("notes", ""), "the notes", limits.MAX_LONG_TEXT),
                extra=TurnRecords.from_dict(extra),
                table_values=_table_values(d.get("table_values", {})),
                zones=_zones(d.get("zones", ()), {s.id for s in oob.sides}),
            )
        except (TypeError, ValueError) as exc:
            if isinstance(exc, InvariantError):
                raise
            raise InvariantError(f"the battle's settings are malformed: {exc}") from None


def _zones(v: Any, sides: set[str]) -> tuple[DeploymentZone, ...]:
    if not isinstance(v, (list, tuple)):
        raise InvariantError(f"the deployment zones must be a list, not {limits._show(v)}")
    limits.count(len(v), 16, "deployment zones")
    zones = tuple(DeploymentZone.from_dict(z) for z in v)
    for z in zones:
        if z.side not in sides:
            raise InvariantError(
                f"a deployment zone is of the side '{z.side}', which the battle does not have"
            )
    return zones


def _table_values(v: Any) -> dict[str, Any]:
    if not isinstance(v, Mapping) or not all(isinstance(k, str) for k in v):
        raise InvariantError("the rule-table values changed during the game must be a table of values by key")
    limits.count(len(v), limits.MAX_TERRAIN, "rule-table values")
    limits.shallow(v, "the rule-table values")
    return dict(v)
