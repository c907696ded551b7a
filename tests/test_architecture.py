"""The build enforces the layers: rules and storage never import Qt, and the code passes ruff."""

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
    for layer in ("rules", "storage"):
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
