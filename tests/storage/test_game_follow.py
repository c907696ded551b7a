"""Game.follow: a copy of a game catches up with the entries another copy added, reading only
those, and says so when the save changed otherwise (an Undo, an entry replaced)."""

from __future__ import annotations

from rules.actions import EndTurn, MoveUnit, NextPhase, SpendPip
from storage.game import Game, same_state
from storage.scenario import load_demo
from storage.sightings import Sightings


def test_a_copy_follows_what_another_adds_and_plays_on_from_there(tmp_path):
    p = tmp_path / "g.sqlite"
    a = Game.create(p, load_demo(), seed=3)
    b = Game.open(p)
    assert b.follow()  # nothing new
    a.do(NextPhase())
    a.do(MoveUnit("va4", 34.0, 24.0, mode="march"))
    a.do_step([SpendPip("garnett", purpose="plan"), EndTurn()])
    read = []
    real = b._read_events
    b._read_events = lambda *args, **kw: read.append(args) or real(*args, **kw)
    assert b.follow()
    assert read == [("WHERE seq > ?", (0,))]  # only the new entries
    assert b.last_seq == a.last_seq == 4 and same_state(b.battle, a.battle)
    assert b.change_count == a.change_count
    assert Sightings.of(b).knowledge("csa") == Sightings.of(a).knowledge("csa")
    # the copy that followed can play on: it stands where the save does
    b.do(NextPhase())
    assert a.follow() and same_state(a.battle, b.battle)
    assert a.can_undo and b.step_of(4) == (3, 4)


def test_an_undo_elsewhere_is_followed_back_and_a_replaced_entry_is_not(tmp_path):
    p = tmp_path / "g.sqlite"
    a = Game.create(p, load_demo(), seed=3)
    a.do(NextPhase())
    a.do(MoveUnit("va4", 34.0, 24.0, mode="march"))
    a.do(EndTurn())
    b = Game.open(p)
    Sightings.of(b).knowledge("csa")
    a.undo_step()
    a.undo_step()
    assert b.follow()
    assert b.last_seq == 1 and same_state(b.battle, a.battle) and b.can_redo
    assert Sightings.of(b).knowledge("union") == Sightings.of(Game.open(p)).knowledge("union")
    a.redo_step()  # and back again: entries added
    assert b.follow() and b.last_seq == 2 and same_state(b.battle, a.battle)
    b.do(SpendPip("branch", purpose="from the copy that followed"))  # it plays on from there
    assert a.follow() and a.last_seq == 3
    # another entry in place of one this copy holds: not followed, nothing changed here
    c = Game.open(p)
    a.undo()
    a.do(SpendPip("garnett", purpose="another"))
    battle, last = c.battle, c.last_seq
    assert not c.follow()
    assert c.battle is battle and c.last_seq == last
    assert same_state(Game.open(p).battle, a.battle)
