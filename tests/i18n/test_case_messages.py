"""The case records' prose as codes (uncertainty statements, interval notes, sensitivity
summaries): the English sentences as the records wrote them before they became codes (typed
here by hand), the translations printed from the codes, and every catalogue complete."""

from __future__ import annotations

import pytest
from babel.messages.pofile import read_po

from forensic_lr.casework.sensitivity import summarise, summary_messages
from forensic_lr.i18n import SUPPORTED_LANGUAGES, catalogue_path
from forensic_lr.i18n.messages import english, message_text, statement
from forensic_lr.records import Message, Sensitivity, SensitivityBootstrap, SensitivityRow

TRANSLATED = [lang for lang in SUPPORTED_LANGUAGES if lang != "en"]

#: codes whose sentence states what the LR is (or is limited to): their translations carry
#: a literal back-translation for the reviewer
ABOUT_THE_LR = ("evidence.limited.largest", "evidence.limited.smallest", "sensitivity.across",
                "sensitivity.elub.beyond", "sensitivity.elub.within")


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_no_fuzzy_or_empty_entry(language):
    """A fuzzy entry is left out when loaded (it would be missing); say so by name."""
    with catalogue_path(language, "messages").open("rb") as handle:
        catalog = read_po(handle)
    bad = [m.id for m in catalog if m.id and (m.fuzzy or not m.string.strip())]
    assert not bad, f"{language}: fuzzy or empty entries {bad}"
    if language != "en":
        comments = {m.id: " ".join(m.user_comments + m.auto_comments) for m in catalog if m.id}
        missing = [c for c in ABOUT_THE_LR if "back-translation:" not in comments.get(c, "")]
        assert not missing, f"{language}: no back-translation for {missing}"


def _limited(which="largest", collapsed=False, clip=""):
    interval = {"level": "95 %", "low": "+3.20", "high": "+3.56",
                "collapsed_code": "evidence.interval.collapsed" if collapsed else "",
                "clip_code": clip, "end_1": "+2.45", "end_2": "-2.00"}
    return [Message(code=f"evidence.limited.{which}",
                    params={"lr": "280", "log10": "+2.45", "model_lr": "2,400",
                            "model_log10": "+3.37"}),
            Message(code="evidence.interval.credible", params=interval)]


def test_uncertainty_statement_in_english_as_before():
    # the voice case's statement, as the f-strings of casework/evidence.py wrote it
    assert statement(_limited(clip="evidence.interval.beyond_bound")) == (
        "LR limited to 280 (log10 LR +2.45), the largest LR the validation data support "
        "(ELUB); the model gives 2,400 (log10 LR +3.37); the model's 95 % credible interval "
        "of log10 LR is +3.20 to +3.56, entirely beyond the ELUB bound.")
    boot = Message(code="evidence.interval.bootstrap",
                   params={"level": "90 %", "low": "-0.50", "high": "+3.10",
                           "collapsed_code": "", "clip_code": "evidence.interval.reaches_1",
                           "end_1": "+2.45"})
    assert statement([boot]) == ("The model's 90 % bootstrap interval of log10 LR is -0.50 "
                                 "to +3.10; limited to the ELUB it reaches +2.45.")
    both = _limited("smallest", collapsed=True, clip="evidence.interval.reaches_2")
    assert statement(both).endswith(
        "the smallest LR the validation data support (ELUB); the model gives 2,400 (log10 LR "
        "+3.37); the model's 95 % credible interval of log10 LR is +3.20 to +3.56 (not "
        "estimable: both ends print the same value); limited to the ELUB it reaches +2.45 "
        "and -2.00.")
    assert english("interval.degenerate", n="12", total="1000") == (
        "12 of 1000 replicates were degenerate and were left out")
    assert english("interval.not_estimable", log10="+2.45") == (
        "not estimable: both ends at log10 LR +2.45")


def test_uncertainty_statement_translated():
    """Hand-written Spanish and German of the voice case's statement, CLDR marks."""
    es = statement(_limited(clip="evidence.interval.beyond_bound"), "es")
    assert es == ("LR limitada a 280 (log10 LR +2,45), la mayor LR que respaldan los datos de "
                  "validación (ELUB); el modelo da 2.400 (log10 LR +3,37); el intervalo creíble "
                  "del 95 % del modelo para log10 LR va de +3,20 a +3,56, enteramente más allá "
                  "del límite ELUB.")
    de = statement(_limited(clip="evidence.interval.reaches_2"), "de")
    assert de.startswith("LR begrenzt auf 280 (log10 LR +2,45), die größte LR, die die "
                         "Validierungsdaten stützen (ELUB); das Modell ergibt 2.400")
    assert de.endswith("erreicht es +2,45 und -2,00.")


def _sensitivity(levels, collapsed=False, elub=(-2.0, 2.45)):
    rows = tuple(SensitivityRow(group="calibrator", label=name, calibrator=name,
                                log10_lr=(v,), levels=(lv,))
                 for name, v, lv in (("logistic", 2.48, levels[0]), ("kde", 3.39, levels[-1])))
    boot = SensitivityBootstrap(by="source", n=200, n_failed=3, level=0.95, seed=1,
                                log10_lr_low=(3.25,), log10_lr_median=(3.4,),
                                log10_lr_high=(3.55,), collapsed=(collapsed,))
    return Sensitivity(labels=("Q1-K1",), elub_applied=True, elub_log10=elub,
                       case_calibrator="logistic", case_log10_lr=(2.48,), rows=rows,
                       bootstrap=boot, spread_log10=(0.91,), levels_reached=(tuple(levels),))


def test_sensitivity_summary_in_english_as_before():
    s = _sensitivity(("moderate support", "moderately strong support", "strong support"))
    assert summarise(s) == ((
        "Q1-K1: across 2 calibration methods, log10 LR ranges from +2.48 to +3.39 (a spread "
        "of 0.91 log10 units, a factor of about 8.1 in the LR); the verbal equivalent changes "
        "between \u201cmoderate support\u201d, \u201cmoderately strong support\u201d and "
        "\u201cstrong support\u201d. Refitting the case's method on 197 bootstrap resamples "
        "of the background (by source) gives 95 % of the values between +3.25 and +3.55. "
        "These are the models' own values, unbounded; the reported LR is limited to the ELUB "
        "of the validation data, log10 LR -2.00 to +2.45, which 2 of the 2 values above lie "
        "beyond."),)
    one = _sensitivity(("strong support",), collapsed=True, elub=(-4.0, 4.0))
    assert summarise(one) == ((
        "Q1-K1: across 2 calibration methods, log10 LR ranges from +2.48 to +3.39 (a spread "
        "of 0.91 log10 units, a factor of about 8.1 in the LR); the verbal equivalent is "
        "\u201cstrong support\u201d under every one of them. Refitting the case's method on "
        "197 bootstrap resamples of the background (by source) gives log10 LR +3.25 in every "
        "resample (the value is held at a bound, so no range can be estimated there). These "
        "are the models' own values, unbounded; the reported LR is limited to the ELUB of the "
        "validation data, log10 LR -4.00 to +4.00, within which every value above lies."),)


def test_sensitivity_summary_levels_in_the_scale_wording():
    """Verbal levels go through the caller's wording and are quoted the language's way."""
    s = _sensitivity(("moderate support", "strong support"))
    first = summary_messages(s)[0][0]
    words = {"moderate support": "apoyo moderado", "strong support": "apoyo fuerte"}
    text = message_text(first.code, first.params, "es", level=words.get)
    assert text.endswith("el equivalente verbal cambia entre «apoyo moderado» y «apoyo fuerte».")
    fr = message_text(first.code, first.params, "fr")
    assert "«\u00a0moderate support\u00a0» et «\u00a0strong support\u00a0»" in fr


# the warnings as the f-strings of casework/evidence.py, pipeline.py and calibration/base.py
# wrote them, with hand-chosen values
WARNINGS = {
    ("warning.beyond_elub", (("label", "Q1-K1"), ("log10", "+3.37"), ("low", "-2.00"),
                             ("high", "+2.45"), ("bound", "+2.45"))):
        "Q1-K1: log10 LR +3.37 lies beyond the empirical bounds the validation data support "
        "(ELUB, -2.00 to +2.45); ELUB bounding is off: with it the LR would be limited to "
        "log10 LR +2.45",
    ("warning.beyond_elub.score", (("score", "3.5"), ("log10", "+2.67"), ("low", "-0.97"),
                                   ("high", "+1.06"), ("bound", "+1.06"))):
        "score 3.5: log10 LR +2.67 lies beyond the empirical bounds the validation data "
        "support (ELUB, -0.97 to +1.06); ELUB bounding is off: with it the LR would be "
        "limited to log10 LR +1.06",
    ("warning.extrapolation.distance", (("score", "0.5"), ("low", "1.25"), ("high", "9"))):
        "distance 0.5 lies outside the range of the background distances [1.25, 9]: its LR "
        "is an extrapolation of the model",
    ("warning.small_class.same_source", (("n", "12"), ("min", "20"))):
        "only 12 same-source background scores (fewer than 20): the fitted model and the LR "
        "are uncertain",
    ("warning.same_background", (("n", "300"),)):
        "the same-source and different-source background scores are the same 300 values "
        "(the same file given for both?): they cannot tell the propositions apart and every "
        "LR means nothing; give the same-source and the different-source files",
    ("warning.criterion_not_met.bound", (("name", "cllr_max"), ("short_term", "Cllr"),
                                         ("value", "0.198"), ("comparison", "<="),
                                         ("threshold", "0.1"), ("bound", "0.328"))):
        "validation criterion cllr_max not met: cross-validated Cllr = 0.198, one-sided 95 % "
        "bound 0.328, required <= 0.1",
    ("warning.criterion_not_met", (("name", "eer_max"), ("short_term", "EER"),
                                   ("value", "3.9 %"), ("comparison", "<="),
                                   ("threshold", "5 %"))):
        "validation criterion eer_max not met: cross-validated EER = 3.9 %, required <= 5 %",
    ("warning.elub_failed", (("error", "fold 3: too few scores"),)):
        "the ELUB bounds could not be computed, because the cross-validation failed: fold 3: "
        "too few scores",
    # the fits', checks' and intervals' own warnings, as metrics/llr_checks.py,
    # calibration/scal.py, unsupervised.py, checks.py, suspect_map.py, uncertainty.py,
    # validation/method.py and replicates.py wrote them
    ("warning.swapped.scores.mean", (("ss", "-1.2"), ("ds", "0.5"))):
        "the mean same-source score (-1.2) lies below the mean different-source one (0.5), "
        "but higher scores must support the same-source proposition: check that the "
        "same-source and different-source values are not swapped, and that the scores are "
        "not distances",
    ("warning.swapped.llrs.median", (("ss", "-1.2"), ("ds", "0.5"))):
        "the median same-source LLR (-1.2) lies below the median different-source one (0.5), "
        "but higher LLRs must support the same-source proposition: check that the "
        "same-source and different-source values are not swapped",
    ("warning.swapped.distances.mean", (("ss", "3.5"), ("ds", "1.25"))):
        "the mean same-source distance (3.5) lies above the mean different-source one "
        "(1.25), but lower distances must support the same-source proposition: check that "
        "the same-source and different-source values are not swapped, and that the scores "
        "are distances",
    ("warning.swapped.values.mean", (("ss", "0.1"), ("ds", "0.2"))):
        "the mean same-source value (0.1) lies below the mean different-source one (0.2), but "
        "higher values must support the same-source proposition: check that the same-source "
        "and different-source values are not swapped",
    ("warning.scal.limit_reached", (("limit", "20"),)):
        "an S-cal limit reached the allowed maximum |llr| = 20: the background shows no "
        "saturation on that side (e.g. a linear LLR or separated classes), so that limit is "
        "the max_abs_llr setting, not an estimate",
    ("warning.unsupervised.few_unlabelled", (("n", "40"),)):
        "only 40 unlabelled scores: the mixture estimate is uncertain",
    ("warning.unsupervised.small_component.same_source", (("n", "3.2"), ("floor", "5"))):
        "the unlabelled scores contain about 3.2 same-source scores (fewer than 5): that "
        "class model is mostly the background prior, not a case-condition estimate",
    ("warning.unsupervised.overlap", (("separation", "0.80"), ("min", "1"))):
        "the two mixture components overlap (separation 0.80 < 1): the unlabelled scores "
        "cannot tell the classes apart and the fit leans on the prior",
    ("warning.unsupervised.swapped", ()):
        "the fitted same-source mean is not above the different-source mean: the mixture "
        "components may be swapped; do not report this LR",
    ("warning.bootstrap_degenerate", (("bad", "12"), ("n", "1000"))):
        "12 of 1000 bootstrap replicates were degenerate (a class resampled to a constant "
        "value, or the fit failed) and were left out of the interval",
    ("warning.checks_failed", (("error", "too few LLRs"),)):
        "the calibration checks could not be computed: too few LLRs",
    ("warning.intervals_failed", (("error", "too few LLRs"),)):
        "the intervals of the validation metrics could not be computed: too few LLRs",
    ("warning.infinite_llrs_left_out", (("n", "2"),)):
        "2 infinite LLR(s) were left out of the recalibration check",
    ("warning.replicates_left_out", (("left", "3"), ("n", "1000"))):
        "3 of 1000 bootstrap replicates drew no trial of one class and were left out; the "
        "interval rests on the remaining ones",
    ("warning.percentile_kept", (("metrics", "Cllr_cal, EER"),)):
        "Cllr_cal, EER: the estimate lies beyond nearly all bootstrap replicates, so the "
        "bias-corrected interval cannot be read off them; the percentile interval is given "
        "(it need not contain the estimate)",
    ("warning.suspect_map.no_sources", ()):
        "the background files name no sources (speakers), so the cross-validation cannot "
        "adapt the model to each left-out source's own same-source scores as the case adapts "
        "it to the suspect's: it validates the population model only, without the "
        "adaptation; give the background files a source column (or source_a and source_b) "
        "to validate the method as applied",
}


@pytest.mark.parametrize(("key", "old"), list(WARNINGS.items()))
def test_warnings_in_english_as_before_and_recognised(key, old):
    from forensic_lr.i18n.messages import recognised

    code, params = key[0], dict(key[1])
    assert english(code, **params) == old
    assert recognised(old, "warning.") == (code, params)
    for language in TRANSLATED:
        assert message_text(code, params, language) != old


def test_a_warning_inside_a_warning_is_translated():
    from forensic_lr.casework.pipeline import _fold_summary

    inner = english("warning.small_class.same_source", n="12", min="20")
    (text,) = _fold_summary([inner, "another"], True, seen=())
    assert text == ("the cross-validation fits raised 2 fit warning(s) of their own, e.g.: "
                    + inner)
    from forensic_lr.i18n.messages import recognised

    code, params = recognised(text, "warning.")
    assert message_text(code, params, "de") == (
        "die Anpassungen der Kreuzvalidierung gaben 2 eigene Anpassungswarnung(en) aus, z. B.: "
        "nur 12 Hintergrund-Scores derselben Quelle (weniger als 20): das angepasste Modell "
        "und die LR sind unsicher")


def test_voice_case_without_elub_prints_its_warning_in_spanish():
    import warnings

    from forensic_lr._resources import examples_dir
    from forensic_lr.casework.pipeline import run_case_full
    from forensic_lr.casework.spec import load_case
    from forensic_lr.errors import ForensicLRWarning
    from forensic_lr.report import build_report

    spec = load_case(examples_dir() / "voice" / "case.toml",
                     overrides={"method": {"elub": False}, "report": {"language": "es"}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        run = run_case_full(spec)
    (text,) = [w for w in run.result.warnings if "ELUB bounding is off" in w]
    (message,) = [m for m in run.result.warning_messages if m is not None]
    assert message.code == "warning.beyond_elub" and english(message.code, **message.params) == text
    html = build_report(run, formats=("html",))["report.html"].decode("utf-8")
    assert ("Q1-K1: log10 LR +3,37 está fuera de los límites empíricos que respaldan los datos "
            "de validación (ELUB, -2,00 a +2,45); la limitación ELUB está desactivada: con ella "
            "la LR se limitaría a log10 LR +2,45") in html
    assert "ELUB bounding is off: with it" not in html


def test_a_warning_keeps_its_code_from_where_it_is_raised():
    """A warning written with english() carries its code and parameters through
    warnings.warn, a record's text field and a process boundary (pickle): the run reads
    them there, never parsing the English back."""
    import pickle
    import warnings

    import numpy as np

    from forensic_lr.calibration.base import fit_warnings
    from forensic_lr.i18n.messages import Coded, raised_text, recognised
    from forensic_lr.records import EvidenceEvaluation, Record, Text

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        texts = fit_warnings(np.array([-1.0, -2.0, -1.5]), np.array([1.0, 2.0, 0.5]),
                             np.array([9.0]))
    codes = [t.code for t in texts]
    assert codes == ["warning.extrapolation.score", "warning.swapped.scores.mean",
                     "warning.small_class.same_source", "warning.small_class.different_source"]
    assert [raised_text(w.message).code for w in caught] == codes
    assert texts[1] == ("the mean same-source score (-1.5) lies below the mean "
                        "different-source one (1.167), but higher scores must support the "
                        "same-source proposition: check that the same-source and "
                        "different-source values are not swapped, and that the scores are "
                        "not distances")
    class Noted(Record):  # a record's warnings field as EvidenceEvaluation types it
        warnings: tuple[Text, ...] = ()

    noted = Noted(warnings=texts)
    assert [t.code for t in noted.warnings] == codes
    assert Noted(warnings=("plain",)).warnings == ("plain",)
    assert noted.to_dict() == {"warnings": [str(t) for t in texts]}  # JSON: English only
    assert EvidenceEvaluation.model_fields["warnings"].annotation == tuple[Text, ...]
    kept = pickle.loads(pickle.dumps(noted.warnings))[1]  # a pool process's result
    assert isinstance(kept, Coded) and kept.params == {"ss": "-1.5", "ds": "1.167"}
    assert recognised(kept, "warning.") == ("warning.swapped.scores.mean", kept.params)
    assert recognised(kept, "policy.") is None  # a coded text is never parsed as another


def test_swapped_classes_print_in_every_language_from_their_codes(monkeypatch):
    """The voice case with its same-source and different-source files swapped: every
    warning of the run has its code (none parsed from English: the parser is disabled), and
    each report language prints them all from the code, none in English; Spanish typed by
    hand."""
    import dataclasses
    import html as html_module
    import warnings

    from forensic_lr._resources import examples_dir
    from forensic_lr.casework.pipeline import run_case_full
    from forensic_lr.casework.spec import load_case
    from forensic_lr.errors import ForensicLRWarning
    from forensic_lr.i18n import messages
    from forensic_lr.report import build_report

    folder = examples_dir() / "voice"
    spec = load_case(folder / "case.toml", overrides={
        "background": {"ss": str(folder / "ds.csv"), "ds": str(folder / "ss.csv")},
        "method": {"calibrator": "logistic"}, "uncertainty": {"method": "none"}})
    monkeypatch.setattr(messages, "_pattern", None)  # any parse of English would fail
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        run = run_case_full(spec, workers=1)
    result = run.result
    codes = [m.code for m in result.warning_messages]
    assert "warning.swapped.scores.mean" in codes
    assert [english(m.code, **m.params) for m in result.warning_messages] == list(
        result.warnings)
    for language in TRANSLATED:
        localised = dataclasses.replace(run, spec=run.spec.model_copy(update={
            "report": run.spec.report.model_copy(update={"language": language})}))
        page = build_report(localised, formats=("html",))["report.html"].decode("utf-8")
        printed = " ".join(html_module.unescape(page).split())
        left = [w for w in result.warnings if w in printed]
        assert not left, f"{language}: warnings left in English: {left[:2]}"
        if language == "es":
            swapped = next(m for m in result.warning_messages
                           if m.code == "warning.swapped.scores.mean")
            ss, ds = (f"{float(swapped.params[k]):g}".replace(".", ",") for k in ("ss", "ds"))
            assert (f"la media de las puntuaciones de misma fuente ({ss}) está por debajo de la "
                    f"de distinta fuente ({ds}), pero puntuaciones más altas deben apoyar la "
                    "proposición de misma fuente: compruebe que los valores de misma fuente y "
                    "de distinta fuente no están intercambiados, y que las puntuaciones no son "
                    "distancias") in printed


@pytest.mark.parametrize("language", TRANSLATED)
def test_small_background_warnings_in_every_language(language, worked):
    """The small-background worked case (a score beyond the background and the ELUB, a
    small class, a criterion not met; its score has no label): every warning printed from
    its code, none in English; the unlabelled score named the language's way (typed by hand)."""
    import dataclasses
    import html as html_module

    from forensic_lr.report import build_report

    run = worked.run("small-background")
    assert None not in run.result.warning_messages
    assert any(w.startswith("score 3.5: log10 LR") for w in run.result.warnings)
    spec = run.spec.model_copy(update={
        "report": run.spec.report.model_copy(update={"language": language})})
    page = build_report(dataclasses.replace(run, spec=spec), formats=("html",))
    printed = " ".join(html_module.unescape(page["report.html"].decode()).split())
    left = [w for w in run.result.warnings if " ".join(w.split()) in printed]
    assert not left, f"{language}: warnings left in English: {left[:2]}"
    named = {"es": "puntuación 3,5: log10 LR", "de": "Score 3,5: log10 LR",
             "fr": "score 3,5 : log10 LR", "nl": "score 3,5: log10 LR",
             "sv": "värdet 3,5: log10 LR"}
    assert named[language] in printed
