"""Routes of ``forensic-lr serve``: the JSON API and the pages (Starlette).

:func:`create_app` builds the application for a cases folder. Every route authenticates
(:func:`_user`), every state change made with a browser session checks its CSRF token,
and every number shown comes from the library (through :mod:`.cases` and :mod:`.teaching`).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import __version__
from ..errors import ForensicLRError, InputError
from .cases import CASE_FILE, CaseStore, UploadError, sha256
from .register import Conflict, User
from .security import (
    COOKIE,
    CSRF_HEADER,
    SERVICE_USER,
    HostCheck,
    LoginLimit,
    Sessions,
    allowed_hosts,
    new_token,
    token_matches,
)
from .teaching import TEXTBOOK, Teaching, example_backgrounds

__all__ = ["ServerConfig", "create_app"]

HERE = Path(__file__).parent
#: Files a run's report set offers for download, and their media types.
DOWNLOADS = {"report.pdf": "application/pdf", "report.html": "text/html; charset=utf-8",
             "result.json": "application/json"}
#: The report HTML shown inside the page: its own inline styles and data: images, no scripts.
REPORT_CSP = (b"default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
              b"frame-ancestors 'self'; sandbox")
LOGIN_COOKIE = "forensic_lr_login"
#: The largest sign-off form (a PKCS#12 file of a few kB and its passphrase): small enough
#: that the form parser keeps it in memory, never in a temporary file.
SIGN_FORM_LIMIT = 256 * 2**10
#: The role a reviewer's sign-off signature claims (as ``forensic-lr sign``'s default).
REVIEWER_ROLE = "reviewer"


@dataclass
class ServerConfig:
    """What ``serve`` was started with."""

    cases: Path
    token: str
    host: str = "127.0.0.1"
    lab: Path | None = None
    allow_hosts: tuple[str, ...] = ()
    max_upload: int = 50 * 2**20
    secure_cookie: bool = False  # behind a TLS proxy: cookies only over https
    #: the time in seconds (session expiry, login rate limit); tests move it
    clock: Callable[[], float] = time.time


def _templates():
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    env = Environment(loader=PackageLoader("forensic_lr.web", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      undefined=StrictUndefined)
    env.globals["version"] = __version__
    return env


def json_diff(a: Any, b: Any, path: str = "", limit: int = 200) -> list[dict[str, Any]]:
    """The leaves of two JSON documents that differ: ``{"path", "a", "b", "change"}``, where
    ``change`` is ``b - a`` for two numbers (else None); at most ``limit`` rows."""
    rows: list[dict[str, Any]] = []

    def walk(x, y, at):
        if len(rows) >= limit:
            return
        if isinstance(x, dict) and isinstance(y, dict):
            for key in dict.fromkeys([*x, *y]):
                walk(x.get(key), y.get(key), f"{at}.{key}" if at else str(key))
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            for i, (u, v) in enumerate(zip(x, y, strict=True)):
                walk(u, v, f"{at}[{i}]")
        elif x != y:
            numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (x, y))
            rows.append({"path": at, "a": x, "b": y,
                         "change": (y - x) if numbers else None})

    walk(a, b, path)
    return rows


def create_app(config: ServerConfig) -> Any:
    """The ASGI application: routes wrapped in the Host check (:class:`HostCheck`)."""
    store = CaseStore(config.cases, lab=config.lab, max_upload=config.max_upload)
    sessions = Sessions(store.register, config.token, clock=config.clock)
    login_limit = LoginLimit(store.register, clock=config.clock)
    teaching = Teaching()
    env = _templates()

    # ------------------------------------------------------------ authentication
    def session_of(request: Request):
        return sessions.get(request.cookies.get(COOKIE))

    async def user_of(request: Request, *, api: bool, unsafe: bool,
                      form: Any = None) -> User:
        """The requesting user; 401 (API) or a redirect to the login page (pages); 403
        when a state change made with a session lacks its CSRF token."""
        auth = request.headers.get("authorization", "")
        if auth:
            scheme, _, given = auth.partition(" ")
            if scheme.lower() == "bearer" and token_matches(given.strip(), config.token):
                return SERVICE_USER
            raise HTTPException(401, "wrong token")
        session = session_of(request)
        if not api and "token" in request.query_params:
            raise HTTPException(303, headers=token_login(request))
        if session is None:
            if api:
                raise HTTPException(401, "give the server's token as 'Authorization: Bearer "
                                         "TOKEN', or log in")
            raise HTTPException(303, headers={"location": "/login"})
        if unsafe:
            given = request.headers.get(CSRF_HEADER)
            if given is None and form is not None:
                given = form.get("csrf")
            if not token_matches(given if isinstance(given, str) else None, session.csrf):
                raise HTTPException(403, "missing or wrong CSRF token: reload the page")
        return session.user

    def page(name: str, request: Request, status: int = 200, **context) -> HTMLResponse:
        session = session_of(request)
        html = env.get_template(name).render(
            user=session.user if session else None, csrf=session.csrf if session else "",
            **context)
        return HTMLResponse(html, status_code=status)

    def token_login(request: Request) -> dict[str, str]:
        """``?token=T`` on a page: the headers of a redirect to the same page without the
        token, setting a session cookie for the service user (401 for a wrong token)."""
        if not token_matches(request.query_params.get("token"), config.token):
            raise HTTPException(401, "wrong token")
        response = Response()
        set_session(response, sessions.start(SERVICE_USER))
        return {"location": request.url.path, "set-cookie": response.headers["set-cookie"]}

    def set_session(response: Response, sid: str) -> None:
        response.set_cookie(COOKIE, sid, httponly=True, samesite="strict",
                            secure=config.secure_cookie, path="/")

    async def limited_body(request: Request, limit: int | None = None) -> None:
        """413 for a body over the upload limit (by its declared length), 411 without one
        (``limit``: a route's own, smaller limit)."""
        limit = config.max_upload if limit is None else limit
        length = request.headers.get("content-length")
        if length is None or not length.isdigit():
            if request.headers.get("transfer-encoding") or limit < config.max_upload:
                raise HTTPException(411, "send the request with a Content-Length")
            return
        if int(length) > limit:
            raise HTTPException(413, f"the request is larger than the upload limit of "
                                     f"{limit:,} bytes")

    async def upload(request: Request) -> tuple[bytes, list[tuple[str | None, bytes]], Any]:
        """The case part and the files of a multipart upload."""
        await limited_body(request)
        form = await request.form(max_files=200, max_fields=400)
        case = form.get("case")
        if case is None:
            raise UploadError("send the case file in a part named 'case'",
                              [{"field": "case", "message": "missing"}])
        text = await case.read() if isinstance(case, UploadFile) else str(case).encode()
        files = []
        for part in form.getlist("files"):
            if not isinstance(part, UploadFile):
                raise UploadError("each 'files' part must be a file with its file name",
                                  [{"field": "files", "message": "not a file"}])
            content = await part.read()
            if part.filename == "" and not content:
                continue  # an empty file input of a browser form
            files.append((part.filename, content))
        return text, files, form

    # ------------------------------------------------------------ API
    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "version": __version__})

    async def api_cases(request: Request) -> JSONResponse:
        if request.method == "GET":
            await user_of(request, api=True, unsafe=False)
            return JSONResponse({"cases": store.register.cases()})
        user = await user_of(request, api=True, unsafe=True)
        if not user.can("examiner"):
            raise HTTPException(403, "only an examiner creates cases")
        text, files, _ = await upload(request)
        key = await run_in_threadpool(store.create, text, files, user)
        return JSONResponse({"id": key}, status_code=201)

    def registered(key: str) -> dict[str, Any]:
        case = store.register.case(key)
        if case is None:
            raise HTTPException(404, f"no case {key!r}")
        return case

    async def api_case(request: Request) -> Response:
        key = request.path_params["key"]
        if request.method == "GET":
            await user_of(request, api=True, unsafe=False)
            return JSONResponse({**registered(key), "runs": store.register.runs(key)})
        user = await user_of(request, api=True, unsafe=True)
        case = registered(key)
        if request.method == "DELETE":
            if not user.can("administrator"):
                raise HTTPException(403, "only an administrator deletes a case")
            reason = request.query_params.get("reason", "")
            if not reason.strip():
                raise HTTPException(422, "give the reason of the deletion (?reason=...), e.g. "
                                         "the end of the retention period")
            end = store.retention_end(case)
            if dt.datetime.fromtimestamp(config.clock(), dt.UTC) < end:
                raise Conflict(f"case {key} is kept until {end:%Y-%m-%d} (the laboratory's "
                               "retention period from its closing); it cannot be deleted yet")
            await run_in_threadpool(delete_case, key, user, reason)
            return Response(status_code=204)
        if not (user.can("administrator") or user.name == case["owner"]):
            raise HTTPException(403, "only the case's examiner edits it")
        text, files, _ = await upload(request)
        await run_in_threadpool(store.edit, key, text, files, user)
        return JSONResponse({"id": key})

    def delete_case(key: str, user: User, reason: str) -> None:
        import shutil

        folder = store.folder(key)
        store.register.delete_case(key, by=user.name, reason=reason)
        shutil.rmtree(folder)

    async def api_runs(request: Request) -> JSONResponse:
        key = request.path_params["key"]
        if request.method == "GET":
            await user_of(request, api=True, unsafe=False)
            registered(key)
            return JSONResponse({"runs": store.register.runs(key)})
        user = await user_of(request, api=True, unsafe=True)
        case = registered(key)
        if not (user.can("administrator") or user.name == case["owner"]):
            raise HTTPException(403, "only the case's examiner runs it")
        body = await json_body(request, allow_empty=True)
        draft = body.get("draft", False)
        if not isinstance(draft, bool):
            raise HTTPException(422, "draft: true or false")
        run_id, result = await run_in_threadpool(store.run, key, user, draft=draft)
        return JSONResponse({"run_id": run_id, "result": json.loads(result)}, status_code=201)

    async def api_progress(request: Request) -> JSONResponse:
        await user_of(request, api=True, unsafe=False)
        key = request.path_params["key"]
        registered(key)
        progress = store.progress.get(key)
        runs = store.register.runs(key)
        return JSONResponse({"running": any(r["status"] == "running" for r in runs),
                             "progress": progress.to_dict() if progress else None,
                             "last": runs[-1] if runs else None})

    async def api_download(request: Request) -> Response:
        await user_of(request, api=True, unsafe=False)
        key, run, name = (request.path_params[k] for k in ("key", "run", "name"))
        registered(key)
        if name not in DOWNLOADS:
            raise HTTPException(404, f"a run offers {', '.join(DOWNLOADS)}")
        try:
            _, folder = store.run_folder(key, run)
        except KeyError:
            raise HTTPException(404, f"case {key}: no finished run {run!r}") from None
        path = folder / name
        if not path.is_file():
            raise HTTPException(404, f"the run did not write {name} (see [report] formats)")
        headers = {"content-security-policy": REPORT_CSP.decode()} if name.endswith(
            ".html") else {}
        disposition = "inline" if request.query_params.get("inline") else "attachment"
        return FileResponse(path, media_type=DOWNLOADS[name], headers=headers,
                            content_disposition_type=disposition,
                            filename=name)

    async def api_figure(request: Request) -> Response:
        await user_of(request, api=False, unsafe=False)
        key, run, name = (request.path_params[k] for k in ("key", "run", "name"))
        registered(key)
        if not re.fullmatch(r"[a-z0-9_]{1,64}\.svg", name):
            raise HTTPException(404, "no such figure")
        try:
            _, folder = store.run_folder(key, run)
        except KeyError:
            raise HTTPException(404, f"case {key}: no finished run {run!r}") from None
        path = folder / "figures" / name
        if not path.is_file():
            raise HTTPException(404, "no such figure")
        return FileResponse(path, media_type="image/svg+xml")

    async def api_audit(request: Request) -> JSONResponse:
        await user_of(request, api=True, unsafe=False)
        key = request.path_params["key"]
        registered(key)
        return JSONResponse({"entries": store.register.audit(key)})

    async def api_step(request: Request) -> JSONResponse:
        user = await user_of(request, api=True, unsafe=True)
        key, step = request.path_params["key"], request.path_params["step"]
        body = await json_body(request, allow_empty=True)
        await run_in_threadpool(workflow, key, step, user, body)
        return JSONResponse(registered(key))

    async def api_export(request: Request) -> Response:
        user = await user_of(request, api=True, unsafe=False)
        if not user.can("administrator"):
            raise HTTPException(403, "only an administrator exports a case")
        key = request.path_params["key"]
        registered(key)
        content = await run_in_threadpool(export_case, key, user)
        return Response(content, media_type="application/zip", headers={
            "content-disposition": f'attachment; filename="{key}.zip"'})

    def export_case(key: str, user: User) -> bytes:
        import io
        import zipfile

        folder = store.folder(key)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(folder.rglob("*")):
                if path.is_file() and not path.is_symlink():
                    archive.write(path, f"{key}/{path.relative_to(folder).as_posix()}")
            archive.writestr(f"{key}/audit.json", json.dumps(
                store.register.audit(key), indent=2, ensure_ascii=False))
        store.register.log(user.name, "case exported", key)
        return buffer.getvalue()

    async def json_body(request: Request, *, allow_empty: bool = False) -> dict[str, Any]:
        await limited_body(request)
        raw = await request.body()
        if not raw and allow_empty:
            return {}
        try:
            body = json.loads(raw)
        except (ValueError, RecursionError):
            raise HTTPException(422, "the body must be a JSON object") from None
        if not isinstance(body, dict):
            raise HTTPException(422, "the body must be a JSON object")
        return body

    async def api_lab(request: Request) -> JSONResponse:
        if request.method == "GET":
            await user_of(request, api=True, unsafe=False)
            lab = store.lab
            return JSONResponse({"set": lab is not None, "fixed": store.lab_fixed,
                                 "sha256": sha256(lab.read_bytes()) if lab else None,
                                 "text": lab.read_text(encoding="utf-8") if lab else None})
        user = await user_of(request, api=True, unsafe=True)
        if not user.can("administrator"):
            raise HTTPException(403, "only an administrator sets the laboratory's profile")
        await limited_body(request)
        form = await request.form(max_files=1, max_fields=2)
        part = form.get("profile")
        if not isinstance(part, UploadFile):
            raise UploadError("send the profile as a file in a part named 'profile'",
                              [{"field": "profile", "message": "missing"}])
        digest = await run_in_threadpool(store.set_lab, await part.read(), user)
        return JSONResponse({"set": True, "sha256": digest})

    async def api_lr(request: Request) -> JSONResponse:
        await user_of(request, api=True, unsafe=True)
        body = await json_body(request)
        record = await run_in_threadpool(calibrate_json, body)
        return JSONResponse(record)

    async def api_teaching_fit(request: Request) -> JSONResponse:
        await user_of(request, api=True, unsafe=True)
        allowed = {"example", "ss", "ds", "method", "elub", "subsample", "seed"}
        if request.headers.get("content-type", "").startswith("multipart/"):
            body = await teaching_upload(request)
        else:
            body = await json_body(request)
        unknown = sorted(set(body) - allowed)
        if unknown:
            raise HTTPException(422, f"unknown key(s) {unknown}; use {sorted(allowed)}")
        return JSONResponse(await run_in_threadpool(lambda: teaching.fit(**body)))

    async def teaching_upload(request: Request) -> dict[str, Any]:
        """A teaching fit's form: score files ``ss`` and ``ds`` read by the command line's
        reader (:func:`forensic_lr.io.scores.load_scores`), the options as text."""
        import tempfile

        from ..io.scores import load_scores
        from .cases import safe_file_name

        await limited_body(request)
        form = await request.form(max_files=2, max_fields=10)
        body: dict[str, Any] = {}
        for key in ("method", "example"):
            if key in form:
                body[key] = str(form[key])
        for key in ("subsample", "seed"):
            if form.get(key):
                try:
                    body[key] = int(str(form[key]))
                except ValueError:
                    raise HTTPException(422, f"{key}: a whole number") from None
        if "elub" in form:
            body["elub"] = str(form["elub"]).lower() in ("1", "true", "on")
        parts = {key: form.get(key) for key in ("ss", "ds")}
        if not all(isinstance(p, UploadFile) for p in parts.values()):
            raise UploadError("send two score files, in parts named 'ss' and 'ds'",
                              [{"field": "files", "message": "ss and ds needed"}])
        with tempfile.TemporaryDirectory(dir=store.root) as folder:
            paths = {}
            for key, part in parts.items():
                path = Path(folder) / key / safe_file_name(part.filename)
                path.parent.mkdir()
                path.write_bytes(await part.read())
                paths[key] = path
            try:
                data = await run_in_threadpool(lambda: load_scores(ss=paths["ss"],
                                                                   ds=paths["ds"]))
            except InputError as exc:  # named by the uploaded file's name, not the server's path
                raise InputError(str(exc).replace(f"{folder}/ss/", "").replace(
                    f"{folder}/ds/", "")) from None
        body["ss"], body["ds"] = data.ss, data.ds
        return body

    async def api_teaching_lr(request: Request) -> JSONResponse:
        await user_of(request, api=True, unsafe=False)
        q = request.query_params
        try:
            score, prior = float(q.get("score", "nan")), float(q.get("prior", "0"))
        except ValueError:
            raise HTTPException(422, "score and prior must be numbers") from None
        try:
            return JSONResponse(teaching.lr_at(request.path_params["fit"], score, prior))
        except KeyError:
            raise HTTPException(404, "this fit is no longer kept; fit again") from None

    # ------------------------------------------------------------ workflow
    def workflow(key: str, step: str, user: User, body: dict[str, Any]) -> None:
        """submit / review (approve or return) / finalize / withdraw, with their rules."""
        case = registered(key)
        comment = str(body.get("comment", ""))[:10_000]
        mine = user.name == case["owner"]
        reg = store.register
        if step == "submit":
            if not (mine or user.can("administrator")):
                raise HTTPException(403, "only the case's examiner submits it")
            runs = [r for r in reg.runs(key) if r["status"] == "done"]
            if not runs:
                raise HTTPException(409, "run the case before submitting it for review")
            reg.set_status(key, "submitted", by=user.name, action="submitted for review",
                           allowed_from=("draft",), run=runs[-1]["run_id"], comment=comment)
        elif step == "review":
            if not user.can("reviewer"):
                raise HTTPException(403, "only a reviewer reviews a case")
            if mine:
                raise HTTPException(403, "a reviewer cannot review their own case")
            decision = body.get("decision")
            if decision not in ("approve", "return"):
                raise HTTPException(422, "decision: approve or return")
            if decision == "return" and not comment.strip():
                raise HTTPException(422, "comment: say what the examiner should change")
            runs = [r for r in reg.runs(key) if r["status"] == "done"]
            reg.set_status(key, "reviewed" if decision == "approve" else "draft", by=user.name,
                           action=f"review: {'approved' if decision == 'approve' else 'returned'}",
                           allowed_from=("submitted",), run=runs[-1]["run_id"] if runs else None,
                           comment=comment)
        elif step == "finalize":
            if not (mine or user.can("administrator")):
                raise HTTPException(403, "only the case's examiner finalises it")
            if case["status"] != "reviewed":
                raise Conflict(f"case {key} is {case['status']}; finalised needs a case that "
                               "is reviewed")
            run_id = final_run(key, user)
            reg.set_status(key, "final", by=user.name, action="finalised",
                           allowed_from=("reviewed",), run=run_id, comment=comment)
        elif step == "withdraw":
            if not (mine or user.can("administrator")):
                raise HTTPException(403, "only the case's examiner withdraws it")
            reg.set_status(key, "withdrawn", by=user.name, action="withdrawn",
                           allowed_from=("draft", "submitted", "reviewed"), comment=comment)
        else:
            raise HTTPException(404, f"no step {step!r}")

    async def sign(request: Request) -> Response:
        """A reviewer's sign-off signature on the final report (page and API): a form with
        the reviewer's PKCS#12 file (``pkcs12``) and its passphrase (``passphrase``), both
        kept in memory for this request only (never written, logged or echoed)."""
        api = request.url.path.startswith("/api/")
        await limited_body(request, SIGN_FORM_LIMIT)
        form = await request.form(max_files=1, max_fields=4)
        user = await user_of(request, api=api, unsafe=True, form=form)
        key = request.path_params["key"]
        part, passphrase = form.get("pkcs12"), form.get("passphrase")
        if not isinstance(part, UploadFile) or not isinstance(passphrase, str):
            raise UploadError("send the signer's PKCS#12 file in a part named 'pkcs12' and its "
                              "passphrase in a field named 'passphrase'",
                              [{"field": "pkcs12", "message": "missing"}])
        data = await part.read()
        try:
            run_id, digest = await run_in_threadpool(reviewer_sign, key, user, data,
                                                     passphrase.encode("utf-8"))
        except InputError as exc:  # the page again, with the reason at the form
            if api:
                raise
            return await case_view(request, user, key, sign_error=str(exc),
                                   status=409 if isinstance(exc, Conflict) else 422)
        if api:
            return JSONResponse({**registered(key), "signed_run": run_id, "sha256": digest})
        return RedirectResponse(f"/cases/{key}", status_code=303)

    def reviewer_sign(key: str, user: User, data: bytes, passphrase: bytes) -> tuple[int, str]:
        """The rules of a sign-off: by the reviewer who approved the case (never its own
        examiner), on its final report; returns (run id, SHA-256 of the signed file)."""
        from ..casework.signing import pkcs12_signer

        case = registered(key)
        if user.name == case["owner"]:
            raise HTTPException(403, "a reviewer cannot sign their own case")
        if not user.can("reviewer"):
            raise HTTPException(403, "only a reviewer signs a case off")
        if case["status"] != "final":
            raise Conflict(f"case {key} is {case['status']}: the reviewer signs the final "
                           "report, once the examiner has made the case final")
        if user.name != case["reviewer"]:
            raise HTTPException(403, f"only the reviewer who approved the case "
                                     f"({case['reviewer']}) signs it off")
        run_id = [e for e in store.register.audit(key)
                  if e["action"] == "finalised"][-1]["details"]["run"]
        signer = pkcs12_signer(data, passphrase, role=REVIEWER_ROLE)
        if signer is None:
            raise UploadError("pkcs12: the passphrase does not open this file (wrong "
                              "passphrase, or not a PKCS#12 file)",
                              [{"field": "pkcs12", "message": "cannot be opened"}])
        if store.signer is not None:  # the laboratory's timestamp authority, if it has one
            signer = replace(signer, tsa_url=store.signer.tsa_url,
                             ca_certificates=store.signer.ca_certificates)
        return run_id, store.sign_off(key, run_id, signer, user)

    def final_run(key: str, user: User) -> int:
        """The final report: the case run again with the reviewer's approval in its record
        (the report's sign-off block); its results must be those the reviewer approved."""
        from ..records import Review

        approval = [e for e in store.register.audit(key) if e["action"].startswith("review:")][-1]
        review = Review(reviewer=approval["user"], date=approval["time"][:10],
                        comment=approval["details"].get("comment", ""))
        approved = approval["details"].get("run")
        run_id, result = store.run(key, user, review=review)
        base = store.root / key / "runs" / str(approved) / "result.json"
        new = {k: v for k, v in json.loads(result).items() if k != "review"}
        old = json.loads(base.read_bytes()) if base.is_file() else None
        if old is None or {k: v for k, v in old.items() if k != "review"} != new:
            raise Conflict(f"case {key}: run {run_id} does not give the results of the approved "
                           f"run {approved}; submit it for review again")
        return run_id

    # ------------------------------------------------------------ pages
    async def home(request: Request) -> Response:
        await user_of(request, api=False, unsafe=False)
        return page("cases.html", request, cases=store.register.cases())

    async def login(request: Request) -> Response:
        if request.method == "GET":
            if "token" in request.query_params:
                raise HTTPException(303, headers=token_login(request))
            nonce = request.cookies.get(LOGIN_COOKIE) or new_token()
            response = page("login.html", request, nonce=nonce, error="")
            response.set_cookie(LOGIN_COOKIE, nonce, httponly=True, samesite="strict")
            return response
        form = await request.form(max_files=0, max_fields=10)
        nonce = request.cookies.get(LOGIN_COOKIE)
        if not nonce or not token_matches(str(form.get("nonce", "")), nonce):
            raise HTTPException(403, "missing or wrong CSRF token: reload the login page")
        name = str(form.get("name", ""))
        address = request.client.host if request.client else ""
        wait = login_limit.wait(name, address)
        if wait:
            response = page("login.html", request, status=429, nonce=nonce,
                            error=f"too many failed logins: try again in {-(-wait // 60)} "
                                  "minute(s)")
            response.headers["retry-after"] = str(wait)
            return response
        user = await run_in_threadpool(store.register.authenticate, name,
                                       str(form.get("password", "")))
        if user is None:
            login_limit.failed(name, address)
            return page("login.html", request, status=401, nonce=nonce,
                        error="wrong user name or password")
        login_limit.succeeded(user.name)
        store.register.log(user.name, "logged in")
        response = RedirectResponse("/", status_code=303)
        set_session(response, sessions.start(user))
        return response

    async def logout(request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=10)
        await user_of(request, api=False, unsafe=True, form=form)
        sessions.end(request.cookies.get(COOKIE))
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    async def new_case(request: Request) -> Response:
        from .forms import EMPTY, FIELDS, FILE_FIELDS, case_document, form_errors

        if request.method == "GET":
            await user_of(request, api=False, unsafe=False)
            return page("new_case.html", request, fields=FIELDS, values=EMPTY, errors={},
                        message="", methods=method_list())
        await limited_body(request)
        form = await request.form(max_files=len(FILE_FIELDS), max_fields=200)
        user = await user_of(request, api=False, unsafe=True, form=form)
        values = {k: str(v) for k, v in form.items() if not isinstance(v, UploadFile)}
        files, names = [], {}
        for name in FILE_FIELDS:
            part = form.get(name)
            if isinstance(part, UploadFile) and part.filename:
                files.append((part.filename, await part.read()))
                names[name] = part.filename
        try:
            text = case_document(values, names)
            key = await run_in_threadpool(store.create, text.encode(), files, user)
        except (UploadError, Conflict) as exc:
            rows = exc.errors if isinstance(exc, UploadError) else [
                {"field": "[case] id", "message": str(exc)}]
            return page("new_case.html", request, status=422, fields=FIELDS,
                        values={**EMPTY, **values}, errors=form_errors(rows),
                        message=f"{len(rows)} problem(s): see the fields marked below",
                        methods=method_list())
        return RedirectResponse(f"/cases/{key}", status_code=303)

    async def case_page(request: Request) -> Response:
        user = await user_of(request, api=False, unsafe=False)
        return await case_view(request, user, request.path_params["key"])

    async def case_view(request: Request, user: User, key: str, *, status: int = 200,
                        sign_error: str = "") -> Response:
        """The case page (``sign_error``: why a sign-off was refused, shown at its form)."""
        case = registered(key)
        runs = store.register.runs(key)
        done = [r for r in runs if r["status"] == "done"]
        result = None
        if done:
            path = store.root / key / "runs" / str(done[-1]["run_id"]) / "result.json"
            if path.is_file():
                result = json.loads(path.read_bytes())
        # the diff a reviewer sees: to the run of the last review (approved or returned)
        reviewed = [e for e in store.register.audit(key) if e["action"].startswith("review:")]
        base = reviewed[-1]["details"].get("run") if reviewed else None
        diff = None
        if result is not None and base is not None and base != done[-1]["run_id"]:
            diff = run_diff(key, base, done[-1]["run_id"])
        signatures = None  # no report.pdf
        if done:
            pdf = store.root / key / "runs" / str(done[-1]["run_id"]) / "report.pdf"
            if pdf.is_file():
                signatures = await run_in_threadpool(report_signatures, pdf)
        sign_off = (case["status"] == "final" and user.name == case["reviewer"]
                    and user.name != case["owner"] and not any(
                        e["action"] == "report signed" and e["user"] == user.name
                        for e in store.register.audit(key)))
        return page("case.html", request, status=status, case=case, runs=runs, result=result,
                    signatures=signatures, sign_off=sign_off, sign_error=sign_error,
                    last_run=done[-1] if done else None, audit=store.register.audit(key),
                    running=any(r["status"] == "running" for r in runs), diff=diff, base=base,
                    case_text=(store.root / key / CASE_FILE).read_text(encoding="utf-8"))

    def run_diff(key: str, a: int, b: int) -> list[dict[str, Any]]:
        docs = []
        for run in (a, b):
            path = store.root / key / "runs" / str(run) / "result.json"
            docs.append(json.loads(path.read_bytes()) if path.is_file() else {})
        return [r for r in json_diff(*docs) if not r["path"].startswith("provenance.software")]

    async def compare_page(request: Request) -> Response:
        await user_of(request, api=False, unsafe=False)
        key = request.path_params["key"]
        registered(key)
        done = [r["run_id"] for r in store.register.runs(key) if r["status"] == "done"]
        try:
            a = int(request.query_params.get("a", done[-2] if len(done) > 1 else 0))
            b = int(request.query_params.get("b", done[-1] if done else 0))
        except ValueError:
            raise HTTPException(422, "a and b are run numbers") from None
        if a not in done or b not in done:
            raise HTTPException(404, "choose two finished runs of the case")
        return page("compare.html", request, key=key, a=a, b=b, runs=done,
                    diff=run_diff(key, a, b))

    async def case_action(request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=20)
        user = await user_of(request, api=False, unsafe=True, form=form)
        key, step = request.path_params["key"], request.path_params["step"]
        registered(key)
        if step == "run":
            draft = form.get("draft") == "1"
            run_id = await run_in_threadpool(store.register.start_run, key, by=user.name,
                                             draft=draft)
            threading.Thread(target=background_run, args=(key, user, draft, run_id),
                             daemon=True).start()
        else:
            await run_in_threadpool(workflow, key, step, user,
                                    {k: str(v) for k, v in form.items()})
        return RedirectResponse(f"/cases/{key}", status_code=303)

    def background_run(key: str, user: User, draft: bool, run_id: int) -> None:
        """A run started from the page (which polls its progress); its failure is in the
        register."""
        try:
            store.run(key, user, draft=draft, run_id=run_id)
        except Exception:
            pass

    async def teaching_page(request: Request) -> Response:
        await user_of(request, api=False, unsafe=False)
        from ..resampling import DEFAULT_SEED

        return page("teaching.html", request, examples=example_backgrounds(), seed=DEFAULT_SEED,
                    textbook=TEXTBOOK, methods=method_list())

    async def api_page(request: Request) -> Response:
        await user_of(request, api=False, unsafe=False)
        return page("api.html", request)

    # ------------------------------------------------------------ errors
    async def http_error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            status, detail, headers = exc.status_code, exc.detail, exc.headers
        elif isinstance(exc, UploadError):
            status, detail, headers = 422, str(exc), None
        elif isinstance(exc, Conflict):
            status, detail, headers = 409, str(exc), None
        elif isinstance(exc, KeyError):
            status, detail, headers = 404, f"not found: {exc.args[0]}", None
        else:  # InputError and the library's other errors (e.g. a fit without solution)
            status, detail, headers = 422, str(exc), None
        if status == 303:
            return Response(status_code=303, headers=headers)
        wants_json = request.url.path.startswith("/api/") or "json" in request.headers.get(
            "accept", "")
        if wants_json:
            body: dict[str, Any] = {"error": detail}
            if isinstance(exc, UploadError):
                body["errors"] = exc.errors
            return JSONResponse(body, status_code=status, headers=headers)
        return page("error.html", request, status=status, status_code=status, detail=detail)

    routes = [
        Route("/", home),
        Route("/login", login, methods=["GET", "POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/cases/new", new_case, methods=["GET", "POST"]),
        Route("/cases/{key}", case_page),
        Route("/cases/{key}/compare", compare_page),
        Route("/cases/{key}/sign", sign, methods=["POST"]),
        Route("/cases/{key}/{step}", case_action, methods=["POST"]),
        Route("/teaching", teaching_page),
        Route("/api", api_page),
        Route("/docs", api_page),
        Route("/api/health", health),
        Route("/api/cases", api_cases, methods=["GET", "POST"]),
        Route("/api/cases/{key}", api_case, methods=["GET", "PUT", "DELETE"]),
        Route("/api/cases/{key}/runs", api_runs, methods=["GET", "POST"]),
        Route("/api/cases/{key}/progress", api_progress),
        Route("/api/cases/{key}/audit", api_audit),
        Route("/api/cases/{key}/export", api_export),
        Route("/api/cases/{key}/runs/{run}/figures/{name}", api_figure),
        Route("/api/cases/{key}/runs/{run}/{name}", api_download),
        Route("/api/cases/{key}/sign", sign, methods=["POST"]),
        Route("/api/cases/{key}/{step}", api_step, methods=["POST"]),
        Route("/api/lr", api_lr, methods=["POST"]),
        Route("/api/lab", api_lab, methods=["GET", "PUT"]),
        Route("/api/teaching/fit", api_teaching_fit, methods=["POST"]),
        Route("/api/teaching/{fit}/lr", api_teaching_lr),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={
        HTTPException: http_error, UploadError: http_error, Conflict: http_error,
        ForensicLRError: http_error, KeyError: http_error})
    return HostCheck(app, allowed_hosts(config.host, config.allow_hosts))


def report_signatures(path: Path) -> list[Any]:
    """The signatures of a report PDF as ``forensic-lr verify`` checks them
    (:func:`forensic_lr.casework.signing.check_signatures`), in signing order."""
    from ..casework.signing import check_signatures

    return check_signatures(path.read_bytes())


def method_list() -> list[str]:
    """The calibration methods a case or the teaching view can use."""
    from ..calibration import method_names

    return list(method_names())


def calibrate_json(body: dict[str, Any]) -> dict[str, Any]:
    """``POST /api/lr``: ``forensic-lr calibrate --json`` of the body's scores and options.

    Keys: ``ss``, ``ds``, ``scores`` (lists of numbers) and calibrate's options under the
    same names and defaults (``method``, ``options``, ``elub``, ``elub_from``, ``bounds``,
    ``fixed_bounds``, ``folds``,
    ``interval``, ``level``, ``n``, ``seed``, ``direction``): those of a case file, so an
    empty set of options gives what a case without ``[method]`` reports.
    """
    import argparse

    from ..calibration import DEFAULT_CALIBRATOR
    from ..casework import evaluate_evidence
    from ..cli.calibrate import as_json
    from ..defaults import DEFAULT_BOUNDS
    from ..io.scores import orient
    from ..resampling import DEFAULT_INTERVAL, DEFAULT_LEVEL, DEFAULT_SEED, check_interval_options

    defaults = {"method": DEFAULT_CALIBRATOR, "options": {}, "elub": True,
                "elub_from": "cross-validated", "bounds": DEFAULT_BOUNDS,
                "fixed_bounds": None, "folds": 5, "interval": DEFAULT_INTERVAL,
                "level": DEFAULT_LEVEL, "n": None, "seed": DEFAULT_SEED,
                "direction": "higher_is_similar"}
    unknown = sorted(set(body) - {*defaults, "ss", "ds", "scores"})
    if unknown:
        raise InputError(f"unknown key(s) {unknown}; use ss, ds, scores and "
                         f"{', '.join(defaults)}")
    args = argparse.Namespace(**{**defaults, **{k: v for k, v in body.items() if k in defaults}})
    arrays = {}
    for key in ("ss", "ds", "scores"):
        values = body.get(key)
        if not isinstance(values, list) or not values or not all(
                isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                for v in values):
            raise InputError(f"{key}: a non-empty list of finite numbers")
        arrays[key] = values
    if not isinstance(args.options, dict):
        raise InputError("options: an object of calibrator options")
    check_interval_options(args.n, args.level, n_name="n", level_name="level")
    import numpy as np

    record = evaluate_evidence(
        orient(np.asarray(arrays["ss"], dtype=np.float64), args.direction),
        orient(np.asarray(arrays["ds"], dtype=np.float64), args.direction),
        np.asarray(arrays["scores"], dtype=np.float64), calibrator=args.method,
        options=args.options, direction=args.direction, elub=bool(args.elub),
        elub_from=args.elub_from, bounds=args.bounds,
        fixed_bounds=args.fixed_bounds,
        folds=args.folds, interval=args.interval, n=args.n, level=args.level, seed=args.seed)
    return as_json(record)
