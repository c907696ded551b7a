"""Where the dice come from: the program rolls, or the umpire types the dice rolled at the table.

Every dialog that rolls holds a :class:`DiceEntry`. With "The program rolls" the game's own seeded
dice are used (they are part of the save, so a replay is exact); they roll when the umpire
commits, and until then the dialog shows the chances (:mod:`rules.chances`), never a face. With "Dice rolled at the table"
the umpire types the faces in the order they are asked for; they are checked as they are typed:
each must be a whole number from 1 to 6, and there must be exactly as many as the resolution asks
for. The dialog gives the entry a ``check`` that runs the resolution on the typed faces and says
what is wrong (too few, too many); the dialog's OK button stays disabled, with the reason shown,
until the dice are right. Both ways are logged the same way: each roll with its purpose.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from gui.theme import GOOD, MUTED, PROBLEM
from rules.dice import DiceSource, SeededDice, TableDice, parse_dice
from rules.errors import RulesError

Check = Callable[[tuple[int, ...]], "str | None"]


class DiceEntry(QWidget):
    """ "The program rolls" or "Dice rolled at the table", with the typed dice checked as typed.

    ``changed`` is emitted whenever the choice or the typed text changes.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None, *, what: str = "the dice"):
        super().__init__(parent)
        self.setObjectName("dice_entry")
        self.what = what
        self._check: Check | None = None
        self._expected_hint = ""
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.program_radio = QRadioButton("The program rolls", self)
        self.table_radio = QRadioButton("Dice rolled at the table:", self)
        self.group = QButtonGroup(self)
        self.group.addButton(self.program_radio)
        self.group.addButton(self.table_radio)
        self.program_radio.setChecked(True)
        self.edit = QLineEdit(self)
        self.edit.setObjectName("dice_text")
        self.edit.setPlaceholderText("e.g. 3 3 5 2 6")
        self.edit.setEnabled(False)
        self.edit.setMinimumWidth(160)
        row.addWidget(self.program_radio)
        row.addSpacing(12)
        row.addWidget(self.table_radio)
        row.addWidget(self.edit, 1)
        lay.addLayout(row)
        self.hint = QLabel(self)
        self.hint.setObjectName("dice_hint")
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet(f"color: {MUTED};")
        lay.addWidget(self.hint)
        self.table_radio.toggled.connect(self._toggled)
        self.edit.textChanged.connect(lambda _t: self._changed())
        self._changed()

    # -- configuration ------------------------------------------------------------------------
    def set_check(self, check: Check | None, expected_hint: str = "") -> None:
        """``check(faces)`` returns None when the typed faces are exactly what is needed, else why not."""
        self._check = check
        self._expected_hint = expected_hint
        self._changed()

    # -- the umpire's choice ---------------------------------------------------------------------
    def uses_table(self) -> bool:
        return self.table_radio.isChecked()

    def use_program(self) -> None:
        self.program_radio.setChecked(True)

    def type_dice(self, text: str) -> None:
        """Choose "Dice rolled at the table" and type ``text`` (as the umpire would)."""
        self.table_radio.setChecked(True)
        self.edit.setText(text)

    def faces(self) -> tuple[int, ...]:
        """The typed faces; :class:`~rules.errors.DiceError` if any is not a face of a d6."""
        return parse_dice(self.edit.text())

    def problem(self) -> str | None:
        """Why the dice cannot be used yet (None: they can)."""
        if not self.uses_table():
            return None
        try:
            faces = self.faces()
        except RulesError as exc:
            return f"Dice: {exc}"
        if self._check is not None:
            why = self._check(faces)
            if why:
                return f"Dice: {why}"
        elif not faces:
            return "Dice: type the dice rolled at the table, or let the program roll"
        return None

    def table_dice(self) -> TableDice | None:
        """The typed dice as a :class:`TableDice`, or None when the program rolls."""
        if not self.uses_table():
            return None
        return TableDice(self.faces())

    # -- keeping up ------------------------------------------------------------------------------
    def _toggled(self, on: bool) -> None:
        self.edit.setEnabled(on)
        if on:
            self.edit.setFocus()
        self._changed()

    def _changed(self) -> None:
        if self.uses_table():
            p = self.problem()
            text = p or "The typed dice are used in the order they are asked for."
            expected = getattr(self._check, "expected", None)
            if p and expected is not None:  # until they are right: how many to roll, and what for
                text = f"{expected()} {p}".strip()
            self.hint.setStyleSheet(f"color: {PROBLEM};" if p else f"color: {GOOD};")
        else:
            text = (
                "The game's own dice roll when you commit, not before: until then the chances are "
                "shown, never the faces. The faces go in the log like dice typed at the table."
            )
            self.hint.setStyleSheet(f"color: {MUTED};")
        if self._expected_hint:
            text = f"{self._expected_hint}  {text}"
        self.hint.setText(text)
        self.changed.emit()


def _what(rolls, sep: str) -> str:
    """What the dice of ``rolls`` were for: "5 for the volley, 1 for the discipline check"."""
    return sep.join(f"{len(r.dice)} for the {r.purpose}" for r in rolls)


class DryRunCheck:
    """A check that runs the resolution ``run(dice)`` on the typed faces, as :class:`TableDice`.

    Too few dice: the resolution's own message says what the missing dice were for. Too many:
    the count of dice used is given. Any other refusal of the rules is passed on.
    :meth:`expected` says before any die is typed how many to roll, and what for.
    """

    #: the dice :meth:`expected` counts with: the program's own, from a fixed seed
    SEED = 1862

    def __init__(self, run: Callable[[DiceSource], object]):
        self.run = run

    def __call__(self, faces: tuple[int, ...]) -> str | None:
        dice = TableDice(faces)
        try:
            self.run(dice)
        except RulesError as exc:
            return str(exc)
        if dice.remaining:
            used = len(faces) - len(dice.remaining)
            what = _what(dice.rolls, ", ") or "none"
            return f"{len(faces)} dice typed, but {used} {'is' if used == 1 else 'are'} needed ({what})"
        return None

    def expected(self) -> str:
        """How many dice to roll at the table, and what for, as the program's dice would fall
        (other faces can call for more or fewer: a discipline check only after losses, say)."""
        dice = SeededDice(self.SEED)
        try:
            self.run(dice)
        except RulesError:
            return ""
        rolls = [r for r in dice.rolls if r.dice]
        if not rolls:
            return "No dice are needed."
        n = sum(len(r.dice) for r in rolls)
        what = _what(rolls, ", then ")
        more = " (what they show can call for more or fewer)" if len(rolls) > 1 else ""
        return f"Roll {n} {'die' if n == 1 else 'dice'}: {what}{more}."


def dry_run_check(run: Callable[[DiceSource], object]) -> DryRunCheck:
    """The check of typed dice that runs the resolution ``run`` on them (:class:`DryRunCheck`)."""
    return DryRunCheck(run)
