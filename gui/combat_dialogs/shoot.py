"""Phase 3 Ranged Combat: a firer, its targets with the reason each may or may not be fired on, the
volley's numbers and odds, the dice, and what the volley may do before it is fired: its exact
chances while the program is to roll (the program's dice roll only on Fire), or the result of the
dice typed at the table."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
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

from gui.combat_dialogs.common import GREEN, RED, bold_title, select
from gui.dice_entry import DiceEntry, dry_run_check
from gui.reaction_dialog import GREY, chances_html, inches, steps_html
from gui.validated_dialog import ValidatedDialog
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.words import Phase
from rules.chances import Chances, chances_of
from rules.dice import DiceSource
from rules.errors import RulesError
from rules.legality import allowed, may_fire, shoot_firers_with_targets, shoot_targets
from rules.tables import RuleTables


class ShootDialog(ValidatedDialog):
    """Phase 3 Ranged Combat: a firer, its legal targets, the volley, the dice and the result.

    Only the units that may fire now are offered as firers, and each enemy is listed with the
    reason it may or may not be fired on: both are asked of the rules (:mod:`rules.legality`). A
    ``firer_id`` that may not fire is not offered; the dialog says why.
    """

    COLUMNS = ["Target", "Range", "Band", "Arc", "Line of sight", "Cover", "May fire?"]

    def __init__(
        self,
        battle: Battle,
        tables: RuleTables,
        *,
        firer_id: str | None = None,
        parent: QWidget | None = None,
    ):
        super().__init__("Shoot — Phase 3: Ranged Combat", parent)
        self.setObjectName("shoot_dialog")
        self.battle, self.tables = battle, tables
        self._chances: dict[object, Chances] = {}
        self.resize(940, 700)
        lay = QVBoxLayout(self.form_host)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(bold_title("Shoot — Phase 3: Ranged Combat", self))
        row = QHBoxLayout()
        row.addWidget(QLabel("Firer:", self))
        self.firer = QComboBox(self)
        self.firer.setObjectName("firer")
        # only the units that may fire now, at an enemy in their arc, range and sight, are offered
        # (the rules say which, rules.legality); why any other may not is said when it is asked for
        self._firers = {o.unit_id: o for o in shoot_firers_with_targets(battle, tables)}
        for o in allowed(self._firers.values()):
            self.firer.addItem(battle.unit(o.unit_id).name, o.unit_id)
        row.addWidget(self.firer, 1)
        lay.addLayout(row)
        # a unit asked for that may not fire: why not
        self.firer_refused = QLabel(self)
        self.firer_refused.setObjectName("firer_refused")
        self.firer_refused.setWordWrap(True)
        self.firer_refused.setTextFormat(Qt.TextFormat.RichText)
        self.firer_refused.setVisible(False)
        lay.addWidget(self.firer_refused)
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
        lay.addWidget(QLabel("<b>What happens</b> (applied and logged on Fire):", self))
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
            self._ask_for_firer(firer_id)
        self._fill_targets()

    def _ask_for_firer(self, firer_id: str) -> None:
        """Pick the unit asked for as the firer; if it may not fire now, say why instead."""
        if self.firer.findData(firer_id) >= 0:
            select(self.firer, firer_id)
            return
        refusal = may_fire(self.battle, firer_id, self.tables) if firer_id in self.battle.units else None
        if refusal is None:
            refusal = self._firers.get(firer_id)  # it may fire, but has nothing to fire at
        if refusal is None or getattr(refusal, "allowed", False):
            return
        name = self.battle.unit(firer_id).name
        self.firer_refused.setText(
            f"<span style='color:{RED}'>{html.escape(name)} may not fire: {html.escape(str(refusal))}</span>"
        )
        self.firer_refused.setVisible(True)

    # -- the firer's targets ----------------------------------------------------------------------
    def firer_id(self) -> str | None:
        return self.firer.currentData()

    def target_id(self) -> str | None:
        return self._target

    def _fill_targets(self) -> None:
        from rules.battlefield.field import Battlefield
        from rules.shooting.volleys import range_band

        self._options = []
        self._target = None
        self.targets.setRowCount(0)
        fid = self.firer_id()
        if fid is None:
            self.revalidate()
            return
        firer = self.battle.unit(fid)
        try:
            self._options = list(shoot_targets(self.battle, fid, self.tables))
        except RulesError as exc:
            self.volley_label.setText(f"<span style='color:{RED}'>{html.escape(str(exc))}</span>")
            self.revalidate()
            return
        bf = Battlefield(self.battle, self.tables)
        self.targets.setRowCount(len(self._options))
        first_allowed = None
        for r, o in enumerate(self._options):
            t, m = self.battle.unit(o.unit_id), o.detail  # m: what the table measures
            band = range_band(o.distance_in, self.tables).value if m.in_range else "out of range"
            sight = (
                f"clear ({m.sight.clear_stands} of {m.sight.stands} stands see it)"
                if m.sight.visible
                else f"blocked: {m.sight.reason}"
            )
            try:
                cover = bf.cover_for(t, firer).kind
            except RulesError:
                cover = "?"
            why = ("yes: " if o.allowed else "no: ") + str(o)
            cells = [t.name, inches(o.distance_in), band, "yes" if m.in_arc else "no", sight, cover, why]
            for c, text in enumerate(cells):
                it = QTableWidgetItem(text)
                it.setData(Qt.ItemDataRole.UserRole, o.unit_id)
                it.setToolTip(text)
                if not o.allowed:
                    it.setForeground(QBrush(QColor(str(GREY))))
                    it.setFlags(it.flags() & ~Qt.ItemFlag.ItemIsSelectable)
                elif c == len(cells) - 1:
                    it.setForeground(QBrush(QColor(str(GREEN))))
                self.targets.setItem(r, c, it)
            if o.allowed and (first_allowed is None or m.mandatory):
                first_allowed = r
        if first_allowed is not None:
            self.targets.selectRow(first_allowed)
        else:
            self._target_picked()

    def choose_target(self, target_id: str) -> None:
        for r, o in enumerate(self._options):
            if o.unit_id == target_id:
                if not o.allowed:
                    raise RulesError(f"{self.battle.unit(target_id).name} may not be fired on: {o.reason}")
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
        from rules.shooting.shoot import Shoot

        return Shoot.on_table(self.battle, self.firer_id(), self.target_id(), self.tables)

    def _resolve(self, dice: DiceSource) -> list[Step]:
        from rules.actions import resolve

        if self.target_id() is None:
            raise RulesError("pick a target that may be fired on")
        return resolve(self.battle, self.action(), dice, self.tables).steps

    def _show_volley(self) -> None:
        from rules.shooting.volley_odds import volley_odds
        from rules.shooting.volleys import plan_volley

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
        lines += [f"<span style='color:{GREY}'>{html.escape(str(n))}</span>" for n in plan.notes]
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
            typed = self.dice.table_dice()
            if typed is None:
                self.result.setHtml(chances_html(self.chances(), "Fire"))
                return None
            steps = self._resolve(typed)
        except RulesError as exc:
            self.result.setHtml(f"<p style='color:{RED}'>{html.escape(str(exc))}</p>")
            return str(exc)
        self.result.setHtml(steps_html(steps))
        return None

    def chances(self) -> Chances:
        """What the volley may do, each outcome with its exact chance (no die is rolled)."""
        from rules.actions import resolve

        action = self.action()
        if action not in self._chances:
            self._chances[action] = chances_of(
                lambda d: resolve(self.battle, action, d, self.tables), self.battle
            )
        return self._chances[action]
