"""The Plots dock: the course of the battle, turn by turn, drawn with pyqtgraph.

Four charts side by side:

* **Stands by side** at the start and at the end of each turn (the current turn: so far);
* **Stands by brigade**, each in its side's colour;
* **Stands lost each turn** by each side, as bars;
* **The selected unit**: its stands over the turns, with its markers at the end of each turn.

Hovering over a chart shows the values of the nearest turn under the charts; "Save as PNG…"
writes the four charts as one picture (``pyqtgraph.exporters.ImageExporter``).

The numbers come from the journal (:class:`BattleCourse`): the battle at the end of each turn is
read once (:meth:`storage.game.Game.state_at` at the turn's last entry, which starts from the
turn's snapshot) and kept; the controller's change signal updates only what it touched: a unit's
move or a volley recomputes the current turn, a new phase or turn (or another game) reads them all.
Nothing is computed while painting.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import PySide6  # noqa: F401  (PySide6 is imported before pyqtgraph, which picks its Qt binding from it)
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from gui import dialogs
from gui.controller import ChangeSummary, GameController
from gui.export import ReportError
from gui.report import turn_end_states, unit_losses_in
from rules.battle import Battle

# -- the data ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Series:
    """One line of a chart: its key (a side, brigade or unit id), label, colour and values by turn."""

    key: str
    label: str
    colour: str
    values: tuple[float | None, ...]


@dataclass(frozen=True)
class CourseData:
    """The course of the battle: values at the start (turn 0) and at the end of turns 1..N."""

    turns: tuple[int, ...]
    sides: tuple[Series, ...]  # stands on the table by side
    brigades: tuple[Series, ...]  # stands by brigade
    losses: tuple[Series, ...]  # stands lost in each turn by side (0 at the start)
    units: Mapping[str, Series]  # stands by unit (None where the unit was not in the battle)
    markers: Mapping[str, tuple[tuple[str, ...], ...]]  # each unit's markers at the end of each turn

    def values_at(self, series: Iterable[Series], turn: int) -> list[tuple[str, float | None]]:
        i = self.turns.index(turn) if turn in self.turns else None
        return [(s.label, s.values[i] if i is not None else None) for s in series]


EMPTY = CourseData((), (), (), (), {}, {})


def _lighter(colour: str, amount: int = 140) -> str:
    return QColor(colour).lighter(amount).name()


class BattleCourse:
    """The battle at the end of each turn and the stands lost in each, kept between changes."""

    def __init__(self) -> None:
        self.states: list[Battle] = []  # index: turn (0 = the start)
        self.losses: list[dict[str, int]] = []  # index: turn; stands lost by side id
        self.reads = 0  # how many turns have been read from the journal (for the tests)

    def rebuild(self, game: Any) -> CourseData:
        """Read every turn from the journal."""
        events = game.events()
        top = max([game.battle.turn, *(e.turn for e in events)])
        self.states = turn_end_states(game, top, events)
        self.losses = [{} for _ in self.states]
        for e in events:
            self._count(self.losses[e.turn], e)
        self.reads += len(self.states)
        return self.data()

    def update(self, game: Any, summary: ChangeSummary | None = None) -> CourseData:
        """Bring the course up to date after ``summary``: the current turn only, unless the game's
        turn or phase changed (or the game was replaced), when every turn is read again."""
        if (
            summary is None
            or summary.reset
            or summary.game
            or not self.states
            or game.battle.turn != len(self.states) - 1
        ):
            return self.rebuild(game)
        turn = game.battle.turn
        self.states[turn] = game.battle
        lost: dict[str, int] = {}
        for e in game.events(turn=turn):
            self._count(lost, e)
        self.losses[turn] = lost
        self.reads += 1
        return self.data()

    @staticmethod
    def _count(into: dict[str, int], event: Any) -> None:
        for uid, (lost, _restored) in unit_losses_in(event.changes).items():
            before, after = event.changes.units[uid]
            side = str((after or before).get("side", ""))
            into[side] = into.get(side, 0) + lost

    def data(self) -> CourseData:
        if not self.states:
            return EMPTY
        end = self.states[-1]
        turns = tuple(range(len(self.states)))
        sides = tuple(
            Series(s.id, s.name, s.colour, tuple(float(b.oob.stands(side=s.id)) for b in self.states))
            for s in end.oob.sides
        )
        colours = {s.id: s.colour for s in end.oob.sides}
        brigades = tuple(
            Series(
                br.id,
                br.name,
                colours.get(br.side, "#555555"),
                tuple(
                    float(b.oob.stands(brigade=br.id)) if br.id in b.brigades else None for b in self.states
                ),
            )
            for br in end.brigades.values()
        )
        losses = tuple(
            Series(s.id, s.name, s.colour, tuple(float(x.get(s.id, 0)) for x in self.losses))
            for s in end.oob.sides
        )
        ids: dict[str, tuple[str, str]] = {}
        for b in self.states:
            for u in b.units.values():
                ids[u.id] = (u.name, colours.get(u.side, "#555555"))
        units = {
            uid: Series(
                uid,
                name,
                colour,
                tuple(float(b.units[uid].stands) if uid in b.units else None for b in self.states),
            )
            for uid, (name, colour) in ids.items()
        }
        markers = {
            uid: tuple(
                tuple(m.label for m in sorted(b.units[uid].markers)) if uid in b.units else ()
                for b in self.states
            )
            for uid in ids
        }
        return CourseData(turns, sides, brigades, losses, units, markers)


# -- the widget -------------------------------------------------------------------------------------

# pyqtgraph (and numpy's plotting helpers) take longer to import than the whole window takes to
# show: it is imported when the first chart is made (the Plots dock is first shown, or a picture
# of the charts is asked for), never at start-up.
pg: Any = None


def load_pyqtgraph() -> Any:
    """The pyqtgraph module, imported on first use (after PySide6, whose binding it then uses)."""
    global pg
    if pg is None:
        import pyqtgraph
        import pyqtgraph.exporters  # noqa: F401  (registers pyqtgraph.exporters)

        pg = pyqtgraph
    return pg


def _title(plot: Any, text: str) -> None:
    plot.setTitle(text, color="#1b2a4a", size="11pt")


def integer_step(top: float, ticks: int = 6) -> int:
    """A whole-number tick step (1, 2, 5, 10, 20, 50 ...) giving at most ``ticks`` ticks up to ``top``."""
    base = 1
    while True:
        for m in (1, 2, 5):
            if top / (base * m) <= ticks:
                return base * m
        base *= 10


def _y_from_zero(plot: Any, top: float, room: float = 0.2) -> None:
    """Stands are whole: the y axis starts at 0, ticks on whole numbers, with ``room`` (a share
    of the data's height) above the data for the legend."""
    high = max(1.0, float(top)) * (1 + room)
    step = integer_step(high)
    plot.getAxis("left").setTickSpacing(step, step)
    plot.setYRange(0, high, padding=0)


def turn_label(turn: int) -> str:
    return "the start" if turn == 0 else f"turn {turn}"


def _fmt(v: float | None) -> str:
    return "—" if v is None else f"{v:g}"


class PlotsWidget(QWidget):
    """The charts of the Plots dock, kept up to date by the controller's signals."""

    hovered = Signal(str)  # the hover text, as shown under the charts

    CHARTS = ("sides", "brigades", "losses", "unit")
    TITLES = {
        "sides": "Stands by side",
        "brigades": "Stands by brigade",
        "losses": "Stands lost each turn",
        "unit": "Selected unit",
    }

    def __init__(self, controller: GameController, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("plots")
        self.controller = controller
        self.course = BattleCourse()
        self.data: CourseData = EMPTY
        self.unit_id: str | None = None
        self._items: dict[str, list[Any]] = {k: [] for k in self.CHARTS}
        self._stale = True

        load_pyqtgraph()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        self.graphics = pg.GraphicsLayoutWidget(self)
        self.graphics.setBackground("w")
        lay.addWidget(self.graphics, 1)
        self.plots: dict[str, pg.PlotItem] = {}
        for k in self.CHARTS:
            p = self.graphics.addPlot()
            _title(p, self.TITLES[k])
            for ax in ("left", "bottom"):
                p.getAxis(ax).setTextPen("#333333")
                p.getAxis(ax).setPen("#666666")
            p.showGrid(x=True, y=True, alpha=0.25)
            p.setMenuEnabled(False)
            p.setMouseEnabled(x=False, y=False)
            p.hideButtons()
            p.setLabel("bottom", "turn (0: the start)")
            p.getAxis("bottom").setTickSpacing(1, 1)
            if k != "unit":
                # in the top right corner, on a white card, with dark text; the y range leaves
                # room above the data for it (see _y_from_zero)
                p.addLegend(
                    offset=(-4, 4),
                    labelTextSize="8pt",
                    labelTextColor="#1b1b1b",
                    brush=pg.mkBrush(255, 255, 255, 235),
                    pen=pg.mkPen("#9a9a9a"),
                    verSpacing=-4,
                )
            self.plots[k] = p
        bar = QHBoxLayout()
        self.hover_label = QLabel("Hover over a chart to read its values.", self)
        self.hover_label.setObjectName("hover")
        self.hover_label.setTextFormat(Qt.TextFormat.PlainText)
        bar.addWidget(self.hover_label, 1)
        self.export_button = QPushButton("Save as PNG…", self)
        self.export_button.setToolTip("Save these charts as a PNG picture")
        self.export_button.clicked.connect(self.export_dialog)
        bar.addWidget(self.export_button)
        lay.addLayout(bar)

        self.graphics.scene().sigMouseMoved.connect(self._mouse_moved)
        controller.changed.connect(self._changed)
        controller.gameReplaced.connect(self.reload)
        controller.selectionChanged.connect(self._selection)
        self.reload()

    # -- keeping up ---------------------------------------------------------------------------------
    def reload(self) -> None:
        """Read the whole course of the battle again (another game was opened)."""
        game = self.controller.game
        self.course = BattleCourse()
        self.data = self.course.rebuild(game) if game is not None else EMPTY
        sel = self.controller.selection
        self.unit_id = sel[0] if sel else None
        self._draw_all()

    def _changed(self, summary: ChangeSummary) -> None:
        game = self.controller.game
        if game is None:
            return
        self.data = self.course.update(game, summary)
        self._draw_all()

    def _draw_all(self) -> None:
        """Draw the charts now if they are on screen, or when they are next shown."""
        if self.isVisible():
            self.redraw()
        else:
            self._stale = True

    def showEvent(self, event) -> None:  # noqa: N802
        if self._stale:
            self.redraw()
        super().showEvent(event)

    def _selection(self, unit_ids: Sequence[str]) -> None:
        uid = unit_ids[0] if unit_ids else None
        if uid != self.unit_id:
            self.unit_id = uid
            if self.isVisible():
                self._draw_unit()
            else:
                self._stale = True

    # -- drawing ------------------------------------------------------------------------------------
    def _clear(self, key: str) -> None:
        p = self.plots[key]
        for it in self._items[key]:
            p.removeItem(it)
        self._items[key] = []
        legend = p.legend
        if legend is not None:
            legend.clear()

    def _line(
        self, key: str, s: Series, width: float = 3, dash: bool = False, symbol: str | None = "o"
    ) -> None:
        xs = [t for t, v in zip(self.data.turns, s.values) if v is not None]
        ys = [v for v in s.values if v is not None]
        pen = pg.mkPen(s.colour, width=width, style=Qt.PenStyle.DashLine if dash else Qt.PenStyle.SolidLine)
        item = self.plots[key].plot(
            xs,
            ys,
            pen=pen,
            symbol=symbol,
            symbolSize=7,
            symbolBrush=s.colour,
            symbolPen=s.colour,
            name=s.label,
        )
        self._items[key].append(item)

    def redraw(self) -> None:
        """Draw every chart from :attr:`data` (computed already)."""
        self._stale = False
        d = self.data
        self._clear("sides")
        for s in d.sides:
            self._line("sides", s)
        self._clear("brigades")
        seen: dict[str, int] = {}
        for s in d.brigades:
            n = seen[s.colour] = seen.get(s.colour, 0) + 1
            shade = Series(s.key, s.label, _lighter(s.colour, 100 + 35 * (n - 1)), s.values)
            self._line("brigades", shade, width=2, dash=n % 2 == 0)
        self._clear("losses")
        k = max(len(d.losses), 1)
        w = 0.8 / k
        for i, s in enumerate(d.losses):
            xs = [t - 0.4 + w * (i + 0.5) for t in d.turns]
            bars = pg.BarGraphItem(
                x=xs, height=[v or 0 for v in s.values], width=w * 0.95, brush=s.colour, name=s.label
            )
            self.plots["losses"].addItem(bars)  # the legend takes it by its name
            self._items["losses"].append(bars)
        for key, series in (("sides", d.sides), ("brigades", d.brigades), ("losses", d.losses)):
            self.plots[key].setXRange(-0.5, max(len(d.turns) - 0.5, 0.5), padding=0)
            top = max((v or 0 for s in series for v in s.values), default=0)
            _y_from_zero(self.plots[key], top, room=0.22 + 0.09 * len(series))
        self._draw_unit()

    def _draw_unit(self) -> None:
        self._clear("unit")
        p = self.plots["unit"]
        s = self.data.units.get(self.unit_id) if self.unit_id else None
        if s is None:
            _title(p, self.TITLES["unit"] + " (select a unit)")
            return
        _title(p, f"{self.TITLES['unit']}: {s.label}")
        self._line("unit", s)
        marks = self.data.markers.get(s.key, ())
        for t, (v, m) in enumerate(zip(s.values, marks)):
            if v is None or not m:
                continue
            text = pg.TextItem(", ".join(m), color="#a01010", anchor=(0.5, 1.2))
            f = QFont()
            f.setPointSize(8)
            text.setFont(f)
            text.setPos(t, v)
            p.addItem(text)
            self._items["unit"].append(text)
        p.setXRange(-0.5, max(len(self.data.turns) - 0.5, 0.5), padding=0)
        _y_from_zero(p, max((v or 0 for v in s.values), default=0), room=0.2)

    # -- hover ------------------------------------------------------------------------------------
    def hover_text(self, chart: str, turn: int) -> str:
        """The values of ``chart`` at ``turn``, in words (what hovering shows)."""
        d = self.data
        if turn not in d.turns:
            return ""
        when = turn_label(turn)
        if chart == "sides":
            vals = d.values_at(d.sides, turn)
            return f"Stands at {'' if turn == 0 else 'the end of '}{when}: " + ", ".join(
                f"{n} {_fmt(v)}" for n, v in vals
            )
        if chart == "brigades":
            vals = d.values_at(d.brigades, turn)
            return f"Stands at {'' if turn == 0 else 'the end of '}{when}: " + ", ".join(
                f"{n} {_fmt(v)}" for n, v in vals
            )
        if chart == "losses":
            if turn == 0:
                return "No stands are lost before the first turn."
            vals = d.values_at(d.losses, turn)
            return f"Stands lost in {when}: " + ", ".join(f"{n} {_fmt(v)}" for n, v in vals)
        if chart == "unit":
            s = d.units.get(self.unit_id) if self.unit_id else None
            if s is None:
                return "Select a unit to follow its strength."
            v = s.values[turn]
            if v is None:
                return f"{s.label} was not in the battle at {when}."
            marks = d.markers.get(s.key, ())[turn]
            return f"{s.label} at {'' if turn == 0 else 'the end of '}{when}: {_fmt(v)} stands" + (
                f"; markers: {', '.join(marks)}" if marks else "; no markers"
            )
        return ""

    def _mouse_moved(self, scene_pos: QPointF) -> None:
        for key, p in self.plots.items():
            if p.sceneBoundingRect().contains(scene_pos) and p.vb.sceneBoundingRect().contains(scene_pos):
                x = p.vb.mapSceneToView(scene_pos).x()
                turn = round(x)
                text = self.hover_text(key, turn)
                if text:
                    self.hover_label.setText(text)
                    self.graphics.setToolTip(text)
                    self.hovered.emit(text)
                return

    # -- export ------------------------------------------------------------------------------------
    def export_png(self, path: str | Path, width: int = 1600) -> Path:
        """Save the four charts as one PNG picture ``width`` pixels wide."""
        p = Path(path)
        if not p.parent.is_dir():
            raise ReportError(f"{p}: there is no folder {p.parent} to write the picture in")
        if self._stale:
            self.redraw()
        exporter = pg.exporters.ImageExporter(self.graphics.ci)
        exporter.parameters()["width"] = int(width)
        exporter.export(str(p))
        if not p.exists() or p.stat().st_size == 0:
            raise ReportError(f"{p}: the picture could not be written")
        return p

    def export_dialog(self) -> None:
        from gui.main_window import saves_dir

        path = dialogs.ask_save_path(
            self, "Save the charts", str(saves_dir() / "plots.png"), "PNG pictures (*.png)", "png"
        )
        if not path:
            return
        try:
            self.export_png(path)
        except ReportError as exc:
            dialogs.show_message(self, "Save the charts", str(exc), "error")


__all__ = ["BattleCourse", "CourseData", "PlotsWidget", "Series", "load_pyqtgraph"]
