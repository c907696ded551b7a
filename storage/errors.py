"""Typed errors of saved games, scenario files and reports, with messages a club umpire understands."""

from __future__ import annotations

from pathlib import Path


class StorageError(ValueError):
    """Something is wrong with a file Brigadier reads or writes."""


class SaveFileError(StorageError):
    """A saved game that cannot be opened or written: the message says which file and why.

    Opening a bad file never changes it.
    """

    def __init__(self, message: str, path: str | Path | None = None):
        self.path = str(path) if path is not None else None
        super().__init__(f"{self.path}: {message}" if self.path else message)
        self.problem = message


class ChangedElsewhereError(SaveFileError):
    """The save was changed by another copy of Brigadier (another window, the command line) since
    this copy read it. Nothing was written: the game must be read again before it is played on."""


class ScenarioError(StorageError):
    """A scenario file with a mistake. The message names the file, the line and the problem."""

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        self.path = str(path) if path is not None else None
        self.line = line
        self.problem = message
        where = ""
        if self.path is not None:
            where = f"{self.path}, line {line}: " if line is not None else f"{self.path}: "
        elif line is not None:
            where = f"line {line}: "
        super().__init__(where + message)


class ReportError(StorageError):
    """A report or picture that cannot be made or written; the message says why, in words."""
