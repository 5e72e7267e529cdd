"""``forensic-lr docs [NAME]``: the documentation that ships with the package.

Every page of ``docs/`` ships: the tutorial, the user pages (``user/``), the methods
(``methods/``), the course (``course/``) and the contributors' pages (``dev/``). A page is
named by its path without ``.md`` (``methods/metrics``); a user page, the tutorial and any
page whose file name is unique may also be named by its file name alone (``case-file``,
``tutorial``, ``metrics``). Without NAME, lists the pages by folder; with NAME, prints the
page as Markdown text.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from ..errors import InputError
from .common import EXIT_OK

#: Folders in the order the listing shows them, with their headings.
_FOLDERS = {"": "Start here", "user": "Using forensic-lr", "course": "Course",
            "methods": "Methods (formulas and references)", "dev": "Contributors"}


def add_parser(sub) -> None:
    """Add the ``docs`` subcommand."""
    p = sub.add_parser("docs", help="print a page of the documentation (list without NAME)")
    p.add_argument("name", nargs="?", metavar="NAME",
                   help="the page, e.g. case-file, tutorial or methods/metrics "
                        "(see `forensic-lr docs`)")
    p.set_defaults(func=run)


def _title(path: Path) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next((ln.lstrip("# ").strip() for ln in lines if ln.startswith("# ")), "")


def pages() -> dict[str, tuple[str, Path]]:
    """Shipped pages: full name (``methods/metrics``) -> (title, path), in listing order."""
    from .._resources import docs_dir

    root = docs_dir()
    found = {p.relative_to(root).with_suffix("").as_posix(): p for p in root.rglob("*.md")}
    order = list(_FOLDERS)

    def key(name: str) -> tuple[int, str]:
        folder = name.rpartition("/")[0]
        return (order.index(folder) if folder in order else len(order), name)

    return {name: (_title(found[name]), found[name]) for name in sorted(found, key=key)}


def _aliases(names: list[str]) -> dict[str, str]:
    """Short name -> full name: user pages by file name, and any file name used once."""
    stems = Counter(n.rpartition("/")[2] for n in names)
    short = {n.rpartition("/")[2]: n for n in names if stems[n.rpartition("/")[2]] == 1}
    short.update({n.removeprefix("user/"): n for n in names if n.startswith("user/")})
    return short


def run(args: argparse.Namespace) -> int:
    """List the pages, or print one."""
    found = pages()
    if args.name is None:
        short = {full: s for s, full in _aliases(list(found)).items()}
        width = max((len(short.get(n, n)) for n in found), default=0)
        folder = None
        for name, (title, _) in found.items():
            here = name.rpartition("/")[0]
            if here != folder:
                folder = here
                print(f"\n{_FOLDERS.get(here, here)}:")
            print(f"  {short.get(name, name):<{width}}  {title}")
        print("\nprint one with: forensic-lr docs NAME")
        return EXIT_OK
    name = args.name.removesuffix(".md").strip("/")
    name = name if name in found else _aliases(list(found)).get(name, name)
    if name not in found:
        raise InputError(f"no documentation page {args.name!r}; choose one of "
                         f"{sorted(_aliases(list(found)))} (or a full name such as "
                         f"methods/metrics; list them with `forensic-lr docs`)")
    print(found[name][1].read_text(encoding="utf-8"), end="")
    return EXIT_OK
