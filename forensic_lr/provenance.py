"""Provenance of a result: software versions and SHA-256 digests of what went in."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import platform
from typing import Any

__all__ = ["SOFTWARE", "sha256_json", "software_versions"]

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
