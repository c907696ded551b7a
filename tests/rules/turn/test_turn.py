"""The turn sequence: both sides in turn through Phases 1-4 and the end, and what expires then."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.battle.words import Marker, Phase
from rules.tables import load_tables
from rules.turn.sequence import PHASES, end_side_turn, first_side, next_phase, phase_title

TABLES = load_tables()


def advance(battle, n, tables=TABLES):
    steps = []
    for _ in range(n):
        battle, more = next_phase(battle, tables)
        steps += more
    return battle, steps


def test_phases_of_a_side_turn_in_order(small_battle):
    seen = [small_battle.phase]
    b = small_battle
    for _ in range(4):
        b, _ = next_phase(b, TABLES)
        seen.append(b.phase)
        assert b.active_side == "union" and b.turn == 1
    assert seen == list(PHASES)
    assert [p.number for p in seen[:4]] == [1, 2, 3, 4]


def test_after_the_first_sides_end_the_second_side_has_its_turn(small_battle):
    b, _ = advance(small_battle, 5)
    assert (b.turn, b.active_side, b.phase) == (1, "csa", Phase.COMMAND)
    assert phase_title(b) == "Turn 1, Confederate: Phase 1: Command"


def test_after_the_second_sides_end_the_next_game_turn_begins_with_the_first_side(small_battle):
    b, _ = advance(small_battle, 9)
    assert (b.turn, b.active_side, b.phase) == (1, "csa", Phase.END)
    b, _ = next_phase(b, TABLES)
    assert (b.turn, b.active_side, b.phase) == (2, "union", Phase.COMMAND)
    b, _ = advance(b, 10)
    assert (b.turn, b.active_side, b.phase) == (3, "union", Phase.COMMAND)


def test_a_game_that_starts_with_the_second_side_active_ends_the_turn_after_it(small_battle):
    b = replace(small_battle, active_side="csa", first_side="union")
    b, _ = advance(b, 5)
    assert (b.turn, b.active_side) == (2, "union")


def test_first_side_defaults_to_the_first_listed_side(small_battle):
    assert first_side(replace(small_battle, first_side="")) == "union"
    assert first_side(replace(small_battle, first_side="csa")) == "csa"


def test_a_battle_with_no_first_side_named_keeps_its_turn_order_through_a_save(small_battle, tmp_path):
    """With no first side named, the order of battle's first side moves first: a battle made with
    the other side active keeps that order once saved and read back (it used to read the side to
    act as the first side)."""
    from rules.battle.battle import Battle
    from storage.game import Game

    b = replace(small_battle, active_side="csa", first_side="")
    again = Battle.from_dict(b.to_dict())
    assert again.first_side == "" and first_side(again) == "union"
    with Game.create(tmp_path / "g.sqlite", b) as game:
        assert game.battle.first_side == "" and first_side(game.battle) == "union"
        after, _ = advance(game.battle, 5)  # the Confederate turn ends the game turn: the Union's
        assert (after.turn, after.active_side) == (2, "union")
    # a table written before the first side was kept reads the side to act as before
    old = {k: v for k, v in b.to_dict().items() if k != "first_side"}
    assert Battle.from_dict(old).first_side == "csa"


def test_command_phase_gives_each_brigade_its_allowance(small_battle):
    b, steps = advance(small_battle, 5)  # into the Confederate Phase 1
    allowance = TABLES.value("command.staff_pips.per_brigade_per_turn")
    assert b.brigades["stonewall"].staff_pips == allowance
    assert b.brigades["texas"].staff_pips == allowance
    assert b.brigades["iron"].staff_pips == small_battle.brigades["iron"].staff_pips  # not its turn
    assert any(
        "Garnett (Stonewall Brigade) has 3 Staff Pips this turn (club default)" == s.text for s in steps
    )


def test_command_phase_allowance_comes_from_the_club_table(small_battle):
    club = TABLES.with_values({"command.staff_pips.per_brigade_per_turn": 5})
    b, _ = advance(small_battle, 5, club)
    assert b.brigades["stonewall"].staff_pips == 5


def test_unspent_pips_do_not_carry_over_to_the_next_turn(small_battle):
    rich = small_battle.with_brigade(replace(small_battle.brigades["iron"], staff_pips=7))
    b, _ = advance(rich, 10)
    assert (b.turn, b.active_side) == (2, "union")
    assert b.brigades["iron"].staff_pips == TABLES.value("command.staff_pips.per_brigade_per_turn")


def test_rule_04_3_4_fired_and_smoke_last_through_the_firers_own_turn(small_battle):
    # The 27th Virginia (csa) carries Fired and Smoke; the Union turn does not clear them ...
    b, steps = advance(small_battle, 4)
    assert b.phase == Phase.END and b.active_side == "union"
    assert {Marker.FIRED, Marker.SMOKE} <= b.unit("va27").markers
    # ... the Confederates' own turn does, at its end.
    b, steps = advance(b, 4)
    assert b.phase == Phase.MELEE and b.active_side == "csa"
    assert {Marker.FIRED, Marker.SMOKE} <= b.unit("va27").markers
    b, steps = next_phase(b, TABLES)
    assert b.phase == Phase.END
    assert not {Marker.FIRED, Marker.SMOKE} & b.unit("va27").markers
    assert "27th Virginia: Fired marker removed at the end of its turn (club default)" in [
        s.text for s in steps
    ]


def test_end_of_turn_keeps_disorder(small_battle):
    b, _ = advance(small_battle, 4)
    assert Marker.DISORDER in b.unit("ind19").markers


@pytest.mark.parametrize(("key", "marker"), [("clear_fired", Marker.FIRED), ("clear_smoke", Marker.SMOKE)])
def test_club_table_can_keep_markers_at_the_end_of_turn(small_battle, key, marker):
    keep = TABLES.with_values({f"command.end_of_turn.{key}": 0})
    b = replace(small_battle, active_side="csa")
    b, _ = advance(b, 4, keep)
    assert marker in b.unit("va27").markers
    b2, _ = advance(replace(small_battle, active_side="csa"), 4)
    assert marker not in b2.unit("va27").markers


def test_rule_04_1_3_reserved_pips_lapse_at_the_end_of_the_enemy_turn(small_battle):
    # The Texas Brigade (csa) holds 1 reserved pip for reactions during the Union turn.
    b, steps = advance(small_battle, 3)
    assert b.brigades["texas"].staff_pips_reserved == 1  # still there in Union Phase 4
    b, steps = next_phase(b, TABLES)
    assert b.brigades["texas"].staff_pips_reserved == 0
    assert any("Hood's 1 reserved Staff Pip lapses unused" in s.text for s in steps)


def test_reserved_pips_survive_their_own_sides_turn(small_battle):
    b = replace(small_battle, active_side="csa")
    b, _ = advance(b, 4)
    assert b.brigades["texas"].staff_pips_reserved == 1


def test_club_table_can_keep_reserved_pips(small_battle):
    keep = TABLES.with_values({"command.end_of_turn.clear_reserved_pips": 0})
    b, _ = advance(small_battle, 4, keep)
    assert b.brigades["texas"].staff_pips_reserved == 1


def test_end_side_turn_goes_through_the_remaining_phases(small_battle):
    b = replace(small_battle, phase=Phase.RANGED)
    after, steps = end_side_turn(b, TABLES)
    assert (after.turn, after.active_side, after.phase) == (1, "csa", Phase.COMMAND)
    assert [s.text for s in steps][:2] == [
        "Turn 1, Union: Phase 4: Assault & Melee Resolution",
        "Turn 1, Union: End of turn",
    ]


def test_end_side_turn_from_the_end_phase_goes_straight_on(small_battle):
    b = replace(small_battle, phase=Phase.END, active_side="csa")
    after, _ = end_side_turn(b, TABLES)
    assert (after.turn, after.active_side, after.phase) == (2, "union", Phase.COMMAND)


def test_rule_03_2_5_climbing_marker_lasts_for_the_turn_it_climbs_out(small_battle):
    climbing = small_battle.with_units(
        small_battle.unit("wis2").with_markers(add=[Marker.CLIMBING]),
        small_battle.unit("va4").with_markers(add=[Marker.CLIMBING]),
    )
    b, _ = advance(climbing, 3)
    assert Marker.CLIMBING in b.unit("wis2").markers  # still in its Phase 4
    b, steps = next_phase(b, TABLES)
    assert Marker.CLIMBING not in b.unit("wis2").markers
    assert Marker.CLIMBING in b.unit("va4").markers  # not the Confederates' turn
    step = next(s for s in steps if "Climbing" in s.text)
    assert step.rule == "RULE-03-2.5" and "club default" not in step.text


def test_rule_06_1_1_leaving_phase_4_with_a_pending_melee_is_refused_naming_it(small_battle):
    from rules.errors import IllegalAction
    from rules.melee.melee import MeleeSituation, add_pending_melee

    b, _ = advance(small_battle, 3)
    assert b.phase == Phase.MELEE
    union = next(u for u in b.oob.in_play("union"))
    csa = next(u for u in b.oob.in_play("csa"))
    pending, pm = add_pending_melee(b, MeleeSituation(union.id, csa.id))
    with pytest.raises(
        IllegalAction, match=f"1 melee is still to be resolved.*{union.name} against {csa.name}"
    ) as exc:
        next_phase(pending, TABLES)
    assert exc.value.rule == "RULE-06-1.1"
    with pytest.raises(IllegalAction):
        end_side_turn(pending, TABLES)
    # without one, Phase 4 is left as before
    assert next_phase(b, TABLES)[0].phase == Phase.END


def test_rule_06_1_1_entering_phase_4_logs_the_pending_melees(small_battle):
    from rules.melee.melee import MeleeSituation, add_pending_melee

    b, _ = advance(small_battle, 2)
    union = next(u for u in b.oob.in_play("union"))
    csa = next(u for u in b.oob.in_play("csa"))
    b, _ = add_pending_melee(b, MeleeSituation(union.id, csa.id))
    after, steps = next_phase(b, TABLES)
    assert after.phase == Phase.MELEE
    assert any(s.text.startswith("1 melee pending:") and s.rule == "RULE-06-1.1" for s in steps)
    _, plain = advance(small_battle, 3)
    assert not any("pending" in s.text for s in plain)
