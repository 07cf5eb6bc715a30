"""Edge-DP synthetic graphs: :func:`synthesize` releases a whole graph on the public node set.

* :mod:`~dpatlas.graph.synthesis.synthetic`: the release (one debit, the composition proof).
* :mod:`~dpatlas.graph.synthesis.record`: :class:`SyntheticGraph`, the release record and its
  writers (edge list, communities).
* :mod:`~dpatlas.graph.synthesis._measure`: the private measurements, each with its proof.
* :mod:`~dpatlas.graph.synthesis._deconvolve`, :mod:`~dpatlas.graph.synthesis._bter`,
  :mod:`~dpatlas.graph.synthesis._fit`, :mod:`~dpatlas.graph.synthesis._stubs`: the generator
  (post-processing of released values).
"""

from dpatlas.graph.synthesis.synthetic import MECHANISMS, SPLIT, SyntheticGraph, synthesize

__all__ = ["MECHANISMS", "SPLIT", "SyntheticGraph", "synthesize"]
