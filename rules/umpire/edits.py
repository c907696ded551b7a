"""The editor's actions: units, brigades and terrain features added, edited and removed (the order
of battle and the battlefield set up or mended during a game)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from rules.action_base import (
    Action,
    Resolved,
    _to_json,
    action_type,
    brigade_named,
    feature_named,
    mapping_value,
    refuse_unknown_fields,
    resolver,
    unit_named,
    value_words,
)
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.order_of_battle import Brigade
from rules.battle.terrain import TerrainFeature
from rules.battle.unit import Unit
from rules.battlefield.marches import check_on_table
from rules.dice import DiceSource
from rules.errors import IllegalAction
from rules.tables import RuleTables
from rules.umpire.overrides import set_brigade, set_unit


@action_type("add_unit")
@dataclass(frozen=True)
class AddUnit(Action):
    """Add a unit, given as a unit table (see :meth:`rules.battle.unit.Unit.to_dict`)."""

    ends_refusals: ClassVar[bool] = False  # the umpire sets the markers himself
    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    unit: Mapping[str, Any]


@resolver(AddUnit)
def _resolve_add_unit(battle: Battle, a: AddUnit, dice: DiceSource, tables: RuleTables) -> Resolved:
    u = Unit.from_dict(mapping_value(a.unit, "the unit"))
    check_on_table(battle, u.x, u.y)
    if u.id in battle.units:
        raise IllegalAction(f"there is already a unit with the id '{u.id}' ({battle.units[u.id].name})")
    after = battle.with_unit(u)
    text = f"{u.name} ({u.stands} stands, {u.kind.label.lower()}) joins {after.brigade_of(u).name}"
    return Resolved(after, [Step(text, units=(u.id,))], text)


@action_type("edit_unit")
@dataclass(frozen=True)
class EditUnit(Action):
    ends_refusals: ClassVar[bool] = False  # the umpire sets the markers himself
    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    unit_id: str
    values: Mapping[str, Any]


@resolver(EditUnit)
def _resolve_edit_unit(battle: Battle, a: EditUnit, dice: DiceSource, tables: RuleTables) -> Resolved:
    after, changes, u = set_unit(battle, a.unit_id, a.values)
    steps = [Step(f"{u.name}: {c}", units=(u.id,)) for c in changes]
    return Resolved(after, steps, f"{u.name} edited: {'; '.join(changes)}")


@action_type("remove_unit")
@dataclass(frozen=True)
class RemoveUnit(Action):
    ends_refusals: ClassVar[bool] = False  # the umpire sets the markers himself
    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    unit_id: str


@resolver(RemoveUnit)
def _resolve_remove_unit(battle: Battle, a: RemoveUnit, dice: DiceSource, tables: RuleTables) -> Resolved:
    u = unit_named(battle, a.unit_id)
    oob = battle.oob.without_unit(u.id)
    gone = sorted(set(battle.units) - set(oob.units) - {u.id})
    text = f"{u.name} is removed from the battle"
    steps = [Step(text, units=(u.id,))]
    for g in gone:
        steps.append(Step(f"{battle.units[g].name} is removed with its parent regiment", units=(g,)))
    b = battle.brigade_of(u)
    if b.brigadier.attached_to == u.id:
        steps.append(Step(f"{b.brigadier.name} is no longer attached to a regiment"))
    return Resolved(replace(battle, oob=oob), steps, text)


@action_type("add_brigade")
@dataclass(frozen=True)
class AddBrigade(Action):
    """Add a brigade, given as a brigade table (see :meth:`rules.battle.order_of_battle.Brigade.to_dict`)."""

    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    brigade: Mapping[str, Any]


@resolver(AddBrigade)
def _resolve_add_brigade(battle: Battle, a: AddBrigade, dice: DiceSource, tables: RuleTables) -> Resolved:
    b = Brigade.from_dict(mapping_value(a.brigade, "the brigade"))
    if b.id in battle.brigades:
        raise IllegalAction(f"there is already a brigade with the id '{b.id}' ({battle.brigades[b.id].name})")
    if b.brigadier.attached_to is not None:
        raise IllegalAction(f"{b.name} has no regiments yet for {b.brigadier.name} to attach to")
    after = battle.with_brigade(b)
    text = f"{b.name} ({b.brigadier.name or 'no Brigadier'}) joins {after.oob.side(b.side).name}"
    return Resolved(after, [Step(text)], text)


@action_type("edit_brigade")
@dataclass(frozen=True)
class EditBrigade(Action):
    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    brigade_id: str
    values: Mapping[str, Any]


@resolver(EditBrigade)
def _resolve_edit_brigade(battle: Battle, a: EditBrigade, dice: DiceSource, tables: RuleTables) -> Resolved:
    after, changes, b = set_brigade(battle, a.brigade_id, a.values)
    return Resolved(
        after, [Step(f"{b.name}: {c}") for c in changes], f"{b.name} edited: {'; '.join(changes)}"
    )


@action_type("remove_brigade")
@dataclass(frozen=True)
class RemoveBrigade(Action):
    """Remove a brigade and every unit of it."""

    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    brigade_id: str


@resolver(RemoveBrigade)
def _resolve_remove_brigade(
    battle: Battle, a: RemoveBrigade, dice: DiceSource, tables: RuleTables
) -> Resolved:
    b = brigade_named(battle, a.brigade_id)
    units = battle.oob.units_of_brigade(b.id)
    outside = [u for u in battle.units.values() if u.brigade != b.id and u.parent in {x.id for x in units}]
    if outside:
        raise IllegalAction(
            f"{outside[0].name} of another brigade has its parent regiment in {b.name}; remove it first"
        )
    after = replace(battle, oob=battle.oob.without_brigade(b.id))
    text = f"{b.name} is removed from the battle"
    steps = [Step(text)] + [Step(f"{u.name} is removed with its brigade", units=(u.id,)) for u in units]
    return Resolved(after, steps, text + (f" with {len(units)} units" if units else ""))


# --------------------------------------------------------------------------------------------
# Terrain
# --------------------------------------------------------------------------------------------


@action_type("add_terrain")
@dataclass(frozen=True)
class AddTerrain(Action):
    """Add a terrain feature, given as a feature table (see :meth:`TerrainFeature.to_dict`)."""

    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    feature: Mapping[str, Any]


@resolver(AddTerrain)
def _resolve_add_terrain(battle: Battle, a: AddTerrain, dice: DiceSource, tables: RuleTables) -> Resolved:
    f = TerrainFeature.from_dict(mapping_value(a.feature, "the terrain feature"))
    if any(x.id == f.id for x in battle.terrain):
        raise IllegalAction(f"there is already a terrain feature with the id '{f.id}'")
    # "Herbst Woods (light woods) is placed"; a feature drawn without a name is its type alone
    text = f"{f.name} ({f.type.label.lower()}) is placed" if f.name else f"{f.type.label} is placed"
    return Resolved(replace(battle, terrain=(*battle.terrain, f)), [Step(text)], text)


@action_type("edit_terrain")
@dataclass(frozen=True)
class EditTerrain(Action):
    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    feature_id: str
    values: Mapping[str, Any]


_TERRAIN_FIELDS = ("type", "points", "name", "level", "crest", "structural_hits", "width_in", "props")


@resolver(EditTerrain)
def _resolve_edit_terrain(battle: Battle, a: EditTerrain, dice: DiceSource, tables: RuleTables) -> Resolved:
    f = feature_named(battle, a.feature_id)
    values = mapping_value(a.values, "the values")
    refuse_unknown_fields(values, _TERRAIN_FIELDS, "a terrain feature")
    before = f.to_dict()
    new = TerrainFeature.from_dict({**before, **{k: _to_json(v) for k, v in values.items()}})
    after = new.to_dict()
    keys = sorted(set(before) | set(after))
    redrawn = {"points": "redrawn", "crest": "crestline redrawn", "props": "properties changed"}
    shift = _shift_of(f, new)
    if shift is not None:  # the whole feature moved: say by how much, and its crest went with it
        redrawn = {**redrawn, "points": f"moved {_shift_words(*shift)}", "crest": ""}
    changes = [
        redrawn[k] if k in redrawn else f"{k} {value_words(before.get(k))} → {value_words(after.get(k))}"
        for k in keys
        if before.get(k) != after.get(k)
    ]
    changes = [c for c in changes if c]
    if not changes:
        raise IllegalAction(f"that changes nothing for {f.name or f.id}")
    terrain = tuple(new if x.id == f.id else x for x in battle.terrain)
    name = new.name or new.id
    return Resolved(
        replace(battle, terrain=terrain),
        [Step(f"{name}: {c}") for c in changes],
        f"{name} edited: {'; '.join(changes)}",
    )


def _shift_of(f: TerrainFeature, new: TerrainFeature) -> tuple[float, float] | None:
    """The one offset (dx, dy) by which every point of ``f`` (and of its crest) was moved to give
    ``new``, or None if it was reshaped rather than moved."""
    if len(f.points) != len(new.points) or len(f.crest or ()) != len(new.crest or ()) or not f.points:
        return None
    dx, dy = new.points[0][0] - f.points[0][0], new.points[0][1] - f.points[0][1]
    if abs(dx) < 1e-9 and abs(dy) < 1e-9:
        return None
    pairs = [*zip(f.points, new.points, strict=True), *zip(f.crest or (), new.crest or (), strict=True)]
    if all(abs(b[0] - a[0] - dx) < 0.01 and abs(b[1] - a[1] - dy) < 0.01 for a, b in pairs):
        return dx, dy
    return None


def _shift_words(dx: float, dy: float) -> str:
    """An offset on the table in words: 6.0" right and 0.5" up the table (its whole length)."""
    parts = []
    if abs(dx) >= 0.05:
        parts.append(f'{abs(dx):.1f}" {"right" if dx > 0 else "left"}')
    if abs(dy) >= 0.05:
        parts.append(f'{abs(dy):.1f}" {"down" if dy > 0 else "up"} the table')
    words = " and ".join(parts) or "a fraction of an inch"
    return f'{words} ({math.hypot(dx, dy):.1f}" in all)' if len(parts) == 2 else words


@action_type("remove_terrain")
@dataclass(frozen=True)
class RemoveTerrain(Action):
    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    feature_id: str


@resolver(RemoveTerrain)
def _resolve_remove_terrain(
    battle: Battle, a: RemoveTerrain, dice: DiceSource, tables: RuleTables
) -> Resolved:
    f = feature_named(battle, a.feature_id)
    text = f"{f.name or f.type.label} is removed"
    return Resolved(battle.without_feature(f.id), [Step(text)], text)
