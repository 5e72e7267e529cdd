"""Jinja2 rendering of the reports: one environment, autoescaped, with number filters."""

from __future__ import annotations

import math
import re
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from .._resources import templates_dir
from ..casework.verbal import format_lr

#: Illustrative prior odds for the annex: how an LR updates prior odds.
PRIOR_ODDS_LOG10 = (-6, -4, -2, 0, 2)


def template_roots(template_dir: str | Path | None = None) -> tuple[Path, ...]:
    """The lab's template folder (if any) first, then the shipped templates."""
    shipped = templates_dir()
    return (Path(template_dir), shipped) if template_dir else (shipped,)


def environment(template_dir: str | Path | None = None) -> jinja2.Environment:
    """Autoescaping, strict environment searching the lab's folder before the shipped one."""
    loader = jinja2.ChoiceLoader(
        [jinja2.FileSystemLoader(str(root)) for root in template_roots(template_dir)]
    )
    env = jinja2.Environment(
        loader=loader,
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        log10=lambda v: "n/a" if v is None else f"{v:+.2f}".replace("-0.00", "+0.00"),
        metric=lambda v, digits=3: "n/a" if v is None or _nan(v) else f"{v:.{digits}f}",
        percent=lambda v: "n/a" if v is None or _nan(v) else f"{100 * v:.1f} %",
        lr=lr_markup,
        times=lambda log10_lr: lr_markup(format_lr(abs(log10_lr))),
        odds=odds_markup,
        count=lambda v: f"{int(v):,}",
    )
    return env


def _nan(value) -> bool:
    return isinstance(value, float) and math.isnan(value)


def lr_markup(text: str) -> Markup:
    """An LR text (:func:`forensic_lr.casework.verbal.format_lr`) with ``10^k`` as a superscript."""
    return Markup(re.sub(r"10\^(-?\d+)", r"10<sup>\1</sup>", str(escape(text))))


def odds_markup(log10_odds: float) -> Markup:
    """Odds as "N to 1" or "1 to N", rounded like the LR; even odds as "1 to 1"."""
    if abs(log10_odds) < 1e-9:
        return Markup("1 to 1")
    if log10_odds >= 0:
        return lr_markup(format_lr(log10_odds)) + Markup(" to 1")
    return Markup("1 to ") + lr_markup(format_lr(-log10_odds))


def render(name: str, context: dict, template_dir: str | Path | None = None) -> str:
    """Render template ``name`` with ``context``."""
    return environment(template_dir).get_template(name).render(**context)


def stylesheet(template_dir: str | Path | None = None) -> str:
    """The report CSS (the lab's ``report.css`` if it has one), to inline in the HTML."""
    for root in template_roots(template_dir):
        css = root / "report.css"
        if css.is_file():
            return css.read_text(encoding="utf-8")
    return ""
