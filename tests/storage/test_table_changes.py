"""A rule table changed during a game: logged with its reason, in force from then on, undone like
any action, kept in the save and replayed exactly; a value the checks refuse changes nothing."""

from __future__ import annotations

import pytest

from rules.actions import ChangeTables, NextPhase, SpendPip
from rules.errors import RulesError
from rules.legality import charge_targets
from rules.tables import in_force, load_tables
from storage.game import Game
from storage.replay import verify
from storage.scenario import load_demo

RANGE = "melee.charge.infantry_range_in"


@pytest.fixture
def game(tmp_path):
    g = Game.create(tmp_path / "g.sqlite", load_demo(), seed=5)
    g.do(SpendPip("garnett"))
    g.do(NextPhase())
    yield g
    g.close()


def test_a_change_is_logged_with_its_reason_and_is_in_force_from_then_on(game):
    # the 5th Virginia is 9.6" from the 14th Brooklyn: beyond the 9" Double-Quick Charge Range
    first = charge_targets(game.battle, "va5", game.tables)[0]
    assert first.unit_id == "bkn14" and 'beyond the 9" Double-Quick Charge Range' in first.reason
    ev = game.do(ChangeTables({RANGE: 10.0}, reason="the club plays 10-inch charges this season"))
    assert game.tables.value(RANGE) == 10.0 and game.base_tables.value(RANGE) == 9.0
    assert "melee.charge.infantry_range_in 9 → 10" in ev.summary and "10-inch charges" in ev.summary
    texts = [s.text for s in ev.steps]
    assert texts[0].endswith("(club default)") or "RULE-" in texts[0]
    assert texts[-1] == "Reason: the club plays 10-inch charges this season"
    # from now on the rules read the changed table: 9.6" is within reach (what stops the charge
    # now is the one pivot it allows, RULE-06-1.4)
    first = charge_targets(game.battle, "va5", game.tables)[0]
    assert first.unit_id == "bkn14" and "Double-Quick" not in str(first) and first.rule == "RULE-06-1.4"
    assert verify(game) == len(game.events())


def test_undo_takes_the_change_back_and_the_save_keeps_it(game, tmp_path):
    game.do(ChangeTables({RANGE: 10.0}, reason="a house rule"))
    path = game.path
    game.close()
    with Game.open(path) as again:
        assert again.tables.value(RANGE) == 10.0
        assert verify(again) == len(again.events())
        again.undo_step()
        assert again.tables.value(RANGE) == 9.0 and again.tables is again.base_tables


@pytest.mark.parametrize(
    "values, reason, says",
    [
        ({"units.health.fresh_above_percent": 80}, "why not", "fixed by RULE-06-3.3"),
        ({"shooting.to_hit.short.rifled_musket": 9}, "a typo", "outside 2 to 6"),
        ({"melee.charge.no_such_thing": 3}, "a typo", "no entry"),
        ({RANGE: 10.0}, "  ", "needs its reason"),
        ({RANGE: 9.0}, "no change", "already"),
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
    a = in_force(base, {RANGE: 10.0})
    assert a is in_force(base, {RANGE: 10.0}) and a is not base
    assert in_force(base, {}) is base
