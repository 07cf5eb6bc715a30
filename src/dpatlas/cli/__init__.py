"""The ``dpatlas`` command line: private releases of graphs and maps from the shell.

Exit codes: 0 done; 1 refused (the privacy budget does not cover the release, or the ledger
cannot be used), nothing spent; 2 the command cannot run as given (bad arguments or input),
the one-line message says how to fix it; 3 the release was made and debited, but a later step
(writing a file) failed: the message says what stays debited and which files were written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
import warnings
from collections.abc import Sequence
from typing import NoReturn

from dpatlas import __version__
from dpatlas.cli import budget, demo, export, graph, heatmap, synthesize
from dpatlas.cli._common import (
    Output,
    debit_left,
    output_options,
    release_options,
    shell_words,
    to_json,
)
from dpatlas.errors import BudgetExceededError, LedgerError

__all__ = ["main"]

_EPILOG = """\
start here:
  dpatlas demo                       private heatmaps + triangle count on the embedded data
  dpatlas triangles --help           edge-DP triangle count of an edge list (also: edges,
                                     degrees, kstars, clustering)
  dpatlas synthesize --help          edge-DP synthetic graph of an edge list
  dpatlas heatmap --help             private heatmap of sites (GeoPackage, GeoTIFF, PNG, HTML)
  dpatlas export --help              render a saved heatmap again, without spending budget
  dpatlas budget --help              the persistent privacy budget of a dataset
"""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit code 2) that point to ``--help``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    """The full parser (exposed for tests and documentation)."""
    parser = _Parser(
        prog="dpatlas",
        description="Differentially private analytics of graphs and maps.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dpatlas {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    out, rel = output_options(), release_options()
    demo.add_parser(sub, [out])
    graph.add_parsers(sub, [out, rel])
    synthesize.add_parser(sub, [out, rel])
    heatmap.add_parser(sub, [out, rel])
    export.add_parser(sub, [out])
    budget.add_parser(sub, [out])
    return parser


def _fail(args: argparse.Namespace, out: Output, code: int, message: str, err: Exception) -> int:
    if out.json:
        payload = {"error": message, "error_type": type(err).__name__, "exit_code": code}
        if isinstance(err, BudgetExceededError):
            payload.update(
                requested_epsilon=err.requested_epsilon,
                requested_delta=err.requested_delta,
                remaining_epsilon=err.remaining_epsilon,
                remaining_delta=err.remaining_delta,
            )
        print(json.dumps(payload, indent=2, default=to_json))
    what = "refused" if code == 1 else "error"
    command = " ".join(filter(None, [args.command, getattr(args, "action", None)]))
    print(f"dpatlas {command}: {what}: {message}", file=sys.stderr)
    return code


def _failed(args: argparse.Namespace, out: Output, words: dict[str, str], err: Exception) -> int:
    """The exit code of a command that raised ``err``, its message printed; a bug that spent
    nothing is raised again (with its traceback)."""
    spent = debit_left(out)
    if spent is not None:  # after the debit: say what stays spent, whatever failed
        if not isinstance(err, (ValueError, TypeError, OSError, LedgerError)):  # a bug: where
            traceback.print_exception(err, file=sys.stderr)
        message = shell_words(str(err).replace("\n", " "), words)
        return _fail(args, out, 3, f"{message}; {spent}", err)
    if isinstance(err, (BudgetExceededError, LedgerError)):
        # the advice in the shell's words ("--delta 0"); the amounts before it stay as they are
        amounts, nothing, advice = str(err).partition("Nothing was spent;")
        return _fail(args, out, 1, amounts + nothing + shell_words(advice, words), err)
    if isinstance(err, (ValueError, TypeError, OSError)):
        return _fail(args, out, 2, shell_words(str(err).replace("\n", " "), words), err)
    raise err


def _attach_values(argv: Sequence[str]) -> list[str]:
    """``--extent -92,-1.5,-89,0.7`` as ``--extent=-92,...``: argparse would take the value,
    which starts with a minus sign, for an option."""
    out: list[str] = []
    for arg in argv:
        if out and out[-1] == "--extent" and arg.startswith("-") and arg[1:2].isdigit():
            out[-1] = f"--extent={arg}"
        else:
            out.append(arg)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dpatlas`` console script; returns the exit code.

    Examples
    --------
    >>> import os, tempfile
    >>> ledger = os.path.join(tempfile.mkdtemp(), "ledger.sqlite")
    >>> main(["budget", "init", ledger, "--dataset", "nests", "--epsilon", "1", "--quiet"])
    dataset 'nests' in ... (basic accounting)
      total      epsilon=1          delta=0
      spent      epsilon=0          delta=0
      remaining  epsilon=1          delta=0
      releases   0
    0
    """
    args = build_parser().parse_args(_attach_values(sys.argv[1:] if argv is None else argv))
    out = Output(json=args.json, quiet=args.quiet)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            code = int(args.func(args, out))
        except Exception as err:  # the keywords read after the command, which may name a file
            code = _failed(args, out, getattr(args, "keywords", {}), err)
    words = getattr(args, "keywords", {})
    out.warnings.extend(
        f"{w.category.__name__}: {shell_words(str(w.message), words)}" for w in caught
    )
    try:
        out.emit(result=code == 0)
    except BrokenPipeError:  # `dpatlas ... | head` stopped reading: not a failure of the command
        if _stdout_to_devnull():
            out.emit(result=code == 0)  # again, for the warnings and notes on stderr
    return code


def _stdout_to_devnull() -> bool:
    """Point stdout at the null device, so that later writes and the flush at exit do not fail
    again on the closed pipe (the recipe of Python's ``signal`` documentation); False when
    stdout is not a file."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
    return True


if __name__ == "__main__":
    sys.exit(main())
