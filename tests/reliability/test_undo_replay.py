"""Undo and replay, as a state machine: random legal actions with undo, redo and reopening.

``tests/storage/test_journal_properties.py`` plays random lists of operations on the small battle
and checks the journal at the end. This machine plays the demo battle step by step and checks after
every step that

* the game in hand is the state the model expects, with its dice where they should be;
* a second copy of the save, opened from the file in the middle of play (undone events pending),
  holds the same battle, the same dice and the same events to redo;
* every past state replays exactly (:meth:`Game.state_at`), also in a game reopened mid-sequence;

and, as rules of their own, that undoing everything returns the starting battle and redoing it
all returns the battle as played, and that a game reopened after undos redoes exactly what was undone.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from rules.actions import EndTurn, MoveUnit, NextPhase, Override, ReservePip, SpendPip
from rules.errors import RulesError
from storage.game import Game, same_state
from storage.scenario import load_demo

DEMO = load_demo()
UNITS = sorted(DEMO.units)
BRIGADES = sorted(DEMO.brigades)

moves = st.builds(
    MoveUnit,
    st.sampled_from(UNITS),
    st.floats(0, DEMO.table_width_in, allow_nan=False).map(lambda v: round(v, 2)),
    st.floats(0, DEMO.table_height_in, allow_nan=False).map(lambda v: round(v, 2)),
    st.one_of(st.none(), st.sampled_from([0.0, 45.0, 90.0, 180.0, 270.0])),
)
overrides = st.one_of(
    st.builds(
        Override,
        st.just("unit"),
        st.sampled_from(UNITS),
        st.fixed_dictionaries({"micro_hits": st.integers(0, 2)}),
        st.just("ruled at the table"),
    ),
    st.builds(
        Override,
        st.just("brigade"),
        st.sampled_from(BRIGADES),
        st.fixed_dictionaries({"staff_pips": st.integers(0, 4)}),
        st.just("pips found"),
    ),
)
pips = st.one_of(
    st.builds(ReservePip, st.sampled_from(BRIGADES)),
    st.builds(SpendPip, st.sampled_from(BRIGADES), st.just("a courier"), st.booleans()),
)
phases = st.sampled_from([NextPhase(), EndTurn()])


class UndoReplay(RuleBasedStateMachine):
    """The model: the states after each event in the journal, and the undone ones to redo."""

    @initialize()
    def start(self):
        self.folder = Path(tempfile.mkdtemp(prefix="brigadier-undo-"))
        self.path = self.folder / "game.sqlite"
        self.game = Game.create(self.path, DEMO, seed=1863)
        self.done = [self.game.battle]  # the state after each event in the journal
        self.drawn = [0]  # the dice drawn by then
        self.undone: list[tuple] = []  # (state, drawn) of undone events, the next to redo last

    def teardown(self):
        if hasattr(self, "game"):
            self.game.close()
            shutil.rmtree(self.folder, ignore_errors=True)

    def _do(self, action):
        before = self.game.battle
        try:
            self.game.do(action)
        except RulesError:
            assert self.game.battle is before  # a refused action changes nothing
            return
        self.done.append(self.game.battle)
        self.drawn.append(self.game.dice.drawn)
        self.undone.clear()

    @rule(action=moves)
    def move(self, action):
        self._do(action)

    @rule(action=overrides)
    def override(self, action):
        self._do(action)

    @rule(action=pips)
    def pip(self, action):
        self._do(action)

    @rule(action=phases)
    def phase(self, action):
        self._do(action)

    @rule()
    def undo(self):
        ev = self.game.undo()
        assert (ev is None) == (len(self.done) == 1)
        if ev is not None:
            self.undone.append((self.done.pop(), self.drawn.pop()))

    @rule()
    def redo(self):
        ev = self.game.redo()
        assert (ev is None) == (not self.undone)
        if ev is not None:
            state, drawn = self.undone.pop()
            self.done.append(state)
            self.drawn.append(drawn)

    @rule()
    def reopen(self):
        self.game.close()
        self.game = Game.open(self.path)

    @precondition(lambda self: len(self.done) > 1)
    @rule(data=st.data())
    def undo_to_a_past_event(self, data):
        seq = data.draw(st.integers(0, len(self.done) - 2))
        undone = self.game.undo_to(seq)
        assert [e.seq for e in undone] == list(range(len(self.done) - 1, seq, -1))
        while len(self.done) > seq + 1:
            self.undone.append((self.done.pop(), self.drawn.pop()))

    @rule()
    def undo_all_returns_the_start_and_redo_all_returns_the_play(self):
        played = self.done[-1]
        pending = list(self.undone)
        n = len(self.done) - 1
        self.game.undo_to(0)
        assert same_state(self.game.battle, DEMO) and self.game.dice.drawn == 0
        for _ in range(n):
            assert self.game.redo() is not None
        assert same_state(self.game.battle, played)
        assert self.game.last_seq == n and self.game.dice.drawn == self.drawn[-1]
        assert len(self.game.redo_events()) == len(pending)

    @precondition(lambda self: bool(self.undone))
    @rule()
    def a_game_reopened_after_undos_redoes_what_was_undone(self):
        self.game.close()
        self.game = Game.open(self.path)
        assert [e.seq for e in self.game.redo_events()] == list(
            range(len(self.done), len(self.done) + len(self.undone))
        )

    @invariant()
    def the_game_in_hand_is_the_model(self):
        if not hasattr(self, "game"):
            return
        assert same_state(self.game.battle, self.done[-1])
        assert self.game.last_seq == len(self.done) - 1
        assert self.game.dice.drawn == self.drawn[-1]
        assert self.game.can_undo == (len(self.done) > 1)
        assert self.game.can_redo == bool(self.undone)

    @invariant()
    def a_copy_opened_from_the_file_mid_play_is_the_same_game(self):
        if not hasattr(self, "game"):
            return
        with Game.open(self.path) as copy:
            assert same_state(copy.battle, self.game.battle)
            assert copy.last_seq == self.game.last_seq and copy.dice.drawn == self.game.dice.drawn
            assert len(copy.redo_events()) == len(self.undone)
            for seq in range(len(self.done)):
                assert same_state(copy.state_at(seq), self.done[seq])

    @invariant()
    def every_past_state_replays(self):
        if not hasattr(self, "game"):
            return
        for seq, state in enumerate(self.done):
            assert same_state(self.game.state_at(seq), state)


UndoReplay.TestCase.settings = settings(
    max_examples=30,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_undo_and_replay_state_machine = UndoReplay.TestCase
