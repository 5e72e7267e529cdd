"""``validate --report``, ``validate --plots`` and ``multiclass --plots`` hold the output
folder's lock from before the computation until the commit, as ``run`` does: a second run to
the same folder is refused at once, not after both have computed."""

from __future__ import annotations

import pytest
from filelock import FileLock, Timeout

from forensic_lr._resources import examples_dir
from forensic_lr.cli import main
from forensic_lr.output import OutputFolder

VOICE = examples_dir() / "voice"
LOGITS = examples_dir() / "multiclass-logits"


def _lock_is_held(folder) -> bool:
    other = FileLock(folder.parent / f".{folder.name}.lock", timeout=0)
    try:
        other.acquire()
    except Timeout:
        return True
    other.release()
    return False


def _validate(option: str, out) -> list[str]:
    argv = ["validate", "--ss", str(VOICE / "ss.csv"), "--ds", str(VOICE / "ds.csv"),
            option, str(out)]
    if option == "--report":
        return [*argv, "--ci", "none", "--folds", "2"]
    return [*argv, "--calibrate", "gaussian", "--folds", "2"]


@pytest.mark.parametrize("option", ["--report", "--plots"])
def test_validate_holds_the_lock_while_it_computes(tmp_path, monkeypatch, option):
    import forensic_lr.validation as validation

    out = tmp_path / "out"
    seen = []
    real = validation.run_validation_study

    def spy(*args, **kwargs):
        seen.append(_lock_is_held(out))
        return real(*args, **kwargs)

    monkeypatch.setattr(validation, "run_validation_study", spy)
    assert main(_validate(option, out)) == 0
    assert seen == [True]
    assert any(out.iterdir())
    assert not _lock_is_held(out)


@pytest.mark.parametrize("option", ["--report", "--plots"])
def test_validate_refuses_a_folder_another_run_is_writing(tmp_path, capsys, monkeypatch, option):
    import forensic_lr.validation as validation

    out = tmp_path / "out"

    def must_not_run(*args, **kwargs):
        raise AssertionError("computed although the folder was locked")

    monkeypatch.setattr(validation, "run_validation_study", must_not_run)
    with OutputFolder(out, force=False):
        assert main(_validate(option, out)) == 2
    assert "another forensic-lr run is writing" in capsys.readouterr().err
    assert not out.exists()


def test_multiclass_holds_the_lock_while_it_computes(tmp_path, monkeypatch):
    from forensic_lr.studies import multiclass

    out = tmp_path / "plots"
    seen = []
    real = multiclass.calibration_metrics

    def spy(*args, **kwargs):
        seen.append(_lock_is_held(out))
        return real(*args, **kwargs)

    monkeypatch.setattr(multiclass, "calibration_metrics", spy)
    assert main(["multiclass", "--val-logits", str(LOGITS / "val_logits.csv"),
                 "--val-labels", str(LOGITS / "val_labels.csv"), "--plots", str(out)]) == 0
    assert seen and all(seen)
    assert sorted(p.name for p in out.iterdir() if p.suffix == ".svg") == [
        "reliability_after.svg", "reliability_before.svg"]
