"""The main window's docks and layout: the roster, inspector, checklist, log, plots and legend docks,
their first sizes, and the layout kept in QSettings.

:class:`WindowDocks` is a part of :class:`gui.main_window.MainWindow`. The Legend dock draws its
swatches, and the Plots dock its charts (and imports pyqtgraph), when first shown; the window's
first showing also starts the warm-up of what the first action needs (:mod:`gui.warm_up`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QLabel, QWidget

from gui import screens
from gui.warm_up import WARM_UP_AFTER_MS, warm_up_steps

if TYPE_CHECKING:
    from gui.plots import PlotsWidget

#: The height the Plots dock is given when it is shown, if it has less (and the window room).
PLOTS_MIN_HEIGHT = 330


class WindowDocks:
    """The docks of :class:`gui.main_window.MainWindow` and their layout."""

    # -- the docks --------------------------------------------------------------------------
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
            "F Fired, P Pinned, E Engaged, G Garrisoned, L / R Refused left / right flank, C Climbing). "
            "Hover over anything on the map for its name.",
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
            if self.controller.looking_back is not None:  # the cursor at the moment looked back at
                self._plots.set_cursor(self._cursor_turn(self.controller.looking_back))
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

    # -- the layout -------------------------------------------------------------------------
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
            self._warm_up_left = [*warm_up_steps(), self._prepare_dialogs]
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

    def _prepare_dialogs(self) -> None:
        """Make the window's own Charge dialog (hidden), so that the first charge declared opens it
        as quickly as the ones after (its widgets and odds chart take a few hundredths of a second
        to make): the last step of the warm-up."""
        from gui.combat_dialogs.charge import charge_dialog
        from gui.controller import GameError

        c = self.controller
        if c.battle is not None and c.tables is not None:
            try:
                dlg = charge_dialog(c.battle, c.tables, None, None, self)
            except GameError:
                return  # (its charges cannot be asked of this battle now: made when first declared)
            # its style, fonts and chart drawn once into a picture nobody sees (not shown): the
            # first charge paints what has been painted before
            dlg.ensurePolished()
            dlg.layout().activate()
            dlg.grab()
            dlg.winId()  # (its window made with the system, still hidden)

    @property
    def warmed_up(self) -> bool:
        """Whether the warm-up after the window was first shown is done."""
        return self._warm_up_left == []

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
