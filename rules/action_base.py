"""The action base class and its registries: what every action is, and how it is resolved.

An action says *what* the umpire asks for ("move the 2nd Wisconsin to (31.0, 20.5) facing 0");
:func:`resolve` checks it against the battle and says *what happened*: a :class:`Resolved` with
the new battle, one :class:`~rules.battle.events.Step` per line of the log (dice, modifiers, rule) and a
one-line summary. Resolution is a pure function of (battle, action, dice, tables); the journal in
``storage`` keeps the action, the dice and the changes, so undo, redo and replay never resolve
again.

This module is the bottom of the rules' actions: it imports no module that defines actions, so
every such module (:mod:`rules.battlefield.marches`, :mod:`rules.shooting.shoot`,
:mod:`rules.melee.melee` ...) imports from here without importing the others. Every action type is
listed in one place above them all, :mod:`rules.actions`, which gives the same names too.

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
change anything outside the returned battle. List the new type in :mod:`rules.actions`, which
``storage`` imports before it reads a save: a type not listed there cannot be read back.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from rules import limits
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.order_of_battle import Brigade
from rules.battle.terrain import TerrainFeature
from rules.battle.unit import Unit
from rules.battle.words import article
from rules.dice import DiceSource, Roll
from rules.errors import IllegalAction, InvariantError, RulesError
from rules.reactions.refused_flank import refusals_ended
from rules.tables import RuleTables

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
#: The rules that follow every action of play, registered by :func:`follow_up` where they are
#: defined (:mod:`rules.sight.spotting`: a hidden unit spotted, firing or moving in sight is
#: revealed); :mod:`rules.actions` imports them with the action types.
FOLLOW_UPS: list[FollowUp] = []


def follow_up(fn: FollowUp) -> FollowUp:
    """Decorator: register a rule that follows every action of play (not the umpire's rulings):
    ``fn(battle_before, action, resolved, tables)`` returns the resolved outcome with what it adds
    (its changes in the battle, its lines in the log), as part of the same action."""
    if fn not in FOLLOW_UPS:
        FOLLOW_UPS.append(fn)
    return fn


def _follow_ups(battle: Battle) -> list[FollowUp]:
    """The follow-ups that concern ``battle``: none unless a unit on the table is hidden. A battle
    with a hidden unit is never resolved without the rules of sight: their module registers them
    (:mod:`rules.actions` imports it with every action type)."""
    if not any(u.hidden and u.in_play for u in battle.units.values()):
        return []
    if not FOLLOW_UPS:
        raise RulesError(
            "a unit is hidden, but the rules of sight that reveal it are not loaded (import rules.actions)"
        )
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


# --------------------------------------------------------------------------------------------
# What the actions' resolvers share: finding what an action names, its values checked, in words
# --------------------------------------------------------------------------------------------


def unit_named(battle: Battle, unit_id: str) -> Unit:
    u = battle.units.get(unit_id)
    if u is None:
        raise IllegalAction(f"there is no unit '{unit_id}'")
    return u


def brigade_named(battle: Battle, brigade_id: str) -> Brigade:
    b = battle.brigades.get(brigade_id)
    if b is None:
        raise IllegalAction(f"there is no brigade '{brigade_id}'")
    return b


def feature_named(battle: Battle, feature_id: str) -> TerrainFeature:
    for f in battle.terrain:
        if f.id == feature_id:
            return f
    raise IllegalAction(f"there is no terrain feature '{feature_id}'")


def number_value(v: Any, what: str, rng: limits.Range = limits.POSITION_IN) -> float:
    try:
        return limits.number(v, rng, what)
    except InvariantError as exc:
        raise IllegalAction(str(exc)) from None


def text_value(v: Any, what: str) -> str:
    if not isinstance(v, str) or not v.strip():
        raise IllegalAction(f"{what} must be given")
    return v


def mapping_value(v: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(v, Mapping) or not v:
        raise IllegalAction(f"{what} must be a table of values to set")
    return v


def compass(deg: float) -> str:
    """A facing as the umpire says it: 0 -> "N (0°)", 90 -> "E (90°)"."""
    names = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
    return f"{names[int(((deg % 360) + 22.5) // 45) % 8]} ({deg % 360:g}°)"


def place_words(x: float, y: float) -> str:
    """A place on the table to the tenth of an inch, as distances are: (28.9557, 46.0066) -> (29, 46)."""
    return f"({round(x, 1):g}, {round(y, 1):g})"


def value_words(v: Any) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(value_words(x) for x in v) + "]" if v else "none"
    if isinstance(v, float):
        return f"{v:g}"
    if v is None:
        return "none"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {value_words(x)}" for k, x in v.items()) + "}"
    return str(v)


def changed_words(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    return [
        f"{k} {value_words(before.get(k))} → {value_words(after.get(k))}"
        for k in after
        if before.get(k) != after[k]
    ]


def refuse_unknown_fields(
    values: Mapping[str, Any], fields: Sequence[str], whose: str, id_message: str | None = None
) -> None:
    """Refuse an edit naming a value the thing does not have; ``id_message`` if one of them is its id."""
    bad = [k for k in values if k not in fields]
    if not bad:
        return
    if id_message is not None and "id" in bad:
        raise IllegalAction(id_message)
    raise IllegalAction(
        f"{whose} has no value {', '.join(repr(k) for k in bad)}; use one of {', '.join(fields)}"
    )


def battle_with_oob(battle: Battle, **oob_changes: Any) -> Battle:
    return replace(battle, oob=replace(battle.oob, **oob_changes))
