"""The case register: an embedded SQLite database in the cases folder.

One file, :data:`DATABASE`, beside the case folders holds

* ``users``: name, role (examiner, reviewer, administrator) and an argon2id password hash
  (argon2-cffi; never the password);
* ``cases``: id, title, examiner, reviewer, status (draft -> submitted -> reviewed -> final,
  or withdrawn), report id, created and updated times;
* ``runs``: every run of a case, its status (running, done, failed), who ran it and the
  SHA-256 of the case file, of each input and of each output;
* ``sessions``: browser sessions (the SHA-256 of the session id, never the id itself), so
  that they survive a restart of the server until they expire;
* ``login_failures``: failed logins by user name and client address, for the login rate
  limit;
* ``audit``: an append-only log (who, what, when, on which case, with hashes). Each entry
  carries the SHA-256 of the previous entry and its own hash over its fields and that
  link, so that an edited or deleted entry breaks the chain (:func:`check_audit`). SQLite
  triggers refuse UPDATE and DELETE on the table, and the head of the chain (last sequence
  number and hash) is also written to :data:`AUDIT_HEAD` beside the database, so that cutting
  entries off the end is detected too.

Times are UTC, ISO 8601, to the second.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError

__all__ = [
    "AUDIT_HEAD",
    "DATABASE",
    "GENESIS",
    "ROLES",
    "STATUSES",
    "Conflict",
    "Register",
    "User",
    "check_audit",
    "entry_hash",
]

DATABASE = ".forensic-lr-register.sqlite"
AUDIT_HEAD = ".forensic-lr-audit-head"
#: The ``prev`` of the first audit entry.
GENESIS = "0" * 64
ROLES = ("examiner", "reviewer", "administrator")
STATUSES = ("draft", "submitted", "reviewed", "final", "withdrawn")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY, role TEXT NOT NULL, password_hash TEXT NOT NULL, created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS cases (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, examiner TEXT NOT NULL, owner TEXT NOT NULL,
    reviewer TEXT, status TEXT NOT NULL, report_id TEXT NOT NULL, case_sha256 TEXT NOT NULL,
    created TEXT NOT NULL, updated TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    case_id TEXT NOT NULL, run_id INTEGER NOT NULL, status TEXT NOT NULL, user TEXT NOT NULL,
    draft INTEGER NOT NULL, started TEXT NOT NULL, finished TEXT, case_sha256 TEXT,
    inputs TEXT, outputs TEXT, error TEXT, PRIMARY KEY (case_id, run_id)
);
CREATE TABLE IF NOT EXISTS sessions (
    sid_hash TEXT PRIMARY KEY, user TEXT NOT NULL, token_hash TEXT, csrf TEXT NOT NULL,
    created REAL NOT NULL, last_seen REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS login_failures (
    time REAL NOT NULL, user TEXT NOT NULL, address TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    seq INTEGER PRIMARY KEY, time TEXT NOT NULL, user TEXT NOT NULL, action TEXT NOT NULL,
    case_id TEXT, details TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS audit_no_update BEFORE UPDATE ON audit
    BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_no_delete BEFORE DELETE ON audit
    BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
"""


def now() -> str:
    """The current UTC time, ISO 8601 to the second (``2026-11-28T03:40:00Z``)."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def entry_hash(seq: int, time: str, user: str, action: str, case_id: str | None,
               details: Mapping[str, Any], prev: str) -> str:
    """SHA-256 (hex) of an audit entry: of the canonical JSON (sorted keys, no spaces, UTF-8)
    of ``[seq, time, user, action, case_id, details, prev]``."""
    text = _canonical([seq, time, user, action, case_id, dict(details), prev])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Conflict(InputError):
    """The request conflicts with the case's state (HTTP 409): a run is going on, or the case
    is final, or the status does not allow the step."""


@dataclass(frozen=True)
class User:
    """Who makes a request: a registered user, or the token's service user."""

    name: str
    role: str

    def can(self, role: str) -> bool:
        """True when the user has ``role`` (an administrator has every role)."""
        return self.role == role or self.role == "administrator"


class Register:
    """The register of the cases folder ``root`` (created on first use)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.path = self.root / DATABASE
        self._lock = threading.Lock()  # one writer at a time within the server process
        with self._connect() as db:
            db.executescript(_SCHEMA)

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.row_factory = sqlite3.Row
        try:
            yield db
        finally:
            db.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (``BEGIN IMMEDIATE``): committed on success, else rolled back."""
        with self._lock, self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    # ------------------------------------------------------------------ audit
    def _append(self, db: sqlite3.Connection, user: str, action: str, case_id: str | None,
                details: Mapping[str, Any]) -> None:
        """Append one audit entry inside the caller's transaction and move the head file."""
        last = db.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
        seq, prev = (last["seq"] + 1, last["hash"]) if last else (1, GENESIS)
        time = now()
        digest = entry_hash(seq, time, user, action, case_id, details, prev)
        db.execute("INSERT INTO audit VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (seq, time, user, action, case_id, _canonical(dict(details)), prev, digest))
        head = self.root / AUDIT_HEAD
        tmp = head.with_name(f"{head.name}.tmp")
        tmp.write_text(f"{seq} {digest}\n", encoding="ascii")
        os.replace(tmp, head)

    def log(self, user: str, action: str, case_id: str | None = None,
            **details: Any) -> None:
        """Record an action in the audit log (its own transaction)."""
        with self.transaction() as db:
            self._append(db, user, action, case_id, details)

    def audit(self, case_id: str | None = None) -> list[dict[str, Any]]:
        """The audit entries (of one case, or all), oldest first, details parsed."""
        query = "SELECT * FROM audit" + (" WHERE case_id = ?" if case_id else "") + " ORDER BY seq"
        with self._connect() as db:
            rows = db.execute(query, (case_id,) if case_id else ()).fetchall()
        return [{**dict(r), "details": json.loads(r["details"])} for r in rows]

    # ------------------------------------------------------------------ users
    def add_user(self, name: str, role: str, password: str, *, by: str) -> None:
        """Register a user with an argon2id hash of the password."""
        from argon2 import PasswordHasher

        if role not in ROLES:
            raise InputError(f"role {role!r}: choose one of {', '.join(ROLES)}")
        if not name or len(name) > 64 or not name.isprintable() or name.strip() != name:
            raise InputError(f"user name {name!r}: 1 to 64 printable characters, no spaces "
                             "at either end")
        if len(password) < 12:
            raise InputError("the password must have at least 12 characters")
        digest = PasswordHasher().hash(password)
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM users WHERE name = ?", (name,)).fetchone():
                raise InputError(f"user {name!r} exists already")
            db.execute("INSERT INTO users VALUES (?, ?, ?, ?)", (name, role, digest, now()))
            self._append(db, by, "user added", None, {"user": name, "role": role})

    def authenticate(self, name: str, password: str) -> User | None:
        """The user when the password matches its stored hash, else None."""
        from argon2 import PasswordHasher
        from argon2.exceptions import InvalidHashError, VerificationError

        with self._connect() as db:
            row = db.execute("SELECT * FROM users WHERE name = ?", (name,)).fetchone()
        if row is None:
            PasswordHasher().hash(password)  # the same time whether or not the user exists
            return None
        try:
            PasswordHasher().verify(row["password_hash"], password)
        except (VerificationError, InvalidHashError):
            return None
        return User(row["name"], row["role"])

    def users(self) -> list[dict[str, str]]:
        """Every user's name, role and creation time (no hashes)."""
        with self._connect() as db:
            rows = db.execute("SELECT name, role, created FROM users ORDER BY name").fetchall()
        return [dict(r) for r in rows]

    # ------------------------------------------------------------------ sessions
    def add_session(self, sid_hash: str, user: str, csrf: str, time: float, *,
                    token_hash: str | None = None) -> None:
        """Store a new session (``token_hash``: the server token's, for the service user)."""
        with self.transaction() as db:
            db.execute("INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?)",
                       (sid_hash, user, token_hash, csrf, time, time))

    def session(self, sid_hash: str) -> dict[str, Any] | None:
        """A stored session with its user's current role (None: no such user any more)."""
        with self._connect() as db:
            row = db.execute("SELECT s.*, u.role FROM sessions s LEFT JOIN users u "
                             "ON u.name = s.user WHERE s.sid_hash = ?", (sid_hash,)).fetchone()
        return dict(row) if row else None

    def touch_session(self, sid_hash: str, time: float) -> None:
        """Note the session's latest use (its idle time starts again)."""
        with self.transaction() as db:
            db.execute("UPDATE sessions SET last_seen = ? WHERE sid_hash = ?", (time, sid_hash))

    def end_sessions(self, *, sid_hash: str | None = None, created_before: float | None = None,
                     seen_before: float | None = None) -> None:
        """Remove one session, or every session created or last used before a time."""
        with self.transaction() as db:
            if sid_hash is not None:
                db.execute("DELETE FROM sessions WHERE sid_hash = ?", (sid_hash,))
            if created_before is not None and seen_before is not None:
                db.execute("DELETE FROM sessions WHERE created < ? OR last_seen < ?",
                           (created_before, seen_before))

    # ------------------------------------------------------------------ login rate limit
    def login_failed(self, user: str, address: str, time: float) -> None:
        """Record a failed login."""
        with self.transaction() as db:
            db.execute("INSERT INTO login_failures VALUES (?, ?, ?)", (time, user, address))

    def login_failures(self, user: str, address: str, since: float
                       ) -> tuple[list[float], list[float]]:
        """The times (oldest first) of failed logins since ``since``: for ``user`` (any
        address) and from ``address`` (any user)."""
        with self._connect() as db:
            by_user = [r[0] for r in db.execute(
                "SELECT time FROM login_failures WHERE user = ? AND time >= ? ORDER BY time",
                (user, since))]
            by_address = [r[0] for r in db.execute(
                "SELECT time FROM login_failures WHERE address = ? AND time >= ? ORDER BY time",
                (address, since))]
        return by_user, by_address

    def clear_login_failures(self, *, user: str | None = None,
                             before: float | None = None) -> None:
        """Forget a user's failed logins (after a successful one), or those before a time."""
        with self.transaction() as db:
            if user is not None:
                db.execute("DELETE FROM login_failures WHERE user = ?", (user,))
            if before is not None:
                db.execute("DELETE FROM login_failures WHERE time < ?", (before,))

    # ------------------------------------------------------------------ cases
    def case(self, case_id: str) -> dict[str, Any] | None:
        """The register row of a case, or None."""
        with self._connect() as db:
            row = db.execute("SELECT * FROM cases WHERE id = ?", (case_id,)).fetchone()
        return dict(row) if row else None

    def cases(self) -> list[dict[str, Any]]:
        """Every case, most recently updated first."""
        with self._connect() as db:
            rows = db.execute("SELECT * FROM cases ORDER BY updated DESC, id").fetchall()
        return [dict(r) for r in rows]

    def runs(self, case_id: str) -> list[dict[str, Any]]:
        """The runs of a case, oldest first, hashes parsed."""
        with self._connect() as db:
            rows = db.execute("SELECT * FROM runs WHERE case_id = ? ORDER BY run_id",
                              (case_id,)).fetchall()
        return [{**dict(r), "inputs": json.loads(r["inputs"] or "{}"),
                 "outputs": json.loads(r["outputs"] or "{}"), "draft": bool(r["draft"])}
                for r in rows]


    def create_case(self, row: Mapping[str, Any], *, by: str, hashes: Mapping[str, str]) -> None:
        """Register a new case (status draft) and log it with its files' SHA-256."""
        time = now()
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM cases WHERE id = ?", (row["id"],)).fetchone():
                raise Conflict(f"case {row['id']!r} exists already")
            db.execute(
                "INSERT INTO cases VALUES (?, ?, ?, ?, NULL, 'draft', ?, ?, ?, ?)",
                (row["id"], row["title"], row["examiner"], by, row["report_id"],
                 row["case_sha256"], time, time))
            self._append(db, by, "case created", row["id"], {"files": dict(hashes)})

    def update_case(self, row: Mapping[str, Any], *, by: str,
                    hashes: Mapping[str, str]) -> None:
        """Record a changed case file or inputs (refused for a final case or during a run)."""
        with self.transaction() as db:
            self._editable(db, row["id"])
            db.execute("UPDATE cases SET title = ?, examiner = ?, report_id = ?, "
                       "case_sha256 = ?, status = 'draft', updated = ? WHERE id = ?",
                       (row["title"], row["examiner"], row["report_id"], row["case_sha256"],
                        now(), row["id"]))
            self._append(db, by, "case edited", row["id"], {"files": dict(hashes)})

    def _editable(self, db: sqlite3.Connection, case_id: str) -> sqlite3.Row:
        case = db.execute("SELECT * FROM cases WHERE id = ?", (case_id,)).fetchone()
        if case is None:
            raise KeyError(case_id)
        if case["status"] in ("final", "withdrawn"):
            raise Conflict(f"case {case_id} is {case['status']}: it cannot be changed; a "
                           "final report is superseded by a new case with a new report id")
        if db.execute("SELECT 1 FROM runs WHERE case_id = ? AND status = 'running'",
                      (case_id,)).fetchone():
            raise Conflict(f"case {case_id} is being run; try again when the run has ended")
        return case

    def set_status(self, case_id: str, status: str, *, by: str, action: str,
                   allowed_from: tuple[str, ...], **details: Any) -> None:
        """Move a case to ``status`` (only from one of ``allowed_from``) and log ``action``."""
        with self.transaction() as db:
            case = db.execute("SELECT * FROM cases WHERE id = ?", (case_id,)).fetchone()
            if case is None:
                raise KeyError(case_id)
            if case["status"] not in allowed_from:
                raise Conflict(f"case {case_id} is {case['status']}; {action} needs a case "
                               f"that is {' or '.join(allowed_from)}")
            reviewer = by if action.startswith("review") else case["reviewer"]
            db.execute("UPDATE cases SET status = ?, reviewer = ?, updated = ? WHERE id = ?",
                       (status, reviewer, now(), case_id))
            self._append(db, by, action, case_id, {"status": status, **details})

    def start_run(self, case_id: str, *, by: str, draft: bool) -> int:
        """Register a running run and return its id; :class:`Conflict` while another runs."""
        with self.transaction() as db:
            case = db.execute("SELECT status FROM cases WHERE id = ?", (case_id,)).fetchone()
            if case is None:
                raise KeyError(case_id)
            if case["status"] in ("final", "withdrawn"):
                raise Conflict(f"case {case_id} is {case['status']}: it is not run again")
            if db.execute("SELECT 1 FROM runs WHERE case_id = ? AND status = 'running'",
                          (case_id,)).fetchone():
                raise Conflict(f"case {case_id} is being run; one run of a case at a time")
            last = db.execute("SELECT MAX(run_id) FROM runs WHERE case_id = ?",
                              (case_id,)).fetchone()[0]
            run_id = (last or 0) + 1
            db.execute("INSERT INTO runs (case_id, run_id, status, user, draft, started) "
                       "VALUES (?, ?, 'running', ?, ?, ?)", (case_id, run_id, by, int(draft),
                                                              now()))
            self._append(db, by, "run started", case_id, {"run": run_id, "draft": draft})
        return run_id

    def finish_run(self, case_id: str, run_id: int, *, by: str, case_sha256: str,
                   inputs: Mapping[str, str], outputs: Mapping[str, str],
                   signature: Mapping[str, str] | None = None) -> None:
        """Mark a run done with the SHA-256 of its case file, inputs and outputs; with
        ``signature`` (its report PDF was signed: signer, role, SHA-256) a "report signed"
        entry follows in the same transaction."""
        with self.transaction() as db:
            db.execute("UPDATE runs SET status = 'done', finished = ?, case_sha256 = ?, "
                       "inputs = ?, outputs = ? WHERE case_id = ? AND run_id = ?",
                       (now(), case_sha256, _canonical(dict(inputs)),
                        _canonical(dict(outputs)), case_id, run_id))
            db.execute("UPDATE cases SET updated = ? WHERE id = ?", (now(), case_id))
            self._append(db, by, "run finished", case_id, {
                "run": run_id, "case_sha256": case_sha256, "inputs": dict(inputs),
                "outputs": dict(outputs)})
            if signature is not None:
                self._append(db, by, "report signed", case_id, {"run": run_id, **signature})

    def fail_run(self, case_id: str, run_id: int, *, by: str, error: str) -> None:
        """Mark a run failed with its error (the register stays consistent)."""
        with self.transaction() as db:
            db.execute("UPDATE runs SET status = 'failed', finished = ?, error = ? "
                       "WHERE case_id = ? AND run_id = ?", (now(), error, case_id, run_id))
            self._append(db, by, "run failed", case_id, {"run": run_id, "error": error})

    def fail_stale_runs(self) -> None:
        """Runs still marked running when the server starts were cut off by its stop."""
        with self.transaction() as db:
            stale = db.execute("SELECT case_id, run_id FROM runs WHERE status = 'running'"
                               ).fetchall()
            for row in stale:
                error = "the server stopped during the run"
                db.execute("UPDATE runs SET status = 'failed', finished = ?, error = ? "
                           "WHERE case_id = ? AND run_id = ?",
                           (now(), error, row["case_id"], row["run_id"]))
                self._append(db, "server", "run failed", row["case_id"],
                             {"run": row["run_id"], "error": error})

    def delete_case(self, case_id: str, *, by: str, reason: str) -> None:
        """Remove a case's register rows (its audit entries stay) and log the deletion."""
        with self.transaction() as db:
            db.execute("DELETE FROM runs WHERE case_id = ?", (case_id,))
            db.execute("DELETE FROM cases WHERE id = ?", (case_id,))
            self._append(db, by, "case deleted", case_id, {"reason": reason})


def check_audit(root: str | Path) -> list[str]:
    """Every problem of the audit log of the cases folder ``root`` (empty: intact).

    Recomputes each entry's hash (:func:`entry_hash`), checks that each entry links to the
    previous one's hash and that the sequence has no gap, and compares the last entry with
    the head file :data:`AUDIT_HEAD` (entries cut off the end).
    """
    path = Path(root) / DATABASE
    if not path.is_file():
        raise InputError(f"{root}: no case register ({DATABASE}) in this folder")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT seq, time, user, action, case_id, details, prev, hash "
                          "FROM audit ORDER BY seq").fetchall()
    finally:
        db.close()
    problems = []
    prev, expected_seq = GENESIS, 1
    for seq, time, user, action, case_id, details, link, digest in rows:
        if seq != expected_seq:
            problems.append(f"entry {seq}: entries {expected_seq} to {seq - 1} are missing")
        if link != prev:
            problems.append(f"entry {seq}: its link does not match the previous entry's hash "
                            "(an entry before it was changed or removed)")
        try:
            recomputed = entry_hash(seq, time, user, action, case_id, json.loads(details), link)
        except ValueError:
            recomputed = ""
        if recomputed != digest:
            problems.append(f"entry {seq} ({action!r} by {user!r} at {time}) was changed "
                            "after it was written: its hash does not match its content")
        prev, expected_seq = digest, seq + 1
    head = Path(root) / AUDIT_HEAD
    if rows and not head.is_file():
        problems.append(f"the head file {AUDIT_HEAD} is missing")
    elif head.is_file():
        text = head.read_text(encoding="ascii", errors="replace").split()
        last = (str(rows[-1][0]), rows[-1][7]) if rows else ("0", GENESIS)
        if tuple(text[:2]) != last:
            problems.append(f"the last entry ({last[0]}) is not the head the register wrote "
                            f"last ({' '.join(text[:2]) or 'empty'}): entries were cut off "
                            "the end or the head file was changed")
    return problems
