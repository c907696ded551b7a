"""The order-of-battle roster: side > brigade > unit, with stands, health, formation and markers.

:class:`RosterModel` is a ``QStandardItemModel`` kept in step with the battle row by row: a
:class:`~gui.controller.ChangeSummary` updates only the rows it names. :class:`RosterFilter`
filters by side, by "only units with markers" and by a search (a unit's name or id, its brigade
or Brigadier, a marker), and sorts by any column (clicked a third time, the order of battle
again). :class:`RosterView` is the dock's widget: the search and filter bar, the tree and the
add / edit / remove buttons, with its selection kept in step with the controller's (and so with
the map). Nothing jumps: the scroll position, which brigades are open and the selection survive
every action, undo and redo.

The default columns (Name, Stands with the micro-hits, Health, Formation, Markers) are read
without scrolling sideways in the dock's default width on a 1366-pixel screen: a long name is cut
short with an ellipsis, and shown whole in its tooltip.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelection, QItemSelectionModel, QModelIndex, QSize, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QFont, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from gui import icons, theme
from gui.controller import ChangeSummary
from gui.interfaces import ControllerLike
from rules.battle.battle import Battle
from rules.battle.order_of_battle import (
    Brigade,
    BrigadierStatus,
    Formation,
    Health,
    Marker,
    Side,
    Unit,
    plural,
)

KIND_ROLE = Qt.ItemDataRole.UserRole + 1  # "side", "brigade" or "unit"
ID_ROLE = Qt.ItemDataRole.UserRole + 2
SIDE_ROLE = Qt.ItemDataRole.UserRole + 3
MARKED_ROLE = Qt.ItemDataRole.UserRole + 4  # the unit carries at least one marker
MARKERS_ROLE = Qt.ItemDataRole.UserRole + 5  # the unit's markers, by name
ICON_OF_ROLE = Qt.ItemDataRole.UserRole + 6  # what the cell's icon shows (a health, a state, markers)
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 7  # what a search looks in: name, id, brigade, Brigadier, markers
SORT_ROLE = Qt.ItemDataRole.UserRole + 8  # what a column sorts by
ORDER_ROLE = Qt.ItemDataRole.UserRole + 9  # the row's place in the order of battle

# Unit rows fill every column; a brigade row shows its state under "Health" and its Staff Pips
# under "Formation".
COLUMNS = ("Name", "Stands", "Health", "Formation", "Markers")
# what the symbols of the roster mean, shown under it and in the headers' tooltips
LEGEND = (
    "Stands: now/at the start, +1 a micro-hit carried (RULE-06-3.3) · ● Staff Pip available, "
    "◐ reserved for reactions (RULE-04-1.3) · Markers: D Disorder, S Smoke, F Fired, P Pinned, "
    "E Engaged, G Garrisoned, L / R Refused left / right flank, C Climbing"
)
COL_NAME, COL_STANDS, COL_HEALTH, COL_FORMATION, COL_MARKERS = range(len(COLUMNS))
COL_STATE, COL_PIPS = COL_HEALTH, COL_FORMATION
COL_MICRO = COL_STANDS  # the micro-hits are shown with the stands: "4/5 +1"
HEALTH_ORDER = {Health.FRESH: 0, Health.WORN: 1, Health.SPENT: 2, Health.DESTROYED: 3}


#: A formation as the roster's narrow column says it (the full word in its tooltip).
FORMATION_SHORT = {Formation.ASSAULT_COLUMN: "Column", Formation.ROAD_COLUMN: "Road col."}


def formation_text(f: Formation) -> str:
    return FORMATION_SHORT.get(f, f.label)


def stands_text(stands: int, start: int, micro_hits: int = 0) -> str:
    """Stands now of those at the start, and a micro-hit carried: "4/5 +1"."""
    return f"{stands}/{start}" + (f" +{micro_hits}" if micro_hits else "")


def _natural(text: str) -> tuple:
    """A key that sorts "2nd Wisconsin" before "19th Indiana" before "24th Michigan"."""
    import re

    return tuple(int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", text))


def _row(n: int) -> list[QStandardItem]:
    items = []
    for _ in range(n):
        it = QStandardItem()
        it.setEditable(False)
        items.append(it)
    return items


class _OneNotice:
    """The cells of a row set with the model's signals held, then one ``dataChanged`` for the row
    (none while the model is being made again: its reset tells the views). A row is filled only
    when the values it shows changed (:meth:`RosterModel._fill_unit`,
    :meth:`RosterModel._fill_brigade`); a tooltip alone (a unit's place, after a march) is set
    without it, as it changes nothing drawn: it is read when the pointer rests on the row."""

    def __init__(self, model: QStandardItemModel, row: list[QStandardItem]):
        self.model, self.row = model, row

    def __enter__(self) -> None:
        self.was = self.model.blockSignals(True)

    def __exit__(self, *exc: object) -> None:
        self.model.blockSignals(self.was)
        if not self.was:
            self.model.dataChanged.emit(self.row[0].index(), self.row[-1].index(), [])


class RosterModel(QStandardItemModel):
    """Side > brigade > unit rows of a battle, updated row by row."""

    def __init__(self, parent=None):
        super().__init__(0, len(COLUMNS), parent)
        self.setHorizontalHeaderLabels(list(COLUMNS))
        self._side_rows: dict[str, list[QStandardItem]] = {}
        self._brigade_rows: dict[str, list[QStandardItem]] = {}
        self._unit_rows: dict[str, list[QStandardItem]] = {}
        self._unit_brigade: dict[str, str] = {}
        self.battle: Battle | None = None
        #: the rows the last :meth:`apply` filled or added (the view fits its columns to them)
        self.changed_rows: list[list[QStandardItem]] = []
        self._shown: dict[str, tuple] = {}  # what each unit's row shows, as values
        self._brigade_shown: dict[str, tuple] = {}  # what each brigade's row shows, as values
        self.resets = 0  # how many times every row was made again

    # -- building -------------------------------------------------------------------------
    def set_battle(self, battle: Battle | None) -> None:
        """Rebuild every row."""
        self.resets += 1
        self.beginResetModel()
        self.blockSignals(True)
        self.removeRows(0, self.rowCount())
        self._side_rows.clear()
        self._brigade_rows.clear()
        self._unit_rows.clear()
        self._unit_brigade.clear()
        self._shown.clear()
        self._brigade_shown.clear()
        self.battle = battle
        if battle is not None:
            for side in battle.oob.sides:
                self._add_side(side)
            for b in battle.brigades.values():
                self._add_brigade(b)
            for u in battle.units.values():
                self._add_unit(u)
            self._refresh_sides()
        self.blockSignals(False)
        self.endResetModel()

    def _add_side(self, side: Side) -> None:
        row = _row(len(COLUMNS))
        row[COL_NAME].setText(side.name)
        row[COL_NAME].setIcon(icons.side_icon(side.colour))
        f = QFont()
        f.setBold(True)
        row[COL_NAME].setFont(f)
        for it in row:
            it.setData("side", KIND_ROLE)
            it.setData(side.id, ID_ROLE)
            it.setData(side.id, SIDE_ROLE)
            it.setData(len(self._side_rows), ORDER_ROLE)
            it.setData(len(self._side_rows), SORT_ROLE)
        row[COL_NAME].setData(f"{side.name} {side.id}".lower(), SEARCH_ROLE)
        self.appendRow(row)
        self._side_rows[side.id] = row

    def _add_brigade(self, b: Brigade) -> None:
        row = _row(len(COLUMNS))
        for it in row:
            it.setData("brigade", KIND_ROLE)
            it.setData(b.id, ID_ROLE)
            it.setData(len(self._brigade_rows), ORDER_ROLE)
        self._side_rows[b.side][COL_NAME].appendRow(row)
        self._brigade_rows[b.id] = row
        self._brigade_shown.pop(b.id, None)  # a new row: filled whatever the last one showed
        self._fill_brigade(b)

    def _add_unit(self, u: Unit) -> None:
        row = _row(len(COLUMNS))
        for it in row:
            it.setData("unit", KIND_ROLE)
            it.setData(u.id, ID_ROLE)
            it.setData(len(self._unit_rows), ORDER_ROLE)
        self._brigade_rows[u.brigade][COL_NAME].appendRow(row)
        self._unit_rows[u.id] = row
        self._unit_brigade[u.id] = u.brigade
        self._shown.pop(u.id, None)  # a new row: filled whatever the last one showed
        self._fill_unit(u)

    def _fill_brigade(self, b: Brigade) -> None:
        row = self._brigade_rows[b.id]
        # what the row shows of the brigade: the brigade itself, the name of the unit its
        # Brigadier is with, and its stands; a step that leaves them as they were (a march, a
        # ruling on micro-hits) leaves the row alone
        assert self.battle is not None
        units = self.battle.oob.units_of_brigade(b.id)
        with_unit = self.battle.units.get(b.brigadier.attached_to or "")
        shown = (b, with_unit.name if with_unit is not None else None)
        shown += (sum(u.stands for u in units), sum(u.stands_start for u in units))
        if self._brigade_shown.get(b.id) == shown:
            return
        self._brigade_shown[b.id] = shown
        self.changed_rows.append(row)
        with self._one_notice(row):
            self._fill_brigade_cells(b, row)

    def _one_notice(self, row: list[QStandardItem]):
        """Fill a row's cells quietly, then tell the views once that the row changed (each cell
        set would tell them, and the filter, on its own)."""
        return _OneNotice(self, row)

    def _fill_brigade_cells(self, b: Brigade, row: list[QStandardItem]) -> None:
        assert self.battle is not None
        bg = b.brigadier
        who = bg.name or "no Brigadier"
        if bg.status != BrigadierStatus.ACTIVE:
            who += f" ({bg.status.value})"
        elif bg.attached_to and bg.attached_to in self.battle.units:
            who += f", with {self.battle.units[bg.attached_to].name}"
        row[COL_NAME].setText(f"{b.name} — {who}")
        row[COL_NAME].setToolTip(f"{b.name}\nBrigadier: {who}\nState: {b.state.label}")
        row[COL_NAME].setData(f"{b.name} {b.id} {bg.name}".lower(), SEARCH_ROLE)
        units = self.battle.oob.units_of_brigade(b.id)
        now, start = sum(u.stands for u in units), sum(u.stands_start for u in units)
        row[COL_STANDS].setText(f"{now}/{start}")
        order = row[COL_NAME].data(ORDER_ROLE)
        for col, key in (
            (COL_NAME, _natural(b.name)),
            (COL_STANDS, (now / start if start else 0.0, now)),
            (COL_STATE, (b.state.value, order)),
            (COL_PIPS, (b.staff_pips + b.staff_pips_reserved, order)),
            (COL_MARKERS, order),
        ):
            row[col].setData(key, SORT_ROLE)
        row[COL_PIPS].setText(icons.pips_text(b.staff_pips, b.staff_pips_reserved) or "0 pips")
        row[COL_PIPS].setToolTip(
            f"Staff Pips: {b.staff_pips} available (●), {b.staff_pips_reserved} reserved for "
            "reactions (◐) (RULE-04-1.3)"
        )
        row[COL_STATE].setText(b.state.label)
        if row[COL_STATE].data(ICON_OF_ROLE) != b.state.value:
            row[COL_STATE].setIcon(icons.brigade_state_icon(b.state))
            row[COL_STATE].setData(b.state.value, ICON_OF_ROLE)
        row[COL_STATE].setToolTip(f"{b.name} is {b.state.label.lower()}")
        for it in row:
            it.setData(b.side, SIDE_ROLE)

    def _fill_unit(self, u: Unit) -> None:
        row = self._unit_rows[u.id]
        # what the row shows of the unit: when a change leaves it as it was (a march, which
        # moves the unit), only the tooltip that gives its place is set, and no view is told
        shown = (u.name, u.kind, u.quality, u.stands, u.stands_start, u.micro_hits, u.health, u.formation)
        shown += (frozenset(u.markers), u.side, u.brigade)
        if self._shown.get(u.id) == shown:
            was = self.blockSignals(True)  # a tooltip is read when shown: no view need know
            row[COL_NAME].setToolTip(self._unit_tip(u))
            self.blockSignals(was)
            return
        self._shown[u.id] = shown
        self.changed_rows.append(row)
        with self._one_notice(row):
            self._fill_unit_cells(u, row)

    @staticmethod
    def _unit_tip(u: Unit) -> str:
        return f'{u.name} ({u.kind.label}, {u.quality.label})\n{u.id} — {u.x:.1f}", {u.y:.1f}" facing {u.facing_deg:.0f}°'

    def _fill_unit_cells(self, u: Unit, row: list[QStandardItem]) -> None:
        row[COL_NAME].setText(u.name)
        row[COL_NAME].setToolTip(self._unit_tip(u))
        row[COL_STANDS].setText(stands_text(u.stands, u.stands_start, u.micro_hits))
        row[COL_STANDS].setToolTip(
            f"{u.stands} of the {u.stands_start} stands it started with"
            + (
                f"; {plural(u.micro_hits, 'micro-hit')} carried: an unsaved hit short of a stand (RULE-06-3.3)"
                if u.micro_hits
                else ""
            )
        )
        row[COL_HEALTH].setText(u.health.label)
        # an icon or a picture is never equal to another: set only when it changes, or every
        # view of the row is told it changed
        if row[COL_HEALTH].data(ICON_OF_ROLE) != u.health.value:
            row[COL_HEALTH].setIcon(icons.health_icon(u.health))
            row[COL_HEALTH].setData(u.health.value, ICON_OF_ROLE)
        row[COL_FORMATION].setText(formation_text(u.formation))
        row[COL_FORMATION].setToolTip(u.formation.label)
        ms = [m for m in Marker if m in u.markers]
        marks = " ".join(m.value for m in ms)
        if row[COL_MARKERS].data(MARKERS_ROLE) != marks or row[COL_MARKERS].data(ICON_OF_ROLE) is None:
            row[COL_MARKERS].setData(marks, MARKERS_ROLE)
            row[COL_MARKERS].setData(icons.markers_pixmap(u.markers, 14), Qt.ItemDataRole.DecorationRole)
            row[COL_MARKERS].setData(marks, ICON_OF_ROLE)
        row[COL_MARKERS].setToolTip(", ".join(m.label for m in ms) or "no markers")
        assert self.battle is not None
        b = self.battle.brigades.get(u.brigade)
        brigade_words = f"{b.name} {b.id} {b.brigadier.name}" if b is not None else u.brigade
        row[COL_NAME].setData(
            " ".join([u.name, u.id, brigade_words, *(m.value for m in ms), *(m.label for m in ms)]).lower(),
            SEARCH_ROLE,
        )
        order = row[COL_NAME].data(ORDER_ROLE)
        for col, key in (
            (COL_NAME, _natural(u.name)),
            (COL_STANDS, (u.stands / u.stands_start if u.stands_start else 0.0, u.stands, u.micro_hits)),
            (COL_HEALTH, (HEALTH_ORDER[u.health], order)),
            (COL_FORMATION, (u.formation.label, order)),
            (COL_MARKERS, (len(ms), " ".join(m.value for m in ms), order)),
        ):
            row[col].setData(key, SORT_ROLE)
        grey = (
            QBrush(QPalette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
            if u.health == Health.DESTROYED
            else QBrush()
        )
        for it in row:
            it.setData(u.side, SIDE_ROLE)
            it.setData(bool(u.markers), MARKED_ROLE)
            it.setForeground(grey if u.health == Health.DESTROYED else QBrush())

    def _refresh_sides(self) -> None:
        assert self.battle is not None
        now: dict[str, int] = {}
        start: dict[str, int] = {}
        for u in self.battle.units.values():  # one pass for both sides' stands
            now[u.side] = now.get(u.side, 0) + u.stands
            start[u.side] = start.get(u.side, 0) + u.stands_start
        for sid, row in self._side_rows.items():
            self.changed_rows.append(row)
            row[COL_STANDS].setText(f"{now.get(sid, 0)}/{start.get(sid, 0)}")

    # -- updating ---------------------------------------------------------------------------
    def apply(self, battle: Battle, summary: ChangeSummary) -> None:
        """Bring the rows named by ``summary`` up to date with ``battle``."""
        self.changed_rows = []
        if summary.reset or self.battle is None or [s.id for s in battle.oob.sides] != list(self._side_rows):
            self.set_battle(battle)
            return
        self.battle = battle
        touched_brigades = set(summary.brigades)
        for bid in summary.brigades:
            if bid not in battle.brigades and bid in self._brigade_rows:
                self._forget_units_of(bid)
                self._remove(self._brigade_rows.pop(bid))
        for bid in summary.brigades:
            b = battle.brigades.get(bid)
            if b is None:
                continue
            if bid not in self._brigade_rows:
                self._add_brigade(b)
            elif self._brigade_rows[bid][0].data(SIDE_ROLE) != b.side:
                self._move_brigade(b)
        stands_moved = bool(summary.brigades)  # whether a side's count of stands may have changed
        for uid in summary.units:
            u = battle.units.get(uid)
            row = self._unit_rows.get(uid)
            if row is not None and (u is None or self._unit_brigade[uid] != u.brigade):
                touched_brigades.add(self._unit_brigade.pop(uid))
                self._remove(row)
                del self._unit_rows[uid]
                row = None
                stands_moved = True
            if u is None:
                continue
            touched_brigades.add(u.brigade)
            if row is None:
                self._add_unit(u)
                stands_moved = True
            else:
                was = self._shown.get(uid)
                self._fill_unit(u)
                if was is None or _stands_of(was) != _stands_of(self._shown[uid]):
                    stands_moved = True
        for bid in touched_brigades:
            b = battle.brigades.get(bid)
            if b is not None and bid in self._brigade_rows:
                self._fill_brigade(b)
        if stands_moved:  # (a march or a ruling on micro-hits leaves them as they were)
            self._refresh_sides()

    def _forget_units_of(self, brigade_id: str) -> None:
        for uid in [k for k, b in self._unit_brigade.items() if b == brigade_id]:
            self._unit_rows.pop(uid, None)
            self._unit_brigade.pop(uid, None)

    def _remove(self, row: list[QStandardItem]) -> None:
        parent = row[0].parent()
        if parent is None:
            self.removeRow(row[0].row())
        else:
            parent.removeRow(row[0].row())

    def _move_brigade(self, b: Brigade) -> None:
        self._forget_units_of(b.id)
        self._remove(self._brigade_rows.pop(b.id))
        self._add_brigade(b)
        assert self.battle is not None
        for u in self.battle.oob.units_of_brigade(b.id):
            if u.id not in self._unit_rows:
                self._add_unit(u)

    # -- look-ups ----------------------------------------------------------------------------
    def unit_index(self, unit_id: str, column: int = 0) -> QModelIndex:
        row = self._unit_rows.get(unit_id)
        return row[column].index() if row else QModelIndex()

    def brigade_index(self, brigade_id: str) -> QModelIndex:
        row = self._brigade_rows.get(brigade_id)
        return row[0].index() if row else QModelIndex()

    def side_index(self, side_id: str) -> QModelIndex:
        row = self._side_rows.get(side_id)
        return row[0].index() if row else QModelIndex()

    def unit_ids(self) -> list[str]:
        return list(self._unit_rows)

    def unit_text(self, unit_id: str, column: int) -> str:
        return self._unit_rows[unit_id][column].text()

    def unit_markers(self, unit_id: str) -> str:
        return self._unit_rows[unit_id][COL_MARKERS].data(MARKERS_ROLE) or ""

    def brigade_text(self, brigade_id: str, column: int) -> str:
        return self._brigade_rows[brigade_id][column].text()


def _stands_of(shown: tuple) -> tuple:
    """Of what a unit's row shows (``RosterModel._fill_unit``): its stands, those it started with
    and its side, which the sides' rows count."""
    return shown[3], shown[4], shown[9]


class RosterFilter(QSortFilterProxyModel):
    """Shows one side or both, optionally only the units that carry a marker, and only the units a
    search finds (in a unit's name or id, its brigade's name or id, its Brigadier, its markers);
    sorts each brigade's units by a column, or keeps the order of battle."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._side: str | None = None
        self._marked_only = False
        self._search: list[str] = []
        self.setRecursiveFilteringEnabled(True)
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)

    def _refilter(self, change) -> None:
        if hasattr(self, "beginFilterChange"):  # Qt 6.10 and later
            self.beginFilterChange()
            change()
            self.endFilterChange()
        else:
            change()
            self.invalidateFilter()

    def set_side(self, side: str | None) -> None:
        self._refilter(lambda: setattr(self, "_side", side or None))

    def set_marked_only(self, on: bool) -> None:
        self._refilter(lambda: setattr(self, "_marked_only", bool(on)))

    def set_search(self, text: str) -> None:
        """Show only the units whose name, id, brigade, Brigadier or markers hold every word of
        ``text`` (case aside), with their brigade and side."""
        self._refilter(lambda: setattr(self, "_search", text.lower().split()))

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex) -> bool:  # noqa: N802
        idx = self.sourceModel().index(source_row, 0, source_parent)
        if self._side is not None and idx.data(SIDE_ROLE) != self._side:
            return False
        kind = idx.data(KIND_ROLE)
        if self._marked_only and not (kind == "unit" and bool(idx.data(MARKED_ROLE))):
            return False
        if self._search:
            hay = idx.data(SEARCH_ROLE) or ""
            return kind == "unit" and all(w in hay for w in self._search)
        return True

    def lessThan(self, left: QModelIndex, right: QModelIndex) -> bool:  # noqa: N802
        a, b = left.data(SORT_ROLE), right.data(SORT_ROLE)
        if a is None or b is None:
            a, b = left.data(ORDER_ROLE), right.data(ORDER_ROLE)
        try:
            return a < b
        except TypeError:
            return str(a) < str(b)


class RosterView(QWidget):
    """The roster dock: filter bar, tree of side > brigade > unit, add / edit / remove."""

    def __init__(self, controller: ControllerLike, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("roster")
        self.controller = controller
        self.model = RosterModel(self)
        self.proxy = RosterFilter(self)
        self.proxy.setSourceModel(self.model)
        self._syncing = False
        self._widths: dict[tuple, int] = {}  # the width of an entry, by column, depth, text and icon

        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self.search = QLineEdit(self)
        self.search.setObjectName("roster_search")
        self.search.setPlaceholderText("Search: name, id, brigade, Brigadier, marker")
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip(
            "List only the units whose name or id, brigade, Brigadier or markers hold these words "
            '("georgia", "iron", "disorder", "nc26")'
        )
        lay.addWidget(self.search)
        bar = QHBoxLayout()
        self.side_filter = QComboBox(self)
        self.side_filter.setToolTip("Show one side or both")
        self.marked_only = QCheckBox("Marked only", self)
        self.marked_only.setToolTip("List only the units that carry a marker")
        bar.addWidget(self.side_filter)
        bar.addWidget(self.marked_only)
        bar.addStretch(1)
        # the filters on one line, the buttons on the next: the dock can be narrow
        lay.addLayout(bar)
        bar = QHBoxLayout()
        bar.addStretch(1)
        self.add_button = QToolButton(self)
        self.add_button.setText("Add")
        self.add_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        add_menu = QMenu(self.add_button)
        self.add_unit_action = add_menu.addAction("Unit…", self.add_unit)
        self.add_brigade_action = add_menu.addAction("Brigade and Brigadier…", self.add_brigade)
        self.add_button.setMenu(add_menu)
        self.edit_button = QToolButton(self)
        self.edit_button.setText("Edit…")
        self.edit_button.clicked.connect(self.edit_current)
        self.remove_button = QToolButton(self)
        self.remove_button.setText("Remove")
        self.remove_button.clicked.connect(self.remove_current)
        for b in (self.add_button, self.edit_button, self.remove_button):
            bar.addWidget(b)
        lay.addLayout(bar)

        self.tree = QTreeView(self)
        self.tree.setModel(self.proxy)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setAllColumnsShowFocus(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(24)
        # the name takes the room the other columns leave; they are as wide as their entries, so
        # the dock reads without scrolling sideways (a long name is cut short, whole in its tooltip).
        # Their widths are fitted when the rows are made or filtered and widened for the rows a
        # change fills (a header that measured every row itself would do it at every change)
        header.setSectionResizeMode(COL_NAME, QHeaderView.ResizeMode.Stretch)
        for c in range(1, len(COLUMNS)):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.Interactive)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        # sorting by a column (clicked a third time: the order of battle again)
        self.tree.setSortingEnabled(True)
        # the arrow (and the room it takes in every heading) shows once the umpire sorts
        header.setSortIndicatorShown(False)
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.proxy.sort(-1)
        self._sort_clicks: tuple[int, int] = (-1, 0)
        header.sectionClicked.connect(self._header_clicked)
        for col, full in (
            (
                COL_NAME,
                "Side > brigade — its Brigadier > unit (click a heading to sort; a third click: the order of battle)",
            ),
            (
                COL_STANDS,
                "Stands now / at the start of the battle; +1: a micro-hit carried, an unsaved hit short "
                "of a whole stand (RULE-06-3.3)",
            ),
            (COL_STATE, "A unit's health (Fresh, Worn, Spent); a brigade's state (Steady, Hesitant, Broken)"),
            (
                COL_FORMATION,
                "A unit's formation; a brigade's Staff Pips: ● available, ◐ reserved (RULE-04-1.3)",
            ),
            (
                COL_MARKERS,
                "D Disorder, S Smoke, F Fired, P Pinned, E Engaged, G Garrisoned, L / R Refused left / right flank, "
                "C Climbing (hover over a unit's markers for their names)",
            ),
        ):
            self.model.horizontalHeaderItem(col).setToolTip(full)
        self.tree.setIndentation(12)
        self.tree.setRootIsDecorated(False)  # the two sides stay open: their rows need no arrow
        self.tree.setMinimumWidth(300)
        self.tree.doubleClicked.connect(lambda _i: self.edit_current())
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        lay.addWidget(self.tree)
        self.legend = QLabel(LEGEND, self)
        self.legend.setWordWrap(True)
        self.legend.setStyleSheet(f"color: {theme.MUTED}; font-size: 9pt;")
        self.legend.setToolTip("What the roster's symbols mean")
        lay.addWidget(self.legend)

        self.side_filter.currentIndexChanged.connect(self._side_filter_changed)
        self.marked_only.toggled.connect(self._marked_changed)
        self.search.textChanged.connect(self._search_changed)
        self.tree.selectionModel().selectionChanged.connect(self._tree_selection_changed)
        controller.changed.connect(self._on_changed)
        controller.selectionChanged.connect(self._on_selection)
        controller.gameReplaced.connect(self._on_game_replaced)
        self._on_game_replaced()
        self._on_changed(ChangeSummary.everything())

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(self.wanted_width(), 600)

    #: The roster's widest: the rest of the window is the map's.
    MAX_WIDTH = 500

    def wanted_width(self) -> int:
        """The width that shows the columns whole and most names whole (at most :attr:`MAX_WIDTH`)."""
        header = self.tree.header()
        others = sum(
            max(header.sectionSizeHint(c), self.tree.sizeHintForColumn(c)) for c in range(1, len(COLUMNS))
        )
        fm = self.tree.fontMetrics()
        battle = self.controller.battle
        names = sorted(fm.horizontalAdvance(u.name) for u in battle.units.values()) if battle else [160]
        # room for nine names in ten, at the depth of a unit row with its icon
        typical = names[int(0.9 * (len(names) - 1))] if names else 160
        name = typical + 3 * self.tree.indentation() + 30
        scroll = self.tree.verticalScrollBar().sizeHint().width()
        return max(320, min(self.MAX_WIDTH, name + others + scroll + 14))

    # -- keeping up -------------------------------------------------------------------------
    def _on_game_replaced(self) -> None:
        battle = self.controller.battle
        self.side_filter.blockSignals(True)
        keep = self.side_filter.currentData()
        self.side_filter.clear()
        self.side_filter.addItem("Both sides", None)
        if battle is not None:
            for s in battle.oob.sides:
                self.side_filter.addItem(icons.side_icon(s.colour), s.name, s.id)
        i = self.side_filter.findData(keep)
        self.side_filter.setCurrentIndex(max(i, 0))
        self.side_filter.blockSignals(False)
        self.proxy.set_side(self.side_filter.currentData())
        self.setEnabled(battle is not None)

    def _on_changed(self, summary: ChangeSummary) -> None:
        """Bring the rows an action changed up to date. Nothing jumps: the scroll position, the
        brigades the umpire closed and the selection are as they were (a new game opens all)."""
        battle = self.controller.battle
        if battle is None:
            self.model.set_battle(None)
            return
        if summary.units or summary.brigades or summary.reset:
            resets = self.model.resets
            fresh = summary.reset or self.model.battle is None
            new_units = [u for u in summary.units if u not in self.model._unit_rows]
            new_brigades = [b for b in summary.brigades if b not in self.model._brigade_rows]
            # rows added, taken away or filed elsewhere: what the umpire closed and the scroll are
            # kept through it; values changed in place move nothing, and nothing need be kept
            rows_move = (
                bool(new_units or new_brigades)
                or any(
                    u not in battle.units
                    or (
                        u in self.model._unit_brigade
                        and self.model._unit_brigade[u] != battle.units[u].brigade
                    )
                    for u in summary.units
                )
                or any(b not in battle.brigades for b in summary.brigades)
            )
            kept = None if fresh else (self._view_state() if rows_move else False)
            self._syncing = True
            try:
                self.model.apply(battle, summary)
            finally:
                self._syncing = False
            if kept is None:
                self.tree.expandAll()
            elif kept is not False:
                self._restore_view_state(kept, opened=[*new_brigades, *new_units])
            if self.model.resets != resets:
                self.fit_columns()
            else:
                self._widen_columns(self.model.changed_rows)
            self._on_selection(self.controller.selection, scroll=fresh)

    def _view_state(self) -> tuple[set[tuple[str, str]], int, int]:
        """What must survive an action: the rows the umpire closed (kind and id) and the scroll."""
        closed: set[tuple[str, str]] = set()

        def walk(parent: QModelIndex) -> None:
            for r in range(self.proxy.rowCount(parent)):
                idx = self.proxy.index(r, 0, parent)
                if self.proxy.hasChildren(idx):
                    if not self.tree.isExpanded(idx):
                        closed.add((idx.data(KIND_ROLE), idx.data(ID_ROLE)))
                    walk(idx)

        walk(QModelIndex())
        return closed, self.tree.verticalScrollBar().value(), self.tree.horizontalScrollBar().value()

    def _restore_view_state(self, state, opened=()) -> None:
        closed, v, h = state

        def walk(parent: QModelIndex) -> None:
            for r in range(self.proxy.rowCount(parent)):
                idx = self.proxy.index(r, 0, parent)
                if self.proxy.hasChildren(idx):
                    self.tree.setExpanded(idx, (idx.data(KIND_ROLE), idx.data(ID_ROLE)) not in closed)
                    walk(idx)

        walk(QModelIndex())
        for ident in opened:  # a unit or brigade added: its brigade and side open to show it
            src = self.model.unit_index(ident)
            if not src.isValid():
                src = self.model.brigade_index(ident)
            idx = self.proxy.mapFromSource(src)
            if idx.isValid() and self.proxy.hasChildren(idx):
                self.tree.setExpanded(idx, True)
            idx = idx.parent()
            while idx.isValid():
                self.tree.setExpanded(idx, True)
                idx = idx.parent()
        self.tree.verticalScrollBar().setValue(v)
        self.tree.horizontalScrollBar().setValue(h)

    #: The short columns fitted, beside the name that stretches.
    FITTED = (COL_STANDS, COL_HEALTH, COL_FORMATION, COL_MARKERS)

    def fit_columns(self) -> None:
        """The short columns as wide as their widest entry shown (the name takes the rest), with
        room for a micro-hit in the stands and for the sorting arrow."""
        self._widths.clear()
        header = self.tree.header()
        fm = self.tree.fontMetrics()
        for c in self.FITTED:
            want = max(header.sectionSizeHint(c), self.tree.sizeHintForColumn(c))
            if c == COL_STANDS:
                want = max(want, fm.horizontalAdvance("10/10 +1") + 12)
            header.resizeSection(c, want)

    def _widen_columns(self, rows: list[list[QStandardItem]]) -> None:
        """Widen the short columns that an entry of ``rows`` no longer fits in (measuring those
        rows only; a column is not narrowed until the rows are fitted again)."""
        header = self.tree.header()
        widths = self._widths
        want = dict.fromkeys(self.FITTED, 0)
        for row in rows:
            for c in self.FITTED:
                item = row[c]
                # an entry's width depends on its text and its icon: each is measured once
                key = (c, item.text(), item.data(ICON_OF_ROLE))
                w = widths.get(key)
                if w is None:
                    index = self.proxy.mapFromSource(item.index())
                    if not index.isValid():
                        continue  # filtered out
                    w = widths[key] = self.tree.sizeHintForIndex(index).width()
                want[c] = max(want[c], w)
        for c, w in want.items():
            if w > header.sectionSize(c):
                header.resizeSection(c, w)

    def _refilter(self, change) -> None:
        # hiding rows must not unselect units on the map: the filter only changes what is listed
        self._syncing = True
        try:
            change()
            self.tree.expandAll()
            self.fit_columns()
        finally:
            self._syncing = False
        self._on_selection(self.controller.selection)

    def _search_changed(self, text: str) -> None:
        self._refilter(lambda: self.proxy.set_search(text))

    def _header_clicked(self, col: int) -> None:
        """Ascending, descending, then the order of battle again, on the same heading."""
        last, n = self._sort_clicks
        n = n + 1 if col == last else 1
        self._sort_clicks = (col, n)
        header = self.tree.header()
        if n >= 3:
            self._sort_clicks = (-1, 0)
            kept = self._view_state()
            header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
            self.proxy.sort(-1)
            self._restore_view_state(kept)
        header.setSortIndicatorShown(self._sort_clicks[0] >= 0)
        self.fit_columns()  # (the heading's arrow takes room)

    def _side_filter_changed(self, _i: int) -> None:
        self._refilter(lambda: self.proxy.set_side(self.side_filter.currentData()))

    def _marked_changed(self, on: bool) -> None:
        self._refilter(lambda: self.proxy.set_marked_only(on))

    # -- selection ------------------------------------------------------------------------
    def selected_ids(self, kind: str = "unit") -> list[str]:
        out = []
        for idx in self.tree.selectionModel().selectedRows(0):
            if idx.data(KIND_ROLE) == kind:
                out.append(idx.data(ID_ROLE))
        return out

    def current(self) -> tuple[str | None, str | None]:
        idx = self.tree.currentIndex()
        sel = self.tree.selectionModel().selectedRows(0)
        if sel:
            idx = sel[0]
        if not idx.isValid():
            return None, None
        return idx.data(KIND_ROLE), idx.data(ID_ROLE)

    def _tree_selection_changed(self, *_args) -> None:
        if self._syncing:
            return
        self._syncing = True
        try:
            self.controller.select(self.selected_ids("unit"))
        finally:
            self._syncing = False

    def _on_selection(self, unit_ids, scroll: bool = True) -> None:
        """Select the units' rows (chosen on the map, or kept through an action). With ``scroll``
        the first is brought into view if it is out of it; after an action nothing scrolls."""
        if self._syncing:
            return
        self._syncing = True
        try:
            sm = self.tree.selectionModel()
            sel = QItemSelection()
            first = QModelIndex()
            for uid in unit_ids:
                src = self.model.unit_index(uid)
                if not src.isValid():
                    continue
                idx = self.proxy.mapFromSource(src)
                if not idx.isValid():
                    continue
                sel.select(idx, idx)
                if not first.isValid():
                    first = idx
            sm.select(
                sel,
                QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
            )
            if first.isValid():
                if scroll:
                    self.tree.scrollTo(first, QAbstractItemView.ScrollHint.EnsureVisible)
                auto = self.tree.hasAutoScroll()
                self.tree.setAutoScroll(scroll)  # a current row set after an action scrolls nothing
                sm.setCurrentIndex(first, QItemSelectionModel.SelectionFlag.NoUpdate)
                self.tree.setAutoScroll(auto)
        finally:
            self._syncing = False

    def context_actions(self) -> list[tuple[str, object]]:
        """What a right-click on the current row offers, as (text, slot)."""
        kind, _ident = self.current()
        out: list[tuple[str, object]] = []
        if kind == "unit":
            out += [("Edit unit…", self.edit_current), ("Remove unit…", self.remove_current)]
            out += [("Add a unit to this brigade…", self.add_unit)]
        elif kind == "brigade":
            out += [("Edit brigade and Brigadier…", self.edit_current), ("Add a unit to it…", self.add_unit)]
            out += [("Remove brigade…", self.remove_current)]
        elif kind == "side":
            out += [("Add a brigade…", self.add_brigade)]
        return out

    def _context_menu(self, pos) -> None:
        idx = self.tree.indexAt(pos)
        if not idx.isValid():
            return
        self.tree.selectionModel().select(
            idx, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        )
        self.tree.setCurrentIndex(idx)
        menu = QMenu(self)
        for text, slot in self.context_actions():
            menu.addAction(text, slot)
        menu.popup(self.tree.viewport().mapToGlobal(pos))

    # -- editing --------------------------------------------------------------------------
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


def visible_unit_ids(view: RosterView) -> list[str]:
    """The unit ids the roster shows under its current filter (used by tests and printing)."""
    out: list[str] = []

    def walk(parent: QModelIndex) -> None:
        for r in range(view.proxy.rowCount(parent)):
            idx = view.proxy.index(r, 0, parent)
            if idx.data(KIND_ROLE) == "unit":
                out.append(idx.data(ID_ROLE))
            walk(idx)

    walk(QModelIndex())
    return out
