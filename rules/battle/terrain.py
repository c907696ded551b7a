"""Terrain features as data: area terrain, linear obstacles and hills.

This module holds what a feature *is* (its type, its outline or line, its level and crest);
what terrain *does* to movement, cover and sight is in :mod:`rules.battlefield.field`, read from the
Master Terrain Matrix in ``resources/rules/terrain.toml``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules import limits
from rules.battle.words import StrEnum
from rules.errors import InvariantError


class TerrainType(StrEnum):
    # area terrain
    OPEN = "open"
    LIGHT_WOODS = "light_woods"  # light woods and orchards
    ORCHARD = "orchard"
    DENSE_WOODS = "dense_woods"
    CORNFIELD = "cornfield"  # cornfields and tall crops
    SWAMP = "swamp"
    PLOUGHED_FIELD = "ploughed_field"
    TOWN_WOODEN = "town_wooden"
    TOWN_MASONRY = "town_masonry"
    BUILDING = "building"
    RUBBLE = "rubble"
    # linear terrain
    SPLIT_RAIL_FENCE = "split_rail_fence"
    STONE_WALL = "stone_wall"
    HEDGE = "hedge"
    ABATIS = "abatis"
    BREASTWORKS = "breastworks"
    SUNKEN_ROAD = "sunken_road"
    STREAM = "stream"
    FORD = "ford"
    BRIDGE = "bridge"
    ROAD = "road"
    # elevation
    HILL = "hill"


AREA_TYPES = frozenset(
    {
        TerrainType.OPEN,
        TerrainType.LIGHT_WOODS,
        TerrainType.ORCHARD,
        TerrainType.DENSE_WOODS,
        TerrainType.CORNFIELD,
        TerrainType.SWAMP,
        TerrainType.PLOUGHED_FIELD,
        TerrainType.TOWN_WOODEN,
        TerrainType.TOWN_MASONRY,
        TerrainType.BUILDING,
        TerrainType.RUBBLE,
    }
)
LINEAR_TYPES = frozenset(
    {
        TerrainType.SPLIT_RAIL_FENCE,
        TerrainType.STONE_WALL,
        TerrainType.HEDGE,
        TerrainType.ABATIS,
        TerrainType.BREASTWORKS,
        TerrainType.SUNKEN_ROAD,
        TerrainType.STREAM,
        TerrainType.FORD,
        TerrainType.BRIDGE,
        TerrainType.ROAD,
    }
)

Point = tuple[float, float]


@dataclass(frozen=True)
class TerrainFeature:
    """One piece of terrain.

    * Area terrain and hills: ``points`` is the outline (a closed polygon, first point not repeated).
    * Linear terrain: ``points`` is the line along it.
    * Hills: ``level`` is 1 or 2 and ``crest`` is the crestline, a line inside the outline.
    * Buildings: ``structural_hits`` so far (RULE-03-3.2).
    """

    id: str
    type: TerrainType
    points: tuple[Point, ...]
    name: str = ""
    level: int = 0
    crest: tuple[Point, ...] = ()
    structural_hits: int = 0
    width_in: float = 0.0  # the width of a linear feature (a sunken road, a stream); 0 = a line
    props: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_feature(self)

    @property
    def is_area(self) -> bool:
        return self.type in AREA_TYPES

    @property
    def is_linear(self) -> bool:
        return self.type in LINEAR_TYPES

    @property
    def is_hill(self) -> bool:
        return self.type == TerrainType.HILL

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "type": self.type.value, "points": [list(p) for p in self.points]}
        if self.name:
            d["name"] = self.name
        if self.level:
            d["level"] = self.level
        if self.crest:
            d["crest"] = [list(p) for p in self.crest]
        if self.structural_hits:
            d["structural_hits"] = self.structural_hits
        if self.width_in:
            d["width_in"] = self.width_in
        if self.props:
            d["props"] = dict(self.props)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TerrainFeature:
        if not isinstance(d, Mapping):
            raise InvariantError(f"a terrain feature must be a table of values, not {limits._show(d)}")
        try:
            fid = limits.text(d["id"], "a terrain feature's id")
            props = d.get("props", {})
            if not isinstance(props, Mapping) or not all(isinstance(k, str) for k in props):
                raise InvariantError(f"terrain '{fid}': props must be a table, not {limits._show(props)}")
            limits.shallow(props, f"terrain '{fid}': props")
            if _holds_none(props):  # props are written in scenario files, which have no "none"
                raise InvariantError(f"terrain '{fid}': props cannot hold none")
            return cls(
                id=fid,
                type=TerrainType.parse(limits.text(d["type"], "a terrain type")),
                points=parse_points(d["points"], f"terrain '{fid}'"),
                name=limits.text(d.get("name", ""), "a terrain feature's name"),
                level=limits.whole(d.get("level", 0), limits.COUNT, f"terrain '{fid}': level"),
                crest=parse_points(d.get("crest", ()), f"the crest of '{fid}'"),
                structural_hits=limits.whole(d.get("structural_hits", 0), limits.STRUCTURAL_HITS),
                width_in=limits.number(d.get("width_in", 0.0), WIDTH_IN),
                props=dict(props),
            )
        except KeyError as exc:
            raise InvariantError(f"a terrain feature is missing '{exc.args[0]}'") from None
        except (TypeError, ValueError) as exc:
            if isinstance(exc, InvariantError):
                raise
            raise InvariantError(f"terrain '{limits._show(d.get('id', '?'))}': {exc}") from None


def _holds_none(value: Any) -> bool:
    stack = [value]
    while stack:
        v = stack.pop()
        if v is None:
            return True
        if isinstance(v, Mapping):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return False


#: The width of a linear feature (a sunken road, a stream).
WIDTH_IN = limits.Range(0, 24, "the width of a linear feature", '"')


def parse_points(raw: Any, what: str) -> tuple[Point, ...]:
    """Read points given as pairs of finite numbers (inches) within 2,000" of the table (at most
    :data:`rules.limits.MAX_POINTS` of them); anything else is an InvariantError."""
    if isinstance(raw, (str, bytes, Mapping)) or not isinstance(raw, (list, tuple)):
        raise InvariantError(f"{what} must be a list of points [x, y] in inches")
    limits.count(len(raw), limits.MAX_POINTS, f"points in {what}")
    pts: list[Point] = []
    lo, hi = limits.POSITION_IN.lo, limits.POSITION_IN.hi
    try:
        for p in raw:
            if not isinstance(p, (list, tuple)):
                raise TypeError
            x, y = p
            if (
                isinstance(x, bool)
                or isinstance(y, bool)
                or not isinstance(x, (int, float))
                or not isinstance(y, (int, float))
            ):
                raise TypeError
            fx, fy = float(x), float(y)
            if not (math.isfinite(fx) and math.isfinite(fy)):
                raise TypeError
            if not (lo <= fx <= hi and lo <= fy <= hi):
                raise InvariantError(f"{what}: the point ({fx:g}, {fy:g}) is far off the table")
            pts.append((fx, fy))
    except (TypeError, ValueError, OverflowError) as exc:
        if isinstance(exc, InvariantError):
            raise
        raise InvariantError(f"{what} must be a list of points [x, y] in inches") from None
    return tuple(pts)


def check_feature(f: TerrainFeature) -> None:
    what = f"terrain '{f.name or f.id}'"
    if f.is_linear and len(f.points) < 2:
        raise InvariantError(f"{what}: a {f.type.value} needs at least 2 points")
    if (f.is_area or f.is_hill) and len(f.points) < 3:
        raise InvariantError(f"{what}: a {f.type.value} outline needs at least 3 points")
    if f.is_hill:
        if f.level not in (1, 2):
            raise InvariantError(f"{what}: a hill is level 1 or 2, not {f.level}")
        if f.crest and len(f.crest) < 2:
            raise InvariantError(f"{what}: a crestline needs at least 2 points")
    elif f.level:
        raise InvariantError(f"{what}: only hills have a level")
    if f.structural_hits < 0:
        raise InvariantError(f"{what}: structural hits cannot be negative")
    if f.structural_hits > limits.STRUCTURAL_HITS.hi:
        raise InvariantError(
            f"{what}: structural hits must be {limits.STRUCTURAL_HITS.text()}, not {f.structural_hits}"
        )
    if f.width_in < 0:
        raise InvariantError(f"{what}: width cannot be negative")
    if not f.width_in <= WIDTH_IN.hi:
        raise InvariantError(f"{what}: the width must be {WIDTH_IN.text()}, not {limits._show(f.width_in)}")
