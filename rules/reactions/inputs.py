"""The umpire's inputs given with a reaction, defined once: how far an Evade withdraws, how far a
Counter-Charge surges, whether Refuse the Flank spends the reserved pip.

Each is a :class:`ReactionInput`: the field of :class:`~rules.reactions.declare.DeclareReaction` it
fills (``key``, also the key of ``--react DEFENDER=REACTION:KEY=VALUE``), the reaction it belongs
to, the words that ask for it, and for a distance the table entries of its least and most (the
most is what is taken when it is not given, as the reactions themselves take it). The window's
reaction dialog and the command line's prompt both ask for them from here (:func:`input_of`), so
that they ask the same things in the same words, within the same bounds.

>>> from rules.tables import load_tables
>>> t = load_tables()
>>> [i.key for i in INPUTS]
['withdraw_in', 'surge_in', 'use_reserved_pip']
>>> WITHDRAW.label, WITHDRAW.bounds(t), WITHDRAW.default(t)
('withdraw', (4.0, 6.0), 6.0)
>>> RESERVED_PIP.is_distance, RESERVED_PIP.default(t)
(False, True)
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from rules.reactions.options import CostKind, Option, Reaction
from rules.tables import RuleTables


@dataclass(frozen=True)
class ReactionInput:
    """An input the umpire gives with a reaction: a distance between two table entries (``least``,
    ``most``: the table keys), or a yes or no (``flag``, what it is when not given). ``pip_only``:
    it is asked only where the reaction is paid with a reserved Staff Pip."""

    key: str
    reaction: Reaction
    label: str
    least: str = ""
    most: str = ""
    flag: bool = True
    pip_only: bool = False

    @property
    def is_distance(self) -> bool:
        return bool(self.most)

    def bounds(self, tables: RuleTables) -> tuple[float, float]:
        """The least and the most of a distance, in inches, from the rule tables."""
        return float(tables.value(self.least)), float(tables.value(self.most))

    def default(self, tables: RuleTables) -> float | bool:
        """What the input is when the umpire does not give it: a distance's most, or the flag."""
        return self.bounds(tables)[1] if self.is_distance else self.flag

    def wanted(self, option: Option, extras: Collection[str] | None = None) -> bool:
        """True when the umpire gives this input with ``option``: the option is this input's
        reaction and open to the defender, the window takes the input (``extras``, the inputs a
        window takes; None: all of them), and, for ``pip_only``, the reaction is paid with a
        reserved pip."""
        if option.reaction != self.reaction or not option.eligible:
            return False
        if extras is not None and self.key not in extras:
            return False
        if self.pip_only:
            return option.cost is not None and option.cost.kind == CostKind.RESERVED_PIP
        return True


WITHDRAW = ReactionInput(
    "withdraw_in",
    Reaction.EVADE,
    "withdraw",
    "movement.trigger.evade_min_in",
    "movement.trigger.evade_max_in",
)
SURGE = ReactionInput(
    "surge_in",
    Reaction.COUNTER_CHARGE,
    "surge",
    "melee.charge.counter_charge_min_in",
    "melee.charge.counter_charge_max_in",
)
RESERVED_PIP = ReactionInput(
    "use_reserved_pip", Reaction.REFUSE_FLANK, "spend the reserved pip (else a 4+ check)", pip_only=True
)

#: Every input the umpire gives with a reaction.
INPUTS: tuple[ReactionInput, ...] = (WITHDRAW, SURGE, RESERVED_PIP)


def input_of(option: Option, extras: Collection[str] | None = None) -> ReactionInput | None:
    """The input the umpire gives with ``option`` at a window that takes ``extras`` (None: every
    input), or None if it takes none there."""
    for i in INPUTS:
        if i.wanted(option, extras):
            return i
    return None


def inputs_of(reaction: Reaction | str) -> tuple[ReactionInput, ...]:
    """The inputs of a reaction, whatever the window (what ``--react`` may give with it)."""
    r = Reaction.parse(reaction)
    return tuple(i for i in INPUTS if i.reaction == r)


__all__ = ["INPUTS", "RESERVED_PIP", "SURGE", "WITHDRAW", "ReactionInput", "input_of", "inputs_of"]
