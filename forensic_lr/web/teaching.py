"""The teaching view's data: a background fitted once, then the LR of any score at once.

:func:`fit` calls :func:`forensic_lr.casework.evaluate_evidence_full` (the code of
``forensic-lr calibrate``) on the background with a grid of scores, keeps the fitted
calibrator (limited to the ELUB bounds when asked) and returns the log10 LR curve, the
bounds and the score histograms; :func:`lr_at` then gives the LR of a slider position from
that calibrator (:meth:`llr`), its verbal equivalent and the posterior odds for a prior,
without refitting. The page only draws.
"""

from __future__ import annotations

import math
import re
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..casework.textbook import textbook_background
from ..casework.verbal import format_log10_lr, format_lr, verbal_equivalent
from ..errors import InputError
from ..report.render import odds_markup
from ..resampling import DEFAULT_SEED

__all__ = ["TEXTBOOK", "Teaching", "example_backgrounds", "textbook_background"]

#: Grid points of the log10 LR curve.
GRID = 241
_GRID_WARNING = re.compile(r"score \S+ lies outside the range of the background")
#: Fits kept (least recently used dropped).
KEEP = 32
#: The teaching view's largest background per class (one slider update stays fast).
MAX_SCORES = 100_000


#: The preset: name shown, and what it sets.
TEXTBOOK = {"name": "textbook",
            "label": "Textbook example (score 5.96, Gaussian densities 0.35 and 0.15)",
            "method": "gaussian", "elub": False}


def example_backgrounds() -> dict[str, tuple[str, Any]]:
    """The worked examples whose method needs no extra inputs: name -> (summary, case file)."""
    from .._resources import examples_dir

    found = {}
    for folder in sorted(p for p in examples_dir().iterdir() if p.is_dir()):
        case = folder / "case.toml"
        if case.is_file() and folder.name != "suspect-adapted":
            found[folder.name] = (folder.name.replace("-", " "), case)
    return found


def _example_scores(name: str) -> tuple[np.ndarray, np.ndarray, float, str]:
    from ..casework.pipeline import load_case_data
    from ..casework.spec import load_case

    examples = example_backgrounds()
    if name not in examples:
        raise InputError(f"no worked example {name!r}; choose one of {sorted(examples)}")
    spec = load_case(examples[name][1])
    data, _ = load_case_data(spec)
    evidence = float(np.asarray(spec.evidence.values, dtype=np.float64)[0])
    if spec.evidence.score_direction == "lower_is_similar":
        evidence = -evidence
    return data.ss, data.ds, evidence, spec.method.calibrator


@dataclass(frozen=True, eq=False)
class Fit:
    """A background fitted for the teaching view."""

    calibrator: Any
    scale: Any
    low: float | None
    high: float | None
    range: tuple[float, float]
    model: Any = None  # the unbounded fit, for a generative model's densities


def _densities(model, score: float) -> list[float] | None:
    """``[f(score | Hp), f(score | Hd)]`` of a generative model (its ``density``), else None."""
    density = getattr(model, "density", None)
    if not callable(density):
        return None
    try:
        pdf_ss, pdf_ds = density(np.array([score]))
    except TypeError:  # a model whose density takes no scores
        return None
    return [float(pdf_ss[0]), float(pdf_ds[0])]


def _grid_densities(model, grid: np.ndarray):
    """A generative model's two densities over the grid, else ``(None, None)``."""
    density = getattr(model, "density", None)
    try:
        return density(grid) if callable(density) else (None, None)
    except TypeError:
        return None, None


class Teaching:
    """Fits of the teaching view, kept by id for the slider's requests."""

    def __init__(self) -> None:
        self._fits: OrderedDict[str, Fit] = OrderedDict()
        self._lock = threading.Lock()

    def fit(self, *, example: str | None = None, ss=None, ds=None, method: str = "gaussian",
            elub: bool = True, subsample: int | None = None, seed: int = DEFAULT_SEED,
            verbal_scale: str = "enfsi") -> dict[str, Any]:
        """Fit a background (a worked example, the textbook preset or given scores).

        ``subsample``: draw that many scores of each class without replacement (seeded), to
        show how a small background moves the LR. Returns the fit id, the curve, the ELUB
        bounds, histograms and the evidence score of a worked example.
        """
        from ..casework.evidence import evaluate_evidence_full
        from ..casework.verbal import load_scale

        evidence = None
        if example == TEXTBOOK["name"]:
            ss, ds, evidence = textbook_background()
        elif example:
            ss, ds, evidence, _ = _example_scores(example)
        if ss is None or ds is None:
            raise InputError("give a worked example, or ss and ds score lists")
        ss, ds = (np.asarray(x, dtype=np.float64).ravel() for x in (ss, ds))
        if max(ss.size, ds.size) > MAX_SCORES:
            raise InputError(f"the teaching view takes at most {MAX_SCORES:,} scores per class")
        if subsample:
            rng = np.random.default_rng(seed)
            k = int(subsample)
            if k < 2:
                raise InputError("subsample: at least 2 scores per class")
            ss = rng.choice(ss, min(k, ss.size), replace=False)
            ds = rng.choice(ds, min(k, ds.size), replace=False)
        both = np.concatenate([ss, ds])
        lo, hi = float(both.min()), float(both.max())
        pad = 0.15 * (hi - lo or 1.0)
        grid = np.linspace(lo - pad, hi + pad, GRID)
        folds = min(5, ss.size, ds.size)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            evaluated = evaluate_evidence_full(
                ss, ds, grid, calibrator=method, elub=elub and folds >= 2, folds=folds,
                interval="none", seed=seed)
        record = evaluated.record
        m = record.method
        fit = Fit(evaluated.fitted, load_scale(verbal_scale),
                  m.elub_log10_lr_low if m.elub_applied else None,
                  m.elub_log10_lr_high if m.elub_applied else None,
                  (float(both.min()), float(both.max())), evaluated.inner)
        fit_id = f"{id(fit):x}"
        with self._lock:
            self._fits[fit_id] = fit
            while len(self._fits) > KEEP:
                self._fits.popitem(last=False)
        pdf_ss, pdf_ds = _grid_densities(evaluated.inner, grid)
        edges = np.linspace(lo, hi, 31) if hi > lo else np.array([lo - 0.5, lo + 0.5])
        return {
            "fit": fit_id, "method": m.calibrator, "n_ss": int(ss.size), "n_ds": int(ds.size),
            "evidence": evidence, "grid": grid.tolist(),
            "log10_lr": [r.log10_lr for r in record.results],
            "elub": None if fit.low is None else [fit.low, fit.high],
            "hist_edges": edges.tolist(),
            "hist_ss": np.histogram(ss, edges, density=True)[0].tolist(),
            "hist_ds": np.histogram(ds, edges, density=True)[0].tolist(),
            "pdf_ss": None if pdf_ss is None else np.asarray(pdf_ss).tolist(),
            "pdf_ds": None if pdf_ds is None else np.asarray(pdf_ds).tolist(),
            # the grid's own extrapolation warnings are the curve's ends, not the user's score
            "warnings": [w for w in record.warnings if not _GRID_WARNING.match(w)],
        }

    def lr_at(self, fit_id: str, score: float, prior_log10_odds: float = 0.0) -> dict[str, Any]:
        """The LR of ``score`` under a kept fit, its verbal equivalent and posterior odds
        (log10 posterior odds = log10 prior odds + log10 LR)."""
        with self._lock:
            fit = self._fits.get(fit_id)
        if fit is None:
            raise KeyError(fit_id)
        if not (math.isfinite(score) and math.isfinite(prior_log10_odds)):
            raise InputError("score and prior must be finite numbers")
        llr = float(fit.calibrator.llr(np.array([score]))[0])
        log10_lr = llr / math.log(10)
        posterior = prior_log10_odds + log10_lr
        return {
            "score": score, "llr": llr, "log10_lr": log10_lr,
            "lr_text": format_lr(log10_lr, fit.scale),
            "log10_text": format_log10_lr(log10_lr, fit.scale),
            "verbal": verbal_equivalent(log10_lr, fit.scale).statement,
            "prior_log10_odds": prior_log10_odds,
            "posterior_log10_odds": posterior,
            "posterior_odds_text": str(odds_markup(posterior)),
            "extrapolated": not fit.range[0] <= score <= fit.range[1],
            "densities": _densities(fit.model, score),
        }
