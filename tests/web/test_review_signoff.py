"""A case reviewed in the web app: the final report carries the reviewer's approval (name and
date) in its record and its sign-off block, and otherwise the numbers the reviewer approved;
the same case run from the command line has no review and the same results."""

from __future__ import annotations

import io
import json

from pypdf import PdfReader

from forensic_lr.cli import main
from forensic_lr.web.register import Register, check_audit

from .conftest import example_upload, multipart

PASSWORD = "a password for tests"


def _session(make_client, name):
    client = make_client()
    nonce = client.get("/login").text.split('name="nonce" value="')[1].split('"')[0]
    assert client.post("/login", data={"name": name, "password": PASSWORD,
                                       "nonce": nonce}).status_code == 303
    csrf = client.get("/cases/new").text.split('name="csrf" value="')[1].split('"')[0]
    return client, {"x-csrf-token": csrf}


def test_final_report_prints_the_reviewers_approval(make_client, bearer, cases_dir, tmp_path):
    examiner = make_client()
    case, files = example_upload("voice")
    key = examiner.post("/api/cases", files=multipart(case, files), headers=bearer).json()["id"]
    assert examiner.post(f"/api/cases/{key}/runs", headers=bearer).status_code == 201
    assert examiner.post(f"/api/cases/{key}/submit", headers=bearer).status_code == 200
    # finalising needs a review
    assert examiner.post(f"/api/cases/{key}/finalize", headers=bearer).status_code == 409
    Register(cases_dir).add_user("Rosa Reviewer", "reviewer", PASSWORD, by="test")
    reviewer, csrf = _session(make_client, "Rosa Reviewer")
    r = reviewer.post(f"/api/cases/{key}/review", headers=csrf,
                      json={"decision": "approve", "comment": "checked the background"})
    assert r.status_code == 200 and r.json()["status"] == "reviewed"
    approval = [e for e in Register(cases_dir).audit(key) if e["action"] == "review: approved"]
    date = approval[-1]["time"][:10]

    r = examiner.post(f"/api/cases/{key}/finalize", headers=bearer)
    assert r.status_code == 200 and r.json()["status"] == "final"
    final = examiner.get(f"/api/cases/{key}/runs/latest/result.json", headers=bearer).json()
    assert final["review"] == {"reviewer": "Rosa Reviewer", "date": date,
                               "decision": "approved", "comment": "checked the background"}
    approved = examiner.get(f"/api/cases/{key}/runs/1/result.json", headers=bearer).json()
    assert approved["review"] is None
    assert {k: v for k, v in final.items() if k != "review"} == {
        k: v for k, v in approved.items() if k != "review"}
    # the sign-off block: the examiner, then the technical reviewer with the approval's date
    html = examiner.get(f"/api/cases/{key}/runs/latest/report.html", headers=bearer).text
    block = html[html.index('class="meta signature review"'):]
    block = block[:block.index("</table>")]
    assert "Technical reviewer" in block and "Rosa Reviewer" in block
    day = int(date[8:])
    assert str(day) in block and date[:4] in block
    assert "Rosa Reviewer" not in examiner.get(f"/api/cases/{key}/runs/1/report.html",
                                               headers=bearer).text
    pdf = examiner.get(f"/api/cases/{key}/runs/latest/report.pdf", headers=bearer).content
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)
    assert "Technical reviewer" in text and "Rosa Reviewer" in text
    # the final run is in the audit log; a final case is not run or edited again
    entry = Register(cases_dir).audit(key)[-1]
    assert entry["action"] == "finalised" and entry["details"]["run"] == 2
    assert examiner.post(f"/api/cases/{key}/runs", headers=bearer).status_code == 409
    assert check_audit(cases_dir) == []
    # the command line runs the same case file without a review: the same results (only the
    # record is compared, and it is the same bytes whatever formats are written)
    assert main(["run", str(cases_dir / key / "case.toml"), "--out", str(tmp_path / "cli"),
                 "--quiet", "--format", "json"]) == 0
    cli = json.loads((tmp_path / "cli" / "result.json").read_bytes())
    assert cli["review"] is None and cli == approved
