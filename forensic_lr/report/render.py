"""Jinja2 rendering of the reports: one sandboxed environment, autoescaped, with filters.

Templates come from the package and, first, from a lab's template folder (trusted lab
configuration, see docs/user/trust-model.md). Both render in jinja's immutable sandbox
(:class:`jinja2.sandbox.ImmutableSandboxedEnvironment`): a template can read the values it
is given but not reach Python internals (``cycler.__init__.__globals__``...), call
methods of the result records or methods that change values, or build huge strings and
numbers. Files are read only from
inside the template folders: a template or stylesheet that is a symbolic link leading out
is refused. A mistake in a lab template is an :class:`~forensic_lr.errors.InputError`
naming the template file and line.
"""

from __future__ import annotations

import contextvars
import functools
import math
import numbers
import os
import re
import sys
import time
import traceback
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError
from markupsafe import Markup, escape

from .._numbers import format_log10, signed_log10
from .._resources import templates_dir
from ..casework.profile import criterion_label, setting_label, setting_value_text
from ..casework.verbal import format_log10_lr, format_lr, level_in, statement_in
from ..errors import InputError, excerpt
from ..i18n import N_, SOURCE_LANGUAGE, check_language, translations
from ..i18n.classes import ClassNames, class_gettext
from ..i18n.formatting import localized, long_date, percent_text
from ..i18n.messages import message_text, statement, warning_text
from ..limits import LIMITS
from ..metrics.catalogue import fixed, metric
from ..records import BOUNDS_TERMS

#: Largest text or list a template may build in one step, and largest exponent of ``**``.
MAX_TEMPLATE_LENGTH = LIMITS["template_value_characters"].most
MAX_TEMPLATE_EXPONENT = LIMITS["template_exponent"].most
#: Largest integer a template may compute, in bits (from the digits of the limits table).
MAX_TEMPLATE_BITS = int(LIMITS["template_integer_digits"].most * math.log2(10))

#: Illustrative prior odds for the annex: how an LR updates prior odds.
PRIOR_ODDS_LOG10 = (-6, -4, -2, 0, 2)


def template_roots(template_dir: str | Path | None = None) -> tuple[Path, ...]:
    """The lab's template folder (if any) first, then the shipped templates."""
    shipped = templates_dir()
    return (Path(template_dir), shipped) if template_dir else (shipped,)


def _inside(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


class _FolderLoader(jinja2.FileSystemLoader):
    """A file-system loader that refuses files whose real path lies outside its folder."""

    def get_source(self, environment, template):
        source, filename, uptodate = super().get_source(environment, template)
        root = Path(self.searchpath[0])
        if not _inside(Path(filename), root):
            raise InputError(
                f"template {excerpt(template)} is a symbolic link leading out of the template "
                "folder; copy the file into the folder instead", path=str(root)
            )
        return source, filename, uptodate


class _Budget:
    """What one rendering may still spend: a deadline and a depth of nested macro calls."""

    def __init__(self, env: jinja2.Environment) -> None:
        self.env = env
        self.seconds = LIMITS["template_seconds"].most
        self.deadline = time.monotonic() + self.seconds
        self.depth = 0
        self.lines = 0

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise SecurityError(f"rendering took more than {self.seconds} seconds")

    def trace(self, frame, event, arg):
        """``sys.settrace`` hook: template code (compiled by this environment) checks the
        deadline every 1,000 lines it runs, so a loop that prints nothing stops too."""
        if frame.f_globals.get("environment") is not self.env:
            return None
        return self._line

    def _line(self, frame, event, arg):
        self.lines += 1
        if self.lines % 1000 == 0:
            self.check_time()
        return self._line


_BUDGET: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar("budget", default=None)
#: How the report being rendered names the two classes of background trials (:func:`render`).
_CLASSES: contextvars.ContextVar[ClassNames | None] = contextvars.ContextVar("classes",
                                                                            default=None)


def _too_long(size: int, what: str) -> None:
    if size > MAX_TEMPLATE_LENGTH:
        raise SecurityError(f"{what} would be {size:,} characters or items long, above the "
                            f"limit of {MAX_TEMPLATE_LENGTH:,}")


def _format_widths(fmt: str, args, kwargs, what: str) -> None:
    """A format string (``%`` or ``str.format``) may not pad to more than the limit: no
    width in it, and no number given for a ``*`` or nested width, above it."""
    for digits in re.findall(r"\d{7,}", fmt):
        _too_long(int(digits), what)
    if "*" in fmt or re.search(r"\{[^{}]*\{", fmt):
        values = list(args) if isinstance(args, list | tuple) else [args]
        for value in [*values, *kwargs.values()]:
            if isinstance(value, int) and not isinstance(value, bool):
                _too_long(abs(value), what)


def _check_method(method, args, kwargs) -> tuple:
    """Refuse a ``str`` method call whose result would exceed the limit; return the
    arguments to call it with (a ``join`` of a generator is listed once)."""
    text = getattr(method, "__self__", None)
    name = getattr(method, "__name__", "")
    if not isinstance(text, str):
        return args
    what = f"{name}()"
    if name in ("zfill", "ljust", "rjust", "center") and args and isinstance(args[0], int):
        _too_long(args[0], what)
    elif name == "expandtabs":
        tab = args[0] if args else kwargs.get("tabsize", 8)
        if isinstance(tab, int):
            _too_long(len(text) + text.count("\t") * tab, what)
    elif name == "replace" and len(args) >= 2 and all(isinstance(a, str) for a in args[:2]):
        _too_long(_replaced_length(text, *args[:2], *args[2:3]), what)
    elif name == "join" and args:
        items = args[0] if isinstance(args[0], list | tuple | str) else list(args[0])
        _too_long(sum(len(i) for i in items if isinstance(i, str))
                  + len(text) * max(len(items) - 1, 0), what)
        args = (items, *args[1:])
    elif name in ("format", "format_map"):
        _format_widths(text, args[0] if name == "format_map" else args, kwargs, what)
    return args


def _replaced_length(text: str, old: str, new: str, count: int = -1) -> int:
    """Length of ``text.replace(old, new, count)`` without building it."""
    found = text.count(old) if old else len(text) + 1
    if isinstance(count, int) and count >= 0:
        found = min(found, count)
    return len(text) + found * (len(new) - len(old))


def _bounded_filter(name: str, func):
    """A filter that refuses arguments making its result longer than the limit, and a
    result longer than the limit (filters are called directly, not through the sandbox)."""
    value_at = 1 if getattr(func, "jinja_pass_arg", None) else 0

    @functools.wraps(func)
    def bounded(*args, **kwargs):
        value, rest = (args[value_at], args[value_at + 1:]) if len(args) > value_at else (
            None, ())
        what = f"the filter {name}"
        width = {"center": "width", "indent": "width", "batch": "linecount",
                 "slice": "slices", "tojson": "indent"}.get(name)
        if width is not None:
            given = rest[0] if rest else kwargs.get(width)
            if isinstance(given, int) and not isinstance(given, bool):
                lines = str(value).count("\n") + 1 if name == "indent" else 1
                _too_long(given * lines, what)
        elif name == "format" and isinstance(value, str):
            _format_widths(value, rest, kwargs, what)
        elif name == "replace" and len(rest) >= 2 and isinstance(value, str):
            _too_long(_replaced_length(value, str(rest[0]), str(rest[1]), *rest[2:3]), what)
        result = func(*args, **kwargs)
        if isinstance(result, str | list | tuple):
            _too_long(len(result), what)
        return result

    return bounded


class _ReportSandbox(ImmutableSandboxedEnvironment):
    """The immutable sandbox, rendering under a budget.

    Templates may read the records' values but call none of their methods, nor any
    method of a class: pydantic's ``parse_file`` classmethod, for one, would read any
    file named. A template may build no text or list longer than
    :data:`MAX_TEMPLATE_LENGTH` in one step (``*``, ``zfill``, ``center``, ``join``,
    ``replace``, format widths...), raise no power beyond :data:`MAX_TEMPLATE_EXPONENT`,
    compute no integer beyond :data:`MAX_TEMPLATE_BITS`, nest macro calls no deeper than
    the limits table says, and (with :func:`render`) run no longer than its deadline.
    """

    intercepted_binops = frozenset({"*", "**", "%"})

    def is_safe_attribute(self, obj, attr, value) -> bool:
        if callable(value) and (
            isinstance(obj, type)
            or type(obj).__module__.partition(".")[0] in ("forensic_lr", "pydantic")
        ):
            return False
        return super().is_safe_attribute(obj, attr, value)

    def call_binop(self, context, operator, left, right):
        budget = _BUDGET.get()
        if budget is not None:
            budget.check_time()
        if operator == "**" and isinstance(right, numbers.Real) and (
            abs(right) > MAX_TEMPLATE_EXPONENT
        ):
            raise SecurityError(f"exponent {right!r} is larger than {MAX_TEMPLATE_EXPONENT}")
        ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (left, right))
        if operator == "**" and ints and abs(left) > 1 and (
                left.bit_length() * right > MAX_TEMPLATE_BITS):
            raise SecurityError(f"a power of about {left.bit_length() * right:,} bits, above "
                                f"the limit of {MAX_TEMPLATE_BITS:,}")
        if operator == "*" and ints and (
                left.bit_length() + right.bit_length() > MAX_TEMPLATE_BITS):
            raise SecurityError(f"a product of about {left.bit_length() + right.bit_length():,}"
                                f" bits, above the limit of {MAX_TEMPLATE_BITS:,}")
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if (isinstance(seq, str | list | tuple) and isinstance(times, int)
                        and len(seq) * times > MAX_TEMPLATE_LENGTH):
                    raise SecurityError(
                        f"repetition longer than {MAX_TEMPLATE_LENGTH:,} items"
                    )
        if operator == "%" and isinstance(left, str):
            _format_widths(left, right, right if isinstance(right, dict) else {},
                           "a % format")
        return super().call_binop(context, operator, left, right)

    def call(self, context, obj, /, *args, **kwargs):
        """Call ``obj`` (a method, a macro...) within the budget: the deadline, the depth
        of nested macro calls and the length of what a ``str`` method builds."""
        budget = _BUDGET.get()
        args = _check_method(getattr(obj, "__wrapped__", obj), args, kwargs)
        if budget is None:
            return super().call(context, obj, *args, **kwargs)
        budget.check_time()
        budget.depth += 1
        try:
            most = LIMITS["template_depth"].most
            if budget.depth > most:
                raise SecurityError(f"calls nest more than {most} deep (a macro calling "
                                    "itself?)")
            result = super().call(context, obj, *args, **kwargs)
        finally:
            budget.depth -= 1
        if isinstance(result, str | list | tuple):
            _too_long(len(result), "a call")
        return result


def environment(template_dir: str | Path | None = None,
                language: str = SOURCE_LANGUAGE) -> jinja2.Environment:
    """Sandboxed, autoescaping, strict environment: the lab's folder before the shipped one.

    Templates are written in English; jinja's i18n extension translates their
    ``{% trans %}`` blocks and ``_()`` texts into ``language`` from the ``report``
    catalogue, and the filters write numbers as the locale does (Babel/CLDR marks,
    :mod:`forensic_lr.i18n.formatting`). English renders exactly as the templates read.
    """
    loader = jinja2.ChoiceLoader(
        [_FolderLoader(str(root)) for root in template_roots(template_dir)]
    )
    env = _ReportSandbox(
        loader=loader,
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    t = translations(language, "report")

    def template_gettext(text: str) -> str:
        """The templates' ``_()``, in the class wording of the report being rendered
        (labels HTML-escaped; jinja formats every text, so a ``%`` in a label is doubled)."""
        return class_gettext(t.gettext, _CLASSES.get(), escape, formatted=True)(text)

    env.install_gettext_callables(template_gettext, t.ngettext, newstyle=True,
                                  pgettext=t.pgettext, npgettext=t.npgettext)
    env.globals["language"] = language  # <html lang="...">
    _ = t.gettext

    def num(text: str) -> str:
        return localized(text, language)

    def lr_text(text: str) -> Markup:
        return lr_markup(num(text))

    def na(value) -> bool:
        return value is None or _nan(value)

    env.filters.update(
        log10=lambda v: _(N_("n/a")) if v is None else num(signed_log10(v)),
        metric=lambda v, digits=3: _(N_("n/a")) if na(v) else num(fixed(v, digits)),
        percent=lambda v: _(N_("n/a")) if na(v) else percent_text(fixed(100 * v, 1), language),
        # a criterion's threshold in its metric's unit ("5 %" beside "3.9 %", not "0.05")
        limit=lambda threshold, key: _limit(metric(key).limit(threshold), language),
        lr=lambda text: lr_text(str(text)),
        times=lambda log10_lr: lr_text(format_lr(abs(log10_lr))),
        # "about N times" from the LR as printed ("1/99.6" -> "99.6"): the words agree with it
        times_of=lambda text: lr_text(_magnitude(str(text))),
        odds=lambda log10_odds: odds_markup(log10_odds, language),
        count=lambda v: num(f"{int(v):,}"),
        lr_of=lambda log10_lr: lr_text(format_lr(log10_lr)),
        # an LR and its log10 beside a verbal level of ``scale`` with the laboratory's wording
        # below its first band: digits added near a band edge (docs/user/report.md)
        lr_on=lambda log10_lr, scale, below="number": lr_text(
            format_lr(log10_lr, scale, below_first_band=below)),
        log10_on=lambda log10_lr, scale, below="number": num(format_log10_lr(
            log10_lr, scale, below_first_band=below)),
        sig=lambda value, digits=3: num(significant(value, digits)) if not na(value)
        else _(N_("n/a")),
        log10_interval=lambda low, high, digits=2, signed=True: log10_interval(
            low, high, digits, signed, language),
        # a rate's interval, given as shares: "[1.2, 3.4] %"
        percent_interval=lambda low, high: log10_interval(
            100 * low, 100 * high, 1, False, language).replace(
            "]", "]" + percent_text("", language)),
        long_date=lambda text: long_date(text, language),
        # a record's verbal statement and level in the wording of ``scale``, the scale in
        # the report's language (forensic_lr.casework.verbal.in_language)
        said=lambda verbal, scale: statement_in(verbal, scale),
        # a record's English text from its message (code and parameters, the same index
        # in ``messages``) in the language's ``messages`` catalogue; a record without
        # messages (written before they existed) prints its text as written
        worded=lambda text, messages, i: text if i >= len(messages)
        else message_text(messages[i].code, messages[i].params, language,
                          classes=_CLASSES.get()),
        # a record's text from all its messages joined by ``sep`` (a note's parts, a
        # paragraph's sentences); ``scale`` words its verbal levels; none: as written
        worded_all=lambda text, messages, sep="; ", scale=None: sep.join(
            message_text(m.code, m.params, language, _levels(scale), _CLASSES.get())
            for m in messages)
        if messages else text,
        # a record's sentence from its parts (capitalised, full stop): EvidenceLR.uncertainty
        stated=lambda text, messages: statement(messages, language,
                                                classes=_CLASSES.get()) if messages else text,
        # a warning of the records in the language: from its code and parameters
        # (CaseResult.warning_messages, recorded where it was raised); a record without one
        # (an older result.json) from the code recognised in its English text; a text
        # without a code as written
        warned=lambda text, message=None: warning_text(
            str(text), language, classes=_CLASSES.get()) if message is None
        else message_text(message.code, message.params, language,
                          classes=_CLASSES.get()),
        level_in=lambda level, scale: level_in(str(level), scale),
        # annex E: a policy setting's label by its key, and what a keyword value means
        # ("" for a value that is no keyword), in the language (casework.profile)
        setting_label=lambda key: message_text(*found, language) if (
            found := criterion_label(str(key))) else class_gettext(
            _, _CLASSES.get(), formatted=False)(setting_label(str(key))),
        setting_value=lambda key, value: class_gettext(_, _CLASSES.get(), formatted=False)(
            text) if (text := setting_value_text(str(key), value)) else "",
        # a text the package marked with N_ (metric names, check rows), in the language;
        # ``values`` fill its %(name)s placeholders
        tr=lambda text, values=None: "" if not text else class_gettext(
            _, _CLASSES.get(), formatted=bool(values))(str(text)) % {
            k: num(v) for k, v in values.items()} if values else class_gettext(
            _, _CLASSES.get(), formatted=False)(str(text)),
        # a number the records hold as English text ("+2.45", "2,400"), in the locale's marks
        num=lambda text: num(str(text)),
        # a number as Python's "%g" writes it ("2", "0.5"), in the locale's marks
        g=lambda value: num(f"{value:g}"),
        # a bounds rule ([method] bounds) by its name in the language: "ELUB", ...
        bounds_term=lambda rule: _(BOUNDS_TERMS[str(rule)]),
    )
    env.filters = {name: _bounded_filter(name, func) for name, func in env.filters.items()}
    return env


def _levels(scale):
    """The verbal levels of ``scale`` in its language (None: as written)."""
    return None if scale is None else (lambda level: level_in(level, scale))


def _limit(text: str, language: str) -> str:
    """:meth:`Metric.limit`'s ``"5 %"`` or ``"0.5"`` in ``language``'s marks."""
    if text.endswith(" %"):
        return percent_text(text[:-2], language)
    return localized(text, language)


@functools.lru_cache(maxsize=16)
def _shared_environment(template_dir: str | None, _folder_state: tuple,
                        language: str) -> jinja2.Environment:
    return environment(template_dir, language)


def _folder_state(folder: Path) -> tuple:
    """``(name, modification time)`` of the files directly in ``folder``: a lab folder that
    gains, loses or changes a file gets a new environment."""
    try:
        with os.scandir(folder) as entries:
            return tuple(sorted((e.name, e.stat().st_mtime_ns) for e in entries))
    except OSError:  # a missing folder: the loader names it when a template is looked up
        return ()


def cached_environment(template_dir: str | Path | None = None,
                       language: str = SOURCE_LANGUAGE) -> jinja2.Environment:
    """:func:`environment`, made once per template folder and language and kept with its
    compiled templates (compiling the case report's templates costs about 20 times
    rendering them).

    A lab's folder is looked at on every call: a file added, removed or changed there
    gives a new environment; jinja itself reloads a changed shipped template. A
    language whose ``report`` catalogue is incomplete is refused
    (:func:`forensic_lr.i18n.check_language`).
    """
    check_language(language, "report")
    if not template_dir:
        return _shared_environment(None, (), language)
    folder = Path(template_dir).resolve()
    return _shared_environment(str(folder), _folder_state(folder), language)


def _nan(value) -> bool:
    return isinstance(value, float) and math.isnan(value)


def lr_markup(text: str) -> Markup:
    """An LR text (:func:`forensic_lr.casework.verbal.format_lr`) with ``10^k`` as a superscript."""
    return Markup(re.sub(r"10\^(-?\d+)", r"10<sup>\1</sup>", str(escape(text))))


def significant(value: float | None, digits: int = 3) -> str:
    """``value`` to ``digits`` significant figures, trailing zeros kept: 6.1 -> "6.10".

    Unlike ``"%.3g"``, which prints 6.10 as "6.1" and so hides the precision of the other
    numbers of its column.
    """
    if value is None or _nan(value):
        return "n/a"
    text = f"{value + 0.0:#.{digits}g}"  # + 0.0: no "-0.00" for a negative zero
    return text[:-1] if text.endswith(".") else text


def log10_interval(low: float | None, high: float | None, digits: int = 2,
                   signed: bool = True, language: str = SOURCE_LANGUAGE) -> str:
    """``"[+1.20, +2.45]"``; when both ends print the same, the value and "not estimable".

    A zero-width interval (every bootstrap replicate at the PAV cap, or both ends cut at
    one ELUB bound) would claim the value could not change: the report prints the bound
    and says that no interval can be estimated there. In ``language`` (the ``report``
    catalogue; a decimal-comma language separates the ends with ``;``).
    """
    _ = translations(language, "report").gettext
    if low is None or high is None or _nan(low) or _nan(high):
        return _(N_("n/a"))
    a, b = (localized(format_log10(v, digits, sign=signed), language) for v in (low, high))
    if a == b:
        return _(N_("not estimable (both ends at %(value)s)")) % {"value": a}
    return _(N_("[%(low)s, %(high)s]")) % {"low": a, "high": b}


def odds_markup(log10_odds: float, language: str = SOURCE_LANGUAGE) -> Markup:
    """Odds as "N to 1" or "1 to N", rounded like the LR; even odds as "1 to 1"."""
    t = translations(language, "report")
    if abs(log10_odds) < 1e-9:
        return Markup(escape(t.gettext(N_("%(n)s to %(m)s")) % {"n": "1", "m": "1"}))
    pattern = Markup(escape(t.gettext(N_("%(n)s to %(m)s"))))
    if log10_odds >= 0:
        return pattern % {"n": lr_markup(localized(format_lr(log10_odds), language)), "m": "1"}
    return pattern % {"n": "1", "m": lr_markup(localized(_magnitude(format_lr(log10_odds)),
                                                         language))}


def _magnitude(lr_text: str) -> str:
    """The printed LR's magnitude: "1/2" -> "2", "1/(1.0 × 10^8)" -> "1.0 × 10^8"."""
    if not lr_text.startswith("1/"):
        return lr_text
    return lr_text.removeprefix("1/").removeprefix("(").removesuffix(")")


def _template_line(exc: BaseException, roots) -> tuple[str | None, int | None]:
    """The template file and line where ``exc`` arose (jinja maps its frames to them)."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if any(_inside(Path(frame.filename), Path(root)) for root in roots):
            return frame.filename, frame.lineno
    return None, None


#: HTML attributes whose value a browser or the PDF renderer fetches (or navigates to).
_URL_ATTRIBUTES = frozenset({
    "src", "href", "xlink:href", "srcset", "imagesrcset", "data", "poster", "action",
    "formaction", "background", "codebase", "archive", "manifest", "ping", "longdesc",
    "lowsrc", "dynsrc", "icon", "profile", "usemap",
})
#: Elements that embed another document or run code: refused whatever they point to.
_EMBEDDING = frozenset({"iframe", "frame", "frameset", "object", "embed", "applet", "script",
                        "portal", "fencedframe"})
_CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6})[ \t\r\n\f]?|\\(.)", re.DOTALL)
_CSS_URL = re.compile(r"""(?:url|src)\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*))""", re.IGNORECASE)
_CSS_IMPORT = re.compile(r"""@import\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
_CSS_IMAGE_SET = re.compile(r"image-set\(([^)]*)\)", re.IGNORECASE)
_CSS_STRING = re.compile(r""""([^"]*)"|'([^']*)'""")
_REFRESH = re.compile(r"url\s*=", re.IGNORECASE)
_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*):")


def _css_unescaped(css: str) -> str:
    """CSS text with its escapes (``\\75 rl(``, ``\\:``) decoded, as a CSS parser reads it."""
    def one(match: re.Match) -> str:
        if match.group(1):
            code = int(match.group(1), 16)
            return chr(code) if 0 < code <= 0x10FFFF else "\ufffd"
        return match.group(2)

    return _CSS_ESCAPE.sub(one, css)


def _css_references(css: str) -> list[str]:
    """Every URL a stylesheet may fetch: ``url()``, ``src()``, ``@import`` and ``image-set``.

    Comments are not skipped: a reference in a comment counts too (safe side).
    """
    text = _css_unescaped(css)
    found = ["".join(m.groups(default="")) for m in _CSS_URL.finditer(text)]
    found += ["".join(m.groups(default="")) for m in _CSS_IMPORT.finditer(text)]
    for block in _CSS_IMAGE_SET.finditer(text):
        found += ["".join(m.groups(default="")) for m in _CSS_STRING.finditer(block.group(1))]
    return found


def reaches_outside(url: str, roots) -> bool:
    """Whether ``url`` reaches anything but a ``data:`` URL, a fragment of the page or a
    file inside one of ``roots`` (a relative URL resolving against the first, as for the
    PDF renderer's base URL)."""
    roots = tuple(Path(r) for r in roots)
    text = "".join(ch for ch in url if ch > " " or ch == " ").strip()  # as browsers read it
    if not text or text.startswith("#"):
        return False
    scheme = _SCHEME.match(text)
    if scheme and scheme.group(1).lower() == "data":
        return False
    if text.startswith(("//", "\\\\", "/\\", "\\/")):
        return True  # another host, whatever the scheme
    if scheme:
        parts = urlsplit(text)
        if parts.scheme.lower() != "file" or parts.netloc not in ("", "localhost"):
            return True
        path = Path(unquote(parts.path))
    else:
        path = roots[0] / unquote(urlsplit(text.replace("\\", "/")).path)
    try:
        resolved = path.resolve()
    except (OSError, ValueError):  # a NUL, a loop, a name too long: not a usable file
        return True
    return not any(resolved.is_relative_to(root.resolve()) for root in roots)


class _References(HTMLParser):
    """Collects the URLs of an HTML document: attributes, ``style`` and ``<style>`` text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []
        self.embedding: list[str] = []
        self._in_style = 0

    def handle_starttag(self, tag, attrs):
        if tag in _EMBEDDING:
            self.embedding.append(tag)
        for key, value in attrs:
            if value is None:
                continue
            if key in _URL_ATTRIBUTES:
                urls = value.split(",") if key.endswith("srcset") else [value]
                self.urls += [u.strip().split(" ")[0] for u in urls]
            elif key == "content" and _REFRESH.search(value):  # <meta http-equiv=refresh>
                self.urls.append(_REFRESH.split(value, maxsplit=1)[1].strip(" '\""))
            elif key == "style" or "url" in value.lower():  # also SVG fill="url(...)"
                self.urls += _css_references(value)
        if tag == "style":
            self._in_style += 1

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = max(0, self._in_style - 1)

    def handle_data(self, data):
        if self._in_style:
            self.urls += _css_references(data)


def check_references(html: str, name: str, template_dir: str | Path | None = None) -> None:
    """Refuse rendered HTML that refers to anything outside the report and its templates.

    Every URL a viewer or the PDF renderer would fetch - ``src``, ``href``, ``srcset`` and
    the other URL attributes, CSS ``url()``, ``@import`` and ``image-set`` in ``<style>``
    and ``style=`` - must be a ``data:`` URL, a fragment (``#id``) or a file inside the
    template folders; ``<iframe>``, ``<object>``, ``<embed>``, ``<script>`` and their kin
    are refused outright. The same check serves every format (HTML, PDF), so a report
    that opens in a browser calls out no more than its PDF.

    Raises
    ------
    InputError
        Naming the template and up to three of the references.
    """
    roots = tuple(Path(r) for r in template_roots(template_dir))
    parser = _References()
    parser.feed(html)
    parser.close()
    bad = [f"<{tag}>" for tag in dict.fromkeys(parser.embedding)]
    bad += list(dict.fromkeys(u for u in parser.urls if reaches_outside(u, roots)))
    if bad:
        shown = ", ".join(excerpt(b, 80) for b in bad[:3])
        more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
        raise InputError(
            f"the report template {name} refers to {len(bad)} resource(s) outside the report "
            f"and its template folder ({shown}{more}); a report may use only data: URLs and "
            "files inside its template folder (no web addresses, frames, objects or scripts): "
            "correct the template", path=str(template_dir or roots[0]))


def _render_within_budget(env: jinja2.Environment, name: str, context: dict) -> str:
    """Render ``name`` chunk by chunk under the budget: at most
    ``LIMITS["report_characters"]`` characters and ``LIMITS["template_seconds"]`` seconds
    (checked at every chunk, sandboxed call and, through ``sys.settrace``, every 1,000 lines
    of template code), with macro calls nested at most ``LIMITS["template_depth"]`` deep.
    """
    template = env.get_template(name)
    most = LIMITS["report_characters"].most
    budget = _Budget(env)
    token = _BUDGET.set(budget)
    previous = sys.gettrace()
    sys.settrace(budget.trace)
    try:
        chunks, size = [], 0
        for chunk in template.generate(**context):
            size += len(chunk)
            if size > most:
                raise SecurityError(f"the rendered report is longer than {most:,} characters")
            budget.check_time()
            chunks.append(chunk)
        return "".join(chunks)
    finally:
        sys.settrace(previous)
        _BUDGET.reset(token)


def render(name: str, context: dict, template_dir: str | Path | None = None,
           language: str = SOURCE_LANGUAGE, classes: ClassNames | None = None) -> str:
    """Render template ``name`` with ``context``, its fixed texts and numbers in ``language``.

    ``classes``: how the texts name the two classes of background trials (default: as
    same-source and different-source comparisons; :mod:`forensic_lr.i18n.classes`).

    Raises
    ------
    InputError
        With a lab ``template_dir``: a template syntax error, an undefined variable, an
        operation the sandbox refuses or any other failure of the lab's template, naming
        the template file and line. (A failure of the shipped templates alone is a bug and
        keeps its traceback.)
    """
    token = _CLASSES.set(classes)
    try:
        html = _render_within_budget(cached_environment(template_dir, language), name,
                                     context)
    except InputError:
        raise
    except jinja2.TemplateSyntaxError as exc:
        if not template_dir:
            raise
        raise InputError(f"template syntax error: {exc.message}; correct the template",
                         path=exc.filename or exc.name, line=exc.lineno) from None
    except (RecursionError, MemoryError) as exc:
        if not template_dir:
            raise
        path, line = _template_line(exc, template_roots(template_dir))
        what = "nests too deeply (a macro or include calling itself?)" if isinstance(
            exc, RecursionError) else "needs more memory than the computer has"
        raise InputError(f"the lab's report template {what}; correct the template",
                         path=path or str(Path(template_dir) / name), line=line) from None
    except (jinja2.TemplateError, ArithmeticError, LookupError, TypeError, ValueError,
            AttributeError) as exc:
        if not template_dir:
            raise
        path, line = _template_line(exc, template_roots(template_dir))
        kind = "refused by the sandbox" if isinstance(exc, SecurityError) else "failed"
        raise InputError(f"the lab's report template {kind}: {str(exc)[:200]}; correct the "
                         "template", path=path or str(Path(template_dir) / name),
                         line=line) from None
    finally:
        _CLASSES.reset(token)
    check_references(html, name, template_dir)
    return html


def stylesheet(template_dir: str | Path | None = None) -> str:
    """The report CSS (the lab's ``report.css`` if it has one), to inline in the HTML.

    A ``report.css`` that is a symbolic link leading out of its folder is refused, not
    inlined.
    """
    for root in template_roots(template_dir):
        css = root / "report.css"
        if css.is_symlink() and not _inside(css, root):
            raise InputError("report.css is a symbolic link leading out of the template folder; "
                             "copy the stylesheet into the folder instead", path=str(css))
        if css.is_file():
            return css.read_text(encoding="utf-8")
    return ""
