"""``forensic-lr label-noise``: correct precision/recall for expert label errors.

Subcommands:

* ``correct``  -- true precision and recall from the observed ones and the expert error
  rates (``--eps`` for the independent model, ``--alpha`` and ``--beta`` for the
  conditional one); see :func:`forensic_lr.studies.label_noise.correct_metrics`.
* ``estimate`` -- EM estimates of ``alpha``, ``beta`` and the prevalence from a CSV of
  duplicate judgements; see :func:`forensic_lr.studies.label_noise.estimate_error_rates`.

:func:`add_parser` adds the subcommand to the main parser; :func:`_cmd_label_noise` runs
it. User mistakes raise :class:`forensic_lr.errors.InputError`, which the main program
prints and turns into exit status 2.
"""

from __future__ import annotations

import argparse

from ..errors import InputError
from ..limits import check_count
from .common import print_json


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``label-noise`` (with ``correct`` and ``estimate``) to ``subparsers``."""
    p = subparsers.add_parser(
        "label-noise",
        help="precision/recall corrected for errors in the reference labels",
        description="Expert (assessor) label errors: corrected precision and recall (Lam and "
        "Stork 2003), and EM estimates of the error rates from duplicate judgements (Dawid "
        "and Skene 1979).",
    )
    sub = p.add_subparsers(dest="label_noise_command", metavar="ACTION")
    sub.required = True

    c = sub.add_parser(
        "correct",
        help="true precision P0 and recall R0 from the observed P1, R1",
        description="P0 = (P1 - beta) / (1 - alpha - beta), "
        "R0 = (R1 pi_hat - beta pi1) / (pi_hat - beta), pi1 = R1 pi_hat / P1 "
        "(independent model: alpha = beta = eps).",
    )
    c.add_argument(
        "--precision",
        type=float,
        required=True,
        metavar="P1",
        help="observed precision P1 (against the expert's labels)",
    )
    c.add_argument(
        "--recall",
        type=float,
        required=True,
        metavar="R1",
        help="observed recall R1 (against the expert's labels)",
    )
    c.add_argument(
        "--expert-prevalence",
        "--pi-hat",
        dest="expert_prevalence",
        type=float,
        required=True,
        metavar="PI_HAT",
        help="share of test items the expert labels positive (pi_hat)",
    )
    c.add_argument(
        "--eps",
        type=float,
        metavar="EPS",
        help="independent error model: the expert's error rate, below 0.5",
    )
    c.add_argument(
        "--alpha",
        type=float,
        metavar="ALPHA",
        help="conditional model: P(expert says negative | truly positive)",
    )
    c.add_argument(
        "--beta",
        type=float,
        metavar="BETA",
        help="conditional model: P(expert says positive | truly negative)",
    )
    c.add_argument(
        "--n-items",
        "--n",
        dest="n_items",
        type=int,
        metavar="N",
        help="number of test items; adds delta-method confidence intervals",
    )
    c.add_argument("--level", type=float, default=0.95, help="confidence level (0.95)")
    c.add_argument("--json", action="store_true", help="print the result as JSON")

    e = sub.add_parser(
        "estimate",
        help="EM estimates of alpha, beta and the prevalence from duplicate judgements",
        description="CSV: header row naming the assessors, one row per item, values 0/1, "
        "empty cell = not judged; an optional 'item' column holds item ids.",
    )
    e.add_argument(
        "--judgements", required=True, metavar="FILE", help="CSV of judgements (items x assessors)"
    )
    e.add_argument(
        "--equal-rates",
        action="store_true",
        help="impose alpha = beta = eps (needed if no item has 3+ judgements)",
    )
    e.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=_cmd_label_noise)
    return p


def _pct(x: float | None) -> str:
    return "-" if x is None or x != x else f"{100.0 * x:.2f}%"


def _cmd_label_noise(args: argparse.Namespace) -> int:
    """Run ``label-noise correct`` or ``label-noise estimate``; return the exit status."""
    from ..studies.label_noise import correct_metrics, estimate_error_rates, read_judgements

    if args.label_noise_command == "correct":
        check_count("test_items", args.n_items, "--n-items")
        if args.eps is not None and (args.alpha is not None or args.beta is not None):
            raise InputError("give --eps (independent model) or --alpha and --beta, not both")
        res = correct_metrics(
            args.precision,
            args.recall,
            args.expert_prevalence,
            eps=args.eps,
            alpha=args.alpha,
            beta=args.beta,
            n_items=args.n_items,
            level=args.level,
        )
        if args.json:
            print_json(res.to_dict())
            return 0
        rates = (
            f"eps = {res.eps:g}"
            if res.model == "independent"
            else f"alpha = {res.alpha:g}, beta = {res.beta:g}"
        )
        lines = [
            f"error model: {res.model} ({rates})",
            f"system positive rate pi1 = {_pct(res.system_positive_rate)}, "
            f"true prevalence pi = {_pct(res.prevalence)}",
            f"precision: observed P1 = {_pct(res.observed_precision)} -> "
            f"corrected P0 = {_pct(res.precision)}"
            f"  (reachable P1: {_pct(res.precision_reachable[0])} - "
            f"{_pct(res.precision_reachable[1])})",
            f"recall:    observed R1 = {_pct(res.observed_recall)} -> "
            f"corrected R0 = {_pct(res.recall)}"
            f"  (reachable R1: {_pct(res.recall_reachable[0])} - "
            f"{_pct(res.recall_reachable[1])})",
            f"sample-size inflation: l_P = {res.inflation.l_precision:.4f}, "
            f"l_R = {res.inflation.l_recall:.4f}",
        ]
        if res.precision_ci is not None and res.recall_ci is not None:
            lvl = f"{100 * res.level:g}%"
            lines.append(
                f"{lvl} delta-method intervals (N = {res.n_items}): "
                f"P0 {_pct(res.precision_ci[0])} - {_pct(res.precision_ci[1])}, "
                f"R0 {_pct(res.recall_ci[0])} - {_pct(res.recall_ci[1])}"
            )
        lines += [f"warning: {w}" for w in res.warnings]
        print("\n".join(lines))
        return 0
    table = read_judgements(args.judgements)
    est = estimate_error_rates(table, equal_rates=args.equal_rates)
    if args.json:
        out = est.to_dict()
        out["judgements"] = table.to_dict()
        print_json(out)
        return 0
    lines = [
        f"{est.n_items} items, {est.n_judgements} judgements by {len(table.assessors)} assessors",
        (
            f"eps = {_pct(est.eps)} (SE {_pct(est.alpha_se)}; alpha = beta imposed)"
            if est.equal_rates
            else f"alpha = {_pct(est.alpha)} (SE {_pct(est.alpha_se)}) misses, "
            f"beta = {_pct(est.beta)} (SE {_pct(est.beta_se)}) false positives"
        ),
        f"true prevalence pi = {_pct(est.prevalence)} (SE {_pct(est.prevalence_se)})",
        f"log-likelihood = {est.log_likelihood:.6f}; EM iterations = {est.n_iter}, "
        f"converged = {'yes' if est.converged else 'no'}",
    ]
    lines += [f"warning: {w}" for w in est.warnings]
    print("\n".join(lines))
    return 0
