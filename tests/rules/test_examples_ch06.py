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

Example 2 does not give the distance of the charge or the Brooklyn's quality; it is set 8.0" away
and Regular (as the 14th Brooklyn is in chapter 04, Example A). Neither changes the result:
momentum is lost at the wall and no discipline check is taken.
"""

from __future__ import annotations

import pytest

from rules.assault import Charge, ChargeEnd, resolve_charge
from rules.battle import Battle
from rules.dice import TableDice
from rules.melee import Outcome
from rules.model import (
    Brigade,
    Brigadier,
    BrigadierStatus,
    Formation,
    Marker,
    OrderOfBattle,
    Phase,
    Quality,
    Side,
    Unit,
    UnitKind,
    Weapon,
)
from rules.tables import load_tables
from rules.terrain import TerrainFeature, TerrainType

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
