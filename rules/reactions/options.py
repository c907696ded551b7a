"""Who may take each of the five Tactical Reactions of chapter 04, and what it costs: the threat a
reaction answers, the reasons a defender may not take one, and the record of who has reacted to
what this side's turn (RULE-04-1.4). The table of the five, and how Brigadier reads them, is in
:mod:`rules.reactions.declare`; what each does is in :mod:`rules.reactions.outcomes`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from rules.battle.battle import Battle
from rules.battle.unit import REBEL_YELL, Unit, refused_flanks
from rules.battle.words import Formation, Health, Marker, Quality, StrEnum, UnitKind, Weapon
from rules.errors import IllegalAction, InvariantError
from rules.tables import Entry, RuleTables

CC = " (Counter-Charge, 6.0)"  # how the second RULE-04-5.1, RULE-04-5.2, RULE-04-5.3, RULE-04-5.4, RULE-04-5.5 block is cited
RF = " (Refuse the Flank, 5.0)"


class Window(StrEnum):
    A = "a"  # Maneuver Interruption (RULE-04-1.2)
    B = "b"  # Assault & Charge Interruption (RULE-04-1.2, RULE-06-2.1)

    @property
    def label(self) -> str:
        return f"Trigger Window {self.value.upper()}"


class Reaction(StrEnum):
    CLOSING_VOLLEY = "closing_volley"
    OPPORTUNITY_FIRE = "opportunity_fire"
    EVADE = "evade"
    REFUSE_FLANK = "refuse_flank"
    COUNTER_CHARGE = "counter_charge"

    @property
    def number(self) -> int:
        return list(Reaction).index(self) + 1

    @property
    def title(self) -> str:
        return {
            Reaction.CLOSING_VOLLEY: "Closing Defensive Volley",
            Reaction.OPPORTUNITY_FIRE: "Opportunity Fire",
            Reaction.EVADE: "Skirmish / Screen Evade",
            Reaction.REFUSE_FLANK: "Refuse the Flank",
            Reaction.COUNTER_CHARGE: "Counter-Charge",
        }[self]

    @property
    def windows(self) -> tuple[Window, ...]:
        return {
            Reaction.CLOSING_VOLLEY: (Window.B,),
            Reaction.OPPORTUNITY_FIRE: (Window.A,),
            Reaction.EVADE: (Window.A, Window.B),
            Reaction.REFUSE_FLANK: (Window.A, Window.B),
            Reaction.COUNTER_CHARGE: (Window.B,),
        }[self]


REACTIONS_OF_WINDOW: dict[Window, tuple[Reaction, ...]] = {
    w: tuple(r for r in Reaction if w in r.windows) for w in Window
}


class CostKind(StrEnum):
    FREE = "free"
    RESERVED_PIP = "reserved_pip"
    DISCIPLINE_CHECK = "discipline_check"


@dataclass(frozen=True)
class Cost:
    """What a reaction costs: nothing, reserved Staff Pips, or a Discipline Check on 1D6."""

    kind: CostKind
    rule: str
    pips: int = 0
    check: int | None = None  # the number needed on 1D6

    def __str__(self) -> str:
        if self.kind == CostKind.FREE:
            return "free"
        if self.kind == CostKind.RESERVED_PIP:
            return f"{self.pips} reserved Staff Pip{'s' if self.pips != 1 else ''}"
        return f"Discipline Check {self.check}+"


@dataclass(frozen=True)
class Reason:
    """Why a reaction may not be taken, with the rule that says so."""

    text: str
    rule: str | None = None

    def __str__(self) -> str:
        return f"{self.text} ({self.rule})" if self.rule else self.text


@dataclass(frozen=True)
class Option:
    """One reaction open (or closed) to one defender: its cost, or the reasons it may not be taken."""

    reaction: Reaction
    defender: str
    cost: Cost | None
    reasons: tuple[Reason, ...] = ()

    @property
    def eligible(self) -> bool:
        return not self.reasons

    def __str__(self) -> str:
        if self.eligible:
            return f"{self.reaction.title}: {self.cost}"
        return f"{self.reaction.title}: not allowed: " + "; ".join(str(r) for r in self.reasons)


@dataclass(frozen=True)
class Threat:
    """An enemy action a defender may react to, with the facts of the position.

    * ``distance_in``: the range between them; at Window B the charger's distance from the
      defender's front edge (RULE-04-2.1).
    * ``in_forward_arc``: the attacker is in the defender's 45 degree forward arc (RULE-03-5.1).
    * ``charge``: the attacker has declared a charge against this defender.
    * ``flank``: "left" or "right" when the attacker is in (or its charge targets) that 45-90
      degree flank zone (RULE-04-5.1 (Refuse the Flank, 5.0)); None otherwise.
    * ``open_ground``: the ground between them is open (Counter-Charge, RULE-04-5.1 (6.0)).
    * ``enfilade``: the defender, firing, would rake the attacker's flank (RULE-03-5.7);
      ``enfilade_side`` says which of the attacker's sides ("left", "right", "rear"), so that a
      flank the attacker has refused is told from one it has not (RULE-04-5.4).
    """

    window: Window
    attacker: str
    defender: str
    distance_in: float
    in_forward_arc: bool = True
    charge: bool = False
    flank: str | None = None
    open_ground: bool = True
    enfilade: bool = False
    enfilade_side: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "window", Window.parse(self.window))
        d = self.distance_in
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not math.isfinite(d) or d < 0:
            raise InvariantError(f"the distance between the units must be inches of 0 or more, not {d!r}")
        if self.flank not in (None, "left", "right"):
            raise InvariantError(f"a flank is 'left' or 'right', not {self.flank!r}")
        if self.enfilade_side not in (None, "left", "right", "rear"):
            raise InvariantError(f"fire rakes the left, right or rear, not {self.enfilade_side!r}")
        if self.attacker == self.defender:
            raise InvariantError("a unit cannot react to itself")


# -- eligibility ---------------------------------------------------------------------------------


def _inches(x: float) -> str:
    """A distance as the umpire reads a tape, to the tenth of an inch as everywhere in Brigadier:
    7.998 -> "8", 8.01 -> "8", 9.57 -> "9.6"."""
    return f"{round(x, 1):g}"


def _is_regiment_or_battery(u: Unit) -> bool:
    """A formed regiment or an unlimbered battery (RULE-04-2.1, RULE-04-3.1)."""
    if u.kind == UnitKind.ARTILLERY:
        return u.formation == Formation.UNLIMBERED
    return u.kind in (UnitKind.INFANTRY, UnitKind.CAVALRY) and u.is_formed


def _can_fire(u: Unit) -> bool:
    return u.kind == UnitKind.ARTILLERY or u.weapon != Weapon.NONE


def _check_firers(d: Unit, why: list[Reason], formed_rule: str, firearms_rule: str) -> None:
    """A reaction volley is fired by a formed regiment or unlimbered battery with firearms: the
    Closing Volley (RULE-04-2.1, RULE-04-2.3) and Opportunity Fire (RULE-04-3.1, RULE-04-3.3) ask the same."""
    if not _is_regiment_or_battery(d):
        why.append(Reason(f"{d.name} is not a formed regiment or unlimbered battery", formed_rule))
    elif not _can_fire(d):
        why.append(Reason(f"{d.name} has no firearms", firearms_rule))


def _beyond(a: Unit, t: Threat, reach: Entry) -> Reason:
    """The threat is farther away than the reaction's reach (a table entry with its citation)."""
    return Reason(f'{a.name} is {_inches(t.distance_in)}" away, beyond {reach.value:g}"', reach.citation)


def commanded_cost(battle: Battle, defender: Unit, tables: RuleTables, *, pip_only: bool = False) -> Cost:
    """The cost of a commanded reaction: a reserved pip if the brigade has one, else a 4+ check."""
    pips = tables.entry("command.staff_pips.cost_of_commanded_reaction")
    brigade = battle.brigade_of(defender)
    if brigade.staff_pips_reserved >= pips.value or pip_only:
        rule = "RULE-04-5.3" + CC if pip_only else pips.citation
        return Cost(CostKind.RESERVED_PIP, rule, pips=pips.value)
    check = tables.entry("discipline.check.commanded_reaction_without_pip")
    return Cost(CostKind.DISCIPLINE_CHECK, check.citation, check=check.value)


def option(battle: Battle, reaction: Reaction | str, threat: Threat, tables: RuleTables) -> Option:
    """May the threat's defender take ``reaction``? Its cost, or every reason it may not."""
    reaction = Reaction.parse(reaction)
    d = battle.unit(threat.defender)
    a = battle.unit(threat.attacker)
    why: list[Reason] = []
    if not d.in_play:
        why.append(Reason(f"{d.name} has been destroyed"))
    if not a.in_play:
        why.append(Reason(f"{a.name} has been destroyed"))
    if d.side == a.side:
        why.append(Reason(f"{a.name} is a friendly unit"))
    if threat.window not in reaction.windows:
        windows = " or ".join(w.label for w in reaction.windows)
        why.append(Reason(f"{reaction.title} is declared in {windows} only", "RULE-04-1.2"))
    check = _CHECKS[reaction]
    cost = check(battle, d, a, threat, tables, why)
    if d.id in reacted_to(battle, threat.window, a.id):
        what = "charge" if threat.window == Window.B else "move"
        why.append(Reason(f"{d.name} has already reacted to {a.name}'s {what}", "RULE-04-1.4"))
    return Option(reaction, d.id, None if why else cost, tuple(why))


def options(battle: Battle, threat: Threat, tables: RuleTables) -> tuple[Option, ...]:
    """Every reaction of the threat's window, each with its cost or the reasons it is closed."""
    return tuple(option(battle, r, threat, tables) for r in REACTIONS_OF_WINDOW[threat.window])


def _closing_volley(battle, d: Unit, a: Unit, t: Threat, tables: RuleTables, why: list[Reason]) -> Cost:
    window_b = tables.entry("melee.charge.window_b_in")
    if not t.charge:
        why.append(Reason(f"{a.name} has not declared a charge against {d.name}", "RULE-04-2.1"))
    elif t.distance_in > window_b.value:
        why.append(
            Reason(
                f'{a.name} is {_inches(t.distance_in)}" away, not yet within {window_b.value:g}" of the front',
                "RULE-04-2.1",
            )
        )
    _check_firers(d, why, "RULE-04-2.1", "RULE-04-2.3")
    if not t.in_forward_arc:
        why.append(Reason(f"{a.name} is not in {d.name}'s 45 degree forward arc", "RULE-04-2.2"))
    if d.disordered:
        why.append(Reason(f"{d.name} is Disordered", "RULE-04-2.2"))
    if d.has(Marker.SMOKE):
        why.append(Reason(f"{d.name} has a Smoke Marker from firing", "RULE-04-2.2"))
    return Cost(CostKind.FREE, "RULE-04-2.2")


def _opportunity_fire(battle, d: Unit, a: Unit, t: Threat, tables: RuleTables, why: list[Reason]) -> Cost:
    reach = tables.entry("movement.trigger.opportunity_fire_in")
    _check_firers(d, why, "RULE-04-3.1", "RULE-04-3.3")
    if not t.in_forward_arc:
        why.append(Reason(f"{a.name} is not in {d.name}'s 45 degree forward arc", "RULE-04-3.1"))
    if t.distance_in > reach.value:
        why.append(_beyond(a, t, reach))
    if d.has(Marker.ENGAGED):
        why.append(Reason(f"{d.name} is engaged in melee", "RULE-04-3.2"))
    if d.disordered:
        why.append(Reason(f"{d.name} is Disordered", "RULE-04-3.2"))
    if d.has(Marker.SMOKE):
        why.append(Reason(f"{d.name} has a Smoke Marker", "RULE-04-3.2"))
    return Cost(CostKind.FREE, "RULE-04-3.2")


def _evade(battle, d: Unit, a: Unit, t: Threat, tables: RuleTables, why: list[Reason]) -> Cost:
    reach = tables.entry("movement.trigger.screen_evade_in")
    if d.kind == UnitKind.SKIRMISHERS or (d.kind == UnitKind.CAVALRY_SCREEN and d.is_mounted):
        pass
    elif d.kind == UnitKind.CAVALRY_SCREEN:
        why.append(Reason(f"{d.name} is a dismounted cavalry screen, not a mounted one", "RULE-04-4.2"))
    else:
        why.append(Reason(f"{d.name} is not a skirmish stand or light cavalry screen", "RULE-04-4.2"))
    if a.is_screen or a.formation == Formation.SKIRMISH:
        why.append(Reason(f"{a.name} is not a formed battle line or column", "RULE-04-4.1"))
    if not t.charge and t.distance_in > reach.value:
        why.append(_beyond(a, t, reach))
    if d.has(Marker.PINNED):
        why.append(Reason(f"{d.name} is pinned", "RULE-04-4.2"))
    if d.disordered:
        why.append(Reason(f"{d.name} is Disordered", "RULE-04-4.2"))
    return Cost(CostKind.FREE, "RULE-04-4.2")


def _refuse_flank(battle, d: Unit, a: Unit, t: Threat, tables: RuleTables, why: list[Reason]) -> Cost:
    if d.kind not in (UnitKind.INFANTRY, UnitKind.CAVALRY) or d.formation != Formation.LINE:
        why.append(Reason(f"{d.name} is not a regiment in Line of Battle", "RULE-04-5.1" + RF))
    if t.flank is None and t.charge:
        why.append(Reason(f"{a.name}'s charge does not come in on {d.name}'s flank", "RULE-04-5.1" + RF))
    elif t.flank is None:
        why.append(Reason(f"{a.name} is not in {d.name}'s flank zone", "RULE-04-5.1" + RF))
    if t.flank is not None and t.flank in refused_flanks(d):
        # each flank is refused by its own reaction (RULE-04-5.3 wheels the stands of one flank)
        why.append(Reason(f"{d.name} has already refused its {t.flank} flank", "RULE-04-5.3" + RF))
    return commanded_cost(battle, d, tables)


def counter_charge_traits(d: Unit) -> Reason | None:
    """Why the unit may not counter-charge by its kind and traits, or None if it may (RULE-04-5.2 (6.0))."""
    if d.kind == UnitKind.INFANTRY and d.formation != Formation.SKIRMISH:
        if d.has_trait(REBEL_YELL):
            return None
        if d.quality == Quality.VETERAN and d.health == Health.FRESH:
            return None
        return Reason(
            f"{d.name} has not the Rebel Yell trait and is not Veteran and Fresh", "RULE-04-5.2" + CC
        )
    if d.kind == UnitKind.CAVALRY:
        if d.formation != Formation.MOUNTED:
            return Reason(f"{d.name} is not formed mounted", "RULE-04-5.2" + CC)
        if d.disordered:
            return Reason(f"{d.name} is not in good order (Disordered)", "RULE-04-5.2" + CC)
        return None
    return Reason(f"{d.name} is not an infantry regiment or formed mounted cavalry", "RULE-04-5.2" + CC)


def _counter_charge(battle, d: Unit, a: Unit, t: Threat, tables: RuleTables, why: list[Reason]) -> Cost:
    reach = tables.entry("movement.trigger.counter_charge_in")
    if not t.charge:
        why.append(Reason(f"{a.name} has not declared an assault against {d.name}", "RULE-04-5.1" + CC))
    if a.kind not in (UnitKind.INFANTRY, UnitKind.CAVALRY):
        why.append(Reason(f"{a.name} is not infantry or cavalry", "RULE-04-5.1" + CC))
    if t.distance_in > reach.value:
        why.append(_beyond(a, t, reach))
    if not t.open_ground:
        why.append(Reason(f"the ground between {a.name} and {d.name} is not open", "RULE-04-5.1" + CC))
    if t.flank is not None or not t.in_forward_arc:
        # the counter-charger surges straight forward to meet the charger head-on, an open-field
        # clash (RULE-04-5.4, RULE-04-5.5): a charge on its flank or rear cannot be met so
        where = f"comes in on {d.name}'s {t.flank} flank" if t.flank else f"is not in {d.name}'s forward arc"
        why.append(
            Reason(
                f"{a.name}'s charge {where}: a counter-charge surges forward to meet the charger head-on",
                "RULE-04-5.4" + CC,
            )
        )
    trait = counter_charge_traits(d)
    if trait is not None:
        why.append(trait)
    needs_pip = bool(tables.value("command.staff_pips.counter_charge_needs_reserved_pip"))
    pips = tables.value("command.staff_pips.cost_of_commanded_reaction")
    if needs_pip and battle.brigade_of(d).staff_pips_reserved < pips:
        why.append(Reason(f"{battle.brigade_of(d).name} has no reserved Staff Pip", "RULE-04-5.3" + CC))
    return commanded_cost(battle, d, tables, pip_only=needs_pip)


_CHECKS = {
    Reaction.CLOSING_VOLLEY: _closing_volley,
    Reaction.OPPORTUNITY_FIRE: _opportunity_fire,
    Reaction.EVADE: _evade,
    Reaction.REFUSE_FLANK: _refuse_flank,
    Reaction.COUNTER_CHARGE: _counter_charge,
}


def require(battle: Battle, reaction: Reaction, threat: Threat, tables: RuleTables) -> Option:
    """The option, or :class:`IllegalAction` with the first reason it may not be taken."""
    opt = option(battle, reaction, threat, tables)
    if not opt.eligible:
        first = opt.reasons[0]
        d = battle.unit(threat.defender)
        raise IllegalAction(f"{d.name} cannot take {reaction.title}: {first.text}", first.rule)
    return opt


# Who has reacted to what this side's turn (RULE-04-1.4) is in the battle's turn records (saved under
# REACTED as {"turn": n, "side": id, "by_trigger": {trigger: [defender, ...]}}).


def trigger_of(window: Window | str, attacker_id: str) -> str:
    """The triggering action a reaction answers: the attacker's move (Window A) or charge (Window B)."""
    return f"{'charge' if Window.parse(window) == Window.B else 'move'}:{attacker_id}"


def reacted_to(battle: Battle, window: Window | str, attacker_id: str) -> frozenset[str]:
    """The defenders that have reacted to this attacker's move (Window A) or charge (Window B) in the
    current side's turn: they may not react to it again (RULE-04-1.4)."""
    return battle.extra.reacted_to(trigger_of(window, attacker_id), battle.turn, battle.active_side)


def record_reaction(battle: Battle, threat: Threat) -> Battle:
    """The battle with the threat's defender recorded as having reacted to its triggering action."""
    key = trigger_of(threat.window, threat.attacker)
    records = battle.extra.with_reaction(key, threat.defender, battle.turn, battle.active_side)
    return replace(battle, extra=records)
