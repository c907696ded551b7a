"""View > Players' devices: the window serves each side's page in a process of its own, shows one
link and QR code per side, issues new links that end the old ones, and stops serving when it
closes."""

from __future__ import annotations

import urllib.error
import urllib.request

from gui.players_devices import open_players_devices, qr_png
from rules.actions import EndTurn
from tests.sight_game import UNSEEN_BY_CSA, sight_game


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return -1


def body(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.read().decode()


def test_the_window_serves_each_sides_page_with_its_link_and_code(window_on, qtbot, tmp_path):
    win = window_on(sight_game(tmp_path))
    dlg = open_players_devices(win)
    assert any("Players' devices" in a.text().replace("&", "") for a in win.menus["view"].actions())
    dlg.host.setCurrentIndex(dlg.host.findData("127.0.0.1"))
    dlg.start()
    qtbot.waitUntil(lambda: dlg.server.info is not None, timeout=20000)
    links = dlg.server.info["links"]
    assert set(links) == {"union", "csa"}
    from PySide6.QtWidgets import QLineEdit

    fields = {f.objectName(): f.text() for f in dlg.findChildren(QLineEdit)}
    assert fields == {f"link-{s}": u for s, u in links.items()}
    page = body(links["csa"])
    assert "4th Virginia" in page and not any(n in page for n in UNSEEN_BY_CSA)
    # the page follows what the window plays
    win.controller.run(EndTurn())
    qtbot.waitUntil(lambda: "Turn 2" in body(links["union"]), timeout=10000)
    # new links end the old ones
    dlg.renew()
    new = dlg.server.info["links"]
    assert new["csa"] != links["csa"]
    assert status(links["csa"]) == 403 and status(new["csa"]) == 200
    # closing the window stops serving: no link opens any more
    win.close()
    assert not dlg.server.running
    assert status(new["csa"]) == -1


def test_a_qr_code_is_a_png_of_the_link():
    png = qr_png("http://192.168.1.20:8765/s/abc")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_trigger_window_is_answered_from_the_sides_device_and_the_umpire_takes_it(
    window_on, qtbot, answer, tmp_path
):
    """Chapter 04's Example C: the Georgians march across the Wisconsin's front. The Union's page
    shows the window as the dialog does; the player's answer appears in the umpire's dialog, which
    takes it; the Confederate page shows nothing of it."""
    import re
    import urllib.parse

    from PySide6.QtWidgets import QDialog, QPushButton

    from gui import play
    from rules.reactions.declare import Reaction
    from storage.game import Game
    from tests.gui.test_play_window_a import _example_c

    game = Game.create(tmp_path / "c.sqlite", _example_c())
    win = window_on(game)
    dlg = open_players_devices(win)
    dlg.host.setCurrentIndex(dlg.host.findData("127.0.0.1"))
    dlg.start()
    qtbot.waitUntil(lambda: dlg.server.info is not None, timeout=20000)
    links = dlg.server.info["links"]
    seen: dict = {}

    def window(d):
        if seen:
            d.choose("wis2", None)
            return QDialog.DialogCode.Accepted
        qtbot.waitUntil(lambda: "Trigger Window A" in body(links["union"]), timeout=10000)
        page = body(links["union"])
        assert "Trigger Window A" not in body(links["csa"])
        assert "Refuse the Flank" in page and "Opportunity Fire" in page
        assert "RULE-04-3.1" in page or 'beyond 8"' in page  # the greyed reaction with its reason
        wid = re.search(r'name="window" value="([^"]+)"', page).group(1)
        url = links["union"] + "/answer"
        refused = urllib.request.Request(
            url, data=urllib.parse.urlencode({"window": wid, "wis2": "opportunity_fire"}).encode()
        )
        try:
            urllib.request.urlopen(refused, timeout=5)
            raise AssertionError("a reaction the rules refuse was taken")
        except urllib.error.HTTPError as exc:
            assert exc.code == 400
        with urllib.request.urlopen(
            url, data=urllib.parse.urlencode({"window": wid, "wis2": "refuse_flank"}).encode(), timeout=5
        ) as r:
            assert b"Sent to the umpire" in r.read()
        take = d.findChild(QPushButton, "take_table_answer")
        qtbot.waitUntil(take.isEnabled, timeout=5000)
        assert "Refuse the Flank" in d.findChild(type(d.heading), "table_answer").text()
        assert d.boxes["wis2"].radios[None].isChecked()  # the umpire decides: nothing taken yet
        take.click()
        assert d.boxes["wis2"].radios[Reaction.REFUSE_FLANK].isChecked()
        seen["taken"] = [c.reaction for c in d.choices()]
        return QDialog.DialogCode.Accepted  # the umpire resolves the side's answer

    answer.dialog(window)
    ga8 = game.battle.unit("ga8")
    play.move_units(win.controller, win, [("ga8", ga8.x + 6.0, ga8.y, ga8.facing_deg)])
    assert seen["taken"] == [Reaction.REFUSE_FLANK]
    # logged as the side's answer, sent from the table; the windows answered in the dialog are not
    events = game.events()
    taken = next(e for e in events if e.type == "declare_reaction")
    assert taken.action.from_table and taken.action.reaction == "refuse_flank"
    assert "The Union side's answer for 2nd Wisconsin, sent from the table" in [s.text for s in taken.steps]
    assert all(not e.action.from_table for e in events if e.type == "decline_reaction")
    # the window is gone from the page once the dialog closed
    qtbot.waitUntil(lambda: "Trigger Window A" not in body(links["union"]), timeout=5000)
    win.close()
