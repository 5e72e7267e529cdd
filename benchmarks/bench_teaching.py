"""Benchmark: the teaching view's slider at 10^4 background scores per class (target 200 ms).

Fits once through ``POST /api/teaching/fit`` (Bayesian calibrator with ELUB bounds) on a
temporary cases folder, then times 25 slider positions ``GET /api/teaching/{fit}/lr`` through
Starlette's test client (the whole request: routing, the library's LR, JSON), and prints the
median and the largest time with their ratio to the 200 ms the teaching view promises.
Run: python benchmarks/bench_teaching.py   (needs the web dependencies, installed by default)
"""

from __future__ import annotations

import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

with warnings.catch_warnings():  # starlette's note on httpx's successor, not ours
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from forensic_lr.web.app import ServerConfig, create_app

TARGET_S = 0.2
TOKEN = "bench-token-0123456789"


def main() -> None:
    rng = np.random.default_rng(3)
    ss, ds = rng.normal(2.0, 1.0, 10_000).tolist(), rng.normal(-1.0, 1.2, 10_000).tolist()
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(ServerConfig(cases=Path(folder) / "cases", token=TOKEN))
        with TestClient(app, base_url="http://127.0.0.1:8000") as client:
            fit = client.post("/api/teaching/fit", headers=bearer,
                              json={"ss": ss, "ds": ds, "method": "bayes", "elub": True}).json()
            times = []
            for score in np.linspace(-3, 5, 25):
                start = time.perf_counter()
                response = client.get(f"/api/teaching/{fit['fit']}/lr?score={score}",
                                      headers=bearer)
                times.append(time.perf_counter() - start)
                response.raise_for_status()
    median, worst = statistics.median(times), max(times)
    print("teaching slider, 10^4 + 10^4 background scores, 25 positions")
    print(f"  median {median * 1e3:7.1f} ms  ({median / TARGET_S:.2f} of the 200 ms target)")
    print(f"  worst  {worst * 1e3:7.1f} ms  ({worst / TARGET_S:.2f} of the 200 ms target)")


if __name__ == "__main__":
    main()
