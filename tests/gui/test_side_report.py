"""A side's report of a turn: the turn as that side knew it, read back from the PDF with pypdf; the
command line's report --side, and its refusals."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pypdf
import pytest

from cli.main import main
from gui.side_report import side_summary_html, write_side_html, write_side_pdf
from reports.side_summary import build_side_summary
from storage.errors import ReportError
from tests.sight_game import SEEN_BY_CSA, UMPIRES_NOTE, UNSEEN_BY_CSA, UNSEEN_BY_UNION, sight_game


def pdf_text(path: Path) -> str:
    """The words of a PDF, read back with pypdf: ligatures (ﬁ) undone, whitespace single spaces."""
    reader = pypdf.PdfReader(str(path))
    text = unicodedata.normalize("NFKC", " ".join(page.extract_text() or "" for page in reader.pages))
    return " ".join(text.split())


@pytest.fixture
def game(tmp_path):
    g = sight_game(tmp_path)
    yield g
    g.close()


def test_the_confederate_report_holds_no_name_of_a_unit_they_did_not_see(game, tmp_path):
    out = write_side_pdf(game, 1, "csa", tmp_path / "csa.pdf")
    text = pdf_text(out)
    for name in UNSEEN_BY_CSA:
        assert name not in text
    assert "Wisconsin" not in text and "Minnesota" not in text
    assert UMPIRES_NOTE not in text
    # what they saw, and their own, are there: the read-back itself works
    for name in SEEN_BY_CSA:
        assert name in text
    assert "Hood's Texans" in text and "4th Virginia" in text
    assert "as the Confederate side saw it" in text
    assert "Battery B, 4th US Artillery fires at 4th Virginia" in text


def test_the_union_report_holds_no_name_of_the_hidden_texans(game, tmp_path):
    text = pdf_text(write_side_pdf(game, 1, "Union", tmp_path / "union.pdf"))
    for name in UNSEEN_BY_UNION:
        assert name not in text and "Texans" not in text
    assert "2nd Wisconsin" in text and "1st Minnesota" in text  # its own
    assert "2nd Wisconsin marches" in text  # its own actions in full


def test_the_html_report_holds_no_unseen_name_either(game, tmp_path):
    html = write_side_html(game, 1, "csa", tmp_path / "csa.html").read_text(encoding="utf-8")
    for name in UNSEEN_BY_CSA:
        assert name not in html
    assert "19th Indiana" in html


def test_the_report_gives_own_losses_in_full_and_the_enemy_as_far_as_seen(game):
    s = build_side_summary(game, 1, "union")
    assert s.side.name == "Union" and s.enemy.name == "Confederate"
    assert {u.name for u in s.units} >= {"2nd Wisconsin", "1st Minnesota", "19th Indiana"}
    assert all(u.side == "Union" for u in s.units)
    enemy = {u.id: u for u in s.enemy_units}
    assert "tx1" not in enemy and enemy["va4"].seen_now
    assert "Disorder" in enemy["va4"].markers
    assert all(p.side == "Union" for p in s.pips)
    # a ghost: a unit lost from sight in a later turn is listed "last seen"
    html = side_summary_html(s, None, None)
    assert "in sight" in html


def test_report_side_on_the_command_line(game, tmp_path, capsys):
    path = str(game.path)
    game.close()
    assert main(["report", path, "--turn", "1", "--side", "csa", "--pdf", str(tmp_path / "r.pdf")]) == 0
    assert "Wrote" in capsys.readouterr().out
    text = pdf_text(tmp_path / "r.pdf")
    assert not any(name in text for name in UNSEEN_BY_CSA)


def test_an_unknown_side_is_refused_with_a_clear_message_and_status_1(game, tmp_path, capsys):
    path = str(game.path)
    game.close()
    code = main(["report", path, "--turn", "1", "--side", "prussia", "--pdf", str(tmp_path / "r.pdf")])
    err = capsys.readouterr().err
    assert code == 1
    assert "there is no side 'prussia'" in err and "union (Union), csa (Confederate)" in err
    assert not (tmp_path / "r.pdf").exists()


def test_a_side_with_no_units_is_refused_with_a_clear_message_and_status_1(tmp_path, capsys):
    scenario = tmp_path / "lonely.toml"
    scenario.write_text(
        "[battle]\nname = 'Lonely'\nactive_side = 'a'\n"
        "[[sides]]\nid = 'a'\nname = 'Alpha'\n[[sides]]\nid = 'b'\nname = 'Bravo'\n"
        "[[brigades]]\nid = 'ab'\nside = 'a'\n"
        "[[units]]\nid = 'x'\nbrigade = 'ab'\nkind = 'infantry'\nstands = 4\nx = 10\ny = 10\n",
        encoding="utf-8",
    )
    assert main(["new", str(scenario), str(tmp_path / "l.sqlite")]) == 0
    capsys.readouterr()
    code = main(["report", str(tmp_path / "l.sqlite"), "--side", "Bravo", "--html", str(tmp_path / "b.html")])
    assert code == 1
    assert "the Bravo side has no units in Lonely" in capsys.readouterr().err
    assert not (tmp_path / "b.html").exists()


def test_build_side_summary_refuses_a_turn_not_reached(game):
    with pytest.raises(ReportError, match="turns 1 to 1, not 3"):
        build_side_summary(game, 3, "csa")


def test_file_export_side_report_writes_the_side_report_of_this_turn(qtbot, tmp_path, monkeypatch):
    from gui import dialogs
    from gui.main_window import MainWindow

    g = sight_game(tmp_path)
    win = MainWindow()
    qtbot.addWidget(win)
    win.controller.set_game(g, str(g.path))
    asked = []

    def save_path(parent, title, default, filters, suffix):
        asked.append((title, default))
        return str(tmp_path / "from-the-menu.pdf")

    monkeypatch.setattr(dialogs, "ask_save_path", save_path)
    menu = win.menus["side_reports"]
    menu.aboutToShow.emit()
    assert [a.text() for a in menu.actions()] == ["Union…", "Confederate…"]
    menu.actions()[1].trigger()
    assert asked[0][0] == "Export the Confederate side's report" and asked[0][1].endswith("turn-1-csa.pdf")
    text = pdf_text(tmp_path / "from-the-menu.pdf")
    assert "as the Confederate side saw it" in text
    assert not any(name in text for name in UNSEEN_BY_CSA)
    assert "side's report of turn 1 saved" in win.statusBar().currentMessage()
    # on the paper chosen for the summaries (File > Paper): US Letter is 612 x 792 points
    from pypdf import PdfReader

    win.paper_actions["letter"].trigger()  # File > Paper for summaries and reports > US Letter
    menu.actions()[1].trigger()
    box = PdfReader(tmp_path / "from-the-menu.pdf").pages[0].mediabox
    assert sorted((round(float(box.width)), round(float(box.height)))) == [612, 792]
    win.paper_actions["a4"].trigger()
    menu.actions()[1].trigger()
    box = PdfReader(tmp_path / "from-the-menu.pdf").pages[0].mediabox
    assert sorted((round(float(box.width)), round(float(box.height)))) == [595, 842]
