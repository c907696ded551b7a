"""The battle log: every event in words, with its dice and rule citations, by turn and phase.

The tree is Turn > phase (and side) > event > its steps. Selecting an event shows its detail
(every step with its dice, modifiers and rule; the rolls and what they were for; what changed)
and highlights its units on the map. "Undo to here" takes the battle back to just after it.

The log reads a turn at a time: every turn has its heading, and the events of a turn are read and
listed when it is opened; the turn in play is open. After an action it reads the events after the
last one shown, not the turn or the journal, and the search filters only the rows added. A new
search looks through every event (each one's words kept once read) and opens the turns that hold
a match. So it stays quick in a long game.

"Show" reads the log as one side saw it, for reading out at the table: only the entries the side
saw, each with only the lines about units it saw (:func:`rules.sight.knowledge.event_as_seen`, from the
game's :class:`storage.sightings.Sightings`); no umpire's rulings, and no dice or changes in the
detail but those of the lines it saw. (Read so, every turn is read: what a side saw is worked out
from the whole journal.)

An entry's words and its detail are :mod:`gui.log_text`'s; the tree that holds the rows, and
repaints only those added at its foot, is :mod:`gui.log_tree`'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gui import theme
from gui.interfaces import ControllerLike
from gui.log_text import echoed_steps, event_html, event_units, seen_html, shown_steps, step_extras, step_text
from gui.log_tree import LogTree
from gui.row_pictures import RowPictures
from gui.steady_label import SteadyLabel
from rules.battle.words import Phase, plural

SEQ_ROLE = Qt.ItemDataRole.UserRole + 1
PLACEHOLDER_ROLE = Qt.ItemDataRole.UserRole + 2  # the row under a turn whose events are not yet read


def _hay_of(e: Any, src: Any = None) -> str:
    """An event's words, steps and reason, as the search looks through them (``src``: the entry as
    a side saw it, without the umpire's reason)."""
    if src is not None and src is not e:
        return " ".join([src.summary, *(str(s) for s in src.steps)]).lower()
    return " ".join([e.summary, *(str(s) for s in e.steps), getattr(e.action, "reason", "") or ""]).lower()


class LogView(QWidget):
    """The battle log dock."""

    def __init__(self, controller: ControllerLike, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("log")
        self.controller = controller
        self._events: dict[int, Any] = {}
        self._items: dict[int, QTreeWidgetItem] = {}
        self._groups: dict[tuple, QTreeWidgetItem] = {}
        self._hay: dict[int, str] = {}  # each event's words, steps and reason, as searched
        self._last_seq = 0
        self._entry_turns: list[int] = []  # the turn of each entry (of entry seq at seq - 1)
        self._counts: dict[int, int] = {}  # entries by turn
        self._filled: set[int] = set()  # the turns whose events are in the tree
        self._found: set[int] = set()  # the entries the search finds, filled or not
        self._latest: int | None = None  # the turn of the last entry, kept open
        self._side: str | None = None  # read as this side saw it (None: everything, the umpire's)
        self._seen: dict[int, Any] = {}  # entries as the side saw them (SeenEvent), by seq
        self._all_read = False  # whether every turn was read as the side saw it (by a search)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        split = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter = split
        self.tree = LogTree(split)
        self.tree.setHeaderHidden(True)
        # every row is one line (a long one is cut short with "…", whole in its tooltip and the
        # detail): the tree need not measure each row to lay out a turn of many
        self.tree.setUniformRowHeights(True)
        self.tree.setWordWrap(False)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.rows = RowPictures(self.tree)
        self.tree.setItemDelegate(self.rows)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.detail = QTextBrowser(split)
        self.detail.setOpenLinks(False)
        self.detail.setPlaceholderText("Click an event to see its dice, modifiers and rules.")
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        lay.addWidget(split, 1)
        top = QHBoxLayout()
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Find in the log: a unit, a rule (RULE-06-3.3), a word…")
        self.search.setClearButtonEnabled(True)
        top.addWidget(self.search)
        top.addWidget(QLabel("Show", self))
        self.side_filter = QComboBox(self)
        self.side_filter.setToolTip(
            "Read the log as one side saw it, for reading out at the table: only what its units saw"
        )
        top.addWidget(self.side_filter)
        lay.insertLayout(0, top)
        bar = QHBoxLayout()
        self.count = SteadyLabel(self)
        # the scroll bar changes at every action: it fills its own background (as the count does),
        # so that the dock and the window under it are not painted again with it
        self.tree.verticalScrollBar().setAutoFillBackground(True)
        self.undo_here = QPushButton("Undo to here", self)
        self.undo_here.setToolTip("Take the battle back to just after the selected event")
        self.undo_here.setEnabled(False)
        bar.addWidget(self.count)
        bar.addStretch(1)
        bar.addWidget(self.undo_here)
        lay.addLayout(bar)

        self.tree.currentItemChanged.connect(self._current_changed)
        self.tree.itemExpanded.connect(self._turn_expanded)
        self.search.textChanged.connect(self.apply_filter)
        self.undo_here.clicked.connect(self.undo_to_selected)
        controller.eventsChanged.connect(self.refresh)
        controller.gameReplaced.connect(self._game_replaced)
        self.side_filter.currentIndexChanged.connect(self._side_chosen)
        self._fill_sides()
        self.rebuild()

    # -- reading it as a side saw it ----------------------------------------------------------------
    def _fill_sides(self) -> None:
        battle = self.controller.battle
        keep = self._side
        self.side_filter.blockSignals(True)
        self.side_filter.clear()
        self.side_filter.addItem("Everything (the umpire)", None)
        for side in battle.oob.sides if battle is not None else ():
            self.side_filter.addItem(f"What the {side.name} side saw", side.id)
        i = self.side_filter.findData(keep) if keep is not None else 0
        self.side_filter.setCurrentIndex(max(i, 0))
        self._side = self.side_filter.currentData()
        self.side_filter.blockSignals(False)

    def _game_replaced(self) -> None:
        self._fill_sides()
        self.rebuild()

    def _side_chosen(self, _index: int) -> None:
        self.show_side(self.side_filter.currentData())

    def show_side(self, side: str | None) -> None:
        """Show the log as ``side`` saw it (None: everything, as the umpire sees it)."""
        if side != self.side_filter.currentData():
            i = self.side_filter.findData(side) if side is not None else 0
            if i < 0:
                raise ValueError(f"there is no side {side!r} in this game")
            self.side_filter.blockSignals(True)
            self.side_filter.setCurrentIndex(i)
            self.side_filter.blockSignals(False)
        self._side = side
        self.rebuild()

    def _sightings(self) -> Any:
        from storage.sightings import Sightings  # (the rules of sight load when a side is chosen)

        s = Sightings.of(self.controller.game)
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)  # a long journal takes a moment
        try:
            s.update()
        finally:
            QApplication.restoreOverrideCursor()
        return s

    def changeEvent(self, event) -> None:  # noqa: N802
        self.rows.restyled(event)  # another palette, font or style: the rows are drawn afresh
        super().changeEvent(event)

    def resizeEvent(self, event) -> None:  # noqa: N802
        """Side by side in a wide dock (at the bottom of the window), one above the other in a tall one."""
        super().resizeEvent(event)
        wide = self.width() > 1.6 * self.height()
        want = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if self.splitter.orientation() != want:
            self.splitter.setOrientation(want)
            total = self.width() if wide else self.height()
            self.splitter.setSizes([int(total * 0.55), int(total * 0.45)])

    # -- keeping up ---------------------------------------------------------------------------
    def rebuild(self) -> None:
        """Show another game's journal: a heading for every turn, the events of the turn in play
        (and those a search finds)."""
        self._forget_all()
        self.detail.clear()
        game = self.controller.game
        if game is None:
            self.count.setText("No game open")
            return
        self._entry_turns = list(game.entry_turns())
        self._last_seq = len(self._entry_turns)
        for t in self._entry_turns:
            self._counts[t] = self._counts.get(t, 0) + 1
        for t in sorted(self._counts):
            self._turn_heading(t)
        # the turn in play is filled; the others when opened (as a side saw it too: what it saw
        # of a turn is read from the sight kept with the journal, not the whole journal's)
        self._follow_latest()
        text = self._search_text()
        if text:
            self._search_all(text)
        self._show_count(text)
        self._scroll_to_last()

    def _forget_all(self) -> None:
        self.tree.clear()
        self._events.clear()
        self._items.clear()
        self._groups.clear()
        self._hay.clear()
        self._counts.clear()
        self._filled.clear()
        self._found.clear()
        self._entry_turns = []
        self._latest = None
        self._last_seq = 0
        self._seen.clear()
        self._all_read = False

    def refresh(self) -> None:
        """Drop undone events and add new ones (read from the journal after the last one shown).

        Only the rows added or dropped, and the headings above them, are filtered again: the
        cost of an action is that of its own rows, however long the log. A turn that is not
        filled only counts its events.
        """
        game = self.controller.game
        if game is None:
            self.count.setText("No game open")
            return
        last = game.last_seq
        text = self._search_text()
        touched: dict[tuple, None] = {}  # the headings whose rows changed
        added: list[QTreeWidgetItem] = []  # the rows added at the foot
        appended = not text and self._side is None  # rows only added at the foot, nothing else moved
        latest = self._latest
        if last < self._last_seq:
            appended = False
            for seq in range(self._last_seq, last, -1):
                t = self._entry_turns[seq - 1]
                e = self._events.get(seq)
                if e is not None:
                    touched.update(dict.fromkeys(self._group_keys(e)))
                    self._remove(seq)
                self._hay.pop(seq, None)
                self._seen.pop(seq, None)
                if seq in self._found:
                    self._found.discard(seq)
                self._counts[t] -= 1
                if not self._counts[t]:
                    del self._counts[t]
                    self._drop_turn(t)
            del self._entry_turns[last:]
            self._last_seq = last
        if last > self._last_seq:
            fresh = game.events_after(self._last_seq)
            if not fresh or fresh[0].seq != self._last_seq + 1 or fresh[-1].seq != last:
                # the journal does not run on from what is shown: read it again
                self.rebuild()
                return
            sightings = self._sightings() if self._side is not None else None
            for e in fresh:
                self._entry_turns.append(e.turn)
                self._counts[e.turn] = self._counts.get(e.turn, 0) + 1
                self._turn_heading(e.turn)
                self._last_seq = e.seq
                if sightings is not None:
                    seen = sightings.event_as_seen(self._side, e.seq)
                    if seen is None:  # the side saw nothing of it
                        continue
                    self._seen[e.seq] = seen
                found = bool(text) and self._matches_event(e, text)
                if found:
                    self._found.add(e.seq)
                if e.turn in self._filled:
                    self._add(e)
                    if text and not found:
                        self._items[e.seq].setHidden(True)
                    added.append(self._items[e.seq])
                    touched.update(dict.fromkeys(self._group_keys(e)))
                elif found:
                    self._fill(e.turn, text)  # a turn not shown holds a match: it is shown now
                    appended = False
            self._last_seq = last
        self._follow_latest(text)
        self._hide_empty_groups(touched)
        self._show_count(text)
        appended = appended and bool(added) and self._latest == latest
        if appended:
            self.tree.append(added, self._scroll_to_last)
        else:
            self._scroll_to_last()

    # the turns: a heading each, filled with its events when it is opened
    def _turn_heading(self, turn: int) -> QTreeWidgetItem:
        """The heading of ``turn``, made (among the others by turn number) with a placeholder row
        until its events are filled in."""
        key = ("turn", turn)
        item = self._groups.get(key)
        if item is None:
            item = QTreeWidgetItem([f"Turn {turn}"])
            f = QFont()
            f.setBold(True)
            item.setFont(0, f)
            at = sum(1 for k in self._groups if k[0] == "turn" and k[1] < turn)
            self.tree.insertTopLevelItem(at, item)
            self._groups[key] = item
            QTreeWidgetItem(item, ["…"]).setData(0, PLACEHOLDER_ROLE, True)
        n = self._counts.get(turn, 0)
        # a tooltip is read when it shows: the tree need not be told of it at every action; read
        # as a side, how many entries the umpire's journal holds is not the side's to know
        model = self.tree.model()
        was = model.blockSignals(True)
        try:
            item.setToolTip(0, f"Turn {turn}: {plural(n, 'event')}" if self._side is None else f"Turn {turn}")
        finally:
            model.blockSignals(was)
        return item

    def _drop_turn(self, turn: int) -> None:
        item = self._groups.pop(("turn", turn), None)
        self._filled.discard(turn)
        if self._latest == turn:
            self._latest = None
        if item is not None:
            self.tree.takeTopLevelItem(self.tree.indexOfTopLevelItem(item))

    def _fill(self, turn: int, text: str | None = None) -> None:
        """Put the events of ``turn`` under its heading (once)."""
        game = self.controller.game
        if turn in self._filled or game is None or ("turn", turn) not in self._groups:
            return
        self._filled.add(turn)
        heading = self._groups[("turn", turn)]
        for i in reversed(range(heading.childCount())):
            if heading.child(i).data(0, PLACEHOLDER_ROLE):
                heading.removeChild(heading.child(i))
        text = self._search_text() if text is None else text
        touched: dict[tuple, None] = {}
        sightings = self._sightings() if self._side is not None else None
        events = [e for e in game.events(turn=turn) if e.seq <= self._last_seq]
        # what the side saw of the turn, worked out in one go from the sight kept before it
        as_seen = sightings.as_seen_by(self._side, [e.seq for e in events]) if sightings is not None else {}
        for e in events:
            if sightings is not None:
                seen = as_seen[e.seq]
                if seen is None:  # the side saw nothing of it
                    continue
                self._seen[e.seq] = seen
            self._add(e)
            if text:
                self._items[e.seq].setHidden(e.seq not in self._found)
            touched.update(dict.fromkeys(self._group_keys(e)))
        self._hide_empty_groups(touched)
        heading.setExpanded(True)

    def _follow_latest(self, text: str | None = None) -> None:
        """The turn of the last event is filled and open; the one before it, when the turn has
        moved on, is closed (unless a search shows its matches)."""
        text = self._search_text() if text is None else text
        latest = self._entry_turns[-1] if self._entry_turns else None
        if latest == self._latest:
            return
        old, self._latest = self._latest, latest
        if latest is not None:
            self._fill(latest, text)
            self._groups[("turn", latest)].setExpanded(True)
        heading = self._groups.get(("turn", old)) if old is not None else None
        if heading is not None and not text:
            heading.setExpanded(False)

    def _turn_expanded(self, item: QTreeWidgetItem) -> None:
        for key, heading in self._groups.items():
            if heading is item and key[0] == "turn":
                self._fill(key[1])
                return

    def _scroll_to_last(self) -> None:
        item = self._items.get(self._last_seq)
        if item is not None:
            self.tree.scrollToItem(item)

    def _search_text(self) -> str:
        return self.search.text().strip().lower()

    def _matches(self, seq: int, text: str) -> bool:
        return not text or text in self._hay[seq]

    def _matches_event(self, e: Any, text: str) -> bool:
        if e.seq not in self._hay:
            self._hay[e.seq] = _hay_of(e, self._seen.get(e.seq))
        return self._matches(e.seq, text)

    def _search_all(self, text: str) -> None:
        """Find ``text`` in every event (reading the events of the turns not filled, without
        keeping them), and fill the turns that hold a match."""
        game = self.controller.game
        self._found.clear()
        if game is None:
            return
        unread = [t for t in self._counts if t not in self._filled and t]
        for seq in self._events:
            if self._matches(seq, text):
                self._found.add(seq)
        if unread and self._side is not None:  # what the side saw of the turns not read
            turns = set(unread)
            seqs = [q for q in range(1, self._last_seq + 1) if self._entry_turns[q - 1] in turns]
            for seen in self._sightings().events_as_seen(self._side, seqs):
                self._seen[seen.seq] = seen
                self._hay[seen.seq] = _hay_of(None, seen)
                if self._matches(seen.seq, text):
                    self._found.add(seen.seq)
            self._all_read = True
        elif unread:
            for e in game.events(keep=False):
                if self._entry_turns[e.seq - 1] in self._filled:
                    continue
                if self._matches_event(e, text):
                    self._found.add(e.seq)
        for t in sorted({self._entry_turns[q - 1] for q in self._found}):
            self._fill(t, text)

    @staticmethod
    def _group_keys(e: Any) -> tuple[tuple, tuple]:
        """The keys of an event's phase heading and turn heading."""
        return ("phase", e.turn, e.side, e.phase), ("turn", e.turn)

    def _hide_empty_groups(self, keys: Iterable[tuple]) -> None:
        """Hide the headings (of ``keys``) all of whose rows are hidden, and show the others. A
        turn not filled is shown unless a search is made (its matches would have filled it)."""
        text = self._search_text()
        for level in ("phase", "turn"):  # phases first: a turn is hidden when all its phases are
            for key in keys:
                group = self._groups.get(key)
                if key[0] != level or group is None:
                    continue
                if level == "turn" and key[1] not in self._filled:
                    hide = bool(text)
                else:
                    hide = all(group.child(i).isHidden() for i in range(group.childCount()))
                if group.isHidden() != hide:  # (each change has the tree lay its rows out again)
                    group.setHidden(hide)

    def _show_count(self, text: str) -> None:
        # read as a side saw it: the entries it saw of the turns read (all of them once searched)
        total = self._last_seq if self._side is None else len(self._seen)
        whose = ""
        if self._side is not None:
            whose = f" the {self._side_name(self._side)} side saw"
            if not self._all_read and not set(self._counts) <= self._filled:
                whose += " in the turns read"
        if text:
            self.count.setText(f"{len(self._found)} of {total} event(s){whose}")
        else:
            self.count.setText(f"{total} event(s){whose}")

    def apply_filter(self, *_args) -> None:
        """Show only the events whose words, steps or rules contain the text looked for, in
        every turn (the turns holding a match are filled and opened); without a search, every
        turn again, the one in play open."""
        text = self._search_text()
        if text:
            self._search_all(text)
        else:
            self._found.clear()
        for seq, item in self._items.items():
            item.setHidden(bool(text) and seq not in self._found)
        self._hide_empty_groups(list(self._groups))
        if text:
            for t in self._filled:
                self._groups[("turn", t)].setExpanded(True)
        else:
            for (kind, *rest), heading in self._groups.items():
                if kind == "turn":
                    heading.setExpanded(rest[0] == self._latest)
        self._show_count(text)

    def _side_name(self, side: str) -> str:
        battle = self.controller.battle
        return battle.oob.side_name(side) if battle is not None else str(side)

    def _group(self, e: Any) -> QTreeWidgetItem:
        turn = self._turn_heading(e.turn)
        pkey = ("phase", e.turn, e.side, e.phase)
        ph = self._groups.get(pkey)
        if ph is None:
            ph = QTreeWidgetItem(turn, [f"{self._side_name(e.side)} — {Phase.title_of(e.phase)}"])
            ph.setForeground(0, QBrush(theme.qcolour("link")))
            ph.setExpanded(True)
            self._groups[pkey] = ph
        return ph

    def _add(self, e: Any) -> None:
        parent = self._group(e)
        src = self._seen.get(e.seq, e)  # as the side saw it, or the whole entry
        # the row is made whole (its words, colour, steps) before it goes under its heading: the
        # tree is told once that a row came, not of each thing set on it
        item = QTreeWidgetItem([f"#{e.seq}  {src.summary}"])
        item.setData(0, SEQ_ROLE, e.seq)
        extras = "; ".join(x for x in (step_extras(s) for s in echoed_steps(src)) if x)
        item.setToolTip(0, f"{src.summary}\n{extras}" if extras else src.summary)
        if src is not e:
            if not src.whole:
                item.setText(0, f"#{e.seq}  {src.summary} (seen in part)")
        elif e.action.type == "override":
            item.setForeground(0, QBrush(theme.qcolour("warn")))
            reason = getattr(e.action, "reason", "")
            text = e.summary if e.summary.lower().startswith("umpire") else f"Umpire: {e.summary}"
            if reason and reason not in text:
                text += f" — “{reason}”"
            item.setText(0, f"#{e.seq}  {text}")
        steps = shown_steps(src)
        if len(src.steps) > 1 or any(s.dice or s.rule for s in steps):
            # a step that only repeats the summary is not listed again under it
            for s in steps:
                child = QTreeWidgetItem(item, [step_text(s)])
                child.setToolTip(0, step_text(s))
                child.setData(0, SEQ_ROLE, e.seq)
                child.setForeground(0, QBrush(theme.qcolour("muted")))
        parent.addChild(item)
        self._events[e.seq] = e
        self._items[e.seq] = item
        if e.seq not in self._hay or src is not e:
            self._hay[e.seq] = _hay_of(e, src)

    def _remove(self, seq: int) -> None:
        item = self._items.pop(seq, None)
        self._events.pop(seq, None)
        self._seen.pop(seq, None)
        if item is None:
            return
        parent = item.parent()
        parent.removeChild(item)
        # drop the phase heading left empty (the turn's heading goes with its last event)
        if parent.childCount() == 0:
            for k, v in list(self._groups.items()):
                if v is parent and k[0] == "phase":
                    del self._groups[k]
                    grand = parent.parent()
                    if grand is not None:
                        grand.removeChild(parent)

    # -- using it ------------------------------------------------------------------------
    def selected_seq(self) -> int | None:
        item = self.tree.currentItem()
        if item is None:
            return None
        seq = item.data(0, SEQ_ROLE)
        return int(seq) if seq is not None else None

    def select_seq(self, seq: int) -> None:
        if seq not in self._items and 1 <= seq <= len(self._entry_turns):
            self._fill(self._entry_turns[seq - 1])
        item = self._items.get(seq)
        if item is not None:
            self.tree.setCurrentItem(item)

    def _current_changed(self, *_args) -> None:
        seq = self.selected_seq()
        e = self._events.get(seq) if seq is not None else None
        self.undo_here.setEnabled(e is not None and seq < self._last_seq)
        if e is None:
            self.detail.clear()
            self.controller.highlight(())
            return
        battle = self.controller.battle
        names = {s.id: s.name for s in battle.oob.sides} if battle else {}
        seen = self._seen.get(seq)
        if seen is not None:
            self.detail.setHtml(seen_html(seen, names, self._side_name(self._side)))
            self.controller.highlight(sorted({u for s in seen.steps for u in s.units}))
            return
        self.detail.setHtml(event_html(e, names))
        self.controller.highlight(event_units(e))

    def undo_to_selected(self) -> None:
        from gui import dialogs

        seq = self.selected_seq()
        if seq is None or seq >= self._last_seq:
            return
        n = self._last_seq - seq
        if not dialogs.ask_yes_no(
            self,
            "Undo to here",
            f"Undo the last {n} event(s), back to just after #{seq}?\nRedo can put them back.",
        ):
            return
        self.controller.undo_to(seq)

    def _context_menu(self, pos) -> None:
        item = self.tree.itemAt(pos)
        if item is None or item.data(0, SEQ_ROLE) is None:
            return
        self.tree.setCurrentItem(item)
        menu = QMenu(self)
        look = getattr(self.controller, "look_back", None)
        if look is not None:  # the timeline: the battle as it stood after this entry, read only
            seq = int(item.data(0, SEQ_ROLE))
            menu.addAction("Look back to here", lambda: look(seq))
        act = menu.addAction("Undo to here", self.undo_to_selected)
        act.setEnabled(self.undo_here.isEnabled())
        menu.popup(self.tree.viewport().mapToGlobal(pos))
