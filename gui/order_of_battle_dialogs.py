"""The order of battle's editing dialogs: a unit (:class:`UnitDialog`) and a brigade with its
Brigadier (:class:`BrigadeDialog`), to add or to edit.

Each checks what the umpire types as it is typed (:class:`~gui.validated_dialog.ValidatedDialog`):
the OK button stays disabled while the values break a rule of the order of battle, and the reason
is shown under the form. A new unit or brigade takes an id made from its name (:func:`slug`,
:func:`unique_id`) unless one is typed.
"""

from __future__ import annotations

import re
from dataclasses import replace

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from gui import icons
from gui.validated_dialog import ValidatedDialog, combo, select_data
from rules.battle.battle import Battle
from rules.battle.order_of_battle import Brigade, Brigadier
from rules.battle.unit import Arrival, Unit, normalise_trait
from rules.battle.words import (
    FORMATIONS_BY_KIND,
    BrigadeState,
    BrigadierStatus,
    Formation,
    GunType,
    Marker,
    Quality,
    UnitKind,
    Weapon,
)
from rules.errors import RulesError

# -- ids made from names ----------------------------------------------------------------------


def slug(text: str) -> str:
    """An id made from a name: "2nd Wisconsin" -> "2nd_wisconsin"."""
    s = re.sub(r"[^a-z0-9]+", "_", text.strip().lower()).strip("_")
    return s or "unit"


def unique_id(base: str, taken: set[str] | frozenset[str]) -> str:
    if base not in taken:
        return base
    n = 2
    while f"{base}_{n}" in taken:
        n += 1
    return f"{base}_{n}"


# -- units ----------------------------------------------------------------------------------


class UnitDialog(ValidatedDialog):
    """Add a unit (``unit=None``) or edit one. :meth:`unit` gives the unit as typed."""

    def __init__(
        self,
        battle: Battle,
        unit: Unit | None = None,
        parent: QWidget | None = None,
        brigade: str | None = None,
    ):
        super().__init__("Edit unit" if unit else "Add unit", parent)
        self.battle = battle
        self.original = unit
        form = QFormLayout(self.form_host)
        self.name = QLineEdit(unit.name if unit else "", self)
        self.name.setPlaceholderText("e.g. 2nd Wisconsin")
        self.id_edit = QLineEdit(unit.id if unit else "", self)
        self.id_edit.setPlaceholderText("made from the name")
        self.id_edit.setEnabled(unit is None)
        self.brigade = combo(
            [(f"{b.name} ({battle.oob.side(b.side).name})", b.id) for b in battle.brigades.values()], self
        )
        self.kind = combo([(k.label, k) for k in UnitKind], self)
        self.formation = QComboBox(self)
        self.stands = QSpinBox(self)
        self.stands.setRange(0, 99)
        self.stands_start = QSpinBox(self)
        self.stands_start.setRange(0, 99)
        self.micro_hits = QSpinBox(self)
        self.micro_hits.setRange(0, 9)
        self.quality = combo([(q.label, q) for q in Quality], self)
        self.weapon = combo([(w.label, w) for w in Weapon], self)
        self.gun = combo([("(none)", None)] + [(g.label, g) for g in GunType], self)
        self.parent_unit = QComboBox(self)
        self.x = QDoubleSpinBox(self)
        self.y = QDoubleSpinBox(self)
        # a unit is placed on the table: from 0 to the table's width and depth (the actions refuse
        # anywhere else, rules.actions.check_on_table)
        self.x.setRange(0.0, float(battle.table_width_in))
        self.y.setRange(0.0, float(battle.table_height_in))
        for w, edge in ((self.x, battle.table_width_in), (self.y, battle.table_height_in)):
            w.setDecimals(2)
            w.setSuffix(' "')
            w.setToolTip(f'On the table: from 0 to {edge:g}"')
        self.facing = QDoubleSpinBox(self)
        self.facing.setRange(-720, 720)
        self.facing.setDecimals(1)
        self.facing.setSuffix("°")
        self.traits = QLineEdit(", ".join(sorted(unit.traits)) if unit else "", self)
        self.traits.setPlaceholderText("e.g. rebel_yell")
        markers_box = QGroupBox("Markers", self)
        grid = QGridLayout(markers_box)
        self.marker_boxes: dict[Marker, QCheckBox] = {}
        for i, m in enumerate(Marker):
            cb = QCheckBox(m.label, markers_box)
            cb.setIcon(icons.marker_icon(m))  # the letter badge the inspector and the map show
            cb.setChecked(bool(unit and m in unit.markers))
            grid.addWidget(cb, i // 3, i % 3)
            self.marker_boxes[m] = cb

        form.addRow("Name", self.name)
        form.addRow("Id", self.id_edit)
        form.addRow("Brigade", self.brigade)
        form.addRow("Kind", self.kind)
        form.addRow("Formation", self.formation)
        stands_row = QHBoxLayout()
        stands_row.addWidget(self.stands)
        stands_row.addWidget(QLabel("of", self))
        stands_row.addWidget(self.stands_start)
        stands_row.addWidget(QLabel("micro-hits", self))
        stands_row.addWidget(self.micro_hits)
        form.addRow("Stands now / at start", stands_row)
        form.addRow("Quality", self.quality)
        form.addRow("Weapon", self.weapon)
        form.addRow("Guns", self.gun)
        form.addRow("Parent regiment", self.parent_unit)
        pos_row = QHBoxLayout()
        pos_row.addWidget(QLabel("x", self))
        pos_row.addWidget(self.x)
        pos_row.addWidget(QLabel("y", self))
        pos_row.addWidget(self.y)
        pos_row.addWidget(QLabel("facing", self))
        pos_row.addWidget(self.facing)
        form.addRow("Position (colour stand)", pos_row)
        form.addRow("Traits", self.traits)
        form.addRow(markers_box)
        # a unit that arrives later (a scenario's reinforcement): its place above is its entry place
        self.arrival_box = QGroupBox("Arrives later (its position is where it comes on)", self)
        self.arrival_box.setCheckable(True)
        arr = QFormLayout(self.arrival_box)
        self.arrive_turn = QSpinBox(self.arrival_box)
        self.arrive_turn.setRange(1, 1000)
        self.arrive_at = QLineEdit(self.arrival_box)
        self.arrive_at.setPlaceholderText("e.g. the Harrisburg Road")
        self.arrive_roll = QSpinBox(self.arrival_box)
        self.arrive_roll.setRange(0, 6)
        self.arrive_roll.setSpecialValueText("no roll")
        self.arrive_roll.setToolTip(
            "From its turn on, it comes on only on a die of this or more, rolled once a turn"
        )
        arr.addRow("On turn", self.arrive_turn)
        arr.addRow("At", self.arrive_at)
        arr.addRow("Needs a die of", self.arrive_roll)
        a0 = unit.arrives if unit is not None else None
        self.arrival_box.setChecked(a0 is not None)
        if a0 is not None:
            self.arrive_turn.setValue(a0.turn)
            self.arrive_at.setText(a0.at)
            self.arrive_roll.setValue(a0.roll or 0)
        else:
            self.arrive_turn.setValue(max(2, battle.turn + 1))
        form.addRow(self.arrival_box)

        if unit is not None:
            select_data(self.brigade, unit.brigade)
            select_data(self.kind, unit.kind)
            self.stands.setValue(unit.stands)
            self.stands_start.setValue(unit.stands_start)
            self.micro_hits.setValue(unit.micro_hits)
            select_data(self.quality, unit.quality)
            select_data(self.weapon, unit.weapon)
            select_data(self.gun, unit.gun)
            a = unit.arrives
            self.x.setValue(a.x if a is not None and a.x is not None else unit.x)
            self.y.setValue(a.y if a is not None and a.y is not None else unit.y)
            facing = a.facing_deg if a is not None and a.facing_deg is not None else unit.facing_deg
            self.facing.setValue(facing)
        else:
            if brigade is not None:
                select_data(self.brigade, brigade)
            self.stands.setValue(5)
            self.stands_start.setValue(5)
            self.x.setValue(battle.table_width_in / 2)
            self.y.setValue(battle.table_height_in / 2)
            self._face_the_enemy()
            # until the umpire sets a facing, a new unit faces its side's enemy
            self.brigade.currentIndexChanged.connect(lambda _i: self._face_the_enemy())
            self.facing.editingFinished.connect(self._facing_set_by_hand)
        self._fill_formations(unit.formation if unit else None)
        self._fill_parents(unit.parent if unit else None)

        self.kind.currentIndexChanged.connect(lambda _i: self._fill_formations(None))
        self.brigade.currentIndexChanged.connect(lambda _i: self._fill_parents(None))
        for w in (self.name, self.id_edit, self.traits):
            w.textChanged.connect(self.revalidate)
        for w in (self.stands, self.stands_start, self.micro_hits):
            w.valueChanged.connect(self.revalidate)
        for w in (self.x, self.y, self.facing):
            w.valueChanged.connect(self.revalidate)
        for w in (
            self.brigade,
            self.kind,
            self.formation,
            self.quality,
            self.weapon,
            self.gun,
            self.parent_unit,
        ):
            w.currentIndexChanged.connect(self.revalidate)
        for cb in self.marker_boxes.values():
            cb.toggled.connect(self.revalidate)
        self.arrival_box.toggled.connect(self.revalidate)
        self.arrive_turn.valueChanged.connect(self.revalidate)
        self.arrive_roll.valueChanged.connect(self.revalidate)
        self.arrive_at.textChanged.connect(self.revalidate)
        self.revalidate()

    _facing_by_hand = False

    def _facing_set_by_hand(self) -> None:
        self._facing_by_hand = True

    def _face_the_enemy(self) -> None:
        """Face a new unit towards the enemy: up the table (0) when the enemy's units stand above
        its side's on average, else down it (180); with no units to go by, the first side listed
        faces up and the other down."""
        b = self._brigade()
        if b is None or self._facing_by_hand:
            return
        own = [u.y for u in self.battle.units.values() if u.side == b.side]
        enemy = [u.y for u in self.battle.units.values() if u.side != b.side]
        if own and enemy:
            up = sum(enemy) / len(enemy) < sum(own) / len(own)
        else:
            up = b.side == self.battle.oob.sides[0].id
        self.facing.setValue(0.0 if up else 180.0)

    def _brigade(self) -> Brigade | None:
        bid = self.brigade.currentData()
        return self.battle.brigades.get(bid) if bid else None

    def _fill_formations(self, current: Formation | None) -> None:
        kind = UnitKind.parse(self.kind.currentData())
        keep = current or self.formation.currentData()
        self.formation.blockSignals(True)
        self.formation.clear()
        for f in FORMATIONS_BY_KIND[kind]:
            self.formation.addItem(f.label, f.value)
        self.formation.blockSignals(False)
        if keep is not None:
            select_data(self.formation, keep)
        is_art = kind == UnitKind.ARTILLERY
        self.gun.setEnabled(is_art)
        if is_art and self.gun.currentData() is None:
            self.gun.setCurrentIndex(1)
        if not is_art:
            select_data(self.gun, None)
        self.parent_unit.setEnabled(kind in (UnitKind.SKIRMISHERS, UnitKind.CAVALRY_SCREEN))
        self.revalidate()

    def _fill_parents(self, current: str | None) -> None:
        b = self._brigade()
        keep = current or self.parent_unit.currentData()
        self.parent_unit.blockSignals(True)
        self.parent_unit.clear()
        self.parent_unit.addItem("(none)", None)
        if b is not None:
            for u in self.battle.oob.units.values():
                if (
                    u.side == b.side
                    and not u.is_screen
                    and (self.original is None or u.id != self.original.id)
                ):
                    self.parent_unit.addItem(u.name, u.id)
        self.parent_unit.blockSignals(False)
        select_data(self.parent_unit, keep)
        self.revalidate()

    def unit_id(self) -> str:
        if self.original is not None:
            return self.original.id
        typed = self.id_edit.text().strip()
        return typed or unique_id(slug(self.name.text()), set(self.battle.units))

    def unit(self) -> Unit:
        """The unit as typed. Raises :class:`~rules.errors.RulesError` if it breaks a rule."""
        b = self._brigade()
        if b is None:
            raise RulesError("choose the unit's brigade (add a brigade first)")
        name = self.name.text().strip()
        if not name:
            raise RulesError("the unit needs a name")
        kind = UnitKind.parse(self.kind.currentData())
        traits = frozenset(normalise_trait(t) for t in self.traits.text().split(",") if t.strip())
        fields = dict(
            id=self.unit_id(),
            name=name,
            side=b.side,
            brigade=b.id,
            kind=kind,
            stands=self.stands.value(),
            stands_start=self.stands_start.value(),
            micro_hits=self.micro_hits.value(),
            quality=Quality.parse(self.quality.currentData()),
            weapon=Weapon.parse(self.weapon.currentData()),
            gun=GunType.parse(self.gun.currentData())
            if kind == UnitKind.ARTILLERY and self.gun.currentData()
            else None,
            traits=traits,
            formation=Formation.parse(self.formation.currentData()),
            x=self.x.value(),
            y=self.y.value(),
            facing_deg=self.facing.value() % 360,
            markers=frozenset(m for m, cb in self.marker_boxes.items() if cb.isChecked()),
            parent=self.parent_unit.currentData() if self.parent_unit.isEnabled() else None,
            arrives=self._arrival(),
        )
        if self.original is not None:
            return replace(self.original, **fields)
        return Unit(**fields)

    def _arrival(self) -> Arrival | None:
        """The arrival as typed (None: the unit is on the table), its place the unit's position."""
        if not hasattr(self, "arrival_box") or not self.arrival_box.isChecked():
            return None
        return Arrival(
            turn=self.arrive_turn.value(),
            at=self.arrive_at.text().strip(),
            x=self.x.value(),
            y=self.y.value(),
            facing_deg=self.facing.value() % 360,
            roll=self.arrive_roll.value() or None,
            tried=self.original.arrives.tried
            if self.original is not None and self.original.arrives is not None
            else 0,
        )

    def problem(self) -> str | None:
        if not hasattr(self, "marker_boxes"):
            return None
        try:
            u = self.unit()
        except RulesError as exc:
            return str(exc)
        if self.original is None:
            typed = self.id_edit.text().strip()
            if typed and typed in self.battle.units:
                return f"the id '{typed}' is taken by {self.battle.units[typed].name}"
        if self.original is not None and u.brigade != self.original.brigade:
            b = self.battle.brigades[self.original.brigade]
            if b.brigadier.attached_to == u.id:
                return (
                    f"{b.brigadier.name} is attached to this unit: detach him before moving it to another "
                    "brigade"
                )
        try:
            self.battle.oob.with_unit(u)
        except RulesError as exc:
            return str(exc)
        return None


# -- brigades -------------------------------------------------------------------------------


class BrigadeDialog(ValidatedDialog):
    """Add a brigade with its Brigadier (``brigade=None``) or edit one."""

    def __init__(
        self,
        battle: Battle,
        brigade: Brigade | None = None,
        parent: QWidget | None = None,
        side: str | None = None,
    ):
        super().__init__("Edit brigade" if brigade else "Add brigade", parent)
        self.setMinimumWidth(400)
        self.battle = battle
        self.original = brigade
        form = QFormLayout(self.form_host)
        self.name = QLineEdit(brigade.name if brigade else "", self)
        self.name.setPlaceholderText("e.g. Iron Brigade")
        self.id_edit = QLineEdit(brigade.id if brigade else "", self)
        self.id_edit.setPlaceholderText("made from the name")
        self.id_edit.setEnabled(brigade is None)
        self.side = combo([(s.name, s.id) for s in battle.oob.sides], self)
        self.side.setEnabled(brigade is None or not battle.oob.units_of_brigade(brigade.id))
        self.brigadier = QLineEdit(brigade.brigadier.name if brigade else "", self)
        self.brigadier.setPlaceholderText("e.g. Brig. Gen. Solomon Meredith")
        self.attached = QComboBox(self)
        self.attached.addItem("(not attached)", None)
        if brigade is not None:
            for u in battle.oob.units_of_brigade(brigade.id):
                if u.in_play:
                    self.attached.addItem(u.name, u.id)
        self.status = combo([(s.label, s) for s in BrigadierStatus], self)
        self.pips = QSpinBox(self)
        self.pips.setRange(0, 20)
        self.reserved = QSpinBox(self)
        self.reserved.setRange(0, 20)
        self.state = combo([(s.label, s) for s in BrigadeState], self)
        form.addRow("Name", self.name)
        form.addRow("Id", self.id_edit)
        form.addRow("Side", self.side)
        form.addRow("Brigadier", self.brigadier)
        form.addRow("Attached to", self.attached)
        form.addRow("Brigadier status", self.status)
        form.addRow("Staff Pips available", self.pips)
        form.addRow("Staff Pips reserved", self.reserved)
        form.addRow("Brigade state", self.state)
        if brigade is not None:
            select_data(self.side, brigade.side)
            select_data(self.attached, brigade.brigadier.attached_to)
            select_data(self.status, brigade.brigadier.status)
            self.pips.setValue(brigade.staff_pips)
            self.reserved.setValue(brigade.staff_pips_reserved)
            select_data(self.state, brigade.state)
        elif side is not None:
            select_data(self.side, side)
        for w in (self.name, self.id_edit, self.brigadier):
            w.textChanged.connect(self.revalidate)
        for w in (self.pips, self.reserved):
            w.valueChanged.connect(self.revalidate)
        for w in (self.side, self.attached, self.status, self.state):
            w.currentIndexChanged.connect(self.revalidate)
        self.revalidate()

    def brigade_id(self) -> str:
        if self.original is not None:
            return self.original.id
        typed = self.id_edit.text().strip()
        return typed or unique_id(slug(self.name.text()), set(self.battle.brigades))

    def brigade(self) -> Brigade:
        name = self.name.text().strip()
        if not name:
            raise RulesError("the brigade needs a name")
        bname = self.brigadier.text().strip()
        if not bname:
            raise RulesError("the brigade needs its Brigadier's name")
        return Brigade(
            id=self.brigade_id(),
            name=name,
            side=self.side.currentData(),
            brigadier=Brigadier(
                bname, self.attached.currentData(), BrigadierStatus.parse(self.status.currentData())
            ),
            staff_pips=self.pips.value(),
            staff_pips_reserved=self.reserved.value(),
            state=BrigadeState.parse(self.state.currentData()),
        )

    def problem(self) -> str | None:
        if not hasattr(self, "state"):
            return None
        try:
            b = self.brigade()
        except RulesError as exc:
            return str(exc)
        if self.original is None:
            typed = self.id_edit.text().strip()
            if typed and typed in self.battle.brigades:
                return f"the id '{typed}' is taken by {self.battle.brigades[typed].name}"
        try:
            self.battle.oob.with_brigade(b)
        except RulesError as exc:
            return str(exc)
        return None
