"""The main window's games: opening one (a file, the last game played, a new game from a scenario or
the demo), saving a copy under a new name, the recent games, and a save dropped on the window.

:class:`WindowFiles` is a part of :class:`gui.main_window.MainWindow`. A new game shown at start-up
is written by its first action (:meth:`storage.game.Game.new`), and remembered as the last game and
a recent one once it is.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QSettings

from gui.paths import saves_dir
from rules.errors import RulesError

SAVE_FILTER = "Brigadier games (*.sqlite *.brigadier);;All files (*)"
SCENARIO_FILTER = "Scenarios (*.toml);;All files (*)"
MAX_RECENT = 8


class WindowFiles:
    """The games of :class:`gui.main_window.MainWindow`: opening, saving as, the recent games."""

    # -- the recent games -------------------------------------------------------------------
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

    def import_order_of_battle(self) -> str | None:
        """File > Import order of battle: a spreadsheet (CSV or XLSX, one row per unit) made a
        scenario file (:mod:`storage.oob_import`); every bad cell is said with its row and column,
        and nothing is written. Then, if the umpire wants, a new game from it. Returns the scenario
        written."""
        from gui import dialogs
        from storage.errors import StorageError
        from storage.oob_import import StrengthRule, import_oob

        src = dialogs.ask_open_path(
            self, "Import an order of battle", str(saves_dir()), "Spreadsheets (*.csv *.xlsx);;All files (*)"
        )
        if not src:
            return None
        default = str(saves_dir() / (Path(src).stem + ".toml"))
        out = dialogs.ask_save_path(self, "Save the scenario as", default, SCENARIO_FILTER, "toml")
        if not out:
            return None
        rule = StrengthRule()
        try:
            path, n = import_oob(src, out, rule)
        except StorageError as exc:
            problems = getattr(exc, "problems", None)
            text = "\n".join(problems[:20]) if problems else str(exc)
            dialogs.show_message(self, "Import order of battle", f"Nothing was written:\n{text}", "error")
            return None
        self.statusBar().showMessage(f"Scenario saved to {path}: {n} units", 15000)
        if dialogs.ask_yes_no(
            self,
            "Import order of battle",
            f"{path.name} has {n} units (strengths: {rule.words()}). Start a new game from it?",
        ):
            save = dialogs.ask_save_path(
                self,
                "Save the new game as",
                str(saves_dir() / (path.stem + ".sqlite")),
                SAVE_FILTER,
                "sqlite",
            )
            if save:
                self.start_new_game(str(path), save)
        return str(path)

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
