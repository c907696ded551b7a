"""The bounds of every number and every shape Brigadier reads: one place, used by every door.

A value from outside (a scenario file, a club's rule table, a save, an action typed as JSON, an
umpire's override, the command line) is checked against these ranges where it comes in, before
anything is worked out from it. A value out of range is refused with
:class:`~rules.errors.InvariantError` (a :class:`~rules.errors.RulesError`), naming the value and
its range; nothing is changed.

The ranges are generous for a club game and small enough that nothing a rule does with them can
run away (a 2^70 stand count would ask for more dice than there are atoms; a turn of 10 million
would make the log list ten million turns):

========================  ===================  ===================================================
what                      range                where it is checked
========================  ===================  ===================================================
stands of a unit          0 to 100             scenario, save, override, edit, add unit
starting stands           1 to 100             the same
Staff Pips (and reserved) 0 to 99              scenario, save, override, edit
structural hits           0 to 99              scenario, save, edit terrain
game turn                 1 to 1,000           scenario, save, override of the turn
table width and height    1" to 2,000"         scenario, save
positions of units        on the table         scenario, move, override, add unit
positions as saved        -2,000" to 4,000"    save, terrain points (a rule may push a unit
                                               off the table, never far)
width of a linear feature 0" to 24"            scenario, save, edit terrain
distances in an action    up to 3,000"         action JSON (a shot's range, a withdrawal ...)
counts in an action       0 to 100             action JSON (engaged stands, stands that see)
a facing                  -3,600 to 3,600      any door (kept as 0 to 360)
dice in one roll          0 to 100,000         every roll
dice seed                 0 to 2^63 - 1        scenario, save, ``new --seed``
dice drawn, journal seq   0 to 10^9            save
units / brigades          1,000 / 500          scenario, save (a bigger battle is refused)
terrain features          1,000, of at most    scenario, save
                          1,000 points each
text (a name, an id)      1,000 characters     scenario, save, action JSON
long text (notes, log)    100,000 characters   scenario, save, action JSON
text made of other texts  1,000,000 characters save, and every action before it is saved (a
(a log line, a summary,                        log line quotes a reason of 100,000 characters
a roll's purpose)                              and the names of the units it concerns)
nesting of lists/tables   24 deep              scenario, club table, save, action JSON
a file read               16 MB                scenario, club table; 1 MB for a command line's
                                               JSON, 64 MB for one JSON value of a save
========================  ===================  ===================================================

A club's rule table has a range for every entry too (:mod:`rules.tables`).

>>> whole(5, STANDS)
5
>>> whole(2**70, STANDS)
Traceback (most recent call last):
rules.errors.InvariantError: stands must be 0 to 100, not 1180591620717411303424
>>> depth_of({"a": [[1]]})
3
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.errors import InvariantError


@dataclass(frozen=True)
class Range:
    """A closed range of numbers, with the words for what it bounds."""

    lo: float
    hi: float
    what: str
    unit: str = ""

    def __contains__(self, value: object) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and self.lo <= value <= self.hi

    def text(self) -> str:
        """The range as the umpire reads it: ``1 to 1,000``, ``1" to 2,000"``."""
        return f"{_n(self.lo)}{self.unit} to {_n(self.hi)}{self.unit}"


def _n(v: float) -> str:
    if float(v).is_integer():
        return f"{int(v):,}" if abs(v) < 10**6 else f"{int(v)}"
    return f"{v:g}"


STANDS = Range(0, 100, "stands")
STANDS_START = Range(1, 100, "starting stands")
STAFF_PIPS = Range(0, 99, "Staff Pips")
STRUCTURAL_HITS = Range(0, 99, "structural hits")
TURN = Range(1, 1000, "the turn")
TABLE_IN = Range(1, 2000, "the table's width and height", '"')
#: Positions as saved: a rule (an evade, a withdrawal) may push a unit off the table, never far.
POSITION_IN = Range(-2000, 4000, "a position", '"')
#: A distance in an action, checked where the action comes in; the rules refuse a negative one with
#: their own reason (a withdrawal of -2" is no withdrawal).
DISTANCE_IN = Range(-3000, 3000, "a distance", '"')
FACING_DEG = Range(-3600, 3600, "a facing", "°")
DICE_PER_ROLL = Range(0, 100_000, "dice in one roll")
SEED = Range(0, 2**63 - 1, "the dice seed")
COUNT = Range(0, 10**9, "a count")
#: Whole numbers in an action that count stands or units (engaged stands, stands with a clear view).
ACTION_COUNT = Range(0, 100, "a count of stands")

MAX_UNITS = 1000
MAX_BRIGADES = 500
MAX_TERRAIN = 1000
MAX_POINTS = 1000
MAX_TEXT = 1000
MAX_LONG_TEXT = 100_000
#: A text the rules write from other texts (a log line, a summary, a roll's purpose, a modifier's
#: label): room for a long text and many names, so that an action whose own texts are within their
#: bounds always writes a log that can be read back.
MAX_LOG_TEXT = 1_000_000
MAX_DEPTH = 24
MAX_FILE_BYTES = 16 * 2**20
MAX_JSON_BYTES = 64 * 2**20


def whole(value: Any, rng: Range, what: str | None = None) -> int:
    """``value`` as a whole number in ``rng`` (a float with no fraction is taken), or
    :class:`InvariantError` saying why not."""
    name = what or rng.what
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvariantError(f"{name} must be a whole number, not {_show(value)}")
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise InvariantError(f"{name} must be a whole number, not {_show(value)}")
    if value < 0 <= rng.lo:
        raise InvariantError(f"{name} cannot be negative ({_show(value)})")
    if not rng.lo <= value <= rng.hi:
        raise InvariantError(f"{name} must be {rng.text()}, not {_show(value)}")
    return int(value)


def number(value: Any, rng: Range, what: str | None = None) -> float:
    """``value`` as a finite number in ``rng``, or :class:`InvariantError` saying why not."""
    name = what or rng.what
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvariantError(f"{name} must be a number, not {_show(value)}")
    if isinstance(value, int) and not rng.lo <= value <= rng.hi:
        raise InvariantError(f"{name} must be {rng.text()}, not {_show(value)}")
    f = float(value)
    if not math.isfinite(f):
        raise InvariantError(f"{name} must be a number, not {_show(value)}")
    if not rng.lo <= f <= rng.hi:
        raise InvariantError(f"{name} must be {rng.text()}, not {_show(value)}")
    return f


def text(value: Any, what: str, limit: int = MAX_TEXT) -> str:
    """``value`` as text of at most ``limit`` characters."""
    if not isinstance(value, str):
        raise InvariantError(f"{what} must be text, not {_show(value)}")
    if len(value) > limit:
        raise InvariantError(f"{what} is {len(value):,} characters long; at most {limit:,} are allowed")
    if _SURROGATE.search(value):
        raise InvariantError(f"{what} holds a character that is not text (a lone surrogate)")
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")


def count(n: int, limit: int, what: str) -> None:
    """Refuse more than ``limit`` of something (units, terrain features, points)."""
    if n > limit:
        raise InvariantError(f"{n:,} {what} is more than Brigadier handles (at most {limit:,})")


def depth_of(value: Any, limit: int = 10**6) -> int:
    """How deeply lists and tables nest in ``value`` (a scalar is 0), counted without recursion;
    stops counting once past ``limit``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, Mapping):
            d += 1
            children = v.values()
        elif isinstance(v, (list, tuple)):
            d += 1
            children = v
        else:
            continue
        if d > deepest:
            deepest = d
            if deepest > limit:
                return deepest
        stack.extend((c, d) for c in children)
    return deepest


def shallow(value: Any, what: str, limit: int = MAX_DEPTH) -> Any:
    """``value`` if its lists and tables nest at most ``limit`` deep."""
    if depth_of(value, limit) > limit:
        raise InvariantError(f"{what} nests lists or tables more than {limit} deep")
    return value


def kind_of_file(mode: int) -> str:
    """What a file is, in words, from its ``st_mode``: "a folder", "a FIFO (named pipe)" ..."""
    import stat

    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not an ordinary file"


def read_text(path: Any, what: str, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of an ordinary file of at most ``limit`` bytes. A folder, a FIFO, a device
    or a socket is refused at once (a FIFO is never waited on), and so is a bigger file; the
    problem is raised as :class:`InvariantError` in words (the caller names the file).
    :class:`OSError` and :class:`UnicodeDecodeError` are the caller's to word."""
    import os

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        kind = kind_of_file(st.st_mode)
        if kind != "a file":
            raise InvariantError(f"this is {kind}, not {what}")
        if st.st_size > limit:
            raise InvariantError(f"{what} of {st.st_size:,} bytes is too big (at most {limit:,})")
        chunks = []
        got = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            got += len(chunk)
            if got > limit:
                raise InvariantError(f"{what} is too big (at most {limit:,} bytes)")
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8")


def _show(value: Any) -> str:
    """A value in a message, cut short when it is long (a 4,300-digit number, a whole table)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        return (
            f"{value}"
            if value.bit_length() < 400
            else f"a number of {value.bit_length() * 0.30103:,.0f} digits"
        )
    s = repr(value)
    return s if len(s) <= 80 else s[:77] + "..."


__all__ = [
    "ACTION_COUNT",
    "COUNT",
    "DICE_PER_ROLL",
    "DISTANCE_IN",
    "FACING_DEG",
    "MAX_BRIGADES",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_JSON_BYTES",
    "MAX_LOG_TEXT",
    "MAX_LONG_TEXT",
    "MAX_POINTS",
    "MAX_TERRAIN",
    "MAX_TEXT",
    "MAX_UNITS",
    "POSITION_IN",
    "Range",
    "SEED",
    "STAFF_PIPS",
    "STANDS",
    "STANDS_START",
    "STRUCTURAL_HITS",
    "TABLE_IN",
    "TURN",
    "count",
    "depth_of",
    "kind_of_file",
    "read_text",
    "number",
    "shallow",
    "text",
    "whole",
]
