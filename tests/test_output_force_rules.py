"""``--force`` loses nothing: it replaces only an unchanged output set of the same kind,
never while another run writes inside or around the folder, never with nothing.

Each case is rebuilt from its description: exit 2 (or InputError) with a message naming
the folder and the reason, and every file left as it was.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forensic_lr.cli import main
from forensic_lr.errors import InputError
from forensic_lr.output import MANIFEST, OutputFolder, write_outputs
from tests.conftest import run_cli as _run


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def case(tmp_path):
    """The small-background example, 200 replicates, JSON only."""
    assert main(["-q", "examples", "copy", "small-background", str(tmp_path / "case")]) == 0
    path = tmp_path / "case" / "case.toml"
    text = path.read_text().replace("n = 1000", "n = 200")
    assert "\n[report]\n" in text and "formats" not in text
    path.write_text(text.replace("\n[report]\n", '\n[report]\nformats = ["json"]\n'))
    return path


# ------------------------------------------------------------ files changed since


def test_force_refuses_a_file_edited_since_it_was_written(tmp_path):
    out = tmp_path / "out"
    write_outputs(out, {"result.json": b"{}", "figures/a.svg": b"<svg/>"}, force=False)
    (out / "figures" / "a.svg").write_bytes(b"<svg>my annotations</svg>")
    before = _tree(out)
    with pytest.raises(InputError, match=r"1 file\(s\) changed since .*figures/a\.svg"):
        write_outputs(out, {"result.json": b"[]"}, force=True)
    assert _tree(out) == before


def test_force_replaces_an_unchanged_set_and_one_whose_file_was_removed(tmp_path):
    out = tmp_path / "out"
    write_outputs(out, {"a.txt": b"1", "b.txt": b"2"}, force=False)
    (out / "b.txt").unlink()  # nothing to lose
    write_outputs(out, {"a.txt": b"3"}, force=True)
    assert (out / "a.txt").read_bytes() == b"3" and not (out / "b.txt").exists()


def test_a_manifest_naming_files_outside_the_folder_is_no_manifest(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / MANIFEST).write_text(json.dumps({"files": {"../../etc/passwd": "0" * 64}}))
    with pytest.raises(InputError, match="was not written by forensic-lr"):
        write_outputs(out, {"a.txt": b"1"}, force=True)


def test_a_copied_case_folder_is_never_an_output_folder(case, tmp_path, capsys):
    mycase = tmp_path / "mycase"
    assert main(["-q", "examples", "copy", "voice", str(mycase)]) == 0
    before = _tree(mycase)
    code, text, seconds = _run(["run", str(case), "--out", str(mycase), "--force"], capsys)
    assert code == 2 and seconds < 20
    assert "case folder copied by `forensic-lr examples copy`" in text and str(mycase) in text
    assert _tree(mycase) == before


def test_examples_copy_force_keeps_an_edited_copy(tmp_path, capsys):
    mycase = tmp_path / "mycase"
    assert main(["-q", "examples", "copy", "voice", str(mycase)]) == 0
    assert main(["-q", "examples", "copy", "voice", str(mycase), "--force"]) == 0  # unchanged
    (mycase / "case.toml").write_text((mycase / "case.toml").read_text() + "\n# my notes\n")
    before = _tree(mycase)
    code, text, _ = _run(["examples", "copy", "small-background", str(mycase), "--force"],
                         capsys)
    assert code == 2 and "changed since" in text and "case.toml" in text
    assert _tree(mycase) == before


# ------------------------------------------------------------ runs inside or around


def test_a_batch_does_not_swap_away_a_folder_another_run_writes_inside(case, tmp_path, capsys):
    nest = tmp_path / "nest"
    code, _, _ = _run(["run", str(case), str(case), "--out", str(nest)], capsys)
    assert code == 0
    with OutputFolder(nest / "MYREPORT", force=False):  # another run writes nest/MYREPORT
        before = _tree(nest)
        code, text, seconds = _run(["run", str(case), str(case), "--out", str(nest), "--force"],
                                   capsys)
        assert code == 2 and seconds < 20
        assert f"another forensic-lr run is writing to {nest / 'MYREPORT'}" in text
        assert _tree(nest) == before


def test_a_run_inside_a_folder_being_replaced_is_refused(tmp_path):
    with OutputFolder(tmp_path / "nest", force=False):
        with pytest.raises(InputError, match=r"writing to .*nest, which holds --out"):
            with OutputFolder(tmp_path / "nest" / "deep" / "report", force=False):
                pass
    assert not (tmp_path / "nest").exists()


def test_files_added_during_the_work_are_not_swapped_away(tmp_path):
    out = tmp_path / "out"
    write_outputs(out, {"a.txt": b"1"}, force=False)
    with OutputFolder(out, force=True) as folder:
        (out / "MYREPORT.txt").write_text("written while the run computed")
        with pytest.raises(InputError, match=r"MYREPORT\.txt"):
            folder.commit({"a.txt": b"2"})
    assert (out / "MYREPORT.txt").read_text() == "written while the run computed"
    assert (out / "a.txt").read_bytes() == b"1"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.lock", "out"]


# ------------------------------------------------------------ nothing to write


def test_empty_formats_with_force_keep_the_previous_report(case, tmp_path, capsys):
    out = tmp_path / "out"
    assert _run(["run", str(case), "--out", str(out)], capsys)[0] == 0
    before = _tree(out)
    case.write_text(case.read_text().replace('formats = ["json"]', "formats = []"))
    code, text, seconds = _run(["run", str(case), "--out", str(out), "--force"], capsys)
    assert code == 2 and seconds < 20 and "[report] formats is empty" in text
    assert _tree(out) == before


def test_commit_of_nothing_is_refused(tmp_path):
    with OutputFolder(tmp_path / "out", force=False) as folder:
        with pytest.raises(InputError, match="nothing to write"):
            folder.commit({})
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("case_id", ["summary.json", "SUMMARY.csv"])
def test_a_case_id_naming_a_batch_file_is_refused_before_any_work(case, tmp_path, capsys,
                                                                  case_id):
    nest = tmp_path / "nest"
    assert _run(["run", str(case), str(case), "--out", str(nest)], capsys)[0] == 0
    before = _tree(nest)
    bad = case.parent / "bad.toml"
    text = case.read_text()
    old_id = next(ln for ln in text.splitlines() if ln.startswith("id ="))
    bad.write_text(text.replace(old_id, f'id = "{case_id}"'))
    code, message, seconds = _run(["run", str(case), str(bad), "--out", str(nest), "--force"],
                                  capsys)
    assert code == 2 and seconds < 20
    assert "one of the batch's own files" in message and "bad.toml" in message
    assert _tree(nest) == before


def test_a_case_folder_copied_before_manifests_had_a_kind_is_still_a_case_folder(tmp_path):
    mycase = tmp_path / "mycase"
    assert main(["-q", "examples", "copy", "voice", str(mycase)]) == 0
    manifest = json.loads((mycase / MANIFEST).read_text())
    del manifest["kind"]
    (mycase / MANIFEST).write_text(json.dumps(manifest))
    before = _tree(mycase)
    with pytest.raises(InputError, match="case folder copied by"):
        write_outputs(mycase, {"result.json": b"{}"}, force=True)
    assert _tree(mycase) == before
