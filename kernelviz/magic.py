"""The ``%%kernelviz`` cell magic and ``%kernelviz`` line magic (IPython is imported lazily)."""

from __future__ import annotations

import ast
import sys

from IPython.core.magic import Magics, line_cell_magic, magics_class, needs_local_scope
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from .recorder import CaptureSession


@magics_class
class KernelvizMagics(Magics):
    @magic_arguments()
    @argument("-o", "--output", metavar="NAME", help="store the Capture in this variable")
    @argument("--fresh", action="store_true",
              help="turn Inductor's FX graph cache off in the cell: every graph goes through code generation")
    @argument("--bench", action="store_true", help="time every launch and kernel after the cell runs")
    @argument("code", nargs="*", help="with %%kernelviz on one line: the statement to capture")
    @needs_local_scope
    @line_cell_magic
    def kernelviz(self, line: str, cell: str | None = None, local_ns=None):
        """Run the cell (or the rest of the line) and capture every graph Inductor compiles or runs."""
        try:
            args = parse_argstring(self.kernelviz, line)
        except Exception as exc:  # noqa: BLE001 - a usage error is one line, not a traceback
            print(f"kernelviz: {exc}", file=sys.stderr)
            return None
        source = cell if cell is not None else " ".join(args.code)
        session = CaptureSession(fresh_compile=args.fresh, bench=args.bench)
        namespace = self.shell.user_ns
        try:
            with session:
                value = _run(self.shell.transform_cell(source), namespace, local_ns)
        finally:
            if args.output:
                namespace[args.output] = session.capture
            self._show(session.capture)
        return value

    @staticmethod
    def _show(capture) -> None:
        from .views.display import show

        show(capture)


def _run(source: str, namespace: dict, local_ns: dict | None):
    """Execute code as IPython would, returning the value of a final expression."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, "<kernelviz cell>", "exec"), namespace, local_ns)
    if last is None:
        return None
    return eval(compile(ast.Expression(last.value), "<kernelviz cell>", "eval"), namespace, local_ns)


def register(ipython) -> None:
    ipython.register_magics(KernelvizMagics)
