"""``dpatlas synthesize``: an edge-DP synthetic graph of an edge list, written as an edge list."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dpatlas.cli._common import (
    Output,
    UsageError,
    add_command,
    budget_summary,
    check_input_file,
    check_output_path,
    positive_float,
    release_budget,
)
from dpatlas.cli.graph import public_nodes
from dpatlas.cli.progress import Steps, show_progress
from dpatlas.core.accounting.charge import open_charge

__all__ = ["add_parser"]

BYTES_PER_NODE = 640
"""Peak memory per public node of ``dpatlas synthesize`` (read, measure, generate, write) on a
graph with almost no edges: measured 565 bytes with tracemalloc at ``--nodes 1000000``."""

_EPILOG = """\
examples:
  dpatlas synthesize edges.txt.gz --nodes 36692 --epsilon 1 --out synthetic.txt
  dpatlas synthesize edges.txt --nodes 4039 --epsilon 2 --out synthetic.txt \\
      --communities communities.txt --ledger ledger.sqlite --dataset friends --json

Edge-DP: two graphs on the same public node set are neighbours when they differ by one
edge. The node set is public and required (--nodes N for ids 0..N-1, or --node-list FILE):
a count read off the edges depends on the data, and so do ids read off the edges, which the
synthetic graph would carry as its node names (refused). The whole graph costs --epsilon,
split between noisy degrees, a private community partition, block edge counts and the
triangle count (see docs/synthetic-graphs.md); any analysis of the written graph is free
post-processing.
"""


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Register ``synthesize``."""
    p = add_command(
        sub,
        "synthesize",
        help="edge-DP synthetic graph of a graph",
        description="Release a synthetic graph under edge-DP and write it as an edge list.",
        parents=parents,
        epilog=_EPILOG,
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
        help="public number of nodes, ids 0..N-1; required unless --node-list",
    )
    nodes.add_argument(
        "--node-list",
        type=Path,
        metavar="FILE",
        help="file of the public node ids, one per line ('#' comments), for ids other than "
        "0..N-1; the synthetic graph's nodes carry these ids",
    )
    p.add_argument("--epsilon", type=positive_float, default=1.0, help="privacy loss (default 1)")
    p.add_argument(
        "--out",
        type=Path,
        metavar="PATH",
        required=True,
        help="where to write the synthetic edge list",
    )
    p.add_argument(
        "--communities",
        type=Path,
        metavar="PATH",
        help="also write the released community of every node ('node community' lines; "
        "part of the same release, no extra cost)",
    )
    p.set_defaults(func=run, keywords={"n": "--nodes", "nodes": "--node-list"})


def run(args: argparse.Namespace, out: Output) -> int:
    """Run ``dpatlas synthesize``."""
    from dpatlas.graph import read_edgelist, synthesize
    from dpatlas.graph.input._convert import check_node_count
    from dpatlas.graph.synthesis.synthetic import check_synthesize

    if args.nodes is None and args.node_list is None:
        raise UsageError(
            "--nodes N (ids 0..N-1) or --node-list FILE is required: the public node set; a "
            "count read off the edges depends on the data and is not edge-DP"
        )
    if args.nodes is not None and args.nodes < 1:
        raise UsageError(f"--nodes must be a whole number >= 1, got {args.nodes}")
    if args.nodes is not None:  # too many for the CSR arrays or memory: refused before the read
        check_node_count(args.nodes, BYTES_PER_NODE, "for dpatlas synthesize")
    check_input_file("EDGES", args.edges, "the edge list file")
    inputs = {"EDGES": args.edges, "--ledger": args.ledger, "--node-list": args.node_list}
    for flag, path in (("--out", args.out), ("--communities", args.communities)):
        if path is not None:
            check_output_path(flag, path, inputs)
            if not path.parent.is_dir():
                raise UsageError(f"{flag} directory not found: {path.parent}; create it first")
    if args.communities is not None and args.communities.resolve() == args.out.resolve():
        raise UsageError(
            f"--communities and --out are the same file ({args.out}); give the communities "
            "their own path"
        )
    nodes = public_nodes(args)
    if nodes is not None:  # as for --nodes, before EDGES is opened
        check_node_count(int(nodes.size), BYTES_PER_NODE, "for dpatlas synthesize")
    # synthesize's own public checks (which it calls too), before reading a large file: ε and
    # the noise scales of its four stages, and the cost it debits (four releases composed:
    # under zCDP less ρ than one at ε); checked only, synthesize opens its own charge
    public = check_synthesize(
        args.nodes if nodes is None else int(nodes.size), epsilon=args.epsilon
    )
    budget = release_budget(args, out)
    open_charge(public.cost, budget, mechanism="synthesize", scales=public.scales)
    steps = ["read edge list", "measure with noise and generate", "write edge list"]
    with Steps(steps, enabled=show_progress(args.quiet), desc="synthesize") as bar:
        with bar.step(f"reading {args.edges.name}"):
            graph = read_edgelist(args.edges, n=args.nodes, nodes=nodes)
        with bar.step("noisy degrees, partition, block counts, triangles; generating"):
            release = synthesize(
                graph, n=graph.n, epsilon=args.epsilon, budget=budget, rng=args.seed
            )
        with bar.step(f"writing {args.out.name}"):
            release.write_edgelist(args.out)
            out.files.append(args.out)
            if args.communities is not None:
                release.write_communities(args.communities)
                out.files.append(args.communities)
    if budget is not None and budget.made_here:  # `dpatlas budget history` lists the files
        budget.record_products(budget.made_here[-1], out.files)
    g = release.value
    split = release.metadata["split"]
    out.payload.update(
        {
            "command": "synthesize",
            "edges": str(args.edges),
            "out": str(args.out),
            "communities": None if args.communities is None else str(args.communities),
            "release": release.to_dict(),
            "budget": None if budget is None else budget_summary(budget),
        }
    )
    out.line(f"Synthetic graph of {args.edges.name} written to {args.out}")
    out.line(f"  nodes          {g.number_of_nodes()}   edges {g.number_of_edges()}")
    out.line(f"  epsilon        {release.epsilon:g}   delta 0   (edge-DP)")
    out.line("  split          " + ", ".join(f"{k} {v:g}" for k, v in split.items()))
    written = "" if args.communities is None else f"   written to {args.communities}"
    out.line(f"  communities    {release.metadata['communities']}{written}")
    if release.seeded:
        out.line("  seeded         yes: reproducible and NOT secret (teaching only)")
    out.budget_left(args.dataset, budget)
    out.seeded(release)
    return 0
