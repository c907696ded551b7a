"""The library of club-scale battles that comes with Brigadier: Gettysburg's first day, and its
second day in two battles (the Round Tops and the Wheatfield at 4 p.m., Cemetery Ridge at 6:30).

Each is a hundred units or more from the published order of battle: it loads, stands every unit
on the table clear of every other (and each arriving unit clear where it comes on), follows its
own table of sources (every regiment's men and every battery's guns made stands and sections by
the stated rule, each with its source or its ruling), brings its reinforcements on at their
turns, and plays a whole game turn of both sides that the journal replays exactly.
"""

from __future__ import annotations

import csv
import itertools
import math
from dataclasses import replace
from pathlib import Path

import pytest

from rules.actions import Arrive, EndTurn, NextPhase, Override, SpendPip
from rules.battle.words import Phase, UnitKind
from rules.battlefield import geometry
from rules.legality import allowed, shoot_firers, shoot_targets
from rules.procedure import Answer, march
from rules.shooting.shoot import Shoot
from rules.tables import load_tables
from rules.umpire.arrivals import due
from storage.game import Game
from storage.oob_import import StrengthRule
from storage.replay import verify
from storage.scenario import bundled_scenarios, load_bundled

LIBRARY = ["gettysburg", "gettysburg_day2", "cemetery_ridge"]
SECOND_DAY = ["gettysburg_day2", "cemetery_ridge"]
SOURCES = (
    Path(__file__).resolve().parents[2] / "resources" / "scenarios" / "sources" / "gettysburg_2_july.csv"
)


@pytest.fixture(scope="module", params=LIBRARY)
def named(request):
    return request.param, load_bundled(request.param)


def _sources(name):
    with SOURCES.open(newline="", encoding="utf-8") as f:
        return [r for r in csv.DictReader(f) if r["scenario"] == name]


def test_the_library_comes_with_brigadier_and_each_battle_is_club_scale(named):
    name, battle = named
    assert name in bundled_scenarios()
    units = list(battle.units.values())
    assert len(units) >= 100
    for side in battle.oob.sides:
        assert sum(1 for u in units if u.side == side.id) >= 35, side.id
    assert len(battle.brigades) >= 15
    assert all(b.brigadier.name for b in battle.brigades.values())
    assert sum(1 for u in units if u.kind == UnitKind.ARTILLERY) >= 15
    assert all(u.gun is not None for u in units if u.kind == UnitKind.ARTILLERY)


def _placed(u):
    """A unit where it stands, or (arriving) where its scenario brings it on."""
    a = u.arrives
    return u if a is None else replace(u, x=a.x, y=a.y, facing_deg=a.facing_deg, arrives=None)


def test_every_unit_stands_on_the_table_clear_of_every_other(named):
    """On the table at the start, and where each arriving unit comes on: clear of the units there
    from the start and of those arriving on the same turn, and off the buildings (impassable)."""
    from shapely.geometry import Polygon, box

    _, battle = named
    tables = load_tables()
    table = box(0, 0, battle.table_width_in, battle.table_height_in)
    shapes = {u.id: geometry.footprint(_placed(u), tables).polygon for u in battle.units.values()}
    assert [uid for uid, p in shapes.items() if not table.contains(p)] == []

    def when(uid):
        u = battle.unit(uid)
        return None if u.arrives is None else u.arrives.turn

    touching = [
        (a, b)
        for (a, pa), (b, pb) in itertools.combinations(shapes.items(), 2)
        if pa.intersects(pb) and (when(a) is None or when(b) is None or when(a) == when(b))
    ]
    assert touching == []
    buildings = [Polygon(f.points) for f in battle.terrain if f.type.value == "building"]
    assert [uid for uid, p in shapes.items() if any(p.intersects(b) for b in buildings)] == []


@pytest.mark.parametrize("name", SECOND_DAY)
def test_every_regiment_and_battery_follows_its_source_by_the_stated_rule(name):
    """The table of sources is the scenario's: each unit's men (or guns) made stands (or sections)
    by the rule written at the head of the file, and each figure has its source or says its ruling."""
    battle = load_bundled(name)
    rows = {r["unit_id"]: r for r in _sources(name)}
    assert set(rows) == set(battle.units)
    rule = StrengthRule()
    for uid, r in rows.items():
        u = battle.unit(uid)
        assert u.name == r["unit"] and u.brigade == r["brigade"] and u.side == r["side"]
        if u.kind == UnitKind.ARTILLERY:
            assert u.stands_start == rule.sections(int(r["guns"])), uid
        else:
            assert u.stands_start == rule.stands(int(r["men"])), uid
        if r["basis"] == "source":
            assert r["source"].startswith("http"), uid
        else:
            assert r["basis"].startswith(("ruling:", "source:", "its tablet", "Lane's report")), uid
    # most of the Union's regiments have their own published figure
    union = [r for r in rows.values() if r["side"] == "union" and r["men"]]
    assert sum(r["basis"] == "source" for r in union) >= 0.6 * len(union)


def test_the_round_tops_bring_on_the_v_corps_and_caldwell_at_their_times():
    battle = load_bundled("gettysburg_day2")
    arriving = {u.id: u for u in battle.units.values() if u.arriving}
    by_brigade: dict[str, set[int]] = {}
    for u in arriving.values():
        by_brigade.setdefault(u.brigade, set()).add(u.arrives.turn)
    assert by_brigade["vincent"] == {3} and battle.unit("us5d").arrives.turn == 3
    assert by_brigade["tilton"] == by_brigade["sweitzer"] == {4}
    assert all(by_brigade[b] == {6} for b in ("cross", "kelly", "zook", "brooke"))
    assert all(by_brigade[b] == {7} for b in ("day", "burbank", "weed"))
    assert by_brigade["mccandless"] == {10}
    assert all(u.side == "union" for u in arriving.values())
    assert sum(1 for u in battle.units.values() if not u.arriving) >= 95
    # the attackers are on the table: Hood's and McLaws's divisions with their guns
    for b in ("law", "robertson", "gtanderson", "benning", "kershaw", "semmes", "barksdale", "wofford"):
        assert battle.brigades[b].side == "csa"
        assert all(not u.arriving for u in battle.oob.units_of_brigade(b))
    assert battle.feature("little_round_top").level == 2
    assert {"Devil's Den", "the Wheatfield", "the Peach Orchard", "Houck's Ridge", "Big Round Top"} <= {
        f.name for f in battle.terrain
    }


def test_vincent_comes_on_in_the_union_phase_2_of_turn_3_and_verifies(tmp_path):
    g = Game.create(tmp_path / "g.sqlite", load_bundled("gettysburg_day2"), seed=1)
    try:
        g.do(Override("game", "game", {"turn": 3, "active_side": "union"}, "to the arrival"))
        g.do(NextPhase())  # the Union's Phase 2
        groups = {grp.brigade: grp for grp in due(g.battle)}
        assert {"vincent", "martin"} <= set(groups)
        place = g.battle.unit("me20").arrives
        assert place.at == "Little Round Top, from the north"
        g.do(Arrive(groups["vincent"].unit_ids))
        me20 = g.battle.unit("me20")
        assert me20.in_play and math.dist((me20.x, me20.y), (place.x, place.y)) <= 6.0
        assert g.battle.unit("ma18").arriving  # Tilton's: not before turn 4
        assert verify(g) == g.last_seq
    finally:
        g.close()


def _march_forward(game, tables, uid, inches):
    u = game.battle.unit(uid)
    r = math.radians(u.facing_deg)
    x, y = u.x + inches * math.sin(r), u.y - inches * math.cos(r)
    step = march(game.battle, tables, game.dice, uid, x, y).run(lambda inter: Answer.declined(inter))
    return game.do_step(list(step.actions))


def _fire_a_battery(game, tables):
    for firer in allowed(shoot_firers(game.battle, tables)):
        if game.battle.unit(firer.unit_id).kind != UnitKind.ARTILLERY:
            continue
        targets = allowed(shoot_targets(game.battle, firer.unit_id, tables))
        if targets:
            game.do_step([Shoot.on_table(game.battle, firer.unit_id, targets[0].unit_id, tables)])
            return firer.unit_id
    return None


@pytest.mark.parametrize(
    "name, pip, marcher, defender",
    [("gettysburg_day2", "barksdale", "ms13", "pa105"), ("cemetery_ridge", "wilcox", "al10", "ny82")],
)
def test_a_whole_game_turn_of_both_sides_plays_and_replays(tmp_path, name, pip, marcher, defender):
    """The Confederates' turn (a Staff Pip, a march, a battery's fire) and the Union's (a march and
    a battery's fire), each one step; the journal replays exactly into the same battle."""
    tables = load_tables()
    game = Game.create(tmp_path / "g.sqlite", load_bundled(name), seed=7)
    try:
        assert game.battle.active_side == "csa"
        game.do_step([SpendPip(pip, purpose="an assault")])
        game.do_step([NextPhase()])
        assert game.battle.phase == Phase.MANEUVER
        before = game.battle.unit(marcher)
        _march_forward(game, tables, marcher, 4.0)
        after = game.battle.unit(marcher)
        assert math.dist((before.x, before.y), (after.x, after.y)) > 1.0
        game.do_step([NextPhase()])
        assert game.battle.phase == Phase.RANGED
        assert _fire_a_battery(game, tables) is not None, "some Confederate battery has a target"
        game.do_step([EndTurn()])
        assert game.battle.active_side == "union" and game.battle.turn == 1
        game.do_step([NextPhase()])
        start = game.battle.unit(defender)
        _march_forward(game, tables, defender, 2.0)
        assert game.battle.unit(defender).x != start.x or game.battle.unit(defender).y != start.y
        game.do_step([NextPhase()])
        assert _fire_a_battery(game, tables) is not None, "some Union battery has a target"
        game.do_step([EndTurn()])
        assert game.battle.turn == 2 and game.battle.active_side == "csa"
        assert verify(game) == len(game.events())
    finally:
        game.close()


@pytest.mark.parametrize(
    "name, title", [("gettysburg_day2", "the Round Tops"), ("cemetery_ridge", "Cemetery Ridge")]
)
def test_brigadier_new_takes_each_battle_by_name(tmp_path, capsys, name, title):
    from cli import main as cli

    path = tmp_path / f"{name}.sqlite"
    assert cli.main(["new", name, str(path)]) == 0
    assert cli.main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert title in out and "Barksdale's Brigade" in out
