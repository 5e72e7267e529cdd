"""The commented case-file template that ``forensic-lr init`` writes."""

from __future__ import annotations

__all__ = ["case_template"]

_TEMPLATE = '''\
# forensic-lr case file. Lines starting with '#' are comments. Every optional key is
# shown with its default value; delete what you do not need. Full reference:
# `forensic-lr docs case-file` (all pages: `forensic-lr docs`). Check what a final report
# still lacks with:  forensic-lr check case.toml
# Run with:  forensic-lr run case.toml --out report   (add --draft while fields are missing)
# Text goes in quotes: examiner = "Dr. A. Weiß". Paths are relative to this file; write
# them with forward slashes ("data/ss.csv"), or in single quotes ('data\\ss.csv').

[case]
id = "CASE-0001"              # required: the laboratory's case number (letters, digits, ._/ -)
# report_id = "CASE-0001-R1"  # default: "<id>-R1"
title = ""                    # e.g. "Comparison of an intercepted call with a reference recording"
laboratory = ""               # name of the laboratory
examiner = ""                 # required: name of the examiner who signs the report
# reviewer = ""               # technical reviewer, when known (never required)
# date = 2026-01-31           # required: date of the report (TOML date, year-month-day)
requester = ""                # who asked for the examination
instructions = ""             # the questions the requester asked
conditioning = ""             # the case information the evaluation relies on
# declaration = ""            # the examiner's declaration; default: the report's standard
                              #   statement (independence, duty to the court, competence)

# Required: the items received and examined, one [[case.items]] table each (keep them
# after the other [case] keys: every key below a table header belongs to that table).
# [[case.items]]
# id = "Q1"
# description = "questioned recording"
# seal = "bag 1, seal 0417"
# condition = "seal intact"
# received = "2026-02-28 from the police"
# examined = "2 min 40 s of net speech"
# [[case.items]]
# id = "K1"
# description = "reference recording of the suspect"
# seal = "bag 2, seal 0418"
# condition = "seal intact"
# received = "2026-03-01 from the police"
# examined = "3 min 10 s of net speech"

[propositions]                # required: a pair of mutually exclusive propositions
hp = "The questioned and reference items come from the same source."
hd = "The questioned and reference items come from different sources."
# (several comparisons of different items, e.g. Q1-K1 and Q3-K1: instead of hp and hd, one
#  [[propositions.comparison]] table each, with label = "Q1-K1", hp = "...", hd = "...")
# classes = "source"          # the background trials compare sources (default); for
                              #   propositions that are not about sources write
                              #   classes = "propositions" and name the two classes:
# hp_class = "above the limit"        # the trials with Hp true (short, quoted as written)
# hd_class = "at or below the limit"  # the trials with Hd true

[evidence]
# score = 3.2                 # required: the comparison score of this case (or:
# scores = [1.2, 3.4]         #   several scores, then give one of the two only)
# labels = ["Q1-K1", "Q2-K1"] # one name per score; default "Q1-K1" for one score and
                              #   two items (their ids), else "E1", "E2", ...
# scores_file = "evidence.csv"  # many scores: a file with label and score columns
                              #   (instead of score/scores and labels)
description = ""             # required: how the score was obtained (items compared, with what)
score_direction = "higher_is_similar"   # or "lower_is_similar" for distances

[background]                  # paths relative to this file
ss = "ss.csv"                 # same-source scores (Hp true), one per line
ds = "ds.csv"                 # different-source scores (Hd true), one per line
# scores = "scores.csv"       # instead of ss/ds: one file with label,score columns
# suspect_ss = "suspect_ss.csv"  # calibrator "suspect_map" only: the suspect's own
                              #   same-source scores under the case conditions (>= 2)
# unlabelled = "unlabelled.csv"  # calibrator "unsupervised" only (and required by it):
                              #   case-condition scores of unknown ground truth (>= 10)
description = ""             # required: what data and conditions the background represents
population = ""               # required: the relevant population the data represent
population_justification = "" # required: why that population is the relevant one under Hd
# sources = 120               # required: number of distinct sources (speakers, objects)
                              #   behind the comparisons, or a sentence saying why unknown

[system]                      # required: the scoring system that produced every score
name = ""                     # e.g. the automatic speaker recognition system's name
version = ""
settings = ""                 # settings and models used for the scores

[method]
calibrator = "bayes"          # gaussian | bayes | logistic | pav | kde | scal | student_t
                              #   | suspect_map | unsupervised
                              #   (method = "..." is the same key, other spelling)
elub = true                   # bound the LR by ELUB (Vergeer et al. 2016); with false the
                              #   conclusion states the bounded value beside the LR
elub_from = "cross-validated" # the ELUB of the cross-validated LRs of this case's folds and
                              #   seed, or "in-sample" (the fitted model's, as lir bounds)
# bounds = "elub"             # rule of the bounds: elub | iv (invariance verification)
                              #   | n-source (LR in [1/N, N], N sources) | fixed (with
                              #   fixed_bounds = [low, high] in log10 LR); elub on/off above

[method.options]              # options of the calibrator, e.g. equal_variance = true
                              # (gaussian), mode = "map" (bayes), relevance = 16
                              # (suspect_map), prior_weight = 10 (unsupervised); default: none

[uncertainty]
method = "bootstrap"          # bootstrap | bayes (calibrator "bayes" only) | none
level = 0.95                  # coverage of the interval (between 0.5 and 1)
n = 1000                      # bootstrap replicates or posterior draws (100 to 100000)
seed = 20261122               # random seed: same seed, same result

[validation]
folds = 5                     # K-fold cross-validation of the method (2 to 50)
conditions = ""               # how the validation data (speakers, devices, durations,
                              #   conditions) compare with this case's; printed in the report
study = ""                    # reference to a separate validation study of the method, if any
study_id = ""                 # required: identifier of the validation study the method rests on
# study_date = 2026-01-15     # required: its date (or a sentence saying why there is none)

# criteria_rule = "estimate_and_bound"  # a criterion is met when the value and its one-
                              #   sided 95 % bound both meet it; "estimate": the value alone

[validation.criteria]         # optional laboratory criteria on the cross-validated metrics
# cllr_max = 0.5              # Cllr (bits) at most
# min_cllr_max = 0.4          # minimum Cllr (bits) at most
# cllr_cal_max = 0.1          # calibration loss Cllr - minCllr (bits) at most
# eer_max = 0.1               # equal error rate at most
# auc_min = 0.9               # area under the ROC curve at least
# rmep_max = 0.1              # rate of misleading evidence for Hp (SS with LR < 1) at most
# rmed_max = 0.1              # rate of misleading evidence for Hd (DS with LR > 1) at most
# devpav_max = 0.5            # devPAV calibration deviation at most
# llr_overestimation_max = 0.3  # mean absolute LLR overestimation (log10) at most

[report]
language = "en"
verbal_scale = "enfsi"        # enfsi | afsp | nfc | path of a lab's JSON scale file
formats = ["pdf", "html", "json"]
# template_dir = "templates"  # a lab's template folder, searched before the shipped one
# lab_profile = "../lab.toml" # the laboratory's profile: defaults for every setting
                              #   this file leaves out (forensic-lr docs lab-profile)
# prior_odds_table = true     # annex table of prior odds to posterior odds
# below_first_band = "number" # 1 < LR < 2 on the ENFSI scale: number | neutral | limited

[opinion]                     # the opinion policy (forensic-lr docs report); the commented
                              #   keys come from the lab profile, else these defaults
override = false              # true: give the opinion despite the reasons to withhold it;
justification = ""            #   needs a written justification, printed in the report
# slope_min = 0.8             # withhold when the recalibration slope lies outside
# slope_max = 1.25            #   [slope_min, slope_max] and its interval excludes 1,
# offset_max = 0.7            #   or |offset| (natural log) > offset_max excluding 0
# monotonic_tolerance_log10 = 0.05  # largest fall of the LR curve accepted (log10)
# monotonic_quantiles = [0.0, 1.0]  # span checked: each class's quantiles and the evidence
'''


def case_template() -> str:
    """A commented case file with every key and its default (``forensic-lr init``)."""
    return _TEMPLATE
