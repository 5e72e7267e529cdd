"""``forensic-lr verify``: the embedded record, and a re-run of the case compared with it.

The independent values: the run's own ``result.json`` file and report bytes (written by
``run``, before ``verify`` exists in the process), the score file edited by the test (the
input named must be that one), and hand-built JSON values for the difference finder.
"""

from __future__ import annotations

import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("weasyprint")
pytest.importorskip("pyhanko")

from forensic_lr.casework import verify
from forensic_lr.cli import main
from tests.conftest import append_revision, write_small_case


def _make_case(folder):
    write_small_case(folder, 'id = "VER-1"\nlaboratory = "Lab of Checks"\n'
                     'examiner = "A. Examiner"\ndate = 2026-03-02')
    return folder


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A case folder and the draft report ``run`` wrote for it: ``(case folder, out)``."""
    root = tmp_path_factory.mktemp("verify")
    case = _make_case(root / "case")
    out = root / "out"
    assert main(["-q", "run", str(case / "case.toml"), "--out", str(out), "--draft",
                 "--calibrator", "gaussian"]) == 0
    return case, out


def test_without_case_says_what_the_report_is(made, capsys):
    _, out = made
    assert main(["verify", str(out / "report.pdf")]) == 0
    text = capsys.readouterr().out
    for expected in ("embeds result.json", "case VER-1, report VER-1-R1 (draft, not for court)",
                     "laboratory: Lab of Checks", "examiner: A. Examiner", "date: 2026-03-02",
                     "signature: unsigned", "give --case"):
        assert expected in text
    import forensic_lr

    assert f"forensic-lr {forensic_lr.__version__}" in text


def test_read_report_extracts_the_written_result_json(made):
    _, out = made
    report = verify.read_report(out / "report.pdf")
    assert report.record == (out / "result.json").read_bytes()
    assert report.revisions == 1 and report.first_revision == (out / "report.pdf").read_bytes()


def test_rerun_matches_record_and_pdf_byte_for_byte(made, capsys):
    """The run used --calibrator gaussian (recorded): verify re-applies it."""
    case, out = made
    assert main(["verify", str(out / "report.pdf"), "--case", str(case)]) == 0
    text = capsys.readouterr().out
    assert "every input has its recorded SHA-256 (case.toml, ds.csv, ss.csv)" in text
    assert "result.json recomputed from the inputs equals the embedded one" in text
    assert "the PDF re-rendered from the re-run equals the report, byte for byte" in text
    assert "verdict: the report matches its case" in text


def test_changed_background_score_names_the_file(made, tmp_path, capsys):
    case, out = made
    copy = tmp_path / "case"
    shutil.copytree(case, copy)
    lines = (copy / "ds.csv").read_text().splitlines()
    lines[7] = "0.1234"
    (copy / "ds.csv").write_text("\n".join(lines) + "\n")
    assert main(["verify", str(out / "report.pdf"), "--case", str(copy / "case.toml")]) == 1
    text = capsys.readouterr().out
    assert "DIFFERS ds.csv: SHA-256 differs" in text
    assert "ss.csv: SHA-256 matches" in text
    assert "result.json" not in text.split("signature")[1]  # stopped at the inputs


def test_one_changed_byte_of_the_pdf_is_found(made, tmp_path, capsys):
    """Byte 10 is in the binary comment below the header: the file still reads the same."""
    case, out = made
    data = bytearray((out / "report.pdf").read_bytes())
    data[10] ^= 0x01
    (tmp_path / "report.pdf").write_bytes(bytes(data))
    assert main(["verify", str(tmp_path / "report.pdf"), "--case", str(case)]) == 1
    text = capsys.readouterr().out
    assert "DIFFERS the PDF re-rendered from the re-run differs from the report from byte 10" \
        in text
    assert "result.json recomputed from the inputs equals the embedded one" in text


def test_other_software_versions_check_the_record_only(made, monkeypatch, capsys):
    case, out = made
    real = verify.software_versions()
    monkeypatch.setattr(verify, "software_versions", lambda: {**real, "weasyprint": "0.1"})
    assert main(["verify", str(out / "report.pdf"), "--case", str(case)]) == 0
    text = capsys.readouterr().out
    assert "the PDF could not be re-rendered identically" in text
    assert "weasyprint " in text and "(here 0.1)" in text
    assert "result.json recomputed from the inputs equals the embedded one" in text


def test_an_edit_appended_to_the_file_is_a_difference(made, tmp_path, capsys):
    """An incremental update (what any PDF editor appends) adds a revision."""
    _, out = made
    append_revision(out / "report.pdf", tmp_path / "edited.pdf")
    assert main(["verify", str(tmp_path / "edited.pdf")]) == 1
    assert "the file has 2 revisions: it was changed after forensic-lr wrote it" in \
        capsys.readouterr().out
    report = verify.read_report(tmp_path / "edited.pdf")
    assert report.first_revision == (out / "report.pdf").read_bytes()


def test_bad_input_is_exit_2(made, tmp_path, capsys):
    _, out = made
    (tmp_path / "a.pdf").write_text("not a pdf")
    assert main(["verify", str(tmp_path / "a.pdf")]) == 2
    assert "is not a PDF file" in capsys.readouterr().err
    assert main(["verify", str(tmp_path / "missing.pdf")]) == 2
    from forensic_lr.report.pdf import html_to_pdf

    (tmp_path / "plain.pdf").write_bytes(html_to_pdf("<p>hello</p>", roots=[tmp_path]))
    assert main(["verify", str(tmp_path / "plain.pdf")]) == 2
    assert "embeds no forensic-lr record" in capsys.readouterr().err
    (tmp_path / "cut.pdf").write_bytes((out / "report.pdf").read_bytes()[:5000])
    assert main(["verify", str(tmp_path / "cut.pdf")]) == 2
    assert "Traceback" not in capsys.readouterr().err
    assert main(["verify", str(out / "report.pdf"), "--case", str(tmp_path)]) == 2
    assert "holds no case.toml" in capsys.readouterr().err


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(st.tuples(st.integers(0, 10**9), st.integers(1, 255)), min_size=1,
                        max_size=4))
def test_damaged_reports_end_in_a_clear_status(made, tmp_path, capsys, changes):
    """Bytes flipped anywhere: 0 (an unread byte), 1 or 2, never a traceback."""
    _, out = made
    data = bytearray((out / "report.pdf").read_bytes())
    for where, flip in changes:
        data[where % len(data)] ^= flip
    (tmp_path / "damaged.pdf").write_bytes(bytes(data))
    assert main(["verify", str(tmp_path / "damaged.pdf")]) in (0, 1, 2)
    assert "Traceback" not in capsys.readouterr().err


def test_first_difference_names_the_json_path():
    a = {"case": {"id": "X"}, "results": [{"log10_lr": 2.45, "lr": 280}], "n": 3}
    assert verify.first_difference(a, a) is None
    b = {"case": {"id": "X"}, "results": [{"log10_lr": 2.46, "lr": 280}], "n": 4}
    assert verify.first_difference(a, b) == ("results[0].log10_lr", 2.45, 2.46)
    assert verify.first_difference(a, {**a, "extra": 1}) == ("extra", "(absent)", 1)
    assert verify.first_difference({"v": [1, 2]}, {"v": [1]}) == ("v", "2 entries", "1 entries")
    assert verify.first_difference({"v": 1}, {"v": 1.0}) == ("v", 1, 1.0)  # 1 != 1.0 in JSON
