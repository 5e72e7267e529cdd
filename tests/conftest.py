"""Fixtures shared by the test suite (the tests mirror the package's layout)."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest
from scipy.stats import norm
from threadpoolctl import threadpool_limits

#: One BLAS thread in the test process, for the whole session. OpenBLAS's threads wait busily
#: between products: on a 2-core machine shared with other work, two of them made an S-cal
#: fit (small L-BFGS-B problems) 10 times slower. No value depends on the BLAS threads (the
#: library sums on one thread where it matters; test_one_code_path sets 1 and 2 itself).
_ONE_BLAS_THREAD = threadpool_limits(limits=1, user_api="blas")


#: Test files holding the longest single tests (a case run in a fresh interpreter, a browser,
#: several reports rendered), longest first. They run before all others: pytest-xdist gives
#: each worker a run of consecutive tests and, when one is idle, moves tests from the end of
#: another's queue, so a long test left at the end keeps one core busy while the other waits.
#: Whole files move (their module fixtures are set up once); the other tests keep their order.
_LONG_FIRST = (
    "tests/report/test_pdf_reproducible.py",
    "tests/web/test_browser.py",
    "tests/web/test_web_signing.py",
    "tests/casework/test_signing_lta.py",
    "tests/test_docs_snippets.py",
    "tests/web/test_review_signoff.py",
    "tests/web/test_web_signing.py",
    "tests/cli/test_examples_readme.py",
    "tests/report/test_write_from_python.py",
    "tests/casework/test_signing.py",
    "tests/report/test_presentation.py",
    "tests/course/test_parts23.py",
    "tests/calibration/test_scal_student_t_bootstrap.py",
    "tests/report/test_four_comparisons.py",
    "tests/report/test_render_speed.py",
    "tests/web/test_api.py",
    "tests/test_output_commit.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the files of :data:`_LONG_FIRST` first, in that order (a stable sort)."""
    rank = {path: i for i, path in enumerate(_LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


def gaussian_background(seed: int = 0, n_ss: int = 60, n_ds: int = 200, *, shift: float = 3.0):
    """Raw same-source ~ N(shift, 1) and different-source ~ N(0, 1.5^2) scores."""
    rng = np.random.default_rng(seed)
    return rng.normal(shift, 1.0, n_ss), rng.normal(0.0, 1.5, n_ds)


_SMALL_CASE_BODY = """\
[propositions]
hp = "The questioned and reference items come from the same source."
hd = "The questioned and reference items come from different sources."
[evidence]
score = 1.5
[background]
ss = "ss.csv"
ds = "ds.csv"
[method]
calibrator = "logistic"
[uncertainty]
method = "bootstrap"
n = 100
seed = 11
[validation]
folds = 3
[report]
formats = {formats}
"""


def write_small_case(folder, case_table: str, formats: tuple[str, ...] = ("pdf", "json")):
    """A small logistic case written to ``folder``: ``ss.csv`` (40 same-source scores
    ~ N(2, 1)), ``ds.csv`` (120 different-source ~ N(-1, 1.2^2), both from seed 3) and
    ``case.toml``, whose ``[case]`` table holds the lines ``case_table``; returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(3)
    np.savetxt(folder / "ss.csv", rng.normal(2.0, 1.0, 40), fmt="%.4f")
    np.savetxt(folder / "ds.csv", rng.normal(-1.0, 1.2, 120), fmt="%.4f")
    listed = "[" + ", ".join(f'"{f}"' for f in formats) + "]"
    text = "[case]\n" + case_table.strip() + "\n" + _SMALL_CASE_BODY.format(formats=listed)
    (folder / "case.toml").write_text(text, encoding="utf-8")
    return folder / "case.toml"


@pytest.fixture(scope="session")
def small_case():
    """The small case writer (:func:`write_small_case`): ``small_case(folder, case_table,
    formats)`` writes the scores and ``case.toml`` and returns the case file's path."""
    return write_small_case


class WorkedExamples:
    """The worked examples as shipped, each copied into ``root`` and run (``run_case_full``,
    our warnings silenced) at most once, and its report rendered at most once: for tests
    that only read the run, its HTML or its files (and never change them)."""

    def __init__(self, root) -> None:
        self.root = root
        self._runs: dict = {}
        self._reports: dict = {}
        self._html: dict = {}

    def run(self, name: str):
        """The case run of the worked example ``name``."""
        if name not in self._runs:
            import shutil
            import warnings

            from forensic_lr._resources import examples_dir
            from forensic_lr.casework.pipeline import run_case_full
            from forensic_lr.casework.spec import load_case
            from forensic_lr.errors import ForensicLRWarning

            folder = self.root / name
            shutil.copytree(examples_dir() / name, folder)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ForensicLRWarning)
                self._runs[name] = run_case_full(load_case(folder / "case.toml"))
        return self._runs[name]

    def report(self, name: str) -> dict[str, bytes]:
        """``build_report`` of the run in every format (report.pdf, report.html, ...)."""
        if name not in self._reports:
            from forensic_lr.report import build_report

            self._reports[name] = build_report(self.run(name))
        return self._reports[name]

    def html(self, name: str) -> str:
        """The report's HTML (the same bytes whether rendered alone or with the PDF)."""
        if name not in self._html:
            if name in self._reports:
                raw = self._reports[name]["report.html"]
            else:
                from forensic_lr.report import build_report

                raw = build_report(self.run(name), formats=("html",))["report.html"]
            self._html[name] = raw.decode("utf-8")
        return self._html[name]


@pytest.fixture(scope="session")
def worked(tmp_path_factory) -> WorkedExamples:
    """The shipped worked examples run and rendered once per test process
    (:class:`WorkedExamples`): ``worked.run(name)``, ``worked.html(name)``,
    ``worked.report(name)``. Read only."""
    return WorkedExamples(tmp_path_factory.mktemp("worked"))


def append_revision(pdf, target) -> None:
    """Write ``pdf`` with an incremental update appended (a new title), as any PDF editor
    saves a change, to ``target``."""
    from pyhanko.pdf_utils import generic
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

    with open(pdf, "rb") as handle:
        writer = IncrementalPdfFileWriter(handle)
        info = writer.trailer["/Info"]
        info["/Title"] = generic.TextStringObject("Something else")
        writer.update_container(info)
        with open(target, "wb") as out:
            writer.write(out)


def run_cli(args, capsys) -> tuple[int, str, float]:
    """``main(args)`` with our warnings silenced: exit code, stdout + stderr, seconds taken."""
    import time
    import warnings

    from forensic_lr.cli import main
    from forensic_lr.errors import ForensicLRWarning

    start = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        code = main(args)
    captured = capsys.readouterr()
    return code, captured.out + captured.err, time.monotonic() - start


@pytest.fixture(scope="session")
def make_background():
    """The background generator (:func:`gaussian_background`): ``make_background(seed, n_ss,
    n_ds, shift=3.0)`` gives ``(ss, ds)`` raw scores."""
    return gaussian_background


#: The fork server of :func:`fresh_python`: it imports the third-party libraries, then for each
#: request (one JSON line: argv, cwd, stdout and stderr files, timeout) forks a child that runs
#: argv as ``python ARGV`` would (``-c CODE``, ``-m MODULE`` or a script, with its arguments;
#: a new ``__main__``; sys.path[0] as the interpreter sets it; on an uncaught exception a
#: traceback on stderr and exit status 1; killed after the timeout), and answers the exit status.
_FORK_SERVER = r"""
import builtins, json, os, runpy, signal, sys, traceback, types
for name in ("numpy", "scipy.stats", "scipy.optimize", "scipy.special", "matplotlib.pyplot",
             "sklearn.base", "sklearn.model_selection"):
    try:
        __import__(name)
    except ImportError:
        pass

def child(job):
    os.chdir(job["cwd"])
    for fd, path, flags in ((0, os.devnull, os.O_RDONLY),
                            (1, job["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                            (2, job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
        os.dup2(os.open(path, flags), fd)
    signal.alarm(job["timeout"])
    main = types.ModuleType("__main__")
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    first, *rest = job["argv"]
    code = 0
    try:
        if first == "-c":
            sys.argv, sys.path[0] = ["-c", *rest[1:]], ""
            exec(compile(rest[0], "<string>", "exec"), main.__dict__)
        elif first == "-m":
            sys.argv, sys.path[0] = [rest[0], *rest[1:]], os.getcwd()
            runpy.run_module(rest[0], run_name="__main__", alter_sys=True)
        else:
            sys.argv, sys.path[0] = [first, *rest], os.path.dirname(os.path.abspath(first))
            runpy.run_path(first, run_name="__main__")
    except SystemExit as stop:  # as the interpreter ends on sys.exit(code)
        code = 0 if stop.code is None else stop.code
        if not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)

for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        child(job)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""


@pytest.fixture(scope="session")
def fresh_python(tmp_path_factory):
    """``fresh_python(*argv, cwd=folder, timeout=300)``: ``python ARGV`` run in a fresh
    process from ``cwd`` (``-c CODE``, ``-m MODULE`` or a script, with arguments), as a
    :class:`subprocess.CompletedProcess` with text stdout and stderr. The environment is this
    process's with ``MPLBACKEND=Agg`` and the repository first on ``PYTHONPATH``.

    Where the system can fork, the process is forked from one interpreter started for the
    session (:data:`_FORK_SERVER`), which has only imported numpy, scipy, matplotlib and
    scikit-learn (about 1.5 s of processor time an interpreter) and nothing of forensic_lr;
    elsewhere it is a new interpreter. Not for tests of what an interpreter imports at start.
    """
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([str(root), *filter(None, [os.environ.get(
               "PYTHONPATH")])])}
    if not hasattr(os, "fork"):
        def fresh(*argv: str, cwd, timeout: int = 300) -> subprocess.CompletedProcess:
            return subprocess.run([sys.executable, *argv], cwd=cwd, env=env,
                                  capture_output=True, text=True, timeout=timeout)
        yield fresh
        return
    files = tmp_path_factory.mktemp("fresh-python")
    server = subprocess.Popen([sys.executable, "-c", _FORK_SERVER], env=env, cwd=files,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def forked(*argv: str, cwd, timeout: int = 300) -> subprocess.CompletedProcess:
        out, err = files / "stdout.txt", files / "stderr.txt"
        server.stdin.write(json.dumps({"argv": list(argv), "cwd": str(cwd), "stdout": str(out),
                                       "stderr": str(err), "timeout": timeout}) + "\n")
        server.stdin.flush()
        code = int(server.stdout.readline())
        return subprocess.CompletedProcess([sys.executable, *argv], code,
                                           out.read_text(encoding="utf-8"),
                                           err.read_text(encoding="utf-8"))

    yield forked
    server.stdin.close()
    server.wait(timeout=60)


def _no_children_left() -> bool:
    return multiprocessing.active_children() == []


@pytest.fixture(scope="session")
def no_children_left():
    """``no_children_left()`` is True when no worker process this process started is left
    (``multiprocessing.active_children``: a process pool's workers; the resource tracker
    that the spawn start method starts once per program is no worker)."""
    return _no_children_left


def _loop_rate_intervals(ss, ds, ss_src, ds_src, k, n, seed, level, interval):
    """The rates' intervals by a plain loop over the replicates (reference)."""
    mis_ss, mis_ds = ss < 0, ds > 0
    bits = np.random.default_rng(seed).bit_generator
    reps = {"rmep": [], "rmed": []}
    for r in range(n):
        m = np.bincount(np.random.Generator(bits.jumped(r)).integers(0, k, k), minlength=k)
        w_ss = m[ss_src].astype(float)
        w_ds = np.where(ds_src[:, 0] == ds_src[:, 1], m[ds_src[:, 0]],
                        m[ds_src[:, 0]] * m[ds_src[:, 1]]).astype(float)
        if w_ss.sum() == 0 or w_ds.sum() == 0:
            continue  # a class without trials: the replicate is left out
        reps["rmep"].append(w_ss @ mis_ss / w_ss.sum())
        reps["rmed"].append(w_ds @ mis_ds / w_ds.sum())
    out = {}
    alpha = 1 - level
    for name, estimate in (("rmep", mis_ss.mean()), ("rmed", mis_ds.mean())):
        values = np.sort(reps[name])
        q = np.array([alpha / 2, 1 - alpha / 2])
        if interval == "bc":
            share = (np.sum(values < estimate) + 0.5 * np.sum(values == estimate)) / values.size
            share = min(max(share, 0.5 / values.size), 1 - 0.5 / values.size)
            z0 = norm.ppf(share)
            q = norm.cdf(2 * z0 + norm.ppf(q))
        out[name] = tuple(np.quantile(values, q))
    return out


@pytest.fixture(scope="session")
def loop_rate_intervals():
    """RMEP and RMED intervals by source from a plain loop over the bootstrap replicates:
    ``loop_rate_intervals(ss_llr, ds_llr, ss_src, ds_src, k, n, seed, level, interval)``
    with integer source codes ``0..k-1`` (ss: shape (n,), ds: shape (n, 2)) in the order of
    the ids' sort; the reference of :func:`forensic_lr.validation.rates.misleading_rates`."""
    return _loop_rate_intervals
