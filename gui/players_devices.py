"""View > Players' devices: each side's page on the players' own phones and tablets.

The pages are served by ``brigadier serve`` in a process of its own (:mod:`serve.server`), started
here on the game in hand and stopped with the window, so that a device that misbehaves cannot slow
the umpire's window. It follows the save as it is played; the dialog shows one link and its QR
code per side, to show the table or print, and issues new links (which end the old ones).
"""

from __future__ import annotations

import io
import json
import sys
from html import escape
from typing import Any

from PySide6.QtCore import QObject, QProcess, Qt, QUrl, Signal
from PySide6.QtGui import QGuiApplication, QImage, QPixmap, QTextDocument
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

#: Where the pages may be served: this laptop alone, or the local network.
HOSTS = (
    ("0.0.0.0", "The local network (the players' phones and tablets)"),
    ("127.0.0.1", "This laptop only"),
)


def qr_png(text: str, scale: int = 5) -> bytes:
    """A QR code of ``text`` as PNG bytes (segno)."""
    import segno

    buf = io.BytesIO()
    segno.make(text, error="m").save(buf, kind="png", scale=scale, border=2)
    return buf.getvalue()


class ServerProcess(QObject):
    """``brigadier serve`` of one save, in a child process; :attr:`links` once it serves."""

    ready = Signal(dict)  # {"links": {side: url}, "names": {side: name}, "umpire": url}
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.proc: QProcess | None = None
        self.info: dict[str, Any] | None = None
        self._out = b""
        self._err = b""

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.state() != QProcess.ProcessState.NotRunning

    def start(self, path: str, host: str) -> None:
        self.stop()
        self.info, self._out, self._err = None, b"", b""
        p = QProcess(self)
        p.setProgram(sys.executable)
        p.setArguments(["-m", "cli.main", "serve", path, "--host", host, "--port", "0", "--json"])
        p.readyReadStandardOutput.connect(self._read)
        p.readyReadStandardError.connect(lambda: self._keep_err())
        p.finished.connect(self._finished)
        self.proc = p
        p.start()

    def _keep_err(self) -> None:
        if self.proc is not None:
            self._err += bytes(self.proc.readAllStandardError())

    def _read(self) -> None:
        if self.proc is None:
            return
        self._out += bytes(self.proc.readAllStandardOutput())
        while b"\n" in self._out:
            line, self._out = self._out.split(b"\n", 1)
            try:
                info = json.loads(line)
            except ValueError:
                continue
            if isinstance(info, dict) and "links" in info:
                self.info = info
                self.ready.emit(info)

    def _finished(self, *_args) -> None:
        if self.proc is None:
            return
        self._keep_err()
        words = self._err.decode("utf-8", "replace").strip().splitlines()
        self.proc = None
        if self.info is None or words:
            self.failed.emit(words[-1] if words else "the pages' server stopped")
        self.info = None

    def renew(self) -> dict[str, str]:
        """New links for every side (the old ones end); the new links."""
        if self.info is None:
            raise RuntimeError("the pages are not served")
        import urllib.request

        req = urllib.request.Request(self.info["umpire"] + "/renew", data=b"", method="POST")
        with urllib.request.urlopen(req, timeout=3) as r:
            links = json.loads(r.read())
        self.info["links"] = links
        return links

    def stop(self) -> None:
        p, self.proc = self.proc, None
        self.info = None
        if p is not None and p.state() != QProcess.ProcessState.NotRunning:
            p.terminate()
            if not p.waitForFinished(2000):
                p.kill()
                p.waitForFinished(1000)


class PlayersDevicesDialog(QDialog):
    """The players' pages of the game in hand: where they are served, and each side's link."""

    def __init__(self, window: Any):
        super().__init__(window)
        self.window_ = window
        self.setWindowTitle("Players' devices")
        self.server = ServerProcess(self)
        self.server.ready.connect(self._show_links)
        self.server.failed.connect(self._failed)
        lay = QVBoxLayout(self)
        intro = QLabel(
            "Each side's page, on the players' own phones and tablets: what its player view shows "
            "and no more, following the game as it is played. Open a side's link (or scan its code) "
            "in any browser on the same network; keep each side's link to its players."
        )
        intro.setWordWrap(True)
        lay.addWidget(intro)
        row = QHBoxLayout()
        row.addWidget(QLabel("Serve to:"))
        self.host = QComboBox()
        for host, words in HOSTS:
            self.host.addItem(words, host)
        row.addWidget(self.host, 1)
        self.start_button = QPushButton("Start")
        self.start_button.clicked.connect(self.toggle)
        row.addWidget(self.start_button)
        lay.addLayout(row)
        self.status = QLabel("Not serving.")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        self.grid = QGridLayout()
        holder = QWidget()
        holder.setLayout(self.grid)
        lay.addWidget(holder)
        buttons = QHBoxLayout()
        self.renew_button = QPushButton("New links (end the old ones)")
        self.renew_button.clicked.connect(self.renew)
        self.print_button = QPushButton("Print…")
        self.print_button.clicked.connect(self.print_links)
        close = QPushButton("Close")
        close.clicked.connect(self.hide)
        for b in (self.renew_button, self.print_button):
            b.setEnabled(False)
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(close)
        lay.addLayout(buttons)
        window.controller.gameReplaced.connect(self._game_replaced)

    # -- serving -------------------------------------------------------------------------------
    def toggle(self) -> None:
        if self.server.running:
            self.stop()
        else:
            self.start()

    def start(self) -> None:
        game = self.window_.controller.game
        if game is None:
            self.status.setText("No game is open.")
            return
        game.write()  # a new game's file, if its first action has not written it yet
        self.status.setText("Starting…")
        self.start_button.setText("Stop")
        self.host.setEnabled(False)
        self.server.start(str(game.path), self.host.currentData())

    def stop(self) -> None:
        self.server.stop()
        self._clear()
        self.status.setText("Not serving: the links no longer open.")
        self.start_button.setText("Start")
        self.host.setEnabled(True)
        self.renew_button.setEnabled(False)
        self.print_button.setEnabled(False)

    def _failed(self, why: str) -> None:
        self.stop()
        self.status.setText(f"The pages could not be served: {why}")

    def _game_replaced(self, *_args) -> None:
        if self.server.running:
            self.stop()
            self.status.setText("Stopped: another game was opened. Start again to serve its pages.")

    def renew(self) -> None:
        try:
            self.server.renew()
        except OSError as exc:
            self.status.setText(f"New links could not be issued: {exc}")
            return
        self._show_links(self.server.info or {})
        self.status.setText("New links issued: the old ones no longer open. Give each side its new link.")

    # -- the links -----------------------------------------------------------------------------------
    def _clear(self) -> None:
        while self.grid.count():
            w = self.grid.takeAt(0).widget()
            if w is not None:
                w.deleteLater()

    def _show_links(self, info: dict) -> None:
        self._clear()
        names = info.get("names", {})
        for row, (side, link) in enumerate(info.get("links", {}).items()):
            name = QLabel(f"<b>{escape(names.get(side, side))}</b>")
            field = QLineEdit(link)
            field.setReadOnly(True)
            field.setMinimumWidth(380)
            field.setObjectName(f"link-{side}")
            field.setCursorPosition(0)  # the link read from its start
            copy = QPushButton("Copy")
            copy.clicked.connect(lambda _=False, text=link: QGuiApplication.clipboard().setText(text))
            code = QLabel()
            pix = QPixmap()
            pix.loadFromData(qr_png(link, 4))
            code.setPixmap(pix)
            code.setAlignment(Qt.AlignmentFlag.AlignCenter)
            code.setToolTip(f"Scan with a phone's camera to open the {names.get(side, side)} side's page")
            self.grid.addWidget(name, row * 2, 0)
            self.grid.addWidget(field, row * 2, 1)
            self.grid.addWidget(copy, row * 2, 2)
            self.grid.addWidget(code, row * 2 + 1, 1)
        self.status.setText(
            "Serving. Each side's link opens its page; the bare address shows no side."
            if self.host.currentData() != "127.0.0.1"
            else "Serving to this laptop only: choose the local network for the players' devices."
        )
        self.renew_button.setEnabled(True)
        self.print_button.setEnabled(True)
        self.adjustSize()

    def links_document(self) -> QTextDocument:
        """The links and their codes as a page to print, one side to a block (cut them apart)."""
        info = self.server.info or {}
        names = info.get("names", {})
        parts = ["<h2>Players' devices</h2>"]
        doc = QTextDocument()
        for side, link in info.get("links", {}).items():
            doc.addResource(
                QTextDocument.ResourceType.ImageResource, QUrl(f"qr:{side}"), QImage.fromData(qr_png(link, 6))
            )
            parts.append(
                f"<h3>The {escape(names.get(side, side))} side</h3><p><img src='qr:{escape(side)}'></p>"
                f"<p><tt>{escape(link)}</tt></p>"
                "<p>Open in a browser on the table's network. Keep this link to your side.</p><hr>"
            )
        doc.setHtml("".join(parts))
        return doc

    def print_links(self) -> None:
        from PySide6.QtPrintSupport import QPrintDialog, QPrinter

        from gui.dialogs import exec_dialog

        printer = QPrinter()
        if exec_dialog(QPrintDialog(printer, self)) == QDialog.DialogCode.Accepted:
            self.links_document().print_(printer)

    def closeEvent(self, event) -> None:  # noqa: N802
        self.hide()  # the pages go on being served until Stop, or the window closes
        event.ignore()


def open_players_devices(window: Any) -> PlayersDevicesDialog:
    """The window's Players' devices dialog (one, kept while the window is)."""
    dlg = getattr(window, "players_devices", None)
    if dlg is None:
        dlg = window.players_devices = PlayersDevicesDialog(window)
    dlg.show()
    dlg.raise_()
    return dlg


# -- a Trigger Window answered from the table ------------------------------------------------------


def _post_json(url: str, data: dict) -> None:
    import urllib.request

    req = urllib.request.Request(
        url, data=json.dumps(data).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(req, timeout=2) as r:
        r.read()


class TableAnswers(QObject):
    """While a Trigger Window's dialog is open, the defending side's devices show the window
    (:mod:`serve.reaction_window`), and what a player answers there appears in the dialog, with a
    button that takes it: the umpire accepts it or answers otherwise. The dialog never waits on a
    device; if the pages' server is gone, the dialog goes on without it."""

    POLL_MS = 300

    def __init__(self, dialog: Any, info: dict, window: dict, names: dict[str, str]):
        super().__init__(dialog)
        import urllib.request

        from PySide6.QtCore import QTimer

        self.dialog, self.info, self.window = dialog, info, window
        self.since = 0
        self.answer: dict | None = None
        _post_json(info["umpire"] + "/window", {"side": window["side"], "window": window})
        try:
            with urllib.request.urlopen(info["umpire"] + "/answers", timeout=2) as r:
                self.since = max([a["n"] for a in json.loads(r.read())], default=0)
        except (OSError, ValueError):
            pass
        side_name = names.get(window["side"], window["side"])
        self.banner = QLabel(
            f"The {side_name} side's devices show this window: their answer will appear here."
        )
        self.banner.setObjectName("table_answer")
        self.banner.setWordWrap(True)
        self.take = QPushButton("Take the side's answer")
        self.take.setObjectName("take_table_answer")
        self.take.setEnabled(False)
        self.take.clicked.connect(self.take_answer)
        row = QWidget(dialog)
        h = QHBoxLayout(row)
        h.setContentsMargins(0, 0, 0, 0)
        h.addWidget(self.banner, 1)
        h.addWidget(self.take)
        dialog.form_host.layout().insertWidget(2, row)
        self.side_name = side_name
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.poll)
        self.timer.start(self.POLL_MS)

    def poll(self) -> None:
        import urllib.request

        try:
            with urllib.request.urlopen(f"{self.info['umpire']}/answers?since={self.since}", timeout=1) as r:
                answers = json.loads(r.read())
        except (OSError, ValueError):
            return
        for a in answers:
            self.since = max(self.since, a["n"])
            if a["window"] == self.window["id"]:
                self.answer = a
        if self.answer is not None:
            words = []
            for d in self.window["defenders"]:
                key = self.answer["choices"].get(d["id"])
                if key is not None:
                    label = next((o["label"] for o in d["options"] if o["key"] == key), key)
                    words.append(f"{d['name']}: {label}")
            self.banner.setText(
                f"<b>The {escape(self.side_name)} side answers:</b> " + escape("; ".join(words))
            )
            self.take.setEnabled(True)

    def take_answer(self) -> None:
        """Set the dialog's choices to the side's answer (the umpire still resolves it)."""
        if self.answer is None:
            return
        self.dialog.table_answer = dict(self.answer["choices"])
        for defender, key in self.answer["choices"].items():
            self.dialog.choose(defender, None if key == "none" else key)

    def close(self) -> None:
        self.timer.stop()
        try:
            _post_json(self.info["umpire"] + "/window", {"side": self.window["side"], "window": None})
        except OSError:
            pass


def table_answers(parent: Any, controller: Any, dialog: Any, inter: Any) -> TableAnswers | None:
    """Show the dialog's window on the defending side's devices, when the pages are served."""
    window = parent.window() if hasattr(parent, "window") else None
    devices = getattr(window, "players_devices", None)
    info = devices.server.info if devices is not None else None
    if info is None or not inter.window.defenders:
        return None
    from serve.reaction_window import window_page
    from storage.sightings import Sightings

    battle = inter.battle
    side = battle.unit(inter.window.defenders[0].defender).side
    try:
        names = Sightings.of(controller.game).view(side).names()
        page = window_page(battle, inter.window, controller.tables, names, inter.chances)
        return TableAnswers(dialog, info, page, info.get("names", {}))
    except OSError:
        return None
