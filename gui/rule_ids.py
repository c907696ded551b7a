"""Rule ids as the chapters and Brigadier cite them, and the links that open the rules reference at
one (``rule:RULE-04-2.3``) or the club's copy of the chapters at one (``chapter:RULE-04-2.3``).

Plain text work, read by the reference (:mod:`gui.help`) and by the citations made links
(:mod:`gui.rule_links`) alike.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QUrl

#: A rule id as the chapters and Brigadier cite it.
RULE_ID = re.compile(r"RULE-0\d-\d+\.\d+")
#: The scheme of the links that open the reference at a rule, and the club's copy at it.
SCHEME, CHAPTER_SCHEME = "rule", "chapter"

# -- citations as links -----------------------------------------------------------------------------

_ANCHOR = re.compile(r"(<a\b[^>]*>.*?</a>|<[^>]+>)", re.IGNORECASE | re.DOTALL)


def linkify(html_text: str) -> str:
    """``html_text`` with every rule id in its words (not in its tags, nor already a link) made a
    link that opens the reference at that rule.

    >>> linkify("hits on 4+ (RULE-04-2.3)")
    'hits on 4+ (<a href="rule:RULE-04-2.3">RULE-04-2.3</a>)'
    """
    out = []
    for piece in _ANCHOR.split(html_text):
        if not piece:
            continue
        if piece.startswith("<"):
            out.append(piece)
        else:
            out.append(RULE_ID.sub(lambda m: f'<a href="{SCHEME}:{m.group(0)}">{m.group(0)}</a>', piece))
    return "".join(out)


def rule_of_link(link: str | QUrl) -> tuple[str, str] | None:
    """(scheme, rule id) of a link made here; None for any other link."""
    text = link.toString() if isinstance(link, QUrl) else str(link)
    scheme, _, rest = text.partition(":")
    m = RULE_ID.search(rest)
    if scheme not in (SCHEME, CHAPTER_SCHEME) or m is None:
        return None
    return scheme, m.group(0)
