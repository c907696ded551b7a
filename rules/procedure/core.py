"""The pieces of a procedure of play: the answers, the step, the interruption and the stepper
(see :mod:`rules.procedure`)."""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rules.action_base import Action, resolve
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.words import plural
from rules.chances import Chances, chances_of
from rules.dice import DiceSource, SeededDice, TableDice, check_faces
from rules.errors import DiceError, IllegalAction, RulesError
from rules.reactions.declare import DeclareReaction, DeclineReaction, Reaction, Window
from rules.reactions.triggers import DefenderChoice, TriggerWindow
from rules.tables import RuleTables

# -- answers --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """One defender's answer at a window: a reaction (None: no reaction) and the umpire's inputs
    (``withdraw_in`` for an Evade, ``surge_in`` for a Counter-Charge ...)."""

    defender: str
    reaction: Reaction | None
    inputs: Mapping[str, Any] = field(default_factory=dict)
    from_table: bool = False  # the side's answer sent from a player's device, taken by the umpire

    def __post_init__(self) -> None:
        if self.reaction is not None:
            object.__setattr__(self, "reaction", Reaction.parse(self.reaction))
        object.__setattr__(self, "inputs", dict(self.inputs))


@dataclass(frozen=True)
class Answer:
    """The defending side's answer at an interruption: one :class:`Choice` for each defender asked,
    and the dice rolled at the table for them, in order (None: the program's dice roll)."""

    choices: tuple[Choice, ...]
    dice: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "choices", tuple(self.choices))
        if self.dice is not None:
            object.__setattr__(self, "dice", check_faces(self.dice))

    @classmethod
    def declined(cls, interruption: Interruption) -> Answer:
        """Every defender asked answers "No reaction"."""
        return cls(tuple(Choice(d.defender, None) for d in interruption.window.defenders))

    def source(self) -> DiceSource | None:
        return None if self.dice is None else TableDice(self.dice)


# -- the actions an answer makes -----------------------------------------------------------------


def reaction_action(
    battle: Battle, offered: DefenderChoice, choice: Choice, tables: RuleTables
) -> DeclareReaction:
    """The :class:`DeclareReaction` for a choice, with the table's cover and clear view for a volley."""
    inputs = dict(choice.inputs)
    if choice.reaction in (Reaction.CLOSING_VOLLEY, Reaction.OPPORTUNITY_FIRE):
        from rules.shooting.shoot import fire_inputs

        threat = offered.threat_for(choice.reaction)
        fi = fire_inputs(battle, threat.defender, threat.attacker, tables)
        inputs.setdefault("cover", fi["cover"].value)
        inputs.setdefault("fence_cover", fi["fence_cover"])
        inputs.setdefault("clear_stands", fi["clear_stands"])
    return DeclareReaction.of(
        choice.reaction, offered.threat_for(choice.reaction), from_table=choice.from_table, **inputs
    )


def decline_action(offered: DefenderChoice, from_table: bool = False) -> DeclineReaction:
    """The :class:`DeclineReaction` of a defender answering "No reaction": the window, who declined,
    and the reactions it passed up (those the window offered it)."""
    return DeclineReaction.of(offered.threat, tuple(o.reaction for o in offered.eligible), from_table)


def answer_action(
    battle: Battle, offered: DefenderChoice, choice: Choice, tables: RuleTables
) -> DeclareReaction | DeclineReaction:
    """The action a defender's answer at a window makes: its reaction, or the record that it took none."""
    if choice.reaction is None:
        return decline_action(offered, choice.from_table)
    return reaction_action(battle, offered, choice, tables)


# -- the step --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Planned:
    """One action of a step, with the dice typed at the table for it (None: the game's own dice).

    ``outcome`` is what the procedure worked out of it (its :class:`~rules.action_base.Resolved`),
    from the battle ``before``: the step is committed with it, not resolved again
    (:meth:`storage.game.Game.do_step`), when the game stands where the procedure left it."""

    action: Action
    dice: tuple[int, ...] | None = None
    outcome: Any = field(default=None, compare=False, repr=False)
    before: Battle | None = field(default=None, compare=False, repr=False)

    def source(self) -> DiceSource | None:
        return None if self.dice is None else TableDice(self.dice)


@dataclass(frozen=True)
class PlayStep:
    """What a procedure comes to: the actions to commit as one journal step, the battle after them,
    and what the umpire is told (``refused``: units of a group left out, and why)."""

    label: str
    actions: tuple[Planned, ...]
    battle: Battle
    steps: tuple[Step, ...] = ()
    refused: tuple[str, ...] = ()
    # a request stopped part way after the program's dice rolled: what was rolled stands, and why
    stopped: str = ""

    @property
    def empty(self) -> bool:
        return not self.actions


Preview = Callable[[Sequence[Choice], DiceSource], list[Step]]
#: what the choices at a window do with the given dice: the battle after them and the log's lines
Resolution = Callable[[Sequence[Choice], DiceSource], tuple[Battle, list[Step]]]


@dataclass(frozen=True)
class Interruption:
    """Where a procedure waits for the defending side: the window (its point, and each defender
    with every reaction, eligible or with the reasons it is not), the battle as it stands there,
    the unit whose march or charge opened it, the umpire's inputs the window takes (``extras``),
    and, in a group march, which unit of how many is marching (``position``, ``order``).

    What an answer would do is asked in two ways, and neither touches the program's dice:
    :meth:`chances` gives every way it can come out with its exact chance (what a dialog shows
    while the program is to roll), and :meth:`preview` resolves it with the dice typed at the
    table (rolled in the open), to check them and show their result."""

    window: TriggerWindow
    battle: Battle
    mover: str
    label: str
    extras: tuple[str, ...] | None = None
    position: int = 1
    order: tuple[str, ...] = ()
    resolution: Resolution | None = field(default=None, compare=False, repr=False)
    _consequence: Callable[[Answer, SeededDice], list[tuple[Planned, Any]]] | None = field(
        default=None, compare=False, repr=False
    )

    def preview(self, choices: Sequence[Choice], dice: DiceSource) -> list[Step]:
        """The log's lines of the choices resolved with ``dice``: the dice typed at the table."""
        if self.resolution is None:
            return []
        return list(self.resolution(choices, dice)[1])

    def chances(self, choices: Sequence[Choice]) -> Chances:
        """What the choices may do, each outcome with its exact chance, and what holds whatever the
        dice: nothing here depends on the faces the program will roll (:mod:`rules.chances`)."""
        if self.resolution is None:
            return Chances((), (), ())
        choices = list(choices)
        return chances_of(lambda d: self.resolution(choices, d), self.battle)

    @property
    def kind(self) -> Window:
        return self.window.window

    @property
    def defenders(self) -> tuple[DefenderChoice, ...]:
        return self.window.defenders

    def offered(self, defender: str) -> DefenderChoice:
        for d in self.window.defenders:
            if d.defender == defender:
                return d
        raise IllegalAction(
            f"{self.battle.unit(defender).name if defender in self.battle.units else defender!r} "
            f"is not asked at this window"
        )


@dataclass(frozen=True)
class ReasonAsked:
    """Where a placement waits for the umpire's reason: units put by hand outside the movement rules
    where they would march, in their side's Phase 2 (``what`` says so, for the question). The
    answer is the reason, words for the log (a ``str``, not empty); no answer (the umpire
    cancelled) writes nothing."""

    units: tuple[str, ...]
    battle: Battle
    what: str
    label: str = "the umpire's reason"


class Cancelled(RulesError):
    """The umpire took the request back at a window: nothing is written."""


# -- the stepper ----------------------------------------------------------------------------------


class Procedure:
    """A request under way: :attr:`pending` is the interruption waiting for an answer (None when
    the request is done, then :attr:`result` is the step). :meth:`answer` gives the answer; an
    answer the rules refuse (a reaction the defender may not take, dice that do not fit) raises
    :class:`RulesError` and leaves the procedure where it was, so it can be asked again."""

    def __init__(self, battle: Battle, tables: RuleTables, dice: SeededDice, label: str):
        self.tables = tables
        self.battle = battle
        self.label = label
        self._dice = SeededDice(dice.seed, dice.drawn)
        self._first_die = dice.drawn
        self._planned: list[Planned] = []
        self._steps: list[Step] = []
        self._refused: list[str] = []
        self._settled: tuple[int, int, Battle] = (0, 0, battle)
        self._gen: Generator[Interruption | ReasonAsked, Any, None] | None = None
        self.pending: Interruption | ReasonAsked | None = None
        self.result: PlayStep | None = None
        # the names of the units that march, in the order they march (none: a placement, a charge)
        self.marching: tuple[str, ...] = ()

    # the generator of a request runs here ----------------------------------------------------
    def _start(self, gen: Generator[Interruption | ReasonAsked, Any, None]) -> Procedure:
        self._gen = gen
        self._advance(None)
        return self

    def _advance(self, value: Any) -> None:
        assert self._gen is not None
        try:
            self.pending = self._gen.send(value) if value is not None else next(self._gen)
        except StopIteration:
            self.pending = None
            self.result = PlayStep(
                self.label, tuple(self._planned), self.battle, tuple(self._steps), tuple(self._refused)
            )

    def do(self, action: Action, dice: tuple[int, ...] | None = None) -> Any:
        """Resolve ``action`` on the battle as it stands and add it to the step."""
        source: DiceSource = self._dice if dice is None else TableDice(dice)
        before = self._dice.drawn
        res = resolve(self.battle, action, source, self.tables)
        self._add(Planned(action, dice), res)
        if self._dice.drawn != before:
            self._settle()  # the program's dice have rolled for it: it stands (see kept)
        return res

    def _settle(self) -> None:
        self._settled = (len(self._planned), len(self._steps), self.battle)

    def _add(self, planned: Planned, res: Any) -> None:
        self._planned.append(replace(planned, outcome=res, before=self.battle))
        self._steps.extend(res.steps)
        self.battle = res.battle_after

    @property
    def done(self) -> bool:
        return self.pending is None

    @property
    def dice_rolled(self) -> int:
        """How many of the program's dice the procedure has rolled (their faces are its own)."""
        return self._dice.drawn - self._first_die

    def kept(self) -> PlayStep | None:
        """What stands of a request stopped part way (the umpire cancelled at a window).

        An answer at a window is the umpire's commit for that window. Once the program's dice have
        rolled for one (or for the march up to one), their faces have been seen, in the result and
        on the table; cancelling then and trying again would roll the same faces (the game's dice
        are seeded), so a side could see the dice and choose again. So a request stopped after the
        program's dice rolled keeps everything up to the last window answered (or the last action
        the dice rolled for): the step to commit, with :attr:`PlayStep.stopped` saying so; the
        march ends there and may go on with a new one. A request stopped before any of the
        program's dice rolled keeps nothing: None, and nothing is written, as before."""
        if self.dice_rolled == 0:
            return None
        n, m, battle = self._settled
        where = self.pending.label if self.pending is not None else "the end"
        return PlayStep(
            self.label,
            tuple(self._planned[:n]),
            battle,
            tuple(self._steps[:m]),
            tuple(self._refused),
            stopped=(
                f"{self.label} stopped at {where}: the program's dice had rolled for what went before, "
                "and that stands (Undo takes it back)"
            ),
        )

    def answer(self, answer: Answer | str) -> Interruption | ReasonAsked | None:
        """Answer the pending interruption (a window's :class:`Answer`, or the reason a
        :class:`ReasonAsked` asks for); returns the next one (None: done, see :attr:`result`)."""
        inter = self.pending
        if inter is None:
            raise IllegalAction("there is no window waiting for an answer")
        if isinstance(inter, ReasonAsked):
            reason = answer.strip() if isinstance(answer, str) else ""
            if not reason:
                raise IllegalAction(f"{inter.what} needs the umpire's reason, for the log")
            self._advance(reason)
            return self.pending
        if not isinstance(answer, Answer):
            raise IllegalAction(f"{inter.label} is answered with each defender's choice, not {answer!r}")
        self._check_choices(inter, answer)
        trial = SeededDice(self._dice.seed, self._dice.drawn)
        done = inter._consequence(answer, trial) if inter._consequence is not None else []
        self._dice.drawn = trial.drawn
        for planned, res in done:
            self._add(planned, res)
        self._settle()  # the window is answered: the umpire's commit for it
        self._advance((answer, done))
        return self.pending

    def _check_choices(self, inter: Interruption, answer: Answer) -> None:
        asked = [d.defender for d in inter.window.defenders]
        given = [c.defender for c in answer.choices]
        names = inter.battle.units
        if sorted(given) != sorted(asked) or len(set(given)) != len(given):
            want = ", ".join(names[u].name if u in names else u for u in asked)
            raise IllegalAction(f"the answer at this window needs one choice for each of: {want}")
        for c in answer.choices:
            if c.reaction is None:
                continue
            opt = inter.offered(c.defender).option(c.reaction)
            if not opt.eligible:
                why = "; ".join(str(r) for r in opt.reasons)
                raise IllegalAction(f"{names[c.defender].name} may not take {c.reaction.title}: {why}")

    def run(self, ask: Callable[[Interruption | ReasonAsked], Answer | str | None]) -> PlayStep:
        """Answer every interruption with ``ask``. None from it: the umpire cancelled; what the
        program's dice have already decided stands and is returned (:meth:`kept`), or, if they have
        not rolled, :class:`Cancelled` is raised: nothing is to be written."""
        while self.pending is not None:
            ans = ask(self.pending)
            if ans is None:
                kept = self.kept()
                if kept is not None:
                    return kept
                raise Cancelled(f"{self.label}: cancelled at {self.pending.label}; nothing was done")
            self.answer(ans)
        assert self.result is not None
        return self.result


def _typed_faces(res: Any) -> tuple[int, ...]:
    return tuple(d for r in res.rolls for d in r.dice)


def _leftover(source: DiceSource | None, used: int) -> None:
    if isinstance(source, TableDice) and source.remaining:
        left = len(source.remaining)
        raise DiceError(
            f"{plural(used + left, 'die was', 'dice were')} typed but this answer rolls {used}; nothing was done"
        )
