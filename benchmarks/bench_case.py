"""End-to-end benchmark of a case: 10^4 SS / 10^5 DS scores, 1000 bootstrap replicates.

Usage: ``python benchmarks/bench_case.py [--calibrator bayes] [--n-ss 10000] [--n-ds 100000]``

Times each stage of :func:`forensic_lr.casework.pipeline.run_case_full` separately (with the same
library calls it makes), then the whole ``forensic-lr run`` path (run + report + files),
and prints each stage's share. Target: the whole report in under 10 s on 2 cores.
"""

from __future__ import annotations

import argparse
import copy
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

CASE = """\
[case]
id = "BENCH-1"
[propositions]
hp = "same source"
hd = "different sources"
[evidence]
score = 1.5
[background]
ss = "ss.npy"
ds = "ds.npy"
[method]
calibrator = "{calibrator}"
[uncertainty]
method = "bootstrap"
n = 1000
seed = 1
[validation]
folds = 5
"""


def _timed(label: str, times: dict, func, *args, **kwargs):
    start = time.perf_counter()
    value = func(*args, **kwargs)
    times[label] = time.perf_counter() - start
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibrator", default="bayes", help="default: bayes, as in a case file")
    parser.add_argument("--n-ss", type=int, default=10_000)
    parser.add_argument("--n-ds", type=int, default=100_000)
    args = parser.parse_args()

    from forensic_lr.calibration import make_calibrator
    from forensic_lr.casework.pipeline import run_case_full
    from forensic_lr.casework.spec import load_case
    from forensic_lr.io.scores import load_scores
    from forensic_lr.metrics import evaluate
    from forensic_lr.output import write_outputs
    from forensic_lr.uncertainty import bootstrap_interval, cross_validated_llr

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        np.save(folder / "ss.npy", rng.normal(2.0, 1.0, args.n_ss))
        np.save(folder / "ds.npy", rng.normal(-1.0, 1.2, args.n_ds))
        (folder / "case.toml").write_text(CASE.format(calibrator=args.calibrator))

        stages: dict[str, float] = {}
        spec = _timed("load case file", stages, load_case, folder / "case.toml")
        data = _timed("load scores", stages, load_scores,
                      ss=str(folder / "ss.npy"), ds=str(folder / "ds.npy"))
        base = make_calibrator(spec.method.calibrator)
        x = np.array([1.5])
        model = _timed("fit", stages, copy.deepcopy(base).fit, data.ss, data.ds)
        _timed("LR", stages, model.llr, x)
        _timed("bootstrap (1000)", stages, bootstrap_interval, base, data.ss, data.ds, x,
               n=1000, seed=1)
        cv = _timed("5-fold validation", stages, cross_validated_llr, data.ss, data.ds, base,
                    folds=5, seed=1)
        _timed("metrics", stages, evaluate, *cv)
        run = _timed("run_case_full (all of the above)", stages, run_case_full, spec)
        try:
            from forensic_lr.report import build_report
        except ImportError:
            build_report = None
        if build_report is not None:
            files = _timed("report: plots + HTML + PDF", stages, build_report, run,
                           ("pdf", "html", "json"))
        else:
            files = {"result.json": run.result.to_json().encode()}
            stages["report: plots + HTML + PDF"] = float("nan")
        _timed("write files", stages, write_outputs, folder / "out", files, force=False)

    parts = ["load case file", "load scores", "fit", "LR", "bootstrap (1000)",
             "5-fold validation", "metrics", "report: plots + HTML + PDF", "write files"]
    total = sum(stages[p] for p in parts if np.isfinite(stages[p]))
    print(f"case: {args.n_ss} SS / {args.n_ds} DS, calibrator {args.calibrator}")
    print(f"{'stage':<36}{'seconds':>10}{'share':>9}")
    for p in parts:
        share = stages[p] / total if np.isfinite(stages[p]) else float("nan")
        print(f"{p:<36}{stages[p]:>10.3f}{share:>8.1%}")
    print(f"{'sum of stages':<36}{total:>10.3f}")
    whole = stages["run_case_full (all of the above)"] + stages["report: plots + HTML + PDF"]
    print(f"{'run_case_full + report (end to end)':<36}{whole:>10.3f}   target < 10 s")


if __name__ == "__main__":
    main()
