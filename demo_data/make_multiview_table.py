"""Precompute the Multi-view page's comparison on all of HW and ship it (run by hand).

    python -m demo_data.make_multiview_table            # 20 runs, the paper's k-NN grid
    python -m demo_data.make_multiview_table --runs 2   # a quick look (do not ship)

Runs :func:`metrics_core.multiview.run_protocol` — SSF and every baseline (SC on each view, on
the average graph and on the concatenated features, AMGL, SwMC, co-regularised SC pairwise and
centroid) — on the full HW set (2,000 digits, six views), baseline settings chosen against the
ground truth as the paper does, and writes ``hw_multiview_protocol.json`` beside this file: the
mean ± std table, the notes saying how each row was obtained, its LaTeX, and what it was run
with. The Multi-view page shows it at once; "Run comparison" recomputes on the page's data.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "hw_multiview_protocol.json"
PAPER_KNN = tuple(range(5, 61, 5))


def build(runs: int = 20, knn: tuple[int, ...] = PAPER_KNN, selection: str = "truth") -> dict:
    """The comparison on all of HW as a JSON-able dict."""
    from metrics_core.evaluation import mean_std_caption
    from metrics_core.multiview import load_hw, run_protocol
    from metrics_core.multiview._ssf import DEFAULT_SSF

    views, y, names = load_hw()
    t0 = time.perf_counter()
    res = run_protocol(
        views, y, runs=runs, view_names=list(names), knn_grid=knn, selection=selection,
        progress=lambda m: print(f"  {m}", flush=True),
    )  # fmt: skip
    seconds = time.perf_counter() - t0
    table = res.table.reset_index()
    return {
        "data": f"HW: all {len(y):,} digits, six views ({', '.join(names)})",
        "created": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d"),
        "seconds": round(seconds, 1),
        "runs": runs,
        "knn": list(knn),
        "selection": selection,
        "params": {
            k: (v if isinstance(v, (int, float, str)) else str(v)) for k, v in DEFAULT_SSF.items()
        },
        "table": json.loads(table.to_json(orient="records")),
        "notes": list(res.notes),
        "latex": res.to_latex(caption=mean_std_caption(runs)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--quick-grid", action="store_true", help="k = 10, 20, 40 only")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    knn = (10, 20, 40) if args.quick_grid else PAPER_KNN
    out = build(args.runs, knn)
    args.out.write_text(json.dumps(out, indent=1), encoding="utf-8")
    print(f"wrote {args.out} ({out['seconds']:.0f} s)")


if __name__ == "__main__":
    main()
