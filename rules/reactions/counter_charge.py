"""Reaction 5 of chapter 04: the Counter-Charge, the defender's surge forward to meet a charger,
which takes the charger's momentum and downhill bonus and gives the counter-charger its shock bonus
in the melee.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.battle.battle import Battle
from rules.battle.events import Modifier, Step
from rules.dice import DiceSource
from rules.reactions.options import CC, CostKind, Reaction, Threat, commanded_cost, require
from rules.reactions.outcomes import (
    ReactionOutcome,
    ahead,
    check_inches,
    discipline_check,
    records_reaction,
    spend_reserved,
)
from rules.tables import RuleTables


@dataclass(frozen=True)
class CounterChargeOutcome(ReactionOutcome):
    surged_in: float = 0.0
    attacker_loses_momentum: bool = True  # RULE-04-5.5 (Counter-Charge, 6.0)
    attacker_loses_downhill: bool = True
    bonuses: tuple[Modifier, ...] = ()  # the counter-charger's +1 Rebel Yell or +1 Cavalry Shock
    success: bool = True
    check_roll: int | None = None


# -- 5 Counter-Charge ----------------------------------------------------------------------------


@records_reaction
def counter_charge(
    battle: Battle,
    threat: Threat,
    dice: DiceSource,
    tables: RuleTables,
    *,
    surge_in: float | None = None,
) -> CounterChargeOutcome:
    """Reaction 5 (RULE-04-5.1, RULE-04-5.2, RULE-04-5.3, RULE-04-5.4, RULE-04-5.5 (Counter-Charge, 6.0)).

    The reserved pip is spent and the defender surges 2.0"-3.0" straight ahead (the full 3.0" if
    not given). The attacker loses its charging momentum and any downhill bonus; the
    counter-charger gets its +1 Rebel Yell or +1 Cavalry Shock in the melee (``bonuses``).
    """
    opt = require(battle, Reaction.COUNTER_CHARGE, threat, tables)
    d, a = battle.unit(threat.defender), battle.unit(threat.attacker)
    dist = (
        float(tables.value("melee.charge.counter_charge_max_in"))
        if surge_in is None
        else check_inches(
            surge_in,
            "melee.charge.counter_charge_min_in",
            "melee.charge.counter_charge_max_in",
            tables,
            "counter-charge surge",
        )
    )
    dist = min(dist, threat.distance_in)
    steps: list[Step] = []
    after = battle
    roll = None
    cost = opt.cost or commanded_cost(battle, d, tables)
    if cost.kind == CostKind.RESERVED_PIP:
        after, step = spend_reserved(after, d, cost.pips, "RULE-04-5.3" + CC, "Counter-Charge")
        steps.append(step)
    else:
        passed, roll, step = discipline_check(
            after, d, int(cost.check or 0), cost.rule, dice, "Counter-Charge without a reserved pip"
        )
        steps.append(step)
        if not passed:
            steps.append(Step(f"{d.name} does not counter-charge", rule=cost.rule, units=(d.id,)))
            return CounterChargeOutcome(
                reaction=Reaction.COUNTER_CHARGE,
                defender=d.id,
                attacker=a.id,
                battle=after,
                steps=tuple(steps),
                attacker_loses_momentum=False,
                attacker_loses_downhill=False,
                success=False,
                check_roll=roll,
            )
    d = after.unit(d.id)
    x, y = ahead(d, dist)
    after = after.with_unit(d.moved_to(x, y))
    steps.append(
        Step(
            f'"Counter-Charge!" {d.name} surges {dist:g}" forward to meet {a.name}',
            rule="RULE-04-5.4" + CC,
            units=(d.id,),
        )
    )
    steps.append(
        Step(
            f"{a.name} loses its charging momentum and any downhill bonus",
            rule="RULE-04-5.5" + CC,
            units=(a.id,),
        )
    )
    from rules.melee.score import counter_charge_bonuses  # the melee owns the bonus it scores

    bonuses = counter_charge_bonuses(d, a, tables)
    if bonuses:
        steps.append(
            Step(
                f"{d.name} will add its shock bonus to the Opposed Melee Roll",
                rule="RULE-04-5.5" + CC,
                modifiers=tuple(bonuses),
                units=(d.id,),
            )
        )
    return CounterChargeOutcome(
        reaction=Reaction.COUNTER_CHARGE,
        defender=d.id,
        attacker=a.id,
        battle=after,
        steps=tuple(steps),
        surged_in=dist,
        bonuses=bonuses,
        check_roll=roll,
    )
