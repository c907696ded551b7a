"""The turn summary as an HTML page, laid out for Qt's :class:`QTextDocument` and for a browser.

:func:`summary_html` writes the page of a :class:`~reports.summary.TurnSummary`: the strength of
each side, the Staff Pips, the events with their dice and rules, what was left undone, the
casualties, melee results, health and markers, the units at the end of the turn under their
side's heading with the strength chart after them, and the map on a page of its own; the pictures
are named by :data:`MAP_SRC` and :data:`CHART_SRC` (drawn by :mod:`gui.report`). Its style sheet
and its tables (:func:`pips_table`, :func:`events_html`) are shared with a side's report
(:mod:`gui.side_report`).

Every name a club typed (battle, sides, brigades, Brigadiers, units, reasons) is escaped, so a
unit called ``<b>Bad</b> & Co`` prints exactly so.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import Any

from reports.summary import StepLine, TurnSummary, value_label
from rules.battle.words import Health

MAP_SRC = "brigadier:map.png"
CHART_SRC = "brigadier:strength.png"
PICTURE_WIDTH_PX = 640  # the map's width in the document (CSS pixels; the text column is about 680)
CHART_WIDTH_PX = 560

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
            f"<th{' class=num' if i in num else ''}>"
            f"{_e(h).replace(' ', '&nbsp;') if len(h) < 9 else _e(h)}</th>"
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
    summary: TurnSummary,
    map_src: str | None = MAP_SRC,
    chart_src: str | None = CHART_SRC,
    map_size: tuple[float, float] | None = None,
    map_turned: bool = False,
) -> str:
    """The summary as an HTML page. ``map_src``/``chart_src`` are the pictures' sources (None: left
    out). The map is :data:`PICTURE_WIDTH_PX` wide, or ``map_size`` (width, height in CSS pixels:
    the printed map, :func:`gui.report.printed_map`), on a page of its own at the end; with
    ``map_turned`` it is turned a quarter on the page, and the key under it says so."""
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

    if chart_src:
        out.append("<h2 style='margin-top:16pt; margin-bottom:4pt'>Stands on the table, turn by turn</h2>")
        out.append(f"<p align='center'><img src='{_e(chart_src)}' width='{CHART_WIDTH_PX}'></p>")
    if map_src:
        # a page of its own: the map as large as the page holds it, so its names can be read
        out.append(
            "<h2 style='page-break-before: always; margin-top:0'>"
            f"The battlefield at the end of turn {s.turn}</h2>"
        )
        if map_size is None:
            size = f"width='{PICTURE_WIDTH_PX}'"
        else:
            size = f"width='{map_size[0]:.0f}' height='{map_size[1]:.0f}'"
        out.append(f"<p align='center' style='margin:0'><img src='{_e(map_src)}' {size}></p>")
        out.append(_map_key(s, map_turned))
    out.append("</body></html>")
    return "\n".join(out)


def _map_key(s: TurnSummary, turned: bool = False) -> str:
    """The key under the map: the sides' colours and the letters of the markers on the table
    (first, with ``turned``, that the table is turned on the page)."""
    from gui import icons

    parts = ["The table is turned on the page: its top edge is on the left"] if turned else []
    parts += [f"<span style='color:{_e(side.colour)}'>■</span> {_e(side.name)}" for side in s.sides]
    shown = sorted({m for u in (s.battle_end.units.values() if s.battle_end else ()) for m in u.markers})
    for m in shown:
        parts.append(
            f"<span style='background-color:{icons.marker_colour(m).name()}; color:white'>"
            f"&nbsp;<b>{_e(icons.marker_letter(m))}</b>&nbsp;</span> {_e(m.label)}"
        )
    parts.append("the darker stand is the colour stand; the arrow shows the facing")
    return "<p align='center' class='muted'>" + " &nbsp;·&nbsp; ".join(parts) + "</p>"
