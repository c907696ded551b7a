"""Scenario files: a battle's starting order of battle and battlefield, in TOML an umpire can edit.

The format is documented for umpires in ``resources/scenarios/README.md``; ``template.toml``
there is an empty scenario to copy. A mistake raises :class:`~storage.errors.ScenarioError`
naming the file, the line and the problem.

Here: reading a scenario file, and the scenarios that come with Brigadier. The text is read in
:mod:`storage.scenario_parsing` (its format and the checks of a value in
:mod:`storage.scenario_format`), and a battle is written as a scenario in
:mod:`storage.scenario_writing`.

>>> b = load_demo()
>>> b.name, len(b.oob.sides), b.table_width_in, b.table_height_in
('Oak Ridge', 2, 72.0, 48.0)
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from rules import limits
from rules.battle.battle import Battle
from rules.errors import InvariantError
from storage.errors import ScenarioError
from storage.scenario_parsing import parse_scenario


def load_scenario(path: str | Path) -> Battle:
    """Read a scenario file."""
    p = Path(path)
    try:
        text = limits.read_text(p, "a scenario file")
    except InvariantError as exc:
        raise ScenarioError(str(exc), p) from None
    except FileNotFoundError:
        raise ScenarioError("there is no such file", p) from None
    except IsADirectoryError:
        raise ScenarioError("this is a folder, not a scenario file", p) from None
    except UnicodeDecodeError:
        raise ScenarioError("this is not a text file (scenarios are TOML text in UTF-8)", p) from None
    except OSError as exc:
        raise ScenarioError(f"cannot be read: {exc.strerror}", p) from None
    return parse_scenario(text, str(p))


def bundled_scenarios() -> list[str]:
    """The names of the scenarios that come with Brigadier ("demo", "template")."""
    folder = resources.files("resources").joinpath("scenarios")
    return sorted(item.name[:-5] for item in folder.iterdir() if item.name.endswith(".toml"))


def bundled_text(name: str) -> str:
    """The text of a bundled scenario."""
    if name not in bundled_scenarios():
        raise ScenarioError(f"there is no bundled scenario '{name}' ({', '.join(bundled_scenarios())})")
    return resources.files("resources").joinpath("scenarios", f"{name}.toml").read_text(encoding="utf-8")


def load_bundled(name: str) -> Battle:
    return parse_scenario(bundled_text(name), f"resources/scenarios/{name}.toml")


def load_demo() -> Battle:
    """The demo battle of Oak Ridge, built from the rulebook's own examples."""
    return load_bundled("demo")
