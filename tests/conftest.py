"""Shared fixtures.

* Qt runs off screen (``QT_QPA_PLATFORM=offscreen``), set before Qt is imported anywhere, on a
  desktop screen of 1600 x 1000 (``offscreen_screen.json``); tests of smaller screens say so.
  Qt's fills stay on the painting thread, as Brigadier starts Qt (:mod:`gui.qt_environment`).
* Each test gets its own QSettings file, so window layouts and recent files never leak between
  tests or into the umpire's own settings.
* A modal dialog or message box that a test did not expect fails the test at once, instead of
  waiting for a click that never comes. Tests replace the seams in :mod:`gui.dialogs` to answer.
* Property tests explore new random cases on a developer's machine; under CI (``CI`` set) they
  are derandomized, so a run on a given commit is reproducible and a red CI can be replayed.
* ``small_battle``: a little battle (two sides, three brigades, six units, a few kinds of terrain)
  built from the order of battle (:mod:`rules.battle.unit`, :mod:`rules.battle.order_of_battle`) and
  :mod:`rules.battle.battle` alone.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if os.environ["QT_QPA_PLATFORM"] == "offscreen":
    _SCREEN = os.path.join(os.path.dirname(__file__), "offscreen_screen.json")
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={_SCREEN}"

from gui import qt_environment  # noqa: E402

qt_environment.prepare()  # Qt as Brigadier starts it

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

from rules.battle.battle import Battle  # noqa: E402
from rules.battle.order_of_battle import Brigade, Brigadier, OrderOfBattle, Side  # noqa: E402
from rules.battle.terrain import TerrainFeature, TerrainType  # noqa: E402
from rules.battle.unit import Unit  # noqa: E402
from rules.battle.words import Formation, GunType, Marker, Quality, UnitKind, Weapon  # noqa: E402

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


class UnexpectedDialog(AssertionError):
    """A test opened a modal dialog or message box without answering it through gui.dialogs."""


@pytest.fixture(autouse=True)
def _isolated_qsettings(tmp_path, monkeypatch):
    """A QSettings file of the test's own (only when the test uses Qt)."""
    try:
        from PySide6.QtCore import QCoreApplication, QSettings
    except ImportError:  # a rules-only environment
        yield
        return
    QCoreApplication.setOrganizationName("BrigadierTests")
    QCoreApplication.setOrganizationDomain("tests.brigadier.invalid")
    QCoreApplication.setApplicationName(f"Brigadier-{os.getpid()}")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
        QSettings.setPath(QSettings.Format.IniFormat, scope, str(tmp_path / "settings"))
    monkeypatch.setenv("BRIGADIER_SETTINGS_DIR", str(tmp_path / "settings"))
    yield


@pytest.fixture(autouse=True)
def _no_unexpected_modals(monkeypatch):
    """Any modal dialog a test did not expect raises :class:`UnexpectedDialog`."""
    try:
        from PySide6.QtWidgets import QDialog, QFileDialog, QInputDialog, QMessageBox
    except ImportError:
        yield
        return

    def refuse(what):
        def _raise(*args, **kwargs):
            raise UnexpectedDialog(
                f"{what} was opened during a test; answer it by monkeypatching gui.dialogs"
            )

        return _raise

    monkeypatch.setattr(QDialog, "exec", refuse("a modal dialog (QDialog.exec)"))
    monkeypatch.setattr(QMessageBox, "exec", refuse("a message box (QMessageBox.exec)"))
    for name in ("information", "warning", "critical", "question", "about"):
        monkeypatch.setattr(QMessageBox, name, staticmethod(refuse(f"QMessageBox.{name}")))
    for name in ("getOpenFileName", "getSaveFileName", "getExistingDirectory"):
        monkeypatch.setattr(QFileDialog, name, staticmethod(refuse(f"QFileDialog.{name}")))
    for name in ("getText", "getInt", "getDouble", "getItem", "getMultiLineText"):
        monkeypatch.setattr(QInputDialog, name, staticmethod(refuse(f"QInputDialog.{name}")))
    yield


def make_small_battle() -> Battle:
    """Two sides, three brigades and six units on a 72" x 48" table with some terrain."""
    union = Side("union", "Union", "#1f3a93")
    csa = Side("csa", "Confederate", "#8b2323")
    brigades = {
        "iron": Brigade(
            "iron", "Iron Brigade", "union", Brigadier("Meredith", attached_to="wis2"), staff_pips=3
        ),
        "stonewall": Brigade("stonewall", "Stonewall Brigade", "csa", Brigadier("Garnett"), staff_pips=2),
        "texas": Brigade(
            "texas", "Texas Brigade", "csa", Brigadier("Hood"), staff_pips=1, staff_pips_reserved=1
        ),
    }
    units = [
        Unit("wis2", "2nd Wisconsin", "union", "iron", UnitKind.INFANTRY, 5, 5, x=20, y=36, facing_deg=0),
        Unit(
            "ind19",
            "19th Indiana",
            "union",
            "iron",
            UnitKind.INFANTRY,
            4,
            5,
            micro_hits=1,
            quality=Quality.VETERAN,
            x=30,
            y=36,
            markers=frozenset({Marker.DISORDER}),
        ),
        Unit(
            "btyB",
            "Battery B, 4th US",
            "union",
            "iron",
            UnitKind.ARTILLERY,
            3,
            3,
            gun=GunType.NAPOLEON_12PDR,
            weapon=Weapon.NONE,
            formation=Formation.UNLIMBERED,
            x=40,
            y=38,
        ),
        Unit("va4", "4th Virginia", "csa", "stonewall", UnitKind.INFANTRY, 5, 6, x=22, y=14, facing_deg=180),
        Unit(
            "va27",
            "27th Virginia",
            "csa",
            "stonewall",
            UnitKind.INFANTRY,
            2,
            6,
            x=32,
            y=14,
            facing_deg=180,
            formation=Formation.ASSAULT_COLUMN,
            markers=frozenset({Marker.FIRED, Marker.SMOKE}),
        ),
        Unit("tx1", "1st Texas", "csa", "texas", UnitKind.INFANTRY, 6, 6, x=50, y=12, facing_deg=200),
    ]
    oob = OrderOfBattle(sides=(union, csa), brigades=brigades, units={u.id: u for u in units})
    terrain = (
        TerrainFeature(
            "wood1", TerrainType.LIGHT_WOODS, ((4, 4), (14, 3), (16, 12), (6, 14)), name="West Woods"
        ),
        TerrainFeature(
            "hill1",
            TerrainType.HILL,
            ((24, 20), (44, 19), (46, 28), (26, 29)),
            name="Ridge",
            level=1,
            crest=((26, 24), (44, 23.5)),
        ),
        TerrainFeature("wall1", TerrainType.STONE_WALL, ((20, 33), (34, 33)), name="Stone wall"),
        TerrainFeature("creek", TerrainType.STREAM, ((0, 44), (30, 42), (72, 45)), name="Antietam Creek"),
        TerrainFeature("pike", TerrainType.ROAD, ((60, 0), (58, 24), (62, 48)), name="Hagerstown Pike"),
        TerrainFeature(
            "town", TerrainType.TOWN_MASONRY, ((62, 30), (68, 30), (68, 36), (62, 36)), name="Sharpsburg"
        ),
    )
    return Battle(name="Small battle", oob=oob, terrain=terrain, active_side="union", first_side="union")


@pytest.fixture
def small_battle() -> Battle:
    return make_small_battle()


@pytest.fixture
def game(tmp_path, small_battle):
    """A saved game of the small battle, in the test's own folder, closed afterwards."""
    from storage.game import Game

    g = Game.create(tmp_path / "small.sqlite", small_battle, seed=1863)
    yield g
    g.close()


@pytest.fixture
def demo_battle():
    """The bundled demo battle (Oak Ridge), as a scenario loads it."""
    from storage.scenario import load_demo

    return load_demo()
