"""The procedure of play: a march, a group march or a charge carried through its Trigger Windows.

A procedure is a pure stepper. It is given the battle and a request, and it stops at each
interruption the rules make, a Trigger Window A along a march (RULE-04-1.2) or Window B at a
charge's 4.0" line (RULE-06-2.1), with the defenders, every reaction of the window, the reasons
for those they may not take and their rules. It takes the defending side's answer and goes on,
until the request is done. What it returns is one **step**: the actions to commit, in order, each
with the dice typed at the table for it (or none: the game's own dice). ``storage`` commits a step
in one transaction as one journal step, which is one Undo; a procedure abandoned part way (the
umpire cancelled a dialog) writes nothing.

The window asks the defender with a dialog, the command line with a prompt or the answers given
up front, a test with a list: all of them drive the same procedure, so the same answers give the
same journal. Whether a move is a march or the umpire's placement is decided here too, by the
rules' legality (:func:`rules.legality.march_refusal`): a unit dragged in the window is
:func:`move_units`, one unit exactly the command line's :func:`move`. A placement where the unit
would march asks for the umpire's reason (:class:`ReasonAsked`), answered with the words for the log.

>>> from rules.actions import NextPhase, resolve
>>> from rules.dice import SeededDice
>>> from rules.tables import load_tables
>>> from storage.scenario import load_demo
>>> tables = load_tables()
>>> battle = resolve(load_demo(), NextPhase(), SeededDice(1), tables).battle  # the Confederate Phase 2
>>> p = march(battle, tables, SeededDice(1862), "va4", 34, 22)
>>> [(d.defender, [o.reaction.value for o in d.eligible]) for d in p.pending.defenders]
[('batb4us', ['opportunity_fire'])]
>>> p.answer(Answer.declined(p.pending)) is None  # no reaction: the march goes on, and is done
True
>>> [planned.action.type for planned in p.result.actions]
['move_unit', 'decline_reaction']

The program's dice are a copy of the game's (``SeededDice(seed, drawn)``): the procedure rolls
them in the order the game will, each window's when it is answered (the umpire's commit for that
window), so the step commits exactly what was rolled. Before an answer, a window shows what it may
do only as chances (:meth:`Interruption.chances`), never a face. A request stopped part way after
the program's dice rolled keeps what they decided (:meth:`Procedure.kept`), so that cancelling
and trying again cannot roll the same faces to a different choice.
"""

from rules.procedure.charge import charge, charge_of, charge_window
from rules.procedure.core import (
    Answer,
    Cancelled,
    Choice,
    Interruption,
    Planned,
    PlayStep,
    Procedure,
    ReasonAsked,
    answer_action,
    decline_action,
    reaction_action,
)
from rules.procedure.march import (
    front_first,
    group_march,
    march,
    march_end,
    move,
    move_units,
    placement,
    window,
    window_a_resolution,
)

__all__ = [
    "Answer",
    "Cancelled",
    "Choice",
    "Interruption",
    "Planned",
    "PlayStep",
    "Procedure",
    "ReasonAsked",
    "answer_action",
    "charge",
    "charge_of",
    "charge_window",
    "decline_action",
    "front_first",
    "group_march",
    "march",
    "march_end",
    "move",
    "move_units",
    "placement",
    "reaction_action",
    "window",
    "window_a_resolution",
]
