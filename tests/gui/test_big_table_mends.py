"""What a new user found wrong, mended: an illegal charge's empty odds chart, firers with nothing to
fire at, the charge dialog's first target, two roundings of one distance, the log's UTC times, a
terrain feature's name said twice, a wheel handle too small and too quick, a turn summary's lone
headings and its one paper, and charts whose legends covered their lines."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QGraphicsItem

from rules.actions import AddTerrain, NextPhase, SpendPip
from rules.battle.words import Phase
from rules.dice import SeededDice
from rules.legality import allowed, charge_targets, shoot_firers_with_targets, shoot_targets
from rules.tables import load_tables
from storage.game import Game
from storage.scenario import load_bundled, load_demo

T = load_tables()


@pytest.fixture(scope="module")
def maneuver():
    from rules.actions import resolve

    b = load_bundled("gettysburg")
    for br in ("pettigrew", "brockenbrough"):
        b = resolve(b, SpendPip(br), SeededDice(1), T).battle
    return resolve(b, NextPhase(), SeededDice(1), T).battle


def test_an_illegal_charge_shows_why_instead_of_an_empty_odds_chart(qtbot, maneuver):
    from gui.combat_dialogs import ChargeDialog

    dlg = ChargeDialog(maneuver, T, "nc26", "pa151")  # beyond the Double-Quick range
    qtbot.addWidget(dlg)
    assert not dlg.chart.isVisibleTo(dlg) and dlg.no_odds.isVisibleTo(dlg)
    assert "No odds: the charge cannot be declared" in dlg.no_odds.text()
    assert "RULE-06-1" in dlg.no_odds.text()
    dlg.set_units("nc11", "wi7")  # a charge that may be made: its odds, drawn
    assert dlg.chart.isVisibleTo(dlg) and not dlg.no_odds.isVisibleTo(dlg)
    assert dlg.odds is not None


def test_the_charge_dialogs_first_target_is_the_nearest_it_may_charge(qtbot, maneuver):
    from gui.combat_dialogs import ChargeDialog

    for charger in ("nc11", "al6"):
        dlg = ChargeDialog(maneuver, T, charger)
        qtbot.addWidget(dlg)
        nearest = allowed(charge_targets(maneuver, charger, T))[0].unit_id
        assert dlg.target_id() == nearest
        assert "Every condition of the declaration is met" in dlg.problems.text()
        assert dlg.ok_button.isEnabled()


def test_the_shoot_dialog_offers_only_units_that_can_fire(qtbot):
    from gui.combat_dialogs import ShootDialog
    from rules.actions import resolve

    b = load_bundled("gettysburg")
    for _ in range(2):
        b = resolve(b, NextPhase(), SeededDice(1), T).battle
    assert b.phase == Phase.RANGED
    dlg = ShootDialog(b, T)
    qtbot.addWidget(dlg)
    offered = [dlg.firer.itemData(i) for i in range(dlg.firer.count())]
    assert 0 < len(offered) < len(b.oob.in_play("csa"))
    for uid in offered[:: max(1, len(offered) // 6)]:  # each offered has a target the rules allow
        assert allowed(shoot_targets(b, uid, T)), uid
    refused = [o for o in shoot_firers_with_targets(b, T) if not o.allowed]
    for o in refused[:: max(1, len(refused) // 4)]:  # and each left out has none
        assert not allowed(shoot_targets(b, o.unit_id, T)), o.unit_id
    asked = ShootDialog(b, T, firer_id=refused[0].unit_id)
    qtbot.addWidget(asked)
    assert "may not fire" in asked.firer_refused.text() and "no enemy" in asked.firer_refused.text()


def test_a_distance_reads_to_the_tenth_of_an_inch_everywhere(qtbot, maneuver):
    from gui.combat_dialogs import ChargeDialog
    from rules.describe import inches

    assert inches(19.62) == '19.6"' and inches(7.998) == '8"'
    dlg = ChargeDialog(maneuver, T, "nc26")
    qtbot.addWidget(dlg)
    texts = [dlg.target.itemText(i) for i in range(dlg.target.count())]
    texts += [str(o) for o in charge_targets(maneuver, "nc26", T)]
    two_places = [t for t in texts if re.search(r'\d\.\d\d"', t)]
    assert two_places == []
    # the target list and the refusal say the same distance
    o = charge_targets(maneuver, "nc26", T)[2]
    shown = re.search(r"\(([\d.]+)\"\)", dlg.target.itemText(2)).group(1)
    assert f'{shown}"' in str(o) or o.allowed


def test_the_log_says_when_in_local_time_readably():
    from gui.log_text import local_time

    text = local_time("2026-07-04T18:03:12+00:00")
    assert re.fullmatch(r"\w{3} \d{1,2} \w{3} 2026, \d\d:\d\d:12", text)
    assert "+00:00" not in text and "T" not in text.split(",")[0][-3:]


def test_a_feature_drawn_without_a_name_is_named_once(tmp_path):
    g = Game.create(tmp_path / "g.sqlite", load_demo())
    try:
        ev = g.do(AddTerrain({"id": "w9", "type": "light_woods", "points": [[1, 1], [5, 1], [5, 5]]}))
        assert ev.summary == "Light woods is placed"
        ev = g.do(
            AddTerrain(
                {
                    "id": "w10",
                    "type": "light_woods",
                    "name": "Pitzer's Woods",
                    "points": [[9, 1], [14, 1], [14, 6]],
                }
            )
        )
        assert ev.summary == "Pitzer's Woods (light woods) is placed"
    finally:
        g.close()


def test_the_wheel_handle_is_easy_to_grab_and_its_turn_snaps(qtbot, controller):
    from gui.canvas import CanvasWidget
    from gui.canvas.unit_items import HANDLE_PX, WHEEL_STEP_DEG

    w = CanvasWidget(controller)
    qtbot.addWidget(w)
    w._game_replaced()
    it = w.scene.units["wis2"]
    assert it.handle.flags() & QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations
    assert it.handle.rect().width() == HANDLE_PX >= 18  # pixels on screen, at any zoom
    u = it.unit
    o = it._origin

    def towards(deg: float, fine: bool = False) -> float:
        import math

        a = math.radians(u.facing_deg + deg)
        return it.facing_towards(o + QPointF(math.sin(a) * 5, -math.cos(a) * 5), fine)

    assert towards(6) == u.facing_deg  # a small flick does not turn the unit
    assert towards(34) == (u.facing_deg + 30) % 360  # a turn goes in 15 degree steps
    assert towards(40) == (u.facing_deg + 45) % 360
    assert towards(34, fine=True) == (u.facing_deg + 34) % 360  # Ctrl: a degree at a time
    assert WHEEL_STEP_DEG == 15


def test_a_heading_is_kept_with_what_follows_it_on_the_next_page():
    from PySide6.QtCore import QSizeF
    from PySide6.QtGui import QTextDocument

    from gui import report_pages
    from gui.export import ensure_application

    ensure_application()
    doc = QTextDocument()
    body = "".join(f"<p>Line {i} of the events of the turn.</p>" for i in range(40))
    doc.setHtml(body + "<h2>Casualties</h2><table><tr><td>2nd Wisconsin</td><td>2</td></tr></table>" + body)
    doc.setPageSize(QSizeF(600, 800))
    layout = doc.documentLayout()

    # find a page height where the heading falls alone at the foot of a page
    for h in range(400, 1200, 7):
        doc.setPageSize(QSizeF(600, h))
        block = doc.begin()
        while not block.blockFormat().headingLevel():
            block = block.next()
        r, n = layout.blockBoundingRect(block), layout.blockBoundingRect(block.next())
        if int(r.top() // h) != int((n.top() + n.height() * 0.5) // h):
            break
    else:
        pytest.skip("no page height puts the heading alone here")
    assert report_pages.keep_headings_with_next(doc) >= 1
    block = doc.begin()
    while not block.blockFormat().headingLevel():
        block = block.next()
    r, n = layout.blockBoundingRect(block), layout.blockBoundingRect(block.next())
    assert int(r.top() // h) == int((n.top() + n.height() * 0.5) // h)  # on one page now


@pytest.mark.parametrize(("paper", "points"), [("letter", (612, 792)), ("a4", (595, 842))])
def test_the_turn_summary_prints_on_letter_or_a4(tmp_path, paper, points):
    pypdf = pytest.importorskip("pypdf")
    from gui import report

    g = Game.create(tmp_path / "g.sqlite", load_demo())
    try:
        g.do(NextPhase())
        out = report.write_turn_pdf(g, 1, tmp_path / f"t-{paper}.pdf", paper=paper)
    finally:
        g.close()
    box = pypdf.PdfReader(str(out)).pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == points


def test_the_plots_legends_leave_their_lines_clear_and_the_selected_unit_is_drawn(qtbot, controller):
    from gui.plots import PlotsWidget

    w = PlotsWidget(controller)
    qtbot.addWidget(w)
    w.resize(1400, 420)
    w.show()
    qtbot.waitExposed(w)
    controller.select(["wis2"])
    qtbot.wait(20)
    assert w.columns == 4
    for key, p in w.plots.items():
        vb = p.getViewBox()
        view = vb.mapRectToScene(vb.boundingRect())
        if p.legend is not None:
            legend = p.legend.mapRectToScene(p.legend.boundingRect())
            assert not legend.intersects(view), key  # below the chart, never over a line
    unit = w.plots["unit"]
    assert unit.isVisible() and unit.getViewBox().width() > 100
    data = [it for it in w._items["unit"] if hasattr(it, "xData")]
    assert data and set(data[0].yData) == {5.0}  # the 2nd Wisconsin's 5 stands, turn by turn
    # a small dock: one chart at a time, the selected unit's among them
    w.resize(430, 260)
    qtbot.wait(20)
    assert w.columns == 1 and w.chart_choice.isVisible()
    w.chart_choice.setCurrentIndex(w.chart_choice.findData("unit"))
    assert w.plots["unit"].isVisible() and not w.plots["sides"].isVisible()
    assert w.plots["unit"].getViewBox().width() > 100


def test_an_unnamed_demo_is_unchanged_by_these_mends():
    b = replace(load_demo(), phase=Phase.RANGED)
    assert {o.unit_id for o in allowed(shoot_firers_with_targets(b, T))} == {"va4", "va5", "nc7", "nc28"}
    assert Qt.KeyboardModifier.ControlModifier  # (Ctrl is the fine turn's key)
