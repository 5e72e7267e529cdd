"""A lab template may refer to nothing outside the report and its template folder.

One check of the rendered HTML serves every format: a template with a web address, a
frame, an object or a file outside its folder is refused before anything is written,
whether a PDF, an HTML file or only JSON is asked for.
"""

from __future__ import annotations

import time
import warnings

import pytest

from forensic_lr.cli import main
from forensic_lr.errors import ForensicLRWarning, InputError
from forensic_lr.report.render import check_references, render

OUTSIDE = [
    '<img src="http://example.org/pixel.png">',
    '<img SRC = http://example.org/p.png>',
    '<img src="&#104;ttp://example.org/p.png">',
    '<img src=" //example.org/p.png">',
    '<img srcset="in.png 1x, https://example.org/p.png 2x">',
    '<link rel="stylesheet" href="https://example.org/x.css">',
    '<style>@import "https://example.org/x.css";</style>',
    "<style>p { background: url(http://example.org/p.png) }</style>",
    "<style>p { background: \\75 rl(http://example.org/p.png) }</style>",
    "<style>p { background-image: image-set('https://example.org/p.png' 1x) }</style>",
    '<p style="background: URL( \'http://example.org/p.png\' )">x</p>',
    '<svg><rect fill="url(http://example.org/p.svg#g)"/></svg>',
    '<svg><image xlink:href="http://example.org/p.png"/></svg>',
    '<iframe src="file:///etc/passwd"></iframe>',
    "<iframe></iframe>",
    '<object data="report.css"></object>',
    '<embed src="x.svg">',
    "<script>fetch('http://example.org')</script>",
    '<img src="file:///etc/passwd">',
    '<img src="../../../../etc/passwd">',
    '<img src="/etc/passwd">',
    '<meta http-equiv="refresh" content="0; url=http://example.org/">',
    '<a href="mailto:x@example.org">mail</a>',
    '<a href="javascript:alert(1)">x</a>',
]

INSIDE = [
    '<img src="data:image/png;base64,iVBORw0KGgo=">',
    '<a href="#conclusion">the conclusion</a>',
    '<svg><use xlink:href="#m1"/><path clip-path="url(#p1)"/></svg>',
    '<img src="logo.png">',
    "<style>p { color: red; content: 'http is a word' }</style>",
]


@pytest.mark.parametrize("html", OUTSIDE)
def test_references_outside_the_template_folder_are_refused(tmp_path, html):
    (tmp_path / "t.html").write_text(html)
    with pytest.raises(InputError, match=r"t\.html refers to .*outside the report"):
        render("t.html", {}, tmp_path)


@pytest.mark.parametrize("html", INSIDE)
def test_data_urls_fragments_and_template_files_pass(tmp_path, html):
    check_references(html, "t.html", tmp_path)


def test_the_shipped_templates_pass_the_check(tmp_path):
    # a fragment-only SVG and the shipped folder itself
    check_references('<img src="report.css">', "t.html")


@pytest.fixture
def case(tmp_path):
    assert main(["-q", "examples", "copy", "small-background", str(tmp_path / "case")]) == 0
    path = tmp_path / "case" / "case.toml"
    path.write_text(path.read_text().replace("n = 1000", "n = 200"))
    return path


@pytest.mark.parametrize("formats", ["html,json", "pdf", "html"])
@pytest.mark.parametrize("element", ['<img src="http://example.org/pixel.png">',
                                     '<iframe src="file:///etc/passwd"></iframe>'])
def test_every_format_refuses_the_same_template(case, tmp_path, capsys, formats, element):
    lab = case.parent / "templates"
    lab.mkdir()
    (lab / "case_report.html").write_text(f"<html><body>{element}</body></html>")
    case.write_text(case.read_text().replace(
        'verbal_scale = "enfsi"', 'verbal_scale = "enfsi"\ntemplate_dir = "templates"'))
    out = tmp_path / "out"
    start = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        code = main(["run", str(case), "--out", str(out), "--format", formats, "--draft"])
    text = capsys.readouterr().err
    assert code == 2 and time.monotonic() - start < 20
    assert "case_report.html refers to" in text and ("pixel" in text or "iframe" in text)
    assert not out.exists()
