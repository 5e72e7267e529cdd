"""Who may ask what: the server's token, browser sessions, the Host check and CSRF tokens.

* The token (random by default, :func:`new_token`) is for scripts: the JSON API takes it as
  ``Authorization: Bearer T`` and acts as the named service user :data:`SERVICE_USER`; a
  browser opening ``/?token=T`` (the address ``serve`` prints) gets a session cookie instead
  and the token leaves the address bar. Registered users log in with name and password.
* Sessions live in the server's memory (a random id in an HttpOnly, SameSite=Strict cookie);
  each holds a CSRF token that every form carries and every state-changing JSON request made
  with the cookie sends as ``X-CSRF-Token`` (403 otherwise). Bearer requests carry no ambient
  credential and need none.
* :class:`HostCheck` refuses any request whose Host header is not a name the server is bound
  to (400): a web page of another site cannot reach the server through DNS rebinding.
"""

from __future__ import annotations

import ipaddress
import secrets
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

from .register import User

__all__ = [
    "COOKIE", "CSRF_HEADER", "SERVICE_USER", "HostCheck", "Sessions", "allowed_hosts",
    "new_token", "token_matches",
]

COOKIE = "forensic_lr_session"
CSRF_HEADER = "x-csrf-token"
#: The user a request with the server's token acts as (in the audit log by this name).
SERVICE_USER = User("service (token)", "administrator")

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


@dataclass
class Session:
    """A browser session: its user and the CSRF token its forms carry."""

    user: User
    csrf: str = field(default_factory=new_token)


class Sessions:
    """Browser sessions in memory (they end when the server stops)."""

    def __init__(self) -> None:
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def start(self, user: User) -> str:
        """A new session id for ``user``."""
        sid = new_token()
        with self._lock:
            self._sessions[sid] = Session(user)
        return sid

    def get(self, sid: str | None) -> Session | None:
        """The session of a cookie value, or None."""
        if not sid:
            return None
        with self._lock:
            return self._sessions.get(sid)

    def end(self, sid: str | None) -> None:
        """Forget a session (log out)."""
        with self._lock:
            self._sessions.pop(sid or "", None)
