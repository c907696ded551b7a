"""The combat dialogs: shooting (Phase 3), declaring a charge with its odds, and melee (Phase 4).

* :class:`ShootDialog`: a firer, every enemy as a possible target with the reason it may or may
  not be fired on (target priority, arc, range, line of sight, RULE-03-5.x), the volley's numbers
  (dice pool of the stands with a clear view, to-hit with its modifiers, the target's cover save)
  and its exact odds, the dice, and the result before it is applied.
* :class:`ChargeDialog`: the charger and its target, every unmet condition of the declaration
  with its rule id, the charge path, and the exact odds of the charge as a bar chart (stall, win,
  lose, tie ...) with the expected stands lost each side.
* :class:`MeleeDialog`: the melees the charges of Phase 2 left pending (RULE-06-1.1), one of which
  is chosen, or a melee set up by hand; both sides' shock scores built up line by line (die,
  engaged stands, each modifier with its rule), the dice, the outcome and its aftermath (retreat,
  consolidation, a Tactical Breakthrough, the Leader Loss roll, a tie left pending).
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable, Sequence
from typing import Any

import PySide6  # noqa: F401  (PySide6 is imported before pyqtgraph, which picks its Qt binding from it)
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.dialogs import ValidatedDialog
from gui.dice_entry import DiceEntry, dry_run_check
from gui.reaction_dialog import GREY, inches, steps_html, unit_line
from rules.battle import Battle
from rules.dice import DiceSource
from rules.errors import RulesError
from rules.events import Step
from rules.melee import (
    Contact,
    MeleeAction,
    MeleeSituation,
    PendingMelee,
    ResolvePendingMelee,
    ShockSide,
    SweepingAdvance,
    describe_melee,
    is_due,
    shock_sides,
)
from rules.model import Marker, Phase, UnitKind, Weapon
from rules.tables import RuleTables
from rules.terrain import TerrainType

RED = "#a01010"
GREEN = "#1b5e20"


def _bold_title(text: str, parent: QWidget) -> QLabel:
    lab = QLabel(f"<span style='font-size:15pt; font-weight:bold'>{html.escape(text)}</span>", parent)
    return lab


def _select(combo: QComboBox, data) -> None:
    i = combo.findData(data)
    if i >= 0:
        combo.setCurrentIndex(i)


# -- shooting -------------------------------------------------------------------------------------


class ShootDialog(ValidatedDialog):
    """Phase 3 Ranged Combat: a firer, its legal targets, the volley, the dice and the result."""

    COLUMNS = ["Target", "Range", "Band", "Arc", "Line of sight", "Cover", "May fire?"]

    def __init__(
        self,
        battle: Battle,
        tables: RuleTables,
        *,
        program_dice: Callable[[], DiceSource],
        firer_id: str | None = None,
        parent: QWidget | None = None,
    ):
        super().__init__("Shoot — Phase 3: Ranged Combat", parent)
        self.setObjectName("shoot_dialog")
        self.battle, self.tables, self._program_dice = battle, tables, program_dice
        self.resize(940, 700)
        lay = QVBoxLayout(self.form_host)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(_bold_title("Shoot — Phase 3: Ranged Combat", self))
        row = QHBoxLayout()
        row.addWidget(QLabel("Firer:", self))
        self.firer = QComboBox(self)
        for u in battle.oob.in_play(battle.active_side):
            if u.kind == UnitKind.ARTILLERY or u.weapon != Weapon.NONE:
                fired = " (fired)" if u.has(Marker.FIRED) else ""
                self.firer.addItem(f"{u.name}{fired}", u.id)
        row.addWidget(self.firer, 1)
        lay.addLayout(row)
        lay.addWidget(QLabel("<b>Targets</b>, closest first (target priority, RULE-03-5.6):", self))
        self.targets = QTableWidget(0, len(self.COLUMNS), self)
        self.targets.setObjectName("targets")
        self.targets.setHorizontalHeaderLabels(self.COLUMNS)
        self.targets.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.targets.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.targets.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.targets.verticalHeader().setVisible(False)
        h = self.targets.horizontalHeader()
        # the short columns as wide as their entries; the two sentences share the rest and wrap,
        # so every column stays in view without a sideways scroll
        for c in range(len(self.COLUMNS)):
            h.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        for c in (self.COLUMNS.index("Line of sight"), len(self.COLUMNS) - 1):
            h.setSectionResizeMode(c, QHeaderView.ResizeMode.Stretch)
        self.targets.setWordWrap(True)
        self.targets.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.targets.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.targets.setMinimumHeight(150)
        lay.addWidget(self.targets, 1)
        self.volley_label = QLabel(self)
        self.volley_label.setObjectName("volley")
        self.volley_label.setWordWrap(True)
        self.volley_label.setTextFormat(Qt.TextFormat.RichText)
        vb = QGroupBox("The volley", self)
        QVBoxLayout(vb).addWidget(self.volley_label)
        lay.addWidget(vb)
        db = QGroupBox("Dice", self)
        self.dice = DiceEntry(db)
        QVBoxLayout(db).addWidget(self.dice)
        lay.addWidget(db)
        lay.addWidget(QLabel("<b>What happens</b> (applied and logged on OK):", self))
        self.result = QTextBrowser(self)
        self.result.setObjectName("result")
        self.result.setMinimumHeight(110)
        lay.addWidget(self.result, 1)
        self.ok_button.setText("Fire")
        self._options: list = []
        self._target: str | None = None
        self.firer.currentIndexChanged.connect(lambda _i: self._fill_targets())
        self.targets.itemSelectionChanged.connect(self._target_picked)
        self.dice.set_check(dry_run_check(self._resolve))
        self.dice.changed.connect(self.revalidate)
        if firer_id is not None:
            _select(self.firer, firer_id)
        self._fill_targets()

    # -- the firer's targets ----------------------------------------------------------------------
    def firer_id(self) -> str | None:
        return self.firer.currentData()

    def target_id(self) -> str | None:
        return self._target

    def _fill_targets(self) -> None:
        from rules.battlefield import Battlefield
        from rules.shooting import range_band

        self._options = []
        self._target = None
        self.targets.setRowCount(0)
        fid = self.firer_id()
        if fid is None:
            self.revalidate()
            return
        bf = Battlefield(self.battle, self.tables)
        firer = self.battle.unit(fid)
        try:
            self._options = bf.legal_targets(firer)
        except RulesError as exc:
            self.volley_label.setText(f"<span style='color:{RED}'>{html.escape(str(exc))}</span>")
            self.revalidate()
            return
        self.targets.setRowCount(len(self._options))
        first_allowed = None
        try:
            reach = bf.max_range_in(firer) or None  # 0: no maximum in the tables
        except RulesError:
            reach = None
        for r, o in enumerate(self._options):
            t = self.battle.unit(o.unit_id)
            if reach is not None and o.distance_in > reach + 1e-9:
                band = "out of range"
            else:
                band = range_band(o.distance_in, self.tables).value
            sight = (
                f"clear ({o.sight.clear_stands} of {o.sight.stands} stands see it)"
                if o.sight.visible
                else f"blocked: {o.sight.reason}"
            )
            try:
                cover = bf.cover_for(t, firer).kind
            except RulesError:
                cover = "?"
            why = ("yes: " if o.allowed else "no: ") + o.why + (f" ({o.rule})" if o.rule else "")
            cells = [t.name, inches(o.distance_in), band, "yes" if o.in_arc else "no", sight, cover, why]
            for c, text in enumerate(cells):
                it = QTableWidgetItem(text)
                it.setData(Qt.ItemDataRole.UserRole, o.unit_id)
                it.setToolTip(text)
                if not o.allowed:
                    it.setForeground(QBrush(QColor(GREY)))
                    it.setFlags(it.flags() & ~Qt.ItemFlag.ItemIsSelectable)
                elif c == len(cells) - 1:
                    it.setForeground(QBrush(QColor(GREEN)))
                self.targets.setItem(r, c, it)
            if o.allowed and (first_allowed is None or o.mandatory):
                first_allowed = r
        if first_allowed is not None:
            self.targets.selectRow(first_allowed)
        else:
            self._target_picked()

    def choose_target(self, target_id: str) -> None:
        for r, o in enumerate(self._options):
            if o.unit_id == target_id:
                if not o.allowed:
                    raise RulesError(f"{self.battle.unit(target_id).name} may not be fired on: {o.why}")
                self.targets.selectRow(r)
                return
        raise RulesError(f"{target_id} is not a target of {self.battle.unit(self.firer_id()).name}")

    def _target_picked(self) -> None:
        rows = {i.row() for i in self.targets.selectedItems()}
        self._target = self._options[min(rows)].unit_id if rows else None
        self._show_volley()
        self.dice.set_check(dry_run_check(self._resolve))
        self.revalidate()

    # -- the volley -----------------------------------------------------------------------------------
    def action(self):
        from rules.shooting import Shoot

        return Shoot.on_table(self.battle, self.firer_id(), self.target_id(), self.tables)

    def _resolve(self, dice: DiceSource) -> list[Step]:
        from rules.actions import resolve

        if self.target_id() is None:
            raise RulesError("pick a target that may be fired on")
        return resolve(self.battle, self.action(), dice, self.tables).steps

    def _show_volley(self) -> None:
        from rules.shooting import plan_volley, volley_odds

        if self.target_id() is None:
            self.volley_label.setText("Pick a target that may be fired on.")
            return
        try:
            volley = self.action().volley()
            plan = plan_volley(self.battle, volley, self.tables)
            odds = volley_odds(self.battle, volley, self.tables)
        except RulesError as exc:
            self.volley_label.setText(f"<span style='color:{RED}'>{html.escape(str(exc))}</span>")
            return
        mods = ", ".join(html.escape(str(m)) for m in plan.to_hit_modifiers)
        save = "no cover save"
        if plan.save is not None:
            save = f"{volley.cover.value} cover: saves on {plan.save}+ ({html.escape(plan.save_rule or '')})"
        lines = [
            f"<b>{html.escape(plan.firer.name)}</b> at <b>{html.escape(plan.target.name)}</b>, "
            f"{inches(volley.distance_in)} ({plan.band.value} range)",
            f"Dice pool: <b>{plan.dice_pool}D6</b>"
            + (
                f" ({volley.clear_stands} stands with a clear view, RULE-03-5.3)"
                if volley.clear_stands is not None
                else ""
            ),
            f"To hit: {plan.base_to_hit}+ ({html.escape(plan.to_hit_rule)})"
            + (f", {mods}: <b>{plan.to_hit}+</b>" if mods else ""),
            f"Save: {save}",
            f"Odds: {float(odds.expected_stands_lost):.2f} stands expected; at least one stand "
            f"{float(odds.at_least(1)) * 100:.0f}%; Disorder {float(odds.disorder) * 100:.0f}%",
        ]
        lines += [f"<span style='color:#555'>{html.escape(str(n))}</span>" for n in plan.notes]
        self.volley_label.setText("<br>".join(lines))

    def problem(self) -> str | None:
        if not hasattr(self, "result"):
            return None
        if self.battle.phase != Phase.RANGED:
            msg = f"Volleys are fired in {Phase.RANGED.title}; the game is in {self.battle.phase.title}"
            self.result.setHtml(f"<p style='color:{RED}'>{html.escape(msg)}</p>")
            return msg
        if self.firer_id() is None:
            return "the active side has no unit that can fire"
        if self.target_id() is None:
            self.result.setHtml("")
            return "pick a target that may be fired on"
        p = self.dice.problem()
        if p:
            self.result.setHtml(
                f"<p style='color:{GREY}'>The result is shown when the dice are complete.</p>"
            )
            return p
        try:
            steps = self._resolve(self.dice.table_dice() or self._program_dice())
        except RulesError as exc:
            self.result.setHtml(f"<p style='color:{RED}'>{html.escape(str(exc))}</p>")
            return str(exc)
        self.result.setHtml(steps_html(steps))
        return None


# -- declaring a charge ------------------------------------------------------------------------------

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
        self.getPlotItem().showGrid(y=True, alpha=0.3)
        self.bars: list[tuple[str, float]] = []
        self._items: list = []

    def show_odds(self, odds) -> None:
        for it in self._items:
            self.removeItem(it)
        self._items = []
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
        bars = pg.BarGraphItem(x=xs, height=heights, width=0.6, brushes=brushes, pen=pg.mkPen("#333"))
        self.addItem(bars)
        self._items.append(bars)
        for x, (_, p) in zip(xs, self.bars):
            t = pg.TextItem(f"{p:.1f}%", color="#111", anchor=(0.5, 1.0))
            t.setPos(x, p + 1)
            self.addItem(t)
            self._items.append(t)
        ax = self.getPlotItem().getAxis("bottom")
        ax.setTicks([[(x, label) for x, (_, label) in zip(xs, keys)]])
        self.setXRange(-0.6, len(keys) - 0.4, padding=0)
        self.setYRange(0, max(100.0, max(heights, default=0) + 10), padding=0)


class ChargeDialog(ValidatedDialog):
    """Declare a charge: the charger, its target, the problems with their rules, and the odds."""

    def __init__(
        self,
        battle: Battle,
        tables: RuleTables,
        attacker_id: str | None = None,
        target_id: str | None = None,
        parent: QWidget | None = None,
    ):
        super().__init__("Declare charge — Phase 2", parent)
        self.setObjectName("charge_dialog")
        self.battle, self.tables = battle, tables
        self.resize(860, 680)
        lay = QVBoxLayout(self.form_host)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(_bold_title("Declare charge", self))
        form = QFormLayout()
        self.attacker = QComboBox(self)
        for u in battle.oob.in_play(battle.active_side):
            if u.kind in (UnitKind.INFANTRY, UnitKind.CAVALRY):
                self.attacker.addItem(u.name, u.id)
        self.target = QComboBox(self)
        self.assumed = QComboBox(self)
        self.assumed.setToolTip("The defender chooses at Window B; the odds are worked out for this choice")
        form.addRow("Charger", self.attacker)
        form.addRow("Target", self.target)
        form.addRow("Odds if the defender answers with", self.assumed)
        lay.addLayout(form)
        self.plan_label = QLabel(self)
        self.plan_label.setObjectName("plan")
        self.plan_label.setWordWrap(True)
        lay.addWidget(self.plan_label)
        self.problems = QLabel(self)
        self.problems.setObjectName("problems")
        self.problems.setWordWrap(True)
        self.problems.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(self.problems)
        box = QGroupBox("The odds of the charge (exact: every die is counted, nothing is sampled)", self)
        bl = QVBoxLayout(box)
        self.chart = OddsChart(box)
        bl.addWidget(self.chart, 1)
        self.expected = QLabel(box)
        self.expected.setObjectName("expected")
        self.expected.setWordWrap(True)
        bl.addWidget(self.expected)
        lay.addWidget(box, 1)
        self.odds = None
        self.odds_ms = 0.0
        self._problems: list[str] = []
        self.ok_button.setText("Declare the charge")
        self.attacker.currentIndexChanged.connect(lambda _i: self._fill_targets())
        self.target.currentIndexChanged.connect(lambda _i: self._fill_reactions())
        self.assumed.currentIndexChanged.connect(lambda _i: self.update_odds())
        if attacker_id is not None:
            _select(self.attacker, attacker_id)
        self._fill_targets(target_id)

    def attacker_id(self) -> str | None:
        return self.attacker.currentData()

    def target_id(self) -> str | None:
        return self.target.currentData()

    def set_units(self, attacker_id: str, target_id: str) -> None:
        _select(self.attacker, attacker_id)
        _select(self.target, target_id)

    def _fill_targets(self, keep: str | None = None) -> None:
        from rules.geometry import distance_in

        keep = keep or self.target_id()
        self.target.blockSignals(True)
        self.target.clear()
        a = self.attacker_id()
        if a is not None:
            au = self.battle.unit(a)
            enemies = self.battle.oob.in_play(self.battle.oob.enemy_of(au.side))
            rows = sorted((distance_in(au, e, self.tables), e) for e in enemies)
            for d, e in rows:
                self.target.addItem(f"{e.name} ({inches(d)})", e.id)
        self.target.blockSignals(False)
        if keep is not None:
            _select(self.target, keep)
        self._fill_reactions()

    def _fill_reactions(self) -> None:
        from rules import assault, reactions
        from rules.assault import Reaction as ChargeReaction

        self._problems = []
        a, t = self.attacker_id(), self.target_id()
        self.assumed.blockSignals(True)
        keep = self.assumed.currentData()
        self.assumed.clear()
        self.at = None
        if a is not None and t is not None:
            for p in assault.declaration_problems(self.battle, a, t, self.tables):
                self._problems.append(str(p))
            if not self._problems:
                try:
                    self.at = assault.to_the_line(self.battle, assault.Charge(a, t), self.tables)
                except RulesError as exc:
                    self._problems.append(str(exc))
        if self.at is not None:
            path = self.at.path
            self.plan_label.setText(
                f"{self.battle.unit(a).name} pivots {abs(path.pivot_deg):.0f} degrees and charges "
                f"{self.battle.unit(t).name}'s {path.contact.value}: {inches(path.distance_in)} to contact, "
                f"{inches(path.allowance_in)} allowed (RULE-06-1.3, 06-1.4)."
                + (f" It stops short: {self.at.early.label.lower()}." if self.at.early else "")
            )
            opts = []
            if self.at.early is None:
                threat = assault.window_b_threat(self.at, self.tables)
                screen = self.battle.unit(t).is_screen
                for r in reactions.REACTIONS_OF_WINDOW[reactions.Window.B]:
                    if (r == reactions.Reaction.EVADE) != screen:
                        continue
                    if reactions.option(self.at.battle, r, threat, self.tables).eligible:
                        opts.append((r.title, r.value))
            opts.append(("No reaction", ChargeReaction.NONE.value))
            for text, data in opts:
                self.assumed.addItem(text, data)
            if keep is not None:
                _select(self.assumed, keep)
        else:
            self.plan_label.setText("")
        self.assumed.blockSignals(False)
        if self._problems:
            self.problems.setText(
                "<b style='color:#a01010'>The charge cannot be declared:</b><ul style='margin-left:-20px'>"
                + "".join(f"<li style='color:#a01010'>{html.escape(p)}</li>" for p in self._problems)
                + "</ul>"
            )
        else:
            self.problems.setText(
                f"<span style='color:{GREEN}'>Every condition of the declaration is met.</span>"
            )
        self.update_odds()

    def update_odds(self) -> None:
        from rules.assault import Charge
        from rules.odds import charge_odds

        self.odds = None
        if self.at is None or self.assumed.currentData() is None:
            self.chart.show_odds(_NoOdds())
            self.expected.setText("")
            self.revalidate()
            return
        t0 = time.perf_counter()
        try:
            self.odds = charge_odds(
                self.battle,
                Charge(self.attacker_id(), self.target_id(), reaction=self.assumed.currentData()),
                self.tables,
            )
        except RulesError as exc:
            self.expected.setText(f"<span style='color:{RED}'>{html.escape(str(exc))}</span>")
            self.revalidate()
            return
        self.odds_ms = (time.perf_counter() - t0) * 1000
        self.chart.show_odds(self.odds)
        a, t = self.battle.unit(self.attacker_id()), self.battle.unit(self.target_id())
        self.expected.setText(
            f"Expected stands lost: <b>{html.escape(a.name)} {float(self.odds.expected_attacker_stands_lost):.2f}</b>, "
            f"<b>{html.escape(t.name)} {float(self.odds.expected_defender_stands_lost):.2f}</b> "
            f"(if {html.escape(self.assumed.currentText().lower())} at Window B)"
        )
        self.revalidate()

    def problem(self) -> str | None:
        if not hasattr(self, "expected"):
            return None
        if self.attacker_id() is None:
            return "the active side has no infantry or cavalry to charge with"
        if self.target_id() is None:
            return "there is no enemy unit to charge"
        if self._problems:
            return self._problems[0]
        return None


class _NoOdds:
    def as_percentages(self) -> dict[str, float]:
        return {}


# -- melee ---------------------------------------------------------------------------------------------


OBSTACLES = (
    None,
    TerrainType.STONE_WALL,
    TerrainType.BREASTWORKS,
    TerrainType.SUNKEN_ROAD,
    TerrainType.SPLIT_RAIL_FENCE,
    TerrainType.HEDGE,
    TerrainType.BUILDING,
    TerrainType.TOWN_WOODEN,
    TerrainType.TOWN_MASONRY,
)


def engaged_pairs(battle: Battle) -> list[tuple[str, str]]:
    """Enemy units both locked in melee (Engaged), nearest first: the melees to re-roll (RULE-06-4.2)."""
    import math

    locked = [u for u in battle.units.values() if u.in_play and u.has(Marker.ENGAGED)]
    pairs = []
    for a in locked:
        if a.side != battle.active_side:
            continue
        for d in locked:
            if d.side != a.side:
                pairs.append((math.dist((a.x, a.y), (d.x, d.y)), a.id, d.id))
    return [(a, d) for _, a, d in sorted(pairs)]


class MeleeDialog(ValidatedDialog):
    """The opposed melee roll: both shock scores line by line, the dice, the outcome and aftermath.

    ``pending`` are the melees the charges of Phase 2 left for Phase 4 (RULE-06-1.1): the umpire
    picks one (``melee_id`` picks it first), whose position the charge recorded, and the dialog
    makes a ``resolve_pending_melee`` action; :attr:`put_off_button` instead asks for the umpire's
    ruling to put it off (:attr:`ruling` is then "put_off"). The last entry of the list, or the only
    way when nothing is pending, is a melee set up by hand: the umpire sets the attacker, the
    defender and the position, and the dialog makes a ``melee`` action.

    With ``sweep_victor`` it is the second melee of a Sweeping Advance (RULE-06-4.5): the victor
    attacks the unit its advance reaches (``defender_id`` first), which counts as Disordered, and
    the dialog makes a ``sweeping_advance`` action (the pip, the advance and the melee).
    """

    BY_HAND = ""

    def __init__(
        self,
        battle: Battle,
        tables: RuleTables,
        *,
        program_dice: Callable[[], DiceSource],
        attacker_id: str | None = None,
        defender_id: str | None = None,
        pending: Sequence[PendingMelee] = (),
        melee_id: str | None = None,
        sweep_victor: str | None = None,
        parent: QWidget | None = None,
    ):
        super().__init__("Melee — Phase 4: Assault & Melee Resolution", parent)
        self.setObjectName("melee_dialog")
        self.battle, self.tables, self._program_dice = battle, tables, program_dice
        self.sweep_victor = sweep_victor
        if sweep_victor is not None:
            attacker_id, pending, melee_id = sweep_victor, (), None
        self.pending = {m.id: m for m in pending}
        self.ruling: str | None = None
        self.resize(900, 760)
        lay = QVBoxLayout(self.form_host)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(_bold_title("Opposed Melee Roll (RULE-06-3.2)", self))
        self.pending_combo = QComboBox(self)
        self.pending_combo.setObjectName("pending_melees")
        for m in self.pending.values():
            self.pending_combo.addItem(describe_melee(battle, m), m.id)
        self.pending_combo.addItem("Another melee, set up by hand", self.BY_HAND)
        prow = QHBoxLayout()
        n = len(self.pending)
        prow.addWidget(
            QLabel(f"<b>Melees pending</b> from Phase 2 charges (RULE-06-1.1): {n}", self)
            if n
            else QLabel("No melee is pending from a charge.", self)
        )
        prow.addWidget(self.pending_combo, 1)
        self.pending_row = QWidget(self)
        self.pending_row.setLayout(prow)
        lay.addWidget(self.pending_row)
        self.pending_row.setVisible(bool(self.pending))
        self.put_off_button = self.buttons.addButton(
            "Put off (umpire's ruling)…", QDialogButtonBox.ButtonRole.ActionRole
        )
        self.put_off_button.setToolTip(
            "Put this melee off to the next game turn's Melee Phase, with a reason for the log"
        )
        self.put_off_button.clicked.connect(self._put_off)
        self.put_off_button.setVisible(False)
        self.setup = QGroupBox("The melee", self)
        form = QFormLayout(self.setup)
        self.attacker = QComboBox(self)
        self.defender = QComboBox(self)
        self.contact = QComboBox(self)
        for c in Contact:
            self.contact.addItem(c.label, c.value)
        self.momentum = QDoubleSpinBox(self)
        self.momentum.setRange(0.0, 24.0)
        self.momentum.setDecimals(1)
        self.momentum.setSuffix('" across open ground this turn')
        self.obstacle = QComboBox(self)
        for o in OBSTACLES:
            self.obstacle.addItem("none" if o is None else o.label, None if o is None else o.value)
        self.crest = QCheckBox("defender on the crest", self)
        self.downhill = QCheckBox("attacker charges downhill from the crest", self)
        self.abatis = QCheckBox("attacker came through abatis", self)
        self.routed = QCheckBox("defender routed (for a breakthrough)", self)
        self.counts_disordered = QCheckBox("defender counts as Disordered (sweeping advance)", self)
        form.addRow("Attacker", self.attacker)
        form.addRow("Defender", self.defender)
        form.addRow("Contact", self.contact)
        form.addRow("Charge", self.momentum)
        form.addRow("Defender behind", self.obstacle)
        checks = QHBoxLayout()
        for w in (self.crest, self.downhill, self.abatis, self.routed, self.counts_disordered):
            checks.addWidget(w)
        form.addRow(checks)
        if sweep_victor is not None:
            self.setWindowTitle("Sweeping Advance — the second melee (RULE-06-4.5)")
            self.attacker.setEnabled(False)
            for w in (self.momentum, self.crest, self.downhill, self.abatis, self.routed):
                w.setEnabled(False)
            self.counts_disordered.setChecked(True)
            self.counts_disordered.setEnabled(False)
        lay.addWidget(self.setup)
        self.situation_label = QLabel(self)
        self.situation_label.setWordWrap(True)
        lay.addWidget(self.situation_label)
        scores = QHBoxLayout()
        self.side_boxes: list[QGroupBox] = []
        self.side_labels: list[QLabel] = []
        for title in ("Attacker", "Defender"):
            gb = QGroupBox(title, self)
            lab = QLabel(gb)
            lab.setTextFormat(Qt.TextFormat.RichText)
            lab.setWordWrap(True)
            lab.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            QVBoxLayout(gb).addWidget(lab)
            scores.addWidget(gb, 1)
            self.side_boxes.append(gb)
            self.side_labels.append(lab)
        lay.addLayout(scores, 1)
        self.notes = QLabel(self)
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #555;")
        lay.addWidget(self.notes)
        self.cons_box = QGroupBox("The victor's consolidation (RULE-06-4.4)", self)
        cl = QGridLayout(self.cons_box)
        self.cons_default = QCheckBox(
            "as the rules have it: a victorious attacker advances, a victorious defender holds", self
        )
        self.cons_default.setChecked(True)
        self.cons_advance = QDoubleSpinBox(self)
        self.cons_advance.setRange(0.0, float(tables.value("melee.outcome.consolidation_in")))
        self.cons_advance.setSuffix('" advance')
        self.cons_pivot = QDoubleSpinBox(self)
        lim = float(tables.value("melee.outcome.consolidation_pivot_deg"))
        self.cons_pivot.setRange(-lim, lim)
        self.cons_pivot.setSuffix("° pivot")
        cl.addWidget(self.cons_default, 0, 0, 1, 2)
        cl.addWidget(self.cons_pivot, 1, 0)
        cl.addWidget(self.cons_advance, 1, 1)
        lay.addWidget(self.cons_box)
        db = QGroupBox("Dice: the attacker's shock die, the defender's, then any Leader Loss roll", self)
        self.dice = DiceEntry(db)
        QVBoxLayout(db).addWidget(self.dice)
        lay.addWidget(db)
        self.outcome = QLabel(self)
        self.outcome.setObjectName("outcome")
        self.outcome.setWordWrap(True)
        lay.addWidget(self.outcome)
        self.result = QTextBrowser(self)
        self.result.setObjectName("result")
        self.result.setMinimumHeight(130)
        lay.addWidget(self.result, 1)
        self.ok_button.setText("Resolve the melee")
        self._rolls: dict[str, int] = {}
        self.cons_advance.setValue(float(tables.value("melee.outcome.consolidation_in")))
        for u in battle.oob.in_play(battle.active_side):
            self.attacker.addItem(u.name, u.id)
        pairs = engaged_pairs(battle)
        self.situation_note = (
            "Locked melees (Engaged, RULE-06-4.2): "
            + ", ".join(f"{battle.unit(a).name} against {battle.unit(d).name}" for a, d in pairs)
            if pairs
            else "No melee is locked: set up the melee by hand."
        )
        first = (attacker_id, defender_id) if attacker_id else (pairs[0] if pairs else (None, None))
        if first[0] is not None:
            _select(self.attacker, first[0])
        self._fill_defenders(first[1])
        self.attacker.currentIndexChanged.connect(lambda _i: self._fill_defenders())
        for w in (self.defender, self.contact, self.obstacle):
            w.currentIndexChanged.connect(lambda *_: self.revalidate())
        self.momentum.valueChanged.connect(lambda *_: self.revalidate())
        for w in (self.crest, self.downhill, self.abatis, self.routed, self.counts_disordered):
            w.toggled.connect(lambda *_: self.revalidate())
        first_due = next((m.id for m in self.pending.values() if is_due(battle, m)), None)
        pick = melee_id if melee_id in self.pending else first_due
        if pick is not None and attacker_id is None:
            _select(self.pending_combo, pick)
        else:
            _select(self.pending_combo, self.BY_HAND)
        self.pending_combo.currentIndexChanged.connect(lambda _i: self._pending_picked())
        self._pending_picked(check=False)
        for w in (self.cons_default,):
            w.toggled.connect(lambda *_: self.revalidate())
        for w in (self.cons_advance, self.cons_pivot):
            w.valueChanged.connect(lambda *_: self.revalidate())
        self.dice.set_check(dry_run_check(lambda d: self._resolve(d)))
        self.dice.changed.connect(self.revalidate)
        self.revalidate()

    # -- the position ------------------------------------------------------------------------------
    def _fill_defenders(self, keep: str | None = None) -> None:
        import math

        keep = keep or self.defender.currentData()
        self.defender.blockSignals(True)
        self.defender.clear()
        a = self.attacker.currentData()
        if a is not None:
            au = self.battle.unit(a)
            enemies = self.battle.oob.in_play(self.battle.oob.enemy_of(au.side))
            for u in sorted(enemies, key=lambda e: (math.dist((au.x, au.y), (e.x, e.y)), e.id)):
                self.defender.addItem(u.name, u.id)
        self.defender.blockSignals(False)
        if keep is not None:
            _select(self.defender, keep)
        self.revalidate()

    def set_units(self, attacker_id: str, defender_id: str) -> None:
        _select(self.pending_combo, self.BY_HAND)
        _select(self.attacker, attacker_id)
        self._fill_defenders(defender_id)

    # -- the pending melees ------------------------------------------------------------------------
    def pending_melee(self) -> PendingMelee | None:
        """The pending melee chosen, or None for a melee set up by hand."""
        return self.pending.get(self.pending_combo.currentData())

    def choose_pending(self, melee_id: str) -> None:
        if melee_id not in self.pending:
            raise RulesError(f"there is no melee '{melee_id}' waiting to be resolved")
        _select(self.pending_combo, melee_id)

    def _pending_picked(self, check: bool = True) -> None:
        pm = self.pending_melee()
        self.setup.setVisible(pm is None)
        self.cons_box.setVisible(pm is not None)
        self.put_off_button.setVisible(pm is not None)
        if check:
            self.dice.set_check(dry_run_check(lambda d: self._resolve(d)))
            self.revalidate()

    def _put_off(self) -> None:
        if self.pending_melee() is None:
            return
        self.ruling = "put_off"
        self.done(QDialog.DialogCode.Accepted)

    def situation(self) -> MeleeSituation:
        pm = self.pending_melee()
        if pm is not None:
            return pm.situation
        return self.action().situation()

    def action(self) -> MeleeAction | ResolvePendingMelee | SweepingAdvance:
        if self.sweep_victor is not None:
            d = self.defender.currentData()
            if d is None:
                raise RulesError("choose the unit the sweeping advance reaches")
            return SweepingAdvance(
                self.sweep_victor,
                d,
                contact=self.contact.currentData(),
                defender_obstacle=self.obstacle.currentData(),
            )
        pm = self.pending_melee()
        if pm is not None:
            c = self.consolidation_inputs()
            return ResolvePendingMelee(pm.id, c.get("advance_in"), c.get("pivot_deg"))
        a, d = self.attacker.currentData(), self.defender.currentData()
        if a is None or d is None:
            raise RulesError("choose the attacker and the defender")
        return MeleeAction(
            a,
            d,
            contact=self.contact.currentData(),
            momentum_in=float(self.momentum.value()),
            defender_obstacle=self.obstacle.currentData(),
            defender_on_crest=self.crest.isChecked(),
            attacker_downhill_from_crest=self.downhill.isChecked(),
            through_abatis=self.abatis.isChecked(),
            defender_routed=self.routed.isChecked(),
            defender_counts_disordered=self.counts_disordered.isChecked(),
        )

    def consolidation_inputs(self) -> dict[str, float]:
        if self.pending_melee() is None or self.cons_default.isChecked():
            return {}
        return {"advance_in": float(self.cons_advance.value()), "pivot_deg": float(self.cons_pivot.value())}

    def _resolve(self, dice: DiceSource) -> list[Step]:
        from rules.actions import resolve

        return list(resolve(self.battle, self.action(), dice, self.tables).steps)

    # -- the scores ------------------------------------------------------------------------------------
    def _fit_side_labels(self) -> None:
        """Word-wrapped labels in group boxes do not ask for their height: give each the height its
        text needs at the width it has, so no line of a shock score is ever cut off."""
        for lab in self.side_labels:
            width = max(lab.width(), (self.width() - 80) // 2, 300)
            lab.setMinimumHeight(lab.heightForWidth(width))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit_side_labels()

    def _side_html(self, side: ShockSide, die: int | None) -> str:
        u = self.battle.unit(side.unit)
        rows = [
            f"<tr><td>1D6</td><td align='right'><b>{die if die is not None else '?'}</b></td><td></td></tr>",
            f"<tr><td>Engaged stands</td><td align='right'><b>{side.engaged}</b></td>"
            f"<td style='color:#555'>{html.escape(side.engaged_text)}</td></tr>",
        ]
        for m in side.modifiers:
            rows.append(
                f"<tr><td>{html.escape(m.label)}</td><td align='right'><b>{m.value:+d}</b></td>"
                f"<td style='color:#555'>{html.escape(m.rule or '')}</td></tr>"
            )
        total = "?" if die is None else str(die + side.base)
        rows.append(
            f"<tr><td><b>Shock score</b></td><td align='right' style='font-size:14pt'><b>{total}</b></td>"
            f"<td style='color:#555'>{'' if die is not None else f'{side.base} + the die'}</td></tr>"
        )
        return (
            f"<b>{html.escape(unit_line(self.battle, u.id))}</b><table cellspacing='4'>"
            + "".join(rows)
            + "</table>"
        )

    def problem(self) -> str | None:
        if not hasattr(self, "result"):
            return None
        self.cons_advance.setEnabled(not self.cons_default.isChecked())
        self.cons_pivot.setEnabled(not self.cons_default.isChecked())
        try:
            s = self.situation()
            sa, sd, notes = shock_sides(self.battle, s, self.tables)
        except RulesError as exc:
            for lab in self.side_labels:
                lab.setText("")
            self.result.setHtml(f"<p style='color:{RED}'>{html.escape(str(exc))}</p>")
            return str(exc)
        a, d = self.battle.unit(s.attacker), self.battle.unit(s.defender)
        pm = self.pending_melee()
        self.side_boxes[0].setTitle(f"Attacker: {a.name}")
        self.side_boxes[1].setTitle(f"Defender: {d.name}")
        note = getattr(self, "situation_note", "") if pm is None else ""
        if pm is not None:
            note = f"Pending since the charge of turn {pm.turn}" + (", locked by a tie" if pm.locked else "")
        self.situation_label.setText(
            (f"<i>{html.escape(note)}</i><br>" if note else "")
            + f"{html.escape(a.name)} against {html.escape(d.name)}'s {s.contact.value}"
            + (f', {round(s.momentum_in, 1):g}" charge' if s.momentum_in else "")
            + (f", behind {s.defender_obstacle.label.lower()}" if s.defender_obstacle else "")
            + (", after a counter-charge" if s.counter_charge else "")
        )
        self.notes.setText("<br>".join(html.escape(n) for n in notes))
        p = self.dice.problem()
        dice = None
        steps: list[Step] = []
        if not p:
            try:
                dice = self.dice.table_dice() or self._program_dice()
                steps = self._resolve(dice)
            except RulesError as exc:
                p = str(exc)
        rolled = {r.purpose: r.dice[0] for r in (dice.rolls if dice is not None and not p else ()) if r.dice}
        self.side_labels[0].setText(self._side_html(sa, rolled.get("attacker shock roll")))
        self.side_labels[1].setText(self._side_html(sd, rolled.get("defender shock roll")))
        self._fit_side_labels()
        if p:
            self.outcome.setText("")
            self.result.setHtml(
                f"<p style='color:{GREY}'>The result is shown when the dice are complete.</p>"
            )
            return p
        da, dd = rolled.get("attacker shock roll"), rolled.get("defender shock roll")
        if da is not None and dd is not None:
            sa_total, sd_total = da + sa.base, dd + sd.base
            if sa_total > sd_total:
                verdict = f"{a.name} wins {sa_total} to {sd_total}"
            elif sd_total > sa_total:
                verdict = f"{d.name} wins {sd_total} to {sa_total}"
            else:
                verdict = f"Tie {sa_total} to {sd_total}"
            self.outcome.setText(
                f"<span style='font-size:14pt; font-weight:bold'>{html.escape(verdict)}</span>"
            )
        self.result.setHtml(steps_html(steps))
        return None


# -- buildings: a garrison (Phase 2) and artillery fire at one (Phase 3) -----------------------------


def _buildings(battle: Battle) -> list:
    """The buildings on the table, by name."""
    return sorted(
        (f for f in battle.terrain if f.type == TerrainType.BUILDING), key=lambda f: (f.name or f.id, f.id)
    )


def _nearest_building(battle: Battle, unit_id: str | None) -> str | None:
    import shapely
    from shapely.geometry import Point, Polygon

    found = _buildings(battle)
    if not found or unit_id not in battle.units:
        return found[0].id if found else None
    u = battle.unit(unit_id)
    return min(found, key=lambda f: float(shapely.distance(Polygon(f.points), Point(u.x, u.y)))).id


def _garrison_text(battle: Battle, feature_id: str, tables: RuleTables) -> str:
    from rules.shooting import garrison_of

    inside = garrison_of(battle, feature_id, tables)
    if not inside:
        return "empty"
    return "held by " + ", ".join(
        f"{u.name} ({u.stands} stand{'s' if u.stands != 1 else ''}, {battle.oob.side(u.side).name})"
        for u in inside
    )


class _BuildingDialog(ValidatedDialog):
    """A unit of the active side, a building, what the rules say of the pair, and the result."""

    unit_label = "Unit"

    def __init__(
        self,
        title: str,
        heading: str,
        battle: Battle,
        tables: RuleTables,
        units: Sequence,
        unit_id: str | None,
        feature_id: str | None,
        parent: QWidget | None,
        program_dice: Callable[[], DiceSource] | None = None,
    ):
        super().__init__(title, parent)
        self.battle, self.tables, self._program_dice = battle, tables, program_dice
        self.resize(640, 460)
        lay = QVBoxLayout(self.form_host)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(_bold_title(heading, self))
        form = QFormLayout()
        self.unit_combo = QComboBox(self)
        self.unit_combo.setObjectName("building_unit")
        for u in units:
            self.unit_combo.addItem(
                f"{u.name} ({u.stands} {'sections' if u.kind == UnitKind.ARTILLERY else 'stands'})", u.id
            )
        self.building_combo = QComboBox(self)
        self.building_combo.setObjectName("building")
        for f in _buildings(battle):
            self.building_combo.addItem(f.name or f.id, f.id)
        if unit_id is not None:
            _select(self.unit_combo, unit_id)
        _select(self.building_combo, feature_id or _nearest_building(battle, self.unit_id()))
        form.addRow(self.unit_label, self.unit_combo)
        form.addRow("Building", self.building_combo)
        lay.addLayout(form)
        self.info = QLabel(self)
        self.info.setObjectName("building_info")
        self.info.setWordWrap(True)
        self.info.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(self.info)
        self._build_extra(lay)
        self.result = QTextBrowser(self)
        self.result.setObjectName("result")
        self.result.setMinimumHeight(110)
        lay.addWidget(self.result, 1)
        self.unit_combo.currentIndexChanged.connect(lambda _i: self._changed())
        self.building_combo.currentIndexChanged.connect(lambda _i: self._changed())
        self._changed()

    def _build_extra(self, lay: QVBoxLayout) -> None:
        """More widgets under the info line (the dice, for a bombardment)."""

    def unit_id(self) -> str | None:
        return self.unit_combo.currentData()

    def feature_id(self) -> str | None:
        return self.building_combo.currentData()

    def set_choice(self, unit_id: str, feature_id: str) -> None:
        """Pick the unit and the building (as the umpire would in the two lists)."""
        for combo, data, what in (
            (self.unit_combo, unit_id, "unit"),
            (self.building_combo, feature_id, "building"),
        ):
            i = combo.findData(data)
            if i < 0:
                raise RulesError(f"there is no {what} {data!r} to choose in this dialog")
            combo.setCurrentIndex(i)
        self._changed()

    def _action_class(self) -> type:
        from rules.shooting import GarrisonBuilding

        return GarrisonBuilding

    def action(self):
        """The action the dialog makes: ``GarrisonBuilding`` or ``BombardBuilding``."""
        return self._action_class()(self.unit_id(), self.feature_id())

    def _resolve(self, dice: DiceSource) -> list[Step]:
        from rules.actions import resolve

        return resolve(self.battle, self.action(), dice, self.tables).steps

    def _describe(self) -> str:
        feat = self.battle.feature(self.feature_id())
        cap = self.tables.entry("shooting.buildings.garrison_stands")
        per = self.tables.entry("shooting.buildings.structural_hits_to_collapse")
        return (
            f"<b>{html.escape(feat.name or feat.id)}</b>: {html.escape(_garrison_text(self.battle, feat.id, self.tables))}; "
            f"holds at most {cap.value} stands ({html.escape(cap.citation)}); "
            f"{feat.structural_hits} of {per.value} structural hits ({html.escape(per.citation)})."
        )

    def _changed(self) -> None:
        if self.unit_id() is None or self.feature_id() is None:
            self.info.setText("")
        else:
            self.info.setText(self._describe())
        self.revalidate()

    def _dice(self) -> DiceSource:
        from rules.dice import TableDice

        return TableDice([])

    def _dice_problem(self) -> str | None:
        return None

    def problem(self) -> str | None:
        if not hasattr(self, "result"):
            return None
        if self.unit_id() is None:
            return f"the active side has no {self.unit_label.lower()} for this"
        if self.feature_id() is None:
            return "there is no building on the table"
        try:
            self._resolve(self._dice_for_check())
        except RulesError as exc:
            self.result.setHtml(f"<p style='color:{RED}'>{html.escape(str(exc))}</p>")
            return str(exc)
        p = self._dice_problem()
        if p:
            self.result.setHtml(
                f"<p style='color:{GREY}'>The result is shown when the dice are complete.</p>"
            )
            return p
        from rules.actions import resolve

        try:
            done = resolve(self.battle, self.action(), self._dice(), self.tables)
        except RulesError as exc:
            self.result.setHtml(f"<p style='color:{RED}'>{html.escape(str(exc))}</p>")
            return str(exc)
        self.result.setHtml(f"<p><b>{html.escape(done.summary)}</b></p>" + steps_html(done.steps))
        return None

    def _dice_for_check(self) -> DiceSource:
        """Dice enough for any resolution, to see whether the rules allow the action at all."""
        from rules.dice import TableDice

        return TableDice([1] * 200)


class GarrisonDialog(_BuildingDialog):
    """Phase 2: a unit of the active side occupies a building it touches (RULE-03-3.1).

    Up to 2 stands of infantry or dismounted cavalry, counting any garrison already inside; no
    dice. The dialog shows the building's garrison and the limit, and the OK button stays disabled
    with the rule while the rules refuse the pair.
    """

    def __init__(
        self,
        battle: Battle,
        tables: RuleTables,
        unit_id: str | None = None,
        feature_id: str | None = None,
        parent: QWidget | None = None,
    ):
        from rules.model import Formation

        units = sorted(
            (
                u
                for u in battle.units.values()
                if u.in_play
                and u.side == battle.active_side
                and (
                    u.kind == UnitKind.INFANTRY
                    or (u.kind == UnitKind.CAVALRY and u.formation == Formation.DISMOUNTED)
                )
            ),
            key=lambda u: (u.name, u.id),
        )
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


class BombardDialog(_BuildingDialog):
    """Phase 3: a battery of the active side fires at an enemy-held building (RULE-03-3.2).

    2D6 a section hitting on 4+, the building's save, every 2 unsaved hits a structural hit and a
    collapse into rubble at 4. The dice are the program's or typed (:class:`DiceEntry`): the hit
    dice, then the building's saves. The result is shown before it is applied.
    """

    unit_label = "Battery"

    def __init__(
        self,
        battle: Battle,
        tables: RuleTables,
        *,
        program_dice: Callable[[], DiceSource],
        battery_id: str | None = None,
        feature_id: str | None = None,
        parent: QWidget | None = None,
    ):
        guns = sorted(
            (
                u
                for u in battle.units.values()
                if u.in_play and u.side == battle.active_side and u.kind == UnitKind.ARTILLERY
            ),
            key=lambda u: (u.name, u.id),
        )
        if battery_id is not None and battery_id in battle.units and all(u.id != battery_id for u in guns):
            guns.insert(0, battle.unit(battery_id))
        if feature_id is None and battery_id is None:
            feature_id = next(
                (f.id for f in _buildings(battle) if self._enemy_held(battle, f.id, tables)), None
            )
        super().__init__(
            "Bombard a building — Phase 3: Ranged Combat",
            "Artillery against a building (RULE-03-3.2)",
            battle,
            tables,
            guns,
            battery_id,
            feature_id,
            parent,
            program_dice,
        )
        self.setObjectName("bombard_dialog")

    def _action_class(self) -> type:
        from rules.shooting import BombardBuilding

        return BombardBuilding

    @staticmethod
    def _enemy_held(battle: Battle, feature_id: str, tables: RuleTables) -> bool:
        from rules.shooting import garrison_of

        return any(u.side != battle.active_side for u in garrison_of(battle, feature_id, tables))

    def _build_extra(self, lay: QVBoxLayout) -> None:
        db = QGroupBox("Dice: the hit dice (2D6 a section), then the building's saves", self)
        self.dice = DiceEntry(db)
        QVBoxLayout(db).addWidget(self.dice)
        lay.addWidget(db)
        self.dice.set_check(dry_run_check(self._resolve))
        self.dice.changed.connect(self.revalidate)

    def _describe(self) -> str:
        hit = self.tables.entry("shooting.to_hit.building.artillery")
        cover = self.tables.entry("terrain.matrix.building.cover")
        save = self.tables.save(str(cover.value))
        return (
            super()._describe()
            + f"<br>Hits on <b>{hit.value}+</b> ({html.escape(hit.citation)}); the building saves on "
            f"{save.value}+ ({html.escape(str(cover.value))} cover, {html.escape(cover.citation)}); every 2 "
            "unsaved hits make a structural hit, and the building collapses into rubble on its garrison at "
            f"{self.tables.value('shooting.buildings.structural_hits_to_collapse')}."
        )

    def _changed(self) -> None:
        if hasattr(self, "dice"):
            self.dice.set_check(dry_run_check(self._resolve))
        super()._changed()

    def _dice(self) -> DiceSource:
        return self.dice.table_dice() or self._program_dice()

    def _dice_problem(self) -> str | None:
        return self.dice.problem()
