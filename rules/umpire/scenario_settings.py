"""A scenario's own settings, changed as one action (:class:`EditScenario`): its name, its notes and
sources, the table's size, the sides' names and colours, and the side that moves first. The
scenario editor (File > Scenario settings) makes one; like every edit it is logged, undone and
redone. The table is never made too small for a unit or a feature on it, nor for an arriving
unit's place."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from rules import limits
from rules.action_base import Action, Resolved, action_type, mapping_value, resolver
from rules.battle.battle import Battle, DeploymentZone
from rules.battle.events import Step
from rules.dice import DiceSource
from rules.errors import IllegalAction, InvariantError
from rules.tables import RuleTables

#: What :class:`EditScenario` may set.
SCENARIO_FIELDS = ("name", "notes", "table_width_in", "table_height_in", "first_side", "sides", "zones")
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


@action_type("edit_scenario")
@dataclass(frozen=True)
class EditScenario(Action):
    """Set the scenario's ``values``: any of :data:`SCENARIO_FIELDS`; ``sides`` is a mapping of a
    side's id to its ``name`` and ``colour``; ``zones`` a mapping of a side's id to its deployment
    zone, ``[x0, y0, x1, y1]`` (None or empty: none)."""

    values: Mapping[str, Any]
    mapping_fields: ClassVar[tuple[str, ...]] = ("values",)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", mapping_value(self.values, "values"))


def _extent(battle: Battle) -> tuple[float, float]:
    """How far right and down the units, arriving units' places and terrain reach."""
    xs, ys = [0.0], [0.0]
    for u in battle.units.values():
        a = u.arrives
        x, y = (a.x, a.y) if a is not None and a.x is not None else (u.x, u.y)
        xs.append(x)
        ys.append(y)
    for f in battle.terrain:
        for px, py in f.points:
            xs.append(float(px))
            ys.append(float(py))
    return max(xs), max(ys)


@resolver(EditScenario)
def _resolve_edit_scenario(battle: Battle, a: EditScenario, dice: DiceSource, tables: RuleTables) -> Resolved:
    unknown = set(a.values) - set(SCENARIO_FIELDS)
    if unknown:
        raise IllegalAction(
            f"a scenario has no setting(s) {', '.join(sorted(unknown))} (it has {', '.join(SCENARIO_FIELDS)})"
        )
    v = dict(a.values)
    after = battle
    said = []
    if "name" in v:
        name = str(v["name"]).strip()
        if not name:
            raise IllegalAction("a scenario needs a name")
        after = replace(after, name=name)
        said.append(f"name: {name}")
    if "notes" in v:
        after = replace(after, notes=str(v["notes"]))
        said.append("notes")
    for key, what in (("table_width_in", "width"), ("table_height_in", "depth")):
        if key in v:
            size = limits.number(
                v[key], limits.Range(12, 2000, f"the table's {what}", '"'), f"the table's {what}"
            )
            after = replace(after, **{key: float(size)})
            said.append(f'table {what} {size:g}"')
    if "sides" in v:
        given = mapping_value(v["sides"], "sides")
        sides = []
        for s in after.oob.sides:
            new = given.get(s.id)
            if new is None:
                sides.append(s)
                continue
            new = mapping_value(new, f"side {s.id}")
            name = str(new.get("name", s.name)).strip()
            colour = str(new.get("colour", s.colour)).strip()
            if not name:
                raise IllegalAction(f"the side '{s.id}' needs a name")
            if not _COLOUR.match(colour):
                raise IllegalAction(f"a side's colour is written like #1f3a93, not {colour!r}")
            sides.append(replace(s, name=name, colour=colour))
        stray = set(given) - {s.id for s in after.oob.sides}
        if stray:
            raise IllegalAction(f"the battle has no side(s) {', '.join(sorted(stray))}")
        after = replace(after, oob=replace(after.oob, sides=tuple(sides)))
        said.append("sides")
    if "zones" in v:
        given = v["zones"] if isinstance(v["zones"], Mapping) else None
        if given is None:
            raise IllegalAction("the deployment zones are given by side: {side: [x0, y0, x1, y1]}")
        ids = [s.id for s in after.oob.sides]
        stray = set(given) - set(ids)
        if stray:
            raise IllegalAction(f"the battle has no side(s) {', '.join(sorted(stray))}")
        zones = {z.side: z for z in after.zones}
        for sid, rect in given.items():
            if not rect:
                zones.pop(sid, None)
                continue
            if not isinstance(rect, (list, tuple)) or len(rect) != 4:
                raise IllegalAction(f"a deployment zone is [x0, y0, x1, y1], not {limits._show(rect)}")
            try:
                z = DeploymentZone.from_dict(
                    {"side": sid, **dict(zip(("x0", "y0", "x1", "y1"), rect, strict=True))}
                )
            except InvariantError as exc:
                raise IllegalAction(str(exc)) from None
            if z.x0 < 0 or z.y0 < 0:
                raise IllegalAction(f"the {after.oob.side_name(sid)} deployment zone runs off the table")
            zones[sid] = z
        after = replace(after, zones=tuple(zones[s] for s in ids if s in zones))
        said.append("deployment zones")
    if "first_side" in v:
        first = str(v["first_side"])
        if first not in {s.id for s in after.oob.sides}:
            raise IllegalAction(f"the battle has no side '{first}' to move first")
        after = replace(after, first_side=first)
        if battle.turn == 1 and battle.active_side == battle.first_side:
            after = replace(after, active_side=first)  # a scenario not yet begun starts with it
        said.append(f"{after.oob.side_name(first)} moves first")
    right, bottom = _extent(after)
    for z in after.zones:
        right, bottom = max(right, z.x1), max(bottom, z.y1)
    if right > after.table_width_in + 1e-9 or bottom > after.table_height_in + 1e-9:
        raise IllegalAction(
            f'the table must hold every unit, feature and deployment zone on it: at least {right:g}" wide '
            f'and {bottom:g}" deep'
        )
    if after == battle:
        raise IllegalAction("that changes nothing in the scenario")
    text = "Scenario settings: " + ", ".join(said)
    return Resolved(after, [Step(text)], text)


__all__ = ["SCENARIO_FIELDS", "EditScenario"]
