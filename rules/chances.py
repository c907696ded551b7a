"""What may happen, and how likely it is: the exact chances of a resolution, before any die rolls.

Fair play at the table: nothing on screen may show the program's dice before the umpire commits.
A dialog with "The program rolls" therefore does not resolve its choice with a copy of the game's
dice (that would show the faces the game rolls next, and let a side try a choice, see the dice and
pick another). It shows :func:`chances_of` the resolution instead: every way it can come out, with
its exact chance, and what holds whatever the dice (the modifiers, the numbers needed and the
rules). The game's dice roll only when the umpire commits, and nothing shown depends on their faces.

The chances are counted, not sampled. The resolution is run again for every way its dice can fall:
each roll is asked of a :class:`DiceSource` that, instead of rolling, stops the run and branches.
A roll of several dice is a pool counted against numbers (``compared_with``, see
:meth:`rules.dice.DiceSource.roll`): its faces are counted in classes (how many reach each number),
each class weighed by its exact chance, so a 5D6 volley hitting on 4+ with a natural 6 is 21
classes, not 7,776 faces. The runs that end alike are one outcome:

* alike is the same change to the table (units, brigades, terrain and the turn's records);
* an outcome is described by the lines of the log its runs all share, without the dice: "8th
  Georgia takes 2 unsaved hits: 1 stand lost", "The charge stalls ...";
* the lines every outcome shares, and the dice, with their modifiers and rules, are what is known
  before the roll (:attr:`Chances.known`, :attr:`Chances.rolls`).

>>> from rules.dice import DiceSource
>>> def check(dice: DiceSource):
...     roll = dice.roll_one("discipline check", compared_with=(4,))
...     return None, [Step("passed" if roll >= 4 else "failed, Disordered")]
>>> c = chances_of(check)
>>> [(str(o.chance), [s.text for s in o.lines]) for o in c.outcomes]
[('1/2', ['failed, Disordered']), ('1/2', ['passed'])]
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.battle.battle import Battle
from rules.battle.events import Step, diff
from rules.dice import FACES, DiceSource
from rules.errors import RulesError

#: No resolution here needs more runs than this; one that would is refused rather than left to hang.
MAX_RUNS = 20000

Run = Callable[[DiceSource], Any]


class _Branch(BaseException):
    """A run has come to a roll its script does not hold: branch there. Not a RulesError, so that
    nothing in the rules mistakes it for a refusal."""

    def __init__(self, n: int, purpose: str, compared_with: tuple[int, ...]):
        super().__init__(purpose)
        self.n, self.purpose, self.compared_with = n, purpose, compared_with


class _Scripted(DiceSource):
    """Dice that hand back the faces of a script, roll by roll, and branch where it ends."""

    def __init__(self, script: Sequence[tuple[int, ...]]):
        super().__init__()
        self._script = script
        self._i = 0

    def _faces(self, n: int, purpose: str) -> Sequence[int]:
        if self._i < len(self._script):
            faces = self._script[self._i]
            self._i += 1
            return faces
        raise _Branch(n, purpose, self.compared_with)


def face_classes(n: int, compared_with: Iterable[int] = ()) -> list[tuple[tuple[int, ...], Fraction]]:
    """The ways ``n`` dice can fall, counted by how many reach each of ``compared_with``: each as a
    representative set of faces and its exact chance. With nothing to compare, every face counts.

    >>> [(f, str(p)) for f, p in face_classes(2, (4,))]
    [((4, 4), '1/4'), ((1, 4), '1/2'), ((1, 1), '1/4')]
    >>> sum(p for _, p in face_classes(5, (4, 6, 7)))
    Fraction(1, 1)
    """
    cuts = sorted({int(c) for c in compared_with if 2 <= int(c) <= len(FACES)})
    if not cuts:
        cuts = list(FACES)[1:]
    edges = [FACES[0], *cuts, FACES[-1] + 1]
    bands = [(lo, hi) for lo, hi in zip(edges[:-1], edges[1:])]
    out: list[tuple[tuple[int, ...], Fraction]] = []
    for counts in _compositions(n, len(bands)):
        p = Fraction(math.factorial(n))
        faces: list[int] = []
        for c, (lo, hi) in zip(counts, bands):
            p = p / math.factorial(c) * Fraction(hi - lo, len(FACES)) ** c
            faces += [lo] * c
        out.append((tuple(faces), p))
    return out


def _compositions(n: int, k: int) -> Iterable[tuple[int, ...]]:
    """Every way to write ``n`` as ``k`` counts of 0 or more, in order."""
    for cuts in itertools.combinations(range(n + k - 1), k - 1):
        prev, out = -1, []
        for c in cuts:
            out.append(c - prev - 1)
            prev = c
        out.append(n + k - 2 - prev)
        yield tuple(out)


@dataclass(frozen=True)
class Outcome:
    """One way the resolution can come out: its exact chance and the lines of the log that say what
    it does (those its runs all share, without dice)."""

    chance: Fraction
    lines: tuple[Step, ...]

    @property
    def percent(self) -> float:
        return float(self.chance) * 100


@dataclass(frozen=True)
class Chances:
    """What may happen: the dice to be rolled (``rolls``: a line for each, with its modifiers and
    rule and no face), what happens whatever they show (``known``), and each outcome with its exact
    chance, the likeliest first. ``refused`` holds the refusals of the rules some dice lead to."""

    rolls: tuple[Step, ...]
    known: tuple[Step, ...]
    outcomes: tuple[Outcome, ...]
    runs: int = 0

    @property
    def total(self) -> Fraction:
        return sum((o.chance for o in self.outcomes), Fraction(0))

    @property
    def no_dice(self) -> bool:
        """Nothing is rolled: what happens is certain."""
        return not self.rolls

    def lines(self) -> list[str]:
        """The chances as plain lines of text (the command line, the tests)."""
        out = [f"Rolled: {s}" for s in self.rolls]
        out += [str(s) for s in self.known]
        for o in self.outcomes:
            what = "; ".join(str(s) for s in o.lines) or "as above"
            out.append(f"{percent_text(o.chance)}: {what}")
        return out


def percent_text(p: Fraction) -> str:
    """An exact chance as the umpire reads it: "50%", "2.8%", "under 0.1%", "certain"."""
    if p == 1:
        return "certain"
    v = float(p) * 100
    if 0 < v < 0.1:
        return "under 0.1%"
    text = f"{v:.1f}".rstrip("0").rstrip(".")
    return f"{text}%"


def _signature(before: Battle | None, after: Battle | None, steps: Sequence[Step]) -> str:
    if before is None or after is None:
        return json.dumps([s.text for s in steps if not s.dice])
    return json.dumps(diff(before, after).to_dict(), sort_keys=True, default=str)


def _plain(steps: Sequence[Step]) -> list[Step]:
    return [s for s in steps if not s.dice]


def _common(groups: Sequence[Sequence[Step]]) -> list[Step]:
    """The steps in every one of ``groups``, in the order of the first."""
    if not groups:
        return []
    rest = [set(g) for g in groups[1:]]
    return [s for s in dict.fromkeys(groups[0]) if all(s in r for r in rest)]


def _roll_lines(runs: Sequence[tuple[Sequence[Step], Sequence[Any]]]) -> list[Step]:
    """A line for each purpose the dice are rolled for, in the order first rolled: what the step
    says before its result (when that is the same in every run), how many dice, its modifiers and
    its rule. No face is shown."""
    order: list[str] = []
    counts: dict[str, set[int]] = {}
    seen_in: dict[str, int] = {}
    heads: dict[str, set[str]] = {}
    first: dict[str, Step] = {}
    for steps, rolls in runs:
        dice_steps = [s for s in steps if s.dice]
        purposes_here: set[str] = set()
        for r in rolls:
            if r.purpose not in counts:
                order.append(r.purpose)
                counts[r.purpose] = set()
                heads[r.purpose] = set()
            counts[r.purpose].add(len(r.dice))
            purposes_here.add(r.purpose)
            match = next((s for s in dice_steps if s.dice == r.dice), None)
            if match is not None:
                dice_steps.remove(match)
                head, sep, _ = match.text.rpartition(": ")
                heads[r.purpose].add(head if sep else "")
                first.setdefault(r.purpose, match)
        for p in purposes_here:
            seen_in[p] = seen_in.get(p, 0) + 1
    out: list[Step] = []
    for p in order:
        ns = sorted(counts[p])
        many = f"{ns[0]}D6" if len(ns) == 1 else f"{ns[0]} to {ns[-1]} dice"
        hs = heads[p]
        step = first.get(p)
        text = next(iter(hs)) if len(hs) == 1 and next(iter(hs)) else f"{many} for the {p}"
        if len(hs) == 1 and next(iter(hs)):
            text = f"{text} ({many} for the {p})" if many not in text else text
        if seen_in.get(p, 0) < len(runs):
            text += " — only in some outcomes"
        out.append(
            Step(
                text,
                rule=step.rule if step is not None else None,
                modifiers=step.modifiers if step is not None else (),
                units=step.units if step is not None else (),
            )
        )
    return out


def chances_of(run: Run, before: Battle | None = None) -> Chances:
    """The exact chances of ``run(dice)``, which resolves something with the dice it is given and
    returns ``(battle_after, steps)``, a :class:`rules.actions.Resolved`, or just the steps.

    ``before`` is the battle it starts from: outcomes are then told apart by what they change on the
    table; without it, by the lines of the log. A run the rules refuse for some dice is an outcome
    too ("refused: ...").
    """
    leaves: list[tuple[Fraction, Any, Sequence[Step], Sequence[Any]]] = []
    stack: list[tuple[tuple[tuple[int, ...], ...], Fraction]] = [((), Fraction(1))]
    runs = 0
    while stack:
        script, p = stack.pop()
        runs += 1
        if runs > MAX_RUNS:
            raise RulesError("too many ways for the dice to fall to count them all")
        dice = _Scripted(script)
        try:
            got = run(dice)
        except _Branch as b:
            for faces, q in reversed(face_classes(b.n, b.compared_with)):
                stack.append(((*script, faces), p * q))
            continue
        except RulesError as exc:
            leaves.append((p, None, [Step(f"refused: {exc}", rule=getattr(exc, "rule", None))], dice.rolls))
            continue
        after, steps = _split(got)
        leaves.append((p, after, list(steps), list(dice.rolls)))
    groups: dict[str, list[tuple[Fraction, Sequence[Step]]]] = {}
    for p, after, steps, _ in leaves:
        groups.setdefault(_signature(before, after, steps), []).append((p, steps))
    per_group = [
        (sum((p for p, _ in g), Fraction(0)), _common([_plain(s) for _, s in g])) for g in groups.values()
    ]
    known = _common([lines for _, lines in per_group]) if per_group else []
    outcomes = [Outcome(p, tuple(s for s in lines if s not in known)) for p, lines in per_group if p]
    outcomes.sort(key=lambda o: (-o.chance, [s.text for s in o.lines]))
    rolls = _roll_lines([(steps, rolls) for _, _, steps, rolls in leaves])
    return Chances(tuple(rolls), tuple(known), tuple(outcomes), runs)


def _split(got: Any) -> tuple[Battle | None, Sequence[Step]]:
    if isinstance(got, tuple) and len(got) == 2:
        return got[0], list(got[1])
    if hasattr(got, "battle_after") and hasattr(got, "steps"):
        return got.battle_after, list(got.steps)
    if hasattr(got, "battle") and hasattr(got, "steps"):
        return got.battle, list(got.steps)
    return None, list(got or ())
