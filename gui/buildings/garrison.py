"""Phase 2: a unit of the active side occupies a building it touches (RULE-03-3.1)."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QWidget

from gui.buildings.base import BuildingDialog
from gui.reaction_dialog import inches
from rules.battle.battle import Battle
from rules.legality import allowed, garrison_candidates, refused
from rules.tables import RuleTables


class GarrisonDialog(BuildingDialog):
    """Phase 2: a unit of the active side occupies a building it touches (RULE-03-3.1).

    Up to 2 stands of infantry or dismounted cavalry, counting any garrison already inside; no
    dice. The units offered are those the rules let garrison a building
    (:func:`rules.legality.garrison_candidates`), and a ``unit_id`` asked for besides. The dialog
    shows the building's garrison and the limit, and the OK button stays disabled with the rule
    while the rules refuse the pair.
    """

    def __init__(
        self,
        battle: Battle,
        tables: RuleTables,
        unit_id: str | None = None,
        feature_id: str | None = None,
        parent: QWidget | None = None,
    ):
        candidates = garrison_candidates(battle, tables)
        units = [battle.unit(o.unit_id) for o in allowed(candidates)]
        if unit_id is not None and unit_id in battle.units and all(u.id != unit_id for u in units):
            units.insert(0, battle.unit(unit_id))
        super().__init__(
            "Garrison a building — Phase 2: Maneuver",
            "Occupy a building (RULE-03-3.1)",
            battle,
            tables,
            units,
            unit_id,
            feature_id,
            parent,
        )
        self.setObjectName("garrison_dialog")
        if not units and refused(candidates):
            self.no_unit_reason = (
                f"no unit of the side to act may garrison a building: {refused(candidates)[0]}"
            )
            self.revalidate()

    def _describe(self) -> str:
        import shapely
        from shapely.geometry import Point, Polygon

        u = self.battle.unit(self.unit_id())
        feat = self.battle.feature(self.feature_id())
        gap = float(shapely.distance(Polygon(feat.points), Point(u.x, u.y)))
        touch = self.tables.entry("terrain.cover.touching_in")
        return (
            super()._describe()
            + f"<br>{html.escape(u.name)}: {u.stands} stand{'s' if u.stands != 1 else ''}; its colour stand is "
            f"{inches(gap)} from the building (it must touch it, within {inches(float(touch.value))})."
        )
