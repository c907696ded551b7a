"""The build enforces the layers: rules, storage and reports never import Qt, no modules import each
other in a circle, and the code passes ruff."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    found = BIN / name
    return str(found) if found.exists() else (shutil.which(name) or name)


def test_import_linter_contracts_hold():
    """rules never imports Qt, pyqtgraph or SQLite; storage never imports Qt or the GUI."""
    r = subprocess.run([_tool("lint-imports")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_passes():
    r = subprocess.run([_tool("ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_no_qt_import_below_the_gui_even_inside_functions():
    """import-linter sees module imports; this also catches imports hidden in functions or strings."""
    offenders = []
    for layer in ("rules", "storage", "reports"):
        for path in (ROOT / layer).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                elif (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "attr", getattr(node.func, "id", ""))
                    in ("import_module", "__import__")
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                ):
                    names = [str(node.args[0].value)]
                for n in names:
                    if n.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6", "gui"):
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {n}")
    assert not offenders, offenders


PACKAGES = ("rules", "storage", "reports", "cli", "gui")


def _circles() -> list[list[str]]:
    """The groups of modules that import each other in a circle (imports inside functions
    counted), as grimp (import-linter's reader) finds the imports."""
    import grimp

    graph = grimp.build_graph(*PACKAGES)
    mods = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in mods}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for m in mods:
        if m not in index:
            visit(m)
    return out


def test_no_modules_import_each_other_in_a_circle():
    """A newcomer reads a module knowing what it stands on: no circle of imports anywhere, a
    package's modules and their imports inside functions included."""
    assert _circles() == []


#: The most lines a module of the program may hold: a newcomer reads one whole.
MAX_MODULE_LINES = 700


def test_no_module_is_over_700_lines():
    """Every module of rules, storage, reports, the command line and the window is short enough to
    read whole: a longer one is split by what it holds."""
    long = {
        str(p.relative_to(ROOT)): n
        for pkg in PACKAGES
        for p in (ROOT / pkg).rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}
