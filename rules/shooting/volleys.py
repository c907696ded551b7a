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

>>> from rules.tables import load_tables
>>> odds = volley_odds_from(dice_pool=2, to_hit=4, tables=load_tables())
>>> odds.stand_losses  # two dice hitting on 4+: both must hit to remove a stand
{0: Fraction(3, 4), 1: Fraction(1, 4)}
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from rules.action_base import Action, Resolved, action_type, resolver
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


def firer_refusal(firer: Unit, kind: FireKind | str = FireKind.PHASE_3) -> IllegalAction | None:
    """Why the unit cannot fire a volley of this kind at any target now, or None if it can: it has
    been destroyed, has no firearms, is a limbered battery, is climbing out of a sunken road
    (RULE-03-2.5), or (in Phase 3) has already fired Opportunity Fire this turn (RULE-04-3.4)."""
    if not firer.in_play:
        return IllegalAction(f"{firer.name} has been destroyed and cannot fire")
    if firer.kind != UnitKind.ARTILLERY and firer.weapon == Weapon.NONE:
        return IllegalAction(f"{firer.name} has no firearms to fire")
    if firer.kind == UnitKind.ARTILLERY and firer.formation == Formation.LIMBERED:
        return IllegalAction(f"{firer.name} is limbered and cannot fire until it unlimbers")
    if firer.has(Marker.CLIMBING):
        return IllegalAction(
            f"{firer.name} is climbing out of a sunken road and cannot fire this turn", "RULE-03-2.5"
        )
    if FireKind.parse(kind) == FireKind.PHASE_3 and firer.has(Marker.FIRED):
        return IllegalAction(
            f"{firer.name} has already fired (Opportunity Fire) and cannot fire in this Phase 3",
            "RULE-04-3.4",
        )
    return None


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
        raise IllegalAction(f"{firer.name} has been destroyed and cannot fire")
    if not target.in_play:
        raise IllegalAction(f"{target.name} has been destroyed and cannot be fired at")
    if firer.side == target.side:
        raise IllegalAction(f"{firer.name} and {target.name} are on the same side")
    refusal = firer_refusal(firer, kind)
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


def _roll_needing(
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


def apply_volley(battle: Battle, plan: VolleyPlan, dice: DiceSource, tables: RuleTables) -> VolleyOutcome:
    """Roll the dice of a planned volley and apply its results to the battle."""
    firer, target = plan.firer, plan.target
    steps: list[Step] = list(plan.notes)
    what = {
        FireKind.PHASE_3: "fires at",
        FireKind.CLOSING_VOLLEY: "delivers a closing volley at",
        FireKind.OPPORTUNITY_FIRE: "delivers Opportunity Fire at",
    }[plan.kind]
    six = int(plan.disorder_face)
    hit_dice, hits = _roll_needing(dice, plan.dice_pool, plan.to_hit, plan.kind.purpose, (six, six + 1))
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
            save_dice, saved = _roll_needing(dice, hits, plan.save, SAVE_PURPOSE)
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


def shoot(battle: Battle, volley: Volley, dice: DiceSource, tables: RuleTables) -> tuple[Battle, list[Step]]:
    """Phase 3 Ranged Combat, and any other volley: the new battle and the steps of the log."""
    out = resolve_volley(battle, volley, dice, tables)
    return out.battle, list(out.steps)


# -- exact odds ------------------------------------------------------------------------------


@dataclass(frozen=True)
class VolleyOdds:
    """Exact odds of a volley: the chance of each number of stands lost, and of Disorder."""

    stand_losses: Mapping[int, Fraction]
    disorder: Fraction

    @property
    def expected_stands_lost(self) -> Fraction:
        return sum((k * p for k, p in self.stand_losses.items()), Fraction(0))

    def at_least(self, stands: int) -> Fraction:
        return sum((p for k, p in self.stand_losses.items() if k >= stands), Fraction(0))


def _face_chance(needed: int | None) -> Fraction:
    """The chance that one die rolls ``needed`` or more (``None``: never)."""
    if needed is None:
        return Fraction(0)
    good = sum(1 for f in FACES if f >= needed)
    return Fraction(good, len(FACES))


def hits_and_disorder(
    *,
    dice_pool: int,
    to_hit: int,
    disorder_face: int,
    save: int | None = None,
    canister_disorder: bool = False,
) -> dict[tuple[int, bool], Fraction]:
    """The exact joint odds of (unsaved hits, Disorder inflicted) of ``dice_pool`` dice hitting on
    ``to_hit``+, each hit saved on ``save``+ (``None``: no save), Disorder on a natural
    ``disorder_face`` or, for canister that disorders, on any hit. The one enumeration of a
    volley's dice: :func:`volley_odds_from` and the charge odds (:mod:`rules.odds`) read it.

    The dice are counted in whole numbers (ways out of 6^n) and turned into exact fractions once.
    """
    if isinstance(dice_pool, bool) or not isinstance(dice_pool, int) or dice_pool < 0:
        raise InvariantError(f"a dice pool is a whole number of dice, not {dice_pool!r}")
    n_faces = len(FACES)
    hit_faces = [f >= to_hit for f in FACES]
    six_faces = [f == disorder_face for f in FACES]
    # die by die: (hits, a disorder face seen) -> number of ways
    ways: dict[tuple[int, bool], int] = {(0, False): 1}
    for _ in range(dice_pool):
        nxt: dict[tuple[int, bool], int] = {}
        for (h, six), w in ways.items():
            for hit, s6 in zip(hit_faces, six_faces):
                key = (h + hit, six or s6)
                nxt[key] = nxt.get(key, 0) + w
        ways = nxt
    saves = save is not None and save <= TOP_FACE
    good = sum(1 for f in FACES if saves and f >= save)
    out: dict[tuple[int, bool], Fraction] = {}
    total = n_faces**dice_pool
    for (hits, six), w in ways.items():
        disorder = six or (canister_disorder and hits > 0)
        if not saves or hits == 0:
            out[(hits, disorder)] = out.get((hits, disorder), Fraction(0)) + Fraction(w, total)
            continue
        for saved in range(hits + 1):
            k = math.comb(hits, saved) * good**saved * (n_faces - good) ** (hits - saved)
            key = (hits - saved, disorder)
            out[key] = out.get(key, Fraction(0)) + Fraction(w * k, total * n_faces**hits)
    return out


def volley_odds_from(
    *,
    dice_pool: int,
    to_hit: int,
    tables: RuleTables,
    save: int | None = None,
    micro_hits: int = 0,
    stands: int | None = None,
    canister_disorder: bool = False,
) -> VolleyOdds:
    """Exact distribution of stand losses from ``dice_pool`` dice hitting on ``to_hit``+.

    Each hit is saved on ``save``+ (``None``: no cover). Stand losses count the target's
    carried ``micro_hits`` and stop at its ``stands``. From :func:`hits_and_disorder`.
    """
    per_stand = tables.value("shooting.dice.hits_per_stand")
    joint = hits_and_disorder(
        dice_pool=dice_pool,
        to_hit=to_hit,
        disorder_face=int(tables.value("shooting.dice.disorder_on_natural")),
        save=save,
        canister_disorder=canister_disorder,
    )
    losses: dict[int, Fraction] = {}
    disorder = Fraction(0)
    for (unsaved, disordered), p in joint.items():
        lost = (micro_hits + unsaved) // per_stand
        if stands is not None:
            lost = min(lost, stands)
        losses[lost] = losses.get(lost, Fraction(0)) + p
        if disordered:
            disorder += p
    return VolleyOdds(stand_losses=dict(sorted(losses.items())), disorder=disorder)


def volley_odds(battle: Battle, volley: Volley, tables: RuleTables) -> VolleyOdds:
    """The exact odds of a volley as it would be resolved now (no dice are rolled)."""
    plan = plan_volley(battle, volley, tables)
    save = plan.save if plan.save is not None and plan.save <= TOP_FACE else None
    return volley_odds_from(
        dice_pool=plan.dice_pool,
        to_hit=plan.to_hit,
        tables=tables,
        save=save,
        micro_hits=plan.target.micro_hits,
        stands=plan.target.stands,
        canister_disorder=plan.canister_disorder,
    )


# -- measuring a volley on the table ------------------------------------------------------------

_FENCES = ("split_rail_fence", "hedge")  # light cover that enfilade denies (RULE-03-5.7, RULE-03-2.3)


def measure_volley(
    battle: Battle,
    firer_id: str,
    target_id: str,
    tables: RuleTables,
    *,
    kind: FireKind = FireKind.PHASE_3,
    charging: tuple[str, ...] = (),
) -> Volley:
    """The volley as the table shows it, measured by :mod:`rules.battlefield.geometry` and :mod:`rules.battlefield.field`.

    Range from the firer's colour stand (RULE-03-5.2), the stands with a clear view and whether it
    fires through its own skirmish screen (RULE-03-5.3, RULE-03-5.4), enfilade (RULE-03-5.7, none against a
    garrison, RULE-03-3.1) and the target's cover against this firer. The target must be in the
    firer's forward arc and in sight; in Phase 3 it must also be one the firer may choose
    (RULE-03-5.6; ``charging`` names enemies charging the firer, which must be fired on).
    Raises :class:`IllegalAction` naming the rule when the volley may not be fired.
    """
    from rules.battlefield.field import Battlefield
    from rules.battlefield.geometry import distance_in

    firer, target = battle.unit(firer_id), battle.unit(target_id)
    for u in (firer, target):
        if not u.in_play:
            raise IllegalAction(f"{u.name} has been destroyed")
    kind = FireKind.parse(kind)
    bf = Battlefield(battle, tables)
    if not bf.in_arc(firer, target):
        raise IllegalAction(f"{target.name} is not in {firer.name}'s 45 degree forward arc", "RULE-03-5.1")
    sight = bf.line_of_sight(firer, target)
    if not sight.visible:
        raise IllegalAction(f"{firer.name} cannot see {target.name}: {sight.reason}", sight.rule)
    if kind == FireKind.PHASE_3:
        for opt in bf.legal_targets(firer, charging):
            if opt.unit_id == target.id and not opt.allowed:
                raise IllegalAction(f"{firer.name} may not fire at {target.name}: {opt.why}", opt.rule)
    raked = bf.enfilade(firer, target)
    return Volley(
        firer.id,
        target.id,
        distance_in(firer, target, tables),
        kind=kind,
        enfilade=raked is not None,
        enfilade_side=raked,
        through_own_screen=sight.through_own_screen,
        **_cover_and_view(bf, battle, firer, target, sight.clear_stands),
    )


def _cover_and_view(bf, battle: Battle, firer: Unit, target: Unit, clear_stands: int) -> dict:
    cover = bf.cover_for(target, firer)
    fence = cover.feature_id is not None and battle.feature(cover.feature_id).type.value in _FENCES
    return {"cover": CoverClass.parse(cover.kind), "fence_cover": fence, "clear_stands": clear_stands}


def fire_inputs(battle: Battle, firer_id: str, target_id: str, tables: RuleTables) -> dict:
    """The table's inputs to a reaction's volley: the target's cover against the firer and the
    firer's stands with a clear view (``cover``, ``fence_cover``, ``clear_stands``), as keyword
    arguments for :func:`rules.reactions.declare.closing_volley` and :func:`rules.reactions.declare.opportunity_fire`.

    The arc and range were checked when the window opened; a target out of sight is refused.
    """
    from rules.battlefield.field import Battlefield

    firer, target = battle.unit(firer_id), battle.unit(target_id)
    bf = Battlefield(battle, tables)
    sight = bf.line_of_sight(firer, target)
    if not sight.visible:
        raise IllegalAction(f"{firer.name} cannot see {target.name}: {sight.reason}", sight.rule)
    return _cover_and_view(bf, battle, firer, target, sight.clear_stands)


# -- the Phase 3 action ----------------------------------------------------------------------


@action_type("shoot")
@dataclass(frozen=True)
class Shoot(Action):
    """Phase 3 Ranged Combat: one unit's volley, with what the table shows about it (see :class:`Volley`)."""

    firer_id: str
    target_id: str
    distance_in: float
    clear_stands: int | None = None
    enfilade: bool = False
    through_own_screen: bool = False
    cover: str = "none"
    fence_cover: bool = False
    # which flank of the target the fire rakes ("left", "right", "rear"); None in saves made
    # before it was recorded, which any refused flank then denies (see Volley)
    enfilade_side: str | None = None

    @classmethod
    def on_table(cls, battle: Battle, firer_id: str, target_id: str, tables: RuleTables) -> Shoot:
        """The Phase 3 volley as :func:`measure_volley` finds it on the table."""
        v = measure_volley(battle, firer_id, target_id, tables)
        return cls(
            firer_id,
            target_id,
            v.distance_in,
            clear_stands=v.clear_stands,
            enfilade=v.enfilade,
            through_own_screen=v.through_own_screen,
            cover=v.cover.value,
            fence_cover=v.fence_cover,
            enfilade_side=v.enfilade_side,
        )

    def volley(self) -> Volley:
        return Volley(
            self.firer_id,
            self.target_id,
            self.distance_in,
            kind=FireKind.PHASE_3,
            clear_stands=self.clear_stands,
            enfilade=bool(self.enfilade),
            through_own_screen=bool(self.through_own_screen),
            cover=CoverClass.parse(self.cover),
            fence_cover=bool(self.fence_cover),
            enfilade_side=check_enfilade_side(self.enfilade_side),
        )


@resolver(Shoot)
def _resolve_shoot(battle: Battle, a: Shoot, dice: DiceSource, tables: RuleTables) -> Resolved:
    firer = battle.unit(a.firer_id)
    refusal = phase_3_refusal(battle, firer)
    if refusal is not None:
        raise refusal
    out = resolve_volley(battle, a.volley(), dice, tables)
    t = out.plan.target
    summary = (
        f"{firer.name} fires at {t.name}: {out.hits} hit{'s' if out.hits != 1 else ''}, "
        f"{out.stands_lost} stand{'s' if out.stands_lost != 1 else ''} lost"
        + (", Disordered" if out.disorder_inflicted and not out.target_destroyed else "")
    )
    return Resolved(out.battle, list(out.steps), summary)


# -- buildings: garrisoning and artillery fire at them (RULE-03-3.1, RULE-03-3.2) ---------------------------


def garrison_of(battle: Battle, feature_id: str, tables: RuleTables) -> list[Unit]:
    """The units garrisoning a building (RULE-03-3.1), in id order."""
    from rules.battlefield.field import Battlefield

    bf = Battlefield(battle, tables)
    out = []
    for u in sorted(battle.units.values(), key=lambda u: u.id):
        b = bf.building_of(u) if u.in_play else None
        if b is not None and b.id == feature_id:
            out.append(u)
    return out


@action_type("garrison_building")
@dataclass(frozen=True)
class GarrisonBuilding(Action):
    """A unit occupies an isolated building (RULE-03-3.1) in its Phase 2.

    Up to 2 stands of infantry or dismounted cavalry, counting any garrison already inside
    (``shooting.buildings.garrison_stands``). The unit's colour stand must touch the building (within
    ``terrain.cover.touching_in``); it is placed inside, keeping its facing, and marked Garrisoned.
    """

    unit_id: str
    feature_id: str


@resolver(GarrisonBuilding)
def _resolve_garrison(battle: Battle, a: GarrisonBuilding, dice: DiceSource, tables: RuleTables) -> Resolved:
    import shapely
    from shapely.geometry import Point, Polygon

    from rules.battlefield.field import Battlefield

    unit = battle.unit(a.unit_id)
    feat = battle.feature(a.feature_id)
    label = feat.name or "the building"
    if not unit.in_play:
        raise IllegalAction(f"{unit.name} has been destroyed")
    if battle.phase != Phase.MANEUVER or unit.side != battle.active_side:
        raise IllegalAction(
            f"{unit.name} can occupy a building only in its own side's {Phase.MANEUVER.title}"
        )
    if unit.has(Marker.ENGAGED):
        raise IllegalAction(f"{unit.name} is engaged in melee and cannot occupy {label}", "RULE-06-1.1")
    bf = Battlefield(battle, tables)
    bf.check_garrison(unit, feat.id)
    if unit.has(Marker.GARRISONED) and bf.building_of(unit) is not None:
        raise IllegalAction(f"{unit.name} already garrisons {bf.building_of(unit).name or 'a building'}")
    inside = garrison_of(battle, feat.id, tables)
    cap = tables.entry("shooting.buildings.garrison_stands")
    if any(u.side != unit.side for u in inside):
        raise IllegalAction(f"{label} is held by the enemy; it must be taken by assault", "RULE-03-3.4")
    held = sum(u.stands for u in inside)
    if held + unit.stands > cap.value:
        raise IllegalAction(
            f"{label} already holds {held} stand{'s' if held != 1 else ''}; with {unit.name}'s "
            f"{unit.stands} it would hold more than {cap.value}",
            cap.citation,
        )
    outline = Polygon(feat.points)
    tol = float(tables.value("terrain.cover.touching_in"))
    gap = float(shapely.distance(outline, Point(unit.x, unit.y)))
    if gap > tol + 1e-9:
        raise IllegalAction(
            f"{unit.name}'s colour stand is {gap:.1f}\" from {label}; move it up to the building first",
            cap.citation,
        )
    spot = outline.representative_point()
    new = unit.moved_to(spot.x, spot.y).with_markers(add=[Marker.GARRISONED])
    text = f"{unit.name} occupies {label} ({unit.stands} of at most {cap.value} stands)"
    return Resolved(battle.with_unit(new), [Step(text, rule=cap.citation, units=(unit.id,))], text)


BOMBARD_PURPOSE = "bombardment"


@action_type("bombard_building")
@dataclass(frozen=True)
class BombardBuilding(Action):
    """Phase 3: a battery fires solid shot or shell at a garrisoned building (RULE-03-3.2).

    2D6 per section (RULE-04-2.3) hit on 4+ (``shooting.to_hit.building.artillery``), whatever the
    range up to the gun's maximum. The building saves each hit with its own cover from the terrain
    matrix (heavy, 4+: RULE-03-3.1); the hits are scored against the building itself, not its
    garrison. Every 2 unsaved hits are 1 structural hit, and at 4 it collapses into rubble (light
    cover) with its garrison losing 1 stand and placed outside, Disordered
    (:func:`rules.battlefield.field.damage_building`). The battery is marked with Smoke and Fired like any
    Phase 3 fire. It must have a garrison in its forward arc and in sight.
    """

    battery_id: str
    feature_id: str


@resolver(BombardBuilding)
def _resolve_bombard(battle: Battle, a: BombardBuilding, dice: DiceSource, tables: RuleTables) -> Resolved:
    import shapely
    from shapely.geometry import Point, Polygon

    from rules.battle.terrain import TerrainType
    from rules.battlefield.field import Battlefield, damage_building

    gun = battle.unit(a.battery_id)
    feat = battle.feature(a.feature_id)
    label = feat.name or "the building"
    if gun.kind != UnitKind.ARTILLERY:
        raise IllegalAction(
            f"only artillery can batter a building; {gun.name} is {gun.kind.label.lower()}", "RULE-03-3.2"
        )
    if not gun.in_play:
        raise IllegalAction(f"{gun.name} has been destroyed and cannot fire")
    if battle.phase != Phase.RANGED or gun.side != battle.active_side:
        raise IllegalAction(f"{gun.name} can fire only in its own side's {Phase.RANGED.title}")
    if gun.formation == Formation.LIMBERED:
        raise IllegalAction(f"{gun.name} is limbered and cannot fire until it unlimbers")
    if gun.has(Marker.FIRED):
        raise IllegalAction(f"{gun.name} has already fired this turn", "RULE-04-3.4")
    if feat.type != TerrainType.BUILDING:
        raise IllegalAction(
            f"{feat.name or feat.id} is not a building ({feat.type.label.lower()})", "RULE-03-3.2"
        )
    garrison = garrison_of(battle, feat.id, tables)
    enemies = [u for u in garrison if u.side != gun.side]
    if not enemies:
        raise IllegalAction(f"{label} has no enemy garrison to fire at", "RULE-03-3.2")
    bf = Battlefield(battle, tables)
    target = enemies[0]
    if not bf.in_arc(gun, target):
        raise IllegalAction(f"{label} is not in {gun.name}'s 45 degree forward arc", "RULE-03-5.1")
    sight = bf.line_of_sight(gun, target)
    if not sight.visible:
        raise IllegalAction(f"{gun.name} cannot see {label}: {sight.reason}", sight.rule)
    reach = tables.entry(f"shooting.max_range.{weapon_key(gun)}")
    dist = float(shapely.distance(Polygon(feat.points), Point(gun.x, gun.y)))
    if dist > reach.value + 1e-9:
        raise IllegalAction(
            f'{label} is {dist:.1f}" away, beyond {gun.name}\'s {reach.value:g}" maximum range',
            reach.citation,
        )

    pool = dice_pool(gun, tables, sight.clear_stands)
    hit = tables.entry("shooting.to_hit.building.artillery")
    hit_dice, hits = _roll_needing(dice, pool, hit.value, BOMBARD_PURPOSE)
    steps = [
        Step(
            f"{gun.name} fires solid shot and shell at {label}: {pool}D6 hitting on {hit.value}+: "
            f"{hits} hit{'s' if hits != 1 else ''}",
            rule=hit.citation,
            dice=hit_dice,
            units=(gun.id,),
        )
    ]
    unsaved = hits
    cover = str(tables.value("terrain.matrix.building.cover"))
    if hits and cover != CoverClass.NONE.value:
        save = tables.save(cover)
        save_dice, saved = _roll_needing(dice, hits, save.value, SAVE_PURPOSE)
        unsaved = hits - saved
        steps.append(
            Step(
                f"{label} saves {saved} of {hits} on {save.value}+ ({cover} cover)",
                rule=tables.entry("terrain.matrix.building.cover").citation,
                dice=save_dice,
            )
        )
    fired = gun.with_markers(add=[Marker.SMOKE, Marker.FIRED])
    steps.append(
        Step(
            f"{gun.name} is marked with Smoke and Fired; it cannot fire again in its Phase 3",
            rule="RULE-04-3.4",
            units=(gun.id,),
        )
    )
    dmg = damage_building(battle.with_unit(fired), feat.id, unsaved, tables)
    steps.extend(dmg.steps)
    per = tables.value("shooting.buildings.structural_hits_to_collapse")
    summary = f"{gun.name} bombards {label}: {hits} hit{'s' if hits != 1 else ''}, {unsaved} unsaved; " + (
        "it collapses into rubble" if dmg.collapsed else f"{dmg.structural_hits} of {per} structural hits"
    )
    return Resolved(dmg.battle, steps, summary)
