"""Buildings in Phase 2 and Phase 3 (RULE-03-3.1, RULE-03-3.2): a unit garrisons an isolated
building, and a battery bombards a garrisoned one, scoring structural hits against the building
itself until it collapses into rubble. The dice and saves are a volley's
(:mod:`rules.shooting.volleys`); the building's damage is :func:`rules.battlefield.field.damage_building`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.action_base import Action, Resolved, action_type, resolver
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.unit import Unit
from rules.battle.words import Formation, Marker, Phase, UnitKind
from rules.dice import DiceSource
from rules.errors import IllegalAction
from rules.shooting.volleys import (
    SAVE_PURPOSE,
    CoverClass,
    dice_pool,
    fired_refusal,
    record_phase_3_fire,
    roll_needing,
    weapon_key,
)
from rules.tables import RuleTables


def garrison_of(battle: Battle, feature_id: str, tables: RuleTables) -> list[Unit]:
    """The units garrisoning a building (RULE-03-3.1), in id order."""
    from rules.battlefield.field import Battlefield

    bf = Battlefield(battle, tables)
    out = []
    for u in sorted(battle.units.values(), key=lambda u: u.id):
        b = bf.building_of(u) if u.in_play else None
        if b is not None and b.id == feature_id:
            out.append(u)
    return out


@action_type("garrison_building")
@dataclass(frozen=True)
class GarrisonBuilding(Action):
    """A unit occupies an isolated building (RULE-03-3.1) in its Phase 2.

    Up to 2 stands of infantry or dismounted cavalry, counting any garrison already inside
    (``shooting.buildings.garrison_stands``). The unit's colour stand must touch the building (within
    ``terrain.cover.touching_in``); it is placed inside, keeping its facing, and marked Garrisoned.
    """

    unit_id: str
    feature_id: str


@resolver(GarrisonBuilding)
def _resolve_garrison(battle: Battle, a: GarrisonBuilding, dice: DiceSource, tables: RuleTables) -> Resolved:
    import shapely
    from shapely.geometry import Point, Polygon

    from rules.battlefield.field import Battlefield

    unit = battle.unit(a.unit_id)
    feat = battle.feature(a.feature_id)
    label = feat.name or "the building"
    if not unit.in_play:
        raise IllegalAction(f"{unit.name} has been destroyed")
    if battle.phase != Phase.MANEUVER or unit.side != battle.active_side:
        raise IllegalAction(
            f"{unit.name} can occupy a building only in its own side's {Phase.MANEUVER.title}"
        )
    if unit.has(Marker.ENGAGED):
        raise IllegalAction(f"{unit.name} is engaged in melee and cannot occupy {label}", "RULE-06-1.1")
    bf = Battlefield(battle, tables)
    bf.check_garrison(unit, feat.id)
    if unit.has(Marker.GARRISONED) and bf.building_of(unit) is not None:
        raise IllegalAction(f"{unit.name} already garrisons {bf.building_of(unit).name or 'a building'}")
    inside = garrison_of(battle, feat.id, tables)
    cap = tables.entry("shooting.buildings.garrison_stands")
    if any(u.side != unit.side for u in inside):
        raise IllegalAction(f"{label} is held by the enemy; it must be taken by assault", "RULE-03-3.4")
    held = sum(u.stands for u in inside)
    if held + unit.stands > cap.value:
        raise IllegalAction(
            f"{label} already holds {held} stand{'s' if held != 1 else ''}; with {unit.name}'s "
            f"{unit.stands} it would hold more than {cap.value}",
            cap.citation,
        )
    outline = Polygon(feat.points)
    tol = float(tables.value("terrain.cover.touching_in"))
    gap = float(shapely.distance(outline, Point(unit.x, unit.y)))
    if gap > tol + 1e-9:
        raise IllegalAction(
            f"{unit.name}'s colour stand is {gap:.1f}\" from {label}; move it up to the building first",
            cap.citation,
        )
    spot = outline.representative_point()
    new = unit.moved_to(spot.x, spot.y).with_markers(add=[Marker.GARRISONED])
    text = f"{unit.name} occupies {label} ({unit.stands} of at most {cap.value} stands)"
    return Resolved(battle.with_unit(new), [Step(text, rule=cap.citation, units=(unit.id,))], text)


BOMBARD_PURPOSE = "bombardment"


@action_type("bombard_building")
@dataclass(frozen=True)
class BombardBuilding(Action):
    """Phase 3: a battery fires solid shot or shell at a garrisoned building (RULE-03-3.2).

    2D6 per section (RULE-04-2.3) hit on 4+ (``shooting.to_hit.building.artillery``), whatever the
    range up to the gun's maximum. The building saves each hit with its own cover from the terrain
    matrix (heavy, 4+: RULE-03-3.1); the hits are scored against the building itself, not its
    garrison. Every 2 unsaved hits are 1 structural hit, and at 4 it collapses into rubble (light
    cover) with its garrison losing 1 stand and placed outside, Disordered
    (:func:`rules.battlefield.field.damage_building`). The battery is marked with Smoke and Fired like any
    Phase 3 fire. It must have a garrison in its forward arc and in sight.
    """

    battery_id: str
    feature_id: str


@resolver(BombardBuilding)
def _resolve_bombard(battle: Battle, a: BombardBuilding, dice: DiceSource, tables: RuleTables) -> Resolved:
    import shapely
    from shapely.geometry import Point, Polygon

    from rules.battle.terrain import TerrainType
    from rules.battlefield.field import Battlefield, damage_building

    gun = battle.unit(a.battery_id)
    feat = battle.feature(a.feature_id)
    label = feat.name or "the building"
    if gun.kind != UnitKind.ARTILLERY:
        raise IllegalAction(
            f"only artillery can batter a building; {gun.name} is {gun.kind.label.lower()}", "RULE-03-3.2"
        )
    if not gun.in_play:
        raise IllegalAction(f"{gun.name} has been destroyed and cannot fire")
    if battle.phase != Phase.RANGED or gun.side != battle.active_side:
        raise IllegalAction(f"{gun.name} can fire only in its own side's {Phase.RANGED.title}")
    if gun.formation == Formation.LIMBERED:
        raise IllegalAction(f"{gun.name} is limbered and cannot fire until it unlimbers")
    fired = fired_refusal(battle, gun)
    if fired is not None:
        raise fired
    if feat.type != TerrainType.BUILDING:
        raise IllegalAction(
            f"{feat.name or feat.id} is not a building ({feat.type.label.lower()})", "RULE-03-3.2"
        )
    garrison = garrison_of(battle, feat.id, tables)
    enemies = [u for u in garrison if u.side != gun.side]
    if not enemies:
        raise IllegalAction(f"{label} has no enemy garrison to fire at", "RULE-03-3.2")
    bf = Battlefield(battle, tables)
    target = enemies[0]
    if not bf.in_arc(gun, target):
        raise IllegalAction(f"{label} is not in {gun.name}'s 45 degree forward arc", "RULE-03-5.1")
    sight = bf.line_of_sight(gun, target)
    if not sight.visible:
        raise IllegalAction(f"{gun.name} cannot see {label}: {sight.reason}", sight.rule)
    reach = tables.entry(f"shooting.max_range.{weapon_key(gun)}")
    dist = float(shapely.distance(Polygon(feat.points), Point(gun.x, gun.y)))
    if dist > reach.value + 1e-9:
        raise IllegalAction(
            f'{label} is {dist:.1f}" away, beyond {gun.name}\'s {reach.value:g}" maximum range',
            reach.citation,
        )

    pool = dice_pool(gun, tables, sight.clear_stands)
    hit = tables.entry("shooting.to_hit.building.artillery")
    hit_dice, hits = roll_needing(dice, pool, hit.value, BOMBARD_PURPOSE)
    steps = [
        Step(
            f"{gun.name} fires solid shot and shell at {label}: {pool}D6 hitting on {hit.value}+: "
            f"{hits} hit{'s' if hits != 1 else ''}",
            rule=hit.citation,
            dice=hit_dice,
            units=(gun.id,),
        )
    ]
    unsaved = hits
    cover = str(tables.value("terrain.matrix.building.cover"))
    if hits and cover != CoverClass.NONE.value:
        save = tables.save(cover)
        save_dice, saved = roll_needing(dice, hits, save.value, SAVE_PURPOSE)
        unsaved = hits - saved
        steps.append(
            Step(
                f"{label} saves {saved} of {hits} on {save.value}+ ({cover} cover)",
                rule=tables.entry("terrain.matrix.building.cover").citation,
                dice=save_dice,
            )
        )
    marked = gun.with_markers(add=[Marker.SMOKE, Marker.FIRED])
    steps.append(
        Step(
            f"{gun.name} is marked with Smoke and Fired; it cannot fire again in its Phase 3",
            rule="RULE-04-3.4",
            units=(gun.id,),
        )
    )
    recorded = record_phase_3_fire(battle.with_unit(marked), gun.id, ("bombardment", feat.id))
    dmg = damage_building(recorded, feat.id, unsaved, tables)
    steps.extend(dmg.steps)
    per = tables.value("shooting.buildings.structural_hits_to_collapse")
    summary = f"{gun.name} bombards {label}: {hits} hit{'s' if hits != 1 else ''}, {unsaved} unsaved; " + (
        "it collapses into rubble" if dmg.collapsed else f"{dmg.structural_hits} of {per} structural hits"
    )
    return Resolved(dmg.battle, steps, summary)
