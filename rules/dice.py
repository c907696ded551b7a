"""Dice: the program's own seeded dice, or the dice the umpire rolled at the table.

Every resolution asks a :class:`DiceSource` for dice and says what they are for. The source
keeps a record of each :class:`Roll`, so that any result can be explained in the log and
replayed exactly: replay uses :class:`RecordedDice`, which hands back the same faces and
refuses if the rolls asked for do not match the record.

>>> d = TableDice([3, 3, 5, 2, 6, 2])
>>> d.roll(5, "closing volley")
(3, 3, 5, 2, 6)
>>> d.roll(1, "discipline check")
(2,)
>>> [r.purpose for r in d.rolls]
['closing volley', 'discipline check']
"""

from __future__ import annotations

import hashlib
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rules import limits
from rules.errors import DiceError

FACES = range(1, 7)


@dataclass(frozen=True, slots=True)
class Roll:
    """Dice rolled for one purpose ("closing volley", "discipline check" ...)."""

    purpose: str
    dice: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"purpose": self.purpose, "dice": list(self.dice)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Roll:
        if not isinstance(d, dict) or not isinstance(d.get("purpose"), str):
            raise DiceError(f"a roll must be a table with its purpose and dice, not {limits._show(d)}")
        dice = d.get("dice")
        if isinstance(dice, list) and len(dice) > limits.DICE_PER_ROLL.hi:
            raise DiceError(f"a roll of {len(dice):,} dice is more than {limits.DICE_PER_ROLL.text()}")
        return cls(
            purpose=limits.text(d["purpose"], "the purpose of a roll", limits.MAX_LOG_TEXT),
            dice=check_faces(dice),
        )


def check_faces(values: Iterable[Any], expected: int | None = None, purpose: str = "") -> tuple[int, ...]:
    """Validate d6 faces: whole numbers 1 to 6, and exactly ``expected`` of them if given."""
    faces: list[int] = []
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise DiceError(f"the dice must be a list of faces 1 to 6, not {limits._show(values)}")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or v not in FACES:
            raise DiceError(f"{limits._show(v)} is not a face of a six-sided die (1 to 6)")
        faces.append(v)
    if expected is not None and len(faces) != expected:
        what = f" for the {purpose}" if purpose else ""
        raise DiceError(
            f"{expected} {'die is' if expected == 1 else 'dice are'} needed{what}, {len(faces)} given"
        )
    return tuple(faces)


def parse_dice(text: str, expected: int | None = None, purpose: str = "") -> tuple[int, ...]:
    """Read dice typed by the umpire: "3 3 5 2 6", "3,3,5,2,6", "[3, 3, 5, 2, 6]" or "33526".

    >>> parse_dice("3, 3, 5 2 6", expected=5)
    (3, 3, 5, 2, 6)
    >>> parse_dice("01 1")
    Traceback (most recent call last):
    rules.errors.DiceError: '01' is not a die face; type the dice as numbers 1 to 6
    """
    if not isinstance(text, str):
        raise DiceError(f'the dice must be typed as text, like "3 3 5 2 6", not {text!r}')
    cleaned = text.strip().strip("[]()")
    if not cleaned:
        if expected:
            return check_faces([], expected, purpose)
        return ()
    tokens = [t for t in re.split(r"[\s,;]+", cleaned) if t]
    if len(tokens) == 1 and len(tokens[0]) > 1 and tokens[0].isdigit():
        tokens = list(tokens[0])
    values: list[int] = []
    for t in tokens:
        if not re.fullmatch(r"[0-9]+", t):
            raise DiceError(f"'{t}' is not a die face; type the dice as numbers 1 to 6")
        if len(t) > 6:  # no die has such a face, and a very long number cannot even be read
            raise DiceError(f"'{t[:6]}...' is not a die face; type the dice as numbers 1 to 6")
        if len(t) > 1 and t.startswith("0"):  # "01" is no face: a die shows one digit, 1 to 6
            raise DiceError(f"'{t}' is not a die face; type the dice as numbers 1 to 6")
        values.append(int(t))
    return check_faces(values, expected, purpose)


class DiceSource(ABC):
    """Where dice come from. Subclasses give the faces; this class records every roll."""

    def __init__(self) -> None:
        self.rolls: list[Roll] = []
        self.compared_with: tuple[int, ...] = ()

    def roll(self, n: int, purpose: str, *, compared_with: Iterable[int] = ()) -> tuple[int, ...]:
        """Roll ``n`` dice for ``purpose``.

        ``compared_with`` are the numbers the caller compares each die with (a die "needing 4+" is
        compared with 4; one that disorders "on a natural 6" with 6 and 7): a face then matters
        only by which of them it reaches. The dice that roll ignore it; the exact chances of
        :mod:`rules.chances` count the faces by it instead of one by one. A roll of several dice is
        counted, never read in order: every such roll in Brigadier is a pool counted against a
        number.
        """
        if isinstance(n, bool) or not isinstance(n, int) or n not in limits.DICE_PER_ROLL:
            raise DiceError(
                f"cannot roll {limits._show(n)} dice (one roll is {limits.DICE_PER_ROLL.text()} dice)"
            )
        self.compared_with = tuple(compared_with)
        dice = check_faces(self._faces(n, purpose), n, purpose) if n else ()
        self.rolls.append(Roll(purpose, dice))
        return dice

    def roll_one(self, purpose: str, *, compared_with: Iterable[int] = ()) -> int:
        return self.roll(1, purpose, compared_with=compared_with)[0]

    @abstractmethod
    def _faces(self, n: int, purpose: str) -> Sequence[int]:
        """``n`` faces for ``purpose``; the source decides where they come from."""


class SeededDice(DiceSource):
    """The program's dice: reproducible from the game's seed and the number of dice drawn so far.

    The state is just ``(seed, drawn)``, which the save keeps, so a reopened game rolls on
    exactly as it would have.
    """

    def __init__(self, seed: int | str, drawn: int = 0):
        super().__init__()
        self.seed = seed
        self.drawn = drawn

    def _next(self) -> int:
        digest = hashlib.blake2b(f"{self.seed}:{self.drawn}".encode(), digest_size=8).digest()
        self.drawn += 1
        # rejection sampling keeps the six faces exactly equally likely
        value = int.from_bytes(digest, "big")
        limit = (1 << 64) - ((1 << 64) % 6)
        while value >= limit:  # pragma: no cover - happens with probability < 1e-18
            digest = hashlib.blake2b(digest, digest_size=8).digest()
            value = int.from_bytes(digest, "big")
        return value % 6 + 1

    def _faces(self, n: int, purpose: str) -> Sequence[int]:
        return [self._next() for _ in range(n)]


class TableDice(DiceSource):
    """Dice rolled at the table and typed in by the umpire, used in the order they were typed.

    Asking for more dice than were typed raises :class:`DiceError` naming what they were for,
    so a dialog can ask the umpire for the rest.
    """

    def __init__(self, faces: Iterable[int] = ()):
        super().__init__()
        self._queue = list(check_faces(faces))

    def add(self, faces: Iterable[int]) -> None:
        self._queue.extend(check_faces(faces))

    @property
    def remaining(self) -> tuple[int, ...]:
        return tuple(self._queue)

    def _faces(self, n: int, purpose: str) -> Sequence[int]:
        if len(self._queue) < n:
            raise DiceError(
                f"the {purpose} needs {n} {'die' if n == 1 else 'dice'}; "
                f"{len(self._queue)} {'is' if len(self._queue) == 1 else 'are'} left of those typed in"
            )
        faces, self._queue = self._queue[:n], self._queue[n:]
        return faces


class RecordedDice(DiceSource):
    """Replays recorded rolls exactly; any difference from the record is an error."""

    def __init__(self, rolls: Iterable[Roll]):
        super().__init__()
        self._record = list(rolls)
        self._i = 0

    def _faces(self, n: int, purpose: str) -> Sequence[int]:
        if self._i >= len(self._record):
            raise DiceError(f"the record has no roll left for the {purpose}")
        r = self._record[self._i]
        if len(r.dice) != n or r.purpose != purpose:
            raise DiceError(
                f"the record holds {len(r.dice)} dice for the {r.purpose}, but {n} were asked for the {purpose}"
            )
        self._i += 1
        return r.dice

    @property
    def exhausted(self) -> bool:
        return self._i == len(self._record)
