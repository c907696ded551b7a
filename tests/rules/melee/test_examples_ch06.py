"""Chapter 06, 7.0: the two worked examples, end to end, with their printed dice.

Example 1 names the 2nd Wisconsin's quality twice: "(5 stands, fresh, regular)" in its opening
sentence and "(5 stands, Veteran, Fresh)" in Step 1. Step 1 is the specific statement of the
position and is followed here; the defender's quality changes nothing in the example (only the
charger takes a discipline check). The Wisconsin's printed score (3 + 5 + 1 = 9) has no Disorder
term, and by the rules it has none: firing a closing volley does not disorder the firer
(RULE-04-2.6 gives it Smoke), so the printed score is what the rules give.

Example 1 also says the Virginians "advance 6.0 inches" in its opening sentence and charge across
"7.0 inches" in Step 1; Step 1 is followed. Either distance is over the 3.0" that Charging
Momentum needs.

Both examples are played as the rules order them (RULE-06-1.1): the charge in Phase 2
(:class:`~rules.assault.actions.ChargeApproach`) up to contact, then Phase 3, then the opposed roll in
Phase 4 (:class:`~rules.melee.melee.ResolvePendingMelee`). The one-step :func:`resolve_charge` (kept for
the odds and for old saves) must give the same result.

Example 2 does not give the distance of the charge or the Brooklyn's quality; it is set 8.0" away
and Regular (as the 14th Brooklyn is in chapter 04, Example A). Neither changes the result:
momentum is lost at the wall and no discipline check is taken.
"""

from __future__ import annotations

import pytest

from rules.actions import NextPhase, resolve
from rules.assault.actions import ChargeApproach, resolve_charge
from rules.assault.charge import Charge, ChargeEnd
from rules.battle.battle import Battle
from rules.battle.order_of_battle import Brigade, Brigadier, OrderOfBattle, Side
from rules.battle.terrain import TerrainFeature, TerrainType
from rules.battle.unit import Unit
from rules.battle.words import BrigadierStatus, Formation, Marker, Phase, Quality, UnitKind, Weapon
from rules.dice import TableDice
from rules.errors import IllegalAction
from rules.melee.melee import Outcome, ResolvePendingMelee, pending_melees
from rules.tables import load_tables

T = load_tables()


def _battle(units, brigades, terrain=(), active="csa") -> Battle:
    oob = OrderOfBattle(
        sides=(Side("csa", "Confederate"), Side("usa", "Union")),
        brigades={b.id: b for b in brigades},
        units={u.id: u for u in units},
    )
    return Battle(
        name="chapter 06", oob=oob, terrain=tuple(terrain), active_side=active, phase=Phase.MANEUVER
    )


def example_1() -> Battle:
    va4 = Unit(
        id="va4",
        name="4th Virginia",
        side="csa",
        brigade="stonewall",
        kind=UnitKind.INFANTRY,
        stands=5,
        stands_start=5,
        quality=Quality.VETERAN,
        weapon=Weapon.RIFLED_MUSKET,
        traits=frozenset({"rebel_yell"}),
        x=30.0,
        y=27.0,
        facing_deg=0.0,
    )
    wis2 = Unit(
        id="wis2",
        name="2nd Wisconsin",
        side="usa",
        brigade="iron",
        kind=UnitKind.INFANTRY,
        stands=5,
        stands_start=5,
        quality=Quality.VETERAN,
        weapon=Weapon.RIFLED_MUSKET,
        x=30.0,
        y=20.0,
        facing_deg=180.0,
    )
    brigades = [
        Brigade(
            id="stonewall",
            name="Stonewall Brigade",
            side="csa",
            brigadier=Brigadier(name="Garnett", attached_to="va4"),
            staff_pips=2,
        ),
        Brigade(
            id="iron", name="Iron Brigade", side="usa", brigadier=Brigadier(name="Meredith"), staff_pips=2
        ),
    ]
    return _battle([va4, wis2], brigades)


def two_phases(b: Battle, attacker: str, target: str, phase2_dice, phase4_dice):
    """Phase 2: the charge to contact; Phases 3 and 4; the pending melee resolved in Phase 4."""
    d2 = TableDice(phase2_dice)
    p2 = resolve(b, ChargeApproach(attacker, target), d2, T)
    assert d2.remaining == ()
    (pm,) = pending_melees(p2.battle)
    b3 = resolve(p2.battle, NextPhase(), TableDice([]), T).battle
    b4 = resolve(b3, NextPhase(), TableDice([]), T)
    assert b4.battle.phase == Phase.MELEE
    d4 = TableDice(phase4_dice)
    p4 = resolve(b4.battle, ResolvePendingMelee(pm.id), d4, T)
    assert d4.remaining == ()
    return p2, pm, b4, p4, d2, d4


def test_example_1_through_phase_2_and_phase_4():
    b = example_1()
    p2, pm, b4, p4, d2, d4 = two_phases(b, "va4", "wis2", [2, 4, 1, 6, 5, 5], [5, 3, 4])
    assert [x.purpose for x in d2.rolls] == ["closing volley", "discipline check"]
    assert [x.purpose for x in d4.rolls] == ["attacker shock roll", "defender shock roll", "leader loss roll"]
    # Phase 2 ends at contact: "Proceed to Phase 4 Melee" (RULE-06-2.5)
    va, wi = p2.battle.unit("va4"), p2.battle.unit("wis2")
    assert (va.stands, va.micro_hits, va.disordered) == (4, 1, True)
    assert va.y == pytest.approx(20.0) and va.has(Marker.ENGAGED) and wi.has(Marker.ENGAGED)
    assert wi.stands == 5 and p2.battle.brigade_of("va4").staff_pips == 1
    assert "resolved in Phase 4" in p2.summary and p2.steps[-1].rule == "RULE-06-1.1"
    assert not any(s.rule == "RULE-06-3.2" for s in p2.steps)  # no shock roll in Phase 2
    # the recorded situation: frontal contact after 7.0" across open ground, the 4th Virginia lost a stand
    s = pm.situation
    assert (s.attacker, s.defender, s.contact.value, s.momentum_in) == ("va4", "wis2", "front", 7.0)
    assert not s.counter_charge and s.defender_obstacle is None and pm.stands_lost == {"va4": 1}
    # entering Phase 4 the log says the melee is pending
    assert any("1 melee pending: 4th Virginia against 2nd Wisconsin's front" in x.text for x in b4.steps)
    # Phase 4: 11 to 9, the Wisconsin retreats, Garnett rolls 4: Unhurt
    att = next(x for x in p4.steps if x.text.startswith("4th Virginia (attacker) shock score 11"))
    assert att.dice == (5,) and "+ 4 stands" in att.text
    assert sorted((x.label.split(" (")[0], x.value) for x in att.modifiers) == sorted(
        [
            ("Fresh", 1),
            ("Charging momentum", 1),
            ("Rebel Yell", 1),
            ("Brigadier Garnett attached", 1),
            ("Disordered", -2),
        ]
    )
    dfn = next(x for x in p4.steps if x.text.startswith("2nd Wisconsin (defender) shock score 9"))
    assert dfn.dice == (3,) and [(x.label, x.value) for x in dfn.modifiers] == [("Fresh", 1)]
    assert p4.summary.endswith("attacker wins (11 to 9)")
    wi, va = p4.battle.unit("wis2"), p4.battle.unit("va4")
    assert wi.stands == 4 and wi.disordered and wi.y == pytest.approx(20.0 - 6.0)
    assert (va.stands, va.micro_hits) == (4, 1) and va.y == pytest.approx(20.0 - 2.0)
    assert not va.has(Marker.ENGAGED) and not wi.has(Marker.ENGAGED)
    assert p4.steps[-1].text.endswith("Unhurt") and p4.steps[-1].dice == (4,)
    assert pending_melees(p4.battle) == ()
    # the same as the whole charge at once
    whole = resolve_charge(b, Charge("va4", "wis2"), TableDice([2, 4, 1, 6, 5, 5, 5, 3, 4]), T)
    for uid in ("va4", "wis2"):
        assert whole.battle.unit(uid).to_dict() == p4.battle.unit(uid).to_dict()


def test_example_1_phase_4_may_not_be_left_with_the_melee_unresolved():
    b = example_1()
    p2 = resolve(b, ChargeApproach("va4", "wis2"), TableDice([2, 4, 1, 6, 5, 5]), T)
    b4 = resolve(resolve(p2.battle, NextPhase(), TableDice([]), T).battle, NextPhase(), TableDice([]), T)
    with pytest.raises(IllegalAction, match="4th Virginia against 2nd Wisconsin's front") as exc:
        resolve(b4.battle, NextPhase(), TableDice([]), T)
    assert exc.value.rule == "RULE-06-1.1"


def test_example_1_open_field_clash_stonewall_vs_iron_brigade():
    b = example_1()
    dice = TableDice([2, 4, 1, 6, 5, 5, 5, 3, 4])  # volley, discipline, shock VA, shock WI, leader
    r = resolve_charge(b, Charge("va4", "wis2"), dice, T)
    assert dice.remaining == ()
    assert [x.purpose for x in dice.rolls] == [
        "closing volley",
        "discipline check",
        "attacker shock roll",
        "defender shock roll",
        "leader loss roll",
    ]
    # Step 1: Garnett spends 1 Staff Pip; the charge pauses at the 4.0" line
    assert r.battle.brigade_of("va4").staff_pips == 1
    assert any(s.rule == "RULE-06-2.1" for s in r.steps)
    # Step 2: 3 hits, 1 stand + 1 micro-hit, Disorder; discipline 5 passes (Veteran 3+)
    v = r.approach.volley
    assert (v.hits, v.stands_lost, v.micro_hits_after, v.disorder_inflicted) == (3, 1, 1, True)
    assert r.approach.discipline_roll == 5 and r.end == ChargeEnd.CONTACT
    # Step 3: 11 to 9 with the printed modifiers
    m = r.melee
    assert (m.attacker_score, m.defender_score) == (11, 9)
    att = next(s for s in r.steps if s.text.startswith("4th Virginia (attacker) shock score"))
    assert att.dice == (5,) and "+ 4 stands" in att.text
    assert sorted((x.label.split(" (")[0], x.value) for x in att.modifiers) == sorted(
        [
            ("Fresh", 1),
            ("Charging momentum", 1),
            ("Rebel Yell", 1),
            ("Brigadier Garnett attached", 1),
            ("Disordered", -2),
        ]
    )
    dfn = next(s for s in r.steps if s.text.startswith("2nd Wisconsin (defender) shock score"))
    assert dfn.dice == (3,) and "+ 5 stands" in dfn.text
    assert [(x.label, x.value) for x in dfn.modifiers] == [("Fresh", 1)]
    # Step 4: the Wisconsin loses a stand, is Disordered and retreats 6.0"; the Virginians consolidate 2.0"
    assert m.outcome == Outcome.ATTACKER_WINS
    wi, va = r.battle.unit("wis2"), r.battle.unit("va4")
    assert wi.stands == 4 and wi.disordered
    assert wi.y == pytest.approx(20.0 - 6.0)
    assert va.stands == 4 and va.micro_hits == 1
    assert va.y == pytest.approx(20.0 - 2.0)  # contact at the Wisconsin's front edge, then 2.0" forward
    assert r.battle.unit("wis2").has(Marker.SMOKE)
    # Leader check: 4 = Unhurt
    leader = r.steps[-1]
    assert leader.text.endswith("Unhurt") and leader.dice == (4,)
    assert "lost a stand to the closing volley" in leader.text  # not in the melee, which it won
    g = r.battle.brigade_of("va4").brigadier
    assert g.status == BrigadierStatus.ACTIVE and g.attached_to == "va4"


def example_2() -> Battle:
    brooklyn = Unit(
        id="ny14",
        name="14th Brooklyn",
        side="usa",
        brigade="union",
        kind=UnitKind.INFANTRY,
        stands=6,
        stands_start=6,
        quality=Quality.REGULAR,
        formation=Formation.ASSAULT_COLUMN,
        x=40.0,
        y=28.0,
        facing_deg=0.0,
    )
    nc7 = Unit(
        id="nc7",
        name="7th North Carolina",
        side="csa",
        brigade="branch",
        kind=UnitKind.INFANTRY,
        stands=4,
        stands_start=4,
        quality=Quality.REGULAR,
        x=40.0,
        y=20.0,
        facing_deg=180.0,
    )
    wall = TerrainFeature(
        id="wall", type=TerrainType.STONE_WALL, points=((30.0, 20.0), (50.0, 20.0)), name="stone wall"
    )
    brigades = [
        Brigade(
            id="union", name="Union brigade", side="usa", brigadier=Brigadier(name="Hatch"), staff_pips=1
        ),
        Brigade(
            id="branch", name="Branch's Brigade", side="csa", brigadier=Brigadier(name="Branch"), staff_pips=1
        ),
    ]
    return _battle([brooklyn, nc7], brigades, [wall], active="usa")


def test_example_2_through_phase_2_and_phase_4():
    b = example_2()
    p2, pm, b4, p4, d2, d4 = two_phases(b, "ny14", "nc7", [1, 3, 5, 2], [4, 4])
    # Phase 2: 1 hit, no stand lost, no natural 6: no discipline check; the column hits the wall
    assert [x.purpose for x in d2.rolls] == ["closing volley"]
    ny = p2.battle.unit("ny14")
    assert (ny.stands, ny.micro_hits, ny.disordered) == (6, 1, False) and ny.has(Marker.ENGAGED)
    assert pm.situation.defender_obstacle.value == "stone_wall" and pm.stands_lost == {}
    # Phase 4: 10 to 11, the Brooklyn is repulsed from the wall
    assert p4.summary.endswith("defender wins (10 to 11)")
    att = next(x for x in p4.steps if x.text.startswith("14th Brooklyn (attacker)"))
    assert "2 front + 2 supporting" in att.text
    assert sorted((x.label, x.value) for x in att.modifiers) == [("Assault column", 1), ("Fresh", 1)]
    dfn = next(x for x in p4.steps if x.text.startswith("7th North Carolina (defender)"))
    assert sorted((x.label, x.value) for x in dfn.modifiers) == [("Defending stone wall", 2), ("Fresh", 1)]
    ny, nc = p4.battle.unit("ny14"), p4.battle.unit("nc7")
    assert (ny.stands, ny.micro_hits, ny.disordered) == (5, 1, True)
    assert ny.y == pytest.approx(20.0 + 6.0)
    assert (nc.stands, nc.x, nc.y, nc.disordered) == (4, 40.0, 20.0, False)
    assert not nc.has(Marker.ENGAGED) and pending_melees(p4.battle) == ()
    # Phase 4 can now be left
    assert resolve(p4.battle, NextPhase(), TableDice([]), T).battle.phase == Phase.END


def test_example_2_storming_a_fortified_stone_wall():
    b = example_2()
    dice = TableDice([1, 3, 5, 2, 4, 4])
    r = resolve_charge(b, Charge("ny14", "nc7"), dice, T)
    assert dice.remaining == ()
    assert r.battle.brigade_of("ny14").staff_pips == 0
    v = r.approach.volley
    assert (v.hits, v.stands_lost, v.micro_hits_after, v.disorder_inflicted) == (1, 0, 1, False)
    assert r.approach.discipline_roll is None  # no discipline check is required
    m = r.melee
    assert (m.attacker_score, m.defender_score) == (10, 11)
    att = next(s for s in r.steps if s.text.startswith("14th Brooklyn (attacker)"))
    assert "+ 4 stands" in att.text and "2 front + 2 supporting" in att.text
    assert sorted((x.label, x.value) for x in att.modifiers) == [("Assault column", 1), ("Fresh", 1)]
    assert any("no charging momentum" in s.text and "RULE-06-5.2" in s.text for s in r.steps)
    dfn = next(s for s in r.steps if s.text.startswith("7th North Carolina (defender)"))
    assert "+ 4 stands" in dfn.text
    assert sorted((x.label, x.value) for x in dfn.modifiers) == [("Defending stone wall", 2), ("Fresh", 1)]
    assert m.outcome == Outcome.DEFENDER_WINS
    ny, nc = r.battle.unit("ny14"), r.battle.unit("nc7")
    assert (ny.stands, ny.micro_hits, ny.disordered) == (5, 1, True)
    assert ny.y == pytest.approx(20.0 + 6.0)  # from the wall, 6.0" back into the open
    assert (nc.stands, nc.x, nc.y, nc.disordered) == (4, 40.0, 20.0, False)
    assert any(s.rule == "RULE-06-5.2" for s in r.steps)
