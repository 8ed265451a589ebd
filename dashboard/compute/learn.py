"""Cached compute layer of the Learn view (keyed on small numbers and table bytes only)."""

from __future__ import annotations

import numpy as np
import streamlit as st

import metrics_core as mc
from dashboard.analysis import explain, null_bands
from dashboard.analysis import scenarios as ls
from dashboard.session.budget import CACHE_TTL


def names(k: int, c: int) -> tuple[list[str], list[str]]:
    """Class names A, B, ... and cluster names 1, 2, ... of a k x c teaching table."""
    classes = [f"class {chr(65 + i)}" if i < 26 else f"class {i + 1}" for i in range(k)]
    return classes, [f"cluster {j + 1}" for j in range(c)]


def matched_table(table: np.ndarray) -> dict:
    """The table ordered by its optimal one-to-one matching (as on the Contingency page)."""
    from dashboard.analysis import partition as ordering

    rows, cols = names(*np.asarray(table).shape)
    return ordering.matched_order(table, rows, cols)


def explanations(table: np.ndarray, values: dict, average: str) -> list:
    """Every metric of the table worked out step by step, with the table's numbers."""
    rows, cols = names(*np.asarray(table).shape)
    return explain.explain_all(table, values, average_method=average, classes=rows, clusters=cols)


def points_table(
    classes: np.ndarray, clusters: np.ndarray, average: str
) -> tuple[np.ndarray, dict]:
    """The contingency table of the Move-points tab's points and every metric of it."""
    table = ls.table_of(classes, clusters)
    return table, table_metrics(table, average)


def table_metrics(table: np.ndarray, average: str) -> dict:
    """Every metric of a typed contingency table (small: recomputed as the user types)."""
    return explain.evaluate_table(table, average)


@st.cache_data(max_entries=16, ttl=CACHE_TTL, show_spinner="Shuffling labels for the null bands…")
def null_bands_for(n_per_class: int, n_classes: int, n_perm: int, average: str) -> dict:
    """Permutation-null bands of NMI/ARI/AMI and random labelings' scores, K growing."""
    sizes = [n_per_class] * n_classes
    ks = null_bands.default_ks(n_per_class * n_classes)
    b = null_bands.permutation_null(sizes, ks, n_perm=n_perm, seed=0, average_method=average)
    obs = null_bands.random_labelling_scores(sizes, ks, seed=1, average_method=average)
    return {"bands": b, "observed": obs}


@st.cache_data(max_entries=64, ttl=CACHE_TTL)
def toy_affinity(leakage: float, density: float) -> dict:
    """SRE/CONN of the toy C and along the path from no leakage/density to the chosen ones."""
    s = ls.small_coef(leakage, density)
    sre = mc.subspace_preserving_error(s.coef, s.labels)
    conn = mc.connectivity(s.coef, s.labels)
    path = np.linspace(0.0, 1.0, 11)
    sweep_sre, sweep_conn = [], []
    for t in path:
        p = ls.small_coef(leakage * t, density * t)
        sweep_sre.append(float(mc.subspace_preserving_error(p.coef, p.labels).value))
        sweep_conn.append(float(mc.connectivity(p.coef, p.labels).min))
    return {
        "coef": s.coef,
        "labels": s.labels,
        "sre": float(sre.value),
        "conn_min": float(conn.min),
        "conn_mean": float(conn.mean),
        "conn_per_class": [float(x) for x in conn.per_class],
        "path_density": (path * density).tolist(),
        "path_sre": sweep_sre,
        "path_conn": sweep_conn,
    }
