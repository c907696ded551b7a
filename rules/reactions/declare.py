"""The five Tactical Reactions of chapter 04: who may take each, what it costs, and what it does.

A reaction answers a :class:`Threat`: an active enemy unit that moves across a defender's front or
flank (Trigger Window A) or declares a charge and closes to 4.0" (Trigger Window B, RULE-04-1.2).
The threat carries the facts of the position (range, arc, flank zone, open ground) that
:mod:`rules.reactions.triggers` measures on the table; this module checks the rules' conditions.

===========================  ======  =====================================  ==========================
Reaction                      Window  Who may take it                         Cost (RULE-04-1.3)
===========================  ======  =====================================  ==========================
1 Closing Defensive Volley    B       formed regiment or battery; charger in  free
                                      its forward arc; not Disordered; no
                                      Smoke (RULE-04-2.1, RULE-04-2.2)
2 Opportunity Fire            A       formed regiment or battery; mover in    free
                                      its forward arc within 8"; unengaged;
                                      not Disordered; no Smoke
                                      (RULE-04-3.1, RULE-04-3.2)
3 Skirmish / Screen Evade     A, B    skirmish stand or mounted cavalry       free
                                      screen; formed enemy within 6" or
                                      charging it; not pinned or Disordered
                                      (RULE-04-4.1, RULE-04-4.2); the room
                                      for 4.0" to its rear (RULE-04-4.3)
4 Refuse the Flank            A, B    regiment in Line of Battle; enemy in    1 reserved pip, or a 4+
                                      one of its 45-90 degree flank zones,    Discipline Check
                                      not refused already (RULE-04-5.1,       (RULE-04-5.2)
                                      RULE-04-5.3)
5 Counter-Charge              B       Rebel Yell infantry, Veteran and Fresh  1 reserved pip, no check
                                      infantry, or formed mounted cavalry in  (RULE-04-5.3
                                      good order; infantry or cavalry         (Counter-Charge, 6.0))
                                      charging it within 9" across open
                                      ground (RULE-04-5.1, RULE-04-5.2
                                      (Counter-Charge, 6.0))
===========================  ======  =====================================  ==========================

Counter-Charge needs a reserved pip although RULE-04-1.3 lets commanded reactions use a 4+ check
instead: the specific rule of chapter 04, 6.0 is followed, as the table entry
``command.staff_pips.counter_charge_needs_reserved_pip`` records. A defender takes one reaction
per triggering action (RULE-04-1.4): every reaction resolved here is recorded in the battle state
(``Battle.extra.reactions``, :func:`reacted_to`), and :func:`option` refuses a second one by the
same defender to the same triggering action. The triggering action is an active unit's move
(Window A) or its charge (Window B) in the current side's turn; the record of an earlier turn
counts for nothing.

The reactions are kept in modules of their own, and every name of them is given here too:
:mod:`rules.reactions.options` (the threat, who may take each reaction and what it costs, and the
record of who has reacted to what), :mod:`rules.reactions.outcomes` (paying for a reaction, the
charger's Discipline Check), what each reaction does (:mod:`rules.reactions.fire_reactions`: the
Closing Defensive Volley and Opportunity Fire; :mod:`rules.reactions.screen_evade`: the Evade and
the Overrun; :mod:`rules.reactions.refuse_the_flank`; :mod:`rules.reactions.counter_charge`), the
umpire's inputs to them (:mod:`rules.reactions.inputs`), and this module (the one entry point and
the actions).

Every resolution is a pure function of (battle, threat, dice, tables) and returns an outcome with
the new ``battle`` and the ``steps`` of the log.

A defender that answers a window with "No reaction" is recorded too: :class:`DeclineReaction` is
an action of its own, saved, undone and shown like every other, that changes nothing on the table
and does not count as the defender's one reaction (RULE-04-1.4).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.action_base import Action, Resolved, action_type, added_field, resolver
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.turn_records import REACTED
from rules.battle.words import Phase
from rules.dice import DiceSource
from rules.errors import IllegalAction, InvariantError
from rules.reactions.counter_charge import CounterChargeOutcome, counter_charge
from rules.reactions.fire_reactions import (
    ClosingVolleyOutcome,
    OpportunityFireOutcome,
    closing_volley,
    opportunity_fire,
)
from rules.reactions.options import (
    CC,
    REACTIONS_OF_WINDOW,
    RF,
    Cost,
    CostKind,
    Option,
    Reaction,
    Reason,
    Threat,
    Window,
    _inches,
    commanded_cost,
    counter_charge_traits,
    option,
    options,
    reacted_to,
    record_reaction,
    require,
    trigger_of,
)
from rules.reactions.outcomes import ReactionOutcome, charge_discipline_check
from rules.reactions.refuse_the_flank import (
    RefuseFlankOutcome,
    enfilade_denied,
    flank_bonus_denied,
    flank_refused,
    refuse_the_flank,
)
from rules.reactions.screen_evade import (
    EvadeOutcome,
    EvadeRoom,
    OverrunOutcome,
    evade,
    evade_refusal,
    evade_room,
    overrun,
)
from rules.shooting.volleys import CoverClass
from rules.tables import RuleTables

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
    # fields added since saves first held this action (see rules.action_base.added_field):
    # which side of the attacker the defender's fire would rake (None: not recorded)
    enfilade_side: str | None = None
    # Refuse the Flank wheels the one flank the threat comes in on (RULE-04-5.3); the refusals of
    # saves made before refused both flanks, and read so
    sided_flanks: bool = added_field(True, saved_before=False)
    # an Evade withdraws the distance chosen along its retreat path (RULE-04-4.3); the evades of
    # saves made before were placed behind the parent's colour stand, and read so
    evade_path: bool = added_field(True, saved_before=False)
    # the defending side's answer, sent from a player's device at the table and taken by the umpire
    from_table: bool = added_field(False, saved_before=False)

    @classmethod
    def of(cls, reaction: Reaction | str, threat: Threat, **inputs) -> DeclareReaction:
        """The action declaring ``reaction`` against a threat found by :mod:`rules.reactions.triggers`."""
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
            enfilade_side=threat.enfilade_side,
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
            enfilade_side=self.enfilade_side,
        )

    def inputs(self) -> dict:
        r = Reaction.parse(self.reaction)
        if r in (Reaction.CLOSING_VOLLEY, Reaction.OPPORTUNITY_FIRE):
            return {
                "cover": CoverClass.parse(self.cover),
                "fence_cover": bool(self.fence_cover),
                "clear_stands": self.clear_stands,
            }
        if r == Reaction.EVADE:
            return {"withdraw_in": self.withdraw_in, "along_path": bool(self.evade_path)}
        if r == Reaction.REFUSE_FLANK:
            return {"use_reserved_pip": bool(self.use_reserved_pip), "one_flank": bool(self.sided_flanks)}
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
    steps = list(out.steps)
    if a.from_table:
        steps.insert(0, table_answer_step(battle, d))
    return Resolved(out.battle, steps, f"{d.name}: {r.title} against {battle.unit(a.attacker_id).name}")


def table_answer_step(battle: Battle, defender) -> Step:
    """The log's line for an answer the defending side sent from the table (a player's device)."""
    side = battle.oob.side_name(defender.side)
    return Step(f"The {side} side's answer for {defender.name}, sent from the table", units=(defender.id,))


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
    # the defending side's answer, sent from a player's device at the table and taken by the umpire
    from_table: bool = added_field(False, saved_before=False)

    @classmethod
    def of(
        cls, threat: Threat, open_to: tuple[Reaction | str, ...] = (), from_table: bool = False
    ) -> DeclineReaction:
        """The action declining every reaction to a threat found by :mod:`rules.reactions.triggers`."""
        return cls(
            window=threat.window.value,
            attacker_id=threat.attacker,
            defender_id=threat.defender,
            distance_in=threat.distance_in,
            open_to=tuple(Reaction.parse(r).value for r in open_to),
            from_table=from_table,
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
    steps = [table_answer_step(battle, defender), step] if a.from_table else [step]
    return Resolved(battle, steps, summary)


__all__ = [
    "CC",
    "ClosingVolleyOutcome",
    "Cost",
    "CostKind",
    "CounterChargeOutcome",
    "DeclareReaction",
    "DeclineReaction",
    "EvadeOutcome",
    "EvadeRoom",
    "OpportunityFireOutcome",
    "Option",
    "OverrunOutcome",
    "REACTED",
    "REACTIONS_OF_WINDOW",
    "RF",
    "Reaction",
    "ReactionOutcome",
    "Reason",
    "RefuseFlankOutcome",
    "Threat",
    "Window",
    "charge_discipline_check",
    "closing_volley",
    "commanded_cost",
    "counter_charge",
    "counter_charge_traits",
    "enfilade_denied",
    "evade",
    "evade_refusal",
    "evade_room",
    "flank_bonus_denied",
    "flank_refused",
    "opportunity_fire",
    "option",
    "options",
    "overrun",
    "reacted_to",
    "record_reaction",
    "refuse_the_flank",
    "require",
    "resolve_reaction",
    "trigger_of",
]
