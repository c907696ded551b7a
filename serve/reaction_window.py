"""A Trigger Window as the defending side's page shows it: each defender's reactions, those it may
take with their cost and what each may lead to (the exact chances, never the program's dice), and
the reasons, with their rules, of those it may not. Built by the umpire's window from what its
dialog shows (:class:`gui.reaction_dialog.ReactionDialog`), and sent to the side's devices.

No line names a unit the side does not see (the mover, which opened the window, excepted).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from rules.battle.battle import Battle
from rules.chances import Chances, percent_text
from rules.describe import WINDOW_TITLES, cost_text, inches, why_opened
from rules.procedure import Choice
from rules.reactions.triggers import TriggerWindow
from rules.sight.knowledge import mentions
from rules.tables import RuleTables


def window_id(window: TriggerWindow) -> str:
    """The same for the same window of the same move, whichever process asks."""
    return f"{window.window.value}-{window.mover}-{window.along_in:.3f}"


def _clean(lines: Iterable[str], hidden: set[str], known: set[str]) -> list[str]:
    return [line for line in lines if not mentions(line, hidden, known)]


def window_page(
    battle: Battle,
    window: TriggerWindow,
    tables: RuleTables,
    seen_names: Iterable[str],
    chances: Callable[[list[Choice]], Chances] | None = None,
) -> dict[str, Any]:
    """The window for the defending side's page (``seen_names``: the names the side knows now)."""
    mover = battle.unit(window.mover)
    known = set(seen_names) | {mover.name}
    hidden = {u.name for u in battle.units.values()} - known
    side = battle.unit(window.defenders[0].defender).side if window.defenders else ""
    defenders = []
    for d in window.defenders:
        options = []
        for opt in d.options:
            entry: dict[str, Any] = {
                "key": opt.reaction.value,
                "label": f"{opt.reaction.number}. {opt.reaction.title}",
                "allowed": opt.eligible,
            }
            if opt.eligible:
                may = ""
                if chances is not None:
                    try:
                        c = chances([Choice(d.defender, opt.reaction)])
                        may = "; ".join(
                            _clean(
                                (
                                    f"{percent_text(o.chance)}: " + "; ".join(str(s) for s in o.lines)
                                    for o in c.outcomes
                                ),
                                hidden,
                                known,
                            )[:3]
                        )
                    except Exception:  # noqa: BLE001 (the chances are a help: the choice stands without them)
                        may = ""
                entry["chance"] = " ".join(x for x in (cost_text(opt), may) if x)
            else:
                reasons = _clean((str(r) for r in opt.reasons), hidden, known)
                entry["reason"] = "; ".join(reasons) or "not allowed here"
                entry["rule"] = ""
            options.append(entry)
        options.append({"key": "none", "label": "No reaction", "allowed": True})
        why = "; ".join(why_opened(t, th, battle, tables) for t, th in d.whys)
        defenders.append(
            {
                "id": d.defender,
                "name": battle.unit(d.defender).name,
                "why": why if not mentions(why, hidden, known) else "",
                "options": options,
            }
        )
    return {
        "id": window_id(window),
        "side": side,
        "title": WINDOW_TITLES[window.window],
        "text": (
            f"{mover.name} is halted {inches(window.along_in)} along its path: your units may react."
            if window.along_in >= 0.05
            else f"{mover.name} is about to move: your units may react."
        ),
        "defenders": defenders,
    }
