"""Outputs: the self-contained HTML report and the CSV/JSON/PNG/SVG exports (no Streamlit).

The report takes one :class:`~dashboard.analysis.objects.Analysis` and draws its figures with
the pages' own builders (:mod:`dashboard.figures.panels`); LaTeX tables and mean ± std come from
:mod:`metrics_core.evaluation`.
"""
