"""Heavy libraries imported when they are first used rather than when a module is imported.

numpy and shapely take about a fifth of a second to import. The application draws its first
window without either (a footprint's corners are plain arithmetic), so the modules on that path
name them through :func:`lazy_module`: a stand-in that imports the library on its first use and
then puts the real module in its place, so later calls pay nothing.

>>> ns = {}
>>> ns["json"] = lazy_module("json", ns)
>>> ns["json"].dumps([1])
'[1]'
>>> type(ns["json"]).__name__
'module'
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands in for module ``name`` in the namespace ``namespace`` under ``alias`` until first used."""

    __slots__ = ("_alias", "_name", "_namespace")

    def __init__(self, name: str, namespace: dict[str, Any], alias: str) -> None:
        self._name = name
        self._namespace = namespace
        self._alias = alias

    def __getattr__(self, attr: str) -> Any:
        if attr in LazyModule.__slots__:  # a copy made without __init__ (copy.copy) has none
            raise AttributeError(attr)
        module = importlib.import_module(self._name)
        self._namespace[self._alias] = module
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported when first used>"


def lazy_module(name: str, namespace: dict[str, Any], alias: str | None = None) -> Any:
    """A stand-in for module ``name``, to be kept in ``namespace`` (a module's ``globals()``) under
    ``alias`` (the module's last name by default)."""
    return LazyModule(name, namespace, alias or name.rsplit(".", 1)[-1])
