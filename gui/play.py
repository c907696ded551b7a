"""Playing a turn in the window: a move or a charge through its Trigger Windows, shooting and melee.

The procedure of play is the rules' (:mod:`rules.procedure`): a march, a group march, a charge or a
window opened by hand stops at each interruption, and this module asks the defending side with its
dialog (:class:`gui.reaction_dialog.ReactionDialog`) and gives the rules its answer, until the
procedure returns its step, which the controller commits as one journal step: one transaction, one
Undo, one change notice to the views. A dialog cancelled part way writes nothing, unless the
program's dice have rolled for an earlier window (see Dice below). The command line
asks the same procedure on a terminal (:mod:`cli.terminal_play`), so the same answers give the same
journal.

An assault is played as the rules order it: initiated in Phase 2, resolved in Phase 4
(RULE-06-1.1). Declared in Phase 2, after the umpire has seen its odds, the defender answers at
Window B and the step is one ``charge_approach`` action (after a ``decline_reaction`` for each
defender that answered "No reaction") that ends in a stall, a halt, or contact: the two units
Engaged and their melee pending. In Phase 4, Game > Resolve melee lists the pending melees and
opens the melee dialog for the chosen one; it is one ``resolve_pending_melee`` action (with the
Leader Loss rolls).

Dice: every dialog lets the umpire type the dice rolled at the table or let the program roll. The
program's dice are the game's own seeded dice, and they roll only when the umpire commits: until
then a dialog shows what may happen, each outcome with its exact chance, and the modifiers and
rules that apply (:mod:`rules.chances`), never a face. Dice typed at the table were rolled in the
open: their result is shown before it is applied. A march or charge stopped at a window after the
program's dice rolled for an earlier one keeps what they decided (:meth:`rules.procedure.Procedure.kept`).

The functions the window's menus call take ``(controller, parent)``:

* :func:`declare_charge` (Phase 2), :func:`shoot` (Phase 3), :func:`resolve_melee` (Phase 4);
* :func:`garrison_building` (Phase 2, RULE-03-3.1) and :func:`bombard_building` (Phase 3,
  RULE-03-3.2): a refusal of the rules is told through ``dialogs.show_message`` with its rule;
* :func:`open_window_a`, :func:`open_window_b` (a Trigger Window opened by hand);
* :func:`move_units` is called by the canvas with the dragged units' moves (``place``: Shift held).
  What they are is the rules' to say (:func:`rules.procedure.move_units`, one unit exactly the
  command line's ``move``): in the active side's Phase 2 a unit marches through its windows and a
  group marches unit by unit, front-most first; with Shift held, or out of a march, the units are
  the umpire's placement. This module only answers the procedure's questions: each window with the
  defending side's dialog, and a placement's reason (where the units would march) with
  ``dialogs.ask_reason``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from PySide6.QtWidgets import QDialog, QWidget

from gui import dialogs
from gui.reaction_dialog import ManualWindowDialog, ReactionDialog
from rules import procedure
from rules.battle.battle import Battle
from rules.battle.words import Phase
from rules.errors import RulesError
from rules.procedure import Answer, ReasonAsked
from rules.reactions.declare import Window
from rules.reactions.triggers import TriggerWindow

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


# -- the procedure of play, asked through dialogs ----------------------------------------------------


def _answer_of(dlg: ReactionDialog) -> Answer:
    """The defending side's answer as its dialog was left: a choice per defender, and the dice
    typed at the table (None: the program's dice)."""
    typed = dlg.dice.table_dice()
    # a defender's answer the umpire took from the side's device, left as taken, is logged as sent
    # from the table (gui.players_devices.TableAnswers)
    taken = getattr(dlg, "table_answer", None) or {}
    choices = [
        replace(c, from_table=True)
        if taken.get(c.defender) == (c.reaction.value if c.reaction is not None else "none")
        else c
        for c in dlg.choices()
    ]
    return Answer(tuple(choices), None if typed is None else typed.remaining)


def _ask(
    controller: Any, parent: QWidget | None, proc: procedure.Procedure, units: Sequence[str] = ()
) -> Answer | str | None:
    """Ask the procedure's pending question; None if the umpire cancelled. A placement's reason is
    asked with ``dialogs.ask_reason``; a window opens the defending side's dialog, and the canvas
    shows ``units`` (and the mover) where the procedure has them at the window."""
    inter = proc.pending
    assert inter is not None
    if isinstance(inter, ReasonAsked):
        return dialogs.ask_reason(parent, inter.what) or None
    if len(inter.order) > 1:  # under the dialogs, the status bar says where the group has got to
        i, order = inter.position, inter.order
        rest = f"; then {', '.join(order[i:])}" if i < len(order) else ""
        _say(parent, f"Group march, {i} of {len(order)}: {order[i - 1]} marches{rest}")
    _show_at(parent, inter.battle, (*units, inter.mover))
    dlg = ReactionDialog(
        inter.battle,
        inter.window,
        controller.tables,
        preview=inter.preview,
        chances=inter.chances,
        extras=inter.extras,
        dice_rolled=proc.dice_rolled > 0,
        parent=parent,
    )
    _beside_units(parent, dlg, [inter.mover, *(d.defender for d in inter.window.defenders)])
    from gui.players_devices import table_answers

    table = table_answers(parent, controller, dlg, inter)  # the side's devices, when served
    try:
        if not _accepted(dlg):
            return None
    finally:
        if table is not None:
            table.close()
    return _answer_of(dlg)


def _beside_units(parent: QWidget | None, dlg: QDialog, unit_ids: Sequence[str]) -> None:
    """A Trigger Window's dialog does not cover the units it is about: they are brought into view
    and the dialog is put beside them; where no side of them has room for it, it goes to the side
    of the screen and the map scrolls them into the part of the view it leaves free."""
    from gui import screens

    canvas = getattr(parent, "canvas", parent)
    show = getattr(canvas, "show_units", None)
    if show is None:
        return
    # its whole size where the screen has room (QWidget.adjustSize would stop at two thirds of
    # the screen's height, and leave a laptop's dialog scrolling for room it has)
    dlg.resize(dlg.sizeHint())
    screens.fit_dialog(dlg)
    where = show(unit_ids)
    if where is None or screens.place_beside(dlg, where):
        return
    a = screens.available(dlg)
    size = dlg.size()
    dlg.move(a.right() - size.width() - screens.FRAME_PX.width() + 1, a.top())
    show(
        unit_ids,
        clear_of=dlg.frameGeometry().adjusted(0, 0, screens.FRAME_PX.width(), screens.FRAME_PX.height()),
    )


def play(
    controller: Any, parent: QWidget | None, proc: procedure.Procedure, units: Sequence[str] = ()
) -> list[Any]:
    """Carry a procedure of play through its windows, each asked with the defending side's dialog,
    then commit its step: one transaction, one Undo, one change notice. A dialog cancelled before
    the program's dice have rolled writes nothing (the units are shown back where the battle has
    them); one cancelled after they rolled for an earlier window stops the march or charge there,
    and what the dice decided is committed, and the umpire told so (:meth:`Procedure.kept`). An
    answer the rules refuse is told and asked again."""
    pending = proc.pending
    mover = (pending.mover,) if pending is not None and not isinstance(pending, ReasonAsked) else ()
    shown = tuple(dict.fromkeys([*units, *mover]))
    while proc.pending is not None:
        answer = _ask(controller, parent, proc, shown)
        if answer is None:
            kept = proc.kept()
            if kept is not None and kept.actions:
                events = controller.commit(kept)
                dialogs.show_message(parent, proc.pending.label, kept.stopped + ".", "information")
                return events
            _show_at(parent, controller.battle, shown)
            return []
        try:
            proc.answer(answer)
        except RulesError as exc:
            controller.actionFailed.emit(str(exc))
    assert proc.result is not None
    events = controller.commit(proc.result)
    if not events:
        _show_at(parent, controller.battle, shown)
    return events


def offer_window(controller: Any, parent: QWidget | None, window: TriggerWindow) -> list[Any] | None:
    """Open the defender's dialog for a window opened by hand and commit what it chooses, as one
    step: each reaction, or a ``decline_reaction`` for "No reaction", so the log shows that the
    window was offered and declined. Returns the reaction events (empty: no reaction), or None if
    the umpire cancelled."""
    proc = procedure.window(controller.battle, controller.tables, controller.game.dice, window)
    answer = _ask(controller, parent, proc)
    if answer is None:
        return None
    proc.answer(answer)
    events = controller.commit(proc.result)
    return [e for e in events if e.action.type != "decline_reaction"]


@_guarded
def move_units(
    controller: Any, parent: QWidget | None, moves: Sequence[tuple], *, place: bool = False
) -> list[Any]:
    """Play the units dragged on the canvas, ``moves`` being ``(unit_id, x, y, facing)``, through
    the rules' procedure (:func:`rules.procedure.move_units`), and commit its step: one transaction,
    one Undo, one change notice. Returns the events (none if nothing was done).

    The rules decide what the drag is: one unit of the side to act in its Phase 2 marches through
    its Trigger Windows A, exactly as the command line's ``move``; a group marches unit by unit,
    each through its own windows, front-most first (the status bar follows it); with ``place``
    (Shift held), or out of a march (another phase, the other side), the units are the umpire's
    placement, and where they would march the procedure asks for the reason. A march the rules
    refuse (no allowance left, a stalled charger, a point off the table) is told and nothing is
    done; in a group, that unit is left out and the others march. Cancelling a dialog writes
    nothing, unless the program's dice have rolled for an earlier window (:func:`play`)."""
    if controller.game is None or not moves:
        return []
    battle = controller.battle
    proc = procedure.move_units(battle, controller.tables, controller.game.dice, moves, place=place)
    units = [m[0] for m in moves if m[0] in battle.units]
    if len(units) > 1:
        _show_at(parent, battle, units)
    events = play(controller, parent, proc, units)
    if len(proc.marching) > 1 and events:
        _say(parent, f"Group march done: {', '.join(proc.marching)}")
    return events


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


@_guarded
def play_charge(controller: Any, parent: QWidget | None, attacker_id: str, target_id: str) -> Any:
    """Phase 2 of an assault (RULE-06-1.1) through Window B's dialog (:func:`rules.procedure.charge`):
    one ``charge_approach`` event, after a ``decline_reaction`` event for each defender that answered
    "No reaction", all one step. On contact the melee is left pending for Phase 4 (Game > Resolve
    melee). A charge at a screen opens the screen's dialog, then that of the unit behind it at its own
    4.0" line (RULE-04-4.4). Returns the ``charge_approach`` event; None if cancelled or refused."""
    proc = procedure.charge(
        controller.battle, controller.tables, controller.game.dice, attacker_id, target_id
    )
    events = play(controller, parent, proc, (attacker_id, target_id))
    return events[-1] if events else None


def offer_breakthrough(controller: Any, parent: QWidget | None, event: Any, victor_id: str) -> list[Any]:
    """After a Tactical Breakthrough, offer the sweeping advance: 1 more Staff Pip and a straight
    advance of 4.0" (RULE-06-4.5), one ``sweeping_advance`` event. If the advance reaches another
    enemy unit, the melee dialog opens for the second melee, fought at once with that defender
    counting as Disordered (:class:`rules.melee.melee.SweepingAdvance`)."""
    from gui.combat_dialogs import MeleeDialog
    from rules.melee.melee import SweepingAdvance, breakthrough_unit, sweep_contacts

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
    from gui.combat_dialogs.charge import charge_dialog

    if _no_game(controller, parent, "Declare charge"):
        return None
    if attacker_id is None:  # the unit of the side to act selected on the map
        attacker_id = _selected_own(controller)
    # the window's own Charge dialog, filled for this charge (made once: its widgets and chart)
    dlg = charge_dialog(controller.battle, controller.tables, attacker_id, target_id, parent)
    if not _accepted(dlg):
        return None
    return play_charge(controller, parent, dlg.attacker_id(), dlg.target_id())


def _selected_own(controller: Any) -> str | None:
    """The one unit selected, if it is of the side to act (what a charge or a volley starts from)."""
    battle, sel = controller.battle, controller.selection
    if battle is not None and len(sel) == 1 and sel[0] in battle.units:
        if battle.units[sel[0]].side == battle.active_side:
            return sel[0]
    return None


# -- shooting (Phase 3) and melee (Phase 4) ---------------------------------------------------------


@_guarded
def shoot(controller: Any, parent: QWidget | None = None, firer_id: str | None = None) -> Any:
    """Game > Shoot: pick a firer and one of its legal targets, roll, apply."""
    from gui.combat_dialogs import ShootDialog

    if _no_game(controller, parent, "Shoot"):
        return None
    if firer_id is None:  # the unit of the side to act selected on the map
        firer_id = _selected_own(controller)
    dlg = ShootDialog(
        controller.battle,
        controller.tables,
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
    from rules.melee.melee import MeleeRuling, ResolvePendingMelee, pending_melees

    if _no_game(controller, parent, "Resolve melee"):
        return None
    battle = controller.battle
    dlg = MeleeDialog(
        battle,
        controller.tables,
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
    "garrison_building",
    "move_units",
    "offer_breakthrough",
    "offer_window",
    "open_window",
    "open_window_a",
    "open_window_b",
    "play_charge",
    "resolve_melee",
    "shoot",
]
