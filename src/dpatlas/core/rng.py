"""Randomness for every dpatlas mechanism: one normaliser, a secure default.

``rng`` parameters accept ``None``, an ``int`` seed, a :class:`numpy.random.Generator` or a
:class:`RandomSource`. ``None`` (the default) draws from a cryptographically secure stream: the
AES-256 keystream in counter mode (package ``cryptography``, AES-NI where the CPU has it), keyed
with 32 bytes from ``os.urandom`` and re-keyed in a forked child so that parent and child never
share noise. AES-CTR was chosen over ``os.urandom`` itself because it is several times faster
(samplers consume a few words per sample) and over numpy's generators because those are not
cryptographically secure: an adversary who sees some noise must not predict the rest.

A seed (``int`` or ``Generator``) makes the noise reproducible. That is for tests and teaching
only: anyone who knows the seed can subtract the noise. Every :class:`~dpatlas.core.release.Release`
made with a seeded source says ``seeded=True``.

Samplers use only uniform 64-bit words (:meth:`RandomSource.words`) and exact integer
operations on them, never floating-point transcendental functions.
"""

from __future__ import annotations

import os
import threading
from typing import Union

import numpy as np
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

__all__ = ["RandomSource", "RngLike", "get_source"]

_U64_MAX = np.uint64(np.iinfo(np.uint64).max)
_ZEROS = memoryview(bytes(1 << 20))


class RandomSource:
    """A stream of uniform 64-bit words and exact helpers built on it.

    Subclasses implement :meth:`_raw`. Use :func:`get_source` rather than constructing one.
    """

    seeded: bool = False

    def _raw(self, n: int) -> np.ndarray:
        raise NotImplementedError

    def words(self, n: int) -> np.ndarray:
        """Return ``n`` independent uniform ``uint64`` words."""
        if n <= 0:
            return np.empty(0, dtype=np.uint64)
        return self._raw(int(n))

    def below(self, high: int | np.ndarray, size: int | None = None) -> np.ndarray:
        """Exact uniform integers in ``[0, high)`` by rejection (no modulo bias).

        ``high`` is a positive int (then ``size`` is the count) or a ``uint64`` array of bounds,
        one per output. A word ``w`` is accepted when ``w < q * high`` with
        ``q = floor((2**64 - 1) / high)``; every residue then has exactly ``q`` preimages.
        """
        bound = np.asarray(high, dtype=np.uint64)
        scalar = bound.ndim == 0
        count = (1 if size is None else int(size)) if scalar else bound.size
        if bound.size and bound.min() == 0:
            raise ValueError("high must be >= 1")
        limit = (_U64_MAX // bound) * bound
        out = self.words(count)
        bad = np.flatnonzero(out >= limit)
        while bad.size:
            redo = self.words(bad.size)
            lim = limit if scalar else limit[bad]
            ok = redo < lim
            out[bad[ok]] = redo[ok]
            bad = bad[~ok]
        out %= bound
        return out

    def bits(self, n: int) -> np.ndarray:
        """Return ``n`` fair coin flips as a boolean array."""
        w = self.words((n + 63) // 64)
        return np.unpackbits(w.view(np.uint8))[:n].astype(bool)

    def uniform(self, n: int) -> np.ndarray:
        """Return ``n`` uniform floats in ``[0, 1)`` with 53 random bits each."""
        return (self.words(n) >> np.uint64(11)).astype(np.float64) * 2.0**-53

    def generator(self) -> np.random.Generator:
        """A numpy Generator seeded from this source, for non-noise randomness (subsampling)."""
        return np.random.Generator(np.random.PCG64(self.words(4).tolist()))


class _SecureSource(RandomSource):
    """AES-256-CTR keystream keyed from ``os.urandom``; re-keyed after ``fork``."""

    seeded = False

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = -1

    def _rekey(self) -> None:
        cipher = Cipher(algorithms.AES(os.urandom(32)), modes.CTR(os.urandom(16)))
        self._enc = cipher.encryptor()
        self._pid = os.getpid()

    def _raw(self, n: int) -> np.ndarray:
        # the keystream is encrypted zeros: one shared block of zeros, written straight into
        # the array (fresh zero buffers per call cost page faults, ~6x the AES work)
        out = np.empty(n + 2, dtype=np.uint64)  # update_into wants 15 spare bytes
        view = out.data.cast("B")
        with self._lock:
            if self._pid != os.getpid():
                self._rekey()
            for start in range(0, 8 * n, len(_ZEROS)):
                stop = min(start + len(_ZEROS), 8 * n)
                self._enc.update_into(_ZEROS[: stop - start], view[start : stop + 15])
        return out[:n]


class _SeededSource(RandomSource):
    """Reproducible words from a numpy bit generator (tests and teaching only)."""

    seeded = True

    def __init__(self, bit_generator: np.random.BitGenerator) -> None:
        self._bg = bit_generator

    def _raw(self, n: int) -> np.ndarray:
        return self._bg.random_raw(n).astype(np.uint64, copy=False)


_SECURE = _SecureSource()

RngLike = Union[None, int, np.random.Generator, RandomSource]  # noqa: UP007 (runtime alias, py3.10)


def get_source(rng: RngLike = None) -> RandomSource:
    """Normalise an ``rng`` argument into a :class:`RandomSource`.

    Parameters
    ----------
    rng : None, int, numpy.random.Generator or RandomSource
        ``None`` for the secure default; an int or Generator for reproducible noise (tests and
        teaching only: the release records ``seeded=True``).

    Examples
    --------
    >>> get_source(None).seeded
    False
    >>> src = get_source(42)
    >>> src.seeded, int(src.below(10, size=3).max()) < 10
    (True, True)
    >>> get_source("42")
    Traceback (most recent call last):
    ...
    TypeError: rng must be None, an int seed, a numpy.random.Generator or a RandomSource, got '42'
    """
    if rng is None:
        return _SECURE
    if isinstance(rng, RandomSource):
        return rng
    if isinstance(rng, np.random.Generator):
        return _SeededSource(rng.bit_generator)
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        if rng < 0:
            raise ValueError(f"rng seed must be >= 0, got {rng}")
        return _SeededSource(np.random.PCG64(int(rng)))
    raise TypeError(
        f"rng must be None, an int seed, a numpy.random.Generator or a RandomSource, got {rng!r}"
    )
