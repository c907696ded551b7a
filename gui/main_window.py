"""The main window: the battlefield in the centre, the roster, inspector, log and plots in docks.

The window opens a game (a file given on the command line, the last game played, or a fresh copy
of the demo battle), shows the turn, the active side, the phase and every brigade's Staff Pips in
the turn bar (:mod:`gui.turn_bar`), and keeps its layout and the recent games in QSettings. A save
file dropped on the window is opened.

:class:`MainWindow` is built here and kept up to date with the game; its other parts are in
modules of their own: the docks and the layout (:mod:`gui.window_docks`), the actions and menus
(:mod:`gui.window_menus`), opening and saving games (:mod:`gui.window_files`), printing and
exporting (:mod:`gui.window_outputs`), and the Game menu, Preferences and Help
(:mod:`gui.window_commands`). What it loads a moment after it is shown is :mod:`gui.warm_up`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QVBoxLayout, QWidget

from gui import player_view, screens, theme
from gui.canvas import CanvasWidget
from gui.checklist import ChecklistView
from gui.controller import ChangeSummary, GameController
from gui.inspector import InspectorView
from gui.log_view import LogView
from gui.roster import RosterView
from gui.turn_bar import TurnBar
from gui.window_commands import WindowCommands
from gui.window_docks import WindowDocks
from gui.window_files import WindowFiles
from gui.window_menus import WindowMenus
from gui.window_outputs import WindowOutputs
from rules.errors import RulesError

if TYPE_CHECKING:
    from gui.plots import PlotsWidget


class MainWindow(WindowDocks, WindowMenus, WindowFiles, WindowOutputs, WindowCommands, QMainWindow):
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
        from gui import story_menus

        story_menus.install(self)  # File > Export after-action report, File > Export replay
        self.turn_bar.addSeparator()
        self.turn_bar.addAction(self.next_phase_action)
        self.turn_bar.addAction(self.end_turn_action)
        from gui import copies, timeline

        self.timeline = timeline.install(self)  # the bar under the map, the banner above it
        self.controller.lookingChanged.connect(self._looking_changed)

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
        ):
            a.setEnabled(has)
        self._looking_changed(self.controller.looking_back)

    def _play_actions(self) -> list:
        """The actions that play the game: none of them can be taken on a moment looked back at."""
        return [
            self.next_phase_action,
            self.end_turn_action,
            self.reserve_pip_action,
            self.charge_action,
            self.shoot_action,
            self.melee_action,
            self.window_a_action,
            self.window_b_action,
            self.arrivals_action,
        ]

    def _looking_changed(self, seq: int | None) -> None:
        """Looking back (``seq``: the entry the map shows the battle after) or back to now: the
        actions of play, the terrain's editing and Undo follow, and so do the title and the plots'
        cursor (the battle log's entry is chosen by the timeline once it rests on a moment)."""
        can_play = self.controller.has_game and seq is None
        for a in self._play_actions():
            a.setEnabled(can_play)
        self.canvas.edit_terrain.setEnabled(can_play)
        self._update_undo_actions()
        self._update_title()
        if self._plots is not None:
            self._plots.set_cursor(self._cursor_turn(seq))

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
        past = "Looking back: " if self.controller.looking_back is not None else ""
        self.setWindowTitle(f"{past}{b.name}{file_part} — Turn {b.turn}, {side}{b.phase.title} — Brigadier")

    def _cursor_turn(self, seq: int | None) -> float | None:
        """Where a moment stands on the plots' axis of turns (turn N ends at N): a moment of turn
        N lies between N - 1 and N, by how far into the turn's entries it is; None: now."""
        tl = self.timeline.bar.timeline
        if seq is None or tl is None:
            return None
        m = tl.moment(seq)
        start = next((k.seq for k in tl.turn_starts() if k.turn == m.turn), 0)
        end = tl.end_of_turn(m.turn) or tl.last
        part = (seq - start) / (end - start) if end > start else 0.0
        return m.turn - 1 + part

    def _show_cursor(self, x: float, y: float) -> None:
        b = self.controller.battle
        if b is not None and 0 <= x <= b.table_width_in and 0 <= y <= b.table_height_in:
            self.cursor_label.setText(f'x {x:.1f}"   y {y:.1f}"')
        else:
            self.cursor_label.setText("")

    def _action_failed(self, message: str) -> None:
        from gui import dialogs

        self.statusBar().showMessage(f"Not done: {message}", 15000)
        dialogs.show_message(self, "Not allowed", message, "warning")

    # -- closing ------------------------------------------------------------------------------
    def closeEvent(self, event) -> None:  # noqa: N802
        self.save_layout()
        self.controller.close()
        super().closeEvent(event)
