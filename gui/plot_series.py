"""The course of the battle, turn by turn, as the Plots dock's charts show it (:mod:`gui.plots`):
the stands of each side, brigade and unit at the start and at the end of each turn, the stands
each side lost in each turn, and each unit's markers at the end of each turn.

The numbers come from the journal (:class:`BattleCourse`): the battle at the end of each turn is
read once (:meth:`storage.game.Game.state_at` at the turn's last entry, which starts from the
turn's snapshot) and kept, with the values the charts take from it. After an action, undo or redo
(the controller's ``eventsChanged``) only the turns whose entries changed are read again, usually
the current turn alone; the whole journal is read when another game is opened. So an action costs
the same late in a long game as early.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from gui.controller import ChangeSummary
from gui.interfaces import GameLike
from rules.battle.battle import Battle
from rules.battle.words import Marker
from storage.totals import TurnTotals, losses_by_side

if TYPE_CHECKING:
    from storage.game import Event


@dataclass(frozen=True)
class Series:
    """One line of a chart: its key (a side, brigade or unit id), label, colour and values by turn."""

    key: str
    label: str
    colour: str
    values: tuple[float | None, ...]


@dataclass(frozen=True)
class CourseData:
    """The course of the battle: values at the start (turn 0) and at the end of turns 1..N."""

    turns: tuple[int, ...]
    sides: tuple[Series, ...]  # stands on the table by side
    brigades: tuple[Series, ...]  # stands by brigade
    losses: tuple[Series, ...]  # stands lost in each turn by side (0 at the start)
    units: Mapping[str, Series]  # stands by unit (None where the unit was not in the battle)
    markers: Mapping[str, tuple[tuple[str, ...], ...]]  # each unit's markers at the end of each turn

    def values_at(self, series: Iterable[Series], turn: int) -> list[tuple[str, float | None]]:
        i = self.turns.index(turn) if turn in self.turns else None
        return [(s.label, s.values[i] if i is not None else None) for s in series]


EMPTY = CourseData((), (), (), (), {}, {})


class _OnDemand(Mapping[str, Any]):
    """A mapping whose values are made when first asked for: the charts follow one unit, so the
    series of the others are not put together after every action."""

    def __init__(self, keys: Mapping[str, Any], make: Callable[[str], Any]):
        self._keys = keys
        self._make = make
        self._made: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        if key not in self._keys:
            raise KeyError(key)
        if key not in self._made:
            self._made[key] = self._make(key)
        return self._made[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self)!r})"


def _same(a: tuple, b: tuple) -> bool:
    """Whether two keys of :meth:`BattleCourse.data` are the same: their objects the very same
    (the kept values of the turns and of the last turn, the sides and brigades), the rest equal."""
    return len(a) == len(b) and all(
        x is y
        or (not isinstance(x, (_Prefix, _Column, tuple)) and x == y)
        or (isinstance(x, tuple) and _same(x, y))
        for x, y in zip(a, b, strict=True)
    )


@lru_cache(maxsize=64)
def _marker_label(value: str) -> str:
    return Marker(value).label


@dataclass(frozen=True)
class _Column:
    """What the charts show of the battle at the end of one turn, read once from its state."""

    sides: dict[str, float]  # stands by side
    brigades: dict[str, float]  # stands by brigade, for the brigades in the battle
    units: dict[str, float]  # stands by unit
    info: dict[str, tuple[str, str]]  # each unit's name and side
    markers: dict[str, tuple[str, ...]]  # each unit's markers, by their labels

    @classmethod
    def of(cls, battle: Battle, before: Battle | None = None, column: _Column | None = None) -> _Column:
        """The values of ``battle``; given the ``column`` of a battle ``before`` it (the battle
        before an action), only the units that changed are read again."""
        if before is not None and column is not None and before.brigades.keys() == battle.brigades.keys():
            return cls._changed(battle, before, column)
        sides: dict[str, int] = {}
        brigades = dict.fromkeys(battle.brigades, 0)
        units: dict[str, float] = {}
        info: dict[str, tuple[str, str]] = {}
        markers: dict[str, tuple[str, ...]] = {}
        for u in battle.units.values():  # a unit still to arrive has no stands on the field
            sides[u.side] = sides.get(u.side, 0) + u.stands_on_table
            if u.brigade in brigades:
                brigades[u.brigade] += u.stands_on_table
            units[u.id] = float(u.stands_on_table)
            info[u.id] = (u.name, u.side)
            markers[u.id] = tuple(m.label for m in sorted(u.markers))
        return cls(
            {k: float(v) for k, v in sides.items()},
            {k: float(v) for k, v in brigades.items()},
            units,
            info,
            markers,
        )

    @classmethod
    def _changed(cls, battle: Battle, before: Battle, column: _Column) -> _Column:
        units, info, markers = dict(column.units), dict(column.info), dict(column.markers)
        old, new = before.units, battle.units
        changed = [uid for uid, u in new.items() if old.get(uid) is not u]
        gone = [uid for uid in old if uid not in new]
        shown = [
            uid
            for uid in changed
            if uid not in old
            or (new[uid].stands_on_table, new[uid].name, new[uid].side, new[uid].brigade, new[uid].markers)
            != (old[uid].stands_on_table, old[uid].name, old[uid].side, old[uid].brigade, old[uid].markers)
        ]
        if not shown and not gone:
            return column  # moved, or changed in nothing the charts show
        changed = shown
        for uid in gone:
            units.pop(uid, None)
            info.pop(uid, None)
            markers.pop(uid, None)
        for uid in changed:
            u = new[uid]
            units[uid] = float(u.stands_on_table)
            info[uid] = (u.name, u.side)
            markers[uid] = tuple(m.label for m in sorted(u.markers))
        sides: dict[str, float] = {}
        brigades = dict.fromkeys(battle.brigades, 0.0)
        for u in new.values():
            sides[u.side] = sides.get(u.side, 0.0) + u.stands_on_table
            if u.brigade in brigades:
                brigades[u.brigade] += u.stands_on_table
        return cls(sides, brigades, units, info, markers)

    @classmethod
    def of_totals(cls, totals: TurnTotals) -> _Column:
        """The same values, from the totals the save kept of a turn (:mod:`storage.totals`)."""
        sides: dict[str, float] = {}
        brigades = dict.fromkeys(totals.brigades, 0.0)
        units: dict[str, float] = {}
        info: dict[str, tuple[str, str]] = {}
        markers: dict[str, tuple[str, ...]] = {}
        for uid, u in totals.units.items():
            sides[u.side] = sides.get(u.side, 0.0) + u.stands
            if u.brigade in brigades:
                brigades[u.brigade] += u.stands
            units[uid] = float(u.stands)
            info[uid] = (u.name, u.side)
            markers[uid] = tuple(_marker_label(m) for m in u.markers)
        return cls(sides, brigades, units, info, markers)


@dataclass(frozen=True)
class _Prefix:
    """The values of the turns before the current one, by series: the part of each line that an
    action in the current turn cannot change, so it is put together once a turn."""

    turns: int
    sides: dict[str, tuple[float, ...]]
    brigades: dict[str, tuple[float | None, ...]]
    losses: dict[str, tuple[float, ...]]
    units: dict[str, tuple[float | None, ...]]
    markers: dict[str, tuple[tuple[str, ...], ...]]
    info: dict[str, tuple[str, str]]  # each unit's name and side where it was last in the battle

    @classmethod
    def of(
        cls, columns: Sequence[_Column], losses: Sequence[Mapping[str, int]], kept: _Prefix | None = None
    ) -> _Prefix:
        """The prefix of ``columns``; ``kept``, a prefix of the first of them (as read then, and
        unchanged since), gives the values of those turns, which are not put together again (a
        turn ended adds one turn, the undo of an End turn takes one off)."""
        if kept is not None and kept.turns != len(columns):
            return cls._from_kept(columns, losses, kept)
        return cls._whole(columns, losses)

    @classmethod
    def _whole(cls, columns: Sequence[_Column], losses: Sequence[Mapping[str, int]]) -> _Prefix:
        """Every turn put together (from a prefix of no turn)."""
        return cls._from_kept(columns, losses, cls(0, {}, {}, {}, {}, {}, {}))

    @classmethod
    def _from_kept(
        cls, columns: Sequence[_Column], losses: Sequence[Mapping[str, int]], kept: _Prefix
    ) -> _Prefix:
        n, k = len(columns), min(kept.turns, len(columns))
        new, new_losses = columns[k:], losses[k:]  # (none when turns were taken off)
        side_ids = dict.fromkeys(k2 for c in columns for k2 in c.sides)
        side_ids.update(dict.fromkeys(k2 for x in losses for k2 in x))
        brigade_ids = dict.fromkeys(k2 for c in columns for k2 in c.brigades)
        info: dict[str, tuple[str, str]] = {}
        for c in columns:
            info.update(c.info)
        zeros, nones, blank = (0.0,) * k, (None,) * k, ((),) * k

        def joined(old: dict, key: str, pad: tuple, tail: tuple) -> tuple:
            head = old.get(key)
            return (pad if head is None else head[:k]) + tail

        return cls(
            n,
            {i: joined(kept.sides, i, zeros, tuple(c.sides.get(i, 0.0) for c in new)) for i in side_ids},
            {i: joined(kept.brigades, i, nones, tuple(c.brigades.get(i) for c in new)) for i in brigade_ids},
            {
                i: joined(kept.losses, i, zeros, tuple(float(x.get(i, 0)) for x in new_losses))
                for i in side_ids
            },
            {i: joined(kept.units, i, nones, tuple(c.units.get(i) for c in new)) for i in info},
            {i: joined(kept.markers, i, blank, tuple(c.markers.get(i, ()) for c in new)) for i in info},
            info,
        )


class BattleCourse:
    """The values of each turn's end and the stands lost in each, kept between changes.

    A turn that has ended is read from the totals the save keeps of it
    (:meth:`storage.game.Game.turn_totals`, written with the entry that ended it), without
    rebuilding the battle at its end or reading its entries; the turn in progress is read from the
    battle as it stands and its own entries. A turn ended before the save kept totals is read from
    the journal (:meth:`storage.game.Game.state_at` and its entries).

    :meth:`update` reads only what the last change can have touched: the turns from the first
    one whose journal entries changed (the current turn, after an action) to the latest. The
    turns before it are kept, with their values put together once (:class:`_Prefix`). It reads
    every turn again (:meth:`rebuild`) only for another game, or when the journal does not add up
    to what is kept (its entries in the kept turns, plus those of the turns read, are not all of it).
    """

    def __init__(self) -> None:
        self.losses: list[dict[str, int]] = []  # index: turn; stands lost by side id
        self.reads = 0  # how many turns have been read (for the tests)
        self._columns: list[_Column] = []  # index: turn (0 = the start)
        self._last_of: list[int | None] = []  # index: turn; its last journal entry (None: it has none)
        self._count_upto: list[int] = []  # index: turn; journal entries filed in it or before
        self._max_upto: list[int] = []  # index: turn; the highest entry filed in it or before
        self._seq = 0  # the game's last journal entry when it was last read
        self._prefix: _Prefix | None = None  # the turns before the last, put together
        self._live: tuple[Battle | None, _Column | None] = (None, None)  # the battle now, and its column
        self._end: Battle | None = None  # the battle at the end of the last turn (its sides and brigades)
        self._end_at: int | None = -1  # the journal entry it is the battle after
        self._entry_losses: dict[int, tuple[Event, dict[str, int]]] = {}  # by journal entry
        # the losses of the turn in play as last read: (turn, its last entry read, that entry,
        # the losses by side); an action adds its own entries' to them
        self._turn_lost: tuple[int, int, Event, dict[str, int]] | None = None
        self._data: tuple[tuple, CourseData] | None = None  # the last series made, and what from

    def _losses_of(self, events: Sequence[Event]) -> dict[str, int]:
        """Stands lost by side in ``events``, each entry's losses worked out once (an action in
        the turn in play adds its own to those of the entries before it)."""
        out: dict[str, int] = {}
        kept = self._entry_losses
        for e in events:
            lost = kept.get(e.seq)
            if lost is None or lost[0] is not e:
                lost = kept[e.seq] = (e, losses_by_side([e]))
            for side, n in lost[1].items():
                out[side] = out.get(side, 0) + n
        return out

    def _losses_in_play(self, game: GameLike, turn: int) -> dict[str, int]:
        """Stands lost by side in ``turn``, the turn of the last entry: those read last time, when
        their last entry is still the same entry, with the entries after it added; otherwise (an
        undo took it back, another turn began) the whole turn read again."""
        kept = self._turn_lost
        out: dict[str, int] | None = None
        if kept is not None and kept[0] == turn:
            after = game.events_after(kept[1] - 1)
            if after and after[0] is kept[2]:
                out = dict(kept[3])
                for side, n in self._losses_of([e for e in after[1:] if e.turn == turn]).items():
                    out[side] = out.get(side, 0) + n
        if out is None:
            events = game.events(turn=turn)
            out = self._losses_of(events)
            last = events[-1] if events else None
        else:
            last = next((e for e in reversed(after) if e.turn == turn), kept[2])
        self._turn_lost = None if last is None else (turn, last.seq, last, out)
        return dict(out)

    @property
    def turns(self) -> int:
        """How many turns are kept, the start (turn 0) included."""
        return len(self._columns)

    def rebuild(self, game: GameLike) -> CourseData:
        """Read every turn: the ended ones from their totals, the others from the journal."""
        self._columns, self.losses, self._last_of = [_Column.of(game.scenario)], [{}], [None]
        self._count_upto, self._max_upto = [0], [0]
        self._live = (None, None)
        index = game.turn_index()
        top = max([game.battle.turn, *index])
        self._read_turns(game, 1, top, index, game.turn_totals())
        self._seq = game.last_seq
        self._prefix = None
        self.reads += 1
        return self.data()

    def update(self, game: GameLike, summary: ChangeSummary | None = None) -> CourseData:
        """Bring the course up to date with the journal after an action, undo or redo.

        Every change of the journal ends or starts at its last entry: an action or redo adds
        entries after those read last, an undo takes the last ones away. So the entries up to the
        lower of the two last numbers are as they were, and so is every turn whose entries all
        come before it; the turns after it (usually the current turn alone) are read again. A
        ``summary`` that resets everything (another game) reads every turn again.
        """
        if (summary is not None and summary.reset) or not self._columns:
            return self.rebuild(game)
        last = game.last_seq
        now = game.battle.turn
        kept = min(self._seq, last)
        top = len(self._columns) - 1
        first = top
        while first > 1 and self._max_upto[first - 1] > kept:
            first -= 1
        first = min(first, now)
        if first < 1:
            return self.rebuild(game)
        # the turns kept after the current one are read too: after an umpire's ruling that set
        # the turn back, the entries filed in them stand (the charts run to the latest turn)
        index = game.turn_index(first)
        if self._count_upto[first - 1] + sum(n for n, _ in index.values()) != last:
            # entries were filed in a kept turn: they cannot be read turn by turn
            return self.rebuild(game)
        end = max([now, *index])
        for kept_list in (self._columns, self.losses, self._last_of, self._count_upto, self._max_upto):
            del kept_list[first:]
        totals = game.turn_totals(first) if any(seq != last for _, seq in index.values()) else {}
        self._read_turns(game, first, end, index, totals)
        if self._prefix is not None and first < self._prefix.turns:
            # a turn the prefix holds was read again: only the turns before it are kept
            self._prefix = (
                None if first < 1 else _Prefix.of(self._columns[:first], self.losses[:first], self._prefix)
            )
        self._seq = last
        return self.data()

    def _read_turns(
        self,
        game: GameLike,
        first: int,
        end: int,
        index: Mapping[int, tuple[int, int]],
        totals: Mapping[int, TurnTotals],
    ) -> None:
        """Read turns ``first`` to ``end`` (those before are kept): ``index`` gives the entries of
        each (their count and the last), ``totals`` the totals kept, by the entry that ended a turn."""
        last = game.last_seq
        for t in range(first, end + 1):
            n, seq = index.get(t, (0, None))
            if seq is None:  # no entries: the battle is as it was at the end of the turn before
                column, lost = self._columns[t - 1], {}
            elif seq == last:  # the turn of the last entry: the battle as it stands
                battle, column = self._live
                if battle is not game.battle or column is None:
                    column = _Column.of(game.battle, battle, column)
                    self._live = (game.battle, column)
                lost = self._losses_in_play(game, t)
            elif seq in totals and totals[seq].turn == t:
                column, lost = _Column.of_totals(totals[seq]), dict(totals[seq].lost)
            else:  # ended before the save kept totals: read from the journal
                column, lost = _Column.of(game.state_at(seq)), self._losses_of(game.events(turn=t))
            self._columns.append(column)
            self.losses.append(lost)
            self._last_of.append(seq)
            self._count_upto.append(self._count_upto[t - 1] + n)
            self._max_upto.append(max(self._max_upto[t - 1], seq or 0))
            self.reads += 1
        # the battle whose sides and brigades the charts name: at the end of the last turn with
        # entries (the battle now, unless an umpire's ruling set the turn back)
        at = next((q for q in reversed(self._last_of) if q is not None), None)
        if at != self._end_at or at == last:
            self._end = game.scenario if at is None else game.battle if at == last else game.state_at(at)
            self._end_at = at

    def data(self) -> CourseData:
        """The charts' series: the kept turns' values (put together once a turn) and the last turn's."""
        if not self._columns or self._end is None:
            return EMPTY
        n = len(self._columns) - 1
        if self._prefix is None or self._prefix.turns != n:
            # the turns it holds, as read then, are kept; those ended since are added to them
            self._prefix = _Prefix.of(self._columns[:n], self.losses[:n], self._prefix)
        p, now, end = self._prefix, self._columns[-1], self._end
        # the same values as last time (an action that moved units, or changed nothing the
        # charts show): the same data, and nothing to draw
        key = (n, p, now, tuple(sorted(self.losses[-1].items())), end.oob.sides, tuple(end.brigades.values()))
        if self._data is not None and _same(self._data[0], key):
            return self._data[1]
        zeros, nones, blank = (0.0,) * n, (None,) * n, ((),) * n
        turns = tuple(range(n + 1))
        sides = tuple(
            Series(s.id, s.name, s.colour, p.sides.get(s.id, zeros) + (now.sides.get(s.id, 0.0),))
            for s in end.oob.sides
        )
        colours = {s.id: s.colour for s in end.oob.sides}
        brigades = tuple(
            Series(
                br.id,
                br.name,
                colours.get(br.side, "#555555"),
                p.brigades.get(br.id, nones) + (now.brigades.get(br.id),),
            )
            for br in end.brigades.values()
        )
        lost = self.losses[-1]
        losses = tuple(
            Series(s.id, s.name, s.colour, p.losses.get(s.id, zeros) + (float(lost.get(s.id, 0)),))
            for s in end.oob.sides
        )
        ids = dict(p.info)
        ids.update(now.info)

        def unit(uid: str) -> Series:
            name, side = ids[uid]
            values = p.units.get(uid, nones) + (now.units.get(uid),)
            return Series(uid, name, colours.get(side, "#555555"), values)

        def marks(uid: str) -> tuple[tuple[str, ...], ...]:
            return p.markers.get(uid, blank) + (now.markers.get(uid, ()),)

        data = CourseData(turns, sides, brigades, losses, _OnDemand(ids, unit), _OnDemand(ids, marks))
        self._data = (key, data)
        return data


__all__ = ["EMPTY", "BattleCourse", "CourseData", "Series"]
