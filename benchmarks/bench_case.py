"""End-to-end benchmark of a case: 10^4 SS / 10^5 DS scores, 1000 bootstrap replicates.

Usage::

    python benchmarks/bench_case.py [--calibrator bayes|pav,kde|all] [--n-ss 10000] [--n-ds 100000]
                                    [--repeats 3] [--stages]

For each calibrator, times the whole ``forensic-lr run`` (case file in, report files out,
in one process) with ``[uncertainty] method = "bootstrap"`` (1000 replicates) and with
``method = "none"``, alternating the two, and prints the median of ``--repeats`` runs of
each, their range and the ratio bootstrap / none (target: at most 2, and a whole case
under 5 s). It also times the LR bootstrap alone (``bootstrap_interval``, median of
``--repeats``) and prints ``(none + LR bootstrap) / none``, what the interval adds to a run
whatever else the case computes, and the processor time of each run (this process and the
stages' pool processes: it moves less than the wall clock when other programs share the
machine). Other programs may share the machine, so compare ratios within one run; the first
line gives the time of one ``np.sort`` of 10^6 values, to compare machines.
``suspect_map`` gets 30 suspect scores and ``unsupervised`` 3,300 unlabelled scores.
``--stages`` also times each stage of :func:`forensic_lr.casework.run_case_full` once,
with the same library calls it makes, and prints each stage's share, then the whole
computation one stage after the other and with its stages side by side
(two workers).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import os
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

CALIBRATORS = (
    "gaussian", "bayes", "logistic", "pav", "kde", "scal", "student_t", "suspect_map",
    "unsupervised",
)

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
{extra}
[method]
calibrator = "{calibrator}"
[uncertainty]
method = "{uncertainty}"
n = 1000
seed = 1
[validation]
folds = 5
"""

EXTRA = {"suspect_map": 'suspect_ss = "suspect.csv"', "unsupervised": 'unlabelled = "unl.csv"'}


def _timed(label: str, times: dict, func, *args, **kwargs):
    start = time.perf_counter()
    value = func(*args, **kwargs)
    times[label] = time.perf_counter() - start
    return value


@contextlib.contextmanager
def _timing(module, name: str, times: dict, label: str):
    """Time every call of ``module.name`` while inside, into ``times[label]``."""
    func = getattr(module, name)

    def timed(*args, **kwargs):
        return _timed(label, times, func, *args, **kwargs)

    setattr(module, name, timed)
    try:
        yield
    finally:
        setattr(module, name, func)


def _write_data(folder: Path, n_ss: int, n_ds: int) -> None:
    rng = np.random.default_rng(0)
    np.save(folder / "ss.npy", rng.normal(2.0, 1.0, n_ss))
    np.save(folder / "ds.npy", rng.normal(-1.0, 1.2, n_ds))
    np.savetxt(folder / "suspect.csv", rng.normal(2.3, 0.8, 30))
    unl = np.concatenate([rng.normal(2.0, 1.0, 300), rng.normal(-1.0, 1.2, 3000)])
    np.savetxt(folder / "unl.csv", unl)


def _case_file(folder: Path, calibrator: str, uncertainty: str) -> Path:
    path = folder / f"{calibrator}-{uncertainty}.toml"
    text = CASE.format(calibrator=calibrator, uncertainty=uncertainty,
                       extra=EXTRA.get(calibrator, ""))
    path.write_text(text)
    return path


def _processor_seconds() -> float:
    """Processor time of this process and of its ended child processes (the stages' pool)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _run_seconds(folder: Path, case: Path) -> tuple[float, float]:
    """Wall-clock and processor seconds of one ``forensic-lr run`` of ``case``."""
    from forensic_lr.cli import main

    out = folder / "out"
    start, cpu = time.perf_counter(), _processor_seconds()
    code = main(["run", str(case), "--out", str(out), "--force", "--draft", "-q"])
    seconds, cpu = time.perf_counter() - start, _processor_seconds() - cpu
    if code != 0:
        raise SystemExit(f"forensic-lr run {case.name} failed with exit code {code}")
    return seconds, cpu


def _sort_seconds() -> float:
    """Best of 5 ``np.sort`` of 10^6 normal values: this machine's speed, to compare runs."""
    values = np.random.default_rng(0).normal(size=10**6)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        np.sort(values)
        best = min(best, time.perf_counter() - start)
    return best


def _interval_seconds(folder: Path, calibrator: str) -> float:
    """Seconds of the LR bootstrap alone (:func:`bootstrap_interval`, 1000 replicates)."""
    from forensic_lr.calibration import make_calibrator
    from forensic_lr.casework.pipeline import load_case_data
    from forensic_lr.casework.spec import load_case
    from forensic_lr.uncertainty import bootstrap_interval

    spec = load_case(_case_file(folder, calibrator, "bootstrap"))
    data, extra = load_case_data(spec)
    base = make_calibrator(spec.method.calibrator, **extra)
    start = time.perf_counter()
    bootstrap_interval(data.ss, data.ds, np.array([1.5]), base, n=1000, seed=1)
    return time.perf_counter() - start


def ratio_table(folder: Path, calibrators, repeats: int) -> None:
    """Median (range) of whole runs with and without the bootstrap, and their ratio.

    The last two columns time the LR bootstrap alone (median of ``repeats`` calls of
    :func:`bootstrap_interval`) and give ``(none + LR bootstrap) / none``: what the
    interval adds to a run, apart from the rest of the case (sensitivity analysis,
    report), which may dominate both runs.
    """
    print(f"{'calibrator':<14}{'bootstrap s':>22}{'none s':>22}{'ratio':>8}"
          f"{'LR bootstrap s':>17}{'(none+LR)/none':>16}{'cpu bootstrap/none s':>22}")
    for name in calibrators:
        cases = {u: _case_file(folder, name, u) for u in ("bootstrap", "none")}
        times: dict[str, list[float]] = {"bootstrap": [], "none": [], "interval": []}
        cpu: dict[str, list[float]] = {"bootstrap": [], "none": []}
        for _ in range(repeats):
            for u in ("none", "bootstrap"):
                wall, processor = _run_seconds(folder, cases[u])
                times[u].append(wall)
                cpu[u].append(processor)
            times["interval"].append(_interval_seconds(folder, name))
        med = {u: float(np.median(t)) for u, t in times.items()}
        cells = [f"{med[u]:.2f} ({min(times[u]):.2f}-{max(times[u]):.2f})" for u in times]
        processor = f"{np.median(cpu['bootstrap']):.2f} / {np.median(cpu['none']):.2f}"
        print(f"{name:<14}{cells[0]:>22}{cells[1]:>22}{med['bootstrap'] / med['none']:>8.2f}"
              f" {cells[2]:>16}{(med['none'] + med['interval']) / med['none']:>16.2f}"
              f"{processor:>22}", flush=True)


def stage_table(folder: Path, calibrator: str) -> None:
    """Each stage of the case pipeline timed once, with its share of the sum."""
    from forensic_lr.calibration import make_calibrator
    from forensic_lr.casework import pipeline
    from forensic_lr.casework.pipeline import load_case_data, run_case_full
    from forensic_lr.casework.spec import load_case
    from forensic_lr.metrics import evaluate
    from forensic_lr.output import write_outputs
    from forensic_lr.report import build_report
    from forensic_lr.uncertainty import bootstrap_interval, cross_validated_llr

    stages: dict[str, float] = {}
    spec = _timed("load case file", stages, load_case, _case_file(folder, calibrator, "bootstrap"))
    data, extra = _timed("load scores", stages, load_case_data, spec)
    ss, ds = data.ss, data.ds
    base = make_calibrator(spec.method.calibrator, **extra)
    x = np.array([1.5])
    model = _timed("fit", stages, copy.deepcopy(base).fit, ss, ds)
    _timed("LR", stages, model.llr, x)
    _timed("bootstrap (1000)", stages, bootstrap_interval, ss, ds, x, base, n=1000, seed=1)
    cv = _timed("5-fold validation", stages, cross_validated_llr, ss, ds, base, folds=5, seed=1)
    _timed("metrics", stages, evaluate, *cv)
    # one stage after the other (one worker), so that each can be timed here
    with _timing(pipeline, "sensitivity_analysis", stages, "sensitivity (in run_case_full)"):
        _timed("run_case_full (all of the above)", stages, run_case_full, spec, workers=1)
    run = _timed("run_case_full, stages side by side", stages, run_case_full, spec, workers=2)
    files = _timed("report: plots + HTML + PDF", stages, build_report, run, ("pdf", "html", "json"))
    _timed("write files", stages, write_outputs, folder / "stages", files, force=True)
    parts = ["load case file", "load scores", "fit", "LR", "bootstrap (1000)",
             "5-fold validation", "metrics", "sensitivity (in run_case_full)",
             "report: plots + HTML + PDF", "write files"]
    total = sum(stages[p] for p in parts)
    print(f"stages of one case, calibrator {calibrator}")
    print(f"{'stage':<42}{'seconds':>10}{'share':>9}")
    for p in parts:
        print(f"{p:<42}{stages[p]:>10.3f}{stages[p] / total:>8.1%}")
    print(f"{'sum of stages':<42}{total:>10.3f}")
    for p in ("run_case_full (all of the above)", "run_case_full, stages side by side"):
        print(f"{p:<42}{stages[p]:>10.3f}")



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibrator", default="bayes",
                        help="a method, several separated by commas, or 'all' (default: bayes)")
    parser.add_argument("--n-ss", type=int, default=10_000)
    parser.add_argument("--n-ds", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--stages", action="store_true", help="also time each stage once")
    args = parser.parse_args()
    names = CALIBRATORS if args.calibrator == "all" else tuple(args.calibrator.split(","))
    unknown = sorted(set(names) - set(CALIBRATORS))
    if unknown:
        parser.error(f"unknown calibrator(s) {', '.join(unknown)}; choose from "
                     f"{', '.join(CALIBRATORS)} or all")

    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _write_data(folder, args.n_ss, args.n_ds)
        print(f"case: {args.n_ss} SS / {args.n_ds} DS, 1000 bootstrap replicates, 5 folds, "
              f"report pdf+html+json; median (range) of {args.repeats} runs; machine: "
              f"np.sort of 10^6 values {_sort_seconds() * 1e3:.0f} ms, load average "
              f"{os.getloadavg()[0]:.1f}")
        _run_seconds(folder, _case_file(folder, "bayes", "none"))  # imports, caches: not timed
        ratio_table(folder, names, args.repeats)
        if args.stages:
            for name in names:
                stage_table(folder, name)


if __name__ == "__main__":
    main()
