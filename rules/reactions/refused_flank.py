"""A refused flank on the table: which stands wheel, and how long the refusal stands.

Refuse the Flank (chapter 04, 5.0) wheels "its outer 1 or 2 flank stands backward up to 45°"
on the side of the threat, while "the center Color Stand and opposite flank stands remain
anchored in their original alignment" (RULE-04-5.3). It protects that flank only (RULE-04-5.4):
the regiment is marked :attr:`~rules.battle.words.Marker.REFUSED_LEFT` or
:attr:`~rules.battle.words.Marker.REFUSED_RIGHT`, and may refuse the other flank too, by a reaction of
its own.

The chapters leave two things open, and the club tables say how Brigadier reads them:

* ``movement.refused_flank.stands_wheeled``: how many stands wheel (the rule's "1 or 2"; Example
  B wheels two). A regiment too small to keep its colour stand and an opposite flank stand
  anchored wheels fewer (:func:`stands_wheeled`).
* ``movement.refused_flank.lasts``: how long the refusal stands, since no rule says. ``moves``
  (the club default): until the regiment next moves or changes formation, which ends the angled
  shoulder; ``turn``: until the end of the turn in which it was refused; ``hand``: until the
  umpire removes the marker.

A refusal saved before Brigadier recorded its side (:attr:`~rules.battle.words.Marker.REFUSED_FLANK`)
stands for both flanks and never lapses by itself, as in the games that made it.
"""

from __future__ import annotations

from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.unit import Unit
from rules.battle.words import REFUSED_MARKER, Marker
from rules.tables import RuleTables

LASTS_KEY = "movement.refused_flank.lasts"
WHEELED_KEY = "movement.refused_flank.stands_wheeled"

#: The readings of ``movement.refused_flank.lasts``, in words.
LASTS: dict[str, str] = {
    "moves": "until the regiment next moves or changes formation",
    "turn": "until the end of the turn in which it was refused",
    "hand": "until the umpire removes it",
}

_SIDED = (Marker.REFUSED_LEFT, Marker.REFUSED_RIGHT)


def stands_wheeled(unit: Unit, tables: RuleTables) -> int:
    """How many stands of ``unit`` wheel back when it refuses a flank (RULE-04-5.3): the club's
    number (1 or 2), but no more than leaves the colour stand in the centre with as many stands on
    the anchored side, and at least one.

    >>> from rules.battle.words import UnitKind
    >>> from rules.tables import load_tables
    >>> line = lambda n: Unit(id="u", name="u", side="s", brigade="b", kind=UnitKind.INFANTRY, stands=n, stands_start=6)
    >>> [stands_wheeled(line(n), load_tables()) for n in (1, 2, 3, 4, 5, 6)]
    [1, 1, 1, 1, 2, 2]
    """
    wanted = int(tables.value(WHEELED_KEY))
    return max(1, min(wanted, (unit.stands - 1) // 2))


def how_long(tables: RuleTables) -> str:
    """How long a refusal stands, in words, with "(club default)" when the bundled value holds."""
    e = tables.entry(LASTS_KEY)
    words = LASTS.get(str(e.value), str(e.value))
    return f"{words} ({'club default' if e.club_default else e.citation})"


def _ends(before: Unit, after: Unit) -> bool:
    return (after.x, after.y, after.facing_deg, after.formation) != (
        before.x,
        before.y,
        before.facing_deg,
        before.formation,
    )


def refusals_ended(before: Battle, after: Battle, tables: RuleTables) -> tuple[Battle, list[Step]]:
    """With the club's ``moves`` reading: every refused flank of a regiment that ``after`` has
    moved, turned or re-formed since ``before`` is at an end. The battle without those markers and
    a line of the log for each; ``after`` itself when none ended."""
    e = tables.entry(LASTS_KEY)
    if e.value != "moves":
        return after, []
    steps: list[Step] = []
    out = after
    was_units = before.units
    for uid, u in after.units.items():
        if not u.markers:
            continue  # unmarked (most units): nothing ends
        was = was_units.get(uid)
        if was is u or was is None:
            continue  # unchanged by the action (the same object), or new: nothing ends
        sided = [m for m in _SIDED if m in u.markers]
        if not sided or not u.in_play or not _ends(was, u):
            continue
        out = out.with_unit(u.with_markers(remove=sided))
        sides = " and ".join(side for side, m in REFUSED_MARKER.items() if m in sided)
        what = "moved" if (u.x, u.y) != (was.x, was.y) else "turned or changed formation"
        steps.append(
            Step(
                f"{u.name} has {what}: its refused {sides} flank is at an end "
                f"(a refusal lasts {how_long(tables)})",
                rule=e.citation,
                units=(uid,),
            )
        )
    return out, steps


def refusals_lapse(battle: Battle, side: str, tables: RuleTables) -> tuple[Battle, list[Step]]:
    """With the club's ``turn`` reading, at the end of a side's turn: the refused flanks of the
    other side's regiments (refused against this turn's moves and charges) lapse."""
    e = tables.entry(LASTS_KEY)
    if e.value != "turn":
        return battle, []
    steps: list[Step] = []
    out = battle
    for u in battle.oob.in_play():
        sided = [m for m in _SIDED if m in u.markers]
        if u.side == side or not sided:
            continue
        out = out.with_unit(u.with_markers(remove=sided))
        sides = " and ".join(s for s, m in REFUSED_MARKER.items() if m in sided)
        steps.append(
            Step(
                f"{u.name}'s refused {sides} flank lapses at the end of the turn "
                f"(a refusal lasts {how_long(tables)})",
                rule=e.citation,
                units=(u.id,),
            )
        )
    return out, steps
