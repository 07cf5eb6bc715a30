"""The record of a synthetic-graph release (:func:`~dpatlas.graph.synthesis.synthetic.synthesize`):
the graph, its released communities, and the writers of both."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dpatlas.core.files import written_whole
from dpatlas.core.release import Release

__all__ = ["SyntheticGraph"]


@dataclass(frozen=True)
class SyntheticGraph(Release):
    """A synthetic graph (``value``: a :class:`networkx.Graph` on the public node set) and its
    privacy record; ``metadata["split"]`` gives each stage's ε.

    ``communities`` is the released community of every node, in the order of
    ``value.nodes`` (the node ids sorted: ``0 .. n-1``, the sorted ``nodes``, or the networkx
    graph's nodes sorted): part of the same ε-DP release, the partition the generator used.
    """

    communities: np.ndarray | None = None

    def confidence_interval(self, level: float = 0.95) -> tuple[Any, Any]:
        """Refused: a synthetic graph has no interval (its statistics are post-processing)."""
        raise ValueError(
            "a synthetic graph has no confidence interval; release the statistic you need "
            "(e.g. triangle_count, edge_count) for one with a stated interval"
        )

    def to_dict(self) -> dict[str, Any]:
        """The release as JSON-ready data; the graph as its node and edge counts."""
        graph = self.value
        fields = {f: getattr(self, f) for f in Release.__dataclass_fields__}
        summary = {"nodes": graph.number_of_nodes(), "edges": graph.number_of_edges()}
        return {**Release(**{**fields, "value": 0}).to_dict(), "value": summary}

    def write_edgelist(self, path: str | Path) -> None:
        """Write the edges as ``u v`` lines (``networkx.write_edgelist(..., data=False)``),
        after a ``#`` header stating ε; isolated nodes are not listed (the node set is public).
        The file is written beside ``path`` and swapped in whole: a failed write leaves an
        existing file as it was.

        A node label that would not read back as one field (empty, with a space or tab, or
        starting with ``#``) is refused with a ``ValueError`` before anything is written.

        Examples
        --------
        >>> import tempfile, networkx as nx
        >>> from pathlib import Path
        >>> from dpatlas.graph import synthesize
        >>> G = nx.relabel_nodes(nx.path_graph(4), {0: "Ann Lee"})
        >>> rel = synthesize(G, n=4, epsilon=1.0, rng=3)
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     rel.write_edgelist(Path(tmp) / "synthetic.txt")
        Traceback (most recent call last):
        ...
        ValueError: node label 'Ann Lee' would not read back from a 'u v' line ...
        """
        import networkx as nx

        graph = self.value
        _check_labels(graph.nodes)
        head = f"# dpatlas synthetic graph: edge-DP, epsilon={self.epsilon:g}, nodes={len(graph)}\n"
        with written_whole(path) as partial, open(partial, "wb") as fh:
            fh.write(head.encode())
            nx.write_edgelist(graph, fh, data=False)

    def write_communities(self, path: str | Path) -> None:
        """Write the released communities as ``node community`` lines (every node, in node
        order), after a ``#`` header stating ε. They are part of the same release: no extra cost.
        Node labels are checked as by :meth:`write_edgelist`.

        Examples
        --------
        >>> import tempfile, networkx as nx
        >>> from pathlib import Path
        >>> from dpatlas.graph import synthesize
        >>> G = nx.planted_partition_graph(2, 20, 0.5, 0.02, seed=1)
        >>> rel = synthesize(G, n=40, epsilon=2.0, rng=3)
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     rel.write_communities(Path(tmp) / "communities.txt")
        ...     lines = (Path(tmp) / "communities.txt").read_text().splitlines()
        >>> lines[0]
        '# dpatlas synthetic graph communities: edge-DP, epsilon=2, nodes=40 (same release)'
        >>> len(lines), lines[1].split()[0]
        (41, '0')
        """
        if self.communities is None:
            raise ValueError(
                "this release has no communities to write; use dpatlas.graph.synthesize()"
            )
        ids = list(self.value.nodes)
        _check_labels(ids)
        head = (
            "# dpatlas synthetic graph communities: edge-DP, "
            f"epsilon={self.epsilon:g}, nodes={len(ids)} (same release)\n"
        )
        rows = "".join(f"{u} {c}\n" for u, c in zip(ids, self.communities.tolist(), strict=True))
        with written_whole(path) as partial:
            partial.write_text(head + rows)


def _check_labels(labels: Any) -> None:
    """Refuse a node label that a whitespace-separated line would not read back as one field."""
    for label in labels:
        text = str(label)
        if not text or text.startswith("#") or len(text.split()) != 1 or text.strip() != text:
            raise ValueError(
                f"node label {text!r} would not read back from a 'u v' line (it is empty, holds "
                "a space or tab, or starts with '#'); relabel the nodes first, e.g. "
                "nx.write_edgelist(nx.convert_node_labels_to_integers(release.value, "
                "label_attribute='label'), path, data=False)"
            )
