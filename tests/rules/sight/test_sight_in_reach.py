"""Sight measures only the lines in reach, and says the same as measuring every line.

A side's spotting (:func:`rules.sight.spotting.spot`) and both sides' spotting kept up to date
(:class:`rules.sight.spotting.SightTracker`) measure the terrain on the lines short enough for one
of the two units to make the other out, and, for an enemy unit not seen, the lines from the
nearest units outwards until one is clear. These tests hold them against the whole matrix of
sight of every unit to every enemy unit (``Battlefield.visibility_matrix`` without friendly
units), on battles with the armies in contact, hidden units and units that have fired.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generate import contact_battle, scaled_battle
from rules.battle.words import Marker
from rules.battlefield.field import Battlefield
from rules.sight.spotting import (
    OPEN_IN,
    REASON_SEARCH_FACTOR,
    SightTracker,
    spot,
    spotting_limit_in,
)
from rules.tables import load_tables

T = load_tables()


def _dense(battle, side):
    """Who sees whom, from every line measured: (seen_by, nearest clear within the search)."""
    viewers = battle.oob.in_play(side)
    targets = battle.oob.in_play(battle.oob.enemy_of(side))
    clear = Battlefield(battle, T).visibility_matrix(viewers, targets, friendly=False).visible
    vx = np.array([[u.x, u.y] for u in viewers])
    tx = np.array([[u.x, u.y] for u in targets])
    dist = np.hypot(vx[:, None, 0] - tx[None, :, 0], vx[:, None, 1] - tx[None, :, 1])
    seen_by, nearest = {}, {}
    cap = REASON_SEARCH_FACTOR * float(T.value(OPEN_IN))
    for j, t in enumerate(targets):
        lim = spotting_limit_in(t, T)
        who = [viewers[i].id for i in range(len(viewers)) if clear[i, j] and dist[i, j] <= lim + 1e-9]
        if who:
            seen_by[t.id] = tuple(who)
            continue
        ok = clear[:, j] & (dist[:, j] <= cap + 1e-9)
        nearest[t.id] = viewers[int(np.argmin(np.where(ok, dist[:, j], np.inf)))].id if ok.any() else None
    return seen_by, nearest


def _with_hidden_and_fired(battle, every: int):
    """Every ``every``-th unit hidden, and every ``every``-th (offset) under its Smoke marker."""
    units = dict(battle.units)
    for k, (uid, u) in enumerate(sorted(units.items())):
        if k % every == 0:
            units[uid] = replace(u, hidden=True)
        elif k % every == 1:
            units[uid] = u.with_markers(add=[Marker.SMOKE])
    return replace(battle, oob=replace(battle.oob, units=units))


@pytest.mark.parametrize(
    "battle",
    [contact_battle(150), _with_hidden_and_fired(contact_battle(200), 7), scaled_battle(200)],
    ids=["in contact", "hidden and fired", "far apart"],
)
@pytest.mark.parametrize("side", ["union", "csa"])
def test_a_sides_spotting_is_that_of_every_line_measured(battle, side):
    seen_by, nearest = _dense(battle, side)
    got = spot(battle, side, T)
    assert dict(got.seen_by) == seen_by
    assert set(got.unseen) == set(nearest)
    for uid, want in nearest.items():
        if want is not None:  # the nearest unit with a clear line, and how far it is
            assert got.unseen[uid].nearest == want
            assert "with a clear line of sight" in got.unseen[uid].reason
        else:  # no clear line within the search: what blocks the nearest unit's view, or how far it is
            assert got.unseen[uid].reason.startswith("from ") or "the nearest" in got.unseen[uid].reason


def test_both_sides_kept_up_to_date_see_what_every_line_gives():
    battle = _with_hidden_and_fired(contact_battle(150), 5)
    tracker = SightTracker(battle, T)
    for side in ("union", "csa"):
        assert tracker.seen(side) == frozenset(_dense(battle, side)[0])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    moves=st.lists(
        st.tuples(st.integers(0, 149), st.floats(-12, 12), st.floats(-12, 12)), min_size=1, max_size=6
    )
)
def test_spotting_after_moves_is_that_of_every_line_measured(moves):
    battle = contact_battle(150)
    tracker = SightTracker(battle, T)
    ids = sorted(u.id for u in battle.oob.in_play())
    for k, dx, dy in moves:
        u = battle.unit(ids[k % len(ids)])
        x = min(max(u.x + dx, 0.0), battle.table_width_in)
        y = min(max(u.y + dy, 0.0), battle.table_height_in)
        battle = battle.with_unit(u.moved_to(x, y))
        tracker.update(battle, {u.id})
    for side in ("union", "csa"):
        seen_by, _ = _dense(battle, side)
        assert tracker.seen(side) == frozenset(seen_by)
        assert spot(battle, side, T).seen == frozenset(seen_by)


def test_past_twice_the_spotting_distance_the_reason_is_what_blocks_the_nearest_units_view():
    """The nearest unit with a clear line is looked for within twice the 48" a unit is made out
    at: a line further off is not measured, and the reason is how far the nearest unit is."""
    from rules.battle.battle import Battle

    base = contact_battle(150)
    union, csa = base.oob.in_play("union")[0], base.oob.in_play("csa")[0]
    far = Battle(
        "far",
        replace(base.oob, units={union.id: union.moved_to(10, 5), csa.id: csa.moved_to(10, 115)}),
        active_side="union",
        table_width_in=40,
        table_height_in=120,
    )
    got = spot(far, "union", T).unseen[csa.id]
    assert (
        got.reason == f'{union.name}, the nearest Union unit, is 110.0" away: a unit is made out within 48"'
    )
    assert got.rule is not None and got.nearest == union.id
    near = replace(far, oob=replace(far.oob, units={**far.units, csa.id: csa.moved_to(10, 90)}))
    got = spot(near, "union", T).unseen[csa.id]
    assert f'{union.name}, the nearest Union unit with a clear line of sight, is 85.0" away' in got.reason


def test_lines_measured_in_batches_say_what_one_batch_of_every_line_says(monkeypatch):
    """Sight lines are measured a few thousand at a time (the arrays of one batch stay in the
    processor's cache): cut into batches of any size, the lines say the same as in one."""
    from rules.battlefield import line_of_sight

    battle = _with_hidden_and_fired(contact_battle(150), 6)
    rows, cols = battle.oob.in_play("union"), battle.oob.in_play("csa")
    bf = Battlefield(battle, T)
    pa, pb = np.nonzero(np.ones((len(rows), len(cols)), dtype=bool))
    monkeypatch.setattr(line_of_sight, "_PAIRS_AT_ONCE", len(pa) + 1)
    whole = bf.terrain_clear_pairs(rows, cols, pa, pb)
    assert whole.any() and not whole.all()
    for size in (1, 7, 1000):
        monkeypatch.setattr(line_of_sight, "_PAIRS_AT_ONCE", size)
        assert np.array_equal(bf.terrain_clear_pairs(rows, cols, pa, pb), whole), size


def test_the_cycle_collector_is_paused_while_sight_is_measured_and_runs_again_after():
    """Measuring thousands of lines at once held arrays of shapely lines that every run of the
    cycle collector walked; the batches make no cycles, so the collector waits until they end."""
    import gc

    battle = contact_battle(600)
    rows, cols = battle.oob.in_play("union"), battle.oob.in_play("csa")
    bf = Battlefield(battle, T)
    pa, pb = np.nonzero(np.ones((len(rows), len(cols)), dtype=bool))
    pa, pb = pa[:20_000], pb[:20_000]
    runs = []

    def count(phase, info):
        if phase == "start":
            runs.append(info["generation"])

    gc.callbacks.append(count)
    try:
        bf.terrain_clear_pairs(rows, cols, pa, pb)
        during = len(runs)
        bf.visibility_matrix(rows[:150], cols[:150], friendly=False)  # every line of 150 by 150
        during_matrix = len(runs) - during
        [[] for _ in range(5_000)]  # containers made after it: the collector runs as usual
    finally:
        gc.callbacks.remove(count)
    assert during == 0 and during_matrix == 0 and len(runs) > 0 and gc.isenabled()
