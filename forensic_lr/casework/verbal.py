"""Verbal equivalents of likelihood ratios, and the LR as rounded text.

The scales are data (``forensic_lr/data/verbal_scales.json``), each with its source;
a laboratory may give its own JSON file with the same schema. A scale is a list of
bands over the LR *magnitude* ``m = max(LR, 1/LR)``; LR > 1 favours Hp, LR < 1
favours Hd with the same bands (the scales are symmetric).

Band edges: a band applies when ``lower <= m < next lower`` (the lower edge is
inclusive, the upper exclusive), so LR = 10 is in [10, 100). The band is chosen from the
LR *as computed* (a |log10 LR| within :data:`EDGE_TOLERANCE` of an edge counts as on it:
floating-point noise, ``ln(1000)/ln(10) = 2.9999999999999996``), never from a rounded
value, so that rounding never moves an LR into a stronger band. The LR is printed to two
significant figures and its log10 to two decimals, each with one more digit at a time
where the rounded number would lie in another band (:func:`format_lr`,
:func:`format_log10_lr` with the scale): a reader converting either printed number lands
in the printed band. An LR of 99.4 prints "99" and "+1.997" (moderate support on the ENFSI
scale), 99.6 prints "99.6" and "+1.998" (moderate), 100.4 prints "100" and "+2.00"
(moderately strong). No LR is ever exponentiated.

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
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Literal

from .._numbers import HUGE_LOG10, fixed, scientific
from .._numbers import format_log10 as format_log10  # defined in _numbers, importable here
from .._numbers import signed_log10 as signed_log10
from ..errors import InputError, excerpt
from ..io.paths import input_file
from ..io.settings_files import read_settings_file
from ..records import Serialisable, VerbalEquivalent, jsonable

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
class VerbalScale(Serialisable):
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
    #: the scale's wording in other report languages (``languages`` in the scale data)
    wordings: tuple[tuple[str, ScaleWording], ...] = ()
    #: the language of the wording above ("en" unless :func:`in_language` made it)
    language: str = "en"
    #: the English levels of the bands, for finding a record's band in another language
    source_levels: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """The scale as its data file writes it (``languages`` a table by language)."""
        hidden = ("wordings", "language", "source_levels")
        out = {key: value for key, value in jsonable(self).items() if key not in hidden}
        if self.wordings:
            out["languages"] = dict(self.wordings)
        return jsonable(out)


@dataclass(frozen=True)
class ScaleWording:
    """A scale's wording in one report language (``languages.<code>`` of the scale data).

    ``levels`` follow the bands; ``statement_hp``/``statement_hd`` hold ``{level}`` (and
    ``{code}`` where the English does); ``no_equivalent`` holds ``{edge}``. ``source`` says
    where the wording comes from: a published translation, or the project's (or the
    laboratory's) own translation.
    """

    source: str
    levels: tuple[str, ...]
    statement_hp: str
    statement_hd: str
    neutral: str
    neutral_level: str
    limited: str
    no_equivalent: str
    no_equivalent_level: str


_WORDING_KEYS = ("source", "levels", "statement_hp", "statement_hd", "neutral",
                 "neutral_level", "limited", "no_equivalent", "no_equivalent_level")


def _placeholders(text: str, where: str) -> set[str]:
    """The ``{name}`` fields of a scale text; a stray brace is an InputError."""
    try:
        return {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}
    except ValueError as exc:
        raise InputError(f"{where} has a stray brace ({exc}); write {{{{ }}}} for literal "
                         "braces") from None


def _parse_wordings(raw: object, english: dict, n_bands: int,
                    where: str) -> tuple[tuple[str, ScaleWording], ...]:
    """``languages`` of a scale: each language's wording, with the English placeholders."""
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        raise InputError(f"{where}: 'languages' must be a table of language codes")
    out = []
    for lang, table in raw.items():
        at = f"{where}: languages.{lang}"
        if not isinstance(table, dict) or set(table) != set(_WORDING_KEYS):
            raise InputError(f"{at} must have exactly the keys {', '.join(_WORDING_KEYS)}")
        levels = table["levels"]
        if (not isinstance(levels, list) or len(levels) != n_bands
                or not all(isinstance(v, str) and v.strip() for v in levels)):
            raise InputError(f"{at}.levels must list {n_bands} non-empty texts, one per band")
        for k in ("source", *_WORDING_KEYS[2:]):
            if not isinstance(table[k], str) or not table[k].strip():
                raise InputError(f"{at}.{k} must be a non-empty text")
        for k in ("statement_hp", "statement_hd", "neutral"):
            if _placeholders(table[k], f"{at}.{k}") != _placeholders(english[k], k):
                raise InputError(f"{at}.{k} must keep the English text's placeholders "
                                 f"{sorted(_placeholders(english[k], k))}")
        if _placeholders(table["no_equivalent"], f"{at}.no_equivalent") != {"edge"}:
            raise InputError(f"{at}.no_equivalent must contain {{edge}} (the first band's edge)")
        out.append((str(lang), ScaleWording(**{**table, "levels": tuple(levels)})))
    return tuple(out)


def _parse_scale(key: str, raw: object, source: str) -> VerbalScale:
    """Validate one scale table; errors name the file, the scale and the key."""
    where = f"{source}: scale {key!r}"
    if not isinstance(raw, dict):
        raise InputError(f"{where} must be a table with keys {', '.join(_TEXT_KEYS)}, bands")
    allowed = {*_TEXT_KEYS, "verification", "confirmed", "below_first_band", "bands",
               "languages"}
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
        wordings=_parse_wordings(raw.get("languages"), raw, len(bands), where),
        source_levels=tuple(b.level for b in bands),
    )


#: English texts of the wordings that are not a band's level (the records hold these)
_NEUTRAL_LEVEL, _LIMITED_LEVEL, _NO_EQUIVALENT = (
    "no support for either proposition", "limited support", "no verbal equivalent")


def in_language(scale: VerbalScale, language: str) -> VerbalScale:
    """``scale`` worded in ``language`` (English: the scale itself).

    Name, citation and band edges stay as given; levels and statements come from the
    scale's ``languages.<language>`` table.

    Raises
    ------
    InputError
        The scale gives no wording in that language (a laboratory's scale file adds a
        ``languages`` table, see docs/user/report-languages.md).
    """
    if language == scale.language:
        return scale
    wording = dict(scale.wordings).get(language)
    if wording is None:
        raise InputError(
            f"verbal scale {scale.key!r} has no wording in {language!r}; add "
            f"'languages.{language}' (levels, statements, source) to the scale's data, or "
            "write the report in a language the scale gives"
        )
    return replace(
        scale, language=language, neutral=wording.neutral,
        statement_hp=wording.statement_hp, statement_hd=wording.statement_hd,
        bands=tuple(replace(b, level=level) for b, level in zip(scale.bands, wording.levels,
                                                                strict=True)),
    )


def _wording(scale: VerbalScale) -> ScaleWording | None:
    return dict(scale.wordings).get(scale.language)


def level_in(level: str, scale: VerbalScale) -> str:
    """A record's (English) verbal level in the language of ``scale`` (:func:`in_language`)."""
    wording = _wording(scale)
    if wording is None:
        return level
    if level in scale.source_levels:
        return wording.levels[scale.source_levels.index(level)]
    return {_NEUTRAL_LEVEL: wording.neutral_level, _LIMITED_LEVEL: wording.limited,
            _NO_EQUIVALENT: wording.no_equivalent_level}.get(level, level)


def statement_in(verbal: VerbalEquivalent, scale: VerbalScale) -> str:
    """A record's verbal statement in the language of ``scale``, from its level and side.

    The English record keeps its English statement; this gives the same band's wording
    (for an ENFSI-type scale, the support the findings give one proposition rather than
    the other: never a proposition's probability).
    """
    wording = _wording(scale)
    if wording is None:
        return verbal.statement
    if verbal.favours == "neither":
        return wording.neutral
    if verbal.level == _NO_EQUIVALENT:
        return wording.no_equivalent.format(edge=f"{scale.bands[0].lower:g}")
    template = wording.statement_hp if verbal.favours == "hp" else wording.statement_hd
    if verbal.level == _LIMITED_LEVEL:
        return template.format(level=wording.limited, code="")
    i = scale.source_levels.index(verbal.level)
    return template.format(level=wording.levels[i], code=scale.bands[i].code)


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


#: A computed |log10 LR| this close to a band edge counts as on the edge (and an LR this
#: close to 1 as 1): float rounding, e.g. ``ln(1000)/ln(10) = 2.9999999999999996``, must not
#: move an LR of 1000 into the band below. Far below any model's own accuracy.
EDGE_TOLERANCE = 1e-9


def _index_of_log10(a: float, scale: VerbalScale, tolerance: float) -> int:
    """-1 below the first band, else the band of the magnitude ``10**a`` (``a >= 0``).

    Edges are compared in log10 (``math.log10`` is exact at powers of ten); a band
    starting at LR = 1 starts just above 1.
    """
    index = -1
    for i, band in enumerate(scale.bands):
        edge = math.log10(band.lower)
        if (a > tolerance) if band.lower == 1 else (a >= edge - tolerance):
            index = i
    return index


def _index_of_magnitude(m: Fraction, scale: VerbalScale) -> int:
    """:func:`_index_of_log10` for an exact printed magnitude ``m >= 1`` (no tolerance)."""
    index = -1
    for i, band in enumerate(scale.bands):
        edge = Fraction(band.lower)
        if (m > edge) if edge == 1 else (m >= edge):
            index = i
    return index


def _wording_class(index: int, side: str, scale: VerbalScale,
                   below_first_band: BelowFirstBand) -> tuple:
    """What decides the wording: ``("neither",)`` or ``(band index, side)``.

    ``side`` is ``"neither"`` for LR = 1; below the first band every LR is neutral when
    the scale or the laboratory's setting says so.
    """
    if side == "neither" or (index < 0 and "neutral" in (scale.below_first_band,
                                                         below_first_band)):
        return ("neither",)
    return (index, side)


def _computed_class(x: float, scale: VerbalScale, below_first_band: BelowFirstBand) -> tuple:
    side = "neither" if abs(x) <= EDGE_TOLERANCE else "hp" if x > 0 else "hd"
    return _wording_class(_index_of_log10(abs(x), scale, EDGE_TOLERANCE), side, scale,
                          below_first_band)


def verbal_equivalent(log10_lr: float, scale: str | Path | VerbalScale = DEFAULT_SCALE, *,
                      below_first_band: BelowFirstBand = "number") -> VerbalEquivalent:
    """The verbal expression of an LR on a scale, chosen from the LR as computed.

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
    The band is the last one with ``|log10 LR| >= log10(lower)`` (``> 0`` for a band
    starting at LR = 1), within :data:`EDGE_TOLERANCE`: lower edges inclusive, chosen from
    the LR as computed, so an LR of 9.97 is weak support on the ENFSI scale (and prints
    "9.97", see :func:`format_lr`); LR < 1 uses the same bands on 1/LR, the support going
    to Hd.

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
    wording = _computed_class(x, scale, below_first_band)
    if wording == ("neither",):
        return VerbalEquivalent(
            scale=scale.key, scale_name=scale.name, level=_NEUTRAL_LEVEL,
            favours="neither", statement=scale.neutral,
        )
    i, side = wording
    if i < 0 and below_first_band == "limited":
        template = scale.statement_hp if side == "hp" else scale.statement_hd
        return VerbalEquivalent(
            scale=scale.key, scale_name=scale.name, level=_LIMITED_LEVEL, favours=side,
            statement=template.format(level=_LIMITED_LEVEL, code=""),
        )
    if i < 0:
        edge = f"{scale.bands[0].lower:g}"
        return VerbalEquivalent(
            scale=scale.key, scale_name=scale.name, level=_NO_EQUIVALENT,
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


def _significant(x: float, n: int) -> tuple[int, int]:
    """``10**x`` (x >= 0) as ``digits * 10**(k - n + 1)`` with ``digits`` of ``n`` figures."""
    k = math.floor(x)
    digits = math.floor(10.0 ** (x - k + n - 1) + 0.5)
    if digits >= 10**n:
        digits, k = 10 ** (n - 1), k + 1
    return digits, k


def _lr_text(x: float, n: int) -> tuple[str, int, int]:
    """The LR ``10**x`` (finite) to ``n`` significant figures: its text, and its magnitude
    exactly as ``digits * 10**power``.

    ``"3.1"``, ``"31"``, ``"3,100"``, ``"310,000"`` below ``10**6``, ``"3.1 × 10^7"`` from
    it on; LR < 1 as ``"1/20"``, ``"1/(3.1 × 10^7)"``, and at two figures a whole
    reciprocal without its ".0" (``"1/2"``, not ``"1/2.0"``); a magnitude of 1 is ``"1.0"``.
    """
    digits, k = _significant(abs(x), n)
    power = k - n + 1
    unit = 10 ** (n - 1)
    if k >= 6:
        text = f"{digits // unit}.{digits % unit:0{n - 1}d} × 10^{k}"
        return (text if x >= 0 else f"1/({text})"), digits, power
    if power >= 0:
        text = f"{digits * 10**power:,}"
    else:
        whole, part = divmod(digits, 10**-power)
        text = f"{whole:,}.{part:0{-power}d}"
        if x < 0 and n == 2 and part == 0 and whole > 1:
            text = f"{whole}"  # "1/2", not "1/2.0"
    if x >= 0 or (digits, power) == (unit, -(n - 1)):  # a magnitude of 1
        return text, digits, power
    return f"1/{text}", digits, power


def _printed_lr(x: float, scale: VerbalScale | None,
                below_first_band: BelowFirstBand) -> tuple[str, int, int]:
    """:func:`_lr_text` with the fewest figures (two or more) that keep the LR's band."""
    text = _lr_text(x, 2)
    if scale is None or abs(x) > _BEYOND_BANDS:
        return text
    wanted = _computed_class(x, scale, below_first_band)
    for n in range(2, _MAX_DIGITS + 1):
        text = _lr_text(x, n)
        magnitude = Fraction(text[1]) * Fraction(10) ** text[2]
        side = "neither" if magnitude == 1 else "hp" if x > 0 else "hd"
        index = _index_of_magnitude(magnitude, scale)
        if _wording_class(index, side, scale, below_first_band) == wanted:
            break
    return text


#: Band edges are float64 LRs (at most ~1.8e308): from |log10 LR| = 309 on, every rounding
#: of the LR lies above every band.
_BEYOND_BANDS = 309
#: Most significant figures (or log10 decimals) a printed LR takes to stay in its band;
#: enough for any LR at least :data:`EDGE_TOLERANCE` (in log10) from an edge.
_MAX_DIGITS = 12


def format_log10_lr(log10_lr: float, scale: VerbalScale | None = None, *,
                    below_first_band: BelowFirstBand = "number") -> str:
    """The log10 LR printed beside an LR: signed, two decimals, more near a band edge.

    With a ``scale``, decimals are added one at a time while ``10**(printed value)`` would
    lie in another band (or on another side of 1) than the LR as computed
    (:func:`verbal_equivalent`): an LR of 99.4 prints ``"+1.997"``, not ``"+2.00"`` (which
    reads as 100, moderately strong support). Never ``"-0.00"``.
    """
    x = float(log10_lr)
    text = signed_log10(x)
    if scale is None or not math.isfinite(x) or abs(x) >= HUGE_LOG10:
        return text
    wanted = _computed_class(x, scale, below_first_band)
    for places in range(2, _MAX_DIGITS + 1):
        text = fixed(x, places, sign=True)
        value = float(text)
        side = "neither" if value == 0 else "hp" if value > 0 else "hd"
        index = _index_of_log10(abs(value), scale, 0.0)
        if _wording_class(index, side, scale, below_first_band) == wanted:
            return text
    return text


def format_lr(log10_lr: float, scale: VerbalScale | None = None, *,
              below_first_band: BelowFirstBand = "number") -> str:
    """The LR as text for a conclusion, rounded to two significant figures.

    Parameters
    ----------
    log10_lr : float
        Base-10 logarithm of the LR (+-inf allowed).
    scale : VerbalScale, optional
        The scale the LR is worded on. With it, significant figures are added one at a
        time while the printed LR would lie in another band (or on another side of 1)
        than the LR as computed (:func:`verbal_equivalent`, with ``below_first_band``):
        99.6 prints ``"99.6"`` (moderate on the ENFSI scale), not ``"100"``.

    Returns
    -------
    str
        For ``m = max(LR, 1/LR)`` rounded to two significant figures: ``"3.1"``,
        ``"31"``, ``"3,100"``, ``"310,000"`` when the rounded ``m < 10**6``, and
        ``"3.1 × 10^7"`` from ``10**6`` on; LR < 1 is written ``"1/20"``, ``"1/2"`` or
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
        text = f"10^({scientific(abs(x))})"
        return text if x >= 0 else f"1/{text}"
    return _printed_lr(x, scale, below_first_band)[0]


def rounded_log10(log10_lr: float, scale: VerbalScale | None = None, *,
                  below_first_band: BelowFirstBand = "number") -> float:
    """log10 of the LR as :func:`format_lr` prints it (same ``scale`` and setting).

    ``rounded_log10(log10(2437))`` is ``log10(2400)``; +-inf stay infinite. Posterior
    odds computed from this value agree with the LR the reader sees.
    """
    x = float(log10_lr)
    if math.isinf(x) or math.isnan(x) or abs(x) >= HUGE_LOG10:
        return x
    _, digits, power = _printed_lr(x, scale, below_first_band)
    return math.copysign(math.log10(digits) + power, x)
