"""Every rule of the three chapters is cited by a test that asserts it, and every citation can be
found by searching for its id.

The chapters are read from the rulebook itself (``[RULE-04-2.5]`` ...). A rule counts as asserted
when its id is in a test's assertion: an ``assert`` statement (its expression or its message), a
``pytest.raises(..., match=...)``, or the data a parametrized test asserts on. Ranges such as
"RULE-06-2.3 to 2.5" hide the ids between their ends from a search, so the code, the tests and the
documents write each id out.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULEBOOK = ROOT.parent / "shared" / "rulebook"
ID = re.compile(r"RULE-0\d-\d+\.\d+")


def _rulebook_folder() -> Path:
    for candidate in (RULEBOOK, Path("/work/shared/rulebook")):
        if candidate.is_dir():
            return candidate
    raise AssertionError("the rulebook chapters are not found next to the project")


def chapter_ids() -> set[str]:
    ids: set[str] = set()
    for f in _rulebook_folder().glob("*.txt"):
        ids |= set(re.findall(r"\[(RULE-0\d-\d+\.\d+)\]", f.read_text(encoding="utf-8")))
    return ids


def _strings(node: ast.AST):
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            yield n.value


def asserted_ids() -> dict[str, set[str]]:
    """Rule id -> the test files whose assertions cite it."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.name == "test_citations.py":
            continue  # this file names rules to check the others, it asserts none of them
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for n in ast.walk(tree):
            texts: list[str] = []
            if isinstance(n, ast.Assert):
                texts = list(_strings(n))
            elif isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "raises":
                texts = list(_strings(n))
            elif isinstance(n, ast.FunctionDef) and n.name.startswith("test"):
                for d in n.decorator_list:
                    if isinstance(d, ast.Call) and getattr(d.func, "attr", "") == "parametrize":
                        texts += list(_strings(d))
            for t in texts:
                for rule in ID.findall(t):
                    found.setdefault(rule, set()).add(str(path.relative_to(ROOT)))
    return found


def test_the_chapters_have_their_rules():
    ids = chapter_ids()
    assert {"RULE-03-1.1", "RULE-04-2.5", "RULE-06-2.2", "RULE-06-2.3", "RULE-06-5.2"} <= ids
    assert len(ids) == 72


def test_every_rule_of_the_three_chapters_is_cited_by_a_test_that_asserts_it():
    missing = sorted(chapter_ids() - set(asserted_ids()))
    assert missing == [], f"no test assertion cites {', '.join(missing)}"


_RANGE = re.compile(
    r"RULE-0\d-\d+\.(?:\d+|x)(?: ?(?:to|\.\.|–) ?(?:RULE-0\d-)?\d+\.\d+|(?:, \d+\.\d+)+)|RULE-0\d-\d+\.x\b"
)


def test_every_citation_is_written_out_so_a_search_for_its_id_finds_it():
    """ "RULE-06-2.3 to 2.5" or "RULE-04-2.1, 2.2" or "RULE-04-2.x" is not found by a search for
    RULE-06-2.4 or RULE-04-2.2: each id is written out."""
    files = [p for d in ("rules", "storage", "gui", "tests", "benchmarks") for p in (ROOT / d).rglob("*.py")]
    files += [*ROOT.glob("*.md"), *(ROOT / "docs").rglob("*.md"), *(ROOT / "resources").rglob("*.toml")]
    bad = []
    for p in files:
        text = p.read_text(encoding="utf-8")
        for m in _RANGE.finditer(text):
            if p.name == "test_citations.py":
                continue
            line = text.count("\n", 0, m.start()) + 1
            bad.append(f"{p.relative_to(ROOT)}:{line}: {m.group(0)}")
    assert bad == []
