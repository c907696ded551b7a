"""The animated replay: a frame as the game began and at the end of each phase in which something
was done, each the battle a replay of the journal gives then; a side's only what it knew."""

from __future__ import annotations

import pytest
from PIL import Image

from cli import main as cli
from gui import player_view, replay_export
from storage.game import Game
from storage.timeline import Timeline
from tests.sight_game import UNSEEN_BY_CSA, sight_game
from tests.storage.conftest import fingerprint


def test_the_frames_are_the_ends_of_the_phases_played(qtbot, tmp_path, monkeypatch):
    g = sight_game(tmp_path)
    try:
        seqs = replay_export.replay_moments(g)
        tl = Timeline.of(g)
        assert seqs[0] == 0 and seqs[-1] == g.last_seq and seqs == sorted(set(seqs))
        for q in seqs[1:-1]:  # the last entry of its phase: the next one was taken in another
            here, then = tl.moment(q), tl.moment(q + 1)
            assert (here.turn, here.side, here.phase) != (then.turn, then.side, then.phase)
        # every phase in which something was done has its frame
        marks = [m.seq for m in tl.marks]
        ends = {max(a, b - 1) for a, b in zip(marks, [*marks[1:], tl.last + 1], strict=True)}
        assert {e for e in ends if e > 0} <= set(seqs)
        turns = replay_export.replay_moments(g, "turn")
        assert set(turns) < set(seqs) and turns[-1] == g.last_seq
        drawn = []
        real = replay_export.battle_image
        monkeypatch.setattr(
            replay_export, "battle_image", lambda b, *a, **k: drawn.append(b) or real(b, *a, **k)
        )
        frames = list(replay_export.replay_frames(g))
        from storage.game import same_state

        assert [q for q, _ in frames] == seqs
        assert all(same_state(b, g.state_at(q)) for b, q in zip(drawn, seqs, strict=True))
    finally:
        g.close()


def test_the_replay_is_an_animated_gif_and_the_save_is_untouched(qtbot, tmp_path, capsys):
    g = sight_game(tmp_path)
    path, n = g.path, len(replay_export.replay_moments(g))
    g.close()
    before = fingerprint(path)
    out = tmp_path / "replay.gif"
    assert cli.main(["export-replay", str(path), str(out)]) == 0
    assert fingerprint(path) == before
    with Image.open(out) as im:
        assert im.is_animated and im.n_frames == n
        im.seek(n - 1)
        assert im.info["duration"] == replay_export.LAST_FRAME_MS
    webp = tmp_path / "replay.webp"
    assert cli.main(["export-replay", str(path), str(webp), "--every", "turn"]) == 0
    with Image.open(webp) as im:
        assert im.format == "WEBP" and im.n_frames >= 2
    assert cli.main(["export-replay", str(path), str(tmp_path / "replay.png")]) == 1
    assert ".gif or .webp" in capsys.readouterr().err and not (tmp_path / "replay.png").exists()


def test_a_sides_replay_draws_only_what_it_knew(qtbot, tmp_path, monkeypatch):
    g = sight_game(tmp_path)
    views = []
    real = player_view.PlayerScene
    monkeypatch.setattr(player_view, "PlayerScene", lambda v, *a, **k: views.append(v) or real(v, *a, **k))
    try:
        frames = list(replay_export.replay_frames(g, "Confederate"))
        from storage.sightings import Sightings

        s = Sightings.of(g)
        assert len(views) == len(frames) > 2
        hidden = {u.id for u in g.battle.units.values() if u.name in UNSEEN_BY_CSA}
        for (q, _img), v in zip(frames, views, strict=True):
            assert set(v.units) == set(s.view("csa", q).units)
            assert not hidden & set(v.units) and not hidden & set(v.ghosts)
    finally:
        g.close()
    with pytest.raises(replay_export.ReportError):
        with Game.open(tmp_path / "sight.sqlite") as again:
            list(replay_export.replay_frames(again, "nobody"))


def test_file_menu_exports_a_sides_replay(qtbot, tmp_path, window_on, monkeypatch):
    from gui import dialogs

    g = sight_game(tmp_path)
    win = window_on(g)
    asked = []
    out = tmp_path / "csa.gif"
    monkeypatch.setattr(
        dialogs,
        "ask_save_path",
        lambda parent, title, default, *a: asked.append((title, default)) or str(out),
    )
    menu = win.menus["replay"]
    menu.aboutToShow.emit()
    next(a for a in menu.actions() if "Confederate" in a.text()).trigger()
    assert asked[0][0] == "Export the replay as the Confederate side saw it"
    assert asked[0][1].endswith("replay-csa.gif")
    with Image.open(out) as im:
        assert im.is_animated and im.n_frames == len(replay_export.replay_moments(g))
