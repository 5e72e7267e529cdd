"""Which calibrator when: a small simulation study (run from the repository root).

``python docs/course/calibrator_study.py`` prints the table of docs/course/guide-calibrators.md
and writes figures/calibrator-study.svg. For every shape of the score distributions, every
background size n (per class) and every method, ``REPEATS`` backgrounds are drawn; each
calibrator is fitted on one and evaluated on a large test set (``TEST`` scores per class)
whose true natural-log LR is known in closed form:

    LLR(x) = ln N(x; m_ss, s_ss) - ln N(x; m_ds, s_ds).

Reported (means over the fits that succeeded; a fit fails when, e.g., logistic regression
meets perfectly separated scores): Cllr of the test LLRs (Brümmer and du Preez 2006), the
true Cllr of the shape, and the bias, the mean of (fitted - true) LLR over the test scores
with |true LLR| <= ln 100.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy.stats import norm

from forensic_lr import metrics, plots
from forensic_lr.calibration import make_calibrator
from forensic_lr.errors import ConvergenceError

SEED = 20261128
SHAPES = {"equal variances": (2.0, 1.0, -1.0, 1.0), "unequal variances": (2.0, 0.5, -1.0, 1.5)}
SIZES = (20, 100, 500)
METHODS = ("gaussian", "logistic", "pav", "kde")
REPEATS = 20
TEST = 5000


def true_llr(x: np.ndarray, shape: tuple[float, float, float, float]) -> np.ndarray:
    """``ln N(x; m_ss, s_ss) - ln N(x; m_ds, s_ds)``."""
    m_ss, s_ss, m_ds, s_ds = shape
    return norm.logpdf(x, m_ss, s_ss) - norm.logpdf(x, m_ds, s_ds)


def study(sizes=SIZES, repeats: int = REPEATS, test: int = TEST) -> list[dict]:
    """One row per (shape, n, method): mean Cllr, true Cllr and mean bias over the repeats."""
    rng = np.random.default_rng(SEED)
    rows = []
    for shape_name, shape in SHAPES.items():
        m_ss, s_ss, m_ds, s_ds = shape
        t_ss, t_ds = rng.normal(m_ss, s_ss, test), rng.normal(m_ds, s_ds, test)
        true_ss, true_ds = true_llr(t_ss, shape), true_llr(t_ds, shape)
        t_all, true_all = np.concatenate([t_ss, t_ds]), np.concatenate([true_ss, true_ds])
        inside = np.abs(true_all) <= np.log(100)
        for n in sizes:
            draws = [(rng.normal(m_ss, s_ss, n), rng.normal(m_ds, s_ds, n)) for _ in range(repeats)]
            for method in METHODS:
                cllrs, biases, failed = [], [], 0
                for ss, ds in draws:
                    try:
                        cal = make_calibrator(method).fit(ss, ds)
                    except ConvergenceError:  # e.g. logistic regression on separated scores
                        failed += 1
                        continue
                    llr = cal.llr(t_all)
                    cllrs.append(metrics.cllr(llr[:test], llr[test:]))
                    biases.append(float(np.mean(llr[inside] - true_all[inside])))
                rows.append({"shape": shape_name, "n": n, "method": method,
                             "cllr": float(np.mean(cllrs)), "bias": float(np.mean(biases)),
                             "true_cllr": metrics.cllr(true_ss, true_ds), "failed": failed})
    return rows


def figure(rows: list[dict]):
    """Cllr against background size, one panel per shape, one line per method."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 3.2))
    axes = fig.subplots(1, len(SHAPES), sharey=True)
    for ax, shape in zip(axes, SHAPES, strict=True):
        for method in METHODS:
            sel = [r for r in rows if r["shape"] == shape and r["method"] == method]
            ax.plot([r["n"] for r in sel], [r["cllr"] for r in sel], marker="o", label=method)
        ax.axhline(sel[0]["true_cllr"], color="grey", linestyle=":", label="true LLR")
        ax.set_xscale("log")
        ax.set_title(shape)
        ax.set_xlabel("background scores per class")
    axes[0].set_ylabel("Cllr on the test set")
    axes[-1].legend(fontsize="small")
    fig.tight_layout()
    return fig


def main(out: Path) -> None:
    rows = study()
    print("| shape | n per class | method | Cllr | true Cllr | bias of the LLR | fits failed |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['shape']} | {r['n']} | {r['method']} | {r['cllr']:.3f} | "
              f"{r['true_cllr']:.3f} | {r['bias']:+.2f} | {r['failed']} of {REPEATS} |")
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "figures" / "calibrator-study.svg").write_text(plots.to_svg(figure(rows)), "utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent)
