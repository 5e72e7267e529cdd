"""Shared set-up of the web tests: a server on a temporary cases folder and its test client."""

from __future__ import annotations

import shutil
import warnings
from functools import partial
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette's note on httpx's successor, not ours
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from forensic_lr.web.app import ServerConfig, create_app

TOKEN = "test-token-0123456789"
BASE = "http://127.0.0.1:8000"
EXAMPLES = Path(__file__).resolve().parents[2] / "case_examples"


@pytest.fixture(scope="package", autouse=True)
def cheap_password_hashes():
    """argon2id at its smallest cost (1 pass over 64 KiB, one lane) for the web tests.

    The register hashes and verifies every password with ``argon2.PasswordHasher()``, whose
    defaults (3 passes over 64 MiB, four lanes) take about 0.2 s of processor time a hash, by
    design; a login test hashes some twenty times. The hashes stay real argon2id hashes,
    verified by argon2 (``tests/web/test_api.py`` checks the stored form); only their
    cost differs from a server's.
    """
    import argon2

    cheap = partial(argon2.PasswordHasher, time_cost=1, memory_cost=64, parallelism=1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(argon2, "PasswordHasher", cheap)
        yield


@pytest.fixture
def cases_dir(tmp_path) -> Path:
    return tmp_path / "cases"


@pytest.fixture
def make_client(cases_dir):
    """A test client factory: ``make_client(**config)``, Host 127.0.0.1."""
    def make(**kwargs) -> TestClient:
        config = ServerConfig(cases=cases_dir, token=TOKEN, **kwargs)
        return TestClient(create_app(config), base_url=BASE, follow_redirects=False)
    return make


@pytest.fixture
def client(make_client) -> TestClient:
    return make_client()


@pytest.fixture
def bearer() -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}"}


def example_upload(name: str = "voice") -> tuple[bytes, list[tuple[str, bytes]]]:
    """A worked example's case file and the score files it names."""
    folder = EXAMPLES / name
    case = (folder / "case.toml").read_bytes()
    files = [(p.name, p.read_bytes()) for p in sorted(folder.iterdir())
             if p.suffix in (".csv", ".tsv", ".npy") and p.name in case.decode()]
    return case, files


def multipart(case: bytes, files: list[tuple[str, bytes]]):
    """httpx's ``files=`` argument: one part ``case`` and one part ``files`` per file."""
    parts = [("case", ("case.toml", case, "application/toml"))]
    parts += [("files", (name, content, "text/csv")) for name, content in files]
    return parts


def copy_example(name: str, target: Path) -> Path:
    shutil.copytree(EXAMPLES / name, target)
    return target / "case.toml"
