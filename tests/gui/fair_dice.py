"""Checks shared by the tests of fair dice: a dialog with "The program rolls" shows chances, never
faces, and what the program rolls on commit is one of the outcomes it showed."""

from __future__ import annotations

import re
from collections.abc import Iterable

from rules.chances import Chances, Outcome

_FACES = re.compile(r"\bdice [1-6]( [1-6])*\b")


def assert_no_faces(text: str) -> None:
    """No die's face is shown: the log's "dice 3 3 5" appears nowhere in ``text``."""
    assert not _FACES.search(text), text


def outcome_committed(chances: Chances, steps: Iterable) -> Outcome:
    """The outcome shown whose lines the committed steps all hold (the lines every outcome shares
    too): the program rolled one of the ways the dialog said it could go."""
    logged = list(steps)
    assert all(s in logged for s in chances.known)
    found = [o for o in chances.outcomes if all(s in logged for s in o.lines)]
    assert found, [str(s) for s in logged]
    return found[0]
