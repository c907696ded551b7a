"""What the main window leaves until it is needed, so that it shows quickly.

pyqtgraph is imported when the Plots tab is first shown (or the charts are asked for), the
battle's course is read then, a new game's map is built once, and a save opens no sqlite-utils
plugins.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parents[2]

_CHILD = """
import sys
from PySide6.QtWidgets import QWidget
from gui.app import application, make_main_window
app = application()
w = make_main_window()
w.show()
app.processEvents()
assert w.controller.battle is not None and w.controller.battle.units
print("pyqtgraph" in sys.modules, "gui.plots" in sys.modules, "importlib.metadata" in sys.modules)
print(*(m in sys.modules for m in ("numpy", "shapely", "sqlite_utils", "rules.actions", "rules.melee.melee", "rules.battlefield.field")))
print(*(m in sys.modules for m in ("gui.dialogs", "gui.help", "gui.preferences", "reports.summary", "rules.sight.knowledge")))
print("gui.rule_links" in sys.modules and w.log.detail.property("rule_links") is True)
import time
from gui.warm_up import WARM_UP_MODULES
deadline = time.monotonic() + 30
while w._warm_up_left and time.monotonic() < deadline:  # the window loads them a step at a time
    app.processEvents()
    time.sleep(0.01)
print(w._warm_up_left == [] and all(m in sys.modules for m in (*WARM_UP_MODULES, "numpy", "rules.melee.melee", "rules.assault.charge")))
w.docks["plots"].raise_()
app.processEvents()
print("pyqtgraph" in sys.modules, w._plots is not None and w._plots.isVisible())
w.reference_action.trigger()
print("gui.help" in sys.modules, w.findChild(QWidget, "rules_reference").isVisible())
"""


def test_the_window_shows_without_pyqtgraph_or_shapely_and_imports_them_when_needed(tmp_path):
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["BRIGADIER_SAVES_DIR"] = str(tmp_path / "saves")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, "-c", _CHILD], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    shown, heavy, later, linked, warmed, plots_tab, reference = out.stdout.strip().splitlines()
    assert shown == "False False False"  # no pyqtgraph, no charts module, no package metadata
    # nor numpy, shapely, sqlite-utils or the rules of melee and sight: warm_up loads them, once
    # the window is on screen, for the first action
    assert heavy == "False False False False False False"
    # nor the dialogs, the rules reference, Preferences, the turn summaries or a side's knowledge:
    # each is imported when first used; the window's citations are links from the start
    assert later == "False False False False False"
    assert linked == "True"
    assert warmed == "True"
    assert plots_tab == "True True"
    assert reference == "True True"  # F1 reads the reference when it is first asked for


def test_the_plots_tab_makes_its_charts_when_first_shown(qtbot, game):
    from gui.app import make_main_window

    path = str(game.path)
    game.close()
    win = make_main_window(path)
    qtbot.addWidget(win)
    win.show()
    QApplication.processEvents()
    assert win._plots is None
    assert win.plots_placeholder.isVisibleTo(win.plots_area)
    win.docks["plots"].raise_()
    QApplication.processEvents()
    assert win._plots is not None and win._plots.isVisible()
    assert not win.plots_placeholder.isVisibleTo(win.plots_area)
    assert win.plots is win._plots  # made once
    assert win._plots.data.turns  # the course of the battle was read
    win.controller.close()


def test_asking_for_the_charts_makes_them_even_behind_the_log(qtbot, game):
    from gui.app import make_main_window
    from gui.plots import PlotsWidget

    path = str(game.path)
    game.close()
    win = make_main_window(path)
    qtbot.addWidget(win)
    assert win._plots is None
    assert isinstance(win.plots, PlotsWidget)
    assert win.plots.parent() is win.plots_area
    win.controller.close()


def test_a_new_game_builds_the_map_once(qtbot, controller, monkeypatch):
    from gui import canvas as canvas_module

    built = []
    original = canvas_module.BattlefieldScene.set_battle

    def counting(self, battle):
        built.append(battle)
        return original(self, battle)

    monkeypatch.setattr(canvas_module.BattlefieldScene, "set_battle", counting)
    cw = canvas_module.CanvasWidget(controller)
    qtbot.addWidget(cw)
    controller.set_game(controller.game, controller.path)
    assert len(built) == 1 and built[0] is controller.battle
    assert set(cw.scene.units) == set(controller.battle.units)


def test_a_save_opens_without_sqlite_utils_plugins(tmp_path, monkeypatch):
    import sqlite_utils.plugins

    from storage.game import Game
    from storage.scenario import load_demo

    looked = []
    monkeypatch.setattr(sqlite_utils.plugins, "ensure_plugins_loaded", lambda: looked.append(1))
    monkeypatch.setattr("sqlite_utils.db.ensure_plugins_loaded", lambda: looked.append(1))
    g = Game.create(tmp_path / "a.sqlite", load_demo())
    g.close()
    Game.open(tmp_path / "a.sqlite").close()
    assert looked == []


def test_the_version_saved_is_the_installed_version():
    from importlib.metadata import version

    from storage.game import app_version

    assert app_version() == version("brigadier")


_DIALOGS = """
import sys
from gui.app import application
application()
import gui.combat_dialogs as cd
print("pyqtgraph" in sys.modules)
chart = cd.OddsChart()
import pyqtgraph
print(isinstance(chart, pyqtgraph.PlotWidget), type(chart).__name__, chart.objectName(), type(cd.OddsChart()) is type(chart))
"""


def test_the_combat_dialogs_import_pyqtgraph_only_for_an_odds_chart(tmp_path):
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, "-c", _DIALOGS], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True", "OddsChart", "odds_chart", "True"]
