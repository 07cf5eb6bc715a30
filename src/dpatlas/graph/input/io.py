"""Read SNAP-style edge lists into an :class:`~dpatlas.graph.input.edgegraph.EdgeGraph`."""

from __future__ import annotations

import bz2
import codecs
import gzip
import lzma
import os
import warnings
import zipfile
import zlib
from pathlib import Path
from typing import IO, Any, cast

import numpy as np

from dpatlas.core.validation import is_integer_text
from dpatlas.graph.input._convert import GRAPH_BYTES_PER_NODE, check_node_count, from_edges
from dpatlas.graph.input.edgegraph import EdgeGraph

__all__ = ["read_edgelist"]

_FORMAT = "each non-comment line must hold two non-negative integer node ids (space or tab)"
_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"PK\x03\x04", "zip"),
    (b"\xff\xfe\x00\x00", "UTF-32"),  # byte-order marks, UTF-32 first: it starts like UTF-16
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),  # Excel's and Notepad's "Unicode" text
    (b"\xfe\xff", "UTF-16"),
)
_OPENERS = {"gzip": gzip.open, "bzip2": bz2.open, "xz": lzma.open}
_SUFFIXES = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".lzma": "lzma"}
"""The compressions ``numpy.loadtxt`` infers from a path's suffix (``.lzma``: never ours)."""
_BOM = codecs.BOM_UTF8.decode("latin-1")


def read_edgelist(
    path: str | os.PathLike[str],
    *,
    n: int | None = None,
    nodes: Any = None,
    comments: str | None = "#",
) -> EdgeGraph:
    """Read an undirected edge list (SNAP format) into a compact :class:`EdgeGraph`.

    Lines hold two integer node ids separated by spaces or tabs; text after ``comments`` is
    ignored; the file may be gzip-, bzip2- or xz-compressed (detected from its first bytes,
    whatever its name; a zip archive is refused) and may start with a UTF-8 byte-order mark;
    both directions and repeats of an edge are merged; ids need not be contiguous, and are
    numbers: ``007`` and ``7`` are one node. A malformed line is refused with its number and
    text, and a fix for the usual shapes (a header, commas, ``%`` comments, a weight column).
    Parsing is vectorised (``numpy.loadtxt``'s C reader streaming the file), never a Python
    loop per line.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    n : int, optional
        Public number of nodes; ids must then lie in ``0 .. n-1``. Without ``n`` or ``nodes``
        the node set is the set of ids seen in the file and ``nodes_public`` is False: under
        edge-DP the node set must come from the user (a release function should warn). An
        ``n`` of ``2**31`` or more, or one whose graph would not fit in this machine's physical
        memory (about 32 bytes per node), is refused before the file is read.
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
    IsADirectoryError
        ``path`` is a directory.
    ValueError
        A malformed line (the message gives its number and text), a negative id, a zip
        archive or spreadsheet, UTF-16 or UTF-32 text, or a truncated compressed file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "g.txt"
    >>> _ = f.write_text("# FromNodeId\\tToNodeId\\n7\\t3\\n3\\t7\\n3 12\\n")
    >>> g = read_edgelist(f)
    >>> g, g.ids.tolist()
    (EdgeGraph(n=3, m=2, nodes_public=False), [3, 7, 12])
    """
    if n is not None:  # public: refused before the file is read
        check_node_count(n, GRAPH_BYTES_PER_NODE, "to build the graph")
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(
            f"edge list {os.fspath(path)!r} is a directory; give the edge list file inside it"
        )
    if not p.is_file():
        raise FileNotFoundError(
            f"edge list not found: {os.fspath(path)!r} (resolved to {p.resolve()}); check the path"
        )
    kind = _compression(p)
    if kind == "zip" and _spreadsheet(p):
        raise ValueError(
            f"{p.name} is a spreadsheet; export the sheet as tab-separated text (TSV) with the "
            "two id columns and give that file's path"
        )
    if kind == "zip":
        raise ValueError(
            f"{p.name} is a zip archive (it may hold several files); extract the edge list "
            f"(unzip {p.name}) and give its path, or compress it with gzip instead"
        )
    if kind in ("UTF-16", "UTF-32"):
        raise ValueError(
            f"{p.name} is {kind} text; save it as UTF-8 or plain text "
            f"(iconv -f {kind} -t UTF-8 {p.name} > {p.stem}-utf8.txt)"
        )
    try:
        raw = _load(p, kind, comments)
    except (EOFError, zlib.error, lzma.LZMAError, OSError) as exc:
        if kind is None or isinstance(exc, FileNotFoundError | PermissionError):
            raise
        raise ValueError(
            f"{p.name} is a truncated or corrupt {kind} file; compress it again "
            f"({kind} -t checks it)"
        ) from None
    except ValueError as exc:
        raise _malformed(p, kind, comments) or exc from None
    if raw.shape[1] != 2 and raw.size:  # every line with 3 fields (a weight column) or 1
        raise _malformed(p, kind, comments) or ValueError(f"{p.name}: {_FORMAT}")
    if raw.size and int(raw.min()) < 0:
        raise _malformed(p, kind, comments) or ValueError(f"{p.name}: negative node id")
    parts, loops = from_edges(raw, n=n, nodes=nodes, drop_self_loops=True)
    if loops:
        warnings.warn(
            f"{p.name}: dropped {loops} self-loop(s) (lines with u == v); a simple graph has none",
            UserWarning,
            stacklevel=2,
        )
    return EdgeGraph(**parts)


def _compression(p: Path) -> str | None:
    """The compression of ``p`` from its first bytes (the name of its tool), "UTF-16" or
    "UTF-32" for such text, None for neither."""
    with p.open("rb") as f:
        head = f.read(6)
    return next((kind for magic, kind in _MAGIC if head.startswith(magic)), None)


def _spreadsheet(p: Path) -> bool:
    """Whether the zip archive ``p`` is an Excel or OpenDocument workbook (by name or content)."""
    if p.suffix.lower() in (".xlsx", ".xls", ".ods"):
        return True
    try:
        with zipfile.ZipFile(p) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError):
        return False
    return bool(names & {"[Content_Types].xml", "mimetype"})


def _open_text(p: Path, kind: str | None) -> IO[str]:
    opener: Any = _OPENERS.get(kind or "", open)
    return cast("IO[str]", opener(p, "rt", encoding="latin-1"))


def _load(p: Path, kind: str | None, comments: str | None) -> np.ndarray:
    kw: dict[str, Any] = {
        "dtype": np.int64,
        "comments": comments,
        "ndmin": 2,
        "encoding": "latin-1",
    }
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "loadtxt: input contained no data", UserWarning)
        with _open_text(p, kind) as f:
            if f.read(len(_BOM)) != _BOM:  # a UTF-8 byte-order mark (Excel, Notepad): skipped
                if kind == _SUFFIXES.get(p.suffix):  # numpy opens it alike, and a path is faster
                    return np.loadtxt(p, **kw)
                f.seek(0)
            return np.loadtxt(f, **kw)


def _malformed(p: Path, kind: str | None, comments: str | None) -> ValueError | None:
    """Error naming the first bad line and how to fix it (slow path: only runs after the fast
    reader refused)."""
    data_lines = 0
    with _open_text(p, kind) as f:
        for number, line in enumerate(f, 1):
            if number == 1 and line.startswith(_BOM):
                line = line[len(_BOM) :]
            body = line.split(comments, 1)[0] if comments else line
            fields = body.split()
            data_lines += bool(fields)
            why = None
            if fields and len(fields) != 2:
                why = f"expected 2 node ids, found {len(fields)} field(s)"
            elif not all(map(is_integer_text, fields)):
                why = "not an integer"
            elif any(x.startswith("-") for x in fields):
                why = "negative node id"
            elif any(int(x) > np.iinfo(np.int64).max for x in fields):
                why = "node id too large for int64"
            if why:
                fix = _fix(body, fields, first=data_lines == 1)
                return ValueError(
                    f"{p.name}, line {number}: {why}: {line.rstrip()!r}; {_FORMAT}{fix}"
                )
    return None


def _fix(body: str, fields: list[str], *, first: bool) -> str:
    """How to mend a file whose line ``body`` is malformed, for the shapes real files come in."""
    if body.lstrip().startswith("%"):
        return (
            "; '%' starts a comment in KONECT and Matrix Market files: make it a '#' comment "
            "(sed 's/^%/#/' in.txt > out.txt) or pass comments='%'"
        )
    if "," in body:
        return "; the file is comma-separated: use tabs (tr ',' '\\t' < in.csv > out.txt)"
    numbers = [is_integer_text(x) for x in fields]
    if len(fields) > 2 and all(numbers[:2]):
        return "; keep the first two columns (awk '{print $1, $2}' in.txt > out.txt)"
    if first and not all(numbers):
        return (
            "; if this is a header, make it a '#' comment or delete it; node names must be "
            "numbered 0 .. N-1 first"
        )
    if any(is_integer_text(x) and int(x) > np.iinfo(np.int64).max for x in fields):
        return "; number the nodes 0 .. N-1 (or with any ids below 2**63)"
    return ""
