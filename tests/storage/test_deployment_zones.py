"""Deployment zones: each side's rectangle of the table for setting out its units, in a scenario
file ([[zones]]), in the scenario's settings (one logged edit, kept through the journal), set by
the order-of-battle importer around the units it sets out."""

from __future__ import annotations

import pytest

from rules.actions import EditScenario
from rules.battle.battle import DeploymentZone
from storage.errors import ScenarioError
from storage.game import Game
from storage.replay import verify
from storage.scenario import bundled_text, load_demo
from storage.scenario_parsing import parse_scenario
from storage.scenario_writing import to_toml

ZONES = """
[[zones]]
side = "union"
x0 = 0.0
y0 = 0.0
x1 = 72.0
y1 = 14.0

[[zones]]
side = "csa"
x0 = 0.0
y0 = 34.0
x1 = 72.0
y1 = 48.0
"""


def test_zones_in_a_scenario_file_read_and_write_back():
    b = parse_scenario(bundled_text("demo") + ZONES, "zoned.toml")
    assert b.zones == (DeploymentZone("union", 0, 0, 72, 14), DeploymentZone("csa", 0, 34, 72, 48))
    text = to_toml(b)
    assert (
        "[[zones]]" in text
        and parse_scenario(text).zones == b.zones
        and to_toml(parse_scenario(text)) == text
    )


@pytest.mark.parametrize(
    ("zone", "why"),
    [
        ('side = "prussia"\nx0 = 0\ny0 = 0\nx1 = 10\ny1 = 10', "the side 'prussia'"),
        ('side = "union"\nx0 = 10\ny0 = 0\nx1 = 5\ny1 = 10', "greater x1, y1"),
        ('side = "union"\nx0 = 0\ny0 = 0\nx1 = 100\ny1 = 10', "runs off"),
        ('side = "union"\nx0 = 0\ny0 = 0\nx1 = 10', "needs its y1"),
    ],
)
def test_a_wrong_zone_is_refused_with_its_place(zone, why):
    with pytest.raises(ScenarioError, match=why) as exc:
        parse_scenario(bundled_text("demo") + "\n[[zones]]\n" + zone + "\n", "zoned.toml")
    assert "zoned.toml" in str(exc.value)


def test_zones_set_in_the_settings_are_kept_through_the_journal(tmp_path):
    g = Game.create(tmp_path / "z.sqlite", load_demo(), seed=1)
    try:
        g.do(EditScenario({"zones": {"union": [0, 0, 72, 12], "csa": [0, 36, 72, 48]}}))
        assert [z.side for z in g.battle.zones] == ["union", "csa"]
        g.do(EditScenario({"zones": {"csa": None}}))
        assert [z.side for z in g.battle.zones] == ["union"]
        with pytest.raises(Exception, match="runs off the table|must hold"):
            g.do(EditScenario({"zones": {"csa": [0, 36, 90, 48]}}))
        with pytest.raises(Exception, match="deployment zone"):
            g.do(EditScenario({"table_width_in": 40}))  # the union zone is 72" wide
        assert verify(g) == g.last_seq
    finally:
        g.close()
    with Game.open(tmp_path / "z.sqlite") as again:
        assert again.battle.zones == (DeploymentZone("union", 0, 0, 72, 12),)
        again.undo_step()
        assert len(again.battle.zones) == 2
