"""Reading a scenario's TOML text into a battle (:func:`parse_scenario`): every section and value
checked, within the limits of every door (:mod:`rules.limits`), and a mistake raised as a
:class:`~storage.errors.ScenarioError` naming the line (the format and its checks of one value
are in :mod:`storage.scenario_format`).

>>> from storage.scenario import bundled_text
>>> parse_scenario(bundled_text("demo"), "demo.toml").name
'Oak Ridge'
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rules import limits
from rules.battle.battle import Battle, DeploymentZone
from rules.battle.order_of_battle import Brigade, OrderOfBattle, Side
from rules.battle.terrain import TerrainFeature, TerrainType
from rules.battle.unit import Arrival, Unit
from rules.battle.words import (
    BrigadeState,
    BrigadierStatus,
    Formation,
    GunType,
    Marker,
    Phase,
    Quality,
    UnitKind,
    Weapon,
)
from rules.errors import InvariantError, RulesError
from storage.errors import ScenarioError
from storage.scenario_format import (
    BATTLE_KEYS,
    BRIGADE_KEYS,
    SECTIONS,
    SIDE_KEYS,
    TERRAIN_KEYS,
    UNIT_KEYS,
    _choices,
    _enum,
    _list,
    _no_unknown,
    _num,
    _positive,
    _Reader,
    _required,
    _what,
    _whole,
)


def parse_scenario(text: str, source: str = "<scenario>") -> Battle:
    """Read a scenario from TOML text. ``source`` names the file in error messages.

    Every number is checked against its range (:mod:`rules.limits`), lists and tables may nest
    at most :data:`rules.limits.MAX_DEPTH` deep, and a battle may hold at most
    :data:`rules.limits.MAX_UNITS` units and :data:`rules.limits.MAX_TERRAIN` terrain features."""
    if len(text) > limits.MAX_FILE_BYTES:
        raise ScenarioError(f"the scenario is too big (at most {limits.MAX_FILE_BYTES:,} characters)", source)
    for section, most in (("units", limits.MAX_UNITS), ("terrain", limits.MAX_TERRAIN)):
        # counted before the whole file is read: a battle far too big is refused at once
        n = len(re.findall(rf"(?m)^[ \t]*\[\[[ \t]*{section}[ \t]*\]\]", text))
        if n > most:
            raise ScenarioError(
                f"{n:,} {section} is more than Brigadier handles (at most {most:,}); split the battle", source
            )
    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))  # saved with a BOM, as Windows editors do
    except RecursionError:
        raise ScenarioError(f"lists or tables nest more than {limits.MAX_DEPTH} deep", source) from None
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ScenarioError(
            f"this is not valid TOML: {msg}", source, int(m.group(1)) if m else None
        ) from None
    except ValueError as exc:  # a whole number of more digits than Python reads
        raise ScenarioError(f"this holds a number too long to read ({exc})", source) from None
    r = _Reader(text, source)
    if limits.depth_of(data, limits.MAX_DEPTH) > limits.MAX_DEPTH:
        raise ScenarioError(f"lists or tables nest more than {limits.MAX_DEPTH} deep", source)
    for key in data:
        if key not in SECTIONS:
            raise r.fail(
                f"unknown section or setting '{key}'; a scenario has {', '.join(SECTIONS)}", key, 0, key
            )
    settings = data.get("battle", {})
    if not isinstance(settings, Mapping):
        raise r.fail("[battle] must be a table of settings", "battle")
    _no_unknown(r, "battle", 0, settings, BATTLE_KEYS, "the [battle] settings")
    sides = _list(r, data, "sides")
    brigades = _list(r, data, "brigades")
    units = _list(r, data, "units")
    terrain = _list(r, data, "terrain")
    for section, most in (
        ("units", limits.MAX_UNITS),
        ("brigades", limits.MAX_BRIGADES),
        ("terrain", limits.MAX_TERRAIN),
    ):
        n = len(_list(r, data, section))
        if n > most:
            raise r.fail(
                f"{n:,} {section} is more than Brigadier handles (at most {most:,}); split the battle",
                section,
                most,
            )

    side_objs = [_side(r, i, s) for i, s in enumerate(sides)]
    if len(side_objs) != 2:
        raise r.fail(f"a battle has two sides ([[sides]]), not {len(side_objs)}", "sides")
    if side_objs[0].id == side_objs[1].id:
        raise r.fail(f"the two sides both have the id '{side_objs[0].id}'", "sides", 1, "id")
    side_ids = [s.id for s in side_objs]

    brigade_objs: dict[str, Brigade] = {}
    for i, b in enumerate(brigades):
        obj = _brigade(r, i, b, side_ids)
        if obj.id in brigade_objs:
            raise r.fail(f"two brigades have the id '{obj.id}'", "brigades", i, "id")
        brigade_objs[obj.id] = obj

    width = _positive(r, settings, "table_width_in", 72.0)
    height = _positive(r, settings, "table_height_in", 48.0)
    unit_objs: dict[str, Unit] = {}
    for i, u in enumerate(units):
        obj = _unit(r, i, u, brigade_objs, width, height)
        if obj.id in unit_objs:
            raise r.fail(f"two units have the id '{obj.id}'", "units", i, "id")
        unit_objs[obj.id] = obj
    for i, u in enumerate(units):
        parent = u.get("parent")
        if parent and parent not in unit_objs:
            raise r.fail(
                f"{_what('units', i, u)} has parent regiment '{parent}', which is not a unit here",
                "units",
                i,
                "parent",
            )
        if parent and unit_objs[parent].side != unit_objs[str(u["id"]).strip()].side:
            raise r.fail(
                f"{_what('units', i, u)}: its parent regiment {unit_objs[parent].name} is on the other side",
                "units",
                i,
                "parent",
            )
    for i, b in enumerate(brigades):
        att = b.get("attached_to")
        if att:
            if att not in unit_objs:
                raise r.fail(
                    f"{_what('brigades', i, b)}: the Brigadier is attached to '{att}', which is not a unit here",
                    "brigades",
                    i,
                    "attached_to",
                )
            if unit_objs[att].brigade != str(b["id"]).strip():
                raise r.fail(
                    f"{_what('brigades', i, b)}: the Brigadier can only attach to a unit of his own brigade, "
                    f"not to {unit_objs[att].name}",
                    "brigades",
                    i,
                    "attached_to",
                )

            b_obj = brigade_objs[str(b["id"]).strip()]
            brigade_objs[b_obj.id] = replace(b_obj, brigadier=replace(b_obj.brigadier, attached_to=att))

    features: list[TerrainFeature] = []
    for i, t in enumerate(terrain):
        f = _feature(r, i, t)
        if any(x.id == f.id for x in features):
            raise r.fail(f"two terrain features have the id '{f.id}'", "terrain", i, "id")
        features.append(f)

    try:
        oob = OrderOfBattle(tuple(side_objs), brigade_objs, unit_objs)
    except InvariantError as exc:
        raise ScenarioError(str(exc), source) from None

    turn = settings.get("turn", 1)
    if isinstance(turn, bool) or not isinstance(turn, int) or turn not in limits.TURN:
        raise r.fail(
            f"the starting turn must be {limits.TURN.text()} (a whole number), not {limits._show(turn)}",
            "battle",
            0,
            "turn",
        )
    try:
        phase = Phase.parse(settings.get("phase", "command"))
    except InvariantError:
        raise r.fail(
            f"unknown phase {settings.get('phase')!r}; use one of {_choices(Phase)}", "battle", 0, "phase"
        ) from None
    active = settings.get("active_side", side_ids[0])
    if active not in side_ids:
        raise r.fail(
            f"the active side {active!r} is not one of the sides ({', '.join(side_ids)})",
            "battle",
            0,
            "active_side",
        )
    first = settings.get("first_side", active)
    if first not in side_ids:
        raise r.fail(
            f"the first side {first!r} is not one of the sides ({', '.join(side_ids)})",
            "battle",
            0,
            "first_side",
        )
    seed = settings.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise r.fail(
            f"the dice seed must be a whole number from 0 up (0 for a random seed), not {seed!r}",
            "battle",
            0,
            "seed",
        )
    name = settings.get("name", "")
    if not isinstance(name, str) or not name.strip():
        raise r.fail("the battle needs a name", "battle", 0, "name")
    notes = settings.get("notes", "")
    if not isinstance(notes, str):
        raise r.fail("the notes must be text", "battle", 0, "notes")
    for key, value, most in (("name", name, limits.MAX_TEXT), ("notes", notes, limits.MAX_LONG_TEXT)):
        if len(value) > most:
            raise r.fail(f"the {key} is {len(value):,} characters long; at most {most:,}", "battle", 0, key)
    # where each side sets out its units (none: anywhere)
    zones = []
    for i, z in enumerate(_list(r, data, "zones")):
        try:
            zone = DeploymentZone.from_dict(z)
        except InvariantError as exc:
            raise r.fail(f"deployment zone {i + 1}: {exc}", "zones", i) from None
        if zone.side not in {s.id for s in oob.sides}:
            raise r.fail(
                f"deployment zone {i + 1} is of the side '{zone.side}', which the battle does not have",
                "zones",
                i,
                "side",
            )
        if zone.x1 > width or zone.y1 > height or zone.x0 < 0 or zone.y0 < 0:
            raise r.fail(f'deployment zone {i + 1} runs off the {width:g}" x {height:g}" table', "zones", i)
        zones.append(zone)
    try:
        return Battle(
            zones=tuple(zones),
            name=name.strip(),
            oob=oob,
            terrain=tuple(features),
            turn=turn,
            active_side=active,
            phase=phase,
            table_width_in=width,
            table_height_in=height,
            seed=seed,
            notes=notes,
            first_side=first,
            extra=_records(r, settings),
        )
    except InvariantError as exc:
        raise ScenarioError(str(exc), source) from None


def _records(r: _Reader, settings: Mapping[str, Any]) -> dict[str, Any]:
    """The turn's records (``records`` in [battle]): what has been done so far this turn (the
    allowance each unit has marched, the chargers that stalled, the reactions taken, the melees
    pending), as JSON text, written by an export of a game in the middle of a turn."""
    text = settings.get("records")
    if text is None:
        return {}
    if not isinstance(text, str):
        raise r.fail("records must be the text Brigadier wrote there", "battle", 0, "records")
    from storage.errors import SaveFileError
    from storage.journal import loads

    try:
        data = loads(text, "the turn's records")
    except SaveFileError as exc:
        raise r.fail(exc.problem, "battle", 0, "records") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise r.fail("the turn's records must be a table", "battle", 0, "records")
    try:
        limits.shallow(data, "the turn's records")
    except InvariantError as exc:
        raise r.fail(str(exc), "battle", 0, "records") from None
    return data


def _side(r: _Reader, i: int, s: Mapping[str, Any]) -> Side:
    _no_unknown(r, "sides", i, s, SIDE_KEYS, _what("sides", i, s))
    colour = s.get("colour", "#1f3a93")
    if not isinstance(colour, str) or not re.fullmatch(r"#[0-9A-Fa-f]{6}", colour):
        raise r.fail(
            f'{_what("sides", i, s)}: colour must be like "#1f3a93", not {colour!r}', "sides", i, "colour"
        )
    return Side(id=_required(r, "sides", i, s, "id"), name=_required(r, "sides", i, s, "name"), colour=colour)


def _brigade(r: _Reader, i: int, b: Mapping[str, Any], side_ids: list[str]) -> Brigade:
    sec = "brigades"
    _no_unknown(r, sec, i, b, BRIGADE_KEYS, _what(sec, i, b))
    bid = _required(r, sec, i, b, "id")
    side = _required(r, sec, i, b, "side")
    if side not in side_ids:
        raise r.fail(
            f"{_what(sec, i, b)} is on side '{side}', which is not one of {', '.join(side_ids)}",
            sec,
            i,
            "side",
        )
    brigadier = b.get("brigadier", "")
    if not isinstance(brigadier, str):
        raise r.fail(f"{_what(sec, i, b)}: the Brigadier's name must be text", sec, i, "brigadier")
    attached = b.get("attached_to")
    if attached is not None and not isinstance(attached, str):
        raise r.fail(
            f"{_what(sec, i, b)}: attached_to must be the id of one of its units", sec, i, "attached_to"
        )
    status = _enum(r, sec, i, b, "brigadier_status", BrigadierStatus, "active", "Brigadier status")
    state = _enum(r, sec, i, b, "state", BrigadeState, "steady", "brigade state")
    pips = _whole(r, sec, i, b, "staff_pips", 0, rng=limits.STAFF_PIPS)
    reserved = _whole(r, sec, i, b, "staff_pips_reserved", 0, rng=limits.STAFF_PIPS)
    try:
        return Brigade.from_dict(
            {
                "id": bid,
                "name": b.get("name") or bid,
                "side": side,
                "brigadier": {"name": brigadier, "attached_to": None, "status": status.value},
                "staff_pips": pips,
                "staff_pips_reserved": reserved,
                "state": state.value,
            }
        )
    except InvariantError as exc:
        raise r.fail(f"{_what(sec, i, b)}: {exc}", sec, i) from None


def _unit(
    r: _Reader, i: int, u: Mapping[str, Any], brigades: Mapping[str, Brigade], width: float, height: float
) -> Unit:
    sec = "units"
    _no_unknown(r, sec, i, u, UNIT_KEYS, _what(sec, i, u))
    uid = _required(r, sec, i, u, "id")
    bid = _required(r, sec, i, u, "brigade")
    if bid not in brigades:
        raise r.fail(
            f"{_what(sec, i, u)} belongs to brigade '{bid}', which does not exist "
            f"(brigades: {', '.join(brigades) or 'none'})",
            sec,
            i,
            "brigade",
        )
    side = u.get("side", brigades[bid].side)
    if side != brigades[bid].side:
        raise r.fail(
            f"{_what(sec, i, u)} is on side '{side}' but its brigade is on '{brigades[bid].side}'",
            sec,
            i,
            "side",
        )
    if "kind" not in u:
        raise r.fail(f"{_what(sec, i, u)} needs 'kind' ({_choices(UnitKind)})", sec, i)
    kind = _enum(r, sec, i, u, "kind", UnitKind, None, "unit type")
    if "stands" not in u:
        raise r.fail(f"{_what(sec, i, u)} needs 'stands'", sec, i)
    stands = _whole(r, sec, i, u, "stands", 0, rng=limits.STANDS)
    start = _whole(r, sec, i, u, "stands_start", stands, minimum=1, rng=limits.STANDS_START)
    if stands > start:
        raise r.fail(
            f"{_what(sec, i, u)} has {stands} stands, more than the {start} it started with", sec, i, "stands"
        )
    micro = _whole(r, sec, i, u, "micro_hits", 0)
    quality = _enum(r, sec, i, u, "quality", Quality, "regular", "quality")
    default_weapon = "none" if kind == UnitKind.ARTILLERY else "rifled_musket"
    weapon = _enum(r, sec, i, u, "weapon", Weapon, default_weapon, "weapon")
    gun = None
    if u.get("gun") is not None:
        gun = _enum(r, sec, i, u, "gun", GunType, None, "gun type")
    elif kind == UnitKind.ARTILLERY:
        raise r.fail(f"{_what(sec, i, u)} is artillery and needs 'gun' ({_choices(GunType)})", sec, i)
    default_formation = {
        UnitKind.ARTILLERY: "unlimbered",
        UnitKind.SKIRMISHERS: "skirmish",
        UnitKind.CAVALRY_SCREEN: "mounted",
        UnitKind.CAVALRY: "mounted",
    }.get(kind, "line")
    formation = _enum(r, sec, i, u, "formation", Formation, default_formation, "formation")
    # a unit still to arrive: when and where it comes on (its x and y are its entry place's)
    arrives = None
    if u.get("arrives") is not None:
        try:
            arrives = Arrival.from_dict(u["arrives"])
        except InvariantError as exc:
            raise r.fail(f"{_what(sec, i, u)}: {exc}", sec, i, "arrives") from None
    if arrives is not None and arrives.x is not None and arrives.y is not None:
        if not (0 <= arrives.x <= width and 0 <= arrives.y <= height):
            raise r.fail(
                f'{_what(sec, i, u)} arrives at ({arrives.x:g}, {arrives.y:g}), off the {width:g}" x {height:g}" table',
                sec,
                i,
                "arrives",
            )
    at_x, at_y = (arrives.x, arrives.y) if arrives is not None and arrives.x is not None else (0.0, 0.0)
    x = _num(r, sec, i, u, "x", at_x)
    y = _num(r, sec, i, u, "y", at_y)
    if not (0 <= x <= width and 0 <= y <= height):
        raise r.fail(
            f'{_what(sec, i, u)} at ({x:g}, {y:g}) is off the {width:g}" x {height:g}" table',
            sec,
            i,
            "x" if not 0 <= x <= width else "y",
        )
    facing = _num(r, sec, i, u, "facing_deg", 0.0, limits.FACING_DEG)
    traits = u.get("traits", [])
    if not isinstance(traits, list) or not all(isinstance(t, str) for t in traits):
        raise r.fail(
            f'{_what(sec, i, u)}: traits must be a list of words like ["rebel_yell"]', sec, i, "traits"
        )
    markers = u.get("markers", [])
    if not isinstance(markers, list):
        raise r.fail(f'{_what(sec, i, u)}: markers must be a list like ["disorder"]', sec, i, "markers")
    for m in markers:
        try:
            Marker.parse(m)
        except InvariantError:
            raise r.fail(
                f"{_what(sec, i, u)}: unknown marker {m!r}; use {_choices(Marker)}", sec, i, "markers"
            ) from None
    parent = u.get("parent")
    if parent is not None and not isinstance(parent, str):
        raise r.fail(f"{_what(sec, i, u)}: parent must be a unit id", sec, i, "parent")
    hidden = u.get("hidden", False)
    if not isinstance(hidden, bool):
        raise r.fail(f"{_what(sec, i, u)}: hidden must be true or false, not {hidden!r}", sec, i, "hidden")
    try:
        return Unit.from_dict(
            {
                "id": uid,
                "name": u.get("name") or uid,
                "side": side,
                "brigade": bid,
                "kind": kind.value,
                "stands": stands,
                "stands_start": start,
                "micro_hits": micro,
                "quality": quality.value,
                "weapon": weapon.value,
                "gun": gun.value if gun else None,
                "traits": traits,
                "formation": formation.value,
                "x": x,
                "y": y,
                "facing_deg": facing,
                "markers": markers,
                "parent": parent,
                "hidden": hidden,
                "arrives": arrives.to_dict() if arrives is not None else None,
            }
        )
    except InvariantError as exc:
        raise r.fail(str(exc), sec, i) from None


def _feature(r: _Reader, i: int, t: Mapping[str, Any]) -> TerrainFeature:
    sec = "terrain"
    _no_unknown(r, sec, i, t, TERRAIN_KEYS, _what(sec, i, t))
    _required(r, sec, i, t, "id")
    if "type" not in t:
        raise r.fail(f"{_what(sec, i, t)} needs 'type' ({_choices(TerrainType)})", sec, i)
    _enum(r, sec, i, t, "type", TerrainType, None, "terrain type")
    if "points" not in t:
        raise r.fail(f"{_what(sec, i, t)} needs 'points', a list of [x, y] in inches", sec, i)
    try:
        return TerrainFeature.from_dict(dict(t))
    except (InvariantError, RulesError) as exc:
        said = str(exc)
        key = next(
            (k for k in ("crest", "level", "width", "structural hits", "props") if k in said), "points"
        )
        key = {"width": "width_in", "structural hits": "structural_hits"}.get(key, key)
        raise r.fail(said, sec, i, key if key in t else None) from None
