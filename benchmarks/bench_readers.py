"""Benchmark: reading a large labelled score file, and failing early on its last line.

Writes labelled CSVs of 10^6 and 10^7 lines (``ss,-1.234567``), then prints, from one run
(best of 3, the readers timed in turn so that they see the same machine load):

* the time of :func:`forensic_lr.io.scores.load_scores` on the clean file, and its ratio to
  ``numpy.loadtxt`` of the same file with a (label, float) dtype - a C parser that does none
  of the checks (width, decimal separator, labels, SHA-256);
* the time until the error when the *last* line holds a bad value (``ss,2.5x``), as a ratio
  to the clean read: one streaming pass reaches it, nothing is fitted first;
* peak memory (tracemalloc, which numpy reports to) of both, against the 9 bytes per line
  that the result itself takes (float64 score + bool label);
* the same for the reader of the previous release (``git show REV:forensic_lr/scores.py``,
  default the commit before the streaming reader), on the 10^6-line file.

Run: python benchmarks/bench_readers.py [--sizes 1000000 10000000] [--old REV]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import tracemalloc
import warnings
from functools import partial
from pathlib import Path

import numpy as np
from timing import best_of

from forensic_lr.errors import InputError
from forensic_lr.io.scores import load_scores

ROOT = Path(__file__).resolve().parents[1]


def write_file(path: Path, n: int, bad_last: bool) -> None:
    rng = np.random.default_rng(1)
    with open(path, "w") as handle:
        handle.write("label,score\n")
        step = 1_000_000
        for start in range(0, n, step):
            m = min(step, n - start)
            labels = np.where(rng.random(m) < 0.1, "ss", "ds")
            values = np.char.mod("%.6f", rng.normal(size=m))
            handle.write("\n".join(np.char.add(np.char.add(labels, ","), values)) + "\n")
        if bad_last:
            handle.write("ss,2.5x\n")


def old_reader(rev: str):
    """The previous ``load_scores`` (from git), or None when git cannot give it."""
    try:
        source = subprocess.run(
            ["git", "show", f"{rev}:forensic_lr/scores.py"], cwd=ROOT, check=True,
            capture_output=True, text=True,
        ).stdout
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None
    folder = Path(tempfile.mkdtemp())
    (folder / "old_scores.py").write_text(source)
    spec = importlib.util.spec_from_file_location("forensic_lr._old_scores",
                                                  folder / "old_scores.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.load_scores


def alternating(*fns, repeat: int = 3) -> list[float]:
    """Best-of-``repeat`` seconds of each function, the functions timed in turn (so that a
    change of machine load between them does not skew their ratios)."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            best[i] = min(best[i], best_of(fn, repeat=1))
    return best


def peak_mib(fn) -> float:
    """Peak MiB allocated (tracemalloc) during one call."""
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return peak


def expect_error(reader, path):
    def run():
        try:
            reader(scores=path)
        except (InputError, ValueError):
            return
        raise AssertionError("the bad last line was not reported")

    return run


def loadtxt(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.loadtxt(path, dtype=[("label", "U8"), ("score", "f8")], delimiter=",", skiprows=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--old", default="d6c7f5f", help="git revision of the old reader")
    args = parser.parse_args()
    old = old_reader(args.old)
    with tempfile.TemporaryDirectory() as folder:
        for n in args.sizes:
            clean, bad = Path(folder) / "clean.csv", Path(folder) / "bad.csv"
            write_file(clean, n, False)
            write_file(bad, n, True)
            size = clean.stat().st_size / 2**20
            new_clean = partial(load_scores, scores=clean)
            new_bad = expect_error(load_scores, bad)
            t_clean, t_bad, t_np = alternating(new_clean, new_bad, partial(loadtxt, clean))
            m_clean, m_bad = peak_mib(new_clean), peak_mib(new_bad)
            result_mib = 9 * n / 2**20
            print(f"{n:>11,} lines ({size:,.0f} MiB file, result {result_mib:,.0f} MiB)")
            print(f"  load_scores clean      {t_clean:7.2f} s  peak {m_clean:7.0f} MiB  "
                  f"ratio to np.loadtxt {t_clean / t_np:5.2f}")
            print(f"  bad last line -> error {t_bad:7.2f} s  peak {m_bad:7.0f} MiB  "
                  f"ratio to clean read {t_bad / t_clean:5.2f}")
            if old is not None and n <= 1_000_000:
                old_clean = partial(old, scores=clean)
                old_bad = expect_error(old, bad)
                t_old, t_old_bad, t_clean, t_bad = alternating(old_clean, old_bad, new_clean,
                                                               new_bad)
                m_old, m_old_bad = peak_mib(old_clean), peak_mib(old_bad)
                print(f"  previous reader clean  {t_old:7.2f} s  peak {m_old:7.0f} MiB  "
                      f"new/old time {t_clean / t_old:5.2f}, memory {m_clean / m_old:5.2f}")
                print(f"  previous, bad last     {t_old_bad:7.2f} s  peak {m_old_bad:7.0f} MiB  "
                      f"new/old time {t_bad / t_old_bad:5.2f}, memory {m_bad / m_old_bad:5.2f}")


if __name__ == "__main__":
    main()
