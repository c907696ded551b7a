"""The rule tables: the rulebook's numbers with their rule ids, club defaults marked, club copies checked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rules.errors import TableError
from rules.tables import load_tables


@pytest.fixture(scope="module")
def t():
    return load_tables()


@pytest.mark.parametrize(
    "key, value, rule",
    [
        ("shooting.to_hit.short.smoothbore_musket", 3, "RULE-04-2.3"),
        ("shooting.to_hit.short.rifled_musket", 4, "RULE-04-2.3"),
        ("shooting.to_hit.short.12pdr_napoleon", 2, "RULE-04-2.3"),
        ("shooting.to_hit.short.3in_ordnance_rifle", 3, "RULE-04-2.3"),
        ("shooting.to_hit.short.10pdr_parrott", 3, "RULE-04-2.3"),
        ("shooting.dice.per_artillery_section", 2, "RULE-04-2.3"),
        ("shooting.range_band.short", 6.0, "RULE-04-2.3"),
        ("shooting.range_band.medium", 8.0, "RULE-04-3.3"),
        ("shooting.save.light_cover", 5, "RULE-03-2.1"),
        ("shooting.save.heavy_cover", 4, "RULE-03-2.2"),
        ("shooting.save_modifier.road_column_vs_opportunity_fire", -2, "RULE-04-3.3"),
        ("shooting.to_hit_modifier.enfilade", 1, "RULE-03-5.7"),
        ("shooting.to_hit_modifier.through_own_skirmish_screen", -1, "RULE-03-5.4"),
        ("shooting.overhead_fire.min_from_muzzle", 6.0, "RULE-03-4.5"),
        ("shooting.overhead_fire.min_from_target", 4.0, "RULE-03-4.5"),
        ("shooting.buildings.structural_hits_to_collapse", 4, "RULE-03-3.2"),
        ("discipline.quality.veteran", 3, "RULE-04-2.4"),
        ("discipline.quality.regular", 4, "RULE-04-2.4"),
        ("discipline.quality.green", 5, "RULE-04-2.4"),
        ("discipline.check.commanded_reaction_without_pip", 4, "RULE-04-1.3"),
        ("discipline.check.stone_wall_column_crossing", 4, "RULE-03-2.2"),
        ("melee.modifier.fresh", 1, "RULE-06-3.3"),
        ("melee.modifier.spent", -1, "RULE-06-3.3"),
        ("melee.modifier.heavy_works", 2, "RULE-06-3.3"),
        ("melee.modifier.flank_or_rear", 2, "RULE-06-3.3"),
        ("melee.modifier.disordered", -2, "RULE-06-3.3"),
        ("melee.modifier.artillery_crew", 1, "RULE-06-5.1"),
        ("melee.charge.infantry_range_in", 9.0, "RULE-06-1.3"),
        ("melee.charge.cavalry_range_in", 12.0, "RULE-06-1.3"),
        ("melee.charge.window_b_in", 4.0, "RULE-06-2.1"),
        ("melee.charge.max_pivot_deg", 30.0, "RULE-06-1.4"),
        ("melee.outcome.retreat_in", 6.0, "RULE-06-4.3"),
        ("melee.outcome.breakthrough_margin", 4, "RULE-06-4.5"),
        ("movement.minimum.move_in", 2.0, "RULE-03-1.4"),
        ("movement.crossing.abatis", 3.0, "RULE-03-2.4"),
        ("movement.trigger.opportunity_fire_in", 8.0, "RULE-04-3.1"),
        ("movement.trigger.screen_evade_in", 6.0, "RULE-04-4.1"),
        ("units.health.fresh_above_percent", 75, "RULE-06-3.3"),
        ("units.health.spent_below_percent", 35, "RULE-06-1.3"),
    ],
)
def test_rulebook_numbers_carry_their_rule(t, key, value, rule):
    e = t.entry(key)
    assert (e.value, e.rule, e.club_default) == (value, rule, False)


def test_every_entry_is_cited_or_a_club_default_with_a_reason(t):
    assert len(t) > 100
    for e in t:
        assert e.rule or (e.club_default and e.reason), e.key
        assert e.line is not None, e.key


def test_numbers_no_chapter_gives_are_club_defaults(t):
    for key in (
        "command.staff_pips.per_brigade_per_turn",
        "melee.leader_loss.killed",
        "shooting.to_hit.long.rifled_musket",
        "movement.rate.road_column",
        "units.base_width.infantry",
    ):
        assert t.entry(key).club_default, key


def test_example_1_leader_loss_roll_of_4_is_unhurt_under_the_club_table(t):
    assert 4 > t.value("melee.leader_loss.wounded") >= t.value("melee.leader_loss.killed")


def test_health_thresholds_in_the_table_match_the_model(t):
    from rules.battle.unit import FRESH_ABOVE_PERCENT, SPENT_BELOW_PERCENT

    assert t.value("units.health.fresh_above_percent") == FRESH_ABOVE_PERCENT
    assert t.value("units.health.spent_below_percent") == SPENT_BELOW_PERCENT


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_a_club_copy_overrides_and_is_marked(tmp_path):
    p = write(
        tmp_path,
        "command.toml",
        '[staff_pips]\nper_brigade_per_turn = { value = 2, club_default = true, reason = "our club" }\n',
    )
    t = load_tables(p)
    e = t.entry("command.staff_pips.per_brigade_per_turn")
    assert (e.value, e.overridden, e.source) == (2, True, str(p))
    assert t.value("melee.modifier.fresh") == 1  # the rest is unchanged


def test_a_club_folder_is_read_whole(tmp_path):
    write(
        tmp_path,
        "melee.toml",
        '[leader_loss]\nkilled = { value = 2, club_default = true, reason = "ours" }\n',
    )
    write(
        tmp_path,
        "command.toml",
        '[staff_pips]\nper_brigade_per_turn = { value = 4, club_default = true, reason = "ours" }\n',
    )
    t = load_tables(tmp_path)
    assert (
        t.value("melee.leader_loss.killed") == 2 and t.value("command.staff_pips.per_brigade_per_turn") == 4
    )


@pytest.mark.parametrize(
    "name, text, line, words",
    [
        (
            "melee.toml",
            '[modifier]\nfresh = { value = 1, rule = "RULE-06-3.3" }\nfresh_x = { value = 1, rule = "RULE-06-3.3" }\n',
            3,
            "misspelling",
        ),
        (
            "shooting.toml",
            '[to_hit.short]\n\nrifled_musket = { value = 7, rule = "RULE-04-2.3" }\n',
            3,
            "outside 2 to 6",
        ),
        (
            "shooting.toml",
            '[to_hit.short]\nrifled_musket = { value = 3.5, rule = "RULE-04-2.3" }\n',
            2,
            "whole number",
        ),
        ("melee.toml", "[modifier]\nfresh = { value = 1 }\n", 2, "needs a rule id or club_default"),
        ("melee.toml", "[modifier]\nfresh = { value = 1, club_default = true }\n", 2, "needs a reason"),
        ("melee.toml", '[modifier]\nfresh = { value = 1, rule = "page 12" }\n', 2, "rule id like"),
        (
            "melee.toml",
            '[modifier]\nfresh = { value = 1, rule = "RULE-06-3.3", colour = 2 }\n',
            2,
            "unknown field",
        ),
        ("melee.toml", "[modifier]\nfresh = 1\n", 2, "must be a table"),
        (
            "melee.toml",
            '[modifier]\nfresh = { value = "one", rule = "RULE-06-3.3" }\n',
            2,
            "must be a number",
        ),
        ("melee.toml", "[modifier\nfresh = 1\n", 1, "not valid TOML"),
    ],
)
def test_a_mistake_in_a_club_copy_names_file_line_and_problem(tmp_path, name, text, line, words):
    p = write(tmp_path, name, text)
    with pytest.raises(TableError, match=words) as err:
        load_tables(p)
    assert err.value.path == str(p)
    assert err.value.line == line
    assert f"{p}, line {line}:" in str(err.value)


def test_missing_club_file_is_a_clear_error(tmp_path):
    with pytest.raises(TableError, match="no such file"):
        load_tables(tmp_path / "nothing.toml")


def test_with_values_validates(t):
    assert t.with_values({"melee.modifier.fresh": 2}).value("melee.modifier.fresh") == 2
    with pytest.raises(TableError, match="outside"):
        t.with_values({"shooting.to_hit.short.rifled_musket": 9})
    with pytest.raises(TableError, match="no entry"):
        t.value("melee.modifier.nothing")


# -- terrain entries are checked by kind, word and formation ------------------------------------------


@pytest.mark.parametrize(
    "entry, words",
    [
        (
            'sight = { value = "foo", rule = "RULE-03-4.4" }',
            "sight is 'foo'; use one of: clear, limited, blocks, crest",
        ),
        (
            'cover = { value = "medium", rule = "RULE-03-4.4" }',
            "cover is 'medium'; use one of: none, light, heavy",
        ),
        ('impassable = { value = "false", rule = "RULE-03-4.4" }', "impassable must be true or false"),
        ('disorders_line = { value = 1, rule = "RULE-03-1.5" }', "disorders_line must be true or false"),
        ('formations_barred = { value = "line", rule = "RULE-03-3.3" }', "formations_barred must be a list"),
        (
            'formations_barred = { value = ["lines"], rule = "RULE-03-3.3" }',
            "lists 'lines', which is not one of",
        ),
        ('formations_barred = { value = ["line", "line"], rule = "RULE-03-3.3" }', "names a formation twice"),
        ('melee_defence = { value = true, rule = "RULE-06-3.3" }', "melee_defence must be a number"),
        ('move_per_in = { value = "1.0", rule = "RULE-03-1.2" }', "move_per_in must be a number"),
        ('move_per_in = { value = 0.5, rule = "RULE-03-1.2" }', "outside 1 to 10"),
    ],
)
def test_rule_03_1_2_a_club_terrain_matrix_entry_of_the_wrong_kind_names_file_and_line(
    tmp_path, entry, words
):
    p = write(tmp_path, "terrain.toml", f"# our club\n[matrix.hill]\n{entry}\n")
    with pytest.raises(TableError, match=words.replace("(", r"\(").replace("[", r"\[")) as err:
        load_tables(p)
    assert (err.value.path, err.value.line) == (str(p), 3)


@pytest.mark.parametrize(
    "entry, key, value",
    [
        ('sight = { value = "limited", rule = "RULE-03-5.5" }', "terrain.matrix.orchard.sight", "limited"),
        (
            'cover = { value = "heavy", club_default = true, reason = "stone barns" }',
            "terrain.matrix.orchard.cover",
            "heavy",
        ),
        (
            'impassable = { value = true, club_default = true, reason = "walled" }',
            "terrain.matrix.orchard.impassable",
            True,
        ),
        (
            'formations_barred = { value = ["line", "mounted"], club_default = true, reason = "trees" }',
            "terrain.matrix.orchard.formations_barred",
            ["line", "mounted"],
        ),
        (
            'formations_barred = { value = [], club_default = true, reason = "open" }',
            "terrain.matrix.orchard.formations_barred",
            [],
        ),
    ],
)
def test_rule_03_1_2_a_club_terrain_matrix_entry_of_the_right_kind_loads(tmp_path, entry, key, value):
    p = write(tmp_path, "terrain.toml", f"[matrix.orchard]\n{entry}\n")
    assert load_tables(p).value(key) == value


def test_rule_03_5_5_a_battlefield_built_from_a_club_matrix_uses_its_sight_word(tmp_path):
    from rules.battlefield.field import Battlefield
    from tests.rules.conftest import battle_of, foot, rect

    p = write(
        tmp_path,
        "terrain.toml",
        '[matrix.swamp]\nsight = { value = "blocks", club_default = true, reason = "reeds" }\n',
    )
    # a 2-inch-deep swamp between them: clear by the bundled club default, blocking by the club's
    battle = battle_of(
        foot("wis2", 20, 30),
        foot("va4", 20, 20, facing=180, side="csa"),
        terrain=(rect("o", "swamp", 15, 24, 25, 26),),
    )
    assert Battlefield(battle, load_tables()).line_of_sight("wis2", "va4").visible
    assert not Battlefield(battle, load_tables(p)).line_of_sight("wis2", "va4").visible


# -- entries the rules fix: shown, never changed --------------------------------------------------------


@pytest.mark.parametrize(
    "name, text, rule",
    [
        (
            "units.toml",
            '[health]\nfresh_above_percent = { value = 80, rule = "RULE-06-3.3" }\n',
            "RULE-06-3.3",
        ),
        (
            "units.toml",
            '[health]\nspent_below_percent = { value = 30, rule = "RULE-06-1.3" }\n',
            "RULE-06-1.3",
        ),
        (
            "terrain.toml",
            '[arc]\nflank_zone_deg = { value = 100.0, rule = "RULE-04-5.1 (Refuse the Flank, 5.0)" }\n',
            "RULE-04-5.1 \\(Refuse the Flank, 5.0\\)",
        ),
    ],
)
def test_rule_06_3_3_a_club_copy_cannot_change_a_fixed_number(tmp_path, name, text, rule):
    p = write(tmp_path, name, text)
    with pytest.raises(TableError, match=f"is fixed by {rule}: .*a club copy cannot change it") as err:
        load_tables(p)
    assert (err.value.path, err.value.line) == (str(p), 2)


def test_rule_06_3_3_a_club_copy_repeating_a_fixed_number_loads_and_stays_fixed(tmp_path):
    p = write(
        tmp_path, "units.toml", '[health]\nfresh_above_percent = { value = 75, rule = "RULE-06-3.3" }\n'
    )
    e = load_tables(p).entry("units.health.fresh_above_percent")
    assert (e.value, e.fixed, e.overridden) == (75, True, False)


def test_a_club_copy_cannot_mark_an_entry_fixed(tmp_path):
    p = write(
        tmp_path,
        "melee.toml",
        '[modifier]\nfresh = { value = 1, rule = "RULE-06-3.3", fixed = true, reason = "ours" }\n',
    )
    with pytest.raises(TableError, match="only the bundled tables say which entries are fixed"):
        load_tables(p)


def test_fixed_entries_are_the_health_thresholds_and_the_flank_zone(t):
    fixed = {e.key for e in t if e.fixed}
    assert fixed == {
        "units.health.fresh_above_percent",
        "units.health.spent_below_percent",
        "terrain.arc.flank_zone_deg",
    }
    for key in fixed:
        assert t.entry(key).rule and t.entry(key).reason and not t.entry(key).club_default


def test_with_values_refuses_to_change_a_fixed_number_but_accepts_it_unchanged(t):
    with pytest.raises(TableError, match="fixed by RULE-06-3.3"):
        t.with_values({"units.health.fresh_above_percent": 76})
    assert (
        t.with_values({"units.health.fresh_above_percent": 75}).value("units.health.fresh_above_percent")
        == 75
    )
    with pytest.raises(TableError, match="must be true or false"):
        t.with_values({"terrain.matrix.open.impassable": "false"})


def test_every_entry_is_read_by_the_program(t):
    """Preferences list every entry, so each must do what it says: its key, or the stem a look-up
    builds it from (``f"shooting.to_hit.{band}.{weapon}"``), appears in the code. The fixed numbers
    are shown only: the model's constants, checked against them above."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = "".join(
        p.read_text(encoding="utf-8") for d in ("rules", "storage", "gui") for p in (root / d).rglob("*.py")
    )
    stems = set(re.findall(r'f"([a-z_.]+)\.\{', code))
    unread = []
    for key in t.keys():
        if key in code or key.startswith("terrain.matrix.") or t.entry(key).fixed:
            continue  # the matrix is read by effect (Battlefield.matrix); fixed numbers are the model's
        parts = key.split(".")
        if any(".".join(parts[:n]) in stems for n in range(1, len(parts))):
            continue
        unread.append(key)
    assert unread == []


@pytest.mark.parametrize("value, ok", [(-0.1, False), (0.0, True), (12.0, True), (12.5, False)])
def test_a_club_town_edge_for_sight_is_a_distance_on_the_table(tmp_path, value, ok):
    p = write(
        tmp_path,
        "terrain.toml",
        f'[sight]\nstructure_edge_in = {{ value = {value}, club_default = true, reason = "our club" }}\n',
    )
    if ok:
        assert load_tables(p).value("terrain.sight.structure_edge_in") == value
    else:
        with pytest.raises(TableError, match="outside 0 to 12") as err:
            load_tables(p)
        assert (err.value.path, err.value.line) == (str(p), 2)


def test_a_club_file_renamed_from_its_table_is_refused_naming_the_files_it_may_be(tmp_path):
    p = write(tmp_path, "movement_good.toml", '[rate]\nline = { value = 6.0, rule = "RULE-03-2.5" }\n')
    with pytest.raises(TableError) as err:
        load_tables(p)
    msg = str(err.value)
    assert "'movement_good.toml' is not one of them" in msg and "movement.toml" in msg and "melee.toml" in msg
    assert err.value.path == str(p)
    # named after its table, the same file is read
    q = write(tmp_path, "movement.toml", '[rate]\nline = { value = 6.0, rule = "RULE-03-2.5" }\n')
    assert load_tables(q).value("movement.rate.line") == 6.0


# -- a club copy changes club defaults only -------------------------------------------------------


def test_rule_04_2_3_a_club_copy_changing_the_short_range_is_refused_naming_file_line_and_rule(tmp_path):
    """The short range of RULE-04-2.3 is "Short Range (0–6")": a club copy that makes it 5" would
    be cited as the rule's number. It is refused with the file, the line and the rule."""
    p = write(
        tmp_path, "shooting.toml", '# our club\n[range_band]\nshort = { value = 5.0, rule = "RULE-04-2.3" }\n'
    )
    with pytest.raises(TableError) as err:
        load_tables(p)
    assert (err.value.path, err.value.line) == (str(p), 3)
    msg = str(err.value)
    assert msg.startswith(f"{p}, line 3:")
    assert "shooting.range_band.short is 6.0 by RULE-04-2.3" in msg
    assert "a club copy changes club defaults only" in msg and "sets it to 5.0" in msg


@pytest.mark.parametrize(
    "name, text, words",
    [
        # a rule row relabelled a club default, so its number could then be changed
        (
            "shooting.toml",
            '[range_band]\nshort = { value = 6.0, club_default = true, reason = "ours" }\n',
            "given by RULE-04-2.3: a club copy cannot mark it a club default",
        ),
        # a rule row cited to another rule
        (
            "melee.toml",
            '[modifier]\nfresh = { value = 1, rule = "RULE-06-6.0" }\n',
            "given by RULE-06-3.3; this copy cites RULE-06-6.0",
        ),
        # a club default passed off as a rule
        (
            "command.toml",
            '[staff_pips]\nper_brigade_per_turn = { value = 4, rule = "RULE-04-1.3" }\n',
            "is a club default (no chapter here gives it), but this copy cites RULE-04-1.3",
        ),
    ],
)
def test_a_club_copy_cannot_relabel_a_row(tmp_path, name, text, words):
    p = write(tmp_path, name, text)
    with pytest.raises(TableError, match=re.escape(words)) as err:
        load_tables(p)
    assert (err.value.path, err.value.line) == (str(p), 2)


def test_a_club_copy_may_repeat_a_rule_row_as_printed_and_change_its_club_defaults(tmp_path):
    p = write(
        tmp_path,
        "shooting.toml",
        '[range_band]\nshort = { value = 6.0, rule = "RULE-04-2.3" }\n'
        '[max_range]\nrifled_musket = { value = 20.0, club_default = true, reason = "our long tables" }\n',
    )
    t = load_tables(p)
    short, rifle = t.entry("shooting.range_band.short"), t.entry("shooting.max_range.rifled_musket")
    assert (short.value, short.rule, short.overridden) == (6.0, "RULE-04-2.3", False)
    assert (rifle.value, rifle.club_default, rifle.overridden) == (20.0, True, True)


def test_every_row_a_club_could_change_is_a_club_default_and_every_other_row_is_refused_changed(t, tmp_path):
    """Across the whole bundled tables: a changed value loads exactly where the row is a club default."""
    import tomllib

    for e in t:
        if isinstance(e.value, bool) or not isinstance(e.value, (int, float)) or e.fixed:
            continue
        file, *path = e.key.split(".")
        new = e.value + 1 if isinstance(e.value, int) else round(e.value * 0.5, 2)
        if new == e.value or _check_value_of(e.key, new):
            continue
        table, name = ".".join(path[:-1]), path[-1]
        cite = 'club_default = true, reason = "ours"' if e.club_default else f'rule = "{e.rule}"'
        text = f"[{table}]\n{name} = {{ value = {new!r}, {cite} }}\n"
        tomllib.loads(text)
        p = write(tmp_path, f"{file}.toml", text)
        if e.club_default:
            assert load_tables(p).value(e.key) == new, e.key
        else:
            with pytest.raises(TableError, match="a club copy changes club defaults only"):
                load_tables(p)


def _check_value_of(key, value):
    from rules.tables import _check_value

    return _check_value(key, value)
