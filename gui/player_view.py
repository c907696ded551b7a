"""Player views: the map as one side sees it, in a window of its own for a second monitor or a
projector, and the umpire's own map switched to "as a side sees it".

The map of a side is built from that side's knowledge (:class:`rules.sight.knowledge.SideView`, read from
the journal by :class:`storage.sightings.Sightings`), never from the umpire's scene with things
taken out: its own units in full (stands, markers, state), the enemy units it sees now as the
table shows them, and the enemy units it saw before as ghosts at their last known place, "last
seen turn N". An enemy unit it has not seen is nowhere in it. It shows no odds, no dice, no
umpire's notes or overrides and no roster of the enemy.

* :class:`PlayerScene`: the side's map, made of the canvas's own items
  (:class:`~gui.canvas.TerrainItem`, :class:`~gui.canvas.UnitItem`) and :class:`GhostItem`.
* :class:`PlayerWindow`: View > Player view > *side*. It follows the game live (one change notice
  per step: :attr:`gui.controller.GameController.changed`) and goes full screen with F11.
* :class:`SideMapSwitch`: View > Umpire's map > as *side* sees it, on the main window's map.
* :func:`side_map_image`: the side's map as a picture, for its report.
"""

from __future__ import annotations

import html
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QColor, QImage, QKeySequence, QPainter
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gui.canvas import BattlefieldScene, BattlefieldView, UnitItem
from gui.canvas.style import Z_UNIT, cosmetic_pen
from gui.controller import ChangeSummary
from rules.battle.unit import Unit
from rules.errors import RulesError
from rules.tables import RuleTables, load_tables

if TYPE_CHECKING:
    from rules.sight.knowledge import SideView, Sighting
    from storage.sightings import Sightings

GHOST_KEY = "ghost:"  # a ghost's key among the scene's unit items: never a unit id
#: More journal entries than this to read before a side's view is shown: the pointer says "wait".
BUSY_AFTER_ENTRIES = 100


# -- the side's map ---------------------------------------------------------------------------------


def _is_side_view(battle: Any) -> bool:
    """Whether ``battle`` is a side's view (:class:`rules.sight.knowledge.SideView`), whose rules load
    with the first player view, not with the window."""
    from rules.sight.knowledge import SideView

    return isinstance(battle, SideView)


class SideLens(QObject):
    """What the side's map asks of a controller (:class:`gui.interfaces.ControllerLike`): the side's
    view as its battle, the rule tables, and no selection. It runs nothing."""

    changed = Signal(object)
    gameReplaced = Signal()
    selectionChanged = Signal(object)
    eventsChanged = Signal()
    highlightRequested = Signal(object)

    def __init__(self, view: SideView | None, tables: RuleTables | None, parent: QObject | None = None):
        super().__init__(parent)
        self.view = view
        self._tables = tables
        self.game = None

    @property
    def battle(self) -> SideView | None:
        return self.view

    @property
    def tables(self) -> RuleTables | None:
        return self._tables

    @property
    def selection(self) -> tuple[str, ...]:
        return ()

    def select(self, unit_ids) -> None:  # the side's map selects nothing
        return None

    def highlight(self, unit_ids) -> None:
        return None


class PlayerUnitItem(UnitItem):
    """A unit on a side's map: not dragged, not selected; an enemy unit tells only what the table
    shows of it."""

    def __init__(self, unit: Unit, colour: str, tables: RuleTables, own: bool):
        self.own = own
        super().__init__(unit, colour, tables)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsMovable, False)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, False)
        self.setCursor(Qt.CursorShape.ArrowCursor)

    def set_unit(self, unit: Unit, colour: str | None = None) -> None:
        super().set_unit(unit, colour)
        marks = ", ".join(m.label for m in self._marker_list)
        if self.own:
            return
        self.setToolTip(
            f"<b>{html.escape(unit.name)}</b> (enemy, in sight)<br>{unit.kind.label}, "
            f"{unit.formation.label.lower()}, {unit.stands} stands"
            + (f"<br>Markers: {marks}" if marks else "")
        )

    def mousePressEvent(self, event) -> None:  # noqa: N802
        event.ignore()


class GhostItem(UnitItem):
    """An enemy unit seen before and not now, drawn pale at its last known place with "last seen
    turn N"."""

    def __init__(self, sighting: Sighting, colour: str, tables: RuleTables):
        self.sighting = sighting
        super().__init__(sighting.unit, colour, tables)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsMovable, False)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, False)
        self.setCursor(Qt.CursorShape.ArrowCursor)
        self.setZValue(Z_UNIT - 1)
        self.label.setBrush(QColor("#555555"))
        font = self.label.font()
        font.setItalic(True)
        self.label.setFont(font)
        self.set_sighting(sighting)

    @property
    def unit_id(self) -> str:
        return self.sighting.unit.id

    def set_sighting(self, sighting: Sighting) -> None:
        self.sighting = sighting
        self.set_unit(sighting.unit)
        text = f"{sighting.unit.name} — last seen turn {sighting.turn}"
        self.label.set_name(text, short=text)  # what it was, whole, at any zoom
        self.setToolTip(
            f"<b>{html.escape(sighting.unit.name)}</b> (enemy)<br>Last seen turn {sighting.turn}, here: "
            f"{sighting.unit.formation.label.lower()}, {sighting.unit.stands} stands. Where it is now is "
            "not known."
        )

    def paint(self, painter: QPainter, option, widget=None) -> None:
        # the stands pale, in the side's colour, dashed: where it was, not where it is
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        c = self.colour
        painter.setPen(cosmetic_pen(c.name(), 1.6, Qt.PenStyle.DashLine))
        painter.setBrush(QColor(c.red(), c.green(), c.blue(), 60))
        painter.drawPath(self._colour_stand)
        painter.drawPath(self._other_stands)
        painter.setPen(cosmetic_pen(c.darker(140).name(), 2.0, Qt.PenStyle.DashLine))
        painter.drawLine(self._front)

    def mousePressEvent(self, event) -> None:  # noqa: N802
        event.ignore()


class PlayerScene(BattlefieldScene):
    """The map of one side (:class:`rules.sight.knowledge.SideView`): its own units, the enemy units it
    sees and the ghosts of those it saw before, on the table and terrain. Nothing on it moves and
    the umpire's tools are not here."""

    def __init__(self, view: SideView | None = None, tables: RuleTables | None = None, parent=None):
        self.lens = SideLens(view, tables)
        super().__init__(self.lens, parent)
        self.lens.setParent(self)
        self.ghosts: dict[str, GhostItem] = {}
        if view is not None:
            self.show_view(view)

    @property
    def view(self) -> SideView | None:
        return self.lens.view

    def _colour(self, battle: Any, side: str) -> str:
        return battle.colour(side) if _is_side_view(battle) else "#555555"

    def _add_unit(self, u: Unit, battle: Any) -> None:
        own = _is_side_view(battle) and u.side == battle.side
        it = PlayerUnitItem(u, self._colour(battle, u.side), self.tables, own)
        it.set_always_named(self.show_names)
        self.addItem(it)
        self.units[u.id] = it

    def set_terrain_editing(self, on: bool) -> None:  # a player's map is never edited
        return None

    def set_tool(self, tool: str) -> None:
        if tool != "select":
            raise ValueError("a side's map has no tools")
        super().set_tool(tool)

    def context_menu(self, pos) -> None:
        return None

    def show_view(self, view: SideView) -> None:
        """Show ``view``: only what differs from the view shown is redrawn."""
        old = self.lens.view
        self.lens.view = view
        if (
            old is None
            or self._built[0] is None
            or old.terrain is not view.terrain
            and old.terrain != view.terrain
        ):
            self.lens.changed.emit(ChangeSummary.everything())
        else:
            ids = {u for u in (*old.units, *view.units) if old.units.get(u) != view.units.get(u)}
            game = (old.turn, old.phase, old.active_side, old.table_width_in, old.table_height_in) != (
                view.turn,
                view.phase,
                view.active_side,
                view.table_width_in,
                view.table_height_in,
            )
            if ids or game:
                self.lens.changed.emit(ChangeSummary(units=frozenset(ids), game=game))
        self._show_ghosts(view)

    def set_battle(self, battle: Any) -> None:
        for uid in list(self.ghosts):
            self._drop_ghost(uid)
        super().set_battle(battle)
        if _is_side_view(battle):
            self._show_ghosts(battle)

    def _drop_ghost(self, uid: str) -> None:
        it = self.ghosts.pop(uid)
        self.units.pop(GHOST_KEY + uid, None)
        if it.scene() is self:
            self.removeItem(it)

    def _show_ghosts(self, view: SideView) -> None:
        changed = False
        for uid in [u for u in self.ghosts if u not in view.ghosts]:
            self._drop_ghost(uid)
            changed = True
        for uid, s in view.ghosts.items():
            it = self.ghosts.get(uid)
            if it is not None and it.sighting == s:
                continue
            if it is None:
                it = GhostItem(s, view.colour(s.unit.side), self.tables)
                it.set_always_named(self.show_names)
                self.addItem(it)
                self.ghosts[uid] = it
                self.units[GHOST_KEY + uid] = it
            else:
                it.set_sighting(s)
            changed = True
        if changed:
            self.layout_labels()

    def texts(self) -> list[str]:
        """Every text the map holds: names, labels and tooltips (what a player could read on it)."""
        out = []
        for it in self.items():
            tip = it.toolTip()
            if tip:
                out.append(tip)
            text = getattr(it, "text", None)
            if callable(text):
                out.append(str(text()))
        return out


def side_map_image(
    view: SideView, tables: RuleTables | None = None, px_per_in: float = 11.0, pixel_ratio: float = 2.0
) -> QImage:
    """The side's map (its own units, the enemy it sees, the ghosts) as a picture with its legend,
    drawn off screen."""
    from gui.export import ensure_application, framed_map, render_scene

    ensure_application()
    scene = PlayerScene(view, tables)
    try:
        img = render_scene(scene, px_per_in, pixel_ratio)
    finally:
        scene.clear()
        scene.deleteLater()
    legend = SimpleNamespace(terrain=view.terrain, oob=SimpleNamespace(sides=view.sides))
    return framed_map(img, legend, px_per_in)


# -- following the game -----------------------------------------------------------------------------


class SideFeed(QObject):
    """A side's view of the game in hand, kept up to date: one update per change notice of the
    controller (one per step), from the game's :class:`storage.sightings.Sightings`."""

    updated = Signal(object)  # the new SideView

    def __init__(
        self, controller: Any, side: str, parent: QObject | None = None, follow_umpire: bool = False
    ):
        super().__init__(parent)
        self.controller = controller
        self.side = side
        self.view: SideView | None = None
        #: the journal entry whose moment the side looks back at (None: now); with
        #: ``follow_umpire``, the moment the umpire's window looks back at
        self.at: int | None = None
        self.follow_umpire = follow_umpire
        controller.changed.connect(self.refresh)
        controller.gameReplaced.connect(self._replaced)

    def _replaced(self) -> None:
        self.at = None
        self.refresh()

    def moment(self) -> int | None:
        """The entry after which the view shows what the side knew (None: now)."""
        seq = getattr(self.controller, "looking_back", None) if self.follow_umpire else self.at
        game = self.controller.game
        if seq is None or game is None or seq >= game.last_seq:
            return None
        return seq

    @property
    def sightings(self) -> Sightings | None:
        from storage.sightings import Sightings  # (the rules of sight load with the first view)

        game = self.controller.game
        return Sightings.of(game) if game is not None else None

    def refresh(self, *_args) -> SideView | None:
        s = self.sightings
        if s is None:
            self.view = None
            return None
        behind = self.controller.game.last_seq - s.seq
        if behind > BUSY_AFTER_ENTRIES:  # the first reading of a long journal takes a moment
            QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
            try:
                s.update()
            finally:
                QApplication.restoreOverrideCursor()
        else:
            s.update()
        try:
            self.view = s.view(self.side, self.moment())
        except RulesError:  # the game in hand has no such side (another game was opened)
            self.view = None
            return None
        self.updated.emit(self.view)
        return self.view

    def close(self) -> None:
        for sig, slot in (
            (self.controller.changed, self.refresh),
            (self.controller.gameReplaced, self._replaced),
        ):
            try:
                sig.disconnect(slot)
            except (RuntimeError, TypeError):
                pass


class PlayerWindow(QMainWindow):
    """The map as one side sees it, in a window of its own, following the game as it is played.

    F11 puts it full screen (and back); Escape leaves full screen.
    """

    def __init__(self, controller: Any, side: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.setObjectName(f"player_view_{side}")
        self.controller = controller
        self.side = side
        tables = controller.tables or load_tables()
        self.scene = PlayerScene(None, tables, self)
        self.view = BattlefieldView(self.scene, self)
        self.view.setDragMode(self.view.DragMode.ScrollHandDrag)
        host = QWidget(self)
        lay = QVBoxLayout(host)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        bar = QWidget(host)
        bar.setObjectName("player_bar")
        row = QHBoxLayout(bar)
        row.setContentsMargins(8, 4, 8, 4)
        self.header = QLabel(bar)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        row.addWidget(self.header, 1)
        self.full_button = QToolButton(bar)
        self.full_button.setText("Full screen (F11)")
        row.addWidget(self.full_button)
        lay.addWidget(bar)
        from gui.timeline import LookBackBanner

        self.banner = LookBackBanner(host)
        lay.addWidget(self.banner)
        lay.addWidget(self.view, 1)
        self.key = QLabel(host)
        self.key.setTextFormat(Qt.TextFormat.RichText)
        self.key.setContentsMargins(8, 2, 8, 4)
        lay.addWidget(self.key)
        self.setCentralWidget(host)

        self.full_screen_action = QAction("Full screen", self)
        self.full_screen_action.setShortcuts(
            full_screen_keys(QKeySequence.keyBindings(QKeySequence.StandardKey.FullScreen))
        )
        self.full_screen_action.setCheckable(True)
        self.full_screen_action.toggled.connect(self.set_full_screen)
        self.addAction(self.full_screen_action)
        self.full_button.setDefaultAction(self.full_screen_action)
        self.full_button.setText("Full screen (F11)")
        leave = QAction("Leave full screen", self)
        leave.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        leave.triggered.connect(lambda: self.full_screen_action.setChecked(False))
        self.addAction(leave)
        fit = QAction("Fit the table", self)
        fit.setShortcut(QKeySequence("Ctrl+0"))
        fit.triggered.connect(self.view.fit_table)
        self.addAction(fit)

        self.feed = SideFeed(controller, side, self)
        self.feed.updated.connect(self.show_view)
        # the side's own timeline: any moment seen again as the side knew it then
        from gui.timeline import BarFollower, SideTimeline, TimelineBar

        self.timeline_source = SideTimeline(self.feed)
        self.timeline = TimelineBar(self.timeline_source, host)
        lay.addWidget(self.timeline)
        self.banner.now_button.setText("Back to now")
        self.banner.now_button.clicked.connect(self.timeline.now)
        self.follower = BarFollower(controller, self.timeline_source, self.timeline, self)
        self.resize(1100, 760)
        self.feed.refresh()
        self.view.fit_table()

    def _journal_changed(self) -> None:
        game = self.controller.game
        if game is not None:  # the fewest entries the journal had since the bar was brought up to date
            self._kept = min(self._kept, game.last_seq)
        if not self._follow.isActive():
            self._follow.start()

    def _catch_up(self) -> None:
        self.timeline_source.follow(self._kept)  # only the entries the steps added are read
        self._kept = 1 << 62
        self.timeline.refresh()

    def _game_replaced(self) -> None:
        self._follow.stop()
        self._kept = 1 << 62
        self.timeline_source.forget()
        self.timeline.refresh()

    def show_view(self, view: SideView) -> None:
        self.scene.show_view(view)
        k = self.timeline_source.shown_seq()
        stops = self.timeline_source.timeline() if k is not None else None
        words = stops.label(k, view.side_name) if stops is not None and k is not None else None
        if words is not None:
            self.banner.label.setText(
                f"{words}: looking back, as the {view.side_name(view.side)} side knew it then. The game goes "
                "on meanwhile; Back to now shows it."
            )
            self.banner.show()
        else:
            self.banner.show_moment(None)
        own = view.side_name(view.side)
        colour = view.colour(view.side)
        to_act = view.side_name(view.active_side)
        self.setWindowTitle(f"{own} — {view.battle_name} — as the {own} side sees it — Brigadier")
        self.header.setText(
            f"<span style='color:{colour}; font-size:15pt'>■</span> "
            f"<b style='font-size:14pt'>{html.escape(own)}</b> &nbsp; "
            f"<span style='font-size:12pt'>{html.escape(view.battle_name)} — turn {view.turn}, "
            f"{html.escape(to_act)} to act, {html.escape(view.phase.title)}</span>"
        )
        enemy = next((s for s in view.sides if s.id != view.side), None)
        seen = sum(1 for u in view.units.values() if u.side != view.side)
        parts = [
            f"<span style='color:{colour}'>■</span> {html.escape(own)}: {sum(1 for u in view.units.values() if u.side == view.side)} units"
        ]
        if enemy is not None:
            parts.append(
                f"<span style='color:{enemy.colour}'>■</span> {html.escape(enemy.name)}: {seen} in sight"
            )
            parts.append(
                f"<span style='color:{enemy.colour}'>▭</span> pale, dashed: {len(view.ghosts)} last seen "
                "(where they were, with the turn)"
            )
        self.key.setText(" &nbsp;·&nbsp; ".join(parts))

    def set_full_screen(self, on: bool) -> None:
        if on:
            self.showFullScreen()
        else:
            self.showNormal()

    def closeEvent(self, event) -> None:  # noqa: N802
        self.feed.close()
        super().closeEvent(event)


# -- the umpire's map as a side sees it ----------------------------------------------------------------


class SideMapSwitch(QObject):
    """The main window's map shown as a side sees it, or as the umpire sees everything. While a side's
    map is shown, the umpire's tools are off and a line above the map says whose it is."""

    def __init__(self, canvas: Any, controller: Any, parent: QObject | None = None):
        super().__init__(parent)
        self.canvas = canvas
        self.controller = controller
        self.side: str | None = None
        self.scene: PlayerScene | None = None
        self.feed: SideFeed | None = None
        # the line that says whose map it is wraps: at its full length it would widen the map, and
        # so the window, beyond a laptop's screen
        canvas.status.setWordWrap(True)
        controller.gameReplaced.connect(lambda: self.show_side(None))

    def show_side(self, side: str | None) -> None:
        """Show the map as ``side`` sees it, or (None) the umpire's map of everything."""
        if self.feed is not None:
            self.feed.close()
            self.feed.deleteLater()
            self.feed = None
        old = self.scene
        self.side = side
        if side is None:
            self.canvas.view.setScene(self.canvas.scene)
            self.canvas.toolbar.setEnabled(True)
            self.canvas.status.hide()
            self.scene = None
        else:
            self.scene = PlayerScene(None, self.controller.tables or load_tables(), self)
            self.feed = SideFeed(self.controller, side, self, follow_umpire=True)
            self.feed.updated.connect(self.scene.show_view)
            view = self.feed.refresh()
            self.canvas.view.setScene(self.scene)
            self.canvas.toolbar.setEnabled(False)
            name = view.side_name(side) if view is not None else side
            self.canvas.status.setText(
                f"<b>As the {html.escape(name)} side sees it</b>: its units, the enemy in its sight and, pale, "
                "where they last saw the others. The umpire's tools are off; View &gt; Umpire's map &gt; "
                "Everything brings back the whole table."
            )
            self.canvas.status.setStyleSheet("background: #fff3c4; color: #3b2f00;")
            self.canvas.status.show()
        if old is not None:
            old.deleteLater()
        self.canvas.view.fit_table()


def install(window: Any) -> None:
    """Add the side views to the main window's menus: View > Player view > *side*, View > Umpire's
    map > as *side* sees it, and File > Export side report > *side*."""
    window.side_map = SideMapSwitch(window.canvas, window.controller, window)
    window.player_windows = []
    window.installEventFilter(_CloseWith(window))
    view_menu: QMenu = window.menus["view"]
    view_menu.addSeparator()
    players = view_menu.addMenu("Pla&yer view")
    players.setToolTipsVisible(True)

    def devices() -> None:
        from gui.players_devices import open_players_devices  # (loaded when first asked for)

        open_players_devices(window)

    window.players_devices_action = view_menu.addAction("Players' &devices…", devices)
    window.players_devices_action.setToolTip("Each side's page on the players' own phones and tablets")
    umpire = view_menu.addMenu("&Umpire's map")
    file_menu: QMenu = window.menus["file"]
    reports = QMenu("Export si&de report", window)
    acts = file_menu.actions()
    i = acts.index(window.export_summary_action)
    if i + 1 < len(acts):
        file_menu.insertMenu(acts[i + 1], reports)
    else:
        file_menu.addMenu(reports)
    window.menus["players"], window.menus["umpire_map"], window.menus["side_reports"] = (
        players,
        umpire,
        reports,
    )

    def sides() -> list[Any]:
        b = window.controller.battle
        return list(b.oob.sides) if b is not None else []

    def fill_players() -> None:
        players.clear()
        for s in sides():
            a = players.addAction(f"{s.name}…", lambda sid=s.id: open_player_view(window, sid))
            a.setToolTip(
                f"A window of the map as the {s.name} side sees it, for a second screen (F11: full screen)"
            )
        if players.isEmpty():
            players.addAction("(no game open)").setEnabled(False)

    def fill_umpire() -> None:
        umpire.clear()
        a = umpire.addAction("&Everything (the umpire's map)", lambda: window.side_map.show_side(None))
        a.setCheckable(True)
        a.setChecked(window.side_map.side is None)
        for s in sides():
            b = umpire.addAction(
                f"As the {s.name} side sees it", lambda sid=s.id: window.side_map.show_side(sid)
            )
            b.setCheckable(True)
            b.setChecked(window.side_map.side == s.id)

    def fill_reports() -> None:
        reports.clear()
        for s in sides():
            reports.addAction(f"{s.name}…", lambda sid=s.id: window.export_side_report(sid))
        if reports.isEmpty():
            reports.addAction("(no game open)").setEnabled(False)

    players.aboutToShow.connect(fill_players)
    umpire.aboutToShow.connect(fill_umpire)
    reports.aboutToShow.connect(fill_reports)
    fill_players()
    fill_umpire()
    fill_reports()


def full_screen_keys(desktop: list[QKeySequence]) -> list[QKeySequence]:
    """The keys of Full screen: F11, and the desktop's own keys for it, each once. A desktop
    whose full-screen key is F11 (GNOME's is) would otherwise give the action F11 twice, and Qt
    then takes neither ("Ambiguous shortcut overload: F11")."""
    keys = [QKeySequence("F11")]
    for k in desktop:
        if not k.isEmpty() and all(k != have for have in keys):
            keys.append(k)
    return keys


class _CloseWith(QObject):
    """Closes the player views when the main window closes (they would keep the program running)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Close and event.isAccepted():
            for w in list(getattr(watched, "player_windows", [])):
                w.close()
            devices = getattr(watched, "players_devices", None)
            if devices is not None:  # the pages are no longer served
                devices.server.stop()
        return False


def open_player_view(window: Any, side: str) -> PlayerWindow:
    """Open a player view of ``side``: a window of its own (one more for each call), closed with the
    main window."""
    w = PlayerWindow(window.controller, side, window)
    open_views = getattr(window, "player_windows", None)
    if open_views is None:
        open_views = window.player_windows = []
    open_views.append(w)
    w.destroyed.connect(lambda *_: open_views.remove(w) if w in open_views else None)
    w.show()
    return w


__all__ = [
    "GhostItem",
    "PlayerScene",
    "PlayerUnitItem",
    "PlayerWindow",
    "SideFeed",
    "SideLens",
    "SideMapSwitch",
    "install",
    "open_player_view",
    "side_map_image",
]
