"""A forked worker ends with its parent: killing the parent outright (``kill -9``, which
runs no clean-up) leaves no worker computing on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from forensic_lr.parallel import PARENT_POLL

ROOT = Path(__file__).resolve().parents[1]


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="call_forked forks on Linux")
def test_a_worker_ends_when_its_parent_is_killed(tmp_path):
    pid_file = tmp_path / "child.pid"
    script = textwrap.dedent(f"""
        import os, time
        from forensic_lr.parallel import call_forked

        def in_child():
            with open({str(pid_file)!r}, "w") as f:
                f.write(str(os.getpid()))
            while True:  # busy, as a bootstrap chunk would be
                sum(range(10000))

        def in_parent():
            time.sleep(120)

        call_forked({{"parent": in_parent, "child": in_child}}, 2)
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen([sys.executable, "-c", script], env=env)
    child = None
    try:
        deadline = time.monotonic() + 20
        while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(pid_file.read_text())
        assert _alive(child)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        start = time.monotonic()
        while _alive(child) and time.monotonic() - start < 10:
            time.sleep(0.05)
        assert not _alive(child), "the worker outlived its killed parent"
        assert time.monotonic() - start < 10 * PARENT_POLL + 2
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if child is not None and _alive(child):  # never leave a busy orphan behind
            os.kill(child, signal.SIGKILL)
