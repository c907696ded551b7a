"""Moving units on the map by dragging them: while a unit is dragged, the line from where it stood
and how far that is (for a march, how far the rules let it go, and why it would halt); on release,
every dragged unit's move as one request (marches, or with Shift held the umpire's placement),
and the items put back where the battle has them if the rules refused.

:class:`UnitMoves` is a part of :class:`~gui.canvas.scene.BattlefieldScene` (its ``units``, its
controller and its ``moveRequested`` and ``measured`` signals).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QLineF, QPointF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsLineItem

from gui.canvas.labels import NameLabel
from gui.canvas.style import Z_TOOL, _wrap, cosmetic_pen, px_per_inch
from gui.canvas.unit_items import UnitItem
from rules.battle.unit import Unit
from rules.errors import RulesError


class UnitMoves:
    """Dragging units: the drag's line and label, and the moves asked for on release, for
    :class:`~gui.canvas.scene.BattlefieldScene`."""

    def show_drag_distance(self, item: UnitItem, place: bool = False) -> None:
        """While a unit is dragged: the line from where it stood, and how far that is. In a march
        (a unit of the active side in its Phase 2, Shift not held) the label says how far the
        march goes by the rules (:func:`rules.actions.plan_march`: the allowance left this turn,
        terrain and obstacles) and why it would halt; otherwise that it is the umpire's placement."""
        start = item._origin
        end = item._origin + item.pos()
        d = math.hypot(item.pos().x(), item.pos().y())
        if self._drag_line is None:
            self._drag_line = QGraphicsLineItem()
            self._drag_line.setPen(cosmetic_pen("#37474f", 2, Qt.PenStyle.DashLine))
            self._drag_line.setZValue(Z_TOOL)
            self._drag_label = NameLabel(None, px=13, bold=True)  # on a pale halo: it reads over the map
            self._drag_label.setZValue(Z_TOOL + 1)
            self.addItem(self._drag_line)
            self.addItem(self._drag_label)
        self._drag_line.setLine(QLineF(start, end))
        text, short = self._march_text(item.unit, end.x(), end.y(), d, place)
        self._drag_label.setText(text)
        self._drag_label.setBrush(QColor("#c62828" if short else "#1b5e20"))
        self._place_drag_label(end)
        self.measured.emit(f"{item.unit.name}: {text}")

    def _place_drag_label(self, end: QPointF) -> None:
        """The drag label beside the pointer, on its left where on its right it would run out of
        the view."""
        label = self._drag_label
        pos = end + QPointF(0.6, -1.2)
        for view in self.views():
            px_per_in = px_per_inch(view.transform())
            if px_per_in <= 0:
                continue
            width_in = label.boundingRect().width() / px_per_in
            seen = view.mapToScene(view.viewport().rect()).boundingRect()
            if pos.x() + width_in > seen.right():
                pos.setX(max(end.x() - 0.6 - width_in, seen.left()))
            break
        label.setPos(pos)

    def _march_text(self, unit: Unit, x: float, y: float, d: float, place: bool) -> tuple[str, bool]:
        """The drag label: the distance, and for a march how far the rules let it go."""
        from rules.actions import PLACE, allowance_of, plan_march, remaining_move_in
        from rules.legality import march_refusal

        battle = self.controller.battle
        tables = self.controller.tables or self.tables
        if place or battle is None or unit.id not in battle.units:
            return f'{d:.1f}": placed by the umpire', False
        refusal = march_refusal(battle, unit.id, tables)
        if refusal is not None and refusal.action == PLACE:
            return f'{d:.1f}": placed by the umpire', False
        if refusal is not None:
            return f'{d:.1f}": cannot march: {refusal}', True
        try:
            allowance = allowance_of(unit, tables)
            left = remaining_move_in(battle, unit.id, tables)
            plan = plan_march(battle, unit.id, x, y, tables)
        except RulesError as exc:
            return f'{d:.1f}": {exc}', True
        text = (
            f'{d:.1f}" dragged; {left:g}" of its {allowance:g}" march left ({unit.formation.label.lower()})'
        )
        if plan.complete:
            return text, False
        why = plan.halt_reason or "its movement allowance is used up"
        halt = "\n".join(_wrap(f'halts after {plan.moved_in:.1f}" ({why})', 60))
        return f"{text}\n{halt}", True

    def hide_drag_distance(self) -> None:
        for it in (self._drag_line, self._drag_label):
            if it is not None and it.scene() is self:
                self.removeItem(it)
        self._drag_line = self._drag_label = None

    def commit_drag(self, place: bool = False) -> None:
        """The dragged units' moves, as one request: marches, or with ``place`` (Shift held) the
        umpire's placement."""
        moves = []
        for it in self.units.values():
            d = it.pos()
            if abs(d.x()) > 1e-6 or abs(d.y()) > 1e-6:
                u = it.unit
                moves.append((u.id, round(u.x + d.x(), 2), round(u.y + d.y(), 2), u.facing_deg))
        if moves:
            self.placing = place
            try:
                self.moveRequested.emit(moves)
            finally:
                self.placing = False
            # if the rules refused, put the items back where the battle has them
            for uid, *_ in moves:
                it = self.units.get(uid)
                if it is not None and it.pos() != QPointF(0, 0):
                    it.set_unit(it.unit)

    def request_move(self, unit_id: str, x: float, y: float, facing: float) -> None:
        self.moveRequested.emit([(unit_id, x, y, facing)])
        it = self.units.get(unit_id)
        if it is not None and (it.rotation() != 0 or it.pos() != QPointF(0, 0)):
            it.set_unit(it.unit)
