"""The odds of a charge as a bar chart (pyqtgraph, imported when the first chart is made)."""

from __future__ import annotations

from typing import Any

import PySide6  # noqa: F401  (PySide6 is imported before pyqtgraph, which picks its Qt binding from it)
from PySide6.QtWidgets import QGraphicsItem, QWidget

OUTCOME_ORDER = (
    ("stalled", "Stalls"),
    ("attacker_wins", "Charger wins"),
    ("defender_wins", "Defender wins"),
    ("tie", "Tie (locked)"),
    ("destroyed", "Charger shot away"),
    ("halted", "Halted in stream"),
    ("fell_short", "Falls short"),
    ("evaded", "Screen evades"),
    ("overrun", "Screen overrun"),
)
OUTCOME_COLOURS = {
    "stalled": "#9e9e9e",
    "attacker_wins": "#2e7d32",
    "defender_wins": "#c62828",
    "tie": "#f9a825",
}


# pyqtgraph is imported when the first odds chart is made (a charge dialog opens), not with
# this module: the other combat dialogs draw no chart.
pg: Any = None
_ODDS_CHART: type | None = None


def OddsChart(parent: QWidget | None = None) -> Any:  # noqa: N802  (made like a class)
    """A new odds chart (a ``pyqtgraph.PlotWidget`` with :class:`_OddsChartPart`'s methods)."""
    global pg, _ODDS_CHART
    if _ODDS_CHART is None:
        import pyqtgraph

        pg = pyqtgraph
        _ODDS_CHART = type(
            "OddsChart", (_OddsChartPart, pyqtgraph.PlotWidget), {"__doc__": _OddsChartPart.__doc__}
        )
    return _ODDS_CHART(parent)


class _OddsChartPart:
    """The odds of a charge as bars: the chance of each way it can end, in percent."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent, background="w")
        self.setObjectName("odds_chart")
        self.setMinimumHeight(230)
        self.setMouseEnabled(x=False, y=False)
        self.setMenuEnabled(False)
        self.hideButtons()
        self.getPlotItem().setLabel("left", "chance (%)", color="#222")
        for name in ("left", "bottom"):
            ax = self.getPlotItem().getAxis(name)
            ax.setTextPen(pg.mkPen("#222"))
            ax.setPen(pg.mkPen("#444"))
            # an axis keeps a picture of itself until its ticks or size change (the next charge's
            # odds mostly keep them)
            ax.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.getPlotItem().showGrid(y=True, alpha=0.3)
        self.bars: list[tuple[str, float]] = []
        # the bars and their labels, made once and given new values for each charge shown
        self._bar: Any = None
        self._texts: list = []
        self._shown: tuple = ()  # the ticks and ranges set last

    def show_odds(self, odds) -> None:
        pct = odds.as_percentages()
        keys = [
            (k, label)
            for k, label in OUTCOME_ORDER
            if k in ("stalled", "attacker_wins", "defender_wins", "tie") or pct.get(k, 0) > 0
        ]
        self.bars = [(label, pct.get(k, 0.0)) for k, label in keys]
        xs = list(range(len(keys)))
        heights = [p for _, p in self.bars]
        brushes = [pg.mkBrush(OUTCOME_COLOURS.get(k, "#5c6bc0")) for k, _ in keys]
        if self._bar is None:
            self._bar = pg.BarGraphItem(
                x=xs, height=heights, width=0.6, brushes=brushes, pen=pg.mkPen("#333")
            )
            self.addItem(self._bar)
        else:
            self._bar.setOpts(x=xs, height=heights, brushes=brushes)
        while len(self._texts) < len(xs):
            t = pg.TextItem("", color="#111", anchor=(0.5, 1.0))
            self.addItem(t)
            self._texts.append(t)
        for i, t in enumerate(self._texts):
            if i < len(xs):
                t.setText(f"{heights[i]:.1f}%")
                t.setPos(xs[i], heights[i] + 1)
            t.setVisible(i < len(xs))
        top = max(100.0, max(heights, default=0) + 10)
        shown = (tuple(label for _, label in keys), top)
        if shown != self._shown:
            self._shown = shown
            ax = self.getPlotItem().getAxis("bottom")
            ax.setTicks([[(x, label) for x, (_, label) in zip(xs, keys, strict=True)]])
            self.setXRange(-0.6, len(keys) - 0.4, padding=0)
            self.setYRange(0, top, padding=0)
