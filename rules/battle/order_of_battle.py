"""The order of battle: sides, brigades with their Brigadier and Staff Pips, and units.

Conventions used everywhere in Brigadier:

* Lengths are inches on the table, angles are degrees.
* Table coordinates: ``x`` grows to the right and ``y`` grows *down* the table, as the umpire
  looks at it from the south edge (the same orientation Qt uses on screen).
* ``facing_deg`` is a compass bearing: 0 faces the top (north) edge, 90 faces east (right).
* A unit's position ``(x, y)`` is the centre of the front edge of its colour stand
  (RULE-03-5.2), which is where ranges and lines of sight are measured from.

All objects here are frozen. A change makes a new object (``dataclasses.replace``), so any state
can be kept as it was for undo and replay, and resolving an action is a pure function.

The health state is derived from stands, never stored (RULE-06-1.3, RULE-06-3.3)::

    >>> u = Unit(id="u", name="2nd Wisconsin", side="union", brigade="iron", kind=UnitKind.INFANTRY,
    ...          stands=5, stands_start=5)
    >>> u.health
    <Health.FRESH: 'fresh'>
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum as _StrEnum
from typing import Any

from rules import limits
from rules.errors import InvariantError


class StrEnum(_StrEnum):
    """An enum whose values are the words used in scenario files and saves."""

    def __str__(self) -> str:
        return self.value

    @property
    def label(self) -> str:
        return self.value.replace("_", " ").capitalize()

    @classmethod
    def parse(cls, text: str | StrEnum) -> Any:
        if isinstance(text, cls):
            return text
        key = str(text).strip().lower().replace(" ", "_").replace("-", "_")
        for member in cls:
            if member.value == key:
                return member
        allowed = ", ".join(m.value for m in cls)
        what = cls.readable_name()
        said = str(text) if len(str(text)) <= 40 else str(text)[:37] + "..."
        raise InvariantError(f"'{said}' is not {article(what)} {what}; use one of: {allowed}")

    @classmethod
    def readable_name(cls) -> str:
        """The kind of value in words: ``BrigadeState`` -> "brigade state"."""
        return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", cls.__name__).lower()


def article(word: str) -> str:
    """The article before ``word``, as it is said: an infantry unit, a unit, an hour."""
    w = str(word).strip().lower()
    if w.startswith(("uni", "use", "usu", "uti", "eu", "one", "once")):
        return "a"
    if w.startswith(("hour", "honest", "honour")):
        return "an"
    return "an" if w[:1] in ("a", "e", "i", "o", "u") else "a"


def plural(n: int, singular: str, plural_form: str | None = None) -> str:
    """A count with its noun: ``plural(1, "stand")`` -> "1 stand", ``plural(4, "stand")`` -> "4 stands"."""
    return f"{n} {singular if n == 1 else (plural_form or singular + 's')}"


class UnitKind(StrEnum):
    INFANTRY = "infantry"
    CAVALRY = "cavalry"
    ARTILLERY = "artillery"
    SKIRMISHERS = "skirmishers"  # a detached skirmish stand of a parent regiment
    CAVALRY_SCREEN = "cavalry_screen"  # a mounted light cavalry screen


class Quality(StrEnum):
    VETERAN = "veteran"  # veteran / elite
    REGULAR = "regular"
    GREEN = "green"  # green / conscript


class Weapon(StrEnum):
    SMOOTHBORE_MUSKET = "smoothbore_musket"  # buck & ball
    RIFLED_MUSKET = "rifled_musket"  # Springfield / Enfield
    BREECHLOADING_CARBINE = "breechloading_carbine"
    REPEATING_RIFLE = "repeating_rifle"
    NONE = "none"  # artillery crews fight hand to hand without weapon bonuses (RULE-06-5.1)


class GunType(StrEnum):
    NAPOLEON_12PDR = "12pdr_napoleon"
    ORDNANCE_RIFLE_3IN = "3in_ordnance_rifle"
    PARROTT_10PDR = "10pdr_parrott"
    HOWITZER_12PDR = "12pdr_howitzer"


class Formation(StrEnum):
    LINE = "line"  # line of battle
    ASSAULT_COLUMN = "assault_column"
    ROAD_COLUMN = "road_column"
    SKIRMISH = "skirmish"  # skirmish order
    MOUNTED = "mounted"  # cavalry formed mounted
    DISMOUNTED = "dismounted"  # cavalry fighting on foot, in line
    LIMBERED = "limbered"
    UNLIMBERED = "unlimbered"


FORMATIONS_BY_KIND: dict[UnitKind, tuple[Formation, ...]] = {
    UnitKind.INFANTRY: (Formation.LINE, Formation.ASSAULT_COLUMN, Formation.ROAD_COLUMN, Formation.SKIRMISH),
    UnitKind.CAVALRY: (
        Formation.MOUNTED,
        Formation.DISMOUNTED,
        Formation.LINE,
        Formation.ASSAULT_COLUMN,
        Formation.ROAD_COLUMN,
    ),
    UnitKind.ARTILLERY: (Formation.UNLIMBERED, Formation.LIMBERED),
    UnitKind.SKIRMISHERS: (Formation.SKIRMISH,),
    UnitKind.CAVALRY_SCREEN: (Formation.MOUNTED, Formation.DISMOUNTED),
}


class Marker(StrEnum):
    DISORDER = "disorder"
    SMOKE = "smoke"
    FIRED = "fired"
    PINNED = "pinned"
    ENGAGED = "engaged"  # engaged in melee
    GARRISONED = "garrisoned"
    # Refuse the Flank wheels one flank (RULE-04-5.3): the left, or the right. A regiment may have
    # refused both, each by its own reaction.
    REFUSED_LEFT = "refused_left"
    REFUSED_RIGHT = "refused_right"
    # A refusal saved before Brigadier recorded its side: it stands for both flanks, as it did
    # when it was made, so that such a game reads and replays as it was played.
    REFUSED_FLANK = "refused_flank"
    CLIMBING = "climbing"  # climbing out of a sunken road this turn: no musketry (RULE-03-2.5)


FLANKS = ("left", "right")

#: The marker of a refused flank, by the flank refused (RULE-04-5.3).
REFUSED_MARKER: dict[str, Marker] = {"left": Marker.REFUSED_LEFT, "right": Marker.REFUSED_RIGHT}


def refused_flanks(unit: Unit) -> frozenset[str]:
    """The flanks ("left", "right") the unit has refused (RULE-04-5.3); a refusal saved before the
    side was recorded (:attr:`Marker.REFUSED_FLANK`) counts for both."""
    if Marker.REFUSED_FLANK in unit.markers:
        return frozenset(FLANKS)
    return frozenset(side for side, m in REFUSED_MARKER.items() if m in unit.markers)


class BrigadeState(StrEnum):
    STEADY = "steady"
    HESITANT = "hesitant"
    BROKEN = "broken"


class BrigadierStatus(StrEnum):
    ACTIVE = "active"
    WOUNDED = "wounded"
    KILLED = "killed"
    CAPTURED = "captured"


class Health(StrEnum):
    """Health state of a unit (RULE-06-1.3, RULE-06-3.3)."""

    FRESH = "fresh"
    WORN = "worn"
    SPENT = "spent"
    DESTROYED = "destroyed"


class Phase(StrEnum):
    """The phases of a game turn, as the chapters name them."""

    COMMAND = "command"  # Phase 1: Staff Pips are spent and reserved
    MANEUVER = "maneuver"  # Phase 2: Active Maneuver & Assault (Windows A and B)
    RANGED = "ranged"  # Phase 3: Ranged Combat
    MELEE = "melee"  # Phase 4: Assault & Melee Resolution
    END = "end"  # end of turn: what expires is cleared

    @property
    def number(self) -> int:
        return list(Phase).index(self) + 1

    @property
    def title(self) -> str:
        return {
            Phase.COMMAND: "Phase 1: Command",
            Phase.MANEUVER: "Phase 2: Active Maneuver & Assault",
            Phase.RANGED: "Phase 3: Ranged Combat",
            Phase.MELEE: "Phase 4: Assault & Melee Resolution",
            Phase.END: "End of turn",
        }[self]

    @classmethod
    def title_of(cls, phase: str | Phase) -> str:
        """The title of a phase given as its word (as events and saves keep it), or the text as it
        was given when it names no phase, so that a log or report still shows something readable.

        >>> Phase.title_of("ranged"), Phase.title_of("parley")
        ('Phase 3: Ranged Combat', 'parley')
        """
        try:
            return cls.parse(phase).title
        except InvariantError:
            return str(phase)


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
        return self.stands > 0

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
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Unit:
        if not isinstance(d, Mapping):
            raise InvariantError(f"a unit must be a table of values, not {limits._show(d)}")
        try:
            return cls(
                id=_word(d["id"], "a unit's id"),
                name=_word(d["name"], "a unit's name"),
                side=_word(d["side"], "a unit's side"),
                brigade=_word(d["brigade"], "a unit's brigade"),
                kind=UnitKind.parse(_word(d["kind"], "a unit's kind")),
                stands=_int(d["stands"], "stands", limits.STANDS),
                stands_start=_int(d["stands_start"], "stands_start", limits.STANDS_START),
                micro_hits=_int(d.get("micro_hits", 0), "micro_hits"),
                quality=Quality.parse(_word(d.get("quality", "regular"), "a unit's quality")),
                weapon=Weapon.parse(_word(d.get("weapon", "rifled_musket"), "a unit's weapon")),
                gun=GunType.parse(_word(d["gun"], "a gun type")) if d.get("gun") else None,
                traits=frozenset(
                    normalise_trait(_word(t, "a trait")) for t in _words(d.get("traits", ()), "traits")
                ),
                formation=Formation.parse(_word(d.get("formation", "line"), "a formation")),
                x=_float(d.get("x", 0.0), "x"),
                y=_float(d.get("y", 0.0), "y"),
                facing_deg=limits.number(d.get("facing_deg", 0.0), limits.FACING_DEG, "facing_deg") % 360,
                markers=frozenset(
                    Marker.parse(_word(m, "a marker")) for m in _words(d.get("markers", ()), "markers")
                ),
                parent=_word(d["parent"], "a parent regiment") if d.get("parent") else None,
                hidden=_bool(d.get("hidden", False), "hidden"),
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


def _int(value: Any, what: str, rng: limits.Range = limits.COUNT) -> int:
    """A whole number of a saved or typed table in its range (a float with no fraction is taken)."""
    return limits.whole(value, rng, what)


def _bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise InvariantError(f"{what} must be true or false, not {limits._show(value)}")
    return value


def _float(value: Any, what: str) -> float:
    """A position of a saved or typed table, in inches."""
    return limits.number(value, limits.POSITION_IN, what)


def _word(value: Any, what: str) -> str:
    """An id, a name or a word of a saved or typed table: text, of a bounded length."""
    return limits.text(value, what)


def _words(value: Any, what: str) -> list[Any]:
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
            f"{u.name}: starting stands must be {limits.STANDS_START.text()}, not {limits._show(u.stands_start)}"
        )
    if u.stands > u.stands_start:
        raise InvariantError(f"{u.name}: {u.stands} stands is more than the {u.stands_start} it started with")
    if not 0 <= u.micro_hits < HITS_PER_STAND:
        raise InvariantError(
            f"{u.name}: micro-hits must be 0 or 1 ({HITS_PER_STAND} unsaved hits make a stand), not {u.micro_hits}"
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
            name=_word(d.get("name", "") or "", "a Brigadier's name"),
            attached_to=_word(d["attached_to"], "attached_to") if d.get("attached_to") else None,
            status=BrigadierStatus.parse(_word(d.get("status", "active"), "a Brigadier's status")),
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
                    f"{self.name}: {what.replace('_', ' ')} must be {limits.STAFF_PIPS.text()}, not {limits._show(v)}"
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
                id=_word(d["id"], "a brigade's id"),
                name=_word(d["name"], "a brigade's name"),
                side=_word(d["side"], "a brigade's side"),
                brigadier=Brigadier.from_dict(d.get("brigadier") or {}),
                staff_pips=_int(d.get("staff_pips", 0), "staff_pips", limits.STAFF_PIPS),
                staff_pips_reserved=_int(
                    d.get("staff_pips_reserved", 0), "staff_pips_reserved", limits.STAFF_PIPS
                ),
                state=BrigadeState.parse(_word(d.get("state", "steady"), "a brigade's state")),
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
                id=_word(d["id"], "a side's id"),
                name=_word(d["name"], "a side's name"),
                colour=_word(d.get("colour", "#1f3a93"), "a side's colour"),
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
        return sum(
            u.stands
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
                raise InvariantError(f"{u.name}: its parent is '{p}', the unit itself; a unit cannot be its own parent")
            raise InvariantError(f"{u.name}: its parent regiments run in a circle ({' → '.join([*seen, p])})")
        seen.append(p)
        p = oob.units[p].parent
