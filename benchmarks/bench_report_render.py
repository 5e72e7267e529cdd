"""Rendering a case report: figures + HTML + PDF, before and after, and where the time goes.

Usage: ``python benchmarks/bench_report_render.py [--calibrator kde] [--n-ss 10000]
[--n-ds 100000] [--case synthetic] [--case case_examples/voice/case.toml] [--repeat 5]
[--before-ref REF] [--rounds 3] [--no-parts]``

First the whole rendering, ``build_report(run, ("pdf", "html"))``, of this checkout
("after") against the version at ``--before-ref`` (default: where this branch left
``main``; its source is taken from git into a temporary folder), for each ``--case``
(default: the synthetic one): ``--rounds`` rounds, each starting one process per version
in turn (before, after, before, ...). A process runs the case once (``synthetic``: one of
the given size with ``[uncertainty] method = "none"``; else the case file), renders it
once to warm up (fonts, weasyprint's first use) and then ``--repeat`` times; the table
gives the median and minimum over all rounds of the wall clock, and of the processor time
of the process and the children it forked (figures may be drawn in forked processes:
their processor time adds up, their wall clock does not), and the ratio after / before
of the medians.

Then (unless ``--no-parts``), for this checkout and the first case only, ``--repeat``
interleaved runs (median and minimum) of each
part: building the figures (on the idle cores as shipped, on one core, on two), rendering
the HTML, the PDF as ``build_report`` makes it (figures handed to weasyprint as SVG
images), next to the PDF of the HTML file itself (figures inline as ``<svg>``) and of the
HTML without figures; and one profiled PDF run split into font subsetting, layout and
drawing. Times are wall clock on a machine that may be shared (the load average is
printed): read the ratios within one run.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from bench_render_plots import CASE

HERE = Path(__file__).resolve().parent


def _case_run(args, folder: Path):
    """The case run to render: ``--case``, or the synthetic case written to ``folder``."""
    from forensic_lr.casework import load_case, run_case_full

    case = args.case[0] if args.case else "synthetic"
    if case != "synthetic":
        return run_case_full(load_case(case)), case
    rng = np.random.default_rng(0)
    np.save(folder / "ss.npy", rng.normal(2.0, 1.0, args.n_ss))
    np.save(folder / "ds.npy", rng.normal(-1.0, 1.2, args.n_ds))
    (folder / "case.toml").write_text(CASE.format(calibrator=args.calibrator))
    label = f"synthetic, {args.n_ss:,} SS / {args.n_ds:,} DS, {args.calibrator}"
    return run_case_full(load_case(folder / "case.toml")), label


def _cpu() -> float:
    """Processor seconds of this process and of its children that have ended."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def worker(args) -> None:
    """In a child process (``--worker``): time ``build_report`` and print JSON."""
    from forensic_lr.report import build_report

    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        run, _ = _case_run(args, Path(tmp))
        build_report(run, ("pdf", "html"))  # warm-up
        wall, cpu = [], []
        for _ in range(args.repeat):
            w, c = time.perf_counter(), _cpu()
            build_report(run, ("pdf", "html"))
            wall.append(time.perf_counter() - w)
            cpu.append(_cpu() - c)
    print(json.dumps({"wall": wall, "cpu": cpu}))


def _source_at(ref: str, folder: Path) -> Path:
    """The package, templates and benchmarks of revision ``ref``, extracted into ``folder``."""
    archive = subprocess.run(["git", "archive", ref, "forensic_lr", "templates", "benchmarks"],
                             check=True, capture_output=True, cwd=HERE.parent).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def before_after(args, case: str) -> None:
    """Whole ``build_report`` of ``case``, by the version at ``--before-ref`` and by this
    checkout."""
    ref = args.before_ref or subprocess.run(
        ["git", "merge-base", "HEAD", "main"], check=True, capture_output=True, text=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        roots = {"before": _source_at(ref, Path(tmp)), "after": HERE.parent}
        options = ["--calibrator", args.calibrator, "--n-ss", str(args.n_ss),
                   "--n-ds", str(args.n_ds), "--repeat", str(args.repeat)]
        if case != "synthetic":
            options += ["--case", str(Path(case).resolve())]
        times = {name: {"wall": [], "cpu": []} for name in roots}
        for _ in range(args.rounds):
            for name, root in roots.items():
                out = subprocess.run(
                    [sys.executable, str(HERE / "bench_report_render.py"), "--worker", *options],
                    check=True, capture_output=True, text=True, cwd=root,
                    env={**os.environ, "PYTHONPATH": str(root)},
                ).stdout
                got = json.loads(out.strip().splitlines()[-1])
                for key in ("wall", "cpu"):
                    times[name][key] += got[key]
    label = (f"synthetic, {args.n_ss:,} SS / {args.n_ds:,} DS, {args.calibrator}"
             if case == "synthetic" else case)
    print(f"\n{label}: build_report (figures + HTML + PDF); before = {ref[:10]}; "
          f"{args.rounds} rounds x "
          f"{args.repeat} renders per version, load average {os.getloadavg()[0]:.2f}: "
          "median (minimum) s")
    print(f"{'':<34}{'before':>16}{'after':>16}{'ratio':>8}")
    for key, text in (("wall", "wall clock"), ("cpu", "processor (with children)")):
        b, a = (statistics.median(times[n][key]) for n in roots)
        mb, ma = (min(times[n][key]) for n in roots)
        print(f"  {text:<32}{b:>8.3f} ({mb:.3f}){a:>8.3f} ({ma:.3f}){a / b:>8.2f}")


def parts(args) -> None:
    """This checkout: each part of the rendering, interleaved, and one profiled PDF."""
    from forensic_lr.report import case_context
    from forensic_lr.report.figures import case_figures
    from forensic_lr.report.pdf import figures_as_images, html_to_pdf
    from forensic_lr.report.render import render, template_roots

    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        run, label = _case_run(args, Path(tmp))
    roots = template_roots(None)
    html_to_pdf("<p>warm-up</p>", roots=roots)  # fonts and weasyprint's first-use cost

    figures = case_figures(run)
    html = render("case_report.html", case_context(run, figures))
    for_pdf = figures_as_images(html, figures)
    no_figures = re.sub(r'<img class="figure"[^>]*>', "", for_pdf)
    jobs = {
        "figures (idle cores, as shipped)": lambda: case_figures(run),
        "figures (one core)": lambda: case_figures(run, workers=1),
        "figures (two cores)": lambda: case_figures(run, workers=2),
        "HTML (jinja)": lambda: render("case_report.html", case_context(run, figures)),
        "PDF as shipped (SVG images)": lambda: html_to_pdf(for_pdf, roots=roots),
        "PDF, figures inline <svg>": lambda: html_to_pdf(html, roots=roots),
        "PDF without figures": lambda: html_to_pdf(no_figures, roots=roots),
    }
    times: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(args.repeat):
        for name, job in jobs.items():
            start = time.perf_counter()
            job()
            times[name].append(time.perf_counter() - start)
    print(f"\n{label}; this checkout, {args.repeat} interleaved runs, load average "
          f"{os.getloadavg()[0]:.2f}: median (minimum) s")
    for name, values in times.items():
        print(f"  {name:<36}{statistics.median(values):8.3f} ({min(values):.3f})")
    shipped = ("figures (idle cores, as shipped)", "HTML (jinja)", "PDF as shipped (SVG images)")
    total = [sum(times[k][i] for k in shipped) for i in range(args.repeat)]
    print(f"  {'figures + HTML + PDF':<36}{statistics.median(total):8.3f} ({min(total):.3f})")

    profile = cProfile.Profile()
    profile.runcall(html_to_pdf, for_pdf, roots=roots)
    stats = pstats.Stats(profile).stats
    split = {"whole PDF": "__init__.py:224(write_pdf)",
             "font subsetting": "fonts.py:308(build_fonts_dictionary)",
             "layout": "layout/__init__.py:104(layout_document)",
             "drawing (all)": "draw/__init__.py:19(draw_page)",
             "drawing the SVG figures": "svg/__init__.py:446(draw)"}
    print("one profiled PDF run (cProfile slows it down), cumulative s:")
    for text, suffix in split.items():
        cumulative = sum(v[3] for (file, line, fn), v in stats.items()
                         if "weasyprint" in file and f"{file}:{line}({fn})".endswith(suffix))
        print(f"  {text:<34}{cumulative:8.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibrator", default="kde")
    parser.add_argument("--n-ss", type=int, default=10_000)
    parser.add_argument("--n-ds", type=int, default=100_000)
    parser.add_argument("--case", action="append",
                        help="'synthetic' or a case file; repeat for several (default: "
                        "synthetic)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3,
                        help="processes per version in the before/after table (default 3)")
    parser.add_argument("--before-ref", help="git revision to compare with "
                        "(default: git merge-base HEAD main)")
    parser.add_argument("--no-parts", action="store_true",
                        help="only the before/after table")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    for case in args.case or ["synthetic"]:
        before_after(args, case)
    if not args.no_parts:
        parts(args)


if __name__ == "__main__":
    main()
