"""What the main window prints and exports: the turn summary, a side's report, the roster sheets and
the map, on the paper chosen (File > Paper) or the locale's.

:class:`WindowOutputs` is a part of :class:`gui.main_window.MainWindow`. Each is previewed before
it is printed, or written all or nothing to a file the umpire names, never over a saved game.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings

from gui.paths import saves_dir


class WindowOutputs:
    """The printing and exporting of :class:`gui.main_window.MainWindow`."""

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
