"""The limits of every count, list and text a user gives: one table, checked before the work.

A count option (``--n``, ``--bins``, ``--folds``...) or a case-file list or text beyond its
limit asks for work no report needs and that could run for hours or exhaust the memory
(``validate --ci bootstrap --n 1000000000`` would need 52 GiB). Each is refused with exit
status 2 before anything is computed, by a message naming the option or key, the value and
the limit. ``docs/user/limits.md`` prints this table (a test keeps the two equal).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import InputError

__all__ = ["LIMITS", "Limit", "check_bootstrap", "check_count", "check_settings_sizes"]


@dataclass(frozen=True)
class Limit:
    """The largest value allowed for one kind of input, where it applies and why."""

    most: int
    unit: str
    applies_to: str
    why: str


#: Every limit, by key; ``docs/user/limits.md`` lists the same rows.
LIMITS: dict[str, Limit] = {
    "replicates": Limit(
        100_000, "replicates",
        "`--n` of `calibrate`, `compare` and `validate --ci bootstrap`; `[uncertainty] n`",
        "the Monte Carlo error of a 95 % percentile end is already below a hundredth of the "
        "interval's width at 10,000"),
    "bootstrap_draws": Limit(
        1_000_000_000, "replicate-trials",
        "a bootstrap: replicates x trials resampled (`calibrate`, `compare`, `validate --ci "
        "bootstrap`, a case's intervals)",
        "about 7 minutes for the slowest method (logistic regression refits, 430 ns per "
        "replicate-trial measured)"),
    "bins": Limit(
        10_000, "bins", "`multiclass --bins`",
        "more bins than this leave nearly every bin empty for any realistic test set"),
    "folds": Limit(
        50, "folds", "`validate --folds`; `[validation] folds`",
        "cross-validation estimates change little beyond 10 to 20 folds; each fold refits the "
        "method"),
    "test_items": Limit(
        1_000_000_000_000, "items", "`label-noise correct --n-items`",
        "a count of test items, far above any evaluation set"),
    "table_columns": Limit(
        100_000, "columns", "a table file (scores, logits: one column per class)",
        "the widest real tables (classifiers of some 20,000 classes) stay far below"),
    "workbook_part_bytes": Limit(
        1 << 30, "bytes", "one part (sheet) of an `.xlsx` workbook, unpacked, as the archive "
        "declares it",
        "some ten million cells, far more than a score table holds; a larger part is damaged "
        "or a ZIP bomb, refused before anything is unpacked"),
    "list_items": Limit(
        1_000, "items",
        "every list in a case file or lab profile (`[evidence] scores`, `labels`...)",
        "a case file is written by hand; no list in it needs more"),
    "evidence_scores": Limit(
        1_000, "scores", "`[evidence] scores_file` (rows)",
        "each evidence score gets its own rows in the report; a larger set is a study "
        "(`forensic-lr validate`), not one case"),
    "text_characters": Limit(
        10_000, "characters",
        "every text in a case file or lab profile (descriptions, propositions, names...)",
        "about three printed pages; longer texts belong in an attached document"),
    "template_value_characters": Limit(
        1_000_000, "characters",
        "one text or list a report template builds (`*`, `zfill`, `center`, `join`, "
        "`replace`, `format`...)",
        "a whole report is a few hundred kilobytes"),
    "template_exponent": Limit(
        1_000, "", "an exponent `**` in a report template",
        "no printed number needs a larger power"),
    "template_integer_digits": Limit(
        10_000, "digits", "an integer a report template computes (`*`, `**`)",
        "no printed number has more; larger ones are nested powers or products"),
    "report_characters": Limit(
        20_000_000, "characters", "the HTML a report template renders",
        "a report is a few hundred kilobytes; a template producing more loops or repeats"),
    "template_seconds": Limit(
        5, "seconds", "rendering a report template",
        "the shipped templates render in a tenth of a second"),
    "template_depth": Limit(
        50, "nested calls", "macros and includes calling one another in a report template",
        "far deeper than any report layout needs; a template calling itself without end "
        "stops here"),
}


def _refusal(key: str, name: str, value: Any, remedy: str) -> InputError:
    limit = LIMITS[key]
    shown = f"{value:,}" if isinstance(value, int) else str(value)
    return InputError(
        f"{name} {shown} is above the limit of {limit.most:,} {limit.unit} ({limit.why}); "
        f"{remedy} (the limits: `forensic-lr docs limits`)")


def check_count(key: str, value: Any, name: str) -> None:
    """Refuse an integer ``value`` above ``LIMITS[key]``; ``name`` is the option or key
    (``"--n"``, ``"[uncertainty] n"``). Non-integers and None are left to the caller's own
    checks."""
    if isinstance(value, int) and not isinstance(value, bool) and value > LIMITS[key].most:
        raise _refusal(key, name, value, f"lower {name}")


def check_bootstrap(replicates: int, trials: int) -> None:
    """Refuse a bootstrap of ``replicates`` x ``trials`` beyond ``LIMITS["bootstrap_draws"]``
    before it starts, naming the largest number of replicates these trials allow."""
    limit = LIMITS["bootstrap_draws"]
    if replicates * trials > limit.most:
        raise InputError(
            f"a bootstrap of {replicates:,} replicates of {trials:,} trials is "
            f"{replicates * trials:,} {limit.unit}, above the limit of {limit.most:,} "
            f"({limit.why}); lower the number of replicates (n) to at most "
            f"{max(limit.most // trials, 1):,} (the limits: `forensic-lr docs limits`)")


def check_settings_sizes(data: Any, source: str) -> None:
    """Refuse a list or a text of a parsed case file or lab profile beyond its limit.

    One pass over the nested tables (no recursion); the message names the section and key
    (``[evidence] labels``) and the limit.
    """
    most_items = LIMITS["list_items"].most
    most_chars = LIMITS["text_characters"].most
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            for key, child in value.items():
                inner = (f"[{key}]" if not where else f"{where} {key}" if where.endswith("]")
                         else f"{where}.{key}")
                stack.append((child, inner))
        elif isinstance(value, list | tuple):
            if len(value) > most_items:
                raise InputError(f"{source}: {where or 'the file'}: "
                                 + str(_refusal("list_items", "a list of", len(value),
                                                "shorten the list")))
            stack += [(child, where) for child in value]
        elif isinstance(value, str) and len(value) > most_chars:
            raise InputError(f"{source}: {where or 'the file'}: "
                             + str(_refusal("text_characters", "a text of", len(value),
                                            "shorten the text")))
