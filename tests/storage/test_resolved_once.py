"""Each action of a step is resolved once.

A procedure of play (a march through its Trigger Windows) resolves each action to go on from the
battle after it; committing the step writes those outcomes as they were worked out, without
resolving them again, while the game stands where the procedure had it and its dice give the
same faces. Otherwise (the game changed meanwhile) the step is resolved afresh, as before. Either
way the journal is the one a step resolved at commit gives.
"""

from __future__ import annotations

import pytest

from rules import action_base, procedure
from rules.actions import NextPhase, SpendPip
from rules.procedure import Answer, Choice
from storage.game import Game
from storage.replay import verify
from storage.scenario import load_demo


@pytest.fixture
def counted(monkeypatch):
    """How many times each action type's resolver runs from now on."""
    calls: dict[str, int] = {}
    for cls, fn in list(action_base.RESOLVERS.items()):

        def counting(battle, action, dice, tables, fn=fn):
            calls[action.type] = calls.get(action.type, 0) + 1
            return fn(battle, action, dice, tables)

        monkeypatch.setitem(action_base.RESOLVERS, cls, counting)
    return calls


def _game(path) -> Game:
    g = Game.create(path, load_demo(), seed=1862)
    g.do(NextPhase())  # the Confederate Phase 2
    return g


def _march(g: Game, fire: bool) -> procedure.Procedure:
    """The 4th Virginia marches into Battery B's Window A; the battery fires at it or does not."""
    p = procedure.march(g.battle, g.tables, g.dice, "va4", 34, 22)
    assert p.pending is not None
    if fire:
        p.answer(Answer((Choice("batb4us", "opportunity_fire"),)))
    else:
        p.answer(Answer.declined(p.pending))
    assert p.done
    return p


def _rows(g: Game) -> list[dict]:
    rows = []
    cur = g.conn.execute("SELECT * FROM journal ORDER BY seq")
    cols = [c[0] for c in cur.description]
    for r in cur.fetchall():
        row = dict(zip(cols, r, strict=True))
        row.pop("created_at")
        row.pop("hash")  # it covers the time of the entry
        rows.append(row)
    return rows


@pytest.mark.parametrize("fire", [False, True], ids=["declined", "opportunity fire rolled"])
def test_a_march_step_is_committed_as_the_procedure_resolved_it(tmp_path, counted, fire):
    g = _game(tmp_path / "a.sqlite")
    p = _march(g, fire)
    planned = sum(counted.values())
    assert planned >= 2  # the march and the answer at its window, resolved by the procedure
    g.do_step(p.result.actions)
    assert sum(counted.values()) == planned  # nothing resolved again at commit
    # the same journal as the step resolved at commit, and its dice where they would be
    other = _game(tmp_path / "b.sqlite")
    other.do_step([(pl.action, pl.source()) for pl in p.result.actions])
    assert _rows(g) == _rows(other) and g.dice.drawn == other.dice.drawn
    if fire:
        assert g.dice.drawn > 1 and g.events()[-1].rolls
    assert verify(g) == g.last_seq


def test_a_step_planned_on_a_battle_that_has_changed_since_is_resolved_afresh(tmp_path, counted):
    g = _game(tmp_path / "a.sqlite")
    p = _march(g, fire=True)
    g.do(SpendPip("garnett", purpose="an assault"))  # the game moves on before the step is committed
    before = dict(counted)
    g.do_step(p.result.actions)
    assert counted.get("move_unit", 0) == before.get("move_unit", 0) + 1  # resolved again, as before
    assert verify(g) == g.last_seq
