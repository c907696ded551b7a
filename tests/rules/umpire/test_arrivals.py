"""Arrivals: a unit a scenario brings on later is off the table (not in play: not seen, not
counted, unable to act) until its side's Phase 2 of its turn, when it comes on at its entry point
(club default movement.arrivals.entry_within_in), on its die roll where it has one; coming on is
its move for the phase; the phase checklist lists it while it is due."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.actions import Action, resolve
from rules.battle.unit import Arrival, Unit
from rules.battle.words import Phase
from rules.dice import TableDice
from rules.errors import IllegalAction
from rules.shooting.shoot import Shoot
from rules.sight.spotting import SightTracker
from rules.tables import load_tables
from rules.turn.checklist import checklist
from rules.umpire.arrivals import Arrive, due
from tests.rules.conftest import battle_of, foot

T = load_tables()


def _battle(turn: int = 3, phase: Phase = Phase.MANEUVER, roll: int | None = None):
    reb = foot("reb", 100, 80, facing=180, side="csa")
    a1 = replace(foot("u1", 0, 0), arrives=Arrival(3, "the Taneytown Road", 100, 150, 0, roll))
    a2 = replace(foot("u2", 0, 0), arrives=Arrival(3, "the Taneytown Road", 106, 150, 0, roll))
    b = battle_of(foot("u0", 100, 100), a1, a2, reb)
    return replace(b, turn=turn, phase=phase, active_side="union")


def test_a_unit_still_to_arrive_is_not_on_the_field():
    b = _battle()
    u1 = b.unit("u1")
    assert not u1.in_play and u1.arriving and u1.stands == 5
    assert {u.id for u in b.oob.in_play("union")} == {"u0"}
    # it is seen by nobody and sees nobody
    seers = SightTracker(b, T).seers_map()
    assert "u1" not in seers and not any("u1" in s for s in seers.values())
    # and cannot act: it has not arrived yet, and says so
    with pytest.raises(IllegalAction, match=r"has not arrived yet \(due turn 3\)"):
        resolve(replace(b, phase=Phase.RANGED), Shoot("u1", "reb", 20.0), TableDice(), T)
    from rules.battlefield.marches import MoveUnit

    with pytest.raises(IllegalAction, match="has not arrived yet"):
        resolve(b, MoveUnit("u1", 100.0, 140.0, mode="march"), TableDice(), T)


def test_it_arrives_in_its_sides_phase_2_at_its_entry_point_and_that_is_its_move():
    b = _battle()
    assert [g.unit_ids for g in due(b)] == [("u1", "u2")]
    items = [i for i in checklist(b, T) if i.kind == "arrive"]
    assert (
        len(items) == 1
        and "the Taneytown Road" in items[0].text
        and "movement.arrivals.entry_within_in" in items[0].rule
    )
    out = resolve(b, Arrive(("u1", "u2")), TableDice(), T)
    after = out.battle_after
    assert after.unit("u1").in_play and (after.unit("u1").x, after.unit("u1").y) == (100.0, 150.0)
    assert after.unit("u2").in_play and after.unit("u2").x == 106.0
    assert "arrive at the Taneytown Road" in out.summary
    assert not due(after) and not [
        i for i in checklist(after, T) if i.kind in ("arrive", "move") and i.unit_id in ("u1", "u2")
    ]
    # it has used its move: it marches no further this phase
    from rules.battlefield.marches import remaining_move_in

    assert remaining_move_in(after, "u1", T) == 0


@pytest.mark.parametrize(
    ("turn", "phase", "side", "why"),
    [
        (2, Phase.MANEUVER, "union", "due on turn 3"),
        (3, Phase.RANGED, "union", "Phase 2"),
        (3, Phase.MANEUVER, "csa", "Phase 2"),
    ],
)
def test_not_before_its_turn_nor_outside_its_sides_phase_2(turn, phase, side, why):
    b = replace(_battle(turn, phase), active_side=side)
    assert not due(b)
    with pytest.raises(IllegalAction, match=why):
        resolve(b, Arrive(("u1",)), TableDice(), T)


def test_it_comes_on_within_6_inches_of_its_entry_point_and_on_the_table():
    b = _battle()
    ok = resolve(b, Arrive(("u1",), ((103.0, 155.0, 10.0),)), TableDice(), T).battle_after.unit("u1")
    assert (ok.x, ok.y, ok.facing_deg) == (103.0, 155.0, 10.0)
    with pytest.raises(IllegalAction, match='within 6" of its entry point'):
        resolve(b, Arrive(("u1",), ((100.0, 140.0, 0.0),)), TableDice(), T)
    with pytest.raises(IllegalAction, match="on the table"):
        resolve(b, Arrive(("u1",), ((100.0, 250.0, 0.0),)), TableDice(), T)


def test_a_roll_each_turn_from_its_turn_on():
    b = _battle(roll=4)
    fail = resolve(b, Arrive(("u1", "u2")), TableDice([3]), T)
    after = fail.battle_after
    assert (
        after.unit("u1").arriving
        and after.unit("u1").arrives.tried == 3
        and "needing 4: not this turn" in fail.summary
    )
    assert not due(after)  # one roll a turn
    with pytest.raises(IllegalAction, match="try again next turn"):
        resolve(after, Arrive(("u1", "u2")), TableDice([6]), T)
    nxt = replace(after, turn=4)
    assert [g.unit_ids for g in due(nxt)] == [("u1", "u2")]
    ok = resolve(nxt, Arrive(("u1", "u2")), TableDice([4]), T)
    assert ok.battle_after.unit("u1").in_play and ok.battle_after.unit("u2").in_play
    assert ok.steps[0].dice == (4,)


def test_an_arrival_keeps_through_a_save_and_the_action_through_json():
    u = replace(foot("u1", 0, 0), arrives=Arrival(5, "the York Pike", 140.0, 10.0, 225.0, 4, 5))
    assert Unit.from_dict(u.to_dict()) == u
    a = Arrive(("u1",), ((1.0, 2.0, 3.0),))
    assert Action.from_dict(a.to_dict()) == a
