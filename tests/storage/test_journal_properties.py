"""Property test of the journal: random actions, undos, redos and reopenings keep the game true.

Whatever the umpire does, in whatever order, the game in hand is the state the model expects,
every past state replays exactly, a reopened file holds the same game, and re-resolving every
action with its recorded dice gives the same states, and the state written as a scenario reads
back the same.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.actions import (
    ChangeFormation,
    EndTurn,
    MoveUnit,
    NextPhase,
    Override,
    RemoveUnit,
    ReservePip,
    SpendPip,
)
from rules.battle.words import Formation
from rules.errors import RulesError
from storage.game import Game, same_state
from storage.replay import verify
from storage.scenario_parsing import parse_scenario
from storage.scenario_writing import to_toml
from tests.conftest import make_small_battle
from tests.storage.conftest import DisciplineCheck

UNITS = ["wis2", "ind19", "btyB", "va4", "va27", "tx1", "nobody"]
BRIGADES = ["iron", "stonewall", "texas"]

actions = st.one_of(
    st.builds(
        MoveUnit,
        st.sampled_from(UNITS),
        st.floats(-2, 75, allow_nan=False),
        st.floats(-2, 50, allow_nan=False),
        st.one_of(st.none(), st.sampled_from([0.0, 45.0, 90.0, 180.0, 270.0])),
    ),
    st.builds(ChangeFormation, st.sampled_from(UNITS), st.sampled_from([f.value for f in Formation])),
    st.builds(
        Override,
        st.just("unit"),
        st.sampled_from(UNITS),
        st.fixed_dictionaries({"stands": st.integers(-1, 7)}),
        st.sampled_from(["ruled so", "", "casualties"]),
    ),
    st.builds(ReservePip, st.sampled_from(BRIGADES)),
    st.builds(SpendPip, st.sampled_from(BRIGADES), st.just(""), st.booleans()),
    st.builds(DisciplineCheck, st.sampled_from(UNITS)),
    st.builds(RemoveUnit, st.sampled_from(UNITS)),
    st.just(NextPhase()),
    st.just(EndTurn()),
)
ops = st.lists(
    st.one_of(
        st.tuples(st.just("do"), actions),
        st.tuples(st.just("undo"), st.none()),
        st.tuples(st.just("redo"), st.none()),
        st.tuples(st.just("reopen"), st.none()),
    ),
    max_size=30,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=ops, seed=st.integers(0, 1000))
def test_random_actions_with_undo_redo_and_reopening_keep_the_journal_true(ops, seed):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "g.sqlite"
        game = Game.create(path, make_small_battle(), seed=seed)
        done = [game.battle]  # the state after each event in the journal
        undone = []  # states of undone events, the next to redo last
        try:
            for op, action in ops:
                if op == "do":
                    before = game.battle
                    try:
                        game.do(action)
                    except RulesError:
                        assert game.battle is before
                        continue
                    done.append(game.battle)
                    undone.clear()
                elif op == "undo":
                    ev = game.undo()
                    assert (ev is None) == (len(done) == 1)
                    if ev is not None:
                        undone.append(done.pop())
                elif op == "redo":
                    ev = game.redo()
                    assert (ev is None) == (not undone)
                    if ev is not None:
                        done.append(undone.pop())
                else:
                    game.close()
                    game = Game.open(path)
                assert same_state(game.battle, done[-1])
                assert game.last_seq == len(done) - 1
                assert game.can_undo == (len(done) > 1) and game.can_redo == bool(undone)
            for seq, state in enumerate(done):
                assert same_state(game.state_at(seq), state)
            assert verify(game) == len(done) - 1
            assert parse_scenario(to_toml(game.battle)) == game.battle  # any state can become a scenario
            drawn = game.dice.drawn
            game.close()
            game = Game.open(path)
            assert same_state(game.battle, done[-1]) and game.dice.drawn == drawn
            for _ in undone:
                game.redo()
            assert same_state(game.battle, (done + undone[::-1])[-1])
        finally:
            game.close()
