"""The Dunker Church scenario: a garrisoned building and a town sector to try chapter 03 on."""

from __future__ import annotations

import pytest

from rules.battle.words import Formation, Marker
from rules.battlefield.field import Battlefield
from rules.tables import load_tables
from storage.scenario import bundled_scenarios, load_bundled


@pytest.fixture(scope="module")
def field():
    battle = load_bundled("dunker_church")
    return battle, Battlefield(battle, load_tables())


def test_the_scenario_comes_with_brigadier_and_loads(field):
    battle, _ = field
    assert "dunker_church" in bundled_scenarios()
    assert battle.name == "The Dunker Church"
    assert {f.type.value for f in battle.terrain} >= {"building", "town_masonry"}


def test_rule_03_3_1_the_66th_ohio_garrisons_the_church_and_sees_and_is_seen_all_round(field):
    battle, bf = field
    assert battle.unit("oh66").has(Marker.GARRISONED) and battle.unit("oh66").stands == 2
    assert bf.building_of(battle.unit("oh66")).id == "dunker_church"
    for enemy in ("ga4", "nc1"):
        assert bf.line_of_sight("oh66", enemy).visible
        assert bf.line_of_sight(enemy, "oh66").visible


def test_rule_03_5_5_the_edge_of_the_town_sees_out_and_its_depths_do_not(field):
    battle, bf = field
    # no line of battle in a town (RULE-03-3.3): both Ohio regiments there are in column
    assert {battle.unit(u).formation for u in ("oh5", "oh7")} == {Formation.ASSAULT_COLUMN}
    assert bf.line_of_sight("ga44", "oh5").visible and bf.line_of_sight("oh5", "ga44").visible
    deep = bf.line_of_sight("ga44", "oh7")
    assert not deep.visible and deep.blocked_by == "sharpsburg_west" and deep.rule == "RULE-03-5.5"
    assert not bf.line_of_sight("oh7", "ga44").visible
