"""The timeline: any moment of the game seen again, without changing it.

A bar under the map holds every journal entry, marked where each game turn (tall, numbered) and
each side's phase (short) began, with buttons to step back and forward (an entry, a phase), to
play and pause, and to come back to now. Dragging it shows that moment on the map, the order of
battle and the inspector, read only (:meth:`gui.controller.GameController.look_back`), with a
banner above the map saying which moment it is; the plots' cursor stands at it and the battle
log's entry is chosen. Any action, undo or redo is refused while looking back; Esc, Alt+End or
the *Now* button returns to the game now. Nothing is written to the save.

The same bar serves a player view (:class:`gui.player_view.PlayerWindow`), where a moment is what
that side knew then. The bar asks its *source* (:class:`TimelineSource`) for the timeline, the
moment shown and to show another; the window's source is :class:`ControllerTimeline`.

While the bar is dragged, each moment asked for is shown as soon as the one before is painted
(a moment a frame while the window keeps up), and the last one asked for is always shown.
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QObject, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QFont, QKeySequence, QPainter, QPen
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QToolButton,
    QWidget,
)

from gui.controller import FOLLOW_AFTER_MS
from storage.timeline import PhaseStops, Timeline

#: How long each entry is shown while the timeline plays (milliseconds).
PLAY_EVERY_MS = 350
#: More entries than any journal has (the bar's record of the fewest there were between two reads).
_UNLIMITED = 1 << 62
#: How long the timeline rests on a moment before the battle log chooses its entry (milliseconds).
LOG_FOLLOWS_AFTER_MS = 250


class TimelineSource(Protocol):
    """What a :class:`TimelineBar` asks of the game it shows."""

    def timeline(self) -> Timeline | None: ...

    def shown_seq(self) -> int | None:
        """The entry after which the moment shown stands; None: the game now."""

    def seek(self, seq: int) -> None: ...

    def now(self) -> None: ...

    def side_name(self, side: str) -> str: ...


class TimelineSlider(QSlider):
    """A horizontal slider over the journal's entries, with the starts of game turns (tall, with
    their number where there is room) and of phases (short) marked under its groove."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setObjectName("timeline_slider")
        self.setMinimumHeight(34)
        self.setMinimumWidth(160)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setPageStep(10)
        self.turn_marks: list[tuple[int, int]] = []  # (seq, turn)
        self.phase_marks: list[int] = []

    def set_marks(self, timeline: Timeline) -> None:
        self.turn_marks = [(m.seq, m.turn) for m in timeline.marks if m.turn_start]
        self.phase_marks = [m.seq for m in timeline.marks if not m.turn_start]
        self.update()

    def _geometry(self) -> tuple[int, int]:
        """Where the groove's first entry is, and how many pixels the entries span."""
        opt = QStyleOptionSlider()
        self.initStyleOption(opt)
        style = self.style()
        groove = style.subControlRect(
            QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderGroove, self
        )
        handle = style.subControlRect(
            QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderHandle, self
        )
        return groove.x() + handle.width() // 2, max(1, groove.width() - handle.width())

    def x_of(self, seq: int, geometry: tuple[int, int] | None = None) -> int:
        """Where entry ``seq`` is along the groove, in the slider's own pixels."""
        left, span = geometry or self._geometry()
        return left + QStyle.sliderPositionFromValue(self.minimum(), self.maximum(), seq, span)

    def paintEvent(self, event) -> None:  # noqa: N802
        p = QPainter(self)
        try:
            h = self.height()
            geo = self._geometry()
            p.setPen(QPen(QColor("#9aa3ad"), 1))
            drawn = set()
            for seq in self.phase_marks:
                x = self.x_of(seq, geo)
                if x not in drawn:  # a long game's phases share pixels: each drawn once
                    drawn.add(x)
                    p.drawLine(x, h - 7, x, h - 2)
            font = QFont(self.font())
            font.setPixelSize(9)
            p.setFont(font)
            last_label = -1000
            for seq, turn in self.turn_marks:
                x = self.x_of(seq, geo)
                p.setPen(QPen(QColor("#3b4856"), 1))
                p.drawLine(x, h - 12, x, h - 1)
                text = str(turn)
                w = p.fontMetrics().horizontalAdvance(text)
                if x + 2 - last_label > w + 4:  # numbered where there is room
                    p.drawText(QRect(x + 2, h - 13, w + 2, 11), int(Qt.AlignmentFlag.AlignLeft), text)
                    last_label = x + 2 + w
        finally:
            p.end()
        super().paintEvent(event)


class TimelineBar(QWidget):
    """The bar of the timeline: buttons, the slider and the moment shown, over a source."""

    def __init__(self, source: TimelineSource, parent: QWidget | None = None, keys: bool = True):
        super().__init__(parent)
        self.setObjectName("timeline_bar")
        self.source = source
        self._timeline: Timeline | None = None
        self._pending: int | None = None
        self._updating = False
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 2, 6, 2)
        row.setSpacing(2)

        def button(icon: QStyle.StandardPixmap | str, tip: str, slot, name: str) -> QToolButton:
            b = QToolButton(self)
            b.setObjectName(name)
            if isinstance(icon, str):
                b.setText(icon)
            else:  # the style's own media pictures: every platform's fonts draw them
                b.setIcon(self.style().standardIcon(icon))
            b.setToolTip(tip)
            b.setAutoRaise(True)
            b.clicked.connect(slot)
            row.addWidget(b)
            return b

        self.start_button = button(
            QStyle.StandardPixmap.SP_MediaSkipBackward,
            "As the game began (Alt+Home)",
            lambda: self.seek(0),
            "timeline_start",
        )
        self.phase_back = button(
            QStyle.StandardPixmap.SP_MediaSeekBackward,
            "Back to the start of the phase (Alt+Page Up)",
            self.phase_before,
            "timeline_phase_back",
        )
        self.step_back = button(
            QStyle.StandardPixmap.SP_ArrowLeft,
            "One entry back (Alt+Left)",
            lambda: self.step(-1),
            "timeline_step_back",
        )
        self.play_button = button(
            QStyle.StandardPixmap.SP_MediaPlay,
            "Play the game from here, an entry at a time",
            self.toggle_play,
            "timeline_play",
        )
        self.step_on = button(
            QStyle.StandardPixmap.SP_ArrowRight,
            "One entry on (Alt+Right)",
            lambda: self.step(1),
            "timeline_step_on",
        )
        self.phase_on = button(
            QStyle.StandardPixmap.SP_MediaSeekForward,
            "On to the start of the next phase (Alt+Page Down)",
            self.phase_after,
            "timeline_phase_on",
        )
        self.slider = TimelineSlider(self)
        self.slider.setToolTip("Every entry of the battle log: drag to see the battle as it stood after it")
        self.slider.valueChanged.connect(self._slider_moved)
        row.addWidget(self.slider, 1)
        self.now_button = button("Now", "Back to the game now (Esc, Alt+End)", self.now, "timeline_now")
        self.now_button.setAutoRaise(False)  # a button that reads as one: the way back
        self.label = QLabel(self)
        self.label.setObjectName("timeline_label")
        self.label.setMinimumWidth(230)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        row.addWidget(self.label)

        # the moment asked for last is shown once the window has painted the one before
        self._seek_timer = QTimer(self)
        self._seek_timer.setSingleShot(True)
        self._seek_timer.setInterval(0)
        self._seek_timer.timeout.connect(self._show_pending)
        self._play_timer = QTimer(self)
        self._play_timer.setInterval(PLAY_EVERY_MS)
        self._play_timer.timeout.connect(self._play_one)

        self.actions_by_name: dict[str, QAction] = {}
        if keys:
            for name, text, shortcut, slot in (
                ("start", "Timeline: as the game began", "Alt+Home", lambda: self.seek(0)),
                ("phase_back", "Timeline: back to the phase's start", "Alt+PgUp", self.phase_before),
                ("step_back", "Timeline: one entry back", "Alt+Left", lambda: self.step(-1)),
                ("step_on", "Timeline: one entry on", "Alt+Right", lambda: self.step(1)),
                ("phase_on", "Timeline: on to the next phase", "Alt+PgDown", self.phase_after),
                ("now", "Timeline: back to now", "Alt+End", self.now),
            ):
                a = QAction(text, self)
                a.setShortcut(QKeySequence(shortcut))
                a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
                a.triggered.connect(slot)
                self.addAction(a)
                self.actions_by_name[name] = a
        self.refresh()

    # -- what it shows ------------------------------------------------------------------------------
    @property
    def timeline(self) -> Timeline | None:
        return self._timeline

    @property
    def shown(self) -> int:
        """The entry after which the moment shown stands (the last: now)."""
        seq = self.source.shown_seq()
        last = self._timeline.last if self._timeline is not None else 0
        return last if seq is None else seq

    def refresh(self) -> None:
        """Read the timeline again (the journal changed, another game) and show the moment shown."""
        self._timeline = self.source.timeline()
        tl = self._timeline
        self._updating = True
        try:
            if tl is None:
                self.slider.setRange(0, 0)
                self.label.setText("")
            else:
                self.slider.setRange(0, tl.last)
                self.slider.set_marks(tl)
                self.slider.setValue(self.shown)
        finally:
            self._updating = False
        self.moment_shown()

    def moment_shown(self) -> None:
        """The source shows another moment: the slider, the buttons and the words follow."""
        tl = self._timeline
        looking = self.source.shown_seq() is not None
        if tl is None:
            for w in (
                self.start_button,
                self.phase_back,
                self.step_back,
                self.play_button,
                self.step_on,
                self.phase_on,
                self.now_button,
            ):
                w.setEnabled(False)
            return
        seq = self.shown
        if self._pending is None and self.slider.value() != seq:
            self._updating = True
            try:
                self.slider.setValue(seq)
            finally:
                self._updating = False
        words = tl.label(seq, self.source.side_name)
        self.label.setText(words if looking else f"Now: {words}")
        self.label.setToolTip(self.label.text())
        self.start_button.setEnabled(seq > 0)
        self.phase_back.setEnabled(seq > 0)
        self.step_back.setEnabled(seq > 0)
        self.step_on.setEnabled(seq < tl.last)
        self.phase_on.setEnabled(seq < tl.last)
        self.play_button.setEnabled(seq < tl.last or self.playing)
        self.now_button.setEnabled(looking)
        if not looking and self.playing:
            self.pause()

    # -- moving through it ---------------------------------------------------------------------------
    def seek(self, seq: int) -> None:
        """Show the moment after entry ``seq`` (the last: now)."""
        tl = self._timeline
        if tl is None:
            return
        seq = max(0, min(tl.last, int(seq)))
        if seq >= tl.last:
            self.source.now()
        else:
            self.source.seek(seq)
        self.moment_shown()

    def step(self, by: int) -> None:
        self.seek(self.shown + by)

    def phase_before(self) -> None:
        if self._timeline is not None:
            self.seek(self._timeline.mark_before(self.shown))

    def phase_after(self) -> None:
        if self._timeline is not None:
            self.seek(self._timeline.mark_after(self.shown))

    def now(self) -> None:
        self.pause()
        self.source.now()
        self.moment_shown()

    def _slider_moved(self, value: int) -> None:
        if self._updating:
            return
        self._pending = value
        if not self._seek_timer.isActive():
            self._seek_timer.start()

    def _show_pending(self) -> None:
        seq, self._pending = self._pending, None
        if seq is not None:
            self.seek(seq)

    # -- playing ---------------------------------------------------------------------------------
    @property
    def playing(self) -> bool:
        return self._play_timer.isActive()

    def toggle_play(self) -> None:
        if self.playing:
            self.pause()
        else:
            self.play()

    def play(self) -> None:
        tl = self._timeline
        if tl is None or self.shown >= tl.last:
            return
        self._play_timer.start()
        self.play_button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPause))
        self.play_button.setToolTip("Pause")

    def pause(self) -> None:
        self._play_timer.stop()
        self.play_button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
        self.play_button.setToolTip("Play the game from here, an entry at a time")

    def _play_one(self) -> None:
        tl = self._timeline
        if tl is None:
            self.pause()
            return
        nxt = self.shown + 1
        if nxt >= tl.last:
            self.pause()
        self.seek(nxt)


class LookBackBanner(QFrame):
    """The strip above the map while looking back: which moment it is, and the way back to now."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("look_back_banner")
        self.setStyleSheet(
            "QFrame#look_back_banner { background: #dbe8f7; border: 1px solid #7a9cc6; }"
            " QLabel#look_back_text { color: #17324f; font-weight: bold; }"
        )
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 4, 6, 4)
        self.label = QLabel(self)
        self.label.setObjectName("look_back_text")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        row.addWidget(self.label, 1)
        self.now_button = QToolButton(self)
        self.now_button.setText("Back to now (Esc)")
        row.addWidget(self.now_button)
        self.hide()

    def text(self) -> str:
        return self.label.text()

    def show_moment(self, words: str | None) -> None:
        if words is None:
            self.label.setText("")
            self.hide()
            return
        self.label.setText(
            f"{words}: looking back. The map, the order of battle and the inspector show that moment; nothing can be changed here."
        )
        self.show()


class ControllerTimeline(QObject):
    """The window's timeline source: the game in hand's journal, looked back at through its
    controller (:meth:`~gui.controller.GameController.look_back`)."""

    def __init__(self, controller: Any, parent: QObject | None = None):
        super().__init__(parent)
        self.controller = controller
        self._timeline: Timeline | None = None

    def forget(self) -> None:
        """Another game, or its journal read again: the timeline is read whole when next asked."""
        self._timeline = None

    def follow(self, kept: int | None = None) -> None:
        """The game in hand took steps, Undos or Redos, the journal never shorter than ``kept``
        entries meanwhile: only the entries after it are read."""
        game = self.controller.game
        if self._timeline is not None and game is not None:
            self._timeline = self._timeline.following(game, kept)

    def timeline(self) -> Timeline | None:
        game = self.controller.game
        if game is None:
            return None
        if self._timeline is None:
            self._timeline = Timeline.of(game)
        return self._timeline

    def shown_seq(self) -> int | None:
        return self.controller.looking_back

    def seek(self, seq: int) -> None:
        self.controller.look_back(seq)

    def now(self) -> None:
        self.controller.back_to_now()

    def side_name(self, side: str) -> str:
        game = self.controller.game
        try:
            return game.battle.oob.side_name(side)
        except Exception:
            return side


class SideTimeline(QObject):
    """A player view's timeline source: the ends of the phases played
    (:class:`storage.timeline.PhaseStops`), each as the side knew it then (its
    :class:`gui.player_view.SideFeed` looking back, its ``at``). Told by turn and phase, never by
    journal entry: how many entries a phase took says how busy the enemy was."""

    def __init__(self, feed: Any):
        super().__init__(feed)
        self.feed = feed
        self._stops: PhaseStops | None = None

    def forget(self) -> None:
        self._stops = None

    def follow(self, kept: int | None = None) -> None:
        """The game took steps, Undos or Redos, the journal never shorter than ``kept`` entries
        meanwhile: only the entries after it are read."""
        game = self.feed.controller.game
        if self._stops is not None and game is not None:
            self._stops = PhaseStops(self._stops.timeline.following(game, kept))

    def timeline(self) -> PhaseStops | None:
        game = self.feed.controller.game
        if game is None:
            return None
        if self._stops is None:
            self._stops = PhaseStops(Timeline.of(game))
        return self._stops

    def shown_seq(self) -> int | None:
        seq = self.feed.moment()
        stops = self.timeline()
        return None if seq is None or stops is None else stops.position_of(seq)

    def seek(self, k: int) -> None:
        stops = self.timeline()
        if stops is None:
            return
        self.feed.at = stops.seq_of(k)
        self.feed.refresh()

    def now(self) -> None:
        if self.feed.at is not None:
            self.feed.at = None
            self.feed.refresh()

    def side_name(self, side: str) -> str:
        view = self.feed.view
        try:
            return view.side_name(side) if view is not None else side
        except Exception:  # the game in hand has no such side
            return side


class BarFollower(QObject):
    """Keeps a :class:`TimelineBar` up with the game a moment after each step, once the step is
    painted (as the Checklist and Plots docks do: :data:`gui.controller.FOLLOW_AFTER_MS`): steps
    in quick succession are read together, and only the entries after the fewest the journal had
    meanwhile are read (an Undo takes entries back, a step or a Redo adds them). Another game is
    read whole."""

    def __init__(self, controller: Any, source: Any, bar: TimelineBar, parent: QObject | None = None):
        super().__init__(parent)
        self.controller, self.source, self.bar = controller, source, bar
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FOLLOW_AFTER_MS)
        self._timer.timeout.connect(self._catch_up)
        self._kept = _UNLIMITED
        controller.eventsChanged.connect(self._journal_changed)
        controller.gameReplaced.connect(self._game_replaced)

    def _journal_changed(self) -> None:
        game = self.controller.game
        if game is not None:
            self._kept = min(self._kept, game.last_seq)
        if not self._timer.isActive():
            self._timer.start()

    def _game_replaced(self) -> None:
        self._timer.stop()
        self._kept = _UNLIMITED
        self.source.forget()
        self.bar.refresh()

    def _catch_up(self) -> None:
        self.source.follow(self._kept)
        self._kept = _UNLIMITED
        self.bar.refresh()

    def catch_up(self) -> None:
        """Bring the bar up to the game now (rather than when the moment after the step comes)."""
        if self._timer.isActive():
            self._timer.stop()
            self._catch_up()


class WindowTimeline(QObject):
    """The timeline of the main window: the bar under the map, the banner above it, and what
    follows the moment shown (the plots' cursor, the battle log's entry, the actions of play)."""

    shownChanged = Signal(object)  # the entry looked back at, or None

    def __init__(self, window: Any):
        super().__init__(window)
        self.window = window
        controller = window.controller
        self.source = ControllerTimeline(controller, self)
        self.bar = TimelineBar(self.source, window.canvas)
        self.banner = LookBackBanner(window.canvas)
        self.banner.now_button.clicked.connect(self.bar.now)
        lay = window.canvas.layout()
        lay.insertWidget(1, self.banner)  # under the map's tools
        lay.addWidget(self.bar)
        self.back_action = QAction("Back to now", window)
        self.back_action.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        self.back_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.back_action.setEnabled(False)
        self.back_action.triggered.connect(self.bar.now)
        window.addAction(self.back_action)
        self.follower = BarFollower(controller, self.source, self.bar, self)
        controller.lookingChanged.connect(self._looking_changed)
        # the battle log chooses the moment's entry once the timeline rests there (reading a turn's
        # entries into the log is not for every moment a drag passes over)
        self._log_follow = QTimer(self)
        self._log_follow.setSingleShot(True)
        self._log_follow.setInterval(LOG_FOLLOWS_AFTER_MS)
        self._log_follow.timeout.connect(self._choose_log_entry)

    def catch_up(self) -> None:
        """Bring the bar up to the game now (rather than when the moment after the step comes)."""
        self.follower.catch_up()

    def _looking_changed(self, seq: int | None) -> None:
        self.bar.moment_shown()
        tl = self.bar.timeline
        words = tl.label(seq, self.source.side_name) if (seq is not None and tl is not None) else None
        self.banner.show_moment(words)
        self.back_action.setEnabled(seq is not None)
        if seq is not None and seq > 0:
            self._log_follow.start()
        else:
            self._log_follow.stop()
        self.shownChanged.emit(seq)

    def _choose_log_entry(self) -> None:
        seq = self.window.controller.looking_back
        if seq is not None and seq > 0:
            self.window.log.select_seq(seq)


def install(window: Any) -> WindowTimeline:
    """Add the timeline to a main window (under its map) and return it."""
    return WindowTimeline(window)
