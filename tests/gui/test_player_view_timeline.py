"""A player view looks back too: any moment of the game, only ever as that side knew it then; and
the umpire's map shown as a side sees it follows the moment the umpire looks back at."""

from __future__ import annotations

import pytest

from gui.controller import GameController
from gui.player_view import GhostItem, PlayerWindow, SideMapSwitch
from rules.actions import EndTurn, NextPhase, Override
from storage.sightings import Sightings
from storage.timeline import Timeline
from tests.gui.test_player_view import all_text, unit_items
from tests.sight_game import UNSEEN_BY_CSA, sight_game


@pytest.fixture
def played(qtbot, tmp_path):
    g = sight_game(tmp_path)
    c = GameController()
    c.set_game(g, str(g.path))
    # turn 2: the 14th Brooklyn goes behind the ridge, out of the Confederates' sight
    c.run(EndTurn())
    c.run(NextPhase())
    c.run(Override("unit", "bkn14", {"x": 36.0, "y": 9.0}, "behind the ridge"))
    yield c
    c.close()


def _shown(w: PlayerWindow) -> tuple[set[str], set[str]]:
    items = unit_items(w.scene)
    units = {uid for uid, it in items.items() if not isinstance(it, GhostItem)}
    return units, set(w.scene.ghosts)


def test_a_player_view_looks_back_only_at_what_its_side_knew_then(played, qtbot):
    w = PlayerWindow(played, "csa")
    qtbot.addWidget(w)
    game = played.game
    last, written = game.last_seq, game.conn.total_changes
    now_units, now_ghosts = _shown(w)
    assert "bkn14" in now_ghosts and "bkn14" not in now_units  # last seen before it went behind the ridge
    stops = w.timeline.timeline
    # a side steps through the ends of the phases played, told by turn and phase only
    assert stops.seqs == Timeline.of(game).phase_ends() and w.timeline.slider.maximum() == stops.last
    k = stops.position_of(last - 3)  # the end of turn 1: the Brooklyn in sight
    before = stops.seq_of(k)
    assert game.state_at(before).turn == 1
    w.timeline.seek(k)
    expected = Sightings.of(game).view("csa", before)
    units, ghosts = _shown(w)
    assert units == set(expected.units) and ghosts == set(expected.ghosts)
    assert "bkn14" in units and "bkn14" not in ghosts
    assert w.scene.units["bkn14"].unit.x == game.state_at(before).unit("bkn14").x
    text = all_text(w, w.scene)
    for name in UNSEEN_BY_CSA:
        assert name not in text
    assert not w.banner.isHidden() and "Turn 1, the end of the Union Phase" in w.banner.text()
    assert "Confederate side knew it" in w.banner.text()
    # how many journal entries the game has is not told to a side
    assert "entry" not in w.banner.text() and "entry" not in w.timeline.label.text()
    # the umpire's window is not looking back, and nothing was written
    assert played.looking_back is None and game.last_seq == last and game.conn.total_changes == written
    # the game goes on meanwhile: the side still looks at its moment, and its timeline grows
    played.run(NextPhase())
    qtbot.waitUntil(lambda: w.timeline.timeline.seqs[-1] == last + 1, timeout=2000)  # a moment after
    assert _shown(w) == (units, ghosts)
    w.timeline.now()
    assert w.banner.isHidden()
    assert _shown(w) == (
        set(Sightings.of(game).view("csa").units),
        set(Sightings.of(game).view("csa").ghosts),
    )


def test_the_umpires_map_as_a_side_sees_it_follows_the_moment_looked_back_at(played, qtbot):
    from gui.canvas import CanvasWidget

    canvas = CanvasWidget(played)
    qtbot.addWidget(canvas)
    switch = SideMapSwitch(canvas, played)
    switch.show_side("csa")
    before = played.game.last_seq - 3
    played.look_back(before)
    expected = Sightings.of(played.game).view("csa", before)
    items = {uid for uid, it in unit_items(switch.scene).items() if not isinstance(it, GhostItem)}
    assert items == set(expected.units) and "bkn14" in items
    played.back_to_now()
    items = {uid for uid, it in unit_items(switch.scene).items() if not isinstance(it, GhostItem)}
    assert "bkn14" not in items
