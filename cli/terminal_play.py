"""The command line's side of the procedure of play: the defending side's answers at each Trigger
Window of a ``move`` or a ``charge``, without Qt.

Answers come from one of three places, as the umpire chooses:

* given up front: ``--react wis2=opportunity_fire`` (a defender named takes that reaction at the
  first window of the move where it is open to it, and answers "No reaction" at the windows before;
  ``wis2=opportunity_fire@forward_arc_short`` waits for the window of that trigger, here the
  target coming on into short range; ``wis2=none`` declines every window), with the umpire's
  inputs after a colon (``--react ga8=evade:withdraw_in=5``, ``wis2=counter_charge:surge_in=3``);
* ``--no-reactions``: every window not answered up front is declined (and logged as declined);
* asked on a terminal, as the dialog asks: a numbered list of each defender's reactions, with the
  reasons for those it may not take, the umpire's inputs with a reaction as
  :mod:`rules.reactions.inputs` defines them (how far an Evade withdraws ...), then the dice rolled
  at the table (Enter: the program's dice).

A placement where the unit would march (``move --place`` in its side's Phase 2) needs the umpire's
reason, as the window asks for it: ``--reason`` gives it up front, or it is asked on a terminal.

With no terminal and no answer for a window that opens, nothing is saved, and the message lists
the windows that would open (each with its defenders and the reactions open to them), so that the
command can be given again with its answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from rules.battle.words import plural
from rules.describe import defender_menu, inches
from rules.dice import parse_dice
from rules.errors import DiceError, IllegalAction, RulesError
from rules.procedure import Answer, Choice, Interruption, PlayStep, Procedure, ReasonAsked
from rules.reactions import inputs as reaction_inputs
from rules.reactions.declare import Reaction
from rules.reactions.triggers import Trigger


class NoAnswer(RulesError):
    """A window opened that nobody answered: nothing is saved."""


@dataclass
class Given:
    """One ``--react DEFENDER=REACTION[:KEY=VALUE,...]``: the reaction (None: "No reaction") and inputs."""

    defender: str
    reaction: Reaction | None
    inputs: dict[str, Any] = field(default_factory=dict)
    trigger: Trigger | None = None
    used: bool = False
    why_not: list[str] = field(default_factory=list)  # why it was not open at the windows passed


def parse_react(texts: Sequence[str]) -> dict[str, Given]:
    """Read the ``--react`` answers; a malformed one raises :class:`IllegalAction` saying how to write it."""
    out: dict[str, Given] = {}
    for text in texts:
        head, _, rest = text.partition(":")
        who, eq, what = head.partition("=")
        who, what = who.strip(), what.strip()
        if not eq or not who or not what:
            raise IllegalAction(f"--react {text!r}: write DEFENDER=REACTION, like wis2=opportunity_fire")
        if who in out:
            raise IllegalAction(f"--react names {who} twice: a defender reacts once to a move (RULE-04-1.4)")
        what, _, at = what.partition("@")
        reaction = None if what.lower() in ("none", "no", "no_reaction") else Reaction.parse(what.strip())
        trigger = None
        if at.strip():
            try:
                trigger = Trigger(at.strip().lower())
            except ValueError:
                names = ", ".join(t.value for t in Trigger)
                raise IllegalAction(
                    f"--react {text!r}: {at.strip()!r} is not a trigger; they are {names}"
                ) from None
        inputs: dict[str, Any] = {}
        takes = [i.key for i in reaction_inputs.inputs_of(reaction)] if reaction is not None else []
        for item in filter(None, (p.strip() for p in rest.split(","))):
            k, eq, v = item.partition("=")
            if not eq:
                raise IllegalAction(f"--react {text!r}: the inputs are KEY=VALUE, like withdraw_in=5")
            if k.strip() not in takes:
                what = reaction.title if reaction is not None else "No reaction"
                given = f"; it takes {', '.join(takes)}" if takes else ""
                raise IllegalAction(f"--react {text!r}: {what} takes no input {k.strip()!r}{given}")
            inputs[k.strip()] = _input_value(v.strip())
        out[who] = Given(who, reaction, inputs, trigger)
    return out


def _input_value(v: str) -> Any:
    if v.lower() in ("true", "yes"):
        return True
    if v.lower() in ("false", "no"):
        return False
    try:
        return float(v)
    except ValueError:
        raise IllegalAction(f"{v!r} is not a number or yes/no") from None


def window_heading(inter: Interruption) -> str:
    """The window, the unit whose move opened it, where, and (in a group) which unit of how many."""
    b = inter.battle
    w = inter.window
    mover = b.unit(inter.mover).name
    where = f"({w.point[0]:.1f}, {w.point[1]:.1f})"
    group = f" [unit {inter.position} of {len(inter.order)}]" if len(inter.order) > 1 else ""
    return f"{w.window.label}: {mover} at {where}, {inches(w.along_in)} along its move{group}"


def describe_window(inter: Interruption, tables: Any) -> list[str]:
    """A window as the terminal shows it: the heading, then each defender's numbered list."""
    lines = [window_heading(inter)]
    for d in inter.defenders:
        menu, _ = defender_menu(inter.battle, d, tables)
        lines += ["  " + m for m in menu]
    return lines


@dataclass
class Answers:
    """Where a command's answers come from (see the module's docstring)."""

    given: dict[str, Given]
    decline_rest: bool = False
    ask: bool = False
    dice: tuple[int, ...] | None = None
    stdin: TextIO | None = None
    out: Callable[[str], None] = print
    prompt: Callable[[str], None] = field(default=lambda text: print(text, end="", flush=True))

    @classmethod
    def from_args(
        cls, react: Sequence[str], no_reactions: bool, ask: bool, dice: str | None, stdin: TextIO | None
    ) -> Answers:
        """The answers a command was given: ``--react``, ``--no-reactions``, ``--ask`` (or a
        terminal on standard input) and ``--dice``."""
        faces = parse_dice(dice) if dice is not None else None
        asking = bool(ask or (stdin is not None and stdin.isatty()))
        return cls(parse_react(react or ()), no_reactions, asking, faces, stdin)

    # -- choosing -----------------------------------------------------------------------------
    def _given_choice(self, inter: Interruption, d: Any) -> Choice | None:
        g = self.given.get(d.defender)
        if g is None or g.used:
            return None
        if g.reaction is None:
            return Choice(d.defender, None)
        opt = next((o for o in d.options if o.reaction == g.reaction), None)
        open_here = opt is not None and opt.eligible
        if g.trigger is not None and d.trigger != g.trigger:
            open_here = False
            g.why_not.append(f"at the {d.trigger.value} window it waits for {g.trigger.value}")
        elif opt is None:
            g.why_not.append(f"{g.reaction.title} is no reaction of {inter.kind.label}")
        elif not opt.eligible:
            g.why_not.append("; ".join(str(r) for r in opt.reasons))
        if not open_here:
            return Choice(d.defender, None)  # not open at this window: it waits for the one where it is
        g.used = True
        return Choice(d.defender, g.reaction, g.inputs)

    def choices(self, proc: Procedure) -> tuple[Choice, ...] | None:
        """A choice for each defender asked at the pending window; None: the window went unanswered."""
        inter = proc.pending
        assert inter is not None
        out = []
        for d in inter.defenders:
            c = self._given_choice(inter, d)
            if c is None and self.decline_rest:
                c = Choice(d.defender, None)
            if c is None and self.ask:
                c = self._prompt_choice(inter, d, proc)
            if c is None:
                return None
            out.append(c)
        return tuple(out)

    # -- asking on a terminal -------------------------------------------------------------------
    def _line(self, prompt: str) -> str:
        self.prompt(prompt)
        line = self.stdin.readline() if self.stdin is not None else ""
        if not line:
            raise NoAnswer("the answers ran out before the last window; nothing was saved")
        return line.strip()

    def _prompt_choice(self, inter: Interruption, d: Any, proc: Procedure) -> Choice:
        menu, reactions = defender_menu(inter.battle, d, proc.tables)
        for line in menu:
            self.out("  " + line)
        name = inter.battle.unit(d.defender).name
        while True:
            text = self._line(f"  Choice for {name} [0-{len(reactions) - 1}, Enter: 0]: ")
            if text == "":
                return Choice(d.defender, None)
            if text.isdigit() and int(text) < len(reactions):
                reaction = reactions[int(text)]
                break
            self.out(f"  Type a number from 0 to {len(reactions) - 1}.")
        if reaction is None:
            return Choice(d.defender, None)
        opt = d.option(reaction)
        wanted = reaction_inputs.input_of(opt, inter.extras)
        if wanted is None:
            return Choice(d.defender, reaction)
        return Choice(d.defender, reaction, {wanted.key: self._prompt_input(wanted, proc.tables)})

    def _prompt_input(self, wanted: reaction_inputs.ReactionInput, tables: Any) -> float | bool:
        """Ask for the umpire's input with a reaction (:mod:`rules.reactions.inputs`), as the
        dialog asks for it: a distance within its bounds, or yes or no."""
        default = wanted.default(tables)
        if not wanted.is_distance:
            while True:
                yes = "Y/n" if default else "y/N"
                text = self._line(f"  {wanted.label}? [{yes}]: ").lower()
                if text in ("", "y", "yes", "n", "no"):
                    return bool(default) if text == "" else text.startswith("y")
                self.out("  Type y or n.")
        lo, hi = wanted.bounds(tables)
        while True:
            text = self._line(f'  {wanted.label} ({lo:g}" to {hi:g}", Enter: {default:g}"): ')
            try:
                value = float(default) if text == "" else float(text.rstrip('"'))
            except ValueError:
                value = None
            if value is not None and lo <= value <= hi:
                return value
            self.out(f'  Type a distance from {lo:g}" to {hi:g}".')

    def reason(self, asked: ReasonAsked) -> str:
        """The umpire's reason for a placement where the units would march (``--reason`` gives it
        up front): asked on a terminal; otherwise, or given none, the placement is not made."""
        if self.ask:
            text = self._line(f"Reason for {asked.what}: ")
            if text:
                return text
        what = asked.what[:1].upper() + asked.what[1:]
        raise NoAnswer(
            f"{what} sets the movement rules aside: the umpire's reason is needed for the log; give it "
            'with --reason "..."; nothing was saved'
        )

    # -- answering with dice ---------------------------------------------------------------------
    def answer(self, proc: Procedure, choices: tuple[Choice, ...]) -> None:
        """Give the choices with their dice: the program's, the ``--dice`` typed up front (as many
        of them as this window rolls), or those typed at the prompt."""
        reacting = any(c.reaction is not None for c in choices)
        if self.dice is not None:
            self._answer_from_pool(proc, choices)
            return
        if not (self.ask and reacting):
            proc.answer(Answer(choices))
            return
        while True:
            text = self._line("  Dice rolled at the table, in order (Enter: the program's dice): ")
            try:
                dice = parse_dice(text) if text else None
                proc.answer(Answer(choices, dice))
                return
            except (DiceError, RulesError) as exc:
                self.out(f"  {exc}")

    def _answer_from_pool(self, proc: Procedure, choices: tuple[Choice, ...]) -> None:
        pool = self.dice or ()
        last: Exception | None = None
        for k in range(len(pool) + 1):
            try:
                proc.answer(Answer(choices, pool[:k]))
            except DiceError as exc:
                last = exc
                continue
            self.dice = pool[k:]
            return
        raise DiceError(f"too few dice were typed: {last}; nothing was saved")


def play(proc: Procedure, answers: Answers) -> PlayStep:
    """Answer every window of ``proc``; returns its step. A window nobody answered raises
    :class:`NoAnswer` listing that window and those that would follow it (each answered "No
    reaction" to find them), and nothing is saved. On a terminal, answers that run out after the
    program's dice have rolled for an earlier window stop the move there: what the dice decided
    stands (:meth:`rules.procedure.Procedure.kept`), and its step is returned."""
    missed: list[list[str]] = []
    example = "wis2=opportunity_fire"
    while proc.pending is not None:
        if isinstance(proc.pending, ReasonAsked):  # a placement where the units would march
            proc.answer(answers.reason(proc.pending))
            continue
        if answers.ask and not missed:
            answers.out(window_heading(proc.pending))
        try:
            choices = None if missed else answers.choices(proc)
            if choices is not None:
                answers.answer(proc, choices)
                continue
        except NoAnswer:
            kept = proc.kept() if answers.ask else None
            if kept is None:
                raise
            return kept
        if not missed:
            d = next((d for d in proc.pending.defenders if d.eligible), proc.pending.defenders[0])
            if d.eligible:
                example = f"{d.defender}={d.eligible[0].reaction.value}"
        missed.append(describe_window(proc.pending, proc.tables))
        proc.answer(Answer.declined(proc.pending))
    if missed:
        lines = [f"{plural(len(missed), 'window opens', 'windows open')} with no answer; nothing was saved."]
        for m in missed:
            lines += m
        lines.append(
            f"Answer each with --react DEFENDER=REACTION (e.g. --react {example}), decline them "
            "all with --no-reactions, or run the command on a terminal to be asked."
        )
        raise NoAnswer("\n".join(lines))
    unused = [g for g in answers.given.values() if g.reaction is not None and not g.used]
    if unused:
        lines = []
        for g in unused:
            why = "; ".join(dict.fromkeys(g.why_not)) or "it was not asked at any window of this move"
            lines.append(f"--react {g.defender}={g.reaction.value} was never open to it: {why}")
        raise NoAnswer("\n".join(lines) + "\nNothing was saved.")
    if answers.dice:
        raise DiceError(
            f"{plural(len(answers.dice), 'die was', 'dice were')} typed beyond what the windows roll; nothing was saved"
        )
    assert proc.result is not None
    return proc.result
