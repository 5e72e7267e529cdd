"""Provenance of a result: software versions and SHA-256 digests of what went in."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import platform
import re
from pathlib import Path
from typing import Any

__all__ = ["SOFTWARE", "sha256_json", "software_versions", "source_revision"]

#: The packages whose versions are recorded (the runtime dependencies).
SOFTWARE = ("forensic-lr", "numpy", "scipy", "pydantic", "jinja2", "matplotlib", "weasyprint")


def software_versions() -> dict[str, str]:
    """Versions of Python and of the runtime dependencies (for provenance records)."""
    versions = {"python": platform.python_version()}
    for name in SOFTWARE:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def sha256_json(data: Any) -> str:
    """SHA-256 of canonical JSON (sorted keys, no spaces), for data that came from no file."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _git_dir(checkout: Path) -> Path | None:
    """The git folder of a checkout (``.git`` folder, or the one a worktree's ``.git`` names)."""
    dot = checkout / ".git"
    if dot.is_dir():
        return dot
    if dot.is_file():
        text = dot.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            return (checkout / text.removeprefix("gitdir:").strip()).resolve()
    return None


def source_revision() -> str:
    """The git commit of the source checkout forensic-lr runs from, or ``"unknown"``.

    Read from the files of the checkout's git folder (``HEAD``, the branch's ref or
    ``packed-refs``; a worktree's refs live in its ``commondir``), without running git.
    An installed package has no checkout: ``"unknown"``. Uncommitted changes are not
    detected.
    """
    git = _git_dir(Path(__file__).resolve().parent.parent)
    try:
        head = (git / "HEAD").read_text(encoding="utf-8").strip() if git else ""
        if not head.startswith("ref:"):
            return head if re.fullmatch(r"[0-9a-f]{40}", head) else "unknown"
        ref = head.removeprefix("ref:").strip()
        common = git
        if (git / "commondir").is_file():
            common = (git / (git / "commondir").read_text(encoding="utf-8").strip()).resolve()
        for folder in dict.fromkeys((git, common)):
            if (folder / ref).is_file():
                return (folder / ref).read_text(encoding="utf-8").strip()
            packed = folder / "packed-refs"
            if packed.is_file():
                for line in packed.read_text(encoding="utf-8").splitlines():
                    sha, _, name = line.partition(" ")
                    if name == ref and re.fullmatch(r"[0-9a-f]{40}", sha):
                        return sha
    except OSError:
        return "unknown"
    return "unknown"
