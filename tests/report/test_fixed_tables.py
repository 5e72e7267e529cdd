"""The annex tables of provenance and policy settings are laid out from their first row
(``table-layout: fixed``), and nothing in them spills out of its cell.

Independent values: weasyprint's own layout boxes, read back after rendering: every piece
of text of a cell must end inside that cell, whatever the length of a file name.
"""

import pytest
import weasyprint
from weasyprint.formatting_structure import boxes

from forensic_lr.report.render import stylesheet


@pytest.fixture(scope="module")
def voice_html(worked):
    return worked.html("voice")


def test_provenance_and_policy_tables_are_fixed(voice_html):
    assert '<table class="data fixed">\n  <tr><th class="key">Software</th>' in voice_html
    assert '<table class="data fixed">\n  <tr><th class="key">Input file</th>' in voice_html
    assert ('<thead><tr><th class="half">Setting</th><th>Value</th><th class="fifth">From'
            in voice_html)


def _cells(box):
    if isinstance(box, boxes.TableCellBox):
        yield box
    for child in getattr(box, "children", ()):
        yield from _cells(child)


def _texts(box):
    if isinstance(box, boxes.TextBox):
        yield box
    for child in getattr(box, "children", ()):
        yield from _texts(child)


def test_a_long_file_name_breaks_inside_its_cell():
    name = "background_scores_of_the_laboratory_reference_population_" * 3 + "2026.csv"
    digest = "0123456789abcdef" * 4
    html = (f"<style>{stylesheet()}</style>"
            '<table class="data fixed"><tr><th class="key">Input file</th><th>SHA-256</th></tr>'
            f'<tr><td>{name}</td><td class="mono">{digest}</td></tr></table>'
            '<table class="data compact fixed"><thead><tr><th class="half">Setting</th>'
            '<th>Value</th><th class="fifth">From</th></tr></thead>'
            f"<tr><td>{name}</td><td>{name}</td><td>laboratory profile</td></tr></table>")
    page = weasyprint.HTML(string=html).render().pages[0]
    cells = list(_cells(page._page_box))
    assert len(cells) == 10
    for cell in cells:
        right = cell.content_box_x() + cell.width
        texts = list(_texts(cell))
        assert texts
        for text in texts:
            assert text.position_x + text.width <= right + 0.01, text.text
    # the long name wraps (several lines), the digest stays on one line
    lines = {cell: len({t.position_y for t in _texts(cell)}) for cell in cells}
    assert max(lines.values()) > 1
    digest_cell = next(c for c in cells if digest[:8] in "".join(t.text for t in _texts(c)))
    assert lines[digest_cell] == 1
