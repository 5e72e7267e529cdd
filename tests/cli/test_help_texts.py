"""Every ``--help`` text (the main parser and every subcommand, nested ones included) reads
as the product: no internal numbering or project history ("seed 001", "issue 24", a
helper's name, a private function), and every calibration method is named by its model and
the paper it comes from, the same paper the method's description cites in full."""

from __future__ import annotations

import argparse
import re

import pytest

from forensic_lr.calibration import CALIBRATORS, METHOD_PAPERS
from forensic_lr.cli import build_parser

#: What a help text must not say: internal numbering, project history, work notes,
#: private code names.
FORBIDDEN = {
    "seed numbering": re.compile(r"\bseeds?\s*#?0\d+\b", re.I),
    "issue numbering": re.compile(r"\b(issue|ticket|pr)\s*#?\d+\b", re.I),
    "helper or session name": re.compile(r"\b(h\d+-[a-z]+|helper|session \d+)\b", re.I),
    "work note": re.compile(r"\b(TODO|FIXME|XXX|HACK)\b"),
    "private code name": re.compile(r"(?<![\w-])_[a-z]\w*(\(|\b)"),
    "commit id": re.compile(r"\bcommit [0-9a-f]{7,}\b", re.I),
}


def _help_texts(parser: argparse.ArgumentParser, name: str = "forensic-lr") -> dict[str, str]:
    """``{"forensic-lr calibrate": text, ...}`` for the parser and every sub-parser."""
    texts = {name: parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                texts.update(_help_texts(sub, f"{name} {sub_name}"))
    return texts


def _problems(text: str) -> list[str]:
    return [f"{what}: {m.group(0)!r}" for what, rx in FORBIDDEN.items()
            for m in rx.finditer(text)]


HELP = _help_texts(build_parser())


def test_every_command_and_nested_subcommand_is_scanned():
    assert {"forensic-lr calibrate", "forensic-lr run", "forensic-lr serve",
            "forensic-lr fusion worst-case", "forensic-lr label-noise correct",
            "forensic-lr label-noise estimate", "forensic-lr examples copy"} <= HELP.keys()


def test_the_scanner_finds_what_it_looks_for():
    text = ("as in seed 001; see issue 24 and PR #7; from h8-web's notes; TODO tidy; "
            "calls _study(); commit 946b27b")
    found = {p.split(":")[0] for p in _problems(text)}
    assert found == set(FORBIDDEN)
    assert not _problems("default seed 20261122; --source-column; 0.5; source_a,source_b; "
                         "higher_is_similar; ts: temperature scaling (Guo et al. 2017)")


@pytest.mark.parametrize("command", sorted(HELP))
def test_help_has_no_internal_numbering_or_history(command):
    assert not _problems(HELP[command]), HELP[command]


def _cited(paper: str) -> tuple[list[str], str]:
    """The surnames and year of a "(Surname and Other 2006)" citation."""
    authors, year = re.search(r"\(([^()]*) (\d{4})\)$", paper).groups()
    names = re.split(r",\s*|\s+and\s+", authors.replace(" et al.", ""))
    return [n.strip() for n in names if n.strip()], year


@pytest.mark.parametrize("name", list(CALIBRATORS))
def test_each_method_is_named_by_its_paper(name):
    paper = METHOD_PAPERS[name]
    surnames, year = _cited(paper)
    reference = CALIBRATORS[name].reference
    assert year in reference
    for surname in surnames:
        assert surname in reference, (surname, reference)
    for command in ("forensic-lr calibrate", "forensic-lr run", "forensic-lr validate"):
        assert f"{name}: {paper}" in _flat(HELP[command]), command


def _flat(text: str) -> str:
    """Help text as one line, undoing argparse's wrapping (also after a hyphen)."""
    return " ".join(re.sub(r"-\n\s+", "-", text).split())


def test_every_method_has_its_paper():
    assert list(METHOD_PAPERS) == list(CALIBRATORS)


def test_multiclass_and_label_noise_methods_name_their_papers():
    flat = {k: _flat(v) for k, v in HELP.items()}
    assert "temperature scaling" in flat["forensic-lr multiclass"]
    assert "(Guo et al. 2017)" in flat["forensic-lr multiclass"]
    assert "(Clarte et al. 2023)" in flat["forensic-lr multiclass"]
    assert "(Dawid and Skene 1979)" in flat["forensic-lr label-noise"]
