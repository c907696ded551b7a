"""The main window's commands: the Game menu (next phase, end turn, reserve a Staff Pip, the combat
dialogs), Edit > Preferences, and Help (the rules reference, the club's chapters, About).

:class:`WindowCommands` is a part of :class:`gui.main_window.MainWindow`. :func:`open_folder` is the
seam through which the club's chapters folder is shown (the tests replace it).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QUrl
from PySide6.QtGui import QDesktopServices


def rulebook_dir() -> Path | None:
    """The folder of the club's copy of the chapters (set in Preferences; see
    :func:`gui.help.rulebook_folder`)."""
    from gui import help as rules_help

    return rules_help.rulebook_folder()


def open_folder(path: Path) -> None:
    """Show a folder in the desktop's file manager (a seam the tests replace)."""
    QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


class WindowCommands:
    """The Game menu, Preferences and Help of :class:`gui.main_window.MainWindow`."""

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

    def bring_on_arrivals(self) -> None:
        """Game > Bring on arrivals: the units due this Phase 2 come on (gui.arrivals)."""
        from gui.arrivals import bring_on_arrivals

        bring_on_arrivals(self)

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

    # -- preferences and help --------------------------------------------------------------
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

    def _log_row_activated(self, item, _column: int = 0) -> None:
        """A line of the log that cites a rule, double-clicked: the rules reference at that rule."""
        from gui import help as rules_help

        m = rules_help.RULE_ID.search(item.text(0) if item is not None else "")
        if m is not None:
            self.show_reference(m.group(0))
