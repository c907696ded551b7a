"""What a battle records of the turn besides its units and terrain: :attr:`Battle.extra`, typed.

Each record is written and read here, by the typed accessors and ``with_`` updaters of
:class:`TurnRecords`; the modules that make the records (movement, reactions, melee) and the turn
sequence that clears them all go through it.

Saves keep the records as one table of plain values, under ``"extra"``, in this shape (the same
as before the records were typed, so old saves and the changes in their journals read as ever):

============================  ====================================================================
key                           value
============================  ====================================================================
``"movement"``                ``{unit id: {"spent_in": inches, "moved_in": inches,``
                              ``"start": [x, y, facing]}}``: the movement allowance each unit has
                              used this turn, how far it has marched and where it began
                              (:class:`MoveRecord`; cleared at the end of the side's turn)
``"stalled"``                 ``[unit id, ...]``: the chargers that stalled this turn (RULE-06-2.5;
                              cleared at the end of the side's turn)
``"reactions"``               ``{"turn": n, "side": id, "by_trigger": {trigger: [defender, ...]}}``:
                              who has reacted to what in this side's turn (RULE-04-1.4,
                              :class:`ReactionRecord`)
``"pending_melees"``          ``[melee, ...]``: the melees waiting for a Phase 4 (RULE-06-1.1,
                              :class:`rules.battle.melee_situation.PendingMelee`)
``"breakthrough"``            ``{"unit": id, "turn": n, "side": id}``: the unit whose melee just made
                              a Tactical Breakthrough (RULE-06-4.5, :class:`Breakthrough`)
``"phase_3_fire"``            ``{"turn": n, "side": id, "fired": {unit id: [what, at, ...]}}``: what
                              each unit fired in this side's Phase 3 (``"volley"`` and its targets,
                              ``"bombardment"`` and the building; :class:`FireRecord`)
============================  ====================================================================

A record with nothing in it is not written. A key this version does not know is kept as it is, so
that a save from a later version loses nothing by being opened; a known record that is malformed
is refused with an :class:`~rules.errors.InvariantError` that names it.

>>> saved = {"stalled": ["va4"], "movement": {"va4": {"spent_in": 3.0, "moved_in": 3.0, "start": [1.0, 2.0, 0.0]}}}
>>> records = TurnRecords.from_dict(saved)
>>> records.has_stalled("va4"), records.movement_of("va4").spent_in
(True, 3.0)
>>> records.to_dict() == saved
True
>>> records.without_turn_movement().to_dict()
{}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rules import limits
from rules.battle.melee_situation import PendingMelee
from rules.errors import InvariantError

MOVEMENT = "movement"
STALLED = "stalled"
REACTED = "reactions"
PENDING_MELEES = "pending_melees"
BREAKTHROUGH = "breakthrough"
PHASE_3_FIRE = "phase_3_fire"
KEYS = (MOVEMENT, STALLED, REACTED, PENDING_MELEES, BREAKTHROUGH, PHASE_3_FIRE)
"""The keys of the records, in the order they are written."""


#: The numbers of the records (inches marched, where a unit began, its facing), within the limits.
_RECORDED = limits.Range(-10_000, 10_000, "a number of the turn's records")


def _number(v: Any, what: str) -> float:
    limits.number(v, _RECORDED, what)
    return v


def _whole(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise InvariantError(f"{what} must be a whole number, not {limits._show(v)}")
    limits.whole(v, limits.COUNT, what)
    return v


def _word(v: Any, what: str) -> str:
    if not isinstance(v, str):
        raise InvariantError(f"{what} must be a word, not {limits._show(v)}")
    return limits.text(v, what)


def _table(v: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise InvariantError(f"{what} must be a table of values, not {limits._show(v)}")
    return v


def _words(v: Any, what: str) -> tuple[str, ...]:
    if not isinstance(v, (list, tuple)):
        raise InvariantError(f"{what} must be a list, not {limits._show(v)}")
    return tuple(_word(x, f"each of {what}") for x in v)


@dataclass(frozen=True)
class MoveRecord:
    """What a unit has marched this turn: the allowance used (``spent_in``), the distance marched
    (``moved_in``) and where it began its first march of the turn (``start``: x, y, facing)."""

    spent_in: float = 0.0
    moved_in: float = 0.0
    start: tuple[float, float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"spent_in": self.spent_in, "moved_in": self.moved_in}
        if self.start is not None:
            d["start"] = list(self.start)
        return d

    @classmethod
    def from_dict(cls, d: Any, unit_id: str = "") -> MoveRecord:
        what = f"the movement record of '{unit_id}'" if unit_id else "a movement record"
        d = _table(d, what)
        unknown = set(d) - {"spent_in", "moved_in", "start"}
        if unknown:
            raise InvariantError(f"{what} has no value(s) {', '.join(sorted(map(str, unknown)))}")
        start = d.get("start")
        if start is not None:
            if not isinstance(start, (list, tuple)) or len(start) != 3:
                raise InvariantError(f"{what} starts at x, y and facing, not {limits._show(start)}")
            start = tuple(_number(v, f"the start in {what}") for v in start)
        return cls(
            spent_in=_number(d.get("spent_in", 0.0), f"the allowance used in {what}"),
            moved_in=_number(d.get("moved_in", 0.0), f"the distance marched in {what}"),
            start=start,
        )


@dataclass(frozen=True)
class ReactionRecord:
    """Who has reacted to what in one side's turn (RULE-04-1.4): ``by_trigger`` maps each
    triggering action ("move:va4", "charge:va4") to the defenders that reacted to it."""

    turn: int
    side: str
    by_trigger: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "side": self.side,
            "by_trigger": {k: list(v) for k, v in self.by_trigger.items()},
        }

    @classmethod
    def from_dict(cls, d: Any) -> ReactionRecord:
        what = f"the battle's '{REACTED}'"
        d = _table(d, what)
        by = d.get("by_trigger", {})
        if not isinstance(by, Mapping):
            raise InvariantError(f"{what} must map each triggering action to its defenders")
        for done in by.values():
            if not isinstance(done, (list, tuple)):
                raise InvariantError(f"{what} must list the defenders of each triggering action")
        return cls(
            turn=_whole(d.get("turn"), f"the turn of {what}"),
            side=_word(d.get("side"), f"the side of {what}"),
            by_trigger={str(k): _words(v, f"the defenders in {what}") for k, v in by.items()},
        )


@dataclass(frozen=True)
class Breakthrough:
    """The unit whose melee made a Tactical Breakthrough (RULE-06-4.5), in which side's turn."""

    unit: str
    turn: int
    side: str

    def to_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "turn": self.turn, "side": self.side}

    @classmethod
    def from_dict(cls, d: Any) -> Breakthrough:
        what = f"the battle's '{BREAKTHROUGH}'"
        d = _table(d, what)
        return cls(
            unit=_word(d.get("unit"), f"the unit of {what}"),
            turn=_whole(d.get("turn"), f"the turn of {what}"),
            side=_word(d.get("side"), f"the side of {what}"),
        )


@dataclass(frozen=True)
class FireRecord:
    """What each unit fired in one side's Phase 3: ``fired`` maps a unit to what it fired
    (``"volley"`` and the ids of its targets, or ``"bombardment"`` and the building's)."""

    turn: int
    side: str
    fired: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "side": self.side, "fired": {k: list(v) for k, v in self.fired.items()}}

    @classmethod
    def from_dict(cls, d: Any) -> FireRecord:
        what = f"the battle's '{PHASE_3_FIRE}'"
        d = _table(d, what)
        fired = _table(d.get("fired", {}), f"what each unit fired in {what}")
        return cls(
            turn=_whole(d.get("turn"), f"the turn of {what}"),
            side=_word(d.get("side"), f"the side of {what}"),
            fired={str(k): _words(v, f"what a unit fired in {what}") for k, v in fired.items()},
        )


@dataclass(frozen=True, eq=False)
class TurnRecords(Mapping[str, Any]):
    """The records of the turn (see the module text), typed; every record has its accessor and
    its ``with_`` updater, which returns new records (these are frozen, like the battle).

    As a read-only mapping it gives each record as saves keep it (``records["stalled"]``,
    ``"movement" in records``), and :meth:`to_dict` gives the whole table.
    """

    movement: Mapping[str, MoveRecord] = field(default_factory=dict)
    stalled: tuple[str, ...] = ()
    reactions: ReactionRecord | None = None
    pending_melees: tuple[PendingMelee, ...] = ()
    breakthrough: Breakthrough | None = None
    phase_3_fire: FireRecord | None = None
    other: Mapping[str, Any] = field(default_factory=dict)  # keys this version does not know

    # -- movement (cleared at the end of the side's turn) -----------------------------------------
    def movement_of(self, unit_id: str) -> MoveRecord | None:
        """What the unit has marched this turn (None if it has not)."""
        return self.movement.get(unit_id)

    def with_movement(self, unit_id: str, record: MoveRecord) -> TurnRecords:
        return replace(self, movement={**self.movement, unit_id: record})

    def has_stalled(self, unit_id: str) -> bool:
        """True if the unit's charge stalled this turn (RULE-06-2.5)."""
        return unit_id in self.stalled

    def with_stalled(self, unit_id: str) -> TurnRecords:
        if unit_id in self.stalled:
            return self
        return replace(self, stalled=(*self.stalled, unit_id))

    def without_turn_movement(self) -> TurnRecords:
        """The records without the movement and the stalled chargers of the turn (the same
        records, if there are none)."""
        if not self.movement and not self.stalled:
            return self
        return replace(self, movement={}, stalled=())

    # -- reactions (RULE-04-1.4) ---------------------------------------------------------------------
    def reacted(self, turn: int, side: str) -> Mapping[str, tuple[str, ...]]:
        """Who has reacted to each triggering action in ``side``'s turn ``turn``; the record of
        another side's turn counts for nothing."""
        r = self.reactions
        if r is None or r.turn != turn or r.side != side:
            return {}
        return r.by_trigger

    def reacted_to(self, trigger: str, turn: int, side: str) -> frozenset[str]:
        return frozenset(self.reacted(turn, side).get(trigger, ()))

    def with_reaction(self, trigger: str, defender: str, turn: int, side: str) -> TurnRecords:
        """The records with ``defender`` having reacted to ``trigger`` in ``side``'s turn ``turn``
        (the record of an earlier side's turn is replaced)."""
        by = dict(self.reacted(turn, side))
        if defender not in by.get(trigger, ()):
            by[trigger] = (*by.get(trigger, ()), defender)
        return replace(self, reactions=ReactionRecord(turn, side, by))

    # -- melees ----------------------------------------------------------------------------------------
    def with_pending_melees(self, melees: Sequence[PendingMelee]) -> TurnRecords:
        return replace(self, pending_melees=tuple(melees))

    def due_melees(self, turn: int) -> tuple[PendingMelee, ...]:
        """The pending melees fought in the Phase 4 of game turn ``turn``."""
        return tuple(m for m in self.pending_melees if m.is_due(turn))

    def breakthrough_unit(self, turn: int, side: str) -> str | None:
        """The unit that made a Tactical Breakthrough in ``side``'s turn ``turn``, if any."""
        b = self.breakthrough
        if b is None or b.turn != turn or b.side != side:
            return None
        return b.unit

    def with_breakthrough(self, breakthrough: Breakthrough | None) -> TurnRecords:
        if breakthrough == self.breakthrough:
            return self
        return replace(self, breakthrough=breakthrough)

    # -- Phase 3 fire ------------------------------------------------------------------------------------
    def fired_in_phase_3(self, unit_id: str, turn: int, side: str) -> tuple[str, ...] | None:
        """What the unit fired in ``side``'s Phase 3 of turn ``turn`` (see :class:`FireRecord`), or
        None; the record of another side's turn counts for nothing."""
        r = self.phase_3_fire
        if r is None or r.turn != turn or r.side != side:
            return None
        return r.fired.get(unit_id)

    def with_phase_3_fire(self, unit_id: str, fired: Sequence[str], turn: int, side: str) -> TurnRecords:
        """The records with what the unit fired in ``side``'s Phase 3 of turn ``turn`` (the record
        of an earlier side's turn is replaced)."""
        r = self.phase_3_fire
        before = r.fired if r is not None and r.turn == turn and r.side == side else {}
        return replace(self, phase_3_fire=FireRecord(turn, side, {**before, unit_id: tuple(fired)}))

    # -- as saves keep them ----------------------------------------------------------------------------
    def _saved(self, key: str) -> Any:
        """The record under ``key`` as saves keep it, or None if there is none."""
        if key == MOVEMENT:
            return {uid: r.to_dict() for uid, r in self.movement.items()} if self.movement else None
        if key == STALLED:
            return list(self.stalled) if self.stalled else None
        if key == REACTED:
            return self.reactions.to_dict() if self.reactions is not None else None
        if key == PENDING_MELEES:
            return [m.to_dict() for m in self.pending_melees] if self.pending_melees else None
        if key == BREAKTHROUGH:
            return self.breakthrough.to_dict() if self.breakthrough is not None else None
        if key == PHASE_3_FIRE:
            return self.phase_3_fire.to_dict() if self.phase_3_fire is not None else None
        return self.other.get(key)

    def _present(self, key: str) -> bool:
        if key == MOVEMENT:
            return bool(self.movement)
        if key == STALLED:
            return bool(self.stalled)
        if key == REACTED:
            return self.reactions is not None
        if key == PENDING_MELEES:
            return bool(self.pending_melees)
        if key == BREAKTHROUGH:
            return self.breakthrough is not None
        if key == PHASE_3_FIRE:
            return self.phase_3_fire is not None
        return key in self.other

    def to_dict(self) -> dict[str, Any]:
        """The records as saves keep them (see the module text)."""
        return {k: self._saved(k) for k in self}

    @classmethod
    def from_dict(cls, d: Any) -> TurnRecords:
        """Read the records as saves keep them; a malformed one raises :class:`InvariantError`."""
        if isinstance(d, TurnRecords):
            return d
        if d is None:
            return cls()
        d = _table(d, "the battle's turn records")
        movement: dict[str, MoveRecord] = {}
        raw = d.get(MOVEMENT)
        if raw is not None:
            for uid, rec in _table(raw, f"the battle's '{MOVEMENT}'").items():
                movement[str(uid)] = MoveRecord.from_dict(rec, str(uid))
        stalled = _words(d[STALLED], f"the battle's '{STALLED}'") if d.get(STALLED) is not None else ()
        reactions = ReactionRecord.from_dict(d[REACTED]) if d.get(REACTED) is not None else None
        raw = d.get(PENDING_MELEES)
        if raw is None:
            raw = ()
        if not isinstance(raw, (list, tuple)):
            raise InvariantError(f"the battle's '{PENDING_MELEES}' must be a list of melees")
        melees = tuple(PendingMelee.from_dict(m) for m in raw)
        breakthrough = Breakthrough.from_dict(d[BREAKTHROUGH]) if d.get(BREAKTHROUGH) is not None else None
        fire = FireRecord.from_dict(d[PHASE_3_FIRE]) if d.get(PHASE_3_FIRE) is not None else None
        other = {str(k): v for k, v in d.items() if k not in KEYS}
        return cls(movement, stalled, reactions, melees, breakthrough, fire, other)

    # -- the read-only mapping -------------------------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        if not self._present(key):
            raise KeyError(key)
        return self._saved(key)

    def __iter__(self) -> Iterator[str]:
        for k in KEYS:
            if self._present(k):
                yield k
        yield from self.other

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._present(key)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, TurnRecords):
            return (
                self.movement == other.movement
                and self.stalled == other.stalled
                and self.reactions == other.reactions
                and self.pending_melees == other.pending_melees
                and self.breakthrough == other.breakthrough
                and self.phase_3_fire == other.phase_3_fire
                and self.other == other.other
            )
        if isinstance(other, Mapping):
            return self.to_dict() == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]
