"""The turn summary printed: what happened in one game turn, as a page, a PDF and on paper.

The summary's content is built below the GUI, without Qt (:func:`reports.summary.build_turn_summary`,
re-exported here with its :class:`~reports.summary.TurnSummary` and its parts). This module draws
its pictures (the battlefield at the end of the turn, :func:`report_images`, and a chart of the
sides' strength, :func:`strength_chart`) and makes it a document (:func:`turn_document`), a PDF
(:func:`write_turn_pdf`) or one HTML file with its pictures inside it (:func:`write_turn_html`).
The document's map is drawn for paper (:func:`printed_map`): on a page of its own, at the scale
where its units' names print at :data:`NAME_PT` or larger, turned a quarter on the page where
that prints a long table larger (the Gettysburg table).
The page itself is written by :mod:`gui.report_html`; it is printed on A4 or US Letter, as the
locale uses or as chosen, by :mod:`gui.report_pages`.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QLocale, QPointF, QRectF, Qt, QUrl
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen, QTextDocument

from gui.export import battle_image, ensure_application
from gui.report_html import CHART_SRC, MAP_SRC, summary_html
from gui.report_pages import report_document, write_pdf
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


# -- the map printed ----------------------------------------------------------------------------

#: The units' names on the printed map are at least this big on paper (points).
NAME_PT = 6.0
#: The room for the map on its page (CSS pixels): the text's width, and the height of the page
#: less its heading and the key under it (four lines at most), the same on A4 and on Letter (the
#: shorter page: 924 pixels).
MAP_BOX_PX = (672.0, 808.0)
#: Dots an inch of the printed map's picture on paper.
MAP_PRINT_DPI = 300.0
_PT_PER_PX = 0.75  # a CSS pixel is 1/96", a point 1/72"


@dataclass(frozen=True)
class PrintedMap:
    """The battlefield as the printed summary holds it: the picture with its legend and scale bar
    (turned a quarter to the left when ``turned``: the table's top edge at the page's left), its
    size on the page in CSS pixels (``width`` x ``height``, as it stands on the page), the scale
    its names were placed for (``px_per_in``, pixels of the picture an inch of table) and the
    size of those names in the picture (``name_px``)."""

    image: QImage
    width: float
    height: float
    px_per_in: float
    name_px: int
    turned: bool

    @property
    def name_pt(self) -> float:
        """The names' size on paper, in points."""
        ratio = self.image.devicePixelRatio() or 1.0
        return self.name_px * self.width / (self.image.width() / ratio) * _PT_PER_PX


def _name_sizes() -> tuple[float, int, int]:
    """The scale (pixels an inch) from which the map names units in full, and the size of a full
    and of a short name (pixels), as the canvas draws them."""
    from gui.canvas import LabelLayout
    from gui.canvas.labels import UnitName

    return LabelLayout.FULL_NAMES_PX, UnitName.FULL_PX, UnitName.SHORT_PX


def _legend_px(battle: Any, px_per_in: float) -> float:
    """The height of the legend under a map of ``battle`` drawn ``px_per_in`` pixels an inch."""
    from gui.export import framed_map

    strip = QImage(max(1, round(battle.table_width_in * px_per_in)), 1, QImage.Format.Format_ARGB32)
    return framed_map(strip, battle, px_per_in).height() - 1.0


def map_plan(
    width_in: float, height_in: float, legend_px: float, box: tuple[float, float] = MAP_BOX_PX
) -> tuple[float, int, bool]:
    """How a table of ``width_in`` x ``height_in`` inches is printed in ``box`` (CSS pixels), its
    legend ``legend_px`` high: the scale its names are placed for (pixels an inch of the picture),
    the size of its names (pixels) and whether it is turned a quarter on the page.

    The names must print at :data:`NAME_PT` at least. The picture is drawn at the scale where
    they do, with the table as large as the box allows: the larger the table on paper beside its
    names, the fewer names crowd one another. A table that takes its full names upright (a small
    one: they print at ``NAME_PT`` with the table across the page) is printed upright; another
    is turned whenever that prints it larger (a long table on a portrait page), with short names
    where full ones would print too small. No finer than :data:`MAP_PX_PER_IN`: a small table
    prints its names larger."""
    full_from, full_px, short_px = _name_sizes()

    def best(across: float, down: float) -> tuple[float, int]:
        for name_px in (full_px, short_px):
            k = NAME_PT / (_PT_PER_PX * name_px)  # CSS pixels a pixel of the picture
            scale = min(across / k / width_in, (down / k - legend_px) / height_in)
            if name_px == short_px or scale >= full_from:
                return max(min(scale, MAP_PX_PER_IN), 0.5), name_px
        raise AssertionError("unreachable")

    upright = best(box[0], box[1])
    turned = best(box[1], box[0])
    if upright[1] == full_px or upright[0] >= turned[0]:
        return upright[0], upright[1], False
    return turned[0], turned[1], True


def printed_map(battle: Any, tables: Any = None, box: tuple[float, float] = MAP_BOX_PX) -> PrintedMap:
    """The map of ``battle`` for the printed summary (:func:`map_plan`), fitted to ``box``."""
    from PySide6.QtGui import QTransform

    from gui.export import framed_map

    scale, name_px, turned = map_plan(battle.table_width_in, battle.table_height_in, 100.0, box)
    scale, name_px, turned = map_plan(
        battle.table_width_in, battle.table_height_in, _legend_px(battle, scale), box
    )
    k = NAME_PT / (_PT_PER_PX * name_px)  # CSS pixels a pixel of the picture, names at NAME_PT
    ratio = max(MAP_PIXEL_RATIO, round(MAP_PRINT_DPI / 96.0 * k, 2))
    img = framed_map(battle_image(battle, tables, scale, pixel_ratio=ratio), battle, scale)
    w, h = img.width() / ratio, img.height() / ratio
    across, down = (box[1], box[0]) if turned else box
    k = min(across / w, down / h)  # fitted: names at NAME_PT or larger
    if turned:
        img = img.transformed(QTransform().rotate(-90))
        img.setDevicePixelRatio(ratio)
        return PrintedMap(img, h * k, w * k, scale, name_px, True)
    return PrintedMap(img, w * k, h * k, scale, name_px, False)


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
    doc = report_document(f"{summary.battle_name} — turn {summary.turn}", parent)
    if pictures:
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(CHART_SRC), strength_chart(summary))
        if summary.battle_end is None:
            doc.setHtml(summary_html(summary, None))
        else:
            m = printed_map(summary.battle_end, tables)
            doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(MAP_SRC), m.image)
            doc.setHtml(summary_html(summary, map_size=(m.width, m.height), map_turned=m.turned))
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
    "NAME_PT",
    "Losses",
    "MarkerChange",
    "PipUse",
    "PrintedMap",
    "StepLine",
    "TurnSummary",
    "UnitRow",
    "build_turn_summary",
    "map_plan",
    "printed_map",
    "report_images",
    "strength_chart",
    "turn_document",
    "turn_end_states",
    "unit_losses_in",
    "write_turn_html",
    "write_turn_pdf",
]
