"""The items of the phase checklist (:mod:`rules.turn.checklist`): what is still open in a phase,
each with its words, its rule and the units it concerns; the same items are recorded when the
umpire leaves them undone (:class:`rules.turn.checklist.LeftUndone`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.battle.words import StrEnum
from rules.errors import IllegalAction


class ItemKind(StrEnum):
    """What an item of the checklist asks of the umpire."""

    MOVE = "move"  # Phase 2: a unit of the side to act that has not moved
    ARRIVE = "arrive"  # Phase 2: units of the side to act due to arrive (reinforcements)
    FIRE = "fire"  # Phase 3: a unit that could still fire, with its best target
    MELEE = "melee"  # Phase 4: a melee due (it blocks the end of the phase)
    CHECK = "check"  # a roll owed: the Leader Loss roll after a melee
    RESERVED_PIPS = "reserved_pips"  # reserved Staff Pips not spent
    UMPIRE = "umpire"  # a unit or brigade needing the umpire's ruling


@dataclass(frozen=True)
class Item:
    """One thing still open in a phase: what it is (``kind``), the phase it belongs to, the words
    and the rule, the unit it concerns (``unit_id``; a brigade's item names a unit of it, and the
    brigade in ``brigade_id``), the other unit where there is one (the best target, the melee's
    defender), and whether it stops the phase from ending (``blocks``: a melee due in Phase 4)."""

    kind: str
    phase: str
    text: str
    rule: str | None = None
    unit_id: str | None = None
    brigade_id: str | None = None
    other_id: str | None = None
    melee_id: str | None = None
    blocks: bool = False

    def __str__(self) -> str:
        return self.text + (f" ({self.rule})" if self.rule else "")

    @property
    def key(self) -> str:
        """What identifies the item while it stays open (for a view that ticks items off)."""
        return ":".join((self.phase, self.kind, self.melee_id or self.unit_id or self.brigade_id or ""))

    @property
    def units(self) -> tuple[str, ...]:
        """The units to select for this item: its unit and the other one."""
        return tuple(u for u in (self.unit_id, self.other_id) if u)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "phase": self.phase, "text": self.text}
        for name in ("rule", "unit_id", "brigade_id", "other_id", "melee_id"):
            if getattr(self, name):
                d[name] = getattr(self, name)
        if self.blocks:
            d["blocks"] = True
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Item:
        if not isinstance(d, Mapping):
            raise IllegalAction("an item left undone must be a table of values")
        for need in ("kind", "phase", "text"):
            if not isinstance(d.get(need), str) or not d.get(need):
                raise IllegalAction(f"an item left undone needs its {need}")
        unknown = set(d) - {
            "kind",
            "phase",
            "text",
            "rule",
            "unit_id",
            "brigade_id",
            "other_id",
            "melee_id",
            "blocks",
        }
        if unknown:
            raise IllegalAction(f"an item left undone has no value {', '.join(sorted(map(str, unknown)))}")
        opt = {}
        for name in ("rule", "unit_id", "brigade_id", "other_id", "melee_id"):
            v = d.get(name)
            if v is not None and not isinstance(v, str):
                raise IllegalAction(f"an item left undone's {name.replace('_', ' ')} must be text, not {v!r}")
            opt[name] = v
        return cls(d["kind"], d["phase"], d["text"], blocks=bool(d.get("blocks", False)), **opt)


__all__ = ["Item", "ItemKind"]
