"""The turn summary printed: what happened in one game turn, as a page, a PDF and on paper.

The summary's content is built below the GUI, without Qt (:func:`reports.summary.build_turn_summary`,
re-exported here with its :class:`~reports.summary.TurnSummary` and its parts). This module renders
it (:func:`summary_html`, :func:`turn_document`, :func:`write_turn_pdf`, :func:`write_turn_html`):
an HTML page laid out for Qt's :class:`QTextDocument`, with a picture of the battlefield at the end
of the turn and a chart of the sides' strength, printed to PDF on A4 or US Letter as the locale uses.

Every name a club typed (battle, sides, brigades, Brigadiers, units, reasons) is escaped, so a
unit called ``<b>Bad</b> & Co`` prints exactly so.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QIODevice,
    QLocale,
    QMarginsF,
    QPointF,
    QRectF,
    QSizeF,
    Qt,
    QUrl,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QPen,
    QTextCursor,
    QTextDocument,
)

from gui.export import ReportError, battle_image, ensure_application, save_image
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
    value_label,
)
from rules.battle.order_of_battle import Health

# -- rendering: HTML --------------------------------------------------------------------------------

MAP_SRC = "brigadier:map.png"
CHART_SRC = "brigadier:strength.png"

_CSS = """
body { font-family: 'DejaVu Sans', 'Helvetica', 'Arial', sans-serif; font-size: 10pt; color: #111; }
h1 { font-size: 20pt; margin: 0 0 2pt 0; }
h2 { font-size: 14pt; margin: 14pt 0 4pt 0; color: #1b2a4a; border-bottom: 1px solid #999; }
p.sub { color: #444; margin: 0 0 8pt 0; }
table.grid { border-collapse: collapse; margin: 2pt 0 6pt 0; }
table.grid th { background: #dfe3ea; text-align: left; font-weight: bold; padding: 3px 6px; }
table.grid td { padding: 3px 6px; vertical-align: top; }
td.num, th.num { text-align: right; }
.seq { color: #666; }
.rule { color: #1a4f9c; }
.dice { font-weight: bold; }
.mods { color: #444; }
.loss { color: #a01010; font-weight: bold; }
.gain { color: #116611; }
.muted { color: #666; }
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], numeric: Iterable[int] = ()) -> str:
    """An HTML table; cells are HTML already (escape before)."""
    num = set(numeric)
    out = ["<table class='grid' border='1' cellspacing='0' cellpadding='3' width='100%'>", "<thead><tr>"]
    for i, h in enumerate(headers):
        out.append(
            f"<th{' class=num' if i in num else ''}>{_e(h).replace(' ', '&nbsp;') if len(h) < 9 else _e(h)}</th>"
        )
    out.append("</tr></thead><tbody>")
    for r, row in enumerate(rows):
        bg = " bgcolor='#f4f5f7'" if r % 2 else ""
        out.append(f"<tr{bg}>")
        for i, cell in enumerate(row):
            out.append(f"<td{' class=num align=right' if i in num else ''}>{cell}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()).rstrip(".").lower() == " ".join(b.split()).rstrip(".").lower()


def step_html(step: StepLine) -> str:
    line = _e(step.text)
    if step.dice:
        line += " <span class='dice'>dice " + _e(" ".join(str(d) for d in step.dice)) + "</span>"
    if step.modifiers:
        line += " <span class='mods'>(" + _e(", ".join(step.modifiers)) + ")</span>"
    if step.rule:
        line += f" <span class='rule'>[{_e(step.rule)}]</span>"
    return line


def _signed(lost: int, restored: int) -> str:
    parts = []
    if lost:
        parts.append(f"<span class='loss'>−{lost}</span>")
    if restored:
        parts.append(f"<span class='gain'>+{restored}</span>")
    return " ".join(parts) or "0"


def pips_table(pips) -> str:
    """The Staff Pips table of a turn: each brigade's pool and reserve at start and now, and what
    was allotted, spent, reserved, drawn from the reserve and lapsed."""
    return _table(
        ["Brigade (Brigadier)", "At start", "Allotted", "Spent", "Reserved", "From reserve", "Lapsed", "Now"],
        (
            [
                _e(p.brigade) + (f" ({_e(p.brigadier)})" if p.brigadier else ""),
                f"{p.pips_before} ({p.reserved_before})",
                str(p.allotted),
                str(p.spent),
                str(p.reserved),
                str(p.reserved_spent),
                str(p.lapsed),
                f"{p.pips_after} ({p.reserved_after})",
            ]
            for p in pips
        ),
        (1, 2, 3, 4, 5, 6, 7),
    )


def events_html(events, numbered: bool) -> list[str]:
    """The turn's events under a heading for each side's phase: each summary with its dice and rule,
    then the lines that say more (a line that says the same as the summary is not printed again;
    what was left undone is told in its own section). ``numbered``: with the journal numbers."""
    out: list[str] = []
    cur = None
    for ev in events:
        head = (ev.side, ev.phase)
        if head != cur:
            out.append(f"<h3>{_e(ev.side)} — {_e(ev.phase)}</h3>")
            cur = head
        same = [st for st in ev.steps if _same_text(st.text, ev.summary)]
        steps = [st for st in ev.steps if not _same_text(st.text, ev.summary)]
        if getattr(ev, "kind", None) == "left_undone":
            same, steps = [], []
        extra = "".join(step_html(StepLine("", st.dice, st.modifiers, st.rule)) for st in same)
        seq = f"<span class='seq'>#{ev.seq}</span> " if numbered else ""
        out.append(f"<p style='margin:4pt 0 0 0'>{seq}<b>{_e(ev.summary)}</b>{extra}</p>")
        if steps:
            out.append("<ul style='margin-top:0; margin-bottom:2pt'>")
            out.extend(f"<li>{step_html(st)}</li>" for st in steps)
            out.append("</ul>")
    return out


def summary_html(
    summary: TurnSummary, map_src: str | None = MAP_SRC, chart_src: str | None = CHART_SRC
) -> str:
    """The summary as an HTML page. ``map_src``/``chart_src`` are the pictures' sources (None: left out)."""
    s = summary
    out = [
        "<html><head><meta charset='utf-8'>",
        f"<title>{_e(s.battle_name)} — turn {s.turn}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{_e(s.battle_name)} — turn {s.turn}</h1>",
        "<p class='sub'>Turn summary"
        + (f" of {_e(s.game_file)}" if s.game_file else "")
        + (f" · journal entries {s.events[0].seq} to {s.events[-1].seq}" if s.events else "")
        + (f" · at the end: {_e(s.phase_at_end)}" if s.phase_at_end else "")
        + "</p>",
    ]
    # strength at a glance
    rows = []
    for side in s.side_losses:
        rows.append(
            [
                f"<b>{_e(side.name)}</b>",
                str(side.stands_before),
                _signed(side.lost, side.restored),
                f"<b>{side.stands_after}</b>",
            ]
        )
    out.append("<h2 style='margin-top:16pt; margin-bottom:4pt'>Strength</h2>")
    out.append(
        _table(
            ["Side", "Stands at start of turn", "Lost / restored", "Stands at end of turn"], rows, (1, 2, 3)
        )
    )

    # the Staff Pips table is short: it goes near the top, where it is never split by a page
    out.append("<h2 style='margin-top:16pt; margin-bottom:4pt'>Staff Pips</h2>")
    out.append(
        "<p class='muted' style='margin-top:0'>At start and now: the pool, and in brackets the pips"
        " held in reserve for reactions (RULE-04-1.3).</p>"
    )
    out.append(pips_table(s.pips))

    out.append("<h2 style='margin-top:16pt; margin-bottom:4pt'>Events</h2>")
    if not s.events:
        out.append("<p class='muted'>No events were recorded in this turn.</p>")
    else:
        out += events_html(s.events, numbered=True)

    if s.left_undone:
        out.append("<h2 style='margin-top:16pt; margin-bottom:4pt'>Left undone</h2>")
        out.append(
            "<p class='muted' style='margin-top:0'>What the phase checklist still held when the umpire "
            "went on to the next phase or ended the turn.</p>"
        )
        for line in s.left_undone:
            out.append(
                f"<p style='margin:2pt 0 0 0'><b>{_e(line.side)} — {_e(line.phase)}:</b> {_e(line.text)}</p>"
            )

    out.append("<h2 style='margin-top:16pt; margin-bottom:4pt'>Casualties</h2>")
    if not any(u.lost or u.restored for u in s.unit_losses):
        out.append("<p class='muted'>No stands were lost this turn.</p>")
    else:
        out.append(
            _table(
                ["Unit", "Brigade", "Side", "Stands lost", "Stands now"],
                (
                    [_e(u.name), _e(u.brigade), _e(u.side), _signed(u.lost, u.restored), str(u.stands_after)]
                    for u in s.unit_losses
                ),
                (3, 4),
            )
        )
        out.append(
            _table(
                ["Brigade", "Side", "Stands lost", "Stands at start", "Stands at end"],
                (
                    [
                        _e(b.name),
                        _e(b.side),
                        _signed(b.lost, b.restored),
                        str(b.stands_before),
                        str(b.stands_after),
                    ]
                    for b in s.brigade_losses
                ),
                (2, 3, 4),
            )
        )

    if s.melee:
        out.append("<h2 style='margin-top:16pt; margin-bottom:4pt'>Melee results</h2>")
        out.append(
            _table(
                ["#", "Result", "Phase"],
                ([f"{m.seq}", f"<b>{_e(m.summary)}</b>", _e(m.phase)] for m in s.melee),
                (0,),
            )
        )

    out.append("<h2 style='margin-top:16pt; margin-bottom:4pt'>Health and markers</h2>")
    if s.health:
        out.append(
            _table(
                ["Unit", "Side", "Was", "Now"],
                (
                    [
                        _e(h.unit),
                        _e(h.side),
                        _e(value_label(h.before)),
                        f"<b class='loss'>{_e(value_label(h.after))}</b>"
                        if h.destroyed
                        else f"<b>{_e(value_label(h.after))}</b>",
                    ]
                    for h in s.health
                ),
            )
        )
    else:
        out.append("<p class='muted'>No unit changed its health state this turn.</p>")
    if s.markers:
        out.append(
            _table(
                ["#", "Unit", "Markers gained", "Markers lost"],
                (
                    [str(m.seq), _e(m.unit), _e(", ".join(m.gained)) or "—", _e(", ".join(m.lost)) or "—"]
                    for m in s.markers
                ),
                (0,),
            )
        )
    else:
        out.append("<p class='muted'>No markers were placed or removed this turn.</p>")

    # the units at the end of the turn: a page of its own, grouped by side
    out.append(f"<h2 style='page-break-before: always'>The units at the end of turn {s.turn}</h2>")
    for side in s.sides:
        rows = []
        for u in (u for u in s.units if u.side == side.name):
            status = value_label(u.health)
            if u.health == Health.DESTROYED.value:
                status = f"<b class='loss'>{_e(status)}</b>"
            else:
                status = _e(status)
            rows.append(
                [
                    f"<b>{_e(u.name)}</b>",
                    _e(u.brigade),
                    _e(u.formation),
                    f"{u.stands}/{u.stands_start}" + (f" +{u.micro_hits}h" if u.micro_hits else ""),
                    status,
                    _e(", ".join(u.markers)) or "—",
                    f'{u.x:.1f}", {u.y:.1f}" · {u.facing_deg:.0f}°',
                ]
            )
        out.append(f"<h3><span style='color:{_e(side.colour)}'>■</span> {_e(side.name)}</h3>")
        out.append(
            _table(
                ["Unit", "Brigade", "Formation", "Stands", "Health", "Markers", "Position · facing"],
                rows,
                (3,),
            )
        )
    out.append("<p class='muted'>Stands: now/at the start of the battle; +1h is a carried micro-hit.</p>")

    if map_src or chart_src:
        out.append(f"<h2 style='page-break-before: always'>The battlefield at the end of turn {s.turn}</h2>")
        if map_src:
            out.append(f"<p align='center'><img src='{_e(map_src)}' width='{PICTURE_WIDTH_PX}'></p>")
            out.append(_map_key(s))
        if chart_src:
            out.append(
                "<h2 style='margin-top:16pt; margin-bottom:4pt'>Stands on the table, turn by turn</h2>"
            )
            out.append(f"<p align='center'><img src='{_e(chart_src)}' width='{CHART_WIDTH_PX}'></p>")
    out.append("</body></html>")
    return "\n".join(out)


def _map_key(s: TurnSummary) -> str:
    """The key under the map: the sides' colours and the letters of the markers on the table."""
    from gui import icons

    parts = [f"<span style='color:{_e(side.colour)}'>■</span> {_e(side.name)}" for side in s.sides]
    shown = sorted({m for u in (s.battle_end.units.values() if s.battle_end else ()) for m in u.markers})
    for m in shown:
        parts.append(
            f"<span style='background-color:{icons.marker_colour(m).name()}; color:white'>"
            f"&nbsp;<b>{_e(icons.marker_letter(m))}</b>&nbsp;</span> {_e(m.label)}"
        )
    parts.append("the darker stand is the colour stand; the arrow shows the facing")
    return "<p align='center' class='muted'>" + " &nbsp;·&nbsp; ".join(parts) + "</p>"


# -- rendering: pictures ---------------------------------------------------------------------------

PICTURE_WIDTH_PX = 640  # the map's width in the document (CSS pixels; the text column is about 680)
CHART_WIDTH_PX = 560
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


# -- rendering: the document, PDF and HTML files ----------------------------------------------------


#: The papers a summary is printed on, by the name the umpire chooses them by.
PAPERS = {"a4": QPageSize.PageSizeId.A4, "letter": QPageSize.PageSizeId.Letter}


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
    d = doc.clone()
    d.setDocumentMargin(0)
    body_w, body_h = rect.width() / scale, (rect.height() - foot_h) / scale
    d.setPageSize(QSizeF(body_w, body_h))
    keep_headings_with_next(d)
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
        d.drawContents(painter, QRectF(0, i * body_h, body_w, body_h))
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


__all__ = [
    "EventLine",
    "HealthChange",
    "Losses",
    "MarkerChange",
    "PipUse",
    "ReportError",
    "StepLine",
    "TurnSummary",
    "UnitRow",
    "build_turn_summary",
    "page_images",
    "page_layout_for",
    "page_size_for",
    "paint_pages",
    "print_document",
    "save_page_images",
    "strength_chart",
    "summary_html",
    "turn_document",
    "turn_end_states",
    "unit_losses_in",
    "write_pdf",
    "write_turn_html",
    "write_turn_pdf",
]
