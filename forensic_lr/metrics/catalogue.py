"""The one metric catalogue: key, labels, meaning, unit and which way is better.

Every face reads this table: the terminal tables of ``validate`` and ``compare``, the
laboratory criteria (``<key>_max`` for metrics where lower is better, ``<key>_min`` where
higher is better), the validation matrix, both reports and the JSON records. The metric
values themselves come from :func:`forensic_lr.metrics.evaluate_llrs`.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from .._numbers import fixed
from ..errors import InputError
from ..i18n import N_

__all__ = [
    "CRITERIA", "METRICS", "Metric", "criterion_hint", "criterion_metric", "fixed", "metric",
    "printed_metrics", "resampled",
]


@dataclass(frozen=True)
class Metric:
    """One performance metric as the faces present it.

    Attributes
    ----------
    key : str
        Field of :class:`~forensic_lr.metrics.Evaluation` (and JSON key).
    label : str
        Full name for tables, e.g. ``"Cllr (bits)"``.
    short : str
        Name for narrow table headers, e.g. ``"Cllr"``.
    meaning : str
        One line saying what it measures.
    fmt : int or "percent"
        Decimals to print, or a rate printed as a percentage.
    better : {"lower", "higher"}
        The direction of improvement (and of a laboratory criterion).
    resampled : bool
        Whether the bootstrap of :mod:`forensic_lr.validation` gives it an interval.
    """

    key: str
    label: str
    short: str
    meaning: str
    fmt: int | Literal["percent"]
    better: Literal["lower", "higher"]
    resampled: bool = True

    @property
    def criterion(self) -> str:
        """The laboratory criterion key, e.g. ``cllr_max`` or ``auc_min``."""
        return f"{self.key}_{'max' if self.better == 'lower' else 'min'}"

    @property
    def comparison(self) -> Literal["<=", ">="]:
        """How a value passes its criterion's threshold."""
        return "<=" if self.better == "lower" else ">="

    def text(self, value: float | None) -> str:
        """``value`` formatted as the reports print it ("n/a" when undefined)."""
        if value is None or value != value:
            return "n/a"
        if self.fmt == "percent":
            return f"{fixed(100 * value, 1)} %"
        return fixed(value, self.fmt)

    @property
    def decimals(self) -> int:
        """Decimals of the value as printed (a percentage with one decimal: 3 of the rate)."""
        return 3 if self.fmt == "percent" else self.fmt

    def printed(self, value: float | None) -> float | None:
        """``value`` rounded as the reports print it (None when undefined)."""
        if value is None or value != value:
            return None
        return round(value, self.decimals)

    def limit(self, threshold: float) -> str:
        """A criterion's threshold in the unit the metric is printed in: ``"5 %"``, ``"0.5"``."""
        return f"{100 * threshold:g} %" if self.fmt == "percent" else f"{threshold:g}"


#: The metrics in report order.
METRICS: tuple[Metric, ...] = (
    Metric("cllr", N_("Cllr (bits)"), N_("Cllr"),
           N_("overall cost of the LRs: 0 perfect, 1 uninformative"), 3, "lower"),
    Metric("min_cllr", N_("minimum Cllr (bits)"), N_("min Cllr"),
           N_("discrimination loss: Cllr after optimal calibration"), 3, "lower"),
    Metric("cllr_cal", N_("Cllr_cal (bits)"), N_("Cllr_cal"),
           N_("calibration loss: Cllr - minimum Cllr"), 3, "lower"),
    Metric("eer", N_("equal error rate"), N_("EER"),
           N_("error rate where misses equal false alarms (ROC hull)"), "percent", "lower"),
    Metric("auc", N_("AUC"), N_("AUC"),
           N_("probability that a same-source score exceeds a different-source one"), 3, "higher"),
    Metric("rmep", N_("RMEP"), N_("RMEP"),
           N_("same-source comparisons with LR < 1 (misleading towards Hd)"), "percent", "lower"),
    Metric("rmed", N_("RMED"), N_("RMED"),
           N_("different-source comparisons with LR > 1 (misleading towards Hp)"), "percent",
           "lower"),
    Metric("devpav", N_("devPAV"), N_("devPAV"),
           N_("mean distance of the calibration curve from ideal (log10 units)"), 3, "lower",
           resampled=False),
    Metric("llr_overestimation", N_("LLR overestimation"), N_("LLR overest."),
           N_("mean distance of the LRs from the LRs their own distributions support "
              "(log10 units)"), 3, "lower", resampled=False),
)

_BY_KEY = {m.key: m for m in METRICS}
#: Laboratory criterion key -> its metric.
CRITERIA = {m.criterion: m for m in METRICS}


def metric(key: str) -> Metric:
    """The catalogue entry of metric ``key``."""
    return _BY_KEY[key]


def criterion_metric(name: str) -> Metric:
    """The metric a laboratory criterion (e.g. ``"eer_max"``) is about.

    Raises
    ------
    InputError
        For a key that is not a criterion, naming the closest criterion and every valid
        key (:func:`criterion_hint`).
    """
    try:
        return CRITERIA[name]
    except (KeyError, TypeError):
        raise InputError(f"{name!r} is not a validation criterion{criterion_hint(name)}"
                         ) from None


def criterion_hint(name: object) -> str:
    """``"; did you mean 'cllr_max'? The criteria are: cllr_max, ..."`` for an unknown key
    (``"; the criteria are: ..."`` when none is close).

    The closest criterion is :func:`difflib.get_close_matches`'s best (similarity ratio at
    least 0.6); without one, only the list of valid keys.
    """
    close = difflib.get_close_matches(str(name), list(CRITERIA), n=1)
    guess = f"; did you mean {close[0]!r}? The" if close else "; the"
    return f"{guess} criteria are: {', '.join(CRITERIA)}"


def printed_metrics(values: dict[str, float | None]) -> dict[str, float | None]:
    """The metrics of ``values`` rounded as the reports print them (:meth:`Metric.printed`).

    Cllr_cal is the printed Cllr minus the printed minimum Cllr, so that the three printed
    numbers agree (the rounded Cllr_cal itself can differ by one unit in the last digit:
    0.3124 - 0.2006 = 0.1118 prints 0.112, but 0.312 - 0.201 = 0.111).
    """
    out = {m.key: m.printed(values.get(m.key)) for m in METRICS if m.key in values}
    cal = metric("cllr_cal")
    if out.get("cllr") is not None and out.get("min_cllr") is not None and "cllr_cal" in out:
        out["cllr_cal"] = round(out["cllr"] - out["min_cllr"], cal.decimals)
    return out


def resampled() -> tuple[str, ...]:
    """Keys of the metrics given bootstrap intervals, in report order."""
    return tuple(m.key for m in METRICS if m.resampled)
