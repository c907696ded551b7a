"""The umpire's inputs with a reaction (how far an Evade withdraws, how far a Counter-Charge surges,
whether Refuse the Flank spends the reserved pip) are defined once, in :mod:`rules.reactions.inputs`,
and the window's reaction dialog and the command line's prompt both ask for them from there: change
the definition, and both follow.

The positions: a skirmish screen charged at Window B, where it may Evade (RULE-04-4.3, the
withdrawal of 4.0" to 6.0" chosen by the umpire), and chapter 04's Example B, where the 19th Indiana
may refuse its flank with Meredith's reserved pip (RULE-04-5.2).
"""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from PySide6.QtWidgets import QLabel

from cli.terminal_play import Answers
from gui.reaction_dialog import ReactionDialog
from rules import procedure
from rules.battle.words import Marker, Phase
from rules.describe import defender_menu
from rules.dice import SeededDice
from rules.reactions import inputs as reaction_inputs
from rules.reactions.declare import Reaction
from rules.tables import load_tables
from tests.rules.reactions.test_examples_ch04 import example_b

T = load_tables()


def screen_charged() -> procedure.Procedure:
    """The 4th Virginia charges the Wisconsin skirmishers: Window B, where the screen may Evade."""
    from tests.rules.assault.test_assault import _screen_battle

    b = _screen_battle()
    b = replace(b.with_unit(b.unit("wis2").with_markers(add=[Marker.SMOKE])), phase=Phase.MANEUVER)
    return procedure.charge(b, T, SeededDice(7), "va4", "sk")


def flank_refused() -> procedure.Procedure:
    """Example B: the 28th North Carolina marches across the 19th Indiana's flank zone."""
    b = replace(example_b(), phase=Phase.MANEUVER)
    b = b.with_unit(b.unit("nc28").moved_to(46, 28))
    return procedure.march(b, T, SeededDice(7), "nc28", 40.0, 28.0, 270.0)


def dialog_of(qtbot, proc: procedure.Procedure) -> ReactionDialog:
    inter = proc.pending
    dlg = ReactionDialog(
        inter.battle, inter.window, T, preview=inter.preview, chances=inter.chances, extras=inter.extras
    )
    qtbot.addWidget(dlg)
    return dlg


def the_terminal(proc: procedure.Procedure, defender: str, reaction: Reaction, *lines: str):
    """Choose ``reaction`` for ``defender`` at the terminal's prompt and answer what it asks next
    with ``lines``; returns the choice and the prompts it showed (an input it asks for and is not
    given ends the answers: NoAnswer)."""
    inter = proc.pending
    offered = inter.offered(defender)
    _, reactions = defender_menu(inter.battle, offered, T)
    prompts: list[str] = []
    answers = Answers(
        {},
        ask=True,
        stdin=io.StringIO("".join(f"{x}\n" for x in (reactions.index(reaction), *lines))),
        out=lambda _text: None,
        prompt=prompts.append,
    )
    (choice,) = answers.choices(proc)
    return choice, prompts[1:]


def spin_label(dlg: ReactionDialog, defender: str, key: str) -> str:
    spin = dlg.boxes[defender].spins[key]
    return " ".join(lab.text() for lab in spin.parent().findChildren(QLabel))


def test_the_dialog_and_the_terminal_ask_for_an_evades_withdrawal_as_the_rules_define_it(qtbot):
    proc = screen_charged()
    dlg = dialog_of(qtbot, proc)
    spin = dlg.boxes["sk"].spins["withdraw_in"]
    assert (spin.minimum(), spin.maximum(), spin.value()) == (4.0, 6.0, 6.0)
    assert spin_label(dlg, "sk", "withdraw_in") == "withdraw"
    choice, prompts = the_terminal(proc, "sk", Reaction.EVADE, "5")
    assert prompts == ['  withdraw (4" to 6", Enter: 6"): ']
    assert choice.inputs == {"withdraw_in": 5.0}


def test_a_changed_definition_is_followed_by_the_dialog_and_the_terminal_alike(qtbot, monkeypatch):
    changed = replace(
        reaction_inputs.WITHDRAW,
        label="fall back",
        least="melee.charge.counter_charge_min_in",  # 2" to 3", for the test
        most="melee.charge.counter_charge_max_in",
    )
    kept = (reaction_inputs.SURGE, reaction_inputs.RESERVED_PIP)
    monkeypatch.setattr(reaction_inputs, "INPUTS", (changed, *kept))
    proc = screen_charged()
    dlg = dialog_of(qtbot, proc)
    spin = dlg.boxes["sk"].spins["withdraw_in"]
    assert (spin.minimum(), spin.maximum(), spin.value()) == (2.0, 3.0, 3.0)
    assert spin_label(dlg, "sk", "withdraw_in") == "fall back"
    dlg.choose("sk", "evade", withdraw_in=2.5)
    assert dlg.choices()[0].inputs == {"withdraw_in": 2.5}
    choice, prompts = the_terminal(proc, "sk", Reaction.EVADE, "5", "2.5")
    assert prompts == ['  fall back (2" to 3", Enter: 3"): '] * 2
    assert choice.inputs == {"withdraw_in": 2.5}  # 5" was refused: out of the bounds defined


def test_an_input_taken_out_of_the_definition_is_asked_by_neither(qtbot, monkeypatch):
    monkeypatch.setattr(reaction_inputs, "INPUTS", (reaction_inputs.SURGE, reaction_inputs.RESERVED_PIP))
    proc = screen_charged()
    dlg = dialog_of(qtbot, proc)
    assert dlg.boxes["sk"].spins == {}
    choice, prompts = the_terminal(proc, "sk", Reaction.EVADE)  # nothing more is asked
    assert prompts == [] and choice.inputs == {}


@pytest.mark.parametrize("flag", [True, False])
def test_the_reserved_pip_is_asked_as_the_definition_says_in_both(qtbot, monkeypatch, flag):
    monkeypatch.setattr(
        reaction_inputs,
        "INPUTS",
        (reaction_inputs.WITHDRAW, reaction_inputs.SURGE, replace(reaction_inputs.RESERVED_PIP, flag=flag)),
    )
    proc = flank_refused()
    dlg = dialog_of(qtbot, proc)
    box = dlg.boxes["ind19"].checks["use_reserved_pip"]
    assert box.isChecked() == flag and box.text() == "spend the reserved pip (else a 4+ check)"
    choice, prompts = the_terminal(proc, "ind19", Reaction.REFUSE_FLANK, "")
    assert prompts == [f"  spend the reserved pip (else a 4+ check)? [{'Y/n' if flag else 'y/N'}]: "]
    assert choice.inputs == {"use_reserved_pip": flag}
