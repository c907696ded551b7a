"""The defender's dialog at Reaction Trigger Windows A and B (RULE-04-1.2).

When a move or a declared charge reaches a trigger point, :class:`ReactionDialog` opens for the
defending side. It says which window opened and why (the moving unit, the point, the distance),
lists each defender with every reaction of the window: the ones it may take with their cost (free,
a reserved Staff Pip, a 4+ Discipline Check), the ones it may not greyed out with the reasons and
their rule ids, and "No reaction", which is logged too (:func:`answer_action`). The dice come from
a :class:`~gui.dice_entry.DiceEntry`, and the result of the choice, with its dice, modifiers and
rules, is shown before the umpire confirms.

:class:`ManualWindowDialog` opens either window by hand, for a table where the canvas is not kept
to the inch: the umpire names the moving unit and the defender and reads the distance, arc, flank
and ground off the table.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Collection, Sequence
from typing import Any

from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QScrollArea,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.dice_entry import DiceEntry, dry_run_check
from gui.theme import GOOD, MUTED, PROBLEM
from gui.validated_dialog import ValidatedDialog
from rules.battle.battle import Battle
from rules.battle.events import Step
from rules.chances import Chances, percent_text
from rules.describe import WINDOW_TITLES, cost_text, inches, unit_line, why_opened
from rules.dice import DiceSource
from rules.errors import RulesError
from rules.procedure import Choice, answer_action, decline_action, reaction_action
from rules.reactions import inputs as reaction_inputs
from rules.reactions.declare import (
    Option,
    Reaction,
    Threat,
    Window,
)
from rules.reactions.triggers import DefenderChoice, Trigger, TriggerWindow
from rules.tables import RuleTables

GREY = MUTED  # an ink of the palette in use (gui.theme)


# -- text -----------------------------------------------------------------------------------------


def steps_html(steps: Sequence[Step]) -> str:
    """Log lines as HTML: the text, the dice in bold, each modifier with its rule, the rule."""
    out = []
    for s in steps:
        parts = [html.escape(s.text)]
        if s.dice:
            parts.append("<b>dice " + " ".join(str(d) for d in s.dice) + "</b>")
        if s.modifiers:
            parts.append(", ".join(html.escape(str(m)) for m in s.modifiers))
        rule = f" <span style='color:{MUTED}'>[{html.escape(s.rule)}]</span>" if s.rule else ""
        out.append("<li>" + " — ".join(parts) + rule + "</li>")
    return "<ul style='margin-left:-20px'>" + "".join(out) + "</ul>"


def chances_html(ch: Chances, commit: str = "OK") -> str:
    """What may happen, as the dialogs show it while the program is to roll: the dice to be rolled
    (with their modifiers and rules, never a face), what happens whatever they show, and each
    outcome with its exact chance. Nothing in it depends on the faces the program will roll."""
    if ch.no_dice:
        return steps_html(ch.known) if ch.known else "<p>Nothing happens.</p>"
    out = [
        "<p><b>The dice</b> (the program rolls them on " + html.escape(commit) + "):</p>",
        steps_html(ch.rolls),
    ]
    if ch.known:
        out += ["<p><b>Whatever they show:</b></p>", steps_html(ch.known)]
    rows = []
    for o in ch.outcomes:
        what = "<br>".join(
            html.escape(s.text)
            + (f" <span style='color:#555'>[{html.escape(s.rule)}]</span>" if s.rule else "")
            for s in o.lines
        )
        rows.append(
            f"<tr><td align='right' valign='top' style='padding-right:8px'><b>{percent_text(o.chance)}</b></td>"
            f"<td>{what or '—'}</td></tr>"
        )
    out.append("<p><b>What may happen</b>, with the exact chance of each:</p>")
    out.append("<table cellspacing='2'>" + "".join(rows) + "</table>")
    return "".join(out)


# -- the dialog ---------------------------------------------------------------------------------------

Preview = Callable[[list[Choice], DiceSource], list[Step]]
ChancesOf = Callable[[list[Choice]], Chances]


class _DefenderBox(QGroupBox):
    """One defender: why the window opened, a radio button per reaction, and "No reaction"."""

    def __init__(
        self,
        battle: Battle,
        choice: DefenderChoice,
        tables: RuleTables,
        parent: QWidget,
        extras: Collection[str] | None = None,
    ):
        super().__init__(unit_line(battle, choice.defender), parent)
        self.extras = extras
        self.setObjectName(f"defender_{choice.defender}")
        self.choice = choice
        self.setStyleSheet(
            "QGroupBox { font-weight: bold; } QGroupBox QLabel, QRadioButton { font-weight: normal; }"
        )
        lay = QGridLayout(self)
        self.why = QLabel(
            "Why: "
            + html.escape("; ".join(why_opened(t, th, battle, tables) for t, th in choice.whys), quote=False),
            self,
        )
        self.why.setWordWrap(True)
        lay.addWidget(self.why, 0, 0, 1, 3)
        self.labels: dict[Reaction, QLabel] = {}
        self.group = QButtonGroup(self)
        self.radios: dict[Reaction | None, QRadioButton] = {}
        # the umpire's inputs with the reactions (rules.reactions.inputs), by reaction and by key
        self.inputs: dict[Reaction, reaction_inputs.ReactionInput] = {}
        self.spins: dict[str, QDoubleSpinBox] = {}
        self.checks: dict[str, QCheckBox] = {}
        self.pip_box: QCheckBox | None = None
        row = 1
        for opt in choice.options:
            rb = QRadioButton(f"{opt.reaction.number}. {opt.reaction.title}", self)
            rb.setObjectName(f"reaction_{opt.reaction.value}")
            self.group.addButton(rb)
            self.radios[opt.reaction] = rb
            lay.addWidget(rb, row, 0)
            if opt.eligible:
                lab = QLabel(html.escape(cost_text(opt), quote=False), self)
                lab.setStyleSheet(f"color: {GOOD};")
            else:
                rb.setEnabled(False)
                lab = QLabel(
                    "not allowed: " + "; ".join(html.escape(str(r), quote=False) for r in opt.reasons),
                    self,
                )
                lab.setStyleSheet(f"color: {GREY};")
            lab.setWordWrap(True)
            self.labels[opt.reaction] = lab
            lay.addWidget(lab, row, 1)
            extra = self._extra(opt, tables)
            if extra is not None:
                lay.addWidget(extra, row, 2)
            row += 1
        none = QRadioButton("No reaction", self)
        none.setObjectName("reaction_none")
        none.setChecked(True)
        self.group.addButton(none)
        self.radios[None] = none
        lay.addWidget(none, row, 0)
        lay.setColumnStretch(1, 1)

    def _extra(self, opt: Option, tables: RuleTables) -> QWidget | None:
        """The widget for the umpire's input with this reaction (:mod:`rules.reactions.inputs`: a
        distance's spin box, a yes-or-no check box), if the window takes one."""
        wanted = reaction_inputs.input_of(opt, self.extras)
        if wanted is None:
            return None
        self.inputs[opt.reaction] = wanted
        if wanted.is_distance:
            return self._spin(wanted, tables)
        box = QCheckBox(wanted.label, self)
        box.setObjectName(wanted.key)
        box.setChecked(bool(wanted.default(tables)))
        self.checks[wanted.key] = box
        if wanted.key == reaction_inputs.RESERVED_PIP.key:
            self.pip_box = box
        return box

    def _spin(self, wanted: reaction_inputs.ReactionInput, tables: RuleTables) -> QWidget:
        host = QWidget(self)
        h = QHBoxLayout(host)
        h.setContentsMargins(0, 0, 0, 0)
        h.addWidget(QLabel(wanted.label, host))
        sp = QDoubleSpinBox(host)
        sp.setObjectName(wanted.key)
        sp.setRange(*wanted.bounds(tables))
        sp.setDecimals(1)
        sp.setSingleStep(0.5)
        sp.setSuffix('"')
        sp.setValue(float(wanted.default(tables)))
        h.addWidget(sp)
        self.spins[wanted.key] = sp
        return host

    def selected(self) -> Choice:
        for r, rb in self.radios.items():
            if rb.isChecked():
                inputs: dict[str, Any] = {}
                wanted = self.inputs.get(r) if r is not None else None
                if wanted is not None and wanted.key in self.spins:
                    inputs[wanted.key] = self.spins[wanted.key].value()
                elif wanted is not None and wanted.key in self.checks:
                    inputs[wanted.key] = self.checks[wanted.key].isChecked()
                return Choice(self.choice.defender, r, inputs)
        return Choice(self.choice.defender, None)


class ReactionDialog(ValidatedDialog):
    """The defending side's choice at a Trigger Window, with its dice and what it may do.

    With "The program rolls", ``chances(choices)`` says what the choices may do, each outcome with
    its exact chance, and the modifiers and rules that apply: the program's dice roll only when the
    umpire resolves the window, and nothing shown before depends on their faces. With dice typed at
    the table (rolled in the open), ``preview(choices, dice)`` resolves the choices with them on
    the battle as it stands (nothing is applied) to check them and show their result.
    """

    def __init__(
        self,
        battle: Battle,
        window: TriggerWindow,
        tables: RuleTables,
        *,
        preview: Preview,
        chances: ChancesOf,
        heading: str = "",
        extras: Collection[str] | None = None,
        dice_rolled: bool = False,
        parent: QWidget | None = None,
    ):
        super().__init__(WINDOW_TITLES[window.window], parent)
        self.setObjectName(f"window_{window.window.value}_dialog")
        self.battle, self.window, self.tables = battle, window, tables
        self._preview_fn, self._chances_fn = preview, chances
        self._chances_cache: dict[str, Chances] = {}
        self.resize(820, 640)
        lay = QVBoxLayout(self.form_host)
        lay.setContentsMargins(0, 0, 0, 0)
        mover = battle.unit(window.mover)
        side = (
            battle.oob.side(battle.unit(window.defenders[0].defender).side).name if window.defenders else ""
        )
        title = QLabel(
            f"<span style='font-size:15pt; font-weight:bold'>{html.escape(WINDOW_TITLES[window.window])}</span>",
            self,
        )
        lay.addWidget(title)
        dists = ", ".join(
            f"{inches(d.threat.distance_in)} from {battle.unit(d.defender).name}" for d in window.defenders
        )
        if heading:
            head = heading
        elif window.window == Window.B:
            line = tables.entry("melee.charge.window_b_in")
            head = (
                f"{mover.name}'s charge halts at the {line.value:g}\" line, {dists} "
                f"({inches(window.along_in)} into the charge, {line.citation})."
            )
        else:
            head = (
                f"{mover.name}'s move is halted at ({window.point[0]:.1f}, {window.point[1]:.1f}), "
                f"{inches(window.along_in)} along its path: {dists}."
            )
        self.heading = QLabel(
            html.escape(head, quote=False) + f"<br><b>{html.escape(side)}</b> chooses its reactions.", self
        )
        self.heading.setWordWrap(True)
        lay.addWidget(self.heading)
        host = QWidget(self)
        hl = QVBoxLayout(host)
        hl.setContentsMargins(0, 0, 0, 0)
        self.boxes: dict[str, _DefenderBox] = {}
        for d in window.defenders:
            box = _DefenderBox(battle, d, tables, host, extras)
            self.boxes[d.defender] = box
            hl.addWidget(box)
            box.group.buttonToggled.connect(lambda *_: self.revalidate())
            for sp in box.spins.values():
                sp.valueChanged.connect(lambda *_: self.revalidate())
            for check in box.checks.values():
                check.toggled.connect(lambda *_: self.revalidate())
        hl.addStretch(1)
        # the defenders take the height they need, up to DEFENDERS_AT_MOST_PX (scrolling beyond
        # it), so that what may happen below them is in view on a laptop's screen
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(host)
        need = host.sizeHint().height() + 2 * scroll.frameWidth() + 2
        scroll.setMinimumHeight(min(need, self.DEFENDERS_AT_MOST_PX))
        scroll.setMaximumHeight(need)
        lay.addWidget(scroll)
        # what may happen right below the choices it follows from; the dice after it
        self.result = QTextBrowser(self)
        self.result.setObjectName("result")
        self.result.setMinimumHeight(120)
        self.result_heading = QLabel("<b>What happens</b> (applied and logged on Resolve):", self)
        lay.addWidget(self.result_heading)
        lay.addWidget(self.result, 1)
        dice_box = QGroupBox("Dice", self)
        dl = QVBoxLayout(dice_box)
        self.dice = DiceEntry(dice_box)
        dl.addWidget(self.dice)
        lay.addWidget(dice_box)
        self.ok_button.setText("Resolve")
        cancel = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        if dice_rolled:
            # the program's dice have rolled for an earlier window: cancelling keeps what they did
            cancel.setText("Stop here")
            cancel.setToolTip(
                "The program's dice have rolled for an earlier window of this move: what they decided "
                "stands, and the move stops here (Edit > Undo takes it back)"
            )
        else:
            cancel.setToolTip("Nothing of this move has been decided by the dice yet: nothing is saved")
        self.dice.set_check(dry_run_check(lambda d: self._preview_fn(self.choices(), d)))
        self.dice.changed.connect(self.revalidate)
        self._last_steps: list[Step] = []
        self.revalidate()

    #: The most height the defenders take before they scroll in their own area (pixels).
    DEFENDERS_AT_MOST_PX = 260

    # -- the umpire's choices --------------------------------------------------------------------
    def choices(self) -> list[Choice]:
        if not hasattr(self, "boxes"):
            return []
        return [b.selected() for b in self.boxes.values()]

    def reacting(self) -> list[Choice]:
        return [c for c in self.choices() if c.reaction is not None]

    def choose(self, defender: str, reaction: Reaction | str | None, **inputs: float | bool) -> None:
        """Pick ``reaction`` for ``defender`` (None: no reaction), as the umpire would click it."""
        box = self.boxes[defender]
        r = Reaction.parse(reaction) if reaction is not None else None
        rb = box.radios.get(r)
        if rb is None or not rb.isEnabled():
            raise RulesError(f"{self.battle.unit(defender).name} cannot take that reaction here")
        rb.setChecked(True)
        for k, v in inputs.items():
            if k in box.spins:
                box.spins[k].setValue(float(v))
            elif k in box.checks:
                box.checks[k].setChecked(bool(v))

    # -- checking and showing the result ---------------------------------------------------------------
    def problem(self) -> str | None:
        if not hasattr(self, "result"):
            return None
        p = self.dice.problem()
        if p:
            self.result.setHtml(
                f"<p style='color:{GREY}'>The result is shown when the dice are complete.</p>"
            )
            return p
        typed = self.dice.table_dice()
        try:
            if typed is None:
                ch = self.chances()
                self._last_steps = [*ch.rolls, *ch.known]
                self.result.setHtml(chances_html(ch, "Resolve"))
                return None
            steps = self._preview_fn(self.choices(), typed)
        except RulesError as exc:
            self.result.setHtml(f"<p style='color:{PROBLEM}'>{html.escape(str(exc))}</p>")
            return str(exc)
        self._last_steps = steps
        if not steps:
            self.result.setHtml("<p>No reaction: the move goes on.</p>")
        else:
            self.result.setHtml(steps_html(steps))
        return None

    def chances(self) -> Chances:
        """What the choices as they stand may do (worked out once for each set of choices)."""
        choices = self.choices()
        key = repr(choices)
        if key not in self._chances_cache:
            self._chances_cache[key] = self._chances_fn(choices)
        return self._chances_cache[key]

    def shown_steps(self) -> list[Step]:
        return list(self._last_steps)


# -- opening a window by hand -----------------------------------------------------------------------


class ManualWindowDialog(ValidatedDialog):
    """Open Trigger Window A or B by hand: the moving unit, the defender, and the facts of the table."""

    def __init__(self, battle: Battle, tables: RuleTables, window: Window, parent: QWidget | None = None):
        super().__init__(f"Open {WINDOW_TITLES[window]} by hand", parent)
        self.setObjectName(f"manual_window_{window.value}")
        self.battle, self.tables, self.window = battle, tables, window
        form = QFormLayout(self.form_host)
        intro = QLabel(
            "For a table where the canvas is not kept to the inch: name the unit that "
            + ("charges" if window == Window.B else "moves")
            + " and the defender, and read the rest off the table.",
            self,
        )
        intro.setWordWrap(True)
        form.addRow(intro)
        self.mover = QComboBox(self)
        for u in battle.oob.in_play(battle.active_side):
            self.mover.addItem(u.name, u.id)
        self.defender = QComboBox(self)
        for u in battle.oob.in_play(battle.oob.enemy_of(battle.active_side)):
            self.defender.addItem(u.name, u.id)
        self.distance = QDoubleSpinBox(self)
        self.distance.setRange(0.0, 200.0)
        self.distance.setDecimals(2)
        self.distance.setSuffix('"')
        self.in_arc = QCheckBox("in the defender's 45 degree forward arc", self)
        self.flank = QComboBox(self)
        for text, data in (
            ("not on a flank", None),
            ("left flank zone", "left"),
            ("right flank zone", "right"),
        ):
            self.flank.addItem(text, data)
        self.open_ground = QCheckBox("open ground between them (Counter-Charge)", self)
        self.enfilade = QCheckBox("the defender's fire would enfilade the mover", self)
        form.addRow("Moving unit" if window == Window.A else "Charging unit", self.mover)
        form.addRow("Defender", self.defender)
        form.addRow("Distance" if window == Window.A else "Distance from the front edge", self.distance)
        form.addRow("", self.in_arc)
        form.addRow("Flank", self.flank)
        form.addRow("", self.open_ground)
        form.addRow("", self.enfilade)
        self.mover.currentIndexChanged.connect(lambda _i: self.measure())
        self.defender.currentIndexChanged.connect(lambda _i: self.measure())
        for w in (self.distance,):
            w.valueChanged.connect(lambda *_: self.revalidate())
        for w in (self.in_arc, self.open_ground, self.enfilade):
            w.toggled.connect(lambda *_: self.revalidate())
        self.flank.currentIndexChanged.connect(lambda *_: self.revalidate())
        self.measure()

    def set_units(self, mover: str, defender: str) -> None:
        self.mover.setCurrentIndex(self.mover.findData(mover))
        self.defender.setCurrentIndex(self.defender.findData(defender))
        self.measure()

    def measure(self) -> None:
        """Fill in what the table shows (the umpire corrects it where the canvas is not to the inch)."""
        from rules.battlefield import geometry
        from rules.reactions.triggers import open_ground

        m, d = self.mover.currentData(), self.defender.currentData()
        if not m or not d:
            self.revalidate()
            return
        mu, du = self.battle.unit(m), self.battle.unit(d)
        try:
            if self.window == Window.B:
                fp = geometry.footprint(du, self.tables)
                from shapely.geometry import Point

                dist = float(Point(mu.x, mu.y).distance(fp.front_edge))
                dist = min(dist, float(self.tables.value("melee.charge.window_b_in")))
            else:
                dist = geometry.distance_in(du, mu, self.tables)
            self.distance.setValue(round(dist, 2))
            self.in_arc.setChecked(geometry.in_forward_arc(du, mu, self.tables))
            flank = geometry.in_flank_zone(du, (mu.x, mu.y), self.tables)
            self.flank.setCurrentIndex(max(self.flank.findData(flank), 0))
            self.open_ground.setChecked(open_ground(self.battle, (mu.x, mu.y), (du.x, du.y)))
            self.enfilade.setChecked(geometry.is_enfilade(du, mu, self.tables))
        except RulesError:
            pass
        self.revalidate()

    def threat(self) -> Threat:
        return Threat(
            self.window,
            self.mover.currentData(),
            self.defender.currentData(),
            float(self.distance.value()),
            in_forward_arc=self.in_arc.isChecked(),
            charge=self.window == Window.B,
            flank=self.flank.currentData(),
            open_ground=self.open_ground.isChecked(),
            enfilade=self.enfilade.isChecked(),
        )

    def trigger_window(self) -> TriggerWindow:
        from rules.reactions.triggers import defender_choice

        t = self.threat()
        screen = self.battle.unit(t.defender).is_screen
        if self.window == Window.B:
            trigger = Trigger.CHARGE
        elif t.flank is not None and not t.in_forward_arc:
            trigger = Trigger.FLANK_ZONE
        elif screen:
            trigger = Trigger.SCREEN
        else:
            trigger = Trigger.FORWARD_ARC
        m = self.battle.unit(t.attacker)
        choice = defender_choice(self.battle, t, trigger, self.tables)
        return TriggerWindow(self.window, (m.x, m.y), 0.0, t.attacker, (choice,))

    def problem(self) -> str | None:
        if not hasattr(self, "enfilade"):
            return None
        if self.mover.currentData() is None:
            return "the active side has no unit in play"
        if self.defender.currentData() is None:
            return "the other side has no unit in play"
        try:
            self.threat()
        except RulesError as exc:
            return str(exc)
        return None


__all__ = [
    "Choice",
    "ManualWindowDialog",
    "chances_html",
    "ReactionDialog",
    "answer_action",
    "decline_action",
    "reaction_action",
    "steps_html",
    "why_opened",
]
