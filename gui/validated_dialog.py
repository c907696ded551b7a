"""A dialog whose OK button waits for valid values, and the pieces its forms share.

:class:`ValidatedDialog` checks what the umpire types as it is typed: the OK button stays disabled
while :meth:`~ValidatedDialog.problem` finds something wrong, and the reason is shown under the
form. Every editing and combat dialog is one (:mod:`gui.order_of_battle_dialogs`,
:mod:`gui.terrain_dialog`, :mod:`gui.combat_dialogs`, the reason for an override in
:mod:`gui.dialogs`). :func:`combo` and :func:`select_data` make and set the forms' combo boxes.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from gui import screens, theme


class ValidatedDialog(QDialog):
    """A dialog whose OK button is enabled only while :meth:`problem` returns None.

    Once a dialog of any kind of these is built, the rule citations in it are links to the rules
    reference (:func:`gui.rule_links.connect_links`), and stay links as its words change."""

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None:
            return

        def __init__(self, *args, **kw):  # noqa: N807
            init(self, *args, **kw)
            if type(self) is cls:  # once, when the dialog of this very kind is built
                from gui import rule_links

                rule_links.connect_links(self)

        __init__.__doc__ = init.__doc__
        cls.__init__ = __init__

    def __init__(self, title: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setModal(True)
        self._layout = QVBoxLayout(self)
        self.form_host = QWidget(self)
        # the form scrolls where it is longer than the screen; the problem and the buttons stay in view
        self.form_area = screens.scrolling(self, self.form_host)
        self.problem_label = QLabel(self)
        self.problem_label.setObjectName("problem")
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet(f"QLabel#problem {{ color: {theme.PROBLEM}; font-weight: bold; }}")
        self._layout.addWidget(self.problem_label)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self._accept_if_valid)
        self.buttons.rejected.connect(self.reject)
        self._layout.addWidget(self.buttons)

    @property
    def ok_button(self):
        return self.buttons.button(QDialogButtonBox.StandardButton.Ok)

    def problem(self) -> str | None:  # pragma: no cover - overridden
        return None

    def revalidate(self) -> None:
        p = self.problem()
        self.ok_button.setEnabled(p is None)
        self.problem_label.setText(p or "")
        self.problem_label.setVisible(bool(p))

    def _accept_if_valid(self) -> None:
        self.revalidate()
        if self.ok_button.isEnabled():
            self.accept()


def combo(items: list[tuple[str, object]], parent: QWidget) -> QComboBox:
    """A combo box; enum members are kept as their plain string values."""
    c = QComboBox(parent)
    for text, data in items:
        c.addItem(text, data.value if hasattr(data, "value") else data)
    return c


def select_data(combo: QComboBox, data: object) -> None:
    i = combo.findData(data.value if hasattr(data, "value") else data)
    if i >= 0:
        combo.setCurrentIndex(i)
