"""The umpire's overrides: any value of a unit, a brigade or the game set by hand, with the reason
that goes in the log (:class:`Override`), and the rule tables changed during a game
(:class:`ChangeTables`). The result must keep every invariant of the order of battle."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from rules import limits
from rules.action_base import (
    Action,
    Resolved,
    action_type,
    brigade_named,
    changed_words,
    mapping_value,
    refuse_unknown_fields,
    resolver,
    unit_named,
    value_words,
)
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.order_of_battle import Brigade
from rules.battle.unit import UNIT_KEYS, Unit
from rules.battle.words import Phase
from rules.battlefield.marches import check_on_table
from rules.dice import DiceSource
from rules.errors import IllegalAction
from rules.tables import RuleTables

# The values of a unit the umpire can set: every field of a unit but its id (rules.battle.unit.UNIT_KEYS).
UNIT_FIELDS = tuple(k for k in UNIT_KEYS if k != "id")
BRIGADE_FIELDS = (
    "name",
    "side",
    "staff_pips",
    "staff_pips_reserved",
    "state",
    "brigadier",
    "brigadier_name",
    "attached_to",
    "brigadier_status",
)
GAME_FIELDS = ("turn", "phase", "active_side")


# Unit values that are lists of words, and how the umpire gives one.
_LIST_FIELDS = {"markers": "disorder", "traits": "rebel_yell"}


def word_list(value: Any, key: str) -> list[str]:
    """A list-valued unit field: a list of words, one word, or words separated by commas
    ("disorder,smoke"); "" or "none" for none."""
    if isinstance(value, str):
        if value.strip().lower() in ("", "none"):
            return []
        return [w.strip() for w in value.split(",") if w.strip()]
    if isinstance(value, (list, tuple, set, frozenset)) and all(isinstance(w, str) for w in value):
        return list(value)
    eg = _LIST_FIELDS[key]
    given = repr(value)
    if len(given) > 80:  # a long or deeply nested value is not echoed whole
        given = given[:77] + "..."
    raise IllegalAction(
        f"{key} are given as one word ({key}={eg}) or several separated by commas "
        f"({key}={eg},...), or as a list of words, not {given}"
    )


def set_unit(battle: Battle, unit_id: str, values: Mapping[str, Any]) -> tuple[Battle, list[str], Unit]:
    u = unit_named(battle, unit_id)
    values = mapping_value(values, "the values")
    refuse_unknown_fields(
        values, UNIT_FIELDS, "a unit", "a unit's id cannot be changed; remove the unit and add it again"
    )
    before = u.to_dict()
    d = {**before, **values}
    for key in _LIST_FIELDS:
        if key in values:
            d[key] = word_list(values[key], key)
    new = Unit.from_dict(d)
    if "x" in values or "y" in values:
        check_on_table(battle, new.x, new.y)
    after = new.to_dict()
    changes = changed_words(before, after)
    if not changes:
        raise IllegalAction(f"that changes nothing for {u.name}")
    return battle.with_unit(new), changes, new


def set_brigade(
    battle: Battle, brigade_id: str, values: Mapping[str, Any]
) -> tuple[Battle, list[str], Brigade]:
    b = brigade_named(battle, brigade_id)
    values = mapping_value(values, "the values")
    refuse_unknown_fields(
        values,
        BRIGADE_FIELDS,
        "a brigade",
        "a brigade's id cannot be changed; remove the brigade and add it again",
    )
    before = b.to_dict()
    d = dict(before)
    brigadier = dict(before["brigadier"])
    for k, v in values.items():
        if k == "brigadier":
            brigadier.update(mapping_value(v, "the Brigadier"))
        elif k == "brigadier_name":
            brigadier["name"] = v
        elif k == "attached_to":
            brigadier["attached_to"] = v
        elif k == "brigadier_status":
            brigadier["status"] = v
        else:
            d[k] = v
    d["brigadier"] = brigadier
    new = Brigade.from_dict(d)
    after = new.to_dict()
    flat_before, flat_after = flat_brigade(before), flat_brigade(after)
    changes = changed_words(flat_before, flat_after)
    if not changes:
        raise IllegalAction(f"that changes nothing for {b.name}")
    return battle.with_brigade(new), changes, new


def flat_brigade(d: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "name": d["name"],
        "side": d["side"],
        "staff_pips": d["staff_pips"],
        "staff_pips_reserved": d["staff_pips_reserved"],
        "state": d["state"],
        "brigadier": d["brigadier"]["name"],
        "attached_to": d["brigadier"]["attached_to"],
        "brigadier_status": d["brigadier"]["status"],
    }


def set_game(battle: Battle, values: Mapping[str, Any]) -> tuple[Battle, list[str]]:
    values = mapping_value(values, "the values")
    refuse_unknown_fields(values, GAME_FIELDS, "the game")
    kw: dict[str, Any] = {}
    if "turn" in values:
        t = values["turn"]
        if isinstance(t, bool) or not isinstance(t, int) or t not in limits.TURN:
            raise IllegalAction(
                f"the turn must be a whole number from {limits.TURN.text()}, not {limits._show(t)}"
            )
        kw["turn"] = t
    if "phase" in values:
        kw["phase"] = Phase.parse(limits.text(values["phase"], "the phase"))
    if "active_side" in values:
        kw["active_side"] = limits.text(values["active_side"], "the active side")
    new = replace(battle, **kw)
    before = {k: str(getattr(battle, k)) for k in GAME_FIELDS}
    after = {k: str(getattr(new, k)) for k in GAME_FIELDS}
    changes = changed_words(before, after)
    if not changes:
        raise IllegalAction("that changes nothing")
    return new, changes


@action_type("override")
@dataclass(frozen=True)
class Override(Action):
    """The umpire sets values by ruling. ``target`` is "unit", "brigade" or "game".

    Unit values: the fields of a unit (stands, micro_hits, markers, formation, x, y, facing_deg ...).
    Brigade values: staff_pips, staff_pips_reserved, state, name, attached_to, brigadier_status,
    brigadier_name. Game values: turn, phase, active_side. The result must keep every invariant
    of the order of battle; the reason is mandatory and goes in the log.
    """

    ends_refusals: ClassVar[bool] = False  # the umpire sets the markers himself
    ruling: ClassVar[bool] = True  # the umpire's ruling or edit

    target: str
    target_id: str
    values: Mapping[str, Any]
    reason: str


@resolver(Override)
def _resolve_override(battle: Battle, a: Override, dice: DiceSource, tables: RuleTables) -> Resolved:
    if not isinstance(a.reason, str) or not a.reason.strip():
        raise IllegalAction("an umpire's override needs a reason, which goes in the log")
    reason = a.reason.strip()
    units: tuple[str, ...] = ()
    if a.target == "unit":
        after, changes, u = set_unit(battle, a.target_id, a.values)
        what, units = u.name, (u.id,)
    elif a.target == "brigade":
        after, changes, b = set_brigade(battle, a.target_id, a.values)
        what = b.name
    elif a.target == "game":
        after, changes = set_game(battle, a.values)
        what = "the game"
    else:
        raise IllegalAction(f"an override sets a unit, a brigade or the game, not {a.target!r}")
    steps = [Step(f"Umpire's override of {what}: {c}", units=units) for c in changes]
    if a.target == "unit":
        steps.extend(garrison_warnings(after, units[0], tables))
    if a.target == "game" and after.turn != battle.turn:
        steps.append(Step(_turn_jump(battle.turn, after.turn)))
    steps.append(Step(f"Reason: {reason}", units=units))
    return Resolved(after, steps, f"Umpire's override of {what}: {'; '.join(changes)} ({reason})")


def garrison_warnings(battle: Battle, unit_id: str, tables: RuleTables) -> list[Step]:
    """Warnings for the log when a unit marked Garrisoned breaks the garrison rules (RULE-03-3.1):
    a building holds at most ``shooting.buildings.garrison_stands`` stands of infantry or dismounted
    cavalry. An umpire's override stands (it is the umpire's authority), but the log says which
    rule it sets aside."""
    from rules.battle.words import Marker
    from rules.battlefield.field import Battlefield
    from rules.shooting.buildings import garrison_of

    u = battle.unit(unit_id)
    if not u.in_play or not u.has(Marker.GARRISONED):
        return []
    bf = Battlefield(battle, tables)
    building = bf.building_of(u)
    if building is None:
        return []
    label = building.name or "the building"
    cap = tables.entry("shooting.buildings.garrison_stands")
    out = []
    try:
        bf.check_garrison(u, building.id)
    except IllegalAction as exc:
        out.append(
            Step(f"Warning: {exc.args[0]}; the override breaks {exc.rule}", rule=exc.rule, units=(u.id,))
        )
    inside = garrison_of(battle, building.id, tables)
    held = sum(g.stands for g in inside)
    if held > cap.value and u.stands <= cap.value:
        names = ", ".join(g.name for g in inside)
        out.append(
            Step(
                f"Warning: {label} now holds {held} stands ({names}), more than the {cap.value} a "
                f"building holds; the override breaks {cap.citation}",
                rule=cap.citation,
                units=tuple(g.id for g in inside),
            )
        )
    return out


def _turn_jump(before: int, after: int) -> str:
    """What an override of the turn number does to the journal, for the log and the reports."""
    if after == before + 1:
        return f"The game goes on to turn {after}; the rest of turn {before} is not played"
    if after > before:
        skipped = f"turn {before + 1} is" if after == before + 2 else f"turns {before + 1} to {after - 1} are"
        return f"The game jumps from turn {before} to turn {after}: {skipped} skipped, with nothing in the journal"
    return (
        f"The game goes back to turn {after}: the journal keeps what was played of turns {after} to "
        f"{before}, and turn {after} is played again"
    )


# --------------------------------------------------------------------------------------------
# The rule tables, changed during a game
# --------------------------------------------------------------------------------------------


@action_type("change_tables")
@dataclass(frozen=True)
class ChangeTables(Action):
    """The umpire changes values of the rule tables during the game, with the reason, for the rest
    of it: the tables in force are then the game's own with these values laid over them (the
    battle's ``table_values``). Each value is checked as a club's copy is (its kind and range; a
    club default only: a number a chapter gives, or one fixed by a rule, is refused). Undo takes
    the change back like any action."""

    values: Mapping[str, Any]
    reason: str


@resolver(ChangeTables)
def _resolve_change_tables(battle: Battle, a: ChangeTables, dice: DiceSource, tables: RuleTables) -> Resolved:
    from rules.errors import TableError

    values = dict(mapping_value(a.values, "the values"))
    if not values:
        raise IllegalAction("a change of the rule tables needs at least one value")
    reason = str(a.reason or "").strip()
    if not reason:
        raise IllegalAction("a change of the rule tables needs its reason, for the log")
    try:
        tables.with_values(values)  # the checks a club's copy passes: kind, range, fixed entries
    except TableError as exc:
        raise IllegalAction(str(exc)) from None
    from rules.tables import club_change_problem

    steps, said = [], []
    for key in sorted(values):
        e = tables.entry(key)
        # and, as a club's copy, only club defaults: a number a chapter gives stays the rule's
        problem = club_change_problem(e, replace(e, value=values[key]))
        if problem:
            raise IllegalAction(problem)
        if e.value == values[key]:
            raise IllegalAction(f"{key} is {value_words(e.value)} already")
        # a club default says why it is one (and the rule it stands in for, where it names one)
        why = e.citation if e.rule or not e.reason else f"club default: {e.reason}"
        line = f"{key}: {value_words(e.value)} → {value_words(values[key])} ({why})"
        steps.append(Step(line, rule=e.rule))
        said.append(f"{key} {value_words(e.value)} → {value_words(values[key])}")
    steps.append(Step(f"Reason: {reason}"))
    after = replace(battle, table_values={**battle.table_values, **values})
    return Resolved(after, steps, f"Rule tables changed: {'; '.join(said)} ({reason})")
