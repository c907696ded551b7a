"""The main window: the battlefield in the centre, the roster, inspector, log and plots in docks.

The window opens a game (a file given on the command line, the last game played, or a fresh copy
of the demo battle), shows the turn, the active side, the phase and every brigade's Staff Pips in
the turn bar, and keeps its layout and the recent games in QSettings. A save file dropped on the
window is opened.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from gui import icons, player_view, screens, theme
from gui.canvas import CanvasWidget
from gui.checklist import ChecklistView
from gui.controller import ChangeSummary, GameController
from gui.inspector import InspectorView
from gui.log_view import LogView
from gui.paths import saves_dir
from gui.roster import RosterView
from rules.errors import RulesError

if TYPE_CHECKING:
    from gui.plots import PlotsWidget

SAVE_FILTER = "Brigadier games (*.sqlite *.brigadier);;All files (*)"
SCENARIO_FILTER = "Scenarios (*.toml);;All files (*)"
MAX_RECENT = 8

#: The height the Plots dock is given when it is shown, if it has less (and the window room).
PLOTS_MIN_HEIGHT = 330

#: How long after the window is first shown the libraries of play are loaded (:func:`warm_up`):
#: time enough for the window's first frame to be on screen.
WARM_UP_AFTER_MS = 200

#: What the first action needs that the first window does not: geometry (shapely, numpy), the
#: rules of movement and sight, the saving of a new game (sqlite-utils) and the play flow.
WARM_UP_MODULES = (
    "shapely",
    "sqlite_utils",
    "storage.migrations",
    "rules.battlefield.field",
    "rules.reactions.triggers",
    "gui.play",
)


def _short(text: str, limit: int = 60) -> str:
    """A menu item's text kept short: a long summary is cut with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _load_action_modules() -> None:
    from rules.actions import load_action_modules

    load_action_modules()


def warm_up_steps() -> list[Callable[[], object]]:
    """The steps of :func:`warm_up`, each a few hundredths of a second at most (making the list
    imports nothing)."""
    import importlib

    steps: list[Callable[[], object]] = [partial(importlib.import_module, m) for m in WARM_UP_MODULES]
    return [*steps, _load_action_modules]


def warm_up() -> None:
    """Import :data:`WARM_UP_MODULES` and the rules' actions, so that the first drag or action,
    a moment after the window is shown, does not wait a third of a second for them. The window
    runs these steps one at a time, letting the umpire's clicks and its painting in between."""
    for step in warm_up_steps():
        step()


def rulebook_dir() -> Path | None:
    """The folder of the club's copy of the chapters (set in Preferences; see :func:`gui.help.rulebook_folder`)."""
    from gui import help as rules_help

    return rules_help.rulebook_folder()


def open_folder(path: Path) -> None:
    """Show a folder in the desktop's file manager (a seam the tests replace)."""
    QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


class TurnBar(QToolBar):
    """Turn, active side, phase and each brigade's Staff Pips."""

    MAX_LISTED = 8  # more brigades than this are summed by side (each is in the tooltip)

    def __init__(self, controller: GameController, parent: QWidget | None = None):
        super().__init__("Turn and phase", parent)
        self.setObjectName("turn_bar")
        self.setMovable(False)
        self.controller = controller
        host = QWidget(self)
        lay = QHBoxLayout(host)
        lay.setContentsMargins(6, 2, 6, 2)
        self.turn = QLabel(host)
        self.side = QLabel(host)
        self.phase = QLabel(host)
        for w in (self.turn, self.side, self.phase):
            w.setTextFormat(Qt.TextFormat.RichText)
            lay.addWidget(w)
            sep = QFrame(host)
            sep.setFrameShape(QFrame.Shape.VLine)
            lay.addWidget(sep)
        self.pips = QLabel(host)
        self.pips.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(self.pips, 1)
        self.addWidget(host)
        controller.changed.connect(self._changed)
        self.refresh()

    def _changed(self, summary: ChangeSummary) -> None:
        # the turn, the side, the phase and the pending melees are the battle's settings (the
        # melees in its records, ``extra``), the pips the brigades': a change of units alone
        # changes nothing here
        if summary.game or summary.brigades or summary.reset:
            self.refresh()

    def refresh(self) -> None:
        b = self.controller.battle
        if b is None:
            for w in (self.turn, self.side, self.phase, self.pips):
                w.setText("")
            return
        self.turn.setText(f"<b style='font-size:13pt'>Turn {b.turn}</b>")
        s = b.oob.side(b.active_side)
        self.side.setText(
            f"<span style='color:{s.colour}; font-size:13pt'>■</span> <b>{html.escape(s.name)}</b> to act"
        )
        phase = f"<b>{html.escape(b.phase.title)}</b>"
        waiting = 0
        if b.extra:  # melees wait in the battle's extra state (the rules of melee load when needed)
            from rules.melee.melee import pending_melees

            try:
                waiting = len(pending_melees(b))
            except RulesError:
                waiting = 0
        if waiting:
            phase += f" &nbsp;<span style='color:{theme.PROBLEM}'>⚔ {waiting} melee{'s' if waiting > 1 else ''} pending</span>"
        self.phase.setText(phase)
        parts, lines = [], []
        for side in b.oob.sides:
            for br in b.oob.brigades_of(side.id):
                colour = theme.ink(br.state.value)
                who = html.escape(br.brigadier.name or br.name)
                pips = icons.pips_text(br.staff_pips, br.staff_pips_reserved) or "—"
                parts.append(
                    f"<span style='color:{side.colour}'>■</span> {who} "
                    f"<span>{pips}</span>"
                    f"<span style='color:{colour}'> {br.state.label}</span>"
                )
                lines.append(
                    f"{side.name}: {br.name} ({who}) — {br.staff_pips} available, "
                    f"{br.staff_pips_reserved} reserved, {br.state.label.lower()}"
                )
        if len(parts) > self.MAX_LISTED:
            # a big battle: totals by side here, every brigade in the tooltip
            parts = []
            for side in b.oob.sides:
                brs = b.oob.brigades_of(side.id)
                avail = sum(x.staff_pips for x in brs)
                res = sum(x.staff_pips_reserved for x in brs)
                shaken = sum(1 for x in brs if x.state.value != "steady")
                parts.append(
                    f"<span style='color:{side.colour}'>■</span> {html.escape(side.name)}: "
                    f"{len(brs)} brigades, {avail} pips, {res} reserved"
                    + (
                        f", <span style='color:{theme.ink('shaken')}'>{shaken} shaken</span>"
                        if shaken
                        else ""
                    )
                )
        self.pips.setText("&nbsp;&nbsp; ".join(parts))
        self.pips.setToolTip(
            "Staff Pips: ● available, ◐ reserved for reactions (RULE-04-1.3)\n"
            + "\n".join(html.escape(x) for x in lines)
        )


class MainWindow(QMainWindow):
    """Brigadier's main window."""

    def __init__(self, controller: GameController | None = None):
        super().__init__()
        self.setObjectName("main_window")
        self.controller = controller or GameController(parent=self)
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        self.club_tables_path = str(QSettings().value("club_tables", "") or "")

        self.canvas = CanvasWidget(self.controller, self)
        self.setCentralWidget(self.canvas)
        self.roster = RosterView(self.controller, self)
        self.inspector = InspectorView(self.controller, self)
        self.log = LogView(self.controller, self)
        self.plots_area = QWidget(self)
        self.plots_area.setObjectName("plots_area")
        plots_layout = QVBoxLayout(self.plots_area)
        self.plots_placeholder = QLabel(
            "Charts of the battle go here: the reports module places its plots in this dock.",
            self.plots_area,
        )
        self.plots_placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.plots_placeholder.setWordWrap(True)
        self.plots_placeholder.setStyleSheet(
            f"color: {theme.MUTED}; border: 1px dashed {theme.tint('placeholder_border')}; padding: 16px;"
        )
        plots_layout.addWidget(self.plots_placeholder)

        self.docks: dict[str, QDockWidget] = {}
        self._dock("roster", "Order of battle", self.roster, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._dock("inspector", "Unit inspector", self.inspector, Qt.DockWidgetArea.RightDockWidgetArea)
        # what is left of the phase, ticked off as it is done: a tab beside the inspector
        self.checklist = ChecklistView(self.controller, self)
        self._dock("checklist", "Checklist", self.checklist, Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(self.docks["checklist"], self.docks["inspector"])  # the inspector in front
        self.docks["checklist"].visibilityChanged.connect(self.checklist.set_shown)
        self._dock("log", "Battle log", self.log, Qt.DockWidgetArea.BottomDockWidgetArea)
        self._dock("plots", "Plots", self.plots_area, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.tabifyDockWidget(self.docks["log"], self.docks["plots"])
        # the legend (a swatch of every terrain style) is drawn when the dock is first shown
        self._dock("legend", "Legend", QWidget(self), Qt.DockWidgetArea.RightDockWidgetArea)
        self.docks["legend"].hide()
        self._legend_built = False
        self.docks["legend"].visibilityChanged.connect(self._legend_shown)
        self.docks["legend"].toggleViewAction().toggled.connect(self._legend_shown)
        # the charts (and pyqtgraph, which draws them) are made when the Plots tab is first shown
        self._plots: PlotsWidget | None = None
        self.docks["plots"].visibilityChanged.connect(self._plots_shown)
        self.docks["log"].raise_()
        self.canvas.status.hide()  # the window's status bar says the same

        self.turn_bar = TurnBar(self.controller, self)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.turn_bar)
        self._build_actions()
        self._build_menus()
        player_view.install(self)  # View > Player view, View > Umpire's map, File > Export side report
        self.turn_bar.addSeparator()
        self.turn_bar.addAction(self.next_phase_action)
        self.turn_bar.addAction(self.end_turn_action)
        from gui import copies

        self.read_only_banner = copies.install(self)  # a game changed elsewhere, a read-only save
        self.statusBar().showMessage("Ready")
        self.cursor_label = QLabel(self)
        self.cursor_label.setMinimumWidth(150)
        self.cursor_label.setToolTip("Where the pointer is on the table, in inches from the top left corner")
        self.statusBar().addPermanentWidget(self.cursor_label)
        self.canvas.view.cursorMoved.connect(self._show_cursor)

        self.controller.changed.connect(self._changed)
        self.controller.gameReplaced.connect(self._game_replaced)
        self.controller.actionFailed.connect(self._action_failed)
        self.canvas.scene.measured.connect(lambda t: self.statusBar().showMessage(t, 15000))
        self.resize(1500, 950)
        self._layout_restored = self._restore_layout()
        screens.fit_window(self)  # a laptop, a scaled desktop, a layout saved on a bigger screen
        self._warm_up_left: list[Callable[[], object]] | None = None  # set when first shown
        self._unwritten_path: str | None = None  # a new game's file, remembered once written
        self._game_replaced()
        from gui.rule_links import connect_links

        connect_links(self)  # the log's and the inspector's citations open the reference
        self.log.tree.itemActivated.connect(self._log_row_activated)

    # -- building ---------------------------------------------------------------------------
    def _dock(self, key: str, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> None:
        d = QDockWidget(title, self)
        d.setObjectName(f"{key}_dock")
        d.setWidget(widget)
        self.addDockWidget(area, d)
        self.docks[key] = d

    def _legend_shown(self, visible: bool) -> None:
        if visible and not self._legend_built:
            self._legend_built = True
            self.docks["legend"].setWidget(self._legend_widget())

    def _legend_widget(self) -> QWidget:
        """What the map's symbols mean: each terrain type drawn as the map draws it, and the units."""
        from PySide6.QtGui import QPixmap
        from PySide6.QtWidgets import QGridLayout, QScrollArea

        from gui.canvas import LEGEND_TYPES, legend_label, terrain_swatch

        host = QWidget(self)
        grid = QGridLayout(host)
        grid.setContentsMargins(6, 6, 6, 6)
        grid.setVerticalSpacing(4)
        for i, t in enumerate(LEGEND_TYPES):
            pic = QLabel(host)
            pic.setPixmap(QPixmap.fromImage(terrain_swatch(t, 48, 20)))
            grid.addWidget(pic, i, 0)
            grid.addWidget(QLabel(legend_label(t), host), i, 1)
        notes = QLabel(
            "Units: each stand in the side's colour, the colour stand darker with a white dot; the "
            "arrow shows the facing. Letters behind a unit are its markers (D Disorder, S Smoke, "
            "F Fired, P Pinned, E Engaged, G Garrisoned, L / R Refused left / right flank, C Climbing). Hover over "
            "anything on the map for its name.",
            host,
        )
        notes.setWordWrap(True)
        grid.addWidget(notes, len(LEGEND_TYPES), 0, 1, 2)
        grid.setRowStretch(len(LEGEND_TYPES) + 1, 1)
        area = QScrollArea(self)
        area.setObjectName("legend")
        area.setWidgetResizable(True)
        area.setWidget(host)
        return area

    @property
    def plots(self) -> PlotsWidget:
        """The charts of the Plots dock, made (and the battle's course read) on first use."""
        if self._plots is None:
            from gui.plots import PlotsWidget

            self._plots = PlotsWidget(self.controller, self.plots_area)
            self.plots_placeholder.hide()
            self.plots_area.layout().addWidget(self._plots)
        return self._plots

    def _plots_shown(self, visible: bool) -> None:
        if visible and self._plots is None:
            self.plots.show()
        dock = self.docks["plots"]
        if visible and not dock.isFloating() and dock.height() < PLOTS_MIN_HEIGHT:
            # the charts need more height than the log: the dock grows when they are shown, as
            # far as leaves the map half the window
            QTimer.singleShot(0, self._grow_plots_dock)

    def _grow_plots_dock(self) -> None:
        dock = self.docks["plots"]
        if dock.isVisible() and dock.height() < PLOTS_MIN_HEIGHT:
            want = min(PLOTS_MIN_HEIGHT, self.height() // 2)
            if want > dock.height():
                self.resizeDocks([dock], [want], Qt.Orientation.Vertical)

    def set_plots_widget(self, widget: QWidget) -> None:
        """Put the reports module's plots in the Plots dock (in place of the placeholder)."""
        lay = self.plots_area.layout()
        self.plots_placeholder.hide()
        lay.addWidget(widget)
        self.docks["plots"].show()
        self.docks["plots"].raise_()

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        a = QAction(text, self)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if tip:
            a.setStatusTip(tip)
            a.setToolTip(tip)
        a.triggered.connect(lambda _checked=False: slot())
        return a

    def _build_actions(self) -> None:
        SK = QKeySequence.StandardKey
        self.new_action = self._action(
            "&New from scenario…", self.new_from_scenario, SK.New, "Start a new game from a scenario file"
        )
        self.open_action = self._action("&Open…", self.open_dialog, SK.Open, "Open a saved game")
        self.save_as_action = self._action(
            "Save &as…", self.save_as, SK.SaveAs, "Save a copy of this game and go on in it"
        )
        self.export_action = self._action(
            "&Export map…", self.export_map, None, "Save the battlefield as a PNG picture"
        )
        self.print_action = self._action(
            "&Print turn summary…",
            self.print_turn_summary,
            SK.Print,
            "Print this turn's events with their dice and rules",
        )
        self.export_summary_action = self._action(
            "Export turn summary to P&DF…",
            self.export_turn_summary,
            None,
            "Save this turn's summary as a PDF to print or pin up",
        )
        self.print_roster_action = self._action(
            "Print &roster sheets…",
            self.print_roster_sheets,
            None,
            "Print each side's order of battle for the table, as it stands",
        )
        self.export_roster_action = self._action(
            "Export roster sheets to PDF…",
            self.export_roster_sheets,
            None,
            "Save each side's roster sheets, as the game stands, as a PDF",
        )
        self.quit_action = self._action("&Quit", self.close, SK.Quit)
        # undo and redo act on the journal's steps, made in this session or before it
        self.undo_action = self._action("&Undo", self.controller.undo, SK.Undo)
        self.redo_action = self._action("&Redo", self.controller.redo, SK.Redo)
        self.controller.eventsChanged.connect(self._update_undo_actions)
        self.controller.eventsChanged.connect(self._remember_when_written)
        # a first action whose file was written but which was then refused: remember the file too
        self.controller.actionFailed.connect(self._remember_after_failure)
        self._update_undo_actions()
        self.prefs_action = self._action(
            "&Preferences…", self.preferences, SK.Preferences, "The rule tables in use, and your club's copy"
        )
        self.prefs_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        self.next_phase_action = self._action(
            "Next &phase", self.next_phase, "Ctrl+Right", "Go on to the next phase"
        )
        self.end_turn_action = self._action(
            "&End turn", self.end_turn, "Ctrl+Shift+Right", "End the active side's turn"
        )
        self.charge_action = self._action(
            "Declare &charge…", lambda: self._combat("declare_charge", "Declare charge"), "Ctrl+Shift+C"
        )
        self.shoot_action = self._action("&Shoot…", lambda: self._combat("shoot", "Shoot"), "Ctrl+Shift+F")
        self.melee_action = self._action(
            "Resolve &melee…", lambda: self._combat("resolve_melee", "Resolve melee"), "Ctrl+Shift+M"
        )
        self.window_a_action = self._action(
            "Open Trigger Window &A…",
            lambda: self._combat("open_window_a", "Trigger Window A"),
            None,
            "Open Trigger Window A by hand for a moving unit (RULE-04-1.2)",
        )
        self.window_b_action = self._action(
            "Open Trigger Window &B…",
            lambda: self._combat("open_window_b", "Trigger Window B"),
            None,
            "Open Trigger Window B by hand for a charging unit (RULE-04-1.2)",
        )
        self.reserve_pip_action = self._action(
            "&Reserve a Staff Pip",
            self.reserve_pip,
            "Ctrl+Shift+R",
            "Put one of the selected unit's brigade's Staff Pips in reserve for reactions (RULE-04-1.3)",
        )
        self.about_action = self._action("&About Brigadier", self.about)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.reference_action = self._action(
            "Rules &reference",
            self.show_reference,
            SK.HelpContents,
            "What each rule governs, how Brigadier applies it and its numbers (F1)",
        )
        self.rules_action = self._action(
            "Your club's &chapters folder",
            self.show_rules_folder,
            None,
            "Open the folder of your club's copy of the chapters (set in Preferences)",
        )
        self.fit_action = self._action("&Fit the table", self.canvas.view.fit_table, "Ctrl+0")
        self.zoom_in_action = self._action("Zoom &in", lambda: self.canvas.view.zoom_by(1.25), SK.ZoomIn)
        self.zoom_out_action = self._action("Zoom &out", lambda: self.canvas.view.zoom_by(0.8), SK.ZoomOut)
        self.delete_action = self._action(
            "&Delete selected terrain", self.canvas.delete_selected_terrain, SK.Delete
        )
        self.delete_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.canvas.addAction(self.delete_action)

    def _build_menus(self) -> None:
        mb = self.menuBar()
        f = mb.addMenu("&File")
        f.addAction(self.new_action)
        f.addAction(self.open_action)
        self.recent_menu = QMenu("Open &recent", self)
        f.addMenu(self.recent_menu)
        f.addAction(self.save_as_action)
        f.addSeparator()
        f.addAction(self.export_action)
        f.addAction(self.print_action)
        f.addAction(self.export_summary_action)
        f.addAction(self.print_roster_action)
        f.addAction(self.export_roster_action)
        self.paper_menu = f.addMenu("Pape&r for summaries and reports")
        self.paper_actions = {}
        for key, text in (("a4", "A4"), ("letter", "US Letter")):
            a = self.paper_menu.addAction(text, lambda key=key: self.set_paper(key))
            a.setCheckable(True)
            self.paper_actions[key] = a
        self.set_paper(self.paper(), remember=False)
        f.addSeparator()
        f.addAction(self.quit_action)
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self._fill_recent()
        e = mb.addMenu("&Edit")
        e.addAction(self.undo_action)
        e.addAction(self.redo_action)
        e.addSeparator()
        e.addAction(self.delete_action)
        e.addSeparator()
        e.addAction(self.prefs_action)
        v = mb.addMenu("&View")
        for d in self.docks.values():
            v.addAction(d.toggleViewAction())
        v.addAction(self.turn_bar.toggleViewAction())
        v.addAction(self.docks["legend"].toggleViewAction())
        v.addSeparator()
        v.addAction(self.fit_action)
        v.addAction(self.zoom_in_action)
        v.addAction(self.zoom_out_action)
        g = mb.addMenu("&Game")
        g.addAction(self.next_phase_action)
        g.addAction(self.end_turn_action)
        g.addAction(self.reserve_pip_action)
        g.addSeparator()
        g.addAction(self.charge_action)
        g.addAction(self.shoot_action)
        g.addAction(self.melee_action)
        self.garrison_action = g.addAction("&Garrison a building…")
        self.garrison_action.setStatusTip("Phase 2: a unit touching a building occupies it (RULE-03-3.1)")
        self.garrison_action.triggered.connect(
            lambda _c=False: self._combat("garrison_building", "Garrison a building")
        )
        self.bombard_action = g.addAction("Bombar&d a building…")
        self.bombard_action.setStatusTip("Phase 3: a battery fires at an enemy-held building (RULE-03-3.2)")
        self.bombard_action.triggered.connect(
            lambda _c=False: self._combat("bombard_building", "Bombard a building")
        )
        g.addSeparator()
        g.addAction(self.window_a_action)
        g.addAction(self.window_b_action)
        h = mb.addMenu("&Help")
        h.addAction(self.reference_action)
        h.addAction(self.rules_action)
        h.addAction(self.about_action)
        self.menus = {"file": f, "edit": e, "view": v, "game": g, "help": h}

    # -- layout and recent games ------------------------------------------------------------
    def _restore_layout(self) -> bool:
        s = QSettings()
        geo = s.value("window/geometry")
        state = s.value("window/state")
        if isinstance(geo, QByteArray) and not geo.isEmpty():
            self.restoreGeometry(geo)
        if isinstance(state, QByteArray) and not state.isEmpty():
            return bool(self.restoreState(state))
        return False

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if self._warm_up_left is None:  # the first time shown: load what the first action needs
            self._warm_up_left = warm_up_steps()
            QTimer.singleShot(WARM_UP_AFTER_MS, self._warm_up_step)
        if not self._layout_restored:
            # the first time: docks sized for their contents, the table as large as the rest allows
            self._layout_restored = True
            if screens.compact(self):
                docks = self.docks
                screens.arrange_compact(
                    self,
                    docks["roster"],
                    docks["inspector"],
                    docks["log"],
                    [docks["checklist"], docks["plots"]],
                )
            self.apply_default_dock_sizes()
            # once the window is laid out at its real size, again, and the table fitted to the room
            QTimer.singleShot(0, self.apply_default_dock_sizes)
            QTimer.singleShot(0, self.canvas.view.fit_table)

    def _warm_up_step(self) -> None:
        """One step of :func:`warm_up`; the next runs once the events waiting have been handled."""
        if self._warm_up_left:
            self._warm_up_left.pop(0)()
        if self._warm_up_left:
            QTimer.singleShot(0, self._warm_up_step)

    def apply_default_dock_sizes(self) -> None:
        self.resizeDocks(*self.default_dock_sizes(Qt.Orientation.Horizontal), Qt.Orientation.Horizontal)
        self.resizeDocks(*self.default_dock_sizes(Qt.Orientation.Vertical), Qt.Orientation.Vertical)

    def default_dock_sizes(self, orientation: Qt.Orientation) -> tuple[list[QDockWidget], list[int]]:
        """The docks' first sizes: the centre gets the room, the docks what they need to read."""
        w, h = self.width(), self.height()
        left = self.dockWidgetArea(self.docks["log"]) == Qt.DockWidgetArea.LeftDockWidgetArea
        if orientation == Qt.Orientation.Horizontal:
            if left:  # a small screen: the inspector and the log are below the roster
                return [self.docks["roster"]], [min(self.roster.wanted_width(), int(w * 0.36))]
            roster = min(self.roster.wanted_width(), int(w * (0.24 if w >= 1500 else 0.21)))
            inspector = 300
            return [self.docks["roster"], self.docks["inspector"]], [roster, inspector]
        if left:
            return [self.docks["roster"], self.docks["inspector"]], [int(h * 0.55), int(h * 0.35)]
        return [self.docks["log"]], [260 if h >= 950 else 220 if h >= 850 else 180 if h >= 800 else 130]

    def save_layout(self) -> None:
        s = QSettings()
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.sync()

    def recent_files(self) -> list[str]:
        v = QSettings().value("recent_files", [])
        if isinstance(v, str):
            v = [v]
        return [str(p) for p in (v or [])]

    def _remember(self, path: str) -> None:
        p = str(Path(path).resolve())
        files = [p] + [f for f in self.recent_files() if f != p]
        s = QSettings()
        s.setValue("recent_files", files[:MAX_RECENT])
        s.setValue("last_game", p)
        s.sync()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        files = self.recent_files()
        if not files:
            a = self.recent_menu.addAction("(no recent games)")
            a.setEnabled(False)
            return
        for i, p in enumerate(files):
            a = self.recent_menu.addAction(f"&{i + 1} {Path(p).name}", lambda p=p: self.open_path(p))
            a.setToolTip(p)
            a.setEnabled(Path(p).exists())

    # -- keeping up -----------------------------------------------------------------------------
    def _game_replaced(self) -> None:
        self.turn_bar.refresh()
        self._update_title()
        has = self.controller.has_game
        for a in (
            self.save_as_action,
            self.export_action,
            self.print_action,
            self.export_summary_action,
            self.print_roster_action,
            self.export_roster_action,
            self.next_phase_action,
            self.end_turn_action,
            self.reserve_pip_action,
            self.charge_action,
            self.shoot_action,
            self.melee_action,
            self.window_a_action,
            self.window_b_action,
        ):
            a.setEnabled(has)

    def _changed(self, summary: ChangeSummary) -> None:
        if summary.game or summary.reset:
            self._update_title()

    def _update_title(self) -> None:
        b = self.controller.battle
        if b is None:
            self.setWindowTitle("Brigadier")
            return
        name = Path(self.controller.path).name if self.controller.path else ""
        file_part = f" ({name})" if name else ""
        try:
            side = f"{b.oob.side(b.active_side).name} to act, "
        except RulesError:
            side = ""
        self.setWindowTitle(f"{b.name}{file_part} — Turn {b.turn}, {side}{b.phase.title} — Brigadier")

    def _update_undo_actions(self) -> None:
        c = self.controller
        self.undo_action.setEnabled(c.can_undo)
        self.redo_action.setEnabled(c.can_redo)
        undo, redo = c.undo_text(), c.redo_text()
        self.undo_action.setText(f"&Undo {_short(undo)}" if undo else "&Undo")
        self.redo_action.setText(f"&Redo {_short(redo)}" if redo else "&Redo")

    def _show_cursor(self, x: float, y: float) -> None:
        b = self.controller.battle
        if b is not None and 0 <= x <= b.table_width_in and 0 <= y <= b.table_height_in:
            self.cursor_label.setText(f'x {x:.1f}"   y {y:.1f}"')
        else:
            self.cursor_label.setText("")

    def _log_row_activated(self, item, _column: int = 0) -> None:
        """A line of the log that cites a rule, double-clicked: the rules reference at that rule."""
        from gui import help as rules_help

        m = rules_help.RULE_ID.search(item.text(0) if item is not None else "")
        if m is not None:
            self.show_reference(m.group(0))

    def _action_failed(self, message: str) -> None:
        from gui import dialogs

        self.statusBar().showMessage(f"Not done: {message}", 15000)
        dialogs.show_message(self, "Not allowed", message, "warning")

    # -- opening games ------------------------------------------------------------------------
    def open_path(self, path: str, quiet: bool = False) -> bool:
        """Open a saved game; a file that is not one is refused with the reason (in the status bar
        only, with ``quiet``)."""
        from storage.errors import StorageError
        from storage.game import Game

        try:
            game = Game.open(path)
        except (StorageError, RulesError, OSError) as exc:
            if quiet:
                self.statusBar().showMessage(f"{path} could not be opened: {exc}", 20000)
            else:
                from gui import dialogs

                dialogs.show_message(self, "Open game", f"{path} could not be opened:\n\n{exc}", "error")
            return False
        self.controller.set_game(game, str(path))
        self._remember(str(path))
        self.statusBar().showMessage(f"Opened {path}", 10000)
        return True

    def start_new_game(self, scenario_path: str | None, save_path: str, write_now: bool = True) -> bool:
        """Start a game from a scenario file (None: the bundled demo) saved at ``save_path``.

        With ``write_now`` false the file is written by the game's first action (see
        :meth:`storage.game.Game.new`): the demo shown at start-up leaves no file behind if the
        umpire only looks at it."""
        from storage.errors import StorageError
        from storage.game import Game
        from storage.scenario import load_demo, load_scenario

        try:
            battle = load_scenario(scenario_path) if scenario_path else load_demo()
            make = Game.create if write_now else Game.new
            game = make(save_path, battle, tables=self.club_tables())
        except (StorageError, RulesError, OSError) as exc:
            from gui import dialogs

            dialogs.show_message(self, "New game", f"The game could not be started:\n\n{exc}", "error")
            return False
        self.controller.set_game(game, str(save_path))
        self._unwritten_path = None if write_now else str(save_path)
        if write_now:
            self._remember(str(save_path))
        else:
            self.statusBar().showMessage(
                f"A new game of {battle.name}: it is saved to {save_path} from its first action", 20000
            )
        return True

    def _remember_after_failure(self, _message: str) -> None:
        self._remember_when_written(quiet=True)

    def _remember_when_written(self, quiet: bool = False) -> None:
        """A new game's file is remembered (as the last game and a recent one) once it is written."""
        path = self._unwritten_path
        if path is None:
            return
        game = self.controller.game
        if game is None or self.controller.path != path:  # another game is open now
            self._unwritten_path = None
        elif game.written:
            self._unwritten_path = None
            self._remember(path)
            if not quiet:
                self.statusBar().showMessage(f"Saved: the game is kept in {path}", 15000)

    def open_at_start(self, path: str | None) -> None:
        """The game to show first: ``path``, else the last game played, else a new demo game."""
        if path and self.open_path(path):
            return
        last = str(QSettings().value("last_game", "") or "")
        skipped = ""
        if not path and last:
            try:
                if Path(last).exists() and self.open_path(last, quiet=True):
                    return
                skipped = self.statusBar().currentMessage()
            except Exception as exc:  # noqa: BLE001 - a bad last game never stops Brigadier starting
                skipped = f"{last} could not be opened ({type(exc).__name__}: {exc})"
            # the last game is gone or damaged: start on the demo, and do not try it again
            s = QSettings()
            s.remove("last_game")
            s.sync()
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        target = saves_dir() / f"oak-ridge-{stamp}.sqlite"
        n = 1
        while target.exists():
            n += 1
            target = saves_dir() / f"oak-ridge-{stamp}-{n}.sqlite"
        if self.start_new_game(None, str(target), write_now=False) and skipped:
            self.statusBar().showMessage(f"{skipped}. {self.statusBar().currentMessage()}", 20000)

    def club_tables(self):
        from rules.errors import TableError
        from rules.tables import load_tables

        if not self.club_tables_path:
            return None
        try:
            return load_tables(self.club_tables_path)
        except TableError as exc:
            self.statusBar().showMessage(f"Club tables not used: {exc}", 15000)
            return None

    def new_from_scenario(self) -> None:
        from importlib import resources

        from gui import dialogs

        folder = str(resources.files("resources").joinpath("scenarios"))
        scen = dialogs.ask_open_path(self, "New game from a scenario", folder, SCENARIO_FILTER)
        if not scen:
            return
        default = str(saves_dir() / (Path(scen).stem + ".sqlite"))
        save = dialogs.ask_save_path(self, "Save the new game as", default, SAVE_FILTER, "sqlite")
        if save:
            self.start_new_game(scen, save)

    def open_dialog(self) -> None:
        from gui import dialogs

        p = dialogs.ask_open_path(self, "Open a saved game", str(saves_dir()), SAVE_FILTER)
        if p:
            self.open_path(p)

    def save_as(self) -> None:
        """Save a copy of the game under a new name and go on playing in the copy (a new game whose
        file is not written yet is simply written there)."""
        import sqlite3

        from gui import dialogs
        from storage.errors import StorageError

        game = self.controller.game
        if game is None:
            return
        p = dialogs.ask_save_path(self, "Save the game as", str(saves_dir()), SAVE_FILTER, "sqlite")
        if not p:
            return
        same = Path(p).resolve() == Path(str(game.path)).resolve()
        if not game.written:
            self._write_new_game_as(game, p, same)
            return
        if same:
            self.statusBar().showMessage("That is the game's own file: it is saved already", 10000)
            return
        from storage.outputs import atomic_write

        def copy(tmp: Path) -> None:
            dst = sqlite3.connect(tmp)
            try:
                game.conn.backup(dst)
            finally:
                dst.close()

        try:  # all or nothing: an old file of that name is replaced only by the whole copy
            atomic_write(p, copy, what="the copy", save=True)
        except (sqlite3.Error, OSError, StorageError) as exc:
            dialogs.show_message(self, "Save as", f"The copy could not be written:\n\n{exc}", "error")
            return
        self.open_path(p)

    def _write_new_game_as(self, game, p: str, same: bool) -> None:
        """Write a new game, not yet on disk, at ``p`` and go on playing it there."""
        from gui import dialogs
        from storage.errors import StorageError
        from storage.game import Game

        try:
            if same:
                game.write()
                target = game
            else:
                from storage.outputs import check_output

                check_output(p, force=True, save=True)  # an ordinary file, not a game open here
                if Path(p).exists():
                    Path(p).unlink()
                target = Game.new(p, game.scenario, game.tables, game.seed)
                target.write()
        except (StorageError, OSError) as exc:
            dialogs.show_message(self, "Save as", f"The game could not be written:\n\n{exc}", "error")
            return
        if target is not game:
            self.controller.set_game(target, str(p))
        self._unwritten_path = None
        self._remember(str(p))
        self.statusBar().showMessage(f"Saved as {p}", 10000)

    # -- drag and drop a save -----------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:  # noqa: N802
        if self._dropped_path(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:  # noqa: N802
        p = self._dropped_path(event.mimeData())
        if p:
            event.acceptProposedAction()
            self.open_path(p)

    @staticmethod
    def _dropped_path(mime) -> str | None:
        if not mime.hasUrls():
            return None
        for url in mime.urls():
            if url.isLocalFile() and Path(url.toLocalFile()).is_file():
                return url.toLocalFile()
        return None

    # -- the game menu ------------------------------------------------------------------------
    def next_phase(self) -> None:
        """Next phase: what is left of this one is shown first, to go on (and log it) or go back."""
        from gui.checklist import end_phase

        end_phase(self.controller, self)

    def end_turn(self) -> None:
        """End turn: what is left of the side's turn is shown first, to go on or go back."""
        from gui.checklist import end_phase

        end_phase(self.controller, self, end_turn=True)

    def reserve_pip(self) -> None:
        """Reserve a Staff Pip of the selected unit's brigade (or the active side's only brigade)."""
        from gui import dialogs
        from rules.actions import ReservePip

        b = self.controller.battle
        if b is None:
            return
        sel = [u for u in self.controller.selection if u in b.units]
        brigades = {b.units[u].brigade for u in sel}
        if not sel:
            own = b.oob.brigades_of(b.active_side)
            brigades = {own[0].id} if len(own) == 1 else set()
        if len(brigades) != 1:
            dialogs.show_message(
                self,
                "Reserve a Staff Pip",
                "Select a unit of the brigade whose Staff Pip is to be reserved.",
                "information",
            )
            return
        self.controller.run(ReservePip(brigade_id=brigades.pop()))

    def _combat(self, function: str, title: str) -> None:
        """Open a combat dialog from gui.play, or say plainly that it is not in this build."""
        import importlib

        from gui import dialogs

        try:
            mod = importlib.import_module("gui.play")
        except ModuleNotFoundError as exc:
            if exc.name != "gui.play":
                raise
            mod = None
        fn = getattr(mod, function, None) if mod is not None else None
        if fn is None:
            dialogs.show_message(
                self,
                title,
                f"{title} comes with the combat dialogs, which are not in this build of Brigadier yet.\n\n"
                "Until then, resolve it at the table and record the result with the inspector's "
                "Override (with the reason), so that it is in the log.",
                "information",
            )
            return
        fn(self.controller, self)

    # -- preferences, printing, export, help -----------------------------------------------
    def preferences(self) -> None:
        """The rule tables, edited as a table: the open game's (a change made with its reason, logged
        and undoable) and the ones new games will use (a club's copy, loaded or saved); and the
        folder of the club's copy of the chapters."""
        from gui import dialogs
        from gui import help as rules_help
        from gui import preferences as prefs

        tables = self.club_tables()
        if tables is None:
            from rules.tables import load_tables

            tables = load_tables()
        battle = self.controller.battle
        chapters = str(QSettings().value(rules_help.SETTING, "") or "")
        dlg = prefs.PreferencesDialog(
            tables,
            self.club_tables_path,
            self,
            game_tables=self.controller.tables,
            game_title=battle.name if battle is not None else "",
            rulebook=chapters,
        )
        if dialogs.exec_dialog(dlg) != dialogs.QDialog.DialogCode.Accepted:
            return
        if dlg.rulebook_path != chapters:
            rules_help.set_rulebook_folder(dlg.rulebook_path)
        changed = dlg.club_path != self.club_tables_path
        self.club_tables_path = dlg.club_path
        s = QSettings()
        s.setValue("club_tables", dlg.club_path)
        s.sync()
        if changed:
            which = f"the club tables {dlg.club_path}" if dlg.club_path else "the bundled tables"
            keeps = "; the open game keeps its own" if self.controller.tables is not None else ""
            self.statusBar().showMessage(f"New games will use {which}{keeps}", 15000)
        if dlg.game_changes:
            from rules.actions import ChangeTables

            if self.controller.run(ChangeTables(dlg.game_changes, dlg.game_reason)) is not None:
                self.statusBar().showMessage(
                    "The open game's rule tables were changed; the log says so", 15000
                )

    def paper(self) -> str:
        """The paper turn summaries and side reports are printed and exported on: as chosen (File >
        Paper), else the locale's (US Letter where it measures in the US system, A4 elsewhere)."""
        from PySide6.QtCore import QLocale

        chosen = str(QSettings().value("paper", "") or "")
        if chosen in ("a4", "letter"):
            return chosen
        return (
            "letter" if QLocale().measurementSystem() == QLocale.MeasurementSystem.ImperialUSSystem else "a4"
        )

    def set_paper(self, paper: str, remember: bool = True) -> None:
        for key, a in self.paper_actions.items():
            a.setChecked(key == paper)
        if remember:
            s = QSettings()
            s.setValue("paper", paper)
            s.sync()

    def turn_summary_html(self, turn: int | None = None) -> str:
        """The turn summary (this turn unless ``turn`` is given) as HTML, without its pictures."""
        from gui import report, report_html

        game = self.controller.game
        if game is None:
            return ""
        s = report.build_turn_summary(game, self.controller.battle.turn if turn is None else turn)
        return report_html.summary_html(s, None, None)

    def _turn_document(self):
        from gui import report

        game = self.controller.game
        s = report.build_turn_summary(game, self.controller.battle.turn)
        title = f"{s.battle_name} — turn {s.turn}"
        return report.turn_document(s, game.tables, self), title

    def print_turn_summary(self) -> None:
        """Preview and print this turn's summary (QPrintPreviewDialog)."""
        from PySide6.QtPrintSupport import QPrinter, QPrintPreviewDialog

        from gui import dialogs, report_pages

        if self.controller.battle is None:
            return
        doc, title = self._turn_document()
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setPageLayout(report_pages.page_layout_for(paper=self.paper()))
        printer.setDocName(title)
        dlg = QPrintPreviewDialog(printer, self)
        dlg.setWindowTitle(f"Turn summary: {title}")
        dlg.paintRequested.connect(lambda p: report_pages.print_document(doc, p, title))
        dialogs.exec_dialog(dlg)

    def export_side_report(self, side: str) -> None:
        """File > Export side report: the turn as ``side`` knew it, as a PDF."""
        from gui import side_report

        side_report.export_side_report(self, side)

    def export_turn_summary(self) -> None:
        """Save this turn's summary as a PDF."""
        from gui import dialogs, report_pages

        b = self.controller.battle
        if b is None:
            return
        p = dialogs.ask_save_path(
            self,
            "Export the turn summary",
            str(saves_dir() / f"turn-{b.turn}.pdf"),
            "PDF documents (*.pdf)",
            "pdf",
        )
        if not p:
            return
        try:
            doc, title = self._turn_document()
            report_pages.write_pdf(doc, p, title, paper=self.paper())
        except report_pages.ReportError as exc:
            dialogs.show_message(self, "Export turn summary", str(exc), "error")
            return
        self.statusBar().showMessage(f"Turn summary saved to {p}", 10000)

    def roster_sheets(self):
        """Every side's roster sheets as the game stands."""
        from reports.roster_sheets import roster_sheets
        from rules.turn.sequence import phase_title

        game = self.controller.game
        b = game.battle
        return roster_sheets(
            b, game.tables, when=f"As it stands: {phase_title(b)}, journal entry {game.last_seq}"
        )

    def print_roster_sheets(self) -> None:
        """Preview and print the roster sheets (QPrintPreviewDialog), landscape Letter or A4."""
        from PySide6.QtPrintSupport import QPrinter, QPrintPreviewDialog

        from gui import dialogs, roster_print

        if self.controller.battle is None:
            return
        sheets = self.roster_sheets()
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setPageLayout(roster_print.page_layout_for())
        printer.setDocName(f"{sheets[0].battle}: roster sheets")
        dlg = QPrintPreviewDialog(printer, self)
        dlg.setWindowTitle(f"Roster sheets: {sheets[0].battle}")
        dlg.paintRequested.connect(lambda p: roster_print.print_sheets(sheets, p))
        dialogs.exec_dialog(dlg)

    def export_roster_sheets(self) -> None:
        """Save the roster sheets as a PDF."""
        from gui import dialogs, roster_print

        b = self.controller.battle
        if b is None:
            return
        p = dialogs.ask_save_path(
            self,
            "Export the roster sheets",
            str(saves_dir() / f"roster-turn-{b.turn}.pdf"),
            "PDF documents (*.pdf)",
            "pdf",
        )
        if not p:
            return
        try:
            roster_print.write_roster_pdf(self.roster_sheets(), p)
        except roster_print.ReportError as exc:
            dialogs.show_message(self, "Export roster sheets", str(exc), "error")
            return
        self.statusBar().showMessage(f"Roster sheets saved to {p}", 10000)

    def render_map(self, path: str, px_per_in: float = 20.0) -> bool:
        """Save the battlefield (terrain and units) as a PNG picture, as the players would see it:
        without the umpire's arcs, rulers and sight lines, and with nothing selected; with its
        title above and a legend and scale bar below."""
        from gui import export

        b = self.controller.battle
        if b is None:
            return False
        # drawn on a map of its own, once: the map on screen keeps its arcs, sight lines and
        # selection, and the pictures its items keep of themselves
        img = export.battle_image(b, self.controller.tables, px_per_in, names=self.canvas.scene.show_names)
        img = export.framed_map(img, b, px_per_in, export.map_title(b))
        try:  # all or nothing, never over a saved game (storage.outputs)
            export.save_image(img, path, "map")
        except export.ReportError as exc:
            self.export_problem = str(exc)
            return False
        return True

    def export_map(self) -> None:
        from gui import dialogs

        p = dialogs.ask_save_path(
            self, "Export the map", str(saves_dir() / "map.png"), "PNG pictures (*.png)", "png"
        )
        if not p:
            return
        if self.render_map(p):
            self.statusBar().showMessage(f"Map saved to {p}", 10000)
        else:
            why = getattr(self, "export_problem", "") or f"The picture could not be written to {p}"
            dialogs.show_message(self, "Export map", why, "error")

    def about(self) -> None:
        from gui import dialogs
        from storage.game import app_version

        dialogs.show_message(
            self,
            "About Brigadier",
            f"Brigadier {app_version()}\n\nA battle manager for umpire-run club games of regimental "
            "American Civil War miniatures rules: order of battle, battlefield, arcs, ranges, line of "
            "sight, reactions, shooting and melee, with every action saved as it happens.\n\n"
            "The umpire is the authority: any value can be overridden, and every override is logged "
            "with its reason.",
        )

    def show_reference(self, rule_id: str | None = None) -> None:
        """The rules reference (F1), at ``rule_id`` where given: Brigadier's own, always there."""
        from gui import help as rules_help

        rules_help.open_rule(rule_id, self)

    def show_rules_folder(self) -> None:
        from gui import dialogs

        d = rulebook_dir()
        if d is None:
            dialogs.show_message(
                self,
                "Your club's chapters",
                "No copy of the chapters is set. Choose their folder in Preferences (Edit > "
                "Preferences); the rules reference (F1) works without it.",
                "warning",
            )
            return
        open_folder(d)

    # -- closing ------------------------------------------------------------------------------
    def closeEvent(self, event) -> None:  # noqa: N802
        self.save_layout()
        self.controller.close()
        super().closeEvent(event)
