"""A march and a group march through their Trigger Windows A (RULE-04-1.2), and a window opened by
hand (see :mod:`rules.procedure`)."""

from __future__ import annotations

import math
from collections.abc import Generator, Iterable, Sequence
from dataclasses import replace
from typing import Any

from rules.action_base import resolve
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battlefield.marches import MARCH, PLACE, MoveUnit, plan_march
from rules.dice import DiceSource, SeededDice
from rules.errors import RulesError
from rules.legality import march_refusal, off_table
from rules.procedure.core import (
    Answer,
    Choice,
    Interruption,
    Planned,
    Procedure,
    ReasonAsked,
    Resolution,
    _leftover,
    _typed_faces,
    answer_action,
)
from rules.reactions.triggers import DefenderChoice, Trigger, TriggerWindow, find_windows
from rules.tables import RuleTables

XY = tuple[float, float]
EPS = 1e-6

# -- Trigger Window A: a march --------------------------------------------------------------------


def _marches(battle: Battle, unit_id: str, tables: RuleTables) -> bool:
    """True when a move of the unit now is a march, whether the rules let it march or refuse it
    (:func:`rules.legality.march_refusal`); False when it is the umpire's placement."""
    refusal = march_refusal(battle, unit_id, tables)
    return refusal is None or refusal.action != PLACE


def march_end(battle: Battle, unit_id: str, x: Any, y: Any) -> XY:
    """The point a unit is asked to march to, to 0.01"; refused before anything is done when it is
    not a point on the table (:func:`rules.legality.off_table`, the check :class:`MoveUnit` makes),
    so no part of a march is left behind."""
    refusal = off_table(battle, unit_id, x, y)
    if refusal is not None:
        raise refusal.error()
    return (round(float(x), 2), round(float(y), 2))


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
    far the unit has come already, so the window says how far along the whole march it is).

    The windows that open at that same point are one window: every defender not yet asked there
    is in it, and a defender met there by more than one of its triggers (its arc and a flank
    zone) is asked once, with every reaction either of them offers (it reacts at most once to the
    move, RULE-04-1.4)."""
    windows = find_windows(battle, unit_id, path, tables, reacted=reacted)
    for w in windows:
        fresh = tuple(d for d in w.defenders if (d.defender, *d.opened_by) not in offered)
        if not any(d.eligible for d in fresh):
            continue
        asked: dict[str, DefenderChoice] = {}
        for other in windows:
            if abs(other.along_in - w.along_in) > EPS:
                continue
            for d in other.defenders:
                if (d.defender, *d.opened_by) in offered:
                    continue
                asked[d.defender] = asked[d.defender].merged_with(d) if d.defender in asked else d
        return replace(w, defenders=tuple(asked.values()), along_in=w.along_in + done_in)
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


def window_a_resolution(battle: Battle, window: TriggerWindow, tables: RuleTables) -> Resolution:
    """What the defenders' choices at a window would do, with the given dice: the battle after them
    and the log's lines (:attr:`Interruption.resolution`)."""
    offered = {d.defender: d for d in window.defenders}

    def resolution(choices: Sequence[Choice], dice: DiceSource) -> tuple[Battle, list[Step]]:
        b = battle
        steps: list[Step] = []
        for c in choices:
            res = resolve(b, answer_action(b, offered[c.defender], c, tables), dice, tables)
            b = res.battle_after
            steps += res.steps
        return b, steps

    return resolution


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
    unit is destroyed. Each trigger of each defender opens its window once, where the march reaches
    it: its forward arc, its short range, and each of its two flank zones, so that a march from one
    flank zone into the other is asked about the second too (RULE-04-5.1 (Refuse the Flank, 5.0)).
    A defender reacts once to this march (RULE-04-1.4): a defender that reacted at one window is not
    asked again, one that answered "No reaction" is. An action the rules refuse part way ends the
    march where it is.
    """
    tables = proc.tables
    u = proc.battle.unit(unit_id)
    cur: XY = (u.x, u.y)
    offered: set[tuple[str, Trigger, str | None]] = set()
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
        offered |= {(d.defender, *o) for d in w.defenders for o in d.opened_all}
        inter = Interruption(
            w,
            proc.battle,
            unit_id,
            w.window.label,
            position=position,
            order=order,
            resolution=window_a_resolution(proc.battle, w, tables),
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
    allowance left, a stalled charger, a point off the table: :func:`rules.legality.march_refusal`)
    raises :class:`RulesError`."""
    refusal = march_refusal(battle, unit_id, tables, (x, y))
    if refusal is not None:
        raise refusal.error()
    end = march_end(battle, unit_id, x, y)
    u = battle.unit(unit_id)
    proc = Procedure(battle, tables, dice, f"March {u.name}")
    proc.marching = (u.name,)
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
    reason: str | None = None,
) -> Procedure:
    """A unit moved to (x, y), as the command line's ``move`` and the window's drag ask for it: a
    march through its Trigger Windows A (:func:`march`) when a move of it now is a march
    (:func:`rules.legality.march_refusal`: its side's Phase 2; a march the rules refuse there, no
    allowance left or a stalled charger, raises :class:`RulesError`); otherwise, or with
    ``place``, the umpire's placement (:func:`placement`), which asks for the reason where the unit
    would march, unless ``reason`` gives it."""
    if not place and _marches(battle, unit_id, tables):
        return march(battle, tables, dice, unit_id, x, y, facing)
    return placement(battle, tables, dice, [(unit_id, x, y, facing)], reason=reason)


def placement(
    battle: Battle,
    tables: RuleTables,
    dice: SeededDice,
    moves: Iterable[Sequence[Any]],
    *,
    reason: str | None = None,
) -> Procedure:
    """Units put by the umpire where they were moved to, ``moves`` being ``(unit_id, x, y, facing)``,
    outside the movement rules and as one step: a ``move_unit`` of mode "place" for each, with the
    reason for the log. No window opens.

    Where a unit would march (of the side to act, in its Phase 2, :func:`rules.legality.march_refusal`)
    a placement sets the movement rules aside and needs the umpire's reason (as :class:`MoveUnit`
    requires): ``reason`` if given, or the procedure asks for it first (:class:`ReasonAsked`), once
    for all the units. Elsewhere (another phase, the other side) it is ``reason`` or none.

    A unit the battle does not have, or that cannot be put there (off the table, not a point), is
    left out with the reason in :attr:`PlayStep.refused` and the others are placed; a unit placed
    alone is refused (:class:`RulesError`), and nothing is done.
    """
    moves = [tuple(m[:4]) + (None,) * (4 - len(m[:4])) for m in moves]
    known = [m for m in moves if m[0] in battle.units]
    names = ", ".join(battle.unit(m[0]).name for m in known)
    proc = Procedure(battle, tables, dice, f"Place {names}")
    instead = [m[0] for m in known if _marches(battle, m[0], tables)]

    def gen() -> Generator[Interruption | ReasonAsked, Any, None]:
        why = reason
        if why is None and instead:
            why = yield ReasonAsked(
                tuple(m[0] for m in known), battle, f"placing {names} outside the movement rules"
            )
        for uid, x, y, facing in moves:
            try:
                proc.do(MoveUnit(uid, x, y, facing, mode=PLACE, reason=why or ""))
            except RulesError as exc:
                if len(moves) == 1:
                    raise
                proc._refused.append(str(exc))

    return proc._start(gen())


def move_units(
    battle: Battle,
    tables: RuleTables,
    dice: SeededDice,
    moves: Iterable[Sequence[Any]],
    *,
    place: bool = False,
    reason: str | None = None,
) -> Procedure:
    """Units moved together, ``moves`` being ``(unit_id, x, y, facing)``, as the window's drag asks:
    one unit is :func:`move`, exactly as the command line's ``move``; several march together
    (:func:`group_march`), or with ``place`` are all the umpire's placement (:func:`placement`)."""
    moves = [tuple(m) for m in moves]
    if len(moves) == 1:
        uid, x, y, facing = moves[0][:4] + (None,) * (4 - len(moves[0][:4]))
        return move(battle, tables, dice, uid, x, y, facing, place=place, reason=reason)
    if place:
        return placement(battle, tables, dice, moves, reason=reason)
    return group_march(battle, tables, dice, moves)


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
            resolution=window_a_resolution(battle, opened, tables),
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
    march (:func:`rules.legality.march_refusal`) march one after another, front-most first along the way the group goes
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
    marches = {m[0]: _marches(battle, m[0], tables) for m in moves}
    marching = front_first(battle, [m for m in moves if marches[m[0]]])
    placed = [m for m in moves if not marches[m[0]]]
    order = tuple(battle.unit(m[0]).name for m in marching)
    proc = Procedure(battle, tables, dice, f"{'March' if marching else 'Place'} {names}")
    proc._refused.extend(refused)
    proc.marching = order

    def gen() -> Generator[Interruption, Any, None]:
        for uid, x, y, facing in (tuple(m[:4]) + (None,) * (4 - len(m[:4])) for m in placed):
            try:
                proc.do(MoveUnit(uid, x, y, facing, mode=PLACE))
            except RulesError as exc:
                proc._refused.append(str(exc))
        for i, m in enumerate(marching, 1):
            uid, x, y = m[:3]
            facing = m[3] if len(m) > 3 else None
            refusal = march_refusal(proc.battle, uid, tables, (x, y))
            if refusal is not None:
                proc._refused.append(str(refusal))
                continue
            end = march_end(proc.battle, uid, x, y)
            try:
                yield from _march_one(proc, uid, end, facing, i, order)
            except RulesError as exc:
                proc._refused.append(str(exc))

    return proc._start(gen())
