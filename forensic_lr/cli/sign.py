"""``forensic-lr sign REPORT.pdf --role reviewer (--lab LAB.toml | --pkcs12 FILE.p12)``.

Adds a further PAdES signature (a reviewer's sign-off) to a final report as an incremental
update (:func:`forensic_lr.casework.signing.add_signature`); ``verify`` then lists every
signer in signing order and still compares the report's first revision with a re-run.
"""

from __future__ import annotations

import argparse

from .common import EXIT_OK


def add_parser(sub) -> None:
    """Add the ``sign`` subcommand."""
    p = sub.add_parser(
        "sign", help="add a signature (a reviewer's sign-off) to a final report PDF",
        description="Add a PAdES signature to a final report PDF as an incremental update, "
        "keeping the revisions before it (and their signatures) intact. Drafts are refused, "
        "and so is a file whose present signatures do not check. The certificate comes from "
        "--pkcs12 or from the [signing] table of the --lab profile; its passphrase from the "
        "environment variable --passphrase-env (or the profile's passphrase_env) or, in a "
        "terminal, a prompt. It is never written anywhere.",
    )
    p.add_argument("report", metavar="REPORT.pdf", help="the report's PDF file")
    p.add_argument("--role", default="reviewer",
                   help="the role the signer signs in (default: reviewer)")
    p.add_argument("--lab", metavar="LAB.toml", default=None,
                   help="a laboratory profile whose [signing] table names the certificate")
    p.add_argument("--pkcs12", metavar="FILE.p12", default=None,
                   help="the signer's PKCS#12 file (instead of the profile's certificate)")
    p.add_argument("--passphrase-env", metavar="VARIABLE", default=None,
                   help="the environment variable holding the PKCS#12 passphrase")
    p.add_argument("--out", metavar="OUT.pdf", default=None,
                   help="where to write the signed report (default: REPORT.pdf itself, "
                   "which needs --force)")
    p.add_argument("--force", action="store_true", help="replace an existing output file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``forensic-lr sign REPORT.pdf``: write the report with one more signature."""
    from ..casework.signing import add_signature, lab_signer, load_signer
    from ..casework.verify import read_report
    from ..errors import InputError
    from ..output import check_output_file, write_file

    out = args.out or args.report
    check_output_file(out, force=args.force, option="--out")  # before the passphrase
    report = read_report(args.report)
    if args.pkcs12:
        signer = load_signer(args.pkcs12, passphrase_env=args.passphrase_env, role=args.role)
    elif args.lab:
        signer = lab_signer(args.lab, role=args.role)
    else:
        raise InputError("sign: give the signer's certificate with --pkcs12 FILE.p12 or a "
                         "laboratory profile with a [signing] table with --lab LAB.toml")
    write_file(out, add_signature(report, signer), force=args.force, option="--out")
    if not getattr(args, "quiet", False):
        print(f"{out}: signed by {signer.name} as {signer.role}")
    return EXIT_OK
