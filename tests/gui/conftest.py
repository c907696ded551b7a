"""Fixtures of the GUI tests: a controller on the small battle's saved game."""

from __future__ import annotations

import pytest

from gui.controller import GameController


@pytest.fixture
def controller(qtbot, game):
    c = GameController()
    c.set_game(game, str(game.path))
    yield c
    c.close()


@pytest.fixture
def answer(monkeypatch):
    """Answer the dialogs seam: ``answer.dialog(fn)`` runs ``fn(dialog)`` instead of showing it."""
    from gui import dialogs

    class Answers:
        def __init__(self):
            self.messages: list[tuple[str, str, str]] = []
            self.questions: list[str] = []
            self.reasons: list[str] = []
            self.current = None

        def dialog(self, fn):
            """Answer the dialogs that open with ``fn`` from now on. A script of dialogs (an ``fn``
            with ``steps``) whose expected dialogs have not all opened fails the test, here when
            it is replaced and at the end of the test."""
            self.check_done()
            self.current = fn

            def fake_exec(dlg):
                return fn(dlg)

            monkeypatch.setattr(dialogs, "exec_dialog", fake_exec)

        def check_done(self):
            left = getattr(self.current, "steps", None)
            if left:
                names = ", ".join(cls.__name__ for cls, _ in left)
                self.current = None
                pytest.fail(f"expected dialog(s) never opened: {names}")

        def yes_no(self, reply: bool):
            def fake(parent, title, text):
                self.questions.append(text)
                return reply

            monkeypatch.setattr(dialogs, "ask_yes_no", fake)

        def reason(self, reply):
            def fake(parent, what):
                self.reasons.append(what)
                return reply

            monkeypatch.setattr(dialogs, "ask_reason", fake)

        def record_messages(self):
            def fake(parent, title, text, kind="information"):
                self.messages.append((title, text, kind))

            monkeypatch.setattr(dialogs, "show_message", fake)

    answers = Answers()
    yield answers
    answers.check_done()


@pytest.fixture(autouse=True)
def _saves_in_tmp(tmp_path, monkeypatch):
    """New games made by the window go to the test's own folder."""
    monkeypatch.setenv("BRIGADIER_SAVES_DIR", str(tmp_path / "saves"))


@pytest.fixture
def window_on(qtbot):
    """Make the main window on a game and show it: the game opened before the window is first
    shown, as the application opens the last game played (``size``: the window's, if given).
    The windows made are closed with their games after the test."""
    made = []

    def make(game, size: tuple[int, int] | None = None):
        from gui.main_window import MainWindow

        win = MainWindow()
        qtbot.addWidget(win)
        made.append(win)
        win.controller.set_game(game, str(game.path))
        if size is not None:
            win.resize(*size)
        win.show()
        qtbot.waitExposed(win)
        return win

    yield make
    for win in made:
        win.controller.close()
