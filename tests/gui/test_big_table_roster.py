"""The roster at club scale: the Gettysburg battle's 150 units in a dock a laptop can spare.

The default columns (Name, Stands with micro-hits, Health, Formation, Markers) read whole at the
dock's default width on a 1366-pixel screen, every unit's name too (the list scrolls sideways
where the longest names need more than the dock); a search finds units by
name, id, brigade, Brigadier or marker; any column sorts; and nothing jumps: the scroll position,
the brigades closed and the selection survive every action, undo and redo.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex, QRect, Qt

from gui.roster import RosterView, visible_unit_ids
from gui.roster_model import (
    COL_FORMATION,
    COL_HEALTH,
    COL_MARKERS,
    COL_NAME,
    COL_STANDS,
    COLUMNS,
    ID_ROLE,
    KIND_ROLE,
)
from rules.actions import EditUnit, NextPhase
from storage.game import Game
from storage.scenario import load_bundled


@pytest.fixture
def big(qtbot, tmp_path):
    from gui.controller import GameController

    game = Game.create(tmp_path / "g.sqlite", load_bundled("gettysburg"))
    c = GameController()
    c.set_game(game, str(game.path))
    yield c
    c.close()


@pytest.fixture
def roster(qtbot, big):
    v = RosterView(big)
    qtbot.addWidget(v)
    v.resize(480, 620)
    v.show()
    qtbot.waitExposed(v)
    return v


@pytest.mark.parametrize("scenario", ["demo", "gettysburg"])
def test_at_1366_pixels_every_name_is_whole_at_the_first_width(qtbot, monkeypatch, tmp_path, scenario):
    """Every unit's name reads whole in the dock's first width on a 1366-pixel screen, and every
    entry of the short columns: the demo's without scrolling sideways; Gettysburg's longest names
    need more than the dock a laptop can spare, and the list scrolls sideways rather than cut one."""
    from gui import screens
    from gui.main_window import MainWindow

    monkeypatch.setattr(screens, "available", lambda widget=None: QRect(0, 0, 1366, 768))
    game = Game.create(tmp_path / "g.sqlite", load_bundled(scenario))
    win = MainWindow()
    qtbot.addWidget(win)
    win.controller.set_game(game, str(game.path))
    win.show()
    qtbot.waitExposed(win)
    qtbot.wait(20)
    win.apply_default_dock_sizes()
    qtbot.wait(20)
    v = win.roster
    assert COLUMNS == ("Name", "Stands", "Health", "Formation", "Markers")
    header = v.tree.header()
    right = max(header.sectionPosition(c) + header.sectionSize(c) for c in range(len(COLUMNS)))
    if scenario == "demo":
        assert not v.tree.horizontalScrollBar().isVisible()
        assert right <= v.tree.viewport().width()  # every column in view
    else:  # every column a sideways scroll away
        bar = v.tree.horizontalScrollBar()
        assert bar.isVisible() and bar.maximum() == right - v.tree.viewport().width()
    fm = v.tree.fontMetrics()
    model = v.model
    for uid in model.unit_ids():  # the short columns whole, for every unit
        for col in (COL_STANDS, COL_HEALTH, COL_FORMATION):
            room = v.tree.visualRect(v.proxy.mapFromSource(model.unit_index(uid, col))).width()
            assert fm.horizontalAdvance(model.unit_text(uid, col)) < room, (uid, col)
    for uid in model.unit_ids():  # and every name, in its tooltip too
        idx = model.unit_index(uid, COL_NAME)
        room = v.tree.visualRect(v.proxy.mapFromSource(idx)).width()
        assert fm.horizontalAdvance(idx.data()) + 8 <= room, idx.data()
        assert game.battle.units[uid].name in idx.data(Qt.ItemDataRole.ToolTipRole)
    win.controller.close()


def test_stands_show_the_micro_hits_as_the_umpire_writes_them(roster, big):
    big.run(EditUnit(unit_id="wi7", values={"stands": 4, "micro_hits": 1}))
    assert roster.model.unit_text("wi7", COL_STANDS) == "4/6 +1"
    assert roster.model.unit_text("wi2", COL_STANDS) == "3/5"


@pytest.mark.parametrize(
    "words, expected",
    [
        ("26th north", {"nc26"}),  # a name
        ("nc26", {"nc26"}),  # an id
        ("iron", {"wi2", "wi6", "wi7", "mi24", "in19"}),  # a brigade
        ("pettigrew", {"nc11", "nc26", "nc47", "nc52"}),  # a Brigadier
        ("meredith wisconsin", {"wi2", "wi6", "wi7"}),  # every word
    ],
)
def test_the_search_finds_units_by_name_id_brigade_and_brigadier(roster, words, expected):
    roster.search.setText(words)
    assert set(visible_unit_ids(roster)) == expected
    roster.search.clear()
    assert len(visible_unit_ids(roster)) == 171  # those arriving later listed too


def test_the_search_finds_units_by_marker(roster, big):
    big.run(EditUnit(unit_id="ms2", values={"markers": ["disorder"]}))
    roster.search.setText("disorder")
    assert visible_unit_ids(roster) == ["ms2"]


def _brigade_units(v: RosterView, brigade: str) -> list[str]:
    idx = v.proxy.mapFromSource(v.model.brigade_index(brigade))
    return [v.proxy.index(r, 0, idx).data(ID_ROLE) for r in range(v.proxy.rowCount(idx))]


def test_any_column_sorts_and_a_third_click_is_the_order_of_battle_again(roster, big):
    oob = _brigade_units(roster, "meredith")
    assert oob == ["wi7", "wi2", "mi24", "in19", "wi6"]
    header = roster.tree.header()
    header.sectionClicked.emit(COL_STANDS)  # the view's own click sorts; emitted here as a click
    roster.tree.sortByColumn(COL_STANDS, Qt.SortOrder.AscendingOrder)
    by_strength = _brigade_units(roster, "meredith")
    assert by_strength[0] == "wi2"  # 3 of 5: the weakest
    header.sectionClicked.emit(COL_STANDS)
    roster.tree.sortByColumn(COL_STANDS, Qt.SortOrder.DescendingOrder)
    assert _brigade_units(roster, "meredith")[0] == "mi24"  # 7 of 8
    header.sectionClicked.emit(COL_STANDS)
    assert _brigade_units(roster, "meredith") == oob
    # by name, in number order: the 2nd before the 19th
    roster.tree.sortByColumn(COL_NAME, Qt.SortOrder.AscendingOrder)
    assert _brigade_units(roster, "meredith") == ["wi2", "wi6", "wi7", "in19", "mi24"]
    # by health: the worn first
    roster.tree.sortByColumn(COL_HEALTH, Qt.SortOrder.DescendingOrder)
    assert set(_brigade_units(roster, "meredith")[:2]) == {"wi2", "wi6"}
    roster.tree.sortByColumn(COL_MARKERS, Qt.SortOrder.AscendingOrder)  # no error on any column


def _closed(v: RosterView) -> set[str]:
    out = set()

    def walk(parent):
        for r in range(v.proxy.rowCount(parent)):
            idx = v.proxy.index(r, 0, parent)
            if v.proxy.hasChildren(idx):
                if not v.tree.isExpanded(idx):
                    out.add(idx.data(ID_ROLE))
                walk(idx)

    walk(QModelIndex())
    return out


def test_nothing_jumps_scroll_expansion_and_selection_survive_every_action(qtbot, roster, big):
    v = roster
    big.select(["nc26", "nc47"])  # chosen on the map: the roster shows them
    v.tree.collapse(v.proxy.mapFromSource(v.model.brigade_index("cutler")))
    v.tree.collapse(v.proxy.mapFromSource(v.model.brigade_index("pettigrew")))  # the umpire closes theirs
    bar = v.tree.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    qtbot.wait(10)
    where = bar.value()
    assert where > 0
    for act in (
        lambda: big.run(EditUnit(unit_id="wi7", values={"stands": 4})),  # a unit
        lambda: big.run(NextPhase()),  # the game clock and every brigade
        big.undo,
        big.redo,
        lambda: big.run(EditUnit(unit_id="nc26", values={"micro_hits": 1})),  # the selected unit
    ):
        act()
        qtbot.wait(5)
        assert bar.value() == where
        assert _closed(v) == {"cutler", "pettigrew"}
        assert set(v.selected_ids()) == {"nc26", "nc47"}
    assert v.tree.horizontalScrollBar().value() == 0


def test_a_unit_added_shows_in_its_brigade_even_where_the_umpire_had_closed_others(qtbot, roster, big):
    from rules.actions import AddUnit

    v = roster
    v.tree.collapse(v.proxy.mapFromSource(v.model.brigade_index("cutler")))
    u = big.battle.units["wi2"].to_dict()
    u.update(id="wi2b", name="2nd Wisconsin (second battalion)", x=70.0, y=70.0)
    big.run(AddUnit(unit=u))
    idx = v.proxy.mapFromSource(v.model.unit_index("wi2b"))
    assert idx.isValid() and v.tree.isExpanded(idx.parent())
    assert _closed(v) == {"cutler"}
    assert idx.parent().data(KIND_ROLE) == "brigade"


def test_a_unit_chosen_in_the_order_of_battle_or_found_by_a_search_is_brought_into_view_on_the_map(
    qtbot, tmp_path
):
    """On a map zoomed in, choosing a unit off the screen in the order of battle, or a search's hit,
    scrolls the map to it; a unit already on the screen leaves the map where it is."""
    from PySide6.QtCore import QItemSelectionModel

    from gui.app import make_main_window

    game = Game.create(tmp_path / "g.sqlite", load_bundled("gettysburg"))
    path = str(game.path)
    game.close()
    win = make_main_window(path)
    qtbot.addWidget(win)
    win.resize(1366, 768)
    win.show()
    qtbot.waitExposed(win)
    qtbot.wait(100)  # (the table fitted to the window once it is laid out)
    view, scene, r = win.canvas.view, win.canvas.scene, win.roster
    view.scale(4, 4)

    def on_screen(uid: str) -> bool:
        shown = view.mapToScene(view.viewport().rect()).boundingRect()
        return shown.contains(scene.units[uid].sceneBoundingRect())

    def choose(uid: str) -> None:
        idx = r.proxy.mapFromSource(r.model.unit_index(uid))
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        r.tree.selectionModel().select(idx, flags)

    off = sorted(u for u in scene.units if not on_screen(u))
    assert len(off) > 100
    choose(off[len(off) // 2])
    assert on_screen(off[len(off) // 2])
    # a search's hit: the list filtered to it, and chosen
    target = next(u for u in off if not on_screen(u))
    r.search.setText(win.controller.battle.unit(target).name)
    choose(target)
    assert on_screen(target)
    before = view.mapToScene(view.viewport().rect()).boundingRect()
    near = next(u for u in scene.units if on_screen(u) and u != target)
    choose(near)
    assert view.mapToScene(view.viewport().rect()).boundingRect() == before
    win.controller.close()
