"""The procedure of play: a march, a group march or a charge carried through its Trigger Windows.

A procedure is a pure stepper. It is given the battle and a request, and it stops at each
interruption the rules make, a Trigger Window A along a march (RULE-04-1.2) or Window B at a
charge's 4.0" line (RULE-06-2.1), with the defenders, every reaction of the window, the reasons
for those they may not take and their rules. It takes the defending side's answer and goes on,
until the request is done. What it returns is one **step**: the actions to commit, in order, each
with the dice typed at the table for it (or none: the game's own dice). ``storage`` commits a step
in one transaction as one journal step, which is one Undo; a procedure abandoned part way (the
umpire cancelled a dialog) writes nothing.

The window asks the defender with a dialog, the command line with a prompt or the answers given
up front, a test with a list: all of them drive the same procedure, so the same answers give the
same journal.

>>> from storage.scenario import load_demo  # doctest: +SKIP
>>> p = march(battle, tables, SeededDice(seed, drawn), "va4", 34, 22)      # doctest: +SKIP
>>> while p.pending is not None:                                            # doctest: +SKIP
...     p.answer(Answer.declined(p.pending))
>>> p.result.actions                                                        # doctest: +SKIP

The program's dice are a copy of the game's (``SeededDice(seed, drawn)``): the procedure rolls
them in the order the game will, so the step commits to exactly what the umpire was shown.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rules.actions import MARCH, PLACE, Action, MoveUnit, march_refusal, plan_march, resolve
from rules.battle import Battle
from rules.dice import DiceSource, SeededDice, TableDice, check_faces
from rules.errors import DiceError, IllegalAction, RulesError
from rules.events import Step
from rules.model import Phase, plural
from rules.reactions import DeclareReaction, DeclineReaction, Reaction, Window
from rules.tables import RuleTables
from rules.triggers import DefenderChoice, Trigger, TriggerWindow, defender_choice, find_windows

XY = tuple[float, float]
EPS = 1e-6


# -- answers --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """One defender's answer at a window: a reaction (None: no reaction) and the umpire's inputs
    (``withdraw_in`` for an Evade, ``surge_in`` for a Counter-Charge ...)."""

    defender: str
    reaction: Reaction | None
    inputs: Mapping[str, Any] = field(default_factory=dict)

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
        from rules.shooting import fire_inputs

        threat = offered.threat
        fi = fire_inputs(battle, threat.defender, threat.attacker, tables)
        inputs.setdefault("cover", fi["cover"].value)
        inputs.setdefault("fence_cover", fi["fence_cover"])
        inputs.setdefault("clear_stands", fi["clear_stands"])
    return DeclareReaction.of(choice.reaction, offered.threat, **inputs)


def decline_action(offered: DefenderChoice) -> DeclineReaction:
    """The :class:`DeclineReaction` of a defender answering "No reaction": the window, who declined,
    and the reactions it passed up (those the window offered it)."""
    return DeclineReaction.of(offered.threat, tuple(o.reaction for o in offered.eligible))


def answer_action(
    battle: Battle, offered: DefenderChoice, choice: Choice, tables: RuleTables
) -> DeclareReaction | DeclineReaction:
    """The action a defender's answer at a window makes: its reaction, or the record that it took none."""
    if choice.reaction is None:
        return decline_action(offered)
    return reaction_action(battle, offered, choice, tables)


# -- the step --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Planned:
    """One action of a step, with the dice typed at the table for it (None: the game's own dice)."""

    action: Action
    dice: tuple[int, ...] | None = None

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

    @property
    def empty(self) -> bool:
        return not self.actions


Preview = Callable[[Sequence[Choice], DiceSource], list[Step]]


@dataclass(frozen=True)
class Interruption:
    """Where a procedure waits for the defending side: the window (its point, and each defender
    with every reaction, eligible or with the reasons it is not), the battle as it stands there,
    the unit whose march or charge opened it, the umpire's inputs the window takes (``extras``),
    and, in a group march, which unit of how many is marching (``position``, ``order``)."""

    window: TriggerWindow
    battle: Battle
    mover: str
    label: str
    extras: tuple[str, ...] | None = None
    position: int = 1
    order: tuple[str, ...] = ()
    preview: Preview | None = field(default=None, compare=False, repr=False)
    _consequence: Callable[[Answer, SeededDice], list[tuple[Planned, Any]]] | None = field(
        default=None, compare=False, repr=False
    )

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
        self._planned: list[Planned] = []
        self._steps: list[Step] = []
        self._refused: list[str] = []
        self._gen: Generator[Interruption, Any, None] | None = None
        self.pending: Interruption | None = None
        self.result: PlayStep | None = None

    # the generator of a request runs here ----------------------------------------------------
    def _start(self, gen: Generator[Interruption, Any, None]) -> Procedure:
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
        res = resolve(self.battle, action, source, self.tables)
        self._add(Planned(action, dice), res)
        return res

    def _add(self, planned: Planned, res: Any) -> None:
        self._planned.append(planned)
        self._steps.extend(res.steps)
        self.battle = res.battle_after

    @property
    def done(self) -> bool:
        return self.pending is None

    def program_dice(self) -> SeededDice:
        """A copy of the program's dice as they stand in the procedure: what it rolls next."""
        return SeededDice(self._dice.seed, self._dice.drawn)

    def answer(self, answer: Answer) -> Interruption | None:
        """Answer the pending interruption; returns the next one (None: done, see :attr:`result`)."""
        inter = self.pending
        if inter is None:
            raise IllegalAction("there is no window waiting for an answer")
        self._check_choices(inter, answer)
        trial = SeededDice(self._dice.seed, self._dice.drawn)
        done = inter._consequence(answer, trial) if inter._consequence is not None else []
        self._dice.drawn = trial.drawn
        for planned, res in done:
            self._add(planned, res)
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

    def run(self, ask: Callable[[Interruption], Answer | None]) -> PlayStep:
        """Answer every interruption with ``ask`` (None from it: the umpire cancelled, and
        :class:`Cancelled` is raised: nothing is to be written)."""
        while self.pending is not None:
            ans = ask(self.pending)
            if ans is None:
                raise Cancelled(f"{self.label}: cancelled at {self.pending.kind.label}; nothing was done")
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


# -- Trigger Window A: a march --------------------------------------------------------------------


def is_march(battle: Battle | None, unit_id: str) -> bool:
    """True when a move of the unit is a march: a unit of the active side, in play, in its Phase 2
    (RULE-04-1.2); any other move is the umpire's placement."""
    if battle is None:
        return False
    u = battle.units.get(unit_id)
    return bool(
        u is not None and u.in_play and battle.phase == Phase.MANEUVER and u.side == battle.active_side
    )


def march_end(battle: Battle, unit_id: str, x: Any, y: Any) -> XY:
    """The point a unit is asked to march to, to 0.01"; refused before anything is done when it is
    not a point on the table (as :class:`MoveUnit` refuses it), so no part of a march is left behind."""
    name = battle.unit(unit_id).name
    try:
        end = (round(float(x), 2), round(float(y), 2))
    except (TypeError, ValueError):
        end = (math.nan, math.nan)
    if not all(math.isfinite(v) for v in end):
        raise IllegalAction(f"{name} cannot march to ({x!r}, {y!r}): not a point on the table")
    if not (0 <= end[0] <= battle.table_width_in and 0 <= end[1] <= battle.table_height_in):
        raise IllegalAction(
            f"{name} cannot march to ({end[0]:g}, {end[1]:g}): it is off the "
            f'{battle.table_width_in:g}" x {battle.table_height_in:g}" table'
        )
    return end


def march_refused(battle: Battle, unit_id: str, x: Any, y: Any, tables: RuleTables) -> RulesError | None:
    """Why the unit cannot march to (x, y) now, with the rule; None if it can."""
    refusal = march_refusal(battle, unit_id, tables)
    if refusal is not None:
        return refusal
    try:
        march_end(battle, unit_id, x, y)
    except RulesError as exc:
        return exc
    return None


def _next_window(
    battle: Battle,
    unit_id: str,
    path: list[XY],
    tables: RuleTables,
    offered: set,
    reacted: set,
    done_in: float,
) -> TriggerWindow | None:
    """The next window along ``path`` with a defender not yet asked who may react (``done_in``: how
    far the unit has come already, so the window says how far along the whole march it is)."""
    for w in find_windows(battle, unit_id, path, tables, reacted=reacted):
        fresh = tuple(d for d in w.defenders if (d.defender, d.trigger) not in offered)
        if any(d.eligible for d in fresh):
            return replace(w, defenders=fresh, along_in=w.along_in + done_in)
    return None


def _window_a_consequence(proc: Procedure, window: TriggerWindow):
    """Resolve the answers at a window one defender after another, in the order given: each
    reaction with the dice typed for the window, each "No reaction" as the line the log shows."""
    offered = {d.defender: d for d in window.defenders}

    def consequence(answer: Answer, program: SeededDice) -> list[tuple[Planned, Any]]:
        b = proc.battle
        typed = answer.source()
        out: list[tuple[Planned, Any]] = []
        used = 0
        for c in answer.choices:
            action = answer_action(b, offered[c.defender], c, proc.tables)
            src = typed if (typed is not None and c.reaction is not None) else program
            res = resolve(b, action, src, proc.tables)
            faces = _typed_faces(res) if src is typed else None
            used += len(faces or ())
            out.append((Planned(action, faces), res))
            b = res.battle_after
        _leftover(typed, used)
        return out

    return consequence


def window_a_preview(battle: Battle, window: TriggerWindow, tables: RuleTables) -> Preview:
    """What the defenders' choices at a window would do, with the given dice: the log's lines."""
    offered = {d.defender: d for d in window.defenders}

    def preview(choices: Sequence[Choice], dice: DiceSource) -> list[Step]:
        b = battle
        steps: list[Step] = []
        for c in choices:
            res = resolve(b, answer_action(b, offered[c.defender], c, tables), dice, tables)
            b = res.battle_after
            steps += res.steps
        return steps

    return preview


def _march_one(
    proc: Procedure,
    unit_id: str,
    end: XY,
    facing: float | None,
    position: int = 1,
    order: tuple[str, ...] = (),
) -> Generator[Interruption, Any, None]:
    """March one unit towards ``end`` through the Trigger Windows A its path opens.

    The march goes only as far as the rules let it (:func:`rules.actions.plan_march`), and only the
    windows on that stretch open. At each window the unit marches up to the trigger point, the
    defenders answer, the reactions are resolved, and the march resumes from the interruption with
    the allowance left (halved after a natural 6 of Opportunity Fire, RULE-04-3.5), or ends if the
    unit is destroyed. A defender reacts once to this march (RULE-04-1.4): each window asks only the
    defenders not yet asked. An action the rules refuse part way ends the march where it is.
    """
    tables = proc.tables
    u = proc.battle.unit(unit_id)
    cur: XY = (u.x, u.y)
    offered: set[tuple[str, Trigger]] = set()
    reacted: set[str] = set()
    done_in = 0.0
    while math.dist(cur, end) > EPS:
        b = proc.battle
        if march_refusal(b, unit_id, tables) is not None:
            break
        plan = plan_march(b, unit_id, end[0], end[1], tables)
        stop = (round(plan.end[0], 4), round(plan.end[1], 4))
        if math.dist(cur, stop) <= EPS:
            break
        w = _next_window(b, unit_id, [cur, stop], tables, offered, reacted, done_in)
        if w is None:
            break
        if math.dist(cur, w.point) > EPS:
            try:
                proc.do(MoveUnit(unit_id, round(w.point[0], 2), round(w.point[1], 2), mode=MARCH))
            except RulesError as exc:
                proc._refused.append(str(exc))
                return
            nxt = (proc.battle.unit(unit_id).x, proc.battle.unit(unit_id).y)
            done_in += math.dist(cur, nxt)
            cur = nxt
        offered |= {(d.defender, d.trigger) for d in w.defenders}
        inter = Interruption(
            w,
            proc.battle,
            unit_id,
            w.window.label,
            position=position,
            order=order,
            preview=window_a_preview(proc.battle, w, tables),
            _consequence=_window_a_consequence(proc, w),
        )
        answer, _done = yield inter
        reacted |= {c.defender for c in answer.choices if c.reaction is not None}
        if not proc.battle.unit(unit_id).in_play:
            return
    mover = proc.battle.unit(unit_id)
    f = mover.facing_deg if facing is None else facing
    if mover.in_play and (mover.x, mover.y, mover.facing_deg) != (end[0], end[1], f):
        if march_refusal(proc.battle, unit_id, tables) is None:
            try:
                proc.do(MoveUnit(unit_id, end[0], end[1], f, mode=MARCH))
            except RulesError as exc:
                if not proc._planned:
                    raise
                proc._refused.append(str(exc))


def march(
    battle: Battle,
    tables: RuleTables,
    dice: SeededDice,
    unit_id: str,
    x: Any,
    y: Any,
    facing: float | None = None,
) -> Procedure:
    """A unit's march towards (x, y) in its side's Phase 2, stopping at each Trigger Window A its
    path opens (RULE-04-1.2). A march the rules refuse before it starts (not its Phase 2, no
    allowance left, a stalled charger, a point off the table) raises :class:`RulesError`."""
    u = battle.unit(unit_id)
    refusal = march_refusal(battle, unit_id, tables)
    if refusal is not None:
        raise refusal
    end = march_end(battle, unit_id, x, y)
    proc = Procedure(battle, tables, dice, f"March {u.name}")
    return proc._start(_march_one(proc, unit_id, end, facing))


def move(
    battle: Battle,
    tables: RuleTables,
    dice: SeededDice,
    unit_id: str,
    x: Any,
    y: Any,
    facing: float | None = None,
    *,
    place: bool = False,
    reason: str = "",
) -> Procedure:
    """A unit moved to (x, y): a march through its windows when it is a march (:func:`is_march`),
    otherwise (or with ``place``) the umpire's placement, with ``reason`` for the log."""
    if not place and is_march(battle, unit_id):
        return march(battle, tables, dice, unit_id, x, y, facing)
    u = battle.unit(unit_id)
    proc = Procedure(battle, tables, dice, f"Place {u.name}")

    def gen() -> Generator[Interruption, Any, None]:
        proc.do(MoveUnit(unit_id, x, y, facing, mode=PLACE, reason=reason))
        return
        yield  # a placement opens no window

    return proc._start(gen())


def window(battle: Battle, tables: RuleTables, dice: SeededDice, opened: TriggerWindow) -> Procedure:
    """A Trigger Window opened by the umpire by hand (the table not kept to the inch on screen):
    the defenders answer once, and their reactions, or "No reaction", are the step."""
    proc = Procedure(battle, tables, dice, opened.window.label)

    def gen() -> Generator[Interruption, Any, None]:
        yield Interruption(
            opened,
            battle,
            opened.mover,
            opened.window.label,
            preview=window_a_preview(battle, opened, tables),
            _consequence=_window_a_consequence(proc, opened),
        )

    return proc._start(gen())


def front_first(battle: Battle, moves: Sequence[tuple]) -> list[tuple]:
    """The moves of a group march in the order its units march: front-most first.

    "Front" is along the way the group is dragged (the mean of the units' moves): the unit whose
    colour stand is farthest forward that way marches first, and units abreast (within 0.01")
    keep the order they are given in. A group that is only turned, not moved, keeps that order.
    A move that is not a point (the march refuses it) does not count in the way the group goes.
    """

    def shift(m: tuple) -> XY | None:
        u = battle.units.get(m[0])
        try:
            d = (float(m[1]) - u.x, float(m[2]) - u.y) if u is not None else None
        except (TypeError, ValueError):
            return None
        return d if d is not None and all(math.isfinite(v) for v in d) else None

    known = [d for d in map(shift, moves) if d is not None]
    if not known:
        return list(moves)
    dx = sum(d[0] for d in known) / len(known)
    dy = sum(d[1] for d in known) / len(known)
    n = math.hypot(dx, dy)
    if n <= EPS:
        return list(moves)

    def ahead(m: tuple) -> float:
        u = battle.units.get(m[0])
        return 0.0 if u is None else round((u.x * dx + u.y * dy) / n, 2)

    return sorted(moves, key=lambda m: -ahead(m))


def group_march(
    battle: Battle, tables: RuleTables, dice: SeededDice, moves: Iterable[Sequence[Any]]
) -> Procedure:
    """A group of units moved together, ``moves`` being ``(unit_id, x, y, facing)``: those that
    march (:func:`is_march`) march one after another, front-most first along the way the group goes
    (:func:`front_first`), each through the Trigger Windows A its own path opens; the others are
    placed by the umpire first, where they were moved to. All of it is one step.

    Each unit's march is its own "triggering enemy action" (RULE-04-1.4): a defender may react once
    to each unit, and a window that halts a unit (a natural 6 of Opportunity Fire, RULE-04-3.5, or
    its destruction) halts that unit only. A window opens "at the exact point in the enemy's
    movement path where the target enters optimal range and arc" (RULE-04-3.3): of a body advancing
    together the leading unit reaches it first, and what a defender does there holds for the units
    behind it (a defender that fired has Smoke and may not fire again, RULE-04-3.2 and 3.4).

    A unit the rules do not let march (no allowance left, a stalled charger, a point off the table
    or not a point at all) or that the battle does not have is left out, with the reason in
    :attr:`PlayStep.refused`; the others march.
    """
    moves = [tuple(m) for m in moves]
    refused = [f"there is no unit '{m[0]}'" for m in moves if m[0] not in battle.units]
    moves = [m for m in moves if m[0] in battle.units]
    names = ", ".join(battle.unit(m[0]).name for m in moves)
    proc = Procedure(battle, tables, dice, f"March {names}")
    proc._refused.extend(refused)
    marching = front_first(battle, [m for m in moves if is_march(battle, m[0])])
    placed = [m for m in moves if not is_march(battle, m[0])]
    order = tuple(battle.unit(m[0]).name for m in marching)

    def gen() -> Generator[Interruption, Any, None]:
        for uid, x, y, facing in (tuple(m[:4]) + (None,) * (4 - len(m[:4])) for m in placed):
            try:
                proc.do(MoveUnit(uid, x, y, facing, mode=PLACE))
            except RulesError as exc:
                proc._refused.append(str(exc))
        for i, m in enumerate(marching, 1):
            uid, x, y = m[:3]
            facing = m[3] if len(m) > 3 else None
            refusal = march_refused(proc.battle, uid, x, y, tables)
            if refusal is not None:
                proc._refused.append(str(refusal))
                continue
            end = march_end(proc.battle, uid, x, y)
            try:
                yield from _march_one(proc, uid, end, facing, i, order)
            except RulesError as exc:
                proc._refused.append(str(exc))

    return proc._start(gen())


# -- Trigger Window B: a charge -------------------------------------------------------------------


def charge_window(at: Any, tables: RuleTables) -> TriggerWindow:
    """The Window B of a charge halted at the 4.0" line (RULE-06-2.1), as :mod:`rules.triggers` gives one."""
    from rules import assault

    threat = assault.window_b_threat(at, tables)
    a = at.battle.unit(at.path.attacker)
    along = math.dist(at.path.start, (a.x, a.y))
    choice = defender_choice(at.battle, threat, Trigger.CHARGE, tables)
    return TriggerWindow(Window.B, (a.x, a.y), along, a.id, (choice,))


def _charge_reaction(choice: Choice | None):
    from rules.assault import Reaction as ChargeReaction

    if choice is None or choice.reaction is None:
        return ChargeReaction.NONE
    return ChargeReaction.parse(choice.reaction.value)


def charge_of(
    attacker: str, target: str, choice: Choice | None, then: Choice | None = None, behind: bool = False
):
    """The charge with the defender's choice at Window B and (``behind``: a screen's parent opened
    its own Window B) the choice of the unit behind the screen (RULE-04-4.4)."""
    from rules.assault import Charge

    deciding = then if behind else choice
    surge = deciding.inputs.get("surge_in") if deciding is not None else None
    return Charge(
        attacker,
        target,
        reaction=_charge_reaction(choice),
        counter_charge_in=surge,
        then_reaction=_charge_reaction(then) if behind else None,
    )


def _approach_action(charge: Any) -> Action:
    from rules.assault import ChargeApproach

    return ChargeApproach(
        charge.attacker,
        charge.target,
        reaction=charge.reaction.value,
        counter_charge_in=charge.counter_charge_in,
        then_reaction=None if charge.then_reaction is None else charge.then_reaction.value,
    )


def charge(
    battle: Battle, tables: RuleTables, dice: SeededDice, attacker_id: str, target_id: str
) -> Procedure:
    """Phase 2 of an assault (RULE-06-1.1): the charger is carried to the 4.0" line, where the
    defender answers at Window B (RULE-06-2.1); then the pre-contact check and a stall, a halt or
    contact. The step is one ``charge_approach`` action, after a ``decline_reaction`` for each
    defender that answered "No reaction". A charge at a screen asks the screen (evade, or be
    overrun); the charge then goes on into the unit behind it, whose own Window B opens at its 4.0"
    line (RULE-04-4.4). A charge the rules refuse (RULE-06-1.2 to 1.4) raises :class:`RulesError`."""
    from rules import assault

    at = assault.to_the_line(battle, assault.Charge(attacker_id, target_id), tables)
    proc = Procedure(battle, tables, dice, f"Charge of {battle.unit(attacker_id).name}")

    def past_the_line(c: Any, d: DiceSource) -> list[Step]:
        return list(assault.charge_to_contact(battle, c, d, tables).steps[len(at.steps) :])

    def declined_steps(w: TriggerWindow, choices: Sequence[Choice]) -> list[Step]:
        if not choices or choices[0].reaction is not None:
            return []
        return resolve(battle, decline_action(w.defenders[0]), TableDice(), tables).steps

    def final(
        w: TriggerWindow, declines: list[Action], charge_: Callable[[Answer], Any]
    ) -> Callable[[Answer, SeededDice], list[tuple[Planned, Any]]]:
        """The consequence of the last answer: the "No reaction" lines (of an earlier window too),
        then the charge with the dice typed at the table."""

        def consequence(answer: Answer, program: SeededDice) -> list[tuple[Planned, Any]]:
            c = charge_(answer)
            b = proc.battle
            out: list[tuple[Planned, Any]] = []
            mine = [decline_action(w.defenders[0])] if answer.choices[0].reaction is None else []
            for act in [*declines, *mine]:
                res = resolve(b, act, program, tables)
                out.append((Planned(act), res))
                b = res.battle_after
            typed = answer.source()
            action = _approach_action(c)
            res = resolve(b, action, typed if typed is not None else program, tables)
            faces = _typed_faces(res) if typed is not None else None
            _leftover(typed, len(faces or ()))
            out.append((Planned(action, faces), res))
            return out

        return consequence

    def gen() -> Generator[Interruption, Any, None]:
        if at.early is not None:
            proc.do(_approach_action(assault.Charge(attacker_id, target_id, reaction=assault.Reaction.NONE)))
            return
        screen = at.battle.unit(target_id).is_screen
        w = charge_window(at, tables)
        behind_at = None

        def preview(choices: Sequence[Choice], d: DiceSource) -> list[Step]:
            c = charge_of(attacker_id, target_id, choices[0] if choices else None)
            if screen:
                c = replace(c, then_reaction=assault.Reaction.NONE)
            return declined_steps(w, choices[:1]) + past_the_line(c, d)

        if screen:
            # the screen answers first; the unit behind it may have its own window to come
            def screen_answer(answer: Answer, program: SeededDice) -> list[tuple[Planned, Any]]:
                nonlocal behind_at
                first = answer.choices[0]
                behind_at = assault.behind_the_screen(
                    battle, charge_of(attacker_id, target_id, first), tables
                )
                if behind_at is not None and behind_at.early is None:
                    return []  # the declines are logged with the charge, after the second window
                return final(w, [], lambda a: charge_of(attacker_id, target_id, a.choices[0]))(
                    answer, program
                )

            consequence = screen_answer
        else:
            consequence = final(w, [], lambda a: charge_of(attacker_id, target_id, a.choices[0]))
        first, done = yield Interruption(
            w,
            at.battle,
            attacker_id,
            w.window.label,
            ("surge_in",),
            preview=preview,
            _consequence=consequence,
        )
        if done:
            return
        # the unit behind the screen answers at its own 4.0" line (RULE-04-4.4)
        choice = first.choices[0]
        declines = [decline_action(w.defenders[0])] if choice.reaction is None else []
        w2 = charge_window(behind_at, tables)

        def preview_behind(choices: Sequence[Choice], d: DiceSource) -> list[Step]:
            c = charge_of(attacker_id, target_id, choice, choices[0] if choices else None, True)
            return declined_steps(w2, choices[:1]) + past_the_line(c, d)

        yield Interruption(
            w2,
            behind_at.battle,
            attacker_id,
            w2.window.label,
            ("surge_in",),
            preview=preview_behind,
            _consequence=final(
                w2, declines, lambda a: charge_of(attacker_id, target_id, choice, a.choices[0], True)
            ),
        )

    return proc._start(gen())


__all__ = [
    "Answer",
    "Cancelled",
    "Choice",
    "Interruption",
    "Planned",
    "PlayStep",
    "Procedure",
    "answer_action",
    "charge",
    "charge_of",
    "charge_window",
    "decline_action",
    "front_first",
    "group_march",
    "is_march",
    "march",
    "march_end",
    "march_refused",
    "move",
    "reaction_action",
    "window",
    "window_a_preview",
]
