"""The package's shape: layers import only downwards, no cycles, reports only render, no
global plotting state, and no project history in what users read."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "forensic_lr"
TEMPLATES = PACKAGE.parent / "templates"

#: Layers from the bottom up (docs/dev/architecture.md): a module may import its own layer
#: and the layers below it, never above.
LAYERS = {
    "errors": 0, "limits": 0, "_numbers": 0, "records": 1, "provenance": 1, "_checks": 1,
    "_resources": 1,
    "resampling": 2, "parallel": 2, "io": 2, "metrics": 3, "calibration": 4, "uncertainty": 5,
    "validation": 6, "casework": 7, "plots": 8, "output": 8, "studies": 8, "sklearn": 8,
    "report": 9,
    "web": 10, "cli": 10, "__main__": 11,
}


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, *, top_level_only: bool) -> set[str]:
    """Absolute names of the forensic_lr modules ``path`` imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]
    nodes = tree.body if top_level_only else ast.walk(tree)
    found = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
            if node.module:
                found.add(target)
            else:  # from . import x: x is a module of the package
                found.update(f"{target}.{a.name}" for a in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("forensic_lr"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("forensic_lr"))
    return found


def _layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer():
    missing = {_module(p).split(".")[1] for p in SOURCES if p.parent != PACKAGE or
               p.name != "__init__.py"} - set(LAYERS)
    assert not missing, f"add these to LAYERS and to docs/dev/architecture.md: {missing}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: _module(p))
def test_imports_go_down_the_layers(path):
    own = _layer(_module(path))
    if own is None:  # forensic_lr/__init__.py: the lazy public API
        return
    upward = {m for m in _imports(path, top_level_only=False)
              if (_layer(m) or 0) > own}
    assert not upward, f"{_module(path)} (layer {own}) imports upwards: {sorted(upward)}"


def test_no_import_cycles():
    graph = {_module(p): {m for m in _imports(p, top_level_only=True)} for p in SOURCES}
    graph = {k: {m for m in v if m in graph} for k, v in graph.items()}
    state: dict[str, int] = {}

    def visit(node, stack):
        state[node] = 1
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt):], nxt]
                raise AssertionError(f"import cycle: {' -> '.join(cycle)}")
            if nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node, [node])


def test_reports_only_render():
    """Nothing under report/ fits, resamples or evaluates: no calibration, uncertainty,
    resampling, validation or metric computation is imported there (the metric
    catalogue, a table of names, is allowed)."""
    forbidden = ("forensic_lr.calibration", "forensic_lr.uncertainty", "forensic_lr.resampling",
                 "forensic_lr.validation", "forensic_lr.casework.pipeline",
                 "forensic_lr.casework.evidence")
    for path in (PACKAGE / "report").rglob("*.py"):
        imported = _imports(path, top_level_only=False)
        bad = {m for m in imported if m.startswith(forbidden)}
        bad |= {m for m in imported
                if m.startswith("forensic_lr.metrics") and m != "forensic_lr.metrics.catalogue"}
        assert not bad, f"{path.name} imports {sorted(bad)}"


def test_importing_the_library_leaves_the_matplotlib_backend_alone():
    code = (
        "import matplotlib; matplotlib.use('svg'); import forensic_lr, forensic_lr.plots, "
        "forensic_lr.casework, forensic_lr.report; print(matplotlib.get_backend())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=PACKAGE.parent).stdout
    assert out.strip() == "svg"


HISTORY = ("seed 00", "seeds 00", "seed text", "issue 1", "issue 2", "issue 3", "issue 4",
           "issue 5", "issue 6", "issue 7", "issue 8", "issue 9")


def test_no_project_history_in_package_templates_or_help():
    root = PACKAGE.parent
    texts = {str(p): p.read_text(encoding="utf-8") for p in
             [*SOURCES, *TEMPLATES.rglob("*.html"), *TEMPLATES.rglob("*.css"),
              *(root / "docs").rglob("*.md"), *(root / "case_examples").rglob("*.md"),
              *(root / "case_examples").rglob("*.toml"), root / "README.md"]}
    from forensic_lr.cli import build_parser

    parser = build_parser()
    texts["--help"] = parser.format_help()
    for name, sub in parser._subparsers._group_actions[0].choices.items():
        texts[f"{name} --help"] = sub.format_help()
    found = [(name, h) for name, text in texts.items() for h in HISTORY if h in text.lower()]
    assert not found


def test_public_api_is_listed_for_tab_completion():
    import forensic_lr

    names = dir(forensic_lr)
    for name in ("evaluate", "make_calibrator", "load_scores", "run_case", "evaluate_evidence",
                 "run_validation_study", "plots", "records"):
        assert name in names
        assert getattr(forensic_lr, name) is not None
