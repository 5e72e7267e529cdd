"""Read the score files a case names: the one reader path of ``forensic-lr run`` and ``check``.

:func:`load_background` reads ``[background] ss``/``ds`` (or one labelled ``scores`` file)
and :func:`load_extra_inputs` the extra score files a method declares (``suspect_ss``,
``unlabelled``), both with the case's reading options (``score_column``, ``label_column``,
``source_column``, ``decimal``, ``sheet``) and its score direction. The case pipeline and
the readiness check call these two functions, so ``check`` says "ready" exactly for the
files ``run`` reads, and refuses exactly what ``run`` refuses, with the same message.
"""

from __future__ import annotations

import numpy as np

from ..calibration import extra_inputs
from ..errors import InputError
from ..io.scores import ScoreSet, load_scores, orient, read_class_file
from ..records import FusionModel, MeasurementModel, ScoreSummary
from .spec import CaseSpec

__all__ = [
    "load_background", "load_background_and_fusion", "load_extra_inputs", "load_fused",
    "load_measured", "load_measured_case",
]


def _summary(values: np.ndarray, file: str, sha256: str) -> ScoreSummary:
    return ScoreSummary(
        file=file,
        sha256=sha256,
        n=int(values.size),
        minimum=float(values.min()),
        maximum=float(values.max()),
        mean=float(values.mean()),
        sd=float(values.std(ddof=1)) if values.size > 1 else 0.0,
    )


def load_background(
    spec: CaseSpec,
) -> tuple[ScoreSet, dict[str, ScoreSummary], dict[str, str], list[dict]]:
    """Scores as used, a summary of each class, and provenance (see
    :func:`load_background_and_fusion`, whose first four values these are)."""
    return load_background_and_fusion(spec)[:4]


def load_background_and_fusion(
    spec: CaseSpec,
) -> tuple[ScoreSet, dict[str, ScoreSummary], dict[str, str], list[dict], FusionModel | None]:
    """Scores as used, a summary of each class on the scale of the files, and provenance.

    Returns the score set (direction applied: higher supports Hp), the summaries by class
    (``"ss"``, ``"ds"``), ``{name: SHA-256}``, the provenance record of every file read
    (names relative to the case file; hashes of the original bytes) and, for a ``[fusion]``
    case, the fusion's record (the scores are then the out-of-fold fused LLRs).

    Raises
    ------
    InputError
        A file that cannot be read as the case's reading options say; the message starts
        with ``[background]`` and names the file, line and column.
    """
    if spec.measurements is not None:
        return (*load_measured(spec)[:4], None)
    bg = spec.background
    direction = spec.evidence.score_direction
    if bg.scores is not None:
        names = {"ss": bg.scores, "ds": bg.scores}
        paths = {"scores": str(spec.resolve(bg.scores))}
    else:
        names = {"ss": bg.ss, "ds": bg.ds}
        paths = {"ss": str(spec.resolve(bg.ss)), "ds": str(spec.resolve(bg.ds))}
    fusion = None
    if spec.fusion is not None:
        fused = load_fused(spec)
        data, fusion = fused.data, fused.record
    else:
        try:
            data = load_scores(**paths, direction=direction, **bg.reading())
        except InputError as exc:
            raise InputError(f"[background]: {exc}") from None
    relative = {str(spec.resolve(n)): n for n in names.values()}
    files = [{**p.to_dict(), "name": relative.get(p.name, p.name)} for p in data.inputs]
    hashes = {f["name"]: f["sha256"] for f in files}
    summaries = {
        k: _summary(orient(getattr(data, k), direction), names[k], hashes[names[k]])
        for k in names
    }
    return data, summaries, hashes, files, fusion


def load_extra_inputs(
    spec: CaseSpec, hashes: dict[str, str], files: list[dict],
) -> tuple[dict[str, np.ndarray], dict[str, ScoreSummary]]:
    """The extra score inputs the method declares (``[background] suspect_ss``, ...).

    Returns them score-like (direction applied) and a summary per file, by case key; adds
    each file's SHA-256 to ``hashes`` and its provenance to ``files``.

    Raises
    ------
    InputError
        A file that cannot be read; the message starts with ``[background] KEY``.
    """
    direction = spec.evidence.score_direction
    bg = spec.background
    extra, summaries = {}, {}
    for key in extra_inputs():
        name = getattr(bg, key, None)
        if name is None:
            continue
        try:
            read = read_class_file(spec.resolve(name), label=key, score_column=bg.score_column,
                                   decimal=bg.decimal, sheet=bg.sheet)
        except InputError as exc:
            raise InputError(f"[background] {key}: {exc}") from None
        hashes[name] = read.provenance.sha256
        files.append({**read.provenance.to_dict(), "name": name})
        summaries[key] = _summary(read.values, name, hashes[name])
        extra[key] = orient(read.values, direction)
    return extra, summaries


def load_fused(spec: CaseSpec):
    """The :class:`~forensic_lr.casework.fused.FusedBackground` of a ``[fusion]`` case:
    the background's out-of-fold fused LLRs (the scores the case calibrates) and the
    fusion's record."""
    from .fused import fused_background

    return fused_background(spec)


def load_measured(
    spec: CaseSpec,
) -> tuple[ScoreSet, dict[str, ScoreSummary], dict[str, str], list[dict], MeasurementModel]:
    """:func:`load_background` of a case from ``[measurements]``, and its record.

    The background is the population database's comparisons
    (:func:`~forensic_lr.casework.measured.measured_background`, folds and seed of the case),
    with both source ids of every comparison (so the case's validation folds by source);
    the summaries name the database, the provenance lists the database and the items file.
    """
    return load_measured_case(spec)[:5]


def load_measured_case(spec: CaseSpec):
    """:func:`load_measured` and the case's bootstrap, which refits the feature model in
    every replicate (:func:`~forensic_lr.casework.measured.measured_bootstrap`), from one
    read of the tables."""
    from .measured import measured_background, measured_bootstrap, measurement_record

    section = spec.measurements
    direction = spec.evidence.score_direction
    paths = {key: spec.resolve(getattr(section, key)) for key in ("database", "items")}
    try:
        background, population, items, replicates = measured_background(
            section, paths["database"], paths["items"], folds=spec.validation.folds,
            seed=spec.uncertainty.seed)
    except InputError as exc:
        raise InputError(f"[measurements] {exc}") from None
    files = [{**t.provenance.to_dict(), "name": name}
             for t, name in ((population, section.database), (items, section.items))]
    hashes = {f["name"]: f["sha256"] for f in files}
    data = ScoreSet(
        ss=orient(background.ss, direction), ds=orient(background.ds, direction),
        files=dict(hashes), ss_sources=background.pairs.ss_sources,
        ds_sources=background.pairs.ds_sources,
        inputs=(population.provenance, items.provenance),
    )
    summaries = {k: _summary(getattr(background, k), section.database, hashes[section.database])
                 for k in ("ss", "ds")}
    record = measurement_record(section, background, population, items, replicates)
    bootstrap = measured_bootstrap(spec, background, population, items)
    return data, summaries, hashes, files, record, bootstrap
