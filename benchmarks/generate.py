"""A large generated battle for benchmarks and soak tests: 100 units a side, 300 terrain features.

The battle is reproducible from its seed and obeys every invariant of the order of battle, so it
can be saved, opened and played like a scenario.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

from rules.battle.battle import Battle
from rules.battle.order_of_battle import Brigade, Brigadier, OrderOfBattle, Side
from rules.battle.terrain import TerrainFeature, TerrainType
from rules.battle.unit import Unit
from rules.battle.words import Formation, GunType, Quality, UnitKind, Weapon

AREA = [
    TerrainType.LIGHT_WOODS,
    TerrainType.DENSE_WOODS,
    TerrainType.CORNFIELD,
    TerrainType.ORCHARD,
    TerrainType.PLOUGHED_FIELD,
    TerrainType.SWAMP,
    TerrainType.TOWN_WOODEN,
    TerrainType.BUILDING,
]
LINEAR = [
    TerrainType.SPLIT_RAIL_FENCE,
    TerrainType.STONE_WALL,
    TerrainType.HEDGE,
    TerrainType.ROAD,
    TerrainType.STREAM,
]


def _blob(rng: random.Random, cx: float, cy: float, r: float, n: int = 7) -> tuple[tuple[float, float], ...]:
    pts = []
    for i in range(n):
        a = 2 * math.pi * i / n
        rr = r * rng.uniform(0.7, 1.0)
        pts.append((round(cx + rr * math.cos(a), 2), round(cy + rr * math.sin(a), 2)))
    return tuple(pts)


def big_battle(
    units_per_side: int = 100,
    features: int = 300,
    seed: int = 1863,
    width: float = 144.0,
    height: float = 96.0,
    gap: float | None = None,
) -> Battle:
    """``units_per_side`` units a side in rows facing each other across a ``width`` x ``height``
    table, and ``features`` terrain features scattered over it. The two fronts stand ``gap``
    inches apart about the table's middle (by default 0.24 of its height)."""
    rng = random.Random(seed)
    per_row = max(5, round(25 * width / 144.0))  # 25 a row on the 144" table
    sides = (Side("union", "Union", "#2b4c9b"), Side("csa", "Confederacy", "#9b2b2b"))
    brigades: dict[str, Brigade] = {}
    units: dict[str, Unit] = {}
    for s, side in enumerate(sides):
        facing = 0.0 if s == 0 else 180.0
        half = (0.12 * height) if gap is None else gap / 2
        base_y = height / 2 + (half if s == 0 else -half)
        for i in range(units_per_side):
            bid = f"{side.id}-b{i // 5}"
            if bid not in brigades:
                brigades[bid] = Brigade(
                    bid,
                    f"{side.name} brigade {i // 5 + 1}",
                    side.id,
                    Brigadier(f"General {side.name[0]}{i // 5 + 1}"),
                    staff_pips=3,
                )
            x = 4 + (i % per_row) * (width - 8) / per_row
            y = base_y + (i // per_row) * (6 if s == 0 else -6) + rng.uniform(-1, 1)
            if i % 10 == 9:
                u = Unit(
                    id=f"{side.id}-{i}",
                    name=f"{side.name} battery {i}",
                    side=side.id,
                    brigade=bid,
                    kind=UnitKind.ARTILLERY,
                    stands=2,
                    stands_start=3,
                    gun=GunType.NAPOLEON_12PDR,
                    weapon=Weapon.NONE,
                    formation=Formation.UNLIMBERED,
                    x=x,
                    y=y,
                    facing_deg=facing,
                )
            else:
                start = rng.randint(4, 8)
                u = Unit(
                    id=f"{side.id}-{i}",
                    name=f"{i + 1}th {side.name} Infantry",
                    side=side.id,
                    brigade=bid,
                    kind=UnitKind.INFANTRY,
                    stands=rng.randint(max(1, start - 3), start),
                    stands_start=start,
                    quality=rng.choice(list(Quality)),
                    weapon=rng.choice([Weapon.RIFLED_MUSKET, Weapon.SMOOTHBORE_MUSKET]),
                    formation=rng.choice([Formation.LINE, Formation.LINE, Formation.ASSAULT_COLUMN]),
                    x=x,
                    y=y,
                    facing_deg=facing,
                )
            units[u.id] = u
    terrain: list[TerrainFeature] = []
    for k in range(features):
        cx, cy = rng.uniform(0, width), rng.uniform(0, height)
        if k % 10 == 0:
            pts = _blob(rng, cx, cy, rng.uniform(5, 9), 9)
            crest = ((round(cx - 3, 2), round(cy, 2)), (round(cx + 3, 2), round(cy, 2)))
            terrain.append(
                TerrainFeature(f"t{k}", TerrainType.HILL, pts, level=1 + (k % 20 == 0), crest=crest)
            )
        elif k % 3 == 0:
            a = rng.uniform(0, math.pi)
            ln = rng.uniform(4, 12)
            pts = (
                (round(cx, 2), round(cy, 2)),
                (round(cx + ln * math.cos(a), 2), round(cy + ln * math.sin(a), 2)),
            )
            terrain.append(TerrainFeature(f"t{k}", rng.choice(LINEAR), pts))
        else:
            t = rng.choice(AREA)
            r = 1.0 if t == TerrainType.BUILDING else rng.uniform(1.5, 4)
            terrain.append(TerrainFeature(f"t{k}", t, _blob(rng, cx, cy, r)))
    return Battle(
        name=f"Generated battle ({units_per_side * 2} units, {features} features)",
        oob=OrderOfBattle(sides=sides, brigades=brigades, units=units),
        terrain=tuple(terrain),
        active_side="union",
        first_side="union",
        table_width_in=width,
        table_height_in=height,
        seed=seed,
    )


#: The largest battle the benchmarks generate: the scaling table's last size, 2,000 units and
#: 3,000 terrain features. That is twice the units and three times the features Brigadier opens
#: (:data:`rules.limits.MAX_UNITS`, :data:`rules.limits.MAX_TERRAIN`): it is measured to show how the
#: work grows past the biggest battle a club can load, not as a battle an umpire plays.
LARGEST_UNITS = 2_000
LARGEST_FEATURES = 3_000


def allow_largest_battle() -> None:
    """Let this process build, save and open battles up to :data:`LARGEST_UNITS` units and
    :data:`LARGEST_FEATURES` features, past :mod:`rules.limits`. Only the benchmarks' own
    processes call it (each figure runs in one); the application's limits are left alone."""
    from rules import limits

    limits.MAX_UNITS = max(limits.MAX_UNITS, LARGEST_UNITS)
    limits.MAX_TERRAIN = max(limits.MAX_TERRAIN, LARGEST_FEATURES)


def scaled_battle(units: int, seed: int = 1863) -> Battle:
    """A generated battle of ``units`` units (half a side) on a table grown with it: the 144" x
    96" table and 300 terrain features of 200 units, its sides and its terrain scaled so that
    each unit has as much table and terrain around it at every size (50 units: 72" x 48" and
    75 features; 2,000 units: 455" x 304" and 3,000 features), and the armies in contact at every
    size: their fronts :data:`SCALED_GAP_IN` apart, as on the 200-unit battle's table (closer on
    the smaller tables). Past the
    limits of :mod:`rules.limits` it needs :func:`allow_largest_battle` first."""
    f = math.sqrt(units / 200)
    return big_battle(
        units_per_side=units // 2,
        features=round(300 * units / 200),
        seed=seed,
        width=round(144.0 * f, 1),
        height=round(96.0 * f, 1),
        gap=min(SCALED_GAP_IN, 0.24 * 96.0 * f),  # (the small table's fronts as on it)
    )


#: How far apart the fronts of :func:`scaled_battle` stand at every size: as on the 144" x 96"
#: table of 200 units (0.24 of its height).
SCALED_GAP_IN = 0.24 * 96.0


#: How far apart the two fronts of :func:`contact_battle` stand: close enough for every unit of
#: the front rows to see, and fire on, the enemy across from it.
CONTACT_GAP_IN = 14.0
_CONTACT_HEIGHT_IN = round(CONTACT_GAP_IN / 0.24, 1)  # big_battle's fronts stand 0.24 of the height apart
_CONTACT_UNITS_PER_ROW = 100 / 4  # each side four rows deep: 25 units a row on every 144" of front


def contact_battle(units: int, seed: int = 1863) -> Battle:
    """A generated battle of ``units`` units (half a side) with the armies in contact: two fronts
    :data:`CONTACT_GAP_IN` apart, each side four rows deep behind its front, along a table that
    grows in width with the battle (150 units: 108" of front; 1,000 units: 720"), with as much
    terrain on each square inch as :func:`big_battle` has. Every unit has the same enemies within
    reach at every size: the work of sight grows with the units, not with the pairs of units.
    Past the limits of :mod:`rules.limits` it needs :func:`allow_largest_battle` first."""
    per_side = units // 2
    width = round(144.0 * per_side / (4 * _CONTACT_UNITS_PER_ROW), 1)
    features = round(300 * (width * _CONTACT_HEIGHT_IN) / (144.0 * 96.0))
    b = big_battle(
        units_per_side=per_side, features=features, seed=seed, width=width, height=_CONTACT_HEIGHT_IN
    )
    return replace(b, name=f"Generated battle in contact ({per_side * 2} units, {features} features)")
