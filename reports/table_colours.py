"""The colours the table is drawn in, as plain hex strings: the window's map
(:mod:`gui.canvas.style`, which adds Qt's patterns and pens) and the players' pages (:mod:`serve`)
draw the same table."""

from __future__ import annotations

from rules.battle.terrain import TerrainType

#: Area terrain: fill colour, outline colour.
AREA_COLOURS: dict[TerrainType, tuple[str, str]] = {
    TerrainType.OPEN: ("#00000000", "#9a9a7a"),
    TerrainType.LIGHT_WOODS: ("#a9cf8f", "#5b8a43"),
    TerrainType.ORCHARD: ("#c3dca4", "#6f9a4e"),
    TerrainType.DENSE_WOODS: ("#6e9d57", "#3d6a2a"),
    TerrainType.CORNFIELD: ("#eddc8a", "#b39a3c"),
    TerrainType.SWAMP: ("#a7c4b8", "#5f8f80"),
    TerrainType.PLOUGHED_FIELD: ("#d2b48c", "#9c7a4e"),
    TerrainType.TOWN_WOODEN: ("#d7b48f", "#8a6038"),
    TerrainType.TOWN_MASONRY: ("#c2b8ae", "#6e625a"),
    TerrainType.BUILDING: ("#9b6a48", "#4a2f1c"),
    TerrainType.RUBBLE: ("#aca297", "#6a6055"),
}
#: Linear terrain: colour, width in inches, casing colour (drawn under it, wider) or None.
LINEAR_COLOURS: dict[TerrainType, tuple[str, float, str | None]] = {
    TerrainType.SPLIT_RAIL_FENCE: ("#7a4e22", 0.1, None),
    TerrainType.STONE_WALL: ("#9a9a94", 0.35, "#4a4a4a"),
    TerrainType.HEDGE: ("#2f6b25", 0.45, "#1f4a18"),
    TerrainType.ABATIS: ("#6b4f2a", 0.4, None),
    TerrainType.BREASTWORKS: ("#8a6a44", 0.5, "#5a4028"),
    TerrainType.SUNKEN_ROAD: ("#9c7442", 1.2, "#4e3519"),
    TerrainType.STREAM: ("#5b9bd5", 0.5, None),
    TerrainType.FORD: ("#9cc6ec", 1.0, "#5b9bd5"),
    TerrainType.BRIDGE: ("#8b7a66", 1.0, "#4a3f33"),
    TerrainType.ROAD: ("#e4d3a6", 1.0, "#b9a270"),
}
HILL_FILL = {1: "#e3d3ac", 2: "#cdb485"}
HILL_EDGE = "#8a6d3b"
CREST_COLOUR = "#5a3410"
TERRAIN_NAME_COLOUR = "#3b3b2a"
TABLE_COLOUR = "#eef0dc"
