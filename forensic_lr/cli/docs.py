"""``forensic-lr docs [NAME]``: the user documentation that ships with the package.

Without NAME, lists the pages (name and title); with NAME, prints the page as Markdown text.
"""

from __future__ import annotations

import argparse

from ..errors import InputError
from .common import EXIT_OK


def add_parser(sub) -> None:
    """Add the ``docs`` subcommand."""
    p = sub.add_parser("docs", help="print a page of the user documentation (list without NAME)")
    p.add_argument("name", nargs="?", metavar="NAME",
                   help="the page, e.g. case-file (see `forensic-lr docs`)")
    p.set_defaults(func=run)


def pages() -> dict[str, tuple[str, object]]:
    """Shipped pages: name -> (title, path)."""
    from .._resources import docs_dir

    found = {}
    for path in sorted(docs_dir().glob("*.md")):
        lines = path.read_text(encoding="utf-8").splitlines()
        title = next((ln.lstrip("# ").strip() for ln in lines if ln.startswith("# ")), "")
        found[path.stem] = (title, path)
    return found


def run(args: argparse.Namespace) -> int:
    """List the pages, or print one."""
    found = pages()
    if args.name is None:
        width = max((len(n) for n in found), default=0)
        for name, (title, _) in found.items():
            print(f"{name:<{width}}  {title}")
        print("\nprint one with: forensic-lr docs NAME")
        return EXIT_OK
    name = args.name.removesuffix(".md")
    if name not in found:
        raise InputError(f"no documentation page {args.name!r}; choose one of {sorted(found)}")
    print(found[name][1].read_text(encoding="utf-8"), end="")
    return EXIT_OK
