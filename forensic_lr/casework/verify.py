"""Check a report file: its embedded record and, given the case, a re-run of the case.

A report PDF is PDF/A-3 with the run's record (``result.json``; ``validation.json`` for a
validation study) embedded byte for byte (:mod:`forensic_lr.report.archive`).
:func:`read_report` extracts it; :func:`check_against_case` re-runs the case through the
same function as ``forensic-lr run`` (:meth:`forensic_lr.casework.job.CaseJob.run`: the case
pipeline, then the draft mark for a draft) and compares, in
order:

1. the SHA-256 of every input (case file, laboratory profile, score files) with the
   digests recorded in ``result.json`` - a difference names the input and stops there;
2. the recomputed ``result.json`` with the embedded one, byte for byte (a difference is
   named by its JSON path, e.g. ``results[0].log10_lr``);
3. when the recorded software versions equal the installed ones, the re-rendered PDF with
   the report's first revision, byte for byte (reports are reproducible in one
   environment). Elsewhere the PDF cannot be re-rendered identically, and the check says
   so instead of failing.

Nothing here renders: the caller passes the renderer (``render(run) -> bytes``), so this
module stays below the report package.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..provenance import software_versions

__all__ = ["RECORD_NAMES", "STUDY_INPUT_OPTIONS", "Finding", "ReportFile", "check_against_case",
           "check_against_study", "first_difference", "read_report"]

#: The records a report embeds: a case report's and a validation study's.
RECORD_NAMES = ("result.json", "validation.json")

#: The ``validate --report`` options (kept in a study's ``command_options``) that name
#: input files, which ``verify --study`` finds among the paths it is given.
STUDY_INPUT_OPTIONS = ("ss", "ds", "scores", "case", "criteria")

#: Most levels of a name tree walked (a report has one; a hostile file may nest without end).
_MAX_TREE_DEPTH = 16


@dataclass(frozen=True)
class Finding:
    """One check's outcome: ``ok`` True (matches), False (differs) or None (not checked)."""

    check: str
    ok: bool | None
    text: str


@dataclass(frozen=True)
class ReportFile:
    """A report PDF as read: its bytes, embedded record and revisions.

    ``record_name`` is ``"result.json"`` or ``"validation.json"``; ``record`` its bytes as
    embedded in the first revision (the one forensic-lr wrote); ``first_revision`` the
    bytes of that revision (the whole file when it has one); ``revisions`` how many
    revisions the file has (a signature adds one; an edit after writing adds one too).
    """

    path: Path
    data: bytes
    record_name: str
    record: bytes
    first_revision: bytes
    revisions: int
    #: the language of the first revision (its catalog's ``/Lang``, e.g. "de"), or None
    language: str | None = None

    @property
    def content(self) -> dict[str, Any]:
        """The embedded record, parsed."""
        return json.loads(self.record)

    @property
    def is_case_report(self) -> bool:
        return self.record_name == "result.json"


def _get(obj, key: str, default=None):
    """``obj[key]`` of a PDF dictionary, indirect objects resolved; ``default`` when absent."""
    value = obj.get_object().get(key) if obj is not None else None
    return default if value is None else value.get_object()


def _file_specs(root) -> list:
    """The file specifications of a catalog: its ``/AF`` array, then its embedded-files
    name tree (``/Names /EmbeddedFiles``, walked through ``/Kids``)."""
    specs = list(_get(root, "/AF", []))

    def walk(node, level):
        if level > _MAX_TREE_DEPTH:
            raise InputError("its embedded-files tree nests too deeply")
        specs.extend(list(_get(node, "/Names", []))[1::2])
        for kid in _get(node, "/Kids", []):
            walk(kid, level + 1)

    tree = _get(_get(root, "/Names"), "/EmbeddedFiles")
    if tree is not None:
        walk(tree, 0)
    return specs


def _embedded_files(root) -> dict[str, bytes]:
    """``{name: bytes}`` of the embedded files a catalog lists (the first of each name)."""
    found: dict[str, bytes] = {}
    for spec in _file_specs(root):
        name = str(_get(spec, "/UF", _get(spec, "/F", "")))
        stream = _get(_get(spec, "/EF"), "/F")
        if name in RECORD_NAMES and name not in found and stream is not None:
            found[name] = stream.data
    return found


def _first_revision(data: bytes, reader) -> bytes:
    """The bytes of the file's first revision: up to the ``%%EOF`` after its cross-reference
    section (and the end of line after it)."""
    if reader.total_revisions == 1:
        return data
    end = data.find(b"%%EOF", reader.xrefs.get_startxref_for_revision(0))
    if end < 0:
        raise InputError("its first revision has no end-of-file marker")
    end += len(b"%%EOF")
    for eol in (b"\r\n", b"\n", b"\r"):
        if data.startswith(eol, end):
            return data[:end + len(eol)]
    return data[:end]


def read_report(path: str | Path) -> ReportFile:
    """Read a report PDF and the record embedded in its first revision.

    Raises
    ------
    InputError
        The file cannot be read, is not a PDF, or embeds no forensic-lr record.
    """
    from pyhanko.pdf_utils.reader import PdfFileReader

    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the report: {exc.strerror or exc}", path=str(path)) \
            from None
    if not data.startswith(b"%PDF-"):
        raise InputError("is not a PDF file (it does not start with %PDF-); give the report's "
                         "PDF file", path=str(path))
    try:
        reader = PdfFileReader(io.BytesIO(data), strict=False)
        root = reader.get_historical_root(0)
        files = _embedded_files(root)
        language = _get(root, "/Lang")
        first = _first_revision(data, reader)
        revisions = reader.total_revisions
    except InputError as exc:
        raise InputError(f"cannot be read as a report: {exc}", path=str(path)) from None
    except Exception as exc:  # a damaged file may fail anywhere in the parser
        raise InputError(f"is damaged or not a PDF that can be read ({type(exc).__name__}: "
                         f"{str(exc)[:200]})", path=str(path)) from None
    name = next((n for n in RECORD_NAMES if n in files), None)
    if name is None:
        raise InputError("embeds no forensic-lr record (result.json or validation.json): it "
                         "is not a report written by forensic-lr as PDF/A-3", path=str(path))
    record = files[name]
    try:
        json.loads(record)
    except ValueError:
        raise InputError(f"its embedded {name} is not valid JSON; the file is damaged",
                         path=str(path)) from None
    return ReportFile(path=path, data=data, record_name=name, record=record,
                      first_revision=first, revisions=revisions,
                      language=None if language is None else str(language))


def _path_text(parts: list) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(the whole record)"


def first_difference(recorded: Any, computed: Any) -> tuple[str, Any, Any] | None:
    """The first place two JSON values differ: ``(path, recorded value, computed value)``,
    or None when they are equal.

    Keys are visited in the recorded order, then keys only the computed value has; a
    missing key shows as the text ``"(absent)"``.
    """
    stack: list[tuple[list, Any, Any]] = [([], recorded, computed)]
    while stack:
        parts, a, b = stack.pop()
        if isinstance(a, dict) and isinstance(b, dict):
            keys = [*a, *(k for k in b if k not in a)]
            stack.extend(([*parts, k], a.get(k, "(absent)"), b.get(k, "(absent)"))
                         for k in reversed(keys))
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                return _path_text(parts), f"{len(a)} entries", f"{len(b)} entries"
            stack.extend(([*parts, i], a[i], b[i]) for i in reversed(range(len(a))))
        elif type(a) is not type(b) or a != b:
            return _path_text(parts), a, b
    return None


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _case_file(case: str | Path) -> Path:
    """The case file: ``case`` itself, or the ``case.toml`` in the folder ``case``."""
    path = Path(case)
    if path.is_dir():
        path = path / "case.toml"
        if not path.is_file():
            raise InputError("holds no case.toml; give the case file itself",
                             path=str(Path(case)))
    return path


def _method_overrides(spec, configuration: dict) -> dict | None:
    """``run --calibrator/--elub/--bounds`` as recorded: the recorded method where it differs
    from the case file's (the command line had overridden it)."""
    method = configuration.get("method", {})
    changed = {k: method[k] for k in ("calibrator", "elub", "bounds")
               if k in method and method[k] != getattr(spec.method, k)}
    return {"method": changed} if changed else None


def _input_findings(spec, case_file: Path, provenance: dict) -> list[Finding]:
    """Every recorded input's SHA-256 against the file there now (case file first)."""
    found = []
    case_sha = hashlib.sha256(case_file.read_bytes()).hexdigest()
    found.append(_compare_digest(case_file.name, provenance.get("case_file_sha256"), case_sha))
    recorded_lab = provenance.get("lab_profile_sha256")
    if recorded_lab is not None or spec.lab_sha256 is not None:
        if spec.lab_sha256 is None:
            found.append(Finding("input", False, f"laboratory profile: the report was made "
                                 f"with one (SHA-256 {recorded_lab[:12]}...); give it with --lab"))
        else:
            found.append(_compare_digest("laboratory profile", recorded_lab, spec.lab_sha256))
    for name, digest in provenance.get("inputs", {}).items():
        found.append(_compare_digest(name, digest, _sha256(spec.resolve(name))))
    return found


def _compare_digest(name: str, recorded: str | None, current: str | None) -> Finding:
    if current is None:
        return Finding("input", False, f"{name}: missing (recorded SHA-256 {recorded})")
    if recorded is None:
        return Finding("input", False, f"{name}: no SHA-256 recorded for it in the report")
    if recorded != current:
        return Finding("input", False, f"{name}: SHA-256 differs (recorded {recorded}, "
                       f"now {current})")
    return Finding("input", True, f"{name}: SHA-256 matches ({current[:16]}...)")


def _record_finding(report: ReportFile, computed: bytes) -> Finding:
    name = report.record_name
    if computed == report.record:
        return Finding("record", True, f"{name} recomputed from the inputs equals the "
                       "embedded one, byte for byte")
    diff = first_difference(report.content, json.loads(computed))
    if diff is None:
        offset = next(i for i, (x, y) in enumerate(zip(report.record, computed, strict=False))
                      if x != y) if len(computed) == len(report.record) else min(
            len(computed), len(report.record))
        return Finding("record", False, f"{name} recomputed has the same values but "
                       f"other bytes (from byte {offset})")
    where, recorded, now = diff
    return Finding("record", False, f"{name} differs first at {where}: the report says "
                   f"{_shown(recorded)}, the re-run gives {_shown(now)}")


def _software_difference(recorded: dict[str, str]) -> list[str]:
    installed = software_versions()
    return [f"{name} {recorded.get(name, 'not recorded')} (here {installed.get(name, '-')})"
            for name in sorted(set(recorded) | set(installed))
            if recorded.get(name) != installed.get(name)]


def _pdf_finding(report: ReportFile, rendered: bytes) -> Finding:
    if rendered == report.first_revision:
        what = "the report's first revision (before signing)" if report.revisions > 1 \
            else "the report"
        return Finding("pdf", True, f"the PDF re-rendered from the re-run equals {what}, "
                       "byte for byte")
    original = report.first_revision
    offset = next((i for i, (x, y) in enumerate(zip(original, rendered, strict=False))
                   if x != y), min(len(original), len(rendered)))
    return Finding("pdf", False, f"the PDF re-rendered from the re-run differs from the report "
                   f"from byte {offset} of {len(original)} (the same software versions made "
                   "it; fonts or system libraries that changed can also change the bytes)")


def check_against_case(
    report: ReportFile, case: str | Path, *, lab: str | Path | None = None,
    render: Callable[[Any], bytes] | None = None,
) -> list[Finding]:
    """Re-run the case of a case report and compare (see the module docstring).

    Parameters
    ----------
    report : ReportFile
        From :func:`read_report`; a case report (its record is ``result.json``).
    case : path
        The case file, or the folder holding ``case.toml``.
    lab : path, optional
        The laboratory profile the report was made with (``run --lab``).
    render : callable(CaseRun) -> bytes, optional
        Renders the re-run's PDF (``build_report(run, ("pdf",))["report.pdf"]``); without
        it the PDF is not compared.

    Returns
    -------
    list of Finding
        In the order checked; the inputs' only when one differs.

    Raises
    ------
    InputError
        The report is a validation-study report, or the case file cannot be read.
    """
    from .checklist import check_case
    from .job import CaseJob
    from .spec import load_case

    if not report.is_case_report:
        raise InputError(f"embeds {report.record_name}: it is a validation-study report, which "
                         "--case cannot re-run; re-run the study with the settings its "
                         "record lists", path=str(report.path))
    recorded = report.content
    case_file = _case_file(case)
    spec = load_case(case_file, lab=lab)
    overrides = _method_overrides(spec, recorded.get("provenance", {}).get("configuration", {}))
    if overrides:
        spec = load_case(case_file, lab=lab, overrides=overrides)
    inputs = _input_findings(spec, case_file, recorded.get("provenance", {}))
    if not all(f.ok for f in inputs):
        return inputs
    names = ", ".join(f.text.partition(":")[0] for f in inputs)
    findings = [Finding("input", True, f"every input has its recorded SHA-256 ({names})")]
    run = CaseJob(case_file=case_file, spec=spec, checklist=check_case(spec, read_inputs=False),
                  draft=bool(recorded.get("draft"))).run()
    findings.append(_record_finding(report, run.result.to_json().encode("utf-8")))
    if render is None:
        return findings
    findings.append(_pdf_step(report, recorded.get("provenance", {}).get("software", {}),
                              lambda: render(run)))
    return findings


def _pdf_step(report: ReportFile, software: dict[str, str],
              render: Callable[[], bytes]) -> Finding:
    """The re-rendered PDF against the report's first revision, when the recorded software
    versions are the installed ones; else a note that it cannot be re-rendered identically."""
    differ = _software_difference(software)
    if differ:
        return Finding("pdf", None, "the PDF could not be re-rendered identically: the report "
                       "was made with other software versions (" + "; ".join(differ)
                       + "); the record was checked")
    return _pdf_finding(report, render())


def _study_file(name: str, given: list[Path]) -> Path | None:
    """Where the input ``name`` (a path as the study's record gives it) is among the
    ``--study`` paths: a given file of that file name, else that relative path or file
    name inside a given folder."""
    base = Path(name).name
    for path in given:
        if path.is_file() and path.name == base:
            return path
    for folder in (p for p in given if p.is_dir()):
        candidates = [folder / base] if Path(name).is_absolute() else [folder / name,
                                                                      folder / base]
        found = next((c for c in candidates if c.is_file()), None)
        if found is not None:
            return found
    return None


def check_against_study(
    report: ReportFile, study: list[str | Path], *,
    rerun: Callable[[dict, dict[str, str], dict[str, str], str | None], dict[str, bytes]],
) -> list[Finding]:
    """Re-run the validation study of a validation-study report and compare: the inputs'
    SHA-256, then ``validation.json`` byte for byte, then (same software versions) the
    re-rendered PDF with the report's first revision.

    Parameters
    ----------
    report : ReportFile
        From :func:`read_report`; a validation-study report (``validation.json``) made by
        ``forensic-lr validate --report``, whose record keeps the command's options.
    study : list of paths
        The study's input files, or folders holding them (found by file name).
    rerun : callable(options, paths, recorded_inputs, language) -> files
        Re-makes ``validate --report``'s files in memory from the recorded options, the
        input options pointing at ``paths`` (option -> the file found), in the PDF's
        language (its catalog's ``/Lang``)
        (:func:`forensic_lr.cli.validate.rerun_report`); this module does not render.

    Raises
    ------
    InputError
        A case report, a study run from Python (no recorded options), a ``--study`` path
        that does not exist.
    """
    if report.is_case_report:
        raise InputError("embeds result.json: it is a case report; re-run it with --case, "
                         "not --study", path=str(report.path))
    recorded = report.content
    options = recorded.get("command_options")
    if not options:
        raise InputError("its validation.json keeps no validate options (the study was run "
                         "from Python, or by a forensic-lr that did not record them): re-run "
                         "the study with the settings its record lists and compare "
                         "validation.json", path=str(report.path))
    given = [Path(p) for p in study]
    for path in given:
        if not path.exists():
            raise InputError("--study: no such file or folder", path=str(path))
    from ..calibration import extra_inputs

    mapped = {}
    for option in (*STUDY_INPUT_OPTIONS, *extra_inputs()):
        if option in options:
            found = _study_file(str(options[option]), given)
            if found is None:
                return [Finding("input", False, f"{Path(str(options[option])).name} (the "
                                f"study's --{option.replace('_', '-')}): not found among the "
                                "--study files and folders")]
            mapped[option] = str(found)
    places = [*given, Path(mapped["case"]).parent] if "case" in mapped else given
    inputs = []
    for name, digest in recorded.get("inputs", {}).items():
        found = _study_file(name, places)
        inputs.append(_compare_digest(name, digest, None if found is None else _sha256(found)))
    if not all(f.ok for f in inputs):
        return inputs
    names = ", ".join(Path(f.text.partition(":")[0]).name for f in inputs)
    findings = [Finding("input", True, f"every input has its recorded SHA-256 ({names})")]
    files = rerun(options, mapped, recorded.get("inputs", {}), report.language)
    findings.append(_record_finding(report, files["validation.json"]))
    findings.append(_pdf_step(report, recorded.get("software", {}),
                              lambda: files["validation_report.pdf"]))
    return findings

