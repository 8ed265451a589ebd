"""Start-up cost of the command line against importing numpy (and scipy) in the same run.

    python tests/benchmarks/bench_cli.py [--repeat 7]

Each row: the median wall time of ``--repeat`` fresh processes, and its ratio to the peer timed
in the same run (goals: ``clustlens --help`` ≤ 2× ``python -c "import numpy"``; a small
``clustlens evaluate`` ≤ 1.5× ``python -c "import numpy, scipy, scipy.sparse"``).

Every command runs once untimed first and ``PYTHONDONTWRITEBYTECODE`` is dropped from the
children's environment: numpy and scipy come with compiled bytecode from their wheels, and an
installed clustlens has it too after its first run; without it every start would recompile
our modules (~60 ms here), which a user does not pay and the peer does not either.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(cmd: list[str], repeat: int) -> float:
    subprocess.run(cmd, capture_output=True, check=True, env=ENV)  # writes the bytecode
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True, env=ENV)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    n = ap.parse_args().repeat
    py = sys.executable
    cli = [py, "-m", "dashboard.cli"]
    with tempfile.TemporaryDirectory() as d:
        t, p = Path(d, "t.txt"), Path(d, "p.txt")
        t.write_text("0\n0\n1\n1\n2\n2\n")
        p.write_text("0\n1\n1\n1\n2\n2\n")
        numpy = wall([py, "-c", "import numpy"], n)
        scipy = wall([py, "-c", "import numpy, scipy, scipy.sparse"], n)
        rows = [
            ("python -c 'import numpy'", numpy, None, None),
            ("clustlens --help", wall([*cli, "--help"], n), numpy, 2.0),
            ("python -c 'import numpy, scipy, scipy.sparse'", scipy, None, None),
            (
                "clustlens evaluate (6 labels)",
                wall([*cli, "evaluate", "--true", str(t), "--pred", str(p)], n),
                scipy,
                1.5,
            ),
            ("clustlens evaluate --help", wall([*cli, "evaluate", "--help"], n), numpy, None),
        ]
    print(f"| command | median s ({n} runs) | ratio to peer | goal |")
    print("|---|---|---|---|")
    for name, sec, peer, goal in rows:
        ratio = f"{sec / peer:.2f}×" if peer else "(peer)"
        print(f"| {name} | {sec:.3f} | {ratio} | {f'≤ {goal}×' if goal else ''} |")


if __name__ == "__main__":
    main()
