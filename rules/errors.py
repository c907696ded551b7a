"""Typed errors of the rules core.

Every error carries a message a club umpire understands. They subclass :class:`ValueError`
so that callers that only care about "bad input" can catch that.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Something asked of the rules core is not allowed or makes no sense."""


class InvariantError(RulesError):
    """A value breaks an invariant of the order of battle (negative stands, unknown marker ...)."""


class IllegalAction(RulesError):
    """The action is not permitted by the rules in the current state.

    ``rule`` names the rule that forbids it, where one does.
    """

    def __init__(self, message: str, rule: str | None = None):
        super().__init__(message if rule is None else f"{message} ({rule})")
        self.rule = rule


class DiceError(RulesError):
    """Dice that cannot be used: the wrong number of them, or a face outside 1 to 6."""


class TableError(RulesError):
    """A rule table is malformed. The message names the file, the line and the problem."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        where = ""
        if path is not None:
            where = f"{path}, line {line}: " if line is not None else f"{path}: "
        super().__init__(where + message)
        self.path = path
        self.line = line
