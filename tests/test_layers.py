"""Each layer imports only below it: no import circle among kernelviz's modules, lazy imports inside
functions included, and the model imports nothing of kernelviz's but itself."""

import ast
import graphlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "kernelviz"


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The kernelviz modules ``name`` imports anywhere in its file (a name imported from a package that is a
    module of its own counts as that module)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1] + [node.module or ""]).strip(".") \
                if node.level else node.module or ""
            targets = [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            continue
        for target in targets:
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in modules and target != name:
                found.add(target)
    return found


def test_no_import_circle_and_the_model_imports_nothing_above_it():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert len(graph) > 50 and graph["kernelviz.repro.record"] >= {"kernelviz.bench.grid", "kernelviz.model"}
    graphlib.TopologicalSorter(graph).prepare()  # raises CycleError naming the circle
    assert graph["kernelviz.model"] == set()
    assert not graph["kernelviz.compare.model"] - {"kernelviz.model"}
