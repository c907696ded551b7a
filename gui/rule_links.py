"""Rule citations as links: every rule id cited in the log, the inspector and the dialogs is a
link (:func:`linkify`, :func:`connect_links`) that opens the rules reference at that rule
(:func:`gui.help.open_rule`).

The window links its citations as it is built; the reference itself (:mod:`gui.help`) is read
when a link or F1 first opens it.
"""

from __future__ import annotations

import html

from PySide6 import QtGui
from PySide6.QtCore import QEvent, QObject, Qt, QUrl
from PySide6.QtWidgets import QApplication, QLabel, QTextBrowser, QWidget

from gui.rule_ids import CHAPTER_SCHEME, RULE_ID, SCHEME, linkify, rule_of_link

__all__ = [
    "CHAPTER_SCHEME",
    "RULE_ID",
    "SCHEME",
    "connect_links",
    "link_browser",
    "link_label",
    "linkify",
    "open_link",
    "rule_of_link",
]


def open_link(link: str | QUrl, parent: QWidget | None = None) -> bool:
    """Open the reference (or the club's copy) at the rule of a link; False for other links."""
    got = rule_of_link(link)
    if got is None:
        return False
    scheme, rid = got
    from gui.help import open_rule

    window = open_rule(rid, parent)
    if scheme == CHAPTER_SCHEME:
        window.show_chapter(rid)
    return True


def link_label(w: QLabel) -> bool:
    """Make the rule ids a label cites links (its text turned to rich text where it was plain);
    True if it cites any."""
    text = w.text()
    if not RULE_ID.search(text):
        return False
    if w.textFormat() == Qt.TextFormat.PlainText or not QtGui.Qt.mightBeRichText(text):
        text = html.escape(text).replace("\n", "<br>")
    linked = linkify(text)
    if linked != w.text() or w.textFormat() != Qt.TextFormat.RichText:
        w.setTextFormat(Qt.TextFormat.RichText)
        w.setText(linked)
    return True


def link_browser(w: QTextBrowser) -> bool:
    """Make the rule ids a text browser's page cites links; True if it cites any."""
    doc = w.document()
    if not RULE_ID.search(doc.toPlainText()):
        return False
    page = doc.toHtml()
    linked = linkify(page)
    if linked != page:
        w.blockSignals(True)
        try:
            w.setHtml(linked)
        finally:
            w.blockSignals(False)
    return True


class _Linker(QObject):
    """Keeps a widget's citations linked as its words change: a label is linked before it is
    painted, a text browser each time its page changes."""

    def eventFilter(self, watched, event) -> bool:  # noqa: N802
        if event.type() in (QEvent.Type.Paint, QEvent.Type.Show) and isinstance(watched, QLabel):
            link_label(watched)
        return False


_LINKER: list[_Linker] = []


def _linker() -> _Linker:
    if not _LINKER:
        _LINKER.append(_Linker(QApplication.instance()))
    return _LINKER[0]


def connect_links(widget: QWidget, now: bool = False) -> int:
    """Make the rule citations in ``widget`` and everything in it links to the reference, as they
    are shown and as their words change: a click opens the reference at the rule. A label's words
    are linked when it is shown or painted (``now``: at once). Returns how many labels and text
    browsers cite a rule now."""
    n = 0
    # only the labels and text browsers are looked up (and given Python wrappers), not every widget
    itself = [widget] if isinstance(widget, (QLabel, QTextBrowser)) else []
    for w in [*itself, *widget.findChildren(QTextBrowser), *widget.findChildren(QLabel)]:
        if isinstance(w, QTextBrowser):
            if not w.property("rule_links"):
                w.setProperty("rule_links", True)
                w.setOpenLinks(False)
                w.anchorClicked.connect(lambda url, w=w: open_link(url, w))
                w.textChanged.connect(lambda w=w: link_browser(w))
            n += link_browser(w)
        elif isinstance(w, QLabel):
            if not w.property("rule_links"):
                w.setProperty("rule_links", True)
                w.setOpenExternalLinks(False)
                w.setTextInteractionFlags(
                    w.textInteractionFlags() | Qt.TextInteractionFlag.LinksAccessibleByMouse
                )
                w.linkActivated.connect(lambda link, w=w: open_link(link, w))
                w.installEventFilter(_linker())
            n += link_label(w) if now else bool(RULE_ID.search(w.text()))
    return n
