"""A charge through Trigger Window B at its 4.0" line (RULE-06-2.1), and on past a screen into the unit
behind it (RULE-04-4.4) (see :mod:`rules.procedure`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Sequence
from dataclasses import replace
from typing import Any

from rules.action_base import Action, resolve
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.dice import DiceSource, SeededDice, TableDice
from rules.procedure.core import (
    Answer,
    Choice,
    Interruption,
    Planned,
    Procedure,
    _leftover,
    _typed_faces,
    decline_action,
)
from rules.reactions.declare import Window
from rules.reactions.inputs import SURGE, WITHDRAW
from rules.reactions.triggers import Trigger, TriggerWindow, defender_choice
from rules.tables import RuleTables

XY = tuple[float, float]
EPS = 1e-6
#: The umpire's inputs a charge's Window B takes (:mod:`rules.reactions.inputs`): a Counter-Charge's
#: surge and a screen's Evade; Refuse the Flank there spends the reserved pip if it has one.
WINDOW_B_INPUTS = (SURGE.key, WITHDRAW.key)

# -- Trigger Window B: a charge -------------------------------------------------------------------


def charge_window(at: Any, tables: RuleTables) -> TriggerWindow:
    """The Window B of a charge halted at the 4.0" line (RULE-06-2.1), as :mod:`rules.reactions.triggers` gives one."""
    from rules.assault import charge as assault

    threat = assault.window_b_threat(at, tables)
    a = at.battle.unit(at.path.attacker)
    along = math.dist(at.path.start, (a.x, a.y))
    choice = defender_choice(at.battle, threat, Trigger.CHARGE, tables)
    return TriggerWindow(Window.B, (a.x, a.y), along, a.id, (choice,))


def _charge_reaction(choice: Choice | None):
    from rules.assault.charge import ChargeReaction

    if choice is None or choice.reaction is None:
        return ChargeReaction.NONE
    return ChargeReaction.parse(choice.reaction.value)


def charge_of(
    attacker: str, target: str, choice: Choice | None, then: Choice | None = None, behind: bool = False
):
    """The charge with the defender's choice at Window B and (``behind``: a screen's parent opened
    its own Window B) the choice of the unit behind the screen (RULE-04-4.4)."""
    from rules.assault.charge import Charge

    deciding = then if behind else choice
    surge = deciding.inputs.get(SURGE.key) if deciding is not None else None
    evade = choice.inputs.get(WITHDRAW.key) if choice is not None else None
    return Charge(
        attacker,
        target,
        reaction=_charge_reaction(choice),
        counter_charge_in=surge,
        then_reaction=_charge_reaction(then) if behind else None,
        evade_in=evade,
    )


def _approach_action(charge: Any) -> Action:
    from rules.assault.actions import ChargeApproach

    return ChargeApproach(
        charge.attacker,
        charge.target,
        reaction=charge.reaction.value,
        counter_charge_in=charge.counter_charge_in,
        then_reaction=None if charge.then_reaction is None else charge.then_reaction.value,
        evade_in=charge.evade_in,
    )


def charge(
    battle: Battle, tables: RuleTables, dice: SeededDice, attacker_id: str, target_id: str
) -> Procedure:
    """Phase 2 of an assault (RULE-06-1.1): the charger is carried to the 4.0" line, where the
    defender answers at Window B (RULE-06-2.1); then the pre-contact check and a stall, a halt or
    contact. The step is one ``charge_approach`` action, after a ``decline_reaction`` for each
    defender that answered "No reaction". A charge at a screen asks the screen (evade, or be
    overrun); the charge then goes on into the unit behind it, whose own Window B opens at its 4.0"
    line (RULE-04-4.4). A charge the rules refuse (RULE-06-1.2, RULE-06-1.3, RULE-06-1.4) raises :class:`RulesError`."""
    from rules.assault import charge as assault

    at = assault.to_the_line(battle, assault.Charge(attacker_id, target_id), tables)
    proc = Procedure(battle, tables, dice, f"Charge of {battle.unit(attacker_id).name}")

    def past_the_line(c: Any, d: DiceSource) -> tuple[Battle, list[Step]]:
        r = assault.charge_to_contact(battle, c, d, tables)
        return r.battle, list(r.steps[len(at.steps) :])

    def declined_steps(w: TriggerWindow, choices: Sequence[Choice]) -> list[Step]:
        if not choices or choices[0].reaction is not None:
            return []
        return resolve(battle, decline_action(w.defenders[0]), TableDice(), tables).steps

    def final(
        w: TriggerWindow, declines: list[Action], charge_: Callable[[Answer], Any]
    ) -> Callable[[Answer, SeededDice], list[tuple[Planned, Any]]]:
        """The consequence of the last answer: the "No reaction" lines (of an earlier window too),
        then the charge with the dice typed at the table."""

        def consequence(answer: Answer, program: SeededDice) -> list[tuple[Planned, Any]]:
            c = charge_(answer)
            b = proc.battle
            out: list[tuple[Planned, Any]] = []
            mine = [decline_action(w.defenders[0])] if answer.choices[0].reaction is None else []
            for act in [*declines, *mine]:
                res = resolve(b, act, program, tables)
                out.append((Planned(act), res))
                b = res.battle_after
            typed = answer.source()
            action = _approach_action(c)
            res = resolve(b, action, typed if typed is not None else program, tables)
            faces = _typed_faces(res) if typed is not None else None
            _leftover(typed, len(faces or ()))
            out.append((Planned(action, faces), res))
            return out

        return consequence

    def gen() -> Generator[Interruption, Any, None]:
        if at.early is not None:
            proc.do(
                _approach_action(assault.Charge(attacker_id, target_id, reaction=assault.ChargeReaction.NONE))
            )
            return
        screen = at.battle.unit(target_id).is_screen
        w = charge_window(at, tables)
        behind_at = None

        def resolution(choices: Sequence[Choice], d: DiceSource) -> tuple[Battle, list[Step]]:
            c = charge_of(attacker_id, target_id, choices[0] if choices else None)
            if screen:
                c = replace(c, then_reaction=assault.ChargeReaction.NONE)
            after, steps = past_the_line(c, d)
            return after, declined_steps(w, choices[:1]) + steps

        if screen:
            # the screen answers first; the unit behind it may have its own window to come
            def screen_answer(answer: Answer, program: SeededDice) -> list[tuple[Planned, Any]]:
                nonlocal behind_at
                first = answer.choices[0]
                behind_at = assault.behind_the_screen(
                    battle, charge_of(attacker_id, target_id, first), tables
                )
                if behind_at is not None and behind_at.early is None:
                    return []  # the declines are logged with the charge, after the second window
                return final(w, [], lambda a: charge_of(attacker_id, target_id, a.choices[0]))(
                    answer, program
                )

            consequence = screen_answer
        else:
            consequence = final(w, [], lambda a: charge_of(attacker_id, target_id, a.choices[0]))
        first, done = yield Interruption(
            w,
            at.battle,
            attacker_id,
            w.window.label,
            WINDOW_B_INPUTS,
            resolution=resolution,
            _consequence=consequence,
        )
        if done:
            return
        # the unit behind the screen answers at its own 4.0" line (RULE-04-4.4)
        choice = first.choices[0]
        declines = [decline_action(w.defenders[0])] if choice.reaction is None else []
        w2 = charge_window(behind_at, tables)

        def resolution_behind(choices: Sequence[Choice], d: DiceSource) -> tuple[Battle, list[Step]]:
            c = charge_of(attacker_id, target_id, choice, choices[0] if choices else None, True)
            after, steps = past_the_line(c, d)
            return after, declined_steps(w2, choices[:1]) + steps

        yield Interruption(
            w2,
            behind_at.battle,
            attacker_id,
            w2.window.label,
            WINDOW_B_INPUTS,
            resolution=resolution_behind,
            _consequence=final(
                w2, declines, lambda a: charge_of(attacker_id, target_id, choice, a.choices[0], True)
            ),
        )

    return proc._start(gen())
