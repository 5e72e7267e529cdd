"""Final reports signed (PAdES) with the certificate the lab profile names; drafts never.

The certificate is made here with ``cryptography`` (self-signed, in a PKCS#12 file with a
passphrase). The independent checks: poppler's ``pdfsig`` (another implementation of PDF
signature validation) reports the signature valid, and one flipped byte makes ``verify``
exit 1 saying the file changed after signing.
"""

from __future__ import annotations

import datetime
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("weasyprint")
pytest.importorskip("pyhanko")
crypto = pytest.importorskip("cryptography")

from cryptography import x509  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: E402
from cryptography.hazmat.primitives.serialization import pkcs12  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402

from forensic_lr.casework.verify import read_report  # noqa: E402
from forensic_lr.cli import main  # noqa: E402
from tests.conftest import append_revision  # noqa: E402

PASSPHRASE = "correct horse 7"
VARIABLE = "FLR_TEST_P12_PASSPHRASE"


def signing_profile(variable: str, extra: str = "") -> str:
    """A lab profile whose ``[signing]`` names examiner.p12, its passphrase in the
    environment variable ``variable``; ``extra``: further ``[signing]`` lines."""
    return f"""\
[laboratory]
name = "Example Forensic Speech Laboratory"
[signing]
certificate = "examiner.p12"
passphrase_env = "{variable}"
role = "forensic examiner"
{extra}"""


LAB = signing_profile(VARIABLE)


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Lab of Signatures")])


def _certificate(subject: str, key, issuer: tuple | None = None, *, ca: bool = False,
                 crl_url: str | None = None, timestamping: bool = False):
    """An X.509 certificate for ``subject``'s ``key``, issued by ``issuer`` = (certificate,
    key), self-signed when None; a CA certificate when ``ca``; naming a CRL distribution
    point ``crl_url``; a timestamp authority's (extended key usage timeStamping) when
    ``timestamping``."""
    issuer_cert, issuer_key = issuer or (None, key)
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(_name(subject))
               .issuer_name(issuer_cert.subject if issuer_cert else _name(subject))
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(days=1))
               .not_valid_after(now + datetime.timedelta(days=30))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    usage = dict.fromkeys(("digital_signature", "content_commitment", "key_encipherment",
                           "data_encipherment", "key_agreement", "key_cert_sign", "crl_sign",
                           "encipher_only", "decipher_only"), False)
    usage.update({"key_cert_sign": True, "crl_sign": True} if ca else
                 {"digital_signature": True, "content_commitment": True})
    builder = builder.add_extension(x509.KeyUsage(**usage), critical=True)
    if crl_url:
        builder = builder.add_extension(x509.CRLDistributionPoints([x509.DistributionPoint(
            [x509.UniformResourceIdentifier(crl_url)], None, None, None)]), critical=False)
    if timestamping:
        builder = builder.add_extension(
            x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.TIME_STAMPING]), critical=True)
    return builder.sign(issuer_key, hashes.SHA256())


def _key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _pem(path, cert) -> None:
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def _p12(path, passphrase: str, name: str = "A. Examiner", ca: tuple | None = None,
         crl_url: str | None = None) -> None:
    """An RSA certificate for ``name`` with its key (issued by ``ca`` = (certificate, key),
    else self-signed; naming the CRL ``crl_url``), in a PKCS#12 file with the passphrase."""
    key = _key()
    cert = _certificate(name, key, ca, crl_url=crl_url)
    path.write_bytes(pkcs12.serialize_key_and_certificates(
        b"examiner", key, cert, [ca[0]] if ca else None,
        serialization.BestAvailableEncryption(passphrase.encode())))


@pytest.fixture(scope="module")
def signed(tmp_path_factory):
    """``(case folder, lab.toml, out)`` of the worked voice case's final report, signed with
    the certificate the lab profile names."""
    root = tmp_path_factory.mktemp("signing")
    case = root / "case"
    assert main(["-q", "examples", "copy", "voice", str(case)]) == 0  # ready for a final report
    lab = root / "lab"
    lab.mkdir()
    ca_key = _key()
    ca = _certificate("Lab Signing CA", ca_key, ca=True)
    _pem(lab / "ca.pem", ca)
    _pem(lab / "other-ca.pem", _certificate("Someone Else's CA", _key(), ca=True))
    _p12(lab / "examiner.p12", PASSPHRASE, ca=(ca, ca_key))
    (lab / "lab.toml").write_text(LAB, encoding="utf-8")
    out = root / "out"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(VARIABLE, PASSPHRASE)
        assert main(["-q", "check", str(case / "case.toml"), "--lab", str(lab / "lab.toml")]) \
            == 0
        assert main(["-q", "run", str(case / "case.toml"), "--out", str(out), "--lab",
                     str(lab / "lab.toml")]) == 0
    return case, lab / "lab.toml", out


def test_signed_report_verifies_and_keeps_its_first_revision(signed, capsys):
    case, lab, out = signed
    report = read_report(out / "report.pdf")
    assert report.revisions == 2  # forensic-lr's revision, then the signature
    assert report.record == (out / "result.json").read_bytes()
    assert main(["verify", str(out / "report.pdf"), "--case", str(case), "--lab", str(lab)]) == 0
    text = capsys.readouterr().out
    assert ("ok      signature intact, signer not checked against a trust anchor: "
            "signature 1 of 1: signed by ") in text and "Common Name: A. Examiner" in text
    assert "reason: evaluative report, case FVC-2026-017" in text
    assert "location: signed as forensic examiner" in text
    assert "role (signed attribute): forensic examiner" in text
    assert "equals the report's first revision (before signing), byte for byte" in text
    assert "unsigned" not in text


@pytest.mark.skipif(shutil.which("pdfsig") is None, reason="poppler-utils not installed")
def test_poppler_reports_the_signature_valid(signed):
    _, _, out = signed
    shown = subprocess.run(["pdfsig", str(out / "report.pdf")], capture_output=True,
                           text=True).stdout
    assert "Signer Certificate Common Name: A. Examiner" in shown
    assert "Signature Validation: Signature is Valid." in shown
    assert "Total document signed" in shown


def assert_still_pdfa(pdf, record) -> None:
    """What PDF/A-3b asks of a signed report, checked without pyHanko (which signed):

    * poppler's ``pdfinfo -meta`` still shows the PDF/A-3B identification, ``pdfdetach``
      lists exactly the record and extracts it equal, byte for byte, to ``record``;
    * the last revision's document information dictionary equals its XMP metadata in every
      entry both have (ISO 19005-3, 6.6.2.3), read with pypdf;
    * every signature widget is printable and not hidden (its /F has the Print flag and
      none of Hidden, Invisible, NoView, ToggleNoView; ISO 19005-3, 6.3.2), zero-sized.
    """
    from pypdf import PdfReader

    reader = PdfReader(pdf)
    info, xmp = reader.metadata, reader.xmp_metadata
    assert (xmp.pdfaid_part, xmp.pdfaid_conformance) == ("3", "B")
    pairs = {"/Producer": xmp.pdf_producer, "/Keywords": xmp.pdf_keywords,
             "/Creator": xmp.xmp_creator_tool, "/Title": xmp.dc_title["x-default"],
             "/Author": xmp.dc_creator[0], "/Subject": xmp.dc_description["x-default"]}
    for key, value in pairs.items():
        assert str(info[key]) == value, (key, info[key], value)
    assert info.modification_date == xmp.xmp_modify_date.astimezone(
        info.modification_date.tzinfo)
    widgets = [f.get_object() for f in reader.trailer["/Root"]["/AcroForm"]["/Fields"]]
    assert widgets and all(w["/FT"] == "/Sig" for w in widgets)
    for widget in widgets:
        flags = int(widget["/F"])
        assert flags & 4 and not flags & (1 | 2 | 32 | 256), flags
        assert [float(x) for x in widget["/Rect"]] == [0, 0, 0, 0]
    if shutil.which("pdfinfo") is None:
        return
    meta = subprocess.run(["pdfinfo", "-meta", str(pdf)], capture_output=True, text=True,
                          check=True).stdout
    assert 'pdfaid:part="3"' in meta and 'pdfaid:conformance="B"' in meta
    listed = subprocess.run(["pdfdetach", "-list", str(pdf)], capture_output=True, text=True,
                            check=True).stdout
    assert listed.splitlines()[1:] == [f"1: {Path(record).name}"]
    out = Path(pdf).parent / f"{Path(pdf).stem}-extracted.json"
    subprocess.run(["pdfdetach", "-save", "1", "-o", str(out), str(pdf)], check=True)
    try:
        assert out.read_bytes() == Path(record).read_bytes()
    finally:
        out.unlink()


def test_signed_report_is_still_pdfa(signed, tmp_path, monkeypatch):
    _, _, out = signed
    assert_still_pdfa(out / "report.pdf", out / "result.json")
    reviewer_p12 = tmp_path / "reviewer.p12"
    _p12(reviewer_p12, "battery staple 9", name="B. Reviewer")
    monkeypatch.setenv("FLR_TEST_REVIEWER", "battery staple 9")
    reviewed = tmp_path / "reviewed" / "report.pdf"
    reviewed.parent.mkdir()
    assert main(["-q", "sign", str(out / "report.pdf"), "--pkcs12", str(reviewer_p12),
                 "--passphrase-env", "FLR_TEST_REVIEWER", "--out", str(reviewed)]) == 0
    assert_still_pdfa(reviewed, out / "result.json")


def _signer_info(pdf, number: int = 0):
    """The CMS SignerInfo of the ``number``-th signature, read with pypdf and asn1crypto (not
    with pyHanko, which wrote it)."""
    from asn1crypto import cms
    from pypdf import PdfReader

    fields = [f for f in PdfReader(pdf).get_fields().values() if f.get("/FT") == "/Sig"]
    contents = fields[number]["/V"].get_object()["/Contents"]
    signed_data = cms.ContentInfo.load(bytes(contents))["content"]
    return signed_data["signer_infos"][0]


def test_role_is_a_signed_cades_claimed_attribute(signed):
    """The role is in the signed attributes as signer-attributes-v2 (OID 0.4.0.19122.1.1)
    claiming an X.509 role attribute (2.5.4.72) whose RoleSyntax names the profile's role."""
    _, _, out = signed
    attrs = {a["type"].dotted: a for a in _signer_info(out / "report.pdf")["signed_attrs"]}
    claimed = attrs["0.4.0.19122.1.1"]["values"][0]["claimed_attributes"]
    assert [a["type"].dotted for a in claimed] == ["2.5.4.72"]
    assert claimed[0]["values"][0]["role_name"].native == "forensic examiner"


def test_one_flipped_byte_breaks_the_signature(signed, tmp_path, capsys):
    _, _, out = signed
    data = bytearray((out / "report.pdf").read_bytes())
    data[10] ^= 0x01  # in the binary comment under the header: the file still reads
    (tmp_path / "flipped.pdf").write_bytes(bytes(data))
    assert main(["verify", str(tmp_path / "flipped.pdf")]) == 1
    text = capsys.readouterr().out
    assert "INVALID signature: the file's bytes do not match the signed digest: it was " \
           "changed after signing" in text
    assert text.rstrip().splitlines()[-1].startswith("verdict: DIFFERS - INVALID signature")
    if shutil.which("pdfsig"):
        shown = subprocess.run(["pdfsig", str(tmp_path / "flipped.pdf")], capture_output=True,
                               text=True).stdout
        assert "Signature is Valid." not in shown


def test_a_revision_appended_after_signing_is_found(signed, tmp_path, capsys):
    _, _, out = signed
    append_revision(out / "report.pdf", tmp_path / "edited.pdf")
    assert main(["verify", str(tmp_path / "edited.pdf")]) == 1
    assert "the signature does not cover all of it" in capsys.readouterr().out


@pytest.fixture(scope="module")
def draft(signed, tmp_path_factory):
    """The draft report of the signed case, run with the signing lab profile."""
    case, lab, _ = signed
    out = tmp_path_factory.mktemp("draft") / "draft"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(VARIABLE, PASSPHRASE)
        assert main(["-q", "run", str(case / "case.toml"), "--out", str(out), "--lab",
                     str(lab), "--draft"]) == 0
    return out


def test_drafts_are_never_signed(draft, capsys):
    assert read_report(draft / "report.pdf").revisions == 1
    assert main(["verify", str(draft / "report.pdf")]) == 0
    assert "signature: unsigned" in capsys.readouterr().out


def test_passphrase_problems_stop_before_any_work(signed, tmp_path, monkeypatch, capsys):
    case, lab, _ = signed
    monkeypatch.setenv(VARIABLE, "wrong passphrase")
    argv = ["run", str(case / "case.toml"), "--out", str(tmp_path / "o"), "--lab", str(lab)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "cannot open it with the passphrase given" in err
    assert "wrong passphrase" not in err.replace("(wrong passphrase,", "")  # never echoed
    assert not (tmp_path / "o").exists()
    monkeypatch.delenv(VARIABLE)
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    assert main(argv) == 2
    assert f"set the environment variable {VARIABLE}" in capsys.readouterr().err


def test_the_passphrase_is_in_no_output_file(signed):
    _, _, out = signed
    for path in out.rglob("*"):
        if path.is_file():
            assert PASSPHRASE.encode() not in path.read_bytes()


def test_a_profile_inside_the_case_folder_may_not_sign(signed, tmp_path, capsys):
    case, lab, _ = signed
    copy = tmp_path / "case"
    shutil.copytree(case, copy)
    shutil.copy(lab.parent / "examiner.p12", copy / "examiner.p12")
    (copy / "lab.toml").write_text(LAB, encoding="utf-8")
    text = (copy / "case.toml").read_text().replace(
        '[report]\n', '[report]\nlab_profile = "lab.toml"\n')
    (copy / "case.toml").write_text(text)
    assert main(["check", str(copy / "case.toml")]) == 2
    assert "[signing] certificate" in capsys.readouterr().err


def test_without_trust_the_signer_is_not_judged(signed, capsys):
    _, _, out = signed
    assert main(["verify", str(out / "report.pdf")]) == 0
    text = capsys.readouterr().out
    assert "signature intact, signer not checked against a trust anchor: signature 1 of 1" \
        in text
    assert "trusted:" not in text and "valid and trusted" not in text


def test_trust_anchor_the_signer_chains_to(signed, capsys):
    """The examiner's certificate was issued by "Lab Signing CA" (made above): it chains to
    ca.pem and to no other; a self-signed certificate chains to nothing but itself."""
    _, lab, out = signed
    report = str(out / "report.pdf")
    assert main(["verify", report, "--trust", str(lab.parent / "ca.pem")]) == 0
    text = capsys.readouterr().out
    assert "signature valid and trusted: signature 1 of 1" in text
    assert "chains to a --trust certificate" in text
    assert main(["verify", report, "--trust", str(lab.parent / "other-ca.pem")]) == 1
    text = capsys.readouterr().out
    assert "does not chain to any --trust certificate" in text
    assert text.rstrip().splitlines()[-1].startswith("verdict: DIFFERS")
    # repeatable: one right anchor among others is enough
    assert main(["verify", report, "--trust", str(lab.parent / "other-ca.pem"),
                 "--trust", str(lab.parent / "ca.pem")]) == 0
    capsys.readouterr()


def test_trust_file_that_is_no_certificate(signed, tmp_path, capsys):
    _, _lab, out = signed
    (tmp_path / "junk.pem").write_text("not a certificate")
    for bad in (tmp_path / "junk.pem", tmp_path / "missing.pem"):
        assert main(["verify", str(out / "report.pdf"), "--trust", str(bad)]) == 2
        assert "--trust" in capsys.readouterr().err


def test_reviewer_signature_is_second_and_first_revision_still_matches(signed, tmp_path,
                                                                         monkeypatch, capsys):
    """``sign --role reviewer`` appends a second signature; pdfsig (an independent
    validator) finds two valid signatures, verify lists both in signing order and the
    first revision still equals the re-run."""
    case, lab, out = signed
    reviewer_p12 = tmp_path / "reviewer.p12"
    _p12(reviewer_p12, "battery staple 9", name="B. Reviewer")
    monkeypatch.setenv("FLR_TEST_REVIEWER", "battery staple 9")
    two = tmp_path / "reviewed.pdf"
    assert main(["sign", str(out / "report.pdf"), "--role", "reviewer", "--pkcs12",
                 str(reviewer_p12), "--passphrase-env", "FLR_TEST_REVIEWER",
                 "--out", str(two)]) == 0
    assert "signed by B. Reviewer as reviewer" in capsys.readouterr().out
    report = read_report(two)
    assert report.revisions == 3
    assert report.first_revision == read_report(out / "report.pdf").first_revision
    assert main(["verify", str(two), "--case", str(case), "--lab", str(lab)]) == 0
    text = capsys.readouterr().out
    first, second = text.index("signature 1 of 2"), text.index("signature 2 of 2")
    assert first < second
    assert "A. Examiner" in text[first:second] and "B. Reviewer" in text[second:]
    assert "location: signed as reviewer" in text[second:]
    assert "role (signed attribute): reviewer" in text[second:]
    assert "role (signed attribute): forensic examiner" in text[first:second]
    assert "verdict: the report matches its case" in text
    # the same again refuses to overwrite; in place needs --force
    assert main(["sign", str(out / "report.pdf"), "--pkcs12", str(reviewer_p12),
                 "--passphrase-env", "FLR_TEST_REVIEWER", "--out", str(two)]) == 2
    if shutil.which("pdfsig"):
        done = subprocess.run(["pdfsig", str(two)], capture_output=True, text=True,
                              check=False)
        assert done.stdout.count("Signature is Valid.") == 2, done.stdout
        assert "B. Reviewer" in done.stdout and "A. Examiner" in done.stdout


def test_reviewer_signature_refuses_drafts_and_changed_files(signed, draft, tmp_path,
                                                             monkeypatch, capsys):
    _, lab, out = signed
    monkeypatch.setenv(VARIABLE, PASSPHRASE)
    assert main(["sign", str(draft / "report.pdf"), "--lab", str(lab),
                 "--out", str(tmp_path / "d.pdf")]) == 2
    assert "drafts are never signed" in capsys.readouterr().err
    changed = tmp_path / "changed.pdf"
    append_revision(out / "report.pdf", changed)
    assert main(["sign", str(changed), "--lab", str(lab), "--out", str(tmp_path / "c.pdf")]) \
        == 2
    assert "do not check" in capsys.readouterr().err
    assert not (tmp_path / "c.pdf").exists() and not (tmp_path / "d.pdf").exists()


def test_batch_run_signs_every_final_report_loading_the_signer_once(signed, tmp_path,
                                                                    monkeypatch):
    """``run A B --lab`` signs each final report; the PKCS#12 file is opened (and its
    passphrase read) once for the batch, and the passphrase is in no file written."""
    import forensic_lr.casework.signing as signing

    case, lab, _ = signed
    calls = []
    real = signing.load_signer
    monkeypatch.setattr(signing, "load_signer", lambda *a, **k: calls.append(a) or real(*a, **k))
    monkeypatch.setenv(VARIABLE, PASSPHRASE)
    out = tmp_path / "batch"
    assert main(["-q", "run", str(case / "case.toml"), str(case / "case.toml"), "--out",
                 str(out), "--lab", str(lab)]) == 0
    assert len(calls) == 1
    pdfs = sorted(out.glob("*/report.pdf"))
    assert len(pdfs) == 2
    for pdf in pdfs:
        checks = signing.check_signatures(pdf.read_bytes())
        assert [c.ok for c in checks] == [True] and "A. Examiner" in checks[0].text
        assert read_report(pdf).record == (pdf.parent / "result.json").read_bytes()
    for path in out.rglob("*"):
        if path.is_file():
            assert PASSPHRASE.encode() not in path.read_bytes(), path
