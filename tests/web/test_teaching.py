"""The teaching view's numbers: the slides' example and agreement with calibrate.

Independent values: the slides' densities 0.35 and 0.15 at 5.96 (LR 2.33, the Gaussian
densities computed here with scipy.stats.norm), and POST /api/lr (the code of
``forensic-lr calibrate --json``) for the same background and score.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from forensic_lr.web.teaching import textbook_background


def test_textbook_background_has_the_slides_densities():
    ss, ds, evidence = textbook_background()
    assert evidence == 5.96
    assert 4 <= ss.min() and ss.max() <= 7  # "SS scores between 4 and 7"
    # ML fits: the mean and the standard deviation with ddof=0
    assert norm.pdf(evidence, ss.mean(), ss.std()) == pytest.approx(0.35, rel=1e-12)
    assert norm.pdf(evidence, ds.mean(), ds.std()) == pytest.approx(0.15, rel=1e-12)


def test_preset_gives_lr_2_33(client, bearer):
    fit = client.post("/api/teaching/fit", json={"example": "textbook", "method": "gaussian",
                                                 "elub": False}, headers=bearer).json()
    assert fit["evidence"] == 5.96 and fit["elub"] is None
    r = client.get(f"/api/teaching/{fit['fit']}/lr?score=5.96&prior=-1", headers=bearer).json()
    assert math.exp(r["llr"]) == pytest.approx(0.35 / 0.15, rel=1e-9)
    assert r["lr_text"] == "2.3"
    assert r["densities"] == pytest.approx([0.35, 0.15], rel=1e-9)
    assert r["posterior_log10_odds"] == pytest.approx(-1 + math.log10(0.35 / 0.15))


@pytest.fixture(scope="module")
def large():
    rng = np.random.default_rng(3)
    return rng.normal(2.0, 1.0, 10_000).tolist(), rng.normal(-1.0, 1.2, 10_000).tolist()


def test_slider_lr_equals_api_lr_with_elub(client, bearer, large):
    ss, ds = large
    fit = client.post("/api/teaching/fit", json={"ss": ss, "ds": ds, "method": "gaussian",
                                                 "elub": True}, headers=bearer).json()
    assert fit["elub"] is not None
    for score in (-2.0, 0.7, 4.5, 9.0):
        shown = client.get(f"/api/teaching/{fit['fit']}/lr?score={score}", headers=bearer).json()
        direct = client.post("/api/lr", json={"ss": ss, "ds": ds, "scores": [score],
                                              "method": "gaussian", "elub": True,
                                              "interval": "none"}, headers=bearer).json()
        assert shown["log10_lr"] == pytest.approx(direct["results"][0]["log10_lr"], abs=1e-12)
    assert shown["extrapolated"] is True  # 9.0 lies beyond every background score


def test_fit_refuses_unknown_keys_and_examples(client, bearer):
    assert client.post("/api/teaching/fit", json={"example": "nope"}, headers=bearer
                       ).status_code == 422
    assert client.post("/api/teaching/fit", json={"bogus": 1}, headers=bearer).status_code == 422
    assert client.get("/api/teaching/none/lr?score=1", headers=bearer).status_code == 404


def test_worked_examples_fit(client, bearer):
    fit = client.post("/api/teaching/fit", json={"example": "voice", "method": "gaussian",
                                                 "subsample": 30, "seed": 1},
                      headers=bearer).json()
    assert fit["n_ss"] == 30 and fit["n_ds"] == 30 and fit["evidence"] == 5.96


def test_uploaded_score_files_are_read_by_the_command_lines_reader(client, bearer):
    from .conftest import EXAMPLES

    folder = EXAMPLES / "voice"
    parts = [("ss", ("ss.csv", (folder / "ss.csv").read_bytes(), "text/csv")),
             ("ds", ("ds.csv", (folder / "ds.csv").read_bytes(), "text/csv"))]
    r = client.post("/api/teaching/fit", files=parts, data={"method": "gaussian", "elub": "1"},
                    headers=bearer)
    assert r.status_code == 200, r.text
    assert (r.json()["n_ss"], r.json()["n_ds"]) == (300, 3000)
    bad = [("ss", ("../ss.csv", b"1\n2\n", "text/csv")), parts[1]]
    assert client.post("/api/teaching/fit", files=bad, headers=bearer).status_code == 422
    broken = [("ss", ("ss.csv", b"1\nx\n", "text/csv")), parts[1]]
    r = client.post("/api/teaching/fit", files=broken, headers=bearer)
    assert r.status_code == 422 and "line 2" in r.json()["error"]
    assert r.json()["error"].startswith("ss.csv")  # no server path
