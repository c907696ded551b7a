"""Roster sheets for the table: each side's order of battle by brigade, printed to PDF and read back
with pypdf: every unit, the right number of stand boxes with those lost struck through, Letter and
A4, a 150-unit side laid out without overlap, a brigade kept on one page unless it is longer than
one, the column headings on every page, names printed exactly as typed; the command line and the
File menu."""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest
from pypdf import PdfReader
from PySide6.QtWidgets import QDialog

from cli import main as cli
from gui.roster_print import BOX, STRUCK, TICKED, sheet_images, write_roster_pdf
from reports.roster_sheets import roster_sheets
from rules.actions import Override
from rules.battle.battle import Battle
from rules.battle.order_of_battle import Brigade, Brigadier, OrderOfBattle, Side
from rules.battle.unit import Unit
from rules.battle.words import UnitKind
from rules.tables import load_tables
from storage.game import Game
from storage.scenario import bundled_scenarios, load_bundled, load_demo


def fragments(pdf: Path) -> list[list[tuple[float, float, float, str]]]:
    """Each page's text as (x, y, font size, text), y growing down the page, as Qt wrote it."""
    pages = []
    for page in PdfReader(str(pdf)).pages:
        out: list[tuple[float, float, float, str]] = []

        def visit(text, cm, tm, font, size, out=out):
            t = " ".join(unicodedata.normalize("NFKC", text).split())
            if t:
                out.append((round(tm[4], 1), round(tm[5], 1), float(size), t))

        page.extract_text(visitor_text=visit)
        pages.append(out)
    return pages


def unit_rows(pages, unit_ids):
    """For each unit: (page, the y of its [id] line, the fragments of its row)."""
    found = {}
    for p, frags in enumerate(pages):
        for _x, y, _size, t in frags:
            if t.startswith("[") and t.endswith("]") and t[1:-1] in unit_ids:
                assert t[1:-1] not in found, f"{t} is printed twice"
                found[t[1:-1]] = (p, y)
    return found


def stands_cells(pages, found, stands_x):
    """Each unit's stand boxes: the box characters in the Stands column on its row."""
    out = {}
    for uid, (p, y_id) in found.items():
        # the boxes' line is the first in the column at or just above the [id] line
        cands = [
            f
            for f in pages[p]
            if abs(f[0] - stands_x) < 1 and f[1] <= y_id + 1 and set(f[3]) <= set(f"{BOX}{STRUCK} ")
        ]
        top = max(cands, key=lambda f: f[1])
        out[uid] = top[3]
    return out


@pytest.fixture
def played(tmp_path):
    g = Game.create(tmp_path / "oak.sqlite", load_demo(), seed=1)
    g.do(Override("unit", "va4", {"stands": 3, "micro_hits": 1, "markers": "disorder,smoke"}, "a hard turn"))
    g.do(Override("unit", "bkn14", {"stands": 0}, "routed"))
    g.do(Override("brigade", "garnett", {"state": "hesitant"}, "losses"))
    yield g
    g.close()


def test_the_sheets_hold_the_order_of_battle_by_brigade(played):
    b = played.battle
    sheets = roster_sheets(b, played.tables)
    assert [s.side for s in sheets] == ["Union", "Confederate"]
    csa = sheets[1]
    assert [br.name for br in csa.brigades] == ["Garnett's Brigade", "Branch's Brigade"]
    garnett = csa.brigades[0]
    assert garnett.brigadier == "Garnett" and garnett.attached_to == "4th Virginia"
    assert garnett.state == "hesitant" and garnett.staff_pips == 3
    va4 = next(u for u in csa.units if u.id == "va4")
    assert (va4.stands_start, va4.stands_lost, va4.micro_hits) == (5, 2, 1)
    assert va4.markers == ("disorder", "smoke") and va4.traits == "Rebel yell" and va4.quality == "Veteran"
    # a destroyed unit keeps its line: every box struck
    bkn = next(u for u in sheets[0].units if u.id == "bkn14")
    assert bkn.stands_lost == bkn.stands_start == 6
    battery = next(u for u in sheets[0].units if u.id == "batb4us")
    assert battery.battery and battery.stands_label == "sections" and battery.weapon == "3-in Ordnance Rifles"
    # one side, by id or name; a side the battle lacks is refused
    assert [s.side for s in roster_sheets(b, played.tables, side="csa")] == ["Confederate"]
    assert [s.side for s in roster_sheets(b, played.tables, side="union")] == ["Union"]
    with pytest.raises(ValueError, match="no side 'prussia'"):
        roster_sheets(b, played.tables, side="prussia")
    # a blank sheet leaves the Staff Pips and the state to fill in
    blank = roster_sheets(played.scenario, played.tables, blank=True)
    assert all(br.staff_pips is None and br.state is None for s in blank for br in s.brigades)


def test_the_pdf_holds_every_unit_and_the_right_stand_boxes(played, tmp_path):
    b = played.battle
    pdf = write_roster_pdf(roster_sheets(b, played.tables), tmp_path / "roster.pdf", "a4")
    pages = fragments(pdf)
    found = unit_rows(pages, set(b.units))
    assert set(found) == set(b.units)
    names = {t for page in pages for *_, t in page}
    for u in b.units.values():
        assert u.name in names
    # the Stands column starts where its heading does
    stands_x = next(x for page in pages for x, _y, _s, t in page if t.startswith("Stands (strike"))
    cells = stands_cells(pages, found, stands_x)
    for uid, u in b.units.items():
        text = cells[uid]
        assert text.count(BOX) + text.count(STRUCK) == u.stands_start, (uid, text)
        assert text.count(STRUCK) == u.stands_start - u.stands, (uid, text)
    assert cells["va4"] == f"{BOX} {BOX} {BOX} {STRUCK} {STRUCK}"
    # the 4th Virginia's micro-hit and its markers are ticked; Garnett's brigade is Hesitant
    p, y = found["va4"]
    row = [t for x, fy, _s, t in pages[p] if y - 60 < fy <= y + 1]
    assert f"{TICKED}D {TICKED}S {BOX}F {BOX}P {BOX}E" in row and TICKED in row
    text = " ".join(t for page in pages for *_, t in page)
    assert f"State {BOX} Steady {TICKED} Hesitant {BOX} Broken" in text


def test_letter_and_a4_landscape(played, tmp_path):
    sheets = roster_sheets(played.battle, played.tables)
    for paper, size in (("letter", (792, 612)), ("a4", (842, 595))):
        pdf = write_roster_pdf(sheets, tmp_path / f"{paper}.pdf", paper)
        box = PdfReader(str(pdf)).pages[0].mediabox
        assert (round(float(box.width)), round(float(box.height))) == size
    with pytest.raises(Exception, match="letter or a4"):
        write_roster_pdf(sheets, tmp_path / "x.pdf", "quarto")


def _big_side(units_per_side: int = 150) -> Battle:
    from benchmarks.generate import big_battle

    return big_battle(units_per_side=units_per_side, features=0)


def test_a_150_unit_side_prints_without_overlap_brigades_whole_and_headings_on_every_page(tmp_path):
    battle = _big_side()
    tables = load_tables()
    (sheet,) = roster_sheets(battle, tables, side="union")
    assert len(sheet.units) == 150
    pdf = write_roster_pdf([sheet], tmp_path / "big.pdf", "letter")
    pages = fragments(pdf)
    assert len(pages) > 5
    ids = {u.id for u in sheet.units}
    found = unit_rows(pages, ids)
    assert set(found) == ids
    heads = [f for f in pages[0] if f[3] in ("Unit [id]", "Kind", "Quality", "Formation", "Markers")]
    col_x = sorted({x for x, *_ in pages[0] if any(abs(x - h[0]) < 1 for h in heads)})
    for n, frags in enumerate(pages):
        # the column headings and the page number on every page
        texts = [t for *_, t in frags]
        assert "Unit [id]" in texts and "Stands (strike when lost)" in texts
        assert f"page {n + 1} of {len(pages)}" in texts
        foot_y = next(y for x, y, s, t in frags if t.startswith("page "))
        # no text runs into the foot, and none overlaps another in its column
        for _x, y, size, t in frags:
            if not t.startswith(("page ", "Brigadier ·")):
                assert y + size * 0.3 < foot_y - size, (n, t)
        columns: dict[float, list[tuple[float, float, str]]] = {}
        for x, y, size, t in frags:
            columns.setdefault(x, []).append((y, size, t))
        for x, col in columns.items():
            col.sort()
            for (y1, s1, t1), (y2, s2, t2) in zip(col, col[1:]):
                # a line's glyphs reach 0.8 of its size above its baseline and 0.22 below it
                assert y2 - y1 >= 0.22 * s1 + 0.8 * s2, f"page {n + 1}: {t1!r} and {t2!r} overlap at x={x}"
    # every unit line starts at a column: nothing is drawn between columns
    for frags in pages:
        for x, _y, _size, t in frags:
            if t.startswith("[") and t[1:-1] in ids:
                assert any(abs(x - c) < 1 for c in col_x)
    # a brigade of five is never split between pages
    for br in sheet.brigades:
        assert len({found[u.id][0] for u in br.units}) == 1, br.name


def test_a_brigade_longer_than_a_page_goes_on_over_the_next_with_its_heading(tmp_path):
    side = (Side("union", "Union"), Side("csa", "Confederacy"))
    brigades = {
        "big": Brigade("big", "The Long Brigade", "union", Brigadier("Hancock")),
        "small": Brigade("small", "The Short Brigade", "union", Brigadier("Caldwell")),
        "c": Brigade("c", "Rebels", "csa", Brigadier("Lee")),
    }
    units = [
        Unit(f"u{i}", f"{i + 1}th Regiment", "union", "big", UnitKind.INFANTRY, 4, 5, x=10, y=10)
        for i in range(45)
    ]
    units.insert(0, Unit("s0", "1st Short", "union", "small", UnitKind.INFANTRY, 5, 5, x=10, y=10))
    units.append(Unit("c0", "1st Rebel", "csa", "c", UnitKind.INFANTRY, 5, 5, x=10, y=40))
    oob = OrderOfBattle(
        side,
        {"small": brigades["small"], "big": brigades["big"], "c": brigades["c"]},
        {u.id: u for u in units},
    )
    battle = Battle("Long", oob, active_side="union")
    sheets = roster_sheets(battle, load_tables(), side="union")
    pdf = write_roster_pdf(sheets, tmp_path / "long.pdf", "a4")
    pages = fragments(pdf)
    found = unit_rows(pages, {u.id for u in units if u.side == "union"})
    assert len(found) == 46
    spread = sorted({found[f"u{i}"][0] for i in range(45)})
    assert len(spread) >= 3
    # it starts on the short brigade's page (it would not fit whole on any page)
    assert found["s0"][0] == found["u0"][0] == 0
    for p in spread[1:]:
        texts = [t for *_, t in pages[p]]
        assert any(t.startswith("The Long Brigade [big] (continued)") for t in texts)
    # the units in their order, page after page
    order = sorted((found[f"u{i}"][0], found[f"u{i}"][1], i) for i in range(45))
    assert [i for *_, i in order] == list(range(45))


def test_names_print_exactly_as_typed(tmp_path):
    b = load_demo()
    odd = '<b>Bad</b> & Co\'s "Own"'
    b = b.with_unit(replace(b.unit("va4"), name=odd))
    b = b.with_brigade(replace(b.brigades["garnett"], name="Garnett's <i>Brigade</i>"))
    pdf = write_roster_pdf(roster_sheets(b, load_tables(), side="csa"), tmp_path / "odd.pdf", "a4")
    text = [t for page in fragments(pdf) for *_, t in page]
    assert odd in text
    assert any(t.startswith("Garnett's <i>Brigade</i> [garnett]") for t in text)


@pytest.mark.parametrize("name", bundled_scenarios())
def test_every_bundled_scenario_prints_its_blank_sheets(name, tmp_path):
    """Every scenario that comes with Brigadier, the big one too when it is bundled."""
    battle = load_bundled(name)
    sheets = roster_sheets(battle, load_tables(), blank=True)
    pdf = write_roster_pdf(sheets, tmp_path / f"{name}.pdf", "letter")
    found = unit_rows(fragments(pdf), set(battle.units))
    assert set(found) == set(battle.units)
    # the pictures of the pages are laid out alike (one per page)
    assert len(sheet_images(sheets, "letter", dpi=30)) == len(PdfReader(str(pdf)).pages)


# -- the command line and the window ----------------------------------------------------------------


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_brigadier_roster_for_a_game_a_side_and_a_scenario(played, tmp_path, capsys):
    path = played.path
    played.close()
    out_pdf = tmp_path / "csa.pdf"
    code, out, err = run(capsys, "roster", path, "--side", "csa", "--pdf", out_pdf, "--paper", "letter")
    assert code == 0, err
    assert "roster sheets of Oak Ridge for Confederate (5 units)" in out
    texts = [t for page in fragments(out_pdf) for *_, t in page]
    assert "4th Virginia" in texts and "2nd Wisconsin" not in texts
    assert any("As it stands: Turn 1" in t for t in texts)
    # a bundled scenario by name, and a scenario file: blank sheets of every side
    code, out, err = run(capsys, "roster", "demo", "--pdf", tmp_path / "demo.pdf")
    assert code == 0 and "blank roster sheets of Oak Ridge for Union, Confederate (9 units)" in out
    scen = Path(__file__).resolve().parents[2] / "resources" / "scenarios" / "dunker_church.toml"
    code, out, err = run(capsys, "roster", scen, "--pdf", tmp_path / "dc.pdf")
    assert code == 0 and "The Dunker Church" in out
    # the game's own blank sheets, as its scenario began
    code, out, err = run(capsys, "roster", path, "--blank", "--pdf", tmp_path / "b.pdf")
    assert code == 0 and "blank roster sheets" in out
    blank = [t for page in fragments(tmp_path / "b.pdf") for *_, t in page]
    assert any("Blank sheet" in t for t in blank)
    # refusals: an unknown side, an existing file, a bad save; nothing is written
    code, _, err = run(capsys, "roster", path, "--side", "prussia", "--pdf", tmp_path / "p.pdf")
    assert code == 1 and "no side 'prussia'" in err and not (tmp_path / "p.pdf").exists()
    code, _, err = run(capsys, "roster", path, "--pdf", out_pdf)
    assert code == 1 and "already exists" in err
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not a game")
    code, _, err = run(capsys, "roster", bad, "--pdf", tmp_path / "q.pdf")
    assert code == 1 and not (tmp_path / "q.pdf").exists()


def test_file_menu_prints_and_exports_the_roster_sheets(played, tmp_path, qtbot, monkeypatch, answer):
    from PySide6.QtPrintSupport import QPrinter, QPrintPreviewDialog

    from gui import dialogs
    from gui.app import make_main_window

    path = str(played.path)
    played.close()
    win = make_main_window(path)
    qtbot.addWidget(win)
    texts = [a.text() for a in win.menus["file"].actions()]
    assert "Print &roster sheets…" in texts and "Export roster sheets to PDF…" in texts
    printed: list[int] = []

    def preview(dlg):
        assert isinstance(dlg, QPrintPreviewDialog)
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
        printer.setOutputFileName(str(tmp_path / "printed.pdf"))
        dlg.paintRequested.emit(printer)
        printed.append(1)
        return QDialog.DialogCode.Rejected

    answer.dialog(preview)
    win.print_roster_action.trigger()
    assert printed
    texts = [t for page in fragments(tmp_path / "printed.pdf") for *_, t in page]
    assert "4th Virginia" in texts and "2nd Wisconsin" in texts
    out = tmp_path / "export.pdf"
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(out))
    win.export_roster_action.trigger()
    texts = [t for page in fragments(out) for *_, t in page]
    assert "14th Brooklyn" in texts and any("journal entry 3" in t for t in texts)
    win.controller.close()
