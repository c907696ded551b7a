"""The battle as an animated picture, for sharing: ``brigadier export-replay`` and File > Export replay.

A frame for the battle as the game began and one for the end of each side's phase in which
something was done (or, ``every="turn"``, of each game turn), each captioned with its moment
("Turn 4, Union Phase 3, after entry 412"), the last held longer. The frames are the canvas's own
maps (:func:`gui.export.battle_image`), or with ``side`` the side's (:class:`gui.player_view.PlayerScene`:
what it knew then, nothing of what it did not see). They are written as an animated GIF or WebP,
by its name's ending, with Pillow; all or nothing, never over a saved game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from PySide6.QtGui import QImage

from gui.export import battle_image, ensure_application, render_scene, titled
from storage.errors import ReportError
from storage.timeline import PhaseStops, Timeline

#: Pixels an inch of table in a replay: Gettysburg's 144" x 96" table makes 864 x 576 frames.
REPLAY_PX_PER_IN = 6.0
FRAME_MS = 900
LAST_FRAME_MS = 3000
FORMATS = {".gif": "GIF", ".webp": "WEBP"}
#: The most frames a replay has (a 60-turn game, each side's four phases); past it, ends of turns.
MAX_FRAMES = 500


def replay_moments(game: Any, every: str = "phase") -> list[int]:
    """The journal entries whose moments are the replay's frames: 0 (as the game began), then the
    last entry of each side's phase in which something was done (``every="turn"``: of each game
    turn), and the last entry of the journal."""
    if every not in ("phase", "turn"):
        raise ReportError(f"a replay has a frame for every phase or every turn, not {every!r}")
    seqs = Timeline.of(game).phase_ends(every)
    if len(seqs) > MAX_FRAMES and every == "phase":
        return replay_moments(game, "turn")
    return seqs


def replay_frames(
    game: Any, side: str | None = None, every: str = "phase", px_per_in: float = REPLAY_PX_PER_IN
) -> Iterator[tuple[int, QImage]]:
    """Each frame of the replay, with the entry after which it stands."""
    ensure_application()
    tl = Timeline.of(game)
    tables = getattr(game, "tables", None)
    sightings = None
    if side is not None:
        from rules.errors import InvariantError, RulesError
        from storage.sightings import Sightings

        try:
            sightings = Sightings.of(game)
            sightings.update()
            side = sightings.side(side)
        except (RulesError, InvariantError) as exc:
            raise ReportError(str(exc)) from None
    names = game.battle.oob.side_name
    stops = PhaseStops(tl)
    for seq in replay_moments(game, every):
        words = tl.label(seq, names)
        if sightings is None:
            img = battle_image(game.state_at(seq), tables, px_per_in)
        else:
            from gui.player_view import PlayerScene

            scene = PlayerScene(sightings.view(side, seq), tables)
            try:
                img = render_scene(scene, px_per_in)
            finally:
                scene.clear()
                scene.deleteLater()
            # a side's frames are told by turn and phase, never by journal entry
            words = f"{stops.label(stops.position_of(seq), names)}, as the {names(side)} side knew it"
        yield seq, titled(img, words)


def _pil(img: QImage) -> Any:
    from PIL import Image

    rgb = img.convertToFormat(QImage.Format.Format_RGB888)
    w, h = rgb.width(), rgb.height()
    data = bytes(rgb.constBits())
    return Image.frombuffer("RGB", (w, h), data, "raw", "RGB", rgb.bytesPerLine(), 1).copy()


def write_replay(
    game: Any,
    path: str | Path,
    side: str | None = None,
    every: str = "phase",
    px_per_in: float = REPLAY_PX_PER_IN,
    progress: Callable[[int, int], bool] | None = None,
) -> Path:
    """Write the replay of an open game as an animated GIF or WebP (by ``path``'s ending).
    ``progress(done, of)`` is told after each frame; False from it stops, and nothing is written."""
    import io

    from storage.outputs import atomic_write

    p = Path(path)
    fmt = FORMATS.get(p.suffix.lower())
    if fmt is None:
        raise ReportError(f"{p.name}: a replay is an animated .gif or .webp picture")
    try:
        import PIL  # noqa: F401
    except ModuleNotFoundError:
        raise ReportError("writing a replay needs Pillow, which is not installed") from None
    total = len(replay_moments(game, every))
    frames = []
    for i, (_seq, img) in enumerate(replay_frames(game, side, every, px_per_in), 1):
        frames.append(_pil(img))
        if progress is not None and progress(i, total) is False:
            raise ReportError("the replay was stopped; nothing was written")
    durations = [FRAME_MS] * (len(frames) - 1) + [LAST_FRAME_MS]
    buf = io.BytesIO()
    extra = {"optimize": True} if fmt == "GIF" else {"quality": 80, "method": 4}
    frames[0].save(
        buf, format=fmt, save_all=True, append_images=frames[1:], duration=durations, loop=0, **extra
    )
    saved = getattr(game, "path", None)
    return atomic_write(p, buf.getvalue(), what="the replay", protect=[str(saved)] if saved else ())


def export_replay(window: Any, side: str | None = None) -> Path | None:
    """File > Export replay: the battle's end-of-phase maps as an animated picture (GIF or WebP)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QProgressDialog

    from gui import dialogs

    game = window.controller.game
    if game is None:
        return None
    p = dialogs.ask_export_path(
        window, "replay", "replay", side, "saw", "Animated GIF (*.gif);;Animated WebP (*.webp)", "gif"
    )
    if not p:
        return None
    bar = QProgressDialog("Drawing the replay…", "Stop", 0, 100, window)
    bar.setWindowTitle("Export replay")
    bar.setWindowModality(Qt.WindowModality.WindowModal)
    bar.setMinimumDuration(400)

    def progress(done: int, of: int) -> bool:
        bar.setMaximum(of)
        bar.setValue(done)
        QApplication.processEvents()
        return not bar.wasCanceled()

    try:
        out = write_replay(game, p, side, progress=progress)
    except ReportError as exc:
        dialogs.show_message(window, "Export replay", str(exc), "error")
        return None
    finally:
        bar.reset()
        bar.deleteLater()
    window.statusBar().showMessage(f"Replay saved to {out}", 10000)
    return Path(out)
