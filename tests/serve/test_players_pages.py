"""Each side's page on the players' own devices: what its player view shows and no more, behind
its own secret, following the game as it is played (tests/serve/conftest.py serves it for real)."""

from __future__ import annotations

import time
import urllib.error
import urllib.request

import pytest

from rules.actions import EndTurn, MoveUnit, NextPhase
from serve.server import REFUSED
from storage.game import Game
from tests.sight_game import UNSEEN_BY_CSA, UNSEEN_BY_UNION, sight_game

UNSEEN_IDS = {"csa": ("wis2", "mn1"), "union": ("tx1",)}
UNSEEN_NAMES = {"csa": UNSEEN_BY_CSA, "union": UNSEEN_BY_UNION}


def fetch(url: str, data: bytes | None = None) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, data=data, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def first_update(url: str) -> bytes:
    """The first message of a page's live updates (the page as it stands)."""
    with urllib.request.urlopen(url, timeout=10) as r:
        out = b""
        while b"\n\n" not in out:
            out += r.read1(65536)
        return out


@pytest.fixture
def game_path(tmp_path):
    g = sight_game(tmp_path)
    path = g.path
    g.close()
    return path


def assert_keeps_its_secrets(side: str, body: bytes) -> None:
    text = body.decode("utf-8")
    for name in UNSEEN_NAMES[side]:
        assert name not in text, (side, name)
    for uid in UNSEEN_IDS[side]:
        assert f'"{uid}"' not in text and f"'{uid}'" not in text and f">{uid}<" not in text, (side, uid)


def test_a_sides_page_shows_its_units_and_no_byte_of_an_enemy_it_does_not_see(serving, game_path):
    s = serving(game_path, ["union", "csa"])
    for side in ("union", "csa"):
        status, body = fetch(s.links[side])
        assert status == 200
        assert_keeps_its_secrets(side, body)
        assert_keeps_its_secrets(side, first_update(s.links[side] + "/events"))
    _, csa = fetch(s.links["csa"])
    text = csa.decode()
    assert "4th Virginia" in text  # its own
    assert "19th Indiana" in text and "14th Brooklyn" in text  # the enemy it sees
    assert "<svg" in text and "Staff Pips" in text and "Turn 1" in text
    _, union = fetch(s.links["union"])
    assert "2nd Wisconsin" in union.decode() and "micro-hits" in union.decode()
    # the umpire's note is the umpire's alone
    assert b"secret note" not in csa and b"secret note" not in union


def test_a_wrong_or_missing_secret_gets_a_refusal_and_the_bare_address_shows_no_side(serving, game_path):
    s = serving(game_path, ["union", "csa"])
    for url in (
        s.base + "/s/",
        s.base + "/s/x",
        s.links["csa"][:-1],
        s.links["csa"] + "x",
        s.base + "/u/nope/links",
    ):
        status, body = fetch(url)
        assert status in (403, 404), url
        assert b"Virginia" not in body and b"Confederate" not in body
    status, body = fetch(s.base + "/")
    assert status == 200 and b"Ask the umpire" in body
    assert b"Union" not in body and b"Oak Ridge" not in body
    assert fetch(s.links["union"] + "x")[1].decode() == REFUSED
    # new links end the old ones
    old = s.links["csa"]
    status, body = fetch(s.umpire + "/renew", data=b"")
    assert status == 200
    assert fetch(old)[0] == 403
    new = s.server.link_map(s.base)["csa"]
    assert new != old and fetch(new)[0] == 200
    # each secret is at least 128 bits
    assert len(new.rsplit("/", 1)[1]) >= 22


def test_the_page_follows_every_step_and_undo(serving, game_path):
    s = serving(game_path, ["union", "csa"])
    before = s.server.updates
    with Game.open(game_path) as g:
        g.do(EndTurn())  # turn 2, the Confederates
        deadline = time.monotonic() + 5
        while s.server.updates == before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert s.server.updates > before
        assert b"Turn 2" in fetch(s.links["union"])[1]
        g.undo()
        deadline = time.monotonic() + 5
        while b"Turn 1," not in fetch(s.links["union"])[1] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert b"Turn 1," in fetch(s.links["union"])[1]


def test_a_phone_opens_its_sides_link_and_follows_the_game(serving, game_path, phone, tmp_path):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    s = serving(game_path, ["union", "csa"])
    phone.get(s.links["csa"])
    assert "4th Virginia" in phone.find_element(By.ID, "roster").text
    assert phone.find_element(By.ID, "map").size["width"] <= 390
    for name in UNSEEN_BY_CSA:
        assert name not in phone.page_source
    phone.save_screenshot(str(tmp_path / "phone.png"))
    with Game.open(game_path) as g:
        g.do(EndTurn())
        g.do(NextPhase())
        g.do(MoveUnit("nc28", 14.0, 19.0, mode="march"))  # in sight of no hidden unit
    WebDriverWait(phone, 5, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda b: "Turn 2" in b.find_element(By.ID, "status").text
    )
    time.sleep(0.5)  # the last step's update too
    # the roster is searchable
    find = phone.find_element(By.ID, "find")
    find.send_keys("virginia")
    shown = [r.text for r in phone.find_elements(By.CSS_SELECTOR, "#roster tbody tr") if r.is_displayed()]
    assert shown and all("Virginia" in r for r in shown)
    for name in UNSEEN_BY_CSA:
        assert name not in phone.page_source
    # a step while the player searches: the roster follows it, the search stays as typed
    with Game.open(game_path) as g:
        g.do(NextPhase())
    WebDriverWait(phone, 5, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda b: "Ranged" in b.find_element(By.ID, "status").text
    )
    time.sleep(0.3)
    assert phone.find_element(By.ID, "find").get_attribute("value") == "virginia"
    shown = [r.text for r in phone.find_elements(By.CSS_SELECTOR, "#roster tbody tr") if r.is_displayed()]
    assert shown and all("Virginia" in r for r in shown)
    # the laptop gone: the page says so
    assert not phone.find_element(By.ID, "lost").is_displayed()
    s.close()
    WebDriverWait(phone, 10).until(lambda b: b.find_element(By.ID, "lost").is_displayed())
    assert "lost" in phone.find_element(By.ID, "lost").text


def test_a_player_answers_a_trigger_window_on_the_phone(serving, tmp_path, phone):
    """Example C's first window shown on the Union's phone: the greyed reaction with its reason,
    the open ones to choose; the answer sent reaches the umpire's list of answers."""
    import json

    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from rules import procedure
    from rules.dice import SeededDice
    from rules.tables import load_tables
    from serve.reaction_window import window_page
    from tests.gui.test_play_window_a import _example_c

    battle = _example_c()
    path = tmp_path / "c.sqlite"
    Game.create(path, battle).close()
    s = serving(path, ["union", "csa"])
    tables = load_tables()
    ga8 = battle.unit("ga8")
    proc = procedure.move_units(battle, tables, SeededDice(1), [("ga8", ga8.x + 6.0, ga8.y, ga8.facing_deg)])
    inter = proc.pending
    window = window_page(
        inter.battle, inter.window, tables, {u.name for u in battle.units.values()}, inter.chances
    )
    req = urllib.request.Request(
        s.umpire + "/window",
        data=json.dumps({"side": "union", "window": window}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=5) as r:
        assert r.status == 200
    phone.get(s.links["union"])
    section = phone.find_element(By.ID, "reaction")
    assert "Trigger Window A" in section.text and "2nd Wisconsin" in section.text
    assert "not" in section.text.lower() or "beyond" in section.text  # a greyed reaction says why
    phone.find_element(By.CSS_SELECTOR, "#reaction input[value='refuse_flank']").click()
    time.sleep(0.5)  # the live updates connect: the page already shows what they hold, and keeps the choice
    assert phone.find_element(By.CSS_SELECTOR, "#reaction input[value='refuse_flank']").is_selected()
    phone.find_element(By.CSS_SELECTOR, "#reaction button[type='submit']").click()
    WebDriverWait(phone, 5, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda b: "Sent to the umpire" in b.find_element(By.ID, "reaction").text
    )
    phone.save_screenshot(str(tmp_path / "reaction.png"))
    status, got = fetch(s.umpire + "/answers")
    assert status == 200
    assert json.loads(got) == [
        {"n": 1, "side": "union", "window": window["id"], "choices": {"wis2": "refuse_flank"}}
    ]
    # the other side's page has no window
    assert b"Trigger Window" not in fetch(s.links["csa"])[1]


def test_a_request_too_big_is_refused_and_the_pages_go_on(serving, game_path):
    s = serving(game_path, ["union", "csa"])
    status, _ = fetch(s.links["csa"] + "/answer", data=b"x=" + b"y" * 100_000)
    assert status == 413
    status, _ = fetch(s.links["csa"] + "/answer", data=b"window=nothing-open")
    assert status == 409  # no window is open for the side: nothing is taken
    assert s.server.answers == []
    assert fetch(s.links["csa"])[0] == 200


def test_a_tablet_held_sideways_shows_the_whole_table_and_zooms(serving, game_path, tablet):
    from selenium.webdriver.common.by import By

    s = serving(game_path, ["union", "csa"])
    tablet.get(s.links["union"])
    svg = tablet.find_element(By.ID, "map")
    assert 0 < svg.size["width"] <= 1180 and svg.size["height"] <= 820
    whole = svg.get_dom_attribute("viewBox")
    assert whole == "0 0 72 48"
    tablet.find_element(By.ID, "zin").click()
    zoomed = [float(v) for v in tablet.find_element(By.ID, "map").get_dom_attribute("viewBox").split()]
    assert zoomed[2] < 72 and zoomed[3] < 48  # closer in, about the middle
    tablet.find_element(By.ID, "zfit").click()
    assert tablet.find_element(By.ID, "map").get_dom_attribute("viewBox") == "0 0 72 48"


def test_a_side_looks_back_at_the_end_of_an_earlier_phase_as_it_knew_it_then(serving, game_path):
    from serve.page import map_svg
    from serve.side_state import side_state
    from storage.timeline import PhaseStops, Timeline

    with Game.open(game_path) as g:  # turn 2: the Brooklyn goes behind the ridge, out of sight
        g.do(EndTurn())
        g.do(NextPhase())
        u = g.battle.unit("bkn14")
        g.do(MoveUnit("bkn14", 36.0, 9.0, mode="place"))
        stops = PhaseStops(Timeline.of(g))
        k = stops.position_of(stops.seqs[-1] - 3)
        expected = {side: side_state(g, side, stops.seq_of(k)) for side in ("csa", "union")}
        at_now = {side: side_state(g, side) for side in ("csa", "union")}
        assert g.state_at(stops.seq_of(k)).unit("bkn14").x == u.x
    s = serving(game_path, ["union", "csa"])
    status, now = fetch(s.links["csa"])
    assert status == 200 and b"/at'>Look back" in now
    for side in ("csa", "union"):
        status, body = fetch(f"{s.links[side]}/at?k={k}")
        assert status == 200
        text = body.decode()
        assert "Looking back: Turn" in text and "the end of the" in text
        assert map_svg(expected[side]) in text  # the map as the side knew it then
        if side == "csa":  # (then they saw the Brooklyn, now they have its ghost: not the map now)
            assert map_svg(at_now[side]) not in text
        assert_keeps_its_secrets(side, body)
        assert "entry" not in text  # the journal's length is not told to a side
        assert "data-live=''" in text and "This phase" not in text  # it does not follow the game
        assert f"?k={k - 1}" in text and f"?k={k + 1}" in text and "href='/s/" in text
    # then, the Confederates saw the Brooklyn; now they do not
    then = fetch(f"{s.links['csa']}/at?k={k}")[1].decode()
    assert "14th Brooklyn" in then and "(seen then)" in then and "(seen now)" not in then
    # without k: the end of the phase before this one
    status, body = fetch(s.links["csa"] + "/at")
    assert status == 200 and f"value='{stops.last - 1}'".encode() in body
    # a moment that is not there, a k that is no number, a wrong secret
    assert fetch(f"{s.links['csa']}/at?k={stops.last + 1}")[0] == 404
    assert fetch(f"{s.links['csa']}/at?k=soon")[0] == 400
    assert fetch(f"{s.links['csa']}x/at?k=1")[0] == 403
