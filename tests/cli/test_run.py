"""`forensic-lr run / examples / init` and the safe writer behind them."""

from __future__ import annotations

import warnings

import pytest

from forensic_lr.casework.pipeline import run_case
from forensic_lr.casework.spec import load_case
from forensic_lr.cli import main
from forensic_lr.errors import ForensicLRWarning, InputError
from forensic_lr.output import MANIFEST, write_outputs

# ---------------------------------------------------------------- write_outputs


def test_write_outputs_nested_and_atomic(tmp_path):
    out = tmp_path / "out"
    written = write_outputs(out, {"a.txt": b"A", "figures/b.svg": b"<svg/>"}, force=False)
    assert [p.relative_to(out).as_posix() for p in written] == ["a.txt", "figures/b.svg"]
    assert (out / "a.txt").read_bytes() == b"A"
    assert (out / "figures" / "b.svg").read_bytes() == b"<svg/>"
    assert not [p for p in out.rglob("*.tmp")]


def test_write_outputs_refuses_non_empty_folder(tmp_path):
    write_outputs(tmp_path, {"old.txt": b"keep"}, force=False)
    with pytest.raises(InputError, match="use --force"):
        write_outputs(tmp_path, {"a.txt": b"A"}, force=False)
    assert not (tmp_path / "a.txt").exists()
    write_outputs(tmp_path, {"old.txt": b"new"}, force=True)
    assert (tmp_path / "old.txt").read_bytes() == b"new"


def test_write_outputs_failure_replaces_nothing(tmp_path):
    write_outputs(tmp_path, {"a.txt": b"old"}, force=False)
    with pytest.raises(TypeError):  # the second content is not bytes: fails while staging
        write_outputs(tmp_path, {"a.txt": b"new", "b.txt": None}, force=True)
    assert (tmp_path / "a.txt").read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == [MANIFEST, "a.txt"]


@pytest.mark.parametrize("name", ["../x.txt", "/etc/x", "", "a\\b"])
def test_write_outputs_rejects_bad_names(tmp_path, name):
    with pytest.raises(InputError, match="relative path"):
        write_outputs(tmp_path / "o", {name: b"x"}, force=False)


def test_write_outputs_refuses_a_file_as_folder(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError, match="not a folder"):
        write_outputs(tmp_path / "f", {"a": b""}, force=True)


# ---------------------------------------------------------------- examples / init


def test_examples_list(capsys):
    assert main(["examples"]) == 0
    out = capsys.readouterr().out
    for name in ("voice", "small-background", "glass-distance"):
        assert name in out
    assert "synthetic" in out.lower() or "forensic" in out.lower()


def test_examples_copy(tmp_path, capsys):
    assert main(["examples", "copy", "voice", str(tmp_path / "v")]) == 0
    assert {p.name for p in (tmp_path / "v").iterdir()} >= {"case.toml", "ss.csv", "ds.csv",
                                                              "README.md"}
    assert load_case(tmp_path / "v" / "case.toml").case.id == "FVC-2026-017"
    assert main(["examples", "copy", "voice", str(tmp_path / "v")]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["examples", "copy", "voice", str(tmp_path / "v"), "--force"]) == 0
    assert main(["examples", "copy", "nope", str(tmp_path / "w")]) == 2
    assert "choose one of" in capsys.readouterr().err


def test_init_template(tmp_path, capsys):
    assert main(["init", str(tmp_path / "new")]) == 0
    assert "forensic-lr run" in capsys.readouterr().out
    (tmp_path / "new" / "ss.csv").write_text("1\n2\n3\n")
    (tmp_path / "new" / "ds.csv").write_text("0\n-1\n1\n")
    assert load_case(tmp_path / "new" / "case.toml").method.calibrator == "bayes"
    assert main(["init", str(tmp_path / "new")]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["init", str(tmp_path / "new"), "--force"]) == 0


# ---------------------------------------------------------------- run


@pytest.fixture
def small_case(tmp_path):
    """The small-background example with 200 bootstrap replicates."""
    assert main(["-q", "examples", "copy", "small-background", str(tmp_path / "case")]) == 0
    path = tmp_path / "case" / "case.toml"
    path.write_text(path.read_text().replace("n = 1000", "n = 200"))
    return path


def test_run_writes_result_json(small_case, tmp_path, capsys):
    out = tmp_path / "out"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        assert main(["run", str(small_case), "--out", str(out), "--format", "json"]) == 0
        expected = run_case(load_case(small_case)).to_json()
    text = capsys.readouterr().out
    assert "LR = " in text and "warning:" in text
    assert (out / "result.json").read_text() == expected
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "result.json"]


def test_run_refuses_non_empty_out_without_force(small_case, tmp_path, capsys):
    out = tmp_path / "out"
    write_outputs(out, {"result.json": b"old"}, force=False)
    assert main(["-q", "run", str(small_case), "--out", str(out), "--format", "json"]) == 2
    assert "--force" in capsys.readouterr().err
    assert (out / "result.json").read_text() == "old"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        args = ["-q", "run", str(small_case), "--out", str(out), "--format", "json", "--force"]
        assert main(args) == 0
    assert (out / "result.json").read_text() != "old"


def test_failing_run_writes_nothing(small_case, tmp_path, capsys):
    ss = small_case.parent / "ss.csv"
    ss.write_text(ss.read_text() + "nan\n")
    out = tmp_path / "out"
    assert main(["-q", "run", str(small_case), "--out", str(out), "--format", "json"]) == 2
    assert "ss.csv" in capsys.readouterr().err
    assert not out.exists()


def test_run_bad_format(small_case, tmp_path, capsys):
    assert main(["run", str(small_case), "--out", str(tmp_path / "o"), "--format", "docx"]) == 2
    assert "pdf, html, json" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_write_outputs_respects_umask(tmp_path):
    import os

    old = os.umask(0o022)
    try:
        (path,) = write_outputs(tmp_path / "o", {"a.txt": b"A"}, force=False)
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644  # 0o666 & ~0o022, as for any new file


def test_run_writes_the_whole_report(small_case, tmp_path):
    from pypdf import PdfReader

    out = tmp_path / "out"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        assert main(["-q", "run", str(small_case), "--out", str(out)]) == 0
    names = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert {"report.pdf", "report.html", "result.json"} <= names
    assert any(n.startswith("figures/") and n.endswith(".svg") for n in names)
    assert not any(n.endswith(".tmp") for n in names)
    text = "".join(page.extract_text() for page in PdfReader(out / "report.pdf").pages)
    assert "TM-2026-004" in text
