"""The opposed melee roll and its aftermath (chapter 06, 3.0 to 5.0).

``Shock Score = 1D6 + Engaged Stands + Tactical Modifiers`` (RULE-06-3.2). Both sides roll one
die; the higher score wins (RULE-06-4.1).

What the melee needs to know about the position (how the attacker made contact, what the
defender stands behind, the crest, a counter-charge, a refused flank ...) is given as a
:class:`MeleeSituation`. :mod:`rules.assault.charge` builds it from the table; the umpire can build or
correct one by hand. Everything else (stands, health, Disorder, traits, the attached Brigadier)
is read from the :class:`~rules.battle.battle.Battle`.

The resolution is a pure function of (battle, situation, dice, tables): it returns a new battle
and the itemised :class:`~rules.battle.events.Step` s of the log, every modifier with its rule id.

Melees are fought in Phase 4 (RULE-06-1.1). A charge that makes contact in Phase 2
(:class:`rules.assault.actions.ChargeApproach`) leaves a :class:`PendingMelee` in the battle state, under
the battle's turn records (``Battle.extra.pending_melees``, :mod:`rules.battle.turn_records`, saved under
``"pending_melees"``), so that it is saved, undone and replayed
like the rest; :class:`ResolvePendingMelee` fights it in Phase 4 and removes it, except after a tie,
which stays pending, locked, for the next game turn's Melee Phase (RULE-06-4.2).
:class:`MeleeRuling` is the umpire's ruling that puts one off or calls it off; :mod:`rules.turn.sequence`
refuses to leave Phase 4 while one due in it is unresolved.

The melee is kept in four modules, and every name of the four is given here too:
:mod:`rules.battle.melee_situation` (the situation and the pending melee as data),
:mod:`rules.melee.score` (engaged stands and the modifiers of the Shock Score),
:mod:`rules.melee.outcome` (the opposed roll, its aftermath and the Leader Loss roll), and this
module (the Sweeping Advance, the melees waiting for Phase 4, and the actions).

How Brigadier reads the rules where they leave a choice:

* Fortifications and fences (+2 / +1, RULE-03-2.1, RULE-03-2.2, RULE-03-2.4, RULE-03-2.5) count against frontal
  assaults only; a building cannot be flanked (RULE-03-3.1), so its +2 always counts and a flank
  or rear contact on it counts as frontal. A hedge gives nothing in melee (RULE-03-2.3).
* Breastworks are "immune to flank shock penalties if the flank is anchored to the works"
  (RULE-03-2.4). A flank is anchored when the works the defender lines run round it, beside it
  within ``terrain.cover.flank_anchor_in`` back to its rear (a club default); works running straight
  on past it do not anchor it. A charge into an anchored flank meets the works: it counts as frontal,
  as at a building (no flank +2, no flank count of stands), and the works are stormed (RULE-06-5.2:
  no momentum, the works' +2, a tie or loss repulses the charger with a stand lost).
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
* A battery defeated in melee is captured and removed (RULE-06-5.1), and the victorious infantry
  "occupies the gun positions": it moves onto the ground the guns stood on, centred where the battery
  was, in place of its 2.0" consolidation advance (it may still pivot); cavalry, of which the rule
  does not say it, consolidates as usual. The battery fights with 1D6 + 1 stand
  and the ordinary modifiers of the matrix (health, Disorder, works, its Brigadier), none for
  weapons.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from rules.action_base import Action, Resolved, action_type, added_field, resolver
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.melee_situation import (
    AREA_DEFENCES,
    BUILT_UP,
    STORMED_WORKS,
    Consolidation,
    Contact,
    LeaderFate,
    MeleeSituation,
    Outcome,
    PendingMelee,
    situation_from_dict,
    situation_to_dict,
)
from rules.battle.terrain import TerrainType
from rules.battle.turn_records import BREAKTHROUGH, PENDING_MELEES, Breakthrough
from rules.battle.words import Marker, Phase
from rules.battlefield import geometry
from rules.dice import DiceSource
from rules.errors import IllegalAction
from rules.melee.outcome import (
    MeleeResult,
    _shift,
    aftermath,
    check_consolidation,
    how_stands_were_lost,
    leader_loss,
    resolve_melee,
)
from rules.melee.score import (
    ShockSide,
    counter_charge_bonuses,
    effective_contact,
    engaged_stands,
    formed_assault_column,
    front_width,
    momentum,
    obstacle_bonus,
    outcome_of,
    shock_sides,
)
from rules.tables import RuleTables


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
    occupy_guns: bool = True,
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
        occupy_guns=occupy_guns,
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


# The unit whose melee just made a Tactical Breakthrough (RULE-06-4.5) is in the battle's turn
# records (saved under BREAKTHROUGH); the next melee fought, or the sweeping advance, replaces it.


def breakthrough_unit(battle: Battle) -> str | None:
    """The unit that made a Tactical Breakthrough in the last melee of this side's turn, if any."""
    return battle.extra.breakthrough_unit(battle.turn, battle.active_side)


def _with_breakthrough(battle: Battle, result: MeleeResult | None) -> Battle:
    """The battle recording ``result``'s breakthrough, or none."""
    made = None
    if result is not None and result.breakthrough:
        made = Breakthrough(result.attacker, battle.turn, battle.active_side)
    records = battle.extra.with_breakthrough(made)
    if records is battle.extra:
        return battle
    return replace(battle, extra=records)


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
    flank_side: str | None = None  # for a flank contact: the defender's "left" or "right" flank
    occupy_guns: bool = added_field(True, saved_before=False)  # as MeleeAction's (RULE-06-5.1)

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
            flank_side=self.flank_side if Contact.parse(self.contact) == Contact.FLANK else None,
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
    after, steps, second = sweep(
        battle, victor.id, dice, tables, next_situation=a.situation(), occupy_guns=bool(a.occupy_guns)
    )
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

# The melees waiting for a Phase 4 are in the battle's turn records (saved under PENDING_MELEES as
# a list of PendingMelee.to_dict()): saved, diffed, undone and replayed like everything else.


def pending_melees(battle: Battle) -> tuple[PendingMelee, ...]:
    """The melees waiting for a Phase 4, oldest first."""
    return battle.extra.pending_melees


def with_pending_melees(battle: Battle, melees: Sequence[PendingMelee]) -> Battle:
    """The battle with ``melees`` as its pending melees (none are saved when there are none)."""
    return replace(battle, extra=battle.extra.with_pending_melees(melees))


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
    return melee.is_due(battle.turn)


def due_melees(battle: Battle) -> tuple[PendingMelee, ...]:
    """The pending melees to be fought in the Phase 4 of the battle's game turn."""
    return battle.extra.due_melees(battle.turn)


def describe_melee(battle: Battle, melee: PendingMelee) -> str:
    """ "4th Virginia against 2nd Wisconsin's front" ("locked by a tie", and the turn it waits for)."""
    return melee.describe(battle.units, battle.turn)


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
    occupy_guns: bool = True,
) -> tuple[Battle, list[Step], MeleeResult | None]:
    """Phase 4: the opposed roll of a pending melee, its aftermath and the Leader Loss rolls for
    stands lost in the approach or the melee (RULE-06-1.1, RULE-06-3.2, RULE-06-4.1, RULE-06-4.2, RULE-06-4.3, RULE-06-4.4, RULE-06-4.5).

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
        battle,
        pm.situation,
        dice,
        tables,
        consolidation=consolidation,
        leader_check=False,
        occupy_guns=occupy_guns,
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
    :class:`MeleeSituation`; ``momentum_in`` is 0 for units already locked together. ``flank_side``
    names the defender's flank a flank contact hits ("left" or "right"): a refused flank turns only
    a contact on that flank frontal (RULE-04-5.4); without it (melees saved before it was
    recorded) any refused flank does, as it did then."""

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
    flank_side: str | None = None
    # infantry that overruns a battery occupies its gun positions (RULE-06-5.1); the melees of saves
    # made before consolidate as they were played
    occupy_guns: bool = added_field(True, saved_before=False)

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
            flank_side=self.flank_side if Contact.parse(self.contact) == Contact.FLANK else None,
        )


@resolver(MeleeAction)
def _resolve_melee_action(battle: Battle, a: MeleeAction, dice: DiceSource, tables: RuleTables) -> Resolved:
    r = resolve_melee(battle, a.situation(), dice, tables, occupy_guns=bool(a.occupy_guns))
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
    occupy_guns: bool = added_field(True, saved_before=False)  # as MeleeAction's (RULE-06-5.1)

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
    after, steps, r = fight_pending(
        battle, a.melee_id, dice, tables, consolidation=a.consolidation(), occupy_guns=bool(a.occupy_guns)
    )
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

    ruling: ClassVar[bool] = True

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


__all__ = [
    "AREA_DEFENCES",
    "BREAKTHROUGH",
    "BUILT_UP",
    "Consolidation",
    "Contact",
    "LeaderFate",
    "MeleeAction",
    "MeleeResult",
    "MeleeRuling",
    "MeleeSituation",
    "Outcome",
    "PENDING_MELEES",
    "PendingMelee",
    "ResolvePendingMelee",
    "STORMED_WORKS",
    "ShockSide",
    "SweepingAdvance",
    "add_pending_melee",
    "aftermath",
    "breakthrough_unit",
    "check_consolidation",
    "counter_charge_bonuses",
    "describe_melee",
    "due_melees",
    "effective_contact",
    "engaged_stands",
    "fight_pending",
    "formed_assault_column",
    "front_width",
    "how_stands_were_lost",
    "is_due",
    "leader_loss",
    "momentum",
    "obstacle_bonus",
    "outcome_of",
    "pending_melee",
    "pending_melees",
    "resolve_melee",
    "settle_melee",
    "shock_sides",
    "situation_from_dict",
    "situation_to_dict",
    "sweep",
    "sweep_contacts",
    "sweeping_advance",
    "with_pending_melees",
]
