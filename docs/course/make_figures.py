"""Regenerate the course's data files (and figures) from the library: deterministic.

Run from the repository root: ``python docs/course/make_figures.py`` (or give an output
folder: ``python docs/course/make_figures.py /tmp/course``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from forensic_lr.casework.textbook import write_textbook_data


def main(out: Path) -> None:
    """Write every course file under *out* (``data/`` for the score files)."""
    write_textbook_data(out / "data")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent)
