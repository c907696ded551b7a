"""Round trips and tampering.

* ``export-scenario`` at any moment of a scripted game, mid-turn included, writes a scenario that
  loads, and a game started from it is the game as it stood: the turn's records (what each unit
  has marched, the chargers that stalled, the melees pending) come with it.
* An export always loads, whatever the names hold (a DEL character, quotes, escapes) and whatever
  the keys of a terrain feature's props.
* Text read from a save is checked or made harmless: a side's colour is a colour, and ``log`` and
  ``info`` never print escape sequences.
* ``verify`` catches tampering: a changed dice count in a snapshot, a changed dice seed, a changed
  summary or log line, a changed undone entry.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli import main as cli
from rules.actions import EndTurn, MoveUnit, NextPhase, Override, remaining_move_in
from rules.battle.events import diff
from rules.battle.order_of_battle import Side
from rules.battle.terrain import TerrainFeature, TerrainType
from rules.errors import RulesError
from storage.errors import SaveFileError
from storage.game import Game
from storage.replay import verify
from storage.scenario import load_demo
from storage.scenario_parsing import parse_scenario
from storage.scenario_writing import to_toml
from tests.reliability.scripted_game import next_action


def run(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _same(a, b) -> bool:
    return diff(a, b).empty


# --------------------------------------------------------------------------------------------
# export-scenario round trips
# --------------------------------------------------------------------------------------------


def test_a_mid_turn_export_keeps_what_units_have_marched(tmp_path, capsys):
    """The issue's case: va4 marched in Phase 2, the game was exported, and the scenario started a
    new game in which va4 could march its whole allowance again. It keeps the turn's records."""
    g = tmp_path / "g.sqlite"
    run(capsys, "new", "demo", g)
    run(capsys, "next-phase", g)
    assert run(capsys, "move", g, "va4", "34", "22", "--no-reactions")[0] == 0
    with Game.open(g) as game:
        left = remaining_move_in(game.battle, "va4", game.tables)
        assert left < 6
    out = tmp_path / "mid.toml"
    assert run(capsys, "export-scenario", g, out)[0] == 0
    g2 = tmp_path / "g2.sqlite"
    assert run(capsys, "new", out, g2)[0] == 0
    with Game.open(g2) as game, Game.open(g) as original:
        assert remaining_move_in(game.battle, "va4", game.tables) == pytest.approx(left)
        assert _same(game.battle, original.battle)


def test_export_scenario_at_random_moments_of_a_scripted_game_round_trips(tmp_path, capsys):
    rng = random.Random(1864)
    g = tmp_path / "g.sqlite"
    with Game.create(g, load_demo(), seed=9) as game:
        exports = 0
        for i in range(160):
            action = next_action(game.battle, rng)
            if rng.random() < 0.3 and game.battle.phase.value == "maneuver":
                u = rng.choice(
                    [u for u in game.battle.units.values() if u.side == game.battle.active_side and u.in_play]
                )
                action = MoveUnit(
                    u.id,
                    min(max(u.x + rng.uniform(-4, 4), 0), 72),
                    min(max(u.y + rng.uniform(-4, 4), 0), 48),
                    mode="march",
                )
            try:
                game.do(action)
            except RulesError:
                continue
            if rng.random() < 0.15:
                text = to_toml(game.battle)
                back = parse_scenario(text, f"export-{i}.toml")
                assert _same(back, game.battle), i
                seq = rng.randint(0, game.last_seq)
                past = game.state_at(seq)
                assert _same(parse_scenario(to_toml(past), "past.toml"), past), seq
                exports += 1
        assert exports >= 10
    out = tmp_path / "end.toml"
    assert run(capsys, "export-scenario", g, out, "--seq", "7")[0] == 0
    assert run(capsys, "new", out, tmp_path / "again.sqlite")[0] == 0


names = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"), min_size=1, max_size=20
).map(lambda s: s.strip() or "x")
prop_keys = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)
prop_values = st.recursive(
    st.one_of(
        st.integers(-100, 100),
        st.booleans(),
        st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=6),
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(prop_keys, inner, max_size=3)),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    battle_name=names,
    side_name=names,
    unit_name=names,
    feature_name=names,
    props=st.dictionaries(prop_keys, prop_values, max_size=3),
    notes=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30),
)
def test_an_export_always_loads_whatever_its_names_and_props_hold(
    battle_name, side_name, unit_name, feature_name, props, notes
):
    from dataclasses import replace

    b = load_demo()
    oob = replace(b.oob, sides=(replace(b.oob.sides[0], name=side_name), b.oob.sides[1]))
    b = replace(b, name=battle_name, notes=notes, oob=oob)
    b = b.with_unit(replace(b.unit("va4"), name=unit_name))
    b = b.with_feature(
        TerrainFeature("odd", TerrainType.OPEN, ((1, 1), (5, 1), (5, 5)), name=feature_name, props=props)
    )
    text = to_toml(b)
    back = parse_scenario(text, "odd.toml")
    assert back.name == battle_name and back.notes == notes
    assert back.unit("va4").name == unit_name and back.oob.sides[0].name == side_name
    assert back.feature("odd").props == props and back.feature("odd").name == feature_name


def test_a_del_character_in_a_name_exports_to_a_scenario_that_new_accepts(tmp_path, capsys):
    g = tmp_path / "g.sqlite"
    run(capsys, "new", "demo", g)
    assert (
        run(capsys, "override", g, "unit", "va4", 'name=4th\x7fVirginia "the\\ best"', "--reason", "r")[0]
        == 0
    )
    out = tmp_path / "x.toml"
    assert run(capsys, "export-scenario", g, out)[0] == 0
    assert run(capsys, "new", out, tmp_path / "x.sqlite")[0] == 0
    with Game.open(tmp_path / "x.sqlite") as game:
        assert game.battle.unit("va4").name == '4th\x7fVirginia "the\\ best"'


# --------------------------------------------------------------------------------------------
# Untrusted text
# --------------------------------------------------------------------------------------------


def test_a_side_colour_that_is_not_a_colour_is_refused_wherever_it_comes_in():
    with pytest.raises(RulesError, match="colour"):
        Side("csa", "Confederate", "red; background: url(http://x)")
    text = to_toml(load_demo()).replace('colour = "#8b1a1a"', 'colour = "#8b1a1a; x: y"')
    with pytest.raises(Exception, match="colour"):
        parse_scenario(text, "c.toml")


def test_log_and_info_never_print_escape_sequences(tmp_path, capsys):
    g = tmp_path / "g.sqlite"
    run(capsys, "new", "demo", g)
    evil = "\x1b[2J\x1b]0;owned\x07\x9b31m"
    assert run(capsys, "override", g, "unit", "va4", f"name=Va{evil}", "--reason", f"why{evil}")[0] == 0
    for argv in (("log", g), ("info", g), ("log", g, "--turn", "1")):
        code, out, err = run(capsys, *argv)
        assert code == 0
        assert not any(c in out + err for c in "\x1b\x07\x9b"), argv
        assert "\\x1b[2J" in out


# --------------------------------------------------------------------------------------------
# verify catches tampering
# --------------------------------------------------------------------------------------------


@pytest.fixture
def played(tmp_path) -> Path:
    """A save with program dice rolled, a turn's snapshot at its last entry, and an undone entry."""
    from rules.shooting.shoot import Shoot

    p = tmp_path / "t.sqlite"
    with Game.create(p, load_demo(), seed=11) as g:
        g.do(NextPhase())
        g.do(NextPhase())  # Phase 3
        g.do(Shoot.on_table(g.battle, "va4", "batb4us", g.tables))
        assert g.dice.drawn > 0
        g.do(Override("unit", "wis2", {"micro_hits": 1}, "ruled"))
        g.undo()
        g.redo()
        g.do(EndTurn())  # the Union's turn
        g.do(EndTurn())  # a new game turn: a snapshot, with no entry after it
        assert g.conn.execute("SELECT max(seq) FROM snapshots").fetchone()[0] == g.last_seq
        g.do(NextPhase())
        g.undo()  # an undone entry
        assert verify(g) == 6
    return p


def _tamper(p: Path, sql: str, *params) -> None:
    conn = sqlite3.connect(p)
    conn.execute(sql, params)
    conn.commit()
    conn.close()


def _verify(p: Path) -> str:
    with Game.open(p) as g:
        with pytest.raises(SaveFileError) as exc:
            verify(g)
    return str(exc.value)


def test_a_tampered_dice_count_in_a_snapshot_is_caught(played):
    _tamper(played, "UPDATE snapshots SET dice_drawn = 0")
    with pytest.raises(SaveFileError, match="snapshot .* dice"):
        Game.open(played)


def test_a_tampered_snapshot_battle_is_caught(played):
    _tamper(played, "UPDATE snapshots SET battle = json_set(battle, '$.units[0].stands', 1)")
    assert "snapshot" in _verify(played)


def test_a_changed_dice_seed_is_caught(played):
    _tamper(played, "UPDATE meta SET value = '12' WHERE key = 'dice_seed'")
    assert "seed" in _verify(played)


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE journal SET summary = summary || ' (and the Union ran)' WHERE seq = 3",
        "UPDATE journal SET steps = replace(steps, 'hits', 'misses') WHERE seq = 3",
        "UPDATE journal SET created_at = '1863-07-03T15:00:00+00:00' WHERE seq = 1",
        "UPDATE redo SET summary = 'something else'",
        "UPDATE meta SET value = '{\"x\": 1}' WHERE key = 'chain_start'",
    ],
)
def test_changed_text_in_the_journal_is_caught(played, sql):
    _tamper(played, sql)
    said = _verify(played)
    assert "changed" in said


def test_verify_on_the_command_line_says_the_journal_is_whole(played, capsys):
    code, out, _ = run(capsys, "verify", played)
    assert code == 0 and "all 6 events replay" in out and "as it was written" in out
    _tamper(played, "UPDATE journal SET summary = 'x' WHERE seq = 2")
    code, _, err = run(capsys, "verify", played)
    assert code == 1 and "journal entry 2 has been changed" in err
