"""The README's picture of a player view beside the umpire's map, taken from real windows.

    SCREEN=2560x960x24 ../shared/tools/real-window.sh docs/screenshots/player_view.png 12 \
        .venv/bin/python docs/screenshots/player_view.py

Oak Ridge with a hidden unit on each side (tests/sight_game.py), two turns in: the umpire's window
on the left; on the right the Confederate side's player view, without the 2nd Wisconsin (in dead
ground behind the crest) or the hidden 1st Minnesota, and with the 19th Indiana as a ghost where
the Confederates last saw it, before it marched behind the crest.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp()  # the umpire's own settings are left alone
os.environ["BRIGADIER_SAVES_DIR"] = tempfile.mkdtemp()

from PySide6.QtCore import QTimer  # noqa: E402

from gui.app import application, make_main_window  # noqa: E402
from gui.player_view import open_player_view  # noqa: E402
from rules.actions import EndTurn, MoveUnit, NextPhase  # noqa: E402
from tests.sight_game import sight_game  # noqa: E402


def main() -> int:
    game = sight_game(Path(tempfile.mkdtemp()), "oak-ridge.sqlite")
    game.do(EndTurn())  # turn 2, the Confederates
    game.do(NextPhase())
    game.do(MoveUnit("va5", 50.0, 23.0, mode="march"))
    game.do(EndTurn())
    game.do(NextPhase())
    game.do(MoveUnit("ind19", 26.0, 10.0, mode="march"))  # behind the crest: a ghost for the Confederates
    path = str(game.path)
    game.close()
    app = application()
    window = make_main_window(path)
    window.setGeometry(0, 0, 1450, 960)
    window.show()
    view = open_player_view(window, "csa")
    view.setGeometry(1460, 0, 1100, 960)
    QTimer.singleShot(500, view.view.fit_table)
    QTimer.singleShot(500, window.canvas.view.fit_table)
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())
