"""Dice from the program or from the table, every roll recorded (DESIGN: dice)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import RecordedDice, Roll, SeededDice, TableDice, check_faces, parse_dice
from rules.errors import DiceError


def test_example_a_dice_typed_in_are_used_in_order_and_recorded():
    d = TableDice([3, 3, 5, 2, 6, 2])
    assert d.roll(5, "closing volley") == (3, 3, 5, 2, 6)
    assert d.roll_one("discipline check") == 2
    assert d.rolls == [Roll("closing volley", (3, 3, 5, 2, 6)), Roll("discipline check", (2,))]


def test_too_few_typed_dice_names_what_they_were_for():
    d = TableDice([4])
    with pytest.raises(DiceError, match="the closing volley needs 5 dice; 1 is left"):
        d.roll(5, "closing volley")


@pytest.mark.parametrize("bad", [[0], [7], [3, -1], [2.5], ["4"], [True]])
def test_impossible_faces_are_refused(bad):
    with pytest.raises(DiceError, match="not a face"):
        TableDice(bad)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("3 3 5 2 6", (3, 3, 5, 2, 6)),
        ("3,3,5,2,6", (3, 3, 5, 2, 6)),
        ("[3, 3, 5, 2, 6]", (3, 3, 5, 2, 6)),
        ("33526", (3, 3, 5, 2, 6)),
        (" 4 ", (4,)),
    ],
)
def test_parse_dice_reads_what_an_umpire_types(text, expected):
    assert parse_dice(text) == expected


@pytest.mark.parametrize(
    "text, words",
    [
        ("3 3 9", "not a face"),
        ("3 x 5", "'x' is not a die face"),
        ("3 3", "5 dice are needed for the volley, 2 given"),
        ("", "5 dice are needed"),
    ],
)
def test_parse_dice_rejects_bad_entry_clearly(text, words):
    with pytest.raises(DiceError, match=words):
        parse_dice(text, expected=5, purpose="volley")


@given(st.text(max_size=30))
def test_parse_dice_never_crashes(text):
    try:
        faces = parse_dice(text)
    except DiceError:
        return
    assert all(1 <= f <= 6 for f in faces)


def test_seeded_dice_are_reproducible_and_resume_from_their_state():
    a = SeededDice(1862)
    first = a.roll(10, "volley")
    rest = a.roll(10, "volley")
    b = SeededDice(1862)
    assert b.roll(10, "volley") == first
    c = SeededDice(1862, drawn=a.drawn - 10)
    assert c.roll(10, "volley") == rest
    assert SeededDice(1863).roll(10, "volley") != first


def test_seeded_dice_are_fair():
    d = SeededDice("fairness")
    counts = Counter(d.roll(60000, "test"))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    for face in range(1, 7):
        assert abs(counts[face] - 10000) < 400  # about 4 standard deviations


def test_recorded_dice_replay_exactly_and_refuse_a_different_roll():
    live = SeededDice(7)
    live.roll(5, "closing volley")
    live.roll(1, "discipline check")
    replay = RecordedDice(live.rolls)
    assert replay.roll(5, "closing volley") == live.rolls[0].dice
    with pytest.raises(DiceError, match="record holds 1 dice for the discipline check"):
        replay.roll(2, "melee")
    assert not replay.exhausted


def test_check_faces_counts():
    assert check_faces([1, 6], expected=2) == (1, 6)
    with pytest.raises(DiceError, match="1 die is needed"):
        check_faces([1, 2], expected=1)


def test_roll_refuses_negative_count():
    with pytest.raises(DiceError):
        SeededDice(1).roll(-1, "nothing")


def test_a_dice_source_must_say_where_its_faces_come_from():
    from rules.dice import DiceSource

    with pytest.raises(TypeError):
        DiceSource()  # abstract: only the program's, the table's and the recorded dice exist
