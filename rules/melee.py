"""The opposed melee roll and its aftermath (chapter 06, 3.0 to 5.0).

``Shock Score = 1D6 + Engaged Stands + Tactical Modifiers`` (RULE-06-3.2). Both sides roll one
die; the higher score wins (RULE-06-4.1).

What the melee needs to know about the position (how the attacker made contact, what the
defender stands behind, the crest, a counter-charge, a refused flank ...) is given as a
:class:`MeleeSituation`. :mod:`rules.assault` builds it from the table; the umpire can build or
correct one by hand. Everything else (stands, health, Disorder, traits, the attached Brigadier)
is read from the :class:`~rules.battle.Battle`.

The resolution is a pure function of (battle, situation, dice, tables): it returns a new battle
and the itemised :class:`~rules.events.Step` s of the log, every modifier with its rule id.

Melees are fought in Phase 4 (RULE-06-1.1). A charge that makes contact in Phase 2
(:class:`rules.assault.ChargeApproach`) leaves a :class:`PendingMelee` in the battle state, under
``Battle.extra["pending_melees"]`` (:data:`PENDING_MELEES`), so that it is saved, undone and replayed
like the rest; :class:`ResolvePendingMelee` fights it in Phase 4 and removes it, except after a tie,
which stays pending, locked, for the next game turn's Melee Phase (RULE-06-4.2).
:class:`MeleeRuling` is the umpire's ruling that puts one off or calls it off; :mod:`rules.turn`
refuses to leave Phase 4 while one due in it is unresolved.

How Brigadier reads the rules where they leave a choice:

* Fortifications and fences (+2 / +1, RULE-03-2.1, 03-2.2, 03-2.4, 03-2.5) count against frontal
  assaults only; a building cannot be flanked (RULE-03-3.1), so its +2 always counts and a flank
  or rear contact on it counts as frontal. A hedge gives nothing in melee (RULE-03-2.3).
* "Light cover / split-rail fence / crestline" is one row of the matrix: a defender behind a
  fence *and* on the crest gets +1 once.
* A counter-charger has left its position (RULE-04-5.4 (Counter-Charge, 6.0)): it gets no
  fortification, fence or crest bonus, and the attacker loses momentum and any downhill bonus.
* The Double Disorder clause (RULE-06-4.3, RULE-07-3.4) applies to a defeated unit (and an
  attacker repulsed from a built-up sector, RULE-03-3.4) that already has a Disorder Marker: it
  takes 1 micro-hit instead of a second one. A tie is not a defeat: both units take the tie's 1 hit
  and a Disorder Marker (RULE-06-4.2), and a unit already Disordered simply keeps its one marker.
* Ties against a stone wall, sunken road or breastworks count as a repulse of the attacker
  (RULE-06-5.2: "fails to beat"), so the tie's hits do not apply. A building or town sector is
  assaulted under RULE-03-3.4 instead: the defeated side suffers RULE-06-4.3 as usual, and a tie
  repulses the attacker 6.0" Disordered without a stand loss. A building's +2 (RULE-03-3.1) does
  not cost the attacker its momentum, which RULE-06-5.2 takes only at walls, roads and works.
* A battery defeated in melee is captured and removed (RULE-06-5.1); it fights with 1D6 + 1 stand
  and the ordinary modifiers of the matrix (health, Disorder, works, its Brigadier), none for
  weapons.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from rules import geometry
from rules.action_base import Action, Resolved, action_type, resolver
from rules.battle import Battle
from rules.dice import DiceSource
from rules.errors import IllegalAction, InvariantError
from rules.events import Modifier, Step
from rules.model import (
    REBEL_YELL,
    BrigadierStatus,
    Formation,
    Health,
    Marker,
    Phase,
    StrEnum,
    Unit,
    UnitKind,
    plural,
)
from rules.tables import RuleTables
from rules.terrain import TerrainType


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "contact", Contact.parse(self.contact))
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


@dataclass(frozen=True)
class ShockSide:
    """One side of the opposed roll before the die: engaged stands and itemised modifiers."""

    unit: str
    engaged: int
    engaged_text: str
    modifiers: tuple[Modifier, ...]

    @property
    def base(self) -> int:
        """Engaged stands plus modifiers: the score is this plus the die."""
        return self.engaged + sum(m.value for m in self.modifiers)


@dataclass(frozen=True)
class MeleeResult:
    attacker: str
    defender: str
    battle: Battle
    steps: tuple[Step, ...]
    outcome: Outcome
    attacker_score: int
    defender_score: int
    breakthrough: bool = False
    stands_lost: Mapping[str, int] = field(default_factory=dict)

    @property
    def margin(self) -> int:
        return abs(self.attacker_score - self.defender_score)


# -- engaged stands (RULE-06-3.4) ----------------------------------------------------------------


def front_width(unit: Unit, tables: RuleTables) -> int:
    """Stands in the unit's front rank."""
    if unit.formation == Formation.ASSAULT_COLUMN:
        return min(unit.stands, int(tables.value("melee.engaged.assault_column_front")))
    if unit.formation in (Formation.ROAD_COLUMN, Formation.LIMBERED):
        return min(unit.stands, 1)
    return unit.stands


def formed_assault_column(unit: Unit, tables: RuleTables) -> bool:
    """An Assault Column "formed 2 stands wide x 2+ deep" (chapter 06, 6.0; RULE-06-3.4): only such a
    column gets the +1 Assault Column modifier and counts its 2 front and 2 supporting stands."""
    if unit.formation != Formation.ASSAULT_COLUMN:
        return False
    front = int(tables.value("melee.engaged.assault_column_front"))
    ranks = int(tables.value("melee.engaged.assault_column_min_ranks"))
    return unit.stands >= front * ranks


def _rows(unit: Unit, tables: RuleTables) -> int:
    w = front_width(unit, tables)
    return math.ceil(unit.stands / w) if w else 0


def _with_overlap(width: int, contacted: int, tables: RuleTables) -> int:
    per_wing = int(tables.value("melee.engaged.overlap_per_wing"))
    extra = max(width - contacted, 0)
    left = extra // 2
    right = extra - left
    return contacted + min(left, per_wing) + min(right, per_wing)


def engaged_stands(
    unit: Unit, other: Unit, role: str, contact: Contact, tables: RuleTables
) -> tuple[int, str]:
    """The stands of ``unit`` that count in the melee against ``other`` (RULE-06-3.4, RULE-06-5.1).

    ``role`` is "attacker" or "defender". Bases are taken to have equal frontages, lined up centre
    to centre, which is how a charge aligns (RULE-06-1.4, RULE-06-3.1).
    """
    if unit.stands <= 0:
        return 0, "no stands left"
    if unit.kind == UnitKind.ARTILLERY:
        return int(tables.value("melee.modifier.artillery_crew")), "battery crew: +1 stand (RULE-06-5.1)"
    width = front_width(unit, tables)
    if role == "defender" and contact in (Contact.FLANK, Contact.REAR):
        attacker_width = front_width(other, tables)
        if contact == Contact.FLANK:
            depth = _rows(unit, tables) * float(tables.value(f"units.base_depth.{unit.kind.value}"))
            reach = attacker_width * float(tables.value(f"units.base_width.{other.kind.value}"))
            contacted = min(_rows(unit, tables), max(1, math.floor(reach / depth * _rows(unit, tables))))
        else:
            contacted = min(width, attacker_width)
        return contacted, f"{plural(contacted, 'stand')} contacted in the {contact.value} (RULE-06-3.4)"
    if formed_assault_column(unit, tables):
        support = int(tables.value("melee.engaged.assault_column_support"))
        n = min(unit.stands, width + support)
        return n, f"assault column: {width} front + {n - width} supporting (RULE-06-3.4)"
    if role == "attacker" and contact == Contact.FLANK:
        other_depth = _rows(other, tables) * float(tables.value(f"units.base_depth.{other.kind.value}"))
        bw = float(tables.value(f"units.base_width.{unit.kind.value}"))
        contacted = min(width, max(1, math.ceil(other_depth / bw)))
    else:
        contacted = min(width, front_width(other, tables))
    n = _with_overlap(width, contacted, tables)
    return n, f"{contacted} in contact + {n - contacted} overlapping (RULE-06-3.4)"


# -- the modifier catalogue (RULE-06-3.3, 6.0) -----------------------------------------------------


def _mod(tables: RuleTables, key: str, label: str, rule: str | None = None) -> Modifier:
    e = tables.melee_modifier(key)
    cite = e.citation if rule is None or e.rule == rule else f"{e.citation}, {rule}"
    return Modifier(label, int(e.value), cite)


def _unit_modifiers(
    battle: Battle, unit: Unit, tables: RuleTables, *, counts_disordered: bool = False
) -> list[Modifier]:
    mods: list[Modifier] = []
    if unit.health == Health.FRESH:
        mods.append(_mod(tables, "fresh", "Fresh"))
    elif unit.health == Health.SPENT:
        mods.append(_mod(tables, "spent", "Spent"))
    if unit.disordered:
        mods.append(_mod(tables, "disordered", "Disordered"))
    elif counts_disordered:
        mods.append(
            _mod(tables, "disordered", "counts as Disordered after a sweeping advance", "RULE-06-4.5")
        )
    if battle.oob.has_attached_brigadier(unit.id):
        name = battle.brigade_of(unit).brigadier.name or "Brigadier"
        mods.append(_mod(tables, "brigadier_attached", f"Brigadier {name} attached"))
    return mods


def _works_apply(s: MeleeSituation) -> bool:
    """The defender fights from its obstacle or sector: not after counter-charging out of it, and a
    linear obstacle only against a frontal assault (or one met by a refused flank)."""
    if s.counter_charge or s.defender_obstacle is None:
        return False
    if s.defender_obstacle in AREA_DEFENCES:
        return True
    return s.contact == Contact.FRONT or s.refused_flank


def obstacle_bonus(s: MeleeSituation, tables: RuleTables) -> Modifier | None:
    """The defender's bonus for what it fights from, from the terrain matrix
    (``terrain.matrix.<type>.melee_defence``, RULE-06-3.3): +2 for a stone wall, sunken road,
    breastworks, building or masonry town, +1 for a split-rail fence, wooden town or rubble, 0 for a
    hedge (RULE-03-2.3). None when it gives nothing or does not count (:func:`_works_apply`)."""
    if not _works_apply(s):
        return None
    t = s.defender_obstacle
    e = tables.entry(f"terrain.matrix.{t.value}.melee_defence")
    if int(e.value) == 0:
        return None
    what = {
        TerrainType.SPLIT_RAIL_FENCE: "a split-rail fence",
        TerrainType.TOWN_WOODEN: "a wooden town sector",
        TerrainType.TOWN_MASONRY: "a masonry town sector",
    }.get(t, t.label.lower())
    label = f"Defending {what}"
    cite = e.citation if e.citation == "RULE-06-3.3" else f"RULE-06-3.3, {e.citation}"
    return Modifier(label, int(e.value), cite)


def effective_contact(battle: Battle, s: MeleeSituation) -> Contact:
    """The contact as the melee counts it: a refused flank or a building makes it frontal."""
    d = battle.unit(s.defender)
    if s.contact == Contact.FRONT:
        return Contact.FRONT
    if s.defender_obstacle == TerrainType.BUILDING:
        return Contact.FRONT
    if s.contact == Contact.FLANK and (s.refused_flank or d.has(Marker.REFUSED_FLANK)):
        return Contact.FRONT
    return s.contact


def momentum(s: MeleeSituation, tables: RuleTables) -> tuple[bool, str]:
    """Whether the attacker keeps its +1 Charging Momentum, and why not if it does not."""
    need = float(tables.value("melee.momentum.min_open_ground_in"))
    if s.momentum_in < need:
        return False, f'moved {round(s.momentum_in, 1):g}" across open ground, under {need:g}" (RULE-06-3.3)'
    if s.counter_charge:
        return False, "lost to the counter-charge (RULE-04-5.5 (Counter-Charge, 6.0))"
    if _works_apply(s) and s.defender_obstacle in STORMED_WORKS:
        return False, f"lost against the {s.defender_obstacle.label.lower()} (RULE-06-5.2)"
    if s.through_abatis:
        return False, "lost charging through abatis (RULE-03-2.4)"
    return True, ""


def shock_sides(
    battle: Battle, s: MeleeSituation, tables: RuleTables
) -> tuple[ShockSide, ShockSide, list[str]]:
    """Engaged stands and every modifier of both sides, and notes on bonuses that do not apply."""
    a, d = battle.unit(s.attacker), battle.unit(s.defender)
    for u in (a, d):
        if not u.in_play:
            raise IllegalAction(f"{u.name} has no stands left to fight", "RULE-06-3.2")
    if a.side == d.side:
        raise IllegalAction(f"{a.name} and {d.name} are on the same side", "RULE-06-1.4")
    contact = effective_contact(battle, s)
    notes: list[str] = []

    a_mods = _unit_modifiers(battle, a, tables)
    d_mods = _unit_modifiers(battle, d, tables, counts_disordered=s.defender_counts_disordered)

    keeps, why = momentum(s, tables)
    if keeps:
        a_mods.append(
            _mod(tables, "charging_momentum", f'Charging momentum ({round(s.momentum_in, 1):g}" in the open)')
        )
    elif s.momentum_in > 0:
        notes.append(f"{a.name}: no charging momentum, {why}")
    if formed_assault_column(a, tables):
        a_mods.append(_mod(tables, "assault_column", "Assault column"))
    elif a.formation == Formation.ASSAULT_COLUMN:
        front = int(tables.value("melee.engaged.assault_column_front"))
        ranks = int(tables.value("melee.engaged.assault_column_min_ranks"))
        notes.append(
            f"{a.name}: a column of {plural(a.stands, 'stand')} is not formed {front} wide x {ranks}+ deep: "
            "no Assault Column bonus, no supporting rank (RULE-06-3.4)"
        )
    if a.has_trait(REBEL_YELL):
        a_mods.append(_mod(tables, "rebel_yell", "Rebel Yell"))
    works = _works_apply(s)
    defender_in_open = not works
    if (
        a.kind == UnitKind.CAVALRY
        and a.formation == Formation.MOUNTED
        and d.kind == UnitKind.INFANTRY
        and defender_in_open
    ):
        a_mods.append(_mod(tables, "cavalry_shock", "Cavalry shock against infantry in the open"))
    if contact in (Contact.FLANK, Contact.REAR):
        if s.flank_anchored_on_works and s.defender_obstacle == TerrainType.BREASTWORKS:
            notes.append(f"{d.name}'s flank is anchored on the works: no flank bonus (RULE-03-2.4)")
        else:
            a_mods.append(_mod(tables, "flank_or_rear", f"{contact.label} attack"))
    elif s.contact == Contact.FLANK:
        notes.append(f"{d.name} refused its flank: the contact is frontal, no flank bonus (RULE-04-5.4)")
    if s.through_abatis:
        a_mods.append(_mod(tables, "charging_through_abatis", "Charging through abatis", "RULE-03-2.4"))
    if s.attacker_downhill_from_crest:
        if s.counter_charge:
            notes.append(
                f"{a.name}: no downhill bonus against a counter-charge (RULE-04-5.5 (Counter-Charge, 6.0))"
            )
        else:
            a_mods.append(_mod(tables, "downhill_from_crest", "Charging downhill from the crest"))
    uphill = s.defender_on_crest if s.attacker_uphill is None else s.attacker_uphill
    if uphill and not s.counter_charge:
        a_mods.append(_mod(tables, "uphill_against_crest", "Charging uphill against a crestline"))

    # "Light Cover / Split-Rail Fence / Crestline" is one row: the obstacle's bonus or the crest's +1
    bonus = obstacle_bonus(s, tables)
    on_crest = s.defender_on_crest and not s.counter_charge
    crest = _mod(tables, "light_obstacle", "On the crestline") if on_crest else None
    if bonus is not None and (crest is None or bonus.value >= crest.value):
        d_mods.append(bonus)
    elif crest is not None:
        d_mods.append(crest)
    if s.defender_obstacle == TerrainType.HEDGE:
        notes.append(f"{d.name}: a hedge gives no bonus in melee (RULE-03-2.3)")
    elif s.defender_obstacle is not None and not works:
        why_not = "counter-charged out of it" if s.counter_charge else "the assault is not frontal"
        notes.append(f"{d.name}: no {s.defender_obstacle.label.lower()} bonus, {why_not}")
    if s.counter_charge:
        d_mods.extend(counter_charge_bonuses(d, a, tables))

    a_eng, a_text = engaged_stands(a, d, "attacker", contact, tables)
    d_eng, d_text = engaged_stands(d, a, "defender", contact, tables)
    if s.attacker_engaged is not None:
        a_eng, a_text = min(s.attacker_engaged, a.stands), "set by the umpire (RULE-06-3.4)"
    if s.defender_engaged is not None:
        d_eng, d_text = min(s.defender_engaged, d.stands), "set by the umpire (RULE-06-3.4)"
    return (
        ShockSide(a.id, a_eng, a_text, tuple(a_mods)),
        ShockSide(d.id, d_eng, d_text, tuple(d_mods)),
        notes,
    )


def counter_charge_bonuses(counter_charger: Unit, charger: Unit, tables: RuleTables) -> tuple[Modifier, ...]:
    """The counter-charger's shock bonus in the Opposed Melee Roll (RULE-04-5.5 (Counter-Charge, 6.0)):
    +1 Rebel Yell, or +1 Cavalry Shock for formed mounted cavalry against a charging infantry
    regiment: the matrix gives Cavalry Shock only against infantry in the open (RULE-06-3.3), and a
    counter-charge is an open-field clash."""
    rule = "RULE-04-5.5 (Counter-Charge, 6.0)"
    out: list[Modifier] = []
    if counter_charger.has_trait(REBEL_YELL):
        out.append(_mod(tables, "rebel_yell", "Rebel Yell (counter-charge)", rule))
    if (
        counter_charger.kind == UnitKind.CAVALRY
        and counter_charger.formation == Formation.MOUNTED
        and charger.kind == UnitKind.INFANTRY
    ):
        out.append(_mod(tables, "cavalry_shock", "Cavalry shock (counter-charge)", rule))
    return tuple(out)


def outcome_of(attacker_score: int, defender_score: int) -> Outcome:
    """Higher score wins; equal scores are a bloody deadlock (RULE-06-4.1)."""
    if attacker_score > defender_score:
        return Outcome.ATTACKER_WINS
    if attacker_score < defender_score:
        return Outcome.DEFENDER_WINS
    return Outcome.TIE


# -- the aftermath (RULE-06-4.x, 06-5.x, 03-3.4) --------------------------------------------------


def _shift(unit: Unit, bearing_deg: float, dist: float) -> Unit:
    return unit.moved_to(*geometry.point_along((unit.x, unit.y), bearing_deg, dist))


def _disorder(unit: Unit, tables: RuleTables, rule: str) -> tuple[Unit, str]:
    """Give a Disorder Marker, or 1 micro-hit if the unit already has one (RULE-07-3.4)."""
    if not unit.in_play:
        return unit, ""
    if unit.disordered:
        hits = int(tables.value("melee.outcome.double_disorder_micro_hits"))
        u, cas = unit.take_hits(hits)
        extra = f", which makes a stand lost ({u.stands} left)" if cas.stands_lost else ""
        return u, (
            f"already Disordered: {hits} micro-hit instead of a second Disorder{extra} (RULE-06-4.3, RULE-07-3.4)"
        )
    return unit.with_markers(add=[Marker.DISORDER]), f"Disordered ({rule})"


def _retreat(unit: Unit, bearing_deg: float, dist: float) -> Unit:
    return _shift(unit, bearing_deg, dist) if unit.in_play else unit


def check_consolidation(c: Consolidation, tables: RuleTables) -> None:
    max_in = float(tables.value("melee.outcome.consolidation_in"))
    max_deg = float(tables.value("melee.outcome.consolidation_pivot_deg"))
    for v, what in ((c.advance_in, "advance"), (c.pivot_deg, "pivot")):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise InvariantError(f"the consolidation {what} must be a number, not {v!r}")
    if not 0 <= c.advance_in <= max_in:
        raise IllegalAction(
            f'a consolidation move advances 0 to {max_in:g}", not {c.advance_in:g}"', "RULE-06-4.4"
        )
    if abs(c.pivot_deg) > max_deg:
        raise IllegalAction(
            f"a consolidation move pivots up to {max_deg:g} degrees, not {abs(c.pivot_deg):g}", "RULE-06-4.4"
        )


def _consolidate(unit: Unit, c: Consolidation) -> Unit:
    facing = (unit.facing_deg + c.pivot_deg) % 360
    u = unit.moved_to(unit.x, unit.y, facing)
    return _shift(u, facing, c.advance_in) if c.advance_in else u


def _stands(n: int) -> str:
    return "a stand" if n == 1 else f"{n} stands"


def how_stands_were_lost(approach: int = 0, melee: int = 0) -> str:
    """When and how a unit lost the stands that call for a Leader Loss roll, for the log: "lost a
    stand to the closing volley in Phase 2", "lost a stand in the melee", or both. With neither
    count known it is "lost a stand"."""
    if approach < 0 or melee < 0:
        raise InvariantError(f"stands lost cannot be negative ({approach}, {melee})")
    parts = []
    if approach:
        parts.append(f"{_stands(approach)} to the closing volley in Phase 2")
    if melee:
        parts.append(f"{_stands(melee)} in the melee")
    return "lost " + (" and ".join(parts) if parts else "a stand")


def leader_loss(
    battle: Battle,
    unit_id: str,
    dice: DiceSource,
    tables: RuleTables,
    *,
    approach_lost: int = 0,
    melee_lost: int = 0,
) -> tuple[Battle, Step, LeaderFate]:
    """The Leader Loss roll for the Brigadier attached to ``unit_id`` (chapter 06, Example 1).

    The table is chapter 07's, which is not here: it is the club table ``melee.leader_loss``.
    A wounded or killed Brigadier is taken off the unit. ``approach_lost`` and ``melee_lost`` are
    the stands the unit lost on the way in (the closing volley of Phase 2) and in the melee: the
    log says which (:func:`how_stands_were_lost`).
    """
    if not battle.oob.has_attached_brigadier(unit_id):
        raise IllegalAction(f"no Brigadier is attached to {battle.unit(unit_id).name}", "RULE-06-3.3")
    brigade = battle.brigade_of(unit_id)
    name = brigade.brigadier.name or "the Brigadier"
    roll = dice.roll(1, "leader loss roll")[0]
    killed, wounded = tables.entry("melee.leader_loss.killed"), tables.entry("melee.leader_loss.wounded")
    if roll <= int(killed.value):
        fate, entry = LeaderFate.KILLED, killed
    elif roll <= int(wounded.value):
        fate, entry = LeaderFate.WOUNDED, wounded
    else:
        fate, entry = LeaderFate.UNHURT, wounded
    if fate != LeaderFate.UNHURT:
        status = BrigadierStatus.KILLED if fate == LeaderFate.KILLED else BrigadierStatus.WOUNDED
        brigade = replace(brigade, brigadier=replace(brigade.brigadier, status=status, attached_to=None))
        battle = battle.with_brigade(brigade)
    text = (
        f"Leader Loss: {battle.unit(unit_id).name} {how_stands_were_lost(approach_lost, melee_lost)} "
        f"with {name} attached; "
        f"{name} rolls {roll}: {fate.label}"
    )
    return battle, Step(text, rule=entry.citation, dice=(roll,), units=(unit_id,)), fate


def aftermath(
    battle: Battle,
    situation: MeleeSituation,
    a_score: int,
    d_score: int,
    tables: RuleTables,
    *,
    consolidation: Consolidation | None = None,
) -> tuple[Battle, list[Step], Outcome, dict[str, int], bool]:
    """What the scores do (RULE-06-4.x, 06-5.x, 03-3.4): the new battle, its steps, the outcome as
    it stands after the works and built-up rules, the stands each unit lost, and a breakthrough."""
    outcome = outcome_of(a_score, d_score)
    works = _works_apply(situation) and situation.defender_obstacle in STORMED_WORKS
    built_up = situation.defender_obstacle in BUILT_UP and not situation.counter_charge
    a0, d0 = battle.unit(situation.attacker), battle.unit(situation.defender)
    a, d = a0, d0
    steps: list[Step] = []
    charge_bearing = a0.facing_deg
    retreat_attacker = (charge_bearing + 180) % 360
    lost: dict[str, int] = {}

    def defeat(u: Unit, bearing: float, rule: str, stand_key: str, retreat_key: str) -> Unit:
        n = int(tables.value(stand_key))
        u2, cas = u.lose_stands(n)
        dist = float(tables.value(retreat_key))
        u2 = _retreat(u2, bearing, dist)
        u2, dis = _disorder(u2, tables, rule)
        lost[u.id] = lost.get(u.id, 0) + u.stands - u2.stands  # the stand, and any the micro-hit made
        u2 = u2.with_markers(remove=[Marker.ENGAGED])
        fate = (
            "destroyed" if u2.destroyed else f'{plural(u2.stands, "stand")} left, retreats {dist:g}", {dis}'
        )
        steps.append(
            Step(f"{u.name} is defeated: loses {cas.stands_lost} stand ({fate})", rule=rule, units=(u.id,))
        )
        return u2

    breakthrough = False
    if outcome == Outcome.ATTACKER_WINS:
        steps.append(Step(f"{a.name} wins {a_score} to {d_score}", rule="RULE-06-4.1", units=(a.id, d.id)))
        if d.kind == UnitKind.ARTILLERY:
            d, cas = d.lose_stands(d.stands)
            lost[d.id] = cas.stands_lost
            steps.append(
                Step(
                    f"{d0.name} is overrun and captured: guns and crew removed",
                    rule="RULE-06-5.1",
                    units=(d.id,),
                )
            )
        else:
            rule = "RULE-03-3.4" if built_up else "RULE-06-4.3"
            d = defeat(d, charge_bearing, rule, "melee.outcome.loser_stand_loss", "melee.outcome.retreat_in")
        c = consolidation or Consolidation(advance_in=float(tables.value("melee.outcome.consolidation_in")))
        a = _consolidate(a.with_markers(remove=[Marker.ENGAGED]), c)
        steps.append(
            Step(
                f'{a.name} consolidates: pivots {c.pivot_deg:g} degrees, advances {c.advance_in:g}"',
                rule="RULE-06-4.4",
                units=(a.id,),
            )
        )
        routed = d.destroyed or situation.defender_routed
        margin = a_score - d_score
        if (
            a0.health == Health.FRESH
            and margin >= int(tables.value("melee.outcome.breakthrough_margin"))
            and routed
        ):
            breakthrough = True
            steps.append(
                Step(
                    f"Tactical Breakthrough: {a.name} won by {margin}; it may spend 1 more Staff Pip "
                    "for a sweeping advance",
                    rule="RULE-06-4.5",
                    units=(a.id,),
                )
            )
    elif outcome == Outcome.DEFENDER_WINS or (works and outcome == Outcome.TIE):
        why = "fails to beat" if outcome == Outcome.TIE else "loses to"
        steps.append(
            Step(f"{a.name} {why} {d.name}, {a_score} to {d_score}", rule="RULE-06-4.1", units=(a.id, d.id))
        )
        if works:
            a = defeat(
                a,
                retreat_attacker,
                "RULE-06-5.2",
                "melee.outcome.works_repulse_stand_loss",
                "melee.outcome.works_repulse_in",
            )
        else:
            rule = "RULE-03-3.4" if built_up else "RULE-06-4.3"
            a = defeat(
                a, retreat_attacker, rule, "melee.outcome.loser_stand_loss", "melee.outcome.retreat_in"
            )
        c = consolidation or Consolidation()
        d = _consolidate(d.with_markers(remove=[Marker.ENGAGED]), c)
        held = (
            "holds its ground"
            if c == Consolidation()
            else f'pivots {c.pivot_deg:g} degrees, advances {c.advance_in:g}"'
        )
        steps.append(Step(f"{d.name} {held}", rule="RULE-06-4.4", units=(d.id,)))
        outcome = Outcome.DEFENDER_WINS
    elif built_up:
        steps.append(
            Step(f"Tie {a_score} to {d_score} at a built-up sector", rule="RULE-03-3.4", units=(a.id, d.id))
        )
        a = _retreat(a, retreat_attacker, float(tables.value("melee.outcome.built_up_repulse_in")))
        a, dis = _disorder(a.with_markers(remove=[Marker.ENGAGED]), tables, "RULE-03-3.4")
        lost[a.id] = a0.stands - a.stands
        steps.append(
            Step(
                f"{a.name} is repulsed from the {situation.defender_obstacle.label.lower()}: {dis}",
                rule="RULE-03-3.4",
                units=(a.id,),
            )
        )
        outcome = Outcome.DEFENDER_WINS
    else:
        hits = int(tables.value("melee.outcome.tie_micro_hits"))
        steps.append(
            Step(f"Tie {a_score} to {d_score}: a bloody deadlock", rule="RULE-06-4.2", units=(a.id, d.id))
        )
        for which in ("a", "d"):
            u = a if which == "a" else d
            u2, cas = u.take_hits(hits)
            lost[u.id] = lost.get(u.id, 0) + cas.stands_lost
            u2 = u2.with_markers(add=[Marker.DISORDER, Marker.ENGAGED]) if u2.in_play else u2
            extra = f", a stand lost ({u2.stands} left)" if cas.stands_lost else ""
            steps.append(
                Step(
                    f"{u.name} takes {hits} hit{extra}; Disordered and locked in melee, re-rolled next turn",
                    rule="RULE-06-4.2",
                    units=(u.id,),
                )
            )
            if which == "a":
                a = u2
            else:
                d = u2
    return battle.with_units(a, d), steps, outcome, lost, breakthrough


def resolve_melee(
    battle: Battle,
    situation: MeleeSituation,
    dice: DiceSource,
    tables: RuleTables,
    *,
    consolidation: Consolidation | None = None,
    leader_check: bool = True,
) -> MeleeResult:
    """Resolve one opposed melee roll and its aftermath.

    Dice: "attacker shock roll", then "defender shock roll", then a "leader loss roll" for each
    unit with an attached Brigadier that lost a stand (when ``leader_check``).

    ``consolidation`` is the victor's free move (RULE-06-4.4); by default a victorious attacker
    advances the full distance straight ahead and a victorious defender holds its ground.
    """
    if consolidation is not None:
        check_consolidation(consolidation, tables)
    sa, sd, notes = shock_sides(battle, situation, tables)
    a0, d0 = battle.unit(situation.attacker), battle.unit(situation.defender)
    da = dice.roll(1, "attacker shock roll")[0]
    dd = dice.roll(1, "defender shock roll")[0]
    a_score, d_score = da + sa.base, dd + sd.base
    steps: list[Step] = [
        Step(
            f"{a0.name} (attacker) shock score {a_score}: die {da} + {sa.engaged} stands ({sa.engaged_text})",
            rule="RULE-06-3.2",
            dice=(da,),
            modifiers=sa.modifiers,
            units=(a0.id,),
        ),
        Step(
            f"{d0.name} (defender) shock score {d_score}: die {dd} + {sd.engaged} stands ({sd.engaged_text})",
            rule="RULE-06-3.2",
            dice=(dd,),
            modifiers=sd.modifiers,
            units=(d0.id,),
        ),
    ]
    steps.extend(Step(n, rule="RULE-06-3.3", units=(a0.id, d0.id)) for n in notes)
    new, more, outcome, lost, breakthrough = aftermath(
        battle, situation, a_score, d_score, tables, consolidation=consolidation
    )
    steps.extend(more)
    if leader_check:
        for uid in (a0.id, d0.id):
            if lost.get(uid) and battle.oob.has_attached_brigadier(uid) and new.unit(uid).in_play:
                new, step, _ = leader_loss(new, uid, dice, tables, melee_lost=lost[uid])
                steps.append(step)
    return MeleeResult(
        attacker=a0.id,
        defender=d0.id,
        battle=new,
        steps=tuple(steps),
        outcome=outcome,
        attacker_score=a_score,
        defender_score=d_score,
        breakthrough=breakthrough,
        stands_lost={k: v for k, v in lost.items() if v},
    )


def sweeping_advance(
    battle: Battle,
    result: MeleeResult,
    dice: DiceSource,
    tables: RuleTables,
    *,
    next_situation: MeleeSituation | None = None,
) -> tuple[Battle, list[Step], MeleeResult | None]:
    """The Sweeping Advance after the Tactical Breakthrough ``result`` (RULE-06-4.5): see :func:`sweep`."""
    if not result.breakthrough:
        raise IllegalAction("only a Tactical Breakthrough allows a sweeping advance", "RULE-06-4.5")
    return sweep(battle, result.attacker, dice, tables, next_situation=next_situation)


def sweep(
    battle: Battle,
    victor_id: str,
    dice: DiceSource,
    tables: RuleTables,
    *,
    next_situation: MeleeSituation | None = None,
) -> tuple[Battle, list[Step], MeleeResult | None]:
    """The Sweeping Advance (RULE-06-4.5), for a victor that has broken through.

    Spends 1 more Staff Pip and advances the victor straight forward. If it contacts another enemy
    unit (``next_situation``, with the victor as attacker), a second melee is resolved at once with
    that defender counting as Disordered; a tie leaves it pending, locked, like any other
    (RULE-06-4.2). Dice: the second melee's shock rolls and any Leader Loss rolls.
    """
    a = battle.unit(victor_id)
    brigade = battle.brigade_of(a)
    cost = int(tables.value("command.staff_pips.cost_of_sweeping_advance"))
    if brigade.staff_pips < cost:
        raise IllegalAction(
            f"{brigade.brigadier.name or brigade.name} has no Staff Pip left for a sweeping advance",
            "RULE-06-4.5",
        )
    if next_situation is not None and next_situation.attacker != a.id:
        raise IllegalAction(
            f"the second melee is fought by {a.name}, the unit that swept forward", "RULE-06-4.5"
        )
    dist = float(tables.value("melee.outcome.sweeping_advance_in"))
    moved = _shift(a, a.facing_deg, dist)
    moved = moved.moved_to(  # it stops at the table's edge
        min(max(moved.x, 0.0), battle.table_width_in), min(max(moved.y, 0.0), battle.table_height_in)
    )
    battle = battle.with_brigade(replace(brigade, staff_pips=brigade.staff_pips - cost)).with_unit(moved)
    battle = _with_breakthrough(battle, None)  # the breakthrough is used
    steps = [
        Step(
            f'{a.name} spends {cost} Staff Pip and sweeps {dist:g}" straight forward',
            rule="RULE-06-4.5",
            units=(a.id,),
        )
    ]
    if next_situation is None:
        return battle, steps, None
    second = resolve_melee(
        battle,
        replace(next_situation, defender_counts_disordered=True, momentum_in=0.0),
        dice,
        tables,
    )
    after, more = settle_melee(battle, second.battle, None, second)
    return _with_breakthrough(after, second), steps + list(second.steps) + more, second


def sweep_contacts(battle: Battle, victor_id: str, tables: RuleTables) -> tuple[str, ...]:
    """The enemy units in play that the victor's 4.0" Sweeping Advance straight forward would
    contact (RULE-06-4.5), nearest first: those whose footprint the ground it sweeps touches."""
    from shapely.ops import unary_union

    a = battle.unit(victor_id)
    dist = float(tables.value("melee.outcome.sweeping_advance_in"))
    start = geometry.footprint(a, tables).polygon
    end = geometry.footprint(_shift(a, a.facing_deg, dist), tables).polygon
    swept = unary_union([start, end]).convex_hull
    # ground it stands on already is not ground it sweeps into: the front edge must move onto them
    ahead = swept.difference(start)
    hits = []
    for u in battle.oob.in_play(battle.oob.enemy_of(a.side)):
        fp = geometry.footprint(u, tables).polygon
        if ahead.intersects(fp) and ahead.intersection(fp).area > 0:
            hits.append((math.dist((a.x, a.y), (u.x, u.y)), u.id))
    return tuple(uid for _, uid in sorted(hits))


BREAKTHROUGH = "breakthrough"
"""The key of :attr:`Battle.extra <rules.battle.Battle.extra>` that holds the unit whose melee just
made a Tactical Breakthrough (RULE-06-4.5): ``{"unit": id, "turn": n, "side": id}``; the next melee
fought, or the sweeping advance, replaces it."""


def breakthrough_unit(battle: Battle) -> str | None:
    """The unit that made a Tactical Breakthrough in the last melee of this side's turn, if any."""
    raw = battle.extra.get(BREAKTHROUGH)
    if (
        not isinstance(raw, Mapping)
        or raw.get("turn") != battle.turn
        or raw.get("side") != battle.active_side
    ):
        return None
    unit = raw.get("unit")
    return unit if isinstance(unit, str) else None


def _with_breakthrough(battle: Battle, result: MeleeResult | None) -> Battle:
    """The battle recording ``result``'s breakthrough, or none."""
    extra = {k: v for k, v in battle.extra.items() if k != BREAKTHROUGH}
    if result is not None and result.breakthrough:
        extra[BREAKTHROUGH] = {"unit": result.attacker, "turn": battle.turn, "side": battle.active_side}
    if extra == dict(battle.extra):
        return battle
    return replace(battle, extra=extra)


@action_type("sweeping_advance")
@dataclass(frozen=True)
class SweepingAdvance(Action):
    """The Sweeping Advance of the unit whose melee has just made a Tactical Breakthrough
    (RULE-06-4.5): 1 more Staff Pip and 4.0" straight forward. ``defender_id`` names the enemy unit
    the advance contacts, if any: the second melee is fought at once, that defender counting as
    Disordered; ``contact`` and ``defender_obstacle`` are how it is met."""

    victor_id: str
    defender_id: str | None = None
    contact: str = Contact.FRONT.value
    defender_obstacle: str | None = None

    def situation(self) -> MeleeSituation | None:
        """The second melee as it is fought (None: the advance contacts nobody)."""
        if self.defender_id is None:
            return None
        for what in ("victor_id", "defender_id"):
            if not isinstance(getattr(self, what), str):
                raise IllegalAction(f"a sweeping advance names its units by id, not {getattr(self, what)!r}")
        return MeleeSituation(
            self.victor_id,
            self.defender_id,
            contact=Contact.parse(self.contact),
            defender_obstacle=TerrainType.parse(self.defender_obstacle) if self.defender_obstacle else None,
            defender_counts_disordered=True,
        )


@resolver(SweepingAdvance)
def _resolve_sweep(battle: Battle, a: SweepingAdvance, dice: DiceSource, tables: RuleTables) -> Resolved:
    if not isinstance(a.victor_id, str):
        raise IllegalAction(f"a sweeping advance names its unit by id, not {a.victor_id!r}")
    victor = battle.unit(a.victor_id)
    if breakthrough_unit(battle) != victor.id:
        raise IllegalAction(
            f"{victor.name} has not just made a Tactical Breakthrough: only that allows a sweeping advance",
            "RULE-06-4.5",
        )
    after, steps, second = sweep(battle, victor.id, dice, tables, next_situation=a.situation())
    if second is None:
        summary = f"{victor.name} sweeps forward"
    else:
        d = battle.unit(second.defender)
        summary = (
            f"{victor.name} sweeps into {d.name}: {second.outcome.label.lower()} "
            f"({second.attacker_score} to {second.defender_score})"
        )
    return Resolved(after, steps, summary)


# -- melees waiting for Phase 4 (RULE-06-1.1, RULE-06-4.2) -------------------------------------

PENDING_MELEES = "pending_melees"
"""The key of :attr:`Battle.extra <rules.battle.Battle.extra>` that holds the melees waiting for a
Phase 4: a list of plain dictionaries (:meth:`PendingMelee.to_dict`). Kept in the battle state, they
are saved, diffed, undone and replayed like everything else."""

_SITUATION_FIELDS = tuple(f for f in MeleeSituation.__dataclass_fields__)


def situation_to_dict(s: MeleeSituation) -> dict:
    """A melee situation as plain values (enums as their words)."""
    out: dict = {}
    for name in _SITUATION_FIELDS:
        v = getattr(s, name)
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


def pending_melees(battle: Battle) -> tuple[PendingMelee, ...]:
    """The melees waiting for a Phase 4, oldest first."""
    raw = battle.extra.get(PENDING_MELEES, ())
    if not isinstance(raw, (list, tuple)):
        raise InvariantError(f"the battle's '{PENDING_MELEES}' must be a list of melees")
    return tuple(PendingMelee.from_dict(d) for d in raw)


def with_pending_melees(battle: Battle, melees: Sequence[PendingMelee]) -> Battle:
    """The battle with ``melees`` as its pending melees (the key is dropped when there are none)."""
    extra = {k: v for k, v in battle.extra.items() if k != PENDING_MELEES}
    if melees:
        extra[PENDING_MELEES] = [m.to_dict() for m in melees]
    return replace(battle, extra=extra)


def pending_melee(battle: Battle, melee_id: str) -> PendingMelee:
    for m in pending_melees(battle):
        if m.id == melee_id:
            return m
    raise IllegalAction(f"there is no melee '{melee_id}' waiting to be resolved", "RULE-06-1.1")


def add_pending_melee(
    battle: Battle, situation: MeleeSituation, stands_lost: Mapping[str, int] | None = None
) -> tuple[Battle, PendingMelee]:
    """Record a contact for Phase 4, due in this game turn; both units are marked Engaged."""
    melees = pending_melees(battle)
    pm = PendingMelee(
        id=_new_id(melees, battle.turn, situation),
        situation=situation,
        turn=battle.turn,
        side=battle.active_side,
        due_turn=battle.turn,
        stands_lost={k: int(v) for k, v in (stands_lost or {}).items() if v},
    )
    a, d = battle.unit(situation.attacker), battle.unit(situation.defender)
    battle = battle.with_units(a.with_markers(add=[Marker.ENGAGED]), d.with_markers(add=[Marker.ENGAGED]))
    return with_pending_melees(battle, (*melees, pm)), pm


def _new_id(melees: Sequence[PendingMelee], turn: int, situation: MeleeSituation) -> str:
    """ "t3-va4-wis2": the turn and the two units, numbered on if that is taken."""
    base = f"t{turn}-{situation.attacker}-{situation.defender}"
    taken = {m.id for m in melees}
    mid, n = base, 1
    while mid in taken:
        n += 1
        mid = f"{base}-{n}"
    return mid


def _sync_engaged(battle: Battle, unit_ids: Sequence[str]) -> Battle:
    """Each of these units is Engaged while it is in play and in a pending melee, and not otherwise."""
    busy = {u for m in pending_melees(battle) for u in (m.attacker, m.defender)}
    units = []
    for uid in unit_ids:
        u = battle.units.get(uid)
        if u is None:
            continue
        if u.in_play and uid in busy:
            units.append(u.with_markers(add=[Marker.ENGAGED]))
        else:
            units.append(u.with_markers(remove=[Marker.ENGAGED]))
    return battle.with_units(*units)


def is_due(battle: Battle, melee: PendingMelee) -> bool:
    """Whether the melee is fought in this game turn's Phase 4 (a locked one waits for the next)."""
    return battle.turn >= melee.due_turn


def due_melees(battle: Battle) -> tuple[PendingMelee, ...]:
    """The pending melees to be fought in the Phase 4 of the battle's game turn."""
    return tuple(m for m in pending_melees(battle) if is_due(battle, m))


def describe_melee(battle: Battle, melee: PendingMelee) -> str:
    """ "4th Virginia against 2nd Wisconsin's front" ("locked by a tie", and the turn it waits for)."""
    a, d = battle.units.get(melee.attacker), battle.units.get(melee.defender)
    an = a.name if a is not None else melee.attacker
    dn = d.name if d is not None else melee.defender
    text = f"{an} against {dn}'s {melee.situation.contact.value}"
    if melee.locked:
        text += ", locked by a tie"
    if not is_due(battle, melee):
        text += f" (re-rolled in turn {melee.due_turn})"
    return text


def settle_melee(
    before: Battle, after: Battle, melee: PendingMelee | None, result: MeleeResult
) -> tuple[Battle, list[Step]]:
    """The pending list after a melee: a tie stays pending, locked, for the next game turn's Phase 4
    (RULE-06-4.2); any other result ends it. A unit stays Engaged while another melee holds it."""
    others = [m for m in pending_melees(after) if melee is None or m.id != melee.id]
    a, d = after.unit(result.attacker), after.unit(result.defender)
    if result.outcome == Outcome.TIE and a.in_play and d.in_play:
        if melee is None:
            situation = MeleeSituation(result.attacker, result.defender)
            mid = _new_id(others, before.turn, situation)
            melee = PendingMelee(mid, situation, before.turn, before.active_side, before.turn)
        locked = replace(
            melee,
            situation=replace(melee.situation, momentum_in=0.0, attacker_engaged=None, defender_engaged=None),
            due_turn=before.turn + 1,
            stands_lost={},
            locked=True,
        )
        step = Step(
            f"The melee stays pending: re-rolled in the Melee Phase of turn {before.turn + 1}",
            rule="RULE-06-4.2",
            units=(a.id, d.id),
        )
        return with_pending_melees(after, [*others, locked]), [step]
    return _sync_engaged(with_pending_melees(after, others), (a.id, d.id)), []


def _melee_for_pair(battle: Battle, attacker: str, defender: str) -> PendingMelee | None:
    for m in pending_melees(battle):
        if {m.attacker, m.defender} == {attacker, defender}:
            return m
    return None


def fight_pending(
    battle: Battle,
    melee_id: str,
    dice: DiceSource,
    tables: RuleTables,
    *,
    consolidation: Consolidation | None = None,
) -> tuple[Battle, list[Step], MeleeResult | None]:
    """Phase 4: the opposed roll of a pending melee, its aftermath and the Leader Loss rolls for
    stands lost in the approach or the melee (RULE-06-1.1, 06-3.2, 06-4.x).

    Dice: "attacker shock roll", "defender shock roll", then a "leader loss roll" for the attacker
    and then the defender where one applies. A tie leaves the melee pending, locked, for the next
    game turn (RULE-06-4.2). A melee one of whose units has left play ends without a roll.
    """
    if battle.phase != Phase.MELEE:
        raise IllegalAction(
            f"melees are resolved in {Phase.MELEE.title}; the game is in {battle.phase.title}", "RULE-06-1.1"
        )
    pm = pending_melee(battle, melee_id)
    if not is_due(battle, pm):
        raise IllegalAction(
            f"{describe_melee(battle, pm)}: it is re-rolled in the next game turn's Melee Phase",
            "RULE-06-4.2",
        )
    a, d = battle.unit(pm.attacker), battle.unit(pm.defender)
    gone = [u for u in (a, d) if not u.in_play]
    if gone:
        rest = [pm2 for pm2 in pending_melees(battle) if pm2.id != pm.id]
        after = _sync_engaged(with_pending_melees(battle, rest), (a.id, d.id))
        step = Step(
            f"The melee of {a.name} and {d.name} ends: {gone[0].name} has no stands left",
            rule="RULE-06-4.2",
            units=(a.id, d.id),
        )
        return after, [step], None
    result = resolve_melee(
        battle, pm.situation, dice, tables, consolidation=consolidation, leader_check=False
    )
    after = result.battle
    steps = list(result.steps)
    for uid in (pm.attacker, pm.defender):
        on_the_way, in_melee = pm.stands_lost.get(uid, 0), result.stands_lost.get(uid, 0)
        if on_the_way + in_melee and battle.oob.has_attached_brigadier(uid) and after.unit(uid).in_play:
            after, step, _ = leader_loss(
                after, uid, dice, tables, approach_lost=on_the_way, melee_lost=in_melee
            )
            steps.append(step)
    after, more = settle_melee(battle, after, pm, result)
    return _with_breakthrough(after, result), steps + more, result


# -- the action ------------------------------------------------------------------------------------


@action_type("melee")
@dataclass(frozen=True)
class MeleeAction(Action):
    """An opposed melee roll set up by the umpire: the re-roll of a tied melee next turn
    (RULE-06-4.2), or a melee the umpire places by hand. The fields are those of
    :class:`MeleeSituation`; ``momentum_in`` is 0 for units already locked together."""

    attacker_id: str
    defender_id: str
    contact: str = Contact.FRONT.value
    momentum_in: float = 0.0
    defender_obstacle: str | None = None
    defender_on_crest: bool = False
    attacker_downhill_from_crest: bool = False
    through_abatis: bool = False
    defender_routed: bool = False
    attacker_engaged: int | None = None
    defender_engaged: int | None = None
    defender_counts_disordered: bool = False  # after a sweeping advance (RULE-06-4.5)

    def situation(self) -> MeleeSituation:
        return MeleeSituation(
            self.attacker_id,
            self.defender_id,
            contact=Contact.parse(self.contact),
            momentum_in=self.momentum_in,
            defender_obstacle=TerrainType.parse(self.defender_obstacle) if self.defender_obstacle else None,
            defender_on_crest=bool(self.defender_on_crest),
            attacker_downhill_from_crest=bool(self.attacker_downhill_from_crest),
            through_abatis=bool(self.through_abatis),
            defender_routed=bool(self.defender_routed),
            attacker_engaged=self.attacker_engaged,
            defender_engaged=self.defender_engaged,
            defender_counts_disordered=bool(self.defender_counts_disordered),
        )


@resolver(MeleeAction)
def _resolve_melee_action(battle: Battle, a: MeleeAction, dice: DiceSource, tables: RuleTables) -> Resolved:
    r = resolve_melee(battle, a.situation(), dice, tables)
    # a melee set up by hand for two units with a pending melee settles that one; a tie is pending
    after, more = settle_melee(battle, r.battle, _melee_for_pair(battle, a.attacker_id, a.defender_id), r)
    after = _with_breakthrough(after, r)
    att, dfn = battle.unit(a.attacker_id), battle.unit(a.defender_id)
    summary = f"{att.name} and {dfn.name} in melee: {r.outcome.label.lower()} ({r.attacker_score} to {r.defender_score})"
    return Resolved(after, [*r.steps, *more], summary)


@action_type("resolve_pending_melee")
@dataclass(frozen=True)
class ResolvePendingMelee(Action):
    """Phase 4: fight one of the melees the charges of Phase 2 left pending (RULE-06-1.1), as the
    charge recorded it. ``consolidate_in`` / ``consolidate_pivot_deg`` are the victor's free move
    (RULE-06-4.4); left at None, a victorious attacker advances the full 2.0" and a victorious
    defender holds."""

    melee_id: str
    consolidate_in: float | None = None
    consolidate_pivot_deg: float | None = None

    def consolidation(self) -> Consolidation | None:
        if self.consolidate_in is None and self.consolidate_pivot_deg is None:
            return None
        return Consolidation(
            advance_in=self.consolidate_in or 0.0, pivot_deg=self.consolidate_pivot_deg or 0.0
        )


@resolver(ResolvePendingMelee)
def _resolve_pending(
    battle: Battle, a: ResolvePendingMelee, dice: DiceSource, tables: RuleTables
) -> Resolved:
    if not isinstance(a.melee_id, str):
        raise IllegalAction(f"a pending melee is named by its id, not {a.melee_id!r}")
    pm = pending_melee(battle, a.melee_id)
    after, steps, r = fight_pending(battle, a.melee_id, dice, tables, consolidation=a.consolidation())
    att, dfn = battle.unit(pm.attacker), battle.unit(pm.defender)
    if r is None:
        summary = f"The melee of {att.name} and {dfn.name} ends without a roll"
    else:
        summary = (
            f"{att.name} and {dfn.name} in melee: {r.outcome.label.lower()} "
            f"({r.attacker_score} to {r.defender_score})"
        )
    return Resolved(after, steps, summary)


@action_type("melee_ruling")
@dataclass(frozen=True)
class MeleeRuling(Action):
    """The umpire's ruling on a pending melee, with a reason for the log: put it off to the next game
    turn's Phase 4, or (``call_off``) call it off, the two units no longer Engaged."""

    melee_id: str
    reason: str
    call_off: bool = False


@resolver(MeleeRuling)
def _resolve_ruling(battle: Battle, a: MeleeRuling, dice: DiceSource, tables: RuleTables) -> Resolved:
    if not isinstance(a.reason, str) or not a.reason.strip():
        raise IllegalAction("an umpire's ruling needs a reason, which goes in the log")
    if not isinstance(a.melee_id, str):
        raise IllegalAction(f"a pending melee is named by its id, not {a.melee_id!r}")
    pm = pending_melee(battle, a.melee_id)
    what = describe_melee(battle, pm)
    rest = [m for m in pending_melees(battle) if m.id != pm.id]
    if a.call_off:
        after = _sync_engaged(with_pending_melees(battle, rest), (pm.attacker, pm.defender))
        text = f"Umpire's ruling: the melee of {what} is called off ({a.reason.strip()})"
    else:
        later = replace(pm, due_turn=max(pm.due_turn, battle.turn + 1))
        after = with_pending_melees(battle, [*rest, later])
        text = (
            f"Umpire's ruling: the melee of {what} is put off to the Melee Phase of turn "
            f"{later.due_turn} ({a.reason.strip()})"
        )
    return Resolved(after, [Step(text, units=(pm.attacker, pm.defender))], text)
