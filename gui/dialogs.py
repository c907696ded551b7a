"""Dialogs: the one seam through which every modal window is opened, and the editing dialogs.

Every modal window in Brigadier is opened through the functions at the top of this module
(:func:`exec_dialog`, :func:`ask_text`, :func:`show_message`, :func:`ask_yes_no`,
:func:`ask_open_path`, :func:`ask_save_path`). Callers use them as ``dialogs.ask_text(...)`` so
that the tests can answer them by replacing these functions, and no modal window ever waits for
a click that will not come.

The editing dialogs (:class:`UnitDialog`, :class:`BrigadeDialog`) check what the umpire types as
it is typed: the OK button stays disabled while the values break a rule of the order of battle,
and the reason is shown under the form.
"""

from __future__ import annotations

import re
from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gui import icons, screens, theme
from rules.battle.battle import Battle
from rules.battle.order_of_battle import (
    FORMATIONS_BY_KIND,
    Brigade,
    BrigadeState,
    Brigadier,
    BrigadierStatus,
    Formation,
    GunType,
    Marker,
    Quality,
    Unit,
    UnitKind,
    Weapon,
    normalise_trait,
)
from rules.errors import RulesError

# -- the seam ---------------------------------------------------------------------------


def exec_dialog(dialog: QDialog) -> int:
    """Run ``dialog`` modally and return its result (``QDialog.DialogCode``); it is kept within
    the screen first (:func:`gui.screens.fit_dialog`), and its rule citations are links to the
    rules reference (:func:`gui.rule_links.connect_links`)."""
    screens.fit_dialog(dialog)
    from gui import rule_links

    rule_links.connect_links(dialog)  # every rule it cites opens the rules reference
    return int(dialog.exec())


def ask_text(parent: QWidget | None, title: str, label: str, text: str = "") -> str | None:
    """Ask for a line of text; None if the umpire cancels."""
    dlg = QInputDialog(parent)
    dlg.setWindowTitle(title)
    dlg.setLabelText(label)
    dlg.setTextValue(text)
    if exec_dialog(dlg) != QDialog.DialogCode.Accepted:
        return None
    return dlg.textValue()


def show_message(parent: QWidget | None, title: str, text: str, kind: str = "information") -> None:
    """Tell the umpire something: ``kind`` is "information", "warning" or "error"."""
    icon = {
        "information": QMessageBox.Icon.Information,
        "warning": QMessageBox.Icon.Warning,
        "error": QMessageBox.Icon.Critical,
    }.get(kind, QMessageBox.Icon.Information)
    box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    exec_dialog(box)


def ask_yes_no(parent: QWidget | None, title: str, text: str) -> bool:
    """A yes/no question; True for yes."""
    box = QMessageBox(
        QMessageBox.Icon.Question,
        title,
        text,
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        parent,
    )
    box.setDefaultButton(QMessageBox.StandardButton.No)
    exec_dialog(box)
    return box.clickedButton() is box.button(QMessageBox.StandardButton.Yes)


def ask_open_path(parent: QWidget | None, caption: str, directory: str = "", filter: str = "") -> str | None:
    """A file to open; None if cancelled."""
    dlg = QFileDialog(parent, caption, directory, filter)
    dlg.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
    dlg.setFileMode(QFileDialog.FileMode.ExistingFile)
    if exec_dialog(dlg) != QDialog.DialogCode.Accepted or not dlg.selectedFiles():
        return None
    return dlg.selectedFiles()[0]


def ask_save_path(
    parent: QWidget | None, caption: str, directory: str = "", filter: str = "", suffix: str = ""
) -> str | None:
    """A file to write; None if cancelled."""
    dlg = QFileDialog(parent, caption, directory, filter)
    dlg.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    if suffix:
        dlg.setDefaultSuffix(suffix)
    if exec_dialog(dlg) != QDialog.DialogCode.Accepted or not dlg.selectedFiles():
        return None
    return dlg.selectedFiles()[0]


def ask_existing_folder(parent: QWidget | None, caption: str, directory: str = "") -> str | None:
    """A folder; None if cancelled."""
    dlg = QFileDialog(parent, caption, directory)
    dlg.setFileMode(QFileDialog.FileMode.Directory)
    dlg.setOption(QFileDialog.Option.ShowDirsOnly, True)
    if exec_dialog(dlg) != QDialog.DialogCode.Accepted or not dlg.selectedFiles():
        return None
    return dlg.selectedFiles()[0]


# -- shared pieces ------------------------------------------------------------------------


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


class ValidatedDialog(QDialog):
    """A dialog whose OK button is enabled only while :meth:`problem` returns None.

    Once a dialog of any kind of these is built, the rule citations in it are links to the rules
    reference (:func:`gui.rule_links.connect_links`), and stay links as its words change."""

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None:
            return

        def __init__(self, *args, **kw):  # noqa: N807
            init(self, *args, **kw)
            if type(self) is cls:  # once, when the dialog of this very kind is built
                from gui import rule_links

                rule_links.connect_links(self)

        __init__.__doc__ = init.__doc__
        cls.__init__ = __init__

    def __init__(self, title: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setModal(True)
        self._layout = QVBoxLayout(self)
        self.form_host = QWidget(self)
        # the form scrolls where it is longer than the screen; the problem and the buttons stay in view
        self.form_area = screens.scrolling(self, self.form_host)
        self.problem_label = QLabel(self)
        self.problem_label.setObjectName("problem")
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet(f"QLabel#problem {{ color: {theme.PROBLEM}; font-weight: bold; }}")
        self._layout.addWidget(self.problem_label)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self._accept_if_valid)
        self.buttons.rejected.connect(self.reject)
        self._layout.addWidget(self.buttons)

    @property
    def ok_button(self):
        return self.buttons.button(QDialogButtonBox.StandardButton.Ok)

    def problem(self) -> str | None:  # pragma: no cover - overridden
        return None

    def revalidate(self) -> None:
        p = self.problem()
        self.ok_button.setEnabled(p is None)
        self.problem_label.setText(p or "")
        self.problem_label.setVisible(bool(p))

    def _accept_if_valid(self) -> None:
        self.revalidate()
        if self.ok_button.isEnabled():
            self.accept()


def _combo(items: list[tuple[str, object]], parent: QWidget) -> QComboBox:
    """A combo box; enum members are kept as their plain string values."""
    c = QComboBox(parent)
    for text, data in items:
        c.addItem(text, data.value if hasattr(data, "value") else data)
    return c


def _select_data(combo: QComboBox, data: object) -> None:
    i = combo.findData(data.value if hasattr(data, "value") else data)
    if i >= 0:
        combo.setCurrentIndex(i)


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
        self.brigade = _combo(
            [(f"{b.name} ({battle.oob.side(b.side).name})", b.id) for b in battle.brigades.values()], self
        )
        self.kind = _combo([(k.label, k) for k in UnitKind], self)
        self.formation = QComboBox(self)
        self.stands = QSpinBox(self)
        self.stands.setRange(0, 99)
        self.stands_start = QSpinBox(self)
        self.stands_start.setRange(0, 99)
        self.micro_hits = QSpinBox(self)
        self.micro_hits.setRange(0, 9)
        self.quality = _combo([(q.label, q) for q in Quality], self)
        self.weapon = _combo([(w.label, w) for w in Weapon], self)
        self.gun = _combo([("(none)", None)] + [(g.label, g) for g in GunType], self)
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

        if unit is not None:
            _select_data(self.brigade, unit.brigade)
            _select_data(self.kind, unit.kind)
            self.stands.setValue(unit.stands)
            self.stands_start.setValue(unit.stands_start)
            self.micro_hits.setValue(unit.micro_hits)
            _select_data(self.quality, unit.quality)
            _select_data(self.weapon, unit.weapon)
            _select_data(self.gun, unit.gun)
            self.x.setValue(unit.x)
            self.y.setValue(unit.y)
            self.facing.setValue(unit.facing_deg)
        else:
            if brigade is not None:
                _select_data(self.brigade, brigade)
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
            _select_data(self.formation, keep)
        is_art = kind == UnitKind.ARTILLERY
        self.gun.setEnabled(is_art)
        if is_art and self.gun.currentData() is None:
            self.gun.setCurrentIndex(1)
        if not is_art:
            _select_data(self.gun, None)
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
        _select_data(self.parent_unit, keep)
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
        )
        if self.original is not None:
            return replace(self.original, **fields)
        return Unit(**fields)

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
                return f"{b.brigadier.name} is attached to this unit: detach him before moving it to another brigade"
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
        self.side = _combo([(s.name, s.id) for s in battle.oob.sides], self)
        self.side.setEnabled(brigade is None or not battle.oob.units_of_brigade(brigade.id))
        self.brigadier = QLineEdit(brigade.brigadier.name if brigade else "", self)
        self.brigadier.setPlaceholderText("e.g. Brig. Gen. Solomon Meredith")
        self.attached = QComboBox(self)
        self.attached.addItem("(not attached)", None)
        if brigade is not None:
            for u in battle.oob.units_of_brigade(brigade.id):
                if u.in_play:
                    self.attached.addItem(u.name, u.id)
        self.status = _combo([(s.label, s) for s in BrigadierStatus], self)
        self.pips = QSpinBox(self)
        self.pips.setRange(0, 20)
        self.reserved = QSpinBox(self)
        self.reserved.setRange(0, 20)
        self.state = _combo([(s.label, s) for s in BrigadeState], self)
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
            _select_data(self.side, brigade.side)
            _select_data(self.attached, brigade.brigadier.attached_to)
            _select_data(self.status, brigade.brigadier.status)
            self.pips.setValue(brigade.staff_pips)
            self.reserved.setValue(brigade.staff_pips_reserved)
            _select_data(self.state, brigade.state)
        elif side is not None:
            _select_data(self.side, side)
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


# -- an override's reason -------------------------------------------------------------------


class ReasonDialog(ValidatedDialog):
    """Ask why the umpire overrides a value: an override is logged with its reason."""

    def __init__(self, what: str, parent: QWidget | None = None):
        super().__init__("Umpire's override", parent)
        self.setMinimumWidth(440)
        lay = QVBoxLayout(self.form_host)
        head = QLabel(what, self)
        head.setWordWrap(True)
        f = QFont(head.font())
        f.setBold(True)
        head.setFont(f)
        lay.addWidget(head)
        lay.addWidget(QLabel("Reason (it goes in the battle log):", self))
        self.reason = QPlainTextEdit(self)
        self.reason.setPlaceholderText("e.g. the players agreed the 19th was in the woods")
        self.reason.setFixedHeight(70)
        lay.addWidget(self.reason)
        self.reason.textChanged.connect(self.revalidate)
        self.revalidate()

    def text(self) -> str:
        return self.reason.toPlainText().strip()

    def problem(self) -> str | None:
        if not hasattr(self, "reason"):
            return None
        return None if self.text() else "an override needs a reason for the log"


def ask_reason(parent: QWidget | None, what: str) -> str | None:
    """The reason for an override, or None if the umpire cancels."""
    dlg = ReasonDialog(what, parent)
    if exec_dialog(dlg) != QDialog.DialogCode.Accepted:
        return None
    return dlg.text() or None


# -- terrain ------------------------------------------------------------------------------------


class TerrainDialog(ValidatedDialog):
    """Edit a terrain feature's name, type, level, width and structural hits.

    The outline or line stays as drawn; a type can only change to one of the same shape (an
    area to an area, a line to a line), since the points mean different things.
    """

    def __init__(self, feature, parent: QWidget | None = None):
        from rules.battle.terrain import AREA_TYPES, LINEAR_TYPES, TerrainType

        super().__init__(f"Terrain: {feature.name or feature.type.label}", parent)
        self.setMinimumWidth(380)
        self.original = feature
        if feature.is_linear:
            kinds = [t for t in TerrainType if t in LINEAR_TYPES]
        elif feature.is_hill:
            kinds = [TerrainType.HILL]
        else:
            kinds = [t for t in TerrainType if t in AREA_TYPES]
        form = QFormLayout(self.form_host)
        self.name = QLineEdit(feature.name, self)
        self.name.setPlaceholderText("e.g. West Woods")
        self.type = _combo([(t.label, t) for t in kinds], self)
        _select_data(self.type, feature.type)
        self.level = QSpinBox(self)
        self.level.setRange(0, 3)
        self.level.setValue(feature.level)
        self.level.setEnabled(feature.is_hill)
        self.level.setToolTip("Level 1 is a low hill or ridge, level 2 a prominent ridge (RULE-03-4.1)")
        self.width = QDoubleSpinBox(self)
        self.width.setRange(0, 12)
        self.width.setDecimals(2)
        self.width.setSuffix(' "')
        self.width.setValue(feature.width_in)
        self.width.setEnabled(feature.is_linear)
        self.width.setToolTip("The width of a sunken road or stream; 0 draws a plain line")
        self.hits = QSpinBox(self)
        self.hits.setRange(0, 99)
        self.hits.setValue(feature.structural_hits)
        self.hits.setToolTip("Structural hits on a building so far (RULE-03-3.2)")
        form.addRow("Name", self.name)
        form.addRow("Type", self.type)
        form.addRow("Hill level", self.level)
        form.addRow("Width", self.width)
        form.addRow("Structural hits", self.hits)
        form.addRow(
            QLabel(
                f"{len(feature.points)} points"
                + (f", crestline of {len(feature.crest)}" if feature.crest else ""),
                self,
            )
        )
        self.name.textChanged.connect(self.revalidate)
        self.type.currentIndexChanged.connect(self._type_changed)
        for w in (self.level, self.hits):
            w.valueChanged.connect(self.revalidate)
        self.width.valueChanged.connect(self.revalidate)
        self._type_changed()

    def _type_changed(self, *_args) -> None:
        from rules.battle.terrain import TerrainType

        self.hits.setEnabled(
            TerrainType.parse(self.type.currentData()) == TerrainType.BUILDING
            or self.original.structural_hits > 0
        )
        self.revalidate()

    def values(self) -> dict:
        """The values changed, as an EditTerrain action takes them."""
        f = self.feature()
        before, after = self.original.to_dict(), f.to_dict()
        keys = ("name", "type", "level", "width_in", "structural_hits")
        return {k: after.get(k, "" if k == "name" else 0) for k in keys if before.get(k) != after.get(k)}

    def feature(self):
        from dataclasses import replace as _replace

        from rules.battle.terrain import TerrainType

        return _replace(
            self.original,
            name=self.name.text().strip(),
            type=TerrainType.parse(self.type.currentData()),
            level=self.level.value() if self.original.is_hill else 0,
            width_in=round(self.width.value(), 2) if self.original.is_linear else self.original.width_in,
            structural_hits=self.hits.value(),
        )

    def problem(self) -> str | None:
        if not hasattr(self, "hits"):
            return None
        try:
            self.feature()
        except RulesError as exc:
            return str(exc)
        return None
