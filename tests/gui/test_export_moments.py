"""``brigadier export-map --seq N [--side SIDE]``: the map as it stood after a journal entry, and
as one side saw it then, drawn without writing to the save."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from cli import main as cli
from gui import export as export_module
from gui import player_view
from storage.game import Game, same_state
from tests.sight_game import UNSEEN_BY_CSA, sight_game
from tests.storage.conftest import fingerprint


def _image(path: Path) -> QImage:
    img = QImage(str(path))
    assert not img.isNull()
    return img


def test_the_map_after_an_entry_is_the_battle_then_and_the_save_is_untouched(
    qtbot, tmp_path, capsys, monkeypatch
):
    g = sight_game(tmp_path)
    path, last = g.path, g.last_seq
    early = g.state_at(1)
    g.close()
    before = fingerprint(path)
    drawn = []
    real = export_module.battle_image
    monkeypatch.setattr(export_module, "battle_image", lambda b, *a, **k: drawn.append(b) or real(b, *a, **k))
    assert cli.main(["export-map", str(path), "--png", str(tmp_path / "then.png"), "--seq", "1"]) == 0
    assert cli.main(["export-map", str(path), "--png", str(tmp_path / "now.png")]) == 0
    assert fingerprint(path) == before
    assert same_state(drawn[0], early) and drawn[0].unit("va4").y != drawn[1].unit("va4").y
    with Game.open(path) as again:
        assert same_state(drawn[1], again.battle)
    then, now = _image(tmp_path / "then.png"), _image(tmp_path / "now.png")
    assert then.size() == now.size() and then != now
    # a moment the journal does not have is refused with the entries it has, and writes nothing
    code = cli.main(["export-map", str(path), "--png", str(tmp_path / "x.png"), "--seq", str(last + 1)])
    assert code == 1 and f"entries 1 to {last}" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_a_sides_map_then_holds_only_what_it_saw(qtbot, tmp_path, monkeypatch):
    g = sight_game(tmp_path)
    path = g.path
    g.close()
    shown = []
    real = player_view.side_map_image
    monkeypatch.setattr(player_view, "side_map_image", lambda v, *a, **k: shown.append(v) or real(v, *a, **k))
    out = tmp_path / "csa.png"
    assert cli.main(["export-map", str(path), "--png", str(out), "--seq", "3", "--side", "Confederate"]) == 0
    view = shown[0]
    with Game.open(path) as again:
        from storage.sightings import Sightings

        expected = Sightings.of(again).view("csa", 3)
        assert view.side == "csa" and view.turn == again.state_at(3).turn
        assert set(view.units) == set(expected.units) and set(view.ghosts) == set(expected.ghosts)
        names = {u.name for u in view.units.values()} | {gh.name for gh in view.ghosts.values()}
        assert not names & set(UNSEEN_BY_CSA)
        # the Union units it does see then are there, where they stood then
        seen = [u for u in view.units.values() if u.side == "union"]
        assert seen and all(
            (u.x, u.y) == (again.state_at(3).unit(u.id).x, again.state_at(3).unit(u.id).y) for u in seen
        )
    _image(out)


@pytest.mark.parametrize("side", ["nobody"])
def test_an_unknown_side_is_refused(qtbot, tmp_path, capsys, side):
    g = sight_game(tmp_path)
    path = g.path
    g.close()
    assert cli.main(["export-map", str(path), "--png", str(tmp_path / "s.png"), "--side", side]) == 1
    assert "nobody" in capsys.readouterr().err and not (tmp_path / "s.png").exists()
