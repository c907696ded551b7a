"""The phase checklist on the demo battle (Oak Ridge), phase by phase, against a turn played by hand;
and on the melee of chapter 06's Example 1, whose Phase 4 cannot end while the melee waits.

The checklist is asked of the rules (rules.turn.checklist); the game gives it the battle as the phase
began (storage.checklist), which tells a charge or a change of formation from a unit that did nothing.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.actions import ACTION_TYPES, Action, ChangeFormation, EndTurn, MoveUnit, NextPhase, Override
from rules.battle.words import BrigadierStatus, Marker, Phase
from rules.dice import TableDice
from rules.errors import IllegalAction
from rules.turn.checklist import Item, ItemKind, LeftUndone, best_target, checklist
from storage.checklist import left_open_items, open_items, phase_began_after, phase_change_step
from storage.game import Game
from storage.scenario import load_demo


@pytest.fixture
def demo(tmp_path):
    g = Game.create(tmp_path / "oak.sqlite", load_demo(), seed=1862)
    yield g
    g.close()


def kinds(items):
    return sorted((i.kind, i.unit_id) for i in items)


CSA_UNITS = ["ga8", "nc28", "nc7", "va4", "va5"]


def test_phase_1_of_the_demo_has_nothing_open(demo):
    assert demo.battle.phase == Phase.COMMAND and demo.battle.active_side == "csa"
    assert open_items(demo) == ()


def test_phase_2_lists_every_unit_not_moved_and_the_enemy_pip_held_in_reserve(demo):
    demo.do(NextPhase())
    items = open_items(demo)
    moves = [i for i in items if i.kind == ItemKind.MOVE]
    assert sorted(i.unit_id for i in moves) == CSA_UNITS
    va4 = next(i for i in moves if i.unit_id == "va4")
    # the allowance of a line, from the club's movement table, with the table's citation
    assert va4.text == '4th Virginia has not moved: 6" of march in line'
    assert va4.rule == demo.tables.entry("movement.rate.line").citation
    ga8 = next(i for i in moves if i.unit_id == "ga8")
    assert "assault column" in ga8.text and ga8.phase == "maneuver"
    # Meredith reserved a pip in the last Union Phase 1 (the scenario says so): it serves only the
    # reactions of this phase and lapses at the end of the Confederate turn (RULE-04-1.3)
    (pips,) = [i for i in items if i.kind == ItemKind.RESERVED_PIPS]
    assert pips.brigade_id == "iron" and pips.rule == "RULE-04-1.3"
    assert "Meredith" in pips.text and "1 reserved Staff Pip" in pips.text
    assert pips.unit_id in {u.id for u in demo.battle.oob.units_of_brigade("iron")}


def test_a_brigade_not_yet_on_the_field_has_no_reserved_pip_on_the_list(tmp_path):
    """Vincent's brigade arrives on turn 3 of the Round Tops: until then its reserved pip can serve
    no reaction, and the Confederate checklist does not list it; Graham's, on the table, is."""
    from storage.game import Game
    from storage.scenario import load_bundled

    game = Game.create(tmp_path / "round_tops.sqlite", load_bundled("gettysburg_day2"))
    try:
        game.do(NextPhase())
        held = {i.brigade_id for i in open_items(game) if i.kind == ItemKind.RESERVED_PIPS}
        assert game.battle.brigades["vincent"].staff_pips_reserved == 1
        assert "graham" in held and "vincent" not in held
        assert all(any(u.in_play for u in game.battle.oob.units_of_brigade(b)) for b in held)
    finally:
        game.close()


def test_a_unit_that_has_moved_leaves_the_list_and_comes_back_when_the_march_is_undone(demo):
    demo.do(NextPhase())
    demo.do(MoveUnit("va5", 50.0, 26.0, mode="march"))
    assert demo.battle.unit("va5").y == 26.0
    assert "va5" not in [i.unit_id for i in open_items(demo)]
    # a march of 2" of its 6": it could still move, but it has moved, and leaves the list
    demo.undo()
    assert "va5" in [i.unit_id for i in open_items(demo) if i.kind == ItemKind.MOVE]


def test_a_change_of_formation_or_a_placement_is_an_act_of_the_phase_too(demo):
    demo.do(NextPhase())
    demo.do(ChangeFormation("va4", "assault_column"))
    demo.do(MoveUnit("nc7", 60.0, 33.0, mode="place", reason="set up by the scenario's notes"))
    left = [i.unit_id for i in open_items(demo) if i.kind == ItemKind.MOVE]
    assert "va4" not in left and "nc7" not in left and "va5" in left
    # without the battle as the phase began, only the march record speaks: both would be listed
    bare = [i.unit_id for i in checklist(demo.battle, demo.tables) if i.kind == ItemKind.MOVE]
    assert "va4" in bare and "nc7" in bare


def test_a_destroyed_unit_never_appears(demo):
    demo.do(Override("unit", "nc28", {"stands": 0}, "routed off the table"))
    for _ in range(3):
        demo.do(NextPhase())
        assert "nc28" not in {u for i in open_items(demo) for u in i.units}
        assert "nc28" not in {u for i in left_open_items(demo, end_turn=True) for u in i.units}


def test_phase_3_lists_each_unit_that_may_still_fire_with_its_best_target(demo):
    from rules.legality import allowed, shoot_targets

    demo.do(NextPhase())
    demo.do(NextPhase())
    assert demo.battle.phase == Phase.RANGED
    fire = {i.unit_id: i for i in open_items(demo) if i.kind == ItemKind.FIRE}
    assert fire  # the Confederates face the ridge
    for uid, item in fire.items():
        legal = allowed(shoot_targets(demo.battle, uid, demo.tables))
        assert legal, uid
        assert item.other_id in {o.unit_id for o in legal}
        assert demo.battle.unit(item.other_id).name in item.text
    # every unit of the side that may fire at a legal target is listed, and no other
    listed = {
        u.id for u in demo.battle.oob.in_play("csa") if allowed(shoot_targets(demo.battle, u.id, demo.tables))
    }
    assert set(fire) == listed
    # the 4th Virginia fires at its best target: it leaves the list (Fired, RULE-04-3.4)
    from rules.shooting.shoot import Shoot

    va4 = fire["va4"]
    demo.do(Shoot.on_table(demo.battle, "va4", va4.other_id, demo.tables))
    assert demo.battle.unit("va4").has(Marker.FIRED)
    assert "va4" not in [i.unit_id for i in open_items(demo)]


def test_best_target_is_the_one_the_volley_would_hurt_most_where_the_firer_may_choose():
    """An enfilade target may be fired on past a closer one (RULE-03-5.7): the best is the one the
    exact odds say loses most stands."""
    from rules.battle.battle import Battle
    from rules.battle.order_of_battle import Brigade, Brigadier, OrderOfBattle, Side
    from rules.legality import allowed, shoot_targets
    from rules.shooting.shoot import measure_volley
    from rules.shooting.volley_odds import volley_odds
    from rules.tables import load_tables
    from rules.turn.checklist import best_target
    from tests.rules.conftest import foot

    t = load_tables()
    units = [
        foot("wis2", 30, 30, 0.0, name="2nd Wisconsin"),
        foot("va4", 30, 24, 180.0, side="csa", name="4th Virginia", stands=1),
        # side-on to the Wisconsin behind the 4th Virginia: enfilade on its flank
        foot("va5", 30, 20, 90.0, side="csa", name="5th Virginia"),
    ]
    oob = OrderOfBattle(
        sides=(Side("union", "Union"), Side("csa", "Confederacy")),
        brigades={
            "ub": Brigade("ub", "U", "union", Brigadier("M")),
            "cb": Brigade("cb", "C", "csa", Brigadier("G")),
        },
        units={u.id: u for u in units},
    )
    b = Battle("b", oob, active_side="union", phase=Phase.RANGED)
    legal = allowed(shoot_targets(b, "wis2", t))
    found = best_target(b, "wis2", t)
    assert found is not None
    best, n = found
    assert n == len(legal) == 2
    odds = {
        o.unit_id: volley_odds(b, measure_volley(b, "wis2", o.unit_id, t), t).expected_stands_lost
        for o in legal
    }
    assert odds[best.unit_id] == max(odds.values()) and odds["va4"] != odds["va5"]
    # the closest is the 4th Virginia, down to its last stand: the 5th loses more, and is the best
    assert legal[0].unit_id == "va4" and best.unit_id == "va5"


def test_end_turn_lists_what_every_phase_left_would_leave_undone(demo):
    demo.do(NextPhase())
    items = left_open_items(demo, end_turn=True)
    phases = list(dict.fromkeys(i.phase for i in items))
    assert phases == ["maneuver", "ranged"]
    assert sorted(i.unit_id for i in items if i.kind == ItemKind.MOVE) == CSA_UNITS
    # Phase 3 as it will stand when it is reached: the same firers the rules list there
    ranged = [i for i in items if i.phase == "ranged"]
    after = demo.battle
    from rules.turn.sequence import next_phase

    after, _ = next_phase(after, demo.tables)
    assert kinds(ranged) == kinds(checklist(after, demo.tables))
    # Next phase leaves only Phase 2's items
    assert {i.phase for i in left_open_items(demo)} == {"maneuver"}


def test_the_items_skipped_are_logged_in_the_same_step_as_the_phase_change(demo):
    demo.do(NextPhase())
    items = left_open_items(demo)
    events = demo.do_step(phase_change_step(NextPhase(), items))
    assert [e.type for e in events] == ["left_undone", "next_phase"]
    rec = events[0]
    assert rec.phase == "maneuver" and rec.changes.empty
    assert len(rec.steps) == len(items)
    assert rec.steps[0].text.startswith("Left undone (Phase 2: Active Maneuver & Assault): 4th Virginia")
    assert rec.steps[0].rule == items[0].rule and rec.steps[0].units == ("va4",)
    assert demo.battle.phase == Phase.RANGED
    # one Undo takes back both
    demo.undo_step()
    assert demo.battle.phase == Phase.MANEUVER and demo.last_seq == 1
    # the record reads back from the save as it was written
    demo.redo_step()
    path = demo.path
    demo.close()
    with Game.open(path) as again:
        back = again.events()[1].action
        assert isinstance(back, LeftUndone) and back.left() == list(items)


def test_a_record_of_items_left_is_refused_when_malformed():
    from rules.tables import load_tables

    b = load_demo()
    t = load_tables()
    from rules.actions import resolve
    from rules.dice import SeededDice

    for bad in ((), ({"kind": "move"},), ({"kind": "move", "phase": "x", "text": "t", "colour": 1},), ("x",)):
        with pytest.raises(IllegalAction):
            resolve(b, LeftUndone(bad), SeededDice(1), t)
    assert ACTION_TYPES["left_undone"] is LeftUndone
    good = Item("move", "maneuver", "4th Virginia has not moved", "RULE-03-2.5", "va4")
    assert Action.from_dict(LeftUndone.of([good]).to_dict()).left() == [good]


def test_a_phase_change_with_nothing_left_is_the_phase_change_alone():
    assert phase_change_step(EndTurn(), []) == [EndTurn()]


# -- Phase 4 and the melee of Example 1 -------------------------------------------------------------


@pytest.fixture
def example(tmp_path):
    from tests.rules.melee.test_examples_ch06 import example_1

    g = Game.create(tmp_path / "ex1.sqlite", example_1(), seed=1)
    yield g
    g.close()


def test_a_melee_due_blocks_phase_4_and_its_leader_loss_roll_is_owed(example):
    from rules.assault.actions import ChargeApproach
    from rules.melee.melee import ResolvePendingMelee, pending_melees

    g = example
    assert g.battle.phase == Phase.MANEUVER
    # the charge of Example 1: the volley costs the 4th Virginia a stand, Garnett attached
    g.do(ChargeApproach("va4", "wis2"), TableDice([2, 4, 1, 6, 5, 5]))
    assert "va4" not in [i.unit_id for i in open_items(g) if i.kind == ItemKind.MOVE]
    (pm,) = pending_melees(g.battle)
    # End turn from Phase 2 stops at Phase 4, where the melee blocks
    ahead = left_open_items(g, end_turn=True)
    assert [i for i in ahead if i.blocks][0].melee_id == pm.id
    g.do(NextPhase())
    g.do(NextPhase())
    assert g.battle.phase == Phase.MELEE
    items = open_items(g)
    melee = [i for i in items if i.kind == ItemKind.MELEE]
    assert [(i.unit_id, i.other_id, i.blocks, i.rule) for i in melee] == [
        ("va4", "wis2", True, "RULE-06-1.1")
    ]
    (owed,) = [i for i in items if i.kind == ItemKind.CHECK]
    assert owed.unit_id == "va4" and "Leader Loss roll" in owed.text and "1 stand" in owed.text
    # the rules refuse to leave the phase, as the checklist says
    with pytest.raises(IllegalAction, match="RULE-06-1.1"):
        g.do(NextPhase())
    g.do(ResolvePendingMelee(pm.id), TableDice([5, 5, 3, 4]))
    left = open_items(g)
    assert not [i for i in left if i.kind in (ItemKind.MELEE, ItemKind.CHECK)]


def test_phase_1_names_a_brigade_whose_brigadier_is_lost_and_the_disordered_units(demo):
    demo.do(Override("brigade", "garnett", {"brigadier_status": "killed"}, "Leader Loss at the table"))
    demo.do(Override("unit", "va5", {"markers": "disorder"}, "disordered by the hedge"))
    items = open_items(demo)
    assert kinds(items) == [("umpire", "va4"), ("umpire", "va5")]
    lost = next(i for i in items if i.brigade_id == "garnett" and "Brigadier" in i.text)
    assert demo.battle.brigades["garnett"].brigadier.status == BrigadierStatus.KILLED
    assert "Garnett" in lost.text and "killed" in lost.text
    dis = next(i for i in items if i.unit_id == "va5")
    assert "Disordered" in dis.text and dis.rule == "RULE-06-1.3"


def test_the_phase_began_after_the_last_entry_of_another_phase(demo):
    assert phase_began_after(demo) == 0
    demo.do(NextPhase())
    demo.do(MoveUnit("va5", 50.0, 26.0, mode="march"))
    assert phase_began_after(demo) == 1
    demo.do(EndTurn())  # the Union's Phase 1
    assert phase_began_after(demo) == 3
    demo.do(EndTurn())  # game turn 2, with no entry yet: the phase began after turn 1's last
    assert demo.battle.turn == 2 and phase_began_after(demo) == demo.last_seq == 4
    demo.do(NextPhase())
    assert phase_began_after(demo) == 5


def test_the_phase_began_where_reading_the_entries_back_finds_it(demo):
    """The journal's index of turns gives the entry a reading of the turn's entries, last first,
    gives: the last one made in another game turn, side or phase."""

    def by_reading() -> int:
        b = demo.battle
        here = (b.turn, b.active_side, b.phase.value)
        for turn in (b.turn, b.turn - 1):
            for ev in reversed(demo.events(turn) if turn >= 1 else []):
                if (ev.turn, ev.side, ev.phase) != here:
                    return ev.seq
        return 0

    for action in (
        NextPhase(),
        MoveUnit("va5", 50.0, 26.0, mode="march"),
        NextPhase(),
        EndTurn(),
        EndTurn(),  # game turn 2, with no entry yet
        NextPhase(),
    ):
        demo.do(action)
        assert phase_began_after(demo) == by_reading()
    for _ in range(3):
        demo.undo_step()
        assert phase_began_after(demo) == by_reading()


def test_undo_back_across_phases_and_redo_finds_every_phase_start_without_replaying(demo, monkeypatch):
    """The battle as each phase began is kept for the phases a game turn or two holds: Undo back
    over several phases, then Redo a step at a time (the checklist asking at every step when the
    phase began), replays nothing from the journal."""
    unit = next(iter(demo.battle.units))

    def rulings() -> None:  # entries within the phase (the umpire's, allowed in every phase)
        for _ in range(3):
            hits = demo.battle.units[unit].micro_hits
            demo.do(Override("unit", unit, {"micro_hits": (hits + 1) % 2}, "ruled so"))

    for _ in range(2):  # two game turns of phases, each side's ended
        for _ in range(2):
            for _ in range(3):
                rulings()
                demo.do(NextPhase())
            rulings()
            demo.do(EndTurn())
    top = demo.last_seq
    replayed: list[int] = []
    real = Game._replayed
    monkeypatch.setattr(Game, "_replayed", lambda self, seq: replayed.append(seq) or real(self, seq))
    for _ in range(2):  # the second time round, as an umpire going back and forth
        demo.undo_to(top - 50)
        replayed.clear()
        open_items(demo)
        while demo.can_redo:
            demo.redo_step()
            open_items(demo)
    assert replayed == []
    assert demo.last_seq == top


# -- the turn summary ---------------------------------------------------------------------------


def test_the_turn_summary_has_a_short_left_undone_line_per_phase(demo):
    from reports.summary import build_turn_summary

    demo.do(NextPhase())
    demo.do(MoveUnit("va5", 50.0, 26.0, mode="march"))
    demo.do_step(phase_change_step(NextPhase(), left_open_items(demo)))
    demo.do_step(phase_change_step(EndTurn(), left_open_items(demo, end_turn=True)))
    s = build_turn_summary(demo, 1)
    assert [(line.side, line.phase) for line in s.left_undone] == [
        ("Confederate", "Phase 2: Active Maneuver & Assault"),
        ("Confederate", "Phase 3: Ranged Combat"),
    ]
    p2, p3 = s.left_undone
    assert p2.text == (
        "not moved: 4th Virginia, 7th North Carolina, 28th North Carolina, 8th Georgia; "
        "reserved pips not spent: Meredith"
    )
    assert p3.text.startswith("could still fire: ") and "5th Virginia" in p3.text
    assert len(p2.items) == 5 and all("(" in t for t in p2.items)  # each item in full, with its rule
    # the Union's turn 1 has begun, with nothing left undone yet: no line for it
    assert all(line.side == "Confederate" for line in s.left_undone)


def test_the_best_targets_kept_between_questions_follow_the_battle(demo):
    """Phase 3's answers are kept while nothing near a firer changes; a change near it asks again."""
    import rules.turn.fire_items as fire_items

    demo.do(NextPhase())
    demo.do(NextPhase())
    first = {i.unit_id: i.other_id for i in open_items(demo) if i.kind == ItemKind.FIRE}
    assert first["va4"] == "batb4us"
    demo.do(Override("unit", "batb4us", {"stands": 0}, "the guns are silenced"))
    kept = open_items(demo)
    assert "batb4us" not in {i.other_id for i in kept}
    fire_items._FIRE_MEMO.clear()
    assert open_items(demo) == kept  # the same as asked afresh


def test_a_state_met_again_after_an_undo_or_a_redo_is_answered_as_it_was(demo, monkeypatch):
    """Phase 3's items of a whole state are kept: the undo of a volley and its redo find the
    items of the states they return to without working them out again, the same items as asked
    afresh."""
    import rules.turn.fire_items as fire_items

    demo.do(NextPhase())
    demo.do(NextPhase())
    before = open_items(demo)
    demo.do(Override("unit", "batb4us", {"stands": 0}, "the guns are silenced"))
    after = open_items(demo)
    assert before != after
    worked: list[int] = []
    real = fire_items._ranged_state_items
    monkeypatch.setattr(fire_items, "_ranged_state_items", lambda *a: worked.append(1) or real(*a))
    demo.undo()
    assert open_items(demo) == before
    demo.redo()
    assert open_items(demo) == after
    assert worked == []  # both states known
    fire_items._FIRE_MEMO.clear()
    assert open_items(demo) == after  # the same as asked afresh
    assert worked == [1]


def test_in_a_big_battle_each_firer_is_asked_about_the_units_near_it_with_the_same_answers():
    """A generated battle of 80 units among 120 terrain features, in Phase 3: the checklist asks
    the rules about each firer's neighbourhood only, and finds exactly the best targets the rules
    give when asked about the whole battle."""
    from dataclasses import replace

    import rules.turn.fire_items as fire_items
    from benchmarks.generate import big_battle
    from rules.tables import load_tables
    from rules.turn.checklist import best_target

    t = load_tables()
    battle = replace(big_battle(units_per_side=40, features=120, seed=7), phase=Phase.RANGED)
    # bring the lines within musket range of each other
    moved = [replace(u, y=u.y - 6.0) for u in battle.oob.in_play("union")]
    battle = battle.with_units(*moved)
    fire_items._FIRE_MEMO.clear()
    items = {i.unit_id: i.other_id for i in checklist(battle, t) if i.kind == ItemKind.FIRE}
    whole = {}
    for u in battle.oob.in_play("union"):
        found = best_target(battle, u.id, t)
        if found is not None:
            whole[u.id] = found[0].unit_id
    assert len(whole) >= 5
    assert items == whole


def test_after_a_ruling_on_micro_hits_the_targets_are_not_asked_again_and_the_best_is_as_asked_afresh(
    monkeypatch,
):
    """Which targets a firer may fire on does not depend on micro-hits: after rulings on the
    micro-hits of the targets and firers, the checklist asks the rules only which target is best,
    and finds the items the rules give asked afresh."""
    from dataclasses import replace

    import rules.legality as legality
    import rules.turn.fire_items as fire_items
    from benchmarks.generate import big_battle
    from rules.tables import load_tables

    t = load_tables()
    battle = replace(big_battle(units_per_side=40, features=120, seed=7), phase=Phase.RANGED)
    battle = battle.with_units(*[replace(u, y=u.y - 6.0) for u in battle.oob.in_play("union")])
    fire_items._FIRE_MEMO.clear()
    before = [i for i in checklist(battle, t) if i.kind == ItemKind.FIRE]
    assert len(before) >= 5
    hit = {i.other_id for i in before} | {i.unit_id for i in before[:3]}
    ruled = battle.with_units(*[replace(battle.unit(u), micro_hits=1) for u in sorted(hit)])
    asked: list[str] = []
    real = legality.shoot_targets
    monkeypatch.setattr(
        legality, "shoot_targets", lambda b, f, *a, **k: asked.append(f) or real(b, f, *a, **k)
    )
    after = checklist(ruled, t)
    assert asked == []  # every firer's targets known: only the best among them worked out again
    # each item's target is the best target the rules give, asked of the whole battle
    fire = [i for i in after if i.kind == ItemKind.FIRE]
    assert {i.unit_id: i.other_id for i in fire} == {
        i.unit_id: best_target(ruled, i.unit_id, t)[0].unit_id for i in fire
    }
    fire_items._FIRE_MEMO.clear()
    assert checklist(ruled, t) == after
    assert asked  # asked afresh, the rules were asked


def test_rule_03_4_3_a_regiment_in_dead_ground_is_not_listed_to_fire_at_the_forward_slope():
    from dataclasses import replace

    import rules.turn.fire_items as fire_items
    from tests.rules.battlefield.test_line_of_sight import T, oak_ridge

    b = oak_ridge()
    b = replace(b.with_unit(b.unit("va4").moved_to(12, 25.0)), phase=Phase.RANGED)
    fire_items._FIRE_MEMO.clear()
    assert "wis2" not in {i.unit_id for i in checklist(b, T) if i.kind == ItemKind.FIRE}
    assert best_target(b, "wis2", T) is None
    # moved up onto the crest, it is listed with the Virginians as its target
    b = b.with_unit(b.unit("wis2").moved_to(12, 20.0))
    fire_items._FIRE_MEMO.clear()
    assert {i.unit_id: i.other_id for i in checklist(b, T) if i.kind == ItemKind.FIRE}["wis2"] == "va4"


def test_the_checklist_worked_out_a_piece_at_a_time_gives_the_same_items(demo):
    """Phase 3's items worked out a firer at a time (a window works on them between its paints)
    are those asked in one go; a piece stops once its time is up, and what it found is kept."""
    import rules.turn.checklist as cl
    import rules.turn.fire_items as fire_items

    demo.do(NextPhase())
    demo.do(NextPhase())
    fire_items._FIRE_MEMO.clear()
    work = cl.ChecklistWork(demo.battle, demo.tables)
    pieces = 0
    while not work.work(0.0):  # no time at all: one question a piece
        pieces += 1
        assert work.items is None and not work.done
    assert pieces >= 3  # one before the firers, and one a firer asked about
    found = work.items
    assert found and all(i.kind == "fire" for i in found)
    fire_items._FIRE_MEMO.clear()
    assert found == cl.checklist(demo.battle, demo.tables)
    # what the pieces found is kept: the same battle asked again has nothing left to work out
    again = cl.ChecklistWork(demo.battle, demo.tables)
    assert again.work(0.0) and again.items == found


def test_a_units_own_markers_do_not_ask_again_about_the_firers_of_its_side_around_it(demo, monkeypatch):
    """A unit of the side to act that fired, or was Disordered, stands where it stood: the firers
    of its side around it fire past it as before, and are not asked about again; the unit itself
    is. What is listed is what the rules give when asked afresh."""
    import rules.legality as legality
    import rules.turn.fire_items as fire_items

    demo.do(NextPhase())
    demo.do(NextPhase())
    firers = {i.unit_id for i in open_items(demo)}
    assert {"va4", "va5"} <= firers
    asked: list[str] = []
    real = legality.shoot_targets
    monkeypatch.setattr(
        legality, "shoot_targets", lambda b, uid, t, *a, **k: asked.append(uid) or real(b, uid, t, *a, **k)
    )
    demo.do(Override("unit", "va5", {"markers": ["disorder"]}, "ruled so"))
    after = open_items(demo)
    assert asked == ["va5"]  # its own question only: none of the others around it
    fire_items._FIRE_MEMO.clear()
    assert open_items(demo) == after
    # a unit of the side moved stands in another place: asked again, with the same answers as
    # asked afresh
    asked.clear()
    va5 = demo.battle.unit("va5")
    demo.do(MoveUnit("va5", va5.x + 1.0, va5.y))
    moved = open_items(demo)
    assert "va5" in asked
    fire_items._FIRE_MEMO.clear()
    assert open_items(demo) == moved


_CHANGES = st.lists(
    st.tuples(
        st.integers(0, 10_000),  # which unit
        st.sampled_from(["move", "turn", "stands", "fired", "disorder", "engaged", "skirmish"]),
        st.floats(-6.0, 6.0, allow_nan=False),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes=_CHANGES)
def test_the_kept_answers_follow_any_change_as_asking_afresh_does(changes):
    """Phase 3 of a generated battle in contact, changed one unit at a time (moved, turned, a stand
    lost, marked Fired, Disordered or Engaged, thrown out as skirmishers): after each change the
    best targets the checklist finds with what it kept are those the rules give asked about the
    whole battle. What a firer's answer depends on (the enemies it faces and the ground between)
    is never missed."""
    from dataclasses import replace

    import rules.turn.fire_items as fire_items
    from rules.battle.words import Formation

    battle, t = _contact_battle()
    fire_items._FIRE_MEMO.clear()
    assert len(checklist(battle, t)) >= 5  # firers with targets, in contact
    units = sorted(battle.oob.in_play(), key=lambda u: u.id)
    for which, what, amount in changes:
        u = battle.unit(units[which % len(units)].id)
        if what == "move":
            v = replace(u, x=min(max(u.x + amount, 2.0), battle.table_width_in - 2.0))
        elif what == "turn":
            v = replace(u, facing_deg=(u.facing_deg + 15.0 * amount) % 360)
        elif what == "stands":
            v = replace(u, stands=max(1, u.stands - 1))
        elif what == "skirmish" and u.kind.value == "infantry":
            v = replace(
                u, formation=Formation.SKIRMISH if u.formation != Formation.SKIRMISH else Formation.LINE
            )
        else:
            marker = {"fired": Marker.FIRED, "disorder": Marker.DISORDER, "engaged": Marker.ENGAGED}.get(what)
            v = u if marker is None else u.with_markers(add=[marker])
        battle = battle.with_unit(v)
        kept = {i.unit_id: i.other_id for i in checklist(battle, t) if i.kind == ItemKind.FIRE}
        assert kept == _whole_battle_targets(battle, t), (which, what, amount)


def _whole_battle_targets(battle, t) -> dict[str, str]:
    """Each unit that may fire, and its best target, the rules asked about the whole battle."""
    from rules.legality import may_fire

    out = {}
    for u in battle.oob.in_play(battle.active_side):
        if may_fire(battle, u.id, t) is None:
            found = best_target(battle, u.id, t)
            if found is not None:
                out[u.id] = found[0].unit_id
    return out


def _contact_battle():
    from dataclasses import replace

    from benchmarks.generate import big_battle
    from rules.tables import load_tables

    t = load_tables()
    battle = replace(big_battle(units_per_side=16, features=40, seed=11), phase=Phase.RANGED)
    moved = [replace(u, y=u.y - 6.0) for u in battle.oob.in_play("union")]
    return battle.with_units(*moved), t
