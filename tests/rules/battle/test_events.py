"""Changes between states: applying and reversing them rebuilds either state exactly."""

from __future__ import annotations

from dataclasses import replace

from rules.battle.battle import Battle
from rules.battle.events import Changes, Modifier, Step, apply, diff
from rules.battle.order_of_battle import Brigade, Brigadier, OrderOfBattle, Side
from rules.battle.terrain import TerrainFeature, TerrainType
from rules.battle.unit import Unit
from rules.battle.words import Marker, Phase, UnitKind


def battle() -> Battle:
    sides = (Side("union", "Union"), Side("csa", "Confederacy"))
    b = Brigade("iron", "Iron Brigade", "union", Brigadier("Meredith"), staff_pips=3)
    u = Unit(
        id="2wi",
        name="2nd Wisconsin",
        side="union",
        brigade="iron",
        kind=UnitKind.INFANTRY,
        stands=5,
        stands_start=5,
    )
    wall = TerrainFeature("wall", TerrainType.STONE_WALL, ((0, 0), (10, 0)))
    return Battle(
        name="t", oob=OrderOfBattle(sides, {"iron": b}, {"2wi": u}), terrain=(wall,), active_side="union"
    )


def test_diff_and_apply_round_trip():
    before = battle()
    u = before.unit("2wi")
    u2, _ = u.take_hits(3)
    after = before.with_unit(u2.with_markers(add=[Marker.DISORDER]))
    after = after.with_brigade(after.oob.brigade("iron").reserve_pip())
    after = replace(after.without_feature("wall"), phase=Phase.RANGED, turn=2)
    ch = diff(before, after)
    assert set(ch.units) == {"2wi"} and set(ch.brigades) == {"iron"} and set(ch.terrain) == {"wall"}
    assert ch.game == {"phase": ("command", "ranged"), "turn": (1, 2)}
    assert apply(before, ch) == after
    assert apply(after, ch, reverse=True) == before
    assert Changes.from_dict(ch.to_dict()) == ch


def test_no_change_is_empty():
    assert diff(battle(), battle()).empty


def test_step_reads_as_a_log_line():
    s = Step(
        "Closing volley",
        rule="RULE-04-2.3",
        dice=(3, 3, 5, 2, 6),
        modifiers=(Modifier("enfilade", 1, "RULE-03-5.7"),),
    )
    assert str(s) == "Closing volley — dice 3 3 5 2 6 — +1 enfilade (RULE-03-5.7) — [RULE-04-2.3]"
    assert Step.from_dict(s.to_dict()) == s
