"""The turn summary: built from the journal, printed to PDF and HTML, from the menu and the command line.

The PDF's text is read back with a small pure-Python reader (:func:`pdf_pages_text`): Qt writes
each glyph with a Type0 font whose ToUnicode map gives the characters, so the test needs no
poppler or other PDF tool.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unicodedata
import zlib
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QLocale
from PySide6.QtGui import QPageSize, QTextDocument
from PySide6.QtPrintSupport import QPrintPreviewDialog
from PySide6.QtWidgets import QDialog

from gui import dialogs, report, report_html, report_pages
from gui.export import ReportError
from rules.actions import EndTurn, MoveUnit, NextPhase, Override, ReservePip, SpendPip
from rules.battle.words import Health
from rules.melee.melee import MeleeAction
from storage.game import Game
from storage.scenario import load_demo

# -- reading a PDF's text -------------------------------------------------------------------------


def _objects(data: bytes) -> dict[int, bytes]:
    return {int(m.group(1)): m.group(2) for m in re.finditer(rb"(\d+) 0 obj(.*?)endobj", data, re.S)}


def _stream(body: bytes) -> bytes:
    i = body.find(b"stream")
    raw = body[i + 6 :]
    raw = raw[2:] if raw[:2] == b"\r\n" else raw[1:]
    raw = raw[: raw.rfind(b"endstream")]
    return zlib.decompressobj().decompress(raw) if b"FlateDecode" in body[:i] else raw


def _cmap(text: bytes) -> dict[int, str]:
    out: dict[int, str] = {}
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", text, re.S):
        for lo, hi, rest in re.findall(
            rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(\[[^\]]*\]|<[0-9A-Fa-f]+>)", block
        ):
            lo, hi = int(lo, 16), int(hi, 16)
            if rest.startswith(b"["):
                for k, v in enumerate(re.findall(rb"<([0-9A-Fa-f]+)>", rest)):
                    out[lo + k] = bytes.fromhex(v.decode()).decode("utf-16-be")
            else:
                base = int(rest[1:-1], 16)
                for k in range(hi - lo + 1):
                    out[lo + k] = chr(base + k)
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", text, re.S):
        for c, v in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
            out[int(c, 16)] = bytes.fromhex(v.decode()).decode("utf-16-be")
    return out


def pdf_pages_text(path: Path) -> list[str]:
    """The text of each page of a PDF written by Qt, spaces collapsed, ligatures undone."""
    data = path.read_bytes()
    assert data.startswith(b"%PDF-"), "not a PDF file"
    objs = _objects(data)
    fonts = {}
    for n, body in objs.items():
        m = re.search(rb"/ToUnicode (\d+) 0 R", body)
        if m and b"/Type0" in body:
            fonts[n] = _cmap(_stream(objs[int(m.group(1))]))
    root = next(b for b in objs.values() if re.search(rb"/Type /Pages\b", b))
    kids = [int(k) for k in re.findall(rb"(\d+) 0 R", re.search(rb"/Kids\s*\[(.*?)\]", root, re.S).group(1))]
    pages = []
    for k in kids:
        page = objs[k]
        res = objs[int(re.search(rb"/Resources (\d+) 0 R", page).group(1))]
        fmap = {name: int(num) for name, num in re.findall(rb"/(F\d+) (\d+) 0 R", res)}
        content = _stream(objs[int(re.search(rb"/Contents (\d+) 0 R", page).group(1))])
        lines: list[str] = []
        cur: list[str] = []
        font: dict[int, str] = {}
        for tok in re.finditer(rb"/(F\d+) [\d.]+ Tf|<([0-9A-Fa-f]+)> Tj|(ET)", content):
            if tok.group(1):
                font = fonts.get(fmap.get(tok.group(1), -1), {})
            elif tok.group(2):
                h = tok.group(2).decode()
                cur.extend(font.get(int(h[i : i + 4], 16), "") for i in range(0, len(h), 4))
            else:
                lines.append("".join(cur))
                cur = []
        text = unicodedata.normalize("NFKC", " ".join(lines))
        pages.append(re.sub(r"\s+", " ", text))
    return pages


# -- a demo game with a few actions ---------------------------------------------------------------


@pytest.fixture
def demo(tmp_path):
    """The demo battle played for one turn: pips, a move, an Override that costs stands, a melee."""
    g = Game.create(tmp_path / "demo.sqlite", load_demo())
    evs = {}
    evs["spend"] = g.do(SpendPip("garnett", "the advance"))
    evs["reserve"] = g.do(ReservePip("branch"))
    evs["phase"] = g.do(NextPhase())
    evs["move"] = g.do(MoveUnit("va4", 34.0, 20.0, 0.0))
    evs["override"] = g.do(
        Override("unit", "va5", {"stands": 3, "markers": ["disorder"]}, "Flank fire agreed at the table")
    )
    evs["melee"] = g.do(MeleeAction("ga8", "ind19"))
    evs["end"] = g.do(EndTurn())
    g.evs = evs
    yield g
    g.close()


def _stands(ev, uid):
    before, after = ev.changes.units[uid]
    return before["stands"], after["stands"]


def test_demo_turn_report_pdf_holds_the_turns_events_and_the_unit_table(demo, tmp_path, qapp):
    out = tmp_path / "turn1.pdf"
    report.write_turn_pdf(demo, 1, out)
    pages = pdf_pages_text(out)
    assert len(pages) >= 3
    text = " ".join(pages)
    assert "Oak Ridge — turn 1" in pages[0]
    for ev in demo.evs.values():
        assert f"#{ev.seq}" in text
    # the events in plain words, with the dice and the rule citations of the melee
    assert demo.evs["override"].summary in text
    assert "Reason: Flank fire agreed at the table" in text
    assert demo.evs["melee"].summary in text
    shock = demo.evs["melee"].steps[0]
    assert f"dice {shock.dice[0]}" in text and "[RULE-06-3.2]" in text and "[RULE-06-4.3]" in text
    # the unit table at the end of the turn: 5th Virginia with 3 of 5 stands, Worn, Disordered
    table = next(p for p in pages if "The units at the end of turn 1" in p and "Position" in p)
    assert re.search(r"5th Virginia Garnett's Brigade Line 3/5 Worn Disorder", table)
    assert "Battery B, 4th US Artillery" in table and "8th Georgia" in table
    # every page has its footer
    assert all(f"page {i + 1} of {len(pages)}" in p for i, p in enumerate(pages))


def test_demo_turn_report_html_file_holds_the_same_text_and_its_pictures(demo, tmp_path, qapp):
    out = tmp_path / "turn1.html"
    report.write_turn_html(demo, 1, out)
    text = out.read_text(encoding="utf-8")
    assert "<h1>Oak Ridge — turn 1</h1>" in text
    assert text.count("data:image/png;base64,") == 2  # the battlefield and the strength chart
    doc = QTextDocument()
    doc.setHtml(text)
    plain = doc.toPlainText()
    assert demo.evs["melee"].summary in plain
    assert "The units at the end of turn 1" in plain


def test_casualties_per_unit_brigade_and_side_come_from_the_recorded_changes(demo):
    s = report.build_turn_summary(demo, 1)
    va5_before, va5_after = _stands(demo.evs["override"], "va5")
    ind_before, ind_after = _stands(demo.evs["melee"], "ind19")
    assert (va5_before, va5_after) == (5, 3)
    assert s.losses_of("va5").lost == 2 and s.losses_of("va5").stands_after == 3
    assert s.losses_of("ind19").lost == ind_before - ind_after == 1
    brig = {b.id: b for b in s.brigade_losses}
    assert brig["garnett"].lost == 2 and brig["branch"].lost == 0
    assert brig["iron"].lost == 1 and brig["iron"].stands_before - brig["iron"].stands_after == 1
    sides = {x.id: x for x in s.side_losses}
    assert sides["csa"].lost == 2 and sides["union"].lost == 1
    assert s.strength["csa"] == (24, 22) and s.strength["union"] == (19, 18)


def test_an_override_giving_stands_back_counts_as_restored_not_lost(tmp_path):
    g = Game.create(tmp_path / "g.sqlite", load_demo())
    g.do(Override("unit", "va5", {"stands": 3}, "volley"))
    g.do(Override("unit", "va5", {"stands": 4}, "stragglers rejoin"))
    s = report.build_turn_summary(g, 1)
    assert (s.losses_of("va5").lost, s.losses_of("va5").restored) == (2, 1)
    g.close()


def test_event_headings_in_the_report_and_the_log_come_from_one_helper(demo, qapp):
    from gui import log_text, log_view
    from rules.battle.words import Phase

    s = report.build_turn_summary(demo, 1)
    end = demo.battle
    assert [e.side for e in s.events] == [end.oob.side_name(ev.side) for ev in demo.events(1)]
    phases = {e.phase for e in s.events}
    assert Phase.title_of("command") in phases and Phase.title_of("maneuver") in phases
    # one helper: neither module keeps a copy of its own
    assert not hasattr(report, "_phase_title") and not hasattr(report, "_side_name")
    assert not hasattr(log_view, "phase_title") and not hasattr(log_text, "phase_title")
    ev = demo.evs["move"]
    html = log_text.event_html(ev, {"csa": end.oob.side_name("csa")})
    assert Phase.title_of(ev.phase).replace("&", "&amp;") in html and end.oob.side_name("csa") in html


def test_staff_pips_spent_reserved_allotted_and_lapsed(demo):
    s = report.build_turn_summary(demo, 1)
    pips = {p.brigade_id: p for p in s.pips}
    allowance = int(demo.tables.value("command.staff_pips.per_brigade_per_turn"))
    assert (pips["garnett"].spent, pips["garnett"].reserved) == (1, 0)
    assert (pips["branch"].spent, pips["branch"].reserved, pips["branch"].reserved_after) == (0, 1, 1)
    # the Iron Brigade's reserved pip lapses at the end of the Confederate turn (RULE-04-1.3)
    assert pips["iron"].lapsed == 1 and pips["iron"].reserved_spent == 0
    assert pips["iron"].allotted == pips["cutler"].allotted == allowance


def test_unspent_pips_lapse_when_the_next_phase_1_sets_the_allowance(demo):
    demo.do(NextPhase())
    demo.do(EndTurn())  # turn 2: the Confederate brigades get their allowance again
    allowance = int(demo.tables.value("command.staff_pips.per_brigade_per_turn"))
    pips = {p.brigade_id: p for p in report.build_turn_summary(demo, 1).pips}
    # Garnett had 3, spent 1 and kept 2, which lapse; Branch reserved 1 and kept 2
    assert (pips["garnett"].spent, pips["garnett"].allotted, pips["garnett"].lapsed) == (1, allowance, 2)
    assert (pips["branch"].reserved, pips["branch"].lapsed) == (1, 2 + 1)  # 2 unspent, 1 reserved unused
    assert pips["garnett"].pips_after == allowance
    # the pool the turn began with: the scenario's 3, so that start, allotted, spent, lapsed and
    # now add up (3 + 3 - 1 - 2 = 3)
    g = pips["garnett"]
    assert (g.pips_before, g.reserved_before) == (3, 0)
    assert g.pips_before + g.allotted - g.spent - g.reserved - g.lapsed == g.pips_after


def test_a_reserved_pip_spent_is_not_counted_as_lapsed(tmp_path):
    g = Game.create(tmp_path / "g.sqlite", load_demo())
    g.do(SpendPip("iron", "Refuse the Flank", reserved=True))
    pips = {p.brigade_id: p for p in report.build_turn_summary(g, 1).pips}
    assert (pips["iron"].reserved_spent, pips["iron"].lapsed, pips["iron"].spent) == (1, 0, 0)
    g.close()


@pytest.mark.parametrize(
    ("stands", "health"),
    [(4, None), (3, Health.WORN), (1, Health.SPENT), (0, Health.DESTROYED)],
)
def test_rule_06_3_3_health_changes_at_the_fresh_and_spent_thresholds(tmp_path, stands, health):
    """5th Virginia starts with 5 stands: 4 (80%) is still Fresh, 3 (60%) is Worn, 1 (20%) Spent."""
    g = Game.create(tmp_path / "g.sqlite", load_demo())
    g.do(Override("unit", "va5", {"stands": stands}, "casualties"))
    s = report.build_turn_summary(g, 1)
    if health is None:
        assert s.health == ()
    else:
        (h,) = s.health
        assert (h.unit_id, h.before, h.after) == ("va5", "fresh", health.value)
        assert h.destroyed == (health == Health.DESTROYED)
    g.close()


def test_markers_gained_and_lost_are_listed_with_their_event(tmp_path):
    g = Game.create(tmp_path / "g.sqlite", load_demo())
    e1 = g.do(Override("unit", "va5", {"markers": ["disorder", "fired"]}, "volley"))
    e2 = g.do(Override("unit", "va5", {"markers": ["fired"]}, "rallied"))
    s = report.build_turn_summary(g, 1)
    assert [(m.seq, m.gained, m.lost) for m in s.markers] == [
        (e1.seq, ("Disorder", "Fired"), ()),
        (e2.seq, (), ("Disorder",)),
    ]
    g.close()


def test_melee_results_are_the_melee_and_charge_events(demo):
    s = report.build_turn_summary(demo, 1)
    assert [m.seq for m in s.melee] == [demo.evs["melee"].seq]


def test_names_a_club_typed_are_printed_literally(tmp_path, qapp):
    battle = load_demo()
    u = battle.unit("va5")
    battle = battle.with_unit(replace(u, name="<b>Bad</b> & Co"))
    battle = replace(battle, name="Oak <Ridge> & 'Run'")
    g = Game.create(tmp_path / "g.sqlite", battle)
    g.do(Override("unit", "va5", {"stands": 4}, "<i>volley</i> & smoke"))
    s = report.build_turn_summary(g, 1)
    text = report_html.summary_html(s)
    assert "<b>Bad</b>" not in text and "<i>volley</i>" not in text
    assert "&lt;b&gt;Bad&lt;/b&gt; &amp; Co" in text
    doc = report.turn_document(s, g.tables, pictures=False)
    plain = doc.toPlainText()
    assert "<b>Bad</b> & Co" in plain and "<i>volley</i> & smoke" in plain
    assert "Oak <Ridge> & 'Run' — turn 1" in plain
    out = tmp_path / "g.pdf"
    report_pages.write_pdf(doc, out, "t")
    assert "<b>Bad</b> & Co" in " ".join(pdf_pages_text(out))
    g.close()


def test_a_turn_the_game_has_not_reached_is_refused(tmp_path):
    g = Game.create(tmp_path / "g.sqlite", load_demo())
    assert report.build_turn_summary(g, 1).events == ()  # the current turn, with nothing yet
    for bad in (0, 2, -1):
        with pytest.raises(ReportError, match="the game has turns 1 to 1"):
            report.build_turn_summary(g, bad)
    with pytest.raises(ReportError, match="whole number"):
        report.build_turn_summary(g, "1")
    g.close()


def test_each_turn_reports_only_its_own_events(demo):
    demo.do(NextPhase())  # Union Phase 2 of turn 1
    demo.do(EndTurn())  # the Union ends turn 1; turn 2 begins
    e = demo.do(Override("unit", "wis2", {"stands": 4}, "skirmish fire"))
    s2 = report.build_turn_summary(demo, 2)
    assert [x.seq for x in s2.events] == [e.seq]
    assert s2.losses_of("wis2").lost == 1 and s2.losses_of("va5") is None
    assert s2.strength["union"] == (19, 18, 17)
    s1 = report.build_turn_summary(demo, 1)
    assert e.seq not in [x.seq for x in s1.events]


def test_page_size_follows_the_locale(qapp):
    us = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
    uk = QLocale(QLocale.Language.English, QLocale.Country.UnitedKingdom)
    assert report_pages.page_size_for(us).id() == QPageSize.PageSizeId.Letter
    assert report_pages.page_size_for(uk).id() == QPageSize.PageSizeId.A4


def test_pdf_on_letter_paper_for_a_us_locale(demo, tmp_path, qapp):
    out = tmp_path / "letter.pdf"
    us = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
    report.write_turn_pdf(demo, 1, out, locale=us)
    assert b"/MediaBox [0 0 612" in out.read_bytes()  # 8.5" x 11" is 612 x 792 points


def test_pictures_of_the_pages_match_the_pdf_pages(demo, tmp_path, qapp):
    s = report.build_turn_summary(demo, 1)
    doc = report.turn_document(s, demo.tables)
    out = tmp_path / "t.pdf"
    report_pages.write_pdf(doc, out, "t")
    images = report_pages.page_images(doc, dpi=60)
    assert len(images) == len(pdf_pages_text(out))
    assert abs(images[0].width() - 210 / 25.4 * 60) < 1.5  # A4 here (the test locale is not the US)


def test_writing_to_a_missing_folder_is_a_clear_error(demo, tmp_path, qapp):
    with pytest.raises(ReportError, match="there is no folder"):
        report.write_turn_pdf(demo, 1, tmp_path / "nowhere" / "t.pdf")
    with pytest.raises(ReportError, match="there is no folder"):
        report.write_turn_html(demo, 1, tmp_path / "nowhere" / "t.html")


# -- the command line, with no display --------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_cli_report_writes_pdf_and_html_without_a_display(demo, tmp_path):
    path = str(demo.path)
    demo.close()
    pdf, htm = tmp_path / "r.pdf", tmp_path / "r.html"
    r = _cli("report", path, "--turn", "1", "--pdf", str(pdf), "--html", str(htm))
    assert r.returncode == 0, r.stderr
    assert "Oak Ridge — turn 1" in pdf_pages_text(pdf)[0]
    assert "<h1>Oak Ridge — turn 1</h1>" in htm.read_text(encoding="utf-8")


def test_cli_report_refuses_a_turn_not_played_and_a_bad_file(demo, tmp_path):
    path = str(demo.path)
    demo.close()
    r = _cli("report", path, "--turn", "3", "--pdf", str(tmp_path / "x.pdf"))
    assert r.returncode == 1 and "turns 1 to 1" in r.stderr and not (tmp_path / "x.pdf").exists()
    bad = tmp_path / "bad.sqlite"
    bad.write_text("not a game")
    r = _cli("report", str(bad), "--turn", "1", "--pdf", str(tmp_path / "y.pdf"))
    assert r.returncode == 1 and "not a Brigadier save" in r.stderr
    r = _cli("report", path, "--turn", "1")
    assert r.returncode != 0 and "--pdf" in r.stderr


def test_cli_export_map_writes_a_png_without_a_display(demo, tmp_path):
    path = str(demo.path)
    demo.close()
    out = tmp_path / "map.png"
    r = _cli("export-map", path, "--png", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = _cli("export-map", path, "--png", str(tmp_path / "no" / "map.png"))
    assert r.returncode == 1 and "there is no folder" in r.stderr


# -- the main window's File menu ----------------------------------------------------------------------


@pytest.fixture
def window(qtbot, game):
    from gui.app import make_main_window

    path = str(game.path)
    game.close()
    win = make_main_window(path)
    qtbot.addWidget(win)
    yield win
    win.controller.close()


def test_print_turn_summary_opens_the_preview_through_the_dialog_seam(window, monkeypatch):
    window.controller.run(MoveUnit(unit_id="wis2", x=21.0, y=35.0))
    seen = []

    def fake_exec(dlg):
        seen.append(dlg)
        return QDialog.DialogCode.Rejected

    monkeypatch.setattr(dialogs, "exec_dialog", fake_exec)
    window.print_action.trigger()
    assert isinstance(seen[0], QPrintPreviewDialog)
    assert "2nd Wisconsin moves" in window.turn_summary_html()


def test_the_preview_prints_the_summary_on_a_pdf_printer(window, monkeypatch, tmp_path):
    from PySide6.QtPrintSupport import QPrinter

    window.controller.run(MoveUnit(unit_id="wis2", x=21.0, y=35.0))
    out = tmp_path / "printed.pdf"

    def fake_exec(dlg):
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
        printer.setOutputFileName(str(out))
        dlg.paintRequested.emit(printer)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(dialogs, "exec_dialog", fake_exec)
    window.print_action.trigger()
    pages = pdf_pages_text(out)
    assert "Small battle — turn 1" in pages[0] and "2nd Wisconsin moves" in pages[0]
    assert pages[-1].endswith(f"page {len(pages)} of {len(pages)}")


def test_export_turn_summary_to_pdf_from_the_file_menu(window, monkeypatch, tmp_path):
    window.controller.run(MoveUnit(unit_id="wis2", x=21.0, y=35.0))
    out = tmp_path / "summary.pdf"
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(out))
    assert window.export_summary_action in window.menus["file"].actions()
    window.export_summary_action.trigger()
    text = " ".join(pdf_pages_text(out))
    assert "Small battle — turn 1" in text and "2nd Wisconsin moves" in text


def test_the_pdf_text_starts_at_the_15mm_margin_not_twice_it(demo, tmp_path, qapp):
    out = tmp_path / "t.pdf"
    report.write_turn_pdf(demo, 1, out)
    objs = _objects(out.read_bytes())
    root = next(b for b in objs.values() if re.search(rb"/Type /Pages\b", b))
    first = int(re.search(rb"/Kids\s*\[\s*(\d+) 0 R", root).group(1))
    content = _stream(objs[int(re.search(rb"/Contents (\d+) 0 R", objs[first]).group(1))])
    origin_x = float(re.search(rb"[\d.\-]+ 0 0 [\d.\-]+ ([\d.\-]+) [\d.\-]+ cm", content).group(1))
    first_text_x = float(re.search(rb"Tm\s+([\d.\-]+) [\d.\-]+ Td", content).group(1))
    assert origin_x == pytest.approx(15 / 25.4 * 72, abs=0.5)  # 15 mm in points
    assert first_text_x == pytest.approx(0, abs=1)


@pytest.mark.parametrize(
    ("env", "usable"),
    [
        ({}, False),
        ({"QT_QPA_PLATFORM": "xcb"}, False),
        ({"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0"}, True),
        ({"QT_QPA_PLATFORM": "wayland", "WAYLAND_DISPLAY": "wayland-0"}, True),
        ({"QT_QPA_PLATFORM": "offscreen"}, True),
    ],
)
def test_commands_draw_off_screen_unless_a_usable_platform_is_chosen(monkeypatch, env, usable):
    from gui import export

    for k in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert export._display_platform_usable() is usable


# -- a property: the casualties read from the changes agree with the battle before and after -----

_UNITS = ("wis2", "ind19", "btyB", "va4", "va27", "tx1")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(_UNITS), st.integers(0, 6)), min_size=1, max_size=6))
def test_casualties_from_the_changes_agree_with_the_stands_before_and_after(
    tmp_path_factory, small_battle, rulings
):
    g = Game.create(tmp_path_factory.mktemp("p") / "g.sqlite", small_battle)
    try:
        for uid, stands in rulings:
            u = g.battle.unit(uid)
            if stands <= u.stands_start and stands != u.stands:
                g.do(Override("unit", uid, {"stands": stands, "micro_hits": 0}, "ruling"))
        s = report.build_turn_summary(g, 1)
        for side in s.side_losses:
            assert side.stands_before - side.lost + side.restored == side.stands_after
        for b in s.brigade_losses:
            assert b.stands_before - b.lost + b.restored == b.stands_after
        for u in s.unit_losses:
            assert u.stands_before - u.lost + u.restored == u.stands_after
        assert {h.unit_id for h in s.health} == {
            uid for uid in _UNITS if small_battle.unit(uid).health != g.battle.unit(uid).health
        }
    finally:
        g.close()
