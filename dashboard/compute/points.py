"""Cached data of the Points page (layout, per-point labels and SRE), keyed on input hashes.

Arrays travel as ``_``-prefixed arguments (not hashed by Streamlit); the keys are the inputs'
content hashes and the conventions' key, as in :mod:`dashboard.compute.evaluation`.
"""

from __future__ import annotations

import streamlit as st

from dashboard.analysis.conventions import Conventions
from dashboard.analysis.points import PointsAnalysis, analyse_points
from dashboard.compute import evaluation
from dashboard.session.budget import CACHE_TTL
from dashboard.session.state import Input


@st.cache_data(show_spinner=False, max_entries=8, ttl=CACHE_TTL)
def _points(
    tkey: str, pkey: str, ckey: str, xkey: str, conv_key: str, layout: str,
    _t, _p, _c, _x, _sre, _orientation: str,
) -> PointsAnalysis:  # fmt: skip
    return analyse_points(_t, _p, coef=_c, X=_x, sre=_sre, orientation=_orientation, layout=layout)


def points(
    truth: Input,
    pred: Input | None,
    coef: Input | None,
    data: Input | None,
    conv: Conventions,
    layout: str,
) -> PointsAnalysis:
    """:func:`dashboard.analysis.points.analyse_points` of the session's inputs, cached."""
    c = coef if evaluation.coef_fits(truth, coef) else None
    x = data if data is not None and data.n == truth.n else None
    sre = evaluation.affinity(truth, c, conv).sre_per_point if c is not None else None
    return _points(
        truth.key,
        "" if pred is None else pred.key,
        "" if c is None else c.key,
        "" if x is None else x.key,
        conv.key,
        layout,
        truth.value,
        None if pred is None else pred.value,
        None if c is None else c.value,
        None if x is None else x.value,
        sre,
        conv.effective_orientation,
    )
