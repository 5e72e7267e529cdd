"""How a report names the two classes of background trials.

Most evaluations compare items: the trials with Hp true are *same-source* comparisons and
those with Hd true *different-source* ones, and the report's texts say so (``classes =
"source"``, the default). Some propositions are not about sources: an evidential breath
analyser's "the driver's blood alcohol concentration was above the legal limit" against
"at or below the limit". There (``classes = "propositions"``) the report speaks of
*trials with Hp true* and *trials with Hd true* (validation trials), and quotes the
laboratory's short name of each class (``hp_class = "above the limit"``) where a phrase
allows it: a table row, a figure legend. A user's label is never inflected or spliced into
a sentence, so the wording reads right in every report language.

The texts of the default wording are the catalogue's message ids; :data:`REPORT_VARIANTS`
gives, for each text (``report`` catalogue) that names the classes as sources, its wording
for propositions, and :data:`MESSAGE_VARIANTS` the same for the ``messages`` catalogue's
codes. :func:`class_gettext` looks a text up in the variant wording when the classes are
not sources. A variant may hold ``%(hp_class)s`` and ``%(hd_class)s``: the labels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import InputError
from . import N_

__all__ = ["CLASS_SCHEMES", "DEFAULT_CLASSES", "MESSAGE_VARIANTS", "REPORT_VARIANTS",
           "ClassNames", "class_gettext", "class_labels", "message_code"]

#: ``classes`` settings: the trials are source comparisons, or they are trials of the
#: propositions (Hp true / Hd true) named by the laboratory's labels.
CLASS_SCHEMES = ("source", "propositions")
#: The default: every existing case file and report keeps its wording.
DEFAULT_CLASSES = "source"
#: Longest class label (a short name: it goes into table rows and figure legends).
MAX_LABEL = 60


@dataclass(frozen=True)
class ClassNames:
    """The two classes' wording: ``scheme`` (one of :data:`CLASS_SCHEMES`) and, for
    ``"propositions"``, the laboratory's label of the Hp-true (``hp``) and Hd-true (``hd``)
    trials."""

    scheme: str = DEFAULT_CLASSES
    hp: str = ""
    hd: str = ""

    @property
    def by_source(self) -> bool:
        """Whether the report calls the classes same-source and different-source."""
        return self.scheme == "source"


#: The source wording (``classes = "source"``).
SOURCE_CLASSES = ClassNames()


def class_labels(scheme: str | None, hp: str | None, hd: str | None,
                 keys: tuple[str, str, str] = ("classes", "hp_class", "hd_class")
                 ) -> ClassNames:
    """The :class:`ClassNames` of a setting, checked; ``keys`` name the setting, the Hp
    label and the Hd label in an error (case-file keys, or command-line options).

    Raises
    ------
    InputError
        An unknown scheme; labels missing with ``"propositions"`` or given with
        ``"source"``; an empty, multi-line or over-long label.
    """
    key, hp_key, hd_key = keys
    chosen = f"{key} propositions" if key.startswith("-") else f'{key} = "propositions"'
    scheme = DEFAULT_CLASSES if scheme is None else scheme
    if scheme not in CLASS_SCHEMES:
        raise InputError(f"{key} {scheme!r} is not a choice: give \"source\" (the trials "
                         "compare items of the same and of different sources, the default) "
                         "or \"propositions\" (trials with Hp true and with Hd true, named by "
                         f"{hp_key} and {hd_key})")
    if scheme == "source":
        given = [k for k, v in ((hp_key, hp), (hd_key, hd)) if v is not None]
        if given:
            raise InputError(f"{given[0]} names a class of trials that are not source "
                             f"comparisons: add {chosen} (or remove "
                             f"{' and '.join(given)})")
        return SOURCE_CLASSES
    examples = {hp_key: ("Hp", "above the limit"), hd_key: ("Hd", "at or below the limit")}
    for name, value in ((hp_key, hp), (hd_key, hd)):
        side, example = examples[name]
        if value is None or not str(value).strip():
            raise InputError(f"{name}: required with {chosen}; give a short "
                             f"name of the trials with {side} true, e.g. \"{example}\"")
        if "\n" in value or len(value) > MAX_LABEL:
            raise InputError(f"{name}: a class label is one line of at most {MAX_LABEL} "
                             "characters; shorten it (the propositions themselves are hp "
                             "and hd)")
    return ClassNames("propositions", hp.strip(), hd.strip())


def class_gettext(gettext: Callable[[str], str], classes: ClassNames | None,
                  escape: Callable[[str], str] = str,
                  formatted: bool | None = None) -> Callable[[str], str]:
    """``gettext`` in the wording of ``classes``: a text with a variant
    (:data:`REPORT_VARIANTS`) is looked up as its variant, and the labels are filled in.

    ``escape`` quotes a label for where the text goes (HTML: markupsafe's ``escape``).
    A ``%`` in a label is doubled when the text is formatted afterwards (``formatted``;
    ``None``: when it holds other ``%(name)s`` placeholders), so that it prints as ``%``.
    """
    if classes is None or classes.by_source:
        return gettext

    def worded(text: str) -> str:
        variant = REPORT_VARIANTS.get(text)
        if variant is None:
            return gettext(text)
        out = gettext(variant)
        rest = out.replace("%(hp_class)s", "").replace("%(hd_class)s", "")
        doubled = ("%(" in rest) if formatted is None else formatted
        for key, label in (("hp_class", classes.hp), ("hd_class", classes.hd)):
            label = str(escape(label))
            out = out.replace(f"%({key})s", label.replace("%", "%%") if doubled else label)
        return out

    return worded


def message_code(code: str, classes: ClassNames | None) -> str:
    """The ``messages`` catalogue code to print ``code`` with in the wording of
    ``classes`` (:data:`MESSAGE_VARIANTS`)."""
    if classes is None or classes.by_source:
        return code
    return MESSAGE_VARIANTS.get(code, code)


#: ``messages`` catalogue codes naming the classes as sources -> their propositions wording.
MESSAGE_VARIANTS: dict[str, str] = {
    code: f"{code}.propositions" for code in (
        "policy.range_side.below_ss.score", "policy.range_side.below_ds.score",
        "policy.range_side.above_ss.score", "policy.range_side.above_ds.score",
        "policy.range_side.below_ss.distance", "policy.range_side.below_ds.distance",
        "policy.range_side.above_ss.distance", "policy.range_side.above_ds.distance",
        "warning.small_class.same_source", "warning.small_class.different_source",
        "sensitivity.by.comparison",
    )
}

#: ``report`` catalogue texts naming the classes as sources -> their propositions wording.
REPORT_VARIANTS: dict[str, str] = {
    "same source: LR >= x":
        N_("Hp true (“%(hp_class)s”): LR >= x"),
    "same source: LR <= x":
        N_("Hp true (“%(hp_class)s”): LR <= x"),
    "different source: LR >= x":
        N_("Hd true (“%(hd_class)s”): LR >= x"),
    "this case; LRs at or above it:\nsame source %(ss)s,\ndifferent source %(ds)s":
        N_("this case; LRs at or above it:\nHp true %(ss)s,\nHd true %(ds)s"),
    "this case; LRs at or below it:\nsame source %(ss)s,\ndifferent source %(ds)s":
        N_("this case; LRs at or below it:\nHp true %(ss)s,\nHd true %(ds)s"),
    "false alarm rate (different source judged same)":
        N_("false alarm rate (Hd true, decided for Hp)"),
    "miss rate\n(same source judged different)":
        N_("miss rate\n(Hp true, decided for Hd)"),
    "different source":
        N_("Hd true (“%(hd_class)s”)"),
    "same source":
        N_("Hp true (“%(hp_class)s”)"),
    "fitted same-source density":
        N_("fitted density, Hp true"),
    "fitted different-source density":
        N_("fitted density, Hd true"),
    "LR(s) = p(s | same-source scores) / p(s | different-source scores), Student-t":
        N_("LR(s) = p(s | scores with Hp true) / p(s | scores with Hd true), Student-t"),
    "A logistic curve in the score gives the probability of the same-source proposition at equal "
    "prior odds, between a fitted floor and ceiling when the background holds infinite scores on "
    "the wrong side; the log LR is its log odds, so even an infinite score gets a finite LR.":
        N_("A logistic curve in the score gives the probability of the first proposition (Hp) at "
           "equal prior odds, between a fitted floor and ceiling when the background holds "
           "infinite scores on the wrong side; the log LR is its log odds, so even an infinite "
           "score gets a finite LR."),
    "A normal density is fitted by maximum likelihood to the same-source background scores and "
    "another to the different-source scores; the LR of a score is the ratio of the two densities "
    "at that score. With equal_variance = true the two densities share one variance and the log "
    "LR is a straight line in the score.":
        N_("A normal density is fitted by maximum likelihood to the background scores of the "
           "trials with Hp true and another to those of the trials with Hd true; the LR of a "
           "score is the ratio of the two densities at that score. With equal_variance = true the "
           "two densities share one variance and the log LR is a straight line in the score."),
    "The background scores are sorted and pooled into blocks by the pool-adjacent-violators "
    "algorithm, so that the LR never decreases as the score increases; the LR of a block is its "
    "share of the same-source scores over its share of the different-source scores. A score "
    "inside a block gets the block's LR; between the edges of two neighbouring blocks the log LR "
    "is interpolated linearly; a block without counter-examples gets the finite limit log(N_ds + "
    "1) or -log(N_ss + 1).":
        N_("The background scores are sorted and pooled into blocks by the "
           "pool-adjacent-violators algorithm, so that the LR never decreases as the score "
           "increases; the LR of a block is its share of the scores of the trials with Hp true "
           "over its share of the scores of the trials with Hd true. A score inside a block gets "
           "the block's LR; between the edges of two neighbouring blocks the log LR is "
           "interpolated linearly; a block without counter-examples gets the finite limit "
           "log(N_ds + 1) or -log(N_ss + 1), N_ss and N_ds being the numbers of trials with Hp "
           "true and with Hd true."),
    "LR(s) = t(s; same-source fit) / t(s; different-source fit)":
        N_("LR(s) = t(s; fit with Hp true) / t(s; fit with Hd true)"),
    "The two class models were fitted to unlabelled scores of comparisons made under the case "
    "conditions, as a two-component normal mixture, with the labelled background as the prior. "
    "This assumes that the unlabelled scores come from the case conditions, that same-source and "
    "different-source scores are each normally distributed there, and that no other kind of "
    "comparison is among them.":
        N_("The two class models were fitted to unlabelled scores obtained under the case "
           "conditions, as a two-component normal mixture, with the labelled background as the "
           "prior. This assumes that the unlabelled scores come from the case conditions, that "
           "the scores with Hp true and those with Hd true are each normally distributed there, "
           "and that no other kind of score is among them."),
    "LR(s) = N(s; same-source component) / N(s; different-source component)":
        N_("LR(s) = N(s; component with Hp true) / N(s; component with Hd true)"),
    "The unsupervised model assumes that the unlabelled scores come from the case conditions, "
    "that the same-source and different-source scores are each normally distributed there, and "
    "that no other kind of comparison is among them. The cross-validation uses the same "
    "unlabelled scores in every fold, so it does not measure how well the mixture was identified.":
        N_("The unsupervised model assumes that the unlabelled scores come from the case "
           "conditions, that the scores with Hp true and those with Hd true are each normally "
           "distributed there, and that no other kind of score is among them. The "
           "cross-validation uses the same unlabelled scores in every fold, so it does not "
           "measure how well the mixture was identified."),
    "probability that a same-source score exceeds a different-source one":
        N_("probability that the score of a trial with Hp true exceeds that of a trial with Hd "
           "true"),
    "same-source comparisons with LR < 1 (misleading towards Hd)":
        N_("trials with Hp true and LR < 1 (misleading towards Hd)"),
    "different-source comparisons with LR > 1 (misleading towards Hp)":
        N_("trials with Hd true and LR > 1 (misleading towards Hp)"),
    "variance / (2 |mean|), same source":
        N_("variance / (2 |mean|), Hp true"),
    "variance / (2 |mean|), different source":
        N_("variance / (2 |mean|), Hd true"),
    "LLR overestimation as defined in the lir package (Netherlands Forensic Institute,\nversion "
    "1.8): at 100 equally spaced log10 LRs spanning the range where both same-source and\n"
    "different-source comparisons have LRs, the log10 LR minus the log10 of the ratio of kernel "
    "density\nestimates of the same-source and different-source log10 LRs there (the LR the "
    "system's own output\nsupports), averaged in absolute value; 1 means LRs off by a factor of "
    "10 on average.":
        N_("LLR overestimation as defined in the lir package (Netherlands Forensic Institute, "
           "version 1.8): at 100 equally spaced log10 LRs spanning the range where both the "
           "trials with Hp true and those with Hd true have LRs, the log10 LR minus the log10 of "
           "the ratio of kernel density estimates of the log10 LRs of the two classes there (the "
           "LR the system's own output supports), averaged in absolute value; 1 means LRs off by "
           "a factor of 10 on average."),
    "%(ss)s same-source and %(ds)s different-source comparisons":
        N_("%(ss)s trials with Hp true (“%(hp_class)s”) and %(ds)s with Hd true (“%(hd_class)s”)"),
    "This says\nwhere the background has comparisons of each class; it is information, not a "
    "reason to withhold\n(many different-source scores lie below every same-source score).":
        N_("This says where the background has trials of each class; it is information, not a "
           "reason to withhold (many scores of trials with Hd true lie below every score of a "
           "trial with Hp true)."),
    "The method turns the comparison score into a likelihood ratio using the background data\n"
    "below, with the same-source and different-source sets weighted equally.":
        N_("The method turns the score into a likelihood ratio using the background data below, "
           "with the set of trials with Hp true and the set of trials with Hd true weighted "
           "equally."),
    "same source (Hp true)":
        N_("“%(hp_class)s” (Hp true)"),
    "different source (Hd true)":
        N_("“%(hd_class)s” (Hd true)"),
    "percentile bootstrap interval (the background\nsame-source and different-source sets "
    "resampled separately and the model refitted); it shows how\nmuch the model's LR could "
    "change with other background data of the same kind":
        N_("percentile bootstrap interval (the background sets of trials with Hp true and with Hd "
           "true resampled separately and the model refitted); it shows how much the model's LR "
           "could change with other background data of the same kind"),
    "Invariance-verification bounds (Alberink et al. 2025): %(data)s support\nlog<sub>10</sub> "
    "LR between %(low)s and %(high)s: up to the upper bound t, LRs of at least t are at\nleast t "
    "times as frequent among same-source as among different-source comparisons, and likewise\n"
    "down to the lower bound for the LRs below it.":
        N_("Invariance-verification bounds (Alberink et al. 2025): %(data)s support "
           "log<sub>10</sub> LR between %(low)s and %(high)s: up to the upper bound t, LRs of at "
           "least t are at least t times as frequent among the trials with Hp true as among the "
           "trials with Hd true, and likewise down to the lower bound for the LRs below it."),
    "Figure 2. Tippett plot of the cross-validated background LRs: the share of same-source\n"
    "(blue) and different-source (red) comparisons with log<sub>10</sub> LR at or above x.":
        N_("Figure 2. Tippett plot of the cross-validated background LRs: the share of the trials "
           "with Hp true (blue) and of those with Hd true (red) with log<sub>10</sub> LR at or "
           "above x."),
    "same-source LRs at least as strong":
        N_("LRs with Hp true at least as strong"),
    "different-source LRs at least as strong":
        N_("LRs with Hd true at least as strong"),
    "Cumulative distributions of the LRs of same-source and different-source comparisons.":
        N_("Cumulative distributions of the LRs of the trials with Hp true and of those with Hd "
           "true."),
    "Shares of same-source comparisons with LR &lt; 1 (RMEP) and of different-source comparisons "
    "with LR &gt; 1 (RMED).":
        N_("Shares of the trials with Hp true with LR &lt; 1 (RMEP) and of the trials with Hd "
           "true with LR &gt; 1 (RMED)."),
    "Validation study · %(ss)s same-source and %(ds)s different-source comparisons":
        N_("Validation study · %(ss)s trials with Hp true and %(ds)s with Hd true"),
    "The inputs are the likelihood ratios the system itself gave for %(ss)s\nsame-source and "
    "%(ds)s different-source comparisons, validated as they are: no\nmodel was fitted, so no "
    "cross-validation was needed.":
        N_("The inputs are the likelihood ratios the system itself gave for %(ss)s trials with Hp "
           "true (“%(hp_class)s”) and %(ds)s with Hd true (“%(hd_class)s”), validated as they "
           "are: no model was fitted, so no cross-validation was needed."),
    "Each method was fitted and tested by leave-one-source-out cross-validation (seed\n%(seed)s) "
    "on %(ss)s same-source and %(ds)s\ndifferent-source comparison scores: every comparison "
    "received an LR from a model that had not\nseen it.":
        N_("Each method was fitted and tested by leave-one-source-out cross-validation (seed "
           "%(seed)s) on the scores of %(ss)s trials with Hp true (“%(hp_class)s”) and %(ds)s "
           "with Hd true (“%(hd_class)s”): every trial received an LR from a model that had not "
           "seen it."),
    "Each method was fitted and tested by %(folds)s-fold cross-validation (seed\n%(seed)s) on "
    "%(ss)s same-source and %(ds)s\ndifferent-source comparison scores: every comparison "
    "received an LR from a model that had not\nseen it.":
        N_("Each method was fitted and tested by %(folds)s-fold cross-validation (seed %(seed)s) "
           "on the scores of %(ss)s trials with Hp true (“%(hp_class)s”) and %(ds)s with Hd true "
           "(“%(hd_class)s”): every trial received an LR from a model that had not seen it."),
    "Data: the %(lrs)s of the %(ss)s same-source and\n%(ds)s different-source comparisons of "
    "this study, which are\n%(role)s.":
        N_("Data: the %(lrs)s of the %(ss)s trials with Hp true and %(ds)s with Hd true of this "
           "study, which are %(role)s."),
    "Figure 1. Tippett plot (type I): share of same-source and different-source comparisons with "
    "log<sub>10</sub> LR at or above x.":
        N_("Figure 1. Tippett plot (type I): share of the trials with Hp true and of those with "
           "Hd true with log<sub>10</sub> LR at or above x."),
    "Figure 2. Tippett plot (type II): the same-source curve is the share at or below x.":
        N_("Figure 2. Tippett plot (type II): the curve of the trials with Hp true is the share "
           "at or below x."),
    "Invariance verification (Alberink et al. 2025, submitted): up to the upper bound t, LRs of "
    "at least t are at least t times as frequent among same-source as among different-source "
    "comparisons, and likewise down to the lower bound for the LRs below it (“the LR of the LR "
    "is the LR”).":
        N_("Invariance verification (Alberink et al. 2025, submitted): up to the upper bound t, "
           "LRs of at least t are at least t times as frequent among the trials with Hp true as "
           "among the trials with Hd true, and likewise down to the lower bound for the LRs below "
           "it (“the LR of the LR is the LR”)."),
    "the cross-validated LRs (the background comparisons each model did not see)":
        N_("the cross-validated LRs (the background trials each model did not see)"),
    "the cross-validated LRs of section %(section)s (the background comparisons each model did "
    "not see: the validation data)":
        N_("the cross-validated LRs of section %(section)s (the background trials each model did "
           "not see: the validation data)"),
    "The LR depends on choices: the calibration method, its settings and the background data.\n"
    "The table gives the LR of each comparison under every calibration method that needs only "
    "the\nbackground data (default settings; this case's method with its own settings)":
        N_("The LR depends on choices: the calibration method, its settings and the background "
           "data. The table gives the LR of each finding under every calibration method that "
           "needs only the background data (default settings; this case's method with its own "
           "settings)"),
    "comparisons\nresampled within each set; the files name no sources, so comparisons sharing a "
    "source are treated as independent":
        N_("trials resampled within each set; the files name no sources, so trials sharing a "
           "source (the same person or item tested more than once) are treated as independent"),
    "for RMEP and RMED, the exact binomial (Clopper-Pearson) interval of the\ncount; for the "
    "other metrics, the bias-corrected bootstrap interval of the cross-validated LRs\n"
    "(comparisons resampled within each set, as if independent":
        N_("for RMEP and RMED, the exact binomial (Clopper-Pearson) interval of the count; for "
           "the other metrics, the bias-corrected bootstrap interval of the cross-validated LRs "
           "(trials resampled within each set, as if independent"),
    "The bootstrap does not refit the method; it shows how much the metrics vary with the set "
    "of\ncomparisons. An interval whose ends print equal is marked not estimable. Cllr_cal is "
    "printed as the\nprinted Cllr minus the printed minimum Cllr.":
        N_("The bootstrap does not refit the method; it shows how much the metrics vary with the "
           "set of trials. An interval whose ends print equal is marked not estimable. Cllr_cal "
           "is printed as the printed Cllr minus the printed minimum Cllr."),
    ": every background comparison received an LR from\na model fitted without it.":
        N_(": every background trial received an LR from a model fitted without it."),
    "The folds were\ndrawn by comparison: the background files name no sources, so comparisons "
    "sharing a source\n(speaker, tool, window) can be on both sides of a split, which can make "
    "the validation optimistic.":
        N_("The folds were drawn by trial: the background files name no sources, so trials "
           "sharing a source (the same person or item tested more than once) can be on both sides "
           "of a split, which can make the validation optimistic."),
    "The dashed\nline marks this case's log<sub>10</sub> LR; the legend counts the comparisons "
    "that support the same\nside at least as strongly (at or above it for an LR of 1 or more, at "
    "or below it for an LR below 1).":
        N_("The dashed line marks this case's log<sub>10</sub> LR; the legend counts the trials "
           "that support the same side at least as strongly (at or above it for an LR of 1 or "
           "more, at or below it for an LR below 1)."),
    "Turning a comparison score into an LR whose size can be trusted: a well-calibrated method's "
    "LRs of a given size are right about as often as they claim.":
        N_("Turning a score into an LR whose size can be trusted: a well-calibrated method's LRs "
           "of a given size are right about as often as they claim."),
    "Sources and comparisons":
        N_("Sources and trials"),
    "Comparison":
        N_("Finding"),
    "Rule: a criterion is met only when both the cross-validated value and its\none-sided 95 %% "
    "confidence bound on the unfavourable side (the upper bound for a maximum, the\nlower bound "
    "for a minimum) meet it, so that a value that meets the threshold by chance on few\n"
    "comparisons does not count. The bound is the end of the two-sided 90 %% interval of the "
    "same kind\nas the table above gives (bootstrap, or exact binomial for rates counted as "
    "independent\ncomparisons).":
        N_("Rule: a criterion is met only when both the cross-validated value and its one-sided "
           "95 %% confidence bound on the unfavourable side (the upper bound for a maximum, the "
           "lower bound for a minimum) meet it, so that a value that meets the threshold by "
           "chance on few trials does not count. The bound is the end of the two-sided 90 %% "
           "interval of the same kind as the table above gives (bootstrap, or exact binomial for "
           "rates counted as independent trials)."),
    "the mean |LLR| of calibrated Gaussian LLRs with this EER; observed: %(ss)s (SS), %(ds)s (DS)":
        N_("the mean |LLR| of calibrated Gaussian LLRs with this EER; observed: %(ss)s (Hp true), "
           "%(ds)s (Hd true)"),
    "ELUB, empirical lower and upper bounds (Vergeer et al. 2016): at every decision threshold "
    "within these bounds, the LRs lead to decisions with no higher expected cost than a system "
    "that gives LR = 1 to every comparison, after one misleading LR is added on each side; the "
    "bounds widen as the amount of validation data grows.":
        N_("ELUB, empirical lower and upper bounds (Vergeer et al. 2016): at every decision "
           "threshold within these bounds, the LRs lead to decisions with no higher expected cost "
           "than a system that gives LR = 1 to every trial, after one misleading LR is added on "
           "each side; the bounds widen as the amount of validation data grows."),
    "The results hold for data like the scores of this study: same population, conditions and\n"
    "score-producing system. Cross-validation tests each method on comparisons it was not fitted "
    "on,\nbut on the same data set; it does not show how the method performs under other "
    "conditions.":
        N_("The results hold for data like the scores of this study: same population, conditions "
           "and score-producing system. Cross-validation tests each method on trials it was not "
           "fitted on, but on the same data set; it does not show how the method performs under "
           "other conditions."),
    "The folds split comparisons, not sources: when a source appears in\nseveral comparisons, it "
    "can be in the training and the test part at once, which flatters the\nresults; score files "
    "with source columns give folds by source.":
        N_("The folds split trials, not sources: when a source (the same person or item) appears "
           "in several trials, it can be in the training and the test part at once, which "
           "flatters the results; score files with source columns give folds by source."),
}
