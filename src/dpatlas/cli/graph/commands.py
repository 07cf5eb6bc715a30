"""The five graph commands: their parsers, the checks before anything is spent, and the run."""

from __future__ import annotations

import argparse
import importlib
import warnings
from pathlib import Path
from typing import Any

from dpatlas.cli._common import (
    Output,
    UsageError,
    add_command,
    budget_summary,
    check_input_file,
    node_list_words,
    positive_float,
    release_budget,
)
from dpatlas.cli.graph.report import release_interval, report, shown_value
from dpatlas.cli.graph.statistics import KEYWORDS, STATISTICS, Statistic
from dpatlas.cli.progress import Steps, show_progress

__all__ = ["add_parsers", "public_nodes", "read_node_list", "run"]

_COUNT_NOTES = (
    "Methods: piecewise (pure ε, the most accurate: piecewise-Laplace noise over the\n"
    "sensitivity ladder; the default, except for k-stars: only with --k 2), ladder (pure ε,\n"
    "Zhang et al. 2015; the k-star default), smooth (smooth sensitivity: pure ε with Cauchy\n"
    "noise, or (ε, δ) with --delta), global (Laplace at the global sensitivity). Piecewise,\n"
    "ladder and smooth noise scales depend on the graph: a 95% interval costs\n"
    "--interval-epsilon more; global releases have one for free."
)


def _epilog(stat: Statistic) -> str:
    extra = " --k 2" if stat.name == "kstars" else ""
    notes = stat.notes or _COUNT_NOTES
    return (
        "examples:\n"
        f"  dpatlas {stat.name} edges.txt.gz{extra} --nodes 36692 --epsilon 0.5\n"
        f"  dpatlas {stat.name} edges.txt{extra} --node-list nodes.txt --epsilon 1 \\\n"
        "      --ledger ledger.sqlite --dataset coauthors --json\n\n"
        "Edge-DP: two graphs on the same public node set are neighbours when they differ in one\n"
        "edge. The node set is public and required: give its size with --nodes N (every node,\n"
        "with or without an edge; ids in the file need not be 0..N-1: the distinct ids, sorted,\n"
        "become nodes 0, 1, ..., the other nodes have no edge) or list its ids with --node-list\n"
        "FILE. Without it nothing is read or spent: the nodes seen in the edge list depend on\n"
        "the data.\n" + notes + "\n"
    )


def add_parsers(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Register the five graph commands."""
    for stat in STATISTICS.values():
        p = add_command(
            sub,
            stat.name,
            help=stat.help,
            description=f"Release the {stat.what} of a graph under edge-DP.",
            parents=parents,
            epilog=_epilog(stat),
        )
        p.add_argument(
            "edges",
            metavar="EDGES",
            type=Path,
            help="edge list (SNAP format; may be gzip, bzip2 or xz compressed)",
        )
        nodes = p.add_argument_group("public node set").add_mutually_exclusive_group()
        nodes.add_argument(
            "--nodes",
            type=int,
            metavar="N",
            help="public number of nodes, required unless --node-list (ids in the file are "
            "relabelled; nodes without an edge count too)",
        )
        nodes.add_argument(
            "--node-list",
            type=Path,
            metavar="FILE",
            help="file of the public node ids, one per line ('#' comments)",
        )
        p.add_argument(
            "--epsilon", type=positive_float, default=1.0, help="privacy loss (default 1)"
        )
        if stat.methods:
            p.add_argument(
                "--method",
                choices=stat.methods,
                default=stat.methods[0],
                help=f"mechanism (default {stat.methods[0]})",
            )
        if stat.delta_methods:
            p.add_argument(
                "--delta",
                type=float,
                default=0.0,
                help=f"δ for --method {' / '.join(stat.delta_methods)} (default 0)",
            )
        if stat.interval_methods:
            p.add_argument(
                "--interval-epsilon",
                type=positive_float,
                metavar="E",
                help="extra ε spent on a private bound on the noise size that gives "
                f"{' and '.join(stat.interval_methods)} releases a 95%% interval (global "
                "releases have one for free); what it buys: docs/intervals-graphs.md",
            )
        for option in stat.options:
            p.add_argument(option.flag, **option.settings)
        p.set_defaults(func=run, statistic=stat, keywords=KEYWORDS)


def _checked(stat: Statistic, args: argparse.Namespace) -> dict[str, Any]:
    """The API's keyword arguments, after the checks that need no data (usage errors)."""
    if args.nodes is None and args.node_list is None:
        raise UsageError(
            f"dpatlas {stat.name} needs the public number of nodes: pass --nodes N (every node "
            "of the graph, with or without an edge; ids need not be 0..N-1) or --node-list FILE. "
            "The nodes seen in the edge list depend on the data, so a release on them is not "
            "edge-DP: nothing was read or spent"
        )
    check_input_file("EDGES", args.edges, "the edge list file")
    method = getattr(args, "method", None)
    delta = getattr(args, "delta", 0.0)
    if delta and method not in stat.delta_methods:
        raise UsageError(
            f"--delta applies only to --method {' or '.join(stat.delta_methods)}; the {method} "
            "method is pure ε-DP: drop --delta"
        )
    if delta < 0 or delta >= 1:
        raise UsageError(f"--delta must be in [0, 1), got {delta:g}")
    extra = getattr(args, "interval_epsilon", None)
    if extra is not None and method not in stat.interval_methods:
        raise UsageError(
            f"--interval-epsilon is not needed with --method {method}: its noise scale is "
            "public, so its interval is free; drop --interval-epsilon"
        )
    if args.nodes is not None and args.nodes < 1:
        raise UsageError(f"--nodes must be a whole number >= 1, got {args.nodes}")
    if args.nodes is not None:  # too many for the CSR arrays or memory: refused before the read
        _check_memory(stat, args, args.nodes)
    kwargs: dict[str, Any] = {"epsilon": args.epsilon, "rng": args.seed}
    if stat.methods:
        kwargs["method"] = method
    if stat.delta_methods:
        kwargs["delta"] = delta
    if stat.interval_methods:
        kwargs["interval_epsilon"] = extra
    for option in stat.options:
        value = getattr(args, option.keyword)
        if option.methods and method not in option.methods and value not in (None, False):
            raise UsageError(
                f"{option.flag} applies only to --method {' or '.join(option.methods)}; "
                f"drop {option.flag}"
            )
        kwargs[option.keyword] = value
    return kwargs


def _check_memory(stat: Statistic, args: argparse.Namespace, n: int) -> None:
    """Refuse ``n`` public nodes that the CSR arrays or this machine's memory cannot hold."""
    from dpatlas.graph.input._convert import check_node_count

    per_node = stat.bytes_per_node + (stat.json_bytes_per_node if args.json else 0)
    check_node_count(n, per_node, f"for dpatlas {stat.name}")


def public_nodes(args: argparse.Namespace) -> Any:
    """The ids of ``--node-list`` (None without it); from here on, messages that depend on the
    node count name the list and its count instead of ``--nodes N``."""
    if args.node_list is None:
        return None
    nodes = read_node_list(args.node_list)
    args.keywords = {**args.keywords, "n": node_list_words(args.node_list, int(nodes.size))}
    return nodes


def read_node_list(path: Path) -> Any:
    """The public node ids listed in ``path`` (one integer per line, ``#`` comments; a UTF-8
    byte-order mark is skipped)."""
    import numpy as np

    check_input_file("--node-list", path, "the file of node ids")
    try:
        with warnings.catch_warnings():  # an empty file: refused below, not warned about
            warnings.simplefilter("ignore", UserWarning)
            ids = np.loadtxt(path, dtype=np.int64, comments="#", ndmin=1, encoding="utf-8-sig")
    except ValueError:
        ids = None
    if ids is None or ids.ndim != 1:
        raise UsageError(
            f"--node-list {path} must hold one integer node id per line; {_first_bad_line(path)}"
        )
    if ids.size == 0:
        raise UsageError(f"--node-list {path} lists no node id; give one integer id per line")
    if ids.min() < 0:
        raise UsageError(
            f"--node-list {path} must hold node ids >= 0, as the edge list's are, got "
            f"{ids.min()}; delete or renumber it"
        )
    ranked = np.sort(ids)
    repeated = ranked[1:][ranked[1:] == ranked[:-1]]
    if repeated.size:  # the read would refuse it, and the node count is the number of ids
        raise UsageError(
            f"--node-list {path} must not contain repeated ids, got {repeated[0]} more than "
            "once; list each id once"
        )
    return ids


def _first_bad_line(path: Path) -> str:
    """``line N is 'text'`` for the first line of a node list that is not one integer."""
    from dpatlas.core.validation import is_integer_text

    with path.open(encoding="utf-8-sig", errors="replace") as f:
        for number, line in enumerate(f, 1):
            fields = line.split("#", 1)[0].split()
            if len(fields) > 1 or (fields and not is_integer_text(fields[0])):
                return f"line {number} is {line.rstrip()!r}"
    return "one id is too large for int64"


def run(args: argparse.Namespace, out: Output) -> int:
    """Run one graph command (the row of :data:`STATISTICS` in ``args.statistic``)."""
    import dpatlas.graph as graphs
    from dpatlas.core.accounting.charge import open_charge

    stat: Statistic = args.statistic
    kwargs = _checked(stat, args)
    nodes = public_nodes(args)
    if nodes is not None:  # as for --nodes, before EDGES is opened
        _check_memory(stat, args, int(nodes.size))
    # The release's own public checks (check_<function>, beside it, which it calls too) on the
    # public node count, before EDGES is opened: its parameters and those that depend on n (a
    # degree cap, k); then its noise scales and the cost the budget must pay (the release
    # debits it; this charge is checked only).
    api = getattr(graphs, stat.function)
    checks = getattr(importlib.import_module(api.__module__), f"check_{stat.function}")
    public = checks(
        args.nodes if nodes is None else int(nodes.size),
        **{key: value for key, value in kwargs.items() if key != "rng"},
    )
    budget = release_budget(args, out)
    open_charge(public.cost, budget, mechanism=stat.name, scales=public.scales)
    steps = ["read edge list", f"release the {stat.what}"]
    with Steps(steps, enabled=show_progress(args.quiet), desc=stat.name) as bar:
        with bar.step(f"reading {args.edges.name}"):
            g = graphs.read_edgelist(args.edges, n=args.nodes, nodes=nodes)
        with bar.step(f"computing the {stat.what} and drawing noise"):
            release = api(g, budget=budget, **kwargs)
    interval = release_interval(release)
    out.payload.update(
        {
            "command": stat.name,
            "edges": str(args.edges),
            "value": shown_value(release, stat),
            "interval95": None if interval is None else list(interval),
            "interval": release.metadata.get("interval"),
            "release": release.to_dict(),
            "budget": None if budget is None else budget_summary(budget),
        }
    )
    raw = getattr(release, "raw", None)
    if raw is not None:  # the noisy sorted degrees: the histogram's "interval" covers them
        low, high = raw.confidence_interval(0.95)
        out.payload["raw"] = raw.value.tolist()
        out.payload["raw_interval95"] = [
            [lo, hi] for lo, hi in zip(low.tolist(), high.tolist(), strict=True)
        ]
    for line in report(release, stat, source=args.edges.name):
        out.line(line)
    out.budget_left(args.dataset, budget)
    out.seeded(release)
    return 0
