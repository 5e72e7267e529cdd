"""tippett_counts: trials supporting a case's side at least as strongly, against a brute
force count (ties, zero and infinite LLRs included)."""

from __future__ import annotations

import numpy as np

from forensic_lr.metrics import tippett_counts


def test_counts_equal_a_brute_force_count():
    rng = np.random.default_rng(5)
    ss = np.round(rng.normal(1, 2, 300), 1)
    ds = np.append(np.round(rng.normal(-1, 2, 500), 1), [-np.inf, np.inf, 0.0])
    x = np.array([-3.0, -0.5, 0.0, 0.3, 2.0, ss[7], ds[3], -np.inf, np.inf])
    n_ss, n_ds = tippett_counts(ss, ds, x)
    for i, v in enumerate(x):
        strong = (lambda t, v=v: t >= v) if v >= 0 else (lambda t, v=v: t <= v)
        assert n_ss[i] == sum(strong(t) for t in ss)
        assert n_ds[i] == sum(strong(t) for t in ds)
