"""Orders of battle from a spreadsheet: one row per unit, men to stands and guns to sections by the
stated rule, units without a place set out in their side's zone, the scenario written with its
comments; a bad cell refused with its row, column and why, and nothing written."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli import main as cli
from rules.actions import EndTurn
from storage.game import Game
from storage.oob_import import REQUIRED, OobImportError, StrengthRule, import_oob, read_rows, to_scenario
from storage.replay import verify
from storage.scenario import load_scenario

HEADER = [*REQUIRED, "x", "y", "facing", "arrives_turn", "arrives_at"]
GOOD = [
    [
        "Union",
        "Iron Brigade",
        "Brig. Gen. Solomon Meredith",
        "2nd Wisconsin",
        "infantry",
        "302",
        "veteran",
        "rifled_musket",
        "30",
        "20",
        "0",
        "",
        "",
    ],
    [
        "Union",
        "Iron Brigade",
        "Brig. Gen. Solomon Meredith",
        "19th Indiana",
        "Infantry",
        "308",
        "veteran",
        "rifle",
        "",
        "",
        "",
        "",
        "",
    ],
    [
        "Union",
        "1st Brigade, Artillery",
        "Col. Charles Wainwright",
        "Battery B, 4th US",
        "artillery",
        "6",
        "regular",
        "napoleon",
        "",
        "",
        "",
        "",
        "",
    ],
    [
        "Confederate",
        "Archer's Brigade",
        "Brig. Gen. James J. Archer",
        "1st Tennessee",
        "infantry",
        "281",
        "regular",
        "rifled_musket",
        "",
        "",
        "",
        "",
        "",
    ],
    [
        "Confederate",
        "Archer's Brigade",
        "Brig. Gen. James J. Archer",
        "26th North Carolina",
        "infantry",
        "843",
        "regular",
        "rifled_musket",
        "",
        "",
        "",
        "3",
        "the Chambersburg Pike",
    ],
    [
        "Confederate",
        "Pegram's Battalion",
        "Maj. William J. Pegram",
        "Purcell Artillery",
        "artillery",
        "3",
        "regular",
        "3-inch",
        "",
        "",
        "",
        "",
        "",
    ],
]


def _csv(path: Path, rows, header=HEADER) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


def test_a_spreadsheet_becomes_a_scenario_that_plays(tmp_path, capsys):
    src = _csv(tmp_path / "first_day.csv", GOOD)
    out = tmp_path / "first_day.toml"
    assert cli.main(["import-oob", str(src), str(out)]) == 0
    assert "6 units" in capsys.readouterr().out
    text = out.read_text()
    # the rule stated, each unit's men or guns beside its stands
    assert (
        "a stand for every 60 men" in text
        and "stands = 5 # 302 men" in text
        and "stands = 3 # 6 guns" in text
    )
    b = load_scenario(out)
    units = {u.name: u for u in b.units.values()}
    assert units["2nd Wisconsin"].stands == 5 and (units["2nd Wisconsin"].x, units["2nd Wisconsin"].y) == (
        30.0,
        20.0,
    )
    assert units["26th North Carolina"].stands == 12  # 843 men: at most 12
    assert (
        units["Purcell Artillery"].stands == 2
        and units["Purcell Artillery"].gun.value == "3in_ordnance_rifle"
    )
    assert units["19th Indiana"].weapon.value == "rifled_musket"
    nc = units["26th North Carolina"]
    assert nc.arriving and nc.arrives.turn == 3 and nc.arrives.at == "the Chambersburg Pike"
    # set out in their side's zone: the Union (first) along the bottom facing north, the other the top
    ind = units["19th Indiana"]
    tn = units["1st Tennessee"]
    assert (
        ind.y > b.table_height_in / 2
        and ind.facing_deg == 0
        and tn.y < b.table_height_in / 2
        and tn.facing_deg == 180
    )
    brig = {br.name: br for br in b.oob.brigades.values()}
    assert brig["Archer's Brigade"].brigadier.name == "Brig. Gen. James J. Archer"
    # it plays: a new game, a turn, verified
    g = Game.create(tmp_path / "g.sqlite", b, seed=1)
    try:
        g.do(EndTurn())
        assert verify(g) == g.last_seq
    finally:
        g.close()


def test_men_per_stand_is_the_umpires_to_state(tmp_path):
    src = _csv(tmp_path / "oob.csv", GOOD)
    header, rows = read_rows(src)
    text = to_scenario(header, rows, StrengthRule(men_per_stand=100), str(src))
    assert "stands = 3 # 302 men" in text and "a stand for every 100 men" in text


def test_an_xlsx_sheet_reads_as_the_csv_does(tmp_path):
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(HEADER)
    for row in GOOD:
        ws.append([int(c) if c.isdigit() else c for c in row])
    xlsx = tmp_path / "oob.xlsx"
    wb.save(xlsx)
    a, _ = import_oob(xlsx, tmp_path / "a.toml")
    b, _ = import_oob(_csv(tmp_path / "oob.csv", GOOD), tmp_path / "b.toml")
    assert load_scenario(a).units == load_scenario(b).units


@pytest.mark.parametrize(
    ("column", "value", "why"),
    [
        ("strength", "lots", "row 3, strength: 'lots' is not a number of men"),
        ("strength", "-40", "row 3, strength: -40 is not a number of men"),
        ("kind", "tank", "row 3, kind: 'tank' is not a kind of unit"),
        ("quality", "superb", "row 3, quality: 'superb' is not a quality"),
        ("weapon", "longbow", "row 3, weapon: 'longbow' is not a firearm"),
        ("side", "", "row 3, side: empty"),
        ("x", "north", "row 3, y: a place needs both x and y"),
    ],
)
def test_a_bad_cell_is_refused_with_its_row_and_column_and_nothing_written(
    tmp_path, capsys, column, value, why
):
    rows = [list(r) for r in GOOD]
    rows[1][HEADER.index(column)] = value
    src = _csv(tmp_path / "bad.csv", rows)
    out = tmp_path / "bad.toml"
    assert cli.main(["import-oob", str(src), str(out)]) == 1
    assert why in capsys.readouterr().err
    assert not out.exists()


def test_a_missing_column_or_a_third_side_is_refused(tmp_path):
    src = _csv(tmp_path / "no_weapon.csv", [r[:7] for r in GOOD], HEADER[:7])
    with pytest.raises(OobImportError, match="weapon are missing"):
        import_oob(src, tmp_path / "x.toml")
    rows = [list(r) for r in GOOD] + [
        ["Mexico", "A", "B", "C", "infantry", "100", "regular", "rifled_musket", "", "", "", "", ""]
    ]
    with pytest.raises(OobImportError, match="row 8, side: 'Mexico' is a third side"):
        import_oob(_csv(tmp_path / "three.csv", rows), tmp_path / "x.toml")
    assert not (tmp_path / "x.toml").exists()


_bad_cell = st.sampled_from(
    [
        (
            "strength",
            st.one_of(
                st.text(alphabet="abcxyz ?!%", min_size=1, max_size=8),
                st.integers(-1000, 0).map(str),
                st.integers(10_001, 10**9).map(str),
            ),
        ),
        (
            "kind",
            st.text(min_size=1, max_size=10).filter(
                lambda t: (
                    t.strip().lower()
                    not in (
                        "infantry",
                        "cavalry",
                        "artillery",
                        "skirmishers",
                        "cavalry_screen",
                        "cavalry screen",
                    )
                )
            ),
        ),
        (
            "quality",
            st.text(min_size=1, max_size=10).filter(
                lambda t: t.strip().lower() not in ("veteran", "regular", "green")
            ),
        ),
        ("x", st.text(min_size=1, max_size=6).filter(lambda t: not _is_number(t))),
    ]
)


def _is_number(t: str) -> bool:
    try:
        float(t)
        return True
    except ValueError:
        return False


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_generated_bad_rows_are_refused_by_row_and_column_and_nothing_is_written(tmp_path, data):
    rows = [list(r) for r in GOOD]
    row = data.draw(st.integers(0, len(rows) - 1))
    column, values = data.draw(_bad_cell)
    value = data.draw(values)
    rows[row][HEADER.index(column)] = value
    if column == "x":  # a place is x and y
        rows[row][HEADER.index("y")] = "10"
    out = tmp_path / f"gen{row}.toml"
    src = _csv(tmp_path / "gen.csv", rows)
    with pytest.raises(OobImportError) as exc:
        import_oob(src, out)
    assert f"row {row + 2}, {column}:" in str(exc.value)
    assert not out.exists()


def test_each_side_has_a_zone_holding_the_units_it_sets_out(tmp_path):
    b = load_scenario(import_oob(_csv(tmp_path / "oob.csv", GOOD), tmp_path / "z.toml")[0])
    zones = {z.side: z for z in b.zones}
    assert set(zones) == {s.id for s in b.oob.sides}
    for u in b.units.values():
        x, y = (u.arrives.x, u.arrives.y) if u.arriving else (u.x, u.y)
        if u.name != "2nd Wisconsin":  # (its place was given)
            assert zones[u.side].holds(x, y), u.name
