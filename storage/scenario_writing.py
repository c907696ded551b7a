"""Writing a battle as a scenario file (:func:`to_toml`): how a game in progress becomes a new
scenario (``brigadier export-scenario``), in the format :mod:`storage.scenario_parsing` reads back
to the same battle.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from rules.battle.battle import Battle
from storage.errors import ScenarioError
from storage.scenario_format import TERRAIN_KEYS, UNIT_KEYS


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and every control character (DEL and the C1
    controls too) escaped, everything else as it is, so that any name reads back as written."""
    out = ['"']
    for ch in text:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif o < 0x20 or 0x7F <= o <= 0x9F:
            out.append(f"\\u{o:04X}")
        elif 0xD800 <= o <= 0xDFFF:
            raise ScenarioError(f"{text[:20]!r} holds a character that cannot be written (a lone surrogate)")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ScenarioError(f"{v!r} cannot be written in a scenario")
        return repr(v)
    if isinstance(v, str):
        return _toml_string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_toml_string(str(k))} = {_toml_value(x)}" for k, x in v.items()) + " }"
    if v is None:
        raise ScenarioError("a value of none cannot be written in a scenario")
    raise ScenarioError(f"{v!r} cannot be written in a scenario")


def _block(header: str, items: list[tuple[str, Any]]) -> list[str]:
    return [header, *(f"{k} = {_toml_value(v)}" for k, v in items if v is not None), ""]


def to_toml(battle: Battle) -> str:
    """The battle as a scenario file: reading it back gives the same battle.

    This is how a game in progress becomes a new scenario (``brigadier export-scenario``).
    """
    title = re.sub(r"[\x00-\x1f\x7f-\x9f]", " ", battle.name)  # a comment holds no control characters
    lines = [
        f"# {title}: a Brigadier scenario. The format is described in resources/scenarios/README.md.",
        "",
    ]
    lines += _block(
        "[battle]",
        [
            ("name", battle.name),
            ("notes", battle.notes),
            ("table_width_in", battle.table_width_in),
            ("table_height_in", battle.table_height_in),
            ("turn", battle.turn),
            ("phase", battle.phase.value),
            ("active_side", battle.active_side),
            ("first_side", battle.first_side or battle.active_side),
            ("seed", battle.seed),
            # what has been done so far this turn (marches, stalled chargers, reactions, pending
            # melees): an export made in the middle of a turn goes on from there
            (
                "records",
                json.dumps(battle.extra.to_dict(), ensure_ascii=False, sort_keys=True)
                if battle.extra
                else None,
            ),
        ],
    )
    for s in battle.oob.sides:
        lines += _block("[[sides]]", [("id", s.id), ("name", s.name), ("colour", s.colour)])
    for b in battle.brigades.values():
        lines += _block(
            "[[brigades]]",
            [
                ("id", b.id),
                ("name", b.name),
                ("side", b.side),
                ("brigadier", b.brigadier.name),
                ("attached_to", b.brigadier.attached_to),
                ("brigadier_status", b.brigadier.status.value),
                ("staff_pips", b.staff_pips),
                ("staff_pips_reserved", b.staff_pips_reserved),
                ("state", b.state.value),
            ],
        )
    for u in battle.units.values():
        d = u.to_dict()
        if not d.get("hidden"):  # a unit in plain view says nothing of hiding
            d.pop("hidden", None)
        lines += _block("[[units]]", [(k, d[k]) for k in UNIT_KEYS if k in d])
    for z in battle.zones:
        d = z.to_dict()
        lines += _block("[[zones]]", [(k, d[k]) for k in ("side", "x0", "y0", "x1", "y1")])
    for f in battle.terrain:
        d = f.to_dict()
        lines += _block("[[terrain]]", [(k, d[k]) for k in TERRAIN_KEYS if k in d])
    return "\n".join(lines)
