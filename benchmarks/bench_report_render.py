"""Rendering a case report: figures + HTML + PDF, and where weasyprint spends its time.

Usage: ``python benchmarks/bench_report_render.py [--calibrator kde] [--n-ss 10000]
[--n-ds 100000] [--repeat 5]``

Runs one synthetic case (``[uncertainty] method = "none"``), then, interleaved ``--repeat``
times (median and minimum): building the figures, rendering the HTML, and the PDF as
``build_report`` makes it (figures handed to weasyprint as SVG images), next to the PDF of
the HTML file itself (figures inline as ``<svg>``), of the same HTML with the serif body font
the report used before (5 embedded fonts instead of 3), and of the HTML without figures.
Then one profiled PDF run splits weasyprint's time into font subsetting, layout and drawing
(the SVG figures apart). Times are wall clock on a machine that may be shared: read the
ratios within one run.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import re
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from bench_render_plots import CASE

SERIF = 'html { font-family: "DejaVu Serif", Georgia, serif;'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibrator", default="kde")
    parser.add_argument("--n-ss", type=int, default=10_000)
    parser.add_argument("--n-ds", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    from forensic_lr.casework import load_case, run_case_full
    from forensic_lr.report import case_context
    from forensic_lr.report.figures import case_figures
    from forensic_lr.report.pdf import figures_as_images, html_to_pdf
    from forensic_lr.report.render import render, template_roots

    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rng = np.random.default_rng(0)
        np.save(folder / "ss.npy", rng.normal(2.0, 1.0, args.n_ss))
        np.save(folder / "ds.npy", rng.normal(-1.0, 1.2, args.n_ds))
        (folder / "case.toml").write_text(CASE.format(calibrator=args.calibrator))
        run = run_case_full(load_case(folder / "case.toml"))
    roots = template_roots(None)
    html_to_pdf("<p>warm-up</p>", roots=roots)  # fonts and weasyprint's first-use cost

    figures = case_figures(run)
    html = render("case_report.html", case_context(run, figures))
    for_pdf = figures_as_images(html, figures)
    serif = re.sub(r'html \{ font-family: "DejaVu Sans", Helvetica, Arial, sans-serif;', SERIF,
                   for_pdf)
    no_figures = re.sub(r'<img class="figure"[^>]*>', "", for_pdf)
    jobs = {
        "figures (matplotlib, SVG text)": lambda: case_figures(run),
        "HTML (jinja)": lambda: render("case_report.html", case_context(run, figures)),
        "PDF as shipped (SVG images)": lambda: html_to_pdf(for_pdf, roots=roots),
        "PDF, figures inline <svg>": lambda: html_to_pdf(html, roots=roots),
        "PDF, SVG images + serif body": lambda: html_to_pdf(serif, roots=roots),
        "PDF without figures": lambda: html_to_pdf(no_figures, roots=roots),
    }
    times: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(args.repeat):
        for name, job in jobs.items():
            start = time.perf_counter()
            job()
            times[name].append(time.perf_counter() - start)
    print(f"synthetic case, {args.n_ss:,} SS / {args.n_ds:,} DS, {args.calibrator}; "
          f"{args.repeat} interleaved runs: median (minimum) s")
    for name, values in times.items():
        print(f"  {name:<34}{statistics.median(values):8.3f} ({min(values):.3f})")
    total = [sum(times[k][i] for k in list(jobs)[:3]) for i in range(args.repeat)]
    print(f"  {'figures + HTML + PDF':<34}{statistics.median(total):8.3f} ({min(total):.3f})")

    profile = cProfile.Profile()
    profile.runcall(html_to_pdf, for_pdf, roots=roots)
    stats = pstats.Stats(profile).stats
    parts = {"whole PDF": "__init__.py:224(write_pdf)",
             "font subsetting": "fonts.py:308(build_fonts_dictionary)",
             "layout": "layout/__init__.py:104(layout_document)",
             "drawing (all)": "draw/__init__.py:19(draw_page)",
             "drawing the SVG figures": "svg/__init__.py:446(draw)"}
    print("one profiled PDF run (cProfile slows it down), cumulative s:")
    for label, suffix in parts.items():
        cumulative = sum(v[3] for (file, line, fn), v in stats.items()
                         if "weasyprint" in file and f"{file}:{line}({fn})".endswith(suffix))
        print(f"  {label:<34}{cumulative:8.3f}")


if __name__ == "__main__":
    main()
