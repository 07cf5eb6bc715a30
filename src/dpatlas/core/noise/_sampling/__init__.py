"""Exact sampling primitives of the mechanisms (no floating-point ``exp``/``log`` on a draw)."""
