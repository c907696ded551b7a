"""Who may fire at whom from a hill and from a building: the Firing Prohibition of dead ground
(RULE-03-4.3) and a garrison's All-Around Fire split across the faces of its building (RULE-03-3.1)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.actions import resolve
from rules.battle.words import Marker, Phase
from rules.dice import TableDice
from rules.errors import IllegalAction
from rules.legality import Legal, Refusal, shoot_targets
from rules.shooting.shoot import Shoot, measure_volley
from tests.rules.battlefield.test_line_of_sight import T, oak_ridge

# -- RULE-03-4.3 Firing Prohibition -----------------------------------------------------------------


def forward_slope(wis_gap=2.0):
    """Oak Ridge (crest along y=20): the 2nd Wisconsin ``wis_gap`` behind the crest, facing it, and
    the 4th Virginia on the forward slope of the same hill, 5" below the crest, in its Phase 3."""
    b = oak_ridge(wis_gap)
    b = b.with_unit(b.unit("va4").moved_to(12, 25.0))
    return replace(b, phase=Phase.RANGED)


def test_rule_03_4_3_a_regiment_in_dead_ground_may_not_fire_at_an_enemy_on_the_forward_slope():
    # "Units in dead ground cannot shoot at enemy units on the lower forward slopes until they
    # physically move up to occupy the crestline": both stand on the hill, in sight of each other
    b = forward_slope()
    targets = {o.unit_id: o for o in shoot_targets(b, "wis2", T)}
    va4 = targets["va4"]
    assert isinstance(va4, Refusal) and va4.rule == "RULE-03-4.3"
    assert "dead ground" in va4.reason and va4.detail.sight.visible
    with pytest.raises(IllegalAction, match="dead ground") as exc:
        measure_volley(b, "wis2", "va4", T)
    assert exc.value.rule == "RULE-03-4.3"


def test_rule_03_4_3_the_volley_is_refused_when_it_is_resolved():
    b = forward_slope()
    shot = Shoot("wis2", "va4", 5.0)
    with pytest.raises(IllegalAction, match="dead ground") as exc:
        resolve(b, shot, TableDice([6] * 10), T)
    assert exc.value.rule == "RULE-03-4.3"
    # a save made before the prohibition was checked replays as it was played
    old = {k: v for k, v in shot.to_dict().items() if k != "dead_ground_checked"}
    assert resolve(b, Shoot.from_dict(old), TableDice([1] * 5), T).battle.unit("wis2").has(Marker.FIRED)


@pytest.mark.parametrize("gap", [1.0, 0.0])
def test_rule_03_4_3_within_1in_of_the_crest_or_on_it_the_regiment_may_fire(gap):
    b = forward_slope(wis_gap=gap)
    assert isinstance({o.unit_id: o for o in shoot_targets(b, "wis2", T)}["va4"], Legal)
    measure_volley(b, "wis2", "va4", T)


def test_rule_03_4_3_the_prohibited_enemy_is_passed_over_for_the_closest_it_may_fire_at():
    # a second Confederate regiment on the crest itself is not on the lower slope: the Wisconsin,
    # barred from the closer one, fires at it (RULE-03-5.6 among the targets it may shoot at)
    from tests.rules.conftest import foot

    b = forward_slope()
    b = b.with_unit(b.unit("va4").moved_to(12, 22.0))  # 4.0" away, 2" below the crest
    b = b.with_unit(foot("va5", 20, 20.0, facing=0, side="csa", name="5th Virginia"))
    t = {o.unit_id: o for o in shoot_targets(b, "wis2", T)}
    assert t["va4"].distance_in < t["va5"].distance_in
    assert isinstance(t["va4"], Refusal) and t["va4"].rule == "RULE-03-4.3"
    assert isinstance(t["va5"], Legal) and t["va5"].rule == "RULE-03-5.6"


# -- RULE-04-3.4: the fire that marked a unit Fired -------------------------------------------------


def _duel_in_phase_3():
    from tests.rules.conftest import battle_of, foot

    wis = foot("wis2", 10, 20, facing=180, name="2nd Wisconsin")
    va = foot("va4", 10, 26, facing=0, side="csa", name="4th Virginia")
    return replace(battle_of(wis, va), phase=Phase.RANGED)


def test_rule_04_3_4_a_second_volley_in_phase_3_is_refused_naming_the_volley_it_fired():
    from rules.legality import may_fire

    b = _duel_in_phase_3()
    b = resolve(b, Shoot.on_table(b, "wis2", "va4", T), TableDice([1] * 5), T).battle
    refusal = may_fire(b, "wis2", T)
    assert refusal.rule == "RULE-04-3.4"
    assert "its Phase 3 volley (at 4th Virginia)" in refusal.reason
    assert "Opportunity Fire" not in refusal.reason
    with pytest.raises(IllegalAction, match="its Phase 3 volley") as exc:
        resolve(b, Shoot("wis2", "va4", 5.0), TableDice([1] * 5), T)
    assert exc.value.rule == "RULE-04-3.4"
    # the record is of this side's Phase 3: in the enemy's Phase 3 it counts for nothing
    assert b.extra.fired_in_phase_3("wis2", b.turn, "union") == ("volley", "va4")
    assert b.extra.fired_in_phase_3("wis2", b.turn + 1, "union") is None
    from rules.battle.battle import Battle

    assert Battle.from_dict(b.to_dict()).extra == b.extra


def test_rule_04_3_4_a_unit_marked_fired_by_opportunity_fire_is_refused_naming_it():
    from rules.legality import may_fire

    b = _duel_in_phase_3()
    b = b.with_unit(b.unit("wis2").with_markers(add=[Marker.FIRED, Marker.SMOKE]))
    refusal = may_fire(b, "wis2", T)
    assert refusal.rule == "RULE-04-3.4" and "Opportunity Fire" in refusal.reason


def test_rule_04_3_4_a_battery_that_bombarded_a_building_is_refused_naming_the_building():
    from rules.legality import may_fire
    from tests.rules.shooting.test_shooting import _bombard, _farm_battle

    b = _bombard(_farm_battle(), [1] * 6).battle
    refusal = may_fire(b, "bat", T)
    assert refusal.rule == "RULE-04-3.4" and "it bombarded Roulette Farm" in refusal.reason
    with pytest.raises(IllegalAction, match="it bombarded Roulette Farm"):
        _bombard(b, [1] * 6)


# -- RULE-03-3.1 All-Around Fire ----------------------------------------------------------------------


def _garrison_between_two_enemies():
    """The 8th Georgia (2 stands) garrisons Roulette Farm; the 2nd Wisconsin stands 4" off its north
    face and the 19th Indiana 6" off its south face, in the Confederates' Phase 3."""
    from tests.rules.conftest import battle_of, foot, rect

    house = rect("farm", "building", 10, 10, 14, 13, name="Roulette Farm")
    g = foot("g", 12, 11, side="csa", stands=2, markers=frozenset({Marker.GARRISONED}), name="8th Georgia")
    wis = foot("wis2", 12, 6.0, facing=180, name="2nd Wisconsin")
    ind = foot("ind19", 12, 19.0, facing=0, name="19th Indiana")
    return replace(battle_of(g, wis, ind, terrain=[house]), phase=Phase.RANGED, active_side="csa")


def test_rule_03_3_1_target_priority_does_not_refuse_an_enemy_off_another_face_of_the_building():
    b = _garrison_between_two_enemies()
    t = {o.unit_id: o for o in shoot_targets(b, "g", T)}
    assert t["wis2"].distance_in < t["ind19"].distance_in
    assert isinstance(t["wis2"], Legal) and t["wis2"].rule == "RULE-03-5.6"
    assert isinstance(t["ind19"], Legal) and t["ind19"].rule == "RULE-03-3.1"
    measure_volley(b, "g", "ind19", T)
    # a second enemy off the same face as the Indiana, farther, is still passed over for it
    from tests.rules.conftest import foot

    b = b.with_unit(foot("mi24", 13, 24.0, facing=0, name="24th Michigan"))
    assert isinstance({o.unit_id: o for o in shoot_targets(b, "g", T)}["mi24"], Refusal)


def test_rule_03_3_1_a_garrison_splits_its_dice_across_the_faces_of_its_building_in_one_action():
    from rules.actions import Action

    b = _garrison_between_two_enemies()
    shot = Shoot.split_on_table(b, "g", {"wis2": 1, "ind19": 1}, T)
    assert Action.from_dict(shot.to_dict()) == shot
    r = resolve(b, shot, TableDice([6, 5]), T)
    fired = [s for s in r.steps if s.dice]
    assert [(s.dice, s.units[1]) for s in fired] == [((6,), "wis2"), ((5,), "ind19")]
    assert [roll.purpose for roll in r.rolls] == ["volley", "volley"]
    assert r.battle.unit("wis2").micro_hits == 1 and r.battle.unit("ind19").micro_hits == 1
    assert r.battle.unit("wis2").has(Marker.DISORDER) and not r.battle.unit("ind19").has(Marker.DISORDER)
    assert sum("is marked with Smoke and Fired" in s.text for s in r.steps) == 1
    assert r.battle.unit("g").has(Marker.FIRED)
    assert "2nd Wisconsin" in r.summary and "19th Indiana" in r.summary
    assert r.battle.extra.fired_in_phase_3("g", b.turn, "csa") == ("volley", "wis2", "ind19")


def test_rule_03_3_1_a_split_fire_is_refused_beyond_the_garrisons_dice_or_for_a_unit_in_the_open():
    b = _garrison_between_two_enemies()
    with pytest.raises(IllegalAction, match="2 dice to split") as exc:
        resolve(b, Shoot.split_on_table(b, "g", {"wis2": 2, "ind19": 1}, T), TableDice([6] * 3), T)
    assert exc.value.rule == "RULE-03-3.1"
    out = b.with_unit(b.unit("g").with_markers(remove=[Marker.GARRISONED]).moved_to(12, 15.0))
    shot = Shoot("g", "ind19", 3.0, dice=1, split=({"target_id": "wis2", "distance_in": 8.0, "dice": 1},))
    with pytest.raises(IllegalAction, match="garrisons no building") as exc:
        resolve(out, shot, TableDice([6] * 2), T)
    assert exc.value.rule == "RULE-03-3.1"


def test_a_volley_saved_before_the_split_fires_the_whole_pool_at_one_target():
    b = _garrison_between_two_enemies()
    old = {k: v for k, v in Shoot.on_table(b, "g", "wis2", T).to_dict().items() if k not in ("dice", "split")}
    shot = Shoot.from_dict(old)
    assert shot.dice is None and shot.split == ()
    r = resolve(b, shot, TableDice([6, 6]), T)
    assert [s.dice for s in r.steps if s.dice] == [(6, 6)]


def test_rule_03_3_1_a_split_fire_is_one_entry_of_the_journal_and_one_undo(tmp_path):
    from storage.game import Game

    b = _garrison_between_two_enemies()
    g = Game.create(tmp_path / "farm.sqlite", b, seed=1862)
    try:
        before = len(g.events())
        g.do(Shoot.split_on_table(b, "g", {"wis2": 1, "ind19": 1}, T), TableDice([6, 5]))
        assert len(g.events()) == before + 1
        assert g.battle.unit("g").has(Marker.FIRED)
        g.undo()
        assert g.battle == b
    finally:
        g.close()
