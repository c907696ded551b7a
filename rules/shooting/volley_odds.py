"""The exact odds of a volley (:mod:`rules.shooting.volleys`): the chance of each number of stands
lost, and of Disorder, counted over every face of every die, with no dice rolled.

>>> from rules.tables import load_tables
>>> odds = volley_odds_from(dice_pool=2, to_hit=4, tables=load_tables())
>>> odds.stand_losses  # two dice hitting on 4+: both must hit to remove a stand
{0: Fraction(3, 4), 1: Fraction(1, 4)}
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from rules.battle.battle import Battle
from rules.dice import FACES
from rules.errors import InvariantError
from rules.shooting.volleys import TOP_FACE, Volley, plan_volley
from rules.tables import RuleTables


@dataclass(frozen=True)
class VolleyOdds:
    """Exact odds of a volley: the chance of each number of stands lost, and of Disorder."""

    stand_losses: Mapping[int, Fraction]
    disorder: Fraction

    @property
    def expected_stands_lost(self) -> Fraction:
        return sum((k * p for k, p in self.stand_losses.items()), Fraction(0))

    def at_least(self, stands: int) -> Fraction:
        return sum((p for k, p in self.stand_losses.items() if k >= stands), Fraction(0))


def _face_chance(needed: int | None) -> Fraction:
    """The chance that one die rolls ``needed`` or more (``None``: never)."""
    if needed is None:
        return Fraction(0)
    good = sum(1 for f in FACES if f >= needed)
    return Fraction(good, len(FACES))


def hits_and_disorder(
    *,
    dice_pool: int,
    to_hit: int,
    disorder_face: int,
    save: int | None = None,
    canister_disorder: bool = False,
) -> dict[tuple[int, bool], Fraction]:
    """The exact joint odds of (unsaved hits, Disorder inflicted) of ``dice_pool`` dice hitting on
    ``to_hit``+, each hit saved on ``save``+ (``None``: no save), Disorder on a natural
    ``disorder_face`` or, for canister that disorders, on any hit. The one enumeration of a
    volley's dice: :func:`volley_odds_from` and the charge odds (:mod:`rules.odds`) read it.

    The dice are counted in whole numbers (ways out of 6^n) and turned into exact fractions once.
    """
    if isinstance(dice_pool, bool) or not isinstance(dice_pool, int) or dice_pool < 0:
        raise InvariantError(f"a dice pool is a whole number of dice, not {dice_pool!r}")
    n_faces = len(FACES)
    hit_faces = [f >= to_hit for f in FACES]
    six_faces = [f == disorder_face for f in FACES]
    # die by die: (hits, a disorder face seen) -> number of ways
    ways: dict[tuple[int, bool], int] = {(0, False): 1}
    for _ in range(dice_pool):
        nxt: dict[tuple[int, bool], int] = {}
        for (h, six), w in ways.items():
            for hit, s6 in zip(hit_faces, six_faces):
                key = (h + hit, six or s6)
                nxt[key] = nxt.get(key, 0) + w
        ways = nxt
    saves = save is not None and save <= TOP_FACE
    good = sum(1 for f in FACES if saves and f >= save)
    out: dict[tuple[int, bool], Fraction] = {}
    total = n_faces**dice_pool
    for (hits, six), w in ways.items():
        disorder = six or (canister_disorder and hits > 0)
        if not saves or hits == 0:
            out[(hits, disorder)] = out.get((hits, disorder), Fraction(0)) + Fraction(w, total)
            continue
        for saved in range(hits + 1):
            k = math.comb(hits, saved) * good**saved * (n_faces - good) ** (hits - saved)
            key = (hits - saved, disorder)
            out[key] = out.get(key, Fraction(0)) + Fraction(w * k, total * n_faces**hits)
    return out


def volley_odds_from(
    *,
    dice_pool: int,
    to_hit: int,
    tables: RuleTables,
    save: int | None = None,
    micro_hits: int = 0,
    stands: int | None = None,
    canister_disorder: bool = False,
) -> VolleyOdds:
    """Exact distribution of stand losses from ``dice_pool`` dice hitting on ``to_hit``+.

    Each hit is saved on ``save``+ (``None``: no cover). Stand losses count the target's
    carried ``micro_hits`` and stop at its ``stands``. From :func:`hits_and_disorder`.
    """
    per_stand = tables.value("shooting.dice.hits_per_stand")
    joint = hits_and_disorder(
        dice_pool=dice_pool,
        to_hit=to_hit,
        disorder_face=int(tables.value("shooting.dice.disorder_on_natural")),
        save=save,
        canister_disorder=canister_disorder,
    )
    losses: dict[int, Fraction] = {}
    disorder = Fraction(0)
    for (unsaved, disordered), p in joint.items():
        lost = (micro_hits + unsaved) // per_stand
        if stands is not None:
            lost = min(lost, stands)
        losses[lost] = losses.get(lost, Fraction(0)) + p
        if disordered:
            disorder += p
    return VolleyOdds(stand_losses=dict(sorted(losses.items())), disorder=disorder)


def volley_odds(battle: Battle, volley: Volley, tables: RuleTables) -> VolleyOdds:
    """The exact odds of a volley as it would be resolved now (no dice are rolled)."""
    plan = plan_volley(battle, volley, tables)
    save = plan.save if plan.save is not None and plan.save <= TOP_FACE else None
    return volley_odds_from(
        dice_pool=plan.dice_pool,
        to_hit=plan.to_hit,
        tables=tables,
        save=save,
        micro_hits=plan.target.micro_hits,
        stands=plan.target.stands,
        canister_disorder=plan.canister_disorder,
    )
