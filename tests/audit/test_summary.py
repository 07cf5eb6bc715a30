"""``summarize``: every released field becomes a number, the structure one hashed coordinate."""

from __future__ import annotations

import os
from fractions import Fraction

import numpy as np
import pytest
from tests.helpers.python import run_python

from dpatlas.audit import audit, summarize
from dpatlas.core import Release, discrete_laplace
from dpatlas.graph import triangle_count
from dpatlas.spatial import Grid, Heatmap, heatmap

GRID = Grid.from_bounds((0, 0, 8_000, 8_000), cell_size=1_000, crs="EPSG:3035")
SITES = (np.full(30, 1_500.0), np.full(30, 2_500.0))


def test_noisy_bounds_in_the_metadata_are_coordinates() -> None:
    rel = triangle_count(np.array([[0, 1], [1, 2]]), n=4, epsilon=1.0, interval_epsilon=0.5, rng=3)
    out = summarize(rel)
    assert rel.metadata["noisy_a_max"] in out[1:].tolist()
    assert out[1] == rel.value


def tree(hm: Heatmap) -> tuple:
    """The released structure: node rectangles, parents, which nodes were measured."""
    h = hm.release.metadata["hierarchy"]
    return tuple(tuple(h[k].tolist()) for k in ("r0", "r1", "c0", "c1", "parent", "measured"))


def test_the_structure_code_is_the_released_tree() -> None:
    maps = [
        heatmap(SITES, GRID, epsilon=1.0, crs="EPSG:3035", target="regions", rng=seed)
        for seed in range(12)
    ]
    codes = {tree(hm): summarize(hm.release)[0] for hm in maps}
    assert len(codes) > 1  # the tree varies between runs here
    assert len(set(codes.values())) == len(codes)  # one code per tree
    for hm in maps:
        assert summarize(hm.release)[0] == codes[tree(hm)]


def test_fixed_layout_ignored_keys_and_padding() -> None:
    def release(metadata: dict) -> Release:
        return Release(np.array([1, 2]), 1.0, 0.0, "m", 1.0, 1.0, "laplace", True, 0.5, metadata)

    a = summarize(release({"created": "12:00", "noisy": np.array([1.5])}), width=3)
    b = summarize(release({"created": "12:01", "noisy": np.array([2.5])}), width=3)
    assert a.shape == b.shape
    assert a[0] == b[0]  # the wall-clock time is ignored; the noisy value is not structure
    assert a.tolist() != b.tolist()
    c = summarize(release({"created": "12:00", "noisy": np.array([1.5, 0.0])}), width=3)
    assert c[0] != a[0]  # a length is structure


def test_ignore_given_as_one_string_is_one_key_name() -> None:
    out = {"created": 7.0, "c": 2.0, "r": 3.0}
    assert summarize(out, ignore="created").tolist()[1:] == [2.0, 3.0]  # one-letter keys kept
    assert summarize(out, ignore="created").tolist() == summarize(out, ignore=("created",)).tolist()


@pytest.mark.parametrize(
    ("ignore", "match"),
    [
        (None, r"ignore must be a key name or a collection of key names, got None; pass \(\)"),
        (("created", 3), r"ignore must hold key names \(str\), got 3 of type int"),
    ],
)
def test_ignore_that_is_no_key_names_is_refused(ignore: object, match: str) -> None:
    with pytest.raises(TypeError, match=match):
        summarize({"a": 1.0}, ignore=ignore)  # type: ignore[arg-type]


def test_auditing_two_identical_inputs_ignoring_created_passes() -> None:
    # a wall-clock "created" that ticks between the runs on d and those on d' (as a heatmap's
    # does): with ignore="created" read as letters, it entered the structure code and the audit
    # of two identical inputs failed
    calls = iter(range(10**6))

    def mechanism(d: int, *, rng: np.random.Generator) -> np.ndarray:
        rel = discrete_laplace([d], sensitivity=1, epsilon=1.0, rng=rng)
        clock = f"12:0{next(calls) // 400}"
        return summarize({"created": clock, "release": rel}, ignore="created")

    result = audit(mechanism, 3, 3, epsilon=0.5, samples=400, rng=1)
    assert result.passed, result


def test_ragged_and_mixed_lists_are_walked_item_by_item() -> None:
    ragged = summarize({"levels": [[1, 2], [3]]}, width=2)
    assert ragged[1:].tolist() == [1.0, 2.0, 2.0, 3.0, 0.0, 1.0]  # each list padded, its length
    # numbers among strings are coordinates (numpy made them text, hashed into the code)
    a, b = summarize({"a": [1.5, "x"]}), summarize({"a": [2.5, "x"]})
    assert a[1:].tolist() == [1.5]
    assert b[1:].tolist() == [2.5]
    assert a[0] == b[0]
    assert summarize({"a": [[1.5, "x"], [2.0, "y"]]})[1:].tolist() == [1.5, 2.0]
    assert summarize({"a": ["x", "y"]})[0] != summarize({"a": ["x", "z"]})[0]  # text: structure
    assert summarize({"f": Fraction(1, 2)})[1:].tolist() == [0.5]


@pytest.mark.parametrize(
    ("output", "kwargs", "error", "match"),
    [
        (
            np.array([1.0, 2.0, 3.0]),
            {"width": 2.5},
            TypeError,
            r"width must be an integer, got 2\.5",
        ),
        (
            np.array([1.0, 2.0, 3.0]),
            {"width": -1},
            ValueError,
            r"width must be an integer >= 1, got -1",
        ),
        (np.array([1.0]), {"width": 0}, ValueError, r"width must be an integer >= 1, got 0"),
        (
            {"n": 10**400},
            {},
            ValueError,
            r"outputs\[0\]\['n'\] is an integer of 401 digits, beyond the float range; "
            r"scale it down or convert it to a float first",
        ),
        ({"n": [1, 10**400]}, {}, ValueError, r"outputs\[0\]\['n'\]\[1\] is an integer of 401"),
        (
            {"o": object()},
            {},
            TypeError,
            r"summarize cannot read outputs\[0\]\['o'\] of type object; pass numbers, text, "
            r"arrays, sequences, mappings or dataclasses",
        ),
    ],
)
def test_summarize_rejects_bad_input(output: object, kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        summarize(output, **kwargs)


def test_an_iterator_of_mixed_items_is_read_once_and_counted():
    # was TypeError: object of type 'generator' has no len() (len taken after the walk)
    from_list = summarize([1.0, "a", 2.0])
    np.testing.assert_array_equal(summarize(x for x in [1.0, "a", 2.0]), from_list)


def test_a_set_of_strings_gives_the_same_vector_under_every_hash_seed() -> None:
    code = (
        "from dpatlas.audit import summarize; "
        "print(summarize({'flags': {'suppressed', 'low', 'edge', 'capped'}, 'n': {2.5, 1.5}})"
        ".tolist())"
    )
    outs = {run_python(code, env={**os.environ, "PYTHONHASHSEED": str(s)}) for s in (0, 1, 2)}
    assert len(outs) == 1
