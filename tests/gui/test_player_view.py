"""Player views: the map as one side sees it, in a window of its own that follows the game, the
umpire's map as a side sees it, and the battle log read as a side saw it."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QWidget

from gui.canvas import UnitItem
from gui.controller import GameController
from gui.main_window import MainWindow
from gui.player_view import GhostItem, PlayerScene, PlayerWindow, open_player_view
from rules.actions import EndTurn, MoveUnit, NextPhase, Override
from tests.sight_game import UMPIRES_NOTE, UNSEEN_BY_CSA, UNSEEN_BY_UNION, sight_game


@pytest.fixture
def played(qtbot, tmp_path):
    g = sight_game(tmp_path)
    c = GameController()
    c.set_game(g, str(g.path))
    yield c
    c.close()


def unit_items(scene: PlayerScene) -> dict[str, UnitItem]:
    """The unit items the scene holds, read from the scene itself."""
    return {it.unit_id: it for it in scene.items() if isinstance(it, UnitItem)}


def all_text(window: QWidget, scene: PlayerScene) -> str:
    labels = [w.text() for w in window.findChildren(QLabel)]
    return " ".join([window.windowTitle(), *labels, *scene.texts()])


def test_the_player_scene_holds_no_item_for_an_unseen_enemy_unit(played, qtbot):
    w = PlayerWindow(played, "csa")
    qtbot.addWidget(w)
    items = unit_items(w.scene)
    battle = played.battle
    # the Confederates' own units, all of them, in full
    own = {u.id for u in battle.oob.in_play("csa")}
    assert own <= set(items)
    assert items["tx1"].unit.hidden  # its own hidden unit, shown to its own side as it is
    # the enemy units they see, and no other
    assert {uid for uid, it in items.items() if it.unit.side == "union"} == {"batb4us", "ind19", "bkn14"}
    assert not {"wis2", "mn1"} & set(items)
    text = all_text(w, w.scene)
    for name in UNSEEN_BY_CSA:
        assert name not in text
    assert "19th Indiana" in text
    # what the table does not show of an enemy unit is not on the map
    assert "veteran" not in items["batb4us"].toolTip()


def test_the_union_player_view_does_not_show_the_hidden_texans(played, qtbot):
    w = PlayerWindow(played, "union")
    qtbot.addWidget(w)
    assert "tx1" not in unit_items(w.scene)
    assert "Hood's Texans" not in all_text(w, w.scene)
    for name in UNSEEN_BY_UNION:
        assert name not in all_text(w, w.scene)
    # no umpire's notes, no overrides, no odds
    text = all_text(w, w.scene)
    assert UMPIRES_NOTE not in text and "override" not in text.lower() and "odds" not in text.lower()


def test_the_player_view_follows_each_step_and_draws_a_ghost_where_a_unit_was_last_seen(played, qtbot):
    w = PlayerWindow(played, "csa")
    qtbot.addWidget(w)
    notices = []
    played.changed.connect(notices.append)
    played.run(EndTurn())  # turn 2
    played.run(NextPhase())
    was = played.battle.unit("bkn14")
    played.run(Override("unit", "bkn14", {"x": 36.0, "y": 9.0}, "behind the ridge"))
    assert len(notices) == 3  # one change notice a step, and the view followed each
    items = unit_items(w.scene)
    assert "bkn14" not in items or isinstance(items["bkn14"], GhostItem)
    ghost = w.scene.ghosts["bkn14"]
    assert ghost.label.text() == "14th Brooklyn — last seen turn 2"
    assert (ghost.unit.x, ghost.unit.y) == (was.x, was.y)
    assert not any(
        isinstance(it, UnitItem) and not isinstance(it, GhostItem) and it.unit_id == "bkn14"
        for it in w.scene.items()
    )
    # Undo takes it back: the Brooklyn in plain view again, no ghost
    played.undo()
    assert "bkn14" not in w.scene.ghosts
    assert not isinstance(unit_items(w.scene)["bkn14"], GhostItem)


def test_a_hidden_unit_appears_in_the_enemy_view_when_spotted_and_not_before(played, qtbot):
    w = PlayerWindow(played, "csa")
    qtbot.addWidget(w)
    played.run(EndTurn())
    played.run(NextPhase())
    played.run(MoveUnit("nc28", 14.0, 19.0, mode="march"))
    assert "mn1" not in unit_items(w.scene)
    assert "1st Minnesota" not in all_text(w, w.scene)
    played.run(Override("unit", "nc28", {"y": 17.0}, "into the woods' edge"))
    played.run(NextPhase())
    assert "mn1" in unit_items(w.scene)
    assert unit_items(w.scene)["mn1"].unit.name == "1st Minnesota"


def test_f11_puts_the_player_view_full_screen_and_back(played, qtbot):
    w = PlayerWindow(played, "union")
    qtbot.addWidget(w)
    w.show()
    assert [s.toString() for s in w.full_screen_action.shortcuts()][0] == "F11"
    w.full_screen_action.trigger()
    assert w.full_screen_action.isChecked() and w.isFullScreen()
    w.full_screen_action.trigger()
    assert not w.isFullScreen()


def test_view_menu_opens_a_player_view_per_side_and_switches_the_umpires_map(qtbot, tmp_path):
    g = sight_game(tmp_path)
    win = MainWindow()
    qtbot.addWidget(win)
    win.controller.set_game(g, str(g.path))
    players = win.menus["players"]
    players.aboutToShow.emit()
    texts = [a.text() for a in players.actions()]
    assert texts == ["Union…", "Confederate…"]
    players.actions()[1].trigger()
    assert len(win.player_windows) == 1 and win.player_windows[0].side == "csa"
    pv = win.player_windows[0]
    assert "wis2" not in unit_items(pv.scene)
    # the umpire's map as the Confederates see it: their scene, the tools off; then back
    umpire = win.menus["umpire_map"]
    umpire.aboutToShow.emit()
    umpire.actions()[2].trigger()
    assert isinstance(win.canvas.view.scene(), PlayerScene)
    assert "wis2" not in unit_items(win.canvas.view.scene())
    assert not win.canvas.toolbar.isEnabled()
    assert "As the Confederate side sees it" in win.canvas.status.text()
    # it follows the game: the Indiana marches behind the crest and is left as a ghost
    win.controller.run(EndTurn())
    win.controller.run(NextPhase())
    win.controller.run(EndTurn())
    win.controller.run(NextPhase())
    win.controller.run(MoveUnit("ind19", 26.0, 10.0, mode="march"))
    assert isinstance(unit_items(win.canvas.view.scene())["ind19"], GhostItem)
    umpire.aboutToShow.emit()
    umpire.actions()[0].trigger()
    assert win.canvas.view.scene() is win.canvas.scene and win.canvas.toolbar.isEnabled()
    assert "wis2" in win.canvas.scene.units
    win.close()
    assert not pv.isVisible()


def test_open_player_view_keeps_the_windows_of_the_main_window(qtbot, tmp_path):
    g = sight_game(tmp_path)
    win = MainWindow()
    qtbot.addWidget(win)
    win.controller.set_game(g, str(g.path))
    a = open_player_view(win, "union")
    b = open_player_view(win, "csa")
    assert win.player_windows == [a, b]
    assert a.parent() is win and a.isWindow() and a.isVisible()
    # closing the main window closes them: they would keep the program running
    win.close()
    assert not a.isVisible() and not b.isVisible()


def test_the_log_read_as_a_side_saw_it(played, qtbot):
    from gui.log_view import LogView

    log = LogView(played)
    qtbot.addWidget(log)
    everything = dict(log._items)
    assert len(everything) == played.game.last_seq
    log.show_side("csa")
    shown = set(log._items)
    wis = next(e.seq for e in played.events() if e.summary.startswith("2nd Wisconsin marches"))
    ruling = next(e.seq for e in played.events() if e.type == "override")
    assert wis not in shown and ruling not in shown
    words = " ".join(it.text(0) for it in log._items.values())
    words += " ".join(it.child(i).text(0) for it in log._items.values() for i in range(it.childCount()))
    for name in UNSEEN_BY_CSA:
        assert name not in words
    assert "19th Indiana marches" in words
    assert "the Confederate side saw" in log.count.text()
    # it follows the game as it is played, as the side sees it
    played.run(EndTurn())
    assert played.game.last_seq in log._items
    log.select_seq(played.game.last_seq)
    detail = log.detail.toPlainText()
    assert "as the Confederate side saw it" in detail
    assert not any(name in detail for name in UNSEEN_BY_CSA)
    # Undo takes the entry off the side's log too
    last = played.game.last_seq
    played.undo()
    assert last not in log._items and "the Confederate side saw" in log.count.text()
    played.run(EndTurn())
    assert played.game.last_seq in log._items
    # and back to everything
    log.show_side(None)
    assert set(log._items) == set(range(1, played.game.last_seq + 1))


def test_the_umpire_hides_a_unit_with_a_reason_in_the_inspector(played, qtbot, answer):
    from gui.canvas import BattlefieldScene
    from gui.inspector import InspectorView

    scene = BattlefieldScene(played)
    scene.set_battle(played.battle)
    insp = InspectorView(played)
    qtbot.addWidget(insp)
    played.select(["va5"])
    assert not insp.hidden.isChecked()
    insp.hidden.setChecked(True)
    assert "hidden" in insp.pending.text()
    answer.reason("they went to ground behind the wall before dawn")
    insp.override()
    assert played.battle.unit("va5").hidden
    last = played.events()[-1]
    assert last.type == "override" and "they went to ground" in last.summary
    # the umpire's map says so; the Union, who saw the Virginians, keep only where they last were
    assert scene.units["va5"].label.text() == "5th Virginia (hidden)"
    w = PlayerWindow(played, "union")
    qtbot.addWidget(w)
    assert isinstance(unit_items(w.scene)["va5"], GhostItem)
    assert w.scene.ghosts["va5"].label.text() == "5th Virginia — last seen turn 1"


def test_full_screen_has_each_key_once_on_a_desktop_whose_own_key_is_f11():
    """GNOME's full-screen key is F11: the action must not hold F11 twice, or Qt takes neither
    ("Ambiguous shortcut overload: F11")."""
    from PySide6.QtGui import QKeySequence

    from gui.player_view import full_screen_keys

    gnome = [QKeySequence("F11"), QKeySequence("Ctrl+Meta+F")]
    assert [k.toString() for k in full_screen_keys(gnome)] == ["F11", QKeySequence("Ctrl+Meta+F").toString()]
    assert [k.toString() for k in full_screen_keys([])] == ["F11"]
    assert [k.toString() for k in full_screen_keys([QKeySequence()])] == ["F11"]


def test_no_key_has_two_owners_in_the_player_view_or_the_main_window(played, qtbot, window_on):
    """One owner per shortcut: no two actions of a window (nor one action twice) answer one key."""
    from PySide6.QtGui import QAction

    w = PlayerWindow(played, "csa")
    qtbot.addWidget(w)
    main = window_on(played.game)
    for window in (w, main):
        owners: dict[str, list[str]] = {}
        for a in window.findChildren(QAction):
            for k in a.shortcuts():
                if not k.isEmpty():
                    owners.setdefault(k.toString(), []).append(a.text())
        assert {k: v for k, v in owners.items() if len(v) > 1} == {}


def test_the_umpires_map_as_a_side_keeps_the_window_size_on_a_laptop(qtbot, tmp_path, monkeypatch, window_on):
    """At 1366 x 768 the line that says whose map it is wraps: showing a side's view neither widens
    the window (Next phase and End turn off the screen) nor narrows the order of battle, and
    Everything gives the window back as it was."""
    from PySide6.QtCore import QRect

    from gui import screens
    from storage.game import Game
    from storage.scenario import load_bundled

    monkeypatch.setattr(screens, "available", lambda widget=None: QRect(0, 0, 1366, 768))
    win = window_on(Game.create(tmp_path / "gettysburg.sqlite", load_bundled("gettysburg")))
    qtbot.wait(20)
    win.apply_default_dock_sizes()
    qtbot.wait(20)
    roster = win.docks["roster"]
    before = (win.width(), roster.width(), win.roster.tree.header().sectionSize(0))
    assert before[0] <= 1366
    for side in ("union", "csa", None):
        win.side_map.show_side(side)
        qtbot.wait(20)
        assert (win.width(), roster.width(), win.roster.tree.header().sectionSize(0)) == before, side
        assert win.canvas.status.isVisible() == (side is not None)
