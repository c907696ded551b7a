"""The rules reference: for each rule id, what it governs, how Brigadier applies it and the numbers
it takes from the rule tables in force, in Brigadier's own words (``resources/help``).

* F1 (Help > Rules reference) opens it; it needs nothing but Brigadier itself, so it works on a
  fresh install with no setting at all.
* Every rule citation in the log and in the dialogs is a link (:func:`linkify`,
  :func:`connect_links`) that opens the reference at that rule (:func:`open_rule`).
* A club that has its own copy of the chapters sets their folder in Preferences
  (:func:`rulebook_folder`); each entry then also opens that copy at the rule, shown as it is
  written there.
"""

from __future__ import annotations

import html
import os
import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QUrl
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui import theme

# the citations as links, made with the window (the reference itself is read when first opened)
from gui.rule_ids import CHAPTER_SCHEME, RULE_ID, SCHEME, linkify, rule_of_link
from rules.errors import InvariantError
from rules.limits import read_text

#: Where the club's copy of the chapters is set (Preferences).
SETTING = "rulebook_dir"


@dataclass(frozen=True)
class Entry:
    """One rule of the reference."""

    id: str
    title: str
    governs: str
    applies: str

    @property
    def chapter(self) -> str:
        return self.id[5:7]


@lru_cache(maxsize=1)
def entries() -> tuple[Entry, ...]:
    """The reference's entries, in the order of the chapters."""
    text = resources.files("resources").joinpath("help", "rules_reference.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    return tuple(Entry(d["id"], d["title"], d["governs"], d["applies"]) for d in data["rule"])


def entry(rule_id: str) -> Entry | None:
    """The entry of a rule id (a citation such as "RULE-04-5.3 (Counter-Charge, 6.0)" is read as
    its id), or None."""
    m = RULE_ID.search(rule_id or "")
    if m is None:
        return None
    return next((e for e in entries() if e.id == m.group(0)), None)


# -- the club's copy of the chapters ---------------------------------------------------------------


def rulebook_folder() -> Path | None:
    """The folder of the club's copy of the chapters: as set in Preferences, else
    ``$BRIGADIER_RULEBOOK``, else a ``rulebook`` folder beside the program (as in development)."""
    candidates: list[Path] = []
    set_here = str(QSettings().value(SETTING, "") or "")
    if set_here:
        candidates.append(Path(set_here))
    env = os.environ.get("BRIGADIER_RULEBOOK")
    if env:
        candidates.append(Path(env))
    here = Path(__file__).resolve().parent.parent
    candidates += [here.parent / "shared" / "rulebook", here / "rulebook"]
    for c in candidates:
        if c.is_dir():
            return c
    return None


def set_rulebook_folder(path: str) -> None:
    s = QSettings()
    if path:
        s.setValue(SETTING, path)
    else:
        s.remove(SETTING)
    s.sync()


#: The largest chapter file read from the club's copy (a club's chapters are kilobytes), and the
#: most read from its folder in all; a bigger file is refused with a message, and the others read.
MAX_CHAPTER_BYTES = 4 * 2**20
MAX_COPY_BYTES = 32 * 2**20
#: The files of the folder that are chapters.
CHAPTER_SUFFIXES = (".txt", ".md", ".html", ".htm")


@dataclass(frozen=True)
class Chapter:
    """One file of the club's copy: its name in the folder, its text and the rule ids it holds."""

    path: Path
    text: str
    rules: frozenset[str]


@dataclass(frozen=True)
class ClubCopy:
    """The club's copy of the chapters as read from its folder: the chapters, and the files that
    were not read, each with why (file name, reason)."""

    folder: Path
    chapters: tuple[Chapter, ...]
    refused: tuple[tuple[str, str], ...]

    def chapter_of(self, rule_id: str) -> Chapter | None:
        """The first chapter (by file name) that holds ``rule_id``, or None."""
        return next((c for c in self.chapters if rule_id in c.rules), None)

    def refusals(self, most: int = 5) -> str:
        """The files not read, in words: "big.txt: ...; pipe.txt: ..." (the first ``most``)."""
        said = "; ".join(f"{name}: {why}" for name, why in self.refused[:most])
        more = len(self.refused) - most
        return said + (f"; and {more:,} more" if more > 0 else "")


def _cited(text: str) -> frozenset[str]:
    """The rule ids a chapter holds: each id not run on into a longer one (RULE-04-5.3, not the
    RULE-04-5.3 of RULE-04-5.3.1)."""
    return frozenset(m.group(0) for m in RULE_ID.finditer(text) if text[m.end() : m.end() + 1] != ".")


def _why(e: OSError) -> str:
    return e.strerror or type(e).__name__


# the files read of the club's copy (only the folder last read), by their path in the folder: what
# the file was when read (real path, inode, mtime, size) and what came of it (a chapter, or why not)
_read: dict[Path, dict[Path, tuple[tuple, Chapter | str]]] = {}


def _chapter(p: Path, root: Path, room: int, known: dict[Path, tuple[tuple, Chapter | str]]):
    """The chapter in the file ``p`` of the folder whose real path is ``root``, or why it is not
    read, and what it was when read. Only an ordinary file inside the folder is read, of at most
    :data:`MAX_CHAPTER_BYTES` (and ``room`` bytes); a file unchanged since it was last read is not
    read again."""
    try:
        real = p.resolve(strict=True)
        st = real.stat()
    except (OSError, RuntimeError) as e:  # gone, a broken link, a loop of links
        return None, f"cannot be read ({_why(e) if isinstance(e, OSError) else 'a loop of links'})"
    if real == root or not real.is_relative_to(root):
        return None, "it leads out of the folder (a link to a file elsewhere is not read)"
    key = (real, st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)
    old = known.get(p)
    if old is not None and old[0] == key:
        return key, old[1]
    # a FIFO, a device or a socket is refused by read_text, which opens nothing it would wait on
    if st.st_size > room and st.st_size <= MAX_CHAPTER_BYTES:
        return None, f"the chapters come to more than {MAX_COPY_BYTES:,} bytes; this one is not read"
    try:
        text = read_text(real, "a chapter", MAX_CHAPTER_BYTES)
    except InvariantError as e:
        return key, str(e)
    except UnicodeDecodeError as e:  # read as it is, a wrong byte shown as �
        text = bytes(e.object).decode("utf-8", errors="replace")
    except OSError as e:
        return None, f"cannot be read ({_why(e)})"
    text = text.removeprefix("\ufeff")
    return key, Chapter(p, text, _cited(text))


def club_copy(folder: Path) -> ClubCopy:
    """The club's copy of the chapters in ``folder``: every chapter file read (each once, until it
    changes), and the files refused with why. Nothing in the folder can stop Brigadier: a FIFO, a
    device, a socket or a link that leads out of the folder is never read, nor a file bigger than
    :data:`MAX_CHAPTER_BYTES`."""
    try:
        root = folder.resolve(strict=True)
        names = sorted(p for p in folder.iterdir() if p.suffix.lower() in CHAPTER_SUFFIXES)
    except (OSError, RuntimeError) as e:
        why = _why(e) if isinstance(e, OSError) else "a loop of links"
        return ClubCopy(folder, (), ((folder.name or str(folder), f"the folder cannot be read ({why})"),))
    known = _read.get(root, {})
    now: dict[Path, tuple[tuple, Chapter | str]] = {}
    chapters: list[Chapter] = []
    refused: list[tuple[str, str]] = []
    room = MAX_COPY_BYTES
    for p in names:
        key, got = _chapter(p, root, room, known)
        if key is not None:
            now[p] = (key, got)
        if isinstance(got, Chapter):
            chapters.append(got)
            room -= len(got.text)
        else:
            refused.append((p.name, got))
    _read.clear()
    _read[root] = now
    return ClubCopy(folder, tuple(chapters), tuple(refused))


def chapter_of(rule_id: str, folder: Path | None = None) -> tuple[Path, str] | None:
    """The file of the club's copy that holds ``rule_id`` (as ``[RULE-..]`` or the bare id), and
    its text; None if there is no copy or the rule is not in it."""
    folder = folder if folder is not None else rulebook_folder()
    if folder is None:
        return None
    m = RULE_ID.search(rule_id)
    if m is None:
        return None
    found = club_copy(folder).chapter_of(m.group(0))
    return None if found is None else (found.path, found.text)


#: The most of a chapter shown at once: each paragraph up to :data:`SHOWN_PARAGRAPH` characters, and
#: paragraphs around the rule's up to :data:`SHOWN_CHAPTER` characters in all. A club's chapter, of
#: kilobytes, is shown whole; a huge one (a file of one endless line) is shown in part, at once.
SHOWN_PARAGRAPH = 5_000
SHOWN_CHAPTER = 100_000


def _shown(para: str, at: int = 0) -> str:
    """A paragraph as shown: cut to :data:`SHOWN_PARAGRAPH` characters (about ``at``, where the
    rule is), saying how much is not shown."""
    if len(para) <= SHOWN_PARAGRAPH:
        return html.escape(para)
    start = max(0, min(at - SHOWN_PARAGRAPH // 2, len(para) - SHOWN_PARAGRAPH))
    end = start + SHOWN_PARAGRAPH
    cut = len(para) - SHOWN_PARAGRAPH
    return (
        ("… " if start else "")
        + html.escape(para[start:end])
        + (" …" if end < len(para) else "")
        + f" <i>({cut:,} characters of this paragraph not shown)</i>"
    )


def chapter_html(rule_id: str, path: Path, text: str) -> str:
    """The club's chapter as it is written, the rule's paragraph marked and an anchor at it (of a
    huge chapter, the paragraphs around the rule's, see :data:`SHOWN_CHAPTER`)."""
    rid = RULE_ID.search(rule_id).group(0)  # type: ignore[union-attr]
    paras = text.split("\n")
    m = re.search(re.escape(rid) + r"(?![\d.])", text)
    at = text.count("\n", 0, m.start()) if m is not None else 0
    col = m.start() - (text.rfind("\n", 0, m.start()) + 1) if m is not None else 0
    # the paragraphs shown: the rule's, then those after and before it in turn, while there is room
    lo = hi = at
    room = SHOWN_CHAPTER - min(len(paras[at]), SHOWN_PARAGRAPH)
    while room > 0 and (lo > 0 or hi < len(paras) - 1):
        if hi < len(paras) - 1:
            hi += 1
            room -= min(len(paras[hi]), SHOWN_PARAGRAPH) + 1
        if lo > 0 and room > 0:
            lo -= 1
            room -= min(len(paras[lo]), SHOWN_PARAGRAPH) + 1
    out = []
    if lo > 0:
        out.append(f"<p><i>… {lo:,} paragraphs before these are not shown (the file is too long)</i></p>")
    for i in range(lo, hi + 1):
        if m is not None and i == at:
            out.append(
                f"<a name='{rid}'></a><p style='background:{theme.tint('club_default')}'>"
                f"<b>{_shown(paras[i], col)}</b></p>"
            )
        else:
            esc = _shown(paras[i])
            out.append(f"<p>{esc}</p>" if esc.strip() else "")
    if hi < len(paras) - 1:
        after = len(paras) - 1 - hi
        out.append(f"<p><i>… {after:,} paragraphs after these are not shown (the file is too long)</i></p>")
    back = f"<p><a href='{SCHEME}:{rid}'>← Back to Brigadier's reference for {rid}</a></p>"
    return f"<h3>{html.escape(path.name)} (your club's copy)</h3>{back}{''.join(out)}{back}"


def refused_html(rule_id: str, club: ClubCopy) -> str:
    """In place of the chapter, when the rule is in none of the files read of the club's copy and
    some were not read: which, and why."""
    rows = "".join(
        f"<li><b>{html.escape(name)}</b>: {html.escape(why)}</li>" for name, why in club.refused[:50]
    )
    more = len(club.refused) - 50
    if more > 0:
        rows += f"<li>and {more:,} more</li>"
    back = f"<p><a href='{SCHEME}:{rule_id}'>← Back to Brigadier's reference for {rule_id}</a></p>"
    return (
        f"<h3>{rule_id} is not in the chapters read of your club's copy</h3>"
        f"<p>Some files of {html.escape(str(club.folder))} were not read:</p><ul>{rows}</ul>{back}"
    )


# -- the reference as a page --------------------------------------------------------------------------

_CHAPTERS = {
    "03": "Chapter 03 — Terrain, elevation, reverse slopes and line of sight",
    "04": "Chapter 04 — Defensive reactions and the Trigger Windows",
    "06": "Chapter 06 — Assaults, charges and melee",
    "07": "Chapter 07 — referred to by the chapters here",
}


def numbers_of(rule_id: str, tables) -> list:
    """The table entries a rule gives (their rule is this id), and the club defaults that stand
    in for it or say how it is read (their reason names it)."""
    if tables is None:
        return []
    pat = re.compile(re.escape(rule_id) + r"(?![\d.])")
    out = []
    for e in tables:
        if (e.rule and pat.match(e.rule)) or (e.club_default and pat.search(e.reason or "")):
            out.append(e)
    return out


def _value(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, list):
        return ", ".join(str(x) for x in v) or "none"
    return str(v)


def reference_html(tables=None, search: str = "", folder: Path | None = None) -> str:
    """The reference as one page: every entry (or those holding every word of ``search``), each
    with an anchor at its id, the numbers it takes from ``tables`` and, where the club's copy of
    the chapters has the rule, a link to it there."""
    words = search.lower().split()
    muted, link = theme.MUTED, theme.LINK
    parts = [
        "<h2>Rules reference</h2>",
        f"<p style='color:{muted}'>What each rule governs, how Brigadier applies it, and the numbers "
        "it takes from the rule tables in force (each from its rule, or a club default your club may "
        "change in Preferences). The chapters are the authority; this is Brigadier's guide to them, "
        "in its own words.</p>",
    ]
    club = club_copy(folder) if folder is not None else None
    chapter = None
    shown = 0
    for e in entries():
        nums = numbers_of(e.id, tables)
        hay = " ".join([e.id, e.title, e.governs, e.applies, *(n.key for n in nums)]).lower()
        if words and not all(w in hay for w in words):
            continue
        shown += 1
        if e.chapter != chapter:
            chapter = e.chapter
            parts.append(f"<h3>{html.escape(_CHAPTERS.get(chapter, 'Chapter ' + chapter))}</h3>")
        parts.append(
            f"<a name='{e.id}'></a><h4 style='margin-bottom:2px'>{e.id} — {html.escape(e.title)}</h4>"
            f"<p style='margin:2px 0'><b>Governs:</b> {linkify(html.escape(e.governs))}</p>"
            f"<p style='margin:2px 0'><b>In Brigadier:</b> {linkify(html.escape(e.applies))}</p>"
        )
        if nums:
            rows = "".join(
                f"<tr><td><code>{html.escape(n.key)}</code></td><td align='right'><b>{html.escape(_value(n.value))}</b></td>"
                f"<td>{html.escape(n.rule or 'club default')}{' (fixed)' if n.fixed else ''}"
                f"{' — set by your club' if n.overridden else ''}</td>"
                f"<td style='color:{muted}'>{html.escape(n.reason)}</td></tr>"
                for n in nums
            )
            parts.append(f"<table cellspacing='0' cellpadding='2' style='margin-left:12px'>{rows}</table>")
        if club is not None and club.chapter_of(e.id) is not None:
            parts.append(
                f"<p style='margin:2px 0'><a style='color:{link}' href='{CHAPTER_SCHEME}:{e.id}'>"
                f"Open your club's copy of the chapters at {e.id}</a></p>"
            )
    if not shown:
        parts.append(f"<p>No rule holds “{html.escape(search)}”.</p>")
    return "".join(parts)


# -- the window ---------------------------------------------------------------------------------------


class ReferenceWindow(QDialog):
    """The rules reference in a window of its own, beside the map (not modal): a search, and the
    page; a citation clicked anywhere brings it up at that rule."""

    def __init__(self, parent: QWidget | None = None, tables=None):
        super().__init__(parent)
        self.setObjectName("rules_reference")
        self.setWindowTitle("Rules reference — Brigadier")
        self.setModal(False)
        self.tables = tables
        lay = QVBoxLayout(self)
        top = QHBoxLayout()
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search the reference: a rule id, a word (volley, crest, pip …)")
        self.search.setClearButtonEnabled(True)
        top.addWidget(self.search, 1)
        self.back_button = QPushButton("Whole reference", self)
        self.back_button.setToolTip("Clear the search and show every rule")
        top.addWidget(self.back_button)
        lay.addLayout(top)
        self.page = QTextBrowser(self)
        self.page.setObjectName("reference_page")
        self.page.setOpenLinks(False)
        self.page.anchorClicked.connect(self._clicked)
        lay.addWidget(self.page, 1)
        self.source = QLabel(self)
        self.source.setWordWrap(True)
        self.source.setTextFormat(Qt.TextFormat.PlainText)  # a file's name is shown as it is
        self.source.setStyleSheet(f"color: {theme.MUTED};")
        lay.addWidget(self.source)
        self.search.textChanged.connect(self._render)
        self.back_button.clicked.connect(self.search.clear)
        self.resize(760, 620)
        self.current: str | None = None
        self.showing_chapter = False
        self._render()

    def set_tables(self, tables) -> None:
        self.tables = tables
        self._render()

    def _render(self, *_args) -> None:
        folder = self.folder = rulebook_folder()
        self.page.setHtml(reference_html(self.tables, self.search.text(), folder))
        self.showing_chapter = False
        self._say_source(folder)
        if self.current:
            self.page.scrollToAnchor(self.current)

    def _say_source(self, folder: Path | None, club: ClubCopy | None = None) -> None:
        """Below the page: the folder of the club's copy, and the files of it not read, with why."""
        if folder is None:
            self.source.setText(
                "No copy of the chapters is set (Preferences): the reference is Brigadier's own."
            )
            return
        club = club if club is not None else club_copy(folder)
        said = f"Your club's copy of the chapters: {folder}"
        if club.refused:
            said += f"\nNot read from it: {club.refusals()}"
        self.source.setText(said)

    def show_rule(self, rule_id: str) -> None:
        """Show the reference at ``rule_id`` (the whole reference, if a search hid it)."""
        e = entry(rule_id)
        if e is None:
            return
        self.current = e.id
        if self.search.text() or self.showing_chapter:
            self.search.blockSignals(True)
            self.search.clear()
            self.search.blockSignals(False)
            self._render()
        self.page.scrollToAnchor(e.id)

    def show_chapter(self, rule_id: str) -> bool:
        """Show the club's copy of the chapters at ``rule_id``; False if there is none with it."""
        m = RULE_ID.search(rule_id or "")
        folder = rulebook_folder()
        if m is None or folder is None:
            return False
        club = club_copy(folder)
        self._say_source(folder, club)
        found = club.chapter_of(m.group(0))
        if found is None:
            if club.refused:  # it may be in a file that was not read: say which, and why
                self.current = m.group(0)
                self.page.setHtml(refused_html(m.group(0), club))
                self.showing_chapter = True
            return False
        self.current = m.group(0)
        self.page.setHtml(chapter_html(rule_id, found.path, found.text))
        self.showing_chapter = True
        self.page.scrollToAnchor(self.current)
        return True

    def _clicked(self, url: QUrl) -> None:
        got = rule_of_link(url)
        if got is None:
            from PySide6.QtGui import QDesktopServices

            QDesktopServices.openUrl(url)
            return
        scheme, rid = got
        if scheme == CHAPTER_SCHEME:
            self.show_chapter(rid)
        else:
            self.show_rule(rid)


_window: list[ReferenceWindow] = []


def _main_window(parent: QWidget | None) -> QWidget | None:
    """The window a citation was clicked in, through any dialogs to the main window behind them."""
    top = parent.window() if parent is not None else QApplication.activeWindow()
    while top is not None and isinstance(top, QDialog) and top.parentWidget() is not None:
        top = top.parentWidget().window()  # the main window, not a dialog that may close
    return top


def reference_window(parent: QWidget | None = None) -> ReferenceWindow:
    """The reference's window of the main window ``parent`` is in (one at a time), made on first
    use; it reads the numbers of that window's game."""
    top = _main_window(parent)
    if _window:
        w = _window[0]
        try:
            if top is None or w.parentWidget() is top:
                return w
            w.close()
            w.deleteLater()
        except RuntimeError:  # its window was closed, and it with it
            pass
        _window.clear()
    tables = getattr(getattr(top, "controller", None), "tables", None)
    w = ReferenceWindow(top, tables)
    _window.append(w)
    return w


def open_rule(rule_id: str | None = None, parent: QWidget | None = None) -> ReferenceWindow:
    """Open the reference (at ``rule_id``, where given) and bring it to the front."""
    w = reference_window(parent)
    top = w.parentWidget()
    tables = getattr(getattr(top, "controller", None), "tables", None)
    if tables is not None and tables is not w.tables:
        w.set_tables(tables)  # the numbers of the tables in force now
    elif rulebook_folder() != w.folder:
        w._render()  # the club's copy of the chapters was set or cleared meanwhile
    w.show()
    w.raise_()
    if rule_id:
        w.show_rule(rule_id)
    return w
