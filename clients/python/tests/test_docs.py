"""Every public name of the package has a docstring."""

from __future__ import annotations

import inspect
from types import ModuleType

import graphmem
import graphmem.errors
import graphmem.langchain
import graphmem.models


def _undocumented(module: ModuleType, names: list[str]) -> list[str]:
    missing = []
    for name in names:
        obj = getattr(module, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if not inspect.getdoc(obj):
            missing.append(f"{module.__name__}.{name}")
        if inspect.isclass(obj) and obj.__module__.startswith("graphmem"):
            for attr, member in vars(obj).items():
                if attr.startswith("_") or not (inspect.isfunction(member) or isinstance(member, (property, classmethod))):
                    continue
                if not inspect.getdoc(member):
                    missing.append(f"{module.__name__}.{name}.{attr}")
    return missing


def _public(module: ModuleType) -> list[str]:
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    return [n for n in names if getattr(getattr(module, n), "__module__", "").startswith("graphmem")]


def test_every_public_name_is_documented() -> None:
    missing = []
    for module in (graphmem, graphmem.errors, graphmem.models, graphmem.langchain):
        if not module.__doc__:
            missing.append(module.__name__)
        missing += _undocumented(module, _public(module))
    assert not missing, missing
