"""A defender's answer sent from the table (a player's device) and taken by the umpire is logged as
the side's; an answer given in the umpire's dialog, or read from a save made before, is not."""

from __future__ import annotations

from dataclasses import replace

from rules.action_base import Action, resolve
from rules.battle.words import Phase
from rules.dice import SeededDice
from rules.procedure import Choice, answer_action
from rules.reactions.declare import DeclareReaction, DeclineReaction
from rules.tables import load_tables
from tests.rules.reactions.test_examples_ch04 import example_c


def _window():
    b = replace(example_c(), phase=Phase.MANEUVER)
    b = b.with_unit(b.unit("ga8").moved_to(12.0, 24))  # in the Wisconsin's flank zone, 12" off
    ga8 = b.unit("ga8")
    from rules import procedure

    proc = procedure.move_units(
        b, load_tables(), SeededDice(1), [("ga8", ga8.x + 6.0, ga8.y, ga8.facing_deg)]
    )
    inter = proc.pending
    return inter.battle, inter.window.defenders[0]


def test_an_answer_from_the_table_is_logged_as_the_sides():
    battle, offered = _window()
    tables = load_tables()
    for reaction in (None, "refuse_flank"):
        plain = answer_action(battle, offered, Choice("wis2", reaction), tables)
        sent = answer_action(battle, offered, Choice("wis2", reaction, from_table=True), tables)
        assert not plain.from_table and sent.from_table
        line = "The Union side's answer for 2nd Wisconsin, sent from the table"
        dice = SeededDice(4)
        assert line not in [s.text for s in resolve(battle, plain, SeededDice(4), tables).steps]
        assert line in [s.text for s in resolve(battle, sent, dice, tables).steps]


def test_a_reaction_saved_before_reads_as_answered_in_the_dialog():
    battle, offered = _window()
    for a in (
        answer_action(battle, offered, Choice("wis2", "refuse_flank", from_table=True), load_tables()),
        answer_action(battle, offered, Choice("wis2", None, from_table=True), load_tables()),
    ):
        d = a.to_dict()
        assert d.pop("from_table") is True  # written with the action
        old = Action.from_dict(d)
        assert isinstance(old, (DeclareReaction, DeclineReaction)) and not old.from_table
