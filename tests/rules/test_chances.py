"""The exact chances a dialog shows while the program is to roll (:mod:`rules.chances`): counted
from the real resolution, equal to every face rolled one by one, and to the odds code."""

from __future__ import annotations

import itertools
from dataclasses import replace
from fractions import Fraction

import pytest

from rules.actions import resolve
from rules.battle.events import diff
from rules.battle.words import Phase
from rules.chances import chances_of, face_classes, percent_text
from rules.dice import TableDice
from rules.melee.melee import MeleeAction
from rules.odds import shock_odds
from rules.shooting.shoot import Shoot
from rules.shooting.volley_odds import volley_odds
from rules.shooting.volleys import CoverClass, plan_volley
from tests.rules.shooting.test_shooting import T, duel


def test_face_classes_are_every_way_the_dice_fall_counted():
    for n, cuts in [(1, ()), (2, ()), (3, (4,)), (3, (3, 6, 7)), (4, (5,))]:
        classes = face_classes(n, cuts)
        assert sum(p for _, p in classes) == 1
        # counted by how many dice reach each number, the classes match the 6^n faces one by one
        keys = sorted({*cuts, 1, 7})

        def band(f, keys=keys):
            return max(i for i, k in enumerate(keys) if f >= k)

        brute: dict[tuple, Fraction] = {}
        for faces in itertools.product(range(1, 7), repeat=n):
            key = tuple(sorted(band(f) for f in faces)) if cuts else tuple(sorted(faces))
            brute[key] = brute.get(key, Fraction(0)) + Fraction(1, 6**n)
        mine = {
            (tuple(sorted(band(f) for f in faces)) if cuts else tuple(sorted(faces))): p
            for faces, p in classes
        }
        assert mine == brute


def _small_volley():
    """3 stands of the 2nd Wisconsin at the 8th Georgia behind light cover: 3 dice, then saves."""
    b = duel(firer_kw={"stands": 3, "stands_start": 3})
    b = replace(b, phase=Phase.RANGED)
    return b, Shoot("f", "t", 5.0, cover=CoverClass.LIGHT.value)


def test_the_chances_of_a_volley_are_those_of_every_face_rolled_one_by_one():
    b, shot = _small_volley()
    ch = chances_of(lambda d: resolve(b, shot, d, T), b)
    assert ch.total == 1
    # brute force: the hit dice, then as many save dice as hits, every face of each
    by_state: dict[str, Fraction] = {}
    for hit in itertools.product(range(1, 7), repeat=3):
        hits = sum(1 for f in hit if f >= 4)
        for saves in itertools.product(range(1, 7), repeat=hits):
            res = resolve(b, shot, TableDice([*hit, *saves]), T)
            key = repr(diff(b, res.battle_after).to_dict())
            by_state[key] = by_state.get(key, Fraction(0)) + Fraction(1, 6 ** (3 + hits))
    assert sorted(by_state.values()) == sorted(o.chance for o in ch.outcomes)
    assert ch.runs < 6**3  # counted in classes, not face by face


def test_the_chances_of_a_volley_agree_with_the_odds_of_its_stand_losses():
    b, shot = _small_volley()
    ch = chances_of(lambda d: resolve(b, shot, d, T), b)
    odds = volley_odds(b, shot.volley(), T)
    lost: dict[int, Fraction] = {}
    for o in ch.outcomes:
        (line,) = [s for s in o.lines if "unsaved hit" in s.text]
        n = int(line.text.split(": ")[1].split(" stand")[0])
        lost[n] = lost.get(n, Fraction(0)) + o.chance
    assert lost == {k: v for k, v in odds.stand_losses.items() if v}
    # what is known before the roll: the dice with the to-hit number and its rule, the firer's Smoke
    plan = plan_volley(b, shot.volley(), T)
    assert any("3D6" in s.text and f"hits on {plan.base_to_hit}+" in s.text for s in ch.rolls)
    assert any("cover saves" in s.text and "only in some outcomes" in s.text for s in ch.rolls)
    assert any("marked with Smoke" in s.text for s in ch.known)


def test_the_chances_of_a_melee_are_the_36_pairs_of_shock_dice():
    from tests.gui.test_play_combat import locked_melee

    b = locked_melee()
    action = MeleeAction("a", "d")
    ch = chances_of(lambda d: resolve(b, action, d, T), b)
    assert ch.total == 1
    win, lose, tie = shock_odds(0, 0)  # the same score before the die on each side
    texts = {o: " ".join(s.text for s in o.lines) for o in ch.outcomes}

    def p(words):
        return sum((o.chance for o, t in texts.items() if words in t), Fraction(0))

    assert (p("8th Georgia is defeated"), p("2nd Wisconsin is defeated"), p("locked in melee")) == (
        win,
        lose,
        tie,
    )
    assert (win, lose, tie) == (Fraction(5, 12), Fraction(5, 12), Fraction(1, 6))
    # the modifiers of each side's roll are shown, with their rules, and no die
    assert any("+1 Fresh" in str(s) and "-2 Disordered" in str(s) for s in ch.rolls)


@pytest.mark.parametrize(
    "p, text",
    [
        (Fraction(1), "certain"),
        (Fraction(1, 2), "50%"),
        (Fraction(1, 36), "2.8%"),
        (Fraction(1, 7776), "under 0.1%"),
    ],
)
def test_a_chance_reads_as_the_umpire_says_it(p, text):
    assert percent_text(p) == text
