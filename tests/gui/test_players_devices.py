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
