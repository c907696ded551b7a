"""The after-action report: a map for every turn played with each unit's move as an arrow, the
turn's charges and melees with their rules, the losses, the course of the battle and each
brigade's losses; as a side knew it, no unit it did not see anywhere in it (read back from the
HTML and, with pypdf, from the PDF); nothing written to the save."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader
from PySide6.QtGui import QColor, QImage

from cli import main as cli
from gui import aar as aar_module
from reports.aar import Move, build_aar
from storage.game import Game
from tests.sight_game import SEEN_BY_CSA, UNSEEN_BY_CSA, UNSEEN_BY_UNION, sight_game
from tests.storage.conftest import fingerprint

MELEE_SAVE = Path(__file__).parent / "data" / "turn-2-melee-summary-loses-its-map.sqlite"


@pytest.fixture
def melee_game(tmp_path) -> Path:
    """A demo game whose second turn has a charge into a melee (turn 2 in progress)."""
    p = tmp_path / "melee.sqlite"
    shutil.copy(MELEE_SAVE, p)
    Game.open(p).close()  # brought up to this Brigadier's save format once
    return p


def _pdf_text(path: Path) -> str:
    text = "\n".join(page.extract_text() or "" for page in PdfReader(str(path)).pages)
    return re.sub(r"\s+", " ", text)


def test_the_report_tells_every_turn_with_its_map_charges_melees_and_losses(qtbot, melee_game, capsys):
    before = fingerprint(melee_game)
    html_out, pdf_out = melee_game.with_name("aar.html"), melee_game.with_name("aar.pdf")
    assert cli.main(["aar", str(melee_game), "--html", str(html_out), "--pdf", str(pdf_out)]) == 0
    assert fingerprint(melee_game) == before
    text = html_out.read_text()
    with Game.open(melee_game) as g:
        turns = list(range(1, g.battle.turn + 1))
        brigades = [b.name for b in g.battle.oob.brigades.values()]
    # a heading and a map for each turn played (the turn in hand told as far as it has gone),
    # and the course of the battle: pictures inside the file
    assert re.findall(r"<h2[^>]*>Turn (\d+)", text) == [str(t) for t in turns]
    assert "Turn 2 (in progress)" in text
    assert len(re.findall(r"<img src='data:image/jpeg;base64,", text)) == len(turns) + 1
    # turn 2's charge and melee, in words with their rules
    assert re.search(
        r"<b>Charge</b>: 5th Virginia charges into contact with 14th Brooklyn.*RULE-06-1\.2", text
    )
    assert re.search(r"<b>Melee</b>: 5th Virginia and 14th Brooklyn in melee.*RULE-06-4\.1", text)
    assert "Confederate lost 1 stand" in text
    for name in brigades:
        assert html.escape(name) in text
    assert "width=device-width" in text  # read on a phone
    pdf = _pdf_text(pdf_out)
    assert "Turn 1" in pdf and "Turn 2" in pdf and "Charge" in pdf and "RULE-06-1.2" in pdf
    assert all(name in pdf for name in brigades)
    assert len(PdfReader(str(pdf_out)).pages) >= len(turns) + 1  # a page for each turn, and the end


def test_each_units_move_in_a_turn_is_an_arrow_from_where_it_stood(qtbot, tmp_path):
    g = sight_game(tmp_path)
    try:
        story = build_aar(g).turns[0]
        start, end = g.scenario, g.state_at(story.end_seq)
        moved = {m.unit_id: m for m in story.moves}
        assert {"va4", "wis2", "ind19"} <= set(moved)
        for uid, m in moved.items():
            assert m.start == (start.unit(uid).x, start.unit(uid).y) and m.end == (
                end.unit(uid).x,
                end.unit(uid).y,
            )
        assert not {
            u for u in end.units if (end.unit(u).x, end.unit(u).y) == (start.unit(u).x, start.unit(u).y)
        } & set(moved)
    finally:
        g.close()
    # the turn's map carries them: drawn without its moves it is another picture
    from dataclasses import replace

    g = Game.open(tmp_path / "sight.sqlite")
    try:
        story = build_aar(g)
        turn = story.turns[0]
        with_moves = aar_module.turn_map(story, turn, g.tables)
        without = aar_module.turn_map(story, replace(turn, moves=()), g.tables)
        assert with_moves.size() == without.size() and with_moves != without
    finally:
        g.close()
    # an arrow is drawn in its side's colour along the move
    img = QImage(400, 200, QImage.Format.Format_ARGB32)
    img.fill(QColor("white"))
    aar_module.draw_moves(img, [Move("x", "X", "union", (2.0, 5.0), (18.0, 5.0))], 20.0, {"union": "#1f3a93"})
    mid = QColor(img.pixel(200, 100))
    assert mid.blue() > mid.red() + 40 and QColor(img.pixel(200, 160)) == QColor("white")


@pytest.mark.parametrize(("side", "unseen"), [("csa", UNSEEN_BY_CSA), ("union", UNSEEN_BY_UNION)])
def test_a_sides_report_holds_no_unit_it_did_not_see(qtbot, tmp_path, side, unseen):
    g = sight_game(tmp_path)
    path = g.path
    story = build_aar(g, side)
    hidden_ids = {u.id for u in g.battle.units.values() if u.name in unseen}
    for t in story.turns:
        assert not hidden_ids & set(t.battle.units) and not hidden_ids & set(t.battle.ghosts)
        assert not hidden_ids & {m.unit_id for m in t.moves}
    assert [f.side.id for f in story.forces] == [side]
    g.close()
    html_out, pdf_out = tmp_path / "side.html", tmp_path / "side.pdf"
    assert cli.main(["aar", str(path), "--html", str(html_out), "--pdf", str(pdf_out), "--side", side]) == 0
    text, pdf = html_out.read_text(), _pdf_text(pdf_out)
    for name in unseen:
        assert html.escape(name) not in text and name not in text and name not in pdf
    assert "side knew it" in text


def test_a_sides_maps_show_the_enemy_it_saw(qtbot, tmp_path):
    g = sight_game(tmp_path)
    try:
        last = build_aar(g, "csa").turns[-1].battle
        seen = {u.name for u in last.units.values() if u.side == "union"} | {
            gh.unit.name for gh in last.ghosts.values()
        }
        assert set(SEEN_BY_CSA) <= seen
    finally:
        g.close()


def test_an_unknown_side_or_no_output_is_refused_and_nothing_written(qtbot, tmp_path, capsys):
    g = sight_game(tmp_path)
    path = g.path
    g.close()
    assert cli.main(["aar", str(path), "--html", str(tmp_path / "x.html"), "--side", "nobody"]) == 1
    assert "nobody" in capsys.readouterr().err and not (tmp_path / "x.html").exists()
    assert cli.main(["aar", str(path)]) == 1
    assert "--html" in capsys.readouterr().err


def test_file_menu_exports_the_report(qtbot, tmp_path, window_on, monkeypatch):
    from gui import dialogs

    g = sight_game(tmp_path)
    win = window_on(g)
    menu = win.menus["aar"]
    menu.aboutToShow.emit()
    labels = [a.text() for a in menu.actions()]
    assert labels == [
        "&Everything (the umpire's)…",
        "As the Union side knew it…",
        "As the Confederate side knew it…",
    ]
    out = tmp_path / "story.html"
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(out))
    menu.actions()[2].trigger()
    text = out.read_text()
    assert "as the Confederate side knew it" in text
    for name in UNSEEN_BY_CSA:
        assert name not in text
