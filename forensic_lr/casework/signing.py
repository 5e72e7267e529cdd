"""Digital signatures of final reports (PAdES, with pyHanko) and their validation.

A laboratory whose profile has a ``[signing]`` table signs every final report:

.. code-block:: toml

    [signing]
    certificate = "keys/examiner.p12"        # PKCS#12 file, relative to the profile
    passphrase_env = "FORENSIC_LR_P12_PASSPHRASE"  # the variable holding its passphrase
    role = "forensic examiner"

The passphrase is read from the environment variable the profile names, or asked for in
the terminal (never echoed) when the profile names none or the variable is unset; it is
never written to a file, a record or a message. Drafts are never signed.

The signature is a PAdES baseline signature (ETSI EN 319 142-1, B-B level: CMS with the
signing certificate and the signing time as signed attributes, sub-filter
``ETSI.CAdES.detached``) added as an incremental update, so the report's first revision
keeps the bytes forensic-lr wrote (``verify`` compares those). Its reason is
"evaluative report, case X" and its name the certificate holder's (subject common name).
The role is a signed CAdES attribute: a claimed signer attribute (``signer-attributes-v2``,
ETSI EN 319 122-1 section 5.2.6.1) of type ``role`` (X.509 attribute 2.5.4.72, RFC 5755
``RoleSyntax``), which ``verify`` reads back from the signature; it is also stated in the
signature's location field ("signed as ROLE"), the free text field PDF readers such as
poppler's ``pdfsig`` show besides the reason.
"""

from __future__ import annotations

import contextlib
import getpass
import io
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError

__all__ = ["SignatureCheck", "Signer", "add_signature", "check_signatures", "claimed_roles",
           "lab_signer", "load_signer", "load_trust_anchors", "profile_signer", "sign_pdf"]


@contextlib.contextmanager
def _quiet_pyhanko():
    """pyHanko logs what it finds wrong (a self-signed certificate, a wrong passphrase) with
    tracebacks; the caller reports the outcome in words, so its records go nowhere."""
    loggers = [logging.getLogger(name) for name in ("pyhanko", "pyhanko_certvalidator")]
    sink = logging.NullHandler()
    saved = [logger.propagate for logger in loggers]
    for logger in loggers:
        logger.addHandler(sink)
        logger.propagate = False
    try:
        yield
    finally:
        for logger, propagate in zip(loggers, saved, strict=True):
            logger.removeHandler(sink)
            logger.propagate = propagate


@dataclass(frozen=True)
class Signer:
    """A loaded signing key (pyHanko ``SimpleSigner``) with who signs and as what."""

    signer: object
    name: str
    role: str


def _passphrase(env: str | None, certificate: Path) -> bytes:
    """The certificate's passphrase: from the variable ``env``, else asked in a terminal."""
    if env and env in os.environ:
        return os.environ[env].encode("utf-8")
    if not sys.stdin.isatty():
        where = f"set the environment variable {env}" if env else (
            "name an environment variable holding it with [signing] passphrase_env")
        raise InputError(f"the signing certificate {certificate} needs its passphrase: {where}, "
                         "or run in a terminal to be asked for it")
    return getpass.getpass(f"passphrase of {certificate.name}: ").encode("utf-8")


def load_signer(certificate: str | Path, *, passphrase_env: str | None = None,
                role: str = "") -> Signer:
    """Open a PKCS#12 file with its passphrase (see :func:`_passphrase`).

    Raises
    ------
    InputError
        The file is missing, or the passphrase does not open it.
    """
    from pyhanko.sign import signers

    path = Path(certificate)
    if not path.is_file():
        raise InputError("[signing] certificate: no such file", path=str(path))
    secret = _passphrase(passphrase_env, path)
    try:
        with _quiet_pyhanko():
            signer = signers.SimpleSigner.load_pkcs12_data(path.read_bytes(), (),
                                                           passphrase=secret)
    except (ValueError, OSError):
        signer = None
    if signer is None:  # pyHanko logs and returns None for a wrong passphrase
        raise InputError("[signing] certificate: cannot open it with the passphrase given "
                         "(wrong passphrase, or not a PKCS#12 file)", path=str(path))
    name = signer.signing_cert.subject.native.get("common_name") or \
        signer.signing_cert.subject.human_friendly
    return Signer(signer=signer, name=str(name), role=role)


def profile_signer(spec) -> Signer | None:
    """The signer the case's laboratory profile names (``[signing]``), or None.

    The profile is read again from the file the case used, and must still have the SHA-256
    the case recorded.
    """
    from .profile import load_profile

    if spec.lab is None or not spec.lab.profile_file:
        return None
    profile, sha256 = load_profile(spec.lab.profile_file)
    if sha256 != spec.lab_sha256:
        raise InputError("the laboratory profile changed while the case was read; run again",
                         path=spec.lab.profile_file)
    signing = profile.signing
    if signing.certificate is None:
        return None
    folder = Path(spec.lab.profile_file).resolve().parent
    return load_signer(folder / signing.certificate, passphrase_env=signing.passphrase_env,
                       role=signing.role)


def lab_signer(profile_file: str | Path, *, role: str | None = None) -> Signer:
    """The signer a laboratory profile's ``[signing]`` table names, as ``role`` (default:
    the profile's role)."""
    from .profile import load_profile

    profile, _ = load_profile(profile_file)
    signing = profile.signing
    if signing.certificate is None:
        raise InputError("names no signing certificate: add a [signing] table with "
                         "certificate = \"FILE.p12\", or give --pkcs12", path=str(profile_file))
    folder = Path(profile_file).resolve().parent
    return load_signer(folder / signing.certificate, passphrase_env=signing.passphrase_env,
                       role=signing.role if role is None else role)


def _role_attributes(role: str):
    """The CAdES signed attributes claiming ``role`` (``signer-attributes-v2`` with one
    claimed X.509 ``role`` attribute, RFC 5755 ``RoleSyntax``; the role name is a
    GeneralName, here the URI form, which is how BouncyCastle's ``RoleSyntax(String)``
    writes a text role), or None without a role."""
    if not role:
        return None
    from asn1crypto import cms, x509
    from pyhanko.sign.ades.api import CAdESSignedAttrSpec, SignerAttrSpec

    name = x509.GeneralName(name="uniform_resource_identifier", value=role)
    claimed = cms.AttCertAttribute({"type": "role",
                                    "values": [cms.RoleSyntax({"role_name": name})]})
    return CAdESSignedAttrSpec(signer_attributes=SignerAttrSpec(claimed_attrs=[claimed],
                                                                certified_attrs=[]))


def claimed_roles(status) -> list[str]:
    """The roles a validated signature claims (its CAdES claimed ``role`` attributes)."""
    attrs = getattr(status, "cades_signer_attrs", None)
    if attrs is None or "role" not in attrs.claimed_attrs:
        return []
    return [str(value["role_name"].native) for value in attrs.claimed_attrs["role"].attr_values]


def sign_pdf(pdf: bytes, signer: Signer, *, reason: str,
             field_name: str = "ExaminerSignature") -> bytes:
    """``pdf`` with a PAdES signature appended as an incremental update, in a new signature
    field ``field_name``; the signer's role as a claimed CAdES signer attribute and in the
    location field."""
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import fields, signers

    meta = signers.PdfSignatureMetadata(
        field_name=field_name, name=signer.name, reason=reason,
        location=f"signed as {signer.role}" if signer.role else None,
        subfilter=fields.SigSeedSubFilter.PADES, md_algorithm="sha256",
        cades_signed_attr_spec=_role_attributes(signer.role),
    )
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf), strict=False)
    out = signers.sign_pdf(writer, meta, signer=signer.signer)
    return out.getvalue()


def add_signature(report, signer: Signer) -> bytes:
    """A further signature (a reviewer's sign-off) appended to a report PDF.

    ``report`` is a :class:`~forensic_lr.casework.verify.ReportFile`
    (:func:`~forensic_lr.casework.verify.read_report`). Refused: a draft, and a file whose
    present signatures do not all check (a sign-off must not bless a changed file). The new
    signature goes into its own field named after the role (``ReviewerSignature``; a number
    is added when that name is taken), as an incremental update: the first revision, the one
    ``verify`` re-renders, is untouched, and every earlier signature still covers its own
    revision.
    """
    from pyhanko.pdf_utils.reader import PdfFileReader

    record = report.content
    if record.get("draft"):
        raise InputError("is a draft: drafts are never signed; sign the final report",
                         path=str(report.path))
    broken = [c.text for c in check_signatures(report.data) if not c.ok]
    if broken:
        raise InputError(f"its signatures do not check, so it is not signed again: {broken[0]}",
                         path=str(report.path))
    base = "".join(w.capitalize() for w in (signer.role or "reviewer").split()
                   if w.isalnum()) or "Reviewer"
    taken = {s.field_name for s in
             PdfFileReader(io.BytesIO(report.data), strict=False).embedded_signatures}
    field = next(f"{base}Signature{n or ''}" for n in range(len(taken) + 2)
                 if f"{base}Signature{n or ''}" not in taken)
    case_id = (record.get("case") or {}).get("id")
    reason = (f"evaluative report, case {case_id}" if report.is_case_report
              else "validation report")
    return sign_pdf(report.data, signer, reason=reason, field_name=field)


@dataclass(frozen=True)
class SignatureCheck:
    """One signature of a PDF as validated: ``ok`` when it is intact, cryptographically
    valid and covers the whole file (nothing was changed after it); ``text`` says who
    signed when, and what failed."""

    ok: bool
    text: str


def load_trust_anchors(paths) -> list:
    """The certificates of ``verify --trust`` files (PEM or DER, several per PEM file)."""
    from pyhanko.keys import load_certs_from_pemder

    anchors = []
    for path in paths:
        try:
            certs = list(load_certs_from_pemder([str(path)]))
        except OSError as exc:
            raise InputError(f"--trust: cannot read it: {exc.strerror or exc}",
                             path=str(path)) from None
        except Exception:  # not a certificate: asn1crypto/PEM parsers raise anything
            certs = []
        if not certs:
            raise InputError("--trust: holds no X.509 certificate (give the trust anchor's "
                             "certificate as PEM or DER)", path=str(path))
        anchors += certs
    return anchors


def _cover_problem(status, last: bool) -> str | None:
    """What is wrong with what a signature covers, or None.

    The last signature must cover the whole file. An earlier one covers its own revision;
    the revisions after it may only add signatures (pyHanko's difference analysis:
    modification level no more than form filling, which includes adding a signature), and
    the last signature then covers all of them.
    """
    from pyhanko.sign.diff_analysis import ModificationLevel
    from pyhanko.sign.validation.status import SignatureCoverageLevel

    if status.coverage == SignatureCoverageLevel.ENTIRE_FILE:
        return None
    if (not last and status.coverage == SignatureCoverageLevel.ENTIRE_REVISION
            and status.modification_level is not None
            and status.modification_level <= ModificationLevel.FORM_FILLING):
        return None
    return "the file was changed after signing (the signature does not cover all of it)"


def check_signatures(data: bytes, trust: list | None = None) -> list[SignatureCheck]:
    """Validate every signature of a PDF with pyHanko, in signing order (empty: unsigned).

    Without ``trust`` the signer's certificate is not judged: no trust list is consulted
    and nothing is fetched (the same answer everywhere); the check says the signature is
    intact and that the signer was not checked against a trust anchor, and gives the
    certificate's SHA-256 fingerprint to compare with the one the laboratory publishes.
    With ``trust`` (certificates from :func:`load_trust_anchors`) a signature is valid
    only when the signer's certificate chains to one of them (RFC 5280 path validation by
    pyHanko's certificate validator, nothing fetched).
    """
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko_certvalidator import ValidationContext

    try:
        reader = PdfFileReader(io.BytesIO(data), strict=False)
        embedded_signatures = reader.embedded_signatures
    except Exception as exc:  # a damaged file may fail anywhere in the parser
        raise InputError(f"its signatures cannot be read: the file is damaged "
                         f"({type(exc).__name__}: {str(exc)[:160]})") from None
    context = ValidationContext(trust_roots=list(trust or []), allow_fetching=False)
    checks = []
    for number, embedded in enumerate(embedded_signatures, start=1):
        last = number == len(embedded_signatures)
        try:
            with _quiet_pyhanko():
                status = validate_pdf_signature(embedded, context)
        except Exception as exc:  # a damaged signature may fail anywhere in the validator
            checks.append(SignatureCheck(False, f"signature {embedded.field_name!r} cannot be "
                                         f"validated ({type(exc).__name__}: {str(exc)[:160]})"))
            continue
        cert = status.signing_cert
        who = cert.subject.human_friendly
        when = status.signer_reported_dt.isoformat() if status.signer_reported_dt else "?"
        fingerprint = cert.sha256.hex()
        sig = embedded.sig_object
        details = "; ".join([*(f"{k[1:].lower()}: {sig[k]}" for k in ("/Reason", "/Location")
                                 if k in sig),
                               *(f"role (signed attribute): {r}" for r in claimed_roles(status))])
        problems = []
        if not status.intact:
            problems.append("the file's bytes do not match the signed digest: it was changed "
                            "after signing")
        elif not status.valid:
            problems.append("the signature value does not verify with the signer's key")
        cover = _cover_problem(status, last)
        if cover:
            problems.append(cover)
        if trust is None:
            verdict = "signature intact, signer not checked against a trust anchor"
            trusted = ("compare it with the one the laboratory publishes, or give the "
                       "laboratory's certificate with --trust")
        elif status.trusted:
            verdict = "signature valid and trusted"
            trusted = "chains to a --trust certificate"
        else:
            verdict = "signature intact but NOT trusted"
            problems.append("the signer's certificate does not chain to any --trust "
                            "certificate")
            trusted = "no chain to a --trust certificate"
        text = (f"signature {number} of {len(embedded_signatures)}: signed by {who} at {when} "
                f"({details}; certificate SHA-256 {fingerprint}, {trusted})")
        if problems:
            text = f"INVALID signature: {'; '.join(problems)} - {text}"
        else:
            text = f"{verdict}: {text}"
        checks.append(SignatureCheck(not problems, text))
    return checks
