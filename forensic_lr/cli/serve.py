"""``forensic-lr serve``: the local web app for examiners, reviewers and courses.

Starts :func:`forensic_lr.web.app.create_app` on uvicorn, bound to 127.0.0.1 unless
``--host`` says otherwise, with a token (random unless ``--token``) printed as a
ready-to-open address. ``--add-user NAME`` registers a user (the first administrator) and
``--check-audit`` checks the audit log's hash chain; both then exit. The web stack is
imported only here, inside :func:`run`.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import InputError
from .common import EXIT_OK

#: Exit status of ``--check-audit`` for a broken chain (as ``verify`` for a difference).
EXIT_AUDIT_BROKEN = 1


def add_parser(sub) -> None:
    """Add the ``serve`` subcommand."""
    p = sub.add_parser("serve", help="start the local web app (cases, review, teaching view)")
    p.add_argument("--cases", default="cases", metavar="DIR",
                   help="the cases folder: one folder per case and the register (created if "
                   "missing; default ./cases)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--token", default=None,
                   help="the token scripts and the first browser visit give (default: random)")
    p.add_argument("--lab", metavar="LAB.toml", default=None,
                   help="the laboratory's profile, applied to every case as `run --lab` does")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="another Host name the server answers to (repeatable; e.g. the "
                   "machine's name when --host is not loopback)")
    p.add_argument("--max-upload", type=int, default=50, metavar="MB",
                   help="largest upload in MB (default 50)")
    p.add_argument("--add-user", metavar="NAME",
                   help="register a user and exit; the password is read from the variable "
                   "--password-env names, else asked in the terminal")
    p.add_argument("--role", choices=("examiner", "reviewer", "administrator"),
                   default="administrator", help="the role of --add-user (default administrator)")
    p.add_argument("--password-env", metavar="VAR",
                   help="environment variable holding --add-user's password")
    p.add_argument("--check-audit", action="store_true",
                   help="check the audit log's hash chain of --cases and exit (0 intact, 1 not)")
    p.set_defaults(func=run)


def _add_user(args: argparse.Namespace) -> int:
    import getpass

    from ..web.register import Register

    if args.password_env:
        password = os.environ.get(args.password_env)
        if password is None:
            raise InputError(f"--password-env {args.password_env}: the variable is not set")
    elif sys.stdin.isatty():
        password = getpass.getpass(f"password for {args.add_user}: ")
        if getpass.getpass("again: ") != password:
            raise InputError("the two passwords differ; nothing was registered")
    else:
        raise InputError("give the password in a variable (--password-env VAR) or run in a "
                         "terminal to type it")
    os.makedirs(args.cases, exist_ok=True)
    Register(args.cases).add_user(args.add_user, args.role, password, by="serve --add-user")
    if not args.quiet:
        print(f"registered {args.add_user} ({args.role}) in {args.cases}")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    """``forensic-lr serve``: add a user, check the audit log, or start the server."""
    if args.check_audit:
        from ..web.register import check_audit

        problems = check_audit(args.cases)
        for text in problems:
            print(f"audit log: {text}")
        if not problems and not args.quiet:
            print(f"audit log of {args.cases}: intact")
        return EXIT_AUDIT_BROKEN if problems else EXIT_OK
    if args.add_user:
        return _add_user(args)
    if not 0 < args.port < 65536:
        raise InputError(f"--port {args.port}: choose a port from 1 to 65535")
    if args.max_upload <= 0:
        raise InputError("--max-upload: a positive number of MB")
    if args.lab is not None and not os.path.isfile(args.lab):
        raise InputError(f"--lab {args.lab}: no such file")
    import ipaddress
    from pathlib import Path

    import uvicorn

    from ..web.app import ServerConfig, create_app
    from ..web.security import new_token

    token = args.token or new_token()
    config = ServerConfig(cases=Path(args.cases), token=token, host=args.host,
                          lab=Path(args.lab) if args.lab else None,
                          allow_hosts=tuple(args.allow_host),
                          max_upload=args.max_upload * 2**20)
    app = create_app(config)
    try:
        loopback = ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        loopback = args.host == "localhost"
    if not loopback:
        print(f"warning: --host {args.host} lets other machines reach the server; anyone with "
              "the token or a user's password can read and change the cases", file=sys.stderr)
    name = f"[{args.host}]" if ":" in args.host else args.host
    print(f"forensic-lr serve: cases in {Path(args.cases).resolve()}")
    print(f"open http://{name}:{args.port}/?token={token}")
    sys.stdout.flush()
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False)
    return EXIT_OK
