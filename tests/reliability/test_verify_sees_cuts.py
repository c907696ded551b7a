"""``verify`` sees what was cut or forged, and a save that claims what it is not is refused.

A save keeps the end of its hash chain (how many entries, the hash of the last) beside its start,
so entries cut off the end of the journal are found; its format number is checked against the
formats that exist and against what the file holds, so lowering it skips no check; SQLite's full
integrity check runs; SQL triggers and views Brigadier did not make are refused before anything
is written; and a disk that cannot read the file is told apart from a damaged file.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.actions import EndTurn, MoveUnit, NextPhase, Override, SpendPip
from storage import journal, schema
from storage.errors import SaveFileError
from storage.game import Game
from storage.replay import verify
from storage.scenario import load_demo
from tests.storage.conftest import fingerprint


def _tamper(path: Path, *sql: str) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys=ON")
    with conn:
        for s in sql:
            conn.execute(s)
    conn.close()


@pytest.fixture
def played(tmp_path) -> Path:
    """A demo game of six entries, the last a volley's worth of undone entries kept to redo."""
    p = tmp_path / "g.sqlite"
    with Game.create(p, load_demo(), seed=11) as g:
        g.do(SpendPip("garnett", purpose="an assault"))
        g.do(NextPhase())
        g.do(MoveUnit("va4", 34, 22, mode="place", reason="set up"))
        g.do(Override("unit", "va5", {"stands": 4}, "a loss"))
        g.do(NextPhase())
        g.do(EndTurn())
        g.do(Override("unit", "bkn14", {"stands": 3}, "a loss"))
        g.undo()
        g.checkpoint()
    return p


def _verify(path: Path) -> int:
    with Game.open(path) as g:
        return verify(g)


def test_a_whole_save_verifies(played):
    assert _verify(played) == 6


@pytest.mark.parametrize(
    "cut",
    [
        # the last entry deleted, with its undone entry and its step: the journal ends at 5 of 7
        ("DELETE FROM redo", "DELETE FROM journal WHERE seq = 6", "DELETE FROM steps WHERE seq >= 6"),
        # the undone entry alone
        ("DELETE FROM redo",),
        # the whole journal
        ("DELETE FROM redo", "DELETE FROM steps", "DELETE FROM journal"),
    ],
    ids=["last entry", "undone entry", "whole journal"],
)
def test_entries_cut_off_the_end_are_found(played, cut):
    _tamper(played, *cut)
    with Game.open(played) as g:  # it opens: the game as the cut journal leaves it
        with pytest.raises(SaveFileError, match="written up to entry 7: .* cut off its end"):
            verify(g)


def test_an_entry_swapped_for_another_at_the_end_is_found(played, tmp_path):
    # another game's last entry, with its own good chain hash, in place of this one's
    other = tmp_path / "other.sqlite"
    with Game.create(other, load_demo(), seed=11) as g:
        g.do(SpendPip("garnett", purpose="a feint"))
    _tamper(played, "DELETE FROM redo", "DELETE FROM steps WHERE seq >= 2")
    _tamper(played, "DELETE FROM journal WHERE seq >= 2")
    conn = sqlite3.connect(played)
    with conn:
        conn.execute(f"ATTACH DATABASE '{other}' AS o")
        conn.execute("DELETE FROM journal")
        conn.execute("INSERT INTO journal SELECT * FROM o.journal")
    conn.close()
    with Game.open(played) as g, pytest.raises(SaveFileError, match="cut off its end|does not end where"):
        verify(g)


@pytest.mark.parametrize("version", ["-1", "0", "2", "3", "4", "5"])
def test_a_lowered_format_number_is_refused_before_the_checks_it_would_skip(played, version):
    _tamper(
        played,
        f"UPDATE meta SET value = '{version}' WHERE key = 'schema_version'",
        "UPDATE journal SET summary = 'a forged log line' WHERE seq = 1",
    )
    before = fingerprint(played)
    with pytest.raises(SaveFileError, match=f"says it is of format {version}"):
        Game.open(played)
    assert fingerprint(played) == before


def test_a_format_lowered_with_its_marks_taken_out_still_names_the_migrations(played):
    _tamper(
        played,
        "UPDATE meta SET value = '5' WHERE key = 'schema_version'",
        "DROP TABLE sight",
    )
    with pytest.raises(SaveFileError, match="0006_sight"):
        Game.open(played)


def test_a_save_of_format_4_gains_the_end_of_its_chain_and_verifies(played):
    from tests.storage.conftest import as_format

    conn = sqlite3.connect(played)
    with conn:
        as_format(conn, 4)
    conn.close()
    with Game.open(played) as g:
        assert g.meta["schema_version"] == "6"
        assert schema.parse_chain_end(g.meta[schema.CHAIN_END])[0] == 7
        assert verify(g) == 6
        g.redo()
        assert verify(g) == 7


def test_the_end_follows_undo_redo_and_a_new_action_that_forgets_the_undone(played):
    with Game.open(played) as g:
        g.undo_to(2)
        assert verify(g) == 2
        g.redo()
        assert verify(g) == 3
        g.do(SpendPip("branch", purpose="a new plan"))  # entries 5 to 7 are forgotten
        assert verify(g) == 4
        assert schema.parse_chain_end(g.meta[schema.CHAIN_END])[0] == 4
        g.undo()
        g.forget_redo()
        assert verify(g) == 3
    assert _verify(played) == 3


def test_a_damaged_index_that_the_quick_check_misses_is_found(played):
    conn = sqlite3.connect(played)
    conn.execute("PRAGMA writable_schema=ON")
    with conn:  # the index now says it indexes another column: its entries no longer match
        conn.execute(
            "UPDATE sqlite_master SET sql = 'CREATE INDEX journal_turn ON journal (side)' "
            "WHERE name = 'journal_turn'"
        )
    conn.close()
    conn = sqlite3.connect(played)
    assert conn.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    conn.close()
    with (
        Game.open(played) as g,
        pytest.raises(SaveFileError, match="integrity check: row 1 missing from index"),
    ):
        verify(g)


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE TRIGGER wipe AFTER INSERT ON journal BEGIN DELETE FROM meta; END",
        "CREATE VIEW peek AS SELECT * FROM journal",
    ],
    ids=["trigger", "view"],
)
def test_sql_brigadier_did_not_make_is_refused_before_anything_is_written(played, sql):
    _tamper(played, sql)
    before = fingerprint(played)
    with pytest.raises(SaveFileError, match="SQL that Brigadier did not make"):
        Game.open(played)
    assert fingerprint(played) == before
    assert not Path(f"{played}-wal").exists()


# -- a read error is not damage ----------------------------------------------------------------


def _disk_fails(monkeypatch, times: int | None) -> list[int]:
    """SQLite's reads of a save fail as a failing disk's do (``times`` times; None: always), and
    so does reading its bytes while the disk is failing. Returns the count of failed reads."""
    failed = [0]
    real = journal._read

    def read(conn, path):
        if times is None or failed[0] < times:
            failed[0] += 1
            exc = sqlite3.OperationalError("disk I/O error")
            exc.sqlite_errorname = "SQLITE_IOERR_READ"
            raise exc
        return real(conn, path)

    def unreadable(path):
        return "Input/output error" if times is None or failed[0] <= times - 1 else None

    monkeypatch.setattr("storage.opening._read", read)
    monkeypatch.setattr("storage.opening.unreadable", unreadable)
    return failed


def test_a_disk_that_cannot_read_the_save_is_not_called_damage(played, monkeypatch):
    _disk_fails(monkeypatch, None)
    with pytest.raises(SaveFileError) as got:
        Game.open(played)
    said = got.value.problem
    assert "the disk could not read the file (Input/output error)" in said
    assert "may be intact" in said and "damaged" not in said


def test_a_read_that_fails_once_is_read_again(played, monkeypatch):
    failed = _disk_fails(monkeypatch, 1)
    monkeypatch.setattr("storage.opening.unreadable", lambda path: None)  # every byte reads, the 2nd time
    with Game.open(played) as g:
        assert g.last_seq == 6
    assert failed[0] == 1


def test_a_damaged_file_is_still_called_damaged(played):
    data = bytearray(played.read_bytes())
    data[4096:] = bytes(range(256)) * ((len(data) - 4096) // 256)  # every page after the first
    played.write_bytes(bytes(data))
    with pytest.raises(SaveFileError, match="damaged"):
        Game.open(played)


def test_unreadable_names_the_disk_error(tmp_path, monkeypatch):
    from storage import opening

    p = tmp_path / "f"
    p.write_bytes(b"x" * 10)
    assert opening.unreadable(p) is None

    def eio(fd, n):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(opening.os, "read", eio)
    assert opening.unreadable(p) == "Input/output error"


# -- generated tampering: never "whole" when it is not ------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    keep=st.integers(0, 6),
    redo=st.booleans(),
    version=st.sampled_from(["-7", "0", "1", "2", "3", "4", "5", "6", "x"]),
)
def test_door_cut_journals_and_format_numbers(tmp_path_factory, keep, redo, version):
    folder = tmp_path_factory.mktemp("cut")
    p = folder / "g.sqlite"
    with Game.create(p, load_demo(), seed=5) as g:
        for i in range(6):
            g.do(SpendPip("garnett" if i % 2 else "branch", purpose=f"plan {i}"))
        g.undo()
    cut = [f"DELETE FROM journal WHERE seq > {keep}", f"DELETE FROM steps WHERE seq > {keep}"]
    if not redo:
        cut.insert(0, "DELETE FROM redo")
    cut.append(f"UPDATE meta SET value = '{version}' WHERE key = 'schema_version'")
    _tamper(p, *cut)
    whole = keep >= 5 and redo and version == "6"
    try:
        with Game.open(p) as g:
            n = verify(g)
    except SaveFileError as exc:
        assert not whole, exc
        return
    assert whole and n == 5
