"""The main window's actions and menus: each action with its text, shortcut and tip, and the menus
of the menu bar (File, Edit, View, Game, Help) they sit in.

:class:`WindowMenus` is a part of :class:`gui.main_window.MainWindow`; what the actions do is the
window's other parts': opening and saving games (:mod:`gui.window_files`), printing and exporting
(:mod:`gui.window_outputs`), the Game menu, Preferences and Help (:mod:`gui.window_commands`).
Undo and Redo name the step they undo or redo. View > Theme chooses the window's colours
(:mod:`gui.theme`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu

from gui import theme


def _short(text: str, limit: int = 60) -> str:
    """A menu item's text kept short: a long summary is cut with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class WindowMenus:
    """The actions and menus of :class:`gui.main_window.MainWindow`."""

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
        self.import_oob_action = self._action(
            "&Import order of battle…",
            self.import_order_of_battle,
            None,
            "Make a scenario of an order of battle in a spreadsheet (CSV or XLSX), one row per unit",
        )

        def se(name: str):  # the scenario editor (gui.scenario_editor), loaded when first used
            def run() -> None:
                from gui import scenario_editor

                getattr(scenario_editor, name)(self)

            return run

        self.new_scenario_action = self._action(
            "New scenar&io…",
            se("new_scenario"),
            None,
            "Make a new scenario: its settings, then its order of battle and ground",
        )
        self.edit_scenario_action = self._action(
            "&Edit scenario…",
            se("edit_scenario"),
            None,
            "Open a scenario file to edit its order of battle, ground and settings",
        )
        self.scenario_settings_action = self._action(
            "Scenario se&ttings…",
            se("scenario_settings"),
            None,
            "The scenario's name, notes and sources, table, sides and the side that moves first",
        )
        self.save_scenario_action = self._action(
            "Save as scenari&o…",
            se("save_as_scenario"),
            None,
            "Write this battle as a scenario file to start games from",
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
        f.addAction(self.import_oob_action)
        f.addAction(self.open_action)
        sc = f.addMenu("Scenario &editor")
        for a in (
            self.new_scenario_action,
            self.edit_scenario_action,
            self.scenario_settings_action,
            self.save_scenario_action,
        ):
            sc.addAction(a)
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
        v.addSeparator()
        self.theme_menu = v.addMenu("&Theme")
        self.theme_actions = {}
        themes = QActionGroup(self)  # one at a time
        for key, words in theme.THEMES:
            a = self.theme_menu.addAction(words, lambda key=key: self._choose_theme(key))
            a.setCheckable(True)
            a.setActionGroup(themes)
            self.theme_actions[key] = a
        self.theme_actions[theme.chosen()].setChecked(True)
        g = mb.addMenu("&Game")
        g.addAction(self.next_phase_action)
        g.addAction(self.end_turn_action)
        g.addAction(self.reserve_pip_action)
        self.arrivals_action = g.addAction("Bring on &arrivals…")
        self.arrivals_action.setStatusTip(
            "Phase 2: the units due to arrive come on at their entry points (a scenario's reinforcements)"
        )
        self.arrivals_action.triggered.connect(lambda _c=False: self.bring_on_arrivals())
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

    def _choose_theme(self, key: str) -> None:
        """View > Theme: the window's colours, kept for the next start and applied at once."""
        theme.choose(key)
        self.theme_actions[key].setChecked(True)

    def _update_undo_actions(self) -> None:
        c = self.controller
        self.undo_action.setEnabled(c.can_undo)
        self.redo_action.setEnabled(c.can_redo)
        undo, redo = c.undo_text(), c.redo_text()
        self.undo_action.setText(f"&Undo {_short(undo)}" if undo else "&Undo")
        self.redo_action.setText(f"&Redo {_short(redo)}" if redo else "&Redo")
