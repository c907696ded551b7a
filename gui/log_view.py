"""The battle log: every event in words, with its dice and rule citations, by turn and phase.

The tree is Turn > phase (and side) > event > its steps. Selecting an event shows its detail
(every step with its dice, modifiers and rule; the rolls and what they were for; what changed)
and highlights its units on the map. "Undo to here" takes the battle back to just after it.

The log reads only what is new: after an action it fetches the events of the current turn, not
the whole journal, and the search filters only the rows added (a new search filters them all, from
each event's words kept when its row was made), so it stays quick in a long scenario.

"Show" reads the log as one side saw it, for reading out at the table: only the entries the side
saw, each with only the lines about units it saw (:func:`rules.knowledge.event_as_seen`, from the
game's :class:`storage.sightings.Sightings`); no umpire's rulings, and no dice or changes in the
detail but those of the lines it saw.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
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
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gui import dialogs
from gui.interfaces import ControllerLike
from rules.model import Phase, plural

SEQ_ROLE = Qt.ItemDataRole.UserRole + 1


def step_text(step: Any) -> str:
    """One log line in words: what happened, the dice, the modifiers and the rule."""
    return str(step)


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()).rstrip(".").lower() == " ".join(b.split()).rstrip(".").lower()


def echoed_steps(event: Any) -> list[Any]:
    """The steps that say the same as the event's summary: the summary line stands for them."""
    return [s for s in getattr(event, "steps", ()) if _same_text(s.text, event.summary)]


def shown_steps(event: Any) -> list[Any]:
    """The steps listed under an event: those that add something to its summary line."""
    return [s for s in getattr(event, "steps", ()) if not _same_text(s.text, event.summary)]


def step_extras(step: Any) -> str:
    """A step's dice, modifiers and rule without its text, as plain words."""
    parts = []
    if step.dice:
        parts.append("dice " + " ".join(str(d) for d in step.dice))
    if step.modifiers:
        parts.append(", ".join(str(m) for m in step.modifiers))
    if step.rule:
        parts.append(f"[{step.rule}]")
    return " — ".join(parts)


def event_units(event: Any) -> list[str]:
    """The units an event concerns: those its steps name and those it changed."""
    out: dict[str, None] = {}
    for s in getattr(event, "steps", ()):
        for u in getattr(s, "units", ()):
            out[u] = None
    changes = getattr(event, "changes", None)
    if changes is not None:
        for u in changes.units:
            out[u] = None
    return list(out)


def event_html(event: Any, side_names: dict[str, str] | None = None) -> str:
    """The detail of one event, as the umpire reads it."""
    side = (side_names or {}).get(event.side, event.side)
    parts = [
        f"<h3 style='margin:0'>#{event.seq} {html.escape(event.summary)}</h3>",
        f"<p style='color:#666; margin:2px 0 8px 0'>Turn {event.turn}, {html.escape(side)}, "
        f"{html.escape(Phase.title_of(event.phase))} — {html.escape(event.created_at)}</p>",
    ]
    extras = [x for x in (step_extras(s) for s in echoed_steps(event)) if x]
    if extras:
        parts.append(f"<p style='color:#1a5fb4; margin:0 0 6px 0'>{html.escape('; '.join(extras))}</p>")
    steps = shown_steps(event)
    if steps:
        parts.append("<ol style='margin-top:0'>")
        for s in steps:
            line = html.escape(s.text)
            if s.dice:
                line += " <b>dice " + " ".join(str(d) for d in s.dice) + "</b>"
            if s.modifiers:
                line += (
                    "<br><span style='color:#555'>"
                    + html.escape(", ".join(str(m) for m in s.modifiers))
                    + "</span>"
                )
            if s.rule:
                line += f" <span style='color:#1a5fb4'>[{html.escape(s.rule)}]</span>"
            parts.append(f"<li>{line}</li>")
        parts.append("</ol>")
    if event.rolls:
        parts.append("<p><b>Dice rolled</b><br>")
        parts.append(
            "<br>".join(f"{html.escape(r.purpose)}: {' '.join(str(d) for d in r.dice)}" for r in event.rolls)
        )
        parts.append("</p>")
    ch = event.changes
    changed = []
    if ch.units:
        changed.append(plural(len(ch.units), "unit"))
    if ch.brigades:
        changed.append(plural(len(ch.brigades), "brigade"))
    if ch.terrain:
        changed.append(plural(len(ch.terrain), "terrain feature"))
    for k, (a, b) in ch.game.items():
        if k == "extra":  # what the rules keep for the turn: name it, not its raw contents
            kept = (
                sorted({*(a or {}), *(b or {})})
                if isinstance(a or {}, dict) and isinstance(b or {}, dict)
                else []
            )
            changed.append(
                "the turn's records" + (f" ({', '.join(x.replace('_', ' ') for x in kept)})" if kept else "")
            )
        else:
            changed.append(f"{k} {a} → {b}")
    if changed:
        parts.append(f"<p style='color:#555'>Changed: {html.escape('; '.join(changed))}</p>")
    return "".join(parts)


def seen_html(seen: Any, side_names: dict[str, str] | None = None, whose: str = "") -> str:
    """The detail of an entry as a side saw it (:class:`rules.knowledge.SeenEvent`)."""
    side = (side_names or {}).get(seen.side, seen.side)
    parts = [
        f"<h3 style='margin:0'>{html.escape(seen.summary)}</h3>",
        f"<p style='color:#666; margin:2px 0 8px 0'>Turn {seen.turn}, {html.escape(side)}, "
        f"{html.escape(Phase.title_of(seen.phase))}"
        + (f" — as the {html.escape(whose)} side saw it" if whose else "")
        + ("" if seen.whole else " (seen in part)")
        + "</p>",
    ]
    extras = [x for x in (step_extras(s) for s in echoed_steps(seen)) if x]
    if extras:
        parts.append(f"<p style='color:#1a5fb4; margin:0 0 6px 0'>{html.escape('; '.join(extras))}</p>")
    steps = shown_steps(seen)
    if steps:
        parts.append("<ol style='margin-top:0'>")
        for s in steps:
            line = html.escape(s.text)
            if s.dice:
                line += " <b>dice " + " ".join(str(d) for d in s.dice) + "</b>"
            if s.rule:
                line += f" <span style='color:#1a5fb4'>[{html.escape(s.rule)}]</span>"
            parts.append(f"<li>{line}</li>")
        parts.append("</ol>")
    return "".join(parts)


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
        self._shown = 0  # the events the search leaves showing
        self._last_seq = 0
        self._side: str | None = None  # read as this side saw it (None: everything, the umpire's)
        self._seen: dict[int, Any] = {}  # entries as the side saw them (SeenEvent), by seq
        self._turn_of: dict[int, int] = {}  # the turn of every entry read, shown or not

        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        split = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter = split
        self.tree = QTreeWidget(split)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(False)
        self.tree.setWordWrap(True)
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
        self.count = QLabel(self)
        self.undo_here = QPushButton("Undo to here", self)
        self.undo_here.setToolTip("Take the battle back to just after the selected event")
        self.undo_here.setEnabled(False)
        bar.addWidget(self.count)
        bar.addStretch(1)
        bar.addWidget(self.undo_here)
        lay.addLayout(bar)

        self.tree.currentItemChanged.connect(self._current_changed)
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
        self._forget_all()
        self._last_seq = 0
        self.detail.clear()
        self.refresh()

    def _forget_all(self) -> None:
        self.tree.clear()
        self._events.clear()
        self._items.clear()
        self._groups.clear()
        self._hay.clear()
        self._seen.clear()
        self._turn_of.clear()
        self._shown = 0

    def refresh(self) -> None:
        """Drop undone events and add new ones, reading only the turns that can hold them.

        Only the rows added or dropped, and the headings above them, are filtered again: the
        cost of an action is that of its own rows, however long the log.
        """
        game = self.controller.game
        if game is None:
            self.count.setText("No game open")
            return
        last = game.last_seq
        touched: dict[tuple, None] = {}  # the headings whose rows changed
        for seq in range(last + 1, self._last_seq + 1):
            self._turn_of.pop(seq, None)  # undone
            e = self._events.get(seq)
            if e is not None:
                touched.update(dict.fromkeys(self._group_keys(e)))
                self._remove(seq)
        self._last_seq = min(self._last_seq, last)
        text = self._search_text()
        sightings = self._sightings() if self._side is not None and last > self._last_seq else None
        if last > self._last_seq:
            start_turn = self._turn_of.get(self._last_seq, 1)
            fresh = []
            for turn in range(start_turn, game.battle.turn + 1):
                fresh += [e for e in game.events(turn) if e.seq > self._last_seq]
            whole = not fresh or fresh[0].seq != self._last_seq + 1
            if whole:
                # the journal does not run on from what is shown: read it whole
                self._forget_all()
                touched.clear()
                fresh = list(game.events())
            for e in sorted(fresh, key=lambda e: e.seq):
                self._turn_of[e.seq] = e.turn
                if sightings is not None:
                    seen = sightings.event_as_seen(self._side, e.seq)
                    if seen is None:  # the side saw nothing of it
                        continue
                    self._seen[e.seq] = seen
                self._add(e)
                hide = not self._matches(e.seq, text)
                self._items[e.seq].setHidden(hide)
                self._shown += not hide
                touched.update(dict.fromkeys(self._group_keys(e)))
            self._last_seq = last
            item = self._items.get(last)
            if item is not None:
                self.tree.scrollToItem(item)
        self._hide_empty_groups(touched)
        self._show_count(text)

    def _search_text(self) -> str:
        return self.search.text().strip().lower()

    def _matches(self, seq: int, text: str) -> bool:
        return not text or text in self._hay[seq]

    @staticmethod
    def _group_keys(e: Any) -> tuple[tuple, tuple]:
        """The keys of an event's phase heading and turn heading."""
        return ("phase", e.turn, e.side, e.phase), ("turn", e.turn)

    def _hide_empty_groups(self, keys: Iterable[tuple]) -> None:
        """Hide the headings (of ``keys``) all of whose rows are hidden, and show the others."""
        for level in ("phase", "turn"):  # phases first: a turn is hidden when all its phases are
            for key in keys:
                group = self._groups.get(key)
                if key[0] == level and group is not None:
                    group.setHidden(all(group.child(i).isHidden() for i in range(group.childCount())))

    def _show_count(self, text: str) -> None:
        whose = f" the {self._side_name(self._side)} side saw" if self._side is not None else ""
        if text:
            self.count.setText(f"{self._shown} of {len(self._events)} event(s){whose}")
        else:
            self.count.setText(f"{len(self._events)} event(s){whose}")

    def apply_filter(self, *_args) -> None:
        """Show only the events whose words, steps or rules contain the text looked for."""
        text = self._search_text()
        shown = 0
        for seq, item in self._items.items():
            hide = not self._matches(seq, text)
            item.setHidden(hide)
            shown += not hide
        self._shown = shown
        self._hide_empty_groups(list(self._groups))
        self._show_count(text)

    def _side_name(self, side: str) -> str:
        battle = self.controller.battle
        return battle.oob.side_name(side) if battle is not None else str(side)

    def _group(self, e: Any) -> QTreeWidgetItem:
        tkey = ("turn", e.turn)
        turn = self._groups.get(tkey)
        if turn is None:
            turn = QTreeWidgetItem(self.tree, [f"Turn {e.turn}"])
            f = QFont()
            f.setBold(True)
            turn.setFont(0, f)
            turn.setExpanded(True)
            self._groups[tkey] = turn
        pkey = ("phase", e.turn, e.side, e.phase)
        ph = self._groups.get(pkey)
        if ph is None:
            ph = QTreeWidgetItem(turn, [f"{self._side_name(e.side)} — {Phase.title_of(e.phase)}"])
            ph.setForeground(0, QBrush(QColor("#1a5fb4")))
            ph.setExpanded(True)
            self._groups[pkey] = ph
        return ph

    def _add(self, e: Any) -> None:
        parent = self._group(e)
        src = self._seen.get(e.seq, e)  # as the side saw it, or the whole entry
        item = QTreeWidgetItem(parent, [f"#{e.seq}  {src.summary}"])
        item.setData(0, SEQ_ROLE, e.seq)
        extras = "; ".join(x for x in (step_extras(s) for s in echoed_steps(src)) if x)
        item.setToolTip(0, f"{src.summary}\n{extras}" if extras else src.summary)
        if src is not e:
            if not src.whole:
                item.setText(0, f"#{e.seq}  {src.summary} (seen in part)")
        elif e.action.type == "override":
            item.setForeground(0, QBrush(QColor("#8a5a00")))
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
                child.setData(0, SEQ_ROLE, e.seq)
                child.setForeground(0, QBrush(QColor("#444")))
        self._events[e.seq] = e
        self._items[e.seq] = item
        reason = (getattr(e.action, "reason", "") or "") if src is e else ""
        self._hay[e.seq] = " ".join([src.summary, *(str(s) for s in src.steps), reason]).lower()

    def _remove(self, seq: int) -> None:
        item = self._items.pop(seq, None)
        self._events.pop(seq, None)
        self._hay.pop(seq, None)
        self._seen.pop(seq, None)
        if item is None:
            return
        self._shown -= not item.isHidden()
        parent = item.parent()
        parent.removeChild(item)
        # drop the phase and turn headings that are left empty
        while parent is not None and parent.childCount() == 0:
            for k, v in list(self._groups.items()):
                if v is parent:
                    del self._groups[k]
            grand = parent.parent()
            if grand is None:
                self.tree.takeTopLevelItem(self.tree.indexOfTopLevelItem(parent))
            else:
                grand.removeChild(parent)
            parent = grand

    # -- using it ------------------------------------------------------------------------
    def selected_seq(self) -> int | None:
        item = self.tree.currentItem()
        if item is None:
            return None
        seq = item.data(0, SEQ_ROLE)
        return int(seq) if seq is not None else None

    def select_seq(self, seq: int) -> None:
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
        act = menu.addAction("Undo to here", self.undo_to_selected)
        act.setEnabled(self.undo_here.isEnabled())
        menu.popup(self.tree.viewport().mapToGlobal(pos))
