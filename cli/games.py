"""The commands that start a game or open the application: ``new`` (a save from a scenario file
or a bundled scenario), ``open`` (a save in the application) and no command at all (the
application, on the last game played). ``open`` and no command at all are the only commands that
import Qt, through :mod:`gui.app`.
"""

from __future__ import annotations

import argparse
import importlib
import os
from pathlib import Path

from cli.common import EXIT_MISSING, EXIT_OK, CommandError, check_out, done, open_game
from cli.reading import print_info


def _run_gui(path: str | None, qt_args: list[str] | None = None) -> int:
    try:
        app = importlib.import_module("gui.app")
    except ModuleNotFoundError as exc:
        raise CommandError(
            f"the Brigadier application is not available here ({exc.name} is missing)", EXIT_MISSING
        ) from None
    run = getattr(app, "run", None)
    if run is None:
        raise CommandError(
            "the Brigadier application is not available here (gui.app has no run)", EXIT_MISSING
        )
    # Qt's own options (-style Fusion ...), when the command line had some (cli.main.qt_options)
    return int((run(path, qt_args) if qt_args else run(path)) or 0)


def cmd_start(args: argparse.Namespace) -> int:
    return _run_gui(None, getattr(args, "qt_args", None))


def cmd_open(args: argparse.Namespace) -> int:
    game = open_game(args.game)  # a bad file is refused here, before any window opens
    game.close()
    return _run_gui(str(Path(args.game)), getattr(args, "qt_args", None))


def cmd_new(args: argparse.Namespace) -> int:
    from storage.game import Game
    from storage.scenario import bundled_scenarios, load_bundled, load_scenario

    target = check_out(args.game, args.force, "oak_ridge.sqlite", save=True)
    src = args.scenario
    if not Path(src).exists() and src in bundled_scenarios():
        battle = load_bundled(src)
    else:
        battle = load_scenario(src)
    if not target.exists():
        game = Game.create(target, battle, seed=args.seed)
        done(f"the new game {args.game}")
    else:  # --force: made beside the old file, which it replaces only once it is complete
        tmp = target.with_name(f".{target.name}.new")
        for suffix in ("", "-wal", "-shm"):
            Path(str(tmp) + suffix).unlink(missing_ok=True)
        Game.create(tmp, battle, seed=args.seed).close()
        check_out(args.game, True, "oak_ridge.sqlite", save=True)  # still an ordinary file
        for suffix in ("-wal", "-shm"):
            Path(str(target) + suffix).unlink(missing_ok=True)
        os.replace(tmp, target)
        done(f"the new game {args.game}")
        game = Game.open(target)
    with game:
        print(f"Created {args.game}: {battle.name}, dice seed {game.seed}")
        print_info(game)
    return EXIT_OK
