"""Digital signatures of final reports (PAdES, with pyHanko) and their validation.

A laboratory whose profile has a ``[signing]`` table signs every final report:

.. code-block:: toml

    [signing]
    certificate = "keys/examiner.p12"        # PKCS#12 file, relative to the profile
    passphrase_env = "FORENSIC_LR_P12_PASSPHRASE"  # the variable holding its passphrase
    role = "forensic examiner"
    tsa_url = "https://tsa.example.org/tsr"  # optional: PAdES-B-LTA (see _sign_lta)
    ca_certificates = ["keys/lab-ca.pem"]    # optional: CAs the chains end in

The passphrase is read from the environment variable the profile names, or asked for in
the terminal (never echoed) when the profile names none or the variable is unset; it is
never written to a file, a record or a message. Drafts are never signed.

The signature is a PAdES baseline signature (ETSI EN 319 142-1, B-B level: CMS with the
signing certificate and the signing time as signed attributes, sub-filter
``ETSI.CAdES.detached``) added as an incremental update, so the report's first revision
keeps the bytes forensic-lr wrote (``verify`` compares those). With a timestamp authority
(``tsa_url``) it is PAdES-B-LTA instead: timestamped, with the validation data in the
document security store and a document timestamp over the whole file. Its reason is
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
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import InputError

__all__ = ["SignatureCheck", "Signer", "add_signature", "check_signatures", "claimed_roles",
           "lab_signer", "load_signer", "load_trust_anchors", "pkcs12_signer", "profile_signer",
           "sign_pdf", "validation_data"]


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
    """A loaded signing key (pyHanko ``SimpleSigner``) with who signs and as what.

    With ``tsa_url`` (a timestamp authority, RFC 3161) signatures are made PAdES-B-LTA
    (:func:`sign_pdf`); ``ca_certificates`` are the certificates (asn1crypto) the signer's
    and the timestamp authority's certificates chain to.
    """

    signer: object
    name: str
    role: str
    tsa_url: str | None = None
    ca_certificates: tuple = ()


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
                role: str = "", tsa_url: str | None = None,
                ca_certificates=()) -> Signer:
    """Open a PKCS#12 file with its passphrase (see :func:`_passphrase`).

    ``tsa_url`` and ``ca_certificates`` (paths of PEM or DER files) make its signatures
    PAdES-B-LTA (:func:`sign_pdf`).

    Raises
    ------
    InputError
        The file is missing, or the passphrase does not open it, or a CA certificate file
        holds no certificate.
    """
    path = Path(certificate)
    if not path.is_file():
        raise InputError("[signing] certificate: no such file", path=str(path))
    signer = pkcs12_signer(path.read_bytes(), _passphrase(passphrase_env, path), role=role)
    if signer is None:
        raise InputError("[signing] certificate: cannot open it with the passphrase given "
                         "(wrong passphrase, or not a PKCS#12 file)", path=str(path))
    cas = tuple(_load_certs(ca_certificates, "[signing] ca_certificates"))
    return replace(signer, tsa_url=tsa_url, ca_certificates=cas)


def pkcs12_signer(data: bytes, passphrase: bytes, *, role: str = "") -> Signer | None:
    """The signer of a PKCS#12 file's bytes opened with ``passphrase`` (both held only by
    the caller, e.g. a reviewer's upload in the web app), or None when the passphrase does
    not open it or it is no PKCS#12 file. Its name is the certificate holder's (subject
    common name)."""
    from pyhanko.sign import signers

    try:
        with _quiet_pyhanko():
            signer = signers.SimpleSigner.load_pkcs12_data(data, (), passphrase=passphrase)
    except (ValueError, TypeError, OSError):
        signer = None
    if signer is None:  # pyHanko logs and returns None for a wrong passphrase
        return None
    name = signer.signing_cert.subject.native.get("common_name") or \
        signer.signing_cert.subject.human_friendly
    return Signer(signer=signer, name=str(name), role=role)


def _profile_signer(profile_file: str | Path, signing, role: str) -> Signer:
    """The signer a profile's ``[signing]`` table names (paths relative to the profile)."""
    folder = Path(profile_file).resolve().parent
    return load_signer(folder / signing.certificate, passphrase_env=signing.passphrase_env,
                       role=role, tsa_url=signing.tsa_url,
                       ca_certificates=[folder / c for c in signing.ca_certificates])


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
    return _profile_signer(spec.lab.profile_file, signing, signing.role)


def lab_signer(profile_file: str | Path, *, role: str | None = None) -> Signer:
    """The signer a laboratory profile's ``[signing]`` table names, as ``role`` (default:
    the profile's role)."""
    from .profile import load_profile

    profile, _ = load_profile(profile_file)
    signing = profile.signing
    if signing.certificate is None:
        raise InputError("names no signing certificate: add a [signing] table with "
                         "certificate = \"FILE.p12\", or give --pkcs12", path=str(profile_file))
    return _profile_signer(profile_file, signing, signing.role if role is None else role)


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


def case_reason(case_id: str) -> str:
    """The signing reason of a case report: ``"evaluative report, case X"``."""
    return f"evaluative report, case {case_id}"


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
    _producer_as_in_xmp(writer)
    if signer.tsa_url:
        return _sign_lta(writer, meta, signer)
    out = signers.sign_pdf(writer, meta, signer=signer.signer)
    return out.getvalue()


def _producer_as_in_xmp(writer) -> None:
    """Keep the document information dictionary equivalent to the XMP metadata, as PDF/A
    requires (ISO 19005-3, 6.6.2.3): pyHanko writes its own name as the XMP
    ``pdf:Producer`` of the revision it adds but appends it to the dictionary's
    ``/Producer`` ("WeasyPrint ...; pyHanko ..."). The new revision's ``/Producer`` is set
    to pyHanko's name, which pyHanko then leaves as it is; the first revision keeps
    WeasyPrint's."""
    from pyhanko.pdf_utils import generic
    from pyhanko.pdf_utils.metadata.model import VENDOR

    try:
        info = writer.trailer.raw_get("/Info")
    except KeyError:  # no information dictionary: pyHanko writes only XMP
        return
    if not isinstance(info, generic.IndirectObject):
        return
    entries = info.get_object()
    if str(entries.get("/Producer", "")) != VENDOR:
        entries["/Producer"] = generic.TextStringObject(VENDOR)
        writer.mark_update(info)


def _sign_lta(writer, meta, signer: Signer) -> bytes:
    """Sign as PAdES-B-LTA (ETSI EN 319 142-1): the signature gets a signature timestamp
    from the timestamp authority (B-T); the certificates of the signer's and the timestamp
    authority's chains and their revocation data (CRLs, OCSP responses, fetched from the
    addresses the certificates name) go into the document security store (DSS, B-LT); a
    document timestamp over everything, DSS included, closes the file (B-LTA).

    The chains are validated before anything is signed, with ``ca_certificates`` as trust
    anchors (the system's when none are given); revocation is checked hard-fail: a
    certificate naming a CRL or OCSP responder that cannot be reached stops the signing.
    The DSS goes into the document timestamp's revision, without the (deprecated) VRI
    dictionary, so the document timestamp covers the whole file; its field is named after
    the signature's (``ExaminerSignatureTimestamp``).
    """
    import aiohttp
    from pyhanko.sign import signers
    from pyhanko.sign.general import SigningError
    from pyhanko.sign.signers.pdf_signer import DSSContentSettings, TimestampDSSContentSettings
    from pyhanko.sign.timestamps import HTTPTimeStamper, TimestampRequestError
    from pyhanko_certvalidator import ValidationContext
    from pyhanko_certvalidator.errors import (
        InvalidCertificateError,
        PathBuildingError,
        PathValidationError,
        ValidationError,
    )

    context = ValidationContext(
        trust_roots=list(signer.ca_certificates) or None,
        other_certs=list(signer.signer.cert_registry), allow_fetching=True,
        revocation_mode="hard-fail")
    meta = replace(
        meta, embed_validation_info=True, use_pades_lta=True, validation_context=context,
        timestamp_field_name=f"{meta.field_name}Timestamp",
        dss_settings=DSSContentSettings(include_vri=False, next_ts_settings=(
            TimestampDSSContentSettings(include_vri=False, update_before_ts=True))))
    timestamper = HTTPTimeStamper(signer.tsa_url, timeout=30)
    try:
        with _quiet_pyhanko():
            out = signers.PdfSigner(meta, signer.signer, timestamper=timestamper) \
                .sign_pdf(writer)
    except (TimestampRequestError, aiohttp.ClientError, OSError) as exc:
        raise InputError(f"[signing] tsa_url: the timestamp authority at {signer.tsa_url} "
                         f"gave no timestamp ({type(exc).__name__}: {str(exc)[:200]}); check "
                         "the address and the network, or remove tsa_url to sign without a "
                         "timestamp (PAdES-B-B)") from None
    except SigningError as exc:
        raise InputError(f"the report cannot be signed: {str(exc)[:300]}") from None
    except (PathBuildingError, PathValidationError, InvalidCertificateError,
            ValidationError) as exc:
        raise InputError("[signing] ca_certificates: the long-term validation data cannot be "
                         "collected: a certificate chain (the signer's or the timestamp "
                         "authority's) does not validate or its revocation data cannot be "
                         f"fetched ({type(exc).__name__}: {str(exc)[:200]}); name the CA "
                         "certificates both chain to") from None
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
    reason = case_reason(case_id) if report.is_case_report else "validation report"
    return sign_pdf(report.data, signer, reason=reason, field_name=field)


@dataclass(frozen=True)
class SignatureCheck:
    """One signature of a PDF as validated: ``ok`` when it is intact, cryptographically
    valid and covers the whole file (nothing was changed after it); ``text`` says who
    signed when, and what failed (``kind``, ``signer``, ``time`` and ``roles`` the same
    for a table)."""

    ok: bool
    text: str
    #: "signature" or "document timestamp"; who signed (the certificate's common name: the
    #: timestamp authority's for a document timestamp), when (ISO 8601: the signer's clock,
    #: or the timestamp's time) and the roles a signature claims (signed attributes); empty
    #: when the signature cannot be read
    kind: str = "signature"
    signer: str = ""
    time: str = ""
    roles: tuple[str, ...] = ()


def load_trust_anchors(paths) -> list:
    """The certificates of ``verify --trust`` files (PEM or DER, several per PEM file)."""
    return _load_certs(paths, "--trust")


def _load_certs(paths, what: str) -> list:
    """The X.509 certificates in PEM or DER files; ``what`` (the option or key) names them
    in errors."""
    from pyhanko.keys import load_certs_from_pemder

    certs = []
    for path in paths:
        try:
            found = list(load_certs_from_pemder([str(path)]))
        except OSError as exc:
            raise InputError(f"{what}: cannot read it: {exc.strerror or exc}",
                             path=str(path)) from None
        except Exception:  # not a certificate: asn1crypto/PEM parsers raise anything
            found = []
        if not found:
            raise InputError(f"{what}: holds no X.509 certificate (give the certificate as "
                             "PEM or DER)", path=str(path))
        certs += found
    return certs


def _cover_problem(status, last: bool) -> str | None:
    """What is wrong with what a signature (or document timestamp) covers, or None.

    The last one must cover the whole file. An earlier one covers its own revision;
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


def _trust_words(trust: list | None, trusted: bool, who: str) -> tuple[str, str | None]:
    """(what is said of ``who``'s certificate, the problem or None) under ``--trust``."""
    if trust is None:
        return ("compare it with the one the laboratory publishes, or give the laboratory's "
                "certificate with --trust"), None
    if trusted:
        return "chains to a --trust certificate", None
    return ("no chain to a --trust certificate",
            f"the {who}'s certificate does not chain to any --trust certificate")


def _timestamp_words(status, trust: list | None) -> tuple[str, list[str]]:
    """What a signature's timestamp token (RFC 3161, from a timestamp authority) says, and
    what is wrong with it: ``status`` is pyHanko's timestamp validity."""
    tsa = status.signing_cert.subject.human_friendly if status.signing_cert else "?"
    problems = []
    if not (status.intact and status.valid):
        problems.append("the timestamp token does not verify")
    said, problem = _trust_words(trust, status.trusted, "timestamp authority")
    if problem:
        problems.append(problem)
    if trust is None:
        said = "not checked against a trust anchor"
    return f"timestamped at {status.timestamp.isoformat()} by {tsa} ({said})", problems


def _check_one(embedded, context, trust: list | None, label: str, last: bool) -> SignatureCheck:
    """Validate one signature or document timestamp (``label``: "signature 1 of 2")."""
    from pyhanko.sign.validation import validate_pdf_signature, validate_pdf_timestamp

    stamp = embedded.sig_object.get("/Type") == "/DocTimeStamp"
    kind = "document timestamp" if stamp else "signature"
    try:
        with _quiet_pyhanko():
            status = (validate_pdf_timestamp(embedded, context) if stamp
                      else validate_pdf_signature(embedded, context))
    except Exception as exc:  # a damaged signature may fail anywhere in the validator
        return SignatureCheck(False, f"{label} {embedded.field_name!r} cannot be validated "
                              f"({type(exc).__name__}: {str(exc)[:160]})", kind=kind)
    problems = []
    if not status.intact:
        problems.append("the file's bytes do not match the signed digest: it was changed "
                        "after signing")
    elif not status.valid:
        problems.append("the signature value does not verify with the signer's key")
    cover = _cover_problem(status, last)
    if cover:
        problems.append(cover)
    cert = status.signing_cert
    said, problem = _trust_words(trust, status.trusted,
                                 "timestamp authority" if stamp else "signer")
    if problem:
        problems.append(problem)
    fingerprint = f"certificate SHA-256 {cert.sha256.hex()}, {said}"
    table = {"kind": kind,
             "signer": str(cert.subject.native.get("common_name")
                           or cert.subject.human_friendly),
             "roles": () if stamp else tuple(claimed_roles(status))}
    if stamp:
        table["time"] = status.timestamp.isoformat()
        text = (f"{label}: at {table['time']} by "
                f"{cert.subject.human_friendly} ({fingerprint})")
    else:
        sig = embedded.sig_object
        details = [*(f"{k[1:].lower()}: {sig[k]}" for k in ("/Reason", "/Location") if k in sig),
                   *(f"role (signed attribute): {r}" for r in claimed_roles(status))]
        when = status.signer_reported_dt.isoformat() if status.signer_reported_dt else "?"
        table["time"] = when
        text = (f"{label}: signed by {cert.subject.human_friendly} at {when} "
                f"({'; '.join([*details, fingerprint])})")
        if status.timestamp_validity is not None:
            stamped, stamp_problems = _timestamp_words(status.timestamp_validity, trust)
            text += f"; {stamped}"
            problems += stamp_problems
    if problems:
        return SignatureCheck(False, f"INVALID {kind}: {'; '.join(problems)} - {text}",
                              **table)
    if trust is None:
        verdict = ("document timestamp intact, timestamp authority not checked against a "
                   "trust anchor" if stamp else
                   "signature intact, signer not checked against a trust anchor")
    else:
        verdict = "document timestamp valid and trusted" if stamp else \
            "signature valid and trusted"
    return SignatureCheck(True, f"{verdict}: {text}", **table)


def check_signatures(data: bytes, trust: list | None = None) -> list[SignatureCheck]:
    """Validate every signature and document timestamp of a PDF with pyHanko, in signing
    order (empty: unsigned). Signatures are numbered "signature N of M", document
    timestamps (PAdES-B-LTA) "document timestamp N of M".

    Without ``trust`` the signer's certificate is not judged: no trust list is consulted
    and nothing is fetched (the same answer everywhere); the check says the signature is
    intact and that the signer was not checked against a trust anchor, and gives the
    certificate's SHA-256 fingerprint to compare with the one the laboratory publishes.
    With ``trust`` (certificates from :func:`load_trust_anchors`) a signature is valid
    only when the signer's certificate chains to one of them (RFC 5280 path validation by
    pyHanko's certificate validator, nothing fetched), and a timestamp only when the
    timestamp authority's does.
    """
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko_certvalidator import ValidationContext

    try:
        reader = PdfFileReader(io.BytesIO(data), strict=False)
        embedded_signatures = reader.embedded_signatures
    except Exception as exc:  # a damaged file may fail anywhere in the parser
        raise InputError(f"its signatures cannot be read: the file is damaged "
                         f"({type(exc).__name__}: {str(exc)[:160]})") from None
    context = ValidationContext(trust_roots=list(trust or []), allow_fetching=False)
    stamps = [e.sig_object.get("/Type") == "/DocTimeStamp" for e in embedded_signatures]
    totals = {True: sum(stamps), False: len(stamps) - sum(stamps)}
    seen = {True: 0, False: 0}
    checks = []
    for index, (embedded, stamp) in enumerate(zip(embedded_signatures, stamps, strict=True)):
        seen[stamp] += 1
        label = f"{'document timestamp' if stamp else 'signature'} {seen[stamp]} of " \
            f"{totals[stamp]}"
        checks.append(_check_one(embedded, context, trust, label,
                                 last=index == len(stamps) - 1))
    return checks


def validation_data(data: bytes) -> str | None:
    """What long-term validation data a PDF holds (its document security store, DSS:
    certificates, CRLs, OCSP responses), or None without a DSS."""
    from pyhanko.pdf_utils.reader import PdfFileReader

    try:
        dss = PdfFileReader(io.BytesIO(data), strict=False).root.get("/DSS")
        dss = dss.get_object() if dss is not None else None
    except Exception:  # a damaged file: check_signatures says so
        return None
    if dss is None:
        return None
    counts = {key: len(dss[key].get_object()) if key in dss else 0
              for key in ("/Certs", "/CRLs", "/OCSPs")}
    return (f"long-term validation data (document security store): {counts['/Certs']} "
            f"certificate(s), {counts['/CRLs']} CRL(s), {counts['/OCSPs']} OCSP response(s)")
