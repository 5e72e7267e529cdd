"""A report is byte-identical for the same inputs and versions, the first run included.

Three runs of one case, each in a fresh Python process (so each hashes strings with another
seed, as different sessions do): the first with empty font caches (fontconfig's cache folder,
``XDG_CACHE_HOME`` and matplotlib's ``MPLCONFIGDIR`` all new, so both build their caches
during the run), the second reusing those caches, the third from a working folder holding a
``matplotlibrc`` that changes fonts, line widths and the SVG text mode. The independent
value is the first run's bytes: the reruns must equal them exactly.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("weasyprint")

#: A user's matplotlibrc that would change every figure if the report obeyed it.
HOSTILE_RC = """\
font.family: serif
lines.linewidth: 4
axes.linewidth: 3
svg.fonttype: path
svg.hashsalt: other
savefig.dpi: 300
axes.unicode_minus: False
"""


def _fontconfig_file(folder: Path) -> Path | None:
    """A copy of the system's fontconfig file without the system-wide cache folder: the
    caches left are under ``XDG_CACHE_HOME`` and ``HOME``, both new for the test."""
    system = Path("/etc/fonts/fonts.conf")
    if not system.is_file():
        return None
    text = system.read_text(encoding="utf-8")
    text = text.replace("<cachedir>/var/cache/fontconfig</cachedir>", "")
    text = text.replace('<include ignore_missing="yes">conf.d</include>',
                        '<include ignore_missing="yes">/etc/fonts/conf.d</include>')
    path = folder / "fonts.conf"
    path.write_text(text, encoding="utf-8")
    return path


def _run(case: Path, out: Path, cwd: Path, caches: Path, seed: int) -> bytes:
    env = {**os.environ, "XDG_CACHE_HOME": str(caches / "xdg"), "HOME": str(caches / "home"),
           "MPLCONFIGDIR": str(caches / "mpl"), "PYTHONHASHSEED": str(seed),
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    env.pop("MATPLOTLIBRC", None)
    fontconfig = _fontconfig_file(caches)
    if fontconfig is not None:
        env["FONTCONFIG_FILE"] = str(fontconfig)
    done = subprocess.run(
        [sys.executable, "-m", "forensic_lr", "-q", "run", str(case), "--out", str(out),
         "--draft"], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return (out / "report.pdf").read_bytes()


def test_three_runs_give_identical_pdf_bytes_the_first_with_empty_caches(tmp_path, small_case):
    case = small_case(tmp_path, 'id = "REPRO-1"\nexaminer = "A. Examiner"\ndate = 2026-03-02',
                      formats=("pdf",))
    caches = tmp_path / "caches"
    caches.mkdir()
    plain, hostile = tmp_path / "cwd", tmp_path / "cwd-rc"
    plain.mkdir()
    hostile.mkdir()
    (hostile / "matplotlibrc").write_text(HOSTILE_RC, encoding="utf-8")

    first = _run(case, tmp_path / "o1", plain, caches, seed=1)
    # the caches were empty and were built during the first run
    assert list((caches / "mpl").glob("fontlist-*.json"))
    if (caches / "fonts.conf").exists():
        assert list((caches / "xdg" / "fontconfig").glob("*.cache-*"))
    second = _run(case, tmp_path / "o2", plain, caches, seed=2)
    third = _run(case, tmp_path / "o3", hostile, caches, seed=3)
    digests = [hashlib.sha256(pdf).hexdigest() for pdf in (first, second, third)]
    assert first.startswith(b"%PDF")
    assert digests[1] == digests[0], "a rerun differs from the first run"
    assert digests[2] == digests[0], "a matplotlibrc in the working folder changed the PDF"
