"""Put a run's output files on disk: all or nothing, never over results without ``force``.

All content is produced in memory first (a ``dict`` of relative path -> bytes); this
module only puts it on disk, in one of two ways.

An output *folder* (``run --out``, ``validate --report``/``--plots``, ``examples copy``)
is committed as a whole: every file is written into a fresh temporary folder beside the
target (created exclusively, unique name), files and folders are flushed to disk
(``fsync``), then the folders are swapped by two renames, the old folder moved aside and
removed only after the new one is in place. A reader sees the old complete set, the new
complete set or, for an instant, no folder - never a mix. A folder left beside the target
by a killed run is removed by the next run to the same target (an old set moved aside but
not replaced is first moved back). The folder holds a manifest,
:data:`MANIFEST` (name and SHA-256 of each file), which tells a previous output set from a
folder of other files: ``force`` replaces only a previous output set of the same kind
(a report set, or a case folder copied by ``examples copy``), only as a whole, and only
while every file it lists still has the SHA-256 it was written with (a file the user
edited since is never replaced).

While a run prepares and commits a folder it holds an exclusive lock on the file
``.NAME.lock`` beside it (:mod:`filelock`): a second run to the same folder is refused, and
so is a run to a folder inside it or around it (``--out nest`` while another run writes
``nest/report``), when it starts and again just before its swap.

A single output *file* (``compare --plot``, ``init``) is written to a temporary file with a
unique name created with ``O_EXCL`` in the target's folder (so a planted link is never
followed), flushed, then moved into place with :func:`os.replace`.

Disk problems (no space, no permission, a read-only disk) end in
:class:`~forensic_lr.errors.InputError` with the reason, and leave nothing behind.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import secrets
import shutil
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from .errors import InputError
from .io.paths import resolve_path

__all__ = [
    "CASE_FOLDER",
    "MANIFEST",
    "OUTPUT",
    "OutputFolder",
    "check_output_file",
    "check_output_folder",
    "write_file",
    "write_outputs",
]

#: The manifest every committed output folder holds: ``{"files": {name: sha256}, ...}``.
MANIFEST = ".forensic-lr-output.json"

#: What a committed folder is (the manifest's ``kind``): a command's output set, or a worked
#: case copied by ``examples copy`` (a case folder, never replaced by a run's output).
OUTPUT, CASE_FOLDER = "output", "case folder"

_KIND_TEXT = {OUTPUT: "a previous output folder", CASE_FOLDER: "a copied case folder"}
_LOCK = re.compile(r"\..+\.lock")

_LEFTOVER = r"\.{name}\.(new|old)-[0-9a-f]{{16}}"


def _check_relative(name: str) -> PurePosixPath:
    rel = PurePosixPath(name)
    if not name or rel.is_absolute() or ".." in rel.parts or "\\" in name or name == MANIFEST:
        raise InputError(f"output file name {name!r} must be a relative path inside the folder")
    return rel


def _disk_error(exc: OSError, target: Path) -> InputError:
    """An OS error while writing ``target`` as a user-facing message."""
    reason = {
        errno.ENOSPC: "no space left on the disk",
        errno.EDQUOT: "the disk quota is exceeded",
        errno.EROFS: "the disk is read-only",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
    }.get(exc.errno, exc.strerror or type(exc).__name__)
    return InputError(f"cannot write {target}: {reason}; nothing was written")


def _fsync_dir(path: Path) -> None:
    """Flush a folder's entries to disk (POSIX; Windows cannot open a folder to flush it)."""
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_new(path: Path, content: bytes) -> None:
    """Create ``path`` (never an existing file or link: ``O_EXCL``), write and flush it.

    Mode 0o666 lets the umask decide, as for any new file (unlike mkstemp's 0o600).
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o666)
    with os.fdopen(fd, "wb") as handle:
        handle.write(content)
        handle.flush()
        os.fsync(handle.fileno())


def _is_input(target: Path, inputs: Iterable[str | Path]) -> Path | None:
    """The first input lying in (or being) ``target``, after symbolic links."""
    for item in inputs:
        path = resolve_path(item)  # a link loop or over-long input path: a clear error
        if path == target or path.is_relative_to(target):
            return path
    return None


def _locate(path: str | Path, option: str) -> Path:
    """The absolute output path (symbolic links of its folders resolved), or a clear error.

    Refuses a dangling symbolic link, a path under a file and a folder the user may not
    write in (checked on the nearest existing ancestor).
    """
    given = Path(path)
    if os.path.islink(given) and not given.exists():
        raise InputError(f"{option} {given} is a symbolic link to nothing; remove it or "
                         "choose another path")
    target = given.resolve()
    if not target.name:
        raise InputError(f"{option} {given}: choose a folder, not the root of the disk")
    ancestor = target.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise InputError(f"{option} {given}: {ancestor} is a file, so nothing can be written "
                         "under it; choose another path")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise InputError(f"{option} {given}: no permission to write in {ancestor}; choose a "
                         "folder you may write in")
    return target


def _foreign_entries(folder: Path, manifest: dict) -> list[str]:
    """Entries of ``folder`` that its manifest does not list (symbolic links always count)."""
    listed = set(manifest.get("files", {}))
    parents = {p.as_posix() for name in listed for p in PurePosixPath(name).parents}
    foreign = []
    for dirpath, dirnames, filenames in os.walk(folder):
        base = Path(dirpath)
        for name in [*dirnames, *filenames]:
            entry = base / name
            rel = entry.relative_to(folder).as_posix()
            if rel == MANIFEST:
                continue
            if entry.is_symlink():
                foreign.append(rel)
            elif entry.is_dir():
                if rel not in parents:
                    foreign.append(rel + "/")
            elif rel not in listed:
                foreign.append(rel)
        dirnames[:] = [d for d in dirnames if (base / d).relative_to(folder).as_posix()
                       in parents and not (base / d).is_symlink()]
    return sorted(foreign)


def _read_manifest(folder: Path) -> dict | None:
    path = folder / MANIFEST
    if path.is_symlink() or not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(data, dict) and isinstance(data.get("files"), dict) and all(
        isinstance(name, str) and isinstance(digest, str) and _plain_relative(name)
        for name, digest in data["files"].items())
    return data if ok else None


def _plain_relative(name: str) -> bool:
    rel = PurePosixPath(name)
    return bool(name) and not rel.is_absolute() and ".." not in rel.parts and "\\" not in name


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _legacy_kind(manifest: dict) -> str:
    """The kind of a folder written before manifests said it: a copied case holds a
    ``case.toml`` or a ``README.md``, which no output set does."""
    names = {PurePosixPath(name).name for name in manifest["files"]}
    return CASE_FOLDER if names & {"case.toml", "README.md"} else OUTPUT


def _changed_files(folder: Path, manifest: dict) -> list[str]:
    """Files the manifest lists whose content no longer has the SHA-256 written (a file
    removed since holds nothing to lose and is not listed)."""
    changed = []
    for name, digest in sorted(manifest["files"].items()):
        path = folder / name
        if path.is_symlink() or (path.exists() and not path.is_file()):
            changed.append(name)
        elif path.is_file() and _sha256(path) != digest:
            changed.append(name)
    return changed


def _listed(names: list[str]) -> str:
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _held(lock_file: Path) -> bool:
    """Whether another run (or another :class:`OutputFolder` of this one) holds the lock."""
    from filelock import FileLock, Timeout

    if not lock_file.is_file():
        return False
    probe = FileLock(lock_file, timeout=0)
    try:
        probe.acquire()
    except Timeout:
        return True
    except OSError:  # a lock file we may not open: someone else's, take it as held
        return True
    probe.release()
    return False


def _busy_around(target: Path, option: str) -> None:
    """Refuse a ``target`` inside a folder another run is writing, or holding one.

    Locks are per folder (``.NAME.lock`` beside it); a run replacing ``nest`` would
    otherwise delete ``nest/report`` that another run is writing, and the other way round.
    """
    for folder in target.parents:
        if folder.parent != folder and _held(folder.parent / f".{folder.name}.lock"):
            raise InputError(f"another forensic-lr run is writing to {folder}, which holds "
                             f"{option} {target}; wait for it to finish or choose another "
                             "folder")
    if not target.is_dir():
        return
    for dirpath, dirnames, filenames in os.walk(target):
        for name in filenames:
            if _LOCK.fullmatch(name) and _held(Path(dirpath) / name):
                inner = Path(dirpath) / name[1:-len(".lock")]
                raise InputError(f"another forensic-lr run is writing to {inner}, inside "
                                 f"{option} {target}; wait for it to finish or choose another "
                                 "folder")
        dirnames[:] = [d for d in dirnames if not (Path(dirpath) / d).is_symlink()]


def _check_contents(target: Path, *, force: bool, inputs: Iterable[str | Path],
                    option: str, kind: str = OUTPUT, force_hint: str = "--force") -> None:
    """The target is a new or empty folder, or (with ``force``) a previous, unchanged set
    of the same ``kind``. ``force_hint``: how the caller spells "replace" in messages
    (``"--force"`` on the command line, ``"force=True"`` from Python)."""
    if target.exists() and not target.is_dir():
        raise InputError(f"{option} {target} exists and is not a folder; give another folder")
    found = _is_input(target, inputs)
    if found is not None:
        raise InputError(f"{option} {target} holds an input of this run ({found}); write the "
                         "output to a new folder, e.g. a 'report' folder beside the case file")
    if Path.cwd().resolve().is_relative_to(target):
        # replacing it would leave the shell in a deleted folder
        raise InputError(f"{option} {target} is (or holds) the current folder; write the "
                         "output to a new sub-folder, e.g. --out report")
    if not target.is_dir() or not any(target.iterdir()):
        return
    if not force:
        raise InputError(f"output folder {target} is not empty; choose an empty or new folder, "
                         f"or use {force_hint} to replace the previous output in it")
    manifest = _read_manifest(target)
    if manifest is None:
        raise InputError(f"{option} {target} was not written by forensic-lr (it has no "
                         f"{MANIFEST}); {force_hint} replaces only a previous output folder: "
                         "empty it or choose another folder")
    found_kind = manifest.get("kind", _legacy_kind(manifest))
    if found_kind != kind:
        what = ("a case folder copied by `forensic-lr examples copy`"
                if found_kind == CASE_FOLDER else f"a folder of kind {found_kind!r}")
        raise InputError(f"{option} {target} is {what}, not {_KIND_TEXT.get(kind, kind)}; "
                         f"{force_hint} never replaces it: choose another folder")
    foreign = _foreign_entries(target, manifest)
    if foreign:
        raise InputError(f"{option} {target} holds entries forensic-lr did not write "
                         f"({_listed(foreign)}); {force_hint} replaces only a previous output "
                         "set: move them or choose another folder")
    changed = _changed_files(target, manifest)
    if changed:
        raise InputError(f"{option} {target}: {len(changed)} file(s) changed since forensic-lr "
                         f"wrote them ({_listed(changed)}); {force_hint} replaces only files "
                         "nobody changed since: move the changed files or choose another folder")


def check_output_folder(path: str | Path, *, force: bool, inputs: Iterable[str | Path] = (),
                        option: str = "--out", kind: str = OUTPUT) -> Path:
    """Check an output folder before any work is done; return its absolute path.

    Refused: a path under a file, a dangling symbolic link, a folder the user may not
    write in, an existing file, a folder holding one of ``inputs`` or the current folder,
    a non-empty folder
    without ``force``, and (with ``force``) a folder that is not a previous output set
    of ``kind`` (no :data:`MANIFEST`, another kind, entries it does not list, or files
    whose SHA-256 changed since). ``option`` names the path in messages (``"--out"``,
    ``"--plots"``...).

    :class:`OutputFolder` runs the same checks under its lock; this function is for a
    caller that only wants to know.
    """
    target = _locate(path, option)
    _check_contents(target, force=force, inputs=list(inputs), option=option, kind=kind)
    return target


class OutputFolder:
    """A checked, locked output folder, committed all or nothing.

    Use as a context manager around the whole run, so a mistake is reported before the
    computation and a second run to the same folder is refused at once::

        with OutputFolder(out, force=force, inputs=[case_file]) as target:
            files = compute_everything()
            target.commit(files)

    Entering creates the missing parent folders, takes the lock, tidies what a killed
    run left beside the folder and runs :func:`check_output_folder`'s checks. Leaving
    releases the lock; parent folders created on entry (and the lock file in them) are
    removed again if nothing was committed.
    """

    def __init__(self, path: str | Path, *, force: bool, inputs: Iterable[str | Path] = (),
                 option: str = "--out", kind: str = OUTPUT, force_hint: str = "--force") -> None:
        self.path = path
        self.force = force
        self.force_hint = force_hint
        self.inputs = list(inputs)
        self.option = option
        self.kind = kind
        self.target: Path | None = None
        self._lock = None
        self._made: list[Path] = []
        self._committed = False

    def __enter__(self) -> OutputFolder:
        from filelock import FileLock, Timeout

        target = _locate(self.path, self.option)
        missing = []
        parent = target.parent
        while not parent.exists():
            missing.append(parent)
            parent = parent.parent
        try:
            for folder in reversed(missing):
                folder.mkdir()
                self._made.append(folder)
            lock = FileLock(target.parent / f".{target.name}.lock", timeout=0)
            lock.acquire()
        except Timeout:
            self._remove_made()
            raise InputError(f"another forensic-lr run is writing to {target}; wait for it to "
                             "finish or choose another folder") from None
        except OSError as exc:
            self._remove_made()
            raise _disk_error(exc, target) from None
        self._lock = lock
        self.target = target
        try:
            self._tidy()
            self._check()
        except BaseException:
            self._release()
            raise
        return self

    def _check(self) -> None:
        """No run writes around or inside the folder; its contents may be replaced."""
        _busy_around(self.target, self.option)
        _check_contents(self.target, force=self.force, inputs=self.inputs, option=self.option,
                        kind=self.kind, force_hint=self.force_hint)

    def __exit__(self, *exc) -> None:
        self._release()

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            if not self._committed and self._made:
                # the lock file sits in a folder this run created: leave nothing behind
                Path(self._lock.lock_file).unlink(missing_ok=True)
            self._lock = None
        if not self._committed:
            self._remove_made()

    def _remove_made(self) -> None:
        for folder in reversed(self._made):
            try:
                folder.rmdir()  # only if still empty
            except OSError:
                break
        self._made = []

    def _tidy(self) -> None:
        """Remove the temporary folders a killed run left; restore an old set moved aside."""
        target = self.target
        pattern = re.compile(_LEFTOVER.format(name=re.escape(target.name)))
        leftovers = sorted(
            (p for p in target.parent.iterdir()
             if pattern.fullmatch(p.name) and p.is_dir() and not p.is_symlink()),
            key=lambda p: p.stat().st_mtime, reverse=True,  # the newest old set first
        )
        for path in leftovers:
            if path.name.startswith(f".{target.name}.old-") and not os.path.lexists(target):
                os.rename(path, target)  # the swap stopped half-way: the old set is complete
            else:
                shutil.rmtree(path, ignore_errors=True)

    def commit(self, files: dict[str, bytes]) -> list[Path]:
        """Replace the folder by exactly ``files`` (relative POSIX path -> bytes), atomically.

        Returns the paths written, in the order given (the manifest is not listed).
        """
        if self.target is None or self._lock is None:
            raise RuntimeError("OutputFolder.commit is used inside its `with` block")
        target = self.target
        if not files:
            raise InputError(f"{self.option} {target}: there is nothing to write (no format or "
                             "file asked for); the folder is left as it was")
        rel = [(_check_relative(name), content) for name, content in files.items()]
        token = secrets.token_hex(8)
        fresh = target.parent / f".{target.name}.new-{token}"
        aside = target.parent / f".{target.name}.old-{token}"
        try:
            os.mkdir(fresh)  # exclusive: fails if the name exists
            try:
                manifest = self._stage(fresh, rel, self.kind)
                _write_new(fresh / MANIFEST, manifest)
                _fsync_dir(fresh)
                self._check()  # again: a run may have started inside it, a file changed
                if os.path.lexists(target):
                    os.rename(target, aside)
                try:
                    os.rename(fresh, target)
                except BaseException:
                    if os.path.lexists(aside) and not os.path.lexists(target):
                        os.rename(aside, target)
                    raise
            except BaseException:
                shutil.rmtree(fresh, ignore_errors=True)
                raise
            _fsync_dir(target.parent)
        except OSError as exc:
            raise _disk_error(exc, target) from None
        self._committed = True
        shutil.rmtree(aside, ignore_errors=True)  # a failure here is tidied by the next run
        return [target / path for path, _ in rel]

    @staticmethod
    def _stage(fresh: Path, rel: list[tuple[PurePosixPath, bytes]], kind: str) -> bytes:
        """Write the files under ``fresh``, flush their folders; return the manifest bytes."""
        folders = {fresh}
        hashes = {}
        for path, content in rel:
            dest = fresh / path
            if dest.parent not in folders:
                dest.parent.mkdir(parents=True, exist_ok=True)
                folders.update([dest.parent, *dest.parent.parents])
            _write_new(dest, content)
            hashes[path.as_posix()] = hashlib.sha256(content).hexdigest()
        for folder in folders:
            if folder.is_relative_to(fresh) and folder != fresh:
                _fsync_dir(folder)
        from . import __version__

        record = {"files": hashes, "kind": kind, "written_by": f"forensic-lr {__version__}"}
        return (json.dumps(record, indent=2, sort_keys=True) + "\n").encode("utf-8")


def write_outputs(out_dir: str | Path, files: dict[str, bytes], *, force: bool,
                  inputs: Iterable[str | Path] = (), option: str = "--out",
                  kind: str = OUTPUT) -> list[Path]:
    """Check, lock and commit an output folder in one call (see :class:`OutputFolder`).

    Parameters
    ----------
    out_dir : str or Path
        Destination folder; created if missing.
    files : dict of str to bytes
        Relative POSIX path (e.g. ``"figures/tippett.svg"``) -> content: the whole new set.
    force : bool
        Replace a previous output set (the whole set: files it had that ``files`` lacks
        are gone afterwards).
    inputs : iterable of path
        The run's input files and folders; an output folder holding one is refused.
    option : str
        How messages name the folder (``"--out"``, ``"--plots"``...).
    kind : {OUTPUT, CASE_FOLDER}
        What the folder is; ``force`` replaces only a folder of the same kind.

    Returns
    -------
    list of Path
        The files written, in the order given.

    Raises
    ------
    InputError
        See :func:`check_output_folder`; also a name that is not a plain relative path,
        another run holding the folder's lock, and a disk error while writing.
    """
    with OutputFolder(out_dir, force=force, inputs=inputs, option=option, kind=kind) as target:
        return target.commit(files)


def check_output_file(path: str | Path, *, force: bool, inputs: Iterable[str | Path] = (),
                      option: str = "--plot", force_hint: str = "--force") -> Path:
    """Check a single output file before any work is done; return its absolute path.

    Refused: a missing folder, an existing folder at the path, one of ``inputs`` (after
    symbolic links), and an existing file (or link) without ``force``.
    """
    given = Path(path)
    folder = given.parent.resolve()
    target = folder / given.name
    if not given.name or not folder.is_dir():
        raise InputError(f"the folder of {option} does not exist; create it first",
                         path=str(given))
    if target.is_dir():
        raise InputError(f"{option} is a folder; give a file name", path=str(given))
    if os.path.lexists(target) and not force:
        raise InputError(f"exists; choose another {option} file or use {force_hint} to "
                         "replace it",
                         path=str(given))
    if _is_input(target, inputs) is not None:  # a link at the path is replaced, not followed
        raise InputError(f"{option} is an input of this run; choose another file name",
                         path=str(given))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"no permission to write in {folder}", path=str(given))
    return target


def write_file(path: str | Path, content: bytes, *, force: bool,
               inputs: Iterable[str | Path] = (), option: str = "--plot",
               force_hint: str = "--force") -> Path:
    """Write one file atomically: a unique ``O_EXCL`` temporary file, then :func:`os.replace`.

    A link planted at any temporary name is never followed (the name is random and
    created exclusively); a link at ``path`` itself is replaced, not written through.
    Checks as :func:`check_output_file`; returns the absolute path written.
    """
    target = check_output_file(path, force=force, inputs=inputs, option=option,
                               force_hint=force_hint)
    tmp = target.parent / f".{target.name}.{secrets.token_hex(8)}.tmp"
    try:
        try:
            _write_new(tmp, content)
            os.replace(tmp, target)
        except BaseException:
            if os.path.lexists(tmp):
                os.unlink(tmp)
            raise
        _fsync_dir(target.parent)
    except OSError as exc:
        raise _disk_error(exc, target) from None
    return target


def save_calibrator(calibrator, path: str | Path, *, force: bool = False) -> Path:
    """Write a fitted calibrator to ``path`` as JSON
    (:func:`forensic_lr.calibration.calibrator_to_json`: no pickle), atomically and never
    over an existing file unless ``force``; returns the path written."""
    from .calibration import calibrator_to_json

    return write_file(path, calibrator_to_json(calibrator).encode("utf-8") + b"\n",
                      force=force, option="path", force_hint="force=True")


def load_calibrator(path: str | Path):
    """The fitted calibrator saved at ``path`` by :func:`save_calibrator` (its method looked
    up in the closed registry; nothing in the file is run)."""
    from .calibration import calibrator_from_json

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the calibrator file {path}: {exc.strerror}") from None
    return calibrator_from_json(text, source=str(path))
