"""The order-of-battle roster dock: a search and filter bar, the tree of side > brigade > unit, and
the add / edit / remove buttons.

:class:`RosterView` shows the rows of :class:`~gui.roster_model.RosterModel` through
:class:`~gui.roster_model.RosterFilter`, with its selection kept in step with the controller's
(and so with the map). Nothing jumps: the scroll position, which brigades are open and the
selection survive every action, undo and redo. A heading clicked sorts by its column (clicked a
third time, the order of battle again). Adding, editing and removing are
:class:`~gui.roster_editing.RosterEditing`'s.

The default columns (Name, Stands with the micro-hits, Health, Formation, Markers) are as wide as
their entries. The Name column takes the room the others leave, and never less than the battle's
longest unit name: every name reads whole. The dock's first width shows them all where the screen
has the room (the demo's on a 1366-pixel screen); in a dock narrower than that the list scrolls
sideways. A name is whole in its tooltip too.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QItemSelection, QItemSelectionModel, QModelIndex, QSize, Qt
from PySide6.QtGui import QStandardItem
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
from gui.roster_editing import RosterEditing
from gui.roster_model import (
    COL_FORMATION,
    COL_HEALTH,
    COL_MARKERS,
    COL_NAME,
    COL_STANDS,
    COL_STATE,
    COLUMNS,
    ICON_OF_ROLE,
    ID_ROLE,
    KIND_ROLE,
    LEGEND,
    RosterFilter,
    RosterModel,
)


class RosterView(RosterEditing, QWidget):
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
        self._names_width = 0  # the Name column's least: the longest unit name at a unit's depth

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
        # the name takes the room the other columns leave, and never less than the longest unit
        # name (a narrower dock scrolls sideways: see _fit_name_column); the others are as wide as
        # their entries. Their widths are fitted when the rows are made or filtered and widened for
        # the rows a change fills (a header that measured every row itself would do it at every change)
        for c in range(len(COLUMNS)):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.Interactive)
        header.sectionResized.connect(self._section_resized)
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
                "Side > brigade — its Brigadier > unit (click a heading to sort; a third click: the order "
                "of battle)",
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
                "D Disorder, S Smoke, F Fired, P Pinned, E Engaged, G Garrisoned, L / R Refused left / "
                "right flank, C Climbing (hover over a unit's markers for their names)",
            ),
        ):
            self.model.horizontalHeaderItem(col).setToolTip(full)
        self.tree.setIndentation(12)
        self.tree.setRootIsDecorated(False)  # the two sides stay open: their rows need no arrow
        self.tree.setMinimumWidth(300)
        self.tree.doubleClicked.connect(lambda _i: self.edit_current())
        self.tree.viewport().installEventFilter(self)  # its width changes: the name is fitted again
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
        name = self.names_width() + 14  # and some room to spare
        scroll = self.tree.verticalScrollBar().sizeHint().width()
        return max(320, min(self.MAX_WIDTH, name + others + scroll + 14))

    #: What a name's cell adds to its text: the margins the view leaves either side of it.
    NAME_MARGIN = 12

    def names_width(self, unit_ids=None) -> int:
        """The Name column's width that shows the longest unit name whole at a unit's depth (of
        ``unit_ids`` only, when given)."""
        battle = self.controller.battle
        if battle is None:
            return 160
        fm = self.tree.fontMetrics()
        units = battle.units
        ids = units if unit_ids is None else [u for u in unit_ids if u in units]
        longest = max((fm.horizontalAdvance(units[u].name) for u in ids), default=0)
        return longest + 2 * self.tree.indentation() + self.NAME_MARGIN

    def _fit_name_column(self) -> None:
        """The name as wide as the room the other columns leave, and at least its longest name."""
        header = self.tree.header()
        others = sum(header.sectionSize(c) for c in range(len(COLUMNS)) if c != COL_NAME)
        want = max(self._names_width, self.tree.viewport().width() - others)
        if header.sectionSize(COL_NAME) != want:
            header.resizeSection(COL_NAME, want)

    def _section_resized(self, col: int, _old: int, _new: int) -> None:
        if col != COL_NAME:
            self._fit_name_column()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Resize and watched is self.tree.viewport():
            self._fit_name_column()
        return super().eventFilter(watched, event)

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
        self._names_width = self.names_width()
        for c in self.FITTED:
            want = max(header.sectionSizeHint(c), self.tree.sizeHintForColumn(c))
            if c == COL_STANDS:
                want = max(want, fm.horizontalAdvance("10/10 +1") + 12)
            header.resizeSection(c, want)
        self._fit_name_column()

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
        # a unit added or renamed: its name whole too
        names = self.names_width(
            [r[COL_NAME].data(ID_ROLE) for r in rows if r[COL_NAME].data(KIND_ROLE) == "unit"]
        )
        if names > self._names_width:
            self._names_width = names
            self._fit_name_column()

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
