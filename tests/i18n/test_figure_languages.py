"""Figures in the report's language: titles, axis labels, legends and numbers come from the
``report`` catalogue and the locale's CLDR marks; English figures keep their bytes."""

from __future__ import annotations

import html
import re

import numpy as np
import pytest
from babel.numbers import format_decimal, format_percent

from forensic_lr import plots
from forensic_lr.i18n import SOURCE_LANGUAGE, SUPPORTED_LANGUAGES

TRANSLATED = [lang for lang in SUPPORTED_LANGUAGES if lang != SOURCE_LANGUAGE]

# Each figure's title and y-axis label as the catalogue should print them, typed here by
# hand (not read from the catalogue that the code reads).
TITLES = {
    "de": {"tippett": ("Tippett-Diagramm (Typ I)", "Anteil der Vergleiche"),
           "ece": ("Empirische Kreuzentropie (ECE)", "empirische Kreuzentropie (Bit)"),
           "ape": ("Angewandte Fehlerwahrscheinlichkeit (APE)", "Bayes-Fehlerrate"),
           "det": ("Detection-Error-Tradeoff (DET)", "Verfehlungsrate"),
           "pav": ("Pool-Adjacent-Violators-Transformation (PAV)", "PAV-log10 LR"),
           "llr_overestimation": ("Kurve der LLR-Überschätzung", "LLR-Überschätzung (log10)"),
           "llr_histogram": ("Verteilung der log10 LR", "Dichte"),
           "score_density": ("Hintergrund-Scores und das angepasste Modell", "Dichte"),
           "roc": ("Receiver-Operating-Characteristic (ROC)", "Trefferrate")},
    "es": {"tippett": ("Gráfico de Tippett (tipo I)", "proporción de comparaciones"),
           "ece": ("Entropía cruzada empírica (ECE)", "entropía cruzada empírica (bits)"),
           "ape": ("Probabilidad de error aplicada (APE)", "tasa de error de Bayes"),
           "det": ("Compensación de errores de detección (DET)", "tasa de omisiones"),
           "pav": ("Transformación pool-adjacent-violators (PAV)", "log10 LR PAV"),
           "llr_overestimation": ("Curva de sobreestimación del LLR",
                                  "sobreestimación del LLR (log10)"),
           "llr_histogram": ("Distribución de los log10 LR", "densidad"),
           "score_density": ("Puntuaciones de referencia y el modelo ajustado", "densidad"),
           "roc": ("Curva característica operativa del receptor (ROC)", "tasa de aciertos")},
    "fr": {"tippett": ("Graphique de Tippett (type I)", "proportion des comparaisons"),
           "ece": ("Entropie croisée empirique (ECE)", "entropie croisée empirique (bits)"),
           "ape": ("Probabilité d'erreur appliquée (APE)", "taux d'erreur bayésien"),
           "det": ("Compromis des erreurs de détection (DET)", "taux d'omissions"),
           "pav": ("Transformation pool-adjacent-violators (PAV)", "log10 LR PAV"),
           "llr_overestimation": ("Courbe de surestimation du LLR",
                                  "surestimation du LLR (log10)"),
           "llr_histogram": ("Distribution des log10 LR", "densité"),
           "score_density": ("Scores de référence et modèle ajusté", "densité"),
           "roc": ("Fonction d'efficacité du récepteur (ROC)", "taux de détection")},
    "nl": {"tippett": ("Tippett-grafiek (type I)", "aandeel van de vergelijkingen"),
           "ece": ("Empirische kruisentropie (ECE)", "empirische kruisentropie (bits)"),
           "ape": ("Toegepaste foutkans (APE)", "Bayes-foutpercentage"),
           "det": ("DET-grafiek (detection error trade-off)", "percentage missers"),
           "pav": ("Pool-adjacent-violators-transformatie (PAV)", "PAV-log10 LR"),
           "llr_overestimation": ("Curve van de LLR-overschatting", "LLR-overschatting (log10)"),
           "llr_histogram": ("Verdeling van de log10 LR's", "dichtheid"),
           "score_density": ("Referentiescores en het gefitte model", "dichtheid"),
           "roc": ("ROC-curve (receiver operating characteristic)", "trefpercentage")},
    "sv": {"tippett": ("Tippett-diagram (typ I)", "andel av jämförelserna"),
           "ece": ("Empirisk korsentropi (ECE)", "empirisk korsentropi (bitar)"),
           "ape": ("Tillämpad felsannolikhet (APE)", "Bayes-felnivå"),
           "det": ("DET-diagram (detection error trade-off)", "andel missar"),
           "pav": ("Pool-adjacent-violators-transformation (PAV)", "PAV-log10 LR"),
           "llr_overestimation": ("Kurva över LLR-överskattning", "LLR-överskattning (log10)"),
           "llr_histogram": ("Fördelning av log10 LR", "täthet"),
           "score_density": ("Referensvärden och den anpassade modellen", "täthet"),
           "roc": ("Mottagarens operativa karakteristik (ROC)", "träffandel")},
}
ENGLISH = {"tippett": ("Tippett plot (type I)", "proportion of trials"),
           "ece": ("Empirical cross-entropy (ECE)", "empirical cross-entropy (bits)"),
           "ape": ("Applied probability of error (APE)", "Bayes error rate"),
           "det": ("Detection error trade-off (DET)", "miss rate"),
           "pav": ("Pool-adjacent-violators transform", "PAV log10 LR"),
           "llr_overestimation": ("LLR overestimation curve", "LLR overestimation (log10)"),
           "llr_histogram": ("Distribution of log10 LRs", "density"),
           "score_density": ("Background scores and the fitted model", "density"),
           "roc": ("Receiver operating characteristic (ROC)", "hit rate")}


@pytest.fixture(scope="module")
def llrs():
    rng = np.random.default_rng(29)
    return rng.normal(2.0, 1.5, 300), rng.normal(-2.0, 1.5, 3000)


def _draw(name: str, ss, ds, **kwargs) -> str:
    function = getattr(plots, f"{name}_svg")
    if name == "pav":
        kwargs["llr_input"] = True
    if name not in ("roc", "pav", "score_density", "llr_overestimation"):
        kwargs["case_llr"] = 1.7
    if name in ("tippett", "llr_histogram", "pav", "score_density"):
        kwargs["elub_log10"] = (-2.25, 2.5)
    return function(ss, ds, **kwargs)


def _texts(svg: str) -> list[str]:
    """The texts the SVG shows, one per <text> element (matplotlib writes a line each)."""
    return [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]


@pytest.mark.parametrize("name", sorted(ENGLISH))
def test_english_is_the_default_and_unchanged(name, llrs):
    """language="en" draws the same bytes as no language at all, with the English texts."""
    svg = _draw(name, *llrs)
    assert svg == _draw(name, *llrs, language="en")
    texts = _texts(svg)
    for text in ENGLISH[name]:
        assert text in texts, (name, text)


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("name", sorted(ENGLISH))
def test_figure_texts_in_the_language(name, language, llrs):
    texts = _texts(_draw(name, *llrs, language=language))
    for wanted, english in zip(TITLES[language][name], ENGLISH[name], strict=True):
        assert wanted in texts, (name, language, wanted, texts)
        assert english not in texts, (name, language, english)


@pytest.mark.parametrize("language", TRANSLATED)
def test_tick_labels_and_legend_numbers_in_the_locale(language, llrs):
    """ECE's y ticks (0.2, 0.4, ...) and the ELUB bounds of the Tippett legend written as
    Babel (CLDR) writes the same numbers; no English decimal point left in a number."""
    texts = _texts(plots.ece_svg(*llrs, language=language))
    assert format_decimal(0.2, locale=language) in texts
    assert "0.2" not in texts
    tippett = _texts(plots.tippett_svg(*llrs, elub_log10=(-2.25, 2.5), language=language))
    low = format_decimal(-2.25, format="+0.00;-0.00", locale=language)
    high = format_decimal(2.5, format="+0.00;-0.00", locale=language)
    assert any(low in t and high in t and t.startswith("ELUB") for t in tippett), tippett


@pytest.mark.parametrize("language", TRANSLATED)
def test_det_ticks_are_the_locale_percentages(language, llrs):
    texts = _texts(plots.det_svg(*llrs, language=language))
    assert format_percent(0.1, locale=language) in texts  # "10 %" / "10%"
    assert "10%" not in texts or format_percent(0.1, locale=language) == "10%"


def test_counts_with_rates_in_german():
    """Hand-written: CLDR's German writes 3.000, 0,03 and a no-break space before %."""
    assert plots.count_with_rate(1, 3000) == "1 of 3,000 (0.03 %)"
    assert plots.count_with_rate(1, 3000, "de") == "1 von 3.000 (0,03\u00a0%)"
    assert plots.count_with_rate(12, 1234, "fr") == "12 sur 1\u202f234 (1,0\u00a0%)"
    assert plots.count_with_rate(0, 0, "sv") == "0 av 0"


def test_sensitivity_figure_in_spanish():
    from forensic_lr.records import Sensitivity, SensitivityRow

    rows = (SensitivityRow(group="calibrator", label="logistic regression",
                           calibrator="logistic", is_case=True, log10_lr=(1.5,)),
            SensitivityRow(group="calibrator", label="KDE", calibrator="kde",
                           log10_lr=(1.25,)))
    record = Sensitivity(labels=("E1",), elub_applied=False, case_calibrator="logistic",
                         case_log10_lr=(1.5,), rows=rows, spread_log10=(0.25,),
                         levels_reached=(("moderate",),))
    texts = _texts(plots.sensitivity_svg(record, language="es"))
    assert "Cómo depende la LR del método" in texts  # the title in two lines
    assert "valor informado" in texts
    assert "logistic regression" in texts  # the record's own labels are printed as given


def test_validate_plots_in_the_language(tmp_path):
    """validate --plots --language de: the figure files in German, the default English."""
    from forensic_lr.cli import main

    rng = np.random.default_rng(3)
    for name, values in (("ss.csv", rng.normal(1.5, 1, 60)), ("ds.csv", rng.normal(-1.5, 1, 90))):
        np.savetxt(tmp_path / name, values)
    inputs = ["--ss", str(tmp_path / "ss.csv"), "--ds", str(tmp_path / "ds.csv")]
    assert main(["-q", "validate", *inputs, "--plots", str(tmp_path / "en")]) == 0
    assert main(["-q", "validate", *inputs, "--calibrate", "logistic", "--plots",
                 str(tmp_path / "de"), "--language", "de"]) == 0
    assert "Tippett plot (type I)" in _texts((tmp_path / "en" / "tippett.svg").read_text())
    german = _texts((tmp_path / "de" / "pav.svg").read_text())
    assert "log10 LR außerhalb der Anpassungsdaten (out-of-fold)" in german
    assert "Tippett-Diagramm (Typ I)" in _texts((tmp_path / "de" / "tippett.svg").read_text())
