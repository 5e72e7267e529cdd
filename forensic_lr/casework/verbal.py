"""Verbal equivalents of likelihood ratios, and the LR as rounded text.

The scales are data (``forensic_lr/data/verbal_scales.json``), each with its source;
a laboratory may give its own JSON file with the same schema. A scale is a list of
bands over the LR *magnitude* ``m = max(LR, 1/LR)``; LR > 1 favours Hp, LR < 1
favours Hd with the same bands (the scales are symmetric).

Band edges: a band applies when ``lower <= m < next lower`` (the lower edge is
inclusive, the upper exclusive), so LR = 10 is in [10, 100). The band is chosen from the
LR *as printed* (rounded to two significant figures by :func:`format_lr`), so that the
number and the words never disagree: an LR of 9.97 prints "10" and gets the band of 10.
The comparison is exact (the printed value is a rational number, compared with each
edge in integer arithmetic); no LR is ever exponentiated.

Below the first band's lower edge: a scale that defines that range (NFC level 0 for
1/6 < LR < 6) gives its neutral wording; a scale that leaves it undefined
(``below_first_band = "undefined"``: the ENFSI guideline has LR = 1 and then 2-10) gets
the laboratory's choice (``[report] below_first_band`` or the lab profile): ``"number"``
(the default: the number only, with a sentence that the scale has no words for it),
``"neutral"`` (the scale's "no support" wording) or ``"limited"`` ("limited support").
A first band whose lower edge is 1 starts just above 1, so that only LR = 1 exactly is
neutral (the AFSP scale).
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Literal

from ..errors import InputError, excerpt
from ..io.paths import input_file
from ..io.settings_files import read_settings_file
from ..records import VerbalEquivalent

DEFAULT_SCALE = "enfsi"
#: Wording of an LR below the first band of a scale that leaves that range undefined.
BelowFirstBand = Literal["number", "neutral", "limited"]
_DATA = Path(__file__).resolve().parent.parent / "data" / "verbal_scales.json"
_TEXT_KEYS = ("name", "citation", "neutral", "statement_hp", "statement_hd")


@dataclass(frozen=True)
class Band:
    """One band of a scale: applies for ``lower <= max(LR, 1/LR) < next band's lower``."""

    lower: float
    level: str
    code: str = ""

    @property
    def lower_log10(self) -> float:
        return math.log10(self.lower)


@dataclass(frozen=True)
class VerbalScale:
    """A verbal scale: its key, name, full citation, wording and bands (ascending)."""

    key: str
    name: str
    citation: str
    verification: str
    neutral: str
    statement_hp: str
    statement_hd: str
    bands: tuple[Band, ...]
    #: True: the bands were checked against the published source; False: they could not
    #: be (the report says so); None: not stated (e.g. a laboratory's own scale file).
    confirmed: bool | None = None
    #: "neutral": the scale defines the range below its first band as neutral;
    #: "undefined": it does not (the laboratory chooses the wording)
    below_first_band: Literal["neutral", "undefined"] = "neutral"

    def to_dict(self) -> dict:
        return {
            "key": self.key,
            "name": self.name,
            "citation": self.citation,
            "verification": self.verification,
            "confirmed": self.confirmed,
            "below_first_band": self.below_first_band,
            "neutral": self.neutral,
            "statement_hp": self.statement_hp,
            "statement_hd": self.statement_hd,
            "bands": [{"lower": b.lower, "level": b.level, "code": b.code} for b in self.bands],
        }


def _parse_scale(key: str, raw: object, source: str) -> VerbalScale:
    """Validate one scale table; errors name the file, the scale and the key."""
    where = f"{source}: scale {key!r}"
    if not isinstance(raw, dict):
        raise InputError(f"{where} must be a table with keys {', '.join(_TEXT_KEYS)}, bands")
    allowed = {*_TEXT_KEYS, "verification", "confirmed", "below_first_band", "bands"}
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise InputError(f"{where}: unknown key(s) {unknown}; allowed keys are {sorted(allowed)}")
    for k in _TEXT_KEYS:
        if not isinstance(raw.get(k), str) or not raw[k].strip():
            raise InputError(f"{where}: '{k}' must be a non-empty text")
    for k in ("statement_hp", "statement_hd"):
        try:
            parts = [p for p in string.Formatter().parse(raw[k]) if p[1] is not None]
        except ValueError as exc:  # an unmatched brace
            raise InputError(f"{where}: '{k}' has a stray brace ({exc}); write {{level}} "
                             "and {code} as placeholders and {{ }} for literal braces") from None
        if any(spec or conversion for _, _, spec, conversion in parts):
            raise InputError(
                f"{where}: '{k}' placeholders take no format or conversion: write {{level}} and "
                f"{{code}} plainly, got {excerpt(raw[k])}"
            )
        fields = {f for _, f, _, _ in parts}
        if "level" not in fields or not fields <= {"level", "code"}:
            raise InputError(
                f"{where}: '{k}' must contain {{level}} (and may contain {{code}}), "
                f"got {excerpt(raw[k])}"
            )
    bands_raw = raw.get("bands")
    if not isinstance(bands_raw, list) or not bands_raw:
        raise InputError(f"{where}: 'bands' must be a non-empty list of {{lower, level}} tables")
    bands = []
    for i, b in enumerate(bands_raw):
        if not isinstance(b, dict) or set(b) - {"lower", "level", "code"}:
            raise InputError(f"{where}: bands[{i}] must have keys lower, level (and code)")
        lower, level = b.get("lower"), b.get("level")
        if isinstance(lower, bool) or not isinstance(lower, int | float) or not (
            math.isfinite(lower) and lower >= 1
        ):
            raise InputError(f"{where}: bands[{i}].lower = {lower!r} must be a finite LR >= 1")
        if not isinstance(level, str) or not level.strip():
            raise InputError(f"{where}: bands[{i}].level must be a non-empty text")
        if bands and lower <= bands[-1].lower:
            raise InputError(f"{where}: bands[{i}].lower = {lower} must exceed the previous one")
        if lower == 1 and i > 0:
            raise InputError(f"{where}: only the first band may start at LR = 1")
        bands.append(Band(float(lower), level, str(b.get("code", ""))))
    confirmed = raw.get("confirmed")
    if confirmed is not None and not isinstance(confirmed, bool):
        raise InputError(f"{where}: 'confirmed' must be true or false, got {confirmed!r}")
    below = raw.get("below_first_band", "neutral")
    if below not in ("neutral", "undefined"):
        raise InputError(f"{where}: 'below_first_band' must be \"neutral\" or \"undefined\", "
                         f"got {below!r}")
    return VerbalScale(
        below_first_band=below,
        key=key,
        name=raw["name"],
        citation=raw["citation"],
        verification=str(raw.get("verification", "")),
        neutral=raw["neutral"],
        statement_hp=raw["statement_hp"],
        statement_hd=raw["statement_hd"],
        bands=tuple(bands),
        confirmed=confirmed,
    )


def _read_json(path: Path) -> object:
    return read_settings_file(path, "verbal scale file")


@cache
def _shipped() -> dict[str, VerbalScale]:
    data = _read_json(_DATA)
    return {k: _parse_scale(k, v, str(_DATA)) for k, v in data["scales"].items()}


def list_scales() -> dict[str, str]:
    """The shipped scales: key -> full name (the default is ``"enfsi"``)."""
    return {k: s.name for k, s in _shipped().items()}


def load_scale(name_or_path: str | Path) -> VerbalScale:
    """A shipped scale by key, or a laboratory's scale from a JSON file.

    A file holds either one scale table (its key is the file name's stem) or
    ``{"scales": {key: table}}`` with exactly one scale. It is validated fully.

    Raises
    ------
    InputError
        Unknown key, unreadable file, or a scale that breaks the schema.
    """
    shipped = _shipped()
    if isinstance(name_or_path, str) and name_or_path in shipped:
        return shipped[name_or_path]
    path = Path(name_or_path)
    if path.suffix.lower() != ".json":
        raise InputError(
            f"unknown verbal scale {str(name_or_path)!r}; choose one of {sorted(shipped)} "
            "or give the path of a JSON scale file"
        )
    input_file(path, "verbal scale file")
    data = _read_json(path)
    if isinstance(data, dict) and "scales" in data:
        scales = data["scales"]
        if not isinstance(scales, dict) or len(scales) != 1:
            raise InputError(f"{path}: 'scales' must hold exactly one scale table")
        ((key, raw),) = scales.items()
        return _parse_scale(str(key), raw, str(path))
    return _parse_scale(path.stem, data, str(path))


def printed_magnitude(log10_lr: float) -> Fraction:
    """``max(LR, 1/LR)`` as :func:`format_lr` prints it, exactly (two significant figures).

    ``Fraction(digits * 10**(k - 1))`` with ``digits`` in 10..99 (see
    :func:`format_lr`); LR = 0 or +inf has no finite printed magnitude (an error).
    """
    x = abs(float(log10_lr))
    if not math.isfinite(x):
        raise InputError(f"log10_lr = {log10_lr!r} has no finite printed value")
    digits, k = _two_significant(x)
    return Fraction(digits) * Fraction(10) ** (k - 1)


#: Band edges are float64 LRs (at most ~1.8e308), so a printed LR beyond 10**309 (or below
#: its inverse) lies above every band.
_BEYOND_BANDS = 309


def _band_index(log10_lr: float, scale: VerbalScale) -> int:
    """-1 below the first band, else the index of the band holding the printed LR."""
    if abs(log10_lr) > _BEYOND_BANDS:  # above every band; no exact 10**k with huge k
        return len(scale.bands) - 1
    m = printed_magnitude(log10_lr)
    index = -1
    for i, band in enumerate(scale.bands):
        edge = Fraction(band.lower)
        if (m > edge) if edge == 1 else (m >= edge):
            index = i
    return index


def verbal_equivalent(log10_lr: float, scale: str | Path | VerbalScale = DEFAULT_SCALE, *,
                      below_first_band: BelowFirstBand = "number") -> VerbalEquivalent:
    """The verbal expression of an LR on a scale, chosen from the LR as printed.

    Parameters
    ----------
    log10_lr : float
        Base-10 logarithm of the LR; +-inf allowed (top band), NaN is an error.
    scale : str, Path or VerbalScale
        A shipped scale key, a scale file, or a loaded scale.
    below_first_band : {"number", "neutral", "limited"}
        Wording below the first band when the scale leaves that range undefined
        (ENFSI: 1 < LR < 2): the number only, the neutral wording, or "limited support".
        Ignored for scales that define it (NFC level 0).

    Returns
    -------
    VerbalEquivalent
        ``favours`` is ``"hp"`` (printed LR > 1), ``"hd"`` (printed LR < 1) or
        ``"neither"`` (printed LR = 1, or the scale's neutral range).

    Notes
    -----
    With ``m`` the printed magnitude (:func:`printed_magnitude`: ``max(LR, 1/LR)``
    rounded to two significant figures, as :func:`format_lr` writes it), the band is the
    last one with ``m >= lower`` (``m > 1`` for a band starting at LR = 1): lower edges
    inclusive, so a printed "10" is moderate support on the ENFSI scale whether the LR was
    9.97 or 10.4; LR < 1 uses the same bands on 1/LR, the support going to Hd.

    References
    ----------
    1. Willis S. et al., ENFSI Guideline for Evaluative Reporting in Forensic Science, 2015.
    2. Nordgaard A., Ansell R., Drotz W., Jaeger L., Scale of conclusions for the value of
       evidence, Law, Probability and Risk 11 (2012) 1-24.
    """
    if not isinstance(scale, VerbalScale):
        scale = load_scale(scale)
    x = float(log10_lr)
    if math.isnan(x):
        raise InputError("log10_lr is NaN; a verbal equivalent needs a number")
    i = _band_index(x, scale)
    side = "hp" if x > 0 else "hd"
    printed_one = abs(x) < 1 and printed_magnitude(x) == 1
    if i < 0 and (printed_one or scale.below_first_band == "neutral"
                  or below_first_band == "neutral"):
        return VerbalEquivalent(
            scale=scale.key, scale_name=scale.name, level="no support for either proposition",
            favours="neither", statement=scale.neutral,
        )
    if i < 0 and below_first_band == "limited":
        template = scale.statement_hp if side == "hp" else scale.statement_hd
        return VerbalEquivalent(
            scale=scale.key, scale_name=scale.name, level="limited support", favours=side,
            statement=template.format(level="limited support", code=""),
        )
    if i < 0:
        edge = f"{scale.bands[0].lower:g}"
        return VerbalEquivalent(
            scale=scale.key, scale_name=scale.name, level="no verbal equivalent",
            favours=side, statement=(
                f"The LR lies between 1 and {edge} (or between 1/{edge} and 1), a range "
                "for which this scale gives no verbal equivalent; only the number is "
                "reported."
            ),
        )
    band = scale.bands[i]
    template = scale.statement_hp if side == "hp" else scale.statement_hd
    return VerbalEquivalent(
        scale=scale.key,
        scale_name=scale.name,
        level=band.level,
        favours=side,
        statement=template.format(level=band.level, code=band.code),
    )


def _two_significant(x: float) -> tuple[int, int]:
    """``10**x`` (x >= 0) as ``digits * 10**(k - 1)`` with ``digits`` in 10..99."""
    k = math.floor(x)
    digits = math.floor(10.0 ** (x - k + 1) + 0.5)
    if digits >= 100:
        digits, k = 10, k + 1
    return digits, k


#: From this |log10 LR| on, texts write the logarithm itself in scientific form: an LR of
#: ``10^(2.3 × 10^299)`` rather than an exponent of 300 digits.
HUGE_LOG10 = 1e6


def _scientific(x: float) -> str:
    """``x > 0`` to two significant figures as ``"2.3 × 10^299"``."""
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa} × 10^{int(exponent)}"


def format_log10(value: float, places: int = 3, *, sign: bool = False) -> str:
    """A logarithm (of an LR) as fixed-point text with ``places`` decimals.

    Beyond :data:`HUGE_LOG10` in size (an evidence score far outside the background under a
    linear model) the value is written ``"2.3 × 10^299"`` so that no text prints hundreds of
    digits; ``sign`` adds ``+`` to positive values.
    """
    x = float(value)
    if math.isfinite(x) and abs(x) >= HUGE_LOG10:
        text = _scientific(abs(x))
        return ("-" if x < 0 else "+" if sign else "") + text
    return f"{x:+.{places}f}" if sign else f"{x:.{places}f}"


def signed_log10(value: float) -> str:
    """A log10 LR in messages: ``"+1.23"``, or ``"+2.3 × 10^300"`` (:func:`format_log10`)."""
    return format_log10(value, 2, sign=True)


def format_lr(log10_lr: float) -> str:
    """The LR as text for a conclusion, rounded to two significant figures.

    Parameters
    ----------
    log10_lr : float
        Base-10 logarithm of the LR (+-inf allowed).

    Returns
    -------
    str
        For ``m = max(LR, 1/LR)`` rounded to two significant figures: ``"3.1"``,
        ``"31"``, ``"3,100"``, ``"310,000"`` when the rounded ``m < 10**6``, and
        ``"3.1 × 10^7"`` from ``10**6`` on; LR < 1 is written ``"1/20"`` or
        ``"1/(3.1 × 10^7)"``. LR = +inf is ``"∞"`` and LR = 0 is ``"0"``. From
        ``|log10 LR| >= 10**6`` on the exponent is itself scientific: ``"10^(2.3 × 10^299)"``.

    Notes
    -----
    Rounding to two significant figures changes the LR by at most 5 %
    (|log10 error| <= log10(1.05) ~ 0.021), so the text always agrees with the
    ``log10_lr`` printed beside it. The mantissa is computed from ``log10_lr``;
    the LR itself is never formed, so no value overflows.
    """
    x = float(log10_lr)
    if math.isnan(x):
        raise InputError("log10_lr is NaN; cannot format the LR")
    if math.isinf(x):
        return "∞" if x > 0 else "0"
    if abs(x) >= HUGE_LOG10:  # the exponent itself in scientific form, never its digits
        text = f"10^({_scientific(abs(x))})"
        return text if x >= 0 else f"1/{text}"
    digits, k = _two_significant(abs(x))
    if k >= 6:
        text = f"{digits // 10}.{digits % 10} × 10^{k}"
        return text if x >= 0 else f"1/({text})"
    text = f"{digits // 10}.{digits % 10}" if k == 0 else f"{digits * 10 ** (k - 1):,}"
    return text if x >= 0 or text == "1.0" else f"1/{text}"


def rounded_log10(log10_lr: float) -> float:
    """log10 of the LR as :func:`format_lr` prints it (two significant figures).

    ``rounded_log10(log10(2437))`` is ``log10(2400)``; +-inf stay infinite. Posterior
    odds computed from this value agree with the LR the reader sees.
    """
    x = float(log10_lr)
    if math.isinf(x) or math.isnan(x):
        return x
    digits, k = _two_significant(abs(x))
    return math.copysign(math.log10(digits) + k - 1, x)
