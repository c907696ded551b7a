"""The rule tables: every number the program uses, with the rule it comes from.

The tables live in ``resources/rules/*.toml``. Each entry is ``{ value = ..., rule = "RULE-..." }``
when a chapter gives the number, or ``{ value = ..., club_default = true, reason = "..." }`` when
none of the chapters here does, so the interface can show club defaults as such.

A club edits a copy: :func:`load_tables` reads the bundled tables and then the club's files over
them. Every entry of a club file must be one the bundled tables know, of the same kind and in
range, and a club copy changes club defaults only: a row a chapter gives (its ``rule``) is copied
as it is, or the club's number would be cited as the rule's (:func:`club_change_problem`). Any
mistake raises :class:`~rules.errors.TableError` naming the file, the line and the problem (with
the rule), and nothing of the club's copy is used.

A few entries are marked ``fixed = true``: numbers the rules fix and the program cannot vary
(the health thresholds, which every unit's health is worked out from). They are shown with the
rest, but a club copy or a save that changes one is refused with the rule that fixes it.

Word and list entries are checked too: a terrain type's ``sight`` is one of clear, limited, blocks
or crest, its ``cover`` none, light or heavy, its yes/no effects are ``true`` or ``false`` and
``formations_barred`` is a list of formation names.

>>> t = load_tables()
>>> t.value("shooting.to_hit.short.rifled_musket"), t.entry("shooting.to_hit.short.rifled_musket").rule
(4, 'RULE-04-2.3')
>>> t.entry("command.staff_pips.per_brigade_per_turn").club_default
True
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from rules import limits
from rules.battle.words import Formation
from rules.errors import TableError

RULE_ID = re.compile(r"^RULE-0\d-\d+\.\d+")


@dataclass(frozen=True)
class Entry:
    """One number (or word) of the rule tables and where it comes from."""

    key: str  # "shooting.to_hit.short.rifled_musket"
    value: Any
    rule: str | None = None
    club_default: bool = False
    reason: str = ""
    source: str = ""  # the file it was read from
    line: int | None = None
    overridden: bool = False  # set by a club's copy
    fixed: bool = False  # a rule number the program cannot vary: shown, never changed

    @property
    def fixed_problem(self) -> str:
        """Why a changed value of a fixed entry is refused."""
        return f"{self.key} is fixed by {self.rule}: {self.reason}; a club copy cannot change it"

    @property
    def citation(self) -> str:
        return self.rule if self.rule else "club default"


# Ranges that values must fall in, by key pattern. The first matching pattern applies.
_RANGES: list[tuple[str, type | tuple[type, ...], float | None, float | None]] = [
    ("shooting.to_hit.*", int, 2, 6),
    ("shooting.save.*", int, 2, 6),
    ("shooting.dice.disorder_on_natural", int, 1, 6),
    ("shooting.dice.*", int, 1, 10),
    ("shooting.to_hit_modifier.*", int, -5, 5),
    ("shooting.save_modifier.*", int, -5, 5),
    ("shooting.canister.napoleon_automatic_disorder", int, 0, 1),
    ("shooting.buildings.*", int, 1, 20),
    ("shooting.*", (int, float), 0, 200),
    ("discipline.*", int, 1, 6),
    ("melee.modifier.*", int, -6, 6),
    ("melee.leader_loss.*", int, 0, 6),
    ("melee.outcome.breakthrough_margin", int, 1, 30),
    ("melee.outcome.*_micro_hits", int, 0, 1),
    ("melee.outcome.loser_stand_loss", int, 0, 10),
    ("melee.engaged.*", int, 0, 10),
    ("melee.*", (int, float), 0, 360),
    ("movement.refused_flank.lasts", str, None, None),
    ("movement.refused_flank.stands_wheeled", int, 1, 2),
    ("movement.*", (int, float), 0, 360),
    ("command.end_of_turn.*", int, 0, 1),
    ("command.*", int, 0, 20),
    ("units.health.*", int, 1, 99),
    ("units.*", (int, float), 0.1, 12),
    ("terrain.arc.forward_deg", (int, float), 1, 89),
    ("terrain.arc.*", (int, float), 1, 180),
    ("terrain.enfilade.*", (int, float), 0, 1),
    ("terrain.elevation.*", (int, float), 0, 12),
    ("terrain.sight.*", (int, float), 0, 12),
    ("terrain.spotting.*_in", (int, float), 0, 1000),
    ("terrain.spotting.*", bool, None, None),
    ("terrain.overhead.*", int, 0, 2),
    ("terrain.cover.*", (int, float), 0, 2),
    ("terrain.priority.*", (int, float), 0, 100),
    ("terrain.matrix.*.move_per_in", (int, float), 1, 10),
    ("terrain.matrix.*.sight_limit_in", (int, float), 0, 100),
    ("terrain.matrix.*.melee_defence", int, -6, 6),
    ("terrain.matrix.*.cover_frontal_only", bool, None, None),
    ("terrain.matrix.*.disorders_line", bool, None, None),
    ("terrain.matrix.*.impassable", bool, None, None),
    ("terrain.matrix.*.sight", str, None, None),
    ("terrain.matrix.*.cover", str, None, None),
    ("terrain.matrix.*.formations_barred", list, None, None),
    ("terrain.*", (int, float), 0, 1000),
]

# The words a word-valued entry may hold, by key pattern.
_WORDS: list[tuple[str, tuple[str, ...]]] = [
    ("movement.refused_flank.lasts", ("moves", "turn", "hand")),
    ("terrain.matrix.*.sight", ("clear", "limited", "blocks", "crest")),
    ("terrain.matrix.*.cover", ("none", "light", "heavy")),
]

# List-valued entries: the words each item may be, by key pattern.
_LISTS: list[tuple[str, tuple[str, ...]]] = [
    ("terrain.matrix.*.formations_barred", tuple(f.value for f in Formation)),
]

assert all(p.count("*") <= 1 for p, *_ in (*_RANGES, *_WORDS, *_LISTS)), "one * at most in a key pattern"


def _matches(key: str, pattern: str) -> bool:
    """Whether ``key`` fits ``pattern``, where one ``*`` stands for any run of characters (as in
    :func:`fnmatch.fnmatchcase`, without its regular expressions)."""
    head, star, tail = pattern.partition("*")
    if not star:
        return key == pattern
    return len(key) >= len(head) + len(tail) and key.startswith(head) and key.endswith(tail)


_KIND_NAMES = {bool: "true or false", str: "a word in quotes", list: 'a list like ["line"]'}


def _kind_text(kinds: type | tuple[type, ...]) -> str:
    ks = kinds if isinstance(kinds, tuple) else (kinds,)
    if all(k in (int, float) for k in ks):
        return "a number"
    return " or ".join(_KIND_NAMES.get(k, k.__name__) for k in ks)


def _by_top(rules: list[tuple]) -> dict[str, list[tuple]]:
    """Key-pattern rules grouped by their first word, in their order, so that a key is tried only
    against the patterns that can fit it."""
    out: dict[str, list[tuple]] = {}
    for rule in rules:
        out.setdefault(rule[0].split(".", 1)[0], []).append(rule)
    return out


assert not any(p.startswith("*") for p, *_ in (*_RANGES, *_WORDS, *_LISTS)), (
    "a key pattern starts with a word"
)
_RANGES_BY_TOP = _by_top(_RANGES)


def _check_words(key: str, value: Any) -> str | None:
    for pattern, words in _WORDS:
        if _matches(key, pattern) and value not in words:
            return f"{key} is {value!r}; use one of: {', '.join(words)}"
    for pattern, words in _LISTS:
        if _matches(key, pattern):
            for item in value:
                if not isinstance(item, str) or item not in words:
                    return f"{key} lists {item!r}, which is not one of: {', '.join(words)}"
            if len(set(value)) != len(value):
                return f"{key} names a formation twice"
    return None


def _check_value(key: str, value: Any) -> str | None:
    """Return a problem with ``value`` for ``key``, or None."""
    for pattern, kinds, lo, hi in _RANGES_BY_TOP.get(key.split(".", 1)[0], ()):
        if _matches(key, pattern):
            ks = kinds if isinstance(kinds, tuple) else (kinds,)
            if isinstance(value, bool) != (bool in ks) or not isinstance(value, ks):
                if ks == (int,) and isinstance(value, float):
                    return f"{key} must be a whole number, not {limits._show(value)}"
                return f"{key} must be {_kind_text(kinds)}, not {limits._show(value)}"
            if isinstance(value, (str, list)):
                return _check_words(key, value)
            if (
                lo is not None
                and hi is not None
                and isinstance(value, (int, float))
                and not lo <= value <= hi
            ):
                return f"{key} is {limits._show(value)}, outside {lo} to {hi}"
            return None
    return None


@lru_cache(maxsize=16)
@lru_cache(maxsize=16)
def _lines(text: str) -> tuple[str, ...]:
    return tuple(text.splitlines())


@lru_cache(maxsize=16)
def _headers(text: str) -> dict[str, int]:
    """The index of the first line of each ``[table]`` header in a TOML text."""
    out: dict[str, int] = {}
    for i, line in enumerate(_lines(text)):
        stripped = line.strip()
        if stripped.startswith("["):
            out.setdefault(stripped, i)
    return out


def _line_of(text: str, key_path: list[str]) -> int | None:
    """The line of ``key_path`` (a table path ending with the entry name) in a TOML text."""
    lines = _lines(text)
    *table, name = key_path
    start = 0
    if table:
        i = _headers(text).get("[" + ".".join(table) + "]")
        if i is None:
            j = _headers(text).get("[" + ".".join(key_path) + "]")
            return None if j is None else j + 1
        start = i + 1
    for i in range(start, len(lines)):
        stripped = lines[i].lstrip()
        if stripped.startswith("[") and i > start - 1 and table:
            break
        if stripped.startswith(name) and stripped[len(name) :].lstrip().startswith("="):
            return i + 1
    return None


def _parse_file(name: str, text: str, source: str) -> dict[str, Entry]:
    """Parse one TOML table file into entries keyed ``<file stem>.<path>``."""
    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))  # saved with a BOM, as Windows editors do
    except (RecursionError, ValueError) as exc:
        if isinstance(exc, tomllib.TOMLDecodeError):
            m = re.search(r"line (\d+)", str(exc))
            raise TableError(
                f"this is not valid TOML: {exc}", source, int(m.group(1)) if m else None
            ) from None
        if isinstance(exc, ValueError):  # an integer of more digits than Python reads
            raise TableError(f"this holds a number too long to read: {exc}", source) from None
        raise TableError(f"lists or tables nest more than {limits.MAX_DEPTH} deep", source) from None
    if limits.depth_of(data, limits.MAX_DEPTH) > limits.MAX_DEPTH:
        raise TableError(f"lists or tables nest more than {limits.MAX_DEPTH} deep", source)
    entries: dict[str, Entry] = {}

    def walk(node: Mapping[str, Any], path: list[str]) -> None:
        for k, v in node.items():
            p = [*path, k]
            if not isinstance(v, Mapping):
                raise TableError(
                    f"'{'.'.join(p)}' must be a table like {{ value = ..., rule = \"RULE-...\" }}",
                    source,
                    _line_of(text, p),
                )
            if "value" in v:
                entries[".".join([name, *p])] = _entry(name, p, v, text, source)
            else:
                walk(v, p)

    walk(data, [])
    return entries


def _entry(name: str, p: list[str], v: Mapping[str, Any], text: str, source: str) -> Entry:
    key = ".".join([name, *p])
    line = _line_of(text, p)
    extra = set(v) - {"value", "rule", "club_default", "reason", "fixed"}
    if extra:
        raise TableError(f"{key} has unknown field(s): {', '.join(sorted(extra))}", source, line)
    rule = v.get("rule")
    club = v.get("club_default", False)
    if not isinstance(club, bool):
        raise TableError(f"{key}: club_default must be true or false", source, line)
    if rule is not None and (not isinstance(rule, str) or not RULE_ID.match(rule)):
        raise TableError(f'{key}: rule must be a rule id like "RULE-06-3.3", not {rule!r}', source, line)
    if rule is None and not club:
        raise TableError(f"{key} needs a rule id or club_default = true with a reason", source, line)
    if club and not str(v.get("reason", "")).strip():
        raise TableError(f"{key} is a club default and needs a reason", source, line)
    fixed = v.get("fixed", False)
    if not isinstance(fixed, bool):
        raise TableError(f"{key}: fixed must be true or false", source, line)
    if fixed and (club or rule is None or not str(v.get("reason", "")).strip()):
        raise TableError(f"{key} is fixed and needs its rule id and a reason, not club_default", source, line)
    problem = _check_value(key, v["value"])
    if problem:
        raise TableError(problem, source, line)
    return Entry(
        key=key,
        value=v["value"],
        rule=rule,
        club_default=club,
        reason=str(v.get("reason", "")),
        source=source,
        line=line,
        fixed=fixed,
    )


class RuleTables:
    """All rule tables in force: the bundled ones, with any club copy laid over them."""

    def __init__(self, entries: Mapping[str, Entry]):
        self._entries = dict(entries)

    def __iter__(self) -> Iterator[Entry]:
        return iter(sorted(self._entries.values(), key=lambda e: e.key))

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    def entry(self, key: str) -> Entry:
        try:
            return self._entries[key]
        except KeyError:
            raise TableError(f"the rule tables have no entry '{key}'") from None

    def value(self, key: str) -> Any:
        return self.entry(key).value

    def keys(self, prefix: str = "") -> list[str]:
        return sorted(k for k in self._entries if k.startswith(prefix))

    def with_values(self, values: Mapping[str, Any]) -> RuleTables:
        """A copy with some values changed (validated as a club file would be)."""
        entries = dict(self._entries)
        for key, value in values.items():
            old = self.entry(key)
            problem = _check_value(key, value)
            if problem:
                raise TableError(problem)
            if old.fixed and value != old.value:
                raise TableError(old.fixed_problem)
            entries[key] = replace(old, value=value, overridden=True)
        return RuleTables(entries)

    # -- typed look-ups used by the rules ------------------------------------------
    def to_hit(self, weapon: str, band: str) -> Entry:
        return self.entry(f"shooting.to_hit.{band}.{weapon}")

    def save(self, cover: str) -> Entry:
        return self.entry(f"shooting.save.{cover}_cover")

    def discipline(self, quality: str) -> Entry:
        return self.entry(f"discipline.quality.{quality}")

    def melee_modifier(self, name: str) -> Entry:
        return self.entry(f"melee.modifier.{name}")

    def move_rate(self, formation: str) -> Entry:
        return self.entry(f"movement.rate.{formation}")

    def to_dict(self) -> dict[str, Any]:
        """The values only, keyed by entry; what a save keeps of the tables it was played with."""
        return {k: e.value for k, e in sorted(self._entries.items())}


_IN_FORCE: dict[tuple[int, str], RuleTables] = {}


def in_force(base: RuleTables, values: Mapping[str, Any] | None) -> RuleTables:
    """The tables in force in a game: ``base`` (the tables it began with) with the values the
    umpire changed during it laid over them (:attr:`rules.battle.battle.Battle.table_values`). The same
    values give the very same object, so what is worked out once for a table is not worked out
    again.

    >>> t = load_tables()
    >>> in_force(t, {}) is t, in_force(t, {"melee.charge.infantry_range_in": 10.0}).value("melee.charge.infantry_range_in")
    (True, 10.0)
    """
    if not values:
        return base
    import json

    key = (id(base), json.dumps(values, sort_keys=True, default=str))
    got = _IN_FORCE.get(key)
    if got is None:
        if len(_IN_FORCE) > 64:
            _IN_FORCE.clear()
        got = _IN_FORCE[key] = base.with_values(values)
        got._base = base  # kept alive while its key (the base's id) is in use
    return got


def _bundled_files() -> Iterable[tuple[str, str, str]]:
    folder = resources.files("resources").joinpath("rules")
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.name.endswith(".toml"):
            yield item.name[: -len(".toml")], item.read_text(encoding="utf-8"), f"resources/rules/{item.name}"


@lru_cache(maxsize=1)
def _bundled() -> RuleTables:
    entries: dict[str, Entry] = {}
    for name, text, source in _bundled_files():
        entries.update(_parse_file(name, text, source))
    return RuleTables(entries)


def club_change_problem(base: Entry, club: Entry) -> str | None:
    """Why a club copy's row may not stand against the bundled one, or None if it may.

    A club copy changes club defaults only: a row a chapter gives (it has a rule id and no
    ``club_default``) must be copied as it is, value and rule alike, or the club's number would be
    cited as the rule's; and a club default stays marked as one, so the interface never shows a
    club's number as a rule.

    >>> t = load_tables()
    >>> short = t.entry("shooting.range_band.short")
    >>> club_change_problem(short, replace(short, value=5.0))
    'shooting.range_band.short is 6.0 by RULE-04-2.3, a number the chapters give: a club copy changes club defaults only, and this one sets it to 5.0'
    """
    if base.club_default:
        if not club.club_default:
            cites = f"cites {club.rule}" if club.rule else "is not marked club_default = true"
            return (
                f"{base.key} is a club default (no chapter here gives it), but this copy {cites}: "
                "a club's number stays marked club_default = true with its reason"
            )
        return None
    if club.value != base.value:
        return (
            f"{base.key} is {_value_words(base.value)} by {base.rule}, a number the chapters give: "
            f"a club copy changes club defaults only, and this one sets it to {_value_words(club.value)}"
        )
    if club.club_default:
        return f"{base.key} is given by {base.rule}: a club copy cannot mark it a club default"
    if club.rule != base.rule:
        return f"{base.key} is given by {base.rule}; this copy cites {club.rule} for it"
    return None


def _value_words(value: Any) -> str:
    """A value as a table file writes it: 6.0, true, "limited"."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return f'"{value}"' if isinstance(value, str) else str(value)


def load_tables(club: str | Path | Iterable[str | Path] | None = None) -> RuleTables:
    """The bundled tables, with a club's edited copy laid over them if given.

    ``club`` is a TOML file or a folder of them, named like the bundled files (``melee.toml`` ...).
    """
    base = _bundled()
    if club is None:
        return base
    paths: list[Path] = []
    items = [club] if isinstance(club, (str, Path)) else list(club)
    for item in items:
        p = Path(item)
        if p.is_dir():
            paths.extend(sorted(p.glob("*.toml")))
        elif p.exists():
            paths.append(p)  # read below: anything but an ordinary file is refused there
        else:
            raise TableError("there is no such file or folder", str(p))
    if not paths:
        raise TableError("no .toml rule tables found there", str(club))
    entries = {e.key: e for e in base}
    names = sorted({k.split(".", 1)[0] for k in entries})
    for p in paths:
        if p.stem not in names:
            raise TableError(
                f"a club's file is named after the bundled table it changes ({', '.join(f'{n}.toml' for n in names)}); "
                f"'{p.name}' is not one of them",
                str(p),
            )
        from rules.errors import InvariantError

        try:
            text = limits.read_text(p, "a rule table file", limits.MAX_FILE_BYTES)
        except InvariantError as exc:
            raise TableError(str(exc), str(p)) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise TableError(f"cannot be read: {exc}", str(p)) from None
        for key, e in _parse_file(p.stem, text, str(p)).items():
            if key not in entries:
                raise TableError(
                    f"'{key}' is not an entry of the rule tables (a misspelling?)", str(p), e.line
                )
            base = entries[key]
            if type(base.value) is int and type(e.value) is float:
                raise TableError(f"{key} must be a whole number, not {e.value!r}", str(p), e.line)
            if base.fixed and e.value != base.value:
                raise TableError(base.fixed_problem, str(p), e.line)
            if e.fixed and not base.fixed:
                raise TableError(
                    f"{key}: only the bundled tables say which entries are fixed", str(p), e.line
                )
            problem = club_change_problem(base, e)
            if problem:
                raise TableError(problem, str(p), e.line)
            e = replace(e, fixed=base.fixed)
            entries[key] = replace(e, overridden=e.value != entries[key].value or e.rule != entries[key].rule)
    return RuleTables(entries)
