"""Whatever the umpire does, undoes and redoes, the roster and the map show exactly the battle.

The views update row by row and item by item from change summaries; this checks, after every
step of random sequences of actions, that nothing was missed or left behind.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gui.canvas import CanvasWidget
from gui.controller import GameController
from gui.roster import RosterView
from gui.roster_model import COL_STANDS, ID_ROLE, stands_text
from rules.actions import AddBrigade, EditUnit, MoveUnit, Override, RemoveBrigade, RemoveUnit
from tests.conftest import make_small_battle


def check_views(controller, roster, canvas) -> None:
    battle = controller.battle
    model = roster.model
    assert set(model.unit_ids()) == set(battle.units)
    for uid, u in battle.units.items():
        idx = model.unit_index(uid)
        assert idx.parent().data(ID_ROLE) == u.brigade
        assert model.unit_text(uid, COL_STANDS) == stands_text(u.stands, u.stands_start, u.micro_hits)
    for bid in battle.brigades:
        assert model.brigade_index(bid).isValid()
    assert set(canvas.scene.units) == set(battle.units)
    assert set(canvas.scene.terrain) == {f.id for f in battle.terrain}
    for uid, item in canvas.scene.units.items():
        assert item.unit == battle.units[uid]
        assert item.footprint.centre_front == pytest.approx((battle.units[uid].x, battle.units[uid].y))


steps = st.lists(
    st.one_of(
        st.tuples(
            st.just("move"),
            st.sampled_from(["wis2", "ind19", "va4", "tx1"]),
            st.floats(1, 70),
            st.floats(1, 46),
        ),
        st.tuples(st.just("hit"), st.sampled_from(["wis2", "va4", "va27"]), st.integers(0, 5)),
        st.tuples(st.just("remove"), st.sampled_from(["ind19", "va27", "btyB"])),
        st.tuples(st.just("brigade"), st.sampled_from(["texas", "new"])),
        st.tuples(st.just("undo")),
        st.tuples(st.just("redo")),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seq=steps)
def test_roster_and_map_match_the_battle_after_any_actions_undos_and_redos(qtbot, tmp_path_factory, seq):
    from storage.game import Game

    folder = tmp_path_factory.mktemp("views")
    game = Game.create(folder / "g.sqlite", make_small_battle(), seed=5)
    controller = GameController()
    controller.set_game(game, str(game.path))
    roster = RosterView(controller)
    canvas = CanvasWidget(controller)
    qtbot.addWidget(roster)
    qtbot.addWidget(canvas)
    canvas._game_replaced()
    try:
        for step in seq:
            kind = step[0]
            battle = controller.battle
            if kind == "move" and step[1] in battle.units:
                controller.run(MoveUnit(unit_id=step[1], x=round(step[2], 1), y=round(step[3], 1)))
            elif kind == "hit" and step[1] in battle.units:
                u = battle.units[step[1]]
                controller.run(
                    Override(
                        target="unit",
                        target_id=u.id,
                        values={"stands": min(step[2], u.stands_start), "micro_hits": 0},
                        reason="test",
                    )
                )
            elif kind == "remove" and step[1] in battle.units:
                controller.run(RemoveUnit(unit_id=step[1]))
            elif kind == "brigade":
                if step[1] == "texas" and "texas" in battle.brigades:
                    controller.run(RemoveBrigade(brigade_id="texas"))
                elif step[1] == "new" and "irish" not in battle.brigades:
                    controller.run(
                        AddBrigade(
                            brigade={
                                "id": "irish",
                                "name": "Irish Brigade",
                                "side": "union",
                                "brigadier": {"name": "Meagher"},
                            }
                        )
                    )
            elif kind == "undo":
                controller.undo()
            elif kind == "redo":
                controller.redo()
            check_views(controller, roster, canvas)
    finally:
        controller.close()


def test_a_unit_moved_to_another_brigade_is_refiled_and_undo_puts_it_back(qtbot, controller):
    roster = RosterView(controller)
    canvas = CanvasWidget(controller)
    qtbot.addWidget(roster)
    qtbot.addWidget(canvas)
    canvas._game_replaced()
    controller.run(
        AddBrigade(
            brigade={
                "id": "irish",
                "name": "Irish Brigade",
                "side": "union",
                "brigadier": {"name": "Meagher"},
            }
        )
    )
    controller.run(EditUnit(unit_id="ind19", values={"brigade": "irish"}))
    assert roster.model.unit_index("ind19").parent() == roster.model.brigade_index("irish")
    assert roster.model.brigade_text("irish", COL_STANDS) == "4/5"
    assert roster.model.brigade_text("iron", COL_STANDS) == "8/8"
    check_views(controller, roster, canvas)
    controller.undo()
    assert roster.model.unit_index("ind19").parent() == roster.model.brigade_index("iron")
    assert roster.model.brigade_text("irish", COL_STANDS) == "0/0"
    check_views(controller, roster, canvas)
