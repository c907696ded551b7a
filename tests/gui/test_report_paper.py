"""The turn summary on paper: every page printed has something on it, the map of the end of the turn
is in it, each side's units are under their side's heading, on A4 and on Letter; a big table's map
is printed large enough for its names to be read.

The evidence game (``data/turn-2-melee-summary-loses-its-map.sqlite``, the demo at turn 2 with a
melee) is a club's save whose summary once ended on an empty page: a heading kept with its table by
moving it to the next page left Qt's layout of the pages after it out of step, so the pages drawn
from it started at the wrong place (the Confederate heading of the units was left out) and the
map's page came out empty. The PDFs are read back with pypdf.
"""

from __future__ import annotations

import re
import shutil
import unicodedata
from pathlib import Path

import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from gui import report
from gui.export import ensure_application, framed_map
from rules.actions import EndTurn
from storage.game import Game
from storage.scenario import load_bundled

EVIDENCE = Path(__file__).parent / "data" / "turn-2-melee-summary-loses-its-map.sqlite"
PAPERS = ("a4", "letter")


# -- reading a PDF back -------------------------------------------------------------------------


def _words(text: str) -> str:
    """Spaces collapsed, ligatures undone ("ﬁ" is "fi")."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def page_texts(path: Path) -> list[str]:
    return [_words(p.extract_text()) for p in PdfReader(path).pages]


def _mul(a: list[float], b: list[float]) -> list[float]:
    """The product of two PDF matrices [a b c d e f]: ``a`` then ``b``."""
    return [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
        a[4] * b[0] + a[5] * b[2] + b[4],
        a[4] * b[1] + a[5] * b[3] + b[5],
    ]


def placed_images(reader: PdfReader, page_no: int) -> list[tuple[int, int, float, float, float, float]]:
    """The images drawn on a page: each its size in pixels and the box it is drawn in on the page
    (points: width, height, left, bottom), from the page's own drawing operations."""
    page = reader.pages[page_no]
    xobjects = page["/Resources"].get("/XObject", {})
    ctm, stack, out = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0], [], []
    for operands, op in ContentStream(page.get_contents(), reader).operations:
        if op == b"q":
            stack.append(ctm)
        elif op == b"Q":
            ctm = stack.pop()
        elif op == b"cm":
            ctm = _mul([float(v) for v in operands], ctm)
        elif op == b"Do" and operands[0] in xobjects:
            obj = xobjects[operands[0]].get_object()
            if obj.get("/Subtype") != "/Image":
                continue
            xs = [ctm[4], ctm[4] + ctm[0], ctm[4] + ctm[2], ctm[4] + ctm[0] + ctm[2]]
            ys = [ctm[5], ctm[5] + ctm[1], ctm[5] + ctm[3], ctm[5] + ctm[1] + ctm[3]]
            out.append(
                (
                    int(obj["/Width"]),
                    int(obj["/Height"]),
                    max(xs) - min(xs),
                    max(ys) - min(ys),
                    min(xs),
                    min(ys),
                )
            )
    return out


def _body(text: str, title: str, i: int, n: int) -> str:
    """A page's text less its running footer (the title and "page i of n")."""
    return _words(text.replace(f"page {i + 1} of {n}", "").replace(title, ""))


# -- the evidence: the demo at turn 2, with a melee -----------------------------------------------


@pytest.fixture
def evidence(tmp_path):
    path = tmp_path / "ev.sqlite"
    shutil.copyfile(EVIDENCE, path)
    g = Game.open(path)
    yield g
    g.close()


def check_summary(pdf: Path, paper: str) -> None:
    """The evidence game's turn 2 summary as it must be printed on ``paper``."""
    reader = PdfReader(pdf)
    width_pt = {"a4": 595, "letter": 612}[paper]
    assert round(float(reader.pages[0].mediabox.width)) == width_pt
    texts = page_texts(pdf)
    n = len(texts)
    title = "Oak Ridge — turn 2"
    # no empty page: each has more on it than its footer
    for i, t in enumerate(texts):
        assert f"page {i + 1} of {n}" in t
        assert len(_body(t, title, i, n).split()) >= 5, f"page {i + 1} of {n} is empty: {t!r}"
    # the units at the end of the turn: each side's heading over its own units, on one page only
    units = [i for i, t in enumerate(texts) if "The units at the end of turn 2" in t]
    assert len(units) == 1, units
    section = " ".join(texts[units[0] :])
    section = section[section.index("The units at the end of turn 2") :]
    union = section.index("■ Union Unit Brigade")
    confederate = section.index("■ Confederate Unit Brigade")
    assert union < section.index("2nd Wisconsin") < confederate < section.index("8th Georgia")
    # the map of the end of the turn: on the page of its heading, large, and within the page
    maps = [i for i, t in enumerate(texts) if "The battlefield at the end of turn 2" in t]
    assert len(maps) == 1, maps
    page = reader.pages[maps[0]]
    big = [im for im in placed_images(reader, maps[0]) if im[2] > 0.6 * float(page.mediabox.width)]
    assert len(big) == 1, placed_images(reader, maps[0])
    _w, _h, w, h, left, bottom = big[0]
    margin = 15 / 25.4 * 72
    assert left >= margin - 1 and left + w <= float(page.mediabox.width) - margin + 1
    assert bottom >= margin - 1 and bottom + h <= float(page.mediabox.height) - margin + 1
    assert "Union" in texts[maps[0]] and "Confederate" in texts[maps[0]]  # the key under it


@pytest.mark.parametrize("paper", PAPERS)
def test_the_evidence_summary_has_no_empty_page_its_map_and_both_sides_headings(
    evidence, tmp_path, qapp, paper
):
    out = tmp_path / f"ev-{paper}.pdf"
    report.write_turn_pdf(evidence, 2, out, paper=paper)
    check_summary(out, paper)


@pytest.mark.parametrize("paper", PAPERS)
def test_the_windows_export_of_the_evidence_summary_is_the_same(qtbot, tmp_path, monkeypatch, paper):
    from gui import dialogs
    from gui.app import make_main_window

    path = tmp_path / "ev.sqlite"
    shutil.copyfile(EVIDENCE, path)
    win = make_main_window(str(path))
    qtbot.addWidget(win)
    try:
        out = tmp_path / f"window-{paper}.pdf"
        monkeypatch.setattr(win, "paper", lambda: paper)
        monkeypatch.setattr(dialogs, "ask_save_path", lambda *a, **k: str(out))
        win.export_summary_action.trigger()
        check_summary(out, paper)
    finally:
        win.controller.close()


@pytest.mark.parametrize("paper", PAPERS)
def test_the_page_pictures_show_the_same_pages(evidence, qapp, paper):
    from PySide6.QtGui import QColor

    from gui import report_pages

    s = report.build_turn_summary(evidence, 2)
    doc = report.turn_document(s, evidence.tables)
    images = report_pages.page_images(doc, report_pages.page_layout_for(paper=paper), dpi=30)
    for i, img in enumerate(images):
        # something drawn above the footer's band: the foot of the page is 15 mm + 14 pt
        foot = round((15 / 25.4 + 14 / 72) * 30)
        inked = sum(
            1
            for y in range(0, img.height() - foot, 2)
            for x in range(0, img.width(), 2)
            if QColor(img.pixel(x, y)).lightness() < 200
        )
        assert inked > 50, f"page {i + 1} of {len(images)} is blank"


# -- the big table: its map legible on paper ------------------------------------------------------


@pytest.fixture(scope="module")
def gettysburg(tmp_path_factory):
    ensure_application()
    g = Game.create(tmp_path_factory.mktemp("g") / "g.sqlite", load_bundled("gettysburg"))
    g.do(EndTurn())
    yield g
    g.close()


def _placed_names(battle, tables, px_per_in: float) -> tuple[list[int], int]:
    """The pixel sizes of the units' names the map places at ``px_per_in``, and how many units."""
    from gui.canvas import BattlefieldScene
    from gui.controller import GameController
    from gui.export import _Drawn

    controller = GameController(_Drawn(battle, tables))
    scene = BattlefieldScene(controller)
    try:
        scene.set_item_caches(False)
        scene.set_show_names(True)
        scene.set_battle(battle)
        scene.layout_labels(px_per_in)
        units = [it for it in scene.units.values() if it.isVisible()]
        return [it.label.font().pixelSize() for it in units if it.name_placed], len(units)
    finally:
        scene.clear()
        scene.deleteLater()
        controller.deleteLater()


@pytest.mark.parametrize("paper", PAPERS)
def test_the_gettysburg_maps_names_print_at_six_points_at_least(gettysburg, tmp_path, paper):
    out = tmp_path / f"g-{paper}.pdf"
    report.write_turn_pdf(gettysburg, 1, out, paper=paper)
    reader = PdfReader(out)
    texts = page_texts(out)
    last = len(texts) - 1
    assert "The battlefield at the end of turn 1" in texts[last]
    page = reader.pages[last]
    (im,) = [im for im in placed_images(reader, last) if im[2] > 0.6 * float(page.mediabox.width)]
    _px_w, _px_h, w_pt, h_pt, _left, _bottom = im
    b = gettysburg.battle
    m = report.printed_map(b, gettysburg.tables)
    # the table's width runs along the page's height when the map is turned (the legend is
    # under the table, so the picture is exactly the table's width across)
    table_pt = h_pt if m.turned else w_pt
    pt_per_px = table_pt / (b.table_width_in * m.px_per_in)  # points a pixel of the map as placed
    sizes, units = _placed_names(b, gettysburg.tables, m.px_per_in)
    assert len(sizes) >= 0.95 * units  # (nearly) every unit is named at that scale
    assert min(sizes) * pt_per_px >= 6.0 - 0.05, (min(sizes), pt_per_px)
    # turned to print the long table larger: along the page's height
    assert m.turned and h_pt > w_pt
    # the page tells the reader how the table lies on it
    assert "turned on the page" in texts[last]


def test_a_small_tables_map_is_printed_upright_with_full_names(evidence, qapp):
    from gui.canvas import LabelLayout

    m = report.printed_map(evidence.battle, evidence.tables)
    assert not m.turned
    assert m.px_per_in >= LabelLayout.FULL_NAMES_PX and m.name_pt >= 6.0
    assert m.width <= report.MAP_BOX_PX[0] and m.height <= report.MAP_BOX_PX[1]


def test_the_scale_bars_words_are_whole_on_a_map_drawn_small(qapp):
    from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage

    b = load_bundled("gettysburg")
    mh = 40
    plain = QImage(round(b.table_width_in * 5), mh, QImage.Format.Format_ARGB32)
    plain.fill(QColor("white"))
    img = framed_map(plain, b, 5.0)  # a 12" bar is 60 pixels: its words are wider
    font = QFont()
    font.setPixelSize(13)
    words = QFontMetrics(font).horizontalAdvance("Scale (inches)")
    # the words over the bar, in the right-hand corner above the legend's first row
    inked = [
        x
        for x in range(img.width() - 220, img.width())
        for y in range(mh + 4, mh + 21)
        if QColor(img.pixel(x, y)).lightness() < 128
    ]
    assert inked and max(inked) - min(inked) >= 0.9 * words
    assert max(inked) < img.width() - 4


def test_a_picture_larger_than_the_page_is_made_smaller_to_fit_it(evidence, qapp):
    """Printed on a paper smaller than A4 or Letter (chosen in the print dialog), the map is made
    smaller to fit its page, never cut off at its foot nor carried over two pages."""
    from gui import report_pages

    s = report.build_turn_summary(evidence, 2)
    doc = report.turn_document(s, evidence.tables)
    d = report_pages.paged_document(doc, 400.0, 560.0)
    sizes = []
    block = d.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                sizes.append((fmt.toImageFormat().width(), fmt.toImageFormat().height()))
            it += 1
        block = block.next()
    assert len(sizes) == 2  # the map and the chart
    for w, h in sizes:
        assert 0 < w <= 400.0 + 0.01 and 0 < h <= 560.0 - report_pages.PICTURE_ROOM_PX + 0.01
    m = report.printed_map(s.battle_end, evidence.tables)
    assert sizes[-1][0] / sizes[-1][1] == pytest.approx(m.width / m.height, rel=0.01)  # as it was
