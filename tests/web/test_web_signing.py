"""Signing in the web app, as a user works: the server's lab profile names the examiner's
certificate, so every final report a run writes is signed (drafts never); the reviewer who
approved the case adds a second signature to the final report with their own PKCS#12 file and
passphrase, sent in the page's form.

Certificates are made here with ``cryptography``. Independent checks: poppler's ``pdfsig``
(another implementation of PDF signature validation) reports two valid signatures by the two
certificate holders; the audit log's SHA-256 equal ``hashlib``'s of the downloaded files; the
passphrases are searched for in every byte the server wrote (cases folder and database).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess

import pytest

pytest.importorskip("pyhanko")
pytest.importorskip("cryptography")

from forensic_lr.cli import main
from forensic_lr.web.register import Register, check_audit
from tests.casework import test_signing_lta
from tests.casework.test_signing import _p12, signing_profile

from .conftest import example_upload, multipart

PASSWORD = "a password for tests"
EXAMINER_PASSPHRASE = "examiner-passphrase-Q7"
REVIEWER_PASSPHRASE = "reviewer-passphrase-Z9"
VARIABLE = "FLR_TEST_WEB_P12_PASSPHRASE"
LAB = signing_profile(VARIABLE)


@pytest.fixture
def lab(tmp_path):
    """A lab profile naming the examiner's certificate; the reviewer's own PKCS#12 file."""
    folder = tmp_path / "lab"
    folder.mkdir()
    _p12(folder / "examiner.p12", EXAMINER_PASSPHRASE, name="A. Examiner")
    (folder / "lab.toml").write_text(LAB, encoding="utf-8")
    _p12(tmp_path / "reviewer.p12", REVIEWER_PASSPHRASE, name="B. Reviewer")
    return folder / "lab.toml", (tmp_path / "reviewer.p12").read_bytes()


def _session(make_client, name, **config):
    client = make_client(**config)
    nonce = client.get("/login").text.split('name="nonce" value="')[1].split('"')[0]
    assert client.post("/login", data={"name": name, "password": PASSWORD,
                                       "nonce": nonce}).status_code == 303
    csrf = client.get("/cases/new").text.split('name="csrf" value="')[1].split('"')[0]
    return client, csrf


def _signatures(pdf: bytes) -> int:
    """How many signature dictionaries (each has one /ByteRange) the raw bytes hold: counted
    without pyHanko."""
    return pdf.count(b"/ByteRange")


def _sign_form(client, key, csrf, p12, passphrase):
    return client.post(f"/cases/{key}/sign", data={"csrf": csrf, "passphrase": passphrase},
                       files={"pkcs12": ("mine.p12", p12, "application/x-pkcs12")})


def test_examiner_and_reviewer_sign_the_final_report(make_client, cases_dir, lab, monkeypatch,
                                                     tmp_path):
    lab_file, reviewer_p12 = lab
    monkeypatch.setenv(VARIABLE, EXAMINER_PASSPHRASE)
    cases_dir.mkdir()
    register = Register(cases_dir)
    # the case's examiner is an administrator: they may review, but never their own case
    register.add_user("Olga Owner", "administrator", PASSWORD, by="test")
    register.add_user("Rosa Reviewer", "reviewer", PASSWORD, by="test")
    register.add_user("Rex Reviewer", "reviewer", PASSWORD, by="test")
    owner, owner_csrf = _session(make_client, "Olga Owner", lab=lab_file)
    headers = {"x-csrf-token": owner_csrf}
    case, files = example_upload("voice")
    key = owner.post("/api/cases", files=multipart(case, files), headers=headers).json()["id"]

    # a draft is never signed
    assert owner.post(f"/api/cases/{key}/runs", json={"draft": True},
                      headers=headers).status_code == 201
    draft = owner.get(f"/api/cases/{key}/runs/1/report.pdf").content
    assert _signatures(draft) == 0
    assert not [e for e in register.audit(key) if e["action"] == "report signed"]
    assert "Unsigned: drafts are never signed." in owner.get(f"/cases/{key}").text

    # a final run is signed by the examiner's certificate, and the signing logged
    assert owner.post(f"/api/cases/{key}/runs", headers=headers).status_code == 201
    first = owner.get(f"/api/cases/{key}/runs/2/report.pdf").content
    assert (_signatures(first)) == 1
    [signed] = [e for e in register.audit(key) if e["action"] == "report signed"]
    assert signed["details"]["sha256"] == hashlib.sha256(first).hexdigest()
    assert signed["details"]["run"] == 2 and signed["details"]["signer"] == "A. Examiner"
    assert signed["details"]["role"] == "forensic examiner"

    # submit, approve, make final: the final report is signed by the examiner too
    assert owner.post(f"/api/cases/{key}/submit", headers=headers).status_code == 200
    rosa, rosa_csrf = _session(make_client, "Rosa Reviewer", lab=lab_file)
    assert rosa.post(f"/api/cases/{key}/review", headers={"x-csrf-token": rosa_csrf},
                     json={"decision": "approve", "comment": "checked"}).status_code == 200
    # nothing to sign off before the case is final
    assert _sign_form(rosa, key, rosa_csrf, reviewer_p12,
                      REVIEWER_PASSPHRASE).status_code == 409
    assert owner.post(f"/api/cases/{key}/finalize", headers=headers).status_code == 200
    final = owner.get(f"/api/cases/{key}/runs/3/report.pdf").content
    assert (_signatures(final)) == 1

    # the reviewer's sign-off: a wrong passphrase is refused and changes nothing
    page = rosa.get(f"/cases/{key}").text
    assert 'id="sign-pkcs12"' in page
    r = _sign_form(rosa, key, rosa_csrf, reviewer_p12, "not the passphrase")
    assert r.status_code == 422  # the page again: the reason at the form, the form to retry
    assert 'id="sign-error">Not signed: pkcs12: the passphrase does not open' in r.text
    assert 'id="sign-pkcs12"' in r.text and "not the passphrase" not in r.text
    assert owner.get(f"/api/cases/{key}/runs/3/report.pdf").content == final
    # without the CSRF token: refused
    assert rosa.post(f"/cases/{key}/sign", data={"passphrase": REVIEWER_PASSPHRASE},
                     files={"pkcs12": ("a.p12", reviewer_p12)}).status_code == 403
    # another reviewer than the one who approved: refused
    rex, rex_csrf = _session(make_client, "Rex Reviewer", lab=lab_file)
    assert _sign_form(rex, key, rex_csrf, reviewer_p12, REVIEWER_PASSPHRASE).status_code == 403
    r = _sign_form(rosa, key, rosa_csrf, reviewer_p12, REVIEWER_PASSPHRASE)
    assert r.status_code == 303
    both = owner.get(f"/api/cases/{key}/runs/3/report.pdf").content
    assert both.startswith(final) and (_signatures(both)) == 2  # an incremental update
    entry = register.audit(key)[-1]
    assert entry["action"] == "report signed" and entry["user"] == "Rosa Reviewer"
    assert entry["details"]["sha256"] == hashlib.sha256(both).hexdigest()
    assert entry["details"]["sha256_before"] == hashlib.sha256(final).hexdigest()
    assert entry["details"]["signer"] == "B. Reviewer" and entry["details"]["role"] == "reviewer"

    # a second sign-off: by the case's own examiner acting as reviewer, and by the reviewer
    r = owner.post(f"/api/cases/{key}/sign", data={"passphrase": REVIEWER_PASSPHRASE},
                   files={"pkcs12": ("a.p12", reviewer_p12)}, headers=headers)
    assert r.status_code == 403 and "cannot sign their own case" in r.json()["error"]
    assert _sign_form(rosa, key, rosa_csrf, reviewer_p12, REVIEWER_PASSPHRASE).status_code == 409
    assert owner.get(f"/api/cases/{key}/runs/3/report.pdf").content == both

    # the case page reads both signatures back from the file
    page = rosa.get(f"/cases/{key}").text
    table = page[page.index('class="list signatures"'):]
    table = table[:table.index("</table>")]
    assert table.index("A. Examiner") < table.index("forensic examiner") < table.index(
        "B. Reviewer") < table.index("reviewer</td>")
    assert table.count(">intact<") == 2 and 'id="sign-pkcs12"' not in page

    # poppler: two valid signatures, by the two certificate holders
    if shutil.which("pdfsig"):
        (tmp_path / "final.pdf").write_bytes(both)
        shown = subprocess.run(["pdfsig", str(tmp_path / "final.pdf")], capture_output=True,
                               text=True).stdout
        assert shown.count("Signature Validation: Signature is Valid.") == 2
        assert shown.index("Common Name: A. Examiner") < shown.index("Common Name: B. Reviewer")
    # verify (the command line) agrees, and the audit log is intact
    (tmp_path / "final.pdf").write_bytes(both)
    assert main(["-q", "verify", str(tmp_path / "final.pdf")]) == 0
    assert check_audit(cases_dir) == []
    # neither passphrase is in any file the server wrote, the register included
    for path in cases_dir.rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            for secret in (EXAMINER_PASSPHRASE, REVIEWER_PASSPHRASE):
                assert secret.encode() not in content, path
                assert secret.encode("utf-16-le") not in content, path


def test_an_uploaded_profile_names_no_certificate(client, cases_dir, bearer):
    folder = cases_dir / ".lab"
    folder.mkdir(parents=True)
    _p12(folder / "examiner.p12", EXAMINER_PASSPHRASE)
    r = client.put("/api/lab", files={"profile": ("lab.toml", LAB.encode())}, headers=bearer)
    assert r.status_code == 422
    assert "may not name a signing certificate" in r.json()["error"]
    assert not (folder / "lab.toml").exists()


def test_serve_without_the_passphrase_stops_at_start(lab, tmp_path, monkeypatch, capsys):
    lab_file, _ = lab
    monkeypatch.delenv(VARIABLE, raising=False)
    code = main(["serve", "--cases", str(tmp_path / "cases"), "--lab", str(lab_file)])
    assert code == 2
    assert f"set the environment variable {VARIABLE}" in capsys.readouterr().err


#: the offline timestamp authority, CA and lab profile of the PAdES-B-LTA tests (a fixture)
lta = test_signing_lta.lta
LTA_VARIABLE, LTA_PASSPHRASE = test_signing_lta.VARIABLE, test_signing_lta.PASSPHRASE


def test_sign_off_with_the_laboratorys_timestamp_authority(make_client, cases_dir, lta,
                                                           monkeypatch, tmp_path):
    """With ``[signing] tsa_url`` (the test's offline timestamp authority) the examiner's and
    the reviewer's signatures are both PAdES-B-LTA: each followed by a document timestamp,
    all of them checked by ``verify --trust`` the laboratory's CA."""
    monkeypatch.setenv(LTA_VARIABLE, LTA_PASSPHRASE)
    _p12(tmp_path / "reviewer.p12", REVIEWER_PASSPHRASE, name="B. Reviewer",
         ca=(lta["ca"], lta["ca_key"]), crl_url=lta["crl_url"])
    cases_dir.mkdir()
    register = Register(cases_dir)
    register.add_user("Olga Owner", "examiner", PASSWORD, by="test")
    register.add_user("Rosa Reviewer", "reviewer", PASSWORD, by="test")
    owner, owner_csrf = _session(make_client, "Olga Owner", lab=lta["lab"])
    case, files = example_upload("voice")
    key = owner.post("/api/cases", files=multipart(case, files),
                     headers={"x-csrf-token": owner_csrf}).json()["id"]
    assert owner.post(f"/api/cases/{key}/runs",
                      headers={"x-csrf-token": owner_csrf}).status_code == 201
    # the workflow up to final as the register records it (finalising would run once more)
    for status, user, action, before in (
            ("submitted", "Olga Owner", "submitted for review", "draft"),
            ("reviewed", "Rosa Reviewer", "review: approved", "submitted"),
            ("final", "Olga Owner", "finalised", "reviewed")):
        register.set_status(key, status, by=user, action=action, allowed_from=(before,), run=1)
    rosa, rosa_csrf = _session(make_client, "Rosa Reviewer", lab=lta["lab"])
    r = _sign_form(rosa, key, rosa_csrf, (tmp_path / "reviewer.p12").read_bytes(),
                   REVIEWER_PASSPHRASE)
    assert r.status_code == 303, r.text
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(owner.get(f"/api/cases/{key}/runs/1/report.pdf").content)
    assert main(["verify", str(pdf), "--trust", str(lta["lab"].parent / "ca.pem")]) == 0
    page = rosa.get(f"/cases/{key}").text
    table = page[page.index('class="list signatures"'):]
    table = table[:table.index("</table>")]
    assert table.count(">intact<") == 4 and table.count("document timestamp (timestamp") == 2
    assert table.index("A. Examiner") < table.index("B. Reviewer")
