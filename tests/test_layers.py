"""Each layer imports only below it: no import circle among kernelviz's modules, nor among its packages (a
subpackage, or a module at the top), lazy imports inside functions included. The one way up is a door: a method
declared on a model class (``Capture.bench``, ``Capture.to_html``...) that imports the module doing the work when
called. The model imports nothing of kernelviz's at import time.

``python tests/test_layers.py`` prints who imports whom by package."""

import ast
import graphlib
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "kernelviz"
DOCUMENT_MODULES = ("kernelviz.model", "kernelviz.compare.model")  # whose classes' methods may be doors


def _modules(root: Path = PACKAGE) -> dict[str, Path]:
    """kernelviz's modules by dotted name, in the tree of ``root`` (a ``kernelviz`` folder)."""
    found = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, str]]:
    """(module imported, how): "eager" at import time, "lazy" inside a function, "door" inside a method of a
    class, "typing" under ``if TYPE_CHECKING:`` (a name imported from a package that is a module of its own counts
    as that module)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = []

    def visit(node: ast.AST, how: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and getattr(child.test, "id", "") == "TYPE_CHECKING":
                visit(child, "typing")
                continue
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, "door" if isinstance(node, ast.ClassDef) and how == "eager" else
                      "lazy" if how == "eager" else how)
                continue
            if isinstance(child, ast.ImportFrom):
                base = ".".join(package[:len(package) - child.level + 1] + [child.module or ""]).strip(".") \
                    if child.level else child.module or ""
                targets = [f"{base}.{alias.name}" for alias in child.names]
            elif isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            else:
                visit(child, how)
                continue
            for target in targets:
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in modules and target != name:
                    found.append((target, how))

    visit(ast.parse(path.read_text()), "eager")
    return found


def _external(path: Path) -> set[str]:
    """The top-level names of what ``path`` imports from outside kernelviz, at any depth."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.add((node.module or "").split(".")[0])
    return found - {"kernelviz"}


def _graph(keep) -> dict[str, set[str]]:
    modules = _modules()
    return {name: {t for t, how in _imports(name, path, modules) if keep(name, how)} for name, path in modules.items()}


def test_no_import_circle_and_the_model_imports_nothing_above_it():
    at_import = _graph(lambda name, how: how == "eager")
    assert len(at_import) > 50 and at_import["kernelviz.repro.record"] >= {"kernelviz.calls", "kernelviz.model"}
    graphlib.TopologicalSorter(at_import).prepare()  # raises CycleError naming the circle
    assert at_import["kernelviz.model"] == set()
    assert not at_import["kernelviz.compare.model"] - {"kernelviz.model", "kernelviz.codec"}
    # lazy imports too, but for the model's doors: still no circle
    without_doors = _graph(lambda name, how: how in ("eager", "lazy") or (
        how == "door" and name not in DOCUMENT_MODULES))
    graphlib.TopologicalSorter(without_doors).prepare()


def package(module: str) -> str:
    """``kernelviz.views.html`` -> ``views``; a module at the top is its own: ``kernelviz.model`` -> ``model``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "kernelviz"


def package_imports(root: Path = PACKAGE) -> dict[str, dict[str, set[str]]]:
    """Who imports whom by package in the tree of ``root``: {importer: {imported: the modules' imports that make
    the edge}}, counting imports at import time and inside functions, but not the model's doors nor imports for type
    checkers."""
    modules = _modules(root)
    found: dict[str, dict[str, set[str]]] = {package(name): {} for name in modules}
    for name, path in modules.items():
        for target, how in _imports(name, path, modules):
            if how == "typing" or (how == "door" and name in DOCUMENT_MODULES) or package(target) == package(name):
                continue
            found[package(name)].setdefault(package(target), set()).add(f"{name} -> {target}")
    return found


def test_no_package_circle_counting_function_level_imports():
    """Package by package, lazy imports included, the model's doors aside: the packages form layers (a circle
    fails naming its packages and the imports that close it)."""
    edges = package_imports()
    assert edges["views"].keys() >= {"model", "names", "units"} and "views" in edges["notebook"]
    try:
        graphlib.TopologicalSorter({a: set(b) for a, b in edges.items()}).prepare()
    except graphlib.CycleError as exc:
        circle = exc.args[1]
        raise AssertionError("a circle of packages: " + "; ".join(
            f"{a} -> {b} ({', '.join(sorted(edges[a][b]))})" for a, b in zip(circle, circle[1:]))) from None


def table(root: Path = PACKAGE) -> str:
    """Who imports whom by package, a line per package (what ``docs/layout.md`` shows)."""
    edges = package_imports(root)
    width = max(map(len, edges))
    return "\n".join(f"{a:<{width}}  -> {', '.join(sorted(edges[a])) or '-'}" for a in sorted(edges))


def test_the_layout_doc_shows_who_imports_whom_as_the_code_does():
    doc = (PACKAGE.parent / "docs" / "layout.md").read_text()
    shown = doc.split("## Who imports whom", 1)[1].split("```text\n", 1)[1].split("\n```", 1)[0]
    assert shown == table(), "docs/layout.md: paste what `python tests/test_layers.py` prints"


def test_views_are_pure_renderers():
    """``kernelviz.views`` renders the model: no torch, IPython or widgets inside (the notebook package shows
    them), and it runs nothing: no timing, counters, recording or conductor."""
    modules = _modules()
    for name, path in modules.items():
        if package(name) != "views":
            continue
        assert not _external(path) & {"torch", "triton", "IPython", "ipywidgets", "anywidget", "traitlets"}, name
        above = {package(t) for t, _ in _imports(name, path, modules)} & {
            "bench", "counters", "recorder", "conductor", "notebook"}
        assert not above, (name, above)


def test_the_models_only_way_up_is_its_doors():
    """In the model's modules every import of kernelviz's above them sits in a method of a model class: a door
    of the form ``from .x import f`` then ``return f(...)`` (or a statement or two around it)."""
    modules = _modules()
    for name in DOCUMENT_MODULES:
        kinds = {how for _, how in _imports(name, modules[name], modules)}
        assert kinds <= {"eager", "door"}, (name, kinds)
        tree = ast.parse(modules[name].read_text())
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
            for method in (n for n in cls.body if isinstance(n, ast.FunctionDef)):
                if any(isinstance(n, ast.ImportFrom) for n in ast.walk(method)):
                    body = [s for s in method.body if not isinstance(s, ast.Expr) or not isinstance(
                        s.value, ast.Constant)]  # the docstring aside
                    assert len(body) <= 4, f"{name}.{cls.name}.{method.name} is a door: keep the work in its module"


def test_the_model_classes_declare_what_users_call():
    """``help(kernelviz.Capture.bench)`` and IDEs see the doors: declared in the class body, not set on it later."""
    import kernelviz
    from kernelviz.compare.model import Diff
    from kernelviz.model import Graph, Kernel, Ranks

    declared = {kernelviz.Capture: ("bench", "counters", "advice", "to_html", "_repr_mimebundle_", "__str__",
                                    "to_json", "save", "save_html", "wait_stages"),
                Ranks: ("to_html", "_repr_mimebundle_", "__str__"), Diff: ("to_html", "_repr_mimebundle_", "__str__"),
                Kernel: ("to_repro",), Graph: ("to_repro",)}
    for cls, names in declared.items():
        for method in names:
            owner = next(c for c in cls.__mro__ if method in vars(c))
            assert owner.__module__ in DOCUMENT_MODULES, (cls.__name__, method, owner)
            assert getattr(cls, method).__doc__ or method.startswith("_"), (cls.__name__, method)
    assert "Time every graph" in kernelviz.Capture.bench.__doc__


if __name__ == "__main__":
    print(table())
    if "-v" in sys.argv:  # and the modules' imports behind each edge
        for importer, imported in sorted(package_imports().items()):
            for target, why in sorted(imported.items()):
                print(f"  {importer} -> {target}: {'; '.join(sorted(why))}")
