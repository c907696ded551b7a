"""A rule table changed during a game: logged with its reason, in force from then on, undone like
any action, kept in the save and replayed exactly; a value the checks refuse changes nothing."""

from __future__ import annotations

import pytest

from rules.actions import ChangeTables, NextPhase, SpendPip
from rules.errors import RulesError
from rules.legality import shoot_targets
from rules.tables import in_force, load_tables
from storage.game import Game
from storage.replay import verify
from storage.scenario import load_demo

#: A club default (no chapter here gives Phase 3 ranges): the longest a smoothbore volley reaches.
RANGE = "shooting.max_range.smoothbore_musket"


@pytest.fixture
def game(tmp_path):
    g = Game.create(tmp_path / "g.sqlite", load_demo(), seed=5)
    g.do(SpendPip("garnett"))
    g.do(NextPhase())
    g.do(NextPhase())  # Phase 3: Ranged Combat
    yield g
    g.close()


def wis2(game):
    """What the 5th Virginia's smoothbores may do to the 2nd Wisconsin, 17.6" off."""
    return {t.unit_id: t for t in shoot_targets(game.battle, "va5", game.tables)}["wis2"]


def test_a_change_is_logged_with_its_reason_and_is_in_force_from_then_on(game):
    assert wis2(game).reason == 'out of range (17.6" > 12")'
    ev = game.do(ChangeTables({RANGE: 18.0}, reason="the club reads smoothbores at 18 inches this season"))
    assert game.tables.value(RANGE) == 18.0 and game.base_tables.value(RANGE) == 12.0
    assert f"{RANGE} 12 → 18" in ev.summary and "18 inches" in ev.summary
    texts = [s.text for s in ev.steps]
    assert texts[0] == f"{RANGE}: 12 → 18 (club default: Phase 3 ranges are in chapter 05, which is not here)"
    assert texts[-1] == "Reason: the club reads smoothbores at 18 inches this season"
    # from now on the rules read the changed table: 17.6" is within reach (what stops the volley
    # now is the crest of Oak Ridge, RULE-03-4.3)
    assert "out of range" not in wis2(game).reason and wis2(game).rule == "RULE-03-4.3"
    assert verify(game) == len(game.events())


def test_undo_takes_the_change_back_and_the_save_keeps_it(game, tmp_path):
    game.do(ChangeTables({RANGE: 18.0}, reason="a house rule"))
    path = game.path
    game.close()
    with Game.open(path) as again:
        assert again.tables.value(RANGE) == 18.0
        assert verify(again) == len(again.events())
        again.undo_step()
        assert again.tables.value(RANGE) == 12.0 and again.tables is again.base_tables


@pytest.mark.parametrize(
    "values, reason, says",
    [
        ({"units.health.fresh_above_percent": 80}, "why not", "fixed by RULE-06-3.3"),
        ({"shooting.to_hit.short.rifled_musket": 9}, "a typo", "outside 2 to 6"),
        ({"melee.charge.no_such_thing": 3}, "a typo", "no entry"),
        # a number a chapter gives is the rule's, as in a club's copy (RULE-06-1.3)
        ({"melee.charge.infantry_range_in": 10.0}, "house rule", "a club copy changes club defaults only"),
        ({RANGE: 18.0}, "  ", "needs its reason"),
        ({RANGE: 12.0}, "no change", "already"),
    ],
)
def test_a_change_the_checks_refuse_changes_nothing(game, values, reason, says):
    before = (game.battle, len(game.events()))
    with pytest.raises(RulesError) as err:
        game.do(ChangeTables(values, reason=reason))
    assert says in str(err.value)
    assert (game.battle, len(game.events())) == before


def test_the_tables_in_force_are_one_object_for_the_same_values():
    base = load_tables()
    a = in_force(base, {RANGE: 18.0})
    assert a is in_force(base, {RANGE: 18.0}) and a is not base
    assert in_force(base, {}) is base
