"""Orders of battle from a spreadsheet: ``brigadier import-oob FILE.csv|FILE.xlsx OUT.toml`` and
File > Import order of battle.

One row per unit, with a header row naming the columns (in any order, any case):

* required: ``side``, ``brigade``, ``brigadier``, ``unit``, ``kind`` (infantry, cavalry, artillery),
  ``strength`` (men for infantry and cavalry, guns for a battery), ``quality`` (veteran, regular,
  green), ``weapon`` (a firearm: rifled_musket, smoothbore_musket, breechloading_carbine,
  repeating_rifle; for a battery its guns: 12pdr_napoleon, 3in_ordnance_rifle, 10pdr_parrott,
  12pdr_howitzer);
* optional: ``id``, ``formation``, ``traits`` (words separated by commas), ``x``, ``y``,
  ``facing``, ``arrives_turn``, ``arrives_at``.

Men become stands and guns become sections by the rule :class:`StrengthRule` states (a club
default, written at the head of the scenario): a stand for every 60 men, rounded, at least 2 and
at most 12; a section for every two guns, rounded up. A unit without a place is set out in its
side's deployment zone, the first side along the bottom edge facing north and the second along the
top facing south, brigade by brigade, for the umpire to move. A bad cell is refused with its row
(as the spreadsheet numbers it, the header being row 1), its column and why, every bad cell at
once, and nothing is written. The scenario is written with tomlkit, its comments and order kept:
each unit's men or guns beside its stands, the rule and the source at the top.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rules.battle.words import Formation, GunType, Quality, UnitKind, Weapon
from rules.errors import InvariantError
from storage.errors import ScenarioError

REQUIRED = ("side", "brigade", "brigadier", "unit", "kind", "strength", "quality", "weapon")
OPTIONAL = ("id", "formation", "traits", "x", "y", "facing", "arrives_turn", "arrives_at")
#: The most rows an order of battle may have (as :data:`rules.limits.MAX_UNITS`).
MAX_ROWS = 2_000
#: The colours of the first and second side.
SIDE_COLOURS = ("#1f3a93", "#8b1a1a")
#: How many bad cells a refusal lists, at most.
MAX_PROBLEMS = 20
#: The longest name of a side, brigade or unit.
MAX_NAME = 120


class OobImportError(ScenarioError):
    """An order of battle that cannot be imported: every bad cell, each with its row and column."""

    def __init__(self, problems: Sequence[str], source: str = ""):
        self.problems = list(problems)
        shown = self.problems[:MAX_PROBLEMS]
        more = len(self.problems) - len(shown)
        text = "; ".join(shown) + (f"; and {more} more" if more > 0 else "")
        super().__init__(f"{source}: {text}" if source else text)


@dataclass(frozen=True)
class StrengthRule:
    """How men become stands and guns sections (a club default, stated in the scenario)."""

    men_per_stand: int = 60
    min_stands: int = 2
    max_stands: int = 12
    guns_per_section: int = 2

    def stands(self, men: int) -> int:
        return max(self.min_stands, min(self.max_stands, round(men / self.men_per_stand)))

    def sections(self, guns: int) -> int:
        return max(1, math.ceil(guns / self.guns_per_section))

    def words(self) -> str:
        return (
            f"a stand for every {self.men_per_stand} men, rounded, at least {self.min_stands} and at most "
            f"{self.max_stands}; a battery's section for every {self.guns_per_section} guns, rounded up"
        )


# -- reading the rows ------------------------------------------------------------------------------


def read_rows(path: str | Path) -> tuple[list[str], list[dict[str, str]]]:
    """The header's column names (in lower case) and the rows of a .csv or .xlsx file as
    {column: text}."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".csv":
        try:
            with p.open(newline="", encoding="utf-8-sig") as f:
                table = list(csv.reader(f))
        except UnicodeDecodeError:
            raise OobImportError([f"{p.name} is not a text file in UTF-8: save it as CSV UTF-8"]) from None
        except OSError as exc:
            raise OobImportError([f"{p} cannot be read: {exc.strerror or exc}"]) from None
    elif suffix in (".xlsx", ".xlsm"):
        table = _xlsx_table(p)
    else:
        raise OobImportError([f"{p.name}: an order of battle is a .csv or .xlsx file"])
    table = [row for row in table if any(str(c).strip() for c in row)]
    if not table:
        raise OobImportError([f"{p.name} is empty: it needs a header row and a row for each unit"])
    header = [re.sub(r"\s+", "_", str(h).strip().lower()) for h in table[0]]
    if len(table) - 1 > MAX_ROWS:
        raise OobImportError(
            [f"{p.name} has {len(table) - 1} rows; an order of battle has at most {MAX_ROWS}"]
        )
    rows = []
    for cells in table[1:]:
        cells = [("" if c is None else str(c)).strip() for c in cells]
        rows.append({h: (cells[i] if i < len(cells) else "") for i, h in enumerate(header) if h})
    return header, rows


def _xlsx_table(p: Path) -> list[list[Any]]:
    try:
        import openpyxl
    except ModuleNotFoundError:
        raise OobImportError(
            ["reading .xlsx needs openpyxl, which is not installed; save the sheet as CSV"]
        ) from None
    try:
        wb = openpyxl.load_workbook(p, read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 (any file openpyxl cannot read is refused in words)
        raise OobImportError([f"{p.name} cannot be read as a spreadsheet: {exc}"]) from None
    try:
        ws = wb.worksheets[0]
        out = []
        for row in ws.iter_rows(values_only=True):
            out.append(
                ["" if v is None else (int(v) if isinstance(v, float) and v.is_integer() else v) for v in row]
            )
            if len(out) > MAX_ROWS + 1:
                break
        return out
    finally:
        wb.close()


# -- checking each cell ----------------------------------------------------------------------------


def _slug(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "_", text.lower().replace("'", "")).strip("_")
    return s or "x"


def side_colour(name: str, k: int) -> str:
    """A side's colour: Union blue, Confederate red (by its name), else by its order."""
    n = name.lower()
    if any(w in n for w in ("union", "federal", "north", "usa")):
        return SIDE_COLOURS[0]
    if any(w in n for w in ("confedera", "csa", "south", "rebel")):
        return SIDE_COLOURS[1]
    return SIDE_COLOURS[k]


def _choice(enum: Any, text: str, aliases: dict[str, str] | None = None) -> Any:
    key = text.strip().lower().replace("-", "_").replace(" ", "_")
    key = (aliases or {}).get(key, key)
    for m in enum:
        if key in (m.value, m.label.lower().replace(" ", "_")):
            return m
    raise ValueError(", ".join(m.value for m in enum))


_GUN_ALIASES = {
    "napoleon": "12pdr_napoleon",
    "parrott": "10pdr_parrott",
    "3_inch": "3in_ordnance_rifle",
    "ordnance_rifle": "3in_ordnance_rifle",
    "howitzer": "12pdr_howitzer",
}
_WEAPON_ALIASES = {
    "rifle": "rifled_musket",
    "rifled": "rifled_musket",
    "smoothbore": "smoothbore_musket",
    "carbine": "breechloading_carbine",
    "repeater": "repeating_rifle",
}


@dataclass
class _Row:
    n: int  # the spreadsheet's row number
    cells: dict[str, str]
    problems: list[str]

    def bad(self, column: str, why: str) -> None:
        self.problems.append(f"row {self.n}, {column}: {why}")

    def text(self, column: str) -> str:
        return self.cells.get(column, "").strip()

    def whole(self, column: str, what: str, lo: int, hi: int) -> int | None:
        raw = self.text(column)
        try:
            v = float(raw.replace(",", ""))
            if not v.is_integer():
                raise ValueError
            v = int(v)
        except ValueError:
            self.bad(column, f"{raw!r} is not {what}")
            return None
        if not lo <= v <= hi:
            self.bad(column, f"{v} is not {what} from {lo} to {hi}")
            return None
        return v

    def number(self, column: str, lo: float, hi: float) -> float | None:
        raw = self.text(column)
        try:
            v = float(raw)
            if not math.isfinite(v):
                raise ValueError
        except ValueError:
            self.bad(column, f"{raw!r} is not a number")
            return None
        if not lo <= v <= hi:
            self.bad(column, f"{v:g} is not from {lo:g} to {hi:g}")
            return None
        return v


@dataclass
class _Unit:
    row: int
    side: str
    brigade: str
    id: str
    name: str
    kind: UnitKind
    strength: int
    stands: int
    quality: Quality
    weapon: Weapon
    gun: GunType | None
    formation: Formation
    traits: list[str]
    x: float | None
    y: float | None
    facing: float | None
    arrives_turn: int | None
    arrives_at: str


def parse_rows(
    header: list[str], data: list[dict[str, str]], rule: StrengthRule, source: str = ""
) -> tuple[list[tuple[str, str]], dict, list[_Unit]]:
    """The sides (id, name), the brigades ({(side, name): (id, brigadier)}) and the units of the
    rows, or :class:`OobImportError` with every bad cell."""
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise OobImportError(
            [
                f"row 1: the column(s) {', '.join(missing)} are missing (the header row names {', '.join(h for h in header if h) or 'none'})"
            ],
            source,
        )
    unknown = [h for h in header if h and h not in REQUIRED + OPTIONAL]
    problems: list[str] = [
        f"row 1, {h}: not a column Brigadier reads (it reads {', '.join(REQUIRED + OPTIONAL)})"
        for h in unknown
    ]
    if not data:
        raise OobImportError(["there are no units: a row for each unit follows the header row"], source)
    sides: list[tuple[str, str]] = []
    brigades: dict[tuple[str, str], tuple[str, str]] = {}
    units: list[_Unit] = []
    ids: set[str] = set()
    for i, cells in enumerate(data, start=2):
        r = _Row(i, cells, problems)
        for c in ("side", "brigade", "unit"):
            if not r.text(c):
                r.bad(c, "empty")
            elif len(r.text(c)) > MAX_NAME:
                r.bad(c, f"longer than a name may be ({MAX_NAME} characters)")
        side, brigade, name = r.text("side"), r.text("brigade"), r.text("unit")
        if side and side not in [s for _, s in sides]:
            if len(sides) == 2:
                r.bad("side", f"{side!r} is a third side; a battle has two ({sides[0][1]} and {sides[1][1]})")
            else:
                sid = _slug(side)
                if sid in [s for s, _ in sides]:
                    sid += "2"
                sides.append((sid, side))
        try:
            kind = _choice(UnitKind, r.text("kind"))
        except ValueError as exc:
            r.bad("kind", f"{r.text('kind')!r} is not a kind of unit ({exc})")
            kind = None
        battery = kind == UnitKind.ARTILLERY
        strength = r.whole(
            "strength", "a number of guns" if battery else "a number of men", 1, 60 if battery else 10_000
        )
        try:
            quality = _choice(Quality, r.text("quality") or "regular")
        except ValueError as exc:
            r.bad("quality", f"{r.text('quality')!r} is not a quality ({exc})")
            quality = Quality.REGULAR
        weapon, gun = Weapon.RIFLED_MUSKET, None
        if battery:
            try:
                gun, weapon = _choice(GunType, r.text("weapon"), _GUN_ALIASES), Weapon.NONE
            except ValueError as exc:
                r.bad("weapon", f"{r.text('weapon')!r} is not a battery's guns ({exc})")
        elif kind is not None:
            try:
                weapon = _choice(Weapon, r.text("weapon") or "rifled_musket", _WEAPON_ALIASES)
            except ValueError as exc:
                r.bad("weapon", f"{r.text('weapon')!r} is not a firearm ({exc})")
        default_formation = {
            UnitKind.ARTILLERY: Formation.UNLIMBERED,
            UnitKind.CAVALRY: Formation.MOUNTED,
        }.get(kind, Formation.LINE)
        formation = default_formation
        if r.text("formation"):
            try:
                formation = _choice(Formation, r.text("formation"))
            except ValueError as exc:
                r.bad("formation", f"{r.text('formation')!r} is not a formation ({exc})")
        traits = [_slug(t) for t in r.text("traits").split(",") if t.strip()]
        uid = _slug(r.text("id")) if r.text("id") else _slug(name)[:24]
        if r.text("id") and uid in ids:
            r.bad("id", f"{r.text('id')!r} is the id of another unit already")
        base, k = uid, 2
        while uid in ids:
            uid, k = f"{base}_{k}", k + 1
        ids.add(uid)
        has_x, has_y = bool(r.text("x")), bool(r.text("y"))
        if has_x != has_y:
            r.bad("y" if has_x else "x", "a place needs both x and y")
        x = r.number("x", 0, 4000) if has_x and has_y else None
        y = r.number("y", 0, 4000) if has_x and has_y else None
        facing = r.number("facing", -360, 360) if r.text("facing") else None
        arrives = r.whole("arrives_turn", "a turn", 1, 1000) if r.text("arrives_turn") else None
        if r.text("arrives_at") and arrives is None and not r.text("arrives_turn"):
            r.bad("arrives_turn", "empty, but arrives_at says where it arrives: when?")
        if side and brigade and (side, brigade) not in brigades:
            bid = _slug(brigade)
            taken = {b for b, _ in brigades.values()}
            base, k = bid, 2
            while bid in taken:
                bid, k = f"{base}_{k}", k + 1
            brigades[(side, brigade)] = (bid, r.text("brigadier"))
        if kind is None or strength is None or not (side and brigade and name):
            continue
        stands = rule.sections(strength) if battery else rule.stands(strength)
        units.append(
            _Unit(
                i,
                side,
                brigade,
                uid,
                name,
                kind,
                strength,
                stands,
                quality,
                weapon,
                gun,
                formation,
                traits,
                x,
                y,
                facing,
                arrives,
                r.text("arrives_at"),
            )
        )
    if len(sides) < 2 and not problems:
        problems.append(f"every row is of one side ({sides[0][1] if sides else 'none'}): a battle has two")
    if problems:
        raise OobImportError(problems, source)
    return sides, brigades, units


# -- writing the scenario ------------------------------------------------------------------------


def _table_size(units: list[_Unit]) -> tuple[float, float]:
    n = len(units)
    return (72.0, 48.0) if n <= 60 else (144.0, 96.0)


def _set_out(
    units: list[_Unit], sides: list[tuple[str, str]], width: float, height: float
) -> dict[str, tuple[float, float, float]]:
    """Where each unit without a place stands: its side's deployment zone, brigade by brigade in
    rows along its own edge, 5" apart, a row 6" behind the one before."""
    places: dict[str, tuple[float, float, float]] = {}
    for k, (_sid, side) in enumerate(sides):
        free = [u for u in units if u.side == side and u.x is None]
        per_row = max(1, int((width - 8) // 5))
        for j, u in enumerate(free):
            col, row = j % per_row, j // per_row
            x = 4 + col * 5 + 2.5
            if k == 0:
                y, facing = height - 4 - row * 6, 0.0
            else:
                y, facing = 4 + row * 6, 180.0
            places[u.id] = (round(x, 1), round(min(max(y, 0.0), height), 1), facing)
    return places


def _rows_needed(units: list[_Unit], sides: list[tuple[str, str]], width: float) -> int:
    """How many rows the units set out need on the side that has the most of them."""
    per_row = max(1, int((width - 8) // 5))
    most = max((sum(1 for u in units if u.side == name and u.x is None) for _sid, name in sides), default=0)
    return max(1, -(-most // per_row))


def to_scenario(
    header: list[str],
    rows: list[dict[str, str]],
    rule: StrengthRule = StrengthRule(),
    source: str = "",
    name: str = "",
) -> str:
    """The scenario file (TOML) of the order of battle in ``rows`` (under ``header``)."""
    import tomlkit

    sides, brigades, units = parse_rows(header, rows, rule, source)
    width, height = _table_size(units)
    for u in units:
        if u.x is not None and not (0 <= u.x <= width and 0 <= (u.y or 0) <= height):
            width, height = max(width, math.ceil(u.x + 4)), max(height, math.ceil((u.y or 0) + 4))
    places = _set_out(units, sides, width, height)
    doc = tomlkit.document()
    title = name or Path(source).stem.replace("_", " ") or "Imported order of battle"
    doc.add(
        tomlkit.comment(
            f"{title}: an order of battle imported from {Path(source).name or 'a spreadsheet'} by brigadier import-oob."
        )
    )
    doc.add(tomlkit.comment(f"Strengths (a club default): {rule.words()}."))
    doc.add(
        tomlkit.comment(
            "Units without a place stand in their side's deployment zone (the first side along the bottom"
        )
    )
    doc.add(tomlkit.comment("edge, the second along the top), brigade by brigade, for the umpire to move."))
    doc.add(tomlkit.nl())
    battle = tomlkit.table()
    battle.add("name", title)
    battle.add("notes", f"Imported from {Path(source).name or 'a spreadsheet'}. Strengths: {rule.words()}.")
    battle.add("table_width_in", width)
    battle.add("table_height_in", height)
    battle.add("turn", 1)
    battle.add("phase", "command")
    battle.add("active_side", sides[0][0])
    battle.add("first_side", sides[0][0])
    doc.add("battle", battle)
    side_ids = {name: sid for sid, name in sides}
    aot = tomlkit.aot()
    for k, (sid, sname) in enumerate(sides):
        t = tomlkit.table()
        t.add("id", sid)
        t.add("name", sname)
        colour = side_colour(sname, k)
        if k == 1 and colour == aot[0]["colour"]:
            colour = SIDE_COLOURS[1] if colour == SIDE_COLOURS[0] else SIDE_COLOURS[0]
        t.add("colour", colour)
        aot.append(t)
    doc.add("sides", aot)
    aot = tomlkit.aot()
    for (side, bname), (bid, brigadier) in brigades.items():
        t = tomlkit.table()
        t.add("id", bid)
        t.add("name", bname)
        t.add("side", side_ids[side])
        t.add("brigadier", brigadier)
        aot.append(t)
    doc.add("brigades", aot)
    aot = tomlkit.aot()
    for u in units:
        t = tomlkit.table()
        t.add("id", u.id)
        t.add("name", u.name)
        t.add("brigade", brigades[(u.side, u.brigade)][0])
        t.add("kind", u.kind.value)
        if u.gun is not None:
            t.add("gun", u.gun.value)
        t.add("stands", u.stands)
        t["stands"].comment(f"{u.strength} {'guns' if u.gun is not None else 'men'}")
        t.add("quality", u.quality.value)
        if u.gun is None:
            t.add("weapon", u.weapon.value)
        if u.traits:
            t.add("traits", u.traits)
        t.add("formation", u.formation.value)
        x, y, facing = (
            (u.x, u.y, u.facing if u.facing is not None else 0.0) if u.x is not None else places[u.id]
        )
        if u.facing is not None:
            facing = u.facing
        if u.arrives_turn is not None:
            arr = tomlkit.inline_table()
            arr.update({"turn": u.arrives_turn, "at": u.arrives_at, "x": x, "y": y, "facing_deg": facing})
            t.add("arrives", arr)
        else:
            t.add("x", x)
            t.add("y", y)
            t.add("facing_deg", facing)
        aot.append(t)
    doc.add("units", aot)
    # each side's deployment zone: the band along its edge its units are set out in
    depth = min(12.0 + 6.0 * max(0, _rows_needed(units, sides, width) - 1), height / 2 - 2)
    aot = tomlkit.aot()
    for k, (sid, _name) in enumerate(sides):
        t = tomlkit.table()
        t.add("side", sid)
        t.add("x0", 0.0)
        t.add("y0", round(height - depth, 1) if k == 0 else 0.0)
        t.add("x1", width)
        t.add("y1", height if k == 0 else round(depth, 1))
        aot.append(t)
    doc.add("zones", aot)
    text = tomlkit.dumps(doc)
    # what is written loads as a scenario, or nothing is written
    from storage.scenario_parsing import parse_scenario

    try:
        parse_scenario(text, source or "imported.toml")
    except (ScenarioError, InvariantError) as exc:
        raise OobImportError([f"the order of battle does not make a scenario: {exc}"], source) from None
    return text


def import_oob(
    path: str | Path, out: str | Path, rule: StrengthRule = StrengthRule(), protect: Sequence[str | Path] = ()
) -> tuple[Path, int]:
    """Read the order of battle in ``path`` and write its scenario to ``out`` (all or nothing).
    Returns the file written and how many units it has."""
    from storage.outputs import atomic_write

    header, rows = read_rows(path)
    text = to_scenario(header, rows, rule, str(path))
    atomic_write(out, text, what="the scenario", protect=protect)
    return Path(out), len(rows)
