"""The unit inspector: the selected unit whole, and the umpire's overrides of any of its values.

Every value can be changed here (stands, micro-hits, markers, formation, position and facing, and
the brigade's Staff Pips and state). Nothing changes until the umpire presses "Override…" and
gives a reason: the change is then one logged ``Override`` action per unit or brigade, with that
reason, and can be undone like any other.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gui import icons, theme
from gui.controller import ChangeSummary
from gui.interfaces import ControllerLike
from rules.battle.order_of_battle import Brigade
from rules.battle.unit import Unit, health_of
from rules.battle.words import FORMATIONS_BY_KIND, BrigadeState, BrigadierStatus, Marker, Weapon


def brigade_line(b: Brigade) -> str:
    """The brigade and its Brigadier, who is "in command" unless wounded, killed or captured."""
    who = b.brigadier.name or "no Brigadier"
    if not b.brigadier.name:
        return f"{b.name} — no Brigadier"
    if b.brigadier.status == BrigadierStatus.ACTIVE:
        return f"{b.name} — {who}, in command"
    return f"{b.name} — {who}, {b.brigadier.status.label.lower()}"


class InspectorView(QWidget):
    """Shows the one selected unit and its brigade; edits become overrides with a reason."""

    def __init__(self, controller: ControllerLike, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("inspector")
        self.controller = controller
        self.unit_id: str | None = None
        self._loading = False

        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        outer.addWidget(self.title)
        self.empty = QLabel("Select a unit on the map or in the roster.", self)
        self.empty.setStyleSheet(f"color: {theme.MUTED}; padding: 12px;")
        self.empty.setWordWrap(True)
        outer.addWidget(self.empty)

        self.body = QWidget(self)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.body)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll = scroll
        outer.addWidget(scroll, 1)
        form = QFormLayout(self.body)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.facts = QLabel(self.body)
        self.facts.setWordWrap(True)
        self.facts.setTextFormat(Qt.TextFormat.RichText)
        form.addRow(self.facts)

        self.stands = QSpinBox(self.body)
        self.stands.setRange(0, 99)
        self.stands_start = QLabel(self.body)
        row = QHBoxLayout()
        row.addWidget(self.stands)
        row.addWidget(self.stands_start)
        row.addStretch(1)
        form.addRow("Stands", row)
        self.micro = QSpinBox(self.body)
        self.micro.setRange(0, 1)
        form.addRow("Micro-hits", self.micro)
        self.health = QLabel(self.body)
        form.addRow("Health", self.health)
        self.formation = QComboBox(self.body)
        form.addRow("Formation", self.formation)
        self.x = QDoubleSpinBox(self.body)
        self.y = QDoubleSpinBox(self.body)
        self.facing = QDoubleSpinBox(self.body)
        for w in (self.x, self.y):
            w.setRange(0, 1000)
            w.setDecimals(2)
            w.setSuffix(' "')
        self.facing.setRange(0, 359.9)
        self.facing.setDecimals(1)
        self.facing.setSuffix("°")
        self.facing.setWrapping(True)
        pos = QHBoxLayout()
        for w in (self.x, self.y):
            pos.addWidget(w)
        form.addRow("Position x, y", pos)
        form.addRow("Facing", self.facing)
        self.hidden = QCheckBox("Hidden deployment", self.body)
        self.hidden.setToolTip(
            "The enemy's player view and report do not show the unit until it is spotted, fires or "
            "moves in sight (the club defaults terrain.spotting.*)"
        )
        form.addRow("Hidden", self.hidden)
        box = QGroupBox("Markers", self.body)
        grid = QGridLayout(box)
        self.markers: dict[Marker, QCheckBox] = {}
        for i, m in enumerate(Marker):
            cb = QCheckBox(m.label, box)
            cb.setIcon(icons.marker_icon(m))
            grid.addWidget(cb, i // 2, i % 2)
            self.markers[m] = cb
        form.addRow(box)

        bbox = QGroupBox("Brigade", self.body)
        bform = QFormLayout(bbox)
        self.brigade_label = QLabel(bbox)
        self.brigade_label.setWordWrap(True)
        bform.addRow(self.brigade_label)
        self.pips = QSpinBox(bbox)
        self.pips.setRange(0, 20)
        self.reserved = QSpinBox(bbox)
        self.reserved.setRange(0, 20)
        self.state = QComboBox(bbox)
        for s in BrigadeState:
            self.state.addItem(icons.brigade_state_icon(s), s.label, s.value)
        bform.addRow("Staff Pips", self.pips)
        bform.addRow("Reserved", self.reserved)
        bform.addRow("State", self.state)
        form.addRow(bbox)

        buttons = QHBoxLayout()
        self.override_button = QPushButton("Override…", self)
        self.override_button.setToolTip("Set the changed values as an umpire's ruling; you will be asked why")
        self.revert_button = QPushButton("Revert", self)
        buttons.addStretch(1)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.override_button)
        outer.addLayout(buttons)
        self.pending = QLabel(self)
        self.pending.setStyleSheet(f"color: {theme.WARN};")
        self.pending.setWordWrap(True)
        outer.addWidget(self.pending)

        for w in (self.stands, self.micro, self.pips, self.reserved):
            w.valueChanged.connect(self._edited)
        for w in (self.x, self.y, self.facing):
            w.valueChanged.connect(self._edited)
        for w in (self.formation, self.state):
            w.currentIndexChanged.connect(self._edited)
        for cb in [*self.markers.values(), self.hidden]:
            cb.toggled.connect(self._edited)
        self.override_button.clicked.connect(self.override)
        self.revert_button.clicked.connect(self.load)

        controller.selectionChanged.connect(self._on_selection)
        controller.changed.connect(self._on_changed)
        looking = getattr(controller, "lookingChanged", None)
        if looking is not None:  # a moment looked back at is shown, never edited
            looking.connect(lambda _seq: self.load())
        self._on_selection(controller.selection)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(340, 600)

    # -- showing -------------------------------------------------------------------------
    def _on_selection(self, ids) -> None:
        ids = tuple(ids)
        self.unit_id = ids[0] if len(ids) == 1 else None
        if len(ids) > 1:
            self.empty.setText(f"{len(ids)} units selected: select one to inspect it.")
        else:
            self.empty.setText("Select a unit on the map or in the roster.")
        self.load()

    def _on_changed(self, summary: ChangeSummary) -> None:
        battle = self.controller.battle
        if self.unit_id is None or battle is None:
            return
        u = battle.units.get(self.unit_id)
        if u is None:
            self.unit_id = None
            self.load()
            return
        if summary.reset or self.unit_id in summary.units or u.brigade in summary.brigades:
            self.load()

    def _editors(self) -> list[QWidget]:
        """The fields an override is made from."""
        return [
            self.stands,
            self.micro,
            self.formation,
            self.x,
            self.y,
            self.facing,
            self.hidden,
            self.pips,
            self.reserved,
            self.state,
            *self.markers.values(),
        ]

    def unit(self) -> Unit | None:
        battle = self.controller.battle
        if battle is None or self.unit_id is None:
            return None
        return battle.units.get(self.unit_id)

    def load(self) -> None:
        """Show the unit as the battle has it, dropping any edits not yet overridden."""
        u = self.unit()
        self.body.setVisible(u is not None)
        self.scroll.setVisible(u is not None)
        self.empty.setVisible(u is None)
        past = getattr(self.controller, "looking_back", None) is not None
        self.override_button.setVisible(u is not None and not past)
        self.revert_button.setVisible(u is not None and not past)
        for w in self._editors():
            w.setEnabled(not past)
        self.pending.setText("")
        if u is None:
            self.title.setText("")
            return
        battle = self.controller.battle
        b = battle.brigade_of(u)
        side = battle.oob.side(u.side)
        self._loading = True
        try:
            self.title.setText(
                f"<span style='font-size:14pt; font-weight:bold'>{u.name}</span>"
                f"<br><span style='color:{side.colour}'>■</span> {side.name} — {b.name}"
            )
            arms = [u.kind.label, u.quality.label.lower()]
            if u.weapon != Weapon.NONE:
                arms.append(u.weapon.label.lower())
            if u.gun:
                arms.append(icons.gun_words(u.gun))
            parent = f"<br>Detached from {battle.units[u.parent].name}" if u.parent in battle.units else ""
            attached = (
                f"<br><b>{b.brigadier.name}</b> is attached"
                if battle.oob.has_attached_brigadier(u.id)
                else ""
            )
            traits = f"<br>Traits: {', '.join(sorted(u.traits))}" if u.traits else ""
            arrives = (
                f"<br><b>Not on the table yet</b>: it arrives {html.escape(u.arrives.words())} (Game &gt; Bring on arrivals)"
                if u.arrives is not None
                else ""
            )
            self.facts.setText(
                f"{', '.join(arms)}<br><span style='color:{theme.MUTED}'>id {u.id}</span>{parent}{attached}{traits}{arrives}"
            )
            self.stands.setRange(0, u.stands_start)
            self.stands.setValue(u.stands)
            self.stands_start.setText(f"of {u.stands_start} at the start")
            self.micro.setValue(u.micro_hits)
            self.formation.clear()
            for f in FORMATIONS_BY_KIND[u.kind]:
                self.formation.addItem(f.label, f.value)
            self.formation.setCurrentIndex(self.formation.findData(u.formation.value))
            self.x.setRange(0, battle.table_width_in)
            self.y.setRange(0, battle.table_height_in)
            self.x.setValue(u.x)
            self.y.setValue(u.y)
            self.facing.setValue(u.facing_deg)
            for m, cb in self.markers.items():
                cb.setChecked(m in u.markers)
            self.hidden.setChecked(u.hidden)
            self.brigade_label.setText(brigade_line(b))
            self.pips.setValue(b.staff_pips)
            self.reserved.setValue(b.staff_pips_reserved)
            self.state.setCurrentIndex(self.state.findData(b.state.value))
        finally:
            self._loading = False
        self._edited()

    # -- editing -------------------------------------------------------------------------
    def unit_values(self) -> dict[str, Any]:
        """The unit's values the umpire has changed here, as an Override takes them."""
        u = self.unit()
        if u is None:
            return {}
        want = {
            "stands": self.stands.value(),
            "micro_hits": self.micro.value(),
            "formation": self.formation.currentData(),
            "x": round(self.x.value(), 2),
            "y": round(self.y.value(), 2),
            "facing_deg": round(self.facing.value(), 1),
            "markers": sorted(m.value for m, cb in self.markers.items() if cb.isChecked()),
            "hidden": self.hidden.isChecked(),
        }
        have = u.to_dict()
        out = {}
        for k, v in want.items():
            h = have[k]
            if isinstance(v, float):
                if abs(v - float(h)) > 0.005:
                    out[k] = v
            elif v != h:
                out[k] = v
        if out.get("stands") == 0:
            out["micro_hits"] = 0
        return out

    def brigade_values(self) -> dict[str, Any]:
        u = self.unit()
        if u is None:
            return {}
        b = self.controller.battle.brigade_of(u)
        out: dict[str, Any] = {}
        if self.pips.value() != b.staff_pips:
            out["staff_pips"] = self.pips.value()
        if self.reserved.value() != b.staff_pips_reserved:
            out["staff_pips_reserved"] = self.reserved.value()
        if self.state.currentData() != b.state.value:
            out["state"] = self.state.currentData()
        return out

    def _edited(self, *_args) -> None:
        if self._loading:
            return
        u = self.unit()
        if u is None:
            return
        uv, bv = self.unit_values(), self.brigade_values()
        self.override_button.setEnabled(bool(uv or bv))
        self.revert_button.setEnabled(bool(uv or bv))
        h = health_of(self.stands.value(), u.stands_start)
        self.health.setText(h.label)
        self.health.setStyleSheet(f"color: {theme.ink(h.value)}; font-weight: bold;")
        changed = list(uv) + list(bv)
        self.pending.setText(
            f"Changed, not yet ruled: {', '.join(k.replace('_', ' ') for k in changed)}" if changed else ""
        )

    def override(self) -> None:
        """Ask for the reason and run the changes as Override actions (one undo step)."""
        from gui import dialogs

        u = self.unit()
        if u is None:
            return
        uv, bv = self.unit_values(), self.brigade_values()
        if not (uv or bv):
            return
        from rules.actions import Override

        what = ", ".join(k.replace("_", " ") for k in [*uv, *bv])
        reason = dialogs.ask_reason(self, f"Override {u.name}: {what}")
        if not reason:
            return
        actions = []
        if uv:
            actions.append(Override(target="unit", target_id=u.id, values=uv, reason=reason))
        if bv:
            actions.append(Override(target="brigade", target_id=u.brigade, values=bv, reason=reason))
        # if the rules refuse it, the edits stay on screen for the umpire to correct
        self.controller.run_step(actions)
