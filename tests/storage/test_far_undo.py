"""Undo to here far back: the entries taken back move to the redo table as they were written, and
the battle is read from the nearest snapshot, without reading every entry taken back."""

from __future__ import annotations

import sqlite3

from rules.actions import MoveUnit, Override
from storage import journal_reading, schema
from storage.game import Game, same_state
from storage.journal import Event
from storage.replay import verify
from storage.undo_redo import REVERSED_AT_MOST


def _rows(path, table: str, order: str) -> list[tuple]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        cols = [r[1] for r in conn.execute("PRAGMA table_info(journal)")]
        return conn.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY {order}").fetchall()
    finally:
        conn.close()


def _played(game: Game, n: int) -> list:
    states = [game.battle]
    for i in range(n):
        if i % 3 == 2:
            hits = game.battle.unit("wis2").micro_hits
            game.do(Override("unit", "wis2", {"micro_hits": (hits + 1) % 2}, "ruled so"))
        else:
            game.do(MoveUnit("wis2", 20, 35 - (i % 10) * 0.5 - (0.25 if i % 20 >= 10 else 0)))
        states.append(game.battle)
    return states


def test_undo_far_back_reads_the_nearest_snapshot_not_each_entry_taken_back(game, monkeypatch):
    monkeypatch.setattr(schema, "SNAPSHOT_EVERY", 10)
    states = _played(game, 90)
    written = _rows(game.path, "journal", "seq")
    parsed: list[int] = []
    real = Event.from_row
    monkeypatch.setattr(
        Event, "from_row", classmethod(lambda cls, row: parsed.append(row["seq"]) or real(row))
    )
    applied: list[int] = []
    real_changes = journal_reading.changes_of_row
    monkeypatch.setattr(
        journal_reading, "changes_of_row", lambda seq, text: applied.append(seq) or real_changes(seq, text)
    )
    game._cache.clear()
    out = game.undo_to(14)
    # the battle after entry 14: the snapshot after entry 10 and the changes of the four entries
    # after it; no entry taken back is read
    assert same_state(game.battle, states[14])
    assert applied == [11, 12, 13, 14] and parsed == []
    assert len(out) == 76 and out.seqs == list(range(90, 14, -1))
    # the entries taken back are read when asked for, and are the entries that were written
    assert [e.seq for e in out[:2]] == [90, 89] and out[0].summary
    # the undone rows are the journal's rows as they were written, hashes and all
    undone = _rows(game.path, "redo", "pos DESC")
    assert undone == written[14:]
    assert game.can_redo and game.last_seq == 14
    game.redo_to(90)
    assert same_state(game.battle, states[90])
    assert _rows(game.path, "journal", "seq") == written
    assert verify(game) == 90


def test_a_far_undo_reopens_redoes_and_verifies(tmp_path, small_battle, monkeypatch):
    monkeypatch.setattr(schema, "SNAPSHOT_EVERY", 10)
    p = tmp_path / "g.sqlite"
    with Game.create(p, small_battle, seed=7) as g:
        states = _played(g, 70)
        g.undo_to(REVERSED_AT_MOST)  # more than REVERSED_AT_MOST entries: from the snapshot
        assert same_state(g.battle, states[REVERSED_AT_MOST])
        dice = g.dice.drawn
    with Game.open(p) as g:
        assert same_state(g.battle, states[REVERSED_AT_MOST]) and g.dice.drawn == dice
        assert verify(g) == REVERSED_AT_MOST
        g.redo_step()
        assert g.last_seq == REVERSED_AT_MOST + 1
        assert same_state(g.battle, states[REVERSED_AT_MOST + 1])
        g.undo_to(3)  # a few entries: their changes taken back
        assert same_state(g.battle, states[3])
        g.do(MoveUnit("wis2", 20, 20))  # a new action forgets every entry undone
        assert not g.can_redo
        assert verify(g) == 4


def test_a_few_entries_undone_have_their_changes_taken_back(game, monkeypatch):
    """An undo of a step or two takes back each entry's recorded changes: no snapshot is read."""
    states = _played(game, 12)
    replayed: list[int] = []
    monkeypatch.setattr(game, "_replayed", lambda seq: replayed.append(seq))
    game.undo_to(9)
    assert same_state(game.battle, states[9]) and replayed == []


def test_the_entries_an_undo_took_back_are_never_another_historys(game, monkeypatch):
    """The entries a far undo took back are read when asked for; once they are no longer the
    undone entries (a new action forgot them and another history was undone in their places), the
    list says so rather than give another history's entries."""
    import pytest

    from storage.errors import SaveFileError

    monkeypatch.setattr(schema, "SNAPSHOT_EVERY", 10)
    _played(game, 60)
    first = game.undo_to(10)
    game.do(MoveUnit("wis2", 20, 21))  # a new action: the entries undone are forgotten
    _played(game, 49)
    again = game.undo_to(10)  # another history's entries 60 to 11 in the same places
    assert again[0].seq == 60 and again[0].created_at
    with pytest.raises(SaveFileError, match="no longer kept as undone"):
        first[0]


def test_a_damaged_entry_the_battle_is_replayed_through_is_named_and_the_undo_takes_nothing_back(
    tmp_path, small_battle, monkeypatch
):
    import pytest

    from storage.errors import SaveFileError

    monkeypatch.setattr(schema, "SNAPSHOT_EVERY", 10)
    p = tmp_path / "g.sqlite"
    with Game.create(p, small_battle, seed=3) as g:
        _played(g, 60)
    with Game.open(p) as g:
        battle = g.battle
        conn = sqlite3.connect(p)  # entry 12, between the snapshot after 10 and entry 14, damaged
        conn.execute("UPDATE journal SET changes = '{broken' WHERE seq = 12")
        conn.commit()
        conn.close()
        with pytest.raises(SaveFileError, match="journal entry 12 is damaged"):
            g.undo_to(14)
        assert g.last_seq == 60 and g.battle is battle and not g.can_redo
