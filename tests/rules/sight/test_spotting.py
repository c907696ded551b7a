"""Spotting: which enemy units a side sees, from the sight rules of chapter 03 and the club
defaults (rules.sight.spotting), and hidden deployment revealed as the rules say."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.actions import ChangeFormation, MoveUnit, NextPhase, Override, resolve
from rules.battle.terrain import TerrainFeature, TerrainType
from rules.battle.words import Marker, Phase
from rules.battlefield.field import Battlefield
from rules.dice import TableDice
from rules.errors import IllegalAction, InvariantError
from rules.shooting.shoot import Shoot
from rules.sight.spotting import SightTracker, sight_changed, spot
from rules.tables import load_tables
from tests.rules.conftest import battle_of, foot, guns, rect

T = load_tables()

# Oak Ridge of chapter 03, 6.0: a level 1 ridge from y=10 to y=30, its crestline along y=20
OAK_RIDGE = TerrainFeature(
    "oak",
    TerrainType.HILL,
    ((0, 10), (60, 10), (60, 30), (0, 30)),
    name="Oak Ridge",
    level=1,
    crest=((0, 20), (60, 20)),
)


def oak_ridge(wis_gap=2.0):
    """Battery B on the crest, the 2nd Wisconsin ``wis_gap`` behind it, the 4th Virginia in the
    valley 8" from the foot of the ridge."""
    battery = guns("btyB", 30, 20, facing=180, sections=1, name="Battery B, 4th US")
    wis = foot("wis2", 12, 20 - wis_gap, facing=180, name="2nd Wisconsin")
    va = foot("va4", 20, 38, facing=0, side="csa", name="4th Virginia")
    return battle_of(battery, wis, va, terrain=[OAK_RIDGE])


# -- the sight rules of chapter 03 --------------------------------------------------------------------


def test_rule_03_4_3_behind_the_crest_is_not_spotted():
    """Chapter 03, 6.0: the Virginians see Battery B on the crest, not the Wisconsin 2" behind it."""
    s = spot(oak_ridge(), "csa", T)
    assert s.seen == {"btyB"}
    why = s.unseen["wis2"]
    assert why.rule == "RULE-03-4.3" and "dead ground" in why.reason and why.nearest == "va4"
    # and the Union sees the Virginians only from the crest: dead ground is mutual
    union = spot(oak_ridge(), "union", T)
    assert union.seen_by == {"va4": ("btyB",)}


def test_rule_03_4_3_exactly_1in_behind_the_crest_is_spotted():
    assert spot(oak_ridge(wis_gap=1.0), "csa", T).sees("wis2")
    assert not spot(oak_ridge(wis_gap=1.1), "csa", T).sees("wis2")


def test_rule_03_4_4_a_hill_between_two_units_on_level_0():
    hill = TerrainFeature("knoll", TerrainType.HILL, ((20, 20), (40, 20), (40, 30), (20, 30)), level=1)
    b = battle_of(
        foot("u1", 30, 10, facing=180, name="20th Maine"),
        foot("c1", 30, 40, side="csa", name="15th Alabama"),
        terrain=[hill],
    )
    s = spot(b, "union", T)
    assert not s.sees("c1")
    assert s.unseen["c1"].rule == "RULE-03-4.4"
    assert "stands between" in s.unseen["c1"].reason
    assert spot(b, "csa", T).unseen["u1"].rule == "RULE-03-4.4"
    # the hill taken away, they see each other
    assert spot(b.without_feature("knoll"), "union", T).sees("c1")


@pytest.mark.parametrize(("depth", "seen"), [(2.9, True), (3.1, False)])
def test_rule_03_5_5_dense_woods_block_beyond_3in(depth, seen):
    """2.9" of dense woods on the sight line leaves the view; 3.1" blocks it (RULE-03-5.5)."""
    woods = rect("wood", "dense_woods", 0, 20, 60, 20 + depth, name="Miller's Wood")
    b = battle_of(foot("u1", 30, 10, facing=180), foot("c1", 30, 30, side="csa"), terrain=[woods])
    s = spot(b, "union", T)
    assert s.sees("c1") is seen
    if not seen:
        assert s.unseen["c1"].rule == "RULE-03-5.5"
        assert "3.1\" of Miller's Wood" in s.unseen["c1"].reason


def test_rule_03_5_5_a_building_blocks_the_view_through_it():
    house = rect("house", "building", 25, 18, 35, 22, name="Dunker Church")
    b = battle_of(foot("u1", 30, 10, facing=180), foot("c1", 30, 30, side="csa"), terrain=[house])
    s = spot(b, "union", T)
    assert not s.sees("c1")
    assert s.unseen["c1"].rule == "RULE-03-5.5" and "Dunker Church" in s.unseen["c1"].reason
    # a unit off to the side, whose line misses the building, is seen
    b2 = b.with_unit(b.unit("c1").moved_to(50, 30))
    assert spot(b2, "union", T).sees("c1")


def test_rule_03_5_3_friendly_units_block_fire_but_not_the_view():
    """A friendly line between blocks the rear unit's fire (RULE-03-5.3) but not what it sees."""
    b = battle_of(
        foot("rear", 30, 10, facing=180),
        foot("front", 30, 15, facing=180),
        foot("c1", 30, 30, side="csa"),
    )
    assert not Battlefield(b, T).line_of_sight("rear", "c1").visible
    assert spot(b, "union", T).seen_by["c1"] == ("rear", "front")


# -- the club defaults ----------------------------------------------------------------------------------


def test_a_unit_in_the_open_is_made_out_within_the_club_default_distance():
    far = T.value("terrain.spotting.open_in")
    b = battle_of(foot("u1", 10, 10, facing=180), foot("c1", 10, 10 + far + 0.5, side="csa"))
    s = spot(b, "union", T)
    assert not s.sees("c1")
    assert s.unseen["c1"].rule == "club default (terrain.spotting.open_in)"
    assert f'{far + 0.5:.1f}" away' in s.unseen["c1"].reason
    assert spot(b.with_unit(b.unit("c1").moved_to(10, 10 + far - 0.5)), "union", T).sees("c1")
    # a club that sees farther edits the table
    longer = T.with_values({"terrain.spotting.open_in": far + 10})
    assert spot(b, "union", longer).sees("c1")


def test_a_unit_that_fired_is_seen_at_any_distance_with_a_clear_line():
    far = T.value("terrain.spotting.open_in")
    c = foot("c1", 10, 10 + far + 20, side="csa", markers=frozenset({Marker.SMOKE}))
    b = battle_of(foot("u1", 10, 10, facing=180), c)
    assert spot(b, "union", T).sees("c1")
    # but not through 3.1" of dense woods
    wood = rect("w", "dense_woods", 0, 30, 40, 33.1)
    assert not spot(b.with_feature(wood), "union", T).sees("c1")
    # nor at all, when the club says smoke does not give a unit away
    assert not spot(b, "union", T.with_values({"terrain.spotting.fired_seen_at_any_distance": False})).sees(
        "c1"
    )


def test_a_hidden_unit_is_spotted_only_close_by():
    near = T.value("terrain.spotting.hidden_in")
    b = battle_of(foot("u1", 10, 10, facing=180), foot("c1", 10, 10 + near + 1, side="csa", hidden=True))
    s = spot(b, "union", T)
    assert not s.sees("c1")
    assert "hidden" in s.unseen["c1"].reason
    assert s.unseen["c1"].rule == "club default (terrain.spotting.hidden_in)"
    assert spot(b.with_unit(b.unit("c1").moved_to(10, 10 + near - 0.5)), "union", T).sees("c1")


def test_a_side_with_no_unit_on_the_table_sees_nothing():
    b = battle_of(foot("u1", 10, 10, stands=0), foot("c1", 10, 20, side="csa"))
    s = spot(b, "union", T)
    assert s.seen == frozenset() and "no unit on the table" in s.unseen["c1"].reason


def test_an_unknown_side_is_refused_by_name():
    with pytest.raises(InvariantError, match=r"no side 'prussia'.*union \(Union\), csa \(Confederacy\)"):
        spot(oak_ridge(), "prussia", T)
    assert spot(oak_ridge(), "Confederacy", T).side == "csa"


# -- following the battle ------------------------------------------------------------------------------


def _scattered(seed_positions):
    units = [
        foot(f"u{i}", x, y, facing=180, name=f"Union {i}") if i % 2 else foot(f"c{i}", x, y, side="csa")
        for i, (x, y) in enumerate(seed_positions)
    ]
    terrain = [
        OAK_RIDGE,
        rect("wood", "dense_woods", 40, 30, 50, 34, name="Wood"),
        rect("corn", "cornfield", 5, 35, 20, 40),
        rect("house", "building", 28, 40, 32, 43),
    ]
    return battle_of(*units, terrain=terrain)


positions = st.lists(
    st.tuples(st.floats(1, 59, allow_nan=False), st.floats(1, 59, allow_nan=False)), min_size=4, max_size=10
)


@settings(max_examples=25, deadline=None)
@given(positions, st.integers(0, 9), st.tuples(st.floats(1, 59), st.floats(1, 59)))
def test_the_tracker_follows_a_move_as_spotting_from_scratch_does(pos, k, to):
    b = _scattered(pos)
    tracker = SightTracker(b, T)
    for side in ("union", "csa"):
        assert tracker.seen(side) == spot(b, side, T).seen
    u = list(b.units.values())[k % len(b.units)]
    after = b.with_unit(u.moved_to(*to))
    tracker.update(after, {u.id})
    for side in ("union", "csa"):
        assert tracker.seen(side) == spot(after, side, T).seen


@settings(max_examples=25, deadline=None)
@given(positions)
def test_sight_is_mutual(pos):
    """Chapter 03's terrain blocks a sight line both ways alike (the tracker measures each line once)."""
    b = _scattered(pos)
    bf = Battlefield(b, T)
    us, them = b.oob.in_play("union"), b.oob.in_play("csa")
    there = bf.visibility_matrix(us, them, friendly=False).visible
    back = bf.visibility_matrix(them, us, friendly=False).visible
    assert (there == back.T).all()


def test_sight_changed_ignores_what_no_one_can_see():
    before = foot("u1", 10, 10).to_dict()
    assert sight_changed({"u1": (before, {**before, "micro_hits": 1})}) == set()
    assert sight_changed({"u1": (before, {**before, "x": 11.0})}) == {"u1"}
    assert sight_changed({"u1": (before, {**before, "markers": ["smoke"]})}) == {"u1"}
    assert sight_changed({"u1": (before, None)}) == {"u1"}


# -- hidden deployment -------------------------------------------------------------------------------


def ambush(gap=10.0, **hidden_kw):
    """The 4th Virginia hidden in the open ``gap`` inches south of the 2nd Wisconsin."""
    wis = foot("wis2", 30, 10, facing=180, name="2nd Wisconsin")
    va = foot("va4", 30, 10 + gap, facing=0, side="csa", name="4th Virginia", hidden=True, **hidden_kw)
    return replace(battle_of(wis, va), phase=Phase.MANEUVER)


def test_a_hidden_unit_is_revealed_when_an_enemy_comes_within_spotting_distance():
    b = ambush(gap=10.0)
    assert not spot(b, "union", T).sees("va4")
    # the Wisconsin marches 3": still 7" off, not spotted
    r = resolve(b, MoveUnit("wis2", 30, 13, mode="march"), TableDice([]), T)
    assert r.battle_after.unit("va4").hidden
    assert not spot(r.battle_after, "union", T).sees("va4")
    # 2" more, and the Virginians are 5" off: spotted, revealed, in the log with the club default
    r2 = resolve(r.battle_after, MoveUnit("wis2", 30, 15, mode="march"), TableDice([]), T)
    assert not r2.battle_after.unit("va4").hidden
    assert spot(r2.battle_after, "union", T).sees("va4")
    line = r2.steps[-1]
    assert line.text.startswith('4th Virginia is revealed: spotted by 2nd Wisconsin, 5.0" away')
    assert line.rule == "club default (terrain.spotting.hidden_in)"
    assert "4th Virginia is revealed" in r2.summary


def test_a_hidden_unit_that_fires_is_revealed():
    b = replace(ambush(gap=12.0), phase=Phase.RANGED, active_side="csa")
    shot = Shoot.on_table(b, "va4", "wis2", T)
    r = resolve(b, shot, TableDice([1] * 40), T)
    assert not r.battle_after.unit("va4").hidden
    assert any(s.text.startswith("4th Virginia is revealed: it fired") for s in r.steps)
    # the smoke gives it away: the Union sees it now
    assert spot(r.battle_after, "union", T).sees("va4")


def test_a_hidden_unit_that_marches_in_sight_is_revealed_but_not_out_of_sight():
    b = replace(ambush(gap=20.0), active_side="csa")
    # in the open, 20" from the Wisconsin: marching there is marching in sight
    r = resolve(b, MoveUnit("va4", 30, 29, mode="march"), TableDice([]), T)
    assert not r.battle_after.unit("va4").hidden
    assert "it moved in sight of 2nd Wisconsin" in r.steps[-1].text
    # behind a hill nobody sees it march
    hill = TerrainFeature("knoll", TerrainType.HILL, ((0, 16), (60, 16), (60, 24), (0, 24)), level=1)
    hid = b.with_feature(hill)
    r2 = resolve(hid, MoveUnit("va4", 31, 30, mode="march"), TableDice([]), T)
    assert r2.battle_after.unit("va4").hidden
    # a formation change is no move
    r3 = resolve(b, ChangeFormation("va4", "assault_column"), TableDice([]), T)
    assert r3.battle_after.unit("va4").hidden


def test_the_umpires_rulings_reveal_no_one():
    """The umpire hides a unit where he will, even in sight; the rules look again at the next action."""
    b = replace(ambush(gap=3.0, markers=frozenset()), phase=Phase.COMMAND)
    b = b.with_unit(replace(b.unit("va4"), hidden=False))
    r = resolve(
        b,
        Override("unit", "va4", {"hidden": True}, "set in the sunken lane before the game"),
        TableDice([]),
        T,
    )
    assert r.battle_after.unit("va4").hidden
    assert not any("revealed" in s.text for s in r.steps)
    placed = resolve(r.battle_after, MoveUnit("va4", 30, 14, reason="placed"), TableDice([]), T)
    assert placed.battle_after.unit("va4").hidden
    # the next action of play: 3" off, it is spotted
    nxt = resolve(r.battle_after, NextPhase(), TableDice([]), T)
    assert not nxt.battle_after.unit("va4").hidden


def test_hidden_is_set_only_as_true_or_false():
    b = ambush()
    with pytest.raises(IllegalAction, match="hidden must be true or false, not 'yes'"):
        resolve(b, Override("unit", "va4", {"hidden": "yes"}, "why"), TableDice([]), T)


def test_club_defaults_can_turn_the_reveals_off():
    b = replace(ambush(gap=20.0), active_side="csa")
    quiet = T.with_values({"terrain.spotting.moving_in_sight_reveals": False})
    r = resolve(b, MoveUnit("va4", 30, 29, mode="march"), TableDice([]), quiet)
    assert r.battle_after.unit("va4").hidden
