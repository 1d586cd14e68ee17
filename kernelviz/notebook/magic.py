"""The ``%%kernelviz`` cell magic and ``%kernelviz`` line magic (IPython is imported lazily)."""

from __future__ import annotations

import ast
import sys

from IPython.core.magic import Magics, line_cell_magic, magics_class, needs_local_scope
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from ..conductor import Capturing, LiveCapture
from ..recorder.cells import register as register_cell


@magics_class
class KernelvizMagics(Magics):
    @magic_arguments()
    @argument("-o", "--output", metavar="NAME", help="store the Capture in this variable")
    @argument("--fresh", action="store_true",
              help="turn Inductor's FX graph cache off in the cell: every graph goes through code generation")
    @argument("--bench", action="store_true", help="time every launch and kernel after the cell runs")
    @argument("--counters", action="store_true",
              help="time the launches, then measure hardware counters of the top 10 under Nsight Compute")
    @argument("--diff", metavar="BASE", help="show the capture against BASE: a Capture variable or a path to load")
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
        from .display import LiveDisplay, in_kernel

        source = cell if cell is not None else " ".join(args.code)
        capture = LiveCapture()
        output = LiveDisplay(capture) if in_kernel() else None
        progress = output.report if output is not None else True  # the panel opens before timing, with progress
        capturing = Capturing(fresh_compile=args.fresh, bench=args.bench or args.counters, progress=progress,
                              capture=capture)
        namespace = self.shell.user_ns
        try:
            with capturing:
                value = self._run(source, namespace, local_ns, below=1 if cell is not None else 0)
            if args.counters:
                capture.counters(progress=progress)
        finally:
            if args.output:
                namespace[args.output] = capture
            self._show_safely(args.diff, capture, output, namespace)
        return value

    def _show_safely(self, base: str | None, capture, output, namespace: dict) -> None:
        """Show the capture (against ``base`` with --diff). A failure to show it is one line on stderr: the
        cell's own exception, or its value, is what the cell gives."""
        try:
            if base:
                from .diff_display import show_against

                show_against(base, capture, namespace)
            else:
                self._show(capture, output)
        except Exception as exc:  # noqa: BLE001 - the cell's outcome is not replaced by a view's error
            message = str(exc).strip().splitlines()
            print(f"kernelviz: the capture could not be shown{f' against {base}' if base else ''}: "
                  f"{type(exc).__name__}: {message[0] if message else ''}", file=sys.stderr)

    def _run(self, source: str, namespace: dict, local_ns: dict | None, below: int):
        """Execute the cell as IPython would: under a name registered in ``linecache`` (so tracebacks and
        the capture's source lines show the cell's text), returning the value of a final expression. A
        user's exception keeps its traceback from the cell's own frames, as without the magic. ``below``:
        the lines of the cell above ``source`` (the magic's), so that lines are counted as the cell shows them."""
        code = self.shell.transform_cell(source)
        filename = self.shell.compile.cache(code, _cell_number(self.shell), raw_code=source)
        register_cell(filename, below)
        tree = ast.parse(code, filename)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        try:
            exec(compile(tree, filename, "exec"), namespace, local_ns)
            if last is None:
                return None
            return eval(compile(ast.Expression(last.value), filename, "eval"), namespace, local_ns)
        except Exception as exc:
            _render_from(exc, filename, self.shell)
            raise

    @staticmethod
    def _show(capture, output) -> None:
        if output is not None:
            output.finish()
            return
        from .display import show

        show(capture)


def _cell_number(shell) -> int:
    """The execution count (In [n]) of the cell running the magic: that of the innermost frame in a cell's file
    (IPython may count the cell before it runs, so ``execution_count`` can already be the next one)."""
    numbers = getattr(shell.compile, "_filename_map", {})
    frame = sys._getframe(1)
    while frame is not None:
        if isinstance(number := numbers.get(frame.f_code.co_filename), int):
            return number
        frame = frame.f_back
    return shell.execution_count


def _render_from(exc: BaseException, filename: str, shell) -> None:
    """Make IPython show ``exc`` from the cell's first frame on (IPython asks ``_render_traceback_``)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    if tb is None:
        return
    try:
        stb = shell.InteractiveTB.structured_traceback(type(exc), exc, tb, tb_offset=0)
        exc._render_traceback_ = lambda: stb
    except (AttributeError, TypeError):  # an exception class without instance attributes keeps IPython's
        pass


def register(ipython) -> None:
    ipython.register_magics(KernelvizMagics)
