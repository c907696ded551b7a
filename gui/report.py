"""The turn summary printed: what happened in one game turn, as a page, a PDF and on paper.

The summary's content is built below the GUI, without Qt (:func:`reports.summary.build_turn_summary`,
re-exported here with its :class:`~reports.summary.TurnSummary` and its parts). This module draws
its pictures (the battlefield at the end of the turn, :func:`report_images`, and a chart of the
sides' strength, :func:`strength_chart`) and makes it a document (:func:`turn_document`), a PDF
(:func:`write_turn_pdf`) or one HTML file with its pictures inside it (:func:`write_turn_html`).
The page itself is written by :mod:`gui.report_html`; it is printed on A4 or US Letter, as the
locale uses or as chosen, by :mod:`gui.report_pages`.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QLocale, QPointF, QRectF, Qt, QUrl
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen, QTextDocument

from gui.export import battle_image, ensure_application
from gui.report_html import CHART_SRC, MAP_SRC, summary_html
from gui.report_pages import write_pdf
from reports.summary import (
    EventLine,
    GameJournal,
    HealthChange,
    Losses,
    MarkerChange,
    PipUse,
    StepLine,
    TurnSummary,
    UnitRow,
    build_turn_summary,
    turn_end_states,
    unit_losses_in,
)

# -- pictures ---------------------------------------------------------------------------------------

MAP_PX_PER_IN = 11.0  # the map is drawn 11 pixels an inch, twice finer (MAP_PIXEL_RATIO)
MAP_PIXEL_RATIO = 2.0


def strength_chart(summary: TurnSummary, width: int = 1400, height: int = 600) -> QImage:
    """A line chart of each side's stands at the start and after each turn, in the side's colours."""
    ensure_application()
    img = QImage(width, height, QImage.Format.Format_ARGB32)
    img.fill(QColor("white"))
    p = QPainter(img)
    try:
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        font = QFont()
        font.setPixelSize(max(12, height // 15))
        p.setFont(font)
        left, right, top, bottom = width * 0.08, width * 0.95, height * 0.14, height * 0.84
        series = [(side, summary.strength.get(side.id, ())) for side in summary.sides]
        n = max((len(v) for _, v in series), default=1)
        ymax = max([1, *(max(v) for _, v in series if v)])
        ymax = int(ymax * 1.1) + 1

        def pt(i: int, v: float) -> QPointF:
            x = left + (right - left) * (i / max(n - 1, 1))
            y = bottom - (bottom - top) * (v / ymax)
            return QPointF(x, y)

        grid = QPen(QColor("#d0d0d0"), 1)
        axis = QPen(QColor("#333333"), 2)
        step = max(1, ymax // 5)
        for v in range(0, ymax + 1, step):
            p.setPen(grid)
            p.drawLine(pt(0, v), pt(n - 1, v) if n > 1 else QPointF(right, pt(0, v).y()))
            p.setPen(QColor("#333333"))
            p.drawText(
                QRectF(0, pt(0, v).y() - 20, left - 10, 40),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                str(v),
            )
        p.setPen(axis)
        p.drawLine(QPointF(left, bottom), QPointF(right, bottom))
        p.drawLine(QPointF(left, top), QPointF(left, bottom))
        for i in range(n):
            label = "Start" if i == 0 else f"Turn {i}"
            x = pt(i, 0).x()
            p.drawText(
                QRectF(x - 120, bottom + 14, 240, height - bottom - 16),
                int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop),
                label,
            )
        for k, (side, vals) in enumerate(series):
            pen = QPen(QColor(side.colour), 5)
            p.setPen(pen)
            pts = [pt(i, v) for i, v in enumerate(vals)]
            for a, b in zip(pts, pts[1:]):
                p.drawLine(a, b)
            p.setBrush(QColor(side.colour))
            for q in pts:
                p.drawEllipse(q, 7, 7)
            # the key: a swatch in the side's colour and the words in dark text
            last = vals[-1] if vals else 0
            kx = left + 20 + k * (width * 0.45)
            sw = font.pixelSize()
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor(side.colour))
            p.drawRect(QRectF(kx, top / 2 - sw / 2, sw * 1.6, sw))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.setPen(QColor("#1b1b1b"))
            p.drawText(
                QRectF(kx + sw * 2.2, 4, width * 0.45 - sw * 2.2, top - 8),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                f"{side.name}: {last} stands",
            )
    finally:
        p.end()
    return img


def report_images(summary: TurnSummary, tables: Any = None) -> dict[str, QImage]:
    """The pictures of the summary: the battlefield at the end of the turn and the strength chart."""
    imgs: dict[str, QImage] = {}
    if summary.battle_end is not None:
        from gui.export import framed_map

        b = summary.battle_end
        plain = battle_image(b, tables, MAP_PX_PER_IN, pixel_ratio=MAP_PIXEL_RATIO)
        imgs[MAP_SRC] = framed_map(plain, b, MAP_PX_PER_IN)  # with its legend and scale bar
    imgs[CHART_SRC] = strength_chart(summary)
    return imgs


def _png_data_uri(img: QImage) -> str:
    ba = QByteArray()
    buf = QBuffer(ba)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    img.save(buf, "PNG")
    buf.close()
    return "data:image/png;base64," + base64.b64encode(bytes(ba.data())).decode("ascii")


# -- the document, PDF and HTML files ---------------------------------------------------------


def turn_document(
    summary: TurnSummary, tables: Any = None, parent: Any = None, pictures: bool = True
) -> QTextDocument:
    """The summary as a QTextDocument, ready to print (pictures as document resources)."""
    ensure_application()
    doc = QTextDocument(parent)
    doc.setDocumentMargin(0)
    font = QFont("DejaVu Sans")
    font.setPointSizeF(10)
    doc.setDefaultFont(font)
    doc.setMetaInformation(
        QTextDocument.MetaInformation.DocumentTitle, f"{summary.battle_name} — turn {summary.turn}"
    )
    if pictures:
        for src, img in report_images(summary, tables).items():
            doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(src), img)
        doc.setHtml(summary_html(summary))
    else:
        doc.setHtml(summary_html(summary, None, None))
    return doc


def write_turn_pdf(
    game: GameJournal,
    turn: int,
    pdf_path: str | Path,
    locale: QLocale | None = None,
    paper: str | None = None,
) -> Path:
    """Print the summary of turn ``turn`` of an open game to a PDF file (on ``paper``: "a4" or
    "letter"; else the locale's)."""
    summary = build_turn_summary(game, turn)
    doc = turn_document(summary, getattr(game, "tables", None))
    title = f"{summary.battle_name} — turn {summary.turn}"
    return write_pdf(doc, pdf_path, title, locale, protect=_saves_of(game), paper=paper)


def _saves_of(game: Any) -> list[str]:
    path = getattr(game, "path", None)
    return [str(path)] if path else []


def write_turn_html(game: GameJournal, turn: int, html_path: str | Path) -> Path:
    """Write the summary of turn ``turn`` as one HTML file, its pictures inside it (all or nothing,
    never over a saved game)."""
    from storage.outputs import atomic_write

    summary = build_turn_summary(game, turn)
    imgs = report_images(summary, getattr(game, "tables", None))
    text = summary_html(
        summary,
        _png_data_uri(imgs[MAP_SRC]) if MAP_SRC in imgs else None,
        _png_data_uri(imgs[CHART_SRC]),
    )
    return atomic_write(html_path, text, what="the report", protect=_saves_of(game))


__all__ = [
    "EventLine",
    "HealthChange",
    "Losses",
    "MarkerChange",
    "PipUse",
    "StepLine",
    "TurnSummary",
    "UnitRow",
    "build_turn_summary",
    "report_images",
    "strength_chart",
    "turn_document",
    "turn_end_states",
    "unit_losses_in",
    "write_turn_html",
    "write_turn_pdf",
]
