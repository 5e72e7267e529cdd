"""Browser sessions kept in the case register (they survive a restart, expire, end with the
token that opened them) and the login rate limit per user name and per client address."""

from __future__ import annotations

import hashlib

from starlette.testclient import TestClient

from forensic_lr.web.app import ServerConfig, create_app
from forensic_lr.web.register import DATABASE, Register
from forensic_lr.web.security import (
    COOKIE,
    LOGIN_FAILURES_PER_ADDRESS,
    LOGIN_FAILURES_PER_USER,
    LOGIN_WINDOW,
    SESSION_IDLE,
    SESSION_LIFETIME,
)
from tests.web.conftest import BASE, TOKEN

PASSWORD = "a password for tests"


class Clock:
    """A clock the tests move by hand (seconds)."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


def _client(cases, clock, *, token=TOKEN, address="192.0.2.1", cookie=None) -> TestClient:
    """A server on ``cases`` (a new app each time: a restart), with the session cookie."""
    app = create_app(ServerConfig(cases=cases, token=token, clock=clock))
    client = TestClient(app, base_url=BASE, follow_redirects=False, client=(address, 50000))
    if cookie:
        client.cookies.set(COOKIE, cookie)
    return client


def _register(cases) -> Register:
    cases.mkdir(parents=True, exist_ok=True)
    return Register(cases)


def _login(client: TestClient, name: str, password: str = PASSWORD):
    nonce = client.get("/login").text.split('name="nonce" value="')[1].split('"')[0]
    return client.post("/login", data={"name": name, "password": password, "nonce": nonce})


def _logged_in(client: TestClient) -> bool:
    r = client.get("/")
    assert r.status_code in (200, 303)
    return r.status_code == 200


def test_a_session_survives_a_restart_and_is_stored_hashed(cases_dir):
    clock = Clock()
    _register(cases_dir).add_user("ada", "examiner", PASSWORD, by="test")
    first = _client(cases_dir, clock)
    assert _login(first, "ada").status_code == 303
    sid = first.cookies[COOKIE]
    assert _logged_in(first)
    restarted = _client(cases_dir, clock, cookie=sid)
    assert _logged_in(restarted)
    assert "ada" in restarted.get("/").text
    database = (cases_dir / DATABASE).read_bytes()
    assert sid.encode() not in database
    assert hashlib.sha256(sid.encode()).hexdigest().encode() in database
    # logging out ends it, for this server and after a restart
    csrf = restarted.get("/cases/new").text.split('name="csrf" value="')[1].split('"')[0]
    assert restarted.post("/logout", data={"csrf": csrf}).status_code == 303
    assert not _logged_in(_client(cases_dir, clock, cookie=sid))


def test_sessions_expire_when_idle_and_at_their_lifetime(cases_dir):
    clock = Clock()
    _register(cases_dir).add_user("ada", "examiner", PASSWORD, by="test")
    client = _client(cases_dir, clock)
    _login(client, "ada")
    clock.now += SESSION_IDLE - 60            # used again just before the idle limit
    assert _logged_in(client)
    clock.now += SESSION_IDLE - 60            # counted from the last use, not the login
    assert _logged_in(client)
    clock.now += SESSION_IDLE + 1             # idle too long
    assert not _logged_in(client)

    client = _client(cases_dir, clock)
    _login(client, "ada")
    start = clock.now
    while clock.now - start < SESSION_LIFETIME - 3600:
        clock.now += 3600                     # in use every hour ...
        assert _logged_in(client)
    clock.now = start + SESSION_LIFETIME + 1  # ... still ends 24 hours after the login
    assert not _logged_in(client)


def test_a_token_session_ends_with_its_token(cases_dir):
    clock = Clock()
    client = _client(cases_dir, clock)
    r = client.get("/?token=" + TOKEN)
    assert r.status_code == 303
    sid = client.cookies[COOKIE]
    assert _logged_in(_client(cases_dir, clock, cookie=sid))                 # same token
    assert not _logged_in(_client(cases_dir, clock, token="another-token-9876543210",
                                  cookie=sid))                               # new token


def test_login_rate_limit_per_user_name(cases_dir):
    clock = Clock()
    reg = _register(cases_dir)
    reg.add_user("ada", "examiner", PASSWORD, by="test")
    reg.add_user("bob", "reviewer", PASSWORD, by="test")
    client = _client(cases_dir, clock)
    for _ in range(LOGIN_FAILURES_PER_USER):
        assert _login(client, "ada", "not the password").status_code == 401
    refused = _login(client, "ada")           # the right password, but too many failures
    assert refused.status_code == 429
    assert 0 < int(refused.headers["retry-after"]) <= LOGIN_WINDOW
    assert "too many failed logins" in refused.text
    # from another address too: the limit is the user name's
    assert _login(_client(cases_dir, clock, address="198.51.100.7"), "ada").status_code == 429
    assert _login(client, "bob").status_code == 303   # another user is not held up
    clock.now += int(refused.headers["retry-after"])
    assert _login(client, "ada").status_code == 303   # the window has passed
    # a success clears the user's failures: the next failure starts a new count
    assert _login(client, "ada", "not the password").status_code == 401
    assert _login(client, "ada").status_code == 303


def test_login_rate_limit_per_client_address(cases_dir):
    clock = Clock()
    _register(cases_dir).add_user("ada", "examiner", PASSWORD, by="test")
    client = _client(cases_dir, clock)
    for i in range(LOGIN_FAILURES_PER_ADDRESS):  # a different name each time
        assert _login(client, f"guess{i}", "not the password").status_code == 401
        clock.now += 1
    assert _login(client, "ada").status_code == 429      # every name, from this address
    other = _client(cases_dir, clock, address="198.51.100.7")
    assert _login(other, "ada").status_code == 303       # another address is not held up
    clock.now += LOGIN_WINDOW
    assert _login(client, "ada").status_code == 303
