"""Independent pieces of one computation run on a few threads.

Only for work that releases the GIL nearly all the time (scipy's sparse kernels, numpy passes
over large arrays): there, threads share memory at no cost and give each core a piece, where
processes would copy the data. Results come back in the order of the items whatever finishes
first, so a computation's output never depends on how many threads ran it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from metrics_core.validation._errors import ClustlensInputError

T = TypeVar("T")
R = TypeVar("R")

#: Environment variable that sets the default thread count (``workers=None``).
ENV_WORKERS = "CLUSTLENS_WORKERS"


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def check_workers(workers: Any, name: str = "workers") -> int:
    """``workers`` as a thread count: an int >= 1; None means ``CLUSTLENS_WORKERS`` from the
    environment when it is set (a shared machine's limit for every call, the CLI and the
    dashboard included), else every CPU this process may use.

    Examples
    --------
    >>> check_workers(2)
    2
    """
    if workers is None:
        value = os.environ.get(ENV_WORKERS, "").strip()
        if not value:
            return available_cpus()
        if not value.isdigit() or int(value) < 1:
            raise ClustlensInputError(
                f"must be an integer >= 1, got {value!r}", source=f"environment {ENV_WORKERS}"
            )
        return int(value)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ClustlensInputError(
            f"must be None (every available CPU) or an integer >= 1, got {workers!r}", source=name
        )
    return workers


def thread_map(fn: Callable[[T], R], items: Iterable[T], workers: int) -> Iterator[R]:
    """``map(fn, items)`` on up to ``workers`` threads; results in the order of ``items``.

    One item, or one worker, runs in the calling thread (no pool to start). An exception
    raised by ``fn`` is raised here, for the first failing item in order.

    Examples
    --------
    >>> list(thread_map(lambda x: x * x, [1, 2, 3], workers=2))
    [1, 4, 9]
    """
    items = list(items)
    if workers <= 1 or len(items) <= 1:
        yield from map(fn, items)
        return
    with ThreadPoolExecutor(max_workers=min(workers, len(items))) as pool:
        yield from pool.map(fn, items)
