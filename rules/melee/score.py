"""The Shock Score of each side of a melee before the die (RULE-06-3.2, RULE-06-3.3, RULE-06-3.4, chapter 06, 6.0).

``Shock Score = 1D6 + Engaged Stands + Tactical Modifiers`` (RULE-06-3.2): the engaged stands of
each side and every modifier of the matrix, each with its rule. How Brigadier reads the rules
where they leave a choice is said in :mod:`rules.melee.melee`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rules.battle.battle import Battle
from rules.battle.events import Modifier
from rules.battle.melee_situation import AREA_DEFENCES, STORMED_WORKS, Contact, MeleeSituation, Outcome
from rules.battle.terrain import TerrainType
from rules.battle.unit import REBEL_YELL, Unit, refused_flanks
from rules.battle.words import Formation, Health, UnitKind, plural
from rules.errors import IllegalAction
from rules.reactions.refused_flank import stands_wheeled
from rules.tables import RuleTables


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
    unit: Unit,
    other: Unit,
    role: str,
    contact: Contact,
    tables: RuleTables,
    *,
    shoulder: int | None = None,
) -> tuple[int, str]:
    """The stands of ``unit`` that count in the melee against ``other`` (RULE-06-3.4, RULE-06-5.1).

    ``role`` is "attacker" or "defender". Bases are taken to have equal frontages, lined up centre
    to centre, which is how a charge aligns (RULE-06-1.4, RULE-06-3.1).

    ``shoulder`` is the number of stands the defender wheeled back to refuse the flank the charge
    hits (RULE-04-5.3): the charge "must contact the newly angled stands frontally" (RULE-04-5.4),
    so the defender's front in this clash is those stands, not its whole line. Its engaged stands
    are the angled stands in contact, with the overlap of a frontal clash (RULE-06-3.4): an angled
    stand beyond the attacker's frontage on the outer wing, and on the inner wing the stand of
    the anchored line the shoulder is hinged on. The attacker counts its stands against the
    shoulder's frontage, with its own overlap.
    """
    if unit.stands <= 0:
        return 0, "no stands left"
    if unit.kind == UnitKind.ARTILLERY:
        return int(tables.value("melee.modifier.artillery_crew")), "battery crew: +1 stand (RULE-06-5.1)"
    if shoulder is not None and role == "defender":
        contacted = min(shoulder, front_width(other, tables))
        per_wing = int(tables.value("melee.engaged.overlap_per_wing"))
        outer = min(shoulder - contacted, per_wing)
        inner = min(unit.stands - shoulder, per_wing)
        n = contacted + outer + inner
        return n, (
            f"{plural(contacted, 'angled stand')} of the refused flank in contact + {n - contacted} "
            "overlapping (RULE-04-5.3, RULE-06-3.4)"
        )
    if shoulder is not None and role == "attacker":
        width = front_width(unit, tables)
        contacted = min(width, shoulder)
        n = _with_overlap(width, contacted, tables)
        return n, (
            f"{contacted} in contact with the refused flank's angled stands + {n - contacted} overlapping "
            "(RULE-04-5.4, RULE-06-3.4)"
        )
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


# -- the modifier catalogue (RULE-06-3.3, chapter 06, 6.0) ---------------------------------------------------


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


def anchored_flank(s: MeleeSituation) -> bool:
    """The charge comes in on a flank anchored to the breastworks the defender lines (RULE-03-2.4):
    lined works are "immune to flank shock penalties" there, so the charge meets the works as a
    frontal assault does: no flank +2, the engaged stands of a frontal clash, and the storming rules
    of RULE-06-5.2 (no momentum, the works' +2, a repulse costs a stand)."""
    return (
        s.contact == Contact.FLANK
        and s.flank_anchored_on_works
        and s.defender_obstacle == TerrainType.BREASTWORKS
        and not s.counter_charge
    )


def _works_apply(s: MeleeSituation) -> bool:
    """The defender fights from its obstacle or sector: not after counter-charging out of it, and a
    linear obstacle only against a frontal assault (or one met by a refused flank, or coming in on a
    flank anchored to the works, :func:`anchored_flank`)."""
    if s.counter_charge or s.defender_obstacle is None:
        return False
    if s.defender_obstacle in AREA_DEFENCES:
        return True
    return s.contact == Contact.FRONT or s.refused_flank or anchored_flank(s)


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


def refused_against(battle: Battle, s: MeleeSituation) -> bool:
    """The charge comes in on a flank the defender has refused (RULE-04-5.4): only that flank; a
    melee recorded without its side counts any refused flank, as it did then."""
    if s.contact != Contact.FLANK:
        return False
    d = battle.unit(s.defender)
    if s.flank_side is None:
        return s.refused_flank or bool(refused_flanks(d))
    return s.refused_flank or s.flank_side in refused_flanks(d)


def refused_shoulder(battle: Battle, s: MeleeSituation, tables: RuleTables) -> int | None:
    """The stands of the refused flank the charge meets frontally (RULE-04-5.3, RULE-04-5.4), or None when
    the charge does not come in on a refused flank. A melee recorded before the side was counted
    the defender's whole front, and still does."""
    if s.flank_side is None or not refused_against(battle, s):
        return None
    if s.defender_obstacle == TerrainType.BUILDING:
        return None
    return stands_wheeled(battle.unit(s.defender), tables)


def effective_contact(battle: Battle, s: MeleeSituation) -> Contact:
    """The contact as the melee counts it: a building, a refused flank on the side the charge
    hits, or a flank anchored to the works (RULE-03-2.4), makes it frontal."""
    if s.contact == Contact.FRONT:
        return Contact.FRONT
    if s.defender_obstacle == TerrainType.BUILDING or anchored_flank(s):
        return Contact.FRONT
    if refused_against(battle, s):
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
        a_mods.append(_mod(tables, "flank_or_rear", f"{contact.label} attack"))
    elif anchored_flank(s):
        which = f"{s.flank_side} " if s.flank_side else ""
        notes.append(
            f"{d.name}'s {which}flank is anchored on the works: the charge meets the breastworks, "
            "no flank bonus (RULE-03-2.4)"
        )
    elif s.contact == Contact.FLANK and s.defender_obstacle != TerrainType.BUILDING:
        which = f"{s.flank_side} " if s.flank_side else ""
        notes.append(
            f"{d.name} refused its {which}flank: the charge meets the angled stands frontally, "
            "no flank bonus (RULE-04-5.4)"
        )
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

    shoulder = refused_shoulder(battle, s, tables)
    a_eng, a_text = engaged_stands(a, d, "attacker", contact, tables, shoulder=shoulder)
    d_eng, d_text = engaged_stands(d, a, "defender", contact, tables, shoulder=shoulder)
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
