"""Lazy re-exports for package ``__init__`` modules (PEP 562).

A package lists ``{public name: private module}``; a name is imported the first time it is used
and then cached in the package's namespace. ``import metrics_core`` (and every command line
start, ``clustlens --help`` included) then costs nothing until a function is actually called;
``from metrics_core import evaluate`` and ``metrics_core.evaluate`` work as before.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(
    package: str, namespace: dict[str, Any], exports: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` exporting ``exports`` lazily.

    Examples
    --------
    >>> ns = {}
    >>> get, names = lazy_exports("pkg", ns, {"sqrt": "math"})
    >>> get("sqrt")(9.0), "sqrt" in ns, names()
    (3.0, True, ['sqrt'])
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(exports) | {k for k in namespace if not k.startswith("_")})

    return __getattr__, __dir__
