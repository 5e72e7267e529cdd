"""Resolve the paths users give and check that each names what it should, before reading.

Every command that reads a file - score tables, case files, lab profiles, verbal scales,
settings, matrices - goes through this module, so each refuses the same bad path with the
same clear message (exit code 2 on the command line) instead of a traceback or a wrong
"not found":

- a symbolic link loop (a link that leads back to itself, directly or through a folder):
  Python's ``Path.resolve`` raises ``RuntimeError("Symlink loop ...")`` on some versions and
  ``stat`` fails with ``ELOOP`` [1]_;
- a name or path longer than the system allows (``ENAMETOOLONG``; the limits are
  ``NAME_MAX`` and ``PATH_MAX`` as :func:`os.pathconf` reports them, 255 and 4096 on Linux);
- something that is not a regular file: a folder, a named pipe (FIFO: reading would wait
  for a writer that may never come), a device such as ``/dev/zero`` (which never ends) or a
  socket - each named as what it is (``stat``'s file type [1]_);
- a file that does not exist, or that the user may not read.

References
----------
.. [1] IEEE Std 1003.1-2017 (POSIX), ``<sys/stat.h>`` (file type macros) and
   ``<errno.h>`` (``ELOOP``, ``ENAMETOOLONG``).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from ..errors import InputError, excerpt

__all__ = ["input_file", "input_folder", "resolve_path", "shown_path"]

_LONGEST_SHOWN = 240  # characters of a path printed in a message before it is cut


def shown_path(path) -> str:
    """A path for a message: as given when short and printable, else quoted (escapes shown)
    and, when long, cut in the middle so that both its start and its end (the file name the
    user has to find) stay visible: ``'/home/lab/cases/2026' ... 'scores/ss.csv' (312
    characters)``."""
    text = str(path)
    if len(text) <= _LONGEST_SHOWN and text.isprintable():
        return text
    if len(text) <= 80:
        return repr(text)
    return f"{text[:36]!r} ... {text[-40:]!r} ({len(text):,} characters)"


def _limits(path: Path) -> tuple[int, int]:
    """``(NAME_MAX, PATH_MAX)`` of the nearest existing folder (255 and 4096 if unknown)."""
    folder = path.parent
    for _ in range(64):  # climb to an existing folder without touching over-long names
        try:
            return os.pathconf(folder, "PC_NAME_MAX"), os.pathconf(folder, "PC_PATH_MAX")
        except (OSError, ValueError):
            if folder == folder.parent:
                break
            folder = folder.parent
    return 255, 4096


def _too_long(path: Path) -> str:
    name_max, path_max = _limits(path)
    longest = max((len(os.fsencode(part)) for part in path.parts), default=0)
    size = len(os.fsencode(str(path)))
    which = (f"a name in it has {longest:,} bytes" if longest > name_max
             else f"it has {size:,} bytes")
    return (f"the path is longer than the system allows ({which}; at most {name_max} bytes "
            f"per name and {path_max:,} per path); move or rename the file to a shorter path")


def _loop(what: str) -> str:
    return (f"is a symbolic link loop (a link that leads back to itself, directly or through "
            f"a folder on the way); point the link at the real {what} or give the "
            f"{what}'s own path")


def _refusal(exc: OSError, path: Path, what: str, hint: str) -> InputError:
    """The message for an ``OSError`` raised while looking at ``path``."""
    where = shown_path(path)
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return InputError(f"{what} not found; {hint}", path=where)
    if exc.errno == errno.ELOOP:
        return InputError(_loop(what), path=where)
    if exc.errno == errno.ENAMETOOLONG:
        return InputError(_too_long(path), path=where)
    if exc.errno in (errno.EACCES, errno.EPERM):
        return InputError(f"cannot read the {what} (permission denied); ask for read access "
                          "or copy it to a folder you may read", path=where)
    reason = exc.strerror or type(exc).__name__
    return InputError(f"cannot read the {what} ({reason})", path=where)


def resolve_path(path) -> Path:
    """``Path(path).resolve()`` (absolute, symbolic links followed), or :class:`InputError`.

    A missing file is no error here (it is reported where it is read); a NUL character, a
    symbolic link loop and an over-long path are.
    """
    p = Path(path)
    if "\x00" in str(p):
        raise InputError(f"path {excerpt(str(p))} contains a NUL character")
    try:
        return p.resolve()
    except RuntimeError:  # Python < 3.13: "Symlink loop from ..."
        raise InputError(_loop("file"), path=shown_path(p)) from None
    except OSError as exc:
        raise _refusal(exc, p, "file", "check the path") from None


def _kind(mode: int) -> str | None:
    """What a ``stat`` mode names, for anything but a regular file or a folder."""
    if stat.S_ISFIFO(mode):
        return ("a named pipe (FIFO), whose content is not stored but waits for another "
                "program to write it")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device (such as /dev/zero or a disk), not stored data"
    if stat.S_ISSOCK(mode):
        return "a socket, not stored data"
    return None


def _mode(path: Path, what: str, hint: str) -> int:
    if "\x00" in str(path):
        raise InputError(f"path {excerpt(str(path))} contains a NUL character")
    try:
        return path.stat().st_mode
    except OSError as exc:
        raise _refusal(exc, path, what, hint) from None
    except RuntimeError:  # pragma: no cover - stat raises OSError(ELOOP); kept for safety
        raise InputError(_loop(what), path=shown_path(path)) from None


def input_file(path, what: str = "file", *, hint: str = "check the path") -> Path:
    """``Path(path)`` when it names a regular file (after symbolic links), else an error.

    Parameters
    ----------
    path : str or Path
    what : str
        How the file is called in messages (``"file"``, ``"case file"``, ``"lab profile"``).
    hint : str
        What to do when the file does not exist ("check the path ...").

    Raises
    ------
    InputError
        Naming the path and what it is instead: missing, a folder, a named pipe, a device,
        a socket, a symbolic link loop, longer than the system allows, or unreadable.
    """
    p = Path(path)
    mode = _mode(p, what, hint)
    if stat.S_ISREG(mode):
        if not os.access(p, os.R_OK):
            raise _refusal(PermissionError(errno.EACCES, "permission denied"), p, what, hint)
        return p
    if stat.S_ISDIR(mode):
        raise InputError(f"is a folder, not a {what}; give the path of the {what} itself",
                         path=shown_path(p))
    kind = _kind(mode) or "not a regular file"
    raise InputError(f"is {kind}, not a {what}; save the data to a file and give its path",
                     path=shown_path(p))


def input_folder(path, what: str = "folder", *, hint: str = "check the path") -> Path:
    """``Path(path)`` when it names a folder (after symbolic links), else an error.

    Raises
    ------
    InputError
        As :func:`input_file`, with a regular file refused as "a file, not a folder".
    """
    p = Path(path)
    mode = _mode(p, what, hint)
    if stat.S_ISDIR(mode):
        return p
    kind = "a file" if stat.S_ISREG(mode) else (_kind(mode) or "not a folder")
    raise InputError(f"is {kind}, not a {what}; give the path of a folder", path=shown_path(p))
