"""The turn bar at the top of the main window: the turn, the side to act, the phase (with the melees
pending) and every brigade's Staff Pips, summed by side in a big battle.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolBar, QWidget

from gui import icons, theme
from gui.controller import ChangeSummary, GameController
from rules.errors import RulesError


class TurnBar(QToolBar):
    """Turn, active side, phase and each brigade's Staff Pips."""

    MAX_LISTED = 8  # more brigades than this are summed by side (each is in the tooltip)

    def __init__(self, controller: GameController, parent: QWidget | None = None):
        super().__init__("Turn and phase", parent)
        self.setObjectName("turn_bar")
        self.setMovable(False)
        self.controller = controller
        host = QWidget(self)
        lay = QHBoxLayout(host)
        lay.setContentsMargins(6, 2, 6, 2)
        self.turn = QLabel(host)
        self.side = QLabel(host)
        self.phase = QLabel(host)
        for w in (self.turn, self.side, self.phase):
            w.setTextFormat(Qt.TextFormat.RichText)
            lay.addWidget(w)
            sep = QFrame(host)
            sep.setFrameShape(QFrame.Shape.VLine)
            lay.addWidget(sep)
        self.pips = QLabel(host)
        self.pips.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(self.pips, 1)
        self.addWidget(host)
        self._presence: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
        controller.changed.connect(self._changed)
        self.refresh()

    def _changed(self, summary: ChangeSummary) -> None:
        # the turn, the side, the phase and the pending melees are the battle's settings (the
        # melees in its records, ``extra``), the pips the brigades'; a change of units changes
        # only which brigades are still to arrive (a unit added, removed, or given an arrival)
        if summary.game or summary.brigades or summary.reset:
            self.refresh()
        elif summary.units and self.controller.battle is not None:
            if _presence(self.controller.battle) != self._presence:
                self.refresh()

    def refresh(self) -> None:
        b = self.controller.battle
        if b is None:
            for w in (self.turn, self.side, self.phase, self.pips):
                w.setText("")
            return
        self.turn.setText(f"<b style='font-size:13pt'>Turn {b.turn}</b>")
        s = b.oob.side(b.active_side)
        self.side.setText(
            f"<span style='color:{s.colour}; font-size:13pt'>■</span> <b>{html.escape(s.name)}</b> to act"
        )
        phase = f"<b>{html.escape(b.phase.title)}</b>"
        waiting = 0
        if b.extra:  # melees wait in the battle's extra state (the rules of melee load when needed)
            from rules.melee.melee import pending_melees

            try:
                waiting = len(pending_melees(b))
            except RulesError:
                waiting = 0
        if waiting:
            phase += (
                f" &nbsp;<span style='color:{theme.PROBLEM}'>"
                f"⚔ {waiting} melee{'s' if waiting > 1 else ''} pending</span>"
            )
        self.phase.setText(phase)
        parts, lines = [], []
        self._presence = _presence(b)
        on_field, coming = self._presence
        for side in b.oob.sides:
            for br in b.oob.brigades_of(side.id):
                colour = theme.ink(br.state.value)
                who = html.escape(br.brigadier.name or br.name)
                pips = icons.pips_text(br.staff_pips, br.staff_pips_reserved) or "—"
                parts.append(
                    f"<span style='color:{side.colour}'>■</span> {who} "
                    f"<span>{pips}</span>"
                    f"<span style='color:{colour}'> {br.state.label}</span>"
                    + (" (to arrive)" if br.id in coming else "")
                )
                lines.append(
                    f"{side.name}: {br.name} ({who}) — "
                    + (
                        "to arrive"
                        if br.id in coming
                        else f"{br.staff_pips} available, {br.staff_pips_reserved} reserved, {br.state.label.lower()}"
                    )
                )
        if len(parts) > self.MAX_LISTED:
            # a big battle: totals by side of the brigades on the field, every brigade in the tooltip
            parts = []
            for side in b.oob.sides:
                brs = [x for x in b.oob.brigades_of(side.id) if x.id in on_field]
                later = sum(1 for x in b.oob.brigades_of(side.id) if x.id in coming)
                avail = sum(x.staff_pips for x in brs)
                res = sum(x.staff_pips_reserved for x in brs)
                shaken = sum(1 for x in brs if x.state.value != "steady")
                parts.append(
                    f"<span style='color:{side.colour}'>■</span> {html.escape(side.name)}: "
                    f"{len(brs)} brigades, {avail} pips, {res} reserved"
                    + (f", {later} to arrive" if later else "")
                    + (
                        f", <span style='color:{theme.ink('shaken')}'>{shaken} shaken</span>"
                        if shaken
                        else ""
                    )
                )
        self.pips.setText("&nbsp;&nbsp; ".join(parts))
        self.pips.setToolTip(
            "Staff Pips: ● available, ◐ reserved for reactions (RULE-04-1.3)\n"
            + "\n".join(html.escape(x) for x in lines)
        )


def _presence(battle: Any) -> tuple[frozenset[str], frozenset[str]]:
    """The brigades counted as on the table's side of the bar (every brigade but those still to
    arrive, the umpire's new and empty ones among them) and those still to arrive (every unit of
    theirs arriving)."""
    all_arriving: dict[str, bool] = {}
    for u in battle.oob.units.values():  # one pass over the units
        all_arriving[u.brigade] = all_arriving.get(u.brigade, True) and u.arriving
    coming = frozenset(b for b, yes in all_arriving.items() if yes and b in battle.oob.brigades)
    return frozenset(battle.oob.brigades) - coming, coming
