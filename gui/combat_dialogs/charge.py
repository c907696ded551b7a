"""Declaring a charge: the charger and its target, every unmet condition of the declaration with its
rule id, the charge path, and the exact odds of the charge as a bar chart."""

from __future__ import annotations

import html
import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from gui.combat_dialogs.common import GREEN, RED, bold_title, select
from gui.combat_dialogs.odds_chart import OddsChart
from gui.reaction_dialog import inches
from gui.validated_dialog import ValidatedDialog
from rules.battle.battle import Battle
from rules.errors import RulesError
from rules.legality import Option, Refusal, allowed, charge_targets, reactions_open
from rules.tables import RuleTables


class ChargeDialog(ValidatedDialog):
    """Declare a charge: the charger, its target, the problems with their rules, and the odds.

    The targets are the enemy units, nearest first, each with what the rules say of a charge at it
    (:func:`rules.legality.charge_targets`); unless a target is asked for, the nearest one that may
    be charged is chosen. The defender's answers the odds may assume are the reactions open to it at
    Window B (:func:`rules.legality.reactions_open`).
    """

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
        lay.addWidget(bold_title("Declare charge", self))
        form = QFormLayout()
        self.attacker = QComboBox(self)
        self.attacker.setObjectName("charger")
        self.target = QComboBox(self)
        self.target.setObjectName("target")
        self._charges: dict[str, Option] = {}
        self.assumed = QComboBox(self)
        for combo in (self.attacker, self.target):
            # as wide as a long name, without measuring each of a big battle's units to find out
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(34)
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
        self.chart = kept_chart(box)  # one chart for every Charge dialog: a new one costs ~150 ms
        bl.addWidget(self.chart, 1)
        # a charge that cannot be declared has no odds: the chart gives way to why
        self.no_odds = QLabel(box)
        self.no_odds.setObjectName("no_odds")
        self.no_odds.setWordWrap(True)
        self.no_odds.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.no_odds.setVisible(False)
        bl.addWidget(self.no_odds, 1)
        self.expected = QLabel(box)
        self.expected.setObjectName("expected")
        self.expected.setWordWrap(True)
        bl.addWidget(self.expected)
        lay.addWidget(box, 1)
        self.odds = None
        self.odds_ms = 0.0
        self._problems: list[str] = []
        self.ok_button.setText("Declare the charge")
        self._chargers: list[tuple[str, str]] = []
        self.fill(battle, tables, attacker_id, target_id)
        # the choices the umpire makes from now on fill what follows from them
        self.attacker.currentIndexChanged.connect(lambda _i: self._fill_targets())
        self.target.currentIndexChanged.connect(lambda _i: self._fill_reactions())
        self.assumed.currentIndexChanged.connect(lambda _i: self.update_odds())
        if parent is None:  # not kept: its chart is, for the next one
            self.finished.connect(lambda _r: give_back_chart(self.chart))

    def fill(
        self, battle: Battle, tables: RuleTables, attacker_id: str | None = None, target_id: str | None = None
    ) -> None:
        """Show the charges of ``battle``: its chargers, ``attacker_id`` chosen (else the first),
        and its targets, ``target_id`` chosen (else the nearest it may charge), with the reactions
        and the odds of the choice, each worked out once (a kept dialog is filled again so)."""
        from rules.assault.declaration import CHARGING_KINDS

        self.battle, self.tables = battle, tables
        self.attacker.blockSignals(True)
        chargers = [
            (u.name, u.id) for u in battle.oob.in_play(battle.active_side) if u.kind in CHARGING_KINDS
        ]
        if chargers != self._chargers:  # (the same chargers as the charge before: the list stands)
            self._chargers = chargers
            self.attacker.clear()
            for name, uid in chargers:
                self.attacker.addItem(name, uid)
        if attacker_id is not None:
            select(self.attacker, attacker_id)
        self.attacker.blockSignals(False)
        self.target.blockSignals(True)
        self.target.clear()  # (the targets of another battle are not kept)
        self.target.blockSignals(False)
        self._fill_targets(target_id)  # once: the targets, the reactions and the odds of the choice

    def attacker_id(self) -> str | None:
        return self.attacker.currentData()

    def target_id(self) -> str | None:
        return self.target.currentData()

    def set_units(self, attacker_id: str, target_id: str) -> None:
        select(self.attacker, attacker_id)
        select(self.target, target_id)

    def _fill_targets(self, keep: str | None = None) -> None:
        """List the attacker's possible targets, nearest first, and choose ``keep``; failing that the
        target chosen before, if the new attacker may charge it; failing that the nearest target
        the attacker may charge (or the nearest of all, when it may charge none)."""
        before = self.target_id()
        self.target.blockSignals(True)
        self.target.clear()
        a = self.attacker_id()
        options = charge_targets(self.battle, a, self.tables) if a is not None else ()
        self._charges = {o.unit_id: o for o in options}
        for o in options:
            self.target.addItem(f"{self.battle.unit(o.unit_id).name} ({inches(o.distance_in)})", o.unit_id)
        first = next((o.unit_id for o in options if o.allowed), None)
        if keep not in self._charges:
            keep = before if before in self._charges and self._charges[before].allowed else first
        if keep is not None:
            select(self.target, keep)
        self.target.blockSignals(False)
        self._fill_reactions()  # once, for the target chosen

    def _fill_reactions(self) -> None:
        from rules.assault import charge as assault
        from rules.assault.charge import ChargeReaction
        from rules.reactions import declare as reactions

        self._problems = []
        a, t = self.attacker_id(), self.target_id()
        self.assumed.blockSignals(True)
        keep = self.assumed.currentData()
        self.assumed.clear()
        self.at = None
        if a is not None and t is not None:
            charge = self._charges.get(t)
            if isinstance(charge, Refusal):
                self._problems = [str(r) for r in charge.reasons]
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
                f"{inches(path.allowance_in)} allowed (RULE-06-1.3, RULE-06-1.4)."
                + (f" It stops short: {self.at.early.label.lower()}." if self.at.early else "")
            )
            opts = []
            if self.at.early is None:
                threat = assault.window_b_threat(self.at, self.tables)
                for o in allowed(reactions_open(self.at.battle, t, threat, self.tables)):
                    opts.append((reactions.Reaction(o.action).title, o.action))
            opts.append(("No reaction", ChargeReaction.NONE.value))
            for text, data in opts:
                self.assumed.addItem(text, data)
            if keep is not None:
                select(self.assumed, keep)
        else:
            self.plan_label.setText("")
        self.assumed.blockSignals(False)
        if self._problems:
            self.problems.setText(
                f"<b style='color:{RED}'>The charge cannot be declared:</b><ul style='margin-left:-20px'>"
                + "".join(f"<li style='color:{RED}'>{html.escape(p)}</li>" for p in self._problems)
                + "</ul>"
            )
        else:
            self.problems.setText(
                f"<span style='color:{GREEN}'>Every condition of the declaration is met.</span>"
            )
        self.update_odds()

    def update_odds(self) -> None:
        from rules.assault.charge import Charge
        from rules.odds import charge_odds

        self.odds = None
        if self.at is None or self.assumed.currentData() is None:
            why = self._problems[0] if self._problems else "choose a charger and a target"
            self._show_no_odds(f"No odds: the charge cannot be declared — {why}.")
            self.revalidate()
            return
        t0 = time.perf_counter()
        try:
            self.odds = charge_odds(
                self.battle,
                Charge(self.attacker_id(), self.target_id(), reaction=self.assumed.currentData()),
                self.tables,
                at=self.at,  # the charge at the line, worked out once for the dialog
            )
        except RulesError as exc:
            self._show_no_odds(f"No odds: {exc}")
            self.revalidate()
            return
        self.odds_ms = (time.perf_counter() - t0) * 1000
        self.chart.setVisible(True)
        self.no_odds.setVisible(False)
        self.chart.show_odds(self.odds)
        a, t = self.battle.unit(self.attacker_id()), self.battle.unit(self.target_id())
        self.expected.setText(
            f"Expected stands lost: <b>{html.escape(a.name)} {float(self.odds.expected_attacker_stands_lost):.2f}</b>, "
            f"<b>{html.escape(t.name)} {float(self.odds.expected_defender_stands_lost):.2f}</b> "
            f"(if {html.escape(self.assumed.currentText().lower())} at Window B)"
        )
        self.revalidate()

    def _show_no_odds(self, text: str) -> None:
        """No chart (an empty one would read 0%): the reason there are no odds, in its place."""
        self.chart.show_odds(_NoOdds())
        self.chart.setVisible(False)
        self.no_odds.setText(text)
        self.no_odds.setVisible(True)
        self.expected.setText("")

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


# The Charge dialog of each window, kept between the charges declared in it: made once (its
# widgets and its odds chart: pyqtgraph's PlotWidget takes about 150 ms to build), filled again
# for each charge (ChargeDialog.fill).
_KEPT_DIALOGS: dict[int, ChargeDialog] = {}


def charge_dialog(
    battle: Battle,
    tables: RuleTables,
    attacker_id: str | None = None,
    target_id: str | None = None,
    parent: QWidget | None = None,
) -> ChargeDialog:
    """The Charge dialog of ``parent`` filled for ``battle`` (made the first time it is asked for,
    and again once the window that held it is gone)."""
    from shiboken6 import isValid

    dlg = _KEPT_DIALOGS.get(id(parent))
    if dlg is not None and isValid(dlg) and dlg.parent() is parent and not dlg.isVisible():
        dlg.fill(battle, tables, attacker_id, target_id)
        return dlg
    dlg = ChargeDialog(battle, tables, attacker_id, target_id, parent)
    if parent is not None:
        _KEPT_DIALOGS[id(parent)] = dlg
    return dlg


# The odds chart of a Charge dialog made without a window to keep it (hidden, with no parent)
# once the first is made.
_KEPT_CHARTS: list = []


def kept_chart(parent: QWidget):
    """The kept odds chart, given to ``parent`` (a new one the first time, or when it is in use)."""
    from shiboken6 import isValid

    while _KEPT_CHARTS:
        chart = _KEPT_CHARTS.pop()
        if isValid(chart):
            chart.setParent(parent)
            chart.setVisible(True)
            return chart
    return OddsChart(parent)


def give_back_chart(chart) -> None:
    """Keep ``chart`` for the next Charge dialog (its dialog is done with it)."""
    from shiboken6 import isValid

    if isValid(chart) and chart not in _KEPT_CHARTS:
        chart.setParent(None)
        chart.hide()
        _KEPT_CHARTS.append(chart)


class _NoOdds:
    def as_percentages(self) -> dict[str, float]:
        return {}
