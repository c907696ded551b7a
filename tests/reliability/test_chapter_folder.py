"""The club's copy of the chapters (the folder set in Preferences) cannot stop or slow the rules
reference.

Brigadier reads only the ordinary files inside the folder: a FIFO, a device, a socket or a link
that leads out of the folder is refused at once, and so is a file bigger than
:data:`gui.help.MAX_CHAPTER_BYTES`; each file refused is named below the reference with why, and
the other chapters still open. Each file is read once, however many rules are looked up and
however many keys are typed in the search, and read again only when it changes. A huge chapter is
shown in part, around the rule.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gui import help as rules_help

GOOD = "06. Our club's chapter\n\n[RULE-06-1.2] Our words on pips for an assault.\n\n[RULE-06-1.3] Eligibility.\n"


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "chapters"
    folder.mkdir()
    (folder / "ch06.txt").write_text(GOOD, encoding="utf-8")
    return folder


def _window(qtbot, folder: Path) -> rules_help.ReferenceWindow:
    rules_help.set_rulebook_folder(str(folder))
    w = rules_help.ReferenceWindow()
    qtbot.addWidget(w)
    return w


def _reads(monkeypatch, folder: Path) -> list[str]:
    """The names of the files of ``folder`` read from now on, one for each time one is read."""
    got: list[str] = []
    real = os.path.realpath(folder)
    read_text, path_read_text = getattr(rules_help, "read_text", None), Path.read_text

    def reading(path, *args, **kwargs):
        if os.path.dirname(os.path.realpath(path)) == real:
            got.append(os.path.basename(path))
        return read_text(path, *args, **kwargs)

    def path_reading(self, *args, **kwargs):
        if os.path.dirname(os.path.realpath(self)) == real:
            got.append(self.name)
        return path_read_text(self, *args, **kwargs)

    if read_text is not None:
        monkeypatch.setattr(rules_help, "read_text", reading)
    monkeypatch.setattr(Path, "read_text", path_reading)
    return got


@pytest.mark.timeout(10)
def test_a_fifo_in_the_folder_is_refused_at_once_and_the_chapters_still_open(qtbot, tmp_path):
    folder = _folder(tmp_path)
    os.mkfifo(folder / "ch04.txt")  # nothing ever writes to it: reading it would wait for ever
    os.mkfifo(tmp_path / "pipe")
    (folder / "ch05.md").symlink_to(folder / "ch04.txt")  # a link to it, inside the folder
    w = _window(qtbot, folder)
    said = w.source.text()
    assert "ch04.txt: this is a FIFO (named pipe), not a chapter" in said
    assert "ch05.md: this is a FIFO (named pipe), not a chapter" in said
    assert "chapter:RULE-06-1.2" in w.page.toHtml()
    assert w.show_chapter("RULE-06-1.2")
    assert "Our words on pips for an assault" in w.page.toPlainText()
    assert rules_help.chapter_of("RULE-06-1.3", folder)[0].name == "ch06.txt"
    # a rule in no chapter read: the page says which files were not read, and why
    assert not w.show_chapter("RULE-04-5.3")
    assert "ch04.txt: this is a FIFO (named pipe), not a chapter" in w.page.toPlainText()


@pytest.mark.timeout(10)
def test_a_fifo_is_not_waited_on_where_the_chapter_is_read(tmp_path):
    """The kind of file is asked of the file opened (without waiting), not of its name before: a
    file swapped for a FIFO between the listing of the folder and its reading is not waited on."""
    folder = _folder(tmp_path)
    os.mkfifo(folder / "ch04.txt")
    assert rules_help.chapter_of("RULE-04-5.3", folder) is None
    assert rules_help.chapter_of("RULE-06-1.2", folder)[0].name == "ch06.txt"


def test_a_link_to_a_file_outside_the_folder_is_not_read(qtbot, tmp_path, monkeypatch):
    folder = _folder(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("[RULE-03-1.1] Not the club's words.\n", encoding="utf-8")
    (folder / "ch03.txt").symlink_to(secret)
    (folder / "up.txt").symlink_to(Path("..") / "secret.txt")  # relative, the same file
    (folder / "copy.txt").symlink_to(folder / "ch06.txt")  # a link inside the folder is read
    reads = _reads(monkeypatch, folder)
    opened: list[str] = []
    os_open = os.open

    def opening(path, *args, **kwargs):
        opened.append(os.path.realpath(path))
        return os_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", opening)
    assert rules_help.chapter_of("RULE-03-1.1", folder) is None
    assert str(secret) not in opened
    assert "ch03.txt" not in reads and "up.txt" not in reads
    w = _window(qtbot, folder)
    assert "chapter:RULE-03-1.1" not in w.page.toHtml()
    assert "ch03.txt: it leads out of the folder" in w.source.text()
    assert "up.txt: it leads out of the folder" in w.source.text()
    assert not w.show_chapter("RULE-03-1.1")
    assert "Not the club's words" not in w.page.toPlainText()
    assert w.show_chapter("RULE-06-1.2")
    # the folder itself may be set through a link: its files are inside it
    linked = tmp_path / "linked"
    linked.symlink_to(folder)
    assert rules_help.chapter_of("RULE-06-1.2", linked)[0].name == "ch06.txt"
    assert str(secret) not in opened


def test_a_file_over_the_limit_is_refused_with_a_message_and_the_others_still_work(qtbot, tmp_path):
    folder = _folder(tmp_path)
    with open(folder / "ch04.txt", "wb") as f:  # sparse: 5 MB that take no room on the disk
        f.write(b"[RULE-04-5.3] words\n")
        f.truncate(5 * 2**20)
    w = _window(qtbot, folder)
    assert "ch04.txt: a chapter of 5,242,880 bytes is too big (at most 4,194,304)" in w.source.text()
    assert "chapter:RULE-04-5.3" not in w.page.toHtml() and "chapter:RULE-06-1.3" in w.page.toHtml()
    w.search.setText("pip")  # a search is not stopped by it
    assert "ch04.txt" in w.source.text()
    assert not w.show_chapter("RULE-04-5.3")  # said instead of the chapter
    assert "too big" in w.page.toPlainText()
    assert w.show_chapter("RULE-06-1.3")
    assert "Eligibility" in w.page.toPlainText()
    assert rules_help.chapter_of("RULE-04-5.3", folder) is None


def test_a_folder_of_many_big_chapters_is_read_up_to_a_limit_in_all(tmp_path, monkeypatch):
    folder = _folder(tmp_path)
    (folder / "ch07.txt").write_text("[RULE-07-1.1] " + "words " * 40, encoding="utf-8")
    monkeypatch.setattr(rules_help, "MAX_COPY_BYTES", 200, raising=False)
    club = rules_help.club_copy(folder)
    assert [c.path.name for c in club.chapters] == ["ch06.txt"]
    assert club.refused == (("ch07.txt", "the chapters come to more than 200 bytes; this one is not read"),)
    assert rules_help.chapter_of("RULE-07-1.1", folder) is None


def test_a_huge_chapter_of_one_line_is_shown_in_part_around_the_rule(tmp_path):
    folder = tmp_path / "chapters"
    folder.mkdir()
    line = "x" * 1_500_000 + " [RULE-04-5.3] The words of the rule. " + "y" * 1_500_000
    (folder / "ch04.txt").write_text(line + "\n" + "A paragraph.\n" * 50_000, encoding="utf-8")
    path, text = rules_help.chapter_of("RULE-04-5.3", folder)
    page = rules_help.chapter_html("RULE-04-5.3", path, text)
    assert len(page) < 500_000  # of a file of 3,650,038 characters
    assert "[RULE-04-5.3] The words of the rule." in page and "<a name='RULE-04-5.3'>" in page
    assert "characters of this paragraph not shown" in page and "paragraphs after these are not shown" in page
    # a club's chapter of kilobytes is shown whole
    small = rules_help.chapter_html("RULE-06-1.3", Path("ch06.txt"), GOOD)
    assert "not shown" not in small and "Our words on pips" in small and "Eligibility" in small


def test_each_file_is_read_once_however_many_rules_and_keys(qtbot, tmp_path, monkeypatch):
    folder = _folder(tmp_path)
    (folder / "ch04.txt").write_text(
        "".join(f"[RULE-04-{i}.1] rule {i}\n\n" for i in range(1, 9)), encoding="utf-8"
    )
    (folder / "notes.pdf").write_bytes(b"not a chapter")
    reads = _reads(monkeypatch, folder)
    w = _window(qtbot, folder)
    for key in "volley":
        w.search.setText(w.search.text() + key)
    for e in rules_help.entries():
        rules_help.chapter_of(e.id, folder)
        w.show_chapter(e.id)
        w.show_rule(e.id)
    assert len(rules_help.entries()) > 10
    assert sorted(reads) == ["ch04.txt", "ch06.txt"]
    # a file changed is read again, once; the other is not
    (folder / "ch06.txt").write_text(GOOD + "\n[RULE-06-9.9] A new rule.\n", encoding="utf-8")
    assert w.show_chapter("RULE-06-9.9")
    w.search.setText("")
    assert rules_help.chapter_of("RULE-06-1.2", folder) is not None
    assert sorted(reads) == ["ch04.txt", "ch06.txt", "ch06.txt"]


def test_a_chapter_with_a_byte_order_mark_or_a_wrong_byte_is_read(tmp_path):
    folder = tmp_path / "chapters"
    folder.mkdir()
    (folder / "ch03.txt").write_bytes(b"\xef\xbb\xbf[RULE-03-1.1] Windows wrote this.\n")
    (folder / "ch04.txt").write_bytes(b"[RULE-04-2.3] caf\xe9 words.\n")  # Latin-1, not UTF-8
    path, text = rules_help.chapter_of("RULE-03-1.1", folder)
    assert text == "[RULE-03-1.1] Windows wrote this.\n"
    assert "<p style=" in rules_help.chapter_html("RULE-03-1.1", path, text)
    assert rules_help.chapter_of("RULE-04-2.3", folder)[1] == "[RULE-04-2.3] caf\ufffd words.\n"


def _as_it_was(rid: str, folder: Path) -> tuple[str, str] | None:
    """The chapter of a rule as the chapters are meant to be searched: the first file (by name)
    whose text has the id, not run on into a longer one."""
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() in (".txt", ".md", ".html", ".htm"):
            text = p.read_bytes().decode("utf-8", errors="replace").removeprefix("\ufeff")
            if re.search(re.escape(rid) + r"(?![\d.])", text):
                return p.name, text
    return None


PIECES = ["[RULE-04-5.3]", "RULE-04-5.3.1", "RULE-04-5.31", "RULE-04-5.3.", "RULE-06-1.2", " words ", "\n"]
NAME = st.text(alphabet="abcdefxyz019_-. ", min_size=1, max_size=12).map(lambda s: s.strip(". ") or "x")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=st.dictionaries(
        st.tuples(NAME, st.sampled_from([".txt", ".md", ".HTM", ".pdf"])),
        st.tuples(
            st.lists(st.sampled_from(PIECES), max_size=8),
            st.sampled_from([b"", b"\xef\xbb\xbf"]),
            st.sampled_from([b"", b"\xff\xfe"]),
        ),
        max_size=5,
    ),
    rid=st.sampled_from(["RULE-04-5.3", "RULE-04-5.31", "RULE-06-1.2", "RULE-03-1.1"]),
)
@example(files={("a", ".txt"): (["RULE-04-5.3.1"], b"", b"")}, rid="RULE-04-5.3")
@example(
    files={("a", ".md"): (["RULE-04-5.31", "\n"], b"", b""), ("b", ".txt"): (["[RULE-04-5.3]"], b"", b"")},
    rid="RULE-04-5.3",
)
def test_the_chapter_of_a_rule_is_the_first_file_that_has_it(files, rid):
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        for (name, suffix), (pieces, bom, wrong) in files.items():
            (folder / (name + suffix)).write_bytes(bom + "".join(pieces).encode() + wrong)
        want = _as_it_was(rid, folder)
        got = rules_help.chapter_of(rid, folder)
        assert (None if got is None else (got[0].name, got[1])) == want
        # looked up again, from what was read
        assert rules_help.chapter_of(rid, folder) == got
