"""Inputs: the one way to turn bytes into an :class:`~dashboard.session.state.Input`.

Every upload (sidebar, Sweep, Multi-view), every demo file and every setting opened from a sweep
goes through :func:`build_input`: untrusted bytes are parsed by
:func:`metrics_core.io.worker.parse_in_worker` (a memory- and time-limited child process, so a
hostile file can kill the worker, never the server); our own demo files are parsed in-process.
The parse is cached on the bytes' SHA-256 and what was picked inside the file; a coefficient
matrix is validated here, once, and stored once (CSR when sparse).
"""

from dashboard.inputs._build import (
    ROLES,
    build_input,
    counts_inputs,
    data_matrix,
    first_page_done,
    from_array,
    load_demo,
    load_hw_demo,
    pad_edge_list,
    warm_up_worker,
)

__all__ = [
    "ROLES",
    "build_input",
    "counts_inputs",
    "data_matrix",
    "first_page_done",
    "from_array",
    "load_demo",
    "load_hw_demo",
    "pad_edge_list",
    "warm_up_worker",
]
