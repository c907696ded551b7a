"""Actions: JSON round trips, the open registry, and the resolvers of the umpire's actions."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from rules.actions import (
    ACTION_TYPES,
    RESOLVERS,
    Action,
    AddBrigade,
    AddTerrain,
    AddUnit,
    ChangeFormation,
    EditBrigade,
    EditTerrain,
    EditUnit,
    EndTurn,
    MoveUnit,
    NextPhase,
    Override,
    RemoveBrigade,
    RemoveTerrain,
    RemoveUnit,
    ReservePip,
    Resolved,
    SpendPip,
    action_type,
    resolve,
    resolver,
)
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.words import BrigadeState, Formation, Marker, Phase
from rules.dice import SeededDice, TableDice
from rules.errors import IllegalAction, RulesError
from rules.tables import load_tables

TABLES = load_tables()


def do(battle: Battle, action: Action, dice=None) -> Resolved:
    return resolve(battle, action, dice or SeededDice(1), TABLES)


EXAMPLES: list[Action] = [
    MoveUnit("wis2", 21.0, 30.5, 90.0),
    MoveUnit("wis2", 21.0, 30.5),
    MoveUnit("wis2", 21.0, 30.5, mode="march"),
    MoveUnit("wis2", 21.0, 30.5, mode="place", reason="set up before the game"),
    ChangeFormation("wis2", "assault_column"),
    Override("unit", "wis2", {"stands": 4, "markers": ["disorder"]}, "volley from the woods"),
    Override("brigade", "iron", {"staff_pips": 1}, "Brigadier delayed"),
    Override("game", "", {"phase": "ranged"}, "forgot to advance"),
    AddUnit(
        {
            "id": "x",
            "name": "X",
            "side": "union",
            "brigade": "iron",
            "kind": "infantry",
            "stands": 4,
            "stands_start": 4,
        }
    ),
    EditUnit("wis2", {"name": "2nd Wisconsin Volunteers"}),
    RemoveUnit("wis2"),
    AddBrigade({"id": "b", "name": "B", "side": "union", "brigadier": {"name": "Cutler"}}),
    EditBrigade("iron", {"state": "hesitant"}),
    RemoveBrigade("texas"),
    AddTerrain({"id": "f", "type": "split_rail_fence", "points": [[0, 0], [4, 0]]}),
    EditTerrain("wall1", {"name": "The stone wall"}),
    RemoveTerrain("wall1"),
    ReservePip("iron"),
    SpendPip("iron", "assault", False),
    NextPhase(),
    EndTurn(),
]


# -- JSON and the registry ---------------------------------------------------------------------


@pytest.mark.parametrize("action", EXAMPLES, ids=lambda a: a.type)
def test_every_action_round_trips_through_json(action):
    import json

    d = json.loads(json.dumps(action.to_dict()))
    assert d["type"] == action.type
    assert Action.from_dict(d) == action


def test_every_built_in_action_type_has_a_resolver():
    for name, cls in ACTION_TYPES.items():
        assert any(c in RESOLVERS for c in cls.__mro__), name
    assert {a.type for a in EXAMPLES} <= set(ACTION_TYPES)


def test_unknown_action_type_is_refused():
    with pytest.raises(RulesError, match="'charge_the_moon' is not a known kind of action"):
        Action.from_dict({"type": "charge_the_moon"})


def test_action_missing_a_field_is_refused():
    with pytest.raises(RulesError, match="needs 'x'"):
        Action.from_dict({"type": "move_unit", "unit_id": "wis2", "y": 3})


def test_action_with_an_unknown_field_is_refused():
    with pytest.raises(RulesError, match="no field"):
        Action.from_dict({"type": "next_phase", "bogus": 1})


def test_action_that_is_not_a_table_is_refused():
    with pytest.raises(RulesError):
        Action.from_dict(["move_unit"])


@pytest.fixture
def volley_action():
    """A dice-rolling action registered the way the combat modules register theirs."""

    @action_type("test_volley")
    @dataclass(frozen=True)
    class TestVolley(Action):
        unit_id: str
        dice: int = 2

    @resolver(TestVolley)
    def _resolve(battle, a, dice, tables):
        faces = dice.roll(a.dice, "test volley")
        u = battle.unit(a.unit_id)
        hit = sum(1 for f in faces if f >= 4)
        after, _ = u.take_hits(hit)
        return Resolved(battle.with_unit(after), [Step("volley", dice=faces)], f"{hit} hits")

    yield TestVolley
    ACTION_TYPES.pop("test_volley")
    RESOLVERS.pop(TestVolley)


def test_registered_action_type_resolves_and_records_its_rolls(small_battle, volley_action):
    a = volley_action("wis2", 3)
    assert Action.from_dict(a.to_dict()) == a
    out = do(small_battle, a, TableDice([4, 6, 1]))
    assert out.summary == "2 hits"
    assert out.battle_after.unit("wis2").stands == 4
    assert [(r.purpose, r.dice) for r in out.rolls] == [("test volley", (4, 6, 1))]


def test_an_action_type_name_cannot_be_taken_twice(volley_action):
    with pytest.raises(ValueError, match="already taken"):

        @action_type("test_volley")
        @dataclass(frozen=True)
        class Other(Action):
            pass


def test_action_without_resolver_is_refused(small_battle):
    @dataclass(frozen=True)
    class Unregistered(Action):
        type = "unregistered"

    with pytest.raises(RulesError, match="does not know how to resolve"):
        do(small_battle, Unregistered())


# -- moving and formations ---------------------------------------------------------------------


def test_move_unit_placement_moves_the_front_centre_and_turns_it(small_battle):
    out = do(small_battle, MoveUnit("wis2", 20.0, 32.0, 90.0))
    u = out.battle_after.unit("wis2")
    assert (u.x, u.y, u.facing_deg) == (20.0, 32.0, 90.0)
    assert out.summary == '2nd Wisconsin moves 4.0" to (20, 32), now facing E (90°): placed by the umpire'
    assert out.steps[0].units == ("wis2",)
    assert small_battle.unit("wis2").y == 36  # the battle before is untouched


def test_move_unit_keeps_facing_when_none_given(small_battle):
    out = do(small_battle, MoveUnit("va4", 22.0, 18.0))
    assert out.battle_after.unit("va4").facing_deg == 180


def test_move_unit_to_the_table_edge_is_allowed_but_not_beyond(small_battle):
    assert do(small_battle, MoveUnit("wis2", 72.0, 48.0)).battle_after.unit("wis2").x == 72.0
    with pytest.raises(IllegalAction, match='off the 72" x 48" table'):
        do(small_battle, MoveUnit("wis2", 72.1, 10.0))
    with pytest.raises(IllegalAction, match="off the"):
        do(small_battle, MoveUnit("wis2", 10.0, -0.1))


def test_move_unit_refuses_unknown_and_destroyed_units_and_bad_numbers(small_battle):
    with pytest.raises(IllegalAction, match="there is no unit 'nobody'"):
        do(small_battle, MoveUnit("nobody", 1, 1))
    dead = small_battle.with_unit(replace(small_battle.unit("wis2"), stands=0))
    with pytest.raises(IllegalAction, match="destroyed"):
        do(dead, MoveUnit("wis2", 1, 1))
    with pytest.raises(IllegalAction, match="must be a number"):
        do(small_battle, MoveUnit("wis2", float("nan"), 1))
    with pytest.raises(IllegalAction, match="already there"):
        do(small_battle, MoveUnit("wis2", 20, 36))
    with pytest.raises(IllegalAction, match="reason must be text"):
        do(small_battle, MoveUnit("wis2", 1, 1, reason=3))


def test_move_unit_march_in_phase_2_goes_as_far_as_the_allowance(small_battle):
    b = replace(small_battle, phase=Phase.MANEUVER)
    out = do(b, MoveUnit("wis2", 20.0, 20.0, mode="march"))
    u = out.battle_after.unit("wis2")
    # 6" of the 16" asked for (RULE-03-2.5), 2" of it to cross the stone wall (RULE-03-2.2)
    assert (u.x, u.y) == (20.0, 32.0)
    assert out.summary == '2nd Wisconsin marches 4.0" to (20, 32) (0.0" of 6" left)'
    assert [s.rule for s in out.steps] == [None, "RULE-03-2.2", "RULE-03-2.5"]
    with pytest.raises(IllegalAction, match="marches only in its own side's Phase 2"):
        do(small_battle, MoveUnit("wis2", 20.0, 20.0, mode="march"))


def test_change_formation_to_one_the_unit_kind_allows(small_battle):
    out = do(small_battle, ChangeFormation("wis2", "assault column"))
    assert out.battle_after.unit("wis2").formation == Formation.ASSAULT_COLUMN
    assert "from line to assault column" in out.summary


def test_change_formation_refuses_one_the_kind_does_not_have(small_battle):
    with pytest.raises(IllegalAction, match="cannot form line"):
        do(small_battle, ChangeFormation("btyB", "line"))
    with pytest.raises(IllegalAction, match="already in line"):
        do(small_battle, ChangeFormation("wis2", "line"))
    with pytest.raises(IllegalAction, match="not a formation"):
        do(small_battle, ChangeFormation("wis2", "phalanx"))


# -- overrides and edits -----------------------------------------------------------------------


def test_override_sets_unit_values_and_logs_the_reason(small_battle):
    a = Override("unit", "wis2", {"stands": 3, "micro_hits": 1, "markers": ["disorder", "smoke"]}, "ruled")
    out = do(small_battle, a)
    u = out.battle_after.unit("wis2")
    assert (u.stands, u.micro_hits, u.markers) == (3, 1, frozenset({Marker.DISORDER, Marker.SMOKE}))
    assert [s.text for s in out.steps][-1] == "Reason: ruled"
    assert "stands 5 → 3" in out.summary and "(ruled)" in out.summary


@pytest.mark.parametrize("reason", ["", "   "])
def test_override_without_a_reason_is_refused(small_battle, reason):
    with pytest.raises(IllegalAction, match="needs a reason"):
        do(small_battle, Override("unit", "wis2", {"stands": 4}, reason))


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"stands": -1}, "cannot be negative"),
        ({"stands": 6}, "more than the 5"),
        ({"micro_hits": 2}, "micro-hits must be 0 or 1"),
        ({"formation": "limbered"}, "cannot be in limbered"),
        ({"markers": ["glory"]}, "not a marker"),
        ({"brigade": "stonewall"}, "Meredith can only attach to a unit of Iron Brigade"),
        ({"morale": 3}, "has no value 'morale'"),
        ({"id": "w2"}, "id cannot be changed"),
        ({"x": "far"}, "x must be a number"),
    ],
)
def test_override_that_breaks_an_invariant_is_refused(small_battle, values, message):
    with pytest.raises(IllegalAction, match=message):
        do(small_battle, Override("unit", "wis2", values, "a ruling"))


def test_override_moving_a_unit_into_a_brigade_of_the_other_side_is_refused(small_battle):
    with pytest.raises(
        IllegalAction, match="is on side 'union' but its brigade Stonewall Brigade is on 'csa'"
    ):
        do(small_battle, Override("unit", "ind19", {"brigade": "stonewall"}, "a ruling"))
    b = do(
        small_battle, Override("unit", "ind19", {"brigade": "stonewall", "side": "csa"}, "captured")
    ).battle_after
    assert b.unit("ind19").side == "csa"


def test_override_stands_at_the_limits(small_battle):
    assert (
        do(small_battle, Override("unit", "va4", {"stands": 6}, "reinforced")).battle_after.unit("va4").stands
        == 6
    )
    assert (
        do(small_battle, Override("unit", "va4", {"stands": 0}, "routed")).battle_after.unit("va4").stands
        == 0
    )


def test_override_that_changes_nothing_is_refused(small_battle):
    with pytest.raises(IllegalAction, match="changes nothing"):
        do(small_battle, Override("unit", "wis2", {"stands": 5}, "no change"))


def test_override_brigade_pips_state_and_brigadier(small_battle):
    a = Override(
        "brigade", "iron", {"staff_pips": 0, "state": "hesitant", "attached_to": "ind19"}, "courier lost"
    )
    b = do(small_battle, a).battle_after.brigades["iron"]
    assert (b.staff_pips, b.state, b.brigadier.attached_to) == (0, BrigadeState.HESITANT, "ind19")
    with pytest.raises(IllegalAction, match="can only attach to a unit of Iron Brigade"):
        do(small_battle, Override("brigade", "iron", {"attached_to": "va4"}, "lost"))
    with pytest.raises(IllegalAction, match="cannot be negative"):
        do(small_battle, Override("brigade", "iron", {"staff_pips": -1}, "x"))
    b = do(small_battle, Override("brigade", "iron", {"brigadier_status": "wounded"}, "shot")).battle_after
    assert b.brigades["iron"].brigadier.status.value == "wounded"


def test_override_the_game_clock(small_battle):
    out = do(
        small_battle, Override("game", "", {"turn": 3, "phase": "melee", "active_side": "csa"}, "catch up")
    )
    b = out.battle_after
    assert (b.turn, b.phase, b.active_side) == (3, Phase.MELEE, "csa")
    with pytest.raises(IllegalAction, match="turn must be a whole number from 1"):
        do(small_battle, Override("game", "", {"turn": 0}, "x"))
    with pytest.raises(IllegalAction, match="active side 'prussia'"):
        do(small_battle, Override("game", "", {"active_side": "prussia"}, "x"))


def test_override_of_an_unknown_target_is_refused(small_battle):
    with pytest.raises(IllegalAction, match="a unit, a brigade or the game"):
        do(small_battle, Override("terrain", "wall1", {"name": "x"}, "x"))


def test_add_edit_and_remove_a_unit(small_battle):
    d = {
        "id": "wis6",
        "name": "6th Wisconsin",
        "side": "union",
        "brigade": "iron",
        "kind": "infantry",
        "stands": 5,
        "stands_start": 5,
        "x": 10,
        "y": 40,
    }
    b = do(small_battle, AddUnit(d)).battle_after
    assert b.unit("wis6").name == "6th Wisconsin"
    with pytest.raises(IllegalAction, match="already a unit with the id 'wis6'"):
        do(b, AddUnit(d))
    b = do(b, EditUnit("wis6", {"quality": "veteran"})).battle_after
    assert b.unit("wis6").quality.value == "veteran"
    b = do(b, RemoveUnit("wis6")).battle_after
    assert "wis6" not in b.units
    with pytest.raises(IllegalAction, match="brigade 'nowhere'"):
        do(small_battle, AddUnit({**d, "brigade": "nowhere"}))


def test_remove_unit_detaches_its_brigadier(small_battle):
    out = do(small_battle, RemoveUnit("wis2"))
    assert out.battle_after.brigades["iron"].brigadier.attached_to is None
    assert any("Meredith is no longer attached" in s.text for s in out.steps)


def test_add_edit_and_remove_a_brigade(small_battle):
    b = do(
        small_battle,
        AddBrigade(
            {
                "id": "cutler",
                "name": "Cutler's",
                "side": "union",
                "brigadier": {"name": "Cutler"},
                "staff_pips": 3,
            }
        ),
    ).battle_after
    assert b.brigades["cutler"].staff_pips == 3
    b = do(b, EditBrigade("cutler", {"name": "Cutler's Brigade"})).battle_after
    assert b.brigades["cutler"].name == "Cutler's Brigade"
    out = do(small_battle, RemoveBrigade("stonewall"))
    assert "stonewall" not in out.battle_after.brigades
    assert not {"va4", "va27"} & set(out.battle_after.units)
    assert out.summary == "Stonewall Brigade is removed from the battle with 2 units"
    with pytest.raises(IllegalAction, match="unknown side"):
        do(small_battle, AddBrigade({"id": "x", "name": "X", "side": "prussia"}))


def test_add_edit_and_remove_terrain_keeping_the_order(small_battle):
    b = do(
        small_battle, AddTerrain({"id": "fence", "type": "split_rail_fence", "points": [[0, 20], [10, 20]]})
    ).battle_after
    assert b.terrain[-1].id == "fence"
    order = [f.id for f in b.terrain]
    b2 = do(b, EditTerrain("hill1", {"level": 2})).battle_after
    assert [f.id for f in b2.terrain] == order and b2.feature("hill1").level == 2
    with pytest.raises(IllegalAction, match="a hill is level 1 or 2, not 3"):
        do(b, EditTerrain("hill1", {"level": 3}))
    with pytest.raises(IllegalAction, match="at least 2 points"):
        do(b, AddTerrain({"id": "w", "type": "stone_wall", "points": [[0, 0]]}))
    b3 = do(b, RemoveTerrain("fence")).battle_after
    assert "fence" not in [f.id for f in b3.terrain]
    with pytest.raises(IllegalAction, match="no terrain feature 'moat'"):
        do(b, RemoveTerrain("moat"))


# -- Staff Pips (RULE-04-1.3) ------------------------------------------------------------------


def test_rule_04_1_3_reserve_pip_in_own_command_phase(small_battle):
    out = do(small_battle, ReservePip("iron"))
    b = out.battle_after.brigades["iron"]
    assert (b.staff_pips, b.staff_pips_reserved) == (2, 1)
    assert out.steps[0].rule == "RULE-04-1.3"


def test_rule_04_1_3_no_reserving_outside_phase_1_or_for_the_other_side(small_battle):
    with pytest.raises(IllegalAction, match="only in its own side's Phase 1"):
        do(replace(small_battle, phase=Phase.MANEUVER), ReservePip("iron"))
    with pytest.raises(IllegalAction, match="only in its own side's Phase 1"):
        do(small_battle, ReservePip("stonewall"))


def test_rule_04_1_3_reserving_needs_a_pip_left(small_battle):
    one = small_battle.with_brigade(replace(small_battle.brigades["iron"], staff_pips=1))
    assert do(one, ReservePip("iron")).battle_after.brigades["iron"].staff_pips == 0
    none = small_battle.with_brigade(replace(small_battle.brigades["iron"], staff_pips=0))
    with pytest.raises(IllegalAction, match="no Staff Pip left to reserve"):
        do(none, ReservePip("iron"))


def test_spend_pip_from_the_pool_and_from_the_reserve(small_battle):
    out = do(small_battle, SpendPip("iron", "an assault"))
    assert out.battle_after.brigades["iron"].staff_pips == 2
    assert out.summary == "Meredith spends a Staff Pip for an assault (2 left)"
    out = do(small_battle, SpendPip("texas", "a counter-charge", reserved=True))
    assert out.battle_after.brigades["texas"].staff_pips_reserved == 0
    with pytest.raises(IllegalAction, match="no reserved Staff Pip"):
        do(small_battle, SpendPip("iron", reserved=True))
    empty = small_battle.with_brigade(replace(small_battle.brigades["iron"], staff_pips=0))
    with pytest.raises(IllegalAction, match="no Staff Pip left"):
        do(empty, SpendPip("iron"))


def test_next_phase_and_end_turn_actions(small_battle):
    out = do(small_battle, NextPhase())
    assert out.battle_after.phase == Phase.MANEUVER
    assert out.summary == "Next phase: Turn 1, Union: Phase 2: Active Maneuver & Assault"
    out = do(small_battle, EndTurn())
    assert (out.battle_after.active_side, out.battle_after.phase) == ("csa", Phase.COMMAND)
    assert out.summary.startswith("Union ends its turn")


# -- an override that marks a unit Garrisoned: the umpire's word stands, the log warns (RULE-03-3.1) --


def _farm(*units):
    from tests.rules.conftest import battle_of, rect

    return battle_of(*units, terrain=[rect("farm", "building", 10, 10, 14, 13, name="Roulette Farm")])


def _garrison_override(battle, uid, reason="the umpire rules the house is bigger than it looks"):
    from rules.actions import resolve

    return resolve(battle, Override("unit", uid, {"markers": ["garrisoned"]}, reason), TableDice([]), TABLES)


def test_rule_03_3_1_an_override_garrisoning_3_stands_stands_but_the_log_warns():
    from tests.rules.conftest import foot

    r = _garrison_override(_farm(foot("wis2", 12, 11, stands=3, name="2nd Wisconsin")), "wis2")
    assert r.battle.unit("wis2").has(Marker.GARRISONED)  # the umpire's override is let through
    (warn,) = [s for s in r.steps if s.text.startswith("Warning")]
    assert warn.rule == "RULE-03-3.1"
    assert "2nd Wisconsin has 3 stands; a building holds at most 2" in warn.text
    assert "the override breaks RULE-03-3.1" in warn.text
    assert r.steps[-1].text.startswith("Reason: the umpire rules")


def test_rule_03_3_1_an_override_garrisoning_2_stands_gives_no_warning():
    from tests.rules.conftest import foot

    r = _garrison_override(_farm(foot("wis2", 12, 11, stands=2)), "wis2")
    assert r.battle.unit("wis2").has(Marker.GARRISONED)
    assert not any(s.text.startswith("Warning") for s in r.steps)


def test_rule_03_3_1_an_override_adding_a_stand_to_a_full_building_warns_of_the_total():
    from tests.rules.conftest import foot

    b = _farm(
        foot("a", 12, 11, stands=2, name="2nd Wisconsin", markers=frozenset({Marker.GARRISONED})),
        foot("b", 12.5, 11.5, stands=1, name="6th Wisconsin"),
    )
    r = _garrison_override(b, "b")
    (warn,) = [s for s in r.steps if s.text.startswith("Warning")]
    assert "Roulette Farm now holds 3 stands (2nd Wisconsin, 6th Wisconsin)" in warn.text
    assert warn.rule == "RULE-03-3.1" and set(warn.units) == {"a", "b"}
    # with the first garrison at 1 stand the two make 2: no warning
    b1 = b.with_unit(replace(b.unit("a"), stands=1, stands_start=5))
    assert not any(s.text.startswith("Warning") for s in _garrison_override(b1, "b").steps)


def test_rule_03_3_1_an_override_garrisoning_artillery_warns_it_must_be_on_foot():
    from tests.rules.conftest import guns

    r = _garrison_override(_farm(guns("bat", 12, 11, sections=1, name="Battery B")), "bat")
    (warn,) = [s for s in r.steps if s.text.startswith("Warning")]
    assert "only infantry or dismounted cavalry can garrison a building" in warn.text


def test_every_action_type_of_the_rules_is_listed_in_one_place():
    """rules.actions lists every action type the rules define (a save can read back only those),
    each under the name saves keep it by."""
    from rules.actions import ACTIONS

    of_rules = {name for name, cls in ACTION_TYPES.items() if cls.__module__.startswith("rules.")}
    assert {a.type for a in ACTIONS} == of_rules
    assert all(ACTION_TYPES[a.type] is a for a in ACTIONS)
    assert len(ACTIONS) == len(set(ACTIONS))
