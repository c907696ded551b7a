"""The terrain dialog: a terrain feature's name, type, hill level, width and structural hits.

:class:`TerrainDialog` is opened from the map (double-click a feature, or its context menu); the
outline or line stays as drawn, and what is changed becomes an EditTerrain action
(:meth:`TerrainDialog.values`).
"""

from __future__ import annotations

from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QLabel, QLineEdit, QSpinBox, QWidget

from gui.validated_dialog import ValidatedDialog, combo, select_data
from rules.errors import RulesError


class TerrainDialog(ValidatedDialog):
    """Edit a terrain feature's name, type, level, width and structural hits.

    The outline or line stays as drawn; a type can only change to one of the same shape (an
    area to an area, a line to a line), since the points mean different things.
    """

    def __init__(self, feature, parent: QWidget | None = None):
        from rules.battle.terrain import AREA_TYPES, LINEAR_TYPES, TerrainType

        super().__init__(f"Terrain: {feature.name or feature.type.label}", parent)
        self.setMinimumWidth(380)
        self.original = feature
        if feature.is_linear:
            kinds = [t for t in TerrainType if t in LINEAR_TYPES]
        elif feature.is_hill:
            kinds = [TerrainType.HILL]
        else:
            kinds = [t for t in TerrainType if t in AREA_TYPES]
        form = QFormLayout(self.form_host)
        self.name = QLineEdit(feature.name, self)
        self.name.setPlaceholderText("e.g. West Woods")
        self.type = combo([(t.label, t) for t in kinds], self)
        select_data(self.type, feature.type)
        self.level = QSpinBox(self)
        self.level.setRange(0, 3)
        self.level.setValue(feature.level)
        self.level.setEnabled(feature.is_hill)
        self.level.setToolTip("Level 1 is a low hill or ridge, level 2 a prominent ridge (RULE-03-4.1)")
        self.width = QDoubleSpinBox(self)
        self.width.setRange(0, 12)
        self.width.setDecimals(2)
        self.width.setSuffix(' "')
        self.width.setValue(feature.width_in)
        self.width.setEnabled(feature.is_linear)
        self.width.setToolTip("The width of a sunken road or stream; 0 draws a plain line")
        self.hits = QSpinBox(self)
        self.hits.setRange(0, 99)
        self.hits.setValue(feature.structural_hits)
        self.hits.setToolTip("Structural hits on a building so far (RULE-03-3.2)")
        form.addRow("Name", self.name)
        form.addRow("Type", self.type)
        form.addRow("Hill level", self.level)
        form.addRow("Width", self.width)
        form.addRow("Structural hits", self.hits)
        form.addRow(
            QLabel(
                f"{len(feature.points)} points"
                + (f", crestline of {len(feature.crest)}" if feature.crest else ""),
                self,
            )
        )
        self.name.textChanged.connect(self.revalidate)
        self.type.currentIndexChanged.connect(self._type_changed)
        for w in (self.level, self.hits):
            w.valueChanged.connect(self.revalidate)
        self.width.valueChanged.connect(self.revalidate)
        self._type_changed()

    def _type_changed(self, *_args) -> None:
        from rules.battle.terrain import TerrainType

        self.hits.setEnabled(
            TerrainType.parse(self.type.currentData()) == TerrainType.BUILDING
            or self.original.structural_hits > 0
        )
        self.revalidate()

    def values(self) -> dict:
        """The values changed, as an EditTerrain action takes them."""
        f = self.feature()
        before, after = self.original.to_dict(), f.to_dict()
        keys = ("name", "type", "level", "width_in", "structural_hits")
        return {k: after.get(k, "" if k == "name" else 0) for k in keys if before.get(k) != after.get(k)}

    def feature(self):
        from dataclasses import replace as _replace

        from rules.battle.terrain import TerrainType

        return _replace(
            self.original,
            name=self.name.text().strip(),
            type=TerrainType.parse(self.type.currentData()),
            level=self.level.value() if self.original.is_hill else 0,
            width_in=round(self.width.value(), 2) if self.original.is_linear else self.original.width_in,
            structural_hits=self.hits.value(),
        )

    def problem(self) -> str | None:
        if not hasattr(self, "hits"):
            return None
        try:
            self.feature()
        except RulesError as exc:
            return str(exc)
        return None
