"""Built figures kept by the content of their arguments, so a rerun whose inputs did not change
draws the figure it already has.

Building a Plotly figure is mostly Plotly validating every property it is given (20-130 ms a
figure here, most of a cached page's rerun); the page, the report and the exports all call the
same builders, so keeping the result once serves them all. The key is the builder's name and a
digest of its arguments' *content* (arrays hashed, never kept as keys), so two sessions with
equal inputs share a figure and a changed input can never get a stale one.

A kept figure is shared: nobody may change it. Builders return new figures (composing others
with ``return other(...)`` only); whoever restyles one copies it first (``go.Figure(fig)``, as
presentation mode and the report do). Arguments of a kind the digest does not know are not
guessed at: the builder then simply runs.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import numpy as np
import scipy.sparse as sp

#: Figures kept (least recently used dropped first); the largest are a few MB of arrays.
MAX_FIGURES = 96

F = TypeVar("F", bound=Callable[..., Any])

_figures: OrderedDict[tuple[str, bytes], Any] = OrderedDict()
_lock = threading.Lock()
_stats = {"hits": 0, "misses": 0, "unkeyed": 0}


class _Unkeyable(Exception):
    """An argument whose content the digest cannot read."""


def _feed(h: Any, value: Any) -> None:
    """Feed ``value``'s type and content into the hash ``h``."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        h.update(f"{type(value).__name__}:{value!r};".encode())
    elif isinstance(value, np.ndarray):
        h.update(f"nd:{value.dtype.str}:{value.shape};".encode())
        if value.dtype.hasobject:
            for item in value.ravel():
                _feed(h, item)
        else:
            h.update(np.ascontiguousarray(value).data)
    elif isinstance(value, np.generic):
        h.update(f"np:{value.dtype.str}:{value!r};".encode())
    elif sp.issparse(value):
        csr = sp.csr_array(value)
        h.update(f"sp:{csr.shape};".encode())
        for part in (csr.data, csr.indices, csr.indptr):
            _feed(h, part)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        h.update(f"dc:{type(value).__qualname__}(".encode())
        for f in dataclasses.fields(value):
            h.update(f"{f.name}=".encode())
            _feed(h, getattr(value, f.name))
        h.update(b")")
    elif isinstance(value, Mapping):
        h.update(f"map:{len(value)}{{".encode())
        for k, v in value.items():  # insertion order matters to builders (legend order)
            _feed(h, k)
            _feed(h, v)
        h.update(b"}")
    elif isinstance(value, (list, tuple, range)):
        h.update(f"{type(value).__name__}:{len(value)}[".encode())
        for v in value:
            _feed(h, v)
        h.update(b"]")
    elif isinstance(value, (set, frozenset)):
        h.update(f"set:{len(value)}".encode())
        for item in sorted(repr(v) for v in value):
            h.update(item.encode())
    else:
        raise _Unkeyable(type(value).__name__)


def digest(args: tuple, kwargs: Mapping[str, Any]) -> bytes | None:
    """The content digest of a call's arguments, or None when one of them cannot be read.

    Examples
    --------
    >>> import numpy as np
    >>> digest((np.arange(3),), {}) == digest((np.arange(3),), {})
    True
    >>> digest((np.arange(3),), {}) == digest((np.arange(3.0),), {})
    False
    >>> digest((object(),), {}) is None
    True
    """
    h = hashlib.blake2b(digest_size=20)
    try:
        _feed(h, args)
        _feed(h, dict(sorted(kwargs.items())))
    except _Unkeyable:
        return None
    return h.digest()


def memoised(builder: F) -> F:
    """Keep ``builder``'s figures by the content of its arguments (see the module's text)."""
    name = f"{builder.__module__}.{builder.__qualname__}"

    @functools.wraps(builder)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        d = digest(args, kwargs)
        if d is None:
            _stats["unkeyed"] += 1
            return builder(*args, **kwargs)
        key = (name, d)
        with _lock:
            fig = _figures.get(key)
            if fig is not None:
                _figures.move_to_end(key)
                _stats["hits"] += 1
                return fig
        fig = builder(*args, **kwargs)
        with _lock:
            _stats["misses"] += 1
            _figures[key] = fig
            while len(_figures) > MAX_FIGURES:
                _figures.popitem(last=False)
        return fig

    wrapper.__wrapped_builder__ = builder  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def clear() -> None:
    """Forget every kept figure (tests)."""
    with _lock:
        _figures.clear()
        for k in _stats:
            _stats[k] = 0


def stats() -> dict[str, int]:
    """Hits, misses and calls whose arguments could not be keyed (tests, benchmarks)."""
    return dict(_stats)
