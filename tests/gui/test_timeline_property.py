"""Property: whatever moments the timeline is sent to, in whatever order, with Undo and Redo
between, the window's controller shows the battle a replay of the whole journal gives after that
entry, and never writes to the save while looking back."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gui.controller import GameController
from storage.game import same_state
from storage.replay import replay
from tests.sight_game import sight_game


def _replayed(game) -> list:
    """The battle after each entry (0: the start), each action resolved again from the start."""
    states = [game.scenario]
    for _ev, resolved, _recorded in replay(game):
        states.append(resolved)
    return states


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(moves=st.lists(st.one_of(st.integers(0, 40), st.sampled_from(["now", "undo", "redo"])), max_size=12))
def test_every_moment_looked_back_at_is_the_replayed_battle(qtbot, tmp_path_factory, moves):
    g = sight_game(tmp_path_factory.mktemp("tl"))
    c = GameController()
    c.set_game(g, str(g.path))
    try:
        states = _replayed(g)
        for m in moves:
            if m == "now":
                c.back_to_now()
            elif m in ("undo", "redo"):
                written = g.conn.total_changes
                looking = c.looking_back is not None
                (c.undo if m == "undo" else c.redo)()
                if looking:  # refused while looking back: nothing written
                    assert g.conn.total_changes == written
                else:
                    states = _replayed(g)
            else:
                seq = min(m, g.last_seq)
                written = g.conn.total_changes
                c.look_back(seq)
                assert g.conn.total_changes == written
                assert same_state(c.battle, states[seq])
                assert c.looking_back == (None if seq >= g.last_seq else seq)
        if c.looking_back is None:
            assert same_state(c.battle, g.battle)
    finally:
        c.close()
