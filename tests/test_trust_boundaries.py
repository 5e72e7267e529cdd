"""Trust boundaries: case paths, report templates, output files and the command line.

A case file may name files only inside its folder (or a lab's data folders); a report
template renders in jinja's sandbox; outputs never replace inputs or follow planted
links; the command line ends in exit 2 with a message, or quietly when its reader stops.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.casework.spec import load_case
from forensic_lr.cli import main
from forensic_lr.errors import ForensicLRWarning, InputError, excerpt
from forensic_lr.report import build_report
from forensic_lr.report.render import render

ROOT = Path(__file__).resolve().parents[1]
SECRET = "root:x:0:0:the first line of a file that is not a score file"


@pytest.fixture
def case(tmp_path):
    """The small-background example, 200 bootstrap replicates, JSON only."""
    assert main(["-q", "examples", "copy", "small-background", str(tmp_path / "case")]) == 0
    path = tmp_path / "case" / "case.toml"
    path.write_text(path.read_text().replace("n = 1000", "n = 200"))
    return path


@pytest.fixture
def secret(tmp_path):
    """A file outside the case folder that is not a score file."""
    path = tmp_path / "outside" / "passwd"
    path.parent.mkdir()
    path.write_text(SECRET + "\n")
    return path


def _set_ss(case: Path, name: str) -> None:
    case.write_text(case.read_text().replace('ss = "ss.csv"', f'ss = "{name}"'))


def _run(args, capsys) -> tuple[int, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        code = main(args)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


# ---------------------------------------------------------------- case paths


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink"])
def test_case_paths_outside_the_case_folder_are_refused(case, secret, tmp_path, capsys, kind):
    if kind == "dotdot":
        name = "../" * len(case.parent.parts) + str(secret).lstrip("/")
    elif kind == "absolute":
        name = str(secret)
    else:
        (case.parent / "linked.csv").symlink_to(secret)
        name = "linked.csv"
    _set_ss(case, name)
    code, text = _run(["run", str(case), "--out", str(tmp_path / "out")], capsys)
    assert code == 2
    assert "[background] ss" in text and "outside the case folder" in text
    assert "root:x" not in text  # the file is neither read nor quoted
    assert not (tmp_path / "out").exists()


def test_nul_in_a_case_path_is_a_user_error(case, tmp_path, capsys):
    _set_ss(case, "ss\\u0000.csv")
    code, text = _run(["run", str(case), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "NUL" in text


def test_links_and_subfolders_inside_the_case_folder_are_fine(case):
    (case.parent / "data").mkdir()
    os.rename(case.parent / "ss.csv", case.parent / "data" / "ss.csv")
    (case.parent / "ss-link.csv").symlink_to(case.parent / "data" / "ss.csv")
    _set_ss(case, "ss-link.csv")
    assert load_case(case).resolve("ss-link.csv") == (case.parent / "data" / "ss.csv").resolve()


def test_data_roots_admit_a_lab_folder(case, tmp_path):
    shared = tmp_path / "lab-data"
    shared.mkdir()
    os.rename(case.parent / "ss.csv", shared / "ss.csv")
    _set_ss(case, str(shared / "ss.csv"))
    with pytest.raises(InputError, match="outside the case folder"):
        load_case(case)
    spec = load_case(case, data_roots=(shared,))
    assert spec.resolve(str(shared / "ss.csv")) == (shared / "ss.csv").resolve()


def test_a_case_file_cannot_set_its_own_data_roots(case):
    case.write_text('data_roots = ["/"]\n' + case.read_text())
    with pytest.raises(InputError, match="data_roots: unknown key"):
        load_case(case)


def test_excerpt_is_short_and_printable():
    assert excerpt("abc") == "'abc'"
    long = excerpt("x" * 10_000 + "\x1b[2J")
    assert len(long) < 80 and long.endswith("(10,004 characters)") and "\x1b" not in long
    assert excerpt("a\x00b\nc") == "'a\\x00b\\nc'"  # control characters escaped, not printed


# ---------------------------------------------------------------- outputs


def test_out_equal_to_the_case_folder_is_refused(case, capsys):
    (case.parent / "result.json").write_text("an input of the lab")
    _set_ss(case, "ss.csv")
    code, text = _run(["run", str(case), "--out", str(case.parent), "--force"], capsys)
    assert code == 2 and "holds an input" in text
    assert (case.parent / "result.json").read_text() == "an input of the lab"


def test_json_only_run_with_force_drops_the_old_report(case, tmp_path, capsys):
    out = tmp_path / "out"
    from forensic_lr.output import write_outputs

    write_outputs(out, {"result.json": b"{}", "report.pdf": b"%PDF old case"}, force=False)
    code, _ = _run(["-q", "run", str(case), "--out", str(out), "--format", "json", "--force"],
                   capsys)
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == [".forensic-lr-output.json", "result.json"]


def test_compare_plot_does_not_write_through_a_planted_link(tmp_path, capsys):
    import numpy as np

    rng = np.random.default_rng(3)
    for name, shift in (("a.csv", 2.0), ("b.csv", 1.0)):
        rows = [f"ss,{v}" for v in rng.normal(shift, 1, 30)] + [
            f"ds,{v}" for v in rng.normal(-shift, 1, 60)]
        (tmp_path / name).write_text("label,score\n" + "\n".join(rows) + "\n")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "p.svg.partial").symlink_to(victim)
    args = ["compare", "--a", str(tmp_path / "a.csv"), "--b", str(tmp_path / "b.csv"),
            "--n", "200", "--plot", str(tmp_path / "p.svg")]
    code, _ = _run(args, capsys)
    assert code == 0
    assert victim.read_text() == "precious"
    assert (tmp_path / "p.svg").read_text().lstrip().startswith(("<?xml", "<svg"))
    # the plot may not replace an input either
    code, text = _run([*args[:-1], str(tmp_path / "a.csv"), "--force"], capsys)
    assert code == 2 and "input of this run" in text


# ---------------------------------------------------------------- templates


def _lab(tmp_path: Path, text: str, name: str = "case_report.html") -> Path:
    lab = tmp_path / "lab-templates"
    lab.mkdir(exist_ok=True)
    (lab / name).write_text(text)
    return lab


ESCAPES = [
    "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ r.__class__.__init__.__globals__ }}",
    "{% set x = r.warnings.append(1) %}",
    "{{ 'x' * 100000000 }}",
    "{{ 10 ** 100000 }}",
]


@pytest.mark.parametrize("text", ESCAPES)
def test_sandbox_stops_template_escapes(tmp_path, text):
    lab = _lab(tmp_path, "<p>\n" + text + "\n</p>", "t.html")
    with pytest.raises(InputError) as info:
        render("t.html", {"r": type("R", (), {"warnings": []})()}, lab)
    message = str(info.value)
    assert "t.html, line 2" in message
    assert "uid=" not in message


@pytest.mark.parametrize("text", ["{{ r.parse_file('/etc/passwd') }}", "{{ r.model_dump() }}",
                                  "{{ r.__class__.parse_file('/etc/passwd') }}"])
def test_templates_cannot_call_methods_of_the_records(tmp_path, text):
    # pydantic's parse_file classmethod would read any file it is given
    from forensic_lr.records import Propositions

    lab = _lab(tmp_path, text, "t.html")
    with pytest.raises(InputError, match="sandbox"):
        render("t.html", {"r": Propositions(hp="same", hd="different")}, lab)
    (lab / "ok.html").write_text("{{ r.hp }} / {{ r.hd }}")  # values stay readable
    assert render("ok.html", {"r": Propositions(hp="same", hd="different")}, lab) == (
        "same / different"
    )


def test_template_escape_through_the_case_file_exits_2(case, tmp_path, capsys):
    lab = case.parent / "templates"
    lab.mkdir()
    (lab / "case_report.html").write_text(ESCAPES[0])
    case.write_text(case.read_text().replace('verbal_scale = "enfsi"',
                                             'verbal_scale = "enfsi"\ntemplate_dir = "templates"'))
    code, text = _run(["run", str(case), "--out", str(tmp_path / "out"), "--format", "html"],
                      capsys)
    assert code == 2 and "sandbox" in text and "uid=" not in text
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("text", "match"), [
    ("<p>\n{% if %}\n</p>", r"t.html, line 2: template syntax error"),
    ("<p>\n\n{{ no_such_value }}</p>", r"t.html, line 3: .*'no_such_value' is undefined"),
    ("<p>{% include 'missing.html' %}</p>", r"missing.html"),
])
def test_lab_template_mistakes_name_file_and_line(tmp_path, text, match):
    lab = _lab(tmp_path, text, "t.html")
    with pytest.raises(InputError, match=match):
        render("t.html", {}, lab)


def test_template_and_stylesheet_links_out_of_the_folder_are_refused(tmp_path, secret):
    from forensic_lr.report.render import stylesheet

    lab = _lab(tmp_path, "{% include 'leak.html' %}", "t.html")
    (lab / "leak.html").symlink_to(secret)
    with pytest.raises(InputError, match="symbolic link leading out"):
        render("t.html", {}, lab)
    (lab / "report.css").symlink_to(secret)
    with pytest.raises(InputError, match=r"report\.css is a symbolic link"):
        stylesheet(lab)


def test_shipped_templates_render_in_the_sandbox(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        run = run_case_full(load_case(case))
    html = build_report(run, formats=("html",))["report.html"].decode()
    assert run.result.case.id in html


def test_a_missing_image_is_an_error_not_a_blank(tmp_path):
    from forensic_lr.report.pdf import html_to_pdf

    lab = tmp_path / "lab"
    lab.mkdir()
    (lab / "broken.png").write_bytes(b"not a png")
    with pytest.raises(InputError, match="could not load"):
        html_to_pdf('<img src="broken.png">', roots=[lab])


# ---------------------------------------------------------------- command line


@pytest.mark.parametrize("command", [
    ["calibrate", "--ss", "x", "--ds", "y", "--method", "gaussian", "--score", "1"],
    ["compare", "--a", "x", "--b", "y"],
    ["validate", "--ss", "x", "--ds", "y", "--calibrate", "gaussian"],
])
def test_negative_seed_is_a_user_error(command, capsys):
    flag = "--fold-seed" if "validate" in command else "--seed"
    with pytest.raises(SystemExit) as info:
        main([*command, flag, "-1"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "'-1' is not a seed; give a whole number >= 0" in err and "Traceback" not in err


def _python(code: str, *args: str, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env,
                            stderr=subprocess.PIPE, text=True, **kwargs)


def test_closed_pipe_ends_quietly():
    code = ("import time, sys; time.sleep(1); from forensic_lr.cli import main; "
            "sys.exit(main(['examples']))")
    proc = _python(code, stdout=subprocess.PIPE)
    proc.stdout.close()  # the reader stops before anything is written, like `| head -0`
    _, err = proc.communicate(timeout=60)
    assert err == ""
    assert proc.returncode == 141


def test_runtime_warnings_are_not_printed_unless_verbose():
    code = ("import sys, numpy as np; import forensic_lr.cli as cli, forensic_lr.cli.case as c\n"
            "def noisy(args):\n"
            "    np.exp(np.float64(1000.0))\n"
            "    return 0\n"
            "c.examples = noisy\n"
            "sys.exit(cli.main(sys.argv[1:]))")
    quiet = _python(code, "examples", stdout=subprocess.DEVNULL)
    assert quiet.communicate(timeout=60)[1] == "" and quiet.returncode == 0
    verbose = _python(code, "-v", "examples", stdout=subprocess.DEVNULL)
    assert "overflow" in verbose.communicate(timeout=60)[1]
