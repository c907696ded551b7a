"""The opposed melee roll and its aftermath (RULE-06-4.1, RULE-06-4.2, RULE-06-4.3, RULE-06-4.4, RULE-06-4.5, RULE-06-5.1, RULE-06-5.2, RULE-03-3.4): who wins, the hits,
retreats and routs, the consolidation move, the Leader Loss roll, and :func:`resolve_melee`.
How Brigadier reads the rules where they leave a choice is said in :mod:`rules.melee.melee`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.melee_situation import (
    BUILT_UP,
    STORMED_WORKS,
    Consolidation,
    LeaderFate,
    MeleeSituation,
    Outcome,
)
from rules.battle.unit import Unit
from rules.battle.words import BrigadierStatus, Health, Marker, UnitKind, plural
from rules.battlefield import geometry
from rules.dice import DiceSource
from rules.errors import IllegalAction, InvariantError
from rules.melee.score import _works_apply, outcome_of, shock_sides
from rules.tables import RuleTables


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


# -- the aftermath (RULE-06-4.1, RULE-06-4.2, RULE-06-4.3, RULE-06-4.4, RULE-06-4.5, RULE-06-5.1, RULE-06-5.2, RULE-03-3.4) ---


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


def occupy_the_guns(unit: Unit, battery: Unit, c: Consolidation | None, tables: RuleTables) -> Unit:
    """The victorious infantry "occupies the gun positions" of the battery it overran (RULE-06-5.1):
    it moves onto the ground the guns stood on, its footprint centred where the battery's was, in
    place of the consolidation's advance; it may still pivot (RULE-06-4.4)."""
    here = geometry.footprint(unit, tables).centre
    there = geometry.footprint(battery, tables).centre
    u = unit.moved_to(unit.x + there[0] - here[0], unit.y + there[1] - here[1], unit.facing_deg)
    return _consolidate(u, Consolidation(pivot_deg=c.pivot_deg)) if c is not None else u


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
    occupy_guns: bool = True,
) -> tuple[Battle, list[Step], Outcome, dict[str, int], bool]:
    """What the scores do (RULE-06-4.1, RULE-06-4.2, RULE-06-4.3, RULE-06-4.4, RULE-06-4.5, RULE-06-5.1, RULE-06-5.2, RULE-03-3.4): the new battle, its steps, the outcome as
    it stands after the works and built-up rules, the stands each unit lost, and a breakthrough.
    ``occupy_guns=False`` is how a melee of a save made before infantry occupied an overrun
    battery's positions is fought again: the victor consolidates as it did then."""
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
        if occupy_guns and d0.kind == UnitKind.ARTILLERY and a0.kind == UnitKind.INFANTRY:
            a = occupy_the_guns(a.with_markers(remove=[Marker.ENGAGED]), d0, consolidation, tables)
            pivot = f", pivots {consolidation.pivot_deg:g} degrees" if consolidation else ""
            steps.append(
                Step(f"{a.name} occupies the gun positions{pivot}", rule="RULE-06-5.1", units=(a.id,))
            )
        else:
            c = consolidation or Consolidation(
                advance_in=float(tables.value("melee.outcome.consolidation_in"))
            )
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
    occupy_guns: bool = True,
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
        battle, situation, a_score, d_score, tables, consolidation=consolidation, occupy_guns=occupy_guns
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
