"""Cost of the command line's staged progress on a case run (bar drawn on a fake terminal).

Usage: ``python benchmarks/bench_progress.py [--repeat 3]``

Runs the voice worked case through :func:`forensic_lr.casework.pipeline.run_case_full`
without progress and with :class:`forensic_lr.cli.common.Stages` drawing on a fake terminal,
interleaved, and prints the median of each and their ratio (expected: about 1).
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
import warnings

from forensic_lr._resources import examples_dir
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.casework.spec import load_case
from forensic_lr.cli.common import Stages
from forensic_lr.errors import ForensicLRWarning


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    spec = load_case(examples_dir() / "voice" / "case.toml")
    spec = spec.model_copy(update={"uncertainty": spec.uncertainty.model_copy(
        update={"method": "bootstrap", "n": 1000})})
    plain, staged = [], []
    warnings.simplefilter("ignore", ForensicLRWarning)
    for _ in range(args.repeat):
        start = time.perf_counter()
        run_case_full(spec)
        plain.append(time.perf_counter() - start)
        stages = Stages(argparse.Namespace(quiet=False, verbose=False), stream=_Terminal())
        start = time.perf_counter()
        run_case_full(spec, progress=stages)
        staged.append(time.perf_counter() - start)
    a, b = statistics.median(plain), statistics.median(staged)
    print(f"voice case, 1000 bootstrap replicates, median of {args.repeat} (interleaved)")
    print(f"  no progress      {a:8.3f} s")
    print(f"  staged progress  {b:8.3f} s")
    print(f"  ratio staged / none: {b / a:.3f}")


if __name__ == "__main__":
    main()
