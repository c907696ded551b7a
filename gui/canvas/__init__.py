"""The battlefield: the table in inches, its terrain and its units, with the umpire's tools.

The scene's coordinates are the table's own: inches, ``x`` to the right and ``y`` down the table,
exactly as :mod:`rules` uses them, so nothing is converted; the view scales inches to pixels.

* Terrain is drawn by type (woods, fields, towns, fences, walls, streams, roads, hills with their
  contour and crestline). Each feature's path is built once, when the feature changes.
* Units are drawn as their stands in formation (:func:`rules.battlefield.geometry.footprint`), in their side's
  colour, with the colour stand, the facing and their markers on the model; the name shows on hover.
* Dragging a unit moves it and a handle ahead of it wheels it; the move is ONE action, run on
  mouse release. Undo puts it back.
* Tools: select / move, ruler (inches, from the colour stand to the nearest edge of a unit),
  line of sight (the line, and why it is blocked, with the rule), and drawing terrain of any type
  in the rulebook's list; terrain can be moved and deleted while terrain editing is on.
* The selected unit's forward arc (RULE-03-5.1) and flank zones are shaded.

A :class:`~gui.controller.ChangeSummary` updates only the items it names.

The modules, from the bottom up:

* :mod:`gui.canvas.style`: colours, pens, the stacking of items, terrain decorations' paths.
* :mod:`gui.canvas.labels`: names on the map; :mod:`gui.canvas.label_places`: where they go, on
  the grids of :mod:`gui.canvas.label_grids`.
* :mod:`gui.canvas.terrain_items`, :mod:`gui.canvas.unit_items`: the items, and the legend.
* :mod:`gui.canvas.modes`: one mode per tool, which has the mouse while its tool is in use.
* :mod:`gui.canvas.table_drawing`: the table and its grid, drawn under the items; and
  :mod:`gui.canvas.unit_moves`: dragging units, one action on release.
* :mod:`gui.canvas.scene`: the scene, kept in step with the battle.
* :mod:`gui.canvas.view`, :mod:`gui.canvas.widget`: the view, and the widget with its tool bar.
"""

from __future__ import annotations

from gui.canvas.label_places import LabelLayout
from gui.canvas.labels import NameLabel
from gui.canvas.modes import (
    CrestMode,
    DrawTerrainMode,
    MeasureMode,
    RulerMode,
    SelectMode,
    SightLineMode,
    ToolMode,
)
from gui.canvas.scene import BattlefieldScene
from gui.canvas.style import (
    AREA_STYLE,
    CREST_COLOUR,
    HILL_EDGE,
    HILL_FILL,
    LINEAR_STYLE,
    TABLE_COLOUR,
    TERRAIN_NAME_COLOUR,
    Z_AREA,
    Z_HILL,
    Z_LINEAR,
    Z_OVERLAY,
    Z_TOOL,
    Z_UNIT,
    cosmetic_pen,
    dots_along,
    feature_anchor,
    polygon_path,
    px_per_inch,
    shapely_path,
    ticks_path,
    zigzag_path,
)
from gui.canvas.table_drawing import _BACKGROUND_CACHE_PX
from gui.canvas.terrain_items import LEGEND_TYPES, TerrainItem, legend_label, terrain_swatch
from gui.canvas.unit_items import BADGE_IN, BADGE_MAX_IN, BADGE_MIN_PX, DragHost, RotateHandle, UnitItem
from gui.canvas.view import BattlefieldView
from gui.canvas.widget import TOOLS, CanvasWidget

__all__ = [
    "AREA_STYLE",
    "BADGE_IN",
    "BADGE_MAX_IN",
    "BADGE_MIN_PX",
    "CREST_COLOUR",
    "HILL_EDGE",
    "HILL_FILL",
    "LEGEND_TYPES",
    "LINEAR_STYLE",
    "TABLE_COLOUR",
    "TERRAIN_NAME_COLOUR",
    "TOOLS",
    "Z_AREA",
    "Z_HILL",
    "Z_LINEAR",
    "Z_OVERLAY",
    "Z_TOOL",
    "Z_UNIT",
    "_BACKGROUND_CACHE_PX",
    "BattlefieldScene",
    "BattlefieldView",
    "CanvasWidget",
    "CrestMode",
    "DragHost",
    "DrawTerrainMode",
    "LabelLayout",
    "MeasureMode",
    "NameLabel",
    "RotateHandle",
    "RulerMode",
    "SelectMode",
    "SightLineMode",
    "TerrainItem",
    "ToolMode",
    "UnitItem",
    "cosmetic_pen",
    "dots_along",
    "feature_anchor",
    "legend_label",
    "polygon_path",
    "px_per_inch",
    "shapely_path",
    "terrain_swatch",
    "ticks_path",
    "zigzag_path",
]
