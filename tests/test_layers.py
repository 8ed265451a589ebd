"""The architecture holds: every module imports, the import-linter contracts are kept, and
``clustlens evaluate`` runs without Streamlit or Plotly.

A module that cannot be imported fails here (page tests never skip on an import error).
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE_SCRIPTS = {"dashboard.app"}  # Streamlit scripts: AppTest runs them


def _modules(package: str) -> list[str]:
    pkg = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{package}."):
        if info.name.startswith("dashboard.views") or info.name in PAGE_SCRIPTS:
            continue
        if info.name.endswith(".__main__") or info.name.endswith("conftest"):
            continue
        names.append(info.name)
    return names


@pytest.mark.parametrize(
    "module", [m for p in ("metrics_core", "dashboard", "demo_data") for m in _modules(p)]
)
def test_every_module_imports(module: str) -> None:
    importlib.import_module(module)


def test_every_page_script_exists_and_is_routed() -> None:
    from dashboard.app import PAGES

    routed = {rel for pages in PAGES.values() for rel, *_ in pages}
    on_disk = {
        f"views/{p.name}"
        for p in (ROOT / "dashboard" / "views").glob("*.py")
        if p.stem != "__init__"
    }
    assert routed == on_disk


def test_import_linter_contracts_are_kept() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command;"
         "sys.exit(lint_imports_command())"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "0 broken" in out.stdout


def test_clustlens_evaluate_imports_neither_streamlit_nor_plotly(tmp_path) -> None:
    """A small evaluate stays light too: no pandas, scikit-learn, scipy.optimize, numba, nor
    scipy's graph routines and the linear algebra they bring when every class has its own best
    cluster (its start-up goal lives in tests/benchmarks/bench_cli.py; this keeps the causes
    from coming back: scipy.sparse.csgraph alone put it at 1.57x its peer)."""
    truth = tmp_path / "t.txt"
    truth.write_text("1\n1\n2\n2\n")
    code = (
        "import sys; from dashboard.cli import main; "
        f"rc = main(['evaluate', '--true', {str(truth)!r}, '--pred', {str(truth)!r}, '--json']); "
        "heavy = [m for m in ('streamlit', 'plotly', 'kaleido', 'pandas', 'sklearn', "
        "'scipy.optimize', 'numba', 'scipy.sparse.csgraph', 'scipy.linalg') if m in sys.modules]; "
        "print('HEAVY', heavy, file=sys.stderr); sys.exit(rc)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert "HEAVY []" in out.stderr


def test_clustlens_help_imports_nothing_heavy() -> None:
    """``clustlens --help`` builds no subcommand parser: numpy, scipy, sklearn, streamlit stay
    out (the speed goal lives in a benchmark; this keeps the cause from coming back)."""
    code = (
        "import sys, contextlib, io; from dashboard.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n        main(['--help'])\n    except SystemExit:\n        pass\n"
        "heavy = [m for m in ('numpy', 'scipy', 'sklearn', 'pandas', 'streamlit') "
        "if m in sys.modules]\nprint('HEAVY', heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert "HEAVY []" in out.stdout, out.stdout + out.stderr


def test_every_command_help_line_matches_its_parser() -> None:
    """The one-line help ``clustlens --help`` shows (without importing a command) is the line
    each command registers."""
    import argparse
    import importlib

    from dashboard.cli import SUBCOMMANDS as DASH
    from metrics_core.cli import SUBCOMMANDS as LIB

    for name, (module, help_text) in {**LIB, **DASH}.items():
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        importlib.import_module(module).register(sub)
        registered = {a.dest: a.help for a in sub._choices_actions}
        assert name in sub.choices
        assert registered[name] == help_text, (name, registered[name], help_text)


def test_multiview_page_shows_the_shipped_comparison_without_scikit_learn() -> None:
    """The Multi-view page's first visit (SSF's defaults, the shipped comparison) must not pay
    for scikit-learn's import (seconds on a busy server); only the baselines need it."""
    code = (
        "import sys, logging; logging.disable(logging.WARNING)\n"
        "from dashboard.compute import multiview as cm\n"
        "from dashboard.views import multiview as page\n"
        "assert cm.shipped_protocol() is not None\n"
        "print('HEAVY', [m for m in ('sklearn',) if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert "HEAVY []" in out.stdout, out.stdout + out.stderr


def test_a_sweep_and_spectral_clustering_run_without_scikit_learn() -> None:
    """Up to 1,500 points k-means is ours (:func:`metrics_core.models.kmeans`, scikit-learn's
    labels): a cold server's first "Run sweep" on the demo no longer needs scikit-learn's import
    (0.8-0.9 s of a core)."""
    code = (
        "import sys\n"
        "import dashboard.inputs._build as build\n"
        "build.first_fit()\n"
        "print('HEAVY', [m for m in ('sklearn',) if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert "HEAVY []" in out.stdout, out.stdout + out.stderr
