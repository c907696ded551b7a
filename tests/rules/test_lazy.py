"""The stand-in for a library imported at its first use (rules/lazy.py)."""

from __future__ import annotations

import copy
import json

import pytest

from rules.lazy import LazyModule, lazy_module


def test_the_first_use_puts_the_real_module_in_the_stand_ins_place():
    ns: dict = {}
    ns["j"] = lazy_module("json", ns, "j")
    assert isinstance(ns["j"], LazyModule)
    assert ns["j"].loads("[1, 2]") == [1, 2]
    assert ns["j"] is json


def test_a_name_the_module_has_not_is_an_attribute_error():
    ns: dict = {}
    ns["json"] = lazy_module("json", ns)
    with pytest.raises(AttributeError):
        ns["json"].no_such_function  # noqa: B018


def test_a_module_that_is_not_installed_is_an_import_error_at_first_use():
    ns: dict = {}
    ns["m"] = lazy_module("no_such_library_here", ns, "m")
    with pytest.raises(ModuleNotFoundError):
        ns["m"].anything  # noqa: B018
    assert isinstance(ns["m"], LazyModule)  # nothing was put in its place


def test_a_copy_of_a_stand_in_does_not_recurse():
    ns: dict = {}
    stand_in = lazy_module("json", ns)
    twin = copy.copy(stand_in)
    assert isinstance(twin, LazyModule)
    assert "imported when first used" in repr(stand_in)
