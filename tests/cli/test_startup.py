"""The command line starts without the numerical stack: listing commands, printing the
version or a documentation page loads neither numpy, scipy, pydantic nor matplotlib."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("numpy", "scipy", "pydantic", "matplotlib", "weasyprint", "starlette")


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["docs"], ["docs", "limits"]])
def test_light_commands_import_no_numerical_library(argv):
    code = ("import sys, runpy\n"
            f"sys.argv = ['forensic-lr', *{argv!r}]\n"
            "try:\n"
            "    runpy.run_module('forensic_lr', run_name='__main__')\n"
            "except SystemExit:\n"
            "    pass\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout[-500:] + done.stderr
