"""Saved games for the benchmarks, played through the rules as an umpire plays them.

* :func:`club_battle`: the battle of a club game: the bundled ``gettysburg`` (150 regiments and
  batteries of the published order of battle on a 144" x 96" table). Another scenario can take
  its place (``python benchmarks/run.py --club-scenario FILE.toml`` or a bundled scenario's name,
  or ``BRIGADIER_BENCH_CLUB_SCENARIO``), or ``generated`` for
  :func:`benchmarks.generate.big_battle` with 75 units a side: every figure of a club game is then
  measured on it.
* :func:`build_club_game`: a club game of that battle, ``turns`` game turns of ``per_turn`` events,
  each side's turn a real one: Phase 2 with a group march of 20 units through their Trigger
  Windows (declined: each window opened is logged), the umpire's rulings (stands lost and given
  back, micro-hits), Staff Pips reserved, and the phases and the end of the turn.
* :func:`build_long_game`: a long game of plain moves and rulings, cheap to build, for the sizes
  of the scaling table (1,000 to 50,000 events).

Every game is built through :meth:`storage.game.Game.do_step`, so its journal, snapshots and
steps are what the application writes. The file is written without waiting for the disk
(``Game.synchronous = "OFF"``) to build it quickly; it is the same file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.generate import big_battle
from rules.battle.battle import Battle

#: The size of the club game of the issue: 150 units, 30 game turns of 100 events.
CLUB_UNITS = 150
CLUB_TURNS = 30
CLUB_EVENTS_PER_TURN = 100
#: How many units the group march of each side's turn moves together.
GROUP = 20

#: A scenario to use as the club battle instead of Gettysburg (see :func:`club_battle`).
CLUB_SCENARIO_ENV = "BRIGADIER_BENCH_CLUB_SCENARIO"
#: The club battle unless another is named: the bundled scenario of the big table.
CLUB_SCENARIO = "gettysburg"
#: The name that asks for the generated battle of :data:`CLUB_UNITS` units instead.
GENERATED = "generated"


def club_battle(scenario: str | Path | None = None) -> Battle:
    """The battle of a club game: the scenario given (a file, or the name of a bundled one; or
    named by ``$BRIGADIER_BENCH_CLUB_SCENARIO``), else the bundled Gettysburg; ``generated``: a
    generated battle of :data:`CLUB_UNITS` units and 300 terrain features."""
    scenario = str(scenario or os.environ.get(CLUB_SCENARIO_ENV) or CLUB_SCENARIO)
    if scenario == GENERATED:
        return big_battle(units_per_side=CLUB_UNITS // 2)
    from storage.scenario import bundled_scenarios, load_bundled, load_scenario

    if scenario in bundled_scenarios():
        return load_bundled(scenario)
    return load_scenario(Path(scenario))


@contextmanager
def _fast_writes() -> Iterator[None]:
    from storage.game import Game

    old = Game.synchronous
    Game.synchronous = "OFF"
    try:
        yield
    finally:
        Game.synchronous = old


def _marchers(game, side: str, n: int, dy: float) -> list[str]:
    """``n`` infantry units of ``side`` that can march ``dy`` inches whole, those nearest the
    middle of the table first."""
    from rules.actions import plan_march
    from rules.legality import march_refusal

    battle = game.battle
    units = [u for u in battle.oob.in_play(side) if u.kind.value == "infantry"]
    units.sort(key=lambda u: (abs(u.x - battle.table_width_in / 2), u.id))
    out = []
    for u in units:
        y = round(u.y + dy, 3)
        if march_refusal(battle, u.id, game.tables, (u.x, y)) is None:
            if plan_march(battle, u.id, u.x, y, game.tables).complete:
                out.append(u.id)
        if len(out) == n:
            break
    return out


def group_march_step(game, unit_ids: list[str], dy: float) -> list:
    """The step of a group march of ``unit_ids`` by ``dy`` inches (towards the enemy when its
    sign says so), every Trigger Window it opens declined: the actions to commit."""
    from rules.dice import SeededDice
    from rules.procedure import Answer, group_march

    battle = game.battle
    moves = [(uid, battle.unit(uid).x, round(battle.unit(uid).y + dy, 3), None) for uid in unit_ids]
    proc = group_march(battle, game.tables, SeededDice(game.dice.seed, game.dice.drawn), moves)
    step = proc.run(lambda inter: Answer.declined(inter))
    return list(step.actions)


def build_club_game(
    path: Path,
    turns: int = CLUB_TURNS,
    per_turn: int = CLUB_EVENTS_PER_TURN,
    battle: Battle | None = None,
) -> dict[str, int]:
    """Play a club game of ``turns`` game turns of ``per_turn`` events into a new save at ``path``.

    Returns where its group marches are (``last_group_first``, ``last_group_last``: the journal
    entries of the last one) and the number of events."""
    from rules.actions import EndTurn, NextPhase, Override, ReservePip
    from storage.game import Game

    battle = battle or club_battle()
    half = per_turn // 2
    out: dict[str, int] = {}
    with _fast_writes():
        game = Game.create(path, battle)
        try:
            for t in range(turns):
                for _half in range(2):
                    side = game.battle.active_side
                    start = game.last_seq
                    units = [u for u in game.battle.oob.in_play(side) if u.kind.value == "infantry"]
                    game.do(ReservePip(units[0].brigade))
                    game.do(NextPhase())  # Phase 2
                    forward = -1.0 if side == game.battle.first_side else 1.0
                    dy = forward * (1.0 if t % 2 == 0 else -1.0)
                    marchers = _marchers(game, side, GROUP, dy)
                    events = game.do_step(group_march_step(game, marchers, dy))
                    out["last_group_first"], out["last_group_last"] = events[0].seq, events[-1].seq
                    game.do(NextPhase())  # Phase 3
                    k = 0
                    while game.last_seq - start < half - 1:
                        u = game.battle.unit(units[(k // 2) % len(units)].id)
                        if k % 4 == 0 and u.stands > 1:  # a stand lost to fire, as ruled
                            game.do(Override("unit", u.id, {"stands": u.stands - 1}, "volley as ruled"))
                        elif k % 4 == 1 and u.stands < u.stands_start:
                            game.do(Override("unit", u.id, {"stands": u.stands + 1}, "stragglers rally"))
                        else:
                            game.do(
                                Override("unit", u.id, {"micro_hits": (u.micro_hits + 1) % 2}, "ruled so")
                            )
                        k += 1
                    game.do(EndTurn())
            out["events"] = game.last_seq
            out["turn"] = game.battle.turn
        finally:
            game.close()
    return out


def build_long_game(path: Path, turns: int, events: int, battle: Battle | None = None) -> int:
    """A game of ``turns`` game turns and ``events`` events, played through :meth:`Game.do` (moves,
    the umpire's rulings, Staff Pips reserved, ends of turn). Returns the turn it ends in."""
    from rules.actions import EndTurn, MoveUnit, Override, ReservePip
    from storage.game import Game

    battle = battle or big_battle()
    with _fast_writes():
        game = Game.create(path, battle)
        try:
            ends = 2 * turns  # each side ends its turn once per game turn
            per_side = (events - ends) // ends
            extra = (events - ends) - per_side * ends
            for half in range(ends):
                side = game.battle.active_side
                units = [u for u in game.battle.oob.in_play(side) if u.kind.value == "infantry"]
                brigade = units[0].brigade
                game.do(ReservePip(brigade))
                n = per_side - 1 + (1 if half < extra else 0)
                for k in range(n):
                    u = game.battle.unit(units[k % len(units)].id)
                    if k % 5 == 4:
                        game.do(Override("unit", u.id, {"micro_hits": (u.micro_hits + 1) % 2}, "ruled so"))
                    else:
                        dy = 0.1 if (k // len(units)) % 2 else -0.1
                        game.do(MoveUnit(u.id, u.x, round(u.y + dy, 3)))
                game.do(EndTurn())
            assert game.last_seq == events, game.last_seq
            return game.battle.turn
        finally:
            game.close()


#: The long games of the demo battle: as many events a game turn as a busy club turn has.
DEMO_EVENTS_PER_TURN = 250


def build_demo_game(path: Path, events: int, per_turn: int = DEMO_EVENTS_PER_TURN) -> int:
    """The demo battle (Oak Ridge) played for ``events`` events, ``per_turn`` a game turn: the
    umpire's placements of units, stands lost and given back, micro-hits, Staff Pips reserved, the
    phases and the ends of turn. Every game built so starts with the same turns: the first turn of
    a 50,000-event game is that of a 250-event one. Returns the turn it ends in."""
    from rules.actions import EndTurn, MoveUnit, NextPhase, Override, ReservePip
    from storage.game import Game
    from storage.scenario import load_demo

    half = per_turn // 2
    demo = load_demo()
    home = {u.id: u.y for u in demo.units.values()}
    with _fast_writes():
        game = Game.create(path, demo, seed=1863)
        try:
            while game.last_seq < events:
                side = game.battle.active_side
                start = game.last_seq
                left = events - start
                units = sorted(u.id for u in game.battle.oob.in_play(side))
                brigades = sorted({game.battle.unit(u).brigade for u in units})
                game.do(ReservePip(brigades[game.battle.turn % len(brigades)]))
                k = 0
                while game.last_seq - start < min(half, left) - 1:
                    u = game.battle.unit(units[k % len(units)])
                    kind = k % 6
                    if kind == 0:
                        game.do(
                            NextPhase()
                            if game.battle.phase.value != "melee"
                            else Override("unit", u.id, {"micro_hits": (u.micro_hits + 1) % 2}, "ruled so")
                        )
                    elif kind in (1, 2):
                        dy = -0.2 if u.y > home[u.id] else 0.2  # to and fro about its place
                        game.do(MoveUnit(u.id, u.x, round(u.y + dy, 3)))
                    elif kind == 3 and u.stands > 1:
                        game.do(Override("unit", u.id, {"stands": u.stands - 1}, "volley as ruled"))
                    elif kind == 4 and u.stands < u.stands_start:
                        game.do(Override("unit", u.id, {"stands": u.stands + 1}, "stragglers rally"))
                    else:
                        game.do(Override("unit", u.id, {"micro_hits": (u.micro_hits + 1) % 2}, "ruled so"))
                    k += 1
                if game.last_seq < events:
                    game.do(EndTurn())
            return game.battle.turn
        finally:
            game.close()


def play_into_turn(path: Path, phase: str) -> dict[str, int]:
    """Play the side to act of the saved game at ``path`` on into its turn, as the club game plays
    each side's turn, and stop in ``phase``: ``"maneuver"`` (Phase 2, a Staff Pip reserved, before
    its group march) or ``"ranged"`` (Phase 3, after its group march of :data:`GROUP` units towards
    the enemy). Returns the entries written and the journal's length."""
    from rules.actions import NextPhase, ReservePip
    from storage.game import Game

    with _fast_writes():
        game = Game.open(path)
        try:
            start = game.last_seq
            side = game.battle.active_side
            units = [u for u in game.battle.oob.in_play(side) if u.kind.value == "infantry"]
            game.do(ReservePip(units[0].brigade))
            game.do(NextPhase())  # Phase 2
            if phase == "ranged":
                forward = -1.0 if side == game.battle.first_side else 1.0
                marchers = _marchers(game, side, GROUP, forward)
                game.do_step(group_march_step(game, marchers, forward))
                game.do(NextPhase())  # Phase 3
            if game.battle.phase.value != phase:
                raise RuntimeError(f"the club game is in {game.battle.phase.value}, not {phase}")
            return {"written": game.last_seq - start, "events": game.last_seq}
        finally:
            game.close()
