"""The roster's rows: side > brigade > unit, with stands, health, formation and markers, and the
filter that hides and sorts them.

:class:`RosterModel` is a ``QStandardItemModel`` kept in step with the battle row by row: a
:class:`~gui.controller.ChangeSummary` updates only the rows it names. :class:`RosterFilter`
filters by side, by "only units with markers" and by a search (a unit's name or id, its brigade
or Brigadier, a marker), and sorts by any column. The columns, the data roles the rows carry and
the words the narrow columns use are here too; the dock's widget is :class:`gui.roster.RosterView`.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QFont, QPalette, QStandardItem, QStandardItemModel

from gui import icons
from gui.controller import ChangeSummary
from rules.battle.battle import Battle
from rules.battle.order_of_battle import Brigade, Side
from rules.battle.unit import Unit
from rules.battle.words import BrigadierStatus, Formation, Health, Marker, plural

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
        shown += (frozenset(u.markers), u.side, u.brigade, u.arrives)
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
        return (
            f"{u.name} ({u.kind.label}, {u.quality.label})\n"
            f'{u.id} — {u.x:.1f}", {u.y:.1f}" facing {u.facing_deg:.0f}°'
        )

    def _fill_unit_cells(self, u: Unit, row: list[QStandardItem]) -> None:
        row[COL_NAME].setText(u.name)
        row[COL_NAME].setToolTip(self._unit_tip(u))
        row[COL_STANDS].setText(stands_text(u.stands, u.stands_start, u.micro_hits))
        row[COL_STANDS].setToolTip(
            f"{u.stands} of the {u.stands_start} stands it started with"
            + (
                f"; {plural(u.micro_hits, 'micro-hit')} carried: an unsaved hit short of a stand "
                "(RULE-06-3.3)"
                if u.micro_hits
                else ""
            )
        )
        row[COL_HEALTH].setText(u.health.label if u.arrives is None else f"Arrives T{u.arrives.turn}")
        row[COL_HEALTH].setToolTip(
            "" if u.arrives is None else f"Not on the table yet: it arrives {u.arrives.words()}"
        )
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
        arriving = ["arriving", "arrives"] if u.arrives is not None else []
        row[COL_NAME].setData(
            " ".join(
                [u.name, u.id, brigade_words, *arriving, *(m.value for m in ms), *(m.label for m in ms)]
            ).lower(),
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
        # a destroyed unit greyed; any other in the palette's own text colour (no brush of its own:
        # an empty one would be black, unread on a dark theme)
        grey = (
            QBrush(QPalette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
            if u.health == Health.DESTROYED or u.arrives is not None
            else None
        )
        for it in row:
            it.setData(u.side, SIDE_ROLE)
            it.setData(bool(u.markers), MARKED_ROLE)
            it.setData(grey, Qt.ItemDataRole.ForegroundRole)

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
