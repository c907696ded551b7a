"""Bad save files: each one is refused with SaveFileError and left byte for byte as it was."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from rules.actions import EndTurn, MoveUnit
from storage import schema
from storage.errors import SaveFileError
from storage.game import Game
from tests.storage.conftest import fingerprint


@pytest.fixture
def saved(tmp_path, small_battle):
    """A closed save with a few events, a snapshot (turn 2) and events after it."""
    p = tmp_path / "game.sqlite"
    with Game.create(p, small_battle, seed=5) as g:
        g.do(MoveUnit("wis2", 20, 30))
        g.do(EndTurn())
        g.do(EndTurn())  # turn 2: a snapshot
        g.do(MoveUnit("wis2", 20, 28))
        g.do(MoveUnit("va4", 22, 18))
    return p


def tamper(path, sql: str, params: tuple = ()) -> None:
    conn = sqlite3.connect(path)
    conn.execute(sql, params)
    conn.commit()
    conn.close()
    for suffix in ("-wal", "-shm"):
        assert not os.path.exists(str(path) + suffix)


def refused(path, match: str) -> SaveFileError:
    before = fingerprint(path)
    with pytest.raises(SaveFileError, match=match) as exc:
        Game.open(path)
    assert fingerprint(path) == before
    return exc.value


def test_a_good_save_opens(saved):
    with Game.open(saved) as g:
        assert g.last_seq == 5 and g.battle.unit("va4").y == 18


def test_random_bytes_are_not_a_save(tmp_path):
    p = tmp_path / "noise.sqlite"
    p.write_bytes(os.urandom(4096))
    refused(p, "not an SQLite database")


def test_an_empty_file_is_not_a_save(tmp_path):
    p = tmp_path / "empty.sqlite"
    p.write_bytes(b"")
    refused(p, "not an SQLite database")


def test_a_text_file_is_not_a_save(tmp_path):
    p = tmp_path / "notes.sqlite"
    p.write_text("Turn 1: the Iron Brigade holds the ridge.\n" * 10)
    refused(p, "not an SQLite database")


def test_a_missing_file_and_a_folder_are_refused(tmp_path):
    with pytest.raises(SaveFileError, match="there is no such file"):
        Game.open(tmp_path / "nothing.sqlite")
    with pytest.raises(SaveFileError, match="a folder"):
        Game.open(tmp_path)


@pytest.mark.parametrize("keep", [0.5, 0.9])
def test_a_truncated_save_is_refused(saved, keep):
    data = saved.read_bytes()
    saved.write_bytes(data[: int(len(data) * keep)])
    err = refused(saved, "damaged")
    assert str(saved) in str(err)


def test_a_save_with_a_damaged_page_is_refused(saved):
    conn = sqlite3.connect(saved)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'journal'").fetchone()[0]
    conn.close()
    data = bytearray(saved.read_bytes())
    start = (root - 1) * page_size
    data[start : start + 64] = b"\xff" * 64  # the journal's b-tree page header is overwritten
    saved.write_bytes(bytes(data))
    refused(saved, "damaged")


def test_another_sqlite_database_is_not_a_brigadier_save(tmp_path):
    p = tmp_path / "club_accounts.sqlite"
    conn = sqlite3.connect(p)
    conn.execute("CREATE TABLE members (name TEXT, dues REAL)")
    conn.execute("INSERT INTO members VALUES ('Sgt. Jones', 12.5)")
    conn.commit()
    conn.close()
    refused(p, "an SQLite database, but not a Brigadier save")


def test_another_database_with_a_meta_table_is_not_a_brigadier_save(tmp_path):
    p = tmp_path / "other.sqlite"
    conn = sqlite3.connect(p)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('app', 'someone-else')")
    conn.commit()
    conn.close()
    refused(p, "not a Brigadier save")


def test_a_save_from_a_newer_schema_is_refused(saved):
    tamper(saved, "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(schema.SCHEMA_VERSION + 1),))
    refused(saved, "written by a newer Brigadier")


def test_a_save_from_the_current_schema_is_accepted(saved):
    tamper(saved, "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(schema.SCHEMA_VERSION),))
    Game.open(saved).close()


def test_a_save_with_a_missing_table_is_refused(saved):
    tamper(saved, "DROP TABLE snapshots")
    refused(saved, "incomplete: table\\(s\\) snapshots missing")


def _set_json(path, table: str, column: str, where: str, edit) -> None:
    conn = sqlite3.connect(path)
    value = conn.execute(f"SELECT {column} FROM {table} WHERE {where}").fetchone()[0]
    data = json.loads(value)
    edit(data)
    conn.execute(f"UPDATE {table} SET {column} = ? WHERE {where}", (json.dumps(data),))
    conn.commit()
    conn.close()


def test_a_snapshot_with_negative_stands_is_refused(saved):
    def edit(battle):
        next(u for u in battle["units"] if u["id"] == "wis2")["stands"] = -2

    _set_json(saved, "snapshots", "battle", "seq = 3", edit)
    refused(saved, "stands cannot be negative")


def test_a_journal_entry_with_an_impossible_unit_is_refused(saved):
    def edit(changes):
        changes["units"]["va4"][1]["micro_hits"] = 5

    _set_json(saved, "journal", "changes", "seq = 5", edit)
    refused(saved, "journal entry 5 .*micro-hits must be 0 or 1")


def test_a_journal_entry_with_an_unknown_action_is_refused(saved):
    _set_json(saved, "journal", "action", "seq = 4", lambda a: a.update(type="summon_cavalry"))
    refused(saved, "journal entry 4 is damaged .*'summon_cavalry' is not a known kind of action")


def test_a_journal_entry_that_is_not_json_is_refused(saved):
    tamper(saved, "UPDATE journal SET steps = '{not json' WHERE seq = 5")
    refused(saved, "journal entry 5 is damaged")


def test_a_journal_with_a_gap_is_refused(saved):
    tamper(saved, "DELETE FROM journal WHERE seq = 4")
    refused(saved, "the journal has gaps")


def test_a_scenario_whose_unit_has_an_unknown_brigade_is_refused(saved):
    def edit(battle):
        next(u for u in battle["units"] if u["id"] == "va4")["brigade"] = "phantom"

    _set_json(saved, "scenario", "battle", "id = 1", edit)
    refused(saved, "unknown brigade 'phantom'")


def test_rule_tables_with_an_impossible_value_are_refused(saved):
    tamper(saved, "UPDATE rule_tables SET value = '9' WHERE key = 'discipline.quality.veteran'")
    refused(saved, "discipline.quality.veteran is 9, outside 1 to 6")


def test_a_bad_dice_seed_is_refused(saved):
    tamper(saved, "UPDATE meta SET value = '[1, 2]' WHERE key = 'dice_seed'")
    refused(saved, "dice seed")


def test_dice_counts_that_do_not_follow_on_are_refused(saved):
    tamper(saved, "UPDATE journal SET dice_before = 3, dice_after = 3 WHERE seq = 5")
    refused(saved, "does not follow on from the dice")


@pytest.mark.parametrize(
    "key, value, match",
    [
        ("terrain.matrix.hill.sight", '"foo"', "terrain.matrix.hill.sight is 'foo'; use one of"),
        ("terrain.matrix.open.impassable", '"false"', "terrain.matrix.open.impassable must be true or false"),
        ("terrain.matrix.town_wooden.formations_barred", '"line"', "formations_barred must be a list"),
        ("terrain.matrix.town_wooden.formations_barred", '["lines"]', "lists 'lines'"),
        ("terrain.matrix.building.cover", '"thick"', "use one of: none, light, heavy"),
        ("units.health.fresh_above_percent", "80", "fixed by RULE-06-3.3"),
    ],
)
def test_rule_tables_with_a_tampered_terrain_or_fixed_entry_are_refused(saved, key, value, match):
    tamper(saved, "UPDATE rule_tables SET value = ? WHERE key = ?", (value, key))
    err = refused(saved, match)
    assert str(saved) in str(err)
