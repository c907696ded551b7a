"""Gettysburg, 1 July 1863: the bundled club-scale battle, 171 regiments and batteries: 146 on the
table at 2 p.m., 25 arriving (Early's division down the Harrisburg Road, Coster's brigade through
the town).

It is what the tests and the benchmarks use for "club scale": it must load, hold the published
order of battle with each brigade's commander, stand every unit clear of every other on the table,
and play through the procedure of play like any battle.
"""

from __future__ import annotations

import pytest

from cli import main as cli
from rules.actions import EndTurn, NextPhase, SpendPip
from rules.battle.words import Health, Phase, UnitKind
from rules.legality import allowed, shoot_firers, shoot_targets
from rules.procedure import Answer, charge, march
from rules.shooting.shoot import Shoot
from rules.tables import load_tables
from storage.game import Game
from storage.replay import verify
from storage.scenario import bundled_scenarios, load_bundled


@pytest.fixture(scope="module")
def battle():
    return load_bundled("gettysburg")


def test_the_big_battle_comes_with_brigadier_and_has_at_least_150_regiments_and_batteries(battle):
    assert "gettysburg" in bundled_scenarios()
    assert battle.name == "Gettysburg, 1 July 1863"
    units = list(battle.units.values())
    assert len(units) >= 150
    by_side = {s.id: [u for u in units if u.side == s.id] for s in battle.oob.sides}
    assert all(len(us) >= 70 for us in by_side.values())
    kinds = {k: sum(1 for u in units if u.kind == k) for k in UnitKind}
    assert kinds[UnitKind.INFANTRY] >= 100 and kinds[UnitKind.ARTILLERY] >= 25
    assert kinds[UnitKind.INFANTRY] + kinds[UnitKind.ARTILLERY] + kinds[UnitKind.CAVALRY] == len(units)


@pytest.mark.parametrize(
    "brigade, name, commander, regiments",
    [
        (
            "meredith",
            "Iron Brigade",
            "Solomon Meredith",
            {"2nd Wisconsin", "6th Wisconsin", "7th Wisconsin", "19th Indiana", "24th Michigan"},
        ),
        (
            "cutler",
            "Cutler's Brigade",
            "Lysander Cutler",
            {"14th Brooklyn (84th New York)", "147th New York"},
        ),
        (
            "stone",
            "Stone's Brigade (the Bucktails)",
            "Roy Stone",
            {"143rd Pennsylvania", "149th Pennsylvania", "150th Pennsylvania"},
        ),
        ("vongilsa", "von Gilsa's Brigade", "Leopold von Gilsa", {"153rd Pennsylvania"}),
        (
            "pettigrew",
            "Pettigrew's Brigade",
            "J. Johnston Pettigrew",
            {"11th North Carolina", "26th North Carolina", "47th North Carolina", "52nd North Carolina"},
        ),
        (
            "archer",
            "Archer's Brigade",
            "Birkett D. Fry",
            {"13th Alabama", "1st Tennessee (Provisional Army)"},
        ),
        ("iverson", "Iverson's Brigade", "Alfred Iverson", {"5th North Carolina", "20th North Carolina"}),
        ("doles", "Doles's Brigade", "George Doles", {"4th Georgia", "44th Georgia"}),
        ("pegram", "Pegram's Artillery Battalion", "William J. Pegram", {"Crenshaw Battery"}),
    ],
)
def test_the_order_of_battle_is_the_published_one_with_each_brigades_commander(
    battle, brigade, name, commander, regiments
):
    b = battle.brigades[brigade]
    assert b.name == name and commander in b.brigadier.name
    assert regiments <= {u.name for u in battle.oob.units_of_brigade(brigade)}


def test_every_brigade_has_its_commander_and_every_battery_its_sections(battle):
    assert len(battle.brigades) >= 30
    assert all(b.brigadier.name for b in battle.brigades.values())
    for u in battle.units.values():
        assert u.stands >= 1
        if u.kind == UnitKind.ARTILLERY:
            assert u.gun is not None and 2 <= u.stands_start <= 3  # 4 or 6 guns


def test_the_mornings_losses_show_at_the_start(battle):
    """Archer's and Davis's brigades and the 2nd Wisconsin begin worn: the roster and the map show
    health from the first turn."""
    assert battle.unit("wi2").health == Health.WORN
    assert battle.unit("ms2").stands < battle.unit("ms2").stands_start
    assert {u.health for u in battle.oob.units_of_brigade("archer")} == {Health.WORN}


def test_early_arrives_down_the_harrisburg_road_and_coster_through_the_town(battle):
    arriving = {u.id: u for u in battle.units.values() if u.arriving}
    on_table = [u for u in battle.units.values() if not u.arriving]
    assert len(on_table) == 146 and len(arriving) == 25  # Coster's four among them
    early = {
        b: [u for u in arriving.values() if u.brigade == b]
        for b in ("gordon", "hays", "avery", "wsmith", "jonesbn")
    }
    assert [len(v) for v in early.values()] == [6, 5, 3, 3, 4]
    assert battle.oob.brigades["gordon"].brigadier.name == "Brig. Gen. John B. Gordon"
    assert battle.oob.brigades["avery"].brigadier.name == "Col. Isaac E. Avery"
    for b in ("gordon", "hays", "avery", "jonesbn"):
        assert {(u.arrives.turn, u.arrives.at, u.arrives.roll) for u in early[b]} == {
            (4, "the Harrisburg Road", None)
        }
    assert {(u.arrives.turn, u.arrives.roll) for u in early["wsmith"]} == {(6, 4)}
    coster = [u for u in battle.units.values() if u.brigade == "coster"]
    assert len(coster) == 4 and all(u.arriving and u.arrives.turn == 7 for u in coster)
    # not on the field until then: the sides' stands at the start are those on the table
    assert battle.oob.stands(side="csa") == sum(u.stands for u in on_table if u.side == "csa")


def test_the_corrected_batteries_and_the_26th_north_carolina(battle):
    from shapely.geometry import Point, Polygon

    me2 = battle.unit("me2b")
    assert me2.stands == 2 and Polygon(battle.feature("cemetery_hill").points).contains(Point(me2.x, me2.y))
    don = battle.unit("donaldsonville")
    assert don.stands == 2 and don.gun.value == "3in_ordnance_rifle"
    garnett = [u for u in battle.units.values() if u.brigade == "garnettbn"]
    assert sum(u.stands for u in garnett) * 2 <= 16  # 15 guns, a section for every two
    assert battle.unit("nc26").stands == 12


def test_early_comes_on_in_the_confederate_phase_2_of_turn_4_and_verifies(tmp_path):
    from rules.actions import Arrive, Override
    from rules.umpire.arrivals import due

    g = Game.create(tmp_path / "g.sqlite", load_bundled("gettysburg"), seed=1863)
    try:
        g.do(Override("game", "game", {"turn": 4}, "to the arrival"))
        g.do(NextPhase())  # the Confederate Phase 2
        groups = {grp.brigade: grp for grp in due(g.battle)}
        assert set(groups) == {"gordon", "hays", "avery", "jonesbn"}
        for grp in groups.values():
            g.do(Arrive(grp.unit_ids))
        assert all(g.battle.unit(u).in_play for grp in groups.values() for u in grp.unit_ids)
        assert g.battle.unit("va31").arriving  # Smith's brigade: not before turn 6
        assert verify(g) == g.last_seq
        g.undo_step()
        assert g.battle.unit(groups["jonesbn"].unit_ids[0]).arriving
    finally:
        g.close()


def test_the_ground_has_the_ridges_the_town_and_the_streams_of_the_first_day(battle):
    names = {f.name for f in battle.terrain}
    assert {
        "McPherson's Ridge",
        "Seminary Ridge",
        "Oak Hill",
        "Barlow's Knoll",
        "Herbst Woods",
        "Willoughby Run",
        "Chambersburg Pike",
        "Gettysburg",
    } <= names
    assert battle.feature("oak_hill").level == 2


def test_the_big_battle_plays_through_the_procedure_of_play(tmp_path):
    """A Confederate turn: a Staff Pip for an assault, a march across Willoughby Run through its
    windows, a charge, a volley, and the Union's turn, each one step; the journal replays exactly."""
    tables = load_tables()
    game = Game.create(tmp_path / "g.sqlite", load_bundled("gettysburg"))
    try:
        game.do_step([SpendPip("brockenbrough", purpose="an assault")])
        game.do_step([NextPhase()])
        assert game.battle.phase == Phase.MANEUVER

        # the 40th Virginia marches east across Willoughby Run toward the McPherson farm
        p = march(game.battle, tables, game.dice, "va40", 31.0, 46.0)
        step = p.run(lambda inter: Answer.declined(inter))
        events = game.do_step(list(step.actions))
        assert events[0].action.type == "move_unit"
        va40 = game.battle.unit("va40")
        assert va40.x > 25.0  # it moved, as far as the movement rules allow

        # Pettigrew's 11th North Carolina charges the nearest enemy it may charge: the 7th Wisconsin
        from rules.legality import charge_targets

        game.do_step([SpendPip("pettigrew", purpose="an assault")])
        legal = allowed(charge_targets(game.battle, "nc11", tables))
        assert [o.unit_id for o in legal][:1] == ["wi7"]
        proc = charge(game.battle, tables, game.dice, "nc11", "wi7")
        charged = game.do_step(list(proc.run(lambda inter: Answer.declined(inter)).actions))
        assert charged[-1].action.type == "charge_approach"

        game.do_step([NextPhase()])
        assert game.battle.phase == Phase.RANGED
        # a battery on Herr Ridge or Oak Hill fires at the first target the rules allow
        fired = False
        for firer in allowed(shoot_firers(game.battle, tables)):
            targets = allowed(shoot_targets(game.battle, firer.unit_id, tables))
            if game.battle.unit(firer.unit_id).kind == UnitKind.ARTILLERY and targets:
                game.do_step([Shoot.on_table(game.battle, firer.unit_id, targets[0].unit_id, tables)])
                fired = True
                break
        assert fired, "some Confederate battery has a target in range and sight"

        game.do_step([EndTurn()])
        assert game.battle.active_side == "union" and game.battle.turn == 1
        assert verify(game) == len(game.events())
        game.undo_step()
        assert game.battle.active_side == "csa"
    finally:
        game.close()


def test_brigadier_new_takes_the_big_battle_by_name(tmp_path, capsys):
    path = tmp_path / "gettysburg.sqlite"
    assert cli.main(["new", "gettysburg", str(path)]) == 0
    assert cli.main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Gettysburg, 1 July 1863" in out and "Iron Brigade" in out and "26th North Carolina" in out
