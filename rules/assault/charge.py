"""Assaults: a declared charge carried to the 4.0" line, Window B, and contact, a stall or a halt
(chapter 06).

A charge goes through these stages, each a line of the log with its rule:

1. Declaration (RULE-06-1.2, RULE-06-1.3): :mod:`rules.assault.declaration` lists every condition
   that is not met, with its rule id, and spends the Staff Pip.
2. The path (RULE-06-1.4, RULE-06-1.5): :mod:`rules.assault.charge_path` works out the single
   initial pivot (up to 30 degrees), the straight line to the target's front or flank, what the
   terrain does to it and how far it moves across open ground (Charging Momentum needs 3.0").
3. The 4.0" line (RULE-06-2.1): the charger halts 4.0" from the target and the defender reacts
   (Window B): a Closing Defensive Volley with the pre-contact discipline check (RULE-06-2.3 to
   2.5), Refuse the Flank or a Counter-Charge, all resolved by :mod:`rules.reactions.declare`. A screen
   either evades or is overrun, and the charge goes on into the unit behind it, which has its own
   Window B (RULE-04-4.4, :func:`beyond_the_screen`).
4. Contact (RULE-06-3.1): frontal (front edge to front edge) or flank (the attacker's front edge
   against the target's side at 90 degrees); then the opposed melee roll of :mod:`rules.melee.melee`.

Assaults are initiated in Phase 2 and resolved in Phase 4 (RULE-06-1.1), and the program plays them
so: :class:`rules.assault.actions.ChargeApproach` (:func:`charge_to_contact`) is Phase 2, stages 1
to 3 and the contact, which places the two units base to base, marks them Engaged and records the
melee in the battle state (``Battle.extra.pending_melees``, :class:`rules.melee.melee.PendingMelee`)
with everything the melee needs; :class:`rules.melee.melee.ResolvePendingMelee` fights it in Phase 4.

:func:`approach` resolves stages 1 to 3, :func:`fight` the melee straight after, and
:func:`rules.assault.actions.resolve_charge` all of it at once: the odds (:mod:`rules.odds`) and
:class:`rules.assault.actions.ChargeAction`, the one-step assault kept for the saves that hold it,
use these. Each is a pure function of (battle, inputs, dice, tables).

The 4.0" line is measured along the charge path from the point of contact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from rules.assault.charge_path import XY, ChargePath, defender_obstacle, flank_anchored_on_works, plan_charge
from rules.assault.declaration import declare_charge
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.unit import Unit, refused_flanks
from rules.battle.words import Marker, Phase, StrEnum
from rules.battlefield import geometry
from rules.battlefield.field import Battlefield
from rules.dice import DiceSource, TableDice
from rules.errors import IllegalAction, InvariantError
from rules.melee.melee import (
    Consolidation,
    Contact,
    MeleeResult,
    MeleeSituation,
    PendingMelee,
    add_pending_melee,
    leader_loss,
    pending_melees,
    resolve_melee,
)
from rules.reactions import declare as reactions
from rules.reactions.triggers import charge_threat, window_b_along
from rules.shooting.shoot import fire_inputs
from rules.shooting.volleys import FireKind, Volley, VolleyOutcome
from rules.tables import RuleTables


class ChargeReaction(StrEnum):
    """The defender's choice at Window B (RULE-06-2.2, RULE-04-1.2), or none; the reactions themselves
    are resolved by :mod:`rules.reactions.declare` (whose :class:`rules.reactions.declare.Reaction`
    names all five)."""

    NONE = "none"
    CLOSING_VOLLEY = "closing_volley"
    REFUSE_FLANK = "refuse_flank"
    COUNTER_CHARGE = "counter_charge"
    EVADE = "evade"


# The name it had before, while the gui and the tests still use it.
Reaction = ChargeReaction


class ChargeEnd(StrEnum):
    """How the approach ended."""

    CONTACT = "contact"
    STALLED = "stalled"  # failed the pre-contact discipline check (RULE-06-2.5)
    HALTED = "halted"  # stopped by terrain: a stream (RULE-06-1.5)
    FELL_SHORT = "fell_short"  # the target is beyond what the terrain leaves of the charge
    DESTROYED = "destroyed"  # the charger was shot away by the closing volley
    OVERRUN = "overrun"  # a screen was overrun and there is no unit behind it to charge (RULE-04-4.4)
    EVADED = "evaded"  # the screen evaded and there is no unit behind it to charge (RULE-04-4.4)


def melee_situation(
    battle: Battle,
    path: ChargePath,
    tables: RuleTables,
    *,
    moved_in: float | None = None,
    sided_flanks: bool = True,
    **overrides,
) -> MeleeSituation:
    """The melee situation of a charge that made contact along ``path`` (overrides win).

    A flank contact records which flank it hits, whether the defender had refused that flank
    (RULE-04-5.4), and whether that flank is anchored to the breastworks the defender lines
    (RULE-03-2.4, :func:`rules.assault.charge_path.flank_anchored_on_works`). ``sided_flanks=False`` is how a charge saved before Brigadier recorded the side
    is read again: no side, and any refused flank counted."""
    d, a = battle.unit(path.target), battle.unit(path.attacker)
    side = path.flank_side if sided_flanks and path.contact == Contact.FLANK else None
    refused = (side is not None and side in refused_flanks(d)) or d.has(Marker.REFUSED_FLANK)
    bf = Battlefield(battle, tables)
    start = a.moved_to(path.start[0], path.start[1], a.facing_deg)
    defender_on_crest = bf.on_crest(d)
    kw = dict(
        defender_on_crest=defender_on_crest,
        attacker_uphill=defender_on_crest and bf.level_of(start) < bf.level_of(d),
        attacker_downhill_from_crest=bf.on_crest(start) and bf.level_of(d) < bf.level_of(start),
        contact=path.contact,
        momentum_in=path.open_ground_in if moved_in is None else moved_in,
        defender_obstacle=defender_obstacle(battle, d.id, tables),
        through_abatis=path.through_abatis,
        refused_flank=refused,
        flank_side=side,
        flank_anchored_on_works=side is not None and flank_anchored_on_works(battle, d.id, side, tables),
    )
    kw.update({k: v for k, v in overrides.items() if v is not None})
    if kw.get("counter_charge"):
        # the counter-charger surged forward and met the charger front to front (close_in): an
        # open-field clash, never a flank attack (RULE-04-5.4, RULE-04-5.5 (Counter-Charge, 6.0))
        kw["contact"] = Contact.FRONT
    return MeleeSituation(path.attacker, path.target, **kw)


# -- the approach: the 4.0" line and Window B (RULE-06-2.1, RULE-06-2.2, RULE-06-2.3, RULE-06-2.4,
#    RULE-06-2.5) ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Charge:
    """What the umpire asks: who charges whom, and what the defender does at Window B.

    ``contact`` overrides the front/flank/rear the table shows; ``defender_on_crest`` and
    ``attacker_downhill_from_crest`` are the umpire's reading of the slope where the table has no
    hill drawn; ``consolidation`` is the victor's free move (RULE-06-4.4).
    """

    attacker: str
    target: str
    reaction: ChargeReaction = ChargeReaction.CLOSING_VOLLEY
    contact: Contact | None = None
    counter_charge_in: float | None = None
    consolidation: Consolidation | None = None
    defender_on_crest: bool | None = None
    attacker_downhill_from_crest: bool | None = None
    # the reaction of the unit behind a screen (RULE-04-4.4); None: its Closing Defensive Volley if it
    # may fire one, else none
    then_reaction: ChargeReaction | None = None
    # how far a screen evades (4.0"-6.0", RULE-04-4.3; None: the full 6.0")
    evade_in: float | None = None
    # the readings of a charge made now; False only for charges saved before them (see ChargeApproach)
    sided_flanks: bool = True
    evade_path: bool = True
    occupy_guns: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "reaction", ChargeReaction.parse(self.reaction))
        if self.then_reaction is not None:
            object.__setattr__(self, "then_reaction", ChargeReaction.parse(self.then_reaction))
        if self.contact is not None:
            object.__setattr__(self, "contact", Contact.parse(self.contact))


@dataclass(frozen=True)
class Approach:
    """The charge up to contact (Phase 2). ``end`` says how it ended."""

    battle: Battle
    steps: tuple[Step, ...]
    path: ChargePath
    end: ChargeEnd
    volley: VolleyOutcome | None = None
    discipline_roll: int | None = None
    counter_charge: bool = False
    stands_lost: dict[str, int] = field(default_factory=dict)


def _move(u: Unit, p: XY, facing: float) -> Unit:
    return u.moved_to(p[0], p[1], facing)


@dataclass(frozen=True)
class AtTheLine:
    """A declared charge moved up to the 4.0" line, or to where it stopped short of it."""

    battle: Battle
    steps: tuple[Step, ...]
    path: ChargePath
    early: ChargeEnd | None = None  # HALTED or FELL_SHORT before the line: no Window B


def to_the_line(battle: Battle, charge: Charge, tables: RuleTables) -> AtTheLine:
    """Declare the charge (spending the pip), pivot, and move to the 4.0" line (RULE-06-2.1)."""
    battle, steps = declare_charge(battle, charge.attacker, charge.target, tables)
    path = plan_charge(battle, charge.attacker, charge.target, tables, contact=charge.contact)
    a, t = battle.unit(charge.attacker), battle.unit(charge.target)
    steps.append(
        Step(
            f"{a.name} pivots {abs(path.pivot_deg):.0f} degrees and charges {t.name}'s {path.contact.value} "
            f'at the Double-Quick ({path.distance_in:.1f}" to contact, {path.allowance_in:g}" allowed)',
            rule="RULE-06-1.4",
            units=(a.id, t.id),
        )
    )
    return advance_to_line(battle, path, steps, tables)


def advance_to_line(battle: Battle, path: ChargePath, steps: list[Step], tables: RuleTables) -> AtTheLine:
    """Move the charger along its path to the 4.0" line, or to where the ground stops it first."""
    a, t = battle.unit(path.attacker), battle.unit(path.target)
    steps = [*steps, *path.notes]
    window = float(tables.value("melee.charge.window_b_in"))
    zone = {Contact.FRONT: "front", Contact.REAR: "rear"}.get(path.contact)
    if zone is None:
        zone = "left_flank" if geometry.zone_of(t, path.start, tables) == "left_flank" else "right_flank"
    line_at = window_b_along(t, [path.start, path.aim], tables, zone)
    if line_at is None:
        line_at = max(path.distance_in - window, 0.0)
    early = path.halt_in if path.halt_in is not None and path.halt_in < line_at else None
    if early is None and path.stop_in < line_at:
        early = path.stop_in
    if early is not None:
        a = _move(a, path.point(early), path.bearing_deg)
        if early == path.halt_in:
            a = a.with_markers(add=[Marker.DISORDER])
            steps.append(Step(f"{a.name} halts in the stream, Disordered", rule="RULE-06-1.5", units=(a.id,)))
            return AtTheLine(battle.with_unit(a), tuple(steps), path, ChargeEnd.HALTED)
        steps.append(
            Step(f"{a.name}'s charge falls short after {early:.1f}\"", rule="RULE-06-1.5", units=(a.id,))
        )
        return AtTheLine(battle.with_unit(a), tuple(steps), path, ChargeEnd.FELL_SHORT)
    a = _move(a, path.point(line_at), path.bearing_deg)
    steps.append(
        Step(
            f'{a.name} halts at the {window:g}" line: Reaction Trigger Window B',
            rule="RULE-06-2.1",
            units=(a.id, t.id),
        )
    )
    return AtTheLine(battle.with_unit(a), tuple(steps), path)


def beyond_the_screen(
    battle: Battle, path: ChargePath, end: ChargeEnd, charge: Charge, tables: RuleTables
) -> tuple[AtTheLine, Charge] | None:
    """After a screen evades or is overrun, the charge goes on into the formed unit behind it, whose
    own reaction is ``charge.then_reaction`` (RULE-04-4.4); None when there is none to charge."""
    screen = battle.unit(path.target)
    if end not in (ChargeEnd.EVADED, ChargeEnd.OVERRUN) or not screen.parent:
        return None
    parent = battle.units.get(screen.parent)
    if parent is None or not parent.in_play:
        return None
    a = battle.unit(path.attacker)
    moved = math.dist(path.start, (a.x, a.y))
    nxt = plan_charge(battle, a.id, parent.id, tables, spent_in=moved, continuing=True)
    nxt = replace(
        nxt,
        open_ground_in=nxt.open_ground_in
        + path.open_ground_in * (moved / path.distance_in if path.distance_in else 0),
    )
    step = Step(
        f"{a.name} does not stop: it charges on into {parent.name}",
        rule="RULE-04-4.4",
        units=(a.id, parent.id),
    )
    at = advance_to_line(battle, nxt, [step], tables)
    reaction = charge.then_reaction
    if reaction is None:
        reaction = default_reaction(at, tables)
    return at, replace(charge, target=parent.id, reaction=reaction, contact=None, then_reaction=None)


def default_reaction(at: AtTheLine, tables: RuleTables) -> ChargeReaction:
    """What a defender does at Window B when nobody chose for it: its Closing Defensive Volley if it
    may fire one (RULE-04-2.2), else nothing. The unit behind a screen "may now execute Reaction 1"
    (RULE-04-4.4): it is not made to when it has Smoke, is Disordered or has the charger out of arc."""
    if at.early is not None or at.battle.unit(at.path.target).is_screen:
        return ChargeReaction.NONE
    threat = window_b_threat(at, tables)
    if reactions.option(at.battle, reactions.Reaction.CLOSING_VOLLEY, threat, tables).eligible:
        return ChargeReaction.CLOSING_VOLLEY
    return ChargeReaction.NONE


def behind_the_screen(battle: Battle, charge: Charge, tables: RuleTables) -> AtTheLine | None:
    """For a charge at a screen: the charge halted at the 4.0" line of the unit behind the screen,
    after the screen's own reaction (``charge.reaction``: evade, or none and it is overrun), where
    that unit's own Window B opens (RULE-04-4.4); None when the target is no screen, the charge stops
    before the screen, or there is no unit behind it to charge on into."""
    at = to_the_line(battle, charge, tables)
    if at.early is not None or not at.battle.unit(charge.target).is_screen:
        return None
    if charge.reaction not in (ChargeReaction.EVADE, ChargeReaction.NONE):
        return None
    r = react(at, charge, TableDice([]), tables)  # an evade or an overrun rolls no dice
    after, end = r.battle, r.end
    if end is None:
        after, _, end = close_in(after, at.path, tables)
    nxt = beyond_the_screen(after, at.path, end, charge, tables)
    return None if nxt is None else nxt[0]


def window_b_threat(at: AtTheLine, tables: RuleTables) -> reactions.Threat:
    """The threat the defender answers at Window B: the charger on the 4.0" line (RULE-06-2.1), as
    :func:`rules.reactions.triggers.charge_threat` measures it, coming in on the front, flank or rear the
    charge path says."""
    a, t = at.battle.unit(at.path.attacker), at.battle.unit(at.path.target)
    window = float(tables.value("melee.charge.window_b_in"))
    threat = charge_threat(at.battle, a, t, tables, start=at.path.start, contact=at.path.contact.value)
    # halted on the 4.0" line: anything beyond it is floating-point dust
    return replace(threat, distance_in=min(threat.distance_in, window))


def closing_volley_of(at: AtTheLine, tables: RuleTables) -> tuple[reactions.Threat, dict, Volley]:
    """The Closing Defensive Volley the defender would fire at the charger on the 4.0" line: the
    threat, the table's inputs to the volley (the charger's cover there and the firer's stands with
    a clear view, :func:`rules.shooting.shoot.fire_inputs`, the same as a window opened by hand) and the
    volley (RULE-06-2.3, RULE-03-5.3, RULE-03-5.5). A charger out of sight cannot be fired on."""
    threat = window_b_threat(at, tables)
    reactions.require(at.battle, reactions.Reaction.CLOSING_VOLLEY, threat, tables)
    inputs = fire_inputs(at.battle, threat.defender, threat.attacker, tables)
    volley = Volley(
        threat.defender,
        threat.attacker,
        threat.distance_in,
        kind=FireKind.CLOSING_VOLLEY,
        enfilade=threat.enfilade,
        enfilade_side=threat.enfilade_side,
        **inputs,
    )
    return threat, inputs, volley


def close_in(
    battle: Battle, path: ChargePath, tables: RuleTables, counter: bool = False
) -> tuple[Battle, list[Step], ChargeEnd]:
    """From the 4.0" line on, once the reaction is over: a stream beyond the line, a short charge,
    an overrun screen, or contact (RULE-06-1.5, RULE-04-4.4, RULE-06-3.1)."""
    a, t = battle.unit(path.attacker), battle.unit(path.target)
    if path.halt_in is not None:
        a = _move(a, path.point(path.halt_in), path.bearing_deg).with_markers(add=[Marker.DISORDER])
        step = Step(f"{a.name} halts in the stream, Disordered", rule="RULE-06-1.5", units=(a.id,))
        return battle.with_unit(a), [step], ChargeEnd.HALTED
    if path.stop_in < path.distance_in:
        a = _move(a, path.point(path.stop_in), path.bearing_deg)
        step = Step(f"{a.name}'s charge falls short", rule="RULE-06-1.5", units=(a.id,))
        return battle.with_unit(a), [step], ChargeEnd.FELL_SHORT
    if t.is_screen:
        out = reactions.overrun(battle, t.id, a.id, tables)
        a = _move(a, path.aim, path.bearing_deg)
        return out.battle.with_unit(a), list(out.steps), ChargeEnd.OVERRUN
    if not counter:
        a = _move(a, path.aim, path.contact_facing_deg)
    else:
        # the counter-charger has surged out: meet it front to front where it now stands
        fp = geometry.footprint(t, tables)
        (lx, ly), (rx, ry) = fp.left_front, fp.right_front
        a = _move(a, ((lx + rx) / 2, (ly + ry) / 2), (t.facing_deg + 180) % 360)
    how = {
        Contact.FRONT: "front edge to front edge",
        Contact.FLANK: "its front edge against the flank at 90 degrees",
        Contact.REAR: "against the rear",
    }[Contact.FRONT if counter else path.contact]
    steps = [Step(f"{a.name} makes contact with {t.name}: {how}", rule="RULE-06-3.1", units=(a.id, t.id))]
    if path.disorder_on_contact and not a.disordered:
        a = a.with_markers(add=[Marker.DISORDER])
        steps.append(Step(f"{a.name} is Disordered by the dense woods", rule="RULE-06-1.5", units=(a.id,)))
    return battle.with_unit(a), steps, ChargeEnd.CONTACT


@dataclass(frozen=True)
class Reacted:
    """The defender's reaction at Window B and what it did to the charge."""

    battle: Battle
    steps: tuple[Step, ...]
    end: ChargeEnd | None = None  # None: the charge goes on (close_in)
    volley: VolleyOutcome | None = None
    discipline_roll: int | None = None
    counter_charge: bool = False


def react(at: AtTheLine, charge: Charge, dice: DiceSource, tables: RuleTables) -> Reacted:
    """The defender's reaction at Window B, resolved by :mod:`rules.reactions.declare` (RULE-06-2.2)."""
    battle = at.battle
    t = battle.unit(at.path.target)
    kind = charge.reaction
    if kind == ChargeReaction.NONE:
        return Reacted(battle, ())
    if kind == ChargeReaction.CLOSING_VOLLEY:
        threat, inputs, _ = closing_volley_of(at, tables)
        out = reactions.closing_volley(battle, threat, dice, tables, **inputs)
        end = None
        if out.volley is not None and out.volley.target_destroyed:
            end = ChargeEnd.DESTROYED
        elif out.stalled:
            end = ChargeEnd.STALLED
        return Reacted(out.battle, out.steps, end, out.volley, out.check_roll)
    threat = window_b_threat(at, tables)
    if kind == ChargeReaction.EVADE:
        out = reactions.evade(
            battle, threat, dice, tables, withdraw_in=charge.evade_in, along_path=charge.evade_path
        )
        return Reacted(out.battle, out.steps, ChargeEnd.EVADED)
    if kind == ChargeReaction.REFUSE_FLANK:
        out = reactions.refuse_the_flank(battle, threat, dice, tables, one_flank=charge.sided_flanks)
        return Reacted(out.battle, out.steps)
    if t.is_screen:
        raise IllegalAction(f"{t.name} is a screen: it evades or is overrun", "RULE-04-4.4")
    out = reactions.counter_charge(battle, threat, dice, tables, surge_in=charge.counter_charge_in)
    return Reacted(out.battle, out.steps, counter_charge=out.success)


def approach(battle: Battle, charge: Charge, dice: DiceSource, tables: RuleTables) -> Approach:
    """Declare the charge and carry it to contact or to wherever it stops (Phase 2)."""
    return _from_the_line(to_the_line(battle, charge, tables), charge, dice, tables, (), {})


def _from_the_line(
    at: AtTheLine, charge: Charge, dice: DiceSource, tables: RuleTables, before: tuple[Step, ...], lost0: dict
) -> Approach:
    if at.early is not None:
        return Approach(at.battle, before + at.steps, at.path, at.early, stands_lost=lost0)
    a0 = at.battle.unit(at.path.attacker)
    r = react(at, charge, dice, tables)
    lost = dict(lost0)
    if a0.stands != r.battle.unit(a0.id).stands:
        lost[a0.id] = lost.get(a0.id, 0) + a0.stands - r.battle.unit(a0.id).stands
    steps = before + at.steps + r.steps
    battle, end = r.battle, r.end
    if end is None:
        battle, more, end = close_in(r.battle, at.path, tables, r.counter_charge)
        steps += tuple(more)
    nxt = beyond_the_screen(battle, at.path, end, charge, tables)
    if nxt is not None:
        return _from_the_line(nxt[0], nxt[1], dice, tables, steps, lost)
    return Approach(battle, steps, at.path, end, r.volley, r.discipline_roll, r.counter_charge, lost)


def contact_situation(approached: Approach, charge: Charge, tables: RuleTables) -> MeleeSituation:
    """The melee situation of a charge that made contact: the table as the approach left it, a
    counter-charge, and the umpire's reading of the slope (``charge``)."""
    return melee_situation(
        approached.battle,
        approached.path,
        tables,
        sided_flanks=charge.sided_flanks,
        counter_charge=approached.counter_charge or None,
        defender_on_crest=charge.defender_on_crest,
        attacker_downhill_from_crest=charge.attacker_downhill_from_crest,
    )


def fight(
    approached: Approach, dice: DiceSource, tables: RuleTables, charge: Charge
) -> tuple[Battle, list[Step], MeleeResult | None]:
    """The opposed melee roll of a charge that made contact, and the Leader Loss rolls (Phase 4)."""
    battle = approached.battle
    steps: list[Step] = []
    melee = None
    lost = dict(approached.stands_lost)
    if approached.end == ChargeEnd.CONTACT:
        situation = contact_situation(approached, charge, tables)
        melee = resolve_melee(
            battle,
            situation,
            dice,
            tables,
            consolidation=charge.consolidation,
            leader_check=False,
            occupy_guns=charge.occupy_guns,
        )
        battle = melee.battle
        steps.extend(melee.steps)
        for k, v in melee.stands_lost.items():
            lost[k] = lost.get(k, 0) + v
    for uid in (approached.path.attacker, approached.path.target):
        if lost.get(uid) and approached.battle.oob.has_attached_brigadier(uid) and battle.unit(uid).in_play:
            battle, step, _ = leader_loss(
                battle,
                uid,
                dice,
                tables,
                approach_lost=approached.stands_lost.get(uid, 0),
                melee_lost=melee.stands_lost.get(uid, 0) if melee is not None else 0,
            )
            steps.append(step)
    return battle, steps, melee


# -- Phase 2 only: the approach, leaving the melee for Phase 4 (RULE-06-1.1) -----------------------


@dataclass(frozen=True)
class ApproachResult:
    """A charge carried through Phase 2: the approach and, if it made contact, the melee it left
    pending for Phase 4 (:class:`rules.melee.melee.PendingMelee`)."""

    battle: Battle
    steps: tuple[Step, ...]
    approach: Approach
    pending: PendingMelee | None = None

    @property
    def end(self) -> ChargeEnd:
        return self.approach.end


def charge_to_contact(battle: Battle, charge: Charge, dice: DiceSource, tables: RuleTables) -> ApproachResult:
    """Phase 2 of an assault (RULE-06-1.1): declaration, the pivot and path, the 4.0" line and
    Window B, the pre-contact check, and then a stall, a halt, an evaded or overrun screen, or
    contact. On contact the two units are placed base to base, marked Engaged, and the melee is
    recorded with everything Phase 4 needs (:func:`rules.melee.melee.add_pending_melee`); the Leader Loss
    roll for stands lost on the way in waits for the melee. A charge that ends without contact
    rolls it now.

    Dice, in order: the closing volley, cover saves, the discipline check, and a Leader Loss roll
    where a charge without contact cost a stand of a unit with its Brigadier attached.
    """
    if not isinstance(charge, Charge):
        raise InvariantError("charge_to_contact needs a Charge")
    ap = approach(battle, charge, dice, tables)
    if ap.end != ChargeEnd.CONTACT:
        after, steps, _ = fight(ap, dice, tables, charge)
        return ApproachResult(after, ap.steps + tuple(steps), ap)
    after, pm = add_pending_melee(ap.battle, contact_situation(ap, charge, tables), ap.stands_lost)
    a, d = after.unit(pm.attacker), after.unit(pm.defender)
    n = len(pending_melees(after))
    step = Step(
        f"{a.name} and {d.name} are Engaged: the melee is resolved in {Phase.MELEE.title} "
        f"({n} melee{'s' if n != 1 else ''} pending)",
        rule="RULE-06-1.1",
        units=(a.id, d.id),
    )
    return ApproachResult(after, (*ap.steps, step), ap, pm)
