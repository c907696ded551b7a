"""A side's report of a turn, printed: the turn as that side knew it, to hand to its players.

The content is :class:`reports.side_summary.SideSummary` (built from the side's own units and its
knowledge of the enemy, never from the umpire's summary with the enemy taken out); this module lays
it out as the turn summary is laid out (:mod:`gui.report`), with the side's own map
(:func:`gui.player_view.side_map_image`) and the chart of its own strength, and writes it to PDF
(``brigadier report GAME --turn N --side SIDE --pdf OUT.pdf``, File > Export side report) or HTML.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from PySide6.QtCore import QLocale, QUrl
from PySide6.QtGui import QImage, QTextDocument

from gui.export import ReportError
from gui.report import MAP_PIXEL_RATIO, MAP_PX_PER_IN, _png_data_uri, strength_chart
from gui.report_html import (
    _CSS,
    CHART_SRC,
    CHART_WIDTH_PX,
    MAP_SRC,
    PICTURE_WIDTH_PX,
    _e,
    _signed,
    _table,
    events_html,
    pips_table,
)
from gui.report_pages import report_document, write_pdf
from reports.side_summary import SideSummary, build_side_summary
from reports.summary import value_label
from rules.battle.words import Health


def title_of(s: SideSummary) -> str:
    return f"{s.battle_name} — turn {s.turn}, as the {s.side.name} side saw it"


def side_summary_html(
    s: SideSummary, map_src: str | None = MAP_SRC, chart_src: str | None = CHART_SRC
) -> str:
    """The side's report as an HTML page (``map_src``/``chart_src``: the pictures' sources, None:
    left out)."""
    me, them = s.side, s.enemy
    out = [
        "<html><head><meta charset='utf-8'>",
        f"<title>{_e(title_of(s))}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1><span style='color:{_e(me.colour)}'>■</span> {_e(s.battle_name)} — turn {s.turn}</h1>",
        f"<p class='sub'>The turn as the <b>{_e(me.name)}</b> side knew it"
        + (f" · {_e(s.game_file)}" if s.game_file else "")
        + (f" · at the end: {_e(s.phase_at_end)}" if s.phase_at_end else "")
        + f"<br>For the {_e(me.name)} side only: its own units in full; the {_e(them.name)} side only as "
        "far as it was seen.</p>",
    ]
    sl = s.side_loss
    in_sight = sum(1 for u in s.enemy_units if u.seen_now)
    last_seen = sum(1 for u in s.enemy_units if not u.seen_now and not u.destroyed)
    out.append("<h2 style='margin-top:16pt; margin-bottom:4pt'>Strength</h2>")
    out.append(
        _table(
            ["Side", "Stands at start of turn", "Lost / restored", "Stands at end of turn"],
            [
                [
                    f"<b>{_e(me.name)}</b>",
                    str(sl.stands_before),
                    _signed(sl.lost, sl.restored),
                    f"<b>{sl.stands_after}</b>",
                ]
            ],
            (1, 2, 3),
        )
    )
    out.append(
        f"<p>The {_e(them.name)} side: {in_sight} unit(s) in sight at the end of the turn, "
        f"{sum(u.stands for u in s.enemy_units if u.seen_now)} stands seen; "
        f"{last_seen} more seen earlier and out of sight now.</p>"
    )
    if s.pips:
        out.append("<h2 style='margin-top:16pt; margin-bottom:4pt'>Staff Pips</h2>")
        out.append(pips_table(s.pips))

    out.append("<h2 style='margin-top:16pt; margin-bottom:4pt'>What they saw happen</h2>")
    if not s.events:
        out.append(f"<p class='muted'>The {_e(me.name)} side saw nothing happen this turn.</p>")
    else:
        out += events_html(s.events, numbered=False)
        if s.seen_in_part:
            out.append(
                "<p class='muted'>(seen in part): the lines about units they could not see are left out.</p>"
            )

    out.append("<h2 style='margin-top:16pt; margin-bottom:4pt'>Their losses</h2>")
    if not any(u.lost or u.restored for u in s.unit_losses):
        out.append(f"<p class='muted'>The {_e(me.name)} side lost no stands this turn.</p>")
    else:
        out.append(
            _table(
                ["Unit", "Brigade", "Stands lost", "Stands now"],
                (
                    [_e(u.name), _e(u.brigade), _signed(u.lost, u.restored), str(u.stands_after)]
                    for u in s.unit_losses
                ),
                (2, 3),
            )
        )
    if s.melee:
        out.append("<h2 style='margin-top:16pt; margin-bottom:4pt'>Melee results</h2>")
        out.append(_table(["Result", "Phase"], ([f"<b>{_e(m.summary)}</b>", _e(m.phase)] for m in s.melee)))
    if s.health:
        out.append("<h2 style='margin-top:16pt; margin-bottom:4pt'>Health</h2>")
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

    out.append(f"<h2 style='page-break-before: always'>The {_e(them.name)} side as seen</h2>")
    if not s.enemy_units:
        out.append(
            f"<p class='muted'>The {_e(me.name)} side has seen no unit of the {_e(them.name)} so far.</p>"
        )
    else:
        rows = []
        for u in s.enemy_units:
            if u.destroyed:
                when = f"<b class='loss'>seen destroyed</b>, turn {u.last_seen_turn}"
            elif u.seen_now:
                when = "<b>in sight</b>"
            else:
                when = f"last seen turn {u.last_seen_turn}"
            rows.append(
                [
                    f"<b>{_e(u.name)}</b>",
                    _e(u.kind),
                    _e(u.formation),
                    "—" if u.destroyed else str(u.stands),
                    f"<span class='loss'>−{u.lost_seen}</span>" if u.lost_seen else "—",
                    _e(", ".join(u.markers)) or "—",
                    f'{u.x:.1f}", {u.y:.1f}" · {u.facing_deg:.0f}°',
                    when,
                ]
            )
        out.append(
            _table(
                ["Unit", "Kind", "Formation", "Stands seen", "Seen to lose", "Markers", "Where", "Seen"],
                rows,
                (3, 4),
            )
        )
        out.append(
            "<p class='muted'>Stands and places as last seen; a unit out of sight may have moved since, "
            "and may have lost more.</p>"
        )

    out.append(f"<h2>The {_e(me.name)} side at the end of turn {s.turn}</h2>")
    rows = []
    for u in s.units:
        status = _e(value_label(u.health))
        if u.health == Health.DESTROYED.value:
            status = f"<b class='loss'>{status}</b>"
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
    out.append(
        _table(
            ["Unit", "Brigade", "Formation", "Stands", "Health", "Markers", "Position · facing"], rows, (3,)
        )
    )

    if map_src or chart_src:
        out.append(
            f"<h2 style='page-break-before: always'>The battlefield as the {_e(me.name)} side saw it at the end "
            f"of turn {s.turn}</h2>"
        )
        if map_src:
            out.append(f"<p align='center'><img src='{_e(map_src)}' width='{PICTURE_WIDTH_PX}'></p>")
            out.append(
                f"<p align='center' class='muted'><span style='color:{_e(me.colour)}'>■</span> "
                f"{_e(me.name)} &nbsp;·&nbsp; <span style='color:{_e(them.colour)}'>■</span> "
                f"{_e(them.name)} in sight &nbsp;·&nbsp; pale and dashed: where a unit was last seen, "
                "with the turn</p>"
            )
        if chart_src:
            out.append(
                f"<h2 style='margin-top:16pt; margin-bottom:4pt'>The {_e(me.name)} side's stands, turn by turn</h2>"
            )
            out.append(f"<p align='center'><img src='{_e(chart_src)}' width='{CHART_WIDTH_PX}'></p>")
    out.append("</body></html>")
    return "\n".join(out)


def side_images(s: SideSummary, tables: Any = None) -> dict[str, QImage]:
    """The report's pictures: the side's map at the end of the turn and the chart of its stands."""
    from gui.player_view import side_map_image

    imgs: dict[str, QImage] = {}
    if s.view is not None:
        imgs[MAP_SRC] = side_map_image(s.view, tables, MAP_PX_PER_IN, MAP_PIXEL_RATIO)
    own_only = SimpleNamespace(sides=(s.side,), strength={s.side.id: s.strength})
    imgs[CHART_SRC] = strength_chart(own_only)  # type: ignore[arg-type]
    return imgs


def side_document(
    s: SideSummary, tables: Any = None, parent: Any = None, pictures: bool = True
) -> QTextDocument:
    """The side's report as a QTextDocument, ready to print."""
    doc = report_document(title_of(s), parent)
    if pictures:
        for src, img in side_images(s, tables).items():
            doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(src), img)
        doc.setHtml(side_summary_html(s))
    else:
        doc.setHtml(side_summary_html(s, None, None))
    return doc


def write_side_pdf(
    game: Any,
    turn: int,
    side: str,
    pdf_path: str | Path,
    locale: QLocale | None = None,
    paper: str | None = None,
) -> Path:
    """Print the report of turn ``turn`` as ``side`` knew it to a PDF file (on ``paper``: "a4" or
    "letter"; else the locale's)."""
    s = build_side_summary(game, turn, side)
    doc = side_document(s, getattr(game, "tables", None))
    path = getattr(game, "path", None)
    return write_pdf(doc, pdf_path, title_of(s), locale, protect=[str(path)] if path else (), paper=paper)


def write_side_html(game: Any, turn: int, side: str, html_path: str | Path) -> Path:
    """Write the report of turn ``turn`` as ``side`` knew it as one HTML file, pictures inside."""
    s = build_side_summary(game, turn, side)
    imgs = side_images(s, getattr(game, "tables", None))
    text = side_summary_html(
        s,
        _png_data_uri(imgs[MAP_SRC]) if MAP_SRC in imgs else None,
        _png_data_uri(imgs[CHART_SRC]),
    )
    from storage.outputs import atomic_write

    path = getattr(game, "path", None)  # all or nothing, never over a saved game
    return atomic_write(html_path, text, what="the report", protect=[str(path)] if path else ())


def export_side_report(window: Any, side: str) -> Path | None:
    """File > Export side report > *side*: this turn's report as the side knew it, to a PDF."""
    from gui import dialogs
    from gui.paths import saves_dir

    b = window.controller.battle
    game = window.controller.game
    if b is None or game is None:
        return None
    name = b.oob.side_name(side)
    p = dialogs.ask_save_path(
        window,
        f"Export the {name} side's report",
        str(saves_dir() / f"turn-{b.turn}-{side}.pdf"),
        "PDF documents (*.pdf)",
        "pdf",
    )
    if not p:
        return None
    try:
        out = write_side_pdf(game, b.turn, side, p, paper=window.paper())  # File > Paper, as the summaries
    except ReportError as exc:
        dialogs.show_message(window, "Export side report", str(exc), "error")
        return None
    window.statusBar().showMessage(f"The {name} side's report of turn {b.turn} saved to {p}", 10000)
    return out


def export_side_map_png(
    game: Any, png_path: Any, side: str, seq: int | None = None, px_per_in: float = 20.0
) -> Any:
    """Save the map of ``side`` (an id or a name) of an open game as a PNG: now, or just after
    journal entry ``seq``; its own units, the enemy it saw then, ghosts where it last saw the
    rest, nothing else of the enemy (``brigadier export-map --side``). Nothing is written to the
    save."""
    from pathlib import Path

    from gui import player_view
    from gui.export import moment_of, moment_title, save_image, titled
    from rules.errors import InvariantError, RulesError
    from storage.errors import ReportError
    from storage.sightings import Sightings

    at = moment_of(game, seq)
    try:
        sightings = Sightings.of(game)
        sightings.update()
        view = sightings.view(side, at)
    except (RulesError, InvariantError) as exc:  # no such side
        raise ReportError(str(exc)) from None
    img = player_view.side_map_image(view, game.tables, px_per_in, 1.0)
    own = view.side_name(view.side)
    img = titled(img, f"{moment_title(game, game.state_at(at), seq)} — as the {own} side saw it")
    path = getattr(game, "path", None)
    save_image(img, png_path, "map", protect=[str(path)] if path else ())
    return Path(png_path)
