"""Who may ask what: the server's token, browser sessions, the Host check and CSRF tokens.

* The token (random by default, :func:`new_token`) is for scripts: the JSON API takes it as
  ``Authorization: Bearer T`` and acts as the named service user :data:`SERVICE_USER`; a
  browser opening ``/?token=T`` (the address ``serve`` prints) gets a session cookie instead
  and the token leaves the address bar. Registered users log in with name and password.
* Sessions are kept in the case register (:class:`Sessions`: a random id in an HttpOnly,
  SameSite=Strict cookie, stored only as its SHA-256), so they survive a restart of the
  server; a session ends after :data:`SESSION_IDLE` seconds without a request, or
  :data:`SESSION_LIFETIME` seconds after the login, whichever comes first; a session opened
  with the server's token ends when the server is started with another token, and a user's
  session takes the user's current role. Each session holds a CSRF token that every form
  carries and every state-changing JSON request made with the cookie sends as
  ``X-CSRF-Token`` (403 otherwise). Bearer requests carry no ambient credential and need
  none.
* Logins are rate limited (:class:`LoginLimit`): after :data:`LOGIN_FAILURES_PER_USER`
  failed logins for one user name, or :data:`LOGIN_FAILURES_PER_ADDRESS` from one client
  address, within :data:`LOGIN_WINDOW` seconds, further logins are refused (429) until the
  oldest of them leaves the window.
* :class:`HostCheck` refuses any request whose Host header is not a name the server is bound
  to (400): a web page of another site cannot reach the server through DNS rebinding.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .register import Register, User

__all__ = [
    "COOKIE", "CSRF_HEADER", "LOGIN_FAILURES_PER_ADDRESS", "LOGIN_FAILURES_PER_USER",
    "LOGIN_WINDOW", "SERVICE_USER", "SESSION_IDLE", "SESSION_LIFETIME", "HostCheck",
    "LoginLimit", "Sessions", "allowed_hosts", "new_token", "token_matches",
]

COOKIE = "forensic_lr_session"
CSRF_HEADER = "x-csrf-token"
#: The user a request with the server's token acts as (in the audit log by this name).
SERVICE_USER = User("service (token)", "administrator")

#: A session ends after this many seconds without a request (8 hours) ...
SESSION_IDLE = 8 * 3600
#: ... and at the latest this many seconds after its login (24 hours).
SESSION_LIFETIME = 24 * 3600
#: Failed logins counted over this many seconds (15 minutes) ...
LOGIN_WINDOW = 15 * 60
#: ... at most this many for one user name (from any address) ...
LOGIN_FAILURES_PER_USER = 5
#: ... and this many from one client address (for any user names).
LOGIN_FAILURES_PER_ADDRESS = 20

#: Headers of every response: pages load only the server's own CSS/JS and images.
SECURITY_HEADERS = [
    (b"content-security-policy",
     b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
     b"frame-src 'self'; frame-ancestors 'self'; form-action 'self'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
]


def new_token() -> str:
    """A random token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def token_matches(given: str | None, token: str) -> bool:
    """Constant-time comparison of a presented token with the server's."""
    return given is not None and secrets.compare_digest(given.encode(), token.encode())


def allowed_hosts(host: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The Host names the server answers to: the bound name, its loopback spellings for a
    loopback address, and those given with ``--allow-host``."""
    names = {host.lower(), *(h.lower() for h in extra)}
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host.lower() == "localhost"
    if loopback:
        names |= {"localhost", "127.0.0.1", "[::1]", "::1"}
    return frozenset(names)


def _host_name(value: str) -> str:
    """``"127.0.0.1:8000"`` -> ``"127.0.0.1"``; ``"[::1]:8000"`` -> ``"[::1]"``."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[: value.find("]") + 1] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class HostCheck:
    """ASGI middleware: 400 for a Host header outside ``hosts``; security headers on every
    response."""

    def __init__(self, app, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        host = _host_name(headers.get(b"host", b"").decode("latin-1"))
        if host not in self.hosts:
            body = (b"Bad Request: this server answers only to " +
                    ", ".join(sorted(self.hosts)).encode() + b"\n")
            await send({"type": "http.response.start", "status": 400,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                    (b"content-length", str(len(body)).encode()),
                                    *SECURITY_HEADERS]})
            await send({"type": "http.response.body", "body": body})
            return

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []),
                                      *(h for h in SECURITY_HEADERS if h[0] not in present)]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Session:
    """A browser session: its user and the CSRF token its forms carry."""

    user: User
    csrf: str


class Sessions:
    """Browser sessions stored in the case register (see the module's notes on expiry).

    ``token`` is the server's token (a session opened with it is valid only while the
    server has that token); ``clock`` gives the time in seconds (tests move it).
    """

    def __init__(self, register: Register, token: str, *,
                 clock: Callable[[], float] = time.time) -> None:
        self.register = register
        self.token_hash = _digest(token)
        self.clock = clock
        self.expire()

    def start(self, user: User) -> str:
        """A new session id for ``user``."""
        sid = new_token()
        service = user == SERVICE_USER
        self.register.add_session(_digest(sid), user.name, new_token(), self.clock(),
                                  token_hash=self.token_hash if service else None)
        return sid

    def get(self, sid: str | None) -> Session | None:
        """The session of a cookie value, or None (unknown, expired, the token changed, or
        its user removed)."""
        if not sid:
            return None
        key, now = _digest(sid), self.clock()
        row = self.register.session(key)
        if row is None:
            return None
        if (now - row["created"] > SESSION_LIFETIME or now - row["last_seen"] > SESSION_IDLE
                or (row["token_hash"] is not None and row["token_hash"] != self.token_hash)
                or (row["token_hash"] is None and row["role"] is None)):
            self.register.end_sessions(sid_hash=key)
            return None
        if now - row["last_seen"] > 60:  # at most one write a minute per session
            self.register.touch_session(key, now)
        user = SERVICE_USER if row["token_hash"] is not None else User(row["user"], row["role"])
        return Session(user, row["csrf"])

    def end(self, sid: str | None) -> None:
        """Forget a session (log out)."""
        if sid:
            self.register.end_sessions(sid_hash=_digest(sid))

    def expire(self) -> None:
        """Remove every expired session from the register."""
        now = self.clock()
        self.register.end_sessions(created_before=now - SESSION_LIFETIME,
                                   seen_before=now - SESSION_IDLE)


class LoginLimit:
    """The login rate limit, per user name and per client address (module notes)."""

    def __init__(self, register: Register, *, clock: Callable[[], float] = time.time) -> None:
        self.register = register
        self.clock = clock

    def wait(self, user: str, address: str) -> int:
        """Seconds until a login for ``user`` from ``address`` is accepted again (0: now)."""
        now = self.clock()
        by_user, by_address = self.register.login_failures(user, address, now - LOGIN_WINDOW)
        waits = [0.0]
        if len(by_user) >= LOGIN_FAILURES_PER_USER:
            waits.append(by_user[-LOGIN_FAILURES_PER_USER] + LOGIN_WINDOW - now)
        if len(by_address) >= LOGIN_FAILURES_PER_ADDRESS:
            waits.append(by_address[-LOGIN_FAILURES_PER_ADDRESS] + LOGIN_WINDOW - now)
        return max(0, math.ceil(max(waits)))

    def failed(self, user: str, address: str) -> None:
        """Count a failed login (and forget those older than the window)."""
        now = self.clock()
        self.register.clear_login_failures(before=now - LOGIN_WINDOW)
        self.register.login_failed(user, address, now)

    def succeeded(self, user: str) -> None:
        """A successful login clears the user name's failures (not the address's)."""
        self.register.clear_login_failures(user=user)
