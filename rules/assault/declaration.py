"""Declaring an assault (RULE-06-1.2, RULE-06-1.3): every condition the charger does not meet,
with the rule that sets it (the phase and side, an infantry or cavalry regiment in Line of Battle
or Assault Column, not Disordered, not Spent without its Brigadier, the target in its forward arc
and within the Double-Quick Charge Range, and no more than the one pivot of its path), and the
Staff Pip spent on it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.assault.charge_path import charge_range_in, plan_charge
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.words import Formation, Health, Marker, Phase, UnitKind
from rules.battlefield import geometry
from rules.errors import IllegalAction
from rules.tables import RuleTables

CHARGING_KINDS = (UnitKind.INFANTRY, UnitKind.CAVALRY)
CHARGING_FORMATIONS = (Formation.LINE, Formation.ASSAULT_COLUMN, Formation.MOUNTED, Formation.DISMOUNTED)


@dataclass(frozen=True)
class Problem:
    """One unmet condition of a declaration, with the rule that sets it."""

    message: str
    rule: str

    def __str__(self) -> str:
        return f"{self.message} ({self.rule})"


def declaration_problems(
    battle: Battle, attacker_id: str, target_id: str, tables: RuleTables
) -> list[Problem]:
    """Every reason the attacker may not declare an assault on the target now (empty: it may)."""
    a, t = battle.unit(attacker_id), battle.unit(target_id)
    brigade = battle.brigade_of(a)
    out: list[Problem] = []
    if battle.phase != Phase.MANEUVER:
        out.append(
            Problem(
                f"assaults are declared in {Phase.MANEUVER.title}, not {battle.phase.title}", "RULE-06-1.1"
            )
        )
    if a.side != battle.active_side:
        out.append(Problem(f"{a.name} is not on the active side", "RULE-06-1.1"))
    if not a.in_play:
        out.append(Problem(f"{a.name} {a.absent_words}", "RULE-06-1.3"))
    if not t.in_play:
        out.append(Problem(f"{t.name} {t.absent_words}", "RULE-06-1.4"))
    if t.side == a.side:
        out.append(Problem(f"{t.name} is a friendly unit", "RULE-06-1.4"))
    if a.kind not in CHARGING_KINDS:
        out.append(
            Problem(
                f"only infantry or cavalry regiments declare assaults, not {a.kind.label.lower()}",
                "RULE-06-1.2",
            )
        )
    cost = int(tables.value("command.staff_pips.cost_to_declare_assault"))
    leader = brigade.brigadier.name or brigade.name
    if brigade.staff_pips < cost:
        out.append(Problem(f"{leader} has no Staff Pip to spend on the assault", "RULE-06-1.2"))
    if not brigade.can_assault:
        out.append(
            Problem(f"{brigade.name} is {brigade.state.value}: it cannot declare assaults", "RULE-06-1.2")
        )
    if a.formation not in CHARGING_FORMATIONS:
        out.append(
            Problem(
                f"{a.name} is in {a.formation.label.lower()}; it must be in Line of Battle or Assault Column",
                "RULE-06-1.3",
            )
        )
    if a.disordered:
        out.append(Problem(f"{a.name} is Disordered", "RULE-06-1.3"))
    if a.has(Marker.ENGAGED):
        out.append(Problem(f"{a.name} is locked in melee", "RULE-06-4.2"))
    if a.health == Health.SPENT and not battle.oob.has_attached_brigadier(a.id):
        out.append(Problem(f"{a.name} is Spent and has no Brigadier attached to lead it", "RULE-06-1.3"))
    if a.in_play and t.in_play and a.id != t.id:
        if not geometry.in_forward_arc(a, t, tables):
            out.append(Problem(f"{t.name} is not in {a.name}'s forward 45 degree arc", "RULE-06-1.3"))
        reach = charge_range_in(a, tables)
        dist = geometry.distance_in(a, t, tables)
        if dist > reach:
            out.append(
                Problem(
                    f'{t.name} is {dist:.1f}" away, beyond the {reach:g}" Double-Quick Charge Range',
                    "RULE-06-1.3",
                )
            )
        elif not out:
            # in arc and in reach: the charge must also need no more than its one pivot (RULE-06-1.4),
            # so that what is offered as chargeable is what the charge itself accepts
            try:
                plan_charge(battle, attacker_id, target_id, tables)
            except IllegalAction as exc:
                out.append(Problem(str(exc).removesuffix(f" ({exc.rule})"), exc.rule or "RULE-06-1.4"))
    return out


def check_declaration(battle: Battle, attacker_id: str, target_id: str, tables: RuleTables) -> None:
    """Raise :class:`IllegalAction` listing every unmet condition of the declaration."""
    problems = declaration_problems(battle, attacker_id, target_id, tables)
    if problems:
        a = battle.unit(attacker_id)
        raise IllegalAction(
            f"{a.name} cannot assault: " + "; ".join(str(p) for p in problems), problems[0].rule
        )


def declare_charge(
    battle: Battle, attacker_id: str, target_id: str, tables: RuleTables
) -> tuple[Battle, list[Step]]:
    """Declare the assault: check every condition and spend the Staff Pip (RULE-06-1.2)."""
    check_declaration(battle, attacker_id, target_id, tables)
    a, t = battle.unit(attacker_id), battle.unit(target_id)
    brigade = battle.brigade_of(a)
    cost = int(tables.value("command.staff_pips.cost_to_declare_assault"))
    battle = battle.with_brigade(replace(brigade, staff_pips=brigade.staff_pips - cost))
    leader = brigade.brigadier.name or brigade.name
    step = Step(
        f"{leader} spends {cost} Staff Pip: {a.name} assaults {t.name}",
        rule=tables.entry("command.staff_pips.cost_to_declare_assault").citation,
        units=(a.id, t.id),
    )
    return battle, [step]
