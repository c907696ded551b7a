"""A scripted game for the crash-safety test: it plays until it is killed.

``python tests/reliability/scripted_game.py SAVE SEED [LIMIT]`` creates the save from the demo
battle (or, if the file exists, opens it with :meth:`Game.open` and plays on), prints ``ready N``
(N: the events already in the journal), then makes up to LIMIT actions chosen by a seeded random
generator: moves, umpire's overrides, Staff Pips, phases and turns. After each action is committed
it prints one line, ``SEQ ACTION-JSON``, and flushes, so whoever reads the output knows every
action the game had saved when it died. Actions the rules refuse are not printed.

It imports only :mod:`rules` and :mod:`storage`, so it starts quickly.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import TextIO

from rules.actions import Action, EndTurn, MoveUnit, NextPhase, Override, ReservePip, SpendPip
from rules.battle.battle import Battle
from rules.errors import RulesError
from storage.game import Game
from storage.scenario import load_demo


def next_action(battle: Battle, rng: random.Random) -> Action:
    """One action of the script: mostly moves, with overrides, pips, phases and turns."""
    units = [u for u in battle.units.values() if u.in_play]
    brigades = sorted(battle.brigades)
    r = rng.random()
    if r < 0.55 and units:
        u = rng.choice(units)
        x = min(max(u.x + rng.uniform(-3, 3), 0.0), battle.table_width_in)
        y = min(max(u.y + rng.uniform(-3, 3), 0.0), battle.table_height_in)
        facing = rng.choice([None, 0.0, 90.0, 180.0, 270.0])
        return MoveUnit(u.id, round(x, 3), round(y, 3), facing)
    if r < 0.70 and units:
        u = rng.choice(units)
        return Override("unit", u.id, {"micro_hits": rng.randint(0, 2)}, "ruled at the table")
    if r < 0.80:
        return ReservePip(rng.choice(brigades))
    if r < 0.88:
        return SpendPip(rng.choice(brigades), "a courier", False)
    if r < 0.96:
        return NextPhase()
    return EndTurn()


def play(path: str | Path, seed: int, limit: int, out: TextIO) -> int:
    """Play up to ``limit`` actions on the save at ``path``; returns the last event's number."""
    p = Path(path)
    game = Game.open(p) if p.exists() else Game.create(p, load_demo(), seed=seed)
    try:
        out.write(f"ready {game.last_seq}\n")
        out.flush()
        rng = random.Random(f"{seed}:{game.last_seq}")
        for _ in range(limit):
            action = next_action(game.battle, rng)
            try:
                ev = game.do(action)
            except RulesError:
                continue
            out.write(f"{ev.seq} {json.dumps(ev.action.to_dict(), sort_keys=True)}\n")
            out.flush()
        return game.last_seq
    finally:
        game.close()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (2, 3):
        sys.stderr.write("usage: scripted_game.py SAVE SEED [LIMIT]\n")
        return 2
    limit = int(args[2]) if len(args) == 3 else 10**9
    play(args[0], int(args[1]), limit, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
