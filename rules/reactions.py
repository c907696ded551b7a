"""The five Tactical Reactions of chapter 04: who may take each, what it costs, and what it does.

A reaction answers a :class:`Threat`: an active enemy unit that moves across a defender's front or
flank (Trigger Window A) or declares a charge and closes to 4.0" (Trigger Window B, RULE-04-1.2).
The threat carries the facts of the position (range, arc, flank zone, open ground) that
:mod:`rules.triggers` measures on the table; this module checks the rules' conditions.

===========================  ======  =====================================  ==========================
Reaction                      Window  Who may take it                         Cost (RULE-04-1.3)
===========================  ======  =====================================  ==========================
1 Closing Defensive Volley    B       formed regiment or battery; charger in  free
                                      its forward arc; not Disordered; no
                                      Smoke (RULE-04-2.1, 2.2)
2 Opportunity Fire            A       formed regiment or battery; mover in    free
                                      its forward arc within 8"; unengaged;
                                      not Disordered; no Smoke (RULE-04-3.1,
                                      3.2)
3 Skirmish / Screen Evade     A, B    skirmish stand or mounted cavalry       free
                                      screen; formed enemy within 6" or
                                      charging it; not pinned or Disordered
                                      (RULE-04-4.1, 4.2)
4 Refuse the Flank            A, B    regiment in Line of Battle; enemy in    1 reserved pip, or a 4+
                                      its 45-90 degree flank zone             Discipline Check
                                      (RULE-04-5.1)                           (RULE-04-5.2)
5 Counter-Charge              B       Rebel Yell infantry, Veteran and Fresh  1 reserved pip, no check
                                      infantry, or formed mounted cavalry in  (RULE-04-5.3
                                      good order; infantry or cavalry         (Counter-Charge, 6.0))
                                      charging it within 9" across open
                                      ground (RULE-04-5.1, 5.2 (Counter-
                                      Charge, 6.0))
===========================  ======  =====================================  ==========================

Counter-Charge needs a reserved pip although RULE-04-1.3 lets commanded reactions use a 4+ check
instead: the specific rule of chapter 04, 6.0 is followed, as the table entry
``command.staff_pips.counter_charge_needs_reserved_pip`` records. A defender takes one reaction
per triggering action (RULE-04-1.4): every reaction resolved here is recorded in the battle state
(``Battle.extra.reactions``, :func:`reacted_to`), and :func:`option` refuses a second one by the
same defender to the same triggering action. The triggering action is an active unit's move
(Window A) or its charge (Window B) in the current side's turn; the record of an earlier turn
counts for nothing.

Every resolution is a pure function of (battle, threat, dice, tables) and returns an outcome with
the new ``battle`` and the ``steps`` of the log.

A defender that answers a window with "No reaction" is recorded too: :class:`DeclineReaction` is
an action of its own, saved, undone and shown like every other, that changes nothing on the table
and does not count as the defender's one reaction (RULE-04-1.4).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

from rules.action_base import Action, Resolved, action_type, resolver
from rules.actions import mark_stalled, scale_remaining_move
from rules.battle import Battle
from rules.dice import DiceSource
from rules.errors import IllegalAction, InvariantError
from rules.events import Modifier, Step
from rules.geometry import point_along
from rules.model import REBEL_YELL, Formation, Health, Marker, Phase, Quality, StrEnum, Unit, UnitKind, Weapon
from rules.shooting import Cover, FireKind, Volley, VolleyOutcome, resolve_volley
from rules.tables import Entry, RuleTables
from rules.turn_records import REACTED as REACTED  # the key the record is saved under

CC = " (Counter-Charge, 6.0)"  # how the second RULE-04-5.x block is cited
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
    * ``enfilade``: the defender, firing, would rake the attacker's flank (RULE-03-5.7).
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

    def __post_init__(self) -> None:
        object.__setattr__(self, "window", Window.parse(self.window))
        d = self.distance_in
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not math.isfinite(d) or d < 0:
            raise InvariantError(f"the distance between the units must be inches of 0 or more, not {d!r}")
        if self.flank not in (None, "left", "right"):
            raise InvariantError(f"a flank is 'left' or 'right', not {self.flank!r}")
        if self.attacker == self.defender:
            raise InvariantError("a unit cannot react to itself")


# -- eligibility ---------------------------------------------------------------------------------


def _inches(x: float) -> str:
    """A distance as the umpire reads a tape: 7.998 -> "8", 8.01 -> "8.01"."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _is_regiment_or_battery(u: Unit) -> bool:
    """A formed regiment or an unlimbered battery (RULE-04-2.1, RULE-04-3.1)."""
    if u.kind == UnitKind.ARTILLERY:
        return u.formation == Formation.UNLIMBERED
    return u.kind in (UnitKind.INFANTRY, UnitKind.CAVALRY) and u.is_formed


def _can_fire(u: Unit) -> bool:
    return u.kind == UnitKind.ARTILLERY or u.weapon != Weapon.NONE


def _check_firers(d: Unit, why: list[Reason], formed_rule: str, firearms_rule: str) -> None:
    """A reaction volley is fired by a formed regiment or unlimbered battery with firearms: the
    Closing Volley (RULE-04-2.1, 2.3) and Opportunity Fire (RULE-04-3.1, 3.3) ask the same."""
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
    if d.has(Marker.REFUSED_FLANK):
        why.append(Reason(f"{d.name} has already refused its flank", "RULE-04-5.3" + RF))
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
        # clash (RULE-04-5.4, 5.5): a charge on its flank or rear cannot be met so
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


def _records(fn):
    """Each reaction, once resolved, is recorded against its triggering action (RULE-04-1.4)."""

    @functools.wraps(fn)
    def run(battle: Battle, threat: Threat, dice: DiceSource, tables: RuleTables, **inputs):
        out = fn(battle, threat, dice, tables, **inputs)
        return replace(out, battle=record_reaction(out.battle, threat))

    return run


# -- paying for a reaction -----------------------------------------------------------------------


def _discipline_check(
    battle: Battle, unit: Unit, needed: int, rule: str, dice: DiceSource, why: str
) -> tuple[bool, int, Step]:
    roll = dice.roll_one("discipline check")
    passed = roll >= needed
    step = Step(
        f"{unit.name} takes a Discipline Check ({why}), needing {needed}+: rolls {roll}, "
        + ("passed" if passed else "failed"),
        rule=rule,
        dice=(roll,),
        units=(unit.id,),
    )
    return passed, roll, step


def _spend_reserved(battle: Battle, unit: Unit, pips: int, rule: str, what: str) -> tuple[Battle, Step]:
    brigade = battle.brigade_of(unit)
    for _ in range(pips):
        brigade = brigade.spend_reserved_pip()
    step = Step(
        f"{brigade.brigadier.name or brigade.name} spends {pips} reserved Staff Pip"
        f"{'s' if pips != 1 else ''} for {unit.name}'s {what}",
        rule=rule,
        units=(unit.id,),
    )
    return battle.with_brigade(brigade), step


def charge_discipline_check(
    battle: Battle, charger_id: str, dice: DiceSource, tables: RuleTables
) -> tuple[bool, int, Step]:
    """The pre-contact Discipline Check of a charger hit by a closing volley (RULE-04-2.4, RULE-06-2.4).

    Veteran / Elite pass on 3+, Regular on 4+, Green / Conscript on 5+. Returns (passed, roll, step).
    """
    charger = battle.unit(charger_id)
    e = tables.discipline(charger.quality.value)
    return _discipline_check(
        battle,
        charger,
        e.value,
        "RULE-06-2.4",
        dice,
        f"{charger.quality.label} charger after the closing volley",
    )


# -- outcomes ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReactionOutcome:
    """A resolved reaction: the battle after it and the steps of the log."""

    reaction: Reaction
    defender: str
    attacker: str
    battle: Battle
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class ClosingVolleyOutcome(ReactionOutcome):
    volley: VolleyOutcome | None = None
    check_taken: bool = False
    check_roll: int | None = None
    check_needed: int | None = None
    contact: bool = False  # the charger closes into contact (Phase 4 melee follows)
    stalled: bool = False  # the charger halted 2.0" away, Disordered, no further move this turn


@dataclass(frozen=True)
class OpportunityFireOutcome(ReactionOutcome):
    volley: VolleyOutcome | None = None
    remaining_move_factor: float = 1.0  # what the mover's remaining movement is multiplied by

    def remaining_move_in(self, remaining_in: float) -> float:
        return remaining_in * self.remaining_move_factor


@dataclass(frozen=True)
class EvadeOutcome(ReactionOutcome):
    withdrawn_in: float = 0.0
    behind_parent: bool = False


@dataclass(frozen=True)
class OverrunOutcome(ReactionOutcome):
    charger_slowed: bool = False  # an overrun never slows the charger (RULE-04-4.4)


@dataclass(frozen=True)
class RefuseFlankOutcome(ReactionOutcome):
    success: bool = False
    pip_spent: bool = False
    check_roll: int | None = None
    frozen: bool = False  # failed the emergency check: frozen in place, Disordered
    flank: str | None = None


@dataclass(frozen=True)
class CounterChargeOutcome(ReactionOutcome):
    surged_in: float = 0.0
    attacker_loses_momentum: bool = True  # RULE-04-5.5 (Counter-Charge, 6.0)
    attacker_loses_downhill: bool = True
    bonuses: tuple[Modifier, ...] = ()  # the counter-charger's +1 Rebel Yell or +1 Cavalry Shock
    success: bool = True
    check_roll: int | None = None


# -- geometry of the moves -----------------------------------------------------------------------


def _ahead(u: Unit, inches: float) -> tuple[float, float]:
    """The point ``inches`` straight ahead of the unit (negative: to the rear)."""
    return point_along((u.x, u.y), u.facing_deg, inches)


def _check_inches(value: float, lo_key: str, hi_key: str, tables: RuleTables, what: str) -> float:
    lo, hi = tables.entry(lo_key), tables.entry(hi_key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvariantError(f"the {what} must be a distance in inches, not {value!r}")
    if not lo.value <= value <= hi.value:
        raise IllegalAction(f'the {what} is {lo.value:g}" to {hi.value:g}", not {value:g}"', hi.citation)
    return float(value)


# -- 1 Closing Defensive Volley ------------------------------------------------------------------


def _reaction_volley(
    battle: Battle,
    threat: Threat,
    kind: FireKind,
    dice: DiceSource,
    tables: RuleTables,
    cover: Cover,
    fence_cover: bool,
    clear_stands: int | None,
) -> VolleyOutcome:
    """The defender's volley at the threatening unit, as a reaction of the given kind."""
    volley = Volley(
        threat.defender,
        threat.attacker,
        threat.distance_in,
        kind=kind,
        clear_stands=clear_stands,
        enfilade=threat.enfilade,
        cover=cover,
        fence_cover=fence_cover,
    )
    return resolve_volley(battle, volley, dice, tables)


@_records
def closing_volley(
    battle: Battle,
    threat: Threat,
    dice: DiceSource,
    tables: RuleTables,
    *,
    cover: Cover = Cover.NONE,
    fence_cover: bool = False,
    clear_stands: int | None = None,
) -> ClosingVolleyOutcome:
    """Reaction 1 (RULE-04-2.x, RULE-06-2.3 to 2.5).

    The defender fires its short-range volley at the charger halted at the 4.0" line. If the volley
    removes a stand or disorders the charger, the charger takes its Discipline Check: a pass closes
    into contact, a failure stalls it 2.0" from the defender, Disordered, unable to move or attack
    further this turn. The charger stalls straight ahead along its charge line (RULE-06-1.4).
    """
    require(battle, Reaction.CLOSING_VOLLEY, threat, tables)
    d, a = battle.unit(threat.defender), battle.unit(threat.attacker)
    steps = [
        Step(
            f'{a.name} halts at the {tables.value("melee.charge.window_b_in"):g}" line: '
            f"{d.name} declares a Closing Defensive Volley (free)",
            rule="RULE-04-2.3",
            units=(d.id, a.id),
        )
    ]
    vol = _reaction_volley(
        battle, threat, FireKind.CLOSING_VOLLEY, dice, tables, cover, fence_cover, clear_stands
    )
    steps += vol.steps
    after = vol.battle
    charger = after.unit(a.id)
    common = dict(reaction=Reaction.CLOSING_VOLLEY, defender=d.id, attacker=a.id, volley=vol)
    if vol.target_destroyed:
        steps.append(Step(f"{a.name} is destroyed; the charge is over", units=(a.id,)))
        return ClosingVolleyOutcome(battle=after, steps=tuple(steps), **common)
    if not (vol.stands_lost or vol.disorder_inflicted):
        steps.append(
            Step(
                f"No stand lost and no Disorder: {a.name} closes into contact without a check",
                rule="RULE-06-2.4",
                units=(a.id,),
            )
        )
        return ClosingVolleyOutcome(battle=after, steps=tuple(steps), contact=True, **common)
    needed = tables.discipline(charger.quality.value).value
    passed, roll, step = charge_discipline_check(after, a.id, dice, tables)
    steps.append(step)
    if passed:
        steps.append(
            Step(
                f"{a.name} steadies and closes the remaining distance into contact; melee in Phase 4",
                rule="RULE-06-2.5",
                units=(a.id, d.id),
            )
        )
        return ClosingVolleyOutcome(
            battle=after,
            steps=tuple(steps),
            check_taken=True,
            check_roll=roll,
            check_needed=needed,
            contact=True,
            **common,
        )
    stall = tables.entry("melee.charge.stall_in")
    advance = max(threat.distance_in - stall.value, 0.0)
    x, y = _ahead(charger, advance)
    stalled = charger.moved_to(x, y).with_markers(add=[Marker.DISORDER])
    after = mark_stalled(after.with_unit(stalled), a.id)
    steps.append(
        Step(
            f'The charge stalls: {a.name} halts {stall.value:g}" from {d.name}, Disordered, '
            f"and cannot move or attack further this turn ({stalled.stands} stands)",
            rule=stall.citation,
            units=(a.id,),
        )
    )
    return ClosingVolleyOutcome(
        battle=after,
        steps=tuple(steps),
        check_taken=True,
        check_roll=roll,
        check_needed=needed,
        stalled=True,
        **common,
    )


# -- 2 Opportunity Fire --------------------------------------------------------------------------


@_records
def opportunity_fire(
    battle: Battle,
    threat: Threat,
    dice: DiceSource,
    tables: RuleTables,
    *,
    cover: Cover = Cover.NONE,
    fence_cover: bool = False,
    clear_stands: int | None = None,
) -> OpportunityFireOutcome:
    """Reaction 2 (RULE-04-3.x): the mover is paused, fired on at short or medium range (a road
    column saves at -2), and the firer is marked with Smoke and Fired. A mover disordered by a
    natural 6 has its remaining movement halved (``remaining_move_factor``)."""
    require(battle, Reaction.OPPORTUNITY_FIRE, threat, tables)
    d, a = battle.unit(threat.defender), battle.unit(threat.attacker)
    steps = [
        Step(
            f'"Opportunity Fire!" {a.name}\'s move is paused {_inches(threat.distance_in)}" from {d.name} (free)',
            rule="RULE-04-3.3",
            units=(d.id, a.id),
        )
    ]
    vol = _reaction_volley(
        battle, threat, FireKind.OPPORTUNITY_FIRE, dice, tables, cover, fence_cover, clear_stands
    )
    steps += vol.steps
    factor = 1.0
    if vol.natural_sixes and not vol.target_destroyed:
        e = tables.entry("movement.trigger.remaining_move_after_disorder")
        factor = float(e.value)
        steps.append(
            Step(
                f"{a.name} was disordered by a natural 6: its remaining movement is multiplied by {factor:g}",
                rule=e.citation,
                units=(a.id,),
            )
        )
    elif not vol.target_destroyed:
        steps.append(
            Step(
                f"{a.name} resumes its move from the point of interruption", rule="RULE-04-3.5", units=(a.id,)
            )
        )
    return OpportunityFireOutcome(
        reaction=Reaction.OPPORTUNITY_FIRE,
        defender=d.id,
        attacker=a.id,
        battle=scale_remaining_move(vol.battle, a.id, factor, tables),
        steps=tuple(steps),
        volley=vol,
        remaining_move_factor=factor,
    )


# -- 3 Skirmish / Screen Evade and the Overrun ---------------------------------------------------


@_records
def evade(
    battle: Battle,
    threat: Threat,
    dice: DiceSource,
    tables: RuleTables,
    *,
    withdraw_in: float | None = None,
) -> EvadeOutcome:
    """Reaction 3 (RULE-04-4.3): the screen withdraws 4.0"-6.0" straight to the rear, through
    friendly formed lines without a Passage of Lines test, and is placed directly behind its
    parent regiment's colour stand. Without a parent on the table it withdraws ``withdraw_in``
    (the full 6.0" if not given) straight back."""
    require(battle, Reaction.EVADE, threat, tables)
    d, a = battle.unit(threat.defender), battle.unit(threat.attacker)
    dist = (
        float(tables.value("movement.trigger.evade_max_in"))
        if withdraw_in is None
        else _check_inches(
            withdraw_in,
            "movement.trigger.evade_min_in",
            "movement.trigger.evade_max_in",
            tables,
            "evade withdrawal",
        )
    )
    parent = battle.units.get(d.parent) if d.parent else None
    if parent is not None and parent.in_play:
        depth = _depth(parent, tables)
        x, y = _ahead(parent, -depth)
        moved = d.moved_to(x, y, parent.facing_deg)
        text = (
            f'{d.name} evades {dist:g}" to the rear through {parent.name} without a Passage of Lines '
            f"test and is placed behind its colour stand"
        )
        behind = True
    else:
        x, y = _ahead(d, -dist)
        moved = d.moved_to(x, y)
        text = f'{d.name} evades {dist:g}" straight to the rear'
        behind = False
    steps = (
        Step(
            f"{d.name} declares Skirmish / Screen Evade against {a.name} (free)",
            rule="RULE-04-4.2",
            units=(d.id, a.id),
        ),
        Step(text, rule="RULE-04-4.3", units=(d.id,)),
        Step(f"{a.name} does not stop: it continues its move or charge", rule="RULE-04-4.4", units=(a.id,)),
    )
    return EvadeOutcome(
        reaction=Reaction.EVADE,
        defender=d.id,
        attacker=a.id,
        battle=battle.with_unit(moved),
        steps=steps,
        withdrawn_in=dist,
        behind_parent=behind,
    )


def _depth(unit: Unit, tables: RuleTables) -> float:
    """How deep the unit's formation is, front edge to rear (from :mod:`rules.geometry`)."""
    from rules.geometry import footprint

    return footprint(unit, tables).depth


def overrun(battle: Battle, screen_id: str, charger_id: str, tables: RuleTables) -> OverrunOutcome:
    """The Overrun (RULE-04-4.4): a screen that did not evade and is contacted by a charging formed
    unit (infantry line or column, or cavalry) is destroyed without a melee roll; the charger is not
    slowed and continues into the target behind."""
    s, c = battle.unit(screen_id), battle.unit(charger_id)
    if not s.is_screen:
        raise IllegalAction(f"{s.name} is not a skirmish stand or cavalry screen", "RULE-04-4.4")
    if not s.in_play:
        raise IllegalAction(f"{s.name} has already been removed")
    formed = c.kind in (UnitKind.INFANTRY, UnitKind.CAVALRY) and c.formation in (
        Formation.LINE,
        Formation.ASSAULT_COLUMN,
        Formation.ROAD_COLUMN,
        Formation.MOUNTED,
    )
    if not formed:
        raise IllegalAction(
            f"{c.name} is not a formed infantry line or column or cavalry and cannot overrun {s.name}",
            "RULE-04-4.4",
        )
    if c.side == s.side:
        raise IllegalAction(f"{c.name} and {s.name} are on the same side")
    gone, _ = s.lose_stands(s.stands)
    steps = (
        Step(
            f"{s.name} did not evade and is overrun by {c.name}: destroyed without a melee roll",
            rule="RULE-04-4.4",
            units=(s.id, c.id),
        ),
        Step(
            f"{c.name}'s momentum is not slowed: it continues its charge", rule="RULE-04-4.4", units=(c.id,)
        ),
    )
    return OverrunOutcome(
        reaction=Reaction.EVADE,
        defender=s.id,
        attacker=c.id,
        battle=battle.with_unit(gone),
        steps=steps,
    )


# -- 4 Refuse the Flank --------------------------------------------------------------------------


@_records
def refuse_the_flank(
    battle: Battle,
    threat: Threat,
    dice: DiceSource,
    tables: RuleTables,
    *,
    use_reserved_pip: bool = True,
) -> RefuseFlankOutcome:
    """Reaction 4 (RULE-04-5.x (Refuse the Flank, 5.0)).

    With a reserved pip (spent) it succeeds automatically; without one (or if the umpire keeps the
    pip, ``use_reserved_pip=False``) the regiment takes a 4+ Discipline Check: a pass refuses the
    flank, a failure freezes it in place with a Disorder Marker. A refused flank is marked
    :attr:`Marker.REFUSED_FLANK`: fire against it gets no enfilade bonus and a charge against it
    gets no flank melee bonus (RULE-04-5.4, see :func:`enfilade_denied`, :func:`flank_bonus_denied`).
    """
    opt = require(battle, Reaction.REFUSE_FLANK, threat, tables)
    d, a = battle.unit(threat.defender), battle.unit(threat.attacker)
    steps: list[Step] = []
    after = battle
    pip_spent, roll, frozen = False, None, False
    if opt.cost is not None and opt.cost.kind == CostKind.RESERVED_PIP and use_reserved_pip:
        after, step = _spend_reserved(after, d, opt.cost.pips, "RULE-04-5.2" + RF, "Refuse the Flank")
        steps.append(step)
        pip_spent, success = True, True
    else:
        needed = tables.entry("discipline.check.commanded_reaction_without_pip")
        success, roll, step = _discipline_check(
            after, d, needed.value, "RULE-04-5.2", dice, "Refuse the Flank without a reserved pip"
        )
        steps.append(step)
    d = after.unit(d.id)
    flank = f"{threat.flank} " if threat.flank else ""
    if success:
        d = d.with_markers(add=[Marker.REFUSED_FLANK])
        steps.append(
            Step(
                f"{d.name} wheels its outer {flank}flank stands back up to "
                f"{tables.value('movement.trigger.refuse_flank_max_deg'):g} degrees to face {a.name}: "
                "fire on that flank is no longer enfilade and a charge on it meets the stands frontally",
                rule="RULE-04-5.3",
                units=(d.id,),
            )
        )
    else:
        frozen = True
        d = d.with_markers(add=[Marker.DISORDER])
        steps.append(
            Step(
                f"{d.name} freezes in place, unable to refuse its flank, and is Disordered",
                rule="RULE-04-5.2",
                units=(d.id,),
            )
        )
    return RefuseFlankOutcome(
        reaction=Reaction.REFUSE_FLANK,
        defender=d.id,
        attacker=a.id,
        battle=after.with_unit(d),
        steps=tuple(steps),
        success=success,
        pip_spent=pip_spent,
        check_roll=roll,
        frozen=frozen,
        flank=threat.flank,
    )


def flank_refused(unit: Unit) -> bool:
    """The unit has refused its flank (RULE-04-5.3)."""
    return unit.has(Marker.REFUSED_FLANK)


def enfilade_denied(battle: Battle, target_id: str) -> bool:
    """Fire against this unit's flank gets no +1 enfilade bonus: it has refused it (RULE-04-5.4)."""
    return flank_refused(battle.unit(target_id))


def flank_bonus_denied(battle: Battle, defender_id: str) -> bool:
    """A charge against this unit's flank meets the angled stands frontally: the attacker gets no
    +2 flank melee modifier (RULE-04-5.4)."""
    return flank_refused(battle.unit(defender_id))


# -- 5 Counter-Charge ----------------------------------------------------------------------------


@_records
def counter_charge(
    battle: Battle,
    threat: Threat,
    dice: DiceSource,
    tables: RuleTables,
    *,
    surge_in: float | None = None,
) -> CounterChargeOutcome:
    """Reaction 5 (RULE-04-5.x (Counter-Charge, 6.0)).

    The reserved pip is spent and the defender surges 2.0"-3.0" straight ahead (the full 3.0" if
    not given). The attacker loses its charging momentum and any downhill bonus; the
    counter-charger gets its +1 Rebel Yell or +1 Cavalry Shock in the melee (``bonuses``).
    """
    opt = require(battle, Reaction.COUNTER_CHARGE, threat, tables)
    d, a = battle.unit(threat.defender), battle.unit(threat.attacker)
    dist = (
        float(tables.value("melee.charge.counter_charge_max_in"))
        if surge_in is None
        else _check_inches(
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
        after, step = _spend_reserved(after, d, cost.pips, "RULE-04-5.3" + CC, "Counter-Charge")
        steps.append(step)
    else:
        passed, roll, step = _discipline_check(
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
    x, y = _ahead(d, dist)
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
    from rules.melee import counter_charge_bonuses  # the melee owns the bonus it scores

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


# -- one entry point -----------------------------------------------------------------------------


def resolve_reaction(
    battle: Battle, reaction: Reaction | str, threat: Threat, dice: DiceSource, tables: RuleTables, **inputs
) -> ReactionOutcome:
    """Resolve any of the five reactions; ``inputs`` are the keyword inputs of its function."""
    fn = {
        Reaction.CLOSING_VOLLEY: closing_volley,
        Reaction.OPPORTUNITY_FIRE: opportunity_fire,
        Reaction.EVADE: evade,
        Reaction.REFUSE_FLANK: refuse_the_flank,
        Reaction.COUNTER_CHARGE: counter_charge,
    }[Reaction.parse(reaction)]
    return fn(battle, threat, dice, tables, **inputs)


# -- the action ----------------------------------------------------------------------------------


@action_type("declare_reaction")
@dataclass(frozen=True)
class DeclareReaction(Action):
    """A defender's reaction at a Trigger Window, with the threat it answers and the umpire's inputs.

    ``withdraw_in`` (Evade), ``surge_in`` (Counter-Charge), ``use_reserved_pip`` (Refuse the
    Flank) and ``cover`` / ``fence_cover`` / ``clear_stands`` (the volleys) are used by the
    reactions they belong to and ignored by the others.
    """

    reaction: str
    window: str
    attacker_id: str
    defender_id: str
    distance_in: float
    in_forward_arc: bool = True
    charge: bool = False
    flank: str | None = None
    open_ground: bool = True
    enfilade: bool = False
    cover: str = "none"
    fence_cover: bool = False
    clear_stands: int | None = None
    withdraw_in: float | None = None
    surge_in: float | None = None
    use_reserved_pip: bool = True

    @classmethod
    def of(cls, reaction: Reaction | str, threat: Threat, **inputs) -> DeclareReaction:
        """The action declaring ``reaction`` against a threat found by :mod:`rules.triggers`."""
        return cls(
            reaction=Reaction.parse(reaction).value,
            window=threat.window.value,
            attacker_id=threat.attacker,
            defender_id=threat.defender,
            distance_in=threat.distance_in,
            in_forward_arc=threat.in_forward_arc,
            charge=threat.charge,
            flank=threat.flank,
            open_ground=threat.open_ground,
            enfilade=threat.enfilade,
            **inputs,
        )

    @property
    def threat(self) -> Threat:
        return Threat(
            Window.parse(self.window),
            self.attacker_id,
            self.defender_id,
            self.distance_in,
            in_forward_arc=bool(self.in_forward_arc),
            charge=bool(self.charge),
            flank=self.flank,
            open_ground=bool(self.open_ground),
            enfilade=bool(self.enfilade),
        )

    def inputs(self) -> dict:
        r = Reaction.parse(self.reaction)
        if r in (Reaction.CLOSING_VOLLEY, Reaction.OPPORTUNITY_FIRE):
            return {
                "cover": Cover.parse(self.cover),
                "fence_cover": bool(self.fence_cover),
                "clear_stands": self.clear_stands,
            }
        if r == Reaction.EVADE:
            return {"withdraw_in": self.withdraw_in}
        if r == Reaction.REFUSE_FLANK:
            return {"use_reserved_pip": bool(self.use_reserved_pip)}
        return {"surge_in": self.surge_in}


@resolver(DeclareReaction)
def _resolve_declare_reaction(
    battle: Battle, a: DeclareReaction, dice: DiceSource, tables: RuleTables
) -> Resolved:
    r = Reaction.parse(a.reaction)
    if battle.phase != Phase.MANEUVER:
        raise IllegalAction(f"reactions are declared only in {Phase.MANEUVER.title}", "RULE-04-1.2")
    attacker = battle.unit(a.attacker_id)
    if attacker.side != battle.active_side:
        raise IllegalAction(f"{attacker.name} is not a unit of the side whose turn it is", "RULE-04-1.2")
    out = resolve_reaction(battle, r, a.threat, dice, tables, **a.inputs())
    d = battle.unit(a.defender_id)
    return Resolved(
        out.battle, list(out.steps), f"{d.name}: {r.title} against {battle.unit(a.attacker_id).name}"
    )


# -- declining: "No reaction" -----------------------------------------------------------------------


@action_type("decline_reaction")
@dataclass(frozen=True)
class DeclineReaction(Action):
    """A defender offered a Trigger Window that takes no reaction ("No reaction").

    Nothing changes on the table: the action is the record, in the log and the turn summary, that
    the window opened for the defender (RULE-04-1.2) and that it declined. ``open_to`` lists the
    reactions it could have taken there (as the window offered them), so the record says what was
    passed up. Declining is not declaring a reaction: it does not use up the defender's one
    reaction to the triggering action (RULE-04-1.4), so a later window of the same move may still
    be answered.
    """

    window: str
    attacker_id: str
    defender_id: str
    distance_in: float
    open_to: tuple[str, ...] = ()

    @classmethod
    def of(cls, threat: Threat, open_to: tuple[Reaction | str, ...] = ()) -> DeclineReaction:
        """The action declining every reaction to a threat found by :mod:`rules.triggers`."""
        return cls(
            window=threat.window.value,
            attacker_id=threat.attacker,
            defender_id=threat.defender,
            distance_in=threat.distance_in,
            open_to=tuple(Reaction.parse(r).value for r in open_to),
        )

    @property
    def threat(self) -> Threat:
        return Threat(Window.parse(self.window), self.attacker_id, self.defender_id, self.distance_in)


@resolver(DeclineReaction)
def _resolve_decline_reaction(
    battle: Battle, a: DeclineReaction, dice: DiceSource, tables: RuleTables
) -> Resolved:
    threat = a.threat  # checks the window, the distance and that the two units differ
    if battle.phase != Phase.MANEUVER:
        raise IllegalAction(f"reactions are declared only in {Phase.MANEUVER.title}", "RULE-04-1.2")
    attacker, defender = battle.unit(a.attacker_id), battle.unit(a.defender_id)
    if attacker.side != battle.active_side:
        raise IllegalAction(f"{attacker.name} is not a unit of the side whose turn it is", "RULE-04-1.2")
    if defender.side == battle.active_side:
        raise IllegalAction(
            f"{defender.name} is of the side whose turn it is: it does not react", "RULE-04-1.2"
        )
    if not isinstance(a.open_to, tuple):
        raise InvariantError(f"the reactions open to {defender.name} are a list, not {a.open_to!r}")
    passed = [Reaction.parse(r) for r in a.open_to]
    wrong = [r for r in passed if threat.window not in r.windows]
    if wrong:
        raise InvariantError(f"{wrong[0].title} is not a reaction of {threat.window.label}")
    what = "charge" if threat.window == Window.B else "move"
    goes_on = "the charge goes on" if threat.window == Window.B else "the move goes on"
    passed_up = (
        "it passes up " + ", ".join(r.title for r in passed)
        if passed
        else "none of the window's reactions was open to it"
    )
    step = Step(
        f"{threat.window.label} opened for {defender.name} against {attacker.name}'s {what} "
        f'({_inches(threat.distance_in)}" away): no reaction, {passed_up}; {goes_on}',
        rule="RULE-04-1.2",
        units=(defender.id, attacker.id),
    )
    summary = f"{defender.name}: no reaction at {threat.window.label} against {attacker.name}"
    return Resolved(battle, [step], summary)
