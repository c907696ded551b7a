"""``brigadier serve``: each side's page for the players' own phones and tablets, served from
this machine on the local network (:mod:`serve.server`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cli.common import EXIT_OK, CommandError, open_game


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve each side's page of the game, following the save as it is played, until stopped."""
    import asyncio

    from serve.server import serve

    path = Path(args.game)
    with open_game(args.game) as game:  # a clear refusal for what is not a sound save
        sides = [s.id for s in game.battle.oob.sides]
        names = {s.id: s.name for s in game.battle.oob.sides}
    if not 0 <= args.port <= 65535:
        raise CommandError(f"a port is a number from 0 to 65535, not {args.port}")

    def started(server, base: str) -> None:
        links = server.link_map(base)
        if args.json:
            print(
                json.dumps({"links": links, "names": names, "umpire": f"{base}/u/{server.links.umpire}"}),
                flush=True,
            )
            return
        print(f"Serving {path.name} at {base} (Ctrl+C to stop); each side's link:")
        for side, link in links.items():
            print(f"  {names[side]}: {link}", flush=True)

    try:
        asyncio.run(serve(path, args.host, args.port, sides, started))
    except OSError as exc:
        raise CommandError(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}") from None
    except KeyboardInterrupt:
        print("Stopped.", file=sys.stderr)
    return EXIT_OK
