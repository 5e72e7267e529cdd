"""No pool process outlives an interrupted run: killing the parent outright (``kill -9``,
which runs no clean-up) or stopping it with Ctrl-C (SIGINT to its process group, as a
terminal sends it) leaves no worker computing on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper counts as ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():  # Linux: a zombie is ended
        try:
            return stat.read_text().rpartition(")")[2].split()[0] != "Z"
        except (OSError, IndexError):
            return False
    return True


def _start(tmp_path, workers: int) -> tuple[subprocess.Popen, list[int]]:
    """A program whose pool processes each write their id and compute forever, while the
    program's own job sleeps; returns it and the ids of its busy pool processes."""
    folder = tmp_path / "pids"
    folder.mkdir()
    script = textwrap.dedent(f"""
        import os, time
        from functools import partial
        from pathlib import Path
        from forensic_lr.parallel import run_jobs

        def busy(i):
            Path({str(folder)!r}, str(os.getpid())).write_text("")
            while True:  # busy, as a bootstrap chunk would be
                sum(range(10000))

        if __name__ == "__main__":
            jobs = {{"here": partial(time.sleep, 120)}}
            jobs.update({{f"busy{{i}}": partial(busy, i) for i in range({workers - 1})}})
            run_jobs(jobs, {workers})
    """)
    (tmp_path / "prog.py").write_text(script)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen([sys.executable, str(tmp_path / "prog.py")], env=env,
                              start_new_session=True)
    deadline = time.monotonic() + 60
    while len(list(folder.iterdir())) < workers - 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    return parent, [int(p.name) for p in folder.iterdir()]


@pytest.mark.parametrize(("how", "workers"), [("kill", 2), ("kill", 3), ("interrupt", 2)])
def test_no_worker_outlives_an_interrupted_parent(tmp_path, how, workers):
    parent, children = _start(tmp_path, workers)
    try:
        assert len(children) == workers - 1 and all(_alive(c) for c in children)
        if how == "kill":
            parent.send_signal(signal.SIGKILL)
        else:  # Ctrl-C: the whole process group gets SIGINT; the pool's processes ignore it
            os.killpg(parent.pid, signal.SIGINT)
        start = time.monotonic()
        while any(_alive(c) for c in children) and time.monotonic() - start < 30:  # busy machine
            time.sleep(0.05)
        assert not any(_alive(c) for c in children), "a worker outlived its parent"
        if how == "interrupt":  # the program itself stops too, without waiting for its jobs
            assert parent.wait(timeout=30) != 0
    finally:
        if parent.poll() is None:
            parent.kill()
        parent.wait()
        for child in children:  # never leave a busy orphan behind
            if _alive(child):
                os.kill(child, signal.SIGKILL)
