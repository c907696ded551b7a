"""Shooting: dice pools, range bands, to-hit numbers, cover saves, casualties and Disorder.

One resolution serves every kind of fire: the Phase 3 volley, the Closing Defensive Volley of
Reaction 1 (RULE-04-2.3, RULE-06-2.3) and the Opportunity Fire of Reaction 2 (RULE-04-3.3). The
geometry (range, enfilade, cover, how many stands have a clear view) is given explicitly in a
:class:`Volley`; :mod:`rules.reactions.triggers` and the interface work it out from the table.

The steps of a volley, each a line of the log with its rule:

1. Dice pool: 1D6 per stand, 2D6 per artillery section (RULE-04-2.3), counting only the stands
   with a clear view (RULE-03-5.3).
2. To hit by weapon and range band: short 0-6" (RULE-04-2.3), medium 6-8" (RULE-04-3.3), long
   beyond that to the weapon's maximum range (a club table). A modifier moves the number needed:
   +1 enfilade (RULE-03-5.7) makes a 4+ into a 3+, -1 through the firer's own skirmish screen
   (RULE-03-5.4) makes it a 5+.
3. Cover saves, one die per hit: light 5+, heavy 4+ (RULE-03-2.1, RULE-03-2.2). Enfilade denies
   the light cover of a fence or hedge (RULE-03-5.7). A road column saves at -2 against
   Opportunity Fire (RULE-04-3.3).
4. Casualties: every 2 unsaved hits remove a stand and an odd hit is carried on the micro-dice
   (:meth:`rules.battle.unit.Unit.take_hits`).
5. Disorder: any natural 6 rolled to hit disorders the target (RULE-04-2.3); so does a 12-pdr
   Napoleon's canister that hits, when the table ``shooting.canister.napoleon_automatic_disorder``
   says RULE-04-2.3 is followed rather than RULE-06-2.3.
6. The firer's markers: Smoke after any volley (RULE-04-2.6, RULE-04-3.4) and Fired after
   Opportunity Fire and Phase 3 fire (RULE-04-3.4).

A volley is planned (:func:`plan_volley`) and resolved (:func:`resolve_volley`) here. Its exact odds
are in :mod:`rules.shooting.volley_odds`, the volley measured on the table and the Phase 3 Shoot
action in :mod:`rules.shooting.shoot`, garrisoned buildings and their bombardment in
:mod:`rules.shooting.buildings`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rules.battle.battle import Battle
from rules.battle.events import Modifier, Step
from rules.battle.unit import Unit, refused_flanks
from rules.battle.words import Formation, GunType, Marker, Phase, StrEnum, UnitKind, Weapon
from rules.dice import FACES, DiceSource
from rules.errors import IllegalAction, InvariantError
from rules.tables import RuleTables

TOP_FACE = max(FACES)
BOTTOM_FACE = min(FACES)


class RangeBand(StrEnum):
    SHORT = "short"  # 0-6" (RULE-04-2.3); canister for artillery
    MEDIUM = "medium"  # 6-8" (RULE-04-3.3)
    LONG = "long"  # beyond 8" to the weapon's maximum range (club table)


class CoverClass(StrEnum):
    """The class of cover a target has: none, light or heavy. Which one it has against a firer is
    found on the table by :meth:`rules.battlefield.field.Battlefield.cover_for` (a
    :class:`rules.battlefield.field.TargetCover`)."""

    NONE = "none"
    LIGHT = "light"  # 5+ (RULE-03-2.1)
    HEAVY = "heavy"  # 4+ (RULE-03-2.2)


# The name it had before, while the tests still use it.
Cover = CoverClass


class FireKind(StrEnum):
    PHASE_3 = "phase_3"  # Phase 3 Ranged Combat
    CLOSING_VOLLEY = "closing_volley"  # Reaction 1 (RULE-04-2.3, RULE-06-2.3)
    OPPORTUNITY_FIRE = "opportunity_fire"  # Reaction 2 (RULE-04-3.3)

    @property
    def purpose(self) -> str:
        """What the dice are rolled for, as the log and a dice dialog name it."""
        return {
            FireKind.PHASE_3: "volley",
            FireKind.CLOSING_VOLLEY: "closing volley",
            FireKind.OPPORTUNITY_FIRE: "opportunity fire",
        }[self]


SAVE_PURPOSE = "cover saves"


@dataclass(frozen=True)
class Volley:
    """One volley: who fires at whom, from how far, and what the table shows about it.

    * ``distance_in``: range in inches from the firer's colour stand (RULE-03-5.2).
    * ``clear_stands``: stands (or sections) with an unobstructed view; ``None`` means all of
      them (RULE-03-5.3).
    * ``enfilade``: the firer is in the target's flank position (RULE-03-5.7);
      ``enfilade_side`` says which: "left", "right" or "rear" of the target. A refused flank
      denies the enfilade bonus of fire against that flank only (RULE-04-5.4); without a side (a
      volley saved before it was recorded) any refused flank denies it, as it did then.
    * ``through_own_screen``: the firer fires through its own skirmish screen (RULE-03-5.4).
    * ``cover``: the target's cover against this fire; ``fence_cover`` says a light cover comes
      from a split-rail fence or hedge, which enfilade denies (RULE-03-5.7, RULE-03-2.3).
    * ``dice``: the dice of the pool fired at this target when a garrison splits its fire across
      the faces of its building (RULE-03-3.1); ``None``: the whole pool.
    """

    firer: str
    target: str
    distance_in: float
    kind: FireKind = FireKind.PHASE_3
    clear_stands: int | None = None
    enfilade: bool = False
    through_own_screen: bool = False
    cover: CoverClass = CoverClass.NONE
    fence_cover: bool = False
    enfilade_side: str | None = None
    dice: int | None = None


@dataclass(frozen=True)
class VolleyPlan:
    """Everything about a volley that is known before the dice are rolled."""

    firer: Unit
    target: Unit
    kind: FireKind
    band: RangeBand
    weapon_key: str
    dice_pool: int
    base_to_hit: int
    to_hit_rule: str
    to_hit_modifiers: tuple[Modifier, ...]
    to_hit: int  # the number needed on each die after the modifiers
    save_base: int | None  # None: no cover save
    save_rule: str | None
    save_modifiers: tuple[Modifier, ...]
    save: int | None  # the number needed after the modifiers (above the top face: no save possible)
    disorder_face: int
    canister_disorder: bool  # a hit disorders the target (12-pdr Napoleon canister, RULE-04-2.3)
    notes: tuple[Step, ...]  # log lines about what was denied or ignored (refused flank, fence)


@dataclass(frozen=True)
class VolleyOutcome:
    """What a volley did. ``battle`` is the state after it, ``steps`` its lines of the log."""

    battle: Battle
    steps: tuple[Step, ...]
    plan: VolleyPlan
    hit_dice: tuple[int, ...]
    hits: int
    save_dice: tuple[int, ...]
    unsaved_hits: int
    stands_lost: int
    micro_hits_after: int
    natural_sixes: int
    disorder_inflicted: bool
    target_destroyed: bool


# -- reading the tables --------------------------------------------------------------------


def weapon_key(unit: Unit) -> str:
    """The rule-table key of what a unit fires: its gun type for a battery, else its small arms."""
    if unit.kind == UnitKind.ARTILLERY:
        if unit.gun is None:
            raise InvariantError(f"{unit.name}: an artillery battery needs a gun type")
        return unit.gun.value
    return unit.weapon.value


def range_band(distance_in: float, tables: RuleTables) -> RangeBand:
    """The range band of a distance: short up to and including 6", medium up to 8", then long.

    >>> from rules.tables import load_tables
    >>> t = load_tables()
    >>> [range_band(d, t).value for d in (0.0, 6.0, 6.01, 8.0, 8.01)]
    ['short', 'short', 'medium', 'medium', 'long']
    """
    _check_distance(distance_in)
    if distance_in <= tables.value("shooting.range_band.short"):
        return RangeBand.SHORT
    if distance_in <= tables.value("shooting.range_band.medium"):
        return RangeBand.MEDIUM
    return RangeBand.LONG


def dice_pool(unit: Unit, tables: RuleTables, clear_stands: int | None = None) -> int:
    """1D6 per stand, 2D6 per artillery section (RULE-04-2.3), for the stands with a clear view."""
    stands = unit.stands if clear_stands is None else clear_stands
    if isinstance(stands, bool) or not isinstance(stands, int):
        raise InvariantError(f"the stands with a clear view must be a whole number, not {stands!r}")
    if not 0 <= stands <= unit.stands:
        raise InvariantError(
            f"{unit.name} has {unit.stands} stands; {stands} of them cannot have a clear view"
        )
    per = (
        tables.value("shooting.dice.per_artillery_section")
        if unit.kind == UnitKind.ARTILLERY
        else tables.value("shooting.dice.per_stand")
    )
    return stands * per


def _check_distance(distance_in: float) -> None:
    if (
        isinstance(distance_in, bool)
        or not isinstance(distance_in, (int, float))
        or not math.isfinite(distance_in)
        or distance_in < 0
    ):
        raise InvariantError(f"a range must be a distance in inches of 0 or more, not {distance_in!r}")


def firer_refusal(
    firer: Unit, kind: FireKind | str = FireKind.PHASE_3, battle: Battle | None = None
) -> IllegalAction | None:
    """Why the unit cannot fire a volley of this kind at any target now, or None if it can: it has
    been destroyed, has no firearms, is a limbered battery, is climbing out of a sunken road
    (RULE-03-2.5), or (in Phase 3) it is marked Fired (RULE-04-3.4), by the fire :func:`fired_refusal`
    names from the ``battle``'s record."""
    if not firer.in_play:
        return IllegalAction(f"{firer.name} {firer.absent_words} and cannot fire")
    if firer.kind != UnitKind.ARTILLERY and firer.weapon == Weapon.NONE:
        return IllegalAction(f"{firer.name} has no firearms to fire")
    if firer.kind == UnitKind.ARTILLERY and firer.formation == Formation.LIMBERED:
        return IllegalAction(f"{firer.name} is limbered and cannot fire until it unlimbers")
    if firer.has(Marker.CLIMBING):
        return IllegalAction(
            f"{firer.name} is climbing out of a sunken road and cannot fire this turn", "RULE-03-2.5"
        )
    if FireKind.parse(kind) == FireKind.PHASE_3:
        return fired_refusal(battle, firer)
    return None


def fired_refusal(battle: Battle | None, firer: Unit) -> IllegalAction | None:
    """Why a unit marked Fired may not fire in its Phase 3 (RULE-04-3.4), naming the fire that marked
    it, or None if it is not marked: its own Phase 3 volley (and its targets) or bombardment, as the
    battle's record of its Phase 3 says; otherwise Opportunity Fire, the other fire that marks a unit
    (or the umpire's marker)."""
    if not firer.has(Marker.FIRED):
        return None
    fired = None
    if battle is not None:
        fired = battle.extra.fired_in_phase_3(firer.id, battle.turn, firer.side)
    if fired and fired[0] == "bombardment":
        label = next((f.name or "a building" for f in battle.terrain if f.id in fired[1:]), "a building")
        what = f"has already fired in this Phase 3 (it bombarded {label})"
    elif fired:
        names = [battle.units[t].name if t in battle.units else t for t in fired[1:]]
        what = f"has already fired its Phase 3 volley (at {' and '.join(names)})"
    else:
        what = "has already fired Opportunity Fire in the enemy's turn"
    return IllegalAction(
        f"{firer.name} {what} and is marked Fired: it cannot fire again in this Phase 3", "RULE-04-3.4"
    )


def phase_3_refusal(battle: Battle, firer: Unit) -> IllegalAction | None:
    """Why the unit may not fire its Phase 3 volley in this phase (it is not Phase 3, or not its
    side's), or None."""
    if battle.phase != Phase.RANGED:
        return IllegalAction(f"{firer.name} can fire its volley only in {Phase.RANGED.title}")
    if firer.side != battle.active_side:
        return IllegalAction(f"{firer.name} fires in its own side's {Phase.RANGED.title}")
    return None


def plan_volley(battle: Battle, volley: Volley, tables: RuleTables) -> VolleyPlan:
    """Check a volley against the rules and work out its numbers, before any dice are rolled.

    Raises :class:`IllegalAction` when the volley may not be fired, naming the rule.
    """
    firer = battle.unit(volley.firer)
    target = battle.unit(volley.target)
    kind = FireKind.parse(volley.kind)
    cover = CoverClass.parse(volley.cover)
    _check_distance(volley.distance_in)
    if firer.id == target.id:
        raise InvariantError(f"{firer.name} cannot fire at itself")
    if not firer.in_play:
        raise IllegalAction(f"{firer.name} {firer.absent_words} and cannot fire")
    if not target.in_play:
        raise IllegalAction(f"{target.name} {target.absent_words} and cannot be fired at")
    if firer.side == target.side:
        raise IllegalAction(f"{firer.name} and {target.name} are on the same side")
    refusal = firer_refusal(firer, kind, battle)
    if refusal is not None:
        raise refusal

    wkey = weapon_key(firer)
    band = range_band(volley.distance_in, tables)
    if kind == FireKind.CLOSING_VOLLEY:
        band = RangeBand.SHORT  # the closing volley uses short-range numbers (RULE-04-2.3)
    elif kind == FireKind.OPPORTUNITY_FIRE and band == RangeBand.LONG:
        raise IllegalAction(
            f'{target.name} is {volley.distance_in:g}" away, beyond the '
            f'{tables.value("shooting.range_band.medium"):g}" of Opportunity Fire',
            "RULE-04-3.3",
        )
    elif band == RangeBand.LONG:
        max_range = tables.entry(f"shooting.max_range.{wkey}")
        if volley.distance_in > max_range.value:
            raise IllegalAction(
                f"{target.name} is {volley.distance_in:g}\" away, beyond {firer.name}'s "
                f'{max_range.value:g}" maximum range',
                max_range.citation,
            )

    pool = dice_pool(firer, tables, volley.clear_stands)
    if volley.dice is not None:
        if isinstance(volley.dice, bool) or not isinstance(volley.dice, int) or not 1 <= volley.dice <= pool:
            raise IllegalAction(
                f"{firer.name} has {pool} dice with a clear view of {target.name}; it cannot fire "
                f"{volley.dice!r} of them at it",
                "RULE-03-3.1",
            )
        pool = volley.dice
    hit_entry = tables.to_hit(wkey, band.value)
    notes: list[Step] = []

    mods: list[Modifier] = []
    refused = enfilade_refused(target, volley.enfilade_side)
    enfilade = volley.enfilade and not refused
    if volley.enfilade and refused:
        which = f"{volley.enfilade_side} " if volley.enfilade_side in ("left", "right") else ""
        notes.append(
            Step(
                f"{target.name} has refused its {which}flank: the fire is frontal, no enfilade bonus",
                rule="RULE-04-5.4",
                units=(target.id,),
            )
        )
    if enfilade:
        e = tables.entry("shooting.to_hit_modifier.enfilade")
        mods.append(Modifier("enfilade", e.value, e.rule))
    if volley.through_own_screen:
        e = tables.entry("shooting.to_hit_modifier.through_own_skirmish_screen")
        mods.append(Modifier("through own skirmish screen", e.value, e.rule))
    to_hit = hit_entry.value - sum(m.value for m in mods)

    save_base: int | None = None
    save_rule: str | None = None
    save_mods: list[Modifier] = []
    if cover == CoverClass.LIGHT and volley.fence_cover and enfilade:
        notes.append(
            Step(
                f"Enfilade fire denies {target.name} the light cover of the fence",
                rule="RULE-03-5.7",
                units=(target.id,),
            )
        )
    elif cover != CoverClass.NONE:
        s = tables.save(cover.value)
        save_base, save_rule = s.value, s.citation
        if kind == FireKind.OPPORTUNITY_FIRE and target.formation == Formation.ROAD_COLUMN:
            e = tables.entry("shooting.save_modifier.road_column_vs_opportunity_fire")
            save_mods.append(Modifier("road column against Opportunity Fire", e.value, e.rule))
        col = tables.entry("shooting.save_modifier.assault_column_vs_canister")
        if target.formation == Formation.ASSAULT_COLUMN and band == RangeBand.SHORT and col.value:
            save_mods.append(Modifier("assault column against close fire", col.value, col.citation))
    save = None if save_base is None else save_base - sum(m.value for m in save_mods)

    canister = False
    if firer.gun == GunType.NAPOLEON_12PDR and band == RangeBand.SHORT:
        auto = tables.entry("shooting.canister.napoleon_automatic_disorder")
        canister = bool(auto.value)

    return VolleyPlan(
        firer=firer,
        target=target,
        kind=kind,
        band=band,
        weapon_key=wkey,
        dice_pool=pool,
        base_to_hit=hit_entry.value,
        to_hit_rule=hit_entry.citation,
        to_hit_modifiers=tuple(mods),
        to_hit=to_hit,
        save_base=save_base,
        save_rule=save_rule,
        save_modifiers=tuple(save_mods),
        save=save,
        disorder_face=tables.value("shooting.dice.disorder_on_natural"),
        canister_disorder=canister,
        notes=tuple(notes),
    )


# -- resolution ------------------------------------------------------------------------------


def enfilade_refused(target: Unit, side: str | None) -> bool:
    """Fire raking the target's ``side`` ("left", "right", "rear") meets a refused flank: it is no
    longer enfilade (RULE-04-5.4, "Firing against the refused flank"). Only the flank refused is
    covered; fire whose side was not recorded (saves made before) is denied by any refusal."""
    refused = refused_flanks(target)
    return bool(refused) if side is None else side in refused


def check_enfilade_side(side: object) -> str | None:
    """A recorded enfilade side, checked: "left", "right", "rear" or None."""
    if side is not None and side not in ("left", "right", "rear"):
        raise InvariantError(f"fire rakes the target's left, right or rear, not {side!r}")
    return side  # type: ignore[return-value]


def roll_needing(
    dice: DiceSource, n: int, needed: float, purpose: str, also: tuple[int, ...] = ()
) -> tuple[tuple[int, ...], int]:
    """Roll ``n`` D6, each succeeding on ``needed`` or better (to hit, or a cover save): the dice and
    how many succeeded. ``also`` are other faces the caller reads the dice by (a natural 6)."""
    rolled = dice.roll(n, purpose, compared_with=(int(needed), *also))
    return rolled, sum(1 for d in rolled if d >= needed)


def _needed(n: int) -> str:
    if n > TOP_FACE:
        return "cannot succeed"
    return f"{max(n, BOTTOM_FACE)}+"


def resolve_volley(battle: Battle, volley: Volley, dice: DiceSource, tables: RuleTables) -> VolleyOutcome:
    """Fire a volley and apply its casualties, Disorder and markers.

    A pure function of (battle, volley, dice): the dice are asked for with the purpose of the fire
    ("closing volley", "opportunity fire", "volley") and then "cover saves".
    """
    plan = plan_volley(battle, volley, tables)
    return apply_volley(battle, plan, dice, tables)


def apply_volley(
    battle: Battle, plan: VolleyPlan, dice: DiceSource, tables: RuleTables, *, mark_firer: bool = True
) -> VolleyOutcome:
    """Roll the dice of a planned volley and apply its results to the battle. ``mark_firer``: the
    firer's Smoke and Fired markers are logged here; a part of a garrison's split fire but the last
    leaves that line to the last part."""
    firer, target = plan.firer, plan.target
    steps: list[Step] = list(plan.notes)
    what = {
        FireKind.PHASE_3: "fires at",
        FireKind.CLOSING_VOLLEY: "delivers a closing volley at",
        FireKind.OPPORTUNITY_FIRE: "delivers Opportunity Fire at",
    }[plan.kind]
    six = int(plan.disorder_face)
    hit_dice, hits = roll_needing(dice, plan.dice_pool, plan.to_hit, plan.kind.purpose, (six, six + 1))
    sixes = sum(1 for d in hit_dice if d == plan.disorder_face)
    band_rule = {
        FireKind.CLOSING_VOLLEY: "RULE-04-2.3",
        FireKind.OPPORTUNITY_FIRE: "RULE-04-3.3",
        FireKind.PHASE_3: plan.to_hit_rule,
    }[plan.kind]
    steps.append(
        Step(
            f"{firer.name} {what} {target.name}: {plan.dice_pool}D6 at {plan.band.value} range "
            f"({plan.weapon_key.replace('_', ' ')} hits on {plan.base_to_hit}+"
            + (f", {_needed(plan.to_hit)} with modifiers" if plan.to_hit_modifiers else "")
            + f"): {hits} hit{'s' if hits != 1 else ''}",
            rule=band_rule,
            dice=hit_dice,
            modifiers=plan.to_hit_modifiers,
            units=(firer.id, target.id),
        )
    )

    save_dice: tuple[int, ...] = ()
    unsaved = hits
    if hits and plan.save is not None:
        if plan.save > TOP_FACE:
            steps.append(
                Step(
                    f"{target.name} cannot save: {plan.save_base}+ cover save made impossible",
                    rule=plan.save_rule,
                    modifiers=plan.save_modifiers,
                    units=(target.id,),
                )
            )
        else:
            save_dice, saved = roll_needing(dice, hits, plan.save, SAVE_PURPOSE)
            unsaved = hits - saved
            steps.append(
                Step(
                    f"{target.name} saves {saved} of {hits} on {_needed(plan.save)} for cover",
                    rule=plan.save_rule,
                    dice=save_dice,
                    modifiers=plan.save_modifiers,
                    units=(target.id,),
                )
            )

    new_target, cas = target.take_hits(unsaved)
    hits_rule = tables.entry("shooting.dice.hits_per_stand").citation
    left = f"{new_target.stands} stand{'s' if new_target.stands != 1 else ''} left"
    if cas.destroyed:
        left = "destroyed"
    steps.append(
        Step(
            f"{target.name} takes {unsaved} unsaved hit{'s' if unsaved != 1 else ''}: "
            f"{cas.stands_lost} stand{'s' if cas.stands_lost != 1 else ''} lost, "
            + (
                f"{cas.micro_hits_after} micro-hit carried"
                if cas.micro_hits_after
                else "no micro-hit carried"
            )
            + f" ({left})",
            rule=hits_rule,
            units=(target.id,),
        )
    )

    disorder = False
    if sixes:
        disorder = True
        steps.append(
            Step(
                f"A natural {plan.disorder_face} to hit: {target.name} is Disordered",
                rule=tables.entry("shooting.dice.disorder_on_natural").citation,
                units=(target.id,),
            )
        )
    if plan.canister_disorder and hits:
        disorder = True
        steps.append(
            Step(
                f"12-pdr Napoleon canister: {target.name} is Disordered automatically",
                rule=tables.entry("shooting.canister.napoleon_automatic_disorder").citation,
                units=(target.id,),
            )
        )
    if disorder and not cas.destroyed:
        new_target = new_target.with_markers(add=[Marker.DISORDER])

    add = [Marker.SMOKE]
    if plan.kind != FireKind.CLOSING_VOLLEY:
        add.append(Marker.FIRED)
    new_firer = firer.with_markers(add=add)
    marker_rule = "RULE-04-2.6" if plan.kind == FireKind.CLOSING_VOLLEY else "RULE-04-3.4"
    if mark_firer:
        steps.append(
            Step(
                f"{firer.name} is marked with "
                + (" and ".join(m.label for m in add))
                + ("" if plan.kind == FireKind.CLOSING_VOLLEY else "; it cannot fire again in its Phase 3"),
                rule=marker_rule,
                units=(firer.id,),
            )
        )
    after = battle.with_units(new_firer, new_target)
    if plan.kind == FireKind.PHASE_3:
        after = record_phase_3_fire(after, firer.id, ("volley", target.id))
    return VolleyOutcome(
        battle=after,
        steps=tuple(steps),
        plan=plan,
        hit_dice=hit_dice,
        hits=hits,
        save_dice=save_dice,
        unsaved_hits=unsaved,
        stands_lost=cas.stands_lost,
        micro_hits_after=cas.micro_hits_after,
        natural_sixes=sixes,
        disorder_inflicted=disorder,
        target_destroyed=cas.destroyed,
    )


def record_phase_3_fire(battle: Battle, unit_id: str, fired: tuple[str, ...]) -> Battle:
    """The battle with what the unit fired in this Phase 3 recorded (a volley's targets are added to
    those it fired at before in the same action), for :func:`fired_refusal` to name."""
    from dataclasses import replace

    before = battle.extra.fired_in_phase_3(unit_id, battle.turn, battle.active_side) or ()
    if before and before[0] == fired[0] == "volley":
        fired = (*before, *fired[1:])
    extra = battle.extra.with_phase_3_fire(unit_id, fired, battle.turn, battle.active_side)
    return replace(battle, extra=extra)


def shoot(battle: Battle, volley: Volley, dice: DiceSource, tables: RuleTables) -> tuple[Battle, list[Step]]:
    """Phase 3 Ranged Combat, and any other volley: the new battle and the steps of the log."""
    out = resolve_volley(battle, volley, dice, tables)
    return out.battle, list(out.steps)
