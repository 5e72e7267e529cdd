"""Benchmark: S-cal and Student-t fits, their LLR and the S-cal bootstrap hook, against a floor.

Usage::

    python benchmarks/bench_fit_speed.py [--before REV] [--repeats 3] [--hook-n 1000]

Times, on 10^4 SS ~ N(2, 1) / 10^5 DS ~ N(-1, 1.2) scores (seed 0): ``fit`` of ``scal`` and
``student_t``, their ``llr`` at all 110,000 scores, and the floor ``np.sort`` of the same
scores; on the voice case's size (300 SS / 3,000 DS) the scal ``bootstrap_llr`` hook with
``--hook-n`` replicates against one scal ``fit``. Each time is the median of ``--repeats``
calls, printed with its ratio to the floor (or to the fit, for the hook). With ``--before
REV`` the same measurements run on the package as it was at git revision ``REV`` (exported
to a temporary folder), in alternating processes, and the script prints old / new.
Other programs may share the machine: compare the ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def worker(repeats: int, hook_n: int) -> dict:
    """The measurements, in seconds, with the package found on ``sys.path``."""
    from forensic_lr.calibration import make_calibrator

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    ss, ds = rng.normal(2.0, 1.0, 10_000), rng.normal(-1.0, 1.2, 100_000)
    every = np.concatenate([ss, ds])
    out = {"floor: np.sort of 110k scores": _median_time(lambda: np.sort(every), repeats)}
    for name in ("scal", "student_t"):
        fitted = make_calibrator(name).fit(ss, ds)
        out[f"{name} fit"] = _median_time(lambda n=name: make_calibrator(n).fit(ss, ds), repeats)
        out[f"{name} llr at 110k"] = _median_time(lambda f=fitted: f.llr(every), repeats)
    v_rng = np.random.default_rng(0)
    v_ss, v_ds = v_rng.normal(2.0, 1.0, 300), v_rng.normal(-1.0, 1.2, 3000)
    scores = np.array([-1.0, 1.0, 3.0])
    out["voice: scal fit"] = _median_time(lambda: make_calibrator("scal").fit(v_ss, v_ds),
                                          repeats)
    out[f"voice: scal bootstrap_llr ({hook_n})"] = _median_time(
        lambda: make_calibrator("scal").bootstrap_llr(
            v_ss, v_ds, scores, n=hook_n, rng=np.random.default_rng(1)),
        max(1, repeats // 3) if hook_n > 200 else repeats,
    )
    return out


def _run(tree: Path, repeats: int, hook_n: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, __file__, "--worker", "--repeats", str(repeats), "--hook-n",
           str(hook_n)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, cwd=tree)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _report(label: str, times: dict) -> None:
    floor = times["floor: np.sort of 110k scores"]
    fit = times["voice: scal fit"]
    print(f"{label}")
    for key, seconds in times.items():
        ref = fit if key.startswith("voice: scal bootstrap") else floor
        unit = "x voice fit" if ref is fit else "x floor"
        print(f"  {key:<40}{seconds:>10.4f} s{seconds / ref:>10.1f} {unit}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="git revision to compare with (e.g. a commit)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--hook-n", type=int, default=1000, help="bootstrap replicates")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.repeats, args.hook_n)))
        return
    print(f"median of {args.repeats} calls each; load average {os.getloadavg()[0]:.1f}")
    if not args.before:
        _report("this tree", _run(ROOT, args.repeats, args.hook_n))
        return
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", args.before, "forensic_lr"], cwd=ROOT,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        old = _run(Path(tmp), args.repeats, args.hook_n)
        new = _run(ROOT, args.repeats, args.hook_n)
    _report(f"before ({args.before})", old)
    _report("this tree", new)
    print("old / new")
    for key in new:
        print(f"  {key:<40}{old[key] / new[key]:>10.1f}")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
