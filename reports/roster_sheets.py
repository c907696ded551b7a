"""Roster sheets: each side's order of battle as the players keep it at the table, by brigade.

A sheet is plain data (no Qt): :func:`roster_sheets` makes one :class:`SideSheet` per side from a
battle, either **as it stands now** in a game (stands lost struck through, micro-hits and markers
marked, Staff Pips and brigade state as they are) or **blank** from a scenario, for a game kept on
paper and typed in afterwards (the scenario's own starting values, the Staff Pip tracks left open
for the pips of each turn). :mod:`gui.roster_print` lays the sheets out on Letter or A4 paper.

Each brigade gives its Brigadier, a Staff Pips track and its state; each unit its name and id,
kind, quality, weapon (a battery its guns), traits and formation, its stands as boxes to strike
(as many as it started with; a battery's are its sections), a micro-hit box and its marker boxes.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.battle.battle import Battle
from rules.battle.unit import HITS_PER_STAND, Unit
from rules.battle.words import REFUSED_MARKER, BrigadeState, GunType, Marker, UnitKind, Weapon
from rules.tables import RuleTables

GUN_NAMES = {
    GunType.NAPOLEON_12PDR: "12-pdr Napoleons",
    GunType.ORDNANCE_RIFLE_3IN: "3-in Ordnance Rifles",
    GunType.PARROTT_10PDR: "10-pdr Parrotts",
    GunType.HOWITZER_12PDR: "12-pdr Howitzers",
}

#: The markers a sheet has a box for, with the letter the map uses for each.
MARKER_LETTERS: tuple[tuple[Marker, str], ...] = (
    (Marker.DISORDER, "D"),
    (Marker.SMOKE, "S"),
    (Marker.FIRED, "F"),
    (Marker.PINNED, "P"),
    (Marker.ENGAGED, "E"),
    (Marker.GARRISONED, "G"),
    (Marker.REFUSED_LEFT, "L"),
    (Marker.REFUSED_RIGHT, "R"),
    (Marker.CLIMBING, "C"),
)

BRIGADE_STATES: tuple[BrigadeState, ...] = tuple(BrigadeState)


@dataclass(frozen=True)
class UnitLine:
    """One unit of a sheet."""

    id: str
    name: str
    kind: str  # "Infantry", "Artillery" ...
    quality: str
    weapon: str  # the firearm, or a battery's guns ("3-in Ordnance Rifles")
    traits: str
    formation: str
    stands_start: int  # boxes: stands, or a battery's sections
    stands_lost: int  # boxes struck through
    micro_hits: int  # micro-hit boxes marked
    micro_boxes: int  # micro-hit boxes (a stand is lost at HITS_PER_STAND hits)
    markers: tuple[str, ...]  # the markers on the unit (Marker values)
    battery: bool = False
    parent: str = ""  # a skirmish stand's or screen's parent regiment (its name)

    @property
    def stands_label(self) -> str:
        """What the boxes count: "sections" for a battery, "stands" otherwise."""
        return "sections" if self.battery else "stands"


@dataclass(frozen=True)
class BrigadeBlock:
    """A brigade of a sheet: its Brigadier, Staff Pips track, state and units."""

    id: str
    name: str
    brigadier: str
    brigadier_status: str  # "active", "wounded" ...
    attached_to: str  # the name of the regiment he is attached to ("" if none)
    pip_boxes: int  # the Staff Pips track's length
    staff_pips: int | None  # available now (None on a blank sheet: the track is left open)
    staff_pips_reserved: int | None
    state: str | None  # BrigadeState value (None on a blank sheet: to tick)
    units: tuple[UnitLine, ...]


@dataclass(frozen=True)
class SideSheet:
    """One side's roster sheet."""

    side_id: str
    side: str
    colour: str
    battle: str
    when: str  # "Turn 3, Confederate: Phase 2 ..." or "Blank sheet: the scenario's start"
    blank: bool
    brigades: tuple[BrigadeBlock, ...]

    @property
    def units(self) -> tuple[UnitLine, ...]:
        return tuple(u for b in self.brigades for u in b.units)


def _label(word: str) -> str:
    return word.replace("_", " ").capitalize()


def unit_line(u: Unit, battle: Battle) -> UnitLine:
    """A unit as its sheet prints it."""
    battery = u.kind == UnitKind.ARTILLERY
    if battery and u.gun is not None:
        weapon = GUN_NAMES.get(u.gun, _label(u.gun.value))
    elif u.weapon == Weapon.NONE:
        weapon = "None"
    else:
        weapon = _label(u.weapon.value)
    parent = battle.units.get(u.parent).name if u.parent and u.parent in battle.units else ""
    return UnitLine(
        id=u.id,
        name=u.name,
        kind=u.kind.label,
        quality=u.quality.label,
        weapon=weapon,
        traits=", ".join(_label(t) for t in sorted(u.traits)),
        # a unit still to arrive is not on the field: the sheet says when it comes instead
        formation=u.formation.label if u.arrives is None else f"Arrives turn {u.arrives.turn}",
        stands_start=u.stands_start,
        stands_lost=u.stands_start - u.stands,
        micro_hits=u.micro_hits,
        micro_boxes=HITS_PER_STAND - 1,
        # a refusal saved without its side (both flanks) ticks both boxes
        markers=tuple(
            m.value
            for m, _ in MARKER_LETTERS
            if m in u.markers or (m in REFUSED_MARKER.values() and Marker.REFUSED_FLANK in u.markers)
        ),
        battery=battery,
        parent=parent,
    )


def roster_sheets(
    battle: Battle,
    tables: RuleTables,
    *,
    blank: bool = False,
    side: str | None = None,
    when: str | None = None,
) -> list[SideSheet]:
    """The roster sheets of ``battle``: one per side (or only ``side``, an id or a name), each in
    brigades in the order of battle. ``blank`` leaves the Staff Pip tracks and the brigade state to
    fill in (a scenario's sheets for a game kept on paper). ``when`` is the line under the title.

    Raises :class:`ValueError` for a side the battle does not have.
    """
    from rules.turn.sequence import phase_title

    sides = list(battle.oob.sides)
    if side is not None:
        want = side.strip().lower()
        sides = [s for s in sides if want in (s.id.lower(), s.name.lower())]
        if not sides:
            names = ", ".join(f"{s.id} ({s.name})" for s in battle.oob.sides)
            raise ValueError(f"the battle has no side '{side}'; its sides are {names}")
    allowance = int(tables.value("command.staff_pips.per_brigade_per_turn"))
    if when is None:
        when = "Blank sheet, as the scenario starts" if blank else f"As it stands: {phase_title(battle)}"
    out = []
    for s in sides:
        blocks = []
        for b in battle.oob.brigades_of(s.id):
            units = tuple(unit_line(u, battle) for u in battle.oob.units_of_brigade(b.id))
            att = b.brigadier.attached_to
            blocks.append(
                BrigadeBlock(
                    id=b.id,
                    name=b.name,
                    brigadier=b.brigadier.name,
                    brigadier_status=b.brigadier.status.value,
                    attached_to=battle.units[att].name if att and att in battle.units else "",
                    pip_boxes=max(allowance, b.staff_pips + b.staff_pips_reserved),
                    staff_pips=None if blank else b.staff_pips,
                    staff_pips_reserved=None if blank else b.staff_pips_reserved,
                    state=None if blank else b.state.value,
                    units=units,
                )
            )
        out.append(SideSheet(s.id, s.name, s.colour, battle.name, when, blank, tuple(blocks)))
    return out


__all__ = [
    "BRIGADE_STATES",
    "BrigadeBlock",
    "GUN_NAMES",
    "MARKER_LETTERS",
    "SideSheet",
    "UnitLine",
    "roster_sheets",
    "unit_line",
]
