"""Words for the umpire about a Trigger Window: why it opened for a defender, what each reaction
costs or why it is not allowed, and the numbered list a terminal shows, as the dialog shows them.

Pure text from the rules and the tables (no Qt): the dialogs and the command line both use it.
"""

from __future__ import annotations

from rules.battle.battle import Battle
from rules.reactions.declare import CostKind, Option, Threat, Window
from rules.reactions.triggers import DefenderChoice, Trigger
from rules.tables import RuleTables

#: The name of each Trigger Window (RULE-04-1.2), as its dialog and the players' pages title it.
WINDOW_TITLES = {
    Window.A: "Trigger Window A — Maneuver Interruption",
    Window.B: "Trigger Window B — Assault & Charge Interruption",
}


def inches(x: float) -> str:
    """A distance as the umpire reads a tape, to the tenth of an inch as everywhere in Brigadier:
    7.998 -> 8", 19.62 -> 19.6"."""
    return f"{round(x, 1):g}" + '"'


def why_opened(trigger: Trigger, threat: Threat, battle: Battle, tables: RuleTables) -> str:
    """Why the window opened for this defender, with the rule."""
    a = battle.unit(threat.attacker).name
    if trigger == Trigger.FORWARD_ARC:
        reach = tables.entry("movement.trigger.opportunity_fire_in")
        return f'{a} enters its 45 degree forward arc within {reach.value:g}" ({reach.citation})'
    if trigger == Trigger.FORWARD_ARC_SHORT:
        short = tables.entry("shooting.range_band.short")
        return f'{a} comes on into short range ({short.value:g}") in its forward arc (RULE-04-3.3)'
    if trigger == Trigger.SCREEN:
        reach = tables.entry("movement.trigger.screen_evade_in")
        return f'{a} closes within {reach.value:g}" of the screen ({reach.citation})'
    if trigger == Trigger.FLANK_ZONE:
        side = f"{threat.flank} " if threat.flank else ""
        return f"{a} enters its {side}flank zone (RULE-04-5.1 (Refuse the Flank, 5.0))"
    line = tables.entry("melee.charge.window_b_in")
    return f'{a} charges it and halts at the {line.value:g}" line ({line.citation})'


def cost_text(opt: Option) -> str:
    c = opt.cost
    if c is None:
        return ""
    if c.kind == CostKind.FREE:
        return "free"
    if c.kind == CostKind.RESERVED_PIP:
        return f"{c.pips} reserved Staff Pip ({c.rule})"
    return f"no reserved pip: a {c.check}+ Discipline Check ({c.rule})"


def unit_line(battle: Battle, uid: str) -> str:
    u = battle.unit(uid)
    marks = ", ".join(m.label for m in sorted(u.markers, key=lambda m: m.value))
    what = f"{u.stands} stands, {u.quality.label.lower()}, {u.formation.label.lower()}"
    return f"{u.name} ({what}{', ' + marks if marks else ''})"


def option_line(number: int | None, opt: Option) -> str:
    """One reaction in a numbered list: its number and title, then its cost, or why it is not
    allowed with the rule (no number: it cannot be chosen)."""
    head = f"{number}." if number is not None else "-"
    title = opt.reaction.title
    if opt.eligible:
        cost = cost_text(opt)
        return f"{head} {title}" + (f" ({cost})" if cost else "")
    return f"{head} {title}: not allowed: " + "; ".join(str(r) for r in opt.reasons)


def defender_menu(battle: Battle, offered: DefenderChoice, tables: RuleTables) -> tuple[list[str], list]:
    """The lines a terminal shows for one defender at a window and the reactions its numbers
    stand for (number 0: "No reaction")."""
    lines = [
        unit_line(battle, offered.defender),
        "  Why: " + "; ".join(why_opened(t, th, battle, tables) for t, th in offered.whys),
    ]
    choices: list = [None]
    for opt in offered.options:
        if opt.eligible:
            choices.append(opt.reaction)
            lines.append("  " + option_line(len(choices) - 1, opt))
        else:
            lines.append("  " + option_line(None, opt))
    lines.append("  0. No reaction")
    return lines, choices
