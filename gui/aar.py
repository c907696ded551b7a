"""The after-action report drawn and written: ``brigadier aar`` and File > Export after-action report.

:func:`write_aar_html` writes the story of :func:`reports.aar.build_aar` as one HTML file that
stands alone (its pictures inside it, as JPEG data), laid out to read on a phone as well as on a
desktop; :func:`write_aar_pdf` prints the same story through Qt's printing, as the turn summary
is printed, each turn on a page of its own. Every turn has a map of its end with each unit's
movement that turn drawn as an arrow from where it stood when the turn began, in its side's
colour. With ``side`` the maps are the side's (:class:`gui.player_view.PlayerScene`: its own
units, the enemy it saw, ghosts where it last saw the rest), and the arrows only of units it saw.
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QLocale, QPointF, QUrl
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPolygonF, QTextDocument

from gui.export import battle_image, ensure_application, framed_map, render_scene
from gui.report import strength_chart
from gui.report_pages import report_document, write_pdf
from reports.aar import AfterAction, Move, TurnStory, build_aar

#: Pixels an inch of table on the report's maps: Gettysburg's 144" table is 1,152 pixels wide.
AAR_PX_PER_IN = 8.0
#: The maps' width in the PDF's page (CSS pixels; the text column is about 680).
PDF_MAP_WIDTH = 620
JPEG_QUALITY = 82


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def draw_moves(img: QImage, moves: Sequence[Move], px_per_in: float, colours: dict[str, str]) -> None:
    """Draw each move on the map ``img`` (drawn ``px_per_in`` pixels an inch): a line from where
    the unit stood to where it stands, in its side's colour, with an arrowhead at its end."""
    p = QPainter(img)
    try:
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        for m in moves:
            colour = QColor(colours.get(m.side, "#333333"))
            a = QPointF(m.start[0] * px_per_in, m.start[1] * px_per_in)
            b = QPointF(m.end[0] * px_per_in, m.end[1] * px_per_in)
            halo = QPen(QColor(255, 255, 255, 200), 4.5)
            line = QPen(colour.darker(115), 2.2)
            for pen in (halo, line):
                p.setPen(pen)
                p.drawLine(a, b)
            ang = math.atan2(b.y() - a.y(), b.x() - a.x())
            size = 9.0
            head = QPolygonF(
                [
                    b,
                    QPointF(b.x() - size * math.cos(ang - 0.45), b.y() - size * math.sin(ang - 0.45)),
                    QPointF(b.x() - size * math.cos(ang + 0.45), b.y() - size * math.sin(ang + 0.45)),
                ]
            )
            p.setPen(QPen(QColor("white"), 1.0))
            p.setBrush(colour.darker(115))
            p.drawPolygon(head)
            p.setBrush(QColor("white"))
            p.setPen(QPen(colour.darker(115), 1.5))
            p.drawEllipse(a, 2.5, 2.5)
    finally:
        p.end()


def turn_map(
    aar: AfterAction, story: TurnStory, tables: Any = None, px_per_in: float = AAR_PX_PER_IN
) -> QImage:
    """The map of a turn's end with its moves, framed with its title and legend."""
    ensure_application()
    colours = {s.id: s.colour for s in aar.sides}
    if aar.side is None:
        img = battle_image(story.battle, tables, px_per_in)
        legend: Any = story.battle
    else:
        from gui.player_view import PlayerScene

        scene = PlayerScene(story.battle, tables)
        try:
            img = render_scene(scene, px_per_in)
        finally:
            scene.clear()
            scene.deleteLater()
        legend = SimpleNamespace(terrain=story.battle.terrain, oob=SimpleNamespace(sides=story.battle.sides))
    draw_moves(img, story.moves, px_per_in, colours)
    return framed_map(img, legend, px_per_in)


def course_image(game: Any, aar: AfterAction, width: int = 1400) -> QImage:
    """The course of the battle: the Plots dock's charts for the umpire's report (every side and
    brigade), the side's own stands turn by turn for a side's."""
    if aar.side is not None:
        own = SimpleNamespace(sides=(aar.side,), strength={aar.side.id: aar.strength.get(aar.side.id, ())})
        return strength_chart(own)  # type: ignore[arg-type]
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from gui.controller import GameController
    from gui.plots import PlotsWidget

    controller = GameController(game)
    widget = PlotsWidget(controller)
    try:
        # laid out at the size asked, as on a wide screen, without showing it
        widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        widget.resize(round(width * 4 / 3), round(width * 0.6))
        widget.show()
        QApplication.processEvents()
        widget._arrange(force=True)
        widget.redraw()
        QApplication.processEvents()
        img = widget.graphics.grab().toImage()
        # the charts of the whole battle: the selected unit's (none here) is left off
        unit = widget.plots["unit"]
        if unit.isVisible() and widget.columns == len(widget.CHARTS):
            left = widget.graphics.mapFromScene(unit.sceneBoundingRect().topLeft()).x()
            img = img.copy(0, 0, max(1, left - 4), img.height())
        return img
    finally:
        widget.hide()
        widget.deleteLater()
        controller.game = None  # the game is the caller's: not closed with the controller
        controller.deleteLater()


def _jpeg_uri(img: QImage) -> str:
    ba = QByteArray()
    buf = QBuffer(ba)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    flat = img.convertToFormat(QImage.Format.Format_RGB32)
    flat.save(buf, "JPEG", JPEG_QUALITY)
    buf.close()
    return "data:image/jpeg;base64," + base64.b64encode(bytes(ba.data())).decode("ascii")


def title_of(aar: AfterAction) -> str:
    whose = f" as the {aar.side.name} side knew it" if aar.side is not None else ""
    return f"{aar.battle_name}: after-action report{whose}"


def aar_html(
    aar: AfterAction,
    src: Callable[[str], str],
    sizes: dict[str, tuple[int, int]] | None = None,
) -> str:
    """The report as HTML; ``src(key)`` gives each picture's source ("map-3" for turn 3's map,
    "course" for the course of the battle). With ``sizes`` (each picture's width and height in
    pixels) it is for Qt's printing: the pictures sized to the page, each turn on a page of its own."""
    for_print = sizes is not None

    def size(key: str) -> str:
        if sizes is None or key not in sizes:
            return ""
        w, h = sizes[key]
        return f" width='{PDF_MAP_WIDTH}' height='{round(PDF_MAP_WIDTH * h / max(w, 1))}'"

    brk = " style='page-break-before: always'" if for_print else ""
    out = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width,initial-scale=1'>",
        f"<title>{_e(title_of(aar))}</title>",
        "<style>body{font-family:'DejaVu Sans',Arial,sans-serif;max-width:62em;margin:0 auto;padding:0 0.8em;"
        "color:#1b1b1b} table{border-collapse:collapse;"
        "width:100%} th,td{border-bottom:1px solid #d8d8d8;padding:3px 6px;text-align:left} td.n,th.n"
        "{text-align:right} .rule{color:#5a5a5a;font-size:0.85em} .muted{color:#5a5a5a} h2{margin-top:1.4em}"
        " li{margin-bottom:0.3em} h1{font-size:1.6em}"
        # (Qt's printing gives a line its height times the line height, a picture's line too)
        + ("" if for_print else " body{line-height:1.4} img{max-width:100%;height:auto}"),
        "</style></head><body>",
        f"<h1>{_e(title_of(aar))}</h1>",
    ]
    if aar.side is not None:
        out.append(
            f"<p class='muted'>The battle as the {_e(aar.side.name)} side knew it: its own units in full, the "
            "enemy only where and when it saw them.</p>"
        )
    if aar.notes:
        out.append(f"<p>{_e(aar.notes)}</p>")
    out.append(
        "<h2>The forces</h2><table><tr><th>Side</th><th class='n'>Brigades</th><th>Units</th><th class='n'>Stands</th></tr>"
    )
    for f in aar.forces:
        units = ", ".join(f"{n} {k.lower()}" for k, n in sorted(f.units.items()))
        out.append(
            f"<tr><td><span style='color:{_e(f.side.colour)}'>■</span> {_e(f.side.name)}</td>"
            f"<td class='n'>{f.brigades}</td><td>{_e(units)}</td><td class='n'>{f.stands}</td></tr>"
        )
    out.append("</table>")
    if aar.side is not None:
        out.append(f"<p class='muted'>Enemy units seen in the battle: {aar.enemy_seen}.</p>")
    for story in aar.turns:
        how = "" if story.ended else " (in progress)"
        out.append(f"<h2{brk}>Turn {story.turn}{how}</h2>")
        key = f"map-{story.turn}"
        out.append(
            f"<p align='center'><img src='{_e(src(key))}'{size(key)} alt='The end of turn {story.turn}'></p>"
        )
        moved = len(story.moves)
        losses = "; ".join(
            f"{_e(name)} lost {n} stand{'s' if n != 1 else ''}"
            + (f" ({story.given_back[name]} given back by the umpire)" if story.given_back.get(name) else "")
            for name, n in story.losses.items()
            if n
        )
        out.append(
            f"<p class='muted'>{moved} unit{'s' if moved != 1 else ''} moved (arrows from where each stood as the "
            f"turn began). Losses: {losses or 'none'}.</p>"
        )
        if story.notable:
            out.append("<ul>")
            for n in story.notable:
                rules = f" <span class='rule'>({_e(', '.join(n.rules))})</span>" if n.rules else ""
                out.append(f"<li><b>{_e(n.kind)}</b>: {_e(n.text)}{rules}</li>")
            out.append("</ul>")
        else:
            out.append("<p class='muted'>No charge, melee or loss of a unit or a leader this turn.</p>")
    out.append(f"<h2{brk}>The course of the battle</h2>")
    out.append(
        f"<p align='center'><img src='{_e(src('course'))}'{size('course')} alt='The course of the battle'></p>"
    )
    out.append(
        "<h2>Each brigade's losses</h2><table><tr><th>Side</th><th>Brigade</th><th>Brigadier</th>"
        "<th class='n'>Stands at the start</th><th class='n'>At the end</th><th class='n'>Lost</th><th>State</th></tr>"
    )
    for r in aar.brigades:
        fate = "" if r.fate == "active" else f" ({r.fate})"
        out.append(
            f"<tr><td>{_e(r.side)}</td><td>{_e(r.name)}</td><td>{_e(r.brigadier)}{_e(fate)}</td>"
            f"<td class='n'>{r.stands_start}</td><td class='n'>{r.stands_end}</td><td class='n'>{r.lost}</td>"
            f"<td>{_e(r.state)}</td></tr>"
        )
    out.append(f"</table><p class='muted'>From {_e(aar.game_file)}, by Brigadier.</p></body></html>")
    return "\n".join(out)


def aar_images(game: Any, aar: AfterAction) -> dict[str, QImage]:
    """The report's pictures, by their key: each turn's map and the course of the battle."""
    tables = getattr(game, "tables", None)
    imgs = {f"map-{s.turn}": turn_map(aar, s, tables) for s in aar.turns}
    imgs["course"] = course_image(game, aar)
    return imgs


def write_aar_html(game: Any, html_path: str | Path, side: str | None = None) -> Path:
    """Write the after-action report of an open game as one HTML file, its pictures inside it
    (all or nothing, never over a saved game)."""
    from storage.outputs import atomic_write

    aar = build_aar(game, side)
    imgs = aar_images(game, aar)
    text = aar_html(aar, lambda key: _jpeg_uri(imgs[key]))
    path = getattr(game, "path", None)
    return atomic_write(html_path, text, what="the report", protect=[str(path)] if path else ())


def aar_document(game: Any, aar: AfterAction, parent: Any = None) -> QTextDocument:
    """The report as a QTextDocument, ready to print (pictures as the document's resources)."""
    doc = report_document(title_of(aar), parent)
    sizes = {}
    for key, img in aar_images(game, aar).items():
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"brigadier:{key}.png"), img)
        sizes[key] = (img.width(), img.height())
    doc.setHtml(aar_html(aar, lambda key: f"brigadier:{key}.png", sizes))
    return doc


def write_aar_pdf(
    game: Any,
    pdf_path: str | Path,
    side: str | None = None,
    locale: QLocale | None = None,
    paper: str | None = None,
) -> Path:
    """Print the after-action report of an open game to a PDF (on ``paper``: "a4" or "letter";
    else the locale's)."""
    aar = build_aar(game, side)
    doc = aar_document(game, aar)
    path = getattr(game, "path", None)
    return write_pdf(doc, pdf_path, title_of(aar), locale, protect=[str(path)] if path else (), paper=paper)


# -- the window: File > Export after-action report ----------------------------------------------------


def export_aar(window: Any, side: str | None = None) -> Path | None:
    """File > Export after-action report: the umpire's (``side`` None) or as a side knew it, to an
    HTML file (read anywhere, a phone too) or a PDF, as the name the umpire gives ends."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from gui import dialogs
    from storage.errors import ReportError

    game = window.controller.game
    if game is None:
        return None
    p = dialogs.ask_export_path(
        window,
        "after-action report",
        "after-action",
        side,
        "knew",
        "Web page, pictures inside (*.html);;PDF documents (*.pdf)",
        "html",
    )
    if not p:
        return None
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        if p.lower().endswith(".pdf"):
            out = write_aar_pdf(game, p, side, paper=window.paper())
        else:
            out = write_aar_html(game, p, side)
    except ReportError as exc:
        dialogs.show_message(window, "Export after-action report", str(exc), "error")
        return None
    finally:
        QApplication.restoreOverrideCursor()
    window.statusBar().showMessage(f"After-action report saved to {out}", 10000)
    return Path(out)
