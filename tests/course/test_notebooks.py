"""The course notebooks run top to bottom (nbclient), draw their figures inline and are
committed without outputs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "docs" / "course").glob("*.ipynb"))


def test_the_notebooks_are_found():
    assert {p.name for p in NOTEBOOKS} >= {"part2.ipynb", "part3.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_runs_top_to_bottom(path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError naming the cell on any error
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert any(o.get("output_type") in ("stream", "execute_result") for o in outputs)
    # a returned Figure is drawn inline (an image), never only its text "<Figure size ...>"
    figures = [o for o in outputs if o.get("output_type") == "execute_result"
               and str(o["data"].get("text/plain", "")).startswith("<Figure")]
    assert figures, "each course notebook draws figures"
    assert all("image/png" in o["data"] for o in figures), path.name
