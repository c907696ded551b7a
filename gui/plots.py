"""The Plots dock: the course of the battle, turn by turn, drawn with pyqtgraph.

Four charts side by side:

* **Stands by side** at the start and at the end of each turn (the current turn: so far);
* **Stands by brigade**, each in its side's colour;
* **Stands lost each turn** by each side, as bars;
* **The selected unit**: its stands over the turns, with its markers at the end of each turn.

Hovering over a chart shows the values of the nearest turn under the charts; "Save as PNG…"
writes the four charts as one picture (``pyqtgraph.exporters.ImageExporter``).

The numbers are the series of :mod:`gui.plot_series`, worked out from the journal and kept between
changes: after an action, undo or redo only the lines whose values changed are drawn again.
Nothing is computed while painting.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import PySide6  # noqa: F401  (PySide6 is imported before pyqtgraph, which picks its Qt binding from it)
from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QComboBox,
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gui import dialogs
from gui.controller import FOLLOW_AFTER_MS
from gui.export import ReportError
from gui.interfaces import ControllerLike
from gui.plot_series import EMPTY, BattleCourse, CourseData, Series


@lru_cache(maxsize=256)
def _lighter(colour: str, amount: int = 140) -> str:
    return QColor(colour).lighter(amount).name()


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


def _y_high(top: float, room: float = 0.2) -> float:
    """The top of a chart's y axis for data up to ``top``: ``room`` (a share of the data's
    height) above it for the legend, up to the next tick, so that a small change of the data (a
    stand lost, then given back) leaves the axis, and the chart's picture, as they were."""
    high = max(1.0, float(top)) * (1 + room)
    step = integer_step(high)
    return float(math.ceil(high / step - 1e-9) * step)


def _y_from_zero(plot: Any, top: float, room: float = 0.2) -> None:
    """Stands are whole: the y axis starts at 0, ticks on whole numbers, with room above the data
    for the legend (:func:`_y_high`)."""
    high = _y_high(top, room)
    step = integer_step(high)
    plot.getAxis("left").setTickSpacing(step, step)
    plot.setYRange(0, high, padding=0)


def _x_turns(plot: Any, n: int) -> None:
    """The x axis for ``n`` turns (0 to n - 1), ticked at whole turns, a dozen ticks at most (a
    long game's axis is not a smear of numbers)."""
    plot.setXRange(-0.5, max(n - 0.5, 0.5), padding=0)
    step = integer_step(max(n - 1, 1), ticks=12)
    plot.getAxis("bottom").setTickSpacing(step, step)


def _top(values: Iterable[float | None]) -> float:
    """The highest of a line's values (0 for none)."""
    return max((v or 0 for v in values), default=0)


def turn_label(turn: int) -> str:
    return "the start" if turn == 0 else f"turn {turn}"


def _fmt(v: float | None) -> str:
    return "—" if v is None else f"{v:g}"


#: The most turns whose lines have a dot at each turn.
DOTTED_TURNS = 25


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

    def __init__(self, controller: ControllerLike, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("plots")
        self.controller = controller
        self._course = BattleCourse()
        self._data: CourseData = EMPTY
        self.unit_id: str | None = None
        self._items: dict[str, list[Any]] = {k: [] for k in self.CHARTS}
        # what each chart shows now, so a change redraws only what differs: its series' keys,
        # labels and colours (a change of these draws the chart afresh), the values of each
        # item, and the turns and heights its axes were set for
        self._layout: dict[str, tuple] = {}
        self._shown: dict[str, list[tuple]] = {k: [] for k in self.CHARTS}
        self._tops: dict[str, list[float]] = {k: [] for k in self.CHARTS}  # each item's highest value
        self._ranges: dict[str, tuple] = {}
        self._unit_shown: tuple | None = None
        self._dots: dict[str, Any] = {}  # each line chart's dots (a scatter), once made
        self._dots_shown: dict[str, tuple | None] = {}  # what they show: each line's colour and values
        self._stale = True
        self.cursor_x: float | None = None  # the timeline's moment on the axis of turns, if any
        self._cursors: dict[str, Any] = {}
        self._pending = False  # steps made since the charts last read the game
        self._follow = QTimer(self)
        self._follow.setSingleShot(True)
        self._follow.setInterval(FOLLOW_AFTER_MS)
        self._follow.timeout.connect(self.catch_up)

        load_pyqtgraph()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        self.graphics = pg.GraphicsLayoutWidget(self)
        self.graphics.setBackground("w")
        lay.addWidget(self.graphics, 1)
        self.plots: dict[str, pg.PlotItem] = {}
        self.columns = 0
        for k in self.CHARTS:
            p = pg.PlotItem()
            _title(p, self.TITLES[k])
            for ax in ("left", "bottom"):
                p.getAxis(ax).setTextPen("#333333")
                p.getAxis(ax).setPen("#666666")
                # an axis draws its grid over the whole chart, so a line that changes repaints
                # it: it keeps a picture of itself until its range or size changes
                p.getAxis(ax).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            p.showGrid(x=True, y=True, alpha=0.25)
            p.setMenuEnabled(False)
            p.setMouseEnabled(x=False, y=False)
            p.hideButtons()
            p.setLabel("bottom", "turn (0: the start)")
            p.getAxis("bottom").setTickSpacing(1, 1)
            if k != "unit":
                # below its chart, in a place of its own: a legend never covers a line or a bar
                # (the chart adds each named line to it, as to a legend of its own)
                p.legend = pg.LegendItem(
                    labelTextSize="8pt",
                    labelTextColor="#1b1b1b",
                    brush=pg.mkBrush(255, 255, 255, 235),
                    pen=pg.mkPen("#9a9a9a"),
                    verSpacing=-6,
                    horSpacing=12,
                    colCount=2,
                )
            self.plots[k] = p
        bar = QHBoxLayout()
        self.hover_label = QLabel("Hover over a chart to read its values.", self)
        self.hover_label.setObjectName("hover")
        self.hover_label.setTextFormat(Qt.TextFormat.PlainText)
        bar.addWidget(self.hover_label, 1)
        # where the dock is small (a laptop), one chart at a time, chosen here
        self.chart_choice = QComboBox(self)
        self.chart_choice.setObjectName("chart_choice")
        for k in self.CHARTS:
            self.chart_choice.addItem(self.TITLES[k], k)
        self.chart_choice.setToolTip("The dock is small: one chart at a time")
        self.chart_choice.currentIndexChanged.connect(lambda _i: self._arrange(force=True))
        self.chart_choice.setVisible(False)
        bar.addWidget(self.chart_choice)
        self.export_button = QPushButton("Save as PNG…", self)
        self.export_button.setToolTip("Save these charts as a PNG picture")
        self.export_button.clicked.connect(self.export_dialog)
        bar.addWidget(self.export_button)
        lay.addLayout(bar)

        self._arrange()
        self.graphics.scene().sigMouseMoved.connect(self._mouse_moved)
        controller.eventsChanged.connect(self._journal_changed)
        controller.gameReplaced.connect(self.reload)
        controller.selectionChanged.connect(self._selection)
        self.reload()

    # -- the moment looked back at --------------------------------------------------------------------
    def set_cursor(self, x: float | None) -> None:
        """Stand a cursor on every chart at ``x`` on its axis of turns (the moment the timeline
        looks back at: turn N ends at N), or take it away (None: the game now)."""
        self.cursor_x = x
        for k, p in self.plots.items():
            line = self._cursors.get(k)
            if x is None:
                if line is not None:
                    line.hide()
                continue
            if line is None:
                line = pg.InfiniteLine(
                    angle=90, movable=False, pen=pg.mkPen("#c0392b", width=2, style=Qt.PenStyle.DashLine)
                )
                line.setZValue(50)
                p.addItem(line, ignoreBounds=True)
                self._cursors[k] = line
            line.setValue(x)
            line.show()

    # -- keeping up ---------------------------------------------------------------------------------
    def reload(self) -> None:
        """Read the whole course of the battle again (another game was opened)."""
        self._pending = False
        self._follow.stop()
        game = self.controller.game
        self._course = BattleCourse()
        self._data = self._course.rebuild(game) if game is not None else EMPTY
        sel = self.controller.selection
        self.unit_id = sel[0] if sel else None
        if self.isVisible():
            self.redraw()
        else:
            self._stale = True

    @property
    def data(self) -> CourseData:
        """The series the charts show, brought up to date with the game."""
        self.catch_up()
        return self._data

    @property
    def course(self) -> BattleCourse:
        self.catch_up()
        return self._course

    def _journal_changed(self) -> None:
        """An action, undo or redo: the charts follow a moment after the step is painted
        (:data:`gui.controller.FOLLOW_AFTER_MS`); steps in quick succession are read together."""
        self._pending = True
        self._follow.start()

    def catch_up(self) -> None:
        """Read what the steps since the charts were last drawn touched, and draw what differs
        (now, rather than when the moment after the last step comes)."""
        if not self._pending:
            return
        self._pending = False
        self._follow.stop()
        game = self.controller.game
        if game is None:
            return
        data = self._course.update(game)
        if data is self._data and not self._stale:
            return  # nothing the charts show changed
        self._data = data
        self._draw_changes()

    def _draw_changes(self) -> None:
        """Draw what changed now if the charts are on screen, or all of them when next shown."""
        if not self.isVisible():
            self._stale = True
        elif self._stale:
            self.redraw()
        else:
            self._draw_charts(full=False)

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

    # -- the charts' places ---------------------------------------------------------------------------
    #: The most brigades named one by one below their chart.
    MAX_NAMED = 8

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._arrange()

    #: The smallest a chart is drawn (pixels, its legend included): where the dock cannot give
    #: every chart this much, side by side or two by two, it shows one at a time.
    SMALLEST_CHART = (230, 190)

    def _arrange(self, force: bool = False) -> None:
        """The four charts side by side where the dock is wide, two by two where it is tall enough,
        and one at a time (chosen below them) where it is small, so that none (the selected
        unit's, last) is squeezed out of sight; each legend in the row below its chart."""
        w, h = max(self.graphics.width(), 1), max(self.graphics.height(), 1)
        n, (least_w, least_h) = len(self.CHARTS), self.SMALLEST_CHART
        columns = next(
            (c for c in (n, 2) if w / c >= least_w and h / (n / c) >= least_h and (c == n or w < 2.4 * h)),
            1,
        )
        if columns == self.columns and not force:
            return
        layout = self.graphics.ci
        for p in self.plots.values():  # placed before: taken out to be placed again
            if p in layout.items:
                layout.removeItem(p)
            if p.legend is not None and p.legend in layout.items:
                layout.removeItem(p.legend)
        self.columns = columns
        self.chart_choice.setVisible(columns == 1)
        shown = [self.chart_choice.currentData()] if columns == 1 else list(self.CHARTS)
        for k, p in self.plots.items():
            p.setVisible(k in shown)
            if p.legend is not None:
                p.legend.setVisible(k in shown)
        grid = layout.layout
        for i, k in enumerate(shown):
            row, col = 2 * (i // columns), i % columns
            layout.addItem(self.plots[k], row=row, col=col)
            legend = self.plots[k].legend
            if legend is not None:
                layout.addItem(legend, row=row + 1, col=col)
                legend.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
            grid.setRowStretchFactor(row, 1)
            grid.setRowStretchFactor(row + 1, 0)

    # -- drawing ------------------------------------------------------------------------------------
    def _clear(self, key: str) -> None:
        p = self.plots[key]
        for it in self._items[key]:
            p.removeItem(it)
        self._items[key] = []
        self._shown[key] = []
        self._tops[key] = []
        legend = p.legend
        if legend is not None:
            legend.clear()

    def _points(self, s: Series) -> tuple[list[int], list[float]]:
        xs = [t for t, v in zip(self._data.turns, s.values) if v is not None]
        ys = [v for v in s.values if v is not None]
        return xs, ys

    def _line(
        self,
        key: str,
        s: Series,
        width: float = 3,
        dash: bool = False,
        symbol: str | None = "o",
        named: bool = True,
    ) -> None:
        xs, ys = self._points(s)
        pen = pg.mkPen(s.colour, width=width, style=Qt.PenStyle.DashLine if dash else Qt.PenStyle.SolidLine)
        name = s.label if named else None
        if key == "unit" and self._dotted():
            item = self.plots[key].plot(
                xs,
                ys,
                pen=pen,
                symbol=symbol,
                symbolSize=7,
                symbolBrush=s.colour,
                symbolPen=s.colour,
                name=name,
            )
            curve = item.curve
        else:
            # a bare curve, which takes new values without a data item's work on them (a line
            # changes at each stand lost); a short game's dots at each turn are the chart's one
            # scatter of them (:meth:`_draw_dots`), so that a game growing past
            # :data:`DOTTED_TURNS` turns (or an undo back under them) makes no line again
            item = curve = pg.PlotCurveItem(xs, ys, pen=pen, name=name)
            self.plots[key].addItem(item)
        # a line keeps a picture of itself: another line of its chart that changes (a brigade's,
        # at each stand lost) repaints the chart's lines, and a line seldom changes
        curve.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self._items[key].append(item)
        self._shown[key].append(s.values)
        self._tops[key].append(_top(s.values))

    def _draw_dots(self, key: str, series: Sequence[Series]) -> None:
        """The dot at each turn of every line of chart ``key``, as one scatter, in each line's
        colour, for a game of up to :data:`DOTTED_TURNS` turns (none for a longer one); drawn
        again only when a line's values or colours changed."""
        want = tuple((s.colour, s.values) for s in series) if self._dotted() else None
        if self._dots_shown.get(key) == want:
            return
        self._dots_shown[key] = want
        dots = self._dots.get(key)
        if want is None:
            if dots is not None:
                dots.setData([])
            return
        if dots is None:
            dots = self._dots[key] = pg.ScatterPlotItem(size=7, pxMode=True)
            dots.setZValue(5)  # over the lines
            self.plots[key].addItem(dots)
        xs: list[float] = []
        ys: list[float] = []
        brushes: list[Any] = []
        pens: list[Any] = []
        for s in series:
            brush, pen = pg.mkBrush(s.colour), pg.mkPen(s.colour)
            for x, y in zip(*self._points(s), strict=True):
                xs.append(x)
                ys.append(y)
                brushes.append(brush)
                pens.append(pen)
        dots.setData(x=xs, y=ys, brush=brushes, pen=pens, size=7)

    def dots(self, key: str) -> list[tuple[float, float, str]]:
        """The dots chart ``key`` shows: (turn, value, colour) each."""
        self.catch_up()
        dots = self._dots.get(key)
        if dots is None:
            return []
        return [(float(p.pos().x()), float(p.pos().y()), p.brush().color().name()) for p in dots.points()]

    def _dotted(self) -> bool:
        """Whether the lines have a dot at each turn: for up to :data:`DOTTED_TURNS` turns."""
        return len(self._data.turns) <= DOTTED_TURNS

    def _bars_at(self, i: int, count: int) -> tuple[list[float], float]:
        """The x of the bars of the ``i``-th of ``count`` series, and their width."""
        w = 0.8 / max(count, 1)
        return [t - 0.4 + w * (i + 0.5) for t in self._data.turns], w

    def _shaded_brigades(self) -> list[tuple[Series, bool]]:
        """The brigades' lines in shades of their side's colour, every other one dashed."""
        out = []
        seen: dict[str, int] = {}
        for s in self._data.brigades:
            n = seen[s.colour] = seen.get(s.colour, 0) + 1
            out.append((Series(s.key, s.label, _lighter(s.colour, 100 + 35 * (n - 1)), s.values), n % 2 == 0))
        return out

    def redraw(self) -> None:
        """Draw every chart afresh from :attr:`data` (computed already)."""
        self._stale = False
        self._draw_charts(full=True)

    def _draw_charts(self, full: bool) -> None:
        """Draw the charts from :attr:`data`: afresh with ``full`` (or where the series are not
        those drawn), else only the series whose values changed, and the axes if they must grow."""
        d = self._data
        n = len(d.turns)
        lines = {
            "sides": [(s, False) for s in d.sides],
            "brigades": self._shaded_brigades(),
        }
        for key, drawn in lines.items():
            layout = tuple((s.key, s.label, s.colour, dash) for s, dash in drawn)
            if full or layout != self._layout.get(key):
                self._clear(key)
                # a big battle's brigades are too many to name below the chart: their lines are
                # in their side's shades, said once a side (hovering names each one)
                each = key == "sides" or len(drawn) <= self.MAX_NAMED
                for s, dash in drawn:
                    if key == "sides":
                        self._line(key, s)
                    else:
                        self._line(key, s, width=2, dash=dash, named=each)
                if not each:
                    legend = self.plots[key].legend
                    for side in d.sides:
                        sample = pg.PlotDataItem(pen=pg.mkPen(side.colour, width=2))
                        legend.addItem(
                            sample,
                            f"{side.label}: {sum(1 for b in d.brigades if b.colour == side.colour)} brigades",
                        )
                self._layout[key] = layout
                self._ranges.pop(key, None)
            else:
                for i, (s, _dash) in enumerate(drawn):
                    if self._shown[key][i] != s.values or self._ranges[key][0] != n:
                        self._items[key][i].setData(*self._points(s))
                        self._shown[key][i] = s.values
                        self._tops[key][i] = _top(s.values)
            self._draw_dots(key, [s for s, _dash in drawn])
        layout = tuple((s.key, s.label, s.colour) for s in d.losses)
        if full or layout != self._layout.get("losses"):
            self._clear("losses")
            for i, s in enumerate(d.losses):
                xs, w = self._bars_at(i, len(d.losses))
                bars = pg.BarGraphItem(
                    x=xs, height=[v or 0 for v in s.values], width=w * 0.95, brush=s.colour, name=s.label
                )
                self.plots["losses"].addItem(bars)  # the legend takes it by its name
                self._items["losses"].append(bars)
                self._shown["losses"].append(s.values)
                self._tops["losses"].append(_top(s.values))
            self._layout["losses"] = layout
            self._ranges.pop("losses", None)
        else:
            for i, s in enumerate(d.losses):
                if self._shown["losses"][i] != s.values or self._ranges["losses"][0] != n:
                    xs, _w = self._bars_at(i, len(d.losses))
                    self._items["losses"][i].setOpts(x=xs, height=[v or 0 for v in s.values])
                    self._shown["losses"][i] = s.values
                    self._tops["losses"][i] = _top(s.values)
        for key, series in (("sides", d.sides), ("brigades", d.brigades), ("losses", d.losses)):
            top = max(self._tops[key], default=0)
            shown = self._ranges.get(key)
            if shown is None or shown[0] != n:
                _x_turns(self.plots[key], n)
            high = _y_high(top, room=0.12)
            if shown is None or shown[1:] != (high, len(series)):
                _y_from_zero(self.plots[key], top, room=0.12)
            self._ranges[key] = (n, high, len(series))
        if full or self._unit_shown != self._unit_state():
            self._draw_unit()

    def _unit_state(self) -> tuple:
        """What the selected unit's chart shows: its unit, turns, values and markers."""
        s = self._data.units.get(self.unit_id) if self.unit_id else None
        if s is None:
            return (None,)
        return (s, len(self._data.turns), self._data.markers.get(s.key, ()))

    def _draw_unit(self) -> None:
        self._clear("unit")
        self._unit_shown = self._unit_state()
        p = self.plots["unit"]
        s = self._data.units.get(self.unit_id) if self.unit_id else None
        if s is None:
            _title(p, self.TITLES["unit"] + " (select a unit)")
            return
        _title(p, f"{self.TITLES['unit']}: {s.label}")
        self._line("unit", s)
        marks = self._data.markers.get(s.key, ())
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
        _x_turns(p, len(self._data.turns))
        _y_from_zero(p, max((v or 0 for v in s.values), default=0), room=0.2)

    # -- hover ------------------------------------------------------------------------------------
    def hover_text(self, chart: str, turn: int) -> str:
        """The values of ``chart`` at ``turn``, in words (what hovering shows)."""
        self.catch_up()
        d = self._data
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
        self.catch_up()
        if self._stale:
            self.redraw()
        exporter = pg.exporters.ImageExporter(self.graphics.ci)
        exporter.parameters()["width"] = int(width)
        exporter.export(str(p))
        if not p.exists() or p.stat().st_size == 0:
            raise ReportError(f"{p}: the picture could not be written")
        return p

    def export_dialog(self) -> None:
        from gui.paths import saves_dir

        path = dialogs.ask_save_path(
            self, "Save the charts", str(saves_dir() / "plots.png"), "PNG pictures (*.png)", "png"
        )
        if not path:
            return
        try:
            self.export_png(path)
        except ReportError as exc:
            dialogs.show_message(self, "Save the charts", str(exc), "error")


__all__ = ["PlotsWidget", "load_pyqtgraph"]
