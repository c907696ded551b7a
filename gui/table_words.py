"""An entry of the rule tables in words, for the umpire: "Melee modifier: flank or rear" for the
key ``melee.modifier.flank_or_rear``, "To hit, short range: 12-pdr Napoleon" for
``shooting.to_hit.short.12pdr_napoleon``. Preferences shows an entry by these words, and its key
only on demand (a club's copy and the ``change_tables`` action name entries by key).

>>> entry_label("terrain.matrix.light_woods.move_per_in")
'Terrain, light woods: move per inch'
>>> entry_label("melee.charge.window_b_in")
'Charge: window B (inches)'
>>> entry_label("units.health.fresh_above_percent")
'Health: fresh above (percent)'
"""

from __future__ import annotations

#: A table of a file in words (``file.table``); a table not named here is its name in words.
TABLES = {
    "command.staff_pips": "Staff Pips",
    "command.end_of_turn": "At a turn's end",
    "discipline.quality": "Discipline Check by quality",
    "discipline.check": "Discipline Check",
    "melee.modifier": "Melee modifier",
    "melee.momentum": "Charge momentum",
    "melee.engaged": "Engaged in melee",
    "melee.outcome": "Melee outcome",
    "melee.charge": "Charge",
    "melee.leader_loss": "Leader Loss",
    "movement.rate": "Movement rate",
    "movement.minimum": "Minimum",
    "movement.crossing": "Crossing",
    "movement.trigger": "Trigger Window",
    "movement.refused_flank": "Refused flank",
    "movement.smoke": "Smoke",
    "shooting.dice": "Shooting dice",
    "shooting.range_band": "Range band",
    "shooting.max_range": "Maximum range",
    "shooting.to_hit": "To hit",
    "shooting.to_hit_modifier": "To-hit modifier",
    "shooting.save": "Save",
    "shooting.save_modifier": "Save modifier",
    "shooting.canister": "Canister",
    "shooting.overhead_fire": "Overhead fire",
    "shooting.buildings": "Buildings",
    "terrain.arc": "Arcs",
    "terrain.enfilade": "Enfilade",
    "terrain.elevation": "Elevation",
    "terrain.cover": "Cover",
    "terrain.sight": "Sight",
    "terrain.spotting": "Spotting",
    "terrain.priority": "Target priority",
    "terrain.overhead": "Overhead fire",
    "terrain.matrix": "Terrain",
    "units.health": "Health",
    "units.base_width": "Base width",
    "units.base_depth": "Base depth",
}

#: A word of a key as it is said.
WORDS = {
    "12pdr": "12-pdr",
    "10pdr": "10-pdr",
    "3in": "3-inch",
    "napoleon": "Napoleon",
    "parrott": "Parrott",
    "min": "minimum",
    "max": "maximum",
    "b": "B",
}

#: The unit a key's last word gives, said after the words.
UNITS = {"in": "(inches)", "deg": "(degrees)", "percent": "(percent)"}

#: A part of a key that is not its last, in words where its word alone says too little.
PARTS = {"short": "short range", "medium": "medium range", "long": "long range"}


def words(part: str) -> str:
    """One part of a key in words: ``move_per_in`` is "move per inch", ``retreat_in`` "retreat
    (inches)"."""
    tokens = part.split("_")
    unit = ""
    if len(tokens) > 1 and tokens[-1] in UNITS and tokens[-2] != "per":
        unit = UNITS[tokens.pop()]
    said = []
    for i, t in enumerate(tokens):
        if t == "in" and i > 0 and tokens[i - 1] == "per":
            said.append("inch")
        else:
            said.append(WORDS.get(t, t))
    return " ".join([*said, unit] if unit else said)


def entry_label(key: str) -> str:
    """The entry ``key`` of the rule tables in words: its table, then what it is."""
    stem, *parts = key.split(".")
    if not parts:
        return words(stem).capitalize()
    table = TABLES.get(f"{stem}.{parts[0]}")
    if table is None:
        first = words(parts[0])
        table = first[:1].upper() + first[1:]
    rest = [PARTS.get(p, words(p)) for p in parts[1:-1]] + [words(p) for p in parts[-1:] if len(parts) > 1]
    if len(rest) >= 2:
        table, rest = f"{table}, {', '.join(rest[:-1])}", rest[-1:]
    return f"{table}: {rest[0]}" if rest else table


__all__ = ["entry_label", "words"]
