"""Case folders on disk: uploads checked, cases created and edited, runs made.

A case made in the browser is the same folder the command line uses: ``CASES/ID/case.toml``
with its score files beside it, so ``forensic-lr run CASES/ID/case.toml`` runs it too. Runs
write their report set to ``CASES/ID/runs/N/`` (:class:`forensic_lr.output.OutputFolder`:
all or nothing). A file name sent by a client is never used as a path: it must be a plain
name (:func:`safe_file_name`), with an expected suffix, named by the case file.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import shutil
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ForensicLRWarning, InputError
from .register import Conflict, Register, User

__all__ = [
    "ALLOWED_SUFFIXES", "CASE_FILE", "CaseStore", "FieldErrors", "UploadError", "field_errors",
    "safe_file_name", "sha256",
]

CASE_FILE = "case.toml"
RUNS = "runs"
#: Where an administrator's uploaded lab profile is kept (outside every case folder).
LAB_FOLDER, LAB_FILE = ".lab", "lab.toml"
#: Score and table files the readers take (CSV/TSV/text, JSON, numpy, Excel) and a verbal
#: scale or lab profile a case may name.
ALLOWED_SUFFIXES = (".csv", ".tsv", ".txt", ".json", ".npy", ".xlsx", ".parquet", ".toml")
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._ -]{0,127}")
_PROBLEM = re.compile(r"^\s*- (\[[^\]]+\](?: [^:]+)?): (.*)$")


class UploadError(InputError):
    """A request's files or case file are refused (HTTP 422); ``errors`` per field."""

    def __init__(self, message: str, errors: Sequence[Mapping[str, str]] = ()) -> None:
        super().__init__(message)
        self.errors = list(errors) or [{"field": "", "message": message}]


FieldErrors = list[dict[str, str]]


def field_errors(message: str) -> FieldErrors:
    """A case-file error message split into ``{"field": "[section] key", "message"}`` rows
    (the lines ``- [section] key: text`` that :func:`forensic_lr.casework.load_case` lists);
    a message without such lines is one row with no field."""
    rows = [{"field": m.group(1), "message": m.group(2)}
            for line in message.splitlines() if (m := _PROBLEM.match(line))]
    return rows or [{"field": "", "message": message}]


def sha256(content: bytes) -> str:
    """SHA-256 (hex) of bytes."""
    return hashlib.sha256(content).hexdigest()


def safe_file_name(name: str | None) -> str:
    """``name`` when it is a plain file name with an expected suffix, else :class:`UploadError`.

    Refused: empty names, NUL or control characters, any ``/`` or ``\\``, ``..``, names
    starting with a dot, longer than 128 characters, other characters than letters, digits,
    ``._ -``, and suffixes outside :data:`ALLOWED_SUFFIXES`.
    """
    shown = repr(name)[:80]
    if not name or any(ord(c) < 32 for c in name) or "/" in name or "\\" in name \
            or ".." in name or not _SAFE_NAME.fullmatch(name):
        raise UploadError(f"file name {shown}: give a plain file name (letters, digits, "
                          "'.', '_', '-', space; no folders, no '..'), e.g. ss.csv",
                          [{"field": "files", "message": f"{shown} is not a plain file name"}])
    if not name.lower().endswith(ALLOWED_SUFFIXES):
        raise UploadError(f"file {shown}: only {', '.join(ALLOWED_SUFFIXES)} files are taken",
                          [{"field": "files", "message": f"{shown}: not an expected type"}])
    return name


def case_key(case_id: str) -> str:
    """The folder name (and web id) of a case id: the id itself when it is a plain name,
    else its unsafe characters replaced and a short hash of the id added."""
    if _SAFE_NAME.fullmatch(case_id) and " " not in case_id and ".." not in case_id:
        return case_id
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", case_id).strip("._-")[:48] or "case"
    return f"{slug}-{sha256(case_id.encode())[:8]}"


@dataclass
class Progress:
    """What a running case is doing, for the page's progress bar (``for_stage`` is what
    :func:`forensic_lr.casework.run_case_full` asks of its progress object)."""

    stage: str = "starting"
    done: int = 0
    total: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def for_stage(self, name: str) -> Callable[[int, int], None]:
        with self._lock:
            self.stage, self.done, self.total = name, 0, 0

        def callback(done: int, total: int) -> None:
            with self._lock:
                self.stage, self.done, self.total = name, done, total
        return callback

    def to_dict(self) -> dict[str, Any]:
        with self._lock:
            return {"stage": self.stage, "done": self.done, "total": self.total}


class CaseStore:
    """The cases folder: its register, case folders and runs."""

    def __init__(self, root: str | Path, *, lab: str | Path | None = None,
                 max_upload: int = 50 * 2**20) -> None:
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        self.register = Register(self.root)
        self.register.fail_stale_runs()
        self.lab_fixed = lab is not None  # given with serve --lab: not replaced by an upload
        uploaded = self.root / LAB_FOLDER / LAB_FILE
        self.lab = Path(lab).resolve() if lab is not None else (
            uploaded if uploaded.is_file() else None)
        self.max_upload = max_upload
        self.progress: dict[str, Progress] = {}
        #: the examiner's signer of ``serve --lab``'s ``[signing]`` table, opened once here
        self.signer = server_signer(self.lab) if self.lab_fixed else None
        self._signing = threading.Lock()  # one sign-off at a time (read, sign, replace)

    def retention_end(self, case: dict[str, Any]) -> dt.datetime:
        """When a case may be deleted: ``[records] retention_years`` of the server's lab
        profile after it was closed (final or withdrawn). :class:`Conflict` for an open
        case or a profile (or none) that states no retention period."""
        from ..casework.profile import load_profile

        years = None if self.lab is None else load_profile(self.lab)[0].records.retention_years
        if years is None:
            raise Conflict("the laboratory's profile states no retention period ([records] "
                           "retention_years): the server deletes no case")
        if case["status"] not in ("final", "withdrawn"):
            raise Conflict(f"case {case['id']} is {case['status']}: its retention period "
                           "starts when it is final or withdrawn")
        closed = dt.datetime.strptime(case["updated"], "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=dt.UTC)
        try:
            return closed.replace(year=closed.year + years)
        except ValueError:  # 29 February closing, no such day in that year
            return closed.replace(year=closed.year + years, day=28) + dt.timedelta(days=1)

    # ---------------------------------------------------------------- folders
    def folder(self, key: str) -> Path:
        """The folder of a registered case (KeyError for an unknown id)."""
        if self.register.case(key) is None:
            raise KeyError(key)
        return self.root / key

    def _stage(self, case_text: bytes, files: Sequence[tuple[str | None, bytes]]):
        """Write the upload into a fresh folder inside the cases folder and validate it.

        Returns ``(spec, staging folder, {file name: SHA-256})``; on any problem the
        folder is removed and :class:`UploadError` names every problem by field.
        """
        import tempfile

        from ..casework.spec import load_case

        names = [safe_file_name(name) for name, _ in files]
        if len(set(names)) != len(names):
            raise UploadError("two files have the same name",
                              [{"field": "files", "message": "two files have the same name"}])
        if CASE_FILE in names:
            raise UploadError(f"the case file goes in the part named 'case', not as a file "
                              f"named {CASE_FILE}")
        staging = Path(tempfile.mkdtemp(prefix=".upload-", dir=self.root))
        try:
            hashes = {CASE_FILE: sha256(case_text)}
            (staging / CASE_FILE).write_bytes(case_text)
            for name, (_, content) in zip(names, files, strict=True):
                (staging / name).write_bytes(content)
                hashes[name] = sha256(content)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ForensicLRWarning)
                    spec = load_case(staging / CASE_FILE, lab=self.lab)
            except InputError as exc:
                text = str(exc).replace(str(staging) + "/", "").replace(str(staging), "case")
                raise UploadError(text, field_errors(text)) from None
            named = {p.name for p in spec.input_paths() if p.parent == staging}
            unused = sorted(set(names) - named)
            if unused:
                raise UploadError(
                    f"the case file names no file {', '.join(map(repr, unused))}; send only "
                    "the files its [background], [evidence] and [report] keys name",
                    [{"field": "files", "message": f"{n!r} is not named by the case file"}
                     for n in unused])
            return spec, staging, hashes
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise

    @staticmethod
    def _row(key: str, spec, case_sha256: str) -> dict[str, Any]:
        c = spec.case
        return {"id": key, "title": c.title or "", "examiner": c.examiner or "",
                "report_id": c.effective_report_id, "case_sha256": case_sha256}

    def create(self, case_text: bytes, files: Sequence[tuple[str | None, bytes]],
               user: User) -> str:
        """A new case folder from an upload; returns its id (the folder name)."""
        spec, staging, hashes = self._stage(case_text, files)
        key = case_key(spec.case.id)
        try:
            if (self.root / key).exists() or self.register.case(key) is not None:
                from .register import Conflict

                raise Conflict(f"a case {spec.case.id!r} exists already (folder {key})")
            staging.rename(self.root / key)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        try:
            self.register.create_case(self._row(key, spec, hashes[CASE_FILE]), by=user.name,
                                      hashes=hashes)
        except BaseException:
            shutil.rmtree(self.root / key, ignore_errors=True)
            raise
        return key

    def edit(self, key: str, case_text: bytes, files: Sequence[tuple[str | None, bytes]],
             user: User) -> None:
        """Replace a case's file and inputs (409 for a final case; the id must not change)."""
        from .register import Conflict

        case = self.register.case(key)
        if case is None:
            raise KeyError(key)
        if case["status"] in ("final", "withdrawn"):
            raise Conflict(f"case {key} is {case['status']}: it cannot be changed; a final "
                           "report is superseded by a new case with a new report id")
        spec, staging, hashes = self._stage(case_text, files)
        try:
            if case_key(spec.case.id) != key:
                raise UploadError(f"[case] id: the case id is {key!r}; an edit keeps it",
                                  [{"field": "[case] id", "message": "an edit keeps the id"}])
            self.register.update_case(self._row(key, spec, hashes[CASE_FILE]), by=user.name,
                                      hashes=hashes)
            folder = self.root / key
            for old in folder.iterdir():
                if old.is_file():
                    old.unlink()
            for new in staging.iterdir():
                new.rename(folder / new.name)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def set_lab(self, content: bytes, user: User) -> str:
        """Make an uploaded lab profile the server's; returns its SHA-256.

        Checked as ``run --lab`` checks a profile, and confined to its folder (no data roots,
        no logo, template or scale outside it); refused while ``serve --lab`` set one.
        """
        import os
        import tempfile

        from ..casework.profile import load_profile
        from .register import Conflict

        if self.lab_fixed:
            raise Conflict("the laboratory's profile was set with serve --lab; restart the "
                           "server without it to upload one")
        folder = self.root / LAB_FOLDER
        folder.mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".upload-", suffix=".toml", dir=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(content)
            try:
                _, digest = load_profile(tmp, confine_to=folder)
            except InputError as exc:
                text = str(exc).replace(tmp, LAB_FILE)
                raise UploadError(text, field_errors(text)) from None
            os.replace(tmp, folder / LAB_FILE)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        self.lab = folder / LAB_FILE
        self.register.log(user.name, "lab profile set", None, sha256=digest)
        return digest

    # ---------------------------------------------------------------- runs
    def run(self, key: str, user: User, *, draft: bool = False,
            run_id: int | None = None, review=None) -> tuple[int, bytes]:
        """Run a case as ``forensic-lr run`` does; returns ``(run id, result.json bytes)``.

        The run is registered first (:class:`~.register.Conflict` while another run of the
        case goes on), unless ``run_id`` names one registered already; its report set goes
        to ``runs/N``; a failure marks the run failed with its message and re-raises.
        ``review``: the reviewer's approval the record and the report's sign-off carry.
        """
        from ..output import OutputFolder

        folder = self.folder(key)
        if run_id is None:
            run_id = self.register.start_run(key, by=user.name, draft=draft)
        progress = self.progress[key] = Progress()
        try:
            job, files = render_case(folder / CASE_FILE, lab=self.lab, draft=draft,
                                     progress=progress, review=review)
            spec = job.spec
            signature = None
            if self.signer is not None and not draft and "report.pdf" in files:
                from ..casework.signing import case_reason, sign_pdf

                files["report.pdf"] = sign_pdf(files["report.pdf"], self.signer,
                                               reason=case_reason(spec.case.id))
                signature = _signed_entry(self.signer, files["report.pdf"])
            with OutputFolder(folder / RUNS / str(run_id), force=False,
                              inputs=job.inputs) as target:
                target.commit(files)
            result = files["result.json"]
            from ..io.scores import sha256_file

            self.register.finish_run(
                key, run_id, by=user.name, case_sha256=sha256_file(folder / CASE_FILE),
                inputs={p.name: sha256_file(p) for p in spec.input_paths() if p.is_file()},
                outputs={name: sha256(content) for name, content in sorted(files.items())},
                signature=signature)
            return run_id, result
        except BaseException as exc:
            message = str(exc) if isinstance(exc, InputError) else (
                f"{type(exc).__name__}: {exc}")
            self.register.fail_run(key, run_id, by=user.name,
                                   error=message.replace(str(folder) + "/", ""))
            raise
        finally:
            self.progress.pop(key, None)

    def sign_off(self, key: str, run_id: int, signer, user: User) -> str:
        """Add ``signer``'s signature to the report PDF of a finished run (a reviewer's
        sign-off: :func:`forensic_lr.casework.signing.add_signature`, which refuses a draft
        and a file whose present signatures do not check); the file is replaced atomically
        and the signing logged with the SHA-256 before and after. Returns the new SHA-256."""
        from ..casework.signing import add_signature
        from ..casework.verify import read_report
        from ..output import write_file

        path = self.folder(key) / RUNS / str(run_id) / "report.pdf"
        if not path.is_file():
            raise Conflict(f"case {key}: run {run_id} wrote no report.pdf to sign")
        with self._signing:
            if any(e["action"] == "report signed" and e["user"] == user.name
                   and e["details"].get("run") == run_id for e in self.register.audit(key)):
                raise Conflict(f"case {key}: {user.name} has signed the report of run "
                               f"{run_id} already")
            report = read_report(path)
            signed = add_signature(report, signer)
            write_file(path, signed, force=True)
            entry = _signed_entry(signer, signed)
            self.register.log(user.name, "report signed", key, run=run_id,
                              sha256_before=sha256(report.data), **entry)
        return entry["sha256"]

    def run_folder(self, key: str, run: str) -> tuple[int, Path]:
        """``(run id, folder)`` of a finished run (``run`` a number or ``latest``)."""
        done = [r for r in self.register.runs(key) if r["status"] == "done"]
        if run == "latest":
            if not done:
                raise KeyError(run)
            run_id = done[-1]["run_id"]
        else:
            if not run.isdigit() or int(run) not in {r["run_id"] for r in done}:
                raise KeyError(run)
            run_id = int(run)
        return run_id, self.folder(key) / RUNS / str(run_id)


def server_signer(lab: Path | None):
    """The signer the server's lab profile's ``[signing]`` table names, or None: opened once
    when the server starts (its passphrase from the profile's ``passphrase_env``, or asked in
    the terminal that starts the server; never while a request waits)."""
    from ..casework.profile import load_profile
    from ..casework.signing import lab_signer

    if lab is None or load_profile(lab)[0].signing.certificate is None:
        return None
    return lab_signer(lab)


def _signed_entry(signer, pdf: bytes) -> dict[str, str]:
    """What the audit log records of a signing: the signed file's SHA-256, the signer's
    name and role and the SHA-256 of the signer's certificate (never a key or passphrase)."""
    return {"sha256": sha256(pdf), "signer": signer.name, "role": signer.role,
            "certificate_sha256": signer.signer.signing_cert.sha256.hex()}


def render_case(case_file: Path, *, lab: Path | None, draft: bool,
                progress=None, review=None) -> tuple[Any, dict[str, bytes]]:
    """``(job, report set)`` of a case file, as ``forensic-lr run`` makes them: the one
    sequence :func:`forensic_lr.casework.job.open_case` (lab profile, refusal of a final
    report that is not ready unless ``draft``) and :meth:`CaseJob.run`, then
    :func:`~forensic_lr.report.build_report` with the case's formats and ``result.json``
    always. ``review``: the reviewer's approval the record carries (a final report)."""
    from ..casework.job import open_case
    from ..report import build_report

    job = open_case(case_file, lab=lab, draft=draft)
    run = job.run(progress=progress, review=review)
    return job, build_report(run, tuple(dict.fromkeys([*job.formats, "json"])))
