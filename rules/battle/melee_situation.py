"""How two units came to blows, and a melee waiting for Phase 4, as plain data (chapter 06).

A :class:`MeleeSituation` is everything a melee needs to know about the position beyond the units
themselves; a :class:`PendingMelee` is a melee a charge left for Phase 4 (RULE-06-1.1), kept in the
battle's turn records (:class:`rules.battle.turn_records.TurnRecords`). Both round-trip through plain
dictionaries. How they are fought is in :mod:`rules.melee.melee`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from rules.battle.terrain import TerrainType
from rules.battle.unit import Unit
from rules.battle.words import StrEnum
from rules.errors import InvariantError


class Contact(StrEnum):
    """Where the attacker's front edge touches the defender (RULE-06-3.1)."""

    FRONT = "front"
    FLANK = "flank"
    REAR = "rear"


class Outcome(StrEnum):
    ATTACKER_WINS = "attacker_wins"
    DEFENDER_WINS = "defender_wins"
    TIE = "tie"


class LeaderFate(StrEnum):
    UNHURT = "unhurt"
    WOUNDED = "wounded"
    KILLED = "killed"


# Storming these costs the attacker its momentum and a repulse costs it a stand (RULE-06-5.2).
STORMED_WORKS = frozenset({TerrainType.STONE_WALL, TerrainType.SUNKEN_ROAD, TerrainType.BREASTWORKS})
BUILT_UP = frozenset({TerrainType.BUILDING, TerrainType.TOWN_WOODEN, TerrainType.TOWN_MASONRY})
# Area terrain the defender fights from, whichever way the attacker comes in: built-up sectors and
# rubble. Linear obstacles (fences, walls, works, sunken roads) count against frontal assaults only.
AREA_DEFENCES = BUILT_UP | {TerrainType.RUBBLE}


@dataclass(frozen=True)
class MeleeSituation:
    """How two units came to blows: everything the melee needs beyond the units themselves.

    ``momentum_in`` is how far the attacker moved across open ground in this charge (0 for a
    melee re-rolled from a tie). ``defender_obstacle`` is the obstacle or structure the defender
    fights from (a stone wall its front edge touches, a building it garrisons ...).
    ``attacker_engaged`` / ``defender_engaged`` replace the counted engaged stands when the umpire
    sets them (RULE-06-3.4 depends on how the bases lie, which the umpire may judge).
    ``flank_side`` is the defender's flank a flank contact hits ("left" or "right"): a refused
    flank turns only a charge on that flank into a frontal clash (RULE-04-5.4). ``refused_flank``
    records that the defender had refused it when the charge came in. A melee recorded before
    the side was (``flank_side`` None) counts any refused flank, as it did then.
    """

    attacker: str
    defender: str
    contact: Contact = Contact.FRONT
    momentum_in: float = 0.0
    defender_obstacle: TerrainType | None = None
    defender_on_crest: bool = False
    attacker_uphill: bool | None = None  # charging uphill against the crest; None: as defender_on_crest
    attacker_downhill_from_crest: bool = False
    through_abatis: bool = False
    counter_charge: bool = False
    refused_flank: bool = False
    flank_anchored_on_works: bool = False
    defender_counts_disordered: bool = False
    defender_routed: bool = False
    attacker_engaged: int | None = None
    defender_engaged: int | None = None
    flank_side: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "contact", Contact.parse(self.contact))
        if self.flank_side not in (None, "left", "right"):
            raise InvariantError(f"a flank is 'left' or 'right', not {self.flank_side!r}")
        if self.defender_obstacle is not None:
            object.__setattr__(self, "defender_obstacle", TerrainType.parse(self.defender_obstacle))
        if isinstance(self.momentum_in, bool) or not isinstance(self.momentum_in, (int, float)):
            raise InvariantError(f"the charge distance must be a number of inches, not {self.momentum_in!r}")
        if not math.isfinite(self.momentum_in) or self.momentum_in < 0:
            raise InvariantError(f"the charge distance cannot be {self.momentum_in}")
        for what in ("attacker_engaged", "defender_engaged"):
            v = getattr(self, what)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise InvariantError(f"{what.replace('_', ' ')} stands must be a whole number, not {v!r}")
        if self.attacker == self.defender:
            raise InvariantError("a unit cannot fight itself in melee")


@dataclass(frozen=True)
class Consolidation:
    """The victor's free consolidation move (RULE-06-4.4): pivot, then advance along the new facing."""

    advance_in: float = 0.0
    pivot_deg: float = 0.0


_SITUATION_FIELDS = tuple(f for f in MeleeSituation.__dataclass_fields__)
# fields a melee gained after saves first held melees
_ADDED_FIELDS = frozenset({"flank_side"})


def situation_to_dict(s: MeleeSituation) -> dict:
    """A melee situation as plain values (enums as their words)."""
    out: dict = {}
    for name in _SITUATION_FIELDS:
        v = getattr(s, name)
        if name in _ADDED_FIELDS and v is None:
            continue  # written only when known: a melee without it reads and saves as it always did
        out[name] = v.value if isinstance(v, StrEnum) else v
    return out


def situation_from_dict(d: Mapping) -> MeleeSituation:
    """Read :func:`situation_to_dict`'s values back; malformed ones raise :class:`InvariantError`."""
    if not isinstance(d, Mapping):
        raise InvariantError("a recorded melee situation must be a table of values")
    unknown = set(d) - set(_SITUATION_FIELDS)
    if unknown:
        raise InvariantError(f"a recorded melee has no value(s) {', '.join(sorted(map(str, unknown)))}")
    for need in ("attacker", "defender"):
        if not isinstance(d.get(need), str) or not d.get(need):
            raise InvariantError(f"a recorded melee needs its {need}")
    try:
        return MeleeSituation(**dict(d))
    except TypeError as exc:
        raise InvariantError(f"a recorded melee is malformed: {exc}") from None


@dataclass(frozen=True)
class PendingMelee:
    """A melee waiting for its opposed roll in Phase 4 (RULE-06-1.1).

    ``situation`` is everything the charge left for the melee (contact front/flank/rear, the
    distance across open ground, a counter-charge, the crest, the defender's obstacle, abatis ...).
    ``turn`` and ``side`` say whose assault made contact and when. ``due_turn`` is the first game
    turn in whose Phase 4 it is fought: the turn of the contact, or the next game turn for a melee
    locked by a tie (RULE-06-4.2) or put off by the umpire. ``stands_lost`` are the stands each unit
    lost in the approach (the closing volley), which count for the Leader Loss roll after the melee.
    ``locked`` says the two units are locked after a tie.
    """

    id: str
    situation: MeleeSituation
    turn: int
    side: str
    due_turn: int
    stands_lost: Mapping[str, int] = field(default_factory=dict)
    locked: bool = False

    @property
    def attacker(self) -> str:
        return self.situation.attacker

    @property
    def defender(self) -> str:
        return self.situation.defender

    def is_due(self, turn: int) -> bool:
        """Whether the melee is fought in game turn ``turn``'s Phase 4 (a locked one waits for the next)."""
        return turn >= self.due_turn

    def describe(self, units: Mapping[str, Unit], turn: int) -> str:
        """ "4th Virginia against 2nd Wisconsin's front" ("locked by a tie", and the turn it waits for),
        the units named from ``units`` in game turn ``turn``."""
        a, d = units.get(self.attacker), units.get(self.defender)
        an = a.name if a is not None else self.attacker
        dn = d.name if d is not None else self.defender
        where = self.situation.contact.value
        if self.situation.contact == Contact.FLANK and self.situation.flank_side:
            where = f"{self.situation.flank_side} flank"
        text = f"{an} against {dn}'s {where}"
        if self.locked:
            text += ", locked by a tie"
        if not self.is_due(turn):
            text += f" (re-rolled in turn {self.due_turn})"
        return text

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "situation": situation_to_dict(self.situation),
            "turn": self.turn,
            "side": self.side,
            "due_turn": self.due_turn,
            "stands_lost": {str(k): int(v) for k, v in self.stands_lost.items()},
            "locked": self.locked,
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> PendingMelee:
        if not isinstance(d, Mapping):
            raise InvariantError("a pending melee must be a table of values")
        whole = {}
        for k in ("turn", "due_turn"):
            v = d.get(k)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise InvariantError(
                    f"a pending melee's {k.replace('_', ' ')} must be a turn from 1, not {v!r}"
                )
            whole[k] = v
        lost = d.get("stands_lost", {})
        if not isinstance(lost, Mapping) or any(
            isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in lost.values()
        ):
            raise InvariantError(f"a pending melee's stands lost must be whole numbers, not {lost!r}")
        if not isinstance(d.get("id"), str) or not d.get("id"):
            raise InvariantError("a pending melee needs an id")
        return cls(
            id=d["id"],
            situation=situation_from_dict(d.get("situation")),
            side=str(d.get("side", "")),
            stands_lost={str(k): v for k, v in lost.items()},
            locked=bool(d.get("locked", False)),
            **whole,
        )
