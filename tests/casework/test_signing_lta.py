"""PAdES-B-LTA signatures: a laboratory profile naming a timestamp authority
(``[signing] tsa_url``) and the CA certificates (``ca_certificates``).

Everything runs offline: a thread of the test serves, on 127.0.0.1, a timestamp authority
(RFC 3161 over HTTP; each response made by pyHanko's ``DummyTimeStamper`` with a TSA
certificate made here with ``cryptography``) and the CA's certificate revocation list,
which the examiner's and the TSA's certificates name as their CRL distribution point.

The checks that do not rest on pyHanko (which signed): pypdf finds in the document
security store the very CRL the test served and the certificates the test made; the
document timestamp's byte range ends at the end of the file; the signature's timestamp
token (read with asn1crypto) imprints hashlib's SHA-256 of the signature value and was
made between the test's clock readings before and after the run; poppler's ``pdfsig``
reports the examiner's signature valid.
"""

from __future__ import annotations

import datetime
import hashlib
import shutil
import socket
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("weasyprint")
pytest.importorskip("pyhanko")
pytest.importorskip("cryptography")

from asn1crypto import cms, keys, tsp
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from pyhanko.sign.timestamps import DummyTimeStamper
from pypdf import PdfReader

from forensic_lr.casework.verify import read_report
from forensic_lr.cli import main
from tests.casework.test_signing import (
    _certificate,
    _key,
    _p12,
    _pem,
    assert_still_pdfa,
    signing_profile,
)

PASSPHRASE = "tsa horse 3"
VARIABLE = "FLR_TEST_LTA_PASSPHRASE"


class _Authority(BaseHTTPRequestHandler):
    """POST: a timestamp request answered by the server's DummyTimeStamper; GET /ca.crl:
    the CA's CRL. Every request is counted in ``server.requests``."""

    def log_message(self, *args) -> None:  # no output from the test's server
        pass

    def _send(self, body: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        request = tsp.TimeStampReq.load(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append("timestamp")
        self._send(self.server.tsa.request_tsa_response(request).dump(),
                   "application/timestamp-reply")

    def do_GET(self) -> None:
        self.server.requests.append(self.path)
        self._send(self.server.crl, "application/pkix-crl")


def _der(cert) -> bytes:
    return cert.public_bytes(serialization.Encoding.DER)


def _lab(folder, tsa_url: str) -> None:
    (folder / "lab.toml").write_text(signing_profile(
        VARIABLE, f'tsa_url = "{tsa_url}"\nca_certificates = ["ca.pem"]\n'), encoding="utf-8")


@pytest.fixture(scope="module")
def lta(tmp_path_factory):
    """The worked voice case's final report signed PAdES-B-LTA through the test's TSA."""
    root = tmp_path_factory.mktemp("lta")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Authority)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    ca_key = _key()
    ca = _certificate("Lab Signing CA", ca_key, ca=True)
    tsa_key = _key()
    tsa = _certificate("Test Timestamp Authority", tsa_key, (ca, ca_key),
                       crl_url=f"{base}/ca.crl", timestamping=True)
    now = datetime.datetime.now(datetime.UTC)
    crl = (x509.CertificateRevocationListBuilder().issuer_name(ca.subject)
           .last_update(now - datetime.timedelta(hours=1))
           .next_update(now + datetime.timedelta(days=7)).sign(ca_key, hashes.SHA256()))
    server.crl = crl.public_bytes(serialization.Encoding.DER)
    server.requests = []
    server.tsa = DummyTimeStamper(
        asn1_x509.Certificate.load(_der(tsa)),
        keys.PrivateKeyInfo.load(tsa_key.private_bytes(
            serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption())),
        certs_to_embed=[asn1_x509.Certificate.load(_der(ca))])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    case = root / "case"
    assert main(["-q", "examples", "copy", "voice", str(case)]) == 0
    lab = root / "lab"
    lab.mkdir()
    _pem(lab / "ca.pem", ca)
    _p12(lab / "examiner.p12", PASSPHRASE, ca=(ca, ca_key), crl_url=f"{base}/ca.crl")
    _lab(lab, f"{base}/tsa")
    out = root / "out"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(VARIABLE, PASSPHRASE)
        before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
        assert main(["-q", "run", str(case / "case.toml"), "--out", str(out), "--lab",
                     str(lab / "lab.toml")]) == 0
        after = datetime.datetime.now(datetime.UTC)
    yield {"case": case, "lab": lab / "lab.toml", "out": out, "server": server, "ca": ca,
           "ca_key": ca_key, "crl_url": f"{base}/ca.crl",
           "tsa": tsa, "window": (before, after), "requests": list(server.requests)}
    server.shutdown()
    server.server_close()


def test_lta_report_verifies_with_timestamps_and_validation_data(lta, capsys):
    report = read_report(lta["out"] / "report.pdf")
    assert report.revisions == 3  # forensic-lr's, the signature, DSS + document timestamp
    assert report.record == (lta["out"] / "result.json").read_bytes()
    assert main(["verify", str(lta["out"] / "report.pdf"), "--case", str(lta["case"]),
                 "--lab", str(lta["lab"])]) == 0
    text = capsys.readouterr().out
    assert "signature intact, signer not checked against a trust anchor: signature 1 of 1" \
        in text
    assert "; timestamped at " in text
    assert "Common Name: Test Timestamp Authority (not checked against a trust anchor)" in text
    assert ("document timestamp intact, timestamp authority not checked against a trust "
            "anchor: document timestamp 1 of 1: at ") in text
    assert "long-term validation data (document security store): 3 certificate(s), " \
        "1 CRL(s), 0 OCSP response(s)" in text
    assert "equals the report's first revision (before signing), byte for byte" in text
    # the CA issued both the examiner's and the TSA's certificates: trusted through it
    assert main(["verify", str(lta["out"] / "report.pdf"), "--trust",
                 str(lta["lab"].parent / "ca.pem")]) == 0
    text = capsys.readouterr().out
    assert "signature valid and trusted: signature 1 of 1" in text
    assert "document timestamp valid and trusted: document timestamp 1 of 1" in text


def test_lta_data_read_without_pyhanko(lta):
    """The DSS, the document timestamp and the signature timestamp, read with pypdf,
    asn1crypto and hashlib against what the test made and served."""
    data = (lta["out"] / "report.pdf").read_bytes()
    reader = PdfReader(lta["out"] / "report.pdf")
    dss = reader.trailer["/Root"]["/DSS"]
    assert [c.get_object().get_data() for c in dss["/CRLs"]] == [lta["server"].crl]
    stored = {c.get_object().get_data() for c in dss["/Certs"]}
    assert stored == {_der(lta["ca"]), _der(lta["tsa"]),
                      x509.load_pem_x509_certificate(_examiner_pem(lta)).public_bytes(
                          serialization.Encoding.DER)}
    fields = [f["/V"].get_object() for f in reader.get_fields().values()
              if f.get("/FT") == "/Sig"]
    signature, stamp = fields
    assert stamp["/Type"] == "/DocTimeStamp" and stamp["/SubFilter"] == "/ETSI.RFC3161"
    start, _, second, length = stamp["/ByteRange"]
    assert start == 0 and second + length == len(data)  # covers the file to its last byte
    signer_info = cms.ContentInfo.load(bytes(signature["/Contents"]))["content"][
        "signer_infos"][0]
    token = {a["type"].native: a for a in signer_info["unsigned_attrs"]}[
        "signature_time_stamp_token"]["values"][0]
    info = token["content"]["encap_content_info"]["content"].parsed
    assert info["message_imprint"]["hashed_message"].native == hashlib.sha256(
        signer_info["signature"].native).digest()
    before, after = lta["window"]
    assert before <= info["gen_time"].native <= after
    # the signature's and the document's timestamps (and pyHanko's trial request, which
    # learns the TSA's certificate to validate it before signing); the CRL fetched
    assert lta["requests"].count("timestamp") >= 2 and "/ca.crl" in lta["requests"]


def _examiner_pem(lta) -> bytes:
    """The examiner's certificate, from the PKCS#12 file the profile names."""
    from cryptography.hazmat.primitives.serialization import pkcs12

    _, cert, _ = pkcs12.load_key_and_certificates(
        (lta["lab"].parent / "examiner.p12").read_bytes(), PASSPHRASE.encode())
    return cert.public_bytes(serialization.Encoding.PEM)


def test_lta_report_is_still_pdfa(lta):
    assert_still_pdfa(lta["out"] / "report.pdf", lta["out"] / "result.json")


@pytest.mark.skipif(shutil.which("pdfsig") is None, reason="poppler-utils not installed")
def test_poppler_reports_the_lta_signature_valid(lta):
    shown = subprocess.run(["pdfsig", str(lta["out"] / "report.pdf")], capture_output=True,
                           text=True).stdout
    examiner = shown.split("Signature #2")[0]
    assert "Signer Certificate Common Name: A. Examiner" in examiner
    assert "Signature Validation: Signature is Valid." in examiner


def test_reviewer_signs_an_lta_report(lta, tmp_path, monkeypatch, capsys):
    """A second signature through the same profile is timestamped too; every signature and
    timestamp still checks and the first revision still equals the re-run."""
    monkeypatch.setenv(VARIABLE, PASSPHRASE)
    two = tmp_path / "reviewed.pdf"
    assert main(["-q", "sign", str(lta["out"] / "report.pdf"), "--lab", str(lta["lab"]),
                 "--out", str(two)]) == 0
    assert main(["verify", str(two), "--case", str(lta["case"]), "--lab", str(lta["lab"]),
                 "--trust", str(lta["lab"].parent / "ca.pem")]) == 0
    text = capsys.readouterr().out
    assert "signature valid and trusted: signature 2 of 2" in text
    assert "document timestamp valid and trusted: document timestamp 2 of 2" in text
    assert "verdict: the report matches its case" in text


def test_unreachable_timestamp_authority_stops_before_writing(lta, tmp_path, monkeypatch,
                                                              capsys):
    with socket.socket() as sock:  # a port nobody listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    lab = tmp_path / "lab"
    shutil.copytree(lta["lab"].parent, lab)
    _lab(lab, f"http://127.0.0.1:{port}/tsa")
    monkeypatch.setenv(VARIABLE, PASSPHRASE)
    out = tmp_path / "out"
    assert main(["run", str(lta["case"] / "case.toml"), "--out", str(out), "--lab",
                 str(lab / "lab.toml")]) == 2
    err = capsys.readouterr().err
    assert f"the timestamp authority at http://127.0.0.1:{port}/tsa gave no timestamp" in err
    assert "Traceback" not in err
    assert not out.exists()


def test_profile_keys_are_checked(lta, tmp_path, capsys):
    lab = tmp_path / "lab"
    shutil.copytree(lta["lab"].parent, lab)
    (lab / "ca.pem").unlink()
    case = str(lta["case"] / "case.toml")
    assert main(["check", case, "--lab", str(lab / "lab.toml")]) == 2
    assert "[signing] ca_certificates" in capsys.readouterr().err
    _lab(lab, "ftp://tsa.example/")
    (lab / "ca.pem").write_text("not a certificate")
    assert main(["check", case, "--lab", str(lab / "lab.toml")]) == 2
    assert "tsa_url" in capsys.readouterr().err
