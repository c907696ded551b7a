"""Game > Bring on arrivals: the units due to arrive (a scenario's reinforcements), brought onto
the table at their entry points, as the rules of :mod:`rules.umpire.arrivals` say.

The dialog lists each group due now (a brigade at one entry point: :func:`rules.umpire.arrivals.due`)
with its units, the turn it was due and the die it needs, if any; the umpire ticks the groups that
come on. A group with a die rolls it when the umpire commits (the program's dice, or the dice
rolled at the table typed in: :class:`gui.dice_entry.DiceEntry`), one die a group, never shown
before. Each group is one step (one Undo). Units not due are listed too, greyed, with when.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox, QLabel, QVBoxLayout

from gui.dice_entry import DiceEntry, dry_run_check
from gui.validated_dialog import ValidatedDialog
from rules.actions import resolve
from rules.umpire.arrivals import ArrivalGroup, Arrive, arriving, cited, due


def group_words(battle: Any, g: ArrivalGroup) -> str:
    brigade = battle.oob.brigades.get(g.brigade)
    who = brigade.name if brigade is not None else g.brigade
    names = ", ".join(battle.unit(u).name for u in g.unit_ids)
    at = f" at {g.at}" if g.at else ""
    roll = f"; on a {g.roll} or more" if g.roll else ""
    return f"{who}{at} (due turn {g.turn}{roll}): {names}"


class ArrivalsDialog(ValidatedDialog):
    """The groups due to arrive now, to tick, and the dice for those that roll."""

    def __init__(self, controller: Any, parent: Any = None):
        super().__init__("Bring on arrivals", parent)
        self.controller = controller
        battle = controller.battle
        self.groups = due(battle)
        lay = QVBoxLayout(self.form_host)
        side = battle.oob.side_name(battle.active_side)
        intro = QLabel(
            f"The {side} units due to arrive this Phase 2. Each comes on at its entry point, and "
            f"that is its move this phase ({cited(controller.tables)}).",
            self.form_host,
        )
        intro.setWordWrap(True)
        lay.addWidget(intro)
        self.boxes: list[QCheckBox] = []
        for g in self.groups:
            brigade = battle.oob.brigades.get(g.brigade)
            at = f" at {g.at}" if g.at else ""
            roll = f", on a {g.roll} or more" if g.roll else ""
            box = QCheckBox(
                f"{brigade.name if brigade else g.brigade}{at} (due turn {g.turn}{roll})", self.form_host
            )
            box.setChecked(True)
            box.toggled.connect(lambda _on: self.revalidate())
            lay.addWidget(box)
            names = QLabel(", ".join(battle.unit(u).name for u in g.unit_ids), self.form_host)
            names.setWordWrap(True)
            names.setContentsMargins(24, 0, 0, 4)
            names.setEnabled(False)  # the units, read under the brigade they come with
            lay.addWidget(names)
            self.boxes.append(box)
        self.form_host.setMaximumWidth(620)
        intro.setMaximumWidth(620)
        later = [g for g in arriving(battle, battle.active_side) if g not in self.groups]
        if later:
            note = QLabel("Not yet: " + "; ".join(group_words(battle, g) for g in later), self.form_host)
            note.setWordWrap(True)
            note.setEnabled(False)
            lay.addWidget(note)
        if not self.groups:
            lay.addWidget(QLabel("No unit is due to arrive now.", self.form_host))
        self.dice = DiceEntry(self.form_host, what="the arrival rolls")
        self.dice.setVisible(any(g.roll for g in self.groups))
        self.dice.set_check(dry_run_check(self._dry_run))
        self.dice.changed.connect(self.revalidate)
        lay.addWidget(self.dice)
        self.revalidate()

    def chosen(self) -> list[ArrivalGroup]:
        return [g for g, box in zip(self.groups, self.boxes, strict=True) if box.isChecked()]

    def _dry_run(self, dice: Any) -> None:
        battle = self.controller.battle
        for g in self.chosen():
            if g.roll:
                resolve(battle, Arrive(g.unit_ids), dice, self.controller.tables)

    def problem(self) -> str | None:
        if not self.groups:
            return "No unit is due to arrive now."
        if not self.chosen():
            return "Tick the units that come on."
        return self.dice.problem() if any(g.roll for g in self.chosen()) else None


def bring_on_arrivals(window: Any) -> int:
    """Game > Bring on arrivals: returns how many groups were brought on (or rolled for)."""
    from gui import dialogs

    controller = window.controller
    if controller.battle is None:
        return 0
    dlg = ArrivalsDialog(controller, window)
    if dialogs.exec_dialog(dlg) != dialogs.QDialog.DialogCode.Accepted:
        return 0
    typed = dlg.dice.table_dice()
    done = 0
    for g in dlg.chosen():
        dice = typed if g.roll else None
        if controller.run(Arrive(g.unit_ids), dice) is not None:
            done += 1
    return done
