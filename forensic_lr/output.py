"""Write a run's output files safely: never over existing results without ``force``.

All content is produced in memory first (a ``dict`` of relative path -> bytes); this
module only puts it on disk. Each file is written to a temporary file in its own
folder and moved into place with :func:`os.replace` (atomic on one file system), so
a reader never sees half a file, and a failure while writing the temporary files
leaves the destinations untouched.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path, PurePosixPath

from .errors import InputError

__all__ = ["write_outputs"]


def _check_relative(name: str) -> PurePosixPath:
    rel = PurePosixPath(name)
    if not name or rel.is_absolute() or ".." in rel.parts or "\\" in name:
        raise InputError(f"output file name {name!r} must be a relative path inside the folder")
    return rel


def write_outputs(out_dir: str | Path, files: dict[str, bytes], *, force: bool) -> list[Path]:
    """Write ``files`` under ``out_dir``.

    Parameters
    ----------
    out_dir : str or Path
        Destination folder; created if missing. An existing non-empty folder is
        refused unless ``force``.
    files : dict of str to bytes
        Relative POSIX path (e.g. ``"figures/tippett.svg"``) -> content.
    force : bool
        Replace files in a non-empty folder (files not in ``files`` are left alone).

    Returns
    -------
    list of Path
        The files written, in the order given.

    Raises
    ------
    InputError
        ``out_dir`` is a file, or is a non-empty folder and ``force`` is false, or a
        name is not a plain relative path.
    """
    out = Path(out_dir)
    targets = [(out / _check_relative(name), content) for name, content in files.items()]
    if out.exists() and not out.is_dir():
        raise InputError(f"{out} exists and is not a folder; give another --out folder")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise InputError(
            f"output folder {out} is not empty; choose an empty or new folder, "
            "or use --force to overwrite its files"
        )
    staged: list[tuple[str, Path]] = []
    try:
        for path, content in targets:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = str(path.parent / f".{path.name}.{secrets.token_hex(8)}.tmp")
            # O_EXCL: never reuse a file; mode 0o666 lets the umask decide (unlike mkstemp's 0o600)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            staged.append((tmp, path))
            with os.fdopen(fd, "wb") as handle:
                handle.write(content)
        for tmp, path in staged:
            os.replace(tmp, path)
    finally:
        for tmp, _ in staged:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return [path for path, _ in targets]
