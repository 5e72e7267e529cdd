"""PDFs rendered from several threads at once (the web server's case) are the bytes one
render gives, and the process's environment is left as it was."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

from forensic_lr.report.pdf import html_to_pdf

HTML = "<html><body><h1>Case Q1</h1><p>LR = 280 (log10 LR +2.45)</p></body></html>"


def test_concurrent_renders_equal_one_render_and_leave_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    alone = html_to_pdf(HTML, roots=[tmp_path])
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda _: html_to_pdf(HTML, roots=[tmp_path]), range(8)))
    assert all(pdf == alone for pdf in together)
    assert "SOURCE_DATE_EPOCH" not in os.environ
