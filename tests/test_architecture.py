"""The package's shape: layers import only downwards (imports inside functions included), no
import cycle at any depth, reports only render, no global plotting state, no dependency's
module patched, no Linux-only process plumbing, and no project history in what users read."""

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
    "errors": 0, "limits": 0, "defaults": 0, "_numbers": 0, "i18n": 0, "display": 0,
    "records": 1, "provenance": 1, "_checks": 1,
    "_resources": 1,
    "resampling": 2, "parallel": 2, "io": 2, "metrics": 3, "calibration": 4, "features": 4,
    "uncertainty": 5,
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


def _import_graph(*, top_level_only: bool) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (at module level only, or at any depth:
    inside functions and methods too)."""
    graph = {_module(p): _imports(p, top_level_only=top_level_only) for p in SOURCES}
    return {k: {m for m in v if m in graph and m != k} for k, v in graph.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups = []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_cycle_finder_finds_a_cycle_through_a_function_level_import():
    """The finder itself, on hand-made graphs (a <-> b, and a loop of three), and the
    import reader on a real function-level import: cli/case.py imports cli/batch.py only
    inside ``run``."""
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set(), "c": {"a"}}) == []
    case = PACKAGE / "cli" / "case.py"
    assert "forensic_lr.cli.batch" not in _imports(case, top_level_only=True)
    assert "forensic_lr.cli.batch" in _imports(case, top_level_only=False)


def test_no_import_cycles_at_any_depth():
    """No two modules import each other, directly or round a loop, counting the imports
    made inside functions (which only defer a cycle to the first call)."""
    cycles = _cycles(_import_graph(top_level_only=False))
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def _dependency_names(tree: ast.AST) -> set[str]:
    """Names bound to anything imported from a dependency (modules, classes): not from the
    package, not from the standard library."""

    def dependency(module: str) -> bool:
        top = module.split(".")[0]
        return top != "forensic_lr" and top not in sys.stdlib_module_names

    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names
                         if dependency(a.name))
        elif isinstance(node, ast.ImportFrom) and not node.level and dependency(node.module):
            names.update(a.asname or a.name for a in node.names)
    return names


def _root(node: ast.AST) -> str | None:
    """``a`` of ``a.b[c].d``."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


#: Methods that change the object they are called on (a dict or list of a dependency).
_MUTATORS = {"setdefault", "update", "append", "extend", "insert", "pop", "clear",
             "__setitem__", "register"}


def _patches(path: Path) -> list[str]:
    """Lines of ``path`` that assign into an imported dependency (``lib.x = ...``,
    ``lib.TABLE[k] = ...``, ``setattr(lib, ...)``, ``lib.TABLE.setdefault(...)``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    deps = _dependency_names(tree)
    found = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            targets = [t for t in targets if isinstance(t, ast.Attribute | ast.Subscript)]
        elif isinstance(node, ast.Delete):
            targets = [t for t in node.targets if isinstance(t, ast.Attribute | ast.Subscript)]
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in ("setattr", "delattr") and node.args:
                targets = [node.args[0]]
            elif (isinstance(f, ast.Attribute) and f.attr in _MUTATORS
                  and isinstance(f.value, ast.Attribute | ast.Subscript)):
                targets = [f.value]  # lib.TABLE.setdefault(...), not lib.function(...)
        found += [f"{path.name}:{node.lineno}" for t in targets if _root(t) in deps]
    return sorted(found)


def test_patch_finder_on_hand_made_code(tmp_path):
    """Three patches of dependencies found; a call, a local dict and the process
    environment (standard library) are not patches."""
    code = ("import weasyprint.svg as w\nfrom numpy import random\nimport json, os\n"
            "w.TAGS['x'] = 1\nw.TAGS.setdefault('y', 2)\nsetattr(random, 'seed', 3)\n"
            "json.loads('1')\nd = {}\nd['k'] = w.TAGS\nos.environ['A'] = '0'\n")
    (tmp_path / "m.py").write_text(code)
    assert _patches(tmp_path / "m.py") == ["m.py:4", "m.py:5", "m.py:6"]


def test_nothing_assigns_into_a_dependency():
    found = [hit for p in SOURCES for hit in _patches(p)]
    assert not found, f"assignments into a dependency's module: {found}"


def _os_calls(path: Path) -> list[str]:
    """``/proc/`` in a string (f-strings included; docstrings are prose), or a call of
    ``os.fork``/``fork``, in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and "/proc/" in node.value and not _is_docstring(tree, node)):
            found.append(f"{path.name}:{node.lineno} reads /proc")
        elif isinstance(node, ast.Call) and (
                (isinstance(node.func, ast.Attribute) and node.func.attr in ("fork", "forkpty")
                 and _root(node.func) == "os")
                or (isinstance(node.func, ast.Name) and node.func.id == "fork")):
            found.append(f"{path.name}:{node.lineno} calls os.fork")
    return sorted(found)


def _is_docstring(tree: ast.AST, constant: ast.Constant) -> bool:
    return any(isinstance(n, ast.Expr) and n.value is constant for n in ast.walk(tree))


def test_os_call_finder_on_hand_made_code(tmp_path):
    code = ('"""Reads /proc/loadavg (a docstring: allowed)."""\nimport os\n'
            'open("/proc/loadavg")\nopen(f"/proc/self/task/{1}/stat")\npid = os.fork()\n')
    (tmp_path / "m.py").write_text(code)
    assert _os_calls(tmp_path / "m.py") == [
        "m.py:3 reads /proc", "m.py:4 reads /proc", "m.py:5 calls os.fork"]


def test_no_file_reads_proc_or_forks():
    """Linux-only process plumbing: the package runs the same on Windows and macOS."""
    found = [hit for p in SOURCES for hit in _os_calls(p)]
    assert not found, f"Linux-only process plumbing: {found}"


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


def test_no_module_imports_another_modules_private_names():
    """Code two modules share has a public name (a leading underscore means "this module
    only"); ``from x import y as _y`` (a private alias) is fine."""
    found = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                found += [f"{_module(path)}: {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert not found, found
