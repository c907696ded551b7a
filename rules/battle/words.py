"""The words of the order of battle: a unit's kind, quality, weapon, gun type, formation and
markers, a brigade's state, a Brigadier's status, a unit's health, and the phases of the turn.

Each is a :class:`StrEnum` whose values are the words scenario files and saves use; ``parse``
reads one as it is typed or saved, and :func:`article` and :func:`plural` put them in a sentence::

    >>> Formation.parse("assault column"), plural(2, "stand")
    (<Formation.ASSAULT_COLUMN: 'assault_column'>, '2 stands')

The unit is in :mod:`rules.battle.unit`, its brigade, side and the order of battle in
:mod:`rules.battle.order_of_battle`.
"""

from __future__ import annotations

import re
from enum import StrEnum as _StrEnum
from typing import Any

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
