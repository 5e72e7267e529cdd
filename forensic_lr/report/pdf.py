"""HTML to PDF with weasyprint, fetching nothing outside the template folders.

A resource the renderer refuses or cannot load (an image, a stylesheet) is an error, not
a silently missing picture in a signed report.
"""

from __future__ import annotations

import base64
import logging
import os
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

from ..errors import ForensicLRError, InputError, excerpt
from ..parallel import collector_paused
from .archive import ARCHIVE_VARIANT, Archive
from .render import reaches_outside

#: Held while a PDF is rendered (the pinned clock and the log handler are process-wide).
_RENDERING = threading.Lock()


class FetchRefused(ForensicLRError):
    """The report asked for a resource outside the allowed folders."""


def _fetcher_base():
    from weasyprint.urls import URLFetcher

    return URLFetcher


class SafeFetcher(_fetcher_base()):
    """A weasyprint URL fetcher that serves only ``data:`` URLs and files inside ``roots``.

    Every other request (``http(s)``, ``ftp``, ``file://`` outside the roots, paths that
    climb out with ``..`` or symbolic links) is refused and recorded in ``refused``;
    redirects are disabled, and nothing is fetched over a network.
    """

    def __init__(self, roots) -> None:
        super().__init__(allowed_protocols=("data", "file"), allow_redirects=False)
        self.roots = tuple(Path(r).resolve() for r in roots)
        self.refused: list[str] = []

    def fetch(self, url: str, headers=None):
        parsed = urlparse(url)
        if parsed.scheme == "data":
            return super().fetch(url, headers)
        if parsed.scheme == "file" and not parsed.netloc and not reaches_outside(url, self.roots):
            path = Path(unquote(parsed.path)).resolve()
            if path.is_file():
                return super().fetch(path.as_uri(), headers)
        self.refused.append(url)
        raise FetchRefused(f"refused to fetch {url!r}: reports may only use their own templates")


def _mime(path: Path) -> str:
    return {
        ".css": "text/css",
        ".svg": "image/svg+xml",
        ".png": "image/png",
        ".jpg": "image/jpeg",
        ".jpeg": "image/jpeg",
        ".woff2": "font/woff2",
        ".ttf": "font/ttf",
    }.get(path.suffix.lower(), "application/octet-stream")


class _Failures(logging.Handler):
    """Collects the errors weasyprint logs (failed image, stylesheet, attachment loads).

    Its warnings (e.g. an ignored CSS property) go to ``passthrough``: Python's last-resort
    handler when the program set up no logging, as they would without this handler.
    """

    def __init__(self, passthrough: logging.Handler | None) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []
        self.passthrough = passthrough

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR:
            self.messages.append(record.getMessage())
        elif self.passthrough is not None:
            self.passthrough.handle(record)


def figures_as_images(html: str, figures: dict[str, str]) -> str:
    """``html`` with each inline SVG figure replaced by an ``<img>`` of the same SVG.

    weasyprint lays out an inline ``<svg>`` as part of the HTML document: every SVG
    element goes through the HTML cascade and styling. The same SVG in an
    ``<img src="data:image/svg+xml;base64,...">`` (an image format weasyprint documents)
    is parsed and drawn by its SVG renderer on its own, still as vectors and as text
    that can be selected and searched. The HTML file keeps the inline SVG; only the HTML
    handed to the PDF renderer changes. ``figures`` maps names to the SVG texts that
    were inlined (``safe_svg`` of each).
    """
    for name, svg in figures.items():
        inline = svg[svg.find("<svg"):]
        data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
        image = f'<img class="figure" alt="{name}" src="data:image/svg+xml;base64,{data}">'
        html = html.replace(inline, image)
    return html


def _write(document, archive: Archive | None) -> bytes:
    """The PDF bytes of a weasyprint ``HTML``: plain, or PDF/A-3b carrying ``archive``."""
    if archive is None:
        return document.write_pdf()
    import weasyprint

    options = {"pdf_variant": ARCHIVE_VARIANT}
    rendered = document.render(**options)
    meta = rendered.metadata
    meta.title, meta.authors, meta.description = archive.title, list(archive.authors), \
        archive.subject
    meta.keywords, meta.generator = list(archive.keywords), archive.creator
    meta.created = meta.modified = archive.created
    date = archive.file_date
    attachments = [
        weasyprint.Attachment(string=f.content, name=f.name, description=f.description,
                              created=date, modified=date, relationship="Data")
        for f in archive.files
    ]
    return rendered.write_pdf(attachments=attachments, **options)


def html_to_pdf(html: str, *, roots, fetcher: SafeFetcher | None = None,
                archive: Archive | None = None) -> bytes:
    """Render ``html`` to PDF bytes; relative URLs resolve against the first root.

    With ``archive`` the PDF is PDF/A-3b with the archive's metadata and associated files
    (:mod:`forensic_lr.report.archive`). The PDF carries no date but the archive's and
    pinned font timestamps, so identical HTML gives identical bytes. The garbage collector
    is paused meanwhile (:func:`~forensic_lr.parallel.collector_paused`).

    Raises
    ------
    InputError
        The HTML asks for a resource the fetcher refuses (``fetcher.refused`` lists
        them), or one that fails to load.
    """
    fetcher = fetcher or SafeFetcher(roots)
    base = Path(next(iter(roots))).resolve().as_uri() + "/"
    # Embedded font subsets carry a "modified" timestamp (fontTools); SOURCE_DATE_EPOCH
    # pins it so that the PDF bytes do not depend on the clock. The variable and the log
    # handler are process-wide: one PDF is rendered at a time (threads of the web server
    # wait), so that one render's restore never undoes another's setting.
    with _RENDERING:
        return _render_pinned(html, base, archive, fetcher)


def _render_pinned(html: str, base: str, archive: Archive | None, fetcher: SafeFetcher) -> bytes:
    """:func:`html_to_pdf`'s render, with the clock pinned and the renderer's log read."""
    import weasyprint

    saved = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = "0"
    logger = logging.getLogger("weasyprint")
    failures = _Failures(None if logger.hasHandlers() else logging.lastResort)
    logger.addHandler(failures)
    try:
        with collector_paused():
            document = weasyprint.HTML(string=html, base_url=base, url_fetcher=fetcher)
            pdf = _write(document, archive)
    finally:
        logger.removeHandler(failures)
        if saved is None:
            del os.environ["SOURCE_DATE_EPOCH"]
        else:
            os.environ["SOURCE_DATE_EPOCH"] = saved
    if fetcher.refused:
        shown = ", ".join(excerpt(url, 80) for url in fetcher.refused[:3])
        raise InputError(f"the report template asks for {len(fetcher.refused)} resource(s) "
                         f"the PDF renderer may not fetch or cannot find ({shown}); a report "
                         "may use only data: URLs and existing files inside its template "
                         "folder")
    if failures.messages:
        raise InputError("the PDF renderer could not load a resource of the report template: "
                         f"{excerpt(failures.messages[0], 200)}")
    return pdf
