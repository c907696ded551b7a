"""Preferences: the rule tables, edited as a table, and the club's copy of the chapters.

Every number Brigadier uses is a row: the entry in words (:func:`gui.table_words.entry_label`), its
value, its default (the bundled value), the rule it comes from or "club default", and what it means,
wrapped to the column's width; its key (the name a club's file and the ``change_tables`` action
give it) is in its tooltip, and in a column *Show keys* shows. A value is edited in place; each edit is
checked as it is made by the same loader that checks a club's file (:func:`rules.tables.load_tables`
reads the edits written as a club's copy), so a value out of range, of the wrong kind, or one a
rule fixes is refused with the loader's own words and the cell goes back. Rows fixed by a rule are
read-only.

* For the games started from now on, the edits are saved as a club's copy (one file per table,
  named as the bundled ones) in a folder, which new games then use.
* For the open game, the edits are made a ``change_tables`` action with the umpire's reason:
  logged, in force from then on, undone like any action (:class:`rules.actions.ChangeTables`).

The club's copy of the chapters (a folder of the chapter files) is set here too: rule citations
then also open that copy at the rule (:mod:`gui.help`); the rules reference needs no setting.
"""

from __future__ import annotations

import html
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gui import dialogs, theme
from gui.table_words import entry_label

COL_ENTRY, COL_VALUE, COL_DEFAULT, COL_RULE, COL_MEANING, COL_KEY = range(6)
HEADERS = ("Entry", "Value", "Default", "Rule", "What it means", "Key")
RULE_WIDTH_MAX = 170  # the Rule column's widest: a long citation wraps, what it means keeps the room


# -- values as the umpire types them, and club files as the loader reads them ----------------------


def value_text(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, list):
        return ", ".join(str(x) for x in v)
    return str(v)


def parse_value(text: str, like: Any) -> Any:
    """What the umpire typed, read as a value of the kind of ``like`` (the entry's value now);
    ValueError, said plainly, when it cannot be."""
    t = text.strip()
    if isinstance(like, bool):
        words = {
            "yes": True,
            "true": True,
            "on": True,
            "1": True,
            "no": False,
            "false": False,
            "off": False,
            "0": False,
        }
        if t.lower() not in words:
            raise ValueError(f"{text!r} is not yes or no")
        return words[t.lower()]
    if isinstance(like, int):
        try:
            return int(t)
        except ValueError:
            raise ValueError(f"{text!r} is not a whole number") from None
    if isinstance(like, float):
        try:
            return float(t)
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
    if isinstance(like, list):
        return [w.strip() for w in t.split(",") if w.strip()]
    return t


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v) if not v.is_integer() else f"{v:.1f}"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def club_files(tables, values: Mapping[str, Any]) -> dict[str, str]:
    """A club's copy holding ``values`` (by key), as the loader reads it: one TOML text per table
    file (``melee.toml`` ...), each entry with its rule or as a club default with its reason."""
    by_file: dict[str, dict[tuple[str, ...], list[str]]] = {}
    for key in sorted(values):
        e = tables.entry(key)
        stem, *path = key.split(".")
        *table, name = path
        fields = [f"value = {_toml(values[key])}"]
        if e.rule:
            fields.append(f"rule = {_toml(e.rule)}")
        else:
            fields.append("club_default = true")
        if e.reason or not e.rule:
            fields.append(f"reason = {_toml(e.reason or 'set by the club')}")
        by_file.setdefault(stem, {}).setdefault(tuple(table), []).append(
            f"{name} = {{ {', '.join(fields)} }}"
        )
    out = {}
    for stem, tables_of in by_file.items():
        lines = [f"# {stem}.toml: the club's own values (written by Brigadier's Preferences)."]
        for table in sorted(tables_of):
            if table:
                lines.append(f"\n[{'.'.join(table)}]")
            lines.extend(tables_of[table])
        out[f"{stem}.toml"] = "\n".join(lines) + "\n"
    return out


def club_values(tables) -> dict[str, Any]:
    """The values of ``tables`` that differ from the bundled tables: what a club's copy holds."""
    from rules.tables import load_tables

    bundled = load_tables()
    return {e.key: e.value for e in tables if e.key in bundled and e.value != bundled.value(e.key)}


def check_with_loader(tables, values: Mapping[str, Any]):
    """The tables that ``values`` make, checked by the loader of club files: the values are written
    as a club's copy and loaded. Raises :class:`~rules.errors.TableError` with the loader's
    message (its temporary file's name left out)."""
    from rules.errors import TableError
    from rules.tables import load_tables

    with tempfile.TemporaryDirectory(prefix="brigadier-club-") as d:
        for name, text in club_files(tables, values).items():
            Path(d, name).write_text(text, encoding="utf-8")
        if not values:
            return load_tables()
        try:
            return load_tables(d)
        except TableError as exc:
            message = str(exc)
            for name in club_files(tables, values):
                message = message.replace(str(Path(d, name)) + ", ", "").replace(str(Path(d, name)), name)
            # the line of a file the umpire never saw says nothing: the entry's key does
            raise TableError(re.sub(r"^line \d+: ", "", message)) from None


# -- the dialog -----------------------------------------------------------------------------------


class OneLine(QStyledItemDelegate):
    """A cell on one line (a value's list cut short: it is whole in the detail), the others wrap."""

    def initStyleOption(self, option: QStyleOptionViewItem, index) -> None:  # noqa: N802
        super().initStyleOption(option, index)
        option.features &= ~QStyleOptionViewItem.ViewItemFeature.WrapText


class PreferencesDialog(QDialog):
    """The rule tables as an editable table, the tables of the open game or of new games, club
    copies loaded or saved, and the club's copy of the chapters.

    With a game open (``game_tables``), the dialog first shows that game's tables, the ones in
    force now; edits to them are a change of the open game's tables, made with a reason when the
    dialog is accepted (:attr:`game_changes`, :attr:`game_reason`). Shown for new games, edits
    are saved as a club's copy (:meth:`save_club`). A club copy is loaded and checked by
    :func:`rules.tables.load_tables`; a mistake is shown with the loader's own message (file,
    line and problem) and nothing of it is used. Entries a rule fixes are shown as fixed and
    cannot be edited.
    """

    GAME, NEW_GAMES = 0, 1

    def __init__(
        self,
        tables,
        club_path: str = "",
        parent: QWidget | None = None,
        *,
        game_tables=None,
        game_title: str = "",
        rulebook: str = "",
    ):
        super().__init__(parent)
        self.setWindowTitle("Preferences — rule tables")
        self.setObjectName("preferences")
        self.resize(1180, 680)  # (at most the screen: gui.screens.fit_dialog)
        self.CLUB_DEFAULT_BG = theme.qcolour("club_default")
        self.OVERRIDDEN_BG = theme.qcolour("overridden")
        self.FIXED_BG = theme.qcolour("fixed")
        self.new_game_tables = tables
        self.game_tables = game_tables
        self.game_title = game_title
        self.tables = game_tables if game_tables is not None else tables
        self.club_path = club_path
        self.rulebook_path = rulebook
        self.edits: dict[int, dict[str, Any]] = {self.GAME: {}, self.NEW_GAMES: {}}
        self.game_changes: dict[str, Any] = {}
        self.game_reason = ""
        self._filling = False
        lay = QVBoxLayout(self)
        intro = QLabel(
            "Every number Brigadier uses, with the rule it comes from. Double-click a value to change "
            "it; each change is checked at once. "
            f"<span style='background:{theme.tint('club_default')}'>&nbsp;Tinted&nbsp;</span> rows are "
            "club defaults: numbers no chapter here gives, which your club may change. "
            f"<span style='background:{theme.tint('overridden')}'>&nbsp;Blue&nbsp;</span> rows are "
            "set by your club or changed here. Every other row is a number a chapter gives, cited by "
            "its rule, and read-only: a club copy that changes one is refused, with the file, the line "
            "and the rule. "
            f"<span style='background:{theme.tint('fixed')}'>&nbsp;Grey&nbsp;</span> rows are fixed by "
            "their rule and cannot be changed.",
            self,
        )
        self.intro = intro
        intro.setWordWrap(True)
        lay.addWidget(intro)
        top = QHBoxLayout()
        top.addWidget(QLabel("Show the tables of:", self))
        self.view = QComboBox(self)
        if game_tables is not None:
            self.view.addItem(
                f"the open game{f' ({game_title})' if game_title else ''} — in force now", self.GAME
            )
        self.view.addItem("new games", self.NEW_GAMES)
        top.addWidget(self.view, 1)
        lay.addLayout(top)
        filt = QHBoxLayout()
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Filter, e.g. melee or club default")
        self.search.setClearButtonEnabled(True)
        self.club_only = QCheckBox("Only club defaults", self)
        self.show_keys = QCheckBox("Show keys", self)
        self.show_keys.setToolTip(
            "Each entry's key: its name in a club's files and in a change_tables action"
        )
        filt.addWidget(self.search, 1)
        filt.addWidget(self.club_only)
        filt.addWidget(self.show_keys)
        lay.addLayout(filt)
        self.table = QTableWidget(0, len(HEADERS), self)
        self.table.setHorizontalHeaderLabels(list(HEADERS))
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        h = self.table.horizontalHeader()
        for c in (COL_ENTRY, COL_VALUE, COL_DEFAULT, COL_RULE, COL_KEY):
            h.setSectionResizeMode(c, QHeaderView.ResizeMode.Interactive)
        h.setSectionResizeMode(COL_MEANING, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(COL_ENTRY, 250)
        self.table.setColumnWidth(COL_VALUE, 70)
        self.table.setColumnWidth(COL_DEFAULT, 70)
        self.table.setColumnWidth(COL_KEY, 260)
        self.table.setColumnHidden(COL_KEY, True)
        # what an entry means wraps, its row as tall as it needs, fitted again when the column's
        # width changes (at most once for each pass of the event loop)
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self._one_line = OneLine(self.table)
        for c in (COL_VALUE, COL_DEFAULT, COL_KEY):
            self.table.setItemDelegateForColumn(c, self._one_line)
        self._rows_fitted = QTimer(self, singleShot=True, interval=0)
        self._rows_fitted.timeout.connect(self.table.resizeRowsToContents)
        h.sectionResized.connect(
            lambda c, _old, _new: self._rows_fitted.start() if c == COL_MEANING else None
        )
        lay.addWidget(self.table, 1)
        # the selected entry in full: its meaning is often longer than the column shows
        self.detail = QLabel(self)
        self.detail.setObjectName("entry_detail")
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.RichText)
        self.detail.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.LinksAccessibleByMouse
        )
        self.detail.setStyleSheet(
            f"QLabel#entry_detail {{ background: {theme.tint('note')}; padding: 4px; }}"
        )
        self.detail.setMinimumHeight(48)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        lay.addWidget(self.detail)
        row = QHBoxLayout()
        self.source = QLabel(self)
        self.source.setWordWrap(True)
        row.addWidget(self.source, 1)
        self.save_button = QPushButton("Save as club tables…", self)
        self.save_button.setToolTip(
            "Write these values as your club's copy (a folder of table files) for new games"
        )
        self.load_file_button = QPushButton("Load club table file…", self)
        self.load_folder_button = QPushButton("Load club folder…", self)
        self.bundled_button = QPushButton("Bundled tables", self)
        self.bundled_button.setToolTip("New games use Brigadier's own tables")
        for b in (self.save_button, self.bundled_button, self.load_folder_button, self.load_file_button):
            row.addWidget(b)
        lay.addLayout(row)
        chapters = QHBoxLayout()
        chapters.addWidget(QLabel("Your club's copy of the chapters:", self))
        self.rulebook_label = QLabel(self)
        self.rulebook_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        chapters.addWidget(self.rulebook_label, 1)
        self.rulebook_button = QPushButton("Choose folder…", self)
        self.rulebook_button.setToolTip(
            "The folder of your club's chapter files: each rule citation then also opens it at the rule"
        )
        self.rulebook_clear = QPushButton("Clear", self)
        chapters.addWidget(self.rulebook_button)
        chapters.addWidget(self.rulebook_clear)
        lay.addLayout(chapters)
        self.error = QLabel(self)
        self.error.setObjectName("problem")
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"QLabel#problem {{ color: {theme.PROBLEM}; font-weight: bold; }}")
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.error)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {theme.MUTED};")
        lay.addWidget(self.note)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.table.itemSelectionChanged.connect(self._show_detail)
        self.table.itemChanged.connect(self._edited)
        self.search.textChanged.connect(self._filter)
        self.club_only.toggled.connect(self._filter)
        self.show_keys.toggled.connect(lambda on: self.table.setColumnHidden(COL_KEY, not on))
        self.view.currentIndexChanged.connect(self._show_view)
        self.save_button.clicked.connect(self._ask_save)
        self.load_file_button.clicked.connect(self._ask_file)
        self.load_folder_button.clicked.connect(self._ask_folder)
        self.bundled_button.clicked.connect(self.use_bundled)
        self.rulebook_button.clicked.connect(self._ask_rulebook)
        self.rulebook_clear.clicked.connect(lambda: self.set_rulebook(""))
        self.note.setText(self._keeps_text())
        self.set_rulebook(rulebook)
        self._show_view()
        from gui import rule_links

        rule_links.connect_links(self)  # the rules an entry cites open the rules reference

    # -- what is shown ---------------------------------------------------------------------------
    def _keeps_text(self) -> str:
        if self.game_tables is None:
            return "No game is open: the tables shown are the ones new games will use."
        return (
            "The open game keeps the tables it was started with, unless you change them here: a change "
            "is made with its reason, logged, and can be undone like any action. Club tables loaded or "
            "saved here are for the games you start from now on."
        )

    @property
    def showing(self) -> int:
        """Which tables are shown: :attr:`GAME` (the open game's) or :attr:`NEW_GAMES`."""
        return int(self.view.currentData())

    def _show_view(self, *_args) -> None:
        self.show_tables(self.game_tables if self.showing == self.GAME else self.new_game_tables)
        self.save_button.setEnabled(self.showing == self.NEW_GAMES)

    def _show_new_games(self) -> None:
        i = self.view.findData(self.NEW_GAMES)
        if self.view.currentIndex() != i:
            self.view.setCurrentIndex(i)  # shows them
        else:
            self._show_view()

    def show_tables(self, tables) -> None:
        from rules.tables import load_tables

        self.tables = tables
        bundled = load_tables()
        edits = self.edits[self.showing]
        entries = list(tables)
        self._filling = True
        try:
            self.table.setRowCount(len(entries))
            for r, e in enumerate(entries):
                value = edits.get(e.key, e.value)
                default = bundled.value(e.key) if e.key in bundled else e.value
                rule = (e.rule or "club default") + (" (fixed)" if e.fixed else "")
                cells = [entry_label(e.key), value_text(value), value_text(default), rule, e.reason, e.key]
                changed = e.overridden or e.key in edits
                for c, text in enumerate(cells):
                    it = QTableWidgetItem(text)
                    flags = it.flags() & ~Qt.ItemFlag.ItemIsEditable
                    if c == COL_VALUE and e.club_default and not e.fixed:
                        flags |= Qt.ItemFlag.ItemIsEditable  # a club copy changes club defaults only
                    it.setFlags(flags)
                    if e.fixed:
                        it.setBackground(self.FIXED_BG)
                    elif changed:
                        it.setBackground(self.OVERRIDDEN_BG)
                    elif e.club_default:
                        it.setBackground(self.CLUB_DEFAULT_BG)
                    if c == COL_MEANING and text:
                        it.setToolTip(f"<p>{html.escape(text)}</p>")  # rich text: a long reason wraps
                    elif c == COL_VALUE:
                        it.setToolTip(
                            "Fixed by its rule: it cannot be changed"
                            if e.fixed
                            else f"Given by {e.rule}: a club's copy changes club defaults only"
                            if not e.club_default
                            else "Double-click to change it; it is checked as you make it"
                        )
                    elif c in (COL_ENTRY, COL_KEY):
                        where = f"{e.source}, line {e.line}" if e.line else e.source
                        it.setToolTip(f"{e.key} ({where})" if where else e.key)
                        it.setData(Qt.ItemDataRole.UserRole, e.club_default)
                    else:
                        it.setToolTip(text)
                    if c == COL_VALUE and e.key in edits:
                        f = QFont(it.font())
                        f.setBold(True)
                        it.setFont(f)
                    self.table.setItem(r, c, it)
        finally:
            self._filling = False
        self.table.setColumnWidth(COL_RULE, min(self.table.sizeHintForColumn(COL_RULE), RULE_WIDTH_MAX))
        self._rows_fitted.start()
        n_club = sum(1 for e in entries if e.club_default)
        n_changed = sum(1 for e in entries if e.overridden)
        if self.showing == self.GAME:
            where = "The open game's tables, in force now"
        elif self.club_path:
            where = f"For new games: club copy {self.club_path}"
        else:
            where = "For new games: the bundled tables"
        pending = f"; {len(edits)} changed here" if edits else ""
        self.source.setText(
            f"{where} — {len(entries)} entries, {n_club} club defaults, {n_changed} set by a club{pending}"
        )
        self._entries = entries
        self._filter()
        self._show_detail()

    def _show_detail(self) -> None:
        """The selected entry in full, its meaning wrapped: what a narrow column cuts off."""
        from gui import rule_links

        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        entries = getattr(self, "_entries", [])
        if not rows or rows[0] >= len(entries):
            self.detail.setText(
                f"<span style='color:{theme.MUTED}'>Select an entry to read what it means in full.</span>"
            )
            return
        e = entries[rows[0]]
        value = self.edits[self.showing].get(e.key, e.value)
        rule = (e.rule or "club default") + (" (fixed)" if e.fixed else "")
        reason = f"<br>{html.escape(e.reason)}" if e.reason else ""
        key = f"<br><span style='color:{theme.MUTED}'>key: {html.escape(e.key)}</span>"
        self.detail.setText(
            rule_links.linkify(
                f"<b>{html.escape(entry_label(e.key))}</b> = {html.escape(value_text(value))} — "
                f"{html.escape(rule)}{reason}{key}"
            )
        )

    def _filter(self, *_args) -> None:
        text = self.search.text().strip().lower()
        only = self.club_only.isChecked()
        for r in range(self.table.rowCount()):
            key = self.table.item(r, COL_KEY)
            hay = " ".join(self.table.item(r, c).text().lower() for c in range(len(HEADERS)))
            hide = (only and not key.data(Qt.ItemDataRole.UserRole)) or (text and text not in hay)
            self.table.setRowHidden(r, bool(hide))

    # -- editing ---------------------------------------------------------------------------------
    def edit_value(self, key: str, text: str) -> bool:
        """Change ``key`` to what ``text`` says, as typing it in its cell does: checked at once by
        the loader, and kept, or refused with the loader's message (the cell goes back). True if
        kept."""
        rows = {self.table.item(r, COL_KEY).text(): r for r in range(self.table.rowCount())}
        self.error.setText("")
        self.table.item(rows[key], COL_VALUE).setText(text)
        return not self.error.text()

    def _edited(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() != COL_VALUE:
            return
        from rules.errors import TableError

        e = self._entries[item.row()]
        edits = self.edits[self.showing]
        try:
            value = parse_value(item.text(), e.value)
            check_with_loader(self.tables, {**club_values(self.tables), **edits, e.key: value})
        except (ValueError, TableError) as exc:
            self.error.setText(f"{e.key} not changed: {exc}")
            self._filling = True
            try:
                item.setText(value_text(edits.get(e.key, e.value)))
            finally:
                self._filling = False
            return
        self.error.setText("")
        if value == e.value:
            edits.pop(e.key, None)
        else:
            edits[e.key] = value
        self._mark_row(item.row(), e)
        if self.showing == self.GAME:
            self.note.setText(
                f"{len(edits)} value(s) of the open game's tables changed here: on OK you are asked the "
                "reason, and the change is logged and can be undone."
                if edits
                else self._keeps_text()
            )
        else:
            self.note.setText(
                f"{len(edits)} value(s) changed for new games: save them as your club's tables to keep them."
                if edits
                else self.note.text()
            )

    def _mark_row(self, r: int, e) -> None:
        """Show row ``r`` as its entry now stands: the value typed, tinted and bold when changed here."""
        edits = self.edits[self.showing]
        changed = e.overridden or e.key in edits
        if e.fixed:
            bg = self.FIXED_BG
        elif changed:
            bg = self.OVERRIDDEN_BG
        elif e.club_default:
            bg = self.CLUB_DEFAULT_BG
        else:
            bg = None
        self._filling = True
        try:
            for c in range(len(HEADERS)):
                it = self.table.item(r, c)
                if bg is None:
                    it.setData(Qt.ItemDataRole.BackgroundRole, None)
                else:
                    it.setBackground(bg)
            it = self.table.item(r, COL_VALUE)
            it.setText(value_text(edits.get(e.key, e.value)))
            f = QFont(it.font())
            f.setBold(e.key in edits)
            it.setFont(f)
        finally:
            self._filling = False
        self._show_detail()

    def _accept(self) -> None:
        """OK: edits to the open game's tables need their reason (asked now); edits for new games
        not yet saved are saved first, or left."""
        game_edits = self.edits[self.GAME]
        if game_edits:
            reason = dialogs.ask_reason(self, "changing the open game's rule tables")
            if not reason:
                return
            self.game_changes, self.game_reason = dict(game_edits), reason
        if self.edits[self.NEW_GAMES] and not self._ask_save(before_closing=True):
            return
        self.accept()

    # -- club copies -----------------------------------------------------------------------------
    def save_club(self, folder: str) -> bool:
        """Write the tables for new games, with the edits made here, as a club's copy in ``folder``
        (one file per table), check it by loading it, and use it for new games. False (with the
        reason shown) if it could not be written or does not load."""
        from rules.errors import TableError
        from rules.tables import load_tables

        values = {**club_values(self.new_game_tables), **self.edits[self.NEW_GAMES]}
        if not values:
            self.error.setText("Nothing differs from the bundled tables: there is nothing to save.")
            return False
        try:
            Path(folder).mkdir(parents=True, exist_ok=True)
            for name, text in club_files(self.new_game_tables, values).items():
                Path(folder, name).write_text(text, encoding="utf-8")
            tables = load_tables(folder)
        except (OSError, TableError) as exc:
            self.error.setText(f"The club tables were not saved: {exc}")
            return False
        self.error.setText("")
        self.edits[self.NEW_GAMES] = {}
        self.club_path = folder
        self.new_game_tables = tables
        self._show_new_games()
        self.note.setText(f"Saved in {folder}: " + self._applies_text())
        return True

    def _ask_save(self, before_closing: bool = False) -> bool:
        folder = dialogs.ask_existing_folder(self, "Save the club's rule tables in a folder")
        if not folder:
            return not before_closing or dialogs.ask_yes_no(
                self, "Preferences", "Leave the changes for new games unsaved?"
            )
        return self.save_club(folder)

    def load_club(self, path: str) -> bool:
        """Load a club's copy (a file or a folder) for new games; show the loader's message on a
        mistake. The open game's tables are not changed, and the dialog says so."""
        from rules.errors import TableError
        from rules.tables import load_tables

        try:
            tables = load_tables(path)
        except TableError as exc:
            self.error.setText(f"The club tables were not loaded: {exc}")
            dialogs.show_message(
                self, "Club rule tables", f"The club tables were not loaded:\n\n{exc}", "error"
            )
            return False
        self.error.setText("")
        self.club_path = path
        self.new_game_tables = tables
        self.edits[self.NEW_GAMES] = {}
        self._show_new_games()
        self.note.setText(f"Loaded {path}: " + self._applies_text())
        return True

    def use_bundled(self) -> None:
        from rules.tables import load_tables

        self.club_path = ""
        self.error.setText("")
        self.new_game_tables = load_tables()
        self.edits[self.NEW_GAMES] = {}
        self._show_new_games()
        self.note.setText("The bundled tables: " + self._applies_text())

    def _applies_text(self) -> str:
        text = "they will be used for the games you start from now on."
        if self.game_tables is not None:
            text += (
                " They do not apply to the open game, which keeps its own tables (change those here, "
                "with a reason, on the open game's tables)."
            )
        return text

    def _ask_file(self) -> None:
        p = dialogs.ask_open_path(self, "Load a club's rule table", "", "Rule tables (*.toml)")
        if p:
            self.load_club(p)

    def _ask_folder(self) -> None:
        p = dialogs.ask_existing_folder(self, "Load a folder of club rule tables")
        if p:
            self.load_club(p)

    # -- the club's copy of the chapters ------------------------------------------------------------
    def set_rulebook(self, path: str) -> None:
        self.rulebook_path = path
        if path:
            self.rulebook_label.setText(path)
        else:
            self.rulebook_label.setText(
                f"<span style='color:{theme.MUTED}'>none set: the rules reference (F1) is Brigadier's own</span>"
            )
        self.rulebook_clear.setEnabled(bool(path))

    def _ask_rulebook(self) -> None:
        p = dialogs.ask_existing_folder(self, "Your club's copy of the chapters")
        if p:
            self.set_rulebook(p)


__all__ = ["PreferencesDialog", "check_with_loader", "club_files", "parse_value", "value_text"]
