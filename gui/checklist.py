"""The phase checklist in the window: the Checklist dock, and the question before a phase ends.

The items are asked of the rules (:mod:`rules.turn.checklist`, through :mod:`storage.checklist`, which
reads the battle as the phase began from the journal). The dock lists the items of the current
phase and ticks each one off as it is done, on the controller's change notice; an item done and
then undone comes back. Clicking an item selects its unit (and the other unit it names: the best
target, the melee's defender) on the map.

Next phase and End turn ask :func:`end_phase`: with nothing left the phase simply ends; otherwise
:class:`PhaseEndDialog` shows what is left, phase by phase, and the umpire goes on (the items
skipped are logged, in the same step as the phase change: one Undo) or goes back. A melee due in
Phase 4 blocks, as the rules say (RULE-06-1.1): the phase change is refused with their reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gui import theme
from gui.controller import FOLLOW_AFTER_MS, GameController, GameError
from gui.row_pictures import RowPictures
from gui.steady_label import SteadyLabel
from rules.battle.words import Phase

if TYPE_CHECKING:  # the rules of play load with the first question asked, not with the window
    from gui.controller import ChangeSummary
    from rules.turn.checklist import ChecklistWork, Item

#: A short word for each kind of item (rules.turn.checklist.ItemKind), shown before it.
KIND_LABEL = {
    "move": "Move",
    "arrive": "Arrivals",
    "fire": "Fire",
    "melee": "Melee",
    "check": "Roll owed",
    "reserved_pips": "Reserved pips",
    "umpire": "Umpire",
}

ITEM_ROLE = Qt.ItemDataRole.UserRole


def _work_of(controller: GameController) -> ChecklistWork | None:
    """The items open now, to be worked out a piece at a time; None without a game or a question
    the save cannot answer."""
    from storage.checklist import open_items_work

    game = controller.game
    if game is None:
        return None
    try:
        return open_items_work(game)
    except GameError:
        return None


def _items_of(controller: GameController, end_turn: bool | None = None) -> tuple[Item, ...]:
    """The items open now (``end_turn`` None), or those Next phase / End turn would leave."""
    from storage.checklist import left_open_items, open_items

    game = controller.game
    if game is None:
        return ()
    try:
        return open_items(game) if end_turn is None else left_open_items(game, end_turn)
    except GameError:
        return ()


class _ItemList(QTreeWidget):
    """The checklist's rows: a one-column tree without branches, each row wrapped to the dock's
    width. (A list view lays every row out again when any row changes, asking each its size; a
    tree asks only the rows that changed.) Its rows are asked for as a list's are."""

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(False)
        self.setWordWrap(True)
        self.setIndentation(0)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setAlternatingRowColors(True)
        # the rows wrap again to a new width
        self.header().sectionResized.connect(lambda *_: self.scheduleDelayedItemsLayout())

    def count(self) -> int:
        return self.topLevelItemCount()

    def item(self, row: int) -> QTreeWidgetItem | None:
        return self.topLevelItem(row)

    def takeItem(self, row: int) -> QTreeWidgetItem | None:  # noqa: N802
        return self.takeTopLevelItem(row)

    def addItem(self, item: QTreeWidgetItem) -> None:  # noqa: N802
        self.addTopLevelItem(item)


class ChecklistView(QWidget):
    """The Checklist dock: what is left of the phase, each item with its rule, ticked off live."""

    def __init__(self, controller: GameController, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("checklist")
        self.controller = controller
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self.heading = QLabel(self)  # the turn, the side and the phase: changes with the phase
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(self.heading)
        # how many items are left and done: changes at most steps, laid out on its own (a new
        # text in the wrapped heading would have the dock and the main window laid out again)
        self.count = SteadyLabel(self)
        self.count.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(self.count)
        # one item a row, wrapped to the dock's width: the words and the rule in brackets
        self.list = _ItemList(self)
        self.list.setObjectName("checklist_list")
        self.list.itemClicked.connect(lambda row, _column: self._clicked(row))
        self.pictures = RowPictures(self.list)  # a row's size and picture worked out once
        self.list.setItemDelegate(self.pictures)
        lay.addWidget(self.list, 1)
        self._phase_key: tuple | None = None
        self._seen: dict[str, Item] = {}  # every item of this phase, in the order first seen
        self._open: set[str] = set()
        self._rows: list[tuple] = []  # the rows shown, as _fill wants them
        self._words: dict[int, tuple] = {}  # each item's row words and tooltip, by the item
        self._dirty = True
        self._shown = False  # whether the dock is in front (a tab behind another is not)
        # the items being worked out, a slice at a time between the window's other work
        self._work: ChecklistWork | None = None
        self._working = False
        self._more = QTimer(self)
        self._more.setSingleShot(True)
        self._more.timeout.connect(self._go_on)
        controller.changed.connect(self._changed)
        controller.gameReplaced.connect(self._replaced)

    def changeEvent(self, event) -> None:  # noqa: N802
        super().changeEvent(event)
        self.pictures.restyled(event)  # another palette, font or style: the rows drawn afresh

    # -- keeping up ------------------------------------------------------------------------------
    def _replaced(self) -> None:
        # another game: nothing of the one before is kept, shown or worked on
        self._stop_work()
        self._phase_key, self._seen, self._open = None, {}, set()
        self.list.clear()
        self._rows = []
        self._changed(None)

    def _stop_work(self) -> None:
        self._more.stop()
        self._work, self._working = None, False

    def _changed(self, _summary: ChangeSummary | None) -> None:
        # any change can open or close an item (a march, a volley, a melee, an override)
        self._dirty = True
        if self._shown:
            self.refresh()
        else:  # behind another tab: what was being worked out is out of date; asked when shown
            self._stop_work()

    def set_shown(self, shown: bool) -> None:
        """The dock is in front (its ``visibilityChanged``): the list is kept up to date only
        while it can be seen, and brought up to date when it comes to the front."""
        self._shown = shown
        if shown and self._dirty:
            self.refresh()

    #: How long the checklist is worked on at a time (seconds), a turn of the window's event loop
    #: at a time until the items are known, so that the window answers the umpire's clicks while
    #: a phase's questions (Phase 3's firers, after an undo into it) are still being answered.
    WORK_SLICE_S = 0.012
    #: How long after a change the checklist starts on it (milliseconds): the step's map, roster
    #: and log are painted first, and the checklist follows (:data:`gui.controller.FOLLOW_AFTER_MS`).
    AFTER_PAINT_MS = FOLLOW_AFTER_MS

    @property
    def up_to_date(self) -> bool:
        """Whether the rows are those of the battle now (no work left on them)."""
        return not self._dirty and self._work is None

    def refresh(self) -> None:
        """Ask the rules again: items no longer open are ticked, new ones added. A question that
        takes long is worked on a slice at a time (:attr:`WORK_SLICE_S`), the count saying so."""
        if getattr(self.controller, "looking_back", None) is not None:
            # the map shows a moment of the past: the checklist stays the game's now, and is
            # asked again when the window comes back to it
            self._stop_work()
            self._dirty = True
            return
        self._dirty = False
        b = self.controller.battle
        if b is None:
            self._work, self._working = None, False
            self._phase_key, self._seen, self._open = None, {}, set()
            self.heading.setText("No game is open.")
            self.count.setText("")
            self.list.clear()
            self._rows = []
            return
        self._work = _work_of(self.controller)
        self._more.start(self.AFTER_PAINT_MS)

    def finish(self) -> None:
        """Work out now what is left of the items being worked out (what a reader of the rows
        wants: the rows as they will stand)."""
        self._more.stop()
        while self._work is not None:
            self._go_on(None)

    def _go_on(self, seconds: float | None | bool = False) -> None:
        work = self._work
        b = self.controller.battle
        if work is None or b is None:
            return
        try:
            done = work.work(self.WORK_SLICE_S if seconds is False else seconds)
        except GameError:
            done, work.items = True, ()
        key = (b.turn, b.active_side, b.phase)
        if key != self._phase_key:
            self._phase_key, self._seen, self._open = key, {}, set()
        if not done:
            self._working = True
            self._fill(b)
            self._more.start(0)
            return
        self._work, self._working = None, False
        items = work.items or ()
        for i in items:
            self._seen.setdefault(i.key, i)
            self._seen[i.key] = i  # the words may change (the allowance left, the best target)
        self._open = {i.key for i in items}
        self._fill(b)

    def _fill(self, b) -> None:
        side = b.oob.side_name(b.active_side)
        left, done = len(self._open), len(self._seen) - len(self._open)
        heading = f"Turn {b.turn}, {side}: {b.phase.title}."
        if heading != self.heading.text():
            self.heading.setText(heading)
        if self._working:
            self.count.setText("Working out what is left…")
        elif not self._seen:
            self.count.setText("Nothing is left to do in this phase.")
        else:
            self.count.setText(f"{left} left" + (f", {done} done" if done else ""))
        # each row as it should read; a row that already reads so is left alone, so that a step
        # which changes nothing here (or one row) does not lay out and repaint the whole list
        wanted = []
        words = self._words
        for key, item in self._seen.items():
            said = words.get(id(item))
            if said is None or said[0] is not item:  # (an item's words are worked out once)
                rule = f" ({item.rule})" if item.rule else ""
                said = words[id(item)] = (
                    item,
                    f"{KIND_LABEL.get(item.kind, item.kind)}: {item.text}{rule}",
                    str(item) + ("\nClick to select it on the map." if item.units else ""),
                )
            wanted.append((key, said[1], said[2], key in self._open, item.blocks))
        if len(words) > 4 * len(self._seen) + 100:  # the words of items no longer shown
            shown = {id(item) for item in self._seen.values()}
            self._words = {k: v for k, v in words.items() if k in shown}
        if wanted == self._rows:
            return
        while self.list.count() > len(wanted):
            self.list.takeItem(self.list.count() - 1)
        # the rows' words, ticks and colours set with the tree's signals held, then one notice
        # for the rows from the first changed to the last (a group march ticks off many)
        model = self.list.model()
        changed: list[QTreeWidgetItem] = []
        for n, want in enumerate(wanted):
            if n < len(self._rows) and self._rows[n] == want:
                continue
            row = self.list.item(n)
            if row is None:
                row = QTreeWidgetItem()
                row.setFlags(row.flags() & ~Qt.ItemFlag.ItemIsUserCheckable)
                self._dress(row, *want)  # made whole, then added: one notice
                self.list.addItem(row)
                continue
            was = model.blockSignals(True)
            try:
                self._dress(row, *want)
            finally:
                model.blockSignals(was)
            if not was:
                changed.append(row)
        if changed:
            first, last = self.list.indexFromItem(changed[0]), self.list.indexFromItem(changed[-1])
            model.dataChanged.emit(first, last, [])
        self._rows = wanted

    def _dress(
        self, row: QTreeWidgetItem, key: str, text: str, tip: str, is_open: bool, blocks: bool
    ) -> None:
        """One row: the item's words and rule, ticked off (struck out) once it is done."""
        row.setText(0, text)
        row.setData(0, ITEM_ROLE, key)
        row.setToolTip(0, tip)
        row.setCheckState(0, Qt.CheckState.Unchecked if is_open else Qt.CheckState.Checked)
        f = QFont(self.list.font())
        f.setStrikeOut(not is_open)
        row.setFont(0, f)
        if not is_open:
            row.setForeground(0, QBrush(theme.qcolour("muted")))
        elif blocks:
            row.setForeground(0, QBrush(theme.qcolour("problem")))
        else:
            row.setData(0, Qt.ItemDataRole.ForegroundRole, None)

    # -- what the umpire sees and clicks -----------------------------------------------------------
    def heading_text(self) -> str:
        """The turn, side and phase, and how many items are left and done (once worked out)."""
        self.finish()
        return f"{self.heading.text()} {self.count.text()}".strip()

    def rows(self) -> list[tuple[str, bool]]:
        """The rows shown, once worked out: (the item's words, whether it is ticked off)."""
        self.finish()
        out = []
        for i in range(self.list.count()):
            row = self.list.item(i)
            out.append((row.text(0), row.checkState(0) == Qt.CheckState.Checked))
        return out

    def item_at(self, index: int) -> Item:
        self.finish()
        return self._seen[self.list.item(index).data(0, ITEM_ROLE)]

    def _clicked(self, row: QTreeWidgetItem) -> None:
        item = self._seen.get(row.data(0, ITEM_ROLE))
        b = self.controller.battle
        if item is None or b is None:
            return
        units = [u for u in item.units if u in b.units and b.units[u].in_play]
        if units:
            self.controller.select(units)
            self.controller.highlight(units)


class PhaseEndDialog(QDialog):
    """What is left before the phase (or the side's turn) ends: go on, and the items are logged as
    left undone, or go back."""

    def __init__(self, items: tuple[Item, ...], end_turn: bool, battle, parent: QWidget | None = None):
        super().__init__(parent)
        self.items = items
        what = "End the turn" if end_turn else "End the phase"
        self.setWindowTitle(f"{what}: what is left")
        self.setModal(True)
        lay = QVBoxLayout(self)
        side = battle.oob.side_name(battle.active_side)
        n = len(items)
        head = (
            f"{side}'s turn is not over: {n} item{'s are' if n != 1 else ' is'} still open."
            if end_turn
            else f"{battle.phase.title} is not finished: {n} item{'s are' if n != 1 else ' is'} still open."
        )
        self.heading = QLabel(head, self)
        self.heading.setWordWrap(True)
        lay.addWidget(self.heading)
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["What is left", "Rule"])
        self.tree.setWordWrap(True)
        for phase in dict.fromkeys(i.phase for i in items):
            top = QTreeWidgetItem([Phase.title_of(phase), ""])
            f = QFont(top.font(0))
            f.setBold(True)
            top.setFont(0, f)
            self.tree.addTopLevelItem(top)
            for i in items:
                if i.phase == phase:
                    child = QTreeWidgetItem([f"{KIND_LABEL.get(i.kind, i.kind)}: {i.text}", i.rule or ""])
                    child.setToolTip(0, str(i))
                    top.addChild(child)
            top.setExpanded(True)
        self.tree.resizeColumnToContents(0)
        self.tree.setColumnWidth(0, min(self.tree.columnWidth(0) + 12, 820))
        lay.addWidget(self.tree, 1)
        note = QLabel(
            "Go on, and the items left are written in the battle log and the turn summary as left "
            "undone (one Undo takes back the phase change and the note together); or go back and "
            "finish them.",
            self,
        )
        note.setWordWrap(True)
        note.setStyleSheet("color: #444;")
        lay.addWidget(note)
        self.buttons = QDialogButtonBox(self)
        self.go_on_button = self.buttons.addButton(
            "Go on: end the turn" if end_turn else "Go on: next phase",
            QDialogButtonBox.ButtonRole.AcceptRole,
        )
        self.go_back_button = self.buttons.addButton("Go back", QDialogButtonBox.ButtonRole.RejectRole)
        self.go_back_button.setDefault(True)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self.resize(min(self.tree.columnWidth(0) + 170, 1000), 440)

    def lines(self) -> list[str]:
        """The items' words as shown, under their phases."""
        out = []
        for t in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(t)
            out.append(top.text(0))
            out += [f"  {top.child(c).text(0)}" for c in range(top.childCount())]
        return out


def end_phase(controller: GameController, parent: QWidget | None, end_turn: bool = False) -> list:
    """Next phase (or End turn) as the window does it: with nothing left, at once; otherwise after
    the umpire says to go on, logging the items left undone in the same step. A melee due in Phase 4
    blocks: the rules refuse the phase change with their reason (RULE-06-1.1). Returns the events
    saved (none if the umpire went back or the rules refused)."""
    from gui import dialogs
    from rules.actions import EndTurn, NextPhase
    from rules.turn.checklist import blocking
    from storage.checklist import phase_change_step

    battle = controller.battle
    if battle is None:
        return []
    change = EndTurn() if end_turn else NextPhase()
    items = _items_of(controller, end_turn)
    if not items or blocking(items):
        return controller.run_step([change])  # a melee due: the rules say why they refuse
    dlg = PhaseEndDialog(items, end_turn, battle, parent)
    if dialogs.exec_dialog(dlg) != QDialog.DialogCode.Accepted:
        return []
    return controller.run_step(phase_change_step(change, items))


__all__ = ["ChecklistView", "PhaseEndDialog", "end_phase"]
