"""The all-or-nothing commit of output folders and files (forensic_lr.output).

Fault injection (a rename or a flush that fails part-way), two real processes racing
for one folder, planted links, leftovers of killed runs and the checks made before any
work is done.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from forensic_lr.errors import InputError
from forensic_lr.output import (
    MANIFEST,
    OutputFolder,
    check_output_folder,
    write_file,
    write_outputs,
)

ROOT = Path(__file__).resolve().parents[1]
OLD = {"result.json": b"old json", "report.pdf": b"old pdf", "figures/a.svg": b"<svg>old</svg>"}
NEW = {"result.json": b"new json", "report.html": b"new html", "figures/a.svg": b"<svg/>"}


def listing(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` except the manifest, with its bytes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and p.name != MANIFEST
    }


def test_force_replaces_the_whole_previous_set(tmp_path):
    out = tmp_path / "out"
    write_outputs(out, OLD, force=False)
    manifest = json.loads((out / MANIFEST).read_text())
    assert set(manifest["files"]) == set(OLD)
    write_outputs(out, {"result.json": b"json only"}, force=True)
    assert listing(out) == {"result.json": b"json only"}  # no stale report.pdf or figure
    assert not [p for p in tmp_path.iterdir() if ".new-" in p.name or ".old-" in p.name]


def test_without_force_nothing_is_overwritten(tmp_path):
    out = tmp_path / "out"
    write_outputs(out, OLD, force=False)
    with pytest.raises(InputError, match="use --force"):
        write_outputs(out, NEW, force=False)
    assert listing(out) == OLD


def test_force_refuses_a_folder_it_did_not_write(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("the examiner's notes")
    with pytest.raises(InputError, match="not written by forensic-lr"):
        write_outputs(out, NEW, force=True)
    assert (out / "notes.txt").read_text() == "the examiner's notes"


def test_force_refuses_entries_added_to_an_output_folder(tmp_path):
    # a directory named report.pdf (or any file the last run did not write) is refused
    # before anything is replaced
    out = tmp_path / "out"
    write_outputs(out, {"result.json": b"old"}, force=False)
    (out / "report.pdf").mkdir()
    with pytest.raises(InputError, match=r"did not write \(report.pdf/\)"):
        write_outputs(out, NEW, force=True)
    assert (out / "result.json").read_bytes() == b"old" and (out / "report.pdf").is_dir()


@pytest.mark.parametrize("failing_calls", [{1}, {2}, {2, 3}, {3}])
def test_failed_swap_leaves_the_old_or_the_new_set(tmp_path, monkeypatch, failing_calls):
    # the n-th call of os.rename / os.replace raises for n in `failing_calls`: the swap
    # stops before it starts ({1}), half-way ({2}, the old set is moved back), half-way
    # with the way back failing too ({2, 3}); {3}: the swap succeeds
    out = tmp_path / "out"
    write_outputs(out, OLD, force=False)
    calls = []

    def failing(real):
        def call(src, dst, *args, **kwargs):
            calls.append((src, dst))
            if len(calls) in failing_calls:
                raise OSError(errno.EIO, "injected failure")
            return real(src, dst, *args, **kwargs)
        return call

    for name in ("rename", "replace"):
        monkeypatch.setattr(os, name, failing(getattr(os, name)))
    if failing_calls == {3}:
        write_outputs(out, NEW, force=True)
    else:
        with pytest.raises(InputError, match="cannot write"):
            write_outputs(out, NEW, force=True)
    monkeypatch.undo()
    # what a reader sees now: the complete old or new set, or no folder (never a mix)
    assert not out.exists() or listing(out) in (OLD, NEW)
    assert out.exists() or failing_calls == {2, 3}
    # the next run tidies up: an old set moved aside comes back, temporary folders go
    with OutputFolder(out, force=True):
        pass
    assert listing(out) == (NEW if failing_calls == {3} else OLD)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.lock", "out"]


def test_kill_between_the_two_renames_is_repaired(tmp_path):
    # a run killed after moving the old set aside leaves no folder, and the old set
    # (complete) beside it; a run killed while staging leaves a temporary folder
    out = tmp_path / "out"
    write_outputs(out, OLD, force=False)
    os.rename(out, tmp_path / ".out.old-0123456789abcdef")
    (tmp_path / ".out.new-fedcba9876543210").mkdir()
    (tmp_path / ".out.new-fedcba9876543210" / "result.json").write_bytes(b"half")
    with pytest.raises(InputError, match="use --force"):
        write_outputs(out, NEW, force=False)  # the old set is back, so this is refused
    assert listing(out) == OLD
    assert not (tmp_path / ".out.new-fedcba9876543210").exists()
    write_outputs(out, NEW, force=True)
    assert listing(out) == NEW


def test_disk_full_while_writing_leaves_nothing(tmp_path, monkeypatch):
    out = tmp_path / "out"
    real = os.fsync
    count = []

    def full(fd):
        count.append(fd)
        if len(count) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(InputError, match="no space left"):
        write_outputs(out, NEW, force=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.lock"]


def test_output_folder_holding_an_input_is_refused(tmp_path):
    case = tmp_path / "case"
    case.mkdir()
    (case / "result.json").write_text("an input")
    with pytest.raises(InputError, match="holds an input"):
        write_outputs(case, NEW, force=True, inputs=[case / "result.json"])
    with pytest.raises(InputError, match="holds an input"):
        check_output_folder(tmp_path, force=True, inputs=[case / "result.json"])
    assert (case / "result.json").read_text() == "an input"


def test_the_current_folder_is_never_swapped_away(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="current folder"):
        write_outputs(".", NEW, force=False)
    with pytest.raises(InputError, match="current folder"):
        write_outputs(tmp_path.parent, NEW, force=True)
    assert sorted(write_outputs("report", NEW, force=False)) == sorted(
        (tmp_path / "report" / name) for name in NEW
    )


def test_early_checks(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="is a file"):
        check_output_folder(tmp_path / "file" / "out", force=False)
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises(InputError, match="symbolic link to nothing"):
        check_output_folder(tmp_path / "dangling", force=True)
    with pytest.raises(InputError, match="not a folder"):
        check_output_folder(tmp_path / "file", force=True)
    assert check_output_folder(tmp_path / "new" / "deeper", force=False) == (
        tmp_path / "new" / "deeper"
    ).resolve()
    assert not (tmp_path / "new").exists()  # checking creates nothing


def test_no_permission_is_reported_before_work(tmp_path, monkeypatch):
    # (the tests may run as root, who may write anywhere: os.access is stubbed)
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(InputError, match="no permission"):
        check_output_folder(tmp_path / "out", force=False)


def test_missing_parents_are_created_and_removed_on_failure(tmp_path):
    out = tmp_path / "a" / "b" / "out"
    with pytest.raises(RuntimeError), OutputFolder(out, force=False):
        raise RuntimeError("the computation failed")
    assert list(tmp_path.iterdir()) == []  # nothing left behind
    write_outputs(out, {"x.txt": b"x"}, force=False)
    assert listing(out) == {"x.txt": b"x"}


_WAIT = """
def wait_for(path):  # hold on until the test says so (no timing assumptions)
    import os, time
    deadline = time.monotonic() + 120
    while path != "-" and not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.02)
"""

_RACER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from forensic_lr.errors import InputError
    from forensic_lr.output import OutputFolder
    {wait}
    try:
        with OutputFolder({out!r}, force=False) as target:
            print("locked", flush=True)
            wait_for(sys.argv[1])
            target.commit({{"who.txt": sys.argv[2].encode()}})
    except InputError as exc:
        print(exc, file=sys.stderr)
        sys.exit(2)
""")


def test_two_processes_racing_for_one_folder(tmp_path):
    out = tmp_path / "out"
    script = _RACER.format(root=str(ROOT), out=str(out), wait=_WAIT)
    go = tmp_path / "go"
    first = subprocess.Popen([sys.executable, "-c", script, str(go), "first"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert first.stdout.readline().strip() == "locked"  # the first holds the lock
    second = subprocess.run([sys.executable, "-c", script, "-", "second"],
                            capture_output=True, text=True, timeout=120)
    go.touch()  # the first may finish now
    _, first_err = first.communicate(timeout=120)
    assert first.returncode == 0, first_err
    assert second.returncode == 2
    assert "another forensic-lr run is writing to" in second.stderr
    assert listing(out) == {"who.txt": b"first"}


def test_single_file_never_follows_a_planted_link(tmp_path, monkeypatch):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    # a link planted at the old fixed temporary name, and at every name we might pick
    (tmp_path / "p.svg.partial").symlink_to(victim)
    import forensic_lr.output as output

    monkeypatch.setattr(output.secrets, "token_hex", lambda n: "0" * (2 * n))
    (tmp_path / f".p.svg.{'0' * 16}.tmp").symlink_to(victim)
    with pytest.raises(InputError, match="cannot write"):
        write_file(tmp_path / "p.svg", b"<svg/>", force=False)
    assert victim.read_text() == "precious"
    monkeypatch.undo()
    write_file(tmp_path / "p.svg", b"<svg/>", force=False)
    assert (tmp_path / "p.svg").read_bytes() == b"<svg/>" and victim.read_text() == "precious"


def test_single_file_replaces_a_link_at_its_path_instead_of_writing_through(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "p.svg").symlink_to(victim)
    with pytest.raises(InputError, match="--force"):
        write_file(tmp_path / "p.svg", b"<svg/>", force=False)
    write_file(tmp_path / "p.svg", b"<svg/>", force=True)
    assert not (tmp_path / "p.svg").is_symlink()
    assert victim.read_text() == "precious"


def test_single_file_refuses_inputs_and_folders(tmp_path):
    (tmp_path / "a.csv").write_text("1\n")
    with pytest.raises(InputError, match="input of this run"):
        write_file(tmp_path / "a.csv", b"x", force=True, inputs=[tmp_path / "a.csv"])
    (tmp_path / "d.svg").mkdir()
    with pytest.raises(InputError, match="is a folder"):
        write_file(tmp_path / "d.svg", b"x", force=True)
    with pytest.raises(InputError, match="does not exist"):
        write_file(tmp_path / "no" / "p.svg", b"x", force=True)


_SLOW_RUN = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    import forensic_lr.casework.job as job
    from forensic_lr.cli import main
    {wait}
    real = job.run_case_full

    def slow(spec, **kwargs):  # the lock is held while the case is computed
        print("computing", flush=True)
        wait_for(sys.argv[1])
        return real(spec, **kwargs)

    job.run_case_full = slow  # where run calls it (casework.job.CaseJob)
    sys.exit(main(["-q", "run", {case!r}, "--out", {out!r}, "--format", "json"]))
""")


def test_two_runs_to_the_same_out(tmp_path):
    from forensic_lr.cli import main

    assert main(["-q", "examples", "copy", "small-background", str(tmp_path / "case")]) == 0
    case = tmp_path / "case" / "case.toml"
    case.write_text(case.read_text().replace("n = 1000", "n = 200"))
    out = tmp_path / "out"
    script = _SLOW_RUN.format(root=str(ROOT), case=str(case), out=str(out), wait=_WAIT)
    go = tmp_path / "go"
    first = subprocess.Popen([sys.executable, "-c", script, str(go)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert first.stdout.readline().strip() == "computing"
    second = subprocess.run([sys.executable, "-c", script, "-"],
                            capture_output=True, text=True, timeout=120)
    go.touch()  # the first may finish now
    _, first_err = first.communicate(timeout=120)
    assert first.returncode == 0, first_err
    assert second.returncode == 2, second.stderr
    assert "another forensic-lr run is writing to" in second.stderr
    assert "Traceback" not in second.stderr
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "result.json"]


_WRITER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from forensic_lr.output import write_outputs
    tag = sys.argv[1].encode()
    files = {{f"part{{i:02d}}.bin": tag * 200_000 for i in range(12)}}
    print("start", flush=True)
    write_outputs({out!r}, files, force=True)
""")


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.1, 0.2, 0.4])
def test_killed_commit_never_leaves_a_mix(tmp_path, delay):
    # kill -9 at some moment of a commit (where exactly depends on the machine): the
    # folder holds one complete set, or is missing with the old set beside it, which the
    # next run moves back
    import signal
    import time

    out = tmp_path / "out"
    old = {f"part{i:02d}.bin": b"old" * 200_000 for i in range(12)}
    write_outputs(out, old, force=False)
    script = _WRITER.format(root=str(ROOT), out=str(out))
    proc = subprocess.Popen([sys.executable, "-c", script, "new"], stdout=subprocess.PIPE)
    assert proc.stdout.readline().strip() == b"start"
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    new = {name: b"new" * 200_000 for name in old}
    assert not out.exists() or listing(out) in (old, new)
    with OutputFolder(out, force=True):
        pass
    assert listing(out) in (old, new)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.lock", "out"]
