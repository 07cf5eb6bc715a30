"""The secure source: its words are the AES-256-CTR keystream, also across its buffer chunks."""

from __future__ import annotations

import os

import numpy as np
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from dpatlas.core import rng


def test_secure_words_are_the_keystream_across_chunks() -> None:
    key, nonce = bytes(range(32)), bytes(range(16))
    src = rng._SecureSource()
    src._enc = Cipher(algorithms.AES(key), modes.CTR(nonce)).encryptor()
    src._pid = os.getpid()
    chunk = len(rng._ZEROS) // 8  # words per chunk of zeros
    sizes = [1, 3, chunk - 1, chunk, chunk + 1, 2 * chunk + 5, 7]
    words = [src.words(n) for n in sizes]
    stream = Cipher(algorithms.AES(key), modes.CTR(nonce)).encryptor().update(bytes(8 * sum(sizes)))
    assert [w.size for w in words] == sizes
    assert all(w.dtype == np.uint64 for w in words)
    assert np.concatenate(words).tobytes() == stream
