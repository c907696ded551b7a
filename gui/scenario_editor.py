"""The scenario editor: File > New scenario, Edit scenario, Scenario settings and Save as scenario.

A scenario is edited as a game not yet begun, in the window as any game is, so that everything the
window edits with (the order of battle's Add and Edit forms, an arriving unit's turn and entry
point among them; the terrain's drawing and editing) serves, logged and undone like any edit:

* **New scenario** asks for the scenario's settings (:class:`ScenarioSettingsDialog`: its name,
  notes and sources, the table's size, the two sides' names and colours, the side that moves
  first) and opens an empty battle of them, saved as it is edited in the saves folder;
* **Edit scenario** opens a scenario file the same way;
* **Scenario settings** changes those settings (one :class:`rules.umpire.scenario_settings.EditScenario`);
* **Save as scenario** writes the battle as a scenario file (:func:`storage.scenario_writing.to_toml`),
  which ``brigadier new`` starts a game from, and which reads back into the same battle: saved,
  loaded and saved again it is the same file.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
)

from gui.validated_dialog import ValidatedDialog

SCENARIO_FILTER = "Scenario files (*.toml)"
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


class ScenarioSettingsDialog(ValidatedDialog):
    """A scenario's settings: name, notes and sources, table, sides and the side that moves first."""

    def __init__(self, battle: Any = None, parent: Any = None):
        super().__init__("Scenario settings" if battle is not None else "New scenario", parent)
        form = QFormLayout(self.form_host)
        self.name = QLineEdit(battle.name if battle is not None else "", self)
        self.name.setPlaceholderText("e.g. Antietam, the Cornfield at dawn")
        self.notes = QPlainTextEdit(battle.notes if battle is not None else "", self)
        self.notes.setPlaceholderText("The situation, the sources of the order of battle, the rulings made")
        self.notes.setMinimumHeight(90)
        self.width = QDoubleSpinBox(self)
        self.depth = QDoubleSpinBox(self)
        for w, v in (
            (self.width, battle.table_width_in if battle else 72.0),
            (self.depth, battle.table_height_in if battle else 48.0),
        ):
            w.setRange(12.0, 2000.0)
            w.setDecimals(1)
            w.setSuffix(' "')
            w.setValue(v)
        sides = list(battle.oob.sides) if battle is not None else []
        defaults = [("union", "Union", "#1f3a93"), ("csa", "Confederate", "#8b1a1a")]
        self.side_ids = [s.id for s in sides] or [d[0] for d in defaults]
        self.side_names: list[QLineEdit] = []
        self.side_colours: list[QLineEdit] = []
        for k in range(2):
            name = sides[k].name if sides else defaults[k][1]
            colour = sides[k].colour if sides else defaults[k][2]
            n, c = QLineEdit(name, self), QLineEdit(colour, self)
            c.setPlaceholderText("#1f3a93")
            self.side_names.append(n)
            self.side_colours.append(c)
        self.first = QComboBox(self)
        for k in range(2):
            self.first.addItem(self.side_names[k].text(), self.side_ids[k])
        if battle is not None and battle.first_side in self.side_ids:
            self.first.setCurrentIndex(self.side_ids.index(battle.first_side))
        form.addRow("Name", self.name)
        form.addRow("Notes and sources", self.notes)
        form.addRow("Table width", self.width)
        form.addRow("Table depth", self.depth)
        for k in range(2):
            form.addRow(f"Side {k + 1}", self.side_names[k])
            form.addRow(f"Side {k + 1}'s colour", self.side_colours[k])
        form.addRow("Moves first", self.first)
        # each side's deployment zone: where it sets out its units (a rectangle of the table)
        self.zone_boxes: list[QGroupBox] = []
        self.zone_edges: list[list[QDoubleSpinBox]] = []
        zones = {z.side: z for z in battle.zones} if battle is not None else {}
        w0 = battle.table_width_in if battle is not None else 72.0
        h0 = battle.table_height_in if battle is not None else 48.0
        for k in range(2):
            box = QGroupBox(f"Side {k + 1}'s deployment zone", self)
            box.setCheckable(True)
            row = QHBoxLayout(box)
            z = zones.get(self.side_ids[k])
            default = (0.0, h0 - 12.0, w0, h0) if k == 0 else (0.0, 0.0, w0, 12.0)
            vals = (z.x0, z.y0, z.x1, z.y1) if z is not None else default
            edges = []
            for label, v in zip(("x from", "y from", "to x", "to y"), vals, strict=True):
                row.addWidget(QLabel(label, box))
                spin = QDoubleSpinBox(box)
                spin.setRange(0.0, 2000.0)
                spin.setDecimals(1)
                spin.setSuffix(' "')
                spin.setValue(v)
                spin.valueChanged.connect(self.revalidate)
                row.addWidget(spin)
                edges.append(spin)
            box.setChecked(z is not None)
            box.toggled.connect(self.revalidate)
            form.addRow(box)
            self.zone_boxes.append(box)
            self.zone_edges.append(edges)
        for w in (self.name, *self.side_names, *self.side_colours):
            w.textChanged.connect(self.revalidate)
        for k, w in enumerate(self.side_names):
            w.textChanged.connect(lambda text, k=k: self.first.setItemText(k, text))
        self.revalidate()

    def problem(self) -> str | None:
        if not hasattr(self, "first"):
            return None
        if not self.name.text().strip():
            return "The scenario needs a name."
        for k in range(2):
            if not self.side_names[k].text().strip():
                return f"Side {k + 1} needs a name."
            if not _COLOUR.match(self.side_colours[k].text().strip()):
                return f"Side {k + 1}'s colour is written like #1f3a93."
        if self.side_names[0].text().strip() == self.side_names[1].text().strip():
            return "The two sides need different names."
        for k in range(2):
            if not self.zone_boxes[k].isChecked():
                continue
            x0, y0, x1, y1 = (e.value() for e in self.zone_edges[k])
            if x1 <= x0 or y1 <= y0:
                return f"Side {k + 1}'s deployment zone runs from its first corner to a greater x and y."
            if x1 > self.width.value() or y1 > self.depth.value():
                return f"Side {k + 1}'s deployment zone runs off the table."
        return None

    def values(self) -> dict[str, Any]:
        return {
            "name": self.name.text().strip(),
            "notes": self.notes.toPlainText().strip(),
            "table_width_in": self.width.value(),
            "table_height_in": self.depth.value(),
            "sides": {
                sid: {
                    "name": self.side_names[k].text().strip(),
                    "colour": self.side_colours[k].text().strip(),
                }
                for k, sid in enumerate(self.side_ids)
            },
            "first_side": self.first.currentData(),
            "zones": {
                sid: ([e.value() for e in self.zone_edges[k]] if self.zone_boxes[k].isChecked() else None)
                for k, sid in enumerate(self.side_ids)
            },
        }


def _scratch_path(name: str) -> Path:
    from gui.paths import saves_dir

    stem = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "scenario"
    return saves_dir() / f"{stem}-scenario-{time.strftime('%Y%m%d-%H%M%S')}.sqlite"


def new_scenario(window: Any) -> bool:
    """File > New scenario: an empty battle of the settings asked for, to edit in the window."""
    from gui import dialogs
    from rules.battle.battle import Battle, DeploymentZone
    from rules.battle.order_of_battle import OrderOfBattle, Side
    from storage.errors import StorageError
    from storage.game import Game

    dlg = ScenarioSettingsDialog(None, window)
    if dialogs.exec_dialog(dlg) != dialogs.QDialog.DialogCode.Accepted:
        return False
    v = dlg.values()
    sides = tuple(Side(sid, s["name"], s["colour"]) for sid, s in v["sides"].items())
    battle = Battle(
        name=v["name"],
        oob=OrderOfBattle(sides=sides, brigades={}, units={}),
        active_side=v["first_side"],
        first_side=v["first_side"],
        table_width_in=v["table_width_in"],
        table_height_in=v["table_height_in"],
        notes=v["notes"],
        zones=tuple(DeploymentZone(sid, *rect) for sid, rect in v["zones"].items() if rect),
    )
    path = _scratch_path(v["name"])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        game = Game.create(path, battle)
    except (StorageError, OSError) as exc:
        dialogs.show_message(window, "New scenario", f"The scenario could not be started: {exc}", "error")
        return False
    window.controller.set_game(game, str(path))
    window.statusBar().showMessage(
        "A new scenario: add brigades and units in the order of battle, draw the terrain, then File > Save as scenario",
        20000,
    )
    return True


def edit_scenario(window: Any) -> bool:
    """File > Edit scenario: a scenario file opened to edit in the window."""
    from importlib import resources

    from gui import dialogs

    folder = str(resources.files("resources").joinpath("scenarios"))
    src = dialogs.ask_open_path(window, "Edit a scenario", folder, SCENARIO_FILTER)
    if not src:
        return False
    return window.start_new_game(src, str(_scratch_path(Path(src).stem)))


def scenario_settings(window: Any) -> bool:
    """File > Scenario settings: the settings of the battle in hand, changed as one edit."""
    from gui import dialogs
    from rules.umpire.scenario_settings import EditScenario

    b = window.controller.battle
    if b is None:
        return False
    dlg = ScenarioSettingsDialog(b, window)
    if dialogs.exec_dialog(dlg) != dialogs.QDialog.DialogCode.Accepted:
        return False
    v = dlg.values()
    now = {
        "name": b.name,
        "notes": b.notes,
        "table_width_in": b.table_width_in,
        "table_height_in": b.table_height_in,
        "sides": {s.id: {"name": s.name, "colour": s.colour} for s in b.oob.sides},
        "first_side": b.first_side,
        "zones": {
            s.id: next(([z.x0, z.y0, z.x1, z.y1] for z in b.zones if z.side == s.id), None)
            for s in b.oob.sides
        },
    }
    changed = {k: val for k, val in v.items() if now.get(k) != val}
    if not changed:
        return False
    return window.controller.run(EditScenario(changed)) is not None


def save_as_scenario(window: Any) -> Path | None:
    """File > Save as scenario: the battle in hand as a scenario file."""
    from gui import dialogs
    from gui.paths import saves_dir
    from storage.errors import StorageError
    from storage.outputs import atomic_write
    from storage.scenario_writing import to_toml

    b = window.controller.battle
    if b is None:
        return None
    stem = re.sub(r"[^A-Za-z0-9]+", "_", b.name).strip("_").lower() or "scenario"
    p = dialogs.ask_save_path(
        window, "Save as scenario", str(saves_dir() / f"{stem}.toml"), SCENARIO_FILTER, "toml"
    )
    if not p:
        return None
    game = window.controller.game
    try:
        out = atomic_write(
            p, to_toml(b), what="the scenario", protect=[str(game.path)] if game is not None else ()
        )
    except StorageError as exc:
        dialogs.show_message(window, "Save as scenario", str(exc), "error")
        return None
    window.statusBar().showMessage(
        f"Scenario saved to {out}: start a game from it with File > New from scenario", 15000
    )
    return Path(out)
