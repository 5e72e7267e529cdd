"""Rendering cost of a case report's figures: building them, and weasyprint drawing them.

Usage: ``python benchmarks/bench_render_plots.py [--calibrator kde] [--n-ss 10000]
[--n-ds 100000] [--case case_examples/voice/case.toml] [--before-ref REF]``

Runs one case (a synthetic one of the given size with ``[uncertainty] method = "none"``,
or ``--case``), then times the figures of this checkout ("after") and those of the
version at ``--before-ref`` (default: where this branch left ``main``; its ``plots.py``
and ``report/figures.py`` are loaded from git), interleaved ``--repeat`` times, median
and minimum:

* building the six case-report figures (matplotlib + SVG text);
* weasyprint rendering the whole case report (HTML -> PDF) with those figures, and the
  same report with empty figures (so the figures' share of the PDF time shows);

and prints the ratios after / before and the SVG element counts of each figure. Run
from the repository root; times are wall clock on a machine that may be shared, so read
the ratios (same run), not the seconds.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

CASE = """\
[case]
id = "BENCH-PLOTS"
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
method = "none"
[validation]
folds = 5
"""
EMPTY_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>'


def _alternating(jobs: dict, repeat: int) -> dict[str, tuple[float, float, object]]:
    """Run each job ``repeat`` times, interleaved (before, after, before, ...), so that a
    busy machine slows both alike; returns name -> (median s, minimum s, last value)."""
    times: dict[str, list[float]] = {name: [] for name in jobs}
    values: dict[str, object] = {}
    for _ in range(repeat):
        for name, job in jobs.items():
            start = time.perf_counter()
            values[name] = job()
            times[name].append(time.perf_counter() - start)
    return {n: (statistics.median(t), min(t), values[n]) for n, t in times.items()}


def _load_before(ref: str):
    """``case_figures`` of the version at ``ref`` (its plots module and figures module)."""
    modules = {}
    for name, path in (("forensic_lr._plots_before", "forensic_lr/plots.py"),
                       ("forensic_lr.report._figures_before", "forensic_lr/report/figures.py")):
        text = subprocess.run(["git", "show", f"{ref}:{path}"], check=True,
                              capture_output=True, text=True).stdout
        text = text.replace("from .. import plots", "from .. import _plots_before as plots")
        spec = importlib.util.spec_from_loader(name, loader=None)
        module = importlib.util.module_from_spec(spec)
        module.__package__ = name.rsplit(".", 1)[0]
        sys.modules[name] = module
        exec(compile(text, f"{ref}:{path}", "exec"), module.__dict__)
        modules[name] = module
    return modules["forensic_lr.report._figures_before"].case_figures


def _elements(svg: str) -> int:
    """Number of SVG elements (opening tags)."""
    return len(re.findall(r"<[a-zA-Z]", svg[svg.find("<svg"):]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibrator", default="kde")
    parser.add_argument("--n-ss", type=int, default=10_000)
    parser.add_argument("--n-ds", type=int, default=100_000)
    parser.add_argument("--case", help="a case file to use instead of the synthetic case")
    parser.add_argument("--before-ref", help="git revision to compare with "
                        "(default: git merge-base HEAD main)")
    parser.add_argument("--repeat", type=int, default=5, help="interleaved runs (default 5)")
    args = parser.parse_args()
    ref = args.before_ref or subprocess.run(
        ["git", "merge-base", "HEAD", "main"], check=True, capture_output=True, text=True
    ).stdout.strip()

    from forensic_lr.casework import load_case, run_case_full
    from forensic_lr.report import case_context
    from forensic_lr.report.figures import case_figures
    from forensic_lr.report.pdf import html_to_pdf
    from forensic_lr.report.render import render, template_roots

    before_figures = _load_before(ref)
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        if args.case:
            spec = load_case(args.case)
            label = args.case
        else:
            folder = Path(tmp)
            rng = np.random.default_rng(0)
            np.save(folder / "ss.npy", rng.normal(2.0, 1.0, args.n_ss))
            np.save(folder / "ds.npy", rng.normal(-1.0, 1.2, args.n_ds))
            (folder / "case.toml").write_text(CASE.format(calibrator=args.calibrator))
            spec = load_case(folder / "case.toml")
            label = f"synthetic, {args.n_ss:,} SS / {args.n_ds:,} DS, {args.calibrator}"
        run = run_case_full(spec)

    roots = template_roots(None)

    def pdf_of(figures):
        html = render("case_report.html", case_context(run, figures))
        return lambda: html_to_pdf(html, roots=roots)

    html_to_pdf("<p>warm-up</p>", roots=roots)  # fonts and weasyprint's first-use cost
    built = _alternating({"before": lambda: before_figures(run),
                          "after": lambda: case_figures(run)}, args.repeat)
    figures = {name: built[name][2] for name in built}
    empty = {key: EMPTY_SVG for key in figures["after"]}
    pdf = _alternating({"before": pdf_of(figures["before"]), "after": pdf_of(figures["after"]),
                        "empty": pdf_of(empty)}, args.repeat)

    print(f"case: {label}; before = {ref[:10]}; {args.repeat} interleaved runs in one "
          "process: median (minimum)")
    print(f"{'':<38}{'before':>16}{'after':>16}{'ratio':>14}")

    def row(text, b, a):
        print(f"{text:<38}{b[0]:>8.3f} ({b[1]:.3f}){a[0]:>8.3f} ({a[1]:.3f})"
              f"{a[0] / b[0]:>7.2f} ({a[1] / b[1]:.2f})")

    row("build the figures (s)", built["before"], built["after"])
    row("weasyprint: report with figures (s)", pdf["before"], pdf["after"])
    share = {n: (pdf[n][0] - pdf["empty"][0], pdf[n][1] - pdf["empty"][1])
             for n in ("before", "after")}
    row("weasyprint: the figures' share (s)", share["before"], share["after"])
    total = {n: (built[n][0] + pdf[n][0], built[n][1] + pdf[n][1]) for n in ("before", "after")}
    row("figures + PDF (s)", total["before"], total["after"])
    print(f"{'weasyprint: report, empty figures (s)':<38}{pdf['empty'][0]:>8.3f} "
          f"({pdf['empty'][1]:.3f})")
    b, a = (None, None, figures["before"]), (None, None, figures["after"])
    print(f"\n{'SVG elements / kB':<22}{'before':>16}{'after':>16}{'ratio':>8}")
    total_b = total_a = 0
    for key in a[2]:
        eb, ea = _elements(b[2][key]), _elements(a[2][key])
        kb, ka = len(b[2][key]) / 1000, len(a[2][key]) / 1000
        total_b, total_a = total_b + eb, total_a + ea
        print(f"{key:<22}{eb:>8}{kb:>8.1f}{ea:>8}{ka:>8.1f}{ea / eb:>8.2f}")
    print(f"{'all figures':<22}{total_b:>8}{'':>8}{total_a:>8}{'':>8}{total_a / total_b:>8.2f}")


if __name__ == "__main__":
    main()
