"""read_edgelist: SNAP format, guards, and the shared SNAP files."""

from __future__ import annotations

import bz2
import codecs
import gzip
import lzma
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dpatlas.graph.input.io import read_edgelist

SNAP = "# Directed graph: X.txt\r\n# Nodes: 4 Edges: 6\r\n# FromNodeId\tToNodeId\r\n"
BODY = "7\t3\r\n3\t7\r\n3 12\r\n12   7 \r\n7\t3\r\n"


def _write(tmp_path: Path, name: str, text: str, *, gz: bool = False) -> Path:
    path = tmp_path / name
    data = text.encode("latin-1")
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def _edges(g: object) -> set[tuple[int, int]]:
    ids, indptr, indices = g.ids, g.indptr, g.indices  # type: ignore[attr-defined]
    rows = np.repeat(np.arange(len(ids)), np.diff(indptr))
    return {(int(ids[i]), int(ids[j])) for i, j in zip(rows, indices, strict=True) if i < j}


@pytest.mark.parametrize(("name", "gz"), [("g.txt", False), ("g.txt.gz", True), ("g.dat", True)])
def test_snap_format_plain_and_gzip(tmp_path: Path, name: str, gz: bool) -> None:
    g = read_edgelist(_write(tmp_path, name, SNAP + BODY, gz=gz))
    assert (g.n, g.m, g.nodes_public) == (3, 3, False)
    assert g.ids.tolist() == [3, 7, 12]
    assert _edges(g) == {(3, 7), (3, 12), (7, 12)}


def test_no_final_newline_trailing_comment_and_blank_lines(tmp_path: Path) -> None:
    g = read_edgelist(_write(tmp_path, "g.txt", "1 2 # note\n\n  \n2 3"))
    assert _edges(g) == {(1, 2), (2, 3)}


def test_self_loops_dropped_with_warning_and_their_node_with_them(tmp_path: Path) -> None:
    path = _write(tmp_path, "g.txt", "1 2\n5 5\n2 2\n")
    with pytest.warns(UserWarning, match=r"dropped 2 self-loop\(s\)"):
        g = read_edgelist(path)
    assert g.ids.tolist() == [1, 2]
    with pytest.warns(UserWarning, match="dropped 2"):
        g = read_edgelist(path, n=6)
    assert (g.n, g.m, g.nodes_public) == (6, 1, True)


def test_explicit_n_and_nodes(tmp_path: Path) -> None:
    path = _write(tmp_path, "g.txt", "0 1\n1 2\n")
    assert read_edgelist(path, n=5).degrees.tolist() == [1, 2, 1, 0, 0]
    g = read_edgelist(path, nodes=[2, 1, 0, 9])
    assert (g.n, g.nodes_public, g.degrees.tolist()) == (4, True, [1, 2, 1, 0])
    with pytest.raises(ValueError, match="the edges use 3 distinct node ids but n=2"):
        read_edgelist(path, n=2)
    far = _write(tmp_path, "far.txt", "70 10\n10 400\n")  # SNAP ids, public n = 4
    assert read_edgelist(far, n=4).degrees.tolist() == [2, 1, 1, 0]


def test_empty_and_comment_only_files(tmp_path: Path) -> None:
    for text in ("", "# nothing\n"):
        g = read_edgelist(_write(tmp_path, "e.txt", text))
        assert (g.n, g.m) == (0, 0)
    assert read_edgelist(_write(tmp_path, "e.txt", "# x\n"), n=3).n == 3


def test_custom_and_no_comment_marker(tmp_path: Path) -> None:
    assert read_edgelist(_write(tmp_path, "g.txt", "% c\n1 2\n"), comments="%").m == 1
    with pytest.raises(ValueError, match=r"line 1: expected 2 node ids, found 3.*'# a b'"):
        read_edgelist(_write(tmp_path, "g.txt", "# a b\n1 2\n"), comments=None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# h\n1 2\n3\n", r"g\.txt, line 3: expected 2 node ids, found 1 field\(s\): '3'"),
        ("1 2\n\n1 2 3\n", r"line 3: expected 2 node ids, found 3"),
        ("1 2\nabc 5\n", r"line 2: not an integer: 'abc 5'"),
        ("1 2.5\n", r"line 1: not an integer"),
        ("1 2\n4 -2\n", r"line 2: negative node id: '4 -2'"),
        ("1 99999999999999999999\n", r"line 1: node id too large for int64"),
        # every line alike (a weight column, one id): named too, not an "(m, 2) array" error
        ("# w\n1 2 1\n2 3 1\n", r"g\.txt, line 2: expected 2 node ids, found 3 field\(s\)"),
        ("1\n2\n", r"g\.txt, line 1: expected 2 node ids, found 1 field\(s\): '1'"),
    ],
)
def test_malformed_lines_are_named(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_edgelist(_write(tmp_path, "g.txt", text))


def test_malformed_line_in_gzip_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="line 4: not an integer"):
        read_edgelist(_write(tmp_path, "g.gz", "#\n1 2\n2 3\nx y\n", gz=True))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(
        FileNotFoundError, match=r"edge list not found: '.*nope\.txt'.*check the path"
    ):
        read_edgelist(tmp_path / "nope.txt")


def test_directory_is_named_as_one(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError, match=r"edge list '.*' is a directory; give the edge"):
        read_edgelist(tmp_path)  # was "edge list not found", for a path that exists


def test_matches_line_by_line_parse(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    pairs = rng.integers(0, 500, size=(2000, 2)) * 7919
    seps = ["\t", " "]
    lines = [f"{u}{seps[k % 2]}{v}" for k, (u, v) in enumerate(pairs.tolist())]
    path = _write(tmp_path, "g.txt.gz", "# header\n" + "\n".join(lines) + "\n", gz=True)
    with pytest.warns(UserWarning, match="self-loop"):
        g = read_edgelist(path)
    expected = {(min(u, v), max(u, v)) for u, v in pairs.tolist() if u != v}
    assert _edges(g) == expected
    assert g.ids.tolist() == sorted({x for e in expected for x in e})


SNAP_FILES = [
    ("ca-GrQc.txt", 5241, 14484, 12),
    ("facebook_combined.txt.gz", 4039, 88234, 0),
    ("wiki-Vote.txt.gz", 7115, 100762, 0),
    ("ca-HepPh.txt.gz", 12006, 118489, 32),
    ("email-Enron.txt.gz", 36692, 183831, 0),
]


@pytest.mark.shared
@pytest.mark.parametrize(("name", "n", "m", "loops"), SNAP_FILES)
def test_shared_snap_files(shared_datasets: Path, name: str, n: int, m: int, loops: int) -> None:
    path = shared_datasets / "graphs" / name
    if loops:
        with pytest.warns(UserWarning, match=f"dropped {loops} self-loop"):
            g = read_edgelist(path)
    else:
        g = read_edgelist(path)
    assert (g.n, g.m, g.nodes_public) == (n, m, False)


def test_truncated_gzip_is_named(tmp_path: Path) -> None:
    whole = gzip.compress(b"".join(b"%d %d\n" % (i, i + 1) for i in range(2_000)))
    cut = tmp_path / "edges.txt.gz"
    cut.write_bytes(whole[:40])  # EOFError from gzip once reached the user as a traceback
    with pytest.raises(ValueError, match=r"edges.txt.gz is a truncated or corrupt gzip file"):
        read_edgelist(cut)


@pytest.mark.parametrize(
    ("name", "compress"),
    [
        ("g.txt.bz2", bz2.compress),
        ("g.txt.xz", lzma.compress),
        ("g.bz", bz2.compress),  # the first bytes decide, not the name
        ("g.dat", lzma.compress),
        ("g.txt.gz", lambda data: data),  # a plain file with a compressed name
    ],
)
def test_bzip2_and_xz_detected_from_first_bytes(tmp_path: Path, name: str, compress: Any) -> None:
    path = tmp_path / name
    path.write_bytes(compress((SNAP + BODY).encode()))
    assert _edges(read_edgelist(path)) == {(3, 7), (3, 12), (7, 12)}
    path.write_bytes(compress(b"1 2\nx y\n"))  # was the compressed bytes, as text, in the message
    with pytest.raises(ValueError, match=rf"{name}, line 2: not an integer: 'x y'"):
        read_edgelist(path)


def test_truncated_bzip2_is_named_as_bzip2(tmp_path: Path) -> None:
    cut = tmp_path / "edges.txt.bz2"
    cut.write_bytes(bz2.compress(b"".join(b"%d %d\n" % (i, i + 1) for i in range(2_000)))[:40])
    with pytest.raises(ValueError, match=r"edges.txt.bz2 is a truncated or corrupt bzip2 file"):
        read_edgelist(cut)


def test_zip_archive_refused_with_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "edges.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("edges.txt", "0 1\n")
    with pytest.raises(ValueError, match=r"edges.zip is a zip archive .*unzip edges.zip"):
        read_edgelist(path)


@pytest.mark.parametrize(
    ("name", "member"),
    [("edges.xlsx", "xl/workbook.xml"), ("edges.ods", "content.xml"), ("edges.bin", "mimetype")],
)
def test_a_spreadsheet_is_told_to_export_text_not_to_unzip(
    tmp_path: Path, name: str, member: str
) -> None:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(member, "x")
    with pytest.raises(ValueError, match=rf"^{name} is a spreadsheet; export the sheet as tab-"):
        read_edgelist(path)  # before: "unzip edges.xlsx"


@pytest.mark.parametrize("encoding", ["utf-32", "utf-32-be"])
def test_utf32_text_is_named_utf32(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "g.txt"
    path.write_bytes(
        ("\ufeff" if encoding.endswith("be") else "").encode(encoding) + "0 1\n".encode(encoding)
    )
    with pytest.raises(ValueError, match=r"g.txt is UTF-32 text; .*\(iconv -f UTF-32 -t UTF-8 g"):
        read_edgelist(path)  # before: "UTF-16 text", and iconv -f UTF-16 wrote garbage


@pytest.mark.parametrize("gz", [False, True])
def test_utf8_byte_order_mark_skipped(tmp_path: Path, gz: bool) -> None:
    path = tmp_path / "g.txt"
    data = codecs.BOM_UTF8 + (SNAP + BODY).encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    assert _edges(read_edgelist(path)) == {(3, 7), (3, 12), (7, 12)}
    path.write_bytes(codecs.BOM_UTF8 + b"1 2\n2\n")
    with pytest.raises(ValueError, match=r"line 2: expected 2 node ids"):
        read_edgelist(path)


def test_utf16_text_refused_with_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "g.txt"
    path.write_bytes("0 1\n1 2\n".encode("utf-16"))  # was "not an integer: 'ÿþ0\x00 \x001\x00'"
    # the advised command writes another file: "> g.txt" would empty the input before iconv reads it
    fix = r"\(iconv -f UTF-16 -t UTF-8 g.txt > g-utf8.txt\)$"
    with pytest.raises(ValueError, match=r"g.txt is UTF-16 text; save it as UTF-8 .*" + fix):
        read_edgelist(path)


@pytest.mark.parametrize(
    ("text", "fix"),
    [
        ("% sym unweighted\n0 1\n", r"line 1: .*make it a '#' comment \(sed 's/\^%/#/'"),
        ("source,target\n0,1\n", r"line 1: .*comma-separated: use tabs \(tr ',' '\\t'"),
        ("0,1\n1,2\n", r"comma-separated"),
        ("# c\nsource target\n0 1\n", r"line 2: .*if this is a header, make it a '#' comment"),
        ("0 1 1 1234567\n", r"keep the first two columns \(awk '\{print \$1, \$2\}'"),
        ("0 1 0.5\n", r"keep the first two columns"),
        ("9223372036854775808 1\n", r"number the nodes 0 \.\. N-1"),
    ],
)
def test_malformed_files_of_real_world_shapes_name_the_fix(
    tmp_path: Path, text: str, fix: str
) -> None:
    with pytest.raises(ValueError, match=fix):
        read_edgelist(_write(tmp_path, "g.txt", text))


@pytest.mark.parametrize("byte", [b"\xb2", b"\xb3", b"\xb9"])
def test_a_latin1_superscript_digit_is_not_an_integer(tmp_path: Path, byte: bytes) -> None:
    path = tmp_path / "g.txt"
    path.write_bytes(b"1 2\n3 " + byte + b"\n")  # was "invalid literal for int() ...: '\xb2'"
    with pytest.raises(ValueError, match=r"g.txt, line 2: not an integer: '3 .'; each non-"):
        read_edgelist(path)


def test_ids_are_numbers_leading_zeros_name_one_node(tmp_path: Path) -> None:
    g = read_edgelist(_write(tmp_path, "g.txt", "007 1\n7 2\n"))
    assert g.ids.tolist() == [1, 2, 7]
