"""The README's metric table is generated from the catalogue: keep them in sync."""

from __future__ import annotations

from pathlib import Path

from metrics_core.evaluation._catalog import METRICS, markdown_table

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_metric_table_in_sync() -> None:
    text = README.read_text(encoding="utf-8")
    start = text.index("<!-- metric-table:start -->") + len("<!-- metric-table:start -->")
    end = text.index("<!-- metric-table:end -->")
    assert text[start:end].strip() == markdown_table().strip(), (
        "README metric table is stale: regenerate it with "
        "metrics_core.evaluation._catalog.markdown_table()"
    )


def test_every_evaluate_key_is_catalogued() -> None:
    import metrics_core as mc

    keys = set(mc.evaluate([0, 0, 1, 1], [0, 1, 1, 1]))
    catalogued = {m.key for m in METRICS}
    assert keys <= catalogued, sorted(keys - catalogued)


def test_readme_names_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert "clustlens dashboard" in text
    assert "bash .ci/run" in text and "python -m pytest" in text
