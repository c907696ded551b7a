"""A game for the tests of what each side sees: the demo battle (Oak Ridge) with a hidden unit on
each side, and a first turn played through the rules.

What each side cannot see, by the rules:

* the Confederates never see the 2nd Wisconsin: it stays 2" behind the crest of Oak Ridge, in dead
  ground to the valley (RULE-03-4.3), even when it marches along the ridge;
* the Confederates never see the 1st Minnesota, hidden in the West Woods far from them;
* the Union never sees Hood's Texans, hidden in the Cornfield (a hidden unit is spotted within
  6", a club default).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rules.actions import EndTurn, MoveUnit, NextPhase, Override
from rules.battle.battle import Battle
from rules.battle.unit import Unit
from rules.battle.words import UnitKind
from rules.shooting.shoot import Shoot
from storage.game import Game
from storage.scenario import load_demo

UNSEEN_BY_CSA = ("2nd Wisconsin", "1st Minnesota")
UNSEEN_BY_UNION = ("Hood's Texans",)
SEEN_BY_CSA = ("Battery B, 4th US Artillery", "19th Indiana", "14th Brooklyn")
UMPIRES_NOTE = "the umpire's secret note about the Wisconsin"


def sight_battle() -> Battle:
    b = load_demo()
    minnesota = Unit(
        id="mn1",
        name="1st Minnesota",
        side="union",
        brigade="cutler",
        kind=UnitKind.INFANTRY,
        stands=4,
        stands_start=4,
        x=12.0,
        y=12.0,
        facing_deg=180.0,
        hidden=True,
    )
    texans = Unit(
        id="tx1",
        name="Hood's Texans",
        side="csa",
        brigade=b.unit("ga8").brigade,
        kind=UnitKind.INFANTRY,
        stands=5,
        stands_start=5,
        x=44.0,
        y=42.0,
        facing_deg=0.0,
        hidden=True,
    )
    return b.with_units(minnesota, texans)


def play_first_turn(game: Game) -> None:
    """Turn 1: the Virginians advance; the Wisconsin marches along behind the crest, the Indiana
    comes forward on the ridge, the umpire rules on the Wisconsin, and Battery B fires."""
    game.do(NextPhase())  # Confederate Phase 2
    game.do(MoveUnit("va4", 34.0, 24.0, mode="march"))
    game.do(EndTurn())  # the Union's Phase 1
    game.do(NextPhase())  # the Union's Phase 2
    game.do(MoveUnit("wis2", 46.0, 12.0, mode="march"))
    game.do(MoveUnit("ind19", 24.0, 16.0, mode="march"))
    game.do(Override("unit", "wis2", {"micro_hits": 1}, UMPIRES_NOTE))
    game.do(NextPhase())  # the Union's Phase 3
    game.do(Shoot.on_table(game.battle, "batb4us", "va4", game.tables))


def sight_game(folder: Path, name: str = "sight.sqlite", played: bool = True) -> Game:
    game = Game.create(Path(folder) / name, sight_battle(), seed=1862)
    if played:
        play_first_turn(game)
    return game


def without_hidden(battle: Battle) -> Battle:
    return battle.with_units(*(replace(u, hidden=False) for u in battle.units.values()))
