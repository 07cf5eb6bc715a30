"""The released tree of a multi-level map: its hierarchy, least-squares estimates, smoothing.

Post-processing only: everything here reads a release (its noisy node counts), never the sites.
"""
