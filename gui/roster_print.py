"""Roster sheets on paper: each side's order of battle laid out page by page with QPainter, to a
printer (File > Print roster sheets, through QPrintPreviewDialog) or a PDF file (File > Export
roster sheets to PDF, ``brigadier roster``).

The sheets are landscape Letter or A4 (the locale's, or as asked). Each side begins on a page of
its own; each page has the side's title, the key to the boxes and the column headings at its top,
and "page i of n" at its foot. A brigade is kept on one page, and begins a new one rather than be
split, unless it is longer than a page: then it goes on over the next, its heading repeated with
"(continued)". Every name is drawn as plain text, exactly as the club typed it.

Boxes are the ballot-box characters, so a PDF reader (or a test, through pypdf) reads them as text:
☐ a box to strike, ☒ one struck (a stand lost, a pip gone), ☑ one ticked (a marker on the unit, the
brigade's state).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QLocale, QMarginsF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QPen,
)

from gui.export import ReportError, ensure_application
from reports.roster_sheets import (
    BRIGADE_STATES,
    MARKER_LETTERS,
    BrigadeBlock,
    SideSheet,
    UnitLine,
)

BOX, STRUCK, TICKED = "☐", "☒", "☑"

MARGIN_MM = 12.0
FONT_FAMILY = "DejaVu Sans"

#: The columns of a sheet: key, heading, share of the width (landscape Letter and A4 alike).
COLUMNS: tuple[tuple[str, str, float], ...] = (
    ("unit", "Unit [id]", 0.19),
    ("kind", "Kind", 0.08),
    ("quality", "Quality", 0.065),
    ("weapon", "Weapon / guns", 0.115),
    ("traits", "Traits", 0.075),
    ("formation", "Formation", 0.085),
    ("stands", "Stands (strike when lost)", 0.17),
    ("hits", "Micro-hit", 0.05),
    ("markers", "Markers", 0.17),
)

PAPERS = {"letter": QPageSize.PageSizeId.Letter, "a4": QPageSize.PageSizeId.A4}


def page_size_for(paper: str | None = None, locale: QLocale | None = None) -> QPageSize:
    """Letter or A4: as asked ("letter", "a4"), else the locale's (Letter in the US system)."""
    if paper:
        key = paper.strip().lower()
        if key not in PAPERS:
            raise ReportError(f"the paper is letter or a4, not {paper!r}")
        return QPageSize(PAPERS[key])
    loc = locale or QLocale.system()
    if loc.measurementSystem() == QLocale.MeasurementSystem.ImperialUSSystem:
        return QPageSize(QPageSize.PageSizeId.Letter)
    return QPageSize(QPageSize.PageSizeId.A4)


def page_layout_for(paper: str | None = None, locale: QLocale | None = None) -> QPageLayout:
    """The sheets' page: Letter or A4, landscape, 12 mm margins."""
    return QPageLayout(
        page_size_for(paper, locale),
        QPageLayout.Orientation.Landscape,
        QMarginsF(MARGIN_MM, MARGIN_MM, MARGIN_MM, MARGIN_MM),
        QPageLayout.Unit.Millimeter,
    )


def boxes(total: int, struck: int = 0, ticked: int = 0) -> str:
    """``total`` boxes: the last ``struck`` struck through, the first ``ticked`` ticked."""
    out = []
    for i in range(total):
        if i < ticked:
            out.append(TICKED)
        elif i >= total - struck:
            out.append(STRUCK)
        else:
            out.append(BOX)
    return " ".join(out)


def stand_boxes(u: UnitLine) -> str:
    """A unit's stands (a battery's sections): one box each, those lost struck."""
    return boxes(u.stands_start, struck=u.stands_lost)


def micro_boxes(u: UnitLine) -> str:
    return boxes(u.micro_boxes, ticked=u.micro_hits)


def marker_boxes(u: UnitLine) -> str:
    """A box for each marker, ticked where the unit has it, in two lines."""
    cells = [f"{TICKED if m.value in u.markers else BOX}{letter}" for m, letter in MARKER_LETTERS]
    half = (len(cells) + 1) // 2
    return "  ".join(cells[:half]) + "\n" + "  ".join(cells[half:])


def unit_cells(u: UnitLine) -> dict[str, str]:
    """The words of each column for a unit (the stands and marker boxes included)."""
    kind = u.kind + (f" of {u.parent}" if u.parent else "")
    return {
        "unit": u.name,
        "kind": kind,
        "quality": u.quality,
        "weapon": u.weapon,
        "traits": u.traits or "—",
        "formation": u.formation,
        "stands": stand_boxes(u),
        "hits": micro_boxes(u),
        "markers": marker_boxes(u),
    }


def pip_track(b: BrigadeBlock) -> str:
    """The brigade's Staff Pips and reserved pips as boxes (those gone struck), and its state."""
    if b.staff_pips is None:
        pips = boxes(b.pip_boxes)
        reserved = boxes(b.pip_boxes)
    else:
        pips = boxes(b.pip_boxes, struck=b.pip_boxes - b.staff_pips)
        reserved = boxes(b.pip_boxes, struck=b.pip_boxes - (b.staff_pips_reserved or 0))
    state = "  ".join(f"{TICKED if s.value == b.state else BOX} {s.label}" for s in BRIGADE_STATES)
    return f"Staff Pips {pips}   Reserved {reserved}   State {state}"


def brigade_heading(b: BrigadeBlock, continued: bool = False) -> str:
    who = b.brigadier or "no Brigadier"
    if b.brigadier_status != "active":
        who += f" ({b.brigadier_status})"
    elif b.attached_to:
        who += f", with {b.attached_to}"
    return f"{b.name} [{b.id}]" + (" (continued)" if continued else "") + f" — Brigadier: {who}"


KEY_TEXT = (
    "Strike a stand box (☒) when the stand is lost; a battery's boxes are its sections. "
    "Mark the micro-hit box at the first unsaved hit: the second makes a stand lost. "
    "Markers: " + ", ".join(f"{letter} {m.label}" for m, letter in MARKER_LETTERS) + "."
)


# -- laying out ------------------------------------------------------------------------------------


@dataclass
class Fonts:
    """The fonts of a sheet at a device's resolution (sizes in points)."""

    dpi: float
    device: Any = None
    cache: dict = field(default_factory=dict)

    def font(self, pt: float, bold: bool = False) -> QFont:
        key = (pt, bold)
        if key not in self.cache:
            f = QFont(FONT_FAMILY)
            f.setPixelSize(max(1, round(pt / 72 * self.dpi)))
            f.setBold(bold)
            self.cache[key] = f
        return self.cache[key]

    def metrics(self, font: QFont) -> QFontMetricsF:
        return QFontMetricsF(font, self.device) if self.device is not None else QFontMetricsF(font)


#: The resolution the sheets are printed at (and laid out at, for pictures too).
PDF_DPI = 300
TEXT_PT, SMALL_PT, BOX_PT, TITLE_PT, HEAD_PT, PIPS_PT = 8.5, 7.0, 11.0, 14.0, 9.5, 10.0
WRAP = int(Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)


def _cell_font(fonts: Fonts, key: str) -> QFont:
    if key in ("stands", "hits", "markers"):
        return fonts.font(BOX_PT)
    return fonts.font(TEXT_PT, bold=key == "unit")


@dataclass
class Row:
    """A unit's row, measured: its cells and its height in device pixels."""

    unit: UnitLine
    cells: dict[str, str]
    height: float


@dataclass
class Placed:
    """A brigade (or the part of one) on a page."""

    brigade: BrigadeBlock
    rows: list[Row]
    continued: bool


@dataclass
class Page:
    sheet: SideSheet
    blocks: list[Placed] = field(default_factory=list)


class SheetLayout:
    """The sheets laid out on a page of ``width`` x ``height`` device pixels at ``dpi``."""

    def __init__(
        self, sheets: Sequence[SideSheet], width: float, height: float, dpi: float, device: Any = None
    ):
        self.sheets = list(sheets)
        self.width, self.height, self.dpi = width, height, dpi
        self.fonts = Fonts(dpi, device)
        self.pad = 1.2 / 25.4 * dpi  # 1.2 mm inside each cell
        self.cols: list[tuple[str, str, float, float]] = []  # key, heading, x, width
        x = 0.0
        for key, title, share in COLUMNS:
            w = width * share
            self.cols.append((key, title, x, w))
            x += w
        self.title_h = self._text_h(self.fonts.font(TITLE_PT, True), "Ag", width)
        self.when_h = self._text_h(self.fonts.font(TEXT_PT), "Ag", width)
        self.key_h = self._text_h(self.fonts.font(SMALL_PT), KEY_TEXT, width)
        self.columns_h = (
            max(
                self._text_h(self.fonts.font(SMALL_PT, True), title, w - 2 * self.pad)
                for _, title, _, w in self.cols
            )
            + 2 * self.pad
        )
        self.foot_h = self._text_h(self.fonts.font(SMALL_PT), "Ag", width) + self.pad
        self.top_h = self.title_h + self.when_h + self.key_h + 3 * self.pad + self.columns_h
        self.body_h = self.height - self.top_h - self.foot_h
        self.pages = self._paginate()

    def _text_h(self, font: QFont, text: str, w: float) -> float:
        fm = self.fonts.metrics(font)
        return fm.boundingRect(QRectF(0, 0, max(w, 1.0), 1e7), WRAP, text).height()

    @property
    def heading_split(self) -> float:
        """Where a brigade's heading gives way to its Staff Pips track and state."""
        return self.width * 0.42

    def heading_h(self, b: BrigadeBlock) -> float:
        f = self.fonts.font(HEAD_PT, True)
        split = self.heading_split
        left = self._text_h(f, brigade_heading(b, True), split - 2 * self.pad)
        right = self._text_h(self.fonts.font(PIPS_PT), pip_track(b), self.width - split - self.pad)
        return max(left, right) + 2 * self.pad

    def row(self, u: UnitLine) -> Row:
        cells = unit_cells(u)
        h = 0.0
        for key, _title, _x, w in self.cols:
            h = max(h, self._text_h(_cell_font(self.fonts, key), cells[key], w - 2 * self.pad))
        # the unit's id under its name, the count under its boxes
        h = max(
            h,
            self._text_h(self.fonts.font(TEXT_PT, True), u.name, self.cols[0][3] - 2 * self.pad)
            + self._text_h(self.fonts.font(SMALL_PT), "Ag", self.width),
        )
        boxes_h = self._text_h(self.fonts.font(BOX_PT), cells["stands"], self.cols[6][3] - 2 * self.pad)
        h = max(h, boxes_h + self._text_h(self.fonts.font(SMALL_PT), "Ag", self.width))
        return Row(u, cells, h + 2 * self.pad)

    def _paginate(self) -> list[Page]:
        pages: list[Page] = []
        for sheet in self.sheets:
            page = Page(sheet)
            pages.append(page)
            used = 0.0
            for b in sheet.brigades:
                rows = [self.row(u) for u in b.units]
                head = self.heading_h(b)
                total = head + sum(r.height for r in rows)
                if used and used + total > self.body_h and total <= self.body_h:
                    page = Page(sheet)  # the brigade goes whole onto a new page
                    pages.append(page)
                    used = 0.0
                if total <= self.body_h - used:
                    page.blocks.append(Placed(b, rows, False))
                    used += total
                    continue
                # longer than a page: it goes on over the next pages, its heading repeated
                continued = False
                left = list(rows)
                while left:
                    if used and used + head + left[0].height > self.body_h:
                        page = Page(sheet)
                        pages.append(page)
                        used = 0.0
                    room = self.body_h - used - head
                    take: list[Row] = []
                    while left and (left[0].height <= room or not take):
                        r = left.pop(0)
                        take.append(r)
                        room -= r.height
                    page.blocks.append(Placed(b, take, continued))
                    used += head + sum(r.height for r in take)
                    continued = True
        return pages


# -- drawing ---------------------------------------------------------------------------------------


class SheetPainter:
    """Draws a :class:`SheetLayout` on a painter, page by page."""

    def __init__(self, layout: SheetLayout, painter: QPainter):
        self.l = layout
        self.p = painter
        self.fonts = layout.fonts

    def text(self, rect: QRectF, text: str, font: QFont, colour: str = "#111111", flags: int = WRAP) -> None:
        self.p.setFont(font)
        self.p.setPen(QColor(colour))
        self.p.drawText(rect, flags, text)

    def page(self, i: int) -> None:
        lay, page = self.l, self.l.pages[i]
        sheet, pad, w = page.sheet, lay.pad, lay.width
        y = 0.0
        swatch = lay.title_h * 0.7
        self.p.fillRect(QRectF(0, y + lay.title_h * 0.15, swatch, swatch), QColor(sheet.colour))
        self.text(
            QRectF(swatch + pad * 2, y, w - swatch - 2 * pad, lay.title_h),
            f"{sheet.battle} — {sheet.side}: roster sheet",
            self.fonts.font(TITLE_PT, True),
        )
        y += lay.title_h
        self.text(QRectF(0, y, w, lay.when_h), sheet.when, self.fonts.font(TEXT_PT), "#333333")
        y += lay.when_h + pad
        self.text(QRectF(0, y, w, lay.key_h), KEY_TEXT, self.fonts.font(SMALL_PT), "#444444")
        y += lay.key_h + 2 * pad
        # the column headings, on every page
        self.p.fillRect(QRectF(0, y, w, lay.columns_h), QColor("#dfe3ea"))
        for _key, title, x, cw in lay.cols:
            self.text(
                QRectF(x + pad, y + pad, cw - 2 * pad, lay.columns_h - 2 * pad),
                title,
                self.fonts.font(SMALL_PT, True),
            )
        y += lay.columns_h
        grid = QPen(QColor("#b8bcc4"))
        grid.setWidthF(max(1.0, lay.dpi / 300))
        for placed in page.blocks:
            b = placed.brigade
            hh = lay.heading_h(b)
            self.p.fillRect(QRectF(0, y, w, hh), QColor("#eef0e4"))
            split = lay.heading_split
            self.text(
                QRectF(pad, y + pad, split - 2 * pad, hh - 2 * pad),
                brigade_heading(b, placed.continued),
                self.fonts.font(HEAD_PT, True),
            )
            self.text(
                QRectF(split, y + pad, w - split - pad, hh - 2 * pad),
                pip_track(b),
                self.fonts.font(PIPS_PT),
                flags=WRAP,
            )
            y += hh
            for r in placed.rows:
                self.p.setPen(grid)
                self.p.drawLine(0, int(y), int(w), int(y))
                for key, _title, x, cw in lay.cols:
                    inner = QRectF(x + pad, y + pad, cw - 2 * pad, r.height - 2 * pad)
                    self.text(inner, r.cells[key], _cell_font(self.fonts, key))
                    if key == "unit":
                        name_h = lay._text_h(self.fonts.font(TEXT_PT, True), r.unit.name, cw - 2 * pad)
                        self.text(
                            QRectF(inner.x(), inner.y() + name_h, inner.width(), inner.height() - name_h),
                            f"[{r.unit.id}]",
                            self.fonts.font(SMALL_PT),
                            "#555555",
                        )
                    if key == "stands":
                        bh = lay._text_h(self.fonts.font(BOX_PT), r.cells[key], cw - 2 * pad)
                        self.text(
                            QRectF(inner.x(), inner.y() + bh, inner.width(), inner.height() - bh),
                            f"{r.unit.stands_start} {r.unit.stands_label}",
                            self.fonts.font(SMALL_PT),
                            "#555555",
                        )
                y += r.height
            self.p.setPen(grid)
            self.p.drawLine(0, int(y), int(w), int(y))
        # the foot
        foot = QRectF(0, lay.height - lay.foot_h, w, lay.foot_h)
        left = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom)
        right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom)
        self.text(
            foot, f"Brigadier · {sheet.battle} · {sheet.side}", self.fonts.font(SMALL_PT), "#555555", left
        )
        self.text(foot, f"page {i + 1} of {len(lay.pages)}", self.fonts.font(SMALL_PT), "#555555", right)


def paint_sheets(
    sheets: Sequence[SideSheet],
    painter: QPainter,
    layout: QPageLayout,
    dpi: float,
    new_page: Callable[[], Any] | None = None,
    device: Any = None,
    whole_page: bool = False,
    pages: Sequence[int] | None = None,
) -> SheetLayout:
    """Paint the sheets on ``painter`` (a device of ``dpi`` dots an inch), calling ``new_page()``
    between pages. A printer's painter starts at the printable area; ``whole_page`` (a picture of
    the whole sheet) leaves the margins here. Returns the layout (its ``pages``)."""
    rect = layout.paintRectPixels(round(dpi))
    lay = SheetLayout(sheets, rect.width(), rect.height(), dpi, device)
    todo = range(len(lay.pages)) if pages is None else [i for i in pages if 0 <= i < len(lay.pages)]
    for k, i in enumerate(todo):
        if k and new_page is not None:
            new_page()
        painter.save()
        if whole_page:
            painter.translate(rect.left(), rect.top())
        SheetPainter(lay, painter).page(i)
        painter.restore()
    return lay


def print_sheets(sheets: Sequence[SideSheet], printer: Any) -> int:
    """Print the sheets on a QPrinter or QPdfWriter, with its own page layout and resolution."""
    painter = QPainter()
    if not painter.begin(printer):
        raise ReportError("the printer could not be started")
    try:
        lay = paint_sheets(
            sheets, painter, printer.pageLayout(), printer.resolution(), printer.newPage, printer
        )
    finally:
        painter.end()
    return len(lay.pages)


def write_roster_pdf(
    sheets: Sequence[SideSheet], path: str | Path, paper: str | None = None, title: str = ""
) -> Path:
    """The sheets as a PDF file on landscape Letter or A4 (``paper``; else the locale's)."""
    ensure_application()
    if not sheets:
        raise ReportError("there is no side to print")
    from PySide6.QtCore import QBuffer, QIODevice

    from storage.outputs import atomic_write

    page = page_layout_for(paper)
    buf = QBuffer()  # printed in memory, then written all or nothing, never over a saved game
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buf)
    writer.setPageLayout(page)
    writer.setResolution(PDF_DPI)
    writer.setTitle(title or f"{sheets[0].battle}: roster sheets")
    writer.setCreator("Brigadier")
    print_sheets(sheets, writer)
    del writer
    buf.close()
    data = bytes(buf.data())
    if not data.rstrip().endswith(b"%%EOF"):
        raise ReportError(f"{path}: the sheets could not be printed")
    return atomic_write(path, data, what="the sheets")


def sheet_images(sheets: Sequence[SideSheet], paper: str | None = None, dpi: int = 100) -> list[QImage]:
    """The printed pages as pictures, laid out as the PDF lays them out: at the PDF's resolution
    (so that the pages break where the PDF's do, however small the picture), drawn to scale."""
    ensure_application()
    layout = page_layout_for(paper)
    full = layout.fullRectPixels(dpi)
    images: list[QImage] = []
    i = 0
    while True:
        img = QImage(full.width(), full.height(), QImage.Format.Format_RGB32)
        img.fill(QColor("white"))
        painter = QPainter(img)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        painter.scale(dpi / PDF_DPI, dpi / PDF_DPI)
        lay = paint_sheets(sheets, painter, layout, PDF_DPI, None, None, whole_page=True, pages=[i])
        painter.end()
        images.append(img)
        i += 1
        if i >= len(lay.pages):
            return images


__all__ = [
    "BOX",
    "STRUCK",
    "TICKED",
    "SheetLayout",
    "page_layout_for",
    "page_size_for",
    "paint_sheets",
    "print_sheets",
    "sheet_images",
    "write_roster_pdf",
]
