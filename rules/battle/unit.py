"""A unit of the order of battle: a regiment, battery, skirmish stand or cavalry screen, its
health (derived from its stands), the hits it takes, and the checks every unit passes.

Conventions used everywhere in Brigadier:

* Lengths are inches on the table, angles are degrees.
* Table coordinates: ``x`` grows to the right and ``y`` grows *down* the table, as the umpire
  looks at it from the south edge (the same orientation Qt uses on screen).
* ``facing_deg`` is a compass bearing: 0 faces the top (north) edge, 90 faces east (right).
* A unit's position ``(x, y)`` is the centre of the front edge of its colour stand
  (RULE-03-5.2), which is where ranges and lines of sight are measured from.

All objects of the order of battle are frozen. A change makes a new object
(``dataclasses.replace``), so any state can be kept as it was for undo and replay, and resolving an
action is a pure function.

The health state is derived from stands, never stored (RULE-06-1.3, RULE-06-3.3)::

    >>> u = Unit(id="u", name="2nd Wisconsin", side="union", brigade="iron", kind=UnitKind.INFANTRY,
    ...          stands=5, stands_start=5)
    >>> u.health
    <Health.FRESH: 'fresh'>

The words a unit is described in (its kind, formation, markers ...) are in :mod:`rules.battle.words`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from rules import limits
from rules.battle.words import (
    FLANKS,
    FORMATIONS_BY_KIND,
    REFUSED_MARKER,
    Formation,
    GunType,
    Health,
    Marker,
    Quality,
    UnitKind,
    Weapon,
    article,
)
from rules.errors import InvariantError


def refused_flanks(unit: Unit) -> frozenset[str]:
    """The flanks ("left", "right") the unit has refused (RULE-04-5.3); a refusal saved before the
    side was recorded (:attr:`Marker.REFUSED_FLANK`) counts for both."""
    if Marker.REFUSED_FLANK in unit.markers:
        return frozenset(FLANKS)
    return frozenset(side for side, m in REFUSED_MARKER.items() if m in unit.markers)


# The health thresholds are fractions of the starting stands. They are rule numbers
# (RULE-06-1.3 "<35% stands remaining", RULE-06-3.3 ">75% starting stands remaining") and are
# compared in whole percent so that no rounding can move a unit across a threshold.
FRESH_ABOVE_PERCENT = 75
SPENT_BELOW_PERCENT = 35


def health_of(stands: int, stands_start: int) -> Health:
    """The health state of a unit with ``stands`` of ``stands_start`` left.

    Fresh is *more than* 75% of the starting stands, Spent is *less than* 35%. A unit at
    exactly 75% is therefore Worn, not Fresh, and a unit at exactly 35% is Worn, not Spent:
    both rules use strict comparisons.

    >>> health_of(4, 5).value, health_of(3, 4).value, health_of(7, 20).value, health_of(6, 20).value
    ('fresh', 'worn', 'worn', 'spent')
    """
    if stands <= 0:
        return Health.DESTROYED
    if stands * 100 > FRESH_ABOVE_PERCENT * stands_start:
        return Health.FRESH
    if stands * 100 < SPENT_BELOW_PERCENT * stands_start:
        return Health.SPENT
    return Health.WORN


HITS_PER_STAND = 2  # 2 unsaved hits = 1 stand loss (RULE-04-2.3, RULE-06-2.3)


@dataclass(frozen=True)
class Casualties:
    """What a number of unsaved hits did to a unit."""

    hits: int
    stands_lost: int
    micro_hits_after: int
    destroyed: bool


@dataclass(frozen=True)
class Arrival:
    """When and where a unit not yet on the table arrives: from game ``turn`` on, at the entry
    point named ``at`` (a road, a table edge), placed at ``x``, ``y`` facing ``facing_deg`` (or,
    without a place, where the umpire puts it); with ``roll``, only on a die of at least ``roll``,
    rolled each turn from ``turn`` on (``tried``: the last turn it was rolled and failed)."""

    turn: int
    at: str = ""
    x: float | None = None
    y: float | None = None
    facing_deg: float | None = None
    roll: int | None = None
    tried: int = 0

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"turn": self.turn}
        if self.at:
            d["at"] = self.at
        for name in ("x", "y", "facing_deg", "roll"):
            if getattr(self, name) is not None:
                d[name] = getattr(self, name)
        if self.tried:
            d["tried"] = self.tried
        return d

    @classmethod
    def from_dict(cls, d: Any) -> Arrival | None:
        """An arrival as saves and scenario files keep it (None, "none" or "": on the table)."""
        if d is None or (isinstance(d, str) and d.strip().lower() in ("", "none")):
            return None
        if not isinstance(d, Mapping):
            raise InvariantError(
                f"an arrival is a table of values (turn, at, x, y ...), not {limits._show(d)}"
            )
        unknown = set(d) - {"turn", "at", "x", "y", "facing_deg", "roll", "tried"}
        if unknown:
            raise InvariantError(f"an arrival has no value(s) {', '.join(sorted(map(str, unknown)))}")
        if "turn" not in d:
            raise InvariantError("an arrival needs the turn it is due")
        x, y = d.get("x"), d.get("y")
        if (x is None) != (y is None):
            raise InvariantError("an arrival's place needs both x and y")
        roll = d.get("roll")
        facing = d.get("facing_deg")
        return cls(
            turn=limits.whole(d["turn"], limits.TURN, "an arrival's turn"),
            at=str(d.get("at", "") or ""),
            x=None if x is None else read_position(x, "an arrival's x"),
            y=None if y is None else read_position(y, "an arrival's y"),
            facing_deg=None
            if facing is None
            else limits.number(facing, limits.FACING_DEG, "an arrival's facing") % 360,
            roll=None
            if roll is None
            else limits.whole(roll, limits.Range(2, 6, "an arrival's roll"), "an arrival's roll"),
            tried=limits.whole(
                d.get("tried", 0), limits.Range(0, 1000, "the turn last tried"), "the turn last tried"
            ),
        )

    def words(self) -> str:
        """ "turn 4 at the Harrisburg Road (on a 4 or more)"."""
        where = f" at {self.at}" if self.at else ""
        roll = f" (on a {self.roll} or more, rolled each turn)" if self.roll else ""
        return f"turn {self.turn}{where}{roll}"


@dataclass(frozen=True)
class Unit:
    """A regiment, battery, skirmish stand or cavalry screen.

    For an artillery battery ``stands`` counts its sections.
    """

    id: str
    name: str
    side: str
    brigade: str
    kind: UnitKind
    stands: int
    stands_start: int
    micro_hits: int = 0
    quality: Quality = Quality.REGULAR
    weapon: Weapon = Weapon.RIFLED_MUSKET
    gun: GunType | None = None
    traits: frozenset[str] = frozenset()
    formation: Formation = Formation.LINE
    x: float = 0.0
    y: float = 0.0
    facing_deg: float = 0.0
    markers: frozenset[Marker] = frozenset()
    parent: str | None = None  # the parent regiment of a skirmish stand or screen
    # hidden deployment: the enemy is not shown the unit until it is spotted (rules.sight.spotting)
    hidden: bool = False
    # not on the table yet: it arrives as its scenario says (rules.umpire.arrivals)
    arrives: Arrival | None = None

    def __post_init__(self) -> None:
        check_unit(self)

    # -- derived state -------------------------------------------------------------
    @property
    def health(self) -> Health:
        return health_of(self.stands, self.stands_start)

    @property
    def destroyed(self) -> bool:
        return self.stands <= 0

    @property
    def in_play(self) -> bool:
        """On the table and not destroyed: a unit still to arrive is not in play."""
        return self.stands > 0 and self.arrives is None

    @property
    def stands_on_table(self) -> int:
        """The stands it has on the table: none while it is still to arrive."""
        return self.stands if self.arrives is None else 0

    @property
    def arriving(self) -> bool:
        """Not on the table yet (:attr:`arrives` says when and where it comes)."""
        return self.arrives is not None

    @property
    def absent_words(self) -> str:
        """Why a unit not in play cannot act: "has not arrived yet (turn 4)" or "has been destroyed"."""
        if self.arrives is not None:
            return f"has not arrived yet (due turn {self.arrives.turn})"
        return "has been destroyed"

    @property
    def disordered(self) -> bool:
        return Marker.DISORDER in self.markers

    def has(self, marker: Marker) -> bool:
        return marker in self.markers

    def has_trait(self, trait: str) -> bool:
        return normalise_trait(trait) in self.traits

    @property
    def is_formed(self) -> bool:
        """Formed troops: not skirmishers, not a screen, not a road column."""
        return self.kind not in (UnitKind.SKIRMISHERS, UnitKind.CAVALRY_SCREEN) and self.formation not in (
            Formation.SKIRMISH,
            Formation.ROAD_COLUMN,
        )

    @property
    def is_screen(self) -> bool:
        return self.kind in (UnitKind.SKIRMISHERS, UnitKind.CAVALRY_SCREEN)

    @property
    def is_mounted(self) -> bool:
        return self.formation == Formation.MOUNTED

    # -- changes -------------------------------------------------------------------
    def with_markers(self, add: Iterable[Marker] = (), remove: Iterable[Marker] = ()) -> Unit:
        return replace(self, markers=(self.markers - frozenset(remove)) | frozenset(add))

    def take_hits(self, hits: int) -> tuple[Unit, Casualties]:
        """Apply ``hits`` unsaved hits: every 2 make a stand loss, an odd one is carried as a micro-hit.

        >>> u = Unit(id="u", name="8th Georgia", side="csa", brigade="b", kind=UnitKind.INFANTRY,
        ...          stands=5, stands_start=5)
        >>> u2, c = u.take_hits(3)
        >>> (u2.stands, u2.micro_hits, c.stands_lost)
        (4, 1, 1)
        """
        if hits < 0:
            raise InvariantError(f"{self.name}: hits cannot be negative ({hits})")
        total = self.micro_hits + hits
        lost = min(total // HITS_PER_STAND, self.stands)
        stands = self.stands - lost
        micro = total % HITS_PER_STAND if stands > 0 else 0
        unit = replace(self, stands=stands, micro_hits=micro)
        if stands == 0:
            unit = replace(unit, markers=frozenset())
        return unit, Casualties(hits=hits, stands_lost=lost, micro_hits_after=micro, destroyed=stands == 0)

    def lose_stands(self, n: int) -> tuple[Unit, Casualties]:
        """Remove ``n`` whole stands, whatever the micro-hits (RULE-06-4.3)."""
        if n < 0:
            raise InvariantError(f"{self.name}: stand losses cannot be negative ({n})")
        lost = min(n, self.stands)
        stands = self.stands - lost
        unit = replace(self, stands=stands, micro_hits=self.micro_hits if stands > 0 else 0)
        if stands == 0:
            unit = replace(unit, markers=frozenset())
        return unit, Casualties(
            hits=0, stands_lost=lost, micro_hits_after=unit.micro_hits, destroyed=stands == 0
        )

    def moved_to(self, x: float, y: float, facing_deg: float | None = None) -> Unit:
        return replace(
            self,
            x=float(x),
            y=float(y),
            facing_deg=self.facing_deg if facing_deg is None else float(facing_deg) % 360,
        )

    # -- serialisation -------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "side": self.side,
            "brigade": self.brigade,
            "kind": self.kind.value,
            "stands": self.stands,
            "stands_start": self.stands_start,
            "micro_hits": self.micro_hits,
            "quality": self.quality.value,
            "weapon": self.weapon.value,
            "gun": self.gun.value if self.gun else None,
            "traits": sorted(self.traits),
            "formation": self.formation.value,
            "x": self.x,
            "y": self.y,
            "facing_deg": self.facing_deg,
            "markers": sorted(m.value for m in self.markers),
            "parent": self.parent,
            "hidden": self.hidden,
            "arrives": self.arrives.to_dict() if self.arrives is not None else None,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Unit:
        if not isinstance(d, Mapping):
            raise InvariantError(f"a unit must be a table of values, not {limits._show(d)}")
        try:
            return cls(
                id=read_word(d["id"], "a unit's id"),
                name=read_word(d["name"], "a unit's name"),
                side=read_word(d["side"], "a unit's side"),
                brigade=read_word(d["brigade"], "a unit's brigade"),
                kind=UnitKind.parse(read_word(d["kind"], "a unit's kind")),
                stands=read_whole(d["stands"], "stands", limits.STANDS),
                stands_start=read_whole(d["stands_start"], "stands_start", limits.STANDS_START),
                micro_hits=read_whole(d.get("micro_hits", 0), "micro_hits"),
                quality=Quality.parse(read_word(d.get("quality", "regular"), "a unit's quality")),
                weapon=Weapon.parse(read_word(d.get("weapon", "rifled_musket"), "a unit's weapon")),
                gun=GunType.parse(read_word(d["gun"], "a gun type")) if d.get("gun") else None,
                traits=frozenset(
                    normalise_trait(read_word(t, "a trait"))
                    for t in read_words(d.get("traits", ()), "traits")
                ),
                formation=Formation.parse(read_word(d.get("formation", "line"), "a formation")),
                x=read_position(d.get("x", 0.0), "x"),
                y=read_position(d.get("y", 0.0), "y"),
                facing_deg=limits.number(d.get("facing_deg", 0.0), limits.FACING_DEG, "facing_deg") % 360,
                markers=frozenset(
                    Marker.parse(read_word(m, "a marker"))
                    for m in read_words(d.get("markers", ()), "markers")
                ),
                parent=read_word(d["parent"], "a parent regiment") if d.get("parent") else None,
                hidden=read_bool(d.get("hidden", False), "hidden"),
                arrives=Arrival.from_dict(d.get("arrives")),
            )
        except KeyError as exc:
            raise InvariantError(
                f"unit {limits._show(d.get('name', d.get('id', '?')))} is missing '{exc.args[0]}'"
            ) from None


#: The values of a unit, as scenario files, saves and the umpire's overrides name them: the fields
#: of :class:`Unit`, in order (``Unit.to_dict`` has exactly these keys).
UNIT_KEYS: tuple[str, ...] = tuple(f.name for f in fields(Unit))


def normalise_trait(trait: str) -> str:
    return str(trait).strip().lower().replace(" ", "_").replace("-", "_")


REBEL_YELL = "rebel_yell"


def read_whole(value: Any, what: str, rng: limits.Range = limits.COUNT) -> int:
    """A whole number of a saved or typed table in its range (a float with no fraction is taken)."""
    return limits.whole(value, rng, what)


def read_bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise InvariantError(f"{what} must be true or false, not {limits._show(value)}")
    return value


def read_position(value: Any, what: str) -> float:
    """A position of a saved or typed table, in inches."""
    return limits.number(value, limits.POSITION_IN, what)


def read_word(value: Any, what: str) -> str:
    """An id, a name or a word of a saved or typed table: text, of a bounded length."""
    return limits.text(value, what)


def read_words(value: Any, what: str) -> list[Any]:
    """A list of words (traits, markers) of a saved or typed table."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, set, frozenset)):
        raise InvariantError(f"{what} must be a list of words, not {limits._show(value)}")
    if len(value) > 100:
        raise InvariantError(f"{what} lists {len(value)} words; at most 100 are allowed")
    return list(value)


def check_unit(u: Unit) -> None:
    """Raise :class:`InvariantError` if the unit breaks an invariant of the order of battle."""
    if not u.id:
        raise InvariantError("a unit needs an id")
    for what in ("stands", "stands_start", "micro_hits"):
        v = getattr(u, what)
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvariantError(f"{u.name}: {what} must be a whole number, not {limits._show(v)}")
    if u.stands_start < 1:
        raise InvariantError(f"{u.name}: a unit starts with at least 1 stand, not {u.stands_start}")
    if u.stands < 0:
        raise InvariantError(f"{u.name}: stands cannot be negative ({u.stands})")
    if u.stands_start > limits.STANDS_START.hi:
        raise InvariantError(
            f"{u.name}: starting stands must be {limits.STANDS_START.text()}, "
            f"not {limits._show(u.stands_start)}"
        )
    if u.stands > u.stands_start:
        raise InvariantError(f"{u.name}: {u.stands} stands is more than the {u.stands_start} it started with")
    if not 0 <= u.micro_hits < HITS_PER_STAND:
        raise InvariantError(
            f"{u.name}: micro-hits must be 0 or 1 ({HITS_PER_STAND} unsaved hits make a stand), "
            f"not {u.micro_hits}"
        )
    if u.stands == 0 and u.micro_hits:
        raise InvariantError(f"{u.name}: a destroyed unit carries no micro-hits")
    if u.formation not in FORMATIONS_BY_KIND[u.kind]:
        allowed = [f.value for f in FORMATIONS_BY_KIND[u.kind]]
        choices = allowed[0] if len(allowed) == 1 else ", ".join(allowed[:-1]) + " or " + allowed[-1]
        noun = {UnitKind.SKIRMISHERS: "skirmish stand", UnitKind.CAVALRY_SCREEN: "cavalry screen"}.get(
            u.kind, f"{u.kind.label.lower()} unit"
        )
        raise InvariantError(
            f"{u.name}: {article(noun)} {noun} cannot be in {u.formation.value} formation; use {choices}"
        )
    if u.kind == UnitKind.ARTILLERY and u.gun is None:
        raise InvariantError(f"{u.name}: an artillery battery needs a gun type")
    if u.kind != UnitKind.ARTILLERY and u.gun is not None:
        raise InvariantError(f"{u.name}: only artillery has a gun type")
    if u.is_screen and not u.parent:
        raise InvariantError(f"{u.name}: a skirmish stand or cavalry screen needs its parent regiment")
    if not isinstance(u.hidden, bool):
        raise InvariantError(f"{u.name}: hidden must be true or false, not {u.hidden!r}")
    for v, what in ((u.x, "x"), (u.y, "y"), (u.facing_deg, "facing")):
        if not isinstance(v, (int, float)) or not math.isfinite(v):
            raise InvariantError(f"{u.name}: {what} must be a finite number")
    if not (
        limits.POSITION_IN.lo <= u.x <= limits.POSITION_IN.hi
        and limits.POSITION_IN.lo <= u.y <= limits.POSITION_IN.hi
    ):
        raise InvariantError(f"{u.name}: ({u.x:g}, {u.y:g}) is far off the table")
