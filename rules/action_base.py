"""The action base class and its registries: what every action is, and how it is resolved.

An action says *what* the umpire asks for ("move the 2nd Wisconsin to (31.0, 20.5) facing 0");
:func:`resolve` checks it against the battle and says *what happened*: a :class:`Resolved` with
the new battle, one :class:`~rules.battle.events.Step` per line of the log (dice, modifiers, rule) and a
one-line summary. Resolution is a pure function of (battle, action, dice, tables); the journal in
``storage`` keeps the action, the dice and the changes, so undo, redo and replay never resolve
again.

This module is the bottom of the rules' actions: it imports no module that defines actions, so
every such module (:mod:`rules.actions`, :mod:`rules.shooting.volleys`, :mod:`rules.melee.melee` ...) imports
from here without importing the others. :mod:`rules.actions` gives the same names too.

Adding an action type (for the combat modules)
----------------------------------------------

Declare a frozen dataclass that subclasses :class:`Action`, register it with
:func:`action_type` under the name saves will use, and register its resolver with
:func:`resolver`::

    from dataclasses import dataclass
    from rules.action_base import Action, Resolved, action_type, resolver

    @action_type("shoot")
    @dataclass(frozen=True)
    class Shoot(Action):
        shooter_id: str
        target_id: str

    @resolver(Shoot)
    def resolve_shoot(battle, action, dice, tables) -> Resolved:
        faces = dice.roll(5, "volley")          # every die through the DiceSource
        ...
        return Resolved(battle_after, steps, "2nd Wisconsin fires at the 4th Virginia: 2 hits")

Fields must be JSON values: ``str``, ``int``, ``float``, ``bool``, ``None``, tuples (kept as JSON
lists and turned back into tuples), or mappings of them. A field an action gains after saves
already hold it is declared with :func:`added_field`: its default for the actions made now, and
the value that reads the saves made before it as they were played. Raise
:class:`~rules.errors.IllegalAction` (with the rule id) for an action the rules forbid; never
change anything outside the returned battle. The module that registers an action type must be
imported before a save holding it is opened: ``storage`` imports :data:`ACTION_MODULES`.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from rules import limits
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.order_of_battle import article
from rules.dice import DiceSource, Roll
from rules.errors import IllegalAction, InvariantError, RulesError
from rules.reactions.refused_flank import refusals_ended
from rules.tables import RuleTables

# Modules that register action types of their own. Saves import these before reading a journal;
# a module that is missing is skipped (its actions then cannot be read back).
ACTION_MODULES: tuple[str, ...] = (
    "rules.actions",
    "rules.shooting.volleys",
    "rules.reactions.declare",
    "rules.reactions.triggers",
    "rules.assault.charge",
    "rules.melee.melee",
    "rules.turn.checklist",
)


# Modules whose rules follow every action of play (:func:`follow_up`): rules.sight.spotting reveals a
# hidden unit that is spotted, fires or moves in sight. They are imported when a battle first has
# a unit they concern (a hidden one), so a battle without one never loads them.
FOLLOW_UP_MODULES: tuple[str, ...] = ("rules.sight.spotting",)


def load_action_modules() -> None:
    """Import the modules that register action types, so their actions can be read from saves."""
    for name in ACTION_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise


# --------------------------------------------------------------------------------------------
# The action base class and the registries
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    """Base of all actions. ``type`` is the name under which the action is saved."""

    type: ClassVar[str] = ""
    #: whether a regiment this action moves, turns or re-forms ends its refused flank (the club's
    #: reading of how long a refusal lasts, :mod:`rules.reactions.refused_flank`); the umpire's own edits
    #: of the order of battle set the markers themselves
    ends_refusals: ClassVar[bool] = True
    #: An umpire's ruling or edit (an override, an edit of a unit or the terrain, a placement):
    #: the rules that follow every action of play (:func:`follow_up`) do not follow it.
    ruling: ClassVar[bool] = False

    def is_ruling(self) -> bool:
        """Whether this is the umpire's ruling rather than an action of play (see :attr:`ruling`)."""
        return self.ruling

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type}
        for f in dataclasses.fields(self):
            d[f.name] = _to_json(getattr(self, f.name))
        return d

    def check(self) -> None:
        """Refuse this action if any of its fields is out of the bounds a save's reader applies
        (:mod:`rules.limits`), with :class:`IllegalAction` naming the field: what the rules accept
        from the window or the command line can always be read back from the save. The same
        check as :meth:`from_dict` makes of each field, on the values themselves.

        >>> from rules.actions import SpendPip
        >>> SpendPip("garnett", purpose="p" * 100_001).check()
        Traceback (most recent call last):
        rules.errors.IllegalAction: a spend_pip action: purpose is 100,001 characters long; at most 100,000 are allowed
        """
        names, types = _fields_of(type(self))
        for name in names:
            try:
                _checked(name, types[name], getattr(self, name))
            except InvariantError as exc:
                raise IllegalAction(f"{article(self.type)} {self.type} action: {exc}") from None

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> Action:
        """Read an action written by :meth:`to_dict`; a malformed one raises :class:`RulesError`."""
        if not isinstance(d, Mapping):
            raise RulesError(f"an action must be a table of values, not {type(d).__name__}")
        kind = d.get("type")
        cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
        if cls is None:
            known = ", ".join(sorted(ACTION_TYPES))
            raise RulesError(f"'{kind}' is not a known kind of action; use one of: {known}")
        names, types = _fields_of(cls)
        unknown = [] if d.keys() <= names.keys() | {"type"} else sorted(set(d) - set(names) - {"type"})
        if unknown:
            fields = "field " if len(unknown) == 1 else "fields "
            raise RulesError(
                f"{article(kind)} {kind} action has no {fields}{', '.join(repr(k) for k in unknown)}; "
                + (f"its fields are {', '.join(names)}" if names else "it takes no fields")
            )
        kwargs: dict[str, Any] = {}
        for name, f in names.items():
            if name in d:
                try:
                    value = _checked(name, types[name], d[name])
                except InvariantError as exc:
                    raise RulesError(f"{article(kind)} {kind} action: {exc}") from None
                kwargs[name] = _from_json(value, types[name])
            elif SAVED_BEFORE in f.metadata:
                kwargs[name] = f.metadata[SAVED_BEFORE]  # a save made before the field was added
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise RulesError(f"{article(kind)} {kind} action needs '{name}'")
        try:
            return cls(**kwargs)
        except (TypeError, ValueError) as exc:
            raise RulesError(f"{article(kind)} {kind} action is malformed: {exc}") from None


SAVED_BEFORE = "saved_before"

_FIELDS: dict[type, tuple[dict[str, dataclasses.Field], dict[str, str]]] = {}


def _fields_of(cls: type) -> tuple[dict[str, dataclasses.Field], dict[str, str]]:
    """An action class's fields by name, and each one's type as text, worked out once a class:
    reading a long journal asks for them for every entry."""
    found = _FIELDS.get(cls)
    if found is None:
        names = {f.name: f for f in dataclasses.fields(cls)}
        found = _FIELDS[cls] = (names, {n: str(f.type) for n, f in names.items()})
    return found


def added_field(default: Any, *, saved_before: Any) -> Any:
    """A field an action type gains once saves already hold actions of that type: ``default`` for
    the actions made now, ``saved_before`` for an action read from a save (or any JSON) that does
    not have it, so that an old save resolves again exactly as it was played.

    >>> @dataclass(frozen=True)
    ... class Salute(Action):
    ...     with_colours: bool = added_field(True, saved_before=False)
    >>> Salute().with_colours, dataclasses.fields(Salute)[0].metadata[SAVED_BEFORE]
    (True, False)
    """
    return field(default=default, metadata={SAVED_BEFORE: saved_before})


def _to_json(v: Any) -> Any:
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, (tuple, list)):
        return [_to_json(x) for x in v]
    if isinstance(v, (set, frozenset)):
        return sorted(_to_json(x) for x in v)
    if isinstance(v, Mapping):
        return {str(k): _to_json(x) for k, x in v.items()}
    raise RulesError(f"{v!r} cannot be kept in a save")


def _checked(name: str, annotation: str, v: Any) -> Any:
    """A field of an action read from JSON, checked against its annotation and its range
    (:mod:`rules.limits`) before any rule sees it: an id is text, a distance a number of inches,
    a count a whole number, a table of values is a table nested no deeper than the limit."""
    ann = annotation.replace(" ", "")
    optional = ann.endswith("|None")
    base = ann[: -len("|None")] if optional else ann
    if v is None:
        if optional:
            return None
        raise InvariantError(f"{name} must be given, not none")
    if base == "str":
        long = name in ("reason", "purpose")
        return limits.text(v, name, limits.MAX_LONG_TEXT if long else limits.MAX_TEXT)
    if base == "bool":
        if not isinstance(v, bool):
            raise InvariantError(f"{name} must be true or false, not {limits._show(v)}")
        return v
    if base == "int":
        return limits.whole(v, limits.ACTION_COUNT, name)
    if base == "float":
        rng = (
            limits.FACING_DEG
            if name.endswith("_deg")
            else limits.POSITION_IN
            if name in ("x", "y")
            else limits.DISTANCE_IN
        )
        limits.number(v, rng, name)
        return v
    if base.startswith("tuple"):
        inner = base[len("tuple[") : -1]
        if isinstance(v, (list, tuple)):  # anything else is refused by the rules, in their words
            limits.count(len(v), limits.MAX_UNITS, name)
            if inner.startswith("str") and not all(isinstance(x, str) for x in v):
                raise InvariantError(f"{name} must be a list of words, not {limits._show(v)}")
            if inner.startswith("Mapping") and not all(
                isinstance(x, Mapping) and all(isinstance(k, str) for k in x) for x in v
            ):
                raise InvariantError(f"{name} must be a list of tables of values, not {limits._show(v)}")
            limits.shallow(v, name)
        elif not isinstance(v, (str, int, float)):
            raise InvariantError(f"{name} must be a list of words, not {limits._show(v)}")
        return v
    if base.startswith("Mapping"):
        if not isinstance(v, Mapping) or not all(isinstance(k, str) for k in v):
            raise InvariantError(f"{name} must be a table of values, not {limits._show(v)}")
        return limits.shallow(v, name)
    return v


def _from_json(v: Any, annotation: str) -> Any:
    if isinstance(v, list) and annotation.startswith("tuple"):
        return tuple(tuple(x) if isinstance(x, list) else x for x in v)
    return v


ACTION_TYPES: dict[str, type[Action]] = {}
Resolver = Callable[[Battle, Any, DiceSource, RuleTables], "Resolved"]
RESOLVERS: dict[type[Action], Resolver] = {}


def action_type(name: str) -> Callable[[type[Action]], type[Action]]:
    """Class decorator: register an action class under ``name`` (the "type" in saves)."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise ValueError(f"action type names are lower_case words, not {name!r}")

    def register(cls: type[Action]) -> type[Action]:
        if not (isinstance(cls, type) and issubclass(cls, Action) and dataclasses.is_dataclass(cls)):
            raise TypeError(f"{cls!r} must be a frozen dataclass subclassing Action")
        old = ACTION_TYPES.get(name)
        if old is not None and old.__qualname__ != cls.__qualname__:
            raise ValueError(f"the action type '{name}' is already taken by {old.__qualname__}")
        cls.type = name
        ACTION_TYPES[name] = cls
        return cls

    return register


def resolver(cls: type[Action]) -> Callable[[Resolver], Resolver]:
    """Decorator: register the function that resolves actions of class ``cls``."""

    def register(fn: Resolver) -> Resolver:
        RESOLVERS[cls] = fn
        return fn

    return register


FollowUp = Callable[[Battle, "Action", "Resolved", RuleTables], "Resolved"]
FOLLOW_UPS: list[FollowUp] = []
_follow_ups_loaded: list[bool] = [False]


def follow_up(fn: FollowUp) -> FollowUp:
    """Decorator: register a rule that follows every action of play (not the umpire's rulings):
    ``fn(battle_before, action, resolved, tables)`` returns the resolved outcome with what it adds
    (its changes in the battle, its lines in the log), as part of the same action."""
    if fn not in FOLLOW_UPS:
        FOLLOW_UPS.append(fn)
    return fn


def _follow_ups(battle: Battle) -> list[FollowUp]:
    """The follow-ups that concern ``battle``: none unless a unit on the table is hidden."""
    if not any(u.hidden and u.in_play for u in battle.units.values()):
        return []
    if not _follow_ups_loaded[0]:
        for name in FOLLOW_UP_MODULES:
            importlib.import_module(name)
        _follow_ups_loaded[0] = True
    return FOLLOW_UPS


@dataclass(frozen=True)
class Resolved:
    """The outcome of one action: the battle after it, the log lines and a one-line summary.

    ``rolls`` is filled in by :func:`resolve` with the dice the resolution asked for.
    """

    battle_after: Battle
    steps: list[Step] = field(default_factory=list)
    summary: str = ""
    rolls: tuple[Roll, ...] = ()

    @property
    def battle(self) -> Battle:
        return self.battle_after


def resolve(battle: Battle, action: Action, dice: DiceSource, tables: RuleTables) -> Resolved:
    """Check ``action`` against ``battle`` and resolve it.

    Raises :class:`~rules.errors.RulesError` (usually :class:`IllegalAction`) if it cannot be done;
    the battle itself is never changed (it is frozen).
    """
    fn = None
    for cls in type(action).__mro__:
        fn = RESOLVERS.get(cls)
        if fn is not None:
            break
    if fn is None:
        raise RulesError(f"Brigadier does not know how to resolve a '{action.type}' action")
    action.check()  # the bounds a save is read with, before any rule works from the action
    start = len(dice.rolls)
    try:
        out = fn(battle, action, dice, tables)
    except InvariantError as exc:
        raise IllegalAction(str(exc)) from None
    if not isinstance(out, Resolved):
        raise RulesError(f"the '{action.type}' resolver returned {type(out).__name__}, not Resolved")
    steps = list(out.steps)
    after = out.battle_after
    if type(action).ends_refusals:
        after, ended = refusals_ended(battle, after, tables)
        steps += ended
    out = replace(out, battle_after=after, steps=steps)
    if not action.is_ruling():
        for fn in _follow_ups(out.battle_after):
            try:
                out = fn(battle, action, out, tables)
            except InvariantError as exc:
                raise IllegalAction(str(exc)) from None
    return replace(out, steps=list(out.steps), rolls=tuple(dice.rolls[start:]))
