"""A report's pages: the paper, the pages painted with their footer, printed, written to PDF and
drawn as pictures.

A report is a :class:`QTextDocument` (the turn summary's, :func:`gui.report.turn_document`; a
side's, :mod:`gui.side_report`). :func:`paint_pages` lays it out page by page on A4 or US Letter
(:func:`page_layout_for`: as chosen, else as the locale measures) with 15 mm margins and
"page i of n" at each foot, keeping each heading with what it heads
(:func:`keep_headings_with_next`) and each picture within a page (:func:`fit_pictures`), both
in :func:`paged_document`; the printer (:func:`print_document`), the PDF (:func:`write_pdf`)
and the pictures of the pages (:func:`page_images`) all go through it, so they are laid out alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QBuffer, QIODevice, QLocale, QMarginsF, QRectF, QSizeF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextCursor,
    QTextDocument,
)

from gui.export import ReportError, save_image

#: The papers a summary is printed on, by the name the umpire chooses them by.
PAPERS = {"a4": QPageSize.PageSizeId.A4, "letter": QPageSize.PageSizeId.Letter}


def report_document(title: str, parent: Any = None) -> QTextDocument:
    """An empty document for a printed report: no margin of its own (the page has it), the
    reports' font, ``title`` as its title."""
    from gui.export import ensure_application

    ensure_application()
    doc = QTextDocument(parent)
    doc.setDocumentMargin(0)
    font = QFont("DejaVu Sans")
    font.setPointSizeF(10)
    doc.setDefaultFont(font)
    doc.setMetaInformation(QTextDocument.MetaInformation.DocumentTitle, title)
    return doc


def page_size_for(locale: QLocale | None = None, paper: str | None = None) -> QPageSize:
    """The paper chosen (``paper``: "a4" or "letter"), or else US Letter where the locale
    measures in the US system and A4 everywhere else."""
    if paper:
        if paper.lower() not in PAPERS:
            raise ReportError(f"the paper is A4 or Letter, not {paper!r}")
        return QPageSize(PAPERS[paper.lower()])
    loc = locale or QLocale.system()
    if loc.measurementSystem() == QLocale.MeasurementSystem.ImperialUSSystem:
        return QPageSize(QPageSize.PageSizeId.Letter)
    return QPageSize(QPageSize.PageSizeId.A4)


MARGIN_MM = 15.0
SCREEN_DPI = 96.0  # the document is laid out in CSS pixels, 96 to the inch, and scaled onto the page


def page_layout_for(locale: QLocale | None = None, paper: str | None = None) -> QPageLayout:
    """The page: A4 or Letter (as chosen, else from the locale), portrait, 15 mm margins."""
    return QPageLayout(
        page_size_for(locale, paper),
        QPageLayout.Orientation.Portrait,
        QMarginsF(MARGIN_MM, MARGIN_MM, MARGIN_MM, MARGIN_MM),
        QPageLayout.Unit.Millimeter,
    )


def _footer_font(dpi: float) -> QFont:
    f = QFont("DejaVu Sans")
    f.setPixelSize(max(6, round(8 / 72 * dpi)))  # 8 pt
    return f


def paint_pages(
    doc: QTextDocument,
    painter: QPainter,
    layout: QPageLayout,
    dpi: float,
    new_page: Any = None,
    footer: str = "",
    pages: Iterable[int] | None = None,
    whole_page: bool = False,
) -> int:
    """Paint ``doc`` page by page on ``painter`` (a device of ``dpi`` dots an inch): the PDF, the
    printer and the page pictures all go through here, so they are laid out alike.

    ``new_page()`` is called between pages (QPdfWriter.newPage / QPrinter.newPage); each page has
    ``footer`` and "page i of n" at its foot. A printer's painter starts at the top left of the
    printable area; with ``whole_page`` (a picture of the whole sheet) the margins are left here.
    Returns the number of pages.
    """
    rect = layout.paintRectPixels(round(dpi))
    scale = dpi / SCREEN_DPI
    foot_h = 14 / 72 * dpi  # room for the footer line
    body_w, body_h = rect.width() / scale, (rect.height() - foot_h) / scale
    d = paged_document(doc, body_w, body_h)
    n = d.pageCount()
    todo = list(range(n)) if pages is None else [i for i in pages if 0 <= i < n]
    for k, i in enumerate(todo):
        if k and new_page is not None:
            new_page()
        painter.save()
        if whole_page:
            painter.translate(rect.left(), rect.top())
        painter.save()
        painter.scale(scale, scale)
        painter.translate(0, -i * body_h)
        _draw_page(d, painter, i, body_w, body_h)
        painter.restore()
        painter.setFont(_footer_font(dpi))
        painter.setPen(QColor("#555555"))
        box = QRectF(0, rect.height() - foot_h * 0.8, rect.width(), foot_h * 0.8)
        painter.drawText(box, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom), footer)
        painter.drawText(
            box, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom), f"page {i + 1} of {n}"
        )
        painter.restore()
    return n


#: The height a picture leaves on its page (CSS pixels): a heading over it and a few lines under it.
PICTURE_ROOM_PX = 116.0


def paged_document(doc: QTextDocument, body_w: float, body_h: float) -> QTextDocument:
    """A copy of ``doc`` laid out on pages of ``body_w`` x ``body_h`` (CSS pixels): no picture
    larger than a page (:func:`fit_pictures`), each heading kept with what it heads
    (:func:`keep_headings_with_next`).

    Where a heading was moved to the next page, the copy is laid out afresh from the start: Qt's
    layout, mended only from the heading on, keeps the places it found before the move for the
    blocks after it, and a page drawn from those would start at the wrong block, leaving out what
    came first on it (a side's heading over its table of units) and, further on, whole pages
    (the map at the end of the summary, printed as an empty page).
    """
    d = doc.clone()
    d.setDocumentMargin(0)
    d.setPageSize(QSizeF(body_w, body_h))
    fit_pictures(d, body_w, body_h - PICTURE_ROOM_PX)
    if keep_headings_with_next(d):
        d = d.clone()  # the headings' page breaks are in its blocks' formats, laid out afresh
        d.setDocumentMargin(0)
        d.setPageSize(QSizeF(body_w, body_h))
    return d


def fit_pictures(doc: QTextDocument, width: float, height: float) -> int:
    """Make each picture of ``doc`` larger than ``width`` x ``height`` (CSS pixels) that much
    smaller, its proportions kept: a picture taller than the page is never laid out across two
    pages nor off the foot of one, whatever the paper it is printed on. Returns how many."""
    smaller = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            it += 1
            fmt = frag.charFormat()
            if not fmt.isImageFormat():
                continue
            img = fmt.toImageFormat()
            w, h = _picture_size(doc, img)
            k = min(width / w, height / h) if w > 0 and h > 0 else 1.0
            if k < 1:
                img.setWidth(w * k)
                img.setHeight(h * k)
                smaller.append((frag.position(), frag.length(), img))
        block = block.next()
    for pos, length, img in smaller:  # changed once all are found: the fragments stay as they were
        cursor = QTextCursor(doc)
        cursor.setPosition(pos)
        cursor.setPosition(pos + length, QTextCursor.MoveMode.KeepAnchor)
        cursor.setCharFormat(img)
    return len(smaller)


def _picture_size(doc: QTextDocument, img: Any) -> tuple[float, float]:
    """A picture's size in ``doc`` (CSS pixels): as its format gives it, a side it leaves out in
    the proportions of the picture itself."""
    from PySide6.QtCore import QUrl

    w, h = img.width(), img.height()
    if w > 0 and h > 0:
        return w, h
    res = doc.resource(QTextDocument.ResourceType.ImageResource, QUrl(img.name()))
    if not isinstance(res, QImage) or res.isNull():
        return w, h
    ratio = res.devicePixelRatio() or 1.0
    nw, nh = res.width() / ratio, res.height() / ratio
    if w > 0:
        return w, w * nh / nw
    if h > 0:
        return h * nw / nh, h
    return nw, nh


def _draw_page(d: QTextDocument, painter: QPainter, i: int, body_w: float, body_h: float) -> None:
    """Draw page ``i`` of ``d`` (laid out on pages of ``body_w`` x ``body_h``), the painter moved
    to its top. Only what is on the page is drawn: a line that ends at the page's top edge or
    starts at its foot belongs to the page before or after and is left out, so that its text is
    not written (unseen, cut off by the clip) into this page of a PDF."""
    from PySide6.QtGui import QAbstractTextDocumentLayout

    page = QRectF(0, i * body_h, body_w, body_h)
    painter.save()
    painter.setClipRect(page)
    ctx = QAbstractTextDocumentLayout.PaintContext()
    ctx.clip = page.adjusted(0, 0.5, 0, -0.5)
    d.documentLayout().draw(painter, ctx)
    painter.restore()


def keep_headings_with_next(doc: QTextDocument, max_passes: int = 60) -> int:
    """Start a new page before each heading that would otherwise end a page alone, with what it
    heads on the next (the document has its page size set). Returns how many were moved."""
    from PySide6.QtGui import QTextFormat

    page_h = doc.pageSize().height()
    if page_h <= 0:
        return 0
    moved = 0
    for _ in range(max_passes):
        layout = doc.documentLayout()
        block, stray = doc.begin(), None
        while block.isValid():
            fmt = block.blockFormat()
            before = fmt.pageBreakPolicy() & QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore
            if fmt.headingLevel() > 0 and not before and block.next().isValid():
                r = layout.blockBoundingRect(block)
                nxt = layout.blockBoundingRect(block.next())
                # the heading and the first line or so of what follows must share a page
                need_bottom = nxt.top() + min(nxt.height(), 3 * r.height())
                page = int(r.top() // page_h)
                if r.top() - page * page_h > 1 and need_bottom > (page + 1) * page_h:
                    stray = block
                    break
            block = block.next()
        if stray is None:
            break
        cursor = QTextCursor(stray)
        f = stray.blockFormat()
        f.setPageBreakPolicy(f.pageBreakPolicy() | QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)
        cursor.setBlockFormat(f)
        moved += 1
    return moved


def print_document(doc: QTextDocument, printer: Any, footer: str = "") -> int:
    """Print ``doc`` on a QPrinter or QPdfWriter with its own page layout and resolution."""
    painter = QPainter()
    if not painter.begin(printer):
        raise ReportError("the printer could not be started")
    try:
        return paint_pages(doc, painter, printer.pageLayout(), printer.resolution(), printer.newPage, footer)
    finally:
        painter.end()


def write_pdf(
    doc: QTextDocument,
    path: str | Path,
    title: str = "",
    locale: QLocale | None = None,
    protect: Sequence[str | Path] = (),
    paper: str | None = None,
) -> Path:
    """Print ``doc`` to a PDF file on A4 or Letter (``paper``, else from the locale), with 15 mm
    margins; written all or nothing (:func:`storage.outputs.atomic_write`), never over a saved game."""
    from storage.outputs import atomic_write

    buf = QBuffer()  # printed in memory, then written all or nothing: a full disk is then an error
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buf)
    writer.setPageLayout(page_layout_for(locale, paper))
    writer.setResolution(300)
    writer.setTitle(title)
    writer.setCreator("Brigadier")
    print_document(doc, writer, title)
    del writer  # the document is finished when the writer goes
    buf.close()
    data = bytes(buf.data())
    if not data.rstrip().endswith(b"%%EOF"):
        raise ReportError(f"{path}: the report could not be printed")
    return atomic_write(path, data, what="the report", protect=protect)


def page_images(
    doc: QTextDocument, layout: QPageLayout | None = None, dpi: int = 100, footer: str = ""
) -> list[QImage]:
    """The printed pages of ``doc`` as pictures, laid out as :func:`write_pdf` lays them out."""
    layout = layout or page_layout_for()
    full = layout.fullRectPixels(dpi)
    images: list[QImage] = []
    i = 0
    while True:
        img = QImage(full.width(), full.height(), QImage.Format.Format_RGB32)
        img.fill(QColor("white"))
        painter = QPainter(img)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        n = paint_pages(doc, painter, layout, dpi, None, footer, pages=[i], whole_page=True)
        painter.end()
        images.append(img)
        i += 1
        if i >= n:
            return images


def save_page_images(doc: QTextDocument, stem: str | Path, dpi: int = 100, footer: str = "") -> list[Path]:
    """Save ``doc``'s pages as ``<stem>1.png``, ``<stem>2.png`` ..."""
    out = []
    for i, img in enumerate(page_images(doc, dpi=dpi, footer=footer), start=1):
        path = Path(f"{stem}{i}.png")
        save_image(img, path, "page")
        out.append(path)
    return out
