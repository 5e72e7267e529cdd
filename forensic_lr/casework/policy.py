"""The opinion policy: report the LR as an evaluative opinion, or withhold it, and why.

An LR is a number any calibrator produces; an evaluative opinion is the examiner's
statement that the number can be relied on for this case. :func:`decide_conclusion`
withholds the opinion ("no evaluative opinion can be given because ...") when

1. a laboratory validation criterion is not met (the method failed its own validation);
2. an evidence score lies outside the pooled range of the background scores (its LR rests
   on extrapolation), by the rule ``[opinion] beyond_background``: by default
   (``"withhold-unbounded"``) unless the bounds of ``[method] bounds`` (ELUB by default)
   limit its LR, whose limited value is then what the report gives; ``"withhold"``:
   always; ``"report"``: never;
3. the fitted calibration is not monotonic between the background's bulk and the evidence
   score (:func:`forensic_lr.calibration.monotonicity.monotonicity_check`): a higher score
   would support Hp less;
4. a calibration check departs from its ideal by more than the laboratory's effect size
   with its interval excluding the ideal: recalibration slope outside
   ``[slope_min, slope_max]`` (ideal 1) or ``|offset| > offset_max`` (ideal 0). An effect
   size, not a significance test alone: a large study would reject every tiny departure,
   a small one none;
5. the method adapts the model to the case's own source (``suspect_map``: to the suspect's
   scores) and the background names no sources, so the validation could test the
   population model only, not the method as applied
   (:meth:`~forensic_lr.calibration.suspect_map.SuspectMAPCalibrator.fold_llr`).

Every reason is listed, not the first. A case may override with ``[opinion] override =
true`` and a written ``justification``; the status is then ``"overridden"`` and the
report prints the justification. A case that applies settings looser than the
laboratory's profile (``[opinion] lab_override``, see :mod:`.profile`) has them listed in
``lab_departures`` with its justification, whatever the status. Withholding is a
statement of the report, not a failure of the run: every computed number stays in the
result.

ELUB is not a reason to withhold: bounding is the default for cases; with it off, the
conclusion states the limited value beside each LR beyond the bounds (``elub_notes``).
Which class's range an evidence score leaves (e.g. below every same-source score) is
stated in ``range_notes``: information, not a reason (many different-source scores lie
below every same-source score).
"""

from __future__ import annotations

import numpy as np

from .._numbers import signed_log10
from ..calibration.monotonicity import bulk_span, monotonicity_check
from ..errors import ForensicLRError
from ..i18n.messages import english
from ..metrics.catalogue import METRICS
from ..records import CaseResult, Conclusion, Message, PolicySetting
from .evidence import rule_message
from .profile import criterion_label, setting_value_text
from .spec import Opinion
from .verbal import format_lr

__all__ = ["WITHHELD_OPENING", "decide_conclusion"]


def _said(code: str, **params: str) -> Message:
    """A reason as its code (the ``messages`` catalogue) and parameters."""
    return Message(code=code, params=params)

#: How a withheld conclusion begins (the reasons follow).
WITHHELD_OPENING = "no evaluative opinion can be given because"


def _criteria_reasons(result: CaseResult) -> list[Message]:
    labels = {m.key: m.label for m in METRICS}
    percent = {m.key for m in METRICS if m.fmt == "percent"}
    reasons = []
    for c in result.validation.criteria:
        if c.met:
            continue
        show = (lambda v: f"{100 * v:.1f} %") if c.metric in percent else (lambda v: f"{v:.3g}")
        params = {"metric_term": labels.get(c.metric, c.metric), "value": show(c.value),
                  "comparison": c.comparison, "threshold": show(c.threshold)}
        if c.bound is None or c.rule == "estimate":
            reasons.append(_said("policy.criterion_not_met", **params))
        else:
            side = "upper" if c.comparison == "<=" else "lower"
            reasons.append(_said(f"policy.criterion_not_met.{side}_bound",
                                 bound=show(c.bound), **params))
    return reasons


def _range_reasons(result: CaseResult, opinion: Opinion) -> list[Message]:
    """Scores outside the pooled background range, by ``[opinion] beyond_background``.

    ``"withhold-unbounded"`` (default): withheld unless the LR is limited by the ELUB
    bounds (then the limited value is what the report gives, worded as a limit);
    ``"withhold"``: always withheld; ``"report"``: never withheld for this.
    """
    if opinion.beyond_background == "report":
        return []
    low = min(result.background_ss.minimum, result.background_ds.minimum)
    high = max(result.background_ss.maximum, result.background_ds.maximum)
    word = "distance" if result.score_direction == "lower_is_similar" else "score"
    reasons = []
    for e in result.results:
        if not e.extrapolated or (e.bounded and opinion.beyond_background != "withhold"):
            continue
        why = ("" if opinion.beyond_background == "withhold" else
               "policy.outside_background.elub_not_limiting" if result.method.elub_applied
               else "policy.outside_background.elub_off")
        why, params = rule_message(why, result.method.bounds_rule, {
            "label": e.label, "score": f"{e.score:g}", "low": f"{low:g}", "high": f"{high:g}"})
        reasons.append(_said(f"policy.outside_background.{word}", why_code=why, **params))
    return reasons


def _range_notes(result: CaseResult) -> list[Message]:
    """Which class's range each evidence score leaves: information, not a reason.

    A score below every same-source score, or above every different-source score (as
    measured: for distances, above every same-source distance, below every different-source
    one), lies where the validation has no comparison of that class.
    """
    word = "distance" if result.score_direction == "lower_is_similar" else "score"
    classes = (("ss", result.background_ss), ("ds", result.background_ds))
    notes = []
    for e in result.results:
        sides = [f"policy.range_side.{'below' if e.score < s.minimum else 'above'}_{name}.{word}"
                 for name, s in classes if not s.minimum <= e.score <= s.maximum]
        if sides:
            notes.append(_said(
                f"policy.range_note.{word}", label=e.label, score=f"{e.score:g}",
                side_code=sides[0], and_code="policy.range_note.and" if sides[1:] else "",
                other_code=sides[1] if sides[1:] else "",
                **{f"{name}_{end}": f"{getattr(s, end + 'imum'):g}"
                   for name, s in classes for end in ("min", "max")}))
    return notes


def _file_scale(score: float, result: CaseResult) -> float:
    return -score if result.score_direction == "lower_is_similar" else score


def _monotonic_reason(result: CaseResult, opinion: Opinion, calibrator, ss, ds,
                      evidence) -> list[Message]:
    span = bulk_span(ss, ds, evidence, quantiles=opinion.monotonic_quantiles)
    try:
        check = monotonicity_check(calibrator, span,
                                   tolerance_log10=opinion.monotonic_tolerance_log10)
    except ForensicLRError as exc:
        return [_said("policy.monotonicity_unchecked", error=str(exc))]
    if check.monotonic:
        return []
    ends = sorted(_file_scale(v, result) for v in check.span)
    peak, drop = (_file_scale(v, result) for v in check.at)
    word = "distance" if result.score_direction == "lower_is_similar" else "score"
    return [_said(f"policy.not_monotonic.{word}", low=f"{ends[0]:.3g}", high=f"{ends[1]:.3g}",
                  decrease=f"{check.max_decrease_log10:.2f}", peak=f"{peak:.3g}",
                  drop=f"{drop:.3g}", tolerance=f"{opinion.monotonic_tolerance_log10:g}")]


def _check_reasons(result: CaseResult, opinion: Opinion) -> list[Message]:
    checks = result.validation.calibration_checks
    if not checks:
        return []
    rec = checks["recalibration"]
    level = f"{round(100 * rec['level'])} %"
    reasons = []
    slope, (s_lo, s_hi) = rec["slope"], rec["slope_interval"]
    if not opinion.slope_min <= slope <= opinion.slope_max and not s_lo <= 1.0 <= s_hi:
        kind = "too_strong" if slope < 1 else "too_weak"
        reasons.append(_said(
            f"policy.check.slope_{kind}", slope=f"{slope:.2f}", level=level, low=f"{s_lo:.2f}",
            high=f"{s_hi:.2f}", min=f"{opinion.slope_min:g}", max=f"{opinion.slope_max:g}"))
    offset, (o_lo, o_hi) = rec["offset"], rec["offset_interval"]
    if abs(offset) > opinion.offset_max and not o_lo <= 0.0 <= o_hi:
        towards = "hp" if offset > 0 else "hd"
        reasons.append(_said(
            f"policy.check.offset_towards_{towards}", offset=f"{offset:.2f}", level=level,
            low=f"{o_lo:.2f}", high=f"{o_hi:.2f}", max=f"{opinion.offset_max:g}"))
    return reasons


def _elub_notes(result: CaseResult) -> list[Message]:
    method = result.method
    low, high = method.elub_log10_lr_low, method.elub_log10_lr_high
    if method.elub_applied or low is None or high is None:
        return []
    notes = []
    for e in result.results:
        bound = high if e.log10_lr > high else low if e.log10_lr < low else None
        if bound is not None:
            code, params = rule_message(
                f"policy.elub_note.{'largest' if bound > 0 else 'smallest'}",
                method.bounds_rule, {
                    "label": e.label, "lr": e.lr_text, "log10": e.log10_text,
                    "low": signed_log10(low), "high": signed_log10(high),
                    "bound_lr": format_lr(bound), "bound_log10": signed_log10(bound)})
            notes.append(_said(code, **params))
    return notes


def _departures(policy: tuple[PolicySetting, ...]) -> tuple[Message, ...]:
    """The settings looser than the laboratory's profile, as page 1 lists them: the
    setting's label (a text of the report catalogue), the case's and the laboratory's value
    (on/off as a phrase, a span as "low to high", numbers as ``%g``, a case-file keyword as
    what it means (:func:`~forensic_lr.casework.profile.setting_value_text`, a text of the
    report catalogue), other values as written)."""
    def shown(value, name: str, key: str) -> dict[str, str]:
        params = {name: "", f"{name}_code": "", f"{name}_span": "", f"{name}_term": ""}
        if isinstance(value, bool):
            params[f"{name}_code"] = f"policy.value.{'on' if value else 'off'}"
        elif isinstance(value, list | tuple):
            params[f"{name}_span"] = "\n".join(f"{v:g}" for v in value)
        elif setting_value_text(key, value):
            params[f"{name}_term"] = setting_value_text(key, value)
        else:
            params[name] = f"{value:g}" if isinstance(value, float | int) else str(value)
        return params

    def setting(p: PolicySetting) -> dict[str, str]:
        criterion = criterion_label(p.key)  # "validation criterion: Cllr (bits) at most"
        if criterion is not None:
            return {"setting_term": "", "setting_code": criterion[0], **criterion[1]}
        return {"setting_term": p.label, "setting_code": ""}

    return tuple(
        _said("policy.departure", **setting(p), **shown(p.value, "value", p.key),
              **shown(p.lab_value, "lab", p.key))
        for p in policy if p.relation == "looser"
    )


def _source_reason(result: CaseResult, calibrator) -> list[Message]:
    """A method validated as applied only with folds by source, validated without them."""
    if not getattr(calibrator, "validated_by_source", False) or (
            result.validation.folds_by == "source"):
        return []
    return [_said("policy.source_not_validated")]


def decide_conclusion(result: CaseResult, opinion: Opinion, *, calibrator, ss: np.ndarray,
                      ds: np.ndarray, evidence: np.ndarray,
                      policy: tuple[PolicySetting, ...] = ()) -> Conclusion:
    """Report, withhold or (with a written override) report despite the reasons.

    Parameters
    ----------
    result : CaseResult
        The case's results (validation, criteria, calibration checks, evidence LRs).
    opinion : Opinion
        The policy thresholds and the case's override (``[opinion]``).
    calibrator : Calibrator
        The calibrator fitted on all background scores, without ELUB bounding (bounding
        flattens a curve, it cannot mend its order).
    ss, ds, evidence : numpy.ndarray
        Background and evidence scores as used (score-like: higher supports Hp).
    policy : tuple of PolicySetting
        The case's policy settings (:func:`.profile.policy_settings`): those looser than
        the laboratory's profile become ``lab_departures``.

    Returns
    -------
    Conclusion
        ``status``, every reason in the order of the module's list, the justification
        of an override, the printed statement and the ELUB notes.
    """
    messages = (
        _criteria_reasons(result)
        + _range_reasons(result, opinion)
        + _monotonic_reason(result, opinion, calibrator, ss, ds, evidence)
        + _check_reasons(result, opinion)
        + _source_reason(result, calibrator)
    )
    reasons = [english(m.code, **m.params) for m in messages]
    coded = {"reason_messages": tuple(messages)}
    note_messages = tuple(_elub_notes(result))
    notes = tuple(english(m.code, **m.params) for m in note_messages)
    departures = _departures(policy)
    range_notes = tuple(_range_notes(result))
    lab = {"lab_departures": tuple(english(m.code, **m.params) for m in departures),
           "lab_departure_messages": departures, "elub_note_messages": note_messages,
           "lab_justification": opinion.lab_override_justification if departures else "",
           "range_notes": tuple(english(m.code, **m.params) for m in range_notes),
           "range_note_messages": range_notes}
    if not reasons:
        return Conclusion(status="reported", elub_notes=notes, **lab)
    listed = "; ".join(f"({i}) {text}" for i, text in enumerate(reasons, 1))
    if opinion.override:
        return Conclusion(
            status="overridden", reasons=tuple(reasons), justification=opinion.justification,
            statement=(
                "An evaluative opinion is given on the laboratory's written justification, "
                f"although under its policy {WITHHELD_OPENING} {listed}."
            ),
            elub_notes=notes, **lab, **coded,
        )
    return Conclusion(
        status="withheld", reasons=tuple(reasons),
        statement=f"{WITHHELD_OPENING[0].upper()}{WITHHELD_OPENING[1:]} {listed}.",
        elub_notes=notes, **lab, **coded,
    )
