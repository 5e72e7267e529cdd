"""KDE bandwidth rules: Silverman's, the normal-reference rule, fixed and per-class bandwidths.

Each bandwidth is checked against the formula computed by hand, and each LLR against
scipy's ``gaussian_kde`` with that bandwidth (a different implementation of the sums).
"""

import numpy as np
import pytest
from scipy import stats

from forensic_lr.calibration import make_calibrator
from forensic_lr.calibration.kde import KDECalibrator
from forensic_lr.errors import InputError

S = np.array([-2.5, 0.0, 1.3, 3.0, 6.0])


def _data(seed=3, n_ss=45, n_ds=80):
    rng = np.random.default_rng(seed)
    return rng.normal(2.0, 1.2, n_ss), rng.standard_t(4, n_ds)


def _silverman(x):
    iqr = np.subtract(*np.percentile(x, [75, 25]))
    return 0.9 * min(x.std(ddof=1), iqr / 1.34) * x.size ** -0.2


def _scipy_llr(ss, ds, h_ss, h_ds, s):
    """log KDE_ss - log KDE_ds by scipy with the given bandwidths (``bw_method`` is h / sd)."""
    return (stats.gaussian_kde(ss, bw_method=h_ss / ss.std(ddof=1)).logpdf(s)
            - stats.gaussian_kde(ds, bw_method=h_ds / ds.std(ddof=1)).logpdf(s))


def test_normal_reference_rule_is_1_06_sd_and_scott_is_its_other_name():
    ss, ds = _data()
    cal = KDECalibrator(bandwidth="normal_reference").fit(ss, ds)
    assert cal.h_ss_ == pytest.approx(1.06 * ss.std(ddof=1) * 45 ** -0.2, rel=1e-14)
    assert cal.h_ds_ == pytest.approx(1.06 * ds.std(ddof=1) * 80 ** -0.2, rel=1e-14)
    scott = KDECalibrator(bandwidth="scott").fit(ss, ds)
    assert (scott.h_ss_, scott.h_ds_) == (cal.h_ss_, cal.h_ds_)
    np.testing.assert_allclose(cal.llr(S), _scipy_llr(ss, ds, cal.h_ss_, cal.h_ds_, S),
                               rtol=1e-10)


def test_silverman_is_not_the_normal_reference_rule():
    """Silverman's rule (0.9 min(sd, IQR/1.34)) gives a smaller bandwidth than 1.06 sd."""
    ss, ds = _data()
    silverman = KDECalibrator().fit(ss, ds)
    assert silverman.h_ss_ == pytest.approx(_silverman(ss), rel=1e-14)
    assert silverman.h_ds_ == pytest.approx(_silverman(ds), rel=1e-14)
    reference = KDECalibrator(bandwidth="normal_reference").fit(ss, ds)
    assert silverman.h_ss_ < reference.h_ss_ and silverman.h_ds_ < reference.h_ds_


@pytest.mark.parametrize("spelling", [["silverman", 0.5], ("silverman", 0.5),
                                      {"ss": "silverman", "ds": 0.5}])
def test_per_class_bandwidths(spelling):
    ss, ds = _data(5)
    cal = make_calibrator("kde", bandwidth=spelling).fit(ss, ds)
    assert cal.h_ss_ == pytest.approx(_silverman(ss), rel=1e-14) and cal.h_ds_ == 0.5
    np.testing.assert_allclose(cal.llr(S), _scipy_llr(ss, ds, _silverman(ss), 0.5, S),
                               rtol=1e-10)
    assert cal.params()["bandwidth_rule"] in (["silverman", 0.5], {"ss": "silverman", "ds": 0.5})


def test_fixed_bandwidths_per_class():
    ss, ds = _data(7)
    cal = make_calibrator("kde", bandwidth=[0.3, 0.8]).fit(ss, ds)
    np.testing.assert_allclose(cal.llr(S), _scipy_llr(ss, ds, 0.3, 0.8, S), rtol=1e-10)


@pytest.mark.parametrize("rule, words", [
    (["silverman"], "two entries"), (["silverman", 0.5, 1.0], "two entries"),
    ({"ss": 0.5}, "keys 'ss' and 'ds'"), (["silverman", "wide"], "'normal_reference'"),
    ([0.5, -1.0], "bandwidth must be a positive number"),
])
def test_bad_per_class_bandwidths_are_refused(rule, words):
    with pytest.raises(InputError, match=words):
        make_calibrator("kde", bandwidth=rule)
