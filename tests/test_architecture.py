"""The house rules of docs/architecture.md, checked on the code.

- the import-linter contracts of pyproject.toml hold (layers, estimators
  without I/O, a pipeline without I/O, no import circles);
- no module over 600 lines, no function over 80 lines of code (docstring not
  counted) except the algorithms listed in ``LONG_ALGORITHMS``;
- a function-level import only of a library that is optional or slow to
  import, each with a one-line comment saying why;
- tests import a labelclean private module only from their own room's
  folder; benchmarks and examples import public names only;
- ``labelclean --help`` loads neither the library's rooms nor its heavy
  dependencies.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "labelclean"

MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80

#: Functions that read better whole: one published algorithm's loop each.
LONG_ALGORITHMS = {
    "ensemble/_spbl.py:SPBLClassifier.fit": "Algorithm 1 of spbl.md: column "
    "generation, the fully corrective W step, the self-paced v step and the "
    "annealing, in the paper's order",
    "linear_model/_rosr.py:RoSRClassifier.fit": "Algorithm 1 of rosr.md: the "
    "alternating w and v steps with the per-class thresholds",
}

#: Libraries a function may import lazily: optional extras, or slow to import
#: and needed on one path only. Everything else is imported at module level.
LAZY_IMPORTS = {
    "dask",
    "distributed",
    "faiss",
    "great_expectations",
    "jinja2",
    "matplotlib",
    "pynndescent",
    "rich",
    "scipy",  # utils/_threads: loads scipy's own BLAS to limit its threads
    "labelclean",  # cli: the library behind a command, so --help stays fast
}


def _modules():
    return sorted(PACKAGE.rglob("*.py"))


def _functions(tree):
    """(qualified name, node) of every function, methods included."""

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield prefix + child.name, child
                yield from visit(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                yield from visit(child, prefix + child.name + ".")

    yield from visit(tree, "")


def _code_lines(function) -> int:
    first = min([function.lineno, *(d.lineno for d in function.decorator_list)])
    lines = function.end_lineno - first + 1
    body = function.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        lines -= body[0].end_lineno - body[0].lineno + 1
    return lines


def test_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    command = [str(lint)] if lint.exists() else ["lint-imports"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "BROKEN" not in done.stdout
    assert done.stdout.count("KEPT") >= 4


def test_modules_stay_small():
    big = {
        str(path.relative_to(PACKAGE)): n
        for path in _modules()
        if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert not big, big


def test_functions_stay_short():
    long = {}
    for path in _modules():
        tree = ast.parse(path.read_text())
        for name, function in _functions(tree):
            key = f"{path.relative_to(PACKAGE)}:{name}"
            if _code_lines(function) > MAX_FUNCTION_LINES:
                long[key] = _code_lines(function)
    assert set(long) == set(LONG_ALGORITHMS), long


def test_function_level_imports_are_lazy_on_purpose():
    problems = []
    for path in _modules():
        lines = path.read_text().splitlines()
        tree = ast.parse("\n".join(lines))
        for _, function in _functions(tree):
            previous = None
            for node in ast.walk(function):
                if not isinstance(node, ast.Import | ast.ImportFrom):
                    continue
                module = node.module if isinstance(node, ast.ImportFrom) else None
                module = module or node.names[0].name
                where = f"{path.relative_to(PACKAGE)}:{node.lineno}"
                if module.split(".")[0] not in LAZY_IMPORTS:
                    problems.append(f"{where} imports {module} inside a function")
                # The first import of a group says why, on its line or above.
                grouped = previous is not None and previous == node.lineno - 1
                said = "#" in lines[node.lineno - 1] or lines[
                    node.lineno - 2
                ].strip().startswith("#")
                if not grouped and not said:
                    problems.append(f"{where} imports {module} without saying why")
                previous = node.end_lineno
    assert not problems, problems


def _private_imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "labelclean" and any(p.startswith("_") for p in parts):
                yield name


@pytest.mark.parametrize("folder", ["tests", "benchmarks", "examples"])
def test_outside_code_uses_public_names(folder):
    problems = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        relative = path.relative_to(ROOT)
        for name in _private_imports(path):
            room = name.split(".")[1]
            if folder == "tests" and relative.parts[1] == room:
                continue  # a test of that room's module
            problems.append(f"{relative} imports {name}")
    assert not problems, problems


def test_cli_start_up_loads_no_library_room():
    code = (
        "import sys, labelclean.cli.main; "
        "print(sorted({m.split('.')[0] if not m.startswith('labelclean.') "
        "else '.'.join(m.split('.')[:2]) for m in sys.modules}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    loaded = set(ast.literal_eval(done.stdout))
    heavy = {"numpy", "pandas", "sklearn", "pyarrow", "great_expectations"}
    rooms = {"labelclean.runner", "labelclean.pipeline", "labelclean.confidence"}
    assert not loaded & (heavy | rooms)


def test_public_names_resolve_lazily():
    code = (
        "import sys, labelclean; assert 'labelclean.pipeline' not in sys.modules; "
        "missing = [n for n in labelclean.__all__ if getattr(labelclean, n) is None]; "
        "assert not missing, missing; "
        "from labelclean import LabelCleaner; "
        "from labelclean.pipeline import LabelCleaner as same; "
        "assert LabelCleaner is same; print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


def test_compiled_functions_go_through_one_decorator():
    # numba.njit(cache=True) raises where no cache folder is writable;
    # utils/_compiled.py's `compiled` falls back (docs/scale.md).
    problems = []
    for path in _modules():
        if path.name == "_compiled.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module == "numba":
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.Attribute) and node.attr in {"njit", "jit"}:
                names = [node.attr]
            if {"njit", "jit", "vectorize", "guvectorize"} & set(names):
                problems.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not problems, problems
