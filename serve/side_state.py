"""What one side's page shows, as plain data: built from the side's view of the game
(:class:`storage.sightings.Sightings`), never from the umpire's battle filtered after the fact.

:func:`side_state` gives the side's own units in full (stands, micro-hits, health, formation,
markers), the enemy units it sees now as the table shows them, the ghosts of those it saw before
("last seen turn N"), the turn, the phase, the side to act, its own Brigadiers' Staff Pips, and its
own units' items of the phase checklist. Nothing of an enemy unit the side does not see is in it:
not its name, not its id, not its place. The journal's length is not in it either (how many
entries there are says how busy the other side has been).
"""

from __future__ import annotations

from typing import Any

from rules.battle.unit import Unit
from rules.battlefield.geometry import footprint
from rules.sight.knowledge import SideView, mentions
from rules.tables import RuleTables
from storage.checklist import open_items
from storage.sightings import Sightings


def _xy(p: Any) -> list[float]:
    return [round(float(p[0]), 2), round(float(p[1]), 2)]


#: The units' entries made, by what they hold: a unit that did not change between two steps is not
#: made again (a club game changes a few units a step, and its pages show about 150).
_MADE: dict[tuple, dict[str, Any]] = {}
_MADE_MAX = 8192


def _unit(u: Unit, own: bool, tables: RuleTables) -> dict[str, Any]:
    key = (
        own,
        id(tables),
        u.id,
        u.name,
        u.side,
        u.kind,
        u.formation,
        u.stands,
        u.x,
        u.y,
        u.facing_deg,
        u.markers,
        *((u.stands_start, u.micro_hits, u.quality, u.brigade) if own else ()),
    )
    made = _MADE.get(key)
    if made is None:
        if len(_MADE) >= _MADE_MAX:
            _MADE.clear()
        made = _MADE[key] = _made(u, own, tables)
    return made


def _made(u: Unit, own: bool, tables: RuleTables) -> dict[str, Any]:
    fp = footprint(u, tables)
    out: dict[str, Any] = {
        "id": u.id,
        "name": u.name,
        "side": u.side,
        "own": own,
        "kind": u.kind.label,
        "formation": u.formation.label,
        "stands": u.stands,
        "markers": sorted(m.label for m in u.markers),
        "corners": [_xy(c) for c in fp.corners],
        "front": [_xy(fp.left_front), _xy(fp.right_front)],
        "at": _xy((u.x, u.y)),
    }
    if own:  # what only the side itself knows of its units
        out |= {
            "stands_start": u.stands_start,
            "micro_hits": u.micro_hits,
            "health": u.health.label,
            "quality": u.quality.label,
            "brigade": u.brigade,
        }
    return out


def side_state(game: Any, side: str, seq: int | None = None) -> dict[str, Any]:
    """The page of ``side`` (its id or name) in ``game`` (a :class:`storage.game.Game`) as it
    stands, or (``seq``) as the side knew it just after that journal entry: then without the
    phase's checklist, which is the game's now."""
    sightings = Sightings.of(game)
    sightings.update()
    side = sightings.side(side)
    view: SideView = sightings.view(side, seq)
    battle = game.battle
    tables = game.tables
    enemy = battle.oob.enemy_of(side)  # (the sides never change in a game)
    units = [
        _unit(u, view.is_own(uid), tables) for uid, u in sorted(view.units.items(), key=lambda kv: kv[1].name)
    ]
    ghosts = [
        {
            "id": uid,
            "name": g.unit.name,
            "turn": g.turn,
            "corners": [_xy(c) for c in footprint(g.unit, tables).corners],
        }
        for uid, g in sorted(view.ghosts.items(), key=lambda kv: kv[1].unit.name)
    ]
    brigades = [
        {
            "id": b.id,
            "name": b.name,
            "brigadier": b.brigadier.name,
            "pips": b.staff_pips,
            "reserved": b.staff_pips_reserved,
        }
        for b in sorted(view.brigades.values(), key=lambda b: b.name)
    ]
    return {
        "battle": view.battle_name,
        "side": side,
        "side_name": view.side_name(side),
        "enemy_name": view.side_name(enemy),
        "colours": {s.id: s.colour for s in view.sides},
        "turn": view.turn,
        "phase": view.phase.label,
        "to_act": view.side_name(view.active_side),
        "table": [view.table_width_in, view.table_height_in],
        "terrain": [
            {
                "type": f.type.value,
                "linear": f.is_linear,
                "points": [_xy(p) for p in f.points],
                "level": f.level,
                "crest": [_xy(p) for p in f.crest],
            }
            for f in view.terrain
        ],
        "brigades": brigades,
        "units": units,
        "ghosts": ghosts,
        "checklist": _own_items(game, view) if seq is None else [],
        "then": seq is not None,  # a moment looked back at
    }


def _own_items(game: Any, view: SideView) -> list[dict[str, Any]]:
    """The side's own units' items of the phase checklist: none that is the umpire's, none that
    names or concerns an enemy unit the side does not see."""
    every = {u.name for u in game.battle.units.values()}
    known = view.names()
    hidden = every - known
    out = []
    for item in open_items(game):
        if item.kind == "umpire" or item.unit_id is None or not view.is_own(item.unit_id):
            continue
        if item.other_id is not None and item.other_id not in view.units:
            continue
        if mentions(item.text, hidden, known):
            continue
        out.append({"text": item.text, "rule": item.rule or ""})
    return out
