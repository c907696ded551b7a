"""Writing an output (a report, a map, a scenario, a new save) without ever destroying anything.

Two rules, for every file Brigadier writes other than a save's own journal:

* **Never the wrong file.** :func:`check_output` refuses a path that is a folder, a FIFO, a
  device or a socket, one that is a saved game open here (or its ``-wal`` or ``-shm`` file), and,
  for a report, a map or a scenario, any SQLite database: a saved game is never replaced by a
  PDF, even with ``--force``. An existing file is replaced only when the umpire said so.
* **All or nothing.** :func:`atomic_write` writes to a temporary file in the same folder, makes
  sure it is on the disk, then renames it into place (``os.replace``). A kill, a full disk or
  an error part way leaves the old file exactly as it was, and no empty or partial file under
  the output's name.

>>> import tempfile, os
>>> folder = tempfile.mkdtemp()
>>> p = atomic_write(os.path.join(folder, "a.txt"), "one")
>>> p.read_text(), sorted(os.listdir(folder))
('one', ['a.txt'])
"""

from __future__ import annotations

import glob
import os
import stat
import tempfile
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from storage.errors import ReportError
from storage.save_format import SQLITE_HEADER, companion_problem


class OutputError(ReportError):
    """An output that may not or cannot be written there; the message says why, in words."""


#: Saved games open in this process (``storage.game.Game`` adds itself), so that no output of
#: this process is ever written over one of them.
_OPEN_SAVES: weakref.WeakSet[Any] = weakref.WeakSet()

_PART = ".part"


def register_open_save(game: Any) -> None:
    _OPEN_SAVES.add(game)


def open_saves() -> list[Path]:
    """The files of the saved games open in this process."""
    out = []
    for g in list(_OPEN_SAVES):
        if not getattr(g, "_closed", True) and getattr(g, "path", None) is not None:
            out.append(Path(g.path))
    return out


def _kind(mode: int) -> str:
    from rules.limits import kind_of_file

    return kind_of_file(mode)


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def _is_sqlite(path: Path) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        return os.read(fd, len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False
    finally:
        os.close(fd)


def check_output(
    path: str | Path,
    *,
    force: bool = False,
    example: str = "out",
    protect: Iterable[str | Path] = (),
    save: bool = False,
) -> Path:
    """Where an output is about to be written, checked: a file name in an existing folder, not a
    folder, a FIFO, a device or a socket, not one of the saves in ``protect`` or open here (nor
    their ``-wal``, ``-shm`` files), and not any SQLite database unless ``save`` (a new game
    replacing an old one). An existing file only with ``force``. Raises :class:`OutputError`."""
    text = str(path)
    out = Path(path)
    if save and (problem := companion_problem(out.name)) is not None:
        raise OutputError(f"{out}: {problem}")
    if not text or text.endswith(("/", "\\")):
        raise OutputError(
            f"{text or 'an empty name'} names a folder, not a file; give a file name, like {out / example}"
        )
    guarded = [Path(p) for p in protect] + open_saves()
    for g in guarded:
        for companion in (g, Path(f"{g}-wal"), Path(f"{g}-shm"), Path(f"{g}-journal")):
            if _same(out, companion):
                raise OutputError(
                    f"{out} is the saved game {g.name}{'' if companion == g else ' (its ' + companion.name[len(g.name) :] + ' file)'}; "
                    "an output never replaces a save; choose another name"
                )
    try:
        st = os.stat(out)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(f"{out}: cannot be written ({exc.strerror})") from None
    if st is not None:
        kind = _kind(st.st_mode)
        if kind == "a folder":
            raise OutputError(f"{out} names a folder, not a file; give a file name, like {out / example}")
        if kind != "a file":
            raise OutputError(f"{out} is {kind}, not a file; Brigadier writes only ordinary files")
        if not save and _is_sqlite(out):
            raise OutputError(f"{out} is a saved game (an SQLite database); an output never replaces one")
        if not force:
            raise OutputError(
                f"{out}: a file of that name already exists; choose another name, or add --force"
            )
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"{out}: there is no folder {parent} to write it in")
    return out


def atomic_write(
    path: str | Path,
    content: str | bytes | Callable[[Path], Any],
    *,
    what: str = "the file",
    protect: Iterable[str | Path] = (),
    save: bool = False,
) -> Path:
    """Write ``content`` (text, bytes, or a function that writes the file named by its argument)
    to ``path`` all or nothing: through a temporary file in the same folder, made sure of on the
    disk, then renamed into place. The path is checked first as :func:`check_output` checks it
    (an existing ordinary file is replaced: the caller has asked the umpire). On any failure
    the old file is left as it was and the temporary file is removed; an :class:`OSError` is
    raised as :class:`OutputError` in words."""
    out = check_output(path, force=True, protect=protect, save=save)
    parent = out.parent if str(out.parent) else Path(".")
    _remove_leftovers(out)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=_PART, dir=parent)
    except OSError as exc:
        raise OutputError(f"{out}: {what} cannot be written there ({exc.strerror})") from None
    tmp = Path(tmp_name)
    try:
        try:
            if callable(content):
                os.close(fd)
                fd = -1
                content(tmp)
            else:
                data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
                view = memoryview(data)
                while view:
                    n = os.write(fd, view)
                    view = view[n:]
            if fd < 0:
                fd = os.open(tmp, os.O_RDONLY)
            os.fsync(fd)
        finally:
            if fd >= 0:
                os.close(fd)
        if tmp.stat().st_size == 0:
            raise OutputError(f"{out}: {what} could not be written (nothing was made)")
        _set_mode(tmp, out)
        os.replace(tmp, out)
        _sync_folder(parent)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise OutputError(f"{out}: {what} could not be written ({exc.strerror or exc})") from None
        raise
    return out


def _set_mode(tmp: Path, out: Path) -> None:
    """The new file gets the old one's permissions, or those a new file gets here."""
    try:
        mode = stat.S_IMODE(os.stat(out).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(tmp, mode)


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _remove_leftovers(out: Path) -> None:
    """Temporary files of an earlier write of this output that was killed part way."""
    parent = out.parent if str(out.parent) else Path(".")
    try:
        for p in parent.glob(f".{glob.escape(out.name)}.*{_PART}"):
            p.unlink(missing_ok=True)
    except OSError:
        pass


__all__ = ["OutputError", "atomic_write", "check_output", "open_saves", "register_open_save"]
