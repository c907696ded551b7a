"""An entry of the battle log in words (:mod:`gui.log_view`): its steps as listed under it (those that
add to its summary line), their dice, modifiers and rules, the units it concerns, when it was
made on the umpire's clock, and its detail as HTML, whole or as a side saw it.
"""

from __future__ import annotations

import html
from datetime import UTC
from typing import Any

from gui import theme
from rules.battle.words import Phase, plural


def step_text(step: Any) -> str:
    """One log line in words: what happened, the dice, the modifiers and the rule."""
    return str(step)


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()).rstrip(".").lower() == " ".join(b.split()).rstrip(".").lower()


def echoed_steps(event: Any) -> list[Any]:
    """The steps that say the same as the event's summary: the summary line stands for them."""
    return [s for s in getattr(event, "steps", ()) if _same_text(s.text, event.summary)]


def shown_steps(event: Any) -> list[Any]:
    """The steps listed under an event: those that add something to its summary line."""
    return [s for s in getattr(event, "steps", ()) if not _same_text(s.text, event.summary)]


def step_extras(step: Any) -> str:
    """A step's dice, modifiers and rule without its text, as plain words."""
    parts = []
    if step.dice:
        parts.append("dice " + " ".join(str(d) for d in step.dice))
    if step.modifiers:
        parts.append(", ".join(str(m) for m in step.modifiers))
    if step.rule:
        parts.append(f"[{step.rule}]")
    return " — ".join(parts)


def event_units(event: Any) -> list[str]:
    """The units an event concerns: those its steps name and those it changed."""
    out: dict[str, None] = {}
    for s in getattr(event, "steps", ()):
        for u in getattr(s, "units", ()):
            out[u] = None
    changes = getattr(event, "changes", None)
    if changes is not None:
        for u in changes.units:
            out[u] = None
    return list(out)


def local_time(stamp: str) -> str:
    """When an event was made, as the umpire reads a clock: the saved UTC time in the local time
    zone, "Sat 4 Jul 2026, 14:03:12" (the saved text itself where it is not a time)."""
    from datetime import datetime

    try:
        t = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return str(stamp)
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    t = t.astimezone()
    return f"{t:%a} {t.day} {t:%b %Y, %H:%M:%S}"


def event_html(event: Any, side_names: dict[str, str] | None = None) -> str:
    """The detail of one event, as the umpire reads it."""
    side = (side_names or {}).get(event.side, event.side)
    parts = [
        f"<h3 style='margin:0'>#{event.seq} {html.escape(event.summary)}</h3>",
        f"<p style='color:{theme.MUTED}; margin:2px 0 8px 0'>Turn {event.turn}, {html.escape(side)}, "
        f"{html.escape(Phase.title_of(event.phase))} — {html.escape(local_time(event.created_at))}</p>",
    ]
    extras = [x for x in (step_extras(s) for s in echoed_steps(event)) if x]
    if extras:
        parts.append(f"<p style='color:{theme.LINK}; margin:0 0 6px 0'>{html.escape('; '.join(extras))}</p>")
    steps = shown_steps(event)
    if steps:
        parts.append("<ol style='margin-top:0'>")
        for s in steps:
            line = html.escape(s.text)
            if s.dice:
                line += " <b>dice " + " ".join(str(d) for d in s.dice) + "</b>"
            if s.modifiers:
                line += (
                    f"<br><span style='color:{theme.MUTED}'>"
                    + html.escape(", ".join(str(m) for m in s.modifiers))
                    + "</span>"
                )
            if s.rule:
                line += f" <span style='color:{theme.LINK}'>[{html.escape(s.rule)}]</span>"
            parts.append(f"<li>{line}</li>")
        parts.append("</ol>")
    if event.rolls:
        parts.append("<p><b>Dice rolled</b><br>")
        parts.append(
            "<br>".join(f"{html.escape(r.purpose)}: {' '.join(str(d) for d in r.dice)}" for r in event.rolls)
        )
        parts.append("</p>")
    ch = event.changes
    changed = []
    if ch.units:
        changed.append(plural(len(ch.units), "unit"))
    if ch.brigades:
        changed.append(plural(len(ch.brigades), "brigade"))
    if ch.terrain:
        changed.append(plural(len(ch.terrain), "terrain feature"))
    for k, (a, b) in ch.game.items():
        if k == "extra":  # what the rules keep for the turn: name it, not its raw contents
            kept = (
                sorted({*(a or {}), *(b or {})})
                if isinstance(a or {}, dict) and isinstance(b or {}, dict)
                else []
            )
            changed.append(
                "the turn's records" + (f" ({', '.join(x.replace('_', ' ') for x in kept)})" if kept else "")
            )
        elif k == "table_values":  # the umpire changed the rule tables: the steps say which values
            changed.append("the rule tables in force")
        else:
            changed.append(f"{k} {a} → {b}")
    if changed:
        parts.append(f"<p style='color:{theme.MUTED}'>Changed: {html.escape('; '.join(changed))}</p>")
    return "".join(parts)


def seen_html(seen: Any, side_names: dict[str, str] | None = None, whose: str = "") -> str:
    """The detail of an entry as a side saw it (:class:`rules.sight.knowledge.SeenEvent`)."""
    side = (side_names or {}).get(seen.side, seen.side)
    parts = [
        f"<h3 style='margin:0'>{html.escape(seen.summary)}</h3>",
        f"<p style='color:#666; margin:2px 0 8px 0'>Turn {seen.turn}, {html.escape(side)}, "
        f"{html.escape(Phase.title_of(seen.phase))}"
        + (f" — as the {html.escape(whose)} side saw it" if whose else "")
        + ("" if seen.whole else " (seen in part)")
        + "</p>",
    ]
    extras = [x for x in (step_extras(s) for s in echoed_steps(seen)) if x]
    if extras:
        parts.append(f"<p style='color:#1a5fb4; margin:0 0 6px 0'>{html.escape('; '.join(extras))}</p>")
    steps = shown_steps(seen)
    if steps:
        parts.append("<ol style='margin-top:0'>")
        for s in steps:
            line = html.escape(s.text)
            if s.dice:
                line += " <b>dice " + " ".join(str(d) for d in s.dice) + "</b>"
            if s.rule:
                line += f" <span style='color:#1a5fb4'>[{html.escape(s.rule)}]</span>"
            parts.append(f"<li>{line}</li>")
        parts.append("</ol>")
    return "".join(parts)
