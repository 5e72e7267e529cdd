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

import functools
import math
import numbers
import os
import re
import traceback
from pathlib import Path

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError
from markupsafe import Markup, escape

from .._resources import templates_dir
from ..casework.verbal import format_log10, format_lr
from ..errors import InputError, excerpt

#: Largest string or sequence a template may build with ``*``, and largest exponent of ``**``.
MAX_TEMPLATE_LENGTH = 1_000_000
MAX_TEMPLATE_EXPONENT = 1_000

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


class _ReportSandbox(ImmutableSandboxedEnvironment):
    """The immutable sandbox, also refusing huge ``*`` repetitions and ``**`` powers.

    Templates may read the records' values but call none of their methods, nor any
    method of a class: pydantic's ``parse_file`` classmethod, for one, would read any
    file named.
    """

    intercepted_binops = frozenset({"*", "**"})

    def is_safe_attribute(self, obj, attr, value) -> bool:
        if callable(value) and (
            isinstance(obj, type)
            or type(obj).__module__.partition(".")[0] in ("forensic_lr", "pydantic")
        ):
            return False
        return super().is_safe_attribute(obj, attr, value)

    def call_binop(self, context, operator, left, right):
        if operator == "**" and isinstance(right, numbers.Real) and (
            abs(right) > MAX_TEMPLATE_EXPONENT
        ):
            raise SecurityError(f"exponent {right!r} is larger than {MAX_TEMPLATE_EXPONENT}")
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if (isinstance(seq, str | list | tuple) and isinstance(times, int)
                        and len(seq) * times > MAX_TEMPLATE_LENGTH):
                    raise SecurityError(
                        f"repetition longer than {MAX_TEMPLATE_LENGTH:,} items"
                    )
        return super().call_binop(context, operator, left, right)


def environment(template_dir: str | Path | None = None) -> jinja2.Environment:
    """Sandboxed, autoescaping, strict environment: the lab's folder before the shipped one."""
    loader = jinja2.ChoiceLoader(
        [_FolderLoader(str(root)) for root in template_roots(template_dir)]
    )
    env = _ReportSandbox(
        loader=loader,
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        log10=lambda v: "n/a" if v is None else format_log10(v, 2, sign=True).replace(
            "-0.00", "+0.00"),
        metric=lambda v, digits=3: "n/a" if v is None or _nan(v) else f"{v:.{digits}f}",
        percent=lambda v: "n/a" if v is None or _nan(v) else f"{100 * v:.1f} %",
        lr=lr_markup,
        times=lambda log10_lr: lr_markup(format_lr(abs(log10_lr))),
        odds=odds_markup,
        count=lambda v: f"{int(v):,}",
        lr_of=lambda log10_lr: lr_markup(format_lr(log10_lr)),
        sig=significant,
        log10_interval=log10_interval,
    )
    return env


@functools.lru_cache(maxsize=16)
def _shared_environment(template_dir: str | None, _folder_state: tuple) -> jinja2.Environment:
    return environment(template_dir)


def _folder_state(folder: Path) -> tuple:
    """``(name, modification time)`` of the files directly in ``folder``: a lab folder that
    gains, loses or changes a file gets a new environment."""
    try:
        with os.scandir(folder) as entries:
            return tuple(sorted((e.name, e.stat().st_mtime_ns) for e in entries))
    except OSError:  # a missing folder: the loader names it when a template is looked up
        return ()


def cached_environment(template_dir: str | Path | None = None) -> jinja2.Environment:
    """:func:`environment`, made once per template folder and kept with its compiled
    templates (compiling the case report's templates costs about 20 times rendering them).

    A lab's folder is looked at on every call: a file added, removed or changed there
    gives a new environment; jinja itself reloads a changed shipped template.
    """
    if not template_dir:
        return _shared_environment(None, ())
    folder = Path(template_dir).resolve()
    return _shared_environment(str(folder), _folder_state(folder))


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
    text = f"{value:#.{digits}g}"
    return text[:-1] if text.endswith(".") else text


def log10_interval(low: float | None, high: float | None, digits: int = 2,
                   signed: bool = True) -> str:
    """``"[+1.20, +2.45]"``; when both ends print the same, the value and "not estimable".

    A zero-width interval (every bootstrap replicate at the PAV cap, or both ends cut at
    one ELUB bound) would claim the value could not change: the report prints the bound
    and says that no interval can be estimated there.
    """
    if low is None or high is None or _nan(low) or _nan(high):
        return "n/a"
    zero = format_log10(0.0, digits, sign=signed)
    a, b = (format_log10(v, digits, sign=signed).replace("-" + zero.lstrip("+"), zero)
            for v in (low, high))
    if a == b:
        return f"not estimable (both ends at {a})"
    return f"[{a}, {b}]"


def odds_markup(log10_odds: float) -> Markup:
    """Odds as "N to 1" or "1 to N", rounded like the LR; even odds as "1 to 1"."""
    if abs(log10_odds) < 1e-9:
        return Markup("1 to 1")
    if log10_odds >= 0:
        return lr_markup(format_lr(log10_odds)) + Markup(" to 1")
    return Markup("1 to ") + lr_markup(format_lr(-log10_odds))


def _template_line(exc: BaseException, roots) -> tuple[str | None, int | None]:
    """The template file and line where ``exc`` arose (jinja maps its frames to them)."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if any(_inside(Path(frame.filename), Path(root)) for root in roots):
            return frame.filename, frame.lineno
    return None, None


def render(name: str, context: dict, template_dir: str | Path | None = None) -> str:
    """Render template ``name`` with ``context``.

    Raises
    ------
    InputError
        With a lab ``template_dir``: a template syntax error, an undefined variable, an
        operation the sandbox refuses or any other failure of the lab's template, naming
        the template file and line. (A failure of the shipped templates alone is a bug and
        keeps its traceback.)
    """
    try:
        return cached_environment(template_dir).get_template(name).render(**context)
    except InputError:
        raise
    except jinja2.TemplateSyntaxError as exc:
        if not template_dir:
            raise
        raise InputError(f"template syntax error: {exc.message}; correct the template",
                         path=exc.filename or exc.name, line=exc.lineno) from None
    except (jinja2.TemplateError, ArithmeticError, LookupError, TypeError, ValueError,
            AttributeError) as exc:
        if not template_dir:
            raise
        path, line = _template_line(exc, template_roots(template_dir))
        kind = "refused by the sandbox" if isinstance(exc, SecurityError) else "failed"
        raise InputError(f"the lab's report template {kind}: {str(exc)[:200]}; correct the "
                         "template", path=path or str(template_dir), line=line) from None


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
