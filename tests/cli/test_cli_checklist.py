"""``brigadier pending`` prints the phase checklist the Checklist dock shows; ``next-phase`` and
``end-turn`` log what they leave undone in the same step (one ``undo`` takes both back); a melee due
in Phase 4 blocks with the rule."""

from __future__ import annotations

from rules.dice import TableDice
from storage.checklist import open_items
from storage.game import Game
from tests.cli.test_cli import journal_length, new_demo, run


def test_pending_prints_the_items_of_the_phase_with_their_rule_and_units(tmp_path, capsys):
    g = new_demo(tmp_path, capsys)
    code, out, _ = run(capsys, "pending", g)
    assert code == 0 and "Nothing is left to do in this phase." in out
    run(capsys, "next-phase", g)
    code, out, _ = run(capsys, "pending", g)
    with Game.open(g) as game:
        items = open_items(game)
    lines = out.splitlines()
    assert lines[0] == "Turn 1, Confederate: Phase 2: Active Maneuver & Assault"
    # the same list as the dock, in the same order, each with its rule
    for item, line in zip(items, lines[1:], strict=False):
        assert str(item) in line and item.unit_id in line
    assert lines[-1].startswith(f"{len(items)} items left")
    assert "va4" in out and '4th Virginia has not moved: 6" of march in line (RULE-03-2.5)' in out


def test_pending_end_turn_lists_the_phases_left(tmp_path, capsys):
    g = new_demo(tmp_path, capsys)
    run(capsys, "next-phase", g)
    code, out, _ = run(capsys, "pending", g, "--end-turn")
    assert code == 0
    assert "Phase 2: Active Maneuver & Assault\n  move" in out
    assert "Phase 3: Ranged Combat\n  fire" in out and "may still fire: best target" in out


def test_next_phase_logs_what_it_leaves_undone_and_one_undo_takes_both(tmp_path, capsys):
    g = new_demo(tmp_path, capsys)
    run(capsys, "next-phase", g)
    code, out, _ = run(capsys, "move", g, "va5", "50", "26", "--no-reactions")
    assert code == 0
    n = journal_length(g)
    code, out, _ = run(capsys, "next-phase", g)
    assert code == 0
    assert f"{n + 1}: Left undone: 5 items of Phase 2: Active Maneuver & Assault" in out
    assert "Left undone (Phase 2: Active Maneuver & Assault): 4th Virginia has not moved" in out
    assert "5th Virginia has not moved" not in out  # it marched
    assert f"{n + 2}: Next phase: Turn 1, Confederate: Phase 3" in out
    code, out, _ = run(capsys, "undo", g)
    assert f"Undone {n + 2}" in out and f"Undone {n + 1}" in out
    assert journal_length(g) == n


def test_next_phase_from_phase_4_with_a_melee_due_is_refused_with_the_rule(tmp_path, capsys):
    from rules.actions import NextPhase
    from rules.assault.actions import ChargeApproach
    from tests.rules.melee.test_examples_ch06 import example_1

    path = tmp_path / "ex1.sqlite"
    with Game.create(path, example_1(), seed=1) as game:
        game.do(ChargeApproach("va4", "wis2"), TableDice([2, 4, 1, 6, 5, 5]))
        game.do(NextPhase())
        game.do(NextPhase())
    code, out, _ = run(capsys, "pending", path)
    assert "melee" in out and "(blocks the end of the phase)" in out and "Leader Loss roll is owed" in out
    n = journal_length(path)
    code, _, err = run(capsys, "next-phase", path)
    assert code == 1 and "RULE-06-1.1" in err
    assert journal_length(path) == n
