"""Read SNAP-style edge lists into an :class:`~dpatlas.graph.input.edgegraph.EdgeGraph`."""

from __future__ import annotations

import gzip
import os
import warnings
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from dpatlas.graph.input._convert import from_edges
from dpatlas.graph.input.edgegraph import EdgeGraph

__all__ = ["read_edgelist"]

_FORMAT = "each non-comment line must hold two non-negative integer node ids (space or tab)"


def read_edgelist(
    path: str | os.PathLike[str],
    *,
    n: int | None = None,
    nodes: Any = None,
    comments: str | None = "#",
) -> EdgeGraph:
    """Read an undirected edge list (SNAP format) into a compact :class:`EdgeGraph`.

    Lines hold two integer node ids separated by spaces or tabs; text after ``comments`` is
    ignored; the file may be gzip-compressed (detected from its first bytes); both directions
    and repeats of an edge are merged; ids need not be contiguous. Parsing is vectorised
    (``numpy.loadtxt``'s C reader streaming the file), never a Python loop per line.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    n : int, optional
        Public number of nodes; ids must then lie in ``0 .. n-1``. Without ``n`` or ``nodes``
        the node set is the set of ids seen in the file and ``nodes_public`` is False: under
        edge-DP the node set must come from the user (a release function should warn).
    nodes : array-like of int, optional
        Public node ids (every id in the file must be one of them).
    comments : str or None, default "#"
        Comment marker; None for none.

    Returns
    -------
    EdgeGraph
        Self-loops are dropped with a ``UserWarning`` saying how many.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    ValueError
        A malformed line (the message gives its number and text), a negative id, or a
        truncated gzip file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "g.txt"
    >>> _ = f.write_text("# FromNodeId\\tToNodeId\\n7\\t3\\n3\\t7\\n3 12\\n")
    >>> g = read_edgelist(f)
    >>> g, g.ids.tolist()
    (EdgeGraph(n=3, m=2, nodes_public=False), [3, 7, 12])
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(
            f"edge list not found: {os.fspath(path)!r} (resolved to {p.resolve()}); check the path"
        )
    gz = _is_gzip(p)
    try:
        raw = _load(p, gz, comments)
    except (EOFError, zlib.error, gzip.BadGzipFile):
        raise ValueError(
            f"{p.name} is a truncated or corrupt gzip file; compress it again (gzip -t checks it)"
        ) from None
    except ValueError as exc:
        raise _malformed(p, gz, comments) or exc from None
    if raw.shape[1] != 2 and raw.size:  # every line with 3 fields (a weight column) or 1
        raise _malformed(p, gz, comments) or ValueError(f"{p.name}: {_FORMAT}")
    if raw.size and int(raw.min()) < 0:
        raise _malformed(p, gz, comments) or ValueError(f"{p.name}: negative node id")
    parts, loops = from_edges(raw, n=n, nodes=nodes, drop_self_loops=True)
    if loops:
        warnings.warn(
            f"{p.name}: dropped {loops} self-loop(s) (lines with u == v); a simple graph has none",
            UserWarning,
            stacklevel=2,
        )
    return EdgeGraph(**parts)


def _is_gzip(p: Path) -> bool:
    with p.open("rb") as f:
        return f.read(2) == b"\x1f\x8b"


def _load(p: Path, gz: bool, comments: str | None) -> np.ndarray:
    kw: dict[str, Any] = {
        "dtype": np.int64,
        "comments": comments,
        "ndmin": 2,
        "encoding": "latin-1",
    }
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "loadtxt: input contained no data", UserWarning)
        if gz == (p.suffix == ".gz"):
            return np.loadtxt(p, **kw)
        with gzip.open(p, "rt", encoding="latin-1") if gz else p.open(encoding="latin-1") as f:
            return np.loadtxt(f, **kw)


def _malformed(p: Path, gz: bool, comments: str | None) -> ValueError | None:
    """Error naming the first bad line (slow path: only runs after the fast reader refused)."""
    opener = gzip.open if gz else open
    with opener(p, "rt", encoding="latin-1") as f:
        for number, line in enumerate(f, 1):
            body = line.split(comments, 1)[0] if comments else line
            fields = body.split()
            why = None
            if fields and len(fields) != 2:
                why = f"expected 2 node ids, found {len(fields)} field(s)"
            elif any(not (x.isascii() and x.lstrip("+-").isdigit()) for x in fields):
                why = "not an integer"
            elif any(x.startswith("-") for x in fields):
                why = "negative node id"
            elif any(int(x) > np.iinfo(np.int64).max for x in fields):
                why = "node id too large for int64"
            if why:
                return ValueError(f"{p.name}, line {number}: {why}: {line.rstrip()!r}; {_FORMAT}")
    return None
