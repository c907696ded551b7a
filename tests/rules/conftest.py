"""Helpers for the terrain, elevation and line-of-sight tests: a battle built from a few units and features."""

from __future__ import annotations

import pytest

from rules.battle.battle import Battle
from rules.battle.order_of_battle import Brigade, Brigadier, OrderOfBattle, Side
from rules.battle.terrain import TerrainFeature, TerrainType
from rules.battle.unit import Unit
from rules.battle.words import Formation, GunType, UnitKind, Weapon


def foot(uid, x, y, facing=0.0, side="union", stands=5, formation=Formation.LINE, **kw) -> Unit:
    """An infantry regiment; its brigade is 'ub' for the Union and 'cb' for the Confederates."""
    return Unit(
        id=uid,
        name=kw.pop("name", uid),
        side=side,
        brigade="ub" if side == "union" else "cb",
        kind=kw.pop("kind", UnitKind.INFANTRY),
        stands=stands,
        stands_start=max(stands, 1),
        formation=formation,
        x=x,
        y=y,
        facing_deg=facing,
        **kw,
    )


def guns(uid, x, y, facing=0.0, side="union", sections=3, formation=Formation.UNLIMBERED, **kw) -> Unit:
    return Unit(
        id=uid,
        name=kw.pop("name", uid),
        side=side,
        brigade="ub" if side == "union" else "cb",
        kind=UnitKind.ARTILLERY,
        stands=sections,
        stands_start=sections,
        gun=kw.pop("gun", GunType.ORDNANCE_RIFLE_3IN),
        weapon=Weapon.NONE,
        formation=formation,
        x=x,
        y=y,
        facing_deg=facing,
        **kw,
    )


def rect(fid, ttype, x0, y0, x1, y1, **kw) -> TerrainFeature:
    return TerrainFeature(fid, TerrainType.parse(ttype), ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), **kw)


def line(fid, ttype, *pts, **kw) -> TerrainFeature:
    return TerrainFeature(fid, TerrainType.parse(ttype), tuple(pts), **kw)


def battle_of(*units: Unit, terrain=()) -> Battle:
    sides = (Side("union", "Union"), Side("csa", "Confederacy"))
    brigades = {
        "ub": Brigade("ub", "Iron Brigade", "union", Brigadier("Meredith")),
        "cb": Brigade("cb", "Stonewall Brigade", "csa", Brigadier("Garnett")),
    }
    oob = OrderOfBattle(sides=sides, brigades=brigades, units={u.id: u for u in units})
    return Battle(
        name="test",
        oob=oob,
        terrain=tuple(terrain),
        active_side="union",
        table_width_in=200,
        table_height_in=200,
    )


@pytest.fixture
def make_battle():
    return battle_of
