"""The sight lines and the features they run into are found without asking shapely whether each
line meets each feature whose box it meets: the features that can limit or block sight have a
tree of their own, and a convex outline is measured by arithmetic. The matrix of sight is the
one that shapely's intersects query over every feature gives."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.generate import big_battle, scaled_battle
from rules.battlefield.field import _CLEAR, Battlefield, _terrain_index
from rules.tables import load_tables


def plain_pairs(ti):
    """Every (line, feature) pair that shapely says meet, of the features that are not clear."""

    def pairs(segs, ends):
        si, fj = ti.tree.query(segs, predicate="intersects")
        keep = ti.sight[fj] != _CLEAR
        return si[keep], fj[keep]

    return pairs


FIELDS = ("visible", "clear_stands", "code", "feature", "friend", "screen", "overhead")


@pytest.mark.parametrize("battle", [big_battle(), scaled_battle(800)], ids=["200 units", "800 units"])
def test_the_matrix_is_that_of_an_intersects_query_over_every_feature(battle, monkeypatch):
    tables = load_tables()
    union, csa = battle.oob.in_play("union"), battle.oob.in_play("csa")
    viewers, targets = union[::3], csa[::3]
    ours = Battlefield(battle, tables).visibility_matrix(viewers, targets)
    ti = _terrain_index(battle.terrain, tables)
    monkeypatch.setattr(ti, "sight_pairs", plain_pairs(ti))
    theirs = Battlefield(battle, tables).visibility_matrix(viewers, targets)
    assert ours.viewer_ids == theirs.viewer_ids and ours.target_ids == theirs.target_ids
    for name in FIELDS:
        mine, plain = getattr(ours, name), getattr(theirs, name)
        if name == "overhead":
            assert dict(mine) == dict(plain)
        else:
            assert np.array_equal(mine, plain), name
    # the lines are blocked by terrain often enough to tell
    assert 0 < ours.visible.sum() < ours.visible.size


def test_only_features_that_can_limit_or_block_sight_are_in_the_tree():
    battle = big_battle()
    ti = _terrain_index(battle.terrain, load_tables())
    assert len(ti.sight_ids) == int((ti.sight != _CLEAR).sum()) < len(battle.terrain)
