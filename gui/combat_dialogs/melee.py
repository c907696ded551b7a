"""Phase 4: the opposed melee roll, both shock scores line by line, the dice, the outcome and its
aftermath; the melees the charges of Phase 2 left pending, or one set up by hand."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.combat_dialogs.common import RED, bold_title, select
from gui.dice_entry import DiceEntry, dry_run_check
from gui.reaction_dialog import GREY, chances_html, steps_html, unit_line
from gui.theme import MUTED
from gui.validated_dialog import ValidatedDialog
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.battle.terrain import TerrainType
from rules.chances import Chances, chances_of, percent_text
from rules.dice import DiceSource
from rules.errors import RulesError
from rules.legality import engaged_pairs
from rules.melee.melee import (
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
from rules.odds import shock_odds
from rules.tables import RuleTables

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
        attacker_id: str | None = None,
        defender_id: str | None = None,
        pending: Sequence[PendingMelee] = (),
        melee_id: str | None = None,
        sweep_victor: str | None = None,
        parent: QWidget | None = None,
    ):
        super().__init__("Melee — Phase 4: Assault & Melee Resolution", parent)
        self.setObjectName("melee_dialog")
        self.battle, self.tables = battle, tables
        self._chances: dict[object, Chances] = {}
        self.sweep_victor = sweep_victor
        if sweep_victor is not None:
            attacker_id, pending, melee_id = sweep_victor, (), None
        self.pending = {m.id: m for m in pending}
        self.ruling: str | None = None
        self.resize(900, 760)
        lay = QVBoxLayout(self.form_host)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(bold_title("Opposed Melee Roll (RULE-06-3.2)", self))
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
        self.contact.setObjectName("contact")
        # a flank contact names the flank: a refused flank covers only its own side (RULE-04-5.4)
        for text, data in (
            ("Front", "front"),
            ("Left flank", "flank:left"),
            ("Right flank", "flank:right"),
            ("Rear", "rear"),
        ):
            self.contact.addItem(text, data)
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
        self.notes.setStyleSheet(f"color: {MUTED};")
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
            select(self.attacker, first[0])
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
            select(self.pending_combo, pick)
        else:
            select(self.pending_combo, self.BY_HAND)
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
            select(self.defender, keep)
        self.revalidate()

    def set_units(self, attacker_id: str, defender_id: str) -> None:
        select(self.pending_combo, self.BY_HAND)
        select(self.attacker, attacker_id)
        self._fill_defenders(defender_id)

    # -- the pending melees ------------------------------------------------------------------------
    def pending_melee(self) -> PendingMelee | None:
        """The pending melee chosen, or None for a melee set up by hand."""
        return self.pending.get(self.pending_combo.currentData())

    def choose_pending(self, melee_id: str) -> None:
        if melee_id not in self.pending:
            raise RulesError(f"there is no melee '{melee_id}' waiting to be resolved")
        select(self.pending_combo, melee_id)

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
            contact, side = self._contact()
            return SweepingAdvance(
                self.sweep_victor,
                d,
                contact=contact,
                flank_side=side,
                defender_obstacle=self.obstacle.currentData(),
            )
        pm = self.pending_melee()
        if pm is not None:
            c = self.consolidation_inputs()
            return ResolvePendingMelee(pm.id, c.get("advance_in"), c.get("pivot_deg"))
        a, d = self.attacker.currentData(), self.defender.currentData()
        if a is None or d is None:
            raise RulesError("choose the attacker and the defender")
        contact, side = self._contact()
        return MeleeAction(
            a,
            d,
            contact=contact,
            flank_side=side,
            momentum_in=float(self.momentum.value()),
            defender_obstacle=self.obstacle.currentData(),
            defender_on_crest=self.crest.isChecked(),
            attacker_downhill_from_crest=self.downhill.isChecked(),
            through_abatis=self.abatis.isChecked(),
            defender_routed=self.routed.isChecked(),
            defender_counts_disordered=self.counts_disordered.isChecked(),
        )

    def _contact(self) -> tuple[str, str | None]:
        """The contact chosen, and for a flank contact which flank: ("flank", "left")."""
        contact, _, side = str(self.contact.currentData()).partition(":")
        return contact, side or None

    def consolidation_inputs(self) -> dict[str, float]:
        if self.pending_melee() is None or self.cons_default.isChecked():
            return {}
        return {"advance_in": float(self.cons_advance.value()), "pivot_deg": float(self.cons_pivot.value())}

    def _resolve(self, dice: DiceSource) -> list[Step]:
        from rules.actions import resolve

        return list(resolve(self.battle, self.action(), dice, self.tables).steps)

    def chances(self) -> Chances:
        """What the melee may come to, each outcome with its exact chance (no die is rolled)."""
        from rules.actions import resolve

        action = self.action()
        if action not in self._chances:
            self._chances[action] = chances_of(
                lambda d: resolve(self.battle, action, d, self.tables), self.battle
            )
        return self._chances[action]

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
            f"<td style='color:{MUTED}'>{html.escape(side.engaged_text)}</td></tr>",
        ]
        for m in side.modifiers:
            rows.append(
                f"<tr><td>{html.escape(m.label)}</td><td align='right'><b>{m.value:+d}</b></td>"
                f"<td style='color:{MUTED}'>{html.escape(m.rule or '')}</td></tr>"
            )
        total = "?" if die is None else str(die + side.base)
        rows.append(
            f"<tr><td><b>Shock score</b></td><td align='right' style='font-size:14pt'><b>{total}</b></td>"
            f"<td style='color:{MUTED}'>{'' if die is not None else f'{side.base} + the die'}</td></tr>"
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
            + f"{html.escape(a.name)} against {html.escape(d.name)}'s "
            + (f"{s.flank_side} flank" if s.flank_side else s.contact.value)
            + (f', {round(s.momentum_in, 1):g}" charge' if s.momentum_in else "")
            + (f", behind {s.defender_obstacle.label.lower()}" if s.defender_obstacle else "")
            + (", after a counter-charge" if s.counter_charge else "")
        )
        self.notes.setText("<br>".join(html.escape(n) for n in notes))
        p = self.dice.problem()
        dice = None
        steps: list[Step] = []
        ch: Chances | None = None
        if not p:
            try:
                dice = self.dice.table_dice()
                if dice is None:
                    ch = self.chances()  # the program rolls on OK: no face is shown before
                else:
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
        if ch is not None:
            win, lose, tie = shock_odds(sa.base, sd.base)
            self.outcome.setText(
                f"<b>{html.escape(a.name)} wins {percent_text(win)}, {html.escape(d.name)} wins "
                f"{percent_text(lose)}, tie {percent_text(tie)}</b> (exact: all 36 pairs of shock dice)"
            )
            self.result.setHtml(chances_html(ch, "Resolve the melee"))
            return None
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
