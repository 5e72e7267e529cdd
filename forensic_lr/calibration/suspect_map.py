"""Suspect-adapted MAP calibration: the population same-source model moved towards the suspect."""

from __future__ import annotations

import warnings

import numpy as np

from .._checks import as_score_array
from ..errors import ForensicLRWarning, InputError
from ..i18n import N_
from ..i18n.messages import english
from ..records import ParamRow
from ..resampling import SourceSplit, bootstrap_index_chunks
from .base import ExtraInput, number_option, param_row, weighted_moments
from .bootstrap_fits import BootstrapFits, RefitsOnce, normal_pair_fits
from .densities import normal_logpdf, row_moments
from .gaussian import TwoNormalsCalibrator


def map_adapt(
    mean_prior: float, var_prior: float, values: np.ndarray, relevance: float
) -> tuple[float, float, float]:
    """MAP-adapted mean and variance of a normal model towards ``values``.

    Parameters
    ----------
    mean_prior, var_prior : float
        The prior (population) model.
    values : ndarray
        The adaptation scores (may be empty).
    relevance : float
        Relevance factor ``r >= 0``: the prior's weight in equivalent observations.

    Returns
    -------
    mean, var, alpha : float
        Adapted mean and variance and the adaptation coefficient ``alpha = n / (n + r)``.

    Notes
    -----
    With ``n`` scores of mean ``xbar`` and second moment ``E[x^2]`` [1]_:

    ``alpha = n / (n + r)``,
    ``mu = alpha xbar + (1 - alpha) mu_pop``,
    ``sigma^2 = alpha E[x^2] + (1 - alpha) (sigma_pop^2 + mu_pop^2) - mu^2``.

    computed as ``(S + r sigma_pop^2 + n r / (n + r) (xbar - mu_pop)^2) / (n + r)`` with ``S``
    the sum of squared deviations of ``values`` (algebraically equal, free of
    cancellation). ``n = 0`` returns the population model; ``r -> 0`` the ML fit to
    ``values``.

    References
    ----------
    .. [1] D. A. Reynolds, T. F. Quatieri, R. B. Dunn, "Speaker verification using adapted
           Gaussian mixture models", Digital Signal Processing 10 (2000) 19-41, eq. 11-14.
    """
    mean, var, alpha = _adapt(mean_prior, var_prior, values, relevance)
    return float(mean), float(var), float(alpha)


def _adapt(mean_prior, var_prior, values: np.ndarray, relevance: float):
    """:func:`map_adapt` for a scalar or an array of prior models (one per bootstrap replicate)."""
    n = values.size
    if n == 0:
        return mean_prior, var_prior, 0.0
    centred = float(np.sum((values - values.mean()) ** 2))
    return _adapt_moments(mean_prior, var_prior, n, values.mean(), centred, relevance)


def _adapt_moments(mean_prior, var_prior, n, mean_x, centred, relevance: float):
    """The MAP update of :func:`map_adapt` from the adaptation scores' count ``n >= 1``,
    mean and sum of squared deviations (arrays broadcast: one adaptation set per entry)."""
    alpha = n / (n + relevance)
    mean = alpha * mean_x + (1 - alpha) * mean_prior
    # alpha E[x^2] + (1 - alpha)(sigma_pop^2 + mu_pop^2) - mu^2 cancels badly when
    # |mu| >> sigma; the same quantity written with centred sums does not.
    shift = n * relevance / (n + relevance) * (mean_x - mean_prior) ** 2
    var = (centred + relevance * var_prior + shift) / (n + relevance)
    return mean, var, alpha


class SuspectMAPCalibrator(RefitsOnce, TwoNormalsCalibrator):
    """Gaussian LR with the same-source model MAP-adapted to the suspect's own scores.

    Parameters
    ----------
    suspect_ss : array_like
        Same-source scores of the suspect under case conditions (e.g. the suspect's
        acknowledged recordings compared with each other), at least 2; required (without
        them the method would be the population model, ``gaussian``). A case file passes
        them with ``[background] suspect_ss = "suspect_ss.csv"``.
    relevance : float
        Relevance factor ``r`` (default 16, the value Reynolds et al. found robust [2]_):
        the population model counts as ``r`` suspect scores. Small ``r`` trusts the
        suspect scores; ``r -> 0`` is the suspect-only ML fit.

    Notes
    -----
    The population SS model ``N(mu_pop, sigma_pop^2)`` (ML fit to the background SS scores)
    is the prior; with ``n`` suspect scores, ``alpha = n / (n + r)``,
    ``mu_ss = alpha xbar + (1 - alpha) mu_pop`` and
    ``sigma_ss^2 = alpha E[x^2] + (1 - alpha) (sigma_pop^2 + mu_pop^2) - mu_ss^2`` [1]_, [2]_,
    equivalently ``(S + r sigma_pop^2 + n r / (n + r) (xbar - mu_pop)^2) / (n + r)`` with
    ``S`` the suspect scores' sum of squared deviations (the form used, being free of
    cancellation). The DS model is the ML normal fit to the background DS scores, and
    ``llr(s) = log N(s; mu_ss, sigma_ss^2) - log N(s; mu_ds, sigma_ds^2)``.

    ``params()`` reports how many suspect scores were used and how far the model moved
    (``mean_shift_sd``: ``(mu_ss - mu_pop) / sigma_pop``; ``sd_ratio``: ``sigma_ss /
    sigma_pop``). Cross-validation validates the method as applied through
    :meth:`fold_llr`: each held-out source of the background takes the suspect's place.

    References
    ----------
    .. [1] D. Ramos-Castro, J. Gonzalez-Rodriguez, A. Montero-Asenjo, J. Ortega-Garcia,
           "Suspect-adapted MAP estimation of within-source distributions in generative
           likelihood ratio estimation", IEEE Odyssey 2006.
    .. [2] D. A. Reynolds, T. F. Quatieri, R. B. Dunn, "Speaker verification using adapted
           Gaussian mixture models", Digital Signal Processing 10 (2000) 19-41.
    """

    name = "suspect_map"
    title = N_("Suspect-adapted Gaussian calibration (MAP)")
    summary = N_(
        "The same-source model was adapted to the suspect's own same-source scores by "
        "maximum a posteriori estimation: the population model counts as relevance suspect "
        "scores, so the more suspect scores, the further the model moves towards them. The "
        "different-source model is the population model."
    )
    equation = N_(
        "LR(s) = N(s; adapted same-source model) / N(s; population different-source model)"
    )
    reference = (
        "D. Ramos-Castro, J. Gonzalez-Rodriguez, A. Montero-Asenjo, J. Ortega-Garcia, "
        "Suspect-adapted MAP estimation of within-source distributions in generative "
        "likelihood ratio estimation, IEEE Odyssey 2006."
    )
    validated_by_source = True
    validation = N_(
        "Each source left out took the suspect's place: its comparisons were scored by the "
        "population model fitted without it and adapted to its own same-source scores, as "
        "the case's model is adapted to the suspect's (a same-source comparison to the "
        "source's other ones, never to itself; a different-source comparison to those of "
        "the source of its reference item)."
    )
    extra_inputs = (
        ExtraInput("suspect_ss", "--suspect-ss",
                   "the suspect's own same-source scores (one score per line)", required=True),
    )

    def __init__(self, *, suspect_ss=None, relevance: float = 16.0) -> None:
        self.suspect_ss = suspect_ss
        self.relevance = relevance

    def check_options(self) -> None:
        number_option(self.relevance, "relevance", strict=False)


    def limitations(self) -> tuple[str, ...]:
        return (
            N_("The suspect's own same-source scores are not validation data. The validation "
               "leaves out each background source (speaker) in turn, adapts the model to that "
               "source's own same-source scores as the case adapts it to the suspect's, and "
               "scores that source's comparisons with the adapted model; it holds for the "
               "suspect as far as the suspect's scores behave like those of the background's "
               "sources. "
               "This needs the source of every background comparison; without it only the "
               "population model is validated (the warnings then say so)."),
        )

    def param_rows(self) -> tuple[ParamRow, ...]:
        p = self.params()
        return (
            param_row("suspect same-source scores used", p["n_suspect"], "count"),
            param_row("relevance factor (population model counts as this many suspect "
                      "scores)", p["relevance"], 1),
            param_row("adaptation weight n / (n + relevance)", p["alpha"], 2),
            param_row("same-source mean: population model", p["mean_pop"]),
            param_row("same-source mean: adapted model", p["mean_ss"]),
            param_row("same-source SD: population model", p["sd_pop"]),
            param_row("same-source SD: adapted model", p["sd_ss"]),
            param_row("mean shift, in population SDs", p["mean_shift_sd"], 2),
            param_row("SD ratio, adapted / population", p["sd_ratio"], 2),
        )

    def _suspect(self) -> np.ndarray:
        if self.suspect_ss is None or (
                not isinstance(self.suspect_ss, str) and np.size(self.suspect_ss) == 0):
            raise InputError(
                "method suspect_map needs the suspect's own same-source scores (suspect_ss, "
                "at least 2): give them with --suspect-ss FILE (command line) or [background] "
                'suspect_ss = "file.csv" (case file); without them use method gaussian, the '
                "population model the adaptation starts from"
            )
        if isinstance(self.suspect_ss, str):
            raise InputError(
                f"suspect_ss must be an array of scores, got the text {self.suspect_ss!r}; "
                'in a case file give the score file under [background] suspect_ss = "file.csv", '
                "not as a method option"
            )
        values = as_score_array(self.suspect_ss, "suspect_ss", min_size=0)
        if values.size == 1:
            raise InputError(
                f"suspect_ss holds a single score ({values[0]!r}): adapting a distribution "
                "needs at least 2 suspect same-source scores; add scores to the suspect file, "
                "or use method gaussian (the population model) without suspect_ss"
            )
        return values

    def _checked(self) -> tuple[np.ndarray, float]:
        """The suspect scores and the relevance factor, checked together."""
        r = number_option(self.relevance, "relevance", strict=False)
        suspect = self._suspect()
        if r == 0 and suspect.min() == suspect.max():
            raise InputError(
                f"all {suspect.size} suspect_ss scores are equal: with relevance = 0 the "
                "variance would be 0; use relevance > 0"
            )
        return suspect, float(r)

    def fit(self, ss, ds, ss_weight=None, ds_weight=None) -> SuspectMAPCalibrator:
        """Adapt the population SS model to the suspect's scores; weights (of the background
        scores only) as in :class:`~forensic_lr.calibration.base.Calibrator`."""
        ss, ds, w_ss, w_ds = self._validate_weighted(ss, ds, ss_weight, ds_weight)
        suspect, r = self._checked()
        m_pop, v_pop = weighted_moments(ss, w_ss)
        m_ds, v_ds = weighted_moments(ds, w_ds)
        mean, var, alpha = map_adapt(float(m_pop), float(v_pop), suspect, r)
        self.mean_pop_, self.sd_pop_ = float(m_pop), float(np.sqrt(v_pop))
        self.mean_ss_, self.sd_ss_ = mean, float(np.sqrt(var))
        self.mean_ds_, self.sd_ds_ = float(m_ds), float(np.sqrt(v_ds))
        self.alpha_, self.n_suspect_ = alpha, int(suspect.size)
        self.fitted_ = True
        return self

    def params(self) -> dict:
        self.check_fitted()
        return {
            "n_suspect": self.n_suspect_,
            "relevance": float(self.relevance),
            "alpha": self.alpha_,
            "mean_pop": self.mean_pop_,
            "sd_pop": self.sd_pop_,
            "mean_ss": self.mean_ss_,
            "sd_ss": self.sd_ss_,
            "mean_ds": self.mean_ds_,
            "sd_ds": self.sd_ds_,
            "mean_shift_sd": (self.mean_ss_ - self.mean_pop_) / self.sd_pop_,
            "sd_ratio": self.sd_ss_ / self.sd_pop_,
        }

    def fold_llr(self, ss, ds, split: SourceSplit, sources) -> tuple[np.ndarray, np.ndarray]:
        """Out-of-fold LLRs of one cross-validation split, each held-out source adapted to.

        The hook :func:`forensic_lr.uncertainty.cross_validated_llr` calls instead of
        ``fit`` and ``llr``: the method is validated as the case applies it, with each
        held-out source of the background in the suspect's place.

        Parameters
        ----------
        ss, ds : ndarray
            All background scores.
        split : SourceSplit
            Training and test indices of the split.
        sources : (codes_ss, codes_ds, ids) or None
            Integer source codes of the two items of every SS and DS trial, shape
            ``(n, 2)``, and the source id of each code
            (:func:`forensic_lr.resampling.coded_sources`); None when the background
            names no sources.

        Returns
        -------
        ss_llr, ds_llr : ndarray
            LLRs of ``ss[split.test_ss]`` and ``ds[split.test_ds]``.

        Warns
        -----
        ForensicLRWarning
            Without sources: only the population model (no adaptation) is validated.

        Raises
        ------
        InputError
            A source whose same-source trials are too few to adapt to (naming it).

        Notes
        -----
        The population SS and the DS model are the ML normal fits to the training trials
        (no trial of a held-out source). The suspect of a held-out trial is a held-out
        source, and its "suspect scores" are that source's own same-source trials, all
        of them held out too:

        * a same-source trial of source ``j`` is scored by the population model adapted
          (:func:`map_adapt`, the case's relevance) to the other ``n_j - 1`` same-source
          trials of ``j``: leave one trial out within the source, so that no trial both
          adapts the model and is scored by it. The moments without trial ``t`` are
          ``mean = (n_j m_j - x_t) / (n_j - 1)`` and
          ``S = S_j - n_j / (n_j - 1) (x_t - m_j)^2`` (the sum of squared deviations
          downdated, [1]_);
        * a different-source trial compares the items of two sources; the second item's
          source (``source_b``: the reference side of a questioned-vs-reference
          comparison, or the one ``source`` of the trial) is its suspect, adapted to with
          all its same-source trials (the first item's source when the second has fewer
          than 2).

        Every adaptation set holds at least 2 scores, as the case requires of the
        suspect's. Without sources the case's own suspect scores would adapt the model
        scored on other sources' trials, which measures how unlike those sources the
        suspect is, not how the method performs; the population model is validated
        instead and a warning says so.

        References
        ----------
        .. [1] T. F. Chan, G. H. Golub, R. J. LeVeque, "Algorithms for computing the sample
               variance: analysis and recommendations", The American Statistician 37
               (1983) 242-247.
        """
        train_ss, train_ds = self._validate(ss[split.train_ss], ds[split.train_ds])
        r = number_option(self.relevance, "relevance", strict=False)
        m_pop, v_pop = (float(v) for v in row_moments(train_ss))
        m_ds, v_ds = (float(v) for v in row_moments(train_ds))
        if sources is None:
            warnings.warn(english("warning.suspect_map.no_sources"), ForensicLRWarning,
                          stacklevel=2)
            models = ((m_pop, v_pop), (m_pop, v_pop))
        else:
            models = _source_adapted(ss, split, sources, m_pop, v_pop, r)
        return tuple(  # type: ignore[return-value]
            normal_logpdf(x, mean, np.sqrt(var)) - normal_logpdf(x, m_ds, np.sqrt(v_ds))
            for x, (mean, var) in zip((ss[split.test_ss], ds[split.test_ds]), models,
                                      strict=True)
        )

    def bootstrap_fits(self, ss, ds, *, n, rng, progress=None) -> BootstrapFits:
        """``n`` bootstrap refits from per-replicate moments only.

        The background SS and DS scores are resampled (draws of
        :func:`forensic_lr.resampling.bootstrap_index_chunks`); the suspect scores are a
        fixed option, as in every refit. Replicate-by-replicate equal to
        ``fit(ss[idx_ss[b]], ds[idx_ds[b]])``; constant resamples give NaN.
        """
        ss, ds = self._validate(ss, ds)
        suspect, r = self._checked()
        params = []
        for idx_ss, idx_ds in bootstrap_index_chunks(rng, n, ss.size, ds.size):
            m_pop, v_pop = row_moments(ss[idx_ss])
            m_ds, v_ds = row_moments(ds[idx_ds])
            mean, var, _ = _adapt(m_pop, v_pop, suspect, r)
            params.append((mean, np.sqrt(var), m_ds, np.sqrt(v_ds), (v_pop == 0) | (v_ds == 0)))
            if progress is not None:
                progress(sum(p[0].size for p in params), n)
        return normal_pair_fits(*(np.concatenate(column) for column in zip(*params, strict=True)))


def _source_adapted(ss, split: SourceSplit, sources, m_pop: float, v_pop: float, r: float):
    """Adapted SS means and variances for the split's test SS and DS trials.

    See :meth:`SuspectMAPCalibrator.fold_llr`: SS trials leave themselves out of their
    source's adaptation set; DS trials adapt to their suspect source's SS trials.
    """
    codes_ss, codes_ds, ids = sources
    of = codes_ss[:, 0]  # both items of a same-source trial have one source
    count = np.bincount(of, minlength=ids.size)
    mean = np.bincount(of, ss, minlength=ids.size) / np.maximum(count, 1)
    centred = np.bincount(of, (ss - mean[of]) ** 2, minlength=ids.size)

    src, x = of[split.test_ss], ss[split.test_ss]
    few = np.unique(src[count[src] < 3])
    if few.size:
        raise InputError(
            f"source(s) {_names(ids, few)} of the same-source background have fewer than 3 "
            "trials: the validation of suspect_map adapts the model to a source's other "
            "same-source trials (at least 2, as for the suspect) while it scores one of them; "
            "give each source at least 3 same-source trials, or leave those sources' trials "
            "out of the background"
        )
    n = count[src] - 1
    loo_mean = (count[src] * mean[src] - x) / n
    loo_centred = np.maximum(centred[src] - count[src] / n * (x - mean[src]) ** 2, 0.0)
    ss_model = _adapt_moments(m_pop, v_pop, n, loo_mean, loo_centred, r)

    first, second = codes_ds[split.test_ds, 0], codes_ds[split.test_ds, 1]
    suspect = np.where(count[second] >= 2, second, first)
    lone = count[suspect] < 2
    if lone.any():
        i = int(np.argmax(lone))
        raise InputError(
            f"a different-source trial between sources {_names(ids, [first[i], second[i]])}: "
            "neither source has 2 same-source trials to adapt the model to (the suspect's "
            "place in the validation of suspect_map); give one of them at least 2 "
            "same-source trials, or leave its different-source trials out of the background"
        )
    ds_model = _adapt_moments(m_pop, v_pop, count[suspect], mean[suspect], centred[suspect], r)
    if min(ss_model[1].min(initial=1.0), ds_model[1].min(initial=1.0)) <= 0:
        raise InputError(
            "with relevance = 0 the model adapts to a held-out source's same-source scores "
            "alone, and some source's are all equal (variance 0): use relevance > 0"
        )
    return ss_model[:2], ds_model[:2]


def _names(ids: np.ndarray, codes) -> str:
    """The ids of ``codes`` as a message lists them (the first 5)."""
    codes = list(dict.fromkeys(int(c) for c in codes))
    more = f" and {len(codes) - 5} more" if len(codes) > 5 else ""
    return ", ".join(repr(str(ids[c])) for c in codes[:5]) + more
