"""The roster's editing: add, edit and remove units and brigades, each as one action of the rules.

:class:`RosterEditing` is the part of :class:`gui.roster.RosterView` behind its Add, Edit and
Remove buttons, its double-click and its context menu: it opens the order of battle's dialogs
(:mod:`gui.order_of_battle_dialogs`) through the dialogs seam and runs what they give as an
AddUnit, EditUnit, RemoveUnit, AddBrigade, EditBrigade or RemoveBrigade action.
:func:`unit_changes` and :func:`brigade_changes` give what an edit changed, as those actions take it.
"""

from __future__ import annotations

from typing import Any

from rules.battle.order_of_battle import Brigade
from rules.battle.unit import Unit
from rules.battle.words import plural


class RosterEditing:
    """Adding, editing and removing units and brigades, for :class:`gui.roster.RosterView` (which
    gives ``controller`` and ``current()``, the kind and id of the row chosen)."""

    def _actions(self):
        from rules import actions  # the rules' actions; imported here so the roster loads without them

        return actions

    def add_unit(self) -> None:
        from gui import dialogs
        from gui.order_of_battle_dialogs import UnitDialog

        battle = self.controller.battle
        if battle is None:
            return
        if not battle.brigades:
            dialogs.show_message(
                self, "Add unit", "Add a brigade first: every unit belongs to one.", "warning"
            )
            return
        kind, ident = self.current()
        brigade = None
        if kind == "brigade":
            brigade = ident
        elif kind == "unit" and ident in battle.units:
            brigade = battle.units[ident].brigade
        dlg = UnitDialog(battle, None, self, brigade=brigade)
        if dialogs.exec_dialog(dlg) != dialogs.QDialog.DialogCode.Accepted:
            return
        unit = dlg.unit()
        if self.controller.run(self._actions().AddUnit(unit=unit.to_dict())) is not None:
            self.controller.select([unit.id])

    def add_brigade(self) -> None:
        from gui import dialogs
        from gui.order_of_battle_dialogs import BrigadeDialog

        battle = self.controller.battle
        if battle is None:
            return
        kind, ident = self.current()
        side = ident if kind == "side" else None
        dlg = BrigadeDialog(battle, None, self, side=side)
        if dialogs.exec_dialog(dlg) != dialogs.QDialog.DialogCode.Accepted:
            return
        self.controller.run(self._actions().AddBrigade(brigade=dlg.brigade().to_dict()))

    def edit_current(self) -> None:
        from gui import dialogs
        from gui.order_of_battle_dialogs import BrigadeDialog, UnitDialog

        battle = self.controller.battle
        kind, ident = self.current()
        if battle is None or kind is None:
            return
        if kind == "unit":
            dlg = UnitDialog(battle, battle.units[ident], self)
            if dialogs.exec_dialog(dlg) == dialogs.QDialog.DialogCode.Accepted:
                values = unit_changes(battle.units[ident], dlg.unit())
                if values:
                    self.controller.run(self._actions().EditUnit(unit_id=ident, values=values))
        elif kind == "brigade":
            dlg = BrigadeDialog(battle, battle.brigades[ident], self)
            if dialogs.exec_dialog(dlg) == dialogs.QDialog.DialogCode.Accepted:
                values = brigade_changes(battle.brigades[ident], dlg.brigade())
                if values:
                    self.controller.run(self._actions().EditBrigade(brigade_id=ident, values=values))

    def remove_current(self) -> None:
        from gui import dialogs

        battle = self.controller.battle
        kind, ident = self.current()
        if battle is None or kind not in ("unit", "brigade"):
            return
        if kind == "unit":
            u = battle.units[ident]
            children = [c.name for c in battle.units.values() if c.parent == u.id]
            extra = f"\nIts detached stands go with it: {', '.join(children)}." if children else ""
            if dialogs.ask_yes_no(self, "Remove unit", f"Remove {u.name} from the order of battle?{extra}"):
                self.controller.run(self._actions().RemoveUnit(unit_id=u.id))
        else:
            b = battle.brigades[ident]
            n = len(battle.oob.units_of_brigade(b.id))
            extra = f" and its {plural(n, 'unit')}" if n else ""
            if dialogs.ask_yes_no(
                self, "Remove brigade", f"Remove {b.name}{extra} from the order of battle?"
            ):
                self.controller.run(self._actions().RemoveBrigade(brigade_id=b.id))


def unit_changes(before: Unit, after: Unit) -> dict[str, Any]:
    """The values of a unit that an edit changes, as an EditUnit action takes them."""
    b, a = before.to_dict(), after.to_dict()
    return {k: v for k, v in a.items() if k != "id" and b.get(k) != v}


def _flat(b: Brigade) -> dict[str, Any]:
    return {
        "name": b.name,
        "side": b.side,
        "staff_pips": b.staff_pips,
        "staff_pips_reserved": b.staff_pips_reserved,
        "state": b.state.value,
        "brigadier_name": b.brigadier.name,
        "attached_to": b.brigadier.attached_to,
        "brigadier_status": b.brigadier.status.value,
    }


def brigade_changes(before: Brigade, after: Brigade) -> dict[str, Any]:
    """The values of a brigade that an edit changes, as an EditBrigade action takes them."""
    b, a = _flat(before), _flat(after)
    return {k: v for k, v in a.items() if b.get(k) != v}
