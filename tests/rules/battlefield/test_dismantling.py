"""RULE-03-2.1 Dismantling: "An infantry regiment in contact with a wooden fence may spend its
entire movement phase to permanently dismantle a section equal to its frontage, removing the fence
piece from the board." (rules.battlefield.dismantling, the ``dismantle_fence`` action)"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.actions import ACTION_TYPES, Action, DismantleFence, MoveUnit, movement_record, resolve
from rules.battle.events import apply, diff
from rules.battle.words import Marker, Phase, UnitKind
from rules.battlefield.field import Battlefield
from rules.dice import TableDice
from rules.errors import IllegalAction
from rules.legality import dismantle_refusal
from rules.tables import load_tables
from tests.rules.conftest import battle_of, foot, line

T = load_tables()


def fence(*pts, fid="f", **kw):
    return line(fid, "split_rail_fence", *pts, name=kw.pop("name", "the Miller fence"), **kw)


def in_phase_2(*units, terrain=()):
    return replace(battle_of(*units, terrain=terrain), phase=Phase.MANEUVER)


def dismantle(b, uid="wis", fid="f"):
    return resolve(b, DismantleFence(uid, fid), TableDice(), T)


def pieces(b):
    return {f.id: f.points for f in b.terrain}


def test_rule_03_2_1_a_regiment_dismantles_its_frontage_of_the_fence_it_touches():
    # the line (7.5" of frontage, x 46.25 to 53.75) with its front edge on the fence at y=48
    b = in_phase_2(
        foot("wis", 50, 48), foot("va", 50, 40, facing=180, side="csa"), terrain=[fence((0, 48), (200, 48))]
    )
    assert Battlefield(b, T).cover_for("wis", "va").kind == "light"
    res = dismantle(b)
    after = res.battle_after
    # the fence is split in two around the section taken down
    assert pieces(after) == {"f": ((0, 48), (46.25, 48)), "f-2": ((53.75, 48), (200, 48))}
    assert all(s.rule == "RULE-03-2.1" for s in res.steps) and '7.5"' in res.summary

    # the section no longer gives cover (to a 4-stand regiment, 6" wide from x 47 to 53, in the gap) ...
    def cover(terrain):
        gap = in_phase_2(
            foot("ny", 50.75, 48, stands=4), foot("va", 50, 40, facing=180, side="csa"), terrain=terrain
        )
        return Battlefield(gap, T).cover_for("ny", "va").kind

    assert cover(b.terrain) == "light" and cover(after.terrain) == "none"

    # ... nor costs 2" to cross (a regiment marching through the gap goes its whole 6")
    def crossing(terrain):
        m = resolve(
            in_phase_2(foot("ia", 50, 50), terrain=terrain),
            MoveUnit("ia", 50, 44, mode="march"),
            TableDice(),
            T,
        )
        u = m.battle_after.unit("ia")
        return (u.x, u.y)

    assert crossing(b.terrain) == (50, 46) and crossing(after.terrain) == (50, 44)
    # it has spent its entire movement phase: it cannot march after
    assert movement_record(after, "wis")["spent_in"] == 6.0
    with pytest.raises(IllegalAction, match="whole movement allowance"):
        resolve(after, MoveUnit("wis", 50, 47, mode="march"), TableDice(), T)
    # one action, undone as one
    changes = diff(b, after)
    assert diff(apply(after, changes, reverse=True), b).empty
    assert diff(apply(b, changes), after).empty


def test_rule_03_2_1_a_fence_is_shortened_at_its_end_or_gone():
    b = in_phase_2(foot("wis", 50, 48), terrain=[fence((40, 48), (52, 48))])
    assert pieces(dismantle(b).battle_after) == {"f": ((40, 48), (46.25, 48))}
    b = in_phase_2(foot("wis", 50, 48), terrain=[fence((47, 48), (53, 48))])
    after = dismantle(b).battle_after
    assert pieces(after) == {}


def test_rule_03_2_1_dismantling_is_refused_with_its_rule():
    wooden = fence((0, 48), (200, 48))
    ok = in_phase_2(foot("wis", 50, 48), terrain=[wooden])
    assert dismantle_refusal(ok, "wis", "f", T) is None

    def refused(b, fid="f", uid="wis"):
        r = dismantle_refusal(b, uid, fid, T)
        assert r is not None
        with pytest.raises(IllegalAction):
            dismantle(b, uid, fid)
        return r

    # not in contact with the fence
    r = refused(in_phase_2(foot("wis", 50, 49), terrain=[wooden]))
    assert r.rule == "RULE-03-2.1" and "contact" in r.reason
    # only a wooden fence: not a stone wall, nor a hedge
    for kind in ("stone_wall", "hedge"):
        r = refused(in_phase_2(foot("wis", 50, 48), terrain=[line("f", kind, (0, 48), (200, 48))]))
        assert r.rule == "RULE-03-2.1" and "wooden fence" in r.reason
    # only an infantry regiment
    r = refused(in_phase_2(foot("wis", 50, 48, kind=UnitKind.CAVALRY), terrain=[wooden]))
    assert r.rule == "RULE-03-2.1" and "infantry" in r.reason
    # only in its own side's Phase 2
    assert refused(replace(ok, phase=Phase.RANGED)).rule == "RULE-03-2.1"
    # not after it has marched this turn
    moved = resolve(
        in_phase_2(foot("wis", 50, 49), terrain=[wooden]),
        MoveUnit("wis", 50, 48, mode="march"),
        TableDice(),
        T,
    ).battle_after
    r = refused(moved)
    assert r.rule == "RULE-03-2.1" and "entire movement" in r.reason
    # nor while engaged in melee
    engaged = ok.with_unit(ok.unit("wis").with_markers(add=[Marker.ENGAGED]))
    assert refused(engaged).rule == "RULE-06-1.1"
    # nor twice
    assert refused(dismantle(ok).battle_after, "f-2").rule == "RULE-03-2.1"
    # an unknown unit or fence
    refused(ok, "nofence")
    refused(ok, uid="nobody")


def test_dismantle_fence_is_a_listed_action_that_round_trips():
    a = DismantleFence("wis", "f")
    assert ACTION_TYPES["dismantle_fence"] is DismantleFence
    assert Action.from_dict(a.to_dict()) == a
