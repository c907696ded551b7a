"""What Brigadier accepts, it can always read back: no text an umpire types can lock them out of
their game.

The write path applies the read path's bounds (:mod:`rules.limits`) before anything is written:
an action's own texts (a purpose, a reason, a name set by an override) and every text made from
them (log lines, summaries). An action over a bound is refused with the field and nothing is
saved; an action accepted leaves a save that opens again, passes ``verify`` and undoes.
"""

from __future__ import annotations

import contextlib
import io
import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli import main as cli
from rules import limits
from rules.actions import (
    ChangeTables,
    EditUnit,
    MoveUnit,
    NextPhase,
    Override,
    SpendPip,
)
from rules.errors import RulesError
from storage.game import Game
from storage.replay import verify
from storage.scenario import load_demo

#: Lengths at and over every bound a text has: a name's, a long text's, a log line's.
LENGTHS = [
    0,
    1,
    limits.MAX_TEXT - 1,
    limits.MAX_TEXT,
    limits.MAX_TEXT + 1,
    limits.MAX_LONG_TEXT - 10,
    limits.MAX_LONG_TEXT,
    limits.MAX_LONG_TEXT + 1,
    120_000,
    limits.MAX_LOG_TEXT,
]
_names = itertools.count()


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def demo_save(tmp_path_factory) -> bytes:
    p = tmp_path_factory.mktemp("accepted") / "g.sqlite"
    with Game.create(p, load_demo(), seed=3) as g:
        g.do(NextPhase())  # the Confederate Phase 2: a march is a march
        g.checkpoint()
    return p.read_bytes()


def _fresh(folder: Path, data: bytes) -> Path:
    p = folder / f"g{next(_names)}.sqlite"
    p.write_bytes(data)
    return p


def _reopens_verifies_and_undoes(path: Path, events: int) -> None:
    with Game.open(path) as g:
        assert g.last_seq == events
        assert verify(g) == events
        g.undo_step()
        assert g.last_seq == events - 1
        g.redo_step()
    with Game.open(path) as g:
        assert verify(g) == events


# -- the commands of the report, each one --------------------------------------------------------


def test_a_purpose_of_120000_characters_is_refused_and_the_game_still_opens(tmp_path, demo_save):
    p = _fresh(tmp_path, demo_save)
    before = p.read_bytes()
    code, _, err = _cli("spend-pip", p, "garnett", "--purpose", "p" * 120_000)
    assert code == 1
    assert "purpose is 120,000 characters long; at most 100,000 are allowed" in err
    assert p.read_bytes() == before
    _reopens_verifies_and_undoes(p, 1)


@pytest.mark.parametrize(
    "argv",
    [
        ("override", "unit", "va4", "stands=4", "--reason", "r" * 120_000),
        ("move", "va4", "30", "20", "--place", "--reason", "r" * 120_000),
    ],
    ids=["override", "placement"],
)
def test_a_reason_over_the_bound_is_refused_with_its_field(tmp_path, demo_save, argv):
    p = _fresh(tmp_path, demo_save)
    before = p.read_bytes()
    code, _, err = _cli(argv[0], p, *argv[1:])
    assert code == 1 and "reason is 120,000 characters long" in err
    assert p.read_bytes() == before


def test_an_override_whose_reason_is_just_under_the_bound_is_saved_and_reads_back(tmp_path, demo_save):
    # its summary quotes the reason and the change: longer than the reason's own bound
    p = _fresh(tmp_path, demo_save)
    reason = "r" * (limits.MAX_LONG_TEXT - 5)
    code, _, err = _cli(
        "do",
        p,
        f'{{"type": "override", "target": "unit", "target_id": "va4", '
        f'"values": {{"stands": 4}}, "reason": "{reason}"}}',
    )
    assert code == 0, err
    with Game.open(p) as g:
        assert len(g.events()[-1].summary) > limits.MAX_LONG_TEXT
    _reopens_verifies_and_undoes(p, 2)


# -- every action accepted reads back ------------------------------------------------------------


@st.composite
def texts(draw) -> str:
    n = draw(st.sampled_from(LENGTHS))
    ch = draw(st.sampled_from(["p", "é", "\U0001f732", " ", "\n", '"', "\\"]))
    return ch * n


@st.composite
def actions(draw):
    text = draw(texts())
    kind = draw(st.sampled_from(["pip", "override", "name", "brigade", "place", "tables", "edit"]))
    if kind == "pip":
        return SpendPip("garnett", purpose=text)
    if kind == "override":
        return Override("unit", "va4", {"stands": draw(st.integers(0, 5))}, text)
    if kind == "name":  # the name quoted in every log line of the unit from then on
        return Override("unit", "va4", {"name": text}, draw(texts()))
    if kind == "brigade":
        return Override("brigade", "garnett", {"brigadier_name": text}, draw(texts()))
    if kind == "place":
        return MoveUnit("va4", 30.0, 20.0, mode="place", reason=text)
    if kind == "tables":
        return ChangeTables({"movement.rate.road_column": 11}, text)
    return EditUnit("va5", {"name": text})


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(first=actions(), second=actions())
def test_every_action_accepted_leaves_a_save_that_reopens_verifies_and_undoes(
    tmp_path, demo_save, first, second
):
    p = _fresh(tmp_path, demo_save)
    saved = 1
    for action in (first, second):  # the second quotes what the first set (a long name, say)
        with Game.open(p) as g:
            try:
                g.do(action)
            except RulesError as exc:
                assert str(exc)  # refused with a message, and nothing written
                assert g.last_seq == saved
                continue
            saved += 1
    _reopens_verifies_and_undoes(p, saved)
