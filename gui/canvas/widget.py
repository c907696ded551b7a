"""The battlefield widget: the tool bar over the view, and the actions the canvas asks for."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QComboBox, QLabel, QSpinBox, QToolBar, QToolButton, QVBoxLayout, QWidget

from gui.canvas.scene import BattlefieldScene
from gui.canvas.view import BattlefieldView
from gui.interfaces import ControllerLike
from rules.battle.terrain import TerrainType

TOOLS = (
    ("select", "Select", "S", "Select and drag units; drag the yellow handle to wheel (S)"),
    (
        "ruler",
        "Ruler",
        "R",
        "Measure in inches: from a unit's colour stand to the nearest edge of another (R)",
    ),
    ("los", "Sight line", "L", "Drag from the viewing unit to the target to check line of sight (L)"),
    ("draw", "Draw", "D", "Click points, double-click or Enter to finish; Esc cancels (D)"),
    ("crest", "Crest", "C", "Select a hill (terrain editing on), then draw its crestline (C)"),
)


class CanvasWidget(QWidget):
    """The central widget: the tool bar and the battlefield view."""

    def __init__(self, controller: ControllerLike, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("battlefield")
        self.controller = controller
        self.scene = BattlefieldScene(controller, self)
        self.view = BattlefieldView(self.scene, self)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        bar = QToolBar("Battlefield tools", self)
        bar.setObjectName("battlefield_tools")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.toolbar = bar
        self.tool_buttons: dict[str, QToolButton] = {}
        self.tool_actions: dict[str, QAction] = {}
        for key, text, shortcut, tip in TOOLS:
            b = QToolButton(self)
            b.setText(text)
            b.setToolTip(tip)
            b.setCheckable(True)
            b.setAutoExclusive(True)
            b.clicked.connect(lambda _c=False, k=key: self.scene.set_tool(k))
            bar.addWidget(b)
            self.tool_buttons[key] = b
            a = QAction(text, self)
            a.setShortcut(QKeySequence(shortcut))
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            a.triggered.connect(lambda _c=False, k=key: self.scene.set_tool(k))
            self.addAction(a)
            self.tool_actions[key] = a
        self.tool_buttons["select"].setChecked(True)
        self._after_tools = bar.addSeparator()
        self.type_combo = QComboBox(self)
        for t in TerrainType:
            self.type_combo.addItem(t.label, t.value)
        self.type_combo.setCurrentIndex(self.type_combo.findData(TerrainType.LIGHT_WOODS.value))
        self.type_combo.setToolTip("The type of terrain to draw (the rulebook's terrain list)")
        self.type_combo.currentIndexChanged.connect(
            lambda _i: setattr(self.scene, "draw_type", TerrainType.parse(self.type_combo.currentData()))
        )
        self.level_spin = QSpinBox(self)
        self.level_spin.setRange(1, 2)
        self.level_spin.setPrefix("Level ")
        self.level_spin.setToolTip("Hill level (RULE-03-4.1)")
        self.level_spin.valueChanged.connect(lambda v: setattr(self.scene, "draw_level", v))
        # the terrain type and hill level show only while drawing
        self._draw_widgets = [bar.addWidget(self.type_combo), bar.addWidget(self.level_spin)]
        for a in self._draw_widgets:
            a.setVisible(False)
        self.edit_terrain = QToolButton(self)
        self.edit_terrain.setText("Edit terrain")
        self.edit_terrain.setCheckable(True)
        self.edit_terrain.setToolTip(
            "Unlock terrain to select, move and delete it (units are locked meanwhile); Esc leaves. "
            "Outside this mode terrain cannot be moved. Each edit is logged and can be undone."
        )
        self.edit_terrain.toggled.connect(self.scene.set_terrain_editing)
        self.scene.terrainEditingChanged.connect(self._terrain_editing_changed)
        bar.addWidget(self.edit_terrain)
        self.delete_terrain_button = QToolButton(self)
        self.delete_terrain_button.setText("Delete")
        self.delete_terrain_button.setToolTip("Delete the selected terrain (Delete)")
        delete_action = bar.addWidget(self.delete_terrain_button)
        delete_action.setVisible(False)  # only while terrain editing is on
        self.edit_terrain.toggled.connect(delete_action.setVisible)
        self.names_button = QToolButton(self)
        self.names_button.setText("Names")
        self.names_button.setCheckable(True)
        self.names_button.setChecked(True)
        self.names_button.setToolTip("Show every unit's name on the map (names always show on hover)")
        self.names_button.toggled.connect(self.scene.set_show_names)
        self.fit_button = QToolButton(self)
        self.fit_button.setText("Fit")
        self.fit_button.setToolTip("Fit the whole table in the view (Ctrl+0); it stays fitted until you zoom")
        self.fit_button.clicked.connect(self.view.fit_table)
        # the view's own buttons come straight after the tools, so they are never in the overflow
        bar.insertWidget(self._after_tools, self.names_button)
        bar.insertWidget(self._after_tools, self.fit_button)
        bar.insertSeparator(self._after_tools)
        self.status = QLabel(self)
        self.status.setContentsMargins(6, 2, 6, 2)
        lay.addWidget(bar)
        lay.addWidget(self.status)
        lay.addWidget(self.view, 1)
        self.scene.toolChanged.connect(self._tool_changed)
        self.scene.measured.connect(self.status.setText)
        self.scene.moveRequested.connect(self.run_moves)
        self.scene.terrainDrawn.connect(self.add_drawn_terrain)
        self.scene.terrainMoved.connect(self.move_terrain)
        self.scene.formationRequested.connect(self.change_formation)
        self.scene.terrainEditRequested.connect(self.edit_terrain_feature)
        self.delete_terrain_button.clicked.connect(self.delete_selected_terrain)
        controller.gameReplaced.connect(self._game_replaced)
        controller.selectionChanged.connect(self._bring_into_view)
        controller.highlightRequested.connect(self._bring_into_view)

    def _bring_into_view(self, unit_ids) -> None:
        """Scroll so that units chosen in the roster or the log are on screen (if they are not)."""
        items = [self.scene.units[u] for u in unit_ids if u in self.scene.units]
        if not items or self.scene._syncing:  # chosen on the map itself: it is in view already
            return
        rect = items[0].sceneBoundingRect()
        for it in items[1:]:
            rect = rect.united(it.sceneBoundingRect())
        visible = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        if not visible.contains(rect):
            self.view.ensureVisible(rect, 40, 40)

    def show_units(self, unit_ids, clear_of: QRect | None = None) -> QRect | None:
        """Bring the units into view and return where they are on the screen (global pixels; None
        if none is on the map). With ``clear_of`` (a dialog's place on the screen) the map is
        scrolled so that the units sit in the part of the view the dialog leaves free."""
        items = [self.scene.units[u] for u in unit_ids if u in self.scene.units]
        items = [it for it in items if it.isVisible()]
        if not items:
            return None
        rect = items[0].sceneBoundingRect()
        for it in items[1:]:
            rect = rect.united(it.sceneBoundingRect())
        view = self.view
        vp = view.viewport()
        if clear_of is None:
            view.ensureVisible(rect, 40, 40)
        else:
            seen = QRect(vp.mapToGlobal(QPoint(0, 0)), vp.size())
            free = [  # the parts of the view beside the dialog: left, right, above, below
                QRect(seen.left(), seen.top(), clear_of.left() - seen.left(), seen.height()),
                QRect(clear_of.right() + 1, seen.top(), seen.right() - clear_of.right(), seen.height()),
                QRect(seen.left(), seen.top(), seen.width(), clear_of.top() - seen.top()),
                QRect(seen.left(), clear_of.bottom() + 1, seen.width(), seen.bottom() - clear_of.bottom()),
            ]
            best = max(free, key=lambda r: min(r.width(), r.height()) if r.isValid() else -1)
            if best.isValid() and not best.isEmpty():
                view._set_auto_fit(False)
                # scroll so that the units' centre comes to the middle of the free part
                want = vp.mapFromGlobal(best.center())
                now = view.mapFromScene(rect.center())
                view.pan_by(now.x() - want.x(), now.y() - want.y())
        top_left = vp.mapToGlobal(view.mapFromScene(rect.topLeft()))
        bottom_right = vp.mapToGlobal(view.mapFromScene(rect.bottomRight()))
        return QRect(top_left, bottom_right).normalized()

    def _game_replaced(self) -> None:
        self.scene.set_battle(self.controller.battle)
        self.view.fit_table()

    # -- the canvas's actions --------------------------------------------------------------
    def run_moves(self, moves) -> None:
        """Play the units dragged on the canvas through the rules' procedure of play
        (:func:`gui.play.move_units`): in the active side's Phase 2 a unit of that side marches by
        the movement rules through its Trigger Windows, and so does each unit of a group dragged
        together, one after another, front-most first, the whole group one undo step; with Shift
        held, or out of a march (other phases, the other side), the units are the umpire's
        placement, with a reason where they would march. The status bar then says which unit
        halted short of the point it was dragged to, and why.
        """
        from gui import play

        battle = self.controller.battle
        turn = battle.turn if battle is not None else None
        seen = len(self.controller.events(turn=turn))
        play.move_units(self.controller, self.window(), moves, place=self.scene.placing)
        self._tell_halt(moves, turn, seen)

    def _tell_halt(self, moves, turn: int | None, seen: int) -> None:
        """Say on the status bar which marched units stopped short of where they were dragged, and
        why: the summary of each one's last march among the events of ``turn`` after the first
        ``seen`` (those of this drag)."""
        battle = self.controller.battle
        if battle is None or turn is None:
            return
        short = [
            m[0]
            for m in moves
            if m[0] in battle.units and (battle.units[m[0]].x, battle.units[m[0]].y) != (m[1], m[2])
        ]
        new = self.controller.events(turn=turn)[seen:]
        if not new:  # cancelled at a dialog, or refused: the drag's words no longer hold
            self.scene.measured.emit("No move made: the units are where they were")
            return
        if not short:  # the drag's words told the allowance before the move: now what was done
            marched = [e for e in new if getattr(e.action, "mode", None) == "march"]
            if marched:
                self.scene.measured.emit(f"Done: {marched[-1].summary}")
            return
        said = []
        for uid in short:
            last = [
                e
                for e in new
                if getattr(e.action, "unit_id", None) == uid and getattr(e.action, "mode", None) == "march"
            ]
            if last:
                said.append(str(last[-1].summary))
        if said:
            self.scene.measured.emit("Halted: " + "; ".join(said))

    def add_drawn_terrain(self, drawn) -> None:
        from rules.actions import AddTerrain, EditTerrain

        kind, points, level = drawn
        battle = self.controller.battle
        if battle is None:
            return
        if kind == "crest":
            hills = [f for f in self.scene.selected_feature_ids() if battle.feature(f).is_hill]
            if len(hills) != 1:
                from gui import dialogs

                dialogs.show_message(
                    self,
                    "Draw crestline",
                    "Select one hill first (turn on Edit terrain and click the hill).",
                    "warning",
                )
                return
            self.controller.run(EditTerrain(feature_id=hills[0], values={"crest": [list(p) for p in points]}))
            return
        taken = {f.id for f in battle.terrain}
        n = len(battle.terrain) + 1
        while f"{kind.value}_{n}" in taken:
            n += 1
        feature = {"id": f"{kind.value}_{n}", "type": kind.value, "points": [list(p) for p in points]}
        if kind == TerrainType.HILL:
            feature["level"] = level or 1
        self.controller.run(AddTerrain(feature=feature))

    def edit_terrain_feature(self, feature_id: str) -> None:
        """Edit a feature's name, type, level and width in a dialog: one EditTerrain action."""
        from gui import dialogs
        from rules.actions import EditTerrain

        battle = self.controller.battle
        if battle is None:
            return
        dlg = dialogs.TerrainDialog(battle.feature(feature_id), self)
        if dialogs.exec_dialog(dlg) != dialogs.QDialog.DialogCode.Accepted:
            return
        values = dlg.values()
        if values:
            self.controller.run(EditTerrain(feature_id=feature_id, values=values))

    def change_formation(self, unit_id: str, formation: str) -> None:
        from rules.actions import ChangeFormation

        self.controller.run(ChangeFormation(unit_id=unit_id, formation=formation))

    def move_terrain(self, feature_id: str, dx: float, dy: float) -> None:
        from rules.actions import EditTerrain

        battle = self.controller.battle
        if battle is None:
            return
        f = battle.feature(feature_id)
        values = {"points": [[round(x + dx, 2), round(y + dy, 2)] for x, y in f.points]}
        if f.crest:
            values["crest"] = [[round(x + dx, 2), round(y + dy, 2)] for x, y in f.crest]
        if self.controller.run(EditTerrain(feature_id=feature_id, values=values)) is None:
            it = self.scene.terrain.get(feature_id)
            if it is not None:
                it.set_feature(f)

    def delete_selected_terrain(self) -> None:
        from rules.actions import RemoveTerrain

        ids = self.scene.selected_feature_ids()
        if not ids:
            self.status.setText("Select terrain to delete: turn on Edit terrain and click it")
            return
        self.controller.run_step([RemoveTerrain(feature_id=f) for f in ids])

    def keyPressEvent(self, event) -> None:  # noqa: N802
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and self.scene.terrain_editing:
            self.delete_selected_terrain()
            return
        if event.key() == Qt.Key.Key_Escape and self.scene.terrain_editing:
            self.scene.set_terrain_editing(False)
            return
        super().keyPressEvent(event)

    #: What the banner over the map says while terrain editing is on.
    TERRAIN_BANNER = (
        "<b>Editing terrain</b> — drag a feature to move it, double-click to change it, "
        "Delete removes it; units are locked. Each edit is logged and can be undone. "
        "<b>Esc</b> or <b>Edit terrain</b> leaves."
    )

    def _terrain_editing_changed(self, on: bool) -> None:
        """Terrain editing is a mode that shows: the button, a banner over the map, the cursor."""
        if self.edit_terrain.isChecked() != on:
            self.edit_terrain.setChecked(on)
        self.view.banner.say(self.TERRAIN_BANNER if on else "")
        if on:
            self.view.viewport().setCursor(Qt.CursorShape.SizeAllCursor)
            self.view.setFocus()
        else:
            self.view.viewport().unsetCursor()

    def _tool_changed(self, tool: str) -> None:
        for a in self._draw_widgets:
            a.setVisible(tool == "draw")
        b = self.tool_buttons.get(tool)
        if b is not None and not b.isChecked():
            b.setChecked(True)
