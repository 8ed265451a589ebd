"""Memory budgets: what one session, and all sessions together, may hold in the server.

A session holds its inputs (labels, C, a data matrix X, a sweep's or the Multi-view page's
uploaded data) and, while a page computes, arrays derived from them (|C| + |C|ᵀ, the
self-representation a sweep fits, SSF's per-view graphs). Each input is *charged* its own bytes
times the working factor of what pages do with it (:data:`WORK`), so the budget covers the
peaks and not only what sits in the state. A new input is admitted only when the session's
charge stays under the session budget **and** all live sessions' charges stay under the server
budget; otherwise it is refused with a message that says how much each holds, and nothing
loaded before changes.

Budgets come from the environment (``clustlens dashboard --session-memory/--server-memory``
sets them): ``CLUSTLENS_SESSION_MEMORY`` (default 1 GiB) and ``CLUSTLENS_SERVER_MEMORY``
(default 8 GiB). The demo's inputs are shared by every session (one copy, cached) and are not
charged.
"""

from __future__ import annotations

import math
import os
import threading
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# numpy, scipy and the library are imported where used: ``clustlens --help`` imports this
# module for its environment names and must stay quick

GiB = 2**30
SESSION_ENV = "CLUSTLENS_SESSION_MEMORY"
SERVER_ENV = "CLUSTLENS_SERVER_MEMORY"
DEFAULT_SESSION = 1 * GiB
DEFAULT_SERVER = 8 * GiB
#: Working factor per kind of input: its array, plus what pages derive from it at their peak.
#: C: the matrix, |C| + |C|ᵀ, one scratch copy (per-class blocks, sorting for display).
#: X: the matrix, its row-normalised copy; a sweep's or SSF's N x N products are charged apart.
WORK: dict[str, int] = {"truth": 1, "pred": 1, "coef": 3, "data": 2}

#: Seconds a shared cache keeps a result nobody asked for again (so what ended sessions computed
#: is given back; a page that needs it again recomputes it).
CACHE_TTL = 3600

_lock = threading.Lock()
# by id: session states are unhashable dataclasses; an entry goes when Streamlit drops the state
_live: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()


def _parse(text: str | None, default: int, env: str) -> int:
    if not text:
        return default
    from metrics_core.engines import parse_memory
    from metrics_core.validation import ClustlensInputError

    try:
        return parse_memory(text)
    except ClustlensInputError:
        raise ClustlensInputError(
            f"{text!r} is not a memory size; write e.g. 1GB, 512MB or 1.5GiB", source=env
        ) from None


def session_budget() -> int:
    """Bytes one session may be charged (``CLUSTLENS_SESSION_MEMORY``, default 1 GiB)."""
    return _parse(os.environ.get(SESSION_ENV), DEFAULT_SESSION, SESSION_ENV)


def server_budget() -> int:
    """Bytes all live sessions together may be charged (``CLUSTLENS_SERVER_MEMORY``, 8 GiB)."""
    return _parse(os.environ.get(SERVER_ENV), DEFAULT_SERVER, SERVER_ENV)


def human(n: float) -> str:
    """Bytes for people (binary units, as the loaders' messages).

    Examples
    --------
    >>> human(512), human(3 * 2**20), human(1.5 * 2**30)
    ('512 bytes', '3.0 MiB', '1.50 GiB')
    """
    if n < 2**20:
        return f"{n:,.0f} bytes" if n < 2**10 else f"{n / 2**10:,.1f} KiB"
    if n < GiB:
        return f"{n / 2**20:,.1f} MiB"
    return f"{n / GiB:,.2f} GiB"


def array_bytes(value: Any) -> int:
    """Bytes an array holds (a sparse matrix: its data and index arrays).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> array_bytes(np.zeros((10, 10))), array_bytes(sp.eye_array(10, format="csr"))
    (800, 164)
    """
    import scipy.sparse as sp

    if value is None:
        return 0
    if sp.issparse(value):
        m = value if value.format in ("csr", "csc") else value.tocsr()
        return int(m.data.nbytes + m.indices.nbytes + m.indptr.nbytes)
    return int(getattr(value, "nbytes", 0))


@dataclass(frozen=True)
class Charge:
    """One thing a session holds: its name and the bytes it is charged."""

    name: str
    nbytes: int


def input_charge(inp: Any) -> int:
    """What an :class:`~dashboard.session.state.Input` is charged (0 for the shared demo)."""
    if inp is None or getattr(inp, "demo", False):
        return 0
    return WORK.get(inp.role, 1) * array_bytes(inp.value)


def charges(s: Any) -> list[Charge]:
    """Everything session ``s`` (an ``AppState``) is charged for, each array once."""
    out: list[Charge] = []
    seen: set[int] = set()

    def add(name: str, value: Any, nbytes: int) -> None:
        if value is None or id(value) in seen or nbytes <= 0:
            return
        seen.add(id(value))
        out.append(Charge(name, nbytes))

    items = [s.truth, s.coef, s.data, *s.preds, *(p.own_coef for p in s.preds)]
    for inp in items:
        if inp is not None:
            add(inp.name, inp.value, input_charge(inp))
    for name, value, nbytes in _page_holdings(s):
        add(name, value, nbytes)
    return out


def _page_holdings(s: Any) -> Iterable[tuple[str, Any, int]]:
    """Uploaded data the Sweep and Multi-view pages keep (their own charge rules)."""
    if s.sweep.upload is not None:
        data = s.sweep.upload[1]
        yield data.name, data.X, data_charge(data.X.shape, "sweep")
    run = s.sweep.run or {}
    data = run.get("data")
    if data is not None and str(getattr(data, "key", "")).startswith("upload:"):
        yield data.name, data.X, data_charge(data.X.shape, "sweep")
    if run.get("kind") == "bundle" and run.get("bytes"):
        # the file's bytes (kept to open a setting) and the matrices it inflated to
        yield run.get("name", "sweep bundle"), run["bytes"], len(run["bytes"]) + run.get("held", 0)
    mv = s.multiview.data
    if mv is not None:
        shape = (mv.n, sum(int(v.shape[1]) for v in mv.views))
        yield mv.name, mv.views, data_charge(shape, "multiview", n_views=len(mv.views))


def data_charge(shape: tuple[int, ...], use: str, *, n_views: int = 1) -> int:
    """What a dense float64 data matrix of ``shape`` is charged on a page that models it.

    ``use="sweep"``: X, its normalised copy and the N x N C of one setting with one scratch
    copy; ``"multiview"``: the views, and per view Z_v, plus S and two scratch N x N arrays;
    ``"points"``: X and one copy.
    """
    n, d = int(shape[0]), math.prod(int(x) for x in shape[1:])
    x = 8 * n * d
    if use == "sweep":
        return 2 * x + 2 * 8 * n * n
    if use == "multiview":
        return x + (n_views + 3) * 8 * n * n
    return 2 * x


def held(s: Any) -> int:
    """Bytes session ``s`` is charged now."""
    return sum(c.nbytes for c in charges(s))


def register(s: Any) -> None:
    """Count session ``s`` among the live ones (it drops out when Streamlit forgets it)."""
    with _lock:
        _live[id(s)] = s


def others_held(s: Any) -> tuple[int, int]:
    """(bytes charged to the other live sessions, how many of them hold anything)."""
    with _lock:
        sessions = [x for x in list(_live.values()) if x is not s]
    amounts = [held(x) for x in sessions]
    return sum(amounts), sum(1 for a in amounts if a > 0)


def room(s: Any, *, replacing: int = 0) -> int:
    """Bytes session ``s`` may still be charged (``replacing``: the charge of what the new input
    would replace, given back first), under both budgets."""
    mine = held(s) - replacing
    others, _ = others_held(s)
    return max(0, min(session_budget() - mine, server_budget() - others - mine))


def admit(s: Any, name: str, nbytes: int, *, what: str, replacing: int = 0) -> None:
    """Refuse (``ClustlensInputError`` naming ``name``) an input charged ``nbytes`` that would
    take session ``s`` past its budget or the server past its own."""
    from metrics_core.validation import ClustlensInputError

    mine = held(s) - replacing
    budget = session_budget()
    if mine + nbytes > budget:
        raise ClustlensInputError(
            f"{what} needs {human(nbytes)} of working memory in the server, and this session "
            f"already holds {human(mine)} of its {human(budget)} budget "
            f"({_listing(s)}); remove an input ('Remove this prediction', or 'Reset to the "
            "demo') or ask whoever runs the dashboard to start it with a larger --session-memory",
            source=name,
        )
    others, n_others = others_held(s)
    total = server_budget()
    if others + mine + nbytes > total:
        raise ClustlensInputError(
            f"{what} needs {human(nbytes)} of working memory, and the dashboard's "
            f"{human(total)} for all sessions is taken ({human(others)} by {n_others} other "
            f"session(s), {human(mine)} by this one); try again when others have closed, or "
            "ask whoever runs the dashboard for a larger --server-memory",
            source=name,
        )


def _listing(s: Any) -> str:
    items = sorted(charges(s), key=lambda c: -c.nbytes)[:3]
    return ", ".join(f"{c.name}: {human(c.nbytes)}" for c in items) or "nothing yet"
