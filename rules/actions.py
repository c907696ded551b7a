"""Every action of Brigadier, in one place: what the umpire and the players can do, as small frozen
values that round-trip to JSON, each with the module of the rules that resolves it.

A save keeps each action under its type's name (the first column below); ``storage`` imports this
module before it reads a journal, so that every type listed here can be read back. A new action
type is written in the module of its rules (see :mod:`rules.action_base` for how) and listed here.

=========================  ==========================================  =================================
type                       action                                      rules
=========================  ==========================================  =================================
``next_phase``             :class:`NextPhase`                          :mod:`rules.turn.sequence`
``end_turn``               :class:`EndTurn`                            :mod:`rules.turn.sequence`
``reserve_pip``            :class:`ReservePip`                         :mod:`rules.turn.command`
``spend_pip``              :class:`SpendPip`                           :mod:`rules.turn.command`
``left_undone``            :class:`LeftUndone`                         :mod:`rules.turn.checklist`
``move_unit``              :class:`MoveUnit` (a march or a placement)  :mod:`rules.battlefield.marches`
``change_formation``       :class:`ChangeFormation`                    :mod:`rules.battlefield.marches`
``dismantle_fence``        :class:`DismantleFence`                     :mod:`rules.battlefield.dismantling`
``shoot``                  :class:`Shoot`                              :mod:`rules.shooting.shoot`
``garrison_building``      :class:`GarrisonBuilding`                   :mod:`rules.shooting.buildings`
``bombard_building``       :class:`BombardBuilding`                    :mod:`rules.shooting.buildings`
``declare_reaction``       :class:`DeclareReaction`                    :mod:`rules.reactions.declare`
``decline_reaction``       :class:`DeclineReaction`                    :mod:`rules.reactions.declare`
``charge``                 :class:`ChargeAction`                       :mod:`rules.assault.actions`
``charge_approach``        :class:`ChargeApproach`                     :mod:`rules.assault.actions`
``melee``                  :class:`MeleeAction`                        :mod:`rules.melee.melee`
``resolve_pending_melee``  :class:`ResolvePendingMelee`                :mod:`rules.melee.melee`
``sweeping_advance``       :class:`SweepingAdvance`                    :mod:`rules.melee.melee`
``melee_ruling``           :class:`MeleeRuling`                        :mod:`rules.melee.melee`
``override``               :class:`Override`                           :mod:`rules.umpire.overrides`
``change_tables``          :class:`ChangeTables`                       :mod:`rules.umpire.overrides`
``add_unit`` ...           :class:`AddUnit`, :class:`EditUnit`, ...    :mod:`rules.umpire.edits`
``arrive``                 :class:`Arrive`                             :mod:`rules.umpire.arrivals`
``edit_scenario``          :class:`EditScenario`                       :mod:`rules.umpire.scenario_settings`
=========================  ==========================================  =================================

>>> all(ACTION_TYPES[a.type] is a for a in ACTIONS)
True
>>> from rules.battle.battle import Battle
>>> a = MoveUnit(unit_id="wis2", x=31.0, y=20.5, facing_deg=0.0, mode="march")
>>> Action.from_dict(a.to_dict()) == a
True
"""

from __future__ import annotations

from rules.action_base import (
    ACTION_TYPES,
    RESOLVERS,
    Action,
    Resolved,
    Resolver,
    action_type,
    resolve,
    resolver,
)
from rules.assault.actions import ChargeAction, ChargeApproach
from rules.battle.turn_records import MOVEMENT, STALLED
from rules.battlefield.dismantling import DismantleFence
from rules.battlefield.marches import (
    MARCH,
    PLACE,
    ChangeFormation,
    MoveUnit,
    allowance_of,
    has_stalled,
    mark_stalled,
    movement_record,
    plan_march,
    remaining_move_in,
    scale_remaining_move,
)
from rules.melee.melee import MeleeAction, MeleeRuling, ResolvePendingMelee, SweepingAdvance
from rules.reactions.declare import DeclareReaction, DeclineReaction
from rules.shooting.buildings import BombardBuilding, GarrisonBuilding
from rules.shooting.shoot import Shoot
from rules.sight import spotting  # noqa: F401 (its rules follow every action of play: rules.action_base.follow_up)
from rules.turn.checklist import LeftUndone
from rules.turn.command import ReservePip, SpendPip
from rules.turn.sequence import EndTurn, NextPhase
from rules.umpire.arrivals import Arrive
from rules.umpire.edits import (
    AddBrigade,
    AddTerrain,
    AddUnit,
    EditBrigade,
    EditTerrain,
    EditUnit,
    RemoveBrigade,
    RemoveTerrain,
    RemoveUnit,
)
from rules.umpire.overrides import ChangeTables, Override
from rules.umpire.scenario_settings import EditScenario

#: Every action type, in the order of the table above.
ACTIONS: tuple[type[Action], ...] = (
    NextPhase,
    EndTurn,
    ReservePip,
    SpendPip,
    LeftUndone,
    MoveUnit,
    ChangeFormation,
    DismantleFence,
    Shoot,
    GarrisonBuilding,
    BombardBuilding,
    DeclareReaction,
    DeclineReaction,
    ChargeAction,
    ChargeApproach,
    MeleeAction,
    ResolvePendingMelee,
    SweepingAdvance,
    MeleeRuling,
    Override,
    ChangeTables,
    AddUnit,
    EditUnit,
    RemoveUnit,
    AddBrigade,
    EditBrigade,
    RemoveBrigade,
    AddTerrain,
    EditTerrain,
    RemoveTerrain,
    Arrive,
    EditScenario,
)


__all__ = [
    "ACTIONS",
    "ACTION_TYPES",
    "MARCH",
    "MOVEMENT",
    "PLACE",
    "RESOLVERS",
    "STALLED",
    "Action",
    "AddBrigade",
    "AddTerrain",
    "AddUnit",
    "Arrive",
    "EditScenario",
    "BombardBuilding",
    "ChangeFormation",
    "ChangeTables",
    "ChargeApproach",
    "ChargeAction",
    "DeclareReaction",
    "DeclineReaction",
    "DismantleFence",
    "EditBrigade",
    "EditTerrain",
    "EditUnit",
    "EndTurn",
    "GarrisonBuilding",
    "LeftUndone",
    "MeleeAction",
    "MeleeRuling",
    "MoveUnit",
    "NextPhase",
    "Override",
    "RemoveBrigade",
    "RemoveTerrain",
    "RemoveUnit",
    "ReservePip",
    "ResolvePendingMelee",
    "Resolved",
    "Resolver",
    "SpendPip",
    "Shoot",
    "SweepingAdvance",
    "action_type",
    "allowance_of",
    "has_stalled",
    "mark_stalled",
    "movement_record",
    "plan_march",
    "remaining_move_in",
    "resolve",
    "resolver",
    "scale_remaining_move",
]
