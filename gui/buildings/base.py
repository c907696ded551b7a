"""What the building dialogs share: a unit of the active side, a building, what the rules say of the
pair, and the result."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QTextBrowser, QVBoxLayout, QWidget

from gui.combat_dialogs.common import RED, bold_title, select
from gui.reaction_dialog import GREY, chances_html, steps_html
from gui.validated_dialog import ValidatedDialog
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.terrain import TerrainType
from rules.battle.words import UnitKind
from rules.chances import Chances, chances_of
from rules.dice import DiceSource
from rules.errors import RulesError
from rules.tables import RuleTables


def buildings(battle: Battle) -> list:
    """The buildings on the table, by name."""
    return sorted(
        (f for f in battle.terrain if f.type == TerrainType.BUILDING), key=lambda f: (f.name or f.id, f.id)
    )


def nearest_building(battle: Battle, unit_id: str | None) -> str | None:
    import shapely
    from shapely.geometry import Point, Polygon

    found = buildings(battle)
    if not found or unit_id not in battle.units:
        return found[0].id if found else None
    u = battle.unit(unit_id)
    return min(found, key=lambda f: float(shapely.distance(Polygon(f.points), Point(u.x, u.y)))).id


def garrison_text(battle: Battle, feature_id: str, tables: RuleTables) -> str:
    from rules.shooting.buildings import garrison_of

    inside = garrison_of(battle, feature_id, tables)
    if not inside:
        return "empty"
    return "held by " + ", ".join(
        f"{u.name} ({u.stands} stand{'s' if u.stands != 1 else ''}, {battle.oob.side(u.side).name})"
        for u in inside
    )


class BuildingDialog(ValidatedDialog):
    """A unit of the active side, a building, what the rules say of the pair, and the result."""

    unit_label = "Unit"
    no_unit_reason: str | None = None  # why no unit is offered, where the rules say

    def __init__(
        self,
        title: str,
        heading: str,
        battle: Battle,
        tables: RuleTables,
        units: Sequence,
        unit_id: str | None,
        feature_id: str | None,
        parent: QWidget | None,
    ):
        super().__init__(title, parent)
        self.battle, self.tables = battle, tables
        self._chances: dict[object, Chances] = {}
        self.resize(640, 460)
        lay = QVBoxLayout(self.form_host)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(bold_title(heading, self))
        form = QFormLayout()
        self.unit_combo = QComboBox(self)
        self.unit_combo.setObjectName("building_unit")
        for u in units:
            self.unit_combo.addItem(
                f"{u.name} ({u.stands} {'sections' if u.kind == UnitKind.ARTILLERY else 'stands'})", u.id
            )
        self.building_combo = QComboBox(self)
        self.building_combo.setObjectName("building")
        for f in buildings(battle):
            self.building_combo.addItem(f.name or f.id, f.id)
        if unit_id is not None:
            select(self.unit_combo, unit_id)
        select(self.building_combo, feature_id or nearest_building(battle, self.unit_id()))
        form.addRow(self.unit_label, self.unit_combo)
        form.addRow("Building", self.building_combo)
        lay.addLayout(form)
        self.info = QLabel(self)
        self.info.setObjectName("building_info")
        self.info.setWordWrap(True)
        self.info.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(self.info)
        self._build_extra(lay)
        self.result = QTextBrowser(self)
        self.result.setObjectName("result")
        self.result.setMinimumHeight(110)
        lay.addWidget(self.result, 1)
        self.unit_combo.currentIndexChanged.connect(lambda _i: self._changed())
        self.building_combo.currentIndexChanged.connect(lambda _i: self._changed())
        self._changed()

    def _build_extra(self, lay: QVBoxLayout) -> None:
        """More widgets under the info line (the dice, for a bombardment)."""

    def unit_id(self) -> str | None:
        return self.unit_combo.currentData()

    def feature_id(self) -> str | None:
        return self.building_combo.currentData()

    def set_choice(self, unit_id: str, feature_id: str) -> None:
        """Pick the unit and the building (as the umpire would in the two lists)."""
        for combo, data, what in (
            (self.unit_combo, unit_id, "unit"),
            (self.building_combo, feature_id, "building"),
        ):
            i = combo.findData(data)
            if i < 0:
                raise RulesError(f"there is no {what} {data!r} to choose in this dialog")
            combo.setCurrentIndex(i)
        self._changed()

    def _action_class(self) -> type:
        from rules.shooting.buildings import GarrisonBuilding

        return GarrisonBuilding

    def action(self):
        """The action the dialog makes: ``GarrisonBuilding`` or ``BombardBuilding``."""
        return self._action_class()(self.unit_id(), self.feature_id())

    def _resolve(self, dice: DiceSource) -> list[Step]:
        from rules.actions import resolve

        return resolve(self.battle, self.action(), dice, self.tables).steps

    def _describe(self) -> str:
        feat = self.battle.feature(self.feature_id())
        cap = self.tables.entry("shooting.buildings.garrison_stands")
        per = self.tables.entry("shooting.buildings.structural_hits_to_collapse")
        return (
            f"<b>{html.escape(feat.name or feat.id)}</b>: {html.escape(garrison_text(self.battle, feat.id, self.tables))}; "
            f"holds at most {cap.value} stands ({html.escape(cap.citation)}); "
            f"{feat.structural_hits} of {per.value} structural hits ({html.escape(per.citation)})."
        )

    def _changed(self) -> None:
        if self.unit_id() is None or self.feature_id() is None:
            self.info.setText("")
        else:
            self.info.setText(self._describe())
        self.revalidate()

    def _dice(self) -> DiceSource | None:
        """The dice the result is shown with: typed at the table, or none to roll (garrisoning rolls
        none); None when the program is to roll them, and the dialog shows the chances instead."""
        from rules.dice import TableDice

        return TableDice([])

    def _dice_problem(self) -> str | None:
        return None

    def problem(self) -> str | None:
        if not hasattr(self, "result"):
            return None
        if self.unit_id() is None:
            return self.no_unit_reason or f"the active side has no {self.unit_label.lower()} for this"
        if self.feature_id() is None:
            return "there is no building on the table"
        try:
            self._resolve(self._dice_for_check())
        except RulesError as exc:
            self.result.setHtml(f"<p style='color:{RED}'>{html.escape(str(exc))}</p>")
            return str(exc)
        p = self._dice_problem()
        if p:
            self.result.setHtml(
                f"<p style='color:{GREY}'>The result is shown when the dice are complete.</p>"
            )
            return p
        from rules.actions import resolve

        try:
            dice = self._dice()
            if dice is None:
                self.result.setHtml(chances_html(self.chances()))
                return None
            done = resolve(self.battle, self.action(), dice, self.tables)
        except RulesError as exc:
            self.result.setHtml(f"<p style='color:{RED}'>{html.escape(str(exc))}</p>")
            return str(exc)
        self.result.setHtml(f"<p><b>{html.escape(done.summary)}</b></p>" + steps_html(done.steps))
        return None

    def chances(self) -> Chances:
        """What the action may do, each outcome with its exact chance (no die is rolled)."""
        from rules.actions import resolve

        action = self.action()
        if action not in self._chances:
            self._chances[action] = chances_of(
                lambda d: resolve(self.battle, action, d, self.tables), self.battle
            )
        return self._chances[action]

    def _dice_for_check(self) -> DiceSource:
        """Dice enough for any resolution, to see whether the rules allow the action at all."""
        from rules.dice import TableDice

        return TableDice([1] * 200)
