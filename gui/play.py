"""Playing a turn: a move or a charge through its Trigger Windows, shooting and melee.

Everything here goes through :class:`gui.controller.GameController` and so through
``Game.do(action, dice)``: each resolved step is one event of the journal, with its dice. A move
that opens Trigger Window A is journalled as the move up to the trigger point, each reaction (or
``decline_reaction``: a defender answered "No reaction"), and the rest of the march (one undo step
takes them all back).

An assault is played as the rules order it: initiated in Phase 2, resolved in Phase 4
(RULE-06-1.1). Declared in Phase 2, after the umpire has seen its odds (of the whole charge) and
the defender has chosen at Window B, it is one ``charge_approach`` action (after a
``decline_reaction`` for each defender that answered "No reaction", in the same undo step) that
ends in a stall, a halt, or contact: the two units Engaged and their melee pending (the log says
so). In Phase 4, Game > Resolve melee lists the pending melees and opens the melee dialog for the
chosen one, which shows both shock scores; it is one ``resolve_pending_melee`` action (with the
Leader Loss rolls).

Dice: every dialog lets the umpire type the dice rolled at the table or let the program roll. The
program's dice are the game's own seeded dice; the dialogs show their result from a copy of them,
so what is shown is what the game then rolls.

The functions the window's menus call take ``(controller, parent)``:

* :func:`declare_charge` (Phase 2), :func:`shoot` (Phase 3), :func:`resolve_melee` (Phase 4);
* :func:`garrison_building` (Phase 2, RULE-03-3.1) and :func:`bombard_building` (Phase 3,
  RULE-03-3.2): a refusal of the rules is told through ``dialogs.show_message`` with its rule;
* :func:`open_window_a`, :func:`open_window_b` (a Trigger Window opened by hand);
* :func:`handle_moves` is called by the canvas with the dragged units' moves: in the active side's
  Phase 2 a unit marches by the movement rules (:func:`move_unit`, ``MoveUnit`` mode "march")
  through its windows, or with Shift held is placed by the umpire with a reason
  (:func:`place_unit`); a group dragged together marches unit by unit, front-most first, each
  through its own windows, as one undo step (:func:`march_group`); it returns False for moves
  that are not a march (the canvas then places the units).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from PySide6.QtWidgets import QDialog, QWidget

from gui import dialogs
from gui.reaction_dialog import (
    Choice,
    ManualWindowDialog,
    ReactionDialog,
    answer_action,
    decline_action,
)
from rules.actions import MARCH, PLACE, MoveUnit, march_refusal, resolve
from rules.battle import Battle
from rules.dice import DiceSource, SeededDice, TableDice
from rules.errors import IllegalAction, RulesError
from rules.events import Step
from rules.model import Phase
from rules.reactions import Window
from rules.triggers import TriggerWindow, find_windows

XY = tuple[float, float]
EPS = 1e-6


# -- refusals ----------------------------------------------------------------------------------------


def _guarded(fn):
    """A refusal of the rules inside a play function is told to the umpire (as the controller tells
    any refused action), never raised into the window."""
    import functools

    @functools.wraps(fn)
    def run(controller, *args, **kwargs):
        try:
            return fn(controller, *args, **kwargs)
        except RulesError as exc:
            controller.actionFailed.emit(str(exc))
            return None

    return run


# -- dice ------------------------------------------------------------------------------------------


def program_dice(controller: Any, skip: int = 0) -> SeededDice:
    """A copy of the game's own dice as they stand (``skip`` faces further on): they roll what the
    game will roll next."""
    g = controller.game
    return SeededDice(g.dice.seed, g.dice.drawn + skip)


# -- a sequence of events that is one undo step ------------------------------------------------------


class _Sequence:
    """Run actions as one undo step (a macro of the undo stack), begun with the first event."""

    def __init__(self, controller: Any, text: str):
        self.controller, self.text = controller, text
        self.events: list[Any] = []
        self._open = False

    def run(self, action: Any, dice: DiceSource | None = None) -> Any:
        if not self._open:
            self.controller.undo_stack.beginMacro(self.text)
            self._open = True
        ev = self.controller.run(action, dice)
        if ev is not None:
            self.events.append(ev)
        return ev

    def close(self, cancel: bool = False) -> None:
        if self._open:
            self.controller.undo_stack.endMacro()
            self._open = False
            if not cancel:
                self.controller.mark_step(self.events)  # one step of Undo after reopening too
            if cancel and self.events:
                self.controller.undo_stack.undo()
                self.controller.forget_redo()  # a cancelled move is not offered back by Redo


def _accepted(dlg: QDialog) -> bool:
    return dialogs.exec_dialog(dlg) == QDialog.DialogCode.Accepted


def _no_game(controller: Any, parent: QWidget | None, title: str) -> bool:
    """Tell the umpire there is no game to play in, if there is none."""
    if controller.game is not None:
        return False
    dialogs.show_message(parent, title, "There is no game open.", "warning")
    return True


def _scene_of(parent: QWidget | None) -> Any:
    """The battlefield scene of the window (or canvas) ``parent``; None without one."""
    return getattr(getattr(parent, "canvas", parent), "scene", None)


def _say(parent: QWidget | None, text: str) -> None:
    """Put ``text`` on the status bar, through the canvas's messages (nothing without a canvas)."""
    measured = getattr(_scene_of(parent), "measured", None)
    if measured is not None:
        measured.emit(text)


def _show_at(parent: QWidget | None, battle: Battle, unit_ids: Sequence[str]) -> None:
    """Show units on the canvas where ``battle`` has them (a charger halted at the 4.0" line)."""
    units = getattr(_scene_of(parent), "units", None)
    if not isinstance(units, dict):
        return
    for uid in unit_ids:
        it = units.get(uid)
        if it is not None and uid in battle.units:
            it.set_unit(battle.units[uid])


# -- Trigger Window A: a move ----------------------------------------------------------------------


def _window_preview(controller: Any, window: TriggerWindow):
    """Resolve the choices at a window one defender after another, on the battle as it stands: each
    reaction, and each "No reaction" as the line the log will show."""
    tables = controller.tables
    offered = {d.defender: d for d in window.defenders}

    def preview(choices: list[Choice], dice: DiceSource) -> list[Step]:
        b = controller.battle
        steps: list[Step] = []
        for c in choices:
            action = answer_action(b, offered[c.defender], c, tables)
            res = resolve(b, action, dice, tables)
            b = res.battle_after
            steps += res.steps
        return steps

    return preview


def offer_window(
    controller: Any, parent: QWidget | None, window: TriggerWindow, run: Any = None
) -> list[Any] | None:
    """Open the defender's dialog for ``window`` and resolve what it chooses, one event per defender
    in the order of the dialog: its reaction, or a ``decline_reaction`` for "No reaction", so the
    log shows that the window was offered and declined (``run`` does each action: by default the
    controller's, the window's answers then being one undo step).

    Returns the reaction events (empty: no reaction), or None if the umpire cancelled.
    """
    seq = None
    if run is None:
        seq = _Sequence(controller, window.window.label)
        run = seq.run
    try:
        return _answer_window(controller, parent, window, run)
    finally:
        if seq is not None:
            seq.close()


def _answer_window(
    controller: Any, parent: QWidget | None, window: TriggerWindow, run: Any
) -> list[Any] | None:
    dlg = ReactionDialog(
        controller.battle,
        window,
        controller.tables,
        preview=_window_preview(controller, window),
        program_dice=lambda: program_dice(controller),
        parent=parent,
    )
    if not _accepted(dlg):
        return None
    offered = {d.defender: d for d in window.defenders}
    typed = dlg.dice.table_dice()
    events = []
    for c in dlg.choices():
        action = answer_action(controller.battle, offered[c.defender], c, controller.tables)
        ev = run(action, typed if c.reaction is not None else None)
        if ev is None:
            break
        if c.reaction is not None:
            events.append(ev)
    return events


def _pending(
    battle: Battle, unit_id: str, path: list[XY], tables, offered: set, reacted: set, done_in: float = 0.0
) -> TriggerWindow | None:
    """The next window along ``path`` with a defender not yet asked who may react (``done_in``: how
    far the unit has come already, so that the window says how far along the whole move it is)."""
    for w in find_windows(battle, unit_id, path, tables, reacted=reacted):
        fresh = tuple(d for d in w.defenders if (d.defender, d.trigger) not in offered)
        if any(d.eligible for d in fresh):
            return replace(w, defenders=fresh, along_in=w.along_in + done_in)
    return None


def _march_ends(battle: Battle, unit_id: str, end: XY, tables) -> XY:
    """Where a march towards ``end`` stops now (the allowance left and the ground, RULE-03-x)."""
    from rules.actions import plan_march

    plan = plan_march(battle, unit_id, end[0], end[1], tables)
    return (round(plan.end[0], 4), round(plan.end[1], 4))


def is_march(battle: Battle | None, unit_id: str) -> bool:
    """True when a drag of the unit is a march: a unit of the active side in its Phase 2."""
    if battle is None:
        return False
    u = battle.units.get(unit_id)
    return bool(
        u is not None and u.in_play and battle.phase == Phase.MANEUVER and u.side == battle.active_side
    )


@_guarded
def place_unit(
    controller: Any,
    parent: QWidget | None,
    unit_id: str,
    x: float,
    y: float,
    facing: float | None = None,
    reason: str | None = None,
) -> Any:
    """The umpire's placement of a unit, outside the movement rules. In the active side's Phase 2,
    where the unit would march, the umpire is asked for the reason, which goes in the log."""
    battle = controller.battle
    u = battle.unit(unit_id)
    if reason is None:
        reason = ""
        if is_march(battle, unit_id):
            reason = dialogs.ask_reason(parent, f"placing {u.name} outside the movement rules") or ""
            if not reason:
                return None
    return controller.run(
        MoveUnit(unit_id, round(float(x), 2), round(float(y), 2), facing, mode=PLACE, reason=reason)
    )


def _end_of(battle: Battle, unit_id: str, x: Any, y: Any) -> XY:
    """The point a unit is dragged to, to 0.01"; a point that is not two numbers is refused."""
    try:
        end = (round(float(x), 2), round(float(y), 2))
    except (TypeError, ValueError):
        end = (math.nan, math.nan)
    if not all(math.isfinite(v) for v in end):
        raise IllegalAction(
            f"{battle.unit(unit_id).name} cannot march to ({x!r}, {y!r}): not a point on the table"
        )
    return end


def _off_table(battle: Battle, unit_id: str, end: XY) -> RulesError | None:
    """Why a march to ``end`` is refused before it starts: a point off the table (as
    :class:`rules.actions.MoveUnit` refuses it), so that no part of the march is left behind."""
    x, y = end
    if 0 <= x <= battle.table_width_in and 0 <= y <= battle.table_height_in:
        return None
    name = battle.unit(unit_id).name
    return IllegalAction(
        f"{name} cannot march to ({x:g}, {y:g}): it is off the "
        f'{battle.table_width_in:g}" x {battle.table_height_in:g}" table'
    )


def _march_refused(controller: Any, unit_id: str, end: XY) -> RulesError | None:
    """Why the unit cannot march to ``end`` now (the rules' refusal), or None."""
    battle = controller.battle
    return march_refusal(battle, unit_id, controller.tables) or _off_table(battle, unit_id, end)


def _march(
    controller: Any, parent: QWidget | None, seq: _Sequence, unit_id: str, end: XY, facing: float | None
) -> bool:
    """March one unit towards ``end`` through the Trigger Windows A its path opens, each action
    run in ``seq``; False if the umpire cancelled a window's dialog (the caller takes it all back).

    The march goes only as far as the rules let it (:func:`rules.actions.plan_march`), and only
    the windows on that stretch open. At each window the unit marches up to the trigger point,
    the defending side's dialog opens, the reactions are resolved, and the march resumes from the
    interruption with the allowance left (halved after a natural 6 of Opportunity Fire,
    RULE-04-3.5), or ends if the unit is destroyed or an action is refused. A defender reacts
    once to this march (RULE-04-1.4): each window asks only the defenders not yet asked.
    """
    tables = controller.tables
    cur: XY = (controller.battle.unit(unit_id).x, controller.battle.unit(unit_id).y)
    offered: set[tuple[str, Any]] = set()
    reacted: set[str] = set()
    done_in = 0.0
    while math.dist(cur, end) > EPS:
        b = controller.battle
        if march_refusal(b, unit_id, tables) is not None:
            break
        stop = _march_ends(b, unit_id, end, tables)
        if math.dist(cur, stop) <= EPS:
            break
        w = _pending(b, unit_id, [cur, stop], tables, offered, reacted, done_in)
        if w is None:
            break
        if math.dist(cur, w.point) > EPS:
            if seq.run(MoveUnit(unit_id, round(w.point[0], 2), round(w.point[1], 2), mode=MARCH)) is None:
                return True
            nxt = (controller.battle.unit(unit_id).x, controller.battle.unit(unit_id).y)
            done_in += math.dist(cur, nxt)
            cur = nxt
        offered |= {(d.defender, d.trigger) for d in w.defenders}
        _show_at(parent, controller.battle, (unit_id,))
        reactions = offer_window(controller, parent, w, seq.run)
        if reactions is None:
            return False
        for ev in reactions:
            reacted.add(ev.action.defender_id)
        if not controller.battle.unit(unit_id).in_play:
            return True
    mover = controller.battle.unit(unit_id)
    f = mover.facing_deg if facing is None else facing
    if mover.in_play and (mover.x, mover.y, mover.facing_deg) != (end[0], end[1], f):
        if march_refusal(controller.battle, unit_id, tables) is None:
            seq.run(MoveUnit(unit_id, end[0], end[1], f, mode=MARCH))
    return True


@_guarded
def move_unit(
    controller: Any, parent: QWidget | None, unit_id: str, x: float, y: float, facing: float | None = None
) -> list[Any]:
    """March a unit towards (x, y) in its side's Phase 2, stopping at each Trigger Window A its
    path opens (RULE-04-1.2); out of a march (another phase, the other side) the unit is placed.

    The march goes only as far as the rules let it (:func:`rules.actions.plan_march`: the
    allowance left this turn, terrain and obstacles), and only the windows on that stretch open.
    At each window the unit marches up to the trigger point, the defending side's dialog opens,
    the reactions are resolved and logged, and the march resumes from the interruption with the
    allowance left: halved after a natural 6 of Opportunity Fire (RULE-04-3.5, kept in the battle
    state), stopped if the unit is destroyed. Cancelling a dialog takes the whole move back; the
    log and the summary say where and why the unit halted. A march the rules refuse (no allowance
    left, a stalled charger, a point off the table) is refused before anything is done.
    """
    battle = controller.battle
    u = battle.unit(unit_id)
    if not is_march(battle, unit_id):
        ev = place_unit(controller, parent, unit_id, x, y, facing, reason="")
        return [ev] if ev is not None else []
    end = _end_of(battle, unit_id, x, y)
    refusal = _march_refused(controller, unit_id, end)
    if refusal is not None:
        raise refusal
    seq = _Sequence(controller, f"March {u.name}")
    try:
        if not _march(controller, parent, seq, unit_id, end, facing):
            seq.close(cancel=True)
            return []
        return seq.events
    finally:
        seq.close()


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


def march_group(controller: Any, parent: QWidget | None, moves: Sequence[tuple]) -> list[Any]:
    """March a group of units dragged together in their side's Phase 2, each through the Trigger
    Windows A its own path opens, as one undo step; returns the events (none if nothing was done).

    Each unit's march is its own "triggering enemy action" (RULE-04-1.4): a defender may react
    once to each unit, and a window that halts a unit (a natural 6 of Opportunity Fire halving
    what it has left, RULE-04-3.5, or its destruction) halts that unit only; the others complete
    their own marches ("the active player completes their movement", RULE-04-1.4).

    The units march one after another, front-most first along the way the group is dragged
    (:func:`front_first`). A window opens "at the exact point in the enemy's movement path where
    the target enters optimal range and arc" (RULE-04-3.3): of a body advancing together, the
    leading unit is the first to reach that point, so its window is offered first, as it would be
    at the table; and what a defender does there holds for the units behind it (a defender that
    fired has a Smoke Marker and may not fire again, RULE-04-3.2 and 3.4). The order the units were
    selected in is not used: a rubber-band selection has none.

    Units of the group that do not march (the other side's, in the active side's Phase 2) are
    placed by the umpire first, where they were dragged. A unit the rules do not let march (no
    allowance left, a stalled charger, a point off the table or not a point at all) or that the
    battle does not have is left out and the umpire is told why, in one message; the others march.
    Cancelling any window's dialog takes the whole group back. The canvas shows each unit where
    the battle has it while the dialogs are open.
    """
    battle = controller.battle
    refused = [f"there is no unit '{m[0]}'" for m in moves if m[0] not in battle.units]
    moves = [tuple(m) for m in moves if m[0] in battle.units]
    names = ", ".join(battle.unit(m[0]).name for m in moves)
    marching = front_first(battle, [m for m in moves if is_march(battle, m[0])])
    placed = [m for m in moves if not is_march(battle, m[0])]
    _show_at(parent, battle, [m[0] for m in moves])
    seq = _Sequence(controller, f"March {names}")
    try:
        for uid, x, y, facing in (m[:4] for m in placed):
            seq.run(MoveUnit(uid, x, y, facing, mode=PLACE))
        order = [controller.battle.unit(m[0]).name for m in marching]
        for i, (uid, x, y, facing) in enumerate((m[:4] for m in marching), 1):
            if len(order) > 1:  # under the dialogs, the status bar says where the group has got to
                rest = f"; then {', '.join(order[i:])}" if i < len(order) else ""
                _say(parent, f"Group march, {i} of {len(order)}: {order[i - 1]} marches{rest}")
            try:
                end = _end_of(controller.battle, uid, x, y)
                refusal = _march_refused(controller, uid, end)
                if refusal is not None:
                    refused.append(str(refusal))
                    continue
                if not _march(controller, parent, seq, uid, end, facing):
                    seq.close(cancel=True)
                    return []
            except RulesError as exc:
                refused.append(str(exc))
        if len(order) > 1 and seq.events:
            _say(parent, f"Group march done: {', '.join(order)}")
        return seq.events
    finally:
        seq.close()
        if refused:
            controller.actionFailed.emit("\n".join(refused))


def handle_moves(
    controller: Any, moves: Sequence[tuple], parent: QWidget | None = None, *, place: bool = False
) -> bool:
    """Play the units dragged on the canvas; True when done here (the canvas then does nothing more).

    One unit of the active side dragged in its Phase 2 marches (:func:`move_unit`, through its
    Trigger Windows); a group with such units in it marches unit by unit, each through its own
    windows, as one undo step (:func:`march_group`). With ``place`` (Shift held on the canvas)
    one unit is the umpire's placement, with a reason (:func:`place_unit`). False for a group
    placed with Shift held, or when no unit of the drag would march (another phase, the other
    side): the canvas places those units as one undo step, and no window opens.
    """
    if controller.game is None or not moves:
        return False
    battle = controller.battle
    if len(moves) > 1:
        if place or not any(is_march(battle, m[0]) for m in moves if m[0] in battle.units):
            return False
        march_group(controller, parent, moves)
        return True
    uid, x, y, facing = moves[0][:4]
    u = battle.units.get(uid)
    if u is None or not is_march(battle, uid):
        return False
    if place:
        place_unit(controller, parent, uid, x, y, facing)
        return True
    move_unit(controller, parent, uid, x, y, facing)
    return True


# -- a Trigger Window opened by hand -------------------------------------------------------------------


@_guarded
def open_window(
    controller: Any,
    parent: QWidget | None,
    window: Window | str,
    mover: str | None = None,
    defender: str | None = None,
) -> list[Any] | None:
    """Open Trigger Window A or B by hand for a unit: name the units, read the table, then react."""
    if _no_game(controller, parent, "Trigger Window"):
        return None
    w = Window.parse(window)
    battle = controller.battle
    if battle.phase != Phase.MANEUVER:
        dialogs.show_message(
            parent,
            "Trigger Window",
            f"Reactions are declared in {Phase.MANEUVER.title}; the game is in {battle.phase.title} (RULE-04-1.2).",
            "warning",
        )
        return None
    setup = ManualWindowDialog(battle, controller.tables, w, parent)
    if mover and defender:
        setup.set_units(mover, defender)
    if not _accepted(setup):
        return None
    return offer_window(controller, parent, setup.trigger_window())


def open_window_a(controller: Any, parent: QWidget | None = None) -> list[Any] | None:
    return open_window(controller, parent, Window.A)


def open_window_b(controller: Any, parent: QWidget | None = None) -> list[Any] | None:
    return open_window(controller, parent, Window.B)


# -- charges (Window B) ------------------------------------------------------------------------------


def _window_b(at, tables) -> TriggerWindow:
    """The Window B of a charge halted at the 4.0" line (RULE-06-2.1), as :mod:`rules.triggers` gives one."""
    from rules import assault
    from rules.triggers import Trigger, defender_choice

    threat = assault.window_b_threat(at, tables)
    a = at.battle.unit(at.path.attacker)
    along = math.dist(at.path.start, (a.x, a.y))
    choice = defender_choice(at.battle, threat, Trigger.CHARGE, tables)
    return TriggerWindow(Window.B, (a.x, a.y), along, a.id, (choice,))


def _reaction_of(choice: Choice | None):
    """The charge's reaction for the defender's choice at Window B (none: no reaction)."""
    from rules.assault import Reaction as ChargeReaction

    if choice is None or choice.reaction is None:
        return ChargeReaction.NONE
    return ChargeReaction.parse(choice.reaction.value)


def _charge_of(attacker: str, target: str, choice: Choice | None, then: Choice | None = None, behind=False):
    """The charge with the defender's choice, and (``behind``: a screen's parent opened its own
    Window B) the choice of the unit behind the screen (RULE-04-4.4)."""
    from rules.assault import Charge

    surge = (then if behind else choice).inputs.get("surge_in") if (then if behind else choice) else None
    return Charge(
        attacker,
        target,
        reaction=_reaction_of(choice),
        counter_charge_in=surge,
        then_reaction=_reaction_of(then) if behind else None,
    )


def _ask_window_b(controller: Any, parent: QWidget | None, at: Any, preview: Any, declines: list[Any]):
    """Ask the defender's choice at Window B (``(choice, typed dice)``, None if cancelled); a
    "No reaction" is added to ``declines``, to be logged before the charge goes on."""
    asked = _window_b_dialog(controller, parent, at, preview)
    if asked is not None and asked[0].reaction is None:
        declines.append(decline_action(_window_b(at, controller.tables).defenders[0]))
    return asked


def _window_b_dialog(controller: Any, parent: QWidget | None, at, preview) -> tuple[Choice, Any] | None:
    """Open the defender's Window B dialog for the charge halted at ``at``: the reaction chosen and
    the dice typed at the table; None if cancelled, with the charger shown back where it stands."""
    _show_at(parent, at.battle, (at.path.attacker,))
    dlg = ReactionDialog(
        at.battle,
        _window_b(at, controller.tables),
        controller.tables,
        preview=preview,
        program_dice=lambda: program_dice(controller),
        extras=("surge_in",),
        parent=parent,
    )
    if not _accepted(dlg):
        _show_at(parent, controller.battle, (at.path.attacker,))
        return None
    return dlg.choices()[0], dlg.dice.table_dice()


def _declined_steps(battle: Battle, at, choices: list[Choice], tables) -> list[Step]:
    """A Window B dialog's preview of "No reaction": the line the log will show for it."""
    if not choices or choices[0].reaction is not None:
        return []
    return resolve(battle, decline_action(_window_b(at, tables).defenders[0]), TableDice(), tables).steps


def _steps_past_the_line(battle: Battle, at, charge, dice: DiceSource, tables) -> list[Step]:
    """A Window B dialog's preview: the steps of the charge's Phase 2 after its halt at ``at``."""
    from rules import assault

    return list(assault.charge_to_contact(battle, charge, dice, tables).steps[len(at.steps) :])


@_guarded
def play_charge(controller: Any, parent: QWidget | None, attacker_id: str, target_id: str) -> Any:
    """Phase 2 of an assault (RULE-06-1.1): the approach with Window B's dialog, the pre-contact
    check, then a stall, a halt or contact; one ``charge_approach`` event, after a ``decline_reaction``
    event for each defender that answered "No reaction" (one undo step). On contact the melee is
    left pending for Phase 4 (Game > Resolve melee). None if cancelled.

    A charge at a screen opens the screen's dialog (evade, or be overrun); the charge then goes on
    into the unit behind it, whose own Window B dialog opens at its 4.0" line: it "may now execute
    Reaction 1" (RULE-04-4.4), or any other reaction open to it, or none."""
    from rules import assault
    from rules.assault import ChargeApproach

    battle, tables = controller.battle, controller.tables
    at = assault.to_the_line(battle, assault.Charge(attacker_id, target_id), tables)
    choice: Choice | None = None
    then: Choice | None = None
    behind = False
    typed = None
    declines: list[Any] = []  # a "No reaction" at Window B, logged before the charge goes on
    if at.early is None:
        screen = at.battle.unit(target_id).is_screen

        def preview(choices: list[Choice], dice: DiceSource) -> list[Step]:
            # a screen's dialog shows the charge up to the unit behind it, which reacts in its own
            charge = _charge_of(attacker_id, target_id, choices[0] if choices else None)
            if screen:
                charge = replace(charge, then_reaction=assault.Reaction.NONE)
            return _declined_steps(battle, at, choices[:1], tables) + _steps_past_the_line(
                battle, at, charge, dice, tables
            )

        asked = _ask_window_b(controller, parent, at, preview, declines)
        if asked is None:
            return None
        choice, typed = asked
        nxt = (
            assault.behind_the_screen(battle, _charge_of(attacker_id, target_id, choice), tables)
            if screen
            else None
        )
        if nxt is not None and nxt.early is None:
            behind = True

            def preview_behind(choices: list[Choice], dice: DiceSource) -> list[Step]:
                charge = _charge_of(attacker_id, target_id, choice, choices[0] if choices else None, True)
                return _declined_steps(battle, nxt, choices[:1], tables) + _steps_past_the_line(
                    battle, at, charge, dice, tables
                )

            asked = _ask_window_b(controller, parent, nxt, preview_behind, declines)
            if asked is None:
                return None
            then, typed = asked
    charge = _charge_of(attacker_id, target_id, choice, then, behind)
    action = ChargeApproach(
        attacker_id,
        target_id,
        reaction=charge.reaction.value,
        counter_charge_in=charge.counter_charge_in,
        then_reaction=None if charge.then_reaction is None else charge.then_reaction.value,
    )
    seq = _Sequence(controller, f"Charge of {battle.unit(attacker_id).name}")
    ev = None
    try:
        for decline in declines:
            seq.run(decline)
        ev = seq.run(action, typed)
    finally:
        seq.close(cancel=ev is None)  # a refused charge takes its declines back with it
    if ev is None:
        _show_at(parent, controller.battle, (attacker_id, target_id))
        return None
    return ev


def offer_breakthrough(controller: Any, parent: QWidget | None, event: Any, victor_id: str) -> list[Any]:
    """After a Tactical Breakthrough, offer the sweeping advance: 1 more Staff Pip and a straight
    advance of 4.0" (RULE-06-4.5), one ``sweeping_advance`` event. If the advance reaches another
    enemy unit, the melee dialog opens for the second melee, fought at once with that defender
    counting as Disordered (:class:`rules.melee.SweepingAdvance`)."""
    from gui.combat_dialogs import MeleeDialog
    from rules.melee import SweepingAdvance, breakthrough_unit, sweep_contacts

    battle, tables = controller.battle, controller.tables
    if breakthrough_unit(battle) != victor_id:
        return []
    victor = battle.unit(victor_id)
    brigade = battle.brigade_of(victor)
    cost = int(tables.value("command.staff_pips.cost_of_sweeping_advance"))
    dist = float(tables.value("melee.outcome.sweeping_advance_in"))
    who = brigade.brigadier.name or brigade.name
    if brigade.staff_pips < cost:
        dialogs.show_message(
            parent,
            "Tactical Breakthrough",
            f"{victor.name} broke through, but {who} has no Staff Pip left for a sweeping advance (RULE-06-4.5).",
        )
        return []
    reached = sweep_contacts(battle, victor_id, tables)
    then = (
        f"It reaches {battle.unit(reached[0]).name}: the second melee is fought at once, the defender "
        "counting as Disordered."
        if reached
        else "It reaches no enemy unit."
    )
    if not dialogs.ask_yes_no(
        parent,
        "Tactical Breakthrough",
        f"{victor.name} broke through (RULE-06-4.5). Spend {cost} more Staff Pip of {who} for a sweeping "
        f'advance of {dist:g}" straight forward?\n\n{then}',
    ):
        return []
    if not reached:
        ev = controller.run(SweepingAdvance(victor_id))
        return [] if ev is None else [ev]
    dlg = MeleeDialog(
        battle,
        tables,
        program_dice=lambda: program_dice(controller),
        defender_id=reached[0],
        sweep_victor=victor_id,
        parent=parent,
    )
    if not _accepted(dlg):
        return []
    ev = controller.run(dlg.action(), dlg.dice.table_dice())
    return [] if ev is None else [ev]


@_guarded
def declare_charge(
    controller: Any,
    parent: QWidget | None = None,
    attacker_id: str | None = None,
    target_id: str | None = None,
) -> Any:
    """Game > Declare charge: pick the charger and its target, see the problems and the odds, confirm,
    then play the charge (:func:`play_charge`)."""
    from gui.combat_dialogs import ChargeDialog

    if _no_game(controller, parent, "Declare charge"):
        return None
    dlg = ChargeDialog(controller.battle, controller.tables, attacker_id, target_id, parent)
    if not _accepted(dlg):
        return None
    return play_charge(controller, parent, dlg.attacker_id(), dlg.target_id())


# -- shooting (Phase 3) and melee (Phase 4) ---------------------------------------------------------


@_guarded
def shoot(controller: Any, parent: QWidget | None = None, firer_id: str | None = None) -> Any:
    """Game > Shoot: pick a firer and one of its legal targets, roll, apply."""
    from gui.combat_dialogs import ShootDialog

    if _no_game(controller, parent, "Shoot"):
        return None
    dlg = ShootDialog(
        controller.battle,
        controller.tables,
        program_dice=lambda: program_dice(controller),
        firer_id=firer_id,
        parent=parent,
    )
    if not _accepted(dlg):
        return None
    return controller.run(dlg.action(), dlg.dice.table_dice())


@_guarded
def resolve_melee(
    controller: Any,
    parent: QWidget | None = None,
    attacker_id: str | None = None,
    defender_id: str | None = None,
    melee_id: str | None = None,
) -> Any:
    """Game > Resolve melee (Phase 4): the melees the charges of Phase 2 left pending are listed and
    the chosen one is fought (RULE-06-1.1), or put off by the umpire's ruling with a reason; or an
    opposed melee roll is set up by hand (``attacker_id`` / ``defender_id``). After a Tactical
    Breakthrough the sweeping advance is offered (RULE-06-4.5)."""
    from gui.combat_dialogs import MeleeDialog
    from rules.melee import MeleeRuling, ResolvePendingMelee, pending_melees

    if _no_game(controller, parent, "Resolve melee"):
        return None
    battle = controller.battle
    dlg = MeleeDialog(
        battle,
        controller.tables,
        program_dice=lambda: program_dice(controller),
        attacker_id=attacker_id,
        defender_id=defender_id,
        pending=pending_melees(battle),
        melee_id=melee_id,
        parent=parent,
    )
    if not _accepted(dlg):
        return None
    if dlg.ruling == "put_off":
        pm = dlg.pending_melee()
        reason = dialogs.ask_reason(parent, f"putting off the melee of {battle.unit(pm.attacker).name}")
        if not reason:
            return None
        return controller.run(MeleeRuling(pm.id, reason))
    action = dlg.action()
    ev = controller.run(action, dlg.dice.table_dice())
    if ev is not None and isinstance(action, ResolvePendingMelee):
        offer_breakthrough(controller, parent, ev, dlg.situation().attacker)
    return ev


# -- buildings: a garrison (Phase 2) and a bombardment (Phase 3) -----------------------------------


def _refused(parent: QWidget | None, title: str, problem: str | None) -> bool:
    """Tell the umpire why the rules refuse what the dialog was left at (with its rule)."""
    if problem is None:
        return False
    dialogs.show_message(parent, title, f"Not done: {problem}", "warning")
    return True


@_guarded
def garrison_building(
    controller: Any, parent: QWidget | None = None, unit_id: str | None = None, feature_id: str | None = None
) -> Any:
    """Game > Garrison a building (Phase 2): pick a unit touching a building and occupy it
    (``garrison_building``, RULE-03-3.1). A refusal is shown with its rule."""
    from gui.combat_dialogs import GarrisonDialog

    title = "Garrison a building"
    if _no_game(controller, parent, title):
        return None
    dlg = GarrisonDialog(controller.battle, controller.tables, unit_id, feature_id, parent)
    if not _accepted(dlg) or _refused(parent, title, dlg.problem()):
        return None
    return controller.run(dlg.action())


@_guarded
def bombard_building(
    controller: Any,
    parent: QWidget | None = None,
    battery_id: str | None = None,
    feature_id: str | None = None,
) -> Any:
    """Game > Bombard a building (Phase 3): a battery fires at an enemy-held building, with the
    program's dice or the dice typed at the table (``bombard_building``, RULE-03-3.2)."""
    from gui.combat_dialogs import BombardDialog

    title = "Bombard a building"
    if _no_game(controller, parent, title):
        return None
    dlg = BombardDialog(
        controller.battle,
        controller.tables,
        program_dice=lambda: program_dice(controller),
        battery_id=battery_id,
        feature_id=feature_id,
        parent=parent,
    )
    if not _accepted(dlg) or _refused(parent, title, dlg.problem()):
        return None
    return controller.run(dlg.action(), dlg.dice.table_dice())


__all__ = [
    "bombard_building",
    "declare_charge",
    "front_first",
    "garrison_building",
    "handle_moves",
    "is_march",
    "march_group",
    "move_unit",
    "offer_breakthrough",
    "offer_window",
    "open_window",
    "open_window_a",
    "open_window_b",
    "place_unit",
    "play_charge",
    "program_dice",
    "resolve_melee",
    "shoot",
]
