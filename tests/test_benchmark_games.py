"""The games the benchmarks measure are real games: played through the rules, replayed exactly by
``verify``, their group marches one step of 20 units, the demo's long games sharing their first
turn with the demo they are compared with; and the plain line of sight the benchmarks compare
with measures what the rules measure."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import games
from benchmarks.figures_core import los_reference
from benchmarks.generate import (
    LARGEST_FEATURES,
    LARGEST_UNITS,
    SCALED_GAP_IN,
    allow_largest_battle,
    big_battle,
    scaled_battle,
)
from storage.game import Game
from storage.replay import verify


def test_a_club_game_marches_its_groups_as_one_step_of_twenty(tmp_path):
    path = tmp_path / "club.sqlite"
    facts = games.build_club_game(path, turns=2, per_turn=80)  # on Gettysburg, the club battle
    with Game.open(path) as g:
        assert g.last_seq == facts["events"] == 160
        # Gettysburg as it comes: 146 units on the table, 25 arriving that the scripted play never
        # brings on (the generated club battle has games.CLUB_UNITS)
        assert g.battle.turn == 3 and len(g.battle.oob.in_play()) == 146 and len(g.battle.units) == 171
        first, last = facts["last_group_first"], facts["last_group_last"]
        assert g.step_of(first) == (first, last)
        # twenty marches, and the Trigger Windows they opened on the way, each declined and logged
        step = g.events()[first - 1 : last]
        assert {e.type for e in step} == {"move_unit", "decline_reaction"}
        assert len({e.action.unit_id for e in step if e.type == "move_unit"}) == games.GROUP
        assert verify(g) == g.last_seq
        assert len(g.turn_totals()) == 2  # each turn ended keeps its totals


def test_the_demos_long_games_share_their_first_turn(tmp_path):
    short, long = tmp_path / "short.sqlite", tmp_path / "long.sqlite"
    games.build_demo_game(short, 250)
    games.build_demo_game(long, 1_000)
    with Game.open(short) as a, Game.open(long) as b:
        assert [e.to_row() | {"created_at": ""} for e in a.events(turn=1)] == [
            e.to_row() | {"created_at": ""} for e in b.events(turn=1)
        ]
        assert b.last_seq == 1_000 and b.battle.turn == 5
        assert verify(b) == 1_000


@pytest.mark.parametrize("units", [50, 800])
def test_a_scaled_battle_keeps_its_units_on_its_table(units):
    b = scaled_battle(units)
    assert len(b.units) == units
    assert all(0 < u.x < b.table_width_in and 0 < u.y < b.table_height_in for u in b.units.values())
    assert big_battle().to_dict() == scaled_battle(200).to_dict() | {"name": big_battle().name}


@pytest.mark.parametrize("units", [50, 800])
def test_a_scaled_battle_keeps_the_armies_in_contact(units):
    """The fronts stand no further apart than on the 200-unit battle's table, whatever its size."""
    b = scaled_battle(units)
    front = {s: min(abs(u.y - b.table_height_in / 2) for u in b.oob.in_play(s)) for s in ("union", "csa")}
    assert front["union"] + front["csa"] <= SCALED_GAP_IN + 2.0


def test_the_largest_battle_is_past_the_limits_and_built_only_where_allowed(monkeypatch):
    """The scaling table's 2,000 units are more than Brigadier opens: a benchmark's process lets
    itself build them, and the application's limits stay as they are."""
    from rules import limits
    from rules.errors import InvariantError

    assert LARGEST_UNITS > limits.MAX_UNITS and LARGEST_FEATURES > limits.MAX_TERRAIN
    with pytest.raises(InvariantError):
        scaled_battle(LARGEST_UNITS)
    monkeypatch.setattr(limits, "MAX_UNITS", limits.MAX_UNITS)  # put back after the test
    monkeypatch.setattr(limits, "MAX_TERRAIN", limits.MAX_TERRAIN)
    allow_largest_battle()
    b = scaled_battle(LARGEST_UNITS)
    assert (len(b.units), len(b.terrain)) == (LARGEST_UNITS, LARGEST_FEATURES)


def test_the_plain_line_of_sight_measures_the_lengths_the_rules_measure():
    from rules.battlefield.field import _CLEAR, _terrain_index
    from rules.tables import load_tables

    battle = big_battle()
    tables = load_tables()
    viewers, targets = battle.oob.in_play("union")[:10], battle.oob.in_play("csa")[:10]
    lengths = los_reference(battle, tables, viewers, targets)()
    ti = _terrain_index(battle.terrain, tables)
    import shapely

    coords = np.array([[[v.x, v.y], [t.x, t.y]] for v in viewers for t in targets])
    segs = shapely.linestrings(coords)
    si, fj = ti.tree.query(segs, predicate="intersects")
    keep = ti.sight[fj] != _CLEAR
    want = shapely.length(shapely.intersection(segs[si[keep]], ti.areas[fj[keep]]))
    assert np.allclose(lengths, want, atol=1e-9)
    assert (lengths > 0).sum() > 10


def test_interleaved_saves_start_after_the_pause_asked_for():
    """The save figure's calls each start after an idle, as the umpire's actions do: no call of
    the program or of a reference starts straight after the one before it ends."""
    import time

    from benchmarks.measure import interleaved

    spans: list[tuple[float, float]] = []

    def call():
        start = time.perf_counter()
        spans.append((start, time.perf_counter()))

    pause = 0.02
    medians = interleaved([call, call], 3, warmup=0, pause=pause)
    assert len(medians) == 2 and len(spans) == 6
    gaps = [b[0] - a[1] for a, b in zip(spans, spans[1:], strict=False)]
    assert min(gaps) >= pause
