"""Scenario files: the bundled demo and template, and precise errors for mistakes."""

from __future__ import annotations

import pytest

from rules.battle.terrain import TerrainType
from rules.battle.words import Formation, GunType, Phase, Quality, UnitKind, Weapon
from storage.errors import ScenarioError
from storage.scenario import (
    bundled_scenarios,
    bundled_text,
    load_bundled,
    load_demo,
    load_scenario,
)
from storage.scenario_parsing import parse_scenario

MINIMAL = """\
[battle]
name = "Test"
seed = 3

[[sides]]
id = "blue"
name = "Union"

[[sides]]
id = "grey"
name = "Confederate"

[[brigades]]
id = "iron"
name = "Iron Brigade"
side = "blue"
brigadier = "Meredith"

[[units]]
id = "wis2"
name = "2nd Wisconsin"
brigade = "iron"
kind = "infantry"
stands = 5
x = 10
y = 10
"""


def error_of(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as exc:
        parse_scenario(text, "test.toml")
    return exc.value


def line_of(text: str, fragment: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if fragment in line)


# -- the bundled scenarios ---------------------------------------------------------------------


def test_bundled_scenarios_are_the_demo_and_the_template():
    assert {"demo", "template"} <= set(bundled_scenarios())


def test_demo_is_oak_ridge_on_a_72_by_48_table():
    b = load_demo()
    assert (b.name, b.table_width_in, b.table_height_in) == ("Oak Ridge", 72.0, 48.0)
    assert (b.turn, b.phase, b.active_side) == (1, Phase.COMMAND, "csa")
    assert {s.name for s in b.oob.sides} == {"Union", "Confederate"}


def test_demo_oak_ridge_is_a_level_1_hill_with_its_crestline():
    ridge = next(f for f in load_demo().terrain if f.name == "Oak Ridge")
    assert ridge.type == TerrainType.HILL and ridge.level == 1 and len(ridge.crest) >= 2


def test_demo_chapter_03_example_dispositions():
    """Battery B on the crestline with 3-inch rifles; the 2nd Wisconsin 2.0" behind the crest."""
    b = load_demo()
    ridge = next(f for f in b.terrain if f.name == "Oak Ridge")
    crest_y = ridge.crest[0][1]
    assert all(p[1] == crest_y for p in ridge.crest)  # a straight east-west crestline
    bty = b.unit("batb4us")
    assert bty.name == "Battery B, 4th US Artillery" and bty.kind == UnitKind.ARTILLERY
    assert bty.gun == GunType.ORDNANCE_RIFLE_3IN and bty.y == crest_y
    wis = b.unit("wis2")
    # the Union faces south (180), so "behind" is north, towards smaller y
    assert wis.facing_deg == 180 and crest_y - wis.y == pytest.approx(2.0)
    assert b.unit("ind19").y == crest_y
    assert b.brigades[wis.brigade].name == "Iron Brigade" == b.brigades[bty.brigade].name


def test_demo_regiments_of_the_chapter_04_and_06_examples():
    b = load_demo()
    va4 = b.unit("va4")
    assert (va4.stands, va4.quality, va4.has_trait("rebel_yell")) == (5, Quality.VETERAN, True)
    garnett = b.brigade_of(va4)
    assert garnett.brigadier.name == "Garnett" and garnett.brigadier.attached_to == "va4"
    va5 = b.unit("va5")
    assert (va5.stands, va5.weapon) == (5, Weapon.SMOOTHBORE_MUSKET)
    assert b.unit("nc7").stands == 4
    assert b.unit("bkn14").stands == 6 and b.unit("bkn14").formation == Formation.ASSAULT_COLUMN
    assert b.unit("ga8").formation == Formation.ASSAULT_COLUMN
    assert b.unit("nc28").side == "csa"
    assert len(b.oob.brigades_of("union")) == 2 and len(b.oob.brigades_of("csa")) == 2


def test_demo_terrain_has_wall_fences_woods_cornfield_and_sunken_lane():
    types = [f.type for f in load_demo().terrain]
    assert types.count(TerrainType.SPLIT_RAIL_FENCE) >= 2
    for t in (
        TerrainType.STONE_WALL,
        TerrainType.LIGHT_WOODS,
        TerrainType.CORNFIELD,
        TerrainType.SUNKEN_ROAD,
    ):
        assert t in types


def test_demo_7th_north_carolina_is_just_behind_the_stone_wall():
    b = load_demo()
    wall = next(f for f in b.terrain if f.type == TerrainType.STONE_WALL)
    nc7 = b.unit("nc7")
    (x0, y0), (x1, _) = wall.points[0], wall.points[-1]
    assert x0 <= nc7.x <= x1 and 0 < nc7.y - y0 <= 1.0 and nc7.facing_deg == 0


def test_template_is_a_valid_empty_scenario():
    b = load_bundled("template")
    assert len(b.oob.sides) == 2 and not b.units and not b.terrain
    assert "brigadier new" in bundled_text("template")


def test_a_minimal_scenario_reads_with_defaults():
    b = parse_scenario(MINIMAL)
    u = b.unit("wis2")
    assert (u.side, u.stands_start, u.quality, u.formation, u.facing_deg) == (
        "blue",
        5,
        Quality.REGULAR,
        Formation.LINE,
        0.0,
    )
    assert b.seed == 3 and b.active_side == "blue" and b.first_side == "blue"


def test_load_scenario_from_a_file(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(MINIMAL)
    assert load_scenario(p).name == "Test"


# -- mistakes ---------------------------------------------------------------------------------


def test_unknown_unit_type_names_the_file_and_line():
    text = MINIMAL.replace('kind = "infantry"', 'kind = "dragoons"')
    err = error_of(text)
    assert err.path == "test.toml" and err.line == line_of(text, "dragoons")
    assert "unknown unit type 'dragoons'" in str(err) and "infantry, cavalry, artillery" in str(err)
    assert str(err).startswith(f"test.toml, line {err.line}: unit '2nd Wisconsin'")


def test_negative_stands_are_refused():
    text = MINIMAL.replace("stands = 5", "stands = -1")
    err = error_of(text)
    assert err.line == line_of(text, "stands = -1") and "stands cannot be negative (-1)" in str(err)


def test_zero_stands_is_a_destroyed_unit_and_is_allowed():
    text = MINIMAL.replace("stands = 5", "stands = 0\nstands_start = 5")
    assert parse_scenario(text).unit("wis2").stands == 0


def test_more_stands_than_it_started_with_is_refused():
    text = MINIMAL.replace("stands = 5", "stands = 6\nstands_start = 5")
    assert "6 stands, more than the 5" in str(error_of(text))


def test_a_unit_whose_brigade_does_not_exist():
    text = MINIMAL.replace('brigade = "iron"', 'brigade = "stonewall"')
    err = error_of(text)
    assert err.line == line_of(text, 'brigade = "stonewall"')
    assert "belongs to brigade 'stonewall', which does not exist (brigades: iron)" in str(err)


@pytest.mark.parametrize("seed", ["3.5", "-1", '"lucky"', "true", "[1]"])
def test_a_bad_dice_seed_is_refused(seed):
    text = MINIMAL.replace("seed = 3", f"seed = {seed}")
    err = error_of(text)
    assert err.line == line_of(text, "seed =") and "the dice seed must be a whole number from 0 up" in str(
        err
    )


def test_a_seed_of_zero_is_allowed():
    assert parse_scenario(MINIMAL.replace("seed = 3", "seed = 0")).seed == 0


def test_invalid_toml_names_the_line():
    text = MINIMAL.replace('name = "Test"', 'name = "Test')
    err = error_of(text)
    assert err.line == 2 and "not valid TOML" in str(err)


def test_a_misspelt_setting_is_refused():
    text = MINIMAL.replace("stands = 5", 'stands = 5\nqualty = "veteran"')
    err = error_of(text)
    assert err.line == line_of(text, "qualty") and "no setting 'qualty' (a misspelling?)" in str(err)


def test_an_unknown_section_is_refused():
    err = error_of(MINIMAL + "\n[[regiments]]\nid = 'x'\n")
    assert "unknown section or setting 'regiments'" in str(err)


def test_a_battle_needs_exactly_two_sides():
    text = MINIMAL + '\n[[sides]]\nid = "french"\nname = "French"\n'
    assert "two sides ([[sides]]), not 3" in str(error_of(text))


def test_duplicate_unit_ids_are_refused():
    text = MINIMAL + '\n[[units]]\nid = "wis2"\nbrigade = "iron"\nkind = "infantry"\nstands = 3\n'
    err = error_of(text)
    assert "two units have the id 'wis2'" in str(err) and err.line == len(MINIMAL.splitlines()) + 3


def test_a_unit_off_the_table_is_refused():
    text = MINIMAL.replace("x = 10", "x = 80")
    err = error_of(text)
    assert 'off the 72" x 48" table' in str(err) and err.line == line_of(text, "x = 80")


def test_artillery_needs_a_gun_type():
    text = MINIMAL.replace('kind = "infantry"', 'kind = "artillery"')
    assert "is artillery and needs 'gun'" in str(error_of(text))


def test_an_unknown_active_side_is_refused():
    text = MINIMAL.replace("seed = 3", 'seed = 3\nactive_side = "french"')
    err = error_of(text)
    assert "the active side 'french' is not one of the sides (blue, grey)" in str(err)


def test_a_brigadier_attached_to_another_brigades_unit_is_refused():
    text = MINIMAL.replace('brigadier = "Meredith"', 'brigadier = "Meredith"\nattached_to = "nobody"')
    err = error_of(text)
    assert err.line == line_of(text, "attached_to") and "'nobody', which is not a unit here" in str(err)


@pytest.mark.parametrize("value", ["[1, 2, 3]", "7", "true", "{ id = 'u1' }"])
def test_a_brigadier_attached_to_something_not_a_unit_id_is_refused(value):
    text = MINIMAL.replace('brigadier = "Meredith"', f'brigadier = "Meredith"\nattached_to = {value}')
    err = error_of(text)
    assert err.line == line_of(
        text, "attached_to"
    ) and "attached_to must be the id of one of its units" in str(err)


def test_an_unknown_terrain_type_is_refused():
    text = MINIMAL + '\n[[terrain]]\nid = "moat"\ntype = "moat"\npoints = [[0, 0], [1, 1]]\n'
    err = error_of(text)
    assert "unknown terrain type 'moat'" in str(err) and err.line == line_of(text, 'type = "moat"')


def test_a_hill_of_level_3_is_refused():
    text = MINIMAL + '\n[[terrain]]\nid = "h"\ntype = "hill"\nlevel = 3\npoints = [[0, 0], [5, 0], [5, 5]]\n'
    err = error_of(text)
    assert "a hill is level 1 or 2, not 3" in str(err) and err.line == line_of(text, "level = 3")


def test_a_missing_scenario_file(tmp_path):
    with pytest.raises(ScenarioError, match="there is no such file"):
        load_scenario(tmp_path / "none.toml")


def test_a_binary_scenario_file(tmp_path):
    p = tmp_path / "s.toml"
    p.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ScenarioError, match="not a text file"):
        load_scenario(p)


def test_a_brigadier_can_attach_only_to_his_own_brigades_unit():
    text = MINIMAL.replace('brigadier = "Meredith"', 'brigadier = "Meredith"\nattached_to = "va4"') + (
        '\n[[brigades]]\nid = "sw"\nside = "grey"\n\n[[units]]\nid = "va4"\nbrigade = "sw"\n'
        'kind = "infantry"\nstands = 5\n'
    )
    err = error_of(text)
    assert "can only attach to a unit of his own brigade, not to va4" in str(err)
    ok = text.replace('attached_to = "va4"', 'attached_to = "wis2"')
    assert parse_scenario(ok).brigades["iron"].brigadier.attached_to == "wis2"


def test_skirmishers_need_a_parent_regiment_of_their_own_side():
    skirmish = (
        '\n[[units]]\nid = "sk"\nname = "Skirmishers"\nbrigade = "{b}"\nkind = "skirmishers"\nstands = 1\n'
    )
    grey = '\n[[brigades]]\nid = "sw"\nside = "grey"\n'
    text = MINIMAL + grey + skirmish.format(b="iron")
    err = error_of(text)
    assert "needs its parent regiment" in str(err) and err.line == line_of(text, 'id = "sk"') - 1
    ok = text + 'parent = "wis2"\n'
    assert parse_scenario(ok).unit("sk").parent == "wis2"
    other = MINIMAL + grey + skirmish.format(b="sw") + 'parent = "wis2"\n'
    err = error_of(other)
    assert "its parent regiment 2nd Wisconsin is on the other side" in str(err)
    assert err.line == line_of(other, 'parent = "wis2"')


# -- writing scenarios ------------------------------------------------------------------------


def test_the_demo_written_as_a_scenario_reads_back_the_same():
    from storage.scenario_writing import to_toml

    b = load_demo()
    assert parse_scenario(to_toml(b)) == b


def test_awkward_names_survive_writing_and_reading(small_battle):
    from dataclasses import replace

    from storage.scenario_writing import to_toml

    u = replace(
        small_battle.unit("tx1"), name='1st Texas "Ragged Old" — Hood\'s', traits=frozenset({"rebel_yell"})
    )
    b = replace(small_battle.with_unit(u), name="Sharpsburg \\ Antietam", notes="line one\nline two")
    again = parse_scenario(to_toml(b))
    assert again == b


def test_a_game_in_progress_written_as_a_scenario(tmp_path, demo_battle):
    from rules.actions import EndTurn, MoveUnit, Override
    from storage.game import Game
    from storage.scenario_writing import to_toml

    with Game.create(tmp_path / "g.sqlite", demo_battle) as g:
        g.do(MoveUnit("va4", 30.5, 22.25, 10.0))
        g.do(Override("unit", "wis2", {"stands": 3, "micro_hits": 1, "markers": ["disorder"]}, "losses"))
        g.do(EndTurn())
        b = g.battle
    assert parse_scenario(to_toml(b)) == b
