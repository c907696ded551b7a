"""The examples in the docstrings of the rules core and the storage layer are run as tests."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import rules
import storage

MODULES = sorted(
    f"{pkg.__name__}.{m.name}" for pkg in (rules, storage) for m in pkgutil.iter_modules(pkg.__path__)
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed"
