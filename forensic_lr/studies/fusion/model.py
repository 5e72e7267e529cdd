"""Worst-case evaluation of one component model inside a fused binary classifier.

A system runs several binary models in parallel and fuses their decisions (AND, OR,
majority, any truth table). To judge a candidate model ``M`` for the slot of component
``S*`` without running the whole system with it, the system is run twice with ``S*``
*intervened*: once with a constant model that always says positive (``S* -> p``) and once
with one that always says negative (``S* -> n``) [1]_ (section "Intervención"). From those
two confusion matrices and the confusion matrix of ``M`` alone, the largest number of
errors the fused system can make with *any* model having ``M``'s confusion matrix is [1]_
(section "Fallos en peor caso")::

    worst FN = m_FN^{S*->p} + min(m_FN^M, m_TP^{S*->p} - m_TP^{S*->n})
    worst FP = m_FP^{S*->n} + min(m_FP^M, m_TN^{S*->n} - m_TN^{S*->p})

When ``M`` was evaluated on another data set than the system, the intervened matrices are
moved to ``M``'s data set by per-class accuracy rescaling [1]_ (section "Datasets
distintos"). :func:`simulate_worst_case` repeats the method's simulation study (section
"Experimentación"): two components with correlated Bernoulli correctness, OR / AND fuser,
and the share of replicates in which the worst case is at least the real error.

Classes are ``p`` (positive; in forensic use the class where Hp is true) and ``n``.
Decisions are booleans, True = says positive.

References
----------
.. [1] "Método de evaluación para modelo integrante de un sistema clasificador (Análisis
       de peor caso)", slides (in Spanish).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...errors import InputError, excerpt
from ...io.tables import names as shown
from ...records import Serialisable, jsonable

__all__ = [
    "FUSERS",
    "Confusion",
    "InstanceTypes",
    "IntervenedCounts",
    "SimulationResult",
    "TruthTable",
    "WorstCase",
    "check_confusion",
    "confusion_counts",
    "instance_types",
    "intervene",
    "joint_correct_probabilities",
    "make_fuser",
    "random_scenarios",
    "simulate_worst_case",
    "transfer_confusion",
    "worst_case",
    "worst_case_from_decisions",
]

FUSERS = ("and", "or", "majority")


# --------------------------------------------------------------------------- confusion counts
@dataclass(frozen=True)
class Confusion(Serialisable):
    """Binary confusion counts ``m_ij`` of the method: i = true class, j = predicted class.

    Counts are ints when counted, floats after rescaling (:func:`transfer_confusion`).
    """

    tp: float
    fn: float
    fp: float
    tn: float

    @property
    def n_pos(self) -> float:
        """Number of positive instances, ``P = tp + fn``."""
        return self.tp + self.fn

    @property
    def n_neg(self) -> float:
        """Number of negative instances, ``N = fp + tn``."""
        return self.fp + self.tn


#: The largest count held exactly in float64 (2^53).
_MAX_COUNT = 2**53


def check_confusion(counts, name: str = "confusion") -> Confusion:
    """Return ``counts`` (a :class:`Confusion` or a mapping with tp, fn, fp, tn) validated.

    Raises :class:`InputError` for a missing key, a negative, non-finite or non-numeric count,
    or a class without instances.
    """
    if isinstance(counts, Confusion):
        values = counts.to_dict()
    elif isinstance(counts, dict):
        missing = [k for k in ("tp", "fn", "fp", "tn") if k not in counts]
        extra = sorted(set(counts) - {"tp", "fn", "fp", "tn"})
        if missing or extra:
            raise InputError(
                f"{name} needs exactly the keys tp, fn, fp, tn; missing {missing}, unknown {extra}"
            )
        values = counts
    else:
        raise InputError(f"{name} must be a mapping with keys tp, fn, fp, tn")
    out = {}
    for k in ("tp", "fn", "fp", "tn"):
        v = values[k]
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise InputError(f"{name}.{k} = {excerpt(v)} is not a number; give a count >= 0")
        if v > _MAX_COUNT:  # before isfinite: a Python int this large is no float64
            raise InputError(
                f"{name}.{k} = {v:.3g} is beyond 2^53 = {_MAX_COUNT:,}, the largest count a "
                "float64 holds exactly; give the real counts"
            )
        if not np.isfinite(v) or v < 0:
            raise InputError(f"{name}.{k} = {v!r} must be a finite count >= 0")
        out[k] = int(v) if float(v).is_integer() and not isinstance(v, float) else float(v)
    conf = Confusion(**out)
    if conf.n_pos <= 0 or conf.n_neg <= 0:
        raise InputError(
            f"{name} has no positive (tp + fn = 0) or no negative (fp + tn = 0) instances; "
            "the worst case needs both classes"
        )
    return conf


def confusion_counts(predicted, labels) -> Confusion:
    """Confusion counts of boolean ``predicted`` decisions against boolean ``labels``.

    Notes
    -----
    ``m_ij = |{d : d_2 = i and f(d_1) = j}|`` ([1]_, section "Notación").
    """
    pred = np.asarray(predicted, dtype=bool)
    y = np.asarray(labels, dtype=bool)
    tp = int(np.count_nonzero(pred & y))
    fp = int(np.count_nonzero(pred & ~y))
    n_pos = int(np.count_nonzero(y))
    return Confusion(tp=tp, fn=n_pos - tp, fp=fp, tn=y.size - n_pos - fp)


# --------------------------------------------------------------------------- fusers
@dataclass(frozen=True)
class TruthTable(Serialisable):
    """A fuser as data: the fused decision for every combination of component decisions.

    ``outputs[r]`` is the fused decision for row ``r``; the decision of component ``j``
    in row ``r`` is bit ``k - 1 - j`` of ``r`` (first component = most significant bit,
    the order of ``itertools.product([0, 1], repeat=k)``).
    """

    components: tuple[str, ...]
    outputs: tuple[bool, ...]

    def __post_init__(self) -> None:
        if len(self.outputs) != 2 ** len(self.components):
            raise InputError(
                f"a truth table over {len(self.components)} components needs "
                f"{2 ** len(self.components)} rows, got {len(self.outputs)}"
            )

    def fuse(self, decisions) -> np.ndarray:
        """Fused decisions of an ``(n, k)`` boolean array, columns in ``components`` order."""
        d = np.asarray(decisions, dtype=bool)
        k = len(self.components)
        weights = 1 << np.arange(k - 1, -1, -1)
        return np.asarray(self.outputs, dtype=bool)[d.astype(np.int64) @ weights]

    def non_monotone_row(self, component: str) -> tuple[int, ...] | None:
        """A row where switching ``component`` from n to p turns the fused p into n, or None.

        The method's assumptions ([1]_, "Especificación del problema": adding evidence can
        only improve the prediction) hold for every data set iff no such row exists.
        """
        k = len(self.components)
        j = self.components.index(component)
        out = np.asarray(self.outputs, dtype=bool)
        rows = np.arange(2**k)
        bit = 1 << (k - 1 - j)
        low = rows[(rows & bit) == 0]
        bad = low[out[low] & ~out[low | bit]]
        if bad.size == 0:
            return None
        r = int(bad[0])
        return tuple((r >> (k - 1 - i)) & 1 for i in range(k))


def make_fuser(kind: str, components) -> TruthTable:
    """The truth table of a named fuser over ``components``.

    Parameters
    ----------
    kind : {"and", "or", "majority"}
        ``and``: positive iff all say positive; ``or``: iff any does; ``majority``: iff
        strictly more than half do (a tie is negative).
    components : sequence of str
        Component names, in column order.
    """
    names = tuple(str(c) for c in components)
    if not names:
        raise InputError("a fuser needs at least one component")
    k = len(names)
    rows = np.arange(2**k)
    n_pos = ((rows[:, None] >> np.arange(k)) & 1).sum(axis=1)
    table = {"and": n_pos == k, "or": n_pos >= 1, "majority": 2 * n_pos > k}
    if kind not in table:
        raise InputError(f"unknown fuser {excerpt(kind)}; use one of {', '.join(FUSERS)} or "
                         "a table file")
    return TruthTable(names, tuple(bool(v) for v in table[kind]))


# --------------------------------------------------------------------------- intervention
@dataclass(frozen=True)
class InstanceTypes:
    """Instance types of the method per class ([1]_, "Comportamiento de instancias").

    Type 1: the system is right whatever the model says; type 3: right only if the model
    is right; type 4: wrong whatever the model says. Type 2 (right only if the model is
    wrong) cannot occur under the method's assumptions. The method's first list names types 2
    and 3 the other way round; its tables and formulas use the numbering above.
    """

    pos_type1: float
    pos_type3: float
    pos_type4: float
    neg_type1: float
    neg_type3: float
    neg_type4: float

    def to_dict(self) -> dict:
        return jsonable({
            "positive": {
                "type1": self.pos_type1,
                "type2": 0,
                "type3": self.pos_type3,
                "type4": self.pos_type4,
            },
            "negative": {
                "type1": self.neg_type1,
                "type2": 0,
                "type3": self.neg_type3,
                "type4": self.neg_type4,
            },
        })


def instance_types(system_pos: Confusion, system_neg: Confusion) -> InstanceTypes:
    """Counts of instance types 1, 3, 4 per class from the two intervened systems.

    Parameters
    ----------
    system_pos, system_neg : Confusion
        Confusion counts of the system with ``S* -> p`` and with ``S* -> n``, same data set.

    Returns
    -------
    InstanceTypes

    Notes
    -----
    Positive class ([1]_, "Fallos en peor caso"): type 1 = ``m_TP^{S*->n}``, type 4 =
    ``m_FN^{S*->p}``, type 3 = ``P - m_FN^{S*->p} - m_TP^{S*->n} = m_TP^{S*->p} -
    m_TP^{S*->n}``. Negative class, by the same argument: type 1 = ``m_TN^{S*->p}``,
    type 4 = ``m_FP^{S*->n}``, type 3 = ``m_TN^{S*->n} - m_TN^{S*->p}``.
    """
    sp = check_confusion(system_pos, "system_pos")
    sn = check_confusion(system_neg, "system_neg")
    if not (np.isclose(sp.n_pos, sn.n_pos) and np.isclose(sp.n_neg, sn.n_neg)):
        raise InputError(
            f"system_pos has {sp.n_pos} positives / {sp.n_neg} negatives but system_neg has "
            f"{sn.n_pos} / {sn.n_neg}; both intervened systems must be run on the same data"
        )
    pos3 = sp.tp - sn.tp
    neg3 = sn.tn - sp.tn
    if pos3 < 0:
        raise InputError(
            f"system_neg.tp = {sn.tp} exceeds system_pos.tp = {sp.tp}: the system finds more "
            "positives when S* says negative, against the method's assumption that adding "
            "evidence can only help; check that the two matrices are not swapped"
        )
    if neg3 < 0:
        raise InputError(
            f"system_pos.tn = {sp.tn} exceeds system_neg.tn = {sn.tn}: the system finds more "
            "negatives when S* says positive, against the method's assumption; check that the "
            "two matrices are not swapped"
        )
    return InstanceTypes(
        pos_type1=sn.tp,
        pos_type3=pos3,
        pos_type4=sp.fn,
        neg_type1=sp.tn,
        neg_type3=neg3,
        neg_type4=sn.fp,
    )


@dataclass(frozen=True)
class IntervenedCounts(Serialisable):
    """The counts the method works from: both intervened systems and the model alone.

    ``actual`` is the confusion of the system run with the model (known only when the
    component's decisions were given, case (b)).
    """

    system_pos: Confusion
    system_neg: Confusion
    model: Confusion
    actual: Confusion | None = None


def intervene(decisions, labels, components, component: str, fuser) -> IntervenedCounts:
    """Confusion counts of the system with ``component`` intervened, and of the component.

    Parameters
    ----------
    decisions : array_like of bool, shape (n, k)
        Decision of each component on each instance (True = positive).
    labels : array_like of bool, shape (n,)
        True class (True = positive).
    components : sequence of str
        Names of the k columns.
    component : str
        The component ``S*`` being replaced.
    fuser : {"and", "or", "majority"} or TruthTable
        How decisions are combined.

    Returns
    -------
    IntervenedCounts

    Notes
    -----
    The intervened system replaces column ``S*`` by a constant ([1]_, "Intervención").
    """
    names = tuple(str(c) for c in components)
    if len(set(names)) != len(names):
        raise InputError(f"component names must be unique, got {list(names)}")
    d = np.asarray(decisions)
    y = np.asarray(labels)
    if d.ndim != 2 or d.shape[1] != len(names):
        raise InputError(
            f"decisions must have one column per component ({len(names)}); got shape {d.shape}"
        )
    if y.shape != (d.shape[0],):
        raise InputError(
            f"labels has {y.size} values but decisions has {d.shape[0]} rows; give one label "
            "per instance, in the same order"
        )
    for arr, what in ((d, "decisions"), (y, "labels")):
        bad = ~np.isin(arr, (0, 1))
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise InputError(f"{what}{list(idx)} = {arr[idx]!r} is not binary; use 0/1")
    d = d.astype(bool)
    y = y.astype(bool)
    if component not in names:
        raise InputError(f"unknown component {excerpt(component)}; the components are "
                         f"{shown(names)}")
    table = make_fuser(fuser, names) if isinstance(fuser, str) else fuser
    if tuple(table.components) != names:
        raise InputError(
            f"the truth table's components {list(table.components)} differ from the "
            f"decision columns {list(names)}; use the same names in the same order"
        )
    row = table.non_monotone_row(component)
    if row is not None:
        raise InputError(
            f"the fuser is not monotone in {excerpt(component)}: in row "
            f"{dict(zip(names, row, strict=True))} "
            "switching it to 1 turns the fused decision from 1 to 0; the method's worst case "
            "assumes that a positive from the component can never remove a positive"
        )
    j = names.index(component)
    forced = d.copy()
    forced[:, j] = True
    sys_pos = confusion_counts(table.fuse(forced), y)
    forced[:, j] = False
    sys_neg = confusion_counts(table.fuse(forced), y)
    return IntervenedCounts(
        system_pos=sys_pos,
        system_neg=sys_neg,
        model=confusion_counts(d[:, j], y),
        actual=confusion_counts(table.fuse(d), y),
    )


def transfer_confusion(conf: Confusion, n_pos: float, n_neg: float) -> Confusion:
    """Rescale confusion counts to a data set with ``n_pos`` positives and ``n_neg`` negatives.

    Notes
    -----
    Each count is divided by the size of its true class and multiplied by the size of that
    class in the model's data set ([1]_, "Datasets distintos"):
    ``m_ij' = m_ij / n_i * n_i'``. With equal class sizes this is the identity.
    """
    c = check_confusion(conf)
    if not (n_pos > 0 and n_neg > 0):
        raise InputError(f"class sizes must be > 0, got n_pos={n_pos}, n_neg={n_neg}")
    if c.n_pos == n_pos and c.n_neg == n_neg:
        return c
    fp_, fn_ = n_pos / c.n_pos, n_neg / c.n_neg
    return Confusion(tp=c.tp * fp_, fn=c.fn * fp_, fp=c.fp * fn_, tn=c.tn * fn_)


# --------------------------------------------------------------------------- worst case
def _worst_errors(fn_p, tp_p, tp_n, fn_m, fp_n, tn_n, tn_p, fp_m):
    """Seed formulas (vectorised): worst FN and worst FP of the fused system."""
    worst_fn = fn_p + np.minimum(fn_m, tp_p - tp_n)
    worst_fp = fp_n + np.minimum(fp_m, tn_n - tn_p)
    return worst_fn, worst_fp


@dataclass(frozen=True)
class WorstCase:
    """Worst-case errors of the fused system with a model of the given confusion matrix.

    Counts refer to the model's data set (``n_pos`` positives, ``n_neg`` negatives);
    ``transferred`` says whether the system counts were rescaled to it.
    """

    counts: IntervenedCounts
    transferred: bool
    system_pos: Confusion
    system_neg: Confusion
    types: InstanceTypes
    n_pos: float
    n_neg: float
    worst_fn: float
    worst_fp: float

    @property
    def worst_errors(self) -> float:
        return self.worst_fn + self.worst_fp

    @property
    def worst_fnr(self) -> float:
        return self.worst_fn / self.n_pos

    @property
    def worst_fpr(self) -> float:
        return self.worst_fp / self.n_neg

    @property
    def worst_error_rate(self) -> float:
        return self.worst_errors / (self.n_pos + self.n_neg)

    def to_dict(self) -> dict:
        out = {
            "input": self.counts.to_dict(),
            "transferred": self.transferred,
            "system_pos": self.system_pos.to_dict(),
            "system_neg": self.system_neg.to_dict(),
            "instance_types": self.types.to_dict(),
            "n_pos": self.n_pos,
            "n_neg": self.n_neg,
            "worst_fn": self.worst_fn,
            "worst_fp": self.worst_fp,
            "worst_errors": self.worst_errors,
            "worst_fnr": float(self.worst_fnr),
            "worst_fpr": float(self.worst_fpr),
            "worst_error_rate": float(self.worst_error_rate),
        }
        actual = self.counts.actual
        if actual is not None:
            out["actual_errors"] = actual.fn + actual.fp
        return jsonable(out)


def worst_case(system_pos, system_neg, model, *, actual=None) -> WorstCase:
    """Worst-case number of errors of the fused system run with a model like ``model``.

    Parameters
    ----------
    system_pos, system_neg : Confusion or mapping
        Confusion counts of the system with ``S* -> p`` and ``S* -> n`` (same data set).
    model : Confusion or mapping
        Confusion counts of the candidate model ``M``, possibly on another data set; the
        system counts are then rescaled to it (:func:`transfer_confusion`).
    actual : Confusion, optional
        Confusion of the system actually run with ``M`` (reported, not used).

    Returns
    -------
    WorstCase

    Notes
    -----
    From [1]_ ("Fallos en peor caso"), the adversary puts the model's false negatives on
    type-3 positives first::

        worst FN = m_FN^{S*->p} + min(m_FN^M, m_TP^{S*->p} - m_TP^{S*->n})
        worst FP = m_FP^{S*->n} + min(m_FP^M, m_TN^{S*->n} - m_TN^{S*->p})

    and the worst cost (hits cost 0, errors 1) is their sum. It is the maximum of
    ``FN + FP`` over every assignment of ``M``'s decisions to instances with ``M``'s
    confusion matrix ("Problema 1").
    """
    m = check_confusion(model, "model")
    sp0 = check_confusion(system_pos, "system_pos")
    sn0 = check_confusion(system_neg, "system_neg")
    instance_types(sp0, sn0)  # checks the two matrices agree before rescaling
    sp = transfer_confusion(sp0, m.n_pos, m.n_neg)
    sn = transfer_confusion(sn0, m.n_pos, m.n_neg)
    types = instance_types(sp, sn)
    worst_fn, worst_fp = _worst_errors(sp.fn, sp.tp, sn.tp, m.fn, sn.fp, sn.tn, sp.tn, m.fp)
    return WorstCase(
        counts=IntervenedCounts(sp0, sn0, m, actual),
        transferred=not (sp0.n_pos == m.n_pos and sp0.n_neg == m.n_neg),
        system_pos=sp,
        system_neg=sn,
        types=types,
        n_pos=m.n_pos,
        n_neg=m.n_neg,
        worst_fn=worst_fn.item(),
        worst_fp=worst_fp.item(),
    )


def worst_case_from_decisions(decisions, labels, components, component, fuser) -> WorstCase:
    """:func:`intervene` then :func:`worst_case` on one labelled data set (case (b))."""
    c = intervene(decisions, labels, components, component, fuser)
    return worst_case(c.system_pos, c.system_neg, c.model, actual=c.actual)


# --------------------------------------------------------------------------- simulation study
# Joint correctness outcomes of (other component, model S*): both right, only the other,
# only the model, both wrong -- the order of the last axis of the probability arrays.
_X_OTHER = np.array([1, 1, 0, 0])
_X_MODEL = np.array([1, 0, 1, 0])


def joint_correct_probabilities(acc_other, acc_model, rho) -> np.ndarray:
    """Joint law of two correlated Bernoulli correctness indicators.

    Parameters
    ----------
    acc_other, acc_model : array_like
        Per-class accuracies (probability of a right decision) of the two components.
    rho : array_like
        Pearson correlation of the two indicators.

    Returns
    -------
    ndarray, shape (..., 4)
        P(both right), P(only other right), P(only model right), P(both wrong).

    Notes
    -----
    With accuracies ``a``, ``b`` and correlation ``rho``,
    ``P11 = a b + rho sqrt(a (1 - a) b (1 - b))``, ``P10 = a - P11``, ``P01 = b - P11``,
    ``P00 = 1 - a - b + P11``; a valid law needs ``max(0, a + b - 1) <= P11 <= min(a, b)``
    (the method's "correlaciones válidas para los accuracies", [1]_ "Experimento 2").
    """
    a, b, r = np.broadcast_arrays(
        np.asarray(acc_other, dtype=float),
        np.asarray(acc_model, dtype=float),
        np.asarray(rho, dtype=float),
    )
    for arr, what in ((a, "acc_other"), (b, "acc_model")):
        if not np.all((arr >= 0) & (arr <= 1)):
            raise InputError(f"{what} must lie in [0, 1]; got {arr[~((arr >= 0) & (arr <= 1))][0]}")
    if not np.all(np.abs(r) <= 1):
        raise InputError(f"rho must lie in [-1, 1]; got {r[~(np.abs(r) <= 1)][0]}")
    p11 = a * b + r * np.sqrt(a * (1 - a) * b * (1 - b))
    probs = np.stack([p11, a - p11, b - p11, 1 - a - b + p11], axis=-1)
    if np.any(probs < -1e-12):
        i = np.unravel_index(int(np.argmax((probs < -1e-12).any(axis=-1))), a.shape)
        lo = max(0.0, a[i] + b[i] - 1) - a[i] * b[i]
        hi = min(a[i], b[i]) - a[i] * b[i]
        sd = np.sqrt(a[i] * (1 - a[i]) * b[i] * (1 - b[i]))
        raise InputError(
            f"rho = {r[i]} is impossible for accuracies {a[i]} and {b[i]}; choose rho in "
            f"[{lo / sd:.6g}, {hi / sd:.6g}]"
        )
    probs = np.clip(probs, 0.0, 1.0)
    return probs / probs.sum(axis=-1, keepdims=True)


@dataclass(frozen=True)
class SimulationResult:
    """Worst case against real errors over simulation replicates ([1]_, "Experimentación").

    Arrays hold one value per replicate: ``worst_errors`` (worst-case FN + FP from the
    transferred intervened counts) and ``real_errors`` (FN + FP of the system actually run
    with the model on the model's data set).
    """

    n_system: int
    n_model: int
    seed: int
    worst_errors: np.ndarray = field(repr=False)
    real_errors: np.ndarray = field(repr=False)

    @property
    def n_rep(self) -> int:
        return int(self.worst_errors.size)

    @property
    def p_worst_ge_real(self) -> float:
        """Share of replicates with worst >= real errors: estimates P(PeorCaso >= EvalReal)."""
        return float(np.mean(self.worst_errors >= self.real_errors))

    @property
    def standard_error(self) -> float:
        """Binomial standard error ``sqrt(p (1 - p) / n_rep)`` of :attr:`p_worst_ge_real`."""
        p = self.p_worst_ge_real
        return float(np.sqrt(p * (1 - p) / self.n_rep))

    @property
    def ratio(self) -> np.ndarray:
        """``EvalReal / PeorCaso`` per replicate (the method's Experiment 2); NaN if worst is 0."""
        w = self.worst_errors
        return np.divide(self.real_errors, w, out=np.full(w.shape, np.nan), where=w > 0)

    def to_dict(self) -> dict:
        ratio = self.ratio
        finite = ratio[np.isfinite(ratio)]
        q = np.quantile(finite, [0.5, 0.95, 0.99]) if finite.size else [np.nan] * 3
        return jsonable({
            "n_system": self.n_system,
            "n_model": self.n_model,
            "n_rep": self.n_rep,
            "seed": self.seed,
            "p_worst_ge_real": self.p_worst_ge_real,
            "standard_error": self.standard_error,
            "mean_worst_errors": float(self.worst_errors.mean()),
            "mean_real_errors": float(self.real_errors.mean()),
            "ratio_median": float(q[0]),
            "ratio_q95": float(q[1]),
            "ratio_q99": float(q[2]),
            "ratio_max": float(finite.max()) if finite.size else float("nan"),
            "share_ratio_above_1": float(np.mean(finite > 1)) if finite.size else float("nan"),
        })


def _fuser_outputs(fuser, n_rep: int) -> np.ndarray:
    """(n_rep, 4) outputs of 2-component truth tables indexed by 2 d_other + d_model."""
    kinds = np.broadcast_to(np.asarray(fuser), (n_rep,))
    bad = ~np.isin(kinds, ("or", "and"))
    if bad.any():
        raise InputError("the simulation fuser must be 'or' or 'and', got "
                         f"{excerpt(kinds[bad][0])}")
    rows = {k: np.asarray(make_fuser(k, ("other", "model")).outputs) for k in ("or", "and")}
    return np.where((kinds == "or")[:, None], rows["or"], rows["and"])


def simulate_worst_case(
    n_system: int,
    n_model: int,
    *,
    acc_pos=(0.5, 0.5),
    acc_neg=(0.5, 0.5),
    rho_pos=0.95,
    rho_neg=-0.95,
    fuser="or",
    n_rep: int = 1000,
    seed: int = 0,
) -> SimulationResult:
    """The method's simulation study: is the worst case at least the real error?

    Parameters
    ----------
    n_system, n_model : int
        Instances per class in the system's data set and in the model's data set.
    acc_pos, acc_neg : array_like, shape (2,) or (n_rep, 2)
        Accuracies of (other component, model) on positives and on negatives.
    rho_pos, rho_neg : array_like, scalar or (n_rep,)
        Correlation of the two correctness indicators within each class.
    fuser : {"or", "and"} or array of those, shape (n_rep,)
    n_rep : int
        Number of replicates.
    seed : int
        Seed of ``numpy.random.default_rng``; the same seed gives the same result.

    Returns
    -------
    SimulationResult

    Notes
    -----
    Per replicate ([1]_, "Experimentación"): the system with the model slot intervened is
    run on ``n_system`` instances per class, its counts are rescaled to the model's data set
    (:func:`transfer_confusion`), the worst case is computed from them and from the model's
    confusion on ``n_model`` instances per class, and compared with the errors of the
    system actually run with the model on those instances. The defaults are the method's
    Experiment 1 (accuracies 0.5, OR, rho 0.95 on positives and -0.95 on negatives).
    Only the counts of the four joint outcomes per class matter, so each data set is drawn
    as one multinomial per class and replicate -- the same law as ``n`` independent
    per-instance draws, at O(n_rep) cost.
    """
    for v, what in ((n_system, "n_system"), (n_model, "n_model"), (n_rep, "n_rep")):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InputError(f"{what} must be an integer >= 1, got {excerpt(v)}")
    acc_pos = np.broadcast_to(np.asarray(acc_pos, dtype=float), (n_rep, 2))
    acc_neg = np.broadcast_to(np.asarray(acc_neg, dtype=float), (n_rep, 2))
    p_pos = joint_correct_probabilities(acc_pos[:, 0], acc_pos[:, 1], rho_pos)
    p_neg = joint_correct_probabilities(acc_neg[:, 0], acc_neg[:, 1], rho_neg)
    p_pos = np.broadcast_to(p_pos, (n_rep, 4))
    p_neg = np.broadcast_to(p_neg, (n_rep, 4))
    out = _fuser_outputs(fuser, n_rep).astype(bool)

    rng = np.random.default_rng(seed)
    sys_pos = rng.multinomial(n_system, p_pos)
    sys_neg = rng.multinomial(n_system, p_neg)
    mod_pos = rng.multinomial(n_model, p_pos)
    mod_neg = rng.multinomial(n_model, p_neg)

    def fused(d_other, d_model):  # (n_rep, 4) fused decision for each joint outcome
        return np.take_along_axis(out, np.broadcast_to(2 * d_other + d_model, (n_rep, 4)), 1)

    # Positive instances: a component says p iff it is right; negatives: iff it is wrong.
    xo, xm = _X_OTHER, _X_MODEL
    tp_p = (sys_pos * fused(xo, 1)).sum(axis=1)
    tp_n = (sys_pos * fused(xo, 0)).sum(axis=1)
    tn_p = (sys_neg * ~fused(1 - xo, 1)).sum(axis=1)
    tn_n = (sys_neg * ~fused(1 - xo, 0)).sum(axis=1)
    scale = n_model / n_system  # per-class accuracy rescaling, equal class sizes
    fn_m = mod_pos @ (1 - xm)
    fp_m = mod_neg @ (1 - xm)
    worst_fn, worst_fp = _worst_errors(
        (n_system - tp_p) * scale,
        tp_p * scale,
        tp_n * scale,
        fn_m,
        (n_system - tn_n) * scale,
        tn_n * scale,
        tn_p * scale,
        fp_m,
    )
    real = (mod_pos * ~fused(xo, xm)).sum(axis=1) + (mod_neg * fused(1 - xo, 1 - xm)).sum(axis=1)
    return SimulationResult(
        n_system=int(n_system),
        n_model=int(n_model),
        seed=int(seed),
        worst_errors=worst_fn + worst_fp,
        real_errors=real.astype(float),
    )


def random_scenarios(n_rep: int, seed: int = 0) -> dict:
    """Random parameters for the method's Experiment 2, as keyword arguments of the simulation.

    Accuracies are uniform on [0, 1] per component and class, the fuser is OR or AND with
    probability 1/2, and each correlation is uniform over the interval valid for its
    accuracies (``P11`` uniform on ``[max(0, a + b - 1), min(a, b)]``). The method says only
    "random"; these laws are this implementation's choice.
    """
    rng = np.random.default_rng(seed)
    acc = rng.random((2, n_rep, 2))
    fuser = np.where(rng.random(n_rep) < 0.5, "or", "and")
    u = rng.random((2, n_rep))
    a, b = acc[..., 0], acc[..., 1]
    lo, hi = np.maximum(0.0, a + b - 1), np.minimum(a, b)
    p11 = lo + u * (hi - lo)
    sd = np.sqrt(a * (1 - a) * b * (1 - b))
    rho = np.divide(p11 - a * b, sd, out=np.zeros_like(sd), where=sd > 0)
    rho = np.clip(rho, -1.0, 1.0)
    return {
        "acc_pos": acc[0],
        "acc_neg": acc[1],
        "rho_pos": rho[0],
        "rho_neg": rho[1],
        "fuser": fuser,
    }


# --------------------------------------------------------------------------- files

