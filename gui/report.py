"""The turn summary: what happened in one game turn, built from the journal and printed.

Two parts, kept apart:

* **Building** (:func:`build_turn_summary`): a :class:`TurnSummary` made from an open
  :class:`storage.game.Game` and a turn number. It is plain data: the turn's events in order with
  their dice, modifiers and rules; the stands lost by each unit, brigade and side (read from the
  recorded changes); markers gained and lost; Staff Pips spent, reserved and lapsed; the melee
  results; the units whose health state changed or that were destroyed; every unit's state at the
  end of the turn; and the stands of each side at the end of every turn so far.
* **Rendering** (:func:`summary_html`, :func:`turn_document`, :func:`write_turn_pdf`,
  :func:`write_turn_html`): an HTML page laid out for Qt's :class:`QTextDocument`, with a picture
  of the battlefield at the end of the turn and a chart of the sides' strength, printed to PDF on
  A4 or US Letter as the locale uses.

Every name a club typed (battle, sides, brigades, Brigadiers, units, reasons) is escaped, so a
unit called ``<b>Bad</b> & Co`` prints exactly so.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
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
    QTextDocument,
)

from gui.export import ReportError, battle_image, ensure_application, save_image
from rules.battle import Battle
from rules.events import Changes
from rules.model import Health, Phase

# -- building --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StepLine:
    """One line of an event in the log: what happened, the dice, the modifiers, the rule."""

    text: str
    dice: tuple[int, ...] = ()
    modifiers: tuple[str, ...] = ()
    rule: str | None = None


@dataclass(frozen=True)
class EventLine:
    """One journal entry of the turn."""

    seq: int
    side: str  # the side's name
    phase: str  # the phase's title
    kind: str  # the action type, e.g. "melee", "override"
    summary: str
    steps: tuple[StepLine, ...] = ()


@dataclass(frozen=True)
class Losses:
    """Stands lost (and given back, by the umpire's override) by a unit, brigade or side in the turn."""

    id: str
    name: str
    side: str  # side name
    brigade: str = ""  # brigade name (units only)
    lost: int = 0
    restored: int = 0
    stands_before: int = 0  # at the start of the turn
    stands_after: int = 0  # at the end of the turn


@dataclass(frozen=True)
class MarkerChange:
    seq: int
    unit_id: str
    unit: str
    gained: tuple[str, ...] = ()
    lost: tuple[str, ...] = ()


@dataclass(frozen=True)
class PipUse:
    """A brigade's Staff Pips in the turn: allotted, spent, reserved, spent from reserve, lapsed.

    ``allotted`` counts the allowance given when a side's Phase 1 begins (the pool is set to it);
    ``lapsed`` counts the pips that went unused: reserved pips at the end of the enemy's turn
    and the pool's unspent pips when a new allowance replaces them.
    """

    brigade_id: str
    brigade: str
    brigadier: str
    side: str
    allotted: int = 0
    spent: int = 0
    reserved: int = 0
    reserved_spent: int = 0
    lapsed: int = 0
    pips_after: int = 0
    reserved_after: int = 0
    pips_before: int = 0  # at the start of the turn
    reserved_before: int = 0

    @property
    def any(self) -> bool:
        return bool(self.allotted or self.spent or self.reserved or self.reserved_spent or self.lapsed)


@dataclass(frozen=True)
class HealthChange:
    unit_id: str
    unit: str
    side: str
    before: str  # Health value, e.g. "fresh"
    after: str

    @property
    def destroyed(self) -> bool:
        return self.after == Health.DESTROYED.value


@dataclass(frozen=True)
class UnitRow:
    """A unit at the end of the turn."""

    id: str
    name: str
    side: str
    brigade: str
    kind: str
    formation: str
    stands: int
    stands_start: int
    micro_hits: int
    health: str
    markers: tuple[str, ...]
    x: float
    y: float
    facing_deg: float


@dataclass(frozen=True)
class SideInfo:
    id: str
    name: str
    colour: str


@dataclass(frozen=True)
class TurnSummary:
    """Everything printed for one game turn. Built by :func:`build_turn_summary`."""

    battle_name: str
    turn: int
    game_file: str
    sides: tuple[SideInfo, ...]
    events: tuple[EventLine, ...]
    unit_losses: tuple[Losses, ...]
    brigade_losses: tuple[Losses, ...]
    side_losses: tuple[Losses, ...]
    markers: tuple[MarkerChange, ...]
    pips: tuple[PipUse, ...]
    melee: tuple[EventLine, ...]
    health: tuple[HealthChange, ...]
    units: tuple[UnitRow, ...]
    #: stands on the table by side id, at the start (index 0) and at the end of turns 1..turn
    strength: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    battle_end: Battle | None = None
    phase_at_end: str = ""

    def losses_of(self, unit_id: str) -> Losses | None:
        return next((u for u in self.unit_losses if u.id == unit_id), None)


MELEE_TYPES = frozenset({"melee", "charge"})
_TURN_CHANGING = frozenset({"next_phase", "end_turn"})


def last_seq_by_turn(events: Iterable[Any]) -> dict[int, int]:
    """The last journal entry of each game turn that has one."""
    out: dict[int, int] = {}
    for e in events:
        out[e.turn] = max(out.get(e.turn, 0), e.seq)
    return out


def turn_end_states(
    game: Any, last_turn: int | None = None, events: Sequence[Any] | None = None
) -> list[Battle]:
    """The battle at the start (index 0) and at the end of each turn 1..``last_turn``.

    The end of a turn is the state after its last journal entry (:meth:`Game.state_at`, which
    replays from the nearest snapshot); a turn without entries leaves the battle as it was.
    """
    events = game.events() if events is None else events
    last = last_seq_by_turn(events)
    top = last_turn if last_turn is not None else max([game.battle.turn, *last])
    states = [game.scenario]
    for t in range(1, top + 1):
        seq = last.get(t)
        states.append(game.state_at(seq) if seq else states[-1])
    return states


def _stands(d: Mapping[str, Any] | None) -> int:
    return int(d.get("stands", 0)) if d else 0


def unit_losses_in(changes: Changes) -> dict[str, tuple[int, int]]:
    """Stands lost and restored by each unit in one event's changes: ``{unit_id: (lost, restored)}``.

    A unit added or removed by the umpire is not a casualty and is not counted.
    """
    out: dict[str, tuple[int, int]] = {}
    for uid, (before, after) in changes.units.items():
        if before is None or after is None:
            continue
        d = _stands(before) - _stands(after)
        if d:
            out[uid] = (max(d, 0), max(-d, 0))
    return out


def _markers_of(d: Mapping[str, Any] | None) -> set[str]:
    return set(d.get("markers", ())) if d else set()


def _label(value: str) -> str:
    return value.replace("_", " ").capitalize()


def _pip_uses(events: Sequence[Any], start: Battle, end: Battle) -> tuple[PipUse, ...]:
    tally: dict[str, dict[str, int]] = {}
    for e in events:
        for bid, (before, after) in e.changes.brigades.items():
            if before is None or after is None:
                continue
            t = tally.setdefault(
                bid, dict.fromkeys(("allotted", "spent", "reserved", "reserved_spent", "lapsed"), 0)
            )
            d_pool = int(after.get("staff_pips", 0)) - int(before.get("staff_pips", 0))
            d_res = int(after.get("staff_pips_reserved", 0)) - int(before.get("staff_pips_reserved", 0))
            if d_res > 0:
                t["reserved"] += d_res
                d_pool += d_res  # the reserved pips came out of the pool
            elif d_res < 0:
                t["lapsed" if e.type in _TURN_CHANGING else "reserved_spent"] += -d_res
            if e.type in _TURN_CHANGING and d_pool:
                # a new Phase 1 sets the pool to the allowance: unspent pips do not carry over
                t["allotted"] += int(after.get("staff_pips", 0))
                t["lapsed"] += int(before.get("staff_pips", 0))
            elif d_pool < 0:
                t["spent"] += -d_pool
            elif d_pool > 0:
                t["allotted"] += d_pool
    out = []
    for bid, b in end.brigades.items():
        t = tally.get(bid, {})
        first = start.brigades.get(bid)
        out.append(
            PipUse(
                brigade_id=bid,
                brigade=b.name,
                brigadier=b.brigadier.name,
                side=end.oob.side_name(b.side),
                pips_after=b.staff_pips,
                reserved_after=b.staff_pips_reserved,
                pips_before=first.staff_pips if first is not None else 0,
                reserved_before=first.staff_pips_reserved if first is not None else 0,
                **t,
            )
        )
    return tuple(out)


def build_turn_summary(game: Any, turn: int) -> TurnSummary:
    """The summary of game turn ``turn`` of an open :class:`storage.game.Game`.

    Raises :class:`ReportError` for a turn the game has not reached.
    """
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise ReportError(f"a turn is a whole number, not {turn!r}")
    all_events = game.events()
    last = last_seq_by_turn(all_events)
    top = max([game.battle.turn, *last])
    if not 1 <= turn <= top:
        raise ReportError(f"the game has turns 1 to {top}, not {turn}")
    states = turn_end_states(game, turn, all_events)
    start, end = states[turn - 1], states[turn]
    events = [e for e in all_events if e.turn == turn]

    lines = tuple(
        EventLine(
            seq=e.seq,
            side=end.oob.side_name(e.side),
            phase=Phase.title_of(e.phase),
            kind=e.type,
            summary=e.summary,
            steps=tuple(
                StepLine(s.text, tuple(s.dice), tuple(str(m) for m in s.modifiers), s.rule) for s in e.steps
            ),
        )
        for e in events
    )

    # casualties, from the recorded changes
    per_unit: dict[str, list[int]] = {}
    unit_info: dict[str, Mapping[str, Any]] = {}
    markers: list[MarkerChange] = []
    for e in events:
        for uid, (lost, restored) in unit_losses_in(e.changes).items():
            acc = per_unit.setdefault(uid, [0, 0])
            acc[0] += lost
            acc[1] += restored
        for uid, (before, after) in e.changes.units.items():
            unit_info[uid] = after or before or {}
            if before is None or after is None:
                continue
            b, a = _markers_of(before), _markers_of(after)
            if a != b:
                markers.append(
                    MarkerChange(
                        e.seq,
                        uid,
                        str((after or before).get("name", uid)),
                        tuple(_label(m) for m in sorted(a - b)),
                        tuple(_label(m) for m in sorted(b - a)),
                    )
                )

    def unit_of(battle: Battle, uid: str):
        return battle.units.get(uid)

    unit_losses = []
    for uid, (lost, restored) in per_unit.items():
        u = unit_of(end, uid) or unit_of(start, uid)
        info = unit_info.get(uid, {})
        name = u.name if u else str(info.get("name", uid))
        side = end.oob.side_name(u.side if u else str(info.get("side", "")))
        brigade_id = u.brigade if u else str(info.get("brigade", ""))
        br = end.brigades.get(brigade_id) or start.brigades.get(brigade_id)
        unit_losses.append(
            Losses(
                uid,
                name,
                side,
                br.name if br else brigade_id,
                lost,
                restored,
                _stands_of(start, uid),
                _stands_of(end, uid),
            )
        )
    unit_losses.sort(key=lambda x: (x.side, x.brigade, -x.lost, x.name))

    brigade_losses = []
    for bid, br in end.brigades.items():
        ids = {u.id for u in end.oob.units_of_brigade(bid)} | {u.id for u in start.oob.units_of_brigade(bid)}
        lost = sum(per_unit.get(i, [0, 0])[0] for i in ids)
        restored = sum(per_unit.get(i, [0, 0])[1] for i in ids)
        brigade_losses.append(
            Losses(
                bid,
                br.name,
                end.oob.side_name(br.side),
                br.name,
                lost,
                restored,
                start.oob.stands(brigade=bid),
                end.oob.stands(brigade=bid),
            )
        )
    side_losses = []
    for s in end.oob.sides:
        ids = {u.id for u in end.units.values() if u.side == s.id} | {
            u.id for u in start.units.values() if u.side == s.id
        }
        side_losses.append(
            Losses(
                s.id,
                s.name,
                s.name,
                "",
                sum(per_unit.get(i, [0, 0])[0] for i in ids),
                sum(per_unit.get(i, [0, 0])[1] for i in ids),
                start.oob.stands(side=s.id),
                end.oob.stands(side=s.id),
            )
        )

    health = []
    for uid, u in end.units.items():
        before = start.units.get(uid)
        if before is None:
            continue
        if before.health != u.health:
            health.append(
                HealthChange(uid, u.name, end.oob.side_name(u.side), before.health.value, u.health.value)
            )

    units = []
    for s in end.oob.sides:
        for br in end.oob.brigades_of(s.id):
            for u in end.oob.units_of_brigade(br.id):
                units.append(
                    UnitRow(
                        u.id,
                        u.name,
                        s.name,
                        br.name,
                        u.kind.label,
                        u.formation.label,
                        u.stands,
                        u.stands_start,
                        u.micro_hits,
                        u.health.value,
                        tuple(m.label for m in sorted(u.markers)),
                        u.x,
                        u.y,
                        u.facing_deg,
                    )
                )

    strength = {s.id: tuple(b.oob.stands(side=s.id) for b in states) for s in end.oob.sides}
    return TurnSummary(
        battle_name=end.name,
        turn=turn,
        game_file=Path(str(getattr(game, "path", ""))).name,
        sides=tuple(SideInfo(s.id, s.name, s.colour) for s in end.oob.sides),
        events=lines,
        unit_losses=tuple(unit_losses),
        brigade_losses=tuple(brigade_losses),
        side_losses=tuple(side_losses),
        markers=tuple(markers),
        pips=_pip_uses(events, start, end),
        melee=tuple(line for line in lines if line.kind in MELEE_TYPES),
        health=tuple(health),
        units=tuple(units),
        strength=strength,
        battle_end=end,
        phase_at_end=f"Turn {end.turn}, {end.oob.side_name(end.active_side)}: {end.phase.title}",
    )


def _stands_of(battle: Battle, uid: str) -> int:
    u = battle.units.get(uid)
    return u.stands if u else 0


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
    out.append(
        _table(
            [
                "Brigade (Brigadier)",
                "At start",
                "Allotted",
                "Spent",
                "Reserved",
                "From reserve",
                "Lapsed",
                "Now",
            ],
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
                for p in s.pips
            ),
            (1, 2, 3, 4, 5, 6, 7),
        )
    )

    out.append("<h2 style='margin-top:16pt; margin-bottom:4pt'>Events</h2>")
    if not s.events:
        out.append("<p class='muted'>No events were recorded in this turn.</p>")
    else:
        cur = None
        for ev in s.events:
            head = (ev.side, ev.phase)
            if head != cur:
                out.append(f"<h3>{_e(ev.side)} — {_e(ev.phase)}</h3>")
                cur = head
            # a step that says the same as the summary is not printed again: its dice and rule
            # go on the summary line
            same = [st for st in ev.steps if _same_text(st.text, ev.summary)]
            steps = [st for st in ev.steps if not _same_text(st.text, ev.summary)]
            extra = "".join(step_html(StepLine("", st.dice, st.modifiers, st.rule)) for st in same)
            out.append(
                f"<p style='margin:4pt 0 0 0'><span class='seq'>#{ev.seq}</span> <b>{_e(ev.summary)}</b>"
                f"{extra}</p>"
            )
            if steps:
                out.append("<ul style='margin-top:0; margin-bottom:2pt'>")
                for st in steps:
                    out.append(f"<li>{step_html(st)}</li>")
                out.append("</ul>")

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
                        _e(_label(h.before)),
                        f"<b class='loss'>{_e(_label(h.after))}</b>"
                        if h.destroyed
                        else f"<b>{_e(_label(h.after))}</b>",
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
            status = _label(u.health)
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


def page_size_for(locale: QLocale | None = None) -> QPageSize:
    """US Letter where the locale measures in the US system, A4 everywhere else."""
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


def page_layout_for(locale: QLocale | None = None) -> QPageLayout:
    """The page: A4 or Letter from the locale, portrait, 15 mm margins."""
    return QPageLayout(
        page_size_for(locale),
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


def print_document(doc: QTextDocument, printer: Any, footer: str = "") -> int:
    """Print ``doc`` on a QPrinter or QPdfWriter with its own page layout and resolution."""
    painter = QPainter()
    if not painter.begin(printer):
        raise ReportError("the printer could not be started")
    try:
        return paint_pages(doc, painter, printer.pageLayout(), printer.resolution(), printer.newPage, footer)
    finally:
        painter.end()


def write_pdf(doc: QTextDocument, path: str | Path, title: str = "", locale: QLocale | None = None) -> Path:
    """Print ``doc`` to a PDF file on A4 or Letter (from the locale), with 15 mm margins."""
    p = Path(path)
    if not p.parent.is_dir():
        raise ReportError(f"{p}: there is no folder {p.parent} to write the report in")
    if p.is_dir():
        raise ReportError(f"{p}: this is a folder; give a file name for the report")
    try:
        with open(p, "ab"):
            pass
    except OSError as exc:
        raise ReportError(f"{p}: the report cannot be written there ({exc.strerror})") from None
    writer = QPdfWriter(str(p))
    writer.setPageLayout(page_layout_for(locale))
    writer.setResolution(300)
    writer.setTitle(title)
    writer.setCreator("Brigadier")
    print_document(doc, writer, title)
    del writer  # the file is finished when the writer goes
    if not p.exists() or p.stat().st_size == 0:
        raise ReportError(f"{p}: the report could not be written")
    return p


def write_turn_pdf(game: Any, turn: int, pdf_path: str | Path, locale: QLocale | None = None) -> Path:
    """Print the summary of turn ``turn`` of an open game to a PDF file."""
    summary = build_turn_summary(game, turn)
    doc = turn_document(summary, getattr(game, "tables", None))
    return write_pdf(doc, pdf_path, f"{summary.battle_name} — turn {summary.turn}", locale)


def write_turn_html(game: Any, turn: int, html_path: str | Path) -> Path:
    """Write the summary of turn ``turn`` as one HTML file, its pictures inside it."""
    summary = build_turn_summary(game, turn)
    imgs = report_images(summary, getattr(game, "tables", None))
    text = summary_html(
        summary,
        _png_data_uri(imgs[MAP_SRC]) if MAP_SRC in imgs else None,
        _png_data_uri(imgs[CHART_SRC]),
    )
    p = Path(html_path)
    if not p.parent.is_dir():
        raise ReportError(f"{p}: there is no folder {p.parent} to write the report in")
    try:
        p.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"{p}: the report cannot be written there ({exc.strerror})") from None
    return p


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
