"""A lab template renders under a budget: size, time, nesting; beyond it, it is refused.

Each runaway template of the description is rebuilt: an InputError (exit 2 from the
command line) naming the template and the limit, within seconds, and nothing written.
"""

from __future__ import annotations

import time
import warnings

import pytest

from forensic_lr.cli import main
from forensic_lr.errors import ForensicLRWarning, InputError
from forensic_lr.report.render import render

HUGE = "999999999"

RUNAWAY = {
    "zfill": f"{{{{ 'x'.zfill({HUGE}) }}}}",
    "ljust": f"{{{{ 'x'.ljust({HUGE}) }}}}",
    "join": "{{ ('x' * 1000000).join(['a'] * 1000) }}",
    "join of a generator": "{{ ('x' * 1000).join(range(100000)|map('string')) }}",
    "str replace": "{{ ('a' * 1000000).replace('', 'xx') }}",
    "expandtabs": f"{{{{ ('\t' * 1000).expandtabs({HUGE}) }}}}",
    "printf width": f"{{{{ '%0{HUGE}d' % 1 }}}}",
    "printf star": f"{{{{ '%*d' % ({HUGE}, 1) }}}}",
    "format width": f"{{{{ '{{:>{HUGE}}}'.format(1) }}}}",
    "format nested width": f"{{{{ '{{:>{{}}}}'.format(1, {HUGE}) }}}}",
    "format filter": f"{{{{ '%0{HUGE}d'|format(1) }}}}",
    "center filter": f"{{{{ 'x'|center({HUGE}) }}}}",
    "indent filter": f"{{{{ 'a'|indent({HUGE}, true) }}}}",
    "batch filter": f"{{{{ [1]|batch({HUGE}, 0)|list }}}}",
    "slice filter": f"{{{{ [1]|slice({HUGE})|list }}}}",
    "tojson indent": f"{{{{ [1, 2]|tojson(indent={HUGE}) }}}}",
    "replace filter": "{{ ('a' * 1000000)|replace('a', 'aaaa') }}",
    "nested powers": "{{ ((9 ** 999) ** 999) ** 999 }}",
    "squaring loop": ("{% set ns = namespace(x=3) %}{% for i in range(40) %}"
                      "{% set ns.x = ns.x * ns.x %}{% endfor %}{{ ns.x > 0 }}"),
    "output size": "{% for i in range(100000) %}{{ 'x' * 999999 }}{% endfor %}",
    "macro recursion": "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
    "silent loop": ("{% for i in range(100000) %}{% for j in range(100000) %}"
                    "{% endfor %}{% endfor %}"),
    "formatting loop": ("{% for i in range(100000) %}{% for j in range(100000) %}"
                        "{% set s = '%d' % j %}{% endfor %}{% endfor %}"),
}


@pytest.mark.parametrize("text", RUNAWAY.values(), ids=RUNAWAY.keys())
def test_a_runaway_template_is_refused_naming_it(tmp_path, monkeypatch, text):
    from forensic_lr.limits import LIMITS, Limit

    # one second of rendering instead of five: the same refusal, sooner
    monkeypatch.setitem(LIMITS, "template_seconds", Limit(1, "seconds", "", ""))
    (tmp_path / "t.html").write_text("<p>\n" + text + "\n</p>")
    start = time.monotonic()
    with pytest.raises(InputError) as info:
        render("t.html", {}, tmp_path)
    assert time.monotonic() - start < 20
    message = str(info.value)
    assert "t.html" in message and "correct the template" in message
    assert len(message) < 400


def test_an_include_of_itself_is_refused(tmp_path):
    (tmp_path / "t.html").write_text("x{% include 't.html' %}")
    with pytest.raises(InputError, match="nests too deeply"):
        render("t.html", {}, tmp_path)


@pytest.mark.parametrize("text", [
    "{{ 'x'.zfill(12) }}|{{ ','.join(['a', 'b']) }}|{{ 'a-b'.replace('-', '+') }}",
    "{{ '%05.1f' % 3.14159 }}|{{ '{:>6}'.format(42) }}|{{ '%d'|format(2000000) }}",
    "{{ 'ab'|center(6) }}|{{ [1, 2, 3]|batch(2)|list }}|{{ 2 ** 100 }}|{{ 10 ** 20 * 3 }}",
    "{% macro f(n) %}{% if n %}{{ n }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(10) }}",
])
def test_ordinary_formatting_is_untouched(tmp_path, text):
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    (tmp_path / "t.html").write_text(text)
    expected = ImmutableSandboxedEnvironment(autoescape=True).from_string(text).render()
    assert render("t.html", {}, tmp_path) == expected


def test_a_runaway_lab_template_ends_the_run_with_exit_2(tmp_path, capsys, monkeypatch):
    from forensic_lr.limits import LIMITS, Limit

    # one second of rendering instead of five: the case's own computation shares the 20 s
    monkeypatch.setitem(LIMITS, "template_seconds", Limit(1, "seconds", "", ""))
    assert main(["-q", "examples", "copy", "small-background", str(tmp_path / "case")]) == 0
    case = tmp_path / "case" / "case.toml"
    lab = case.parent / "templates"
    lab.mkdir()
    (lab / "case_report.html").write_text(RUNAWAY["silent loop"])
    case.write_text(case.read_text().replace("n = 1000", "n = 200").replace(
        'verbal_scale = "enfsi"', 'verbal_scale = "enfsi"\ntemplate_dir = "templates"'))
    out = tmp_path / "out"
    start = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        code = main(["run", str(case), "--out", str(out), "--format", "html", "--draft"])
    text = capsys.readouterr().err
    assert code == 2 and time.monotonic() - start < 20
    assert "case_report.html" in text and "took more than 1 seconds" in text
    assert not out.exists()
