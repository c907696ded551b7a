"""What resolving an action produces: itemised steps with rule citations, and the changes made.

Every resolution in the rules core returns its new :class:`~rules.battle.battle.Battle` together with a
list of :class:`Step` s: one line of the log each ("Closing volley: 5D6 hitting on 3+"), with the
dice rolled, the modifiers applied and the rule that governs it. The journal keeps these with the
:class:`Changes` between the state before and after, so that undo, redo and replay never need to
resolve again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rules import limits
from rules.battle.battle import Battle, DeploymentZone
from rules.battle.order_of_battle import Brigade, Side
from rules.battle.terrain import TerrainFeature
from rules.battle.turn_records import TurnRecords
from rules.battle.unit import Unit
from rules.battle.words import Phase
from rules.errors import InvariantError


@dataclass(frozen=True, slots=True)
class Modifier:
    """One modifier to a roll, score or target number, with the rule that gives it."""

    label: str
    value: int
    rule: str | None = None

    def __str__(self) -> str:
        cite = f" ({self.rule})" if self.rule else ""
        return f"{self.value:+d} {self.label}{cite}"

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "value": self.value, "rule": self.rule}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Modifier:
        _table(d, "a modifier")
        return cls(
            label=limits.text(d["label"], "a modifier's label", limits.MAX_LOG_TEXT),
            value=limits.whole(d["value"], _MODIFIER),
            rule=_rule(d.get("rule")),
        )


@dataclass(frozen=True, slots=True)
class Step:
    """One line of the log: what happened, the dice, the modifiers and the rule."""

    text: str
    rule: str | None = None
    dice: tuple[int, ...] = ()
    modifiers: tuple[Modifier, ...] = ()
    units: tuple[str, ...] = ()  # the units this step concerns, for highlighting

    def __str__(self) -> str:
        parts = [self.text]
        if self.dice:
            parts.append("dice " + " ".join(str(d) for d in self.dice))
        if self.modifiers:
            parts.append(", ".join(str(m) for m in self.modifiers))
        if self.rule:
            parts.append(f"[{self.rule}]")
        return " — ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"text": self.text}
        if self.rule:
            d["rule"] = self.rule
        if self.dice:
            d["dice"] = list(self.dice)
        if self.modifiers:
            d["modifiers"] = [m.to_dict() for m in self.modifiers]
        if self.units:
            d["units"] = list(self.units)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Step:
        _table(d, "a line of the log")
        return cls(
            text=limits.text(d["text"], "a line of the log", limits.MAX_LOG_TEXT),
            rule=_rule(d.get("rule")),
            dice=tuple(limits.whole(x, _FACE, "a die") for x in _list(d.get("dice", ()), "dice")),
            modifiers=tuple(Modifier.from_dict(m) for m in _list(d.get("modifiers", ()), "modifiers")),
            units=tuple(limits.text(u, "a unit id") for u in _list(d.get("units", ()), "units")),
        )


_MODIFIER = limits.Range(-1000, 1000, "a modifier")
_FACE = limits.Range(1, 6, "a die")


def _table(d: Any, what: str) -> None:
    if not isinstance(d, Mapping):
        raise InvariantError(f"{what} must be a table of values, not {limits._show(d)}")


def _list(v: Any, what: str) -> list[Any]:
    if not isinstance(v, (list, tuple)):
        raise InvariantError(f"{what} must be a list, not {limits._show(v)}")
    limits.count(len(v), limits.DICE_PER_ROLL.hi, what)
    return list(v)


def _rule(v: Any) -> str | None:
    return None if v is None else limits.text(v, "a rule id")


# The battle's own settings that a change can touch, besides its units, brigades and terrain.
#: The key of a change of the sides' names and colours among a change's game values.
SIDES = "sides"
#: The key of a change of the deployment zones among a change's game values.
ZONES = "zones"
_GAME_FIELDS = (
    "turn",
    "active_side",
    "phase",
    "first_side",
    "name",
    "notes",
    "table_width_in",
    "table_height_in",
    "seed",
    "extra",
    "table_values",
)


@dataclass(frozen=True, slots=True)
class Changes:
    """The difference between two battle states, as data.

    Each mapping holds, by id, the object's dictionary before and after (``None`` where it did
    not exist). ``game`` holds the battle's own settings that changed (turn, active side, phase,
    first side, name, notes, table size, seed, extra) before and after.
    """

    units: Mapping[str, tuple[dict | None, dict | None]] = field(default_factory=dict)
    brigades: Mapping[str, tuple[dict | None, dict | None]] = field(default_factory=dict)
    terrain: Mapping[str, tuple[dict | None, dict | None]] = field(default_factory=dict)
    game: Mapping[str, tuple[Any, Any]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.units or self.brigades or self.terrain or self.game)

    def to_dict(self) -> dict[str, Any]:
        return {
            "units": {k: list(v) for k, v in self.units.items()},
            "brigades": {k: list(v) for k, v in self.brigades.items()},
            "terrain": {k: list(v) for k, v in self.terrain.items()},
            "game": {k: list(v) for k, v in self.game.items()},
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Changes:
        _table(d, "the changes")

        def pairs(m: Any, tables: bool = True) -> dict[str, tuple[Any, Any]]:
            _table(m, "the changes")
            out = {}
            for k, v in m.items():
                if not isinstance(v, (list, tuple)) or len(v) != 2:
                    raise InvariantError(f"a change must be a pair, before and after, not {limits._show(v)}")
                before, after = v
                for x in (before, after):
                    if tables and x is not None and not isinstance(x, Mapping):
                        raise InvariantError(f"a change must be a table of values, not {limits._show(x)}")
                    if not tables:  # the battle's own settings: its records (extra) are free-form
                        limits.shallow(x, "a change")
                out[str(k)] = (before, after)
            return out

        return cls(
            units=pairs(d.get("units", {})),
            brigades=pairs(d.get("brigades", {})),
            terrain=pairs(d.get("terrain", {})),
            game=pairs(d.get("game", {}), tables=False),
        )


def _diff_maps(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> dict[str, tuple[dict | None, dict | None]]:
    out: dict[str, tuple[dict | None, dict | None]] = {}
    if before is after:
        return out
    # unchanged entries are the same objects: only the others are turned into dicts and compared
    was = before.get
    changed = [k for k, a in after.items() if was(k) is not a]
    changed += [k for k in before if k not in after]
    for k in sorted(changed):
        b, a = before.get(k), after.get(k)
        bd = b.to_dict() if b is not None else None
        ad = a.to_dict() if a is not None else None
        if bd != ad:
            out[k] = (bd, ad)
    return out


def diff(before: Battle, after: Battle) -> Changes:
    """The changes that turn ``before`` into ``after``."""
    game = {
        f: (_plain(getattr(before, f)), _plain(getattr(after, f)))
        for f in _GAME_FIELDS
        if getattr(before, f) != getattr(after, f)
    }
    if before.oob.sides != after.oob.sides:  # the sides' names and colours (the scenario's settings)
        game[SIDES] = ([s.to_dict() for s in before.oob.sides], [s.to_dict() for s in after.oob.sides])
    if before.zones != after.zones:  # the deployment zones (the scenario's settings)
        game[ZONES] = ([z.to_dict() for z in before.zones], [z.to_dict() for z in after.zones])
    return Changes(
        units=_diff_maps(before.units, after.units),
        brigades=_diff_maps(before.brigades, after.brigades),
        terrain=(
            {}
            if before.terrain is after.terrain
            else _diff_maps({f.id: f for f in before.terrain}, {f.id: f for f in after.terrain})
        ),
        game=game,
    )


def _plain(v: Any) -> Any:
    if isinstance(v, Phase):
        return v.value
    if isinstance(v, TurnRecords):
        return v.to_dict()
    if isinstance(v, Mapping):
        return dict(v)
    return v


def apply(battle: Battle, changes: Changes, *, reverse: bool = False) -> Battle:
    """Apply ``changes`` to ``battle`` (or undo them with ``reverse=True``)."""
    pick = 0 if reverse else 1
    if not changes.units and not changes.brigades and not changes.terrain and not changes.game:
        return battle
    units = dict(battle.oob.units)
    for uid, pair in changes.units.items():
        new = pair[pick]
        if new is None:
            units.pop(uid, None)
        else:
            units[uid] = Unit.from_dict(new)
    brigades = dict(battle.oob.brigades)
    for bid, pair in changes.brigades.items():
        new = pair[pick]
        if new is None:
            brigades.pop(bid, None)
        else:
            brigades[bid] = Brigade.from_dict(new)
    terrain = {f.id: f for f in battle.terrain} if changes.terrain else {}
    for fid, pair in changes.terrain.items():
        new = pair[pick]
        if new is None:
            terrain.pop(fid, None)
        else:
            terrain[fid] = TerrainFeature.from_dict(new)
    game: dict[str, Any] = {}
    sides = None
    for f, pair in changes.game.items():
        if f == SIDES:
            sides = tuple(Side.from_dict(d) for d in pair[pick])
        elif f == ZONES:
            game[f] = tuple(DeploymentZone.from_dict(d) for d in pair[pick] or ())
        elif f == "phase":
            game[f] = Phase.parse(pair[pick])
        elif f == "extra":  # the turn's records, as saves keep them (a journal of any age)
            game[f] = TurnRecords.from_dict(pair[pick])
        elif f == "table_values":
            game[f] = dict(pair[pick] or {})
        else:
            game[f] = pair[pick]
    # unchanged parts are kept as they are, so caches keyed on them (the terrain index) still hold
    if not changes.units and not changes.brigades:
        oob = battle.oob
    elif (
        not changes.brigades
        and len(changes.units) <= 8
        and all(uid in battle.oob.units and uid in units and units[uid].id == uid for uid in changes.units)
    ):
        # a few units changed in place: with_unit checks only what such a change can break
        oob = battle.oob
        for uid in changes.units:
            oob = oob.with_unit(units[uid])
    else:
        oob = replace(battle.oob, units=units, brigades=brigades)
    if sides is not None:
        oob = replace(oob, sides=sides)
    kept = battle.terrain if not changes.terrain else tuple(terrain.values())
    return replace(battle, oob=oob, terrain=kept, **game)
