"""The turn's records (Battle.extra) are typed, and saves keep them in the shape they always had."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from rules.actions import MoveUnit, NextPhase, mark_stalled, resolve
from rules.battle.battle import Battle
from rules.battle.events import Changes, apply, diff
from rules.battle.melee_situation import Contact, PendingMelee
from rules.battle.terrain import TerrainType
from rules.battle.turn_records import Breakthrough, MoveRecord, ReactionRecord, TurnRecords
from rules.battle.words import Phase
from rules.dice import TableDice
from rules.errors import InvariantError, RulesError
from rules.melee.melee import MeleeResult, MeleeSituation, Outcome, _with_breakthrough, add_pending_melee
from rules.reactions.declare import Threat, Window, record_reaction
from rules.tables import load_tables
from tests.rules.conftest import battle_of, foot

T = load_tables()
ROOT = Path(__file__).resolve().parents[3]

# Written by the code before the records were typed, from the play in ``_played`` below: a save
# of that time holds exactly this under "extra".
OLD_EXTRA = json.loads(
    '{"movement": {"wis": {"spent_in": 3.0, "moved_in": 3.0, "start": [30.0, 40.0, 0.0]}}, '
    '"stalled": ["wis"], '
    '"reactions": {"turn": 1, "side": "union", "by_trigger": {"move:wis": ["va"], "charge:wis": ["ga"]}}, '
    '"pending_melees": [{"id": "t1-wis-va", "situation": {"attacker": "wis", "defender": "va", '
    '"contact": "flank", "momentum_in": 5.5, "defender_obstacle": "split_rail_fence", '
    '"defender_on_crest": false, "attacker_uphill": null, "attacker_downhill_from_crest": false, '
    '"through_abatis": false, "counter_charge": false, "refused_flank": false, '
    '"flank_anchored_on_works": false, "defender_counts_disordered": false, "defender_routed": false, '
    '"attacker_engaged": null, "defender_engaged": null}, "turn": 1, "side": "union", "due_turn": 1, '
    '"stands_lost": {"wis": 1}, "locked": false}], '
    '"breakthrough": {"unit": "wis", "turn": 1, "side": "union"}}'
)


def _start() -> Battle:
    wis, va = foot("wis", 30, 40), foot("va", 30, 20, facing=180, side="csa")
    ga = foot("ga", 50, 20, facing=180, side="csa")
    return replace(battle_of(wis, va, ga), phase=Phase.MANEUVER, active_side="union")


def _played() -> Battle:
    """A march, a stalled charger, two reactions, a pending melee and a breakthrough."""
    b = resolve(_start(), MoveUnit("wis", 30, 37, None, mode="march"), TableDice(), T).battle_after
    b = mark_stalled(b, "wis")
    b = record_reaction(b, Threat(Window.A, "wis", "va", 6.0))
    b = record_reaction(b, Threat(Window.B, "wis", "ga", 4.0, charge=True))
    situation = MeleeSituation(
        "wis",
        "va",
        contact=Contact.FLANK,
        momentum_in=5.5,
        defender_obstacle=TerrainType.SPLIT_RAIL_FENCE,
    )
    b, _ = add_pending_melee(b, situation, {"wis": 1})
    won = MeleeResult("wis", "va", b, (), Outcome.ATTACKER_WINS, 9, 3, breakthrough=True)
    return _with_breakthrough(b, won)


def test_the_rules_write_the_records_in_the_shape_saves_always_had():
    b = _played()
    assert isinstance(b.extra, TurnRecords)
    saved = b.to_dict()["extra"]
    assert json.dumps(saved) == json.dumps(OLD_EXTRA)  # the same table, in the same order
    assert Battle.from_dict(json.loads(json.dumps(b.to_dict()))).extra == b.extra


def test_an_old_saves_records_read_back_typed_and_write_back_unchanged():
    old = {**_start().to_dict(), "extra": OLD_EXTRA}
    b = Battle.from_dict(json.loads(json.dumps(old)))
    r = b.extra
    assert r.movement_of("wis") == MoveRecord(3.0, 3.0, (30.0, 40.0, 0.0)) and r.movement_of("va") is None
    assert r.has_stalled("wis") and not r.has_stalled("va")
    assert r.reactions == ReactionRecord(1, "union", {"move:wis": ("va",), "charge:wis": ("ga",)})
    assert r.reacted_to("charge:wis", 1, "union") == {"ga"}
    assert r.reacted_to("charge:wis", 1, "csa") == frozenset()  # another side's turn: nothing
    (pm,) = r.pending_melees
    assert isinstance(pm, PendingMelee) and pm.situation.contact == Contact.FLANK
    assert pm.stands_lost == {"wis": 1} and pm.situation.momentum_in == 5.5
    assert r.breakthrough == Breakthrough("wis", 1, "union") and r.breakthrough_unit(1, "union") == "wis"
    assert b.to_dict()["extra"] == OLD_EXTRA
    # as a mapping the records read as the saved table, for code that looks at them that way
    assert r["stalled"] == ["wis"] and "movement" in r and list(r) == list(OLD_EXTRA) and r == OLD_EXTRA


def test_an_old_journals_change_of_the_records_is_applied_and_undone():
    before = _start()
    old_change = Changes.from_dict(json.loads(json.dumps({"game": {"extra": [{}, OLD_EXTRA]}})))
    after = apply(before, old_change)
    assert isinstance(after.extra, TurnRecords) and after.extra.has_stalled("wis")
    assert after.to_dict()["extra"] == OLD_EXTRA
    assert apply(after, old_change, reverse=True) == before
    # and the change the rules record today is that same plain table, before and after
    assert diff(before, after).game["extra"] == ({}, OLD_EXTRA)


def test_the_end_of_the_sides_turn_clears_the_movement_and_the_stalled_and_keeps_the_rest():
    b = replace(_played(), phase=Phase.MELEE)
    b = replace(b, extra=b.extra.with_pending_melees(()))  # nothing due holds up the phase
    after = resolve(b, NextPhase(), TableDice(), T).battle_after
    assert after.phase == Phase.END
    assert set(after.to_dict()["extra"]) == {"reactions", "breakthrough"}
    assert after.extra.movement_of("wis") is None and not after.extra.has_stalled("wis")


def test_a_key_this_version_does_not_know_is_kept():
    extra = {"stalled": ["wis"], "from_a_later_version": {"x": [1, 2]}}
    b = Battle.from_dict({**_start().to_dict(), "extra": extra})
    assert b.extra.other == {"from_a_later_version": {"x": [1, 2]}}
    assert b.to_dict()["extra"] == extra
    assert mark_stalled(b, "va").to_dict()["extra"] == {**extra, "stalled": ["wis", "va"]}


@pytest.mark.parametrize(
    "extra, named",
    [
        ("not a table", "turn records"),
        ({"movement": ["wis"]}, "'movement'"),
        ({"movement": {"wis": {"spent_in": "far"}}}, "movement record of 'wis'"),
        ({"movement": {"wis": {"spent_in": 1.0, "start": [1.0, 2.0]}}}, "movement record of 'wis'"),
        ({"stalled": "wis"}, "'stalled'"),
        ({"reactions": {"turn": "1", "side": "union"}}, "'reactions'"),
        ({"reactions": {"turn": 1, "side": "union", "by_trigger": ["wis"]}}, "'reactions'"),
        ({"breakthrough": {"unit": 3, "turn": 1, "side": "union"}}, "'breakthrough'"),
        ({"pending_melees": {"id": "x"}}, "'pending_melees'"),
    ],
)
def test_a_damaged_record_is_refused_with_a_typed_error_that_names_it(extra, named):
    with pytest.raises(InvariantError, match=named) as exc:
        Battle.from_dict({**_start().to_dict(), "extra": extra})
    assert isinstance(exc.value, RulesError)


def test_the_turn_sequence_reads_the_records_without_the_modules_that_write_them():
    code = """
import sys
from dataclasses import replace
from rules.battle.battle import Battle
from rules.battle.words import Phase
from rules.tables import load_tables
from rules.turn.sequence import check_melees_resolved, next_phase
import json
b = Battle.from_dict(json.loads(sys.stdin.read()))
try:
    check_melees_resolved(b)
except Exception as exc:
    print(type(exc).__name__, "t1-wis-va" not in str(exc) and "wis against va's flank" in str(exc))
after, steps = next_phase(replace(b, extra=b.extra.with_pending_melees(())), load_tables())
print(after.phase.value, sorted(after.extra))
print(sorted(m for m in sys.modules if m in ("rules.actions", "rules.melee.melee", "rules.reactions.declare", "rules.assault.charge")))
"""
    b = replace(_played(), phase=Phase.MELEE)
    out = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(b.to_dict()),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    refused, ended, loaded = out.stdout.strip().splitlines()
    assert refused == "IllegalAction True"
    assert ended == "end ['breakthrough', 'reactions']"
    assert loaded == "[]"
