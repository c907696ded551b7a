"""The totals of each game turn, kept in the save with the entry that ended the turn.

The course of a battle (the Plots dock's charts, the strength table of a turn's summary) needs,
for every turn, the stands of each unit at its end, the unit's side, brigade, name and markers,
the brigades then in the battle, and the stands each side lost in the turn. Reading these from
the journal means rebuilding the battle at the end of every turn and reading every entry's
changes, which grows with the game. So when an entry ends a turn (the end of the second side's
turn, or the umpire's ruling that changes the turn), :class:`storage.game.Game` writes the turn's
:class:`TurnTotals` beside it, in the same transaction; undoing the entry takes them away with it
(``turn_totals`` in :mod:`storage.schema`).

The totals are derived from the journal, never the other way round: ``brigadier verify`` checks
them against the journal, and a turn whose totals are missing (a save of an earlier format) or
cannot be read is read from the journal instead.

>>> from storage.scenario import load_demo
>>> t = TurnTotals.of(1, 7, load_demo(), [])
>>> t.side_stands()["union"], t.lost
(19, {})
>>> TurnTotals.from_json(1, 7, t.to_json()) == t
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rules.battle.battle import Battle
from rules.battle.events import Changes
from rules.battle.words import Marker

if TYPE_CHECKING:
    from storage.journal import Event


@dataclass(frozen=True)
class UnitTotal:
    """A unit at the end of a turn, as the course of the battle shows it."""

    stands: int
    side: str
    brigade: str
    name: str
    markers: tuple[str, ...]  # the markers' values, in the order ``sorted(unit.markers)`` gives


@dataclass(frozen=True)
class TurnTotals:
    """The totals of game turn ``turn``, as they stood after journal entry ``seq`` (the last entry
    filed in the turn, which ended it)."""

    turn: int
    seq: int
    units: Mapping[str, UnitTotal]
    brigades: tuple[str, ...]  # the brigades in the battle at the end of the turn, in its order
    lost: Mapping[str, int]  # stands lost in the turn, by side id (sides that lost none left out)

    @classmethod
    def of(cls, turn: int, seq: int, battle: Battle, events: Iterable[Event]) -> TurnTotals:
        """The totals of ``turn``, whose end is ``battle`` and whose journal entries are ``events``."""
        units = {
            u.id: UnitTotal(
                u.stands_on_table, u.side, u.brigade, u.name, tuple(m.value for m in sorted(u.markers))
            )
            for u in battle.units.values()
        }
        return cls(turn, seq, units, tuple(battle.brigades), losses_by_side(events))

    def side_stands(self) -> dict[str, int]:
        """Stands on the table by side at the end of the turn."""
        out: dict[str, int] = {}
        for u in self.units.values():
            out[u.side] = out.get(u.side, 0) + u.stands
        return out

    def to_json(self) -> str:
        return json.dumps(
            {
                "units": {
                    k: [u.stands, u.side, u.brigade, u.name, list(u.markers)] for k, u in self.units.items()
                },
                "brigades": list(self.brigades),
                "lost": dict(self.lost),
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, turn: int, seq: int, text: str) -> TurnTotals:
        """Read totals written by :meth:`to_json`; anything else raises ``ValueError``."""
        try:
            d = json.loads(text)
            units = {}
            for k, (stands, side, brigade, name, markers) in d["units"].items():
                if isinstance(stands, bool) or not isinstance(stands, int):
                    raise ValueError(f"stands {stands!r}")
                if not all(isinstance(x, str) for x in (k, side, brigade, name, *markers)):
                    raise ValueError("a name that is not text")
                units[k] = UnitTotal(stands, side, brigade, name, tuple(Marker(m).value for m in markers))
            brigades = tuple(d["brigades"])
            lost = {str(k): v for k, v in d["lost"].items()}
            if not all(isinstance(b, str) for b in brigades):
                raise ValueError("a brigade that is not named")
            if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in lost.values()):
                raise ValueError("stands lost that are not a count")
        except (TypeError, KeyError, AttributeError, json.JSONDecodeError) as exc:
            raise ValueError(f"the totals of turn {turn} are malformed ({exc})") from None
        return cls(turn, seq, units, brigades, lost)


def _stands(d: Mapping[str, Any] | None) -> int:
    return int(d.get("stands", 0)) if d else 0


def unit_losses_in(changes: Changes) -> dict[str, tuple[int, int]]:
    """Stands lost and restored by each unit in one event's changes: ``{unit_id: (lost, restored)}``.

    A unit added or removed by the umpire is not a casualty and is not counted.
    """
    out: dict[str, tuple[int, int]] = {}
    for uid, (before, after) in changes.units.items():
        if before is None or after is None:
            continue
        d = _stands(before) - _stands(after)
        if d:
            out[uid] = (max(d, 0), max(-d, 0))
    return out


def losses_by_side(events: Iterable[Event]) -> dict[str, int]:
    """Stands lost by each side in ``events`` (:func:`unit_losses_in`: a unit added
    or removed by the umpire is not a casualty, stands given back are not subtracted)."""
    out: dict[str, int] = {}
    for e in events:
        for uid, (lost, _restored) in unit_losses_in(e.changes).items():
            if not lost:
                continue
            before, after = e.changes.units[uid]
            side = str((after or before).get("side", ""))
            out[side] = out.get(side, 0) + lost
    return out


def totals_of_rows(rows: Iterable[tuple[Any, Any, Any]]) -> dict[int, TurnTotals]:
    """Totals by journal entry from ``(seq, turn, totals)`` rows; a row that cannot be read is
    left out (its turn is then read from the journal)."""
    out: dict[int, TurnTotals] = {}
    for seq, turn, text in rows:
        if not isinstance(seq, int) or not isinstance(turn, int) or not isinstance(text, str):
            continue
        try:
            out[seq] = TurnTotals.from_json(turn, seq, text)
        except ValueError:
            continue
    return out
