"""The turn sequence: game turns, each side's turn within them, and the phases of a side's turn.

How Brigadier orders a game turn
--------------------------------

The chapters speak of "the following Union turn" and of a unit's "own upcoming Phase 3", so the
sides take their turns one after the other. Each **game turn** is:

1. the first side's turn (``Battle.first_side``), then
2. the second side's turn,

and each side's turn goes through the phases of :class:`~rules.battle.words.Phase`:

* **Phase 1: Command.** On entering it, every brigade of the active side receives its Staff Pip
  allowance (``command.staff_pips.per_brigade_per_turn``; the pool is *set* to the allowance,
  unspent pips of the last turn do not carry over). Every brigade receives it, whatever has
  happened to its Brigadier: the Leader Loss table is in a chapter that is not here, so the
  umpire sets a leaderless brigade's pips with an Override. Pips are spent, and reserved for the
  reactions of the coming enemy turn (RULE-04-1.3).
* **Phase 2: Active Maneuver & Assault.** Moves and charge declarations; the defender's Trigger
  Windows A and B (RULE-04-1.2).
* **Phase 3: Ranged Combat.**
* **Phase 4: Assault & Melee Resolution** (RULE-06-1.1). The charges of Phase 2 that made
  contact left their melees pending (``Battle.extra.pending_melees``, see :mod:`rules.melee.melee`);
  entering Phase 4 logs them, and the phase cannot be left while one due in this game turn is
  unresolved, unless the umpire puts it off by a ruling. A melee locked by a tie waits for the next
  game turn's Phase 4 (RULE-06-4.2).
* **End of the side's turn.** What expires is cleared, as the club table ``command.end_of_turn``
  says:

  - ``clear_fired`` and ``clear_smoke``: the active side's Fired and Smoke markers are removed.
    A defender marked Fired by Opportunity Fire in the enemy's Phase 2 "cannot fire again during
    its own upcoming Phase 3" (RULE-04-3.4): the marker therefore lasts through its own
    turn and is removed at the end of it.
  - ``clear_climbing``: the active side's Climbing markers are removed; a unit climbing out of a
    sunken road "cannot fire muskets during the turn it climbs out" (RULE-03-2.5), its own turn.
  - the movement record of the turn (``Battle.extra.movement``: the allowance each unit has used,
    see :class:`rules.actions.MoveUnit`) and the chargers that stalled (``Battle.extra.stalled``,
    RULE-06-2.5: "cannot move or attack further this turn") are cleared: the next turn starts with
    a full allowance. The turn sequence reads and clears these records through
    :class:`rules.battle.turn_records.TurnRecords` alone, not through the modules that make them.
  - a refused flank lapses if the club's ``movement.refused_flank.lasts`` is ``turn``: the other
    side's refusals, made against this turn's moves and charges (:mod:`rules.reactions.refused_flank`).
  - ``clear_reserved_pips``: the *other* side's reserved pips lapse. They were reserved in that
    side's Phase 1 for reactions during this turn (RULE-04-1.3) and are of no further use.

Leaving the end of the second side's turn starts the next game turn with the first side.

>>> from rules.tables import load_tables
>>> [p.value for p in PHASES]
['command', 'maneuver', 'ranged', 'melee', 'end']
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.action_base import Action, Resolved, action_type, resolver
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.words import Marker, Phase
from rules.dice import DiceSource
from rules.errors import IllegalAction
from rules.reactions.refused_flank import refusals_lapse
from rules.tables import RuleTables

PHASES: tuple[Phase, ...] = (Phase.COMMAND, Phase.MANEUVER, Phase.RANGED, Phase.MELEE, Phase.END)

_CLEARED_MARKERS = (
    ("command.end_of_turn.clear_fired", Marker.FIRED),
    ("command.end_of_turn.clear_smoke", Marker.SMOKE),
    ("command.end_of_turn.clear_climbing", Marker.CLIMBING),
)


def first_side(battle: Battle) -> str:
    """The side that takes the first turn of each game turn."""
    return battle.first_side or battle.oob.sides[0].id


def second_side(battle: Battle) -> str:
    return battle.oob.enemy_of(first_side(battle))


def phase_title(battle: Battle) -> str:
    """ "Turn 3, Confederate: Phase 2: Active Maneuver & Assault"."""
    return f"Turn {battle.turn}, {battle.oob.side(battle.active_side).name}: {battle.phase.title}"


def _cite(entry_citation: str | None) -> str:
    return f" ({entry_citation})" if entry_citation else ""


def start_command_phase(battle: Battle, tables: RuleTables) -> tuple[Battle, list[Step]]:
    """Give each brigade of the active side its Staff Pip allowance for this turn."""
    e = tables.entry("command.staff_pips.per_brigade_per_turn")
    allowance = int(e.value)
    steps: list[Step] = []
    oob = battle.oob
    for b in oob.brigades_of(battle.active_side):
        new = replace(b, staff_pips=allowance)
        oob = oob.with_brigade(new)
        steps.append(
            Step(
                f"{b.brigadier.name or b.name} ({b.name}) has {allowance} Staff Pips this turn"
                + (" (club default)" if e.club_default else ""),
                rule=e.rule,
            )
        )
    return replace(battle, oob=oob), steps


def end_of_side_turn(battle: Battle, tables: RuleTables) -> tuple[Battle, list[Step]]:
    """Clear what expires at the end of the active side's turn (club table command.end_of_turn)."""
    steps: list[Step] = []
    units = []
    for key, marker in _CLEARED_MARKERS:
        e = tables.entry(key)
        if not e.value:
            continue
        for u in battle.oob.in_play(battle.active_side):
            if marker in u.markers:
                units.append((u.id, marker))
                steps.append(
                    Step(
                        f"{u.name}: {marker.label} marker removed at the end of its turn"
                        + (" (club default)" if e.club_default else ""),
                        rule=e.rule,
                        units=(u.id,),
                    )
                )
    oob = battle.oob
    for uid, marker in units:
        oob = oob.with_unit(oob.unit(uid).with_markers(remove=[marker]))
    battle, lapsed = refusals_lapse(replace(battle, oob=oob), battle.active_side, tables)
    steps += lapsed
    oob = battle.oob
    battle = _without_turn_movement(battle)
    e = tables.entry("command.end_of_turn.clear_reserved_pips")
    if e.value:
        for b in oob.brigades_of(oob.enemy_of(battle.active_side)):
            if b.staff_pips_reserved:
                steps.append(
                    Step(
                        f"{b.brigadier.name or b.name}'s {b.staff_pips_reserved} reserved Staff "
                        f"{'Pips lapse' if b.staff_pips_reserved != 1 else 'Pip lapses'} unused"
                        + (" (club default)" if e.club_default else ""),
                        rule=e.rule or "RULE-04-1.3",
                    )
                )
                oob = oob.with_brigade(replace(b, staff_pips_reserved=0))
    return replace(battle, oob=oob), steps


def _without_turn_movement(battle: Battle) -> Battle:
    """The battle without this turn's movement record and stalled chargers (see the module text)."""
    records = battle.extra.without_turn_movement()
    if records is battle.extra:
        return battle
    return replace(battle, extra=records)


def check_melees_resolved(battle: Battle) -> None:
    """Refuse to leave Phase 4 while a melee due in it is unresolved (RULE-06-1.1): each is fought
    (:class:`rules.melee.melee.ResolvePendingMelee`) or put off by the umpire's ruling
    (:class:`rules.melee.melee.MeleeRuling`). Melees locked by a tie wait for the next game turn."""
    due = battle.extra.due_melees(battle.turn)
    if due:
        names = "; ".join(m.describe(battle.units, battle.turn) for m in due)
        n = len(due)
        raise IllegalAction(
            f"{n} melee{'s are' if n != 1 else ' is'} still to be resolved in this Melee Phase: {names}. "
            "Resolve each one, or the umpire puts it off by a ruling",
            "RULE-06-1.1",
        )


def melees_pending_steps(battle: Battle) -> list[Step]:
    """The log line on entering Phase 4: how many melees wait, and which."""
    melees = battle.extra.pending_melees
    if not melees:
        return []
    n = len(melees)
    names = "; ".join(m.describe(battle.units, battle.turn) for m in melees)
    units = tuple(u for m in melees for u in (m.attacker, m.defender))
    return [Step(f"{n} melee{'s' if n != 1 else ''} pending: {names}", rule="RULE-06-1.1", units=units)]


def next_phase(battle: Battle, tables: RuleTables) -> tuple[Battle, list[Step]]:
    """The battle in the next phase of the turn sequence, and the log lines of what happened.

    From Phase 4 it goes to the end of the side's turn (clearing what expires), unless a melee due in
    this Phase 4 is unresolved (:func:`check_melees_resolved`); from there to the other side's Phase 1 (or, after the second side, to the next game turn's first side), giving
    the new active side its Staff Pips.
    """
    i = PHASES.index(battle.phase)
    if battle.phase == Phase.MELEE:
        check_melees_resolved(battle)
    if battle.phase != Phase.END:
        after = replace(battle, phase=PHASES[i + 1])
        steps = [Step(phase_title(after))]
        if after.phase == Phase.MELEE:
            steps += melees_pending_steps(after)
        if after.phase == Phase.END:
            after, more = end_of_side_turn(after, tables)
            steps += more
        return after, steps
    if battle.active_side == first_side(battle):
        after = replace(battle, phase=Phase.COMMAND, active_side=second_side(battle))
    else:
        after = replace(battle, phase=Phase.COMMAND, active_side=first_side(battle), turn=battle.turn + 1)
    steps = [Step(phase_title(after))]
    after, more = start_command_phase(after, tables)
    return after, steps + more


def end_side_turn(battle: Battle, tables: RuleTables) -> tuple[Battle, list[Step]]:
    """Go through the rest of the active side's turn to the other side's Phase 1."""
    side = battle.active_side
    steps: list[Step] = []
    after = battle
    while after.active_side == side:
        after, more = next_phase(after, tables)
        steps += more
    return after, steps


# -- the turn sequence as actions ---------------------------------------------------------------


@action_type("next_phase")
@dataclass(frozen=True)
class NextPhase(Action):
    """Go on to the next phase of the turn sequence (see :mod:`rules.turn.sequence`)."""


@resolver(NextPhase)
def _resolve_next_phase(battle: Battle, a: NextPhase, dice: DiceSource, tables: RuleTables) -> Resolved:
    after, steps = next_phase(battle, tables)
    # logged under the phase it ends: the summary (and the line that names the new phase) says it
    # is the step on to the next one
    summary = f"Next phase: {phase_title(after)}"
    steps = [replace(s, text=summary) if s.text == phase_title(after) else s for s in steps]
    return Resolved(after, steps, summary)


@action_type("end_turn")
@dataclass(frozen=True)
class EndTurn(Action):
    """End the active side's turn: go through its remaining phases to the other side's Phase 1."""


@resolver(EndTurn)
def _resolve_end_turn(battle: Battle, a: EndTurn, dice: DiceSource, tables: RuleTables) -> Resolved:
    who = battle.oob.side(battle.active_side).name
    after, steps = end_side_turn(battle, tables)
    return Resolved(after, steps, f"{who} ends its turn; {phase_title(after)}")
