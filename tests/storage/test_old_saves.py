"""Saves written before a refusal recorded its side and an evade measured its withdrawal still open,
show the game as it was played, and replay exactly (``brigadier verify``)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace

from rules.battle.unit import refused_flanks
from rules.battle.words import Marker, Phase
from rules.dice import TableDice
from rules.reactions.declare import DeclareReaction, Reaction, Threat, Window
from storage.game import Game
from storage.replay import verify
from tests.rules.reactions.test_examples_ch04 import example_b
from tests.rules.reactions.test_reactions import screened
from tests.storage.conftest import as_format_2

ADDED = ("sided_flanks", "evade_path", "enfilade_side")


def _as_written_before(path) -> None:
    """Take the fields added since out of every action in the journal, as an old save has them."""
    conn = sqlite3.connect(path)
    for key in ADDED:
        conn.execute(f"UPDATE journal SET action = json_remove(action, '$.{key}')")
    as_format_2(conn)  # written before the journal's hash chain too
    conn.commit()
    conn.close()


def test_an_old_save_with_a_refusal_opens_as_played_and_replays(tmp_path):
    p = tmp_path / "old.sqlite"
    b = replace(example_b(), phase=Phase.MANEUVER)
    t = Threat(Window.A, "nc28", "ind19", 5.0, in_forward_arc=False, flank="right")
    # what the program of that time did: one refusal marker for the regiment, both flanks
    old = replace(DeclareReaction.of(Reaction.REFUSE_FLANK, t), sided_flanks=False)
    with Game.create(p, b) as g:
        g.do(old, TableDice([]))
        assert g.battle.unit("ind19").markers == {Marker.REFUSED_FLANK}
    _as_written_before(p)
    raw = sqlite3.connect(p).execute("SELECT action FROM journal").fetchone()[0]
    assert "sided_flanks" not in raw and "enfilade_side" not in raw
    with Game.open(p) as g:
        (ev,) = g.events()
        assert ev.action.sided_flanks is False
        assert refused_flanks(g.battle.unit("ind19")) == {"left", "right"}
        assert verify(g) == 1


def test_an_old_save_with_an_evade_opens_as_played_and_replays(tmp_path):
    p = tmp_path / "old.sqlite"
    b = replace(screened(), phase=Phase.MANEUVER)
    t = Threat(Window.A, "a", "d", 5.0)
    old = replace(DeclareReaction.of(Reaction.EVADE, t, withdraw_in=4.0), evade_path=False)
    with Game.create(p, b) as g:
        g.do(old, TableDice([]))
        placed = g.battle.unit("d")
    _as_written_before(p)
    with Game.open(p) as g:
        assert g.events()[0].action.evade_path is False
        assert g.battle.unit("d") == placed  # behind the parent's colour stand, as that program put it
        assert verify(g) == 1
