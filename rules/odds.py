"""The odds of a charge before the umpire commits it (chapter 06).

From the current position, :func:`charge_odds` gives the exact probability of each way the charge
can end (it stalls, the attacker wins, the defender wins, a tie ...) and the expected stands each
side loses. Nothing is sampled: the dice are enumerated.

1. The Closing Defensive Volley: the number of hits and whether any natural 6 came up, die by die
   (a binomial per to-hit number, kept jointly with the Disorder it brings), then the cover saves
   (a binomial on the hits), then the stands and micro-hits that leaves (RULE-06-2.3).
2. The pre-contact discipline check when a stand was lost or Disorder inflicted (RULE-06-2.4),
   or the 4+ check of a Refuse the Flank without a reserved pip (RULE-04-5.2).
3. The two shock dice, 36 equally likely pairs, against the scores the melee module computes for
   that state of the charger (RULE-06-3.2), and the aftermath the melee module applies.

Every step calls the same functions as the resolution in :mod:`rules.assault.charge` and
:mod:`rules.melee.melee`, on the states the dice can lead to, so the odds and the resolution cannot
drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from rules.assault import charge as assault
from rules.assault.charge import AtTheLine, Charge, ChargeEnd, ChargeReaction
from rules.battle.battle import Battle
from rules.battle.words import Marker
from rules.dice import FACES, TableDice
from rules.errors import DiceError
from rules.melee.melee import Outcome, aftermath, outcome_of, shock_sides
from rules.shooting.volley_odds import hits_and_disorder
from rules.shooting.volleys import VolleyPlan, plan_volley
from rules.tables import RuleTables

SIX = Fraction(1, len(FACES))


@dataclass(frozen=True)
class ChargeOdds:
    """Exact odds of a charge. ``outcomes`` maps each way it can end to its probability: the
    :class:`~rules.assault.charge.ChargeEnd` values other than contact, and for a melee the
    :class:`~rules.melee.melee.Outcome` values."""

    outcomes: Mapping[str, Fraction]
    expected_attacker_stands_lost: Fraction
    expected_defender_stands_lost: Fraction

    @property
    def total(self) -> Fraction:
        return sum(self.outcomes.values(), Fraction(0))

    def p(self, outcome: str) -> Fraction:
        return self.outcomes.get(str(outcome), Fraction(0))

    def as_percentages(self) -> dict[str, float]:
        return {k: float(v) * 100 for k, v in self.outcomes.items()}


class _Tally:
    def __init__(self) -> None:
        self.outcomes: dict[str, Fraction] = {}
        self.att = Fraction(0)
        self.dfn = Fraction(0)
        self.situations: dict[tuple, object] = {}

    def add(self, outcome: str, p: Fraction, att_lost: int, dfn_lost: int) -> None:
        if not p:
            return
        self.outcomes[outcome] = self.outcomes.get(outcome, Fraction(0)) + p
        self.att += p * att_lost
        self.dfn += p * dfn_lost

    def done(self) -> ChargeOdds:
        return ChargeOdds(dict(sorted(self.outcomes.items())), self.att, self.dfn)


def shock_odds(attacker_base: int, defender_base: int) -> tuple[Fraction, Fraction, Fraction]:
    """The exact chances that the attacker wins, the defender wins, or they tie an Opposed Melee Roll
    from the two scores before the die (RULE-06-3.2, RULE-06-4.1): each of the 36 pairs counted.

    >>> [str(p) for p in shock_odds(9, 9)]
    ['5/12', '5/12', '1/6']
    """
    counts = {o: 0 for o in Outcome}
    for da in FACES:
        for dd in FACES:
            counts[outcome_of(da + attacker_base, dd + defender_base)] += 1
    n = len(FACES) ** 2
    return tuple(  # type: ignore[return-value]
        Fraction(counts[o], n) for o in (Outcome.ATTACKER_WINS, Outcome.DEFENDER_WINS, Outcome.TIE)
    )


def _chance(needed: int) -> Fraction:
    return Fraction(sum(1 for f in FACES if f >= needed), len(FACES))


def volley_joint(plan: VolleyPlan) -> dict[tuple[int, bool], Fraction]:
    """P(unsaved hits, Disorder inflicted) for a planned volley (:func:`rules.shooting.volley_odds.hits_and_disorder`)."""
    return hits_and_disorder(
        dice_pool=plan.dice_pool,
        to_hit=plan.to_hit,
        disorder_face=plan.disorder_face,
        save=plan.save,
        canister_disorder=plan.canister_disorder,
    )


def _branches(at: AtTheLine, charge: Charge, tables: RuleTables) -> list[tuple[Fraction, assault.Reacted]]:
    """The reaction resolved with no die, or once for each face of the one die it needs."""
    try:
        return [(Fraction(1), assault.react(at, charge, TableDice([]), tables))]
    except DiceError:
        return [(SIX, assault.react(at, charge, TableDice([f]), tables)) for f in FACES]


def _melee(
    tally: _Tally,
    battle: Battle,
    at: AtTheLine,
    charge: Charge,
    p: Fraction,
    counter: bool,
    tables,
    lost_a,
    lost_d,
):
    path = at.path
    battle2, _, end = assault.close_in(battle, path, tables, counter)
    if end != ChargeEnd.CONTACT:
        t_lost = lost_d + battle.unit(path.target).stands - battle2.unit(path.target).stands
        _ended(tally, battle2, at, charge, end, p, tables, lost_a, t_lost)
        return
    # where the units meet does not depend on the charger's losses: work the situation out once
    key = (id(at), counter, battle2.unit(path.target), battle2.unit(path.attacker).markers)
    situation = tally.situations.get(key)
    if situation is None:
        situation = assault.melee_situation(
            battle2,
            path,
            tables,
            counter_charge=counter or None,
            defender_on_crest=charge.defender_on_crest,
            attacker_downhill_from_crest=charge.attacker_downhill_from_crest,
        )
        tally.situations[key] = situation
    sa, sd, _ = shock_sides(battle2, situation, tables)
    a_base, d_base = sa.base, sd.base
    pairs: dict[object, tuple[int, int, int]] = {}  # outcome -> (ways, attacker score, defender score)
    for da in FACES:
        for dd in FACES:
            a_score, d_score = da + a_base, dd + d_base
            o = outcome_of(a_score, d_score)
            ways, _, _ = pairs.get(o, (0, a_score, d_score))
            pairs[o] = (ways + 1, a_score, d_score)
    for ways, a_score, d_score in pairs.values():
        _, _, outcome, lost, _ = aftermath(
            battle2, situation, a_score, d_score, tables, consolidation=charge.consolidation
        )
        tally.add(
            outcome.value,
            p * Fraction(ways, len(FACES) ** 2),
            lost_a + lost.get(path.attacker, 0),
            lost_d + lost.get(path.target, 0),
        )


def _ended(
    tally: _Tally, battle: Battle, at: AtTheLine, charge: Charge, end: ChargeEnd, p, tables, lost_a, lost_d
):
    """A charge that ended without a melee, unless it goes on beyond a screen (RULE-04-4.4)."""
    nxt = assault.beyond_the_screen(battle, at.path, end, charge, tables)
    if nxt is None:
        tally.add(end.value, p, lost_a, lost_d)
    else:
        _from_line(tally, nxt[0], nxt[1], p, tables, lost_a, lost_d)


def _from_line(tally: _Tally, at: AtTheLine, charge: Charge, p: Fraction, tables, lost_a: int, lost_d: int):
    if at.early is not None:
        tally.add(at.early.value, p, lost_a, lost_d)
        return
    path = at.path
    a = at.battle.unit(path.attacker)
    t = at.battle.unit(path.target)
    if charge.reaction != ChargeReaction.CLOSING_VOLLEY:
        for q, r in _branches(at, charge, tables):
            if r.end is not None:
                _ended(tally, r.battle, at, charge, r.end, p * q, tables, lost_a, lost_d)
            else:
                _melee(tally, r.battle, at, charge, p * q, r.counter_charge, tables, lost_a, lost_d)
        return
    _, _, volley = assault.closing_volley_of(at, tables)
    plan = plan_volley(at.battle, volley, tables)
    base = at.battle.with_unit(t.with_markers(add=[Marker.SMOKE]))
    need = int(tables.discipline(a.quality.value).value)
    states: dict[tuple, Fraction] = {}
    for (unsaved, disorder), q in volley_joint(plan).items():
        a2, cas = a.take_hits(unsaved)
        if disorder and not cas.destroyed:
            a2 = a2.with_markers(add=[Marker.DISORDER])
        key = (a2, cas.stands_lost, cas.destroyed, cas.stands_lost >= 1 or disorder)
        states[key] = states.get(key, Fraction(0)) + q
    for (a2, lost, destroyed, check), q in states.items():
        q = p * q
        if destroyed:
            tally.add(ChargeEnd.DESTROYED.value, q, lost_a + lost, lost_d)
            continue
        if check:
            passed = _chance(need)
            tally.add(ChargeEnd.STALLED.value, q * (1 - passed), lost_a + lost, lost_d)
            q = q * passed
        _melee(tally, base.with_unit(a2), at, charge, q, False, tables, lost_a + lost, lost_d)


def charge_odds(
    battle: Battle, charge: Charge, tables: RuleTables, at: assault.AtTheLine | None = None
) -> ChargeOdds:
    """The exact odds of ``charge`` from the current position (no dice are rolled).

    Raises :class:`~rules.errors.IllegalAction` as the resolution would, for a charge that cannot
    be declared or a reaction the defender cannot take. The defender's expected losses count every
    enemy stand the charge removes: a screen it overruns and the unit behind it. ``at``: the charge
    at the 4" line as :func:`rules.assault.charge.to_the_line` gave it for this battle, charger,
    target and contact (the Charge dialog has it already); the defender's reaction comes after it.
    """
    if (
        at is None
        or (at.path.attacker, at.path.target) != (charge.attacker, charge.target)
        or (charge.contact is not None and at.path.contact != charge.contact)
    ):
        at = assault.to_the_line(battle, charge, tables)
    tally = _Tally()
    _from_line(tally, at, charge, Fraction(1), tables, 0, 0)
    return tally.done()
