"""The battlefield scene: the table in inches, its terrain and unit items kept in step with the
battle, the selected unit's arcs, and the umpire's tools (each a mode of :mod:`gui.canvas.modes`).

Its other parts are modules of their own: the placing of the names (:mod:`gui.canvas.label_places`),
the table drawn under and over the items (:mod:`gui.canvas.table_drawing`), and the dragging of
units (:mod:`gui.canvas.unit_moves`).
"""

from __future__ import annotations

import textwrap

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QTransform
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSceneMouseEvent,
    QGraphicsSimpleTextItem,
)

from gui.canvas.label_places import LabelLayout
from gui.canvas.modes import CrestMode, DrawTerrainMode, RulerMode, SelectMode, SightLineMode, ToolMode
from gui.canvas.style import Z_OVERLAY, cosmetic_pen, shapely_path
from gui.canvas.table_drawing import TableDrawing
from gui.canvas.terrain_items import TerrainItem
from gui.canvas.unit_items import RotateHandle, UnitItem
from gui.canvas.unit_moves import UnitMoves
from gui.controller import ChangeSummary
from gui.interfaces import ControllerLike
from rules.battle.battle import Battle
from rules.battle.terrain import TerrainFeature, TerrainType
from rules.battle.unit import Unit
from rules.battlefield import geometry
from rules.tables import RuleTables, load_tables


class BattlefieldScene(LabelLayout, TableDrawing, UnitMoves, QGraphicsScene):
    """The table: terrain and unit items kept in step with the battle, and the umpire's tools.

    ``tool`` is "select", "ruler", "los", "draw" (drawing terrain of ``draw_type``) or "crest";
    each has a mode (:mod:`gui.canvas.modes`) that has the mouse while the tool is in use.
    """

    moveRequested = Signal(object)  # list of (unit_id, x, y, facing_deg)
    terrainDrawn = Signal(object)  # (TerrainType, points, level)
    terrainMoved = Signal(str, float, float)  # feature id, dx, dy
    measured = Signal(str)  # a description of the last measurement, for the status bar
    formationRequested = Signal(str, str)  # unit id, formation
    terrainEditRequested = Signal(str)  # feature id (double-click while editing terrain)
    terrainEditingChanged = Signal(bool)  # terrain editing turned on or off (the button, or Esc)
    toolChanged = Signal(str)

    def __init__(self, controller: ControllerLike, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.units: dict[str, UnitItem] = {}
        self.terrain: dict[str, TerrainItem] = {}
        self.tables: RuleTables = load_tables()
        self.tool = "select"
        self.draw_type: TerrainType = TerrainType.LIGHT_WOODS
        self.draw_level = 1
        self.terrain_editing = False
        self._syncing = False
        self._draw_points: list[QPointF] = []
        self._draw_item: QGraphicsPathItem | None = None
        self._measure_start: QPointF | None = None
        self._measure_from: str | None = None
        self._measure_line: QGraphicsLineItem | None = None
        self._measure_label: QGraphicsSimpleTextItem | None = None
        self._los_items: list[QGraphicsItem] = []
        # what the sight line and the ruler measure (unit ids): redrawn, or cleared, when the game
        # changes under them (a move, an undo, terrain edited)
        self._los_pair: tuple[str, str] | None = None
        self._ruler_pair: tuple[str, str | None] | None = None
        self._drag_line: QGraphicsLineItem | None = None
        self._drag_label: QGraphicsSimpleTextItem | None = None
        self.placing = False  # the drag being committed is the umpire's placement (Shift held)
        self._arc_items: list[QGraphicsItem] = []
        self._highlighted: set[str] = set()
        self.last_los = None
        self.show_names = True
        self._label_scale = 12.0
        self._placed_scale = 0.0
        self._label_pending = False
        self.table_rect = QRectF(0, 0, 72, 48)
        self._background_cache: tuple | None = None  # (key, image, top left) of drawBackground
        self._pixmaps_sized_for: tuple | None = None  # the zoom and device the pixmap cache was sized for
        self._item_caches = True  # whether items keep pictures of themselves
        self._built: tuple = (None, None)  # the battle and tables the items were built from
        # the tools' modes: each has the mouse while its tool is in use
        self._sight = SightLineMode(self)
        self._drawing = DrawTerrainMode(self)
        self._crest = CrestMode(self)
        self._modes: dict[str, ToolMode] = {
            m.name: m for m in (SelectMode(self), RulerMode(self), self._sight, self._drawing, self._crest)
        }
        self.selectionChanged.connect(self._scene_selection_changed)
        controller.changed.connect(self.apply)
        controller.selectionChanged.connect(self._on_selection)
        controller.highlightRequested.connect(self.highlight)
        looking = getattr(controller, "lookingChanged", None)
        if looking is not None:  # the window's controller: a moment of the past is read only
            looking.connect(self._looking_changed)

    def _looking_changed(self, _seq: object) -> None:
        if self.looking_back and self.terrain_editing:
            self.set_terrain_editing(False)
        for it in self.units.values():
            self._unit_flags(it)
        self._update_handles()

    @property
    def looking_back(self) -> bool:
        """Whether the map shows a moment of the past (its units cannot be moved)."""
        return getattr(self.controller, "looking_back", None) is not None

    # -- the deployment zones ---------------------------------------------------------------------
    def _draw_zones(self, battle: Battle | None) -> None:
        """Each side's deployment zone, tinted in its colour, while the battle is in its first turn
        (setting out the units); none after."""
        # (a side's view of the battle has no zones: they are the umpire's setting out)
        shown = getattr(battle, "zones", ()) if battle is not None and battle.turn == 1 else ()
        drawn = getattr(self, "_zones_drawn", None)
        key = tuple((z, battle.oob.side(z.side).colour) for z in shown) if shown else ()
        if drawn is not None and drawn[0] == key:
            return
        for it in drawn[1] if drawn is not None else ():
            if it.scene() is self:
                self.removeItem(it)
        items = []
        for z, colour in key:
            c = QColor(colour)
            it = QGraphicsRectItem(QRectF(z.x0, z.y0, z.x1 - z.x0, z.y1 - z.y0))
            fill = QColor(c)
            fill.setAlpha(30)
            it.setBrush(fill)
            it.setPen(cosmetic_pen(colour, 1.5, Qt.PenStyle.DashLine))
            it.setZValue(Z_OVERLAY - 1)
            it.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            it.setToolTip(f"The {battle.oob.side_name(z.side)} deployment zone")  # type: ignore[union-attr]
            self.addItem(it)
            items.append(it)
        self._zones_drawn = (key, items)

    @property
    def zone_items(self) -> list:
        drawn = getattr(self, "_zones_drawn", None)
        return list(drawn[1]) if drawn is not None else []

    # -- building and updating -------------------------------------------------------------
    def set_battle(self, battle: Battle | None) -> None:
        self._syncing = True
        try:
            self.clear_tools()
            self._clear_arcs()
            for it in list(self.units.values()) + list(self.terrain.values()):
                self.removeItem(it)
            self.units.clear()
            self.terrain.clear()
            self._built = (None, None)
            if battle is None:
                self._draw_zones(None)
                return
            tables = self.controller.tables
            self.tables = tables if tables is not None else load_tables()
            self.table_rect = QRectF(0, 0, battle.table_width_in, battle.table_height_in)
            self.setSceneRect(self.table_rect.adjusted(-4, -4, 4, 4))
            for f in battle.terrain:
                self._add_terrain(f)
            for u in battle.units.values():
                self._add_unit(u, battle)
            self._built = (battle, tables)
            self._draw_zones(battle)
        finally:
            self._syncing = False
        self.invalidate(self.sceneRect(), QGraphicsScene.SceneLayer.BackgroundLayer)
        self.layout_labels()
        self._on_selection(self.controller.selection)

    def _colour(self, battle: Battle, side: str) -> str:
        try:
            return battle.oob.side(side).colour
        except Exception:
            return "#555555"

    def _add_unit(self, u: Unit, battle: Battle) -> None:
        it = UnitItem(u, self._colour(battle, u.side), self.tables)
        if not self._item_caches:
            it.setCacheMode(QGraphicsItem.CacheMode.NoCache)
            it.label.setCacheMode(QGraphicsItem.CacheMode.NoCache)
        it.set_always_named(self.show_names)
        if self.terrain_editing or self.looking_back:
            self._unit_flags(it)
        self.addItem(it)
        self.units[u.id] = it

    def _add_terrain(self, f: TerrainFeature) -> None:
        it = TerrainItem(f)
        if not self._item_caches:
            it.setCacheMode(QGraphicsItem.CacheMode.NoCache)
            it.name_label.setCacheMode(QGraphicsItem.CacheMode.NoCache)
        self._terrain_flags(it)
        self.addItem(it)
        self.terrain[f.id] = it

    def _terrain_flags(self, it: TerrainItem) -> None:
        # terrain is fixed in play: it can be picked up and moved only while terrain editing is on
        it.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, self.terrain_editing)
        it.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsMovable, self.terrain_editing)
        if self.terrain_editing:
            it.setCursor(Qt.CursorShape.SizeAllCursor)
        else:
            it.unsetCursor()

    def apply(self, summary: ChangeSummary) -> None:
        """Update the items the summary names (or everything on a reset)."""
        battle = self.controller.battle
        if battle is None:
            self.set_battle(None)
            return
        if summary.reset:
            # a new game is announced twice (gameReplaced, then a change of everything): the
            # items of this very battle and tables are not built again
            if battle is not self._built[0] or self.controller.tables is not self._built[1]:
                self.set_battle(battle)
            return
        if summary.game:
            self._draw_zones(battle)
        built = self._built[0]
        if summary.game and built is not None and _sides_of(battle) != _sides_of(built):
            self.set_battle(battle)  # the sides' names or colours changed: every unit drawn again
            return
        if summary.game and (battle.table_width_in, battle.table_height_in) != (
            self.table_rect.width(),
            self.table_rect.height(),
        ):
            self.table_rect = QRectF(0, 0, battle.table_width_in, battle.table_height_in)
            self.setSceneRect(self.table_rect.adjusted(-4, -4, 4, 4))
            self.invalidate(self.sceneRect(), QGraphicsScene.SceneLayer.BackgroundLayer)
        self._syncing = True
        try:
            for fid in summary.terrain:
                f = next((x for x in battle.terrain if x.id == fid), None)
                it = self.terrain.get(fid)
                if f is None:
                    if it is not None:
                        self.removeItem(it)
                        del self.terrain[fid]
                elif it is None:
                    self._add_terrain(f)
                else:
                    it.set_feature(f)
            for uid in summary.units:
                u = battle.units.get(uid)
                it = self.units.get(uid)
                if u is None:
                    if it is not None:
                        self.removeItem(it)
                        del self.units[uid]
                elif it is None:
                    self._add_unit(u, battle)
                else:
                    it.set_unit(u, self._colour(battle, u.side))
        finally:
            self._syncing = False
        if summary.units or summary.terrain:
            if summary.terrain:
                self.layout_labels()
            else:
                self.layout_labels(only=summary.units)
            self._refresh_arcs()
            self._refresh_measures(summary)

    def _refresh_measures(self, summary: ChangeSummary) -> None:
        """A sight line or a ruler measurement is not left standing when the game changes under it:
        a sight line between units still on the table is checked and drawn again (terrain edited,
        either unit moved); a ruler from a unit that moved is measured again to where it was
        released, or taken off when it was measured from a point."""
        battle = self.controller.battle
        touched = set(summary.units)
        if self._los_pair is not None and (summary.terrain or touched & set(self._los_pair)):
            viewer, target = self._los_pair
            alive = battle is not None and all(
                u in battle.units and battle.units[u].in_play for u in (viewer, target)
            )
            if alive:
                self.show_line_of_sight(viewer, target)
            else:
                self.clear_tools()
                self.measured.emit("The sight line was taken off: a unit it joined has gone")
        if self._ruler_pair is not None and touched & {u for u in self._ruler_pair if u}:
            start, target = self._ruler_pair
            ok = battle is not None and all(
                u in battle.units and battle.units[u].in_play for u in (start, target) if u
            )
            if ok and start and target and self._measure_line is not None:
                self._modes["ruler"].remeasure(start, target)
            else:
                self.clear_tools()
                self.measured.emit("The ruler was taken off: what it measured has moved")

    # -- selection: both ways with the controller ------------------------------------------
    def _scene_selection_changed(self) -> None:
        if self._syncing:
            return
        ids = [it.unit_id for it in self.selectedItems() if isinstance(it, UnitItem)]
        self._syncing = True
        try:
            if not self.terrain_editing:
                self.controller.select(ids)
        finally:
            self._syncing = False
        self._update_handles()
        self._refresh_arcs()

    def _update_handles(self) -> None:
        """The wheeling handle shows on a unit selected alone (never on a moment looked back at)."""
        sel = [it for it in self.units.values() if it.isSelected()]
        past = self.looking_back
        for it in self.units.values():
            it.show_handle(not past and len(sel) == 1 and it is sel[0])

    def _on_selection(self, unit_ids) -> None:
        if self._syncing:
            return
        self._syncing = True
        try:
            want = set(unit_ids)
            for uid, it in self.units.items():
                sel = uid in want
                if it.isSelected() != sel:
                    it.setSelected(sel)
            self._update_handles()
        finally:
            self._syncing = False
        self._refresh_arcs()

    def highlight(self, unit_ids) -> None:
        want = set(unit_ids)
        for uid in self._highlighted - want:
            if uid in self.units:
                self.units[uid].set_highlight(False)
        for uid in want:
            if uid in self.units:
                self.units[uid].set_highlight(True)
        self._highlighted = want

    # -- the arcs of the selected unit ---------------------------------------------------
    def _clear_arcs(self) -> None:
        for it in self._arc_items:
            self.removeItem(it)
        self._arc_items.clear()

    def _refresh_arcs(self) -> None:
        self._clear_arcs()
        sel = self.controller.selection
        if len(sel) != 1 or sel[0] not in self.units:
            return
        it = self.units[sel[0]]
        if not it.unit.in_play:
            return
        from shapely.geometry import box

        table = box(0, 0, self.table_rect.width(), self.table_rect.height())
        fp = it.footprint
        arc = geometry.forward_arc(fp, self.tables).intersection(table)
        item = QGraphicsPathItem(shapely_path(arc))
        item.setBrush(QColor(255, 200, 0, 55))
        item.setPen(cosmetic_pen("#c79100", 1.2, Qt.PenStyle.DashLine))
        item.setZValue(Z_OVERLAY)
        item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        item.setToolTip("Forward arc of fire (RULE-03-5.1)")
        self.addItem(item)
        self._arc_items.append(item)
        for side in ("left", "right"):
            zone = geometry.flank_zone(fp, side, self.tables, reach_in=12.0).intersection(table)
            z = QGraphicsPathItem(shapely_path(zone))
            z.setBrush(QColor(220, 40, 40, 40))
            z.setPen(cosmetic_pen("#c62828", 1, Qt.PenStyle.DotLine))
            z.setZValue(Z_OVERLAY)
            z.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            z.setToolTip(f"{side.capitalize()} flank zone")
            self.addItem(z)
            self._arc_items.append(z)

    # -- tools ------------------------------------------------------------------------------
    def set_tool(self, tool: str) -> None:
        if tool not in self._modes:
            raise ValueError(f"unknown tool {tool!r}")
        self._cancel_draw()
        self.tool = tool
        self.toolChanged.emit(tool)

    def set_show_names(self, on: bool) -> None:
        self.show_names = bool(on)
        for it in self.units.values():
            it.set_always_named(self.show_names)
        if self.show_names and self.units:
            self.layout_labels()

    def set_terrain_editing(self, on: bool) -> None:
        """Turn terrain editing on or off. While it is on, terrain is picked up, moved (one edit,
        logged and undoable, on release), edited and deleted, and the units are locked; while it
        is off, terrain cannot be moved at all."""
        on = bool(on)
        changed = on != self.terrain_editing
        self.terrain_editing = on
        self.clearSelection()
        for it in self.terrain.values():
            self._terrain_flags(it)
        for it in self.units.values():
            self._unit_flags(it)
        if changed:
            self.terrainEditingChanged.emit(on)

    def _unit_flags(self, it: UnitItem) -> None:
        on = self.terrain_editing
        past = self.looking_back  # a moment looked back at: chosen and inspected, never moved
        it.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsMovable, not (on or past))
        it.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, not on)
        if on:
            it.setCursor(Qt.CursorShape.ForbiddenCursor)
        elif past:
            it.setCursor(Qt.CursorShape.ArrowCursor)
        else:
            it.setCursor(Qt.CursorShape.OpenHandCursor)

    def clear_tools(self) -> None:
        """Take the ruler, the line of sight and any half-drawn terrain off the map."""
        for it in ([self._measure_line, self._measure_label] if self._measure_line else []) + self._los_items:
            if it is not None and it.scene() is self:
                self.removeItem(it)
        self._measure_line = None
        self._measure_label = None
        self._los_items = []
        self._los_pair = None
        self._ruler_pair = None
        self._cancel_draw()

    def tool_items(self) -> list[QGraphicsItem]:
        """What the umpire's tools have drawn: arcs, ruler, sight lines, a half-drawn outline."""
        items = [*self._arc_items, *self._los_items]
        for it in (
            self._measure_line,
            self._measure_label,
            self._draw_item,
            self._drag_line,
            self._drag_label,
        ):
            if it is not None and it.scene() is self:
                items.append(it)
        return items

    def unit_at(self, pos: QPointF) -> UnitItem | None:
        """The unit at ``pos``: a unit's stands there first, and only where there are none, the unit
        whose wheel handle is there (the handle of a selected unit is ahead of it, often over the
        enemy it faces)."""
        handle_of = None
        views = self.views()  # the handle's size is on screen: asked of the view, not of the scene
        on_screen = views[0].viewportTransform() if views else QTransform()
        for it in self.items(pos, deviceTransform=on_screen):
            if isinstance(it, UnitItem) and it.isVisible():
                return it
            if handle_of is None and isinstance(it, RotateHandle):
                handle_of = it.unit_item
        return handle_of

    def selected_feature_ids(self) -> list[str]:
        return [it.feature_id for it in self.selectedItems() if isinstance(it, TerrainItem)]

    # -- the mouse and the keys: handed to the tool's mode ----------------------------------
    @property
    def mode(self) -> ToolMode:
        """The mode of the tool in use (:mod:`gui.canvas.modes`), which has the mouse first."""
        return self._modes[self.tool]

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton and self.mode.press(event):
            return
        super().mousePressEvent(event)
        self.mode.pressed(event)

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        if self.mode.move(event):
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        if self.mode.release(event):
            return
        super().mouseReleaseEvent(event)
        self.mode.released(event)

    def contextMenuEvent(self, event) -> None:  # noqa: N802
        """Right-click a unit or a building: the menu of :meth:`context_menu`."""
        menu = None if self.terrain_editing else self.context_menu(event.scenePos())
        if menu is None:
            super().contextMenuEvent(event)
            return
        menu.exec(event.screenPos())
        event.accept()

    def context_menu(self, pos: QPointF):
        """The menu for a right-click at ``pos`` (None: nothing there has one). A unit: change its
        formation, check sight to it from the selected unit, declare a charge at it by the selected
        unit of the side to act (:meth:`add_charge`), or garrison / bombard a building. A
        building: garrison it (with the unit there or the selected one) or bombard it (with the
        selected battery)."""
        from PySide6.QtWidgets import QMenu

        from gui import play
        from rules.battle.terrain import TerrainType
        from rules.battle.words import FORMATIONS_BY_KIND, UnitKind

        it = self.unit_at(pos)
        battle = self.controller.battle
        building = None
        for t in self.items(pos):
            fid = t.feature_id if isinstance(t, TerrainItem) else None
            if battle is not None and fid is not None and fid in {f.id for f in battle.terrain}:
                if battle.feature(fid).type == TerrainType.BUILDING:
                    building = battle.feature(fid)
                    break
        if it is None and building is None:
            return None
        views = self.views()
        parent = views[0].window() if views else None
        c = self.controller
        sel = c.selection
        menu = QMenu()
        if it is not None:
            u = it.unit
            menu.addSection(u.name)
            forms = menu.addMenu("Change formation")
            for f in FORMATIONS_BY_KIND[u.kind]:
                a = forms.addAction(f.label, lambda f=f: self.formationRequested.emit(u.id, f.value))
                a.setEnabled(f != u.formation)
            if len(sel) == 1 and sel[0] != u.id and sel[0] in self.units:
                viewer = self.units[sel[0]].unit
                menu.addAction(
                    f"Line of sight from {viewer.name}", lambda: self.show_line_of_sight(viewer.id, u.id)
                )
                if battle is not None and viewer.side == battle.active_side and viewer.side != u.side:
                    self.add_charge(menu, viewer.id, u.id)
            fid = building.id if building is not None else None
            if u.kind == UnitKind.ARTILLERY:
                menu.addAction(
                    "Bombard a building…",
                    lambda: play.bombard_building(c, parent, battery_id=u.id, feature_id=fid),
                )
            elif building is None:
                menu.addAction(
                    "Garrison a building…", lambda: play.garrison_building(c, parent, unit_id=u.id)
                )
        if building is not None:
            label = building.name or "the building"
            menu.addSection(label)
            chosen = sel[0] if len(sel) == 1 and sel[0] in self.units else None
            garrison_by = it.unit.id if it is not None and it.unit.kind != UnitKind.ARTILLERY else chosen
            menu.addAction(
                f"Garrison {label}…",
                lambda: play.garrison_building(c, parent, unit_id=garrison_by, feature_id=building.id),
            )
            gun = (
                chosen if chosen is not None and self.units[chosen].unit.kind == UnitKind.ARTILLERY else None
            )
            menu.addAction(
                f"Bombard {label}…",
                lambda: play.bombard_building(c, parent, battery_id=gun, feature_id=building.id),
            )
        return menu

    def add_charge(self, menu, attacker_id: str, target_id: str) -> None:
        """*Declare charge by …* in ``menu``, as the rules answer whether the charge may be declared
        now (:func:`rules.legality.charge_targets`, as the Charge dialog asks them): where it may
        not, the item is greyed and the first reason, with its rule, is below it."""
        from rules.legality import charge_targets

        battle = self.controller.battle
        tables = getattr(self.controller, "tables", None) or self.tables
        said = next((o for o in charge_targets(battle, attacker_id, tables) if o.unit_id == target_id), None)
        if said is None:  # not a unit it could ever charge (out of play)
            return
        name = battle.unit(attacker_id).name
        menu.setToolTipsVisible(True)
        a = menu.addAction(f"Declare charge by {name}…", lambda: self.declare_charge(attacker_id, target_id))
        if not said.allowed:
            a.setEnabled(False)
            # its reason, with its rule, in lines a laptop's screen holds beside the unit
            for k, line in enumerate(
                textwrap.wrap(f"Not now: {said}", 60, break_on_hyphens=False, break_long_words=False)
            ):
                menu.addAction(("    " if k == 0 else "        ") + line).setEnabled(False)
            a.setToolTip("; ".join(str(r) for r in said.reasons))

    def declare_charge(self, attacker_id: str, target_id: str) -> None:
        """Open the charge dialog for this charger and target (see :func:`gui.play.declare_charge`)."""
        from gui import play

        views = self.views()
        play.declare_charge(self.controller, views[0].window() if views else None, attacker_id, target_id)

    def mouseDoubleClickEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        if self.mode.double_click(event):
            return
        if self.terrain_editing:
            for it in self.items(event.scenePos()):
                if isinstance(it, TerrainItem):
                    self.terrainEditRequested.emit(it.feature_id)
                    event.accept()
                    return
        super().mouseDoubleClickEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if self.mode.key_press(event):
            return
        if event.key() == Qt.Key.Key_Escape:
            if self.terrain_editing:  # Esc leaves terrain editing
                self.set_terrain_editing(False)
            self.clear_tools()
            return
        super().keyPressEvent(event)

    # -- the line of sight and drawing terrain: the tools' own work ----------------------------
    def show_line_of_sight(self, viewer_id: str, target_id: str):
        """Check and draw the line of sight from one unit to another; returns the result
        (:meth:`SightLineMode.show <gui.canvas.modes.SightLineMode.show>`)."""
        return self._sight.show(viewer_id, target_id)

    def finish_draw(self) -> None:
        """Finish the outline or line being drawn and ask for it to be added (or set as a crest)."""
        (self._crest if self.tool == "crest" else self._drawing).finish()

    def _cancel_draw(self) -> None:
        self._draw_points = []
        if self._draw_item is not None:
            if self._draw_item.scene() is self:
                self.removeItem(self._draw_item)
            self._draw_item = None


def _sides_of(battle: object) -> tuple:
    """The sides of a battle, or of a side's view of one (which has no order of battle)."""
    oob = getattr(battle, "oob", None)
    return tuple(oob.sides) if oob is not None else tuple(getattr(battle, "sides", ()))
