"""The phase checklist: what is still open in the current phase, each item with its rule.

Over thirty turns an umpire forgets who has not yet moved or fired; the rules know. This module
asks the legality questions of :mod:`rules.legality` (who may still march, who may still fire and
at what, the melees pending in :mod:`rules.melee.melee`) and lists what is left of the phase:

* **Phase 1 (Command).** Brigades whose Brigadier has been lost: their Staff Pips are the umpire's
  to set (the Leader Loss table is chapter 07's, not here); units Disordered or Pinned, whose
  rallying is the umpire's ruling.
* **Phase 2 (Active Maneuver & Assault).** Each unit of the side to act that may still march
  (:func:`rules.legality.march_refusal`) and has not moved this turn; the enemy's reserved Staff Pips
  not spent, which serve only the reactions of this phase (RULE-04-1.3) and lapse at the end of the
  turn.
* **Phase 3 (Ranged Combat).** Each unit that may still fire (:func:`rules.legality.shoot_firers`)
  and has a legal target, with its best one (:func:`rules.legality.shoot_targets`; where it may
  choose, the target it would hurt most by the exact odds of :func:`rules.shooting.volley_odds.volley_odds`).
* **Phase 4 (Assault & Melee Resolution).** The melees due (:func:`rules.melee.melee.due_melees`), which
  block the end of the phase (RULE-06-1.1); the Leader Loss rolls owed after them (a stand lost in
  the approach with the Brigadier attached, chapter 06 Example 1); a Tactical Breakthrough whose
  Sweeping Advance (RULE-06-4.5) is still open.

Every Discipline Check of chapters 03, 04 and 06 (a column crossing a stone wall, RULE-03-2.2; the
pre-contact check, RULE-06-2.4; a commanded reaction without a reserved pip, RULE-04-1.3) is taken
by the procedure of play inside the step that calls for it, so none can be left owing at the end
of a phase: the checks the program leaves owing are the Leader Loss rolls of pending melees.

The query is pure: :func:`checklist` of a battle (and, for Phase 2, the battle as the phase began,
which tells a unit that charged, changed formation or was placed from one that did nothing), and
:func:`left_open` for what Next phase or End turn would leave undone, phase by phase through the
rest of the side's turn. :class:`LeftUndone` is the action that records the items the umpire chose
to leave, committed in the same step as the phase change.

>>> from rules.battle.battle import Battle
>>> from rules.battle.order_of_battle import Brigade, Brigadier, OrderOfBattle, Side
>>> from rules.battle.unit import Unit
>>> from rules.battle.words import Phase, UnitKind
>>> from rules.tables import load_tables
>>> def regiment(uid, name, side, y, facing):
...     return Unit(id=uid, name=name, side=side, brigade=side[0] + "b", kind=UnitKind.INFANTRY,
...                 stands=5, stands_start=5, x=30.0, y=y, facing_deg=facing)
>>> oob = OrderOfBattle(
...     sides=(Side("union", "Union"), Side("csa", "Confederacy")),
...     brigades={"ub": Brigade("ub", "Iron Brigade", "union", Brigadier("Meredith")),
...               "cb": Brigade("cb", "Stonewall Brigade", "csa", Brigadier("Garnett"))},
...     units={u.id: u for u in (regiment("wis2", "2nd Wisconsin", "union", 20.0, 0.0),
...                              regiment("va4", "4th Virginia", "csa", 12.0, 180.0))})
>>> battle = Battle("duel", oob, active_side="union", phase=Phase.MANEUVER)
>>> for item in checklist(battle, load_tables()):
...     print(item.unit_id, item)
wis2 2nd Wisconsin has not moved: 6" of march in line (RULE-03-2.5)
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.action_base import Action, Resolved, action_type, resolver
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.words import BrigadierStatus, Marker, Phase, plural
from rules.battlefield.marches import movement_record
from rules.dice import DiceSource
from rules.errors import IllegalAction, RulesError
from rules.tables import RuleTables
from rules.turn.fire_items import best_target, ranged_items
from rules.turn.items import Item, ItemKind

# -- the query ---------------------------------------------------------------------------------------


def checklist(battle: Battle, tables: RuleTables, since: Battle | None = None) -> tuple[Item, ...]:
    """What is still open in the battle's current phase, in the order of battle.

    ``since`` is the battle as the phase began (the journal knows it): a unit whose place, facing
    or formation changed since then has acted in Phase 2 even without a march (a charge, a change
    of formation, the umpire's placement). Without it only the march record counts.
    """
    work = ChecklistWork(battle, tables, since)
    work.work(None)
    return work.items or ()


def _checklist_steps(
    battle: Battle, tables: RuleTables, since: Battle | None
) -> Generator[None, None, tuple[Item, ...]]:
    """:func:`checklist`, pausing after each question that had to be worked out (a firer's targets
    in Phase 3); its items are the generator's return value."""
    phase = battle.phase
    if phase == Phase.COMMAND:
        return tuple(_command_items(battle, tables))
    if phase == Phase.MANEUVER:
        return tuple(_maneuver_items(battle, tables, since))
    if phase == Phase.RANGED:
        return tuple((yield from ranged_items(battle, tables)))
    if phase == Phase.MELEE:
        return tuple(_melee_items(battle, tables))
    return ()


class ChecklistWork:
    """The checklist of a battle worked out a piece at a time, for a window that must not wait on
    it: :meth:`work` for a while, then again, until :attr:`items` is known. What each piece found
    is kept (the firers' answers of Phase 3), so a new battle's work started after an unfinished
    one does not do those pieces again. The items are those :func:`checklist` gives."""

    def __init__(self, battle: Battle, tables: RuleTables, since: Battle | None = None):
        self._steps = _checklist_steps(battle, tables, since)
        self.items: tuple[Item, ...] | None = None

    @property
    def done(self) -> bool:
        return self.items is not None

    def work(self, seconds: float | None) -> bool:
        """Work for about ``seconds`` (None: to the end); True once the items are known."""
        import time

        if self.items is not None:
            return True
        end = None if seconds is None else time.perf_counter() + seconds
        try:
            while True:
                next(self._steps)
                if end is not None and time.perf_counter() >= end:
                    return False
        except StopIteration as stop:
            self.items = stop.value
            return True


def left_open(
    battle: Battle, tables: RuleTables, *, end_turn: bool = False, since: Battle | None = None
) -> tuple[Item, ...]:
    """What going on leaves undone: the items of the current phase (Next phase) or, for End turn,
    of every phase left in the side's turn, each as it will stand when it is reached
    (:func:`rules.turn.sequence.next_phase`). A phase the turn cannot leave (a melee due in Phase 4) ends
    the list: its blocking items are in it."""
    from rules.turn.sequence import next_phase

    items = list(checklist(battle, tables, since))
    if not end_turn:
        return tuple(items)
    side, b = battle.active_side, battle
    while b.phase != Phase.END and not any(i.blocks for i in items):
        try:
            b, _ = next_phase(b, tables)
        except RulesError:
            break
        if b.active_side != side:
            break
        items += checklist(b, tables)
    return tuple(items)


def blocking(items: Sequence[Item]) -> list[Item]:
    """The items that stop the phase from ending (RULE-06-1.1: a melee due in Phase 4)."""
    return [i for i in items if i.blocks]


# -- Phase 1 -------------------------------------------------------------------------------------


def _brigade_unit(battle: Battle, brigade_id: str) -> str | None:
    """The unit a brigade's item names: the Brigadier's regiment, or its first unit in play."""
    b = battle.brigades[brigade_id]
    att = b.brigadier.attached_to
    if att and att in battle.units and battle.units[att].in_play:
        return att
    for u in battle.oob.units_of_brigade(brigade_id):
        if u.in_play:
            return u.id
    return None


def _umpire_units(battle: Battle) -> list[Item]:
    out = []
    phase = battle.phase.value
    for u in battle.oob.in_play(battle.active_side):
        if u.has(Marker.DISORDER):
            out.append(
                Item(
                    ItemKind.UMPIRE.value,
                    phase,
                    f"{u.name} is Disordered: it cannot declare a charge; rallying it is the umpire's "
                    "ruling (chapter 07, not here)",
                    "RULE-06-1.3",
                    u.id,
                    u.brigade,
                )
            )
        if u.has(Marker.PINNED):
            out.append(
                Item(
                    ItemKind.UMPIRE.value,
                    phase,
                    f"{u.name} is Pinned: it cannot evade; lifting it is the umpire's ruling",
                    "RULE-04-4.2",
                    u.id,
                    u.brigade,
                )
            )
    return out


def _command_items(battle: Battle, tables: RuleTables) -> list[Item]:
    out = []
    e = tables.entry("command.staff_pips.per_brigade_per_turn")
    for b in battle.oob.brigades_of(battle.active_side):
        status = b.brigadier.status
        if status == BrigadierStatus.ACTIVE or not battle.oob.stands(brigade=b.id):
            continue
        out.append(
            Item(
                ItemKind.UMPIRE.value,
                battle.phase.value,
                f"{b.name} has lost its Brigadier ({b.brigadier.name or 'unnamed'}, {status.value}): "
                f"its Staff Pips ({b.staff_pips} now) are the umpire's to set by an override, the "
                "Leader Loss table being chapter 07's",
                e.citation,
                _brigade_unit(battle, b.id),
                b.id,
            )
        )
    return out + _umpire_units(battle)


# -- Phase 2 -------------------------------------------------------------------------------------


def has_moved(battle: Battle, unit_id: str, since: Battle | None = None) -> bool:
    """Whether the unit has moved this turn: it has marched (or turned) under the movement rules, or
    (given the battle as the phase began) its place, facing or formation has changed since."""
    if movement_record(battle, unit_id):
        return True
    if since is None:
        return False
    before, now = since.units.get(unit_id), battle.units.get(unit_id)
    if before is None or now is None:
        return False
    return (before.x, before.y, before.facing_deg, before.formation) != (
        now.x,
        now.y,
        now.facing_deg,
        now.formation,
    )


def _maneuver_items(battle: Battle, tables: RuleTables, since: Battle | None) -> list[Item]:
    from rules.battlefield.marches import remaining_move_in
    from rules.legality import march_refusal

    out = []
    phase = battle.phase.value
    from rules.umpire.arrivals import cited as arrival_rule
    from rules.umpire.arrivals import due

    for g in due(battle):  # the units due to arrive first: they come on before the rest march
        brigade = battle.oob.brigades.get(g.brigade)
        who = brigade.name if brigade is not None else g.brigade
        names = ", ".join(battle.unit(u).name for u in g.unit_ids)
        at = f" at {g.at}" if g.at else ""
        roll = f", on a {g.roll} or more" if g.roll else ""
        out.append(
            Item(
                ItemKind.ARRIVE.value,
                phase,
                f"{who} due to arrive{at} (turn {g.turn}{roll}): {names}",
                arrival_rule(tables),
                g.unit_ids[0],
                g.brigade,
            )
        )
    for u in battle.oob.in_play(battle.active_side):
        if u.has(Marker.ENGAGED):
            continue  # locked in melee: its item is the melee, in Phase 4
        if march_refusal(battle, u.id, tables) is not None or has_moved(battle, u.id, since):
            continue
        rate = tables.entry(f"movement.rate.{u.formation.value}")
        left = remaining_move_in(battle, u.id, tables)
        out.append(
            Item(
                ItemKind.MOVE.value,
                phase,
                f'{u.name} has not moved: {left:g}" of march in {u.formation.label.lower()}',
                rate.citation,
                u.id,
                u.brigade,
            )
        )
    enemy = battle.oob.enemy_of(battle.active_side)
    # a brigade with no unit on the field (all still to arrive, or gone) has none to react
    on_field = {u.brigade for u in battle.oob.units.values() if u.in_play}
    for b in battle.oob.brigades_of(enemy):
        if b.staff_pips_reserved < 1 or b.id not in on_field:
            continue
        side = battle.oob.side(battle.active_side).name
        out.append(
            Item(
                ItemKind.RESERVED_PIPS.value,
                phase,
                f"{b.brigadier.name or b.name} ({b.name}): "
                f"{plural(b.staff_pips_reserved, 'reserved Staff Pip')} unspent; "
                f"{'they lapse' if b.staff_pips_reserved != 1 else 'it lapses'} at the end of the {side} turn",
                "RULE-04-1.3",
                _brigade_unit(battle, b.id),
                b.id,
            )
        )
    return out


# -- Phase 4 -------------------------------------------------------------------------------------


def _melee_items(battle: Battle, tables: RuleTables) -> list[Item]:
    from rules.melee.melee import breakthrough_unit, describe_melee, due_melees

    out = []
    phase = battle.phase.value
    for m in due_melees(battle):
        a = battle.units.get(m.attacker)
        out.append(
            Item(
                ItemKind.MELEE.value,
                phase,
                f"Melee to resolve: {describe_melee(battle, m)}",
                "RULE-06-1.1",
                m.attacker,
                a.brigade if a is not None else None,
                other_id=m.defender,
                melee_id=m.id,
                blocks=True,
            )
        )
        for uid in (m.attacker, m.defender):
            lost = m.stands_lost.get(uid, 0)
            u = battle.units.get(uid)
            if not lost or u is None or not u.in_play or not battle.oob.has_attached_brigadier(uid):
                continue
            who = battle.brigade_of(uid).brigadier.name or "the Brigadier"
            e = tables.entry("melee.leader_loss.wounded")
            out.append(
                Item(
                    ItemKind.CHECK.value,
                    phase,
                    f"{who}'s Leader Loss roll is owed: {u.name} lost {plural(lost, 'stand')} in the "
                    "approach with him attached; it is rolled after the melee",
                    e.citation,
                    uid,
                    u.brigade,
                    melee_id=m.id,
                )
            )
    victor = breakthrough_unit(battle)
    if victor is not None and victor in battle.units and battle.units[victor].in_play:
        u = battle.units[victor]
        b = battle.brigade_of(u)
        cost = int(tables.value("command.staff_pips.cost_of_sweeping_advance"))
        if b.staff_pips >= cost:
            dist = float(tables.value("melee.outcome.sweeping_advance_in"))
            out.append(
                Item(
                    ItemKind.UMPIRE.value,
                    phase,
                    f"{u.name} broke through: a Sweeping Advance ({plural(cost, 'Staff Pip')}, "
                    f'{dist:g}" straight forward) is still open to it',
                    "RULE-06-4.5",
                    u.id,
                    u.brigade,
                )
            )
    return out


# -- the record of what was left undone ----------------------------------------------------------


@action_type("left_undone")
@dataclass(frozen=True)
class LeftUndone(Action):
    """The items of the checklist the umpire chose to leave when the phase ended (Next phase or
    End turn), committed with the phase change as one step: the log and the turn summary say what
    was skipped. It changes nothing in the battle. ``items`` are :meth:`Item.to_dict` tables."""

    items: tuple[Mapping[str, Any], ...] = ()

    def left(self) -> list[Item]:
        if not isinstance(self.items, (tuple, list)):
            raise IllegalAction("the items left undone must be a list")
        return [Item.from_dict(d) for d in self.items]

    @classmethod
    def of(cls, items: Sequence[Item]) -> LeftUndone:
        return cls(tuple(i.to_dict() for i in items))


@resolver(LeftUndone)
def _resolve_left_undone(battle: Battle, a: LeftUndone, dice: DiceSource, tables: RuleTables) -> Resolved:
    items = a.left()
    if not items:
        raise IllegalAction("nothing was left undone to record")
    steps = []
    for i in items:
        title = Phase.title_of(i.phase)
        steps.append(
            Step(
                f"Left undone ({title}): {i.text}",
                rule=i.rule,
                units=tuple(u for u in i.units if u in battle.units),
            )
        )
    phases = list(dict.fromkeys(Phase.title_of(i.phase) for i in items))
    summary = f"Left undone: {plural(len(items), 'item')} of {', '.join(phases)}"
    return Resolved(battle, steps, summary)


__all__ = [
    "Item",
    "ItemKind",
    "LeftUndone",
    "best_target",
    "blocking",
    "checklist",
    "has_moved",
    "left_open",
]
