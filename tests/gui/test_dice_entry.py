"""Dice typed in from the table: how many the entry asks for before any is typed."""

from __future__ import annotations

from gui.dice_entry import DiceEntry, dry_run_check
from rules.errors import IllegalAction


def volley_then_check(dice):
    dice.roll(3, "volley")
    dice.roll(1, "discipline check")


def test_the_entry_says_how_many_dice_to_roll_and_what_for(qtbot):
    entry = DiceEntry()
    qtbot.addWidget(entry)
    entry.set_check(dry_run_check(volley_then_check))
    entry.type_dice("")
    assert entry.hint.text().startswith(
        "Roll 4 dice: 3 for the volley, then 1 for the discipline check (what they show can call "
        "for more or fewer)."
    )
    entry.type_dice("6 6 6")  # too few: still says what is needed, and why these are not enough
    assert (
        entry.hint.text().startswith("Roll 4 dice:") and "discipline check needs 1 die" in entry.hint.text()
    )
    entry.type_dice("6 6 6 1")
    assert entry.hint.text() == "The typed dice are used in the order they are asked for."
    entry.use_program()
    assert entry.hint.text().startswith("The game's own dice roll")


def test_no_dice_and_a_refusal_are_said_plainly():
    assert dry_run_check(lambda dice: None).expected() == "No dice are needed."

    def refused(dice):
        raise IllegalAction("the charge is out of range", "RULE-06-2.1")

    assert dry_run_check(refused).expected() == ""
    assert "out of range" in dry_run_check(refused)(())
