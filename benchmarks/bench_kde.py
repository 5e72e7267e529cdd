"""Benchmark: the KDE calibrator's costly steps in a case, against an earlier version.

Usage::

    python benchmarks/bench_kde.py [--baseline GIT-REVISION] [--repeats 3] [--refits 200]

On 10^4 SS ~ N(2, 1) and 10^5 DS ~ N(-1, 1.2) scores (evidence score 1.5), times

* the sensitivity analysis's background refits: ``bootstrap_llr`` at the evidence score
  and every background score (what ``casework/sensitivity.py`` asks of the hook for the
  ELUB bounds of each replicate), ``--refits`` replicates (the analysis asks for them
  in blocks of about 36);
* the sensitivity analysis's background bootstrap with ELUB as a case runs it
  (``background_bootstrap``): a version with ``bootstrap_elub`` gives each replicate's
  bounds itself, an older one goes through ``bootstrap_llr`` at every background score
  in blocks of replicates (which drew their own resamples per block, so the quantiles
  differ by the draws);
* the LR bootstrap: ``bootstrap_llr`` at the evidence score, 1000 replicates;
* 5-fold cross-validation (``cross_validated_llr``);
* one fit and its LLRs at every background score (what ELUB's fit asks).

With ``--baseline``, the same calls are made with ``forensic_lr/calibration/kde.py`` as it
was at that git revision (read with ``git show``, the rest of the package as it is now),
alternating the two versions, and the script prints the median of ``--repeats`` runs of
each (wall clock and processor time of this process), the ratios new / baseline, and the
largest difference of their results. Other programs may share the machine: compare the
ratios, taken within one run (processor time is the less disturbed by other jobs).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from forensic_lr.calibration import ELUB
from forensic_lr.calibration.kde import KDECalibrator
from forensic_lr.casework.sensitivity import background_bootstrap
from forensic_lr.uncertainty import cross_validated_llr

ROOT = Path(__file__).resolve().parent.parent


def load_baseline(revision: str):
    """``forensic_lr.calibration.kde`` as of ``revision``, as a module of the current package."""
    text = subprocess.run(
        ["git", "show", f"{revision}:forensic_lr/calibration/kde.py"], cwd=ROOT, check=True,
        capture_output=True, text=True,
    ).stdout
    name = "forensic_lr.calibration._kde_baseline"
    spec = importlib.util.spec_from_loader(name, loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "forensic_lr.calibration"
    sys.modules[name] = module
    exec(compile(text, f"{revision}:kde.py", "exec"), module.__dict__)
    return module


def stages(cls, ss, ds, refits: int) -> dict:
    at = np.concatenate([[1.5], ss, ds])
    return {
        f"sensitivity refits ({refits}, at {at.size} scores)":
            lambda: cls().bootstrap_llr(ss, ds, at, n=refits, rng=np.random.default_rng(1)),
        f"sensitivity bootstrap with ELUB ({refits})":
            lambda: _quantiles(background_bootstrap(ELUB(cls()), ss, ds, np.array([1.5]),
                                                    n=refits, seed=1)),
        "LR bootstrap (1000, at 1 score)":
            lambda: cls().bootstrap_llr(ss, ds, [1.5], n=1000, rng=np.random.default_rng(1)),
        "5-fold cross-validation":
            lambda: np.concatenate(cross_validated_llr(ss, ds, cls(), folds=5, seed=1)),
        "fit + LLR at every background score": lambda: cls().fit(ss, ds).llr(at),
    }


def _quantiles(boot) -> list[float]:
    return [boot.log10_lr_low[0], boot.log10_lr_median[0], boot.log10_lr_high[0]]


def timed(func) -> tuple[float, float, np.ndarray]:
    """Wall-clock and processor seconds of ``func()``, and its value."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = func()
    return time.perf_counter() - wall, time.process_time() - cpu, np.asarray(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="git revision of kde.py to compare with")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--refits", type=int, default=200)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    ss, ds = rng.normal(2.0, 1.0, 10_000), rng.normal(-1.0, 1.2, 100_000)
    versions = {"new": KDECalibrator}
    if args.baseline:
        versions = {"baseline": load_baseline(args.baseline).KDECalibrator, **versions}
    print(f"10^4 SS / 10^5 DS scores; median of {args.repeats} runs, seconds: wall clock "
          "(processor time)")
    header = f"{'step':<44}" + "".join(f"{v:>18}" for v in versions)
    if args.baseline:
        header += f"{'new/base':>16}{'max |diff|':>12}"
    print(header)
    names = list(stages(KDECalibrator, ss, ds, args.refits))
    for name in names:
        times = {v: ([], []) for v in versions}
        values = {}
        for _ in range(args.repeats):
            for v, cls in versions.items():
                wall, cpu, values[v] = timed(stages(cls, ss, ds, args.refits)[name])
                times[v][0].append(wall)
                times[v][1].append(cpu)
        med = {v: (float(np.median(w)), float(np.median(c))) for v, (w, c) in times.items()}
        line = f"{name:<44}" + "".join(f"{w:>9.3f} ({c:>6.3f})" for w, c in med.values())
        if args.baseline:
            new, base = med["new"], med["baseline"]
            diff = np.nanmax(np.abs(values["new"] - values["baseline"]))
            line += f"{new[0] / base[0]:>7.3f} ({new[1] / base[1]:.3f}){diff:>12.1e}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
