"""What each side has seen, read from the journal (storage.sightings): it follows play, survives
reopening the game and follows Undo and Redo; hidden units round-trip in saves and scenarios."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace

import pytest

from rules.actions import EndTurn, MoveUnit, NextPhase, Override
from rules.sight.spotting import spot
from storage.game import Game
from storage.replay import verify
from storage.scenario import load_scenario
from storage.scenario_parsing import parse_scenario
from storage.scenario_writing import to_toml
from storage.sightings import Sightings
from tests.sight_game import UMPIRES_NOTE, UNSEEN_BY_CSA, UNSEEN_BY_UNION, sight_battle, sight_game


def test_knowledge_follows_play_and_each_side_sees_what_the_rules_let_it(tmp_path):
    g = sight_game(tmp_path)
    s = Sightings.of(g)
    s.update()
    for side in ("union", "csa"):  # the journal's reading agrees with spotting the battle now
        assert s.seen(side) == spot(g.battle, side, g.tables).seen
    assert {"wis2", "mn1"}.isdisjoint(s.knowledge("csa").ever)
    assert "tx1" not in s.knowledge("union").ever
    union = s.events_as_seen("union")
    every = " ".join([e.summary for e in union] + [st.text for e in union for st in e.steps])
    assert not any(name in every for name in UNSEEN_BY_UNION)
    assert {"batb4us", "ind19"} <= s.seen("csa")


def test_the_side_sees_no_ruling_and_no_entry_about_units_it_does_not_see(tmp_path):
    g = sight_game(tmp_path)
    s = Sightings.of(g)
    s.update()
    csa = s.events_as_seen("csa")
    kinds = {e.seq: e.kind for e in csa}
    assert "override" not in kinds.values()  # the umpire's ruling is the umpire's
    every = " ".join([e.summary for e in csa] + [st.text for e in csa for st in e.steps])
    for name in UNSEEN_BY_CSA:
        assert name not in every
    assert UMPIRES_NOTE not in every
    # the Wisconsin's march behind the crest is not there; the Indiana's, in sight, is
    assert any("19th Indiana marches" in e.summary for e in csa)
    wis = next(e for e in g.events() if e.summary.startswith("2nd Wisconsin marches"))
    assert s.event_as_seen("csa", wis.seq) is None
    assert s.event_as_seen("union", wis.seq) is not None  # its own
    # the union sees its own ruling's unit but not the ruling
    rule = next(e for e in g.events() if e.type == "override")
    assert s.event_as_seen("union", rule.seq) is None


def test_a_unit_lost_from_sight_is_remembered_where_it_was_last_seen(tmp_path):
    g = sight_game(tmp_path)
    g.do(EndTurn())  # turn 2, the Confederates
    g.do(NextPhase())
    # the 14th Brooklyn, seen by the Confederates, marches behind Oak Ridge
    before = g.battle.unit("bkn14")
    g.do(Override("unit", "bkn14", {"x": 36.0, "y": 9.0}, "moved behind the ridge"))
    s = Sightings.of(g)
    s.update()
    k = s.knowledge("csa")
    assert "bkn14" not in k.seen
    ghost = k.ghosts()["bkn14"]
    assert ghost.turn == 2 and (ghost.unit.x, ghost.unit.y) == (before.x, before.y)
    assert s.view("csa").ghosts["bkn14"].unit.name == "14th Brooklyn"
    assert "bkn14" not in s.view("csa").units


def test_knowledge_survives_reopening_the_game(tmp_path):
    g = sight_game(tmp_path)
    s = Sightings.of(g)
    s.update()
    was = {side: (s.knowledge(side), [e for e in s.events_as_seen(side)]) for side in ("union", "csa")}
    g.close()
    again = Game.open(tmp_path / "sight.sqlite")
    s2 = Sightings.of(again)
    assert s2 is not s
    s2.update()
    for side in ("union", "csa"):
        assert s2.knowledge(side) == was[side][0]
        assert s2.events_as_seen(side) == was[side][1]


def test_undo_and_redo_take_knowledge_back_and_give_it_back(tmp_path):
    g = sight_game(tmp_path)
    s = Sightings.of(g)
    s.update()
    g.do(EndTurn())
    g.do(NextPhase())
    g.do(MoveUnit("va4", 30.0, 20.0, mode="march"))  # the Virginians climb towards the crest
    s.update()
    after = s.knowledge("csa")
    g.undo_step()
    s.update()
    assert s.seq == g.last_seq
    assert s.knowledge("csa").seen == spot(g.battle, "csa", g.tables).seen
    g.redo_step()
    s.update()
    assert s.knowledge("csa") == after
    # an undo and another action in its place: the entry of the same number is read afresh
    g.undo_step()
    g.do(MoveUnit("va4", 36.0, 26.0, mode="march"))
    s.update()
    assert s.knowledge("csa").seen == spot(g.battle, "csa", g.tables).seen
    assert s.event_as_seen("union", g.last_seq).summary.startswith("4th Virginia marches")


def test_an_old_game_undone_far_back_reads_on_from_the_nearest_state_worked_out(tmp_path, monkeypatch):
    """A game begun before its sight was kept: what its sides saw is worked out from the journal,
    and kept in memory every few entries, so an Undo far back reads on from the nearest."""
    from storage import sight_ledger
    from tests.storage.conftest import as_old_format

    monkeypatch.setattr(sight_ledger, "MARK_EVERY", 3)
    sight_game(tmp_path).close()
    as_old_format(tmp_path / "sight.sqlite", 5)
    g = Game.open(tmp_path / "sight.sqlite")
    s = Sightings.of(g)
    s.update()
    g.do(EndTurn())
    g.do(NextPhase())
    for k in range(8):
        g.do(MoveUnit("bkn14", 56.0, 21.0 + k, mode=None))
    s.update()
    assert {3, 6, 9} <= set(g.sight._marks)
    g.undo_to(5)
    s.update()
    assert s.seq == 5 and max(g.sight._marks) <= 5
    reopened = Game.open(tmp_path / "sight.sqlite")
    fresh = Sightings(reopened)
    fresh.update()
    for side in ("union", "csa"):
        assert s.knowledge(side) == fresh.knowledge(side)
        assert s.events_as_seen(side) == fresh.events_as_seen(side)
    # and the knowledge at an earlier entry is the same read either way
    assert s.knowledge("csa", 2) == fresh.knowledge("csa", 2)


def test_a_hidden_unit_appears_when_spotted_and_not_before(tmp_path):
    g = sight_game(tmp_path)
    s = Sightings.of(g)
    g.do(EndTurn())  # turn 2, the Confederates
    g.do(NextPhase())
    s.update()
    assert "mn1" not in s.knowledge("csa").ever
    # the 28th North Carolina marches up towards the West Woods: still more than 6" off
    g.do(MoveUnit("nc28", 14.0, 19.0, mode="march"))
    s.update()
    assert g.battle.unit("mn1").hidden and "mn1" not in s.seen("csa")
    assert "mn1" not in s.view("csa").units
    # an umpire's placement 5" from the Minnesota: the rules look at the next action of play
    g.do(Override("unit", "nc28", {"y": 17.0}, "the regiment went on into the woods' edge"))
    g.do(NextPhase())
    s.update()
    assert not g.battle.unit("mn1").hidden
    assert "mn1" in s.seen("csa") and s.view("csa").units["mn1"].name == "1st Minnesota"
    revealed = g.events()[-1]
    assert any(
        st.text.startswith("1st Minnesota is revealed: spotted by 28th North Carolina")
        for st in revealed.steps
    )
    seen = s.event_as_seen("csa", revealed.seq)
    assert any("1st Minnesota is revealed" in st.text for st in seen.steps)
    # the reveal is part of the action: undone with it, and the game replays exactly
    assert verify(g) == g.last_seq
    g.undo_step()
    assert g.battle.unit("mn1").hidden
    s.update()
    # just after the umpire's placement it is still hidden, but 5" off with a clear view: seen
    assert "mn1" in s.seen("csa")
    g.undo_step()
    s.update()
    assert "mn1" not in s.seen("csa") and "mn1" not in s.view("csa").units


def test_the_hidden_flag_round_trips_in_saves_and_scenarios(tmp_path):
    b = sight_battle()
    g = Game.create(tmp_path / "h.sqlite", b)
    g.close()
    again = Game.open(tmp_path / "h.sqlite")
    assert again.battle.unit("mn1").hidden and not again.battle.unit("wis2").hidden
    text = to_toml(again.battle)
    assert text.count("hidden = true") == 2 and "hidden = false" not in text
    back = parse_scenario(text)
    assert back.unit("tx1").hidden and back.unit("mn1").hidden and not back.unit("va4").hidden


def test_an_old_save_and_an_old_scenario_read_as_not_hidden(tmp_path):
    g = Game.create(tmp_path / "old.sqlite", replace(sight_battle(), name="old"))
    g.close()
    conn = sqlite3.connect(tmp_path / "old.sqlite")
    row = conn.execute("SELECT battle FROM scenario WHERE id = 1").fetchone()
    d = json.loads(row[0])
    for u in d["units"]:
        u.pop("hidden")
    conn.execute("UPDATE scenario SET battle = ? WHERE id = 1", (json.dumps(d),))
    conn.commit()
    conn.close()
    old = Game.open(tmp_path / "old.sqlite")
    assert not any(u.hidden for u in old.battle.units.values())
    demo_text = tmp_path / "x.toml"
    demo_text.write_text(to_toml(old.battle), encoding="utf-8")
    assert "hidden" not in demo_text.read_text(encoding="utf-8")
    assert not any(u.hidden for u in load_scenario(demo_text).units.values())


def test_a_malformed_hidden_value_in_a_scenario_names_its_line(tmp_path):
    from storage.errors import ScenarioError

    text = to_toml(sight_battle()).replace("hidden = true", 'hidden = "perhaps"', 1)
    with pytest.raises(ScenarioError, match=r"line \d+: .*hidden must be true or false, not 'perhaps'"):
        parse_scenario(text, "bad.toml")


def test_export_scenario_keeps_the_flag(tmp_path, capsys):
    from cli.main import main

    g = sight_game(tmp_path)
    g.close()
    assert main(["export-scenario", str(tmp_path / "sight.sqlite"), str(tmp_path / "out.toml")]) == 0
    back = load_scenario(tmp_path / "out.toml")
    assert back.unit("mn1").hidden and back.unit("tx1").hidden and not back.unit("wis2").hidden


def test_the_sight_command_says_what_a_side_sees_and_why_not_the_rest(tmp_path, capsys):
    from cli.main import main

    g = sight_game(tmp_path)
    g.close()
    assert main(["sight", str(tmp_path / "sight.sqlite"), "--side", "Confederate"]) == 0
    out = capsys.readouterr().out
    assert "The Confederate side sees 3 of the Union side's 5 units on the table." in out
    assert "  seen: 19th Indiana [ind19], by " in out
    assert "not seen: 2nd Wisconsin [wis2]: from " in out and "dead ground" in out and "[RULE-03-4.3]" in out
    assert "not seen: 1st Minnesota [mn1]: 1st Minnesota is hidden" in out
    assert "[club default (terrain.spotting.hidden_in)]" in out
    assert main(["sight", str(tmp_path / "sight.sqlite"), "--side", "prussia"]) == 1
    assert "there is no side 'prussia'" in capsys.readouterr().err
