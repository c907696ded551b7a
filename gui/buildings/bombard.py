"""Phase 3: a battery of the active side fires at an enemy-held building (RULE-03-3.2)."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QGroupBox, QVBoxLayout, QWidget

from gui.buildings.base import BuildingDialog, buildings
from gui.dice_entry import DiceEntry, dry_run_check
from rules.battle.battle import Battle
from rules.battle.words import UnitKind
from rules.dice import DiceSource
from rules.tables import RuleTables


class BombardDialog(BuildingDialog):
    """Phase 3: a battery of the active side fires at an enemy-held building (RULE-03-3.2).

    2D6 a section hitting on 4+, the building's save, every 2 unsaved hits a structural hit and a
    collapse into rubble at 4. The dice are the program's or typed (:class:`DiceEntry`): the hit
    dice, then the building's saves. The result is shown before it is applied.
    """

    unit_label = "Battery"

    def __init__(
        self,
        battle: Battle,
        tables: RuleTables,
        *,
        battery_id: str | None = None,
        feature_id: str | None = None,
        parent: QWidget | None = None,
    ):
        guns = sorted(
            (
                u
                for u in battle.units.values()
                if u.in_play and u.side == battle.active_side and u.kind == UnitKind.ARTILLERY
            ),
            key=lambda u: (u.name, u.id),
        )
        if battery_id is not None and battery_id in battle.units and all(u.id != battery_id for u in guns):
            guns.insert(0, battle.unit(battery_id))
        if feature_id is None and battery_id is None:
            feature_id = next(
                (f.id for f in buildings(battle) if self._enemy_held(battle, f.id, tables)), None
            )
        super().__init__(
            "Bombard a building — Phase 3: Ranged Combat",
            "Artillery against a building (RULE-03-3.2)",
            battle,
            tables,
            guns,
            battery_id,
            feature_id,
            parent,
        )
        self.setObjectName("bombard_dialog")

    def _action_class(self) -> type:
        from rules.shooting.buildings import BombardBuilding

        return BombardBuilding

    @staticmethod
    def _enemy_held(battle: Battle, feature_id: str, tables: RuleTables) -> bool:
        from rules.shooting.buildings import garrison_of

        return any(u.side != battle.active_side for u in garrison_of(battle, feature_id, tables))

    def _build_extra(self, lay: QVBoxLayout) -> None:
        db = QGroupBox("Dice: the hit dice (2D6 a section), then the building's saves", self)
        self.dice = DiceEntry(db)
        QVBoxLayout(db).addWidget(self.dice)
        lay.addWidget(db)
        self.dice.set_check(dry_run_check(self._resolve))
        self.dice.changed.connect(self.revalidate)

    def _describe(self) -> str:
        hit = self.tables.entry("shooting.to_hit.building.artillery")
        cover = self.tables.entry("terrain.matrix.building.cover")
        save = self.tables.save(str(cover.value))
        return (
            super()._describe()
            + f"<br>Hits on <b>{hit.value}+</b> ({html.escape(hit.citation)}); the building saves on "
            f"{save.value}+ ({html.escape(str(cover.value))} cover, {html.escape(cover.citation)}); every 2 "
            "unsaved hits make a structural hit, and the building collapses into rubble on its garrison at "
            f"{self.tables.value('shooting.buildings.structural_hits_to_collapse')}."
        )

    def _changed(self) -> None:
        if hasattr(self, "dice"):
            self.dice.set_check(dry_run_check(self._resolve))
        super()._changed()

    def _dice(self) -> DiceSource | None:
        return self.dice.table_dice()

    def _dice_problem(self) -> str | None:
        return self.dice.problem()
