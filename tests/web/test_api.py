"""The JSON API's rules, with Starlette's test client.

Independent values: SHA-256 of the bytes sent and received (hashlib), the result.json that
``forensic-lr run`` writes for the same case folder, and ``forensic-lr calibrate --json``'s
output for the same scores and options.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import sqlite3
import time

import pytest

from forensic_lr.cli import main
from forensic_lr.web.register import DATABASE, Register, check_audit

from .conftest import BASE, TOKEN, TestClient, example_upload, multipart


def sha(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


# ---------------------------------------------------------------- access
def test_health_needs_no_token(client):
    r = client.get("/api/health")
    assert r.status_code == 200 and r.json()["status"] == "ok"


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"},
                                     {"Authorization": f"Basic {TOKEN}"}])
def test_missing_or_wrong_token_is_401(client, headers):
    assert client.get("/api/cases", headers=headers).status_code == 401
    assert client.post("/api/lr", json={}, headers=headers).status_code == 401


def test_bearer_token_is_accepted(client, bearer):
    r = client.get("/api/cases", headers=bearer)
    assert r.status_code == 200 and r.json() == {"cases": []}


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1.evil.example:8000", ""])
def test_wrong_host_is_400(client, bearer, host):
    r = client.get("/api/cases", headers={**bearer, "host": host})
    assert r.status_code == 400


def test_loopback_spellings_are_accepted(client, bearer):
    for host in ("localhost:8000", "127.0.0.1:8000", "[::1]:8000"):
        assert client.get("/api/cases", headers={**bearer, "host": host}).status_code == 200


def test_token_in_address_gives_a_session_and_leaves_the_address(client):
    r = client.get(f"/cases/new?token={TOKEN}")
    assert r.status_code == 303 and r.headers["location"] == "/cases/new"
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    assert client.get("/cases/new").status_code == 200
    assert client.get("/?token=wrong").status_code == 401


def test_pages_without_session_go_to_login(client):
    r = client.get("/")
    assert r.status_code == 303 and r.headers["location"] == "/login"


def test_api_documentation_page_at_docs_from_the_package(client):
    assert client.get("/docs").status_code == 303                 # a page: log in first
    assert client.get(f"/docs?token={TOKEN}").status_code == 303   # the token's session
    docs, api = client.get("/docs"), client.get("/api")
    assert docs.status_code == 200 and docs.text == api.text
    assert "POST /api/cases" in docs.text and "retention_years" in docs.text
    # everything it loads comes from the server itself
    assert not re.findall(r'(?:src|href)="(?!/)', docs.text)


def test_every_response_has_the_security_headers(client):
    r = client.get("/api/health")
    assert "default-src 'self'" in r.headers["content-security-policy"]
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "no-referrer"


def test_static_files_come_from_the_package(client):
    for name in ("app.css", "app.js", "teaching.js"):
        assert client.get(f"/static/{name}").status_code == 200


def _session(client) -> str:
    """Log in with the token; the CSRF token the pages carry."""
    client.get(f"/?token={TOKEN}")
    page = client.get("/cases/new").text
    return page.split('name="csrf" value="')[1].split('"')[0]


def test_the_form_offers_every_report_language_and_writes_the_choice(client):
    """The new-case form's report language: each supported language by name, or none (the
    laboratory's profile decides); the case file gets ``[report] language`` only when chosen."""
    from forensic_lr.web.forms import case_document

    _session(client)
    page = client.get("/cases/new").text
    for code, name in (("en", "English"), ("es", "Spanish"), ("de", "German"),
                       ("fr", "French"), ("nl", "Dutch"), ("sv", "Swedish")):
        assert f'<option value="{code}">{name} ({code})</option>' in page
    assert '<option value="" selected>' in page
    assert '[report]\nlanguage = "sv"\n' in case_document({"report.language": "sv"}, {})
    assert "[report]" not in case_document({"report.language": ""}, {})


def test_the_form_chooses_the_bounds_rule_and_fixed_bounds(client, tmp_path):
    """The new-case form's bounds: every rule by its report name, or none (the laboratory's
    profile decides); fixed bounds written as the case file's [low, high], which the case
    file's own checks then read (and refuse with another rule, naming the key)."""
    from forensic_lr.casework import load_case
    from forensic_lr.errors import InputError
    from forensic_lr.web.forms import EMPTY, case_document

    _session(client)
    page = client.get("/cases/new").text
    for rule, name in (("elub", "ELUB"), ("iv", "invariance verification"),
                       ("n-source", "N-source bound"),
                       ("fixed", "fixed bounds set by the laboratory")):
        assert f'<option value="{rule}">{name} ({rule})</option>' in page
    assert "bounds =" not in case_document(EMPTY, {})
    case, files = example_upload("voice")
    for name, data in files:
        (tmp_path / name).write_bytes(data)
    text = case.decode().replace("[method]", "[method]\n" + "\n".join(
        line for line in case_document(
            {"method.bounds": "fixed", "method.fixed_bounds": "-4, 3.5"}, {}).splitlines()
        if line.startswith(("bounds", "fixed_bounds"))), 1)
    (tmp_path / "case.toml").write_text(text, encoding="utf-8")
    spec = load_case(tmp_path / "case.toml")
    assert (spec.method.bounds, spec.method.fixed_bounds) == ("fixed", (-4.0, 3.5))
    (tmp_path / "case.toml").write_text(text.replace('bounds = "fixed"', 'bounds = "iv"'),
                                        encoding="utf-8")
    with pytest.raises(InputError, match="fixed_bounds"):
        load_case(tmp_path / "case.toml")


def test_form_without_csrf_is_403(client):
    csrf = _session(client)
    assert client.post("/cases/new", data={"case.id": "X"}).status_code == 403
    assert client.post("/cases/new", data={"case.id": "X", "csrf": "wrong"}).status_code == 403
    # with it the form is checked (422: the case lacks nearly everything)
    r = client.post("/cases/new", data={"case.id": "X", "csrf": csrf})
    assert r.status_code == 422


def test_json_with_session_needs_the_csrf_header(client):
    csrf = _session(client)
    body = {"ss": [1, 2, 3], "ds": [0, 1, -1], "scores": [1.5], "method": "gaussian",
            "interval": "none"}
    assert client.post("/api/lr", json=body).status_code == 403
    assert client.post("/api/lr", json=body, headers={"x-csrf-token": csrf}).status_code == 200


# ---------------------------------------------------------------- uploads
@pytest.mark.parametrize("name", [
    "../../etc/passwd", "/etc/passwd", "ss\x00.csv", "..", ".hidden.csv", "a/b.csv",
    "a\\b.csv", "C:\\ss.csv", "", "ss.exe", "ss.csv.sh",
])
def test_bad_file_names_are_422(client, bearer, cases_dir, name):
    case, files = example_upload("voice")
    files = [(name, files[0][1]), *files[1:]]
    r = client.post("/api/cases", files=multipart(case, files), headers=bearer)
    assert r.status_code == 422, r.text
    assert r.json()["errors"]
    assert [p.name for p in cases_dir.iterdir() if not p.name.startswith(".forensic")] == []


def test_case_file_errors_are_422_per_field(client, bearer):
    case = b'[case]\nid = "X1"\nexaminer = 3\n[evidence]\nscore = "a"\n'
    r = client.post("/api/cases", files=multipart(case, []), headers=bearer)
    assert r.status_code == 422
    fields = {e["field"] for e in r.json()["errors"]}
    assert {"[case] examiner", "[evidence] score"} <= fields


def test_missing_case_part_and_unnamed_files_are_422(client, bearer):
    r = client.post("/api/cases", files=[("files", ("ss.csv", b"1\n", "text/csv"))],
                    headers=bearer)
    assert r.status_code == 422
    case, files = example_upload("voice")
    r = client.post("/api/cases", files=multipart(case, [*files, ("extra.csv", b"1\n")]),
                    headers=bearer)
    assert r.status_code == 422 and "extra.csv" in r.text


def test_oversize_upload_is_413(make_client, bearer):
    client = make_client(max_upload=10_000)
    case, files = example_upload("voice")  # ds.csv alone is larger than 10 kB
    r = client.post("/api/cases", files=multipart(case, files), headers=bearer)
    assert r.status_code == 413


def test_duplicate_case_is_409(client, bearer):
    case, files = example_upload("voice")
    assert client.post("/api/cases", files=multipart(case, files), headers=bearer
                       ).status_code == 201
    assert client.post("/api/cases", files=multipart(case, files), headers=bearer
                       ).status_code == 409


def test_created_case_is_audited_with_the_uploaded_bytes_hashes(client, bearer, cases_dir):
    case, files = example_upload("voice")
    key = client.post("/api/cases", files=multipart(case, files), headers=bearer).json()["id"]
    entries = client.get(f"/api/cases/{key}/audit", headers=bearer).json()["entries"]
    assert entries[0]["action"] == "case created"
    expected = {"case.toml": sha(case), **{n: sha(c) for n, c in files}}
    assert entries[0]["details"]["files"] == expected
    assert (cases_dir / key / "case.toml").read_bytes() == case


# ---------------------------------------------------------------- state rules
@pytest.fixture
def created(client, bearer) -> str:
    case, files = example_upload("voice")
    return client.post("/api/cases", files=multipart(case, files), headers=bearer).json()["id"]


def test_second_run_while_running_is_409(client, bearer, cases_dir, created):
    Register(cases_dir).start_run(created, by="someone", draft=False)
    r = client.post(f"/api/cases/{created}/runs", headers=bearer)
    assert r.status_code == 409


def test_final_case_cannot_be_edited_or_run(client, bearer, cases_dir, created):
    reg = Register(cases_dir)
    reg.set_status(created, "final", by="test", action="finalised", allowed_from=("draft",))
    case, files = example_upload("voice")
    r = client.put(f"/api/cases/{created}", files=multipart(case, files), headers=bearer)
    assert r.status_code == 409
    assert client.post(f"/api/cases/{created}/runs", headers=bearer).status_code == 409


def test_failed_run_leaves_the_register_consistent(client, bearer, created, monkeypatch):
    from forensic_lr.errors import InputError
    from forensic_lr.web import cases

    def broken(*args, **kwargs):
        raise InputError("the background file could not be read")

    monkeypatch.setattr(cases, "render_case", broken)
    r = client.post(f"/api/cases/{created}/runs", headers=bearer)
    assert r.status_code == 422 and "could not be read" in r.json()["error"]
    runs = client.get(f"/api/cases/{created}/runs", headers=bearer).json()["runs"]
    assert [(x["status"], x["error"]) for x in runs] == [
        ("failed", "the background file could not be read")]
    r = client.post(f"/api/cases/{created}/runs", headers=bearer)  # not 409: none running
    assert r.status_code == 422


def test_reviewer_cannot_review_own_case(make_client, cases_dir, created):
    reg = Register(cases_dir)
    reg.add_user("ada", "administrator", "correct horse battery", by="test")
    client = make_client()
    nonce = client.get("/login").text.split('name="nonce" value="')[1].split('"')[0]
    assert client.post("/login", data={"name": "ada", "password": "wrong password!",
                                       "nonce": nonce}).status_code == 401
    r = client.post("/login", data={"name": "ada", "password": "correct horse battery",
                                    "nonce": nonce})
    assert r.status_code == 303
    csrf = client.get("/cases/new").text.split('name="csrf" value="')[1].split('"')[0]
    case, files = example_upload("small-background")
    r = client.post("/api/cases", files=multipart(case, files), headers={"x-csrf-token": csrf})
    assert r.status_code == 201
    key = r.json()["id"]
    reg.set_status(key, "submitted", by="test", action="submitted", allowed_from=("draft",))
    r = client.post(f"/api/cases/{key}/review", json={"decision": "approve"},
                    headers={"x-csrf-token": csrf})
    assert r.status_code == 403 and "own case" in r.json()["error"]
    # the token's service user made the voice case: ada may review that one
    reg.set_status(created, "submitted", by="test", action="submitted", allowed_from=("draft",))
    r = client.post(f"/api/cases/{created}/review", json={"decision": "approve", "comment": "ok"},
                    headers={"x-csrf-token": csrf})
    assert r.status_code == 200 and r.json()["status"] == "reviewed"
    assert r.json()["reviewer"] == "ada"


# ---------------------------------------------------------------- audit chain
def test_audit_chain_detects_edits_and_cuts(client, bearer, cases_dir, created):
    assert check_audit(cases_dir) == []
    assert main(["serve", "--cases", str(cases_dir), "--check-audit"]) == 0
    db = sqlite3.connect(cases_dir / DATABASE)
    db.execute("DROP TRIGGER audit_no_update")
    db.execute("UPDATE audit SET user = 'mallory' WHERE seq = 1")
    db.commit()
    problems = check_audit(cases_dir)
    assert any("entry 1" in p and "changed" in p for p in problems)
    assert main(["serve", "--cases", str(cases_dir), "--check-audit"]) == 1


def test_audit_log_refuses_update_and_delete(cases_dir, created):
    db = sqlite3.connect(cases_dir / DATABASE)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("DELETE FROM audit")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("UPDATE audit SET user = 'x'")


def test_audit_cut_off_the_end_is_detected(cases_dir, created):
    reg = Register(cases_dir)
    reg.log("someone", "note")
    db = sqlite3.connect(cases_dir / DATABASE)
    db.execute("DROP TRIGGER audit_no_delete")
    db.execute("DELETE FROM audit WHERE seq = (SELECT MAX(seq) FROM audit)")
    db.commit()
    assert any("cut off" in p for p in check_audit(cases_dir))


def test_add_user_from_the_command_line(cases_dir, monkeypatch, make_client):
    monkeypatch.setenv("FLR_TEST_PASSWORD", "a long enough password")
    assert main(["serve", "--cases", str(cases_dir), "--add-user", "rita", "--role",
                 "reviewer", "--password-env", "FLR_TEST_PASSWORD"]) == 0
    reg = Register(cases_dir)
    assert reg.users()[0]["name"] == "rita" and reg.users()[0]["role"] == "reviewer"
    assert reg.authenticate("rita", "a long enough password").role == "reviewer"
    assert reg.authenticate("rita", "wrong") is None
    raw = sqlite3.connect(cases_dir / DATABASE).execute("SELECT password_hash FROM users"
                                                        ).fetchone()[0]
    assert raw.startswith("$argon2id$") and "a long enough password" not in raw
    monkeypatch.setenv("FLR_TEST_PASSWORD", "short")
    assert main(["serve", "--cases", str(cases_dir), "--add-user", "sam", "--password-env",
                 "FLR_TEST_PASSWORD"]) == 2


# ---------------------------------------------------------------- POST /api/lr
def test_api_lr_equals_calibrate_json(client, bearer, tmp_path, capsys):
    ss, ds = [2.1, 3.4, 0.2, 4.0, 3.3, 2.2], [0.1, -0.5, 1.2, 2.5, -1.1, 0.9, 0.3]
    (tmp_path / "ss.csv").write_text("\n".join(map(str, ss)) + "\n")
    (tmp_path / "ds.csv").write_text("\n".join(map(str, ds)) + "\n")
    body = {"ss": ss, "ds": ds, "scores": [1.5, 3.0], "method": "logistic", "elub": True,
            "n": 200, "seed": 7, "folds": 3}
    r = client.post("/api/lr", json=body, headers=bearer)
    assert r.status_code == 200, r.text
    assert main(["calibrate", "--ss", str(tmp_path / "ss.csv"), "--ds",
                 str(tmp_path / "ds.csv"), "--method", "logistic", "--score", "1.5",
                 "--score", "3.0", "--elub", "--n", "200", "--seed", "7", "--folds", "3",
                 "--json"]) == 0
    assert r.json() == json.loads(capsys.readouterr().out)
    # no options: calibrate's defaults, which are a case file's
    r = client.post("/api/lr", json={"ss": ss, "ds": ds, "scores": [3.0], "n": 100},
                    headers=bearer)
    assert main(["calibrate", "--ss", str(tmp_path / "ss.csv"), "--ds",
                 str(tmp_path / "ds.csv"), "--score", "3.0", "--n", "100", "--json"]) == 0
    assert r.json() == json.loads(capsys.readouterr().out)


def test_api_lr_refuses_bad_bodies(client, bearer):
    good = {"ss": [1, 2, 3], "ds": [0, 1, -1], "scores": [1.5], "method": "gaussian"}
    for bad in ({**good, "ss": []}, {**good, "ds": ["a"]}, {**good, "bogus": 1},
                {**good, "method": "svm"}, {**good, "level": 2}):
        r = client.post("/api/lr", json=bad, headers=bearer)
        assert r.status_code == 422, bad
    separated = {**good, "method": "logistic"}  # the library's own error: no finite fit
    r = client.post("/api/lr", json=separated, headers=bearer)
    assert r.status_code == 422 and "separated" in r.json()["error"]
    assert client.post("/api/lr", content=b"[1", headers=bearer).status_code == 422


# ---------------------------------------------------------------- a whole run
@pytest.fixture(scope="module")
def voice_run(tmp_path_factory):
    """The voice example created and run over the API once (about 15 s)."""
    from forensic_lr.web.app import ServerConfig, create_app

    cases = tmp_path_factory.mktemp("web") / "cases"
    client = TestClient(create_app(ServerConfig(cases=cases, token=TOKEN)), base_url=BASE)
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    case, files = example_upload("voice")
    key = client.post("/api/cases", files=multipart(case, files), headers=bearer).json()["id"]
    r = client.post(f"/api/cases/{key}/runs", headers=bearer)
    assert r.status_code == 201, r.text
    return client, bearer, cases, key, r.json()


def test_run_answers_result_json(voice_run):
    client, bearer, _, key, answer = voice_run
    assert answer["run_id"] == 1
    downloaded = client.get(f"/api/cases/{key}/runs/latest/result.json", headers=bearer)
    assert json.loads(downloaded.content) == answer["result"]
    assert answer["result"]["results"][0]["lr_text"] == "280"


def test_audit_hashes_equal_the_downloaded_outputs(voice_run):
    client, bearer, _, key, _ = voice_run
    entries = client.get(f"/api/cases/{key}/audit", headers=bearer).json()["entries"]
    finished = [e for e in entries if e["action"] == "run finished"][-1]["details"]
    for name in ("report.pdf", "report.html", "result.json"):
        r = client.get(f"/api/cases/{key}/runs/1/{name}", headers=bearer)
        assert r.status_code == 200
        assert finished["outputs"][name] == sha(r.content)
    case, files = example_upload("voice")
    assert finished["case_sha256"] == sha(case)
    assert finished["inputs"] == {n: sha(c) for n, c in files}
    assert client.get(f"/api/cases/{key}/runs/1/report.pdf", headers=bearer
                      ).content.startswith(b"%PDF")


def test_downloads_refuse_unknown_runs_and_names(voice_run):
    client, bearer, _, key, _ = voice_run
    assert client.get(f"/api/cases/{key}/runs/9/result.json", headers=bearer).status_code == 404
    assert client.get(f"/api/cases/{key}/runs/1/case.toml", headers=bearer).status_code == 404
    assert client.get(f"/api/cases/{key}/runs/..%2F..%2Fcase.toml/result.json",
                      headers=bearer).status_code == 404


def test_case_from_the_api_runs_from_the_command_line_to_the_same_bytes(voice_run, tmp_path):
    client, bearer, cases, key, _ = voice_run
    out = tmp_path / "cli"  # the record only: the same bytes whatever formats are written
    assert main(["run", str(cases / key / "case.toml"), "--out", str(out), "-q", "--format",
                 "json"]) == 0
    served = client.get(f"/api/cases/{key}/runs/1/result.json", headers=bearer).content
    assert (out / "result.json").read_bytes() == served


def test_result_and_compare_pages_render(voice_run):
    client, _, _, key, _ = voice_run
    client.get(f"/?token={TOKEN}")
    page = client.get(f"/cases/{key}").text
    assert "280" in page and "report.pdf" in page
    assert client.get(f"/api/cases/{key}/runs/1/figures/tippett.svg").status_code == 200
    assert client.get(f"/api/cases/{key}/runs/1/figures/..%2Fresult.json").status_code == 404


def test_a_case_not_ready_runs_only_as_a_draft(client, bearer):
    case, files = example_upload("small-background")
    lines = [ln for ln in case.decode().splitlines() if not ln.startswith("examiner")]
    case = "\n".join(lines).encode() + b"\n"
    key = client.post("/api/cases", files=multipart(case, files), headers=bearer).json()["id"]
    r = client.post(f"/api/cases/{key}/runs", headers=bearer)
    assert r.status_code == 422 and "[case] examiner" in r.json()["error"]
    r = client.post(f"/api/cases/{key}/runs", json={"draft": True}, headers=bearer)
    assert r.status_code == 201
    assert r.json()["result"]["draft"] is True
    assert any("examiner" in reason for reason in r.json()["result"]["draft_reasons"])


def test_edit_replaces_the_files_and_is_audited(client, bearer, cases_dir, created):
    case, files = example_upload("voice")
    edited = case.replace(b"score = 5.96", b"score = 5.5")
    r = client.put(f"/api/cases/{created}", files=multipart(edited, files), headers=bearer)
    assert r.status_code == 200
    assert (cases_dir / created / "case.toml").read_bytes() == edited
    entries = client.get(f"/api/cases/{created}/audit", headers=bearer).json()["entries"]
    assert entries[-1]["action"] == "case edited"
    assert entries[-1]["details"]["files"]["case.toml"] == sha(edited)
    other = case.replace(b'id = "FVC-2026-017"', b'id = "OTHER-1"')
    r = client.put(f"/api/cases/{created}", files=multipart(other, files), headers=bearer)
    assert r.status_code == 422  # an edit keeps the case id


def test_export_and_delete_by_an_administrator(client, make_client, bearer, cases_dir,
                                              created):
    import io
    import zipfile

    r = client.get(f"/api/cases/{created}/export", headers=bearer)
    assert r.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(r.content))
    case, _ = example_upload("voice")
    assert archive.read(f"{created}/case.toml") == case
    audit = json.loads(archive.read(f"{created}/audit.json"))
    assert audit[0]["action"] == "case created"
    assert client.delete(f"/api/cases/{created}", headers=bearer).status_code == 422  # reason
    gone = f"/api/cases/{created}?reason=retention period ended"
    r = client.delete(gone, headers=bearer)  # the server has no retention period: none
    assert r.status_code == 409 and "no retention period" in r.json()["error"]
    lab = cases_dir.parent / "lab" / "lab.toml"
    lab.parent.mkdir()
    lab.write_text("[records]\nretention_years = 2\n", encoding="utf-8")
    clock = [time.time()]
    client = make_client(lab=lab, clock=lambda: clock[0])
    r = client.delete(gone, headers=bearer)  # still open: the period starts at its closing
    assert r.status_code == 409 and "starts when it is final or withdrawn" in r.json()["error"]
    assert client.post(f"/api/cases/{created}/withdraw", headers=bearer).status_code == 200
    closed = dt.datetime.strptime(Register(cases_dir).case(created)["updated"],
                                  "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    kept_until = closed.replace(year=closed.year + 2)
    clock[0] = kept_until.timestamp() - 1
    r = client.delete(gone, headers=bearer)
    assert r.status_code == 409 and f"kept until {kept_until:%Y-%m-%d}" in r.json()["error"]
    assert (cases_dir / created).is_dir()
    clock[0] = kept_until.timestamp()
    r = client.delete(gone, headers=bearer)
    assert r.status_code == 204
    assert not (cases_dir / created).exists()
    assert client.get(f"/api/cases/{created}", headers=bearer).status_code == 404
    actions = [(e["action"], e["details"]) for e in Register(cases_dir).audit(created)]
    assert [a[0] for a in actions[-3:]] == ["case exported", "withdrawn", "case deleted"]
    assert actions[-1] == ("case deleted", {"reason": "retention period ended"})
    assert check_audit(cases_dir) == []


def test_review_steps_follow_the_status(client, bearer, cases_dir, created):
    # no run yet: nothing to submit
    assert client.post(f"/api/cases/{created}/submit", headers=bearer).status_code == 409
    reg = Register(cases_dir)
    reg.set_status(created, "submitted", by="eve", action="submitted", allowed_from=("draft",))
    # a return needs a comment; the step must exist
    r = client.post(f"/api/cases/{created}/review", json={"decision": "return"}, headers=bearer)
    assert r.status_code == 403  # the service user made the case: its own
    assert client.post(f"/api/cases/{created}/bogus", headers=bearer).status_code == 404
    assert client.post(f"/api/cases/{created}/finalize", headers=bearer).status_code == 409


LAB = b'[laboratory]\nname = "Web Test Laboratory"\n\n[criteria]\ncllr_max = 0.6\n'


def test_lab_profile_uploaded_by_an_administrator(client, bearer, cases_dir, tmp_path):
    r = client.put("/api/lab", files=[("profile", ("lab.toml", LAB, "application/toml"))],
                   headers=bearer)
    assert r.status_code == 200 and r.json()["sha256"] == sha(LAB)
    assert client.get("/api/lab", headers=bearer).json()["text"] == LAB.decode()
    assert Register(cases_dir).audit()[-1]["details"] == {"sha256": sha(LAB)}
    for bad in (b"[laboratory]\nbogus = 1\n", b'[data]\nroots = ["/etc"]\n'):
        r = client.put("/api/lab", files=[("profile", ("lab.toml", bad, "text/plain"))],
                       headers=bearer)
        assert r.status_code == 422, bad
    assert client.get("/api/lab", headers=bearer).json()["sha256"] == sha(LAB)  # kept
    # a case run in the browser and from the command line with that profile: same bytes
    case, files = example_upload("small-background")
    key = client.post("/api/cases", files=multipart(case, files), headers=bearer).json()["id"]
    served = client.post(f"/api/cases/{key}/runs", headers=bearer)
    assert served.status_code == 201, served.text
    assert served.json()["result"]["lab"]["name"] == "Web Test Laboratory"
    out = tmp_path / "cli"  # the record only: the same bytes whatever formats are written
    assert main(["run", str(cases_dir / key / "case.toml"), "--lab",
                 str(cases_dir / ".lab" / "lab.toml"), "--out", str(out), "-q", "--format",
                 "json"]) == 0
    downloaded = client.get(f"/api/cases/{key}/runs/latest/result.json", headers=bearer)
    assert (out / "result.json").read_bytes() == downloaded.content


def test_lab_profile_given_at_start_is_not_replaced(make_client, bearer, tmp_path):
    (tmp_path / "lab.toml").write_bytes(LAB)
    client = make_client(lab=tmp_path / "lab.toml")
    r = client.put("/api/lab", files=[("profile", ("lab.toml", LAB, "text/plain"))],
                   headers=bearer)
    assert r.status_code == 409


def test_reviewer_sees_what_changed_since_the_last_review(make_client, cases_dir, created,
                                                          voice_run):
    import copy

    from forensic_lr.web.app import json_diff

    reg = Register(cases_dir)
    for run, lr in ((1, 280.0), (2, 95.5)):  # two finished runs: the voice result, LR changed
        assert reg.start_run(created, by="service (token)", draft=False) == run
        folder = cases_dir / created / "runs" / str(run)
        folder.mkdir(parents=True)
        result = copy.deepcopy(voice_run[4]["result"])
        result["results"][0]["lr"] = lr
        (folder / "result.json").write_text(json.dumps(result))
        reg.finish_run(created, run, by="service (token)", case_sha256="x", inputs={},
                       outputs={})
        if run == 1:
            reg.log("rob", "review: returned", created, run=1, comment="check the background")
    reg.set_status(created, "submitted", by="test", action="submitted", allowed_from=("draft",))
    reg.add_user("rob", "reviewer", "a password for tests", by="test")
    client = make_client()
    nonce = client.get("/login").text.split('name="nonce" value="')[1].split('"')[0]
    client.post("/login", data={"name": "rob", "password": "a password for tests",
                                "nonce": nonce})
    page = client.get(f"/cases/{created}").text
    assert "since the last reviewed run (run 1)" in page
    assert "results[0].lr" in page and "-184.5" in page  # 95.5 - 280
    assert json_diff({"a": [1, 2], "b": "x"}, {"a": [1, 3], "b": "y"}) == [
        {"path": "a[1]", "a": 2, "b": 3, "change": 1},
        {"path": "b", "a": "x", "b": "y", "change": None}]
